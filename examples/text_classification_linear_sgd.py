"""
Text classification with a linear SVM trained by stochastic gradient (LinearSGD)
================================================================================

The script generates a small corpus: four topics, each a distribution over a vocabulary of
made-up words (a Zipf background shared by all topics, plus a few hundred words each topic uses
more often, some of them shared with another topic), 8,000 documents of 20 to 100 words. scikit-
learn's ``CountVectorizer`` and ``TfidfTransformer`` turn them into sparse tf-idf rows.

``LinearSGD`` (one-vs-rest, squared hinge, alpha=1e-4, no bias, as in the SGD-QN papers) is trained one pass at a time with
``partial_fit`` (each call continues the optimiser where it stopped) for three of its algorithms,
ASGD (the default), SGD-QN and SVMSGD2; after each pass the script records the primal objective
of the model (``objective_``) and its test error. scikit-learn's ``SGDClassifier`` (trained pass
by pass the same way) and ``LinearSVC`` (the optimum of the same objective, ``C = 1 / (2 n
alpha)``) are the references. Run it with::

    python examples/text_classification_linear_sgd.py

The plot shows objective and test error per pass.
"""

import time

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfTransformer
from sklearn.linear_model import SGDClassifier
from sklearn.pipeline import make_pipeline
from sklearn.svm import LinearSVC

import largemargin as lm

TOPICS = ["sports", "politics", "science", "cooking"]
ALPHA = 1e-4
PASSES = 10


def make_corpus(n_docs, vocabulary_size=5_000, random_state=0):
    """Documents drawn word by word from their topic's distribution over the vocabulary."""
    rng = np.random.RandomState(random_state)
    syllables = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "de", "gu", "ba", "zo", "fe", "ly"]
    words = sorted({"".join(rng.choice(syllables, rng.randint(2, 5))) for _ in range(3 * vocabulary_size)})
    words = np.array(words[:vocabulary_size])
    rng.shuffle(words)
    background = 1.0 / np.arange(1, len(words) + 1) ** 1.1  # Zipf: a few very common words
    topics = []
    for k in range(len(TOPICS)):
        p = background.copy()
        own = rng.choice(np.arange(100, len(words)), 300, replace=False)  # the topic's own words
        p[own] += rng.gamma(0.5, 0.003, len(own))
        shared = rng.choice(np.arange(100, len(words)), 100, replace=False)  # words topics overlap on
        p[shared] += 0.0005
        topics.append(p / p.sum())
    rng = np.random.RandomState(random_state + 1)
    labels = rng.randint(len(TOPICS), size=n_docs)
    docs = [" ".join(rng.choice(words, rng.randint(20, 101), p=topics[k])) for k in labels]
    return docs, np.array(TOPICS)[labels]


def main():
    t = time.perf_counter()
    docs, y = make_corpus(8_000)
    vectorize = make_pipeline(CountVectorizer(), TfidfTransformer())
    X = vectorize.fit_transform(docs[:6_000])  # scipy CSR, one row per document
    Xt = vectorize.transform(docs[6_000:])
    y, yt = y[:6_000], y[6_000:]
    print(f"{len(docs)} documents, {X.shape[1]} distinct words, {X.nnz / X.shape[0]:.0f} nonzeros a row "
          f"({time.perf_counter() - t:.1f} s to generate and vectorize)")

    curves = {}
    for algorithm in ("asgd", "sgdqn", "svmsgd2"):
        sgd = lm.LinearSGD(algorithm=algorithm, loss="squared_hinge", alpha=ALPHA, fit_intercept=False,
                           random_state=0)
        objective, error = [], []
        for _ in range(PASSES):
            sgd.partial_fit(X, y, classes=TOPICS)  # one pass; t0 is chosen by the first call
            objective.append(sgd.objective_.mean())  # the primal of each one-vs-rest problem, averaged
            error.append(np.mean(sgd.predict(Xt) != yt))
        curves[algorithm] = (objective, error)
        print(f"LinearSGD({algorithm!r}): test error after 1 / {PASSES} passes {100 * error[0]:.2f}% / "
              f"{100 * error[-1]:.2f}%, objective {objective[-1]:.5f}, t0 chosen {sgd.t0_:g}")

    # scikit-learn's SGD on the same objective (its alpha multiplies |w|^2 / 2 as ours does)
    sk = SGDClassifier(loss="squared_hinge", alpha=ALPHA, fit_intercept=False, random_state=0)
    sk_error = []
    for _ in range(PASSES):
        sk.partial_fit(X, y, classes=TOPICS)
        sk_error.append(np.mean(sk.predict(Xt) != yt))
    print(f"SGDClassifier: test error after 1 / {PASSES} passes {100 * sk_error[0]:.2f}% / {100 * sk_error[-1]:.2f}%")

    t = time.perf_counter()
    svc = LinearSVC(C=1 / (2 * X.shape[0] * ALPHA), fit_intercept=False, tol=1e-8, max_iter=100_000).fit(X, y)
    svc_error = np.mean(svc.predict(Xt) != yt)
    # its objective in LinearSGD's scale, per one-vs-rest problem, for the plot's reference line
    optimum = np.mean([ALPHA / 2 * (w @ w) + 0.5 * np.mean(np.maximum(0, 1 - np.where(y == c, 1, -1) * (X @ w)) ** 2)
                       for c, w in zip(svc.classes_, svc.coef_)])
    print(f"LinearSVC (to tol 1e-8): test error {100 * svc_error:.2f}%, objective {optimum:.5f} "
          f"({time.perf_counter() - t:.1f} s)")

    passes = np.arange(1, PASSES + 1)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.3))
    for name, (objective, error) in curves.items():
        ax1.semilogy(passes, np.maximum(np.array(objective) - optimum, 1e-7), "o-", ms=4, label=f"LinearSGD {name}")
        ax2.plot(passes, 100 * np.array(error), "o-", ms=4, label=f"LinearSGD {name}")
    ax2.plot(passes, 100 * np.array(sk_error), "s--", ms=4, color="C7", label="sklearn SGDClassifier")
    ax2.axhline(100 * svc_error, color="k", ls=":", label="sklearn LinearSVC (optimum)")
    ax1.set_xlabel("passes over the data")
    ax1.set_ylabel("primal objective - LinearSVC's")
    ax1.set_title(f"Convergence (squared hinge, alpha={ALPHA:g})")
    ax2.set_xlabel("passes over the data")
    ax2.set_ylabel("test error (%)")
    ax2.set_title("Test error, 4 topics, 6,000 training documents")
    for ax in (ax1, ax2):
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    fig.tight_layout()
    plt.show()


if __name__ == "__main__":
    main()
