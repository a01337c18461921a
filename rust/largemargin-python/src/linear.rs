//! Entry points of the linear SGD solvers (SVMSGD2, SGD-QN, averaged SGD, plain SGD, the margin
//! perceptron).

use std::sync::Arc;

use largemargin::solver::sgd::loss::{Loss, MarginLoss};
use largemargin::solver::sgd::{skip_for, Algorithm, SgdParams};
use largemargin::train::linear::{train_linear as fit_problems, LinearParams, Problem, Stopping};
use numpy::{IntoPyArray, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};

use crate::adapters::{keeping_thread_state, Failure, PyLoss};
use crate::convert::{self, linear_models_from_py, linear_models_to_py, PyMatrix, Wrap};
use crate::run::run_fit_watching;

/// A built-in loss by name, or a Python loss (`largemargin.plugins.checked.CheckedLoss`; its
/// failures go to `failures`).
fn loss_from_py(loss: &Bound<'_, PyAny>, failures: &mut Vec<Arc<Failure>>) -> PyResult<Box<dyn Loss>> {
    if loss.is_instance_of::<PyString>() {
        let Wrap(l) = loss.extract::<Wrap<MarginLoss>>()?;
        return Ok(Box::new(l));
    }
    let failure = Arc::new(Failure::default());
    failures.push(failure.clone());
    Ok(Box::new(PyLoss::new(loss, failure)?))
}

fn params(
    algorithm: Algorithm, alpha: f64, t0: f64, rate: Option<f64>, skip: u64, fit_bias: bool, bias_rate: f64,
    average_start: f64,
) -> PyResult<SgdParams> {
    let p = SgdParams { algorithm, lambda: alpha, t0, rate, skip, fit_bias, bias_rate, average_start };
    p.validate().map_err(convert::to_py)?;
    Ok(p)
}

/// The new state, (primal, training error, passes run, converged) per problem, the seconds of
/// the passes, t0 and skip.
type LinearOutcome<'py> = (Bound<'py, PyDict>, Vec<(f64, f64, usize, bool)>, f64, f64, u64);

/// `epochs` passes of SGD on one binary problem per row of `labels` (+1/-1), in parallel,
/// continuing from `state` (see `convert::linear_models_from_py`). `class_weights[p]` holds the
/// (positive, negative) class weights of problem p. With `tol`, each problem stops early once its
/// objective has not improved by tol (relative) for `n_iter_no_change` passes, `epochs` the cap.
/// `skip` None: 16 / density of the data. `t0` None: chosen first as the thesis does (`largemargin::train::linear::train_linear`, the sample
/// drawn with `t0_seed`), on the data checked and converted once for both.
/// Returns the new state, per problem (primal objective, training error, passes, converged),
/// the seconds the passes took, t0 and skip.
#[pyfunction]
#[pyo3(signature = (x, labels, *, sample_weight, class_weights, state, algorithm, loss, alpha, t0, rate, skip, fit_bias, bias_rate, epochs, shuffle, seed, n_jobs, verbose, average_start=0.0, tol=None, n_iter_no_change=5, t0_seed=0, coef=None, keep_state=true))]
#[allow(clippy::too_many_arguments)]
pub fn fit_linear<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, labels: PyReadonlyArray2<'py, f64>,
    sample_weight: PyReadonlyArray1<'py, f64>, class_weights: Vec<(f64, f64)>, state: &Bound<'py, PyDict>,
    algorithm: Wrap<Algorithm>, loss: &Bound<'py, PyAny>, alpha: f64, t0: Option<f64>, rate: Option<f64>,
    skip: Option<u64>, fit_bias: bool, bias_rate: f64, epochs: usize, shuffle: bool, seed: u64, n_jobs: Option<i64>,
    verbose: bool, average_start: f64, tol: Option<f64>, n_iter_no_change: usize, t0_seed: u64,
    coef: Option<PyReadonlyArray2<'py, f64>>, keep_state: bool,
) -> PyResult<LinearOutcome<'py>> {
    let mut failures = Vec::new();
    let loss = loss_from_py(loss, &mut failures)?;
    // A Python loss holds the GIL for every step: problems in parallel would only wait on each
    // other, so they run one after another on one thread, which keeps its Python thread state.
    let python = !failures.is_empty();
    let n_jobs = if python { Some(1) } else { n_jobs };
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let (k, d) = (labels.shape()[0], xv.cols());
    // the weights' one home: zero pages until a problem writes its row (no copy made for Python)
    let size = k.checked_mul(d).ok_or_else(|| PyValueError::new_err("too many problems times features"))?;
    let mut out = vec![0.0f64; size];
    let mut models = linear_models_from_py(state, coef, d, algorithm.0, &mut out)?;
    if models.len() != k {
        return Err(PyValueError::new_err(format!("{} problems but a state for {}", k, models.len())));
    }
    // (from the checked view: its stored entries are unique, so they count the nonzeros)
    let skip = skip.unwrap_or_else(|| skip_for(&xv));
    let config = LinearParams {
        sgd: params(algorithm.0, alpha, t0.unwrap_or(1.0), rate, skip, fit_bias, bias_rate, average_start)?,
        epochs,
        shuffle,
        seed,
        stop: tol.map(|tol| Stopping { tol, n_iter_no_change }),
    };
    let labels: Vec<Vec<f64>> = labels.as_array().rows().into_iter().map(|r| r.to_vec()).collect();
    if class_weights.len() != labels.len() {
        return Err(PyValueError::new_err("one pair of class weights per problem"));
    }
    let problems: Vec<Problem> = labels
        .iter()
        .zip(&class_weights)
        .map(|(y, &(positive_weight, negative_weight))| Problem { y, positive_weight, negative_weight })
        .collect();
    let sw = sample_weight.as_slice()?;
    let loss = loss.as_ref();
    let (fits, seconds, t0) = run_fit_watching(py, n_jobs, verbose.then_some("SGD fit"), failures, |ctl| {
        let choose = t0.is_none().then_some(t0_seed);
        let mut train = || fit_problems(&xv, &problems, sw, &mut models, loss, &config, choose, keep_state, ctl);
        if python {
            keeping_thread_state(train)
        } else {
            train()
        }
    })?;
    let state = linear_models_to_py(py, &models)?;
    drop(models);
    state.set_item("coef", out.into_pyarray(py).reshape([k, d])?)?;
    Ok((state, fits.iter().map(|f| (f.primal, f.training_error, f.epochs, f.converged)).collect(), seconds, t0, skip))
}
