"""Hard mixtures of SVM experts against one SVM (Collobert's chapter 6 protocol, on a Forest-like
problem since covertype is not available offline), and on adult and ijcnn1.

For each training size n: one SVM (our `SVC`, SMO) while it still trains within --svm-limit
seconds, and `MixtureSVC` with the global gater (10 candidate experts per gater example, --rounds
rounds: 8 by default, the error still falling after the thesis' 5 on this problem) for K = 10, 20,
50 experts, and with K = n / M ("mM", M examples per expert, the thesis' complexity argument), all
with the same RBF kernel and C; test error on a fixed held-out set, fit time, #SV, peak RSS; every
fit in its own subprocess. A mixture whose time, extrapolated from smaller n, exceeds --mix-limit
is not run either. The fit-time exponent in n (log-log slope) is reported per method and
plotted.

    python benches/mixture.py [--sizes 100000,200000,400000] [--experts 10,20,50,m2000] [--svm-limit 1200]
                              [--mix-limit 1200] [--rounds 8]
                              [--datasets forest,adult,ijcnn1] [--n-jobs 2] [--out benches/results/mixture.json]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from online import save  # noqa: E402

GAMMA, C = 0.1, 10.0
TEST = 20_000


def data(name, n):
    import largemargin as lm

    if name == "forest":
        X, y = lm.make_forest_like(n + TEST, random_state=0)
        return X[:n], y[:n], X[n:], y[n:], GAMMA, C
    from datasets import load

    Xtr, ytr, Xte, yte = load(name)
    # adult: the thesis' LIBSVM settings; ijcnn1: the LaSVM paper's
    gamma, c = {"adult": (0.005, 100.0), "ijcnn1": (1.0, 1.0)}[name]
    return Xtr, ytr, Xte, yte, gamma, c


def n_experts(method, n):
    """"50": 50 experts; "m2000": n / 2000 experts (at least 2)."""
    return max(2, n // int(method[1:])) if method.startswith("m") else int(method)


def worker(args):
    import largemargin as lm

    Xtr, ytr, Xte, yte, gamma, c = data(args.dataset, args.n)
    if args.worker == "svm":
        model = lm.SVC(C=c, gamma=gamma, cache_size=args.cache, n_jobs=args.n_jobs)
    else:
        model = lm.MixtureSVC(n_experts=n_experts(args.worker, len(ytr)), C=c, gamma=gamma, cache_size=args.cache / 2,
                              max_iter=args.rounds, n_jobs=args.n_jobs, random_state=0, verbose=True)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit = time.perf_counter() - t
    t = time.perf_counter()
    err = float(np.mean(model.predict(Xte) != yte))
    row = dict(dataset=args.dataset, n=int(len(ytr)), method=args.worker, fit_s=fit, predict_s=time.perf_counter() - t,
               test_error=err, n_sv=int(np.sum(model.n_support_)),
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    if args.worker != "svm":
        row["rounds"] = model.history_
        row["n_experts"] = model.n_experts
        row["gater_candidates"] = model.gater_candidates
    print(json.dumps(row))


def run(args, dataset, n, method, timeout=None):
    cmd = [sys.executable, __file__, "--worker", method, "--dataset", dataset, "--n", str(n), "--cache", str(args.cache),
           "--n-jobs", str(args.n_jobs), "--rounds", str(args.rounds)]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return dict(dataset=dataset, n=n, method=method, fit_s=None, test_error=None, note=f"over {timeout} s")
    if r.returncode:
        sys.exit(f"{dataset} {n} {method} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def slope(rows, method):
    pts = [(r["n"], r["fit_s"]) for r in rows if r["method"] == method and r.get("fit_s")]
    if len(pts) < 2:
        return None
    n, t = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(n, t, 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="100000,200000,400000")
    ap.add_argument("--experts", default="10,20,50,m2000")
    ap.add_argument("--svm-limit", type=float, default=1200.0)
    ap.add_argument("--mix-limit", type=float, default=1200.0)
    ap.add_argument("--rounds", type=int, default=8)
    ap.add_argument("--datasets", default="forest,adult,ijcnn1")
    ap.add_argument("--cache", type=float, default=1000)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "mixture.json"))
    ap.add_argument("--resume", action="store_true",
                    help="keep the rows already in --out and run only the missing ones (after an interrupted run)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dataset", help=argparse.SUPPRESS)
    ap.add_argument("--n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    rows, resumed = [], []
    if args.resume and os.path.exists(args.out):
        with open(args.out) as f:
            old = json.load(f)
        rows, resumed = old["results"], old.get("resumed", []) + [old.get("date")]
    methods = [str(k) for k in args.experts.split(",")]
    for dataset in args.datasets.split(","):
        sizes = [int(s) for s in args.sizes.split(",")] if dataset == "forest" else [0]
        skipped = set()
        for n in sizes:
            for method in ["svm"] + methods:
                if method in skipped:
                    continue
                kept = [r for r in rows if (r["dataset"], r["n"], r["method"]) == (dataset, n, method)]
                if kept:  # resumed: this fit is already measured (or was already skipped)
                    if kept[0].get("fit_s") is None:
                        skipped.add(method)
                    continue
                # skip a fit that would not finish in its limit: extrapolate with the measured
                # exponent (2 from one point)
                limit = args.svm_limit if method == "svm" else args.mix_limit
                done = [(r["n"], r["fit_s"]) for r in rows if r["dataset"] == dataset and r["method"] == method and r.get("fit_s")]
                if done:
                    e = slope([r for r in rows if r["dataset"] == dataset], method) if len(done) > 1 else 2.0
                    predicted = done[-1][1] * (n / done[-1][0]) ** e
                    if predicted > limit:
                        rows.append(dict(dataset=dataset, n=n, method=method, fit_s=None, test_error=None,
                                         note=f"not run: about {predicted:.0f} s predicted (exponent {e:.2f})"))
                        skipped.add(method)
                        continue
                same = [r for r in rows if r["dataset"] == dataset and r["n"] == n and r["method"] != "svm"
                        and r.get("n_experts") == (n_experts(method, n) if method != "svm" else None)]
                if same:  # K = n / M equal to a fixed K already run at this n: the same fit
                    row = dict(same[0], method=method)
                else:
                    row = run(args, dataset, n, method, timeout=limit if method == "svm" else None)
                rows.append(row)
                if row.get("fit_s") is None:
                    skipped.add(method)
                print(f"  {dataset} n={row['n']} {method}: {row.get('fit_s')} s, error {row.get('test_error')}",
                      file=sys.stderr, flush=True)
                save(args.out, dict(cache_mb=args.cache, n_jobs=args.n_jobs, rounds=args.rounds, results=rows,
                                    resumed=resumed))
    report(rows, methods)
    plot(rows, methods, os.path.splitext(args.out)[0] + ".scaling.png")


def label(method, k=None):
    if method.startswith("m"):
        return f"mixture K=n/{method[1:]}" + (f" ({k})" if k else "")
    return f"mixture K={method}"


def report(rows, methods):
    print("\n| data | n | method | test error % | fit s | x single SVM | #SV | rounds | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    svm = {(r["dataset"], r["n"]): r["fit_s"] for r in rows if r["method"] == "svm" and r.get("fit_s")}
    for r in rows:
        name = "SVM (SMO)" if r["method"] == "svm" else label(r["method"], r.get("n_experts"))
        if r.get("fit_s") is None:
            print(f"| {r['dataset']} | {r['n']} | {name} | — | {r['note']} | — | — | — | — |")
            continue
        ref = svm.get((r["dataset"], r["n"]))
        ratio = f"{r['fit_s'] / ref:.3f}" if ref else "—"
        print(f"| {r['dataset']} | {r['n']} | {name} | {100 * r['test_error']:.2f} | {r['fit_s']:.1f} | {ratio} | "
              f"{r['n_sv']} | {len(r.get('rounds', [])) or '—'} | {r['peak_rss_mb']:.0f} |")
    print("\nfit-time exponent in n (forest, log-log slope):")
    for m in ["svm"] + methods:
        s = slope([r for r in rows if r["dataset"] == "forest"], m)
        print(f"  {'SVM' if m == 'svm' else label(m)}: {'—' if s is None else f'{s:.2f}'}")


def plot(rows, methods, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4.5))
    for m in ["svm"] + methods:
        pts = [(r["n"], r["fit_s"]) for r in rows if r["dataset"] == "forest" and r["method"] == m and r.get("fit_s")]
        if pts:
            s = slope([r for r in rows if r["dataset"] == "forest"], m)
            name = ("single SVM" if m == "svm" else label(m)) + (f" (slope {s:.2f})" if s else "")
            ax.loglog(*zip(*pts), marker="o", label=name)
    ax.set_xlabel("training examples")
    ax.set_ylabel("fit time (s)")
    ax.set_title("Forest-like problem: fit time vs n (2 cores)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
