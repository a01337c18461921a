"""Block-diagonal second-order training of the one-hidden-layer tanh MLP against plain SGD
(Collobert's thesis, chapter 7): training error per epoch for each optimizer at its best
learning rate from a grid (the lowest final training criterion), the cross-entropy criterion, and
the epochs each needs to reach the training error plain SGD ends with. Training error is measured
during each epoch (before each example's step). Writes a table, JSON and a plot.

    python benches/mlp_second_order.py [--datasets forest,adult] [--epochs 30] [--hidden 50]
                                        [--out benches/results/mlp_second_order.json]
"""

import argparse
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from online import save  # noqa: E402

GRID = {"sgd": [0.001, 0.003, 0.01, 0.03, 0.1], "block_newton": [0.00003, 0.0001, 0.0003, 0.001]}


def data(name):
    import largemargin as lm

    if name == "forest":
        X, y = lm.make_forest_like(50_000, random_state=0)
        return X, y
    from datasets import load

    X, y, _, _ = load(name)
    return X, y


def main():
    import largemargin as lm

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="forest,adult")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--hidden", type=int, default=50)
    ap.add_argument("--out", default=os.path.join(HERE, "results", "mlp_second_order.json"))
    args = ap.parse_args()
    results = []
    for name in args.datasets.split(","):
        X, y = data(name)
        best = {}
        for optimizer, grid in GRID.items():
            for lr in grid:
                m = lm.TanhMLPClassifier(hidden_units=args.hidden, optimizer=optimizer, learning_rate=lr,
                                         max_epochs=args.epochs, early_stopping=False, random_state=0)
                t = time.perf_counter()
                try:
                    m.fit(X, y)
                except ValueError as e:  # diverged at this rate
                    print(f"  {name} {optimizer} lr={lr}: {e}", file=sys.stderr)
                    continue
                row = dict(dataset=name, optimizer=optimizer, learning_rate=lr, fit_s=time.perf_counter() - t,
                           loss=m.loss_curve_.tolist(), error=m.train_error_curve_.tolist())
                print(f"  {name} {optimizer} lr={lr}: final loss {row['loss'][-1]:.4f}, error {row['error'][-1]:.4f}, "
                      f"{row['fit_s']:.1f} s", file=sys.stderr, flush=True)
                if optimizer not in best or row["loss"][-1] < best[optimizer]["loss"][-1]:
                    best[optimizer] = row
        target = best["sgd"]["error"][-1]
        for row in best.values():
            hit = np.flatnonzero(np.array(row["error"]) <= target)
            row["epochs_to_sgd_final_error"] = int(hit[0]) + 1 if len(hit) else None
            results.append(row)
        save(args.out, dict(epochs=args.epochs, hidden=args.hidden, results=results))
    print("\n| data | optimizer | best lr | final train error % | final criterion | epochs to SGD's final error | "
          "s per epoch |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['dataset']} | {r['optimizer']} | {r['learning_rate']} | {100 * r['error'][-1]:.2f} | {r['loss'][-1]:.4f} | "
              f"{r['epochs_to_sgd_final_error'] or '—'} | {r['fit_s'] / len(r['error']):.3f} |")
    plot(results, os.path.splitext(args.out)[0] + ".png")


def plot(results, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = sorted({r["dataset"] for r in results})
    fig, axes = plt.subplots(1, len(names), figsize=(5.5 * len(names), 4), squeeze=False)
    for ax, name in zip(axes[0], names):
        for r in (r for r in results if r["dataset"] == name):
            ax.plot(np.arange(1, len(r["error"]) + 1), 100 * np.array(r["error"]), marker=".",
                    label=f"{r['optimizer']} (lr {r['learning_rate']})")
        ax.set_title(f"{name}: tanh MLP, cross-entropy")
        ax.set_xlabel("epoch")
        ax.set_ylabel("training error % (during the epoch)")
        ax.grid(alpha=0.3)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
