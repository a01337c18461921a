"""Sphinx configuration of the largemargin documentation.

Build (no network needed, nothing to run first; ``pip install ".[docs]"`` installs what it needs)::

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The build runs the examples of examples/ (sphinx-gallery: their output and plots go on their
pages, docs/auto_examples/) and takes the benchmark tables from the result files of benches/
(docs/benchmarks/); both generated folders are ignored by git.
"""

import os
import re
import shutil
import sys

from docutils import nodes
from docutils.parsers.rst import directives
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# the package is normally installed; fall back on the source tree (its compiled extension
# must have been built in place for that)
try:
    import largemargin
except ImportError:  # pragma: no cover
    sys.path.insert(0, os.path.join(HERE, "..", "python"))
    import largemargin

project = "largemargin"
author = "the largemargin developers"
copyright = "the largemargin developers"
release = largemargin.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
templates_path = []
html_static_path = ["_static"]
html_css_files = ["custom.css"]

html_theme = "alabaster"
html_title = f"largemargin {release}"
html_theme_options = {
    "description": "Large-scale SVMs with a Rust core and a scikit-learn face",
    "fixed_sidebar": True,
    "page_width": "1250px",
    "sidebar_width": "230px",
}
html_sidebars = {"**": ["about.html", "navigation.html", "relations.html", "searchbox.html"]}
html_show_sourcelink = False

# commands and options as written: no "--" turned into a dash, no curly quotes
smartquotes = False

# autodoc: signatures as written, members in source order
autodoc_member_order = "bysource"
autodoc_typehints = "none"
autodoc_inherit_docstrings = True

# numpydoc: no autosummary stubs for class members (the API page lists them with autodoc)
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks = set()

_REQUEST_METHOD = re.compile(r"^set_\w+_request$")
# what an estimator predicts with, even where scikit-learn's mixins provide it (LinearSGD)
_PREDICTION_METHODS = {"predict", "decision_function", "predict_proba", "predict_log_proba"}


def _skip_member(app, what, name, obj, skip, options):
    """Document the estimators' own public methods and properties, those they inherit from
    largemargin's private base classes included, and their prediction methods, but not the rest
    of what they inherit from scikit-learn (get_params, set_params, score, the metadata-routing
    set_*_request methods): the API page says so once."""
    if what != "class" or skip:
        return None
    if _REQUEST_METHOD.match(name):
        return True
    target = getattr(obj, "fget", obj)
    module = getattr(target, "__module__", None) or ""
    if not module.startswith("largemargin") and name not in _PREDICTION_METHODS:
        return True
    return None


# The examples run at each build: sphinx-gallery executes every script of examples/ and puts its
# output and figures on the example's page (docs/auto_examples/, generated, not committed).
sphinx_gallery_conf = {
    "examples_dirs": os.path.join(ROOT, "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"\.py$",  # every example runs, not only plot_*.py
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "remove_config_comments": True,
    "download_all_examples": False,
    "show_memory": False,
    "abort_on_example_error": True,
    "write_computation_times": False,  # no stray timing pages: the build log says the times
}

# --- Benchmark results ---------------------------------------------------------------------------
# The benchmark scripts write Markdown tables to benches/results/ (and the studies to
# benches/studies/results/); the pages take their tables from those files at each build, so that
# no number on them is typed by hand. The `results` directive below includes tables of one file;
# _result_pages writes one page per file.

BENCHES = os.path.join(ROOT, "benches")
# (folder under benches/, folder of its pages under docs/benchmarks/)
RESULT_DIRS = [("results", ""), ("results/archive", "archive"), ("studies/results", "studies")]
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RULE = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_CODE = re.compile(r"`([^`]*)`")
_STRONG = re.compile(r"\*\*(.+?)\*\*")
_SPECIAL = re.compile(r"([\\*_|`])")
_PLAIN_AFTER = set(" \t.,;:!?)]}'\"-/")
_PLAIN_BEFORE = set(" \t([{'\"-/")


def _cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in line.split("|")]


def _parse_markdown(text):
    """The blocks of a result file: ("heading", level, text), ("table", header, rows), ("list",
    items), ("code", lines) and ("text", lines), in order."""
    blocks, lines, i = [], text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.match(line)
        if heading:
            blocks.append(("heading", len(heading.group(1)), heading.group(2)))
            i += 1
        elif line.lstrip().startswith("|") and i + 1 < len(lines) and _RULE.match(lines[i + 1]):
            header, rows, i = _cells(line), [], i + 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            blocks.append(("table", header, rows))
        elif line.startswith("```"):
            code, i = [], i + 1
            while i < len(lines) and not lines[i].startswith("```"):
                code.append(lines[i])
                i += 1
            blocks.append(("code", code))
            i += 1
        elif line.startswith(("- ", "* ")):
            items = []
            while i < len(lines) and lines[i].strip():
                if lines[i].startswith(("- ", "* ")):
                    items.append(lines[i][2:].strip())
                else:  # a continuation line of the item
                    items[-1] += " " + lines[i].strip()
                i += 1
            blocks.append(("list", items))
        elif line.strip():
            para = [line.strip()]  # (a line of cells without a rule under it is text too)
            i += 1
            while (i < len(lines) and lines[i].strip() and not _HEADING.match(lines[i])
                   and not lines[i].startswith("```") and not lines[i].lstrip().startswith("|")):
                para.append(lines[i].strip())
                i += 1
            blocks.append(("text", para))
        else:
            i += 1
    return blocks


def _wrap(markup, text, before, after):
    """Inline markup that holds whatever surrounds it (an escaped space where it touches text)."""
    left = "" if not before or before in _PLAIN_BEFORE else "\\ "
    right = "" if not after or after in _PLAIN_AFTER else "\\ "
    return f"{left}{markup}{text}{markup}{right}"


def _inline(text):
    """Markdown inline text (code spans, strong emphasis) as reStructuredText, everything else
    escaped so that it reads as written."""
    out, pos = [], 0
    spans = sorted([(m.start(), m.end(), "code", m.group(1)) for m in _CODE.finditer(text)])
    for start, end, _, inner in spans:
        out.append(_escape_strong(text[pos:start]))
        inner = inner.strip()
        if inner:
            before = text[start - 1] if start else ""
            after = text[end] if end < len(text) else ""
            out.append(_wrap("``", inner, before, after))
        pos = end
    out.append(_escape_strong(text[pos:]))
    result = "".join(out)
    if result[:1] in "-+*#.=~^:'\"!?%&$@<>;,/" and not result.startswith(("``", "**", "\\")):
        result = "\\" + result  # not a list, a comment or a section rule: text
    if result.endswith("::"):
        result = result[:-1] + "\\:"
    return result


def _escape_strong(text):
    out, pos = [], 0
    for m in _STRONG.finditer(text):
        out.append(_SPECIAL.sub(r"\\\1", text[pos:m.start()]))
        before = text[m.start() - 1] if m.start() else ""
        after = text[m.end()] if m.end() < len(text) else ""
        out.append(_wrap("**", _SPECIAL.sub(r"\\\1", m.group(1).strip()), before, after))
        pos = m.end()
    out.append(_SPECIAL.sub(r"\\\1", text[pos:]))
    return "".join(out)


def _table_rst(header, rows):
    lines = [".. list-table::", "   :header-rows: 1", "   :class: results-table", ""]
    for row in [header] + rows:
        row = (row + [""] * len(header))[:len(header)]
        for k, cell in enumerate(row):
            cell = _inline(cell)
            lines.append(("   * - " if k == 0 else "     - ") + cell if cell else ("   * -" if k == 0 else "     -"))
    return lines + [""]


def _blocks_rst(blocks):
    lines = []
    for block in blocks:
        if block[0] == "heading":
            lines += [f".. rubric:: {_inline(block[2])}", ""]
        elif block[0] == "table":
            lines += _table_rst(block[1], block[2])
        elif block[0] == "list":
            lines += [f"- {_inline(item)}" for item in block[1]] + [""]
        elif block[0] == "code":
            lines += [".. code-block:: text", ""] + [f"   {c}" for c in block[1]] + [""]
        else:
            lines += [_inline(line) for line in block[1]] + [""]
    return lines


def _select(blocks, section):
    """The blocks under the heading `section` (up to the next heading of its level or above)."""
    chosen, level = [], None
    for block in blocks:
        if block[0] == "heading":
            if level is not None and block[1] <= level:
                break
            if level is None and block[2].strip() == section:
                level = block[1]
                continue
        if level is not None:
            chosen.append(block)
    return chosen


class ResultsDirective(SphinxDirective):
    """``.. results:: results/NAME.md`` (a path under benches/): the tables of a result file, as the
    benchmark script wrote them, at each build.

    Options: ``:section: TITLE`` (only what is under that Markdown heading), ``:tables: 1,3`` (which
    tables of the selection, from 1), ``:columns: a; b`` (these columns, by header), ``:rows: REGEX``
    (the rows whose cells, joined by " | ", match), ``:text:`` (the selection's prose as well).
    A selection that finds nothing is an error: a result file that changed shape breaks the build
    instead of leaving a stale table."""

    required_arguments = 1
    has_content = False
    option_spec = {"section": directives.unchanged, "tables": directives.unchanged,
                   "columns": directives.unchanged, "rows": directives.unchanged, "text": directives.flag}

    def run(self):
        rel = self.arguments[0]
        path = os.path.join(BENCHES, rel)
        if not os.path.exists(path):
            raise self.error(f"no result file benches/{rel}")
        self.env.note_dependency(path)
        with open(path, encoding="utf-8") as f:
            blocks = _parse_markdown(f.read())
        if "section" in self.options:
            blocks = _select(blocks, self.options["section"].strip())
            if not blocks:
                raise self.error(f"benches/{rel}: no heading {self.options['section']!r}")
        positions = [k for k, b in enumerate(blocks) if b[0] == "table"]
        if "tables" in self.options:
            picks = [int(k) for k in self.options["tables"].split(",")]
            if any(k < 1 or k > len(positions) for k in picks):
                raise self.error(f"benches/{rel}: {len(positions)} tables, asked for {picks}")
            positions = [positions[k - 1] for k in picks]
        if not positions:
            raise self.error(f"benches/{rel}: no table")
        chosen = {k: self._shape(rel, blocks[k]) for k in positions}
        if "rows" in self.options and not any(t[2] for t in chosen.values()):
            raise self.error(f"benches/{rel}: no row matches {self.options['rows']!r}")
        if "text" in self.options:
            blocks = [chosen.get(k, b) for k, b in enumerate(blocks) if b[0] != "table" or k in chosen]
        else:
            blocks = [chosen[k] for k in positions]
        page = _page_name(rel)
        lines = _blocks_rst(blocks)
        if page:
            lines += [f"*From* :doc:`benches/{rel} </{page}>`.", ""]
        node = nodes.container(classes=["results"])
        self.state.nested_parse(StringList(lines, source=path), self.content_offset, node)
        return [node]

    def _shape(self, rel, table):
        """A table with the columns and rows the options ask for."""
        _, header, rows = table
        rows = [(r + [""] * len(header))[:len(header)] for r in rows]
        if "columns" in self.options:
            wanted = [c.strip() for c in self.options["columns"].split(";")]
            missing = [c for c in wanted if c not in header]
            if missing:
                raise self.error(f"benches/{rel}: no column {missing} in {header}")
            idx = [header.index(c) for c in wanted]
            header, rows = wanted, [[r[k] for k in idx] for r in rows]
        if "rows" in self.options:
            pattern = re.compile(self.options["rows"])
            rows = [r for r in rows if pattern.search(" | ".join(r))]
        return ("table", header, rows)


def _page_name(rel):
    """The generated page of a result file (a path under benches/), or None."""
    folder, name = os.path.split(rel)
    for source, target in RESULT_DIRS:
        if folder == source:
            return "/".join(p for p in ("benchmarks", target, os.path.splitext(name)[0]) if p)
    return None


def _result_pages():
    """One page per result file (Markdown tables and text, as the scripts wrote them, with a plot
    of the same name), written at each build so that it never goes stale."""
    out_root = os.path.join(HERE, "benchmarks")
    if os.path.isdir(out_root):
        shutil.rmtree(out_root)
    for source, target in RESULT_DIRS:
        results = os.path.join(BENCHES, source)
        out = os.path.join(out_root, target)
        os.makedirs(out, exist_ok=True)
        depth = "../" * (2 + bool(target))
        for name in sorted(os.listdir(results)):
            stem, ext = os.path.splitext(name)
            if ext not in (".md", ".txt"):
                continue
            title = f"``{name}``"
            lines = [title, "=" * len(title), "",
                     f"The result file ``benches/{source}/{name}``, as its script wrote it (the command is in it).", ""]
            if os.path.exists(os.path.join(results, stem + ".png")):
                lines += [f".. image:: {depth}benches/{source}/{stem}.png", "   :width: 100%", ""]
            if ext == ".md":
                with open(os.path.join(results, name), encoding="utf-8") as f:
                    lines += _blocks_rst(_parse_markdown(f.read()))
            else:
                lines += [f".. literalinclude:: {depth}benches/{source}/{name}", "   :language: text", ""]
            with open(os.path.join(out, stem + ".rst"), "w", encoding="utf-8") as f:
                f.write("\n".join(lines))


_result_pages()


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
    app.add_directive("results", ResultsDirective)
