//! Python objects standing in for core traits: a plugin's kernel as an `ExternalKernel`, a
//! plugin's example-selection strategy as a `SelectionStrategy`, a labelling callback as an
//! `Oracle`, a plugin's loss as a `Loss`.
//!
//! The core calls an adapter from its worker threads with the GIL released; the adapter takes the
//! GIL only around the Python call. The first Python exception is kept whole (type, message,
//! traceback, cause) to be raised to the user after the run, and stops the run.

use std::sync::{Arc, Mutex};

use largemargin::kernel::ExternalKernel;
use largemargin::solver::lasvm::{Choice, Oracle, SelectionStrategy};
use largemargin::solver::loss::Loss;
use largemargin::Error;
use largemargin::Control;
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
    /// The first exception raised during the run, if any.
    pub fn take(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A Python object with `row(i, cols) -> 1-D float64 array` (cols: int64 array, or None for every
/// example), `diagonal() -> 1-D float64 array` and `len()`: `largemargin.plugins.TrainingKernel`.
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
    fn diagonal(&self) -> Result<Vec<f64>, String> {
        Python::attach(|py| {
            let mut out = vec![0.0; self.len];
            self.object
                .bind(py)
                .call_method0("diagonal")
                .and_then(|v| self.read(v, "diagonal()", &mut out))
                .map_err(|e| self.failure.record(e))?;
            Ok(out)
        })
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

/// A Python loss with `loss(f, y)` and `dloss(f, y)` (vectorised functions, here called on one
/// decision value and label at a time: SGD needs each derivative before the next step). The first
/// exception, or a value that is not a finite number, stops the run and is re-raised.
pub struct PyLoss {
    object: Py<PyAny>,
    name: String,
    failure: Arc<Failure>,
}

impl PyLoss {
    pub fn new(object: &Bound<'_, PyAny>, failure: Arc<Failure>) -> PyResult<Self> {
        let name = object.repr()?.to_string();
        for method in ["loss", "dloss"] {
            if !object.hasattr(method)? {
                return Err(pyo3::exceptions::PyValueError::new_err(format!("the loss {name} has no {method}(f, y)")));
            }
        }
        Ok(PyLoss { object: object.clone().unbind(), name, failure })
    }
    fn call(&self, method: &str, f: f64, y: f64) -> f64 {
        if !f.is_finite() {
            // the weights have overflowed (a step size too large, as some of t0's candidates
            // are): the run has diverged, which the solver sees in the NaN; the plugin is not
            // asked about a number it cannot have meant to handle
            return f64::NAN;
        }
        Python::attach(|py| {
            let value = self.object.bind(py).call_method1(method, (f, y)).and_then(|v| v.extract::<f64>());
            match value {
                Ok(v) if v.is_finite() => v,
                Ok(v) => {
                    let message = format!("{}.{method}({f}, {y}) returned {v}", self.name);
                    self.failure.record(pyo3::exceptions::PyValueError::new_err(message));
                    0.0
                }
                Err(e) => {
                    self.failure.record(e);
                    0.0
                }
            }
        })
    }
}

impl Loss for PyLoss {
    fn loss(&self, f: f64, y: f64) -> f64 {
        self.call("loss", f, y)
    }
    fn dloss(&self, f: f64, y: f64) -> f64 {
        self.call("dloss", f, y)
    }
}
