//! Copies of the targets by feature, for passes over all of them in memory order: column-major
//! sparse rows, feature-major narrow dense rows.

use super::Query;
use crate::data::{CsrView, DenseView, Matrix, Real};
use crate::runtime::vecops::avx2_fma;

/// Column-major copy of sparse target rows: for each feature, the rows that have it and their
/// values. With it, the dot products of one query with all targets are a sparse matrix-vector
/// product that streams memory in order and touches only shared features.
pub(super) struct Columns {
    start: Vec<usize>,
    row: Vec<u32>,
    value: Vec<f64>,
}

impl Columns {
    pub(super) fn build<T: Real>(m: &CsrView<T>) -> Self {
        let mut start = vec![0usize; m.cols() + 1];
        for &j in m.indices() {
            start[j as usize + 1] += 1;
        }
        for f in 0..m.cols() {
            start[f + 1] += start[f];
        }
        let mut next = start.clone();
        let mut row = vec![0u32; m.indices().len()];
        let mut value = vec![0.0; m.indices().len()];
        for r in 0..m.rows() {
            let (idx, val) = m.row(r);
            for (&j, &v) in idx.iter().zip(val) {
                let p = &mut next[j as usize];
                row[*p] = r as u32;
                value[*p] = v.to_f64();
                *p += 1;
            }
        }
        Columns { start, row, value }
    }
    pub(super) fn bytes(&self) -> usize {
        self.start.len() * 8 + self.row.len() * 12
    }
    pub(super) fn column_len(&self, f: usize) -> usize {
        if f + 1 < self.start.len() {
            self.start[f + 1] - self.start[f]
        } else {
            0
        }
    }
    pub(super) fn entries(&self) -> usize {
        self.row.len()
    }
    /// acc[r - lo] += <q, x_r> for target rows r in lo..hi (acc zeroed by the caller);
    /// `whole` says lo..hi covers every row.
    #[inline(always)]
    fn accumulate(&self, q: &Query, lo: usize, hi: usize, whole: bool, acc: &mut [f64]) {
        let features = self.start.len() - 1;
        q.for_each_nonzero(|f, v| {
            if f >= features {
                return; // no target has this feature
            }
            let (s, e) = (self.start[f], self.start[f + 1]);
            let rows = &self.row[s..e];
            let (a, b) = if whole {
                (0, rows.len())
            } else {
                (rows.partition_point(|&r| (r as usize) < lo), rows.partition_point(|&r| (r as usize) < hi))
            };
            for (&r, &w) in rows[a..b].iter().zip(&self.value[s + a..s + b]) {
                acc[r as usize - lo] += v * w;
            }
        });
    }
}

/// Feature-major copy of narrow dense target rows: one contiguous array per feature. The dot
/// products of a query with all targets are then `dim` vectorised axpy's over memory in order.
pub(super) struct DenseColumns {
    rows: usize,
    cols: usize,
    value: Vec<f64>,
}

/// Targets per tile of `DenseColumns::dots` (8 KB of sums).
const DOTS_TILE: usize = 1024;

/// Dense targets at most this wide get a feature-major copy for full passes.
pub(super) const DENSE_COLUMNS_MAX_WIDTH: usize = 64;

impl DenseColumns {
    pub(super) fn build(m: &Matrix) -> Option<Self> {
        fn fill<T: Real>(d: &DenseView<T>) -> DenseColumns {
            let mut value = vec![0.0; d.rows() * d.cols()];
            for r in 0..d.rows() {
                for (f, x) in d.row(r).iter().enumerate() {
                    value[f * d.rows() + r] = x.to_f64();
                }
            }
            DenseColumns { rows: d.rows(), cols: d.cols(), value }
        }
        match m {
            Matrix::Dense64(d) if d.cols() <= DENSE_COLUMNS_MAX_WIDTH => Some(fill(d)),
            Matrix::Dense32(d) if d.cols() <= DENSE_COLUMNS_MAX_WIDTH => Some(fill(d)),
            _ => None,
        }
    }
    pub(super) fn bytes(&self) -> usize {
        self.value.len() * 8
    }
    pub(super) fn rows(&self) -> usize {
        self.rows
    }
    /// acc[r - lo] = <q, x_r> for r in lo..hi.
    #[inline(always)]
    fn dots(&self, q: &Query, lo: usize, hi: usize, acc: &mut [f64]) {
        // The query's features (no target has those past `cols`), then tiles of targets small
        // enough for the sums to stay in the first-level cache while eight columns at a time are
        // streamed into them: the data is read once and the sums are not re-read per feature.
        // Each sum still adds its terms one by one in the query's order, as an axpy per feature
        // would: the values are the same to the last bit.
        let mut features = [(0usize, 0.0f64); DENSE_COLUMNS_MAX_WIDTH];
        let mut k = 0;
        q.for_each_nonzero(|f, v| {
            if f < self.cols && k < features.len() {
                features[k] = (f * self.rows, v);
                k += 1;
            }
        });
        let features = &features[..k];
        debug_assert_eq!(acc.len(), hi - lo);
        if features.is_empty() {
            acc.fill(0.0);
            return;
        }
        let mut start = lo;
        for tile in acc.chunks_mut(DOTS_TILE) {
            let span = start..start + tile.len();
            // the first group's sums start from 0 rather than from zeros written beforehand (no
            // pass to clear the sums; 0 + x is x, as the cleared sum plus x was)
            let mut fresh = true;
            let mut groups = features.chunks_exact(8);
            for g in &mut groups {
                let n = tile.len();
                // (each exactly n long: the loop below indexes them without bounds checks)
                let c: [&[f64]; 8] = std::array::from_fn(|t| &self.value[g[t].0 + span.start..][..n]);
                let v: [f64; 8] = std::array::from_fn(|t| g[t].1);
                let from_zero = std::mem::replace(&mut fresh, false);
                for (e, a) in tile.iter_mut().enumerate() {
                    let mut s = if from_zero { 0.0 } else { *a };
                    s += v[0] * c[0][e];
                    s += v[1] * c[1][e];
                    s += v[2] * c[2][e];
                    s += v[3] * c[3][e];
                    s += v[4] * c[4][e];
                    s += v[5] * c[5][e];
                    s += v[6] * c[6][e];
                    s += v[7] * c[7][e];
                    *a = s;
                }
            }
            for &(base, v) in groups.remainder() {
                let column = &self.value[base + span.start..base + span.end];
                if std::mem::replace(&mut fresh, false) {
                    tile.iter_mut().zip(column).for_each(|(a, &x)| *a = 0.0 + v * x);
                } else {
                    tile.iter_mut().zip(column).for_each(|(a, &x)| *a += v * x);
                }
            }
            start = span.end;
        }
    }
}

avx2_fma! {
    /// `Columns::accumulate`, built for AVX2+FMA when the processor has them.
    pub(super) fn accumulate_fast(c: &Columns, q: &Query, lo: usize, hi: usize, whole: bool, acc: &mut [f64]) {
        c.accumulate(q, lo, hi, whole, acc)
    }
}

avx2_fma! {
    /// `DenseColumns::dots`, built for AVX2+FMA when the processor has them.
    pub(super) fn dense_dots_fast(c: &DenseColumns, q: &Query, lo: usize, hi: usize, acc: &mut [f64]) {
        c.dots(q, lo, hi, acc)
    }
}
