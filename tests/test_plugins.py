"""The plugin door: hooks, the registry, entry points that fail, and a third-party kernel in SVC."""

import subprocess
import sys

import numpy as np
import pytest

import largemargin as lm
from largemargin.plugins import BlockKernel, NativeKernel, Registry, get_registry, hookimpl


def chi2(A, B, gamma=0.5):
    """Exponential chi-square kernel on non-negative histograms."""
    A, B = np.asarray(A, float), np.asarray(B, float)
    num = (A[:, None, :] - B[None, :, :]) ** 2
    den = A[:, None, :] + B[None, :, :]
    d = np.divide(num, den, out=np.zeros_like(num), where=den > 0).sum(-1)
    return np.exp(-gamma * d)


class HistogramPlugin:
    @hookimpl
    def largemargin_kernels(self):
        return {"chi2_test": chi2}


@pytest.fixture
def plugin():
    registry = get_registry()
    registry.register(HistogramPlugin(), name="histogram-test")
    yield
    registry.unregister("histogram-test")


def test_builtins_come_through_the_hooks():
    kernels = get_registry().available("kernel")
    assert {"linear", "poly", "rbf", "sigmoid", "precomputed"} <= set(kernels)
    assert kernels["rbf"] == (NativeKernel("rbf"), "largemargin.builtin")


def test_a_plugin_kernel_equals_its_precomputed_gram_matrix(plugin, digits):
    Xtr, ytr, Xte, _ = digits
    Xtr, Xte, ytr = Xtr[:300], Xte[:100], ytr[:300]
    ours = lm.SVC(kernel="chi2_test", C=3).fit(Xtr, ytr)
    ref = lm.SVC(kernel="precomputed", C=3).fit(chi2(Xtr, Xtr), ytr)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(chi2(Xte, Xtr)), atol=1e-10)


def test_unknown_and_duplicate_names_are_reported(plugin):
    with pytest.raises(ValueError, match="unknown kernel 'chi9'; registered: .*chi2_test.*linear"):
        lm.SVC(kernel="chi9").fit(np.eye(2), [0, 1])
    registry = get_registry()
    registry.register(HistogramPlugin(), name="histogram-copy")
    try:
        # a clash makes that one name unusable, and only that one
        with pytest.raises(ValueError, match="'chi2_test' is registered by both 'histogram-copy' and 'histogram-test'"):
            lm.SVC(kernel="chi2_test").fit(np.eye(2), [0, 1])
        assert "chi2_test" not in registry.available("kernel")
        assert registry.clashes("kernel") == {"chi2_test": ["histogram-copy", "histogram-test"]}
        lm.SVC().fit(np.eye(2), [0, 1])
        from largemargin import cli

        assert cli.main(["plugins"]) == 1
    finally:
        registry.unregister("histogram-copy")


def test_misspelled_and_unmarked_hooks_are_refused():
    class Misspelled:
        @hookimpl
        def largemargin_kernel(self):
            return {}

    class Unmarked:
        def largemargin_kernels(self):
            return {}

    registry = Registry(entry_points=[_EntryPoint("typo", Misspelled), _EntryPoint("unmarked", Unmarked)])
    reasons = {f.plugin: f.reason for f in registry.failures}
    assert "did you mean largemargin_kernels" in reasons["typo"]
    assert "not marked" in reasons["unmarked"]
    with pytest.raises(ValueError, match="plugin 'typo' failed to load"):
        registry.resolve("kernel", "anything")


def test_blocked_plugins_are_left_out():
    registry = Registry(entry_points=[_EntryPoint("histograms", HistogramPlugin)])
    assert "chi2_test" in registry.available("kernel")
    registry.manager.set_blocked("histograms")
    assert "chi2_test" not in registry.available("kernel")


class _EntryPoint:
    def __init__(self, name, load):
        self.name, self._load = name, load

    def load(self):
        return self._load()


def test_a_plugin_that_fails_to_load_does_not_break_the_others():
    def broken():
        raise ImportError("no module named 'missing_dependency'")

    class BadHook:
        @hookimpl
        def largemargin_kernels(self):
            return ["not", "a", "dict"]

    registry = Registry(entry_points=[
        _EntryPoint("broken", broken),
        _EntryPoint("bad-hook", BadHook),
        _EntryPoint("good", HistogramPlugin),
    ])
    assert [f.plugin for f in registry.failures] == ["broken", "bad-hook"]
    assert "missing_dependency" in registry.failures[0].reason
    assert "must return a dict" in registry.failures[1].reason
    assert "chi2_test" in registry.available("kernel")


def test_cli_lists_plugins():
    r = subprocess.run([sys.executable, "-m", "largemargin.cli", "plugins"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "largemargin.builtin: kernels: linear, poly, precomputed, rbf, sigmoid" in r.stdout


class MisbehavingPlugin:
    @hookimpl
    def largemargin_kernels(self):
        def raises(A, B):
            raise ZeroDivisionError("bad bin")

        return {
            "raises": raises,
            "wrong_shape": lambda A, B: np.zeros((len(A), len(B) + 1)),
            "nan": lambda A, B: np.full((len(A), len(B)), np.nan),
            "strings": lambda A, B: np.full((len(A), len(B)), "x"),
        }


@pytest.mark.parametrize(
    "name, message",
    [
        ("raises", "kernel 'raises' of plugin 'misbehaving' raised ZeroDivisionError: bad bin"),
        ("wrong_shape", r"kernel 'wrong_shape' of plugin 'misbehaving' returned shape \(20, 21\), expected \(20, 20\)"),
        ("nan", "kernel 'nan' of plugin 'misbehaving' returned NaN or infinite values"),
        ("strings", "kernel 'strings' of plugin 'misbehaving' returned dtype <U1, expected real numbers"),
    ],
)
def test_a_misbehaving_plugin_kernel_gets_a_clear_error(name, message):
    from largemargin.plugins import PluginError

    registry = get_registry()
    registry.register(MisbehavingPlugin(), name="misbehaving")
    try:
        with pytest.raises(PluginError, match=message) as info:
            lm.SVC(kernel=name).fit(np.random.RandomState(0).rand(20, 3), [0, 1] * 10)
        if name == "raises":
            assert isinstance(info.value.__cause__, ZeroDivisionError)  # the original traceback is kept
    finally:
        registry.unregister("misbehaving")


# ------------------------------------------------------------------ composed kernels

def _reference_composed(A, B):
    """RBF(0.02) + 0.5 * Linear() * Poly(2, 0.01, 1) + Constant(0.3), written out with scikit-learn."""
    from sklearn.metrics.pairwise import linear_kernel, polynomial_kernel, rbf_kernel

    return (rbf_kernel(A, B, gamma=0.02) + 0.5 * linear_kernel(A, B) * polynomial_kernel(A, B, degree=2, gamma=0.01, coef0=1)
            + 0.3)


def _composed():
    from largemargin.kernels import RBF, Constant, Linear, Poly

    return RBF(0.02) + 0.5 * Linear() * Poly(2, gamma=0.01, coef0=1) + Constant(0.3)


def test_a_composed_kernel_computes_its_definition(digits):
    import scipy.sparse as sp

    Xtr, _, Xte, _ = digits
    k = _composed()
    want = _reference_composed(Xte[:50], Xtr[:300])
    np.testing.assert_allclose(k(Xte[:50], Xtr[:300]), want, rtol=1e-12)
    np.testing.assert_allclose(k(sp.csr_matrix(Xte[:50]), Xtr[:300]), want, rtol=1e-12)
    np.testing.assert_allclose(k(Xte[:50].astype(np.float32), sp.csr_matrix(Xtr[:300])), want, rtol=1e-5)


def test_svc_with_a_composed_kernel_equals_its_precomputed_gram_matrix(digits):
    import scipy.sparse as sp

    Xtr, ytr, Xte, _ = digits
    Xtr, ytr, Xte = Xtr[:400], ytr[:400], Xte[:100]
    ref = lm.SVC(kernel="precomputed", C=0.01).fit(_reference_composed(Xtr, Xtr), ytr)
    for X in (Xtr, sp.csr_matrix(Xtr)):
        ours = lm.SVC(kernel=_composed(), C=0.01).fit(X, ytr)
        assert ours._composed_kernel is not None
        np.testing.assert_array_equal(ours.support_, ref.support_)
        np.testing.assert_allclose(ours.dual_coef_.toarray() if sp.issparse(ours.dual_coef_) else ours.dual_coef_,
                                   ref.dual_coef_, atol=1e-6)
        np.testing.assert_allclose(ours.decision_function(Xte), ref.decision_function(_reference_composed(Xte, Xtr)),
                                   atol=1e-5)


def test_svr_with_a_composed_kernel():
    from largemargin.kernels import RBF, Linear

    rng = np.random.RandomState(1)
    X = rng.rand(200, 3)
    y = np.sin(3 * X[:, 0]) + X[:, 1]
    k = RBF(2.0) + 0.1 * Linear()
    ours = lm.SVR(kernel=k, C=10, epsilon=0.05).fit(X, y)
    ref = lm.SVR(kernel="precomputed", C=10, epsilon=0.05).fit(k(X, X), y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.predict(X[:20]), ref.predict(k(X[:20], X)), atol=1e-6)


def test_kernel_algebra():
    from largemargin.kernels import RBF, Constant, Linear, Poly

    assert RBF(1.0) + 0 == RBF(1.0)
    assert sum([RBF(1.0), Linear()]) == RBF(1.0) + Linear()
    assert (2 * (RBF(1.0) + Linear())).terms() == [(2.0, [("rbf", 1.0, 0.0, 3)]), (2.0, [("linear", 1.0, 0.0, 1)])]
    prod = (RBF(1.0) + Linear()) * (Poly(2) + Constant(3.0))
    assert len(prod.terms()) == 4 and (3.0, [("rbf", 1.0, 0.0, 3)]) in prod.terms()
    assert "RBF(1.0) + Linear()" in repr(RBF(1.0) + Linear())
    for bad in (lambda: -0.5 * Linear(), lambda: RBF(0), lambda: RBF(float("nan")), lambda: Poly(-1), lambda: 0 * RBF(1.0)):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(TypeError):
        RBF(1.0) + "rbf"


class ComposedPlugin:
    @hookimpl
    def largemargin_kernels(self):
        from largemargin.kernels import RBF, Linear

        return {"rbf_plus_linear": RBF(0.02) + 0.5 * Linear()}


def test_a_plugin_can_register_a_composed_kernel(digits, tmp_path):
    from largemargin.kernels import RBF, Linear
    from largemargin.model_io import save_libsvm_model

    registry = get_registry()
    registry.register(ComposedPlugin(), name="composed-test")
    try:
        Xtr, ytr, Xte, _ = digits
        by_name = lm.SVC(kernel="rbf_plus_linear").fit(Xtr[:300], ytr[:300])
        assert by_name._composed_kernel == RBF(0.02) + 0.5 * Linear()  # computed natively, not called from Python
        direct = lm.SVC(kernel=RBF(0.02) + 0.5 * Linear()).fit(Xtr[:300], ytr[:300])
        np.testing.assert_array_equal(by_name.decision_function(Xte), direct.decision_function(Xte))
        with pytest.raises(ValueError, match="built-in kernels only.*rbf_plus_linear.*pickle"):
            save_libsvm_model(by_name, tmp_path / "m.model")
    finally:
        registry.unregister("composed-test")


# ------------------------------------------------------------------ Python kernels through the adapter

class Recorder:
    """A linear kernel that records the shape of every block it is asked for, and can fail on call k."""

    def __init__(self, fail_at=None, result=None):
        self.shapes, self.fail_at, self.result = [], fail_at, result

    def __call__(self, A, B):
        self.shapes.append((len(A), len(B)))
        if self.fail_at is not None and len(self.shapes) >= self.fail_at:
            if self.result is not None:
                return self.result(A, B)
            raise KeyError("lost the vocabulary")
        return np.asarray(A) @ np.asarray(B).T


def test_a_python_kernel_is_called_on_row_segments(digits):
    Xtr, ytr, _, _ = digits
    Xtr, ytr = Xtr[:600] / 16, ytr[:600]
    k = Recorder()
    model = lm.SVC(kernel=k, C=1).fit(Xtr, ytr)
    ref = lm.SVC(kernel="linear", C=1).fit(Xtr, ytr)
    np.testing.assert_array_equal(model.support_, ref.support_)
    training = k.shapes[: len(k.shapes)]
    rows = [s for s in training if s[0] == 1]
    assert len(rows) > 0 and all(s[0] == 1 or s[0] == s[1] for s in training)  # rows, or diagonal blocks
    assert sum(a * b for a, b in training) >= model.n_kernel_evals_
    assert len(training) < model.n_kernel_evals_ / 50  # segments, not single values


@pytest.mark.parametrize(
    "result, error, message",
    [
        (None, KeyError, "kernel Recorder raised KeyError: 'lost the vocabulary'"),
        (lambda A, B: np.zeros((len(A), len(B) - 1)), None, r"kernel Recorder returned shape \(1, \d+\), expected \(1, \d+\)"),
        (lambda A, B: np.full((len(A), len(B)), np.inf), None, "kernel Recorder returned NaN or infinite values"),
    ],
)
def test_a_python_kernel_failing_during_the_fit_stops_it_with_its_error(digits, result, error, message):
    from largemargin.plugins import PluginError

    Xtr, ytr, _, _ = digits
    k = Recorder(fail_at=40, result=result)
    k.__name__ = "Recorder"
    with pytest.raises(PluginError, match=message) as info:
        lm.SVC(kernel=k, C=1, n_jobs=2).fit(Xtr[:600] / 16, ytr[:600])
    if error is not None:
        assert isinstance(info.value.__cause__, error)
    # the first failure stops the run: the pairs running in parallel make at most one call each
    assert len(k.shapes) <= 40 + 2


def test_the_gil_is_free_while_a_python_kernel_fit_runs(digits):
    import threading

    Xtr, ytr, _, _ = digits
    ticks, done = [0], threading.Event()

    def tick():
        while not done.is_set():
            ticks[0] += 1

    t = threading.Thread(target=tick)
    t.start()
    try:
        lm.SVC(kernel=lambda A, B: np.asarray(A) @ np.asarray(B).T, C=1).fit(Xtr[:800] / 16, ytr[:800])
    finally:
        done.set()
        t.join()
    assert ticks[0] > 1000


class BlockLinear(BlockKernel):
    """A linear kernel with the squared norms of B prepared (unused: to exercise the cache)."""

    def prepare(self, B):
        return np.einsum("ij,ij->i", B, B)

    def block(self, A, B, prepared):
        assert prepared.shape == (len(B),)
        return np.asarray(A) @ np.asarray(B).T


class CountingCosine(BlockKernel):
    """A cosine kernel that counts its prepare() calls and checks that every block gets the
    prepared rows of its own B."""

    def __init__(self):
        self.prepared_sizes = []

    def prepare(self, B):
        self.prepared_sizes.append(len(B))
        return 1.0 / np.maximum(np.linalg.norm(B, axis=1), 1e-12)

    def block(self, A, B, inverse_norms):
        assert inverse_norms.shape == (len(B),)
        A = np.asarray(A)
        inverse_a = 1.0 / np.maximum(np.linalg.norm(A, axis=1), 1e-12)
        return (A @ np.asarray(B).T) * inverse_a[:, None] * inverse_norms[None, :]


def test_prepare_runs_once_per_training_set_and_once_per_prediction(digits):
    """10 classes: 45 one-vs-one problems asking for row segments of their own subsets (B is
    then a new object on each call), and still one prepare() for the fit."""
    Xtr, ytr, Xte, _ = digits
    Xtr, ytr, Xte = Xtr[:700] / 16, ytr[:700], Xte[:1100] / 16
    k = CountingCosine()
    model = lm.SVC(kernel=k, C=10, n_jobs=2).fit(Xtr, ytr)
    assert len(np.unique(ytr)) == 10 and k.prepared_sizes == [len(Xtr)]
    ref = lm.SVC(kernel="precomputed", C=10).fit(CountingCosine()(Xtr, Xtr), ytr)
    np.testing.assert_array_equal(model.support_, ref.support_)
    k.prepared_sizes.clear()
    model.predict(Xte)  # three blocks of rows, one preparation of the support vectors
    assert k.prepared_sizes == [len(model.support_)]
    np.testing.assert_allclose(model.decision_function(Xte), ref.decision_function(CountingCosine()(Xte, Xtr)), atol=1e-6)


def test_models_with_composed_and_python_kernels_pickle(digits):
    import pickle

    from largemargin.kernels import RBF, Linear

    Xtr, ytr, Xte, _ = digits
    for kernel in (RBF(0.02) + 0.5 * Linear(), BlockLinear()):
        model = lm.SVC(kernel=kernel).fit(Xtr[:300] / 16, ytr[:300])
        again = pickle.loads(pickle.dumps(model))
        np.testing.assert_array_equal(again.decision_function(Xte / 16), model.decision_function(Xte / 16))


def test_a_strategy_that_declines_everything_ends_the_pass():
    """choose() returning None keeps its candidates in the pool; declining everything left ends
    the online pass instead of spinning (a hang here fails through the timeout)."""
    code = (
        "import numpy as np, largemargin as lm\n"
        "from largemargin.plugins import get_registry, hookimpl\n"
        "class Never:\n"
        "    n_candidates = 5\n"
        "    def choose(self, decision, labels):\n"
        "        return None\n"
        "class Plugin:\n"
        "    @hookimpl\n"
        "    def largemargin_selection_strategies(self):\n"
        "        return {'never': lambda random_state: Never()}\n"
        "get_registry().register(Plugin(), name='never')\n"
        "X = np.random.default_rng(0).random((300, 3)); y = np.where(X[:, 0] > 0.5, 1, -1)\n"
        "m = lm.LaSVM(selection='never', random_state=0).fit(X, y)\n"
        "print('support vectors', len(m.support_))\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "support vectors" in r.stdout, r.stderr


def test_builtin_kernel_parameters_are_not_ignored_in_silence(plugin, digits):
    Xtr, ytr, _, _ = digits
    for params in (dict(gamma=123), dict(degree=5), dict(coef0=1.0)):
        with pytest.raises(ValueError, match=f"{next(iter(params))} set for the kernel 'chi2_test'"):
            lm.SVC(kernel="chi2_test", **params).fit(Xtr[:50], ytr[:50])
    from largemargin.kernels import RBF

    with pytest.raises(ValueError, match="gamma set for the kernel RBF"):
        lm.SVR(kernel=RBF(0.5), gamma=2.0).fit(Xtr[:50], ytr[:50].astype(float))


def test_a_plugin_kernel_model_checks_the_width_itself(plugin, digits):
    Xtr, ytr, Xte, _ = digits
    m = lm.SVC(kernel="chi2_test").fit(Xtr[:100], ytr[:100])
    assert m.n_features_in_ == Xtr.shape[1]
    with pytest.raises(ValueError, match="X has 10 features, but SVC is expecting 64"):
        m.predict(Xte[:5, :10])  # refused before the plugin sees it


class FailingHooks:
    """A plugin whose strategy and experts misbehave in the ways users' code does."""

    @hookimpl
    def largemargin_selection_strategies(self):
        class Raises:
            n_candidates = 3

            def choose(self, decision, labels):
                return 1 // 0

        class Garbage(Raises):
            def choose(self, decision, labels):
                return "first"

        return {"raises": lambda random_state: Raises(), "garbage": lambda random_state: Garbage()}

    @hookimpl
    def largemargin_experts(self):
        from sklearn.linear_model import LogisticRegression

        class FailsToFit(LogisticRegression):
            def fit(self, X, y):
                raise MemoryError("no room")

        class NaNs(LogisticRegression):
            def decision_function(self, X):
                return np.full(X.shape[0], np.nan)

        def logistic(**params):  # a factory function, as the hook's documentation allows
            return LogisticRegression()

        return {"fails": lambda **p: FailsToFit(), "nans": lambda **p: NaNs(), "logistic_function": logistic}


@pytest.fixture
def failing():
    registry = get_registry()
    registry.register(FailingHooks(), name="failing-hooks")
    yield
    registry.unregister("failing-hooks")


def test_every_hook_fails_as_a_plugin_error_naming_the_plugin(failing):
    from largemargin.plugins import PluginError

    X = np.random.default_rng(0).random((200, 3))
    y = np.where(X[:, 0] > 0.5, 1, -1)
    with pytest.raises(PluginError, match="selection strategy 'raises' of plugin 'failing-hooks': choose raised ZeroDivisionError"):
        lm.LaSVM(selection="raises").fit(X, y)
    with pytest.raises(PluginError, match="'garbage' of plugin 'failing-hooks': choose returned 'first'"):
        lm.LaSVM(selection="garbage").fit(X, y)
    with pytest.raises(PluginError, match="expert 'fails' of plugin 'failing-hooks': fit raised MemoryError: no room"):
        lm.MixtureSVC(expert="fails", n_experts=2, max_iter=1).fit(X, y)
    with pytest.raises(PluginError, match="expert 'nans' of plugin 'failing-hooks': decision_function gave"):
        lm.MixtureSVC(expert="nans", n_experts=2, max_iter=1).fit(X, y)
    mix = lm.MixtureSVC(expert="logistic_function", n_experts=2, max_iter=2).fit(X, y)
    assert mix.score(X, y) > 0.8


def test_a_non_callable_kernel_or_an_expert_that_is_not_an_estimator_names_its_plugin():
    # a kernel registered as 42 was accepted at load and then blamed on the user ("kernel must be
    # a name ..."); an expert factory returning None raised a raw AttributeError
    from largemargin.plugins import PluginError, hookimpl
    from largemargin.plugins.registry import Registry

    class Broken:
        @hookimpl
        def largemargin_kernels(self):
            return {"forty_two": 42}

        @hookimpl
        def largemargin_experts(self):
            return {"nothing": lambda **params: None}

    registry = Registry(entry_points=[])
    registry.register(Broken(), "broken-plugin")
    with pytest.raises(PluginError, match="kernel 'forty_two' of plugin 'broken-plugin' is 42"):
        registry.resolve("kernel", "forty_two")
    with pytest.raises(PluginError, match="expert 'nothing' of plugin 'broken-plugin'.*not an estimator"):
        registry.resolve("expert", "nothing").make(C=1.0)


def test_a_block_kernel_whose_prepare_does_not_match_its_rows_is_named():
    # prepare returning one entry for 400 rows broadcast silently; three entries failed in numpy
    # with the object's address as its name
    from largemargin.plugins import BlockKernel, PluginError

    class OneNorm(BlockKernel):
        def prepare(self, B):
            return np.ones(1)

        def block(self, A, B, prepared):
            return A @ B.T + prepared[None, :]

    class NoBlock(BlockKernel):
        pass

    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 3))
    y = (X[:, 0] > 0).astype(int)
    with pytest.raises(PluginError, match=r"OneNorm.*prepare returned \(1,\) for 40 rows"):
        lm.SVC(kernel=OneNorm()).fit(X, y)
    with pytest.raises(PluginError, match="NoBlock defines no block"):
        lm.SVC(kernel=NoBlock()).fit(X, y)


def test_register_refuses_a_hook_that_returns_no_dict_and_keeps_the_registry_whole():
    class ReturnsAList:
        @hookimpl
        def largemargin_kernels(self):
            return ["not", "a", "dict"]

    registry = Registry(entry_points=[])
    with pytest.raises(TypeError, match="must return a dict"):
        registry.register(ReturnsAList(), name="bad")
    assert registry.manager.get_plugin("bad") is None
    assert isinstance(registry.resolve("kernel", "rbf"), NativeKernel)
    assert [name for name, _ in registry.plugins()] == ["largemargin.builtin"]
