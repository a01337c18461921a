"""The built-in plugin: registers what the native engine implements, through the same hooks as
third-party plugins."""

from .._options import EXPERTS, KERNELS, LOSSES, SELECTION_STRATEGIES
from .hookspecs import hookimpl
from .native import NativeExpert, NativeKernel, NativeLoss, NativeStrategy


@hookimpl
def largemargin_kernels():
    return {name: NativeKernel(name) for name in KERNELS}


@hookimpl
def largemargin_selection_strategies():
    return {name: NativeStrategy(name) for name in SELECTION_STRATEGIES}


@hookimpl
def largemargin_experts():
    return {name: NativeExpert(name) for name in EXPERTS}


@hookimpl
def largemargin_losses():
    return {name: NativeLoss(name) for name in LOSSES}
