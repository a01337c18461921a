"""Our MLPs against scikit-learn's MLPClassifier() with the test errors averaged over several
random_states on both sides, scored by the suite's rule (within 1 point, error ratio over all splits),
next to the same score from the random_state=0 fits alone: how much of the suite's MLP gap is seed noise.

    python benches/studies/mlp_seed_average.py [--estimators simple,tanh] [--seeds 0,1,2] [--datasets iris,sonar]
                                       [--out benches/studies/results/mlp_seed_average.md]

The five largest sets (adult, ijcnn1, letter, letter-bundled, mnist5k) are left out for time. The
MLPClassifier fits are cached per dataset and seed in <out>.theirs.json, so rerunning one of ours does
not refit them; the results of estimators not rerun are kept when their seeds and datasets match.
"""
import argparse
import json
import math
import os
import sys
import time
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BENCHES = os.path.dirname(HERE)  # benches/: suite.py, datasets.py, the benchmarks
sys.path.insert(0, BENCHES)
import suite  # noqa: E402

OURS = {"simple": "SimpleMLPClassifier", "tanh": "TanhMLPClassifier"}


def _wrong(est, Xtr, ytr, Xte, yte):
    from sklearn.exceptions import ConvergenceWarning

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return int(np.sum(est.fit(Xtr, ytr).predict(Xte) != yte)), None
    except Exception as e:  # a failure counts as every test example wrong, as in the suite
        return len(yte), f"{type(e).__name__}: {e}"[:200]


def _score(rows, seeds):
    """The suite's summary of per-dataset rows, on the wrong counts of `seeds` summed: share within
    a point (ours not worse by more than suite.TIE, wins counting, as suite.summarize), share with
    |diff| <= suite.TIE, geometric mean error ratio, and the datasets worse / better by more than a point."""
    d = []
    for r in rows:
        o, t = (sum(r[side][str(s)] for s in seeds) for side in ("ours_wrong", "theirs_wrong"))
        d.append((r["dataset"], 100.0 * (o - t) / (r["n_test_total"] * len(seeds)), (o + 1) / (t + 1)))
    return {"within_1pt_share": sum(x[1] <= suite.TIE for x in d) / len(d),
            "tie_share": sum(abs(x[1]) <= suite.TIE for x in d) / len(d),
            "gmean_error_ratio": math.exp(sum(math.log(x[2]) for x in d) / len(d)),
            "worse": [(x[0], x[1]) for x in d if x[1] > suite.TIE],
            "better": [(x[0], x[1]) for x in d if x[1] < -suite.TIE]}


def report(results, meta, prefix, failed=()):
    """Summaries of `results` (estimator key: per-dataset rows) into <prefix>.md and <prefix>.json."""
    seeds, names = meta["seeds"], meta["datasets"]
    s0 = seeds[0]
    for v in results.values():
        v["seed0"], v["averaged"] = _score(v["rows"], [s0]), _score(v["rows"], seeds)
    pct = lambda v: f"{100 * v['within_1pt_share']:.0f}% ({100 * v['tie_share']:.0f}%)"  # noqa: E731
    far = lambda v: ", ".join(f"{d} {x:+.2f}" for d, x in v) or "none"  # noqa: E731
    lines = [
        "# Our MLPs against MLPClassifier(), test errors averaged over random_states",
        "",
        f"`{meta['command']}` — {meta['when']}, {len(names)} suite datasets (the five largest left out), "
        f"seeds {', '.join(map(str, seeds))} on both sides, scikit-learn {meta['sklearn']}."
        + "".join(f" {OURS[k]} kept from `{c}`." for k, c in meta["commands"].items() if c != meta["command"]),
        "",
        f"Seed {s0}: ours random_state={s0} against MLPClassifier(random_state={s0}), from the same fits. "
        f"Averaged: mean test error over the seeds; error ratio (sum over seeds and splits of ours wrong + 1) / "
        f"(same for theirs + 1). Within {suite.TIE:g} point as the suite counts it: ours not worse by more than "
        f"{suite.TIE:g} point (wins count); in brackets |diff| <= {suite.TIE:g}. "
        f"Acceptance: within {suite.TIE:g} point on >= 90% and geometric mean <= 1.02.",
        "",
        f"| estimator | seed {s0} within {suite.TIE:g} pt | seed {s0} gmean | averaged within {suite.TIE:g} pt "
        "| averaged gmean | averaged, worse by more than a point | averaged, better by more than a point |",
        "|---|---|---|---|---|---|---|",
    ] + [f"| {v['estimator']} | {pct(v['seed0'])} | {v['seed0']['gmean_error_ratio']:.3f} "
         f"| {pct(v['averaged'])} | {v['averaged']['gmean_error_ratio']:.3f} "
         f"| {far(v['averaged']['worse'])} | {far(v['averaged']['better'])} |" for v in results.values()]
    lines += ["", f"Failures: {'; '.join(failed)}."] if failed else []
    ks = list(results)
    lines += ["", "## Mean test error over seeds (%)", "",
              "| dataset | MLPClassifier | " + " | ".join(f"{results[k]['estimator']} | diff" for k in ks) + " |",
              "|---|---|" + "---|---|" * len(ks)]
    for i, name in enumerate(names):
        theirs = results[ks[0]]["rows"][i]["theirs_error"]
        lines.append(f"| {name} | {theirs:.2f} | " + " | ".join(
            f"{results[k]['rows'][i]['ours_error']:.2f} | {results[k]['rows'][i]['ours_error'] - theirs:+.2f}"
            for k in ks) + " |")
    suite._atomic_write(prefix + ".json", json.dumps({"meta": meta, "results": results}, indent=1))
    suite._atomic_write(prefix + ".md", "\n".join(lines) + "\n")
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--estimators", default="simple,tanh", help="comma-separated, from: " + ", ".join(OURS))
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--datasets", help="comma-separated (default: the suite's sets but the five largest)")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "mlp_seed_average.md"))
    args = ap.parse_args(argv)
    import sklearn
    from sklearn.neural_network import MLPClassifier

    import largemargin

    keys = [k.strip() for k in args.estimators.split(",") if k.strip()]
    if not keys or any(k not in OURS for k in keys):
        ap.error(f"--estimators: choose from {', '.join(OURS)}")
    seeds = [int(s) for s in args.seeds.split(",") if s.strip()]
    names = [n for n in suite.keel_names() + list(suite.BUNDLED) if n not in suite.LARGEST]
    if args.datasets:
        names = [d.strip() for d in args.datasets.split(",") if d.strip()]
    prefix = os.path.splitext(args.out)[0]
    cache_path = prefix + ".theirs.json"
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    cache = {"sklearn": sklearn.__version__, "fits": {}}
    if os.path.exists(cache_path):
        with open(cache_path) as f:
            old = json.load(f)
        if old.get("sklearn") == sklearn.__version__:
            cache = old

    start = time.perf_counter()
    rows = []  # per dataset: n (test examples over splits), theirs[seed], ours[key][seed] (wrong over splits)
    for name in names:
        t = time.perf_counter()
        fits = cache["fits"].setdefault(name, {})
        todo = [s for s in seeds if str(s) not in fits]
        row = {"dataset": name, "n": 0, "theirs": {s: 0 for s in seeds}, "failed": [],
               "ours": {k: {s: 0 for s in seeds} for k in keys}}
        for i, (Xtr, ytr, Xte, yte) in enumerate(suite.splits(name)):
            row["n"] += len(yte)
            for s in todo:
                w, err = _wrong(MLPClassifier(random_state=s), Xtr, ytr, Xte, yte)
                fits.setdefault(str(s), []).append(w)
                if err:
                    row["failed"].append(f"MLPClassifier seed {s} split {i}: {err}")
            for k in keys:
                for s in seeds:
                    est = getattr(largemargin, OURS[k])(random_state=s, n_jobs=1)
                    w, err = _wrong(est, Xtr, ytr, Xte, yte)
                    row["ours"][k][s] += w
                    if err:
                        row["failed"].append(f"{OURS[k]} seed {s} split {i}: {err}")
        for s in seeds:
            row["theirs"][s] = sum(fits[str(s)])
        if todo:
            suite._atomic_write(cache_path, json.dumps(cache, indent=1))
        rows.append(row)
        pct = lambda w: 100.0 * w / (row["n"] * len(seeds))  # noqa: E731
        print(f"{name:16s} theirs {pct(sum(row['theirs'].values())):6.2f}%  " + "  ".join(
            f"{k} {pct(sum(row['ours'][k].values())):6.2f}%" for k in keys)
            + f"  ({time.perf_counter() - t:.1f} s)" + "".join("\n  FAILED " + m for m in row["failed"]), flush=True)
    seconds = time.perf_counter() - start

    results = {}
    for k in keys:
        results[k] = {"estimator": OURS[k], "rows": [{
            "dataset": r["dataset"], "n_test_total": r["n"],
            "ours_wrong": {str(s): w for s, w in r["ours"][k].items()},
            "theirs_wrong": {str(s): w for s, w in r["theirs"].items()},
            "ours_error": 100.0 * sum(r["ours"][k].values()) / (r["n"] * len(seeds)),
            "theirs_error": 100.0 * sum(r["theirs"].values()) / (r["n"] * len(seeds))} for r in rows]}
    command = ("python benches/studies/mlp_seed_average.py " + " ".join(argv if argv is not None else sys.argv[1:])).strip()
    meta = {"command": command, "when": time.strftime("%Y-%m-%d %H:%M"), "seeds": seeds, "datasets": names,
            "seconds": seconds, "commands": {k: command for k in keys}, "sklearn": sklearn.__version__}
    if os.path.exists(prefix + ".json"):  # keep estimators not rerun, when measured on the same seeds and sets
        with open(prefix + ".json") as f:
            before = json.load(f)
        if before["meta"]["seeds"] == seeds and before["meta"]["datasets"] == names:
            for k, v in before["results"].items():
                if k not in results:
                    results[k] = v
                    meta["commands"][k] = before["meta"].get("commands", {}).get(k, before["meta"]["command"])
    results = {k: results[k] for k in OURS if k in results}
    lines = report(results, meta, prefix, [m for r in rows for m in r["failed"]])
    print("\n".join(lines[6:6 + 2 + len(results)]))
    print(f"({seconds:.0f} s)")


if __name__ == "__main__":
    main()
