"""The child's-world corpus after Kate and Mooney (2007): a synchronous grammar of sentences with one
to four MRs."""

from ._common import _CHILD_MAX_AMBIGUITY, _VOWELS, NO_SYMBOL, _bag, _check_int, _mr, _streams
from .child_lexicon import (
    _AGENT,
    _ALL_VERBS,
    _CHILD_ADJECTIVES_FOOD,
    _CHILD_ADJECTIVES_LIVING,
    _CHILD_ADJECTIVES_THINGS,
    _CHILD_BARE_PLACES,
    _CHILD_FUNCTION_WORDS,
    _CHILD_LOC_P,
    _CHILD_MASS,
    _CHILD_N_RELS,
    _CHILD_N_RELS_CUM,
    _CHILD_NAMES,
    _CHILD_NOUNS,
    _CHILD_PLACE_PREPS,
    _CHILD_VERBS,
    _CLAUSE_KINDS,
    _CLAUSE_VERBS,
    _CN_ADJECTIVES,
    _CN_TAGS,
    _CN_WORDS,
    _CV_FORMS,
    _CV_FRAMES,
    _PLACE_TABLE,
    _SIMPLE_VERBS,
    _THING,
    _nouns_tagged,
)


def _child_lexicon_pairs():
    """Every (word, symbol) pair the AMBIGCHILD grammar can write ("-" for the words no symbol
    stands for), one per distinct pair."""
    no_symbol = _CHILD_FUNCTION_WORDS + _CHILD_ADJECTIVES_LIVING + _CHILD_ADJECTIVES_THINGS + _CHILD_ADJECTIVES_FOOD
    pairs = {(w, NO_SYMBOL) for w in no_symbol}
    for symbol, _, names in _CHILD_NOUNS:
        pairs.update((w, symbol) for w in names)
    for symbol, forms, _ in _CHILD_VERBS:
        pairs.update((w, symbol) for w in (symbol,) + forms if w is not None)
    return sorted(pairs)


class _Sentence:
    """A sentence being written: its tokens, their symbols, and its MRs in the order they start."""

    __slots__ = ("tokens", "symbols", "mrs")

    def __init__(self):
        self.tokens, self.symbols, self.mrs = [], [], []

    def word(self, token, symbol=NO_SYMBOL):
        self.tokens.append(token)
        self.symbols.append(symbol)


def _child_noun(draws, tag_text, avoid=()):
    items, cumulative = _nouns_tagged(tag_text)
    for _ in range(100):
        symbol = draws.weighted(items, cumulative)
        if symbol not in avoid:
            return symbol
    return next(s for s in items if s not in avoid)  # (not reached with this lexicon)


def _child_np(draws, out, symbol):
    """Writes a noun phrase naming `symbol`: [determiner [adjective]] noun, or a bare name."""
    names = _CN_WORDS[symbol]
    if len(names) == 1 or draws.random() < 0.6:
        word = names[0]
    else:
        word = names[1 + draws.below(len(names) - 1)]
    if word in _CHILD_NAMES:
        out.word(word, symbol)
        return
    adjective = None
    if draws.random() < 0.1:
        adjective = draws.pick(_CN_ADJECTIVES[symbol])
    r = draws.random()
    if r < 0.65:
        out.word("the")
    elif symbol in _CHILD_MASS:
        out.word("some")
    else:
        out.word("an" if (adjective or word)[0] in _VOWELS else "a")
    if adjective is not None:
        out.word(adjective)
    out.word(word, symbol)


def _child_place(draws, out, symbol):
    out.word(draws.pick(_CHILD_PLACE_PREPS[symbol]))
    if symbol not in _CHILD_BARE_PLACES:
        out.word("the")
    out.word(symbol, symbol)


def _child_verb(draws, out, symbol, mode, passive=False):
    """Writes the verb `symbol` in `mode` ("inf": the base form) or in a tense drawn for a finite
    clause: present, past or (for the verbs that have one) progressive; `passive`: is/was + participle."""
    s3, past, ing, participle = _CV_FORMS[symbol]
    if mode == "inf":
        out.word(symbol, symbol)
        return
    r = draws.random()
    if passive:
        out.word("is" if r < 0.5 else "was")
        out.word(participle, symbol)
    elif r < 0.15 and ing is not None:
        out.word("is" if draws.random() < 0.5 else "was")
        out.word(ing, symbol)
    else:
        out.word(s3 if r < 0.55 else past, symbol)


def _child_clause(draws, out, n_rels, mode, first, avoid_subject=None):
    """Writes a clause holding `n_rels` RELs (one of its own, the rest in its complement) and its MRs
    (its own first); returns its REL symbol. `mode`: "fin" or "inf" (subject, "to", base form);
    `first`: whether the clause starts the sentence (only then can a location come first)."""
    if n_rels == 1:
        verb = draws.weighted(*_SIMPLE_VERBS)
        kind, a0_tags, a1_tags, a2_tags = draws.pick([f for f in _CV_FRAMES[verb] if f[0] not in _CLAUSE_KINDS])
    else:
        verb = draws.weighted(*_CLAUSE_VERBS)
        kind, a0_tags, a1_tags, a2_tags = draws.pick([f for f in _CV_FRAMES[verb] if f[0] in _CLAUSE_KINDS])
    subject = _child_noun(draws, a0_tags, (avoid_subject,))
    args = {"A0": subject}
    index = len(out.mrs)
    out.mrs.append(None)  # the clause's own MR comes before its complement's
    if kind in _CLAUSE_KINDS:
        if kind == "tell":
            args["A2"] = _child_noun(draws, a2_tags, (subject,))
        _child_np(draws, out, subject)
        if mode == "inf":
            out.word("to")
        _child_verb(draws, out, verb, mode)
        if kind == "tell":
            _child_np(draws, out, args["A2"])
        if kind == "inf":
            args["A1"] = _child_clause(draws, out, n_rels - 1, "inf", False, subject)
        else:
            if draws.random() < 0.7:
                out.word("that")
            args["A1"] = _child_clause(draws, out, n_rels - 1, "fin", False)
        out.mrs[index] = _mr(verb, args)
        return verb
    if a1_tags is not None:
        args["A1"] = _child_noun(draws, a1_tags, (subject,))
    if a2_tags is not None:
        args["A2"] = _child_noun(draws, a2_tags, (subject, args["A1"]))
    if draws.random() < _CHILD_LOC_P[kind]:
        args["LOC"] = draws.weighted(*_PLACE_TABLE)
    front = first and mode == "fin" and "LOC" in args and draws.random() < 0.2
    if front:
        _child_place(draws, out, args["LOC"])
    passive = (mode == "fin" and kind == "tr" and _CV_FORMS[verb][3] is not None and draws.random() < 0.1)
    if passive:  # the object is the subject: "the cat was chased by the dog"
        _child_np(draws, out, args["A1"])
        _child_verb(draws, out, verb, mode, passive=True)
        out.word("by")
        _child_np(draws, out, subject)
    else:
        _child_np(draws, out, subject)
        if mode == "inf":
            out.word("to")
        _child_verb(draws, out, verb, mode)
        if kind == "with":
            out.word("with")
            _child_np(draws, out, args["A1"])
        elif kind == "tr":
            _child_np(draws, out, args["A1"])
        elif kind == "ditr":
            if draws.random() < 0.4:  # "gives the dog a cookie"
                _child_np(draws, out, args["A2"])
                _child_np(draws, out, args["A1"])
            else:
                _child_np(draws, out, args["A1"])
                out.word("to")
                _child_np(draws, out, args["A2"])
    if "LOC" in args and not front:
        _child_place(draws, out, args["LOC"])
    out.mrs[index] = _mr(verb, args)
    return verb


def _child_sentence(draws):
    """One sentence of the AMBIGCHILD grammar, as a `_Sentence` with distinct MRs."""
    while True:
        n_rels = draws.weighted(_CHILD_N_RELS, _CHILD_N_RELS_CUM)
        out = _Sentence()
        if n_rels > 1 and draws.random() < 0.35:  # two coordinated clauses
            left = 1 + draws.below(n_rels - 1)
            _child_clause(draws, out, left, "fin", True)
            out.word("and")
            _child_clause(draws, out, n_rels - left, "fin", False)
        else:
            _child_clause(draws, out, n_rels, "fin", True)
        if len(set(out.mrs)) == len(out.mrs):
            return out


def _scene_member(draws, members, tag_text, avoid):
    """A noun with one of the tags in `tag_text`, not in `avoid`: 80% of the time one of the scene's
    `members` when some fit, otherwise one of the world's."""
    wanted = frozenset(tag_text.split())
    local = [m for m in members if _CN_TAGS[m] & wanted and m not in avoid]
    if local and draws.random() < 0.8:
        return draws.pick(local)
    return _child_noun(draws, tag_text, avoid)


def _child_distractors(draws, true, count):
    """`count` distinct MRs of other events of the sentence's scene: its participants plus one to
    three others of the world, its place (or one drawn), and the events already in it."""
    if count == 0:
        return []
    rels = [mr[0][0] for mr in true]
    members, place = [], None
    for mr in true:
        for symbol, role in mr[1:]:
            if role == "LOC":
                place = place or symbol
            elif symbol in _CN_TAGS and symbol not in members:
                members.append(symbol)
    if place is None:
        place = draws.weighted(*_PLACE_TABLE)
    for _ in range(1 + draws.below(3)):
        members.append(_child_noun(draws, _AGENT + " " + _THING, members))
    seen = set(true)
    out = []
    while len(out) < count:
        verb = draws.weighted(*_ALL_VERBS)
        kind, a0_tags, a1_tags, a2_tags = draws.pick(_CV_FRAMES[verb])
        args = {"A0": _scene_member(draws, members, a0_tags, ())}
        if kind in _CLAUSE_KINDS:
            others = [r for r in rels if r != verb]
            args["A1"] = draws.pick(others) if others else draws.weighted(*_SIMPLE_VERBS)
            if args["A1"] == verb:
                continue
        elif a1_tags is not None:
            args["A1"] = _scene_member(draws, members, a1_tags, (args["A0"],))
        if a2_tags is not None:
            args["A2"] = _scene_member(draws, members, a2_tags, (args["A0"], args.get("A1")))
        if kind in _CHILD_LOC_P and draws.random() < _CHILD_LOC_P[kind]:
            args["LOC"] = place
        mr = _mr(verb, args)
        if mr in seen:
            continue
        seen.add(mr)
        out.append(mr)
        rels.append(verb)
    return out


def make_ambigchild(n_samples=925, ambiguity=0, random_state=None):
    """An AMBIGCHILD-WORLD-like corpus: a child's world, one to four MRs a sentence, ambiguous bags.

    A re-creation, as far as Bordes (2010, section 6.2.2) describes it, of the corpus of Kate and
    Mooney (2007): language a child could hear about a series of perceptual contexts. A synchronous
    context-free grammar writes each sentence together with its MRs, in predicate logic without
    quantification: a clause is an MR ``verb:REL subject:A0 [object:A1] [recipient:A2]
    [place:LOC]``, and a clause can hold another one (its A1 is then the REL symbol of the
    embedded clause's MR), which gives one to four RELs a sentence (45%, 30%, 17%, 8%)::

        S      -> CLAUSE | CLAUSE and CLAUSE        (35% of the sentences with 2+ RELs)
        CLAUSE -> NP V [LOC]                        "the baby sleeps on the sofa"
                | NP V NP [LOC]                     "the dog chased a cat"
                | NP is/was V-ed by NP [LOC]        "the cat was chased by the dog"
                | NP V with NP [LOC]                "the girl plays with the ball"
                | NP V NP to NP [LOC]               "daddy gave a cookie to the dog"
                | NP V NP NP [LOC]                  "daddy gave the dog a cookie"
                | NP V [that] CLAUSE                "daddy thinks that mommy ate the apple"
                | NP V NP [that] CLAUSE             "mommy told the boy that the dog is sleeping"
                | NP V NP to VP                     "the girl wants the dog to chase the cat"
        NP     -> NAME | DET [ADJ] NOUN             "mommy", "a hungry dog", "some milk"
        LOC    -> in/on/at/under [the] PLACE        (optional; sometimes first in the sentence)

    The verbs are in the present, the past or the progressive ("is eating"), and 10% of the
    transitive clauses are passive; "that" is left out 30% of the time. In "X wants NP to VP" (and
    "asks"), NP is the embedded clause's A0 only: want:REL girl:A0 chase:A1, chase:REL dog:A0
    cat:A1. The lexicon has 50 verbs (clause-taking ones: want, see, think, say, know, tell,
    believe, ask, hope), 134 nouns (people, animals, food, drinks, toys, things to read, household
    things and 19 places used as locations), a few synonyms (mommy/mom/mother -> mother,
    kitty/cat -> cat, ...), and adjectives (big, red, hungry, ...) that the MR language has no
    symbol for: they align to "-", as do determiners, prepositions, "that", "to", "and", "by" and
    the auxiliaries "is" and "was". Every word means one symbol everywhere (no lexical ambiguity)
    and a verb's symbol is its base form. Nouns and verbs follow Zipf's law (the k-th noun of a
    category and the k-th verb come with weight 1/k), so that, as in language, many words are rare:
    in splits of 900 training and 25 test sentences, about half the test sentences hold a word seen
    at most 5 times in training (7% of the test tokens; 3% seen at most twice, 1% never).
    Selectional restrictions keep the events plausible (people read books, dogs chase balls,
    babies cry).

    Ambiguity: at level n a bag holds the correct MRs and a number of distractors drawn uniformly
    in 0..2n (mean n), other events of the same scene. The scene holds the sentence's participants
    plus one to three others and its place (or one drawn when it says none); a distractor is a verb
    drawn with the same Zipf weights, its roles filled by members of the scene when some fit (80% of
    the time, otherwise by any noun that fits), its location (as often as in sentences) the scene's
    place, and, for a clause-taking verb, its A1 the REL of another event of the scene. They are
    valid MRs, distinct from each other and from the correct ones.

    Parameters
    ----------
    n_samples : int, default=925
        The number of sentences, >= 1 (the thesis uses 10 splits of 900 for training and 25 for
        testing).
    ambiguity : int, default=0
        The ambiguity level n, in 0..3 (the levels of the thesis' Table 6.1): the mean number of
        incorrect MRs in a bag. 4 and more raise a ValueError.
    random_state : int, RandomState instance or None, default=None
        Seeds the corpus (see `sklearn.utils.check_random_state`). The sentences, correct MRs and
        alignments depend on it only, not on `ambiguity`.

    Returns
    -------
    sentences : list of list of str
        The tokens of each sentence.
    bags : list of list of tuple
        Each sentence's candidate MRs, its correct ones and the distractors in a random order (at
        level 0, a copy of the correct MRs in their order). An MR is a tuple of (symbol, role) pairs,
        the ("verb", "REL") pair first and the arguments in the order A0, A1, A2, LOC.
    true_mrs : list of list of tuple
        Each sentence's correct MRs (one to four), an embedding clause's before its complement's.
    alignments : list of list of str
        The symbol each token expresses, "-" for none: the noise-free alignment, for evaluation only.
        An embedded clause's verb is one token, whose symbol is both its MR's REL and the A1 of the
        embedding clause's MR.

    See Also
    --------
    make_ambighouse : The simulated house corpus, one MR a sentence.
    largemargin.semantic.metrics.mr_scores : The MR precision, recall and F1.

    Examples
    --------
    >>> from largemargin.semantic.corpora import make_ambigchild
    >>> sentences, bags, true_mrs, alignments = make_ambigchild(n_samples=5, random_state=0)
    >>> print(" ".join(sentences[0]))
    the girl hoped a silly baby brings a cookie to the boy
    >>> for mr in true_mrs[0]:
    ...     print(mr)
    (('hope', 'REL'), ('girl', 'A0'), ('bring', 'A1'))
    (('bring', 'REL'), ('baby', 'A0'), ('cookie', 'A1'), ('boy', 'A2'))
    >>> print(" ".join(alignments[0]))
    - girl hope - - baby bring - cookie - - boy
    >>> bags[0] == true_mrs[0]  # no ambiguity
    True
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    ambiguity = _check_int("ambiguity", ambiguity, 0, _CHILD_MAX_AMBIGUITY)
    text, noise = _streams(random_state)
    sentences, bags, true_mrs, alignments = [], [], [], []
    for _ in range(n_samples):
        sentence = _child_sentence(text)
        sentences.append(sentence.tokens)
        alignments.append(sentence.symbols)
        true_mrs.append(sentence.mrs)
        if ambiguity == 0:
            bags.append(list(sentence.mrs))
        else:
            count = noise.below(2 * ambiguity + 1)
            bags.append(_bag(sentence.mrs, _child_distractors(noise, sentence.mrs, count), noise))
    return sentences, bags, true_mrs, alignments

