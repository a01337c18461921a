"""The experts of a hard mixture and the work done where their data is: training one expert on its
subset, its outputs f_k(x), the local gater's per-expert density model, and the per-block
computations of the reassignment. Everything here is a plain function of arrays, so that the
thread backend calls it in-process and the Dask backend ships it to workers unchanged."""

import os

import numpy as np
import scipy.sparse as sp

from . import _native
from ._threads import parallel
from .plugins import NativeExpert
from .plugins.checked import CheckedExpertFactory, call, check_outputs
from .svm import SVC, SVR


def make_expert(factory, params):
    """A new estimator from the factory the registry resolved: ``SVC`` or ``SVR`` for a built-in
    expert, else the plugin's ``make(**params)``."""
    if isinstance(factory, NativeExpert):
        return (SVC if factory.name == "svc" else SVR)(**params)
    return factory.make(**params)


def expert_output(model, X, task):
    """f(x): the decision value of a classifier trained on -1/+1 labels (or 2 P(+1|x) - 1, or its
    +-1 prediction, for an estimator without decision_function), a regressor's prediction."""
    if task == "regression":
        return np.asarray(model.predict(X), dtype=np.float64).ravel()
    if hasattr(model, "decision_function"):
        out = np.asarray(model.decision_function(X), dtype=np.float64)
        if out.ndim == 2:
            out = out[:, -1] - out[:, 0]
        return out.ravel()
    classes = np.asarray(model.classes_)
    if hasattr(model, "predict_proba"):
        return 2.0 * np.asarray(model.predict_proba(X))[:, list(classes).index(1.0)] - 1.0
    return np.where(np.asarray(model.predict(X)) > 0, 1.0, -1.0)


OUTPUT_WORK = 20_000_000  # kernel terms of one native prediction call: tens of milliseconds


class Expert:
    """One trained expert: the fitted estimator, or the constant it predicts when its subset had a
    single class; with, for the local gater, Platt's sigmoid (classification) or the residual
    variance (regression) measured on its own subset."""

    def __init__(self, model, constant, task, plugin=None):
        self.model = model
        self.constant = constant
        self.task = task
        self.platt = (0.0, 0.0)
        self.variance = 1.0
        self.plugin = plugin  # which plugin's expert it is, for the errors; None: a built-in

    def output(self, X):
        if self.model is None:
            return np.full(X.shape[0], self.constant)
        what = "decision_function" if hasattr(self.model, "decision_function") else "predict"
        n = X.shape[0]
        step = self._rows_per_call(X)
        pieces = []
        for start in range(0, n, step):  # a stop (Ctrl-C) is noticed between pieces
            rows = X[start:start + step]
            out = call(self.plugin, what, expert_output, self.model, rows, self.task)
            pieces.append(check_outputs(self.plugin, what, out, rows.shape[0]))
        return np.concatenate(pieces) if len(pieces) != 1 else pieces[0]

    def _rows_per_call(self, X):
        """Rows evaluated in one native call: about OUTPUT_WORK kernel terms (support vectors x
        features, or stored values of a sparse row), so that the call lasts tens of milliseconds
        whatever the expert's size."""
        per_row = X.nnz / max(1, X.shape[0]) if sp.issparse(X) else X.shape[1]
        width = max(1, self.n_support) * max(1.0, per_row)
        return int(max(64, min(max(1, X.shape[0]), OUTPUT_WORK // width)))

    def log_likelihood(self, X, y):
        """log P(y | x, k): Platt's sigmoid of f(x) (y in -1/+1), or a Gaussian around f(x)."""
        f = self.output(X)
        if self.task == "regression":
            return -0.5 * ((y - f) ** 2 / self.variance + np.log(2 * np.pi * self.variance))
        a, b = self.platt
        # P(y=+1|f) = 1 / (1 + exp(a f + b)); log P(y|f) = -log(1 + exp(y (a f + b)))
        return -np.logaddexp(0.0, y * (a * f + b))

    @property
    def n_support(self):
        support = getattr(self.model, "support_", None)
        return 0 if support is None else len(support)


def train_expert(factory, params, X, y, task, calibrate):
    """Fits one expert on its subset (classification labels -1/+1); `calibrate` also fits what the
    local gater needs from it."""
    plugin = repr(factory) if isinstance(factory, CheckedExpertFactory) else None
    if len(y) == 0 or (task == "classification" and len(np.unique(y)) < 2):
        # a subset left empty by the reassignment (small data, many experts) or of one class: a
        # constant, which the gater learns to weigh by its errors
        expert = Expert(None, float(y[0]) if len(y) else 0.0, task, plugin)
    else:
        model = make_expert(factory, params)
        call(plugin, "fit", model.fit, X, y)
        expert = Expert(model, 0.0, task, plugin)
    if calibrate and len(y):
        f = expert.output(X)
        if task == "regression":
            expert.variance = max(float(np.mean((y - f) ** 2)), 1e-12)
        elif expert.model is None:
            expert.platt = (0.0, -np.log(len(y) + 1.0) * np.sign(expert.constant))
        else:
            expert.platt = _native.fit_platt(np.ascontiguousarray(f), np.ascontiguousarray(y > 0))
    return expert


def outputs(experts, X, candidates, workers=1):
    """f_k(x) of each row's candidate experts: `candidates` (n, m) names them, the result is
    (n, m). Each expert runs once, on the rows that list it, `workers` experts at a time (the
    built-in experts' prediction releases the GIL)."""
    out = np.zeros(candidates.shape)
    groups = by_expert(candidates, len(experts))

    def one(e):
        rows, cols = groups[e]
        if len(rows):
            out[rows, cols] = experts[e].output(X[rows])

    if X.shape[0] and experts:
        parallel(one, range(len(experts)), workers)
    return out


def by_expert(candidates, k):
    """For each expert e < k, the (rows, columns) of `candidates` (n, m) that name it, in row
    order: one sort for all experts rather than a scan of the whole array per expert."""
    flat = candidates.ravel()
    order = np.argsort(flat, kind="stable")
    bounds = np.searchsorted(flat[order], np.arange(k + 1))
    return [np.divmod(order[bounds[e]:bounds[e + 1]], candidates.shape[1]) for e in range(k)]


def top_candidates(preference, m):
    """The m columns of highest preference in each row, best first: (n, m) int64."""
    if m >= preference.shape[1]:
        return np.argsort(-preference, axis=1, kind="stable").astype(np.int64)
    top = np.argpartition(-preference, m - 1, axis=1)[:, :m]
    rank = np.argsort(-np.take_along_axis(preference, top, axis=1), axis=1, kind="stable")
    return np.take_along_axis(top, rank, axis=1).astype(np.int64)


def standardize(X, mean, scale):
    """The gaters' inputs: features centred and scaled (dense; the gaters are dense models)."""
    if sp.issparse(X):
        check_densifiable(X.shape)
        X = X.toarray()
    return np.ascontiguousarray((np.asarray(X, dtype=np.float64) - mean) / scale)


def physical_memory():
    """Bytes of memory of this machine, or None where the platform does not say."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def check_densifiable(shape):
    """The gaters see dense, centred features: refuse, before allocating, a sparse matrix whose
    dense copies would not fit in the machine's memory (2,000 x 10^7 sparse rows: 149 GiB each).
    A fit holds about four (the copy, its standardized form, the gater's working copies)."""
    need = 4 * 8 * shape[0] * shape[1]
    total = physical_memory()
    if total is not None and need > total:
        raise ValueError(
            f"the mixture's gater is a dense model over the features: its {shape[0]} x {shape[1]} input would "
            f"take about {need / 2**30:.1f} GiB in dense copies, more than this machine's {total / 2**30:.1f} GiB; "
            "reduce the features first (for example with sklearn.decomposition.TruncatedSVD) or, with the global "
            "gater, lower gater_samples")


def gates(X, gater, mean, scale, threads=1):
    """The global gater's g_k(x): (n, K)."""
    w = (gater["w1"], gater["b1"], gater["w2"], gater["b2"])
    return _native.gater_gates(standardize(X, mean, scale), weights=w, n_jobs=threads)


def log_prior_density(X, gmms, log_priors, mean, scale, threads=1):
    """log P(x | k) + log P(k) for every row and expert: (n, K)."""
    Z = standardize(X, mean, scale)
    cols = [_native.gmm_log_density(Z, weights=g["weights"], means=g["means"], variances=g["variances"], n_jobs=threads) for g in gmms]
    return np.column_stack(cols) + log_priors


def local_preference(X, y, experts, gmms, log_priors, mean, scale, candidates, threads=1):
    """log P(x|k) + log P(k) + log P(y|x,k), the local gater's reassignment criterion (up to a
    constant per row). P(y|x,k) is computed for the `candidates` experts of highest
    P(x|k) P(k) only; the others get the lowest of those likelihoods, so that they are chosen
    only when the cap fills the candidates."""
    base = log_prior_density(X, gmms, log_priors, mean, scale, threads)
    n, k = base.shape
    m = min(candidates, k)
    top = top_candidates(base, m)
    lik = np.empty((n, m))
    for e, (rows, pos) in enumerate(by_expert(top, k)):
        if len(rows):
            lik[rows, pos] = experts[e].log_likelihood(X[rows], y[rows])
    out = base + lik.min(axis=1, keepdims=True)
    np.put_along_axis(out, top, np.take_along_axis(base, top, axis=1) + lik, axis=1)
    return out


def fit_gmm(X, mean, scale, components, max_iter, seed):
    Z = standardize(X, mean, scale)
    components = max(1, min(components, len(Z)))
    return _native.fit_gmm(Z, components=components, iterations=max_iter, tol=1e-4, variance_floor=1e-2, seed=seed, n_jobs=1)


def moments(X):
    """(rows, sum, sum of squares, all finite) of a block, for the standardization. (Squares of
    values beyond 1e154 overflow to inf: gamma='scale' then refuses the data with a message.)"""
    with np.errstate(over="ignore", invalid="ignore"):
        return _moments(X)


def _moments(X):
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        return (X.shape[0], np.asarray(X.sum(axis=0)).ravel(), np.asarray(X.multiply(X).sum(axis=0)).ravel(),
                bool(np.isfinite(X.data).all()))
    X = np.asarray(X, dtype=np.float64)
    return len(X), X.sum(axis=0), (X * X).sum(axis=0), bool(np.isfinite(X).all())
