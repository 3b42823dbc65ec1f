"""QA: every exporter agrees with ``Tree`` on unusual trees and inputs.

Unusual trees: depth 1 and depth 4-6, constant (all-zero) nodes, single-weight nodes, weights of 1e-300
and 1e+300, intercepts of +-1e308, no features at all, 300 and 123 features (w5a, a6a rows), a single
feature, categorical-only (tic-tac-toe) and mixed numeric + categorical data read from a CSV. Unusual
inputs: rows exactly at a split, NaN/inf/None cells, unseen categories, 0 rows, 1 row, 1e6 rows, lists
vs numpy vs DataFrames. Routing and probabilities are checked against an independent recomputation
from the tree's JSON record (``_Ref``), not from ``Tree``'s own arrays.

Trees are built directly (no solver). Agreement promised by the docs: the generated Python computes
term by term like ``Tree`` (bit-identical scores); ONNX's Gemm sums in its own order, so only a row
within rounding of a split may route differently (docs in olctc/export/onnx.py); probabilities within
1e-9 everywhere (ONNX in float64).
"""
from __future__ import annotations

import json
import math
import re
import struct
import subprocess
import sys
import types
import warnings
import zlib

import numpy as np
import onnx
import pandas as pd
import pytest
from click.testing import CliRunner

from olctc.cli_tree import explain_cmd, export_cmd, predict_cmd
from olctc.data import Column, Scaler, Schema, read_csv
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.export import render
from olctc.export.json import dump, load as load_tree, loads, save
from olctc.export.onnx import feeds, session, to_onnx
from olctc.export.plot import figure
from olctc.export.python import to_python
from olctc.tree import ScoreOverflow, Tree

RNG_SEED = 20240611


# ---------------------------------------------------------------- independent reference

class _Ref:
    """Routing and probabilities recomputed from the JSON record alone (standardised space)."""

    def __init__(self, tree: Tree) -> None:
        d = json.loads(dump(tree))
        self.depth = d["depth"]
        self.W = np.array(d["nodes"]["W"], dtype=float).reshape(2 ** self.depth - 1, -1)
        self.b = np.array(d["nodes"]["b"], dtype=float)
        self.mean = np.array(d["scaler"]["mean"], dtype=float)
        self.scale = np.array(d["scaler"]["scale"], dtype=float)
        self.classes = d["classes"]

    def run(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(last-layer node, its score, min |score| along the path) per row."""
        Xs = (np.asarray(X, dtype=float) - self.mean) / self.scale
        n = Xs.shape[0]
        node = np.zeros(n, dtype=int)
        margin = np.full(n, np.inf)
        rows = np.arange(n)
        for _ in range(self.depth - 1):
            s = np.einsum("ij,ij->i", Xs, self.W[node]) + self.b[node]
            margin = np.minimum(margin, np.abs(s))
            node = 2 * node + np.where(s > 0, 2, 1)
        z = np.einsum("ij,ij->i", Xs, self.W[node]) + self.b[node]
        return node, z, np.minimum(margin, np.abs(z))[rows]


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.array([1 / (1 + math.exp(-v)) if v >= 0 else math.exp(v) / (1 + math.exp(v)) for v in z])


def _module(tree: Tree) -> types.ModuleType:
    m = types.ModuleType("olctc_generated")
    exec(compile(to_python(tree), "generated.py", "exec"), m.__dict__)
    return m


def _onnx_run(tree: Tree, X: np.ndarray | None = None, cells=None):
    sess = session(to_onnx(tree))
    if tree.schema.is_numeric:
        return sess.run(None, feeds(tree, X))
    return sess.run(None, feeds(tree, cells=cells))


def _agree(tree: Tree, X: np.ndarray, cells=None, rows=None, margin: float = 1e-9) -> None:
    """Tree vs reference, Python module, ONNX and the JSON round trip, on encoded rows X (and raw cells/rows
    for the exported artifacts when the schema has categorical columns)."""
    X = np.asarray(X, dtype=float)
    leaf, label, proba, z = tree.apply(X), tree.predict(X), tree.predict_proba(X), tree.decision_function(X)
    # independent reference: every row not within `margin` of a split routes and predicts the same
    r_leaf, r_z, r_margin = _Ref(tree).run(X)
    clear = r_margin > margin
    assert clear.mean() >= 0.95, "test data too close to the splits to compare"
    assert (leaf[clear] == r_leaf[clear]).all()
    assert label[clear].tolist() == [tree.classes[int(v > 0)] for v in r_z[clear]]
    np.testing.assert_allclose(proba[:, 1], _sigmoid(z), rtol=0, atol=1e-15)
    np.testing.assert_allclose(proba[clear, 1], _sigmoid(r_z[clear]), rtol=1e-9, atol=1e-12)
    assert np.abs(proba.sum(axis=1) - 1).max(initial=0) <= 1e-15
    # generated Python: identical routing, labels and (1e-15) probabilities on every row
    m = _module(tree)
    rows = X.tolist() if rows is None else rows
    assert [m.apply(r) for r in rows] == leaf.tolist()
    assert [m.predict(r) for r in rows] == label.tolist()
    assert [m.decision_function(r) for r in rows] == z.tolist()  # term by term, bit-identical
    assert np.abs(np.array([m.predict_proba(r) for r in rows]).reshape(-1, 2) - proba).max(initial=0) <= 1e-15
    # ONNX (float64 graph): 100% of labels, probabilities within 1e-9
    o_label, o_proba = _onnx_run(tree, X, cells)
    assert o_proba.dtype == np.float64 and o_proba.shape == (X.shape[0], 2)
    assert o_label.tolist() == label.tolist()
    assert np.abs(o_proba - proba).max(initial=0) <= 1e-9
    # JSON round trip: the same arrays, the same predictions, the same artifacts
    t2 = loads(dump(tree))
    assert np.array_equal(t2.W, tree.W) and np.array_equal(t2.b, tree.b)
    assert t2.predict(X).tolist() == label.tolist() and np.array_equal(t2.predict_proba(X), proba)
    for fmt in ("json", "python", "text", "dot"):
        assert render(t2, fmt) == render(tree, fmt), fmt


def _random_tree(rng, depth: int, p: int, *, density: float = 0.6, constant: float = 0.3,
                 scaler: bool = True, schema: Schema | None = None, classes=(-1, 1)) -> Tree:
    n = 2 ** depth - 1
    W = rng.normal(size=(n, p)) * (rng.random((n, p)) < density)
    W[rng.random(n) < constant] = 0.0  # constant nodes
    b = rng.normal(size=n)
    sc = Scaler(rng.normal(size=p), rng.uniform(0.2, 5.0, size=p)) if scaler else Scaler.identity(p)
    if schema is None:
        schema = Schema(tuple(Column(f"f{j}", "numeric") for j in range(p)))
    return Tree(W, b, sc, schema, classes)


# ---------------------------------------------------------------- shapes of trees

@pytest.mark.parametrize("W,b", [
    ([[1.0, -2.0, 0.5]], [0.25]),                 # ordinary
    ([[0.0, 0.0, 0.0]], [0.0]),                   # constant, score exactly 0: negative class, P = 0.5
    ([[0.0, 0.0, 0.0]], [-3.0]),                  # constant negative
    ([[0.0, 4.0, 0.0]], [-1.0]),                  # one nonzero weight
    ([[1e-300, 0.0, -1e-300]], [0.0]),            # tiny weights: subnormal / underflowing products
    ([[1e300, -1e300, 0.0]], [0.0]),              # huge weights
    ([[0.0, 0.0, 0.0]], [1e308]),                 # intercept next to the largest double
    ([[1e-3, 0.0, 0.0]], [-1e308]),
])
def test_depth_one_trees(W, b):
    rng = np.random.default_rng(RNG_SEED)
    tree = Tree.from_arrays(W, b)
    X = rng.normal(size=(200, 3))
    _agree(tree, X, margin=-1.0)  # every row: identity scaler, so the reference is exact here
    if not np.any(tree.W):
        z = tree.decision_function(X)
        assert (z == b[0]).all()
        assert set(tree.predict(X).tolist()) == {1 if b[0] > 0 else -1}
        if b[0] == 0:
            assert (tree.predict_proba(X) == 0.5).all()


@pytest.mark.parametrize("depth", [4, 5, 6])
def test_deep_trees_with_constant_and_sparse_nodes(depth):
    rng = np.random.default_rng(RNG_SEED + depth)
    tree = _random_tree(rng, depth, 5)
    assert ((tree.W != 0).sum(axis=1) == 0).any()
    X = rng.normal(size=(3000, 5)) * 4
    _agree(tree, X)
    leaves = tree.apply(X)
    assert leaves.min() >= 2 ** (depth - 1) - 1 and len(set(leaves.tolist())) > 2  # routed all the way down


def test_all_nodes_constant_deep_tree_routes_left_on_zero_intercepts():
    # scores exactly 0 everywhere: every row goes left at each split, then the negative class with P = 0.5
    tree = Tree.from_arrays(np.zeros((31, 3)), np.zeros(31), classes=("no", "yes"))
    X = np.random.default_rng(1).normal(size=(50, 3)) * 1e6
    _agree(tree, X, margin=-1.0)
    assert (tree.apply(X) == 15).all() and set(tree.predict(X)) == {"no"}
    assert (tree.predict_proba(X) == 0.5).all()
    assert set(_module(tree).apply(r) for r in X.tolist()) == {15}


def test_tiny_and_huge_weights_and_intercepts():
    rng = np.random.default_rng(RNG_SEED)
    W = np.array([[1e-300, 0.0], [1e300, -1e300], [0.0, 5e-324]])
    tree = Tree.from_arrays(W, [0.0, -1e308, 0.0])
    X = np.vstack([rng.normal(size=(100, 2)), [[1e-20, 1.0], [-1e-20, 0.0], [1e-20, 0.25], [1e-20, -1.0]]])
    _agree(tree, X, margin=-1.0)
    # root: 1e-300 * 1e-20 is the subnormal 1e-320, still > 0: right; node 2: 5e-324 * 1.0 > 0: positive.
    # No export flushes subnormals to zero.
    assert tree.apply(X[100:]).tolist() == [2, 1, 2, 2]
    assert tree.decision_function(X[100:])[[0, 2, 3]].tolist() == [5e-324, 0.0, -5e-324]
    expected = [1, -1, -1, -1]
    assert tree.predict(X[100:]).tolist() == expected == _onnx_run(tree, X[100:])[0].tolist()
    assert [_module(tree).predict(r) for r in X[100:].tolist()] == expected
    # the subnormal 5e-324 weight survives JSON and the generated code
    assert loads(dump(tree)).W[2, 1] == 5e-324 and "5e-324" in to_python(tree)


def test_tree_without_features_predicts_its_constants_everywhere():
    tree = Tree.from_arrays(np.zeros((3, 0)), [1.0, -1.0, 2.0])
    X = np.zeros((4, 0))
    assert tree.predict(X).tolist() == [1] * 4 and tree.apply(X).tolist() == [2] * 4
    o_label, o_proba = _onnx_run(tree, X)
    assert o_label.tolist() == [1] * 4 and np.abs(o_proba[:, 1] - 1 / (1 + math.exp(-2))).max() < 1e-15
    assert _module(tree).predict([]) == 1 and loads(dump(tree)).predict(X).tolist() == [1] * 4
    for fmt in ("text", "dot", "svg"):
        assert render(tree, fmt)
    assert render(tree, "png").startswith(b"\x89PNG\r\n\x1a\n")  # crashed: max() of an empty array


def test_tree_without_features_scores_every_row_of_a_file_or_frame(tmp_path):
    # Raw cells of no column carry no row count: predict printed its header alone, explain raised IndexError
    tree = Tree.from_arrays(np.zeros((1, 0)), [0.5], classes=("n", "p"))
    save(tree, tmp_path / "t.json")
    (tmp_path / "d.csv").write_text("a,b\n1,2\n3,4\n5,6\n")
    p = 1 / (1 + math.exp(-0.5))
    res = CliRunner().invoke(predict_cmd, [str(tmp_path / "t.json"), str(tmp_path / "d.csv"), "--proba"])
    assert res.exit_code == 0, res.output
    rows = [line.split(",") for line in res.stdout.splitlines()[1:]]
    assert len(rows) == 3 and all(r[0] == "p" and abs(float(r[2]) - p) < 1e-15 for r in rows), res.stdout
    res = CliRunner().invoke(explain_cmd, [str(tmp_path / "t.json"), "--data", str(tmp_path / "d.csv"), "--row", "2",
                                           "--json"])
    assert res.exit_code == 0, res.output
    e = json.loads(res.stdout)
    assert e["label"] == "p" and abs(e["positive_probability"] - p) < 1e-15 and e["path"][0]["bias"] == 0.5, e
    assert tree.encode(pd.DataFrame({"a": [1, 2]})).shape == (2, 0)
    assert tree.predict(tree.encode({}, n_rows=4)).tolist() == ["p"] * 4


def test_plot_bars_of_an_overflowed_influence_are_drawn():
    # |w| * std = 5e308 is inf: the bar scale was inf, every bar had width 0 or NaN, and a RuntimeWarning
    # reached stderr (``olctc export`` printed "warning: overflow encountered in multiply")
    from matplotlib.patches import Rectangle

    tree = Tree.from_arrays([[1e300, -1e300], [1e308, 0.0], [0.0, -1e308]], [1e308, -1e308, 0.0])
    tree.node_std = np.full((3, 2), 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = figure(tree)
        for fmt in ("text", "dot"):
            assert b"inf" in render(tree, fmt)
    bars = [p for p in fig.axes[0].patches if type(p) is Rectangle]
    widths = [p.get_width() for p in bars]
    assert len(bars) == 4 and all(np.isfinite(w) and w != 0 for w in widths), widths
    assert sorted(np.sign(widths).tolist()) == [-1, -1, 1, 1]


# ---------------------------------------------------------------- many, one, categorical features

@pytest.mark.parametrize("name,depth", [("w5a", 3), ("a6a", 4)])
def test_many_features_on_real_rows(name, depth):
    ds = load(name)
    rows = np.random.default_rng(0).choice(ds.n, 1500, replace=False)
    X = ds.X[rows]
    tree = _random_tree(np.random.default_rng(RNG_SEED), depth, ds.p, density=0.3, constant=0.2)
    tree = Tree(tree.W, tree.b, Scaler.fit(ds.X), ds.schema, ds.classes)
    _agree(tree, X)


def test_single_feature_tree():
    rng = np.random.default_rng(RNG_SEED)
    tree = _random_tree(rng, 3, 1, constant=0.0, density=1.0)
    X = rng.normal(size=(500, 1)) * 3
    _agree(tree, X)
    assert _onnx_run(tree, X[:1])[0].tolist() == tree.predict(X[:1]).tolist()


def _raw_cells(schema: Schema, X: np.ndarray, unseen=None) -> dict[str, list]:
    cells, j = {}, 0
    for col in schema.columns:
        if col.kind == "numeric":
            cells[col.name] = X[:, j].tolist()
            j += 1
        else:
            block = X[:, j:j + len(col.categories)]
            cells[col.name] = [col.categories[int(np.argmax(r))] if r.any() else unseen for r in block]
            j += len(col.categories)
    return cells


def test_categorical_only_data_with_unseen_and_missing_categories():
    ds = load("tic-tac-toe")
    assert not ds.schema.is_numeric and all(c.kind == "categorical" for c in ds.schema.columns)
    rng = np.random.default_rng(RNG_SEED)
    tree = _random_tree(rng, 4, ds.p, schema=ds.schema, classes=ds.classes)
    cells = _raw_cells(ds.schema, ds.X)
    n_cols = len(ds.schema.columns)
    # unseen values: another letter, upper case, a padded category, a number: all encode as no category (None and
    # NaN are missing values, refused: test_qa_missing_categories.py)
    odd = ["q", "", "None", "X", " x", 1]
    for k in range(len(odd) * n_cols):
        name = ds.schema.columns[k % n_cols].name
        cells[name][k] = odd[k // n_cols]
    X = tree.encode(cells)
    assert X[:len(odd) * n_cols].sum() == (len(odd) * n_cols) * (n_cols - 1)  # one block of zeros per row
    rows = [[cells[c.name][i] for c in ds.schema.columns] for i in range(ds.n)]
    _agree(tree, X, cells=cells, rows=rows)


@pytest.fixture
def mixed(tmp_path):
    """A depth-4 tree on a CSV with a numeric and two text columns (read by olctc.data.read_csv)."""
    path = tmp_path / "mixed.csv"
    rng = np.random.default_rng(3)
    lines = ["num,color,size,y"]
    for i in range(60):
        lines.append(f"{rng.normal():.3f},{rng.choice(['red', 'blue', 'green'])},{rng.choice(['S', 'M', 'L'])},"
                     f"{'yes' if i % 2 else 'no'}")
    path.write_text("\n".join(lines) + "\n")
    ds = read_csv(path, "y")
    assert [c.kind for c in ds.schema.columns] == ["numeric", "categorical", "categorical"]
    tree = _random_tree(np.random.default_rng(RNG_SEED), 4, ds.p, schema=ds.schema, classes=ds.classes)
    tree.W[1] = 0.0
    tree.W[1, 0] = 1e-300  # a single tiny weight
    tree.W[2] = 0.0        # a constant node
    tree = Tree(tree.W, tree.b, Scaler.fit(ds.X), ds.schema, ds.classes)
    return tree, ds, tmp_path


def test_mixed_numeric_and_categorical_csv(mixed):
    tree, ds, _ = mixed
    cells = {"num": [0.5, -1.0, 0.0, 2.25, 1e-3, -7.0, 0.7, 3.0],
             "color": ["red", "blue", "purple", "None", " red", "green", "nan", "RED"],
             "size": ["S", "M", "L", "XL", "s", 3, "M", ""]}
    X = tree.encode(cells)
    rows = [dict(zip(cells, r)) for r in zip(*cells.values())]
    _agree(tree, np.vstack([X, ds.X]), cells={k: v + _raw_cells(ds.schema, ds.X)[k] for k, v in cells.items()},
           rows=rows + [dict(zip(cells, r)) for r in zip(*_raw_cells(ds.schema, ds.X).values())])
    # an unseen category adds nothing: the row scores as with that block all zero
    assert X[2].tolist()[1:4] == [0, 0, 0] and X[3].tolist()[1:4] == [0, 0, 0]
    # the same rows as a DataFrame: Tree.encode, ONNX feeds and the module's pandas rows agree
    df = pd.DataFrame(cells)
    assert np.array_equal(tree.encode(df), X)
    assert _onnx_run(tree, cells=df)[0].tolist() == tree.predict(X).tolist()
    m = _module(tree)
    assert [m.predict(r) for _, r in df.iterrows()] == tree.predict(X).tolist()
    assert [m.predict(list(r.values())) for r in rows] == tree.predict(X).tolist()


# ---------------------------------------------------------------- unusual inputs

def test_rows_exactly_at_a_split_route_left_everywhere():
    # integer arithmetic: each score is exactly 0 in every summation order (Gemm's included)
    p = 300
    W = np.zeros((7, p))
    W[0] = 1.0          # root: sum of all features
    W[1, :2] = [2.0, -2.0]
    W[2, 5] = 1.0
    W[3:, 0] = 1.0
    b = np.array([0.0, 0.0, -3.0, 0.0, 0.0, -1.0, 0.0])
    tree = Tree.from_arrays(W, b)
    rng = np.random.default_rng(RNG_SEED)
    X = rng.integers(-5, 6, size=(400, p)).astype(float)
    X[:100, 1] = X[:100, 0]         # node 1 score exactly 0: left
    X[:50, :2] = 0.0                # node 3 score exactly 0: the negative class
    X[:, -1] -= X.sum(axis=1)       # root score exactly 0: left
    assert (X.sum(axis=1) == 0).all()
    assert (tree.apply(X) <= 4).all() and (tree.apply(X[:100]) == 3).all()
    # at the last layer: score 0 is the negative class, probability exactly 0.5
    assert tree.predict(X[:50]).tolist() == [-1] * 50 and (tree.predict_proba(X[:50]) == 0.5).all()
    ref_leaf, ref_z, _ = _Ref(tree).run(X)
    assert (tree.apply(X) == ref_leaf).all()
    m = _module(tree)
    assert [m.apply(r) for r in X[:120].tolist()] == tree.apply(X[:120]).tolist()
    o_label, o_proba = _onnx_run(tree, X)
    assert o_label.tolist() == tree.predict(X).tolist() and np.abs(o_proba - tree.predict_proba(X)).max() <= 1e-15
    assert (o_proba[:50] == 0.5).all()
    # one step right of the split (the smallest positive score) goes right everywhere
    Y = X[:50].copy()
    Y[:, -1] += 1.0
    assert (tree.apply(Y) != tree.apply(X[:50])).all()
    assert _onnx_run(tree, Y)[0].tolist() == tree.predict(Y).tolist()


def test_nan_inf_none_cells():
    tree = Tree.from_arrays([[1.0, -2.0], [0.5, 0.0], [0.0, 1.0]], [0.1, 0.0, -0.2], feature_names=["a", "b"])
    m = _module(tree)
    for bad in (float("nan"), float("inf"), -float("inf"), None):
        with pytest.raises(OlctcError, match=r"non-finite value -?inf at|missing value \(NaN\) at"):
            tree.predict([[bad, 1.0]])
        with pytest.raises(OlctcError, match="expected a finite number|a missing value; fill or drop"):
            tree.encode({"a": [bad], "b": [1.0]})
        with pytest.raises(ValueError, match="column 0"):
            m.predict([bad, 1.0])
    # ONNX checks nothing (documented): NaN probabilities, never a confident answer
    X = np.array([[np.nan, 1.0], [np.inf, 1.0], [1.0, 2.0]])
    label, proba = _onnx_run(tree, X)
    assert np.isnan(proba[:2]).all() and np.abs(proba[2] - tree.predict_proba(X[2:])[0]).max() < 1e-15
    # a finite row whose path score overflows is an error in Tree and the module, off-path it is not
    with pytest.raises(ScoreOverflow):
        tree.predict([[1e308, -1e308]])
    with pytest.raises(ValueError, match="overflows"):
        m.predict([1e308, -1e308])
    off = Tree.from_arrays([[1.0, 0.0], [0.0, 1e300], [1.0, 0.0]], [0.0, 0.0, 0.0])
    with pytest.raises(ScoreOverflow):  # node 1's score 1e300 * 1e10 overflows on the path (left)
        off.predict([[-1.0, 1e10]])
    with pytest.raises(ValueError, match="node 1 overflows"):
        _module(off).predict([-1.0, 1e10])
    # off the path (right) it takes no part
    assert off.predict([[1.0, 1e300]]).tolist() == [1] and _module(off).predict([1.0, 1e300]) == 1
    assert _onnx_run(off, np.array([[1.0, 1e300]]))[0].tolist() == [1]


def test_empty_batches_single_rows_and_container_types():
    rng = np.random.default_rng(RNG_SEED)
    tree = _random_tree(rng, 3, 4)
    names = tree.feature_names
    E = np.zeros((0, 4))
    assert tree.predict(E).shape == (0,) and tree.predict_proba(E).shape == (0, 2)
    assert tree.apply(E).shape == (0,) and tree.decision_function(E).shape == (0,)
    assert tree.decision_path(E).shape == (0, 7)
    assert tree.predict(pd.DataFrame(columns=names, dtype=float)).shape == (0,)
    label, proba = _onnx_run(tree, E)
    assert label.shape == (0,) and proba.shape == (0, 2)
    X = rng.normal(size=(25, 4))
    ref = tree.predict(X)
    assert tree.predict(X.tolist()).tolist() == ref.tolist()
    assert tree.predict(pd.DataFrame(X, columns=names)).tolist() == ref.tolist()
    assert np.array_equal(tree.predict_proba(pd.DataFrame(X, columns=names)), tree.predict_proba(X))
    for i in (0, 7):  # one row: 1-D, a list, a Series, a 1-row DataFrame, and alone vs in the batch
        one = [tree.predict(X[i]), tree.predict(X[i].tolist()), tree.predict(pd.DataFrame(X[i:i + 1], columns=names)),
               tree.predict(X[i:i + 1])]
        assert all(o.tolist() == [ref[i]] for o in one)
        assert tree.decision_function(X[i])[0] == tree.decision_function(X)[i]
        assert _onnx_run(tree, X[i:i + 1])[0].tolist() == [ref[i]]
        m = _module(tree)
        assert m.predict(X[i]) == m.predict(X[i].tolist()) == m.predict(dict(zip(names, X[i]))) == ref[i]
        assert m.predict(pd.Series(dict(zip(reversed(names), X[i][::-1])))) == ref[i]  # by name, not position
        assert tree.explain(X[i]).label == ref[i]
    with pytest.raises(OlctcError, match="another order"):
        tree.predict(pd.DataFrame(X[:, ::-1], columns=names[::-1]))


def test_a_million_rows_tree_and_onnx_agree():
    rng = np.random.default_rng(RNG_SEED)
    tree = _random_tree(rng, 3, 4, constant=0.0)
    X = rng.normal(size=(1_000_000, 4))
    label, proba = tree.predict(X), tree.predict_proba(X)
    o_label, o_proba = _onnx_run(tree, X)
    assert o_label.shape == (1_000_000,) and o_label.tolist() == label.tolist()
    assert np.abs(o_proba - proba).max() <= 1e-9
    sample = rng.choice(len(X), 2000, replace=False)
    leaf, z, margin = _Ref(tree).run(X[sample])
    clear = margin > 1e-9
    assert (tree.apply(X[sample])[clear] == leaf[clear]).all() and clear.mean() > 0.99


# ---------------------------------------------------------------- artifacts: CLI, checker, fresh interpreter

def _png_ok(data: bytes) -> tuple[int, int]:
    """Walk the PNG chunks, checking each CRC; (width, height)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, kinds, size = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        kinds.append(kind)
        pos += 12 + length
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and b"IDAT" in kinds
    return size


def _dot_ok(text: str, tree: Tree) -> None:
    """Structure of the DOT output: one digraph, declared nodes, edges between declared nodes only."""
    assert text.startswith("digraph olctc_tree {\n") and text.rstrip().endswith("}")
    body = text.strip().splitlines()[1:-1]
    strings = re.compile(r'"(?:[^"\\]|\\.)*"')
    decl, edges = set(), []
    for line in body:
        bare = strings.sub('""', line)  # quoted labels may hold anything
        assert bare.count("[") == bare.count("]") and bare.endswith(";"), line
        e = re.fullmatch(r"\s*(\w+) -> (\w+) \[.*\];", bare)
        n = re.fullmatch(r"\s*(\w+) \[.*\];", bare)
        if e:
            edges.append(e.groups())
        elif n and n.group(1) not in ("graph", "node", "edge"):
            decl.add(n.group(1))
    first_last = 2 ** (tree.depth - 1) - 1
    assert {f"n{t}" for t in range(tree.n_nodes)} <= decl
    assert len(decl) == tree.n_nodes + 2 * (tree.n_nodes - first_last)
    assert len(edges) == 2 * first_last + 2 * (tree.n_nodes - first_last)
    assert all(a in decl and b in decl for a, b in edges)


def test_cli_exports_every_format_and_each_artifact_works(mixed):
    tree, ds, tmp = mixed
    tree_path = tmp / "tree.json"
    save(tree, tree_path)
    reloaded = load_tree(tree_path)
    out = {}
    for fmt, suffix in (("json", "json"), ("python", "py"), ("onnx", "onnx"), ("text", "txt"), ("dot", "dot"),
                        ("png", "png"), ("svg", "svg")):
        path = tmp / f"out.{suffix}"
        res = CliRunner().invoke(export_cmd, [str(tree_path), "-o", str(path)])
        assert res.exit_code == 0, res.output
        out[fmt] = path.read_bytes()
        if fmt not in ("png", "svg", "onnx"):
            assert out[fmt] == render(reloaded, fmt), fmt
    # json: the round trip is exact
    again = load_tree(tmp / "out.json")
    assert np.array_equal(again.W, tree.W) and np.array_equal(again.b, tree.b)
    # onnx: the full checker, then agreement on raw cells including unseen categories
    model = onnx.load_model_from_string(out["onnx"])
    onnx.checker.check_model(model, full_check=True)
    cells = {"num": [0.3, -2.0, 1.0, 0.0], "color": ["red", "teal", "blue", "green"], "size": ["S", "M", "XXL", "L"]}
    X = tree.encode(cells)
    label, proba = session(out["onnx"]).run(None, feeds(tree, cells=cells))
    assert label.tolist() == tree.predict(X).tolist() and np.abs(proba - tree.predict_proba(X)).max() <= 1e-9
    # python: a fresh isolated interpreter (-I -S: no site-packages, no olctc, no numpy)
    rows = [dict(zip(cells, r)) for r in zip(*cells.values())] + [[0.3, "red", "S"]]
    runner = ("import importlib.util, json, sys\n"
              "spec = importlib.util.spec_from_file_location('m', sys.argv[1])\n"
              "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
              "assert 'numpy' not in sys.modules and 'olctc' not in sys.modules\n"
              "rows = json.loads(sys.stdin.read())\n"
              "print(json.dumps([[m.predict(r), m.predict_proba(r), m.apply(r)] for r in rows]))\n")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", runner, str(tmp / "out.py")], input=json.dumps(rows),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout)
    X5 = np.vstack([X, X[:1]])
    assert [g[0] for g in got] == tree.predict(X5).tolist()
    assert [g[2] for g in got] == tree.apply(X5).tolist()
    assert np.abs(np.array([g[1] for g in got]) - tree.predict_proba(X5)).max() <= 1e-15
    # text, dot, pictures
    text = out["text"].decode()
    assert text.count("(split)") == 7 and text.count("(classifier)") == 8
    assert "constant score" in text  # the constant nodes say so
    _dot_ok(out["dot"].decode(), tree)
    w, h = _png_ok(out["png"])
    assert w > 1000 and h > 300  # grows with the 8 last-layer nodes
    assert out["svg"].lstrip().startswith(b"<?xml") and out["svg"].rstrip().endswith(b"</svg>")


@pytest.mark.parametrize("depth", [1, 6])
def test_dot_and_png_structure_of_shallow_and_deep_trees(depth):
    tree = _random_tree(np.random.default_rng(depth), depth, 3)
    _dot_ok(render(tree, "dot").decode(), tree)
    if depth == 1:
        _png_ok(render(tree, "png"))
    onnx.checker.check_model(to_onnx(tree), full_check=True)


def test_cli_explain_numbers_recomputed_from_the_json_weights(mixed):
    tree, ds, tmp = mixed
    tree_path = tmp / "tree.json"
    save(tree, tree_path)
    record = json.loads(tree_path.read_text())
    W, b = np.array(record["nodes"]["W"]), np.array(record["nodes"]["b"])
    mean, scale = np.array(record["scaler"]["mean"]), np.array(record["scaler"]["scale"])
    names = record["feature_names"]
    raw = [["0.7", "purple", "M"], ["-1.0", "red", "XL"], ["0.42", "blue", "L"], ["5.5", "green", "S"]]
    data = tmp / "rows.csv"
    data.write_text("size,extra,num,color\n" + "".join(f"{r[2]},zz,{r[0]},{r[1]}\n" for r in raw))
    for k, r in enumerate(raw):
        res = CliRunner().invoke(explain_cmd, [str(tree_path), "--data", str(data), "--row", str(k), "--json",
                                               "--top", "100"])
        assert res.exit_code == 0, res.output
        e = json.loads(res.stdout)  # stderr: the note on unseen categories
        if r[1] == "purple" or r[2] == "XL":
            assert "never saw" in res.stderr
        x = np.zeros(len(names))
        x[names.index("num")] = float(r[0])
        for col in ("color", "size"):  # one-hot by hand; an unseen value sets nothing
            v = r[1] if col == "color" else r[2]
            if f"{col}={v}" in names:
                x[names.index(f"{col}={v}")] = 1.0
        xs = (x - mean) / scale
        node = 0
        for h, step in enumerate(e["path"]):
            assert step["node"] == node and step["layer"] == h + 1
            s = float(W[node] @ xs + b[node])
            assert abs(step["score"] - s) <= 1e-12 * (1 + abs(s))
            assert step["bias"] == b[node]
            contribs = {c["feature"]: c["contribution"] for c in step["contributions"]}
            assert set(contribs) == {names[j] for j in np.flatnonzero(W[node])}
            for f, c in contribs.items():
                j = names.index(f)
                assert abs(c - W[node, j] * xs[j]) <= 1e-12 * (1 + abs(c))
            assert abs(step["bias"] + sum(contribs.values()) - step["score"]) <= 1e-12
            last = h == record["depth"] - 1
            sig = 1 / (1 + math.exp(-s))
            if last:
                assert step["direction"] == "classify"
                assert abs(step["confidence"] - (sig if s > 0 else 1 - sig)) <= 1e-12
            else:
                assert step["direction"] == ("right" if s > 0 else "left")
                assert abs(step["confidence"] - (sig if s > 0 else 1 - sig)) <= 1e-12
                node = 2 * node + (2 if s > 0 else 1)
        assert len(e["path"]) == record["depth"]
        assert abs(e["positive_probability"] - sig) <= 1e-12
        assert e["label"] == record["classes"][int(s > 0)]
        assert node == int(tree.apply(x[None])[0])
    # the text form states the same path and the tiny weight of node 1 when the path passes it
    res = CliRunner().invoke(explain_cmd, [str(tree_path), "--data", str(data), "--row", "0"])
    assert res.exit_code == 0
    path = [int(t) for t in re.findall(r"^node (\d+) \(layer", res.stdout, re.M)]
    assert path == [s["node"] for s in json.loads(CliRunner().invoke(
        explain_cmd, [str(tree_path), "--data", str(data), "--row", "0", "--json"]).stdout)["path"]]


def test_explain_of_constant_and_extreme_nodes():
    tree = Tree.from_arrays([[0.0, 0.0], [1e300, 0.0], [0.0, -1e-300]], [0.0, -1e308, 0.0], classes=("a", "b"))
    for x in ([1.0, 1.0], [1e-9, 2.0]):
        e = tree.explain(np.array(x))
        assert [s.node for s in e.steps] == [0, 1]  # constant root with score 0: left
        assert e.steps[0].contributions == [] and e.steps[0].score == 0.0 and e.steps[0].direction == "left"
        assert e.steps[0].confidence == 0.5
        s1 = 1e300 * x[0] - 1e308
        assert e.steps[1].score == s1 and e.label == ("b" if s1 > 0 else "a")
        assert e.steps[1].contributions == [("x0", x[0], 1e300 * x[0])]
        assert tree.predict([x]).tolist() == [e.label] == [_module(tree).predict(x)]
    d = tree.explain(np.array([1.0, 1.0])).to_dict()
    json.dumps(d, allow_nan=False)  # strict JSON even with 1e308 numbers
