//! LIBSVM's model-file format: a header of `key value...` lines, then `SV` and one line per
//! support vector (its coefficients, then `index:value` pairs).
//!
//! The reader trusts no number of the file before the file has shown the content it announces:
//! counts in the header (`nr_class`, `total_sv`, `nr_sv`) are only compared with what the lines
//! hold, never used to allocate, and every field is checked for its range before it is used.
//! Every rejection names the line and what was expected there.

use std::io::{BufRead, Write};
use std::path::Path;

use crate::data::CsrMatrix;
use crate::error::{Error, Result};
use crate::io::atomic_file::write_atomically;
use crate::io::data_file::{excerpt, IndexBase, MAX_INDEX};
use crate::kernel::{KernelKind, KernelSpec};
use crate::model::probability::DENSITY_MARKS;
use crate::model::{LibsvmModel, SvmType};

/// Shortest text that reads back to the same f64.
fn num(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-5..1e16).contains(&a) {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

fn join(v: impl IntoIterator<Item = String>) -> String {
    v.into_iter().collect::<Vec<_>>().join(" ")
}

fn offset_of(base: IndexBase) -> Result<usize> {
    base.offset().ok_or_else(|| {
        Error::InvalidParameter("a model file is read and written with a stated index base, zero or one".into())
    })
}

impl LibsvmModel {
    /// Writes the model in LIBSVM's format, column j as feature index j + base.
    pub fn write<W: Write>(&self, mut w: W, base: IndexBase) -> Result<()> {
        let offset = offset_of(base)?;
        self.check()?;
        writeln!(w, "svm_type {}", self.svm_type)?;
        writeln!(w, "kernel_type {}", self.kernel.libsvm_name().expect("checked"))?;
        match self.kernel {
            KernelSpec::Poly { degree, gamma, coef0 } => {
                writeln!(w, "degree {degree}\ngamma {}\ncoef0 {}", num(gamma), num(coef0))?
            }
            KernelSpec::Rbf { gamma } => writeln!(w, "gamma {}", num(gamma))?,
            KernelSpec::Sigmoid { gamma, coef0 } => writeln!(w, "gamma {}\ncoef0 {}", num(gamma), num(coef0))?,
            _ => {}
        }
        writeln!(w, "nr_class {}", self.n_classes())?;
        writeln!(w, "total_sv {}", self.n_sv())?;
        writeln!(w, "rho {}", join(self.rho.iter().map(|&v| num(v))))?;
        let classifier = self.svm_type.is_classifier();
        if classifier {
            writeln!(w, "label {}", join(self.labels.iter().map(|v| v.to_string())))?;
        }
        // LIBSVM's order: probA, probB, then a one-class model's marks (held in prob_a)
        let prob_a_key = if self.svm_type == SvmType::OneClass { "prob_density_marks" } else { "probA" };
        if !self.prob_a.is_empty() {
            writeln!(w, "{prob_a_key} {}", join(self.prob_a.iter().map(|&v| num(v))))?;
        }
        if !self.prob_b.is_empty() {
            writeln!(w, "probB {}", join(self.prob_b.iter().map(|&v| num(v))))?;
        }
        if classifier {
            writeln!(w, "nr_sv {}", join(self.n_support.iter().map(|v| v.to_string())))?;
        }
        writeln!(w, "SV")?;
        let nsv = self.n_sv();
        let rows = self.n_classes() - 1;
        let view = self.sv.view();
        let mut line = String::new();
        for s in 0..nsv {
            line.clear();
            line.push_str(&join((0..rows).map(|r| num(self.sv_coef[r * nsv + s]))));
            if self.kernel.is_precomputed() {
                // LIBSVM's convention: the training example's serial number, counted from 1
                line.push_str(&format!(" 0:{}", self.sv_indices[s] + 1));
            } else {
                for (j, v) in view.row_entries(s) {
                    line.push_str(&format!(" {}:{}", j + offset, num(v)));
                }
            }
            writeln!(w, "{line}")?;
        }
        w.flush()?;
        Ok(())
    }

    /// Writes the model to `path` atomically: the file is either the whole new model or what it was.
    pub fn save(&self, path: &Path, base: IndexBase) -> Result<()> {
        self.check()?;
        write_atomically(path, |w| self.write(w, base))
    }

    /// Reads a model file, feature index i becoming column i - base.
    pub fn read<R: BufRead>(r: R, base: IndexBase) -> Result<Self> {
        let offset = offset_of(base)?;
        let mut lines = Lines { reader: r, number: 0, buf: Vec::new() };
        let pending = Header::read(&mut lines)?.into_model()?;
        read_support_vectors(&mut lines, pending, offset)
    }

    /// Reads the model file at `path`; errors name the file.
    pub fn load(path: &Path, base: IndexBase) -> Result<Self> {
        let file = std::fs::File::open(path).map_err(|e| Error::from(e).in_file(path))?;
        Self::read(std::io::BufReader::new(file), base).map_err(|e| e.in_file(path))
    }
}

/// A line-numbered reader of whole lines, each checked to be text.
struct Lines<R> {
    reader: R,
    number: usize,
    buf: Vec<u8>,
}

impl<R: BufRead> Lines<R> {
    /// The next line (without its end), or None at the end of the input.
    fn next_line(&mut self) -> Result<Option<String>> {
        self.buf.clear();
        let n = self
            .reader
            .read_until(b'\n', &mut self.buf)
            .map_err(|e| Error::Io(format!("reading after line {}: {e}", self.number)))?;
        if n == 0 {
            return Ok(None);
        }
        self.number += 1;
        let text = std::str::from_utf8(&self.buf).map_err(|_| {
            let compressed = self.number == 1 && (self.buf.starts_with(&[0x1f, 0x8b]) || self.buf.starts_with(b"BZh"));
            let message = if compressed {
                "compressed data: model files are read uncompressed".into()
            } else {
                "not valid UTF-8 text".into()
            };
            Error::Parse { line: self.number, message }
        })?;
        Ok(Some(text.trim_end_matches(['\n', '\r']).to_string()))
    }
    fn error(&self, message: String) -> Error {
        Error::Parse { line: self.number.max(1), message }
    }
}

/// A header field's value and the line it was read from.
struct Field<T> {
    value: T,
    line: usize,
}

#[derive(Default)]
struct Header {
    svm_type: Option<Field<SvmType>>,
    kernel_type: Option<Field<String>>,
    degree: Option<Field<u32>>,
    gamma: Option<Field<f64>>,
    coef0: Option<Field<f64>>,
    nr_class: Option<Field<u64>>,
    total_sv: Option<Field<u64>>,
    rho: Option<Field<Vec<f64>>>,
    label: Option<Field<Vec<i64>>>,
    prob_a: Option<Field<Vec<f64>>>,
    prob_b: Option<Field<Vec<f64>>>,
    prob_density_marks: Option<Field<Vec<f64>>>,
    nr_sv: Option<Field<Vec<u64>>>,
    /// The line of `SV`.
    sv_line: usize,
}

fn parse_each<T: std::str::FromStr>(key: &str, vals: &[&str], what: &str, line: usize) -> Result<Vec<T>> {
    vals.iter()
        .map(|v| {
            v.parse().map_err(|_| Error::Parse { line, message: format!("{key}: '{}' is not {what}", excerpt(v)) })
        })
        .collect()
}

fn set<T>(slot: &mut Option<Field<T>>, key: &str, value: T, line: usize) -> Result<()> {
    if let Some(first) = slot {
        return Err(Error::Parse { line, message: format!("{key} is given twice (first on line {})", first.line) });
    }
    *slot = Some(Field { value, line });
    Ok(())
}

/// "a nu_svc model", "an epsilon_svr model": the model type as messages name it.
fn a_model(t: SvmType) -> String {
    let article = if t == SvmType::EpsilonSvr { "an" } else { "a" };
    format!("{article} {t} model")
}

/// A field that the model's svm_type requires, or the error saying the header lacks it.
fn required_by<'a, T>(
    slot: &'a Option<Field<T>>, key: &str, line: usize, svm_type: &Field<SvmType>,
) -> Result<&'a Field<T>> {
    slot.as_ref().ok_or_else(|| Error::Parse {
        line,
        message: format!(
            "the header has no {key} line, which {} (svm_type on line {}) has before SV",
            a_model(svm_type.value),
            svm_type.line
        ),
    })
}

/// A required field, or the error saying it is missing.
fn required<'a, T>(slot: &'a Option<Field<T>>, key: &str, line: usize) -> Result<&'a Field<T>> {
    slot.as_ref()
        .ok_or_else(|| Error::Parse { line, message: format!("the header has no {key} line (expected before SV)") })
}

fn finite_all(key: &str, field: &Field<Vec<f64>>) -> Result<()> {
    match field.value.iter().find(|v| !v.is_finite()) {
        Some(v) => Err(Error::Parse { line: field.line, message: format!("{key} holds {v}, not a finite number") }),
        None => Ok(()),
    }
}

impl Header {
    /// Header lines up to and including `SV`.
    fn read<R: BufRead>(lines: &mut Lines<R>) -> Result<Self> {
        let mut h = Header::default();
        loop {
            let Some(text) = lines.next_line()? else {
                return Err(lines.error(if lines.number == 0 {
                    "the model file is empty (expected a header starting with svm_type)".into()
                } else {
                    "the file ends before the SV line that starts the support vectors".into()
                }));
            };
            let no = lines.number;
            let parts: Vec<&str> = text.split_whitespace().collect();
            let Some((&key, vals)) = parts.split_first() else { continue };
            if key == "SV" {
                if !vals.is_empty() {
                    return Err(lines.error("SV stands alone on its line".into()));
                }
                h.sv_line = no;
                return Ok(h);
            }
            let one = || -> Result<&str> {
                match vals {
                    [v] => Ok(v),
                    [] => Err(Error::Parse { line: no, message: format!("{key} has no value") }),
                    _ => {
                        Err(Error::Parse { line: no, message: format!("{key} takes one value, found {}", vals.len()) })
                    }
                }
            };
            let list = || -> Result<&[&str]> {
                if vals.is_empty() {
                    Err(Error::Parse { line: no, message: format!("{key} has no value") })
                } else {
                    Ok(vals)
                }
            };
            match key {
                "svm_type" => {
                    let t = one()?.parse::<SvmType>().map_err(|e| lines.error(e.to_string()))?;
                    set(&mut h.svm_type, key, t, no)?
                }
                "kernel_type" => set(&mut h.kernel_type, key, one()?.to_string(), no)?,
                "degree" => {
                    let v = one()?;
                    let d: u32 = v.parse().ok().filter(|&d| d <= i32::MAX as u32).ok_or_else(|| {
                        lines.error(format!("degree '{}' is not an integer from 0 to {}", excerpt(v), i32::MAX))
                    })?;
                    set(&mut h.degree, key, d, no)?
                }
                "gamma" | "coef0" => {
                    let v = one()?;
                    let x: f64 =
                        v.parse().map_err(|_| lines.error(format!("{key} '{}' is not a number", excerpt(v))))?;
                    if !x.is_finite() || (key == "gamma" && x <= 0.0) {
                        let want = if key == "gamma" { "a positive number" } else { "a finite number" };
                        return Err(lines.error(format!("{key} is {}; it must be {want}", excerpt(v))));
                    }
                    set(if key == "gamma" { &mut h.gamma } else { &mut h.coef0 }, key, x, no)?
                }
                "nr_class" | "total_sv" => {
                    let v = one()?;
                    let n: u64 =
                        v.parse().map_err(|_| lines.error(format!("{key} '{}' is not a count", excerpt(v))))?;
                    set(if key == "nr_class" { &mut h.nr_class } else { &mut h.total_sv }, key, n, no)?
                }
                "rho" | "probA" | "probB" | "prob_density_marks" => {
                    let v = parse_each(key, list()?, "a number", no)?;
                    let slot = match key {
                        "rho" => &mut h.rho,
                        "probA" => &mut h.prob_a,
                        "probB" => &mut h.prob_b,
                        _ => &mut h.prob_density_marks,
                    };
                    set(slot, key, v, no)?
                }
                "label" => set(&mut h.label, key, parse_each(key, list()?, "an integer class label", no)?, no)?,
                "nr_sv" => set(&mut h.nr_sv, key, parse_each(key, list()?, "a count", no)?, no)?,
                _ => return Err(lines.error(format!("unknown header field '{}'", excerpt(key)))),
            }
        }
    }

    /// The model the header describes, without its support vectors.
    fn into_model(self) -> Result<Pending> {
        let at = self.sv_line;
        let type_field = required(&self.svm_type, "svm_type", at)?;
        let svm_type = type_field.value;
        // a line the type has no use for means the header is not what its svm_type says
        let refuse = |line: usize, key: &str| Error::Parse {
            line,
            message: format!("{} has no {key} line (svm_type on line {})", a_model(svm_type), type_field.line),
        };
        let kernel_field = required(&self.kernel_type, "kernel_type", at)?;
        let gamma = || required(&self.gamma, "gamma", at).map(|f| f.value);
        let coef0 = || required(&self.coef0, "coef0", at).map(|f| f.value);
        let name = kernel_field.value.as_str();
        let kind = KernelKind::from_libsvm_name(name).ok_or_else(|| {
            // as an option's unknown name reads, with LIBSVM's names
            let expected: Vec<String> = KernelKind::ALL.iter().map(|k| format!("'{}'", k.libsvm_name())).collect();
            let message = format!("unknown kernel_type '{}': expected one of {}", excerpt(name), expected.join(", "));
            Error::Parse { line: kernel_field.line, message }
        })?;
        // each parameter is required by the kernels that take it, and only by those
        let kernel = match kind {
            KernelKind::Linear | KernelKind::Precomputed => kind.with(0.0, 0.0, 0),
            KernelKind::Rbf => kind.with(gamma()?, 0.0, 0),
            KernelKind::Sigmoid => kind.with(gamma()?, coef0()?, 0),
            KernelKind::Poly => {
                let degree = required(&self.degree, "degree", at)?.value;
                kind.with(gamma()?, coef0()?, degree)
            }
        };
        let nr_class = required(&self.nr_class, "nr_class", at)?;
        let total_sv = required(&self.total_sv, "total_sv", at)?;
        let rho = required(&self.rho, "rho", at)?;
        let k = nr_class.value;
        let parse_err = |line: usize, message: String| Error::Parse { line, message };
        if svm_type.is_classifier() && k < 2 {
            return Err(parse_err(nr_class.line, format!("nr_class is {k}; a classifier needs at least 2 classes")));
        }
        if !svm_type.is_classifier() {
            if k != 2 {
                return Err(parse_err(
                    nr_class.line,
                    format!(
                        "nr_class is {k}; {} has nr_class 2 (svm_type on line {})",
                        a_model(svm_type),
                        type_field.line
                    ),
                ));
            }
            if rho.value.len() != 1 {
                return Err(parse_err(
                    rho.line,
                    format!(
                        "rho has {} values; {} (svm_type on line {}) has one",
                        rho.value.len(),
                        a_model(svm_type),
                        type_field.line
                    ),
                ));
            }
        }
        // (k fits the label line's length once that is checked; before, compute without overflow)
        let pairs = (k as u128) * (k as u128 - 1) / 2;
        if rho.value.len() as u128 != pairs {
            return Err(parse_err(
                rho.line,
                format!("rho has {} values; nr_class {k} (line {}) needs {pairs}", rho.value.len(), nr_class.line),
            ));
        }
        finite_all("rho", rho)?;
        let (mut labels, mut n_support) = (Vec::new(), Vec::new());
        let (mut prob_a, mut prob_b) = (Vec::new(), Vec::new());
        if let Some(f) = self.prob_density_marks.as_ref().filter(|_| svm_type != SvmType::OneClass) {
            return Err(refuse(f.line, "prob_density_marks"));
        }
        match svm_type {
            SvmType::CSvc | SvmType::NuSvc => {
                let label = required_by(&self.label, "label", at, type_field)?;
                if label.value.len() as u64 != k {
                    return Err(parse_err(
                        label.line,
                        format!(
                            "label lists {} classes but nr_class is {k} (line {})",
                            label.value.len(),
                            nr_class.line
                        ),
                    ));
                }
                if let Some(l) = label.value.iter().find(|&&l| i32::try_from(l).is_err()) {
                    return Err(parse_err(
                        label.line,
                        format!("class label {l} is outside LIBSVM's 32-bit label range"),
                    ));
                }
                let mut sorted = label.value.clone();
                sorted.sort_unstable();
                if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                    return Err(parse_err(label.line, format!("class label {} appears twice", w[0])));
                }
                let nr_sv = required_by(&self.nr_sv, "nr_sv", at, type_field)?;
                if nr_sv.value.len() as u64 != k {
                    return Err(parse_err(
                        nr_sv.line,
                        format!("nr_sv has {} counts but nr_class is {k} (line {})", nr_sv.value.len(), nr_class.line),
                    ));
                }
                let sum: u128 = nr_sv.value.iter().map(|&c| c as u128).sum();
                if sum != total_sv.value as u128 {
                    return Err(parse_err(
                        nr_sv.line,
                        format!("nr_sv adds up to {sum} but total_sv is {} (line {})", total_sv.value, total_sv.line),
                    ));
                }
                match (&self.prob_a, &self.prob_b) {
                    (None, None) => {}
                    (Some(a), Some(b)) => {
                        for (key, f) in [("probA", a), ("probB", b)] {
                            if f.value.len() as u128 != pairs {
                                return Err(parse_err(
                                    f.line,
                                    format!("{key} has {} values; nr_class {k} needs {pairs}", f.value.len()),
                                ));
                            }
                            finite_all(key, f)?;
                        }
                        prob_a = a.value.clone();
                        prob_b = b.value.clone();
                    }
                    (Some(f), None) | (None, Some(f)) => {
                        return Err(parse_err(f.line, "probA and probB come together".into()));
                    }
                }
                labels = label.value.clone();
                // each count is at most total_sv, which the support-vector lines will have to show
                n_support = nr_sv.value.iter().map(|&c| c as usize).collect();
            }
            SvmType::EpsilonSvr | SvmType::NuSvr | SvmType::OneClass => {
                for (key, f) in
                    [("label", self.label.as_ref().map(|f| f.line)), ("nr_sv", self.nr_sv.as_ref().map(|f| f.line))]
                {
                    if let Some(line) = f {
                        return Err(refuse(line, key));
                    }
                }
                if let Some(b) = &self.prob_b {
                    return Err(refuse(b.line, "probB"));
                }
                if svm_type == SvmType::OneClass {
                    if let Some(a) = &self.prob_a {
                        return Err(refuse(a.line, "probA"));
                    }
                    if let Some(marks) = &self.prob_density_marks {
                        if marks.value.len() != DENSITY_MARKS {
                            return Err(parse_err(
                                marks.line,
                                format!(
                                    "prob_density_marks has {} values; LIBSVM's one-class model has {DENSITY_MARKS}",
                                    marks.value.len()
                                ),
                            ));
                        }
                        finite_all("prob_density_marks", marks)?;
                        prob_a = marks.value.clone();
                    }
                } else if let Some(a) = &self.prob_a {
                    if a.value.len() != 1 {
                        return Err(parse_err(
                            a.line,
                            format!("a regression model's probA is one number, found {}", a.value.len()),
                        ));
                    }
                    finite_all("probA", a)?;
                    prob_a = a.value.clone();
                }
            }
        }
        let model = LibsvmModel {
            svm_type,
            kernel,
            labels,
            n_support,
            rho: rho.value.clone(),
            prob_a,
            prob_b,
            sv_coef: Vec::new(),
            sv: CsrMatrix::new(),
            sv_indices: Vec::new(),
        };
        Ok(Pending { model, total_sv: total_sv.value, total_sv_line: total_sv.line, nr_class_line: nr_class.line })
    }
}

/// A model whose header has been read and checked, waiting for its support vectors; the header's
/// support-vector count stays here until the lines have shown that many.
struct Pending {
    model: LibsvmModel,
    total_sv: u64,
    total_sv_line: usize,
    nr_class_line: usize,
}

/// The 0-based training index that a precomputed-kernel support vector names as `0:n`, its
/// serial number n counted from 1; None if the entries are anything else.
fn training_serial(entries: &[&str]) -> Option<usize> {
    let [entry] = entries else { return None };
    let (index, serial) = entry.split_once(':')?;
    if index.parse::<i64>().ok()? != 0 {
        return None;
    }
    let serial: u64 = serial.parse().ok()?;
    (1..=MAX_INDEX as u64).contains(&serial).then(|| serial as usize - 1)
}

fn read_support_vectors<R: BufRead>(lines: &mut Lines<R>, pending: Pending, offset: usize) -> Result<LibsvmModel> {
    let Pending { mut model, total_sv, total_sv_line, nr_class_line } = pending;
    let precomputed = model.kernel.is_precomputed();
    // coefficients per line: nr_class - 1, which the header showed on its label line
    let rows = model.n_classes() - 1;
    let mut coef: Vec<Vec<f64>> = vec![Vec::new(); rows];
    let mut seen: u64 = 0;
    let mut entries: Vec<(usize, f64)> = Vec::new();
    while let Some(text) = lines.next_line()? {
        let toks: Vec<&str> = text.split_whitespace().collect();
        if toks.is_empty() {
            if seen < total_sv {
                return Err(
                    lines.error(format!("empty line where support vector {} of {total_sv} was expected", seen + 1))
                );
            }
            continue;
        }
        if seen == total_sv {
            return Err(lines.error(format!("more support vectors than total_sv {total_sv} (line {total_sv_line})")));
        }
        seen += 1;
        for (r, tok) in toks.iter().take(rows).enumerate() {
            if tok.contains(':') {
                return Err(lines.error(format!(
                    "expected {rows} coefficient(s) (nr_class - 1, nr_class on line {nr_class_line}) before the first index:value, found {r}"
                )));
            }
            let c: f64 =
                tok.parse().map_err(|_| lines.error(format!("coefficient '{}' is not a number", excerpt(tok))))?;
            if !c.is_finite() {
                return Err(lines.error(format!("coefficient '{}' is not a finite number", excerpt(tok))));
            }
            coef[r].push(c);
        }
        if toks.len() < rows {
            return Err(lines.error(format!(
                "expected {rows} coefficient(s) (nr_class - 1, nr_class on line {nr_class_line}), found {}",
                toks.len()
            )));
        }
        if precomputed {
            model.sv_indices.push(training_serial(&toks[rows..]).ok_or_else(|| {
                lines.error(
                    "a precomputed-kernel model's support vector is the single entry 0:n, n a training \
                             serial number from 1"
                        .into(),
                )
            })?);
            continue;
        }
        entries.clear();
        let mut prev: i64 = -1;
        for tok in &toks[rows..] {
            let Some((idx, val)) = tok.split_once(':') else {
                let hint = if tok.parse::<f64>().is_ok() {
                    format!(": a coefficient too many for nr_class on line {nr_class_line}?")
                } else {
                    String::new()
                };
                return Err(lines.error(format!("'{}' is not index:value{hint}", excerpt(tok))));
            };
            let j: i64 =
                idx.parse().map_err(|_| lines.error(format!("feature index '{}' is not an integer", excerpt(idx))))?;
            let v: f64 = val.parse().map_err(|_| {
                lines.error(format!("value '{}' of feature {} is not a number", excerpt(val), excerpt(idx)))
            })?;
            if j < offset as i64 {
                return Err(lines.error(format!(
                    "feature index {j} in a model read as one-based (indices start at 1); read it as zero-based"
                )));
            }
            let column = j - offset as i64;
            if column > MAX_INDEX {
                return Err(
                    lines.error(format!("feature index {j} is out of range (at most {})", MAX_INDEX + offset as i64))
                );
            }
            if j <= prev {
                return Err(lines.error(format!("feature indices must increase (found {j} after {prev})")));
            }
            if !v.is_finite() {
                return Err(lines.error(format!("value of feature {j} is not a finite number")));
            }
            prev = j;
            if v != 0.0 {
                entries.push((column as usize, v));
            }
        }
        model.sv.push_row(entries.iter().copied()).map_err(|e| lines.error(e.to_string()))?;
    }
    if seen < total_sv {
        return Err(lines.error(format!(
            "the file ends after {seen} of the {total_sv} support vectors total_sv announces (line {total_sv_line})"
        )));
    }
    model.sv_coef = coef.concat();
    model.check().map_err(|e| lines.error(e.to_string()))?;
    Ok(model)
}

#[cfg(test)]
mod tests;
