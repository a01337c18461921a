"""Linear SVMs trained by stochastic gradient in Rust: averaged SGD (Xu 2011), SGD-QN as corrected
by its authors (Bordes, Bottou, Gallinari and Chang 2010) and in its 2009 form, SVMSGD2 (Bottou
2007), plain SGD, and the margin perceptron of Collobert and Bengio (2004).
Multiclass problems are one-vs-rest, the binary problems solved in parallel."""

import re
import time
import warnings
from functools import partial
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from . import _native
from ._arrays import NOT_CANONICAL, canonical_csr, to_native
from ._base.estimator import BaseEstimator
from ._checks import draw_seed
from ._guard import at_least_two, check_known_labels, partial_fit_classes, unchanged_on_failure
from ._options import SGD_ALGORITHMS
from ._progress import say
from ._validation import HasMethods, Interval, Options, Registered
from .exceptions import InvalidParameterError
from .plugins import NativeLoss, get_registry
from .plugins.checked import CheckedLoss


class _LinearSGDBase(LinearClassifierMixin, ClassifierMixin, BaseEstimator):
    """What the SGD-trained linear classifiers share: data checks, one-vs-rest problems, the
    native call with the optimiser's state kept between calls, and the fitted attributes.
    Subclasses say which algorithm runs with what step size (`_native_args`)."""

    _parameter_constraints = {
        "epochs": [Interval(Integral, 1, None)],
        "n_iter_no_change": [Interval(Integral, 1, None)],
        "fit_intercept": ["boolean"],
        "shuffle": ["boolean"],
        "class_weight": ["dict", Options(("balanced",)), None],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs"],
        "verbose": ["verbose"],
    }

    def _native_args(self, xn):
        """(algorithm, loss, alpha, t0, rate, skip, bias_rate) for the native solver, t0 None when
        the fit is to choose it; `xn` is the data converted once by `to_native`."""
        raise NotImplementedError

    def _validate(self, X, y, sample_weight, reset):
        # (NaN and infinity are refused by the native fit, naming the row: checking here too
        # would be one more pass over the data)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], order="C",
                             reset=reset, ensure_all_finite=False)
        check_classification_targets(y)
        if X.shape[0] == 0:
            raise ValueError("cannot fit on zero samples")
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        return X, y, sample_weight

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None):
        """Fit on X and labels y from a zero model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors, dense or CSR (float32 or float64).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-example weights (non-negative).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        self._validate_params()
        X, y, sample_weight = self._validate(X, y, sample_weight, reset=True)
        classes = at_least_two(np.unique(y))
        for attr in ("coef_", "_state", "t0_", "skip_", "n_iter_", "average_start_"):
            self.__dict__.pop(attr, None)
        return self._passes(X, y, classes, sample_weight)

    def _passes(self, X, y, classes, sample_weight):
        """The passes of `fit`: `epochs` of them (None: until the objective stops improving, see
        `_stopping`)."""
        if self.epochs is not None:
            return self._train(X, y, classes, sample_weight, self.epochs)
        tol, n_iter_no_change, cap = self._stopping()
        self._train(X, y, classes, sample_weight, cap, tol, n_iter_no_change)
        if tol is not None and not all(self._converged):
            warnings.warn(f"{type(self).__name__}: the objective still improved by more than tol={tol:g} after "
                          f"max_iter={cap} passes; increase max_iter or tol", ConvergenceWarning, stacklevel=3)
        return self

    def _stopping(self):
        """epochs=None: (tol, n_iter_no_change, the cap on the passes)."""
        raise NotImplementedError

    @unchanged_on_failure
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One pass over a chunk, continuing the optimiser where it stopped.

        The step sizes, SGD-QN's rescaling and the regularisation schedule carry on from the previous
        call. ``classes`` is needed on the first call.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The chunk.
        y : array-like of shape (n_samples,)
            Its class labels, all among ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; needed on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-example weights (non-negative).

        Returns
        -------
        self : object
            The updated estimator.
        """
        self._validate_params()
        first = not hasattr(self, "_state")
        classes = partial_fit_classes(None if first else self.classes_, classes)
        X, y, sample_weight = self._validate(X, y, sample_weight, reset=first)
        check_known_labels(y, classes)
        return self._train(X, y, classes, sample_weight, 1)

    def _train(self, X, y, classes, sample_weight, epochs, tol=None, n_iter_no_change=1):
        started = time.perf_counter()
        k = len(classes)
        targets = [1] if k == 2 else list(range(k))
        if k == 2:  # (one comparison, written in place: a pass over y, not three)
            labels = np.where(y == classes[1], 1.0, -1.0).reshape(1, -1)
        else:
            y_idx = np.searchsorted(classes, y)
            labels = np.ascontiguousarray([np.where(y_idx == c, 1.0, -1.0) for c in targets])
        class_weight = compute_class_weight(self.class_weight, classes=classes, y=y) if self.class_weight is not None \
            else np.ones(k)
        if not np.all(np.isfinite(class_weight) & (class_weight >= 0)):
            raise ValueError(f"class_weight must give every class a nonnegative finite weight, got {self.class_weight!r}")
        # binary: the two classes' weights; one-vs-rest: the class against weight 1 (as scikit-learn's SGD)
        pairs = [(float(class_weight[1]), float(class_weight[0]))] if k == 2 else \
            [(float(class_weight[c]), 1.0) for c in targets]
        state = getattr(self, "_state", None)
        if state is None:
            d = X.shape[1]
            state = dict(w=np.zeros((len(targets), d), np.float32), scale=np.zeros((len(targets), 0), np.float32),
                         bias=np.zeros(len(targets)), t=np.zeros(len(targets)),
                         count=np.zeros(len(targets), np.uint64), r=np.zeros(len(targets)),
                         update_scale=[False] * len(targets))
        else:
            # the weights are kept once, as coef_ (float32 -> float64 -> float32 is exact)
            state = dict(state, w=self.coef_.astype(np.float32))
        # converted once (each conversion of a large sparse matrix is a pass over it), not
        # canonicalised unless the native side finds it has to be (see to_native)
        xn = to_native(X, canonical=False)
        algorithm, loss, alpha, t0, rate, skip, bias_rate = self._native_args(xn)
        # t0 None: the fit chooses it first, on a sample drawn with this seed
        chosen, skip_from_data = t0 is None, skip is None
        t0_seed = draw_seed(self.random_state) if chosen else 0
        seed = draw_seed(self.random_state)
        fit = partial(
            _native.fit_linear, labels=labels, sample_weight=np.ascontiguousarray(sample_weight), class_weights=pairs,
            state=state, algorithm=algorithm, loss=loss, alpha=float(alpha), t0=None if t0 is None else float(t0),
            t0_seed=t0_seed, rate=rate, skip=None if skip is None else int(skip), fit_bias=bool(self.fit_intercept), bias_rate=float(bias_rate),
            epochs=int(epochs), shuffle=bool(self.shuffle), seed=seed, n_jobs=self.n_jobs, verbose=bool(self.verbose),
            average_start=float(self._average_start(X.shape[0])), tol=None if tol is None else float(tol),
            n_iter_no_change=int(n_iter_no_change),
        )
        try:
            try:
                state, fits, seconds, t0, skip = fit(xn)
            except ValueError as e:
                if not (sp.issparse(X) and NOT_CANONICAL in str(e)):
                    raise
                state, fits, seconds, t0, skip = fit(to_native(canonical_csr(X)))
        except ValueError as e:
            diverged = re.search(r"SGD diverged on problem (\d+) after (\d+) examples", str(e))
            if diverged is None:
                raise
            p, t = int(diverged.group(1)), int(diverged.group(2))
            raise ValueError(f"{type(self).__name__} diverged after {t} examples on {_problem_name(classes, targets, p)} "
                             f"(the weights overflowed) with {'the chosen t0' if chosen else f't0={t0:g}'} and alpha={alpha:g}: set a larger t0 or "
                             f"alpha") from None
        self._set_state(state)
        if chosen:
            self.t0_ = float(t0)
        if skip_from_data:
            self.skip_ = int(skip)
        self.classes_ = classes
        self.objective_ = np.array([f[0] for f in fits])
        loss_name = getattr(self, "loss", None)
        zero = _ZERO_MODEL_LOSS.get(loss_name) if isinstance(loss_name, str) else None
        for p, objective in enumerate(self.objective_):
            # the zero model's objective bounds the optimum's: ending far above it is a blow-up
            # the zero model's objective: the mean loss at margin 0 times the mean example weight
            pos, neg = pairs[p]
            if zero is None:
                mean_weight = 0.0
            elif pos == neg:
                mean_weight = pos * float(np.mean(sample_weight))
            else:
                mean_weight = float(np.mean(sample_weight * np.where(labels[p] > 0, pos, neg)))
            if zero is not None and objective > 2 * zero * mean_weight:
                warnings.warn(f"{type(self).__name__}: on {_problem_name(classes, targets, p)} the fit ended at "
                              f"objective {objective:.4g}, above the zero model's {zero * mean_weight:.4g}: "
                              f"it is diverging (t0={t0:g}, alpha={alpha:g}; set a larger t0 or alpha)",
                              ConvergenceWarning, stacklevel=3)
            elif zero is not None and objective >= 0.999 * zero * mean_weight:
                # steps too small to move (a safe t0 set by one feature far larger than the
                # others): the stopping rule would read "no change" as converged
                warnings.warn(f"{type(self).__name__}: on {_problem_name(classes, targets, p)} the fit ended at objective "
                              f"{objective:.4g}, no better than the zero model's {zero * mean_weight:.4g}: the model did "
                              f"not learn (t0={t0:g}, alpha={alpha:g}); if some features are far larger than others, "
                              f"standardise them (e.g. StandardScaler), else try another t0 or alpha",
                              ConvergenceWarning, stacklevel=3)
        self.training_error_ = np.array([f[1] for f in fits])
        # the passes run (the most of any one-vs-rest problem's, as scikit-learn's SGDClassifier)
        self.n_iter_ = getattr(self, "n_iter_", 0) + max(f[2] for f in fits)
        self._converged = [f[3] for f in fits]
        self.t_ = int(state["t"][0])
        self.fit_time_ = seconds  # the passes alone (the objective's evaluation pass excluded)
        self.call_time_ = time.perf_counter() - started
        if self.verbose:
            for p, f in enumerate(fits):
                say(f"[{type(self).__name__}] {_problem_name(classes, targets, p)}: {f[2]} passes, objective "
                    f"{f[0]:.6g}, training error {f[1]:.4g}{', stopped by max_iter' if tol is not None and not f[3] else ''}")
            say(f"[{type(self).__name__}] {self.fit_time_:.3f} s in the passes, {self.call_time_:.3f} s in all")
        return self

    def _average_start(self, n):
        """ASGD: the examples seen before averaging starts (none for the other algorithms)."""
        return 0.0

    def _set_state(self, state):
        """The coefficients, and the rest of the optimiser's state (its weights are coef_: on
        10^7 features and 10 classes a second copy would hold 381 MB more)."""
        state = dict(state)
        self.coef_ = state.pop("w").astype(np.float64)
        self._state = state
        self.intercept_ = np.asarray(state["bias"], dtype=np.float64)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


# Each built-in loss at margin 0: the objective of the zero model, per unit of example weight.
_ZERO_MODEL_LOSS = {"hinge": 1.0, "squared_hinge": 0.5, "log_loss": float(np.log(2.0)), "modified_huber": 1.0}


def _problem_name(classes, targets, p):
    label = classes[targets[p]]
    return f"class {getattr(label, 'item', lambda: label)()!r} against the rest" if len(classes) > 2 else "the binary problem"


class LinearSGD(_LinearSGDBase):
    """Linear SVM (or another margin loss) trained by stochastic gradient.

    Minimises the primal ``alpha/2 |w|^2 + 1/n sum_i sample_weight_i loss(y_i f(x_i))`` by one of
    five stochastic gradient algorithms: averaged SGD (Xu 2011), SGD-QN as corrected by its authors
    (Bordes, Bottou, Gallinari and Chang 2010) and in its 2009 form, SVMSGD2 (Bottou 2007), and
    plain SGD. Multiclass problems are one-vs-rest, the binary problems solved in parallel.
    Weights are kept in float32 during training. `partial_fit` continues the optimiser over a
    stream.

    Parameters
    ----------
    algorithm : {"asgd", "sgdqn", "sgdqn2009", "svmsgd2", "sgd"}, default="asgd"
        ``"asgd"``: averaged SGD, plain SGD steps eta0 / (1 + alpha eta0 t)^0.75 with
        eta0 = 1/(alpha t0) (Xu 2011's schedule), the model the running average of the iterates
        from ``average_start`` on; the average is kept implicitly (two float64 vectors and a few
        scalars per problem), O(nnz) per step. ``"sgdqn"``: SGD-QN as its authors corrected it
        (JMLR 2010 erratum): per-coordinate steps whose inverse accumulates, every ``skip``
        examples, a secant estimate of the curvature (clipped to [0.1, 100] alpha) from
        1/(alpha t0). ``"sgdqn2009"``: the 2009 form (the thesis' version): SVMSGD2's
        1/(alpha (t + t0)) steps rescaled by a leaky average of secant ratios. ``"svmsgd2"``:
        pattern steps on the nonzeros of x, the regulariser applied every ``skip`` examples.
        ``"sgd"``: the plain first-order step, O(d) per example.
        The default's origin: on ``make_rcv1_like`` (270,000 training rows, alpha 1e-5, 5% and
        10% flipped labels) ASGD is within 0.3 points of LinearSVC's test error after 1 and 2
        passes with hinge and squared hinge, where SVMSGD2 and both SGD-QNs are 0.37-0.39 points
        behind after 2 with squared hinge at 10% noise (``benches/asgd.py``); on adult it tests
        0.6 points better than the 2009 SGD-QN (the previous default) and on ijcnn1 the same.
    loss : str or object, default="squared_hinge"
        ``"squared_hinge"`` (1/2 max(0, 1 - m)^2, the papers' loss), ``"hinge"``, ``"log_loss"``,
        ``"modified_huber"``, any loss a plugin registers, or an object with ``loss(f, y)``
        (called on arrays of a block of examples) and ``dloss(f, y)`` (called on two floats, once
        per step); a Python loss trains the binary problems one after another, whatever n_jobs.
        (With squared hinge, scikit-learn's LinearSVC(C) is alpha = 1/(2 n C).)
    alpha : float, default=1e-4
        The regularisation lambda.
    epochs : int or None, default=None
        Passes over the data in `fit`; None: until the objective stops improving (``tol``,
        ``n_iter_no_change``), at most ``max_iter`` passes.
    tol : float or None, default=1e-4
        With epochs=None: after each pass the primal of the model as returned (ASGD's average,
        not its last iterate) is evaluated, one pass over the data without updates; a pass that
        lowers the best value so far by less than ``tol`` times the zero model's primal (the
        weighted mean loss at margin 0: 1/2 per unit weight for the squared hinge) counts as no
        change, and ``n_iter_no_change`` of them in a row end the problem's passes (each
        one-vs-rest problem stops on its own). None: no evaluations, ``max_iter`` passes.
        The scale is the zero model's, not the objective's own: a separable problem's objective
        falls towards 0 as 1/passes, and a relative change never met 1e-3 within 1000 passes.
        The default's origin, on the benchmark suite (47 datasets, ``benches/suite.py``): the
        previous 10^6 steps (at least 5 passes) were within 1 point of SGDClassifier and of
        LinearSVC on 91% and 96% of the sets, error ratio against LinearSVC 1.021, at 11.9 times
        SGDClassifier's fit time (up to 70x); tol 1e-4: 94% and 98%, 1.018, 1.3 times (up to
        5.6x); tol 1e-3 stopped too early: 91% and 87%, 1.044.
    n_iter_no_change : int, default=5
        Passes without change that stop the fit (as scikit-learn's SGDClassifier).
    max_iter : int, default=1000
        With epochs=None: the cap on the passes; reaching it with ``tol`` unmet warns
        (ConvergenceWarning).
    t0 : float or None, default=None
        Step sizes are 1/(alpha (t + t0)) (SGD-QN's start at that too; ASGD's are
        eta0 / (1 + t/t0)^0.75, eta0 = 1/(alpha t0)). None: chosen as the thesis does, by one
        pass over a random tenth of the data (at least 1,000 examples, at most 5,000) for
        t0 = 1, 10, ..., 1e8 (ASGD with its averaging, which starts within the sample when
        ``average_start`` is 0), the lowest primal there winning, but never below the stable t0:
        ``curvature * max_i c_i (|x_i|^2 + intercept_rate) / alpha``, c_i the example's weight
        (class weights included, the largest over the one-vs-rest problems) and the curvature the
        largest change of the loss's derivative over a unit change of the decision value (1 for
        the hinge and squared hinge, 2 for modified Huber, 0.245 for the log loss, the secant of
        its derivative over a unit change): no first step overshoots an example's own margin, so
        the passes cannot diverge (iris, standardised: the unbounded search chose t0 = 1000, and
        the squared hinge overflowed in the second pass).
    skip : int or None, default=None
        Examples between regularisation steps; None: 16 / density.
    average_start : float, default=0.0
        ASGD: the passes over the data (of the first call's size) before the iterates start
        being averaged; 0 averages from the first step. The default's origin: starting at 0.1,
        0.25, 0.5 or 1 pass was as good or worse after 1 and 2 passes on ``make_rcv1_like``
        (up to 1.5 points worse after one pass with squared hinge) and no better on adult and
        ijcnn1: with t0 chosen as above the first steps are already small.
    fit_intercept : bool, default=True
        Learn an unregularised bias, its step ``intercept_rate`` times the weights'.
    intercept_rate : float, default=1.0
        The bias' step relative to the weights'. The default's origin: Bottou's reduced 0.01 left
        the bias of one-vs-rest problems (a class against nine others needs a bias far from 0) and
        of low-dimensional ones (banana, 2 features) barely moved: on the suite after 5 passes
        0.01, 0.1 and 1 gave 32, 37 and 39 of 46 sets within 1 point of SGDClassifier (27, 29 and
        35 of LinearSVC); at 10^6 steps 0.3 and 1 both 44 of 46 against LinearSVC, error ratios
        1.029 and 1.022.
    shuffle : bool, default=True
        A new random order each epoch (else the data's order).
    class_weight : dict or "balanced", default=None
        Multiplies the example weights per class: for two classes, each class' weight; one-vs-rest,
        the class against weight 1 for the rest (as scikit-learn's SGDClassifier).
    random_state : int, RandomState or None, default=None
        Seeds the shuffling and the sample that chooses t0.
    n_jobs : int or None, default=None
        Threads (None: every core). One-vs-rest problems train in parallel; a binary problem
        on sparse data uses a second thread to fetch the rows of a shuffled pass ahead of the
        steps. The model is the same for every n_jobs.
    verbose : bool, default=False
        Print, per binary problem, the passes run, the objective and the training error, then
        the time taken.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights (of ASGD's average for ``"asgd"``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The biases.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    objective_ : ndarray of shape (n_problems,)
        The primal of each binary problem after the last pass.
    training_error_ : ndarray of shape (n_problems,)
        The training error of each binary problem after the last pass.
    n_iter_ : int
        The passes run: the most of any problem's (summed over `partial_fit` calls).
    t_ : int
        Examples seen, counted by the optimiser (of the first binary problem).
    t0_ : float
        The t0 used (chosen by the first fit when ``t0`` is None).
    skip_ : int
        The ``skip`` used (read from the data when None).
    average_start_ : float
        ASGD: ``average_start`` in examples.
    fit_time_ : float
        Seconds of the passes of the last call.
    call_time_ : float
        Seconds of the whole last call: t0's choice and the objective's evaluation included.
    n_features_in_ : int
        Features seen in `fit`.

    See Also
    --------
    MarginPerceptron : The margin perceptron, a constant-rate relative.
    SVC : A kernel SVM, here with ``kernel="linear"`` solved exactly in the dual.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> import largemargin as lm
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = lm.LinearSGD(random_state=0).fit(X, y)
    >>> clf.coef_.shape
    (3, 4)
    >>> round(float(clf.score(X, y)), 2)
    0.96
    """

    _auto_epochs = True

    def __init__(self, *, algorithm="asgd", loss="squared_hinge", alpha=1e-4, epochs=None, tol=1e-4,
                 n_iter_no_change=5, max_iter=1000, t0=None, skip=None, average_start=0.0, fit_intercept=True,
                 intercept_rate=1.0, shuffle=True, class_weight=None, random_state=None, n_jobs=None, verbose=False):
        self.algorithm = algorithm
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.max_iter = max_iter
        self.average_start = average_start
        self.loss = loss
        self.alpha = alpha
        self.epochs = epochs
        self.t0 = t0
        self.skip = skip
        self.fit_intercept = fit_intercept
        self.intercept_rate = intercept_rate
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _algorithm(self):
        return self.algorithm

    _parameter_constraints = {
        **_LinearSGDBase._parameter_constraints,
        "algorithm": [Options(SGD_ALGORITHMS)],
        "loss": [Registered("loss"), HasMethods("loss", "dloss")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "epochs": [Interval(Integral, 1, None), None],
        "tol": [Interval(Real, 0, None), None],
        "max_iter": [Interval(Integral, 1, None)],
        "t0": [Interval(Real, 0, None, closed="neither"), None],
        "skip": [Interval(Integral, 1, None), None],
        "average_start": [Interval(Real, 0, None)],
        "intercept_rate": [Interval(Real, 0, None)],
    }

    def _check_relations(self):
        """The loss resolved: a built-in's name, a plugin's checked loss or the user's object."""
        loss = self.loss
        if isinstance(loss, str):
            loss = get_registry().resolve("loss", loss)
        if isinstance(loss, NativeLoss):
            self._loss = loss.name
        elif isinstance(loss, CheckedLoss):
            self._loss = loss
        elif hasattr(loss, "loss") and hasattr(loss, "dloss"):
            self._loss = CheckedLoss(type(loss).__name__, None, loss)  # the user's own object
        else:
            raise InvalidParameterError(f"loss {self.loss!r} of the registry is not a loss: {loss!r}")

    def _stopping(self):
        return self.tol, self.n_iter_no_change, self.max_iter

    def _native_args(self, xn):
        # no skip_ or t0_ yet: the first fit reads skip from the data (its entries checked
        # unique) and chooses t0
        if not hasattr(self, "skip_") and self.skip is not None:
            self.skip_ = int(self.skip)
        if not hasattr(self, "t0_") and self.t0 is not None:
            self.t0_ = float(self.t0)
        return (self._algorithm(), self._loss, self.alpha, getattr(self, "t0_", None), None, getattr(self, "skip_", None),
                self.intercept_rate)

    def _average_start(self, n):
        if self._algorithm() != "asgd":
            return 0.0
        if not hasattr(self, "average_start_"):
            self.average_start_ = float(self.average_start) * n
        return self.average_start_


class MarginPerceptron(_LinearSGDBase):
    """The margin perceptron of Collobert and Bengio (2004), a linear classifier.

    In sequence, whenever y (<w, x> + b) <= 1, w += learning_rate y x and b += learning_rate y.
    With ``weight_decay`` mu, every step first multiplies w by (1 - learning_rate mu): that is SGD
    on the linear SVM in their parametrisation (C = 1/(n mu)). The margin is controlled by the
    learning rate and the number of updates; ``early_stopping`` keeps the epoch with the best
    accuracy on a held-out ``validation_fraction`` (stratified), stopping after
    ``n_iter_no_change`` epochs without improvement. Multiclass problems are one-vs-rest, solved
    in parallel.

    The defaults (learning rate 0.01, 20 epochs, no early stopping) were checked on the 47-dataset
    suite against scikit-learn's ``Perceptron()`` and kept: within 1 point of it or better on all
    45 datasets scored, geometric mean error ratio 0.75, better than the variants tried (early
    stopping, 50 epochs, learning rate 1; benches/mlp_defaults.py, benches/results/mlp_defaults.md).

    Parameters
    ----------
    learning_rate : float, default=0.01
        The constant step.
    weight_decay : float, default=0.0
        The decay mu: each step first multiplies w by (1 - learning_rate mu).
    epochs : int, default=20
        Passes over the data in `fit` (at most this many with early stopping).
    fit_intercept : bool, default=True
        Learn the bias b.
    early_stopping : bool, default=False
        Keep the epoch with the best accuracy on a held-out split.
    validation_fraction : float, default=0.1
        The held-out share for early stopping, in (0, 1).
    n_iter_no_change : int, default=5
        Epochs without a better held-out accuracy that end the fit with early stopping.
    shuffle : bool, default=True
        A new random order each epoch (else the data's order).
    class_weight : dict or "balanced", default=None
        Multiplies the example weights per class, as in `LinearSGD`.
    random_state : int, RandomState or None, default=None
        Seeds the shuffling and the held-out split.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems (None: every core).
    verbose : bool, default=False
        Print, per binary problem, the passes run, the objective and the training error.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights w.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The biases b.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    validation_scores_ : ndarray of shape (n_epochs_run,)
        With early stopping: the held-out accuracy after each epoch.
    best_epoch_ : int
        With early stopping: the epoch kept (from 1).
    objective_, training_error_, n_iter_, t_, fit_time_, call_time_, n_features_in_
        As in `LinearSGD`. With early stopping, ``objective_`` and ``training_error_`` are those
        of the epoch kept (on the training part), ``n_iter_`` counts the epochs run, and
        ``fit_time_`` sums them.

    See Also
    --------
    LinearSGD : Linear SVMs by SGD with decreasing steps.
    KernelPerceptron : Kernel perceptrons.
    SimpleMLPClassifier : The very simple MLP, the margin perceptron with hidden units.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-1.5, -2.0], [1.0, 1.0], [2.0, 1.0], [1.5, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = lm.MarginPerceptron(random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])
    """

    def __init__(self, *, learning_rate=0.01, weight_decay=0.0, epochs=20, fit_intercept=True, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=5, shuffle=True, class_weight=None, random_state=None,
                 n_jobs=None, verbose=False):
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    _parameter_constraints = {
        **_LinearSGDBase._parameter_constraints,
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None)],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    }

    def _native_args(self, xn):
        # the rate is constant; t0 and skip play no part
        return "margin_perceptron", "hinge", self.weight_decay, 1.0, float(self.learning_rate), 1, 1.0

    def _passes(self, X, y, classes, sample_weight):
        """`epochs` passes, or with early stopping the best epoch on a held-out split."""
        if not self.early_stopping:
            return super()._passes(X, y, classes, sample_weight)
        from sklearn.model_selection import train_test_split

        train, held = train_test_split(np.arange(len(y)), test_size=self.validation_fraction, stratify=y,
                                       random_state=draw_seed(self.random_state))
        scores, best, waited, seconds = [], None, 0, 0.0
        for epoch in range(self.epochs):
            self._train(X[train], y[train], classes, sample_weight[train], 1)
            seconds += self.fit_time_
            scores.append(float(np.mean(self.predict(X[held]) == y[held])))
            if best is None or scores[-1] > best[0]:
                state = dict({k: np.copy(v) for k, v in self._state.items()}, w=self.coef_.astype(np.float32))
                # what describes that model (n_iter_ stays the passes run)
                measured = {k: np.copy(getattr(self, k)) for k in ("objective_", "training_error_")}
                best, waited = (scores[-1], epoch, state, measured), 0
            else:
                waited += 1
                if waited >= self.n_iter_no_change:
                    break
        self._set_state(best[2])
        for name, value in best[3].items():
            setattr(self, name, value)
        self.validation_scores_ = np.array(scores)
        self.best_epoch_ = best[1] + 1
        self.fit_time_ = seconds
        return self
