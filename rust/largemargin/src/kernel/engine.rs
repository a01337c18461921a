//! The kernel engine: kernel values of any query row against any target rows, counted; it
//! chooses how it holds the targets and, per request, how it computes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;

use super::block::{block_values, supports, Cols, PackedRows, Rows};
use super::columns::{accumulate_fast, dense_dots_fast, Columns, DenseColumns, DENSE_COLUMNS_MAX_WIDTH};
use super::cost::*;
use super::direct::{direct_bases_fast, direct_gives_distance};
use super::primitives::{per_feature_table_fits, Store, BLOCK};
use super::scratch::{with_scratch, FULL_PASS};
use super::transform::transform_block;
use super::{ExternalKernel, KernelSpec, Query};
use crate::data::{CsrMatrix, Matrix};
use crate::error::{Error, Result};
use crate::runtime::team::Team;

/// How a long request is split over threads.
#[derive(Clone, Copy)]
pub enum Split<'t> {
    /// On the calling thread.
    Serial,
    /// Over the current rayon pool.
    Pool,
    /// Over a team that stays hot for a whole solve (one binary problem on every core).
    Team(&'t Team<'t>),
}

impl<'t> Split<'t> {
    /// Over `team` if it has helpers, else over the rayon pool.
    pub fn over(team: &'t Team<'t>) -> Self {
        if team.size() > 1 {
            Split::Team(team)
        } else {
            Split::Pool
        }
    }
}

/// A kernel over a set of target rows (training examples, or a model's support vectors): kernel
/// values of any query row against any targets, counted. The engine chooses how it holds the
/// targets: mostly-zero dense data gets a sparse copy, sparse data a column-major copy; what it
/// holds besides the borrowed data is reported by `extra_bytes` so callers can budget for it.
pub struct KernelEngine<'a> {
    pub(super) x: Matrix<'a>,
    pub(super) spec: KernelSpec,
    pub(super) sparse_copy: Option<CsrMatrix>,
    pub(super) columns: Option<Columns>,
    pub(super) dense_columns: Option<DenseColumns>,
    sqnorms: Vec<f64>,
    pub(super) evals: AtomicU64,
    /// The first failure of an external kernel; later requests are answered with zeros.
    failure: Mutex<Option<String>>,
    /// An external kernel's diagonal, asked for once (every solver over the engine needs it).
    external_diagonal: OnceLock<Vec<f64>>,
    /// The targets packed for the blocked product (see `blocked`).
    pub(super) packed: Option<PackedRows>,
}

impl<'a> KernelEngine<'a> {
    /// An engine over training data: a precomputed kernel must be square.
    pub fn new(x: Matrix<'a>, spec: KernelSpec) -> Result<Self> {
        check_square(&x, &spec)?;
        Self::over(x, spec)
    }

    /// An engine over training data whose internal copies take at most half of `budget` bytes
    /// (the kernel-cache budget they are charged to): a copy that would not fit is not made, and
    /// the engine works on the data as given while the cache keeps the memory.
    pub fn within(x: Matrix<'a>, spec: KernelSpec, budget: usize) -> Result<Self> {
        check_square(&x, &spec)?;
        Self::build(x, spec, budget / 2)
    }

    /// An engine over any target rows (for a precomputed or external kernel the targets are only
    /// indices).
    pub fn over(x: Matrix<'a>, spec: KernelSpec) -> Result<Self> {
        Self::build(x, spec, usize::MAX)
    }

    /// Builds the engine, making each internal copy only if its size fits in what is left of
    /// `room` bytes.
    fn build(x: Matrix<'a>, spec: KernelSpec, mut room: usize) -> Result<Self> {
        spec.validate()?;
        if let KernelSpec::External(k) = &spec {
            if k.len() != x.rows() {
                return Err(Error::InvalidData(format!(
                    "the external kernel {} is defined on {} examples, the data has {}",
                    k.name(),
                    k.len(),
                    x.rows()
                )));
            }
        }
        let mut fits = |bytes: usize| {
            let ok = bytes <= room;
            if ok {
                room -= bytes;
            }
            ok
        };
        let copies = spec.reads_features();
        let mut sparse_copy = None;
        if copies && !x.is_sparse() && x.cols() >= SPARSE_MIN_WIDTH && x.rows() > 0 {
            let nnz: usize = (0..x.rows())
                .map(|i| Query::row(&x, i))
                .map(|q| {
                    let mut c = 0;
                    q.for_each_nonzero(|_, _| c += 1);
                    c
                })
                .sum();
            if (nnz as f64) <= SPARSE_DENSITY * (x.rows() * x.cols()) as f64 && fits(nnz * 12 + (x.rows() + 1) * 8) {
                let all: Vec<usize> = (0..x.rows()).collect();
                sparse_copy = Some(CsrMatrix::gather(&x, &all));
            }
        }
        let targets = sparse_copy.as_ref().map_or(x, |c| c.view());
        let columns = match (copies, &targets) {
            (true, Matrix::Csr64(m))
                if per_feature_table_fits(m.cols(), m.indices().len())
                    && fits(m.indices().len() * 12 + (m.cols() + 1) * 8) =>
            {
                Some(Columns::build(m))
            }
            (true, Matrix::Csr32(m))
                if per_feature_table_fits(m.cols(), m.indices().len())
                    && fits(m.indices().len() * 12 + (m.cols() + 1) * 8) =>
            {
                Some(Columns::build(m))
            }
            _ => None,
        };
        // narrow dense data gets a feature-major copy even beside a sparse one: a query with few
        // zeros (a dense part, as Forest's ten measurements) streams its columns faster than it
        // scatters their entries
        let narrow_dense =
            !x.is_sparse() && x.cols() <= DENSE_COLUMNS_MAX_WIDTH && (sparse_copy.is_none() || has_dense_feature(&x));
        let dense_columns =
            if copies && narrow_dense && fits(x.rows() * x.cols() * 8) { DenseColumns::build(&x) } else { None };
        let sqnorms = if spec.needs_norms() { targets.squared_norms() } else { Vec::new() };
        // dense data for a built-in transform: every row of the targets computed by the blocked
        // product, over a packed copy of them; not mostly-zero dense data, whose sparse copy
        // computes one row for less than a block of one row costs
        let blocked = supports(&spec) && !x.is_sparse() && sparse_copy.is_none();
        let packed = (blocked && fits(x.rows() * (x.cols() + 1) * 8)).then(|| {
            let all: Vec<usize> = (0..x.rows()).collect();
            PackedRows::new(&x, &all, x.cols())
        });
        if let Some(i) = sqnorms.iter().position(|v| !v.is_finite()) {
            return Err(overflowing_norm(i));
        }
        Ok(KernelEngine {
            x,
            spec,
            sparse_copy,
            columns,
            dense_columns,
            sqnorms,
            evals: AtomicU64::new(0),
            failure: Mutex::new(None),
            external_diagonal: OnceLock::new(),
            packed,
        })
    }

    /// The data as given (the targets' rows, whatever copies the engine keeps).
    pub fn data(&self) -> Matrix<'a> {
        self.x
    }
    /// The kernel the engine computes.
    pub fn spec(&self) -> &KernelSpec {
        &self.spec
    }
    /// Number of target rows.
    pub fn rows(&self) -> usize {
        self.x.rows()
    }
    /// The targets as the engine computes with them.
    fn targets(&self) -> Matrix<'_> {
        self.sparse_copy.as_ref().map_or(self.x, |c| c.view())
    }
    /// Bytes held besides the borrowed data (internal copies and norms).
    pub fn extra_bytes(&self) -> usize {
        self.sparse_copy.as_ref().map_or(0, |c| c.data().len() * 12 + c.indptr().len() * 8)
            + self.packed.as_ref().map_or(0, PackedRows::bytes)
            + self.columns.as_ref().map_or(0, Columns::bytes)
            + self.dense_columns.as_ref().map_or(0, DenseColumns::bytes)
            + self.sqnorms.len() * 8
    }
    /// Whether each request costs about the same whatever its length (an external kernel's
    /// foreign call), so that callers had better ask for whole rows.
    pub fn prefers_whole_rows(&self) -> bool {
        matches!(self.spec, KernelSpec::External(_))
    }
    /// Kernel evaluations performed so far.
    pub fn evals(&self) -> u64 {
        self.evals.load(Ordering::Relaxed)
    }

    /// The first failure of an external kernel, if any: the values computed since are not
    /// meaningful, and callers return this error instead of a result.
    pub fn failure(&self) -> Option<Error> {
        let f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        f.as_ref().map(|m| Error::Kernel(m.clone()))
    }

    fn fail(&self, message: String) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(message);
        }
    }

    /// K(x_e, x_e) for the given target rows.
    pub fn diagonal(&self, rows: &[usize]) -> Vec<f64> {
        if let KernelSpec::External(k) = &self.spec {
            let d = self.external_diagonal.get_or_init(|| {
                self.evals.fetch_add(k.len() as u64, Ordering::Relaxed);
                let d = match k.diagonal() {
                    Ok(d) if d.len() == k.len() => d,
                    Ok(d) => {
                        self.fail(format!("{}: diagonal of length {}, expected {}", k.name(), d.len(), k.len()));
                        vec![0.0; k.len()]
                    }
                    Err(m) => {
                        self.fail(m);
                        vec![0.0; k.len()]
                    }
                };
                if let Some(p) = d.iter().position(|v| !v.is_finite()) {
                    self.fail(format!("{}: K({p}, {p}) is {}", k.name(), d[p]));
                }
                d
            });
            return rows.iter().map(|&e| d[e]).collect();
        }
        rows.iter().map(|&e| self.eval(e, e)).collect()
    }

    /// `out[k] = K(x_i, x_cols[k])` for a target row i (as many as `out` has room for). Panics if
    /// i or a column is not a target row: solvers call it in their inner loops with indices of
    /// their own, and a slice's bounds check is what guards them.
    pub fn row<S: Store>(&self, i: usize, cols: &[usize], out: &mut [S]) {
        self.row_split(i, cols, out, Split::Pool)
    }

    /// `row`, split over threads as `split` says (the values do not depend on it).
    pub fn row_split<S: Store>(&self, i: usize, cols: &[usize], out: &mut [S], split: Split) {
        if let KernelSpec::External(k) = &self.spec {
            return self.external_row(k.as_ref(), i, cols, out);
        }
        if self.blocked() {
            return self.block(&[i], cols, out, split);
        }
        let (q, sq) = self.target_query(i);
        let pass = self.full_pass_pays(&q, cols.len());
        self.compute(&q, sq, cols, out, split, pass);
    }

    /// Whether `row` computes a request of `requested` columns of target row i by visiting each
    /// requested target, as `row_direct` computes any request: a pass over all targets sums in
    /// another order, and its values may differ in the last bits. (False for an external
    /// kernel, which chooses its own way.)
    pub fn visits_directly(&self, i: usize, requested: usize) -> bool {
        if matches!(self.spec, KernelSpec::External(_)) {
            return false;
        }
        // (the blocked product's values do not depend on the request)
        self.blocked() || !self.full_pass_pays(&self.target_query(i).0, requested)
    }

    /// `row_split` visiting each requested target, however many: a request cut into parts gets
    /// the values `row` gives the whole where that visits them (`visits_directly`). Panics for an
    /// external kernel.
    pub fn row_direct<S: Store>(&self, i: usize, cols: &[usize], out: &mut [S], split: Split) {
        assert!(!matches!(self.spec, KernelSpec::External(_)), "an external kernel computes its own way");
        if self.blocked() {
            return self.block(&[i], cols, out, split);
        }
        let (q, sq) = self.target_query(i);
        self.compute(&q, sq, cols, out, split, false);
    }

    /// Target row i as a query, with its squared norm (0 if the kernel needs none).
    pub(super) fn target_query(&self, i: usize) -> (Query<'_>, f64) {
        let q = if self.spec.is_precomputed() { Query::row(&self.x, i) } else { Query::row(&self.targets(), i) };
        (q, self.sqnorms.get(i).copied().unwrap_or(0.0))
    }

    /// `out[k] = K(q, x_cols[k])` for an outside query (its squared norm given for RBF), on the
    /// calling thread.
    ///
    /// Errors, before anything is computed: `out` and `cols` differ in length; the kernel is
    /// external (it knows no outside rows); a dense query is not exactly as wide as the data; a
    /// column is not a target row. For a precomputed kernel the query is a row of the kernel
    /// matrix and `cols` name its entries: a dense row must have every one of them, a sparse row
    /// holds zeros where it has none. A sparse query may name features past the data's width:
    /// the data is zero there, so they add nothing to a dot product (they count in `q_sqnorm`).
    pub fn query<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S]) -> Result<()> {
        // (a max without early exit vectorises)
        let largest = cols.iter().fold(0usize, |m, &c| m.max(c));
        if !cols.is_empty() {
            if self.spec.is_precomputed() {
                if !q.is_sparse() && largest >= q.span() {
                    return Err(Error::InvalidData(format!(
                        "a precomputed kernel row of {} entries has no column {largest}",
                        q.span()
                    )));
                }
            } else if largest >= self.rows() {
                return Err(Error::InvalidData(format!("column {largest} asked of {} target rows", self.rows())));
            }
        }
        self.query_checked_columns(q, q_sqnorm, cols, out)
    }

    /// `query` for a caller that checked `cols` once for many queries (a prediction asks for the
    /// same support vectors with every test row): the other checks, O(1), are made. A column
    /// out of range would only panic, in a bounds-checked read.
    pub(crate) fn query_checked_columns<S: Store>(
        &self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S],
    ) -> Result<()> {
        if out.len() != cols.len() {
            return Err(Error::InvalidData(format!("{} outputs for {} columns", out.len(), cols.len())));
        }
        if let KernelSpec::External(k) = &self.spec {
            return Err(Error::Kernel(format!(
                "{}: an external kernel is evaluated on its own examples only",
                k.name()
            )));
        }
        if !self.spec.is_precomputed() && !q.is_sparse() && q.span() != self.x.cols() {
            return Err(Error::InvalidData(format!("the query has {} features, the data {}", q.span(), self.x.cols())));
        }
        self.compute(q, q_sqnorm, cols, out, Split::Serial, self.full_pass_pays(q, cols.len()));
        Ok(())
    }

    /// The kernel matrix of outside rows against all targets, row-major (q.rows() x rows()), rows
    /// in parallel. Errors as `query` does (dense rows of another width than the data's).
    pub fn cross(&self, q: &Matrix) -> Result<Vec<f64>> {
        let n = self.rows();
        let all: Vec<usize> = (0..n).collect();
        let mut out = vec![0.0f64; q.rows() * n];
        if n == 0 {
            return Ok(out);
        }
        if self.blocks_pay(q) && q.rows() > 0 {
            if q.cols() != self.x.cols() {
                return Err(Error::InvalidData(format!(
                    "the query has {} features, the data {}",
                    q.cols(),
                    self.x.cols()
                )));
            }
            let queries: Vec<usize> = (0..q.rows()).collect();
            self.evals.fetch_add((q.rows() * n) as u64, Ordering::Relaxed);
            // (the packed copy of the targets where the engine keeps one)
            let b = match &self.packed {
                Some(p) => Cols::Packed(p, 0, n),
                None => Cols::Rows(Rows { x: &self.x, rows: &all }),
            };
            let a = Rows { x: q, rows: &queries };
            block_values(&self.spec, a, b, self.x.cols(), &mut out, Split::Pool);
            return Ok(out);
        }
        out.par_chunks_mut(n).enumerate().try_for_each(|(i, row)| {
            let qi = Query::row(q, i);
            let sq = if self.spec.needs_norms() { qi.squared_norm() } else { 0.0 };
            self.query(&qi, sq, &all, row)
        })?;
        Ok(out)
    }

    /// K(x_i, x_j) for two target rows, through `row` (so it is counted in `evals`). Panics if
    /// either is not a target row.
    pub fn eval(&self, i: usize, j: usize) -> f64 {
        let mut v = [0.0f64];
        self.row(i, &[j], &mut v);
        v[0]
    }

    /// One foreign call per request: the whole row when a good part of it is wanted (the callee
    /// then sees the same full target set every time, and gathering rows on its side costs more
    /// than computing them), else the requested columns.
    fn external_row<S: Store>(&self, k: &dyn ExternalKernel, i: usize, cols: &[usize], out: &mut [S]) {
        self.evals.fetch_add(cols.len() as u64, Ordering::Relaxed);
        if self.failure.lock().map_or(true, |f| f.is_some()) {
            out.fill(S::default());
            return;
        }
        let n = self.x.rows();
        let whole = cols.len() * EXTERNAL_WHOLE_FRACTION >= n;
        let len = if whole { n } else { cols.len() };
        let outcome = with_scratch(&FULL_PASS, len, |buf| {
            let buf = &mut buf[..len];
            k.row(i, if whole { None } else { Some(cols) }, buf)?;
            if let Some(p) = buf.iter().position(|v| !v.is_finite()) {
                return Err(format!("{}: K({i}, {}) is {}", k.name(), if whole { p } else { cols[p] }, buf[p]));
            }
            if whole {
                for (o, &c) in out.iter_mut().zip(cols) {
                    *o = S::from_f64(buf[c]);
                }
            } else {
                for (o, &v) in out.iter_mut().zip(buf.iter()) {
                    *o = S::from_f64(v);
                }
            }
            Ok(())
        });
        if let Err(m) = outcome {
            self.fail(m);
            out.fill(S::default());
        }
    }

    /// Whether one pass over all targets beats visiting the requested ones. Over sparse data the
    /// pass reads only the columns of the query's features, in memory order, while a direct visit
    /// reads each requested row at a random place: from main memory that is dear, and the pass pays
    /// well below half the rows; from cache (a solver's active rows, visited again and again) it
    /// is not, and the pass pays near half the rows only.
    fn full_pass_pays(&self, q: &Query, requested: usize) -> bool {
        let n = self.x.rows();
        if !self.spec.reads_features() {
            return false;
        }
        if requested * FULL_PASS_FRACTION >= n {
            return true;
        }
        match &self.columns {
            Some(c) => {
                let per_row = (c.entries() as f64 / n.max(1) as f64).max(1.0);
                let visited = requested as f64 * per_row;
                let cost = if visited * SPARSE_ENTRY_BYTES <= cache_resident_bytes() {
                    DIRECT_VISIT_COST_CACHED
                } else {
                    DIRECT_VISIT_COST
                };
                let (touched, dense) = self.pass_costs(c, q);
                (touched.min(dense) + (n / 2) as f64) < cost * visited
            }
            None => false,
        }
    }

    /// A pass's cost over the sparse columns and over the dense ones (infinite without them), in
    /// sparse entries read in memory order: the entries of the query's features, against a dense
    /// column's values for each of its nonzero features.
    pub(super) fn pass_costs(&self, c: &Columns, q: &Query) -> (f64, f64) {
        let (mut touched, mut features) = (0usize, 0usize);
        q.for_each_nonzero(|f, _| {
            touched += c.column_len(f);
            features += 1;
        });
        let dense = match &self.dense_columns {
            Some(d) => (features * d.rows()) as f64 * DENSE_ENTRY_COST,
            None => f64::INFINITY,
        };
        (touched as f64, dense)
    }

    /// out[k] = K(q, x_cols[k]), by one pass over all targets if `pass`, else visiting them.
    fn compute<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S], split: Split, pass: bool) {
        debug_assert_eq!(cols.len(), out.len());
        self.evals.fetch_add(cols.len() as u64, Ordering::Relaxed);
        if self.spec.is_precomputed() {
            for (o, &c) in out.iter_mut().zip(cols) {
                *o = S::from_f64(q.get(c));
            }
            return;
        }
        if pass {
            return self.full_pass(q, q_sqnorm, cols, out, split);
        }
        // A direct visit of dense rows (held as given, as when the budget leaves no room for a
        // sparse copy) with a mostly-zero query: its nonzero entries alone, gathered from each
        // row. (A pass over all rows streams them faster whole.)
        let (mut idx, mut val) = (Vec::new(), Vec::new());
        let q = &match *q {
            Query::D64(v) if !self.targets().is_sparse() && self.targets().cols() >= SPARSE_MIN_WIDTH => {
                q.for_each_nonzero(|j, x| {
                    idx.push(j as i32);
                    val.push(x);
                });
                if (idx.len() as f64) <= SPARSE_DENSITY * v.len() as f64 {
                    Query::S64(&idx, &val)
                } else {
                    *q
                }
            }
            _ => *q,
        };
        let targets = self.targets();
        let with_norms = self.spec.uses_distance() && !direct_gives_distance(q, &targets);
        let dist = self.spec.uses_distance();
        self.fill_blocks(cols, out, split, q_sqnorm, with_norms, |cb, t| direct_bases_fast(q, &targets, cb, dist, t));
    }

    /// out[k] = K(q, x_cols[k]) block by block: `bases` writes a block's dot products (or
    /// squared distances), which become distances through the norms where `with_norms`, then
    /// kernel values. Long requests are split over the rayon pool.
    fn fill_blocks<S: Store>(
        &self, cols: &[usize], out: &mut [S], split: Split, q_sqnorm: f64, with_norms: bool,
        bases: impl Fn(&[usize], &mut [f64]) + Sync,
    ) {
        let run = |o: &mut [S], c: &[usize]| {
            let mut tmp = [0.0f64; BLOCK];
            let mut dist = [0.0f64; BLOCK];
            let mut value = [0.0f64; BLOCK];
            for (ob, cb) in o.chunks_mut(BLOCK).zip(c.chunks(BLOCK)) {
                let t = &mut tmp[..cb.len()];
                bases(cb, t);
                if let KernelSpec::Composite(comp) = &self.spec {
                    // the bases are dot products; distances come from them and the norms
                    let d = if self.sqnorms.is_empty() { &mut dist[..0] } else { &mut dist[..cb.len()] };
                    for ((v, &e), &dot) in d.iter_mut().zip(cb).zip(t.iter()) {
                        *v = (q_sqnorm + self.sqnorms[e] - 2.0 * dot).max(0.0);
                    }
                    let v = &mut value[..cb.len()];
                    comp.block(t, d, v);
                    for (o, &x) in ob.iter_mut().zip(v.iter()) {
                        *o = S::from_f64(x);
                    }
                    continue;
                }
                if with_norms {
                    for (v, &e) in t.iter_mut().zip(cb) {
                        *v = q_sqnorm + self.sqnorms[e] - 2.0 * *v;
                    }
                }
                transform_block(&self.spec, t, ob);
            }
        };
        split_chunks(split, out, &|offset, o| run(o, &cols[offset..offset + o.len()]));
    }

    /// Dot products (or dense squared distances) of q with every target, in memory order.
    fn all_bases(&self, q: &Query, base: &mut [f64], split: Split) {
        let n = base.len();
        let targets = self.targets();
        let dist = self.spec.uses_distance();
        // the cheaper copy for this query (both give the same sums, term by term in its order)
        let dense_pays = match (&self.columns, &self.dense_columns) {
            (Some(c), Some(_)) => {
                let (touched, dense) = self.pass_costs(c, q);
                dense <= touched
            }
            _ => true,
        };
        let fill = |lo: usize, part: &mut [f64]| {
            let hi = lo + part.len();
            match (&self.columns, &self.dense_columns) {
                (_, Some(cols)) if dense_pays => dense_dots_fast(cols, q, lo, hi, part),
                (Some(cols), _) => {
                    part.fill(0.0);
                    accumulate_fast(cols, q, lo, hi, lo == 0 && hi == n, part);
                }
                (None, Some(cols)) => dense_dots_fast(cols, q, lo, hi, part),
                (None, None) => {
                    let mut idx = [0usize; BLOCK];
                    for (b, block) in part.chunks_mut(BLOCK).enumerate() {
                        let first = lo + b * BLOCK;
                        for (k, v) in idx[..block.len()].iter_mut().enumerate() {
                            *v = first + k;
                        }
                        direct_bases_fast(q, &targets, &idx[..block.len()], dist, block);
                    }
                }
            }
        };
        split_chunks(split, base, &fill);
    }

    /// out[k] = K(q, x_cols[k]) through one pass over all targets.
    fn full_pass<S: Store>(&self, q: &Query, q_sqnorm: f64, cols: &[usize], out: &mut [S], split: Split) {
        let n = self.x.rows();
        let gives_dots =
            self.columns.is_some() || self.dense_columns.is_some() || !direct_gives_distance(q, &self.targets());
        let with_norms = self.spec.uses_distance() && gives_dots;
        with_scratch(&FULL_PASS, n, |base| {
            let base = &mut base[..n];
            self.all_bases(q, base, split);
            let base = &base[..];
            self.fill_blocks(cols, out, split, q_sqnorm, with_norms, |cb, t| {
                for (v, &e) in t.iter_mut().zip(cb) {
                    *v = base[e];
                }
            });
        });
    }
}

/// `f(offset, chunk)` over `out` cut as `split` says: over a team, in chunks of the pool, or whole.
fn split_chunks<T: Send>(split: Split, out: &mut [T], f: &(dyn Fn(usize, &mut [T]) + Sync)) {
    if let Split::Team(team) = split {
        return team.for_chunks(out, f);
    }
    let chunk = chunk_for(out.len(), matches!(split, Split::Pool));
    if chunk < out.len() {
        out.par_chunks_mut(chunk).enumerate().for_each(|(c, part)| f(c * chunk, part));
    } else {
        f(0, out);
    }
}

/// Whether some feature is nonzero in enough rows for a pass to read its dense column at less
/// cost than its sparse one (see `DENSE_ENTRY_COST`).
fn has_dense_feature(x: &Matrix) -> bool {
    let mut count = vec![0usize; x.cols()];
    for i in 0..x.rows() {
        Query::row(x, i).for_each_nonzero(|f, _| count[f] += 1);
    }
    count.iter().any(|&c| c as f64 > DENSE_ENTRY_COST * x.rows() as f64)
}

/// Training data for a precomputed kernel is the kernel matrix: square.
fn check_square(x: &Matrix, spec: &KernelSpec) -> Result<()> {
    if spec.is_precomputed() && x.rows() != x.cols() {
        return Err(Error::InvalidData(format!(
            "a precomputed kernel must be a square matrix, got {} x {}",
            x.rows(),
            x.cols()
        )));
    }
    Ok(())
}

/// A row whose squared norm overflows: its distance to every other row is infinite, and an RBF
/// kernel would silently become the identity (values of 1e154 and more, squared).
pub(crate) fn overflowing_norm(row: usize) -> Error {
    Error::InvalidData(format!(
        "the squared norm of row {row} overflows to infinity (values of about 1e154 or more): its kernel values \
         with every other row would be 0, whatever gamma; scale the data"
    ))
}
