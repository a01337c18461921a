"""Multiclass SVMs from ambiguous supervision (Bordes 2010, chapter 6): each training example comes
with a bag of candidate labels, one of which (unknown) is correct; `make_ambiguous` simulates such
bags from plain labels at the thesis' ambiguity levels."""

import numbers
import time
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._arrays import native_cache_size, to_native
from ._base import _LaRankBase
from ._checks import draw_seed
from ._guard import at_least_two, unchanged_on_failure
from ._options import AMBIGUOUS_METHODS
from ._validation import Interval, Options, check_number


def _is_scalar_label(v):
    if isinstance(v, (str, bytes, numbers.Number, np.generic)):
        return True
    if isinstance(v, np.ndarray):
        return v.ndim == 0
    return not hasattr(v, "__iter__")


def _parse_bags(bags, classes):
    """(classes, offsets, labels): the sorted classes and each example's candidates as class
    indices, CSR-style. `bags` is a boolean (n, n_classes) mask or a sequence of candidate sets
    (a single label counts as a set of one)."""
    if bags is None:
        raise ValueError("AmbiguousLaRankClassifier requires y to be passed, but the target y is None")
    if sp.issparse(bags):
        bags = bags.toarray()
    elif hasattr(bags, "__array__") and not isinstance(bags, (list, tuple, np.ndarray)):
        bags = np.asarray(bags)  # pandas objects and other array-likes
    if isinstance(bags, np.ndarray) and bags.dtype == bool:
        if bags.ndim != 2:
            raise ValueError(f"a boolean mask of candidate labels must be 2-D (n_samples, n_classes), got shape {bags.shape}")
        if classes is None:
            classes = np.arange(bags.shape[1])
        classes = np.asarray(classes)
        if len(classes) != bags.shape[1] or len(np.unique(classes)) != len(classes):
            raise ValueError(f"the mask has {bags.shape[1]} columns but {len(classes)} distinct classes are given")
        order = np.argsort(classes, kind="stable")
        classes, bags = classes[order], bags[:, order]
        empty = np.flatnonzero(~bags.any(axis=1))
        if len(empty):
            raise ValueError(f"the candidate label set of example {empty[0]} is empty")
        rows, cols = np.nonzero(bags)
        offsets = np.concatenate([[0], np.cumsum(bags.sum(axis=1))])
        return at_least_two(classes), offsets.astype(np.int64), cols.astype(np.int64)
    if isinstance(bags, (str, bytes)) or not hasattr(bags, "__len__"):
        raise ValueError("candidate labels must be a sequence of label sets or a boolean (n_samples, n_classes) mask")
    lists = []
    for i, bag in enumerate(bags):
        if _is_scalar_label(bag):
            bag = [bag]
        elif isinstance(bag, (set, frozenset)):
            bag = sorted(bag)
        bag = list(bag)
        if not bag:
            raise ValueError(f"the candidate label set of example {i} is empty")
        lists.append(bag)
    flat = [v for bag in lists for v in bag]
    if type_of_target(np.asarray(flat)) == "continuous":
        raise ValueError("Unknown label type: continuous; candidate labels must be class labels, not a regression target")
    if classes is None:
        try:
            classes = np.unique(np.asarray(flat))
        except TypeError as e:
            raise ValueError(f"candidate labels must be of one comparable type: {e}") from None
    else:
        classes = np.unique(np.asarray(classes))
    at_least_two(classes)
    flat = np.asarray(flat)
    try:
        idx = np.searchsorted(classes, flat)
    except TypeError as e:
        raise ValueError(f"candidate labels do not compare with the classes {classes!r}: {e}") from None
    idx = np.minimum(idx, len(classes) - 1)
    unknown = np.flatnonzero(classes[idx] != flat)
    if len(unknown):
        at = int(np.searchsorted(np.cumsum([len(b) for b in lists]), unknown[0], side="right"))
        raise ValueError(f"candidate label {flat[unknown[0]].item()!r} of example {at} is not among the classes {classes.tolist()}")
    offsets = np.concatenate([[0], np.cumsum([len(b) for b in lists])])
    return classes, offsets.astype(np.int64), idx.astype(np.int64)


class AmbiguousLaRankClassifier(_LaRankBase):
    """Multiclass SVM trained online by LaRank from bags of candidate labels.

    Each training example comes with a set of candidate labels that holds its true label (or is
    meant to), without saying which (Bordes 2010, chapter 6). As in the thesis' AmbigSVM step, a
    pattern's positive label is the candidate the current model scores highest, chosen when the
    pattern becomes a support pattern and kept while it stays one; its negative labels are the
    most violating ones *outside* the bag, so the other candidates are never pushed down. Every
    step raises the multiclass dual of the current choice of labels; the model minimises
    ``1/2 ||w||^2 + C sum_i [1 - max_{y in bag_i} S_y(x_i) + max_{y not in bag_i} S_y(x_i)]_+``.
    With one candidate per example it is `LaRankClassifier`, step for step.

    Parameters
    ----------
    C : float, default=1.0
        Bound on each example's coefficient of its positive label, as in `LaRankClassifier`.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, callable or Kernel, default="rbf"
        The kernel, as in `SVC`.
    degree : int, default=3
        The polynomial kernel's degree.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly and sigmoid, as in `SVC`.
    coef0 : float, default=0.0
        The constant term of the poly and sigmoid kernels.
    method : {"larank", "mira", "ambigsvm"}, default="larank"
        ``"mira"`` takes one step per new example only (passive-aggressive); ``"ambigsvm"`` is the
        thesis' AmbigSVM dual step (Algorithm 23): one passive-aggressive step per example on the
        mean pairwise hinge loss between the candidates and the other labels (no positive label is
        chosen; ``dual_`` is NaN and ``support_labels_`` the candidate that scored best when a
        pattern was last stepped on).
    schedule : {"adaptive", "fixed"}, default="adaptive"
        As in `LaRankClassifier`.
    n_reprocess : int, default=1
        As in `LaRankClassifier`.
    clock : {"cost", "wall"}, default="cost"
        As in `LaRankClassifier`.
    tol : float, default=1e-4
        As in `LaRankClassifier`.
    epochs : int or None, default=None
        As in `LaRankClassifier` (None: passes until 10,000 examples are seen, at most three).
    until_gap : bool, default=False
        As in `LaRankClassifier`.
    cache_size : float or "auto", default=200
        The kernel cache, in MB; ``"auto"`` as in `SVC` (the whole kernel matrix within a quarter
        of the available memory, at least 200 MB).
    random_state : int, RandomState or None, default=None
        The order of the passes and the schedule's draws.
    n_jobs : int or None, default=None
        Threads for the kernel and prediction, as in `SVC`.
    verbose : bool, default=False
        Report progress (see the ``largemargin`` logger).

    Attributes
    ----------
    support_labels_ : ndarray of shape (n_SV,)
        The candidate each support pattern was trained on (its positive label).
    n_support_ : ndarray of shape (n_classes,)
        Support patterns per positive label.
    classes_, support_, support_vectors_, dual_coef_, coef_, intercept_, dual_, duality_gap_
        As in `LaRankClassifier`.
    n_support_vectors_, n_kernel_evals_, n_argmax_, n_iter_, dual_per_epoch_, gap_per_epoch_
        As in `LaRankClassifier`.
    steps_, fit_time_, objective_, shape_fit_, n_features_in_, fit_status_
        As in `LaRankClassifier`.

    See Also
    --------
    make_ambiguous : Simulate bags of candidate labels from plain labels.
    LaRankClassifier : The same solver on plain labels.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[0.0, 0.0], [0.2, 0.1], [3.0, 0.0], [3.1, 0.2], [0.0, 3.0], [0.1, 3.2]])
    >>> bags = [[0], [0, 2], [1], [1, 0], [2], [2, 1]]
    >>> clf = lm.AmbiguousLaRankClassifier(random_state=0).fit(X, bags)
    >>> clf.predict([[0.1, 0.1], [2.9, 0.1], [0.0, 2.8]])
    array([0, 1, 2])
    >>> clf.disambiguate(X, bags)
    array([0, 0, 1, 1, 2, 2])
    """

    _parameter_constraints = {**_LaRankBase._parameter_constraints, "method": [Options(AMBIGUOUS_METHODS)]}

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, method="larank",
                 schedule="adaptive", n_reprocess=1, clock="cost", tol=1e-4, epochs=None, until_gap=False,
                 cache_size=200, random_state=None, n_jobs=None, verbose=False):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.method = method
        self.schedule = schedule
        self.n_reprocess = n_reprocess
        self.clock = clock
        self.tol = tol
        self.epochs = epochs
        self.until_gap = until_gap
        self.cache_size = cache_size
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    @unchanged_on_failure
    def fit(self, X, y, classes=None, sample_weight=None):
        """Fit on X and bags of candidate labels y.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (or the kernel matrix with ``kernel="precomputed"``).
        y : sequence of label sets or array-like of bool of shape (n_samples, n_classes)
            The candidate labels: a sequence of label sets (lists, arrays, sets; a single label is a
            set of one), or a boolean mask whose columns are ``classes`` (default
            0..n_classes-1). No set may be empty.
        classes : array-like of shape (n_classes,), default=None
            All the labels (default: those that occur in y); a candidate outside them is an error.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample C multipliers (non-negative).

        Returns
        -------
        self : AmbiguousLaRankClassifier
            The fitted estimator.
        """
        started = time.perf_counter()
        self._validate_params()
        classes, offsets, labels = _parse_bags(y, classes)
        n = len(offsets) - 1
        X, Xk, _, sample_weight = self._prepare_fit(X, np.zeros(n), sample_weight)
        self.classes_ = classes
        if self._python_kernel is not None:
            self._X_fit = X
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_ambiguous(
            to_native(Xk), offsets, labels, n_classes=len(classes), sample_weight=np.ascontiguousarray(sample_weight, dtype=np.float64),
            kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, method_name=self.method, schedule=self.schedule, reprocess=int(self.n_reprocess), clock=self.clock,
            c=float(self.C), tol=float(self.tol), epochs=self._epochs(n), until_gap=bool(self.until_gap), cache_size=native_cache_size(self.cache_size, Xk),
            seed=draw_seed(self.random_state), n_jobs=self.n_jobs, verbose=bool(self.verbose),
        )
        support = fit["support"]
        self._store(fit, Xk, fit["support_label"], sample_weight[support], started)
        self.support_labels_ = classes[fit["support_label"]]
        return self

    def disambiguate(self, X, y):
        """The best-scoring candidate of each example: the labels the model attributes to the bags.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.
        y : sequence of label sets or array-like of bool of shape (n_samples, n_classes)
            Their candidate sets, as in `fit`, over the fitted classes.

        Returns
        -------
        ndarray of shape (n_samples,)
            For each example, the candidate of its bag with the largest score.
        """
        check_is_fitted(self)
        _, offsets, labels = _parse_bags(y, self.classes_)
        scores = self._scores(X)
        if scores.shape[0] != len(offsets) - 1:
            raise ValueError(f"X has {scores.shape[0]} samples but there are {len(offsets) - 1} candidate sets")
        rows = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
        masked = np.full(scores.shape, -np.inf)
        masked[rows, labels] = scores[rows, labels]
        return self.classes_[np.argmax(masked, axis=1)]


def make_ambiguous(y, level, classes=None, random_state=None):
    """Candidate label sets for labels y at an ambiguity level, as in the thesis' simulations.

    Level n means each bag holds the correct label plus n incorrect ones on average. Each example
    gets a number of distractors drawn uniformly from 0..2n (mean n), picked without replacement
    and uniformly among the other classes ("unbiased ambiguity": the condition under which the
    thesis' Theorem 12 shows the correct label is learnt). Level 0 gives one label per bag.

    Parameters
    ----------
    y : array-like of shape (n_samples,)
        The correct labels.
    level : int
        Average number of incorrect candidates, >= 0; 2 * level must not exceed the number of
        classes minus one.
    classes : array-like, default=None
        The label set the distractors come from (default: the labels in y).
    random_state : int, RandomState or None, default=None
        Seeds the number and choice of the distractors.

    Returns
    -------
    list of ndarray
        One sorted array of candidate labels per example, for `AmbiguousLaRankClassifier.fit`.

    See Also
    --------
    AmbiguousLaRankClassifier : Learns from such bags.

    Examples
    --------
    >>> import largemargin as lm
    >>> bags = lm.make_ambiguous([0, 1, 2, 3, 4], level=1, random_state=0)
    >>> [bag.tolist() for bag in bags]
    [[0], [1, 4], [2], [1, 3], [3, 4]]
    """
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-D, got shape {y.shape}")
    check_number("level", level, Interval(Integral, 0, None))
    classes = np.unique(y) if classes is None else np.unique(np.asarray(classes))
    unknown = np.setdiff1d(np.unique(y), classes)
    if len(unknown):
        raise ValueError(f"labels {unknown!r} are not among the classes {classes!r}")
    k = len(classes)
    if 2 * level > k - 1:
        raise ValueError(f"level {level} needs at least {2 * level + 1} classes (up to {2 * level} distractors), got {k}")
    rng = check_random_state(random_state)
    counts = rng.randint(0, 2 * level + 1, size=len(y))
    true_idx = np.searchsorted(classes, y)
    bags = []
    for t, m in zip(true_idx, counts):
        if m == 0:
            bags.append(classes[[t]])
            continue
        # m distinct classes among the k - 1 others: draw from 0..k-2 and skip over t
        pick = rng.choice(k - 1, size=m, replace=False)
        pick = pick + (pick >= t)
        bags.append(classes[np.sort(np.concatenate([[t], pick]))])
    return bags
