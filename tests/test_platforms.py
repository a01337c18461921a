"""The oldest supported Python (3.9): what the package uses of the standard library exists there.
(.ci/run also runs the estimator, plugin and command-line tests on the oldest and newest Python.)"""

import ast
from importlib import metadata
from pathlib import Path

import largemargin
from largemargin.plugins import Registry, hookimpl


class _EntryPoint:
    def __init__(self, name, group, load):
        self.name, self.group, self._load = name, group, load

    def load(self):
        return self._load()


class _Plugin:
    @hookimpl
    def largemargin_kernels(self):
        return {"platform_test": lambda A, B: A @ B.T}


def test_registry_reads_the_entry_points_python_3_9_gives(monkeypatch):
    # 3.9's metadata.entry_points() takes no `group` and returns a dict of all groups
    def entry_points():
        return {"largemargin": [_EntryPoint("platform-plugin", "largemargin", _Plugin)],
                "console_scripts": [_EntryPoint("other", "console_scripts", lambda: 1 / 0)]}

    monkeypatch.setattr(metadata, "entry_points", entry_points)
    registry = Registry()
    assert registry.failures == []
    assert registry.available("kernel")["platform_test"][1] == "platform-plugin"


def test_the_package_parses_as_python_3_9():
    # match statements, parenthesised context managers, except* ... are refused here
    root = Path(largemargin.__file__).parent
    sources = sorted(root.rglob("*.py"))
    assert len(sources) > 10
    for path in sources:
        ast.parse(path.read_text(encoding="utf-8"), filename=str(path), feature_version=(3, 9))
