"""The nu formulations of the kernel SVM (Schoelkopf, Smola, Williamson and Bartlett 2000), solved
by the native SMO with one equality constraint per sign (LIBSVM's ``Solver_NU``): `NuSVC` and
`NuSVR`. Drop-in for scikit-learn's classes of the same names."""

from numbers import Integral, Real

import numpy as np

from ._base import _BaseSVM
from ._options import DECISION_SHAPES, SMO_SELECTIONS
from ._validation import Interval, Options
from .svm import SVC, SVR

# nu replaces C (NuSVC) or epsilon (NuSVR); SMO is the one solver of the per-sign problem
_NU_CONSTRAINTS = {
    **_BaseSVM._parameter_constraints,
    "nu": [Interval(Real, 0, 1, closed="right")],
    "shrinking": ["boolean"],
    "max_iter": [Interval(Integral, 1, None), Options((-1,), Integral)],
    "selection": [Options(SMO_SELECTIONS)],
}


class NuSVC(SVC):
    """nu-Support Vector Classification, solved by SMO in Rust.

    A drop-in for scikit-learn's ``NuSVC``: nu in (0, 1] replaces C, an upper bound on the
    fraction of margin errors and a lower bound on that of support vectors. Each pair of classes
    is the problem min 1/2 a'Qa with 0 <= a_i <= w_i and each class's coefficients summing to
    nu (n1 + n2) / 2; its solution divided by its margin is the C-SVC solution LIBSVM keeps, so
    the model, the attributes and the predictions are those of `SVC` (whose methods it has).

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        Bounds the fraction of margin errors (above) and of support vectors (below). A pair of
        classes of total weights n1 and n2 needs ``nu * (n1 + n2) / 2 <= min(n1, n2)``: a
        larger nu is refused as "specified nu is infeasible", naming the pair.
    kernel, degree, gamma, coef0, shrinking, probability, tol, cache_size, verbose, max_iter, decision_function_shape, break_ties, random_state, selection, n_jobs
        As in `SVC`.
    class_weight : dict or "balanced", default=None
        Kept as ``class_weight_``; as in LIBSVM and scikit-learn, class weights do not enter the
        nu-SVC problem (use ``sample_weight``, which bounds each coefficient).

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, coef_, intercept_, probA_, probB_, fit_status_, n_iter_, shape_fit_, n_features_in_, n_kernel_evals_, fit_time_, objective_, class_weight_
        As in `SVC` (``objective_`` of the problem rescaled to its C-SVC, as LIBSVM reports it).

    See Also
    --------
    SVC : the same model family parametrised by C.
    NuSVR : nu-support vector regression.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> clf = lm.NuSVC(nu=0.5).fit(X, [1, 1, 2, 2])
    >>> clf.predict([[-0.8, -1.0]])
    array([1])
    """

    _parameter_constraints = {
        **_NU_CONSTRAINTS,
        "probability": ["boolean"],
        "decision_function_shape": [Options(DECISION_SHAPES)],
        "break_ties": ["boolean"],
    }

    def __init__(self, *, nu=0.5, kernel="rbf", degree=3, gamma="scale", coef0=0.0, shrinking=True,
                 probability=False, tol=1e-3, cache_size="auto", class_weight=None, verbose=False, max_iter=-1,
                 decision_function_shape="ovr", break_ties=False, random_state=None, selection="second_order",
                 n_jobs=None):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.selection = selection
        self.n_jobs = n_jobs

    def _example_bounds(self, y_idx, sample_weight):
        """Each example's box is its weight; every pair must be feasible for nu."""
        weight = np.bincount(y_idx, weights=sample_weight, minlength=len(self.classes_))
        nu = float(self.nu)
        for a in range(len(weight)):
            for b in range(a + 1, len(weight)):
                need, room = nu * (weight[a] + weight[b]) / 2, min(weight[a], weight[b])
                if need <= room:
                    continue
                pair = f"specified nu is infeasible for the classes {self.classes_[a].item()!r} and {self.classes_[b].item()!r}"
                if room == 0:  # LIBSVM's words, as scikit-learn's NuSVC says them
                    empty = self.classes_[a if weight[a] == 0 else b].item()
                    raise ValueError(f"{pair}: class {empty!r} has no sample of positive weight")
                # the largest feasible nu, rounded down so that it is feasible as printed
                largest = float(2 * room / (weight[a] + weight[b]))
                shown = np.floor(largest * 1e6) / 1e6
                raise ValueError(
                    f"{pair}: nu * (n1 + n2) / 2 = {need:.10g} exceeds min(n1, n2) = {room:.10g} (their total "
                    f"sample weights); nu must be at most {largest!r} (e.g. {shown:g})"
                )
        return sample_weight

    def _formulation_args(self):
        return dict(nu=float(self.nu))


class NuSVR(SVR):
    """nu-Support Vector Regression, solved by SMO in Rust.

    A drop-in for scikit-learn's ``NuSVR``: the tube's half-width is found by the fit, nu in
    (0, 1] bounding the fraction of examples outside it (above) and of support vectors (below).
    The 2L-variable dual of `SVR` with the sums of alpha+ and of alpha- each fixed at
    C nu sum(w) / 2 in magnitude, as LIBSVM poses it.

    Parameters
    ----------
    nu : float in (0, 1], default=0.5
        Bounds the fraction of errors (above) and of support vectors (below).
    C : float, default=1.0
        The penalty of an error outside the tube.
    kernel, degree, gamma, coef0, shrinking, tol, cache_size, verbose, max_iter, selection, n_jobs
        As in `SVC`.

    Attributes
    ----------
    support_, support_vectors_, n_support_, dual_coef_, coef_, intercept_, fit_status_, n_iter_, shape_fit_, n_features_in_, n_kernel_evals_, fit_time_, objective_
        As in `SVR`.

    See Also
    --------
    SVR : the same model parametrised by the tube's width.
    NuSVC : nu-support vector classification.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.linspace(0, 1, 20).reshape(-1, 1)
    >>> reg = lm.NuSVR(kernel="linear", C=100, nu=0.5).fit(X, 3 * X.ravel() + 1)
    >>> round(float(reg.predict([[0.5]])[0]), 1)
    2.5
    """

    _parameter_constraints = {**_NU_CONSTRAINTS, "C": SVR._parameter_constraints["C"]}

    def __init__(self, *, nu=0.5, C=1.0, kernel="rbf", degree=3, gamma="scale", coef0=0.0, shrinking=True,
                 tol=1e-3, cache_size="auto", verbose=False, max_iter=-1, selection="second_order", n_jobs=None):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.selection = selection
        self.n_jobs = n_jobs

    def _formulation_args(self):
        return dict(epsilon=0.0, nu=float(self.nu))
