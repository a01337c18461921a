//! Python objects standing in for core traits: a plugin's kernel as an `ExternalKernel`.
//!
//! The core calls an adapter from its worker threads with the GIL released; the adapter takes the
//! GIL only around the Python call. The first Python exception is kept whole (type, message,
//! traceback, cause) to be raised to the user after the run, and stops the run.

use std::sync::{Arc, Mutex};

use largemargin::kernel::ExternalKernel;
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
    pub failure: Failure,
}

impl PyKernel {
    pub fn new(object: &Bound<'_, PyAny>) -> PyResult<Arc<Self>> {
        let len = object.len()?;
        let name = object.repr()?.to_string();
        Ok(Arc::new(PyKernel { object: object.clone().unbind(), name, len, failure: Failure::default() }))
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
