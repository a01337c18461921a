"""Fingerprints of fitted models: for a refactoring that must not change a single bit of what is
learnt. Fits the configurations of benches/run.py (SVC, SVR; n_jobs 1 and 2) and the methods of
benches/online.py (SMO, LaSVM x1/x2/without finishing, partial_fit, the Huller, the averaged
perceptron), plus the other families on a bundled set, and prints one SHA-256 per model over
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
    feed("predict", np.asarray(model.predict(X_test)))
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


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--quick", action="store_true", help=f"the first {QUICK_ROWS} training rows of each set")
    args = ap.parse_args(argv)
    import datasets

    only = {s.strip() for s in args.only.split(",") if s.strip()}
    loaded = {}
    for name, dataset, make in cases(args.quick):
        if only and name not in only:
            continue
        if dataset not in loaded:
            Xtr, ytr, Xte, yte = datasets.load(dataset)
            if args.quick:
                Xtr, ytr = Xtr[:QUICK_ROWS], ytr[:QUICK_ROWS]
            loaded = {dataset: (Xtr, ytr, Xte)}
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
