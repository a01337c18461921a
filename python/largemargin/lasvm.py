"""`LaSVM`, the online SVM solved in Rust, with example-selection strategies from the plugin
registry (built in: random, gradient, active, autoactive) and an oracle for active learning.
More than two classes are one-vs-one pairs (each pair the subset of its two classes, over one
kernel engine), or one-vs-rest on request."""

import numbers
import threading
import time
import warnings
from numbers import Integral

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from . import _native
from ._arrays import native_cache_size
from ._base import _after_support, _chunk, _OnlineClassifier, _rows
from ._checks import warn_not_converged
from ._guard import unchanged_on_failure
from ._options import DECISION_SHAPES, MULTICLASS
from ._validation import Interval, Options, Registered
from .exceptions import InvalidParameterError
from .plugins import NativeStrategy, get_registry
from .plugins.checked import CheckedStrategyFactory


class LaSVM(_OnlineClassifier):
    """Online kernel SVM: LaSVM, one pass over the data and a finishing step.

    LaSVM (Bordes, Ertekin, Weston, Bottou 2005) is an online SVM solver that needs one pass over
    the data (``epochs=1``) and a finishing step to come close to the batch SVM, with far fewer
    kernel evaluations. Multiclass problems are one binary LaSVM per pair of classes (as `SVC`),
    solved in parallel. `partial_fit` continues a model over a stream of chunks, and `fit` with an
    ``oracle`` does pool-based active learning.

    Parameters
    ----------
    C : float, default=1.0
        The box constraint: the penalty of a margin violation, as in `SVC`.
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, callable or Kernel, default="rbf"
        The kernel, as in `SVC`.
    degree : int, default=3
        The polynomial kernel's degree.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly and sigmoid, as in `SVC`.
    coef0 : float, default=0.0
        The constant term of the poly and sigmoid kernels.
    tol : float, default=1e-3
        The finishing step's stopping tolerance on the gap g_max - g_min.
    epochs : int, default=1
        Online passes over the data (the thesis' LaSVM x1, x2).
    max_iter : int or None, default=None
        At most this many online iterations (one PROCESS and one REPROCESS each) per binary
        problem and call of `fit` or `partial_fit`, over all epochs, after the 5 + 5 seed
        examples; None or -1: no limit. With an oracle it is also the labelling budget: at most
        this many questions in all, in equal shares over the binary problems (see `fit`'s
        ``oracle``); over a growing budget with the same ``random_state``, the fits follow one
        trajectory (the thesis' learning curves). Without an oracle, a budget that ends the
        passes before every example was processed warns (ConvergenceWarning).
    finishing : bool, default=True
        After the passes, run SMO on the expansion set until no tol-violating pair is left
        (in rounds, evicting what can no longer become a support vector after each).
    shrinking : bool, default=False
        LIBSVM's shrinking in the finishing step. It sets bounded variables aside, which needs
        the part of the gradient they make kept on the side, hence their rows once: on adult the
        finishing is about a fifth faster but computes several times more kernel values. Off by
        default, so that LaSVM keeps to about S x R kernel values.
    selection : str or callable, default="random"
        How the next example is picked: ``"random"``; ``"gradient"`` (of ``candidates`` random
        examples, the most misclassified); ``"active"`` (the closest to the boundary);
        ``"autoactive"`` (draws candidates until 5 lie inside the margin band, at most
        2 x ``candidates``, and stops the pass when none does); or any strategy a plugin registers,
        by name, or a factory ``make(random_state)`` (see ``largemargin.plugins.hookspecs``).
    candidates : int, default=50
        Candidates scored per step by the built-in gradient / active strategies.
    multiclass : {"ovo", "ovr"}, default="ovo"
        With more than two classes: ``"ovo"``, one problem per pair of classes on the examples of
        those two (k(k-1)/2 small problems; predictions by votes, equal votes going to the class
        with the larger summed pair decisions, as scikit-learn's ``OneVsOneClassifier`` and
        ``SVC(break_ties=True)``), or ``"ovr"``, one problem per class against all the others
        (k problems on all the data). The fitted layout is kept: changing it later needs `fit`.
        One-vs-one was chosen on the benchmark suite (``benches/suite.py``): one-vs-rest LaSVM
        lost more than a point to `SVC` on vowel, iris, marketing, segment, letter and
        movement_libras, one-vs-one on none of them, and fits faster on letter.
    decision_function_shape : {"ovr", "ovo"}, default="ovr"
        The shape of `decision_function` for more than two classes; ``"ovo"`` needs
        ``multiclass="ovo"``.
    cache_size : float or "auto", default="auto"
        The kernel cache, in MB; ``"auto"`` as in `SVC` (the whole kernel matrix within a quarter of
        the available memory, at least 200 MB).
    class_weight : dict or "balanced", default=None
        C of class i is ``class_weight[i] * C``. `partial_fit` refuses ``"balanced"``, and `fit`
        with an oracle refuses any class weight.
    verbose : bool, default=False
        Report progress (see the ``largemargin`` logger).
    random_state : int, RandomState or None, default=None
        Seeds the order in which examples are picked.
    n_jobs : int or None, default=None
        Threads for the binary problems and prediction, as in `SVC`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    class_weight_ : ndarray of shape (n_classes,)
        The multiplier of C per class.
    support_ : ndarray of shape (n_SV,)
        Sorted indices of the support vectors in the training set; after `partial_fit`, indices
        into the previous support vectors followed by the chunk.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors.
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        One row per binary problem, in the order of the pairs (0, 1), (0, 2), ..., (1, 2), ...
        for one-vs-one, zero where a support vector is not in that problem's expansion.
    intercept_ : ndarray of shape (n_problems,)
        The bias of each binary problem.
    n_kernel_evals_ : int
        Kernel values computed by the last call.
    objective_ : ndarray of shape (n_problems,)
        The dual objective per problem.
    gap_ : ndarray of shape (n_problems,)
        g_max - g_min per problem.
    n_processed_ : ndarray of shape (n_problems,)
        PROCESS calls per problem (also in ``n_iter_``), the 5 + 5 seed examples' included: a
        seed evicted from the expansion is processed again when the pass reaches it.
    n_iter_ : ndarray of shape (n_problems,)
        As ``n_processed_``.
    fit_status_ : int
        1 if the finishing step left a gap above ``tol`` in some problem (with a
        ConvergenceWarning), else 0 (always 0 with ``finishing=False``). A pass cut short by
        ``max_iter`` gives a ConvergenceWarning of its own.
    fit_time_ : float
        Seconds the last call took.
    shape_fit_ : tuple
        The shape of the data of the last call (support vectors and chunk for `partial_fit`).
    n_features_in_ : int
        Features seen in `fit`.
    queried_ : ndarray of shape (n_queried,)
        After a fit with an oracle: the examples asked, in order.
    queried_labels_ : ndarray of shape (n_queried,)
        After a fit with an oracle: the answers.

    See Also
    --------
    SVC : The batch SVM that LaSVM approximates.
    Huller : An online hard-margin SVM.
    KernelPerceptron : The kernel perceptron family.
    LaRankClassifier : An online multiclass SVM, one problem for all the classes.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-1.5, -2.0], [1.0, 1.0], [2.0, 1.0], [1.5, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = lm.LaSVM(C=10, random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])

    Over a stream: chunks by `partial_fit` (``classes`` on the first call), then the finishing
    step.

    >>> stream = lm.LaSVM(C=10, finishing=False, random_state=0)
    >>> stream = stream.partial_fit(X[[0, 3]], y[[0, 3]], classes=[0, 1])
    >>> stream = stream.partial_fit(X[[1, 2, 4, 5]], y[[1, 2, 4, 5]])
    >>> stream.finish().predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])
    """

    def __init__(self, *, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, epochs=1,
                 max_iter=None, finishing=True, shrinking=False, selection="random", candidates=50, multiclass="ovo",
                 decision_function_shape="ovr", cache_size="auto", class_weight=None, verbose=False, random_state=None,
                 n_jobs=None):
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.epochs = epochs
        self.max_iter = max_iter
        self.finishing = finishing
        self.shrinking = shrinking
        self.selection = selection
        self.candidates = candidates
        self.multiclass = multiclass
        self.decision_function_shape = decision_function_shape
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    _parameter_constraints = {
        **_OnlineClassifier._parameter_constraints,
        "max_iter": [Interval(Integral, 1, None), Options((-1,), Integral), None],
        "finishing": ["boolean"],
        "shrinking": ["boolean"],
        "selection": [Registered("selection_strategy"), "callable"],
        "candidates": [Interval(Integral, 1, None)],
        "multiclass": [Options(MULTICLASS)],
        "decision_function_shape": [Options(DECISION_SHAPES)],
    }

    def _check_relations(self):
        """The kernel and the selection strategy resolved."""
        super()._check_relations()
        selection = self.selection
        if isinstance(selection, str):
            selection = get_registry().resolve("selection_strategy", selection)
        if not (isinstance(selection, NativeStrategy) or callable(selection)):
            raise InvalidParameterError(f"selection strategy {self.selection!r} is not a factory: {selection!r}")
        if not isinstance(selection, (NativeStrategy, CheckedStrategyFactory)):
            selection = CheckedStrategyFactory(getattr(selection, "__name__", type(selection).__name__), None, selection)
        self._selection = selection

    def _strategy_arg(self, n_problems, seed):
        """The native argument: a built-in strategy's name, or one Python strategy per problem."""
        if isinstance(self._selection, NativeStrategy):
            return self._selection.name
        strategies = []
        for p in range(n_problems):
            s = self._selection(random_state=seed + p)
            if not hasattr(s, "choose") or not hasattr(s, "n_candidates"):
                raise ValueError(f"selection strategy {self.selection!r} made {s!r}, which lacks n_candidates or choose")
            strategies.append(s)
        return strategies

    @unchanged_on_failure
    def fit(self, X, y, sample_weight=None, *, oracle=None, classes=None):
        """Fit on labelled data, or on a pool whose labels an oracle gives on demand.

        With ``oracle``, a callable ``oracle(i) -> label``, labels in y may be unknown (None or
        NaN; y itself may be None): when the selection strategy picks training example i whose
        label is unknown, LaSVM asks ``oracle(i)`` once and learns from the answer. That is pool-based
        active learning: ``selection="active"`` asks for the label of the example closest to the
        boundary among ``candidates`` random ones, and ``max_iter`` caps the questions. ``classes``
        lists the classes when the known labels do not show them all. Per-example boxes must be
        known before the labels, so ``class_weight`` is not taken with an oracle. With more than
        two classes the binary problems ask in turn, each within an equal share of ``max_iter``
        (an answer outside a pair still counts), and the model is then fitted on every label
        known. The oracle is called from a worker thread, one call at a time.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (or the kernel matrix with ``kernel="precomputed"``).
        y : array-like of shape (n_samples,) or None
            Class labels; with an oracle, None or NaN where unknown (or None for all).
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample C multipliers (non-negative).
        oracle : callable, default=None
            ``oracle(i) -> label``, asked for the label of training example i when it is picked and
            unknown. It must return one of the classes.
        classes : array-like of shape (n_classes,), default=None
            With an oracle only: every class, when the known labels do not show them all.

        Returns
        -------
        self : LaSVM
            The fitted estimator (with ``queried_`` and ``queried_labels_`` after an oracle fit).
        """
        if oracle is None:
            if classes is not None:
                raise ValueError("classes is taken by fit only with an oracle (partial_fit takes it always)")
            super().fit(X, y, sample_weight)
            for stale in ("queried_", "queried_labels_"):
                self.__dict__.pop(stale, None)  # from an earlier oracle fit
            return self
        started = time.perf_counter()
        if not callable(oracle):
            raise ValueError(f"oracle must be a callable oracle(i) -> label, got {oracle!r}")
        if self.class_weight is not None:
            raise ValueError("class_weight needs the labels before the fit: it cannot be used with an oracle")
        n = _rows(X)
        y = np.full(n, None, dtype=object) if y is None else np.asarray(y, dtype=object)
        if y.ndim != 1 or len(y) != n:
            raise ValueError(f"y must hold one label (or None) per example: {y.shape} for {n} examples")
        unknown = np.array([v is None or (isinstance(v, numbers.Real) and np.isnan(v)) for v in y], dtype=bool)
        known = np.asarray(y[~unknown].tolist())
        X, Xk, _, sample_weight = self._prepare_fit(X, np.zeros(n), sample_weight)
        if len(known):
            check_classification_targets(known)
        if classes is None:
            self.classes_ = np.unique(known)
        else:
            # with no label known yet, the classes keep their own type (integers stay integers)
            self.classes_ = np.unique(np.concatenate([np.asarray(classes), known]) if len(known) else np.asarray(classes))
        if len(self.classes_) < 2:
            raise ValueError(f"an oracle fit needs at least two classes, from classes or the known labels; "
                             f"got {self.classes_!r}")
        self.class_weight_ = np.ones(len(self.classes_))
        y_idx = np.full(n, -1, dtype=np.intp)
        y_idx[~unknown] = np.searchsorted(self.classes_, known)
        asked = []
        problems = self._problems()
        # one question per example, whichever problem picks it first (the lock: problems on
        # several threads may pick the same example at once)
        asking = threading.Lock()
        # the budget in equal shares, one per binary problem, the remainder to the first ones
        budget = None if self.max_iter in (None, -1) else int(self.max_iter)
        share = None if budget is None else [budget // len(problems) + (p < budget % len(problems))
                                              for p in range(len(problems))]
        asked_by = [0] * len(problems)

        def native_oracle(problem, i):
            with asking:
                if y_idx[i] < 0:
                    if share is not None and asked_by[problem] >= share[problem]:
                        return float("nan")  # this problem's share is spent: its pass ends
                    asked_by[problem] += 1
                    label = oracle(int(i))
                    if label is None or (isinstance(label, numbers.Real) and np.isnan(label)):
                        raise ValueError(f"oracle({i}) returned {label!r}: it must give the example's class")
                    pos = int(np.searchsorted(self.classes_, label)) if np.ndim(label) == 0 else len(self.classes_)
                    if pos >= len(self.classes_) or self.classes_[pos] != label:
                        raise ValueError(f"oracle({i}) returned {label!r}, which is not one of the classes {self.classes_!r}")
                    y_idx[i] = pos
                    asked.append(int(i))
                return self._label(problems[problem], y_idx[i])

        sample_c = float(self.C) * sample_weight
        self._solve(X, Xk, y_idx, sample_c, None, started, oracle=native_oracle)
        if len(problems) > 1:
            # each problem asked its own questions: the model is then trained on every label
            # known, as a plain fit on those examples
            rows = np.flatnonzero(y_idx >= 0)
            raw = X[rows] if hasattr(X, "shape") else [X[i] for i in rows]
            Xk_known = Xk[np.ix_(rows, rows)] if self._native_kernel == "precomputed" else Xk[rows]
            self._solve(raw, Xk_known, y_idx[rows], sample_c[rows], None, started)
            self.support_ = rows[self.support_].astype(np.int32)
        self.queried_ = np.array(asked, dtype=np.intp)
        self.queried_labels_ = self.classes_[y_idx[self.queried_]]
        return self

    @unchanged_on_failure
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """One online pass over a new chunk, continuing from the current support vectors.

        The pass (and the finishing step if enabled) starts from the current support vectors:
        old data is not revisited. ``classes`` is needed on the first call, which also fixes the
        kernel (``gamma="scale"`` is not re-estimated later). A fitted or unpickled model continues
        where it stopped. A chunk of a single class, given to a model that has no support vector of
        the other, teaches nothing (with a UserWarning): shuffle a stream sorted by class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The chunk.
        y : array-like of shape (n_samples,)
            Its class labels, all among ``classes``.
        classes : array-like of shape (n_classes,), default=None
            Every class of the stream; needed on the first call.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample C multipliers (non-negative).

        Returns
        -------
        self : LaSVM
            The updated estimator.
        """
        started = time.perf_counter()
        if hasattr(self, "_fitted_pairs") and len(self.classes_) > 2 and self._fitted_pairs != (self.multiclass == "ovo"):
            raise ValueError(f"multiclass={self.multiclass!r} differs from the model being continued "
                             f"({'ovo' if self._fitted_pairs else 'ovr'}): partial_fit cannot change it, fit anew")
        first, X, Xk, y_idx, weight = _chunk(self, X, y, classes, sample_weight)
        sample_c = float(self.C) * weight
        if first:
            self._solve(X, Xk, y_idx, sample_c, None, started)
            self._warn_if_nothing_kept()
            return self
        # the current support vectors first (their coefficients start the expansion), then the chunk
        raw, Xk_all = _after_support(self, X, Xk)
        y_all = np.concatenate([self._sv_class, y_idx])
        c_all = np.concatenate([self._sv_c, sample_c])
        self._solve(raw, Xk_all, y_all, c_all, [row for row in np.asarray(self._dual_coef_)], started)
        self._warn_if_nothing_kept()
        return self

    def _warn_if_nothing_kept(self):
        # A chunk of one class cannot start a binary problem, and partial_fit keeps nothing but
        # support vectors: such a chunk is lost (a stream sorted by class loses most of itself).
        if len(self.support_) == 0:
            warnings.warn("LaSVM.partial_fit: no support vector after this chunk (it holds a single class and the "
                          "model none of the other): nothing was learned from it; shuffle the stream or give chunks "
                          "with both classes", UserWarning)

    @unchanged_on_failure
    def finish(self):
        """Run the finishing step on the current expansion.

        SMO on the support vectors until no tol-violating pair is left. For a model trained with
        ``finishing=False`` (over a stream, with `partial_fit`) when a finished model is wanted.

        Returns
        -------
        self : LaSVM
            The finished estimator.
        """
        check_is_fitted(self)
        started = time.perf_counter()
        sv = self.support_vectors_
        raw = sv if self._python_kernel is not None else None
        Xk = sv if self._python_kernel is None else np.empty((_rows(sv), 0))
        warm = [row for row in np.asarray(self._dual_coef_)]
        self._solve(raw, Xk, self._sv_class, self._sv_c, warm, started, finishing=True)
        return self

    def _run(self, Xk, labels, sample_c, kernel, gamma, coef0, degree, seed, warm, finishing, oracle):
        max_iter = None if self.max_iter in (None, -1) else int(self.max_iter)
        # with an oracle, the problems run one after the other: which of them asks an example
        # first (and so spends its budget on it) must not depend on thread timing
        n_jobs = 1 if oracle is not None and len(labels) > 1 else self.n_jobs
        return _native.fit_lasvm(
            Xk, labels, sample_c=sample_c, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, tol=float(self.tol),
            epochs=int(self.epochs) if warm is None else 1, max_iter=max_iter, finishing=bool(self.finishing if finishing is None else finishing),
            shrinking=bool(self.shrinking), selection=self._strategy_arg(len(labels), seed), candidates=int(self.candidates), cache_size=native_cache_size(self.cache_size, Xk), seed=seed, warm=warm, oracle=oracle,
            n_jobs=n_jobs, verbose=bool(self.verbose),
        )

    def _converged(self, problem):
        return not self.finishing or problem["gap"] <= self.tol

    def _after_fit(self, problems, oracle):
        self.gap_ = np.array([p["gap"] for p in problems])
        self.n_processed_ = self.n_iter_
        cut = sum(bool(p["stopped_by_max_iter"]) for p in problems)
        if cut and oracle is None:  # with an oracle, max_iter is the labelling budget: spent as asked
            warn_not_converged(
                f"LaSVM stopped at max_iter={self.max_iter} online iterations before the end of its "
                f"{self.epochs} epoch(s) in {cut} of {len(problems)} binary problem(s): some examples were never "
                "processed. Increase max_iter (or set it to None) or lower epochs.")
