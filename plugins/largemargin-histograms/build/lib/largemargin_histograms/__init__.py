"""Histogram kernels for largemargin (see the package README)."""

from .kernels import additive_chi2, chi2, intersection

__all__ = ["additive_chi2", "chi2", "intersection"]
