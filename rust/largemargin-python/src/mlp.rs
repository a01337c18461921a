//! Entry points of the margin MLPs: training (with the per-epoch curves) and decisions of the
//! simple MLP, the Nilsson MLP and the tanh network.

use largemargin::data::Matrix;
use largemargin::error::Error;
use largemargin::mlp::{
    train_network, train_nilsson, train_simple_mlp, Criterion, EpochFit, HiddenLayer, Network, NetworkParams,
    NilssonMlp, NilssonParams, OptimizerKind, SimpleMlp, SimpleMlpParams,
};
use largemargin::runtime::control::Control;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{self, PyMatrix, Wrap};
use crate::run::run_fit;

/// (v (hidden x inputs, float32), d)
type Layer<'py> = (PyReadonlyArray2<'py, f32>, PyReadonlyArray1<'py, f64>);

fn layer_from(l: Layer<'_>) -> PyResult<HiddenLayer> {
    let (v, d) = l;
    let shape = v.shape();
    let weights: Vec<f32> = v.as_array().iter().copied().collect();
    HiddenLayer::from_unit_major(shape[0], shape[1], &weights, d.as_array().to_vec()).map_err(convert::to_py)
}

/// The kept layer and the curves of an epoch fit, as a dict.
fn fit_dict<'py, M>(py: Python<'py>, fit: EpochFit<M>, layer: HiddenLayer, b: f64) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("v", PyArray1::from_vec(py, layer.unit_major()).reshape([layer.hidden, layer.inputs])?)?;
    out.set_item("d", PyArray1::from_vec(py, layer.d))?;
    out.set_item("b", b)?;
    out.set_item("best_epoch", fit.best_epoch)?;
    out.set_item("epochs", fit.epochs)?;
    out.set_item("train_loss", PyArray1::from_vec(py, fit.train_loss))?;
    out.set_item("train_error", PyArray1::from_vec(py, fit.train_error))?;
    out.set_item("updates", PyArray1::from_vec(py, fit.updates))?;
    out.set_item("validation_error", PyArray1::from_vec(py, fit.validation_error))?;
    Ok(out)
}

fn validation_set<'a>(
    m: &'a Option<Matrix<'a>>, y: &'a Option<PyReadonlyArray1<'_, f64>>,
) -> PyResult<Option<(&'a Matrix<'a>, &'a [f64])>> {
    match (m, y) {
        (Some(m), Some(y)) => Ok(Some((m, y.as_slice()?))),
        (None, None) => Ok(None),
        _ => Err(PyValueError::new_err("a validation set needs both x_val and y_val")),
    }
}

/// Reads the training rows, their labels and the optional validation set, and runs `train` on
/// them with the GIL released.
fn fit_on<'py, T: Send>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: &PyReadonlyArray1<'py, f64>, x_val: Option<&Bound<'py, PyAny>>,
    y_val: &Option<PyReadonlyArray1<'py, f64>>, n_jobs: Option<i64>,
    train: impl FnOnce(&Matrix, &[f64], Option<(&Matrix, &[f64])>, &Control) -> Result<T, Error> + Send,
) -> PyResult<T> {
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let yv = y.as_slice()?;
    let val_m = x_val.map(PyMatrix::extract).transpose()?;
    let val_v = val_m.as_ref().map(|m| m.view()).transpose()?;
    let validation = validation_set(&val_v, y_val)?;
    run_fit(py, n_jobs, None, None, |ctl| train(&xv, yv, validation, ctl))
}

/// `decide` on the rows of x, with the GIL released.
fn decision_on<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, n_jobs: Option<i64>,
    decide: impl FnOnce(&Matrix) -> Result<Vec<f64>, Error> + Send,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let f = run_fit(py, n_jobs, None, None, |_| decide(&xv))?;
    Ok(PyArray1::from_vec(py, f))
}

/// Trains a simple MLP on labels +-1 (from `warm` weights when given); with a validation set,
/// early stopping. Returns the kept weights and the per-epoch curves.
#[pyfunction]
#[pyo3(signature = (x, y, x_val, y_val, *, hidden, beta, learning_rate, decay, max_epochs, patience, seed, warm, n_jobs, average=false, init_scale=1.0))]
pub fn fit_simple_mlp<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, x_val: Option<&Bound<'py, PyAny>>,
    y_val: Option<PyReadonlyArray1<'py, f64>>, hidden: usize, beta: f64, learning_rate: f64, decay: f64,
    max_epochs: usize, patience: usize, seed: u64, warm: Option<(Layer<'py>, f64)>, n_jobs: Option<i64>, average: bool,
    init_scale: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let warm = warm.map(|(l, b)| layer_from(l).map(|layer| SimpleMlp { layer, b })).transpose()?;
    let params =
        SimpleMlpParams { hidden, beta, learning_rate, decay, max_epochs, patience, seed, average, init_scale };
    let fit = fit_on(py, x, &y, x_val, &y_val, n_jobs, |x, y, validation, ctl| {
        train_simple_mlp(x, y, validation, &params, warm, ctl)
    })?;
    let (layer, b) = (fit.model.layer.clone(), fit.model.b);
    fit_dict(py, fit, layer, b)
}

/// f(x) = b + sum_i hardtanh(v_i . x + d_i) for every row.
#[pyfunction]
#[pyo3(signature = (x, *, layer, b, n_jobs))]
pub fn simple_mlp_decision<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, layer: Layer<'py>, b: f64, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let model = SimpleMlp { layer: layer_from(layer)?, b };
    decision_on(py, x, n_jobs, |x| model.decision(x))
}

/// Trains the Nilsson MLP (a committee of sign units, Algorithm 8.3) on labels +-1; with a
/// validation set, early stopping. Returns the kept layer (`b` is 0: no output bias) and the curves.
#[pyfunction]
#[pyo3(signature = (x, y, x_val, y_val, *, hidden, learning_rate, max_epochs, patience, seed, init_scale, n_jobs))]
pub fn fit_nilsson<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, x_val: Option<&Bound<'py, PyAny>>,
    y_val: Option<PyReadonlyArray1<'py, f64>>, hidden: usize, learning_rate: f64, max_epochs: usize, patience: usize,
    seed: u64, init_scale: f64, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let params = NilssonParams { hidden, learning_rate, max_epochs, patience, seed, init_scale };
    let fit = fit_on(py, x, &y, x_val, &y_val, n_jobs, |x, y, validation, ctl| {
        train_nilsson(x, y, validation, &params, ctl)
    })?;
    let layer = fit.model.layer.clone();
    fit_dict(py, fit, layer, 0.0)
}

/// The committee's vote sum_i sign(v_i . x + d_i) for every row, plus the tie-break term in
/// [-1/2, 1/2] (see `NilssonMlp::decision`).
#[pyfunction]
#[pyo3(signature = (x, *, layer, n_jobs))]
pub fn nilsson_decision<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, layer: Layer<'py>, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let model = NilssonMlp { layer: layer_from(layer)? };
    decision_on(py, x, n_jobs, |x| model.decision(x))
}

/// Trains the one-hidden-layer tanh MLP on labels +-1 with `criterion` ("mse", "cross_entropy",
/// "tanh_mse") and `optimizer` ("sgd", or "block_newton" with `damping` and `sample`).
#[pyfunction]
#[pyo3(signature = (x, y, x_val, y_val, *, hidden, criterion, optimizer, learning_rate, damping, sample, max_epochs, patience, seed, n_jobs))]
pub fn fit_network<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, x_val: Option<&Bound<'py, PyAny>>,
    y_val: Option<PyReadonlyArray1<'py, f64>>, hidden: usize, criterion: Wrap<Criterion>,
    optimizer: Wrap<OptimizerKind>, learning_rate: f64, damping: f64, sample: usize, max_epochs: usize,
    patience: usize, seed: u64, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (Wrap(criterion), optimizer) = (criterion, optimizer.0.with(damping, sample));
    let params = NetworkParams { hidden, criterion, optimizer, learning_rate, max_epochs, patience, seed };
    let fit = fit_on(py, x, &y, x_val, &y_val, n_jobs, |x, y, validation, ctl| {
        train_network(x, y, validation, &params, ctl)
    })?;
    let (layer, w, b) = (fit.model.layer.clone(), fit.model.w.clone(), fit.model.b);
    let out = fit_dict(py, fit, layer, b)?;
    out.set_item("w", PyArray1::from_vec(py, w))?;
    Ok(out)
}

/// f(x) = b + sum_n w_n tanh(v_n . x + d_n) for every row.
#[pyfunction]
#[pyo3(signature = (x, *, layer, w, b, n_jobs))]
pub fn network_decision<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, layer: Layer<'py>, w: PyReadonlyArray1<'py, f64>, b: f64,
    n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let model = Network { layer: layer_from(layer)?, w: w.as_array().to_vec(), b };
    decision_on(py, x, n_jobs, |x| model.decision(x))
}
