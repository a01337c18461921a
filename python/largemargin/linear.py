"""Linear SVMs trained by stochastic gradient in Rust: averaged SGD (Xu 2011), SGD-QN as corrected
by its authors (Bordes, Bottou, Gallinari and Chang 2010) and in its 2009 form, SVMSGD2 (Bottou
2007), plain SGD, and the margin perceptron of Collobert and Bengio (2004).
Multiclass problems are one-vs-rest, the binary problems solved in parallel."""

from numbers import Integral, Real

import numpy as np

from ._base.linear_sgd import _LinearSGDBase
from ._checks import draw_seed
from ._options import SGD_ALGORITHMS
from ._validation import HasMethods, Interval, Options, Registered
from .exceptions import InvalidParameterError
from .plugins import NativeLoss, get_registry
from .plugins.checked import CheckedLoss

__all__ = ["LinearSGD", "MarginPerceptron"]


class LinearSGD(_LinearSGDBase):
    """Linear SVM (or another margin loss) trained by stochastic gradient.

    Minimises the primal ``alpha/2 |w|^2 + 1/n sum_i sample_weight_i loss(y_i f(x_i))`` by one of
    five stochastic gradient algorithms: averaged SGD (Xu 2011), SGD-QN as corrected by its authors
    (Bordes, Bottou, Gallinari and Chang 2010) and in its 2009 form, SVMSGD2 (Bottou 2007), and
    plain SGD. Multiclass problems are one-vs-rest, the binary problems solved in parallel.
    Weights are kept in float32 during training. `partial_fit` continues the optimiser over a
    stream.

    Parameters
    ----------
    algorithm : {"asgd", "sgdqn", "sgdqn2009", "svmsgd2", "sgd"}, default="asgd"
        ``"asgd"``: averaged SGD, plain SGD steps eta0 / (1 + alpha eta0 t)^0.75 with
        eta0 = 1/(alpha t0) (Xu 2011's schedule), the model the running average of the iterates
        from ``average_start`` on; the average is kept implicitly (two float64 vectors and a few
        scalars per problem), O(nnz) per step. ``"sgdqn"``: SGD-QN as its authors corrected it
        (JMLR 2010 erratum): per-coordinate steps whose inverse accumulates, every ``skip``
        examples, a secant estimate of the curvature (clipped to [0.1, 100] alpha) from
        1/(alpha t0). ``"sgdqn2009"``: the 2009 form (the thesis' version): SVMSGD2's
        1/(alpha (t + t0)) steps rescaled by a leaky average of secant ratios. ``"svmsgd2"``:
        pattern steps on the nonzeros of x, the regulariser applied every ``skip`` examples.
        ``"sgd"``: the plain first-order step, O(d) per example.
        The default's origin: on ``make_rcv1_like`` (270,000 training rows, alpha 1e-5, 5% and
        10% flipped labels) ASGD is within 0.3 points of LinearSVC's test error after 1 and 2
        passes with hinge and squared hinge, where SVMSGD2 and both SGD-QNs are 0.37-0.39 points
        behind after 2 with squared hinge at 10% noise (``benches/studies/asgd.py``); on adult it tests
        0.6 points better than the 2009 SGD-QN (the previous default) and on ijcnn1 the same.
    loss : str or object, default="squared_hinge"
        ``"squared_hinge"`` (1/2 max(0, 1 - m)^2, the papers' loss), ``"hinge"``, ``"log_loss"``,
        ``"modified_huber"``, any loss a plugin registers, or an object with ``loss(f, y)``
        (called on arrays of a block of examples) and ``dloss(f, y)`` (called on two floats, once
        per step); a Python loss trains the binary problems one after another, whatever n_jobs.
        (With squared hinge, scikit-learn's LinearSVC(C) is alpha = 1/(2 n C).)
    alpha : float, default=1e-4
        The regularisation lambda.
    epochs : int or None, default=None
        Passes over the data in `fit`; None: until the objective stops improving (``tol``,
        ``n_iter_no_change``), at most ``max_iter`` passes.
    tol : float or None, default=1e-4
        With epochs=None: after each pass the primal of the model as returned (ASGD's average,
        not its last iterate) is evaluated, one pass over the data without updates; a pass that
        lowers the best value so far by less than ``tol`` times the zero model's primal (the
        weighted mean loss at margin 0: 1/2 per unit weight for the squared hinge) counts as no
        change, and ``n_iter_no_change`` of them in a row end the problem's passes (each
        one-vs-rest problem stops on its own). None: no evaluations, ``max_iter`` passes.
        The scale is the zero model's, not the objective's own: a separable problem's objective
        falls towards 0 as 1/passes, and a relative change never met 1e-3 within 1000 passes.
        The default's origin, on the benchmark suite (47 datasets, ``benches/suite.py``): the
        previous 10^6 steps (at least 5 passes) were within 1 point of SGDClassifier and of
        LinearSVC on 91% and 96% of the sets, error ratio against LinearSVC 1.021, at 11.9 times
        SGDClassifier's fit time (up to 70x); tol 1e-4: 94% and 98%, 1.018, 1.3 times (up to
        5.6x); tol 1e-3 stopped too early: 91% and 87%, 1.044.
    n_iter_no_change : int, default=5
        Passes without change that stop the fit (as scikit-learn's SGDClassifier).
    max_iter : int, default=1000
        With epochs=None: the cap on the passes; reaching it with ``tol`` unmet warns
        (ConvergenceWarning).
    t0 : float or None, default=None
        Step sizes are 1/(alpha (t + t0)) (SGD-QN's start at that too; ASGD's are
        eta0 / (1 + t/t0)^0.75, eta0 = 1/(alpha t0)). None: chosen as the thesis does, by one
        pass over a random tenth of the data (at least 1,000 examples, at most 5,000) for
        t0 = 1, 10, ..., 1e8 (ASGD with its averaging, which starts within the sample when
        ``average_start`` is 0), the lowest primal there winning, but never below the stable t0:
        ``curvature * max_i c_i (|x_i|^2 + intercept_rate) / alpha``, c_i the example's weight
        (class weights included, the largest over the one-vs-rest problems) and the curvature the
        largest change of the loss's derivative over a unit change of the decision value (1 for
        the hinge and squared hinge, 2 for modified Huber, 0.245 for the log loss, the secant of
        its derivative over a unit change): no first step overshoots an example's own margin, so
        the passes cannot diverge (iris, standardised: the unbounded search chose t0 = 1000, and
        the squared hinge overflowed in the second pass).
    skip : int or None, default=None
        Examples between regularisation steps; None: 16 / density.
    average_start : float, default=0.0
        ASGD: the passes over the data (of the first call's size) before the iterates start
        being averaged; 0 averages from the first step. The default's origin: starting at 0.1,
        0.25, 0.5 or 1 pass was as good or worse after 1 and 2 passes on ``make_rcv1_like``
        (up to 1.5 points worse after one pass with squared hinge) and no better on adult and
        ijcnn1: with t0 chosen as above the first steps are already small.
    fit_intercept : bool, default=True
        Learn an unregularised bias, its step ``intercept_rate`` times the weights'.
    intercept_rate : float, default=1.0
        The bias' step relative to the weights'. The default's origin: Bottou's reduced 0.01 left
        the bias of one-vs-rest problems (a class against nine others needs a bias far from 0) and
        of low-dimensional ones (banana, 2 features) barely moved: on the suite after 5 passes
        0.01, 0.1 and 1 gave 32, 37 and 39 of 46 sets within 1 point of SGDClassifier (27, 29 and
        35 of LinearSVC); at 10^6 steps 0.3 and 1 both 44 of 46 against LinearSVC, error ratios
        1.029 and 1.022.
    shuffle : bool, default=True
        A new random order each epoch (else the data's order).
    class_weight : dict or "balanced", default=None
        Multiplies the example weights per class: for two classes, each class' weight; one-vs-rest,
        the class against weight 1 for the rest (as scikit-learn's SGDClassifier).
    random_state : int, RandomState or None, default=None
        Seeds the shuffling and the sample that chooses t0.
    n_jobs : int or None, default=None
        Threads (None: every core). One-vs-rest problems train in parallel; a binary problem
        on sparse data uses a second thread to fetch the rows of a shuffled pass ahead of the
        steps. The model is the same for every n_jobs.
    verbose : bool, default=False
        Print, per binary problem, the passes run, the objective and the training error, then
        the time taken.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights (of ASGD's average for ``"asgd"``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The biases.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    objective_ : ndarray of shape (n_problems,)
        The primal of each binary problem after the last pass.
    training_error_ : ndarray of shape (n_problems,)
        The training error of each binary problem after the last pass.
    n_iter_ : int
        The passes run: the most of any problem's (summed over `partial_fit` calls).
    t_ : int
        Examples seen, counted by the optimiser (of the first binary problem).
    t0_ : float
        The t0 used (chosen by the first fit when ``t0`` is None).
    skip_ : int
        The ``skip`` used (read from the data when None).
    average_start_ : float
        ASGD: ``average_start`` in examples.
    fit_time_ : float
        Seconds of the passes of the last call.
    call_time_ : float
        Seconds of the whole last call: t0's choice and the objective's evaluation included.
    n_features_in_ : int
        Features seen in `fit`.

    See Also
    --------
    MarginPerceptron : The margin perceptron, a constant-rate relative.
    SVC : A kernel SVM, here with ``kernel="linear"`` solved exactly in the dual.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.preprocessing import StandardScaler
    >>> import largemargin as lm
    >>> X, y = load_iris(return_X_y=True)
    >>> X = StandardScaler().fit_transform(X)
    >>> clf = lm.LinearSGD(random_state=0).fit(X, y)
    >>> clf.coef_.shape
    (3, 4)
    >>> round(float(clf.score(X, y)), 2)
    0.96
    """

    _auto_epochs = True

    def __init__(self, *, algorithm="asgd", loss="squared_hinge", alpha=1e-4, epochs=None, tol=1e-4,
                 n_iter_no_change=5, max_iter=1000, t0=None, skip=None, average_start=0.0, fit_intercept=True,
                 intercept_rate=1.0, shuffle=True, class_weight=None, random_state=None, n_jobs=None, verbose=False):
        self.algorithm = algorithm
        self.tol = tol
        self.n_iter_no_change = n_iter_no_change
        self.max_iter = max_iter
        self.average_start = average_start
        self.loss = loss
        self.alpha = alpha
        self.epochs = epochs
        self.t0 = t0
        self.skip = skip
        self.fit_intercept = fit_intercept
        self.intercept_rate = intercept_rate
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    def _algorithm(self):
        return self.algorithm

    _parameter_constraints = {
        **_LinearSGDBase._parameter_constraints,
        "algorithm": [Options(SGD_ALGORITHMS)],
        "loss": [Registered("loss"), HasMethods("loss", "dloss")],
        "alpha": [Interval(Real, 0, None, closed="neither")],
        "epochs": [Interval(Integral, 1, None), None],
        "tol": [Interval(Real, 0, None), None],
        "max_iter": [Interval(Integral, 1, None)],
        "t0": [Interval(Real, 0, None, closed="neither"), None],
        "skip": [Interval(Integral, 1, None), None],
        "average_start": [Interval(Real, 0, None)],
        "intercept_rate": [Interval(Real, 0, None)],
    }

    def _check_relations(self):
        """The loss resolved: a built-in's name, a plugin's checked loss or the user's object."""
        loss = self.loss
        if isinstance(loss, str):
            loss = get_registry().resolve("loss", loss)
        if isinstance(loss, NativeLoss):
            self._loss = loss.name
        elif isinstance(loss, CheckedLoss):
            self._loss = loss
        elif hasattr(loss, "loss") and hasattr(loss, "dloss"):
            self._loss = CheckedLoss(type(loss).__name__, None, loss)  # the user's own object
        else:
            raise InvalidParameterError(f"loss {self.loss!r} of the registry is not a loss: {loss!r}")

    def _stopping(self):
        return self.tol, self.n_iter_no_change, self.max_iter

    def _native_args(self, xn):
        # no skip_ or t0_ yet: the first fit reads skip from the data (its entries checked
        # unique) and chooses t0
        if not hasattr(self, "skip_") and self.skip is not None:
            self.skip_ = int(self.skip)
        if not hasattr(self, "t0_") and self.t0 is not None:
            self.t0_ = float(self.t0)
        return (self._algorithm(), self._loss, self.alpha, getattr(self, "t0_", None), None, getattr(self, "skip_", None),
                self.intercept_rate)

    def _average_start(self, n):
        if self._algorithm() != "asgd":
            return 0.0
        if not hasattr(self, "average_start_"):
            self.average_start_ = float(self.average_start) * n
        return self.average_start_


class MarginPerceptron(_LinearSGDBase):
    """The margin perceptron of Collobert and Bengio (2004), a linear classifier.

    In sequence, whenever y (<w, x> + b) <= 1, w += learning_rate y x and b += learning_rate y.
    With ``weight_decay`` mu, every step first multiplies w by (1 - learning_rate mu): that is SGD
    on the linear SVM in their parametrisation (C = 1/(n mu)). The margin is controlled by the
    learning rate and the number of updates; ``early_stopping`` keeps the epoch with the best
    accuracy on a held-out ``validation_fraction`` (stratified), stopping after
    ``n_iter_no_change`` epochs without improvement. Multiclass problems are one-vs-rest, solved
    in parallel.

    The defaults (learning rate 0.01, 20 epochs, no early stopping) were checked against
    scikit-learn's ``Perceptron()`` and kept: on the 47-dataset suite (benches/suite.py) within 1
    point of it or better on every dataset, geometric mean error ratio 0.763; in the study that
    chose them (benches/studies/mlp_defaults.py, on the 45 datasets it scored) 0.750, better than
    the variants tried (early stopping, 50 epochs, learning rate 1).

    Parameters
    ----------
    learning_rate : float, default=0.01
        The constant step.
    weight_decay : float, default=0.0
        The decay mu: each step first multiplies w by (1 - learning_rate mu).
    epochs : int, default=20
        Passes over the data in `fit` (at most this many with early stopping).
    fit_intercept : bool, default=True
        Learn the bias b.
    early_stopping : bool, default=False
        Keep the epoch with the best accuracy on a held-out split.
    validation_fraction : float, default=0.1
        The held-out share for early stopping, in (0, 1).
    n_iter_no_change : int, default=5
        Epochs without a better held-out accuracy that end the fit with early stopping.
    shuffle : bool, default=True
        A new random order each epoch (else the data's order).
    class_weight : dict or "balanced", default=None
        Multiplies the example weights per class, as in `LinearSGD`.
    random_state : int, RandomState or None, default=None
        Seeds the shuffling and the held-out split.
    n_jobs : int or None, default=None
        Threads for the one-vs-rest problems (None: every core).
    verbose : bool, default=False
        Print, per binary problem, the passes run, the objective and the training error.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        The weights w.
    intercept_ : ndarray of shape (1,) or (n_classes,)
        The biases b.
    classes_ : ndarray of shape (n_classes,)
        The class labels.
    validation_scores_ : ndarray of shape (n_epochs_run,)
        With early stopping: the held-out accuracy after each epoch.
    best_epoch_ : int
        With early stopping: the epoch kept (from 1).
    objective_, training_error_, n_iter_, t_, fit_time_, call_time_, n_features_in_
        As in `LinearSGD`. With early stopping, ``objective_`` and ``training_error_`` are those
        of the epoch kept (on the training part), ``n_iter_`` counts the epochs run, and
        ``fit_time_`` sums them.

    See Also
    --------
    LinearSGD : Linear SVMs by SGD with decreasing steps.
    KernelPerceptron : Kernel perceptrons.
    SimpleMLPClassifier : The very simple MLP, the margin perceptron with hidden units.

    Examples
    --------
    >>> import numpy as np
    >>> import largemargin as lm
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [-1.5, -2.0], [1.0, 1.0], [2.0, 1.0], [1.5, 2.0]])
    >>> y = np.array([0, 0, 0, 1, 1, 1])
    >>> clf = lm.MarginPerceptron(random_state=0).fit(X, y)
    >>> clf.predict([[-0.8, -1.0], [1.2, 0.9]])
    array([0, 1])
    """

    def __init__(self, *, learning_rate=0.01, weight_decay=0.0, epochs=20, fit_intercept=True, early_stopping=False,
                 validation_fraction=0.1, n_iter_no_change=5, shuffle=True, class_weight=None, random_state=None,
                 n_jobs=None, verbose=False):
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.epochs = epochs
        self.fit_intercept = fit_intercept
        self.early_stopping = early_stopping
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.shuffle = shuffle
        self.class_weight = class_weight
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose

    _parameter_constraints = {
        **_LinearSGDBase._parameter_constraints,
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None)],
        "early_stopping": ["boolean"],
        "validation_fraction": [Interval(Real, 0, 1, closed="neither")],
    }

    def _native_args(self, xn):
        # the rate is constant; t0 and skip play no part
        return "margin_perceptron", "hinge", self.weight_decay, 1.0, float(self.learning_rate), 1, 1.0

    def _passes(self, X, y, classes, sample_weight):
        """`epochs` passes, or with early stopping the best epoch on a held-out split."""
        if not self.early_stopping:
            return super()._passes(X, y, classes, sample_weight)
        from sklearn.model_selection import train_test_split

        train, held = train_test_split(np.arange(len(y)), test_size=self.validation_fraction, stratify=y,
                                       random_state=draw_seed(self.random_state))
        scores, best, waited, seconds = [], None, 0, 0.0
        for epoch in range(self.epochs):
            self._train(X[train], y[train], classes, sample_weight[train], 1)
            seconds += self.fit_time_
            scores.append(float(np.mean(self.predict(X[held]) == y[held])))
            if best is None or scores[-1] > best[0]:
                state = dict({k: np.copy(v) for k, v in self._state.items()}, coef=np.copy(self.coef_))
                # what describes that model (n_iter_ stays the passes run)
                measured = {k: np.copy(getattr(self, k)) for k in ("objective_", "training_error_")}
                best, waited = (scores[-1], epoch, state, measured), 0
            else:
                waited += 1
                if waited >= self.n_iter_no_change:
                    break
        self._set_state(best[2])
        for name, value in best[3].items():
            setattr(self, name, value)
        self.validation_scores_ = np.array(scores)
        self.best_epoch_ = best[1] + 1
        self.fit_time_ = seconds
        return self
