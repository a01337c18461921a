"""Every fixed set of option values the package takes, defined once: the estimators' parameter
constraints, the built-in plugin's registrations, the command-line tool and the tests read them
from here (`tests/test_options.py` checks that the docstrings list the same values). Each tuple
is in the order messages and docs list it, the default first where there is one.

Names a plugin can add to (kernels, losses, selection strategies, mixture experts) are the
built-in ones here; the estimators accept any name the plugin registry knows.
"""

# --- what the native engine provides (registered by the built-in plugin) ---------------------
KERNELS = ("linear", "poly", "rbf", "sigmoid", "precomputed")
# the kernels that take gamma (and so a "scale"/"auto" rule for it)
GAMMA_KERNELS = ("rbf", "poly", "sigmoid")
# the kernels LIBSVM's svm-train numbers 0..3 (-t), in that order
LIBSVM_KERNELS = ("linear", "poly", "rbf", "sigmoid")
SELECTION_STRATEGIES = ("random", "gradient", "active", "autoactive")  # LaSVM's
LOSSES = ("hinge", "squared_hinge", "log_loss", "modified_huber")  # LinearSGD's
EXPERTS = ("svc", "svr")  # the mixtures'

# --- kernel machines ---------------------------------------------------------------------------
GAMMA_RULES = ("scale", "auto")
SMO_SELECTIONS = ("second_order", "first_order")
SVM_SOLVERS = ("smo", "isda")
ISDA_BIASES = ("secant", "penalty", "none")
DECISION_SHAPES = ("ovr", "ovo")
MULTICLASS = ("ovo", "ovr")  # LaSVM's binary problems
BASELINE_RULES = ("perceptron", "averaged", "pa", "budget")  # KernelPerceptron's

# --- LaRank and sequences ----------------------------------------------------------------------
LARANK_METHODS = ("larank", "mira", "perceptron", "averaged_perceptron")
AMBIGUOUS_METHODS = ("larank", "mira", "ambigsvm")
SCHEDULES = ("adaptive", "fixed")
CLOCKS = ("cost", "wall")
SEQUENCE_METHODS = ("larank_greedy", "larank_exact", "perceptron", "pa")
INFERENCES = ("greedy", "exact")
OSPAS_STRATEGIES = ("random", "left-right", "order-free")  # SemanticParser's exploration
OSPAS_PADDINGS = ("each", "all")  # SemanticParser's count of "-" in a bag
ADAPTIVE = "adaptive"  # SequenceLabeler's n_reprocess that follows LaRank's adaptive schedule

# --- linear and MLPs ---------------------------------------------------------------------------
SGD_ALGORITHMS = ("asgd", "sgdqn", "sgdqn2009", "svmsgd2", "sgd")
MLP_CRITERIA = ("cross_entropy", "mse", "tanh_mse")
MLP_OPTIMIZERS = ("sgd", "block_newton")
AUTO = "auto"  # learning_rate="auto", n_experts="auto"
LINEAR_SVC_LOSSES = ("squared_hinge", "hinge")  # LinearSVC's
LINEAR_SVC_PENALTIES = ("l2", "l1")  # LinearSVC's ("l1" is refused with its reason)
LINEAR_SVR_LOSSES = ("epsilon_insensitive", "squared_epsilon_insensitive")  # LinearSVR's
MULTI_CLASS_LINEAR = ("ovr", "crammer_singer")  # LinearSVC's

# --- mixtures and searches ---------------------------------------------------------------------
GATERS = ("global", "local")
BACKENDS = ("threads", "dask")
C_STARTS = ("auto", "keep", "scale", "cold")
