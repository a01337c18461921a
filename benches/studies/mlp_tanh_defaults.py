"""Candidate defaults of `TanhMLPClassifier` on the suite's datasets, scored against the
MLPClassifier() results stored in benches/results/suite.json (not refitted): per setting, the
share of datasets within a point of it, the geometric mean error ratio, the losses by more than a
point, the summed fit time. The five largest sets (benches/suite.py's LARGEST) are left out for
time unless named.

    python benches/studies/mlp_tanh_defaults.py '[{}, {"n_committees": 5}]' [dataset,dataset,...]

Each setting is a JSON object of constructor parameters over random_state=0; an empty object is
the current defaults. Fits run two at a time, in processes. The results quoted in the class
docstring are in benches/studies/results/mlp_tanh_defaults.txt.
"""
import json
import math
import os
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = os.path.dirname(HERE)  # benches/: suite.py, datasets.py, the benchmarks
sys.path.insert(0, BENCHES)
import suite  # noqa: E402

STORED = os.path.join(BENCHES, "results", "suite.json")


def _run(job):
    import largemargin

    name, setting = job
    wrong, fit = 0, 0.0
    for Xtr, ytr, Xte, yte in suite.splits(name):
        def make():
            return largemargin.TanhMLPClassifier(random_state=0).set_params(**setting)
        w, f, err = suite._fit_score(make, Xtr, ytr, Xte, yte)
        if err:
            print(f"{name}: {err}", file=sys.stderr)
        wrong, fit = wrong + w, fit + f
    return name, json.dumps(setting, sort_keys=True), wrong, fit


def main(argv):
    settings = json.loads(argv[0])
    with open(STORED) as f:
        stored = {r["dataset"]: r for r in json.load(f)["results"]["mlp-tanh"]["rows"]}
    names = argv[1].split(",") if len(argv) > 1 else [n for n in stored if n not in suite.LARGEST]
    results = {}
    with ProcessPoolExecutor(2) as pool:
        for name, key, wrong, fit in pool.map(_run, [(n, s) for s in settings for n in names]):
            results.setdefault(key, {})[name] = (wrong, fit)
    for key, rows in results.items():
        d = []
        for name, (wrong, fit) in rows.items():
            r = stored[name]
            d.append((name, 100.0 * (wrong - r["theirs_wrong"]) / r["n_test_total"],
                      (wrong + 1) / (r["theirs_wrong"] + 1), fit))
        losses = sorted((x for x in d if x[1] > suite.TIE), key=lambda x: -x[1])
        gmean = math.exp(sum(math.log(x[2]) for x in d) / len(d))
        print(f"{key}: within 1 point {1 - len(losses) / len(d):.0%} ({len(losses)} losses of {len(d)}), "
              f"gmean error ratio {gmean:.3f}, fit {sum(x[3] for x in d):.0f} s")
        print("   losses: " + ", ".join(f"{x[0]} {x[1]:+.2f}" for x in losses))


if __name__ == "__main__":
    main(sys.argv[1:])
