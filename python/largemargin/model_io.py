"""Saving and loading fitted SVC / SVR models in LIBSVM's model-file format, readable by LIBSVM's
own tools (svm-predict, the libsvm-official package) and by `largemargin-cli`."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._arrays import to_native
from .svm import SVC, SVR


def save_libsvm_model(model, path):
    """Write a fitted `SVC` or `SVR` to `path` in LIBSVM's format. Class labels must be integers,
    as LIBSVM stores them."""
    check_is_fitted(model)
    if model._native_kernel is None:
        raise ValueError(
            f"LIBSVM's format holds the built-in kernels only, not {model.kernel!r}; use pickle for this model"
        )
    if isinstance(model, SVC):
        classes = np.asarray(model.classes_)
        if classes.dtype.kind not in "iuf" or not np.all(np.equal(np.mod(classes.astype(float), 1), 0)):
            raise ValueError(f"LIBSVM model files need integer class labels, got {classes!r}")
        svm_type, labels, n_support = "c_svc", classes.astype(np.int64), model._n_support.astype(np.int64)
        prob_a, prob_b = np.asarray(model.probA_, float), np.asarray(model.probB_, float)
    elif isinstance(model, SVR):
        svm_type, labels, n_support = "epsilon_svr", np.zeros(0, np.int64), np.zeros(0, np.int64)
        prob_a = prob_b = np.zeros(0)
    else:
        raise TypeError(f"expected a largemargin SVC or SVR, got {type(model).__name__}")
    if model._native_kernel == "precomputed":
        sv = np.zeros((0, 0))
    else:
        sv = model.support_vectors_
    _native.write_libsvm_model(
        str(path), svm_type, model._native_kernel, float(model._gamma), float(model.coef0), int(model.degree),
        labels, n_support, -np.asarray(model._intercept_, float), prob_a, prob_b,
        np.ascontiguousarray(model._dual_coef_, dtype=np.float64), to_native(sv),
        model.support_.astype(np.int64),
    )


def _sorted_class_layout(labels, n_support, coef, rho):
    """Reorders a one-vs-one model whose classes are in file order into sorted class order:
    support vectors regrouped, pairs re-indexed, and a pair's sign flipped when its two classes
    swap places. Returns (order of SVs, n_support, coef, intercept)."""
    k = len(labels)
    order = np.argsort(labels, kind="stable")
    starts = np.concatenate([[0], np.cumsum(n_support)])
    groups = [np.arange(starts[c], starts[c + 1]) for c in range(k)]
    pair_of = _pair_index(k)
    sv_order = np.concatenate([groups[c] for c in order]) if k else np.zeros(0, int)
    new_start = np.concatenate([[0], np.cumsum([n_support[c] for c in order])])
    nsv = len(sv_order)
    new_coef = np.zeros((k - 1, nsv))
    intercept = np.zeros(len(rho))
    p = 0
    for a in range(k):
        for b in range(a + 1, k):
            i, j = order[a], order[b]
            sign = 1.0 if i < j else -1.0
            q = pair_of[(min(i, j), max(i, j))]
            # coefficient rows of the file: class i's vectors in row j-1 when i < j, else row j
            row_i = (j - 1) if i < j else j
            row_j = i if i < j else (i - 1)
            new_coef[b - 1, new_start[a]:new_start[a + 1]] = sign * coef[row_i, groups[i]]
            new_coef[a, new_start[b]:new_start[b + 1]] = sign * coef[row_j, groups[j]]
            intercept[p] = -sign * rho[q]
            p += 1
    return sv_order, np.array([n_support[c] for c in order]), new_coef, intercept


def load_libsvm_model(path, n_features=None):
    """Read a LIBSVM model file (ours or LIBSVM's) into a fitted `SVC` or `SVR`.

    `n_features` is the width of the data the model will see; by default the highest feature index
    used by a support vector. Support vectors are kept sparse. `support_` holds training indices
    for precomputed kernels and -1 (unknown) otherwise."""
    d = _native.read_libsvm_model(str(path))
    indptr, indices, data, cols = d["sv"]
    if n_features is not None:
        if n_features < cols:
            raise ValueError(f"the model uses feature {cols}, more than n_features={n_features}")
        cols = n_features
    sv = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, cols))
    params = dict(kernel=d["kernel"], gamma=d["gamma"] if d["gamma"] > 0 else "scale", coef0=d["coef0"], degree=int(d["degree"]))
    coef, rho = d["sv_coef"], d["rho"]
    if d["svm_type"] == "c_svc":
        model = SVC(probability=len(d["prob_a"]) > 0, **params)
        model._sparse = True  # support vectors are kept sparse
        order, n_support, coef, intercept = _sorted_class_layout(d["labels"], d["n_support"], coef, rho)
        pair_perm = _pair_permutation(d["labels"])
        model.classes_ = np.sort(d["labels"])
        model._n_support = n_support.astype(np.int32)
        model.n_support_ = model._n_support
        model.probA_ = d["prob_a"][pair_perm] if len(d["prob_a"]) else d["prob_a"]
        model.probB_ = d["prob_b"][pair_perm] if len(d["prob_b"]) else d["prob_b"]
        if len(d["prob_b"]):
            # A pair whose classes swap sees f -> -f; P(new first | -f) = 1 - P(old first | f)
            # is the same sigmoid with B negated.
            model.probB_ = model.probB_ * _pair_flips(d["labels"])
        sv = sv[order]
        sv_idx = d["sv_indices"][order] if len(d["sv_indices"]) else d["sv_indices"]
        model._intercept_ = intercept
        model._dual_coef_ = coef
        binary = len(model.classes_) == 2
        model.intercept_ = -intercept if binary else intercept.copy()
        model.dual_coef_ = model._public_coef(-coef if binary else coef)
        model.class_weight_ = np.ones(len(model.classes_))
    else:
        model = SVR(**params)
        model._sparse = True
        sv_idx = d["sv_indices"]
        model._n_support = np.array([0, 0], dtype=np.int32)
        model.n_support_ = np.array([sv.shape[0]], dtype=np.int32)
        model._intercept_ = -rho
        model._dual_coef_ = coef
        model.intercept_, model.dual_coef_ = model._intercept_, model._public_coef(coef)
    model._gamma = float(d["gamma"])
    model._resolve_kernel()
    nsv = coef.shape[1]
    if d["kernel"] == "precomputed":
        model.support_ = sv_idx.astype(np.int32)
        model.support_vectors_ = np.empty((0, 0))
        model.shape_fit_ = (int(model.support_.max()) + 1 if nsv else 0, 0)
        model.n_features_in_ = model.shape_fit_[0]
    else:
        model.support_ = np.full(nsv, -1, dtype=np.int32)
        model.support_vectors_ = sv
        model.shape_fit_ = (nsv, cols)
        model.n_features_in_ = cols
    model.fit_status_ = 0
    model.n_iter_ = np.zeros(0, dtype=np.int32)
    return model


def _pair_index(k):
    """(i, j) -> position of the class pair i < j in LIBSVM's pair order."""
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    return {pair: p for p, pair in enumerate(pairs)}


def _pairs_sorted(labels):
    order = np.argsort(labels, kind="stable")
    k = len(labels)
    return [(order[a], order[b]) for a in range(k) for b in range(a + 1, k)]


def _pair_permutation(labels):
    index = _pair_index(len(labels))
    return np.array([index[(min(i, j), max(i, j))] for i, j in _pairs_sorted(labels)], dtype=int)


def _pair_flips(labels):
    return np.array([1.0 if i < j else -1.0 for i, j in _pairs_sorted(labels)])
