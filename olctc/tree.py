"""The trained tree: parallel arrays in heap order (scikit-learn's ``tree_`` style).

Node t has children 2t+1 (left, score <= 0) and 2t+2 (right, score > 0). All nodes are branch nodes;
the last layer's nodes are binary classifiers themselves (there are no leaves). Weights live in the
standardised feature space the model was trained in; ``W_raw``/``b_raw`` fold the standardisation in so
that every prediction method (and every exporter) takes the encoded, unstandardised matrix of
``Dataset.X``.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from olctc.data import Column, Scaler, Schema, check_real, non_finite
from olctc.data.cells import _shown
from olctc.errors import OlctcError, is_integer, param_error, shorten, warn
from olctc.formulation.topology import Topology

if TYPE_CHECKING:
    import scipy.sparse as sp

Label = int | float | str


def sigmoid(z: np.ndarray) -> np.ndarray:
    """Logistic function, without overflow for large |z|.

    Both branches evaluate exp(-|z|) <= 1, so nothing overflows; the exporters use the same formula.
    """
    z = np.asarray(z, dtype=np.float64)
    with np.errstate(under="ignore"):  # exp(-|z|) -> 0 is the right answer for huge |z|
        e = np.exp(-np.abs(z))
    return np.where(z >= 0, 1.0 / (1.0 + e), e / (1.0 + e))


def log_sigmoid(z: np.ndarray) -> np.ndarray:
    """log(sigmoid(z)) = -log(1 + exp(-z)), finite wherever z is: no log(0) where sigmoid rounds to 0."""
    return -np.logaddexp(0.0, -np.asarray(z, dtype=np.float64))


def _scores(scores: Any) -> np.ndarray:
    """``scores`` as a 1-D float array (``decision_function``'s): a 2-D array made 4 probability columns."""
    check_real(scores, "scores")
    try:
        z = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):  # text: numpy's "could not convert string to float"
        raise OlctcError(f"scores must be numbers, one decision_function value per row; got "
                         f"{shorten(repr(scores))}") from None
    if z.ndim != 1:
        raise OlctcError(f"scores must be 1-D, one decision_function value per row; got shape {z.shape}")
    nan = np.isnan(z)
    if nan.any():  # None in a list is NaN: it was labelled the negative class, with NaN probabilities
        raise OlctcError(f"scores must not be NaN (decision_function values); got NaN at row {np.argmax(nan)}")
    return z


def children_over(counts: np.ndarray | None) -> int | None:
    """The first node k whose two child nodes (2k+1, 2k+2) count more points than k (the points reaching a node
    are split between its children), or None."""
    if counts is None or counts.size < 3:
        return None
    # a subtraction of counts >= 0 cannot overflow, where int64's sum of two 2**62 wrapped to -2**63
    over = np.flatnonzero(counts[1::2] > counts[: (counts.size - 1) // 2] - counts[2::2])
    return int(over[0]) if over.size else None


def _check_label(v: Any, what: str) -> Label:
    if isinstance(v, (bool, np.bool_)):
        raise OlctcError(f"{what} must be an int, float or str; got the bool {bool(v)!r}")  # not np.True_
    if isinstance(v, np.integer):
        v = int(v)
    elif isinstance(v, np.floating):
        v = float(v)
    elif isinstance(v, np.str_):
        v = str(v)
    if isinstance(v, float) and not math.isfinite(v):
        raise OlctcError(f"{what} must be finite; got {v!r}")
    if not isinstance(v, (int, float, str)):
        raise OlctcError(f"{what} must be an int, float or str; got {type(v).__name__} {v!r}")
    return v


class ScoreOverflow(OlctcError):
    """A row whose score overflows; ``row`` (0-based in the batch) and ``node`` let a caller that predicts in
    batches name the row in the whole input."""

    def __init__(self, row: int, node: int, where: str | None = None) -> None:
        super().__init__(f"{where or f'row {row}'}: the score of node {node} overflows (values too large for "
                         "this tree's weights); rescale the input")
        self.row, self.node, self.where = row, node, where

    def __reduce__(self) -> tuple:  # pickled across processes (joblib workers) by its arguments
        return ScoreOverflow, (self.row, self.node, self.where)


_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
# A weight (standardised units) below this is solver noise, not a feature the split uses: SCIP leaves |w| ~ 3e-9
# in MARGOT's quadratic solutions at a node whose score is its b (QA 2026-12-05), where a used feature's weight
# is orders above; such a weight moves a score by less than the routing margin epsilon (1e-5) on |z| < 10.
NEGLIGIBLE_WEIGHT = 1e-6


def weights_used(W: np.ndarray) -> np.ndarray:
    """Which weights of ``W`` (nodes x features, standardised) count as used: |w| above ``NEGLIGIBLE_WEIGHT``."""
    return np.abs(np.asarray(W, dtype=np.float64)) > NEGLIGIBLE_WEIGHT


_SCORE_BLOCK = 8192  # rows per block of Tree.scores
_FEW_ROWS = 64  # up to this many rows, Tree.scores makes one numpy call per node (explain: 50x faster)
# Up to this depth (31 nodes) a row's path is read from every node's scores, computed a block of rows at a time
# over one copy of the block; deeper trees score each node on the rows that reach it (benchmarks/predict_depth.py)
_EVERY_NODE_DEPTH = 5


def class_array(classes: Sequence[Label]) -> np.ndarray:
    """The two labels as an array: int64 for ints, float64 for floats, object otherwise.

    Mixed labels (e.g. ``(3, "not 3")``) stay Python objects instead of being coerced to strings.
    """
    if all(isinstance(c, int) and _INT64_MIN <= c <= _INT64_MAX for c in classes):
        return np.asarray(classes, dtype=np.int64)
    if all(isinstance(c, float) for c in classes):
        return np.asarray(classes, dtype=np.float64)
    # An int beside a float (1 and 2.5) stays an int: a float array would print the 1 as 1.0.
    out = np.empty(len(classes), dtype=object)
    out[:] = list(classes)
    return out


def _term_sum(rows: Iterable[np.ndarray], weights: np.ndarray, b: float, s: np.ndarray, term: np.ndarray) -> np.ndarray:
    """b + the sum of each feature's row times its weight, the terms added one at a time from 0.0 in feature order
    (the generated Python code's order, whatever the batch); ``s`` and ``term`` are scratch of the rows' length."""
    s.fill(0.0)
    for row, wj in zip(rows, weights):
        s += np.multiply(row, wj, out=term)
    return s + b


def _node_scores(X: np.ndarray, rows: np.ndarray | None, w: np.ndarray, b: float, cols: np.ndarray) -> np.ndarray:
    """A node's scores (raw-space weights ``w``, intercept ``b``, nonzero features ``cols``) of the checked rows
    X[rows] (None: all), as ``Tree._scores`` computes them (to the bit): the node's cells gathered a block of
    rows at a time."""
    m = X.shape[0] if rows is None else rows.size
    out = np.empty(m)
    s, term = np.empty(min(m, _SCORE_BLOCK)), np.empty(min(m, _SCORE_BLOCK))
    for r in range(0, m, _SCORE_BLOCK):
        # (features, rows), contiguous: the node's cells only
        Xt = X[r:r + _SCORE_BLOCK].T[cols] if rows is None else X[rows[r:r + _SCORE_BLOCK, None], cols].T.copy()
        k = Xt.shape[1]
        out[r:r + k] = _term_sum(Xt, w[cols], b, s[:k], term[:k])
    return out


def _is_labelled_row(x: Any) -> bool:
    """A 1-D mapping-like row with an index of labels (a pandas Series), not an array or a list."""
    return (not isinstance(x, (np.ndarray, list, tuple, dict, str)) and hasattr(x, "index")
            and callable(getattr(x, "keys", None)) and np.ndim(x) == 1)


def _missing_as_nan(X: Any) -> np.ndarray | None:
    """A table whose nullable columns hold missing cells (pandas' NA, which numpy cannot convert) as floats
    with NaN there, for ``_check_X`` to name the cell; None if it still holds something else (text)."""
    to_numpy = getattr(X, "to_numpy", None)
    if to_numpy is None:
        return None
    try:
        return np.asarray(to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64)
    except (TypeError, ValueError):
        return None
    except OverflowError:  # an int beyond float64 beside the NA: "use Tree.encode for raw cells" misled
        raise OlctcError("X holds an integer too large for a float64 (above 1.8e308)") from None


def _real_array(a: Any, name: str, ndmin: int = 0) -> np.ndarray:
    """``a`` as a float64 array, or OlctcError naming ``name``: 'abc' raised numpy's "could not convert string
    to float", and complex weights lost their imaginary parts with a warning only."""
    check_real(a, name)
    try:
        return np.array(a, dtype=np.float64, ndmin=ndmin)
    except (TypeError, ValueError, OverflowError):
        raise OlctcError(f"{name} must be an array of numbers; got {shorten(repr(a))}") from None


def _by_position(table: Any, schema: Schema, source: str) -> Any:
    """The schema's columns of ``table`` as arrays, so that the encoder reads rows by position: a pandas
    Series is indexed by its row labels, and a bad cell of a DataFrame with another index than 0..n-1
    raised KeyError (or was named by the wrong row) instead of the encoder's error. A DataFrame with a
    feature's name twice is refused: its column was a frame, read as "row 0: expected a number, got 'u'"."""
    if isinstance(table, dict) and not any(hasattr(v, "to_numpy") for v in table.values()):
        return table
    try:
        names = [c.name for c in schema.columns if c.name in table]
    except TypeError:  # no table at all: the encoder says so
        return table
    out = {}
    for name in names:
        vals = table[name]
        if hasattr(vals, "columns") and np.ndim(vals) == 2:
            raise OlctcError(f"{source}: column {name!r} appears {vals.shape[1]} times; give each column once")
        if not isinstance(vals, (np.ndarray, list, tuple, str)) and hasattr(vals, "to_numpy") \
                and np.ndim(vals) == 1:
            vals = vals.to_numpy()
        out[name] = vals
    return out


def _warn_unseen(schema: Schema, cells: Any, unseen: dict[str, np.ndarray], source: str) -> None:
    """An ``UnseenCategoryWarning`` per categorical column with rows that are none of its categories
    (``unseen``, from ``Schema.encode``): scored, as scikit-learn's OneHotEncoder(handle_unknown='ignore') does,
    which warns too. (The CLI counts them over a whole file itself, and says so in one note per column.)"""
    from olctc.errors import UnseenCategoryWarning

    for col in schema.columns:
        rows = unseen.get(col.name)
        if rows is not None:
            first = int(rows[0])
            shown = shorten(repr(_shown(cells[col.name][first])))  # 7, not np.int64(7)
            warn(f"{source}: column {col.name!r}: {rows.size} row(s) hold a category the tree never saw "
                 f"(first {shown} at row {first}): encoded as none of its {len(col.categories)} categories",
                 UnseenCategoryWarning)


@dataclass
class NodeStep:
    """One node on a sample's path."""

    node: int
    layer: int
    score: float            # w_t . x + b_t (the standardisation folded in)
    sigmoid: float          # sigmoid(score): P(right) at a routing node, P(positive) at the last layer
    direction: str          # "left" | "right" at routing nodes, "classify" at the last layer
    contributions: list[tuple[str, float, float]]  # (feature, encoded value, w_j * standardised x_j),
    #                                                  top |contribution| first
    bias: float             # b_t in the standardised space: score = bias + sum of all contributions
    training_points: int | None = None  # training points that reached the node (None: no statistics)

    @property
    def confidence(self) -> float:
        """The node's confidence in the decision it took: the direction taken at a split, the label given
        at the classifying node (positive iff its score > 0); as ``olctc explain`` prints it. (It was
        sigmoid(score), which ``explain --json`` called by the same name for 1 - that on a left turn.)"""
        negative = self.direction == "left" or (self.direction == "classify" and not self.score > 0)
        return 1.0 - self.sigmoid if negative else self.sigmoid


@dataclass
class Explanation:
    """The path of one sample through the tree and the resulting prediction."""

    steps: list[NodeStep]
    label: Label
    probability: float      # P(positive class)
    classes: tuple[Label, Label]
    note: str | None = None  # Tree.probability_note: the probability is no calibrated one

    @property
    def label_probability(self) -> float:
        """The probability of the predicted label (what the text says next to it)."""
        return self.probability if self.label == self.classes[1] else 1.0 - self.probability

    def to_dict(self) -> dict[str, Any]:
        # "probability" goes with "label" and "confidence" with "direction", as in the text: the JSON paired
        # P(positive) with a negative label and sigmoid(score) with a left turn
        return {"label": self.label, "probability": self.label_probability,
                "positive_probability": self.probability, "classes": list(self.classes),
                "path": [{"node": s.node, "layer": s.layer, "score": s.score, "confidence": s.confidence,
                          "direction": s.direction, "bias": s.bias, "training_points": s.training_points,
                          "contributions": [{"feature": f, "value": v, "contribution": c}
                                            for f, v, c in s.contributions]}
                         for s in self.steps]}

    def lines(self, name: Any = repr) -> list[str]:
        """Human-readable lines; ``name`` formats feature names (default ``repr``: one line each)."""
        out = []
        for s in self.steps:
            if s.direction == "classify":
                what = (f"classifier: P({self.classes[1]!r}) = sigmoid({s.score:.6g}) = {s.sigmoid:.4f}")
                if s.training_points == 0:
                    what += (" (no training point reached this node: it gives the class balance of the nearest "
                             "node above that had some)")
            else:
                what = f"score {s.score:.6g} -> {s.direction} (confidence {s.confidence:.4f})"
            out.append(f"node {s.node} (layer {s.layer}): {what}")
            for f, v, c in s.contributions:
                out.append(f"    {c:+.4g}  {name(f)} = {v:.6g}")
            # the lines add up to the score (contributions are w_j times the standardised x_j, as in the JSON)
            rest = s.score - s.bias - math.fsum(c for _, _, c in s.contributions)
            if abs(rest) > 1e-9 * max(1.0, abs(s.score)):
                out.append(f"    {rest:+.4g}  the other features")
            out.append(f"    {s.bias:+.4g}  bias")
        out.append(f"prediction: {self.label!r} with probability {self.label_probability:.4f}")
        if self.note:
            out.append(f"note: {self.note}")
        return out

    def __str__(self) -> str:
        """The lines of ``olctc explain``: print(tree.explain(x)) showed the dataclass's one-line repr."""
        return "\n".join(self.lines())


@dataclass(eq=False)  # == is identity, as for a scikit-learn estimator: a field-wise == over arrays raised
class Tree:
    """An oblique binary classification tree whose last-layer nodes are (logistic) classifiers.

    Attributes
    ----------
    W : (n_nodes, p) weights in the standardised encoded feature space.
    b : (n_nodes,) intercepts.
    scaler : mean/scale of the encoded features (fitted on the training data).
    schema : raw input columns -> encoded features.
    classes : (negative label, positive label).
    node_n, node_pos : (n_nodes,) training points / positive training points reaching each node.
    node_std : (n_nodes, p) population std of each standardised feature among those points.
    meta : JSON-able record of how the tree was obtained.
    """

    W: np.ndarray
    b: np.ndarray
    scaler: Scaler
    schema: Schema
    classes: tuple
    node_n: np.ndarray | None = None
    node_pos: np.ndarray | None = None
    node_std: np.ndarray | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.W = _real_array(self.W, "W", 2)
        self.b = _real_array(self.b, "b").reshape(-1)
        if not isinstance(self.scaler, Scaler):
            raise param_error("scaler", "an olctc.data.Scaler", self.scaler)
        if not isinstance(self.schema, Schema):
            raise param_error("schema", "an olctc.data.Schema", self.schema)
        if not isinstance(self.classes, (tuple, list)):
            raise param_error("classes", "two labels (negative, positive)", self.classes)
        if not isinstance(self.meta, dict):
            raise param_error("meta", "a dict", self.meta)
        n_nodes, p = self.W.shape
        depth = int(round(math.log2(n_nodes + 1)))
        if n_nodes < 1 or 2 ** depth - 1 != n_nodes:
            raise OlctcError(f"W must have 2^depth - 1 rows (1, 3, 7, ...); got {n_nodes}")
        if self.b.shape != (n_nodes,):
            raise OlctcError(f"b must have one entry per node ({n_nodes}); got shape {self.b.shape}")
        if not (np.isfinite(self.W).all() and np.isfinite(self.b).all()):
            raise OlctcError("W and b must be finite")
        if self.schema.n_features != p:
            raise OlctcError(f"the schema encodes {self.schema.n_features} features; W has {p} columns")
        mean = np.asarray(self.scaler.mean, dtype=np.float64).reshape(-1)
        scale = np.asarray(self.scaler.scale, dtype=np.float64).reshape(-1)
        if mean.shape != (p,) or scale.shape != (p,):
            raise OlctcError(f"the scaler must have {p} means and scales; got {mean.shape[0]} and {scale.shape[0]}")
        if not (np.isfinite(mean).all() and np.isfinite(scale).all() and (scale > 0).all()):
            raise OlctcError("the scaler's means must be finite and its scales finite and positive")
        self.scaler = Scaler(mean, scale)
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            raw_ok = np.isfinite(self.W_raw).all() and np.isfinite(self.b_raw).all()
        if not raw_ok:  # every prediction (and exported code) uses them: inf * 0 would predict NaN
            raise OlctcError("the weights on the raw features (W / scale, b - W mean / scale) overflow: the "
                             "scaler's scales are too small (or its means too large) for these weights")
        if len(self.classes) != 2:
            raise OlctcError(f"classes must be two labels (negative, positive); got {len(self.classes)}")
        self.classes = (_check_label(self.classes[0], "the negative class"),
                        _check_label(self.classes[1], "the positive class"))
        if self.classes[0] == self.classes[1]:
            raise OlctcError(f"the two classes must differ; got {self.classes[0]!r} twice")
        if str(self.classes[0]) == str(self.classes[1]):  # 1 and "1": ONNX's and SQL's labels are text, one for both
            raise OlctcError(f"the two classes must differ as text; got {self.classes[0]!r} and {self.classes[1]!r}")
        for c in self.schema.columns:
            if c.kind not in ("numeric", "categorical"):
                raise OlctcError(f"column {c.name!r}: kind must be 'numeric' or 'categorical'; got {c.kind!r}")
        self.node_n = self._stat(self.node_n, (n_nodes,), "node_n")
        self.node_pos = self._stat(self.node_pos, (n_nodes,), "node_pos")
        self.node_std = self._stat(self.node_std, (n_nodes, p), "node_std")
        if self.node_n is not None and self.node_pos is not None and (self.node_pos > self.node_n).any():
            raise OlctcError("node_pos must not exceed node_n (the positive points among those reaching a node)")
        for name, a in (("node_n", self.node_n), ("node_pos", self.node_pos)):
            k = children_over(a)
            if a is not None and k is not None:
                raise OlctcError(f"{name}: nodes {2 * k + 1} and {2 * k + 2} count {a[2 * k + 1]:g} + "
                                 f"{a[2 * k + 2]:g} points, more than their parent node {k}'s {a[k]:g}")

    @staticmethod
    def _stat(a: Any, shape: tuple[int, ...], name: str) -> np.ndarray | None:
        if a is None:
            return None
        try:
            f = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError, OverflowError):
            raise OlctcError(f"{name} must be an array of numbers; got {shorten(repr(a))}") from None
        if f.shape != shape:
            raise OlctcError(f"{name} must have shape {shape}; got {f.shape}")
        # counts were cast to int64 silently (1.5 became 1), NaN std and negative counts passed
        if not (np.isfinite(f).all() and (f >= 0).all() and (name == "node_std" or (f == np.round(f)).all())):
            raise OlctcError(f"{name} must hold finite {'values' if name == 'node_std' else 'whole numbers'} >= 0")
        if name == "node_std":
            return f
        exact = np.asarray(a)
        if exact.dtype.kind in "iu" and not (exact > _INT64_MAX).any():
            # integers as given: through float64, 2**53 + 1 became 2**53, and 2**63 - 1 (a file's nodes.n may hold
            # any int64) became 2**63, which wrapped to the negative count -2**63
            return exact.astype(np.int64)
        if (f >= 2.0 ** 63).any():
            raise OlctcError(f"{name} must hold whole numbers below 2**63 (counts are stored as int64)")
        return f.astype(np.int64)

    # ------------------------------------------------------------------ shape

    @property
    def depth(self) -> int:
        """Branching layers (a depth-d tree has 2**d - 1 nodes, each a linear classifier)."""
        return int(round(math.log2(self.W.shape[0] + 1)))

    @property
    def n_nodes(self) -> int:
        """Nodes, numbered breadth first from the root (0); node t's children are 2t + 1 and 2t + 2."""
        return int(self.W.shape[0])

    @property
    def n_features(self) -> int:
        """Encoded features (a text column counts one per category), the columns of W."""
        return int(self.W.shape[1])

    @property
    def feature_names(self) -> list[str]:
        """The encoded features' names, in W's column order (a category's: "column=value")."""
        return self.schema.feature_names

    @property
    def topology(self) -> Topology:
        """The node numbering of this depth: layers, children, the last layer (``olctc.formulation.topology``)."""
        return Topology(self.depth)

    @property
    def W_raw(self) -> np.ndarray:
        """(n_nodes, p) weights on the encoded, unstandardised features."""
        return self.W / self.scaler.scale

    @property
    def b_raw(self) -> np.ndarray:
        """(n_nodes,) intercepts on the encoded, unstandardised features."""
        # + 0.0: an intercept of -0.0 was exported as "b=-0" (DOT), "score = -0" (text)
        return self.b - (self.W * (self.scaler.mean / self.scaler.scale)).sum(axis=1) + 0.0

    @property
    def probability_note(self) -> str | None:
        """Why this tree's probabilities are no calibrated ones: its preset (meta) fitted another loss than the
        logistic, so sigmoid(score) only orders the points (an OCT-H leaf whose points are 98% positive says
        0.73). None for the logistic presets and for trees whose meta name none."""
        spec = self.meta.get("spec")
        preset = spec.get("preset") if isinstance(spec, dict) else None
        from olctc.spec import PRESETS  # olctc.spec imports the emitters: not needed to predict

        info = PRESETS.get(preset) if isinstance(preset, str) else None
        if info is None or info.kind.smooth:
            return None
        return (f"preset {preset} fitted the {info.loss} loss, not the logistic one: these probabilities, "
                "sigmoid(score), only order the points; calibrate them (scikit-learn's CalibratedClassifierCV) "
                "where they matter")

    # ------------------------------------------------------------------ prediction

    def _check_X(self, X: Any) -> np.ndarray:
        columns = None
        if not isinstance(X, np.ndarray):
            columns = getattr(X, "columns", None)
            if columns is None and _is_labelled_row(X):
                # one row of a DataFrame (df.iloc[i]): its index names the features, as a table's columns do;
                # read by position, a row of a DataFrame whose columns were in another order was silently wrong
                columns = X.index
            if hasattr(X, "tocsr") and hasattr(X, "toarray"):  # scipy.sparse (LIBSVM data loaded sparse)
                X = X.toarray()
        check_real(X, "X")
        try:
            X = np.asarray(X, dtype=np.float64)
        except (TypeError, ValueError):
            X = _missing_as_nan(X)
            if X is None:
                raise OlctcError("X must be the numeric encoded feature matrix; use Tree.encode for raw "
                                 "cells") from None
        except OverflowError:  # a Python int beyond float64 (10**400)
            raise OlctcError("X holds an integer too large for a float64 (above 1.8e308)") from None
        given = X.shape
        if X.ndim == 1:
            X = X[None, :]
        if X.ndim != 2 or X.shape[1] != self.n_features:
            raise OlctcError(f"X must have shape (n, {self.n_features}); got {given}")
        if columns is not None:
            try:
                columns = list(columns)
            except TypeError:  # not a list of names: nothing to check
                columns = []
            self._check_columns(columns)
        if not np.isfinite(X).all():
            i, j = np.argwhere(~np.isfinite(X))[0]
            raise non_finite(X[i, j], f"row {i}, feature {self.feature_names[j]!r}")
        return X

    def _check_columns(self, columns: list) -> None:
        """A table's column names (a DataFrame's) must be the features in order, as scikit-learn checks.

        Names that are not all strings (a DataFrame built from an array has 0, 1, ...) are not checked, nor
        other names against a tree trained without names (x0, x1, ...: scikit-learn only warns then).
        Without this, a DataFrame with the same columns in another order was predicted silently wrong.
        """
        if not columns or not all(isinstance(c, str) for c in columns):
            return
        names = self.feature_names
        if columns == names:
            return
        j = next(j for j, (c, n) in enumerate(zip(columns, names)) if c != n)
        reordered = sorted(columns) == sorted(names)
        if not reordered and names == [f"x{k}" for k in range(len(names))]:
            return
        how = "holds the tree's features in another order" if reordered else "does not name the tree's features"
        fix = "pass X[tree.feature_names]" if reordered else "its columns must be tree.feature_names, in order"
        raise OlctcError(f"X {how}: its column {j} is {shorten(columns[j])!r}, the tree's feature {j} is "
                         f"{shorten(names[j])!r}; {fix}")

    def scores(self, X: Any) -> np.ndarray:
        """(n, n_nodes) scores w_t . x + b_t of every node on encoded (unstandardised) rows X."""
        S = self._scores(self._check_X(X))
        if not np.isfinite(S).all():  # finite rows, but w_j x_j overflowed: inf - inf would predict NaN
            i, t = np.argwhere(~np.isfinite(S))[0]
            raise ScoreOverflow(int(i), int(t))
        return S

    def _path_scores(self, X: Any) -> tuple[np.ndarray, np.ndarray]:
        """(path scores (n, depth): each row's scores at the nodes of its path, root first; last-layer node
        reached) of rows X. Only the nodes on a row's path are scored, and only their scores must be finite: a
        node off the path takes no part in the prediction (the generated code and the ONNX graph predict such
        a row, which ``scores`` refuses). Scoring every node held rows x 2^depth scores: 1 GB for a depth-10
        tree in predict's chunks, where a row's path has 10 (QA 2026-12-05)."""
        X = self._check_X(X)
        n, depth = X.shape[0], self.depth
        if depth <= _EVERY_NODE_DEPTH:
            S = self._scores(X)
            node = self.topology.route(S)
            P = S[np.arange(n)[:, None], ((node[:, None] + 1) >> np.arange(depth - 1, -1, -1)) - 1]
        else:
            P, node = self._walk(X)
        if not np.isfinite(P).all():
            # a row's first bad score is the one nearest the root: the node of its path at that layer
            i, h = np.argwhere(~np.isfinite(P))[0]
            raise ScoreOverflow(int(i), int(((node[i] + 1) >> (depth - 1 - h)) - 1))
        return P, node

    def _walk(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``_path_scores`` of checked rows X, layer by layer: each node scores the rows that reach it."""
        n, depth = X.shape[0], self.depth
        P = np.empty((n, depth))
        node = np.zeros(n, dtype=np.int64)
        W, b = self.W_raw, self.b_raw  # properties that compute the whole matrix: once, not per node
        used = [np.flatnonzero(w) for w in W]
        # an overflow is one error below, not warnings; an underflow is 0 or a subnormal, the right value
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            for h in range(depth):
                first = 2 ** h - 1
                if h == 0:
                    groups: Any = [(0, None)]
                elif 2 ** h <= 8:  # few nodes: a comparison per node beats a sort
                    groups = ((t, np.flatnonzero(node == t)) for t in range(first, 2 * first + 1))
                else:
                    order = np.argsort(node, kind="stable")
                    ids, starts = np.unique(node[order], return_index=True)
                    groups = zip(ids.tolist(), np.split(order, starts[1:]))
                for t, rows in groups:
                    if rows is None:
                        P[:, h] = _node_scores(X, None, W[t], b[t], used[t])
                    elif rows.size:
                        P[rows, h] = _node_scores(X, rows, W[t], b[t], used[t])
                if h < depth - 1:
                    node = 2 * node + 1 + (P[:, h] > 0)  # Topology.route's rule: left iff score <= 0
        return P, node

    def _scores(self, X: np.ndarray) -> np.ndarray:
        """Scores of checked rows X at every node, non-finite where the terms overflow."""
        W, b = self.W_raw, self.b_raw
        S = np.empty((X.shape[0], self.n_nodes))
        used = [np.flatnonzero(w) for w in W]
        # Term by term in feature order, as the generated Python code adds them: a matrix product's
        # summation order depends on the BLAS and on the batch, and a row within rounding of a split
        # would route one way alone (explain) and the other inside a batch (predict). Rows go in blocks
        # whose features-by-rows copy stays in cache (benchmarks/predict_speed.py).
        # an overflow is one error below, not warnings; an underflow is 0 or a subnormal, the right value
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            if X.shape[0] <= _FEW_ROWS:  # explain, one row at a time: one numpy call per node, not per term
                Xt = X.T
                for t, cols in enumerate(used):
                    terms = np.zeros((cols.size + 1, Xt.shape[1]))
                    np.multiply(Xt[cols], W[t, cols][:, None], out=terms[1:])
                    # accumulate adds row after row, from 0.0: the order of the loop below
                    S[:, t] = np.add.accumulate(terms, axis=0)[-1] + b[t]
                return S
            for r in range(0, X.shape[0], _SCORE_BLOCK):
                Xt = np.ascontiguousarray(X[r:r + _SCORE_BLOCK].T)
                s, term = np.empty(Xt.shape[1]), np.empty(Xt.shape[1])
                for t, cols in enumerate(used):  # one copy of the block serves every node
                    S[r:r + Xt.shape[1], t] = _term_sum((Xt[j] for j in cols), W[t, cols], b[t], s, term)
        return S

    def apply(self, X: Any) -> np.ndarray:
        """(n,) id of the last-layer node each row reaches (left iff score <= 0)."""
        return self._path_scores(X)[1]

    def decision_path(self, X: Any) -> sp.csr_matrix:
        """(n, n_nodes) CSR indicator of the nodes on each row's path."""
        import scipy.sparse as sp  # here: the only use of scipy in a tree (0.1 s to import)

        return sp.csr_matrix(self.topology.path_mask(self.apply(X)).astype(np.int8))

    def decision_function(self, X: Any) -> np.ndarray:
        """(n,) score of the last-layer node each row reaches: the log-odds of the positive class."""
        return self._path_scores(X)[0][:, -1]

    def predict(self, X: Any) -> np.ndarray:
        """(n,) labels: the positive class iff the reached node's score is > 0."""
        return self.labels_of(self.decision_function(X))

    def predict_proba(self, X: Any) -> np.ndarray:
        """(n, 2) probabilities [1 - sigmoid, sigmoid], columns in ``classes`` order."""
        return self.proba_of(self.decision_function(X))

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """(n, 2) natural logs of ``predict_proba``, computed from the scores: finite where a probability
        rounds to 0 (|score| above about 37), where ``np.log(predict_proba(X))`` gives -inf."""
        return self.log_proba_of(self.decision_function(X))

    def labels_of(self, scores: Any) -> np.ndarray:
        """``predict`` of the rows whose ``decision_function`` is ``scores`` (1-D, one per row)."""
        return class_array(self.classes)[(_scores(scores) > 0).astype(np.intp)]

    def proba_of(self, scores: Any) -> np.ndarray:
        """``predict_proba`` of the rows whose ``decision_function`` is ``scores`` (1-D, one per row)."""
        p = sigmoid(_scores(scores))
        return np.column_stack([1.0 - p, p])

    def log_proba_of(self, scores: Any) -> np.ndarray:
        """``predict_log_proba`` of the rows whose ``decision_function`` is ``scores`` (1-D, one per row)."""
        z = _scores(scores)
        return np.column_stack([log_sigmoid(-z), log_sigmoid(z)])

    def encode(self, table: Any, source: str = "data", n_rows: int | None = None) -> np.ndarray:
        """Encoded matrix from raw cells (column name -> values, or a DataFrame), as the schema prescribes.

        Columns are read by name (other columns are ignored), rows by position: row k in a message is the
        k-th row whatever the DataFrame's index. ``n_rows`` (a DataFrame's own by default) counts the rows
        for a tree of no feature, whose cells say nothing."""
        if n_rows is None and getattr(table, "ndim", None) == 2:
            n_rows = int(table.shape[0])
        cells = _by_position(table, self.schema, source)
        unseen: dict[str, np.ndarray] = {}
        X = self.schema.encode(cells, source, n_rows, unseen)
        _warn_unseen(self.schema, cells, unseen, source)
        return X

    # ------------------------------------------------------------------ training statistics

    def fit_stats(self, X_encoded: Any, y_pm: Any) -> None:
        """Fill ``node_n``, ``node_pos``, ``node_std`` from training rows (encoded) and labels in {-1, +1}."""
        X = self._check_X(X_encoded)
        y = np.asarray(y_pm).reshape(-1)
        if y.shape[0] != X.shape[0]:
            raise OlctcError(f"y must have one label per row of X ({X.shape[0]}); got {y.shape[0]}")
        bad = ~np.isin(y, (-1, 1)) if y.dtype.kind in "iuf" else np.ones(y.shape, bool)  # 7: counted as positive
        if bad.any():
            k = int(np.argmax(bad))
            raise OlctcError(f"y must hold labels -1 and +1 (the classes' order in this tree); got {y[k].item()!r} "
                             f"at row {k}")
        mask = self.topology.path_mask(self.apply(X))
        pos = y > 0
        self.node_n = mask.sum(axis=0).astype(np.int64)
        self.node_pos = (mask & pos[:, None]).sum(axis=0).astype(np.int64)
        Xs = self.scaler.transform(X)
        std = np.zeros((self.n_nodes, self.n_features))
        for t in range(self.n_nodes):  # one pass per node, not per row: n_nodes is tiny
            if self.node_n[t]:
                std[t] = Xs[mask[:, t]].std(axis=0)
        self.node_std = std

    def influence(self) -> np.ndarray:
        """(n_nodes, p) feature influence r_{j,t} = w_{t,j} * std of feature j among the points reaching t."""
        if self.node_std is None:
            raise OlctcError("this tree has no training statistics (node_std); call fit_stats(X, y) first")
        # |w| * std beyond 1.8e308 is inf, not a RuntimeWarning on stderr; below 1e-308 a subnormal or 0
        with np.errstate(over="ignore", under="ignore"):
            return self.W * self.node_std

    def feature_importances(self) -> np.ndarray:
        """(p,) each feature's share of the tree: sum over nodes t of (points reaching t / points) * |r_{j,t}|,
        normalised to sum 1 (all zeros when every weight is 0), r the feature influence (``influence``).

        The counterpart of a CART tree's ``feature_importances_`` for oblique splits and leaf classifiers:
        |w_{t,j}| times the spread of feature j among the points at t says how much feature j moves node t's
        score there (scale-free: the same in raw units), and a node counts as much as the share of training
        points it holds, as a CART node's impurity decrease does. Points are counted, not weighted.
        """
        r = np.abs(self.influence())
        if self.node_n is None or int(self.node_n[0]) == 0:
            raise OlctcError("this tree has no training statistics (node_n); call fit_stats(X, y) first")
        with np.errstate(over="ignore", under="ignore"):
            imp = (self.node_n / float(self.node_n[0])) @ r
            total = float(imp.sum())
        if not np.isfinite(total):
            raise OlctcError("feature importances overflow: a node's |weight| x std is beyond 1.8e308")
        with np.errstate(under="ignore"):
            return imp / total if total > 0 else imp

    def ranked_importances(self) -> list[tuple[int, float]]:
        """The features with a share of the tree above 0 (``feature_importances``) as (index, share), largest
        first, ties in feature order."""
        imp = self.feature_importances()
        return [(int(j), float(imp[j])) for j in np.argsort(-imp, kind="stable") if imp[j] > 0]

    def ranked_features(self, t: int, k: int | None = None) -> list[tuple[int, float]]:
        """Nonzero-weight features of node t as (index, value), largest |influence| first.

        Without training statistics, |weight| (standardised space) ranks them instead. ``k``: at most that many.
        """
        if not is_integer(t) or not 0 <= t < self.n_nodes:  # -1 gave the last node's
            raise param_error("t", f"a node number from 0 to {self.n_nodes - 1}", t)
        if k is not None and (not is_integer(k) or k < 0):  # -1 left out the last feature
            raise param_error("k", "None or an integer >= 0", k)
        vals = self.influence()[t] if self.node_std is not None else self.W[t]
        idx = np.flatnonzero(self.W[t] != 0)
        idx = idx[np.argsort(-np.abs(vals[idx]), kind="stable")]
        if k is not None:
            idx = idx[:k]
        # + 0.0: a negative weight on a feature of no spread at the node has influence -0.0, shown "influence=-0"
        return [(int(j), float(vals[j]) + 0.0) for j in idx]

    def explain(self, x_row: Any, top: int = 5) -> Explanation:
        """Path of one sample (encoded row, or raw cells as a dict or a pandas Series keyed by column name)
        with per-node confidence and top features."""
        if not isinstance(x_row, dict) and _is_labelled_row(x_row):
            names = list(x_row.keys())
            if all(isinstance(k, str) for k in names) and {c.name for c in self.schema.columns} <= set(names):
                # a row of a DataFrame of the raw columns (df.iloc[i]): by name, as a dict (and the exported
                # code) take it; other rows go by position below, their index checked as a table's columns
                x_row = dict(zip(names, x_row.tolist() if hasattr(x_row, "tolist") else list(x_row)))
        if isinstance(x_row, dict):
            x = self.encode({k: [v] for k, v in x_row.items()}, "x_row", n_rows=1)
        else:
            x = self._check_X(x_row)
        if x.shape[0] != 1:
            raise OlctcError(f"explain takes one row; got {x.shape[0]}")
        if not is_integer(top):  # 1.5 or None: a TypeError from the slice or the comparison below
            raise param_error("top", "an integer >= 1", top)
        if top < 1:  # a slice [:-1] dropped the last feature silently
            raise OlctcError(f"top must be at least 1; got {top}")
        path = self._path_scores(x)[0][0]  # the scores at the nodes of its path, root first
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            xs = self.scaler.transform(x)[0]
        topo = self.topology
        steps, t = [], 0
        names = self.feature_names
        for h in range(1, self.depth + 1):
            with np.errstate(over="ignore", invalid="ignore", under="ignore"):
                contrib = self.W[t] * xs
                if not np.isfinite(contrib).all():
                    # x / scale overflowed (1e308 / 0.5) where the score did not: the same product,
                    # w / scale * (x - mean), in the order that keeps it finite (inf broke explain --json)
                    contrib = np.where(np.isfinite(contrib), contrib, self.W_raw[t] * (x[0] - self.scaler.mean))
            idx = np.flatnonzero(self.W[t] != 0)
            if not np.isfinite(contrib[idx]).all():
                raise ScoreOverflow(0, int(t))
            idx = idx[np.argsort(-np.abs(contrib[idx]), kind="stable")][:top]
            last = h == self.depth
            st = path[h - 1]
            direction = "classify" if last else ("right" if st > 0 else "left")
            steps.append(NodeStep(int(t), int(topo.layer(t)), float(st), float(sigmoid(st)), direction,
                                  [(names[j], float(x[0, j]), float(contrib[j])) for j in idx],
                                  float(self.b[t]), None if self.node_n is None else int(self.node_n[t])))
            if not last:
                t = 2 * t + (2 if st > 0 else 1)
        score = path[-1]
        return Explanation(steps, self.classes[1] if score > 0 else self.classes[0], float(sigmoid(score)),
                           self.classes, self.probability_note)

    # ------------------------------------------------------------------ construction and records

    @classmethod
    def from_arrays(cls, W: Any, b: Any, *, feature_names: Sequence[str] | None = None,
                    schema: Schema | None = None, scaler: Scaler | None = None,
                    classes: Sequence[Label] = (-1, 1), meta: dict | None = None) -> "Tree":
        """Build a tree from weights (standardised space) and intercepts.

        Without ``schema`` the features are numeric columns named ``feature_names`` (default x0, x1, ...);
        without ``scaler`` the weights are taken as raw-space weights (identity scaler).
        """
        W = _real_array(W, "W", 2)
        p = W.shape[1]
        if not isinstance(meta, (dict, type(None))):
            raise param_error("meta", "a dict or None", meta)
        if not isinstance(classes, (tuple, list)):
            raise param_error("classes", "two labels (negative, positive)", classes)
        if schema is None:
            names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(p)]
            schema = Schema(tuple(Column(str(n), "numeric") for n in names))
        return cls(W, b, scaler if scaler is not None else Scaler.identity(p), schema, tuple(classes),
                   meta=dict(meta or {}))

    def to_dict(self) -> dict[str, Any]:
        """The JSON record (format ``olctc-tree`` version 1, see ``docs/tree-schema.json``)."""
        from olctc.export.json import tree_to_dict

        return tree_to_dict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any], source: str = "tree") -> "Tree":
        """Inverse of ``to_dict``; validates everything and raises OlctcError naming ``source``."""
        from olctc.export.json import tree_from_dict

        return tree_from_dict(d, source, cls)

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the tree's JSON record to ``path`` atomically (as ``olctc fit -o`` writes it)."""
        from olctc.export.json import save

        save(self, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> "Tree":
        """Read a tree JSON file (``fit -o``, ``decode``, ``export --format json``, ``save``), validated."""
        from olctc.export.json import load
        from olctc.io import check_path

        # check_path: a Path, as export.json.load also takes JSON text, and a path here is a path, whatever its
        # first character; its errors name this parameter
        if isinstance(path, str) and path.lstrip().startswith("{") and not os.path.exists(path):
            # the message was the whole JSON text, then "cannot read: File name too long"
            raise OlctcError("Tree.load takes a file path, and was given JSON text: read text with "
                             "olctc.load_tree(text) or Tree.from_dict(json.loads(text))")
        return load(check_path(path, "path"), cls)
