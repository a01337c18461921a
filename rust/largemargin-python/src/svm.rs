//! Entry points of the kernel SVMs: C-SVC and nu-SVC, epsilon-SVR and nu-SVR, and one-class fits
//! (SMO; C-SVC and epsilon-SVR also ISDA), the decision values of a kernel expansion, kernel
//! matrices and one-vs-one class probabilities.

use largemargin::cache::auto_budget;
use largemargin::model::predict::Expansion;
use largemargin::model::probability::{couple, sigmoid_predict};
use largemargin::solver::isda::BiasKind;
use largemargin::solver::smo::Selection;
use largemargin::train::svm::{
    train_nu_svc, train_nu_svr, train_one_class, train_svc, train_svr, DualSolver, DualSolverKind, SvmParams,
};
use largemargin::{KernelEngine, KernelSpec};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{self, cache_bytes, index_vec, kernel_from_py, matrix_array, usize_array, PyMatrix, Wrap};
use crate::run::{run_detached, run_fit, threads_for};

/// The dual solver, built here only from the keywords of `fit_svc` and `fit_svr`: ISDA's bias
/// method (`isda_k` is the penalty's parameter) and over-relaxation factor are read for "isda"
/// only.
fn dual_solver(solver: DualSolverKind, isda_bias: BiasKind, isda_k: f64, over_relaxation: f64) -> DualSolver {
    solver.with(isda_bias.with(isda_k), over_relaxation)
}

/// The settings shared by C-SVC and epsilon-SVR (probability estimates and their seed aside);
/// `max_iter` < 0: no limit.
fn svm_params(
    kernel: KernelSpec, tol: f64, shrinking: bool, cache_size: f64, max_iter: i64, selection: Selection,
    solver: DualSolver,
) -> PyResult<SvmParams> {
    Ok(SvmParams {
        kernel,
        tol,
        shrinking,
        cache_bytes: cache_bytes(cache_size)?,
        max_iter: u64::try_from(max_iter).ok(),
        probability: false,
        seed: 0,
        selection,
        solver,
    })
}

/// One-vs-one C-SVC, or nu-SVC when `nu` is given (`sample_c` then holds each example's weight).
/// Returns a dict of fitted arrays in LIBSVM's layout.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, sample_c, kernel, gamma, coef0, degree, tol, shrinking, cache_size, max_iter, probability, seed, selection, n_jobs, verbose, solver=Wrap(DualSolverKind::Smo), isda_bias=Wrap(BiasKind::Secant), isda_k=1.0, over_relaxation=1.0, nu=None))]
pub fn fit_svc<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, i64>, n_classes: usize,
    sample_c: PyReadonlyArray1<'py, f64>, kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, tol: f64,
    shrinking: bool, cache_size: f64, max_iter: i64, probability: bool, seed: u64, selection: Wrap<Selection>,
    n_jobs: Option<i64>, verbose: bool, solver: Wrap<DualSolverKind>, isda_bias: Wrap<BiasKind>, isda_k: f64,
    over_relaxation: f64, nu: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let solver = dual_solver(solver.0, isda_bias.0, isda_k, over_relaxation);
    let p =
        SvmParams { probability, seed, ..svm_params(spec, tol, shrinking, cache_size, max_iter, selection.0, solver)? };
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let yv = index_vec(&y)?;
    let c = sample_c.as_slice()?;
    let label = verbose.then_some(if nu.is_some() { "NuSVC fit" } else { "SVC fit" });
    let fit = run_fit(py, n_jobs, label, external, |ctl| match nu {
        Some(nu) => train_nu_svc(&xv, &yv, n_classes, c, nu, &p, ctl),
        None => train_svc(&xv, &yv, n_classes, c, &p, ctl),
    })?;
    let d = PyDict::new(py);
    let nsv = fit.support.len();
    d.set_item("support", usize_array(py, &fit.support))?;
    d.set_item("n_support", usize_array(py, &fit.n_support))?;
    d.set_item("dual_coef", matrix_array(py, fit.dual_coef, n_classes - 1, nsv)?)?;
    d.set_item("intercept", PyArray1::from_vec(py, fit.intercept))?;
    d.set_item("prob_a", PyArray1::from_vec(py, fit.prob_a))?;
    d.set_item("prob_b", PyArray1::from_vec(py, fit.prob_b))?;
    d.set_item("objective", PyArray1::from_vec(py, fit.objective))?;
    d.set_item("n_iter", PyArray1::from_vec(py, fit.n_iter.iter().map(|&v| v as i64).collect()))?;
    d.set_item("converged", fit.converged)?;
    d.set_item("kernel_evals", fit.kernel_evals)?;
    Ok(d)
}

/// epsilon-SVR, or nu-SVR when `nu` is given (`epsilon` then unread).
#[pyfunction]
#[pyo3(signature = (x, y, *, sample_c, epsilon, kernel, gamma, coef0, degree, tol, shrinking, cache_size, max_iter, selection, n_jobs, verbose, solver=Wrap(DualSolverKind::Smo), isda_bias=Wrap(BiasKind::Secant), isda_k=1.0, over_relaxation=1.0, nu=None))]
pub fn fit_svr<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, sample_c: PyReadonlyArray1<'py, f64>,
    epsilon: f64, kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, tol: f64, shrinking: bool,
    cache_size: f64, max_iter: i64, selection: Wrap<Selection>, n_jobs: Option<i64>, verbose: bool,
    solver: Wrap<DualSolverKind>, isda_bias: Wrap<BiasKind>, isda_k: f64, over_relaxation: f64, nu: Option<f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let solver = dual_solver(solver.0, isda_bias.0, isda_k, over_relaxation);
    let p = svm_params(spec, tol, shrinking, cache_size, max_iter, selection.0, solver)?;
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let (yv, c) = (y.as_slice()?, sample_c.as_slice()?);
    let label = verbose.then_some(if nu.is_some() { "NuSVR fit" } else { "SVR fit" });
    let fit = run_fit(py, n_jobs, label, external, |ctl| match nu {
        Some(nu) => train_nu_svr(&xv, yv, c, nu, &p, ctl),
        None => train_svr(&xv, yv, c, epsilon, &p, ctl),
    })?;
    one_output(py, fit)
}

/// The one-class SVM: `sample_weight` bounds each coefficient, nu the fraction outside.
#[pyfunction]
#[pyo3(signature = (x, *, sample_weight, nu, kernel, gamma, coef0, degree, tol, shrinking, cache_size, max_iter, selection, n_jobs, verbose))]
pub fn fit_one_class<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, sample_weight: PyReadonlyArray1<'py, f64>, nu: f64,
    kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, tol: f64, shrinking: bool, cache_size: f64,
    max_iter: i64, selection: Wrap<Selection>, n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let p = svm_params(spec, tol, shrinking, cache_size, max_iter, selection.0, DualSolver::Smo)?;
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let w = sample_weight.as_slice()?;
    let label = verbose.then_some("OneClassSVM fit");
    let fit = run_fit(py, n_jobs, label, external, |ctl| train_one_class(&xv, w, nu, &p, ctl))?;
    one_output(py, fit)
}

/// The dict of a fit with one output (a regression or a one-class SVM).
fn one_output(py: Python<'_>, fit: largemargin::train::svm::SvrFit) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let nsv = fit.support.len();
    d.set_item("support", usize_array(py, &fit.support))?;
    d.set_item("dual_coef", matrix_array(py, fit.coef, 1, nsv)?)?;
    d.set_item("intercept", PyArray1::from_vec(py, vec![fit.intercept]))?;
    d.set_item("objective", PyArray1::from_vec(py, vec![fit.objective]))?;
    d.set_item("n_iter", PyArray1::from_vec(py, vec![fit.n_iter as i64]))?;
    d.set_item("converged", vec![fit.converged])?;
    d.set_item("kernel_evals", fit.kernel_evals)?;
    Ok(d)
}
/// Decision values (m x outputs) of a kernel expansion; `n_support` empty for one output.
#[pyfunction]
#[pyo3(signature = (x, *, sv, sv_columns, n_support, coef, intercept, kernel, gamma, coef0, degree, n_jobs))]
pub fn decision_function<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, sv: &Bound<'py, PyAny>, sv_columns: PyReadonlyArray1<'py, i64>,
    n_support: PyReadonlyArray1<'py, i64>, coef: PyReadonlyArray2<'py, f64>, intercept: PyReadonlyArray1<'py, f64>,
    kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    if external.is_some() {
        return Err(PyValueError::new_err("decision values of a Python kernel are computed from its kernel matrix"));
    }
    let (xm, svm) = (PyMatrix::extract(x)?, PyMatrix::extract(sv)?);
    let (xv, svv) = (xm.view()?, svm.view()?);
    let cols = index_vec(&sv_columns)?;
    let ns = index_vec(&n_support)?;
    let coef_s = convert::row_major(&coef, "coef")?;
    let icpt = intercept.as_slice()?;
    let exp = Expansion { kernel: spec, sv: svv, sv_columns: &cols, n_support: &ns, coef: coef_s, intercept: icpt };
    let nout = exp.n_outputs();
    let m = xv.rows();
    let dec = run_detached(py, threads_for(n_jobs)?, None, |c| exp.decision_with(&xv, c))?;
    matrix_array(py, dec, m, nout)
}

/// The kernel-cache budget in MB that `cache_size="auto"` gives a fit over `rows` examples whose
/// data stores `values` values (see `largemargin::cache::budget`).
#[pyfunction]
#[pyo3(signature = (rows, values))]
pub fn auto_cache_size(rows: usize, values: usize) -> f64 {
    auto_budget(rows, values) as f64 / 1048576.0
}

/// The kernel matrix K(a_i, b_j), m x n, of a built-in or composed kernel.
#[pyfunction]
#[pyo3(signature = (a, b, *, kernel, gamma, coef0, degree, n_jobs))]
pub fn kernel_matrix<'py>(
    py: Python<'py>, a: &Bound<'py, PyAny>, b: &Bound<'py, PyAny>, kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64,
    degree: i64, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    if external.is_some() || spec.is_precomputed() {
        return Err(PyValueError::new_err("kernel_matrix computes built-in and composed kernels only"));
    }
    let (am, bm) = (PyMatrix::extract(a)?, PyMatrix::extract(b)?);
    let (av, bv) = (am.view()?, bm.view()?);
    if av.cols() != bv.cols() {
        return Err(PyValueError::new_err(format!("the two matrices have {} and {} features", av.cols(), bv.cols())));
    }
    let (m, n) = (av.rows(), bv.rows());
    let k = run_detached(py, threads_for(n_jobs)?, None, |_| {
        av.check_finite()?;
        bv.check_finite()?;
        KernelEngine::over(bv, spec)?.cross(&av)
    })?;
    matrix_array(py, k, m, n)
}

/// Class probabilities from one-vs-one decision values (LIBSVM sign: > 0 favours the first class).
#[pyfunction]
#[pyo3(signature = (dec, *, prob_a, prob_b, n_classes))]
pub fn pairwise_probability<'py>(
    py: Python<'py>, dec: PyReadonlyArray2<'py, f64>, prob_a: PyReadonlyArray1<'py, f64>,
    prob_b: PyReadonlyArray1<'py, f64>, n_classes: usize,
) -> PyResult<Bound<'py, PyAny>> {
    let (a, b) = (prob_a.as_slice()?, prob_b.as_slice()?);
    let d = dec.as_array();
    let npairs = n_classes * (n_classes - 1) / 2;
    if d.ncols() != npairs || a.len() != npairs || b.len() != npairs {
        return Err(PyValueError::new_err("decision values and sigmoids do not match the number of classes"));
    }
    let m = d.nrows();
    let mut out = Vec::with_capacity(m * n_classes);
    for row in d.rows() {
        let mut r = vec![0.0; n_classes * n_classes];
        let mut p = 0;
        for i in 0..n_classes {
            for j in i + 1..n_classes {
                let v = sigmoid_predict(row[p], a[p], b[p]).clamp(1e-7, 1.0 - 1e-7);
                r[i * n_classes + j] = v;
                r[j * n_classes + i] = 1.0 - v;
                p += 1;
            }
        }
        if n_classes == 2 {
            out.extend([r[1], r[2]]);
        } else {
            out.extend(couple(&r, n_classes));
        }
    }
    matrix_array(py, out, m, n_classes)
}
