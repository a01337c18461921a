//! Kernel bases of one query with requested target rows, visiting those rows where they lie.

use super::primitives::{
    dense_dot, dense_sqdist, gather_dot, merge_dot, per_feature_table_fits, prefetch, PREFETCH_DISTANCE,
};
use super::scratch::{with_scratch, SCATTER};
use super::Query;
use crate::data::{CsrView, DenseView, Matrix, Real};
use crate::runtime::vecops::avx2_fma;
use crate::runtime::vecops::prefetch_lines;

/// Dot products (or, dense against dense for RBF, squared distances) of `q` with target rows
/// `cols`, visiting the targets directly.
#[inline(always)]
fn direct_bases(q: &Query, targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
    #[inline(always)]
    fn dense_targets<Q: Real, T: Real>(q: &[Q], t: &DenseView<T>, cols: &[usize], dist: bool, tmp: &mut [f64]) {
        for (k, (o, &c)) in tmp.iter_mut().zip(cols).enumerate() {
            if let Some(&ahead) = cols.get(k + PREFETCH_DISTANCE) {
                let r = t.row(ahead);
                prefetch(r.as_ptr());
                prefetch(r[r.len().saturating_sub(1)..].as_ptr());
            }
            let y = t.row(c);
            *o = if dist { dense_sqdist(q, y) } else { dense_dot(q, y) };
        }
    }
    #[inline(always)]
    fn sparse_targets<Q: Real, T: Real>(q: &[Q], t: &CsrView<T>, cols: &[usize], tmp: &mut [f64]) {
        // once per block: the rows' indices are below t.cols() (CsrView's invariant)
        assert!(q.len() >= t.cols(), "a query of {} features against data of {}", q.len(), t.cols());
        let indptr = t.indptr();
        for (k, (o, &c)) in tmp.iter_mut().zip(cols).enumerate() {
            // Two steps: a row's bounds first, so that when its entries are asked for their
            // address is at hand (a miss on the bounds would stall the whole loop there).
            if let Some(&far) = cols.get(k + 2 * PREFETCH_DISTANCE) {
                prefetch(indptr[far..].as_ptr());
            }
            if let Some(&ahead) = cols.get(k + PREFETCH_DISTANCE) {
                let (ai, av) = t.row(ahead);
                prefetch_lines(ai);
                prefetch_lines(av);
            }
            let (ti, tv) = t.row(c);
            // SAFETY: every index of a CsrView row is below t.cols() <= q.len() (asserted above).
            *o = unsafe { gather_dot(q, ti, tv) };
        }
    }
    #[inline(always)]
    fn on_dense_query<Q: Real>(q: &[Q], targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
        match targets {
            Matrix::Dense64(t) => dense_targets(q, t, cols, dist, tmp),
            Matrix::Dense32(t) => dense_targets(q, t, cols, dist, tmp),
            Matrix::Csr64(t) => sparse_targets(q, t, cols, tmp),
            Matrix::Csr32(t) => sparse_targets(q, t, cols, tmp),
        }
    }
    #[inline(always)]
    fn sparse_query<Q: Real>(idx: &[i32], val: &[Q], targets: &Matrix, cols: &[usize], tmp: &mut [f64]) {
        #[inline(always)]
        fn rows<Q: Real, T: Real>(idx: &[i32], val: &[Q], t: &DenseView<T>, cols: &[usize], tmp: &mut [f64]) {
            // once per block: a Query's sparse indices increase, so the last is the largest
            assert!(idx.last().is_none_or(|&j| (j as usize) < t.cols()), "a sparse query beyond the data's width");
            for (k, (o, &c)) in tmp.iter_mut().zip(cols).enumerate() {
                if let Some(&ahead) = cols.get(k + PREFETCH_DISTANCE) {
                    prefetch(t.row(ahead).as_ptr());
                }
                // SAFETY: every index is non-negative and at most the last, below t.cols() (asserted
                // above), and a DenseView row is t.cols() long.
                *o = unsafe { gather_dot(t.row(c), idx, val) };
            }
        }
        match targets {
            Matrix::Dense64(t) => rows(idx, val, t, cols, tmp),
            Matrix::Dense32(t) => rows(idx, val, t, cols, tmp),
            _ => unreachable!("dense targets only"),
        }
    }
    /// A sparse query against sparse targets by merging indices (see `per_feature_table_fits`).
    #[inline(always)]
    fn merge_rows<Q: Real>(idx: &[i32], val: &[Q], targets: &Matrix, cols: &[usize], tmp: &mut [f64]) {
        #[inline(always)]
        fn rows<Q: Real, T: Real>(idx: &[i32], val: &[Q], t: &CsrView<T>, cols: &[usize], tmp: &mut [f64]) {
            for (o, &c) in tmp.iter_mut().zip(cols) {
                let (ti, tv) = t.row(c);
                *o = merge_dot(idx, val, ti, tv);
            }
        }
        match targets {
            Matrix::Csr64(t) => rows(idx, val, t, cols, tmp),
            Matrix::Csr32(t) => rows(idx, val, t, cols, tmp),
            _ => unreachable!("sparse targets only"),
        }
    }
    let width = targets.cols();
    let fits = |idx: &[i32]| idx.last().is_none_or(|&j| (j as usize) < width);
    let too_wide_to_scatter = || match targets {
        Matrix::Csr64(t) => !per_feature_table_fits(t.cols(), t.indices().len()),
        Matrix::Csr32(t) => !per_feature_table_fits(t.cols(), t.indices().len()),
        _ => false,
    };
    match *q {
        Query::D64(v) => on_dense_query(v, targets, cols, dist && !targets.is_sparse(), tmp),
        Query::D32(v) => on_dense_query(v, targets, cols, dist && !targets.is_sparse(), tmp),
        // a sparse query against dense rows reads only the entries of its own features
        Query::S64(i, v) if !targets.is_sparse() && fits(i) => sparse_query(i, v, targets, cols, tmp),
        Query::S32(i, v) if !targets.is_sparse() && fits(i) => sparse_query(i, v, targets, cols, tmp),
        Query::S64(i, v) if too_wide_to_scatter() => merge_rows(i, v, targets, cols, tmp),
        Query::S32(i, v) if too_wide_to_scatter() => merge_rows(i, v, targets, cols, tmp),
        // (a sparse query's features past the targets' width meet zeros there: left out)
        _ => with_scratch(&SCATTER, width, |buf| {
            let buf = &mut buf[..width];
            q.for_each_nonzero(|j, v| {
                if j < width {
                    buf[j] = v
                }
            });
            on_dense_query(buf, targets, cols, false, tmp);
            q.for_each_nonzero(|j, _| {
                if j < width {
                    buf[j] = 0.0
                }
            });
        }),
    }
}

avx2_fma! {
    /// `direct_bases`, built for AVX2+FMA when the processor has them.
    pub(super) fn direct_bases_fast(q: &Query, targets: &Matrix, cols: &[usize], dist: bool, tmp: &mut [f64]) {
        direct_bases(q, targets, cols, dist, tmp)
    }
}

/// Whether `direct_bases` produced squared distances (else dot products) for an RBF kernel.
pub(super) fn direct_gives_distance(q: &Query, targets: &Matrix) -> bool {
    matches!(q, Query::D64(_) | Query::D32(_)) && !targets.is_sparse()
}
