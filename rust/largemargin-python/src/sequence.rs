//! Entry points of sequence labeling: fitting (LaRankGreedy, LaRankExact, passive-aggressive,
//! structured perceptron) and decoding with a fitted model.

use largemargin::data::CsrView;
use largemargin::sequence::{Inference, SeqModel, Sequences};
use largemargin::solver::larank::sequence::{SeqMethodKind, SeqParams};
use largemargin::train::sequence::{train_sequence, SeqTrainParams};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{index_vec, matrix_array, to_py, Wrap};
use crate::larank::set_stats;
use crate::run::run_fit;

fn offsets(seq_ptr: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<usize>> {
    seq_ptr
        .as_array()
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| PyValueError::new_err("sequence offsets must be non-negative")))
        .collect()
}

/// Fits a sequence model on tokens in CSR form (`indptr`, `indices`, `data`, `n_features`
/// columns), grouped by `seq_ptr`, with label indices `y` (0..n_labels). Returns a dict.
#[pyfunction]
#[pyo3(signature = (indptr, indices, data, *, n_features, seq_ptr, y, n_labels, method, inference_name, order, c, tol, reprocess, epochs, until_gap, seed, verbose))]
pub fn fit_sequence<'py>(
    py: Python<'py>, indptr: PyReadonlyArray1<'py, i64>, indices: PyReadonlyArray1<'py, i32>,
    data: PyReadonlyArray1<'py, f64>, n_features: usize, seq_ptr: PyReadonlyArray1<'py, i64>,
    y: PyReadonlyArray1<'py, i64>, n_labels: usize, method: Wrap<SeqMethodKind>, inference_name: Wrap<Inference>,
    order: usize, c: f64, tol: f64, reprocess: usize, epochs: usize, until_gap: bool, seed: u64, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let params = SeqParams { c, tol, method: method.0.with(reprocess), inference: inference_name.0, order };
    let config = SeqTrainParams { solver: params, epochs, until_gap, seed };
    let (ip, ix, xd) = (indptr.as_slice()?, indices.as_slice()?, data.as_slice()?);
    let x = CsrView::new(ip, ix, xd, n_features).map_err(to_py)?;
    let sp = offsets(&seq_ptr)?;
    let seqs = Sequences::new(x, &sp).map_err(to_py)?;
    let label = index_vec(&y)?;
    let fit = run_fit(py, Some(1), verbose.then_some("sequence fit"), None, |ctl| {
        train_sequence(&seqs, &label, n_labels, &config, ctl)
    })?;
    let d = PyDict::new(py);
    let m = fit.model;
    d.set_item("emission", matrix_array(py, m.emit, m.features, m.labels)?)?;
    d.set_item("transition", m.trans.into_pyarray(py).reshape([m.order, m.labels + 1, m.labels])?)?;
    d.set_item("dual", fit.dual)?;
    d.set_item("gap", fit.gap)?;
    d.set_item("support_patterns", fit.support_patterns)?;
    d.set_item("support_vectors", fit.support_vectors)?;
    set_stats(&d, &fit.stats, "inference_calls")?;
    Ok(d)
}

/// Decodes every sequence with a fitted model (`emission`: n_features x n_labels,
/// `transition`: order x (n_labels + 1) x n_labels flattened, START last). Returns label indices.
#[pyfunction]
#[pyo3(signature = (indptr, indices, data, *, n_features, seq_ptr, emission, transition, order, inference_name))]
pub fn predict_sequence<'py>(
    py: Python<'py>, indptr: PyReadonlyArray1<'py, i64>, indices: PyReadonlyArray1<'py, i32>,
    data: PyReadonlyArray1<'py, f64>, n_features: usize, seq_ptr: PyReadonlyArray1<'py, i64>,
    emission: PyReadonlyArray2<'py, f64>, transition: PyReadonlyArray1<'py, f64>, order: usize,
    inference_name: Wrap<Inference>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let Wrap(inf) = inference_name;
    let shape = emission.shape();
    let (features, labels) = (shape[0], shape[1]);
    let model = SeqModel::from_parts(
        labels,
        features,
        order,
        emission.as_array().iter().copied().collect(),
        transition.as_slice()?.to_vec(),
    )
    .map_err(to_py)?;
    let (ip, ix, xd) = (indptr.as_slice()?, indices.as_slice()?, data.as_slice()?);
    let x = CsrView::new(ip, ix, xd, n_features).map_err(to_py)?;
    let sp = offsets(&seq_ptr)?;
    let seqs = Sequences::new(x, &sp).map_err(to_py)?;
    let out = py.detach(|| model.predict(&seqs, inf)).map_err(to_py)?;
    Ok(PyArray1::from_vec(py, out.into_iter().map(|v| v as i64).collect()))
}
