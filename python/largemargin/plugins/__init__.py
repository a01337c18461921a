"""Plugins: third-party kernels, losses, mixture experts and example-selection strategies.

A plugin is a module (or object) with functions marked by ``hookimpl`` implementing the hooks of
``largemargin.plugins.hookspecs``; a distribution makes it discoverable with an entry point in the
``largemargin`` group::

    [project.entry-points.largemargin]
    myplugin = "my_package.plugin"
"""

from .hookspecs import hookimpl, hookspec
from .python_kernels import BlockKernel, CheckedKernel, PluginError, TrainingKernel
from .registry import NativeExpert, NativeKernel, NativeLoss, NativeStrategy, Registry, get_registry

__all__ = [
    "hookimpl", "hookspec", "BlockKernel", "CheckedKernel", "NativeExpert", "NativeKernel", "NativeLoss", "NativeStrategy", "PluginError", "Registry", "TrainingKernel",
    "get_registry",
]
