"""The kernel-SVM base: parameters, kernel resolution (built-in, composed or from a plugin), the
checks of the data, the native fit's results as scikit-learn's attributes, prediction; and the
helpers of the linear kernel's weights."""

import inspect
import numbers
import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import (
    _check_sample_weight,
    check_is_fitted,
    validate_data,
)

from .. import _native
from .._arrays import canonical_csr, is_sparse, scale_gamma, to_native, variance
from .._options import GAMMA_KERNELS, GAMMA_RULES
from .._validation import InstanceOf, Interval, Options, Registered
from ..exceptions import InvalidParameterError
from ..kernels import Kernel
from ..plugins import CheckedKernel, NativeKernel, TrainingKernel, get_registry
from ..plugins.python_kernels import blocks_of_rows
from .estimator import BaseEstimator


def _same_width(A, B):
    """A and B with as many columns as the wider of them, the added ones zero."""
    width = max(A.shape[1], B.shape[1])

    def widen(M):
        if M.shape[1] == width:
            return M
        if sp.issparse(M):
            M = sp.csr_matrix(M)
            return sp.csr_matrix((M.data, M.indices, M.indptr), shape=(M.shape[0], width))
        return np.hstack([M, np.zeros((M.shape[0], width - M.shape[1]), dtype=M.dtype)])

    return widen(A), widen(B)


def _linear_coef(self):
    """Weights of the linear kernel's primal, w = sum_i dual_coef_i x_i: (1, n_features) for
    two classes and regression, one row per class pair (scikit-learn's order) otherwise. Read-only
    (it is computed, so writing to it would change nothing); sparse after a fit on sparse data,
    as in scikit-learn."""
    w = _dense_linear_coef(self)
    if getattr(self, "_sparse", False):
        w = sp.csr_matrix(w)
        w.data.flags.writeable = False
    else:
        w.flags.writeable = False
    return w


def _dense_linear_coef(self):
    if self.kernel != "linear":
        raise AttributeError("coef_ is only available when using a linear kernel")
    check_is_fitted(self, "dual_coef_")
    sv = self.support_vectors_
    dual = self.dual_coef_
    n_support = getattr(self, "_n_support", None)
    if dual.shape[0] == 1 or n_support is None or len(n_support) <= 2 or self._task != "classification":
        w = dual @ sv
        return np.asarray(w.toarray() if hasattr(w, "toarray") else w, dtype=np.float64)
    starts = np.concatenate([[0], np.cumsum(n_support)])
    rows = []
    k = len(n_support)
    for a in range(k):
        for b in range(a + 1, k):
            ra, rb = slice(starts[a], starts[a + 1]), slice(starts[b], starts[b + 1])
            w = dual[b - 1, ra] @ sv[ra] + dual[a, rb] @ sv[rb]
            rows.append(np.asarray(w.toarray() if hasattr(w, "toarray") else w, dtype=np.float64).ravel())
    return np.vstack(rows)


# The box of C=inf: no variable reaches it in a problem the hard margin can solve, and C x a
# kernel row stays finite (the solver takes finite boxes only)
HARD_MARGIN_C = 1e250


class _BaseSVM(BaseEstimator):
    """What the kernel SVMs share: parameter checks, kernel resolution, the native call, prediction."""

    _task = None

    # What every kernel machine's parameters may be (those of them a class has: the others are
    # not looked at); subclasses add theirs with {**_BaseSVM._parameter_constraints, ...}
    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "kernel": [Registered("kernel"), InstanceOf(Kernel, "a largemargin.kernels.Kernel"), "callable"],
        "gamma": [Options(GAMMA_RULES), Interval(Real, 0, None, closed="neither")],
        "degree": [Interval(Integral, 0, None)],
        "coef0": [Interval(Real, None, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "cache_size": [Options(("auto",)), Interval(Real, 0, None, closed="neither")],
        "class_weight": ["dict", Options(("balanced",)), None],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs"],
    }

    def _solver_args(self):
        return dict(solver=self.solver, isda_bias=self.isda_bias, isda_k=float(self.isda_k),
                    over_relaxation=float(self.over_relaxation))

    def _check_relations(self):
        """The kernel resolved; gamma, degree and coef0 left at their defaults unless the kernel
        is a built-in one."""
        self._resolve_kernel()
        if self._native_kernel is None:
            # gamma, degree and coef0 parametrise the built-in kernels only: set for another kernel
            # they would be ignored in silence
            defaults = inspect.signature(type(self).__init__).parameters
            changed = [name for name in ("gamma", "degree", "coef0")
                       if name in defaults and getattr(self, name) != defaults[name].default]
            if changed:
                raise InvalidParameterError(
                    f"{', '.join(changed)} set for the kernel {self.kernel!r}, which does not use them: they belong "
                    "to the built-in kernels (a composed or plugin kernel carries its own parameters)"
                )

    def _resolve_kernel(self):
        """Three kinds of kernel: a built-in one (``"rbf"``), which the native engine computes; a
        composed one (``RBF(0.1) + Linear()``, or a name a plugin registered it under), computed
        natively too; and a Python callable ``k(A, B)`` (or a plugin's), called on blocks of rows.
        Names go through the plugin registry."""
        self._native_kernel = self._composed_kernel = self._python_kernel = None
        kernel = self.kernel
        if isinstance(kernel, str):
            kernel = get_registry().resolve("kernel", kernel)
        if isinstance(kernel, NativeKernel):
            self._native_kernel = kernel.name
        elif isinstance(kernel, Kernel):
            self._composed_kernel = kernel
        elif isinstance(kernel, CheckedKernel):
            self._python_kernel = kernel
        elif callable(kernel):
            self._python_kernel = CheckedKernel(getattr(kernel, "__name__", type(kernel).__name__), None, kernel)
        else:  # refused by the constraints first
            raise InvalidParameterError(f"kernel must be a name, a largemargin.kernels.Kernel or a callable, got {self.kernel!r}")

    def _validate_X(self, X, reset):
        if self._python_kernel is not None:
            return X
        return validate_data(
            self, X, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64, np.float32], order="C",
            accept_large_sparse=True, reset=reset,
        )

    def _resolve_gamma(self, X):
        if self.gamma == "scale":
            return scale_gamma(X.shape[1], variance(X))
        if self.gamma == "auto":
            return 1.0 / X.shape[1]
        return float(self.gamma)

    def _kernel_args(self, training_set=None):
        """The kernel as the native functions take it: a built-in's name, a composed kernel's
        terms, or (to fit with a Python kernel) the training set's `TrainingKernel`."""
        if self._composed_kernel is not None:
            kernel = self._composed_kernel.terms()
        elif self._python_kernel is not None:
            kernel = None if training_set is None else TrainingKernel(self._python_kernel, training_set)
        else:
            kernel = self._native_kernel
        gamma = self._gamma if self._gamma > 0 else 1.0
        return kernel, gamma, float(self.coef0), int(self.degree)

    # The LIBSVM formulations leave samples of negative weight out and take C=inf (the hard
    # margin), as scikit-learn's do; the others refuse both
    _libsvm_inputs = False

    def _prepare_fit(self, X, y, sample_weight, reset=True):
        """Checks parameters and data; `reset=False` (continued training) checks X against the
        fitted feature count without changing the fitted state."""
        self._validate_params()
        if self._python_kernel is not None:
            # A Python kernel sees the raw input, which the native solver knows only by index: it
            # is given an n x 0 placeholder and asks the kernel for rows.
            n = X.shape[0] if hasattr(X, "shape") else len(X)
            if y is not None and len(y := np.asarray(y)) != n:
                raise ValueError(f"X has {n} samples but y has {len(y)}")
            self._X_fit = X
            Xk = np.empty((n, 0))
            if reset and len(getattr(X, "shape", ())) == 2:
                self.n_features_in_ = X.shape[1]  # checked at prediction, before the kernel is called
        else:
            layout = dict(accept_sparse=["csr", "csc", "coo"], dtype=[np.float64, np.float32], order="C",
                          accept_large_sparse=True, reset=reset)
            if self._task == "novelty":  # no target
                X = validate_data(self, X, **layout)
            else:
                X, y = validate_data(self, X, y, y_numeric=self._task == "regression", **layout)
            if is_sparse(X):
                X = canonical_csr(X)
            Xk = X
        if self._native_kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"Precomputed matrix must be a square matrix. Input is a {X.shape[0]}x{X.shape[1]} matrix.")
        if Xk.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        masks = self._libsvm_inputs
        if masks and sample_weight is not None and not isinstance(sample_weight, numbers.Number):
            w = np.asarray(sample_weight, dtype=np.float64)
            if w.shape == (Xk.shape[0],) and np.all(w <= 0):  # (NaN and other shapes are refused below)
                raise ValueError("Invalid input - all samples have zero or negative weights.")
        sample_weight = _check_sample_weight(sample_weight, Xk, dtype=np.float64, ensure_non_negative=not masks)
        if masks:
            # as LIBSVM (and scikit-learn): a sample of weight <= 0 is left out of the problem
            sample_weight = np.maximum(sample_weight, 0.0)
        self._sparse = is_sparse(Xk) and self._python_kernel is None
        self._gamma = self._resolve_gamma(Xk) if self._native_kernel in GAMMA_KERNELS else 0.0
        self.shape_fit_ = Xk.shape
        return X, Xk, y, sample_weight

    def _finish_fit(self, fit, Xk, started):
        self.fit_time_ = time.perf_counter() - started
        for read_from_file in ("_libsvm_file_order", "_any_width", "_libsvm_zero_based", "_libsvm_prob_a"):
            self.__dict__.pop(read_from_file, None)  # set by load_libsvm_model; a fit replaces them
        self.support_ = fit["support"].astype(np.int32)
        self.n_kernel_evals_ = int(fit["kernel_evals"])
        self.objective_ = fit["objective"]
        self.n_iter_ = fit["n_iter"].astype(np.int32)
        self.fit_status_ = 0 if all(fit["converged"]) else 1
        if self.fit_status_:
            warnings.warn(
                f"Solver terminated early (max_iter={self.max_iter}).  Consider pre-processing your data "
                "with StandardScaler or MinMaxScaler.",
                ConvergenceWarning,
            )
        if self._python_kernel is not None:
            # Keep only the support vectors of the raw input, which the kernel is called on later.
            Xf = self._X_fit
            del self._X_fit
            self.support_vectors_ = Xf[self.support_] if hasattr(Xf, "shape") else [Xf[i] for i in self.support_]
        elif self._native_kernel == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = Xk[self.support_]
        self._intercept_ = fit["intercept"]
        self._dual_coef_ = fit["dual_coef"]
        if not (np.all(np.isfinite(self._dual_coef_)) and np.all(np.isfinite(self._intercept_))):
            raise ValueError("The dual coefficients or intercepts are not finite: the data may hold values too large "
                             "for the kernel; scale it (e.g. StandardScaler)")

    def _one_output_attributes(self):
        """scikit-learn's attributes of a fit with one output (a regression, a one-class SVM)."""
        self.n_iter_ = int(self.n_iter_[0])  # one problem: an int, as scikit-learn gives
        self._n_support = np.array([0, 0], dtype=np.int32)
        self.n_support_ = np.array([len(self.support_)], dtype=np.int32)
        self.intercept_ = self._intercept_
        self.dual_coef_ = self._public_coef(self._dual_coef_)

    def _n_support_groups(self):
        # one output: no groups (classifiers group their support vectors by class)
        return np.zeros(0, dtype=np.int64)

    def _native_decision(self, X):
        """Decision values with LIBSVM's sign convention, shape (m, outputs)."""
        check_is_fitted(self)
        kernel, gamma, coef0, degree = self._kernel_args()
        n_support = self._n_support_groups()
        coef = np.ascontiguousarray(self._dual_coef_, dtype=np.float64)
        intercept = np.ascontiguousarray(self._intercept_, dtype=np.float64)

        def decide(Xn, svn, cols, kernel):
            return _native.decision_function(
                Xn, sv=svn, sv_columns=cols, n_support=n_support, coef=coef, intercept=intercept, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, n_jobs=self.n_jobs,
            )

        if self._python_kernel is not None:
            width = getattr(self, "n_features_in_", None)
            if width is not None and len(getattr(X, "shape", ())) == 2 and X.shape[1] != width:
                raise ValueError(
                    f"X has {X.shape[1]} features, but {type(self).__name__} is expecting {width} features as input."
                )
            # The kernel's matrix against the support vectors (prepared once), a block of rows at a time.
            pk, sv = self._python_kernel, self.support_vectors_
            prepared = pk.prepare(sv)
            cols = np.arange(len(self.support_), dtype=np.int64)
            parts = [
                decide(K, K, cols, "precomputed")
                for K in (
                    np.ascontiguousarray(pk.block(block, sv, prepared), dtype=np.float64)
                    for _, block in blocks_of_rows(X)
                )
            ]
            return np.vstack(parts) if parts else np.empty((0, max(len(intercept), 1)))
        X = self._validate_X(X, reset=False)
        any_width = getattr(self, "_any_width", False)
        if self._native_kernel == "precomputed":
            if X.shape[1] != self.shape_fit_[0] and not (any_width and X.shape[1] >= self.shape_fit_[0]):
                raise ValueError(
                    f"X.shape[1] = {X.shape[1]} should be equal to {self.shape_fit_[0]}, the number of samples at training time"
                )
            Xn = to_native(X)
            return decide(Xn, Xn, self.support_.astype(np.int64), kernel)
        sv = self.support_vectors_
        if any_width and X.shape[1] != sv.shape[1]:
            # a model read from a LIBSVM file without its width: features are matched by index, a
            # feature missing on one side being zero there, as LIBSVM does
            X, sv = _same_width(X, sv)
        # Any layout and float type: the native engine adapts the query rows to the model's.
        cols = np.arange(sv.shape[0], dtype=np.int64)
        return decide(to_native(X), to_native(sv), cols, kernel)

    def _public_coef(self, coef):
        # As in scikit-learn, a model fitted on sparse data exposes sparse coefficients.
        return sp.csr_matrix(coef) if self._sparse else coef

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = isinstance(self.kernel, str) and self.kernel == "precomputed"
        return tags
