"""LaSVM: the online solver against SMO on the same data, its strategies, and plugin strategies."""

import time

import numpy as np
import pytest

import largemargin as lm
from largemargin.plugins import get_registry, hookimpl


@pytest.fixture(scope="module")
def blobs():
    rng = np.random.RandomState(0)
    n = 1200
    y = rng.randint(0, 2, n)
    X = rng.normal(size=(n, 2)) * 0.9 + np.where(y[:, None] == 1, 0.8, -0.8)
    return X[:800], y[:800], X[800:], y[800:]


def test_lasvm_with_finishing_matches_smo(blobs):
    Xtr, ytr, Xte, yte = blobs
    smo = lm.SVC(C=10, gamma=0.5, tol=1e-4).fit(Xtr, ytr)
    las = lm.LaSVM(C=10, gamma=0.5, tol=1e-4, epochs=3, random_state=0).fit(Xtr, ytr)
    assert abs(las.objective_[0] - smo.objective_[0]) <= 1e-4 * smo.objective_[0]
    assert las.gap_[0] <= 1e-4
    assert np.mean(las.predict(Xte) == smo.predict(Xte)) > 0.99
    # the decision function is the expansion: sum coef K(x, sv) + b
    from sklearn.metrics.pairwise import rbf_kernel

    manual = rbf_kernel(Xte, las.support_vectors_, gamma=0.5) @ las.dual_coef_[0] + las.intercept_[0]
    np.testing.assert_allclose(las.decision_function(Xte), manual, atol=1e-8)


def test_one_pass_is_close_and_needs_fewer_kernel_values(blobs):
    Xtr, ytr, Xte, yte = blobs
    smo = lm.SVC(C=1, gamma=0.5, cache_size=1).fit(Xtr, ytr)
    las = lm.LaSVM(C=1, gamma=0.5, cache_size=1, random_state=0).fit(Xtr, ytr)
    assert las.objective_[0] <= smo.objective_[0] * (1 + 1e-9)
    assert las.objective_[0] > 0.97 * smo.objective_[0]
    assert abs(np.mean(las.predict(Xte) != yte) - np.mean(smo.predict(Xte) != yte)) < 0.02
    assert len(las.support_) <= len(smo.support_) + 5


@pytest.mark.parametrize("selection", ["random", "gradient", "active", "autoactive"])
def test_every_builtin_strategy_learns(blobs, selection):
    Xtr, ytr, Xte, yte = blobs
    las = lm.LaSVM(C=1, gamma=0.5, selection=selection, random_state=1).fit(Xtr, ytr)
    assert np.mean(las.predict(Xte) == yte) > 0.8
    assert las.n_processed_[0] <= len(ytr) + 10  # the 5 + 5 seed examples are processed first


def test_multiclass_is_one_vs_one_pairs_of_one_engine(digits):
    Xtr, ytr, Xte, yte = digits
    las = lm.LaSVM(C=10, gamma=0.02, random_state=0).fit(Xtr, ytr)
    assert las.dual_coef_.shape == (45, len(las.support_))
    assert las.decision_function(Xte).shape == (len(Xte), 10)
    # each pair's expansion holds only its two classes' examples
    sv_class = ytr[las.support_]
    p = 0
    for a in range(10):
        for b in range(a + 1, 10):
            used = np.flatnonzero(las.dual_coef_[p])
            assert set(sv_class[used]) <= {a, b}
            p += 1
    # a pair's LaSVM solves the pair's binary SVM (positive: the first class), as SVC's pairs
    ovo = lm.LaSVM(C=10, gamma=0.02, random_state=0, decision_function_shape="ovo").fit(Xtr, ytr)
    svc = lm.SVC(C=10, gamma=0.02, decision_function_shape="ovo").fit(Xtr, ytr)
    assert np.all(np.abs(ovo.objective_ - svc.objective_) <= 0.02 * svc.objective_)
    assert np.mean(np.sign(ovo.decision_function(Xte)) == np.sign(svc.decision_function(Xte))) > 0.98
    # predictions are the votes of the pair decisions
    dec = ovo.decision_function(Xte)
    votes = np.zeros((len(Xte), 10))
    p = 0
    for a in range(10):
        for b in range(a + 1, 10):
            votes[:, a] += dec[:, p] > 0
            votes[:, b] += dec[:, p] <= 0
            p += 1
    pred = las.predict(Xte)
    assert np.all(votes[np.arange(len(Xte)), pred] == votes.max(axis=1))
    assert np.mean(pred == yte) >= np.mean(svc.predict(Xte) == yte) - 0.01


def test_multiclass_one_vs_rest_on_request(digits):
    Xtr, ytr, Xte, yte = digits
    las = lm.LaSVM(C=10, gamma=0.02, multiclass="ovr", random_state=0).fit(Xtr, ytr)
    assert las.dual_coef_.shape == (10, len(las.support_))
    dec = las.decision_function(Xte)
    assert dec.shape == (len(Xte), 10)
    np.testing.assert_array_equal(las.predict(Xte), np.argmax(dec, axis=1))
    assert np.mean(las.predict(Xte) == yte) > 0.9
    for bad, match in [(dict(multiclass="crammer"), "multiclass"), (dict(decision_function_shape="x"), "decision_function_shape")]:
        with pytest.raises(ValueError, match=match):
            lm.LaSVM(**bad).fit(Xtr, ytr)


class FarthestFirst:
    """A deliberately odd third-party strategy: of 10 candidates, the one farthest from the
    boundary; it counts its calls."""

    calls = 0

    def __init__(self, random_state=0):
        self.n_candidates = 10

    def choose(self, decision, labels):
        FarthestFirst.calls += 1
        assert len(decision) == len(labels) <= 10
        return int(np.argmax(np.abs(decision)))


class StrategyPlugin:
    @hookimpl
    def largemargin_selection_strategies(self):
        return {"farthest_first": FarthestFirst}


def test_a_plugin_strategy_is_used_by_lasvm(blobs):
    Xtr, ytr, _, _ = blobs
    registry = get_registry()
    registry.register(StrategyPlugin(), name="strategy-test")
    try:
        FarthestFirst.calls = 0
        las = lm.LaSVM(C=1, gamma=0.5, selection="farthest_first", finishing=False, random_state=0).fit(Xtr, ytr)
        assert FarthestFirst.calls == len(ytr)  # one choice per step, one step per example
        random = lm.LaSVM(C=1, gamma=0.5, selection="random", finishing=False, random_state=0).fit(Xtr, ytr)
        assert not np.array_equal(las.dual_coef_, random.dual_coef_)  # its order of processing, not random's
        assert las.score(Xtr, ytr) > 0.8
    finally:
        registry.unregister("strategy-test")


def test_a_failing_plugin_strategy_reaches_the_user(blobs):
    from largemargin.plugins import PluginError  # noqa: F401 - raised errors keep their own type

    class Broken:
        n_candidates = 5

        def __init__(self, random_state=0):
            pass

        def choose(self, decision, labels):
            raise RuntimeError("strategy exploded")

    Xtr, ytr, _, _ = blobs
    with pytest.raises(RuntimeError, match="strategy exploded"):
        lm.LaSVM(selection=Broken).fit(Xtr, ytr)


def test_bad_parameters_are_named(blobs):
    Xtr, ytr, _, _ = blobs
    for kwargs, message in [
        (dict(epochs=0), "epochs must be a positive integer"),
        (dict(candidates=0), "candidates must be a positive integer"),
        (dict(selection="nope"), "unknown selection strategy 'nope'"),
        (dict(C=-1), "C must be a positive number"),
        (dict(shrinking="yes"), "shrinking must be True or False"),
    ]:
        with pytest.raises(ValueError, match=message):
            lm.LaSVM(**kwargs).fit(Xtr, ytr)


def test_partial_fit_over_chunks_is_close_to_fit(blobs):
    import pickle

    Xtr, ytr, Xte, yte = blobs
    whole = lm.LaSVM(C=1, gamma=0.5, random_state=0).fit(Xtr, ytr)
    online = lm.LaSVM(C=1, gamma=0.5, random_state=0)
    chunks = np.array_split(np.arange(len(ytr)), 8)
    for k, idx in enumerate(chunks):
        if k == 4:  # saved and reloaded halfway: it goes on learning
            online = pickle.loads(pickle.dumps(online))
        online.partial_fit(Xtr[idx], ytr[idx], classes=[0, 1])
        if k > 0:
            assert online.n_processed_[0] <= len(idx)  # only the new chunk is visited
    err_whole = np.mean(whole.predict(Xte) != yte)
    err_online = np.mean(online.predict(Xte) != yte)
    assert abs(err_online - err_whole) <= 0.02
    assert online.objective_[0] > 0.95 * whole.objective_[0]


def test_partial_fit_multiclass_sparse_and_errors(digits):
    import scipy.sparse as sp

    Xtr, ytr, Xte, yte = digits
    m = lm.LaSVM(C=10, gamma=0.02, random_state=0)
    with pytest.raises(ValueError, match="classes must be given"):
        m.partial_fit(Xtr[:100], ytr[:100])
    for idx in np.array_split(np.arange(len(ytr)), 4):
        m.partial_fit(sp.csr_matrix(Xtr[idx]), ytr[idx], classes=np.arange(10))
    assert np.mean(m.predict(Xte) == yte) > 0.9
    with pytest.raises(ValueError, match="features"):
        m.partial_fit(Xtr[:10, :20], ytr[:10])
    with pytest.raises(ValueError, match="not among the classes"):
        m.partial_fit(Xtr[:10], np.full(10, 11))


def test_a_rejected_chunk_leaves_the_model_unchanged(blobs):
    Xtr, ytr, Xte, _ = blobs
    m = lm.LaSVM(random_state=0).partial_fit(Xtr[:300], ytr[:300], classes=[0, 1])
    before = m.decision_function(Xte)
    gamma = m._gamma
    with pytest.raises(ValueError):
        m.partial_fit(Xtr[300:400] * 5, np.full(100, 7))
    np.testing.assert_array_equal(m.decision_function(Xte), before)
    m.partial_fit(Xtr[300:400] * 5, ytr[300:400])  # gamma='scale' keeps the first chunk's value
    assert m._gamma == gamma


# ------------------------------------------------------------------ the online baselines

def test_the_huller_and_the_perceptrons_learn(blobs, digits):
    Xtr, ytr, Xte, yte = blobs
    # hard margin: on separable data the Huller is as good as the SVM (on these overlapping blobs it is not)
    far = np.where(ytr[:, None] == 1, 2.0, -2.0)
    sep = lm.Huller(gamma=0.5, epochs=2, random_state=0).fit(Xtr + far, ytr)
    assert sep.score(Xte + np.where(yte[:, None] == 1, 2.0, -2.0), yte) > 0.99
    for rule in ("perceptron", "averaged", "pa", "budget"):
        m = lm.KernelPerceptron(rule=rule, gamma=0.5, budget=200, random_state=0).fit(Xtr, ytr)
        assert m.score(Xte, yte) > 0.85, rule
        if rule == "budget":
            assert len(m.support_) <= 200
    # a budget far below what noisy data needs keeps mostly mislabeled points: a known weakness
    tight = lm.KernelPerceptron(rule="budget", gamma=0.5, budget=20, random_state=0).fit(Xtr, ytr)
    assert len(tight.support_) == 20
    Xd, yd, Xdt, ydt = digits
    h = lm.Huller(gamma=0.02, random_state=0).fit(Xd, yd)  # digits are separable: the Huller's case
    assert h.dual_coef_.shape[0] == 10 and h.score(Xdt, ydt) > 0.9
    avg = lm.KernelPerceptron(rule="averaged", gamma=0.02, epochs=2, random_state=0).fit(Xd, yd)
    assert avg.score(Xdt, ydt) > 0.9


def test_baseline_parameters_are_checked(blobs):
    Xtr, ytr, _, _ = blobs
    for est, message in [
        (lm.KernelPerceptron(rule="winnow"), "rule must be one of"),
        (lm.KernelPerceptron(budget=0), "budget must be a positive integer"),
        (lm.Huller(epochs=0), "epochs must be a positive integer"),
    ]:
        with pytest.raises(ValueError, match=message):
            est.fit(Xtr, ytr)


def test_finish_after_a_stream(blobs):
    Xtr, ytr, Xte, yte = blobs
    m = lm.LaSVM(C=1, gamma=0.5, finishing=False, tol=1e-4, random_state=0)
    for idx in np.array_split(np.arange(len(ytr)), 4):
        m.partial_fit(Xtr[idx], ytr[idx], classes=[0, 1])
    before = m.objective_[0]
    assert m.gap_[0] > 1e-4
    m.finish()
    assert m.gap_[0] <= 1e-4 and m.objective_[0] >= before
    whole = lm.LaSVM(C=1, gamma=0.5, tol=1e-4, random_state=0).fit(Xtr, ytr)
    assert m.objective_[0] > 0.97 * whole.objective_[0]


def test_baselines_refuse_sample_weights_they_cannot_use(blobs):
    Xtr, ytr, _, _ = blobs
    for est in (lm.Huller(), lm.KernelPerceptron()):
        with pytest.raises(TypeError, match="sample_weight"):
            est.fit(Xtr, ytr, sample_weight=np.ones(len(ytr)))


def test_max_iter_bounds_the_online_iterations_along_one_trajectory(blobs):
    Xtr, ytr, Xte, yte = blobs
    fits = [lm.LaSVM(C=1, gamma=0.5, max_iter=m, finishing=False, random_state=3).fit(Xtr, ytr) for m in (50, 200)]
    whole = lm.LaSVM(C=1, gamma=0.5, finishing=False, random_state=3).fit(Xtr, ytr)
    for m, est in zip((50, 200), fits):
        assert est.n_processed_[0] <= m + 10  # the seed's 5 + 5 first
    # a larger budget continues the same run: the objective grows along it
    assert fits[0].objective_[0] < fits[1].objective_[0] < whole.objective_[0] * (1 + 1e-12)
    assert lm.LaSVM(max_iter=-1).fit(Xtr, ytr).n_processed_[0] > 700
    with pytest.raises(ValueError, match="max_iter"):
        lm.LaSVM(max_iter=0).fit(Xtr, ytr)


def test_active_learning_through_an_oracle(blobs):
    """With no label given, ACTIVE selection asks the oracle for the examples it picks: each one
    once, at most max_iter of them, and learns about as well as from every label."""
    Xtr, ytr, Xte, yte = blobs
    asked = []

    def oracle(i):
        asked.append(i)
        return ytr[i]

    las = lm.LaSVM(C=1, gamma=0.5, selection="active", candidates=20, max_iter=60, random_state=0)
    las.fit(Xtr, None, oracle=oracle, classes=[0, 1])
    assert len(asked) == len(set(asked)) == 60
    np.testing.assert_array_equal(las.queried_, asked)
    np.testing.assert_array_equal(las.queried_labels_, ytr[asked])
    assert set(las.support_) <= set(asked)
    every = lm.LaSVM(C=1, gamma=0.5, random_state=0).fit(Xtr, ytr)
    assert np.mean(las.predict(Xte) == yte) >= np.mean(every.predict(Xte) == yte) - 0.03

    # some labels known (NaN for the others), multiclass: still one question per example, and an
    # answer outside a pair takes the example out of that pair
    y3 = np.where(Xtr[:, 0] > 1, 2, ytr)
    partial = y3.astype(float)
    partial[20:] = np.nan
    for multiclass in ("ovo", "ovr"):
        asked.clear()
        las = lm.LaSVM(C=1, gamma=0.5, selection="active", max_iter=100, multiclass=multiclass, random_state=0)
        # a slow oracle (it lets the other problems' threads run meanwhile) is still asked once
        las.fit(Xtr, partial, oracle=lambda i: (time.sleep(2e-4), asked.append(i), y3[i])[2])
        assert len(asked) == len(set(asked)) and not set(asked) & set(range(20))
        assert list(las.classes_) == [0, 1, 2] and las.dual_coef_.shape[0] == 3
        if multiclass == "ovo":
            for p, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
                assert set(y3[las.support_[las.dual_coef_[p] != 0]]) <= {a, b}
        assert np.mean(las.predict(Xte) == np.where(Xte[:, 0] > 1, 2, yte)) > 0.75


def test_oracle_failures_leave_the_estimator_as_it_was(blobs):
    Xtr, ytr, Xte, _ = blobs
    las = lm.LaSVM(C=1, gamma=0.5, selection="active", max_iter=30, random_state=0).fit(Xtr, ytr)
    before = las.decision_function(Xte)
    with pytest.raises(ValueError, match=r"oracle\(\d+\) returned 7"):
        las.fit(Xtr, None, oracle=lambda i: 7, classes=[0, 1])
    with pytest.raises(KeyError, match="no such label"):
        las.fit(Xtr, None, oracle=lambda i: {}["no such label"], classes=[0, 1])
    np.testing.assert_array_equal(las.decision_function(Xte), before)
    with pytest.raises(ValueError, match="two classes"):
        lm.LaSVM().fit(Xtr, None, oracle=lambda i: 0)
    with pytest.raises(ValueError, match="class_weight"):
        lm.LaSVM(class_weight="balanced").fit(Xtr, None, oracle=lambda i: 0, classes=[0, 1])
    with pytest.raises(ValueError, match="oracle"):
        lm.LaSVM().fit(Xtr, ytr, classes=[0, 1])


def test_finishing_with_shrinking_reaches_the_same_solution(blobs):
    Xtr, ytr, Xte, _ = blobs
    plain = lm.LaSVM(C=10, gamma=0.5, tol=1e-4, random_state=0).fit(Xtr, ytr)
    shrunk = lm.LaSVM(C=10, gamma=0.5, tol=1e-4, shrinking=True, random_state=0).fit(Xtr, ytr)
    assert abs(plain.objective_[0] - shrunk.objective_[0]) <= 1e-4 * plain.objective_[0]
    assert plain.gap_[0] <= 1e-4 and shrunk.gap_[0] <= 1e-4
    np.testing.assert_allclose(plain.decision_function(Xte), shrunk.decision_function(Xte), atol=1e-2)


def test_multiclass_oracle_keeps_to_the_labelling_budget(digits):
    Xtr, ytr, Xte, yte = digits
    for multiclass in ("ovo", "ovr"):
        las = lm.LaSVM(C=10, gamma=0.02, selection="active", max_iter=60, multiclass=multiclass, random_state=0)
        las.fit(Xtr, None, oracle=lambda i: ytr[i], classes=np.arange(10))
        assert len(las.queried_) <= 60, (multiclass, len(las.queried_))
        assert las.classes_.dtype.kind == "i"  # integer classes stay integers
        assert np.mean(las.predict(Xte) == yte) > 0.5


def test_autoactive_starts_from_no_label_at_all():
    from sklearn.datasets import make_classification

    X, y = make_classification(1500, 20, random_state=0)
    las = lm.LaSVM(C=1, gamma=0.05, selection="autoactive", max_iter=300, random_state=0)
    las.fit(X[:1000], None, oracle=lambda i: y[i], classes=[0, 1])
    assert len(las.support_) > 10 and len(las.queried_) > 50
    assert np.mean(las.predict(X[1000:]) == y[1000:]) > 0.85


def test_fitted_layout_is_kept_and_partial_fit_refuses_what_it_cannot_do(digits):
    Xtr, ytr, Xte, _ = digits
    las = lm.LaSVM(C=10, gamma=0.02, random_state=0).fit(Xtr, ytr)
    before = las.predict(Xte)
    las.set_params(multiclass="ovr")
    np.testing.assert_array_equal(las.predict(Xte), before)
    assert las.decision_function(Xte).shape == (len(Xte), 10)
    with pytest.raises(ValueError, match="partial_fit cannot change it"):
        las.partial_fit(Xtr[:50], ytr[:50])
    np.testing.assert_array_equal(las.predict(Xte), before)
    ovr = lm.LaSVM(C=10, gamma=0.02, multiclass="ovr", random_state=0).fit(Xtr, ytr)
    with pytest.raises(ValueError, match="needs a model fitted with multiclass='ovo'"):
        ovr.set_params(decision_function_shape="ovo").decision_function(Xte)
    # two classes: the shape does not matter, as for SVC
    two = ytr < 2
    lm.LaSVM(multiclass="ovr", decision_function_shape="ovo").fit(Xtr[two], ytr[two]).decision_function(Xte)
    with pytest.raises(ValueError, match="balanced"):
        lm.LaSVM(class_weight="balanced").partial_fit(Xtr, ytr, classes=np.arange(10))


def test_oracle_answer_none_and_stale_queries(blobs):
    Xtr, ytr, _, _ = blobs
    with pytest.raises(ValueError, match=r"oracle\(\d+\) returned None"):
        lm.LaSVM(selection="active", max_iter=10).fit(Xtr, None, oracle=lambda i: None, classes=[0, 1])
    las = lm.LaSVM(selection="active", max_iter=10).fit(Xtr, None, oracle=lambda i: ytr[i], classes=[0, 1])
    assert len(las.queried_) == 10
    las.fit(Xtr, ytr)
    assert not hasattr(las, "queried_") and not hasattr(las, "queried_labels_")


def test_partial_fit_warns_when_a_one_class_chunk_is_lost(blobs):
    Xtr, ytr, _, _ = blobs
    las = lm.LaSVM(random_state=0)
    with pytest.warns(UserWarning, match="nothing was learned"):
        las.partial_fit(Xtr[ytr == 0][:100], np.zeros(100, int), classes=[0, 1])
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        las.partial_fit(Xtr[:200], ytr[:200])
    assert len(las.support_) > 0
