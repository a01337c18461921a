"""The plugin manager and the registry: loads the ``largemargin`` entry-point group, keeps the
plugins that fail to load out (with the reason), and resolves names to implementations."""

from dataclasses import dataclass

import pluggy

from .._compat import entry_points as installed_entry_points
from ..kernels import Kernel
from . import builtin, hookspecs
from .checked import CheckedExpertFactory, CheckedLoss, CheckedStrategyFactory
from .native import NativeExpert, NativeKernel, NativeLoss, NativeStrategy  # noqa: F401 - re-exported
from .python_kernels import CheckedKernel, PluginError

ENTRY_POINT_GROUP = "largemargin"
BUILTIN = "largemargin.builtin"  # the plugin of the built-ins, registered like any other
KINDS = {
    "kernel": "largemargin_kernels",
    "loss": "largemargin_losses",
    "expert": "largemargin_experts",
    "selection_strategy": "largemargin_selection_strategies",
}


@dataclass
class LoadFailure:
    plugin: str
    reason: str


class Registry:
    """The plugins of this process and what each registers. Hooks are called through pluggy (a
    blocked plugin is left out), once per plugin until the set of plugins changes."""

    def __init__(self, entry_points=None):
        self.manager = pluggy.PluginManager("largemargin")
        self.manager.add_hookspecs(hookspecs)
        self.failures = []
        self._tables, self._tables_state = {}, None
        self.manager.register(builtin, name=BUILTIN)
        self._load(entry_points)

    def _load(self, entry_points):
        if entry_points is None:
            entry_points = installed_entry_points(ENTRY_POINT_GROUP)
        for ep in entry_points:
            if self.manager.get_plugin(ep.name) is not None:
                continue
            try:
                plugin = ep.load()
                _check_hook_names(plugin)
                self.register(plugin, name=ep.name)  # a plugin whose hooks fail fails to load
            except Exception as e:  # noqa: BLE001 - any failure of a plugin is reported, not raised
                if self.manager.get_plugin(ep.name) is not None:
                    self.unregister(ep.name)
                self.failures.append(LoadFailure(ep.name, f"{type(e).__name__}: {e}"))

    def register(self, plugin, name=None):
        """Registers a plugin object (a module or any object with hook implementations). A hook
        that is misspelled, unmarked, fails or returns no dict is refused here: the error is
        raised and the plugin is not registered."""
        _check_hook_names(plugin)
        registered = self.manager.register(plugin, name=name)
        try:
            self.manager.check_pending()  # hook implementations that match no hook
        except pluggy.PluginValidationError as e:
            self.manager.unregister(plugin)
            raise ValueError(str(e)) from None
        try:  # hooks that fail or return no dict are refused now, not at every later resolve
            self._provided(self.manager.get_name(plugin))
        except Exception:
            self.manager.unregister(plugin)
            raise
        return registered

    def unregister(self, name):
        return self.manager.unregister(name=name)

    def _results(self, kind):
        """[(plugin name, {name: implementation})] of one hook, for the plugins not blocked."""
        hook = KINDS[kind]
        out = []
        for impl in getattr(self.manager.hook, hook).get_hookimpls():
            try:
                result = impl.function()
            except Exception as e:
                raise RuntimeError(f"hook {hook} of plugin {impl.plugin_name!r} failed: {e}") from e
            if result is None:
                result = {}
            if not isinstance(result, dict):
                raise TypeError(f"hook {hook} of plugin {impl.plugin_name!r} must return a dict of name -> implementation")
            out.append((impl.plugin_name, result))
        return out

    def _provided(self, plugin_name):
        """What one plugin registers: {kind: [names]}."""
        out = {}
        for kind in KINDS:
            for name, result in self._results(kind):
                if name == plugin_name:
                    out[kind] = sorted(result)
        return out

    def plugins(self):
        """[(plugin name, {kind: [names]})] for every loaded plugin."""
        return [(name, self._provided(name)) for name, _ in self.manager.list_name_plugin()]

    def _table(self, kind):
        """({name: (implementation, plugin name)}, {name claimed by several plugins: [plugins]}),
        computed again when a plugin is registered, unregistered or blocked."""
        state = tuple((name, id(plugin)) for name, plugin in self.manager.list_name_plugin())
        if state != self._tables_state:
            self._tables, self._tables_state = {}, state
        if kind not in self._tables:
            found, claimed = {}, {}
            for plugin, result in self._results(kind):
                for key, value in result.items():
                    claimed.setdefault(key, []).append(plugin)
                    found.setdefault(key, (value, plugin))
            clashes = {key: sorted(plugins) for key, plugins in claimed.items() if len(plugins) > 1}
            self._tables[kind] = ({k: v for k, v in found.items() if k not in clashes}, clashes)
        return self._tables[kind]

    def available(self, kind):
        """{name: (implementation, plugin name)} for one kind; a name that several plugins claim is
        left out (see `clashes`): only that name is unusable."""
        return dict(self._table(kind)[0])

    def clashes(self, kind):
        """{name: [plugin names]} of the names of one kind that several plugins register."""
        return dict(self._table(kind)[1])

    def resolve(self, kind, name):
        """The implementation registered under `name`, or a ValueError saying why there is none (a
        clash between plugins, a plugin that failed to load, or what exists). A Python kernel
        comes wrapped in a `CheckedKernel`; native and composed kernels (``largemargin.kernels``)
        come as they are."""
        found, clashes = self._table(kind)
        what = kind.replace("_", " ")
        if name in clashes:
            raise ValueError(
                f"{what} {name!r} is registered by both {' and '.join(map(repr, clashes[name]))}: uninstall or "
                "block one of them (`largemargin plugins` lists what each registers)"
            )
        if name not in found:
            known = ", ".join(sorted(found)) or "none"
            failed = "".join(f"; plugin {f.plugin!r} failed to load ({f.reason})" for f in self.failures)
            raise ValueError(f"unknown {what} {name!r}; registered: {known}{failed}")
        impl, plugin = found[name]
        if plugin == BUILTIN:
            return impl
        if kind == "kernel" and not isinstance(impl, (NativeKernel, Kernel)):
            if not callable(impl):
                raise PluginError(f"kernel {name!r} of plugin {plugin!r} is {impl!r:.60}: a kernel is a callable "
                                  "k(A, B) (such as a BlockKernel) or a largemargin.kernels.Kernel")
            return CheckedKernel(name, plugin, impl)
        if kind == "loss" and not isinstance(impl, NativeLoss):
            return CheckedLoss(name, plugin, impl)
        if kind == "selection_strategy" and not isinstance(impl, NativeStrategy):
            return CheckedStrategyFactory(name, plugin, impl)
        if kind == "expert":
            return CheckedExpertFactory(name, plugin, impl)
        return impl


def _check_hook_names(plugin):
    """A function named like a hook must be one of the hooks and be marked as an implementation:
    a misspelled or unmarked hook would otherwise be ignored in silence."""
    for attr in dir(plugin):
        if not attr.startswith("largemargin_"):
            continue
        fn = getattr(plugin, attr, None)
        if not callable(fn):
            continue
        if attr not in KINDS.values():
            close = [h for h in KINDS.values() if h.rstrip("s") == attr.rstrip("s")]
            hint = f" (did you mean {close[0]}?)" if close else f" (hooks: {', '.join(KINDS.values())})"
            raise ValueError(f"{attr} is not a largemargin hook{hint}")
        if not hasattr(fn, "largemargin_impl"):
            raise ValueError(f"{attr} is not marked with @largemargin.plugins.hookimpl")


_registry = None


def get_registry():
    """The process-wide registry, created (and the entry points loaded) on first use."""
    global _registry
    if _registry is None:
        _registry = Registry()
    return _registry
