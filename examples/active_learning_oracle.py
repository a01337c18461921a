"""
Active learning: LaSVM asks an oracle for the labels it wants, within a budget of questions
===========================================================================================

The training pool is the first 10,000 rows of the bundled UCI Adult training set, its labels hidden: ``fit(X, None,
oracle=ask, classes=[-1, 1])`` starts with no label known, and LaSVM calls ``ask(i)`` only when its
selection strategy picks example i, then learns from the answer at once. ``max_iter`` caps the
questions. The script compares three strategies over growing budgets, each averaged over three
random seeds:

- ``selection="random"``: the next example is drawn at random (passive learning);
- ``selection="active"``: of 50 random candidates, the one closest to the current boundary;
- ``selection="autoactive"``: candidates are drawn until 5 lie inside the margin band.

A batch ``SVC`` trained on every label of the pool is the reference. Run it with::

    python examples/active_learning_oracle.py

The plot shows test error against labels asked.
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import largemargin as lm

BUDGETS = [25, 50, 100, 200, 400, 800, 1600]
SEEDS = [0, 1, 2]
PARAMS = dict(C=100, gamma=0.005)


def main():
    X, hidden_labels = lm.load_adult("train")  # the pool; its labels are only revealed through the oracle
    X, hidden_labels = X[:10_000], hidden_labels[:10_000]
    Xt, yt = lm.load_adult("test")
    Xt, yt = Xt[:8000], yt[:8000]

    asked = []

    def ask(i):  # the oracle: a person labelling example i, say
        asked.append(i)
        return hidden_labels[i]

    curves = {}
    for selection in ("random", "active", "autoactive"):
        errors = np.zeros((len(SEEDS), len(BUDGETS)))
        for s, seed in enumerate(SEEDS):
            for b, budget in enumerate(BUDGETS):
                asked.clear()
                las = lm.LaSVM(**PARAMS, selection=selection, max_iter=budget, random_state=seed)
                las.fit(X, None, oracle=ask, classes=[-1, 1])  # y=None: no label known at the start
                assert len(asked) == len(las.queried_) <= budget
                errors[s, b] = np.mean(las.predict(Xt) != yt)
        curves[selection] = errors
        print(f"{selection:>10}: test error % at " + ", ".join(
            f"{n} labels {100 * e:.2f}" for n, e in zip(BUDGETS[2::2], errors.mean(0)[2::2])))

    t = time.perf_counter()
    svc = lm.SVC(**PARAMS).fit(X, hidden_labels)
    full = np.mean(svc.predict(Xt) != yt)
    print(f"SVC on all {X.shape[0]} labels: test error {100 * full:.2f}% ({time.perf_counter() - t:.1f} s)")

    fig, ax = plt.subplots(figsize=(7, 4.8))
    for (selection, errors), style in zip(curves.items(), ("o-", "s-", "^-")):
        mean = 100 * errors.mean(0)
        ax.plot(BUDGETS, mean, style, label=f'LaSVM, selection="{selection}"')
        ax.fill_between(BUDGETS, 100 * errors.min(0), 100 * errors.max(0), alpha=0.15)
    ax.axhline(100 * full, color="k", ls="--", lw=1, label=f"SVC on all {X.shape[0]:,} labels")
    ax.set_xscale("log")
    ax.set_xticks(BUDGETS)
    ax.set_xticklabels([str(b) for b in BUDGETS])
    ax.set_xlabel("labels asked of the oracle (max_iter)")
    ax.set_ylabel("test error (%)")
    ax.set_title("Active learning on Adult (RBF gamma=0.005, C=100)\nmean and range over 3 seeds")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
