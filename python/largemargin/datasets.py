"""Datasets: the LIBSVM/svmlight reader (streaming, .gz/.bz2 handled here) and the small real
dataset the package ships (UCI Adult in Platt's 123-feature encoding, the LaSVM papers' copy)."""

import bz2
import gzip
from importlib import resources

import numpy as np
import scipy.sparse as sp

from . import _native

_CHUNK = 1 << 20


def _open(path):
    path = str(path)
    if path.endswith(".bz2"):
        return bz2.open(path, "rb")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def load_libsvm(path, n_features=None, zero_based="auto", dtype=np.float64):
    """Read a LIBSVM/svmlight file (plain, .gz or .bz2) into (X, y): X a CSR matrix.

    `zero_based`: True, False or "auto" (zero-based if any feature index 0 occurs). `n_features`
    widens X to that many columns (test files often omit the last features). A malformed line
    raises ValueError naming the file and the line."""
    reader = _native.LibsvmReader()
    try:
        with _open(path) as f:
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
                reader.feed(chunk)
        zb = None if zero_based == "auto" else bool(zero_based)
        labels, indptr, indices, data, cols = reader.finish(zb)
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None
    if n_features is not None:
        if n_features < cols:
            raise ValueError(f"{path}: feature index {cols - 1} does not fit n_features={n_features}")
        cols = n_features
    X = sp.csr_matrix((data.astype(dtype, copy=False), indices, indptr), shape=(len(labels), cols))
    return X, labels


def _bundled(name):
    return resources.files("largemargin").joinpath("data", name)


def load_adult(subset="train", dtype=np.float64):
    """UCI Adult as the LaSVM papers used it: 32,561 training and 16,281 test examples, 123 binary
    features, labels -1/+1. `subset` is "train" or "test"."""
    if subset not in ("train", "test"):
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}")
    fname = "adult.trn.bz2" if subset == "train" else "adult.tst.bz2"
    with resources.as_file(_bundled(fname)) as path:
        return load_libsvm(path, n_features=123, zero_based=True, dtype=dtype)
