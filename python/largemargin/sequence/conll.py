"""Reading CoNLL-2000 style files: one token a line, the label last, a blank line between
sentences."""

import gzip

__all__ = ["read_conll"]


def read_conll(path):
    """Read a CoNLL-2000 style file of labelled token sequences.

    The file (plain or .gz, UTF-8) holds one token a line, whitespace-separated fields with the
    label last, and a blank line between sentences.

    Parameters
    ----------
    path : str or path-like
        The file; a name ending in ``.gz`` is read through gzip.

    Returns
    -------
    sequences : list of list of tuple
        Each token a tuple of its fields but the label (for CoNLL-2000: word, POS).
    labels : list of list of str
        Each token's label.

    See Also
    --------
    SequenceLabeler : Learns from such sequences.
    WindowFeatures : The default features of such tokens.

    Examples
    --------
    >>> import os, tempfile
    >>> from largemargin import read_conll
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("He PRP B-NP\\nran VBD B-VP\\n\\nIt PRP B-NP\\n")
    >>> sequences, labels = read_conll(path)
    >>> sequences
    [[('He', 'PRP'), ('ran', 'VBD')], [('It', 'PRP')]]
    >>> labels
    [['B-NP', 'B-VP'], ['B-NP']]
    """
    opener = gzip.open if str(path).endswith(".gz") else open
    sequences, labels, toks, tags = [], [], [], []
    with opener(path, "rt", encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            parts = line.split()
            if not parts:
                if toks:
                    sequences.append(toks)
                    labels.append(tags)
                    toks, tags = [], []
                continue
            if len(parts) < 2:
                raise ValueError(f"{path}, line {n}: expected at least a token and a label, got {line.strip()!r}")
            toks.append(tuple(parts[:-1]))
            tags.append(parts[-1])
    if toks:
        sequences.append(toks)
        labels.append(tags)
    return sequences, labels
