"""olctc: compile optimal classification tree training problems into portable MILP files."""
# no ``from __future__ import annotations``: it would be a name of this module, listed by dir(olctc)
__version__ = "0.1.0"

import importlib as _importlib
import typing as _typing

from olctc.errors import OlctcError

if _typing.TYPE_CHECKING:
    from olctc.datasets import dataset_names, load_dataset
    from olctc.compile import compile_problem
    from olctc.data import from_arrays, read_csv
    from olctc.estimator import MARGOTClassifier, OCTHClassifier, OLCTClassifier
    from olctc.export import export_tree
    from olctc.export.json import load as load_tree
    from olctc.spec import make_spec
    from olctc.tree import Tree

# The names a user reaches for first, each imported on first use: ``import olctc`` imports no numpy (0.1 s of
# the console program's start, when a Ctrl-C can only be a traceback: ``olctc.__main__``), the estimators
# pull in scikit-learn and the exporters onnx. The function ``fit``
# is not here: ``olctc.fit`` is its module's name, and the module would replace it on its first import.
_LAZY = {
    "load_dataset": ("olctc.datasets", "load_dataset"),
    "dataset_names": ("olctc.datasets", "dataset_names"),
    "OLCTClassifier": ("olctc.estimator", "OLCTClassifier"),
    "MARGOTClassifier": ("olctc.estimator", "MARGOTClassifier"),
    "OCTHClassifier": ("olctc.estimator", "OCTHClassifier"),
    "Tree": ("olctc.tree", "Tree"),
    "load_tree": ("olctc.export.json", "load"),
    "export_tree": ("olctc.export", "export_tree"),
    "read_csv": ("olctc.data", "read_csv"),
    "from_arrays": ("olctc.data", "from_arrays"),
    "make_spec": ("olctc.spec", "make_spec"),
    "compile_problem": ("olctc.compile", "compile_problem"),
}

__all__ = ["__version__", "OlctcError", "load_dataset", "dataset_names", "OLCTClassifier", "MARGOTClassifier",
           "OCTHClassifier", "Tree", "load_tree", "export_tree", "read_csv", "from_arrays", "make_spec",
           "compile_problem"]


def __getattr__(name: str) -> _typing.Any:
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'olctc' has no attribute {name!r}") from None
    value = getattr(_importlib.import_module(module), attr)
    globals()[name] = value  # the next lookup finds it without this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
