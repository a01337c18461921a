"""ARCHITECTURE.md's trees are the real ones, and the layout keeps its limits.

Each tree in ARCHITECTURE.md follows a line ``<!-- tree: ROOT -->`` as a ```text block: four spaces
of indentation per level, a name (a folder ends with ``/``), then optionally two or more spaces and
what it holds. Every source file under ROOT (``.rs`` for the crates, ``.py``/``.pyi`` for the
package) and every folder that holds one is listed once, and nothing else. The test reads the
source tree, so it is skipped where only the installed package is at hand.
"""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "ARCHITECTURE.md"
TREES = {
    "rust/largemargin/src": (".rs",),
    "rust/largemargin-python/src": (".rs",),
    "rust/largemargin-cli/src": (".rs",),
    "python/largemargin": (".py", ".pyi"),
}
INDENT = 4

pytestmark = pytest.mark.skipif(not ARCHITECTURE.exists(), reason="needs the source tree")


def written_trees():
    """{root: [lines of its tree block]} from ARCHITECTURE.md."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    trees = {}
    for m in re.finditer(r"<!-- tree: (\S+) -->\s*\n```text\n(.*?)\n```", text, re.S):
        assert m.group(1) not in trees, f"two trees for {m.group(1)}"
        trees[m.group(1)] = m.group(2).splitlines()
    return trees


def parse_tree(root, lines):
    """The paths a tree block lists, relative to its root; asserts that the block is well formed."""
    paths, stack = [], []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        where = f"ARCHITECTURE.md, tree {root}, line {number} ({line.strip()!r})"
        spaces = len(line) - len(line.lstrip(" "))
        assert spaces % INDENT == 0, f"{where}: indentation is not a multiple of {INDENT}"
        depth = spaces // INDENT
        assert depth <= len(stack), f"{where}: deeper than the folder above it"
        del stack[depth:]
        name = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        assert " " not in name, f"{where}: a name and its description need two spaces between them"
        path = "/".join(stack + [name.rstrip("/")])
        paths.append(path + ("/" if name.endswith("/") else ""))
        if name.endswith("/"):
            stack.append(name.rstrip("/"))
    return paths


def real_tree(root, suffixes):
    """The source files under root and the folders that hold them, relative to root."""
    base = ROOT / root
    files = [p for p in base.rglob("*") if p.is_file() and p.suffix in suffixes and "__pycache__" not in p.parts]
    paths = {p.relative_to(base).as_posix() for p in files}
    for p in files:
        for parent in p.relative_to(base).parents:
            if parent != Path("."):
                paths.add(parent.as_posix() + "/")
    return paths


@pytest.mark.parametrize("root", sorted(TREES))
def test_the_written_tree_is_the_real_one(root):
    trees = written_trees()
    assert root in trees, f"ARCHITECTURE.md has no tree for {root} (a line <!-- tree: {root} --> and a text block)"
    listed = parse_tree(root, trees[root])
    duplicates = sorted({p for p in listed if listed.count(p) > 1})
    assert not duplicates, f"listed twice in the tree of {root}: {duplicates}"
    real = real_tree(root, TREES[root])
    missing, extra = sorted(real - set(listed)), sorted(set(listed) - real)
    assert not missing and not extra, (
        f"ARCHITECTURE.md's tree of {root} differs from the files: not listed {missing}; listed but absent {extra}"
    )


def test_no_stray_trees():
    assert set(written_trees()) <= set(TREES), "a tree in ARCHITECTURE.md for a root this test does not know"


def test_file_size_limits():
    """The core crate's files (tests included) stay under 700 lines, the package's modules under 600,
    and at most five files sit loose at the top of the core crate."""
    too_long = []
    for path in (ROOT / "rust/largemargin/src").rglob("*.rs"):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > 700:
            too_long.append(f"{path.relative_to(ROOT)}: {n} lines")
    for path in (ROOT / "python/largemargin").rglob("*.py"):
        n = len(path.read_text(encoding="utf-8").splitlines())
        if n > 600:
            too_long.append(f"{path.relative_to(ROOT)}: {n} lines")
    assert not too_long, "over the limit: " + "; ".join(too_long)
    loose = sorted(p.name for p in (ROOT / "rust/largemargin/src").glob("*.rs"))
    assert len(loose) <= 5, f"{len(loose)} files directly in rust/largemargin/src: {loose}"


def test_readme_stays_short():
    """The README is the front door: what it is, the two commands, an example per family, links."""
    n = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert n <= 250, f"README.md has {n} lines; the guides, references and tables belong in docs/"
