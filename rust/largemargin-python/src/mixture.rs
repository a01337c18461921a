//! Entry points of the hard mixture of experts: the capped reassignment, the global gater (MLP)
//! and the local gater (diagonal Gaussian mixtures). The experts are ordinary SVC/SVR fits, run
//! on worker threads under a `StopSignal`.

use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use largemargin::mixture::{assign_capped, DiagonalGmm, ExpertOutputs, Gater, GaterSchedule, GaterTask};
use largemargin::model::probability::fit_sigmoid;
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::convert::{self, matrix_array, Wrap};
use crate::run::run_fit;

/// A stop for the native runs a fit starts on its worker threads (a mixture's experts, one-vs-rest
/// members, an MLP's committees). Python delivers Ctrl-C to the main thread only, so a run on
/// another thread never sees it: the fit, interrupted in the main thread, requests this stop, and every run started on a thread inside `with stop:`
/// notices it within its waiting loop's poll (`stop_requested`) and ends with KeyboardInterrupt.
#[pyclass(module = "largemargin._native")]
#[derive(Default)]
pub struct StopSignal {
    flag: Arc<AtomicBool>,
}

thread_local! {
    /// The stops bound to this thread by `with`, innermost last.
    static BOUND: RefCell<Vec<Arc<AtomicBool>>> = const { RefCell::new(Vec::new()) };
}

#[pymethods]
impl StopSignal {
    #[new]
    fn new() -> Self {
        Self::default()
    }

    /// Asks every run bound to this stop, now or later, to end.
    fn request(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    #[getter]
    fn requested(&self) -> bool {
        self.flag.load(Ordering::SeqCst)
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        BOUND.with(|b| b.borrow_mut().push(slf.flag.clone()));
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        BOUND.with(|b| {
            let mut b = b.borrow_mut();
            if let Some(at) = b.iter().rposition(|f| Arc::ptr_eq(f, &self.flag)) {
                b.remove(at);
            }
        });
        false
    }
}

/// Whether a stop bound to the calling thread has been requested.
pub(crate) fn stop_requested() -> bool {
    BOUND.with(|b| b.borrow().iter().any(|f| f.load(Ordering::SeqCst)))
}

fn rows(a: &PyReadonlyArray2<'_, f64>) -> PyResult<(Vec<f64>, usize, usize)> {
    let shape = a.shape();
    // row-major: a Fortran-ordered array is contiguous too, in the other order
    let data = match a.as_slice() {
        Ok(s) if a.is_c_contiguous() => s.to_vec(),
        _ => a.as_array().iter().copied().collect(),
    };
    Ok((data, shape[0], shape[1]))
}

/// The expert of every example under the capacity cap; `order` is the order examples are taken in.
#[pyfunction]
#[pyo3(signature = (preference, *, cap, order))]
pub fn assign_experts<'py>(
    py: Python<'py>, preference: PyReadonlyArray2<'py, f64>, cap: usize, order: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (pref, n, k) = rows(&preference)?;
    let order: Vec<usize> = order
        .as_array()
        .iter()
        .map(|&i| usize::try_from(i).map_err(|_| PyValueError::new_err("the order holds a negative index")))
        .collect::<PyResult<_>>()?;
    let expert = run_fit(py, Some(1), None, None, |_| assign_capped(&pref, n, k, cap, &order))?;
    Ok(PyArray1::from_vec(py, expert.into_iter().map(|e| e as i64).collect()))
}

type GaterWeights<'py> =
    (PyReadonlyArray2<'py, f64>, PyReadonlyArray1<'py, f64>, PyReadonlyArray2<'py, f64>, PyReadonlyArray1<'py, f64>);

fn gater_from(w: GaterWeights<'_>) -> PyResult<Gater> {
    let (w1, b1, w2, b2) = w;
    let (w1, hidden, inputs) = rows(&w1)?;
    let (w2, experts, hidden2) = rows(&w2)?;
    if hidden2 != hidden {
        return Err(PyValueError::new_err("the gater's layers do not fit together"));
    }
    Ok(Gater { inputs, hidden, experts, w1, b1: b1.as_array().to_vec(), w2, b2: b2.as_array().to_vec() })
}

fn gater_dict<'py>(py: Python<'py>, g: Gater, losses: Vec<f64>) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("w1", matrix_array(py, g.w1, g.hidden, g.inputs)?)?;
    d.set_item("b1", PyArray1::from_vec(py, g.b1))?;
    d.set_item("w2", matrix_array(py, g.w2, g.experts, g.hidden)?)?;
    d.set_item("b2", PyArray1::from_vec(py, g.b2))?;
    d.set_item("losses", PyArray1::from_vec(py, losses))?;
    Ok(d)
}

/// Trains the global gater on frozen expert outputs: (n, experts), or (n, m) with `candidates`
/// (n, m) naming each entry's expert; from `warm` weights when given, otherwise from a seeded start
/// with `hidden` units and `experts` outputs.
#[pyfunction]
#[pyo3(signature = (x, outputs, candidates, y, *, task, experts, hidden, epochs, learning_rate, decay, seed, warm, n_jobs))]
pub fn fit_gater<'py>(
    py: Python<'py>, x: PyReadonlyArray2<'py, f64>, outputs: PyReadonlyArray2<'py, f64>,
    candidates: Option<PyReadonlyArray2<'py, i64>>, y: PyReadonlyArray1<'py, f64>, task: Wrap<GaterTask>,
    experts: usize, hidden: usize, epochs: usize, learning_rate: f64, decay: f64, seed: u64,
    warm: Option<GaterWeights<'py>>, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let Wrap(task) = task;
    let (xv, _, d) = rows(&x)?;
    let (fv, _, width) = rows(&outputs)?;
    let cand: Option<Vec<usize>> = match &candidates {
        None => None,
        Some(c) => {
            if c.shape() != outputs.shape() {
                return Err(PyValueError::new_err("candidates must have the shape of the outputs"));
            }
            Some(
                c.as_array()
                    .iter()
                    .map(|&i| usize::try_from(i).map_err(|_| PyValueError::new_err("a candidate expert is negative")))
                    .collect::<PyResult<_>>()?,
            )
        }
    };
    let yv = y.as_array().to_vec();
    let mut gater = match warm {
        Some(w) => gater_from(w)?,
        None => Gater::new(d, hidden, experts, seed).map_err(convert::to_py)?,
    };
    let schedule = GaterSchedule { epochs, learning_rate, decay, seed };
    let out = ExpertOutputs { values: &fv, experts: cand.as_deref(), width };
    let losses = run_fit(py, n_jobs, None, None, |ctl| gater.train(&xv, &out, &yv, task, schedule, ctl))?;
    gater_dict(py, gater, losses)
}

/// g_k(x) for every row: (n, experts).
#[pyfunction]
#[pyo3(signature = (x, *, weights, n_jobs))]
pub fn gater_gates<'py>(
    py: Python<'py>, x: PyReadonlyArray2<'py, f64>, weights: GaterWeights<'py>, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyAny>> {
    let (xv, n, _) = rows(&x)?;
    let gater = gater_from(weights)?;
    let k = gater.experts;
    let gates = run_fit(py, n_jobs, None, None, |_| gater.gates(&xv))?;
    matrix_array(py, gates, n, k)
}

/// EM for a diagonal Gaussian mixture: a dict of weights, means, variances.
#[pyfunction]
#[pyo3(signature = (x, *, components, iterations, tol, variance_floor, seed, n_jobs))]
pub fn fit_gmm<'py>(
    py: Python<'py>, x: PyReadonlyArray2<'py, f64>, components: usize, iterations: usize, tol: f64,
    variance_floor: f64, seed: u64, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (xv, _, d) = rows(&x)?;
    let gmm = run_fit(py, n_jobs, None, None, |ctl| {
        DiagonalGmm::train(&xv, d, components, iterations, tol, variance_floor, seed, ctl)
    })?;
    let out = PyDict::new(py);
    let g = gmm.weights.len();
    out.set_item("weights", PyArray1::from_vec(py, gmm.weights))?;
    out.set_item("means", matrix_array(py, gmm.means, g, d)?)?;
    out.set_item("variances", matrix_array(py, gmm.variances, g, d)?)?;
    Ok(out)
}

/// log P(x) under a diagonal Gaussian mixture, per row.
#[pyfunction]
#[pyo3(signature = (x, *, weights, means, variances, n_jobs))]
pub fn gmm_log_density<'py>(
    py: Python<'py>, x: PyReadonlyArray2<'py, f64>, weights: PyReadonlyArray1<'py, f64>,
    means: PyReadonlyArray2<'py, f64>, variances: PyReadonlyArray2<'py, f64>, n_jobs: Option<i64>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (xv, _, _) = rows(&x)?;
    let (means, _, dims) = rows(&means)?;
    let (variances, _, _) = rows(&variances)?;
    let gmm = DiagonalGmm { dims, weights: weights.as_array().to_vec(), means, variances };
    let out = run_fit(py, n_jobs, None, None, |_| gmm.log_density(&xv))?;
    Ok(PyArray1::from_vec(py, out))
}

/// Platt's sigmoid P(y=+1|f) = 1 / (1 + exp(a f + b)) fitted to decision values: (a, b).
#[pyfunction]
pub fn fit_platt(decision: PyReadonlyArray1<'_, f64>, positive: PyReadonlyArray1<'_, bool>) -> PyResult<(f64, f64)> {
    let (dec, pos) = (decision.as_array().to_vec(), positive.as_array().to_vec());
    if dec.len() != pos.len() || dec.is_empty() || dec.iter().any(|v| !v.is_finite()) {
        return Err(PyValueError::new_err("Platt scaling needs as many finite decision values as labels"));
    }
    Ok(fit_sigmoid(&dec, &pos))
}
