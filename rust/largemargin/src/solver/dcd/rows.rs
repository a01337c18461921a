//! The rows the linear solvers read: a `Matrix` in place (dense or CSR, f32 or f64), or
//! `SparseRows`, a copy of the nonzeros of dense rows that are mostly zeros (pixels, one-hot
//! blocks). Every pass of the dual and primal solvers costs each visited row's stored entries, so
//! such rows read in place cost several times what their nonzeros do (LIBLINEAR, which
//! scikit-learn hands its dense input as sparse rows, reads only the nonzeros). The copy is made
//! once per fit and read by every one-vs-rest problem; it is smaller than the dense input (it is
//! made only then: see `SparseRows::of_dense`) and sparse input is never copied.

use crate::data::{Matrix, Real};
use crate::kernel::Query;
use crate::runtime::vecops::prefetch_lines;
use crate::solver::dcd::{row_add, row_dot};

/// What a linear solver needs of its rows: the dot product with a weight vector and the update
/// of one, each over the row and the constant feature `bias` appended to it (the weight vector is
/// `cols() + 1` long, the bias feature's weight last).
pub trait Rows: Sync {
    /// The number of rows.
    fn rows(&self) -> usize;
    /// The number of features.
    fn cols(&self) -> usize;
    /// `<w, (x_i, bias)>`.
    fn dot(&self, i: usize, w: &[f64], bias: f64) -> f64;
    /// `w += a (x_i, bias)`.
    fn add(&self, i: usize, a: f64, w: &mut [f64], bias: f64);
    /// Calls `f(j, x_ij)` for the row's nonzeros (a dense row's zeros skipped), in feature order.
    fn for_each_nonzero(&self, i: usize, f: impl FnMut(usize, f64));
    /// Asks for row i's entries ahead of its use (a shuffled pass visits rows in no order the
    /// hardware can guess). This reads where the row lies: `prefetch_bounds` asks for that first.
    fn prefetch(&self, i: usize);
    /// Asks for where row i lies (a sparse layout's row offsets), some steps before `prefetch`:
    /// over data larger than the caches, `prefetch` would otherwise wait on memory for them.
    fn prefetch_bounds(&self, _i: usize) {}
    /// Every row's squared Euclidean norm.
    fn squared_norms(&self) -> Vec<f64> {
        (0..self.rows())
            .map(|i| {
                let mut s = 0.0;
                self.for_each_nonzero(i, |_, v| s += v * v);
                s
            })
            .collect()
    }
}

/// The first kilobyte of a slice: once a long row streams, the hardware follows it.
fn head<T>(v: &[T]) -> &[T] {
    &v[..v.len().min(1024 / std::mem::size_of::<T>())]
}

impl Rows for Matrix<'_> {
    fn rows(&self) -> usize {
        Matrix::rows(self)
    }
    fn cols(&self) -> usize {
        Matrix::cols(self)
    }
    #[inline(always)]
    fn dot(&self, i: usize, w: &[f64], bias: f64) -> f64 {
        row_dot(w, Query::row(self, i), bias)
    }
    #[inline(always)]
    fn add(&self, i: usize, a: f64, w: &mut [f64], bias: f64) {
        row_add(w, a, Query::row(self, i), bias)
    }
    #[inline(always)]
    fn for_each_nonzero(&self, i: usize, f: impl FnMut(usize, f64)) {
        Query::row(self, i).for_each_nonzero(f)
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        match Query::row(self, i) {
            Query::D64(v) => prefetch_lines(head(v)),
            Query::D32(v) => prefetch_lines(head(v)),
            Query::S64(j, v) => {
                prefetch_lines(head(j));
                prefetch_lines(head(v));
            }
            Query::S32(j, v) => {
                prefetch_lines(head(j));
                prefetch_lines(head(v));
            }
        }
    }
    #[inline(always)]
    fn prefetch_bounds(&self, i: usize) {
        match self {
            Matrix::Csr32(m) => prefetch_lines(&m.indptr()[i..i + 2]),
            Matrix::Csr64(m) => prefetch_lines(&m.indptr()[i..i + 2]),
            Matrix::Dense32(_) | Matrix::Dense64(_) => {}
        }
    }
    fn squared_norms(&self) -> Vec<f64> {
        Matrix::squared_norms(self)
    }
}

/// A feature index as the copy stores it: 16 bits where every feature fits (a fifth less memory
/// to stream than 32), else 32.
trait Feature: Copy + Send + Sync {
    fn at(self) -> usize;
}
impl Feature for u16 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}
impl Feature for u32 {
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

/// The copy's feature indices.
enum Indices {
    Narrow(Vec<u16>),
    Wide(Vec<u32>),
}

/// The nonzeros of dense rows, row by row: indices increasing and below `cols`, values as f64
/// (a float32 input's values widen exactly).
pub struct SparseRows {
    indptr: Vec<usize>,
    indices: Indices,
    values: Vec<f64>,
    cols: usize,
}

/// `<w, x>` over a row's nonzeros, four running sums.
///
/// # Safety
/// Every index is below `w.len()`.
#[inline(always)]
unsafe fn gather_dot<I: Feature>(w: &[f64], idx: &[I], val: &[f64]) -> f64 {
    debug_assert!(idx.len() == val.len() && idx.iter().all(|j| j.at() < w.len()));
    let n = idx.len().min(val.len());
    let mut acc = [0.0f64; 4];
    let mut k = 0;
    // SAFETY: k < n, within both slices; every index is below w.len() (the contract).
    unsafe {
        while k + 4 <= n {
            for (u, acc) in acc.iter_mut().enumerate() {
                *acc += w.get_unchecked(idx.get_unchecked(k + u).at()) * val.get_unchecked(k + u);
            }
            k += 4;
        }
        let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
        while k < n {
            s += w.get_unchecked(idx.get_unchecked(k).at()) * val.get_unchecked(k);
            k += 1;
        }
        s
    }
}

/// `w += a x` over a row's nonzeros.
///
/// # Safety
/// Every index is below `w.len()`.
#[inline(always)]
unsafe fn scatter_add<I: Feature>(w: &mut [f64], a: f64, idx: &[I], val: &[f64]) {
    debug_assert!(idx.iter().all(|j| j.at() < w.len()));
    for (j, x) in idx.iter().zip(val) {
        // SAFETY: the index is below w.len() (the contract).
        *unsafe { w.get_unchecked_mut(j.at()) } += a * x;
    }
}

impl SparseRows {
    /// The copy of a dense matrix when under half its entries are nonzero and the copy (10 or
    /// 12 bytes a nonzero and 8 a row) takes less memory than the matrix; None for sparse input
    /// (read in place) and for fuller rows, which dense loops read faster.
    pub fn of_dense(x: &Matrix) -> Option<SparseRows> {
        match x {
            Matrix::Dense64(m) => Self::build(m.data(), m.rows(), m.cols()),
            Matrix::Dense32(m) => Self::build(m.data(), m.rows(), m.cols()),
            _ => None,
        }
    }

    fn build<T: Real>(data: &[T], rows: usize, cols: usize) -> Option<SparseRows> {
        let nonzeros = data.iter().filter(|v| v.to_f64() != 0.0).count();
        let narrow = cols <= 1 << 16;
        let bytes = nonzeros * (8 + if narrow { 2 } else { 4 }) + 8 * (rows + 1);
        if 2 * nonzeros >= data.len() || bytes >= std::mem::size_of_val(data) || cols > u32::MAX as usize {
            return None;
        }
        // The indices are pushed at their final width: a u32 list narrowed afterwards would keep
        // its 4-byte buffer (collect may reuse it in place).
        let (indptr, indices, values) = if narrow {
            let (p, j, v) = Self::gather(data, rows, cols, nonzeros, |j| j as u16);
            (p, Indices::Narrow(j), v)
        } else {
            let (p, j, v) = Self::gather(data, rows, cols, nonzeros, |j| j as u32);
            (p, Indices::Wide(j), v)
        };
        Some(SparseRows { indptr, indices, values, cols })
    }

    /// The row offsets, column indices (as `index` gives them) and values of the nonzeros.
    fn gather<T: Real, I>(
        data: &[T], rows: usize, cols: usize, nonzeros: usize, index: impl Fn(usize) -> I,
    ) -> (Vec<usize>, Vec<I>, Vec<f64>) {
        let mut indptr = Vec::with_capacity(rows + 1);
        let mut indices = Vec::with_capacity(nonzeros);
        let mut values = Vec::with_capacity(nonzeros);
        indptr.push(0);
        for row in data.chunks_exact(cols.max(1)).take(rows) {
            for (j, v) in row.iter().enumerate() {
                if v.to_f64() != 0.0 {
                    indices.push(index(j));
                    values.push(v.to_f64());
                }
            }
            indptr.push(values.len());
        }
        indptr.resize(rows + 1, values.len());
        (indptr, indices, values)
    }

    #[inline(always)]
    fn span(&self, i: usize) -> (usize, usize) {
        (self.indptr[i], self.indptr[i + 1])
    }
}

impl Rows for SparseRows {
    fn rows(&self) -> usize {
        self.indptr.len() - 1
    }
    fn cols(&self) -> usize {
        self.cols
    }
    #[inline(always)]
    fn dot(&self, i: usize, w: &[f64], bias: f64) -> f64 {
        let (a, b) = self.span(i);
        assert!(w.len() > self.cols, "weights narrower than the rows");
        let val = &self.values[a..b];
        // SAFETY: every stored index is below cols (built from rows cols wide), below w.len().
        let s = unsafe {
            match &self.indices {
                Indices::Narrow(j) => gather_dot(w, &j[a..b], val),
                Indices::Wide(j) => gather_dot(w, &j[a..b], val),
            }
        };
        s + w[self.cols] * bias
    }
    #[inline(always)]
    fn add(&self, i: usize, a: f64, w: &mut [f64], bias: f64) {
        let (s, e) = self.span(i);
        assert!(w.len() > self.cols, "weights narrower than the rows");
        let val = &self.values[s..e];
        // SAFETY: as in `dot`.
        unsafe {
            match &self.indices {
                Indices::Narrow(j) => scatter_add(w, a, &j[s..e], val),
                Indices::Wide(j) => scatter_add(w, a, &j[s..e], val),
            }
        }
        w[self.cols] += a * bias;
    }
    #[inline(always)]
    fn for_each_nonzero(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        let (a, b) = self.span(i);
        let val = &self.values[a..b];
        match &self.indices {
            Indices::Narrow(j) => j[a..b].iter().zip(val).for_each(|(j, &v)| f(j.at(), v)),
            Indices::Wide(j) => j[a..b].iter().zip(val).for_each(|(j, &v)| f(j.at(), v)),
        }
    }
    #[inline(always)]
    fn prefetch(&self, i: usize) {
        let (a, b) = self.span(i);
        match &self.indices {
            Indices::Narrow(j) => prefetch_lines(head(&j[a..b])),
            Indices::Wide(j) => prefetch_lines(head(&j[a..b])),
        }
        prefetch_lines(head(&self.values[a..b]));
    }
    #[inline(always)]
    fn prefetch_bounds(&self, i: usize) {
        prefetch_lines(&self.indptr[i..i + 2]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::{CsrMatrix, DenseView};

    #[test]
    fn the_copy_reads_as_the_rows_in_csr() {
        let (n, d) = (40, 30);
        let xs: Vec<f64> = (0..n * d).map(|k| if k % 5 == 1 { (k as f64 * 0.7).sin() } else { 0.0 }).collect();
        let xs32: Vec<f32> = xs.iter().map(|&v| v as f32).collect();
        for x in
            [Matrix::Dense64(DenseView::new(&xs, n, d).unwrap()), Matrix::Dense32(DenseView::new(&xs32, n, d).unwrap())]
        {
            let copy = SparseRows::of_dense(&x).unwrap();
            // (the same sums in the same order as CSR rows; a dense row's sums run otherwise)
            let csr = CsrMatrix::gather(&x, &(0..n).collect::<Vec<_>>());
            let x = csr.view();
            assert_eq!((Rows::rows(&copy), Rows::cols(&copy)), (n, d));
            assert_eq!(Rows::squared_norms(&copy), Rows::squared_norms(&x));
            let w: Vec<f64> = (0..=d).map(|j| j as f64 - 3.5).collect();
            for i in 0..n {
                assert_eq!(copy.dot(i, &w, 0.5), x.dot(i, &w, 0.5));
                let (mut a, mut b) = (w.clone(), w.clone());
                copy.add(i, -1.5, &mut a, 0.5);
                x.add(i, -1.5, &mut b, 0.5);
                assert_eq!(a, b);
                let (mut p, mut q) = (Vec::new(), Vec::new());
                copy.for_each_nonzero(i, |j, v| p.push((j, v)));
                x.for_each_nonzero(i, |j, v| q.push((j, v)));
                assert_eq!(p, q);
            }
        }
        // half full and above: read in place
        let full = vec![1.0; n * d];
        assert!(SparseRows::of_dense(&Matrix::Dense64(DenseView::new(&full, n, d).unwrap())).is_none());
    }
}
