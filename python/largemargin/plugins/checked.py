"""A plugin's loss, selection strategy or expert as the library calls it: only finite numbers
reach the plugin, what it returns is checked, and any failure is a `PluginError` that names the
plugin and chains the original exception. (Kernels get the same from `CheckedKernel`.)"""

import numbers

import numpy as np

from .python_kernels import PluginError


class _Checked:
    kind = "plugin"

    def __init__(self, name, plugin, impl):
        self.name, self.plugin, self.impl = name, plugin, impl

    def _where(self):
        return f"{self.kind} {self.name!r} of plugin {self.plugin!r}" if self.plugin else f"{self.kind} {self.name!r}"

    def __repr__(self):
        return self._where()

    def _call(self, what, function, /, *args, **kwargs):
        return call(self._where(), what, function, *args, **kwargs)


class CheckedLoss(_Checked):
    """A Python loss as the SGD solvers call it. Each step calls the plugin's own ``dloss(f, y)``
    on two floats (the native adapter calls it directly, and checks that the answer is a finite
    number); the objective calls `losses` on arrays of a block of examples. Every failure becomes
    a PluginError naming the plugin (`error`)."""

    kind = "loss"

    def __init__(self, name, plugin, impl):
        super().__init__(name, plugin, impl)
        for method in ("loss", "dloss"):
            if not callable(getattr(impl, method, None)):
                raise PluginError(f"{self._where()} has no {method}(f, y) method")

    def losses(self, f, y):
        """loss(f, y) on float64 arrays of decision values and labels: a float64 array of their
        shape, every value finite."""
        what = f"loss(f, y) on arrays of {len(f)} examples"
        out = self._call(what, self.impl.loss, f, y)
        try:
            out = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise PluginError(f"{self._where()}: {what} returned {out!r:.60}, not numbers") from None
        if out.shape != f.shape:
            raise PluginError(f"{self._where()}: {what} returned shape {out.shape}, expected {f.shape} (a loss "
                              "must be vectorised: numpy operations on arrays)")
        bad = np.flatnonzero(~np.isfinite(out))
        if len(bad):
            k = bad[0]
            raise PluginError(f"{self._where()}: loss({f[k]!r}, {y[k]!r}) returned {out[k]}")
        return out

    def error(self, what, value=None, cause=None):
        """The PluginError for a step's call `what`, which raised `cause` or returned `value`."""
        if cause is not None:
            error = PluginError(f"{self._where()}: {what} raised {type(cause).__name__}: {cause}")
            error.__cause__ = cause
            return error
        number = isinstance(value, numbers.Real) and not isinstance(value, bool)
        return PluginError(f"{self._where()}: {what} returned {value!r:.60}{'' if number else ', not a number'}")


class CheckedStrategyFactory(_Checked):
    """A selection-strategy factory ``make(random_state)``; the strategies it makes are checked."""

    kind = "selection strategy"

    def __call__(self, random_state):
        strategy = self._call("making a strategy", self.impl, random_state=random_state)
        n = getattr(strategy, "n_candidates", None)
        if not callable(getattr(strategy, "choose", None)) or not isinstance(n, numbers.Integral) or n < 1:
            raise PluginError(f"{self._where()} made {strategy!r:.80}, which lacks choose() or a positive n_candidates")
        return _CheckedStrategy(self.name, self.plugin, strategy)


class _CheckedStrategy(_Checked):
    kind = "selection strategy"

    @property
    def n_candidates(self):
        return int(self.impl.n_candidates)

    def choose(self, decision, labels):
        k = self._call("choose", self.impl.choose, decision, labels)
        if k is None:
            return None
        if not isinstance(k, (numbers.Integral, np.integer)) or isinstance(k, bool) or not 0 <= k < len(decision):
            raise PluginError(f"{self._where()}: choose returned {k!r:.60} for {len(decision)} candidates "
                              "(an index among them, or None)")
        return int(k)


class CheckedExpertFactory(_Checked):
    """An expert factory: a function ``make(**params)`` or an object with such a ``make``. The
    mixture calls the estimators it makes through `call` and checks their outputs with
    `check_outputs`, naming the plugin (the estimators themselves stay as they are)."""

    kind = "expert"

    def make(self, **params):
        maker = getattr(self.impl, "make", self.impl)
        model = self._call("make", maker, **params)
        if not callable(getattr(model, "fit", None)):
            raise PluginError(f"{self._where()}: make returned {model!r:.60}, not an estimator with fit")
        return model


def call(where, what, function, /, *args, **kwargs):
    """function(*args, **kwargs); an exception becomes a PluginError naming `where` (None: a
    built-in, whose exceptions are left as they are)."""
    try:
        return function(*args, **kwargs)
    except PluginError:
        raise
    except Exception as e:
        if where is None:
            raise
        raise PluginError(f"{where}: {what} raised {type(e).__name__}: {e}") from e


def check_outputs(where, what, out, rows):
    """`out`, if it holds one finite number per row; else a PluginError naming `where`."""
    out = np.asarray(out)
    if where is not None and (out.shape[:1] != (rows,) or out.dtype.kind not in "fiub" or not np.all(np.isfinite(out))):
        raise PluginError(f"{where}: {what} gave {out.dtype} of shape {out.shape} (not finite numbers, one per row of {rows})")
    return out
