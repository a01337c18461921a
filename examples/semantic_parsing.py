"""
Semantic parsing from ambiguous supervision: learning curves of OSPAS (SemanticParser)
======================================================================================

A semantic parser maps a sentence to its meaning representations (MRs), here relations with
their arguments: "the mother gives the cat the milk" means ``give:REL mother:A0 milk:A1
cat:A2``, an MR written as a tuple of ``(symbol, role)`` pairs. Under *ambiguous supervision*
no training sentence comes with its MR: it comes with a *bag* of candidate MRs, the events of the
scene the sentence was said in, and which of them the sentence describes is never said.

``make_ambighouse`` generates such a corpus (a re-creation of the simulated house of chapter 6.2
of Bordes' thesis, whose own corpus is not available): at ambiguity level n each bag holds the
correct MR and 0 to 2n other events of the same scene (n on average). It also returns the
correct MRs and the word-symbol alignment of each sentence, used here for evaluation only.

``SemanticParser`` (OSPAS) labels each word with a symbol or ``"-"``, learning online from the
bags, then tags the arguments of each relation word with their roles. The script trains one
parser per ambiguity level (0, 2 and 4) on a stream of 1,500 sentences with ``partial_fit``,
100 sentences at a time, with the thesis' C = 0.1, and after each chunk measures the *alignment
error* on 300 test sentences: the fraction of sentences with a word labelled with a wrong symbol
(the thesis' Figure 6.3, at a smaller scale; ``benches/semantic_parsing.py`` runs the full one).
Online learning is not monotone: a single step can mislabel a frequent word for a while, which
shows as a bump in a curve. Run it with::

    python examples/semantic_parsing.py

The plot shows the three learning curves; the script then prints the MRs the parser trained at
ambiguity 4 gives for two test sentences (the first one, and the first one it gets wrong if any),
beside the correct ones.
"""

import matplotlib.pyplot as plt

import largemargin as lm

N_TRAIN, N_TEST, STEP = 1_500, 300, 100


def show(mr):
    """An MR as ``symbol:ROLE`` words, e.g. ``take:REL mother:A0 ball:A1``."""
    return " ".join(f"{symbol}:{role}" for symbol, role in mr)


def learning_curve(ambiguity):
    sentences, bags, true_mrs, alignments = lm.make_ambighouse(N_TRAIN + N_TEST, ambiguity=ambiguity,
                                                               random_state=0)
    test, test_mrs, test_alignments = sentences[N_TRAIN:], true_mrs[N_TRAIN:], alignments[N_TRAIN:]
    parser = lm.SemanticParser(C=0.1, random_state=0)
    seen, errors = [], []
    for start in range(0, N_TRAIN, STEP):  # a stream: each chunk is seen once
        parser.partial_fit(sentences[start:start + STEP], bags[start:start + STEP])
        seen.append(parser.n_sentences_seen_)
        errors.append(lm.alignment_error(test_alignments, parser.predict_alignment(test)))
    f1 = lm.mr_f1(test_mrs, parser.predict(test))
    print(f"ambiguity {ambiguity}: {sum(map(len, bags[:N_TRAIN])) / N_TRAIN:.1f} candidate MRs a bag; "
          f"after {parser.n_sentences_seen_} sentences, test alignment error {100 * errors[-1]:.1f}%, "
          f"MR F1 {100 * f1:.1f}")
    return parser, seen, errors, (test, test_mrs)


def main():
    sentences, bags, _, _ = lm.make_ambighouse(3, ambiguity=2, random_state=0)
    print("A training sentence and its bag of candidate MRs (ambiguity 2):")
    print("   ", " ".join(sentences[2]))
    for mr in bags[2]:
        print("       ", show(mr))
    print()

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for ambiguity, marker in ((0, "o"), (2, "s"), (4, "^")):
        parser, seen, errors, (test, test_mrs) = learning_curve(ambiguity)
        ax.plot(seen, [100 * e for e in errors], marker=marker, ms=4, label=f"ambiguity {ambiguity}")
    ax.set_xlabel("training sentences seen (partial_fit, 100 at a time)")
    ax.set_ylabel("test alignment error (%)")
    ax.set_title("SemanticParser on AMBIGHOUSE (C = 0.1, one pass)")
    ax.set_ylim(-2, 102)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()

    # the first test sentence, and the first one the parser gets wrong (if any)
    pred_mrs = parser.predict(test)
    wrong = [i for i, (pred, true) in enumerate(zip(pred_mrs, test_mrs))
             if sorted(map(frozenset, pred)) != sorted(map(frozenset, true))]
    picks = [0, wrong[0] if wrong and wrong[0] > 0 else 1]
    second = "the first one it gets wrong" if wrong else "the second one"
    print(f"\nThe parser trained at ambiguity 4 gets the MRs of {len(wrong)} of the {len(test)} test sentences wrong. "
          f"The first test sentence, and {second}:")
    for i in picks:
        sentence, pred, true = test[i], pred_mrs[i], test_mrs[i]
        print("   ", " ".join(sentence))
        print("        predicted:", "; ".join(show(mr) for mr in pred) or "(no MR)")
        print("        correct:  ", "; ".join(show(mr) for mr in true))
    plt.show()


if __name__ == "__main__":
    main()
