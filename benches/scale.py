"""The seeds' large runs at their size: the Forest problem of the LaSVM chapter (Table 4.3: 100,000
and 521,012 training rows, 50,000 test rows) and the RCV1 size for the linear SVMs.

    python benches/scale.py [--sizes 25000,50000,100000,200000] [--methods svc,sklearn,lasvm,lasvm-finish,mixture]
                            [--limit 3600] [--tol 1e-3] [--rcv1] [--out benches/results/scale.json]

Forest-like (``largemargin.make_forest_like``: 54 features, 10 standardized, 44 one-hot), training rows
from ``random_state=0``, 50,000 test rows from ``random_state=1``; RBF gamma=0.1, C=10 (the thesis'
gamma=1, C=3 were for features scaled to [0, 1]; these are the settings of benches/mixture.py on our
standardized features), tol 1e-3, every estimator at its default ``cache_size`` (ours: "auto"):

svc            largemargin.SVC(n_jobs=2): SMO with shrinking.
sklearn        sklearn.svm.SVC (one thread): the same model.
intelex        sklearnex.svm.SVC (scikit-learn-intelex, oneDAL's working-set solver, both cores);
               not in the default methods: ask for it (``pip install .[bench]`` installs it).
lasvm          largemargin.LaSVM(epochs=1, finishing=False): one online pass.
lasvm-finish   the same, then the finishing step (SMO from the pass' solution to tol).
mixture        largemargin.MixtureSVC(n_experts=n/2000, max_iter=8, n_jobs=2), global gater.

``--rcv1``: ``make_rcv1_like`` at RCV1's size (781,265 x 47,236 sparse training rows, 23,149 test),
``LinearSGD(algorithm="asgd", epochs=2)`` and the exact ``LinearSVC`` at its defaults.

Every fit runs in its own process. Reported: wall time of the fit, test error, support vectors,
kernel values (``n_kernel_evals_``), the peak RSS from the start of the fit (VmHWM, reset once
the data is made) and the RSS before the fit. A
method is not run at a size when its time extrapolated from the smaller sizes (log-log) exceeds
--limit seconds; a run that passes the limit is stopped there. The cost exponent of each method
is the log-log slope of its fit time over the sizes it ran.
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from process_memory import peak_mb, reset_peak, rss_mb  # noqa: E402

GAMMA, C, TEST = 0.1, 10.0, 50_000
RCV1_TRAIN, RCV1_TEST, RCV1_FEATURES = 781_265, 23_149, 47_236
METHODS = "svc,sklearn,lasvm,lasvm-finish,mixture"


def forest(n):
    import largemargin as lm

    X, y = lm.make_forest_like(n, random_state=0)
    Xt, yt = lm.make_forest_like(TEST, random_state=1)
    return X, y, Xt, yt


def rcv1():
    from largemargin.datasets import make_rcv1_like

    X, y = make_rcv1_like(RCV1_TRAIN + RCV1_TEST, n_features=RCV1_FEATURES, random_state=0)
    return X[:RCV1_TRAIN], y[:RCV1_TRAIN], X[RCV1_TRAIN:], y[RCV1_TRAIN:]


def model(method, n, tol):
    import largemargin as lm

    if method == "svc":
        return lm.SVC(C=C, gamma=GAMMA, tol=tol, n_jobs=2)
    if method == "sklearn":
        from sklearn.svm import SVC

        return SVC(C=C, gamma=GAMMA, tol=tol)
    if method == "intelex":
        from sklearnex.svm import SVC

        return SVC(C=C, gamma=GAMMA, tol=tol)
    if method in ("lasvm", "lasvm-finish"):
        return lm.LaSVM(C=C, gamma=GAMMA, tol=tol, epochs=1, finishing=method == "lasvm-finish", random_state=0)
    if method == "mixture":
        return lm.MixtureSVC(n_experts=max(2, n // 2000), C=C, gamma=GAMMA, tol=tol, max_iter=8, n_jobs=2,
                             random_state=0)
    if method == "asgd":
        return lm.LinearSGD(algorithm="asgd", epochs=2, random_state=0, n_jobs=2)
    if method == "linearsvc":
        return lm.LinearSVC()
    raise ValueError(method)


def worker(method, n, tol):
    X, y, Xt, yt = rcv1() if method in ("asgd", "linearsvc") else forest(n)
    gc.collect()
    reset_peak()
    base = rss_mb()
    m = model(method, len(y), tol)
    t = time.perf_counter()
    m.fit(X, y)
    fit = time.perf_counter() - t
    err = float(np.mean(m.predict(Xt) != yt))
    n_sv = getattr(m, "n_support_", None)
    evals = getattr(m, "n_kernel_evals_", None)
    row = dict(method=method, n=int(len(y)), fit_s=fit, test_error=err,
               n_sv=int(np.sum(n_sv)) if n_sv is not None else None,
               kernel_evals=int(evals) if evals is not None else None, peak_mb=peak_mb(), base_mb=base)
    print(json.dumps(row))


def run(method, n, tol, limit):
    cmd = [sys.executable, __file__, "--worker", method, str(n), "--tol", str(tol)]
    started = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=limit)
    except subprocess.TimeoutExpired:
        return dict(method=method, n=n, note=f"stopped at {limit:.0f} s")
    if p.returncode:
        return dict(method=method, n=n, note="failed: " + p.stderr.strip().splitlines()[-1][:200])
    row = json.loads(p.stdout.strip().splitlines()[-1])
    row["wall_s"] = time.perf_counter() - started
    return row


def slope(rows, method):
    pts = [(r["n"], r["fit_s"]) for r in rows if r["method"] == method and r.get("fit_s")]
    if len(pts) < 2:
        return None
    return float(np.polyfit(np.log([p[0] for p in pts]), np.log([p[1] for p in pts]), 1)[0])


def predicted(rows, method, n):
    pts = [(r["n"], r["fit_s"]) for r in rows if r["method"] == method and r.get("fit_s")]
    if not pts:
        return None
    k = slope(rows, method) or 2.0
    n0, t0 = pts[-1]
    return t0 * (n / n0) ** k


def cell(v, fmt):
    return "-" if v is None else format(v, fmt)


def table(rows):
    svc = {r["n"]: r.get("fit_s") for r in rows if r["method"] == "svc"}
    lines = ["| method | n | fit s | x our SVC | test error % | SV | kernel evals | peak RSS MB (before the fit) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "note" in r:
            lines.append(f"| {r['method']} | {r['n']} | {r['note']} | - | - | - | - | - |")
            continue
        ratio = r["fit_s"] / svc[r["n"]] if svc.get(r["n"]) else None
        err = r["test_error"] * 100
        lines.append(f"| {r['method']} | {r['n']} | {r['fit_s']:.1f} | {cell(ratio, '.3f')} | {err:.2f} | "
                     f"{cell(r['n_sv'], 'd')} | {cell(r['kernel_evals'], '.3g')} | {r['peak_mb']:.0f} ({r['base_mb']:.0f}) |")
    lines.append("")
    for m in dict.fromkeys(r["method"] for r in rows):
        k = slope(rows, m)
        if k is not None:
            lines.append(f"- cost exponent of {m} (log-log slope of fit time over n): {k:.2f}")
    ks, kl = slope(rows, "svc"), slope(rows, "sklearn")
    if ks and kl:
        lines.append(f"- our SVC's exponent / scikit-learn's: {ks / kl:.3f}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--worker", nargs=2)
    ap.add_argument("--sizes", default="25000,50000,100000,200000")
    ap.add_argument("--methods", default=METHODS)
    ap.add_argument("--limit", type=float, default=3600.0)
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--rcv1", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "scale.json"))
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker[0], int(a.worker[1]), a.tol)
    rows = []
    for n in [int(s) for s in a.sizes.split(",") if s]:
        for method in a.methods.split(","):
            guess = predicted(rows, method, n)
            if guess is not None and guess > a.limit:
                rows.append(dict(method=method, n=n, note=f"not run: about {guess:.0f} s predicted"))
            else:
                rows.append(run(method, n, a.tol, a.limit))
            print(json.dumps(rows[-1]), flush=True)
    if a.rcv1:
        for method in ("asgd", "linearsvc"):
            rows.append(run(method, RCV1_TRAIN, a.tol, a.limit))
            print(json.dumps(rows[-1]), flush=True)
    text = f"`python benches/scale.py {' '.join(sys.argv[1:])}`\n\n" + table(rows) + "\n"
    print(text)
    with open(a.out, "w") as f:
        json.dump(rows, f, indent=1)
    with open(a.out.replace(".json", ".md"), "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
