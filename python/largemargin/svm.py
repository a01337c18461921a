"""Kernel SVMs trained by the native SMO solver: `SVC` (C-SVC, one-vs-one) and `SVR`
(epsilon-SVR). Drop-in for scikit-learn's classes of the same names."""

import numbers
import time

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._arrays import to_native
from ._base import _BaseSVM, _linear_coef, _ovr_from_ovo, _same_width  # noqa: F401 - _ovr_from_ovo re-exported for pickles of old models
from ._base.kernel_svm import HARD_MARGIN_C
from ._checks import draw_seed
from ._guard import at_least_two, unchanged_on_failure
from ._ovo import pair_reorder


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
    _masks_nonpositive_weights = True  # as scikit-learn's: samples of weight <= 0 are left out

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
        sample_c = np.minimum(float(self.C) * self.class_weight_[y_idx] * sample_weight, HARD_MARGIN_C)
        present = np.unique(y_idx[sample_c > 0])
        if len(present) < 2:
            raise ValueError("Invalid input - all samples with positive weights belong to the same class")
        seed = draw_seed(self.random_state)
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_svc(
            to_native(Xk), y_idx.astype(np.int64), n_classes=len(self.classes_), sample_c=np.ascontiguousarray(sample_c),
            kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=float(self.tol), shrinking=bool(self.shrinking), cache_size=float(self.cache_size),
            max_iter=int(self.max_iter), probability=bool(self.probability), seed=int(seed), selection=self.selection, n_jobs=self.n_jobs, verbose=bool(self.verbose),
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
        n_support = np.asarray(self._n_support, dtype=np.int64)
        if n_support.sum() != len(self.support_) or np.any(n_support < 0):
            raise ValueError("The internal representation of SVC was altered: n_support does not add up to the "
                             "support vectors")
        return n_support

    def decision_function(self, X):
        """Signed distances: (n,) for two classes, (n, n_classes) for 'ovr', (n, pairs) for 'ovo'."""
        dec = self._native_decision(X)
        if len(self.classes_) == 2:
            return -dec.ravel()
        if self.decision_function_shape == "ovr":
            return _ovr_from_ovo(dec, len(self.classes_))
        return dec

    def predict(self, X):
        check_is_fitted(self)
        k = len(self.classes_)
        if self.break_ties and self.decision_function_shape == "ovo" and k > 2:
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        dec = self._native_decision(X)
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
            raise NotFittedError("predict_proba is not available when fitted with probability=False: fit again with "
                                 "probability=True")
        dec = self._native_decision(X)
        prob_a, prob_b = self.probA_, self.probB_
        file_order = getattr(self, "_libsvm_file_order", None)
        if file_order is not None:
            # Couple the pairs as LIBSVM does, over the classes in the file's order (the coupling
            # stops at a tolerance, so its result depends on the order slightly).
            perm, sign = pair_reorder(file_order)
            dec, prob_a, prob_b = dec[:, perm] * sign, prob_a[perm], prob_b[perm] * sign
        proba = _native.pairwise_probability(
            np.ascontiguousarray(dec), prob_a=np.ascontiguousarray(prob_a), prob_b=np.ascontiguousarray(prob_b), n_classes=len(self.classes_)
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
    _masks_nonpositive_weights = True  # as scikit-learn's: samples of weight <= 0 are left out

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
        sample_c = np.ascontiguousarray(np.minimum(float(self.C) * sample_weight, HARD_MARGIN_C))
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_svr(
            to_native(Xk), y, sample_c=sample_c, epsilon=float(self.epsilon), kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=float(self.tol),
            shrinking=bool(self.shrinking), cache_size=float(self.cache_size), max_iter=int(self.max_iter), selection=self.selection, n_jobs=self.n_jobs,
            verbose=bool(self.verbose), **self._solver_args(),
        )
        self._finish_fit(fit, Xk, started)
        self.n_iter_ = int(self.n_iter_[0])  # one problem: an int, as scikit-learn's SVR gives
        self._n_support = np.array([0, 0], dtype=np.int32)
        self.n_support_ = np.array([len(self.support_)], dtype=np.int32)
        self.intercept_ = self._intercept_
        self.dual_coef_ = self._public_coef(self._dual_coef_)
        return self

    def _n_support_groups(self):
        return np.zeros(0, dtype=np.int64)

    def predict(self, X):
        return self._native_decision(X).ravel()
