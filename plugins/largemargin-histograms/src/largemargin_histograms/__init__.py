"""Histogram kernels for largemargin (see the package README)."""

from .kernels import additive_chi2, chi2, intersection
from .selection import BoltzmannSelection

__all__ = ["BoltzmannSelection", "additive_chi2", "chi2", "intersection"]
