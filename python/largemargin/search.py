"""Cross-validated search of C and the kernel's settings for ``SVC`` and ``SVR``: ``SVCSearchCV``
and ``SVRSearchCV`` behave as scikit-learn's ``GridSearchCV`` over such an estimator (same
``cv_results_`` keys, ``best_params_``, ``best_estimator_``, scorers), but run the whole grid in
one native call that shares what independent fits compute again and again:

- one kernel engine per kernel setting, whose rows (over every example) serve every fold and
  every C from one bounded cache;
- along increasing C, each fold's problem starts from the previous C's solution;
- each fold's kernel values between its test rows and the support vectors of all its models are
  computed once.

A grid the native search cannot run (a Python kernel, ``solver="isda"``, ``probability=True``, a
grid over other parameters, a fold missing a class) is run by ``GridSearchCV`` itself, with a
warning that says why.
"""

import inspect
import numbers
import time
import warnings
from collections import namedtuple
from numbers import Real

import numpy as np
from scipy.stats import rankdata
from sklearn import get_config
from sklearn.base import ClassifierMixin, MetaEstimatorMixin, RegressorMixin, clone, is_classifier
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import check_scoring, get_scorer
from sklearn.model_selection import GridSearchCV, ParameterGrid, check_cv
from sklearn.utils import _safe_indexing, compute_class_weight
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from . import _native
from ._arrays import canonical_csr, is_sparse, to_native
from ._base import dask_client, without_client
from ._base.estimator import BaseEstimator
from ._guard import unchanged_on_failure
from ._options import BACKENDS, C_STARTS, GAMMA_KERNELS
from ._validation import InstanceOf, Options
from .svm import SVC, SVR

# Grid parameters the native search varies, per estimator; a grid over anything else goes to GridSearchCV.
_NATIVE_KEYS = {"SVC": {"C", "kernel", "gamma", "degree", "coef0", "class_weight"},
                "SVR": {"C", "kernel", "gamma", "degree", "coef0", "epsilon"}}
DEFAULT_C = (0.1, 1.0, 10.0, 100.0, 1000.0)


class _FoldClassifier(ClassifierMixin, BaseEstimator):
    """A model of the search as a scorer sees it: its outputs on one fold's rows, computed by the
    native search. Answers for those rows only."""

    def __init__(self, classes, decision, predicted, break_ties=False, decision_function_shape="ovr"):
        self.classes = classes
        self.decision = decision
        self.predicted = predicted
        self.break_ties = break_ties
        self.decision_function_shape = decision_function_shape

    @property
    def classes_(self):
        return self.classes

    def _rows(self, X):
        rows = len(self.decision) if len(self.classes) == 2 else len(self.predicted)
        if (X.shape[0] if hasattr(X, "shape") else len(X)) != rows:
            raise ValueError("a search model answers for the rows of its fold only")

    def predict(self, X):
        self._rows(X)
        if len(self.classes) == 2:
            # LIBSVM's sign: a positive decision means classes_[0]
            return self.classes[(self.decision <= 0).astype(int)]
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")
        if self.break_ties:
            return self.classes[np.argmax(self.decision, axis=1)]
        return self.classes[self.predicted]

    def decision_function(self, X):
        self._rows(X)
        if len(self.classes) == 2:
            return -self.decision
        if self.decision.ndim != 2:
            raise RuntimeError("the search kept no one-vs-rest scores: it found that no scorer reads them")
        if self.decision_function_shape == "ovo":
            raise ValueError("the search scores one-vs-rest decision values: set decision_function_shape='ovr'")
        return self.decision


class _FoldRegressor(RegressorMixin, BaseEstimator):
    """`_FoldClassifier` for regression: the predictions on one fold's rows."""

    def __init__(self, decision):
        self.decision = decision

    def predict(self, X):
        if X.shape[0] != len(self.decision):
            raise ValueError("a search model answers for the rows of its fold only")
        return self.decision


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
                if missing:
                    reason = f"fold {missing[0]} has no training example of some class"
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
            tol=float(est.tol), shrinking=bool(est.shrinking), cache_size=float(est.cache_size), max_iter=int(est.max_iter),
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


# One setting of everything but C as the native search takes it (a kernel and class weights per
# fold, or one for all), with the estimator it stands for.
_Setting = namedtuple("_Setting", "kernels class_weight cs epsilon estimator")


class _Plan:
    """The grid as the native search takes it: candidates grouped by everything but C (one
    setting each, its Cs increasing), with the kernels and class weights each fold's fit would
    derive from its training rows (gamma='scale', class_weight='balanced')."""

    def __init__(self, est, candidates, X, y, splits, classes, train_scores):
        self.candidates = candidates
        self.splits = splits
        self.classifier = classes is not None
        self.classes = classes
        self.kernels, kernel_at = [], {}
        self.settings, self.where = [], [None] * len(candidates)  # where[c] = (setting, C position)
        groups = []
        for ci, cand in enumerate(candidates):
            others = {k: v for k, v in cand.items() if k != "C"}
            for g, (o, members) in enumerate(groups):
                if _same(o, others):
                    members.append(ci)
                    break
            else:
                groups.append((others, [ci]))
        for others, members in groups:
            e = clone(est).set_params(**others)
            e._validate_params()
            cs = sorted({float(candidates[ci].get("C", est.C)) for ci in members})
            for ci in members:
                self.where[ci] = (len(self.settings), cs.index(float(candidates[ci].get("C", est.C))))
            kernels = []
            for train, _ in splits if e.gamma == "scale" else splits[:1]:
                # (gamma='scale' from each fold's training rows, as a fit on them)
                e._gamma = e._resolve_gamma(X[train]) if e._native_kernel in GAMMA_KERNELS else 0.0
                kernel, gamma, coef0, degree = e._kernel_args()
                key = (repr(kernel), gamma, coef0, degree)
                if key not in kernel_at:
                    kernel_at[key] = len(self.kernels)
                    self.kernels.append((kernel, gamma, coef0, degree))
                kernels.append(kernel_at[key])
            if self.classifier:
                balanced = isinstance(e.class_weight, str)
                ys = [y[train] for train, _ in splits] if balanced else [y]
                class_weight = [list(map(float, compute_class_weight(e.class_weight, classes=classes, y=yf))) for yf in ys]
                epsilon = 0.0
            else:
                class_weight = [[1.0]]  # (epsilon checked by e._validate_params)
                epsilon = float(e.epsilon)
            self.settings.append(_Setting(kernels, class_weight, cs, epsilon, e))
        self.folds = [
            (np.asarray(train, dtype=np.int64), np.asarray(np.concatenate([test, train]) if train_scores else test, dtype=np.int64))
            for train, test in splits
        ]
        self.train_scores = train_scores
        self.score_weight = None  # the rows' sample_weight, when the scorers weigh by it

    def native_settings(self, which):
        return [(st.kernels, st.class_weight, st.cs, st.epsilon) for st in (self.settings[s] for s in which)]


def _predicts_only(scorer, scoring):
    """Whether a scorer reads the models' predictions only (accuracy and its kind, and the
    estimator's own score, which is accuracy); a callable might read anything."""
    return scoring is None or getattr(scorer, "_response_method", None) == "predict"


def _scorers_take_weights(scorers, search):
    """Whether the scores weigh the rows by sample_weight: as GridSearchCV does (scikit-learn >= 1.7:
    when some scorer accepts them, with its warning for those that do not)."""
    if not hasattr(GridSearchCV, "_check_scorers_accept_sample_weight"):
        return False
    accepts = {}
    for name, scorer in scorers.items():
        if hasattr(scorer, "_accept_sample_weight"):
            accepts[name] = scorer._accept_sample_weight()
        else:
            accepts[name] = "sample_weight" in inspect.signature(scorer).parameters
        if not accepts[name]:
            warnings.warn(
                f"The scoring {name}={scorer} does not support sample_weight, which may lead to statistically "
                f"incorrect results when fitting {search} with sample_weight. ",
                UserWarning, stacklevel=3,
            )
    return any(accepts.values()) if len(scorers) > 1 else accepts[next(iter(scorers))]


def _same(a, b):
    if a.keys() != b.keys():
        return False
    for k in a:
        u, v = a[k], b[k]
        if type(u) is not type(v):
            return False
        try:
            if u != v:
                return False
        except ValueError:  # arrays
            return False
    return True


def _run_part(plan, which, X, y, sw, task, native, scorers):
    """The native search over the settings `which`, scored: per candidate of those settings and
    per fold, the scores (test, and train if asked), fit and score times, iterations."""
    which = list(which)
    r = _native.cross_validate_svm(
        to_native(X), **task, sample_weight=sw, kernels=plan.kernels,
        settings=plan.native_settings(which), folds=plan.folds, **native,
    )
    n_splits = len(plan.splits)
    n_cand = len(plan.candidates)
    out = {"fit_time": np.full((n_cand, n_splits), np.nan), "score_time": np.full((n_cand, n_splits), np.nan),
           "n_iter": np.zeros(n_cand, dtype=np.int64), "converged": [], "kernel_evals": r["kernel_evals"],
           "row_hits": r["row_hits"], "row_misses": r["row_misses"]}
    out["metrics"] = []

    def record(which, metric, ci, f, value):
        if metric not in out["metrics"]:
            out["metrics"].append(metric)
        key = f"{which}_{metric}"
        if key not in out:
            out[key] = np.full((n_cand, n_splits), np.nan)
        out[key][ci, f] = value
    base = {s: i for i, s in enumerate(which)}
    point_at = []
    offset = 0
    for s in which:
        point_at.append(offset)
        offset += n_splits * len(plan.settings[s].cs)
    rows = {}
    for ci, (s, cpos) in enumerate(plan.where):
        if s not in base:
            continue
        n_c, e = len(plan.settings[s].cs), plan.settings[s].estimator
        for f, (train, test) in enumerate(plan.splits):
            p = point_at[base[s]] + f * n_c + cpos
            dec, pred = r["decision"][p], r["predicted"][p]
            m = len(test)
            parts = [("test", test, slice(0, m))] + ([("train", train, slice(m, None))] if plan.train_scores else [])
            started = time.perf_counter()
            for name, idx, part in parts:
                if (f, name) not in rows:
                    weight = {} if plan.score_weight is None else {"sample_weight": plan.score_weight[idx]}
                    rows[(f, name)] = (_safe_indexing(X, idx), _safe_indexing(y, idx), weight)
                Xs, ys, weight = rows[(f, name)]
                if plan.classifier:
                    model = _FoldClassifier(plan.classes, dec[part], pred[part] if len(pred) else pred,
                                            e.break_ties, e.decision_function_shape)
                else:
                    model = _FoldRegressor(dec[part])
                for metric, scorer in scorers.items():
                    try:
                        value = scorer(model, Xs, ys, **weight)
                    except AttributeError as e:
                        raise AttributeError(
                            f"scoring {metric!r}: {e}. The search scores its models through predict and "
                            "decision_function; a scorer that needs predict_proba needs probability=True (which "
                            "runs through GridSearchCV)"
                        ) from e
                    if isinstance(value, dict):  # a callable returning several scores
                        for sub, v in value.items():
                            record(name, sub, ci, f, v)
                    else:
                        record(name, metric, ci, f, value)
            out["fit_time"][ci, f] = r["fit_seconds"][p]
            out["score_time"][ci, f] = r["score_seconds"][p] + time.perf_counter() - started
            out["n_iter"][ci] += r["n_iter"][p]
        out["converged"].extend(r["converged"][point_at[base[s]]:point_at[base[s]] + n_splits * n_c])
    return out


def _run_on_dask(client, plan, X, y, sw, task, native, scorers):
    """One task per kernel (the settings sharing it, every fold and C): the data goes to the
    workers once, only the scores come back."""
    by_kernel = {}
    for s, setting in enumerate(plan.settings):
        by_kernel.setdefault(setting.kernels[0], []).append(s)
    shipped = client.scatter([X, y, sw], broadcast=True, hash=False)
    futures = [client.submit(_run_part, plan, which, *shipped, task, native, scorers, pure=False) for which in by_kernel.values()]
    parts = client.gather(futures)
    out = parts[0]
    for part in parts[1:]:
        for key, v in part.items():
            if isinstance(v, np.ndarray) and v.dtype.kind == "f":
                have = ~np.isnan(v)
                out[key][have] = v[have]
            elif key == "n_iter":
                out[key] = out[key] + v
            elif key == "converged":
                out[key] = out[key] + v
            elif key == "metrics":
                continue
            else:
                out[key] += v
    return out


def _refit_one(est, params, X, y, fit_params):
    return clone(est).set_params(**params).fit(X, y, **fit_params)


def _masked(values, mask):
    arr = np.ma.MaskedArray(np.empty(len(values), dtype=object), mask=mask)
    for i, v in enumerate(values):
        arr[i] = v
    kinds = {type(v) for v, m in zip(values, mask) if not m}
    if kinds and all(issubclass(k, (numbers.Real,)) and not issubclass(k, bool) for k in kinds):
        arr = np.ma.MaskedArray(np.array([v if not m else 0 for v, m in zip(values, mask)]), mask=mask)
    return arr


def _rank(means):
    if np.isnan(means).all():
        return np.ones(len(means), dtype=np.int32)
    filled = np.where(np.isnan(means), np.nanmin(means) - 1, means)
    return rankdata(-filled, method="min").astype(np.int32)


class SVCSearchCV(ClassifierMixin, _SearchCV):
    """Cross-validated grid search for ``largemargin.SVC``, at cache speed.

    Behaves as ``GridSearchCV(estimator, param_grid, ...)``: the same ``cv_results_`` keys,
    ``best_params_``, ``best_score_``, ``best_index_``, ``best_estimator_`` (refitted on all the
    data), ``scorer_``, ``n_splits_``, ``refit_time_``, ``multimetric_``; ``predict`` and friends
    use ``best_estimator_``. The grid is run in one native call: for each kernel setting one
    kernel cache over all rows serves every fold and every C, each fold's problem starts from the
    previous C's solution, and the scores come from decision values computed once per fold. A grid
    the native search cannot run (a Python kernel, ``solver="isda"``, ``probability=True``, a grid
    over other parameters, a fold missing a class) is run by ``GridSearchCV`` itself, with a
    warning that says why.

    Parameters
    ----------
    estimator : SVC, default=None
        The model whose parameters are searched (``SVC()`` if None): its ``tol``, ``cache_size``
        (the shared cache's budget for the whole search), ``max_iter``, ``shrinking`` and
        ``selection`` apply to every fit.
    param_grid : dict or list of dicts, default=None
        As ``GridSearchCV``'s. The native search varies ``C``, ``kernel``, ``gamma``, ``degree``,
        ``coef0`` and ``class_weight``; a grid over anything else runs through ``GridSearchCV``
        (warned). None: ``{"C": [0.1, 1, 10, 100, 1000]}``.
    scoring : str, callable, list or dict, default=None
        As ``GridSearchCV``'s (None: accuracy). Scorers see each fold's model through its
        predictions and ``decision_function`` (one-vs-rest shape for several classes); a scorer
        that needs ``predict_proba`` needs ``probability=True``, which runs through ``GridSearchCV``.
    n_jobs : int, default=None
        Threads of the native search (None: every core). Results do not depend on it.
    refit : bool, str or callable, default=True
        As ``GridSearchCV``'s: refit the best candidate on all the data as ``best_estimator_``;
        with several metrics, the name of the one that ranks, or a callable that takes
        ``cv_results_`` and returns the best index; False: no refit (and no `predict`).
    cv : int, cross-validation generator or iterable, default=None
        As ``GridSearchCV``'s (None: 5-fold stratified).
    verbose : int, default=0
        Above 0: a progress line every 2 s while the native search runs (GridSearchCV's own messages
        when the grid runs through it).
    error_score : 'raise' or float, default=np.nan
        Used when the grid runs through ``GridSearchCV``; the native search raises on a failure.
    return_train_score : bool, default=False
        Also score every model on its training folds (the ``train`` keys of ``cv_results_``).
    c_start : {'auto', 'keep', 'scale', 'cold'}, default='auto'
        How each C after the first starts: from the previous solution as it is ('keep': feasible,
        since the box grew), scaled by the ratio of the Cs ('scale': the coefficients at the
        bound stay there), whichever of the two has the higher dual objective ('auto'; no kernel
        value is needed to tell), or from zero as an independent fit ('cold', the same models as
        ``GridSearchCV`` fits).
    backend : {'threads', 'dask'}, default='threads'
        'dask': one task per kernel setting on a ``dask.distributed`` cluster (the current client,
        or ``client``), only scores and the refitted model coming back.
    client : distributed.Client or str, default=None
        The cluster for ``backend='dask'``: a Client, or a scheduler address (a Client is opened
        for the fit and closed after it); None: the current client. A pickle leaves a Client out.

    Attributes
    ----------
    cv_results_ : dict of ndarray
        As ``GridSearchCV``'s: per candidate, the parameters, fit and score times, each split's
        score, their mean, standard deviation and rank.
    best_estimator_ : SVC
        The best candidate refitted on all the data (not with ``refit=False``).
    best_score_ : float
        The best candidate's mean cross-validated score.
    best_params_ : dict
        The best candidate's parameters.
    best_index_ : int
        The best candidate's index into ``cv_results_``.
    scorer_ : callable or dict
        The scorer, or the scorers by name with several metrics.
    n_splits_ : int
        The number of folds.
    refit_time_ : float
        Seconds the refit took.
    multimetric_ : bool
        Whether several metrics were scored.
    classes_ : ndarray of shape (n_classes,)
        The class labels of ``best_estimator_``.
    n_kernel_evals_ : int
        Kernel values computed by the whole search (None when it ran through GridSearchCV).
    search_stats_ : dict
        Kernel evaluations, rows served from the shared cache and rows computed, SMO iterations.
    n_iter_ : ndarray of shape (n_candidates,)
        SMO iterations per candidate, summed over the folds (native search only).
    native_ : bool
        Whether the native search ran (False: GridSearchCV did).
    n_features_in_ : int
        Features seen in `fit`.

    See Also
    --------
    SVC : The estimator searched.
    SVRSearchCV : The same search for `SVR`.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from largemargin import SVC, SVCSearchCV
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> search = SVCSearchCV(SVC(), {"C": [0.1, 1, 10], "gamma": [0.01, 0.1]}, cv=3).fit(X, y)
    >>> sorted(search.best_params_)
    ['C', 'gamma']
    """

    _estimator_type_ = SVC
    score = _SearchCV.score  # the search's scorer, not ClassifierMixin's accuracy


class SVRSearchCV(RegressorMixin, _SearchCV):
    """Cross-validated grid search for ``largemargin.SVR``, at cache speed.

    As `SVCSearchCV` (see there), with ``epsilon`` among the parameters the native search varies,
    R^2 as the default score and 5-fold ``KFold`` as the default ``cv``.

    Parameters
    ----------
    estimator : SVR, default=None
        The model whose parameters are searched (``SVR()`` if None): its ``tol``, ``cache_size``,
        ``max_iter``, ``shrinking`` and ``selection`` apply to every fit.
    param_grid : dict or list of dicts, default=None
        As ``GridSearchCV``'s. The native search varies ``C``, ``kernel``, ``gamma``, ``degree``,
        ``coef0`` and ``epsilon``; a grid over anything else runs through ``GridSearchCV``
        (warned). None: ``{"C": [0.1, 1, 10, 100, 1000]}``.
    scoring : str, callable, list or dict, default=None
        As ``GridSearchCV``'s (None: R^2).
    n_jobs : int, default=None
        As in `SVCSearchCV`.
    refit : bool, str or callable, default=True
        As in `SVCSearchCV`.
    cv : int, cross-validation generator or iterable, default=None
        As ``GridSearchCV``'s (None: 5-fold ``KFold``).
    verbose : int, default=0
        As in `SVCSearchCV`.
    error_score : 'raise' or float, default=np.nan
        As in `SVCSearchCV`.
    return_train_score : bool, default=False
        As in `SVCSearchCV`.
    c_start : {'auto', 'keep', 'scale', 'cold'}, default='auto'
        As in `SVCSearchCV`.
    backend : {'threads', 'dask'}, default='threads'
        As in `SVCSearchCV`.
    client : distributed.Client or str, default=None
        As in `SVCSearchCV`.

    Attributes
    ----------
    best_estimator_ : SVR
        The best candidate refitted on all the data (not with ``refit=False``).
    cv_results_, best_score_, best_params_, best_index_, scorer_, n_splits_, refit_time_
        As in `SVCSearchCV`.
    multimetric_, n_kernel_evals_, search_stats_, n_iter_, native_, n_features_in_
        As in `SVCSearchCV`.

    See Also
    --------
    SVR : The estimator searched.
    SVCSearchCV : The same search for `SVC`.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin import SVR, SVRSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X[:, 0] + 0.1 * rng.normal(size=200)
    >>> search = SVRSearchCV(SVR(), {"C": [1, 10], "epsilon": [0.01, 0.1]}, cv=3).fit(X, y)
    >>> search.best_score_ > 0.9
    True
    """

    _estimator_type_ = SVR
    score = _SearchCV.score  # the search's scorer, not RegressorMixin's R^2
