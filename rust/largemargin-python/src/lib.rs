//! largemargin._native: the thin PyO3 layer over the core crate. Conversions live in `convert`,
//! running detached from the GIL in `run`; this module only declares the exported functions.

mod adapters;
mod convert;
mod larank;
mod linear;
mod mixture;
mod mlp;
mod run;
mod search;
mod sequence;

use std::sync::Arc;

use largemargin::data::CsrMatrix;
use largemargin::io::atomic_file::write_atomically;
use largemargin::io::data_file::{IndexBase, LibsvmData, LibsvmParser};
use largemargin::model::predict::Expansion;
use largemargin::model::probability::{couple, sigmoid_predict};
use largemargin::model::{LibsvmModel, SvmType};
use largemargin::solver::online::lasvm::{Oracle, SelectionStrategy};
use largemargin::train::lasvm::{train_baseline, train_lasvm, LaSvmTrainParams, OnlineFit, OracleMaker};
use largemargin::train::svm::{train_svc, train_svr, DualSolver, SvmParams};
use largemargin::{Control, Error, KernelEngine, KernelSpec};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use adapters::{Failure, PyKernel, PyOracle, PyStrategy};
use convert::{kernel_from_py, kernel_spec, PyMatrix, StrategyMaker};
use run::{guarded, run_detached, run_detached_with, run_guarded, threads_for};

pub(crate) fn usize_array<'py>(py: Python<'py>, v: &[usize]) -> Bound<'py, PyArray1<i64>> {
    PyArray1::from_vec(py, v.iter().map(|&x| x as i64).collect())
}

pub(crate) fn matrix_array<'py>(py: Python<'py>, v: Vec<f64>, rows: usize, cols: usize) -> PyResult<Bound<'py, PyAny>> {
    Ok(v.into_pyarray(py).reshape([rows, cols])?.into_any())
}

/// The cache budget in bytes from `cache_size` in MB.
pub(crate) fn cache_bytes(cache_size: f64) -> PyResult<usize> {
    if !(cache_size > 0.0 && cache_size.is_finite()) {
        return Err(PyValueError::new_err(format!("cache_size must be positive (MB), got {cache_size}")));
    }
    Ok((cache_size * 1048576.0) as usize)
}

/// Runs a fit detached from the GIL; an exception raised by a Python kernel during the run is
/// what the caller gets, whatever the solver made of it.
pub(crate) fn run_fit<T: Send>(
    py: Python<'_>, n_jobs: Option<i64>, progress: Option<&str>, external: Option<Arc<PyKernel>>,
    work: impl FnOnce(&Control) -> Result<T, Error> + Send,
) -> PyResult<T> {
    run_fit_watching(py, n_jobs, progress, external.map(|k| k.failure.clone()).into_iter().collect(), work)
}

/// `run_fit` for any set of adapters' failure slots.
pub(crate) fn run_fit_watching<T: Send>(
    py: Python<'_>, n_jobs: Option<i64>, progress: Option<&str>, failures: Vec<Arc<Failure>>,
    work: impl FnOnce(&Control) -> Result<T, Error> + Send,
) -> PyResult<T> {
    let control = Arc::new(Control::new());
    for f in &failures {
        f.watch(control.clone());
    }
    let outcome = run_detached_with(py, threads_for(n_jobs)?, progress, &control, work);
    if let Some(e) = failures.iter().find_map(|f| f.take()) {
        return Err(e);
    }
    outcome
}

#[allow(clippy::too_many_arguments)]
fn params(
    kernel: KernelSpec, tol: f64, shrinking: bool, cache_size: f64, max_iter: i64, probability: bool, seed: u64,
    selection: &str, solver: DualSolver,
) -> PyResult<SvmParams> {
    let selection = convert::smo_selection(selection)?;
    Ok(SvmParams {
        kernel,
        tol,
        shrinking,
        cache_bytes: cache_bytes(cache_size)?,
        max_iter: if max_iter < 0 { None } else { Some(max_iter as u64) },
        probability,
        seed,
        selection,
        solver,
    })
}

pub(crate) fn index_vec(y: &PyReadonlyArray1<'_, i64>) -> PyResult<Vec<usize>> {
    y.as_array()
        .iter()
        .map(|&v| usize::try_from(v).map_err(|_| PyValueError::new_err("class indices must be non-negative")))
        .collect()
}

/// One-vs-one C-SVC. Returns a dict of fitted arrays in LIBSVM's layout.
#[pyfunction]
#[pyo3(signature = (x, y, *, n_classes, sample_c, kernel, gamma, coef0, degree, tol, shrinking, cache_size, max_iter, probability, seed, selection, n_jobs, verbose, solver="smo", isda_bias="secant", isda_k=1.0, over_relaxation=1.0))]
#[allow(clippy::too_many_arguments)]
fn fit_svc<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, i64>, n_classes: usize,
    sample_c: PyReadonlyArray1<'py, f64>, kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, tol: f64,
    shrinking: bool, cache_size: f64, max_iter: i64, probability: bool, seed: u64, selection: &str,
    n_jobs: Option<i64>, verbose: bool, solver: &str, isda_bias: &str, isda_k: f64, over_relaxation: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let solver = convert::dual_solver(solver, isda_bias, isda_k, over_relaxation)?;
    let p = params(spec, tol, shrinking, cache_size, max_iter, probability, seed, selection, solver)?;
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let yv = index_vec(&y)?;
    let c = sample_c.as_slice()?;
    let fit =
        run_fit(py, n_jobs, verbose.then_some("SVC fit"), external, |ctl| train_svc(&xv, &yv, n_classes, c, &p, ctl))?;
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

/// epsilon-SVR.
#[pyfunction]
#[pyo3(signature = (x, y, *, sample_c, epsilon, kernel, gamma, coef0, degree, tol, shrinking, cache_size, max_iter, selection, n_jobs, verbose, solver="smo", isda_bias="secant", isda_k=1.0, over_relaxation=1.0))]
#[allow(clippy::too_many_arguments)]
fn fit_svr<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, y: PyReadonlyArray1<'py, f64>, sample_c: PyReadonlyArray1<'py, f64>,
    epsilon: f64, kernel: &Bound<'py, PyAny>, gamma: f64, coef0: f64, degree: i64, tol: f64, shrinking: bool,
    cache_size: f64, max_iter: i64, selection: &str, n_jobs: Option<i64>, verbose: bool, solver: &str, isda_bias: &str,
    isda_k: f64, over_relaxation: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let (spec, external) = kernel_from_py(kernel, gamma, coef0, degree)?;
    let solver = convert::dual_solver(solver, isda_bias, isda_k, over_relaxation)?;
    let p = params(spec, tol, shrinking, cache_size, max_iter, false, 0, selection, solver)?;
    let xm = PyMatrix::extract(x)?;
    let xv = xm.view()?;
    let (yv, c) = (y.as_slice()?, sample_c.as_slice()?);
    let fit =
        run_fit(py, n_jobs, verbose.then_some("SVR fit"), external, |ctl| train_svr(&xv, yv, c, epsilon, &p, ctl))?;
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

/// LaSVM on one binary problem per row of `labels` (+1/-1), in parallel. `warm` (optional) holds,
/// per problem, the coefficients of the data's first rows, which start as the expansion set.
/// `max_iter` bounds the online iterations over all epochs; `oracle(problem, index) -> +1/-1`
/// labels the examples chosen whose label is NaN.
#[pyfunction]
#[pyo3(signature = (x, labels, *, sample_c, kernel, gamma, coef0, degree, tol, epochs, max_iter, finishing, shrinking, selection, candidates, cache_size, seed, warm, oracle, n_jobs, verbose))]
#[allow(clippy::too_many_arguments)]
fn fit_lasvm<'py>(
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
    let strategy: StrategyMaker = if let Ok(name) = selection.extract::<String>() {
        convert::selection_strategy(&name, candidates.max(1))?
    } else {
        let failure = Arc::new(Failure::default());
        failures.push(failure.clone());
        let objects: Vec<Bound<'py, PyAny>> = selection.extract()?;
        let made = objects
            .iter()
            .map(|o| PyStrategy::new(o, failure.clone()).map(|s| std::sync::Mutex::new(Some(s))))
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
fn online_fit_to_py<'py>(py: Python<'py>, fit: &OnlineFit) -> PyResult<Bound<'py, PyAny>> {
    let out = pyo3::types::PyList::empty(py);
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
#[allow(clippy::too_many_arguments)]
fn fit_online_baseline<'py>(
    py: Python<'py>, x: &Bound<'py, PyAny>, labels: PyReadonlyArray2<'py, f64>, kernel: &Bound<'py, PyAny>, gamma: f64,
    coef0: f64, degree: i64, algorithm: &str, c: f64, beta: f64, budget: usize, epochs: usize, cache_size: f64,
    seed: u64, n_jobs: Option<i64>, verbose: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let baseline = convert::online_baseline(algorithm, c, beta, budget)?;
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

/// Decision values (m x outputs) of a kernel expansion; `n_support` empty for one output.
#[pyfunction]
#[pyo3(signature = (x, *, sv, sv_columns, n_support, coef, intercept, kernel, gamma, coef0, degree, n_jobs))]
#[allow(clippy::too_many_arguments)]
fn decision_function<'py>(
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

/// The kernel matrix K(a_i, b_j), m x n, of a built-in or composed kernel.
#[pyfunction]
#[pyo3(signature = (a, b, *, kernel, gamma, coef0, degree, n_jobs))]
#[allow(clippy::too_many_arguments)]
fn kernel_matrix<'py>(
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
fn pairwise_probability<'py>(
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

/// Parsed rows as (labels, indptr, indices, data, n_features).
fn libsvm_data_to_py(py: Python<'_>, d: LibsvmData) -> PyResult<Bound<'_, PyAny>> {
    let (indptr, indices, data, cols) = d.x.into_parts();
    let t = (
        PyArray1::from_vec(py, d.labels),
        PyArray1::from_vec(py, indptr),
        PyArray1::from_vec(py, indices),
        PyArray1::from_vec(py, data),
        cols,
    );
    Ok(t.into_pyobject(py)?.into_any())
}

/// Incremental LIBSVM/svmlight parser: feed bytes, then finish (or take rows as they come).
#[pyclass(module = "largemargin._native")]
struct LibsvmReader {
    inner: Option<LibsvmParser>,
}

fn index_base(zero_based: Option<bool>) -> IndexBase {
    match zero_based {
        None => IndexBase::Auto,
        Some(true) => IndexBase::Zero,
        Some(false) => IndexBase::One,
    }
}

#[pymethods]
impl LibsvmReader {
    #[new]
    fn new() -> Self {
        LibsvmReader { inner: Some(LibsvmParser::new()) }
    }
    fn feed(&mut self, chunk: &Bound<'_, PyBytes>) -> PyResult<()> {
        let parser = self.parser()?;
        let bytes = chunk.as_bytes();
        guarded(|| parser.feed(bytes))
    }
    /// Complete rows parsed and not yet taken.
    fn rows(&mut self) -> PyResult<usize> {
        Ok(self.parser()?.rows())
    }
    /// Lines read so far.
    fn lines(&mut self) -> PyResult<usize> {
        Ok(self.parser()?.lines())
    }
    /// Parses the last line (which may lack a newline), keeping the rows for `finish`.
    fn end_input(&mut self) -> PyResult<()> {
        let parser = self.parser()?;
        guarded(|| parser.end_input())
    }
    /// Whether a line read so far uses feature index 0.
    fn uses_index_zero(&mut self) -> PyResult<bool> {
        Ok(self.parser()?.uses_index_zero())
    }
    /// The rows parsed so far, as `finish` returns them, keeping the reader for more bytes
    /// (`last`: the final line too). The index base must be given.
    fn take<'py>(&mut self, py: Python<'py>, zero_based: bool, last: bool) -> PyResult<Bound<'py, PyAny>> {
        let parser = self.parser()?;
        let d = guarded(|| parser.take(index_base(Some(zero_based)), last))?;
        libsvm_data_to_py(py, d)
    }
    /// Returns (labels, indptr, indices, data, n_features); zero_based None means auto.
    #[pyo3(signature = (zero_based=None))]
    fn finish<'py>(&mut self, py: Python<'py>, zero_based: Option<bool>) -> PyResult<Bound<'py, PyAny>> {
        let p = self.inner.take().ok_or_else(|| PyValueError::new_err("reader already finished"))?;
        let d = guarded(|| p.finish(index_base(zero_based)))?;
        libsvm_data_to_py(py, d)
    }
}

impl LibsvmReader {
    fn parser(&mut self) -> PyResult<&mut LibsvmParser> {
        self.inner.as_mut().ok_or_else(|| PyValueError::new_err("reader already finished"))
    }
}

/// Writes a LIBSVM model file atomically, column j as feature index j + (0 if `zero_based` else
/// 1). `sv` is the support-vector matrix (ignored for precomputed kernels, where `sv_indices`
/// name the training examples).
#[pyfunction]
#[pyo3(signature = (path, *, svm_type, kernel, gamma, coef0, degree, labels, n_support, rho, prob_a, prob_b, sv_coef, sv, sv_indices, zero_based))]
#[allow(clippy::too_many_arguments)]
fn write_libsvm_model<'py>(
    py: Python<'py>, path: &str, svm_type: &str, kernel: &str, gamma: f64, coef0: f64, degree: i64,
    labels: PyReadonlyArray1<'py, i64>, n_support: PyReadonlyArray1<'py, i64>, rho: PyReadonlyArray1<'py, f64>,
    prob_a: PyReadonlyArray1<'py, f64>, prob_b: PyReadonlyArray1<'py, f64>, sv_coef: PyReadonlyArray2<'py, f64>,
    sv: &Bound<'py, PyAny>, sv_indices: PyReadonlyArray1<'py, i64>, zero_based: bool,
) -> PyResult<()> {
    let spec = kernel_spec(kernel, if gamma > 0.0 { gamma } else { 1.0 }, coef0, degree)?;
    let svm = PyMatrix::extract(sv)?;
    let view = svm.view()?;
    let svm_type = convert::svm_type(svm_type)?;
    let precomputed = spec == KernelSpec::Precomputed;
    let all: Vec<usize> = (0..view.rows()).collect();
    let model = LibsvmModel {
        svm_type,
        kernel: spec,
        labels: labels.as_slice()?.to_vec(),
        n_support: index_vec(&n_support)?,
        rho: rho.as_slice()?.to_vec(),
        prob_a: prob_a.as_slice()?.to_vec(),
        prob_b: prob_b.as_slice()?.to_vec(),
        sv_coef: convert::row_major(&sv_coef, "sv_coef")?.to_vec(),
        sv: if precomputed { CsrMatrix::new() } else { CsrMatrix::gather(&view, &all) },
        sv_indices: if precomputed { index_vec(&sv_indices)? } else { Vec::new() },
    };
    let base = index_base(Some(zero_based));
    run_guarded(py, || model.save(std::path::Path::new(path), base))
}

/// Writes `data` to `path` whole or not at all (a device or pipe is written in place).
#[pyfunction]
fn write_file_atomically(py: Python<'_>, path: &str, data: &Bound<'_, PyBytes>) -> PyResult<()> {
    let bytes = data.as_bytes().to_vec();
    run_guarded(py, || write_atomically(std::path::Path::new(path), |w| Ok(w.write_all(&bytes)?)))
}

/// Reads a LIBSVM model file into a dict of arrays, feature index i becoming column
/// i - (0 if `zero_based` else 1).
#[pyfunction]
#[pyo3(signature = (path, *, zero_based))]
fn read_libsvm_model<'py>(py: Python<'py>, path: &str, zero_based: bool) -> PyResult<Bound<'py, PyDict>> {
    let base = index_base(Some(zero_based));
    let m = run_guarded(py, || LibsvmModel::load(std::path::Path::new(path), base))?;
    let d = PyDict::new(py);
    let (kernel, gamma, coef0, degree) = match m.kernel {
        KernelSpec::Linear => ("linear", 0.0, 0.0, 3),
        KernelSpec::Poly { degree, gamma, coef0 } => ("poly", gamma, coef0, degree),
        KernelSpec::Rbf { gamma } => ("rbf", gamma, 0.0, 3),
        KernelSpec::Sigmoid { gamma, coef0 } => ("sigmoid", gamma, coef0, 3),
        KernelSpec::Precomputed => ("precomputed", 0.0, 0.0, 3),
        KernelSpec::Composite(_) | KernelSpec::External(_) => unreachable!("model files hold built-in kernels"),
    };
    let nsv = m.n_sv();
    let rows = m.sv_coef.len() / nsv.max(1);
    d.set_item("svm_type", if m.svm_type == SvmType::CSvc { "c_svc" } else { "epsilon_svr" })?;
    d.set_item("kernel", kernel)?;
    d.set_item("gamma", gamma)?;
    d.set_item("coef0", coef0)?;
    d.set_item("degree", degree)?;
    d.set_item("labels", PyArray1::from_vec(py, m.labels))?;
    d.set_item("n_support", usize_array(py, &m.n_support))?;
    d.set_item("rho", PyArray1::from_vec(py, m.rho))?;
    d.set_item("prob_a", PyArray1::from_vec(py, m.prob_a))?;
    d.set_item("prob_b", PyArray1::from_vec(py, m.prob_b))?;
    d.set_item("sv_coef", matrix_array(py, m.sv_coef, rows.max(1), nsv)?)?;
    d.set_item("sv_indices", usize_array(py, &m.sv_indices))?;
    let (indptr, indices, data, cols) = m.sv.into_parts();
    d.set_item(
        "sv",
        (PyArray1::from_vec(py, indptr), PyArray1::from_vec(py, indices), PyArray1::from_vec(py, data), cols),
    )?;
    Ok(d)
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fit_svc, m)?)?;
    m.add_function(wrap_pyfunction!(fit_svr, m)?)?;
    m.add_function(wrap_pyfunction!(search::cross_validate_svm, m)?)?;
    m.add_function(wrap_pyfunction!(fit_lasvm, m)?)?;
    m.add_function(wrap_pyfunction!(fit_online_baseline, m)?)?;
    m.add_function(wrap_pyfunction!(larank::fit_larank, m)?)?;
    m.add_function(wrap_pyfunction!(larank::fit_ambiguous, m)?)?;
    m.add_function(wrap_pyfunction!(sequence::fit_sequence, m)?)?;
    m.add_function(wrap_pyfunction!(sequence::predict_sequence, m)?)?;
    m.add_function(wrap_pyfunction!(linear::fit_linear, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::assign_experts, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::fit_gater, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::gater_gates, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::fit_gmm, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::gmm_log_density, m)?)?;
    m.add_function(wrap_pyfunction!(mixture::fit_platt, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::fit_simple_mlp, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::simple_mlp_decision, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::fit_nilsson, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::nilsson_decision, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::fit_network, m)?)?;
    m.add_function(wrap_pyfunction!(mlp::network_decision, m)?)?;
    m.add_function(wrap_pyfunction!(decision_function, m)?)?;
    m.add_function(wrap_pyfunction!(kernel_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(pairwise_probability, m)?)?;
    m.add_function(wrap_pyfunction!(write_libsvm_model, m)?)?;
    m.add_function(wrap_pyfunction!(read_libsvm_model, m)?)?;
    m.add_function(wrap_pyfunction!(write_file_atomically, m)?)?;
    m.add_class::<LibsvmReader>()?;
    m.add_class::<mixture::StopSignal>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
