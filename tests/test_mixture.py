"""Hard mixtures of SVM experts: the capped reassignment, the gaters, the training loop, the
thread and Dask backends (same model; a worker killed mid-fit), and a plugin expert."""

import os

import numpy as np
import pytest
import scipy.sparse as sp

import largemargin as lm
from largemargin import _native
from largemargin.plugins import get_registry

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def forest():
    X, y = lm.make_forest_like(5000, random_state=3)
    return X[:4000], y[:4000], X[4000:], y[4000:]


def reference_assignment(pref, cap, order):
    held = np.zeros(pref.shape[1], int)
    out = np.empty(len(pref), int)
    for i in order:
        for e in sorted(range(pref.shape[1]), key=lambda e: (-pref[i, e], e)):
            if held[e] < cap:
                held[e] += 1
                out[i] = e
                break
    return out


def test_capped_assignment_matches_the_reference():
    rng = np.random.default_rng(0)
    for n, k in [(50, 3), (200, 7), (31, 31)]:
        pref = rng.normal(size=(n, k))
        pref[:, 0] += 2.0  # everyone prefers expert 0: the cap must push them on
        cap = n // k + 1
        order = rng.permutation(n)
        got = _native.assign_experts(pref, cap=cap, order=order.astype(np.int64))
        np.testing.assert_array_equal(got, reference_assignment(pref, cap, order))
        assert np.bincount(got, minlength=k).max() <= cap
    with pytest.raises(ValueError, match="cannot hold"):
        _native.assign_experts(np.zeros((10, 2)), cap=4, order=np.arange(10))


def test_global_gater_learns_who_is_right():
    rng = np.random.default_rng(1)
    X = rng.uniform(-1, 1, size=(2000, 2))
    y = np.sign(X[:, 0])
    F = np.column_stack([np.ones(2000), -np.ones(2000), rng.normal(size=2000)])  # right on x>0, on x<0, noise
    fit = _native.fit_gater(X, F, None, y, task="classification", experts=3, hidden=8, epochs=20, learning_rate=0.05, decay=0.0, seed=0, warm=None, n_jobs=1)
    assert fit["losses"][-1] < 0.5 * fit["losses"][0]
    G = _native.gater_gates(np.array([[0.8, 0.0], [-0.8, 0.0]]), weights=(fit["w1"], fit["b1"], fit["w2"], fit["b2"]), n_jobs=1)
    np.testing.assert_allclose(G.sum(1), 1.0)
    assert G[0, 0] > 0.8 and G[1, 1] > 0.8


def test_gmm_density_is_the_diagonal_mixture_formula():
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(-2, 0.5, (300, 3)), rng.normal(2, 1.0, (300, 3))])
    g = _native.fit_gmm(X, components=2, iterations=50, tol=1e-8, variance_floor=1e-6, seed=0, n_jobs=1)
    np.testing.assert_allclose(g["weights"].sum(), 1.0)
    Q = X[:5]
    dens = np.zeros(5)
    for w, m, v in zip(g["weights"], g["means"], g["variances"]):
        dens += w * np.exp(-0.5 * (((Q - m) ** 2) / v).sum(1)) / np.sqrt(np.prod(2 * np.pi * v))
    np.testing.assert_allclose(_native.gmm_log_density(Q, weights=g["weights"], means=g["means"], variances=g["variances"], n_jobs=1), np.log(dens),
                               rtol=1e-10)
    assert sorted(np.round(g["means"][:, 0])) == [-2.0, 2.0]


def test_mixture_close_to_one_svm(forest):
    Xtr, ytr, Xte, yte = forest
    svm = lm.SVC(C=10, gamma=0.1).fit(Xtr, ytr)
    mix = lm.MixtureSVC(n_experts=3, C=10, gamma=0.1, random_state=0, max_iter=3).fit(Xtr, ytr)
    err_svm, err_mix = np.mean(svm.predict(Xte) != yte), np.mean(mix.predict(Xte) != yte)
    # (4,000 examples: each expert sees a third; the benchmark compares at 100k and more)
    assert err_mix <= err_svm + 0.03, (err_mix, err_svm)
    cap = len(ytr) // 3 + 1
    assert np.bincount(mix.assignment_, minlength=3).max() <= cap
    assert len(mix.assignment_) == len(ytr) and mix.n_iter_ == len(mix.history_) <= 3
    assert mix.n_support_.sum() == sum(len(e.model.support_) for e in mix.experts_ if e.model is not None)
    # the reassignment moves examples at first, and the gater's criterion falls
    assert mix.history_[0]["moved"] > 0.1
    assert mix.history_[-1]["gater_loss"] < mix.history_[0]["gater_loss"]
    # decision_function is the gated sum of the experts' outputs
    G = mix._gate_matrix(Xte[:50])
    F = np.column_stack([e.output(Xte[:50]) for e in mix.experts_])
    used = G >= mix.gate_tol
    used[np.arange(50), G.argmax(1)] = True
    Gu = np.where(used, G, 0)
    np.testing.assert_allclose(mix.decision_function(Xte[:50]), (Gu * F).sum(1) / Gu.sum(1), atol=1e-10)
    proba = mix.predict_proba(Xte[:50])
    np.testing.assert_allclose(proba.sum(1), 1.0)


def test_gater_on_candidate_experts(forest):
    """gater_candidates=m: the gater's softmax and the prediction run over each row's m experts of
    highest gate; m = K (or None) is the full gater."""
    Xtr, ytr, Xte, yte = forest
    svm = lm.SVC(C=10, gamma=0.1).fit(Xtr, ytr)
    mix = lm.MixtureSVC(n_experts=8, gater_candidates=3, C=10, gamma=0.1, random_state=0, max_iter=3).fit(Xtr, ytr)
    err_svm, err_mix = np.mean(svm.predict(Xte) != yte), np.mean(mix.predict(Xte) != yte)
    # (500 examples per expert; restricting the softmax costs a little accuracy at this size)
    assert err_mix <= err_svm + 0.05, (err_mix, err_svm)
    G = mix._gate_matrix(Xte[:60])
    F = np.column_stack([e.output(Xte[:60]) for e in mix.experts_])
    top3 = np.argsort(-G, axis=1)[:, :3]
    used = np.zeros_like(G, dtype=bool)
    np.put_along_axis(used, top3, True, axis=1)
    used &= G >= mix.gate_tol
    used[np.arange(60), G.argmax(1)] = True
    Gu = np.where(used, G, 0)
    np.testing.assert_allclose(mix.decision_function(Xte[:60]), (Gu * F).sum(1) / Gu.sum(1), atol=1e-10)
    full = [lm.MixtureSVC(n_experts=4, gater_candidates=m, C=10, gamma=0.1, random_state=2, max_iter=2)
            .fit(Xtr[:1500], ytr[:1500]) for m in (None, 4, 9)]
    for other in full[1:]:
        np.testing.assert_array_equal(full[0].assignment_, other.assignment_)
        np.testing.assert_array_equal(full[0].decision_function(Xte), other.decision_function(Xte))


def test_candidate_helpers():
    from largemargin import mixture_experts as mx

    rng = np.random.default_rng(4)
    pref = rng.normal(size=(200, 7))
    for m in (1, 3, 7, 9):
        np.testing.assert_array_equal(mx.top_candidates(pref, m), np.argsort(-pref, axis=1)[:, :min(m, 7)])

    class Const:
        def __init__(self, c):
            self.c = c

        def output(self, X):
            return X[:, 0] * 0 + self.c + X[:, 0]

    X = rng.normal(size=(200, 2))
    cand = mx.top_candidates(pref, 3)
    got = mx.outputs([Const(10.0 * e) for e in range(7)], X, cand, workers=2)
    np.testing.assert_allclose(got, 10.0 * cand + X[:, :1])


@pytest.mark.parametrize("cand, match", [
    (np.array([[0, 3]] * 4), "out of range"), (np.array([[1, 1]] * 4), "twice"), (np.array([[0, -1]] * 4), "negative"),
    (np.array([[0, 1, 2]] * 4), "shape"),
])
def test_gater_candidates_are_checked(cand, match):
    X, F, y = np.zeros((4, 2)), np.zeros((4, 2)), np.ones(4)
    with pytest.raises(ValueError, match=match):
        _native.fit_gater(X, F, cand, y, task="classification", experts=3, hidden=4, epochs=1, learning_rate=0.1, decay=0.0, seed=0, warm=None, n_jobs=1)


def test_deterministic_and_thread_count_free(forest):
    Xtr, ytr, Xte, _ = forest
    a = lm.MixtureSVC(n_experts=3, C=10, gamma=0.1, random_state=5, max_iter=2, n_jobs=1).fit(Xtr[:1500], ytr[:1500])
    b = lm.MixtureSVC(n_experts=3, C=10, gamma=0.1, random_state=5, max_iter=2, n_jobs=2).fit(Xtr[:1500], ytr[:1500])
    np.testing.assert_array_equal(a.assignment_, b.assignment_)
    np.testing.assert_array_equal(a.decision_function(Xte), b.decision_function(Xte))


def test_local_gater_and_string_labels(forest):
    Xtr, ytr, Xte, yte = forest
    names = np.array(["other", "lodgepole"])
    mix = lm.MixtureSVC(n_experts=4, gater="local", C=10, gamma=0.1, n_gaussians=3, random_state=0, max_iter=3)
    mix.fit(Xtr, names[(ytr > 0).astype(int)])
    np.testing.assert_array_equal(mix.classes_, ["lodgepole", "other"])
    pred = mix.predict(Xte)
    assert np.mean(pred != names[(yte > 0).astype(int)]) < 0.3
    p = mix.predict_proba(Xte)
    assert ((p >= 0) & (p <= 1)).all()
    np.testing.assert_array_equal(pred, mix.classes_[(p[:, 1] > 0.5).astype(int)])


def test_validation_keeps_the_best_round(forest):
    Xtr, ytr, _, _ = forest
    mix = lm.MixtureSVC(n_experts=4, C=10, gamma=0.1, random_state=0, max_iter=6, validation_fraction=0.2).fit(Xtr, ytr)
    vals = [h["validation"] for h in mix.history_]
    assert all(np.isfinite(vals)) and len(mix.assignment_) == len(ytr) - 800
    best = int(np.argmin(vals))
    assert len(vals) == 6 or vals[-1] > min(vals[:-1])
    assert mix.n_support_.sum() == mix.history_[best]["n_support"]


def test_regression_mixture():
    rng = np.random.default_rng(0)
    X = rng.uniform(-3, 3, size=(3000, 1))
    y = np.sin(2 * X[:, 0]) + 0.5 * X[:, 0] + rng.normal(0, 0.1, 3000)
    Xte = np.linspace(-2.9, 2.9, 200)[:, None]
    truth = np.sin(2 * Xte[:, 0]) + 0.5 * Xte[:, 0]
    for gater in ("global", "local"):
        mix = lm.MixtureSVR(n_experts=4, gater=gater, C=10, gamma=1.0, epsilon=0.05, n_gaussians=2, random_state=0,
                            max_iter=3).fit(X, y)
        assert np.sqrt(np.mean((mix.predict(Xte) - truth) ** 2)) < 0.15, gater


def test_sparse_input(forest):
    Xtr, ytr, Xte, _ = forest
    dense = lm.MixtureSVC(n_experts=3, C=10, gamma=0.1, random_state=1, max_iter=2).fit(Xtr[:1200], ytr[:1200])
    sparse = lm.MixtureSVC(n_experts=3, C=10, gamma=0.1, random_state=1, max_iter=2).fit(sp.csr_matrix(Xtr[:1200]), ytr[:1200])
    np.testing.assert_array_equal(dense.assignment_, sparse.assignment_)
    np.testing.assert_allclose(dense.decision_function(Xte), sparse.decision_function(sp.csr_matrix(Xte)), atol=1e-9)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_experts=0), "n_experts"), (dict(gater="soft"), "gater"), (dict(backend="mpi"), "backend"),
    (dict(expert="nope"), "unknown expert 'nope'"), (dict(capacity=10), "capacity"),
    (dict(validation_fraction=1.5), "validation_fraction"), (dict(expert_params=[1]), "expert_params"),
    (dict(gater_candidates=0), "gater_candidates"), (dict(n_jobs=0), "n_jobs"),
])
def test_bad_parameters(forest, kwargs, match):
    Xtr, ytr, _, _ = forest
    with pytest.raises(ValueError, match=match):
        lm.MixtureSVC(**{"n_experts": 4, **kwargs}).fit(Xtr[:400], ytr[:400])


def test_bad_data_leaves_the_model(forest):
    Xtr, ytr, Xte, _ = forest
    mix = lm.MixtureSVC(n_experts=2, C=10, gamma=0.1, random_state=0, max_iter=1).fit(Xtr[:600], ytr[:600])
    before = mix.decision_function(Xte)
    bad = Xtr[:600].copy()
    bad[3, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        mix.fit(bad, ytr[:600])
    with pytest.raises(ValueError, match="two classes"):
        mix.fit(Xtr[:600], np.zeros(600))
    with pytest.raises(ValueError, match="features"):
        mix.predict(Xte[:, :5])
    np.testing.assert_array_equal(mix.decision_function(Xte), before)


def test_plugin_expert_trains():
    pytest.importorskip("largemargin_sklearn_experts")
    X, y = lm.make_forest_like(1500, random_state=4)
    mix = lm.MixtureSVC(n_experts=3, expert="knn", expert_params={"n_neighbors": 7}, random_state=0, max_iter=2)
    mix.fit(X[:1200], y[:1200])
    from sklearn.neighbors import KNeighborsClassifier

    assert all(isinstance(e.model, KNeighborsClassifier) for e in mix.experts_)
    assert np.mean(mix.predict(X[1200:]) != y[1200:]) < 0.35


@pytest.mark.parametrize("Mixture", [lm.MixtureSVC, lm.MixtureSVR])
def test_fewer_examples_than_experts_need(Mixture):
    """n_experts=10 on 15 examples: 7 experts of two examples, not an error."""
    rng = np.random.RandomState(0)
    X = rng.randn(15, 3)
    y = np.where(X[:, 0] > 0, 1, 0) if Mixture is lm.MixtureSVC else X[:, 0]
    mix = Mixture(n_experts=10, random_state=0).fit(X, y)
    assert len(mix.experts_) == 7
    assert mix.predict(X).shape == (15,)
    with pytest.raises(ValueError, match="n_samples=1"):
        lm.MixtureSVR().fit(X[:1], X[:1, 0])


def test_one_class_is_refused():
    X = np.random.RandomState(0).randn(30, 2)
    with pytest.raises(ValueError, match="two classes or more: y has 1 class"):
        lm.MixtureSVC().fit(X, np.ones(30))


def test_dask_without_a_client(forest):
    pytest.importorskip("distributed")
    Xtr, ytr, _, _ = forest
    with pytest.raises(ValueError, match="Client"):
        lm.MixtureSVC(n_experts=2, backend="dask").fit(Xtr[:300], ytr[:300])


# ---- Ctrl-C -------------------------------------------------------------------------------------

@pytest.mark.parametrize("phase, delay", [("experts", 2.0), ("gater", 1.0), ("dask", 2.0)])
def test_ctrl_c_stops_the_whole_fit(phase, delay):
    """SIGINT while the experts train on worker threads (which Python's signal handling never
    reaches), while the gater trains, and while Dask tasks run: the fit raises KeyboardInterrupt
    soon after, and the process ends without waiting for the experts."""
    import signal
    import subprocess
    import sys
    import time

    if phase == "dask":
        pytest.importorskip("distributed")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([HERE] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]))
    proc = subprocess.Popen([sys.executable, os.path.join(HERE, "helpers", "mixture_interrupt.py"), phase], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.strip() == "ready", line + proc.stderr.read()
        time.sleep(delay)
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=600)  # a guard against a hang, not a bound
        exited = time.time() - sent
    finally:
        proc.kill()
        proc.wait()
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert proc.returncode != 0
    assert "interrupted " in out  # the fit raised KeyboardInterrupt with no expert training any more
    stopped = float(out.split("interrupted ")[1].split()[0]) - sent
    # how fast is measured, not asserted (benches/interrupt.py): a loaded machine makes a bound flaky
    print(f"\nCtrl-C during the {phase}: the fit stopped after {stopped:.2f} s, the process exited after {exited:.2f} s")


# ---- Dask ---------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    import dask

    os.environ["PYTHONPATH"] = os.pathsep.join([HERE] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    # (the Active Memory Manager, on by default, drops the blocks' second copies within seconds:
    # the killed-worker test checks the fit with two copies of every block, as the docs state)
    with dask.config.set({"distributed.scheduler.allowed-failures": 2,
                          "distributed.scheduler.active-memory-manager.start": False}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        c = distributed.Client(cluster)
        yield c
        c.close()
        cluster.close()


def test_fitted_with_a_client_pickles_clones_and_grid_searches(forest):
    """A Client is a connection: the fitted estimator keeps none, a clone shares it, a pickle
    leaves it out; an address string is an ordinary parameter."""
    distributed = pytest.importorskip("distributed")
    import pickle

    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV

    Xtr, ytr, Xte, _ = forest
    X, y = Xtr[:400], ytr[:400]
    params = dict(n_experts=2, max_iter=2, C=10, gamma=0.1, random_state=0, backend="dask")
    with distributed.LocalCluster(processes=False, n_workers=1, threads_per_worker=2, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        mix = lm.MixtureSVC(**params, client=client).fit(X, y)
        again = pickle.loads(pickle.dumps(mix))
        assert again.client is None  # the current client at its next fit
        np.testing.assert_array_equal(again.predict(Xte), mix.predict(Xte))
        twin = clone(mix)
        assert twin.client is client and not hasattr(twin, "experts_")
        assert twin.get_params()["C"] == 10
        search = GridSearchCV(mix, {"C": [1, 10]}, cv=2).fit(X, y)
        assert search.best_estimator_.client is client
        assert search.predict(Xte).shape == (len(Xte),)
        # a scheduler address: a client of its own for the fit, kept by pickles
        by_address = lm.MixtureSVC(**params, client=cluster.scheduler_address).fit(X, y)
        np.testing.assert_allclose(by_address.decision_function(Xte), mix.decision_function(Xte), rtol=1e-10, atol=1e-12)
        assert pickle.loads(pickle.dumps(by_address)).client == cluster.scheduler_address
        with pytest.raises(ValueError, match="client must be"):
            lm.MixtureSVC(**params, client=42).fit(X, y)
    # refitting after the client was closed: a message, not KeyError('workers'), and the model kept
    before = pickle.dumps(mix)
    with pytest.raises(ValueError, match="client .* is closed"):
        mix.fit(X, y)
    assert pickle.dumps(mix) == before


def test_fits_of_the_same_data_hold_blocks_of_their_own(client, forest):
    """Two fits of the same rows (a refit, a second client) must not share scattered blocks: the
    first fit's cancel at its close would take them from the second one mid-fit."""
    from largemargin.mixture_backends import DaskBackend

    Xtr, ytr, _, _ = forest
    first = DaskBackend(client, Xtr[:300], ytr[:300])
    second = DaskBackend(client, Xtr[:300], ytr[:300])
    try:
        assert not {f.key for f in first.Xb + first.yb} & {f.key for f in second.Xb + second.yb}
        first.close()
        assert np.array_equal(second.rows(np.arange(300)), Xtr[:300])
    finally:
        second.close()


def test_dask_gives_the_thread_model(client, forest):
    Xtr, ytr, Xte, _ = forest
    # (4 experts, 3 candidates each: the candidate path as well)
    params = dict(n_experts=4, gater_candidates=3, C=10, gamma=0.1, random_state=7, max_iter=3)
    threads = lm.MixtureSVC(**params).fit(Xtr[:2000], ytr[:2000])
    on_dask = lm.MixtureSVC(**params, backend="dask", client=client).fit(Xtr[:2000], ytr[:2000])
    np.testing.assert_array_equal(on_dask.assignment_, threads.assignment_)
    # the standardization's sums are taken per block on Dask: equal up to rounding
    np.testing.assert_allclose(on_dask.decision_function(Xte), threads.decision_function(Xte), rtol=1e-10, atol=1e-12)
    import dask.array as da

    from_array = lm.MixtureSVC(**params, backend="dask", client=client).fit(
        da.from_array(Xtr[:2000], chunks=(700, 54)), da.from_array(ytr[:2000], chunks=700))
    np.testing.assert_array_equal(from_array.assignment_, threads.assignment_)


def test_dask_dataframe_and_local_gater(client, forest):
    pytest.importorskip("pandas")
    import dask.dataframe as dd
    import pandas as pd

    Xtr, ytr, Xte, _ = forest
    params = dict(n_experts=3, gater="local", n_gaussians=2, C=10, gamma=0.1, random_state=2, max_iter=2)
    threads = lm.MixtureSVC(**params).fit(Xtr[:1500], ytr[:1500])
    frame = dd.from_pandas(pd.DataFrame(Xtr[:1500], columns=[f"f{i}" for i in range(54)]), npartitions=3)
    target = dd.from_pandas(pd.Series(ytr[:1500]), npartitions=3)
    on_dask = lm.MixtureSVC(**params, backend="dask", client=client).fit(frame, target)
    np.testing.assert_array_equal(on_dask.assignment_, threads.assignment_)
    np.testing.assert_allclose(on_dask.predict_proba(Xte), threads.predict_proba(Xte), rtol=1e-9, atol=1e-12)


def test_a_killed_worker_does_not_lose_the_model(client, forest, tmp_path):
    from helpers.mixture import KillingPlugin

    Xtr, ytr, Xte, _ = forest
    registry = get_registry()
    registry.register(KillingPlugin(str(tmp_path / "killed")), name="killing-test")
    try:
        params = dict(n_experts=2, C=10, gamma=0.1, random_state=3, max_iter=2)
        ref = lm.MixtureSVC(**params).fit(Xtr[:1000], ytr[:1000])
        same = dict(expert_params=dict(C=10, gamma=0.1), backend="dask", client=client)
        once = lm.MixtureSVC(**params, expert="svc_killed_once", **same).fit(Xtr[:1000], ytr[:1000])
        assert (tmp_path / "killed").exists()  # a worker did die during the fit
        np.testing.assert_array_equal(once.assignment_, ref.assignment_)
        np.testing.assert_allclose(once.decision_function(Xte), ref.decision_function(Xte), rtol=1e-10, atol=1e-12)
        # a task that kills every worker it lands on: a clear error, and the fitted model stays
        with pytest.raises(RuntimeError, match="workers died"):
            once.set_params(expert="svc_always_killed").fit(Xtr[:1000], ytr[:1000])
        np.testing.assert_allclose(once.decision_function(Xte), ref.decision_function(Xte), rtol=1e-10, atol=1e-12)
    finally:
        registry.unregister("killing-test")
        client.wait_for_workers(2, timeout=60)


def test_a_gater_too_wide_to_densify_is_refused_before_allocating(monkeypatch):
    # 2,000 x 10^7 sparse rows (0.24 MB): the dense gater input would be 149 GiB (numpy's
    # MemoryError before); the message names the size and what to do
    import largemargin.mixture_experts as mx

    monkeypatch.setattr(mx, "physical_memory", lambda: 24 << 30)
    rng = np.random.default_rng(0)
    n, d = 2000, 10_000_000
    X = sp.csr_matrix((np.ones(n * 5), rng.integers(0, d, n * 5), np.arange(0, n * 5 + 1, 5)), shape=(n, d))
    X.sum_duplicates()
    with pytest.raises(ValueError, match=r"596\.0 GiB in dense copies.*TruncatedSVD"):
        lm.MixtureSVC(n_experts=2).fit(X, rng.integers(0, 2, n))


def test_n_jobs_none_means_every_core_as_elsewhere():
    from largemargin._checks import effective_n_jobs
    from largemargin._threads import default_threads

    for n_jobs in (None, -1, 1, 2):
        assert lm.MixtureSVC(n_jobs=n_jobs)._threads() == effective_n_jobs(n_jobs) == lm.MixtureSVR(n_jobs=n_jobs)._threads()
    assert effective_n_jobs(None) == default_threads()


def test_verbose_names_each_pair_and_prints_only_what_was_measured(capsys, monkeypatch):
    from largemargin import _progress

    monkeypatch.setattr(_progress, "_configured", lambda: False)  # printed, as without logging set up
    rng = np.random.RandomState(0)
    X = rng.normal(size=(900, 4))
    y = np.array(["a", "b", "c"])[np.argmax(X[:, :3], axis=1)]
    lm.MixtureSVC(n_experts=2, max_iter=2, random_state=0, verbose=True).fit(X, y)
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split("]")[0] for ln in lines[::2]] == ["[mixture 'a' vs 'b'", "[mixture 'a' vs 'c'", "[mixture 'b' vs 'c'"]
    assert not any("nan" in ln for ln in lines)
    assert "moved" in lines[0] and "moved" not in lines[1]  # no reassignment after the last round


def test_composed_and_plugin_kernels_reach_the_experts(forest):
    # gamma parametrises the built-in kernels only: a composed or plugin kernel carries its own,
    # and the experts get it without one
    from largemargin.kernels import RBF, Linear

    Xtr, ytr, Xte, yte = forest
    Xtr, ytr = Xtr[:1200], ytr[:1200]
    kernel = RBF(0.1) + 0.5 * Linear()
    mix = lm.MixtureSVC(kernel=kernel, n_experts=2, max_iter=2, random_state=0).fit(Xtr, ytr)
    assert all(e.model.kernel == kernel for e in mix.experts_ if e.model is not None)
    assert np.mean(mix.predict(Xte) == yte) > 0.6
