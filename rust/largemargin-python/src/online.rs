//! Entry points of the online kernel solvers: LaSVM (built-in or Python selection strategies,
//! an optional labelling oracle, warm starts) and the online baselines (Huller, kernel
//! perceptrons, passive-aggressive, budget perceptron).

use std::sync::{Arc, Mutex};

use largemargin::solver::online::lasvm::{Oracle, SelectionKind, SelectionStrategy};
use largemargin::train::lasvm::{train_baseline, train_lasvm, BaselineKind, LaSvmTrainParams, OnlineFit, OracleMaker};
use numpy::{PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};

use crate::adapters::{Failure, PyOracle, PyStrategy};
use crate::convert::{cache_bytes, kernel_from_py, usize_array, PyMatrix, Wrap};
use crate::run::{run_fit, run_fit_watching};

/// A strategy maker owned by the binding (the core takes it by reference).
type StrategyMaker = Box<largemargin::train::lasvm::StrategyMaker<'static>>;

/// LaSVM on one binary problem per row of `labels` (+1/-1), in parallel. `warm` (optional) holds,
/// per problem, the coefficients of the data's first rows, which start as the expansion set.
/// `max_iter` bounds the online iterations over all epochs; `oracle(problem, index) -> +1/-1`
/// labels the examples chosen whose label is NaN.
#[pyfunction]
#[pyo3(signature = (x, labels, *, sample_c, kernel, gamma, coef0, degree, tol, epochs, max_iter, finishing, shrinking, selection, candidates, cache_size, seed, warm, oracle, n_jobs, verbose))]
pub fn fit_lasvm<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, labels: PyReadonlyArray2<'py, f64>, sample_c: PyReadonlyArray1<'py, f64>,
    kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, tol: f64, epochs: usize, max_iter: Option<u64>,
    finishing: bool, shrinking: bool, selection: &Bound<'py, PyAny>, candidates: usize, cache_size: f64, seed: u64,
    warm: Option<Vec<Vec<f64>>>, oracle: Option<&Bound<'py, PyAny>>, n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let config = LaSvmTrainParams {
        kernel: spec,
        tol,
        epochs,
        max_iter,
        finishing,
        finishing_shrinking: shrinking,
        cache_bytes: cache_bytes(cache_size)?,
        seed,
        ..Default::default()
    };
    // A built-in strategy by name, or one Python strategy object per problem.
    let mut failures: Vec<Arc<Failure>> = external.iter().map(|k| k.failure.clone()).collect();
    let strategy: StrategyMaker = if selection.is_instance_of::<PyString>() {
        let Wrap(kind) = selection.extract::<Wrap<SelectionKind>>()?;
        let candidates = candidates.max(1);
        Box::new(move |_| kind.strategy(candidates))
    } else {
        let failure = Arc::new(Failure::default());
        failures.push(failure.clone());
        let objects: Vec<Bound<'py, PyAny>> = selection.extract()?;
        let made = objects
            .iter()
            .map(|o| PyStrategy::new(o, failure.clone()).map(|s| Mutex::new(Some(s))))
            .collect::<PyResult<Vec<_>>>()?;
        Box::new(move |p| {
            let s = made[p].lock().unwrap_or_else(|e| e.into_inner()).take().expect("one strategy per problem");
            Box::new(s) as Box<dyn SelectionStrategy>
        })
    };
    let oracle = oracle.map(|o| {
        let failure = Arc::new(Failure::default());
        failures.push(failure.clone());
        PyOracle::new(o, failure)
    });
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let lab: Vec<Vec<f64>> = labels.as_array().rows().into_iter().map(|r| r.to_vec()).collect();
    let c = sample_c.as_slice()?;
    let fit = run_fit_watching(py, n_jobs, verbose.then_some("LaSVM fit"), failures, |ctl| {
        let ask = oracle.as_ref().map(|o| move |p: usize| Box::new(o.for_problem(p)) as Box<dyn Oracle + '_>);
        let ask = ask.as_ref().map(|f| f as &OracleMaker);
        train_lasvm(&xv, &lab, c, &config, warm.as_deref(), strategy.as_ref(), ask, ctl)
    })?;
    online_fit_to_py(py, &fit)
}

/// The solutions of online binary problems as ([dict per problem], kernel evaluations).
pub fn online_fit_to_py<'py>(py: Python<'py>, fit: &OnlineFit) -> PyResult<Bound<'py, PyAny>> {
    let out = PyList::empty(py);
    for p in &fit.problems {
        let d = PyDict::new(py);
        d.set_item("support", usize_array(py, &p.support))?;
        d.set_item("coef", PyArray1::from_vec(py, p.coef.clone()))?;
        d.set_item("bias", p.bias)?;
        d.set_item("gap", p.gap)?;
        d.set_item("objective", p.objective)?;
        d.set_item("processed", p.stats.processed)?;
        d.set_item("inserted", p.stats.inserted)?;
        d.set_item("evicted", p.stats.evicted)?;
        d.set_item("finishing_iterations", p.stats.finishing_iterations)?;
        d.set_item("stopped_by_max_iter", p.stats.stopped_by_max_iter)?;
        out.append(d)?;
    }
    Ok((out, fit.kernel_evals).into_pyobject(py)?.into_any())
}

/// The online baselines on one binary problem per row of `labels`: "huller", "perceptron",
/// "averaged", "pa" (with `c`) or "budget" (with `beta`, `budget`).
#[pyfunction]
#[pyo3(signature = (x, labels, *, kernel, gamma, coef0, degree, algorithm, c, beta, budget, epochs, cache_size, seed, n_jobs, verbose))]
pub fn fit_online_baseline<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, labels: PyReadonlyArray2<'py, f64>, kernel: &Bound<'py, PyAny>, gamma: f64,
    coef0: f64, degree: i64, algorithm: Wrap<BaselineKind>, c: f64, beta: f64, budget: usize, epochs: usize,
    cache_size: f64, seed: u64, n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let baseline = algorithm.0.with(c, beta, budget);
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let lab: Vec<Vec<f64>> = labels.as_array().rows().into_iter().map(|r| r.to_vec()).collect();
    let bytes = cache_bytes(cache_size)?;
    let fit = run_fit(py, n_jobs, verbose.then_some("online fit"), external, |ctl| {
        train_baseline(&xv, &lab, &spec, baseline, epochs, bytes, seed, ctl)
    })?;
    online_fit_to_py(py, &fit)
}
