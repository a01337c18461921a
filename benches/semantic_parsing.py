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
  splits against the thesis' OSPAS column, for both counts of "-" in a bag (`padding`), and the
  share of test MRs whose symbols sit on the right words (so that symbol and role errors can be
  told apart). Two references on the same splits, not OSPAS: the same share for a lexicon read
  from the true training alignments (each word's most frequent symbol: the ceiling of any tagger
  of words alone), and for a batch aligner that learns from the ambiguity-0 bags alone (hard EM:
  one-to-one assignments of words to the bag, 10 passes), to show what the bags let a learner
  recover.
- online: one-pass fits on 2,000 and 20,000 AMBIGHOUSE sentences (ambiguity 1), each timed as
  the best of five; parsing the same 5,000 test sentences with either model (best of five).

Writes the JSON, a markdown table next to it (.md) and the learning curves as a PNG (when
matplotlib is installed).
"""

import argparse
import collections
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


def symbols_right(alignments, predicted, mrs):
    """The share of MRs whose symbols are predicted at exactly the words that carry them."""
    right = total = 0
    for truth, guess, sentence_mrs in zip(alignments, predicted, mrs):
        for mr in sentence_mrs:
            symbols = {s for s, _ in mr}
            total += 1
            right += all((t in symbols) == (g in symbols) and (t not in symbols or t == g) for t, g in zip(truth, guess))
    return right / max(total, 1)


def table61(splits=10):
    rows = []
    for padding in ("each", "all"):
        for ambiguity in range(4):
            scores, placed = [], []
            for split in range(splits):
                sentences, bags, true_mrs, alignments = make_ambigchild(925, ambiguity, random_state=split)
                parser = lm.SemanticParser(C=1.0, padding=padding, random_state=split).fit(sentences[:900], bags[:900])
                scores.append(mr_scores(true_mrs[900:], parser.predict(sentences[900:])))
                placed.append(symbols_right(alignments[900:], parser.predict_alignment(sentences[900:]), true_mrs[900:]))
            p, r, f = np.mean(scores, axis=0)
            rows.append({"part": "table61", "padding": padding, "ambiguity": ambiguity, "precision": float(p),
                         "recall": float(r), "f1": float(f), "f1_std": float(np.std([s[2] for s in scores])),
                         "symbols_right": float(np.mean(placed)), "thesis_f1": THESIS_F1[ambiguity]})
            print(f"table61 padding {padding} ambiguity {ambiguity}: F1 {f:.3f} (thesis {THESIS_F1[ambiguity]})", flush=True)
    for name, lexicon in (("lexicon from the true alignments", true_lexicon), ("hard-EM aligner on the bags", hard_em_lexicon)):
        placed = []
        for split in range(splits):
            sentences, bags, true_mrs, alignments = make_ambigchild(925, 0, random_state=split)
            words = lexicon(sentences[:900], bags[:900], alignments[:900])
            guess = [[words.get(w, "-") for w in s] for s in sentences[900:]]
            placed.append(symbols_right(alignments[900:], guess, true_mrs[900:]))
        rows.append({"part": "table61_reference", "reference": name, "symbols_right": float(np.mean(placed))})
        print(f"table61 reference {name}: symbols right {np.mean(placed):.3f}", flush=True)
    return rows


def true_lexicon(sentences, bags, alignments):
    """Each word's most frequent symbol in the true alignments (supervision no parser gets)."""
    counts = collections.defaultdict(collections.Counter)
    for sentence, alignment in zip(sentences, alignments):
        for w, s in zip(sentence, alignment):
            counts[w][s] += 1
    return {w: c.most_common(1)[0][0] for w, c in counts.items()}


def hard_em_lexicon(sentences, bags, alignments, passes=10):
    """Each word's most frequent symbol after hard EM on the bags alone (alignments unused): every
    sentence's words are assigned one to one to its bag (its MRs' symbols, and "-" for the rest of
    the words) to maximise the product of the current association scores, which are then re-read
    from the assignments; the first scores are Dice coefficients of word and symbol co-occurrence."""
    from scipy.optimize import linear_sum_assignment

    del alignments
    slots = []
    for sentence, mrs in zip(sentences, bags):
        need = collections.Counter()
        for mr in mrs:
            need |= collections.Counter(s for s, _ in mr)
        symbols = list(need.elements())
        slots.append(symbols + ["-"] * max(0, len(sentence) - len(symbols)))
    n_word, n_symbol, both = collections.Counter(), collections.Counter(), collections.Counter()
    for sentence, bag in zip(sentences, slots):
        n_word.update(set(sentence))
        n_symbol.update(set(bag))
        both.update((w, s) for w in set(sentence) for s in set(bag))
    score = {k: 2 * v / (n_word[k[0]] + n_symbol[k[1]]) for k, v in both.items()}
    for _ in range(passes):
        taken = collections.Counter()
        for sentence, bag in zip(sentences, slots):
            cost = -np.log(np.array([[score.get((w, s), 0.0) for s in bag] for w in sentence]) + 1e-9)
            for i, j in zip(*linear_sum_assignment(cost)):
                taken[sentence[i], bag[j]] += 1
        per_word = collections.Counter()
        for (w, _), v in taken.items():
            per_word[w] += v
        score = {k: (v + 0.01) / (per_word[k[0]] + 1) for k, v in taken.items()}
    best = {}
    for (w, s), v in taken.items():
        if v > best.get(w, (None, -1))[1]:
            best[w] = (s, v)
    return {w: s for w, (s, _) in best.items()}


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
                "| padding | ambiguity | precision | recall | F1 (std over splits) | thesis OSPAS F1 | MRs with symbols right |",
                "|---|---|---|---|---|---|---|"]
        for r in t:
            out.append(f"| {r['padding']} | {r['ambiguity']} | {r['precision']:.3f} | {r['recall']:.3f} | {r['f1']:.3f} "
                       f"({r['f1_std']:.3f}) | {r['thesis_f1']:.3f} | {r['symbols_right']:.3f} |")
        out.append("")
        for padding in ("each", "all"):
            f = {r["ambiguity"]: r["f1"] for r in t if r["padding"] == padding}
            if 0 in f and 3 in f:
                out.append(f"Drop from ambiguity 0 to 3, padding {padding}: {f[0] - f[3]:.3f} "
                           f"(thesis {THESIS_F1[0] - THESIS_F1[3]:.3f}).")
        ref = [r for r in rows if r["part"] == "table61_reference"]
        if ref:
            out += ["", "References on the same splits at ambiguity 0 (not OSPAS), MRs with symbols right: "
                    + "; ".join(f"{r['reference']} {r['symbols_right']:.3f}" for r in ref) + "."]
        out.append("")
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
