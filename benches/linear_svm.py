"""LinearSVC and LinearSVR against scikit-learn's LinearSVC and LinearSVR (LIBLINEAR), at the same
C, tol and max_iter: primal objective, test error, fit time, peak memory.

    python benches/linear_svm.py [--datasets rcv1,adult,mnist5k,abalone,regression,rcv1x2] [--n-jobs 2]

Each fit runs in its own process (this script in ``--worker`` mode), after the data is loaded,
so that its time and its peak memory (VmHWM above the loaded data's RSS) are its own. Both
libraries run with ``dual=True`` (dual coordinate descent on both sides) and with the default
``dual="auto"`` (the primal trust-region Newton solver when n_samples >= n_features and the loss
is squared; ours chooses as scikit-learn does): each ratio is to scikit-learn with the same
``dual``, so the same algorithm. The objective of each model is recomputed here from its coef_ and intercept_ in one way for both (the sum over one-vs-rest
problems of LIBLINEAR's primal, the intercept's weight regularised).

Data: ``rcv1`` is ``make_rcv1_like(330_000)`` in float64, the first 300,000 rows training and the
rest testing (``rcv1x2``: 630,000, 600,000 training, for the scaling row); ``adult`` (a9a),
``mnist5k`` (10 classes, one-vs-rest), ``abalone`` (LinearSVR) from benches/datasets.py;
``regression``, 200,000 x 100 dense rows of ``make_regression`` (LinearSVR). Generated sets are
cached in ``$LARGEMARGIN_BENCH_CACHE`` (default /tmp/largemargin-bench-cache).
"""

import argparse
import datetime
import gc
import json
import os
import platform
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from process_memory import reset_peak  # noqa: E402

CACHE = os.environ.get("LARGEMARGIN_BENCH_CACHE", "/tmp/largemargin-bench-cache")
MB = 1 << 20

# name: (dataset, estimator, parameters shared by both libraries)
CONFIGS = {
    "rcv1": ("rcv1", "LinearSVC", dict(C=1.0)),
    "rcv1x2": ("rcv1x2", "LinearSVC", dict(C=1.0)),
    "adult": ("adult", "LinearSVC", dict(C=1.0)),
    "mnist5k": ("mnist5k", "LinearSVC", dict(C=1.0)),
    "abalone": ("abalone", "LinearSVR", dict(C=1.0, epsilon=0.0)),
    "regression": ("regression", "LinearSVR", dict(C=1.0, epsilon=0.0)),
}
COMMON = dict(tol=1e-4, max_iter=1000, random_state=0)


def _cached(name, make):
    import scipy.sparse as sp

    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, f"{name}.npz")
    if not os.path.exists(path):
        X, y = make()
        if sp.issparse(X):
            np.savez(path, data=X.data, indices=X.indices, indptr=X.indptr, shape=X.shape, y=y)
        else:
            np.savez(path, X=X, y=y)
    f = np.load(path)
    if "X" in f:
        return f["X"], f["y"]
    return sp.csr_matrix((f["data"], f["indices"], f["indptr"]), shape=tuple(f["shape"])), f["y"]


def load(dataset):
    sys.path.insert(0, HERE)
    import datasets

    if dataset in ("rcv1", "rcv1x2"):
        from largemargin.datasets import make_rcv1_like

        n_train = 300_000 if dataset == "rcv1" else 600_000
        X, y = _cached(dataset, lambda: make_rcv1_like(n_samples=n_train + 30_000, dtype=np.float64, random_state=0))
        return X[:n_train], y[:n_train], X[n_train:], y[n_train:]
    if dataset == "regression":
        from sklearn.datasets import make_regression

        X, y = _cached(dataset, lambda: make_regression(n_samples=220_000, n_features=100, n_informative=40,
                                                        noise=20.0, bias=5.0, random_state=0))
        return X[:200_000], y[:200_000], X[200_000:], y[200_000:]
    return datasets.load(dataset)


def _rss():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["VmRSS"].split()[0]) * 1024, int(fields["VmHWM"].split()[0]) * 1024


def _cpu():
    """The process's CPU seconds, every thread's: about twice the wall time of a fit that had two
    cores to itself."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def svc_objective(model, X, y):
    """LIBLINEAR's primal summed over the one-vs-rest problems (unit weights)."""
    classes = model.classes_
    coef = np.atleast_2d(model.coef_)
    intercept = np.atleast_1d(model.intercept_) * np.ones(len(coef))
    bias = intercept / float(model.intercept_scaling)
    scores = np.asarray(X @ coef.T) + intercept
    total = 0.5 * (float(np.sum(coef ** 2)) + float(np.sum(bias ** 2)))
    problems = [classes[1]] if len(classes) == 2 else list(classes)
    for p, positive in enumerate(problems):
        h = np.maximum(0.0, 1.0 - np.where(y == positive, 1.0, -1.0) * scores[:, p])
        total += model.C * float(np.sum(h ** 2 if model.loss == "squared_hinge" else h))
    return total


def svr_objective(model, X, y):
    intercept = float(np.atleast_1d(model.intercept_)[0])
    r = y - (np.asarray(X @ model.coef_).ravel() + intercept)
    h = np.maximum(0.0, np.abs(r) - model.epsilon)
    loss = h ** 2 if model.loss == "squared_epsilon_insensitive" else h
    bias = intercept / float(model.intercept_scaling)
    return 0.5 * (float(model.coef_ @ model.coef_) + bias ** 2) + model.C * float(np.sum(loss))


def worker(spec):
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    dataset, kind, params = CONFIGS[spec["config"]]
    params = dict(params, **COMMON)
    Xtr, ytr, Xte, yte = load(dataset)
    if spec["lib"] == "largemargin":
        import largemargin as mod

        params["n_jobs"] = spec["n_jobs"]
    else:
        import sklearn.svm as mod
    params["dual"] = spec["dual"]
    gc.collect()
    rss_data, _ = _rss()
    peak_reset = reset_peak()
    model = getattr(mod, kind)(**params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        cpu_before, started = _cpu(), time.perf_counter()
        model.fit(Xtr, ytr)
        fit_time, cpu_time = time.perf_counter() - started, _cpu() - cpu_before
    _, peak = _rss()
    pred = model.predict(Xte)
    if kind == "LinearSVC":
        error = 100.0 * float(np.mean(pred != yte))
        objective = svc_objective(model, Xtr, ytr)
    else:
        error = float(np.mean(np.abs(pred - yte)))
        objective = svr_objective(model, Xtr, ytr)
    return dict(spec, dataset=dataset, estimator=kind, n_train=int(Xtr.shape[0]), n_features=int(Xtr.shape[1]),
                sparse=bool(hasattr(Xtr, "tocsr")), fit_time=fit_time, cpu_time=cpu_time, error=error, objective=objective,
                n_iter=int(model.n_iter_), converged=not any(issubclass(w.category, ConvergenceWarning) for w in caught),
                peak_above_data_mb=(peak - rss_data) / MB if peak_reset else None, data_mb=rss_data / MB)


def run_worker(spec):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return dict(spec, failed=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def table(results, command):
    lines = [f"Command: `{command}`", "",
             "| set | estimator | n x d | library, dual | fit s | CPU s | fit time ratio | objective | obj rel diff | "
             "test error | error diff | n_iter | peak MB above data |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        for run in r["runs"]:
            # each run against scikit-learn's with the same `dual` (the same algorithm)
            ref = next(x for x in r["runs"] if x["lib"] == "sklearn" and x["dual"] == run["dual"])
            if run.get("failed") or ref.get("failed"):
                lines.append(f"| {r['config']} | | | {run['lib']} dual={run['dual']} | failed | | | | | | | | |")
                continue
            who = f"{run['lib']} dual={run['dual']}" + (f" n_jobs={run['n_jobs']}" if run["lib"] != "sklearn" else "")
            rel = (run["objective"] - ref["objective"]) / abs(ref["objective"])
            err = "pt" if run["estimator"] == "LinearSVC" else "MAE"
            cpu = f"{run['cpu_time']:.3f}" if "cpu_time" in run else "-"
            lines.append(
                f"| {r['config']} | {run['estimator']} | {run['n_train']:,} x {run['n_features']:,} | {who} | "
                f"{run['fit_time']:.3f} | {cpu} | {run['fit_time'] / ref['fit_time']:.3f} | {run['objective']:.6g} | {rel:+.2e} | "
                f"{run['error']:.3f} | {run['error'] - ref['error']:+.3f} {err} | {run['n_iter']}{'' if run['converged'] else ' (max_iter)'} | "
                f"{run['peak_above_data_mb']:.0f} |")
    return "\n".join(lines)


def conditions(meta):
    """The run's machine and load: a 2-thread fit gets its second core only on an idle machine."""
    loads = ", ".join(f"{meta[k][0]:.1f}" for k in ("load_before", "load_after") if k in meta)
    return (f"{meta['date']}, {meta['cpus']} CPUs, scikit-learn {meta['sklearn']}, largemargin "
            f"{meta['largemargin']}; 1-minute load average before and after the run: {loads}. An n_jobs=2 "
            "fit whose CPU seconds are about its wall seconds had one core: others' work held the second.")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="rcv1,adult,mnist5k,abalone,regression,rcv1x2")
    ap.add_argument("--n-jobs", default="2", help="our n_jobs values, comma-separated")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "linear_svm.json"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    results = []
    load_before = os.getloadavg()
    for name in [n for n in args.datasets.split(",") if n]:
        specs = []
        for dual in (True, "auto"):
            specs.append(dict(config=name, lib="sklearn", dual=dual))
            specs += [dict(config=name, lib="largemargin", n_jobs=int(j), dual=dual) for j in args.n_jobs.split(",")]
        runs = []
        for spec in specs:
            print(f"[{name}] {spec}", file=sys.stderr, flush=True)
            runs.append(run_worker(spec))
        results.append(dict(config=name, runs=runs))
    command = "python benches/linear_svm.py " + " ".join(argv if argv is not None else sys.argv[1:])
    import sklearn

    import largemargin

    meta = dict(date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
                cpus=os.cpu_count(), sklearn=sklearn.__version__, largemargin=largemargin.__version__,
                load_before=load_before, load_after=os.getloadavg())
    md = table(results, command.strip()) + "\n\n" + conditions(meta)
    print(md)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(dict(meta=meta, results=results), f, indent=1)
    with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
        f.write(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
