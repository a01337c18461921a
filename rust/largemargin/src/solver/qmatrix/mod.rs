//! The Hessian of the signed dual as a decomposition solver sees it: rows over the solver's
//! current ordering of its variables (active ones first), served from the shared kernel cache.
//!
//! In the signed dual (Bordes 2010, PhD thesis, chapters 2 and 4) the Hessian is the kernel matrix itself
//! (no label signs), so classification reads kernel rows directly; epsilon-regression has two
//! variables per example (alpha+ in [0, C], alpha- in [-C, 0]) whose rows are the example's row.

use std::sync::Arc;

use crate::cache::shared_rows::SharedRows;
use crate::cache::{ClassRows, KernelCache};
use crate::kernel::{KernelEngine, PackedRows, Split, PACKED_ALIGN};
use crate::runtime::team::Team;
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
    /// How many rows over the first `len` positions the matrix computes at once when asked to
    /// (`prefetch`): 1 where it computes row by row.
    fn block_rows(&self, _len: usize) -> usize {
        1
    }
    /// Whether row i holds its first `len` entries already (a request computes nothing).
    fn holds(&self, _i: usize, _len: usize) -> bool {
        true
    }
    /// Computes the rows at `rows` (none held yet) over the first `len` positions as one block and
    /// keeps them: the solver's guess of the rows it will ask for next.
    fn prefetch(&mut self, _rows: &[usize], _len: usize) {}
    /// Keeps at most `rows` full rows from now on (where rows computed again by blocks cost less
    /// than memory touched for the first time).
    fn keep_at_most(&mut self, _rows: usize) {}
    /// How many rows over the first `len` positions the matrix keeps at once (0: it does not say).
    fn rows_held(&self, _len: usize) -> usize {
        0
    }
    /// `g[t] -= sum_k deltas[k] Q[rows[k]][t]` for every position t of g, split over `team`.
    fn subtract_rows(&mut self, rows: &[usize], deltas: &[f64], g: &mut [f64], team: &Team) {
        subtract_one_by_one(self, rows, deltas, g, team)
    }
}

/// `QMatrix::subtract_rows` a row at a time.
fn subtract_one_by_one<Q: QMatrix + ?Sized>(q: &mut Q, rows: &[usize], deltas: &[f64], g: &mut [f64], team: &Team) {
    for (&r, &d) in rows.iter().zip(deltas) {
        let row = q.row(r, g.len());
        team.for_chunks(g, &|offset, part| {
            for (x, &k) in part.iter_mut().zip(&row[offset..]) {
                *x -= d * k as f64;
            }
        });
    }
}

/// One variable per example: positions map to examples of the engine's matrix.
pub struct ExampleQ<'e, 'a> {
    engine: &'e KernelEngine<'a>,
    cache: KernelCache,
    examples: Vec<usize>,
    /// The examples packed in position order for the engine's blocked product, where it pays
    /// (rows computed by the engine then pack nothing; swapped with the positions).
    packed: Option<PackedRows>,
    diag: Vec<f64>,
    scratch: Scratch,
    split: Split<'e>,
    fill: Fill<'e>,
}

impl<'e, 'a> ExampleQ<'e, 'a> {
    /// Variables are the examples `examples` of the engine's matrix, in that order.
    pub fn new(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let (packed, cache_bytes) = Self::pack(engine, &examples, cache_bytes, false);
        let cache = KernelCache::new(examples.len(), cache_bytes);
        Self::over(engine, examples, cache, packed)
    }

    /// The examples packed for blocks where blocks pay and the copy takes at most a quarter of
    /// the budget, and what the budget leaves for the rows.
    /// `for_product`: also where the engine computes single rows another way (for
    /// `block_by_product`: solvers that know the rows they will ask for next).
    fn pack(
        engine: &KernelEngine, examples: &[usize], cache_bytes: usize, for_product: bool,
    ) -> (Option<PackedRows>, usize) {
        let bytes = examples.len() * (engine.data().cols() + 1) * std::mem::size_of::<f64>();
        if bytes > cache_bytes / 4 {
            return (None, cache_bytes);
        }
        let packed = if for_product { engine.pack_rows_for_product(examples) } else { engine.pack_rows(examples) };
        match packed {
            Some(p) => (Some(p), cache_bytes - bytes),
            None => (None, cache_bytes),
        }
    }

    fn over(
        engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache: KernelCache, packed: Option<PackedRows>,
    ) -> Self {
        let diag = engine.diagonal(&examples);
        let scratch = Scratch::default();
        ExampleQ { engine, cache, examples, packed, diag, scratch, split: Split::Pool, fill: Fill::Engine }
    }

    /// The same over a cache of short rows (see `KernelCache::with_short_rows`).
    pub fn with_short_rows(engine: &'e KernelEngine<'a>, examples: Vec<usize>, cache_bytes: usize) -> Self {
        let (packed, cache_bytes) = Self::pack(engine, &examples, cache_bytes, true);
        let cache = KernelCache::with_short_rows(examples.len(), cache_bytes);
        Self::over(engine, examples, cache, packed)
    }
    /// Rows missing from the cache taken from `source`'s domain rows; `positions[t]` is the domain
    /// position of example t.
    pub fn shared(mut self, source: SharedSource<'e>, positions: Vec<usize>) -> Self {
        assert_eq!(positions.len(), self.examples.len(), "a domain position per example");
        self.fill = Fill::Shared(source, positions);
        self.packed = None;
        self
    }
    /// Entries against a row's own class read from `rows` (which holds the examples' classes),
    /// shared with the other pairs of that class; the other entries computed.
    pub fn segmented(mut self, rows: &'e ClassRows<'e>) -> Self {
        let slot = self.examples.iter().map(|&e| (rows.class(e) as u32, rows.place(e) as u32)).collect();
        self.fill = Fill::Segments(Segments { rows, slot }, Cross::default());
        self.packed = None;
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
    /// Whether single rows and prefetched ones come by the blocked product from the packed copy.
    fn rows_by_blocks(&self) -> bool {
        self.packed.is_some() && self.engine.blocked()
    }

    /// K(positions `rows`, positions `0..len`), row-major, as one block by the engine's product
    /// (`KernelEngine::block_by_product`), for a solver that knows its next rows. False (nothing
    /// computed) where the rows come from elsewhere or the product cannot serve.
    pub fn block_by_product(&self, rows: &[usize], len: usize, out: &mut [f32]) -> bool {
        if !matches!(self.fill, Fill::Engine) || !self.engine.product_can_serve() {
            return false;
        }
        let examples: Vec<usize> = rows.iter().map(|&p| self.examples[p]).collect();
        match &self.packed {
            Some(packed) => self.engine.block_packed(&examples, packed, 0..len, out, self.split),
            None => self.engine.block_by_product(&examples, &self.examples[..len], out, self.split),
        }
        true
    }

    /// Keeps `values` as the first `values.len()` entries of row i, once the entries at positions
    /// `missing` (placeholders in `values`) are computed.
    pub fn keep_row(&mut self, i: usize, values: &mut [f32], missing: &[usize]) {
        if !missing.is_empty() {
            let Scratch { columns, computed, .. } = &mut self.scratch;
            columns.clear();
            columns.extend(missing.iter().map(|&p| self.examples[p]));
            computed.clear();
            computed.resize(missing.len(), 0.0);
            self.engine.row_split(self.examples[i], columns, computed, self.split);
            for (&p, &v) in missing.iter().zip(computed.iter()) {
                values[p] = v;
            }
        }
        let (buf, _) = self.cache.request(i, values.len());
        buf[..values.len()].copy_from_slice(values);
    }

    fn ensure(&mut self, i: usize, len: usize) {
        // Where each request is dear whatever its length, the whole row is kept: the active set
        // growing back then finds it in the cache.
        let len = if self.engine.prefers_whole_rows() { self.examples.len() } else { len };
        self.cache.sync(i);
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
                Fill::Engine => match self.packed.as_ref().filter(|_| self.engine.blocked()) {
                    Some(packed) => {
                        // from a packed panel's start: the entries before `start` are computed again
                        let from = start / PACKED_ALIGN * PACKED_ALIGN;
                        let tmp = &mut self.scratch.block;
                        tmp.clear();
                        tmp.resize(len - from, 0.0);
                        self.engine.block_packed(&[e], packed, from..len, tmp, self.split);
                        out.copy_from_slice(&tmp[start - from..]);
                    }
                    None => self.engine.row_split(e, cols, out, self.split),
                },
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
        let Scratch { known, missing, columns, computed, .. } = &mut self.scratch;
        let positions = match &self.fill {
            Fill::Shared(_, at) => Some(at),
            _ => None,
        };
        known.clear();
        known.resize(len - have, 0.0);
        missing.clear();
        columns.clear();
        for (k, p) in (have..len).enumerate() {
            match self.cache.entry(p, i) {
                Some(v) if p != i => known[k] = v,
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

/// Buffers of row extensions and blocks, kept between calls.
#[derive(Default)]
struct Scratch {
    known: Vec<f32>,
    missing: Vec<usize>,
    columns: Vec<usize>,
    computed: Vec<f32>,
    block: Vec<f32>,
}

/// Rows computed at once by `prefetch` at most: enough for the blocked product to run at the speed
/// of the arithmetic units (see `kernel::block`), few enough to be used before they are evicted.
const BLOCK_ROWS: usize = 128;
/// Rows shorter than this are not computed ahead: alone they are cheap already, and a small
/// problem asks for few of the rows a block would guess (letter's 325 pairs of about 1,200
/// examples took twice the time).
const PREFETCH_MIN_LEN: usize = 8192;
/// Gradient entries a working set's rows are subtracted from at once (8 KB).
const GRADIENT_TILE: usize = 1024;
/// A block takes at most 1/BLOCK_BUDGET_SHARE of the cache budget.
const BLOCK_BUDGET_SHARE: usize = 8;

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
    fn block_rows(&self, len: usize) -> usize {
        if !self.rows_by_blocks() || len < PREFETCH_MIN_LEN {
            return 1;
        }
        // Only where the budget holds a row for every active variable: a row computed ahead is
        // then kept until it is asked for. (With fewer rows, LRU evicts rows computed ahead before
        // their turn: at 32,000 dense rows and 200 MB, 4.5 times the kernel values of rows one by one.)
        let row_bytes = self.examples.len() * std::mem::size_of::<f32>();
        let held = self.cache.budget_bytes() / row_bytes;
        if held < len {
            return 1;
        }
        (held / BLOCK_BUDGET_SHARE).clamp(1, BLOCK_ROWS)
    }
    fn holds(&self, i: usize, len: usize) -> bool {
        self.cache.len_of(i) >= len
    }
    fn keep_at_most(&mut self, rows: usize) {
        self.cache.limit(rows * self.examples.len() * std::mem::size_of::<f32>());
    }
    fn rows_held(&self, _len: usize) -> usize {
        // (said only where rows come by blocks: a solver that plans on many rows needs them fast)
        match self.rows_by_blocks() {
            true => self.cache.budget_bytes() / (self.examples.len().max(1) * std::mem::size_of::<f32>()),
            false => 0,
        }
    }
    fn subtract_rows(&mut self, rows: &[usize], deltas: &[f64], g: &mut [f64], team: &Team) {
        let len = g.len();
        let missing: Vec<usize> = rows.iter().copied().filter(|&r| !self.holds(r, len)).collect();
        if self.rows_by_blocks() && !missing.is_empty() {
            self.prefetch(&missing, len);
        }
        for &r in &missing {
            self.ensure(r, len);
        }
        if rows.iter().any(|&r| !self.holds(r, len)) {
            // (a budget too short for the rows at once)
            return subtract_one_by_one(self, rows, deltas, g, team);
        }
        // every row held: each part of g takes all of them in tiles that stay in the first-level
        // cache
        let cache = &self.cache;
        let held: Vec<&[f32]> = rows.iter().map(|&r| &cache.row(r)[..len]).collect();
        team.for_chunks(g, &|offset, part| {
            for (t0, tile) in part.chunks_mut(GRADIENT_TILE).enumerate().map(|(k, c)| (offset + k * GRADIENT_TILE, c)) {
                for (row, &d) in held.iter().zip(deltas) {
                    for (x, &k) in tile.iter_mut().zip(&row[t0..]) {
                        *x -= d * k as f64;
                    }
                }
            }
        });
    }
    fn prefetch(&mut self, rows: &[usize], len: usize) {
        let examples: Vec<usize> = rows.iter().map(|&p| self.examples[p]).collect();
        match self.packed.as_ref().filter(|_| self.rows_by_blocks()) {
            // straight into the cache's rows
            Some(packed) => {
                let out = self.cache.request_many(rows, len);
                self.engine.block_packed_into(&examples, packed, 0..len, out, self.split);
            }
            None => {
                for &p in rows {
                    self.ensure(p, len);
                }
            }
        }
    }
    fn swap(&mut self, i: usize, j: usize) {
        match self.split {
            Split::Team(team) => self.cache.swap_index_on(i, j, team),
            _ => self.cache.swap_index(i, j),
        }
        self.examples.swap(i, j);
        self.diag.swap(i, j);
        if let Some(p) = &mut self.packed {
            p.swap(i, j);
        }
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
    fn block_rows(&self, len: usize) -> usize {
        self.inner.block_rows(len)
    }
    fn holds(&self, i: usize, len: usize) -> bool {
        self.inner.holds(i, len)
    }
    fn prefetch(&mut self, rows: &[usize], len: usize) {
        self.inner.prefetch(rows, len)
    }
    fn rows_held(&self, len: usize) -> usize {
        self.inner.rows_held(len)
    }
    fn keep_at_most(&mut self, rows: usize) {
        self.inner.keep_at_most(rows)
    }
    fn subtract_rows(&mut self, rows: &[usize], deltas: &[f64], g: &mut [f64], team: &Team) {
        self.inner.subtract_rows(rows, deltas, g, team)
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
mod tests;
