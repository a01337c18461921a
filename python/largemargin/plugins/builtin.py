"""The built-in plugin: registers the kernels computed by the native engine, through the same hooks
as third-party plugins."""

from .hookspecs import hookimpl
from .registry import NativeKernel


@hookimpl
def largemargin_kernels():
    return {name: NativeKernel(name) for name in ("linear", "poly", "rbf", "sigmoid", "precomputed")}
