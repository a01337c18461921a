//! Entry points of file input and output: the incremental LIBSVM/svmlight data parser, LIBSVM
//! model files (read and written) and files written whole or not at all.

use std::path::Path;

use largemargin::data::CsrMatrix;
use largemargin::io::atomic_file::write_atomically;
use largemargin::io::data_file::{IndexBase, LibsvmData, LibsvmParser};
use largemargin::kernel::KernelKind;
use largemargin::model::{LibsvmModel, SvmType};
use largemargin::KernelSpec;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::convert::{self, index_vec, kernel_spec, matrix_array, usize_array, PyMatrix, Wrap};
use crate::run::{guarded, run_guarded};

/// Parsed rows as (labels, indptr, indices, data, n_features).
fn libsvm_data_to_py(py: Python<'_>, d: LibsvmData) -> PyResult<Bound<'_, PyAny>> {
    let (indptr, indices, data, cols) = d.x.into_parts();
    let t = (
        PyArray1::from_vec(py, d.labels),
        PyArray1::from_vec(py, indptr),
        PyArray1::from_vec(py, indices),
        PyArray1::from_vec(py, data),
        cols,
    );
    Ok(t.into_pyobject(py)?.into_any())
}

/// Incremental LIBSVM/svmlight parser: feed bytes, then finish (or take rows as they come).
#[pyclass(module = "largemargin._native")]
pub struct LibsvmReader {
    inner: Option<LibsvmParser>,
}

fn index_base(zero_based: Option<bool>) -> IndexBase {
    match zero_based {
        None => IndexBase::Auto,
        Some(true) => IndexBase::Zero,
        Some(false) => IndexBase::One,
    }
}

#[pymethods]
impl LibsvmReader {
    #[new]
    fn new() -> Self {
        LibsvmReader { inner: Some(LibsvmParser::new()) }
    }
    fn feed(&mut self, chunk: &Bound<'_, PyBytes>) -> PyResult<()> {
        let parser = self.parser()?;
        let bytes = chunk.as_bytes();
        guarded(|| parser.feed(bytes))
    }
    /// Complete rows parsed and not yet taken.
    fn rows(&mut self) -> PyResult<usize> {
        Ok(self.parser()?.rows())
    }
    /// Lines read so far.
    fn lines(&mut self) -> PyResult<usize> {
        Ok(self.parser()?.lines())
    }
    /// Parses the last line (which may lack a newline), keeping the rows for `finish`.
    fn end_input(&mut self) -> PyResult<()> {
        let parser = self.parser()?;
        guarded(|| parser.end_input())
    }
    /// Whether a line read so far uses feature index 0.
    fn uses_index_zero(&mut self) -> PyResult<bool> {
        Ok(self.parser()?.uses_index_zero())
    }
    /// The rows parsed so far, as `finish` returns them, keeping the reader for more bytes
    /// (`last`: the final line too). The index base must be given.
    fn take<'py>(&mut self, py: Python<'py>, zero_based: bool, last: bool) -> PyResult<Bound<'py, PyAny>> {
        let parser = self.parser()?;
        let d = guarded(|| parser.take(index_base(Some(zero_based)), last))?;
        libsvm_data_to_py(py, d)
    }
    /// Returns (labels, indptr, indices, data, n_features); zero_based None means auto.
    #[pyo3(signature = (zero_based=None))]
    fn finish<'py>(&mut self, py: Python<'py>, zero_based: Option<bool>) -> PyResult<Bound<'py, PyAny>> {
        let p = self.inner.take().ok_or_else(|| PyValueError::new_err("reader already finished"))?;
        let d = guarded(|| p.finish(index_base(zero_based)))?;
        libsvm_data_to_py(py, d)
    }
}

impl LibsvmReader {
    fn parser(&mut self) -> PyResult<&mut LibsvmParser> {
        self.inner.as_mut().ok_or_else(|| PyValueError::new_err("reader already finished"))
    }
}

/// Writes a LIBSVM model file atomically, column j as feature index j + (0 if `zero_based` else
/// 1). `sv` is the support-vector matrix (ignored for precomputed kernels, where `sv_indices`
/// name the training examples).
#[pyfunction]
#[pyo3(signature = (path, *, svm_type, kernel, gamma, coef0, degree, labels, n_support, rho, prob_a, prob_b, sv_coef, sv, sv_indices, zero_based))]
pub fn write_libsvm_model<'py>(
    py: Python<'py>, path: &str, svm_type: Wrap<SvmType>, kernel: Wrap<KernelKind>, gamma: f64, coef0: f64,
    degree: i64, labels: PyReadonlyArray1<'py, i64>, n_support: PyReadonlyArray1<'py, i64>,
    rho: PyReadonlyArray1<'py, f64>, prob_a: PyReadonlyArray1<'py, f64>, prob_b: PyReadonlyArray1<'py, f64>,
    sv_coef: PyReadonlyArray2<'py, f64>, sv: &Bound<'py, PyAny>, sv_indices: PyReadonlyArray1<'py, i64>,
    zero_based: bool,
) -> PyResult<()> {
    let spec = kernel_spec(kernel.0, if gamma > 0.0 { gamma } else { 1.0 }, coef0, degree)?;
    let svm = PyMatrix::extract(sv)?;
    let view = svm.view()?;
    let precomputed = spec == KernelSpec::Precomputed;
    let all: Vec<usize> = (0..view.rows()).collect();
    let model = LibsvmModel {
        svm_type: svm_type.0,
        kernel: spec,
        labels: labels.as_slice()?.to_vec(),
        n_support: index_vec(&n_support)?,
        rho: rho.as_slice()?.to_vec(),
        prob_a: prob_a.as_slice()?.to_vec(),
        prob_b: prob_b.as_slice()?.to_vec(),
        sv_coef: convert::row_major(&sv_coef, "sv_coef")?.to_vec(),
        sv: if precomputed { CsrMatrix::new() } else { CsrMatrix::gather(&view, &all) },
        sv_indices: if precomputed { index_vec(&sv_indices)? } else { Vec::new() },
    };
    let base = index_base(Some(zero_based));
    run_guarded(py, || model.save(Path::new(path), base))
}

/// Writes `data` to `path` whole or not at all (a device or pipe is written in place).
#[pyfunction]
pub fn write_file_atomically(py: Python<'_>, path: &str, data: &Bound<'_, PyBytes>) -> PyResult<()> {
    let bytes = data.as_bytes().to_vec();
    run_guarded(py, || write_atomically(Path::new(path), |w| Ok(w.write_all(&bytes)?)))
}

/// Reads a LIBSVM model file into a dict of arrays, feature index i becoming column
/// i - (0 if `zero_based` else 1).
#[pyfunction]
#[pyo3(signature = (path, *, zero_based))]
pub fn read_libsvm_model<'py>(py: Python<'py>, path: &str, zero_based: bool) -> PyResult<Bound<'py, PyDict>> {
    let base = index_base(Some(zero_based));
    let m = run_guarded(py, || LibsvmModel::load(Path::new(path), base))?;
    let d = PyDict::new(py);
    let kernel = m.kernel.kind().expect("model files hold built-in kernels").name();
    // (a parameter the kernel does not take reads 0, degree 3)
    let (gamma, coef0, degree) = match m.kernel {
        KernelSpec::Poly { degree, gamma, coef0 } => (gamma, coef0, degree),
        KernelSpec::Rbf { gamma } => (gamma, 0.0, 3),
        KernelSpec::Sigmoid { gamma, coef0 } => (gamma, coef0, 3),
        _ => (0.0, 0.0, 3),
    };
    let nsv = m.n_sv();
    let rows = m.sv_coef.len() / nsv.max(1);
    d.set_item("svm_type", m.svm_type.name())?;
    d.set_item("kernel", kernel)?;
    d.set_item("gamma", gamma)?;
    d.set_item("coef0", coef0)?;
    d.set_item("degree", degree)?;
    d.set_item("labels", PyArray1::from_vec(py, m.labels))?;
    d.set_item("n_support", usize_array(py, &m.n_support))?;
    d.set_item("rho", PyArray1::from_vec(py, m.rho))?;
    d.set_item("prob_a", PyArray1::from_vec(py, m.prob_a))?;
    d.set_item("prob_b", PyArray1::from_vec(py, m.prob_b))?;
    d.set_item("sv_coef", matrix_array(py, m.sv_coef, rows.max(1), nsv)?)?;
    d.set_item("sv_indices", usize_array(py, &m.sv_indices))?;
    let (indptr, indices, data, cols) = m.sv.into_parts();
    d.set_item(
        "sv",
        (PyArray1::from_vec(py, indptr), PyArray1::from_vec(py, indices), PyArray1::from_vec(py, data), cols),
    )?;
    Ok(d)
}
