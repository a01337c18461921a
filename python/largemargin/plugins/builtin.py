"""The built-in plugin: registers what the native engine implements, through the same hooks as
third-party plugins."""

from .hookspecs import hookimpl
from .registry import NativeKernel, NativeStrategy


@hookimpl
def largemargin_kernels():
    return {name: NativeKernel(name) for name in ("linear", "poly", "rbf", "sigmoid", "precomputed")}


@hookimpl
def largemargin_selection_strategies():
    return {name: NativeStrategy(name) for name in ("random", "gradient", "active", "autoactive")}
