"""The online baselines, solved in Rust: `Huller` and `KernelPerceptron` (perceptron, averaged
perceptron, passive-aggressive, budget perceptron); more than two classes are one-vs-rest problems
solved in parallel. `LaSVM` lives in `largemargin.lasvm` (importable from here too)."""

from numbers import Integral, Real

import numpy as np

from . import _native
from ._arrays import native_cache_size
from ._base import _OnlineClassifier
from ._guard import unchanged_on_failure
from ._options import BASELINE_RULES
from ._validation import Interval, Options
from .lasvm import LaSVM  # noqa: F401 - its former module: largemargin.online.LaSVM stays importable

__all__ = ["Huller", "KernelPerceptron", "LaSVM"]


class _OnlineBaseline(_OnlineClassifier):
    """The baselines' shared parameter checks and native call."""

    _algorithm = None

    @unchanged_on_failure
    def fit(self, X, y):
        """Fit on X and labels y.

        The baselines have no per-example box to weight, so fit takes no sample_weight
        (scikit-learn sees that it has none).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (or the kernel matrix with ``kernel="precomputed"``).
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : object
            The fitted estimator.
        """
        return super().fit(X, y)


    def _native_algorithm(self):
        return self._algorithm, 1.0, 0.0, 1

    def _run(self, Xk, labels, sample_c, kernel, gamma, coef0, degree, seed, warm, finishing, oracle):
        algorithm, c, beta, budget = self._native_algorithm()
        return _native.fit_online_baseline(
            Xk, labels, kernel=kernel, gamma=gamma, coef0=coef0, degree=degree, algorithm=algorithm, c=c, beta=beta, budget=budget, epochs=int(self.epochs),
            cache_size=native_cache_size(self.cache_size, Xk), seed=seed, n_jobs=self.n_jobs, verbose=bool(self.verbose),
        )

    def _after_fit(self, problems, oracle):
        self.n_updates_ = np.array([p["inserted"] for p in problems])


class Huller(_OnlineBaseline):
    """Online hard-margin SVM that tracks the nearest points of the two classes' convex hulls.

    The Huller (Bordes & Bottou 2005) makes one insertion attempt and one update of a random
    support vector per example. No C: it suits separable or nearly separable problems. More than
    two classes are fit one-vs-rest, one binary problem per class, in parallel.

    Parameters
    ----------
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, callable or Kernel, default="rbf"
        The kernel, as in `SVC`.
    degree : int, default=3
        The polynomial kernel's degree.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly and sigmoid, as in `SVC`.
    coef0 : float, default=0.0
        The constant term of the poly and sigmoid kernels.
    epochs : int, default=1
        Passes over the data.
    cache_size : float or "auto", default=200
        The kernel cache, in MB; ``"auto"`` as in `SVC` (the whole kernel matrix within a quarter
        of the available memory, at least 200 MB).
    verbose : bool, default=False
        Report progress (see the ``largemargin`` logger).
    random_state : int, RandomState or None, default=None
        Seeds the order of the examples.
    n_jobs : int or None, default=None
        Threads for the binary problems and prediction, as in `SVC`.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    support_ : ndarray of shape (n_SV,)
        Sorted indices of the support vectors in the training set.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors.
    n_support_ : ndarray of shape (n_classes,)
        Support vectors per class.
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        One row per binary problem (one for two classes, one per class otherwise), zero where a
        support vector is not in that problem's expansion.
    intercept_ : ndarray of shape (n_problems,)
        The bias of each binary problem.
    n_updates_ : ndarray of shape (n_problems,)
        Hull updates per problem (in place of LaSVM's gap and dual objective).
    n_iter_ : ndarray of shape (n_problems,)
        Examples seen per problem, over all epochs.
    objective_ : ndarray of shape (n_problems,)
        NaN: the Huller has no dual objective to report.
    n_kernel_evals_, fit_time_, fit_status_, shape_fit_, n_features_in_, class_weight_
        As in `LaSVM`.

    See Also
    --------
    LaSVM : The online SVM with a C and a finishing step.
    KernelPerceptron : Online baselines without bias.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-1.5, -2.0], [1.0, 1.0], [2.0, 1.0], [1.5, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = lm.Huller(random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])
    """

    _algorithm = "huller"

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, epochs=1, cache_size=200,
                 verbose=False, random_state=None, n_jobs=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.epochs = epochs
        self.cache_size = cache_size
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs


class KernelPerceptron(_OnlineBaseline):
    """The kernel perceptron family, online baselines without bias.

    One of four update rules, chosen by ``rule``, on a kernel expansion f(x) = sum_i a_i K(x_i, x)
    with no intercept. More than two classes are fit one-vs-rest, one binary problem per class,
    in parallel.

    Parameters
    ----------
    rule : {"perceptron", "averaged", "pa", "budget"}, default="perceptron"
        ``"perceptron"``; ``"averaged"`` (predicts with the average of all intermediate
        expansions); ``"pa"`` (passive-aggressive PA(C): steps of min(C, loss / K(x, x)) when
        y f(x) <= 1); or ``"budget"`` (adds x when y f(x) <= beta; past ``budget`` support
        vectors, removes the one that contributes least to its own margin; on noisy data a tight
        budget ends up keeping mostly mislabeled examples, as is known of this rule).
    kernel : {"linear", "poly", "rbf", "sigmoid", "precomputed"}, callable or Kernel, default="rbf"
        The kernel, as in `SVC`.
    degree : int, default=3
        The polynomial kernel's degree.
    gamma : {"scale", "auto"} or float, default="scale"
        Kernel coefficient of rbf, poly and sigmoid, as in `SVC`.
    coef0 : float, default=0.0
        The constant term of the poly and sigmoid kernels.
    C : float, default=1.0
        The largest step of the ``"pa"`` rule.
    beta : float, default=0.0
        The margin below which the ``"budget"`` rule adds an example.
    budget : int, default=1000
        The most support vectors the ``"budget"`` rule keeps.
    epochs : int, default=1
        Passes over the data.
    cache_size : float or "auto", default=200
        The kernel cache, in MB; ``"auto"`` as in `SVC` (the whole kernel matrix within a quarter
        of the available memory, at least 200 MB).
    verbose : bool, default=False
        Report progress (see the ``largemargin`` logger).
    random_state : int, RandomState or None, default=None
        Seeds the order of the examples.
    n_jobs : int or None, default=None
        Threads for the binary problems and prediction, as in `SVC`.

    Attributes
    ----------
    n_updates_ : ndarray of shape (n_problems,)
        The steps that changed the model, per problem.
    intercept_ : ndarray of shape (n_problems,)
        Zeros: the rules have no bias.
    classes_, support_, support_vectors_, n_support_, dual_coef_, n_iter_, objective_
        As in `Huller`.
    n_kernel_evals_, fit_time_, fit_status_, shape_fit_, n_features_in_, class_weight_
        As in `LaSVM`.

    See Also
    --------
    Huller : An online hard-margin SVM.
    LaSVM : The online SVM with a C and a finishing step.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-1.5, -2.0], [1.0, 1.0], [2.0, 1.0], [1.5, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = lm.KernelPerceptron(rule="averaged", epochs=3, random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])
    """

    def __init__(self, *, rule="perceptron", kernel="rbf", degree=3, gamma="scale", coef0=0.0, C=1.0, beta=0.0,
                 budget=1000, epochs=1, cache_size=200, verbose=False, random_state=None, n_jobs=None):
        self.rule = rule
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.C = C
        self.beta = beta
        self.budget = budget
        self.epochs = epochs
        self.cache_size = cache_size
        self.verbose = verbose
        self.random_state = random_state
        self.n_jobs = n_jobs

    _parameter_constraints = {
        **_OnlineBaseline._parameter_constraints,
        "rule": [Options(BASELINE_RULES)],
        "beta": [Interval(Real, None, None)],
        "budget": [Interval(Integral, 1, None)],
    }

    def _native_algorithm(self):
        return self.rule, float(self.C), float(self.beta), int(self.budget)
