"""What the mixtures share: the loop of rounds (train the experts on their parts, train the
gater, reassign under the capacity cap), its parameters and their checks, the backends it runs
on, and the gates' mixing of the experts' outputs."""

import copy
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _native
from .. import mixture_experts as mx
from .._arrays import scale_gamma
from .._base import _BaseSVM, dask_client, without_client
from .._base.estimator import BaseEstimator
from .._checks import caller_stacklevel, draw_seed, effective_n_jobs, warn_not_converged
from .._guard import unchanged_on_failure
from .._options import AUTO, BACKENDS, GATERS
from .._progress import say
from .._validation import Interval, Options, Registered
from ..mixture_backends import DaskBackend, ThreadBackend, is_dask_collection
from ..plugins import NativeExpert, NativeKernel, get_registry

# n_experts="auto": one expert per this many training examples (Collobert's complexity argument:
# a fixed share per expert keeps a round linear in n), no more than _AUTO_MAX_EXPERTS, and a
# single expert (one SVM) below _AUTO_MIN_ROWS, where one SVM trains in seconds and a mixture
# would not be faster. Chosen with benches/studies/mixture_defaults.py (issue 23).
_AUTO_BLOCK = 2000
_AUTO_MIN_ROWS = 20_000
_AUTO_MAX_EXPERTS = 100


def auto_experts(m):
    """The number of experts n_experts="auto" gives on m training examples."""
    if m < _AUTO_MIN_ROWS:
        return 1
    return int(min(_AUTO_MAX_EXPERTS, m // _AUTO_BLOCK))


class _MixtureBase(BaseEstimator):
    _task = None

    _parameter_constraints = {
        "n_experts": [Interval(Integral, 1, None), Options((AUTO,))],
        "gater": [Options(GATERS)],
        "expert": [Registered("expert")],
        "expert_params": ["dict", None],
        "C": [Interval(Real, 0, None, closed="neither"), Options((np.inf,), Real)],
        "epsilon": [Interval(Real, 0, None)],
        "kernel": _BaseSVM._parameter_constraints["kernel"],
        "gamma": _BaseSVM._parameter_constraints["gamma"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "cache_size": [Options(("auto",)), Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
        "min_moved": [Interval(Real, 0, 1, closed="left")],
        "capacity": [Interval(Integral, 1, None), None],
        "gater_hidden": [Interval(Integral, 1, None)],
        "gater_epochs": [Interval(Integral, 1, None)],
        "gater_learning_rate": [Interval(Real, 0, None, closed="neither")],
        "gater_samples": [Interval(Integral, 1, None), None],
        "gater_candidates": [Interval(Integral, 1, None), None],
        "n_gaussians": [Interval(Integral, 1, None)],
        "local_candidates": [Interval(Integral, 1, None)],
        "gate_tol": [Interval(Real, 0, 1, closed="left")],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither"), None],
        "backend": [Options(BACKENDS)],
        "client": "no_validation",  # checked with backend="dask", by dask_client
        "n_jobs": ["n_jobs"],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    # ---- setup -------------------------------------------------------------------------------

    def _factory(self):
        factory = get_registry().resolve("expert", self.expert)
        inner = getattr(factory, "impl", factory)
        if not (isinstance(inner, NativeExpert) or callable(getattr(inner, "make", None)) or callable(inner)):
            raise ValueError(f"expert {self.expert!r} must be a factory: make(**params), or an object with it")
        return factory

    def _expert_params(self, gamma):
        params = {}
        if isinstance(self._factory_obj, NativeExpert):
            params = dict(C=self.C, kernel=self.kernel, tol=self.tol, cache_size=self.cache_size, n_jobs=1)
            kernel = get_registry().resolve("kernel", self.kernel) if isinstance(self.kernel, str) else self.kernel
            if isinstance(kernel, NativeKernel):
                params["gamma"] = gamma  # a composed or plugin kernel carries its own parameters
            if self._task == "regression":
                params["epsilon"] = self.epsilon
        params.update(self.expert_params or {})
        return params

    def _backend(self, X, y):
        if self.backend == "threads":
            if is_dask_collection(X):
                raise ValueError("a Dask array or dataframe needs backend='dask'")
            threads = self._threads() if self.n_experts == "auto" else min(self._threads(), self.n_experts)
            return ThreadBackend(X, y, threads)
        client, own = dask_client(self.client)
        try:
            return DaskBackend(client, X, y, own_client=own)
        except BaseException:
            if own:
                client.close()
            raise

    def _threads(self):
        """n_jobs as a count of threads, as every estimator reads it (None: every core)."""
        return effective_n_jobs(self.n_jobs)

    def _validate(self, X, y):
        if is_dask_collection(X):
            if hasattr(X, "to_dask_array"):
                X = X.to_dask_array(lengths=True)
            if hasattr(y, "to_dask_array"):
                y = y.to_dask_array(lengths=True)
            if X.ndim != 2:
                raise ValueError(f"X must be 2-D, got {X.ndim} dimensions")
            y = y.astype(np.float64) if self._task == "regression" else y
            self.n_features_in_ = X.shape[1]
            return X, y
        X, y = validate_data(self, X, y, accept_sparse=["csr"], dtype=np.float64, order="C", y_numeric=self._task == "regression")
        return X, y

    # ---- the loop ----------------------------------------------------------------------------

    @unchanged_on_failure
    def fit(self, X, y):
        """Fit the mixture.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors: NumPy, SciPy CSR, or with ``backend='dask'`` a Dask array or
            dataframe.
        y : array-like of shape (n_samples,)
            Class labels (`MixtureSVC`) or real targets (`MixtureSVR`).

        Returns
        -------
        self : object
            The fitted estimator.
        """
        started = time.perf_counter()
        self._validate_params()
        self._factory_obj = self._factory()
        X, y = self._validate(X, y)
        y = self._encode_targets(X, y)
        if y is None:  # more than two classes: one mixture per pair of classes
            self._fit_one_vs_one(X, self._raw_y)
            del self._raw_y
            self.fit_time_ = time.perf_counter() - started
            return self
        self.pairs_ = None
        rng = check_random_state(self.random_state)
        backend = self._backend(X, y)
        try:
            self._fit_loop(backend, rng, started)
        finally:
            backend.close()
        return self

    def _statistics(self, backend):
        parts = backend.map_blocks(mx.moments)
        n = sum(p[0] for p in parts)
        if not all(p[3] for p in parts):
            raise ValueError("Input X contains NaN or infinity.")
        total = sum(p[1] for p in parts)
        squares = sum(p[2] for p in parts)
        mean = total / n
        var = np.maximum(squares / n - mean * mean, 0.0)
        # gamma='scale' takes the variance of all entries, as SVC does (not the mean of the
        # features' variances, which leaves out how far apart the features' means are)
        everything = float(max(squares.mean() / n - (mean.mean()) ** 2, 0.0)) if var.size else 0.0
        return n, mean, np.where(var > 0, np.sqrt(var), 1.0), everything

    def _fit_loop(self, backend, rng, started):
        n, mean, scale, var = self._statistics(backend)
        if n < 2:
            raise ValueError(f"a mixture needs at least 2 training examples, got n_samples={n}")
        self._mean, self._scale = mean, scale
        d = len(mean)
        gamma = self.gamma
        if gamma == "scale":
            gamma = scale_gamma(d, var)
        elif gamma == "auto":
            gamma = 1.0 / d
        self._gamma = gamma
        params = self._expert_params(gamma)

        order = rng.permutation(n)
        n_val = int(round(self.validation_fraction * n)) if self.validation_fraction else 0
        val = np.sort(order[:n_val])
        train = np.sort(order[n_val:])
        m = len(train)
        if m < 2:
            raise ValueError(f"validation_fraction={self.validation_fraction} leaves {m} of the {n} examples to train on")
        k = auto_experts(m) if self.n_experts == "auto" else self._experts_for(m)
        cap = self.capacity if self.capacity is not None else m // k + 1
        if cap * k < m:
            raise ValueError(f"capacity {cap} x {k} experts cannot hold the {m} training examples")
        # the starting partition: random, of equal sizes
        assignment = np.empty(m, dtype=np.int64)
        assignment[rng.permutation(m)] = np.arange(m) % k
        sample = train if self.gater_samples is None or self.gater_samples >= m else np.sort(
            rng.choice(train, self.gater_samples, replace=False))
        if self.gater == "global" and k > 1:  # the gater's training set: fixed, standardized once
            sample_X = backend.rows(sample)
            sample_Z = mx.standardize(sample_X, mean, scale)
            sample_t = self._gater_targets(self._targets_of(backend, sample))
        X_val = backend.rows(val) if n_val else None
        y_val = self._targets_of(backend, val) if n_val else None

        self.history_ = []
        self._gater_weights = None
        best = None
        for round_ in range(self.max_iter):
            t0 = time.perf_counter()
            parts = [train[assignment == e] for e in range(k)]
            experts = backend.train(self._factory_obj, params, parts, self._task, self.gater == "local")
            if self.gater == "global" and k == 1:
                # one expert: its gate is 1 everywhere, no gater to train (a plain SVM, one round)
                h = int(self.gater_hidden)
                self._gater_weights = (np.zeros((h, d)), np.zeros(h), np.zeros((1, h)), np.zeros(1))
                gater_loss = float("nan")
                self._gmms = None
            elif self.gater == "global":
                cand = self._candidates(sample_Z, k, rng)
                F = self._gater_outputs(mx.outputs(experts, sample_X, cand, backend.workers))
                fit = _native.fit_gater(
                    sample_Z, F, cand, sample_t, task=self._task, experts=k, hidden=int(self.gater_hidden), epochs=int(self.gater_epochs),
                    learning_rate=float(self.gater_learning_rate), decay=0.0, seed=draw_seed(rng), warm=self._gater_weights, n_jobs=1,
                )
                self._gater_weights = (fit["w1"], fit["b1"], fit["w2"], fit["b2"])
                gater_loss = float(fit["losses"][-1])
                self._gmms = None
            else:
                self._gmms = backend.per_part(mx.fit_gmm, parts, mean, scale, int(self.n_gaussians), 30, draw_seed(rng))
                self._log_priors = np.log(np.maximum([len(p) for p in parts], 1) / m)
                gater_loss = float("nan")
            self.experts_ = experts
            self.assignment_ = assignment.copy()
            val_score = self._score_held_out(X_val, y_val) if n_val else float("nan")
            moved = float("nan")
            stop = round_ == self.max_iter - 1 or k == 1  # one expert: nothing to reassign
            if n_val and best is not None and val_score > best[0]:
                stop = True  # the validation error rose: keep the previous round's model
            if n_val and (best is None or val_score <= best[0]):
                best = (val_score, self._snapshot())
            if not stop:
                new = self._reassign(backend, train, experts, cap, rng)
                moved = float(np.mean(new != assignment))
                assignment = new
                stop = moved <= self.min_moved
            self.history_.append(dict(round=round_ + 1, moved=moved, gater_loss=gater_loss, validation=val_score,
                                      n_support=int(sum(e.n_support for e in experts)),
                                      seconds=time.perf_counter() - t0))
            if self.verbose:
                h = self.history_[-1]
                # only what this round measured: no reassignment after the last round, no gater
                # criterion with one expert or local gaters, no validation without a held-out part
                said = [f"{h['seconds']:.1f} s"]
                said += [f"{name} {h[key]:.4f}" for name, key in
                         (("moved", "moved"), ("gater criterion", "gater_loss"), ("validation", "validation"))
                         if not np.isnan(h[key])]
                said.append(f"#SV {h['n_support']}")
                say(f"[mixture{getattr(self, '_pair_label', '')}] round {h['round']}: {', '.join(said)}")
            if stop:
                break
        if best is not None:
            self._restore(best[1])
        self.n_iter_ = len(self.history_)
        # Rounds are the algorithm's schedule (the thesis' 5), not a cap on a converging loop: on
        # forest-like data the reassignments still move 65-71% of the examples at round 5. So
        # only an early stop that max_iter kept from acting is reported: a hold-out whose error
        # was still falling at the last round.
        vals = [h["validation"] for h in self.history_]
        if n_val and self.n_iter_ == self.max_iter and self.n_iter_ > 1 and vals[-1] < min(vals[:-1]):
            warn_not_converged(
                f"{type(self).__name__}{getattr(self, '_pair_label', '')}: max_iter={self.max_iter} rounds ended the fit "
                "while the held-out error was still falling; increase max_iter.")
        self.n_support_ = np.array([e.n_support for e in self.experts_])
        self.fit_time_ = time.perf_counter() - started

    def _experts_for(self, m):
        """The number of experts an integer n_experts gives on m training examples: at least two
        examples per expert, so fewer experts on small data (with a warning); more experts than
        examples is a mistake."""
        k = int(self.n_experts)
        label = getattr(self, "_pair_label", "")
        where = f"{label[1:]}: " if label else ""
        if k > m:
            raise ValueError(f"{where}n_experts={k} is more than the {m} training examples: give at most {m} "
                             f"(a mixture fits at most {max(1, m // 2)} experts here, two examples each, and warns "
                             f"above that) or 'auto'")
        if k > m // 2:
            warnings.warn(f"{type(self).__name__}: {where}n_experts={k} leaves fewer than two of the {m} training "
                          f"examples per expert: fitting {max(1, m // 2)} experts", UserWarning,
                          stacklevel=caller_stacklevel())
        return max(1, min(k, m // 2))

    def _n_candidates(self, k):
        return k if self.gater_candidates is None else min(int(self.gater_candidates), k)

    def _candidates(self, Z, k, rng):
        """The experts the global gater trains each row on: those it ranks highest, or (before it
        exists, when the experts hold random subsets and are alike) random ones; all of them, in
        order, when gater_candidates is None or at least K."""
        m = self._n_candidates(k)
        if m == k:
            return np.tile(np.arange(k, dtype=np.int64), (len(Z), 1))
        if self._gater_weights is None:
            return np.argsort(rng.random((len(Z), k)), axis=1)[:, :m].astype(np.int64)
        return mx.top_candidates(_native.gater_gates(Z, weights=self._gater_weights, n_jobs=self._threads()), m)

    def _snapshot(self):
        return dict(experts_=self.experts_, assignment_=self.assignment_, _gater_weights=self._gater_weights,
                    _gmms=self._gmms, _log_priors=getattr(self, "_log_priors", None))

    def _restore(self, snap):
        for key, value in snap.items():
            setattr(self, key, value)

    def _targets_of(self, backend, rows):
        return np.asarray(backend.targets(rows), dtype=np.float64)

    def _reassign(self, backend, train, experts, cap, rng):
        if self.gater == "global":
            pref = np.concatenate(backend.map_blocks(mx.gates, self._gater_dict(), self._mean, self._scale,
                                                     backend.block_threads))
        else:
            pref = np.concatenate(backend.map_blocks(
                mx.local_preference, experts, self._gmms, self._log_priors, self._mean, self._scale,
                int(self.local_candidates), backend.block_threads, with_y=True))
        pref = np.ascontiguousarray(pref[train])
        return _native.assign_experts(pref, cap=int(cap), order=rng.permutation(len(train)).astype(np.int64))

    def _gater_dict(self):
        w1, b1, w2, b2 = self._gater_weights
        return dict(w1=w1, b1=b1, w2=w2, b2=b2)

    # ---- prediction ----------------------------------------------------------------------------

    def _gate_matrix(self, X):
        """P(k | x) (local) or g_k(x) (global), (n, K)."""
        Xd = X  # standardized (made dense) by the gater's functions, which check the size first
        if self.gater == "global" and len(self.experts_) == 1:
            return np.ones((X.shape[0], 1))  # one expert, no gater: no dense copy either
        if self.gater == "global":
            return mx.gates(Xd, self._gater_dict(), self._mean, self._scale, self._threads())
        logp = mx.log_prior_density(Xd, self._gmms, self._log_priors, self._mean, self._scale, self._threads())
        logp -= logp.max(axis=1, keepdims=True)
        p = np.exp(logp)
        return p / p.sum(axis=1, keepdims=True)

    def _mixed(self, X, per_expert):
        """sum_k G_k(x) h_k(x) over the experts whose gate reaches gate_tol (and each row's top
        expert), among the gater_candidates highest for the global gater (the softmax it was
        trained with), renormalised over those; h_k = per_expert(expert, rows)."""
        check_is_fitted(self, "experts_")
        X = validate_data(self, X, accept_sparse=["csr"], dtype=np.float64, order="C", reset=False)
        G = self._gate_matrix(X)
        used = G >= self.gate_tol
        k = G.shape[1]
        if self.gater == "global" and self._n_candidates(k) < k:
            top = np.zeros_like(used)
            np.put_along_axis(top, mx.top_candidates(G, self._n_candidates(k)), True, axis=1)
            used &= top
        used[np.arange(len(G)), np.argmax(G, axis=1)] = True
        G = np.where(used, G, 0.0)
        out = np.zeros(len(G))
        for e, expert in enumerate(self.experts_):
            rows = np.flatnonzero(used[:, e])
            if len(rows):
                out[rows] += G[rows, e] * per_expert(expert, X[rows])
        return out / G.sum(axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    # ---- the client: a connection, shared by clones and left out of pickles --------------------

    def __sklearn_clone__(self):
        """scikit-learn's clone, except that a Client is shared rather than deep-copied: a clone
        (as GridSearchCV makes) runs on the same cluster."""
        params = self.get_params(deep=False)
        client = params.pop("client")
        new = type(self)(**{name: clone(value, safe=False) for name, value in params.items()}, client=client)
        for attr in ("_sklearn_output_config", "_metadata_request"):
            if attr in self.__dict__:
                setattr(new, attr, copy.deepcopy(self.__dict__[attr]))
        return new

    def __getstate__(self):
        return without_client(super().__getstate__())
