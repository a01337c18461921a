"""Scores of predicted label sequences: token accuracy, and chunk precision, recall and F1 by the
conlleval rules (B-/I-/O tags)."""


__all__ = ["chunk_f1", "chunk_scores", "token_accuracy"]


def token_accuracy(y_true, y_pred):
    """Fraction of tokens labelled correctly, over lists of label sequences.

    Parameters
    ----------
    y_true : list of sequences
        The true label sequences.
    y_pred : list of sequences
        The predicted ones, of the same lengths.

    Returns
    -------
    float
        Correct tokens over all tokens.

    See Also
    --------
    chunk_f1 : The chunk F1 of B-/I-/O tags.

    Examples
    --------
    >>> from largemargin import token_accuracy
    >>> token_accuracy([["a", "b"], ["c"]], [["a", "c"], ["c"]])
    0.6666666666666666
    """
    _check_aligned(y_true, y_pred)
    total = sum(len(s) for s in y_true)
    if total == 0:
        raise ValueError("no tokens to score")
    return sum(a == b for s, p in zip(y_true, y_pred) for a, b in zip(s, p)) / total


def _check_aligned(y_true, y_pred):
    if len(y_true) != len(y_pred):
        raise ValueError(f"{len(y_true)} true sequences but {len(y_pred)} predicted ones")
    for i, (s, p) in enumerate(zip(y_true, y_pred)):
        if len(s) != len(p):
            raise ValueError(f"sequence {i}: {len(s)} true labels but {len(p)} predicted ones")


def _split_tag(tag):
    if tag == "O":
        return "O", ""
    if isinstance(tag, str) and len(tag) > 2 and tag[1] == "-" and tag[0] in "BI":
        return tag[0], tag[2:]
    raise ValueError(f"chunk tags must be 'O', 'B-TYPE' or 'I-TYPE', got {tag!r}")


def _chunks(tags):
    """Chunks (start, end, type) of one sequence by the conlleval rules for B-/I-/O tags: a chunk
    starts at B-, or at I- after O or after a tag of another type; it ends before O, B- or a tag
    of another type."""
    out, start, ctype = [], None, None
    for t, tag in enumerate(tags):
        prefix, typ = _split_tag(tag)
        if start is not None and (prefix in ("O", "B") or typ != ctype):
            out.append((start, t, ctype))
            start = None
        if prefix != "O" and start is None:
            start, ctype = t, typ
    if start is not None:
        out.append((start, len(tags), ctype))
    return out


def chunk_scores(y_true, y_pred):
    """Chunk precision, recall and F1 by the conlleval rules, with the chunk counts.

    Tags are ``"O"``, ``"B-TYPE"`` or ``"I-TYPE"``. A chunk starts at B-, or at I- after O or after
    a tag of another type; it ends before O, B- or a tag of another type. A predicted chunk is
    correct when a true chunk has the same start, end and type.

    Parameters
    ----------
    y_true : list of sequences
        The true tag sequences.
    y_pred : list of sequences
        The predicted ones, of the same lengths.

    Returns
    -------
    dict
        ``"precision"``, ``"recall"`` and ``"f1"`` (fractions; 0.0 when undefined), and the
        counts ``"correct"``, ``"guessed"`` (predicted chunks) and ``"gold"`` (true chunks).

    See Also
    --------
    chunk_f1 : The F1 alone.

    Examples
    --------
    >>> from largemargin import chunk_scores
    >>> s = chunk_scores([["B-NP", "I-NP", "O", "B-VP"]], [["B-NP", "I-NP", "O", "B-NP"]])
    >>> s["f1"], s["correct"], s["gold"]
    (0.5, 1, 2)
    """
    _check_aligned(y_true, y_pred)
    correct = guessed = gold = 0
    for s, p in zip(y_true, y_pred):
        g, q = set(_chunks(s)), set(_chunks(p))
        correct += len(g & q)
        guessed += len(q)
        gold += len(g)
    precision = correct / guessed if guessed else 0.0
    recall = correct / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1, "correct": correct, "guessed": guessed, "gold": gold}


def chunk_f1(y_true, y_pred):
    """Chunk F1 over lists of B-/I-/O tag sequences, by the conlleval rules.

    Parameters
    ----------
    y_true : list of sequences
        The true tag sequences.
    y_pred : list of sequences
        The predicted ones, of the same lengths.

    Returns
    -------
    float
        The F1, a fraction (conlleval prints it times 100).

    See Also
    --------
    chunk_scores : Precision, recall and the counts too.
    token_accuracy : The fraction of tokens labelled correctly.

    Examples
    --------
    >>> from largemargin import chunk_f1
    >>> chunk_f1([["B-NP", "I-NP", "O"]], [["B-NP", "I-NP", "O"]])
    1.0
    """
    return chunk_scores(y_true, y_pred)["f1"]
