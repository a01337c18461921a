//! Exact linear SVMs by dual coordinate descent (Hsieh, Chang, Lin, Keerthi and Sundararajan,
//! ICML 2008; Ho and Lin, JMLR 2012, for regression; Keerthi, Sundararajan, Chang, Hsieh and Lin,
//! KDD 2008, for Crammer and Singer's multiclass SVM), the method of LIBLINEAR:
//!
//! - `svc`: the L1-loss (hinge) and L2-loss (squared hinge) binary SVM;
//! - `svr`: the L1-loss (epsilon-insensitive) and L2-loss (squared) support vector regression;
//! - `crammer_singer`: one sub-problem per example over all the classes' variables at once.
//!
//! Every solver keeps w = sum_i alpha_i y_i x_i beside the dual variables, so that one coordinate
//! costs two passes over its row (the gradient `<w, x_i>` and the update `w += delta x_i`); the
//! rows are any `Rows`: a `Matrix` read in place (dense or CSR, f32 or f64), or the `SparseRows`
//! copy of mostly-zero dense rows (`rows`). The weights are f64. The
//! intercept is the weight of a constant feature `bias` appended to every row, regularised like
//! the others (as LIBLINEAR and scikit-learn define it). Each outer pass visits the active
//! variables in a new random order; variables at a bound whose projected gradient points out of
//! the box by more than the last pass's extremes leave the active set (shrinking), and a pass
//! that meets the stopping rule on a shrunk set starts again on all of them, so that the rule is
//! finally checked on every variable.

pub mod crammer_singer;
pub mod rows;
pub mod svc;
pub mod svr;

#[cfg(test)]
mod tests;

use crate::error::{Error, Result};
use crate::kernel::{dense_dot, gather_dot, Query};
use crate::runtime::rng::Rng;

pub use crammer_singer::solve_crammer_singer;
pub use rows::{Rows, SparseRows};
pub use svc::{solve_svc, SvcLoss};
pub use svr::{solve_svr, SvrLoss};

/// How a dual coordinate descent runs: its stopping rule and its cap.
#[derive(Clone, Debug)]
pub struct DcdParams {
    /// The stopping tolerance (LIBLINEAR's eps): for `svc`, the spread of the projected
    /// gradient (max - min); for `svr`, the violations' 1-norm relative to the first pass's; for
    /// `crammer_singer`, the largest spread of an example's gradients.
    pub tol: f64,
    /// The cap on the outer passes.
    pub max_iter: usize,
    /// Seeds the order of every pass.
    pub seed: u64,
}

impl Default for DcdParams {
    fn default() -> Self {
        DcdParams { tol: 1e-4, max_iter: 1000, seed: 0 }
    }
}

impl DcdParams {
    /// Rejects a tolerance that is not positive and finite, and a cap of 0.
    pub fn validate(&self) -> Result<()> {
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(Error::InvalidParameter(format!("tol must be positive, got {}", self.tol)));
        }
        if self.max_iter == 0 {
            return Err(Error::InvalidParameter("max_iter must be positive".into()));
        }
        Ok(())
    }
}

/// What one solve ended with.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DcdOutcome {
    /// The outer passes run.
    pub iterations: usize,
    /// The stopping rule was met on the whole set before the cap.
    pub converged: bool,
}

/// `<w, x_i>` plus the constant feature's share, `w[cols] * bias`; `w` is `cols + 1` long.
#[inline(always)]
pub(crate) fn row_dot(w: &[f64], row: Query, bias: f64) -> f64 {
    let d = w.len() - 1;
    let s = match row {
        Query::D64(v) => dense_dot(v, &w[..v.len()]),
        Query::D32(v) => dense_dot(v, &w[..v.len()]),
        Query::S64(j, v) => {
            assert!(j.last().is_none_or(|&l| (l as usize) < d), "a row wider than the weights");
            // SAFETY: a Query's sparse indices are non-negative and increasing, the last below d (asserted).
            unsafe { gather_dot(w, j, v) }
        }
        Query::S32(j, v) => {
            assert!(j.last().is_none_or(|&l| (l as usize) < d), "a row wider than the weights");
            // SAFETY: as above.
            unsafe { gather_dot(w, j, v) }
        }
    };
    s + w[d] * bias
}

/// `w += a (x_i, bias)`: the update of one coordinate.
#[inline(always)]
pub(crate) fn row_add(w: &mut [f64], a: f64, row: Query, bias: f64) {
    let d = w.len() - 1;
    match row {
        Query::D64(v) => w[..v.len()].iter_mut().zip(v).for_each(|(w, x)| *w += a * x),
        Query::D32(v) => w[..v.len()].iter_mut().zip(v).for_each(|(w, x)| *w += a * *x as f64),
        Query::S64(j, v) => {
            assert!(j.last().is_none_or(|&l| (l as usize) < d), "a row wider than the weights");
            for (&j, x) in j.iter().zip(v) {
                // SAFETY: every index is below d (asserted on the last, the largest).
                *unsafe { w.get_unchecked_mut(j as usize) } += a * x;
            }
        }
        Query::S32(j, v) => {
            assert!(j.last().is_none_or(|&l| (l as usize) < d), "a row wider than the weights");
            for (&j, x) in j.iter().zip(v) {
                // SAFETY: as above.
                *unsafe { w.get_unchecked_mut(j as usize) } += a * *x as f64;
            }
        }
    }
    w[d] += a * bias;
}

/// The variables a pass visits: a permutation whose first `len` entries are active. A variable
/// shrunk during a pass swaps places with the last active one, which the pass then visits in its
/// place (it had not been reached yet).
pub(crate) struct ActiveSet {
    order: Vec<usize>,
    len: usize,
}

impl ActiveSet {
    /// All of `variables`, in their order.
    pub(crate) fn new(variables: Vec<usize>) -> Self {
        let len = variables.len();
        ActiveSet { order: variables, len }
    }
    /// How many variables are active.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    /// Whether every variable is active.
    pub(crate) fn is_whole(&self) -> bool {
        self.len == self.order.len()
    }
    /// The active variable at position s of this pass.
    #[inline(always)]
    pub(crate) fn at(&self, s: usize) -> usize {
        self.order[s]
    }
    /// A new random order of the active variables, for the next pass.
    pub(crate) fn shuffle(&mut self, rng: &mut Rng) {
        rng.shuffle(&mut self.order[..self.len]);
    }
    /// Takes the variable at position s out of the active set.
    #[inline(always)]
    pub(crate) fn shrink(&mut self, s: usize) {
        self.len -= 1;
        self.order.swap(s, self.len);
    }
    /// Makes every variable active again.
    pub(crate) fn restore(&mut self) {
        self.len = self.order.len();
    }
}

/// Checks what every solver needs: rows and per-example bounds of the same count, bounds
/// nonnegative and finite, a finite bias feature.
pub(crate) fn check_problem(x: &impl Rows, targets: usize, c: &[f64], bias: f64) -> Result<()> {
    let n = x.rows();
    if targets != n || c.len() != n {
        return Err(Error::InvalidData(format!("{n} examples but {targets} targets and {} bounds", c.len())));
    }
    if let Some(i) = c.iter().position(|c| !(c.is_finite() && *c >= 0.0)) {
        return Err(Error::InvalidParameter(format!(
            "example {i}'s upper bound (C times its class and sample weights) is {}: it must be finite and nonnegative",
            c[i]
        )));
    }
    if !bias.is_finite() {
        return Err(Error::InvalidParameter(format!("intercept_scaling must be finite, got {bias}")));
    }
    Ok(())
}
