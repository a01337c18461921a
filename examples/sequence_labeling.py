"""
Sequence labeling: a chunker trained online by LaRank (SequenceLabeler)
=======================================================================

The script generates chunking-style sentences from a small grammar (noun phrases, verb groups,
prepositions, adverbs, clauses joined by "and"), each token a ``(word, part-of-speech)`` pair and
each label a B-/I-/O chunk tag as in the CoNLL-2000 shared task. A few things make the task less
than trivial: some words are both nouns and verbs ("walk", "fish", ...), the part of speech of
nouns, verbs and adjectives is wrong 15% of the time (as a tagger's would be), and two noun phrases can follow each other
("gave the dog a bone"), so where a chunk begins depends on the neighbouring words. A quarter of
the nouns, verbs and adjectives are rare made-up words (the test sentences have words no training
sentence has) whose suffix tells their part of speech.

``SequenceLabeler`` turns the tokens into sparse features (``WindowFeatures``: words and parts of
speech at -2..+2, bigrams, suffixes, word shape) and fits a linear model over the structured
SVM's dual. The script trains

- ``"larank_greedy"`` (tokens as patterns, greedy left-to-right decoding, Markov order 2) and
  ``"larank_exact"`` (whole sentences, Viterbi), one pass, and again until the duality gap is
  below C (``until_gap=True``: the batch reference, the dual recorded after every pass in
  ``dual_per_epoch_``);
- the baselines ``"pa"`` (passive-aggressive) and ``"perceptron"`` (averaged),

and scores them with ``token_accuracy`` and ``chunk_f1`` (the conlleval rules). Run it with::

    python examples/sequence_labeling.py

The plot shows the dual objective per pass, and the test scores of each method.
"""


import matplotlib.pyplot as plt
import numpy as np
from matplotlib.ticker import MaxNLocator

import largemargin as lm

LEXICON = {
    "DT": ["the", "a", "this", "every", "some"],
    "JJ": ["big", "red", "old", "quiet", "happy", "small", "green", "strange"],
    "NN": ["dog", "cat", "idea", "house", "river", "teacher", "bone", "letter", "garden", "city"],
    "VB": ["sees", "likes", "gave", "found", "sent", "wants", "left", "painted", "followed"],
    "MD": ["will", "can", "may", "must"],
    "IN": ["in", "on", "with", "near", "under", "behind"],
    "RB": ["quickly", "often", "slowly", "again"],
    "PRP": ["she", "he", "they", "we"],
}
AMBIGUOUS = ["walk", "fish", "watch", "park", "run", "plant"]  # nouns and verbs both
SUFFIXES = {"NN": ["tion", "ness", "er", "ment"], "VB": ["ed", "izes", "ates"], "JJ": ["ous", "ful", "ive", "al"]}
SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ba", "zo"]
POS_NOISE = 0.15  # how often a noun, verb or adjective gets one of the other two tags


def _word(rng, pos, common):
    """A common word of that part of speech, or now and then a rare one, made up with a suffix
    of its part of speech (the test sentences have rare words no training sentence has)."""
    if rng.rand() < 0.25:
        return "".join(rng.choice(SYLLABLES, rng.randint(2, 4))) + rng.choice(SUFFIXES[pos])
    return rng.choice(common)


def _tag(rng, pos):
    """The part of speech as a tagger would give it: now and then wrong."""
    if pos in SUFFIXES and rng.rand() < POS_NOISE:
        return rng.choice([p for p in SUFFIXES if p != pos])
    return pos


def _noun_phrase(rng, allow_pronoun=True):
    if allow_pronoun and rng.rand() < 0.2:
        return [(rng.choice(LEXICON["PRP"]), "PRP")]
    words = []
    if rng.rand() < 0.6:
        words.append((rng.choice(LEXICON["DT"]), "DT"))
    for _ in range(rng.choice([0, 0, 1, 2])):
        words.append((_word(rng, "JJ", LEXICON["JJ"]), _tag(rng, "JJ")))
    for _ in range(rng.choice([1, 1, 1, 2])):  # compound nouns ("garden fish")
        words.append((_word(rng, "NN", LEXICON["NN"] + AMBIGUOUS), _tag(rng, "NN")))
    return words


def _verb_group(rng):
    words = [(rng.choice(LEXICON["MD"]), "MD")] if rng.rand() < 0.3 else []
    return words + [(_word(rng, "VB", LEXICON["VB"] + AMBIGUOUS), _tag(rng, "VB"))]


def _clause(rng):
    chunks = [("NP", _noun_phrase(rng)), ("VP", _verb_group(rng))]
    for _ in range(rng.choice([1, 1, 2])):  # objects: "gave the dog a bone" has two NPs in a row
        chunks.append(("NP", _noun_phrase(rng)))
    if rng.rand() < 0.5:
        chunks += [("PP", [(rng.choice(LEXICON["IN"]), "IN")]), ("NP", _noun_phrase(rng, allow_pronoun=False))]
    if rng.rand() < 0.3:
        chunks.append(("ADVP", [(rng.choice(LEXICON["RB"]), "RB")]))
    return chunks


def make_sentences(n, random_state=0):
    """n sentences: lists of (word, POS) tokens, and their chunk tags."""
    rng = np.random.RandomState(random_state)
    X, y = [], []
    for _ in range(n):
        chunks = _clause(rng)
        if rng.rand() < 0.3:
            chunks += [("O", [("and", "CC")])] + _clause(rng)
        chunks.append(("O", [(".", ".")]))
        tokens, tags = [], []
        for kind, words in chunks:
            for k, (word, pos) in enumerate(words):
                tokens.append((str(word), str(pos)))
                tags.append("O" if kind == "O" else ("B-" if k == 0 else "I-") + kind)
        X.append(tokens)
        y.append(tags)
    return X, y


def main():
    X, y = make_sentences(1_000, random_state=0)
    Xt, yt = make_sentences(1_000, random_state=1)
    print(f"{len(X)} training sentences ({sum(map(len, X))} tokens), {len(Xt)} test sentences; e.g.")
    print("   " + " ".join(f"{w}/{t}" for (w, _), t in zip(X[0], y[0])))

    methods = {
        "LaRank greedy, 1 pass": lm.SequenceLabeler("larank_greedy", C=0.1, random_state=0),
        "LaRank exact, 1 pass": lm.SequenceLabeler("larank_exact", C=0.1, random_state=0),
        "LaRank greedy, until gap": lm.SequenceLabeler("larank_greedy", C=0.1, until_gap=True, random_state=0),
        "LaRank exact, until gap": lm.SequenceLabeler("larank_exact", C=0.1, until_gap=True, random_state=0),
        "PA greedy, 1 pass": lm.SequenceLabeler("pa", C=0.1, random_state=0),
        "perceptron greedy, 1 pass": lm.SequenceLabeler("perceptron", random_state=0),
    }
    scores = {}
    for name, tagger in methods.items():
        tagger.fit(X, y)
        pred = tagger.predict(Xt)
        scores[name] = (lm.token_accuracy(yt, pred), lm.chunk_f1(yt, pred))
        dual = "" if np.isnan(tagger.dual_) else f", dual {tagger.dual_:.1f}"
        print(f"{name:>26}: token accuracy {100 * scores[name][0]:.2f}%, chunk F1 {100 * scores[name][1]:.2f}"
              f"{dual}, {len(tagger.dual_per_epoch_)} pass(es), {tagger.fit_time_:.2f} s")

    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11.5, 4.5), gridspec_kw={"width_ratios": [1, 1.2]})
    for name, marker in (("LaRank greedy, until gap", "o"), ("LaRank exact, until gap", "s")):
        tagger = methods[name]
        passes = np.arange(1, len(tagger.dual_per_epoch_) + 1)
        line, = ax1.plot(passes, tagger.dual_per_epoch_, marker=marker, ls="-", label=name.replace(", until gap", "") + ": dual")
        ax1.plot(passes, np.asarray(tagger.dual_per_epoch_) + np.asarray(tagger.gap_per_epoch_), marker=marker, mfc="none",
                 ls=":", color=line.get_color(), label=name.replace(", until gap", "") + ": dual + duality gap")
    ax1.set_xlabel("pass over the training sentences")
    ax1.set_ylabel("objective")
    ax1.set_title("LaRank until the duality gap < C (C = 0.1)")
    ax1.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax1.grid(alpha=0.3)
    ax1.legend(fontsize=8)

    names = list(scores)
    pos = np.arange(len(names))
    ax2.barh(pos - 0.2, [100 * scores[n][0] for n in names], 0.4, label="token accuracy")
    ax2.barh(pos + 0.2, [100 * scores[n][1] for n in names], 0.4, label="chunk F1")
    for p, n in zip(pos, names):
        ax2.text(100 * scores[n][0] + 0.1, p - 0.2, f"{100 * scores[n][0]:.1f}", va="center", fontsize=7)
        ax2.text(100 * scores[n][1] + 0.1, p + 0.2, f"{100 * scores[n][1]:.1f}", va="center", fontsize=7)
    ax2.set_yticks(pos)
    ax2.set_yticklabels(names, fontsize=8)
    ax2.invert_yaxis()
    low = min(min(s) for s in scores.values())
    ax2.set_xlim(100 * low - 3, 100.5)
    ax2.set_xlabel("%  (test sentences)")
    ax2.legend(fontsize=9, ncol=2, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False,
               title="test scores", title_fontsize=11)
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
