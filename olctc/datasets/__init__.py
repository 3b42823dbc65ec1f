"""The paper's 17 real data sets, vendored as gzip CSV (provenance in README.md beside this file)."""
from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from olctc.errors import OlctcError

if TYPE_CHECKING:
    from olctc.data import Dataset

TARGET = "y"


def dataset_names() -> list[str]:
    """Names of the vendored data sets, sorted."""
    root = resources.files(__name__)
    return sorted(p.name[: -len(".csv.gz")] for p in root.iterdir() if p.name.endswith(".csv.gz"))


def dataset_path(name: str) -> Path:
    """Path of a vendored data set's file; OlctcError listing the names when unknown."""
    names = dataset_names()
    if name not in names:
        raise OlctcError(f"unknown data set {name!r}; known: {', '.join(names)}")
    return Path(str(resources.files(__name__).joinpath(f"{name}.csv.gz")))


def load(name: str, positive_class: Any = None, drop: Sequence[str] = (), *,
         weight_column: str | None = None) -> Dataset:
    """The vendored data set ``name`` as an olctc Dataset (encoded, labels -1/+1), without the columns
    in ``drop`` (and with ``weight_column``'s values as per-point weights, if given)."""
    from olctc.data import read_csv

    path = dataset_path(name)
    try:
        ds = read_csv(path, TARGET, positive_class, drop, weight_column=weight_column)
    except OlctcError as exc:  # "data set haberman: ...", not the installed file's path
        raise type(exc)(str(exc).replace(str(path), f"data set {name}", 1)) from None
    ds.name = name
    ds.source = f"dataset:{name}"
    return ds


def load_dataset(name: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Return ``(X, y, feature_names)`` for a vendored data set.

    X is the encoded float matrix (categorical columns one-hot encoded, not standardised), y holds the
    original class labels, feature_names the encoded feature names.
    """
    ds = load(name)
    labels = ds.labels(ds.y)
    # A typed array (int64, float64 or str), not objects: scikit-learn's metrics reject object labels.
    kinds = {type(c) for c in ds.classes}
    dtype = np.int64 if kinds == {int} else np.float64 if kinds <= {int, float} else str
    return ds.X, labels.astype(dtype), ds.feature_names
