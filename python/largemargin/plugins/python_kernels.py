"""Kernels written in Python, as the native solver calls them: on blocks of rows, never on single
pairs, with every result checked before it reaches the solver.

The solver asks for one row segment at a time through `TrainingKernel` (the Python half of the
native adapter): ``k(A, B)`` with ``A`` one training row and ``B`` either the whole training set
(the same object on every call) or the requested rows. A `BlockKernel`'s ``prepare`` runs once
per training set, and each call gets the prepared rows it needs. Prediction calls
``k(X_block, support_vectors)`` a block of rows at a time, the support vectors prepared once.
"""

import numpy as np
import scipy.sparse as sp

# Rows per call when a kernel is evaluated on many rows (diagonal, prediction).
BLOCK_ROWS = 512


class PluginError(RuntimeError):
    """A plugin failed or broke its contract; the message names the plugin, the cause is chained."""


class KernelOutputError(PluginError, ValueError):
    """A kernel returned a matrix of the wrong shape or type, or non-finite values: also a
    ValueError, as scikit-learn's SVC raises for such a kernel."""


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

    @property
    def blockwise(self):
        """Whether the kernel prepares per-row data of its targets (a `BlockKernel`)."""
        return isinstance(self.function, BlockKernel)

    def _guarded(self, what, function, *args):
        try:
            return function(*args)
        except Exception as e:
            raise PluginError(f"{self._where()}{what} raised {type(e).__name__}: {e}") from e

    def prepare(self, B):
        """A `BlockKernel`'s per-row data of the target set B (None for a plain callable)."""
        if not self.blockwise:
            return None
        prepared = self._guarded(".prepare", self.function.prepare, B)
        if type(self.function).take is BlockKernel.take:  # the default take indexes along the first axis
            for part in prepared if isinstance(prepared, tuple) else (prepared,):
                if part is not None and (np.ndim(part) == 0 or len(part) != n_rows(B)):
                    raise PluginError(f"{self._where()}.prepare returned {np.shape(part)} for {n_rows(B)} rows: the "
                                      "default take needs one entry per row of B along the first axis")
        return prepared

    def take(self, prepared, rows):
        """The prepared data of `rows` (a slice or an index array) of the target set."""
        return self._guarded(".take", self.function.take, prepared, rows) if self.blockwise else None

    def block(self, A, B, prepared):
        """The checked (len(A), len(B)) block, `prepared` being B's prepared data."""
        if self.blockwise:
            K = self._guarded("", self.function.block, A, B, prepared)
        else:
            K = self._guarded("", self.function, A, B)
        K = K.toarray() if sp.issparse(K) else np.asarray(K)  # x @ y.T of sparse rows is sparse
        rows, cols = n_rows(A), n_rows(B)
        if K.shape != (rows, cols):
            raise KernelOutputError(f"{self._where()} returned shape {K.shape}, expected ({rows}, {cols})")
        if K.dtype.kind not in "fiu":
            raise KernelOutputError(f"{self._where()} returned dtype {K.dtype}, expected real numbers")
        if not np.all(np.isfinite(K)):
            raise KernelOutputError(f"{self._where()} returned NaN or infinite values")
        return K

    def __call__(self, A, B):
        return self.block(A, B, self.prepare(B))

    def __repr__(self):
        return self._where()

    def __reduce__(self):
        return (CheckedKernel, (self.name, self.plugin, self.function))


class TrainingKernel:
    """A checked Python kernel over the training set X, answering the native solver's requests:
    ``row(i, cols)`` (cols None: every example) and ``diagonal(start, stop)``. A `BlockKernel` prepares X
    here, once for the whole fit, and each call gets the prepared rows of its columns."""

    def __init__(self, kernel, X):
        self.kernel, self.X, self.n = kernel, X, n_rows(X)
        self.prepared = kernel.prepare(X)

    def __len__(self):
        return self.n

    def __repr__(self):
        return repr(self.kernel)

    def row(self, i, cols):
        A = take_rows(self.X, slice(i, i + 1))
        if cols is None:
            K = self.kernel.block(A, self.X, self.prepared)
        else:
            K = self.kernel.block(A, take_rows(self.X, cols), self.kernel.take(self.prepared, cols))
        return np.ascontiguousarray(K, dtype=np.float64).reshape(-1)

    def diagonal(self, start=0, stop=None):
        """k(x_i, x_i) for start <= i < stop (the native side asks in slices, to stop between them)."""
        stop = self.n if stop is None else min(stop, self.n)
        out = np.empty(max(stop - start, 0))
        for s in range(start, stop, BLOCK_ROWS):
            rows = slice(s, min(s + BLOCK_ROWS, stop))
            block = take_rows(self.X, rows)
            out[rows.start - start:rows.stop - start] = np.diagonal(self.kernel.block(block, block, self.kernel.take(self.prepared, rows)))
        return out


def blocks_of_rows(X):
    """(start, rows) blocks of at most BLOCK_ROWS rows of X."""
    for s in range(0, n_rows(X), BLOCK_ROWS):
        yield s, take_rows(X, slice(s, s + BLOCK_ROWS))


class BlockKernel:
    """A base for Python kernels that precompute something per row of the target set, such as
    its norms.

    ``prepare(B)`` returns per-row data of B: an array whose first axis runs over the rows of B,
    a tuple of such arrays, or None. The library calls it once per target set: once for the
    training set in each fit (``fit``, or each ``partial_fit`` on its support vectors and chunk)
    and once for the support vectors in each prediction call. Each block is then
    ``block(A, B_rows, take(prepared, rows))``: the rows of B the solver asks for, with their
    prepared data (``take`` indexes arrays along their first axis; override it for data of
    another shape). Called directly, ``k(A, B)`` prepares B and returns ``block(A, B, prepared)``.
    """

    def prepare(self, B):
        return None

    def take(self, prepared, rows):
        """The prepared data of `rows` (a slice or an integer array) of B."""
        if prepared is None:
            return None
        if isinstance(prepared, tuple):
            return tuple(self.take(p, rows) for p in prepared)
        return prepared[rows]

    def block(self, A, B, prepared):
        raise NotImplementedError(f"{type(self).__name__} defines no block(A, B, prepared): a BlockKernel must")

    def __call__(self, A, B):
        return self.block(A, B, self.prepare(B))
