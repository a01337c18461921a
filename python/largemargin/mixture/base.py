"""Hard mixtures of SVM experts (Collobert, Bengio and Bengio 2002; Collobert's thesis, chapter 6):
split the training set among K experts, train them in parallel on their subsets, train a gater,
reassign every example to an expert under a capacity cap, and repeat. Each expert sees about
L/K examples, so a round costs K (L/K)^p instead of L^p for one SVM.

The global gater is an MLP trained on the whole mixture's criterion (reassignment by g_k(x)); the
local gater is one Gaussian mixture per expert (reassignment by P(k | x, y)). The loop runs on
threads or on a Dask cluster (`mixture_backends`); the experts' work is in `mixture_experts`."""

import copy
import time
import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import ClassifierMixin, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from . import _native, _ovo
from . import mixture_experts as mx
from ._arrays import scale_gamma, variance
from ._base import _BaseSVM, _ovr_from_ovo, dask_client, without_client
from ._base.estimator import BaseEstimator
from ._checks import caller_stacklevel, draw_seed, effective_n_jobs, warn_not_converged
from ._guard import unchanged_on_failure
from ._options import AUTO, BACKENDS, GATERS
from ._progress import say
from ._validation import Interval, Options, Registered
from .mixture_backends import DaskBackend, ThreadBackend, is_dask_collection
from .plugins import NativeExpert, NativeKernel, get_registry

# n_experts="auto": one expert per this many training examples (Collobert's complexity argument:
# a fixed share per expert keeps a round linear in n), no more than _AUTO_MAX_EXPERTS, and a
# single expert (one SVM) below _AUTO_MIN_ROWS, where one SVM trains in seconds and a mixture
# would not be faster. Chosen with benches/mixture_defaults.py (issue 23).
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
        "cache_size": [Interval(Real, 0, None, closed="neither")],
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
        where = f"{getattr(self, '_pair_label', '')[1:]}: " if getattr(self, "_pair_label", "") else ""
        if k > m:
            raise ValueError(f"{where}n_experts={k} is more than the {m} training examples: a mixture needs two "
                             f"examples per expert (n_experts at most {max(1, m // 2)} here, or 'auto')")
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


class MixtureSVC(ClassifierMixin, _MixtureBase):
    """A hard mixture of SVM experts for classification (Collobert's Algorithms 6.1 and 6.2).

    The training set is split among K experts, which train in parallel on their subsets; a gater
    is trained, every example is reassigned to an expert under a capacity cap, and the loop
    repeats (Collobert, Bengio and Bengio 2002; Collobert's thesis, chapter 6). Each expert sees
    about n/K examples, so a round costs K (n/K)^p instead of n^p for one SVM.

    Two classes: one mixture. More than two (threads backend): one binary mixture per pair of
    classes, trained on that pair's rows (its number of experts from its own size under
    n_experts="auto"; gamma "scale" resolved once on all the rows), combined by SVC's one-vs-one
    votes; ``pairs_`` holds the pair mixtures, ``experts_`` all their experts, ``history_`` their
    histories, and ``assignment_`` is None. (Issue 23: the benchmark suite runs every classifier
    with its defaults on multiclass sets too.) The Dask backend takes two classes only.

    X may be dense or CSR. The experts keep sparse rows sparse; the gaters are dense models over
    the standardized features, so they see a dense copy of their rows, and a sparse X whose dense
    copies (about four times its dense size) would exceed the machine's memory is refused with a
    ValueError.

    Parameters
    ----------
    n_experts : int or "auto", default="auto"
        K, the number of experts; each trains on about n / K examples per round. On fewer than
        2 K training examples the mixture has n / 2 experts (``len(experts_)``), with a warning;
        more experts than training examples is an error. "auto": one expert
        per 2,000 training examples (Collobert's complexity argument: a fixed share per expert
        keeps a round linear in n), at most 100; below 20,000 examples one expert, i.e. one SVM
        (the model of `SVC` with the same parameters, in one round without a gater), since one
        SVM trains in seconds there and a mixture would not be faster. Origin: issue 23's
        benchmark (benches/mixture_defaults.py): at 100k rows 2,000 examples per expert is what
        makes a round cheap enough for 5x one SVM's speed (K = 20 was 1.3x), and on 30k rows
        K = n / 2000 is no faster than one SVM. (Before: 10.)
    gater : {"global", "local"}, default="global"
        "global": an MLP with tanh hidden units and softmax outputs g_k(x), trained by SGD on
        1/2 (y - tanh(sum_k g_k(x) f_k(x)))^2 with the experts frozen (warm-started from round to
        round); examples are reassigned by g_k(x). "local": one diagonal Gaussian mixture per
        expert trained by EM on its subset, experts calibrated by Platt's sigmoid; examples are
        reassigned by P(k | x, y) and predictions mix by P(k | x).
    expert : str, default="svc"
        A registered expert: "svc" (our `SVC`) or a plugin's (``largemargin_experts`` hook), any
        scikit-learn classifier; it is trained on labels -1/+1.
    expert_params : dict or None, default=None
        Parameters of the experts (for "svc" they override C, kernel, gamma, tol, cache_size).
    C : float, default=1.0
        The built-in SVC experts' C (the same for every expert and round).
    kernel : str, callable or Kernel, default="rbf"
        The built-in SVC experts' kernel, as in `SVC`.
    gamma : {"scale", "auto"} or float, default="scale"
        The built-in SVC experts' gamma; "scale" is resolved once on the whole training set.
    tol : float, default=1e-3
        The built-in SVC experts' stopping tolerance.
    cache_size : float, default=200
        The kernel cache per expert being trained, in MB.
    max_iter : int, default=5
        Rounds of (train experts, train gater, reassign). Origin: the thesis' 5, checked on issue
        23's problems at 100k rows with K = 50, where the test error falls steeply for 4-5 rounds
        and slowly after (Forest-like 13.9, 9.5, 7.5, 6.8, 6.6, then 6.5 at 8; the harder Voronoi
        problem 18.6, 14.6, 14.2, 14.2, 13.9, then 13.4 at 10). The rounds are a schedule: reaching
        max_iter warns (ConvergenceWarning) only with ``validation_fraction``, when the held-out
        error was still falling at the last round.
    min_moved : float, default=0.001
        Stop when a reassignment moves at most this fraction of the examples.
    capacity : int or None, default=None
        Most examples an expert may hold; None: n / K + 1, the thesis' balancing cap.
    gater_hidden : int, default=50
        The global gater's hidden units.
    gater_epochs : int, default=5
        The global gater's SGD epochs per round.
    gater_learning_rate : float, default=0.01
        The global gater's SGD step.
    gater_samples : int or None, default=50000
        Examples the global gater trains on (a fixed random subset; None: all). Training it needs
        expert outputs on them, so a bound keeps a round linear in n. The gater's data matters
        more than its size: on 100k Forest-like rows (K = 50) 20,000 samples cost 1.1 points of
        test error over 50,000 (7.55% against 6.4% after 8 rounds).
    gater_candidates : int or None, default=5
        The global gater's softmax runs over this many experts per example, those it ranks
        highest (random ones in the first round), so each round evaluates m experts per gater
        example instead of K; prediction mixes the same top experts. None: all K. Origin (issue
        23): the experts' outputs on the gater's examples were half of a round's time at K = 50;
        5 candidates instead of 10 halve that for about +0.1 point on 100k Forest-like rows
        (6.58% against 6.44% after 5 rounds). (Before: 10.)
    n_gaussians : int, default=10
        Gaussians per local gater.
    local_candidates : int, default=3
        The local gater scores P(y | x, k) for this many experts of highest P(x | k) P(k) per
        example (the others cannot win unless the cap fills these).
    gate_tol : float, default=1e-3
        At prediction, experts whose gate is below this for an example are not evaluated on it
        (each example's top expert always is).
    validation_fraction : float or None, default=None
        Hold out this fraction of the data; stop when its error rises and keep the best round.
    backend : {"threads", "dask"}, default="threads"
        Threads of this process, or a ``dask.distributed`` cluster (``client``, or the current
        client). X and y may then be Dask arrays or dataframes. Either way Ctrl-C stops the
        whole fit, the experts being trained included (on Dask the running tasks are told to
        stop and the others cancelled), and the estimator keeps its previous model.
    client : distributed.Client, str or None, default=None
        The cluster for ``backend='dask'``: a Client, a scheduler address (a Client is opened
        for each fit and closed after it), or None for the current client. The fitted estimator
        keeps no client and no futures. A clone (``sklearn.base.clone``, GridSearchCV) shares
        the Client; a pickle leaves it out (the unpickled estimator has ``client=None``, the
        current client at its next fit), while an address string is kept: pass an address to
        refit on the same cluster from another process.
    n_jobs : int or None, default=None
        Experts trained at once on the thread backend, and threads computing gates (None or -1:
        every core, as the other estimators; the model does not depend on it).
    random_state : int, RandomState or None, default=None
        The partition, the gater's initialisation and order, the reassignment order.
    verbose : bool, default=False
        A line per round.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    experts_ : list
        The experts of the model kept (of every pair for more than two classes); each has
        ``.model``, the fitted estimator, or ``.constant``, the value it predicts when its subset
        held a single class.
    assignment_ : ndarray of shape (n_train,) or None
        The expert of each training example in the last round, training rows in index order,
        validation rows excluded; None for more than two classes.
    n_support_ : ndarray of shape (n_experts,)
        Support vectors per expert.
    history_ : list of dict
        Per round: ``round``, ``moved`` (the fraction reassigned), ``gater_loss`` (the gater
        criterion), ``validation`` (the held-out error), ``n_support`` and ``seconds``; NaN where
        the round did not measure it. For more than two classes, one such list per pair.
    n_iter_ : int
        Rounds run (the most of any pair's).
    pairs_ : list of MixtureSVC or None
        For more than two classes, the binary mixture of each pair of classes, in the order
        (0, 1), (0, 2), ..., (1, 2), ...; None otherwise.
    fit_time_ : float
        Seconds the fit took.
    n_features_in_ : int
        Features seen in `fit`.

    See Also
    --------
    MixtureSVR : The regression mixture.
    SVC : One SVM on all the data (what one expert is).

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 2)
    >>> y = (X[:, 0] * X[:, 1] > 0).astype(int)
    >>> clf = lm.MixtureSVC(n_experts=4, C=10, random_state=0).fit(X, y)
    >>> len(clf.experts_)
    4
    >>> clf.predict([[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1.0, -1.0]])
    array([1, 0, 0, 1])
    """

    _task = "classification"

    def __init__(self, *, n_experts="auto", gater="global", expert="svc", expert_params=None, C=1.0, kernel="rbf",
                 gamma="scale", tol=1e-3, cache_size=200, max_iter=5, min_moved=0.001, capacity=None, gater_hidden=50,
                 gater_epochs=5, gater_learning_rate=0.01, gater_samples=50000, gater_candidates=5, n_gaussians=10,
                 local_candidates=3, gate_tol=1e-3, validation_fraction=None, backend="threads", client=None, n_jobs=None,
                 random_state=None, verbose=False):
        self.n_experts = n_experts
        self.gater = gater
        self.expert = expert
        self.expert_params = expert_params
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.min_moved = min_moved
        self.capacity = capacity
        self.gater_hidden = gater_hidden
        self.gater_epochs = gater_epochs
        self.gater_learning_rate = gater_learning_rate
        self.gater_samples = gater_samples
        self.gater_candidates = gater_candidates
        self.n_gaussians = n_gaussians
        self.local_candidates = local_candidates
        self.gate_tol = gate_tol
        self.validation_fraction = validation_fraction
        self.backend = backend
        self.client = client
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _encode_targets(self, X, y):
        if is_dask_collection(y):
            classes = np.unique(y.compute()) if hasattr(y, "compute") else np.unique(y)
        else:
            check_classification_targets(y)
            classes = np.unique(y)
        if len(classes) > 2 and not is_dask_collection(X) and not is_dask_collection(y):
            self.classes_, self._raw_y = classes, y
            return None
        if len(classes) != 2:
            raise ValueError(f"Only binary classification is supported with backend='dask' (the experts are "
                             f"binary SVMs): y has {len(classes)} classes {classes!r}" if len(classes) > 2 else
                             f"MixtureSVC needs two classes or more: y has {len(classes)} class {classes!r}")
        self.classes_ = classes
        return (y == classes[1]) * 2.0 - 1.0

    def _fit_one_vs_one(self, X, y):
        """One binary mixture per pair of classes (as SVC's one-vs-one), each on that pair's rows,
        so that its number of experts follows the pair's size."""
        k = len(self.classes_)
        gamma = self.gamma  # resolved once on all the classes, as SVC does
        if gamma == "scale":
            gamma = scale_gamma(X.shape[1], variance(X))
        elif gamma == "auto":
            gamma = 1.0 / X.shape[1]
        fitted = []
        for a, b in _ovo.pairs(k):
            rows = np.flatnonzero((y == self.classes_[a]) | (y == self.classes_[b]))
            pair = clone(self).set_params(gamma=gamma)
            ca, cb = (c.item() if isinstance(c, np.generic) else c for c in (self.classes_[a], self.classes_[b]))
            pair._pair_label = f" {ca!r} vs {cb!r}"  # names the pair in verbose output
            fitted.append(pair.fit(X[rows], y[rows]))
        self.pairs_ = fitted
        self.experts_ = [e for m in fitted for e in m.experts_]
        self.n_support_ = np.concatenate([m.n_support_ for m in fitted])
        self.history_ = [m.history_ for m in fitted]
        self.n_iter_ = max(m.n_iter_ for m in fitted)
        self.assignment_ = None

    def _one_vs_one_scores(self, X):
        """Votes of the pairs plus a confidence term below one vote (SVC's 'ovr' scores)."""
        check_is_fitted(self, "experts_")
        X = validate_data(self, X, accept_sparse=["csr"], dtype=np.float64, order="C", reset=False)
        dec = np.column_stack([-m.decision_function(X) for m in self.pairs_])  # positive: the pair's first class
        return _ovr_from_ovo(dec, len(self.classes_))

    def _gater_targets(self, y):
        return np.ascontiguousarray(y, dtype=np.float64)

    def _gater_outputs(self, F):
        return np.ascontiguousarray(F)

    def _score_held_out(self, X, y):
        return float(np.mean(np.sign(self.decision_function(X)) != np.where(y > 0, 1, -1)))

    def decision_function(self, X):
        """The mixture's output.

        sum_k g_k(x) f_k(x) with the global gater, or the log-odds of sum_k P(k|x) P(+1|x,k) with the
        local gater, over the experts whose gate reaches ``gate_tol``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (dense or CSR).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            Positive means ``classes_[1]``. More than two classes: (n, n_classes), each class's votes
            from the pairs' mixtures plus a confidence term below one vote, as SVC's 'ovr' scores.
        """
        if getattr(self, "pairs_", None):
            return self._one_vs_one_scores(X)
        if self.gater == "global":
            return self._mixed(X, lambda e, rows: e.output(rows))
        p = self.predict_proba(X)[:, 1]
        p = np.clip(p, 1e-12, 1 - 1e-12)
        return np.log(p / (1 - p))

    def predict_proba(self, X):
        """Class probabilities.

        Local gater: sum_k P(k|x) P(y|x,k), with Platt-calibrated experts. Global gater:
        (1 + tanh(output)) / 2, the mixture's own squashing. More than two classes: a softmax of
        `decision_function`'s scores, ordered as the votes but not calibrated.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (dense or CSR).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Probabilities in the order of ``classes_``.
        """
        if getattr(self, "pairs_", None):
            z = self._one_vs_one_scores(X)
            p = np.exp(z - z.max(axis=1, keepdims=True))
            return p / p.sum(axis=1, keepdims=True)
        if self.gater == "global":
            p = (1.0 + np.tanh(self.decision_function(X))) / 2.0
        else:
            p = self._mixed(X, lambda e, rows: np.exp(e.log_likelihood(rows, np.ones(rows.shape[0]))))
        return np.column_stack([1.0 - p, p])

    def predict(self, X):
        """Predicted class labels.

        Two classes: ``classes_[1]`` where `decision_function` is positive. More: the most votes of
        the pairs' mixtures, equal votes going to the larger confidence.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (dense or CSR).

        Returns
        -------
        ndarray of shape (n_samples,)
            A label of ``classes_`` per sample.
        """
        check_is_fitted(self, "experts_")
        if getattr(self, "pairs_", None):
            return self.classes_[np.argmax(self._one_vs_one_scores(X), axis=1)]
        return self.classes_[(self.decision_function(X) > 0).astype(int)]


class MixtureSVR(RegressorMixin, _MixtureBase):
    """A hard mixture of SVR experts (the thesis' regression extension).

    As `MixtureSVC`, with the global gater trained on 1/2 (y - sum_k g_k(x) f_k(x))^2 (targets
    standardized for it), and the local gater's P(y | x, k) a Gaussian around the expert's
    prediction with its residual variance on its subset. Two defaults differ from `MixtureSVC`'s,
    which were chosen on classification problems only: n_experts=10 (n_experts="auto" is
    accepted) and gater_candidates=10.

    Parameters
    ----------
    n_experts : int or "auto", default=10
        K, the number of experts, as in `MixtureSVC`.
    gater : {"global", "local"}, default="global"
        As in `MixtureSVC`.
    expert : str, default="svr"
        A registered expert: "svr" (our `SVR`) or a plugin's, any scikit-learn regressor.
    expert_params : dict or None, default=None
        Parameters of the experts (for "svr" they override C, epsilon, kernel, gamma, tol,
        cache_size).
    C : float, default=1.0
        The built-in SVR experts' C.
    epsilon : float, default=0.1
        The SVR experts' tube.
    kernel : str, callable or Kernel, default="rbf"
        The built-in SVR experts' kernel, as in `SVC`.
    gamma : {"scale", "auto"} or float, default="scale"
        The built-in SVR experts' gamma; "scale" is resolved once on the whole training set.
    tol : float, default=1e-3
        The built-in SVR experts' stopping tolerance.
    cache_size : float, default=200
        The kernel cache per expert being trained, in MB.
    max_iter : int, default=5
        As in `MixtureSVC`.
    min_moved : float, default=0.001
        As in `MixtureSVC`.
    capacity : int or None, default=None
        As in `MixtureSVC`.
    gater_hidden : int, default=50
        As in `MixtureSVC`.
    gater_epochs : int, default=5
        As in `MixtureSVC`.
    gater_learning_rate : float, default=0.01
        As in `MixtureSVC`.
    gater_samples : int or None, default=50000
        As in `MixtureSVC`.
    gater_candidates : int or None, default=10
        As in `MixtureSVC`.
    n_gaussians : int, default=10
        As in `MixtureSVC`.
    local_candidates : int, default=3
        As in `MixtureSVC`.
    gate_tol : float, default=1e-3
        As in `MixtureSVC`.
    validation_fraction : float or None, default=None
        As in `MixtureSVC` (the held-out error is the mean squared error).
    backend : {"threads", "dask"}, default="threads"
        As in `MixtureSVC`.
    client : distributed.Client, str or None, default=None
        As in `MixtureSVC`.
    n_jobs : int or None, default=None
        As in `MixtureSVC`.
    random_state : int, RandomState or None, default=None
        As in `MixtureSVC`.
    verbose : bool, default=False
        A line per round.

    Attributes
    ----------
    experts_, assignment_, n_support_, history_, n_iter_, fit_time_, n_features_in_
        As in `MixtureSVC` (one mixture: ``assignment_`` is always set).

    See Also
    --------
    MixtureSVC : The classification mixture.
    SVR : One SVR on all the data (what one expert is).

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 2)
    >>> reg = lm.MixtureSVR(n_experts=4, C=10, random_state=0).fit(X, X[:, 0] ** 2)
    >>> reg.predict([[1.0, 0.0], [0.0, 0.0]]).round(1)
    array([1. , 0.1])
    """

    _task = "regression"

    def __init__(self, *, n_experts=10, gater="global", expert="svr", expert_params=None, C=1.0, epsilon=0.1,
                 kernel="rbf", gamma="scale", tol=1e-3, cache_size=200, max_iter=5, min_moved=0.001, capacity=None,
                 gater_hidden=50, gater_epochs=5, gater_learning_rate=0.01, gater_samples=50000, gater_candidates=10,
                 n_gaussians=10, local_candidates=3, gate_tol=1e-3, validation_fraction=None, backend="threads", client=None,
                 n_jobs=None, random_state=None, verbose=False):
        self.n_experts = n_experts
        self.gater = gater
        self.expert = expert
        self.expert_params = expert_params
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.min_moved = min_moved
        self.capacity = capacity
        self.gater_hidden = gater_hidden
        self.gater_epochs = gater_epochs
        self.gater_learning_rate = gater_learning_rate
        self.gater_samples = gater_samples
        self.gater_candidates = gater_candidates
        self.n_gaussians = n_gaussians
        self.local_candidates = local_candidates
        self.gate_tol = gate_tol
        self.validation_fraction = validation_fraction
        self.backend = backend
        self.client = client
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _encode_targets(self, X, y):
        yy = y.compute() if is_dask_collection(y) else y
        self._y_mean, self._y_scale = float(np.mean(yy)), float(np.std(yy)) or 1.0
        return y

    def _gater_targets(self, y):
        return np.ascontiguousarray((y - self._y_mean) / self._y_scale, dtype=np.float64)

    def _gater_outputs(self, F):
        return np.ascontiguousarray((F - self._y_mean) / self._y_scale)

    def _score_held_out(self, X, y):
        return float(np.mean((self.predict(X) - y) ** 2))

    def predict(self, X):
        """Predicted values: the gated sum of the experts' predictions.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (dense or CSR).

        Returns
        -------
        ndarray of shape (n_samples,)
            The mixture's regression function at each sample.
        """
        return self._mixed(X, lambda e, rows: e.output(rows))
