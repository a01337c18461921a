//! Feature matrices borrowed without copying: dense row-major and CSR, in f32 or f64.
//! `Matrix` is the one type the kernel engine and the solvers see.

use crate::error::{Error, Result};

/// A scalar type a feature matrix may hold.
pub trait Real: Copy + Send + Sync + 'static {
    /// The value widened to f64, in which every kernel is computed.
    fn to_f64(self) -> f64;
}
impl Real for f32 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
}
impl Real for f64 {
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
}

/// Row-major dense matrix view. Its fields are private so that `data.len() == rows * cols`
/// holds for every value: a row is always `cols` entries long.
#[derive(Clone, Copy, Debug)]
pub struct DenseView<'a, T> {
    data: &'a [T],
    rows: usize,
    cols: usize,
}

impl<'a, T: Real> DenseView<'a, T> {
    /// A `rows` x `cols` view over `data`; an error unless `data` holds exactly `rows * cols`
    /// values.
    pub fn new(data: &'a [T], rows: usize, cols: usize) -> Result<Self> {
        if rows.checked_mul(cols) != Some(data.len()) {
            return Err(Error::InvalidData(format!(
                "dense buffer holds {} values, expected {rows} x {cols}",
                data.len()
            )));
        }
        Ok(DenseView { data, rows, cols })
    }
    /// All entries, row after row.
    pub fn data(&self) -> &'a [T] {
        self.data
    }
    /// Number of rows (samples).
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns (features).
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Row i, `cols` entries long. Panics if `i >= rows`.
    #[inline(always)]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
}

/// Compressed sparse row matrix view (indices sorted within a row, 0-based). Its fields are
/// private: every value went through `new`'s checks, so the kernel loops may trust that `indptr`
/// rises from 0 to `data.len()` and that every index is below `cols` (they read feature tables
/// `cols` wide without bounds checks).
#[derive(Clone, Copy, Debug)]
pub struct CsrView<'a, T> {
    indptr: &'a [i64],
    indices: &'a [i32],
    data: &'a [T],
    rows: usize,
    cols: usize,
}

impl<'a, T: Real> CsrView<'a, T> {
    /// Checks the structure once so that row access can trust it.
    pub fn new(indptr: &'a [i64], indices: &'a [i32], data: &'a [T], cols: usize) -> Result<Self> {
        if indptr.is_empty() {
            return Err(Error::InvalidData("CSR indptr is empty".into()));
        }
        let rows = indptr.len() - 1;
        if indices.len() != data.len() {
            return Err(Error::InvalidData("CSR indices and data differ in length".into()));
        }
        if indptr[0] != 0 || usize::try_from(indptr[rows]).ok() != Some(data.len()) {
            return Err(Error::InvalidData("CSR indptr does not span the data".into()));
        }
        if let Some(r) = indptr.windows(2).position(|w| w[1] < w[0]) {
            return Err(Error::InvalidData(format!("CSR indptr decreases at row {r}")));
        }
        // from 0 up to data.len() without decreasing: every row's range is inside the arrays
        if let Some(r) = first_unsorted_row(indptr, indices, cols) {
            return Err(Error::InvalidData(format!(
                "CSR row {r}: column indices must be sorted, unique and below {cols}"
            )));
        }
        Ok(CsrView { indptr, indices, data, rows, cols })
    }
    /// Row offsets, `rows + 1` long: row i holds the entries `indptr[i]..indptr[i + 1]`.
    pub fn indptr(&self) -> &'a [i64] {
        self.indptr
    }
    /// Column index of every stored entry, sorted within each row.
    pub fn indices(&self) -> &'a [i32] {
        self.indices
    }
    /// Value of every stored entry, parallel to `indices`.
    pub fn data(&self) -> &'a [T] {
        self.data
    }
    /// Number of rows (samples).
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Number of columns (features); every stored index is below it.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The same rows seen with `cols` columns, no fewer than now (the added features are zero
    /// everywhere: every index stays below the new width).
    pub fn widened(&self, cols: usize) -> Self {
        CsrView { cols: cols.max(self.cols), ..*self }
    }
    /// Row i's indices (sorted, below `cols`) and values. Panics if `i >= rows`.
    #[inline(always)]
    pub fn row(&self, i: usize) -> (&'a [i32], &'a [T]) {
        let (s, e) = (self.indptr[i] as usize, self.indptr[i + 1] as usize);
        (&self.indices[s..e], &self.data[s..e])
    }
}

/// Any feature matrix the engine accepts.
#[derive(Clone, Copy, Debug)]
pub enum Matrix<'a> {
    /// Dense row-major, single precision.
    Dense32(DenseView<'a, f32>),
    /// Dense row-major, double precision.
    Dense64(DenseView<'a, f64>),
    /// Compressed sparse rows, single precision.
    Csr32(CsrView<'a, f32>),
    /// Compressed sparse rows, double precision.
    Csr64(CsrView<'a, f64>),
}

impl<'a> Matrix<'a> {
    /// A dense row-major f64 matrix of `rows` x `cols` over `data`, borrowed without copying.
    pub fn dense(data: &'a [f64], rows: usize, cols: usize) -> Result<Self> {
        Ok(Matrix::Dense64(DenseView::new(data, rows, cols)?))
    }

    /// Number of rows (samples).
    pub fn rows(&self) -> usize {
        match self {
            Matrix::Dense32(m) => m.rows,
            Matrix::Dense64(m) => m.rows,
            Matrix::Csr32(m) => m.rows,
            Matrix::Csr64(m) => m.rows,
        }
    }
    /// Number of columns (features).
    pub fn cols(&self) -> usize {
        match self {
            Matrix::Dense32(m) => m.cols,
            Matrix::Dense64(m) => m.cols,
            Matrix::Csr32(m) => m.cols,
            Matrix::Csr64(m) => m.cols,
        }
    }
    /// Whether the rows are stored as CSR (either precision).
    pub fn is_sparse(&self) -> bool {
        matches!(self, Matrix::Csr32(_) | Matrix::Csr64(_))
    }
    /// The same sparse rows seen with `cols` columns (no fewer than now): the added features are
    /// zero everywhere. Dense rows cannot be widened without a copy: `None`.
    pub fn widened(&self, cols: usize) -> Option<Matrix<'a>> {
        let cols = cols.max(self.cols());
        match *self {
            Matrix::Csr32(m) => Some(Matrix::Csr32(m.widened(cols))),
            Matrix::Csr64(m) => Some(Matrix::Csr64(m.widened(cols))),
            _ if cols == self.cols() => Some(*self),
            _ => None,
        }
    }
    /// Squared Euclidean norm of every row (cached by the kernel engine for RBF).
    pub fn squared_norms(&self) -> Vec<f64> {
        fn sq<T: Real>(v: &[T]) -> f64 {
            v.iter().map(|x| x.to_f64() * x.to_f64()).sum()
        }
        (0..self.rows())
            .map(|i| match self {
                Matrix::Dense32(m) => sq(m.row(i)),
                Matrix::Dense64(m) => sq(m.row(i)),
                Matrix::Csr32(m) => sq(m.row(i).1),
                Matrix::Csr64(m) => sq(m.row(i).1),
            })
            .collect()
    }
    /// Rejects NaN and infinite values, naming the first offending row.
    pub fn check_finite(&self) -> Result<()> {
        let bad = match self {
            Matrix::Dense32(m) => first_non_finite(m.data).map(|p| p / m.cols.max(1)),
            Matrix::Dense64(m) => first_non_finite(m.data).map(|p| p / m.cols.max(1)),
            Matrix::Csr32(m) => first_non_finite(m.data).map(|p| row_of(m.indptr, p)),
            Matrix::Csr64(m) => first_non_finite(m.data).map(|p| row_of(m.indptr, p)),
        };
        match bad {
            Some(r) => Err(Error::InvalidData(format!("row {r} of the features (X) contains NaN or infinity"))),
            None => Ok(()),
        }
    }
    /// Value of entry (i, j); used for precomputed Gram matrices and model export. Panics if
    /// (i, j) is outside the matrix.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        fn sparse_get<T: Real>(m: &CsrView<T>, i: usize, j: usize) -> f64 {
            let (idx, val) = m.row(i);
            match idx.binary_search(&(j as i32)) {
                Ok(p) => val[p].to_f64(),
                Err(_) => 0.0,
            }
        }
        assert!(
            i < self.rows() && j < self.cols(),
            "entry ({i}, {j}) outside a {} x {} matrix",
            self.rows(),
            self.cols()
        );
        match self {
            Matrix::Dense32(m) => m.row(i)[j] as f64,
            Matrix::Dense64(m) => m.row(i)[j],
            Matrix::Csr32(m) => sparse_get(m, i, j),
            Matrix::Csr64(m) => sparse_get(m, i, j),
        }
    }
    /// Nonzero entries of row i as (column, value) pairs.
    pub fn row_entries(&self, i: usize) -> Vec<(usize, f64)> {
        fn dense<T: Real>(v: &[T]) -> Vec<(usize, f64)> {
            v.iter().enumerate().filter(|(_, x)| x.to_f64() != 0.0).map(|(j, x)| (j, x.to_f64())).collect()
        }
        fn sparse<T: Real>(m: &CsrView<T>, i: usize) -> Vec<(usize, f64)> {
            let (idx, val) = m.row(i);
            idx.iter().zip(val).map(|(&j, x)| (j as usize, x.to_f64())).collect()
        }
        match self {
            Matrix::Dense32(m) => dense(m.row(i)),
            Matrix::Dense64(m) => dense(m.row(i)),
            Matrix::Csr32(m) => sparse(m, i),
            Matrix::Csr64(m) => sparse(m, i),
        }
    }
}

/// The first row whose indices are not strictly increasing from 0 up to below `cols`. A
/// strictly increasing row is in range when its ends are, so the inner loop only compares
/// neighbours, without an early exit (it vectorises: this check is a pass over every index of
/// the data on each fit). `indptr` must already be known to rise within `indices`.
fn first_unsorted_row(indptr: &[i64], indices: &[i32], cols: usize) -> Option<usize> {
    use rayon::prelude::*;
    // (rows in parallel on large data: the first bad row is the same on any number of threads)
    indptr.par_windows(2).with_min_len(4096).position_first(|r| {
        let row = &indices[r[0] as usize..r[1] as usize];
        let (Some(&first), Some(&last)) = (row.first(), row.last()) else { return false };
        let descents = row.windows(2).fold(false, |bad, w| bad | (w[1] <= w[0]));
        descents || first < 0 || last as i64 >= cols as i64
    })
}

/// The first position of a value that is NaN or infinite (x - x is 0 for every finite x and
/// NaN otherwise), found block by block with a loop that vectorises.
fn first_non_finite<T: Real + std::ops::Sub<Output = T> + PartialEq + Default>(v: &[T]) -> Option<usize> {
    use rayon::prelude::*;
    const BLOCK: usize = 4096;
    #[inline(always)]
    #[allow(clippy::eq_op)] // x - x is the test itself
    fn bad<T: std::ops::Sub<Output = T> + PartialEq + Default + Copy>(x: T) -> bool {
        x - x != T::default()
    }
    let block =
        v.par_chunks(BLOCK).with_min_len(16).position_first(|b| b.iter().fold(false, |any, &x| any | bad(x)))?;
    let start = block * BLOCK;
    v[start..].iter().position(|&x| bad(x)).map(|p| start + p)
}

fn row_of(indptr: &[i64], pos: usize) -> usize {
    indptr.partition_point(|&p| p as usize <= pos).saturating_sub(1)
}

/// An owned CSR matrix in f64, as produced by the LIBSVM reader and held by native models. Its
/// fields are private for the same reason as `CsrView`'s: `view` hands them to the kernel loops
/// unchecked, so every way of building one keeps the indices sorted and below `cols`.
#[derive(Clone, Debug, PartialEq)]
pub struct CsrMatrix {
    indptr: Vec<i64>,
    indices: Vec<i32>,
    data: Vec<f64>,
    cols: usize,
    /// One past the largest index held: `cols` may not go below it.
    span: usize,
}

impl Default for CsrMatrix {
    fn default() -> Self {
        CsrMatrix::new()
    }
}

impl CsrMatrix {
    /// No rows, no columns.
    pub fn new() -> Self {
        CsrMatrix { indptr: vec![0], indices: Vec::new(), data: Vec::new(), cols: 0, span: 0 }
    }
    /// A matrix from its three arrays, checked as `CsrView::new` checks them.
    pub fn from_parts(indptr: Vec<i64>, indices: Vec<i32>, data: Vec<f64>, cols: usize) -> Result<Self> {
        let span = {
            let v = CsrView::new(&indptr, &indices, &data, cols)?;
            (0..v.rows).filter_map(|r| v.row(r).0.last()).map(|&j| j as usize + 1).max().unwrap_or(0)
        };
        Ok(CsrMatrix { indptr, indices, data, cols, span })
    }
    /// Number of rows (samples).
    pub fn rows(&self) -> usize {
        self.indptr.len() - 1
    }
    /// Number of columns; at least one past the largest column holding an entry.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// Row offsets, `rows + 1` long: row i holds the entries `indptr[i]..indptr[i + 1]`.
    pub fn indptr(&self) -> &[i64] {
        &self.indptr
    }
    /// Column index of every stored entry, strictly increasing within each row.
    pub fn indices(&self) -> &[i32] {
        &self.indices
    }
    /// Value of every stored entry, parallel to `indices`.
    pub fn data(&self) -> &[f64] {
        &self.data
    }
    /// The three arrays and the column count.
    pub fn into_parts(self) -> (Vec<i64>, Vec<i32>, Vec<f64>, usize) {
        (self.indptr, self.indices, self.data, self.cols)
    }
    /// Sets the column count; it may not cut off a column some entry is in.
    pub fn set_cols(&mut self, cols: usize) -> Result<()> {
        if cols < self.span {
            return Err(Error::InvalidData(format!(
                "{cols} columns for a sparse matrix with an entry in column {}",
                self.span - 1
            )));
        }
        self.cols = cols;
        Ok(())
    }
    /// Appends a row of (column, value) entries, columns strictly increasing and at most
    /// 2^31 - 1; `cols` grows to cover them. On error the matrix is left as it was.
    pub fn push_row(&mut self, entries: impl IntoIterator<Item = (usize, f64)>) -> Result<()> {
        let start = self.data.len();
        let mut prev: Option<usize> = None;
        for (j, v) in entries {
            let bad = match prev {
                Some(p) if j <= p => Some(format!("column indices must increase within a row (found {j} after {p})")),
                _ if i32::try_from(j).is_err() => Some(format!("column index {j} is beyond {}", i32::MAX)),
                _ => None,
            };
            if let Some(m) = bad {
                self.indices.truncate(start);
                self.data.truncate(start);
                return Err(Error::InvalidData(m));
            }
            self.indices.push(j as i32);
            self.data.push(v);
            prev = Some(j);
        }
        if let Some(last) = prev {
            self.span = self.span.max(last + 1);
            self.cols = self.cols.max(self.span);
        }
        self.indptr.push(self.data.len() as i64);
        Ok(())
    }
    /// Moves every entry `by` columns to the left (a one-based file read as zero-based takes
    /// `by = 1`), and the column count with them: an entry in a column below `by` is an error,
    /// and the matrix is left as it was.
    pub fn shift_columns_down(&mut self, by: usize) -> Result<()> {
        if let Some(&j) = self.indices.iter().find(|&&j| (j as usize) < by) {
            return Err(Error::InvalidData(format!("an entry in column {j} cannot move {by} columns to the left")));
        }
        if by > 0 {
            let by32 = i32::try_from(by).unwrap_or(i32::MAX); // when no index is left to move
            for j in self.indices.iter_mut() {
                *j -= by32;
            }
        }
        self.span = self.span.saturating_sub(by);
        self.cols = self.cols.saturating_sub(by).max(self.span);
        Ok(())
    }
    /// The matrix borrowed as a `Matrix::Csr64`, without copying or re-checking it.
    pub fn view(&self) -> Matrix<'_> {
        // `push_row`, `shift_columns_down`, `set_cols` and `from_parts` keep the CSR structure and
        // every index below `span <= cols`: the view needs no second check.
        Matrix::Csr64(CsrView {
            indptr: &self.indptr,
            indices: &self.indices,
            data: &self.data,
            rows: self.rows(),
            cols: self.cols,
        })
    }
    /// The rows `idx` of any matrix, as an owned CSR matrix with `m`'s columns. Panics if an
    /// entry of `idx` is not a row of `m`.
    pub fn gather(m: &Matrix, idx: &[usize]) -> Self {
        let mut out = CsrMatrix::new();
        for &i in idx {
            out.push_row(m.row_entries(i)).expect("a matrix row has increasing columns below 2^31");
        }
        out.cols = m.cols().max(out.span);
        out
    }
}
