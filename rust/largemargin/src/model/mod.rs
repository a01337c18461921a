//! Trained kernel-SVM models as LIBSVM stores them, and prediction from them: `LibsvmModel`,
//! the decision functions of kernel expansions (`predict`) and probability estimates
//! (`probability`: Platt's sigmoid, pairwise coupling). A model is made by training
//! (`LibsvmModel::from_svc` and `from_svr` in `train::svm`) or read from a file
//! (`io::model_file` reads and writes LIBSVM's model-file format); the Python package and the
//! native CLI both save and load through it.
//!
//! Feature indices in a model file mean what they mean to LIBSVM: they are matched literally with
//! the indices of the data files. In memory columns start at 0, and the `IndexBase` a model is
//! read or written with says which index column 0 is; reading a model and its data with the same
//! base keeps them aligned, whichever base that is.

pub mod predict;
pub mod probability;

use crate::data::{CsrMatrix, Matrix};
use crate::error::{Error, Result};
use crate::kernel::KernelSpec;
use crate::model::predict::Expansion;

/// The kinds of LIBSVM model this crate reads and writes (a model file's `svm_type`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SvmType {
    /// C-support vector classification, one-vs-one over two classes or more.
    CSvc,
    /// Epsilon-support vector regression.
    EpsilonSvr,
}

crate::error::option_names!(SvmType, "svm_type", { CSvc => "c_svc", EpsilonSvr => "epsilon_svr" });

/// A trained kernel SVM in the terms of a LIBSVM model file, class pairs and support vectors in
/// LIBSVM's order.
#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmModel {
    /// Classifier or regressor.
    pub svm_type: SvmType,
    /// The kernel; a model file can hold only a kernel that has a LIBSVM name.
    pub kernel: KernelSpec,
    /// Class labels in model order (C-SVC). One-vs-one votes are tied in favour of the class that
    /// comes first in this order, as in LIBSVM.
    pub labels: Vec<i64>,
    /// Support vectors per class, model order (C-SVC).
    pub n_support: Vec<usize>,
    /// One per class pair (C-SVC) or one (SVR); the decision value is sum coef K - rho.
    pub rho: Vec<f64>,
    /// Platt's sigmoid per class pair (C-SVC); for SVR, `prob_a` may hold the scale of LIBSVM's
    /// Laplace noise model and `prob_b` is empty.
    pub prob_a: Vec<f64>,
    /// The B of each pair's sigmoid 1 / (1 + exp(A f + B)) (C-SVC); empty for SVR and for a model
    /// without probability estimates.
    pub prob_b: Vec<f64>,
    /// (n_classes - 1) x n_sv row-major (one row for SVR).
    pub sv_coef: Vec<f64>,
    /// Support vectors (0-based columns); empty for a precomputed kernel.
    pub sv: CsrMatrix,
    /// Precomputed kernel only: 0-based training index of each support vector.
    pub sv_indices: Vec<usize>,
}

impl LibsvmModel {
    /// Number of support vectors: rows of `sv`, or entries of `sv_indices` for a precomputed
    /// kernel.
    pub fn n_sv(&self) -> usize {
        if self.kernel.is_precomputed() {
            self.sv_indices.len()
        } else {
            self.sv.rows()
        }
    }
    pub(crate) fn n_classes(&self) -> usize {
        match self.svm_type {
            SvmType::CSvc => self.labels.len(),
            SvmType::EpsilonSvr => 2,
        }
    }
    /// Decision values per example: one per class pair, or one.
    fn n_outputs(&self) -> usize {
        let k = self.n_classes();
        k * k.saturating_sub(1) / 2
    }

    /// Checks that the parts fit together and every number is usable: what a model file must
    /// satisfy to be written, and what reading one guarantees.
    pub fn check(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidData(m));
        self.kernel.validate()?;
        if self.kernel.libsvm_name().is_none() {
            return bad(format!("a {} kernel has no LIBSVM model format", self.kernel.name()));
        }
        if let KernelSpec::Poly { degree, .. } = self.kernel {
            if degree > i32::MAX as u32 {
                return bad(format!("degree {degree} is larger than LIBSVM's largest ({})", i32::MAX));
            }
        }
        let nsv = self.n_sv();
        let pairs = self.n_outputs();
        match self.svm_type {
            SvmType::CSvc => {
                let k = self.labels.len();
                if k < 2 {
                    return bad(format!("a classifier needs at least two classes, this one has {k}"));
                }
                if let Some(l) = self.labels.iter().find(|&&l| i32::try_from(l).is_err()) {
                    return bad(format!("class label {l} is outside LIBSVM's 32-bit label range"));
                }
                let mut sorted = self.labels.clone();
                sorted.sort_unstable();
                if let Some(w) = sorted.windows(2).find(|w| w[0] == w[1]) {
                    return bad(format!("class label {} appears twice", w[0]));
                }
                if self.n_support.len() != k || self.n_support.iter().sum::<usize>() != nsv {
                    return bad(format!(
                        "{k} classes with support vector counts {:?} do not add up to {nsv} support vectors",
                        self.n_support
                    ));
                }
                if self.prob_a.len() != self.prob_b.len() || !(self.prob_a.is_empty() || self.prob_a.len() == pairs) {
                    return bad(format!(
                        "{pairs} class pairs but {} probA and {} probB values",
                        self.prob_a.len(),
                        self.prob_b.len()
                    ));
                }
            }
            SvmType::EpsilonSvr => {
                if !self.labels.is_empty()
                    || !self.n_support.is_empty()
                    || !self.prob_b.is_empty()
                    || self.prob_a.len() > 1
                {
                    return bad(
                        "a regression model has no class labels, class counts or probB, and at most one probA".into()
                    );
                }
            }
        }
        if self.rho.len() != pairs {
            return bad(format!("{} rho values for {pairs} decision functions", self.rho.len()));
        }
        if self.sv_coef.len() != (self.n_classes() - 1) * nsv {
            return bad(format!(
                "{} coefficients for {nsv} support vectors of {} classes",
                self.sv_coef.len(),
                self.n_classes()
            ));
        }
        if self.kernel.is_precomputed() {
            if self.sv.rows() != 0 {
                return bad("a precomputed-kernel model holds training indices, not support vectors".into());
            }
            if self.sv_indices.iter().any(|&i| i >= crate::io::data_file::MAX_INDEX as usize) {
                return bad("a support vector's training index is out of range".into());
            }
        } else if !self.sv_indices.is_empty() {
            return bad("only a precomputed-kernel model holds training indices".into());
        }
        let numbers =
            [("rho", &self.rho), ("probA", &self.prob_a), ("probB", &self.prob_b), ("coefficient", &self.sv_coef)];
        for (name, values) in numbers {
            if let Some(v) = values.iter().find(|v| !v.is_finite()) {
                return bad(format!("a {name} value is {v}"));
            }
        }
        if let Some(v) = self.sv.data().iter().find(|v| !v.is_finite()) {
            return bad(format!("a support vector holds {v}"));
        }
        Ok(())
    }

    /// Decision values (one per class pair, or one), LIBSVM sign convention. Data and support
    /// vectors may differ in width: a feature one of them never mentions is zero there, as when
    /// LIBSVM matches the indices of two files.
    pub fn decision(&self, x: &Matrix) -> Result<Vec<f64>> {
        self.check()?;
        let intercept: Vec<f64> = self.rho.iter().map(|r| -r).collect();
        let identity: Vec<usize> = (0..self.n_sv()).collect();
        let precomputed = self.kernel.is_precomputed();
        let n_support: &[usize] = if self.svm_type == SvmType::CSvc { &self.n_support } else { &[] };
        let expansion = |sv: Matrix, x: &Matrix| {
            Expansion {
                kernel: self.kernel.clone(),
                sv,
                sv_columns: if precomputed { &self.sv_indices } else { &identity },
                n_support,
                coef: &self.sv_coef,
                intercept: &intercept,
            }
            .decision(x)
        };
        if precomputed {
            return expansion(*x, x);
        }
        let cols = x.cols().max(self.sv.cols());
        let sv = self.sv.view().widened(cols).expect("support vectors are sparse");
        match x.widened(cols) {
            Some(wide) => expansion(sv, &wide),
            None => expansion(sv, &widen(x, cols).view()),
        }
    }

    /// Predicted labels (C-SVC, by one-vs-one votes) or values (SVR).
    pub fn predict(&self, x: &Matrix) -> Result<Vec<f64>> {
        let dec = self.decision(x)?;
        if self.svm_type == SvmType::EpsilonSvr {
            return Ok(dec);
        }
        let k = self.labels.len();
        let npairs = self.n_outputs();
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
                // the first class in model order among those with most votes, as LIBSVM
                let best = (0..k).fold(0, |best, c| if votes[c] > votes[best] { c } else { best });
                self.labels[best] as f64
            })
            .collect())
    }
}

/// Dense rows as sparse ones with more (zero) columns.
fn widen(x: &Matrix, cols: usize) -> CsrMatrix {
    let idx: Vec<usize> = (0..x.rows()).collect();
    let mut m = CsrMatrix::gather(x, &idx);
    m.set_cols(cols.max(x.cols())).expect("no entry of x is beyond its own width");
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::data_file::IndexBase;
    use crate::runtime::control::Control;
    use crate::train::svm::{train_svc, SvmParams};

    fn three_classes() -> (CsrMatrix, LibsvmModel) {
        let mut x = CsrMatrix::new();
        let pts = [(0.0, 0.0), (0.1, 0.3), (1.0, 1.0), (0.9, 1.2), (2.0, 0.1), (2.2, 0.0)];
        for (a, b) in pts {
            x.push_row([(0, a), (1, b)].into_iter().filter(|e| e.1 != 0.0)).unwrap();
        }
        x.set_cols(2).unwrap();
        let y = [0, 0, 1, 1, 2, 2];
        let params = SvmParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, ..Default::default() };
        let fit = train_svc(&x.view(), &y, 3, &[10.0; 6], &params, &Control::new()).unwrap();
        let model = LibsvmModel::from_svc(&fit, &x.view(), params.kernel, vec![5, 7, 9]);
        (x, model)
    }

    #[test]
    fn round_trip_and_predict() {
        let (x, model) = three_classes();
        assert_eq!(model.predict(&x.view()).unwrap(), vec![5.0, 5.0, 7.0, 7.0, 9.0, 9.0]);
        for base in [IndexBase::Zero, IndexBase::One] {
            let mut text = Vec::new();
            model.write(&mut text, base).unwrap();
            let back = LibsvmModel::read(&text[..], base).unwrap();
            assert_eq!(back, model);
        }
    }

    #[test]
    fn data_wider_or_narrower_than_the_support_vectors() {
        let (x, model) = three_classes();
        let expected = model.decision(&x.view()).unwrap();
        let mut wide = x.clone();
        wide.set_cols(40).unwrap(); // a test file mentioning features no support vector has
        assert_eq!(model.decision(&wide.view()).unwrap(), expected);
        let dense: Vec<f64> = (0..6).map(|i| x.view().get(i, 0)).collect();
        let narrow = crate::data::DenseView::new(&dense, 6, 1).unwrap();
        let mut first = CsrMatrix::new();
        for &v in &dense {
            first.push_row([(0, v)].into_iter().filter(|e| e.1 != 0.0)).unwrap();
        }
        first.set_cols(1).unwrap();
        assert_eq!(model.decision(&Matrix::Dense64(narrow)).unwrap(), model.decision(&first.view()).unwrap());
    }

    #[test]
    fn models_that_cannot_be_right_are_refused() {
        let (x, model) = three_classes();
        let mut m = model.clone();
        m.rho[1] = f64::NAN;
        assert!(m.decision(&x.view()).unwrap_err().to_string().contains("rho"));
        assert!(m.write(Vec::new(), IndexBase::One).is_err());
        let mut m = model.clone();
        m.labels = vec![5, 7, 7];
        assert!(m.check().unwrap_err().to_string().contains("twice"));
        let mut m = model;
        m.n_support[0] += 1;
        assert!(m.check().is_err());
    }
}
