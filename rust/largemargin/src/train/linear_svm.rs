//! Exact linear SVMs (`solver::dcd`, `solver::tron`): the classifier's binary problems (one for two classes,
//! one-vs-rest above) solved in parallel on the rayon pool, or one Crammer-Singer problem; the
//! regressor's one problem. Each example's upper bound is C times its class weight and its
//! sample weight, as LIBLINEAR (with scikit-learn's sample weights) sets it: in a one-vs-rest
//! problem the class's weight applies to its own examples and the rest keep C.

use rayon::prelude::*;

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::solver::dcd::{
    solve_crammer_singer, solve_svc, solve_svr, DcdOutcome, DcdParams, Rows, SparseRows, SvcLoss, SvrLoss,
};
use crate::solver::tron::{solve_primal, PrimalLoss};

/// How a multiclass problem is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MultiClass {
    /// One binary problem per class against the rest (a single one for two classes).
    Ovr,
    /// Crammer and Singer's joint multiclass SVM: one weight vector per class, even for two.
    CrammerSinger,
}

crate::error::option_names!(MultiClass, "multi_class", { Ovr => "ovr", CrammerSinger => "crammer_singer" });

/// Which problem the solver works on: both have the same optimum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinearSolver {
    /// The dual, by coordinate descent (`solver::dcd`); every loss.
    Dual,
    /// The primal, by trust-region Newton (`solver::tron`): the squared losses only; its passes
    /// over the data run on every core.
    Primal,
}

crate::error::option_names!(LinearSolver, "linear solver", { Dual => "dual", Primal => "primal" });

/// The settings of a linear SVM fit.
#[derive(Clone, Debug)]
pub struct LinearSvmParams {
    /// The regularisation trade-off C (> 0).
    pub c: f64,
    /// The solver's tolerance, cap and seed (each problem's seed is derived from it).
    pub dcd: DcdParams,
    /// The constant feature appended to every row, its weight times it the intercept; None: no
    /// intercept.
    pub intercept_scaling: Option<f64>,
    /// The dual or the primal (the squared losses only; Crammer-Singer is always dual).
    pub solver: LinearSolver,
}

impl LinearSvmParams {
    fn validate(&self) -> Result<()> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Err(Error::InvalidParameter(format!("C must be positive, got {}", self.c)));
        }
        if let Some(s) = self.intercept_scaling {
            if !(s.is_finite() && s > 0.0) {
                return Err(Error::InvalidParameter(format!("intercept_scaling must be positive, got {s}")));
            }
        }
        self.dcd.validate()
    }
    fn bias(&self) -> f64 {
        self.intercept_scaling.unwrap_or(0.0)
    }
}

/// A fitted linear model: one row of weights and one intercept per problem (per class for
/// one-vs-rest above two classes and for Crammer-Singer, one row for a binary problem, the
/// positive side the second class).
#[derive(Clone, Debug, PartialEq)]
pub struct LinearSvmFit {
    /// Row-major, `rows` x `cols`.
    pub coef: Vec<f64>,
    /// The problems' count.
    pub rows: usize,
    /// The features' count.
    pub cols: usize,
    /// Per row: the bias feature's weight times `intercept_scaling` (0 without an intercept).
    pub intercept: Vec<f64>,
    /// Per problem: the solver's passes and whether it met the tolerance.
    pub outcomes: Vec<DcdOutcome>,
}

fn check_weights(what: &str, w: &[f64]) -> Result<()> {
    match w.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        Some(i) => {
            Err(Error::InvalidParameter(format!("{what} {i} is {}: weights must be finite and nonnegative", w[i])))
        }
        None => Ok(()),
    }
}

fn check_common(x: &Matrix, targets: usize, sample_weight: &[f64], params: &LinearSvmParams) -> Result<()> {
    let n = x.rows();
    if n == 0 {
        return Err(Error::InvalidData("no examples".into()));
    }
    if targets != n || sample_weight.len() != n {
        return Err(Error::InvalidData(format!(
            "{n} examples but {targets} targets and {} sample weights",
            sample_weight.len()
        )));
    }
    params.validate()?;
    check_weights("sample weight", sample_weight)?;
    x.check_finite()
}

/// Splits a model of `rows` problems, each `cols + 1` weights (the bias feature's last), into
/// coefficients and intercepts.
fn split_bias(
    weights: Vec<Vec<f64>>, cols: usize, params: &LinearSvmParams, outcomes: Vec<DcdOutcome>,
) -> LinearSvmFit {
    let rows = weights.len();
    let mut coef = Vec::with_capacity(rows * cols);
    let mut intercept = Vec::with_capacity(rows);
    for w in weights {
        coef.extend_from_slice(&w[..cols]);
        intercept.push(w[cols] * params.bias());
    }
    LinearSvmFit { coef, rows, cols, intercept, outcomes }
}

/// Fits a linear SVM classifier to class indices `y` (below `n_classes`, at least 2),
/// `class_weight` one per class.
#[allow(clippy::too_many_arguments)]
pub fn train_linear_svc(
    x: &Matrix, y: &[usize], n_classes: usize, class_weight: &[f64], sample_weight: &[f64], loss: SvcLoss,
    multi_class: MultiClass, params: &LinearSvmParams, control: &Control,
) -> Result<LinearSvmFit> {
    check_common(x, y.len(), sample_weight, params)?;
    if n_classes < 2 || class_weight.len() != n_classes {
        return Err(Error::InvalidData(format!("{n_classes} classes and {} class weights", class_weight.len())));
    }
    if let Some(i) = y.iter().position(|&c| c >= n_classes) {
        return Err(Error::InvalidData(format!("example {i}'s class {} is not below {n_classes}", y[i])));
    }
    check_weights("class weight", class_weight)?;
    if params.solver == LinearSolver::Primal && loss == SvcLoss::Hinge && multi_class == MultiClass::Ovr {
        return Err(Error::InvalidParameter("the hinge loss has no primal solver: solve its dual".into()));
    }
    let problem = SvcProblem { y, n_classes, class_weight, sample_weight, loss, multi_class };
    match SparseRows::of_dense(x) {
        Some(copy) => fit_svc(&copy, &problem, params, control),
        None => fit_svc(x, &problem, params, control),
    }
}

/// What `train_linear_svc` was asked to fit, checked.
struct SvcProblem<'a> {
    y: &'a [usize],
    n_classes: usize,
    class_weight: &'a [f64],
    sample_weight: &'a [f64],
    loss: SvcLoss,
    multi_class: MultiClass,
}

/// The one-vs-rest problems, or the Crammer-Singer one, over the rows `x` (the input or its copy).
fn fit_svc<R: Rows>(x: &R, problem: &SvcProblem, params: &LinearSvmParams, control: &Control) -> Result<LinearSvmFit> {
    let SvcProblem { y, n_classes, class_weight, sample_weight, loss, multi_class } = *problem;
    let (n, d, bias) = (x.rows(), x.cols(), params.bias());
    // (the dual solvers' diagonal; the primal one needs none)
    let sq_norms = if params.solver == LinearSolver::Dual || multi_class == MultiClass::CrammerSinger {
        x.squared_norms()
    } else {
        Vec::new()
    };
    let seed_of = |problem: usize| params.dcd.seed ^ (problem as u64).rotate_left(32);
    if multi_class == MultiClass::CrammerSinger {
        control.plan(1);
        let c: Vec<f64> = (0..n).map(|i| params.c * class_weight[y[i]] * sample_weight[i]).collect();
        let (mut w, mut alpha) = (vec![0.0; (d + 1) * n_classes], vec![0.0; n * n_classes]);
        let dcd = DcdParams { seed: seed_of(0), ..params.dcd.clone() };
        let outcome = solve_crammer_singer(x, y, n_classes, &c, bias, &sq_norms, &dcd, &mut w, &mut alpha, control)?;
        control.problem_done();
        // feature-major to one row per class
        let rows = (0..n_classes).map(|m| (0..=d).map(|j| w[j * n_classes + m]).collect()).collect();
        return Ok(split_bias(rows, d, params, vec![outcome]));
    }
    // binary: one problem, the second class positive; above: each class against the rest
    let positives: Vec<usize> = if n_classes == 2 { vec![1] } else { (0..n_classes).collect() };
    control.plan(positives.len() as u64);
    // (one task per problem: their costs differ, and a thread that is done takes the next)
    let solved: Vec<(Vec<f64>, DcdOutcome)> = positives
        .par_iter()
        .with_max_len(1)
        .enumerate()
        .map(|(problem, &positive)| {
            let labels: Vec<f64> = y.iter().map(|&c| if c == positive { 1.0 } else { -1.0 }).collect();
            let c: Vec<f64> = (0..n)
                .map(|i| {
                    let class = if n_classes == 2 || y[i] == positive { class_weight[y[i]] } else { 1.0 };
                    params.c * class * sample_weight[i]
                })
                .collect();
            let mut w = vec![0.0; d + 1];
            let outcome = if params.solver == LinearSolver::Primal {
                // LIBLINEAR's tolerance for this primal: scaled by the smaller class's share
                let positives = labels.iter().filter(|&&v| v > 0.0).count();
                let tol = params.dcd.tol * positives.min(n - positives).max(1) as f64 / n as f64;
                solve_primal(x, &labels, &c, PrimalLoss::SquaredHinge, bias, tol, params.dcd.max_iter, &mut w, control)?
            } else {
                let mut alpha = vec![0.0; n];
                let dcd = DcdParams { seed: seed_of(problem), ..params.dcd.clone() };
                solve_svc(x, &labels, &c, loss, bias, &sq_norms, &dcd, &mut w, &mut alpha, control)?
            };
            control.problem_done();
            Ok((w, outcome))
        })
        .collect::<Result<_>>()?;
    let (weights, outcomes) = solved.into_iter().unzip();
    Ok(split_bias(weights, d, params, outcomes))
}

/// Fits a linear SVM regressor to targets `y`.
pub fn train_linear_svr(
    x: &Matrix, y: &[f64], sample_weight: &[f64], loss: SvrLoss, epsilon: f64, params: &LinearSvmParams,
    control: &Control,
) -> Result<LinearSvmFit> {
    check_common(x, y.len(), sample_weight, params)?;
    if let Some(i) = y.iter().position(|v| !v.is_finite()) {
        return Err(Error::InvalidData(format!("target {i} is {}: targets must be finite", y[i])));
    }
    match SparseRows::of_dense(x) {
        Some(copy) => fit_svr(&copy, y, sample_weight, loss, epsilon, params, control),
        None => fit_svr(x, y, sample_weight, loss, epsilon, params, control),
    }
}

/// The regressor's one problem over the rows `x` (the input or its copy).
fn fit_svr<R: Rows>(
    x: &R, y: &[f64], sample_weight: &[f64], loss: SvrLoss, epsilon: f64, params: &LinearSvmParams, control: &Control,
) -> Result<LinearSvmFit> {
    let (n, d) = (x.rows(), x.cols());
    control.plan(1);
    let c: Vec<f64> = sample_weight.iter().map(|s| params.c * s).collect();
    let mut w = vec![0.0; d + 1];
    let outcome = match (params.solver, loss) {
        (LinearSolver::Primal, SvrLoss::SquaredEpsilonInsensitive) => {
            let loss = PrimalLoss::SquaredEpsilonInsensitive { epsilon };
            solve_primal(x, y, &c, loss, params.bias(), params.dcd.tol, params.dcd.max_iter, &mut w, control)?
        }
        (LinearSolver::Primal, SvrLoss::EpsilonInsensitive) => {
            return Err(Error::InvalidParameter(
                "the epsilon-insensitive loss has no primal solver: solve its dual".into(),
            ))
        }
        (LinearSolver::Dual, _) => {
            let mut beta = vec![0.0; n];
            let norms = x.squared_norms();
            solve_svr(x, y, &c, loss, epsilon, params.bias(), &norms, &params.dcd, &mut w, &mut beta, control)?
        }
    };
    control.problem_done();
    Ok(split_bias(vec![w], d, params, vec![outcome]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsrMatrix, DenseView};
    use crate::runtime::rng::Rng;

    fn blobs(n: usize, k: usize, seed: u64) -> (Vec<f64>, Vec<usize>) {
        let mut rng = Rng::new(seed);
        let mut xs = Vec::with_capacity(n * 2);
        let mut y = Vec::with_capacity(n);
        for i in 0..n {
            let class = i % k;
            let angle = class as f64 * std::f64::consts::TAU / k as f64;
            xs.push(3.0 * angle.cos() + rng.below(1000) as f64 / 500.0 - 1.0);
            xs.push(3.0 * angle.sin() + rng.below(1000) as f64 / 500.0 - 1.0);
            y.push(class);
        }
        (xs, y)
    }

    #[test]
    fn one_vs_rest_and_crammer_singer_separate_blobs_whatever_the_threads() {
        let (n, k) = (240, 4);
        let (xs, y) = blobs(n, k, 1);
        let x = Matrix::Dense64(DenseView::new(&xs, n, 2).unwrap());
        let params = LinearSvmParams {
            c: 1.0,
            dcd: DcdParams { tol: 1e-5, max_iter: 1000, seed: 4 },
            intercept_scaling: Some(1.0),
            solver: LinearSolver::Dual,
        };
        for multi_class in [MultiClass::Ovr, MultiClass::CrammerSinger] {
            let fit = |threads: usize| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
                pool.install(|| {
                    train_linear_svc(
                        &x,
                        &y,
                        k,
                        &[1.0; 4],
                        &vec![1.0; n],
                        SvcLoss::SquaredHinge,
                        multi_class,
                        &params,
                        &Control::new(),
                    )
                })
                .unwrap()
            };
            let (one, two) = (fit(1), fit(2));
            assert_eq!(one, two);
            assert_eq!(
                (one.rows, one.cols, one.outcomes.len()),
                (k, 2, if multi_class == MultiClass::Ovr { k } else { 1 })
            );
            let predicted = |i: usize| {
                let score =
                    |m: usize| one.coef[m * 2] * xs[2 * i] + one.coef[m * 2 + 1] * xs[2 * i + 1] + one.intercept[m];
                (0..k).max_by(|&p, &q| score(p).total_cmp(&score(q))).unwrap()
            };
            assert!((0..n).all(|i| predicted(i) == y[i]), "{multi_class:?}");
        }
        // two classes: one problem, the second class positive
        let y2: Vec<usize> = y.iter().map(|&c| (c >= 2) as usize).collect();
        let binary = train_linear_svc(
            &x,
            &y2,
            2,
            &[1.0, 1.0],
            &vec![1.0; n],
            SvcLoss::Hinge,
            MultiClass::Ovr,
            &params,
            &Control::new(),
        )
        .unwrap();
        assert_eq!(binary.rows, 1);
        let bad = train_linear_svc(
            &x,
            &y2,
            2,
            &[1.0, -1.0],
            &vec![1.0; n],
            SvcLoss::Hinge,
            MultiClass::Ovr,
            &params,
            &Control::new(),
        );
        assert!(bad.unwrap_err().to_string().contains("class weight 1"));
    }

    #[test]
    fn mostly_zero_dense_rows_fit_as_their_sparse_form() {
        let (n, d) = (300, 8);
        let mut rng = Rng::new(5);
        let xs: Vec<f64> =
            (0..n * d).map(|_| if rng.below(4) == 0 { rng.below(1000) as f64 / 500.0 - 1.0 } else { 0.0 }).collect();
        let y: Vec<usize> = xs.chunks(d).map(|r| (r[0] + r[1] - r[2] > 0.0) as usize).collect();
        let dense = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
        assert!(SparseRows::of_dense(&dense).is_some());
        let csr = CsrMatrix::gather(&dense, &(0..n).collect::<Vec<_>>());
        for solver in [LinearSolver::Dual, LinearSolver::Primal] {
            let params = LinearSvmParams { c: 1.0, dcd: DcdParams::default(), intercept_scaling: Some(1.0), solver };
            let fit = |x: &Matrix| {
                let sw = vec![1.0; n];
                let (loss, ovr) = (SvcLoss::SquaredHinge, MultiClass::Ovr);
                train_linear_svc(x, &y, 2, &[1.0, 1.0], &sw, loss, ovr, &params, &Control::new()).unwrap()
            };
            assert_eq!(fit(&dense), fit(&csr.view()), "{solver:?}");
        }
    }

    #[test]
    fn the_regressor_finds_a_linear_rule() {
        let n = 200;
        let mut rng = Rng::new(2);
        let xs: Vec<f64> = (0..n * 2).map(|_| rng.below(2000) as f64 / 1000.0 - 1.0).collect();
        let y: Vec<f64> = (0..n).map(|i| 3.0 * xs[2 * i] - xs[2 * i + 1] + 2.0).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, 2).unwrap());
        let params = LinearSvmParams {
            c: 100.0,
            dcd: DcdParams::default(),
            intercept_scaling: Some(10.0),
            solver: LinearSolver::Dual,
        };
        let fit = train_linear_svr(&x, &y, &vec![1.0; n], SvrLoss::EpsilonInsensitive, 0.0, &params, &Control::new())
            .unwrap();
        assert!((fit.coef[0] - 3.0).abs() < 1e-2 && (fit.coef[1] + 1.0).abs() < 1e-2, "{fit:?}");
        assert!((fit.intercept[0] - 2.0).abs() < 1e-2, "{fit:?}");
        let bad = LinearSvmParams { c: 0.0, ..params };
        let err = train_linear_svr(&x, &y, &vec![1.0; n], SvrLoss::EpsilonInsensitive, 0.0, &bad, &Control::new());
        assert!(err.unwrap_err().to_string().contains("C must be positive"));
    }
}
