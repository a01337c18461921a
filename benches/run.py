"""Benchmark largemargin's SVC/SVR against scikit-learn's on the same data.

Each (configuration, library, n_jobs) fit+predict runs in a fresh subprocess (this script in
``--worker`` mode) so its peak RSS is its own. The parent gathers the results, prints a markdown
table and writes JSON.

    python benches/run.py [--datasets adult,ijcnn1,mnist5k,mnist5k-scale,letter,abalone]
                          [--n-jobs 1,2] [--out benches/results/svm.json] [--quick]
"""

import argparse
import datetime
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from process_memory import reset_peak  # noqa: E402

# name -> (dataset, estimator, parameters); tol and cache_size are shared by all.
CONFIGS = {
    "adult": ("adult", "SVC", dict(gamma=0.005, C=100)),
    "ijcnn1": ("ijcnn1", "SVC", dict(gamma=2.0, C=32)),
    "mnist5k": ("mnist5k", "SVC", dict(gamma=0.025, C=10)),
    "mnist5k-scale": ("mnist5k", "SVC", dict(gamma="scale", C=10)),
    "letter": ("letter", "SVC", dict(gamma=0.025, C=10)),
    "abalone": ("abalone", "SVR", dict(gamma="scale", C=10, epsilon=0.5)),
}
COMMON = dict(tol=1e-3, cache_size=200)
QUICK_ROWS = 3000
CHUNK = 2000

# Parity targets vs scikit-learn.
MAX_ERR_POINTS = 0.05
MAX_SV_REL = 0.01
MAX_OBJ_REL = 1e-3

MB = 1024.0 * 1024.0


# ---------------------------------------------------------------- dual objectives

def _quad(X, c, gamma):
    """c' K c for the RBF kernel on the rows of X, K built CHUNK rows at a time."""
    from sklearn.metrics.pairwise import rbf_kernel

    total = 0.0
    for i in range(0, X.shape[0], CHUNK):
        total += c[i:i + CHUNK] @ (rbf_kernel(X[i:i + CHUNK], X, gamma=gamma) @ c)
    return float(total)


def svc_objectives(model, gamma):
    """Dual objective sum(alpha) - 1/2 sum alpha_i alpha_j y_i y_j K_ij of each one-vs-one pair,
    read from LIBSVM's dual_coef_ layout (pair (a, b): class a's SVs in row b-1, class b's in row a)."""
    sv, coef = model.support_vectors_, model.dual_coef_
    if hasattr(coef, "toarray"):  # scikit-learn keeps it sparse after a sparse fit
        coef = coef.toarray()
    start = np.concatenate([[0], np.cumsum(model.n_support_)])
    k = len(model.n_support_)
    out = []
    for a in range(k):
        for b in range(a + 1, k):
            ia = np.arange(start[a], start[a + 1])
            ib = np.arange(start[b], start[b + 1])
            c = np.concatenate([coef[b - 1, ia], coef[a, ib]])
            idx = np.concatenate([ia, ib])
            nz = c != 0  # an SV of class a may be bound only in other pairs
            c, idx = c[nz], idx[nz]
            out.append(np.abs(c).sum() - 0.5 * _quad(sv[idx], c, gamma))
    return out


def svr_objective(model, gamma, y):
    """sum(y beta) - eps sum|beta| - 1/2 beta' K beta with beta = dual_coef_."""
    beta = model.dual_coef_
    beta = (beta.toarray() if hasattr(beta, "toarray") else beta).ravel()
    ysv = y[model.support_]
    return [float(ysv @ beta - model.epsilon * np.abs(beta).sum() - 0.5 * _quad(model.support_vectors_, beta, gamma))]


# ---------------------------------------------------------------- worker

def _rss():
    import psutil

    return psutil.Process().memory_info().rss


def _subsample(X, y, n, seed=0):
    if X.shape[0] <= n:
        return X, y
    idx = np.sort(np.random.default_rng(seed).choice(X.shape[0], n, replace=False))
    return X[idx], y[idx]


def worker(spec):
    """One fit + predict; returns a JSON-able dict."""
    import datasets

    name, lib, n_jobs, quick = spec["config"], spec["lib"], spec["n_jobs"], spec["quick"]
    dataset, kind, params = CONFIGS[name]
    params = dict(params, **COMMON)

    if lib == "sklearn":
        import sklearn.svm as mod
    else:
        import largemargin as mod

        params["n_jobs"] = n_jobs
    rss_start = _rss()

    Xtr, ytr, Xte, yte = datasets.load(dataset)
    if quick:
        Xtr, ytr = _subsample(Xtr, ytr, QUICK_ROWS)
    gc.collect()
    rss_data = _rss()
    peak_reset = reset_peak()

    model = getattr(mod, kind)(**params)
    t0 = time.perf_counter()
    model.fit(Xtr, ytr)
    fit_time = time.perf_counter() - t0
    t0 = time.perf_counter()
    pred = model.predict(Xte)
    predict_time = time.perf_counter() - t0
    peak_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # KB on Linux

    gamma = float(model._gamma)  # the resolved value, also for gamma='scale'
    if kind == "SVC":
        error = 100.0 * float(np.mean(pred != yte))
        objectives = svc_objectives(model, gamma)
    else:
        error = float(np.mean(np.abs(pred - yte)))
        objectives = svr_objective(model, gamma, ytr)

    res = dict(
        config=name, dataset=dataset, estimator=kind, lib=lib, n_jobs=n_jobs,
        params={k: v for k, v in params.items() if k != "n_jobs"}, gamma_used=gamma,
        n_train=int(Xtr.shape[0]), n_test=int(Xte.shape[0]), n_features=int(Xtr.shape[1]),
        sparse=bool(hasattr(Xtr, "tocsr")),
        fit_time=fit_time, predict_time=predict_time,
        error=error, error_kind="error_pct" if kind == "SVC" else "mae",
        n_sv=int(len(model.support_)), n_kernel_evals=None,
        objective=float(np.sum(objectives)), objective_pairs=[float(v) for v in objectives],
        rss_start_mb=rss_start / MB, rss_data_mb=rss_data / MB, peak_rss_mb=peak_rss / MB,
        peak_rss_since_data=peak_reset,
    )
    if lib == "largemargin":
        reported = np.asarray(model.objective_, dtype=float).ravel()
        res["n_kernel_evals"] = int(model.n_kernel_evals_)
        res["fit_time_internal"] = float(model.fit_time_)
        res["objective_reported"] = reported.tolist()
        # Our solver's own objective vs the one recomputed here from dual_coef_.
        res["objective_reported_rel_diff"] = float(np.max(
            np.abs(reported - objectives) / np.maximum(np.abs(objectives), 1e-12)
        )) if reported.size == len(objectives) else None
    return res


# ---------------------------------------------------------------- parent

def run_worker(spec):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return dict(spec, failed=True, returncode=proc.returncode)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _rel(a, b):
    return (a - b) / abs(b) if b else float("nan")


def compare(ref, run):
    """Ratios and differences of one of our runs against scikit-learn's."""
    pairs = [abs(_rel(o, s)) for o, s in zip(run["objective_pairs"], ref["objective_pairs"])]
    cmp = dict(
        n_jobs=run["n_jobs"],
        fit_time_ratio=run["fit_time"] / ref["fit_time"],
        predict_speedup=ref["predict_time"] / run["predict_time"],
        error_diff=run["error"] - ref["error"],
        n_sv_rel_diff=_rel(run["n_sv"], ref["n_sv"]),
        objective_rel_diff=abs(_rel(run["objective"], ref["objective"])),
        objective_max_pair_rel_diff=max(pairs),
        peak_rss_ratio=run["peak_rss_mb"] / ref["peak_rss_mb"],
    )
    # For SVR the error is an MAE: its limit applies to the relative difference in percent.
    err = abs(cmp["error_diff"]) if ref["error_kind"] == "error_pct" else abs(_rel(run["error"], ref["error"])) * 100
    misses = []
    if err > MAX_ERR_POINTS:
        misses.append("error")
    if abs(cmp["n_sv_rel_diff"]) > MAX_SV_REL:
        misses.append("n_sv")
    if cmp["objective_max_pair_rel_diff"] > MAX_OBJ_REL:
        misses.append("objective")
    cmp["parity_misses"] = misses
    return cmp


def _f(v, fmt):
    return "—" if v is None else format(v, fmt)


def table(results):
    head = ("| config | lib | jobs | fit s | fit ours/sk | predict s | predict sk/ours | err | Δerr | #SV | "
            "ΔSV % | kernel evals | objective | obj rel (max pair) | RSS data MB | peak RSS MB |")
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in results:
        for run, cmp in zip(r["runs"], [None] + r["comparisons"]):
            if run.get("failed"):
                lines.append(f"| {r['config']} | {run['lib']} | {run['n_jobs'] or '—'} | FAILED (rc {run['returncode']}) |")
                continue
            err = f"{run['error']:.2f}%" if run["error_kind"] == "error_pct" else f"MAE {run['error']:.4f}"
            c = cmp or {}
            mark = lambda key, s: s + (" ⚠" if key in c.get("parity_misses", []) else "")
            lines.append("| " + " | ".join([
                r["config"], run["lib"], str(run["n_jobs"] or "—"),
                f"{run['fit_time']:.2f}", _f(c.get("fit_time_ratio"), ".2f"),
                f"{run['predict_time']:.3f}", _f(c.get("predict_speedup"), ".2f"),
                err, mark("error", _f(c.get("error_diff"), "+.3f")),
                str(run["n_sv"]), mark("n_sv", _f(c["n_sv_rel_diff"] * 100 if c else None, "+.2f")),
                _f(run["n_kernel_evals"], ",d"),
                f"{run['objective']:.6g}",
                mark("objective", _f(c.get("objective_max_pair_rel_diff"), ".1e")),
                f"{run['rss_data_mb']:.0f}", f"{run['peak_rss_mb']:.0f}",
            ]) + " |")
    return "\n".join(lines)


def _git():
    """Commit and dirty flag of the checkout, so results can be traced to a build."""
    try:
        git = lambda *a: subprocess.run(["git", "-C", HERE, *a], capture_output=True, text=True).stdout.strip()
        return dict(commit=git("rev-parse", "HEAD"), dirty=bool(git("status", "--porcelain", "--", ":(top)", ":(top,exclude)benches")))
    except OSError:
        return None


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default=",".join(CONFIGS), help="comma-separated configurations")
    ap.add_argument("--n-jobs", default="1,2", help="our n_jobs values, comma-separated")
    ap.add_argument("--out", default=None, help="JSON path (default benches/results/svm.json, svm-quick.json with --quick)")
    ap.add_argument("--quick", action="store_true", help=f"subsample training sets to {QUICK_ROWS} rows")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0

    names = [n.strip() for n in args.datasets.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        ap.error(f"unknown configurations {unknown}; choose from {list(CONFIGS)}")
    jobs = [int(j) for j in args.n_jobs.split(",") if j.strip()]
    out = args.out or os.path.join(HERE, "results", "svm-quick.json" if args.quick else "svm.json")

    load_before = os.getloadavg()
    results = []
    for name in names:
        runs = []
        for lib, n_jobs in [("sklearn", None)] + [("largemargin", j) for j in jobs]:
            print(f"[{name}] {lib} n_jobs={n_jobs} ...", file=sys.stderr, flush=True)
            runs.append(run_worker(dict(config=name, lib=lib, n_jobs=n_jobs, quick=args.quick)))
        ref = runs[0]
        ok = not ref.get("failed")
        comparisons = [compare(ref, run) if ok and not run.get("failed") else None for run in runs[1:]]
        results.append(dict(config=name, runs=runs, comparisons=comparisons))

    import sklearn

    import largemargin

    report = dict(
        meta=dict(
            date=datetime.datetime.now().isoformat(timespec="seconds"), quick=args.quick,
            argv=sys.argv[1:], python=platform.python_version(), platform=platform.platform(),
            cpu_count=os.cpu_count(), git=_git(), largemargin=largemargin.__version__, sklearn=sklearn.__version__,
            numpy=np.__version__, common_params=COMMON,
            loadavg_before=load_before, loadavg_after=os.getloadavg(),
            parity_targets=dict(error_points=MAX_ERR_POINTS, n_sv_rel=MAX_SV_REL, objective_rel=MAX_OBJ_REL),
        ),
        results=results,
    )
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(report, f, indent=2)

    print(table(results))
    misses = [(r["config"], c["n_jobs"], c["parity_misses"]) for r in results
              for c in r["comparisons"] if c and c["parity_misses"]]
    for config, n_jobs, what in misses:
        print(f"parity miss: {config} n_jobs={n_jobs}: {', '.join(what)}")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
