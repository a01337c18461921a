"""Where a hard mixture's work runs: threads in this process, or the workers of a Dask cluster.

Both backends offer the same few operations to the training loop, on row blocks of the data:
train one expert per subset (in parallel), map a function over the blocks and bring its (small)
results back, and fetch given rows. With Dask the blocks stay on the workers; experts train on
the workers and only their outputs, the fitted experts and the reassignment's inputs come back.
"""

import threading
import uuid

import numpy as np
import scipy.sparse as sp

from . import _native
from . import mixture_experts as mx
from ._threads import parallel


class ThreadBackend:
    """One block: the whole data, in this process. Experts train on a pool of threads (the
    built-in experts' solvers release the GIL, so they run in parallel)."""

    def __init__(self, X, y, n_jobs):
        self.X, self.y = X, y
        self.workers = max(1, n_jobs)
        self.block_threads = self.workers  # one block: its computations may use every thread

    def train(self, factory, params, parts, task, calibrate):
        def one(idx):
            return mx.train_expert(factory, params, self.X[idx], self.y[idx], task, calibrate)

        return parallel(one, parts, self.workers)

    def per_part(self, fn, parts, *args):
        return parallel(lambda idx: fn(self.X[idx], *args), parts, self.workers)

    def map_blocks(self, fn, *args, with_y=False):
        return [fn(self.X, self.y, *args) if with_y else fn(self.X, *args)]

    def rows(self, idx):
        return self.X[idx]

    def targets(self, idx):
        return self.y[idx]

    def close(self):
        pass


POLL_STOP = 0.1  # seconds between a running task's looks at the fit's stop event


def _stoppable(stop_name, fn, *args):
    """fn(*args) on a worker, ended early when the client sets the fit's stop event (Dask does
    not interrupt a running task): a thread watches the event and requests a StopSignal that
    the task's native runs poll."""
    import distributed

    event = distributed.Event(stop_name, client=distributed.get_client())
    stop, done = _native.StopSignal(), threading.Event()

    def watch():
        while not done.wait(POLL_STOP):
            try:
                if event.is_set():
                    stop.request()
                    return
            except Exception:  # the scheduler is gone: the task's result will not be wanted either
                return

    threading.Thread(target=watch, name="largemargin-stop-watch", daemon=True).start()
    try:
        with stop:
            return fn(*args)
    except KeyboardInterrupt:
        if not stop.requested:
            raise
        # an ordinary exception for the worker (whose threads KeyboardInterrupt would upset); the
        # client, interrupted itself, no longer waits for it
        raise FitStopped("the mixture's fit was interrupted") from None
    finally:
        done.set()


class FitStopped(Exception):
    """A task of a mixture's fit ended by the fit's interruption."""


def _take(block, idx):
    return block[idx]


def _stack(*pieces):
    if any(sp.issparse(p) for p in pieces):
        return sp.vstack(pieces, format="csr")
    return np.concatenate(pieces) if len(pieces) > 1 else pieces[0]


def _train_on_blocks(factory, params, task, calibrate, selections, *blocks):
    """Gathers an expert's rows from the blocks it draws on (X blocks, then y blocks), in global
    row order, and trains it."""
    half = len(blocks) // 2
    X = _stack(*[b[s] for b, s in zip(blocks[:half], selections)])
    y = np.concatenate([b[s] for b, s in zip(blocks[half:], selections)])
    return mx.train_expert(factory, params, X, y, task, calibrate)


def _per_part_on_blocks(fn, args, selections, *blocks):
    X = _stack(*[b[s] for b, s in zip(blocks, selections)])
    return fn(X, *args)


def _apply(fn, block, *args):
    return fn(block, *args)


def _apply_y(fn, block, yblock, *args):
    return fn(block, yblock, *args)


class DaskBackend:
    """Row blocks held by the workers of a ``dask.distributed`` cluster.

    `X` and `y` are NumPy/SciPy arrays (split into blocks and scattered once, each block held by
    two workers) or Dask arrays (their row chunks are the blocks, computed and kept on the
    workers; Dask recomputes a lost one). A worker lost during a task has the task rescheduled by
    Dask; a task that keeps killing workers ends the fit with an error. The cluster's Active
    Memory Manager (on by default) removes the second copies within seconds; on such a cluster a
    block whose only copy is lost ends the fit with that error too."""

    def __init__(self, client, X, y, n_blocks=None, own_client=False):
        self.client = client
        self.own_client = own_client  # opened for this fit from an address: closed with it
        self.workers = max(1, len(client.scheduler_info()["workers"]))
        self.block_threads = 1  # blocks run side by side on the workers
        if is_dask_collection(X):
            X = X.rechunk({1: -1}) if X.ndim == 2 else X
            y = y.rechunk((X.chunks[0],))
            self.sizes = [int(c) for c in X.chunks[0]]
            self.Xb = client.compute(list(X.to_delayed()[:, 0]))
            self.yb = client.compute(list(y.to_delayed()))
        else:
            n = X.shape[0]
            blocks = n_blocks or max(2, 2 * self.workers)
            edges = np.linspace(0, n, blocks + 1).astype(int)
            self.sizes = [int(b - a) for a, b in zip(edges[:-1], edges[1:])]
            # keys of this fit's own (hash=False): with content-hashed keys, a fit of the same
            # data just after another (a refit, a second client on the cluster) shares the first
            # one's blocks, and the first fit's cancel at its close takes them from the second
            self.Xb = client.scatter([X[a:b] for a, b in zip(edges[:-1], edges[1:])], hash=False)
            self.yb = client.scatter([y[a:b] for a, b in zip(edges[:-1], edges[1:])], hash=False)
            if self.workers > 1:
                # scattered blocks have no lineage to recompute them from: keep two copies, so
                # that losing a worker loses no data
                client.replicate(self.Xb + self.yb, n=2)
        self.offsets = np.concatenate([[0], np.cumsum(self.sizes)])
        self.stop_name = f"largemargin-mixture-stop-{uuid.uuid4().hex}"

    def _submit(self, fn, *args):
        """A task that stops when this fit is interrupted."""
        return self.client.submit(_stoppable, self.stop_name, fn, *args, pure=False)

    def _stop(self, futures):
        """Ends the fit's tasks: those waiting are cancelled, those running told to stop."""
        import distributed

        distributed.Event(self.stop_name, client=self.client).set()
        self.client.cancel(futures)

    def _selections(self, idx):
        """(block numbers, local row indices per block) of sorted global rows."""
        blocks = np.searchsorted(self.offsets, idx, side="right") - 1
        used = np.unique(blocks)
        return used, [idx[blocks == b] - self.offsets[b] for b in used]

    def _gather(self, futures):
        from concurrent.futures import CancelledError

        from distributed.scheduler import KilledWorker

        try:
            return self.client.gather(futures)
        except BaseException as e:
            self._stop(futures)  # Ctrl-C, or a failed task: the others' work is not wanted
            if isinstance(e, (KilledWorker, CancelledError)):
                raise RuntimeError(
                    f"Dask workers died during the mixture's fit and a task could not be completed "
                    f"({type(e).__name__}: {e}); the fit stopped and no model was kept"
                ) from e
            raise

    def train(self, factory, params, parts, task, calibrate):
        futures = []
        for idx in parts:
            used, sel = self._selections(np.asarray(idx))
            futures.append(self._submit(
                _train_on_blocks, factory, params, task, calibrate, sel,
                *[self.Xb[b] for b in used], *[self.yb[b] for b in used],
            ))
        return self._gather(futures)

    def per_part(self, fn, parts, *args):
        futures = []
        for idx in parts:
            used, sel = self._selections(np.asarray(idx))
            futures.append(self._submit(_per_part_on_blocks, fn, args, sel, *[self.Xb[b] for b in used]))
        return self._gather(futures)

    def map_blocks(self, fn, *args, with_y=False):
        # large arguments (the experts) travel once to the cluster, not once per block
        shipped = [self.client.scatter(a, broadcast=True, hash=False) if isinstance(a, list) and a
                   and isinstance(a[0], mx.Expert) else a for a in args]
        if with_y:
            futures = [self._submit(_apply_y, fn, xb, yb, *shipped) for xb, yb in zip(self.Xb, self.yb)]
        else:
            futures = [self._submit(_apply, fn, xb, *shipped) for xb in self.Xb]
        return self._gather(futures)

    def _fetch(self, blocks, idx):
        used, sel = self._selections(np.sort(np.asarray(idx)))
        return self._gather([self.client.submit(_take, blocks[b], s, pure=False) for b, s in zip(used, sel)])

    def rows(self, idx):
        return _stack(*self._fetch(self.Xb, idx)) if len(idx) else self._fetch(self.Xb, [0])[0][:0]

    def targets(self, idx):
        return np.concatenate(self._fetch(self.yb, idx)) if len(idx) else np.zeros(0)

    def close(self):
        # (a stop event stays set: tasks still running look at it after the fit has returned)
        try:
            self.client.cancel(self.Xb + self.yb)
        finally:
            if self.own_client:
                self.client.close()


def is_dask_collection(x):
    return type(x).__module__.startswith("dask.")

