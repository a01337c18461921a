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
    ahead: RowsAhead,
}

/// Rows of examples about to be processed, computed as one block over S as it was then (a
/// block runs at the speed of the arithmetic units, a row at that of memory). When one of them
/// is asked for, the entries of examples still in S are read from it and only those of examples
/// that entered S since are computed.
#[derive(Default)]
struct RowsAhead {
    /// Problem index of each row of the block (usize::MAX once taken).
    rows: Vec<usize>,
    /// The block, `rows.len()` x `members.len()`.
    values: Vec<f32>,
    /// The problem indices of S when the block was computed, and the inverse: `slot[k]` is the
    /// column of problem index k (NONE if k was not in S).
    members: Vec<usize>,
    slot: Vec<u32>,
    /// Buffers of a row being assembled.
    row: Vec<f32>,
    missing: Vec<usize>,
}

const NONE: u32 = u32::MAX;
/// Rows computed ahead at once: enough for the product's register tiles and packing to pay,
/// few enough that S has changed little by the last of them.
pub const AHEAD_ROWS: usize = 32;
/// Below this |S| a row alone is cheap: nothing is computed ahead.
const AHEAD_MIN_LEN: usize = 2048;

impl<'e, 'a> ExpansionSet<'e, 'a> {
    /// An empty set over `examples` (engine rows), with a cache of short rows.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let n = examples.len();
        ExpansionSet {
            q: ExampleQ::with_short_rows(engine, examples, cache_bytes),
            len: 0,
            at: (0..n).collect(),
            pos_of: (0..n).collect(),
            ahead: RowsAhead::default(),
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
        self.take_ahead(p);
        let len = self.len;
        self.q.row(p, len)
    }
    /// `sum_{s in S} weight[s] K(x_p, x_s)`, `weight` by position: an expansion's value at x_p.
    pub fn expand(&mut self, p: usize, weight: &[f64]) -> f64 {
        self.take_ahead(p);
        let len = self.len;
        let row = self.q.row(p, len);
        row.iter().zip(&weight[..len]).map(|(&k, &w)| w * k as f64).sum()
    }
    /// Computes the rows over S of the examples `upcoming` (problem indices, the next to be asked
    /// for, in any order) as one block where that pays, and keeps them apart until asked for.
    /// Those in S or whose row is cached are left out; a block not used up is dropped.
    pub fn compute_ahead(&mut self, upcoming: &[usize]) {
        let len = self.len;
        if len < AHEAD_MIN_LEN {
            return;
        }
        let positions: Vec<usize> =
            upcoming.iter().map(|&k| self.pos_of[k]).filter(|&p| p >= len && !self.q.holds(p, len)).collect();
        if positions.len() < 2 {
            return;
        }
        let a = &mut self.ahead;
        for &k in &a.members {
            a.slot[k] = NONE;
        }
        a.values.clear();
        a.values.resize(positions.len() * len, 0.0);
        if !self.q.block_by_product(&positions, len, &mut a.values) {
            a.rows.clear();
            a.members.clear();
            return;
        }
        if a.slot.len() != self.at.len() {
            a.slot = vec![NONE; self.at.len()];
        }
        a.members.clear();
        a.members.extend_from_slice(&self.at[..len]);
        for (t, &k) in a.members.iter().enumerate() {
            a.slot[k] = t as u32;
        }
        a.rows.clear();
        a.rows.extend(positions.iter().map(|&p| self.at[p]));
    }

    /// Whether the row of problem index k waits in the block computed ahead.
    pub fn is_ahead(&self, k: usize) -> bool {
        self.ahead.rows.contains(&k)
    }

    /// Moves the row of the example at p (outside S) from the block computed ahead into the
    /// cache, with the entries of examples that entered S since computed.
    fn take_ahead(&mut self, p: usize) {
        let len = self.len;
        let k = self.at[p];
        let a = &mut self.ahead;
        let Some(r) = (p >= len).then(|| a.rows.iter().position(|&e| e == k)).flatten() else {
            return;
        };
        a.rows[r] = usize::MAX;
        if self.q.holds(p, len) {
            return;
        }
        let width = a.members.len();
        let values = &a.values[r * width..(r + 1) * width];
        a.row.clear();
        a.row.resize(len, 0.0);
        a.missing.clear();
        for (t, (v, &e)) in a.row.iter_mut().zip(&self.at[..len]).enumerate() {
            match a.slot[e] {
                NONE => a.missing.push(t),
                s => *v = values[s as usize],
            }
        }
        self.q.keep_row(p, &mut a.row, &a.missing);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::Matrix;
    use crate::kernel::KernelSpec;
    use crate::runtime::rng::Rng;

    /// Rows computed ahead, then read after S changed (examples entering, leaving, moving), hold
    /// K(x, S) as S is then: on mostly-zero dense data (single rows from the sparse copy, blocks by
    /// the product) and on dense data (both by the product).
    #[test]
    fn rows_computed_ahead_follow_the_set() {
        let (n, d) = (2600, 20);
        let mut rng = Rng::new(5);
        for mostly_zero in [true, false] {
            let data: Vec<f64> = (0..n * d)
                .map(|k| {
                    if mostly_zero && k % d > 3 && rng.below(10) > 0 {
                        0.0
                    } else {
                        rng.below(1000) as f64 / 250.0 - 2.0
                    }
                })
                .collect();
            let x = Matrix::dense(&data, n, d).unwrap();
            let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.1 }).unwrap();
            let mut set = ExpansionSet::new(&engine, (0..n).collect(), 64 << 20);
            set.set_len(AHEAD_MIN_LEN + 100);
            let upcoming: Vec<usize> = (2300..2300 + AHEAD_ROWS).collect();
            set.compute_ahead(&upcoming);
            assert!(upcoming.iter().all(|&k| set.is_ahead(k)), "mostly zero: {mostly_zero}");
            // one enters S, two leave it (swapped with the last), one moves
            let len = set.len();
            set.swap(set.position(2400), len);
            set.set_len(len + 1);
            for s in [7, 1000] {
                let last = set.len() - 1;
                set.swap(s, last);
                set.set_len(last);
            }
            set.swap(3, 50);
            for &k in &upcoming[..4] {
                let p = set.position(k);
                let members: Vec<usize> = (0..set.len()).map(|t| set.index_at(t)).collect();
                let mut expected = vec![0f32; members.len()];
                engine.row(k, &members, &mut expected);
                let got = set.row(p).to_vec();
                assert!(!set.is_ahead(k));
                for (t, (a, b)) in got.iter().zip(&expected).enumerate() {
                    assert!((a - b).abs() <= 1e-6, "entry {t} of example {k}: {a} against {b}");
                }
            }
        }
    }
}
