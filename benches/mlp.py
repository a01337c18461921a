"""The margin MLPs against one SMO SVM and scikit-learn's MLPClassifier on the same data: the
simple MLP (Collobert and Bengio's Algorithm 2), the Nilsson MLP (its defaults), our SVC (the settings of
benches/run.py; C=10, gamma=0.1 on the Forest-like problem) and MLPClassifier (100 tanh units,
adam, early stopping, scikit-learn's defaults otherwise); test error and fit time, the ratio to
SMO, every fit in its own subprocess. The simple MLP's settings are chosen by
benches/studies/mlp_select.py on 80/20 splits of each training set (the report gives none; output in
benches/studies/results/mlp_select.txt; adult over 10 splits x 2 seeds, ijcnn1 and forest on one split):
"simple" is the best held-out setting whose fit took at most 0.2x SMO's on the split,
"simple-best" the best held-out setting at any cost, when it differs. The Nilsson MLP runs with
its defaults, chosen on benches/suite.py's datasets.

The MLPs are fit for each of --random-states (weights, order, early-stopping split); the report
gives the mean with min - max; the SVM is deterministic and fit once.

    python benches/mlp.py [--datasets adult,ijcnn1,forest] [--forest-n 50000] [--random-states 0,1,2]
                          [--methods svm,simple,...] [--out benches/results/mlp.json]

--methods reruns only those methods and keeps the other rows stored in --out.
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
from run import CONFIGS as SVM_CONFIGS  # noqa: E402

CONFIGS = {
    "adult": dict(simple=dict(hidden_units=100, beta=3.0, learning_rate=0.01, n_iter_no_change=20, average=True,
                              init_scale=1.0),
                  nilsson={}),
    "ijcnn1": dict(simple=dict(hidden_units=100, beta=3.0, learning_rate=0.1, n_iter_no_change=5),
                   **{"simple-best": dict(hidden_units=200, beta=3.0, learning_rate=0.1, n_iter_no_change=20,
                                          average=True)},
                   nilsson={}),
    "forest": dict(simple=dict(hidden_units=100, beta=3.0, learning_rate=0.001, n_iter_no_change=20, average=True),
                   nilsson={}),
}
# the estimators' defaults when these settings were chosen, which the settings above leave implicit
# (the defaults have since been chosen on the suite: benches/studies/mlp_defaults.py)
FORMER = dict(simple=dict(average=False, learning_rate=0.01, validation_fraction=0.1))
METHODS = ["svm", "simple", "simple-best", "nilsson", "sklearn-mlp"]
TEST = 20_000


def data(name, forest_n):
    if name == "forest":
        import largemargin as lm

        X, y = lm.make_forest_like(forest_n + TEST, random_state=0)
        return X[:forest_n], y[:forest_n], X[forest_n:], y[forest_n:]
    from datasets import load

    return load(name)


def svm_params(name):
    """Our SMO SVM's settings: those of benches/run.py, C=10 and gamma=0.1 on the Forest-like problem."""
    return dict(gamma=0.1, C=10.0) if name == "forest" else SVM_CONFIGS[name][2]


def worker(args):
    import largemargin as lm

    Xtr, ytr, Xte, yte = data(args.dataset, args.forest_n)
    if args.worker == "svm":
        model = lm.SVC(**svm_params(args.dataset), cache_size=200, n_jobs=args.n_jobs)
    elif args.worker.startswith("simple"):
        model = lm.SimpleMLPClassifier(**{**FORMER["simple"], **CONFIGS[args.dataset][args.worker]}, max_epochs=200,
                                       random_state=args.random_state)
    elif args.worker == "nilsson":
        model = lm.NilssonMLPClassifier(**CONFIGS[args.dataset]["nilsson"], random_state=args.random_state,
                                        n_jobs=args.n_jobs)
    else:
        from sklearn.neural_network import MLPClassifier

        model = MLPClassifier(hidden_layer_sizes=(100,), activation="tanh", early_stopping=True,
                              random_state=args.random_state)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit = time.perf_counter() - t
    err = float(np.mean(model.predict(Xte) != yte))
    # epochs of the MLPs (ours: n_epochs_, scikit-learn's: n_iter_); the SVM has none
    epochs = getattr(model, "n_epochs_", None) if args.worker != "sklearn-mlp" else model.n_iter_
    row = dict(dataset=args.dataset, method=args.worker, random_state=args.random_state, n=int(len(ytr)), fit_s=fit,
               test_error=err,
               epochs=None if epochs is None else int(epochs),
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    print(json.dumps(row))


def run(args, dataset, method, seed):
    cmd = [sys.executable, __file__, "--worker", method, "--dataset", dataset, "--n-jobs", str(args.n_jobs),
           "--forest-n", str(args.forest_n), "--random-state", str(seed)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f"{dataset} {method} failed:\n{r.stderr}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def report(rows):
    def spread(values, fmt):
        values = np.asarray(values, dtype=float)
        text = fmt.format(values.mean())
        return text if len(values) == 1 or values.min() == values.max() else \
            f"{text} ({fmt.format(values.min())} - {fmt.format(values.max())})"

    print("\n| data | n | method | test error % | Δ vs SVM (points) | fit s | x SVM | epochs | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for dataset in dict.fromkeys(r["dataset"] for r in rows):
        svm = next(s for s in rows if s["dataset"] == dataset and s["method"] == "svm")
        for method in dict.fromkeys(r["method"] for r in rows if r["dataset"] == dataset):
            rs = [r for r in rows if r["dataset"] == dataset and r["method"] == method]
            err = [100 * r["test_error"] for r in rs]
            fit = [r["fit_s"] for r in rs]
            print(f"| {dataset} | {rs[0]['n']} | {method} | {spread(err, '{:.2f}')} | "
                  f"{np.mean(err) - 100 * svm['test_error']:+.2f} | {spread(fit, '{:.2f}')} | "
                  f"{np.mean(fit) / svm['fit_s']:.3f} | {spread([r.get('epochs') or 0 for r in rs], '{:.0f}')} | "
                  f"{max(r['peak_rss_mb'] for r in rs):.0f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="adult,ijcnn1,forest")
    ap.add_argument("--forest-n", type=int, default=50_000)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--random-states", default="0,1,2")
    ap.add_argument("--random-state", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "mlp.json"))
    ap.add_argument("--methods", default=",".join(METHODS), help="comma-separated, from: " + ", ".join(METHODS))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dataset", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    methods = args.methods.split(",")
    unknown = set(methods) - set(METHODS)
    if unknown:
        sys.exit(f"unknown methods {sorted(unknown)}: choose from {METHODS}")
    rows = []
    if set(methods) != set(METHODS) and os.path.exists(args.out):
        with open(args.out) as f:
            rows = [r for r in json.load(f)["results"] if r["method"] not in methods]
    for dataset in args.datasets.split(","):
        for method in [m for m in methods if m in CONFIGS[dataset] or not m.startswith("simple")]:
            for seed in [0] if method == "svm" else [int(s) for s in args.random_states.split(",")]:
                rows.append(run(args, dataset, method, seed))
                r = rows[-1]
                print(f"  {dataset} {method} seed {seed}: {r['fit_s']:.2f} s, error {r['test_error']:.4f}",
                      file=sys.stderr, flush=True)
            save(args.out, dict(n_jobs=args.n_jobs, forest_n=args.forest_n, configs=CONFIGS, results=rows))
    order = {(d, m): i for i, (d, m) in enumerate((d, m) for d in CONFIGS for m in METHODS)}
    report(sorted(rows, key=lambda r: order.get((r["dataset"], r["method"]), len(order))))


if __name__ == "__main__":
    main()
