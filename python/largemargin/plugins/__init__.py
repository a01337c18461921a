"""Plugins: third-party kernels, losses, mixture experts and example-selection strategies.

A plugin is a module (or object) with functions marked by ``hookimpl`` implementing the hooks of
``largemargin.plugins.hookspecs``; a distribution makes it discoverable with an entry point in the
``largemargin`` group::

    [project.entry-points.largemargin]
    myplugin = "my_package.plugin"
"""

from .hookspecs import hookimpl, hookspec
from .registry import CheckedKernel, NativeKernel, PluginError, Registry, get_registry

__all__ = ["hookimpl", "hookspec", "CheckedKernel", "NativeKernel", "PluginError", "Registry", "get_registry"]
