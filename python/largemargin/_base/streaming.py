"""What the online and LaRank classifiers share about their input: a fit's labelled data, a
partial_fit chunk's checks, and a continued fit's training set (support vectors, then the chunk)."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets

from .._guard import at_least_two, check_known_labels, partial_fit_classes


def _rows(X):
    return X.shape[0] if hasattr(X, "shape") else len(X)


def _stack(A, B):
    """Rows of A then rows of B: sparse, dense or plain sequences."""
    if sp.issparse(A) or sp.issparse(B):
        return sp.vstack([sp.csr_matrix(A), sp.csr_matrix(B)], format="csr")
    if isinstance(A, np.ndarray) and isinstance(B, np.ndarray):
        return np.vstack([A, B.astype(A.dtype, copy=False)]) if A.size else B
    return list(A) + list(B)


def _labelled(est, X, y, sample_weight):
    """What a classifier's fit starts from: checked data, `classes_` and `class_weight_` set, the
    class index of every example and its weight (class weight times sample weight)."""
    X, Xk, y, sample_weight = est._prepare_fit(X, y, sample_weight)
    check_classification_targets(y)
    est.classes_, y_idx = np.unique(y, return_inverse=True)
    at_least_two(est.classes_)
    est.class_weight_ = compute_class_weight(getattr(est, "class_weight", None), classes=est.classes_, y=y)
    return X, Xk, y_idx, est.class_weight_[y_idx] * sample_weight


def _chunk(est, X, y, classes, sample_weight):
    """The checks of an online estimator's `partial_fit`: returns whether this is the first call,
    the chunk (raw and kernel-ready), its class indices and each example's weight (class weight
    times sample weight). The first call fixes ``classes_`` and the kernel (gamma="scale" is not
    re-estimated later). 'balanced' class weights need every label at once: refused."""
    if getattr(est, "class_weight", None) == "balanced":
        raise ValueError("class_weight='balanced' needs every label at once: it is not supported by partial_fit "
                         "(give a dict of class weights, or use fit)")
    first = not hasattr(est, "classes_")
    classes = partial_fit_classes(getattr(est, "classes_", None), classes)
    gamma = None if first else est._gamma
    X, Xk, y, sample_weight = est._prepare_fit(X, y, sample_weight, reset=first)
    check_classification_targets(y)
    check_known_labels(y, classes)
    if gamma is not None:
        est._gamma = gamma
    y_idx = np.searchsorted(classes, y)
    if first:
        est.classes_ = classes
        if est.class_weight is not None:
            est.class_weight_ = compute_class_weight(est.class_weight, classes=classes, y=classes)
        else:
            est.class_weight_ = np.ones(len(classes))
    return first, X, Xk, y_idx, est.class_weight_[y_idx] * sample_weight


def _after_support(est, X, Xk):
    """The current support vectors then the chunk, as (raw rows for a Python kernel or None,
    kernel-ready rows): a continued fit's training set."""
    stack = _stack(est.support_vectors_, X if est._python_kernel is not None else Xk)
    raw = stack if est._python_kernel is not None else None
    return raw, stack if est._python_kernel is None else np.empty((_rows(stack), 0))
