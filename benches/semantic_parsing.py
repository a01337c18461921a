"""OSPAS, the semantic parser of the thesis' chapter 6.2 (`largemargin.SemanticParser`), on the
generated corpora `make_ambighouse` and `make_ambigchild`: the thesis' Figures 6.3 and 6.4,
Table 6.1, and the online claim (training cost linear in the sentences seen, parsing cost per
sentence independent of them).

    python benches/semantic_parsing.py [--parts fig63,fig64,table61,online] [--seeds 0]
                                       [--out benches/results/semantic_parsing.json]

- fig63: AMBIGHOUSE, 2,000 training and 500 test sentences, ambiguity 0 to 4, one pass with the
  thesis' C = 0.1 and the random strategy; the test alignment error (sentences whose predicted
  symbol sequence is wrong anywhere) every 100 training sentences, through `partial_fit`.
- fig64: the same at ambiguity 3 for the three exploration strategies.
- table61: AMBIGCHILD, 10 splits (random_state 0..9) of 900 training and 25 test sentences, one
  pass with the thesis' C = 1; MR precision, recall and F1 at ambiguity 0 to 3, the mean over the
  splits against the thesis' OSPAS column.
- online: one-pass fits on 2,000 and 20,000 AMBIGHOUSE sentences (ambiguity 1), each timed as
  the best of five; parsing the same 5,000 test sentences with either model (best of five).

Writes the JSON, a markdown table next to it (.md) and the learning curves as a PNG (when
matplotlib is installed).
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

import numpy as np

import largemargin as lm
from largemargin.datasets import make_ambigchild, make_ambighouse
from largemargin.metrics import alignment_error, mr_scores

THESIS_F1 = {0: 0.940, 1: 0.926, 2: 0.912, 3: 0.891}  # Table 6.1, OSPAS
STEP = 100  # training sentences between two points of a learning curve


def learning_curve(ambiguity, strategy, seed, n_train=2000, n_test=500, C=0.1):
    sentences, bags, _, alignments = make_ambighouse(n_train + n_test, ambiguity, random_state=seed)
    test, truth = sentences[n_train:], alignments[n_train:]
    parser = lm.SemanticParser(C=C, strategy=strategy, random_state=seed)
    points = []
    for start in range(0, n_train, STEP):
        parser.partial_fit(sentences[start:start + STEP], bags[start:start + STEP])
        points.append((start + STEP, alignment_error(truth, parser.predict_alignment(test))))
    return points


def fig63(seeds):
    rows = []
    for ambiguity in range(5):
        curves = [learning_curve(ambiguity, "random", s) for s in seeds]
        for k, (n, _) in enumerate(curves[0]):
            rows.append({"part": "fig63", "ambiguity": ambiguity, "strategy": "random", "n_train": n,
                         "alignment_error": float(np.mean([c[k][1] for c in curves]))})
        print(f"fig63 ambiguity {ambiguity}: error at 2000 = {rows[-1]['alignment_error']:.4f}", flush=True)
    return rows


def fig64(seeds):
    rows = []
    for strategy in ("random", "left-right", "order-free"):
        curves = [learning_curve(3, strategy, s) for s in seeds]
        for k, (n, _) in enumerate(curves[0]):
            rows.append({"part": "fig64", "ambiguity": 3, "strategy": strategy, "n_train": n,
                         "alignment_error": float(np.mean([c[k][1] for c in curves]))})
        print(f"fig64 {strategy}: error at 2000 = {rows[-1]['alignment_error']:.4f}", flush=True)
    return rows


def table61(splits=10):
    rows = []
    for ambiguity in range(4):
        scores = []
        for split in range(splits):
            sentences, bags, true_mrs, _ = make_ambigchild(925, ambiguity, random_state=split)
            parser = lm.SemanticParser(C=1.0, random_state=split).fit(sentences[:900], bags[:900])
            scores.append(mr_scores(true_mrs[900:], parser.predict(sentences[900:])))
        p, r, f = np.mean(scores, axis=0)
        rows.append({"part": "table61", "ambiguity": ambiguity, "precision": float(p), "recall": float(r), "f1": float(f),
                     "f1_std": float(np.std([s[2] for s in scores])), "thesis_f1": THESIS_F1[ambiguity]})
        print(f"table61 ambiguity {ambiguity}: F1 {f:.3f} (thesis {THESIS_F1[ambiguity]})", flush=True)
    return rows


def online(seed):
    rows = []
    sentences, bags, _, _ = make_ambighouse(25000, 1, random_state=seed)
    test = sentences[20000:]
    for n in (2000, 20000):
        times, parse_times = [], []
        for _ in range(5):
            started = time.perf_counter()
            parser = lm.SemanticParser(C=0.1, random_state=seed).fit(sentences[:n], bags[:n])
            times.append(time.perf_counter() - started)
            started = time.perf_counter()
            parser.predict(test)
            parse_times.append(time.perf_counter() - started)
        rows.append({"part": "online", "n_train": n, "fit_s": min(times), "parse_s_per_sentence": min(parse_times) / len(test),
                     "tokens": sum(len(s) for s in sentences[:n]), "updates": parser.n_updates_})
        print(f"online {n}: fit {min(times):.3f} s, parse {1e6 * min(parse_times) / len(test):.1f} us/sentence", flush=True)
    return rows


def curve_table(rows, key, values, title):
    """Markdown lines: the learning curves of `rows` (one column per value of `key`) at a few
    sizes, and each curve's mean error (lower: learns faster)."""
    if not rows:
        return []
    names = [f"{key} {v}" if key == "ambiguity" else v for v in values]
    out = [f"## {title}", "", "| training sentences | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for n in sorted({r["n_train"] for r in rows}):
        if n % 500 and n not in (100, 200):
            continue
        cells = [f"{100 * r['alignment_error']:.1f}" for v in values for r in rows if r[key] == v and r["n_train"] == n]
        out.append(f"| {n} | " + " | ".join(cells) + " |")
    means = [100 * np.mean([r["alignment_error"] for r in rows if r[key] == v]) for v in values]
    out += ["", "Mean error over the curve (lower: learns faster): "
            + ", ".join(f"{name} {m:.1f}%" for name, m in zip(names, means)), ""]
    return out


def markdown(rows, meta):
    out = [f"# OSPAS on the generated corpora ({meta['date']}, {meta['machine']})", "",
           f"`{meta['command']}`", ""]
    for part, key, values, title in (
            ("fig63", "ambiguity", range(5),
             "Figure 6.3: test alignment error (%), AMBIGHOUSE, random strategy, C = 0.1, one pass"),
            ("fig64", "strategy", ("random", "left-right", "order-free"),
             "Figure 6.4: test alignment error (%), AMBIGHOUSE ambiguity 3, by exploration strategy")):
        out += curve_table([r for r in rows if r["part"] == part], key, values, title)
    t = [r for r in rows if r["part"] == "table61"]
    if t:
        out += ["## Table 6.1: MR F1 on AMBIGCHILD (10 splits of 900 train / 25 test, C = 1, one pass)", "",
                "| ambiguity | precision | recall | F1 (std over splits) | thesis OSPAS F1 |", "|---|---|---|---|---|"]
        for r in t:
            out.append(f"| {r['ambiguity']} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} ({r['f1_std']:.3f}) | {r['thesis_f1']:.3f} |")
        out += ["", f"Drop from ambiguity 0 to 3: {t[0]['f1'] - t[-1]['f1']:.3f} (thesis {THESIS_F1[0] - THESIS_F1[3]:.3f}).", ""]
    o = [r for r in rows if r["part"] == "online"]
    if o:
        out += ["## Online cost: AMBIGHOUSE ambiguity 1, one pass, best of 5 (parsing: 5,000 test sentences)", "",
                "| training sentences | tokens | fit s | parse us / sentence |", "|---|---|---|---|"]
        for r in o:
            out.append(f"| {r['n_train']} | {r['tokens']} | {r['fit_s']:.3f} | {1e6 * r['parse_s_per_sentence']:.1f} |")
        if len(o) == 2:
            out += ["", f"Fit 20,000 / fit 2,000: {o[1]['fit_s'] / o[0]['fit_s']:.2f}x; parse per sentence, 20,000-sentence "
                    f"model / 2,000-sentence model: {o[1]['parse_s_per_sentence'] / o[0]['parse_s_per_sentence']:.2f}x.", ""]
    return "\n".join(out)


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for part, key, values, ax, title in (
            ("fig63", "ambiguity", range(5), axes[0], "Figure 6.3: ambiguity levels (random strategy)"),
            ("fig64", "strategy", ("random", "left-right", "order-free"), axes[1], "Figure 6.4: strategies (ambiguity 3)")):
        for v in values:
            pts = [(r["n_train"], 100 * r["alignment_error"]) for r in rows if r["part"] == part and r[key] == v]
            if pts:
                ax.plot(*zip(*pts), label=f"{key} {v}" if key == "ambiguity" else v)
        ax.set_xlabel("training sentences")
        ax.set_ylabel("test alignment error (%)")
        ax.set_title(title, fontsize=10)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--parts", default="fig63,fig64,table61,online")
    ap.add_argument("--seeds", default="0", help="corpus and parser seeds of the learning curves (averaged)")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "semantic_parsing.json"))
    args = ap.parse_args()
    parts = args.parts.split(",")
    seeds = [int(s) for s in args.seeds.split(",")]
    rows = []
    if "fig63" in parts:
        rows += fig63(seeds)
    if "fig64" in parts:
        rows += fig64(seeds)
    if "table61" in parts:
        rows += table61()
    if "online" in parts:
        rows += online(seeds[0])
    meta = {"date": datetime.date.today().isoformat(), "machine": f"{platform.machine()}, {os.cpu_count()} cores",
            "command": "python benches/semantic_parsing.py " + " ".join(sys.argv[1:]), "largemargin": lm.__version__}
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"meta": meta, "rows": rows}, f, indent=1)
    os.replace(tmp, args.out)
    md = os.path.splitext(args.out)[0] + ".md"
    with open(md + ".tmp", "w") as f:
        f.write(markdown(rows, meta) + "\n")
    os.replace(md + ".tmp", md)
    png = plot(rows, os.path.splitext(args.out)[0] + ".png")
    print(f"wrote {args.out}, {md}" + (f", {png}" if png else ""))


if __name__ == "__main__":
    main()
