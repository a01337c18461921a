"""The one-class SVM (Schoelkopf, Platt, Shawe-Taylor, Smola and Williamson 2001) for novelty and
outlier detection, solved by the native SMO on every core: `OneClassSVM`. Drop-in for
scikit-learn's class of the same name."""

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import OutlierMixin

from . import _native
from ._arrays import native_cache_size, to_native
from ._base import _BaseSVM, _linear_coef
from ._guard import unchanged_on_failure
from ._options import SMO_SELECTIONS
from ._validation import Interval, Options


class OneClassSVM(OutlierMixin, _BaseSVM):
    """Unsupervised outlier detection by the one-class SVM, solved by SMO in Rust.

    A drop-in for scikit-learn's ``OneClassSVM``: the function f(x) = sum_i a_i K(x, x_i) - rho
    that is positive on the smallest region of the feature space holding all but a fraction nu
    of the training data. Its dual, min 1/2 a'Ka with 0 <= a_i <= w_i and sum a = nu sum(w), is
    LIBSVM's, solved by the same SMO as `SVC` with its kernel rows and scans split over every
    core (``n_jobs``), so that a fit of hundreds of thousands of rows keeps to the cache budget.

    Parameters
    ----------
    kernel, degree, gamma, coef0, tol, shrinking, cache_size, verbose, max_iter, selection, n_jobs
        As in `SVC`.
    nu : float in (0, 1], default=0.5
        An upper bound on the fraction of training errors (points outside) and a lower bound on
        the fraction of support vectors. At 1 every coefficient is at its bound and every
        training point on or outside the boundary (scikit-learn refuses the non-finite intercept
        its solver finds there).

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices of the support vectors in the training set.
    support_vectors_ : ndarray or sparse matrix of shape (n_SV, n_features)
        The support vectors.
    n_support_ : ndarray of shape (1,)
        The number of support vectors.
    dual_coef_ : ndarray or sparse matrix of shape (1, n_SV)
        The coefficients a_i of the support vectors.
    coef_ : ndarray or sparse matrix of shape (1, n_features)
        The primal weights (linear kernel only), read-only.
    intercept_ : ndarray of shape (1,)
        -rho, the constant of the decision function.
    offset_ : float
        rho: ``decision_function = score_samples - offset_``.
    fit_status_, n_iter_, shape_fit_, n_features_in_, n_kernel_evals_, fit_time_, objective_
        As in `SVR`.

    See Also
    --------
    SVC : supervised classification with the same solver.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[0.0], [0.44], [0.45], [0.46], [1.0]])
    >>> clf = lm.OneClassSVM(gamma="auto").fit(X)
    >>> clf.predict(X)
    array([-1,  1,  1,  1, -1])
    """

    _task = "novelty"
    coef_ = property(_linear_coef)
    _libsvm_inputs = True  # samples of weight <= 0 left out, as scikit-learn's OneClassSVM
    _parameter_constraints = {
        **_BaseSVM._parameter_constraints,
        "nu": [Interval(Real, 0, 1, closed="right")],
        "shrinking": ["boolean"],
        "max_iter": [Interval(Integral, 1, None), Options((-1,), Integral)],
        "selection": [Options(SMO_SELECTIONS)],
    }

    def __init__(self, *, kernel="rbf", degree=3, gamma="scale", coef0=0.0, tol=1e-3, nu=0.5, shrinking=True,
                 cache_size="auto", verbose=False, max_iter=-1, selection="second_order", n_jobs=None):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.selection = selection
        self.n_jobs = n_jobs

    @unchanged_on_failure
    def fit(self, X, y=None, sample_weight=None):
        """Learn the region of the training data.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training vectors (or the kernel matrix with ``kernel="precomputed"``).
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Per-sample bounds of the coefficients; samples of weight <= 0 are left out. At least
            two samples of positive weight are needed (one point has no region to learn:
            a ValueError, where scikit-learn returns a model of a zero decision there).

        Returns
        -------
        self : OneClassSVM
            The fitted estimator.
        """
        started = time.perf_counter()
        X, Xk, _, sample_weight = self._prepare_fit(X, None, sample_weight)
        kept = int(np.count_nonzero(sample_weight > 0))
        if kept < 2:
            raise ValueError(
                f"a one-class SVM needs at least 2 samples of positive weight, got {kept} sample"
                f"{'' if kept == 1 else 's'} (n_samples = {Xk.shape[0]})"
            )
        kernel, gamma, coef0, degree = self._kernel_args(training_set=X)
        fit = _native.fit_one_class(
            to_native(Xk), sample_weight=np.ascontiguousarray(sample_weight), nu=float(self.nu), kernel=kernel,
            gamma=gamma, coef0=coef0, degree=degree, tol=float(self.tol), shrinking=bool(self.shrinking),
            cache_size=native_cache_size(self.cache_size, Xk), max_iter=int(self.max_iter), selection=self.selection,
            n_jobs=self.n_jobs, verbose=bool(self.verbose),
        )
        self._finish_fit(fit, Xk, started)
        self._one_output_attributes()
        self.offset_ = -self._intercept_
        return self

    def decision_function(self, X):
        """Signed distance to the region's boundary: positive inside, negative outside.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            sum_i a_i K(x, x_i) - rho.
        """
        return self._native_decision(X).ravel()

    def score_samples(self, X):
        """The unshifted score sum_i a_i K(x, x_i): `decision_function` plus ``offset_``.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            The score of each sample; larger is more normal.
        """
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for samples inside the region, -1 for outliers (a decision of exactly 0 is an
        outlier, as in LIBSVM).

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples.

        Returns
        -------
        ndarray of shape (n_samples,)
            +1 or -1 per sample.
        """
        return np.where(self.decision_function(X) > 0, 1, -1)
