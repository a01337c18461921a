"""What SVCSearchCV and SVRSearchCV share (`_SearchCV`): their parameters and checks, the choice
between the native search and GridSearchCV, the results as GridSearchCV gives them, the refit and
the best estimator's methods. The estimator searched is the subclass's `_estimator_type_`."""

import numbers
import time
import warnings
from numbers import Real

import numpy as np
from sklearn import get_config
from sklearn.base import MetaEstimatorMixin, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import check_scoring, get_scorer
from sklearn.model_selection import GridSearchCV, ParameterGrid, check_cv
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from .._arrays import canonical_csr, is_sparse, native_cache_size
from .._guard import unchanged_on_failure
from .._options import BACKENDS, C_STARTS
from .._validation import InstanceOf, Options
from .dask_client import dask_client, without_client
from .estimator import BaseEstimator
from .search_plan import (
    _masked,
    _Plan,
    _predicts_only,
    _rank,
    _refit_one,
    _run_on_dask,
    _run_part,
    _scorers_take_weights,
)

# Grid parameters the native search varies, per estimator; a grid over anything else goes to GridSearchCV.
_NATIVE_KEYS = {"SVC": {"C", "kernel", "gamma", "degree", "coef0", "class_weight"},
                "SVR": {"C", "kernel", "gamma", "degree", "coef0", "epsilon"}}
DEFAULT_C = (0.1, 1.0, 10.0, 100.0, 1000.0)


def _estimator_has(name):
    def check(self):
        if hasattr(self, "best_estimator_"):
            return hasattr(self.best_estimator_, name)
        return hasattr(self._base(), name)

    return check


class _SearchCV(MetaEstimatorMixin, BaseEstimator):
    """What SVCSearchCV and SVRSearchCV share."""

    _estimator_type_ = None

    def __init__(self, estimator=None, param_grid=None, *, scoring=None, n_jobs=None, refit=True, cv=None, verbose=0,
                 error_score=np.nan, return_train_score=False, c_start="auto", backend="threads", client=None):
        self.estimator = estimator
        self.param_grid = param_grid
        self.scoring = scoring
        self.n_jobs = n_jobs
        self.refit = refit
        self.cv = cv
        self.verbose = verbose
        self.error_score = error_score
        self.return_train_score = return_train_score
        self.c_start = c_start
        self.backend = backend
        self.client = client

    # --- parameters -------------------------------------------------------------------------

    _parameter_constraints = {
        "estimator": "no_validation",  # an SVC (SVR) or None: checked by _base
        "param_grid": [InstanceOf((dict, list), "a dict or a list of dicts"), None],
        "scoring": "no_validation",  # checked by _scorers, as GridSearchCV takes it
        "n_jobs": ["n_jobs"],
        "refit": ["boolean", "str", "callable"],
        "cv": "no_validation",  # checked by check_cv
        "verbose": ["verbose"],
        "error_score": [Options(("raise",)), InstanceOf(Real, "a number")],
        "return_train_score": ["boolean"],
        "c_start": [Options(C_STARTS)],
        "backend": [Options(BACKENDS)],
        "client": "no_validation",  # checked with backend="dask", by dask_client
    }

    def _base(self):
        est = self._estimator_type_() if self.estimator is None else self.estimator
        if not isinstance(est, self._estimator_type_):
            raise TypeError(f"{type(self).__name__} searches a largemargin.{self._estimator_type_.__name__}, got {est!r}")
        return est

    def _grid(self):
        grid = {"C": list(DEFAULT_C)} if self.param_grid is None else self.param_grid
        candidates = list(ParameterGrid(grid))
        if not candidates:
            raise ValueError("param_grid holds no candidate")
        return candidates

    def _scorers(self, est):
        """{name: scorer} and whether several metrics were asked for."""
        s = self.scoring
        if s is None or isinstance(s, str) or callable(s):
            return {"score": check_scoring(est, scoring=s)}, False
        if isinstance(s, (list, tuple, set)):
            if not s or not all(isinstance(v, str) for v in s) or len(set(s)) != len(s):
                raise ValueError(f"scoring as a list must hold distinct metric names, got {s!r}")
            return {name: get_scorer(name) for name in s}, True
        if isinstance(s, dict):
            if not s:
                raise ValueError("scoring as a dict must not be empty")
            return {name: check_scoring(est, scoring=v) for name, v in s.items()}, True
        raise ValueError(f"scoring must be None, a string, a callable, a list or a dict, got {s!r}")

    def _check_refit_metric(self, metrics):
        if self.refit is not False and not callable(self.refit) and self.refit not in metrics:
            raise ValueError(
                f"with several metrics, refit must be False, a callable or one of the metrics {sorted(metrics)}, got {self.refit!r}"
            )

    def _native_blocker(self, est, candidates, scorers):
        """Why the native search cannot run this grid (None: it can)."""
        keys = set().union(*candidates)
        unknown = sorted(keys - set(est.get_params(deep=False)))
        if unknown:
            raise ValueError(f"Invalid parameter {unknown[0]!r} in param_grid for estimator {type(est).__name__}: "
                             f"its parameters are {sorted(est.get_params(deep=False))}")
        native = _NATIVE_KEYS[type(self)._estimator_type_.__name__]
        other = sorted(keys - native)
        if other:
            return f"the grid varies {', '.join(other)}: the native search varies {', '.join(sorted(native))}"
        if get_config().get("enable_metadata_routing", False):
            return "metadata routing is enabled (GridSearchCV routes sample_weight as requested)"
        if getattr(est, "solver", "smo") != "smo":
            return "solver='isda' has no warm start"
        if getattr(est, "probability", False):
            return "probability=True calibrates on inner folds"
        for cand in candidates:
            e = clone(est).set_params(**cand)
            e._validate_params()
            if e._native_kernel is None and e._composed_kernel is None:
                return f"the kernel {e.kernel!r} is computed in Python"
            if e._native_kernel == "precomputed":
                return "a precomputed kernel"
            if not np.isfinite(float(e.C)):
                return "C=inf (a hard margin) has no warm start along C"
        # before any work: a scorer that reads probabilities only would fail once every fold is fitted
        for name, scorer in scorers.items():
            if getattr(scorer, "_response_method", None) == "predict_proba":
                what = repr(self.scoring) if name == "score" else repr(name)
                raise AttributeError(
                    f"scoring {what} needs predict_proba: the search scores its models through predict and "
                    "decision_function; set probability=True on the estimator (the grid then runs through "
                    "GridSearchCV) or choose a scorer that reads decision values"
                )
        return None

    @staticmethod
    def _weightless_fold(est, candidates, splits, y_idx, n_classes, sample_weight):
        """The first fold in which some class has no training weight (its examples' sample weights
        all zero, or a zero class weight in some candidate): the native search refuses such a
        problem, a fit trains without that class."""
        for cand in candidates:
            cw = clone(est).set_params(**cand).class_weight
            if isinstance(cw, dict) and any(v == 0 for v in cw.values()):
                return 0
        if sample_weight is None:
            return None
        sw = np.asarray(sample_weight, dtype=np.float64).ravel()
        if sw.shape != y_idx.shape:
            return None  # refused with its own message where the weights are checked
        for f, (train, _) in enumerate(splits):
            if np.any(np.bincount(y_idx[train], weights=sw[train], minlength=n_classes) <= 0):
                return f
        return None

    # --- fitting ----------------------------------------------------------------------------

    @unchanged_on_failure
    def fit(self, X, y=None, *, groups=None, sample_weight=None):
        """Score every candidate of the grid by cross-validation, then refit the best.

        The best candidate is refitted on all of X and y (unless ``refit=False``).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors.
        y : array-like of shape (n_samples,)
            Class labels or real targets.
        groups : array-like of shape (n_samples,), default=None
            Group labels for a group-aware ``cv`` splitter.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights the training rows of every fold and the refit, as ``GridSearchCV`` passes it to
            ``fit`` (and the scores, for scorers that take weights).

        Returns
        -------
        self : object
            The fitted search.
        """
        self._validate_params()
        est = self._base()
        scorers, multimetric = self._scorers(est)
        if multimetric:
            self._check_refit_metric(list(scorers))
        candidates = self._grid()
        reason = self._native_blocker(est, candidates, scorers)
        if reason is None:
            Xv, yv = validate_data(
                self, X, y, accept_sparse=["csr", "csc", "coo"], dtype=[np.float64, np.float32], order="C",
                accept_large_sparse=True, y_numeric=not is_classifier(est),
            )
            if is_sparse(Xv):
                Xv = canonical_csr(Xv)
            splits = list(check_cv(self.cv, yv, classifier=is_classifier(est)).split(Xv, yv, groups))
            if is_classifier(est):
                check_classification_targets(yv)
                classes, y_idx = np.unique(yv, return_inverse=True)
                if len(classes) < 2:
                    raise ValueError(f"the search needs at least two classes, got only {classes.tolist()}")
                missing = [f for f, (train, _) in enumerate(splits) if len(np.unique(y_idx[train])) < len(classes)]
                weightless = self._weightless_fold(est, candidates, splits, y_idx, len(classes), sample_weight)
                if missing:
                    reason = f"fold {missing[0]} has no training example of some class"
                elif weightless is not None:
                    reason = f"fold {weightless} has no training example of positive weight in some class"
                elif len(classes) > 2 and est.decision_function_shape == "ovo" and not self._votes_suffice(est, scorers):
                    reason = "a scorer may read one-vs-one decision values (decision_function_shape='ovo')"
        if reason is not None:
            warnings.warn(f"{type(self).__name__} runs this grid with GridSearchCV: {reason}", UserWarning, stacklevel=2)
            return self._fit_with_gridsearch(est, X, y, groups, sample_weight)
        self.multimetric_ = multimetric
        self.scorer_ = scorers if multimetric else scorers["score"]
        self.n_splits_ = len(splits)
        sw = _check_sample_weight(sample_weight, Xv, dtype=np.float64, ensure_non_negative=True)
        plan = _Plan(est, candidates, Xv, yv, splits, classes if is_classifier(est) else None, self.return_train_score)
        task = dict(classes=y_idx.astype(np.int64), n_classes=len(classes)) if is_classifier(est) else dict(targets=np.ascontiguousarray(yv, dtype=np.float64))
        native = dict(
            tol=float(est.tol), shrinking=bool(est.shrinking), cache_size=native_cache_size(est.cache_size, Xv), max_iter=int(est.max_iter),
            selection=est.selection, warm_start=self.c_start, n_jobs=self.n_jobs, verbose=bool(self.verbose),
        )
        plan.score_weight = sw if sample_weight is not None and _scorers_take_weights(scorers, self) else None
        # one-vs-rest scores of every model (n_classes values per test row) only for scorers that may read them
        native["ovr_scores"] = not self._votes_suffice(est, scorers)
        client, own = dask_client(self.client) if self.backend == "dask" else (None, False)
        try:
            if client is not None:
                outcome = _run_on_dask(client, plan, Xv, yv, sw, task, native, scorers)
            else:
                outcome = _run_part(plan, range(len(plan.settings)), Xv, yv, sw, task, native, scorers)
            self._store_results(plan, outcome)
            self._warn_unconverged(outcome, est)
            self._refit(est, X, y, sample_weight, client)
        finally:
            if own:
                client.close()
        return self

    def _votes_suffice(self, est, scorers):
        """Whether the scorers read predictions only, and predictions are the votes (no break_ties)."""
        return not getattr(est, "break_ties", False) and all(_predicts_only(s, self.scoring) for s in scorers.values())

    def _warn_unconverged(self, outcome, est):
        if not all(outcome["converged"]):
            warnings.warn(
                f"Solver terminated early (max_iter={est.max_iter}) for some candidates and folds. Consider "
                "pre-processing your data with StandardScaler or MinMaxScaler.",
                ConvergenceWarning, stacklevel=4,
            )

    def _fit_with_gridsearch(self, est, X, y, groups, sample_weight):
        search = GridSearchCV(
            est, self.param_grid if self.param_grid is not None else {"C": list(DEFAULT_C)}, scoring=self.scoring,
            n_jobs=None, refit=self.refit, cv=self.cv, verbose=self.verbose, error_score=self.error_score,
            return_train_score=self.return_train_score,
        )
        fit_params = {} if sample_weight is None else {"sample_weight": sample_weight}
        if groups is not None:
            fit_params["groups"] = groups
        search.fit(X, y, **fit_params)
        for name, value in vars(search).items():
            if name.endswith("_") and not name.startswith("_"):
                setattr(self, name, value)
        self.n_kernel_evals_ = None
        self.native_ = False
        return self

    def _store_results(self, plan, outcome):
        n_cand, n_splits = len(plan.candidates), self.n_splits_
        metrics = outcome["metrics"]
        if metrics != ["score"] and not self.multimetric_:
            # a callable scorer that returns a dict of scores: several metrics, as GridSearchCV takes it
            self.multimetric_ = True
            self._check_refit_metric(metrics)
        res = {}
        for kind in ("fit", "score"):
            t = outcome[f"{kind}_time"]
            res[f"mean_{kind}_time"] = t.mean(axis=1)
            res[f"std_{kind}_time"] = t.std(axis=1)
        for name in sorted(set().union(*plan.candidates)):
            values = [c.get(name) for c in plan.candidates]
            mask = [name not in c for c in plan.candidates]
            res[f"param_{name}"] = _masked(values, mask)
        res["params"] = plan.candidates
        sets = ("test", "train") if self.return_train_score else ("test",)
        for which in sets:
            for metric in metrics:
                suffix = metric if self.multimetric_ else "score"
                scores = outcome[f"{which}_{metric}"]
                for f in range(n_splits):
                    res[f"split{f}_{which}_{suffix}"] = scores[:, f]
                res[f"mean_{which}_{suffix}"] = scores.mean(axis=1)
                res[f"std_{which}_{suffix}"] = scores.std(axis=1)
                if which == "test":
                    res[f"rank_test_{suffix}"] = _rank(res[f"mean_test_{suffix}"])
        self.cv_results_ = res
        self.n_kernel_evals_ = int(outcome["kernel_evals"])
        self.search_stats_ = {
            "kernel_evals": int(outcome["kernel_evals"]),
            "cached_row_hits": int(outcome["row_hits"]),
            "kernel_rows_computed": int(outcome["row_misses"]),
            "smo_iterations": int(outcome["n_iter"].sum()),
        }
        self.n_iter_ = outcome["n_iter"]
        self.native_ = True
        assert all(len(v) == n_cand for v in res.values())

    def _best_index(self):
        if callable(self.refit):
            best = self.refit(self.cv_results_)
            if not isinstance(best, numbers.Integral) or not 0 <= best < len(self.cv_results_["params"]):
                raise IndexError("best_index_ returned by the refit callable is not a candidate's index")
            return int(best)
        metric = self.refit if self.multimetric_ and self.refit is not False else "score"
        return int(self.cv_results_[f"rank_test_{metric}"].argmin())

    def _refit(self, est, X, y, sample_weight, client):
        # as GridSearchCV: the best candidate is named when refitting or when there is one metric
        if self.refit is not False or not self.multimetric_:
            self.best_index_ = self._best_index()
            self.best_params_ = self.cv_results_["params"][self.best_index_]
            if not callable(self.refit):
                metric = self.refit if self.multimetric_ else "score"
                self.best_score_ = float(self.cv_results_[f"mean_test_{metric}"][self.best_index_])
        if self.refit is False:
            return
        started = time.perf_counter()
        params = {} if sample_weight is None else {"sample_weight": sample_weight}
        if client is not None:
            self.best_estimator_ = client.submit(_refit_one, est, self.best_params_, X, y, params, pure=False).result()
        else:
            self.best_estimator_ = _refit_one(est, self.best_params_, X, y, params)
        self.refit_time_ = time.perf_counter() - started

    def __getstate__(self):
        return without_client(super().__getstate__())

    # --- the refitted model ---------------------------------------------------------------

    def _check_refit(self, method):
        check_is_fitted(self)
        if not hasattr(self, "best_estimator_"):
            raise AttributeError(
                f"This {type(self).__name__} instance was initialized with refit=False. {method} is available only "
                "after refitting on the best parameters."
            )

    @property
    def classes_(self):
        self._check_refit("classes_")
        return self.best_estimator_.classes_

    @available_if(_estimator_has("predict"))
    def predict(self, X):
        """Predictions of ``best_estimator_`` (refitted on all the data) for X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            ``best_estimator_.predict(X)``.
        """
        self._check_refit("predict")
        return self.best_estimator_.predict(X)

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X):
        """decision_function of ``best_estimator_`` for X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray
            ``best_estimator_.decision_function(X)``.
        """
        self._check_refit("decision_function")
        return self.best_estimator_.decision_function(X)

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X):
        """predict_proba of ``best_estimator_`` for X (needs probability=True).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``best_estimator_.predict_proba(X)``.
        """
        self._check_refit("predict_proba")
        return self.best_estimator_.predict_proba(X)

    @available_if(_estimator_has("predict_log_proba"))
    def predict_log_proba(self, X):
        """predict_log_proba of ``best_estimator_`` for X (needs probability=True).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            ``best_estimator_.predict_log_proba(X)``.
        """
        self._check_refit("predict_log_proba")
        return self.best_estimator_.predict_log_proba(X)

    def score(self, X, y=None):
        """The refitted model's score on (X, y) by the scorer the search ranked with.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.
        y : array-like of shape (n_samples,), default=None
            Their labels or targets.

        Returns
        -------
        float
            The score of ``best_estimator_`` (with several metrics, the one named by ``refit``).
        """
        self._check_refit("score")
        if isinstance(self.scorer_, dict):
            return self.scorer_[self.refit](self.best_estimator_, X, y)
        score = self.scorer_(self.best_estimator_, X, y)
        return score[self.refit] if self.multimetric_ else score

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        base = self._base()
        base_tags = base.__sklearn_tags__()
        tags.estimator_type = base_tags.estimator_type
        tags.input_tags.sparse = True
        if tags.classifier_tags is not None and base_tags.classifier_tags is not None:
            tags.classifier_tags = base_tags.classifier_tags
        if tags.regressor_tags is not None and base_tags.regressor_tags is not None:
            tags.regressor_tags = base_tags.regressor_tags
        return tags
