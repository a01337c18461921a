"""Turning user input into what the native core reads without copying: C-contiguous float32/float64
arrays, or CSR triples (indptr int64, indices int32, data float32/float64)."""

import numpy as np
import scipy.sparse as sp

from . import _native


def is_sparse(X):
    return sp.issparse(X)


# What the native side says of CSR indices that are not sorted and unique.
NOT_CANONICAL = "column indices must be sorted, unique"


def canonical_csr(X):
    """X as CSR with sorted, unique column indices, the caller's matrix untouched: a copy is made
    only when X is not in that form already (duplicates are summed, as scipy reads them)."""
    X = X.tocsr()
    if X.has_canonical_format:  # scipy checks it in O(nnz) when it does not know
        return X
    X = X.copy()
    X.sum_duplicates()  # sorts, too
    return X


def to_native(X, canonical=True):
    """The native view of a validated matrix. Dense arrays pass through untouched when already
    C-contiguous float32/float64; CSR data is shared, indptr is widened to int64. With
    ``canonical=False`` sparse data is passed as it is: the native side refuses unsorted or
    repeated indices (`NOT_CANONICAL` in its message), and the caller retries with the canonical
    form, sparing data that is canonical (nearly all) scipy's own pass to find out."""
    if sp.issparse(X):
        X = canonical_csr(X) if canonical else X.tocsr()
        data = X.data
        if data.dtype not in (np.float32, np.float64):
            data = data.astype(np.float64)
        return (
            np.ascontiguousarray(X.indptr, dtype=np.int64),
            np.ascontiguousarray(X.indices, dtype=np.int32),
            np.ascontiguousarray(data),
            int(X.shape[1]),
        )
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    return np.ascontiguousarray(X)


def native_cache_size(cache_size, X):
    """``cache_size`` in MB as the native fits take it: a number as given; ``"auto"`` sized from the
    training data (its rows and stored values; a matrix or `to_native`'s CSR tuple) and the memory available now: the whole kernel
    matrix in float32 and the engine's copies of the data, within a quarter of the available
    memory, never below 200 MB unless a quarter is less (``largemargin::cache::budget``)."""
    if isinstance(cache_size, str):  # "auto": the only string the constraints allow
        if isinstance(X, tuple):  # CSR as `to_native` gives it: (indptr, indices, data, width)
            rows, values = len(X[0]) - 1, len(X[2])
        elif sp.issparse(X):
            rows, values = X.shape[0], X.nnz
        else:
            rows, values = X.shape[0], X.size
        return float(_native.auto_cache_size(int(rows), int(values)))
    return float(cache_size)


def scale_gamma(n_features, var):
    """gamma='scale': 1 / (n_features * var), var the variance of all entries (1 for constant
    data). Data so large or small that this is not a usable positive number is refused: the kernel
    would silently become constant."""
    if var == 0:
        return 1.0
    with np.errstate(over="ignore", divide="ignore"):
        gamma = 1.0 / (n_features * var) if np.isfinite(var) else 0.0
    if not (np.isfinite(gamma) and gamma > 0):
        raise ValueError(
            f"gamma='scale' is 1 / (n_features * X.var()) = {gamma:g} for this data (its variance is {var:g}): "
            "scale the data or give gamma as a number"
        )
    return float(gamma)


def variance(X):
    """Variance of all entries, for gamma='scale'."""
    with np.errstate(over="ignore", invalid="ignore"):
        if sp.issparse(X):
            # from the stored values alone: scipy's mean() (before 1.11) multiplies by a dense vector
            # of ones as long as the row, 16 GB for a width of 2^31
            X = canonical_csr(X)  # a repeated column is one entry, their sum
            size = float(X.shape[0]) * float(X.shape[1])
            data = np.asarray(X.data, dtype=np.float64)
            mean = data.sum() / size
            return float((data * data).sum() / size - mean * mean)
        return float(np.asarray(X, dtype=np.float64).var())
