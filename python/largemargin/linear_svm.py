"""Exact linear SVMs by dual coordinate descent in Rust (Hsieh et al. 2008; Ho and Lin 2012 for
regression; Keerthi et al. 2008 for Crammer and Singer's multiclass SVM): `LinearSVC` and
`LinearSVR`, with scikit-learn's parameters, attributes and models (the method of LIBLINEAR,
which scikit-learn's classes of the same names run). Data is read in place, dense or CSR (dense
rows under half nonzero from a smaller copy of their nonzeros); the one-vs-rest binary problems
run in parallel."""

import inspect
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.linear_model._base import LinearClassifierMixin, SparseCoefMixin
from sklearn.utils import compute_class_weight
from sklearn.utils.extmath import safe_sparse_dot
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _native
from ._arrays import NOT_CANONICAL, canonical_csr, to_native
from ._base.estimator import BaseEstimator
from ._checks import draw_seed, warn_not_converged
from ._guard import unchanged_on_failure
from ._options import LINEAR_SVC_LOSSES, LINEAR_SVC_PENALTIES, LINEAR_SVR_LOSSES, MULTI_CLASS_LINEAR
from ._validation import Interval, Options
from .exceptions import InvalidParameterError

__all__ = ["LinearSVC", "LinearSVR"]

# LIBLINEAR's Crammer-Singer solver stops at this many iterations, whatever max_iter is
CRAMMER_SINGER_MAX_ITER = 100_000
# whether this scikit-learn counts each class by its examples' sample weights for "balanced"
# (its LinearSVC does where compute_class_weight takes them)
_BALANCED_BY_WEIGHT = "sample_weight" in inspect.signature(compute_class_weight).parameters


def _class_weight(class_weight, classes, y, sample_weight):
    """Each class's weight as the installed scikit-learn's LinearSVC computes it: "balanced"
    counts a class by its examples' sample weights where that version does, by its examples
    before."""
    if _BALANCED_BY_WEIGHT:
        return compute_class_weight(class_weight, classes=classes, y=y, sample_weight=sample_weight)
    return compute_class_weight(class_weight, classes=classes, y=y)


def _native_fit(fit, X):
    """`fit` on X's native view; CSR with unsorted or repeated indices goes again in canonical
    form (only then is it copied)."""
    try:
        return fit(to_native(X, canonical=False))
    except ValueError as e:
        if not (sp.issparse(X) and NOT_CANONICAL in str(e)):
            raise
        return fit(to_native(canonical_csr(X)))


def _unsupported(penalty, loss, dual):
    """scikit-learn's refusal of a combination LIBLINEAR has no solver for, in its words; None
    when it has one (penalty='l2' with either loss in the dual, squared losses in the primal, and
    penalty='l1' with the squared hinge in the primal)."""
    supported = {("l2", "squared_hinge"): (True, False), ("l2", "hinge"): (True,), ("l1", "squared_hinge"): (False,),
                 ("l2", "epsilon_insensitive"): (True,), ("l2", "squared_epsilon_insensitive"): (True, False)}
    duals = supported.get((penalty, loss), ())
    if dual == "auto" and duals or dual in duals:
        return None
    where = "" if not duals else f" when dual={dual}"
    return (f"Unsupported set of arguments: The combination of penalty={penalty!r} and loss={loss!r} are not "
            f"supported{where}, Parameters: penalty={penalty!r}, loss={loss!r}, dual={dual!r}")


class _LinearSVMBase(BaseEstimator):
    """What the two estimators share: their common parameters, the data checks, the native
    fit's common arguments and the convergence warning."""

    _parameter_constraints = {
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "C": [Interval(Real, 0.0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "intercept_scaling": [Interval(Real, 0, None, closed="neither")],
        "dual": ["boolean", Options(("auto",))],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "max_iter": [Interval(Integral, 1, None)],
        "n_jobs": ["n_jobs"],
    }

    def _validate(self, X, y, sample_weight, **y_checks):
        # (NaN and infinity are refused by the native fit, naming the row: checking here too would
        # be one more pass over the data)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], order="C",
                             ensure_all_finite=False, **y_checks)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        return X, y, np.ascontiguousarray(sample_weight)

    def _solver(self, X, squared_loss):
        """"dual" or "primal", as scikit-learn chooses between LIBLINEAR's solvers: dual="auto"
        solves the primal when there are at least as many samples as features and the loss is
        squared (its only primal form), the dual otherwise."""
        dual = self.dual
        if dual == "auto":
            dual = X.shape[0] < X.shape[1] or not squared_loss
        return "dual" if dual else "primal"

    def _common_args(self, max_iter=None):
        max_iter = self.max_iter if max_iter is None else max_iter
        return dict(c=float(self.C), tol=float(self.tol), max_iter=int(max_iter),
                    intercept_scaling=float(self.intercept_scaling) if self.fit_intercept else None,
                    seed=draw_seed(self.random_state), n_jobs=self.n_jobs, verbose=bool(self.verbose))

    def _store(self, fit):
        """n_iter_ (the most of any problem's passes, as scikit-learn) and scikit-learn's
        warning when a problem met max_iter before the tolerance (or, as scikit-learn judges it,
        used all max_iter iterations)."""
        self.n_iter_ = int(np.max(fit["n_iter"]))
        if not all(fit["converged"]) or self.n_iter_ >= self.max_iter:
            warn_not_converged("Liblinear failed to converge, increase the number of iterations.")

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVC(LinearClassifierMixin, SparseCoefMixin, ClassifierMixin, _LinearSVMBase):
    """Linear support vector classification, solved exactly in the dual by coordinate descent.

    Minimises ``1/2 |w|^2 + C sum_i s_i c_{y_i} loss(y_i (<w, x_i> + b))`` (``s_i`` the sample
    weight, ``c_y`` the class weight) by dual coordinate descent (Hsieh, Chang, Lin, Keerthi and
    Sundararajan 2008) or, for the squared hinge, by trust-region Newton on the primal (Lin, Weng
    and Keerthi 2008): LIBLINEAR's methods, and so scikit-learn's ``LinearSVC``'s, whose
    parameters, defaults, attributes and models this class shares. Each outer pass of the dual
    visits its variables in a new random order, shrinks those stuck at a bound, and stops when
    the projected gradient's spread is below ``tol`` on every variable. The intercept is the weight
    of a constant feature ``intercept_scaling`` (so it is regularised, as in LIBLINEAR).
    Multiclass problems are one-vs-rest, the binary problems solved in parallel (``n_jobs``), or
    Crammer and Singer's joint formulation (Keerthi et al. 2008's sequential dual method). Dense
    and CSR data (float32 or float64) is read in place, except dense rows under half nonzero:
    those are read from a copy of their nonzeros, made once per fit and smaller than the input.

    Parameters
    ----------
    penalty : {"l2", "l1"}, default="l2"
        The regularisation. Only ``"l2"`` is solved here; ``"l1"`` (scikit-learn's primal L1 solver)
        raises ``InvalidParameterError``.
    loss : {"squared_hinge", "hinge"}, default="squared_hinge"
        ``"squared_hinge"``: the L2-loss SVM; ``"hinge"``: the L1-loss SVM.
    dual : "auto" or bool, default="auto"
        Solve the dual (by coordinate descent) or the primal (by trust-region Newton, the squared
        hinge only), as scikit-learn chooses between LIBLINEAR's solvers: ``"auto"`` solves the
        primal when n_samples >= n_features and the loss is squared, the dual otherwise. Both
        have the same optimum. The primal's passes over the data run on every core (``n_jobs``),
        so one binary problem uses them all. ``dual=False`` with ``loss="hinge"`` is refused
        (it has no primal form), as in scikit-learn.
    tol : float, default=1e-4
        The stopping tolerance (LIBLINEAR's eps): in the dual, on the projected gradient's spread;
        in the primal, on the gradient's norm relative to its norm at zero, times the smaller
        class's share of the examples.
    C : float, default=1.0
        The regularisation trade-off, positive.
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        ``"ovr"``: one binary problem per class against the rest (a single one for two classes);
        ``"crammer_singer"``: the joint multiclass SVM (``loss``, ``penalty`` and ``dual`` are then
        ignored, as in scikit-learn).
    fit_intercept : bool, default=True
        Fit an intercept, as the weight of a constant feature ``intercept_scaling``.
    intercept_scaling : float, default=1
        The constant feature's value: a larger value regularises the intercept less.
    class_weight : dict or "balanced", default=None
        Multiplies C per class. One-vs-rest above two classes, a class's weight applies to its own
        examples in its own problem (as LIBLINEAR does). ``"balanced"`` counts each class by its
        examples' sample weights where the installed scikit-learn's ``LinearSVC`` does (1.9 does;
        1.6 counts examples), so that both fit the same model.
    verbose : int, default=0
        Show the fit's progress.
    random_state : int, RandomState or None, default=None
        Seeds the order of the passes.
    max_iter : int, default=1000
        The cap on the outer passes of each problem. ``multi_class="crammer_singer"`` has
        LIBLINEAR's own cap, 100,000 iterations, whatever ``max_iter`` is (as scikit-learn's,
        whose ``n_iter_`` may exceed ``max_iter`` there); a fit that uses ``max_iter`` or more
        still warns, as scikit-learn's does.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems (None: every core). The model does not depend on it.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights.
    intercept_ : ndarray of shape (1,) or (n_classes,), or 0.0 without an intercept
        The intercepts.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    n_iter_ : int
        The most outer passes (Newton iterations in the primal) any problem ran.
    n_features_in_ : int
        Features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen in `fit`, when X had string column names.

    See Also
    --------
    LinearSVR : The regressor.
    LinearSGD : Linear SVMs by stochastic gradient, for data too large for exact solutions.
    SVC : Kernel SVMs.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> import largemargin as lm
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = lm.LinearSVC(random_state=0).fit(X, y)
    >>> clf.coef_.shape
    (3, 4)
    >>> round(float(clf.score(X, y)), 2)
    0.95
    """

    _parameter_constraints = {
        **_LinearSVMBase._parameter_constraints,
        "penalty": [Options(LINEAR_SVC_PENALTIES)],
        "loss": [Options(LINEAR_SVC_LOSSES)],
        "multi_class": [Options(MULTI_CLASS_LINEAR)],
        "class_weight": ["dict", Options(("balanced",)), None],
    }

    def __init__(self, penalty="l2", loss="squared_hinge", *, dual="auto", tol=1e-4, C=1.0, multi_class="ovr",
                 fit_intercept=True, intercept_scaling=1, class_weight=None, verbose=0, random_state=None,
                 max_iter=1000, n_jobs=None):
        self.penalty = penalty
        self.loss = loss
        self.dual = dual
        self.tol = tol
        self.C = C
        self.multi_class = multi_class
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _check_relations(self):
        if self.multi_class == "crammer_singer":
            return  # penalty, loss and dual play no part (as in scikit-learn)
        refused = _unsupported(self.penalty, self.loss, self.dual)
        if refused:
            raise InvalidParameterError(refused)
        if self.penalty == "l1":
            raise InvalidParameterError("penalty='l1' is not supported by largemargin.LinearSVC, which solves the "
                                        "L2-regularised SVM; sklearn.svm.LinearSVC(penalty='l1', dual=False) fits sparse "
                                        "weights")

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X and labels y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors, dense or CSR (float32 or float64), read in place; other sparse
            formats (CSC, COO...) are converted to CSR, a copy.
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-example weights (nonnegative): each multiplies its example's C.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._validate_params()
        X, y, sample_weight = self._validate(X, y, sample_weight)
        check_classification_targets(y)
        classes, y_index = np.unique(y, return_inverse=True)
        if len(classes) < 2:
            raise ValueError("This solver needs samples of at least 2 classes in the data, but the data contains only "
                             f"one class: {classes[0]!r}")
        class_weight = _class_weight(self.class_weight, classes, y, sample_weight)
        # LIBLINEAR's Crammer-Singer solver has its own cap, 100,000 iterations, whatever max_iter
        # says (scikit-learn reports n_iter_ above max_iter): the same models need the same cap
        max_iter = CRAMMER_SINGER_MAX_ITER if self.multi_class == "crammer_singer" else self.max_iter
        fit = _native_fit(lambda xn: _native.fit_linear_svc(
            xn, np.ascontiguousarray(y_index, dtype=np.int64), n_classes=len(classes),
            class_weight=[float(w) for w in class_weight], sample_weight=sample_weight, loss=self.loss,
            multi_class=self.multi_class, solver=self._solver(X, self.loss == "squared_hinge"),
            **self._common_args(max_iter)), X)
        coef, intercept = fit["coef"], fit["intercept"]
        if self.multi_class == "crammer_singer" and len(classes) == 2:
            # one row, the second class's score against the first's (as scikit-learn)
            coef, intercept = (coef[1] - coef[0]).reshape(1, -1), intercept[1:] - intercept[:1]
        self.classes_ = classes
        self.coef_ = coef
        self.intercept_ = intercept if self.fit_intercept else 0.0
        self._store(fit)
        return self


class LinearSVR(RegressorMixin, _LinearSVMBase):
    """Linear support vector regression, solved exactly in the dual by coordinate descent.

    Minimises ``1/2 |w|^2 + C sum_i s_i loss(y_i - <w, x_i> - b)`` with the epsilon-insensitive
    loss or its square, by the dual coordinate descent of Ho and Lin (2012) or, for the squared
    loss, trust-region Newton on the primal: LIBLINEAR's methods and so scikit-learn's ``LinearSVR``'s, whose parameters, defaults, attributes and
    models this class shares. The intercept is the weight of a constant feature
    ``intercept_scaling`` (regularised, as in LIBLINEAR). Dense and CSR data (float32 or float64)
    is read in place, except dense rows under half nonzero: those are read from a copy of their
    nonzeros, made once per fit and smaller than the input.

    Parameters
    ----------
    epsilon : float, default=0.0
        The width of the insensitive tube, nonnegative.
    tol : float, default=1e-4
        The stopping tolerance (LIBLINEAR's): in the dual, the violations' sum below ``tol`` times
        the first pass's; in the primal, the gradient's norm below ``tol`` times its norm at zero.
    C : float, default=1.0
        The regularisation trade-off, positive.
    loss : {"epsilon_insensitive", "squared_epsilon_insensitive"}, default="epsilon_insensitive"
        The L1 loss or the L2 loss.
    fit_intercept : bool, default=True
        Fit an intercept, as the weight of a constant feature ``intercept_scaling``.
    intercept_scaling : float, default=1.0
        The constant feature's value.
    dual : "auto" or bool, default="auto"
        Solve the dual (by coordinate descent) or the primal (by trust-region Newton, the squared
        loss only, its passes on every core), as scikit-learn chooses: ``"auto"`` solves the
        primal when n_samples >= n_features and the loss is squared. ``dual=False`` with
        ``loss="epsilon_insensitive"`` is refused (it has no primal form), as in scikit-learn.
    verbose : int, default=0
        Show the fit's progress.
    random_state : int, RandomState or None, default=None
        Seeds the order of the passes.
    max_iter : int, default=1000
        The cap on the outer passes.
    n_jobs : int or None, default=None
        Threads (None: every core): the primal's passes (``dual=False``) are split over them; the
        dual's single problem runs on one. The model does not depend on it.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
        The weights.
    intercept_ : ndarray of shape (1,), or 0.0 without an intercept
        The intercept.
    n_iter_ : int
        The outer passes (Newton iterations in the primal) run.
    n_features_in_ : int
        Features seen in `fit`.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of the features seen in `fit`, when X had string column names.

    See Also
    --------
    LinearSVC : The classifier.
    SVR : Kernel support vector regression.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> rng = np.random.RandomState(0)
    >>> X = rng.uniform(-1, 1, size=(200, 3))
    >>> y = X @ [2.0, -1.0, 0.5] + 1.0
    >>> reg = lm.LinearSVR(C=10.0, random_state=0).fit(X, y)
    >>> np.round(reg.coef_, 2)
    array([ 2. , -1. ,  0.5])
    >>> round(float(reg.score(X, y)), 3)
    1.0
    """

    _parameter_constraints = {
        **_LinearSVMBase._parameter_constraints,
        "epsilon": [Interval(Real, 0.0, None)],
        "loss": [Options(LINEAR_SVR_LOSSES)],
    }

    def __init__(self, *, epsilon=0.0, tol=1e-4, C=1.0, loss="epsilon_insensitive", fit_intercept=True,
                 intercept_scaling=1.0, dual="auto", verbose=0, random_state=None, max_iter=1000, n_jobs=None):
        self.epsilon = epsilon
        self.tol = tol
        self.C = C
        self.loss = loss
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.dual = dual
        self.verbose = verbose
        self.random_state = random_state
        self.max_iter = max_iter
        self.n_jobs = n_jobs

    def _check_relations(self):
        refused = _unsupported("l2", self.loss, self.dual)
        if refused:
            raise InvalidParameterError(refused)

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X and targets y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors, dense or CSR (float32 or float64), read in place; other sparse
            formats (CSC, COO...) are converted to CSR, a copy.
        y : array-like of shape (n_samples,)
            Target values.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-example weights (nonnegative): each multiplies its example's C.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._validate_params()
        X, y, sample_weight = self._validate(X, y, sample_weight, y_numeric=True)
        y = np.ascontiguousarray(y, dtype=np.float64)
        fit = _native_fit(lambda xn: _native.fit_linear_svr(
            xn, y, sample_weight=sample_weight, loss=self.loss, epsilon=float(self.epsilon),
            solver=self._solver(X, self.loss == "squared_epsilon_insensitive"), **self._common_args()), X)
        self.coef_ = fit["coef"].ravel()
        self.intercept_ = fit["intercept"] if self.fit_intercept else 0.0
        self._store(fit)
        return self

    def predict(self, X):
        """Predict targets.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The samples.

        Returns
        -------
        y : ndarray of shape (n_samples,)
            ``X @ coef_ + intercept_``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        return np.asarray(safe_sparse_dot(X, self.coef_.T, dense_output=True), dtype=np.float64).ravel() + \
            self.intercept_
