"""`MixtureSVR`: a hard mixture of SVR experts."""


import numpy as np
from sklearn.base import RegressorMixin

from ..mixture_backends import is_dask_collection
from .base import _MixtureBase


class MixtureSVR(RegressorMixin, _MixtureBase):
    """A hard mixture of SVR experts (the thesis' regression extension).

    As `MixtureSVC`, with the global gater trained on 1/2 (y - sum_k g_k(x) f_k(x))^2 (targets
    standardized for it), and the local gater's P(y | x, k) a Gaussian around the expert's
    prediction with its residual variance on its subset. Two defaults differ from `MixtureSVC`'s,
    which were chosen on classification problems only: n_experts=10 (n_experts="auto" is
    accepted) and gater_candidates=10.

    Parameters
    ----------
    n_experts : int or "auto", default=10
        K, the number of experts, as in `MixtureSVC`.
    gater : {"global", "local"}, default="global"
        As in `MixtureSVC`.
    expert : str, default="svr"
        A registered expert: "svr" (our `SVR`) or a plugin's, any scikit-learn regressor.
    expert_params : dict or None, default=None
        Parameters of the experts (for "svr" they override C, epsilon, kernel, gamma, tol,
        cache_size).
    C : float, default=1.0
        The built-in SVR experts' C.
    epsilon : float, default=0.1
        The SVR experts' tube.
    kernel : str, callable or Kernel, default="rbf"
        The built-in SVR experts' kernel, as in `SVC`.
    gamma : {"scale", "auto"} or float, default="scale"
        The built-in SVR experts' gamma; "scale" is resolved once on the whole training set.
    tol : float, default=1e-3
        The built-in SVR experts' stopping tolerance.
    cache_size : float or "auto", default="auto"
        The kernel cache per expert being trained, in MB; ``"auto"`` sizes each expert's from its
        own data as `SVC` does.
    max_iter : int, default=5
        As in `MixtureSVC`.
    min_moved : float, default=0.001
        As in `MixtureSVC`.
    capacity : int or None, default=None
        As in `MixtureSVC`.
    gater_hidden : int, default=50
        As in `MixtureSVC`.
    gater_epochs : int, default=5
        As in `MixtureSVC`.
    gater_learning_rate : float, default=0.01
        As in `MixtureSVC`.
    gater_samples : int or None, default=50000
        As in `MixtureSVC`.
    gater_candidates : int or None, default=10
        As in `MixtureSVC`.
    n_gaussians : int, default=10
        As in `MixtureSVC`.
    local_candidates : int, default=3
        As in `MixtureSVC`.
    gate_tol : float, default=1e-3
        As in `MixtureSVC`.
    validation_fraction : float or None, default=None
        As in `MixtureSVC` (the held-out error is the mean squared error).
    backend : {"threads", "dask"}, default="threads"
        As in `MixtureSVC`.
    client : distributed.Client, str or None, default=None
        As in `MixtureSVC`.
    n_jobs : int or None, default=None
        As in `MixtureSVC`.
    random_state : int, RandomState or None, default=None
        As in `MixtureSVC`.
    verbose : bool, default=False
        A line per round.

    Attributes
    ----------
    experts_, assignment_, n_support_, history_, n_iter_, fit_time_, n_features_in_
        As in `MixtureSVC` (one mixture: ``assignment_`` is always set).

    See Also
    --------
    MixtureSVC : The classification mixture.
    SVR : One SVR on all the data (what one expert is).

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> rng = np.random.RandomState(0)
    >>> X = rng.randn(200, 2)
    >>> reg = lm.MixtureSVR(n_experts=4, C=10, random_state=0).fit(X, X[:, 0] ** 2)
    >>> reg.predict([[1.0, 0.0], [0.0, 0.0]]).round(1)
    array([1. , 0.1])
    """

    _task = "regression"

    def __init__(self, *, n_experts=10, gater="global", expert="svr", expert_params=None, C=1.0, epsilon=0.1,
                 kernel="rbf", gamma="scale", tol=1e-3, cache_size="auto", max_iter=5, min_moved=0.001, capacity=None,
                 gater_hidden=50, gater_epochs=5, gater_learning_rate=0.01, gater_samples=50000, gater_candidates=10,
                 n_gaussians=10, local_candidates=3, gate_tol=1e-3, validation_fraction=None, backend="threads", client=None,
                 n_jobs=None, random_state=None, verbose=False):
        self.n_experts = n_experts
        self.gater = gater
        self.expert = expert
        self.expert_params = expert_params
        self.C = C
        self.epsilon = epsilon
        self.kernel = kernel
        self.gamma = gamma
        self.tol = tol
        self.cache_size = cache_size
        self.max_iter = max_iter
        self.min_moved = min_moved
        self.capacity = capacity
        self.gater_hidden = gater_hidden
        self.gater_epochs = gater_epochs
        self.gater_learning_rate = gater_learning_rate
        self.gater_samples = gater_samples
        self.gater_candidates = gater_candidates
        self.n_gaussians = n_gaussians
        self.local_candidates = local_candidates
        self.gate_tol = gate_tol
        self.validation_fraction = validation_fraction
        self.backend = backend
        self.client = client
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.verbose = verbose

    def _encode_targets(self, X, y):
        yy = y.compute() if is_dask_collection(y) else y
        self._y_mean, self._y_scale = float(np.mean(yy)), float(np.std(yy)) or 1.0
        return y

    def _gater_targets(self, y):
        return np.ascontiguousarray((y - self._y_mean) / self._y_scale, dtype=np.float64)

    def _gater_outputs(self, F):
        return np.ascontiguousarray((F - self._y_mean) / self._y_scale)

    def _score_held_out(self, X, y):
        return float(np.mean((self.predict(X) - y) ** 2))

    def predict(self, X):
        """Predicted values: the gated sum of the experts' predictions.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Samples (dense or CSR).

        Returns
        -------
        ndarray of shape (n_samples,)
            The mixture's regression function at each sample.
        """
        return self._mixed(X, lambda e, rows: e.output(rows))
