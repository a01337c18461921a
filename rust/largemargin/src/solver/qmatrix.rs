//! The Hessian of the signed dual as a decomposition solver sees it: rows over the solver's
//! current ordering of its variables (active ones first), served from the shared kernel cache.
//!
//! In the signed dual (Bordes 2010, PhD thesis, chapters 2 and 4) the Hessian is the kernel matrix itself
//! (no label signs), so classification reads kernel rows directly; epsilon-regression has two
//! variables per example (alpha+ in [0, C], alpha- in [-C, 0]) whose rows are the example's row.

use std::sync::Arc;

use crate::cache::shared_rows::SharedRows;
use crate::cache::KernelCache;
use crate::kernel::{KernelEngine, Split};

/// Rows served from the whole rows of a domain that solvers on other threads read too (the folds
/// and values of C of a cross-validated search, see `SharedRows`): a row missing from a matrix's
/// own cache is gathered from its example's domain row, computed there first if need be.
#[derive(Clone, Copy)]
pub struct SharedSource<'e> {
    /// The cache of whole domain rows shared between the solvers.
    pub rows: &'e SharedRows,
    /// This matrix's domain in `rows`.
    pub domain: usize,
    /// The domain's examples (indices of the engine's matrix), ascending.
    pub members: &'e [usize],
}

impl SharedSource<'_> {
    /// The domain row at `position`.
    pub fn row(&self, engine: &KernelEngine, position: usize) -> Arc<[f32]> {
        let members = self.members;
        self.rows.row(self.domain, position, members.len(), |out| {
            engine.row_split(members[position], members, &mut out[..members.len()], Split::Pool)
        })
    }
    /// `out[k]` = entry `targets[k]` (domain positions) of the domain row at `position`.
    fn fill(&self, engine: &KernelEngine, position: usize, targets: &[usize], out: &mut [f32]) {
        let row = self.row(engine, position);
        for (o, &t) in out.iter_mut().zip(targets) {
            *o = row[t];
        }
    }
}

/// The dual's Hessian Q over a solver's variables, in an ordering the solver permutes with
/// `swap`; entries are f32, as the kernel cache stores them.
pub trait QMatrix {
    /// Number of variables.
    fn size(&self) -> usize;
    /// `Q[i][i]` at position i.
    fn diag(&self, i: usize) -> f64;
    /// `Q[i][0..len]` in the current ordering.
    fn row(&mut self, i: usize, len: usize) -> &[f32];
    /// Rows i and j at once (i != j), each of length len.
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]);
    /// Exchanges positions i and j.
    fn swap(&mut self, i: usize, j: usize);
}

/// One variable per example: positions map to examples of the engine's matrix.
pub struct ExampleQ<'e, 'a> {
    engine: &'e KernelEngine<'a>,
    cache: KernelCache,
    examples: Vec<usize>,
    diag: Vec<f64>,
    scratch: Scratch,
    split: Split<'e>,
    /// Rows from shared domain rows, with each position's place in the domain.
    shared: Option<(SharedSource<'e>, Vec<usize>)>,
}

impl<'e, 'a> ExampleQ<'e, 'a> {
    /// Variables are the examples `examples` of the engine's matrix, in that order.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let cache = KernelCache::new(examples.len(), cache_bytes);
        Self::over(engine, examples, cache)
    }

    fn over(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache: KernelCache) -> Self {
        let diag = engine.diagonal(&examples);
        ExampleQ { engine, cache, examples, diag, scratch: Scratch::default(), split: Split::Pool, shared: None }
    }

    /// The same over a cache of short rows (see `KernelCache::with_short_rows`).
    pub fn with_short_rows(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let cache = KernelCache::with_short_rows(examples.len(), cache_bytes);
        Self::over(engine, examples, cache)
    }
    /// Rows missing from the cache taken from `source`'s domain rows; `positions[t]` is the domain
    /// position of example t.
    pub fn shared(mut self, source: SharedSource<'e>, positions: Vec<usize>) -> Self {
        assert_eq!(positions.len(), self.examples.len(), "a domain position per example");
        self.shared = Some((source, positions));
        self
    }
    /// Rows computed split as `split` says (by default over the rayon pool).
    pub fn split(mut self, split: Split<'e>) -> Self {
        self.split = split;
        self
    }
    /// Marks the row at position i as the first to evict (a row computed once, for a rejected
    /// candidate, say).
    pub fn discard(&mut self, i: usize) {
        self.cache.discard(i);
    }
    /// Frees the row at position i.
    pub fn forget(&mut self, i: usize) {
        self.cache.forget(i);
    }
    fn ensure(&mut self, i: usize, len: usize) {
        // Where each request is dear whatever its length, the whole row is kept: the active set
        // growing back then finds it in the cache.
        let len = if self.engine.prefers_whole_rows() { self.examples.len() } else { len };
        let have = self.cache.len_of(i);
        // Symmetric entries can only be found in rows long enough to reach position i. Over short
        // rows (online solvers) any extension looks for them: a row computed when the expansion
        // set was small is extended by entries that later rows already hold.
        if have < len
            && i < self.cache.longest_row()
            && (self.cache.has_short_rows() || len - have <= SYMMETRIC_FILL_MAX)
        {
            return self.extend_from_symmetric(i, have, len);
        }
        let (buf, start) = self.cache.request(i, len);
        if start < len {
            match &self.shared {
                Some((source, at)) => source.fill(self.engine, at[i], &at[start..len], &mut buf[start..len]),
                None => self.engine.row_split(
                    self.examples[i],
                    &self.examples[start..len],
                    &mut buf[start..len],
                    self.split,
                ),
            }
        }
    }

    /// Extends row i from `have` to `len` entries: those whose symmetric entry is cached are
    /// copied, only the others are computed.
    fn extend_from_symmetric(&mut self, i: usize, have: usize, len: usize) {
        let Scratch { known, missing, columns, computed } = &mut self.scratch;
        let positions = self.shared.as_ref().map(|(_, at)| at);
        known.clear();
        known.resize(len - have, 0.0);
        missing.clear();
        columns.clear();
        for (k, p) in (have..len).enumerate() {
            match self.cache.row(p).get(i) {
                Some(&v) if p != i => known[k] = v,
                _ => {
                    missing.push(p);
                    columns.push(positions.map_or(self.examples[p], |at| at[p]));
                }
            }
        }
        computed.clear();
        computed.resize(missing.len(), 0.0);
        if !missing.is_empty() {
            match &self.shared {
                Some((source, at)) => source.fill(self.engine, at[i], columns, computed),
                None => self.engine.row_split(self.examples[i], columns, computed, self.split),
            }
        }
        // (the request may evict rows: the symmetric entries were copied out first)
        let (buf, _) = self.cache.request(i, len);
        buf[have..len].copy_from_slice(known);
        for (&p, &v) in missing.iter().zip(computed.iter()) {
            buf[p] = v;
        }
    }
}

/// Buffers of row extensions, kept between calls.
#[derive(Default)]
struct Scratch {
    known: Vec<f32>,
    missing: Vec<usize>,
    columns: Vec<usize>,
    computed: Vec<f32>,
}

/// Over full rows, extensions up to this long look for symmetric entries first (longer ones come
/// from an unshrunk active set, and a pass of the kernel engine computes them faster).
const SYMMETRIC_FILL_MAX: usize = 64;

impl QMatrix for ExampleQ<'_, '_> {
    fn size(&self) -> usize {
        self.examples.len()
    }
    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn row(&mut self, i: usize, len: usize) -> &[f32] {
        self.ensure(i, len);
        &self.cache.row(i)[..len]
    }
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.ensure(i, len);
        // i is now the most recently used row and the budget holds two full rows: j cannot evict it.
        self.ensure(j, len);
        (&self.cache.row(i)[..len], &self.cache.row(j)[..len])
    }
    fn swap(&mut self, i: usize, j: usize) {
        match self.split {
            Split::Team(team) => self.cache.swap_index_on(i, j, team),
            _ => self.cache.swap_index(i, j),
        }
        self.examples.swap(i, j);
        self.diag.swap(i, j);
        if let Some((_, at)) = &mut self.shared {
            at.swap(i, j);
        }
    }
}

/// The first `len` variables of another matrix, as a problem of their own (the positions beyond
/// are left alone: swaps stay within the prefix). `origin[t]` is the position, before any swap,
/// of what is now at position t.
pub struct Prefix<'q, Q: QMatrix + ?Sized> {
    inner: &'q mut Q,
    len: usize,
    /// For each position t of the prefix, the position it held before any swap.
    pub origin: Vec<usize>,
}

impl<'q, Q: QMatrix + ?Sized> Prefix<'q, Q> {
    /// The first `len` variables of `inner`, none moved yet. Panics if `len` exceeds its size.
    pub fn new(inner: &'q mut Q, len: usize) -> Self {
        assert!(len <= inner.size());
        Prefix { inner, len, origin: (0..len).collect() }
    }
}

impl<Q: QMatrix + ?Sized> QMatrix for Prefix<'_, Q> {
    fn size(&self) -> usize {
        self.len
    }
    fn diag(&self, i: usize) -> f64 {
        self.inner.diag(i)
    }
    fn row(&mut self, i: usize, len: usize) -> &[f32] {
        self.inner.row(i, len)
    }
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.inner.two_rows(i, j, len)
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.inner.swap(i, j);
        self.origin.swap(i, j);
    }
}

/// Two variables per example (epsilon-SVR): variable v < L is alpha+ of example v, v >= L is
/// alpha- of example v - L. Full example rows are cached once and gathered into the ordering.
pub struct PairedQ<'e, 'a> {
    engine: &'e KernelEngine<'a>,
    cache: KernelCache,
    examples: Vec<usize>,
    /// Position -> example slot (0..L) in `examples` (u32: the gather of every step reads it whole).
    slot: Vec<u32>,
    diag: Vec<f64>,
    buf: [Vec<f32>; 2],
    split: Split<'e>,
    /// Rows from shared domain rows, with each example slot's place in the domain.
    shared: Option<(SharedSource<'e>, Vec<usize>)>,
}

impl<'e, 'a> PairedQ<'e, 'a> {
    /// 2L variables over the L engine rows `examples`, alpha+ first then alpha-, both in that
    /// order; the example rows cached within `cache_bytes`.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let l = examples.len();
        let d = engine.diagonal(&examples);
        assert!(l <= u32::MAX as usize, "at most 2^32 - 1 examples");
        let slot: Vec<u32> = (0..2 * l).map(|v| (v % l) as u32).collect();
        let diag = slot.iter().map(|&s| d[s as usize]).collect();
        PairedQ {
            engine,
            cache: KernelCache::new(l, cache_bytes),
            examples,
            slot,
            diag,
            buf: [vec![0.0; 2 * l], vec![0.0; 2 * l]],
            split: Split::Pool,
            shared: None,
        }
    }
    /// Rows missing from the cache taken from `source`'s domain rows; `positions[s]` is the domain
    /// position of example s.
    pub fn shared(mut self, source: SharedSource<'e>, positions: Vec<usize>) -> Self {
        assert_eq!(positions.len(), self.examples.len(), "a domain position per example");
        self.shared = Some((source, positions));
        self
    }
    /// Rows computed split as `split` says (by default over the rayon pool).
    pub fn split(mut self, split: Split<'e>) -> Self {
        self.split = split;
        self
    }
    fn ensure_example(&mut self, s: usize) {
        let l = self.examples.len();
        let (buf, start) = self.cache.request(s, l);
        if start < l {
            match &self.shared {
                Some((source, at)) => source.fill(self.engine, at[s], &at[start..l], &mut buf[start..l]),
                None => {
                    self.engine.row_split(self.examples[s], &self.examples[start..l], &mut buf[start..l], self.split)
                }
            }
        }
    }
    /// Row i's example row gathered into the ordering, in `buf[which]`. On a team, each member
    /// gathers its part: the gather reads as much as the solver's passes over the row, and left to
    /// the caller alone it would be the one serial part of each step.
    fn gather(&mut self, which: usize, i: usize, len: usize) {
        let row = self.cache.row(self.slot[i] as usize);
        let slot = &self.slot[..len];
        let fill = |offset: usize, out: &mut [f32]| {
            let part = &slot[offset..offset + out.len()];
            for (o, &s) in out.iter_mut().zip(part) {
                *o = row[s as usize];
            }
        };
        match self.split {
            Split::Team(team) => team.for_chunks(&mut self.buf[which][..len], &fill),
            _ => fill(0, &mut self.buf[which][..len]),
        }
    }
}

impl QMatrix for PairedQ<'_, '_> {
    fn size(&self) -> usize {
        self.slot.len()
    }
    fn diag(&self, i: usize) -> f64 {
        self.diag[i]
    }
    fn row(&mut self, i: usize, len: usize) -> &[f32] {
        self.ensure_example(self.slot[i] as usize);
        self.gather(0, i, len);
        &self.buf[0][..len]
    }
    fn two_rows(&mut self, i: usize, j: usize, len: usize) -> (&[f32], &[f32]) {
        self.ensure_example(self.slot[i] as usize);
        self.ensure_example(self.slot[j] as usize);
        self.gather(0, i, len);
        self.gather(1, j, len);
        (&self.buf[0][..len], &self.buf[1][..len])
    }
    fn swap(&mut self, i: usize, j: usize) {
        self.slot.swap(i, j);
        self.diag.swap(i, j);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{DenseView, Matrix};
    use crate::kernel::KernelSpec;
    use crate::runtime::rng::Rng;

    /// Random row requests (growing as an expansion set does, with some long jumps), swaps and
    /// discards over a cache of short rows; with `check`, every row served is compared with the
    /// kernel. Returns (kernel evaluations by the rows, entries that were not cached in the row).
    fn drive(check: bool) -> (u64, u64) {
        let (n, d) = (300, 5);
        let mut rng = Rng::new(5);
        let xs: Vec<f64> = (0..n * d).map(|_| rng.below(1000) as f64 / 500.0).collect();
        let x = Matrix::Dense64(DenseView::new(&xs, n, d).unwrap());
        let engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.3 }).unwrap();
        let reference = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.3 }).unwrap();
        // a budget of about 150 rows of 250 entries: rows get evicted and come back
        let mut q = ExampleQ::with_short_rows(&engine, (0..n).collect(), 150_000);
        let mut at: Vec<usize> = (0..n).collect();
        let mut missing = 0u64;
        let base = engine.evals();
        for step in 0..4000 {
            // mostly rows of the set's members (positions below its size), as an online solver asks
            let size = (1 + step / 15).min(n);
            let i = if step % 5 == 0 { rng.below(n) } else { rng.below(size) };
            match step % 7 {
                0 => {
                    // entering or leaving the set: a swap with the position at its edge
                    let j = size - 1;
                    q.swap(i, j);
                    at.swap(i, j);
                }
                1 => q.discard(i),
                _ => {
                    let len = if step % 3 == 0 { (size + rng.below(40)).min(n) } else { size };
                    missing += (len - q.cache.len_of(i).min(len)) as u64;
                    let row = q.row(i, len).to_vec();
                    for (p, &v) in row.iter().enumerate().filter(|_| check) {
                        let want = reference.eval(at[i], at[p]) as f32;
                        assert!((v - want).abs() <= 1e-6, "step {step}: row {i} entry {p}: {v} vs {want}");
                    }
                }
            }
        }
        (engine.evals() - base, missing)
    }

    /// Rows extended from symmetric entries under growth, swaps and evictions hold the kernel
    /// values of the examples now at their positions, with fewer evaluations than entries added.
    #[test]
    fn short_rows_stay_exact_and_reuse_symmetric_entries() {
        drive(true);
        let (evals, missing) = drive(false);
        assert!(evals < missing * 9 / 10, "{evals} evaluations for {missing} entries");
    }
}
