//! Training sequence labelers (LaRankGreedy, LaRankExact, passive-aggressive, structured
//! perceptron): epochs over the sequences in a seeded random order, or epochs until the duality
//! gap is below C.

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::sequence::{SeqModel, Sequences};
use crate::solver::larank::sequence::{SeqParams, SeqSolver};
use crate::solver::larank::LaRankStats;

/// How `train_sequence` fits: the solver's parameters and the epochs.
#[derive(Clone, Debug)]
pub struct SeqTrainParams {
    /// C, tol, the method, the inference and the Markov order.
    pub solver: SeqParams,
    /// Epochs to run, or (with `until_gap`) the most epochs to run.
    pub epochs: usize,
    /// Run epochs until the duality gap is below C (the thesis' "...Gap" variants).
    pub until_gap: bool,
    /// Seeds the epochs' orders and the solver's random choices.
    pub seed: u64,
}

/// A trained sequence labeler and what its training measured.
#[derive(Clone, Debug)]
pub struct SeqFit {
    /// The final weights (averaged for the averaged perceptron).
    pub model: SeqModel,
    /// The dual objective (NaN for the perceptron).
    pub dual: f64,
    /// The duality gap, when it was computed (until_gap), else NaN.
    pub gap: f64,
    /// Patterns (tokens for greedy inference, sequences for exact) with an output in the
    /// expansion; for the perceptron, those that caused an update.
    pub support_patterns: usize,
    /// (pattern, output) pairs with a nonzero coefficient; for the perceptron, two per update.
    pub support_vectors: usize,
    /// The solver's operation counters and per-epoch curves.
    pub stats: LaRankStats,
}

/// Fits one model on `data` with a label index (below `labels`) per token.
pub fn train_sequence(
    data: &Sequences, label: &[usize], labels: usize, params: &SeqTrainParams, control: &Control,
) -> Result<SeqFit> {
    if data.is_empty() || data.tokens() == 0 {
        return Err(Error::InvalidData("no sequences (or no tokens) to learn from".into()));
    }
    if params.epochs == 0 {
        return Err(Error::InvalidParameter("epochs must be positive".into()));
    }
    let mut solver = SeqSolver::new(*data, label, labels, params.solver.clone())?;
    let mut rng = Rng::new(params.seed);
    let mut order: Vec<usize> = (0..data.len()).collect();
    let mut gap = f64::NAN;
    control.plan(params.epochs as u64); // progress in epochs (until_gap may stop before the last)
    for _ in 0..params.epochs {
        rng.shuffle(&mut order);
        solver.epoch(&order, &mut rng, control)?;
        control.problem_done();
        let dual = solver.dual();
        solver.stats.dual_per_epoch.push(dual);
        if params.until_gap {
            gap = solver.duality_gap();
            solver.stats.gap_per_epoch.push(gap);
            if gap < params.solver.c {
                break;
            }
        }
    }
    Ok(SeqFit {
        model: solver.final_model(),
        dual: solver.dual(),
        gap,
        support_patterns: solver.support_patterns(),
        support_vectors: solver.support_vectors(),
        stats: solver.stats.clone(),
    })
}
