"""`MixtureSVC`: a hard mixture of SVC experts; more than two classes are one mixture per pair
of classes, combined by SVC's one-vs-one votes."""


import numpy as np
from sklearn.base import ClassifierMixin, clone
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .._arrays import scale_gamma, variance
from .._multiclass import ovr_from_ovo, pairs
from ..mixture_backends import is_dask_collection
from .base import _MixtureBase


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
        benchmark (benches/studies/mixture_defaults.py): at 100k rows 2,000 examples per expert is what
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
    cache_size : float or "auto", default="auto"
        The kernel cache per expert being trained, in MB; ``"auto"`` sizes each expert's from its
        own data as `SVC` does.
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
        Gaussians per local gater (at most one per example of the expert's part: a part of fewer
        examples has fewer).
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
                 gamma="scale", tol=1e-3, cache_size="auto", max_iter=5, min_moved=0.001, capacity=None, gater_hidden=50,
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
        for a, b in pairs(k):
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
        return ovr_from_ovo(dec, len(self.classes_))

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
