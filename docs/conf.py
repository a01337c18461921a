"""Sphinx configuration of the largemargin documentation.

Build (no network needed)::

    python examples/run_all.py --out docs/_static/examples    # the example plots the pages show
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The examples are not run by the build: their PNGs are expected in docs/_static/examples/.
"""

import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
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


def _result_pages():
    """One page per file of benches/results/ (Markdown tables and text, as the benchmark scripts
    wrote them, with a plot of the same name), written at each build so that it never goes stale."""
    results = os.path.join(HERE, "..", "benches", "results")
    out = os.path.join(HERE, "benchmarks")
    os.makedirs(out, exist_ok=True)
    for old in os.listdir(out):
        if old.endswith(".rst"):
            os.remove(os.path.join(out, old))
    for name in sorted(os.listdir(results)):
        stem, ext = os.path.splitext(name)
        if ext not in (".md", ".txt"):
            continue
        title = f"``{name}``"
        lines = [title, "=" * len(title), "",
                 f"The result file ``benches/results/{name}``, as its benchmark script wrote it (the command is in it).", ""]
        if os.path.exists(os.path.join(results, stem + ".png")):
            lines += [f".. image:: ../../benches/results/{stem}.png", "   :width: 100%", ""]
        lines += [f".. literalinclude:: ../../benches/results/{name}", "   :language: text", ""]
        with open(os.path.join(out, stem + ".rst"), "w") as f:
            f.write("\n".join(lines))


_result_pages()


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
