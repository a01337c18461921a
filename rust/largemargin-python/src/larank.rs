//! Entry points of multiclass LaRank and its baselines (passive-aggressive / MIRA, perceptrons), and
//! of LaRank from candidate label sets (ambiguous supervision).

use largemargin::solver::larank::ambiguous::Bags;
use largemargin::solver::larank::{Clock, LaRankParams, LaRankStats, Method, MethodKind, ScheduleKind};
use largemargin::train::larank::{train_ambiguous, train_larank, LaRankFit, LaRankTrainParams};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{self, cache_bytes, index_vec, kernel_from_py, matrix_array, to_py, usize_array, PyMatrix, Wrap};
use crate::run::run_fit;

/// A multiclass method with its schedule (read for "larank" only; `reprocess` for "fixed").
fn larank_method(name: MethodKind, schedule: ScheduleKind, reprocess: usize) -> Method {
    name.with(schedule.with(reprocess))
}

/// Fits a multiclass model on class indices `y` (0..n_classes). `warm`: the class coefficients
/// (rows x n_classes) of the first rows of `x`, which start in the model. Returns a dict.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, sample_weight, kernel, gamma, coef0, degree, method_name, schedule, reprocess, clock, c, tol, epochs, until_gap, cache_size, warm, seed, n_jobs, verbose))]
pub fn fit_larank<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, i64>, n_classes: usize,
    sample_weight: PyReadonlyArray1<'py, f64>, kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64,
    method_name: Wrap<MethodKind>, schedule: Wrap<ScheduleKind>, reprocess: usize, clock: Wrap<Clock>, c: f64,
    tol: f64, epochs: usize, until_gap: bool, cache_size: f64, warm: Option<PyReadonlyArray2<'py, f64>>, seed: u64,
    n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let params = LaRankParams {
        c,
        tol,
        method: larank_method(method_name.0, schedule.0, reprocess),
        clock: clock.0,
        cache_bytes: cache_bytes(cache_size)?,
    };
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let config = LaRankTrainParams { kernel: spec, solver: params, epochs, until_gap, seed };
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let label = index_vec(&y)?;
    let weight = sample_weight.as_slice()?.to_vec();
    let warm: Option<Vec<f64>> = match warm {
        Some(w) => Some(convert::row_major(&w, "warm")?.to_vec()),
        None => None,
    };
    let fit = run_fit(py, n_jobs, verbose.then_some("LaRank fit"), external, |ctl| {
        train_larank(&xv, &label, &weight, n_classes, &config, warm.as_deref(), ctl)
    })?;
    fit_dict(py, fit, n_classes)
}

/// Fits a multiclass model from candidate label sets: example e's candidates (class indices) are
/// `bag_labels[bag_offsets[e]..bag_offsets[e + 1]]`. Returns the dict of `fit_larank`, plus
/// "support_label": the candidate each support pattern was trained on.
#[pyfunction]
#[pyo3(signature = (x, bag_offsets, bag_labels, *, n_classes, sample_weight, kernel, gamma, coef0, degree, method_name, schedule, reprocess, clock, c, tol, epochs, until_gap, cache_size, seed, n_jobs, verbose))]
pub fn fit_ambiguous<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, bag_offsets: PyReadonlyArray1<'py, i64>,
    bag_labels: PyReadonlyArray1<'py, i64>, n_classes: usize, sample_weight: PyReadonlyArray1<'py, f64>,
    kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, method_name: Wrap<MethodKind>,
    schedule: Wrap<ScheduleKind>, reprocess: usize, clock: Wrap<Clock>, c: f64, tol: f64, epochs: usize,
    until_gap: bool, cache_size: f64, seed: u64, n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyDict>> {
    let method = larank_method(method_name.0, schedule.0, reprocess);
    if matches!(method, Method::Perceptron { .. }) {
        return Err(PyValueError::new_err(format!(
            "method '{}' cannot learn from candidate label sets",
            method_name.0
        )));
    }
    let params = LaRankParams { c, tol, method, clock: clock.0, cache_bytes: cache_bytes(cache_size)? };
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let config = LaRankTrainParams { kernel: spec, solver: params, epochs, until_gap, seed };
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let bags = Bags::from_lists(&index_vec(&bag_offsets)?, &index_vec(&bag_labels)?, n_classes).map_err(to_py)?;
    let weight = sample_weight.as_slice()?.to_vec();
    let fit = run_fit(py, n_jobs, verbose.then_some("ambiguous LaRank fit"), external, |ctl| {
        train_ambiguous(&xv, &bags, &weight, n_classes, &config, None, ctl)
    })?;
    let support_label = usize_array(py, &fit.support_label);
    let d = fit_dict(py, fit, n_classes)?;
    d.set_item("support_label", support_label)?;
    Ok(d)
}

fn fit_dict(py: Python<'_>, fit: LaRankFit, n_classes: usize) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    let p = fit.support.len();
    d.set_item("support", usize_array(py, &fit.support))?;
    d.set_item("coef", matrix_array(py, fit.coef, p, n_classes)?)?;
    if let Some(w) = fit.weights {
        let cols = w.len() / n_classes.max(1);
        d.set_item("weights", matrix_array(py, w, n_classes, cols)?)?;
    }
    d.set_item("dual", fit.dual)?;
    d.set_item("gap", fit.gap)?;
    d.set_item("support_vectors", fit.support_vectors)?;
    d.set_item("kernel_evals", fit.kernel_evals)?;
    set_stats(&d, &fit.stats, "argmax")?;
    Ok(d)
}

/// The operation counters of a LaRank fit (multiclass or sequence); `calls` names the inference
/// counter.
pub(crate) fn set_stats(d: &Bound<'_, PyDict>, s: &LaRankStats, calls: &str) -> PyResult<()> {
    let py = d.py();
    d.set_item("process_new", s.process_new)?;
    d.set_item("process_old", s.process_old)?;
    d.set_item("optimize", s.optimize)?;
    d.set_item("steps", s.steps)?;
    d.set_item(calls, s.argmax)?;
    d.set_item("epochs", s.epochs)?;
    d.set_item("dual_per_epoch", PyArray1::from_vec(py, s.dual_per_epoch.clone()))?;
    d.set_item("gap_per_epoch", PyArray1::from_vec(py, s.gap_per_epoch.clone()))?;
    Ok(())
}
