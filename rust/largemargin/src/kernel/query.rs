//! The query side of a kernel evaluation: one row, dense or sparse, float64 or float32.

use crate::data::{Matrix, Real};
use crate::error::{Error, Result};

/// One row on the query side of a kernel evaluation, in either layout.
///
/// A sparse row's indices are non-negative and strictly increasing, as many as its values, so
/// its last index is its largest: the kernel loops compare that one with a width, then read
/// without bounds checks. The variants cannot be built outside this crate; build a `Query` with
/// `row` (a row of a checked matrix), `dense`, `dense32`, `sparse` or `sparse32`.
#[derive(Clone, Copy, Debug)]
pub enum Query<'q> {
    /// A dense float64 row: entry j is feature j.
    #[non_exhaustive]
    D64(&'q [f64]),
    /// A dense float32 row.
    #[non_exhaustive]
    D32(&'q [f32]),
    /// A sparse float64 row: feature indices and their values.
    #[non_exhaustive]
    S64(&'q [i32], &'q [f64]),
    /// A sparse float32 row: feature indices and their values.
    #[non_exhaustive]
    S32(&'q [i32], &'q [f32]),
}

/// Checks a sparse row from outside: the invariant `Query` keeps.
fn check_sparse(idx: &[i32], values: usize) -> Result<()> {
    if idx.len() != values {
        return Err(Error::InvalidData(format!("a sparse row with {} indices and {values} values", idx.len())));
    }
    let mut prev = -1i64;
    for &j in idx {
        if i64::from(j) <= prev {
            return Err(Error::InvalidData(format!(
                "a sparse row's indices must be non-negative and increase (found {j} after {prev})"
            )));
        }
        prev = i64::from(j);
    }
    Ok(())
}

impl<'q> Query<'q> {
    /// A dense row.
    pub fn dense(v: &'q [f64]) -> Self {
        Query::D64(v)
    }
    /// A dense float32 row.
    pub fn dense32(v: &'q [f32]) -> Self {
        Query::D32(v)
    }
    /// A sparse row: indices non-negative and strictly increasing, one per value.
    pub fn sparse(idx: &'q [i32], val: &'q [f64]) -> Result<Self> {
        check_sparse(idx, val.len())?;
        Ok(Query::S64(idx, val))
    }
    /// A sparse float32 row, checked as `sparse`.
    pub fn sparse32(idx: &'q [i32], val: &'q [f32]) -> Result<Self> {
        check_sparse(idx, val.len())?;
        Ok(Query::S32(idx, val))
    }
    /// The width a table must have for every feature of this row to index it: a dense row's
    /// length, a sparse row's largest index plus one.
    pub fn span(&self) -> usize {
        match *self {
            Query::D64(v) => v.len(),
            Query::D32(v) => v.len(),
            Query::S64(i, _) | Query::S32(i, _) => i.last().map_or(0, |&j| j as usize + 1),
        }
    }
    /// Whether the row is given as indices and values.
    pub fn is_sparse(&self) -> bool {
        matches!(self, Query::S64(..) | Query::S32(..))
    }
    /// Row i of a matrix.
    #[inline(always)]
    pub fn row(m: &Matrix<'q>, i: usize) -> Self {
        match m {
            Matrix::Dense64(d) => Query::D64(d.row(i)),
            Matrix::Dense32(d) => Query::D32(d.row(i)),
            Matrix::Csr64(c) => {
                let (i, v) = c.row(i);
                Query::S64(i, v)
            }
            Matrix::Csr32(c) => {
                let (i, v) = c.row(i);
                Query::S32(i, v)
            }
        }
    }
    /// Entry j (the precomputed kernel reads its value from the query row).
    pub(super) fn get(&self, j: usize) -> f64 {
        fn sparse<T: Real>(idx: &[i32], val: &[T], j: usize) -> f64 {
            idx.binary_search(&(j as i32)).map_or(0.0, |p| val[p].to_f64())
        }
        match *self {
            Query::D64(v) => v.get(j).copied().unwrap_or(0.0),
            Query::D32(v) => v.get(j).map_or(0.0, |x| *x as f64),
            Query::S64(i, v) => sparse(i, v, j),
            Query::S32(i, v) => sparse(i, v, j),
        }
    }
    /// Calls f(feature, value) for every nonzero entry.
    #[inline(always)]
    pub(crate) fn for_each_nonzero(&self, mut f: impl FnMut(usize, f64)) {
        fn dense<T: Real>(v: &[T], f: &mut impl FnMut(usize, f64)) {
            for (j, x) in v.iter().enumerate() {
                let x = x.to_f64();
                if x != 0.0 {
                    f(j, x);
                }
            }
        }
        fn sparse<T: Real>(idx: &[i32], val: &[T], f: &mut impl FnMut(usize, f64)) {
            for (&j, x) in idx.iter().zip(val) {
                f(j as usize, x.to_f64());
            }
        }
        match *self {
            Query::D64(v) => dense(v, &mut f),
            Query::D32(v) => dense(v, &mut f),
            Query::S64(i, v) => sparse(i, v, &mut f),
            Query::S32(i, v) => sparse(i, v, &mut f),
        }
    }
    /// The row's squared Euclidean norm, summed in f64 (RBF needs it for the distance).
    pub fn squared_norm(&self) -> f64 {
        let mut s = 0.0;
        self.for_each_nonzero(|_, v| s += v * v);
        s
    }
}
