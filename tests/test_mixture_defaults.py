"""MixtureSVC's defaults (issue 23): n_experts="auto" (one expert per 2,000 examples from 20,000
on, at most 100; one SVM below), and gamma='scale' resolved as SVC resolves it."""

import numpy as np
import pytest
import scipy.sparse as sp

import largemargin as lm
from largemargin.mixture import auto_experts


def test_auto_experts_rule():
    assert [auto_experts(m) for m in (2, 500, 19_999)] == [1, 1, 1]
    assert [auto_experts(m) for m in (20_000, 50_000, 100_000, 199_999)] == [10, 25, 50, 99]
    assert [auto_experts(m) for m in (200_000, 10**7)] == [100, 100]


def test_default_is_auto():
    assert lm.MixtureSVC().n_experts == "auto"


def unequal_means(n, seed=0):
    """Features far from each other in mean and spread: the variance of all entries is not the
    mean of the features' variances."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n, 4) * [1.0, 3.0, 0.5, 2.0] + [10.0, -4.0, 0.0, 25.0]
    y = np.where((X[:, 0] - 10.0) + 0.2 * (X[:, 1] + 4.0) ** 2 - 1.5 + 0.3 * rng.randn(n) > 0, 1, 0)
    return X, y


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_small_data_defaults_are_one_svm(sparse):
    """Below 20,000 examples the default mixture is one expert on everything: SVC's model."""
    X, y = unequal_means(600)
    Xf = sp.csr_matrix(X) if sparse else X
    mix = lm.MixtureSVC(random_state=0).fit(Xf[:450], y[:450])
    svc = lm.SVC().fit(Xf[:450], y[:450])
    assert len(mix.experts_) == 1 and mix.n_iter_ == 1
    np.testing.assert_allclose(mix.decision_function(Xf[450:]), svc.decision_function(Xf[450:]), atol=1e-8)
    np.testing.assert_array_equal(mix.predict(Xf[450:]), svc.predict(Xf[450:]))


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_scale_gamma_is_svcs(sparse):
    """gamma='scale' is 1 / (n_features * X.var()) over all entries, as in SVC, with any K."""
    X, y = unequal_means(400, seed=1)
    Xf = sp.csr_matrix(X) if sparse else X
    mix = lm.MixtureSVC(n_experts=3, max_iter=1, random_state=0).fit(Xf, y)
    assert mix._gamma == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-9)


def test_auto_with_many_examples_splits():
    X, y = lm.make_forest_like(20_000, random_state=1)
    mix = lm.MixtureSVC(C=10, gamma=0.1, max_iter=1, random_state=0, n_jobs=2).fit(X, y)
    assert len(mix.experts_) == 10


def test_one_expert_local_gater():
    rng = np.random.RandomState(2)
    X = rng.randn(300, 3)
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 + 0.3 * rng.randn(300) > 0, 1, 0)
    mix = lm.MixtureSVC(gater="local", n_gaussians=2, random_state=0).fit(X[:200], y[:200])
    assert len(mix.experts_) == 1 and mix.n_iter_ == 1
    # the local gater predicts by the expert's Platt probability: SVC's sign, nearly
    svc = lm.SVC().fit(X[:200], y[:200])
    assert np.mean(mix.predict(X[200:]) != svc.predict(X[200:])) <= 0.05


@pytest.mark.parametrize("value", ["many", "AUTO", 2.5, 0])
def test_bad_n_experts(value):
    X, y = unequal_means(100)
    with pytest.raises(ValueError, match="n_experts"):
        lm.MixtureSVC(n_experts=value).fit(X, y)


def test_one_expert_needs_no_dense_copy(monkeypatch):
    """The default mixture on few, very wide sparse rows is one SVM: no gater, so no dense copy
    of the rows at fit or at prediction (two experts would need 596 GiB of them: refused)."""
    import largemargin.mixture_experts as mx

    monkeypatch.setattr(mx, "physical_memory", lambda: 24 << 30)
    rng = np.random.default_rng(0)
    n, d = 2000, 10_000_000
    X = sp.csr_matrix((np.ones(n * 5), rng.integers(0, d, n * 5), np.arange(0, n * 5 + 1, 5)), shape=(n, d))
    X.sum_duplicates()
    y = np.where(np.asarray(X[:, : d // 2].sum(axis=1)).ravel() > 2, 1, 0)
    mix = lm.MixtureSVC(C=10, gamma=0.5).fit(X, y)
    svc = lm.SVC(C=10, gamma=0.5).fit(X, y)
    assert len(mix.experts_) == 1
    np.testing.assert_array_equal(mix.predict(X[:300]), svc.predict(X[:300]))


def test_multiclass_is_one_vs_one_of_mixtures():
    """More than two classes: one binary mixture per pair of classes, SVC's votes. With the
    defaults on small data every pair is one SVM, so the predictions are SVC's."""
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    names = np.array(["setosa", "versicolor", "virginica"])[y]
    rng = np.random.RandomState(0)
    idx = rng.permutation(len(y))
    tr, te = idx[:100], idx[100:]
    mix = lm.MixtureSVC(random_state=0).fit(X[tr], names[tr])
    svc = lm.SVC().fit(X[tr], names[tr])
    assert len(mix.pairs_) == 3 and len(mix.experts_) == 3
    np.testing.assert_array_equal(mix.classes_, ["setosa", "versicolor", "virginica"])
    np.testing.assert_array_equal(mix.predict(X[te]), svc.predict(X[te]))
    np.testing.assert_allclose(mix.decision_function(X[te]), svc.decision_function(X[te]), atol=1e-6)
    p = mix.predict_proba(X[te])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(mix.classes_[np.argmax(p, axis=1)], mix.predict(X[te]))


def test_multiclass_pairs_have_several_experts():
    X, y = lm.make_forest_like(3000, random_state=2)
    y3 = np.where(X[:, 0] > 0.5, 2, (y > 0).astype(int))
    mix = lm.MixtureSVC(n_experts=3, max_iter=2, C=10, gamma=0.1, random_state=0).fit(X[:2400], y3[:2400])
    assert [len(m.experts_) for m in mix.pairs_] == [3, 3, 3]
    assert np.mean(mix.predict(X[2400:]) != y3[2400:]) < 0.3


def test_svr_accepts_auto():
    """MixtureSVR keeps n_experts=10 by default; "auto" on small data is SVR's model."""
    rng = np.random.RandomState(0)
    X = rng.randn(300, 3)
    y = np.sin(X[:, 0]) + 0.1 * rng.randn(300)
    assert lm.MixtureSVR().n_experts == 10
    mix = lm.MixtureSVR(n_experts="auto").fit(X, y)
    assert len(mix.experts_) == 1
    np.testing.assert_allclose(mix.predict(X), lm.SVR().fit(X, y).predict(X), atol=1e-8)
