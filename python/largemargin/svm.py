"""Kernel SVMs trained by the native SMO solver: `SVC` (C-SVC, one-vs-one) and `SVR`
(epsilon-SVR). Drop-in for scikit-learn's classes of the same names."""

import inspect
import numbers
import time
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _native
from ._ovo import pair_reorder
from ._arrays import canonical_csr, is_sparse, scale_gamma, to_native, variance
from ._checks import check_n_jobs, draw_seed
from ._guard import at_least_two, unchanged_on_failure
from .kernels import Kernel
from .plugins import CheckedKernel, NativeKernel, TrainingKernel, get_registry
from .plugins.python_kernels import blocks_of_rows


def _ovr_from_ovo(dec, n_classes):
    """One-vs-rest scores from one-vs-one decision values (LIBSVM sign): votes plus a bounded
    confidence term that only breaks ties between equal vote counts."""
    m = dec.shape[0]
    votes = np.zeros((m, n_classes))
    conf = np.zeros((m, n_classes))
    p = 0
    for a in range(n_classes):
        for b in range(a + 1, n_classes):
            d = dec[:, p]
            votes[:, a] += d > 0
            votes[:, b] += d <= 0
            conf[:, a] += d
            conf[:, b] -= d
            p += 1
    return votes + conf / (3 * (np.abs(conf) + 1))


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
    two classes and regression, one row per class pair (scikit-learn's order) otherwise."""
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


class _BaseSVM(BaseEstimator):
    """What SVC and SVR share: parameter checks, kernel resolution, the native call, prediction."""

    _task = None

    def _check_params(self):
        self._check_common_params()
        if not isinstance(self.max_iter, numbers.Integral) or (self.max_iter < 1 and self.max_iter != -1):
            raise ValueError(f"max_iter must be a positive integer or -1, got {self.max_iter!r}")
        if self.selection not in ("second_order", "first_order"):
            raise ValueError(f"selection must be 'second_order' or 'first_order', got {self.selection!r}")
        if self.solver not in ("smo", "isda"):
            raise ValueError(f"solver must be 'smo' or 'isda', got {self.solver!r}")
        if self.isda_bias not in ("secant", "penalty", "none"):
            raise ValueError(f"isda_bias must be 'secant', 'penalty' or 'none', got {self.isda_bias!r}")
        if not (isinstance(self.isda_k, numbers.Real) and np.isfinite(self.isda_k) and self.isda_k > 0):
            raise ValueError(f"isda_k must be a positive number, got {self.isda_k!r}")
        r = self.over_relaxation
        if not (isinstance(r, numbers.Real) and 0 < r < 2):
            raise ValueError(f"over_relaxation must be in (0, 2), got {r!r}")

    def _solver_args(self):
        return dict(solver=self.solver, isda_bias=self.isda_bias, isda_k=float(self.isda_k),
                    over_relaxation=float(self.over_relaxation))

    def _check_common_params(self):
        """What every kernel machine checks: C, tol and cache_size where it has them, the kernel and
        its parameters, n_jobs."""

        def positive(name, value, allow_zero=False):
            ok = isinstance(value, numbers.Real) and np.isfinite(value) and (value > 0 or (allow_zero and value == 0))
            if not ok:
                raise ValueError(f"{name} must be a positive number, got {value!r}")

        params = self.get_params(deep=False)
        for name in ("C", "tol", "cache_size"):  # those of them this estimator has
            if name in params:
                positive(name, params[name])
        self._resolve_kernel()
        if isinstance(self.gamma, str):
            if self.gamma not in ("scale", "auto"):
                raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {self.gamma!r}")
        else:
            positive("gamma", self.gamma)
        if not isinstance(self.degree, numbers.Integral) or self.degree < 0:
            raise ValueError(f"degree must be a non-negative integer, got {self.degree!r}")
        if not isinstance(self.coef0, numbers.Real) or not np.isfinite(self.coef0):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}")
        if self._native_kernel is None:
            # gamma, degree and coef0 parametrise the built-in kernels only: set for another kernel
            # they would be ignored in silence
            defaults = inspect.signature(type(self).__init__).parameters
            changed = [name for name in ("gamma", "degree", "coef0")
                       if name in defaults and getattr(self, name) != defaults[name].default]
            if changed:
                raise ValueError(
                    f"{', '.join(changed)} set for the kernel {self.kernel!r}, which does not use them: they belong "
                    "to the built-in kernels (a composed or plugin kernel carries its own parameters)"
                )
        check_n_jobs(self.n_jobs)

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
        else:
            raise ValueError(f"kernel must be a name, a largemargin.kernels.Kernel or a callable, got {self.kernel!r}")

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

    def _prepare_fit(self, X, y, sample_weight, reset=True):
        """Checks parameters and data; `reset=False` (continued training) checks X against the
        fitted feature count without changing the fitted state."""
        self._check_params()
        if self._python_kernel is not None:
            # A Python kernel sees the raw input, which the native solver knows only by index: it
            # is given an n x 0 placeholder and asks the kernel for rows.
            y = np.asarray(y)
            n = X.shape[0] if hasattr(X, "shape") else len(X)
            if len(y) != n:
                raise ValueError(f"X has {n} samples but y has {len(y)}")
            self._X_fit = X
            Xk = np.empty((n, 0))
            if reset and len(getattr(X, "shape", ())) == 2:
                self.n_features_in_ = X.shape[1]  # checked at prediction, before the kernel is called
        else:
            X, y = validate_data(
                self, X, y, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64, np.float32], order="C",
                accept_large_sparse=True, y_numeric=self._task == "regression", reset=reset,
            )
            if is_sparse(X):
                X = canonical_csr(X)
            Xk = X
        if self._native_kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(f"Precomputed matrix must be a square matrix. Input is a {X.shape[0]}x{X.shape[1]} matrix.")
        if X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        sample_weight = _check_sample_weight(sample_weight, Xk, dtype=np.float64, ensure_non_negative=True)
        self._sparse = is_sparse(Xk) and self._python_kernel is None
        self._gamma = self._resolve_gamma(Xk) if self._native_kernel in ("rbf", "poly", "sigmoid") else 0.0
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
                f"Solver terminated early (max_iter={self.max_iter}). Consider pre-processing your data "
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

    def _native_decision(self, X):
        """Decision values with LIBSVM's sign convention, shape (m, outputs)."""
        check_is_fitted(self)
        kernel, gamma, coef0, degree = self._kernel_args()
        n_support = self._n_support_groups()
        coef = np.ascontiguousarray(self._dual_coef_, dtype=np.float64)
        intercept = np.ascontiguousarray(self._intercept_, dtype=np.float64)

        def decide(Xn, svn, cols, kernel):
            return _native.decision_function(
                Xn, svn, cols, n_support, coef, intercept, kernel, gamma, coef0, degree, self.n_jobs,
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


class SVC(ClassifierMixin, _BaseSVM):
    """C-Support Vector Classification solved by SMO in Rust.

    Parameters mean what they mean in scikit-learn's ``SVC``. Two more: ``n_jobs`` sets the threads
    used for kernel rows, class pairs and prediction (None: all cores; results do not depend on it);
    ``selection`` is the working-set rule, ``"second_order"`` (LIBSVM's) or ``"first_order"`` (the
    maximal violating pair of the SMO papers and SVMTorch).

    ``solver="isda"`` trains each binary problem by ISDA instead (one variable at a time, the
    worst KKT violator first; Kecman, Vogt and Huang) with the bias by ``isda_bias``: ``"secant"``
    (b held fixed while the steps converge, then moved by a safeguarded secant step on
    sum_i alpha_i y_i: the standard SVM), ``"penalty"`` (1/2 k b^2 in the primal, i.e. the kernel
    K + 1/``isda_k``, b = sum_i alpha_i y_i / k afterwards) or ``"none"`` (no bias: f(x) =
    sum_i alpha_i y_i K(x_i, x), for positive definite kernels). ``over_relaxation`` in (0, 2)
    scales each step (1: Gauss-Seidel, i.e. the Kernel AdaTron with rate 1/K_ii; the default 1.8
    takes 3 to 6 times fewer steps than 1 on the ill-conditioned kernels of adult and ijcnn1 and
    about as many on mnist). ``shrinking``
    applies to both solvers, ``selection`` to SMO only; ``max_iter`` counts ISDA's single-variable
    steps.

    Extra fitted attributes: ``n_kernel_evals_`` (kernel values computed), ``fit_time_`` (seconds),
    ``objective_`` (dual objective of each binary problem, maximised).
    """

    _task = "classification"
    coef_ = property(_linear_coef)

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, shrinking=True,
                 probability=False, tol=1e-3, cache_size=200, class_weight=None, verbose=False,
                 max_iter=-1, decision_function_shape="ovr", break_ties=False, random_state=None,
                 selection="second_order", solver="smo", isda_bias="secant", isda_k=1.0, over_relaxation=1.8,
                 n_jobs=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.selection = selection
        self.solver = solver
        self.isda_bias = isda_bias
        self.isda_k = isda_k
        self.over_relaxation = over_relaxation
        self.n_jobs = n_jobs

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None):
        """Fit the SVM on X (n_samples, n_features; sparse allowed) and labels y."""
        started = time.perf_counter()
        if self.decision_function_shape not in ("ovr", "ovo"):
            raise ValueError(f"decision_function_shape must be 'ovr' or 'ovo', got {self.decision_function_shape!r}")
        X, Xk, y, sample_weight = self._prepare_fit(X, y, sample_weight)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        at_least_two(self.classes_)
        self.class_weight_ = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        sample_c = float(self.C) * self.class_weight_[y_idx] * sample_weight
        present = np.unique(y_idx[sample_c > 0])
        if len(present) < 2:
            raise ValueError("Invalid input - all samples with positive weights belong to the same class")
        seed = draw_seed(self.random_state)
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_svc(
            to_native(Xk), y_idx.astype(np.int64), len(self.classes_), np.ascontiguousarray(sample_c),
            kernel, gamma, coef0, degree, float(self.tol), bool(self.shrinking), float(self.cache_size),
            int(self.max_iter), bool(self.probability), int(seed), self.selection, self.n_jobs, bool(self.verbose),
            **self._solver_args(),
        )
        self._finish_fit(fit, Xk, started)
        self._n_support = fit["n_support"].astype(np.int32)
        self.n_support_ = self._n_support
        self.probA_ = fit["prob_a"]
        self.probB_ = fit["prob_b"]
        binary = len(self.classes_) == 2
        # Public sign convention for two classes: a positive decision means classes_[1].
        self.intercept_ = -self._intercept_ if binary else self._intercept_.copy()
        self.dual_coef_ = self._public_coef(-self._dual_coef_ if binary else self._dual_coef_)
        return self

    def _n_support_groups(self):
        return np.asarray(self._n_support, dtype=np.int64)

    def decision_function(self, X):
        """Signed distances: (n,) for two classes, (n, n_classes) for 'ovr', (n, pairs) for 'ovo'."""
        dec = self._native_decision(X)
        if len(self.classes_) == 2:
            return -dec.ravel()
        if self.decision_function_shape == "ovr":
            return _ovr_from_ovo(dec, len(self.classes_))
        return dec

    def predict(self, X):
        dec = self._native_decision(X)
        k = len(self.classes_)
        # A model read from a LIBSVM file votes as LIBSVM does with the file's class order: a
        # pair whose classes the file lists the other way round gives a zero decision to the
        # class this model lists first, and equal votes go to the class the file lists first.
        file_order = getattr(self, "_libsvm_file_order", None)
        if file_order is None:
            file_order = np.arange(k)
        if k == 2:
            lose_at_zero = file_order[0] < file_order[1]
            second = dec.ravel() <= 0 if lose_at_zero else dec.ravel() < 0
            return self.classes_[second.astype(int)]
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if self.break_ties:
            return self.classes_[np.argmax(_ovr_from_ovo(dec, k), axis=1)]
        votes = np.zeros((dec.shape[0], k), dtype=np.int64)
        p = 0
        for a in range(k):
            for b in range(a + 1, k):
                win_a = dec[:, p] > 0 if file_order[a] < file_order[b] else dec[:, p] >= 0
                votes[:, a] += win_a
                votes[:, b] += ~win_a
                p += 1
        return self.classes_[np.argmax(votes * k + (k - 1 - file_order), axis=1)]

    def _check_proba(self):
        if not self.probability:
            raise AttributeError("predict_proba is not available when probability=False")
        return True

    @available_if(_check_proba)
    def predict_proba(self, X):
        """Class probabilities by Platt scaling and pairwise coupling (needs probability=True)."""
        check_is_fitted(self)
        if len(self.probA_) == 0:
            raise AttributeError("this model was fitted with probability=False")
        dec = self._native_decision(X)
        prob_a, prob_b = self.probA_, self.probB_
        file_order = getattr(self, "_libsvm_file_order", None)
        if file_order is not None:
            # Couple the pairs as LIBSVM does, over the classes in the file's order (the coupling
            # stops at a tolerance, so its result depends on the order slightly).
            perm, sign = pair_reorder(file_order)
            dec, prob_a, prob_b = dec[:, perm] * sign, prob_a[perm], prob_b[perm] * sign
        proba = _native.pairwise_probability(
            np.ascontiguousarray(dec), np.ascontiguousarray(prob_a), np.ascontiguousarray(prob_b), len(self.classes_)
        )
        return proba if file_order is None else proba[:, file_order]

    @available_if(_check_proba)
    def predict_log_proba(self, X):
        return np.log(self.predict_proba(X))


class SVR(RegressorMixin, _BaseSVM):
    """epsilon-Support Vector Regression solved by SMO in Rust (alpha+ and alpha- as independent
    variables, as in SVMTorch). Parameters as in scikit-learn's ``SVR``, plus ``n_jobs`` and
    ``selection``, ``solver``, ``isda_bias``, ``isda_k`` and ``over_relaxation`` as in ``SVC``
    (ISDA for regression moves alpha+ and alpha- of an example as two coordinates)."""

    _task = "regression"
    coef_ = property(_linear_coef)

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0,
                 epsilon=0.1, shrinking=True, cache_size=200, verbose=False, max_iter=-1,
                 selection="second_order", solver="smo", isda_bias="secant", isda_k=1.0, over_relaxation=1.8,
                 n_jobs=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.selection = selection
        self.solver = solver
        self.isda_bias = isda_bias
        self.isda_k = isda_k
        self.over_relaxation = over_relaxation
        self.n_jobs = n_jobs

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None):
        """Fit the regression SVM on X and real targets y."""
        started = time.perf_counter()
        if not (isinstance(self.epsilon, numbers.Real) and np.isfinite(self.epsilon) and self.epsilon >= 0):
            raise ValueError(f"epsilon must be a non-negative number, got {self.epsilon!r}")
        X, Xk, y, sample_weight = self._prepare_fit(X, y, sample_weight)
        y = np.ascontiguousarray(y, dtype=np.float64)
        sample_c = np.ascontiguousarray(float(self.C) * sample_weight)
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_svr(
            to_native(Xk), y, sample_c, float(self.epsilon), kernel, gamma, coef0, degree, float(self.tol),
            bool(self.shrinking), float(self.cache_size), int(self.max_iter), self.selection, self.n_jobs,
            bool(self.verbose), **self._solver_args(),
        )
        self._finish_fit(fit, Xk, started)
        self._n_support = np.array([0, 0], dtype=np.int32)
        self.n_support_ = np.array([len(self.support_)], dtype=np.int32)
        self.intercept_ = self._intercept_
        self.dual_coef_ = self._public_coef(self._dual_coef_)
        return self

    def _n_support_groups(self):
        return np.zeros(0, dtype=np.int64)

    def predict(self, X):
        return self._native_decision(X).ravel()
