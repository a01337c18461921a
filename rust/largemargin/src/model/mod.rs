//! Trained kernel-SVM models in LIBSVM's model-file format (read and write), and prediction
//! from them. The Python package and the native CLI both save and load through this module.

use std::io::{BufRead, Write};

use crate::data::{CsrMatrix, Matrix};
use crate::error::{Error, Result};
use crate::kernel::KernelSpec;
use crate::predict::Expansion;
use crate::svm::{SvcFit, SvrFit};

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SvmType {
    CSvc,
    EpsilonSvr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmModel {
    pub svm_type: SvmType,
    pub kernel: KernelSpec,
    /// Class labels in model order (C-SVC).
    pub labels: Vec<i64>,
    /// Support vectors per class, model order (C-SVC).
    pub n_support: Vec<usize>,
    /// One per class pair (C-SVC) or one (SVR); the decision value is sum coef K - rho.
    pub rho: Vec<f64>,
    pub prob_a: Vec<f64>,
    pub prob_b: Vec<f64>,
    /// (n_classes - 1) x n_sv row-major (one row for SVR).
    pub sv_coef: Vec<f64>,
    /// Support vectors (0-based features); empty for a precomputed kernel.
    pub sv: CsrMatrix,
    /// Precomputed kernel only: 0-based training index of each support vector.
    pub sv_indices: Vec<usize>,
}

/// Shortest text that reads back to the same f64.
fn num(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || (1e-5..1e16).contains(&a) { format!("{v}") } else { format!("{v:e}") }
}

fn join(v: impl IntoIterator<Item = String>) -> String {
    v.into_iter().collect::<Vec<_>>().join(" ")
}

impl LibsvmModel {
    pub fn n_sv(&self) -> usize {
        if self.kernel.is_precomputed() { self.sv_indices.len() } else { self.sv.rows() }
    }
    fn n_classes(&self) -> usize {
        match self.svm_type {
            SvmType::CSvc => self.labels.len(),
            SvmType::EpsilonSvr => 2,
        }
    }

    /// A classifier fitted on `x`, with `labels[c]` the label of class index c.
    pub fn from_svc(fit: &SvcFit, x: &Matrix, kernel: KernelSpec, labels: Vec<i64>) -> Self {
        LibsvmModel {
            svm_type: SvmType::CSvc,
            labels,
            n_support: fit.n_support.clone(),
            rho: fit.intercept.iter().map(|b| -b).collect(),
            prob_a: fit.prob_a.clone(),
            prob_b: fit.prob_b.clone(),
            sv_coef: fit.dual_coef.clone(),
            sv: if kernel.is_precomputed() { CsrMatrix::new() } else { CsrMatrix::gather(x, &fit.support) },
            sv_indices: precomputed_indices(&kernel, &fit.support),
            kernel,
        }
    }

    pub fn from_svr(fit: &SvrFit, x: &Matrix, kernel: KernelSpec) -> Self {
        LibsvmModel {
            svm_type: SvmType::EpsilonSvr,
            labels: Vec::new(),
            n_support: Vec::new(),
            rho: vec![-fit.intercept],
            prob_a: Vec::new(),
            prob_b: Vec::new(),
            sv_coef: fit.coef.clone(),
            sv: if kernel.is_precomputed() { CsrMatrix::new() } else { CsrMatrix::gather(x, &fit.support) },
            sv_indices: precomputed_indices(&kernel, &fit.support),
            kernel,
        }
    }

    /// Decision values (one per class pair, or one), LIBSVM sign convention.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        let intercept: Vec<f64> = self.rho.iter().map(|r| -r).collect();
        let identity: Vec<usize> = (0..self.n_sv()).collect();
        let precomputed = self.kernel.is_precomputed();
        let n_support: &[usize] = if self.svm_type == SvmType::CSvc { &self.n_support } else { &[] };
        let sv = if precomputed { *x } else { self.sv.view() };
        let x = if precomputed || x.cols() == sv.cols() {
            *x
        } else if x.cols() < sv.cols() {
            // Test files may simply not mention the highest features: they are zeros.
            return self.decision(&widen(x, sv.cols())?.view());
        } else {
            return Err(Error::InvalidData(format!(
                "data has {} features, the model only knows {}",
                x.cols(),
                sv.cols()
            )));
        };
        Expansion {
            kernel: self.kernel.clone(),
            sv,
            sv_columns: if precomputed { &self.sv_indices } else { &identity },
            n_support,
            coef: &self.sv_coef,
            intercept: &intercept,
        }
        .decision(&x)
    }

    /// Predicted labels (C-SVC, by one-vs-one votes) or values (SVR).
    pub fn predict(&self, x: &Matrix) -> Result<Vec<f64>> {
        let dec = self.decision(x)?;
        if self.svm_type == SvmType::EpsilonSvr {
            return Ok(dec);
        }
        let k = self.labels.len();
        let npairs = (k * (k - 1) / 2).max(1);
        Ok(dec
            .chunks(npairs)
            .map(|d| {
                let mut votes = vec![0usize; k];
                let mut p = 0;
                for a in 0..k {
                    for b in a + 1..k {
                        votes[if d[p] > 0.0 { a } else { b }] += 1;
                        p += 1;
                    }
                }
                let best = (0..k).fold(0, |best, c| if votes[c] > votes[best] { c } else { best });
                self.labels[best] as f64
            })
            .collect())
    }

    pub fn write<W: Write>(&self, mut w: W) -> Result<()> {
        let svm_type = match self.svm_type {
            SvmType::CSvc => "c_svc",
            SvmType::EpsilonSvr => "epsilon_svr",
        };
        writeln!(w, "svm_type {svm_type}")?;
        let kernel_type = self.kernel.libsvm_name().ok_or_else(|| {
            Error::InvalidParameter(format!("a {} kernel cannot be written to a LIBSVM model file", self.kernel.name()))
        })?;
        writeln!(w, "kernel_type {kernel_type}")?;
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
        if self.svm_type == SvmType::CSvc {
            writeln!(w, "label {}", join(self.labels.iter().map(|v| v.to_string())))?;
        }
        if !self.prob_a.is_empty() {
            writeln!(w, "probA {}", join(self.prob_a.iter().map(|&v| num(v))))?;
            writeln!(w, "probB {}", join(self.prob_b.iter().map(|&v| num(v))))?;
        }
        if self.svm_type == SvmType::CSvc {
            writeln!(w, "nr_sv {}", join(self.n_support.iter().map(|v| v.to_string())))?;
        }
        writeln!(w, "SV")?;
        let nsv = self.n_sv();
        let rows = self.n_classes() - 1;
        for s in 0..nsv {
            let mut line = join((0..rows).map(|r| num(self.sv_coef[r * nsv + s])));
            if self.kernel.is_precomputed() {
                line.push_str(&format!(" 0:{}", self.sv_indices[s] + 1));
            } else {
                for (j, v) in self.sv.view().row_entries(s) {
                    line.push_str(&format!(" {}:{}", j + 1, num(v)));
                }
            }
            writeln!(w, "{line}")?;
        }
        Ok(())
    }

    pub fn read<R: BufRead>(r: R) -> Result<Self> {
        let mut m = LibsvmModel {
            svm_type: SvmType::CSvc,
            kernel: KernelSpec::Linear,
            labels: Vec::new(),
            n_support: Vec::new(),
            rho: Vec::new(),
            prob_a: Vec::new(),
            prob_b: Vec::new(),
            sv_coef: Vec::new(),
            sv: CsrMatrix::new(),
            sv_indices: Vec::new(),
        };
        let (mut kernel, mut gamma, mut coef0, mut degree) = (String::new(), 0.0, 0.0, 3u32);
        let (mut nr_class, mut total_sv) = (0usize, 0usize);
        let mut lines = r.lines().enumerate();
        fn nums<T: std::str::FromStr>(vals: &[&str], line: usize) -> Result<Vec<T>> {
            vals.iter()
                .map(|v| v.parse().map_err(|_| Error::Parse { line, message: format!("'{v}' is not a number") }))
                .collect()
        }
        for (no, line) in lines.by_ref() {
            let line = line?;
            let no = no + 1;
            let parts: Vec<&str> = line.split_whitespace().collect();
            let Some((&key, vals)) = parts.split_first() else { continue };
            let one = || vals.first().copied().ok_or(Error::Parse { line: no, message: format!("{key} has no value") });
            match key {
                "svm_type" => {
                    m.svm_type = match one()? {
                        "c_svc" => SvmType::CSvc,
                        "epsilon_svr" => SvmType::EpsilonSvr,
                        t => return Err(Error::Parse { line: no, message: format!("unsupported svm_type {t}") }),
                    }
                }
                "kernel_type" => kernel = one()?.to_string(),
                "gamma" => gamma = nums(&[one()?], no)?[0],
                "coef0" => coef0 = nums(&[one()?], no)?[0],
                "degree" => degree = nums(&[one()?], no)?[0],
                "nr_class" => nr_class = nums(&[one()?], no)?[0],
                "total_sv" => total_sv = nums(&[one()?], no)?[0],
                "rho" => m.rho = nums(vals, no)?,
                "label" => m.labels = nums(vals, no)?,
                "probA" => m.prob_a = nums(vals, no)?,
                "probB" => m.prob_b = nums(vals, no)?,
                "nr_sv" => m.n_support = nums(vals, no)?,
                "SV" => break,
                _ => return Err(Error::Parse { line: no, message: format!("unknown model field '{key}'") }),
            }
        }
        m.kernel = match kernel.as_str() {
            "linear" => KernelSpec::Linear,
            "polynomial" => KernelSpec::Poly { degree, gamma, coef0 },
            "rbf" => KernelSpec::Rbf { gamma },
            "sigmoid" => KernelSpec::Sigmoid { gamma, coef0 },
            "precomputed" => KernelSpec::Precomputed,
            k => return Err(Error::Parse { line: 0, message: format!("unknown kernel_type '{k}'") }),
        };
        let rows = nr_class.saturating_sub(1).max(1);
        let mut coef_cols: Vec<Vec<f64>> = vec![Vec::with_capacity(total_sv); rows];
        for (no, line) in lines {
            let line = line?;
            let no = no + 1;
            let toks: Vec<&str> = line.split_whitespace().collect();
            if toks.is_empty() {
                continue;
            }
            if toks.len() < rows {
                return Err(Error::Parse { line: no, message: "too few coefficients".into() });
            }
            for (r, c) in nums::<f64>(&toks[..rows], no)?.into_iter().enumerate() {
                coef_cols[r].push(c);
            }
            let mut entries = Vec::new();
            for t in &toks[rows..] {
                let (j, v) = t.split_once(':').ok_or(Error::Parse { line: no, message: format!("'{t}' is not index:value") })?;
                let j: usize = nums(&[j], no)?[0];
                let v: f64 = nums(&[v], no)?[0];
                if m.kernel.is_precomputed() {
                    m.sv_indices.push((v as usize).saturating_sub(1));
                } else if j == 0 {
                    return Err(Error::Parse { line: no, message: "feature indices in model files start at 1".into() });
                } else {
                    entries.push((j - 1, v));
                }
            }
            if m.kernel != KernelSpec::Precomputed {
                m.sv.push_row(entries);
            }
        }
        m.sv_coef = coef_cols.concat();
        if m.n_sv() != total_sv || m.sv_coef.len() != rows * total_sv {
            return Err(Error::InvalidData(format!("model announces {total_sv} support vectors but holds {}", m.n_sv())));
        }
        let pairs = if m.svm_type == SvmType::CSvc { nr_class * (nr_class - 1) / 2 } else { 1 };
        if m.rho.len() != pairs || (m.svm_type == SvmType::CSvc && (m.labels.len() != nr_class || m.n_support.len() != nr_class)) {
            return Err(Error::InvalidData("model header is inconsistent (rho, label or nr_sv)".into()));
        }
        Ok(m)
    }
}

fn precomputed_indices(kernel: &KernelSpec, support: &[usize]) -> Vec<usize> {
    if kernel.is_precomputed() { support.to_vec() } else { Vec::new() }
}

/// The same rows with more (zero) columns.
fn widen(x: &Matrix, cols: usize) -> Result<CsrMatrix> {
    let idx: Vec<usize> = (0..x.rows()).collect();
    let mut m = CsrMatrix::gather(x, &idx);
    m.cols = cols;
    Ok(m)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Control;
    use crate::svm::{train_svc, SvmParams};

    #[test]
    fn round_trip_and_predict() {
        let mut x = CsrMatrix::new();
        let pts = [(0.0, 0.0), (0.1, 0.3), (1.0, 1.0), (0.9, 1.2), (2.0, 0.1), (2.2, 0.0)];
        for (a, b) in pts {
            x.push_row([(0, a), (1, b)].into_iter().filter(|e| e.1 != 0.0));
        }
        x.cols = 2;
        let y = [0, 0, 1, 1, 2, 2];
        let params = SvmParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, ..Default::default() };
        let fit = train_svc(&x.view(), &y, 3, &[10.0; 6], &params, &Control::new()).unwrap();
        let model = LibsvmModel::from_svc(&fit, &x.view(), params.kernel, vec![5, 7, 9]);
        assert_eq!(model.predict(&x.view()).unwrap(), vec![5.0, 5.0, 7.0, 7.0, 9.0, 9.0]);
        let mut text = Vec::new();
        model.write(&mut text).unwrap();
        let back = LibsvmModel::read(&text[..]).unwrap();
        assert_eq!(back, model);
    }
}
