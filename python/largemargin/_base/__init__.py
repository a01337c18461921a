"""The base layer of the estimators: what several estimator modules share. Estimator modules
import from here and from the plugin layer, never from one another's private names; nothing here
imports an estimator module."""

from .dask_client import dask_client, without_client
from .kernel_svm import _BaseSVM, _linear_coef
from .larank import _LaRankBase
from .online import _OnlineClassifier
from .streaming import _after_support, _chunk, _labelled, _rows, _stack

__all__ = ["_BaseSVM", "_LaRankBase", "_after_support", "_chunk", "_labelled", "_linear_coef", "_OnlineClassifier",
           "_rows", "_stack", "dask_client", "without_client"]
