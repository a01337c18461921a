"""Memory of fits on very wide sparse data: 2,000 rows x 10^7 features, 15 nonzeros a row (0.24 MB
of data). Kernel work on sparse data must cost O(nnz): peak growth and what stays allocated after
the fit are data + cache + O(n), except where the model's own weights are dense per feature
(LinearSGD's coef_, an MLP's first layer), which are reported with their size.

Each estimator runs in a fresh process; growth is peak RSS during the fit minus RSS before it, and
kept is RSS after the fit (model still alive, garbage collected) minus RSS before it.

    python benches/memory_wide.py [ESTIMATOR ...]
"""

import argparse
import gc
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from process_memory import peak_mb, rss_mb  # noqa: E402

N, D, NNZ = 2_000, 10_000_000, 15


def estimators():
    import largemargin as lm

    return {
        "SVC": lambda: lm.SVC(),
        "SVR": lambda: lm.SVR(),
        "SVC isda": lambda: lm.SVC(solver="isda"),
        "LaSVM": lambda: lm.LaSVM(),
        "Huller": lambda: lm.Huller(),
        "KernelPerceptron": lambda: lm.KernelPerceptron(),
        "LaRankClassifier (10 classes)": lambda: lm.LaRankClassifier(),
        "AmbiguousLaRankClassifier (10 classes)": lambda: lm.AmbiguousLaRankClassifier(),
        "LinearSGD": lambda: lm.LinearSGD(),
        "LinearSGD (10 classes)": lambda: lm.LinearSGD(),
        "LinearSGD (10 classes, n_jobs=2)": lambda: lm.LinearSGD(n_jobs=2),
        "LinearSGD svmsgd2 (10 classes, n_jobs=2)": lambda: lm.LinearSGD(algorithm="svmsgd2", n_jobs=2),
        "LinearSGD sgdqn (10 classes, n_jobs=2)": lambda: lm.LinearSGD(algorithm="sgdqn", n_jobs=2),
        "MarginPerceptron": lambda: lm.MarginPerceptron(),
        "MixtureSVC": lambda: lm.MixtureSVC(),
    }


def data(classes):
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.default_rng(0)
    indices = np.sort(rng.choice(D, size=(N, NNZ), replace=True), axis=1).astype(np.int32).ravel()
    X = sp.csr_matrix((rng.random(N * NNZ), indices, np.arange(0, N * NNZ + 1, NNZ)), shape=(N, D))
    X.sum_duplicates()
    y = rng.standard_normal(N) if classes == 0 else rng.integers(0, classes, N).astype(float)
    return X, y


def worker(name):
    import numpy as np

    est = estimators()[name]()
    X, y = data(0 if name == "SVR" else 10 if "10 classes" in name else 2)
    gc.collect()
    base = rss_mb()
    peak_before = peak_mb()
    est.fit(X, y)
    peak = peak_mb()
    gc.collect()
    kept = rss_mb() - base
    dense_weights = sum(v.nbytes for k, v in vars(est).items() if k.endswith("_") and isinstance(v, np.ndarray)
                        and v.size >= D) / 2**20
    # the high-water mark never goes down: if the data's build peaked higher than the fit, growth is <= 0
    print(json.dumps({"estimator": name, "growth_mb": max(peak - max(base, peak_before), 0.0), "kept_mb": kept,
                      "dense_weights_mb": dense_weights, "data_mb": (X.data.nbytes + X.indices.nbytes
                                                                    + X.indptr.nbytes) / 2**20}))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "memory_wide.json"))
    args = ap.parse_args()
    if args.worker:
        return worker(args.worker)
    names = args.names or list(estimators())
    rows = []
    print(f"{N:,} x {D:,} sparse, {NNZ} nonzeros a row\n")
    print("| estimator | peak growth MB | kept after fit MB | of which dense per-feature weights MB | "
          "peak / weights | kept / weights |")
    print("|---|---|---|---|---|---|")
    for name in names:
        r = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", name], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"| {name} | failed: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode} | | |")
            continue
        row = json.loads(r.stdout.strip().splitlines()[-1])
        rows.append(row)
        ratios = (f"{row['growth_mb'] / row['dense_weights_mb']:.2f} | {row['kept_mb'] / row['dense_weights_mb']:.2f}"
                  if row["dense_weights_mb"] else "- | -")
        print(f"| {name} | {row['growth_mb']:.1f} | {row['kept_mb']:.1f} | {row['dense_weights_mb']:.1f} | {ratios} |",
              flush=True)
    if not args.names:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
