"""``from_arrays``: arrays (numpy, pandas, lists) to a ``Dataset``, checked as ``read_csv`` checks a file."""
from __future__ import annotations

import hashlib
from typing import Any, Sequence

import numpy as np

from olctc.data.cells import _shown, non_finite
from olctc.data.dataset import Column, Dataset, Schema, check_real
from olctc.data.labels import binarise_labels, is_unicode
from olctc.data.weights import _weight_array
from olctc.errors import OlctcError, first_repeat, param_error


def _first_missing_label(y: np.ndarray) -> int | None:
    """The first row of ``y`` with no label: NaN, None, pandas' NA or NaT."""
    if y.dtype.kind in "fc":
        bad = np.isnan(y)
    elif y.dtype.kind == "M":
        bad = np.isnat(y)
    elif y.dtype.kind == "O":
        bad = np.fromiter((v is None or type(v).__name__ in ("NAType", "NaTType")
                           or (isinstance(v, (float, np.floating)) and v != v) for v in y), bool, y.shape[0])
    else:
        return None
    return int(np.argmax(bad)) if bad.any() else None


#: The source a Dataset made by ``from_arrays`` records unless named: no file to read it from again.
ARRAYS_SOURCE = "arrays"


def from_arrays(X: Any, y: Any, feature_names: Sequence[str] | None = None, positive_class: Any = None,
                name: str = ARRAYS_SOURCE, sample_weight: Any = None) -> Dataset:
    """Validate numeric arrays (as the estimators receive them) into a Dataset; ``sample_weight``: one
    loss weight >= 0 per row, or None."""
    check_real(X, "X")
    if hasattr(X, "toarray") and hasattr(X, "nnz"):  # scipy.sparse: "X must be numeric" said nothing useful
        raise OlctcError("X is a sparse matrix; olctc takes dense arrays: pass X.toarray()")
    if feature_names is None and hasattr(X, "columns") and all(isinstance(c, str) for c in X.columns):
        feature_names = list(X.columns)  # a DataFrame's names, as the estimators keep them (not x0, x1, ...)
    try:
        Xa = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        raise OlctcError("X must be numeric; encode text columns first (or use a CSV file)") from None
    except OverflowError:  # a Python int beyond float64 (10**400)
        raise OlctcError("X holds an integer too large for a float64 (above 1.8e308)") from None
    if Xa.ndim != 2:
        raise OlctcError(f"X must be a 2-D array; got {Xa.ndim} dimension(s)")
    ya = np.asarray(y)
    if ya.ndim != 1 or ya.shape[0] != Xa.shape[0]:
        raise OlctcError(f"y must be 1-D with one label per row of X ({Xa.shape[0]}); got shape {ya.shape}")
    if Xa.shape[0] < 2:
        raise OlctcError(f"at least 2 points are needed; got {Xa.shape[0]}")
    bad = ~np.isfinite(Xa)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise non_finite(Xa[i, j], f"row {i}, column {j}")
    if Xa.shape[1] < 1:
        raise OlctcError("X has no feature columns; at least 1 is needed")
    if isinstance(feature_names, (str, bytes)) or (feature_names is not None and (
            not hasattr(feature_names, "__iter__") or any(n is None for n in feature_names))):
        # "abc" named the features a, b, c; None named one "None"; 5 failed as "'int' object is not iterable"
        raise param_error("feature_names", "a list of names, one per column of X", feature_names)
    names = [str(n) for n in feature_names] if feature_names is not None else [f"x{j}" for j in range(Xa.shape[1])]
    if len(names) != Xa.shape[1]:
        raise OlctcError(f"feature_names has {len(names)} name(s) for the {Xa.shape[1]} column(s) of X")
    dup = first_repeat(names)
    if dup is not None:
        raise OlctcError(f"feature_names names {names[dup]!r} twice; feature names must be unique")
    for j, n in enumerate(names):
        if n == "":
            # A tree file names every column (as a CSV header must): an unnamed one could not be read back.
            raise OlctcError(f"feature_names[{j}] is empty; every feature needs a name")
        if not is_unicode(n):
            # Every file olctc writes (manifest, tree JSON, code) is UTF-8: such a name could not be saved.
            raise OlctcError(f"feature_names[{j}] {n!r} is not valid Unicode text (a lone surrogate); "
                             "decode the name properly")
    missing = _first_missing_label(ya)
    if missing is not None:
        # each NaN was a class of its own, and with positive_class every unlabelled row a negative one
        raise OlctcError(f"y row {missing}: no class label ({_shown(ya[missing])!r}); drop the unlabelled rows")
    yv, classes = binarise_labels(list(ya), positive_class, name, "y")
    schema = Schema(tuple(Column(n, "numeric") for n in names))
    weight = None if sample_weight is None else _weight_array(sample_weight, Xa.shape[0], yv, classes)
    digest = hashlib.sha256(Xa.tobytes() + yv.tobytes()
                            + (b"" if weight is None else weight.tobytes())).hexdigest()
    return Dataset(Xa, yv, classes, schema, name, digest, name, weight=weight)
