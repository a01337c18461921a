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
    about 0.4 us (``benches/plugin_loss.py``; README, "The cost of a Python loss").
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
    """Kernels by name: ``{"chi2": implementation}`` (a ``Kernel`` or a callable ``k(A, B)``)."""


@hookspec
def largemargin_losses():
    """Losses for the linear SGD solvers, by name."""


@hookspec
def largemargin_experts():
    """Expert factories for the mixture of SVMs, by name."""


@hookspec
def largemargin_selection_strategies():
    """Example-selection strategy factories for LaSVM, by name."""
