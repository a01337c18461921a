"""Linear SVMs by SGD against scikit-learn: the thesis' Table 3.5 protocol (time for one pass
over the training set) with test error and primal objective after one and two passes, on the
project's seeded RCV1-like data and its badly conditioned dense data.

    python benches/linear.py [--datasets rcv1,delta] [--out benches/results/linear.json]
    python benches/linear.py --curves rcv1,delta,adult [--passes 10]

Every method sees the same pre-shuffled data in its order (shuffle off; the "shuffled" rows:
SVMSGD2 and SGDClassifier with their default, a new order each pass), squared hinge, no bias,
the same lambda (thesis Table 3.4: RCV1 1e-4, DELTA 1e-4), one thread. A pass's time is the
difference of wall-clock fit times with five passes and with one, over four, each the best of
--repeat fits, for ours and for scikit-learn's SGDClassifier alike, so fixed costs (input checks,
conversions) cancel. Our t0 is
the one the thesis' subset search picks (chosen once, outside the timed fits); SGDClassifier uses
its "optimal" schedule. Naive SGD (O(d) per example) is timed on one pass. LinearSVC (LIBLINEAR)
with C = 1/(2 n lambda) solves the same primal.

--curves follows each method pass by pass (thesis Figures 3.1/3.2): primal objective and test
error against passes and against training time, one PNG per dataset
(benches/results/linear-curves-NAME.png) and its table (.md). SVMSGD2 and SGD-QN run with the t0
that the subset search picks for each; our times are the passes alone (fit_time_, summed over
partial_fit calls), SGDClassifier's the wall time of its partial_fit calls (its input checks
included), LinearSVC's the wall time of a fit capped at 1, 2, 4, ... iterations and then run to
its tolerance. SGD-QN runs with the t0 its subset search picks and SVMSGD2 with the same t0,
as in the thesis (Table 3.4: one t0 per dataset), and with its own pick when that differs. All
three datasets use lambda = 1e-4 (adult: C = 0.15 in LinearSVC's terms).
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def data(name):
    from largemargin.datasets import make_badly_conditioned, make_rcv1_like

    if name == "rcv1":
        X, y = make_rcv1_like()  # 800,000 rows: train on the first 780,000, as the thesis on RCV1
        return X[:780_000], y[:780_000], X[780_000:], y[780_000:], 1e-4
    if name == "delta":
        X, y = make_badly_conditioned()  # 150,000 rows: the first 100,000 train, the last 50,000 test
        return X[:100_000], y[:100_000], X[100_000:], y[100_000:], 1e-4
    if name == "adult":
        sys.path.insert(0, HERE)
        from datasets import load_adult

        Xtr, ytr, Xte, yte = load_adult()
        return Xtr, ytr, Xte, yte, 1e-4
    raise ValueError(name)


def primal(coef, X, y, lam):
    m = y * (X @ coef)
    return float(0.5 * lam * coef @ coef + np.mean(0.5 * np.maximum(0.0, 1.0 - m) ** 2))


REPEAT = 3


def timed(make, X, y):
    """The best of REPEAT wall-clock fit times, and the fitted model."""
    best = None
    for _ in range(REPEAT):
        t = time.perf_counter()
        model = make().fit(X, y)
        spent = time.perf_counter() - t
        best = spent if best is None else min(best, spent)
    return best, model


def per_pass(make, X, y):
    """(seconds per pass from fits of 1 and 5 passes, the 1-pass model, a 2-pass model)."""
    one_s, one = timed(lambda: make(1), X, y)
    five_s, _ = timed(lambda: make(5), X, y)
    return (five_s - one_s) / 4, one, make(2).fit(X, y)


def run(name):
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import LinearSVC

    import largemargin as lm

    Xtr, ytr, Xte, yte, lam = data(name)
    X64 = Xtr.astype(np.float64)  # scikit-learn's SGD works in float64
    rows = []

    def report(method, per_pass, models, note=""):
        for passes, model in models:
            coef = np.ravel(model.coef_).astype(np.float64)
            rows.append(dict(dataset=name, method=method, passes=passes, pass_s=per_pass,
                             test_error=float(np.mean(model.predict(Xte) != yte)), primal=primal(coef, Xtr, ytr, lam),
                             note=note))
            print(f"  {name} {method} {passes}: {rows[-1]}", file=sys.stderr, flush=True)

    t0 = lm.LinearSGD(algorithm="sgdqn", alpha=lam, epochs=1, fit_intercept=False, shuffle=False, random_state=0) \
        .fit(Xtr[: max(len(ytr) // 10, 1000)], ytr[: max(len(ytr) // 10, 1000)]).t0_
    for algorithm in ("svmsgd2", "sgdqn"):
        make = lambda e, a=algorithm: lm.LinearSGD(algorithm=a, alpha=lam, epochs=e, t0=t0,  # noqa: E731
                                                   fit_intercept=False, shuffle=False, n_jobs=1)
        seconds, one, two = per_pass(make, Xtr, ytr)
        report(algorithm, seconds, [(1, one), (2, two)], f"t0={t0:g}")
    # the estimators' default: a new random order every pass (rows read out of storage order)
    make = lambda e: lm.LinearSGD(algorithm="svmsgd2", alpha=lam, epochs=e, t0=t0, fit_intercept=False,  # noqa: E731
                                  shuffle=True, random_state=0, n_jobs=1)
    seconds, one, two = per_pass(make, Xtr, ytr)
    report("svmsgd2 shuffled", seconds, [(1, one)], f"t0={t0:g}")
    naive_s, naive = timed(lambda: lm.LinearSGD(algorithm="sgd", alpha=lam, epochs=1, t0=t0, fit_intercept=False,
                                                shuffle=False, n_jobs=1), Xtr, ytr)
    report("sgd (naive)", naive_s, [(1, naive)], "one pass, fit time")
    make = lambda e: SGDClassifier(loss="squared_hinge", alpha=lam, max_iter=e, tol=None, shuffle=False,  # noqa: E731
                                   fit_intercept=False, learning_rate="optimal")
    seconds, one, two = per_pass(make, X64, ytr)
    report("sklearn SGDClassifier", seconds, [(1, one), (2, two)])
    make = lambda e: SGDClassifier(loss="squared_hinge", alpha=lam, max_iter=e, tol=None, shuffle=True,  # noqa: E731
                                   random_state=0, fit_intercept=False, learning_rate="optimal")
    seconds, one, two = per_pass(make, X64, ytr)
    report("sklearn SGDClassifier shuffled", seconds, [(1, one)])
    svc_s, svc = timed(lambda: LinearSVC(C=1 / (2 * len(ytr) * lam), fit_intercept=False, max_iter=10000), X64, ytr)
    report("sklearn LinearSVC", svc_s, [("to tol", svc)], "whole fit")
    return rows


def chosen_t0(algorithm, Xtr, ytr, lam):
    """The t0 that the thesis' subset search (inside fit, on 10% of the data) picks."""
    import largemargin as lm

    return lm.LinearSGD(algorithm=algorithm, alpha=lam, epochs=1, fit_intercept=False, shuffle=False,
                        random_state=0, n_jobs=1).fit(Xtr, ytr).t0_


def curves(name, passes):
    """Primal and test error after each pass, with the training time so far, for each method."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning
    from sklearn.linear_model import SGDClassifier
    from sklearn.svm import LinearSVC

    import largemargin as lm

    Xtr, ytr, Xte, yte, lam = data(name)
    X64 = Xtr.astype(np.float64)
    rows = []

    def point(method, passes_done, seconds, coef, predict):
        rows.append(dict(dataset=name, method=method, passes=passes_done, seconds=seconds,
                         primal=primal(np.ravel(coef).astype(np.float64), Xtr, ytr, lam),
                         test_error=float(np.mean(predict(Xte) != yte))))
        print(f"  {rows[-1]}", file=sys.stderr, flush=True)

    # the thesis ran both with SGD-QN's t0 (Table 3.4); SVMSGD2 with its own choice too, if another
    t0_qn, t0_2 = chosen_t0("sgdqn", Xtr, ytr, lam), chosen_t0("svmsgd2", Xtr, ytr, lam)
    for algorithm, t0 in [("sgdqn", t0_qn), ("svmsgd2", t0_qn)] + ([("svmsgd2", t0_2)] if t0_2 != t0_qn else []):
        model = lm.LinearSGD(algorithm=algorithm, alpha=lam, epochs=1, t0=t0, fit_intercept=False, shuffle=False,
                             n_jobs=1)
        spent = 0.0
        for k in range(1, passes + 1):
            model.fit(Xtr, ytr) if k == 1 else model.partial_fit(Xtr, ytr)
            spent += model.fit_time_
            point(f"{algorithm} (t0={t0:g})", k, spent, model.coef_, model.predict)
    sgd = SGDClassifier(loss="squared_hinge", alpha=lam, shuffle=False, fit_intercept=False, learning_rate="optimal")
    spent = 0.0
    for k in range(1, passes + 1):
        started = time.perf_counter()
        sgd.partial_fit(X64, ytr, classes=np.unique(ytr))
        spent += time.perf_counter() - started
        point("sklearn SGDClassifier", k, spent, sgd.coef_, sgd.predict)
    C = 1 / (2 * len(ytr) * lam)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for cap in [1, 2, 4, 8, None]:
            svc = LinearSVC(C=C, fit_intercept=False, max_iter=cap or 10000)
            started = time.perf_counter()
            svc.fit(X64, ytr)
            point("sklearn LinearSVC", cap or "to tol", time.perf_counter() - started, svc.coef_, svc.predict)
    return rows, lam


def plot_curves(name, rows, lam, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    best = min(r["primal"] for r in rows)
    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for method in dict.fromkeys(r["method"] for r in rows):
        mine = [r for r in rows if r["method"] == method]
        iterative = [r for r in mine if r["passes"] != "to tol"]
        style = dict(marker="o", ms=3, label=method)
        gap = [max(r["primal"] - best, 1e-7) for r in iterative]
        err = [100 * r["test_error"] for r in iterative]
        if not method.startswith("sklearn LinearSVC"):
            axes[0, 0].plot([r["passes"] for r in iterative], gap, **style)
            axes[1, 0].plot([r["passes"] for r in iterative], err, **style)
        axes[0, 1].plot([r["seconds"] for r in mine], [max(r["primal"] - best, 1e-7) for r in mine], **style)
        axes[1, 1].plot([r["seconds"] for r in mine], [100 * r["test_error"] for r in mine], **style)
    positive = [r["primal"] - best for r in rows if r["primal"] > best]
    for ax in axes[0]:
        ax.set_yscale("log")
        ax.set_ylim(bottom=0.5 * min(positive, default=1e-7))
        ax.set_ylabel("primal - best primal seen")
    for ax in axes[1]:
        ax.set_ylabel("test error %")
        finite = [100 * r["test_error"] for r in rows]
        ax.set_ylim(min(finite) - 0.5, min(max(finite), np.median(finite) * 1.5) + 0.5)
    for ax in axes[:, 0]:
        ax.set_xlabel("passes over the training set")
    for ax in axes[:, 1]:
        ax.set_xlabel("training seconds")
        ax.set_xscale("log")
    axes[0, 0].set_ylim(top=max(1e-6, 10 * max(r["primal"] - best for r in rows if r["method"].startswith(("svmsgd2",
                                                                                                              "sgdqn")))))
    axes[0, 1].set_ylim(axes[0, 0].get_ylim())
    axes[0, 1].legend(fontsize=8)
    fig.suptitle(f"{name}: squared hinge, lambda = {lam:g}, no bias, one thread")
    fig.tight_layout()
    fig.savefig(path, dpi=90)



def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="rcv1,delta")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "linear.json"))
    ap.add_argument("--repeat", type=int, default=3, help="fits timed per measurement, the best kept")
    ap.add_argument("--curves", help="datasets to follow pass by pass instead of the table (rcv1,delta,adult)")
    ap.add_argument("--passes", type=int, default=10)
    args = ap.parse_args()
    if args.curves:
        for name in args.curves.split(","):
            rows, lam = curves(name, args.passes)
            base = os.path.join(HERE, "results", f"linear-curves-{name}")
            plot_curves(name, rows, lam, base + ".png")
            with open(base + ".json", "w") as f:
                json.dump(dict(date=datetime.datetime.now().isoformat(timespec="seconds"), results=rows), f, indent=1)
            with open(base + ".md", "w") as f:
                f.write("| method | passes | seconds | primal | test error % |\n|---|---|---|---|---|\n")
                for r in rows:
                    f.write(f"| {r['method']} | {r['passes']} | {r['seconds']:.3f} | {r['primal']:.6f} | "
                            f"{100 * r['test_error']:.2f} |\n")
            print(open(base + ".md").read())
        return
    global REPEAT
    REPEAT = args.repeat
    rows = [r for name in args.datasets.split(",") for r in run(name)]
    print("| dataset | method | passes | s per pass | x SGDClassifier's pass | test error % | primal | note |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        anchor = "sklearn SGDClassifier shuffled" if r["method"].endswith("shuffled") else "sklearn SGDClassifier"
        sk = next(x for x in rows if x["dataset"] == r["dataset"] and x["method"] == anchor)
        ratio = f"{r['pass_s'] / sk['pass_s']:.2f}" if r["method"] != "sklearn LinearSVC" else "—"
        print(f"| {r['dataset']} | {r['method']} | {r['passes']} | {r['pass_s']:.3f} | {ratio} | "
              f"{100 * r['test_error']:.2f} | {r['primal']:.5f} | {r['note']} |")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(dict(date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
                       cpus=os.cpu_count(), results=rows), f, indent=1)


if __name__ == "__main__":
    main()
