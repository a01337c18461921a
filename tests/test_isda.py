"""ISDA (solver="isda" of SVC / SVR): the worked examples of the ISDA slides (hard and soft 1-D
margins, the penalty method's alphas, the RBF and polynomial XORs, the SVR cases), and agreement
with SMO (objective, KKT conditions, predictions) on random problems, for each bias method."""

import numpy as np
import pytest

import largemargin as lm

TOL = 1e-9


def coef_by_example(model, n):
    """y_i alpha_i (classification) or alpha_i - alpha_i* (regression) for every training example."""
    out = np.zeros(n)
    out[model.support_] = model.dual_coef_[0]
    return out


def isda(estimator=lm.SVC, **kw):
    return estimator(solver="isda", **{"tol": TOL, **kw})


X1 = np.array([[1.0], [2.0], [4.0], [5.0]])
Y1 = np.array([1, 1, -1, -1])


@pytest.mark.parametrize("bias", ["secant", "penalty"])
def test_one_dimensional_hard_margin(bias):
    # SVs x = 2 and 4, alpha = 1/2, w = -1, b = 3 (the penalty method finds it too: two active
    # constraints pin w and b whatever k)
    m = isda(kernel="linear", C=1e4, isda_bias=bias, isda_k=10.0).fit(X1, Y1)
    # classes_ = [-1, 1]: a positive decision means +1, the coefficients are y_i alpha_i
    coef = coef_by_example(m, 4)
    if bias == "secant":
        np.testing.assert_allclose(coef, [0, 0.5, -0.5, 0], atol=1e-6)
    else:
        np.testing.assert_allclose(coef, [0, 60.5, -30.5, 0], rtol=1e-6, atol=1e-6)  # 6k + 1/2, 3k + 1/2
    np.testing.assert_allclose(m.coef_, [[-1.0]], atol=1e-6)
    np.testing.assert_allclose(m.intercept_, [3.0], atol=1e-6)
    np.testing.assert_allclose(m.decision_function(X1), [2, 1, -1, -2], atol=1e-6)


@pytest.mark.parametrize("k", [1.0, 10.0, 100.0])
def test_penalty_alphas(k):
    m = isda(kernel="linear", C=1e6, isda_bias="penalty", isda_k=k).fit(X1, Y1)
    np.testing.assert_allclose(coef_by_example(m, 4), [0, 6 * k + 0.5, -(3 * k + 0.5), 0], rtol=1e-6)
    np.testing.assert_allclose(m.intercept_, [3.0], atol=1e-6)


def test_one_dimensional_soft_margin():
    m = isda(kernel="linear", C=0.1).fit(X1, Y1)
    np.testing.assert_allclose(coef_by_example(m, 4), [0.075, 0.1, -0.1, -0.075], atol=1e-6)
    np.testing.assert_allclose(m.coef_, [[-0.5]], atol=1e-6)
    np.testing.assert_allclose(m.intercept_, [1.5], atol=1e-6)
    np.testing.assert_allclose(m.objective_, [0.225], atol=1e-6)  # = the primal 1/2 w^2 + C sum xi


@pytest.mark.parametrize("bias", ["none", "secant", "penalty"])
def test_rbf_xor(bias):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([1, 1, -1, -1])
    m = isda(kernel="rbf", gamma=1.0, C=1e6, isda_bias=bias).fit(X, y)
    alpha = 1.0 / (1.0 - np.exp(-1.0)) ** 2  # 2.502650301
    np.testing.assert_allclose(coef_by_example(m, 4), alpha * y, rtol=1e-6)
    np.testing.assert_allclose(m.intercept_, [0.0], atol=1e-6)
    np.testing.assert_allclose(m.decision_function(X), y, atol=1e-6)


@pytest.mark.parametrize("bias, alpha, b", [
    ("secant", [10 / 3, 2, 8 / 3, 8 / 3], -1.0),
    ("none", [13 / 3, 2, 8 / 3, 8 / 3], 0.0),
])
def test_polynomial_xor(bias, alpha, b):
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0], [0.0, 1.0]])
    y = np.array([-1, -1, 1, 1])
    m = isda(kernel="poly", degree=2, gamma=1.0, coef0=1.0, C=1e6, isda_bias=bias).fit(X, y)
    np.testing.assert_allclose(coef_by_example(m, 4), np.array(alpha) * y, rtol=1e-6)
    np.testing.assert_allclose(m.intercept_, [b], atol=1e-6)


def test_svr_linear_with_bias():
    X = np.arange(4.0)[:, None]
    m = isda(lm.SVR, kernel="linear", C=100.0, epsilon=0.5).fit(X, X[:, 0])
    np.testing.assert_allclose(coef_by_example(m, 4), [-2 / 9, 0, 0, 2 / 9], atol=1e-6)
    np.testing.assert_allclose(m.coef_, [[2 / 3]], atol=1e-6)
    np.testing.assert_allclose(m.intercept_, [0.5], atol=1e-6)


def test_svr_rbf_without_bias():
    X = np.arange(6.0)[:, None]
    y = np.array([0, 0.8, 0.9, 0.1, -0.8, -1.0])
    m = isda(lm.SVR, kernel="rbf", gamma=0.5, C=10.0, epsilon=0.1, isda_bias="none").fit(X, y)
    np.testing.assert_allclose(
        coef_by_example(m, 6), [-0.308802533, 0.547681173, 0.567060260, 0, -0.368465636, -0.682996341], atol=1e-6)
    np.testing.assert_allclose(m.predict(X), [0.1, 0.7, 0.8, 0.098710325, -0.7, -0.9], atol=1e-6)
    assert m.intercept_[0] == 0.0


def kkt_violation(model, K, y, C):
    """Largest violation of the box-constrained dual's optimality, with the model's own bias."""
    a = coef_by_example(model, len(y)) * y  # alpha >= 0
    f = K @ (a * y) + model.intercept_[0]
    m = y * f
    viol_low = np.where(a < 1e-12, np.maximum(1 - m, 0), 0)  # alpha = 0 needs y f >= 1
    viol_up = np.where(a > C - 1e-12, np.maximum(m - 1, 0), 0)  # alpha = C needs y f <= 1
    free = (a > 1e-12) & (a < C - 1e-12)
    viol_free = np.where(free, np.abs(m - 1), 0)
    return max(viol_low.max(), viol_up.max(), viol_free.max())


@pytest.mark.parametrize("seed", [0, 1])
def test_agrees_with_smo_on_random_problems(seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    y = np.where(X[:, 0] * X[:, 1] + 0.3 * rng.normal(size=300) > 0, 1, -1)
    C, gamma = 2.0, 0.3
    smo = lm.SVC(C=C, gamma=gamma, tol=1e-6).fit(X, y)
    K = np.exp(-gamma * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    sec = isda(C=C, gamma=gamma, tol=1e-6).fit(X, y)
    # with the bias: the same optimum as SMO
    np.testing.assert_allclose(sec.objective_, smo.objective_, rtol=1e-5)
    assert abs(coef_by_example(sec, 300).sum()) < 1e-4  # sum_i y_i alpha_i = 0
    assert kkt_violation(sec, K, y, C) < 1e-4
    np.testing.assert_allclose(sec.decision_function(X), smo.decision_function(X), atol=1e-3)
    assert abs(len(sec.support_) - len(smo.support_)) <= 2
    unshrunk = isda(C=C, gamma=gamma, tol=1e-6, shrinking=False).fit(X, y)
    np.testing.assert_allclose(unshrunk.objective_, sec.objective_, rtol=1e-6)
    # the penalty method solves the problem with 1/2 k b^2 in the primal; no bias is k = infinity
    for bias in ("penalty", "none"):
        m = isda(C=C, gamma=gamma, tol=1e-6, isda_bias=bias, isda_k=1.0).fit(X, y)
        Kb = K + (1.0 if bias == "penalty" else 0.0)
        a = coef_by_example(m, 300) * y
        f = Kb @ (a * y)
        np.testing.assert_allclose(m.decision_function(X), f, atol=1e-8)
        # box-constrained optimum of the dual with kernel Kb, no equality constraint
        g = 1 - y * f
        assert np.all(g[a < 1e-12] <= 1e-5) and np.all(g[a > C - 1e-12] >= -1e-5)
        assert np.all(np.abs(g[(a > 1e-12) & (a < C - 1e-12)]) <= 1e-5)
        assert np.mean(m.predict(X) == smo.predict(X)) > 0.95


def test_svr_agrees_with_smo():
    rng = np.random.default_rng(3)
    X = rng.uniform(-3, 3, size=(250, 2))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=250)
    smo = lm.SVR(C=5.0, gamma=0.5, epsilon=0.1, tol=1e-6).fit(X, y)
    sec = isda(lm.SVR, C=5.0, gamma=0.5, epsilon=0.1, tol=1e-6).fit(X, y)
    np.testing.assert_allclose(sec.objective_, smo.objective_, rtol=1e-5)
    np.testing.assert_allclose(sec.predict(X), smo.predict(X), atol=1e-3)
    assert abs(coef_by_example(sec, 250).sum()) < 1e-4


def test_multiclass_and_over_relaxation():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(240, 3))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], [-0.5, 0.5])
    smo = lm.SVC(C=1.0, gamma=0.5, tol=1e-6).fit(X, y)
    for w in (0.7, 1.0, 1.5):
        m = isda(C=1.0, gamma=0.5, tol=1e-6, over_relaxation=w).fit(X, y)
        np.testing.assert_allclose(m.objective_, smo.objective_, rtol=1e-5)
        np.testing.assert_array_equal(m.predict(X), smo.predict(X))


@pytest.mark.parametrize("kw, match", [
    (dict(solver="cg"), "solver"), (dict(solver="isda", isda_bias="bisection"), "isda_bias"),
    (dict(solver="isda", isda_k=0.0), "isda_k"), (dict(solver="isda", over_relaxation=2.0), "over_relaxation"),
])
def test_bad_parameters(kw, match):
    with pytest.raises(ValueError, match=match):
        lm.SVC(**kw).fit(X1, Y1)
