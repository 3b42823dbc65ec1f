"""The data types every step shares: ``Column`` and ``Schema`` (how raw columns become features, for new
rows too), ``Scaler`` (standardisation) and ``Dataset`` (encoded features, labels -1/+1, weights)."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from olctc.data.cells import Label, _is_missing, _missing, _to_float_column
from olctc.data.labels import json_label
from olctc.errors import OlctcError, param_error, shorten


@dataclass(frozen=True)
class Column:
    """One input column: numeric, or categorical with its categories (sorted)."""

    name: str
    kind: str  # "numeric" | "categorical"
    categories: tuple[str, ...] = ()

    def feature_names(self) -> list[str]:
        if self.kind == "numeric":
            return [self.name]
        return [f"{self.name}={c}" for c in self.categories]

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.kind == "categorical":
            d["categories"] = list(self.categories)
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "Column":
        return cls(str(d["name"]), str(d["kind"]), tuple(str(c) for c in d.get("categories", ())))


@dataclass(frozen=True)
class Schema:
    """How raw input columns become the encoded feature matrix (the inverse data of encoding)."""

    columns: tuple[Column, ...]

    @property
    def feature_names(self) -> list[str]:
        return [f for c in self.columns for f in c.feature_names()]

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def is_numeric(self) -> bool:
        return all(c.kind == "numeric" for c in self.columns)

    def encode(self, cells: Mapping[str, Sequence[Any] | np.ndarray], source: str = "data",
               n_rows: int | None = None, unseen: dict[str, np.ndarray] | None = None) -> np.ndarray:
        """Encode raw cells (column name -> values) into the float feature matrix.

        Unknown categories encode as all-zero one-hot rows (scikit-learn's ``handle_unknown='ignore'``).
        ``n_rows``: the number of rows, which a schema of no column cannot read from the cells.
        ``unseen``: filled with column name -> the rows (ascending) holding none of its categories, for the
        categorical columns that have some.
        """
        for col in self.columns:
            try:
                there = col.name in cells
            except TypeError:  # None or a number: "argument of type 'NoneType' is not iterable"
                raise OlctcError(f"{source}: expected raw cells as a dict of column name -> values (or a "
                                 f"DataFrame); got {type(cells).__name__}") from None
            if not there:
                raise OlctcError(f"{source}: column {col.name!r} is missing; the tree needs "
                                 f"{[c.name for c in self.columns]}")
            if isinstance(cells[col.name], (str, bytes)) or not hasattr(cells[col.name], "__len__"):
                raise OlctcError(f"{source}: column {col.name!r} must hold a list of values, one per row; got "
                                 f"{shorten(repr(cells[col.name]))}")
        if not self.columns:  # a tree of no feature: each row is scored by its leaf's constant alone
            return np.zeros((n_rows or 0, 0))
        first = self.columns[0].name
        n = len(cells[first])
        # One matrix filled in place: blocks joined by hstack held the one-hot part twice, and comparing
        # every cell with every category took n x k steps (30 s and 6 GB for an identifier of 20,000 rows).
        X = np.zeros((n, self.n_features))
        j = 0
        for col in self.columns:
            vals = cells[col.name]
            if len(vals) != n:
                raise OlctcError(f"{source}: column {col.name!r} has {len(vals)} values, column {first!r} has {n}")
            if col.kind == "numeric":
                # raw cells of no file (Tree.encode, explain's dict): errors name the row, not a line
                X[:, j] = _to_float_column(vals, col.name, source, None)
                j += 1
            else:
                rows, hits, missed = _category_hits(vals, col.categories, col.name, source)
                X[rows, j + hits] = 1.0
                if unseen is not None and missed.size:
                    unseen[col.name] = missed
                j += len(col.categories)
        return X

    def to_json(self) -> list[dict[str, Any]]:
        return [c.to_json() for c in self.columns]

    @classmethod
    def from_json(cls, d: list[dict[str, Any]]) -> "Schema":
        return cls(tuple(Column.from_json(c) for c in d))


#: What str() makes of a missing value (None, NaN, pd.NA, NaT): a category of one of these texts is no
#: proof that a cell is not missing.
MISSING_TEXTS = frozenset({"None", "nan", "NaN", "<NA>", "NaT"})


def _category_hits(vals: Sequence[Any] | np.ndarray, categories: tuple[str, ...], name: str = "",
                   source: str = "data") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, category index) of each cell whose text is one of ``categories``, and the rows of the others:
    unseen categories, encoded as none (scikit-learn's ``handle_unknown='ignore'``), but a missing value (None,
    NaN, pd.NA) is an error, as in a numeric column: str(None) was the unseen category 'None' (QA pass,
    2026-12-03)."""
    index = {c: k for k, c in enumerate(categories)}
    if len(index) < len(categories):  # a category twice (a Schema built by hand): each copy is a hit
        eq = np.asarray([str(v) for v in vals], dtype=object)[:, None] == np.asarray(categories, dtype=object)
        rows, hits = np.nonzero(eq)
        unseen = np.flatnonzero(~eq.any(axis=1))
    else:
        codes = np.fromiter((index.get(str(v), -1) for v in vals), dtype=np.intp, count=len(vals))
        rows = np.flatnonzero(codes >= 0)
        hits = codes[rows]
        unseen = np.flatnonzero(codes < 0)
    suspects = unseen  # few: only cells that are no category are looked at ...
    ghosts = [k for k, c in enumerate(categories) if c in MISSING_TEXTS]
    if ghosts:  # ... and those matching a category 'None' or 'nan' (a file's text), which str(None) also gives
        suspects = np.union1d(unseen, rows[np.isin(hits, ghosts)])
    for k in suspects.tolist():
        if _is_missing(vals[k]):
            raise _missing(source, name, f"row {k}")
    return rows, hits, unseen


#: Relative distance from a column's mean within which a value is the mean (rounding of the mean's sum).
MEAN_ROUNDING = 16 * np.finfo(np.float64).eps
#: ... in a column that is not constant to rounding, provided the difference is also negligible against
#: the column's spread: 1e14 + 0.25 is not the mean 1e14 of a column of spread 1.
NEGLIGIBLE_SCORE = 1e-12


#: Rows ``Scaler.transform`` zeroes values near the mean in at a time (its temporary arrays' size).
_SCALE_ROWS = 4096

#: Columns whose largest |value| is below this are standardised after division by it (squares underflow).
TINY_COLUMN = 1e-100


@dataclass(frozen=True, eq=False)  # == is identity: a field-wise == over arrays raised, and hash() too
class Scaler:
    """Standardisation as scikit-learn's StandardScaler (population std; zero variance -> scale 1)."""

    mean: np.ndarray
    scale: np.ndarray

    @classmethod
    def fit(cls, X: np.ndarray, sample_weight: np.ndarray | None = None) -> "Scaler":
        """Mean and population std of each column, weighted by ``sample_weight`` when given (as
        StandardScaler's: a point of weight 2 counts as two points). Only the weights' ratios matter: they
        are divided by the largest first, so that weights of 1e-320 or 1e300 give the unweighted moments
        when all are equal (scikit-learn's lose digits at the former and return nan at the latter)."""
        if not X.shape[0]:
            return cls.identity(X.shape[1])
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            w_top = float(sample_weight.max())
            if w_top > 0:
                sample_weight = sample_weight / w_top
        with np.errstate(over="ignore", invalid="ignore"):
            mean, std = _moments(X, sample_weight)
            # Squares (or sums) of values near 1e154 (1e308) overflow, and squares of values below 1e-154
            # underflow (a column of 1e-200 had std 0 and was taken for constant): rescale those columns.
            big = ~(np.isfinite(mean) & np.isfinite(std))
            # np.abs(X).max(axis=0) without the copy np.abs makes (floats: -min does not overflow)
            top = np.maximum(X.max(axis=0), -X.min(axis=0)) if X.dtype.kind == "f" else np.abs(X).max(axis=0)
            big |= (top > 0) & (top < TINY_COLUMN)
            if big.any():
                top = top[big]
                m, s = _moments(X[:, big] / top, sample_weight)
                mean[big], std[big] = m * top, s * top
        # Near-constant columns get scale 1, by scikit-learn's test (_is_constant_feature): var <= n eps var
        # + (n eps mean)^2, relative to the mean, so a column of tiny values (1e-20) is scaled, not dropped.
        # Written on std (not var) so that columns near 1e154 and above do not overflow. n is the number of
        # rows summed, weighted or not: the rounding error grows with the terms, not with the weights'
        # scale (scikit-learn's n, the weights' sum, made every column constant once it passed 1 / eps,
        # 4.5e15: weights of 1e14 on 50 points).
        n = X.shape[0]
        k = n * np.finfo(np.float64).eps
        const = std * np.sqrt(max(1.0 - k, 0.0)) <= k * np.abs(mean)
        std = np.where(const | (std == 0.0), 1.0, std)
        return cls(mean, std)

    @classmethod
    def identity(cls, p: int) -> "Scaler":
        """The scaler that leaves ``p`` features as they are (mean 0, scale 1)."""
        return cls(np.zeros(p), np.ones(p))

    def transform(self, X: np.ndarray) -> np.ndarray:
        """(X - mean) / scale, with values within rounding of a column's mean set to exactly 0."""
        D = X - self.mean
        # A value equal to the mean but for the mean's own rounding (1.5 against a computed 1.5 + 2e-16) is
        # the mean. Left at 2e-16 it became a model coefficient that solvers read differently: glpsol called
        # 9.81 "optimal" on an LP file whose optimum, with the coefficient 0, is 5.92.
        # Zeroing all within 16 eps of the mean zeroed a third of a column of values near 1e14 with a spread
        # of 1 (22 ulps, where the data resolve 1/64). A scale of 1 is the constant columns' (Scaler.fit):
        # their spread is rounding, and within it every value is the mean. The rule reads mean and scale
        # only, so that decode rebuilds from the manifest the model compile wrote.
        near = MEAN_ROUNDING * np.abs(self.mean)
        near = np.where(self.scale == 1.0, near, np.minimum(near, NEGLIGIBLE_SCORE * self.scale))
        if type(D) is not np.ndarray or D.ndim != 2:
            D[np.abs(D) <= near] = 0.0
            return D / self.scale
        # in place, by blocks of rows: np.abs(D), its mask and D / scale were each another n x p array
        for a in range(0, D.shape[0], _SCALE_ROWS):
            blk = D[a:a + _SCALE_ROWS]
            blk[np.abs(blk) <= near] = 0.0
        D /= self.scale
        return D

    def to_json(self) -> dict[str, list[float]]:
        return {"mean": [float(v) for v in self.mean], "scale": [float(v) for v in self.scale]}

    @classmethod
    def from_json(cls, d: dict[str, list[float]]) -> "Scaler":
        return cls(np.asarray(d["mean"], dtype=float), np.asarray(d["scale"], dtype=float))


def _moments(X: np.ndarray, w: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    if w is None:
        return X.mean(axis=0), X.std(axis=0)
    mean = np.average(X, axis=0, weights=w)
    return mean, np.sqrt(np.average((X - mean) ** 2, axis=0, weights=w))


@dataclass
class Dataset:
    """A validated binary classification data set, encoded but not standardised.

    Attributes
    ----------
    X : (n, p) float64 encoded features.
    y : (n,) int8 labels in {-1, +1}.
    classes : (negative label, positive label) as in the source.
    schema : how raw columns map to the columns of X.
    name : short name (file stem or vendored data set name).
    sha256 : hash of the source bytes (uncompressed), or of the arrays when built from arrays.
    source : where the data came from (path or ``dataset:NAME``), for the manifest.
    dropped : columns of the source left out (read_csv's ``drop``), besides the target.
    weight : (n,) float64 per-point loss weights (finite, >= 0, some > 0), or None: every point weighs 1.
    weight_column : the source column the weights came from (read_csv's ``weight_column``), if any.
    rows : (n,) int64 row numbers of the points in the source data when the Dataset is part of it
        (``subset``), else None. A manifest compiled from it records them, for decode to take the same points
        out of the source again; a row may repeat (a bootstrap sample).
    """

    X: np.ndarray
    y: np.ndarray
    classes: tuple[Label, Label]
    schema: Schema
    name: str = "data"
    sha256: str = ""
    source: str = ""
    target: str = "y"
    extra: dict[str, Any] = field(default_factory=dict)
    dropped: tuple[str, ...] = ()
    weight: np.ndarray | None = None
    weight_column: str | None = None
    rows: np.ndarray | None = None

    @property
    def n(self) -> int:
        """Number of points (rows)."""
        return int(self.X.shape[0])

    @property
    def p(self) -> int:
        """Number of encoded features (columns of X)."""
        return int(self.X.shape[1])

    @property
    def feature_names(self) -> list[str]:
        """Names of X's columns: a numeric column's own, ``name=category`` for each one-hot column."""
        return self.schema.feature_names

    def subset(self, rows: np.ndarray) -> "Dataset":
        """The same data restricted to ``rows`` (e.g. a training split): indices in [0, n) or a mask of n.

        Its ``rows`` are the source's row numbers of the points kept (all of them in order: None)."""
        rows = _row_index(rows, self.n)
        if rows.dtype == bool:
            rows = np.flatnonzero(rows)
        if self.rows is not None:
            source_rows: np.ndarray | None = self.rows[rows]
        elif rows.size == self.n and np.array_equal(rows, np.arange(self.n)):
            source_rows = None
        else:
            source_rows = rows.astype(np.int64)
        return Dataset(self.X[rows], self.y[rows], self.classes, self.schema, self.name,
                       self.sha256, self.source, self.target, dict(self.extra), self.dropped,
                       None if self.weight is None else self.weight[rows], self.weight_column, source_rows)

    def source_info(self) -> dict[str, Any]:
        """What a manifest or a grid records to read this data again (``olctc.pipeline.load_source``)."""
        info = {"name": self.name, "source": self.source, "sha256": self.sha256, "target": self.target,
                "positive_class": json_label(self.classes[1])}
        # only when used, so that the records of data read whole stay as they were
        return (info | ({"dropped": list(self.dropped)} if self.dropped else {})
                | ({"weight_column": self.weight_column} if self.weight_column is not None else {}))

    def labels(self, y_pm: np.ndarray) -> np.ndarray:
        """Map -1/+1 back to the original class labels."""
        return np.where(np.asarray(y_pm) > 0, np.asarray([self.classes[1]], dtype=object),
                        np.asarray([self.classes[0]], dtype=object))


def check_real(a: Any, name: str) -> None:
    """OlctcError when the array-like ``a`` holds complex numbers (numpy drops their imaginary parts with a
    warning only, a silent wrong answer), dates or durations. Told by the dtypes where ``a`` has them
    (np.iscomplexobj copies a DataFrame whole); ragged input passes, for the conversion that follows to name."""
    dtype = getattr(a, "dtype", None)
    kinds: set[str | None]
    if isinstance(dtype, np.dtype):
        kinds = {dtype.kind}
    elif dtype is None and getattr(a, "dtypes", None) is not None:  # a DataFrame: its columns' dtypes
        kinds = {getattr(d, "kind", None) for d in a.dtypes}
    else:
        try:
            kinds = {"c"} if np.iscomplexobj(a) else set()
        except (TypeError, ValueError):
            kinds = set()
    if "c" in kinds:
        raise OlctcError(f"{name} has complex values; olctc needs real numbers")
    if kinds & {"M", "m"}:  # became days (an array) or nanoseconds (a DataFrame) since 1970, silently (QA)
        raise OlctcError(f"{name} holds dates or durations (datetime64, timedelta64); olctc needs numbers: convert "
                         "them first (such as days since a date of your choice)")


def check_dataset(value: Any, name: str = "ds") -> None:
    """The parameter error for ``name`` unless ``value`` is a Dataset (None failed deep inside, on an
    attribute it lacks)."""
    if not isinstance(value, Dataset):
        raise param_error(name, "an olctc Dataset (olctc.data.read_csv, from_arrays, olctc.datasets.load)",
                          type(value).__name__)


def _row_index(rows: Any, n: int) -> np.ndarray:
    """``rows`` as a 1-D index array: integer indices in [0, n), or a boolean mask of length n.

    numpy's IndexError came otherwise, and a scalar or 2-D index gave a Dataset of the wrong shape.
    """
    def bad() -> OlctcError:  # built on failure only: the repr of a long list of indices is long to make
        return OlctcError(f"The 'rows' parameter must be row indices in [0, {n}) or a boolean mask of {n}, 1-D. "
                          f"Got {shorten(' '.join(repr(rows).split()))} instead.")

    try:
        arr = np.asarray(rows)
    except (TypeError, ValueError):
        raise bad() from None
    if arr.ndim == 1 and arr.size == 0:
        return arr.astype(np.intp)
    ok = arr.ndim == 1 and (arr.shape[0] == n if arr.dtype == bool
                            else np.issubdtype(arr.dtype, np.integer) and bool(((arr >= 0) & (arr < n)).all()))
    if not ok:
        raise bad()
    return arr
