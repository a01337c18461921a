"""Choose the simple MLP's settings for benches/mlp.py on the training set only: every setting of
a small grid is fit on 80% of the training set (stratified, seed 0) and scored on the other 20%;
the test set is never read. Also fits our SMO SVM (benches/mlp.py's settings) and scikit-learn's
MLPClassifier on the same split for reference. Prints the best settings by held-out error, and
the best among those fitting in at most 0.2x the SMO fit time on the split ("fast").

    python benches/mlp_select.py [--datasets adult,ijcnn1,forest] [--forest-n 50000]
"""

import argparse
import itertools
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

GRID = dict(hidden_units=[50, 100, 200, 500], beta=[1.0, 3.0, 10.0], learning_rate=[0.003, 0.01, 0.03, 0.1],
            n_iter_no_change=[5, 20])


def training_set(name, forest_n):
    if name == "forest":
        import largemargin as lm

        X, y = lm.make_forest_like(forest_n + 20_000, random_state=0)
        return X[:forest_n], y[:forest_n]
    from datasets import load

    return load(name)[:2]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--datasets", default="adult,ijcnn1,forest")
    ap.add_argument("--forest-n", type=int, default=50_000)
    args = ap.parse_args()
    from sklearn.model_selection import train_test_split

    import largemargin as lm

    for name in args.datasets.split(","):
        X, y = training_set(name, args.forest_n)
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
        from sklearn.neural_network import MLPClassifier

        from mlp import svm_params

        refs = {"SMO SVM": lm.SVC(**svm_params(name), cache_size=200),
                "MLPClassifier": MLPClassifier(hidden_layer_sizes=(100,), activation="tanh", early_stopping=True,
                                               random_state=0)}
        print(f"\n{name}:")
        for label, model in refs.items():
            t = time.perf_counter()
            model.fit(Xa, ya)
            refs[label] = time.perf_counter() - t
            print(f"  {label}: held-out error {100 * np.mean(model.predict(Xb) != yb):.2f}%, fit {refs[label]:.2f} s")
        rows = []
        for setting in itertools.product(*GRID.values()):
            params = dict(zip(GRID, setting))
            model = lm.SimpleMLPClassifier(**params, max_epochs=200, random_state=0)
            t = time.perf_counter()
            model.fit(Xa, ya)
            rows.append((float(np.mean(model.predict(Xb) != yb)), time.perf_counter() - t, model.n_epochs_, params))
        rows.sort(key=lambda r: r[:2])
        fast = [r for r in rows if r[1] <= 0.2 * refs["SMO SVM"]]
        print("  held-out error % | fit s | epochs | setting")
        for r in rows[:8]:
            print(f"  {100 * r[0]:.2f} | {r[1]:.2f} | {r[2]} | {r[3]}")
        print(f"  best: {rows[0][3]}")
        print(f"  fast (fit <= 0.2x SMO on the split): {fast[0][3] if fast else None}")


if __name__ == "__main__":
    main()
