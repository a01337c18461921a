"""Ambiguous supervision: AmbiguousLaRankClassifier and make_ambiguous."""

import numpy as np
import pytest
from sklearn.datasets import load_digits

import largemargin as lm


@pytest.fixture(scope="module")
def digits():
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    return X[:1200], y[:1200], X[1200:], y[1200:]


def test_single_label_bags_are_larank(digits):
    Xtr, ytr, Xte, _ = digits
    plain = lm.LaRankClassifier(C=10, gamma=0.5, random_state=0).fit(Xtr, ytr)
    for bags in ([[v] for v in ytr], ytr, np.eye(10, dtype=bool)[ytr]):
        amb = lm.AmbiguousLaRankClassifier(C=10, gamma=0.5, random_state=0).fit(Xtr, bags)
        np.testing.assert_array_equal(amb.support_, plain.support_)
        np.testing.assert_array_equal(amb.dual_coef_, plain.dual_coef_)
        assert amb.dual_ == plain.dual_
        np.testing.assert_array_equal(amb.predict(Xte), plain.predict(Xte))
        np.testing.assert_array_equal(amb.support_labels_, ytr[amb.support_])


def test_accuracy_degrades_gracefully(digits):
    Xtr, ytr, Xte, yte = digits
    errors = []
    for level in range(4):
        bags = lm.make_ambiguous(ytr, level, random_state=1)
        model = lm.AmbiguousLaRankClassifier(C=10, gamma=0.5, random_state=0).fit(Xtr, bags)
        errors.append(np.mean(model.predict(Xte) != yte))
        # the bags are mostly resolved to the true labels
        assert np.mean(model.disambiguate(Xtr, bags) != ytr) < 0.05
    assert errors[0] < 0.05
    assert max(errors) < 0.10, errors
    # a label drawn from each bag at level 3 is far worse than using the bags
    bags = lm.make_ambiguous(ytr, 3, random_state=1)
    rng = np.random.RandomState(0)
    drawn = lm.LaRankClassifier(C=10, gamma=0.5, random_state=0).fit(Xtr, [rng.choice(b) for b in bags])
    assert np.mean(drawn.predict(Xte) != yte) > errors[3] + 0.1


def test_make_ambiguous_levels():
    y = np.repeat(np.array(["a", "b", "c", "d", "e", "f", "g"]), 300)
    for level in range(4):
        bags = lm.make_ambiguous(y, level, random_state=0)
        assert all(t in b and len(np.unique(b)) == len(b) for t, b in zip(y, bags))
        assert abs(np.mean([len(b) for b in bags]) - 1 - level) < 0.1
        assert max(len(b) for b in bags) == 2 * level + 1
    again = lm.make_ambiguous(y, 2, random_state=0)
    assert all(np.array_equal(a, b) for a, b in zip(again, lm.make_ambiguous(y, 2, random_state=0)))
    with pytest.raises(ValueError, match="level"):
        lm.make_ambiguous(y, 4)
    with pytest.raises(ValueError, match="level"):
        lm.make_ambiguous(y, 1.5)
    with pytest.raises(ValueError, match="not among the classes"):
        lm.make_ambiguous(y, 1, classes=["a", "b", "c"])


def test_deterministic_with_random_state(digits):
    Xtr, ytr, Xte, _ = digits
    bags = lm.make_ambiguous(ytr, 2, random_state=3)
    a = lm.AmbiguousLaRankClassifier(gamma=0.5, random_state=5).fit(Xtr, bags)
    b = lm.AmbiguousLaRankClassifier(gamma=0.5, random_state=5).fit(Xtr, bags)
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    np.testing.assert_array_equal(a.support_labels_, b.support_labels_)
    c = lm.AmbiguousLaRankClassifier(gamma=0.5, random_state=6).fit(Xtr, bags)
    assert not np.array_equal(np.sort(a.support_), np.sort(c.support_)) or not np.array_equal(a.dual_coef_, c.dual_coef_)


def test_string_labels_sets_and_mask_agree():
    X = np.array([[0.0, 0.0], [0.1, 0.0], [3.0, 3.0], [3.1, 3.0], [0.0, 3.0], [0.1, 3.1]])
    lists = [["x"], {"x", "z"}, "y", ["y", "x"], ("z",), ["z", "y"]]
    mask = np.array([[1, 0, 0], [1, 0, 1], [0, 1, 0], [1, 1, 0], [0, 0, 1], [0, 1, 1]], dtype=bool)
    a = lm.AmbiguousLaRankClassifier(random_state=0).fit(X, lists)
    b = lm.AmbiguousLaRankClassifier(random_state=0).fit(X, mask, classes=["x", "y", "z"])
    np.testing.assert_array_equal(a.classes_, ["x", "y", "z"])
    np.testing.assert_array_equal(a.dual_coef_, b.dual_coef_)
    assert set(a.predict(X)) <= {"x", "y", "z"}


def test_bad_input_raises_clear_errors():
    X = np.random.RandomState(0).rand(4, 3)
    model = lm.AmbiguousLaRankClassifier()
    with pytest.raises(ValueError, match="example 1 is empty"):
        model.fit(X, [[0], [], [1], [0, 1]])
    with pytest.raises(ValueError, match="example 2 is empty"):
        model.fit(X, np.array([[1, 0], [0, 1], [0, 0], [1, 1]], dtype=bool))
    with pytest.raises(ValueError, match=r"candidate label 7 of example 3 is not among the classes"):
        model.fit(X, [[0], [1], [0, 1], [7]], classes=[0, 1, 2])
    with pytest.raises(ValueError, match="samples"):
        model.fit(X, [[0], [1], [0, 1]])
    with pytest.raises(ValueError, match="greater than one"):
        model.fit(X, [[0], [0], [0], [0]])
    with pytest.raises(ValueError, match="columns"):
        model.fit(X, np.ones((4, 3), dtype=bool), classes=[0, 1])
    with pytest.raises(ValueError, match="method"):
        lm.AmbiguousLaRankClassifier(method="perceptron").fit(X, [[0], [1], [0, 1], [1]])
    with pytest.raises(ValueError, match="C"):
        lm.AmbiguousLaRankClassifier(C=-1).fit(X, [[0], [1], [0, 1], [1]])
    assert not hasattr(model, "classes_")  # failed fits leave the estimator unfitted
    fitted = lm.AmbiguousLaRankClassifier().fit(X, [[0], [1], [0, 1], [1]])
    with pytest.raises(ValueError, match="not among the classes"):
        fitted.disambiguate(X, [[0], [1], [2], [1]])
