//! All conversions between Python objects and core types live here: matrices, kernel
//! specifications and errors. The rest of the binding crate never touches raw Python data.

use std::sync::Arc;

use largemargin::data::{CsrView, DenseView, Matrix};
use largemargin::kernel::{Composite, Term};
use largemargin::{Error, KernelSpec};
use pyo3::types::{PyList, PyString};

use crate::adapters::PyKernel;
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

/// The kernel argument of the fitting functions: a built-in kernel's name (with gamma, coef0 and
/// degree), a composed kernel as a list of terms `(weight, [(name, gamma, coef0, degree), ...])`,
/// or an object computing rows itself (`largemargin.plugins.TrainingKernel`), returned as well so
/// its failures can be collected.
pub fn kernel_from_py(
    kernel: &Bound<'_, PyAny>,
    gamma: f64,
    coef0: f64,
    degree: i64,
) -> PyResult<(KernelSpec, Option<Arc<PyKernel>>)> {
    if let Ok(name) = kernel.cast::<PyString>() {
        return Ok((kernel_spec(&name.to_cow()?, gamma, coef0, degree)?, None));
    }
    if let Ok(terms) = kernel.cast::<PyList>() {
        let mut out = Vec::with_capacity(terms.len());
        for term in terms.iter() {
            let (weight, factors): (f64, Vec<(String, f64, f64, i64)>) = term.extract().map_err(|_| {
                PyValueError::new_err("a composed kernel is a list of (weight, [(name, gamma, coef0, degree), ...])")
            })?;
            let factors = factors
                .iter()
                .map(|(n, g, c, d)| kernel_spec(n, *g, *c, *d))
                .collect::<PyResult<Vec<_>>>()?;
            out.push(Term { weight, factors });
        }
        return Ok((KernelSpec::Composite(Arc::new(Composite::new(out).map_err(to_py)?)), None));
    }
    let k = PyKernel::new(kernel)?;
    Ok((KernelSpec::External(k.clone()), Some(k)))
}

/// Core errors as Python exceptions: data and parameter problems are ValueError.
pub fn to_py(e: Error) -> PyErr {
    match e {
        Error::Interrupted => PyKeyboardInterrupt::new_err("fit interrupted"),
        Error::Io(m) => PyOSError::new_err(m),
        other => PyValueError::new_err(other.to_string()),
    }
}
