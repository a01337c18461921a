"""Both cores on one problem, kernel rows against the memory bandwidth, and the online and linear
solvers end to end: the measurements of one run, each fit in its own process.

    python benches/parallel.py [--parts smo,multiclass,rows,lasvm,sgd] [--repeat 3]
                               [--configs adult,ijcnn1] [--out benches/results/parallel.json] [--quick]

smo         SVC on one binary problem with n_jobs=1 and n_jobs=2 (and scikit-learn's SVC once, on
            adult and ijcnn1): fit time, peak RSS, and whether the two models are the same (the
            same support vectors, dual coefficients within 1e-6 relative). adult and ijcnn1 with
            LIBSVM's C and gamma (benches/run.py), and make_forest_like with 50,000 and 200,000 rows
            (--configs picks some: forest200k alone takes nine minutes).
multiclass  the same for one-vs-one problems (mnist5k, letter): pairs solved concurrently.
rows        RBF kernel rows of a 100,000 x 54 dense problem (make_forest_like): values per second
            and the bytes of data read per second, next to what a copy and a read of an array of
            the same size achieve (a STREAM-like measure, numpy, one thread) and of a 1 GiB array.
lasvm       LaSVM (one epoch, defaults) against our SVC (defaults) on every set with more than
            10,000 training rows of benches/suite.py (its first split) plus adult and ijcnn1 with
            LIBSVM's C and gamma.
sgd         LinearSGD(epochs=1).fit against SGDClassifier(max_iter=1).fit on make_rcv1_like, end to
            end, and a pass against a pass that only computes the dot products (X @ w by scipy, in
            the data's float32, in the data's order).

Each timed fit runs in a fresh subprocess (this script in --worker mode) and reports its wall
time; a configuration's time is the best of --repeat such processes (scikit-learn's: one).
"""

import argparse
import datetime
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

SMO_CONFIGS = {
    "adult": ("adult", dict(gamma=0.005, C=100)),
    "ijcnn1": ("ijcnn1", dict(gamma=2.0, C=32)),
    "forest50k": ("forest:50000", dict(gamma=0.05, C=1)),
    "forest200k": ("forest:200000", dict(gamma=0.05, C=1)),
}
# fits of minutes: one process each (the others: the best of --repeat)
ONE_REPEAT = ("forest200k",)
MULTICLASS_CONFIGS = {
    "mnist5k": ("mnist5k", dict(gamma=0.025, C=10)),
    "letter": ("letter", dict(gamma=0.025, C=10)),
}
COMMON = dict(tol=1e-3, cache_size=200)
QUICK_ROWS = 4000


# ---------------------------------------------------------------- data

def load(name, quick=False):
    """(X, y, X_test, y_test) of a configuration (the test set None for generated data)."""
    import datasets

    Xte = yte = None
    if name.startswith("forest:"):
        from largemargin.datasets import make_forest_like

        n = int(name.split(":")[1])
        X, y = make_forest_like(n_samples=QUICK_ROWS if quick else n, random_state=0)
    elif name == "rcv1like":
        # generated once by the parent (20 s), read by each worker
        import scipy.sparse as sp

        path = os.path.join(tempfile.gettempdir(), f"largemargin-bench-rcv1like{'-quick' if quick else ''}.npz")
        if not os.path.exists(path):
            from largemargin.datasets import make_rcv1_like

            X, y = make_rcv1_like(n_samples=40_000 if quick else 800_000, random_state=0)
            sp.save_npz(path + ".tmp.npz", X.tocsr(), compressed=False)
            np.save(path + ".y.npy", y)
            os.replace(path + ".tmp.npz", path)
        X, y = sp.load_npz(path).tocsr(), np.load(path + ".y.npy")
    elif name.startswith("suite:"):
        import suite

        X, y, Xte, yte = next(iter(suite.splits(name.split(":", 1)[1], repeats=1)))
    else:
        X, y, Xte, yte = getattr(datasets, "load_" + name)()
    if quick and X.shape[0] > QUICK_ROWS:
        idx = np.random.default_rng(0).choice(X.shape[0], QUICK_ROWS, replace=False)
        X, y = X[idx], y[idx]
    return X, y, Xte, yte


def _peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# ---------------------------------------------------------------- workers (one fit each)

def worker(spec):
    kind = spec["kind"]
    X, y, Xte, yte = load(spec["data"], spec["quick"])
    before = _peak_mb()
    out = dict(spec)
    if kind in ("svc", "sklearn-svc", "lasvm"):
        if kind == "sklearn-svc":
            from sklearn.svm import SVC as cls
        elif kind == "svc":
            from largemargin import SVC as cls
        else:
            from largemargin import LaSVM as cls
        params = dict(spec["params"])
        if spec.get("n_jobs") is not None:
            params["n_jobs"] = spec["n_jobs"]
        model = cls(**params)
        t = time.perf_counter()
        model.fit(X, y)
        out["fit"] = time.perf_counter() - t
        out["n_sv"] = int(len(model.support_))
        out["test_error"] = float(np.mean(model.predict(Xte) != yte)) if spec.get("error") else None
        if spec.get("save"):
            coef = model.dual_coef_
            coef = coef.toarray() if hasattr(coef, "toarray") else np.asarray(coef)
            np.savez(spec["save"], support=np.asarray(model.support_), dual_coef=coef,
                     intercept=np.asarray(model.intercept_))
    elif kind in ("linearsgd", "sgdclassifier", "dots"):
        if kind == "linearsgd":
            from largemargin import LinearSGD

            model = LinearSGD(epochs=1, random_state=0)
            t = time.perf_counter()
            model.fit(X, y)
            out["fit"] = time.perf_counter() - t
            out["pass"] = float(getattr(model, "fit_time_", float("nan")))
        elif kind == "sgdclassifier":
            from sklearn.linear_model import SGDClassifier

            model = SGDClassifier(max_iter=1, tol=None, random_state=0)
            import warnings

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                model.fit(X, y)
                out["fit"] = time.perf_counter() - t
        else:
            # in the data's own precision (a float64 w would make scipy convert X first)
            w = np.random.default_rng(0).standard_normal(X.shape[1]).astype(X.dtype)
            t = time.perf_counter()
            X @ w
            out["fit"] = time.perf_counter() - t
    else:
        raise ValueError(kind)
    out["peak_mb"] = _peak_mb()
    out["data_mb"] = before
    return out


def run_one(spec):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return dict(spec, failed=p.stderr.strip().splitlines()[-1:] or [f"rc {p.returncode}"])
    return json.loads(p.stdout.strip().splitlines()[-1])


def best_of(spec, repeat):
    runs = [run_one(spec) for _ in range(repeat)]
    ok = [r for r in runs if "failed" not in r]
    if not ok:
        return runs[0]
    best = min(ok, key=lambda r: r["fit"])
    best["fits"] = [round(r["fit"], 3) for r in ok]
    return best


# ---------------------------------------------------------------- parts

def same_model(a_path, b_path):
    a, b = np.load(a_path), np.load(b_path)
    same_sv = a["support"].shape == b["support"].shape and bool(np.all(a["support"] == b["support"]))
    if not same_sv:
        return False, float("inf")
    da, db = a["dual_coef"], b["dual_coef"]
    rel = float(np.max(np.abs(da - db)) / max(np.max(np.abs(da)), 1e-300))
    return rel <= 1e-6, rel


def part_svc(configs, repeat, quick, sklearn_for, tmp):
    rows = []
    for name, (data, params) in configs.items():
        print(f"[svc] {name} ...", file=sys.stderr, flush=True)
        p = dict(COMMON, **params)
        runs = {}
        for nj in (1, 2):
            save = os.path.join(tmp, f"{name}-{nj}.npz")
            reps = 1 if name in ONE_REPEAT else repeat
            runs[nj] = best_of(dict(kind="svc", data=data, params=p, n_jobs=nj, quick=quick, save=save), reps)
        sk = None
        if name in sklearn_for:
            sk = run_one(dict(kind="sklearn-svc", data=data, params=p, quick=quick))
        same, rel = (same_model(runs[1]["save"], runs[2]["save"])
                     if all("failed" not in runs[j] for j in (1, 2)) else (False, float("nan")))
        rows.append(dict(config=name, one=runs[1], two=runs[2], sklearn=sk, same_model=same, dual_rel=rel))
    return rows


def table_svc(rows, title):
    lines = [f"### {title}", "",
             "| config | n_jobs=1 s | n_jobs=2 s | 2/1 | same model (dual rel) | sklearn s | ours(2)/sklearn | peak RSS MB 1 / 2 |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        one, two, sk = r["one"], r["two"], r["sklearn"]
        if "failed" in one or "failed" in two:
            lines.append(f"| {r['config']} | FAILED | | | | | | |")
            continue
        sks = f"{sk['fit']:.2f}" if sk and "failed" not in sk else "—"
        skr = f"{two['fit'] / sk['fit']:.3f}" if sk and "failed" not in sk else "—"
        lines.append(
            f"| {r['config']} | {one['fit']:.2f} | {two['fit']:.2f} | {two['fit'] / one['fit']:.3f} | "
            f"{'yes' if r['same_model'] else 'NO'} ({r['dual_rel']:.1e}) | {sks} | {skr} | "
            f"{one['peak_mb']:.0f} / {two['peak_mb']:.0f} |")
    return lines


def part_rows(quick):
    """Kernel rows of 100,000 x 54 dense data against a copy and a read of the same bytes.

    The data is Gaussian (no zeros: make_forest_like's one-hot columns would make the engine hold
    it sparse). A row's time is (time of 1 + Q query rows - time of 1) / Q, so the engine's setup
    (its feature-major copy) is not counted."""
    from largemargin import _native
    from largemargin._arrays import to_native

    n = 20_000 if quick else 100_000
    X = np.random.default_rng(0).standard_normal((n, 54))
    d = X.shape[1]
    nbytes = X.nbytes
    out = dict(n=n, d=d, data_mb=nbytes / 2**20)

    def best(f, reps=5):
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            f()
            ts.append(time.perf_counter() - t)
        return min(ts)

    # STREAM-like, one thread (numpy's copy and sum run on one thread)
    for label, size in (("same size", nbytes), ("1 GiB", 1 << 30)):
        src = np.ones(size // 8)
        dst = np.empty_like(src)
        tc = best(lambda src=src, dst=dst: np.copyto(dst, src), 3)
        tr = best(lambda src=src: src.sum(), 3)
        out[f"copy GB/s ({label})"] = 2 * src.nbytes / tc / 1e9
        out[f"read GB/s ({label})"] = src.nbytes / tr / 1e9
        del src, dst
    q = 64
    xn = to_native(X)
    one, many = to_native(np.ascontiguousarray(X[:1])), to_native(np.ascontiguousarray(X[:1 + q]))
    for nj in (1, 2):
        def rows(qn):
            _native.kernel_matrix(qn, xn, kernel="rbf", gamma=0.05, coef0=0.0, degree=3, n_jobs=nj)
        rows(many)
        t = (best(lambda: rows(many)) - best(lambda: rows(one))) / q
        out[f"rows/s n_jobs={nj}"] = 1 / t
        out[f"values/s n_jobs={nj}"] = n / t
        out[f"data GB/s n_jobs={nj}"] = nbytes / t / 1e9
    return out


def part_lasvm(repeat, quick):
    import suite

    sets = [s for s in ("letter", "magic", "adult", "ijcnn1", "letter-bundled")]
    rows = []
    for s in sets:
        print(f"[lasvm] {s} ...", file=sys.stderr, flush=True)
        data = f"suite:{s}"
        svc = best_of(dict(kind="svc", data=data, params={}, quick=quick, error=True), repeat)
        las = best_of(dict(kind="lasvm", data=data, params=dict(random_state=0), quick=quick, error=True), repeat)
        rows.append(dict(config=s + " (defaults)", svc=svc, lasvm=las))
    for name in ("adult", "ijcnn1"):
        data, params = SMO_CONFIGS[name]
        print(f"[lasvm] {name} LIBSVM's C, gamma ...", file=sys.stderr, flush=True)
        svc = best_of(dict(kind="svc", data=data, params=dict(COMMON, **params), quick=quick, error=True), repeat)
        las = best_of(dict(kind="lasvm", data=data, params=dict(params, random_state=0, cache_size=200), quick=quick,
                           error=True), repeat)
        rows.append(dict(config=name + " (C, gamma of run.py)", svc=svc, lasvm=las))
    del suite
    return rows


def table_lasvm(rows):
    lines = ["### LaSVM one epoch against our SMO", "",
             "| set | SVC fit s | LaSVM fit s | LaSVM/SVC | SVC #SV | LaSVM #SV | SVC test err | LaSVM test err |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        a, b = r["svc"], r["lasvm"]
        if "failed" in a or "failed" in b:
            lines.append(f"| {r['config']} | FAILED | | | | | | |")
            continue
        lines.append(f"| {r['config']} | {a['fit']:.2f} | {b['fit']:.2f} | {b['fit'] / a['fit']:.3f} | {a['n_sv']} | "
                     f"{b['n_sv']} | {100 * a['test_error']:.2f}% | {100 * b['test_error']:.2f}% |")
    return lines


def part_sgd(repeat, quick):
    data = "rcv1like"
    load(data, quick)  # generated once here, read by the workers
    res = {}
    for kind in ("linearsgd", "sgdclassifier", "dots"):
        print(f"[sgd] {kind} ...", file=sys.stderr, flush=True)
        res[kind] = best_of(dict(kind=kind, data=data, quick=quick), repeat)
    return res


def table_sgd(res):
    a, b, c = res["linearsgd"], res["sgdclassifier"], res["dots"]
    if any("failed" in r for r in (a, b, c)):
        return ["### Linear SGD: FAILED", "", json.dumps(res)]
    return ["### LinearSGD(epochs=1) end to end on make_rcv1_like", "",
            "| LinearSGD fit s | its pass s | SGDClassifier(max_iter=1) fit s | ours/theirs | X @ w s (dots only) | pass / dots |",
            "|---|---|---|---|---|---|",
            f"| {a['fit']:.3f} | {a['pass']:.3f} | {b['fit']:.3f} | {a['fit'] / b['fit']:.3f} | {c['fit']:.3f} | "
            f"{a['pass'] / c['fit']:.3f} |"]


def table_rows(r):
    keys = [k for k in r if k not in ("n", "d", "data_mb")]
    lines = [f"### RBF kernel rows, {r['n']} x {r['d']} dense ({r['data_mb']:.0f} MB of float64)", "",
             "| measure | value |", "|---|---|"]
    for k in keys:
        v = r[k]
        lines.append(f"| {k} | {v:.3e} |" if v > 1e4 else f"| {k} | {v:.2f} |")
    for nj in (1, 2):
        bw = r["read GB/s (same size)"] if nj == 1 else None
        if bw:
            lines.append(f"| kernel rows / read bandwidth (n_jobs=1) | {r['data GB/s n_jobs=1'] / bw:.2f} |")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--parts", default="smo,multiclass,rows,lasvm,sgd")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--configs", help="comma-separated, the part smo's configurations to run (default: "
                    + ", ".join(SMO_CONFIGS) + ")")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "parallel.json"))
    ap.add_argument("--worker")
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    parts = [p.strip() for p in args.parts.split(",") if p.strip()]
    results, lines = {}, []
    with tempfile.TemporaryDirectory() as tmp:
        if "smo" in parts:
            configs = SMO_CONFIGS
            if args.configs:
                names = [c.strip() for c in args.configs.split(",") if c.strip()]
                unknown = [c for c in names if c not in SMO_CONFIGS]
                if unknown:
                    ap.error(f"unknown configurations {unknown}: choose from {', '.join(SMO_CONFIGS)}")
                configs = {c: SMO_CONFIGS[c] for c in names}
            results["smo"] = part_svc(configs, args.repeat, args.quick, ("adult", "ijcnn1"), tmp)
            lines += table_svc(results["smo"], "SVC on one binary problem: n_jobs=2 against n_jobs=1") + [""]
        if "multiclass" in parts:
            results["multiclass"] = part_svc(MULTICLASS_CONFIGS, args.repeat, args.quick, (), tmp)
            lines += table_svc(results["multiclass"], "SVC one-vs-one: n_jobs=2 against n_jobs=1") + [""]
    if "rows" in parts:
        print("[rows] ...", file=sys.stderr, flush=True)
        results["rows"] = part_rows(args.quick)
        lines += table_rows(results["rows"]) + [""]
    if "lasvm" in parts:
        results["lasvm"] = part_lasvm(args.repeat, args.quick)
        lines += table_lasvm(results["lasvm"]) + [""]
    if "sgd" in parts:
        results["sgd"] = part_sgd(args.repeat, args.quick)
        lines += table_sgd(results["sgd"]) + [""]
    meta = dict(date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
                cpus=os.cpu_count(), python=platform.python_version(), repeat=args.repeat, quick=args.quick,
                command="python benches/parallel.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    text = "\n".join(lines)
    print(text)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(dict(meta=meta, results=results), f, indent=1, default=float)
    with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
        f.write(f"`{meta['command']}` ({meta['date']}, {meta['cpus']} CPUs)\n\n" + text + "\n")


if __name__ == "__main__":
    main()
