"""The documentation's plugin examples, run as written: the distribution ``docs/plugins/my-plugins``
(one module per hook in ``my_plugins/``), each module registered under the entry-point name its
pyproject.toml gives it, as installing the distribution would, then each script of its
``examples/`` that uses one (``use_NAME.py``). The hook pages (docs/plugins/*.rst) show these
files by ``literalinclude``, so what the reader sees is what runs here."""

import contextlib
import io
import pathlib
import re
import sys
import types

import pytest

import largemargin.cli
from largemargin.plugins import get_registry

DOCS = pathlib.Path(__file__).parents[1] / "docs"
DISTRIBUTION = DOCS / "plugins" / "my-plugins"
MODULES = {p.stem: p for p in sorted((DISTRIBUTION / "my_plugins").glob("*.py")) if p.stem != "__init__"}
USES = {p.stem[len("use_"):]: p for p in sorted((DISTRIBUTION / "examples").glob("use_*.py"))}
TOML = (DISTRIBUTION / "pyproject.toml").read_text()
ENTRY_POINTS = dict(
    (module, name)
    for name, module in re.findall(r'^([\w-]+) = "my_plugins\.(\w+)"$', TOML.split("[project.entry-points.largemargin]")[1], re.M)
)
HOOK_PAGES = {"kernels": "kernels", "losses": "losses", "experts": "experts", "selection": "selection_strategies"}


def test_the_docs_have_one_example_per_hook():
    assert sorted(MODULES) == sorted(USES) == sorted(ENTRY_POINTS) == ["experts", "kernels", "losses", "selection"]
    hooks = {re.search(r"def (largemargin_\w+)\(", MODULES[name].read_text()).group(1) for name in MODULES}
    assert hooks == {"largemargin_kernels", "largemargin_losses", "largemargin_experts",
                     "largemargin_selection_strategies"}


@pytest.mark.parametrize("name", sorted(HOOK_PAGES))
def test_each_hook_page_shows_the_files_that_run(name):
    page = (DOCS / "plugins" / f"{HOOK_PAGES[name]}.rst").read_text()
    assert f".. literalinclude:: my-plugins/my_plugins/{name}.py" in page
    assert f".. literalinclude:: my-plugins/examples/use_{name}.py" in page


@pytest.fixture(scope="module")
def installed():
    """The documentation's distribution as `pip install ./my-plugins` would make it: the package
    importable and each module registered under its entry-point name."""
    package = types.ModuleType("my_plugins")
    package.__path__ = []
    sys.modules["my_plugins"] = package
    registry = get_registry()
    for name, path in MODULES.items():
        module = types.ModuleType(f"my_plugins.{name}")
        sys.modules[module.__name__] = module
        setattr(package, name, module)
        exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
        registry.register(module, name=ENTRY_POINTS[name])
    yield registry
    for name in MODULES:
        registry.unregister(ENTRY_POINTS[name])
        sys.modules.pop(f"my_plugins.{name}", None)
    sys.modules.pop("my_plugins", None)


def test_largemargin_plugins_lists_what_the_docs_say(installed):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        largemargin.cli.main(["plugins"])  # (its exit status also reflects other installed plugins)
    listed = out.getvalue().splitlines()
    text = (DOCS / "plugins.rst").read_text()
    claim = text[text.index("After ``pip install ./my-plugins``"):]
    claim = claim[:claim.index("\n\n")]
    lines = [" ".join(span.split()) for span in re.findall(r"``(my-[^`]+)``", claim)]
    assert len(lines) == 4 and all(line in listed for line in lines), (lines, listed)


@pytest.mark.parametrize("name", ["kernels", "losses", "experts", "selection"])
def test_each_docs_example_runs_as_written(installed, name):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(USES[name].read_text(), str(USES[name]), "exec"), {"__name__": "__main__"})
    printed = out.getvalue().split()
    assert printed, "each example prints what it fitted"
    score = float(printed[-1])  # every example ends by printing a test score
    assert score > {"kernels": 0.9, "losses": 0.8, "experts": 0.65, "selection": 0.7}[name], out.getvalue()
