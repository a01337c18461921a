//! Reading LIBSVM / svmlight data files: `label index:value ...` per line, `#` comments, `qid:`
//! ignored, indices 0- or 1-based. Parsing is incremental (`feed` bytes as they arrive) so a file
//! of any size streams through a fixed buffer; errors carry the line number. Nothing is allocated
//! from a number read in the file: a feature index only becomes a column count.

use std::io::BufRead;

use crate::data::CsrMatrix;
use crate::error::{Error, Result};

/// How feature indices in the file are numbered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexBase {
    /// Index 0 is the first column.
    Zero,
    /// Index 1 is the first column, LIBSVM's own convention; an index 0 is an error.
    One,
    /// One-based unless an index 0 occurs in the file.
    Auto,
}

impl IndexBase {
    /// The base several files of one run are read with: `Auto` becomes zero-based if any of them
    /// uses index 0 (`uses_zero`), else one-based, so that the files agree on what a column is.
    pub fn for_files(self, uses_zero: impl IntoIterator<Item = bool>) -> IndexBase {
        match self {
            IndexBase::Auto if uses_zero.into_iter().any(|z| z) => IndexBase::Zero,
            IndexBase::Auto => IndexBase::One,
            fixed => fixed,
        }
    }
    /// The index that column 0 is written as (`Auto` has none).
    pub fn offset(self) -> Option<usize> {
        match self {
            IndexBase::Zero => Some(0),
            IndexBase::One => Some(1),
            IndexBase::Auto => None,
        }
    }
}

/// The largest feature index a file may use: column indices are stored as `i32`.
pub const MAX_INDEX: i64 = i32::MAX as i64 - 1;

/// A token of the input as an error message quotes it: whole if short, else its start and its
/// length (a 200 MB token must not make a 200 MB message).
pub fn excerpt(token: &str) -> String {
    const KEEP: usize = 40;
    if token.len() <= KEEP {
        return token.to_string();
    }
    let mut end = KEEP;
    while !token.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... ({} bytes)", &token[..end], token.len())
}

/// Rows parsed so far, with raw (as written) indices.
#[derive(Default)]
pub struct LibsvmParser {
    pending: Vec<u8>,
    line: usize,
    labels: Vec<f64>,
    rows: CsrMatrix,
    max_index: i64,
    /// The first line using feature index 0, for the error if the file is read as one-based.
    zero_line: Option<usize>,
}

/// The examples of a LIBSVM file: one label and one sparse row per data line (blank and
/// comment-only lines hold none).
pub struct LibsvmData {
    /// The first number of every line, as written (finite; not mapped to classes).
    pub labels: Vec<f64>,
    /// The features with 0-based columns, as many columns as the largest index written (explicit
    /// zeros included) requires; zero values are not stored.
    pub x: CsrMatrix,
}

impl LibsvmParser {
    /// A parser that has read nothing.
    pub fn new() -> Self {
        LibsvmParser { rows: CsrMatrix::new(), max_index: -1, ..Default::default() }
    }

    /// Parses every complete line in `bytes`; keeps a trailing partial line for the next call.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<()> {
        let mut rest = bytes;
        if !self.pending.is_empty() {
            match rest.iter().position(|&b| b == b'\n') {
                None => {
                    self.pending.extend_from_slice(rest);
                    return Ok(());
                }
                Some(p) => {
                    let mut line = std::mem::take(&mut self.pending);
                    line.extend_from_slice(&rest[..p]);
                    self.parse_line(&line)?;
                    rest = &rest[p + 1..];
                }
            }
        }
        while let Some(p) = rest.iter().position(|&b| b == b'\n') {
            self.parse_line(&rest[..p])?;
            rest = &rest[p + 1..];
        }
        self.pending.extend_from_slice(rest);
        Ok(())
    }

    /// Complete rows parsed so far.
    pub fn rows(&self) -> usize {
        self.labels.len()
    }

    /// Whether a line parsed so far uses feature index 0 (the file is then zero-based).
    pub fn uses_index_zero(&self) -> bool {
        self.zero_line.is_some()
    }

    /// Lines read so far (for messages about the input's end).
    pub fn lines(&self) -> usize {
        self.line
    }

    /// The rows parsed so far, with 0-based indices, leaving the parser ready for more bytes:
    /// a file then streams through in bounded memory. `last` parses the final line too (which
    /// may lack a newline). The index base must be known (`Zero` or `One`): `Auto` needs the
    /// whole file. The column count is that of the widest row seen so far.
    pub fn take(&mut self, base: IndexBase, last: bool) -> Result<LibsvmData> {
        if last {
            self.parse_pending()?;
        }
        match base {
            IndexBase::Zero => self.drain(0),
            IndexBase::One => self.drain(1),
            IndexBase::Auto => {
                Err(Error::InvalidParameter("reading in chunks needs the index base: zero- or one-based".into()))
            }
        }
    }

    /// Parses the last line (which may lack a newline) and returns the data with 0-based indices.
    pub fn finish(mut self, base: IndexBase) -> Result<LibsvmData> {
        self.parse_pending()?;
        let shift = match base.for_files([self.uses_index_zero()]) {
            IndexBase::Zero => 0,
            _ => 1,
        };
        self.drain(shift)
    }

    /// Parses the last line (which may lack a newline), keeping the rows for `finish`: files read
    /// together can then choose their common base before any of them is finished.
    pub fn end_input(&mut self) -> Result<()> {
        self.parse_pending()
    }

    fn parse_pending(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let line = std::mem::take(&mut self.pending);
        self.parse_line(&line)
    }

    /// The rows held, indices shifted down by `shift`, the parser left empty of rows.
    fn drain(&mut self, shift: i32) -> Result<LibsvmData> {
        if let (1, Some(line)) = (shift, self.zero_line) {
            return Err(Error::Parse {
                line,
                message: "feature index 0 in a file read as one-based (indices start at 1); read it as zero-based"
                    .into(),
            });
        }
        let mut x = std::mem::take(&mut self.rows);
        // (a one-based file with an index 0 was refused above)
        x.shift_columns_down(shift as usize)?;
        x.set_cols((self.max_index + 1 - shift as i64).max(0) as usize)?;
        Ok(LibsvmData { labels: std::mem::take(&mut self.labels), x })
    }

    fn parse_line(&mut self, raw: &[u8]) -> Result<()> {
        self.line += 1;
        let line_no = self.line;
        let err = |m: String| Error::Parse { line: line_no, message: m };
        let text = std::str::from_utf8(raw).map_err(|_| err("not valid UTF-8".into()))?;
        let text = text.split('#').next().unwrap_or("").trim();
        if text.is_empty() {
            return Ok(());
        }
        let mut tokens = text.split_ascii_whitespace();
        let label_tok = tokens.next().unwrap_or("");
        let label: f64 =
            label_tok.parse().map_err(|_| err(format!("label '{}' is not a number", excerpt(label_tok))))?;
        if !label.is_finite() {
            return Err(err(format!("label '{}' is not finite", excerpt(label_tok))));
        }
        let mut entries: Vec<(usize, f64)> = Vec::new();
        let mut prev: i64 = -1;
        for tok in tokens {
            let (idx, val) =
                tok.split_once(':').ok_or_else(|| err(format!("'{}' is not index:value", excerpt(tok))))?;
            if idx == "qid" {
                continue;
            }
            let j: i64 = idx.parse().map_err(|_| err(format!("feature index '{}' is not an integer", excerpt(idx))))?;
            let v: f64 = val
                .parse()
                .map_err(|_| err(format!("value '{}' of feature {} is not a number", excerpt(val), excerpt(idx))))?;
            if !(0..=MAX_INDEX).contains(&j) {
                return Err(err(format!("feature index {j} is out of range (0 to {MAX_INDEX})")));
            }
            if j <= prev {
                return Err(err(format!("feature indices must increase (found {j} after {prev})")));
            }
            if !v.is_finite() {
                return Err(err(format!("value of feature {j} is not finite")));
            }
            prev = j;
            self.max_index = self.max_index.max(j);
            if j == 0 && self.zero_line.is_none() {
                self.zero_line = Some(line_no);
            }
            if v != 0.0 {
                entries.push((j as usize, v));
            }
        }
        self.rows.push_row(entries).map_err(|e| err(e.to_string()))?;
        self.labels.push(label);
        Ok(())
    }
}

/// Reads a whole LIBSVM stream.
pub fn read<R: BufRead>(reader: R, base: IndexBase) -> Result<LibsvmData> {
    let mut parser = LibsvmParser::new();
    feed_all(&mut parser, reader)?;
    parser.finish(base)
}

/// Reads a whole LIBSVM file (uncompressed); errors name the file.
pub fn read_libsvm_file(path: &std::path::Path, base: IndexBase) -> Result<LibsvmData> {
    let in_file = |error: Error| Error::File { path: path.display().to_string(), error: Box::new(error) };
    let file = std::fs::File::open(path).map_err(|e| in_file(Error::Io(e.to_string())))?;
    read(std::io::BufReader::new(file), base).map_err(in_file)
}

/// Feeds a whole stream to `parser` and parses its last line. A read error (a corrupt compressed
/// stream, say) says how far the input had been read.
pub fn feed_all<R: BufRead>(parser: &mut LibsvmParser, mut reader: R) -> Result<()> {
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::Io(format!("reading after line {}: {e}", parser.lines()))),
        };
        if buf.is_empty() {
            break;
        }
        parser.feed(buf)?;
        let n = buf.len();
        reader.consume(n);
    }
    parser.end_input()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_untidy_input_in_pieces() {
        let text = b"# header\n+1 1:0.5 3:2 # comment\n-1.0 qid:3 2:1\n\n1 4:0";
        let mut p = LibsvmParser::new();
        for chunk in text.chunks(5) {
            p.feed(chunk).unwrap();
        }
        let d = p.finish(IndexBase::One).unwrap();
        assert_eq!(d.labels, vec![1.0, -1.0, 1.0]);
        assert_eq!(d.x.indptr(), vec![0, 2, 3, 3]);
        assert_eq!(d.x.indices(), vec![0, 2, 1]);
        assert_eq!(d.x.cols(), 4);
    }

    #[test]
    fn reports_the_line() {
        let mut p = LibsvmParser::new();
        let e = p.feed(b"1 1:1\n1 2:x\n").unwrap_err();
        assert_eq!(e, Error::Parse { line: 2, message: "value 'x' of feature 2 is not a number".into() });
        let mut p = LibsvmParser::new();
        assert!(matches!(p.feed(b"1 3:1 2:1\n"), Err(Error::Parse { line: 1, .. })));
        let d = read(&b"1 0:1 2:1\n"[..], IndexBase::Auto).unwrap();
        assert_eq!(d.x.indices(), vec![0, 2]);
    }
}
