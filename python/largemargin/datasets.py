"""Datasets: the LIBSVM/svmlight reader (whole files, or chunk by chunk in bounded memory; .gz/.bz2
handled here), the small real dataset the package ships (UCI Adult in Platt's 123-feature
encoding, the LaSVM papers' copy), and seeded generators of large problems like those the papers
used (RCV1-like sparse text, ALPHA/DELTA-like dense badly conditioned data), and the semantic
parsing corpora of the thesis' chapter 6 (`make_ambighouse`, `make_ambigchild`, defined in
`largemargin.semantic.corpora`)."""

import bz2
import gzip
import numbers
import zlib
from importlib import resources

import numpy as np
import scipy.sparse as sp

from . import _native
from .semantic.corpora import make_ambigchild, make_ambighouse  # noqa: F401  (exported here)

_CHUNK = 1 << 20


def _open(path):
    path = str(path)
    if path.endswith(".bz2"):
        return bz2.open(path, "rb")
    if path.endswith(".gz"):
        return gzip.open(path, "rb")
    return open(path, "rb")


def _feed(reader, f, rows_wanted=None):
    """Feeds the reader from file f until it holds `rows_wanted` rows (None: to the end); returns
    whether the file has more. A compressed stream that cannot be decoded is a ValueError saying
    how far it was read (the caller adds the file's name)."""
    while rows_wanted is None or reader.rows() < rows_wanted:
        try:
            block = f.read(_CHUNK)
        except (EOFError, OSError, zlib.error) as e:
            if isinstance(e, OSError) and not isinstance(e, gzip.BadGzipFile) and e.errno is not None:
                raise  # a real I/O failure (it names the file), not undecodable data
            where = f" after line {reader.lines()}" if reader.lines() else ""
            raise ValueError(f"the compressed data is corrupt or truncated{where} ({e or type(e).__name__})") from None
        if not block:
            return False
        reader.feed(block)
    return True


def _base(zero_based):
    if isinstance(zero_based, str) and zero_based == "auto":
        return None
    if isinstance(zero_based, (bool, np.bool_)):
        return bool(zero_based)
    raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")


def _check_width(n_features):
    if n_features is not None and not (isinstance(n_features, numbers.Integral) and n_features >= 0):
        raise ValueError(f"n_features must be a non-negative integer, got {n_features!r}")


def read_files(paths, n_features, zero_based, dtype):
    """Reads LIBSVM files with one index base for all of them (with "auto": zero-based if any of
    them uses index 0) and one width. Returns the (X, y) pairs, the base used and the width each
    file needs on its own."""
    _check_width(n_features)
    base = _base(zero_based)
    readers = []
    for path in paths:
        reader = _native.LibsvmReader()
        try:
            with _open(path) as f:
                _feed(reader, f)
            reader.end_input()
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
        readers.append(reader)
    if base is None:
        base = any(r.uses_index_zero() for r in readers)
    parts = []
    for path, reader in zip(paths, readers):
        try:
            parts.append(reader.finish(base))
        except ValueError as e:
            raise ValueError(f"{path}: {e}") from None
    width = max([cols for *_, cols in parts], default=0)
    if n_features is not None:
        for path, (*_, cols) in zip(paths, parts):
            if n_features < cols:
                raise ValueError(f"{path}: feature index {cols - 1 + (not base)} does not fit n_features={n_features}")
        width = n_features
    out = []
    for labels, indptr, indices, data, _ in parts:
        X = sp.csr_matrix((data.astype(dtype, copy=False), indices, indptr), shape=(len(labels), width))
        out.append((X, labels))
    return out, base, [cols for *_, cols in parts]


def load_libsvm(path, n_features=None, zero_based="auto", dtype=np.float64):
    """Read a LIBSVM/svmlight file (plain, .gz or .bz2) into (X, y).

    Files that go together (training and test data) must be read with the same index base: read
    them with `load_libsvm_files`, or state the base. ``zero_based="auto"`` cannot tell a
    zero-based file that never uses index 0 from a one-based one: when you know the base, state it
    (and save models with it). A malformed line raises ValueError naming the file and the line.

    Parameters
    ----------
    path : str or path-like
        The file; a name ending in ``.gz`` or ``.bz2`` is decompressed.
    n_features : int, default=None
        Widens X to that many columns (test files often omit the last features); None: as many
        as the file needs.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0; "auto": zero-based if any feature index 0 occurs.
    dtype : dtype, default=np.float64
        The type of X's values.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The features.
    y : ndarray of shape (n_samples,)
        The labels or targets, as float64.

    See Also
    --------
    load_libsvm_files : Several files with one base and one width.
    largemargin.datasets.iter_libsvm : Read a file chunk by chunk.

    Examples
    --------
    >>> import os, tempfile
    >>> from largemargin import load_libsvm
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:0.5 3:1\\n-1 2:2\\n")
    >>> X, y = load_libsvm(path)
    >>> X.toarray()
    array([[0.5, 0. , 1. ],
           [0. , 2. , 0. ]])
    >>> y
    array([ 1., -1.])
    """
    [(X, y)], _, _ = read_files([path], n_features, zero_based, dtype)
    return X, y


def load_libsvm_files(files, n_features=None, zero_based="auto", dtype=np.float64):
    """Read several LIBSVM/svmlight files that go together with one index base and one width.

    Training and test data, say: returns ``[X1, y1, X2, y2, ...]``, as scikit-learn's
    ``load_svmlight_files``. With ``zero_based="auto"`` the files are zero-based if any of them
    uses feature index 0, so a test file whose rows never mention feature 0 is still read as its
    training file is.

    Parameters
    ----------
    files : list of str or path-like
        The files (plain, .gz or .bz2); a single path is refused (use `load_libsvm`).
    n_features : int, default=None
        The columns of every X; None: as many as the widest file needs.
    zero_based : bool or "auto", default="auto"
        Whether feature indices start at 0, for all the files.
    dtype : dtype, default=np.float64
        The type of the X's values.

    Returns
    -------
    list
        ``[X1, y1, X2, y2, ...]``: for each file a CSR matrix of n_features columns and a float64
        array of labels.

    See Also
    --------
    load_libsvm : One file.

    Examples
    --------
    >>> import os, tempfile
    >>> from largemargin import load_libsvm_files
    >>> folder = tempfile.mkdtemp()
    >>> with open(os.path.join(folder, "train.txt"), "w") as f:
    ...     _ = f.write("+1 1:0.5 3:1\\n-1 2:2\\n")
    >>> with open(os.path.join(folder, "test.txt"), "w") as f:
    ...     _ = f.write("-1 1:1\\n")
    >>> X_train, y_train, X_test, y_test = load_libsvm_files(
    ...     [os.path.join(folder, "train.txt"), os.path.join(folder, "test.txt")])
    >>> X_train.shape, X_test.shape
    ((2, 3), (1, 3))
    """
    if isinstance(files, (str, bytes)) or hasattr(files, "__fspath__"):
        raise ValueError("files must be a list of paths; use load_libsvm for one file")
    pairs, _, _ = read_files(list(files), n_features, zero_based, dtype)
    return [part for pair in pairs for part in pair]


def _bundled(name):
    return resources.files("largemargin").joinpath("data", name)


def load_adult(subset="train", dtype=np.float64):
    """UCI Adult as the LaSVM papers used it, bundled with the package.

    32,561 training and 16,281 test examples in Platt's encoding: 123 binary features, labels
    -1/+1.

    Parameters
    ----------
    subset : {"train", "test"}, default="train"
        Which part to load.
    dtype : dtype, default=np.float64
        The type of X's values.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, 123)
        The features.
    y : ndarray of shape (n_samples,)
        The labels, -1.0 or +1.0.

    See Also
    --------
    make_forest_like : A generated problem of any size.

    Examples
    --------
    >>> from largemargin import load_adult
    >>> X, y = load_adult("test")
    >>> X.shape
    (16281, 123)
    """
    if subset not in ("train", "test"):
        raise ValueError(f"subset must be 'train' or 'test', got {subset!r}")
    fname = "adult.trn.bz2" if subset == "train" else "adult.tst.bz2"
    with resources.as_file(_bundled(fname)) as path:
        return load_libsvm(path, n_features=123, zero_based=True, dtype=dtype)


def iter_libsvm(path, n_features, chunk_rows=100_000, zero_based=False, dtype=np.float64):
    """Read a LIBSVM/svmlight file chunk by chunk, in bounded memory.

    Holds one chunk in memory at a time: feed each to ``partial_fit``. The index base must be
    given (``zero_based``): it cannot be guessed before the end of the file.

    Parameters
    ----------
    path : str or path-like
        The file (plain, .gz or .bz2).
    n_features : int
        The columns of every chunk; a feature index beyond them is a ValueError.
    chunk_rows : int, default=100000
        The most rows of a chunk.
    zero_based : bool, default=False
        Whether feature indices start at 0.
    dtype : dtype, default=np.float64
        The type of X's values.

    Yields
    ------
    X : scipy.sparse.csr_matrix of shape (n_rows, n_features)
        A chunk's features, at most ``chunk_rows`` rows.
    y : ndarray of shape (n_rows,)
        Its labels, as float64.

    See Also
    --------
    largemargin.load_libsvm : Read a whole file.

    Examples
    --------
    >>> import os, tempfile
    >>> from largemargin.datasets import iter_libsvm
    >>> path = os.path.join(tempfile.mkdtemp(), "train.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("+1 1:0.5 3:1\\n-1 2:2\\n+1 3:4\\n")
    >>> [(X.shape, y.tolist()) for X, y in iter_libsvm(path, n_features=3, chunk_rows=2)]
    [((2, 3), [1.0, -1.0]), ((1, 3), [1.0])]
    """
    if not isinstance(zero_based, (bool, np.bool_)):
        raise ValueError(f"zero_based must be True or False when reading in chunks, got {zero_based!r}")
    if not (isinstance(chunk_rows, (int, np.integer)) and chunk_rows > 0):
        raise ValueError(f"chunk_rows must be a positive integer, got {chunk_rows!r}")
    _check_width(n_features)
    if n_features is None:
        raise ValueError("n_features must be given when reading in chunks")
    reader = _native.LibsvmReader()

    def chunk(last):
        labels, indptr, indices, data, cols = reader.take(bool(zero_based), last)
        if cols > n_features:
            raise ValueError(f"feature index {cols - 1 + (not zero_based)} does not fit n_features={n_features}")
        return sp.csr_matrix((data.astype(dtype, copy=False), indices, indptr), shape=(len(labels), n_features)), labels

    try:
        with _open(path) as f:
            more = True
            while more:
                more = _feed(reader, f, chunk_rows)
                X, y = chunk(not more)
                for start in range(0, len(y), chunk_rows):
                    yield X[start:start + chunk_rows], y[start:start + chunk_rows]
    except ValueError as e:
        raise ValueError(f"{path}: {e}") from None


def make_rcv1_like(n_samples=800_000, n_features=47_000, density=0.0016, topic_share=0.1, topic_words=400,
                   label_noise=0.03, positive_fraction=0.47, random_state=0, dtype=np.float32):
    """A seeded stand-in for RCV1 (CCAT against the rest), for the thesis' linear SGD protocol.

    Each document gets its class first (``positive_fraction`` positives), then about
    ``density`` x ``n_features`` words: a ``topic_share`` of them from its class' own vocabulary of
    ``topic_words`` mid-frequency words, the others from a Zipf-like background vocabulary. Values
    are tf-idf (log(1 + count) x idf), rows have unit norm, and ``label_noise`` of the labels are
    flipped. Word counts drawn this way make the best rule linear in the counts (the
    multinomial model's log-odds); the flips make it noisy. The defaults give 800,000 x 47,000
    with about 76 words a row.

    Parameters
    ----------
    n_samples : int, default=800000
        Documents to make.
    n_features : int, default=47000
        The vocabulary's size, well above 2 x ``topic_words``.
    density : float, default=0.0016
        The mean fraction of the vocabulary a document holds, in (0, 1].
    topic_share : float, default=0.1
        The fraction of a document's words drawn from its class' vocabulary, in [0, 1).
    topic_words : int, default=400
        The size of each class' vocabulary.
    label_noise : float, default=0.03
        The fraction of labels flipped.
    positive_fraction : float, default=0.47
        The probability of the positive class.
    random_state : int, numpy Generator or None, default=0
        Seeds everything (``numpy.random.default_rng``).
    dtype : dtype, default=np.float32
        The type of X's values.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
        The documents, with sorted indices.
    y : ndarray of shape (n_samples,)
        The labels, -1.0 or +1.0.

    See Also
    --------
    largemargin.LinearSGD : The linear SGD solvers this data was made for.

    Examples
    --------
    >>> from largemargin.datasets import make_rcv1_like
    >>> X, y = make_rcv1_like(n_samples=100, n_features=2000, random_state=0)
    >>> X.shape, X.dtype
    ((100, 2000), dtype('float32'))
    """
    rng = np.random.default_rng(random_state)
    n, d = int(n_samples), int(n_features)
    if n < 1 or d < 2 * topic_words + 100 or not 0 < density <= 1 or not 0 <= topic_share < 1:
        raise ValueError("need n_samples >= 1, n_features well above 2 x topic_words, density in (0, 1], "
                         "topic_share in [0, 1)")
    word = rng.permutation(d)  # frequent words spread over the index range
    background = np.cumsum(1.0 / (np.arange(1, d + 1) + 20.0) ** 1.05)
    # the two classes' vocabularies: mid-frequency words, Zipf-like within each
    topics = word[rng.choice(np.arange(100, min(d, 20 * topic_words + 100)), 2 * topic_words, replace=False)]
    topics = topics.reshape(2, topic_words)
    within = np.cumsum(1.0 / np.arange(1, topic_words + 1))
    positive = rng.random(n) < positive_fraction
    terms = np.maximum(rng.poisson(density * d * 1.02, size=n), 1)  # (duplicates are merged below)
    rows = np.repeat(np.arange(n, dtype=np.int64), terms)
    total = int(terms.sum())
    cols = word[np.minimum(np.searchsorted(background, rng.random(total) * background[-1]), d - 1)]
    on_topic = rng.random(total) < topic_share
    pick = np.minimum(np.searchsorted(within, rng.random(int(on_topic.sum())) * within[-1]), topic_words - 1)
    cols[on_topic] = topics[positive[rows[on_topic]].astype(np.intp), pick]
    key = rows * d + cols
    del rows, cols, on_topic
    key.sort()
    key = key[np.concatenate([[True], key[1:] != key[:-1]])]  # a word twice in a document: once
    rows, cols = key // d, (key % d).astype(np.int32)
    del key
    counts = 1 + rng.poisson(0.7, size=len(cols))
    df = np.bincount(cols, minlength=d)
    values = np.log1p(counts) * (np.log((n + 1.0) / (df + 1.0)) + 1.0)[cols]
    values /= np.sqrt(np.bincount(rows, weights=values * values, minlength=n))[rows]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=n))]).astype(np.int64)
    del rows
    X = sp.csr_matrix((values.astype(dtype), cols, indptr), shape=(n, d))
    y = np.where(positive, 1.0, -1.0)
    flip = rng.random(n) < label_noise
    y[flip] = -y[flip]
    return X, y


def make_badly_conditioned(n_samples=150_000, n_features=500, scale_range=1e3, label_noise=0.1, random_state=0,
                           dtype=np.float32):
    """A seeded dense problem in the spirit of the PASCAL ALPHA/DELTA sets.

    The thesis trains on the first 100,000 rows and tests on the last 50,000. Gaussian features
    whose scales span ``scale_range`` (so the primal's Hessian is badly conditioned), pairs of
    features mixed so that the conditioning is not only along the axes, rows of squared norm about
    1, and labels from a linear concept in which every feature matters as much, with Gaussian
    noise on the score giving about ``label_noise`` errors for the best linear rule.

    Parameters
    ----------
    n_samples : int, default=150000
        Rows to make.
    n_features : int, default=500
        Features, at least 2.
    scale_range : float, default=1e3
        The ratio of the largest feature scale to the smallest, at least 1.
    label_noise : float, default=0.1
        About the error of the best linear rule.
    random_state : int, numpy Generator or None, default=0
        Seeds everything (``numpy.random.default_rng``).
    dtype : dtype, default=np.float32
        The type of X.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features)
        The features, dense.
    y : ndarray of shape (n_samples,)
        The labels, -1.0 or +1.0.

    See Also
    --------
    largemargin.LinearSGD : The linear SGD solvers this data was made for.

    Examples
    --------
    >>> from largemargin.datasets import make_badly_conditioned
    >>> X, y = make_badly_conditioned(n_samples=100, n_features=10, random_state=0)
    >>> X.shape
    (100, 10)
    """
    rng = np.random.default_rng(random_state)
    n, d = int(n_samples), int(n_features)
    if n < 1 or d < 2 or scale_range < 1:
        raise ValueError("n_samples must be positive, n_features at least 2, scale_range at least 1")
    scales = np.logspace(0, np.log10(scale_range), d)
    scales /= np.sqrt(np.sum(scales**2))  # rows of squared norm about 1, as the thesis' steps assume
    rng.shuffle(scales)
    X = rng.standard_normal((n, d)).astype(dtype)
    # mix disjoint pairs of features by a random rotation each
    pairs = rng.permutation(d)[: d - d % 2].reshape(-1, 2)
    angle = rng.uniform(0, np.pi / 4, len(pairs))
    a, b = X[:, pairs[:, 0]].copy(), X[:, pairs[:, 1]].copy()
    c, s = np.cos(angle).astype(dtype), np.sin(angle).astype(dtype)
    X[:, pairs[:, 0]], X[:, pairs[:, 1]] = c * a - s * b, s * a + c * b
    X *= scales.astype(dtype)
    u = rng.standard_normal(d) / scales
    score = (X @ u) / np.sqrt(d)
    # Gaussian noise on a (nearly Gaussian) score of spread s flips a label with probability
    # arctan(sigma / s) / pi: sigma = s tan(pi label_noise) flips `label_noise` of them
    sigma = np.std(score) * np.tan(np.pi * label_noise)
    noisy = score + rng.standard_normal(n) * sigma
    y = np.where(noisy > 0, 1.0, -1.0)
    return X, y


def make_forest_like(n_samples=100_000, label_noise=0.04, random_state=0, dtype=np.float64):
    """A seeded stand-in for the covertype ("Forest") problem of the mixture experiments.

    Class 2, lodgepole pine, against the rest: 54 features, as in the UCI data, of which 10
    continuous terrain measurements (elevation, aspect, slope, distances to water, roads and fire
    points, three hillshades computed from aspect and slope) standardized to mean 0 and variance 1,
    then 4 one-hot wilderness areas and 40 one-hot soil types.

    The positive class lives in an elevation band whose centre moves with the soil and the area and
    whose width shrinks on steep slopes, pushed by exposure (aspect), nearness to water and
    distance to fire points: a nonlinear concept, local in the mixed continuous/binary space, with
    about ``label_noise`` of the labels flipped on top (logistic noise on the score). The soils and
    areas (their frequencies and effects) are the same for every ``random_state``; the rows differ.

    Parameters
    ----------
    n_samples : int, default=100000
        Rows to make.
    label_noise : float, default=0.04
        About this fraction of the labels is flipped, in [0, 0.5).
    random_state : int, numpy Generator or None, default=0
        Seeds the rows (``numpy.random.default_rng``).
    dtype : dtype, default=np.float64
        The type of X.

    Returns
    -------
    X : ndarray of shape (n_samples, 54)
        The features, dense.
    y : ndarray of shape (n_samples,)
        The labels, -1.0 or +1.0, about half positive.

    See Also
    --------
    MixtureSVC : The model of the experiments this data stands in for.
    load_adult : A real dataset.

    Examples
    --------
    >>> from largemargin import make_forest_like
    >>> X, y = make_forest_like(n_samples=1000, random_state=0)
    >>> X.shape
    (1000, 54)
    >>> sorted(set(y.tolist()))
    [-1.0, 1.0]
    """
    n = int(n_samples)
    if n < 1:
        raise ValueError(f"n_samples must be positive, got {n_samples!r}")
    if not 0 <= label_noise < 0.5:
        raise ValueError(f"label_noise must be in [0, 0.5), got {label_noise!r}")
    world = np.random.default_rng(20040101)  # the landscape: fixed, whatever random_state
    soil_given_area = world.dirichlet(np.full(40, 0.35), size=4)
    soil_shift = world.normal(0.0, 140.0, 40)
    area_shift = np.array([0.0, -180.0, 90.0, -420.0])
    rng = np.random.default_rng(random_state)
    area = rng.choice(4, size=n, p=[0.45, 0.05, 0.44, 0.06])
    soil = np.empty(n, dtype=np.int64)
    for a in range(4):
        rows = np.flatnonzero(area == a)
        soil[rows] = rng.choice(40, size=len(rows), p=soil_given_area[a])
    centre = 2950.0 + soil_shift[soil] + area_shift[area]
    elevation = centre + rng.normal(0.0, 330.0, n) + 0.6 * soil_shift[soil]
    aspect = rng.uniform(0.0, 360.0, n)
    slope = rng.gamma(3.0, 4.5, n)
    water_h = rng.gamma(1.5, 180.0, n)
    water_v = water_h * rng.normal(0.15, 0.15, n)
    road_h = rng.gamma(2.0, 1200.0, n)
    fire_h = rng.gamma(2.0, 1000.0, n)
    az, sl = np.radians(aspect), np.radians(np.minimum(slope, 60.0))

    def hillshade(sun_azimuth, sun_altitude):
        lit = np.cos(sun_altitude) * np.sin(sl) * np.cos(az - sun_azimuth) + np.sin(sun_altitude) * np.cos(sl)
        return np.clip(255.0 * lit + rng.normal(0.0, 6.0, n), 0.0, 255.0)

    shades = [hillshade(np.radians(120.0), np.radians(40.0)), hillshade(np.pi, np.radians(65.0)),
              hillshade(np.radians(240.0), np.radians(40.0))]
    half_width = 300.0 - 5.0 * slope + 40.0 * np.cos(az - np.radians(45.0))
    score = (half_width - np.abs(elevation - centre)) / 120.0
    score += 0.7 * np.exp(-water_h / 150.0) * np.sign(np.sin(az)) - 0.5 * np.tanh((fire_h - 1800.0) / 700.0)
    score += 0.4 * np.tanh((road_h - 1500.0) / 900.0) * (area == 2)
    # logistic noise of scale s flips about `label_noise` of labels on scores spread like these
    scale = label_noise * 2.5 if label_noise > 0 else 0.0
    u = rng.uniform(1e-12, 1.0 - 1e-12, n)
    y = np.where(score + scale * np.log(u / (1.0 - u)) > 0.0, 1.0, -1.0)
    continuous = np.column_stack([elevation, aspect, slope, water_h, water_v, road_h, shades[0], shades[1], shades[2], fire_h])
    continuous = (continuous - continuous.mean(axis=0)) / continuous.std(axis=0)
    X = np.zeros((n, 54), dtype=dtype)
    X[:, :10] = continuous
    X[np.arange(n), 10 + area] = 1.0
    X[np.arange(n), 14 + soil] = 1.0
    return X, y
