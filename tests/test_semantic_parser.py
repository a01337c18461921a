"""SemanticParser (OSPAS): it recovers the word-symbol alignment and the MRs from ambiguous bags,
parses unknown words as the thesis does, learns online through partial_fit, pickles, and refuses
wrong input with errors that name the problem."""

import math
import pickle

import numpy as np
import pytest

import largemargin as lm
from largemargin.exceptions import InvalidParameterError


@pytest.fixture(scope="module")
def house():
    return lm.make_ambighouse(2500, ambiguity=1, random_state=3)


@pytest.fixture(scope="module")
def fitted(house):
    sentences, bags, _, _ = house
    return lm.SemanticParser(C=0.1, random_state=0).fit(sentences[:2000], bags[:2000])


def test_recovers_the_alignment_and_the_mrs_from_ambiguous_bags(house, fitted):
    sentences, bags, true_mrs, alignments = house
    assert sum(len(b) > 1 for b in bags[:2000]) > 900  # the supervision is ambiguous
    assert lm.alignment_error(alignments[2000:], fitted.predict_alignment(sentences[2000:])) < 0.05
    assert fitted.score(sentences[2000:], true_mrs[2000:]) > 0.9
    assert set(fitted.relation_symbols_) == {mr[0][0] for mrs in true_mrs[:2000] for mr in mrs}
    assert fitted.n_sentences_seen_ == 2000
    assert fitted.n_updates_["symbol_updates"] > 0 and fitted.n_updates_["role_passes"] > 0


def test_predicts_mrs_in_the_input_form(house, fitted):
    sentences, _, _, _ = house
    for mrs in fitted.predict(sentences[2000:2100]):
        for mr in mrs:
            assert isinstance(mr, tuple) and mr[0][1] == "REL"
            assert all(isinstance(p, tuple) and len(p) == 2 for p in mr)
            assert [r for _, r in mr[1:]] == sorted(r for _, r in mr[1:])


def test_unknown_words_take_no_symbol_and_empty_sentences_parse_to_nothing(fitted):
    assert fitted.predict_alignment([["the", "zorblax", "eats", "the", "apple"], []]) == [
        ["-", "-", "eat", "-", "apple"], []]
    assert fitted.predict([[]]) == [[]]
    assert fitted.predict([["zorblax"]]) == [[]]


@pytest.mark.parametrize("strategy", ["random", "left-right", "order-free"])
def test_every_strategy_learns_unambiguous_supervision(strategy):
    sentences, bags, true_mrs, alignments = lm.make_ambighouse(1200, ambiguity=0, random_state=1)
    parser = lm.SemanticParser(C=0.1, strategy=strategy, random_state=0).fit(sentences[:1000], bags[:1000])
    # left to right learns slowest (the thesis' Figure 6.4): the first words of a sentence, mostly
    # "the", take the empty symbols before the others are tried
    bound = 0.6 if strategy == "left-right" else 0.1
    assert lm.alignment_error(alignments[1000:], parser.predict_alignment(sentences[1000:])) < bound


def test_partial_fit_streams_and_grows_the_vocabulary(house):
    sentences, bags, true_mrs, alignments = house
    parser = lm.SemanticParser(C=0.1, random_state=0)
    sizes = []
    for start in range(0, 2000, 250):
        parser.partial_fit(sentences[start:start + 250], bags[start:start + 250])
        sizes.append(len(parser.vocabulary_))
        assert parser.symbol_coef_.shape == ((len(parser.vocabulary_) + 1) * parser.window_[0], len(parser.symbols_))
        assert parser.role_coef_.shape[1] == len(parser.roles_)
    assert sizes == sorted(sizes) and parser.n_sentences_seen_ == 2000
    assert lm.alignment_error(alignments[2000:], parser.predict_alignment(sentences[2000:])) < 0.05
    with pytest.raises(ValueError, match="window"):
        parser.set_params(window=(3, 5)).partial_fit(sentences[:5], bags[:5])


def test_c_follows_the_thesis_rule_when_not_given(house):
    sentences, bags, _, _ = house
    parser = lm.SemanticParser(random_state=0).fit(sentences[:300], bags[:300])
    words = sum(len(s) for s in sentences[:300])
    expected = math.sqrt(len(parser.vocabulary_) * (len(parser.symbols_) - 1) / (2 * words))
    assert parser.C_ == pytest.approx(expected)


def test_pickles(house, fitted):
    sentences = house[0][2000:2050]
    again = pickle.loads(pickle.dumps(fitted))
    assert again.predict(sentences) == fitted.predict(sentences)
    np.testing.assert_array_equal(again.symbol_coef_, fitted.symbol_coef_)


def test_epochs_make_passes():
    sentences, bags, _, _ = lm.make_ambighouse(100, ambiguity=1, random_state=0)
    parser = lm.SemanticParser(epochs=3, random_state=0).fit(sentences, bags)
    assert parser.n_sentences_seen_ == 300


def test_padding_all_learns_sentences_of_several_mrs_without_ambiguity():
    """With no distractor, a sentence's MRs together are its meaning: counting "-" from all their
    pairs leaves few enough that a content word predicting "-" gets corrected, where the count
    that keeps each MR feasible alone leaves most of the sentence to "-"."""
    f1 = {"each": [], "all": []}
    for seed in (0, 1):
        sentences, bags, true_mrs, _ = lm.make_ambigchild(2100, ambiguity=0, random_state=seed)
        for padding in f1:
            parser = lm.SemanticParser(C=1.0, padding=padding, random_state=seed).fit(sentences[:2000], bags[:2000])
            f1[padding].append(parser.score(sentences[2000:], true_mrs[2000:]))
    assert np.mean(f1["all"]) > np.mean(f1["each"]) + 0.1, f1


def test_padding_each_keeps_every_candidate_feasible(house):
    """Among distractors, "all" would leave the function words no "-": "each" keeps a sentence
    of one MR learnable."""
    sentences, bags, _, alignments = house
    errors = {}
    for padding in ("each", "all"):
        parser = lm.SemanticParser(C=0.1, padding=padding, random_state=0).fit(sentences[:2000], bags[:2000])
        errors[padding] = lm.alignment_error(alignments[2000:], parser.predict_alignment(sentences[2000:]))
    assert errors["each"] < 0.05 < errors["all"], errors


def test_an_mr_given_twice_in_a_bag_is_one_candidate():
    """A repeated MR (its pairs in any order) would otherwise count its pairs twice against the
    "-" of padding="all" and draw the role tagger twice as hard to it."""
    sentences, bags, _, _ = lm.make_ambigchild(300, ambiguity=1, random_state=0)
    repeated = [b + [tuple(reversed(mr)) for mr in b] for b in bags]
    for padding in ("each", "all"):
        once = lm.SemanticParser(C=1.0, padding=padding, random_state=0).fit(sentences, bags)
        twice = lm.SemanticParser(C=1.0, padding=padding, random_state=0).fit(sentences, repeated)
        np.testing.assert_array_equal(once.symbol_coef_, twice.symbol_coef_)
        np.testing.assert_array_equal(once.role_coef_, twice.role_coef_)


MR = (("eat", "REL"), ("dog", "A0"))


@pytest.mark.parametrize("sentences, bags, match", [
    ([["a", "dog", "eats"]], [[(("eat", "A1"), ("dog", "A0"))]], "MR 0 of sentence 0 has 0 pairs of role 'REL'"),
    ([["a", "dog", "eats"]], [[(("eat", "REL"), ("dog", "REL"))]], "has 2 pairs of role 'REL'"),
    ([["a", "dog", "eats"]], [[]], "the bag of sentence 0 is empty"),
    ([["a", "dog", "eats"], []], [[MR], [MR]], "sentence 1 has no tokens"),
    ([], [], "no sentences"),
    ("a dog eats", [[MR]], "list of token lists"),
    (["a dog eats"], [[MR]], "sentence 0 must be a list of tokens"),
    ([["a", "dog", 3]], [[MR]], "tokens must be strings"),
    ([["a", "dog", "eats"]], [[MR], [MR]], "1 sentences, 2 bags"),
    ([["a", "dog", "eats"]], [[(("eat", "REL"), ("-", "A0"))]], "empty symbol"),
    ([["a", "dog", "eats"]], [[(("eat", "REL"), ("dog", "A0"), ("cat", "A0"))]], "gives a role to two symbols"),
    ([["a", "dog", "eats"]], [[(("eat", "REL"), ("dog",))]], "is not a .symbol, role. pair"),
    ([["a", "dog", "eats"]], [["eat:REL dog:A0"]], "must be a sequence of .symbol, role. pairs"),
])
def test_wrong_input_is_refused_with_a_clear_error(sentences, bags, match):
    with pytest.raises(ValueError, match=match):
        lm.SemanticParser().fit(sentences, bags)


@pytest.mark.parametrize("params", [{"strategy": "best-first"}, {"window": (2, 5)}, {"window": (1,)}, {"C": -1.0},
                                    {"epochs": 0}, {"window": "15"}, {"padding": "none"}])
def test_bad_parameters(params):
    with pytest.raises(InvalidParameterError):
        lm.SemanticParser(**params).fit([["a", "dog", "eats"]], [[MR]])


def test_a_failed_fit_leaves_the_parser_as_it_was(fitted):
    before = pickle.dumps(fitted)
    with pytest.raises(ValueError):
        fitted.partial_fit([["a", "dog"]], [[(("eat", "A0"),)]])
    assert pickle.dumps(fitted) == before


def test_predict_needs_a_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        lm.SemanticParser().predict([["a"]])


def test_partial_fit_on_batches_is_fit_on_the_stream(house):
    sentences, bags, _, _ = house
    whole = lm.SemanticParser(C=0.1, random_state=5).fit(sentences[:600], bags[:600])
    streamed = lm.SemanticParser(C=0.1, random_state=5)
    for start in range(0, 600, 150):
        streamed.partial_fit(sentences[start:start + 150], bags[start:start + 150])
    np.testing.assert_array_equal(streamed.symbol_coef_, whole.symbol_coef_)
    np.testing.assert_array_equal(streamed.role_coef_, whole.role_coef_)


def test_bags_given_as_sets_do_not_depend_on_hashing(house):
    sentences, bags, _, _ = house
    as_lists = lm.SemanticParser(C=0.1, random_state=0).fit(sentences[:300], [sorted(b) for b in bags[:300]])
    as_sets = lm.SemanticParser(C=0.1, random_state=0).fit(sentences[:300], [set(b) for b in bags[:300]])
    np.testing.assert_array_equal(as_sets.symbol_coef_, as_lists.symbol_coef_)


def test_a_bare_mr_for_a_bag_gets_a_hint():
    with pytest.raises(ValueError, match="not wrapped in a list"):
        lm.SemanticParser().fit([["a", "dog", "eats"]], [MR])


def test_score_names_its_own_arguments(fitted, house):
    with pytest.raises(ValueError, match="5 sentences but 4 lists of true MRs"):
        fitted.score(house[0][:5], house[2][:4])
