"""The kernel-cache budget: `SVC` at the old default (200 MB) against ``cache_size="auto"``, beside
scikit-learn-intelex's `SVC` (oneDAL's working-set solver) at its default and at the same budget.

    python benches/budget.py [--sizes 32000,64000] [--out benches/results/budget.json]

Data: a dense 54-feature set that no other benchmark uses (scikit-learn's ``make_classification``:
12 informative and 10 redundant features, 4 clusters per class, 3% flipped labels, seed 7,
standardized), RBF gamma=0.1, C=3, tol 1e-3: nearly every example is a support vector, the case
where the budget matters. Each fit runs in its own process; reported: wall time of the fit, support
vectors, kernel values, the budget used (MB), peak RSS during the fit (VmHWM after the data is made).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r'''
import json, sys, time, warnings
sys.path.insert(0, {here!r})
import numpy as np
from sklearn.datasets import make_classification
from process_memory import peak_mb, reset_peak, rss_mb
n, who, cache = {n}, {who!r}, {cache!r}
X, y = make_classification(n, 54, n_informative=12, n_redundant=10, n_clusters_per_class=4, flip_y=0.03, random_state=7)
X = (X - X.mean(0)) / X.std(0)
if who == "largemargin":
    import largemargin as lm
    from largemargin._arrays import native_cache_size
    budget = native_cache_size(cache, X)
    model = lm.SVC(C=3, gamma=0.1, cache_size=cache)
else:
    warnings.filterwarnings("ignore")
    from sklearnex.svm import SVC
    budget = cache
    model = SVC(C=3, gamma=0.1, cache_size=cache)
before = rss_mb(); reset_peak()
t = time.perf_counter(); model.fit(X, y); t = time.perf_counter() - t
print(json.dumps(dict(n=n, who=who, cache=cache, budget_mb=budget, seconds=t, sv=int(len(model.support_)),
                      evals=float(getattr(model, "n_kernel_evals_", float("nan"))), rss_before_mb=before, peak_mb=peak_mb())))
'''


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--sizes", default="32000,64000")
    p.add_argument("--out", default=os.path.join(HERE, "results", "budget.json"))
    args = p.parse_args()
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        runs = [("largemargin", 200.0), ("largemargin", "auto"), ("intelex", 200.0)]
        for who, cache in runs:
            code = CHILD.format(here=HERE, n=n, who=who, cache=cache)
            out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
            if out.returncode != 0:
                print(out.stderr, file=sys.stderr)
                raise SystemExit(f"{who} at {n} failed")
            row = json.loads(out.stdout.strip().splitlines()[-1])
            rows.append(row)
            print(row, flush=True)
        # intelex with the budget "auto" gave ours
        auto = next(r for r in rows if r["n"] == n and r["cache"] == "auto")
        code = CHILD.format(here=HERE, n=n, who="intelex", cache=float(round(auto["budget_mb"])))
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        rows.append(json.loads(out.stdout.strip().splitlines()[-1]))
        print(rows[-1], flush=True)
    with open(args.out, "w") as f:
        json.dump(rows, f, indent=1)
    md = os.path.splitext(args.out)[0] + ".md"
    with open(md, "w") as f:
        cmd = " ".join(["python benches/budget.py", *sys.argv[1:]])
        f.write(f"Command: `{cmd}` (2 cores, quiet machine).\n\n")
        f.write("| rows | fit | cache_size | budget (MB) | fit (s) | support vectors | kernel values | peak RSS (MB) | time / intelex at 200 MB |\n")
        f.write("|---|---|---|---|---|---|---|---|---|\n")
        for r in rows:
            anchor = next(a for a in rows if a["n"] == r["n"] and a["who"] == "intelex" and a["cache"] == 200.0)
            evals = "" if r["evals"] != r["evals"] else f"{r['evals']:.3g}"
            f.write(f"| {r['n']:,} | {r['who']} | {r['cache']} | {r['budget_mb']:.0f} | {r['seconds']:.1f} | {r['sv']:,} | "
                    f"{evals} | {r['peak_mb']:.0f} | {r['seconds'] / anchor['seconds']:.2f} |\n")
    print(f"wrote {args.out} and {md}")


if __name__ == "__main__":
    main()
