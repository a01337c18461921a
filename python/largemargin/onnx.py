"""Export fitted models to ONNX, for onnxruntime and the other ONNX runtimes.

``to_onnx(model, X)`` hands each model to skl2onnx's converter of its scikit-learn counterpart,
through a stand-in that holds the same fitted parameters:

- ``SVC``/``NuSVC`` and ``SVR``/``NuSVR`` (built-in kernels; ``probability=True`` too), and a
  binary ``LaSVM``, ``Huller`` or ``KernelPerceptron``, as scikit-learn's ``SVC``/``SVR`` (the
  ONNX-ML ``SVMClassifier``/``SVMRegressor`` operators: a nu model is a C model with its own
  coefficients);
- ``OneClassSVM`` as scikit-learn's (the ``SVMRegressor`` operator's one-class mode);
- ``LinearSGD`` and ``MarginPerceptron`` as scikit-learn's ``SGDClassifier`` (a linear model);
- ``LinearSVC`` and ``LinearSVR`` as scikit-learn's classes of the same names (their attributes are
  scikit-learn's: ``coef_``, ``intercept_``, ``classes_``).

Models whose prediction has no exact ONNX form raise ``NotImplementedError``: Python, composed
and precomputed kernels, ``SVC(break_ties=True)`` and online kernel classifiers with more than two
classes (the ONNX-ML operator breaks equal votes otherwise), LaRank, the mixtures, the MLPs and the
sequence labeler. skl2onnx and onnx are needed (``pip install skl2onnx``). The ONNX-ML SVM
operators compute in float32: labels agree with the model's except where a decision is within
float32 rounding of 0 (a large rho makes that band wider), regression values, one-class scores and
multiclass probabilities agree to float32 rounding; binary probabilities differ by up to a few
1e-3 (the operator's own two-class Platt step).
"""

import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from ._options import LIBSVM_KERNELS

__all__ = ["to_onnx"]


def _dense(a):
    return np.asarray(a.toarray() if sp.issparse(a) else a, dtype=np.float64)


def _builtin_kernel(model):
    """The kernel as scikit-learn names it, or NotImplementedError."""
    kernel = model.kernel
    if not isinstance(kernel, str) or kernel not in LIBSVM_KERNELS:
        raise NotImplementedError(f"{type(model).__name__}(kernel={kernel!r}): only the built-in linear, poly, rbf and "
                                  "sigmoid kernels have an ONNX form")
    return kernel


def _fitted_standin(estimator, model, support_vectors, dual_coef, intercept, support, n_support):
    """scikit-learn's `estimator` (SVC or SVR, unfitted) given `model`'s kernel and these fitted
    parameters, as skl2onnx's converter reads them."""
    estimator.set_params(kernel=_builtin_kernel(model), degree=int(model.degree), coef0=float(model.coef0))
    estimator.support_vectors_ = support_vectors
    estimator.dual_coef_ = dual_coef
    estimator.intercept_ = np.asarray(intercept, dtype=np.float64)
    estimator.support_ = np.asarray(support, dtype=np.int32)
    estimator._n_support = np.asarray(n_support, dtype=np.int32)
    estimator._gamma = float(model._gamma) if model._gamma > 0 else 1.0
    estimator.n_features_in_ = support_vectors.shape[1]
    estimator.fit_status_ = 0
    estimator._sparse = False
    return estimator


def _svc_standin(model):
    from sklearn.svm import SVC as SklearnSVC

    if getattr(model, "_libsvm_file_order", None) is not None and list(model._libsvm_file_order) != sorted(
            model._libsvm_file_order):
        raise NotImplementedError("a model read from a LIBSVM file that lists its classes out of order votes as LIBSVM "
                                  "does in the file's order; ONNX's operator votes in sorted order: refit it")
    if getattr(model, "break_ties", False) and len(model.classes_) > 2:
        raise NotImplementedError("SVC(break_ties=True) with more than two classes has no exact ONNX form: the ONNX-ML "
                                  "SVMClassifier predicts by votes; export it with break_ties=False")
    s = SklearnSVC(probability=bool(getattr(model, "probability", False)),
                   decision_function_shape=getattr(model, "decision_function_shape", "ovr"))
    s.classes_ = np.asarray(model.classes_)
    s._probA = np.asarray(getattr(model, "probA_", np.empty(0)), dtype=np.float64)
    s._probB = np.asarray(getattr(model, "probB_", np.empty(0)), dtype=np.float64)
    return _fitted_standin(s, model, _dense(model.support_vectors_), _dense(model.dual_coef_), model.intercept_,
                           model.support_, model._n_support)


def _svr_standin(model):
    from sklearn.svm import SVR as SklearnSVR

    return _fitted_standin(SklearnSVR(), model, _dense(model.support_vectors_), _dense(model.dual_coef_),
                           model.intercept_, model.support_, [0, 0])


def _one_class_standin(model):
    from sklearn.svm import OneClassSVM as SklearnOneClassSVM

    s = _fitted_standin(SklearnOneClassSVM(), model, _dense(model.support_vectors_), _dense(model.dual_coef_),
                        model.intercept_, model.support_, [0, 0])
    s.offset_ = np.asarray(model.offset_, dtype=np.float64)
    return s


def _online_standin(model):
    """A binary online classifier's expansion as scikit-learn's binary SVC: support vectors
    grouped by class; its own sign is already the public one (+ for classes_[1])."""
    from sklearn.svm import SVC as SklearnSVC

    if len(model.classes_) > 2:
        # ONNX's SVMClassifier gives equal votes to the first class; these models break them by
        # the summed pair decisions (and 'ovr' ones do not vote at all)
        raise NotImplementedError(f"{type(model).__name__} with more than two classes has no exact ONNX form: the "
                                  "ONNX-ML SVMClassifier breaks equal votes another way; export a binary model or an SVC")
    cls = np.asarray(model._sv_class)
    order = np.argsort(cls, kind="stable")
    s = SklearnSVC()
    s.classes_ = np.asarray(model.classes_)
    s._probA = s._probB = np.empty(0)
    coef = np.asarray(model._dual_coef_, dtype=np.float64)[:, order]
    return _fitted_standin(s, model, _dense(model.support_vectors_)[order], coef, model._intercept_,
                           np.asarray(model.support_)[order], np.bincount(cls, minlength=2))


def _linear_standin(model):
    from sklearn.linear_model import SGDClassifier

    s = SGDClassifier(loss="hinge")
    s.classes_ = np.asarray(model.classes_)
    s.coef_ = _dense(model.coef_)
    s.intercept_ = np.atleast_1d(np.asarray(model.intercept_, dtype=np.float64))
    s.n_features_in_ = s.coef_.shape[1]
    return s


def _linear_svm_standin(model, estimator):
    """scikit-learn's LinearSVC or LinearSVR holding `model`'s weights (an intercept of 0.0,
    without fit_intercept, as an array: the converters read it as one)."""
    coef = np.asarray(model.coef_, dtype=np.float64)
    estimator.coef_ = coef
    estimator.intercept_ = np.broadcast_to(np.asarray(model.intercept_, dtype=np.float64),
                                           (len(np.atleast_2d(coef)),)).copy()
    estimator.n_features_in_ = coef.shape[-1]
    if hasattr(model, "classes_"):
        estimator.classes_ = np.asarray(model.classes_)
    return estimator


def standin(model):
    """The scikit-learn estimator with `model`'s fitted parameters that skl2onnx converts, or
    NotImplementedError for a model without an ONNX form."""
    from sklearn.svm import LinearSVC as SklearnLinearSVC
    from sklearn.svm import LinearSVR as SklearnLinearSVR

    from . import SVC, SVR, Huller, KernelPerceptron, LaSVM, LinearSGD, MarginPerceptron, OneClassSVM
    from .linear_svm import LinearSVC, LinearSVR

    check_is_fitted(model)
    if isinstance(model, OneClassSVM):
        return _one_class_standin(model)
    if isinstance(model, SVC):
        return _svc_standin(model)
    if isinstance(model, SVR):
        return _svr_standin(model)
    if isinstance(model, (LaSVM, Huller, KernelPerceptron)):
        if getattr(model, "_python_kernel", None) is not None:
            _builtin_kernel(model)  # raises with the kernel's name
        return _online_standin(model)
    if isinstance(model, (LinearSGD, MarginPerceptron)):
        return _linear_standin(model)
    if isinstance(model, LinearSVC):
        return _linear_svm_standin(model, SklearnLinearSVC())
    if isinstance(model, LinearSVR):
        return _linear_svm_standin(model, SklearnLinearSVR())
    raise NotImplementedError(f"{type(model).__name__} has no ONNX export (SVC, NuSVC, SVR, NuSVR, OneClassSVM, LaSVM, "
                              "Huller, KernelPerceptron, LinearSGD, MarginPerceptron, LinearSVC and LinearSVR have)")


def to_onnx(model, X, *, target_opset=None, options=None):
    """The fitted `model` as an ONNX model (``onnx.ModelProto``).

    Parameters
    ----------
    model : fitted estimator
        ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR``, ``OneClassSVM``,
        ``LaSVM``/``Huller``/``KernelPerceptron`` (binary or one-vs-one) with a built-in kernel,
        ``LinearSGD``, ``MarginPerceptron``, ``LinearSVC`` or ``LinearSVR``.
    X : array-like of shape (n_samples, n_features)
        A few rows of the input, which fix the graph's input type and width (float32 is the
        ONNX-ML SVM operators' type; other types are cast).
    target_opset : int or dict, optional
        Passed to skl2onnx.
    options : dict, optional
        Passed to skl2onnx (e.g. ``{"zipmap": False}`` for probabilities as one array).

    Returns
    -------
    onnx.ModelProto
        A graph with input ``X``. Its first output is the labels (regressors: the values;
        ``OneClassSVM``: +1/-1); a classifier's second is the probabilities, or the decision
        values when the model has no probabilities (``OneClassSVM``: `decision_function`). Their names depend on skl2onnx's converter (``label``/``probabilities``,
        or ``output_label``/``output_probability`` as a list of dicts unless
        ``options={"zipmap": False}``): read them by position, ``session.run(None, ...)``.

    Raises
    ------
    NotImplementedError
        For a model without an ONNX form (see the module's docstring).

    Examples
    --------
    >>> import numpy as np, largemargin as lm
    >>> from largemargin.onnx import to_onnx
    >>> X = np.array([[0.0, 0.0], [0.1, 0.3], [1.0, 1.0], [0.9, 1.2]])
    >>> clf = lm.SVC(C=10).fit(X, [0, 0, 1, 1])
    >>> onx = to_onnx(clf, X[:1].astype(np.float32))
    >>> import onnxruntime as rt
    >>> session = rt.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
    >>> session.run(None, {"X": X.astype(np.float32)})[0].tolist()
    [0, 0, 1, 1]
    """
    try:
        from skl2onnx import to_onnx as skl2onnx_to_onnx
    except ImportError as e:
        raise ImportError("largemargin.onnx needs skl2onnx: pip install skl2onnx onnxruntime") from e
    s = standin(model)
    X = np.asarray(_dense(X) if sp.issparse(X) else X)
    if X.dtype != np.float32:
        X = X.astype(np.float32)
    if X.ndim != 2 or X.shape[1] != s.n_features_in_:
        raise ValueError(f"X must have {s.n_features_in_} columns, as the model, got shape {X.shape}")
    kwargs = {} if target_opset is None else {"target_opset": target_opset}
    if options is not None:
        kwargs["options"] = {id(s): options}
    with warnings.catch_warnings():
        # skl2onnx reads the stand-in's probA_/probB_, which scikit-learn >= 1.9 deprecates
        warnings.filterwarnings("ignore", category=FutureWarning, message=".*prob[AB]_")
        return skl2onnx_to_onnx(s, X[:1], **kwargs)
