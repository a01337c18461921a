//! Python objects standing in for core traits: a plugin's kernel as an `ExternalKernel`, a
//! plugin's example-selection strategy as a `SelectionStrategy`, a labelling callback as an
//! `Oracle`, a plugin's loss as a `Loss`.
//!
//! The core calls an adapter from its worker threads with the GIL released; the adapter takes the
//! GIL only around the Python call. The first Python exception is kept whole (type, message,
//! traceback, cause) to be raised to the user after the run, and stops the run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use largemargin::kernel::ExternalKernel;
use largemargin::solver::online::lasvm::{Choice, Oracle, SelectionStrategy};
use largemargin::solver::sgd::loss::Loss;
use largemargin::Control;
use largemargin::Error;
use numpy::{PyArray1, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::prelude::*;

/// Where an adapter keeps the first exception and whom it tells to stop.
#[derive(Default)]
pub struct Failure {
    error: Mutex<Option<PyErr>>,
    control: Mutex<Option<Arc<Control>>>,
}

impl Failure {
    /// Failures from now on stop this run.
    pub fn watch(&self, control: Arc<Control>) {
        *self.control.lock().unwrap_or_else(|p| p.into_inner()) = Some(control);
    }
    fn record(&self, e: PyErr) -> String {
        let message = Python::attach(|py| e.value(py).to_string());
        let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
        if slot.is_none() {
            *slot = Some(e);
        }
        if let Some(c) = self.control.lock().unwrap_or_else(|p| p.into_inner()).as_ref() {
            c.request_stop();
        }
        message
    }
    /// Whether the run this failure stops was asked to stop (Ctrl-C or a failure).
    fn stopped(&self) -> bool {
        self.control.lock().unwrap_or_else(|p| p.into_inner()).as_ref().is_some_and(|c| c.should_stop())
    }
    /// The first exception raised during the run, if any.
    pub fn take(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A Python object with `row(i, cols) -> 1-D float64 array` (cols: int64 array, or None for every
/// example), `diagonal(start, stop) -> 1-D float64 array` and `len()`: `largemargin.plugins.TrainingKernel`.
pub struct PyKernel {
    object: Py<PyAny>,
    name: String,
    len: usize,
    pub failure: Arc<Failure>,
}

impl PyKernel {
    pub fn new(object: &Bound<'_, PyAny>) -> PyResult<Arc<Self>> {
        let len = object.len()?;
        let name = object.repr()?.to_string();
        Ok(Arc::new(PyKernel { object: object.clone().unbind(), name, len, failure: Arc::default() }))
    }

    /// Copies a returned 1-D array into `out`, checking its type and length.
    fn read(&self, value: Bound<'_, PyAny>, what: &str, out: &mut [f64]) -> PyResult<()> {
        let array: PyReadonlyArray1<'_, f64> = value.extract().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!("{} {what} must return a 1-D float64 array", self.name))
        })?;
        if array.len() != out.len() {
            return Err(pyo3::exceptions::PyValueError::new_err(format!(
                "{} {what} returned {} values, expected {}",
                self.name,
                array.len(),
                out.len()
            )));
        }
        match array.as_slice() {
            Ok(s) => out.copy_from_slice(s),
            Err(_) => out.iter_mut().zip(array.as_array().iter()).for_each(|(o, &v)| *o = v),
        }
        Ok(())
    }
}

impl ExternalKernel for PyKernel {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn len(&self) -> usize {
        self.len
    }
    fn row(&self, i: usize, cols: Option<&[usize]>, out: &mut [f64]) -> Result<(), String> {
        Python::attach(|py| {
            let cols = match cols {
                Some(c) => PyArray1::from_iter(py, c.iter().map(|&v| v as i64)).into_any(),
                None => py.None().into_bound(py),
            };
            self.object
                .bind(py)
                .call_method1("row", (i, cols))
                .and_then(|v| self.read(v, &format!("row({i})"), out))
                .map_err(|e| self.failure.record(e))
        })
    }
    /// Asked for in slices, so that a stop (Ctrl-C) lands between them: the whole diagonal of a
    /// Python kernel over 60,000 rows took 2-5 s in one call.
    fn diagonal(&self) -> Result<Vec<f64>, String> {
        const SLICE: usize = 4096;
        let mut out = vec![0.0; self.len];
        for (k, part) in out.chunks_mut(SLICE).enumerate() {
            if self.failure.stopped() {
                return Err("interrupted".into());
            }
            let (start, stop) = (k * SLICE, k * SLICE + part.len());
            Python::attach(|py| {
                self.object
                    .bind(py)
                    .call_method1("diagonal", (start, stop))
                    .and_then(|v| self.read(v, &format!("diagonal({start}, {stop})"), part))
                    .map_err(|e| self.failure.record(e))
            })?;
        }
        Ok(out)
    }
}

/// A Python strategy object: `n_candidates` and `choose(decision, labels) -> int | None`
/// (None: process none of these candidates). An exception ends the pass and is re-raised.
pub struct PyStrategy {
    object: Py<PyAny>,
    name: String,
    n_candidates: usize,
    failure: Arc<Failure>,
}

impl PyStrategy {
    pub fn new(object: &Bound<'_, PyAny>, failure: Arc<Failure>) -> PyResult<Self> {
        let name = object.repr()?.to_string();
        let n_candidates: usize = object.getattr("n_candidates")?.extract().map_err(|_| {
            pyo3::exceptions::PyValueError::new_err(format!("{name}.n_candidates must be a positive integer"))
        })?;
        if n_candidates == 0 {
            return Err(pyo3::exceptions::PyValueError::new_err(format!("{name}.n_candidates must be positive")));
        }
        Ok(PyStrategy { object: object.clone().unbind(), name, n_candidates, failure })
    }
}

impl SelectionStrategy for PyStrategy {
    fn n_candidates(&self) -> usize {
        self.n_candidates
    }
    fn choose(&mut self, decision: &[f64], labels: &[f64], _gap: f64) -> Choice {
        Python::attach(|py| {
            let args = (PyArray1::from_slice(py, decision), PyArray1::from_slice(py, labels));
            let outcome = self.object.bind(py).call_method1("choose", args).and_then(|v| {
                if v.is_none() {
                    return Ok(Choice::Skip);
                }
                let k: usize = v.extract().map_err(|_| {
                    pyo3::exceptions::PyTypeError::new_err(format!("{}.choose must return an int or None", self.name))
                })?;
                if k >= decision.len() {
                    return Err(pyo3::exceptions::PyValueError::new_err(format!(
                        "{}.choose returned {k} for {} candidates",
                        self.name,
                        decision.len()
                    )));
                }
                Ok(Choice::Take(k))
            });
            outcome.unwrap_or_else(|e| {
                self.failure.record(e);
                Choice::Stop
            })
        })
    }
}

/// A Python callable `oracle(problem, index) -> +1.0 or -1.0`: the label, for binary problem
/// `problem`, of an example LaSVM chose without one. An exception ends the run and is re-raised.
pub struct PyOracle {
    object: Py<PyAny>,
    failure: Arc<Failure>,
}

impl PyOracle {
    pub fn new(object: &Bound<'_, PyAny>, failure: Arc<Failure>) -> Self {
        PyOracle { object: object.clone().unbind(), failure }
    }
    /// The oracle of one binary problem.
    pub fn for_problem(&self, problem: usize) -> ProblemOracle<'_> {
        ProblemOracle { oracle: self, problem }
    }
}

pub struct ProblemOracle<'o> {
    oracle: &'o PyOracle,
    problem: usize,
}

impl Oracle for ProblemOracle<'_> {
    fn label(&mut self, e: usize) -> largemargin::Result<f64> {
        Python::attach(|py| {
            self.oracle
                .object
                .bind(py)
                .call1((self.problem, e))
                .and_then(|v| v.extract::<f64>())
                .map_err(|err| Error::InvalidData(format!("the oracle failed: {}", self.oracle.failure.record(err))))
        })
    }
}

/// A Python loss (`largemargin.plugins.checked.CheckedLoss`). Each SGD step needs the derivative
/// at the current weights before the next step, so a step calls the plugin's own `dloss(f, y)`
/// on two floats, looked up once and called directly; the objective's data term calls the
/// CheckedLoss's `losses(f, y)` on arrays of a block of examples. Only finite decision values
/// reach the plugin. The first exception, or a value that is not a finite number, stops the run
/// and is re-raised as the CheckedLoss's `PluginError`; the plugin is not called after it.
pub struct PyLoss {
    checked: Py<PyAny>,
    dloss: Py<PyAny>,
    failed: AtomicBool,
    failure: Arc<Failure>,
}

impl PyLoss {
    pub fn new(checked: &Bound<'_, PyAny>, failure: Arc<Failure>) -> PyResult<Self> {
        let dloss = checked.getattr("impl")?.getattr("dloss")?;
        Ok(PyLoss { checked: checked.clone().unbind(), dloss: dloss.unbind(), failed: AtomicBool::new(false), failure })
    }

    /// Records the PluginError for `what` (which raised `cause`, or returned `value`).
    fn fail(&self, py: Python<'_>, what: String, value: Option<Bound<'_, PyAny>>, cause: Option<PyErr>) {
        self.failed.store(true, Ordering::Relaxed);
        let cause = cause.map(|e| e.into_value(py).into_any());
        let error =
            self.checked.bind(py).call_method1("error", (what, value, cause)).map_or_else(|e| e, PyErr::from_value);
        self.failure.record(error);
    }
}

impl Loss for PyLoss {
    fn loss(&self, f: f64, y: f64) -> f64 {
        let mut out = [0.0];
        self.losses(&[f], &[y], &mut out);
        out[0]
    }

    fn dloss(&self, f: f64, y: f64) -> f64 {
        if !f.is_finite() {
            // the weights have overflowed (a step size too large, as some of t0's candidates
            // are): the run has diverged, which the solver sees in the NaN; the plugin is not
            // asked about a number it cannot have meant to handle
            return f64::NAN;
        }
        if self.failed.load(Ordering::Relaxed) {
            return 0.0;
        }
        Python::attach(|py| {
            let what = || format!("dloss({f:?}, {y:?})");
            match self.dloss.bind(py).call1((f, y)) {
                Ok(v) => match v.extract::<f64>() {
                    Ok(d) if d.is_finite() => d,
                    _ => {
                        self.fail(py, what(), Some(v), None);
                        0.0
                    }
                },
                Err(e) => {
                    self.fail(py, what(), None, Some(e));
                    0.0
                }
            }
        })
    }

    fn losses(&self, f: &[f64], y: &[f64], out: &mut [f64]) {
        out.fill(f64::NAN); // a diverged run's non-finite values stay NaN, unseen by the plugin
        let finite: Vec<usize> = (0..f.len()).filter(|&k| f[k].is_finite()).collect();
        if finite.is_empty() || self.failed.load(Ordering::Relaxed) {
            return;
        }
        Python::attach(|py| {
            let fs = PyArray1::from_iter(py, finite.iter().map(|&k| f[k]));
            let ys = PyArray1::from_iter(py, finite.iter().map(|&k| y[k]));
            let values = self.checked.bind(py).call_method1("losses", (fs, ys)).and_then(|v| {
                let values: PyReadonlyArray1<'_, f64> = v.extract()?;
                for (&k, &l) in finite.iter().zip(values.as_array().iter()) {
                    out[k] = l;
                }
                Ok(())
            });
            if let Err(e) = values {
                self.failed.store(true, Ordering::Relaxed);
                self.failure.record(e);
            }
        })
    }
}

/// Runs `work` with this thread's Python thread state kept (the GIL released): each Python call
/// inside then only takes the GIL, where a thread without one would create and destroy a
/// thread state around every call, which costs more than a small Python function does.
pub fn keeping_thread_state<T: Send>(work: impl FnOnce() -> T + Send) -> T {
    Python::attach(|py| py.detach(work))
}
