//! Reading LIBSVM / svmlight data files: `label index:value ...` per line, `#` comments, `qid:`
//! ignored, indices 0- or 1-based. Parsing is incremental (`feed` bytes as they arrive) so a file
//! of any size streams through a fixed buffer; errors carry the line number.

use std::io::BufRead;

use crate::data::CsrMatrix;
use crate::error::{Error, Result};

/// How feature indices in the file are numbered.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IndexBase {
    Zero,
    One,
    /// One-based unless an index 0 occurs in the file.
    Auto,
}

/// Rows parsed so far, with raw (as written) indices.
#[derive(Default)]
pub struct LibsvmParser {
    pending: Vec<u8>,
    line: usize,
    labels: Vec<f64>,
    rows: CsrMatrix,
    min_index: Option<i64>,
    max_index: i64,
}

pub struct LibsvmData {
    pub labels: Vec<f64>,
    pub x: CsrMatrix,
}

impl LibsvmParser {
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
        let shift = match base {
            IndexBase::Zero => 0,
            IndexBase::One => 1,
            IndexBase::Auto => {
                if self.min_index == Some(0) { 0 } else { 1 }
            }
        };
        self.drain(shift)
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
        if shift == 1 && self.min_index == Some(0) {
            return Err(Error::InvalidData("feature index 0 found in a file read as one-based".into()));
        }
        let mut x = std::mem::replace(&mut self.rows, CsrMatrix::new());
        for j in x.indices.iter_mut() {
            *j -= shift;
        }
        x.cols = (self.max_index + 1 - shift as i64).max(0) as usize;
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
        let label: f64 = label_tok.parse().map_err(|_| err(format!("label '{label_tok}' is not a number")))?;
        if !label.is_finite() {
            return Err(err(format!("label '{label_tok}' is not finite")));
        }
        let mut entries: Vec<(usize, f64)> = Vec::new();
        let mut prev: i64 = -1;
        for tok in tokens {
            let (idx, val) = tok.split_once(':').ok_or_else(|| err(format!("'{tok}' is not index:value")))?;
            if idx == "qid" {
                continue;
            }
            let j: i64 = idx.parse().map_err(|_| err(format!("feature index '{idx}' is not an integer")))?;
            let v: f64 = val.parse().map_err(|_| err(format!("value '{val}' of feature {idx} is not a number")))?;
            if j < 0 || j > i32::MAX as i64 - 1 {
                return Err(err(format!("feature index {j} is out of range")));
            }
            if j <= prev {
                return Err(err(format!("feature indices must increase (found {j} after {prev})")));
            }
            if !v.is_finite() {
                return Err(err(format!("value of feature {j} is not finite")));
            }
            prev = j;
            self.max_index = self.max_index.max(j);
            self.min_index = Some(self.min_index.map_or(j, |m| m.min(j)));
            if v != 0.0 {
                entries.push((j as usize, v));
            }
        }
        self.labels.push(label);
        self.rows.push_row(entries);
        Ok(())
    }
}

/// Reads a whole LIBSVM stream.
pub fn read<R: BufRead>(mut reader: R, base: IndexBase) -> Result<LibsvmData> {
    let mut parser = LibsvmParser::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        parser.feed(buf)?;
        let n = buf.len();
        reader.consume(n);
    }
    parser.finish(base)
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
        assert_eq!(d.x.indptr, vec![0, 2, 3, 3]);
        assert_eq!(d.x.indices, vec![0, 2, 1]);
        assert_eq!(d.x.cols, 4);
    }

    #[test]
    fn reports_the_line() {
        let mut p = LibsvmParser::new();
        let e = p.feed(b"1 1:1\n1 2:x\n").unwrap_err();
        assert_eq!(e, Error::Parse { line: 2, message: "value 'x' of feature 2 is not a number".into() });
        let mut p = LibsvmParser::new();
        assert!(matches!(p.feed(b"1 3:1 2:1\n"), Err(Error::Parse { line: 1, .. })));
        let d = read(&b"1 0:1 2:1\n"[..], IndexBase::Auto).unwrap();
        assert_eq!(d.x.indices, vec![0, 2]);
    }
}
