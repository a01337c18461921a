"""AMBIGHOUSE: the simulated house of the thesis' section 6.2.2 (15 actions, 59 symbols, 74 words)."""


from ._common import _HOUSE_MAX_AMBIGUITY, _VOWELS, NO_SYMBOL, _bag, _check_int, _streams

# ---------------------------------------------------------------------------------------------------
# AMBIGHOUSE: the world's tables


_HOUSE_FUNCTION_WORDS = ("the", "a", "to", "in", "with")
_HOUSE_NAMES = frozenset({"mommy", "daddy"})  # said without a determiner
_HOUSE_MASS = frozenset({"milk", "water", "juice", "tea", "bread"})  # never take "a"

# actors: symbol -> the words that name it
_HOUSE_ACTORS = {
    "mother": ("mother", "mommy"),
    "father": ("father", "daddy"),
    "brother": ("brother",),
    "sister": ("sister",),
    "baby": ("baby",),
    "grandma": ("grandma",),
    "dog": ("dog",),
    "cat": ("cat",),
}
_HOUSE_LOCATIONS = ("kitchen", "bedroom", "bathroom", "garden", "garage", "hall", "attic", "cellar")
_HOUSE_FOOD = ("apple", "cake", "bread", "banana", "cookie")
_HOUSE_DRINKS = ("milk", "water", "juice", "tea")
_HOUSE_READING = ("book", "newspaper", "letter")
_HOUSE_THINGS = ("box", "bottle", "bag", "ball", "cup", "plate", "spoon", "glass", "toy", "doll", "hat", "key",
                 "shoe", "towel")
_HOUSE_FIXTURES = ("door", "window")
_HOUSE_OBJECTS = _HOUSE_FOOD + _HOUSE_DRINKS + _HOUSE_READING + _HOUSE_THINGS + _HOUSE_FIXTURES

_H_HUMANS = ("mother", "father", "brother", "sister", "baby", "grandma")
_H_GROWN = ("mother", "father", "brother", "sister", "grandma")  # the humans other than the baby
_H_ACTORS = _H_HUMANS + ("dog", "cat")
_H_PORTABLE = _HOUSE_FOOD + _HOUSE_DRINKS + _HOUSE_READING + _HOUSE_THINGS
_H_THROWABLE = ("ball", "toy", "doll", "hat", "shoe", "key", "spoon", "towel", "apple", "banana", "cookie", "book")
_H_BREAKABLE = ("cup", "plate", "glass", "bottle", "window", "toy", "doll", "box")
_H_OPENABLE = ("door", "window", "box", "bottle", "bag", "book", "letter")
_H_WASHABLE = ("cup", "plate", "spoon", "glass", "bottle", "towel", "hat", "shoe", "toy", "doll", "ball", "baby",
               "dog", "cat")
_H_TOYS = ("ball", "toy", "doll", "box")

# The 15 actions: (symbol, verb forms, A0 fillers, A1 fillers or None, word before A1 or None,
# A2 fillers or None, whether A2 is "required" or "optional", the location: "optional", "required"
# (after "in") or "goal" (after "to", never fronted)).
_HOUSE_ACTIONS = (
    ("take", ("takes", "took", "grabs"), _H_GROWN + ("dog",), _H_PORTABLE, None, None, None, "optional"),
    ("give", ("gives", "gave"), _H_GROWN, _H_PORTABLE, None, _H_ACTORS, "required", "optional"),
    ("bring", ("brings",), _H_GROWN, _H_PORTABLE, None, _H_ACTORS, "required", "optional"),
    ("drop", ("drops",), _H_HUMANS + ("dog",), _H_PORTABLE, None, None, None, "optional"),
    ("throw", ("throws",), _H_HUMANS, _H_THROWABLE, None, _H_ACTORS, "optional", "optional"),
    ("eat", ("eats", "ate"), _H_ACTORS, _HOUSE_FOOD, None, None, None, "optional"),
    ("drink", ("drinks", "drank"), _H_ACTORS, _HOUSE_DRINKS, None, None, None, "optional"),
    ("read", ("reads",), _H_GROWN, _HOUSE_READING, None, _H_HUMANS, "optional", "optional"),
    ("wash", ("washes", "cleans"), _H_GROWN, _H_WASHABLE, None, None, None, "optional"),
    ("open", ("opens",), _H_GROWN, _H_OPENABLE, None, None, None, "optional"),
    ("close", ("closes", "shuts"), _H_GROWN, _H_OPENABLE, None, None, None, "optional"),
    ("break", ("breaks",), _H_ACTORS, _H_BREAKABLE, None, None, None, "optional"),
    ("play", ("plays",), _H_ACTORS, _H_TOYS, "with", None, None, "optional"),
    ("sleep", ("sleeps",), _H_ACTORS, None, None, None, None, "required"),
    ("go", ("goes", "walks"), _H_ACTORS, None, None, None, None, "goal"),
)


def _house_lexicon():
    """Every word the AMBIGHOUSE grammar can write, mapped to its symbol ("-" for function words)."""
    lexicon = {w: NO_SYMBOL for w in _HOUSE_FUNCTION_WORDS}
    for symbol, words in _HOUSE_ACTORS.items():
        lexicon.update((w, symbol) for w in words)
    lexicon.update((w, w) for w in _HOUSE_LOCATIONS + _HOUSE_OBJECTS)
    for action in _HOUSE_ACTIONS:
        lexicon.update((w, action[0]) for w in action[1])
    return lexicon


_HOUSE_LEXICON = _house_lexicon()


def _house_np(draws, symbol, tokens, symbols):
    """Appends a noun phrase naming `symbol` (its determiner aligned to "-")."""
    words = _HOUSE_ACTORS.get(symbol)
    if words is None:  # an object or a room: its symbol is its word
        word = symbol
        if word in _HOUSE_LOCATIONS or word in _HOUSE_MASS or word[0] in _VOWELS or draws.random() >= 0.25:
            tokens.append("the")
        else:
            tokens.append("a")
        symbols.append(NO_SYMBOL)
    else:
        word = words[0] if len(words) == 1 else draws.pick(words)
        if word not in _HOUSE_NAMES:
            tokens.append("the")
            symbols.append(NO_SYMBOL)
    tokens.append(word)
    symbols.append(symbol)


def _house_event(draws, action, scene, location, loc_p):
    """An MR of `action` whose participants are members of `scene` (a set of actors and objects; None:
    the whole house), or None when the scene cannot fill its roles. `location`: the scene's room;
    `loc_p`: the probability that an optional location is said."""
    symbol, _, a0s, a1s, a1_word, a2s, a2_mode, loc_mode = action
    if scene is not None:
        a0s = [a for a in a0s if a in scene]
        if not a0s:
            return None
    a0 = draws.pick(a0s)
    pairs = [(symbol, "REL"), (a0, "A0")]
    a1 = None
    # playing needs no toy: "plays" also comes without "with", which would otherwise always follow it
    # and could take its symbol as well as it (no bag could tell the two words apart); the room is
    # then said
    no_toy = a1_word == "with" and draws.random() < 0.3
    if no_toy:
        loc_mode = "required"  # "the dog plays in the attic"
    if a1s is not None and not no_toy:
        a1s = [a for a in a1s if a != a0 and (scene is None or a in scene)]
        if not a1s:
            return None
        a1 = draws.pick(a1s)
        pairs.append((a1, "A1"))
    if a2s is not None and (a2_mode == "required" or draws.random() < 0.5):
        a2s = [a for a in a2s if a != a0 and a != a1 and (scene is None or a in scene)]
        if a2s:
            pairs.append((draws.pick(a2s), "A2"))
        elif a2_mode == "required":
            return None
    if loc_mode == "goal":
        pairs.append((location if draws.random() < 0.5 else draws.pick(_HOUSE_LOCATIONS), "LOC"))
    elif loc_mode == "required" or draws.random() < loc_p:
        pairs.append((location, "LOC"))
    return tuple(pairs)


def _house_sentence(draws):
    """One sentence of the AMBIGHOUSE grammar: (tokens, alignment, MR)."""
    action = draws.pick(_HOUSE_ACTIONS)
    mr = _house_event(draws, action, None, draws.pick(_HOUSE_LOCATIONS), 0.5)  # (never None in the whole house)
    args = {r: s for s, r in mr[1:]}
    tokens, symbols = [], []
    loc = args.get("LOC")
    _, verbs, _, _, a1_word, _, _, loc_mode = action
    front = loc is not None and loc_mode != "goal" and draws.random() < 0.3
    if front:
        tokens.append("in")
        symbols.append(NO_SYMBOL)
        _house_np(draws, loc, tokens, symbols)
    _house_np(draws, args["A0"], tokens, symbols)
    tokens.append(draws.pick(verbs))
    symbols.append(mr[0][0])
    if "A2" in args and draws.random() < 0.4:  # double object: "gives the baby the ball"
        _house_np(draws, args["A2"], tokens, symbols)
        _house_np(draws, args["A1"], tokens, symbols)
    else:
        if "A1" in args:
            if a1_word is not None:
                tokens.append(a1_word)
                symbols.append(NO_SYMBOL)
            _house_np(draws, args["A1"], tokens, symbols)
        if "A2" in args:
            tokens.append("to")
            symbols.append(NO_SYMBOL)
            _house_np(draws, args["A2"], tokens, symbols)
    if loc is not None and not front:
        tokens.append("to" if loc_mode == "goal" else "in")
        symbols.append(NO_SYMBOL)
        _house_np(draws, loc, tokens, symbols)
    return tokens, symbols, mr


def _house_distractors(draws, mr, count):
    """`count` distinct MRs of other events of the sentence's scene: the room (the sentence's, or one
    drawn when it says none), its actors and objects plus a few more of the house's."""
    if count == 0:
        return []
    members = [s for s, r in mr[1:] if r != "LOC"]
    location = next((s for s, r in mr[1:] if r == "LOC"), None) or draws.pick(_HOUSE_LOCATIONS)
    n_actors, n_objects = 2 + draws.below(3), 3 + draws.below(4)  # 2..4 actors, 3..6 objects
    actors = set(m for m in members if m in _HOUSE_ACTORS)
    objects = set(m for m in members if m not in _HOUSE_ACTORS)
    while len(actors) < n_actors:
        actors.add(draws.pick(_H_ACTORS))
    while len(objects) < n_objects:
        objects.add(draws.pick(_HOUSE_OBJECTS))
    scene = actors | objects
    seen = {mr}
    out = []
    failures = 0
    while len(out) < count:
        event = _house_event(draws, draws.pick(_HOUSE_ACTIONS), scene, location, 0.5)
        if event is None or event in seen:
            failures += 1
            if failures % 20 == 0:  # a small scene is exhausted: someone or something else comes in
                scene.add(draws.pick(_H_ACTORS))
                scene.add(draws.pick(_HOUSE_OBJECTS))
            continue
        seen.add(event)
        out.append(event)
    return out


def make_ambighouse(n_samples=2500, ambiguity=0, random_state=None):
    """The AMBIGHOUSE corpus: sentences about a simulated house, with ambiguous MR supervision.

    A re-creation of the toy corpus of Bordes (2010, section 6.2.2): 15 actions, 59 symbols (the 15
    actions, 8 actors, 8 rooms and 28 objects) and 74 words. Each sentence states one event, whose
    MR is the action with its arguments in role order, e.g. ``take:REL mother:A0 ball:A1
    kitchen:LOC``. Roles: A0 the agent, A1 the object (the thing taken, eaten, washed, played with),
    A2 the recipient (give, bring, and optionally throw and read), LOC the room (optional for most
    actions, always said for sleep and for go, whose LOC is the destination).

    The grammar writes the subject, the verb, the objects and an optional location: "the mother takes
    the ball", "in the kitchen daddy took a cup" (a fronted location), "the sister gives the cat the
    milk" (double object) or "... gives the milk to the cat", "the baby plays with the ball", "the dog
    goes to the garden". Verbs have synonyms and past forms ("takes", "took", "grabs" -> take;
    "washes", "cleans" -> wash) and mother and father are also "mommy" and "daddy"; "the", "a",
    "to", "in" and "with" align to "-". Sentences have 4 to 11 tokens; each word always means the
    same symbol and each argument is said by exactly one word.

    Ambiguity: at level n a bag holds the correct MR and a number of distractors drawn uniformly in
    0..2n (mean n). The distractors are other events of the same scene, as a perceptual context
    would give them: the scene is the sentence's room (or a room drawn when it says none), its actors
    and objects plus others up to 2 to 4 actors and 3 to 6 objects, and each distractor is a random
    action of these participants; its location, when it says one (as often as sentences do), is the
    scene's room, except that go's destination is any room half of the time. Distractors thus
    often share actors, objects and room with the correct MR (three quarters of them share at least
    one); they are distinct from each other and from the correct MR.

    Parameters
    ----------
    n_samples : int, default=2500
        The number of sentences, >= 1 (the thesis trains on 2,000 and tests on 500).
    ambiguity : int, default=0
        The ambiguity level n, in 0..5: the mean number of incorrect MRs in a bag.
    random_state : int, RandomState instance or None, default=None
        Seeds the corpus (see `sklearn.utils.check_random_state`). The sentences, correct MRs and
        alignments depend on it only, not on `ambiguity`.

    Returns
    -------
    sentences : list of list of str
        The tokens of each sentence.
    bags : list of list of tuple
        Each sentence's candidate MRs, the correct one and its distractors in a random order (at
        level 0, a list holding the correct MR only). An MR is a tuple of (symbol, role) pairs, the
        ("action", "REL") pair first and the arguments in the order A0, A1, A2, LOC.
    true_mrs : list of list of tuple
        Each sentence's correct MRs (one here).
    alignments : list of list of str
        The symbol each token expresses, "-" for none: the noise-free alignment, for evaluation only.

    See Also
    --------
    make_ambigchild : A child's-world corpus with one to four MRs a sentence.
    largemargin.semantic.metrics.mr_scores : The MR precision, recall and F1.
    largemargin.semantic.metrics.alignment_error : The fraction of misaligned sentences.

    Examples
    --------
    >>> from largemargin.semantic.corpora import make_ambighouse
    >>> sentences, bags, true_mrs, alignments = make_ambighouse(n_samples=5, ambiguity=1, random_state=0)
    >>> sentences[1]
    ['in', 'the', 'attic', 'the', 'dog', 'plays', 'with', 'the', 'ball']
    >>> true_mrs[1]
    [(('play', 'REL'), ('dog', 'A0'), ('ball', 'A1'), ('attic', 'LOC'))]
    >>> alignments[1]
    ['-', '-', 'attic', '-', 'dog', 'play', '-', '-', 'ball']
    >>> for mr in bags[0]:  # the correct MR and a distractor
    ...     print(mr)
    (('read', 'REL'), ('grandma', 'A0'), ('book', 'A1'))
    (('take', 'REL'), ('dog', 'A0'), ('apple', 'A1'))
    """
    n_samples = _check_int("n_samples", n_samples, 1)
    ambiguity = _check_int("ambiguity", ambiguity, 0, _HOUSE_MAX_AMBIGUITY)
    text, noise = _streams(random_state)
    sentences, bags, true_mrs, alignments = [], [], [], []
    for _ in range(n_samples):
        tokens, symbols, mr = _house_sentence(text)
        sentences.append(tokens)
        alignments.append(symbols)
        true_mrs.append([mr])
        if ambiguity == 0:
            bags.append([mr])
        else:
            bags.append(_bag([mr], _house_distractors(noise, mr, noise.below(2 * ambiguity + 1)), noise))
    return sentences, bags, true_mrs, alignments


