"""The entry point: registers the kernels and the selection strategy with largemargin."""

from largemargin.plugins import hookimpl

from .kernels import additive_chi2, chi2, intersection
from .selection import BoltzmannSelection


@hookimpl
def largemargin_kernels():
    return {"chi2": chi2, "additive_chi2": additive_chi2, "intersection": intersection}


@hookimpl
def largemargin_selection_strategies():
    return {"boltzmann": BoltzmannSelection}
