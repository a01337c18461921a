"""The entry point: registers the kernels with largemargin."""

from largemargin.plugins import hookimpl

from .kernels import additive_chi2, chi2, intersection


@hookimpl
def largemargin_kernels():
    return {"chi2": chi2, "additive_chi2": additive_chi2, "intersection": intersection}
