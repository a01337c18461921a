"""The plugin manager and the registry: loads the ``largemargin`` entry-point group, keeps the
plugins that fail to load out (with the reason), and resolves names to implementations."""

from dataclasses import dataclass
from importlib import metadata

import pluggy

from . import hookspecs
from .python_kernels import CheckedKernel

ENTRY_POINT_GROUP = "largemargin"
KINDS = {
    "kernel": "largemargin_kernels",
    "loss": "largemargin_losses",
    "expert": "largemargin_experts",
    "selection_strategy": "largemargin_selection_strategies",
}


@dataclass(frozen=True)
class NativeKernel:
    """A kernel the Rust engine computes itself, by its engine name."""

    name: str


@dataclass(frozen=True)
class NativeLoss:
    """A loss the Rust SGD solvers implement themselves, by its engine name."""

    name: str


@dataclass(frozen=True)
class NativeStrategy:
    """An example-selection strategy implemented in Rust, by its engine name."""

    name: str


@dataclass
class LoadFailure:
    plugin: str
    reason: str


class Registry:
    """The plugins of this process and what each registers."""

    def __init__(self, entry_points=None):
        self.manager = pluggy.PluginManager("largemargin")
        self.manager.add_hookspecs(hookspecs)
        self.failures = []
        from . import builtin

        self.manager.register(builtin, name="largemargin.builtin")
        self._load(entry_points)

    def _load(self, entry_points):
        if entry_points is None:
            entry_points = metadata.entry_points(group=ENTRY_POINT_GROUP)
        for ep in entry_points:
            if self.manager.get_plugin(ep.name) is not None:
                continue
            try:
                plugin = ep.load()
                self.manager.register(plugin, name=ep.name)
                self._provided(ep.name)  # a plugin whose hooks fail is a plugin that fails to load
            except Exception as e:  # noqa: BLE001 - any failure of a plugin is reported, not raised
                if self.manager.get_plugin(ep.name) is not None:
                    self.manager.unregister(name=ep.name)
                self.failures.append(LoadFailure(ep.name, f"{type(e).__name__}: {e}"))

    def register(self, plugin, name=None):
        """Registers a plugin object (a module or any object with hook implementations)."""
        return self.manager.register(plugin, name=name)

    def unregister(self, name):
        return self.manager.unregister(name=name)

    def _provided(self, plugin_name):
        """What one plugin registers: {kind: [names]}."""
        plugin = self.manager.get_plugin(plugin_name)
        out = {}
        for kind, hook in KINDS.items():
            impl = getattr(plugin, hook, None)
            if impl is None:
                continue
            try:
                result = impl() or {}
            except Exception as e:
                raise RuntimeError(f"hook {hook} of plugin {plugin_name!r} failed: {e}") from e
            if not isinstance(result, dict):
                raise TypeError(f"hook {hook} of plugin {plugin_name!r} must return a dict of name -> implementation")
            out[kind] = sorted(result)
        return out

    def plugins(self):
        """[(plugin name, {kind: [names]})] for every loaded plugin."""
        return [(name, self._provided(name)) for name, _ in self.manager.list_name_plugin()]

    def available(self, kind):
        """{name: (implementation, plugin name)} for one kind; a name claimed twice is an error."""
        hook = KINDS[kind]
        found = {}
        for name, plugin in self.manager.list_name_plugin():
            impl = getattr(plugin, hook, None)
            if impl is None:
                continue
            for key, value in (impl() or {}).items():
                if key in found:
                    raise ValueError(f"{kind} {key!r} is registered by both {found[key][1]!r} and {name!r}")
                found[key] = (value, name)
        return found

    def resolve(self, kind, name):
        """The implementation registered under `name`, or a ValueError listing what exists. A
        Python kernel comes wrapped in a `CheckedKernel`; native and composed kernels
        (``largemargin.kernels``) come as they are."""
        found = self.available(kind)
        if name not in found:
            known = ", ".join(sorted(found)) or "none"
            raise ValueError(f"unknown {kind.replace('_', ' ')} {name!r}; registered: {known}")
        impl, plugin = found[name]
        from ..kernels import Kernel

        if kind == "kernel" and callable(impl) and not isinstance(impl, (NativeKernel, Kernel)):
            return CheckedKernel(name, plugin, impl)
        return impl


_registry = None


def get_registry():
    """The process-wide registry, created (and the entry points loaded) on first use."""
    global _registry
    if _registry is None:
        _registry = Registry()
    return _registry
