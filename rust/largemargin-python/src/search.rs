//! The cross-validated search of C and kernel settings (`largemargin::search`).

use largemargin::solver::smo::Selection;
use largemargin::train::search::{cross_validate, SearchFold, SearchParams, SearchSetting, SearchTask, WarmStart};
use largemargin::KernelSpec;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::convert::{cache_bytes, index_vec, kernel_from_py, matrix_array, usize_array, PyMatrix, Wrap};
use crate::run::run_fit;

fn indices(a: &PyReadonlyArray1<'_, i64>, what: &str) -> PyResult<Vec<usize>> {
    a.as_array()
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| PyValueError::new_err(format!("{what} holds a negative index"))))
        .collect()
}

/// Scores every (setting, fold, C). `kernels`: (kernel, gamma, coef0, degree) as `fit_svc` takes
/// them; `settings`: (kernel index per fold, class weights per fold, increasing Cs, epsilon), a
/// list of one entry meaning every fold's; `folds`: (train, eval) index arrays. Classification if `classes` (class indices) is given, else regression on
/// `targets`. Points are returned setting-major, then fold, then C.
#[pyfunction]
#[pyo3(signature = (x, *, classes=None, n_classes=0, targets=None, sample_weight, kernels, settings, folds, tol, shrinking, cache_size, max_iter, selection, warm_start, n_jobs, verbose, ovr_scores=true))]
pub fn cross_validate_svm<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, classes: Option<PyReadonlyArray1<'py, i64>>, n_classes: usize,
    targets: Option<PyReadonlyArray1<'py, f64>>, sample_weight: PyReadonlyArray1<'py, f64>,
    kernels: &Bound<'py, PyList>, settings: &Bound<'py, PyList>, folds: &Bound<'py, PyList>, tol: f64, shrinking: bool,
    cache_size: f64, max_iter: i64, selection: Wrap<Selection>, warm_start: Wrap<WarmStart>, n_jobs: Option<i64>,
    verbose: bool, ovr_scores: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let mut specs: Vec<KernelSpec> = Vec::new();
    for k in kernels.iter() {
        let (kernel, gamma, coef0, degree): (Bound<'py, PyAny>, f64, f64, i64) = k.extract()?;
        let (spec, external) = kernel_from_py(&kernel, gamma, coef0, degree)?;
        if external.is_some() {
            return Err(PyValueError::new_err("a cross-validated search needs a kernel the native engine computes"));
        }
        specs.push(spec);
    }
    let mut plan_settings = Vec::new();
    for s in settings.iter() {
        let (kernels, class_weight, cs, epsilon): (Vec<usize>, Vec<Vec<f64>>, Vec<f64>, f64) = s.extract()?;
        plan_settings.push(SearchSetting { kernels, class_weight, cs, epsilon });
    }
    let mut plan_folds = Vec::new();
    for f in folds.iter() {
        let (train, eval): (PyReadonlyArray1<'py, i64>, PyReadonlyArray1<'py, i64>) = f.extract()?;
        plan_folds.push(SearchFold {
            train: indices(&train, "a fold's training part")?,
            eval: indices(&eval, "a fold's scored part")?,
        });
    }
    let params = SearchParams {
        tol,
        shrinking,
        max_iter: if max_iter < 0 { None } else { Some(max_iter as u64) },
        selection: selection.0,
        cache_bytes: cache_bytes(cache_size)?,
        warm_start: warm_start.0,
        ovr_scores,
    };
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let labels = classes.as_ref().map(index_vec).transpose()?;
    let real = targets.as_ref().map(|t| t.as_slice()).transpose()?;
    let sw = sample_weight.as_slice()?;
    let task = match (&labels, real) {
        (Some(y), None) => SearchTask::Classification { y, n_classes },
        (None, Some(y)) => SearchTask::Regression { y },
        _ => return Err(PyValueError::new_err("give either classes or targets")),
    };
    let result = run_fit(py, n_jobs, verbose.then_some("cross-validated search"), None, |ctl| {
        cross_validate(&xv, task, sw, &specs, &plan_settings, &plan_folds, &params, ctl)
    })?;
    let d = PyDict::new(py);
    let width = if n_classes > 2 && ovr_scores { n_classes } else { 1 };
    let decisions = PyList::empty(py);
    let predicted = PyList::empty(py);
    let mut points = result.points;
    for p in points.iter_mut() {
        // (moved, not copied: a grid's decision values can be tens of MB)
        let decision = std::mem::take(&mut p.decision);
        let rows = decision.len() / width;
        decisions.append(if width > 1 {
            matrix_array(py, decision, rows, width)?
        } else {
            PyArray1::from_vec(py, decision).into_any()
        })?;
        predicted.append(usize_array(py, &std::mem::take(&mut p.predicted)))?;
    }
    d.set_item("decision", decisions)?;
    d.set_item("predicted", predicted)?;
    d.set_item("n_iter", PyArray1::from_vec(py, points.iter().map(|p| p.n_iter as i64).collect()))?;
    d.set_item("n_support", usize_array(py, &points.iter().map(|p| p.n_support).collect::<Vec<_>>()))?;
    d.set_item("converged", points.iter().map(|p| p.converged).collect::<Vec<_>>())?;
    d.set_item("fit_seconds", PyArray1::from_vec(py, points.iter().map(|p| p.fit_seconds).collect()))?;
    d.set_item("score_seconds", PyArray1::from_vec(py, points.iter().map(|p| p.score_seconds).collect()))?;
    d.set_item("kernel_evals", result.kernel_evals)?;
    d.set_item("row_hits", result.rows.hits)?;
    d.set_item("row_misses", result.rows.misses)?;
    Ok(d)
}
