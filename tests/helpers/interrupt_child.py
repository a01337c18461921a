"""One fit of one solver family, to be interrupted: `python interrupt_child.py FAMILY`.

Prints READY once the data is built and the fit is about to start, then fits. Each problem is large
enough that no family finishes within a minute, so a SIGINT sent after READY lands in the solver loop.
After KeyboardInterrupt it writes STATE UNCHANGED (or STATE CHANGED) to stderr: whether the
estimator is as it was before the fit. Used by tests/test_interrupt.py and benches/interrupt.py.
"""

import os
import signal
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

import largemargin as lm


def dense(n, d, seed=0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    y = rng.integers(0, classes, n)
    return X, y


def sparse_text(n, d, nnz_per_row, seed=0):
    rng = np.random.default_rng(seed)
    indices = rng.integers(0, d, n * nnz_per_row).astype(np.int32)
    X = sp.csr_matrix((np.ones(n * nnz_per_row), indices, np.arange(0, n * nnz_per_row + 1, nnz_per_row)), shape=(n, d))
    X.sum_duplicates()
    y = rng.integers(0, 2, n)
    return X, y


def sequences(n_seq, length, d, seed=0):
    rng = np.random.default_rng(seed)
    X = [rng.standard_normal((length, d)) for _ in range(n_seq)]
    y = [rng.integers(0, 5, length) for _ in range(n_seq)]
    return X, y


def rbf(A, B):
    """A Python kernel, so that the stop must reach a fit that spends its time in a foreign call."""
    d = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2 * A @ B.T
    return np.exp(-0.02 * d)


class SquaredHinge:
    """A Python loss (works on scalars and arrays)."""

    def loss(self, f, y):
        return 0.5 * np.maximum(0.0, 1.0 - y * f) ** 2

    def dloss(self, f, y):
        return -y * np.maximum(0.0, 1.0 - y * f)


class Predicting:
    """A fitted model's prediction over many rows, run as the 'fit' of this script."""

    def __init__(self, model):
        self.model = model

    def fit(self, X, y):
        self.model.decision_function(X)


def problem(family):
    """(estimator, X, y) for a family: the issue's 60,000 x 50 dense case where a kernel is involved."""
    if family == "smo":
        return lm.SVC(C=1000, cache_size=10), *dense(60_000, 50)
    if family == "smo_svr":
        X, _ = dense(60_000, 50)
        return lm.SVR(C=1000, cache_size=10), X, np.random.default_rng(1).standard_normal(len(X))
    if family == "isda":
        return lm.SVC(C=1000, solver="isda", cache_size=10), *dense(60_000, 50)
    if family == "lasvm":
        return lm.LaSVM(C=1000, cache_size=10, epochs=50), *dense(60_000, 50)
    if family == "huller":
        return lm.Huller(cache_size=10, epochs=1000), *dense(60_000, 50)
    if family == "perceptron":
        return lm.KernelPerceptron(cache_size=10, epochs=1000), *dense(60_000, 50)
    if family == "larank":
        return lm.LaRankClassifier(C=1000, cache_size=10, epochs=50), *dense(60_000, 50, classes=10)
    if family == "ambiguous":
        return lm.AmbiguousLaRankClassifier(C=1000, cache_size=10, epochs=50), *dense(60_000, 50, classes=10)
    if family == "sequence":
        return lm.SequenceLabeler("larank_exact", epochs=1000, C=10.0), *sequences(20_000, 30, 50)
    if family == "semantic":
        sentences, bags, _, _ = lm.make_ambighouse(2_000, ambiguity=2, random_state=0)
        return lm.SemanticParser(C=0.1, epochs=1_000_000), sentences, bags
    if family == "svc_predict":
        X, y = dense(3_000, 50)
        return Predicting(lm.SVC(C=1000).fit(X, y)), dense(2_000_000, 50)[0], None
    if family == "python_kernel":
        return lm.SVC(C=1000, kernel=rbf, cache_size=10), *dense(60_000, 50)
    if family == "python_loss":
        return lm.LinearSGD(loss=SquaredHinge(), t0=1e4, epochs=100_000), *sparse_text(200_000, 50_000, 30)
    if family == "sgd":
        return lm.LinearSGD(epochs=100_000), *sparse_text(200_000, 50_000, 30)
    if family == "linear_svc":
        # random labels: the hinge loss's dual takes far more than the 10^6 passes allowed
        return lm.LinearSVC(loss="hinge", C=100.0, tol=1e-12, max_iter=10**6), *sparse_text(200_000, 50_000, 30)
    if family == "crammer_singer":
        X, _ = sparse_text(200_000, 50_000, 30)
        y = np.random.default_rng(1).integers(0, 5, X.shape[0])
        return lm.LinearSVC(multi_class="crammer_singer", C=100.0, tol=1e-12, max_iter=10**6), X, y
    if family == "margin_perceptron":
        return lm.MarginPerceptron(epochs=100_000), *sparse_text(200_000, 50_000, 30)
    if family == "mlp":
        return lm.SimpleMLPClassifier(hidden_units=500, max_epochs=10_000, early_stopping=False), *dense(60_000, 50)
    if family == "mlp_tanh":
        return lm.TanhMLPClassifier(hidden_units=500, max_epochs=10_000, early_stopping=False), *dense(60_000, 50)
    if family == "mlp_block_newton":
        return (lm.TanhMLPClassifier(hidden_units=500, optimizer="block_newton", learning_rate=0.001,
                                     max_epochs=10_000, early_stopping=False), *dense(60_000, 50))
    if family == "mlp_nilsson":
        return lm.NilssonMLPClassifier(hidden_units=501, max_epochs=10_000, early_stopping=False), *dense(60_000, 50)
    if family == "search":
        return lm.SVCSearchCV(lm.SVC(cache_size=10), {"C": [100, 1000], "gamma": [0.01, 0.1]}, cv=3), *dense(60_000, 50)
    if family == "mixture":
        from largemargin.datasets import make_forest_like

        X, y = make_forest_like(40_000, random_state=0)
        return lm.MixtureSVC(C=1000, gamma=0.1, n_experts=4), X, y
    raise SystemExit(f"unknown family {family!r}")


FAMILIES = ["smo", "smo_svr", "isda", "lasvm", "huller", "perceptron", "larank", "ambiguous", "sequence", "semantic", "svc_predict", "python_kernel", "sgd", "python_loss",
            "linear_svc", "crammer_singer", "margin_perceptron", "mlp", "mlp_tanh", "mlp_block_newton", "mlp_nilsson", "mixture", "search"]

def measure(family, delay=1.5, timeout=120):
    """Runs the family's fit in a child process, sends SIGINT `delay` seconds after READY, and
    returns (seconds from SIGINT to KeyboardInterrupt out of fit, seconds to the child's exit, stderr,
    whether the fit finished). The first is None when fit did not raise KeyboardInterrupt."""
    child = subprocess.Popen([sys.executable, os.path.abspath(__file__), family], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline()
        if line.strip() != "READY":
            child.kill()
            raise RuntimeError(f"{family}: child did not start: {line!r} {child.stderr.read()}")
        time.sleep(delay)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
        exited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    raised = [float(line.split()[1]) - sent for line in out.splitlines() if line.startswith("INTERRUPTED")]
    return (raised[0] if raised else None), exited, err, "FINISHED" in out


if __name__ == "__main__":
    # A background job of a non-interactive shell starts with SIGINT ignored, and Python then leaves
    # it so: take Python's usual handler, the one a user's Ctrl-C meets.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    est, X, y = problem(sys.argv[1])
    before = dict(vars(est))
    print("READY", flush=True)
    try:
        est.fit(X, y)
    except KeyboardInterrupt:
        # CLOCK_MONOTONIC is one clock for every process of the machine
        print(f"INTERRUPTED {time.monotonic()!r}", flush=True)
        # the interrupted fit leaves the estimator as it was: the same attributes, the same objects
        same = vars(est).keys() == before.keys() and all(vars(est)[k] is v for k, v in before.items())
        print("STATE UNCHANGED" if same else "STATE CHANGED", file=sys.stderr, flush=True)
        raise
    print("FINISHED", flush=True)
