"""Files nobody here wrote: damaged and hostile model files, corrupt compressed data, full disks
and file-size limits. Every rejection names the file, the line and what was expected; nothing is
allocated from a number before the file shows that much content; a failed save raises and leaves
the previous file as it was; the command-line tools answer with one line and a non-zero exit."""

import bz2
import gzip
import os
import re
import subprocess
import sys

import numpy as np
import pytest
from test_libsvm_interop import native_cli, python_cli

import largemargin as lm

LINUX = sys.platform.startswith("linux")


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A small one-based binary model file and its test data."""
    d = tmp_path_factory.mktemp("models")
    rng = np.random.default_rng(0)
    X = rng.random((60, 5))
    y = np.where(X[:, 0] + X[:, 1] > 1, 1, -1)
    m = lm.SVC(C=10, gamma=0.5).fit(X, y)
    path = d / "good.model"
    lm.save_libsvm_model(m, path)
    data = d / "test.txt"
    data.write_text("".join(f"{t} " + " ".join(f"{j + 1}:{v}" for j, v in enumerate(r)) + "\n" for r, t in zip(X, y)))
    return path, data, X


def mutate(text, pattern, replacement):
    out, n = re.subn(pattern, replacement, text, count=1, flags=re.M)
    assert n == 1, pattern
    return out


MUTATIONS = [
    # (name, pattern, replacement, line of the error, what the message says)
    ("nr_class huge", r"^nr_class 2$", "nr_class 1000000000000", 6, "rho has 1 values"),
    ("nr_class 10^18", r"^nr_class 2$", "nr_class 1000000000000000000", 6, "rho has 1 values"),
    ("total_sv huge", r"^total_sv \d+$", "total_sv 100000000000", 8, "total_sv is 100000000000"),
    ("index past i32", r"^(\S+) 1:", r"\1 2147483649:", 10, "out of range"),
    ("index wrapping to 0", r"^(\S+) 1:", r"\1 4294967297:", 10, "out of range"),
    ("gamma nan", r"^gamma .*$", "gamma nan", 3, "gamma is nan"),
    ("gamma negative", r"^gamma .*$", "gamma -0.5", 3, "positive"),
    ("gamma zero", r"^gamma .*$", "gamma 0", 3, "positive"),
    ("rho nan", r"^rho .*$", "rho nan", 6, "rho holds NaN"),
    ("coefficient nan", r"^SV\n\S+", "SV\nnan", 10, "coefficient 'nan'"),
    ("label repeated", r"^label .*$", "label 1 1", 7, "appears twice"),
    ("nr_sv not adding up", r"^nr_sv .*$", "nr_sv 1 1", 8, "nr_sv adds up to 2"),
    ("nr_sv negative", r"^nr_sv .*$", "nr_sv 100000000000 -5", 8, "'-5' is not a count"),
    ("three classes declared as two", r"^SV\n(\S+)", r"SV\n\1 0.5", 10, "a coefficient too many"),
    ("probA of the wrong length", r"^nr_sv", "probA 1 2\nprobB 1 2\nnr_sv", 8, "probA has 2 values"),
    ("degree beyond int", r"^kernel_type rbf$", "kernel_type polynomial\ndegree 4000000000\ncoef0 0", 3, "degree"),
    ("index zero in a one-based model", r"^(\S+) 1:", r"\1 0:", 10, "read it as zero-based"),
    ("indices out of order", r"^(\S+) 1:(\S+) 2:", r"\1 2:\2 1:", 10, "must increase"),
    ("unknown field", r"^SV$", "colour blue\nSV", 9, "unknown header field 'colour'"),
    ("unknown svm_type", r"^svm_type c_svc$", "svm_type nu-svc", 1, "unknown svm_type 'nu-svc'"),
    ("one-class header, classifier body", r"^svm_type c_svc$", "svm_type one_class", 7, "a one_class model has no label"),
    ("a support vector too many", r"\Z", "1 1:1\n", 33, "more support vectors than total_sv"),
    ("blank line inside", r"^SV\n", "SV\n\n", 10, "empty line"),
    ("label beyond 32 bits", r"^label -1 1$", "label -1 3000000000", 7, "32-bit label range"),
    ("a 100 kB token", r"^(\S+) 1:", r"\1 1:" + "7" * 100_000 + "x", 10, "bytes)' of feature 1 is not a number"),
]


PYTHON_CLI_TOO = {"nr_class 10^18", "total_sv huge", "index past i32", "rho nan", "three classes declared as two"}


@pytest.mark.parametrize("name, pattern, replacement, line, says", MUTATIONS, ids=[m[0] for m in MUTATIONS])
def test_damaged_model_files_are_refused_with_their_line(tmp_path, saved, name, pattern, replacement, line, says):
    good, data, _ = saved
    text = good.read_text()
    assert text.count("\n") == 32  # the line numbers above are those of this file (23 vectors)
    bad = tmp_path / "bad.model"
    bad.write_text(mutate(text, pattern, replacement))
    with pytest.raises(ValueError) as e:
        lm.load_libsvm_model(bad)
    assert f"bad.model: line {line}: " in str(e.value) and says in str(e.value), str(e.value)
    if name == "index zero in a one-based model":
        return  # the tools read indices as written (zero-based): there this model is valid
    runs = [native_cli("eval", data, bad)]
    if name in PYTHON_CLI_TOO:  # (each start of the Python tool costs scikit-learn's import)
        runs.append(python_cli("eval", data, bad))
    for r in runs:
        assert r.returncode == 2
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr and f"line {line}: " in r.stderr, r.stderr
        assert len(r.stderr) < 500  # a token of the file is quoted by its start only


@pytest.mark.parametrize("text, says", [
    ("", "line 1: the model file is empty"),
    ("svm_type c_svc\nkernel_type rbf\n", "line 2: the file ends before the SV line"),
    ("\x00\xff\xfe garbage", "line 1: not valid UTF-8"),
])
def test_empty_and_binary_model_files(tmp_path, saved, text, says):
    bad = tmp_path / "bad.model"
    bad.write_bytes(text.encode("latin-1"))
    with pytest.raises(ValueError, match=says):
        lm.load_libsvm_model(bad)


def test_compressed_model_files_are_named_as_such(tmp_path, saved):
    good, _, _ = saved
    for suffix, opener in ((".gz", gzip.open), (".bz2", bz2.open)):
        path = tmp_path / f"m.model{suffix}"
        with opener(path, "wb") as f:
            f.write(good.read_bytes())
        with pytest.raises(ValueError, match="line 1: compressed data: model files are read uncompressed"):
            lm.load_libsvm_model(path)


def test_labels_beyond_32_bits_are_not_saved(tmp_path):
    X = np.random.default_rng(0).random((20, 2))
    m = lm.SVC().fit(X, np.array([3_000_000_000, 1] * 10))
    with pytest.raises(ValueError, match="32-bit"):
        lm.save_libsvm_model(m, tmp_path / "m.model")
    assert not (tmp_path / "m.model").exists()


def test_truncated_model_files_say_how_far_they_got(tmp_path, saved):
    good, _, _ = saved
    lines = good.read_text().splitlines(keepends=True)
    bad = tmp_path / "cut.model"
    bad.write_text("".join(lines[:20]))
    with pytest.raises(ValueError, match=r"line 20: the file ends after 11 of the 23 support vectors"):
        lm.load_libsvm_model(bad)


def run_limited(code, memory_mb=1500):
    """Python code in a child process whose address space is limited: an allocation sized by a
    number in a file would fail there (or abort the process) instead of succeeding."""
    prelude = f"import resource; resource.setrlimit(resource.RLIMIT_AS, ({memory_mb << 20}, {memory_mb << 20}))\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True, timeout=300)


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS")
def test_header_bombs_allocate_nothing(tmp_path):
    bombs = {
        "classes": "svm_type c_svc\nkernel_type linear\nnr_class 1000000\ntotal_sv 1\nrho 0\nlabel 1 2\nnr_sv 1 0\nSV\n1 1:1\n",
        "vectors": "svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 100000000000\nrho 0\nlabel 1 2\nnr_sv 100000000000 0\nSV\n1 1:1\n",
        "feature": "svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 2\nnr_sv 1 1\nSV\n1 2147483646:1\n-1 1:1\n",
    }
    paths = {}
    for name, text in bombs.items():
        paths[name] = tmp_path / f"{name}.model"
        paths[name].write_text(text)
    r = run_limited(
        "import largemargin as lm, numpy as np, scipy.sparse as sp\n"
        f"for name, path in {dict((k, str(v)) for k, v in paths.items())!r}.items():\n"
        "    try:\n"
        "        m = lm.load_libsvm_model(path)\n"
        "        print(name, 'predicted', m.predict(sp.csr_matrix(np.eye(3))))\n"
        "    except ValueError as e:\n"
        "        print(name, 'refused', e)\n"
    )
    assert r.returncode == 0, r.stderr[-500:]
    # the first two cannot be right; the third is a valid model over a very wide space
    for name, outcome in [("classes", "refused"), ("vectors", "refused"), ("feature", "predicted")]:
        assert f"{name} {outcome}" in r.stdout, r.stdout


@pytest.mark.skipif(not LINUX, reason="RLIMIT_AS")
def test_native_cli_on_a_very_wide_model_stays_small(tmp_path):
    model = tmp_path / "wide.model"
    model.write_text("svm_type c_svc\nkernel_type rbf\ngamma 1\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\n"
                     "SV\n1 2147483646:1\n-1 1:1\n")
    data = tmp_path / "d.txt"
    data.write_text("1 2147483646:1\n-1 1:1\n")
    cli = native_cli_or_skip()
    r = subprocess.run(["bash", "-c", f"ulimit -v 1000000; {cli} eval {data} {model}"], capture_output=True, text=True)
    assert r.returncode == 0 and "Accuracy = 100% (2/2) (classification)" in r.stdout, r.stderr


def native_cli_or_skip():
    from test_libsvm_interop import native_cli_path

    return native_cli_path()


@pytest.mark.parametrize("suffix, opener", [(".gz", gzip.open), (".bz2", bz2.open)])
def test_corrupt_compressed_data_names_the_file(tmp_path, suffix, opener):
    good = tmp_path / f"good{suffix}"
    with opener(good, "wt") as f:
        f.write("".join(f"{i % 2} 1:{i} 2:0.5\n" for i in range(20000)))
    raw = good.read_bytes()
    cases = {"truncated": raw[: len(raw) // 2], "garbage": b"not compressed at all\n" * 10,
             "flipped": raw[:40] + bytes(b ^ 0x55 for b in raw[40:80]) + raw[80:]}
    for name, blob in cases.items():
        bad = tmp_path / f"{name}{suffix}"
        bad.write_bytes(blob)
        with pytest.raises(ValueError) as e:
            lm.load_libsvm(bad)
        assert f"{name}{suffix}" in str(e.value) and ("corrupt" in str(e.value) or "line" in str(e.value)), str(e.value)
        if name == "flipped":
            r = python_cli("train", bad)
            assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr
            assert f"{name}{suffix}" in r.stderr
        r = native_cli("train", bad, tmp_path / "m")
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and f"{name}{suffix}" in r.stderr, r.stderr
        if name == "flipped":  # garbage decoded before the check fails is blamed on the compression
            assert "compressed data is corrupt" in r.stderr, r.stderr


def test_a_zero_index_in_a_one_based_file_names_its_line(tmp_path):
    p = tmp_path / "d.txt"
    p.write_text("1 1:1\n1 2:1\n-1 0:1 3:1\n")
    with pytest.raises(ValueError, match=r"d.txt: line 3: feature index 0 in a file read as one-based"):
        lm.load_libsvm(p, zero_based=False)


# --- saving ----------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def two_models():
    rng = np.random.default_rng(1)
    X = rng.random((300, 8))
    y = np.where(X[:, 0] > 0.5, 1, -1)
    return lm.SVC(C=1, gamma=1).fit(X[:40], y[:40]), lm.SVC(C=100, gamma=5).fit(X, y)


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_saving_to_a_full_disk_raises(two_models):
    small, _ = two_models
    with pytest.raises(OSError, match="/dev/full.*No space left"):
        lm.save_libsvm_model(small, "/dev/full")


@pytest.mark.skipif(not LINUX, reason="RLIMIT_FSIZE")
def test_a_save_cut_by_a_size_limit_raises_and_keeps_the_previous_file(tmp_path, two_models):
    small, big = two_models
    path = tmp_path / "model.txt"
    lm.save_libsvm_model(small, path)
    before = path.read_bytes()
    import pickle

    (tmp_path / "big.pkl").write_bytes(pickle.dumps(big))
    code = (
        "import pickle, resource, largemargin as lm\n"
        f"resource.setrlimit(resource.RLIMIT_FSIZE, ({len(before) + 200}, {len(before) + 200}))\n"
        f"big = pickle.loads(open({str(tmp_path / 'big.pkl')!r}, 'rb').read())\n"
        "try:\n"
        f"    lm.save_libsvm_model(big, {str(path)!r})\n"
        "    print('saved')\n"
        "except OSError as e:\n"
        "    print('raised', e)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "raised" in r.stdout and "File too large" in r.stdout, (r.stdout, r.stderr)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.pkl", "model.txt"]  # no temporary left
    lm.save_libsvm_model(big, path)  # without the limit the same save succeeds
    assert path.read_bytes() != before


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
def test_the_tools_report_a_full_disk(tmp_path, saved):
    good, data, _ = saved
    r = python_cli("predict", data, good, "/dev/full")
    assert r.returncode == 2 and "No space left" in r.stderr
    r = native_cli("predict", data, good, "/dev/full")
    assert r.returncode == 2 and "No space left" in r.stderr
    r = native_cli("train", "-q", data, "/dev/full")
    assert r.returncode == 2 and "No space left" in r.stderr


@pytest.mark.skipif(not LINUX, reason="ulimit -f")
def test_native_cli_keeps_the_previous_model_under_a_size_limit(tmp_path, saved):
    good, data, _ = saved
    path = tmp_path / "m.model"
    path.write_bytes(good.read_bytes())
    cli = native_cli_or_skip()
    r = subprocess.run(["bash", "-c", f"ulimit -f 1; {cli} train -q -c 100 -g 5 {data} {path}"], capture_output=True, text=True)
    assert r.returncode == 2 and "File too large" in r.stderr, r.stderr
    assert path.read_bytes() == good.read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["m.model"]


def test_saving_through_a_symlink_replaces_the_target(tmp_path, two_models):
    small, big = two_models
    real = tmp_path / "real.model"
    lm.save_libsvm_model(small, real)
    link = tmp_path / "link.model"
    link.symlink_to(real)
    lm.save_libsvm_model(big, link)
    assert link.is_symlink() and lm.load_libsvm_model(real).support_vectors_.shape[0] == len(big.support_)
