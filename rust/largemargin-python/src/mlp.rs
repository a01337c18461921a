//! Entry points of the margin MLPs: the simple MLP's training (with its curves) and decision.

use largemargin::mlp::{train_simple_mlp, SimpleMlp, SimpleMlpParams};
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::PyMatrix;
use crate::run_fit;

type Weights<'py> = (PyReadonlyArray2<'py, f32>, PyReadonlyArray1<'py, f64>, f64);

fn model_from(w: Weights<'_>) -> PyResult<SimpleMlp> {
    let (v, d, b) = w;
    let shape = v.shape();
    let (hidden, inputs) = (shape[0], shape[1]);
    if d.len() != hidden {
        return Err(PyValueError::new_err("the simple MLP's weights do not fit together"));
    }
    Ok(SimpleMlp { inputs, hidden, v: v.as_array().iter().copied().collect(), d: d.as_array().to_vec(), b })
}

/// Trains a simple MLP on labels +-1 (from `warm` weights when given); with a validation set,
/// early stopping. Returns the kept weights and the per-epoch curves.
#[pyfunction]
#[pyo3(signature = (x, y, x_val, y_val, hidden, beta, learning_rate, decay, max_epochs, patience, seed, warm, n_jobs))]
#[allow(clippy::too_many_arguments)]
pub fn fit_simple_mlp<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, x_val: Option<&Bound<'py, PyAny>>,
    y_val: Option<PyReadonlyArray1<'py, f64>>, hidden: usize, beta: f64, learning_rate: f64, decay: f64,
    max_epochs: usize, patience: usize, seed: u64, warm: Option<Weights<'py>>, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let yv = y.as_slice()?;
    let val_m = x_val.map(PyMatrix::extract).transpose()?;
    let val_v = val_m.as_ref().map(|m| m.view()).transpose()?;
    let val_y = y_val.as_ref().map(|a| a.as_slice()).transpose()?;
    let validation = match (&val_v, val_y) {
        (Some(m), Some(y)) => Some((m, y)),
        (None, None) => None,
        _ => return Err(PyValueError::new_err("a validation set needs both x_val and y_val")),
    };
    let warm = warm.map(model_from).transpose()?;
    let params = SimpleMlpParams { hidden, beta, learning_rate, decay, max_epochs, patience, seed };
    let fit = run_fit(py, n_jobs, None, None, |ctl| train_simple_mlp(&xv, yv, validation, &params, warm, ctl))?;
    let out = PyDict::new(py);
    let m = fit.model;
    let v = numpy::PyArray1::from_vec(py, m.v).reshape([m.hidden, m.inputs])?;
    out.set_item("v", v)?;
    out.set_item("d", PyArray1::from_vec(py, m.d))?;
    out.set_item("b", m.b)?;
    out.set_item("best_epoch", fit.best_epoch)?;
    out.set_item("epochs", fit.epochs)?;
    out.set_item("train_loss", PyArray1::from_vec(py, fit.train_loss))?;
    out.set_item("train_error", PyArray1::from_vec(py, fit.train_error))?;
    out.set_item("updates", PyArray1::from_vec(py, fit.updates))?;
    out.set_item("validation_error", PyArray1::from_vec(py, fit.validation_error))?;
    Ok(out)
}

/// f(x) = b + sum_i hardtanh(v_i . x + d_i) for every row.
#[pyfunction]
pub fn simple_mlp_decision<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, weights: Weights<'py>, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let model = model_from(weights)?;
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let f = run_fit(py, n_jobs, None, None, |_| model.decision(&xv))?;
    Ok(PyArray1::from_vec(py, f))
}
