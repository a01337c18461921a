"""Online kernel classifiers against batch SMO: the protocol of the thesis' Table 4.3 on our data.

For each dataset: our SMO (`SVC`; and one-vs-rest, as the online methods decompose multiclass
problems, via scikit-learn's `OneVsRestClassifier`), LaSVM x1, LaSVM x2, LaSVM x1 without its finishing step
(Table 4.4's comparison), the Huller x1, the averaged perceptron x1 and scikit-learn's `SVC`, all
with the same kernel, C and cache budget; mnist5k one-vs-rest for the online methods (one-vs-one
for the two SMOs, as they are built). Each fit runs in its own subprocess (peak RSS is its own).

    python benches/online.py [--datasets adult,ijcnn1,mnist5k] [--methods smo,lasvm-x1,...]
                             [--cache 200] [--n-jobs 1] [--random-states 0,1,2]
                             [--out benches/results/online.json]
    python benches/online.py --curves adult [--strategies random,autoactive] [--seed 0]   # PNG plots

The curves follow the thesis' protocol (Figs 4.11-4.12): a strategy runs a budget of online
iterations, then the finishing step, and is measured; here each point is a fit with that budget
(`LaSVM(max_iter=...)`; with one random_state the budgets cut one trajectory), so its time and
kernel evaluations are those of getting there, finishing included. GRADIENT and ACTIVE score 50
candidates per iteration (the thesis' M), AUTOACTIVE up to 100, so an iteration costs them far more
than RANDOM's: a strategy's curve ends once a fit takes --time-factor times RANDOM's whole epoch.
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


def make(method, gamma, C, cache, n_jobs, random_state=0):
    import largemargin as lm

    common = dict(gamma=gamma, cache_size=cache)
    # the papers train MNIST one-vs-rest: so do the online methods here (LaSVM defaults to pairs)
    online = dict(multiclass="ovr")
    if method == "smo":
        return lm.SVC(C=C, n_jobs=n_jobs, **common)
    if method == "smo-ovr":
        from sklearn.multiclass import OneVsRestClassifier

        return OneVsRestClassifier(lm.SVC(C=C, n_jobs=n_jobs, **common))
    if method == "sklearn":
        from sklearn.svm import SVC

        return SVC(C=C, **common)
    if method == "lasvm-partial10":
        return Chunked(lm.LaSVM(C=C, random_state=random_state, n_jobs=n_jobs, **online, **common), 10)
    if method.startswith("lasvm"):
        epochs = 2 if "x2" in method else 1
        return lm.LaSVM(C=C, epochs=epochs, finishing="nofinish" not in method, random_state=random_state,
                        n_jobs=n_jobs, **online, **common)
    if method == "huller-x1":
        return lm.Huller(random_state=random_state, n_jobs=n_jobs, **common)
    if method == "avgperc-x1":
        return lm.KernelPerceptron(rule="averaged", random_state=random_state, n_jobs=n_jobs, **common)
    raise ValueError(method)


def worker(args):
    from datasets import load

    Xtr, ytr, Xte, yte = load(args.dataset)
    gamma, C = SETTINGS[args.dataset]
    model = make(args.worker, gamma, C, args.cache, args.n_jobs, args.random_state)
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
        dataset=args.dataset, method=args.worker, random_state=args.random_state, fit_s=fit, test_error=err, n_sv=int(n_sv), kernel_evals=int(evals),
        peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
    )))


def table(args):
    rows = []
    methods = args.methods.split(",")
    for needed in ("smo", "sklearn"):  # the references of the ratios
        if needed not in methods:
            methods.insert(0, needed)
    states = [int(v) for v in args.random_states.split(",")]
    for dataset in args.datasets.split(","):
        for method in methods:
            for state in states if method not in ("smo", "smo-ovr", "sklearn") else states[:1]:
                cmd = [sys.executable, __file__, "--worker", method, "--dataset", dataset, "--cache", str(args.cache),
                       "--n-jobs", str(args.n_jobs), "--random-state", str(state)]
                r = subprocess.run(cmd, capture_output=True, text=True)
                if r.returncode:
                    sys.exit(f"{dataset} {method} failed:\n{r.stderr}")
                rows.append(json.loads(r.stdout.strip().splitlines()[-1]))
                print(f"  {dataset} {method} {state}: {rows[-1]['fit_s']:.2f} s", file=sys.stderr, flush=True)
    print(f"\ncache {args.cache} MB, n_jobs={args.n_jobs}; time against scikit-learn's SVC, kernel evaluations against our "
          "SMO (one-vs-rest for the online methods)\n")
    print("| dataset | method | random_state | fit s | x sklearn | test error % | #SV | kernel evals | x SMO evals | peak RSS MB |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        sk, smo = references(rows, r)
        ev = f"{r['kernel_evals']:,}" if r["kernel_evals"] >= 0 else "—"
        evr = f"{r['kernel_evals'] / smo['kernel_evals']:.3f}" if r["kernel_evals"] >= 0 else "—"
        print(f"| {r['dataset']} | {r['method']} | {r['random_state']} | {r['fit_s']:.2f} | {r['fit_s'] / sk['fit_s']:.2f} | "
              f"{100 * r['test_error']:.2f} | {r['n_sv']} | {ev} | {evr} | {r['peak_rss_mb']:.0f} |")
    if len(states) > 1:
        print(f"\nover random_state {args.random_states}: mean (min - max)\n")
        print("| dataset | method | fit s | x sklearn | test error % | #SV | x SMO evals |")
        print("|---|---|---|---|---|---|---|")
        for dataset in args.datasets.split(","):
            for method in methods:
                same = [r for r in rows if r["dataset"] == dataset and r["method"] == method]
                if len(same) < 2:
                    continue
                sk, smo = references(rows, same[0])

                def spread(f, fmt):
                    v = [f(r) for r in same]
                    return f"{fmt.format(np.mean(v))} ({fmt.format(min(v))} - {fmt.format(max(v))})"

                print(f"| {dataset} | {method} | {spread(lambda r: r['fit_s'], '{:.2f}')} | "
                      f"{spread(lambda r: r['fit_s'] / sk['fit_s'], '{:.2f}')} | "
                      f"{spread(lambda r: 100 * r['test_error'], '{:.2f}')} | {spread(lambda r: r['n_sv'], '{:.0f}')} | "
                      f"{spread(lambda r: r['kernel_evals'] / smo['kernel_evals'], '{:.3f}')} |")
    finishing = [(d, a, b) for d in args.datasets.split(",")
                 for a in rows if a["dataset"] == d and a["method"] == "lasvm-x1" and a["random_state"] == states[0]
                 for b in rows if b["dataset"] == d and b["method"] == "lasvm-x1-nofinish" and b["random_state"] == states[0]]
    if finishing:
        print("\nthe finishing step's effect on LaSVM x1 (thesis Table 4.4: after against before)\n")
        print("| dataset | test error | #SV | time |")
        print("|---|---|---|---|")
        for d, after, before in finishing:
            change = [after[k] / before[k] - 1 for k in ("test_error", "n_sv", "fit_s")]
            print(f"| {d} | " + " | ".join(f"{100 * c:+.0f}%" for c in change) + " |")
    save(args.out, dict(cache_mb=args.cache, n_jobs=args.n_jobs, results=rows))


def references(rows, r):
    """scikit-learn's SVC and our SMO on r's dataset (SMO one-vs-rest for the online methods)."""
    same = [x for x in rows if x["dataset"] == r["dataset"]]
    sk = next(x for x in same if x["method"] == "sklearn")
    smo = next(x for x in same if x["method"] == "smo")
    if r["method"] not in ("smo", "sklearn"):
        smo = next((x for x in same if x["method"] == "smo-ovr"), smo)
    return sk, smo


def split_data(dataset, split):
    """The dataset's own train/test split (split None), or random split number `split` of all its
    rows with the same training-set size (the thesis averaged 65 such splits of adult)."""
    from datasets import load

    Xtr, ytr, Xte, yte = load(dataset)
    if split is None:
        return Xtr, ytr, Xte, yte
    import scipy.sparse as sp

    X = sp.vstack([Xtr, Xte]).tocsr() if sp.issparse(Xtr) else np.vstack([Xtr, Xte])
    y = np.concatenate([ytr, yte])
    order = np.random.RandomState(1000 + split).permutation(len(y))
    train, test = order[:len(ytr)], order[len(ytr):]
    return X[train], y[train], X[test], y[test]


def curves(args):
    """Each strategy's learning curve as the thesis measured it (Figs 4.11-4.12): fits with a
    growing budget of online iterations (`max_iter`, one trajectory for a given random_state),
    each followed by the finishing step, then time, kernel evaluations, test error and #SV; on the
    dataset's own split or averaged over --splits random splits."""
    splits = [None] if args.splits == 0 else list(range(args.splits))
    runs = [curves_on(args, *split_data(args.curves, split), label="own split" if split is None else f"split {split}")
            for split in splits]
    out = {"smo": mean_points([r["smo"] for r in runs])}
    for strategy in args.strategies.split(","):
        longest = max(len(r[strategy]) for r in runs)
        out[strategy] = [mean_points([r[strategy][k] for r in runs if k < len(r[strategy])]) for k in range(longest)]
    report_curves(out)
    where = "its own split" if args.splits == 0 else f"the mean of {args.splits} random splits"
    suffix = "" if args.splits == 0 else f"-splits{args.splits}"
    plot_curves(out, args.curves, where, suffix)
    save(args.out.replace(".json", f"-curves-{args.curves}{suffix}.json"),
         dict(seed=args.seed, splits=args.splits, curves=out, runs=runs))


def curves_on(args, Xtr, ytr, Xte, yte, label):
    """SMO, then every strategy over the budgets, on one split. A strategy's curve ends when its
    pass ends by itself (AUTOACTIVE's stop, or the data is spent) or a fit takes --time-factor
    times RANDOM's whole epoch."""
    import largemargin as lm

    gamma, C = SETTINGS[args.curves]
    n = len(ytr)
    budgets = sorted({int(round(v)) for v in np.geomspace(args.first_budget, n, args.points)} | {n})
    out = {}
    smo = lm.SVC(C=C, gamma=gamma, cache_size=args.cache, n_jobs=args.n_jobs)
    t = time.perf_counter()
    smo.fit(Xtr, ytr)
    out["smo"] = dict(time_s=time.perf_counter() - t, kernel_evals=smo.n_kernel_evals_,
                      test_error=float(np.mean(smo.predict(Xte) != yte)), n_sv=int(len(smo.support_)))
    print(f"  {label} smo: {out['smo']['time_s']:.1f} s, error {100 * out['smo']['test_error']:.2f}%, "
          f"{out['smo']['n_sv']} SV", file=sys.stderr, flush=True)
    limit = None  # set by RANDOM's whole epoch
    for strategy in args.strategies.split(","):
        points = []
        for budget in budgets:
            model = lm.LaSVM(gamma=gamma, C=C, selection=strategy, max_iter=budget, cache_size=args.cache,
                             random_state=args.seed, n_jobs=args.n_jobs)
            t = time.perf_counter()
            model.fit(Xtr, ytr)
            spent = time.perf_counter() - t
            points.append(dict(
                budget=budget, iterations=int(model.n_processed_[0]), time_s=spent,
                kernel_evals=model.n_kernel_evals_, test_error=float(np.mean(model.predict(Xte) != yte)),
                n_sv=int(len(model.support_)),
            ))
            print(f"  {label} {strategy} {budget}: {spent:.1f} s, error {100 * points[-1]['test_error']:.2f}%, "
                  f"{points[-1]['n_sv']} SV", file=sys.stderr, flush=True)
            if model.n_processed_[0] < budget or (limit is not None and spent > limit):
                break
        out[strategy] = points
        if strategy == "random":
            limit = args.time_factor * points[-1]["time_s"]
    return out


def mean_points(points):
    """The field-by-field mean of measurements taken on several splits, with their count."""
    return {**{k: float(np.mean([p[k] for p in points])) for k in points[0]}, "splits": len(points)}


def report_curves(out):
    smo = out["smo"]
    print(f"\nSMO: test error {100 * smo['test_error']:.2f}%, {smo['n_sv']:.0f} SV, {smo['time_s']:.2f} s, "
          f"{smo['kernel_evals']:,.0f} kernel evaluations\n")
    print("| strategy | iterations | test error % | Δ SMO | #SV | x SMO's SV | time s | x SMO's time | kernel evals | splits |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for strategy, points in out.items():
        if strategy == "smo":
            continue
        for p in points:
            print(f"| {strategy} | {p['iterations']:.0f} | {100 * p['test_error']:.2f} | "
                  f"{100 * (p['test_error'] - smo['test_error']):+.2f} | {p['n_sv']:.0f} | {p['n_sv'] / smo['n_sv']:.2f} | "
                  f"{p['time_s']:.2f} | {p['time_s'] / smo['time_s']:.2f} | {p['kernel_evals']:,.0f} | {p['splits']} |")


def plot_curves(out, dataset, where, suffix):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    smo = out["smo"]
    axes = (("iterations", "online iterations"), ("time_s", "training time, finishing included (s)"),
            ("kernel_evals", "kernel evaluations"), ("n_sv", "support vectors"))
    fig, grid = plt.subplots(2, 2, figsize=(10, 7.5))
    for ax, (x, label) in zip(grid.ravel(), axes):
        for strategy, points in out.items():
            if strategy != "smo":
                ax.plot([p[x] for p in points], [100 * p["test_error"] for p in points], marker=".", label=strategy)
        ax.axhline(100 * smo["test_error"], color="k", linestyle="--", linewidth=1, label="SMO")
        if x in smo:
            ax.axvline(smo[x], color="grey", linestyle=":", linewidth=1, label=f"SMO's {label.split(',')[0]}")
        if x != "n_sv":
            ax.set_xscale("log")
        ax.set_xlabel(label)
        ax.set_ylabel("test error (%)")
        ax.legend(fontsize=7)
    fig.suptitle(f"LaSVM example selection on {dataset} ({where}): each point is a fit with that budget of "
                 "online iterations, then the finishing step", fontsize=9)
    fig.tight_layout()
    path = os.path.join(HERE, "results", f"online-curves-{dataset}{suffix}.png")
    fig.savefig(path, dpi=100)
    print(path)


def save(path, payload):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    payload.update(date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
                   cpus=os.cpu_count())
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(payload, f, indent=1)
    os.replace(tmp, path)  # a reader never sees half a file, an interrupted run keeps the old one


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="adult,ijcnn1,mnist5k")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--cache", type=float, default=200)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--random-states", default="0", help="the online methods run once for each of these")
    ap.add_argument("--random-state", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--curves", help="plot selection-strategy curves on this dataset instead")
    ap.add_argument("--strategies", default=",".join(STRATEGIES), help="curves: the strategies, random first")
    ap.add_argument("--first-budget", type=int, default=250, help="curves: the smallest budget of iterations")
    ap.add_argument("--points", type=int, default=12, help="curves: budgets from --first-budget to one epoch")
    ap.add_argument("--seed", type=int, default=0, help="curves: random_state")
    ap.add_argument("--splits", type=int, default=0,
                    help="curves: the mean over this many random splits of all the data (0: the dataset's own split)")
    ap.add_argument("--time-factor", type=float, default=2.0,
                    help="curves: end a strategy once a fit takes this many times RANDOM's whole epoch")
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
