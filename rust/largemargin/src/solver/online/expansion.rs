//! The expansion set of the online kernel solvers (LaSVM, the Huller, kernel perceptrons): the
//! examples that carry a coefficient, held at the front of a kernel-row matrix so that a row
//! request of length |S| is exactly K(x, S). Entering or leaving the set is a swap of positions,
//! which the kernel cache follows.

use crate::error::{Error, Result};
use crate::kernel::{KernelEngine, Split};
use crate::solver::qmatrix::{ExampleQ, QMatrix};

/// Checks an online problem's labels: +1 or -1 (or NaN, "not known yet", where `unknown_allowed`),
/// one per example.
pub fn check_labels(y: &[f64], examples: usize, unknown_allowed: bool) -> Result<()> {
    if y.len() != examples {
        return Err(Error::InvalidData(format!("{} labels for {examples} examples", y.len())));
    }
    match y.iter().position(|&v| !(v == 1.0 || v == -1.0 || (unknown_allowed && v.is_nan()))) {
        Some(k) => Err(Error::InvalidData(format!("label {} of example {k} is not +1 or -1", y[k]))),
        None => Ok(()),
    }
}

/// The set S of an online kernel solver over some examples of an engine's data: S holds
/// positions 0..|S| of a kernel-row matrix, and a map between positions and problem indices
/// follows every swap.
pub struct ExpansionSet<'e, 'a> {
    q: ExampleQ<'e, 'a>,
    /// |S|: positions 0..len.
    len: usize,
    /// Problem index (into the examples given to `new`) at each position, and its inverse.
    at: Vec<usize>,
    pos_of: Vec<usize>,
}

impl<'e, 'a> ExpansionSet<'e, 'a> {
    /// An empty set over `examples` (engine rows), with a cache of short rows.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let n = examples.len();
        ExpansionSet {
            q: ExampleQ::with_short_rows(engine, examples, cache_bytes),
            len: 0,
            at: (0..n).collect(),
            pos_of: (0..n).collect(),
        }
    }
    /// Rows computed split as `split` says.
    pub fn split(mut self, split: Split<'e>) -> Self {
        self.q = self.q.split(split);
        self
    }
    /// |S|.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether S is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Makes positions 0..len the set (after the caller swapped the right examples there).
    pub fn set_len(&mut self, len: usize) {
        debug_assert!(len <= self.at.len());
        self.len = len;
    }
    /// Current position of problem index k.
    pub fn position(&self, k: usize) -> usize {
        self.pos_of[k]
    }
    /// Problem index at position p.
    pub fn index_at(&self, p: usize) -> usize {
        self.at[p]
    }
    /// K(x_p, x_p).
    pub fn diag(&self, p: usize) -> f64 {
        self.q.diag(p)
    }
    /// K(x_p, S).
    pub fn row(&mut self, p: usize) -> &[f32] {
        let len = self.len;
        self.q.row(p, len)
    }
    /// `sum_{s in S} weight[s] K(x_p, x_s)`, `weight` by position: an expansion's value at x_p.
    pub fn expand(&mut self, p: usize, weight: &[f64]) -> f64 {
        let len = self.len;
        let row = self.q.row(p, len);
        row.iter().zip(&weight[..len]).map(|(&k, &w)| w * k as f64).sum()
    }
    /// K(x_i, S) and K(x_j, S), i != j.
    pub fn two_rows(&mut self, i: usize, j: usize) -> (&[f32], &[f32]) {
        let len = self.len;
        self.q.two_rows(i, j, len)
    }
    /// The row at p will not be needed again soon (a rejected candidate's).
    pub fn discard(&mut self, p: usize) {
        self.q.discard(p)
    }
    /// Frees the row at p: an example turned away from (or taken out of) the set, whose row would
    /// otherwise be patched by every later swap until a next pass comes back to it; computing
    /// it again then costs less (LaRank on letter: faster, no more kernel evaluations in one
    /// pass). `discard` suits solvers that never take anything out of the set.
    pub fn forget(&mut self, p: usize) {
        self.q.forget(p)
    }
    /// Exchanges the examples at positions i and j (the caller swaps its own per-position data).
    pub fn swap(&mut self, i: usize, j: usize) {
        if i != j {
            self.q.swap(i, j);
            self.at.swap(i, j);
            self.pos_of[self.at[i]] = i;
            self.pos_of[self.at[j]] = j;
        }
    }
    /// The kernel-row matrix itself, for a solver run over the set's positions (the finishing
    /// step); `follow` must then be told how that run reordered the first positions.
    pub fn matrix(&mut self) -> &mut ExampleQ<'e, 'a> {
        &mut self.q
    }
    /// After `matrix()` was permuted within 0..origin.len(): position t holds what was at `origin[t]`.
    pub fn follow(&mut self, origin: &[usize]) {
        let moved: Vec<usize> = origin.iter().map(|&o| self.at[o]).collect();
        for (t, &k) in moved.iter().enumerate() {
            self.at[t] = k;
            self.pos_of[k] = t;
        }
    }
}
