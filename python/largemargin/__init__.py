"""largemargin: large-scale support vector machines with a Rust core.

Estimators follow scikit-learn's conventions: ``SVC``, ``NuSVC``, ``SVR``, ``NuSVR`` and ``OneClassSVM`` (SMO) with ``SVCSearchCV``/``SVRSearchCV`` (their cross-validated grid search), ``LaSVM``, ``Huller`` and ``KernelPerceptron`` (online),
``LaRankClassifier`` (online multiclass), ``AmbiguousLaRankClassifier`` (from candidate label sets), ``SequenceLabeler`` (sequence labeling), ``SemanticParser`` (semantic parsing from ambiguous supervision, OSPAS), ``LinearSVC``/``LinearSVR`` (exact linear SVMs by dual coordinate descent), ``LinearSGD`` (SGD-QN, SVMSGD2) and ``MarginPerceptron`` (linear, by
stochastic gradient), ``MixtureSVC``/``MixtureSVR`` (hard mixtures of experts), ``SimpleMLPClassifier``, ``NilssonMLPClassifier`` and ``TanhMLPClassifier`` (MLPs).
"""

from . import metrics  # noqa: F401  (largemargin.metrics after `import largemargin`)
from ._native import __version__
from .ambiguous import AmbiguousLaRankClassifier, make_ambiguous
from .datasets import load_adult, load_libsvm, load_libsvm_files, make_forest_like
from .larank import LaRankClassifier
from .lasvm import LaSVM
from .linear import LinearSGD, MarginPerceptron
from .linear_svm import LinearSVC, LinearSVR
from .mixture import MixtureSVC, MixtureSVR
from .mlp import NilssonMLPClassifier, SimpleMLPClassifier, TanhMLPClassifier
from .model_io import load_libsvm_model, save_libsvm_model
from .nu_svm import NuSVC, NuSVR
from .one_class import OneClassSVM
from .online import Huller, KernelPerceptron
from .search import SVCSearchCV, SVRSearchCV
from .semantic import SemanticParser, alignment_error, make_ambigchild, make_ambighouse, mr_f1, mr_scores
from .sequence import SequenceLabeler, WindowFeatures, chunk_f1, chunk_scores, read_conll, token_accuracy
from .svm import SVC, SVR

__all__ = ["AmbiguousLaRankClassifier", "Huller", "KernelPerceptron", "LaRankClassifier", "LaSVM", "LinearSGD", "LinearSVC", "LinearSVR", "MarginPerceptron", "MixtureSVC", "MixtureSVR", "NilssonMLPClassifier", "NuSVC", "NuSVR", "OneClassSVM", "SVC", "SVCSearchCV", "SVR", "SVRSearchCV", "SemanticParser", "SequenceLabeler", "SimpleMLPClassifier", "TanhMLPClassifier", "WindowFeatures", "alignment_error", "chunk_f1", "chunk_scores", "load_adult", "load_libsvm", "load_libsvm_files", "load_libsvm_model", "make_ambigchild", "make_ambighouse", "make_ambiguous", "make_forest_like", "mr_f1", "mr_scores", "read_conll", "save_libsvm_model", "token_accuracy", "__version__"]
