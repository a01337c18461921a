"""largemargin: large-scale support vector machines with a Rust core.

Estimators follow scikit-learn's conventions; see ``SVC`` and ``SVR``.
"""

from ._native import __version__
from .svm import SVC, SVR

__all__ = ["SVC", "SVR", "__version__"]
