"""The hook specifications of largemargin: the four places where packages extend the library.

Each hook returns a dict from a public name to an implementation; the registry collects them, and
estimators resolve names through it (``SVC(kernel="chi2")``). The built-ins come through these same
hooks (``largemargin.plugins.builtin``). What an implementation is, per hook:

kernels
    - a ``largemargin.kernels.Kernel`` (a composed kernel such as ``RBF(0.1) + 0.5 * Linear()``),
      computed natively: the fast way to ship a kernel without native code;
    - or a callable ``k(A, B) -> ndarray (len(A), len(B))``, called on blocks of rows, never on
      single pairs. During a fit ``A`` is one training row and ``B`` the whole training set or
      the rows the solver asks for; at prediction ``A`` is a block of rows and ``B`` the support
      vectors. A ``largemargin.plugins.BlockKernel`` computes per-row data of B (norms, say) in
      ``prepare(B)``, which runs once per fit on the training set and once per prediction call
      on the support vectors; each block then gets the prepared rows of its B. Results are
      checked for shape, dtype and NaN.
losses
    for the linear SGD solvers: an object with ``loss(z, y)`` and ``dloss(z, y)`` (derivative in
    z), z the decision value and y in {-1.0, +1.0}. Each SGD step needs the derivative at the
    current weights before the next step, so ``dloss`` is called once per example and pass, on
    two floats; ``loss`` is called where the objective is summed (t0's search, the final
    objective), on float64 arrays of up to 1,024 examples, and must return an array of their
    shape (numpy ufuncs do both). A step costs the plugin's own ``dloss`` on two floats plus
    about 0.4 us (``benches/plugin_loss.py``; docs/benchmarks.rst, "The cost of a Python loss").
experts
    for the mixture of SVM experts: a factory, either a function ``make(**params)`` or an object
    with such a ``make`` method, returning a scikit-learn compatible estimator (``fit``,
    ``decision_function`` or ``predict``).

Every call into a plugin is checked: only finite numbers reach a loss, what a hook returns must
have the documented type, shape and finite values, and any failure is raised as a
``largemargin.plugins.PluginError`` that names the plugin, the original exception chained.

selection_strategies
    for LaSVM's example selection: a factory ``make(random_state: int)`` returning an object
    with ``n_candidates`` (how many random unprocessed examples LaSVM scores before each step)
    and ``choose(decision, labels) -> int | None``, which gets the candidates' decision values
    f(x) and labels (NaN where unknown, as in active learning) and returns the position of the
    example to process next, or None to process none of them now (they stay in the pool). A pass
    in which ``choose`` returns None as many times in a row as there are examples left ends
    there: a strategy that declines everything ends the online pass (the finishing step still
    runs on what was processed).
"""

import pluggy

hookspec = pluggy.HookspecMarker("largemargin")
hookimpl = pluggy.HookimplMarker("largemargin")


@hookspec
def largemargin_kernels():
    """Kernels by name: ``{"chi2": implementation}`` (a ``Kernel`` or a callable ``k(A, B)``).

    An implementation is a ``largemargin.kernels.Kernel`` (a composed kernel such as
    ``RBF(0.1) + 0.5 * Linear()``), computed natively: the fast way to ship a kernel without
    native code; or a callable ``k(A, B) -> ndarray (len(A), len(B))``, called on blocks of rows,
    never on single pairs. During a fit ``A`` is one training row and ``B`` the whole training set
    or the rows the solver asks for; at prediction ``A`` is a block of rows and ``B`` the support
    vectors. A ``largemargin.plugins.BlockKernel`` computes per-row data of B (norms, say) in
    ``prepare(B)``, which runs once per fit on the training set and once per prediction call on the
    support vectors; each block then gets the prepared rows of its B. Results are checked for
    shape, dtype and NaN. Estimators take the names as their ``kernel``.

    Returns
    -------
    dict
        Kernel names to implementations.

    See Also
    --------
    largemargin.kernels.Kernel : Composed kernels, computed natively.
    largemargin.plugins.BlockKernel : A Python kernel with per-row preparation.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> from largemargin.kernels import Linear, RBF
    >>> from largemargin.plugins import get_registry, hookimpl
    >>> class MyKernels:
    ...     @hookimpl
    ...     def largemargin_kernels(self):
    ...         return {"rbf_plus_linear": RBF(0.5) + Linear()}
    >>> get_registry().register(MyKernels(), name="my-kernels")
    'my-kernels'
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> lm.SVC(kernel="rbf_plus_linear").fit(X, [0, 0, 1, 1]).predict([[1.5, 1.5]])
    array([1])
    >>> _ = get_registry().unregister("my-kernels")
    """


@hookspec
def largemargin_losses():
    """Losses for the linear SGD solvers, by name.

    An implementation is an object with ``loss(z, y)`` and ``dloss(z, y)`` (derivative in z),
    z the decision value and y in {-1.0, +1.0}. Each SGD step needs the derivative at the current
    weights before the next step, so ``dloss`` is called once per example and pass, on two floats;
    ``loss`` is called where the objective is summed (t0's search, the final objective), on float64
    arrays of up to 1,024 examples, and must return an array of their shape (numpy ufuncs do both).
    A step costs the plugin's own ``dloss`` on two floats plus about 0.4 us
    (``benches/plugin_loss.py``; docs/benchmarks.rst, "The cost of a Python loss"). `LinearSGD` takes the names
    as its ``loss``.

    Returns
    -------
    dict
        Loss names to implementations.

    See Also
    --------
    LinearSGD : The estimator that uses them.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.plugins import Registry, hookimpl
    >>> class Hinge:
    ...     def loss(self, z, y):
    ...         return np.maximum(0.0, 1.0 - z * y)
    ...     def dloss(self, z, y):
    ...         return -y if z * y < 1.0 else 0.0
    >>> class MyLosses:
    ...     @hookimpl
    ...     def largemargin_losses(self):
    ...         return {"my_hinge": Hinge()}
    >>> registry = Registry(entry_points=[])  # a registry of its own, for the example
    >>> registry.register(MyLosses(), name="my-losses")
    'my-losses'
    >>> registry.resolve("loss", "my_hinge")
    loss 'my_hinge' of plugin 'my-losses'
    """


@hookspec
def largemargin_experts():
    """Expert factories for the mixture of SVMs, by name.

    An implementation is a factory, either a function ``make(**params)`` or an object with such a
    ``make`` method, returning a scikit-learn compatible estimator (``fit``, ``decision_function``
    or ``predict``). `MixtureSVC` and `MixtureSVR` take the names as their ``expert`` and pass
    their ``expert_params`` to the factory.

    Returns
    -------
    dict
        Expert names to factories.

    See Also
    --------
    MixtureSVC : The classification mixture.
    MixtureSVR : The regression mixture.

    Examples
    --------
    >>> from sklearn.linear_model import LogisticRegression
    >>> from largemargin.plugins import Registry, hookimpl
    >>> class MyExperts:
    ...     @hookimpl
    ...     def largemargin_experts(self):
    ...         return {"logistic": lambda **params: LogisticRegression(**params)}
    >>> registry = Registry(entry_points=[])  # a registry of its own, for the example
    >>> registry.register(MyExperts(), name="my-experts")
    'my-experts'
    >>> registry.resolve("expert", "logistic")
    expert 'logistic' of plugin 'my-experts'
    """


@hookspec
def largemargin_selection_strategies():
    """Example-selection strategy factories for LaSVM, by name.

    An implementation is a factory ``make(random_state: int)`` returning an object with
    ``n_candidates`` (how many random unprocessed examples LaSVM scores before each step) and
    ``choose(decision, labels) -> int | None``, which gets the candidates' decision values f(x) and
    labels (NaN where unknown, as in active learning) and returns the position of the example to
    process next, or None to process none of them now (they stay in the pool). A pass in which
    ``choose`` returns None as many times in a row as there are examples left ends there: a
    strategy that declines everything ends the online pass (the finishing step still runs on what
    was processed). `LaSVM` takes the names as its ``selection``.

    Returns
    -------
    dict
        Strategy names to factories.

    See Also
    --------
    LaSVM : The estimator that uses them.

    Examples
    --------
    >>> import numpy as np
    >>> from largemargin.plugins import Registry, hookimpl
    >>> class Nearest:
    ...     n_candidates = 10
    ...     def choose(self, decision, labels):
    ...         return int(np.argmin(np.abs(decision)))
    >>> class MyStrategies:
    ...     @hookimpl
    ...     def largemargin_selection_strategies(self):
    ...         return {"nearest": lambda random_state: Nearest()}
    >>> registry = Registry(entry_points=[])  # a registry of its own, for the example
    >>> registry.register(MyStrategies(), name="my-strategies")
    'my-strategies'
    >>> registry.resolve("selection_strategy", "nearest")
    selection strategy 'nearest' of plugin 'my-strategies'
    """
