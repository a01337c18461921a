"""
A kernel SVM on a CSV file: scaling, a cross-validated search of C and gamma, test accuracy
===========================================================================================

The script reads a CSV file whose last column is the label and every other column a numeric
feature (a header line is allowed). It holds out a quarter of the rows for testing, standardises
the features and searches C and gamma of an RBF ``SVC`` with ``SVCSearchCV`` (one native run for
the whole grid), both in one scikit-learn ``Pipeline``, then reports the test accuracy.

The plot shows the decision boundary of the same pipeline refitted on two features only (the
first two columns unless ``--features I J`` says otherwise), with the support vectors circled.

Run it on your own file, or without a path: it then writes ``largemargin_breast_cancer.csv``
(scikit-learn's bundled Wisconsin breast cancer data, 569 rows, 30 features) into the temporary
directory first::

    python examples/kernel_svm_on_csv.py                     # the bundled data
    python examples/kernel_svm_on_csv.py data.csv --features 2 5
"""

import argparse
import csv
import os
import tempfile

import matplotlib.pyplot as plt
import numpy as np
from sklearn.model_selection import StratifiedKFold, train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import largemargin as lm


def write_demo_csv(path):
    """Writes scikit-learn's bundled breast cancer data as CSV: a header, then one row per example."""
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    labels = np.array(data.target_names)[data.target]  # "malignant" / "benign"
    with open(path, "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(list(data.feature_names) + ["diagnosis"])
        for row, label in zip(data.data, labels):
            writer.writerow([f"{v:.6g}" for v in row] + [label])


def read_csv(path):
    """(X, y, feature names) of a CSV file whose last column is the label."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    try:
        [float(v) for v in rows[0][:-1]]
        names = [f"column {i}" for i in range(len(rows[0]) - 1)]
    except ValueError:  # a header line
        names, rows = rows[0][:-1], rows[1:]
    X = np.array([[float(v) for v in r[:-1]] for r in rows])
    y = np.array([r[-1] for r in rows])
    return X, y, names


def make_model():
    # C and gamma on a log grid; the search runs every fold and every C of one gamma on one kernel cache
    grid = {"C": [0.1, 1, 10, 100, 1000], "gamma": [0.001, 0.01, 0.1, 1]}
    search = lm.SVCSearchCV(lm.SVC(), grid, cv=StratifiedKFold(5, shuffle=True, random_state=0))
    # The scaler is fitted on the training rows before the search, so the folds share one scaling:
    # a small leak, harmless here. Put both in GridSearchCV over a Pipeline for a strict protocol.
    return make_pipeline(StandardScaler(), search)


def main():
    parser = argparse.ArgumentParser(description=(__doc__ or "").strip().split("\n")[0])
    parser.add_argument("csv", nargs="?", help="CSV file, the label in the last column")
    parser.add_argument("--features", nargs=2, type=int, default=[0, 1], metavar=("I", "J"),
                        help="the two feature columns of the plot (default: 0 1)")
    args = parser.parse_args()
    path = args.csv
    if path is None:
        path = os.path.join(tempfile.gettempdir(), "largemargin_breast_cancer.csv")
        write_demo_csv(path)
        print(f"wrote {path}")

    X, y, names = read_csv(path)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    print(f"{path}: {X.shape[0]} rows, {X.shape[1]} features, classes {sorted(set(y.tolist()))}")

    model = make_model().fit(X_train, y_train)
    search = model[-1]
    print(f"best C = {search.best_params_['C']:g}, gamma = {search.best_params_['gamma']:g}, "
          f"cross-validated accuracy {search.best_score_:.4f}")
    print(f"test accuracy {model.score(X_test, y_test):.4f}, "
          f"{len(search.best_estimator_.support_)} support vectors")

    # The same protocol on two features, to draw the boundary in their plane
    i, j = args.features
    model2 = make_model().fit(X_train[:, [i, j]], y_train)
    print(f"on features {i} and {j} only: test accuracy {model2.score(X_test[:, [i, j]], y_test):.4f}")
    plot(model2, X_train[:, [i, j]], y_train, (names[i], names[j]))


def plot(model, X, y, names):
    scaler, search = model[0], model[-1]
    svc = search.best_estimator_
    classes = svc.classes_
    pad = 0.05 * (X.max(0) - X.min(0))
    xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - pad[0], X[:, 0].max() + pad[0], 300),
                         np.linspace(X[:, 1].min() - pad[1], X[:, 1].max() + pad[1], 300))
    grid = np.c_[xx.ravel(), yy.ravel()]
    fig, ax = plt.subplots(figsize=(7, 5.5))
    if len(classes) == 2:
        z = model.decision_function(grid).reshape(xx.shape)
        ax.contourf(xx, yy, z, levels=np.linspace(-3, 3, 13), cmap="RdBu", alpha=0.5, extend="both")
        ax.contour(xx, yy, z, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"], linewidths=1)
    else:
        z = np.searchsorted(classes, model.predict(grid)).reshape(xx.shape)
        ax.contourf(xx, yy, z, levels=np.arange(len(classes) + 1) - 0.5, cmap="tab10", alpha=0.3)
    for k, c in enumerate(classes):
        ax.scatter(*X[y == c].T, s=12, color=plt.cm.RdBu(0.9 if k else 0.1) if len(classes) == 2 else
                   plt.cm.tab10(k), label=str(c), edgecolor="none")
    sv = scaler.inverse_transform(svc.support_vectors_)  # the search fitted on scaled features
    ax.scatter(*sv.T, s=45, facecolors="none", edgecolors="k", linewidths=0.7,
               label=f"support vectors ({len(sv)})")
    ax.set_xlabel(names[0])
    ax.set_ylabel(names[1])
    p = search.best_params_
    ax.set_title(f"SVC (RBF, C={p['C']:g}, gamma={p['gamma']:g}) on two features\n"
                 "solid: decision boundary, dashed: margins f(x) = -1, +1")
    ax.legend(loc="best", fontsize=8)
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
