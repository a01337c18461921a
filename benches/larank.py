"""Multiclass LaRank against batch SVMs: the protocol of the thesis' Table 5.2 (and 5.3) on letter
and mnist5k.

For each dataset: LaRank one epoch, LaRankGap (epochs until the duality gap is below C), the
averaged perceptron x1 and x10, MIRA (passive-aggressive) one epoch, all in the LaRank framework
(`LaRankClassifier(method=...)`), then our `SVC` (SMO, one-vs-one) and scikit-learn's `SVC`
(LIBSVM, one-vs-one), all with the same kernel, C and cache budget (the thesis': 500 MB). Each
fit runs in its own subprocess (peak RSS is its own). Reported: test error, the multiclass dual
(LaRank methods), time and its ratio to scikit-learn's, kernel evaluations, argmax calls, support
vectors and support patterns.

    python benches/larank.py [--datasets letter,mnist5k] [--methods larank,larank-gap,...]
                             [--mnist-setting 0.025,10] [--cache 500] [--n-jobs 1]
                             [--random-states 0,1,2] [--out benches/results/larank.json]

letter: RBF gamma=0.025, C=10, the first 16,000 rows for training and the last 4,000 for test.
mnist5k: pixels/255, RBF with --mnist-setting (gamma,C): 0.025,10 by default; 0.005,1000 is the
thesis' MNIST setting.
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

from online import save  # noqa: E402  (the benches' one JSON writer)

METHODS = ["larank", "larank-gap", "avgperc-x1", "avgperc-x10", "mira", "smo", "sklearn"]
LARANK = {"larank": dict(method="larank"), "larank-gap": dict(method="larank", until_gap=True),
          "avgperc-x1": dict(method="averaged_perceptron", epochs=1),
          "avgperc-x10": dict(method="averaged_perceptron", epochs=10), "mira": dict(method="mira")}


def setting(dataset, mnist):
    if dataset == "letter":
        return 0.025, 10.0
    gamma, C = (float(v) for v in mnist.split(","))
    return gamma, C


def make(method, gamma, C, cache, n_jobs, random_state):
    import largemargin as lm

    if method in LARANK:
        return lm.LaRankClassifier(C=C, gamma=gamma, cache_size=cache, n_jobs=n_jobs, random_state=random_state,
                                   **LARANK[method])
    if method == "smo":
        return lm.SVC(C=C, gamma=gamma, cache_size=cache, n_jobs=n_jobs)
    if method == "sklearn":
        from sklearn.svm import SVC

        return SVC(C=C, gamma=gamma, cache_size=cache)
    raise ValueError(f"unknown method {method!r}; one of {METHODS}")


def worker(args):
    from datasets import load

    Xtr, ytr, Xte, yte = load(args.dataset)
    gamma, C = setting(args.dataset, args.mnist_setting)
    model = make(args.worker, gamma, C, args.cache, args.n_jobs, args.random_state)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit = time.perf_counter() - t
    err = float(np.mean(model.predict(Xte) != yte))
    row = dict(dataset=args.dataset, method=args.worker, random_state=args.random_state, gamma=gamma, C=C,
               fit_s=fit, test_error=err, n_sv=int(len(model.support_)),
               kernel_evals=int(getattr(model, "n_kernel_evals_", -1)),
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    if args.worker in LARANK:
        row.update(dual=float(model.dual_), gap=float(model.duality_gap_), n_sp=int(len(model.support_)),
                   n_sv=int(model.n_support_vectors_), argmax=int(model.n_argmax_), epochs=int(model.n_iter_),
                   gap_per_epoch=[float(g) for g in model.gap_per_epoch_],
                   dual_per_epoch=[float(d) for d in model.dual_per_epoch_])
    print(json.dumps(row))


def table(args):
    rows = []
    methods = args.methods.split(",")
    if "sklearn" not in methods:
        methods.append("sklearn")  # the reference of the time ratios
    states = [int(v) for v in args.random_states.split(",")]
    for dataset in args.datasets.split(","):
        for method in methods:
            for state in states if method in LARANK else states[:1]:
                cmd = [sys.executable, __file__, "--worker", method, "--dataset", dataset, "--cache", str(args.cache),
                       "--n-jobs", str(args.n_jobs), "--random-state", str(state), "--mnist-setting", args.mnist_setting]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    sys.exit(f"{dataset} {method} failed:\n{r.stderr}")
                rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
                print(f"  {dataset} {method} {state}: {rows[-1]['fit_s']:.2f} s, "
                      f"error {100 * rows[-1]['test_error']:.2f}%", file=sys.stderr, flush=True)
    report(rows, args)
    save(args.out, dict(cache_mb=args.cache, n_jobs=args.n_jobs, results=rows))


def report(rows, args):
    print(f"\ncache {args.cache} MB, n_jobs={args.n_jobs}; time against scikit-learn's SVC in the same run; "
          "dual as a share of LaRankGap's (same random_state)\n")
    print("| dataset (gamma, C) | method | random_state | test error % | dual | x gap's dual | duality gap | epochs | "
          "fit s | x sklearn | kernel evals (M) | argmax (k) | #SV | #SP | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = [x for x in rows if x["dataset"] == r["dataset"]]
        sk = next(x for x in same if x["method"] == "sklearn")
        ref = next((x for x in same if x["method"] == "larank-gap" and x["random_state"] == r["random_state"]), None)
        lar = "dual" in r
        dual = f"{r['dual']:.1f}" if lar else "—"
        share = f"{100 * r['dual'] / ref['dual']:.1f}%" if lar and ref else "—"
        gap = f"{r['gap']:.2f}" if lar and r["gap"] == r["gap"] else "—"
        ev = f"{r['kernel_evals'] / 1e6:.1f}" if r["kernel_evals"] >= 0 else "—"
        print(f"| {r['dataset']} ({r['gamma']:g}, {r['C']:g}) | {r['method']} | {r['random_state']} | "
              f"{100 * r['test_error']:.2f} | {dual} | {share} | {gap} | {r.get('epochs', '—')} | {r['fit_s']:.2f} | "
              f"{r['fit_s'] / sk['fit_s']:.2f} | {ev} | {r['argmax'] / 1e3 if lar else '—'} | {r['n_sv']} | "
              f"{r.get('n_sp', '—')} | {r['peak_rss_mb']:.0f} |")
    states = sorted({r["random_state"] for r in rows})
    if len(states) > 1:
        print(f"\nover random_state {','.join(map(str, states))}: mean (min - max)\n")
        print("| dataset | method | test error % | x gap's dual | fit s | x sklearn |")
        print("|---|---|---|---|---|---|")
        for dataset in dict.fromkeys(r["dataset"] for r in rows):
            sk = next(x for x in rows if x["dataset"] == dataset and x["method"] == "sklearn")
            for method in LARANK:
                same = [r for r in rows if r["dataset"] == dataset and r["method"] == method]
                if len(same) < 2:
                    continue

                def spread(values, fmt):
                    return f"{fmt.format(np.mean(values))} ({fmt.format(min(values))} - {fmt.format(max(values))})"

                shares = []
                for r in same:
                    ref = next((x for x in rows if x["dataset"] == dataset and x["method"] == "larank-gap"
                                and x["random_state"] == r["random_state"]), None)
                    if ref:
                        shares.append(100 * r["dual"] / ref["dual"])
                print(f"| {dataset} | {method} | {spread([100 * r['test_error'] for r in same], '{:.2f}')} | "
                      f"{spread(shares, '{:.1f}%') if shares else '—'} | {spread([r['fit_s'] for r in same], '{:.2f}')} | "
                      f"{spread([r['fit_s'] / sk['fit_s'] for r in same], '{:.2f}')} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="letter,mnist5k")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--mnist-setting", default="0.025,10", help="mnist5k's gamma,C")
    ap.add_argument("--cache", type=float, default=500)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--random-states", default="0", help="the LaRank-framework methods run once for each")
    ap.add_argument("--random-state", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "larank.json"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dataset", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    table(args)


if __name__ == "__main__":
    main()
