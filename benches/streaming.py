"""Peak memory of linear SGD trained from a LIBSVM file in streaming mode: the claim is
O(d + one chunk), whatever the file's size.

RCV1-like files of growing size are written once (seeded, `--dir`); for each, a fresh process
reads the file chunk by chunk with `largemargin.datasets.iter_libsvm` and feeds every chunk to
`LinearSGD.partial_fit` (SVMSGD2, squared hinge, lambda 1e-4, as benches/linear.py), for
`--passes` passes over the file. The figure is the peak RSS of the process minus its RSS right
before training (after imports). For comparison, another process loads the same file whole
(scikit-learn's load_svmlight_file) and fits on it. The test error is measured on the
generator's held-out rows (streamed as well).

    python benches/streaming.py [--rows 100000,400000] [--chunk-rows 10000] [--passes 2]
"""

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
D = 47_000
TEST_ROWS = 20_000


def write_files(rows, folder):
    """train-ROWS.svm (the first `rows` of a generated set) and the common test.svm."""
    from sklearn.datasets import dump_svmlight_file

    from largemargin.datasets import make_rcv1_like

    os.makedirs(folder, exist_ok=True)
    largest = max(rows)
    paths = {n: os.path.join(folder, f"train-{n}.svm") for n in rows}
    test = os.path.join(folder, "test.svm")
    if all(os.path.exists(p) for p in [*paths.values(), test]):
        return paths, test
    X, y = make_rcv1_like(n_samples=largest + TEST_ROWS)
    dump_svmlight_file(X[largest:], y[largest:], test, zero_based=True)
    for n, path in paths.items():
        dump_svmlight_file(X[:n], y[:n], path, zero_based=True)
    return paths, test


def status_mb(field):
    """VmRSS or VmHWM (the peak) of this process, from Linux (the peak starts again at exec, unlike
    getrusage's, which a child inherits from its parent)."""
    with open("/proc/self/status") as f:
        line = next(line for line in f if line.startswith(field + ":"))
    return int(line.split()[1]) / 1024


def error_on(model, test, chunk_rows):
    from largemargin.datasets import iter_libsvm

    wrong = seen = 0
    for X, y in iter_libsvm(test, D, chunk_rows=chunk_rows, zero_based=True, dtype=np.float32):
        wrong += int(np.sum(model.predict(X) != y))
        seen += len(y)
    return wrong / seen


def worker(mode, path, test, chunk_rows, passes):
    import largemargin as lm
    from largemargin.datasets import iter_libsvm

    model = lm.LinearSGD(algorithm="svmsgd2", alpha=1e-4, t0=1e4, fit_intercept=False, shuffle=False, n_jobs=1)
    base = status_mb("VmRSS")
    started = time.perf_counter()
    if mode == "stream":
        nnz = 0
        for _ in range(passes):
            for X, y in iter_libsvm(path, D, chunk_rows=chunk_rows, zero_based=True, dtype=np.float32):
                model.partial_fit(X, y, classes=np.array([-1.0, 1.0]))
                nnz += X.nnz
        nnz //= passes
    else:
        from sklearn.datasets import load_svmlight_file

        X, y = load_svmlight_file(path, n_features=D, zero_based=True, dtype=np.float32)
        model.set_params(epochs=passes).fit(X, y)
        nnz = X.nnz
    seconds = time.perf_counter() - started
    peak = status_mb("VmHWM")
    print(json.dumps(dict(mode=mode, base_mb=base, peak_mb=peak, growth_mb=peak - base, seconds=seconds,
                          data_mb=nnz * 8 / 2**20, test_error=error_on(model, test, chunk_rows))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", default="100000,400000")
    ap.add_argument("--chunk-rows", type=int, default=10_000)
    ap.add_argument("--passes", type=int, default=2)
    ap.add_argument("--dir", default="/tmp/largemargin-streaming")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "streaming.json"))
    ap.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(*args.worker, args.chunk_rows, args.passes)
    rows = [int(r) for r in args.rows.split(",")]
    paths, test = write_files(rows, args.dir)
    results = []
    print(f"| rows | file MB | data in memory MB | mode | RSS before MB | peak RSS MB | growth MB | s ({args.passes} passes)"
          " | test error % |")
    print("|---|---|---|---|---|---|---|---|---|")
    for n in rows:
        for mode in ("stream", "whole"):
            out = subprocess.run([sys.executable, __file__, "--worker", mode, paths[n], test, "--chunk-rows",
                                  str(args.chunk_rows), "--passes", str(args.passes)],
                                 check=True, capture_output=True, text=True).stdout
            r = dict(json.loads(out.strip().splitlines()[-1]), rows=n, file_mb=os.path.getsize(paths[n]) / 2**20,
                     chunk_rows=args.chunk_rows, passes=args.passes)
            results.append(r)
            print(f"| {n:,} | {r['file_mb']:.0f} | {r['data_mb']:.0f} | {mode} | {r['base_mb']:.0f} | "
                  f"{r['peak_mb']:.0f} | {r['growth_mb']:.0f} | {r['seconds']:.1f} | {100 * r['test_error']:.2f} |",
                  flush=True)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
