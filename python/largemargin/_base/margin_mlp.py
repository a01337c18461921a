"""The base of the margin MLPs (`largemargin.mlp`): their shared parameters, the binary fit with
its stratified early-stopping split and committees, one-vs-rest for more classes, the curves and
the decision; the defaults of the automatic step."""

import time
import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._arrays import to_native
from .._checks import caller_stacklevel, draw_seed, effective_n_jobs, warn_not_converged
from .._guard import at_least_two, unchanged_on_failure
from .._multiclass import fit_one_vs_rest
from .._options import AUTO
from .._threads import parallel
from .._validation import Interval, Options
from .estimator import BaseEstimator

# each committee is a fit of its own: more than this is a mistake, not a setting
MAX_COMMITTEES = 1000

# learning_rate="auto": AUTO_STEP over (1 + mean squared row norm), 0.01 on adult (14 binary
# features a row) where the fixed 0.01 was chosen (benches/studies/mlp_select.py); never below
# AUTO_FLOOR, as smaller steps lost on the suite's wide sets (sonar, benches/studies/results/mlp_defaults.md).
# The floor was 0.01 before the refit on every row; with it, 0.005 won ring and mnist5k back
# (suite: 81% -> 83% within 1 pt of MLPClassifier; 0.003 lost sonar by 1 more point)
AUTO_STEP = 0.15
AUTO_FLOOR = 0.005
# Above this mean square per feature (typical |x_j| above 5) the initial weights, +-1/sqrt(d),
# saturate the hidden units and the default steps are far too large: a fit warns.
UNSCALED_MEAN_SQUARE = 25.0


def _warn_if_unscaled(est, X):
    """Warn when the features are far from unit scale, where the defaults silently fail (raw
    digits, pixel values 0-16: every one-vs-rest network ends on "the rest"). Once per fit: the
    one-vs-rest members, fitted on the same rows, do not warn again."""
    if getattr(est, "_one_vs_rest_member", False):
        return
    squares = float(X.data @ X.data) if sp.issparse(X) else float(np.einsum("ij,ij->", X, X, dtype=np.float64))
    per_feature = squares / max(1, X.shape[0] * X.shape[1])
    if per_feature > UNSCALED_MEAN_SQUARE:
        warnings.warn(f"{type(est).__name__}: the features are far from unit scale (mean square "
                      f"{per_feature:.4g} per feature); the initial weights and the default step "
                      "assume standardised features: scale them (e.g. with StandardScaler)",
                      UserWarning, stacklevel=caller_stacklevel())


class _MarginMLP(ClassifierMixin, BaseEstimator):
    """What the margin MLPs share: the binary fit, one-vs-rest for more classes, the stratified
    early-stopping split, the curves."""

    _median_epochs = False  # committees refit for the median of their best epochs (else each its own)

    _parameter_constraints = {
        "hidden_units": [Interval(Integral, 1, None)],
        "n_committees": [Interval(Integral, 1, MAX_COMMITTEES)],
        "learning_rate": [Options((AUTO,)), Interval(Real, 0, None, closed="neither")],
        "init_scale": [Interval(Real, 0, None, closed="neither")],
        "max_epochs": [Interval(Integral, 1, None)],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
        "n_iter_no_change": [Interval(Integral, 1, None)],
        "refit": ["boolean"],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs"],
    }

    @unchanged_on_failure
    def fit(self, X, y):
        """Fit on X and labels y.

        More than two classes are one-vs-rest: one network per class (``estimators_``), trained in
        parallel. A refit leaves nothing of the previous model.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors, dense or CSR, of unit scale (a fit on features far from it warns).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        started = time.perf_counter()
        self._validate_params()
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("_")]:
            delattr(self, name)  # a refit on other classes leaves nothing of the previous model
        X, y = validate_data(self, X, y, accept_sparse=["csr"], dtype=[np.float64, np.float32], order="C")
        check_classification_targets(y)
        classes, y_idx = np.unique(y, return_inverse=True)
        at_least_two(classes)
        rng = check_random_state(self.random_state)
        _warn_if_unscaled(self, X)
        rate = self._rate(X)
        if len(classes) > 2:
            self.estimators_ = fit_one_vs_rest(self, X, y_idx, len(classes), rng)
            self.n_epochs_ = np.array([e.n_epochs_ for e in self.estimators_])
            self.best_epoch_ = np.array([e.best_epoch_ for e in self.estimators_])
        else:
            self._fit_binary(X, y_idx == 1, rng, rate)
        self.classes_ = classes
        self.learning_rate_ = rate
        self.fit_time_ = time.perf_counter() - started
        if not getattr(self, "_one_vs_rest_member", False):
            self._warn_if_budget_ended_it()
        return self

    def _warn_if_budget_ended_it(self):
        """ConvergenceWarning when max_epochs ended a network's training while it was still
        learning: on its hold-out, the best epoch within the last n_iter_no_change (or, without
        one, an epoch still with examples inside the margin)."""
        ran, best = np.ravel(self.n_epochs_), np.ravel(self.best_epoch_)
        budget, patience = int(self.max_epochs), int(self.n_iter_no_change)
        if self.early_stopping:
            cut = (ran >= budget) & (best > ran - patience)
        else:
            cut = ran >= budget
        if cut.any():
            warn_not_converged(
                f"{type(self).__name__}: max_epochs={budget} reached while {int(cut.sum())} of {cut.size} network(s) "
                "were still improving; increase max_epochs.")

    def _rate(self, X):
        """The step: learning_rate, or with "auto" AUTO_STEP / (1 + the mean squared norm of the
        rows), at least AUTO_FLOOR: rows of small norm (raw features in [0, 1], few of them) get
        the larger step that moves a unit's pre-activation as far as 0.01 does on adult."""
        if not isinstance(self.learning_rate, str):
            return float(self.learning_rate)
        squares = float(X.data @ X.data) if sp.issparse(X) else float(np.einsum("ij,ij->", X, X, dtype=np.float64))
        return max(AUTO_FLOOR, AUTO_STEP / (1.0 + squares / X.shape[0]))

    def _fit_binary(self, X, positive, rng, rate):
        """The binary fit of `positive` against the rest at step `rate`: sets the model's attributes
        on self. With n_committees > 1 each part draws its own seed and hold-out, in order, from
        `rng` (the first part's draws are those of a single-part fit), and the parts train on a
        thread each."""
        signed = np.where(positive, 1.0, -1.0)
        parts = int(getattr(self, "n_committees", 1))
        draws = []
        for _ in range(parts):
            seed = draw_seed(rng)
            draws.append((seed, self._validation_rows(positive.astype(int), rng) if self.early_stopping else None))
        threads = min(parts, effective_n_jobs(self.n_jobs))
        native_jobs = self.n_jobs if threads == 1 else 1

        # with `_median_epochs`, the parts' hold-outs choose one epoch count for all (their median)
        shared = (self._median_epochs and parts > 1 and self.refit
                  and all(val is not None for _, val in draws))

        def one(draw):
            seed, val = draw
            if val is not None:
                train = np.setdiff1d(np.arange(len(signed)), val)
                Xt, yt, Xv, yv = to_native(X[train]), signed[train], to_native(X[val]), np.ascontiguousarray(signed[val])
            else:
                Xt, yt, Xv, yv = to_native(X), signed, None, None
            fit = self._native_fit(Xt, np.ascontiguousarray(yt), Xv, yv, int(seed), rate, int(self.max_epochs),
                                   native_jobs)
            selection = fit
            if val is not None and self.refit and not shared:
                # the held-out rows chose the epoch count; the model is then trained on every row
                fit = self._native_fit(to_native(X), signed, None, None, int(seed), rate, selection["best_epoch"],
                                       native_jobs)
            return fit, selection

        results = [one(d) for d in draws] if threads == 1 else parallel(one, draws, threads)
        if shared:
            epochs = int(np.median([sel["best_epoch"] for _, sel in results]))

            def refit(k):
                return self._native_fit(to_native(X), signed, None, None, int(draws[k][0]), rate, epochs, native_jobs)

            fits = [refit(k) for k in range(parts)] if threads == 1 else parallel(refit, list(range(parts)), threads)
            results = [(f, sel) for f, (_, sel) in zip(fits, results)]
        fits = [f for f, _ in results]
        fit = fits[0] if parts == 1 else self._joined(fits)
        self.hidden_weights_ = fit["v"]
        self.hidden_bias_ = fit["d"]
        self.bias_ = float(fit["b"])
        if parts == 1:
            selection = results[0][1]
            self.n_epochs_ = int(selection["epochs"])
            self.best_epoch_ = int(selection["best_epoch"])
            for attr, key in self._CURVES:
                setattr(self, attr, selection[key])
        else:
            self.n_epochs_ = np.array([int(sel["epochs"]) for _, sel in results])
            self.best_epoch_ = np.array([int(sel["best_epoch"]) for _, sel in results])
            for attr, key in self._CURVES:
                setattr(self, attr, [sel[key] for _, sel in results])
        self._fitted(fit)

    _CURVES = [("loss_curve_", "train_loss"), ("train_error_curve_", "train_error"),
               ("updates_per_epoch_", "updates"), ("validation_error_curve_", "validation_error")]

    @staticmethod
    def _joined(fits):
        """Committees trained apart, as one: their units side by side and their biases summed, so
        that the decision is the sum of theirs."""
        joined = {"v": np.vstack([f["v"] for f in fits]), "d": np.concatenate([f["d"] for f in fits]),
                  "b": float(sum(f["b"] for f in fits))}
        if "w" in fits[0]:  # output weights, one per unit
            joined["w"] = np.concatenate([f["w"] for f in fits])
        return joined

    def _validation_rows(self, y_idx, rng):
        """A stratified held-out subset, or None when a class is too small to spare any."""
        rows = []
        for c in (0, 1):
            members = np.flatnonzero(y_idx == c)
            k = int(round(self.validation_fraction * len(members)))
            if k < 1 or k >= len(members):
                return None
            rows.append(rng.choice(members, k, replace=False))
        return np.sort(np.concatenate(rows))

    def _layer(self):
        return (np.ascontiguousarray(self.hidden_weights_, dtype=np.float32),
                np.ascontiguousarray(self.hidden_bias_, dtype=np.float64))

    def decision_function(self, X):
        """The network's output f(x), or one-vs-rest scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples, dense or CSR.

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes f(x), positive meaning ``classes_[1]``; for more, the one-vs-rest
            networks' outputs.
        """
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, accept_sparse=["csr"], dtype=[np.float64, np.float32], order="C", reset=False)
        if hasattr(self, "estimators_"):
            Xn = to_native(X)
            return np.column_stack([e._native_decision(Xn) for e in self.estimators_])
        return self._native_decision(to_native(X))

    def predict(self, X):
        """The class of each row of X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples, dense or CSR.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``classes_[1]`` where f(x) > 0 for two classes; for more, the class of the largest
            one-vs-rest score.
        """
        scores = self.decision_function(X)
        if scores.ndim == 2:
            return self.classes_[np.argmax(scores, axis=1)]
        return self.classes_[(scores > 0).astype(int)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
