"""Choose the simple MLP's settings for benches/mlp.py on the training set only: every setting of
a grid is fit on 80% of the training set (stratified) and scored on the other 20%; the test set
is never read. With --splits K and --seeds S, each setting is fit on K such splits (split seeds
0..K-1) with S model seeds each and ranked by its mean held-out error; our SMO SVM (benches/mlp.py's
settings, once per split) and scikit-learn's MLPClassifier (benches/mlp.py's settings, the same
split and seed pairs) are fit alongside for reference, and each setting's mean paired difference
to MLPClassifier is printed with its standard error. Prints the best settings, and the best among
those fitting in at most 0.2x the SMO fit time ("fast").

    python benches/studies/mlp_select.py [--datasets adult,ijcnn1,forest] [--forest-n 50000]
                                 [--splits 1] [--seeds 1] [--grid '{"beta": [3, 10], ...}']
"""

import argparse
import itertools
import json
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = os.path.dirname(HERE)  # benches/: suite.py, datasets.py, the benchmarks
sys.path.insert(0, BENCHES)

GRID = dict(hidden_units=[50, 100, 200, 500], beta=[1.0, 3.0, 10.0], learning_rate=[0.003, 0.01, 0.03, 0.1],
            n_iter_no_change=[5, 20])


def training_set(name, forest_n):
    if name == "forest":
        import largemargin as lm

        X, y = lm.make_forest_like(forest_n + 20_000, random_state=0)
        return X[:forest_n], y[:forest_n]
    from datasets import load

    return load(name)[:2]


def timed_error(model, split):
    """Held-out error % of `model` fit on the split's 80%, its fit seconds and epochs."""
    Xa, Xb, ya, yb = split
    t = time.perf_counter()
    model.fit(Xa, ya)
    return 100 * float(np.mean(model.predict(Xb) != yb)), time.perf_counter() - t, getattr(model, "n_epochs_", 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="adult,ijcnn1,forest")
    ap.add_argument("--forest-n", type=int, default=50_000)
    ap.add_argument("--splits", type=int, default=1, help="stratified 80/20 splits (seeds 0..K-1)")
    ap.add_argument("--seeds", type=int, default=1, help="model seeds per split")
    ap.add_argument("--grid", help="JSON object of lists replacing the default grid")
    args = ap.parse_args()
    grid = json.loads(args.grid) if args.grid else GRID
    from mlp import FORMER, svm_params
    from sklearn.model_selection import train_test_split
    from sklearn.neural_network import MLPClassifier

    import largemargin as lm

    for name in args.datasets.split(","):
        X, y = training_set(name, args.forest_n)
        splits = [train_test_split(X, y, test_size=0.2, stratify=y, random_state=s) for s in range(args.splits)]
        runs = [(split, seed) for split in splits for seed in range(args.seeds)]
        smo = [timed_error(lm.SVC(**svm_params(name), cache_size=200), s) for s in splits]
        ref = [timed_error(MLPClassifier(hidden_layer_sizes=(100,), activation="tanh", early_stopping=True,
                                         random_state=seed), s) for s, seed in runs]
        smo_fit = float(np.mean([r[1] for r in smo]))
        ref_err = np.array([r[0] for r in ref])
        print(f"\n{name} ({args.splits} split(s) x {args.seeds} seed(s)):")
        print(f"  SMO SVM: held-out error {np.mean([r[0] for r in smo]):.2f}%, fit {smo_fit:.2f} s")
        print(f"  MLPClassifier: held-out error {ref_err.mean():.2f}%, fit {np.mean([r[1] for r in ref]):.2f} s")
        rows = []
        for setting in itertools.product(*grid.values()):
            params = dict(zip(grid, setting))
            fits = [timed_error(lm.SimpleMLPClassifier(**{**FORMER["simple"], **params}, max_epochs=200,
                                                       random_state=seed), s)
                    for s, seed in runs]
            err = np.array([f[0] for f in fits])
            diff = err - ref_err
            se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
            rows.append((err.mean(), np.mean([f[1] for f in fits]), np.mean([f[2] for f in fits]), diff.mean(), se,
                         params))
        rows.sort(key=lambda r: r[:2])
        fast = [r for r in rows if r[1] <= 0.2 * smo_fit]
        print("  held-out error % | fit s | epochs | - MLPClassifier (se) | setting")
        for r in rows[:8]:
            print(f"  {r[0]:.2f} | {r[1]:.2f} | {r[2]:.0f} | {r[3]:+.3f} ({r[4]:.3f}) | {r[5]}")
        print(f"  best: {rows[0][5]}")
        print(f"  fast (fit <= 0.2x SMO on the split): {fast[0][5] if fast else None}")


if __name__ == "__main__":
    main()
