"""Hard mixtures of SVM experts (Collobert, Bengio and Bengio 2002; Collobert's thesis, chapter 6):
split the training set among K experts, train them in parallel on their subsets, train a gater,
reassign every example to an expert under a capacity cap, and repeat. Each expert sees about
L/K examples, so a round costs K (L/K)^p instead of L^p for one SVM.

The global gater is an MLP trained on the whole mixture's criterion (reassignment by g_k(x)); the
local gater is one Gaussian mixture per expert (reassignment by P(k | x, y)). The loop runs on
threads or on a Dask cluster (`mixture_backends`); the experts' work is in `mixture_experts`.

Every name is importable from here, as it was from the former module ``largemargin.mixture``:
`base` holds the loop the two estimators share, `classifier` and `regressor` the estimators."""

from .base import auto_experts
from .classifier import MixtureSVC
from .regressor import MixtureSVR

__all__ = ["MixtureSVC", "MixtureSVR", "auto_experts"]
