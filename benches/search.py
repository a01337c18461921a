"""Cross-validated C x gamma search: SVCSearchCV against GridSearchCV over our SVC and over
scikit-learn's SVC, on the same rows, grid and folds, each run in its own process.

    python benches/search.py [--sets adult,ijcnn1,letter] [--rows adult=8000,...] [--grid wide]
                             [--skip-sklearn] [--skip-400] [--out benches/results/search.json]

For each set: the first --rows rows of a fixed shuffle of its training file, KFold(5,
shuffle=True, random_state=0), a 5 x 5 grid of C and gamma around LIBSVM's setting
(benches/run.py), or with --grid wide the one a user would try on any set (C 0.1 to 1000, gamma
0.001 to 0.1), cache_size=200 for every fit (ours: per thread), refit=False everywhere (the search
alone is timed).

ours        SVCSearchCV(SVC(), grid, cv, n_jobs=2): one native call, both cores.
ours400     the same with cache_size=400 (--skip-400: not run).
ourscold    (--cold) the same with c_start="cold": the models of independent fits.
gridsearch  GridSearchCV(SVC(n_jobs=1), grid, cv, n_jobs=2): two processes of one thread (the
            best setting of GridSearchCV with our SVC on this machine, see docs/benchmarks.rst).
sklearn     GridSearchCV(sklearn.svm.SVC(), grid, cv, n_jobs=2).

Reported: wall time of each and the ratios, the largest difference of mean test scores between
ours and gridsearch and whether the best parameters agree, the peak RSS of our process against
the data and cache_size, and the kernel values computed by our search against the sum over the
125 independent fits (their fits' n_kernel_evals_ plus test rows x support vectors to predict).
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

GRIDS = {
    # 5 x 5, factors of 4 in C and 2 in gamma around benches/run.py's (C, gamma)
    "adult": dict(C=[1.0, 4.0, 16.0, 64.0, 256.0], gamma=[0.00125, 0.0025, 0.005, 0.01, 0.02]),
    "ijcnn1": dict(C=[2.0, 8.0, 32.0, 128.0, 512.0], gamma=[0.5, 1.0, 2.0, 4.0, 8.0]),
    "letter": dict(C=[0.625, 2.5, 10.0, 40.0, 160.0], gamma=[0.00625, 0.0125, 0.025, 0.05, 0.1]),
}
# what a user would try without knowing the data (every set's features scaled to about [0, 1])
WIDE = dict(C=[0.1, 1.0, 10.0, 100.0, 1000.0], gamma=[0.001, 0.003, 0.01, 0.03, 0.1])
ROWS = {"adult": 8000, "ijcnn1": 10000, "letter": 6000}
CACHE = 200


def data(name, rows):
    import datasets

    X, y, _, _ = datasets.load(name)
    order = np.random.RandomState(0).permutation(X.shape[0])[:rows]
    return X[order], y[order]


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def worker(which, name, rows, wide):
    from sklearn.model_selection import GridSearchCV, KFold

    X, y = data(name, rows)
    base_mb = peak_mb()
    grid = WIDE if wide else GRIDS[name]
    cv = KFold(5, shuffle=True, random_state=0)
    out = {}
    started = time.perf_counter()
    if which.startswith("ours"):
        from largemargin import SVC, SVCSearchCV

        cache = 2 * CACHE if which == "ours400" else CACHE
        start = "cold" if which == "ourscold" else "auto"
        s = SVCSearchCV(SVC(cache_size=cache), grid, cv=cv, n_jobs=2, refit=False, c_start=start).fit(X, y)
        out["stats"] = s.search_stats_
        out["mean_fit_time"] = float(s.cv_results_["mean_fit_time"].sum())
    elif which == "gridsearch":
        from largemargin import SVC

        scoring = {"accuracy": "accuracy", "evals": _fit_evals, "nsv": _n_support}
        s = GridSearchCV(SVC(n_jobs=1, cache_size=CACHE), grid, cv=cv, n_jobs=2, refit=False, scoring=scoring).fit(X, y)
    else:
        from sklearn.svm import SVC

        s = GridSearchCV(SVC(cache_size=CACHE), grid, cv=cv, n_jobs=2, refit=False).fit(X, y)
    out["seconds"] = time.perf_counter() - started
    r = s.cv_results_
    key = "mean_test_accuracy" if which == "gridsearch" else "mean_test_score"
    out["mean_test_score"] = [float(v) for v in r[key]]
    out["params"] = [{k: float(v) for k, v in p.items()} for p in r["params"]]
    if which == "gridsearch":
        test_rows = [len(test) for _, test in cv.split(X, y)]
        evals = sum(r[f"split{f}_test_evals"].sum() for f in range(5))
        predict = sum(r[f"split{f}_test_nsv"].sum() * test_rows[f] for f in range(5))
        out["independent_evals"] = float(evals + predict)
        out["independent_fit_evals"] = float(evals)
    out["peak_mb"] = peak_mb()
    out["data_mb"] = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes if hasattr(X, "indptr") else X.nbytes) / 2**20
    out["base_mb"] = base_mb
    print(json.dumps(out))


def _fit_evals(est, X, y):
    return est.n_kernel_evals_


def _n_support(est, X, y):
    return len(est.support_)


def run(which, name, rows, grid):
    cmd = [sys.executable, __file__, "--worker", which, name, str(rows), "--grid", grid]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode:
        raise RuntimeError(f"{which} {name} failed:\n{p.stderr[-3000:]}")
    return json.loads(p.stdout.strip().splitlines()[-1])


def score_diff(a, b):
    return float(np.max(np.abs(np.array(a["mean_test_score"]) - np.array(b["mean_test_score"]))))


def best(r):
    i = int(np.argmax(r["mean_test_score"]))  # first of equals, as rank_test_score's argmin
    return r["params"][i]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", nargs=3)
    ap.add_argument("--sets", default="adult,ijcnn1,letter")
    ap.add_argument("--rows", default="")
    ap.add_argument("--grid", choices=["benchmark", "wide"], default="benchmark")
    ap.add_argument("--skip-sklearn", action="store_true")
    ap.add_argument("--skip-400", action="store_true")
    ap.add_argument("--cold", action="store_true", help="also run ours with c_start='cold'")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "search.json"))
    a = ap.parse_args()
    if a.worker:
        return worker(a.worker[0], a.worker[1], int(a.worker[2]), a.grid == "wide")
    rows = dict(ROWS)
    for item in filter(None, a.rows.split(",")):
        k, v = item.split("=")
        rows[k] = int(v)
    results = {}
    lines = [
        "| set | rows | ours s | GridSearchCV(our SVC) s | ratio | sklearn GridSearchCV s | ratio | max mean-score diff | same best | "
        "peak RSS MB (data MB, cache MB) | kernel evals ours / 125 fits | ours, cache_size=400: s, ratio to GridSearchCV(our SVC) | "
        "ours, c_start='cold': s, ratio, max mean-score diff |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name in a.sets.split(","):
        n = rows[name]
        r = {"ours": run("ours", name, n, a.grid), "gridsearch": run("gridsearch", name, n, a.grid)}
        if not a.skip_400:
            r["ours400"] = run("ours400", name, n, a.grid)
        if not a.skip_sklearn:
            r["sklearn"] = run("sklearn", name, n, a.grid)
        if a.cold:
            r["ourscold"] = run("ourscold", name, n, a.grid)
        results[name] = r
        o, g = r["ours"], r["gridsearch"]
        diff = score_diff(o, g)
        cold = r.get("ourscold")
        same = best(o) == best(g)
        sk = r.get("sklearn")
        sk_cells = f"{sk['seconds']:.1f} | {o['seconds'] / sk['seconds']:.3f}" if sk else "- | -"
        evals = o["stats"]["kernel_evals"]
        lines.append(
            f"| {name} | {n} | {o['seconds']:.1f} | {g['seconds']:.1f} | {o['seconds'] / g['seconds']:.3f} | {sk_cells} | "
            f"{diff:.2e} | {'yes' if same else 'NO: ' + str(best(o)) + ' vs ' + str(best(g))} | "
            f"{o['peak_mb']:.0f} ({o['data_mb']:.1f}, {CACHE}; {o['base_mb']:.0f} before the search) | "
            f"{evals:.3g} / {g['independent_evals']:.3g} = {evals / g['independent_evals']:.3f} | "
            + (f"{r['ours400']['seconds']:.1f}, {r['ours400']['seconds'] / g['seconds']:.3f} |" if "ours400" in r else "- |")
            + (f" {cold['seconds']:.1f}, {cold['seconds'] / g['seconds']:.3f}, {score_diff(cold, g):.2e} |" if cold else " - |")
        )
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    with open(a.out, "w") as f:
        json.dump(results, f, indent=1)
    with open(a.out.replace(".json", ".md"), "w") as f:
        f.write("`python benches/search.py " + " ".join(sys.argv[1:]) + "`\n\n" + table + "\n")


if __name__ == "__main__":
    main()
