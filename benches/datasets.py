"""Benchmark datasets from /work/shared/datasets (see its README.md).

Every loader returns ``Xtr, ytr, Xte, yte`` with float64 features and labels. adult stays sparse
(CSR, int32 indices: scikit-learn's SVC rejects int64 ones); the other sets are small or nearly
dense, so they are returned as dense arrays.
"""

import gzip
import os

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_file

DATA_DIR = os.environ.get("LARGEMARGIN_DATA", "/work/shared/datasets")


def _path(name):
    return os.path.join(DATA_DIR, name)


def _svmlight(name, n_features, zero_based, dense=False):
    X, y = load_svmlight_file(_path(name), n_features=n_features, zero_based=zero_based, dtype=np.float64)
    X = sp.csr_matrix(
        (X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape
    )
    X.sort_indices()
    if dense:
        X = X.toarray()
    return X, y.astype(np.float64)


def _csv(name):
    # No header line; the label is the last column.
    with gzip.open(_path(name), "rt") as f:
        rows = [line.rstrip("\n").split(",") for line in f if line.strip()]
    X = np.array([r[:-1] for r in rows], dtype=np.float64)
    labels = [r[-1] for r in rows]
    return X, labels


def load_adult():
    """UCI Adult (a9a), 123 binary features, 0-based indices; labels -1/+1. Sparse CSR."""
    Xtr, ytr = _svmlight("adult.trn.bz2", 123, zero_based=True)
    Xte, yte = _svmlight("adult.tst.bz2", 123, zero_based=True)
    return Xtr, ytr, Xte, yte


def load_ijcnn1():
    """IJCNN1, 22 features, 1-based indices; labels -1/+1. Dense."""
    Xtr, ytr = _svmlight("ijcnn1.trn.bz2", 22, zero_based=False, dense=True)
    Xte, yte = _svmlight("ijcnn1.tst.bz2", 22, zero_based=False, dense=True)
    return Xtr, ytr, Xte, yte


def load_mnist5k():
    """500 digits per class, sorted by label: first 400 of each class train, last 100 test.
    Pixels scaled to [0, 1]."""
    X, labels = _csv("mnist5k.csv.gz")
    X /= 255.0
    y = np.array(labels, dtype=np.float64)
    train = np.zeros(len(y), dtype=bool)
    for c in np.unique(y):
        idx = np.flatnonzero(y == c)
        train[idx[:400]] = True
    return X[train], y[train], X[~train], y[~train]


def load_letter():
    """UCI Letter: 16 integer features, labels A-Z mapped to 0-25; first 16000 train, last 4000 test."""
    X, labels = _csv("letter.csv.gz")
    y = np.array([ord(c) - ord("A") for c in labels], dtype=np.float64)
    return X[:16000], y[:16000], X[16000:], y[16000:]


def load_abalone():
    """Abalone rings regression, 8 features scaled to [-1, 1]; first 3000 train, rest test. Dense."""
    X, y = _svmlight("abalone.trn.bz2", 8, zero_based=False, dense=True)
    return X[:3000], y[:3000], X[3000:], y[3000:]


LOADERS = {
    "adult": load_adult,
    "ijcnn1": load_ijcnn1,
    "mnist5k": load_mnist5k,
    "letter": load_letter,
    "abalone": load_abalone,
}


def load(name):
    return LOADERS[name]()
