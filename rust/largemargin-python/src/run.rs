//! Running core work from Python: off the GIL, on a rayon pool of `n_jobs` threads, with the
//! calling (main) thread left free to notice Ctrl-C and to print progress. A panic in the core
//! becomes a RuntimeError; it never unwinds into Python.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use largemargin::{Control, Error};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use crate::adapters::{Failure, PyKernel};
use crate::convert::to_py;

/// Idle thread pools kept for reuse: a few, the least recently used dropped (its threads end),
/// so that fits with many different `n_jobs` do not pile up threads.
const KEPT_POOLS: usize = 3;

fn idle_pools() -> std::sync::MutexGuard<'static, Vec<(usize, rayon::ThreadPool)>> {
    static POOLS: OnceLock<Mutex<Vec<(usize, rayon::ThreadPool)>>> = OnceLock::new();
    POOLS.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner())
}

/// A pool of `threads` threads held by one fit: taken from the idle ones, or started, and put back
/// when the fit ends. Fits running at once from several Python threads (one-vs-rest members, a
/// mixture's experts, an MLP's committees) each hold their own, rather than queueing on a shared
/// one (two fits of n_jobs=1 on one pool of one thread would run one after the other).
struct HeldPool {
    threads: usize,
    pool: Option<rayon::ThreadPool>,
}

impl std::ops::Deref for HeldPool {
    type Target = rayon::ThreadPool;
    fn deref(&self) -> &rayon::ThreadPool {
        self.pool.as_ref().expect("a held pool is only given back on drop")
    }
}

impl Drop for HeldPool {
    fn drop(&mut self) {
        if let Some(p) = self.pool.take() {
            let mut pools = idle_pools();
            pools.push((self.threads, p)); // most recently used last
            if pools.len() > KEPT_POOLS {
                pools.remove(0);
            }
        }
    }
}

fn pool(threads: usize) -> PyResult<HeldPool> {
    let idle = {
        let mut pools = idle_pools();
        pools.iter().rposition(|(n, _)| *n == threads).map(|at| pools.remove(at).1)
    };
    let p = match idle {
        Some(p) => p,
        None => rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("largemargin-{i}"))
            .build()
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start worker threads: {e}")))?,
    };
    Ok(HeldPool { threads, pool: Some(p) })
}

/// Threads for an `n_jobs` value: None -> the package's `_threads.default_threads()` (every core
/// unless joblib, OMP_NUM_THREADS or threadpoolctl limit it), -1 -> all cores, -k -> all but k - 1;
/// at most four per core (more only wait on each other, and the model does not depend on the count).
pub fn threads_for(n_jobs: Option<i64>) -> PyResult<usize> {
    let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1) as i64;
    let threads = match n_jobs {
        None => Python::attach(|py| -> PyResult<i64> {
            py.import("largemargin._threads")?.getattr("default_threads")?.call0()?.extract()
        })?
        .max(1),
        Some(0) => return Err(PyValueError::new_err("n_jobs == 0 has no meaning")),
        Some(n) if n > 0 => n,
        Some(n) => (cores + 1 + n).max(1),
    };
    Ok(threads.min(4 * cores) as usize)
}

/// (units done, planned, seconds): what a `Reporter` is told. The iteration counter is left out:
/// solvers add to it in batches, so mid-fit it lags behind by up to a batch per problem.
fn progress_of(control: &Control, started: Instant) -> (u64, u64, f64) {
    (control.problems_done(), control.planned(), started.elapsed().as_secs_f64())
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".into()
    }
}

/// Fixes glibc's allocation thresholds, once, before the first run (unless the user set them through
/// `MALLOC_TRIM_THRESHOLD_`, `MALLOC_MMAP_THRESHOLD_` or `GLIBC_TUNABLES`). glibc raises both as
/// large blocks are freed, up to a 64 MB trim threshold; `malloc_trim` returns free pages inside each
/// arena but leaves the free top of a worker thread's arena below that threshold, so a search on
/// two threads kept 62-127 MB of its freed kernel rows under load. Fixed, at glibc's largest mmap
/// threshold and an 8 MB trim threshold, each arena keeps at most 8 MB free at its top, and blocks
/// up to 32 MB still come from the arenas (no mmap per kernel row).
fn tune_allocator() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let user_set =
                ["MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_"].iter().any(|v| std::env::var_os(v).is_some())
                    || std::env::var("GLIBC_TUNABLES")
                        .is_ok_and(|t| t.contains("malloc.trim_threshold") || t.contains("malloc.mmap_threshold"));
            if user_set {
                return;
            }
            // SAFETY: mallopt only changes the allocator's thresholds for later calls; it takes the
            // main arena's lock and touches no live allocation.
            unsafe {
                libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
                libc::mallopt(libc::M_TRIM_THRESHOLD, 8 << 20);
            }
        });
    }
}

/// Hands memory freed by the run back to the operating system. A kernel cache is thousands of rows
/// of a few kilobytes, under glibc's mmap threshold: freed, they stay in its arenas (a 500 MB cache
/// left 230-450 MB resident after the fit), so the process would keep the budget for good.
fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free pages of the allocator's own arenas to the kernel;
    // it takes the arenas' locks and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Runs `work` detached from the interpreter. With `progress` (a label, for `verbose`), the fit's
/// progress goes to a `largemargin._progress.Reporter`: a bar with the time left when the fit
/// plans its work, log lines every two seconds otherwise.
pub fn run_detached<T, F>(py: Python<'_>, threads: usize, progress: Option<&str>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Control) -> Result<T, Error> + Send,
{
    run_detached_with(py, threads, progress, &Control::new(), work)
}

/// `run_detached` with a control the caller also hands to others (adapters that stop the run).
pub fn run_detached_with<T, F>(
    py: Python<'_>, threads: usize, progress: Option<&str>, control: &Control, work: F,
) -> PyResult<T>
where
    T: Send,
    F: FnOnce(&Control) -> Result<T, Error> + Send,
{
    tune_allocator();
    let pool = pool(threads)?;
    let mut interrupted: Option<PyErr> = None;
    // verbose: a `largemargin._progress.Reporter` (a bar where the total is known, else log lines)
    let reporter: Option<Py<PyAny>> = match progress {
        Some(what) => Some(py.import("largemargin._progress")?.getattr("Reporter")?.call1((what,))?.unbind()),
        None => None,
    };
    let started = Instant::now();
    let outcome = py.detach(|| {
        std::thread::scope(|scope| {
            let (tx, rx) = mpsc::channel();
            let pool = &pool;
            scope.spawn(move || {
                let r = catch_unwind(AssertUnwindSafe(|| pool.install(|| work(control))));
                let _ = tx.send(r);
            });
            let mut last = Instant::now();
            loop {
                match rx.recv_timeout(Duration::from_millis(50)) {
                    Ok(r) => return r,
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return Err(Box::new("worker thread vanished") as Box<dyn std::any::Any + Send>)
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
                Python::attach(|py| {
                    if interrupted.is_none() {
                        // Ctrl-C reaches the main thread only; a fit on several threads stops the others' runs
                        let stop = py.check_signals().err().or_else(|| {
                            crate::mixture::stop_requested().then(|| {
                                PyKeyboardInterrupt::new_err(
                                    "fit interrupted: the fit that started this run was stopped",
                                )
                            })
                        });
                        if let Some(e) = stop {
                            control.request_stop();
                            interrupted = Some(e);
                        }
                    }
                    if let Some(reporter) = &reporter {
                        if last.elapsed() >= Duration::from_millis(250) {
                            last = Instant::now();
                            let _ = reporter.bind(py).call_method1("update", progress_of(control, started));
                        }
                    }
                });
            }
        })
    });
    release_freed_memory();
    if let Some(reporter) = reporter {
        // the final line; a failure to report must not hide the fit's own outcome
        let _ = reporter.bind(py).call_method1("close", progress_of(control, started));
    }
    if let Some(e) = interrupted {
        return Err(e);
    }
    match outcome {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(e)) => Err(to_py(e)),
        Err(p) => Err(PyRuntimeError::new_err(format!(
            "internal error in largemargin (please report it): {}",
            panic_message(p)
        ))),
    }
}

/// Runs a fit detached from the GIL on `n_jobs` threads; an exception raised by a Python kernel
/// during the run is what the caller gets, whatever the solver made of it.
pub fn run_fit<T: Send>(
    py: Python<'_>, n_jobs: Option<i64>, progress: Option<&str>, external: Option<Arc<PyKernel>>,
    work: impl FnOnce(&Control) -> Result<T, Error> + Send,
) -> PyResult<T> {
    run_fit_watching(py, n_jobs, progress, external.map(|k| k.failure.clone()).into_iter().collect(), work)
}

/// `run_fit` for any set of adapters' failure slots (Python kernels, strategies, oracles, losses).
pub fn run_fit_watching<T: Send>(
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

/// Runs short core work (reading or writing a file) detached from the interpreter, a panic
/// becoming a RuntimeError as in `run_detached`.
pub fn run_guarded<T: Send>(py: Python<'_>, work: impl FnOnce() -> Result<T, Error> + Send) -> PyResult<T> {
    py.detach(|| guarded(work))
}

/// Core work done while holding the GIL (parsing a chunk already in memory), a panic becoming a
/// RuntimeError.
pub fn guarded<T>(work: impl FnOnce() -> Result<T, Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(work)) {
        Ok(r) => r.map_err(to_py),
        Err(p) => Err(PyRuntimeError::new_err(format!(
            "internal error in largemargin (please report it): {}",
            panic_message(p)
        ))),
    }
}
