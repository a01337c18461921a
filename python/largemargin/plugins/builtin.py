"""The built-in plugin: registers what the native engine implements, through the same hooks as
third-party plugins."""

from .hookspecs import hookimpl
from .native import NativeExpert, NativeKernel, NativeLoss, NativeStrategy


@hookimpl
def largemargin_kernels():
    return {name: NativeKernel(name) for name in ("linear", "poly", "rbf", "sigmoid", "precomputed")}


@hookimpl
def largemargin_selection_strategies():
    return {name: NativeStrategy(name) for name in ("random", "gradient", "active", "autoactive")}


@hookimpl
def largemargin_experts():
    return {name: NativeExpert(name) for name in ("svc", "svr")}


@hookimpl
def largemargin_losses():
    return {name: NativeLoss(name) for name in ("hinge", "squared_hinge", "log_loss", "modified_huber")}
