"""Kernels on non-negative histograms, computed on blocks of rows: k(A, B) -> (len(A), len(B))."""

import numpy as np
import scipy.sparse as sp

# Rows of A handled at once: bounds the (rows x len(B) x features) temporaries.
BLOCK = 256


def _dense(M):
    M = M.toarray() if sp.issparse(M) else np.asarray(M, dtype=np.float64)
    if M.ndim != 2:
        raise ValueError(f"histogram kernels need 2-D input, got shape {M.shape}")
    if (M < 0).any():
        raise ValueError("histogram kernels need non-negative features")
    return M


def _blockwise(A, B, pair):
    A, B = _dense(A), _dense(B)
    out = np.empty((A.shape[0], B.shape[0]))
    for s in range(0, A.shape[0], BLOCK):
        a = A[s:s + BLOCK, None, :]
        out[s:s + BLOCK] = pair(a, B[None, :, :]).sum(-1)
    return out


def _ratio(num, den):
    return np.divide(num, den, out=np.zeros(np.broadcast_shapes(num.shape, den.shape)), where=den > 0)


def intersection(A, B):
    """Histogram intersection: sum_f min(x_f, y_f)."""
    return _blockwise(A, B, np.minimum)


def additive_chi2(A, B):
    """Additive chi-square: sum_f 2 x_f y_f / (x_f + y_f)."""
    return _blockwise(A, B, lambda a, b: _ratio(2 * a * b, a + b))


def chi2(A, B, gamma=1.0):
    """Exponential chi-square: exp(-gamma * sum_f (x_f - y_f)^2 / (x_f + y_f))."""
    return np.exp(-gamma * _blockwise(A, B, lambda a, b: _ratio((a - b) ** 2, a + b)))
