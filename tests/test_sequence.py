import gzip
import itertools

import numpy as np
import pytest

from largemargin import SequenceLabeler, WindowFeatures, _native, chunk_f1, chunk_scores, read_conll, token_accuracy
from largemargin.sequence.metrics import _chunks

# --- conlleval rules -------------------------------------------------------------------------

def test_chunks_follow_conlleval_rules():
    assert _chunks(["B-NP", "I-NP", "O", "B-VP"]) == [(0, 2, "NP"), (3, 4, "VP")]
    # an I- after O or after another type starts a chunk
    assert _chunks(["O", "I-NP", "I-NP"]) == [(1, 3, "NP")]
    assert _chunks(["B-NP", "I-VP", "I-VP"]) == [(0, 1, "NP"), (1, 3, "VP")]
    # B- after B- of the same type starts a new chunk
    assert _chunks(["B-NP", "B-NP", "I-NP"]) == [(0, 1, "NP"), (1, 3, "NP")]
    assert _chunks(["I-PP"]) == [(0, 1, "PP")]
    assert _chunks(["O", "O"]) == []


def test_chunk_scores_on_hand_made_cases():
    gold = [["B-NP", "I-NP", "O", "B-VP", "B-NP"]]
    assert chunk_f1(gold, gold) == 1.0
    # one boundary error: NP split in two -> gold 3 chunks, guessed 4, correct 2
    pred = [["B-NP", "B-NP", "O", "B-VP", "B-NP"]]
    s = chunk_scores(gold, pred)
    assert (s["correct"], s["guessed"], s["gold"]) == (2, 4, 3)
    assert s["f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    # a type error is a wrong chunk even with the right boundaries
    pred = [["B-PP", "I-PP", "O", "B-VP", "B-NP"]]
    assert chunk_scores(gold, pred)["correct"] == 2
    # chunks do not run across sequences
    assert chunk_f1([["B-NP"], ["I-NP"]], [["B-NP"], ["I-NP"]]) == 1.0
    assert chunk_scores([["O"]], [["O"]])["f1"] == 0.0


def test_scores_reject_bad_input():
    with pytest.raises(ValueError, match="chunk tags"):
        chunk_f1([["NP"]], [["NP"]])
    with pytest.raises(ValueError, match="predicted"):
        chunk_f1([["O", "O"]], [["O"]])
    with pytest.raises(ValueError, match="sequences"):
        token_accuracy([["O"]], [])
    assert token_accuracy([["a", "b"], ["c"]], [["a", "x"], ["c"]]) == pytest.approx(2 / 3)


# --- inference ----------------------------------------------------------------------------------

def _one_hot_tokens(n):
    """n tokens, each with the single feature 0 of value 1 (emission = that row of weights)."""
    return (np.arange(n + 1, dtype=np.int64), np.zeros(n, dtype=np.int32), np.ones(n), np.array([0, n], dtype=np.int64))


@pytest.mark.parametrize("seed", range(5))
def test_viterbi_matches_brute_force(seed):
    rng = np.random.RandomState(seed)
    n, labels = 4, 3
    # per-token emissions through one feature per token
    indptr = np.arange(n + 1, dtype=np.int64)
    indices = np.arange(n, dtype=np.int32)
    data = np.ones(n)
    seq_ptr = np.array([0, n], dtype=np.int64)
    emission = rng.randn(n, labels)
    trans = rng.randn(1, labels + 1, labels)
    got = _native.predict_sequence(indptr, indices, data, n_features=n, seq_ptr=seq_ptr, emission=emission, transition=trans.ravel(), order=1, inference_name="exact")

    def score(c):
        prev, s = labels, 0.0
        for t, y in enumerate(c):
            s += emission[t, y] + trans[0, prev, y]
            prev = y
        return s

    best = max(itertools.product(range(labels), repeat=n), key=score)
    assert list(got) == list(best)
    # greedy equals Viterbi when the transitions are zero
    zero = np.zeros_like(trans).ravel()
    g = _native.predict_sequence(indptr, indices, data, n_features=n, seq_ptr=seq_ptr, emission=emission, transition=zero, order=1, inference_name="greedy")
    v = _native.predict_sequence(indptr, indices, data, n_features=n, seq_ptr=seq_ptr, emission=emission, transition=zero, order=1, inference_name="exact")
    assert list(g) == list(v) == list(emission.argmax(axis=1))


# --- learning ------------------------------------------------------------------------------------

def _synthetic(n_seq, seed):
    """A toy tagging task: the tag of a word depends on the word and on the previous tag
    (after a determiner, an ambiguous word is a noun; elsewhere it is a verb)."""
    rng = np.random.RandomState(seed)
    nouns, verbs, dets, amb = ["dog", "cat", "idea"], ["runs", "eats", "sleeps"], ["the", "a"], ["fish", "walk"]
    X, y = [], []
    for _ in range(n_seq):
        toks, tags = [], []
        for _ in range(rng.randint(2, 6)):
            w = dets[rng.randint(2)]
            toks.append((w, "DT"))
            tags.append("B-NP")
            w = (nouns + amb)[rng.randint(5)]
            toks.append((w, "NN"))
            tags.append("I-NP")
            w = (verbs + amb)[rng.randint(5)]
            toks.append((w, "VB"))
            tags.append("B-VP")
        X.append(toks)
        y.append(tags)
    return X, y


@pytest.mark.parametrize("method,kw", [
    ("larank_greedy", {}), ("larank_exact", {}), ("pa", {}), ("pa", {"inference": "exact"}),
    ("larank_greedy", {"n_reprocess": "adaptive"}), ("larank_exact", {"n_reprocess": "adaptive"}),
    ("perceptron", {}), ("perceptron", {"inference": "exact", "average": False}),
])
def test_learners_reach_high_accuracy(method, kw):
    X, y = _synthetic(200, 0)
    Xt, yt = _synthetic(100, 1)
    est = SequenceLabeler(method, C=1.0, epochs=2, random_state=0, **kw).fit(X, y)
    pred = est.predict(Xt)
    assert token_accuracy(yt, pred) > 0.97
    assert chunk_f1(yt, pred) > 0.95
    assert est.n_inference_calls_ > 0
    if method.startswith("larank") or method == "pa":
        assert est.dual_ > 0 and est.n_support_vectors_ >= est.n_support_patterns_ > 0
    else:
        assert np.isnan(est.dual_)


def test_markov_order_uses_the_context():
    # the label is the previous *token's label* parity: only transitions can learn it
    rng = np.random.RandomState(0)
    X, y = [], []
    for _ in range(150):
        n = rng.randint(3, 8)
        X.append(np.ones((n, 1)))
        y.append(["a" if t % 2 == 0 else "b" for t in range(n)])
    for method in ("larank_greedy", "larank_exact"):
        est = SequenceLabeler(method, C=1.0, random_state=0).fit(X, y)
        assert token_accuracy(y, est.predict(X)) == 1.0
    est = SequenceLabeler("larank_greedy", markov_order=0, C=1.0, random_state=0).fit(X, y)
    assert token_accuracy(y, est.predict(X)) < 0.8


def test_numeric_sequences_and_dual_grows_with_epochs():
    rng = np.random.RandomState(0)
    centers = rng.randn(4, 6) * 2
    X, y = [], []
    for _ in range(80):
        lab = rng.randint(4, size=rng.randint(2, 7))
        X.append(centers[lab] + rng.randn(len(lab), 6) * 0.3)
        y.append(list(lab))
    est = SequenceLabeler("larank_exact", epochs=3, C=0.5, random_state=0).fit(X, y)
    assert np.all(np.diff(est.dual_per_epoch_) >= -1e-9)
    assert token_accuracy(y, est.predict(X)) > 0.97
    assert isinstance(est.predict(X)[0][0], (int, np.integer))
    with pytest.raises(ValueError, match="features"):
        est.predict([np.ones((2, 5))])
    with pytest.raises(ValueError, match="token sequences|numeric"):
        est.predict([[("a", "b")]])


def test_until_gap_reaches_a_gap_below_c():
    X, y = _synthetic(60, 3)
    for method in ("larank_greedy", "larank_exact"):
        est = SequenceLabeler(method, C=0.1, until_gap=True, epochs=50, random_state=0).fit(X, y)
        assert est.duality_gap_ < 0.1 and est.n_iter_ == len(est.gap_per_epoch_) <= 50
        one = SequenceLabeler(method, C=0.1, random_state=0).fit(X, y)
        assert est.dual_ >= one.dual_ - 1e-9 and np.isnan(one.duality_gap_)
    with pytest.raises(ValueError, match="until_gap"):
        SequenceLabeler("perceptron", until_gap=True).fit(X, y)


def test_determinism_with_random_state():
    X, y = _synthetic(60, 2)
    a = SequenceLabeler("larank_greedy", random_state=3).fit(X, y)
    b = SequenceLabeler("larank_greedy", random_state=3).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.transitions_, b.transitions_)
    assert a.dual_ == b.dual_
    c = SequenceLabeler("larank_exact", random_state=3).fit(X, y)
    d = SequenceLabeler("larank_exact", random_state=3).fit(X, y)
    np.testing.assert_array_equal(c.coef_, d.coef_)


@pytest.mark.parametrize("kwargs,X,y,match", [
    ({"method": "crf"}, None, None, "method"),
    ({"C": -1}, None, None, "C must"),
    ({"epochs": 0}, None, None, "epochs"),
    ({"method": "larank_exact", "markov_order": 2}, None, None, "markov_order=1"),
    ({"method": "larank_greedy", "inference": "exact"}, None, None, "greedy inference"),
    ({"method": "pa", "inference": "beam"}, None, None, "inference must"),
    ({"n_reprocess": -1}, None, None, "n_reprocess"),
    ({"n_reprocess": "sometimes"}, None, None, "n_reprocess"),
    ({"method": "pa", "n_reprocess": "adaptive"}, None, None, "LaRank schedule"),
    ({}, [[("a", "DT")]], [["x", "y"]], "1 tokens"),
    ({}, [[("a", "DT")]], [], "one label sequence"),
    ({}, [[("a", "DT"), ("b", "NN")]], [["x", "x"]], "two distinct labels"),
    ({}, [[("a", "DT"), 3.5]], [["x", "y"]], "token must be"),
    ({}, "abc", ["x"], "list of sequences"),
    ({}, [], [], "no sequences"),
    ({}, [[{"pos": "DT"}]], [["x"]], "'word'"),
    ({}, [np.array([[np.nan]]), np.ones((1, 1))], [["a"], ["b"]], "finite"),
])
def test_bad_input_raises_value_error(kwargs, X, y, match):
    if X is None:
        X, y = _synthetic(5, 0)
    with pytest.raises(ValueError, match=match):
        SequenceLabeler(**kwargs).fit(X, y)


def _numeric_sequences(n, seed):
    rng = np.random.RandomState(seed)
    centers = rng.randn(3, 5) * 2
    X, y = [], []
    for _ in range(n):
        lab = rng.randint(3, size=rng.randint(1, 6))
        X.append(centers[lab] + rng.randn(len(lab), 5) * 0.3)
        y.append(["abc"[k] for k in lab])
    return X, y


@pytest.mark.parametrize("method", ["larank_greedy", "larank_exact"])
def test_token_matrix_with_lengths_is_the_list_of_sequences(method):
    X, y = _numeric_sequences(40, 0)
    lengths = [len(s) for s in X]
    Xm, ym = np.vstack(X), np.concatenate(y)
    a = SequenceLabeler(method, random_state=0).fit(X, y)
    b = SequenceLabeler(method, random_state=0).fit(Xm, ym, lengths=lengths)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    np.testing.assert_array_equal(a.transitions_, b.transitions_)
    pred = b.predict(Xm, lengths=lengths)
    assert isinstance(pred, np.ndarray) and pred.shape == (len(ym),)
    assert list(pred) == [lab for s in a.predict(X) for lab in s]
    assert b.score(Xm, ym, lengths=lengths) == a.score(X, y)
    # a list of numeric rows is a token matrix too (numbers are not tokens)
    c = SequenceLabeler(method, random_state=0).fit(Xm.tolist(), list(ym), lengths=lengths)
    np.testing.assert_array_equal(c.coef_, b.coef_)


def test_token_matrix_rows_are_sequences_of_one_without_lengths():
    X, y = _numeric_sequences(40, 1)
    Xm, ym = np.vstack(X), np.concatenate(y)
    a = SequenceLabeler(random_state=0).fit(Xm, ym)
    b = SequenceLabeler(random_state=0).fit([row[None, :] for row in Xm], [[lab] for lab in ym])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    # each row decoded alone: a subset is labelled as in the whole
    np.testing.assert_array_equal(a.predict(Xm[5:9]), a.predict(Xm)[5:9])


def test_cross_validation_splits_whole_sequences():
    # a list of label sequences is not a classifier's y to stratify: folds of whole sequences
    from sklearn.model_selection import GridSearchCV, cross_val_score

    X, y = _synthetic(60, 0)
    scores = cross_val_score(SequenceLabeler(random_state=0), X, y, cv=3)
    assert scores.shape == (3,) and np.all(scores > 0.9)
    search = GridSearchCV(SequenceLabeler(random_state=0), {"C": [0.1, 1.0]}, cv=3).fit(X, y)
    assert search.best_params_["C"] in (0.1, 1.0)


@pytest.mark.parametrize("lengths,match", [
    ([3, 3], "adding up to the 5 rows"), ([5, 0], "positive"), ([2.5, 2.5], "integers"), ([[5]], "one per sequence"),
])
def test_bad_lengths_raise_value_error(lengths, match):
    Xm, ym = np.random.RandomState(0).randn(5, 2), np.array([0, 1, 0, 1, 1])
    with pytest.raises(ValueError, match=match):
        SequenceLabeler().fit(Xm, ym, lengths=lengths)
    est = SequenceLabeler().fit(Xm, ym)
    with pytest.raises(ValueError, match=match):
        est.predict(Xm, lengths=lengths)


def test_lengths_is_refused_with_a_list_of_sequences():
    X, y = _numeric_sequences(5, 0)
    with pytest.raises(ValueError, match="lengths is for a 2-D X"):
        SequenceLabeler().fit(X, y, lengths=[len(s) for s in X])
    est = SequenceLabeler().fit(X, y)
    with pytest.raises(ValueError, match="lengths is for a 2-D X"):
        est.predict(X, lengths=[len(s) for s in X])


def test_token_matrix_and_token_sequences_do_not_mix():
    est = SequenceLabeler().fit(*_synthetic(10, 0))
    with pytest.raises(ValueError, match="token sequences"):
        est.predict(np.ones((3, est.n_features_in_)))
    est = SequenceLabeler().fit(np.random.RandomState(0).randn(6, 2), [0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="numeric"):
        est.predict([[("a", "DT")]])
    with pytest.raises(ValueError, match="X has 3 features"):
        est.predict(np.ones((2, 3)))


def test_predict_before_fit():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        SequenceLabeler().predict([[("a", "DT")]])


def test_native_rejects_malformed_arrays():
    with pytest.raises(ValueError, match="offsets"):
        _native.fit_sequence(np.array([0, 1], dtype=np.int64), np.array([0], dtype=np.int32), np.ones(1), n_features=1,
                             seq_ptr=np.array([0, 2], dtype=np.int64), y=np.array([0]), n_labels=2, method="larank", inference_name="greedy", order=1, c=0.1, tol=1e-4,
                             reprocess=1, epochs=1, until_gap=False, seed=0, verbose=False)
    with pytest.raises(ValueError, match="model arrays"):
        indptr, indices, data, seq_ptr = _one_hot_tokens(2)
        _native.predict_sequence(indptr, indices, data, n_features=1, seq_ptr=seq_ptr, emission=np.zeros((1, 2)),
                                 transition=np.zeros(3), order=1, inference_name="greedy")


def test_read_conll_and_window_features(tmp_path):
    p = tmp_path / "mini.txt.gz"
    with gzip.open(p, "wt") as f:
        f.write("He PRP B-NP\nruns VBZ B-VP\n\nThe DT B-NP\ncat NN I-NP\n\n\n")
    X, y = read_conll(p)
    assert X == [[("He", "PRP"), ("runs", "VBZ")], [("The", "DT"), ("cat", "NN")]]
    assert y == [["B-NP", "B-VP"], ["B-NP", "I-NP"]]
    wf = WindowFeatures().fit(X)
    indptr, indices, data, seq_ptr, n = wf.transform(X)
    assert list(seq_ptr) == [0, 2, 4] and n == len(wf.vocabulary_)
    assert "w0=he" in wf.vocabulary_ and "p-1=<s>" in wf.vocabulary_ and "sh=Xx" in wf.vocabulary_
    # unseen features are dropped at transform time
    _, idx2, _, _, _ = wf.transform([[("Zebra", "XX")]])
    assert len(idx2) < len(indices) // 2
    bad = tmp_path / "bad.txt"
    bad.write_text("lonely\n")
    with pytest.raises(ValueError, match="line 1"):
        read_conll(bad)


def test_adaptive_schedule_reprocesses_and_beats_passive_aggressive():
    # Algorithm 22 on sequences: operations drawn by their gain per unit of work reach a better
    # dual than PROCESSNEW alone, and the run depends on the seed only
    X, y = _synthetic(120, 4)
    for method in ("larank_greedy", "larank_exact"):
        pa = SequenceLabeler("pa", C=1.0, random_state=0,
                             inference="exact" if method == "larank_exact" else "greedy").fit(X, y)
        ad = SequenceLabeler(method, C=1.0, n_reprocess="adaptive", random_state=0).fit(X, y)
        again = SequenceLabeler(method, C=1.0, n_reprocess="adaptive", random_state=0).fit(X, y)
        assert ad.dual_ > pa.dual_ and ad.steps_["process_old"] > 0 and ad.steps_["optimize"] > 0
        assert ad.dual_ == again.dual_
