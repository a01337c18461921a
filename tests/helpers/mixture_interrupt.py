"""A MixtureSVC fit on 40,000 x 10 rows to interrupt, for test_mixture's Ctrl-C test: run as
`python mixture_interrupt.py PHASE`, it prints "ready" once the phase it is to be interrupted in
(PHASE: "experts", "gater" or "dask") has begun, and "interrupted <time>" when the fit has raised
KeyboardInterrupt and no expert trains any more, on any thread; the KeyboardInterrupt then ends
the process with its traceback."""

import signal
import sys
import time

import numpy as np

import largemargin as lm
from largemargin import _native
from largemargin import mixture_experts as mx


def say(what):
    print(what, flush=True)


def main(phase):
    rng = np.random.RandomState(0)
    X = rng.randn(40000, 10)
    y = np.where(X[:, 0] * X[:, 1] + 0.5 * rng.randn(40000) > 0, 1, 0)  # noisy: many support vectors
    running = []  # the experts training now, on whichever thread

    if phase == "gater":
        # many small experts, a long gater: the Ctrl-C lands in the gater's training
        params = dict(n_experts=40, gater_epochs=100000, max_iter=1)
        fit_gater = _native.fit_gater
        _native.fit_gater = lambda *a, **k: (say("ready"), fit_gater(*a, **k))[1]
    else:
        params = dict(n_experts=2, C=100)  # 20,000 examples an expert: each trains for many seconds
    train_expert = mx.train_expert

    def watched(*a):
        if phase != "gater" and not running and not watched.began:
            watched.began = True
            say("ready")
        running.append(True)
        try:
            return train_expert(*a)
        finally:
            running.pop()

    watched.began = False
    mx.train_expert = watched
    try:
        if phase == "dask":
            from distributed import Client, LocalCluster

            # processes=False: the experts train on the worker's threads in this process, where
            # only the stop event reaches them (Dask does not interrupt a running task)
            with LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster, \
                    Client(cluster) as client:
                try:
                    lm.MixtureSVC(random_state=0, backend="dask", client=client, **params).fit(X, y)
                finally:
                    wait_for_experts(running)
        else:
            lm.MixtureSVC(random_state=0, **params).fit(X, y)
    except KeyboardInterrupt:
        wait_for_experts(running)
        say(f"interrupted {time.time()!r}")
        raise
    say("finished without an interruption")


def wait_for_experts(running, patience=60):
    """Until no expert trains any more: the interruption counts once their work has ended."""
    end = time.time() + patience
    while running and time.time() < end:
        time.sleep(0.01)


if __name__ == "__main__":
    # A background job of a non-interactive shell starts with SIGINT ignored, and Python then leaves
    # it so: take Python's usual handler, the one a user's Ctrl-C meets.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    main(sys.argv[1])
