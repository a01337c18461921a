"""Kernel SVMs trained by the native SMO solver: `SVC` (C-SVC, one-vs-one) and `SVR`
(epsilon-SVR). Drop-in for scikit-learn's classes of the same names."""

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils import compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._arrays import native_cache_size, to_native
from ._base import _BaseSVM, _linear_coef
from ._base.kernel_svm import HARD_MARGIN_C
from ._checks import draw_seed
from ._guard import at_least_two, unchanged_on_failure
from ._multiclass import ovr_from_ovo, pair_reorder
from ._options import DECISION_SHAPES, ISDA_BIASES, SMO_SELECTIONS, SVM_SOLVERS
from ._validation import Interval, Options

# What SVC and SVR take beyond every kernel machine's parameters: C=inf (the hard margin), the
# solvers and their settings
_LIBSVM_CONSTRAINTS = {
    **_BaseSVM._parameter_constraints,
    "C": [Interval(Real, 0, None, closed="neither"), Options((np.inf,), Real)],
    "shrinking": ["boolean"],
    "max_iter": [Interval(Integral, 1, None), Options((-1,), Integral)],
    "selection": [Options(SMO_SELECTIONS)],
    "solver": [Options(SVM_SOLVERS)],
    "isda_bias": [Options(ISDA_BIASES)],
    "isda_k": [Interval(Real, 0, None, closed="neither")],
    "over_relaxation": [Interval(Real, 0, 2, closed="neither")],
}


class SVC(ClassifierMixin, _BaseSVM):
    """C-Support Vector Classification, solved by SMO in Rust.

    A drop-in for scikit-learn's ``SVC``: the same parameters, fitted attributes, warnings and
    LIBSVM's model (one binary problem per pair of classes, solved in parallel; predictions by
    votes). The dual is solved by SMO with LIBSVM's second-order working set, shrinking and one
    bounded kernel cache, or by ISDA (``solver="isda"``).

    Parameters
    ----------
    C : float, default=1.0
        The box constraint: the penalty of a margin violation. ``np.inf`` is the hard margin.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, callable or Kernel, default="rbf"
        A built-in kernel, a kernel composed from ``largemargin.kernels``, a registered plugin
        kernel's name, or a callable ``k(A, B) -> (len(A), len(B))`` array (called on row
        blocks, never on the whole n x n matrix).
    degree : int, default=3
        The polynomial kernel's degree.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly and sigmoid: ``"scale"`` is 1 / (n_features * X.var()),
        ``"auto"`` is 1 / n_features.
    coef0 : float, default=0.0
        The constant term of the poly and sigmoid kernels.
    shrinking : bool, default=True
        LIBSVM's shrinking heuristics.
    probability : bool, default=False
        Fit Platt's sigmoids on 5-fold cross-validated decision values, for `predict_proba`.
    tol : float, default=1e-3
        Stopping tolerance on the KKT conditions (the maximal violation).
    cache_size : float or "auto", default="auto"
        The kernel cache for the whole fit, in MB. ``"auto"`` sizes it from the data and the
        machine: the whole kernel matrix (float32) and the engine's copies of the data, within a
        quarter of the memory available when the fit starts, and never below 200 MB (scikit-learn's
        default) unless a quarter of the available memory is less. The model does not depend on it;
        the time does, on problems whose kernel matrix exceeds the budget.
    class_weight : dict or "balanced", default=None
        C of class i is ``class_weight[i] * C``.
    verbose : bool, default=False
        Report progress (see the ``largemargin`` logger; a bar when tqdm is installed).
    max_iter : int, default=-1
        At most this many solver iterations per binary problem; -1: no limit.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        The shape of `decision_function` for more than two classes.
    break_ties : bool, default=False
        With ``"ovr"`` and more than two classes, predict the argmax of `decision_function`
        instead of the vote (whose ties go to the first class).
    random_state : int, RandomState or None, default=None
        Seeds the folds of the probability estimates.
    selection : {"second_order", "first_order"}, default="second_order"
        SMO's working-set rule: LIBSVM's, or the maximal violating pair of the SMO papers and
        SVMTorch.
    solver : {"smo", "isda"}, default="smo"
        ISDA trains each problem one variable at a time (the worst KKT violator first; Kecman,
        Vogt and Huang), with the bias by ``isda_bias``. ``max_iter`` then counts its steps.
    isda_bias : {"secant", "penalty", "none"}, default="secant"
        ISDA's bias: a safeguarded secant step on sum_i alpha_i y_i between converged sweeps
        (the standard SVM), the kernel K + 1/``isda_k`` (b = sum_i alpha_i y_i / k), or none
        (for positive definite kernels).
    isda_k : float, default=1.0
        The ``"penalty"`` bias' k.
    over_relaxation : float in (0, 2), default=1.8
        Scales each ISDA step (1: Gauss-Seidel); 1.8 takes 3 to 6 times fewer steps on
        ill-conditioned kernels.
    n_jobs : int or None, default=None
        Threads for kernel rows, class pairs and prediction. None: every core, unless joblib,
        OMP_NUM_THREADS or threadpoolctl say fewer. The model does not depend on it.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set, grouped by class.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (sparse after a fit on sparse data).
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    dual_coef_ : ndarray or sparse matrix of shape (n_classes - 1, n_SV)
        The support vectors' coefficients y_i alpha_i, laid out as LIBSVM's one-vs-one model.
    coef_ : ndarray or sparse matrix of shape (n_classes * (n_classes - 1) / 2, n_features)
        The primal weights (linear kernel only), read-only.
    intercept_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The constants of the pair decision functions.
    probA_, probB_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Platt's sigmoid per pair (empty without ``probability``).
    fit_status_ : int
        0 if every problem converged, 1 if ``max_iter`` stopped one (with a ConvergenceWarning).
    n_iter_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        Iterations per binary problem.
    shape_fit_ : tuple
        The training data's shape.
    n_features_in_ : int
        Features seen in `fit`.
    n_kernel_evals_ : int
        Kernel values computed by the fit.
    fit_time_ : float
        Seconds the fit took.
    objective_ : ndarray of shape (n_classes * (n_classes - 1) / 2,)
        The dual objective of each binary problem, maximised.

    See Also
    --------
    SVR : epsilon-support vector regression.
    SVCSearchCV : cross-validated search of C and gamma that shares kernel rows between fits.
    LaSVM : an online SVM of about the same accuracy in one pass.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> y = np.array([1, 1, 2, 2])
    >>> clf = lm.SVC(C=10).fit(X, y)
    >>> clf.predict([[-0.8, -1.0]])
    array([1])
    >>> clf.n_support_
    array([2, 2], dtype=int32)
    """

    _task = "classification"
    coef_ = property(_linear_coef)
    _libsvm_inputs = True  # samples of weight <= 0 left out, C=inf taken: as scikit-learn's SVC/SVR
    _parameter_constraints = {
        **_LIBSVM_CONSTRAINTS,
        "probability": ["boolean"],
        "decision_function_shape": [Options(DECISION_SHAPES)],
        "break_ties": ["boolean"],
    }

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, shrinking=True,
                 probability=False, tol=1e-3, cache_size="auto", class_weight=None, verbose=False,
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
        """Fit the SVM.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (float32 or float64, dense or CSR/CSC/COO: not copied when
            already C-ordered or CSR); with ``kernel="precomputed"``, the (n_samples, n_samples)
            kernel matrix.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample C multipliers; samples of weight <= 0 are left out.

        Returns
        -------
        self : SVC
            The fitted estimator.
        """
        started = time.perf_counter()
        X, Xk, y, sample_weight = self._prepare_fit(X, y, sample_weight)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        at_least_two(self.classes_)
        self.class_weight_ = compute_class_weight(self.class_weight, classes=self.classes_, y=y)
        bounds = self._example_bounds(y_idx, sample_weight)
        present = np.unique(y_idx[bounds > 0])
        if len(present) < 2:
            raise ValueError("Invalid input - all samples with positive weights belong to the same class")
        seed = draw_seed(self.random_state)
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_svc(
            to_native(Xk), y_idx.astype(np.int64), n_classes=len(self.classes_), sample_c=np.ascontiguousarray(bounds),
            kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=float(self.tol), shrinking=bool(self.shrinking), cache_size=native_cache_size(self.cache_size, Xk),
            max_iter=int(self.max_iter), probability=bool(self.probability), seed=int(seed), selection=self.selection, n_jobs=self.n_jobs, verbose=bool(self.verbose),
            **self._formulation_args(),
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

    def _example_bounds(self, y_idx, sample_weight):
        """Each example's box: C times its class's and its own weight."""
        return np.minimum(float(self.C) * self.class_weight_[y_idx] * sample_weight, HARD_MARGIN_C)

    def _formulation_args(self):
        return self._solver_args()

    def _n_support_groups(self):
        n_support = np.asarray(self._n_support, dtype=np.int64)
        if n_support.sum() != len(self.support_) or np.any(n_support < 0):
            raise ValueError("The internal representation of SVC was altered: n_support does not add up to the "
                             "support vectors")
        return n_support

    def decision_function(self, X):
        """Signed distances to the decision boundaries.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (any width for a model read from a LIBSVM file: features matched by index).

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or (n_samples, n_pairs)
            For two classes, positive means ``classes_[1]``; for more, the one-vs-rest scores
            (votes plus a confidence below one vote) with ``"ovr"``, the pair decisions with ``"ovo"``.
        """
        dec = self._native_decision(X)
        if len(self.classes_) == 2:
            return -dec.ravel()
        if self.decision_function_shape == "ovr":
            return ovr_from_ovo(dec, len(self.classes_))
        return dec

    def predict(self, X):
        """Predicted class labels, by LIBSVM's one-vs-one votes (or the argmax of the 'ovr'
        scores with ``break_ties``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            A label of ``classes_`` per sample.
        """
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
            return self.classes_[np.argmax(ovr_from_ovo(dec, k), axis=1)]
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
        """Class probabilities by Platt scaling and pairwise coupling (needs ``probability=True``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
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
        """The log of `predict_proba`.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Log-probabilities in the order of ``classes_``.
        """
        return np.log(self.predict_proba(X))


class SVR(RegressorMixin, _BaseSVM):
    """epsilon-Support Vector Regression, solved by SMO in Rust.

    A drop-in for scikit-learn's ``SVR``. alpha+ and alpha- are independent variables of one
    dual, as in SVMTorch; ISDA (``solver="isda"``) moves them as two coordinates.

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol, shrinking, cache_size, verbose, max_iter, selection, solver, isda_bias, isda_k, over_relaxation, n_jobs
        As in `SVC`.
    C : float, default=1.0
        The penalty of an error outside the tube; ``np.inf`` allowed.
    epsilon : float, default=0.1
        The half-width of the tube within which errors cost nothing.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors (sparse after a fit on sparse data).
    n_support_ : ndarray of shape (1,)
        The number of support vectors.
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        alpha+ - alpha- of each support vector.
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        The primal weights (linear kernel only), read-only.
    intercept_ : ndarray of shape (1,)
        The constant of the regression function.
    fit_status_ : int
        0 if the problem converged, 1 if ``max_iter`` stopped it.
    n_iter_ : int
        Solver iterations.
    shape_fit_, n_features_in_, n_kernel_evals_, fit_time_, objective_
        As in `SVC`.

    See Also
    --------
    SVC : classification.
    SVRSearchCV : cross-validated search of C, gamma and epsilon.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.linspace(0, 1, 20).reshape(-1, 1)
    >>> reg = lm.SVR(kernel="linear", C=100, epsilon=0.01).fit(X, 3 * X.ravel() + 1)
    >>> round(float(reg.predict([[0.5]])[0]), 1)
    2.5
    """
    _task = "regression"
    coef_ = property(_linear_coef)
    _libsvm_inputs = True  # samples of weight <= 0 left out, C=inf taken: as scikit-learn's SVC/SVR
    _parameter_constraints = {**_LIBSVM_CONSTRAINTS, "epsilon": [Interval(Real, 0, None)]}

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, C=1.0,
                 epsilon=0.1, shrinking=True, cache_size="auto", verbose=False, max_iter=-1,
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
        """Fit the regression SVM.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (or the kernel matrix with ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Real targets.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample C multipliers; samples of weight <= 0 are left out.

        Returns
        -------
        self : SVR
            The fitted estimator.
        """
        started = time.perf_counter()
        X, Xk, y, sample_weight = self._prepare_fit(X, y, sample_weight)
        y = np.ascontiguousarray(y, dtype=np.float64)
        sample_c = np.ascontiguousarray(np.minimum(float(self.C) * sample_weight, HARD_MARGIN_C))
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_svr(
            to_native(Xk), y, sample_c=sample_c, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=float(self.tol),
            shrinking=bool(self.shrinking), cache_size=native_cache_size(self.cache_size, Xk), max_iter=int(self.max_iter), selection=self.selection, n_jobs=self.n_jobs,
            verbose=bool(self.verbose), **self._formulation_args(),
        )
        self._finish_fit(fit, Xk, started)
        self._one_output_attributes()
        return self

    def _formulation_args(self):
        return dict(epsilon=float(self.epsilon), **self._solver_args())

    def predict(self, X):
        """Predicted values.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The regression function at each sample.
        """
        return self._native_decision(X).ravel()
