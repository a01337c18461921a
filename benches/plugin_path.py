"""The cost of the plugin path: the same RBF kernel computed by the built-in engine, as a composed
kernel (``largemargin.kernels``, one term and two terms), and as a Python plugin written in numpy
(called a row segment at a time through the native adapter), fitted on the same data.

Each fit runs in its own subprocess (peak RSS is its own); with --repeat R the paths are run R times,
interleaved, and the table gives the median and the best fit time. Prints a markdown table and
writes JSON and the table (.md beside the JSON; --render rewrites the table from the JSON alone).

    python benches/plugin_path.py [--dataset adult] [--n-jobs 1] [--rows N] [--repeat 3]
                                  [--out benches/results/plugin_path.json]
"""

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import time

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

GAMMA, C = 0.005, 100
PATHS = ["builtin", "composed", "composed-2-terms", "numpy-plugin"]


class NumpyRBF:
    """exp(-gamma ||a - b||^2) in numpy, the squared norms of B prepared once per fit (BlockKernel)."""

    def __new__(cls, gamma):
        from largemargin.plugins import BlockKernel

        class _RBF(BlockKernel):
            def prepare(self, B):
                if sp.issparse(B):
                    return np.asarray(B.multiply(B).sum(axis=1)).ravel()
                return np.einsum("ij,ij->i", B, B)

            def block(self, A, B, b_norms):
                A = A.toarray() if sp.issparse(A) else np.asarray(A)
                K = np.asarray(B @ A.T).T  # sparse B times a dense block: a matrix-vector product
                K *= 2.0
                K -= np.einsum("ij,ij->i", A, A)[:, None]
                K -= b_norms[None, :]  # now -||a - b||^2
                np.minimum(K, 0.0, out=K)
                K *= gamma
                return np.exp(K, out=K)

        return _RBF()


def kernel_for(path):
    from largemargin.kernels import RBF

    if path == "builtin":
        return "rbf"
    if path == "composed":
        return RBF(GAMMA)
    if path == "composed-2-terms":
        return 0.5 * RBF(GAMMA) + 0.5 * RBF(GAMMA)  # the same kernel, two terms
    if path == "numpy-plugin":
        from largemargin.plugins import get_registry, hookimpl

        class BenchPlugin:
            @hookimpl
            def largemargin_kernels(self):
                return {"numpy_rbf": NumpyRBF(GAMMA)}

        get_registry().register(BenchPlugin(), name="bench-numpy-rbf")
        return "numpy_rbf"
    raise ValueError(path)


def worker(args):
    from datasets import load

    import largemargin as lm

    Xtr, ytr, Xte, yte = load(args.dataset)
    if args.rows:
        Xtr, ytr = Xtr[: args.rows], ytr[: args.rows]
    kernel = kernel_for(args.worker)
    gamma = dict(gamma=GAMMA) if args.worker == "builtin" else {}  # the others carry their own
    model = lm.SVC(kernel=kernel, C=C, tol=1e-3, cache_size=200, n_jobs=args.n_jobs, **gamma)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit = time.perf_counter() - t
    t = time.perf_counter()
    err = float((model.predict(Xte) != yte).mean())
    pred = time.perf_counter() - t
    print(json.dumps(dict(
        path=args.worker, fit_s=fit, predict_s=pred, test_error=err, n_sv=int(len(model.support_)),
        kernel_evals=int(model.n_kernel_evals_), objective=float(model.objective_[0]),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    )))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dataset", default="adult")
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--rows", type=int, default=0, help="first N training rows only (0: all)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "plugin_path.json"))
    ap.add_argument("--render", action="store_true", help="fit nothing: write the .md of the JSON in --out")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.render:
        with open(args.out) as f:
            print(write_markdown(json.load(f), os.path.splitext(args.out)[0] + ".md"))
        return
    runs = {path: [] for path in PATHS}
    for rep in range(args.repeat):
        for path in PATHS:
            cmd = [sys.executable, __file__, "--worker", path, "--dataset", args.dataset, "--n-jobs",
                   str(args.n_jobs), "--rows", str(args.rows)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"{path} failed:\n{r.stderr}")
            runs[path].append(json.loads(r.stdout.strip().splitlines()[-1]))
            print(f"  {rep + 1}/{args.repeat} {path}: {runs[path][-1]['fit_s']:.2f} s", file=sys.stderr, flush=True)
    rows = []
    for path in PATHS:
        r = dict(runs[path][0])
        times = [x["fit_s"] for x in runs[path]]
        r.update(fit_s=float(np.median(times)), fit_best_s=min(times), fit_all_s=times,
                 peak_rss_mb=max(x["peak_rss_mb"] for x in runs[path]))
        rows.append(r)
    report = dict(
        date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
        cpus=os.cpu_count(), dataset=args.dataset, rows=args.rows, n_jobs=args.n_jobs, repeat=args.repeat,
        results=rows,
    )
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print(write_markdown(report, os.path.splitext(args.out)[0] + ".md"))


def write_markdown(report, path):
    """The table of a run (the JSON this script writes) into `path`; returns the text."""
    rows = report["results"]
    base = rows[0]
    repeat = report.get("repeat", len(base.get("fit_all_s", [None])))
    lines = [f"`python benches/plugin_path.py --repeat {repeat}` ({report['date']}, {report['machine']}, "
             f"{report['cpus']} CPUs): {report['dataset']}, RBF gamma={GAMMA}, C={C}, tol=1e-3, cache 200 MB, "
             f"n_jobs={report['n_jobs']}, {repeat} run(s) of each path, interleaved.", "",
             "| path | fit s (median) | x built-in | fit s (best) | x built-in | test error % | #SV | kernel evals "
             "| dual objective | peak RSS MB |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['path']} | {r['fit_s']:.2f} | {r['fit_s'] / base['fit_s']:.2f} | {r['fit_best_s']:.2f} | "
                     f"{r['fit_best_s'] / base['fit_best_s']:.2f} | {100 * r['test_error']:.2f} | {r['n_sv']} | "
                     f"{r['kernel_evals']:,} | {r['objective']:.4f} | {r['peak_rss_mb']:.0f} |")
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    return text


if __name__ == "__main__":
    main()
