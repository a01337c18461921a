"""NuSVC, NuSVR and OneClassSVM against scikit-learn's on the same data and parameters.

Each fit runs in its own process (this script in ``--worker`` mode), so that its peak RSS is its
own; the worker saves the support vectors and the decision values on the test rows, and the parent
compares the two models: support vectors added or lost, the largest decision difference relative
to the largest decision, predictions that differ. Our fits run with ``n_jobs`` 2 (every core of the
benchmark machine) and, for the binary problems, 1 too.

    python benches/nu_svm.py [--configs adult,ijcnn1,...] [--tol 1e-3] [--quick | --rows N]
                             [--out benches/results/nu_svm.json]

``--rows N`` fits on the first N training rows (the one-class set is made with N rows), for the
ratio's trend with n.

At ``--tol 1e-3`` (LIBSVM's default) both solvers stop within the tolerance of the optimum, on
paths that may part after many steps (their floating-point updates differ in the last bits), so
borderline support vectors and decisions differ by up to the tolerance over the margin; at a
tight tolerance (``--tol 1e-6``) the models meet.
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

# name -> (dataset, estimator, parameters, binary problem)
CONFIGS = {
    "adult": ("adult", "NuSVC", dict(gamma=0.005, nu=0.3), True),
    "ijcnn1": ("ijcnn1", "NuSVC", dict(gamma=2.0, nu=0.1), True),
    "mnist5k": ("mnist5k", "NuSVC", dict(gamma=0.025, nu=0.1), False),
    "letter": ("letter", "NuSVC", dict(gamma=0.025, nu=0.05), False),
    "abalone": ("abalone", "NuSVR", dict(gamma="scale", C=10, nu=0.5), True),
    "forest-oneclass": ("forest60k", "OneClassSVM", dict(gamma=0.05, nu=0.1), True),
}
QUICK_ROWS = 3000
MB = 1024.0 * 1024.0
MAX_DECISION_REL = 1e-4
MAX_FIT_RATIO = 0.25
MAX_JOBS_RATIO = 0.6


def load(dataset, rows=None):
    if dataset == "forest60k":
        # one class of 60,000 rows (or `rows`; the problem of issue #6617's size class), 10,000 to score
        from largemargin.datasets import make_forest_like

        n = rows or 60_000
        X, y = make_forest_like(n + 10_000, random_state=0)
        return X[:n], None, X[n:], None
    import datasets

    return datasets.load(dataset)


def worker(spec):
    dataset, kind, params, _ = CONFIGS[spec["config"]]
    params = dict(params, tol=spec["tol"], cache_size=200)
    if spec["lib"] == "sklearn":
        import sklearn.svm as mod
    else:
        import largemargin as mod

        params["n_jobs"] = spec["n_jobs"]
    Xtr, ytr, Xte, yte = load(dataset, spec.get("rows"))
    rows = QUICK_ROWS if spec["quick"] else spec.get("rows")
    if rows and Xtr.shape[0] > rows:
        Xtr, ytr = Xtr[:rows], (None if ytr is None else ytr[:rows])
    model = getattr(mod, kind)(**params)
    t0 = time.perf_counter()
    model.fit(Xtr) if ytr is None else model.fit(Xtr, ytr)
    fit_time = time.perf_counter() - t0
    decision = model.predict(Xte) if kind == "NuSVR" else model.decision_function(Xte)
    pred = model.predict(Xte)
    np.savez(spec["save"], support=np.asarray(model.support_), decision=np.asarray(decision), pred=np.asarray(pred))
    if yte is None:
        quality = float(np.mean(pred == -1) * 100)  # outliers flagged, %
    elif kind == "NuSVR":
        quality = float(np.mean(np.abs(pred - yte)))
    else:
        quality = float(np.mean(pred != yte) * 100)
    return dict(config=spec["config"], lib=spec["lib"], n_jobs=spec["n_jobs"], fit_time=fit_time,
                n_train=int(Xtr.shape[0]), n_sv=int(len(model.support_)), quality=quality,
                peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / MB)


def run_worker(spec):
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", json.dumps(spec)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        return dict(spec, failed=True)
    return json.loads(proc.stdout.strip().splitlines()[-1])


def compare(ref_file, run_file):
    a, b = np.load(ref_file), np.load(run_file)
    sa, sb = set(a["support"].tolist()), set(b["support"].tolist())
    da, db = a["decision"], b["decision"]
    return dict(sv_only_sklearn=len(sa - sb), sv_only_ours=len(sb - sa),
                decision_rel=float(np.abs(da - db).max() / max(np.abs(da).max(), 1e-300)),
                pred_differ=int(np.sum(a["pred"] != b["pred"])))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--tol", type=float, default=1e-3)
    ap.add_argument("--quick", action="store_true", help=f"first {QUICK_ROWS} training rows")
    ap.add_argument("--rows", type=int, help="first N training rows (the one-class set: N rows)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "nu_svm.json"))
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return 0
    tmp = tempfile.mkdtemp(prefix="nu_svm_")
    rows, lines, misses = [], [], []
    head = ("| config | estimator | n | sklearn s | ours s (2 jobs) | ratio | ours 1 job s | 2 jobs / 1 | SV only sk / ours "
            "| decision rel diff | pred differ | quality sk / ours | peak MB sk / ours |")
    lines += [head, "|" + "---|" * (head.count("|") - 1)]
    for name in args.configs.split(","):
        dataset, kind, _, binary = CONFIGS[name]
        spec = dict(config=name, tol=args.tol, quick=args.quick, rows=args.rows)
        ref = run_worker(dict(spec, lib="sklearn", n_jobs=None, save=os.path.join(tmp, f"{name}-sk.npz")))
        ours = run_worker(dict(spec, lib="largemargin", n_jobs=2, save=os.path.join(tmp, f"{name}-2.npz")))
        one = run_worker(dict(spec, lib="largemargin", n_jobs=1, save=os.path.join(tmp, f"{name}-1.npz"))) if binary else None
        if ref.get("failed") or ours.get("failed") or (one or {}).get("failed"):
            lines.append(f"| {name} | {kind} | FAILED |")
            misses.append(f"{name}: a run failed")
            continue
        c = compare(os.path.join(tmp, f"{name}-sk.npz"), os.path.join(tmp, f"{name}-2.npz"))
        ratio = ours["fit_time"] / ref["fit_time"]
        jobs = one and ours["fit_time"] / one["fit_time"]
        row = dict(config=name, estimator=kind, sklearn=ref, ours=ours, ours_1_job=one, ratio=ratio,
                   jobs_ratio=jobs, **c)
        rows.append(row)
        if ratio > MAX_FIT_RATIO:
            misses.append(f"{name}: fit ratio {ratio:.3f} > {MAX_FIT_RATIO}")
        if c["decision_rel"] > MAX_DECISION_REL or c["sv_only_sklearn"] or c["sv_only_ours"]:
            misses.append(f"{name}: models differ (SV {c['sv_only_sklearn']}/{c['sv_only_ours']}, "
                          f"decision {c['decision_rel']:.1e})")
        lines.append("| " + " | ".join([
            name, kind, f"{ours['n_train']:,}", f"{ref['fit_time']:.2f}", f"{ours['fit_time']:.2f}", f"{ratio:.3f}",
            "—" if one is None else f"{one['fit_time']:.2f}", "—" if jobs is None else f"{jobs:.2f}",
            f"{c['sv_only_sklearn']} / {c['sv_only_ours']} (of {ref['n_sv']:,})", f"{c['decision_rel']:.1e}",
            "—" if kind == "NuSVR" else str(c["pred_differ"]), f"{ref['quality']:.4g} / {ours['quality']:.4g}",
            f"{ref['peak_rss_mb']:.0f} / {ours['peak_rss_mb']:.0f}",
        ]) + " |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    print("\n".join(misses) if misses else "every target met")
    meta = dict(date=datetime.datetime.now().isoformat(timespec="seconds"), machine=platform.machine(),
                cpus=os.cpu_count(), tol=args.tol, quick=args.quick, rows=args.rows, command=" ".join(["python", *sys.argv]))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(dict(meta=meta, rows=rows, misses=misses), f, indent=1)
    with open(os.path.splitext(args.out)[0] + ".md", "w") as f:
        f.write(f"`{meta['command']}` ({meta['date']}, {meta['cpus']} cores, tol={args.tol})\n\n{table}\n\n")
        f.write("\n".join(f"- {m}" for m in misses) if misses else "Every target met.")
        f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
