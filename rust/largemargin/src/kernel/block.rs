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
//! for nearly equal rows: the rows are centred first (distances do not change), which brings the
//! norms down to the spread of the data, and where gamma times the norms is still so large that
//! the loss could show in float32 (`CANCELLATION_LIMIT`), the values that matter are computed
//! again as sums of squared differences.

use rayon::prelude::*;

use super::primitives::Store;
use super::scratch::with_panels;
use super::transform::transform_block_short;
use super::KernelSpec;
use crate::data::{Matrix, Real};

/// Rows of the register tile.
pub(crate) const MR: usize = 6;
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

/// Rows of a matrix to be read as dense float64: which matrix, which rows.
#[derive(Clone, Copy)]
pub(super) struct Rows<'m, 'a> {
    pub x: &'m Matrix<'a>,
    pub rows: &'m [usize],
}

/// Whether `block_values` computes `spec`: a built-in kernel that is a transform of one dot
/// product or squared distance.
pub(super) fn supports(spec: &KernelSpec) -> bool {
    matches!(spec, KernelSpec::Linear | KernelSpec::Rbf { .. } | KernelSpec::Poly { .. } | KernelSpec::Sigmoid { .. })
}

/// `out[r * cols.len() + c] = K(a_r, b_c)` for every row r of `a` and every row c of `b` (both of
/// `width` features), row groups in parallel over the rayon pool when `parallel`. `centre` (for a
/// distance kernel) is subtracted from every row before the product: the data's mean.
pub(super) fn block_values<S: Store>(
    spec: &KernelSpec, a: Rows, b: Rows, centre: Option<&[f64]>, width: usize, out: &mut [S], parallel: bool,
) {
    let (m, n) = (a.rows.len(), b.rows.len());
    assert_eq!(out.len(), m * n, "a value per pair");
    if m == 0 || n == 0 {
        return;
    }
    // each task takes a group of rows against every column; groups of at least MR rows, enough
    // of them for every thread (two each: one may wait on the other's memory)
    let threads = if parallel { rayon::current_num_threads() } else { 1 };
    let group = m.div_ceil(2 * threads).div_ceil(MR).max(1) * MR;
    let task = |(g, part): (usize, &mut [S])| {
        let rows = &a.rows[g * group..(g * group + group).min(m)];
        group_values(spec, Rows { x: a.x, rows }, b, centre, width, part);
    };
    if threads > 1 && m > group {
        out.par_chunks_mut(group * n).enumerate().for_each(task);
    } else {
        out.chunks_mut(group * n).enumerate().for_each(task);
    }
}

/// `block_values` for one group of rows, on the calling thread.
fn group_values<S: Store>(spec: &KernelSpec, a: Rows, b: Rows, centre: Option<&[f64]>, width: usize, out: &mut [S]) {
    let (m, n) = (a.rows.len(), b.rows.len());
    let panels = m.div_ceil(MR);
    let gamma = match *spec {
        KernelSpec::Rbf { gamma } => Some(gamma),
        _ => None,
    };
    let centre = if gamma.is_some() { centre } else { None };
    with_panels(|apack, bpack, strip| {
        pack(a.x, a.rows, width, MR, centre, apack);
        let a_norms = if gamma.is_some() { panel_norms(apack, m, width, MR) } else { Vec::new() };
        for c0 in (0..n).step_by(NC) {
            let nc = NC.min(n - c0);
            let cpanels = nc.div_ceil(NR);
            pack(b.x, &b.rows[c0..c0 + nc], width, NR, centre, bpack);
            let b_norms = if gamma.is_some() { panel_norms(bpack, nc, width, NR) } else { Vec::new() };
            let b_largest = b_norms.iter().fold(0.0f64, |m, &v| m.max(v));
            strip.clear();
            strip.resize(MR * cpanels * NR, 0.0);
            for p in 0..panels {
                let ap = &apack[p * MR * width..(p + 1) * MR * width];
                for q in 0..cpanels {
                    let bp = &bpack[q * NR * width..(q + 1) * NR * width];
                    dot_tile(ap, bp, width, &mut strip[q * NR..], cpanels * NR);
                }
                for r in 0..MR.min(m - p * MR) {
                    let row = p * MR + r;
                    let bases = &mut strip[r * cpanels * NR..][..nc];
                    if let Some(gamma) = gamma {
                        let na = a_norms[row];
                        for (v, &nb) in bases.iter_mut().zip(&b_norms) {
                            *v = na + nb - 2.0 * *v;
                        }
                        if gamma * (na + b_largest) * width as f64 > CANCELLATION_LIMIT {
                            for (c, v) in bases.iter_mut().enumerate() {
                                if gamma * *v < RECOMPUTE_BELOW {
                                    *v = panel_distance(ap, r, MR, &bpack[(c / NR) * NR * width..], c % NR, NR, width);
                                }
                            }
                        }
                    }
                    transform_block_short(spec, bases, &mut out[row * n + c0..row * n + c0 + nc]);
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

/// The mean of the rows of x (a centre for distances computed from dot products).
pub(super) fn mean_row(x: &Matrix) -> Vec<f64> {
    let (n, d) = (x.rows(), x.cols());
    let mut sum = vec![0.0f64; d];
    fn add<T: Real>(v: &[T], sum: &mut [f64]) {
        for (s, &x) in sum.iter_mut().zip(v) {
            *s += x.to_f64();
        }
    }
    for r in 0..n {
        match x {
            Matrix::Dense32(m) => add(m.row(r), &mut sum),
            Matrix::Dense64(m) => add(m.row(r), &mut sum),
            Matrix::Csr32(m) => m.row(r).0.iter().zip(m.row(r).1).for_each(|(&k, &v)| sum[k as usize] += v as f64),
            Matrix::Csr64(m) => m.row(r).0.iter().zip(m.row(r).1).for_each(|(&k, &v)| sum[k as usize] += v),
        }
    }
    sum.iter_mut().for_each(|s| *s /= n.max(1) as f64);
    sum
}

/// Packs `rows` of `x`, less `centre` if given, into panels of `group` rows: panel p holds,
/// feature by feature, the values of its `group` rows (zeros past the last row).
fn pack(x: &Matrix, rows: &[usize], width: usize, group: usize, centre: Option<&[f64]>, out: &mut Vec<f64>) {
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
        if let Some(c) = centre {
            for (f, &v) in c.iter().enumerate() {
                panel[f * group + slot] -= v;
            }
        }
    }
}

/// The MR x NR dot products of a packed row panel and a packed column panel over `width`
/// features, into `out[r * stride..][..NR]` for each row r of the tile.
#[inline]
fn dot_tile(a: &[f64], b: &[f64], width: usize, out: &mut [f64], stride: usize) {
    assert!(a.len() >= MR * width && b.len() >= NR * width && stride >= NR && out.len() >= (MR - 1) * stride + NR);
    #[cfg(target_arch = "x86_64")]
    if crate::runtime::vecops::has_avx2_fma() {
        // SAFETY: the processor has AVX2 and FMA (just checked); the panels hold `width` groups of
        // MR and NR values and `out` reaches row MR - 1 of the tile (asserted above).
        return unsafe { dot_tile_avx2(a, b, width, out, stride) };
    }
    let mut tile = [0.0f64; MR * NR];
    for k in 0..width {
        let (ak, bk) = (&a[k * MR..(k + 1) * MR], &b[k * NR..(k + 1) * NR]);
        for r in 0..MR {
            for c in 0..NR {
                tile[r * NR + c] += ak[r] * bk[c];
            }
        }
    }
    for r in 0..MR {
        out[r * stride..][..NR].copy_from_slice(&tile[r * NR..(r + 1) * NR]);
    }
}

/// `dot_tile` with twelve vector accumulators held in registers: per feature, two loads of the
/// column panel, six broadcasts of the row panel, twelve fused multiply-adds.
///
/// # Safety
/// The processor has AVX2 and FMA; `a` holds at least MR x width values, `b` NR x width, and
/// `out` at least (MR - 1) x stride + NR.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn dot_tile_avx2(a: &[f64], b: &[f64], width: usize, out: &mut [f64], stride: usize) {
    use std::arch::x86_64::*;
    let (pa, pb) = (a.as_ptr(), b.as_ptr());
    let mut c: [[__m256d; 2]; MR] = [[_mm256_setzero_pd(); 2]; MR];
    for k in 0..width {
        // SAFETY: k < width, so k * NR + 8 <= NR * width and k * MR + r < MR * width.
        let (b0, b1) = unsafe { (_mm256_loadu_pd(pb.add(k * NR)), _mm256_loadu_pd(pb.add(k * NR + 4))) };
        for (r, acc) in c.iter_mut().enumerate() {
            // SAFETY: as above.
            let av = unsafe { _mm256_broadcast_sd(&*pa.add(k * MR + r)) };
            acc[0] = _mm256_fmadd_pd(av, b0, acc[0]);
            acc[1] = _mm256_fmadd_pd(av, b1, acc[1]);
        }
    }
    let o = out.as_mut_ptr();
    for (r, acc) in c.iter().enumerate() {
        // SAFETY: r * stride + 8 <= (MR - 1) * stride + NR <= out.len().
        unsafe {
            _mm256_storeu_pd(o.add(r * stride), acc[0]);
            _mm256_storeu_pd(o.add(r * stride + 4), acc[1]);
        }
    }
}
