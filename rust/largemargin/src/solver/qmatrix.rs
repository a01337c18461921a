//! The Hessian of the signed dual as a decomposition solver sees it: rows over the solver's
//! current ordering of its variables (active ones first), served from the shared kernel cache.
//!
//! In the signed dual (Bordes 2010, PhD thesis, chapters 2 and 4) the Hessian is the kernel matrix itself
//! (no label signs), so classification reads kernel rows directly; epsilon-regression has two
//! variables per example (alpha+ in [0, C], alpha- in [-C, 0]) whose rows are the example's row.

use std::sync::Arc;

use crate::cache::shared_rows::SharedRows;
use crate::cache::{ClassRows, KernelCache};
use crate::kernel::{KernelEngine, Split};
use crate::runtime::vecops::prefetch_lines;

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

/// Entries of a one-vs-one pair's rows against the row's own class read from the rows that every
/// pair of the class shares (`ClassRows`), the others computed by the pair.
struct Segments<'e> {
    rows: &'e ClassRows<'e>,
    /// The class of the example at each position and its place among its class's members
    /// (swapped along with the positions).
    slot: Vec<(u32, u32)>,
}

/// The positions of a request's columns: a range (a row computed or extended), or a list (the
/// entries a symmetric extension lacks).
#[derive(Clone, Copy)]
enum Positions<'p> {
    Range(usize, usize),
    List(&'p [usize]),
}

/// The entries of a request against the other class: where they go, their columns and their
/// values (buffers kept between requests).
#[derive(Default)]
struct Cross {
    at: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<f32>,
}

impl Segments<'_> {
    /// `out[k]` = K(x_e, x_cols[k]) for the example e at position i, `positions` those of the
    /// columns, with the values `engine.row_split` gives: a request it would answer with a pass
    /// over all targets is computed so; otherwise every value is a direct visit's, whether read
    /// from the shared row or computed here.
    fn fill(
        &self, engine: &KernelEngine, i: usize, e: usize, cols: &[usize], positions: Positions, out: &mut [f32],
        split: Split, cross: &mut Cross,
    ) {
        let c = self.slot[i].0;
        if !self.rows.kept(c as usize) || !engine.visits_directly(e, cols.len()) {
            return engine.row_split(e, cols, out, split);
        }
        let members = self.rows.members(c as usize);
        let row = match self.rows.get(e) {
            Some(row) => row,
            // A row first asked for in part (over a shrunk active set) is computed whole only if
            // the part is at least half of it: the other pairs will read it, but this one may
            // never need the rest.
            None if OWN_ROW_SHARE * self.own(c, positions) >= members.len() => {
                self.rows.row(e, |row| engine.row_direct(e, members, row, split))
            }
            None => return engine.row_direct(e, cols, out, split),
        };
        // The row was computed by another pair, maybe long ago, and is read in the order of this
        // pair's positions: all its lines are asked for at once rather than one miss at a time.
        prefetch_lines(row);
        let n = match positions {
            Positions::Range(start, end) => {
                split_by_class(row, c, cols, self.slot[start..end].iter().copied(), out, cross)
            }
            Positions::List(list) => split_by_class(row, c, cols, list.iter().map(|&p| self.slot[p]), out, cross),
        };
        let Cross { at, cols: other, values } = cross;
        values.clear();
        values.resize(n, 0.0);
        engine.row_direct(e, &other[..n], values, split);
        for (&k, &v) in at[..n].iter().zip(values.iter()) {
            out[k] = v;
        }
    }
    /// How many of `positions` hold examples of class c.
    fn own(&self, c: u32, positions: Positions) -> usize {
        match positions {
            Positions::Range(start, end) => self.slot[start..end].iter().filter(|s| s.0 == c).count(),
            Positions::List(list) => list.iter().filter(|&&p| self.slot[p].0 == c).count(),
        }
    }
}

/// A row over the own class is computed whole if a request needs at least 1/OWN_ROW_SHARE of it.
const OWN_ROW_SHARE: usize = 2;

/// Fills `out` from the shared `row` of class `c` where the columns, of classes and places
/// `slots`, are of that class, and lists the others in `cross`; returns how many those are.
/// Branch-free, the classes being mixed after swaps: every entry is read from the row (its first
/// entry for the other class's, overwritten later) and every column is written to the list of the
/// other class's, which only those advance.
#[inline(always)]
fn split_by_class(
    row: &[f32], c: u32, cols: &[usize], slots: impl Iterator<Item = (u32, u32)>, out: &mut [f32], cross: &mut Cross,
) -> usize {
    let Cross { at, cols: other, .. } = cross;
    at.resize(cols.len(), 0);
    other.resize(cols.len(), 0);
    let mut n = 0;
    for (k, ((o, &t), (class, place))) in out.iter_mut().zip(cols).zip(slots).enumerate() {
        let own = (class == c) as usize;
        *o = row[place as usize & own.wrapping_neg()];
        at[n] = k;
        other[n] = t;
        n += 1 - own;
    }
    n
}

/// Where the entries an `ExampleQ` has not cached come from.
enum Fill<'e> {
    /// Computed by the engine.
    Engine,
    /// Gathered from shared domain rows, with each position's place in the domain.
    Shared(SharedSource<'e>, Vec<usize>),
    /// Against the row's own class from the rows its class's pairs share, the others computed.
    Segments(Segments<'e>, Cross),
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
    fill: Fill<'e>,
}

impl<'e, 'a> ExampleQ<'e, 'a> {
    /// Variables are the examples `examples` of the engine's matrix, in that order.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let cache = KernelCache::new(examples.len(), cache_bytes);
        Self::over(engine, examples, cache)
    }

    fn over(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache: KernelCache) -> Self {
        let diag = engine.diagonal(&examples);
        ExampleQ { engine, cache, examples, diag, scratch: Scratch::default(), split: Split::Pool, fill: Fill::Engine }
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
        self.fill = Fill::Shared(source, positions);
        self
    }
    /// Entries against a row's own class read from `rows` (which holds the examples' classes),
    /// shared with the other pairs of that class; the other entries computed.
    pub fn segmented(mut self, rows: &'e ClassRows<'e>) -> Self {
        let slot = self.examples.iter().map(|&e| (rows.class(e) as u32, rows.place(e) as u32)).collect();
        self.fill = Fill::Segments(Segments { rows, slot }, Cross::default());
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
            let (e, cols, out) = (self.examples[i], &self.examples[start..len], &mut buf[start..len]);
            match &mut self.fill {
                Fill::Engine => self.engine.row_split(e, cols, out, self.split),
                Fill::Shared(source, at) => source.fill(self.engine, at[i], &at[start..len], out),
                Fill::Segments(segments, cross) => {
                    segments.fill(self.engine, i, e, cols, Positions::Range(start, len), out, self.split, cross)
                }
            }
        }
    }

    /// Extends row i from `have` to `len` entries: those whose symmetric entry is cached are
    /// copied, only the others are computed.
    fn extend_from_symmetric(&mut self, i: usize, have: usize, len: usize) {
        let Scratch { known, missing, columns, computed } = &mut self.scratch;
        let positions = match &self.fill {
            Fill::Shared(_, at) => Some(at),
            _ => None,
        };
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
            match &mut self.fill {
                Fill::Engine => self.engine.row_split(self.examples[i], columns, computed, self.split),
                Fill::Shared(source, at) => source.fill(self.engine, at[i], columns, computed),
                Fill::Segments(segments, cross) => {
                    let positions = Positions::List(missing);
                    segments.fill(self.engine, i, self.examples[i], columns, positions, computed, self.split, cross)
                }
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
        match &mut self.fill {
            Fill::Engine => {}
            Fill::Shared(_, at) => at.swap(i, j),
            Fill::Segments(segments, _) => segments.slot.swap(i, j),
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

    /// The matrices of a one-vs-one problem's pairs reading their own-class entries from shared
    /// `ClassRows` serve, bit for bit, the rows of matrices computing every entry, under the same
    /// requests, swaps and extensions. The data is narrow and dense (a pass gives other last bits
    /// than a direct visit there), then mostly zero (held sparse: a visit's sum runs over the
    /// target's features, so K(a, b) and K(b, a) may differ in the last bits). With three
    /// classes, the first pair holds more than half of the examples, so that its long requests
    /// take a pass; with six, each class's rows serve five pairs: fewer evaluations, even with
    /// the requests at random over a shrinking active set (40% fewer on the dense data; on the
    /// sparse data, this small, the engine takes a pass for most whole rows).
    #[test]
    fn class_rows_serve_the_values_each_pair_computes() {
        for (width, zero_tenths) in [(5, 0), (40, 8)] {
            // (with three classes each class's rows serve one pair, the other visiting by passes)
            for (layout, most) in [(&[0, 0, 0, 0, 0, 1, 1, 1, 1, 2][..], 1.01), (&[0, 1, 2, 3, 4, 5][..], 0.85)] {
                let n = 300;
                let mut rng = Rng::new(11);
                let xs: Vec<f64> = (0..n * width)
                    .map(|_| if rng.below(10) < zero_tenths { 0.0 } else { rng.below(1000) as f64 / 500.0 })
                    .collect();
                let x = Matrix::Dense64(DenseView::new(&xs, n, width).unwrap());
                let class: Vec<usize> = (0..n).map(|e| layout[e % layout.len()]).collect();
                let k = class.iter().max().unwrap() + 1;
                let members: Vec<Vec<usize>> = (0..k).map(|c| (0..n).filter(|&e| class[e] == c).collect()).collect();
                let shared_engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.05 }).unwrap();
                let plain_engine = KernelEngine::new(x, KernelSpec::Rbf { gamma: 0.05 }).unwrap();
                let rows = ClassRows::new(&class, &members, 1 << 20);
                for (a, b) in (0..k).flat_map(|a| (a + 1..k).map(move |b| (a, b))) {
                    let examples: Vec<usize> = members[a].iter().chain(&members[b]).copied().collect();
                    let l = examples.len();
                    let mut shared = ExampleQ::new(&shared_engine, examples.clone(), 1 << 22).segmented(&rows);
                    let mut plain = ExampleQ::new(&plain_engine, examples, 1 << 22);
                    for step in 0..1500 {
                        // an active set shrinking and growing back: rows are extended, by a few
                        // entries (from symmetric ones) or many
                        let active = l - [0, 3, l / 5, l / 2][step / 100 % 4];
                        let i = rng.below(active);
                        if step % 5 == 0 {
                            let j = rng.below(active);
                            shared.swap(i, j);
                            plain.swap(i, j);
                            continue;
                        }
                        let got: Vec<u32> = shared.row(i, active).iter().map(|v| v.to_bits()).collect();
                        let want: Vec<u32> = plain.row(i, active).iter().map(|v| v.to_bits()).collect();
                        assert_eq!(got, want, "width {width}, {k} classes, pair ({a}, {b}), step {step}, row {i}");
                    }
                }
                let ratio = shared_engine.evals() as f64 / plain_engine.evals() as f64;
                assert!(ratio < most, "width {width}, {k} classes: {ratio} of the evaluations");
            }
        }
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
