"""Turning user input into what the native core reads without copying: C-contiguous float32/float64
arrays, or CSR triples (indptr int64, indices int32, data float32/float64)."""

import numpy as np
import scipy.sparse as sp


def is_sparse(X):
    return sp.issparse(X)


def to_native(X):
    """The native view of a validated matrix. Dense arrays pass through untouched when already
    C-contiguous float32/float64; CSR data is shared, indptr is widened to int64."""
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_sorted_indices:
            X = X.copy()
            X.sort_indices()
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


def variance(X):
    """Variance of all entries, for gamma='scale'."""
    if sp.issparse(X):
        mean = X.mean()
        return float(X.multiply(X).mean() - mean * mean)
    return float(np.asarray(X, dtype=np.float64).var())
