"""Kernels written in Python, as the native solver calls them: on blocks of rows, never on single
pairs, with every result checked before it reaches the solver.

The solver asks for one row segment at a time through `TrainingKernel` (the Python half of the
native adapter): ``k(A, B)`` with ``A`` one training row and ``B`` either the whole training set
(the same object on every call, so a kernel may keep per-B work between calls) or the requested
rows. Prediction calls ``k(X_block, support_vectors)`` a block of rows at a time.
"""

import weakref

import numpy as np
import scipy.sparse as sp

# Rows per call when a kernel is evaluated on many rows (diagonal, prediction).
BLOCK_ROWS = 512


class PluginError(RuntimeError):
    """A plugin failed or broke its contract; the message names the plugin, the cause is chained."""


def n_rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def take_rows(X, idx):
    """Rows of X: numpy arrays and scipy matrices by indexing, any other sequence item by item."""
    if isinstance(X, np.ndarray) or sp.issparse(X):
        return X[idx]
    if isinstance(idx, slice):
        return X[idx]
    return [X[int(j)] for j in idx]


class CheckedKernel:
    """A Python kernel called on blocks, with its result checked: shape (len(A), len(B)), real
    numbers, no NaN or infinity. Failures name the plugin and keep the original traceback."""

    def __init__(self, name, plugin, function):
        self.name, self.plugin, self.function = name, plugin, function

    def _where(self):
        return f"kernel {self.name!r} of plugin {self.plugin!r}" if self.plugin else f"kernel {self.name}"

    def __call__(self, A, B):
        try:
            K = self.function(A, B)
        except Exception as e:
            raise PluginError(f"{self._where()} raised {type(e).__name__}: {e}") from e
        K = np.asarray(K)
        rows, cols = n_rows(A), n_rows(B)
        if K.shape != (rows, cols):
            raise PluginError(f"{self._where()} returned shape {K.shape}, expected ({rows}, {cols})")
        if K.dtype.kind not in "fiu":
            raise PluginError(f"{self._where()} returned dtype {K.dtype}, expected real numbers")
        if not np.all(np.isfinite(K)):
            raise PluginError(f"{self._where()} returned NaN or infinite values")
        return K

    def __repr__(self):
        return self._where()

    def __reduce__(self):
        return (CheckedKernel, (self.name, self.plugin, self.function))


class TrainingKernel:
    """A checked Python kernel over the training set X, answering the native solver's requests:
    ``row(i, cols)`` (cols None: every example) and ``diagonal()``."""

    def __init__(self, kernel, X):
        self.kernel, self.X, self.n = kernel, X, n_rows(X)

    def __len__(self):
        return self.n

    def __repr__(self):
        return repr(self.kernel)

    def row(self, i, cols):
        A = take_rows(self.X, slice(i, i + 1))
        B = self.X if cols is None else take_rows(self.X, cols)
        return np.ascontiguousarray(self.kernel(A, B), dtype=np.float64).reshape(-1)

    def diagonal(self):
        out = np.empty(self.n)
        for s in range(0, self.n, BLOCK_ROWS):
            block = take_rows(self.X, slice(s, s + BLOCK_ROWS))
            out[s:s + BLOCK_ROWS] = np.diagonal(self.kernel(block, block))
        return out


def blocks_of_rows(X):
    """(start, rows) blocks of at most BLOCK_ROWS rows of X."""
    for s in range(0, n_rows(X), BLOCK_ROWS):
        yield s, take_rows(X, slice(s, s + BLOCK_ROWS))


class BlockKernel:
    """A base for Python kernels that precompute something per target set, such as row norms.

    ``prepare(B)`` runs once per distinct ``B`` (kept by weak reference, so the training set is
    not held after the fit) and its result goes to ``block(A, B, prepared)``, which returns the
    ``(len(A), len(B))`` kernel block. During a fit most calls share the same ``B``."""

    def prepare(self, B):
        return None

    def block(self, A, B, prepared):
        raise NotImplementedError

    def __call__(self, A, B):
        held = getattr(self, "_prepared", None)
        if held is not None and held[0]() is B:
            prepared = held[1]
        else:
            prepared = self.prepare(B)
            try:
                self._prepared = (weakref.ref(B), prepared)
            except TypeError:  # an object without weak references (a list): prepared per call
                self._prepared = None
        return self.block(A, B, prepared)

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("_prepared", None)  # a weak reference: not picklable, and only a cache
        return state
