"""The base of the online kernel classifiers (LaSVM and the baselines): their binary problems
(one-vs-one pairs or one-vs-rest), the native fit's results as the fitted expansion, prediction."""

import time
from numbers import Integral

import numpy as np
from sklearn.base import ClassifierMixin

from .._arrays import to_native
from .._checks import draw_seed
from .._guard import unchanged_on_failure
from .._multiclass import ovr_from_ovo, pairs
from .._validation import Interval
from .kernel_svm import _BaseSVM
from .streaming import _labelled


class _OnlineClassifier(ClassifierMixin, _BaseSVM):
    """What the online classifiers share: one-vs-rest problems, the fitted expansion, prediction."""

    _task = "classification"

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None):
        """Fit on X (n_samples, n_features; sparse allowed) and labels y."""
        started = time.perf_counter()
        X, Xk, y_idx, weight = _labelled(self, X, y, sample_weight)
        self._solve(X, Xk, y_idx, float(getattr(self, "C", 1.0)) * weight, None, started)
        return self

    def _run(self, Xk, labels, sample_c, kernel, gamma, coef0, degree, seed, warm, finishing, oracle):
        """The native fit: ([dict per problem], kernel evaluations)."""
        raise NotImplementedError

    _parameter_constraints = {**_BaseSVM._parameter_constraints, "epochs": [Interval(Integral, 1, None)]}

    def _one_vs_one(self):
        """Whether the problems are one-vs-one pairs: the fitted model's layout once fitted (a
        later set_params does not change what was fitted), else the parameter."""
        if hasattr(self, "_fitted_pairs"):
            return self._fitted_pairs
        return len(self.classes_) > 2 and getattr(self, "multiclass", "ovr") == "ovo"

    def _problems(self):
        """Each binary problem as (positive class positions, negative ones, or None for all the
        others): classes_[1] against classes_[0] for two classes; otherwise one-vs-one pairs
        (LIBSVM's order and sign: a positive decision votes for the first class) or one-vs-rest."""
        k = len(self.classes_)
        if k == 2:
            return [(1, None)]
        if self._one_vs_one():
            return list(pairs(k))
        return [(c, None) for c in range(k)]

    def _label(self, problem, c):
        """Class position c's label in a binary problem: +1, -1, or 0 when not part of it."""
        pos, neg = problem
        return 1.0 if c == pos else (-1.0 if neg is None or c == neg else 0.0)

    def _problem_labels(self, y_idx):
        """One row of labels per binary problem (NaN where the class is not known yet)."""
        k = len(self.classes_)
        rows = []
        for problem in self._problems():
            table = np.array([self._label(problem, c) for c in range(k)])
            rows.append(np.where(y_idx < 0, np.nan, table[np.clip(y_idx, 0, k - 1)]))
        return np.ascontiguousarray(rows, dtype=np.float64)

    def _solve(self, X, Xk, y_idx, sample_c, warm, started, finishing=None, oracle=None):
        """The native fit on class positions `y_idx` (-1: not known, for `oracle`)."""
        k = len(self.classes_)
        if warm is None:
            self.__dict__.pop("_fitted_pairs", None)  # a new model: the parameter decides
        pairs_now = self._one_vs_one()
        labels = self._problem_labels(y_idx)
        seed = draw_seed(self.random_state)
        if self._python_kernel is not None:
            self._X_fit = X
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        problems, evals = self._run(
            to_native(Xk), labels, np.ascontiguousarray(sample_c, dtype=np.float64), kernel, gamma, coef0, degree,
            seed, warm, finishing, oracle,
        )
        support = np.unique(np.concatenate([p["support"] for p in problems])).astype(np.int64)
        coef = np.zeros((len(problems), len(support)))
        for row, p in enumerate(problems):
            coef[row, np.searchsorted(support, p["support"])] = p["coef"]
        self._finish_fit(dict(
            support=support, kernel_evals=evals, objective=np.array([p["objective"] for p in problems]),
            n_iter=np.array([p["processed"] for p in problems]),
            converged=[self._converged(p) for p in problems],
            intercept=np.array([p["bias"] for p in problems]), dual_coef=coef,
        ), Xk, started)
        self._sv_class = y_idx[support]
        self._sv_c = np.asarray(sample_c, dtype=np.float64)[support]
        self._fitted_pairs = pairs_now
        self.n_support_ = np.bincount(self._sv_class, minlength=k).astype(np.int32)
        self.intercept_ = self._intercept_
        self.dual_coef_ = self._public_coef(self._dual_coef_)
        self._after_fit(problems, oracle)

    def _converged(self, problem):
        return True

    def _after_fit(self, problems, oracle):
        pass

    def _n_support_groups(self):
        return np.zeros(0, dtype=np.int64)  # independent outputs, one per binary problem

    def decision_function(self, X):
        """Decision values of the binary problems, or per-class scores.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,), (n_samples, n_classes) or (n_samples, n_pairs)
            The values f(x) for two classes (positive: ``classes_[1]``); for more, (n, n_classes)
            scores, or with one-vs-one pairs and ``decision_function_shape='ovo'`` the (n, n_pairs)
            pair decisions (positive: the pair's first class).
        """
        dec = self._native_decision(X)
        if len(self.classes_) == 2:
            return dec.ravel()
        shape = getattr(self, "decision_function_shape", "ovr")
        if not self._one_vs_one():
            if shape == "ovo":
                raise ValueError("decision_function_shape='ovo' needs a model fitted with multiclass='ovo' "
                                 "(one-vs-rest has no pair decisions)")
            return dec
        return ovr_from_ovo(dec, len(self.classes_)) if shape == "ovr" else dec

    def predict(self, X):
        """Predicted class labels.

        For two classes, ``classes_[1]`` where f(x) > 0. For more, the class of the largest
        one-vs-rest decision; with one-vs-one pairs, the most votes, equal votes going to the
        larger summed confidence.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            A label of ``classes_`` per sample.
        """
        dec = self._native_decision(X)
        if len(self.classes_) == 2:
            return self.classes_[(dec.ravel() > 0).astype(int)]
        if self._one_vs_one():
            # the most votes; equal votes go to the larger summed confidence
            dec = ovr_from_ovo(dec, len(self.classes_))
        return self.classes_[np.argmax(dec, axis=1)]
