"""Binary token features from word and POS windows, for tagging text (`WindowFeatures`)."""

from collections import Counter
from numbers import Integral

import numpy as np

from .._base.estimator import BaseEstimator
from .._validation import InstanceOf, Interval
from ..exceptions import InvalidParameterError

__all__ = ["WindowFeatures"]


def _shape(word):
    """Coarse word shape: character classes with repeats collapsed (Xx, dd.d, ...)."""
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.islower() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out)


def _fields(token, where):
    if isinstance(token, str):
        return token, None
    if isinstance(token, dict):
        if "word" not in token:
            raise ValueError(f"{where}: a token given as a dict needs a 'word' key, got keys {sorted(token)}")
        return str(token["word"]), (None if token.get("pos") is None else str(token["pos"]))
    if isinstance(token, (tuple, list)) and len(token) >= 1:
        return str(token[0]), (str(token[1]) if len(token) > 1 else None)
    raise ValueError(f"{where}: a token must be a string, a (word, pos, ...) tuple or a dict with 'word' "
                     f"(and 'pos'), got {type(token).__name__} (numeric tokens come as 2-D arrays: one, or a "
                     f"list of them)")


class WindowFeatures(BaseEstimator):
    """Binary token features from word/POS windows, for tagging text.

    Per token: the lowercased word at offsets -w..+w (``word_window``), the POS tag at -p..+p
    (``pos_window``), POS bigrams inside that window, word bigrams (-1,0) and (0,+1), the current
    word's suffixes of ``suffixes`` lengths, its shape and capitalisation, and a bias. Features
    seen at least ``min_count`` times in `fit` form the vocabulary; others are dropped. A token is
    a word string, a (word, pos, ...) tuple or a dict with ``"word"`` (and ``"pos"``); the POS
    features are left out of a sequence in which some token has no POS tag. Positions before and
    after the sequence read ``<s>`` and ``</s>``.

    Parameters
    ----------
    word_window : int, default=2
        The half-width w: the words at offsets -w..+w.
    pos_window : int, default=2
        The half-width p: the POS tags at offsets -p..+p.
    pos_bigrams : bool, default=True
        Add the pairs of consecutive POS tags inside the POS window.
    word_bigrams : bool, default=True
        Add the word bigrams (-1,0) and (0,+1).
    suffixes : tuple of int, default=(2, 3)
        The lengths of the current word's suffixes to add.
    shape : bool, default=True
        Add the current word's shape: its character classes (X, x, d, other characters as they
        are) with repeats collapsed, which also tells its capitalisation.
    min_count : int, default=1
        Keep the features seen at least this many times in `fit`.

    Attributes
    ----------
    vocabulary_ : dict
        Feature name to column index, sorted by name.

    See Also
    --------
    SequenceLabeler : Uses ``WindowFeatures()`` by default.

    Examples
    --------
    >>> from largemargin import WindowFeatures
    >>> X = [[("The", "DT"), ("cat", "NN")], [("A", "DT"), ("dog", "NN"), ("ran", "VBD")]]
    >>> indptr, indices, data, seq_ptr, n_features = WindowFeatures().fit(X).transform(X)
    >>> seq_ptr
    array([0, 2, 5])
    >>> len(indptr) - 1
    5
    """

    _parameter_constraints = {
        "word_window": [Interval(Integral, 0, None)],
        "pos_window": [Interval(Integral, 0, None)],
        "pos_bigrams": ["boolean"],
        "word_bigrams": ["boolean"],
        "suffixes": [InstanceOf((tuple, list), "a tuple of positive integers")],
        "shape": ["boolean"],
        "min_count": [Interval(Integral, 1, None)],
    }

    def __init__(self, word_window=2, pos_window=2, pos_bigrams=True, word_bigrams=True, suffixes=(2, 3),
                 shape=True, min_count=1):
        self.word_window = word_window
        self.pos_window = pos_window
        self.pos_bigrams = pos_bigrams
        self.word_bigrams = word_bigrams
        self.suffixes = suffixes
        self.shape = shape
        self.min_count = min_count

    def _token_features(self, raw, words, pos, t):
        n = len(words)
        w = lambda i: words[i] if 0 <= i < n else ("<s>" if i < 0 else "</s>")  # noqa: E731
        feats = ["b"]
        for o in range(-self.word_window, self.word_window + 1):
            feats.append(f"w{o}={w(t + o)}")
        if self.word_bigrams:
            feats.append(f"ww-1={w(t - 1)}|{w(t)}")
            feats.append(f"ww0={w(t)}|{w(t + 1)}")
        if pos is not None:
            p = lambda i: pos[i] if 0 <= i < n else ("<s>" if i < 0 else "</s>")  # noqa: E731
            for o in range(-self.pos_window, self.pos_window + 1):
                feats.append(f"p{o}={p(t + o)}")
            if self.pos_bigrams:
                for o in range(-self.pos_window, self.pos_window):
                    feats.append(f"pp{o}={p(t + o)}|{p(t + o + 1)}")
        word = words[t]
        for k in self.suffixes:
            feats.append(f"s{k}={word[-k:]}")
        if self.shape:
            feats.append(f"sh={_shape(raw[t])}")
        return feats

    def _check_relations(self):
        if not all(isinstance(k, Integral) and not isinstance(k, bool) and k >= 1 for k in self.suffixes):
            raise InvalidParameterError(f"suffixes must be a tuple of positive integers, got {self.suffixes!r}")

    def _sequence_features(self, seq, i):
        fields = [_fields(tok, f"sequence {i}, token {t}") for t, tok in enumerate(seq)]
        raw = [f[0] for f in fields]
        words = [w.lower() for w in raw]
        pos = [f[1] for f in fields]
        pos = None if any(p is None for p in pos) else pos
        return [self._token_features(raw, words, pos, t) for t in range(len(seq))]

    def fit(self, sequences):
        """Build the vocabulary from token sequences.

        Parameters
        ----------
        sequences : list of list of token
            The sequences, each a list of tokens (strings, tuples or dicts).

        Returns
        -------
        self : WindowFeatures
            The fitted extractor.
        """
        self._validate_params()
        counts = Counter()
        for i, seq in enumerate(sequences):
            for feats in self._sequence_features(seq, i):
                counts.update(feats)
        kept = sorted(f for f, c in counts.items() if c >= self.min_count)
        self.vocabulary_ = {f: j for j, f in enumerate(kept)}
        return self

    def transform(self, sequences):
        """The features of all tokens, as the parts of one CSR matrix.

        Parameters
        ----------
        sequences : list of list of token
            The sequences, each a list of tokens (strings, tuples or dicts).

        Returns
        -------
        indptr : ndarray of shape (n_tokens + 1,)
            Row pointers, one row per token, the sequences one after the other.
        indices : ndarray of shape (nnz,)
            The column of each feature present (int32), sorted within a row.
        data : ndarray of shape (nnz,)
            Ones.
        seq_ptr : ndarray of shape (n_sequences + 1,)
            The row where each sequence starts (and the last ends).
        n_features : int
            The size of the vocabulary.
        """
        vocab = self.vocabulary_
        indptr, indices, seq_ptr = [0], [], [0]
        for i, seq in enumerate(sequences):
            for feats in self._sequence_features(seq, i):
                row = sorted({vocab[f] for f in feats if f in vocab})
                indices.extend(row)
                indptr.append(len(indices))
            seq_ptr.append(len(indptr) - 1)
        indices = np.asarray(indices, dtype=np.int32)
        return (np.asarray(indptr, dtype=np.int64), indices, np.ones(len(indices)),
                np.asarray(seq_ptr, dtype=np.int64), len(vocab))
