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
use crate::model::probability::{couple, one_class_probability, sigmoid_predict, DENSITY_MARKS};

/// The kinds of LIBSVM model this crate reads and writes (a model file's `svm_type`), in
/// LIBSVM's order: a type's position in `ALL` is its svm-train `-s` number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SvmType {
    /// C-support vector classification, one-vs-one over two classes or more.
    CSvc,
    /// nu-support vector classification: laid out and predicted as C-SVC.
    NuSvc,
    /// One-class SVM (novelty detection): one decision function, +1 inside, -1 outside.
    OneClass,
    /// Epsilon-support vector regression.
    EpsilonSvr,
    /// nu-support vector regression: laid out and predicted as epsilon-SVR.
    NuSvr,
}

crate::error::option_names!(SvmType, "svm_type", {
    CSvc => "c_svc",
    NuSvc => "nu_svc",
    OneClass => "one_class",
    EpsilonSvr => "epsilon_svr",
    NuSvr => "nu_svr",
});

impl SvmType {
    /// LIBSVM's number of this type (svm-train's `-s`): 0 c_svc, 1 nu_svc, 2 one_class,
    /// 3 epsilon_svr, 4 nu_svr.
    pub fn libsvm_number(self) -> usize {
        Self::ALL.iter().position(|&t| t == self).expect("every type is in ALL")
    }
    /// The type LIBSVM numbers `n`, if any.
    pub fn from_libsvm_number(n: usize) -> Option<Self> {
        Self::ALL.get(n).copied()
    }
    /// Classifiers over labelled classes (one-vs-one, `labels` and `n_support` in the file).
    pub fn is_classifier(self) -> bool {
        matches!(self, SvmType::CSvc | SvmType::NuSvc)
    }
    /// Regressors: the prediction is the decision value.
    pub fn is_regression(self) -> bool {
        matches!(self, SvmType::EpsilonSvr | SvmType::NuSvr)
    }
}

/// A trained kernel SVM in the terms of a LIBSVM model file, class pairs and support vectors in
/// LIBSVM's order.
#[derive(Clone, Debug, PartialEq)]
pub struct LibsvmModel {
    /// Classifier or regressor.
    pub svm_type: SvmType,
    /// The kernel; a model file can hold only a kernel that has a LIBSVM name.
    pub kernel: KernelSpec,
    /// Class labels in model order (classifiers: C-SVC, nu-SVC). One-vs-one votes are tied in
    /// favour of the class that comes first in this order, as in LIBSVM.
    pub labels: Vec<i64>,
    /// Support vectors per class, model order (classifiers).
    pub n_support: Vec<usize>,
    /// One per class pair (classifiers) or one (regression, one-class); the decision value is
    /// sum coef K - rho.
    pub rho: Vec<f64>,
    /// The A of Platt's sigmoid per class pair (classifiers). For regression, `prob_a` may hold
    /// the scale of LIBSVM's Laplace noise model (its `probA`); for one-class, LIBSVM's ten
    /// `prob_density_marks` (`probability::DENSITY_MARKS`). Empty without probability estimates.
    pub prob_a: Vec<f64>,
    /// The B of each pair's sigmoid 1 / (1 + exp(A f + B)) (classifiers); empty otherwise.
    pub prob_b: Vec<f64>,
    /// (n_classes - 1) x n_sv row-major (one row for regression and one-class).
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
        if self.svm_type.is_classifier() {
            self.labels.len()
        } else {
            // LIBSVM's nr_class of a model with one decision function
            2
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
            SvmType::CSvc | SvmType::NuSvc => {
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
            SvmType::EpsilonSvr | SvmType::NuSvr => {
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
            SvmType::OneClass => {
                if !self.labels.is_empty() || !self.n_support.is_empty() || !self.prob_b.is_empty() {
                    return bad("a one-class model has no class labels, class counts or probB".into());
                }
                if !matches!(self.prob_a.len(), 0 | DENSITY_MARKS) {
                    return bad(format!(
                        "a one-class model has {DENSITY_MARKS} probability density marks or none, not {}",
                        self.prob_a.len()
                    ));
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
        let n_support: &[usize] = if self.svm_type.is_classifier() { &self.n_support } else { &[] };
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

    /// Predicted labels (classifiers, by one-vs-one votes; one-class, +1 or -1) or values
    /// (regression).
    pub fn predict(&self, x: &Matrix) -> Result<Vec<f64>> {
        let dec = self.decision(x)?;
        Ok(self.labels_of(&dec))
    }

    /// The prediction read off decision values (`n_outputs` per row), as `predict` makes it.
    fn labels_of(&self, dec: &[f64]) -> Vec<f64> {
        match self.svm_type {
            SvmType::EpsilonSvr | SvmType::NuSvr => dec.to_vec(),
            // LIBSVM's rule: zero is outside
            SvmType::OneClass => dec.iter().map(|&d| if d > 0.0 { 1.0 } else { -1.0 }).collect(),
            SvmType::CSvc | SvmType::NuSvc => {
                let k = self.labels.len();
                dec.chunks(self.n_outputs())
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
                    .collect()
            }
        }
    }

    /// Whether the model holds what `predict_probability` needs: both sigmoids of every pair
    /// (classifiers) or the density marks (one-class). A regression model's probA (the Laplace
    /// scale) gives no per-row probability.
    pub fn has_probability(&self) -> bool {
        match self.svm_type {
            SvmType::CSvc | SvmType::NuSvc | SvmType::OneClass => !self.prob_a.is_empty(),
            SvmType::EpsilonSvr | SvmType::NuSvr => false,
        }
    }

    /// Probability estimates as LIBSVM's `svm_predict_probability` makes them: the predicted
    /// labels, and per row the probability of each class in model order (classifiers:
    /// pairwise sigmoids clipped to [1e-7, 1 - 1e-7], coupled over more than two classes, the
    /// label the first most probable class) or of (normal, outlier) (one-class: from the density
    /// marks, the label still the decision's sign). Returns (labels, rows x n_columns row-major,
    /// n_columns). An error for a model without probability estimates.
    pub fn predict_probability(&self, x: &Matrix) -> Result<(Vec<f64>, Vec<f64>, usize)> {
        if !self.has_probability() {
            return Err(Error::InvalidParameter(format!(
                "this {} model has no probability estimates (trained without them)",
                self.svm_type
            )));
        }
        let dec = self.decision(x)?;
        if self.svm_type == SvmType::OneClass {
            let mut probs = Vec::with_capacity(2 * dec.len());
            for &d in &dec {
                let normal = one_class_probability(&self.prob_a, d);
                probs.extend([normal, 1.0 - normal]);
            }
            return Ok((self.labels_of(&dec), probs, 2));
        }
        let k = self.labels.len();
        let mut labels = Vec::with_capacity(x.rows());
        let mut probs = Vec::with_capacity(x.rows() * k);
        let mut r = vec![0.0; k * k];
        for d in dec.chunks(self.n_outputs()) {
            let mut p = 0;
            for i in 0..k {
                for j in i + 1..k {
                    let v = sigmoid_predict(d[p], self.prob_a[p], self.prob_b[p]).clamp(1e-7, 1.0 - 1e-7);
                    r[i * k + j] = v;
                    r[j * k + i] = 1.0 - v;
                    p += 1;
                }
            }
            let row = if k == 2 { vec![r[1], r[2]] } else { couple(&r, k) };
            // the first class in model order among the most probable, as LIBSVM
            let best = (0..k).fold(0, |best, c| if row[c] > row[best] { c } else { best });
            labels.push(self.labels[best] as f64);
            probs.extend(row);
        }
        Ok((labels, probs, k))
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

    /// One feature, linear kernel: the decision value is sum coef * sv * x - rho.
    fn one_feature(svm_type: SvmType, sv: &[f64], coef: &[f64], rho: f64) -> LibsvmModel {
        let mut m = CsrMatrix::new();
        for &v in sv {
            m.push_row([(0, v)]).unwrap();
        }
        m.set_cols(1).unwrap();
        LibsvmModel {
            svm_type,
            kernel: KernelSpec::Linear,
            labels: Vec::new(),
            n_support: Vec::new(),
            rho: vec![rho],
            prob_a: Vec::new(),
            prob_b: Vec::new(),
            sv_coef: coef.to_vec(),
            sv: m,
            sv_indices: Vec::new(),
        }
    }

    fn column(values: &[f64]) -> CsrMatrix {
        let mut x = CsrMatrix::new();
        for &v in values {
            x.push_row([(0, v)].into_iter().filter(|e| e.1 != 0.0)).unwrap();
        }
        x.set_cols(1).unwrap();
        x
    }

    #[test]
    fn svm_types_keep_libsvms_numbers_and_names() {
        let names = ["c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"];
        for (n, name) in names.iter().enumerate() {
            let t = SvmType::from_libsvm_number(n).unwrap();
            assert_eq!((t.name(), t.libsvm_number()), (*name, n));
            assert_eq!(name.parse::<SvmType>(), Ok(t));
        }
        assert_eq!(SvmType::from_libsvm_number(5), None);
        let classifiers: Vec<_> = SvmType::ALL.iter().filter(|t| t.is_classifier()).collect();
        assert_eq!(classifiers, [&SvmType::CSvc, &SvmType::NuSvc]);
    }

    #[test]
    fn nu_types_predict_as_their_c_and_epsilon_counterparts() {
        let (x, model) = three_classes();
        let nu = LibsvmModel { svm_type: SvmType::NuSvc, ..model.clone() };
        assert_eq!(nu.decision(&x.view()).unwrap(), model.decision(&x.view()).unwrap());
        assert_eq!(nu.predict(&x.view()).unwrap(), vec![5.0, 5.0, 7.0, 7.0, 9.0, 9.0]);
        let test = column(&[-1.0, 0.0, 2.0]);
        let svr = one_feature(SvmType::EpsilonSvr, &[1.0, 2.0], &[0.5, 0.25], 0.5);
        let nu_svr = LibsvmModel { svm_type: SvmType::NuSvr, ..svr.clone() };
        assert_eq!(nu_svr.predict(&test.view()).unwrap(), vec![-1.5, -0.5, 1.5]);
        assert_eq!(nu_svr.predict(&test.view()).unwrap(), svr.predict(&test.view()).unwrap());
        assert!(!nu_svr.has_probability()); // probA is a noise scale, not per-row probabilities
        assert!(nu_svr.predict_probability(&test.view()).is_err());
    }

    #[test]
    fn one_class_predicts_the_decisions_sign_and_probability_from_the_marks() {
        // decision x - 0.5: zero counts as outside, as in LIBSVM
        let mut m = one_feature(SvmType::OneClass, &[1.0, 2.0], &[0.5, 0.25], 0.5);
        let test = column(&[0.0, 0.5, 0.75, 3.0]);
        assert_eq!(m.decision(&test.view()).unwrap(), vec![-0.5, 0.0, 0.25, 2.5]);
        assert_eq!(m.predict(&test.view()).unwrap(), vec![-1.0, -1.0, 1.0, 1.0]);
        assert!(m.predict_probability(&test.view()).unwrap_err().to_string().contains("no probability"));
        let training: Vec<f64> = (-10..20).map(|i| i as f64 / 10.0).collect();
        m.prob_a = probability::one_class_density_marks(&training).unwrap();
        m.check().unwrap();
        let (labels, probs, cols) = m.predict_probability(&test.view()).unwrap();
        assert_eq!((labels, cols), (vec![-1.0, -1.0, 1.0, 1.0], 2));
        for (row, d) in probs.chunks(2).zip([-0.5, 0.0, 0.25, 2.5]) {
            let normal = one_class_probability(&m.prob_a, d);
            assert_eq!(row, [normal, 1.0 - normal]);
        }
        assert_eq!(probs[6], 0.999);
        // marks make no sense on another type, and a one-class model has ten of them or none
        let mut bad = m.clone();
        bad.svm_type = SvmType::NuSvr;
        assert!(bad.check().is_err());
        bad = m.clone();
        bad.prob_a.push(1.0);
        assert!(bad.check().is_err());
        bad = m;
        bad.labels = vec![1, -1];
        assert!(bad.check().is_err());
    }

    #[test]
    fn class_probabilities_are_libsvms() {
        let (x, mut model) = three_classes();
        assert!(model.predict_probability(&x.view()).is_err());
        model.svm_type = SvmType::NuSvc;
        model.prob_a = vec![-2.0, -1.5, -3.0];
        model.prob_b = vec![0.1, -0.2, 0.0];
        let (labels, probs, k) = model.predict_probability(&x.view()).unwrap();
        assert_eq!((labels, k), (vec![5.0, 5.0, 7.0, 7.0, 9.0, 9.0], 3));
        for row in probs.chunks(3) {
            assert!((row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        }
        // two classes: the pair's sigmoid, clipped, no coupling
        let mut binary = one_feature(SvmType::NuSvc, &[1.0, -1.0], &[1.0, -1.0], 0.0);
        binary.labels = vec![3, -3];
        binary.n_support = vec![1, 1];
        binary.prob_a = vec![-2.0];
        binary.prob_b = vec![0.0];
        let (labels, probs, _) = binary.predict_probability(&column(&[1.0, -0.5]).view()).unwrap();
        assert_eq!(labels, vec![3.0, -3.0]);
        let (p, q) = (sigmoid_predict(2.0, -2.0, 0.0), sigmoid_predict(-1.0, -2.0, 0.0));
        assert_eq!(probs, [p, 1.0 - p, q, 1.0 - q]);
        binary.prob_a = vec![-100.0];
        let (_, probs, _) = binary.predict_probability(&column(&[1.0]).view()).unwrap();
        assert_eq!(probs, [1.0 - 1e-7, 1.0 - (1.0 - 1e-7)]); // clipped; the other class is 1 - p
    }
}
