//! Kernel values of a block of rows against many columns at once, with the structure of a matrix
//! product (Goto and van de Geijn; BLIS): the rows and a chunk of the columns are packed into
//! contiguous panels, a register tile of MR x NR dot products runs over the shared features, and
//! the kernel's transform is applied to a strip of tiles while it is still in the first-level
//! cache. A row of the kernel matrix reads the whole data for 2d flops per value and runs at the
//! speed of memory; a block of q rows reads each packed column chunk once for q rows, and runs at
//! the speed of the arithmetic units.
//!
//! The arithmetic is float64 (the row path's too). Squared distances come from the norms and the
//! dot products, |x|^2 + |z|^2 - 2 x.z, which loses about 1e-16 (|x|^2 + |z|^2) to cancellation
//! for nearly equal rows: where gamma times the norms is so large that the loss could show in
//! float32 (`CANCELLATION_LIMIT`, never on standardized data), the values that matter are computed
//! again as sums of squared differences. A value depends on its pair of rows only, not on the
//! block, the data around it or the request: rows, blocks and parts of rows agree to the bit.

use std::sync::atomic::Ordering;
use std::sync::Mutex;

use rayon::prelude::*;

use super::cost::FULL_PASS_FRACTION;
use super::primitives::Store;
use super::scratch::with_panels;
use super::transform::transform_block;
use super::{KernelEngine, KernelSpec, Split};
use crate::data::{Matrix, Real};

/// Rows of the register tile.
const MR: usize = 6;
/// Columns of the register tile (two vectors of four float64).
const NR: usize = 8;
/// Columns packed at once: a chunk of NC x d float64 stays in the second-level cache while every
/// row of a task runs over it.
const NC: usize = 512;

/// Where gamma (|x|^2 + |z|^2) width exceeds this, cancellation may cost more than a float32
/// rounding in exp(-gamma |x - z|^2) (float64 sums lose about 1e-16 of the norms per term).
const CANCELLATION_LIMIT: f64 = 1e8;
/// ... and the values recomputed are those with gamma |x - z|^2 below this (the others are
/// below e^-60 whatever the error).
const RECOMPUTE_BELOW: f64 = 60.0;

/// Blocks of at least this many rows pack their columns as the product goes (it costs a pass over
/// them, as a row does); fewer rows against most targets read the packed copy of all of them.
const PACK_ROWS: usize = 48;

/// A block of rows against most targets is computed against all of them, at most this many bytes
/// of values at a time, then gathered.
const GATHER_BYTES: usize = 16 << 20;

/// Blocks of the engine's target rows.
impl KernelEngine<'_> {
    /// `out[k * cols.len() + c] = K(x_rows[k], x_cols[c])` for target rows, row-major: by the
    /// blocked product where it pays (`blocks_pay`), else row by row; split over threads as
    /// `split` says. Through the blocked product a value does not depend on the block it is
    /// computed in. Panics if `out` is not rows x cols long or an index is not a target row.
    pub fn block<S: Store>(&self, rows: &[usize], cols: &[usize], out: &mut [S], split: Split) {
        assert_eq!(out.len(), rows.len() * cols.len(), "a value per pair");
        if cols.is_empty() {
            return;
        }
        let Some(packed) = &self.packed else {
            for (o, &r) in out.chunks_mut(cols.len()).zip(rows) {
                self.row_split(r, cols, o, split);
            }
            return;
        };
        let n = self.rows();
        if cols.len() == n && cols.iter().enumerate().all(|(k, &c)| c == k) {
            // every target in order: the packed copy as it is
            return self.block_packed(rows, packed, 0..n, out, split);
        }
        if cols.len() * FULL_PASS_FRACTION < n || rows.len() >= PACK_ROWS {
            // few columns, or rows enough to pay for packing them: packed as the product goes
            self.evals.fetch_add((rows.len() * cols.len()) as u64, Ordering::Relaxed);
            let (a, b) = (Rows { x: &self.x, rows }, Cols::Rows(Rows { x: &self.x, rows: cols }));
            return block_values(&self.spec, a, b, self.x.cols(), out, split);
        }
        // most of them: against every target (packed once), then gathered, a few rows at a time
        let at_once = (GATHER_BYTES / (n * std::mem::size_of::<S>())).max(1);
        let mut all = vec![S::default(); at_once.min(rows.len()) * n];
        for (part, o) in rows.chunks(at_once).zip(out.chunks_mut(at_once * cols.len())) {
            let all = &mut all[..part.len() * n];
            self.block_packed(part, packed, 0..n, all, split);
            for (o, a) in o.chunks_mut(cols.len()).zip(all.chunks(n)) {
                for (v, &c) in o.iter_mut().zip(cols) {
                    *v = a[c];
                }
            }
        }
        // (counted as the values asked for, as a pass over all targets is)
        self.evals.fetch_sub((rows.len() * (n - cols.len())) as u64, Ordering::Relaxed);
    }

    /// `block`, by the blocked product wherever the data is dense and the kernel built in, also
    /// where single rows are computed another way (mostly-zero dense data, whose rows come from
    /// its sparse copy: a block of many rows costs less by the product). There the values may
    /// differ from `row`'s in the last bits. Elsewhere it is `block`.
    pub fn block_by_product<S: Store>(&self, rows: &[usize], cols: &[usize], out: &mut [S], split: Split) {
        if self.blocked() || !self.product_can_serve() {
            return self.block(rows, cols, out, split);
        }
        assert_eq!(out.len(), rows.len() * cols.len(), "a value per pair");
        if !cols.is_empty() {
            self.evals.fetch_add((rows.len() * cols.len()) as u64, Ordering::Relaxed);
            let (a, b) = (Rows { x: &self.x, rows }, Cols::Rows(Rows { x: &self.x, rows: cols }));
            block_values(&self.spec, a, b, self.x.cols(), out, split);
        }
    }

    /// Whether `block_by_product` can use the product: dense data, a built-in kernel.
    pub fn product_can_serve(&self) -> bool {
        supports(&self.spec) && !self.x.is_sparse()
    }

    /// Whether the engine computes every value among its targets by the blocked product (dense
    /// data for a built-in transform, with room in its budget for a packed copy): rows, blocks and
    /// parts of rows then all give the same value for a pair, whatever the request.
    pub fn blocked(&self) -> bool {
        self.packed.is_some()
    }

    /// Target rows `rows` packed for `block_packed` (their blocks then pack nothing), or None where
    /// the engine does not compute by blocks (`blocked`). They hold rows x features float64 values.
    pub fn pack_rows(&self, rows: &[usize]) -> Option<PackedRows> {
        self.blocked().then(|| PackedRows::new(&self.x, rows, self.x.cols()))
    }

    /// `pack_rows` wherever `block_by_product` can use the product (`product_can_serve`), also
    /// where the engine computes single rows another way.
    pub fn pack_rows_for_product(&self, rows: &[usize]) -> Option<PackedRows> {
        self.product_can_serve().then(|| PackedRows::new(&self.x, rows, self.x.cols()))
    }

    /// `block` against the packed rows at positions `cols` (whose start is a multiple of
    /// `PACKED_ALIGN`): the values `block` gives for the same rows. Panics if `out` is not
    /// rows x cols long, the range is not within `packed` or not aligned, or `packed` was packed
    /// by an engine over data of another width.
    pub fn block_packed<S: Store>(
        &self, rows: &[usize], packed: &PackedRows, cols: std::ops::Range<usize>, out: &mut [S], split: Split,
    ) {
        assert_eq!(out.len(), rows.len() * cols.len(), "a value per pair");
        self.evals.fetch_add((rows.len() * cols.len()) as u64, Ordering::Relaxed);
        let b = Cols::Packed(packed, cols.start, cols.len());
        block_values(&self.spec, Rows { x: &self.x, rows }, b, self.x.cols(), out, split);
    }

    /// `block_packed` into one slice per row (each `cols.len()` long): a cache's rows.
    pub fn block_packed_into<S: Store>(
        &self, rows: &[usize], packed: &PackedRows, cols: std::ops::Range<usize>, out: Vec<&mut [S]>, split: Split,
    ) {
        self.evals.fetch_add((rows.len() * cols.len()) as u64, Ordering::Relaxed);
        let b = Cols::Packed(packed, cols.start, cols.len());
        block_rows(&self.spec, Rows { x: &self.x, rows }, b, self.x.cols(), out, split);
    }

    /// Whether blocks of rows against queries from `q` are computed by the blocked product: a
    /// built-in transform kernel over dense data, given dense (mostly-zero dense data held as a
    /// sparse copy included: the product's flops cost less than a sparse pass's scattered reads
    /// at the widths dense data comes in).
    pub fn blocks_pay(&self, q: &Matrix) -> bool {
        supports(&self.spec) && !self.x.is_sparse() && !q.is_sparse()
    }
}

/// Rows of a matrix to be read as dense float64: which matrix, which rows.
#[derive(Clone, Copy)]
pub(super) struct Rows<'m, 'a> {
    pub x: &'m Matrix<'a>,
    pub rows: &'m [usize],
}

/// Rows packed once into the panels of a block's columns (with their squared norms), in
/// an order their owner changes by `swap`: a solver's variables, whose order its active set moves.
pub struct PackedRows {
    panels: Vec<f64>,
    norms: Vec<f64>,
    width: usize,
    len: usize,
}

impl PackedRows {
    /// `rows` of x.
    pub(super) fn new(x: &Matrix, rows: &[usize], width: usize) -> Self {
        let mut panels = Vec::new();
        pack(x, rows, width, NR, &mut panels);
        let norms = panel_norms(&panels, rows.len(), width, NR);
        PackedRows { panels, norms, width, len: rows.len() }
    }
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.len
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// Bytes held.
    pub fn bytes(&self) -> usize {
        (self.panels.len() + self.norms.len()) * std::mem::size_of::<f64>()
    }
    /// Exchanges the rows at positions i and j.
    pub fn swap(&mut self, i: usize, j: usize) {
        if i == j {
            return;
        }
        let at = |p: usize, k: usize| (p / NR) * NR * self.width + k * NR + p % NR;
        for k in 0..self.width {
            self.panels.swap(at(i, k), at(j, k));
        }
        self.norms.swap(i, j);
    }
}

/// The columns of a block: rows of a matrix, packed chunk by chunk as the product goes, or rows
/// packed beforehand (positions `start..start + len` of them, `start` a multiple of the panel
/// width `PACKED_ALIGN`).
#[derive(Clone, Copy)]
pub(super) enum Cols<'m, 'a> {
    Rows(Rows<'m, 'a>),
    Packed(&'m PackedRows, usize, usize),
}

/// The packed positions `KernelEngine::block_packed` starts at are multiples of this.
pub const PACKED_ALIGN: usize = NR;

impl Cols<'_, '_> {
    fn len(&self) -> usize {
        match self {
            Cols::Rows(r) => r.rows.len(),
            Cols::Packed(_, _, len) => *len,
        }
    }
    /// Columns c0..c0 + len of these (c0 a multiple of NR).
    fn sub(&self, c0: usize, len: usize) -> Self {
        match *self {
            Cols::Rows(r) => Cols::Rows(Rows { x: r.x, rows: &r.rows[c0..c0 + len] }),
            Cols::Packed(p, start, _) => Cols::Packed(p, start + c0, len),
        }
    }
}

/// Whether `block_values` computes `spec`: a built-in kernel that is a transform of one dot
/// product or squared distance.
pub(super) fn supports(spec: &KernelSpec) -> bool {
    matches!(spec, KernelSpec::Linear | KernelSpec::Rbf { .. } | KernelSpec::Poly { .. } | KernelSpec::Sigmoid { .. })
}

/// `out[r * cols.len() + c] = K(a_r, b_c)` for every row r of `a` and every column c of `b` (both
/// of `width` features), split as `split` says: groups of rows, and where they are too few for the
/// threads, ranges of columns too. A value does not depend on the block it is computed in (each
/// dot product sums its features in order).
pub(super) fn block_values<S: Store>(spec: &KernelSpec, a: Rows, b: Cols, width: usize, out: &mut [S], split: Split) {
    let n = b.len();
    assert_eq!(out.len(), a.rows.len() * n, "a value per pair");
    if n > 0 {
        block_rows(spec, a, b, width, out.chunks_mut(n).collect(), split);
    }
}

/// `block_values` into one slice per row (each `b.len()` long).
pub(super) fn block_rows<S: Store>(
    spec: &KernelSpec, a: Rows, b: Cols, width: usize, out: Vec<&mut [S]>, split: Split,
) {
    let (m, n) = (a.rows.len(), b.len());
    assert!(out.len() == m && out.iter().all(|r| r.len() == n), "a value per pair");
    if let Cols::Packed(p, start, len) = b {
        assert!(start % NR == 0 && start + len <= p.len && p.width == width, "packed columns out of range");
    }
    if m == 0 || n == 0 {
        return;
    }
    // two tasks a thread (one may wait on the other's memory): row groups of at least MR rows, then
    // column ranges of at least NC columns (whole panels)
    let threads = match split {
        Split::Serial => 1,
        Split::Pool => rayon::current_num_threads(),
        Split::Team(team) => team.size(),
    };
    let group = m.div_ceil(2 * threads).div_ceil(MR).max(1) * MR;
    let groups = m.div_ceil(group);
    let parts = (2 * threads).div_ceil(groups).min(n.div_ceil(NC)).max(1);
    let span = n.div_ceil(parts).div_ceil(NR) * NR;
    let mut tasks: Vec<Task<S>> = Vec::with_capacity(groups * parts);
    let mut out = out.into_iter();
    for g in 0..groups {
        let mut columns: Vec<Vec<&mut [S]>> = (0..parts).map(|_| Vec::new()).collect();
        for row in out.by_ref().take(group) {
            for (part, range) in columns.iter_mut().zip(row.chunks_mut(span)) {
                part.push(range);
            }
        }
        tasks.extend(
            columns
                .into_iter()
                .enumerate()
                .filter(|(_, part)| !part.is_empty())
                .map(|(p, part)| (g * group, p * span, part)),
        );
    }
    let run = |(r0, c0, mut rows_out): Task<S>| {
        let a = Rows { x: a.x, rows: &a.rows[r0..r0 + rows_out.len()] };
        let b = b.sub(c0, rows_out[0].len());
        group_values(spec, a, b, width, &mut rows_out);
    };
    match split {
        Split::Pool if tasks.len() > 1 => tasks.into_par_iter().for_each(run),
        Split::Team(team) if tasks.len() > 1 => {
            // each member takes every parts-th task (the caller also those of a member that did not
            // come): a busy processor delays nothing
            let tasks: Vec<Mutex<Option<Task<S>>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
            team.run(m * n, &|part, parts| {
                for task in tasks.iter().skip(part).step_by(parts) {
                    if let Some(t) = task.lock().unwrap_or_else(|p| p.into_inner()).take() {
                        run(t);
                    }
                }
            });
        }
        _ => tasks.into_iter().for_each(run),
    }
}

/// A task of `block_values`: its first row, its first column, and its rows' output ranges.
type Task<'o, S> = (usize, usize, Vec<&'o mut [S]>);

/// `block_values` for one task, on the calling thread: `out[r][c] = K(a_r, b_c)`.
fn group_values<S: Store>(spec: &KernelSpec, a: Rows, b: Cols, width: usize, out: &mut [&mut [S]]) {
    let (m, n) = (a.rows.len(), b.len());
    let panels = m.div_ceil(MR);
    let gamma = match *spec {
        KernelSpec::Rbf { gamma } => Some(gamma),
        _ => None,
    };
    with_panels(|apack, bpack, strip| {
        pack(a.x, a.rows, width, MR, apack);
        let a_norms = if gamma.is_some() { panel_norms(apack, m, width, MR) } else { Vec::new() };
        for c0 in (0..n).step_by(NC) {
            let nc = NC.min(n - c0);
            let cpanels = nc.div_ceil(NR);
            let own_norms: Vec<f64>;
            let (bp_all, b_norms): (&[f64], &[f64]) = match b.sub(c0, nc) {
                Cols::Rows(r) => {
                    pack(r.x, r.rows, width, NR, bpack);
                    own_norms = if gamma.is_some() { panel_norms(bpack, nc, width, NR) } else { Vec::new() };
                    (&bpack[..], &own_norms[..])
                }
                Cols::Packed(p, start, _) => (&p.panels[start * width..], &p.norms[start..start + nc]),
            };
            let b_largest = b_norms.iter().fold(0.0f64, |m, &v| m.max(v));
            strip.clear();
            strip.resize(MR * cpanels * NR, 0.0);
            for p in 0..panels {
                let ap = &apack[p * MR * width..(p + 1) * MR * width];
                let live = MR.min(m - p * MR);
                for q in 0..cpanels {
                    let bp = &bp_all[q * NR * width..(q + 1) * NR * width];
                    dot_tile(ap, bp, width, &mut strip[q * NR..], cpanels * NR, live);
                }
                for r in 0..MR.min(m - p * MR) {
                    let row = p * MR + r;
                    let bases = &mut strip[r * cpanels * NR..][..nc];
                    if let Some(gamma) = gamma {
                        let na = a_norms[row];
                        for (v, &nb) in bases.iter_mut().zip(b_norms) {
                            *v = na + nb - 2.0 * *v;
                        }
                        if gamma * (na + b_largest) * width as f64 > CANCELLATION_LIMIT {
                            // (decided per pair, so that a value does not depend on its block)
                            for (c, v) in bases.iter_mut().enumerate() {
                                let scale = gamma * (na + b_norms[c]) * width as f64;
                                if scale > CANCELLATION_LIMIT && gamma * *v < RECOMPUTE_BELOW {
                                    *v = panel_distance(ap, r, MR, &bp_all[(c / NR) * NR * width..], c % NR, NR, width);
                                }
                            }
                        }
                    }
                    transform_block(spec, bases, &mut out[row][c0..c0 + nc]);
                }
            }
        }
    });
}

/// The squared norms of the first `rows` rows packed in panels of `group`.
fn panel_norms(pack: &[f64], rows: usize, width: usize, group: usize) -> Vec<f64> {
    (0..rows)
        .map(|k| {
            let panel = &pack[(k / group) * group * width..][..group * width];
            (0..width).map(|f| panel[f * group + k % group].powi(2)).sum()
        })
        .collect()
}

/// The squared distance of slot `sa` of a panel of `ga` rows and slot `sb` of a panel of `gb`.
fn panel_distance(a: &[f64], sa: usize, ga: usize, b: &[f64], sb: usize, gb: usize, width: usize) -> f64 {
    (0..width).map(|f| (a[f * ga + sa] - b[f * gb + sb]).powi(2)).sum()
}

/// Packs `rows` of `x` into panels of `group` rows: panel p holds, feature by feature, the values
/// of its `group` rows (zeros past the last row).
fn pack(x: &Matrix, rows: &[usize], width: usize, group: usize, out: &mut Vec<f64>) {
    let panels = rows.len().div_ceil(group);
    out.clear();
    out.resize(panels * group * width, 0.0);
    fn dense<T: Real>(v: &[T], slot: usize, group: usize, panel: &mut [f64]) {
        for (k, &x) in v.iter().enumerate() {
            panel[k * group + slot] = x.to_f64();
        }
    }
    fn sparse<T: Real>((idx, val): (&[i32], &[T]), slot: usize, group: usize, panel: &mut [f64]) {
        for (&k, &x) in idx.iter().zip(val) {
            panel[k as usize * group + slot] = x.to_f64();
        }
    }
    for (k, &r) in rows.iter().enumerate() {
        let panel = &mut out[(k / group) * group * width..][..group * width];
        let slot = k % group;
        match x {
            Matrix::Dense32(m) => dense(m.row(r), slot, group, panel),
            Matrix::Dense64(m) => dense(m.row(r), slot, group, panel),
            Matrix::Csr32(m) => sparse(m.row(r), slot, group, panel),
            Matrix::Csr64(m) => sparse(m.row(r), slot, group, panel),
        }
    }
}

/// The dot products of the first `live` rows of a packed row panel (MR rows) and a packed column
/// panel (NR columns) over `width` features, into `out[r * stride..][..NR]` for each row r < live.
/// Every dot product is the sum of its terms one by one in the features' order from zero, whatever
/// `live` is (a value does not depend on the rows computed beside it), in LIBSVM's arithmetic: a
/// product rounded, then the sum rounded. With the norms summed the same way and the distance as
/// LIBSVM forms it, |x|^2 + |z|^2 - 2 x.z, the kernel values are LIBSVM's but for its exp.
#[inline]
fn dot_tile(a: &[f64], b: &[f64], width: usize, out: &mut [f64], stride: usize, live: usize) {
    assert!(a.len() >= MR * width && b.len() >= NR * width && stride >= NR && (1..=MR).contains(&live));
    assert!(out.len() >= (live - 1) * stride + NR);
    #[cfg(target_arch = "x86_64")]
    if crate::runtime::vecops::has_avx2_fma() {
        // SAFETY: the processor has AVX2 and FMA (just checked); the panels hold `width` groups of
        // MR and NR values and `out` reaches row `live - 1` of the tile (asserted above).
        unsafe {
            match live {
                1 => dot_tile_avx2::<1>(a, b, width, out, stride),
                2 => dot_tile_avx2::<2>(a, b, width, out, stride),
                3 => dot_tile_avx2::<3>(a, b, width, out, stride),
                4 => dot_tile_avx2::<4>(a, b, width, out, stride),
                5 => dot_tile_avx2::<5>(a, b, width, out, stride),
                _ => dot_tile_avx2::<MR>(a, b, width, out, stride),
            }
        }
        return;
    }
    let mut tile = [0.0f64; MR * NR];
    for k in 0..width {
        let (ak, bk) = (&a[k * MR..(k + 1) * MR], &b[k * NR..(k + 1) * NR]);
        for r in 0..live {
            for c in 0..NR {
                tile[r * NR + c] += ak[r] * bk[c];
            }
        }
    }
    for r in 0..live {
        out[r * stride..][..NR].copy_from_slice(&tile[r * NR..(r + 1) * NR]);
    }
}

/// `dot_tile` for the first R rows with 2R vector accumulators held in registers: per feature, two
/// loads of the column panel, R broadcasts of the row panel, 2R products and 2R sums.
///
/// # Safety
/// The processor has AVX2 and FMA; `a` holds at least MR x width values, `b` NR x width, and
/// `out` at least (R - 1) x stride + NR; R <= MR.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_tile_avx2<const R: usize>(a: &[f64], b: &[f64], width: usize, out: &mut [f64], stride: usize) {
    use std::arch::x86_64::*;
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut c: [[__m256d; 2]; R] = [[_mm256_setzero_pd(); 2]; R];
    for k in 0..width {
        // SAFETY: k < width, so k * NR + 8 <= NR * width and k * MR + r < MR * width (r < R <= MR).
        let (b0, b1) = unsafe { (_mm256_loadu_pd(pb.add(k * NR)), _mm256_loadu_pd(pb.add(k * NR + 4))) };
        for (r, acc) in c.iter_mut().enumerate() {
            // SAFETY: as above.
            let av = unsafe { _mm256_broadcast_sd(&*pa.add(k * MR + r)) };
            acc[0] = _mm256_add_pd(acc[0], _mm256_mul_pd(av, b0));
            acc[1] = _mm256_add_pd(acc[1], _mm256_mul_pd(av, b1));
        }
    }
    let o = out.as_mut_ptr();
    for (r, acc) in c.iter().enumerate() {
        // SAFETY: r * stride + 8 <= (R - 1) * stride + NR <= out.len().
        unsafe {
            _mm256_storeu_pd(o.add(r * stride), acc[0]);
            _mm256_storeu_pd(o.add(r * stride + 4), acc[1]);
        }
    }
}
