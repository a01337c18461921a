"""Averaged SGD and the corrected SGD-QN in LinearSGD: the implicit average against the direct
one, both SGD-QNs against a tight optimum, the default's multiclass and weights, bad names."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.svm import LinearSVC

import largemargin as lm


def data(n=1500, d=60, seed=0):
    rng = np.random.RandomState(seed)
    X = sp.random(n, d, density=0.1, format="csr", random_state=rng, data_rvs=lambda k: rng.uniform(0.2, 1, k))
    y = np.sign(X @ rng.normal(size=d) + 1e-9)
    y[rng.rand(n) < 0.05] *= -1
    return X, y


def direct_average(X, y, alpha, t0, start, rate, passes):
    """Plain SGD on the log loss in float64, dense w decayed every step, and the running average
    of its iterates from step `start` on."""
    X = X.toarray()
    n, d = X.shape
    w, b, avg, avg_b, k = np.zeros(d), 0.0, np.zeros(d), 0.0, 0
    eta0 = 1 / (alpha * t0)
    for t in range(passes * n):
        i = t % n
        g = -y[i] / (1 + np.exp(y[i] * (X[i] @ w + b)))
        eta = eta0 / (1 + alpha * eta0 * t) ** 0.75
        w = w * max(1 - eta * alpha, 0.0) - eta * g * X[i]
        b -= eta * rate * g
        if t >= start:
            k += 1
            avg += (w - avg) / k
            avg_b += (b - avg_b) / k
    return (avg, avg_b) if k else (w, b)


@pytest.mark.parametrize("t0, alpha, start", [(1.0, 0.5, 0.0), (100.0, 1e-2, 0.4), (1e6, 1e-5, 1.7)])
def test_the_implicit_average_is_the_direct_one(t0, alpha, start):
    X, y = data()
    est = lm.LinearSGD(algorithm="asgd", loss="log_loss", alpha=alpha, t0=t0, average_start=start, epochs=1,
                       shuffle=False, intercept_rate=0.1)
    est.partial_fit(X, y, classes=np.unique(y))
    est.partial_fit(X[:700], y[:700])
    est.partial_fit(X[700:], y[700:])  # a pass in two calls, continued exactly
    want, want_b = direct_average(X, y, alpha, t0, start * X.shape[0], 0.1, 2)
    scale = np.abs(want).max()
    # coef_ is the average itself, in float64
    np.testing.assert_allclose(est.coef_[0], want, rtol=0, atol=1e-10 * scale)
    assert abs(est.intercept_[0] - want_b) <= 1e-10 * max(1.0, abs(want_b))
    assert est._state["asgd_u"].shape == est.coef_.shape  # partial_fit keeps the iterate


def test_fit_keeps_only_the_model_and_partial_fit_continues_from_it():
    X, y = data()
    est = lm.LinearSGD(algorithm="asgd", alpha=1e-3, t0=100.0, epochs=2, random_state=0).fit(X, y)
    arrays = {k: v for k, v in vars(est).items() if isinstance(v, np.ndarray)}
    state_rows = [v for v in est._state.values() if isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[1] > 5]
    assert not state_rows, "fit kept per-feature optimiser state"
    assert est.coef_.dtype == np.float64 and est.coef_.flags.c_contiguous
    assert max(v.nbytes for v in arrays.values()) == est.coef_.nbytes
    before = est.score(X, y)
    # partial_fit after fit starts from the model: one more pass does not undo it
    est.partial_fit(X, y)
    assert est.score(X, y) >= before - 0.02
    assert est._state["asgd_u"].shape == est.coef_.shape


@pytest.mark.parametrize("algorithm", ["sgdqn", "sgdqn2009", "asgd"])
def test_both_sgdqns_and_asgd_reach_a_tight_optimum(algorithm):
    X, y = data(4000, 200, 1)
    alpha = 1e-3
    svc = LinearSVC(C=1 / (2 * len(y) * alpha), fit_intercept=False, tol=1e-10, max_iter=100_000).fit(X, y)

    def primal(coef):
        m = y * (X @ coef)
        return 0.5 * alpha * coef @ coef + np.mean(0.5 * np.maximum(0, 1 - m) ** 2)

    best = primal(svc.coef_.ravel())
    est = lm.LinearSGD(algorithm=algorithm, alpha=alpha, t0=1e4, epochs=30, fit_intercept=False,
                       random_state=0).fit(X, y)
    value = primal(est.coef_.ravel())
    assert best * (1 - 1e-6) <= value <= best * 1.003, (algorithm, value, best)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge", "log_loss", "modified_huber"])
def test_the_default_is_asgd_multiclass_and_weighted(loss):
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    est = lm.LinearSGD(loss=loss, alpha=1e-4, random_state=0).fit(X[:1400], y[:1400])
    assert est.algorithm == "asgd" and est.coef_.shape == (10, 64)
    assert est.score(X[1400:], y[1400:]) > 0.88
    # a class weighted up is recalled at least as often
    weighted = lm.LinearSGD(loss=loss, alpha=1e-4, random_state=0, class_weight={3: 5.0})
    weighted.fit(X[:1400], y[:1400])
    recall = lambda m: np.mean(m.predict(X[1400:][y[1400:] == 3]) == 3)  # noqa: E731
    assert recall(weighted) >= recall(est)


@pytest.mark.parametrize("kwargs, message", [
    (dict(tol=-1.0), "tol must be a nonnegative number or None"),
    (dict(n_iter_no_change=0), "n_iter_no_change must be a positive integer"),
    (dict(max_iter=0), "max_iter must be a positive integer"),
])
def test_bad_stopping_parameters_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        lm.LinearSGD(**kwargs).fit([[0.0], [1.0]], [0, 1])


def test_bad_names_and_starts_are_refused():
    X, y = data(100, 10)
    with pytest.raises(ValueError, match="algorithm must be one of 'asgd', 'sgdqn', 'sgdqn2009', 'svmsgd2', 'sgd', got 'sgd-qn'"):
        lm.LinearSGD(algorithm="sgd-qn").fit(X, y)
    with pytest.raises(ValueError, match="average_start"):
        lm.LinearSGD(average_start=-1).fit(X, y)
    with pytest.raises(ValueError, match="average_start"):
        lm.LinearSGD(average_start=float("nan")).fit(X, y)


@pytest.mark.parametrize("algorithm", ["asgd", "sgdqn", "sgdqn2009", "svmsgd2", "sgd"])
def test_an_automatic_step_never_diverges_on_standardised_data(algorithm):
    """iris (standardised, |x|^2 ~ 4, alpha 1e-4): one pass over the 112 training rows let t0 = 1000
    through, and the squared hinge's steps then overflowed in the second pass; and with a class
    weighted 20x on digits a problem other than the first (where t0 was chosen) overflowed."""
    from sklearn.datasets import load_iris
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    rng = np.random.RandomState(0)
    train = rng.permutation(len(y))[:112]
    est = lm.LinearSGD(algorithm=algorithm, random_state=0).fit(X[train], y[train])
    assert np.all(np.isfinite(est.coef_)) and est.score(X, y) > 0.8
    # the bound: the first step moves no example's decision value past the loss's curvature
    assert est.t0_ * est.alpha >= np.max(np.sum(X[train] ** 2, axis=1) + est.intercept_rate) * (1 - 1e-9)
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    weighted = lm.LinearSGD(algorithm=algorithm, class_weight={3: 20}, epochs=2, random_state=0).fit(X, y)
    assert np.all(np.isfinite(weighted.coef_)) and weighted.score(X, y) > 0.75
    # the weight of class 3 (not in the first problem, where t0 is chosen) counted in the bound
    threes = np.sum(X[y == 3] ** 2, axis=1) + weighted.intercept_rate
    assert weighted.t0_ * weighted.alpha >= 20 * threes.max() * (1 - 1e-9)


def test_the_default_passes_and_intercept_suit_small_multiclass_sets():
    """Small one-vs-rest problems need a bias far from 0 and more than 5 passes: with the
    defaults LinearSGD is within 2 points of LinearSVC on iris and on banana-like 2-D data with
    an offset."""
    from sklearn.datasets import load_iris
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    errors = {}
    for seed in range(5):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=seed)
        scale = StandardScaler().fit(Xtr)
        Xtr, Xte = scale.transform(Xtr), scale.transform(Xte)
        ours = lm.LinearSGD(random_state=0).fit(Xtr, ytr)
        assert ours.n_iter_ < ours.max_iter
        theirs = LinearSVC().fit(Xtr, ytr)
        for name, m in (("ours", ours), ("theirs", theirs)):
            errors[name] = errors.get(name, 0) + np.mean(m.predict(Xte) != yte) / 5
    assert errors["ours"] <= errors["theirs"] + 0.02, errors
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0.8).astype(int)  # an offset: the bias carries the boundary
    ours = lm.LinearSGD(random_state=0).fit(X[:400], y[:400])
    theirs = LinearSVC().fit(X[:400], y[:400])
    assert ours.score(X[400:], y[400:]) >= theirs.score(X[400:], y[400:]) - 0.02


def test_the_default_passes_stop_once_the_averaged_objective_stops_improving():
    """epochs=None stops on the objective of the model it returns, long before the cap on an
    easy problem, where one more pass would improve it by less than tol; a tol that cannot be met runs to the
    cap and warns; an integer epochs runs exactly that many passes, tol or not."""
    import warnings

    from sklearn.datasets import load_breast_cancer
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        early = lm.LinearSGD(random_state=0).fit(X, y)
    assert 5 < early.n_iter_ < 200 and early.t_ == early.n_iter_ * len(y)
    five = lm.LinearSGD(epochs=5, random_state=0).fit(X, y)
    assert early.objective_[0] < 0.9 * five.objective_[0], (early.objective_, five.objective_)
    stopped = early.objective_[0]
    early.partial_fit(X, y)
    # (tol is relative to the zero model's objective: 1/2 for the squared hinge)
    assert stopped - 2 * early.tol * 0.5 <= early.objective_[0] <= stopped + early.tol * 0.5
    # the objective reported is the returned model's
    m = np.where(y == 1, 1, -1) * (X @ early.coef_[0] + early.intercept_[0])
    direct = 0.5 * early.alpha * early.coef_[0] @ early.coef_[0] + np.mean(0.5 * np.maximum(0, 1 - m) ** 2)
    assert early.objective_[0] == pytest.approx(direct, rel=1e-5)
    with pytest.warns(ConvergenceWarning, match="max_iter=20"):
        capped = lm.LinearSGD(tol=1e-12, max_iter=20, random_state=0).fit(X, y)
    assert capped.n_iter_ == 20
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        off = lm.LinearSGD(tol=None, max_iter=13, random_state=0).fit(X, y)
        fixed = lm.LinearSGD(epochs=13, tol=1e-1, random_state=0).fit(X, y)
    assert off.n_iter_ == fixed.n_iter_ == 13
    np.testing.assert_array_equal(off.coef_, fixed.coef_)
    # one-vs-rest: each problem stops on its own, n_iter_ the longest
    from sklearn.datasets import load_iris

    Xi, yi = load_iris(return_X_y=True)
    iris = lm.LinearSGD(random_state=0).fit(StandardScaler().fit_transform(Xi), yi)
    assert iris.n_iter_ < iris.max_iter


def test_a_fit_stuck_at_the_zero_model_warns():
    # one feature 10^4 x the others: the safe t0 makes every step tiny and the stopping rule saw no change
    from sklearn.datasets import make_classification
    from sklearn.exceptions import ConvergenceWarning

    X, y = make_classification(1000, 10, random_state=0)
    Xc = np.hstack([X, np.full((1000, 1), 1e4)])
    with pytest.warns(ConvergenceWarning, match="no better than the zero model's 0.5: the model did not learn"):
        lm.LinearSGD(random_state=0).fit(Xc, y)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        lm.LinearSGD(random_state=0).fit(X, y)


def test_verbose_reports_each_problem(capsys, monkeypatch):
    from sklearn.datasets import load_iris

    from largemargin import _progress

    monkeypatch.setattr(_progress, "_configured", lambda: False)  # printed, as without logging set up
    from sklearn.preprocessing import StandardScaler

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    m = lm.LinearSGD(verbose=True, random_state=0).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("[largemargin] SGD fit: 3 of 3 problems done")  # the native run's own line
    out = lines[1:]
    assert [ln.split(":")[0] for ln in out[:3]] == [f"[LinearSGD] class {c} against the rest" for c in range(3)]
    assert "s in the passes" in out[3] and len(out) == 4
    assert "stopped by max_iter" not in "\n".join(out) and f"{m.n_iter_} passes" in "\n".join(out)
