//! Training multiclass LaRank problems (and its baselines) over the shared kernel engine: epochs
//! in a seeded random order, or epochs until the duality gap is below C (LaRankGap); and the same
//! from candidate label sets (ambiguous supervision, `train_ambiguous`).

use crate::data::Matrix;
use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, KernelSpec};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::solver::larank::ambiguous::Bags;
use crate::solver::larank::{LaRank, LaRankParams, LaRankStats, Method};

/// How `train_larank` and `train_ambiguous` fit: the kernel, the solver's parameters and the
/// epochs.
#[derive(Clone, Debug)]
pub struct LaRankTrainParams {
    /// The kernel k(x, x') of the joint kernel k(x, x') delta(y, y').
    pub kernel: KernelSpec,
    /// C, tol, the method and the cache budget (the engine's copies are charged to it).
    pub solver: LaRankParams,
    /// Epochs to run, or (with `until_gap`) the most epochs to run.
    pub epochs: usize,
    /// Run epochs until the duality gap is below C (LaRankGap).
    pub until_gap: bool,
    /// Seeds the epochs' orders and the solver's random choices.
    pub seed: u64,
}

/// A fitted multiclass expansion: `S_y(x) = sum_k coef[k * classes + y] K(x, x_support[k])`.
#[derive(Clone, Debug, Default)]
pub struct LaRankFit {
    /// The support patterns, as row indices of the training data.
    pub support: Vec<usize>,
    /// The class coefficients beta of each support pattern, `classes` per pattern (averaged for
    /// the averaged perceptron).
    pub coef: Vec<f64>,
    /// The linear path's weight vectors (classes x features), when the kernel is linear.
    pub weights: Option<Vec<f64>>,
    /// The dual objective at the end (NaN for the perceptron and pairwise PA rules).
    pub dual: f64,
    /// The duality gap, when it was computed (until_gap), else NaN.
    pub gap: f64,
    /// (pattern, class) pairs with a nonzero coefficient.
    pub support_vectors: usize,
    /// Kernel values computed during the fit.
    pub kernel_evals: u64,
    /// The positive label of each support pattern (with bags: the candidate it was given).
    pub support_label: Vec<usize>,
    /// The solver's operation counters and per-epoch curves.
    pub stats: LaRankStats,
}

/// Fits one multiclass model on `x` with class indices `label` (0..classes) and per-example
/// weights of C (`weight`, empty for all ones). `warm` holds the
/// class coefficients of the data's first rows (row-major), which start in the model; the epochs
/// then visit the other rows only when `warm` is given.
pub fn train_larank(
    x: &Matrix, label: &[usize], weight: &[f64], classes: usize, params: &LaRankTrainParams, warm: Option<&[f64]>,
    control: &Control,
) -> Result<LaRankFit> {
    train(x, label, None, weight, classes, params, warm, control)
}

/// Fits one multiclass model from candidate label sets (`bags`, one per row of `x`): LaRank where
/// each pattern's positive label is its best-scoring candidate (see `solver::larank::ambiguous`). `warm`
/// as in `train_larank`; a warm row's positive label is its class with a positive coefficient.
pub fn train_ambiguous(
    x: &Matrix, bags: &Bags, weight: &[f64], classes: usize, params: &LaRankTrainParams, warm: Option<&[f64]>,
    control: &Control,
) -> Result<LaRankFit> {
    if bags.examples() != x.rows() {
        return Err(Error::InvalidData(format!("{} candidate label sets for {} examples", bags.examples(), x.rows())));
    }
    let label: Vec<usize> = (0..x.rows()).map(|e| bags.candidates(e).next().unwrap_or(0)).collect();
    train(x, &label, Some(bags), weight, classes, params, warm, control)
}

fn train(
    x: &Matrix, label: &[usize], bags: Option<&Bags>, weight: &[f64], classes: usize, params: &LaRankTrainParams,
    warm: Option<&[f64]>, control: &Control,
) -> Result<LaRankFit> {
    let n = x.rows();
    if n == 0 {
        return Err(Error::InvalidData("no examples".into()));
    }
    if params.epochs == 0 {
        return Err(Error::InvalidParameter("epochs must be positive".into()));
    }
    x.check_finite()?;
    let engine = KernelEngine::within(*x, params.kernel.clone(), params.solver.cache_bytes)?;
    let mut solver_params = params.solver.clone();
    solver_params.cache_bytes = solver_params.cache_bytes.saturating_sub(engine.extra_bytes());
    let mut solver = LaRank::new(&engine, *x, label.to_vec(), weight, classes, solver_params)?;
    if let Some(b) = bags {
        solver = solver.with_bags(b.clone(), params.seed ^ 0xA5A5)?;
    }
    let first_new = match warm {
        Some(w) => {
            solver.warm_start(w)?;
            w.len() / classes
        }
        None => 0,
    };
    let mut rng = Rng::new(params.seed);
    let mut order: Vec<usize> = (first_new..n).collect();
    let mut gap = f64::NAN;
    control.plan(params.epochs as u64); // progress in epochs (until_gap may stop before the last)
    for _ in 0..params.epochs {
        rng.shuffle(&mut order);
        solver.epoch(&order, &mut rng, control)?;
        control.problem_done();
        if let Some(e) = engine.failure() {
            return Err(e);
        }
        // the gap measures the beta-dual that LaRank solves; the other rules are not solvers of it
        let perceptron = matches!(params.solver.method, Method::Perceptron { .. } | Method::PairwisePA);
        if params.until_gap && !perceptron {
            gap = solver.duality_gap();
            solver.stats.gap_per_epoch.push(gap);
        } else {
            solver.settle();
        }
        let dual = solver.dual();
        solver.stats.dual_per_epoch.push(dual);
        if params.until_gap && gap < params.solver.c {
            break;
        }
        // later epochs of a warm start revisit the old patterns too
        if first_new > 0 && order.len() < n {
            order = (0..n).collect();
        }
    }
    if let Some(e) = engine.failure() {
        return Err(e);
    }
    let (support, coef) = solver.expansion();
    let support_label = support.iter().map(|&e| solver.label_of(e)).collect();
    Ok(LaRankFit {
        support,
        coef,
        weights: solver.weights().map(|w| w.to_vec()),
        dual: solver.dual(),
        gap,
        support_vectors: solver.support_vectors(),
        kernel_evals: engine.evals(),
        support_label,
        stats: solver.stats.clone(),
    })
}
