"""`SemanticParser`: OSPAS, the online semantic parser for ambiguous supervision (Bordes 2010,
chapter 6.2), trained in Rust; and the checks that turn sentences and bags of candidate meaning
representations into the native index arrays."""

import contextlib
import gc
import math
import time
from numbers import Integral, Real

import numpy as np
from sklearn.utils.validation import check_is_fitted

from .. import _native
from .._base.estimator import BaseEstimator
from .._checks import draw_seed
from .._guard import unchanged_on_failure
from .._options import OSPAS_PADDINGS, OSPAS_STRATEGIES
from .._validation import InstanceOf, Interval, Options
from ..exceptions import InvalidParameterError
from .metrics import mr_f1

__all__ = ["SemanticParser"]


NONE = "-"  # the empty symbol and the empty role
REL = "REL"  # the role of an MR's relation symbol


@contextlib.contextmanager
def _gc_paused():
    """The garbage collector paused while a corpus is converted: the conversion makes hundreds of
    thousands of small objects and no cycles, and each collection they trigger walks every live
    object (the caller's corpus too), which made a fit on 20,000 sentences cost 14x one on 2,000."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _check_sentences(sentences, fitting):
    if isinstance(sentences, (str, bytes)) or not hasattr(sentences, "__len__"):
        raise ValueError("sentences must be a list of token lists")
    if fitting and len(sentences) == 0:
        raise ValueError("no sentences to fit on")
    out = []
    for i, s in enumerate(sentences):
        if isinstance(s, (str, bytes)) or not hasattr(s, "__iter__"):
            raise ValueError(f"sentence {i} must be a list of tokens, got {type(s).__name__}")
        s = list(s)
        for t in s:
            if not isinstance(t, str):
                raise ValueError(f"sentence {i}: tokens must be strings, got {t!r:.40}")
        if fitting and not s:
            raise ValueError(f"sentence {i} has no tokens")
        out.append(s)
    return out


def _check_mr(mr, i, j):
    """The MR as a list of (symbol, role) str pairs, its REL pair first; errors name the MR."""
    where = f"MR {j} of sentence {i}"
    if isinstance(mr, (str, bytes)) or not hasattr(mr, "__iter__"):
        raise ValueError(f"{where} must be a sequence of (symbol, role) pairs, got {mr!r:.60}")
    if isinstance(mr, (set, frozenset)):
        mr = sorted(mr)
    pairs = []
    for pair in mr:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2:
            hint = " (a bag is a list of MRs: is this one MR not wrapped in a list?)" if isinstance(pair, str) else ""
            raise ValueError(f"{where}: {pair!r:.40} is not a (symbol, role) pair{hint}")
        symbol, role = pair
        if not isinstance(symbol, str) or not isinstance(role, str):
            raise ValueError(f"{where}: symbols and roles must be strings, got {pair!r:.40}")
        if symbol == NONE or role == NONE:
            raise ValueError(f"{where}: {NONE!r} is the empty symbol and role, not one of an MR's")
        pairs.append(pair if type(pair) is tuple else (symbol, role))
    rels = [p for p in pairs if p[1] == REL]
    if len(rels) != 1:
        raise ValueError(f"{where} has {len(rels)} pairs of role 'REL', it needs exactly one: {tuple(pairs)!r:.80}")
    roles = [r for _, r in pairs if r != REL]
    if len(set(roles)) != len(roles):
        raise ValueError(f"{where} gives a role to two symbols: {tuple(pairs)!r:.80}")
    return rels + [p for p in pairs if p[1] != REL]


def _check_bags(bags, sentences):
    if isinstance(bags, (str, bytes)) or not hasattr(bags, "__len__") or len(bags) != len(sentences):
        n = len(bags) if hasattr(bags, "__len__") and not isinstance(bags, (str, bytes)) else "no"
        raise ValueError(f"bags must hold one list of candidate MRs per sentence: {len(sentences)} sentences, {n} bags")
    out = []
    for i, bag in enumerate(bags):
        if isinstance(bag, (str, bytes)) or not hasattr(bag, "__iter__"):
            raise ValueError(f"the bag of sentence {i} must be a list of MRs, got {type(bag).__name__}")
        if isinstance(bag, (set, frozenset)):
            bag = sorted(bag)  # a set's order follows Python's string hashing, which varies by process
        mrs, seen = [], set()
        for j, mr in enumerate(bag):
            mr = _check_mr(mr, i, j)
            key = frozenset(mr)  # the same MR twice (its arguments in any order) is one candidate
            if key not in seen:
                seen.add(key)
                mrs.append(mr)
        if not mrs and sentences[i]:
            raise ValueError(f"the bag of sentence {i} is empty: give at least one candidate MR")
        out.append(mrs)
    return out


def _grow(w, rows, cols):
    """`w` zero-padded to rows x cols (a vocabulary that grew appends features and labels)."""
    if w.shape == (rows, cols):
        return w
    out = np.zeros((rows, cols))
    out[: w.shape[0], : w.shape[1]] = w
    return out


class SemanticParser(BaseEstimator):
    """Semantic parser learnt online from ambiguous supervision (OSPAS).

    Maps a sentence to its meaning representations (MRs) ``REL(A0, A1, ...)``, written as tuples
    of ``(symbol, role)`` pairs such as ``(("give", "REL"), ("mother", "A0"), ("box", "A1"))``.
    Training sentences come with a *bag* of candidate MRs: the correct ones are among them, but
    which ones is not said (Bordes 2010, chapter 6.2). Parsing is done in tagging steps: each word
    is labelled with a symbol or ``"-"`` (the alignment), then, for each word labelled with a
    relation symbol, the other symbol words are tagged with their role in that relation (or none).

    Both taggers are linear over one-hot word windows and learn online, in one pass by default.
    The symbol tagger follows the thesis' Algorithm 24: the words are labelled one at a time, in
    the order of `strategy`; a prediction outside the bag of candidate symbols (those of the bag's
    MRs, completed with ``"-"`` as `padding` says) triggers an AmbigSVM dual step (the thesis'
    Algorithm 23) towards the symbols still in the bag; a prediction inside it labels the word and
    leaves the bag. The role tagger learns the same way, for each relation word, from the
    (symbol, role) pairs of that relation's candidate MRs. A symbol is a relation symbol when some
    training MR gives it the role ``"REL"``.

    Parameters
    ----------
    C : float or None, default=None
        The bound on each step, for both taggers. None: the thesis' rule
        ``sqrt(|X| |Y| / (2 n))`` with ``|X|`` the words of the vocabulary times the symbol window,
        ``|Y|`` the symbols (``"-"`` left out of both) and ``n`` the words of the first `fit` or
        `partial_fit` call, kept for the later calls (so give C when streaming small batches).
        The thesis uses 0.1 and 1 on its corpora.
    strategy : {"random", "left-right", "order-free"}, default="random"
        The order a training sweep tries the unlabelled words in: at random, from left to right,
        or the word whose best symbol scores highest first (the thesis' Figure 6.4).
    padding : {"each", "all"}, default="each"
        How many ``"-"`` complete a training bag of symbols (the bag holds each symbol of the
        candidate MRs as many times as one MR needs it, plus these). ``"each"``: as many as the
        smallest candidate MR leaves words without a symbol, so that each candidate's alignment
        is feasible on its own; right when any one candidate may be the whole meaning (a
        sentence with one MR among distractors). ``"all"``: the sentence's length minus the
        number of pairs of all its candidate MRs, never below zero: the thesis' count. A symbol
        counts once per pair it is in, so an embedded relation (the REL of its own MR and an
        argument of the other) counts twice, and each embedding leaves one ``"-"`` fewer than
        the words need; an MR given twice in a bag counts once. ``"all"`` is right when the
        candidates together are the meaning (sentences with several MRs and little ambiguity).
        With distractors it leaves too few ``"-"`` and pushes function words onto symbols; with
        several MRs per sentence, ``"each"`` leaves so many that a word predicting ``"-"`` is
        seldom corrected. Neither learns sentences of several MRs among distractors well. On
        AMBIGCHILD without ambiguity ``"all"`` gives an MR F1 of 0.44 (standard deviation 0.12
        over 10 splits) against 0.19 (0.13); on AMBIGHOUSE with one distractor or more it
        misaligns most sentences (``benches/semantic_parsing.py``).
    window : tuple of (int, int), default=(1, 5)
        Window sizes (odd) of the symbol tagger (1: the word alone, as in the thesis) and of the
        role tagger (words and predicted symbols around the word). Keep the symbol window at 1: a
        wider one lets a symbol move onto the neighbours of its word (a word that predicts its
        neighbour's symbol takes it from the bag), and on AMBIGHOUSE a window of 3 misaligns
        nearly every sentence.
    epochs : int, default=1
        Passes over the training sentences, in their order (online learning makes one). With one
        epoch, `partial_fit` on consecutive batches gives the model `fit` gives on all of them
        (with C given: C=None takes the first batch's size).
    random_state : int, RandomState or None, default=None
        Seeds the random strategy, and the choice among labels of equal score in training (with
        every strategy).
    n_jobs : int or None, default=None
        Threads for parsing (training is sequential, as online learning is).
    verbose : bool, default=False
        Report progress (see the ``largemargin`` logger).

    Attributes
    ----------
    vocabulary_ : dict of str to int
        The words seen in training (as given: "The" and "the" are two words), with their ids
        (from 1). Other words have no features of
        their own, as in the thesis, where a word outside the vocabulary is a zero vector: with the
        default symbol window of 1 they are labelled ``"-"``; with a wider one their neighbours
        decide.
    symbols_ : ndarray of str
        The symbols, ``"-"`` first.
    roles_ : ndarray of str
        The argument roles, ``"-"`` first (``"REL"`` is not one: relation words are known from
        their symbol).
    relation_symbols_ : ndarray of str
        The symbols that head an MR.
    symbol_coef_ : ndarray of shape (n_symbol_features, n_symbols)
        The symbol tagger's weights.
    role_coef_ : ndarray of shape (n_role_features, n_roles)
        The role tagger's weights.
    C_ : float
        The C used.
    n_sentences_seen_ : int
        Sentences trained on, each counted once per epoch, over the `partial_fit` calls since the
        last `fit`.
    n_updates_ : dict
        Steps and tries of each tagger in the last call: ``symbol_updates``, ``symbol_tries``,
        ``role_updates``, ``role_tries``, ``role_passes``.
    fit_time_ : float
        Seconds of the last call.

    See Also
    --------
    largemargin.datasets.make_ambighouse : The thesis' simulated house corpus.
    largemargin.datasets.make_ambigchild : A child's-world corpus after Kate and Mooney (2007).
    largemargin.metrics.mr_scores : MR precision, recall and F1.
    AmbiguousLaRankClassifier : Multiclass learning from candidate label sets.

    Examples
    --------
    >>> import largemargin as lm
    >>> sentences, bags, true_mrs, _ = lm.make_ambighouse(2000, ambiguity=1, random_state=0)
    >>> bags[0]  # the correct MR and a distractor
    [(('read', 'REL'), ('grandma', 'A0'), ('book', 'A1')), (('take', 'REL'), ('dog', 'A0'), ('apple', 'A1'))]
    >>> parser = lm.SemanticParser(C=0.1, random_state=0).fit(sentences, bags)  # the thesis' 2,000
    >>> parser.predict_alignment([["the", "dog", "eats", "the", "apple"]])
    [['-', 'dog', 'eat', '-', 'apple']]
    >>> parser.predict([["the", "dog", "eats", "the", "apple"]])
    [[(('eat', 'REL'), ('dog', 'A0'), ('apple', 'A1'))]]
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither"), None],
        "strategy": [Options(OSPAS_STRATEGIES)],
        "padding": [Options(OSPAS_PADDINGS)],
        "window": [InstanceOf((tuple, list), "a pair of odd window sizes")],
        "epochs": [Interval(Integral, 1, None)],
        "random_state": ["random_state"],
        "n_jobs": ["n_jobs"],
        "verbose": ["verbose"],
    }

    def __init__(self, *, C=None, strategy="random", padding="each", window=(1, 5), epochs=1, random_state=None,
                 n_jobs=None, verbose=False):
        self.C = C
        self.strategy = strategy
        self.padding = padding
        self.window = window
        self.epochs = epochs
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _check_relations(self):
        w = self.window
        if len(w) != 2 or not all(isinstance(v, Integral) and not isinstance(v, bool) and v >= 1 and v % 2 == 1 and v <= 101 for v in w):
            raise InvalidParameterError(f"window must be two odd sizes from 1 to 101 (symbols, roles), got {w!r}")

    @unchanged_on_failure
    def fit(self, sentences, bags):
        """Train from scratch: one online pass per epoch over the sentences, in order.

        Parameters
        ----------
        sentences : list of list of str
            The training sentences, each a non-empty list of tokens.
        bags : list of list of MR
            For each sentence, its candidate MRs: tuples of ``(symbol, role)`` string pairs with
            exactly one role ``"REL"`` and no other role repeated. Symbols and roles may be any
            strings but ``"-"``. The order of the MRs and of their pairs is part of the input (a set
            is taken in sorted order, so that the fit does not depend on Python's hashing).

        Returns
        -------
        self : SemanticParser
            The fitted parser.
        """
        for name in ("vocabulary_", "symbols_", "symbol_coef_", "_rng_state"):
            self.__dict__.pop(name, None)
        with _gc_paused():
            return self._train(sentences, bags, first=True)

    @unchanged_on_failure
    def partial_fit(self, sentences, bags):
        """Continue training on more sentences (one pass over them per epoch), or start.

        New words, symbols and roles are added to the model as they come. `C`, `strategy`,
        `padding` and `epochs` may change between calls (each call trains with its own values);
        the window may not.

        Parameters
        ----------
        sentences : list of list of str
            More training sentences.
        bags : list of list of MR
            Their candidate MRs, as in `fit`.

        Returns
        -------
        self : SemanticParser
            The updated parser.
        """
        with _gc_paused():
            return self._train(sentences, bags, first=not hasattr(self, "symbol_coef_"))

    def _train(self, sentences, bags, first):
        self._validate_params()
        started = time.perf_counter()
        sentences = _check_sentences(sentences, fitting=True)
        bags = _check_bags(bags, sentences)
        if first:
            vocab, symbols, roles, rel = {}, {NONE: 0}, {NONE: 0}, set()
            sym_w, role_w = np.zeros((0, 1)), np.zeros((0, 1))
            seen = 0
            window = tuple(int(v) for v in self.window)
        else:
            if tuple(self.window) != self.window_:
                raise ValueError(f"window {tuple(self.window)!r} differs from the fitted {self.window_!r}")
            vocab = dict(self.vocabulary_)
            symbols = {s: k for k, s in enumerate(self.symbols_.tolist())}
            roles = {r: k for k, r in enumerate(self.roles_.tolist())}
            rel = set(self.relation_symbols_.tolist())
            sym_w, role_w, seen, window = self.symbol_coef_, self.role_coef_, self.n_sentences_seen_, self.window_
        # ids: words from 1 (0 is the sentence boundary), symbols and roles from 1 (0 is "-")
        words = np.fromiter((vocab.setdefault(t, len(vocab) + 1) for s in sentences for t in s), dtype=np.int64)
        sent_ptr = np.concatenate([[0], np.cumsum([len(s) for s in sentences])]).astype(np.int64)
        mr_ptr, pair_ptr, pair_symbol, pair_role = [0], [0], [], []
        bag_ptr, bag_symbol, bag_count = [0], [], []
        known_symbols, known_roles = [], []  # labels met up to each sentence (ids in that order)
        rel_since = {}  # the sentence of this call where a symbol first heads an MR
        for s, mrs in zip(sentences, bags):
            need, smallest = {}, len(s)
            for mr in mrs:
                smallest = min(smallest, len(mr))
                counts = {}
                for symbol, role in mr:
                    k = symbols.setdefault(symbol, len(symbols))
                    pair_symbol.append(k)
                    if role == REL:
                        if symbol not in rel:
                            rel_since[symbol] = len(mr_ptr) - 1  # this sentence
                        rel.add(symbol)
                        pair_role.append(-1)
                    else:
                        pair_role.append(roles.setdefault(role, len(roles)))
                    counts[k] = counts.get(k, 0) + 1
                pair_ptr.append(len(pair_symbol))
                for k, c in counts.items():
                    need[k] = max(need.get(k, 0), c)
            mr_ptr.append(len(pair_ptr) - 1)
            # the bag of symbols: each symbol as often as one MR needs it, and "-" for the words
            # that any one MR leaves without a symbol (every MR's alignment is feasible), or for
            # those that all the MRs' pairs together leave
            pad = len(s) - (smallest if self.padding == "each" else sum(len(mr) for mr in mrs))
            if pad > 0:
                need[0] = pad
            bag_symbol.extend(need)
            bag_count.extend(need.values())
            bag_ptr.append(len(bag_symbol))
            known_symbols.append(len(symbols))
            known_roles.append(len(roles))
        n_words, n_symbols, n_roles = len(vocab) + 1, len(symbols), len(roles)
        symbol_rows, role_rows = _native.semantic_feature_counts(
            words_n=n_words, symbols_n=n_symbols, roles_n=n_roles, symbol_window=window[0], role_window=window[1])
        sym_w = _grow(sym_w, symbol_rows, n_symbols)
        role_w = _grow(role_w, role_rows, n_roles)
        symbol_names = np.array(list(symbols), dtype=object)
        is_rel = np.array([s in rel for s in symbol_names], dtype=bool)
        if first:
            c = self.C
            if c is None:
                c = math.sqrt((n_words - 1) * window[0] * (n_symbols - 1) / (2 * max(len(words), 1)))
            c = float(c)
        else:
            c = self.C_ if self.C is None else float(self.C)
        arr = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731
        out = _native.fit_semantic_parser(
            sent_ptr, words, arr(mr_ptr), arr(pair_ptr), arr(pair_symbol), arr(pair_role), arr(bag_ptr),
            arr(bag_symbol), arr(bag_count), arr(known_symbols), arr(known_roles),
            arr([rel_since.get(sym, 0 if sym in rel else -1) for sym in symbol_names]), is_rel=is_rel, symbol_w=np.ascontiguousarray(sym_w),
            role_w=np.ascontiguousarray(role_w), words_n=n_words, symbols_n=n_symbols, roles_n=n_roles,
            symbol_window=window[0], role_window=window[1], c=c, strategy=self.strategy, epochs=int(self.epochs),
            seed=draw_seed(self.random_state), rng_state=None if first else getattr(self, "_rng_state", None), verbose=bool(self.verbose))
        self.vocabulary_ = vocab
        self.symbols_ = symbol_names
        self.roles_ = np.array(list(roles), dtype=object)
        self.relation_symbols_ = symbol_names[is_rel]
        self.symbol_coef_ = out["symbol_w"]
        self.role_coef_ = out["role_w"]
        self.window_ = window
        self.C_ = c
        self.n_sentences_seen_ = seen + out["sentences"]
        self.n_updates_ = {k: out[k] for k in ("symbol_updates", "symbol_tries", "role_updates", "role_tries", "role_passes")}
        self._rng_state = out["rng_state"]  # the next partial_fit goes on with the same random stream
        self.fit_time_ = time.perf_counter() - started
        return self

    def _parse(self, sentences):
        check_is_fitted(self, "symbol_coef_")
        sentences = _check_sentences(sentences, fitting=False)
        vocab = self.vocabulary_
        words = np.fromiter((vocab.get(t, -1) for s in sentences for t in s), dtype=np.int64)
        sent_ptr = np.concatenate([[0], np.cumsum([len(s) for s in sentences])]).astype(np.int64)
        is_rel = np.isin(self.symbols_, self.relation_symbols_)
        out = _native.parse_sentences(
            sent_ptr, words, is_rel=is_rel, symbol_w=self.symbol_coef_, role_w=self.role_coef_,
            words_n=len(vocab) + 1, symbols_n=len(self.symbols_), roles_n=len(self.roles_),
            symbol_window=self.window_[0], role_window=self.window_[1], n_jobs=self.n_jobs)
        return sent_ptr, out

    def predict_alignment(self, sentences):
        """Each word's symbol (``"-"`` for none).

        Parameters
        ----------
        sentences : list of list of str
            Sentences to parse; words never seen in training have no features of their own (with
            the default symbol window they are labelled ``"-"``).

        Returns
        -------
        list of list of str
            One symbol per token.
        """
        with _gc_paused():
            sent_ptr, out = self._parse(sentences)
        symbols = self.symbols_[out["alignment"]].tolist()
        return [symbols[a:b] for a, b in zip(sent_ptr[:-1], sent_ptr[1:])]

    def predict(self, sentences):
        """The MRs of each sentence: one per word labelled with a relation symbol.

        Parameters
        ----------
        sentences : list of list of str
            Sentences to parse; words never seen in training have no features of their own (with
            the default symbol window they are labelled ``"-"``).

        Returns
        -------
        list of list of tuple
            For each sentence, its MRs: tuples of ``(symbol, role)`` pairs, the ``"REL"`` pair first,
            then the arguments sorted by role name. Each role of a relation goes to the word that
            takes it with the highest score, so no role appears twice in an MR. A sentence with no
            word labelled with a relation symbol gets no MR (an empty list).
        """
        with _gc_paused():
            _, out = self._parse(sentences)
        symbols, roles = self.symbols_.tolist(), self.roles_.tolist()
        mr_ptr, pair_ptr = out["mr_ptr"], out["pair_ptr"]
        ps, pr = out["pair_symbol"], out["pair_role"]
        role_rank = {r: k for k, r in enumerate(sorted(roles[1:]))}  # arguments by role name
        result = []
        for i in range(len(mr_ptr) - 1):
            mrs = []
            for j in range(mr_ptr[i], mr_ptr[i + 1]):
                a, b = pair_ptr[j], pair_ptr[j + 1]
                head = (symbols[ps[a]], REL)
                args = sorted(((symbols[ps[t]], roles[pr[t]]) for t in range(a + 1, b)), key=lambda p: role_rank[p[1]])
                mrs.append((head, *args))
            result.append(mrs)
        return result

    def score(self, sentences, mrs):
        """MR F1 of the parses against the true MRs (`largemargin.metrics.mr_f1`).

        Parameters
        ----------
        sentences : list of list of str
            Sentences.
        mrs : list of list of MR
            Each sentence's correct MRs. Not the training bags: scored against a bag, the
            distractors count as MRs to find (so a cross-validation whose ``y`` is the bags scores
            against them too; give it the correct MRs, or a scorer that knows them).

        Returns
        -------
        float
            The F1 of precision (correct among the valid MRs produced) and recall (the true MRs
            produced).
        """
        if hasattr(mrs, "__len__") and hasattr(sentences, "__len__") and len(mrs) != len(sentences):
            raise ValueError(f"{len(sentences)} sentences but {len(mrs)} lists of true MRs")
        return mr_f1(mrs, self.predict(sentences))

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        tags.input_tags.two_d_array = False
        tags.input_tags.string = True
        return tags
