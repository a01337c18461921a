"""Threads: how many `n_jobs=None` means, and native fits on several Python threads, stoppable
with Ctrl-C."""

import os
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from . import _native

# The limit set through threadpoolctl's `threadpool_limits` (None: no limit), see `default_threads`.
_limit = None


def _env_threads():
    """OMP_NUM_THREADS as a positive count, or None when unset or unreadable."""
    try:
        n = int(os.environ.get("OMP_NUM_THREADS", ""))
    except ValueError:
        return None
    return n if n > 0 else None


def default_threads():
    """The threads `n_jobs=None` stands for, at the time of the call:

    - the `n_jobs` of an active ``joblib.parallel_config`` (or ``parallel_backend``);
    - inside a joblib worker (``GridSearchCV(n_jobs=...)``, ``cross_val_score``...): the worker's
      share of the cores, as joblib gives it through OMP_NUM_THREADS to process workers, else one;
    - otherwise every core, capped by OMP_NUM_THREADS when set;
    - and never more than a ``threadpoolctl.threadpool_limits`` limit.

    So that nested parallelism does not oversubscribe the cores: 2 workers x every core each."""
    cores = os.cpu_count() or 1
    threads = None
    try:
        from joblib import effective_n_jobs
        from joblib.parallel import get_active_backend

        backend, n_jobs = get_active_backend()
        if n_jobs is not None:
            threads = effective_n_jobs(n_jobs)
        elif getattr(backend, "nesting_level", 0) >= 1:
            threads = _env_threads() or 1
    except Exception:  # joblib missing or changed: the limits below still hold
        threads = None
    if threads is None:
        threads = min(cores, _env_threads() or cores)
    if _limit is not None:
        threads = min(threads, _limit)
    return max(1, int(threads))


def _register_with_threadpoolctl():
    """Makes ``threadpoolctl.threadpool_limits(n)`` (and ``threadpool_info()``) see the native
    module's thread pool, as it sees BLAS and OpenMP: the limit caps `n_jobs=None`."""
    try:
        import threadpoolctl
    except ImportError:
        return
    if not hasattr(threadpoolctl, "register") or not hasattr(threadpoolctl, "LibController"):
        return

    class LargemarginController(threadpoolctl.LibController):
        user_api = "largemargin"
        internal_api = "rayon"
        filename_prefixes = ("_native",)

        def get_num_threads(self):
            # the limit, not the default of the moment (a joblib context's, a worker's): what
            # threadpool_limits reads on entry is what it restores on exit
            return _limit if _limit is not None else (os.cpu_count() or 1)

        def set_num_threads(self, num_threads):
            global _limit
            cores = os.cpu_count() or 1
            _limit = None if num_threads is None or num_threads >= cores else max(1, int(num_threads))

        def get_version(self):
            return _native.__version__

    try:
        threadpoolctl.register(LargemarginController)
    except Exception:  # an unexpected threadpoolctl: its limits just do not reach us
        pass


_register_with_threadpoolctl()


def parallel(fn, items, workers):
    """[fn(item) for item in items] on `workers` threads. Python delivers Ctrl-C to the main
    thread only, so the calls run under one StopSignal: when the caller is interrupted (or a call
    fails), the native runs of the others end at their next poll, the calls not started are
    dropped, and the exception is raised once every thread has returned."""
    stop = _native.StopSignal()

    def one(item):
        with stop:
            return fn(item)

    pool = ThreadPoolExecutor(max(1, workers))
    try:
        futures = [pool.submit(one, item) for item in items]
        wait(futures, return_when=FIRST_EXCEPTION)  # a failure stops the others at once
        failed = next((f for f in futures if f.done() and f.exception() is not None), None)
        if failed is not None:
            failed.result()
        return [f.result() for f in futures]
    except BaseException:
        stop.request()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
