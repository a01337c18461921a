"""The `largemargin` console command: train, predict and evaluate kernel SVMs on LIBSVM files,
or on the bundled Adult dataset when no file is given; search C and gamma by cross-validation.

A run reads all its files with one index base. `train` reads the training and test files with the
base given (`--zero-based`/`--one-based`) or, by default, zero-based if either uses feature index
0; the model is written with that base, so that LIBSVM's tools read it as it was meant. `predict`
and `eval` match the indices of the model and the data file literally, as LIBSVM's svm-predict
does, so they need no base. Output files are written whole or not at all."""

import argparse
import sys
import time

import numpy as np

from . import _native
from ._arrays import scale_gamma, variance
from ._options import LIBSVM_KERNELS, SELECTION_STRATEGIES, SGD_ALGORITHMS
from .datasets import load_adult, load_libsvm, read_files
from .lasvm import LaSVM
from .linear import LinearSGD
from .model_io import load_libsvm_model, save_libsvm_model
from .nu_svm import NuSVC, NuSVR
from .one_class import OneClassSVM
from .plugins import get_registry
from .svm import SVC, SVR


def _gamma(text):
    return text if text in ("scale", "auto") else float(text)


def _train(args):
    if args.data is None:
        Xtr, ytr = load_adult("train")
        Xte, yte = load_adult("test")
        name = "adult (bundled: 32,561 train / 16,281 test, 123 features)"
        C = 100.0 if args.C is None else args.C
        gamma = 0.005 if args.gamma is None else args.gamma
        zero_based = True  # the bundled files are zero-based
    else:
        paths = [args.data] + ([args.test] if args.test else [])
        parts, zero_based, widths = read_files(paths, None, args.zero_based, np.float64)
        (Xtr, ytr), (Xte, yte) = parts[0], parts[1] if args.test else (None, None)
        if len(ytr) == 0:
            raise ValueError(f"{args.data}: no examples")
        if args.test and len(yte) == 0:
            raise ValueError(f"{args.test}: no examples")
        name = f"{args.data} ({'0' if zero_based else '1'}-based feature indices)"
        C = 1.0 if args.C is None else args.C
        gamma = "scale" if args.gamma is None else args.gamma
        if gamma in ("scale", "auto") and args.solver in ("smo", "lasvm"):
            # from the training file alone: the test file only widens the matrices with zeros
            own = widths[0]
            gamma = scale_gamma(own, variance(Xtr[:, :own])) if gamma == "scale" else 1.0 / own
    args.svr = args.svm_type in (3, 4)
    if args.probability and args.svm_type in (3, 4):
        raise ValueError(f"-b: probability estimates are for classifiers here, not regression (-s {args.svm_type})")
    if args.probability and args.svm_type == 2:
        raise ValueError("-b with -s 2: one-class density marks are trained by the native largemargin-cli")
    if not 0 < args.nu <= 1:
        raise ValueError(f"-n/--nu must be in (0, 1], got {args.nu}")
    if args.folds is not None and args.folds < 2:
        raise ValueError(f"-v must be at least 2, got {args.folds}")
    if args.folds is not None and args.model:
        raise ValueError("-v cross-validates: no model is written (drop MODEL)")
    if args.epsilon < 0:
        raise ValueError(f"-p/--epsilon must be >= 0, got {args.epsilon}")
    common = dict(C=C, kernel=args.kernel, gamma=gamma, degree=args.degree, coef0=args.coef0, tol=args.tol,
                  cache_size=args.cache_size, n_jobs=args.n_jobs, verbose=args.verbose)
    if args.solver in _LINEAR_SOLVERS:
        return _train_linear(args, name, Xtr, ytr, Xte, yte)
    if args.solver == "lasvm":
        if args.svm_type != 0 or args.probability:
            raise ValueError("--solver lasvm trains C-SVC classifiers without probabilities: drop -s/--svr and -b")
        if args.model:
            raise ValueError("LaSVM models are not written in LIBSVM's format (that holds SMO's SVC and SVR): "
                             "pickle them from Python")
        model = LaSVM(epochs=args.epochs or 1, selection=args.selection, random_state=0, **common)
    elif args.svm_type == 3:
        model = SVR(epsilon=args.epsilon, shrinking=args.shrinking, **common)
    elif args.svm_type == 4:
        model = NuSVR(nu=args.nu, shrinking=args.shrinking, **common)
    elif args.svm_type in (1, 2):  # nu in place of C
        common.pop("C")
        model = (NuSVC(nu=args.nu, probability=args.probability, shrinking=args.shrinking, random_state=0, **common)
                 if args.svm_type == 1 else OneClassSVM(nu=args.nu, shrinking=args.shrinking, **common))
    else:
        model = SVC(probability=args.probability, shrinking=args.shrinking, random_state=0, **common)
    if args.folds is not None:
        return _cross_validation(args, model, Xtr, ytr)
    if not args.quiet:
        setting = f"nu={args.nu}" if args.svm_type in (1, 2) else f"C={C}" + (f", nu={args.nu}" if args.svm_type == 4 else "")
        shown_gamma = "" if args.kernel in ("linear", "precomputed") else f", gamma={gamma}"
        print(f"training {type(model).__name__} on {name}: {Xtr.shape[0]} examples, kernel={args.kernel}, "
              f"{setting}{shown_gamma}, tol={args.tol}")
    try:
        model.fit(Xtr, ytr)
    except ValueError as e:
        raise ValueError(f"{args.data or 'adult'}: {e}") from None
    print(f"fit time        {model.fit_time_:.2f} s")
    print(f"support vectors {int(len(model.support_))}")
    print(f"kernel evals    {model.n_kernel_evals_:,}")
    print(f"dual objective  {float(np.sum(model.objective_)):.6g}")
    if Xte is not None:
        t = time.perf_counter()
        pred = model.predict(Xte)
        pt = time.perf_counter() - t
        if args.svr:
            # the figures predict and eval print for the same model and file
            mse = float(np.mean((pred - yte) ** 2))
            print(f"test MSE        {mse:.6g}  ({len(yte)} examples, {pt:.2f} s)")
        else:
            print(f"test error      {100 * np.mean(pred != yte):.2f} %  ({len(yte)} examples, {pt:.2f} s)")
    path = args.model
    if path is None and args.data is not None and args.solver == "smo":
        import os

        path = os.path.basename(args.data) + ".model"  # svm-train's default: in the current directory
    if path:
        save_libsvm_model(model, path, zero_based=zero_based)
        print(f"model written to {path}")
    return 0


# `largemargin train --solver` choices that train LinearSGD with that algorithm
_LINEAR_SOLVERS = tuple(a for a in SGD_ALGORITHMS if a != "sgd")


def _train_linear(args, name, Xtr, ytr, Xte, yte):
    """A linear SVM by stochastic gradient (squared hinge, the papers' loss)."""
    if args.svm_type != 0 or args.probability or args.model:
        raise ValueError(f"--solver {args.solver} trains linear classifiers: drop -s/--svr, -b and MODEL "
                         "(pickle the model from Python)")
    alpha = 1e-4 if args.alpha is None else args.alpha
    model = LinearSGD(algorithm=args.solver, alpha=alpha, epochs=args.epochs, random_state=0,
                      n_jobs=args.n_jobs, verbose=args.verbose)
    if args.folds is not None:
        return _cross_validation(args, model, Xtr, ytr)
    passes = "passes until the objective stops improving" if args.epochs is None else f"{args.epochs} passes"
    print(f"training {args.solver} (linear, squared hinge) on {name}: {Xtr.shape[0]} examples, alpha={alpha:g}, "
          f"{passes}")
    model.fit(Xtr, ytr)
    print(f"fit time        {model.fit_time_:.2f} s (t0={model.t0_:g} chosen, skip={model.skip_})")
    print(f"primal          {float(np.sum(model.objective_)):.6g}")
    print(f"training error  {100 * float(np.mean(model.training_error_)):.2f} %")
    if Xte is not None:
        print(f"test error      {100 * np.mean(model.predict(Xte) != yte):.2f} %  ({len(yte)} examples)")
    return 0


def _cross_validation(args, model, X, y):
    """svm-train -v: predictions of each fold by a model trained on the others, scored together."""
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict

    if args.folds > len(y):
        raise ValueError(f"-v {args.folds}: more folds than the {len(y)} examples of {args.data or 'adult'}")
    # as svm-train: folds keep the class proportions for classifiers; one-class (scored, as svm-train
    # scores it, by its +1/-1 against the labels) and regression folds are plain
    plain = args.svr or args.svm_type == 2
    folds = (KFold if plain else StratifiedKFold)(args.folds, shuffle=True, random_state=args.seed)
    if not args.quiet:
        print(f"{args.folds}-fold cross-validation of {type(model).__name__} on {args.data or 'adult'}: "
              f"{X.shape[0]} examples")
    pred = cross_val_predict(model, X, y, cv=folds)
    for line in _score_lines(model, pred, y):
        print(f"Cross Validation {line.split(' (')[0]}")
    return 0


def _values(text, what, parse=float, positive=True):
    """A comma-separated list; a value may be written 2^k."""
    out = []
    for item in (v.strip() for v in text.split(",")):
        try:
            value = 2.0 ** float(item[2:]) if item.startswith("2^") else parse(item)
        except ValueError:
            raise ValueError(f"{what}: {item!r} is not a number (nor 2^k)") from None
        if not isinstance(value, str) and not (np.isfinite(value) and (value > 0 or (value == 0 and not positive))):
            raise ValueError(f"{what}: {item} must be {'positive' if positive else 'non-negative'}")
        out.append(value)
    return out


def _search(args):
    """Cross-validated grid of C x gamma (x epsilon), one native run for the whole grid."""
    from sklearn.model_selection import KFold, StratifiedKFold

    from .search import SVCSearchCV, SVRSearchCV

    # the options first, so that their errors name them rather than the file
    if args.folds < 2:
        raise ValueError(f"-v must be at least 2, got {args.folds}")
    grid = {"C": _values(args.C, "-c"), "gamma": _values(args.gamma, "-g", _gamma)}
    if args.epsilon is not None and not args.svr:
        raise ValueError("-p sets epsilon for --svr")
    if args.svr:
        grid["epsilon"] = _values(args.epsilon or "0.1", "-p", positive=False)
    for name, value, ok in [("-e", args.tol, args.tol > 0), ("--cache-size", args.cache_size, args.cache_size > 0),
                            ("--seed", args.seed, args.seed >= 0), ("-j", args.n_jobs, args.n_jobs != 0),
                            ("-d", args.degree, args.degree >= 0)]:
        if not ok:
            raise ValueError(f"{name} {value} is out of range")
    (X, y), = read_files([args.data], None, args.zero_based, np.float64)[0]
    if len(y) == 0:
        raise ValueError(f"{args.data}: no examples")
    if args.folds > len(y):
        raise ValueError(f"-v {args.folds}: more folds than the {len(y)} examples of {args.data}")
    if not args.svr and len(np.unique(y)) > max(20, len(y) // 10):
        raise ValueError(f"{args.data} has {len(np.unique(y))} distinct labels for {len(y)} examples: "
                         "for regression, add --svr")
    base = dict(kernel=args.kernel, degree=args.degree, coef0=args.coef0, tol=args.tol, cache_size=args.cache_size)
    if args.svr:
        search = SVRSearchCV(SVR(**base), grid, scoring="neg_mean_squared_error", refit=False,
                             cv=KFold(args.folds, shuffle=True, random_state=args.seed), n_jobs=args.n_jobs)
    else:
        search = SVCSearchCV(SVC(**base), grid, refit=False, n_jobs=args.n_jobs,
                             cv=StratifiedKFold(args.folds, shuffle=True, random_state=args.seed))
    n_points = len(grid["C"]) * len(grid["gamma"]) * len(grid.get("epsilon", [0]))
    print(f"searching {n_points} settings x {args.folds} folds on {args.data}: {X.shape[0]} examples, kernel={args.kernel}")
    t = time.perf_counter()
    try:
        search.fit(X, y)
    except ValueError as e:
        raise ValueError(f"{args.data}: {e}") from None
    elapsed = time.perf_counter() - t
    r = search.cv_results_
    keys = [k for k in ("C", "gamma", "epsilon") if k in grid]
    score = "MSE" if args.svr else "accuracy %"
    print("  ".join(f"{k:>10}" for k in keys) + f"  {score:>12}  {'std':>8}")
    for i, params in enumerate(r["params"]):
        mean, std = r["mean_test_score"][i], r["std_test_score"][i]
        shown = (-mean, std) if args.svr else (100 * mean, 100 * std)
        print("  ".join(f"{params[k]:>10g}" if not isinstance(params[k], str) else f"{params[k]:>10}" for k in keys)
              + f"  {shown[0]:>12.4f}  {shown[1]:>8.4f}")
    best = int(np.argmin(r["rank_test_score"]))
    mean = r["mean_test_score"][best]
    shown = f"MSE {-mean:.6g}" if args.svr else f"accuracy {100 * mean:.4f} %"
    print("best            " + ", ".join(f"{k}={r['params'][best][k]:g}" if not isinstance(r["params"][best][k], str)
                                           else f"{k}={r['params'][best][k]}" for k in keys) + f": {shown}")
    print(f"time            {elapsed:.2f} s, {search.n_kernel_evals_:,} kernel evaluations" if search.native_
          else f"time            {elapsed:.2f} s")
    return 0


def _looks_like_a_model(path):
    try:
        with open(path, "rb") as f:
            return f.read(9) == b"svm_type "
    except OSError:
        return False


def _model_and_data(data_path, model_path):
    """A data file and a saved model, in svm-predict's order, indices matched as written (as
    svm-predict matches them): both are read zero-based, so that index i is column i in both."""
    if _looks_like_a_model(data_path) and not _looks_like_a_model(model_path):
        raise ValueError(f"{data_path} is a model file: the arguments are DATA MODEL, in svm-predict's order")
    model = load_libsvm_model(model_path, zero_based=True)
    X, y = load_libsvm(data_path, zero_based=True)
    if len(y) == 0:
        raise ValueError(f"{data_path}: no examples")
    if model.kernel == "precomputed":
        # LIBSVM's precomputed rows are `0:serial 1:K(x, x_1) ...`: drop the serial number
        X = X[:, 1:]
    return model, X, y


def _score_lines(model, pred, y):
    """What svm-predict prints after predicting a labelled file."""
    if isinstance(model, SVR):
        mse = float(np.mean((pred - y) ** 2))
        if np.std(pred) > 0 and np.std(y) > 0:
            r2 = float(np.corrcoef(pred, y)[0, 1] ** 2)
        else:
            r2 = float("nan")
        return [f"Mean squared error = {mse:g} (regression)", f"Squared correlation coefficient = {r2:g} (regression)"]
    right = int(np.sum(pred == y))
    return [f"Accuracy = {100 * right / len(y):g}% ({right}/{len(y)}) (classification)"]


def _predict(args):
    model, X, y = _model_and_data(args.data, args.model)
    if args.probability:
        if isinstance(model, OneClassSVM):
            raise ValueError(f"-b 1: one-class probabilities (the density marks of {args.model}) are predicted by the "
                             "native largemargin-cli")
        if isinstance(model, SVR):
            raise ValueError(f"-b 1: {args.model} is a regression; probability estimates are for classifiers")
        if not getattr(model, "probability", False):
            raise ValueError(f"-b 1: {args.model} has no probability information (train it with -b 1)")
        proba = model.predict_proba(X)
        pred = model.classes_[np.argmax(proba, axis=1)]
        header = "labels " + " ".join(f"{c:g}" for c in model.classes_) + "\n"
        text = header + "".join(f"{p:g} " + " ".join(f"{v:g}" for v in row) + "\n" for p, row in zip(pred, proba))
    else:
        pred = model.predict(X)
        # labels as integers, values in the shortest form that reads back to the same number
        text = "".join(f"{v}\n" for v in pred.tolist())
    if args.output is None:
        sys.stdout.write(text)
        return 0
    _native.write_file_atomically(str(args.output), text.encode())
    if not args.quiet:
        print("\n".join(_score_lines(model, pred, y)))
    return 0


def _eval(args):
    model, X, y = _model_and_data(args.data, args.model)
    print("\n".join(_score_lines(model, model.predict(X), y)))
    return 0


def _index_base_options(parser, files):
    base = parser.add_mutually_exclusive_group()
    base.add_argument("-z", "--zero-based", dest="zero_based", action="store_const", const=True, default="auto",
                      help=f"feature indices start at 0 (default: 0 if {files} index 0, else 1)")
    base.add_argument("--one-based", dest="zero_based", action="store_const", const=False,
                      help="feature indices start at 1")


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors, as the command's other errors (exit code 2)."""

    def error(self, message):
        if "unrecognized arguments: -w" in message:
            message += " (svm-train's per-class weights -wLABEL: use class_weight from Python)"
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


_KERNELS = list(LIBSVM_KERNELS)  # svm-train's -t 0..3


def _flag(text):
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"{text!r} is not 0 or 1")
    return text == "1"


_SVM_TYPES = ("c_svc", "nu_svc", "one_class", "epsilon_svr", "nu_svr")  # svm-train's -s 0..4


def _svm_type(text):
    if text in _SVM_TYPES:
        return _SVM_TYPES.index(text)
    if text not in ("0", "1", "2", "3", "4"):
        raise argparse.ArgumentTypeError(f"{text!r}: 0 C-SVC, 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR "
                                         f"(or {', '.join(_SVM_TYPES)})")
    return int(text)


def _kernel_type(text):
    if text in _KERNELS:  # the default, which argparse passes through here too
        return text
    if text not in ("0", "1", "2", "3"):
        raise argparse.ArgumentTypeError(f"{text!r}: 0 linear, 1 polynomial, 2 rbf, 3 sigmoid (4, precomputed, "
                                         "is trained from Python)")
    return _KERNELS[int(text)]


def _kernel_options(p):
    kernel = p.add_mutually_exclusive_group()
    kernel.add_argument("-t", dest="kernel", type=_kernel_type, metavar="TYPE", default="rbf",
                        help="kernel as svm-train numbers it: 0 linear, 1 polynomial, 2 rbf (default), 3 sigmoid")
    kernel.add_argument("-k", "--kernel", dest="kernel", choices=_KERNELS, default="rbf", help="the kernel by name")
    p.add_argument("-d", "--degree", type=int, default=3, help="polynomial degree (3)")
    p.add_argument("-r", "--coef0", type=float, default=0.0, help="coef0 of the polynomial and sigmoid kernels (0)")
    p.add_argument("-e", "--tol", type=float, default=1e-3, help="stopping tolerance (0.001)")
    p.add_argument("-j", "--n-jobs", type=int, default=None,
                   help="threads (default: every core, or fewer if OMP_NUM_THREADS says so)")


def build_parser():
    from . import __version__

    p = _Parser(prog="largemargin", description="Large-scale SVMs with a Rust core. Options follow LIBSVM's svm-train "
                "and svm-predict where they overlap (-h is help here; svm-train's -h is --shrinking).")
    p.add_argument("--version", action="version", version=f"largemargin {__version__}")
    sub = p.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    t = sub.add_parser("train", help="train an SVM (on the bundled Adult data when no file is given)",
                       description="Train an SVM on a LIBSVM file, as svm-train does (on the bundled Adult data "
                       "when no file is given), and report its test error with --test.")
    t.add_argument("data", nargs="?", help="training file in LIBSVM format (.gz/.bz2 ok)")
    t.add_argument("model", nargs="?", help="write the model here (LIBSVM format, the data's index base; default: "
                   "DATA's file name + .model in the current directory, as svm-train; none for the bundled data "
                   "or the online and linear solvers)")
    t.add_argument("--test", help="test file to report the error on (read with the training file's index base)")
    _index_base_options(t, "either file uses")
    svr = t.add_mutually_exclusive_group()
    svr.add_argument("-s", dest="svm_type", type=_svm_type, metavar="TYPE", default=0,
                     help="0 C-SVC (default), 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR, as svm-train")
    svr.add_argument("--svr", dest="svm_type", action="store_const", const=3, help="epsilon-SVR (the same as -s 3)")
    t.add_argument("--solver", default="smo", choices=["smo", "lasvm", *_LINEAR_SOLVERS],
                   help="smo (batch, LIBSVM's algorithm), lasvm (online: one pass and a finishing step), or a "
                        "linear SVM by stochastic gradient: asgd (averaged SGD, LinearSGD's default), sgdqn "
                        "(SGD-QN as corrected in 2010), sgdqn2009 (its first form), svmsgd2")
    t.add_argument("--epochs", type=int, default=None,
                   help="lasvm: online passes (1); linear solvers: passes (default: LinearSGD's, until the objective stops improving)")
    t.add_argument("--alpha", type=float, default=None, help="linear solvers: the regularisation lambda (1e-4)")
    t.add_argument("--selection", default="random", help=f"lasvm: {', '.join(SELECTION_STRATEGIES)} or a plugin's")
    t.add_argument("-c", "--C", type=float, default=None, help="C (default 100 on Adult, else 1)")
    t.add_argument("-g", "--gamma", type=_gamma, default=None, help="gamma, or 'scale'/'auto' (default 0.005 on Adult, else scale)")
    t.add_argument("-p", "--epsilon", type=float, default=0.1, help="epsilon-SVR: the tube's half-width (0.1)")
    t.add_argument("-n", "--nu", type=float, default=0.5, help="nu of nu-SVC, one-class SVM and nu-SVR (0.5)")
    _kernel_options(t)
    t.add_argument("-m", "--cache-size", type=float, default=200, help="kernel cache in MB (200)")
    t.add_argument("--shrinking", type=_flag, default=True, metavar="0|1", help="shrinking heuristics (1)")
    t.add_argument("-b", "--probability", type=_flag, nargs="?", const=True, default=False, metavar="0|1",
                   help="train for probability estimates (0)")
    t.add_argument("-v", "--folds", type=int, default=None, metavar="N",
                   help="N-fold cross-validation instead of a model: prints its accuracy (MSE for SVR), as svm-train")
    t.add_argument("--seed", type=int, default=0, help="-v: the folds' shuffle (0)")
    t.add_argument("-q", "--quiet", action="store_true", help="print only the results")
    t.add_argument("--verbose", action="store_true", help="the solver's progress every two seconds")
    pr = sub.add_parser("predict", help="predict a LIBSVM file with a saved model, as svm-predict",
                        description="Predict a LIBSVM file with a saved model, as svm-predict does: the feature "
                        "indices of both are matched as written. With OUTPUT, the predictions go there and the "
                        "accuracy (MSE for SVR) on the file's labels is printed; else they go to stdout.")
    pr.add_argument("data", help="LIBSVM file to predict (.gz/.bz2 ok)")
    pr.add_argument("model", help="LIBSVM model file")
    pr.add_argument("output", nargs="?", help="write the predictions here (default: stdout)")
    pr.add_argument("-b", "--probability", type=_flag, nargs="?", const=True, default=False, metavar="0|1",
                    help="write class probabilities, as svm-predict -b 1 (the model needs them)")
    pr.add_argument("-q", "--quiet", action="store_true", help="do not print the accuracy")
    ev = sub.add_parser("eval", help="accuracy (MSE for SVR) of a saved model on a labelled LIBSVM file",
                        description="The accuracy (MSE and squared correlation for SVR) of a saved model on a "
                        "labelled LIBSVM file, in svm-predict's words.")
    ev.add_argument("data", help="labelled LIBSVM file (.gz/.bz2 ok)")
    ev.add_argument("model", help="LIBSVM model file")
    se = sub.add_parser("search", help="cross-validated grid search of C and gamma (as LIBSVM's grid.py, one process)",
                        description="Cross-validated grid search of C and gamma (and epsilon for --svr), as LIBSVM's "
                        "grid.py, in one run of SVCSearchCV/SVRSearchCV.")
    se.add_argument("data", help="training file in LIBSVM format (.gz/.bz2 ok)")
    _index_base_options(se, "the file uses")
    se.add_argument("-c", "--C", default="0.1,1,10,100,1000", help="values of C, comma-separated; 2^k allowed (default 0.1,1,10,100,1000)")
    se.add_argument("-g", "--gamma", default="scale", help="values of gamma, comma-separated; 2^k, 'scale' and 'auto' allowed (default scale)")
    se.add_argument("-p", "--epsilon", default=None, help="--svr: values of epsilon, comma-separated (default 0.1)")
    se.add_argument("-v", "--folds", type=int, default=5, help="folds (default 5; stratified for classification)")
    se.add_argument("--seed", type=int, default=0, help="the folds' shuffle (default 0)")
    se.add_argument("--svr", action="store_true", help="epsilon-SVR (scored by mean squared error) instead of C-SVC (accuracy)")
    _kernel_options(se)
    se.add_argument("-m", "--cache-size", type=float, default=200, help="kernel cache for the whole search, in MB (200)")
    sub.add_parser("plugins", help="list the installed plugins and what each registers",
                   description="List the installed plugins, what each registers, and any that failed to load.")
    return p


def _plugins(args):
    registry = get_registry()
    plural = {"kernel": "kernels", "loss": "losses", "expert": "experts", "selection_strategy": "selection strategies"}
    for name, provided in registry.plugins():
        what = "; ".join(f"{plural[kind]}: {', '.join(names)}" for kind, names in provided.items() if names)
        print(f"{name}: {what or 'nothing'}")
    problems = 0
    for failure in registry.failures:
        print(f"{failure.plugin}: FAILED to load ({failure.reason})")
        problems += 1
    for kind in plural:
        for name, owners in sorted(registry.clashes(kind).items()):
            print(f"CLASH: {kind.replace('_', ' ')} {name!r} is registered by {' and '.join(owners)}: "
                  "unusable until one is uninstalled (the other names still work)")
            problems += 1
    return 1 if problems else 0


def _one_line(e):
    return " ".join(str(e).split()) or type(e).__name__


def _warning_line(message, category, filename, lineno, line=None):
    return f"largemargin: warning: {_one_line(message)}\n"


def _parse(parser, argv):
    """parse_args, but `train`'s DATA and MODEL may also come after options, as svm-train takes
    them (argparse reads optional positionals once, before the options)."""
    args, extra = parser.parse_known_args(argv)
    if extra and args.command == "train" and not any(e.startswith("-") and e != "-" for e in extra):
        free = [name for name in ("data", "model") if getattr(args, name) is None]
        if len(extra) <= len(free):
            for name, value in zip(free, extra):
                setattr(args, name, value)
            return args
    if extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    return args


def main(argv=None):
    import warnings

    warnings.formatwarning = _warning_line  # one line each, as the errors
    args = _parse(build_parser(), argv)
    try:
        if args.command == "train":
            return _train(args)
        if args.command == "predict":
            return _predict(args)
        if args.command == "eval":
            return _eval(args)
        if args.command == "search":
            return _search(args)
        if args.command == "plugins":
            return _plugins(args)
    except KeyboardInterrupt:
        print("largemargin: interrupted", file=sys.stderr)
        return 130
    except (ValueError, OSError) as e:
        print(f"largemargin: error: {_one_line(e)}", file=sys.stderr)
        return 2
    except Exception as e:  # a bug: still one line, never a traceback
        print(f"largemargin: internal error: {type(e).__name__}: {_one_line(e)}", file=sys.stderr)
        return 2
    build_parser().print_help(sys.stderr)
    return 2  # a command is needed: a usage error, as argparse's


if __name__ == "__main__":
    sys.exit(main())
