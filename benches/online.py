"""Online kernel classifiers against batch SMO: the protocol of the thesis' Table 4.3 on our data.

For each dataset: our SMO (`SVC`; and one-vs-rest, as the online methods decompose multiclass
problems, via scikit-learn's `OneVsRestClassifier`), LaSVM x1, LaSVM x2, LaSVM x1 without its finishing step
(Table 4.4's comparison), the Huller x1, the averaged perceptron x1 and scikit-learn's `SVC`, all
with the same kernel, C and cache budget; mnist5k one-vs-rest for the online methods (one-vs-one
for the two SMOs, as they are built). Each fit runs in its own subprocess (peak RSS is its own).

    python benches/online.py [--datasets adult,ijcnn1,mnist5k] [--methods smo,lasvm-x1,...]
                             [--cache 200] [--n-jobs 1] [--out benches/results/online.json]
    python benches/online.py --curves adult [--chunks 20]   # selection strategies, PNG plots

The curves: the training set is fed to `LaSVM.partial_fit` in equal random chunks (one online pass
each, no finishing step). After each chunk a copy of the model gets the finishing step (`finish()`)
and is measured, as the thesis measured its curves on a saved state; the time and kernel
evaluations plotted are the online ones so far plus that finishing step's. GRADIENT and ACTIVE
score 50 candidates per step (the thesis' M), so a whole pass costs them far more than RANDOM's:
each strategy stops once its online time passes --time-factor times RANDOM's whole pass.
"""

import argparse
import copy
import datetime
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

# dataset -> (gamma, C): the settings of benches/run.py
SETTINGS = {"adult": (0.005, 100.0), "ijcnn1": (2.0, 32.0), "mnist5k": (0.025, 10.0)}
METHODS = ["smo", "smo-ovr", "lasvm-x1", "lasvm-x2", "lasvm-x1-nofinish", "huller-x1", "avgperc-x1", "sklearn"]
# also available with --methods: lasvm-partial10 (partial_fit over 10 random chunks)


class Chunked:
    """`LaSVM.partial_fit` over `chunks` random chunks, as one estimator; kernel evaluations summed."""

    def __init__(self, model, chunks):
        self.model, self.chunks = model, chunks

    def fit(self, X, y):
        self.n_kernel_evals_ = 0
        for idx in np.array_split(np.random.RandomState(0).permutation(len(y)), self.chunks):
            self.model.partial_fit(X[idx], y[idx], classes=np.unique(y))
            self.n_kernel_evals_ += self.model.n_kernel_evals_
        self.support_ = self.model.support_
        return self

    def predict(self, X):
        return self.model.predict(X)
STRATEGIES = ["random", "gradient", "active", "autoactive"]


def make(method, gamma, C, cache, n_jobs):
    import largemargin as lm

    common = dict(gamma=gamma, cache_size=cache)
    if method == "smo":
        return lm.SVC(C=C, n_jobs=n_jobs, **common)
    if method == "smo-ovr":
        from sklearn.multiclass import OneVsRestClassifier

        return OneVsRestClassifier(lm.SVC(C=C, n_jobs=n_jobs, **common))
    if method == "sklearn":
        from sklearn.svm import SVC

        return SVC(C=C, **common)
    if method == "lasvm-partial10":
        return Chunked(lm.LaSVM(C=C, random_state=0, n_jobs=n_jobs, **common), 10)
    if method.startswith("lasvm"):
        epochs = 2 if "x2" in method else 1
        return lm.LaSVM(C=C, epochs=epochs, finishing="nofinish" not in method, random_state=0, n_jobs=n_jobs, **common)
    if method == "huller-x1":
        return lm.Huller(random_state=0, n_jobs=n_jobs, **common)
    if method == "avgperc-x1":
        return lm.KernelPerceptron(rule="averaged", random_state=0, n_jobs=n_jobs, **common)
    raise ValueError(method)


def worker(args):
    from datasets import load

    Xtr, ytr, Xte, yte = load(args.dataset)
    gamma, C = SETTINGS[args.dataset]
    model = make(args.worker, gamma, C, args.cache, args.n_jobs)
    t = time.perf_counter()
    model.fit(Xtr, ytr)
    fit = time.perf_counter() - t
    err = float(np.mean(model.predict(Xte) != yte))
    if hasattr(model, "estimators_"):  # one-vs-rest SMO: its binary SVMs together
        n_sv = len(set().union(*(set(e.support_) for e in model.estimators_)))
        evals = sum(e.n_kernel_evals_ for e in model.estimators_)
    else:
        n_sv, evals = len(model.support_), getattr(model, "n_kernel_evals_", -1)
    print(json.dumps(dict(
        dataset=args.dataset, method=args.worker, fit_s=fit, test_error=err, n_sv=int(n_sv), kernel_evals=int(evals),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    )))


def table(args):
    rows = []
    methods = args.methods.split(",")
    for needed in ("smo", "sklearn"):  # the references of the ratios
        if needed not in methods:
            methods.insert(0, needed)
    for dataset in args.datasets.split(","):
        for method in methods:
            cmd = [sys.executable, __file__, "--worker", method, "--dataset", dataset, "--cache", str(args.cache),
                   "--n-jobs", str(args.n_jobs)]
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                sys.exit(f"{dataset} {method} failed:\n{r.stderr}")
            rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
            print(f"  {dataset} {method}: {rows[-1]['fit_s']:.2f} s", file=sys.stderr, flush=True)
    print(f"\ncache {args.cache} MB, n_jobs={args.n_jobs}; time against scikit-learn's SVC, kernel evaluations against our "
          "SMO (one-vs-rest for the online methods)\n")
    print("| dataset | method | fit s | x sklearn | test error % | #SV | kernel evals | x SMO evals | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        same = [x for x in rows if x["dataset"] == r["dataset"]]
        sk = next(x for x in same if x["method"] == "sklearn")
        smo = next(x for x in same if x["method"] == "smo")
        if r["method"] not in ("smo", "sklearn"):  # the online methods against SMO one-vs-rest
            smo = next((x for x in same if x["method"] == "smo-ovr"), smo)
        ev = f"{r['kernel_evals']:,}" if r["kernel_evals"] >= 0 else "—"
        evr = f"{r['kernel_evals'] / smo['kernel_evals']:.2f}" if r["kernel_evals"] >= 0 else "—"
        print(f"| {r['dataset']} | {r['method']} | {r['fit_s']:.2f} | {r['fit_s'] / sk['fit_s']:.2f} | "
              f"{100 * r['test_error']:.2f} | {r['n_sv']} | {ev} | {evr} | {r['peak_rss_mb']:.0f} |")
    save(args.out, dict(cache_mb=args.cache, n_jobs=args.n_jobs, results=rows))


def curves(args):
    from datasets import load

    import largemargin as lm

    Xtr, ytr, Xte, yte = load(args.curves)
    gamma, C = SETTINGS[args.curves]
    chunks = np.array_split(np.random.RandomState(0).permutation(len(ytr)), args.chunks)
    out = {}
    limit = None  # the other strategies stop after `time_factor` times RANDOM's whole pass
    for strategy in STRATEGIES:
        model = lm.LaSVM(gamma=gamma, C=C, selection=strategy, finishing=False, cache_size=args.cache,
                         random_state=0, n_jobs=args.n_jobs)
        spent, evals, points = 0.0, 0, []
        for idx in chunks:
            if limit is not None and spent > limit:
                break
            t = time.perf_counter()
            model.partial_fit(Xtr[idx], ytr[idx], classes=np.unique(ytr))
            spent += time.perf_counter() - t
            evals += model.n_kernel_evals_
            finished = copy.deepcopy(model)
            t = time.perf_counter()
            finished.finish()
            points.append(dict(
                time_s=spent + time.perf_counter() - t, kernel_evals=evals + finished.n_kernel_evals_,
                test_error=float(np.mean(finished.predict(Xte) != yte)), n_sv=int(len(finished.support_)),
                online_test_error=float(np.mean(model.predict(Xte) != yte)),
            ))
        out[strategy] = points
        if limit is None:
            limit = args.time_factor * spent
        print(f"  {strategy}: {spent:.1f} s, error {100 * points[-1]['test_error']:.2f}%, {points[-1]['n_sv']} SV",
              file=sys.stderr, flush=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    for x, label in (("time_s", "training time (s)"), ("kernel_evals", "kernel evaluations")):
        fig, ax = plt.subplots(figsize=(6, 4))
        for strategy, points in out.items():
            ax.plot([p[x] for p in points], [100 * p["test_error"] for p in points], marker=".", label=strategy)
        ax.set_xlabel(label)
        ax.set_ylabel("test error (%)")
        ax.set_title(f"LaSVM selection strategies on {args.curves} (finished after each of {args.chunks} chunks)",
                     fontsize=9)
        ax.legend()
        fig.tight_layout()
        path = os.path.join(HERE, "results", f"online-curves-{args.curves}-{x.split('_')[0]}.png")
        fig.savefig(path, dpi=100)
        print(path)
    save(args.out.replace(".json", f"-curves-{args.curves}.json"), dict(chunks=args.chunks, curves=out))


def save(path, payload):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    payload.update(date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
                   cpus=os.cpu_count())
    with open(path, "w") as f:
        json.dump(payload, f, indent=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="adult,ijcnn1,mnist5k")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--cache", type=float, default=200)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--curves", help="plot selection-strategy curves on this dataset instead")
    ap.add_argument("--chunks", type=int, default=20)
    ap.add_argument("--time-factor", type=float, default=2.0,
                    help="curves: stop a strategy once its online time passes this many times RANDOM's")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "online.json"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--dataset", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.curves:
        return curves(args)
    table(args)


if __name__ == "__main__":
    main()
