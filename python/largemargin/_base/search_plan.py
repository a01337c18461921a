"""How SVCSearchCV and SVRSearchCV run a grid natively: the plan (the grid's settings grouped by
everything but C, the folds), the runners (on threads, one native call per part of the plan, or on
Dask), the scorers' views of one fold's decisions (`_FoldClassifier`, `_FoldRegressor`) and the
results' ranking."""

import inspect
import numbers
import time
import warnings
from collections import namedtuple

import numpy as np
from scipy.stats import rankdata
from sklearn.base import ClassifierMixin, RegressorMixin, clone
from sklearn.model_selection import GridSearchCV
from sklearn.utils import _safe_indexing, compute_class_weight

from .. import _native
from .._arrays import to_native
from .._options import GAMMA_KERNELS
from .estimator import BaseEstimator


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
