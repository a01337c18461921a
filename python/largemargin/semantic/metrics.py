"""Scores of a semantic parser, as in chapter 6.2 of Bordes' thesis (2010): the precision, recall
and F1 of its meaning representations (MRs), and the fraction of sentences whose word-symbol
alignment it gets wrong."""

from collections import Counter

__all__ = ["alignment_error", "mr_f1", "mr_scores"]


def _why_invalid(mr):
    """Why `mr` is not a valid MR (a non-empty sequence of (symbol, role) pairs of strings, exactly
    one role "REL", no role twice, no "-"), or None when it is one."""
    if isinstance(mr, (str, bytes)):
        return "an MR is a sequence of (symbol, role) pairs, not a string"
    try:
        pairs = list(mr)
    except TypeError:
        return f"an MR is a sequence of (symbol, role) pairs, not {type(mr).__name__}"
    if not pairs:
        return "it has no pairs"
    roles = []
    for pair in pairs:
        if isinstance(pair, (str, bytes)) or not hasattr(pair, "__len__") or len(pair) != 2 \
                or not all(isinstance(v, str) for v in pair):
            return f"{pair!r:.40} is not a (symbol, role) pair of strings"
        if "-" in pair:
            return "'-' is the empty symbol and role, not one of an MR's"
        roles.append(pair[1])
    rels = roles.count("REL")
    if rels != 1:
        return f"it has {rels} pairs of role 'REL', not one"
    twice = sorted({r for r in roles if roles.count(r) > 1})
    if twice:
        return f"role {twice[0]!r} is given twice"
    return None


def _canonical(mr):
    """The MR as a frozenset of its (symbol, role) pairs, or None when it is not a valid MR."""
    if _why_invalid(mr) is not None:
        return None
    return frozenset(tuple(pair) for pair in mr)


def _looks_like_one_mr(entry):
    """Whether a sentence's list of MRs is itself a single MR (its items are (symbol, role) pairs)."""
    return bool(entry) and all(
        isinstance(p, (tuple, list)) and len(p) == 2 and all(isinstance(v, str) for v in p) for p in entry)


def _sentences(name, value):
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        raise TypeError(f"{name} must be a list with one entry per sentence, got {type(value).__name__}")
    return value


def _entry(name, i, entry):
    if isinstance(entry, (str, bytes)) or not hasattr(entry, "__iter__"):
        raise TypeError(f"{name}[{i}] must be a list of MRs, got {type(entry).__name__}")
    entry = list(entry)
    if _looks_like_one_mr(entry):
        raise TypeError(f"{name}[{i}] is one MR, not a list of MRs: wrap it in a list")
    return entry


def mr_scores(true_mrs, pred_mrs):
    """The precision, recall and F1 of predicted meaning representations.

    MRs are compared as sets of (symbol, role) pairs, so the order of the pairs does not matter. In
    each sentence the correct predictions are as many as the size of the multiset intersection of the
    true and the valid predicted MRs (an MR predicted twice but true once is correct once). A valid
    MR is a non-empty sequence of (symbol, role) pairs of strings with exactly one "REL" role, no
    role twice and no "-" (the empty symbol and role); invalid predictions count nowhere. Precision is the number of correct predictions
    over the number of valid ones (0.0 when none is valid), recall the number of correct
    predictions over the number of true MRs, and F1 their harmonic mean (0.0 when both are 0), as in
    Kate and Mooney (2007) and Bordes (2010, section 6.2.2).

    Parameters
    ----------
    true_mrs : list of list of MR
        Each sentence's correct MRs; an MR is a sequence of (symbol, role) pairs, e.g.
        ``(("eat", "REL"), ("dog", "A0"), ("bone", "A1"))``. Each must be valid.
    pred_mrs : list of list of MR
        Each sentence's predicted MRs, as many sentences as in `true_mrs`.

    Returns
    -------
    precision : float
    recall : float
    f1 : float

    Raises
    ------
    ValueError
        If the two lists differ in length, if there are no true MRs at all, or if a true MR is not
        valid.

    See Also
    --------
    mr_f1 : The F1 alone.
    alignment_error : The fraction of sentences with a wrong word-symbol alignment.

    Examples
    --------
    >>> from largemargin.semantic.metrics import mr_scores
    >>> true = [[(("eat", "REL"), ("dog", "A0"), ("bone", "A1"))],
    ...         [(("sleep", "REL"), ("cat", "A0")), (("see", "REL"), ("dog", "A0"), ("cat", "A1"))]]
    >>> pred = [[(("bone", "A1"), ("eat", "REL"), ("dog", "A0"))],  # correct: the order does not matter
    ...         [(("sleep", "REL"), ("dog", "A0")), (("cat", "A0"),)]]  # wrong, and invalid (no REL)
    >>> mr_scores(true, pred)
    (0.5, 0.3333333333333333, 0.4)
    """
    _sentences("true_mrs", true_mrs)
    _sentences("pred_mrs", pred_mrs)
    if len(true_mrs) != len(pred_mrs):
        raise ValueError(f"true_mrs has {len(true_mrs)} sentences but pred_mrs has {len(pred_mrs)}")
    n_true = n_valid = n_correct = 0
    for i, (true, pred) in enumerate(zip(true_mrs, pred_mrs)):
        gold = Counter()
        for j, mr in enumerate(_entry("true_mrs", i, true)):
            why = _why_invalid(mr)
            if why is not None:
                raise ValueError(f"true_mrs[{i}][{j}] is not a valid MR: {why}: {mr!r:.80}")
            gold[_canonical(mr)] += 1
        guessed = Counter(form for form in map(_canonical, _entry("pred_mrs", i, pred)) if form is not None)
        n_true += sum(gold.values())
        n_valid += sum(guessed.values())
        n_correct += sum((gold & guessed).values())
    if n_true == 0:
        raise ValueError("true_mrs holds no MR: recall is undefined")
    precision = n_correct / n_valid if n_valid else 0.0
    recall = n_correct / n_true
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return float(precision), float(recall), float(f1)


def mr_f1(true_mrs, pred_mrs):
    """The F1 of predicted meaning representations: `mr_scores`' third value.

    Parameters
    ----------
    true_mrs : list of list of MR
        Each sentence's correct MRs, sequences of (symbol, role) pairs.
    pred_mrs : list of list of MR
        Each sentence's predicted MRs.

    Returns
    -------
    float
        The harmonic mean of the precision and the recall (0.0 when both are 0).

    See Also
    --------
    mr_scores : The precision and recall too, and how they are counted.

    Examples
    --------
    >>> from largemargin.semantic.metrics import mr_f1
    >>> mr = (("take", "REL"), ("mother", "A0"), ("ball", "A1"))
    >>> mr_f1([[mr]], [[mr, (("take", "REL"), ("father", "A0"), ("ball", "A1"))]])
    0.6666666666666666
    """
    return mr_scores(true_mrs, pred_mrs)[2]


def alignment_error(true_alignments, pred_alignments):
    """The fraction of sentences whose predicted symbol sequence is wrong anywhere.

    A sentence counts as an error when the symbol predicted for any of its words differs from the
    true one ("-" for a word that expresses no symbol): the thesis' "percentage of sentences for
    which the predicted symbol sequence is either incorrect or misaligned", as a fraction.

    Parameters
    ----------
    true_alignments : list of list of str
        Each sentence's true symbols, one per token.
    pred_alignments : list of list of str
        Each sentence's predicted symbols, as many sentences and tokens as in `true_alignments`.

    Returns
    -------
    float
        In [0, 1].

    Raises
    ------
    ValueError
        If there are no sentences, or the numbers of sentences or of a sentence's tokens differ.

    See Also
    --------
    mr_scores : Scores of the MRs built on the alignment.

    Examples
    --------
    >>> from largemargin.semantic.metrics import alignment_error
    >>> true = [["mother", "take", "-", "ball"], ["-", "dog", "sleep"]]
    >>> alignment_error(true, [["mother", "take", "-", "ball"], ["-", "sleep", "dog"]])
    0.5
    """
    _sentences("true_alignments", true_alignments)
    _sentences("pred_alignments", pred_alignments)
    if len(true_alignments) != len(pred_alignments):
        raise ValueError(f"true_alignments has {len(true_alignments)} sentences but pred_alignments has "
                         f"{len(pred_alignments)}")
    if len(true_alignments) == 0:
        raise ValueError("there are no sentences: the alignment error is undefined")
    wrong = 0
    for i, (true, pred) in enumerate(zip(true_alignments, pred_alignments)):
        for name, seq in (("true_alignments", true), ("pred_alignments", pred)):
            if isinstance(seq, (str, bytes)) or not hasattr(seq, "__len__"):
                raise TypeError(f"{name}[{i}] must be a list of symbols, one per token, got {type(seq).__name__}")
        if len(true) != len(pred):
            raise ValueError(f"sentence {i}: the true alignment has {len(true)} tokens but the predicted one "
                             f"has {len(pred)}")
        if any(t != p for t, p in zip(true, pred)):
            wrong += 1
    return wrong / len(true_alignments)
