"""The semantic parsing metrics: MR precision, recall and F1, and the alignment error, on
hand-computed cases."""

import pytest

from largemargin.semantic.metrics import alignment_error, mr_f1, mr_scores

EAT = (("eat", "REL"), ("dog", "A0"), ("bone", "A1"))
SLEEP = (("sleep", "REL"), ("cat", "A0"), ("bed", "LOC"))
GIVE = (("give", "REL"), ("mother", "A0"), ("box", "A1"), ("dog", "A2"))
BELIEVE = (("believe", "REL"), ("mother", "A0"), ("break", "A1"))
BREAK = (("break", "REL"), ("dog", "A0"), ("box", "A1"))


def approx(*values):
    return pytest.approx(values)


# ------------------------------------------------------------------------------------------------
# mr_scores / mr_f1


def test_perfect_predictions():
    true = [[EAT], [BELIEVE, BREAK], [SLEEP]]
    assert mr_scores(true, true) == (1.0, 1.0, 1.0)
    assert mr_f1(true, true) == 1.0


def test_returns_python_floats():
    scores = mr_scores([[EAT]], [[EAT, SLEEP]])
    assert all(type(v) is float for v in scores)
    assert type(mr_f1([[EAT]], [[]])) is float


def test_pair_order_and_mr_order_do_not_matter():
    shuffled = (("bone", "A1"), ("eat", "REL"), ("dog", "A0"))
    assert mr_scores([[EAT]], [[shuffled]]) == (1.0, 1.0, 1.0)
    assert mr_scores([[BELIEVE, BREAK]], [[BREAK, BELIEVE]]) == (1.0, 1.0, 1.0)


def test_lists_are_accepted_for_pairs_and_mrs():
    as_lists = [[list(pair) for pair in EAT]]
    assert mr_scores([[EAT]], [as_lists]) == (1.0, 1.0, 1.0)
    assert mr_scores(([EAT],), ([as_lists[0]],)) == (1.0, 1.0, 1.0)


def test_a_different_role_or_symbol_is_wrong():
    roles_swapped = (("eat", "REL"), ("dog", "A1"), ("bone", "A0"))
    extra_argument = EAT + (("kitchen", "LOC"),)
    missing_argument = EAT[:2]
    for guess in (roles_swapped, extra_argument, missing_argument):
        assert mr_scores([[EAT]], [[guess]]) == (0.0, 0.0, 0.0)


def test_hand_computed_across_sentences():
    # sentence 0: 2 true; predicted 1 correct, 1 wrong, 1 invalid (no REL)
    # sentence 1: 1 true; predicted correctly
    # sentence 2: 1 true; nothing predicted
    true = [[BELIEVE, BREAK], [EAT], [SLEEP]]
    pred = [[BREAK, GIVE, (("dog", "A0"), ("box", "A1"))], [EAT], []]
    precision, recall, f1 = mr_scores(true, pred)
    # correct 2, valid 3, true 4
    assert (precision, recall) == approx(2 / 3, 2 / 4)
    assert f1 == pytest.approx(2 * (2 / 3) * (1 / 2) / (2 / 3 + 1 / 2))
    assert mr_f1(true, pred) == f1


def test_a_correct_mr_in_the_wrong_sentence_does_not_count():
    assert mr_scores([[EAT], [SLEEP]], [[SLEEP], [EAT]]) == (0.0, 0.0, 0.0)


def test_duplicate_predictions_are_correct_once():
    # the same correct MR twice: 1 correct out of 2 valid
    assert mr_scores([[EAT]], [[EAT, EAT]]) == approx(0.5, 1.0, 2 / 3)
    # and with the pairs in another order: still the same MR
    assert mr_scores([[EAT]], [[EAT, tuple(reversed(EAT))]]) == approx(0.5, 1.0, 2 / 3)


def test_duplicate_true_mrs_need_duplicate_predictions():
    # multiset intersection: a true MR listed twice is recalled twice only if predicted twice
    assert mr_scores([[EAT, EAT]], [[EAT]]) == approx(1.0, 0.5, 2 / 3)
    assert mr_scores([[EAT, EAT]], [[EAT, EAT]]) == (1.0, 1.0, 1.0)


@pytest.mark.parametrize("invalid", [
    (),                                                        # empty
    (("dog", "A0"), ("bone", "A1")),                           # no REL
    (("eat", "REL"), ("sleep", "REL")),                        # two RELs
    (("eat", "REL"), ("dog", "A0"), ("cat", "A0")),            # a role twice
    (("eat", "REL"), ("eat", "REL")),                          # the same pair twice
    (("eat", "REL", "x"), ("dog", "A0")),                      # not a pair
    (("eat", "REL"), "dog"),                                   # a string for a pair
    (("eat", "REL"), ("dog", 0)),                              # a role that is not a string
    ((1, "REL"),),                                             # a symbol that is not a string
    "eat",                                                     # not a sequence of pairs
    None,
    5,
])
def test_invalid_predictions_count_nowhere(invalid):
    # next to one correct MR: precision stays 1, the invalid MR is not a wrong answer
    assert mr_scores([[EAT, SLEEP]], [[EAT, invalid]]) == approx(1.0, 0.5, 2 / 3)
    # alone: nothing valid, precision 0
    assert mr_scores([[EAT]], [[invalid]]) == (0.0, 0.0, 0.0)


def test_a_single_rel_is_a_valid_mr():
    assert mr_scores([[EAT]], [[(("eat", "REL"),)]]) == (0.0, 0.0, 0.0)
    assert mr_scores([[(("eat", "REL"),)]], [[(("eat", "REL"),)]]) == (1.0, 1.0, 1.0)


def test_valid_wrong_predictions_lower_precision_only():
    assert mr_scores([[EAT]], [[EAT, SLEEP, GIVE, BREAK]]) == approx(0.25, 1.0, 0.4)


def test_no_prediction_at_all():
    assert mr_scores([[EAT], [SLEEP]], [[], []]) == (0.0, 0.0, 0.0)
    assert mr_f1([[EAT]], [[]]) == 0.0


def test_sentences_without_true_mrs_still_count_their_predictions():
    assert mr_scores([[EAT], []], [[EAT], [SLEEP]]) == approx(0.5, 1.0, 2 / 3)


def test_length_mismatch():
    with pytest.raises(ValueError, match="true_mrs has 2 sentences but pred_mrs has 3"):
        mr_scores([[EAT], [SLEEP]], [[EAT], [SLEEP], []])
    with pytest.raises(ValueError, match="1 .* 0"):
        mr_f1([[EAT]], [])


def test_no_true_mr():
    with pytest.raises(ValueError, match="no MR"):
        mr_scores([[], []], [[EAT], []])
    with pytest.raises(ValueError, match="no MR"):
        mr_scores([], [])


def test_invalid_true_mr():
    with pytest.raises(ValueError, match=r"true_mrs\[1\]\[0\]"):
        mr_scores([[EAT], [(("dog", "A0"),)]], [[EAT], []])


def test_not_lists():
    with pytest.raises(TypeError, match="pred_mrs"):
        mr_scores([[EAT]], 3)
    with pytest.raises(TypeError, match=r"pred_mrs\[0\]"):
        mr_scores([[EAT]], [None])


# ------------------------------------------------------------------------------------------------
# alignment_error


TRUE_ALIGNMENTS = [
    ["mother", "believe", "-", "-", "dog", "break", "-", "box"],
    ["-", "dog", "eat", "-", "bone"],
    ["-", "cat", "sleep", "-", "-", "bed"],
]


def test_alignment_error_perfect_and_all_wrong():
    assert alignment_error(TRUE_ALIGNMENTS, [list(a) for a in TRUE_ALIGNMENTS]) == 0.0
    wrong = [["-"] * len(a) for a in TRUE_ALIGNMENTS]
    assert alignment_error(TRUE_ALIGNMENTS, wrong) == 1.0


def test_alignment_error_hand_computed():
    pred = [
        ["mother", "believe", "-", "-", "dog", "break", "-", "box"],  # right
        ["-", "eat", "dog", "-", "bone"],                             # right symbols, misaligned
        ["-", "cat", "sleep", "-", "-", "bed"],                       # right
    ]
    assert alignment_error(TRUE_ALIGNMENTS, pred) == pytest.approx(1 / 3)
    pred[2] = ["-", "cat", "sleep", "-", "-", "-"]                    # a symbol missed
    assert alignment_error(TRUE_ALIGNMENTS, pred) == pytest.approx(2 / 3)
    pred[0] = ["mother", "believe", "-", "-", "dog", "break", "box", "box"]  # a symbol too many
    assert alignment_error(TRUE_ALIGNMENTS, pred) == 1.0


def test_alignment_error_accepts_tuples():
    assert alignment_error([("-", "dog")], [["-", "dog"]]) == 0.0
    assert type(alignment_error([("-", "dog")], [["-", "cat"]])) is float


def test_alignment_error_sentence_count_mismatch():
    with pytest.raises(ValueError, match="true_alignments has 3 sentences but pred_alignments has 2"):
        alignment_error(TRUE_ALIGNMENTS, TRUE_ALIGNMENTS[:2])


def test_alignment_error_token_count_mismatch_names_the_sentence():
    pred = [list(a) for a in TRUE_ALIGNMENTS]
    pred[1] = pred[1][:-1]
    with pytest.raises(ValueError, match="sentence 1: .*5 tokens.*4"):
        alignment_error(TRUE_ALIGNMENTS, pred)


def test_alignment_error_needs_sentences():
    with pytest.raises(ValueError, match="no sentences"):
        alignment_error([], [])


def test_alignment_error_rejects_strings_for_sentences():
    with pytest.raises(TypeError, match=r"pred_alignments\[0\]"):
        alignment_error([["-", "dog"]], ["-d"])


# ------------------------------------------------------------------------------------------------
# on the generated corpora


def test_scores_of_a_corpus_bags():
    from largemargin.semantic.corpora import make_ambigchild

    _, bags, true_mrs, alignments = make_ambigchild(n_samples=300, ambiguity=2, random_state=0)
    assert alignment_error(alignments, alignments) == 0.0
    precision, recall, _ = mr_scores(true_mrs, bags)  # predicting every candidate MR
    n_true = sum(len(mrs) for mrs in true_mrs)
    assert recall == 1.0
    assert precision == pytest.approx(n_true / sum(len(bag) for bag in bags))


def test_a_single_mr_not_wrapped_in_a_list_is_an_error_not_a_zero():
    with pytest.raises(TypeError, match=r"pred_mrs\[0\] is one MR, not a list of MRs"):
        mr_scores([[EAT]], [EAT])
    with pytest.raises(TypeError, match=r"true_mrs\[0\] is one MR"):
        mr_scores([EAT], [[EAT]])


def test_an_mr_with_the_empty_symbol_is_invalid_and_a_true_one_says_why():
    assert mr_scores([[EAT]], [[EAT, (("eat", "REL"), ("-", "A0"))]]) == (1.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="has 2 pairs of role 'REL'"):
        mr_scores([[(("eat", "REL"), ("sleep", "REL"))]], [[EAT]])
