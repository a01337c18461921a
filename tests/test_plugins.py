"""The plugin door: hooks, the registry, entry points that fail, and a third-party kernel in SVC."""

import subprocess
import sys

import numpy as np
import pytest

import largemargin as lm
from largemargin.plugins import NativeKernel, Registry, get_registry, hookimpl


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
        with pytest.raises(ValueError, match="'chi2_test' is registered by both 'histogram-test' and 'histogram-copy'"):
            registry.available("kernel")
    finally:
        registry.unregister("histogram-copy")


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
