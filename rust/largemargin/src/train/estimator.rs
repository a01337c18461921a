//! The high-level API for native tools: `Svc` and `Svr` builders that take labels as they come
//! (any integer-valued class labels, real targets), fit on a feature `Matrix`, and give a
//! `LibsvmModel` that predicts data of any width and saves to, or loads from, LIBSVM's model format.
//!
//! ```
//! use largemargin::{Kernel, Matrix, Svc};
//!
//! // four points of two classes, row-major
//! let x = [0.0, 0.0, 0.1, 0.2, 1.0, 1.0, 0.9, 1.1];
//! let x = Matrix::dense(&x, 4, 2)?;
//! let model = Svc::new().c(10.0).kernel(Kernel::Rbf { gamma: 0.5 }).fit(&x, &[-1.0, -1.0, 1.0, 1.0])?;
//! assert_eq!(model.predict(&x)?, vec![-1.0, -1.0, 1.0, 1.0]);
//!
//! // a query row wider than the training data: the extra feature is one no support vector has
//! let wide = Matrix::dense(&[1.0, 1.0, 5.0], 1, 3)?;
//! assert_eq!(model.predict(&wide)?.len(), 1);
//! # Ok::<(), largemargin::Error>(())
//! ```

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::KernelSpec;
use crate::model::LibsvmModel;
use crate::runtime::control::Control;
use crate::solver::smo::Selection;
use crate::train::svm::{train_svc, train_svr, SvmParams};

/// The options every kernel SVM builder shares, with LIBSVM's defaults but the kernel's gamma,
/// which is 1 / the number of features unless set.
#[derive(Clone, Debug)]
struct Common {
    c: f64,
    kernel: Option<KernelSpec>,
    params: SvmParams,
    threads: Option<usize>,
}

impl Default for Common {
    fn default() -> Self {
        Common { c: 1.0, kernel: None, params: SvmParams::default(), threads: None }
    }
}

impl Common {
    /// The parameters of a fit on `x`: the kernel (RBF with gamma 1 / n_features by default).
    fn params_for(&self, x: &Matrix) -> Result<SvmParams> {
        if !(self.c > 0.0 && self.c.is_finite()) {
            return Err(Error::InvalidParameter(format!("C must be a positive number, got {}", self.c)));
        }
        let kernel = self.kernel.clone().unwrap_or(KernelSpec::Rbf { gamma: 1.0 / x.cols().max(1) as f64 });
        Ok(SvmParams { kernel, ..self.params.clone() })
    }

    /// Runs `work` on a pool of `threads` threads, or on the caller's pool (every core) by default.
    fn run<T: Send>(&self, work: impl FnOnce() -> Result<T> + Send) -> Result<T> {
        match self.threads {
            None => work(),
            Some(n) => rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .map_err(|e| Error::InvalidParameter(format!("cannot start {n} threads: {e}")))?
                .install(work),
        }
    }
}

macro_rules! common_setters {
    () => {
        /// The box constraint C (LIBSVM's `-c`, default 1).
        pub fn c(mut self, c: f64) -> Self {
            self.common.c = c;
            self
        }
        /// The kernel (default: RBF with gamma = 1 / the number of features, LIBSVM's default).
        pub fn kernel(mut self, kernel: KernelSpec) -> Self {
            self.common.kernel = Some(kernel);
            self
        }
        /// The stopping tolerance on the KKT conditions (LIBSVM's `-e`, default 0.001).
        pub fn tol(mut self, tol: f64) -> Self {
            self.common.params.tol = tol;
            self
        }
        /// The kernel cache for the whole fit, in megabytes (LIBSVM's `-m`, default 200).
        pub fn cache_mb(mut self, mb: f64) -> Self {
            self.common.params.cache_bytes = (mb.max(0.0) * 1048576.0) as usize;
            self
        }
        /// LIBSVM's shrinking heuristics (`-h`, default on).
        pub fn shrinking(mut self, on: bool) -> Self {
            self.common.params.shrinking = on;
            self
        }
        /// At most this many SMO iterations per binary problem (default: until converged).
        pub fn max_iter(mut self, iterations: u64) -> Self {
            self.common.params.max_iter = Some(iterations);
            self
        }
        /// The working-set rule (default: LIBSVM's second-order choice).
        pub fn selection(mut self, selection: Selection) -> Self {
            self.common.params.selection = selection;
            self
        }
        /// Worker threads for kernel rows and class pairs (default: the current rayon pool, every
        /// core). The model does not depend on it.
        pub fn threads(mut self, threads: usize) -> Self {
            self.common.threads = Some(threads);
            self
        }
    };
}

/// C-support vector classification (one-vs-one for more than two classes), trained by SMO.
///
/// Labels are any integer-valued numbers, as in LIBSVM's data files (`-1`/`+1`, `1..k`, ...): the
/// fitted model lists them ascending and predicts them back.
#[derive(Clone, Debug, Default)]
pub struct Svc {
    common: Common,
    class_weight: Vec<(i64, f64)>,
}

impl Svc {
    /// A classifier with LIBSVM's defaults: C = 1, RBF kernel with gamma = 1 / n_features.
    pub fn new() -> Self {
        Svc::default()
    }

    common_setters!();

    /// Platt-scaled probability estimates, fitted on 5-fold cross-validated decision values
    /// (LIBSVM's `-b 1`).
    pub fn probability(mut self, on: bool) -> Self {
        self.common.params.probability = on;
        self
    }

    /// The seed of the probability estimates' folds.
    pub fn seed(mut self, seed: u64) -> Self {
        self.common.params.seed = seed;
        self
    }

    /// C x `weight` for the examples of class `label` (LIBSVM's `-wLABEL weight`).
    pub fn class_weight(mut self, label: i64, weight: f64) -> Self {
        self.class_weight.retain(|(l, _)| *l != label);
        self.class_weight.push((label, weight));
        self
    }

    /// Fits on the rows of `x` with their class labels.
    pub fn fit(&self, x: &Matrix, labels: &[f64]) -> Result<LibsvmModel> {
        self.fit_weighted(x, labels, None)
    }

    /// Fits with a weight per example (its C is C x class weight x its weight; 0 leaves it out).
    pub fn fit_weighted(&self, x: &Matrix, labels: &[f64], sample_weight: Option<&[f64]>) -> Result<LibsvmModel> {
        check_lengths(x, labels.len(), sample_weight)?;
        let mut classes: Vec<i64> = Vec::new();
        for (i, &l) in labels.iter().enumerate() {
            if !(l.is_finite() && l.fract() == 0.0 && l.abs() <= i32::MAX as f64) {
                return Err(Error::InvalidData(format!(
                    "label {l} of example {i} is not an integer of LIBSVM's 32-bit range (for real targets use Svr)"
                )));
            }
            classes.push(l as i64);
        }
        classes.sort_unstable();
        classes.dedup();
        if classes.len() < 2 {
            return Err(Error::InvalidData(format!(
                "a classifier needs two classes; the labels hold {}",
                classes.len()
            )));
        }
        if let Some((l, _)) = self.class_weight.iter().find(|(l, _)| classes.binary_search(l).is_err()) {
            return Err(Error::InvalidParameter(format!("class_weight names label {l}, which no example has")));
        }
        if let Some((l, w)) = self.class_weight.iter().find(|(_, w)| !(*w >= 0.0 && w.is_finite())) {
            return Err(Error::InvalidParameter(format!("the weight of class {l} must be >= 0, got {w}")));
        }
        let y: Vec<usize> = labels.iter().map(|&l| classes.binary_search(&(l as i64)).unwrap_or(0)).collect();
        let weight_of = |c: usize| self.class_weight.iter().find(|(l, _)| *l == classes[c]).map_or(1.0, |(_, w)| *w);
        let sample_c: Vec<f64> = y
            .iter()
            .enumerate()
            .map(|(i, &c)| self.common.c * weight_of(c) * sample_weight.map_or(1.0, |w| w[i]))
            .collect();
        let params = self.common.params_for(x)?;
        let kernel = params.kernel.clone();
        let fit = self.common.run(|| train_svc(x, &y, classes.len(), &sample_c, &params, &Control::new()))?;
        Ok(LibsvmModel::from_svc(&fit, x, kernel, classes))
    }
}

/// epsilon-support vector regression, trained by SMO.
#[derive(Clone, Debug)]
pub struct Svr {
    common: Common,
    epsilon: f64,
}

impl Default for Svr {
    fn default() -> Self {
        Svr { common: Common::default(), epsilon: 0.1 }
    }
}

impl Svr {
    /// A regressor with LIBSVM's defaults: C = 1, epsilon = 0.1, RBF kernel with gamma = 1 / n_features.
    pub fn new() -> Self {
        Svr::default()
    }

    common_setters!();

    /// The half-width of the insensitive tube (LIBSVM's `-p`, default 0.1).
    pub fn epsilon(mut self, epsilon: f64) -> Self {
        self.epsilon = epsilon;
        self
    }

    /// Fits on the rows of `x` with their real targets.
    pub fn fit(&self, x: &Matrix, targets: &[f64]) -> Result<LibsvmModel> {
        self.fit_weighted(x, targets, None)
    }

    /// Fits with a weight per example (its C is C x its weight).
    pub fn fit_weighted(&self, x: &Matrix, targets: &[f64], sample_weight: Option<&[f64]>) -> Result<LibsvmModel> {
        check_lengths(x, targets.len(), sample_weight)?;
        if let Some(i) = targets.iter().position(|t| !t.is_finite()) {
            return Err(Error::InvalidData(format!("target {} of example {i} is not finite", targets[i])));
        }
        if !(self.epsilon >= 0.0 && self.epsilon.is_finite()) {
            return Err(Error::InvalidParameter(format!("epsilon must be >= 0, got {}", self.epsilon)));
        }
        let sample_c: Vec<f64> =
            (0..targets.len()).map(|i| self.common.c * sample_weight.map_or(1.0, |w| w[i])).collect();
        let params = self.common.params_for(x)?;
        let kernel = params.kernel.clone();
        let fit = self.common.run(|| train_svr(x, targets, &sample_c, self.epsilon, &params, &Control::new()))?;
        Ok(LibsvmModel::from_svr(&fit, x, kernel))
    }
}

fn check_lengths(x: &Matrix, n: usize, sample_weight: Option<&[f64]>) -> Result<()> {
    if x.rows() != n {
        return Err(Error::InvalidData(format!("{} rows of data but {n} labels", x.rows())));
    }
    if n == 0 {
        return Err(Error::InvalidData("no examples".into()));
    }
    if let Some(w) = sample_weight {
        if w.len() != n {
            return Err(Error::InvalidData(format!("{n} examples but {} sample weights", w.len())));
        }
        if let Some(i) = w.iter().position(|v| !(*v >= 0.0 && v.is_finite())) {
            return Err(Error::InvalidData(format!("sample weight {} of example {i} is not a number >= 0", w[i])));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blobs() -> (Vec<f64>, Vec<f64>) {
        // three classes labelled 7, -2 and 40, around (0,0), (4,0) and (0,4)
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..90 {
            let (cx, cy, label) = [(0.0, 0.0, 7.0), (4.0, 0.0, -2.0), (0.0, 4.0, 40.0)][i % 3];
            let t = i as f64 * 0.7;
            x.extend([cx + t.sin(), cy + t.cos()]);
            y.push(label);
        }
        (x, y)
    }

    #[test]
    fn svc_maps_any_labels_and_predicts_them_back() {
        let (x, y) = blobs();
        let m = Matrix::dense(&x, 90, 2).unwrap();
        let model = Svc::new().c(10.0).fit(&m, &y).unwrap();
        assert_eq!(model.labels, vec![-2, 7, 40]);
        assert_eq!(model.predict(&m).unwrap(), y);
        // the same as the low-level path with the classes mapped by hand
        let classes = [-2.0, 7.0, 40.0];
        let idx: Vec<usize> = y.iter().map(|l| classes.iter().position(|c| c == l).unwrap()).collect();
        let params = SvmParams { kernel: KernelSpec::Rbf { gamma: 0.5 }, ..Default::default() };
        let fit = train_svc(&m, &idx, 3, &vec![10.0; 90], &params, &Control::new()).unwrap();
        assert_eq!(model.sv_coef, fit.dual_coef); // gamma 1 / 2 features by default
    }

    #[test]
    fn threads_and_weights() {
        let (x, y) = blobs();
        let m = Matrix::dense(&x, 90, 2).unwrap();
        let one = Svc::new().threads(1).fit(&m, &y).unwrap();
        let two = Svc::new().threads(2).fit(&m, &y).unwrap();
        assert_eq!(one, two);
        // a zero weight leaves an example out: it is never a support vector
        let mut w = vec![1.0; 90];
        w[0] = 0.0;
        let weighted = Svc::new().c(1e-3).fit_weighted(&m, &y, Some(&w)).unwrap();
        assert!(weighted.sv.rows() < 90);
        let weighted_class = Svc::new().class_weight(7, 0.0).fit(&m, &y).unwrap();
        assert_eq!(weighted_class.n_support[1], 0);
    }

    #[test]
    fn svr_fits_a_line() {
        let x: Vec<f64> = (0..50).map(|i| i as f64 / 10.0).collect();
        let y: Vec<f64> = x.iter().map(|v| 2.0 * v + 1.0).collect();
        let m = Matrix::dense(&x, 50, 1).unwrap();
        let model = Svr::new().c(100.0).epsilon(0.01).kernel(KernelSpec::Linear).fit(&m, &y).unwrap();
        for (p, t) in model.predict(&m).unwrap().iter().zip(&y) {
            assert!((p - t).abs() < 0.05, "{p} vs {t}");
        }
    }

    #[test]
    fn bad_input_is_named() {
        let x = [0.0, 1.0, 2.0];
        let m = Matrix::dense(&x, 3, 1).unwrap();
        let err = |r: Result<LibsvmModel>| r.unwrap_err().to_string();
        assert!(err(Svc::new().fit(&m, &[1.0, 2.0])).contains("3 rows of data but 2 labels"));
        assert!(err(Svc::new().fit(&m, &[1.0, 1.5, 2.0])).contains("label 1.5 of example 1"));
        assert!(err(Svc::new().fit(&m, &[1.0, 1.0, 1.0])).contains("two classes"));
        assert!(err(Svc::new().c(-1.0).fit(&m, &[1.0, 2.0, 1.0])).contains("C must be a positive number"));
        assert!(err(Svc::new().class_weight(5, 2.0).fit(&m, &[1.0, 2.0, 1.0])).contains("label 5"));
        assert!(err(Svr::new().fit(&m, &[1.0, f64::NAN, 2.0])).contains("not finite"));
        assert!(err(Svr::new().fit_weighted(&m, &[1.0, 2.0, 3.0], Some(&[1.0, -1.0, 1.0]))).contains("example 1"));
    }
}
