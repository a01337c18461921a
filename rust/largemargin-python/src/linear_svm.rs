//! Entry points of the exact linear SVMs (dual coordinate descent, or trust-region Newton on the
//! primal of the squared losses): the classifier (one-vs-rest or Crammer-Singer) and the regressor.

use largemargin::solver::dcd::{DcdParams, SvcLoss, SvrLoss};
use largemargin::train::linear_svm::{
    train_linear_svc, train_linear_svr, LinearSolver, LinearSvmFit, LinearSvmParams, MultiClass,
};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{index_vec, matrix_array, PyMatrix, Wrap};
use crate::run::run_fit;

/// {"coef": rows x cols, "intercept": rows, "n_iter": per problem, "converged": per problem}.
fn fit_to_py<'py>(py: Python<'py>, fit: LinearSvmFit) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let n_iter: Vec<i64> = fit.outcomes.iter().map(|o| o.iterations as i64).collect();
    let converged: Vec<bool> = fit.outcomes.iter().map(|o| o.converged).collect();
    d.set_item("coef", matrix_array(py, fit.coef, fit.rows, fit.cols)?)?;
    d.set_item("intercept", PyArray1::from_vec(py, fit.intercept))?;
    d.set_item("n_iter", PyArray1::from_vec(py, n_iter))?;
    d.set_item("converged", converged)?;
    Ok(d)
}

fn params(
    c: f64, tol: f64, max_iter: usize, intercept_scaling: Option<f64>, seed: u64, solver: LinearSolver,
) -> LinearSvmParams {
    LinearSvmParams { c, dcd: DcdParams { tol, max_iter, seed }, intercept_scaling, solver }
}

/// A linear SVM classifier on class indices `y` (0..n_classes), `class_weight` one per class;
/// `intercept_scaling` None fits no intercept.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, class_weight, sample_weight, loss, multi_class, solver, c, tol, max_iter, intercept_scaling, seed, n_jobs, verbose))]
pub fn fit_linear_svc<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, i64>, n_classes: usize, class_weight: Vec<f64>,
    sample_weight: PyReadonlyArray1<'py, f64>, loss: Wrap<SvcLoss>, multi_class: Wrap<MultiClass>,
    solver: Wrap<LinearSolver>, c: f64, tol: f64, max_iter: usize, intercept_scaling: Option<f64>, seed: u64,
    n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let y = index_vec(&y)?;
    let sw = sample_weight.as_slice()?;
    let p = params(c, tol, max_iter, intercept_scaling, seed, solver.0);
    let fit = run_fit(py, n_jobs, verbose.then_some("LinearSVC fit"), None, |ctl| {
        train_linear_svc(&xv, &y, n_classes, &class_weight, sw, loss.0, multi_class.0, &p, ctl)
    })?;
    fit_to_py(py, fit)
}

/// A linear SVM regressor on targets `y`.
#[pyfunction]
#[pyo3(signature = (x, y, *, sample_weight, loss, epsilon, solver, c, tol, max_iter, intercept_scaling, seed, n_jobs, verbose))]
pub fn fit_linear_svr<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, sample_weight: PyReadonlyArray1<'py, f64>,
    loss: Wrap<SvrLoss>, epsilon: f64, solver: Wrap<LinearSolver>, c: f64, tol: f64, max_iter: usize,
    intercept_scaling: Option<f64>, seed: u64, n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let (yv, sw) = (y.as_slice()?, sample_weight.as_slice()?);
    let p = params(c, tol, max_iter, intercept_scaling, seed, solver.0);
    let fit = run_fit(py, n_jobs, verbose.then_some("LinearSVR fit"), None, |ctl| {
        train_linear_svr(&xv, yv, sw, loss.0, epsilon, &p, ctl)
    })?;
    fit_to_py(py, fit)
}
