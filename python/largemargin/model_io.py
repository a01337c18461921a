"""Saving and loading fitted kernel SVMs (`SVC`, `NuSVC`, `SVR`, `NuSVR`, `OneClassSVM`) in LIBSVM's model-file format, readable by LIBSVM's
own tools (svm-predict, the libsvm-official package) and by `largemargin-cli`.

LIBSVM matches the feature indices of a model file literally with those of the data files it
predicts. A model therefore has to be written and read with the index base of its data files:
``zero_based=False`` (LIBSVM's own convention) writes column j of the training matrix as feature
index j + 1, ``zero_based=True`` as j (zero-based files, such as the bundled Adult ones)."""

import numbers

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._arrays import to_native
from ._multiclass import reorder_classes
from .nu_svm import NuSVC, NuSVR
from .one_class import OneClassSVM
from .svm import SVC, SVR

# LIBSVM's svm_type of each class, and back
_TYPES = {SVC: "c_svc", NuSVC: "nu_svc", OneClassSVM: "one_class", SVR: "epsilon_svr", NuSVR: "nu_svr"}
_CLASSES = {name: cls for cls, name in _TYPES.items()}


def save_libsvm_model(model, path, zero_based=None):
    """Write a fitted `SVC`, `NuSVC`, `SVR`, `NuSVR` or `OneClassSVM` to a file in LIBSVM's model
    format (svm_type ``c_svc``, ``nu_svc``, ``epsilon_svr``, ``nu_svr`` or ``one_class``).

    The file is readable by LIBSVM's own tools (svm-predict, the libsvm-official package) and by
    ``largemargin-cli``. It is written atomically: on any failure (a full disk, a file-size limit)
    an exception is raised and a previous file at `path` is left as it was. Class labels must be
    integers in LIBSVM's 32-bit range, and the kernel a built-in one (pickle the others). A model
    read from a LIBSVM file is written back with its classes in the file's order, so that LIBSVM
    breaks one-vs-one ties as it did before.

    Parameters
    ----------
    model : SVC, NuSVC, SVR, NuSVR or OneClassSVM
        The fitted model.
    path : str or path-like
        The file to write.
    zero_based : bool or None, default=None
        The index base of the data files the model will be used with (see the module
        documentation): the base you read the training data with. None means the base the model
        was read with by `load_libsvm_model`, else False (one-based, LIBSVM's convention). Note
        that ``zero_based="auto"`` reading cannot tell a zero-based file that never uses index 0
        from a one-based one; if your files are zero-based, read them with ``zero_based=True``.

    See Also
    --------
    load_libsvm_model : Read such a file back.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> clf = lm.SVC(C=10).fit(X, [1, 1, 2, 2])
    >>> path = os.path.join(tempfile.mkdtemp(), "svc.model")
    >>> lm.save_libsvm_model(clf, path)
    >>> lm.load_libsvm_model(path).predict([[-0.8, -1.0], [1.5, 1.0]])
    array([1, 2])
    """
    svm_type = _TYPES.get(type(model))
    if svm_type is None:
        raise TypeError(f"expected a fitted largemargin SVC, NuSVC, SVR, NuSVR or OneClassSVM, got "
                        f"{type(model).__module__}.{type(model).__name__}")
    check_is_fitted(model)
    if zero_based is None:
        zero_based = getattr(model, "_libsvm_zero_based", False)
    if not isinstance(zero_based, (bool, np.bool_)):
        raise ValueError(f"zero_based must be True, False or None, got {zero_based!r}")
    if model._native_kernel is None:
        raise ValueError(
            f"LIBSVM's format holds the built-in kernels only, not {model.kernel!r}; use pickle for this model"
        )
    coef = np.asarray(model._dual_coef_, dtype=np.float64)
    rho = -np.asarray(model._intercept_, dtype=np.float64)
    sv_order = np.arange(coef.shape[1])
    if isinstance(model, SVC):
        classes = np.asarray(model.classes_)
        if classes.dtype.kind not in "iuf" or not np.all(np.equal(np.mod(classes.astype(float), 1), 0)):
            raise ValueError(f"LIBSVM model files need integer class labels, got {classes!r}")
        if np.any(np.abs(classes.astype(float)) > np.iinfo(np.int32).max):
            raise ValueError(f"LIBSVM's class labels are 32-bit integers, got {classes!r}")
        labels, n_support = classes.astype(np.int64), np.asarray(model._n_support, np.int64)
        prob_a, prob_b = np.asarray(model.probA_, float), np.asarray(model.probB_, float)
        file_order = getattr(model, "_libsvm_file_order", None)
        if file_order is not None:
            # back to the order the classes had in the file they were read from
            sv_order, n_support, coef, rho, prob_a, prob_b = reorder_classes(
                file_order, n_support, coef, rho, prob_a, prob_b)
            labels = labels[np.argsort(file_order, kind="stable")]
    else:
        labels, n_support = np.zeros(0, np.int64), np.zeros(0, np.int64)
        # the noise scale of a regression, the density marks of a one-class model, read from a file
        prob_a, prob_b = getattr(model, "_libsvm_prob_a", np.zeros(0)), np.zeros(0)
    if model._native_kernel == "precomputed":
        sv = np.zeros((0, 0))
    else:
        sv = model.support_vectors_
        if sp.issparse(sv):
            sv = sp.csr_matrix(sv)[sv_order]
        else:
            sv = np.ascontiguousarray(np.asarray(sv)[sv_order])
    _native.write_libsvm_model(
        str(path), svm_type=svm_type, kernel=model._native_kernel, gamma=float(model._gamma), coef0=float(model.coef0), degree=int(model.degree),
        labels=labels, n_support=n_support.astype(np.int64), rho=np.ascontiguousarray(rho), prob_a=np.ascontiguousarray(prob_a, dtype=float),
        prob_b=np.ascontiguousarray(prob_b, dtype=float), sv_coef=np.ascontiguousarray(coef), sv=to_native(sv),
        sv_indices=np.asarray(model.support_)[sv_order].astype(np.int64), zero_based=bool(zero_based),
    )


def load_libsvm_model(path, n_features=None, zero_based=False):
    """Read a LIBSVM model file (ours or LIBSVM's) into a fitted `SVC`, `NuSVC`, `SVR`, `NuSVR` or
    `OneClassSVM`, as its svm_type says.

    Without ``n_features`` the model accepts data of any width and matches it with its support
    vectors feature by feature, as LIBSVM does: a feature that either side does not have is zero
    there. Support vectors are kept sparse. ``support_`` holds training indices for precomputed
    kernels and -1 (unknown) otherwise. One-vs-one vote ties are broken in favour of the class
    listed first in the file, as LIBSVM breaks them.

    A precomputed model takes X[i, j] = K(x_i, training example j), j from 0. LIBSVM's
    precomputed data files put a serial number in column 0 (``0:serial 1:K(x, x_1) ...``): read
    such a file with ``load_libsvm(path, zero_based=True)`` and pass ``X[:, 1:]``.

    Model files do not store C, nu nor epsilon: the returned estimator has the default values,
    which a refit would use unless you set them. A one-class file's density marks (LIBSVM's
    one-class probability) are kept and written back, not used for prediction.

    Parameters
    ----------
    path : str or path-like
        The model file.
    n_features : int, default=None
        The width of the data the model will see (for a precomputed kernel, the number of
        training examples, i.e. the kernel matrix's width); None: any width.
    zero_based : bool, default=False
        The index base of the model's data files (see the module documentation); it is not
        guessed. A model that uses feature index 0 must be read with ``zero_based=True`` (else a
        ValueError names the line). Read the data files with the same base.

    Returns
    -------
    SVC, NuSVC, SVR, NuSVR or OneClassSVM
        The fitted model (``probability=True`` for a classifier whose file holds Platt's
        sigmoids).

    See Also
    --------
    save_libsvm_model : Write such a file.

    Examples
    --------
    >>> import os, tempfile
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.linspace(0, 1, 20).reshape(-1, 1)
    >>> reg = lm.SVR(kernel="linear", C=100, epsilon=0.01).fit(X, 3 * X.ravel() + 1)
    >>> path = os.path.join(tempfile.mkdtemp(), "svr.model")
    >>> lm.save_libsvm_model(reg, path)
    >>> round(float(lm.load_libsvm_model(path).predict([[0.5]])[0]), 1)
    2.5
    """
    if not isinstance(zero_based, (bool, np.bool_)):
        raise ValueError(f"zero_based must be True or False, got {zero_based!r}")
    if n_features is not None and not (isinstance(n_features, numbers.Integral) and n_features >= 0):
        raise ValueError(f"n_features must be a non-negative integer, got {n_features!r}")
    d = _native.read_libsvm_model(str(path), zero_based=bool(zero_based))
    indptr, indices, data, cols = d["sv"]
    precomputed = d["kernel"] == "precomputed"
    if n_features is not None and not precomputed:
        if n_features < cols:
            raise ValueError(f"{path}: the model uses feature column {cols - 1}, beyond n_features={n_features}")
        cols = n_features
    sv = sp.csr_matrix((data, indices, indptr), shape=(len(indptr) - 1, cols))
    params = dict(kernel=d["kernel"], gamma=d["gamma"] if d["gamma"] > 0 else "scale", coef0=d["coef0"],
                  degree=int(d["degree"]))
    coef, rho, sv_idx = d["sv_coef"], d["rho"], d["sv_indices"]
    cls = _CLASSES[d["svm_type"]]
    if issubclass(cls, SVC):
        model = cls(probability=len(d["prob_a"]) > 0, **params)
        labels = d["labels"]
        order, n_support, coef, rho, prob_a, prob_b = reorder_classes(
            labels, d["n_support"], coef, rho, d["prob_a"], d["prob_b"])
        model.classes_ = np.sort(labels)
        # position in the file of each (sorted) class; kept only when it differs from sorted order
        file_order = np.argsort(labels, kind="stable")
        if np.any(file_order != np.arange(len(labels))):
            model._libsvm_file_order = file_order
        model._n_support = n_support.astype(np.int32)
        model.n_support_ = model._n_support
        model.probA_, model.probB_ = prob_a, prob_b
        if precomputed:
            sv_idx = sv_idx[order]
        else:
            sv = sv[order]
        model._intercept_ = -rho
        model._dual_coef_ = coef
        model.class_weight_ = np.ones(len(model.classes_))
    else:
        model = cls(**params)
        if len(d["prob_a"]):
            model._libsvm_prob_a = d["prob_a"]  # LIBSVM's noise scale or density marks, written back on save
        model._n_support = np.array([0, 0], dtype=np.int32)
        model.n_support_ = np.array([coef.shape[1]], dtype=np.int32)
        model._intercept_ = -rho
        model._dual_coef_ = coef
    model._sparse = True  # support vectors are kept sparse
    model._libsvm_zero_based = bool(zero_based)
    binary = isinstance(model, SVC) and len(model.classes_) == 2
    model.intercept_ = -model._intercept_ if binary else model._intercept_.copy()
    model.dual_coef_ = model._public_coef(-model._dual_coef_ if binary else model._dual_coef_)
    model._gamma = float(d["gamma"])
    model._resolve_kernel()
    nsv = coef.shape[1]
    if precomputed:
        model.support_ = sv_idx.astype(np.int32)
        model.support_vectors_ = np.empty((0, 0))
        needed = int(model.support_.max()) + 1 if nsv else 0
        if n_features is not None and n_features < needed:
            raise ValueError(f"{path}: a support vector is training example {needed}, beyond n_features={n_features}")
        width = needed if n_features is None else n_features
        model.shape_fit_ = (width, width)
    else:
        model.support_ = np.full(nsv, -1, dtype=np.int32)
        model.support_vectors_ = sv
        model.shape_fit_ = (nsv, cols)
    if n_features is None:
        model._any_width = True  # widths are matched as LIBSVM matches them
    else:
        model.n_features_in_ = n_features
    model.fit_status_ = 0
    model.n_iter_ = np.zeros(0, dtype=np.int32)
    if isinstance(model, OneClassSVM):
        model.offset_ = -model._intercept_
    return model
