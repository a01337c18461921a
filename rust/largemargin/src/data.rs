//! Feature matrices borrowed without copying: dense row-major and CSR, in f32 or f64.
//! `Matrix` is the one type the kernel engine and the solvers see.

use crate::error::{Error, Result};

/// A scalar type a feature matrix may hold.
pub trait Real: Copy + Send + Sync + 'static {
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

/// Row-major dense matrix view.
#[derive(Clone, Copy, Debug)]
pub struct DenseView<'a, T> {
    pub data: &'a [T],
    pub rows: usize,
    pub cols: usize,
}

impl<'a, T: Real> DenseView<'a, T> {
    pub fn new(data: &'a [T], rows: usize, cols: usize) -> Result<Self> {
        if data.len() != rows * cols {
            return Err(Error::InvalidData(format!(
                "dense buffer holds {} values, expected {rows} x {cols}",
                data.len()
            )));
        }
        Ok(DenseView { data, rows, cols })
    }
    #[inline(always)]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.cols..(i + 1) * self.cols]
    }
}

/// Compressed sparse row matrix view (indices sorted within a row, 0-based).
#[derive(Clone, Copy, Debug)]
pub struct CsrView<'a, T> {
    pub indptr: &'a [i64],
    pub indices: &'a [i32],
    pub data: &'a [T],
    pub rows: usize,
    pub cols: usize,
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
        if indptr[0] != 0 || indptr[rows] as usize != data.len() {
            return Err(Error::InvalidData("CSR indptr does not span the data".into()));
        }
        for r in 0..rows {
            let (s, e) = (indptr[r], indptr[r + 1]);
            if e < s {
                return Err(Error::InvalidData(format!("CSR indptr decreases at row {r}")));
            }
            let mut prev = -1i64;
            for &c in &indices[s as usize..e as usize] {
                let c = c as i64;
                if c <= prev || c >= cols as i64 {
                    return Err(Error::InvalidData(format!(
                        "CSR row {r}: column indices must be sorted, unique and below {cols}"
                    )));
                }
                prev = c;
            }
        }
        Ok(CsrView { indptr, indices, data, rows, cols })
    }
    #[inline(always)]
    pub fn row(&self, i: usize) -> (&'a [i32], &'a [T]) {
        let (s, e) = (self.indptr[i] as usize, self.indptr[i + 1] as usize);
        (&self.indices[s..e], &self.data[s..e])
    }
}

/// Any feature matrix the engine accepts.
#[derive(Clone, Copy, Debug)]
pub enum Matrix<'a> {
    Dense32(DenseView<'a, f32>),
    Dense64(DenseView<'a, f64>),
    Csr32(CsrView<'a, f32>),
    Csr64(CsrView<'a, f64>),
}

impl<'a> Matrix<'a> {
    pub fn rows(&self) -> usize {
        match self {
            Matrix::Dense32(m) => m.rows,
            Matrix::Dense64(m) => m.rows,
            Matrix::Csr32(m) => m.rows,
            Matrix::Csr64(m) => m.rows,
        }
    }
    pub fn cols(&self) -> usize {
        match self {
            Matrix::Dense32(m) => m.cols,
            Matrix::Dense64(m) => m.cols,
            Matrix::Csr32(m) => m.cols,
            Matrix::Csr64(m) => m.cols,
        }
    }
    pub fn is_sparse(&self) -> bool {
        matches!(self, Matrix::Csr32(_) | Matrix::Csr64(_))
    }
    /// The same sparse rows seen with `cols` columns (no fewer than now): the added features are
    /// zero everywhere. Dense rows cannot be widened without a copy: `None`.
    pub fn widened(&self, cols: usize) -> Option<Matrix<'a>> {
        let cols = cols.max(self.cols());
        match *self {
            Matrix::Csr32(m) => Some(Matrix::Csr32(CsrView { cols, ..m })),
            Matrix::Csr64(m) => Some(Matrix::Csr64(CsrView { cols, ..m })),
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
        fn first_bad<T: Real>(v: &[T]) -> Option<usize> {
            v.iter().position(|x| !x.to_f64().is_finite())
        }
        let bad = match self {
            Matrix::Dense32(m) => first_bad(m.data).map(|p| p / m.cols.max(1)),
            Matrix::Dense64(m) => first_bad(m.data).map(|p| p / m.cols.max(1)),
            Matrix::Csr32(m) => first_bad(m.data).map(|p| row_of(m.indptr, p)),
            Matrix::Csr64(m) => first_bad(m.data).map(|p| row_of(m.indptr, p)),
        };
        match bad {
            Some(r) => Err(Error::InvalidData(format!("row {r} contains NaN or infinity"))),
            None => Ok(()),
        }
    }
    /// Value of entry (i, j); used for precomputed Gram matrices and model export.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        fn sparse_get<T: Real>(m: &CsrView<T>, i: usize, j: usize) -> f64 {
            let (idx, val) = m.row(i);
            match idx.binary_search(&(j as i32)) {
                Ok(p) => val[p].to_f64(),
                Err(_) => 0.0,
            }
        }
        match self {
            Matrix::Dense32(m) => m.data[i * m.cols + j] as f64,
            Matrix::Dense64(m) => m.data[i * m.cols + j],
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

fn row_of(indptr: &[i64], pos: usize) -> usize {
    indptr.partition_point(|&p| p as usize <= pos).saturating_sub(1)
}

/// An owned CSR matrix in f64, as produced by the LIBSVM reader and held by native models.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CsrMatrix {
    pub indptr: Vec<i64>,
    pub indices: Vec<i32>,
    pub data: Vec<f64>,
    pub cols: usize,
}

impl CsrMatrix {
    pub fn new() -> Self {
        CsrMatrix { indptr: vec![0], ..Default::default() }
    }
    pub fn rows(&self) -> usize {
        self.indptr.len() - 1
    }
    /// Appends a row of (column, value) entries, columns increasing. Readers check that their
    /// indices fit an `i32` before they get here.
    pub fn push_row(&mut self, entries: impl IntoIterator<Item = (usize, f64)>) {
        for (j, v) in entries {
            self.indices.push(i32::try_from(j).expect("column index beyond i32"));
            self.data.push(v);
            self.cols = self.cols.max(j + 1);
        }
        self.indptr.push(self.data.len() as i64);
    }
    pub fn view(&self) -> Matrix<'_> {
        Matrix::Csr64(CsrView {
            indptr: &self.indptr,
            indices: &self.indices,
            data: &self.data,
            rows: self.rows(),
            cols: self.cols,
        })
    }
    /// The rows `idx` of any matrix, as an owned CSR matrix with `cols` columns.
    pub fn gather(m: &Matrix, idx: &[usize]) -> Self {
        let mut out = CsrMatrix::new();
        for &i in idx {
            out.push_row(m.row_entries(i));
        }
        out.cols = m.cols();
        out
    }
}
