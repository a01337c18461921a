"""Native fits on several Python threads, stoppable with Ctrl-C."""

from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait

from . import _native


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
