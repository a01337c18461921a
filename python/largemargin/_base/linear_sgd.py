"""The base of the linear classifiers trained by stochastic gradient (`largemargin.linear`): data
checks, one-vs-rest problems, the native call with the optimiser's state kept between calls
(`partial_fit`), the checks of what a fit ended at, and the fitted attributes."""

import re
import time
import warnings
from functools import partial
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils import compute_class_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, validate_data

from .. import _native
from .._arrays import NOT_CANONICAL, canonical_csr, to_native
from .._checks import draw_seed
from .._guard import at_least_two, check_known_labels, partial_fit_classes, unchanged_on_failure
from .._progress import say
from .._validation import Interval, Options
from .estimator import BaseEstimator


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

        The step sizes, SGD-QN's rescaling, ASGD's iterate and average and the regularisation
        schedule carry on from the previous ``partial_fit`` call: calls in a row make the steps one call
        would (to the bit but for ASGD, whose average is put in its explicit form after each call).
        After ``fit``, which keeps only the model (on 10^7 features the optimiser's state would
        double its memory), the passes continue from ``coef_`` and ``intercept_``: the step sizes
        carry on, SGD-QN's rescaling starts again, and ASGD's iterate starts at the averaged
        model, averaging anew. ``classes`` is needed on the first call.

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
        return self._train(X, y, classes, sample_weight, 1, keep_state=True)

    def _train(self, X, y, classes, sample_weight, epochs, tol=None, n_iter_no_change=1, keep_state=False):
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
        coef = None
        if state is None:
            state = dict(bias=np.zeros(len(targets)), t=np.zeros(len(targets)), count=np.zeros(len(targets), np.uint64),
                         r=np.zeros(len(targets)), update_scale=[False] * len(targets))
        else:
            # the weights are kept once, as coef_ (for the float32 algorithms float32 -> float64
            # -> float32 is exact; "w": a state pickled when they were kept there too)
            state = {k: v for k, v in state.items() if k != "w"}
            coef = np.ascontiguousarray(self.coef_, dtype=np.float64)
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
            n_iter_no_change=int(n_iter_no_change), coef=coef, keep_state=bool(keep_state),
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
        """The coefficients (the native fit's output itself, nothing copied), and the rest of the
        optimiser's state: per-problem values, and after ``partial_fit`` its per-feature rows."""
        state = dict(state)
        self.coef_ = state.pop("coef")
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
