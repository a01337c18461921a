"""Fingerprints of fitted models: for a refactoring that must not change a single bit of what is
learnt. Fits the configurations of benches/run.py (SVC, SVR; n_jobs 1 and 2) and the methods of
benches/online.py (SMO, LaSVM x1/x2/without finishing, partial_fit, the Huller, the averaged
perceptron), plus the other families (searches, probabilities, LaRank, ambiguous labels, sequence
labelers, mixtures of SVR) on subsets of the bundled sets, and prints one SHA-256 per model over
every fitted array attribute (and the predictions on the test set), then the fit's seconds. Run
it before and after a change, with the package of each on the path, and compare the outputs:

    python benches/fingerprint.py > before.txt     # on the old build
    python benches/fingerprint.py > after.txt      # on the new build
    diff <(cut -d' ' -f1,2 before.txt) <(cut -d' ' -f1,2 after.txt)   # nothing: the same models

    python benches/fingerprint.py [--only svc-adult,lasvm-x1-adult] [--quick]

--quick uses the first 3000 training rows of each set (a few seconds in all).
"""
import argparse
import hashlib
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

QUICK_ROWS = 3000


def digest(model, X_test):
    """SHA-256 over the fitted attributes (arrays, numbers; recursively into estimators_) and the
    predictions, in a fixed order."""
    h = hashlib.sha256()

    def feed(name, v):
        if isinstance(v, np.ndarray) and v.dtype != object:
            h.update(name.encode())
            h.update(str(v.dtype).encode() + str(v.shape).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, (int, float, np.integer, np.floating, bool, np.bool_)):
            h.update(f"{name}={v!r}".encode())
        elif isinstance(v, (list, tuple)) and all(isinstance(e, np.ndarray) for e in v):
            for k, e in enumerate(v):
                feed(f"{name}[{k}]", e)
        elif hasattr(v, "toarray"):
            feed(name, v.toarray())

    def walk(prefix, est):
        for name in sorted(vars(est)):
            if not name.endswith("_") or name.startswith("_") or name in SKIPPED or "time" in name:
                continue
            v = getattr(est, name)
            if name == "estimators_":
                for k, e in enumerate(v):
                    walk(f"{prefix}{name}[{k}].", e)
            else:
                feed(prefix + name, v)

    walk("", model)
    predicted = model.predict(X_test)
    if isinstance(predicted, list):  # a sequence labeler's label sequences
        h.update(repr(predicted).encode())
    else:
        feed("predict", np.asarray(predicted))
    return h.hexdigest()


# attributes that are measurements, not the model (and any named "...time...")
SKIPPED = {"n_kernel_evals_", "kernel_evals_", "cache_stats_"}


def _with(est, **params):
    """est with those of `params` it has (a parameter added since is set to its former behaviour)."""
    return est.set_params(**{k: v for k, v in params.items() if k in est.get_params()})


def cases(quick):
    import online
    import run

    import largemargin as lm

    for name, (dataset, kind, params) in run.CONFIGS.items():
        for n_jobs in (1, 2):
            yield f"run-{name}-n{n_jobs}", dataset, lambda k=kind, p=params, j=n_jobs: getattr(lm, k)(
                **p, **run.COMMON, n_jobs=j)
    for dataset, (gamma, C) in online.SETTINGS.items():
        for method in online.METHODS + ["lasvm-partial10"]:
            if method in ("sklearn", "smo-ovr"):
                continue
            yield f"online-{method}-{dataset}", dataset, lambda m=method, g=gamma, c=C: online.make(m, g, c, 200, 1)
    others = {
        "larank": lambda: lm.LaRankClassifier(random_state=0),
        "linearsgd": lambda: lm.LinearSGD(random_state=0),
        "linearsgd-sgdqn": lambda: lm.LinearSGD(algorithm="sgdqn", random_state=0),
        "perceptron": lambda: lm.MarginPerceptron(random_state=0),
        "simple-mlp": lambda: lm.SimpleMLPClassifier(random_state=0, n_committees=2),
        "tanh-mlp": lambda: _with(lm.TanhMLPClassifier(random_state=0, max_epochs=20, learning_rate=0.03,
                                                       validation_fraction=0.5), n_committees=1),
        "nilsson-mlp": lambda: lm.NilssonMLPClassifier(random_state=0, max_epochs=20),
        "mixture": lambda: lm.MixtureSVC(random_state=0),
        "isda": lambda: lm.SVC(solver="isda") if "solver" in lm.SVC().get_params() else lm.SVC(),
    }
    for name, make in others.items():
        yield f"other-{name}-ijcnn1", "ijcnn1", make
    # the families above leave out, on subsets small enough to keep the whole run short
    more = {
        "svcsearch": ("adult:3000", lambda: lm.SVCSearchCV(param_grid={"C": [1, 10], "gamma": [0.01, 0.1]}, cv=3)),
        "svrsearch": ("abalone", lambda: lm.SVRSearchCV(param_grid={"C": [1, 10], "gamma": [0.1, 1.0]}, cv=3)),
        "svc-probability": ("letter:3000", lambda: lm.SVC(C=10, gamma=0.1, probability=True, random_state=0)),
        "svc-ovr": ("letter:3000", lambda: lm.SVC(C=10, decision_function_shape="ovr")),
        "larank": ("letter:3000", lambda: lm.LaRankClassifier(random_state=0)),
        "lasvm-multiclass": ("letter:3000", lambda: lm.LaSVM(random_state=0)),
        "linearsgd-asgd": ("adult:3000", lambda: lm.LinearSGD(algorithm="asgd", random_state=0)),
        "mixturesvr": ("abalone", lambda: lm.MixtureSVR(random_state=0)),
        "svr": ("abalone", lambda: lm.SVR(C=10, epsilon=0.1)),
        "huller": ("adult:3000", lambda: lm.Huller(random_state=0)),
        "kernel-perceptron": ("adult:3000", lambda: lm.KernelPerceptron(random_state=0)),
        "ambiguous": ("letter:3000:bags", lambda: lm.AmbiguousLaRankClassifier(random_state=0)),
    }
    for name, (dataset, make) in more.items():
        yield f"more-{name}-{dataset.split(':')[0]}", dataset, make
    for method in ("larank_greedy", "larank_exact", "perceptron", "pa"):
        yield f"more-sequence-{method}-conll2000", "conll2000:1500", lambda m=method: lm.SequenceLabeler(
            m, epochs=2, random_state=0)


def load_case_data(dataset, quick):
    """(X_train, y_train, X_test) for a case's data: a set's name, optionally ':ROWS' (its first
    training rows) and ':bags' (labels made ambiguous, level 2); "conll2000:ROWS" is sentences."""
    import datasets

    import largemargin as lm

    name, *rest = dataset.split(":")
    rows = int(rest[0]) if rest else None
    if name == "conll2000":
        Xtr, ytr = lm.read_conll(datasets._path("conll2000-train.txt.gz"))
        Xte, _ = lm.read_conll(datasets._path("conll2000-test.txt.gz"))
        return Xtr[:rows], ytr[:rows], Xte[:300]
    Xtr, ytr, Xte, _ = datasets.load(name)
    if quick:
        rows = min(rows or QUICK_ROWS, QUICK_ROWS)
    if rows:
        Xtr, ytr = Xtr[:rows], ytr[:rows]
    if rest[1:] == ["bags"]:
        ytr = lm.make_ambiguous(ytr, level=2, random_state=0)
    return Xtr, ytr, Xte


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--quick", action="store_true", help=f"the first {QUICK_ROWS} training rows of each set")
    args = ap.parse_args(argv)
    only = {s.strip() for s in args.only.split(",") if s.strip()}
    loaded = {}
    for name, dataset, make in cases(args.quick):
        if only and name not in only:
            continue
        if dataset not in loaded:
            loaded = {dataset: load_case_data(dataset, args.quick)}
        Xtr, ytr, Xte = loaded[dataset]
        model = make()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            started = time.perf_counter()
            model.fit(Xtr, ytr)
            seconds = time.perf_counter() - started
            print(f"{name} {digest(getattr(model, 'model', model), Xte)} {seconds:.3f}", flush=True)


if __name__ == "__main__":
    main()
