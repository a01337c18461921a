"""The AMBIGHOUSE and AMBIGCHILD generators: formats, the world's counts, alignments consistent with
the MRs, bags at each ambiguity level, determinism and argument errors."""

from collections import Counter

import numpy as np
import pytest

from largemargin.semantic.corpora import child, house, make_ambigchild, make_ambighouse
from largemargin.semantic.corpora import child_lexicon as lexicon_tables

ROLES = ("REL", "A0", "A1", "A2", "LOC")
GENERATORS = [pytest.param(make_ambighouse, 5, id="ambighouse"), pytest.param(make_ambigchild, 3, id="ambigchild")]


def house_symbols():
    return set(house._HOUSE_LEXICON.values()) - {"-"}


def child_lexicon():
    lexicon = {}
    for word, symbol in child._child_lexicon_pairs():
        assert word not in lexicon, f"{word!r} stands for {lexicon[word]!r} and {symbol!r}"
        lexicon[word] = symbol
    return lexicon


CHILD_VERBS = {v[0] for v in lexicon_tables._CHILD_VERBS}
CHILD_NOUNS = {n[0] for n in lexicon_tables._CHILD_NOUNS}


def check_mr(mr):
    """An MR of the corpora: a tuple of (symbol, role) str pairs, REL first, roles in order."""
    assert isinstance(mr, tuple) and len(mr) >= 2
    for pair in mr:
        assert isinstance(pair, tuple) and len(pair) == 2
        assert all(isinstance(x, str) for x in pair)
        assert pair[0] and pair[0] != "-" and pair[0] == pair[0].lower()
    roles = [role for _, role in mr]
    assert roles[0] == "REL" and roles.count("REL") == 1
    assert roles == sorted(roles, key=ROLES.index) and len(set(roles)) == len(roles)
    # no participant twice ("daddy sees that mommy sees the cat" has see:REL father:A0 see:A1)
    assert len({symbol for symbol, _ in mr[1:]}) == len(mr) - 1, mr


def aligned_multiset(mrs):
    """The symbols the sentence must say, each once: every pair of every MR, except that an
    argument which is the REL of another MR of the sentence (a nested clause) is that REL's word."""
    rels = {mr[0][0] for mr in mrs}
    every = Counter(symbol for mr in mrs for symbol, _ in mr)
    nested = Counter(symbol for mr in mrs for symbol, _ in mr[1:] if symbol in rels)
    return every - nested


# ------------------------------------------------------------------------------------------------
# formats and alignments


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_format(make, max_level):
    out = make(n_samples=300, ambiguity=1, random_state=3)
    assert isinstance(out, tuple) and len(out) == 4
    sentences, bags, true_mrs, alignments = out
    for part in out:
        assert isinstance(part, list) and len(part) == 300
    for tokens, bag, mrs, symbols in zip(*out):
        assert isinstance(tokens, list) and tokens
        assert all(isinstance(t, str) and t and t == t.lower() and " " not in t for t in tokens)
        assert isinstance(mrs, list) and isinstance(bag, list) and isinstance(symbols, list)
        assert len(symbols) == len(tokens)
        assert all(isinstance(s, str) and s for s in symbols)
        for mr in mrs + bag:
            check_mr(mr)


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_alignment_says_every_symbol_of_the_true_mrs_once(make, max_level):
    sentences, _, true_mrs, alignments = make(n_samples=3000, random_state=7)
    for tokens, mrs, symbols in zip(sentences, true_mrs, alignments):
        said = Counter(s for s in symbols if s != "-")
        assert said == aligned_multiset(mrs), (tokens, mrs, symbols)


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_a_word_means_one_symbol_across_the_corpus(make, max_level):
    sentences, _, _, alignments = make(n_samples=3000, random_state=8)
    meaning = {}
    for tokens, symbols in zip(sentences, alignments):
        for token, symbol in zip(tokens, symbols):
            assert meaning.setdefault(token, symbol) == symbol, (token, symbol, meaning[token])
    for function_word in ("the", "a", "to", "in", "with"):
        assert meaning.get(function_word, "-") == "-"


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_nested_arguments_name_a_rel_of_the_sentence(make, max_level):
    _, _, true_mrs, _ = make(n_samples=2000, random_state=9)
    for mrs in true_mrs:
        assert len(set(mrs)) == len(mrs)
        rels = [mr[0][0] for mr in mrs]
        for mr in mrs:
            for symbol, role in mr[1:]:
                if make is make_ambigchild and symbol in CHILD_VERBS:
                    assert role == "A1" and symbol in rels
                    assert rels.count(symbol) >= 1


# ------------------------------------------------------------------------------------------------
# AMBIGHOUSE: the world of the thesis (15 actions, 59 symbols, 74 words)


def test_ambighouse_tables_have_the_thesis_counts():
    lexicon = house._HOUSE_LEXICON
    assert len(lexicon) == 74  # distinct words, function words included
    assert len(house_symbols()) == 59
    actions = {a[0] for a in house._HOUSE_ACTIONS}
    assert len(house._HOUSE_ACTIONS) == len(actions) == 15
    assert actions <= house_symbols()
    entities = set(house._HOUSE_ACTORS) | set(house._HOUSE_LOCATIONS) | set(house._HOUSE_OBJECTS)
    assert len(entities) == 59 - 15 and not entities & actions
    assert {w for w, s in lexicon.items() if s == "-"} == set(house._HOUSE_FUNCTION_WORDS)


def test_ambighouse_uses_the_whole_lexicon_and_nothing_else():
    sentences, _, true_mrs, alignments = make_ambighouse(n_samples=20000, random_state=0)
    lexicon = house._HOUSE_LEXICON
    words = Counter(t for tokens in sentences for t in tokens)
    assert set(words) == set(lexicon)
    for tokens, symbols in zip(sentences, alignments):
        assert symbols == [lexicon[t] for t in tokens]
    assert {s for symbols in alignments for s in symbols} - {"-"} == house_symbols()
    assert {mrs[0][0][0] for mrs in true_mrs} == {a[0] for a in house._HOUSE_ACTIONS}
    lengths = [len(tokens) for tokens in sentences]
    assert min(lengths) == 4 and max(lengths) == 11


def test_ambighouse_one_mr_a_sentence_following_the_action_frames():
    sentences, _, true_mrs, _ = make_ambighouse(n_samples=4000, random_state=1)
    frames = {a[0]: a for a in house._HOUSE_ACTIONS}
    orders = Counter()
    for tokens, mrs in zip(sentences, true_mrs):
        assert len(mrs) == 1
        mr = mrs[0]
        _, _, a0s, a1s, _, a2s, a2_mode, loc_mode = frames[mr[0][0]]
        args = {role: symbol for symbol, role in mr[1:]}
        assert args["A0"] in a0s
        # playing may come without a toy, and then the room is said
        toyless = mr[0][0] == "play" and "A1" not in args and "LOC" in args
        assert ("A1" in args) == (a1s is not None) or toyless
        assert "A1" not in args or args["A1"] in a1s
        if a2_mode == "required":
            assert args["A2"] in a2s
        elif "A2" in args:
            assert a2s is not None and args["A2"] in a2s
        if loc_mode != "optional":
            assert args["LOC"] in house._HOUSE_LOCATIONS
        orders[tokens[0] == "in"] += 1
    assert orders[True] > 200 and orders[False] > 2000  # some locations come first


def test_ambighouse_has_synonyms():
    sentences, _, _, alignments = make_ambighouse(n_samples=5000, random_state=2)
    words_of = {}
    for tokens, symbols in zip(sentences, alignments):
        for t, s in zip(tokens, symbols):
            words_of.setdefault(s, set()).add(t)
    assert words_of["take"] == {"takes", "took", "grabs"}
    assert words_of["mother"] == {"mother", "mommy"}


# ------------------------------------------------------------------------------------------------
# AMBIGCHILD: a child's world, 1 to 4 RELs


def test_ambigchild_lexicon():
    lexicon = child_lexicon()  # asserts that no word stands for two symbols
    assert not CHILD_VERBS & CHILD_NOUNS
    assert len(CHILD_VERBS) >= 30 and len(CHILD_NOUNS) >= 100
    no_symbol = {w for w, s in lexicon.items() if s == "-"}
    for word in lexicon_tables._CHILD_ADJECTIVES_LIVING + lexicon_tables._CHILD_ADJECTIVES_THINGS + ("the", "that", "and", "to"):
        assert word in no_symbol
    assert set(lexicon.values()) - {"-"} == CHILD_VERBS | CHILD_NOUNS
    # larger than AMBIGHOUSE's
    assert len(lexicon) > 3 * len(house._HOUSE_LEXICON)


def test_ambigchild_words_match_the_lexicon():
    lexicon = child_lexicon()
    sentences, _, _, alignments = make_ambigchild(n_samples=5000, random_state=4)
    for tokens, symbols in zip(sentences, alignments):
        assert symbols == [lexicon[t] for t in tokens], tokens


def test_ambigchild_has_one_to_four_rels_nesting_and_coordination():
    sentences, _, true_mrs, _ = make_ambigchild(n_samples=2000, random_state=5)
    n_rels = Counter(len(mrs) for mrs in true_mrs)
    assert set(n_rels) == {1, 2, 3, 4}
    assert n_rels[1] > n_rels[2] > n_rels[3] > n_rels[4] > 0
    nested = coordinated = 0
    for tokens, mrs in zip(sentences, true_mrs):
        rels = {mr[0][0] for mr in mrs}
        if any(symbol in rels for mr in mrs for symbol, _ in mr[1:]):
            nested += 1
        if "and" in tokens:
            coordinated += 1
            assert len(mrs) >= 2
    assert nested > 300 and coordinated > 100
    joined = {" ".join(tokens) for tokens in sentences}
    assert any(" that " in s for s in joined) and any(" by " in s for s in joined)


def test_ambigchild_example_of_the_thesis_shape():
    # "X wants Y to VP": Y is only the embedded clause's A0
    sentences, _, true_mrs, alignments = make_ambigchild(n_samples=3000, random_state=6)
    found = 0
    for tokens, mrs, symbols in zip(sentences, true_mrs, alignments):
        if len(mrs) == 2 and mrs[0][0][0] == "want" and "to" in tokens and "and" not in tokens:
            outer, inner = mrs
            assert dict((r, s) for s, r in outer)["A1"] == inner[0][0]
            assert inner[1][1] == "A0" and inner[1][0] not in {s for s, _ in outer}
            found += 1
    assert found > 10


def test_ambigchild_frequencies_are_zipf_like():
    _, _, _, alignments = make_ambigchild(n_samples=20000, random_state=0)
    counts = Counter(s for symbols in alignments for s in symbols if s != "-")
    freq = np.sort(np.array(list(counts.values()), dtype=float))[::-1]
    slope = np.polyfit(np.log(np.arange(1, len(freq) + 1)), np.log(freq), 1)[0]
    assert -2.0 < slope < -0.8  # frequency about proportional to 1 / rank
    assert freq[:len(freq) // 10].sum() > 0.4 * freq.sum()


def test_ambigchild_test_sentences_hold_rare_words():
    rare = []
    for seed in range(5):  # splits of 900 training and 25 test sentences, as in the thesis
        sentences, _, _, alignments = make_ambigchild(n_samples=925, random_state=seed)
        counts = Counter(s for symbols in alignments for s in symbols if s != "-")
        assert sum(c <= 2 for c in counts.values()) > 0.05 * len(counts)
        train = Counter(t for tokens in sentences[:900] for t in tokens)
        rare.append(np.mean([train[t] <= 5 for tokens in sentences[900:] for t in tokens]))
    assert np.mean(rare) > 0.02


# ------------------------------------------------------------------------------------------------
# bags


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_level_zero_bags_are_copies_of_the_true_mrs(make, max_level):
    _, bags, true_mrs, _ = make(n_samples=500, ambiguity=0, random_state=10)
    for bag, mrs in zip(bags, true_mrs):
        assert bag == mrs and bag is not mrs


def distractors_of(bag, mrs):
    left = Counter(bag)
    left.subtract(Counter(mrs))
    assert all(v >= 0 for v in left.values()), "a correct MR is missing from its bag"
    return list(left.elements())


@pytest.mark.parametrize("make, level", [(make_ambighouse, level) for level in (1, 2, 3, 5)]
                         + [(make_ambigchild, level) for level in (1, 2, 3)])
def test_bags_hold_the_true_mrs_and_level_distractors_on_average(make, level):
    n = 4000
    _, bags, true_mrs, _ = make(n_samples=n, ambiguity=level, random_state=11)
    counts, first = [], 0
    for bag, mrs in zip(bags, true_mrs):
        distractors = distractors_of(bag, mrs)
        assert len(bag) == len(mrs) + len(distractors)
        forms = [frozenset(mr) for mr in bag]
        assert len(set(forms)) == len(forms), "distractors must be distinct from each other and the true MRs"
        counts.append(len(distractors))
        first += bag[0] == mrs[0]
    counts = np.array(counts)
    assert counts.min() == 0 and counts.max() == 2 * level
    sd = np.sqrt(level * (level + 1) / 3)  # of a uniform draw in 0..2 level
    assert abs(counts.mean() - level) < 4 * sd / np.sqrt(n)
    assert first < 0.9 * n  # the bags are shuffled


def test_ambighouse_distractors_are_events_of_the_same_world_and_scene():
    lexicon_symbols = house_symbols()
    frames = {a[0]: a for a in house._HOUSE_ACTIONS}
    _, bags, true_mrs, _ = make_ambighouse(n_samples=3000, ambiguity=3, random_state=12)
    shared = total = 0
    for bag, mrs in zip(bags, true_mrs):
        own = {s for s, _ in mrs[0][1:]}
        for mr in distractors_of(bag, mrs):
            assert {s for s, _ in mr} <= lexicon_symbols
            _, _, a0s, a1s, _, a2s, _, _ = frames[mr[0][0]]
            args = {role: symbol for symbol, role in mr[1:]}
            assert args["A0"] in a0s and ("A1" not in args or args["A1"] in a1s)
            assert "A2" not in args or args["A2"] in a2s
            total += 1
            shared += bool(own & set(args.values()))
    assert shared > 0.5 * total  # they share actors, objects or the room with the sentence's event


def test_ambigchild_distractors_are_valid_events_of_the_scene():
    _, bags, true_mrs, _ = make_ambigchild(n_samples=2000, ambiguity=3, random_state=13)
    shared = total = 0
    frames = {v[0]: v[2] for v in lexicon_tables._CHILD_VERBS}
    for bag, mrs in zip(bags, true_mrs):
        own = {s for mr in mrs for s, _ in mr[1:]}
        for mr in distractors_of(bag, mrs):
            assert mr[0][0] in CHILD_VERBS
            for symbol, role in mr[1:]:
                assert symbol in CHILD_NOUNS or (role == "A1" and symbol in CHILD_VERBS)
            kinds = {f[0] for f in frames[mr[0][0]]}
            args = {role: symbol for symbol, role in mr[1:]}
            if "A1" in args and args["A1"] in CHILD_VERBS:
                assert kinds & {"that", "tell", "inf"}
            total += 1
            shared += bool(own & set(args.values()))
    assert shared > 0.5 * total


# ------------------------------------------------------------------------------------------------
# determinism and arguments


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_deterministic(make, max_level):
    a = make(n_samples=200, ambiguity=1, random_state=42)
    b = make(n_samples=200, ambiguity=1, random_state=42)
    c = make(n_samples=200, ambiguity=1, random_state=np.random.RandomState(42))
    assert a == b == c
    assert make(n_samples=200, ambiguity=1, random_state=43) != a
    assert isinstance(make(n_samples=3, random_state=None), tuple)


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_the_sentences_do_not_depend_on_the_ambiguity(make, max_level):
    plain = make(n_samples=300, ambiguity=0, random_state=5)
    for level in range(1, max_level + 1):
        ambiguous = make(n_samples=300, ambiguity=level, random_state=5)
        assert ambiguous[0] == plain[0] and ambiguous[2] == plain[2] and ambiguous[3] == plain[3]


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_defaults(make, max_level):
    sentences, bags, true_mrs, _ = make(random_state=0)
    assert len(sentences) == (2500 if make is make_ambighouse else 925)
    assert bags == true_mrs


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_accepts_numpy_ints(make, max_level):
    sentences, _, _, _ = make(n_samples=np.int64(3), ambiguity=np.int32(1), random_state=np.int64(0))
    assert len(sentences) == 3


@pytest.mark.parametrize("make, max_level", GENERATORS)
@pytest.mark.parametrize("kwargs, error", [
    ({"n_samples": 0}, ValueError),
    ({"n_samples": -3}, ValueError),
    ({"n_samples": 2.5}, TypeError),
    ({"n_samples": 10.0}, TypeError),
    ({"n_samples": "10"}, TypeError),
    ({"n_samples": True}, TypeError),
    ({"n_samples": None}, TypeError),
    ({"ambiguity": -1}, ValueError),
    ({"ambiguity": 1.0}, TypeError),
    ({"ambiguity": "1"}, TypeError),
    ({"ambiguity": False}, TypeError),
])
def test_bad_arguments(make, max_level, kwargs, error):
    name = next(iter(kwargs))
    with pytest.raises(error, match=name):
        make(**dict({"n_samples": 5}, **kwargs))


@pytest.mark.parametrize("make, max_level", GENERATORS)
def test_ambiguity_above_the_maximum(make, max_level):
    make(n_samples=5, ambiguity=max_level, random_state=0)
    with pytest.raises(ValueError, match=f"ambiguity must be an int in 0..{max_level}"):
        make(n_samples=5, ambiguity=max_level + 1)


def test_ambigchild_supports_the_levels_of_table_6_1_only():
    with pytest.raises(ValueError, match="ambiguity"):
        make_ambigchild(n_samples=5, ambiguity=4)


@pytest.mark.parametrize("make, max_level", GENERATORS)
@pytest.mark.parametrize("random_state", ["seed", -1, 1.5])
def test_bad_random_state(make, max_level, random_state):
    with pytest.raises(ValueError, match="random_state"):
        make(n_samples=5, random_state=random_state)
