"""The base of the LaRank classifiers (multiclass and ambiguous): parameter checks, storing a
native fit, prediction."""

from numbers import Integral

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from .._checks import warn_not_converged
from .._options import CLOCKS, LARANK_METHODS, SCHEDULES
from .._validation import Interval, Options
from .kernel_svm import _BaseSVM

# A fit with the default epochs makes passes until it has seen this many examples, up to three
# (and at least `_min_passes`): with two at least, three below 5,000 rows (chosen on benches/suite.py).
_SMALL_SET_EXAMPLES = 10_000


class _LaRankBase(ClassifierMixin, _BaseSVM):
    """What the LaRank classifiers share: parameter checks, storing a native fit, prediction."""

    _task = "classification"
    _min_passes = 1  # of a fit with the default epochs

    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "method": [Options(LARANK_METHODS)],
        "schedule": [Options(SCHEDULES)],
        "n_reprocess": [Interval(Integral, 0, None)],
        "clock": [Options(CLOCKS)],
        "epochs": [Interval(Integral, 1, None), None],
        "until_gap": ["boolean"],
    }

    def _epochs(self, n_examples=None):
        """Passes of a fit on `n_examples` (None: a chunk of `partial_fit`, one pass)."""
        if self.epochs is not None:
            return int(self.epochs)
        if self.until_gap:
            return 100
        if n_examples is None:
            return 1
        # One pass nears the batch solution on large sets (the thesis' claim); on small ones it is
        # 2-4 points short, and three cost little.
        return min(3, max(self._min_passes, -(-_SMALL_SET_EXAMPLES // n_examples)))

    def _store(self, fit, Xk, sv_class, sv_weight, started):
        """The fitted attributes from the native fit's dict; `sv_class`, `sv_weight`: the class
        index and weight of each support pattern."""
        k = len(self.classes_)
        support = fit["support"].astype(np.int64)
        self._beta = fit["coef"]
        self._finish_fit(dict(
            support=support, kernel_evals=fit["kernel_evals"], objective=np.array([fit["dual"]]),
            n_iter=np.array([fit["epochs"]]), converged=[True], intercept=np.zeros(k),
            dual_coef=np.ascontiguousarray(self._beta.T),
        ), Xk, started)
        self._sv_class = np.asarray(sv_class, dtype=np.int64)
        self._sv_weight = np.asarray(sv_weight, dtype=np.float64)
        self.dual_coef_ = self._public_coef(self._dual_coef_)
        self.intercept_ = self._intercept_
        self.n_support_ = np.bincount(self._sv_class, minlength=k).astype(np.int32)
        if "weights" in fit:
            self.coef_ = fit["weights"]
        self.dual_ = float(fit["dual"])
        self.duality_gap_ = float(fit["gap"])
        self.n_support_vectors_ = int(fit["support_vectors"])
        self.n_argmax_ = int(fit["argmax"])
        self.n_iter_ = int(fit["epochs"])
        self.dual_per_epoch_ = fit["dual_per_epoch"]
        self.gap_per_epoch_ = fit["gap_per_epoch"]
        self.steps_ = {name: int(fit[name]) for name in ("process_new", "process_old", "optimize", "steps")}
        if self.until_gap and not self.duality_gap_ < self.C:
            warn_not_converged(
                f"{type(self).__name__} stopped after {self.n_iter_} epochs with duality gap {self.duality_gap_:.4g}, not "
                f"below C={self.C}: increase epochs (until_gap stops as soon as the gap is below C).")

    def _n_support_groups(self):
        return np.zeros(0, dtype=np.int64)  # one independent output per class

    def _scores(self, X):
        """S_y(x) for every class, shape (n, n_classes)."""
        check_is_fitted(self)
        if hasattr(self, "coef_") and self._python_kernel is None:
            X = self._validate_X(X, reset=False)
            return np.asarray(X @ self.coef_.T)
        return self._native_decision(X)

    def decision_function(self, X):
        """Class scores S_y(x).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes) or (n_samples,)
            The class scores; for two classes, S_1(x) - S_0(x) (positive: ``classes_[1]``).
        """
        scores = self._scores(X)
        return scores[:, 1] - scores[:, 0] if len(self.classes_) == 2 else scores

    def predict(self, X):
        """Predicted class labels: the class of the largest score.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            A label of ``classes_`` per sample.
        """
        scores = self._scores(X)
        return self.classes_[np.argmax(scores, axis=1)]
