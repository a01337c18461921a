"""Cross-validated search of C and the kernel's settings for ``SVC`` and ``SVR``: ``SVCSearchCV``
and ``SVRSearchCV`` behave as scikit-learn's ``GridSearchCV`` over such an estimator (same
``cv_results_`` keys, ``best_params_``, ``best_estimator_``, scorers), but run the whole grid in
one native call that shares what independent fits compute again and again:

- one kernel engine per kernel setting; each fold's cache of kernel rows lasts along its Cs,
  and when one kernel's rows over every example fit the budget (``cache_size`` per thread),
  one cache of them serves every fold and every C;
- along increasing C, each fold's problem starts from the previous C's solution;
- each fold's kernel values between its test rows and the support vectors of all its models are
  computed once.

A grid the native search cannot run (a Python kernel, ``solver="isda"``, ``probability=True``, a
grid over other parameters, a fold missing a class) is run by ``GridSearchCV`` itself, with a
warning that says why.
"""

from sklearn.base import ClassifierMixin, RegressorMixin

from ._base.search_cv import DEFAULT_C, _SearchCV
from .svm import SVC, SVR

__all__ = ["DEFAULT_C", "SVCSearchCV", "SVRSearchCV"]


class SVCSearchCV(ClassifierMixin, _SearchCV):
    """Cross-validated grid search for ``largemargin.SVC``, at cache speed.

    Behaves as ``GridSearchCV(estimator, param_grid, ...)``: the same ``cv_results_`` keys,
    ``best_params_``, ``best_score_``, ``best_index_``, ``best_estimator_`` (refitted on all the
    data), ``scorer_``, ``n_splits_``, ``refit_time_``, ``multimetric_``; ``predict`` and friends
    use ``best_estimator_``. The grid is run in one native call: for each kernel setting one
    kernel cache over all rows serves every fold and every C, each fold's problem starts from the
    previous C's solution, and the scores come from decision values computed once per fold. A grid
    the native search cannot run (a Python kernel, ``solver="isda"``, ``probability=True``, a grid
    over other parameters, a fold missing a class) is run by ``GridSearchCV`` itself, with a
    warning that says why.

    Parameters
    ----------
    estimator : SVC, default=None
        The model whose parameters are searched (``SVC()`` if None): its ``tol``, ``cache_size``
        (the cache's budget per thread of the search: on ``n_jobs`` threads it holds what as many
        independent fits side by side would), ``max_iter``, ``shrinking`` and
        ``selection`` apply to every fit.
    param_grid : dict or list of dicts, default=None
        As ``GridSearchCV``'s. The native search varies ``C``, ``kernel``, ``gamma``, ``degree``,
        ``coef0`` and ``class_weight``; a grid over anything else runs through ``GridSearchCV``
        (warned). None: ``{"C": [0.1, 1, 10, 100, 1000]}``.
    scoring : str, callable, list or dict, default=None
        As ``GridSearchCV``'s (None: accuracy). Scorers see each fold's model through its
        predictions and ``decision_function`` (one-vs-rest shape for several classes); a scorer
        that needs ``predict_proba`` needs ``probability=True``, which runs through ``GridSearchCV``.
    n_jobs : int, default=None
        Threads of the native search (None: every core). Results do not depend on it.
    refit : bool, str or callable, default=True
        As ``GridSearchCV``'s: refit the best candidate on all the data as ``best_estimator_``;
        with several metrics, the name of the one that ranks, or a callable that takes
        ``cv_results_`` and returns the best index; False: no refit (and no `predict`).
    cv : int, cross-validation generator or iterable, default=None
        As ``GridSearchCV``'s (None: 5-fold stratified).
    verbose : int, default=0
        Above 0: a progress line every 2 s while the native search runs (GridSearchCV's own messages
        when the grid runs through it).
    error_score : 'raise' or float, default=np.nan
        Used when the grid runs through ``GridSearchCV``; the native search raises on a failure.
    return_train_score : bool, default=False
        Also score every model on its training folds (the ``train`` keys of ``cv_results_``).
    c_start : {'auto', 'keep', 'scale', 'cold'}, default='auto'
        How each C after the first starts: from the previous solution as it is ('keep': feasible,
        since the box grew), scaled by the ratio of the Cs ('scale': the coefficients at the
        bound stay there), whichever of the two has the higher dual objective ('auto'; no kernel
        value is needed to tell), or from zero as an independent fit ('cold', the same models as
        ``GridSearchCV`` fits).
    backend : {'threads', 'dask'}, default='threads'
        'dask': one task per kernel setting on a ``dask.distributed`` cluster (the current client,
        or ``client``), only scores and the refitted model coming back.
    client : distributed.Client or str, default=None
        The cluster for ``backend='dask'``: a Client, or a scheduler address (a Client is opened
        for the fit and closed after it); None: the current client. A pickle leaves a Client out.

    Attributes
    ----------
    cv_results_ : dict of ndarray
        As ``GridSearchCV``'s: per candidate, the parameters, fit and score times, each split's
        score, their mean, standard deviation and rank.
    best_estimator_ : SVC
        The best candidate refitted on all the data (not with ``refit=False``).
    best_score_ : float
        The best candidate's mean cross-validated score.
    best_params_ : dict
        The best candidate's parameters.
    best_index_ : int
        The best candidate's index into ``cv_results_``.
    scorer_ : callable or dict
        The scorer, or the scorers by name with several metrics.
    n_splits_ : int
        The number of folds.
    refit_time_ : float
        Seconds the refit took.
    multimetric_ : bool
        Whether several metrics were scored.
    classes_ : ndarray of shape (n_classes,)
        The class labels of ``best_estimator_``.
    n_kernel_evals_ : int
        Kernel values computed by the whole search (None when it ran through GridSearchCV).
    search_stats_ : dict
        ``kernel_evals`` (as ``n_kernel_evals_``), ``smo_iterations`` (every problem's),
        ``cached_row_hits`` and ``kernel_rows_computed`` (the rows shared between folds: requests
        they answered, rows computed into them; 0 when the rows are not shared).
    n_iter_ : ndarray of shape (n_candidates,)
        SMO iterations per candidate, summed over the folds (native search only).
    native_ : bool
        Whether the native search ran (False: GridSearchCV did).
    n_features_in_ : int
        Features seen in `fit`.

    See Also
    --------
    SVC : The estimator searched.
    SVRSearchCV : The same search for `SVR`.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from largemargin import SVC, SVCSearchCV
    >>> X, y = make_classification(n_samples=300, random_state=0)
    >>> search = SVCSearchCV(SVC(), {"C": [0.1, 1, 10], "gamma": [0.01, 0.1]}, cv=3).fit(X, y)
    >>> sorted(search.best_params_)
    ['C', 'gamma']
    """

    _estimator_type_ = SVC
    score = _SearchCV.score  # the search's scorer, not ClassifierMixin's accuracy


class SVRSearchCV(RegressorMixin, _SearchCV):
    """Cross-validated grid search for ``largemargin.SVR``, at cache speed.

    As `SVCSearchCV` (see there), with ``epsilon`` among the parameters the native search varies,
    R^2 as the default score and 5-fold ``KFold`` as the default ``cv``.

    Parameters
    ----------
    estimator : SVR, default=None
        The model whose parameters are searched (``SVR()`` if None): its ``tol``, ``cache_size``
        (the cache's budget per thread of the search, as for ``SVCSearchCV``), ``max_iter``,
        ``shrinking`` and ``selection`` apply to every fit.
    param_grid : dict or list of dicts, default=None
        As ``GridSearchCV``'s. The native search varies ``C``, ``kernel``, ``gamma``, ``degree``,
        ``coef0`` and ``epsilon``; a grid over anything else runs through ``GridSearchCV``
        (warned). None: ``{"C": [0.1, 1, 10, 100, 1000]}``.
    scoring : str, callable, list or dict, default=None
        As ``GridSearchCV``'s (None: R^2).
    n_jobs : int, default=None
        As in `SVCSearchCV`.
    refit : bool, str or callable, default=True
        As in `SVCSearchCV`.
    cv : int, cross-validation generator or iterable, default=None
        As ``GridSearchCV``'s (None: 5-fold ``KFold``).
    verbose : int, default=0
        As in `SVCSearchCV`.
    error_score : 'raise' or float, default=np.nan
        As in `SVCSearchCV`.
    return_train_score : bool, default=False
        As in `SVCSearchCV`.
    c_start : {'auto', 'keep', 'scale', 'cold'}, default='auto'
        As in `SVCSearchCV`.
    backend : {'threads', 'dask'}, default='threads'
        As in `SVCSearchCV`.
    client : distributed.Client or str, default=None
        As in `SVCSearchCV`.

    Attributes
    ----------
    best_estimator_ : SVR
        The best candidate refitted on all the data (not with ``refit=False``).
    cv_results_, best_score_, best_params_, best_index_, scorer_, n_splits_, refit_time_
        As in `SVCSearchCV`.
    multimetric_, n_kernel_evals_, search_stats_, n_iter_, native_, n_features_in_
        As in `SVCSearchCV`.

    See Also
    --------
    SVR : The estimator searched.
    SVCSearchCV : The same search for `SVC`.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin import SVR, SVRSearchCV
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 3)); y = X[:, 0] + 0.1 * rng.normal(size=200)
    >>> search = SVRSearchCV(SVR(), {"C": [1, 10], "epsilon": [0.01, 0.1]}, cv=3).fit(X, y)
    >>> search.best_score_ > 0.9
    True
    """

    _estimator_type_ = SVR
    score = _SearchCV.score  # the search's scorer, not RegressorMixin's R^2
