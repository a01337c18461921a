"""The README's plugin examples, run as written: one module per hook (a block starting
``# my_plugins/NAME.py``), registered under the entry-point name the README's pyproject.toml gives
it, as installing the distribution would, then the block that uses it (``# using my_plugins.NAME``)."""

import contextlib
import io
import pathlib
import re
import sys
import types

import pytest

import largemargin.cli
from largemargin.plugins import get_registry

README = (pathlib.Path(__file__).parents[1] / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)
MODULES = {m.group(1): b for b in BLOCKS if (m := re.match(r"# my_plugins/(\w+)\.py\n", b))}
USES = {m.group(1): b for b in BLOCKS if (m := re.match(r"# using my_plugins\.(\w+)\n", b))}
TOML = re.search(r"```toml\n(# pyproject.toml of the plugin distribution\n.*?)```", README, re.S).group(1)
ENTRY_POINTS = dict(
    (module, name)
    for name, module in re.findall(r'^([\w-]+) = "my_plugins\.(\w+)"$', TOML.split("[project.entry-points.largemargin]")[1], re.M)
)


def test_the_readme_has_one_example_per_hook():
    assert sorted(MODULES) == sorted(USES) == sorted(ENTRY_POINTS) == ["experts", "kernels", "losses", "selection"]
    hooks = {re.search(r"def (largemargin_\w+)\(", MODULES[name]).group(1) for name in MODULES}
    assert hooks == {"largemargin_kernels", "largemargin_losses", "largemargin_experts",
                     "largemargin_selection_strategies"}


@pytest.fixture(scope="module")
def installed():
    """The README's distribution as `pip install ./my-plugins` would make it: the package
    importable and each module registered under its entry-point name."""
    package = types.ModuleType("my_plugins")
    package.__path__ = []
    sys.modules["my_plugins"] = package
    registry = get_registry()
    for name, code in MODULES.items():
        module = types.ModuleType(f"my_plugins.{name}")
        sys.modules[module.__name__] = module
        setattr(package, name, module)
        exec(compile(code, f"README.md: my_plugins/{name}.py", "exec"), module.__dict__)
        registry.register(module, name=ENTRY_POINTS[name])
    yield registry
    for name in MODULES:
        registry.unregister(ENTRY_POINTS[name])
        sys.modules.pop(f"my_plugins.{name}", None)
    sys.modules.pop("my_plugins", None)


def test_largemargin_plugins_lists_what_the_readme_says(installed):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        largemargin.cli.main(["plugins"])  # (its exit status also reflects other installed plugins)
    listed = out.getvalue().splitlines()
    claim = README[README.index("After `pip install ./my-plugins`"):]
    claim = claim[:claim.index("\n\n")]
    lines = [" ".join(span.split()) for span in re.findall(r"`(my-[^`]+)`", claim)]
    assert len(lines) == 4 and all(line in listed for line in lines), (lines, listed)


@pytest.mark.parametrize("name", ["kernels", "losses", "experts", "selection"])
def test_each_readme_example_runs_as_written(installed, name):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(USES[name], f"README.md: using my_plugins.{name}", "exec"), {"__name__": "__main__"})
    printed = out.getvalue().split()
    assert printed, "each example prints what it fitted"
    score = float(printed[-1])  # every example ends by printing a test score
    assert score > {"kernels": 0.9, "losses": 0.8, "experts": 0.65, "selection": 0.7}[name], out.getvalue()
