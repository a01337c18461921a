"""The package's layering, checked on the source: the plugin layer and the base layer know no
estimator, estimator modules share private code only through the base layer, and every module
imports alone in a fresh interpreter (no cycle held together by import order)."""

import ast
import importlib
import pathlib
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

import largemargin

PACKAGE = pathlib.Path(largemargin.__file__).parent
# modules below the estimators: helpers, the plugin layer, the base layer
LOWER = {"_arrays", "_checks", "_compat", "_guard", "_multiclass", "_native", "_options", "_progress", "_threads",
         "_validation", "exceptions", "kernels", "plugins", "_base"}


def modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).with_suffix("")
        parts = [p for p in rel.parts if p != "__init__"]
        yield ".".join(["largemargin", *parts]), path


def imported(path, name):
    """(module imported, [names]) for every import of the file, function-local ones too, as
    absolute largemargin module names."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("largemargin"):
                continue
            names = [a.name for a in node.names]
            if node.module is None:  # from . import x: x are modules
                for n in names:
                    yield f"{target}.{n}", []
            else:
                yield target, names
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("largemargin"):
                    yield a.name, []


def top(module):
    """The package-level unit a module belongs to: 'svm', 'plugins', '_base', ..."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


EDGES = [(name, top(name), target, top(target), names)
         for name, path in modules() for target, names in imported(path, name)]


def test_the_plugin_and_base_layers_know_no_estimator():
    bad = [(src, dst) for src, unit, dst, dst_unit, _ in EDGES
           if unit in LOWER and dst_unit not in LOWER and dst_unit != ""]
    assert not bad, f"lower layers importing estimator modules: {bad}"


def test_the_plugin_layer_imports_no_base_layer():
    bad = [(src, dst) for src, unit, dst, dst_unit, _ in EDGES if unit == "plugins" and dst_unit == "_base"]
    assert not bad, bad


def test_estimator_modules_share_private_code_only_through_the_base_layer():
    bad = [(src, dst, [n for n in names if n.startswith("_")]) for src, unit, dst, dst_unit, names in EDGES
           if unit not in LOWER and dst_unit not in LOWER and unit != dst_unit and dst_unit != ""
           and any(n.startswith("_") for n in names)]
    assert not bad, f"private names imported across estimator modules: {bad}"


def test_the_checker_sees_the_layers():
    # the rules above can fail: the graph holds the imports they are about
    assert ("largemargin.svm", "largemargin._base") in {(s, d) for s, _, d, _, _ in EDGES}
    assert any(u == "plugins" for _, u, _, _, _ in EDGES)


def test_every_module_imports_on_this_python():
    # (all in this interpreter: what the Python's version decides, such as syntax, on every Python)
    for name in (n for n, _ in modules() if not n.endswith("__main__")):
        importlib.import_module(name)


@pytest.mark.slow  # a fresh interpreter per module: minutes, and the same import graph on every Python
@pytest.mark.parametrize("chunk", range(2))
def test_every_module_imports_alone_in_a_fresh_interpreter(chunk):
    names = [n for n, _ in modules() if not n.endswith("__main__")][chunk::2]

    def alone(name):
        r = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True)
        return name, r.returncode, r.stderr[-600:]

    with ThreadPoolExecutor(2) as pool:
        failed = [(n, err) for n, rc, err in pool.map(alone, names) if rc != 0]
    assert not failed, failed


# Public names that moved to another module stay importable from their former one, so that user
# code importing them there and pickles naming them there (a pickle names a class by its module)
# keep loading.
FORMER_PATHS = {
    "largemargin.online": ["LaSVM", "Huller", "KernelPerceptron"],
    "largemargin.sequence": ["SequenceLabeler", "WindowFeatures", "chunk_f1", "chunk_scores", "read_conll",
                             "token_accuracy", "MAX_REPROCESS"],
    "largemargin.mixture": ["MixtureSVC", "MixtureSVR", "auto_experts"],
    "largemargin.mlp": ["SimpleMLPClassifier", "NilssonMLPClassifier", "TanhMLPClassifier", "MAX_COMMITTEES",
                        "AUTO_STEP", "AUTO_FLOOR", "UNSCALED_MEAN_SQUARE"],
    "largemargin.search": ["SVCSearchCV", "SVRSearchCV", "DEFAULT_C"],
    "largemargin.linear": ["LinearSGD", "MarginPerceptron"],
}


@pytest.mark.parametrize("module", sorted(FORMER_PATHS))
def test_moved_names_stay_importable_from_their_former_module(module):
    import importlib

    mod = importlib.import_module(module)
    for name in FORMER_PATHS[module]:
        assert hasattr(mod, name), f"{module}.{name}"
        if hasattr(largemargin, name):
            assert getattr(mod, name) is getattr(largemargin, name)


@pytest.mark.parametrize("cls, former", [(largemargin.LaSVM, "largemargin.online"),
                                         (largemargin.SequenceLabeler, "largemargin.sequence"),
                                         (largemargin.MixtureSVC, "largemargin.mixture"),
                                         (largemargin.MixtureSVR, "largemargin.mixture")])
def test_a_pickle_naming_the_former_module_loads(cls, former):
    import pickle
    import warnings

    data = pickle.dumps(cls(), protocol=2)  # protocol 2 names a class as "c<module>\n<name>\n"
    here = f"c{cls.__module__}\n{cls.__name__}\n".encode()
    assert here in data
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        again = pickle.loads(data.replace(here, f"c{former}\n{cls.__name__}\n".encode()))
    assert type(again) is cls and again.get_params() == cls().get_params()
