"""`SequenceLabeler`: linear large-margin sequence labeling solved in Rust (LaRankGreedy and
LaRankExact, passive-aggressive, the structured perceptron), and the checks that turn its inputs
(token sequences, numeric sequences or a token matrix with lengths) into the native CSR parts."""

import copy
import numbers
import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.metrics import accuracy_score
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from .. import _native
from .._base.estimator import BaseEstimator
from .._checks import draw_seed, warn_not_converged
from .._guard import unchanged_on_failure
from .._options import ADAPTIVE, INFERENCES, SEQUENCE_METHODS
from .._validation import HasMethods, Interval, Options
from ..exceptions import InvalidParameterError
from .features import WindowFeatures
from .metrics import token_accuracy

__all__ = ["MAX_REPROCESS", "SequenceLabeler"]

# REPROCESS rounds per new pattern: each is 11 steps; more than this is a mistake, not a setting
MAX_REPROCESS = 1000


def _numeric_parts(sequences, n_features=None):
    """CSR parts of sequences given as 2-D arrays or sparse matrices (one row per token)."""
    rows, seq_ptr = [], [0]
    for i, s in enumerate(sequences):
        m = sp.csr_matrix(s, dtype=np.float64) if sp.issparse(s) else np.asarray(s, dtype=np.float64)
        if m.ndim != 2:
            raise ValueError(f"sequence {i}: a numeric sequence must be 2-D (tokens x features), got shape {m.shape}")
        if n_features is not None and m.shape[1] != n_features:
            raise ValueError(f"sequence {i} has {m.shape[1]} features, the model was fitted with {n_features}")
        n_features = m.shape[1]
        rows.append(sp.csr_matrix(m))
        seq_ptr.append(seq_ptr[-1] + m.shape[0])
    x = sp.vstack(rows, format="csr") if rows else sp.csr_matrix((0, n_features or 0))
    x.sum_duplicates()
    x.sort_indices()
    if not np.all(np.isfinite(x.data)):
        raise ValueError("feature values must be finite")
    return (x.indptr.astype(np.int64), x.indices.astype(np.int32), x.data.astype(np.float64),
            np.asarray(seq_ptr, dtype=np.int64), x.shape[1])


def _check_sequences(X):
    if isinstance(X, (str, bytes)) or not hasattr(X, "__len__"):
        raise ValueError("X must be a list of sequences")
    if len(X) == 0:
        raise ValueError("X holds no sequences")


def _is_numeric(seq):
    return sp.issparse(seq) or isinstance(seq, np.ndarray)


def _is_token_matrix(X):
    """X is one matrix with a row per token (an array, a sparse matrix, a data frame, a list of
    numeric rows), not a list (or tuple, or 1-D object array) of sequences. A list of rows of
    numbers cannot be sequences: numbers are not tokens."""
    if isinstance(X, (str, bytes)):
        return False
    if isinstance(X, (list, tuple)) or (isinstance(X, np.ndarray) and X.ndim == 1 and X.dtype == object):
        return len(X) > 0 and all(_is_numeric_row(row) for row in X)
    return True


def _is_numeric_row(row):
    if isinstance(row, np.ndarray):
        return row.ndim == 1 and row.dtype.kind in "biuf"
    return (isinstance(row, (list, tuple)) and len(row) > 0
            and all(isinstance(v, numbers.Number) for v in row))


def _sequence_pointers(lengths, n):
    """Where each sequence of a token matrix of n rows starts (and the last ends); without
    `lengths`, every row is a sequence of its own."""
    if lengths is None:
        return np.arange(n + 1, dtype=np.int64)
    lengths = np.asarray(lengths)
    if lengths.ndim != 1 or lengths.dtype.kind not in "iu" or np.any(lengths < 1) or lengths.sum() != n:
        raise ValueError(f"lengths must be positive integers, one per sequence, adding up to the {n} rows of X; "
                         f"got {lengths!r:.80}")
    return np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)


def _two_classes(classes):
    if len(classes) < 2:
        raise ValueError(f"sequence labeling needs at least two distinct labels, got one class: {list(classes)}")


class SequenceLabeler(BaseEstimator):
    """Linear sequence labeler trained online over the structured SVM's dual.

    LaRankGreedy and LaRankExact (Bordes, Usunier, Bottou 2008), with passive-aggressive and the
    structured perceptron as baselines. The model scores label y at token t as
    <W_y, x_t> + sum_{s=1..k} T_s[y_{t-s}, y] (emission weights per label and feature, one
    transition table per lag s of the Markov order k).

    X is either a list of sequences (each a list of tokens, or a 2-D array or sparse matrix of
    tokens x features) with y a list of label sequences, or, as for any classifier, one 2-D array
    (or sparse matrix, or list of numeric rows) with a row per token and y one label per row; then
    ``lengths`` (of `fit`, `predict` and `score`) gives the number of tokens of each sequence,
    consecutive rows in order (None: every row is a sequence of its own).

    Parameters
    ----------
    method : {"larank_greedy", "larank_exact", "perceptron", "pa"}, default="larank_greedy"
        "larank_greedy": LaRank on tokens (0/1 loss, true previous labels as context), predicting
        greedily left to right with order ``markov_order``. "larank_exact": LaRank on whole
        sequences (Hamming loss, loss-augmented Viterbi, order 1). "pa": passive-aggressive, i.e.
        LaRank without reprocessing. "perceptron": the structured perceptron (averaged when
        ``average``). The baselines use ``inference``; with greedy inference they train on tokens
        with their true previous labels, as LaRankGreedy does.
    C : float, default=0.1
        Bound on each pattern's coefficients (the slack penalty).
    epochs : int or None, default=None
        Passes over the sequences in random order: one when None (the online setting), or with
        ``until_gap`` the most passes (100 when None).
    until_gap : bool, default=False
        Continue the passes until the duality gap is below C (the thesis' LaRankGreedyGap, a
        batch reference); the gap is computed after each pass. LaRank and PA only; a
        ConvergenceWarning says when ``epochs`` ran out first.
    markov_order : int or None, default=None
        The order k; None: 2 for greedy inference, 1 for exact (the only order Viterbi supports
        here).
    n_reprocess : int, "adaptive" or None, default=None
        REPROCESS rounds (1 PROCESSOLD + 10 OPTIMIZE) per new pattern (the fixed schedule); None:
        1 for "larank_greedy", 5 for "larank_exact". "adaptive": the LaRank methods draw each next
        operation by its recent dual increase per unit of work (Algorithm 22, the schedule of the
        multiclass `LaRankClassifier`; work counted in entries read and written, so a fit depends
        on the seed only). LaRank methods only.
    inference : {"greedy", "exact"} or None, default=None
        Inference of "perceptron" and "pa" (default "greedy"); fixed by the LaRank methods.
    average : bool, default=True
        The perceptron predicts with the average of all intermediate models.
    tol : float, default=1e-4
        The tolerance tau: a step is made only when its two gradients differ by at least this.
    features : object with fit and transform, default=None
        How token sequences become sparse features; None: ``WindowFeatures()``. A replacement
        has ``fit(sequences)`` and ``transform(sequences)`` returning CSR parts as
        `WindowFeatures.transform` does; a copy of it is fitted. Sequences given as 2-D arrays or
        sparse matrices (tokens x features) are used as they are.
    random_state : int, RandomState or None, default=None
        The order of the passes and the schedule's draws.
    verbose : bool, default=False
        Report progress from the native solver.

    Attributes
    ----------
    classes_ : ndarray of shape (n_labels,)
        The labels, sorted.
    coef_ : ndarray of shape (n_labels, n_features)
        The emission weights.
    transitions_ : ndarray of shape (k, n_labels + 1, n_labels)
        The transition tables, one per lag, the previous label START last.
    markov_order_ : int
        The order k used.
    inference_ : str
        The inference used, ``"greedy"`` or ``"exact"``.
    dual_ : float
        The dual objective (NaN for the perceptron).
    duality_gap_ : float
        The duality gap (NaN unless computed).
    dual_per_epoch_ : ndarray
        The dual objective after each pass.
    gap_per_epoch_ : ndarray
        The duality gap after each pass, when computed.
    n_support_patterns_ : int
        Patterns with a nonzero coefficient.
    n_support_vectors_ : int
        Nonzero coefficients.
    n_inference_calls_ : int
        Calls of the inference.
    n_iter_ : int
        Passes made.
    steps_ : dict
        Counts of each operation (``"process_new"``, ``"process_old"``, ``"optimize"``) and of
        the steps that changed a coefficient (``"steps"``).
    fit_time_ : float
        Seconds the native fit took.
    features_ : object or None
        The fitted extractor, or None for numeric input.
    n_features_in_ : int
        Features per token.

    See Also
    --------
    WindowFeatures : The default features of text tokens.
    read_conll : Read CoNLL-2000 style files.
    chunk_f1 : Score B-/I-/O tag sequences.
    LaRankClassifier : LaRank on independent examples.

    Examples
    --------
    >>> import largemargin as lm
    >>> X = [[("The", "DT"), ("cat", "NN"), ("sat", "VBD")],
    ...      [("A", "DT"), ("dog", "NN"), ("ran", "VBD")]]
    >>> y = [["B-NP", "I-NP", "O"], ["B-NP", "I-NP", "O"]]
    >>> tagger = lm.SequenceLabeler(random_state=0).fit(X, y)
    >>> tagger.predict([[("A", "DT"), ("cat", "NN"), ("sat", "VBD")]])
    [['B-NP', 'I-NP', 'O']]
    """

    def __init__(self, method="larank_greedy", *, C=0.1, epochs=None, until_gap=False, markov_order=None, n_reprocess=None,
                 inference=None, average=True, tol=1e-4, features=None, random_state=None, verbose=False):
        self.method = method
        self.C = C
        self.epochs = epochs
        self.until_gap = until_gap
        self.markov_order = markov_order
        self.n_reprocess = n_reprocess
        self.inference = inference
        self.average = average
        self.tol = tol
        self.features = features
        self.random_state = random_state
        self.verbose = verbose

    _parameter_constraints = {
        "method": [Options(SEQUENCE_METHODS)],
        "C": [Interval(Real, 0, None, closed="neither")],
        "epochs": [Interval(Integral, 1, None), None],
        "until_gap": ["boolean"],
        "markov_order": [Interval(Integral, 0, None), None],
        "n_reprocess": [Interval(Integral, 0, MAX_REPROCESS), Options((ADAPTIVE,)), None],
        "inference": [Options(INFERENCES), None],
        "average": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "features": [HasMethods("fit", "transform"), None],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def _settings(self):
        """The parameters checked, then as the native fit takes them: (method, inference, Markov
        order, reprocess rounds); what ties them together is checked here."""
        self._validate_params()
        if self.until_gap and self.method == "perceptron":
            raise InvalidParameterError("until_gap needs a dual: use it with the LaRank methods or 'pa'")
        if self.method == "larank_greedy":
            inference = "greedy"
        elif self.method == "larank_exact":
            inference = "exact"
        else:
            inference = "greedy" if self.inference is None else self.inference
        if self.inference is not None and self.inference != inference:
            raise InvalidParameterError(f"method {self.method!r} uses {inference} inference, got inference={self.inference!r}")
        order = self.markov_order
        if order is None:
            order = 2 if inference == "greedy" else 1
        if inference == "exact" and order != 1:
            raise InvalidParameterError(f"exact (Viterbi) inference supports markov_order=1 only, got {order}")
        reprocess = self.n_reprocess
        if reprocess is None:
            reprocess = 5 if self.method == "larank_exact" else 1
        adaptive = reprocess == ADAPTIVE
        if self.n_reprocess is not None and not self.method.startswith("larank"):
            what = "n_reprocess='adaptive' is a LaRank schedule; method {!r} has none" if adaptive else \
                "n_reprocess is LaRank's; method {!r} does not reprocess"
            raise InvalidParameterError(what.format(self.method))
        native = {"larank_greedy": "larank", "larank_exact": "larank", "pa": "pa",
                  "perceptron": "averaged_perceptron" if self.average else "perceptron"}[self.method]
        if adaptive:
            return "larank_adaptive", inference, int(order), 0
        return native, inference, int(order), int(reprocess)

    def _matrix_parts(self, X, lengths, fitting, y=None):
        """CSR parts and sequence pointers of a token matrix (validated as scikit-learn does),
        and y as the classes' indices when fitting."""
        if not fitting and self.features_ is not None:
            raise ValueError("the model was fitted on token sequences; give token sequences")
        if fitting:
            X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
            check_classification_targets(y)
        else:
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        indptr, indices, data, _, n_features = _numeric_parts([X])
        seq_ptr = _sequence_pointers(lengths, X.shape[0])
        if not fitting:
            return indptr, indices, data, seq_ptr, n_features
        classes, codes = np.unique(y, return_inverse=True)
        _two_classes(classes)
        self.features_ = None
        return (indptr, indices, data, seq_ptr, n_features), classes, codes.astype(np.int64)

    def _sequence_labels(self, X, y):
        """CSR parts of a list of sequences, the classes (sorted, as objects) and the flat codes."""
        if isinstance(y, (str, bytes)) or not hasattr(y, "__len__") or len(y) != len(X):
            raise ValueError(f"y must hold one label sequence per sequence of X ({len(X)})")
        parts = self._parts(X, True)
        lengths = np.diff(parts[3])
        flat = []
        for i, (n, labels) in enumerate(zip(lengths, y)):
            if isinstance(labels, (str, bytes)) or not hasattr(labels, "__len__") or len(labels) != n:
                raise ValueError(f"sequence {i} has {n} tokens but its labels are {labels!r:.60}")
            flat.extend(labels)
        if not flat:
            raise ValueError("the sequences hold no tokens")
        if any(lab is None for lab in flat):
            raise ValueError("labels must not be None")
        if any(isinstance(lab, numbers.Real) and lab != lab for lab in flat):
            raise ValueError("labels must not be NaN")
        try:
            classes = sorted(set(flat))
        except TypeError as e:
            raise ValueError(f"labels must be mutually comparable: {e}") from None
        _two_classes(classes)
        index = {c: k for k, c in enumerate(classes)}
        codes = np.fromiter((index[lab] for lab in flat), dtype=np.int64, count=len(flat))
        # a list of sequences has no column names; a previous fit on a data frame's may
        self.__dict__.pop("feature_names_in_", None)
        return parts, np.array(classes, dtype=object), codes

    def _parts(self, X, fitting):
        _check_sequences(X)
        numeric = [_is_numeric(s) for s in X]
        if any(numeric) and not all(numeric):
            raise ValueError("X mixes numeric sequences (arrays) with token sequences")
        if all(numeric):
            if fitting:
                self.features_ = None
            elif self.features_ is not None:
                raise ValueError("the model was fitted on token sequences; give token sequences")
            return _numeric_parts(X, None if fitting else self.n_features_in_)
        for i, s in enumerate(X):
            if isinstance(s, (str, bytes)) or not hasattr(s, "__len__"):
                raise ValueError(f"sequence {i} must be a list of tokens, got {type(s).__name__}")
        if fitting:
            # a copy: fitting must not change the estimator's parameters
            self.features_ = (WindowFeatures() if self.features is None else copy.deepcopy(self.features)).fit(X)
        elif self.features_ is None:
            raise ValueError("the model was fitted on numeric sequences; give 2-D arrays")
        return self.features_.transform(X)

    @unchanged_on_failure
    def fit(self, X, y, lengths=None):
        """Fit on labelled sequences, or on a token matrix and the sequences' lengths.

        Parameters
        ----------
        X : list of sequences, or {array-like, sparse matrix} of shape (n_tokens, n_features)
            Sequences (lists of tokens, or 2-D arrays or sparse matrices tokens x features), or one
            token matrix with a row per token.
        y : list of sequences or array-like of shape (n_tokens,)
            One label sequence per sequence of X (one label per token), or one label per row of a
            token matrix.
        lengths : array-like of int, default=None
            With a token matrix only: the number of tokens of each sequence, consecutive rows in
            order, adding up to the rows of X (None: every row is a sequence of its own).

        Returns
        -------
        self : SequenceLabeler
            The fitted estimator.
        """
        native, inference, order, reprocess = self._settings()
        if _is_token_matrix(X):
            parts, classes, codes = self._matrix_parts(X, lengths, True, y)
        else:
            _no_lengths(lengths)
            _check_sequences(X)
            parts, classes, codes = self._sequence_labels(X, y)
        indptr, indices, data, seq_ptr, n_features = parts
        epochs = int(self.epochs) if self.epochs is not None else (100 if self.until_gap else 1)
        started = time.perf_counter()
        out = _native.fit_sequence(indptr, indices, data, n_features=n_features, seq_ptr=seq_ptr, y=codes, n_labels=len(classes), method=native,
                                   inference_name=inference, order=order, c=float(self.C), tol=float(self.tol), reprocess=reprocess, epochs=epochs, until_gap=bool(self.until_gap),
                                   seed=draw_seed(self.random_state), verbose=bool(self.verbose))
        self.fit_time_ = time.perf_counter() - started
        self.classes_ = classes
        self.n_features_in_ = n_features
        self.coef_ = np.ascontiguousarray(out["emission"].T)
        self.transitions_ = out["transition"]
        self.markov_order_ = order
        self.inference_ = inference
        self.dual_ = out["dual"]
        self.n_support_patterns_ = out["support_patterns"]
        self.n_support_vectors_ = out["support_vectors"]
        self.n_inference_calls_ = out["inference_calls"]
        self.duality_gap_ = out["gap"]
        self.dual_per_epoch_ = out["dual_per_epoch"]
        self.gap_per_epoch_ = out["gap_per_epoch"]
        self.n_iter_ = out["epochs"]
        self.steps_ = {k: out[k] for k in ("process_new", "process_old", "optimize", "steps")}
        if self.until_gap and not self.duality_gap_ < self.C:
            warn_not_converged(
                f"SequenceLabeler stopped after {self.n_iter_} epochs with duality gap {self.duality_gap_:.4g}, not "
                f"below C={self.C}: increase epochs (until_gap stops as soon as the gap is below C).")
        return self

    def predict(self, X, lengths=None):
        """Label sequences, decoded with the method's inference.

        Parameters
        ----------
        X : list of sequences, or {array-like, sparse matrix} of shape (n_tokens, n_features)
            Sequences of the kind the model was fitted on (tokens or numeric), or a token matrix.
        lengths : array-like of int, default=None
            With a token matrix only: the number of tokens of each sequence (None: every row is a
            sequence of its own).

        Returns
        -------
        list of list or ndarray of shape (n_tokens,)
            A list of labels per sequence; for a token matrix, the labels of its rows (an array),
            decoded per sequence of ``lengths``.
        """
        check_is_fitted(self, "coef_")
        matrix = _is_token_matrix(X)
        if matrix:
            indptr, indices, data, seq_ptr, n_features = self._matrix_parts(X, lengths, False)
        else:
            _no_lengths(lengths)
            indptr, indices, data, seq_ptr, n_features = self._parts(X, False)
        codes = _native.predict_sequence(indptr, indices, data, n_features=n_features, seq_ptr=seq_ptr,
                                         emission=np.ascontiguousarray(self.coef_.T), transition=self.transitions_.ravel(),
                                         order=self.markov_order_, inference_name=self.inference_)
        if matrix:
            return self.classes_[codes]
        labels = self.classes_[codes].tolist()
        return [labels[a:b] for a, b in zip(seq_ptr[:-1], seq_ptr[1:])]

    def score(self, X, y, lengths=None):
        """Token accuracy.

        Parameters
        ----------
        X : list of sequences, or {array-like, sparse matrix} of shape (n_tokens, n_features)
            Sequences, or a token matrix.
        y : list of sequences or array-like of shape (n_tokens,)
            Their true labels, as in `fit`.
        lengths : array-like of int, default=None
            With a token matrix only: the number of tokens of each sequence.

        Returns
        -------
        float
            The fraction of tokens labelled correctly.
        """
        if _is_token_matrix(X):
            return accuracy_score(y, self.predict(X, lengths))
        return token_accuracy(y, self.predict(X, lengths))

    def __sklearn_tags__(self):
        # Not tagged a classifier: scikit-learn would then stratify cross-validation folds by y,
        # which a list of label sequences is not (and folds must not split a sequence).
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.required = True
        return tags


def _no_lengths(lengths):
    if lengths is not None:
        raise ValueError("lengths is for a 2-D X with a row per token; a list of sequences gives its own lengths")
