"""ISDA against SMO and scikit-learn's SVC (LIBSVM) on the same data: each bias method of the ISDA
slides (the secant method on b, the penalty method K + 1/k for k = 1 and 10, no bias), our SMO,
and scikit-learn; test error, #SV, fit time, the ratio to SMO and to scikit-learn, kernel
evaluations and peak RSS, every fit in its own subprocess. The settings are those of
benches/run.py (tol 1e-3, 200 MB cache); ISDA with its default over-relaxation 1.8.

    python benches/isda.py [--datasets adult,ijcnn1,mnist5k] [--n-jobs 1] [--out benches/results/isda.json]
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
from run import COMMON, CONFIGS  # noqa: E402

METHODS = {
    "sklearn": None,
    "smo": dict(solver="smo"),
    "isda-secant": dict(solver="isda", isda_bias="secant"),
    "isda-k1": dict(solver="isda", isda_bias="penalty", isda_k=1.0),
    "isda-k10": dict(solver="isda", isda_bias="penalty", isda_k=10.0),
    "isda-none": dict(solver="isda", isda_bias="none"),
}


def worker(args):
    from datasets import load

    import largemargin as lm

    name, _, params = CONFIGS[args.dataset]
    Xtr, ytr, Xte, yte = load(name)
    if args.worker == "sklearn":
        from sklearn.svm import SVC

        model = SVC(**params, **COMMON)
    else:
        model = lm.SVC(**params, **COMMON, **METHODS[args.worker], n_jobs=args.n_jobs)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit = time.perf_counter() - t
    err = float(np.mean(model.predict(Xte) != yte))
    row = dict(dataset=args.dataset, method=args.worker, fit_s=fit, test_error=err, n_sv=int(len(model.support_)),
               kernel_evals=int(getattr(model, "n_kernel_evals_", 0)) or None,
               objective=float(np.sum(model.objective_)) if hasattr(model, "objective_") else None,
               n_iter=int(np.sum(model.n_iter_)) if hasattr(model, "n_iter_") else None,
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    print(json.dumps(row))


def run(args, dataset, method):
    cmd = [sys.executable, __file__, "--worker", method, "--dataset", dataset, "--n-jobs", str(args.n_jobs)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{dataset} {method} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def report(rows):
    print("\n| data | method | test error % | Δ vs SMO (points) | #SV | ΔSV vs SMO % | fit s | x SMO | x sklearn | "
          "steps | kernel evals | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        smo = next(s for s in rows if s["dataset"] == r["dataset"] and s["method"] == "smo")
        sk = next(s for s in rows if s["dataset"] == r["dataset"] and s["method"] == "sklearn")
        d_err = 100 * (r["test_error"] - smo["test_error"])
        d_sv = 100 * (r["n_sv"] - smo["n_sv"]) / smo["n_sv"]
        evals = f"{r['kernel_evals']:,}" if r.get("kernel_evals") else "—"
        print(f"| {r['dataset']} | {r['method']} | {100 * r['test_error']:.2f} | {d_err:+.2f} | {r['n_sv']} | {d_sv:+.2f} | "
              f"{r['fit_s']:.2f} | {r['fit_s'] / smo['fit_s']:.2f} | {r['fit_s'] / sk['fit_s']:.2f} | "
              f"{r.get('n_iter') or '—'} | {evals} | {r['peak_rss_mb']:.0f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="adult,ijcnn1,mnist5k")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "isda.json"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dataset", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    rows = []
    for dataset in args.datasets.split(","):
        for method in args.methods.split(","):
            rows.append(run(args, dataset, method))
            r = rows[-1]
            print(f"  {dataset} {method}: {r['fit_s']:.2f} s, error {r['test_error']:.4f}, #SV {r['n_sv']}",
                  file=sys.stderr, flush=True)
            save(args.out, dict(n_jobs=args.n_jobs, common=COMMON, results=rows))
    report(rows)


if __name__ == "__main__":
    main()
