"""The plugin installed for real: discovered through its entry point and used by SVC by name."""

import subprocess
import sys

import numpy as np
import pytest
from largemargin_histograms import additive_chi2, chi2, intersection
from sklearn.datasets import load_digits

import largemargin as lm
from largemargin.plugins import get_registry


@pytest.fixture(scope="module")
def histograms():
    X, y = load_digits(return_X_y=True)  # 8x8 images of counts 0..16
    X = X / X.sum(1, keepdims=True)  # each image as a normalised histogram of ink over 64 bins
    return X[:400], y[:400], X[400:600], y[400:600]


def test_discovered_through_the_entry_point():
    kernels = get_registry().available("kernel")
    for name in ("chi2", "additive_chi2", "intersection"):
        assert kernels[name][1] == "histograms"
    r = subprocess.run([sys.executable, "-m", "largemargin.cli", "plugins"], capture_output=True, text=True)
    assert "histograms: kernels: additive_chi2, chi2, intersection" in r.stdout


def test_kernels_match_their_definitions():
    rng = np.random.RandomState(0)
    A, B = rng.poisson(2, (7, 5)).astype(float), rng.poisson(2, (300, 5)).astype(float)
    for k, pair in [
        (intersection, lambda x, y: np.minimum(x, y).sum()),
        (additive_chi2, lambda x, y: sum(2 * a * b / (a + b) for a, b in zip(x, y) if a + b > 0)),
        (chi2, lambda x, y: np.exp(-sum((a - b) ** 2 / (a + b) for a, b in zip(x, y) if a + b > 0))),
    ]:
        want = np.array([[pair(x, y) for y in B] for x in A])
        np.testing.assert_allclose(k(A, B), want, rtol=1e-12)
    with pytest.raises(ValueError, match="non-negative"):
        intersection(-A, B)


@pytest.mark.parametrize("name, fn", [("chi2", chi2), ("intersection", intersection)])
def test_svc_by_name_equals_the_precomputed_gram_matrix(histograms, name, fn):
    Xtr, ytr, Xte, yte = histograms
    ours = lm.SVC(kernel=name, C=3).fit(Xtr, ytr)
    ref = lm.SVC(kernel="precomputed", C=3).fit(fn(Xtr, Xtr), ytr)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(fn(Xte, Xtr)), atol=1e-9)
    assert (ours.predict(Xte) == yte).mean() > 0.8


def test_the_selection_strategy_is_registered_and_prefers_the_boundary():
    from largemargin_histograms import BoltzmannSelection

    factory = get_registry().resolve("selection_strategy", "boltzmann")
    assert factory.impl is BoltzmannSelection  # the plugin's factory, as the library calls it: checked
    s = factory(random_state=7)
    assert s.n_candidates == 50
    decision = np.r_[np.full(49, 3.0), 0.01]  # one candidate on the boundary, the rest far away
    picks = [s.choose(decision, np.full(50, np.nan)) for _ in range(200)]
    assert all(0 <= p < 50 for p in picks)
    assert picks.count(49) > 150  # exp(-3/0.5) makes the far ones 400x less likely each
    # seeded: the same draws again
    again = factory(random_state=7)
    assert [again.choose(decision, None) for _ in range(200)] == picks
    # a high temperature is close to uniform
    hot = BoltzmannSelection(random_state=1, temperature=1e6)
    assert picks.count(49) > 5 * [hot.choose(decision, None) for _ in range(200)].count(49)
    assert s.choose(np.array([]), np.array([])) is None
    with pytest.raises(ValueError, match="temperature"):
        BoltzmannSelection(temperature=0)
