"""largemargin: large-scale support vector machines with a Rust core.

Estimators follow scikit-learn's conventions; see ``SVC`` and ``SVR``.
"""

from ._native import __version__
from .datasets import load_adult, load_libsvm
from .model_io import load_libsvm_model, save_libsvm_model
from .svm import SVC, SVR

__all__ = ["SVC", "SVR", "load_adult", "load_libsvm", "load_libsvm_model", "save_libsvm_model", "__version__"]
