# Type stubs for largemargin._native, the PyO3 extension built from rust/largemargin-python/src
# (one section per family, as the crate's modules: svm, search, online, larank, sequence, linear,
# linear_svm, mixture, mlp, io).
#
# Every signature mirrors the function's `#[pyo3(signature = ...)]` (names, order, the `*`
# marker, defaults) so that `python -m mypy.stubtest largemargin._native` passes. Array
# arguments are extracted as numpy arrays of exactly the dtype given (no casting), and most of
# them must also be C-contiguous. Vec<T> arguments accept any non-str sequence at runtime.
#
# None of the aliases, Protocols and TypedDicts below exist at runtime. stubtest reports a public
# name missing at runtime, so the type aliases (which cannot be marked) are private (`_Name`),
# and the classes are marked @type_check_only (the result TypedDicts keep public names).

from typing import Any, Callable, Literal, Protocol, TypedDict, Union, final, type_check_only

import numpy as np
import numpy.typing as npt

__all__ = [
    "fit_svc",
    "fit_svr",
    "fit_one_class",
    "cross_validate_svm",
    "fit_lasvm",
    "fit_online_baseline",
    "fit_larank",
    "fit_ambiguous",
    "fit_sequence",
    "predict_sequence",
    "fit_semantic_parser",
    "semantic_feature_counts",
    "parse_sentences",
    "fit_linear",
    "fit_linear_svc",
    "fit_linear_svr",
    "assign_experts",
    "fit_gater",
    "gater_gates",
    "fit_gmm",
    "gmm_log_density",
    "fit_platt",
    "fit_simple_mlp",
    "simple_mlp_decision",
    "fit_nilsson",
    "nilsson_decision",
    "fit_network",
    "network_decision",
    "decision_function",
    "kernel_matrix",
    "auto_cache_size",
    "pairwise_probability",
    "write_libsvm_model",
    "read_libsvm_model",
    "write_file_atomically",
    "LibsvmReader",
    "StopSignal",
    "OPTIONS",
    "__version__",
]

__version__: str

# ---------------------------------------------------------------------------------------------
# Options: the names each core enum reads (its `FromStr`, taken through convert.rs `Wrap`). Any
# other string is a ValueError listing the names; a non-string, a TypeError. OPTIONS holds each
# option's names as the core defines them, keyed by the names after `# OPTIONS[...]` below
# (without the aliases "polynomial" and "log"); tests/test_native_options.py keeps the two equal.
# ---------------------------------------------------------------------------------------------

OPTIONS: dict[str, tuple[str, ...]]

_KernelName = Literal["linear", "poly", "polynomial", "rbf", "sigmoid", "precomputed"]  # OPTIONS["kernel"]
_DualSolver = Literal["smo", "isda"]  # OPTIONS["solver"]
_IsdaBias = Literal["secant", "penalty", "none"]  # OPTIONS["isda_bias"]
_SmoSelection = Literal["second_order", "first_order"]  # OPTIONS["smo_selection"]
_WarmStart = Literal["auto", "keep", "scale", "cold"]  # OPTIONS["warm_start"]
_LaSvmSelection = Literal["random", "gradient", "active", "autoactive"]  # OPTIONS["lasvm_selection"]
_Baseline = Literal["huller", "perceptron", "averaged", "pa", "budget"]  # OPTIONS["online_algorithm"]
_LaRankMethod = Literal["larank", "mira", "perceptron", "averaged_perceptron", "ambigsvm"]  # OPTIONS["larank_method"]
_Schedule = Literal["adaptive", "fixed"]  # OPTIONS["larank_schedule"]
_Clock = Literal["cost", "wall"]  # OPTIONS["larank_clock"]
_SeqMethod = Literal["larank", "larank_adaptive", "pa", "perceptron", "averaged_perceptron"]  # OPTIONS["sequence_method"]
_Inference = Literal["greedy", "exact"]  # OPTIONS["sequence_inference"]
_OspasStrategy = Literal["random", "left-right", "order-free"]  # OPTIONS["ospas_strategy"]
_SgdAlgorithm = Literal["sgd", "svmsgd2", "sgdqn", "sgdqn2009", "asgd", "margin_perceptron"]  # OPTIONS["sgd_algorithm"]
_Loss = Literal["hinge", "squared_hinge", "log_loss", "log", "modified_huber"]  # OPTIONS["loss"]
_LinearSvcLoss = Literal["hinge", "squared_hinge"]  # OPTIONS["linear_svc_loss"]
_LinearSvrLoss = Literal["epsilon_insensitive", "squared_epsilon_insensitive"]  # OPTIONS["linear_svr_loss"]
_MultiClass = Literal["ovr", "crammer_singer"]  # OPTIONS["multi_class"]
_LinearSolver = Literal["dual", "primal"]  # OPTIONS["linear_solver"]
_GaterTask = Literal["classification", "regression"]  # OPTIONS["gater_task"]
_Criterion = Literal["mse", "cross_entropy", "tanh_mse"]  # OPTIONS["mlp_criterion"]
_Optimizer = Literal["sgd", "block_newton"]  # OPTIONS["mlp_optimizer"]
_SvmType = Literal["c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr"]  # OPTIONS["svm_type"]

# ---------------------------------------------------------------------------------------------
# Argument types shared by many functions
# ---------------------------------------------------------------------------------------------

_F64 = npt.NDArray[np.float64]
_F32 = npt.NDArray[np.float32]
_I64 = npt.NDArray[np.int64]
_I32 = npt.NDArray[np.int32]

# A feature matrix (convert.rs, `PyMatrix::extract`): a C-contiguous 2-D float64 or float32
# array, or a CSR tuple (indptr int64, indices int32, data float64 or float32, n_cols), each
# array C-contiguous. A tuple must be a real tuple (a list is rejected).
_NativeMatrix = Union[_F64, _F32, tuple[_I64, _I32, Union[_F64, _F32], int]]

# A composed kernel (convert.rs, `kernel_from_py`): a list of terms
# (weight, [(name, gamma, coef0, degree), ...]), the kernel being the weighted sum of the
# products of each term's factors.
_KernelTerm = tuple[float, list[tuple[_KernelName, float, float, int]]]

@type_check_only
class _TrainingKernel(Protocol):
    # A kernel computed in Python (adapters.rs `PyKernel`; `largemargin.plugins.TrainingKernel`):
    # len() examples, row(i, cols) with cols an int64 array or None (every example), and
    # diagonal(start, stop); both return 1-D float64 arrays of the requested length.
    def __len__(self) -> int: ...
    def row(self, i: int, cols: _I64 | None, /) -> _F64: ...
    def diagonal(self, start: int, stop: int, /) -> _F64: ...

# The `kernel` argument of the kernel fits: a built-in kernel's name (with gamma, coef0 and
# degree), a composed kernel, or a Python kernel object.
_Kernel = Union[_KernelName, list[_KernelTerm], _TrainingKernel]
# The kernels decision_function and kernel_matrix compute themselves (no Python kernel;
# kernel_matrix also rejects "precomputed").
_BuiltinKernel = Union[_KernelName, list[_KernelTerm]]

# ---------------------------------------------------------------------------------------------
# Kernel SVMs (svm.rs, search.rs): SMO or ISDA (isda_bias, isda_k and over_relaxation are read
# for "isda" only; isda_k by "penalty"); max_iter < 0: no limit
# ---------------------------------------------------------------------------------------------

@type_check_only
class FitSvcResult(TypedDict):
    support: _I64
    n_support: _I64
    dual_coef: _F64  # (n_classes - 1) x n_SV
    intercept: _F64
    prob_a: _F64
    prob_b: _F64
    objective: _F64
    n_iter: _I64
    converged: list[bool]
    kernel_evals: int

@type_check_only
class FitSvrResult(TypedDict):
    support: _I64
    dual_coef: _F64  # 1 x n_SV
    intercept: _F64  # one value
    objective: _F64  # one value
    n_iter: _I64  # one value
    converged: list[bool]  # one value
    kernel_evals: int

@type_check_only
class CrossValidateResult(TypedDict):
    # One entry per (setting, fold, C), setting-major, then fold, then C.
    decision: list[_F64]  # eval rows (two classes, regression) or eval rows x n_classes (one-vs-rest scores)
    predicted: list[_I64]  # more than two classes: the class voted; else empty
    n_iter: _I64
    n_support: _I64
    converged: list[bool]
    fit_seconds: _F64
    score_seconds: _F64
    kernel_evals: int
    row_hits: int
    row_misses: int

# (solver and isda_bias default to "smo" and "secant"; the runtime signature shows them as `...`)
def fit_svc(
    x: _NativeMatrix, y: _I64, *, n_classes: int, sample_c: _F64,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    tol: float, shrinking: bool, cache_size: float, max_iter: int, probability: bool, seed: int,
    selection: _SmoSelection, n_jobs: int | None, verbose: bool,
    solver: _DualSolver = ..., isda_bias: _IsdaBias = ..., isda_k: float = 1.0, over_relaxation: float = 1.0,
    nu: float | None = None,  # nu-SVC: sample_c then holds the weights
) -> FitSvcResult: ...
def fit_svr(
    x: _NativeMatrix, y: _F64, *, sample_c: _F64, epsilon: float,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    tol: float, shrinking: bool, cache_size: float, max_iter: int,
    selection: _SmoSelection, n_jobs: int | None, verbose: bool,
    solver: _DualSolver = ..., isda_bias: _IsdaBias = ..., isda_k: float = 1.0, over_relaxation: float = 1.0,
    nu: float | None = None,  # nu-SVR: epsilon then unread
) -> FitSvrResult: ...
def fit_one_class(
    x: _NativeMatrix, *, sample_weight: _F64, nu: float,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    tol: float, shrinking: bool, cache_size: float, max_iter: int,
    selection: _SmoSelection, n_jobs: int | None, verbose: bool,
) -> FitSvrResult: ...
def cross_validate_svm(
    x: _NativeMatrix, *, classes: _I64 | None = None, n_classes: int = 0, targets: _F64 | None = None,
    sample_weight: _F64,
    # kernels: (kernel, gamma, coef0, degree); settings: (kernel and class weights per fold, Cs, epsilon)
    kernels: list[tuple[_KernelName | list[_KernelTerm], float, float, int]],
    settings: list[tuple[list[int], list[list[float]], list[float], float]],
    folds: list[tuple[_I64, _I64]],  # (train, eval)
    tol: float, shrinking: bool, cache_size: float, max_iter: int, selection: _SmoSelection, warm_start: _WarmStart,
    n_jobs: int | None, verbose: bool,
    ovr_scores: bool = True,  # more than two classes: keep the one-vs-rest scores (else decision is empty)
) -> CrossValidateResult: ...
def decision_function(
    x: _NativeMatrix, *, sv: _NativeMatrix, sv_columns: _I64, n_support: _I64, coef: _F64, intercept: _F64,
    kernel: _BuiltinKernel, gamma: float, coef0: float, degree: int, n_jobs: int | None,
) -> _F64: ...  # m x outputs
def kernel_matrix(
    a: _NativeMatrix, b: _NativeMatrix, *,
    kernel: _BuiltinKernel, gamma: float, coef0: float, degree: int, n_jobs: int | None,
) -> _F64: ...  # m x n
def auto_cache_size(rows: int, values: int) -> float: ...  # MB
def pairwise_probability(dec: _F64, *, prob_a: _F64, prob_b: _F64, n_classes: int) -> _F64: ...  # m x n_classes

# ---------------------------------------------------------------------------------------------
# Online solvers (online.rs): `labels` is n_problems x n_examples (+1/-1, NaN: ask the oracle);
# selection is a built-in strategy's name or one strategy per problem.
# Both return ([one dict per problem], kernel evaluations).
# ---------------------------------------------------------------------------------------------

@type_check_only
class _SelectionStrategy(Protocol):
    # A Python LaSVM example-selection strategy (adapters.rs `PyStrategy`): `n_candidates`
    # (positive) and choose(decision, labels) -> the index of the candidate to process, or None.
    @property
    def n_candidates(self) -> int: ...
    def choose(self, decision: _F64, labels: _F64, /) -> int | None: ...

# The LaSVM oracle: oracle(problem, index) -> +1.0 or -1.0.
_Oracle = Callable[[int, int], float]

@type_check_only
class OnlineProblemResult(TypedDict):
    # One binary problem of fit_lasvm / fit_online_baseline.
    support: _I64
    coef: _F64
    bias: float
    gap: float
    objective: float
    processed: int
    inserted: int
    evicted: int
    finishing_iterations: int

def fit_lasvm(
    x: _NativeMatrix, labels: _F64, *, sample_c: _F64,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    tol: float, epochs: int, max_iter: int | None, finishing: bool, shrinking: bool,
    selection: _LaSvmSelection | list[_SelectionStrategy], candidates: int, cache_size: float, seed: int,
    warm: list[list[float]] | None, oracle: _Oracle | None, n_jobs: int | None, verbose: bool,
) -> tuple[list[OnlineProblemResult], int]: ...
def fit_online_baseline(
    x: _NativeMatrix, labels: _F64, *,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    algorithm: _Baseline, c: float, beta: float, budget: int,  # "pa" reads c; "budget" reads beta and budget
    epochs: int, cache_size: float, seed: int, n_jobs: int | None, verbose: bool,
) -> tuple[list[OnlineProblemResult], int]: ...

# ---------------------------------------------------------------------------------------------
# LaRank (larank.rs: multiclass, and from candidate label sets; sequence.rs: sequence labeling).
# schedule is read for method "larank", reprocess for schedule "fixed".
# ---------------------------------------------------------------------------------------------

@type_check_only
class _LaRankStats(TypedDict):
    # larank.rs `set_stats` (the inference counter's key differs: see the subclasses).
    process_new: int
    process_old: int
    optimize: int
    steps: int
    epochs: int
    dual_per_epoch: _F64
    gap_per_epoch: _F64

@type_check_only
class _FitLarankOptional(TypedDict, total=False):
    weights: _F64  # n_classes x n_features: only when the linear path ran (linear kernel)

@type_check_only
class FitLarankResult(_LaRankStats, _FitLarankOptional):
    support: _I64
    coef: _F64  # n_support x n_classes
    dual: float
    gap: float  # NaN when not computed
    support_vectors: int
    kernel_evals: int
    argmax: int

@type_check_only
class FitAmbiguousResult(FitLarankResult):
    support_label: _I64

@type_check_only
class FitSequenceResult(_LaRankStats):
    emission: _F64  # n_features x n_labels
    transition: _F64  # order x (n_labels + 1) x n_labels, START last
    dual: float
    gap: float
    support_patterns: int
    support_vectors: int
    inference_calls: int

def fit_larank(
    x: _NativeMatrix, y: _I64, *, n_classes: int, sample_weight: _F64,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    method_name: _LaRankMethod, schedule: _Schedule, reprocess: int, clock: _Clock,
    c: float, tol: float, epochs: int, until_gap: bool, cache_size: float, warm: _F64 | None, seed: int,
    n_jobs: int | None, verbose: bool,
) -> FitLarankResult: ...
def fit_ambiguous(
    x: _NativeMatrix, bag_offsets: _I64, bag_labels: _I64, *, n_classes: int, sample_weight: _F64,
    kernel: _Kernel, gamma: float, coef0: float, degree: int,
    method_name: _LaRankMethod, schedule: _Schedule, reprocess: int, clock: _Clock,  # not the perceptrons
    c: float, tol: float, epochs: int, until_gap: bool, cache_size: float, seed: int,
    n_jobs: int | None, verbose: bool,
) -> FitAmbiguousResult: ...

# Sequences: tokens in CSR form grouped by seq_ptr (reprocess is read by method "larank").
def fit_sequence(
    indptr: _I64, indices: _I32, data: _F64, *, n_features: int, seq_ptr: _I64, y: _I64, n_labels: int,
    method: _SeqMethod, inference_name: _Inference, order: int,
    c: float, tol: float, reprocess: int, epochs: int, until_gap: bool, seed: int, verbose: bool,
) -> FitSequenceResult: ...
def predict_sequence(
    indptr: _I64, indices: _I32, data: _F64, *, n_features: int, seq_ptr: _I64,
    emission: _F64, transition: _F64, order: int, inference_name: _Inference,
) -> _I64: ...

# ---------------------------------------------------------------------------------------------
# The semantic parser, OSPAS (semantic.rs): sentences as word ids (CSR by sent_ptr; -1 an unknown
# word at parsing), candidate MRs as pairs (CSR by mr_ptr then pair_ptr; role -1 is REL), the
# symbol bags as (symbol, count) entries (CSR by bag_ptr), the symbols and roles met up to each
# sentence (ids in the order met), per symbol the first sentence where it heads an MR (0: an earlier
# call, -1: never). Weights are features x labels.

@type_check_only
class FitSemanticParserResult(TypedDict):
    symbol_w: _F64
    role_w: _F64
    sentences: int
    symbol_updates: int
    symbol_tries: int
    role_updates: int
    role_tries: int
    role_passes: int
    rng_state: int  # where the random stream stopped, for the next call to continue it

@type_check_only
class ParseResult(TypedDict):
    alignment: _I64  # a symbol id per word, in the layout of the words
    mr_ptr: _I64  # MRs of each sentence
    pair_ptr: _I64  # pairs of each MR
    pair_symbol: _I64
    pair_role: _I64  # -1: REL

def semantic_feature_counts(
    *, words_n: int, symbols_n: int, roles_n: int, symbol_window: int, role_window: int,
) -> tuple[int, int]: ...  # rows of the symbol and of the role weights
def fit_semantic_parser(
    sent_ptr: _I64, words: _I64, mr_ptr: _I64, pair_ptr: _I64, pair_symbol: _I64, pair_role: _I64,
    bag_ptr: _I64, bag_symbol: _I64, bag_count: _I64, known_symbols: _I64, known_roles: _I64, rel_since: _I64, *, is_rel: npt.NDArray[np.bool_], symbol_w: _F64, role_w: _F64,
    words_n: int, symbols_n: int, roles_n: int, symbol_window: int, role_window: int,
    c: float, strategy: _OspasStrategy, epochs: int, seed: int, rng_state: int | None, verbose: bool,
) -> FitSemanticParserResult: ...
def parse_sentences(
    sent_ptr: _I64, words: _I64, *, is_rel: npt.NDArray[np.bool_], symbol_w: _F64, role_w: _F64,
    words_n: int, symbols_n: int, roles_n: int, symbol_window: int, role_window: int, n_jobs: int | None,
) -> ParseResult: ...

# ---------------------------------------------------------------------------------------------
# Linear SGD (linear.rs): loss is a built-in loss's name or a CheckedLoss. fit_linear continues
# from `coef` (None: zero models) and `state`, and returns (new state with "coef", [(primal,
# training error, passes, converged) per problem], seconds of the passes, t0, skip); t0=None
# chooses it first (the sample drawn with t0_seed), skip=None is 16 / density; keep_state=False
# keeps none of the optimiser's per-feature state (each problem's is dropped as it ends).
# ---------------------------------------------------------------------------------------------

@type_check_only
class _CheckedLoss(Protocol):
    # A Python loss (adapters.rs `PyLoss`; `largemargin.plugins.checked.CheckedLoss`): the
    # native side calls `impl.dloss(f, y)`, `losses(f, y)` on float64 arrays and, on a failure,
    # `error(what, value, cause)` for the exception to raise.
    impl: Any
    def losses(self, f: _F64, y: _F64, /) -> _F64: ...
    def error(self, what: str, value: object, cause: BaseException | None, /) -> BaseException: ...

@type_check_only
class _LinearStateOptional(TypedDict, total=False):
    # per-feature rows (width 0 when the fit did not keep them, keep_state=False); absent from a
    # state saved before they existed (input only; fit_linear always returns them)
    scale: _F32  # n_problems x (0 or n_features): SGD-QN's rescaling
    previous: _F32  # n_problems x (0 or n_features): SGD-QN's secant end
    asgd_u: _F64  # n_problems x (0 or n_features): ASGD's iterate
    asgd_a: _F64  # n_problems x (0 or n_features): ASGD's average (its implicit form's a)
    asgd: _F64  # n_problems x 5: divisor, coef, norm, bias, count

@type_check_only
class LinearState(_LinearStateOptional):
    # The optimiser states of fit_linear's problems, one entry per binary problem (convert.rs
    # `linear_models_to_py` / `linear_models_from_py`); returned with "coef", the models' weights
    # (n_problems x n_features float64), passed back as fit_linear's `coef`.
    bias: _F64
    t: _F64
    count: npt.NDArray[np.uint64]
    r: _F64
    update_scale: list[bool]

def fit_linear(
    x: _NativeMatrix, labels: _F64, *, sample_weight: _F64, class_weights: list[tuple[float, float]],
    state: LinearState | dict[str, Any],
    algorithm: _SgdAlgorithm, loss: _Loss | _CheckedLoss, alpha: float, t0: float | None, rate: float | None,
    skip: int | None, fit_bias: bool, bias_rate: float, epochs: int, shuffle: bool, seed: int,
    n_jobs: int | None, verbose: bool,
    average_start: float = 0.0, tol: float | None = None, n_iter_no_change: int = 5, t0_seed: int = 0,
    coef: _F64 | None = None, keep_state: bool = True,
) -> tuple[LinearState, list[tuple[float, float, int, bool]], float, float, int]: ...

# ---------------------------------------------------------------------------------------------
# Exact linear SVMs (linear_svm.rs): dual coordinate descent. y holds class indices (int64,
# below n_classes) for the classifier, float64 targets for the regressor; intercept_scaling None
# fits no intercept; solver "primal" (trust-region Newton) takes the squared losses only. coef has one row per binary problem (one for two classes), or per class for
# Crammer-Singer; n_iter and converged one entry per problem.
# ---------------------------------------------------------------------------------------------

@type_check_only
class LinearSvmResult(TypedDict):
    coef: _F64  # rows x n_features
    intercept: _F64  # rows
    n_iter: _I64  # per problem
    converged: list[bool]

def fit_linear_svc(
    x: _NativeMatrix, y: _I64, *, n_classes: int, class_weight: list[float], sample_weight: _F64,
    loss: _LinearSvcLoss, multi_class: _MultiClass, solver: _LinearSolver, c: float, tol: float, max_iter: int,
    intercept_scaling: float | None, seed: int, n_jobs: int | None, verbose: bool,
) -> LinearSvmResult: ...
def fit_linear_svr(
    x: _NativeMatrix, y: _F64, *, sample_weight: _F64, loss: _LinearSvrLoss, epsilon: float, solver: _LinearSolver,
    c: float, tol: float, max_iter: int, intercept_scaling: float | None, seed: int, n_jobs: int | None, verbose: bool,
) -> LinearSvmResult: ...

# ---------------------------------------------------------------------------------------------
# Mixture of experts (mixture.rs): capped assignment, global gater (an MLP), local gater
# (diagonal Gaussian mixtures), Platt scaling, and the stop of runs on worker threads
# ---------------------------------------------------------------------------------------------

# The global gater's weights (mixture.rs `GaterWeights`): (w1: hidden x inputs, b1: hidden,
# w2: experts x hidden, b2: experts), all float64.
_GaterWeights = tuple[_F64, _F64, _F64, _F64]

@type_check_only
class FitGaterResult(TypedDict):
    w1: _F64  # hidden x inputs
    b1: _F64
    w2: _F64  # experts x hidden
    b2: _F64
    losses: _F64  # per epoch

@type_check_only
class FitGmmResult(TypedDict):
    weights: _F64  # components
    means: _F64  # components x dims
    variances: _F64  # components x dims

def assign_experts(preference: _F64, *, cap: int, order: _I64) -> _I64: ...
def fit_gater(
    x: _F64, outputs: _F64, candidates: _I64 | None, y: _F64, *, task: _GaterTask, experts: int, hidden: int,
    epochs: int, learning_rate: float, decay: float, seed: int, warm: _GaterWeights | None, n_jobs: int | None,
) -> FitGaterResult: ...
def gater_gates(x: _F64, *, weights: _GaterWeights, n_jobs: int | None) -> _F64: ...  # n x experts
def fit_gmm(
    x: _F64, *, components: int, iterations: int, tol: float, variance_floor: float, seed: int, n_jobs: int | None
) -> FitGmmResult: ...
def gmm_log_density(x: _F64, *, weights: _F64, means: _F64, variances: _F64, n_jobs: int | None) -> _F64: ...
def fit_platt(decision: _F64, positive: npt.NDArray[np.bool_]) -> tuple[float, float]: ...  # (a, b)
@final
class StopSignal:
    def __new__(cls) -> StopSignal: ...
    def request(self) -> None: ...
    @property
    def requested(self) -> bool: ...
    def __enter__(self) -> StopSignal: ...
    def __exit__(self, *_args: object) -> Literal[False]: ...

# ---------------------------------------------------------------------------------------------
# Margin MLPs (mlp.rs; labels +-1; x_val and y_val both given or both None): simple MLP,
# Nilsson committee, tanh network (optimizer "block_newton" reads damping and sample)
# ---------------------------------------------------------------------------------------------

# An MLP hidden layer (mlp.rs `Layer`): (v: hidden x inputs float32, d: hidden float64).
_Layer = tuple[_F32, _F64]

@type_check_only
class _MlpFitResult(TypedDict):
    # mlp.rs `fit_dict`: the kept layer and the per-epoch curves.
    v: _F32  # hidden x inputs
    d: _F64
    b: float
    best_epoch: int
    epochs: int
    train_loss: _F64
    train_error: _F64
    updates: npt.NDArray[np.uint64]
    validation_error: _F64

@type_check_only
class FitSimpleMlpResult(_MlpFitResult): ...

@type_check_only
class FitNilssonResult(_MlpFitResult): ...  # b is 0.0: no output bias

@type_check_only
class FitNetworkResult(_MlpFitResult):
    w: _F64

def fit_simple_mlp(
    x: _NativeMatrix, y: _F64, x_val: _NativeMatrix | None, y_val: _F64 | None, *,
    hidden: int, beta: float, learning_rate: float, decay: float, max_epochs: int, patience: int, seed: int,
    warm: tuple[_Layer, float] | None, n_jobs: int | None, average: bool = False, init_scale: float = 1.0,
) -> FitSimpleMlpResult: ...
def simple_mlp_decision(x: _NativeMatrix, *, layer: _Layer, b: float, n_jobs: int | None) -> _F64: ...
def fit_nilsson(
    x: _NativeMatrix, y: _F64, x_val: _NativeMatrix | None, y_val: _F64 | None, *,
    hidden: int, learning_rate: float, max_epochs: int, patience: int, seed: int, init_scale: float,
    n_jobs: int | None,
) -> FitNilssonResult: ...
def nilsson_decision(x: _NativeMatrix, *, layer: _Layer, n_jobs: int | None) -> _F64: ...
def fit_network(
    x: _NativeMatrix, y: _F64, x_val: _NativeMatrix | None, y_val: _F64 | None, *,
    hidden: int, criterion: _Criterion, optimizer: _Optimizer, learning_rate: float, damping: float, sample: int,
    max_epochs: int, patience: int, seed: int, n_jobs: int | None,
) -> FitNetworkResult: ...
def network_decision(x: _NativeMatrix, *, layer: _Layer, w: _F64, b: float, n_jobs: int | None) -> _F64: ...

# ---------------------------------------------------------------------------------------------
# Files (io.rs): LIBSVM model files, LIBSVM/svmlight data, files written whole or not at all
# ---------------------------------------------------------------------------------------------

@type_check_only
class ReadLibsvmModelResult(TypedDict):
    svm_type: _SvmType
    kernel: Literal["linear", "poly", "rbf", "sigmoid", "precomputed"]
    gamma: float
    coef0: float
    degree: int
    labels: _I64
    n_support: _I64
    rho: _F64
    prob_a: _F64
    prob_b: _F64
    sv_coef: _F64  # rows x n_SV
    sv_indices: _I64
    sv: tuple[_I64, _I32, _F64, int]  # CSR (indptr, indices, data, n_features)

# Parsed LIBSVM rows: (labels, indptr, indices, data, n_features).
_LibsvmRows = tuple[_F64, _I64, _I32, _F64, int]

def write_libsvm_model(
    path: str, *, svm_type: _SvmType, kernel: _KernelName, gamma: float, coef0: float, degree: int,
    labels: _I64, n_support: _I64, rho: _F64, prob_a: _F64, prob_b: _F64, sv_coef: _F64,
    sv: _NativeMatrix, sv_indices: _I64, zero_based: bool,
) -> None: ...
def read_libsvm_model(path: str, *, zero_based: bool) -> ReadLibsvmModelResult: ...
def write_file_atomically(path: str, data: bytes) -> None: ...
@final
class LibsvmReader:
    # Incremental LIBSVM/svmlight parser: feed bytes, then finish (or take rows as they come).
    def __new__(cls) -> LibsvmReader: ...
    def feed(self, chunk: bytes) -> None: ...
    def rows(self) -> int: ...
    def lines(self) -> int: ...
    def end_input(self) -> None: ...
    def uses_index_zero(self) -> bool: ...
    def take(self, zero_based: bool, last: bool) -> _LibsvmRows: ...
    def finish(self, zero_based: bool | None = None) -> _LibsvmRows: ...
