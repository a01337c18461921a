"""Reference kernels computed in NumPy, to check the native ones against."""

import numpy as np
import scipy.sparse as sp


def rbf(A, B, gamma):
    A = A.toarray() if sp.issparse(A) else A
    B = B.toarray() if sp.issparse(B) else B
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-gamma * np.maximum(d, 0))
