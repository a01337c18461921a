//! All conversions between Python objects and core types live here: matrices, kernel
//! specifications and errors. The rest of the binding crate never touches raw Python data.

use largemargin::data::{CsrView, DenseView, Matrix};
use largemargin::{Error, KernelSpec};
use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::{PyKeyboardInterrupt, PyOSError, PyValueError};
use pyo3::prelude::*;

/// A feature matrix handed over by Python: a C-contiguous 2-D float32/float64 array, or a CSR
/// triple (indptr int64, indices int32, data float32/float64) with its column count.
pub enum PyMatrix<'py> {
    D32(PyReadonlyArray2<'py, f32>),
    D64(PyReadonlyArray2<'py, f64>),
    S32(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i32>, PyReadonlyArray1<'py, f32>, usize),
    S64(PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i32>, PyReadonlyArray1<'py, f64>, usize),
}

fn contiguous<'a, T: numpy::Element>(a: &'a PyReadonlyArray1<'_, T>, what: &str) -> PyResult<&'a [T]> {
    a.as_slice().map_err(|_| PyValueError::new_err(format!("{what} must be C-contiguous")))
}

impl<'py> PyMatrix<'py> {
    pub fn extract(obj: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f64>>() {
            return Ok(PyMatrix::D64(a));
        }
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f32>>() {
            return Ok(PyMatrix::D32(a));
        }
        if let Ok((indptr, indices, data, cols)) = obj.extract::<(
            PyReadonlyArray1<'py, i64>,
            PyReadonlyArray1<'py, i32>,
            PyReadonlyArray1<'py, f64>,
            usize,
        )>() {
            return Ok(PyMatrix::S64(indptr, indices, data, cols));
        }
        if let Ok((indptr, indices, data, cols)) = obj.extract::<(
            PyReadonlyArray1<'py, i64>,
            PyReadonlyArray1<'py, i32>,
            PyReadonlyArray1<'py, f32>,
            usize,
        )>() {
            return Ok(PyMatrix::S32(indptr, indices, data, cols));
        }
        Err(PyValueError::new_err(
            "expected a C-contiguous 2-D float32/float64 array or a CSR triple (indptr int64, indices int32, data float)",
        ))
    }

    pub fn view(&self) -> PyResult<Matrix<'_>> {
        fn dense<'a, T: numpy::Element + largemargin::data::Real>(
            a: &'a PyReadonlyArray2<'_, T>,
        ) -> PyResult<DenseView<'a, T>> {
            let shape = a.shape();
            let data = a.as_slice().map_err(|_| PyValueError::new_err("X must be C-contiguous"))?;
            DenseView::new(data, shape[0], shape[1]).map_err(to_py)
        }
        Ok(match self {
            PyMatrix::D32(a) => Matrix::Dense32(dense(a)?),
            PyMatrix::D64(a) => Matrix::Dense64(dense(a)?),
            PyMatrix::S32(p, i, d, c) => Matrix::Csr32(
                CsrView::new(contiguous(p, "indptr")?, contiguous(i, "indices")?, contiguous(d, "data")?, *c)
                    .map_err(to_py)?,
            ),
            PyMatrix::S64(p, i, d, c) => Matrix::Csr64(
                CsrView::new(contiguous(p, "indptr")?, contiguous(i, "indices")?, contiguous(d, "data")?, *c)
                    .map_err(to_py)?,
            ),
        })
    }
}

/// Kernel from its scikit-learn name and parameters.
pub fn kernel_spec(name: &str, gamma: f64, coef0: f64, degree: i64) -> PyResult<KernelSpec> {
    let spec = match name {
        "linear" => KernelSpec::Linear,
        "poly" | "polynomial" => {
            if degree < 0 {
                return Err(PyValueError::new_err(format!("degree must be non-negative, got {degree}")));
            }
            KernelSpec::Poly { degree: degree as u32, gamma, coef0 }
        }
        "rbf" => KernelSpec::Rbf { gamma },
        "sigmoid" => KernelSpec::Sigmoid { gamma, coef0 },
        "precomputed" => KernelSpec::Precomputed,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown kernel '{other}'; built-in kernels are linear, poly, rbf, sigmoid and precomputed"
            )))
        }
    };
    spec.validate().map_err(to_py)?;
    Ok(spec)
}

/// Core errors as Python exceptions: data and parameter problems are ValueError.
pub fn to_py(e: Error) -> PyErr {
    match e {
        Error::Interrupted => PyKeyboardInterrupt::new_err("fit interrupted"),
        Error::Io(m) => PyOSError::new_err(m),
        other => PyValueError::new_err(other.to_string()),
    }
}
