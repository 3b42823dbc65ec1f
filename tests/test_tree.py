"""Tree: routing, prediction, training statistics, influence and explanations on real data.

Also home of the helpers the export tests import (``from test_tree import ...``): trees are built
greedily, each node an L1 logistic regression on the standardised points reaching it, so the tests do
not depend on the MILP pipeline.
"""
from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from olctc.data import Column, Dataset, Scaler, Schema
from olctc.datasets import dataset_names, load
from olctc.errors import OlctcError
from olctc.tree import Tree, class_array, sigmoid

BIG = {"a6a", "phishing", "w5a", "svmguide1"}
MAX_ROWS = 2000
DEEP = ("heart", "tic-tac-toe", "breast", "svmguide1")  # also tested at depth 3


# ---------------------------------------------------------------- helpers shared with test_export_*

@functools.lru_cache(maxsize=None)
def dataset(name: str) -> Dataset:
    """A vendored data set; the big ones cut to MAX_ROWS random rows (seed 0) to keep tests fast."""
    ds = load(name)
    if ds.n > MAX_ROWS:
        rows = np.sort(np.random.default_rng(0).choice(ds.n, MAX_ROWS, replace=False))
        ds = ds.subset(rows)
    return ds


def greedy_tree(ds: Dataset, depth: int, C: float = 1.0) -> Tree:
    """Top-down greedy tree: each node an L1 logistic regression fitted on the points reaching it."""
    scaler = Scaler.fit(ds.X)
    Xs = scaler.transform(ds.X)
    n_nodes = 2 ** depth - 1
    W, b = np.zeros((n_nodes, ds.p)), np.zeros(n_nodes)
    reach = {0: np.arange(ds.n)}
    for t in range(n_nodes):
        rows = reach.get(t, np.array([], dtype=int))
        y = ds.y[rows]
        if len(np.unique(y)) == 2:
            m = LogisticRegression(l1_ratio=1.0, solver="liblinear", C=C, random_state=0).fit(Xs[rows], y)
            W[t], b[t] = m.coef_[0], m.intercept_[0]
        elif len(y):
            b[t] = 2.0 if y[0] > 0 else -2.0  # one class: a constant classifier
        if t < 2 ** (depth - 1) - 1:
            s = Xs[rows] @ W[t] + b[t]
            reach[2 * t + 1], reach[2 * t + 2] = rows[s <= 0], rows[s > 0]
    tree = Tree(W, b, scaler, ds.schema, ds.classes, meta={"preset": "greedy-test", "depth": depth})
    tree.fit_stats(ds.X, ds.y)
    return tree


@functools.lru_cache(maxsize=None)
def tree_for(name: str, depth: int) -> Tree:
    return greedy_tree(dataset(name), depth)


def cases() -> list[tuple[str, int]]:
    """Every vendored data set at depth 2, a few at depth 3."""
    return [(n, 2) for n in dataset_names()] + [(n, 3) for n in DEEP]


def raw_cells(schema: Schema, X: np.ndarray, unseen: str = "<unseen>") -> dict[str, list]:
    """Invert the encoding: column -> raw values (floats, or the category of each one-hot row)."""
    cells: dict[str, list] = {}
    j = 0
    for col in schema.columns:
        if col.kind == "numeric":
            cells[col.name] = [float(v) for v in X[:, j]]
            j += 1
        else:
            k = len(col.categories)
            block = X[:, j:j + k]
            cells[col.name] = [col.categories[i] if block[r, i] == 1 else unseen
                               for r, i in enumerate(block.argmax(axis=1))]
            j += k
    return cells


def raw_rows(schema: Schema, X: np.ndarray) -> list[list]:
    """Rows of raw values in column order (sequence rows for the exported code)."""
    cells = raw_cells(schema, X)
    return [list(r) for r in zip(*(cells[c.name] for c in schema.columns))] if schema.columns else []


HOSTILE_CODE = "__import__('os').system('touch {marker}')"


def hostile_dataset(marker: str, n: int = 400, seed: int = 0, csv_safe: bool = False, nul: bool = True) -> Dataset:
    """Column names, categories and class labels an attacker (or an unlucky CSV) could supply.

    Executing any of them as code would create the file ``marker``. ``csv_safe`` drops the names a CSV
    header cannot carry (``read_table`` strips surrounding whitespace from column names); ``nul=False`` takes the
    NUL out of the one name that has it (ONNX export refuses it).
    """
    code = HOSTILE_CODE.format(marker=marker)
    numeric = ['a"b', "x\ny", code, "class", "é漢字", "x" * 10_000, "'''", '"""\\', "\r\x00\u2028\x0c",
               f"'); {code}; ('", f'"); {code}; ("', f"\n{code}\n", "# \n" + code, "a=b", "dup", "dup",
               "{0}{}%s%d", "$x^2$ \\n", "input", "olctc.X", "def"]
    if csv_safe:
        numeric = [c for c in numeric if c == c.strip()]
    if not nul:  # a name ONNX export refuses: onnxruntime's C interface cuts names at a NUL
        numeric = [c.replace("\x00", "") for c in numeric]
    cat_name = "a"  # with category "b": its feature 'a=b' duplicates the numeric column 'a=b'
    cats = ("b", f"'); {code}; ('", "x\ny", "é漢字", "0")
    rng = np.random.default_rng(seed)
    Xn = rng.normal(size=(n, len(numeric))) * rng.uniform(0.5, 20, size=len(numeric)) + rng.normal(size=len(numeric))
    Xn[:, numeric.index("dup") + 1] = Xn[:, numeric.index("dup")]  # same name, same values (as from a table)
    ci = rng.integers(0, len(cats), size=n)
    onehot = (ci[:, None] == np.arange(len(cats))[None, :]).astype(float)
    X = np.hstack([Xn, onehot])
    logit = Xn[:, 0] / 5 - Xn[:, 2] / 10 + 1.5 * (ci == 1) - (ci == 3) + rng.normal(scale=0.5, size=n)
    y = np.where(logit > 0, 1, -1).astype(np.int8)
    schema = Schema(tuple(Column(c, "numeric") for c in numeric) + (Column(cat_name, "categorical", cats),))
    classes = (code, "x\ny\"'")
    return Dataset(X, y, classes, schema, "hostile")


# ---------------------------------------------------------------- tests

def test_helpers_cover_every_vendored_data_set():
    assert len(dataset_names()) == 17
    assert dataset("w5a").n == MAX_ROWS and dataset("heart").n == 297


@pytest.mark.parametrize("name,depth", cases())
def test_scores_fold_the_standardisation(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    S = tree.scores(ds.X)
    S_std = tree.scaler.transform(ds.X) @ tree.W.T + tree.b
    assert S.shape == (ds.n, 2 ** depth - 1)
    np.testing.assert_allclose(S, S_std, rtol=1e-9, atol=1e-9 * (1 + np.abs(S_std).max()))
    np.testing.assert_array_equal(tree.W_raw, tree.W / tree.scaler.scale)


@pytest.mark.parametrize("name,depth", [("heart", 2), ("tic-tac-toe", 3), ("sonar", 3)])
def test_apply_and_decision_path_follow_the_scores(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    S = tree.scores(ds.X)
    leaf = tree.apply(ds.X)
    path = tree.decision_path(ds.X)
    assert path.shape == (ds.n, tree.n_nodes) and path.format == "csr"
    assert (path.getnnz(axis=1) == depth).all()
    for i in range(0, ds.n, 7):  # a reference walk, row by row
        t, nodes = 0, [0]
        for _ in range(depth - 1):
            t = 2 * t + (2 if S[i, t] > 0 else 1)
            nodes.append(t)
        assert leaf[i] == t
        assert sorted(path[i].indices.tolist()) == nodes
    np.testing.assert_array_equal(tree.decision_function(ds.X), S[np.arange(ds.n), leaf])


@pytest.mark.parametrize("name,depth", cases())
def test_predict_and_proba_agree(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    f = tree.decision_function(ds.X)
    labels = tree.predict(ds.X)
    P = tree.predict_proba(ds.X)
    assert P.shape == (ds.n, 2)
    np.testing.assert_array_equal(labels, np.where(f > 0, ds.classes[1], ds.classes[0]).astype(labels.dtype))
    np.testing.assert_array_equal(P[:, 1], sigmoid(f))
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    # the greedy tree learns something on every data set
    assert np.mean(labels == ds.labels(ds.y)) >= max(np.mean(ds.y > 0), np.mean(ds.y < 0)) - 0.02


def test_trees_compare_and_hash_by_identity():
    # the dataclass's field-wise == compared arrays: "truth value of an array is ambiguous"; hash() raised
    a, b = (Tree.from_arrays(np.zeros((1, 2)), [0.5]) for _ in range(2))
    assert a == a and a != b and len({a, b, a}) == 2
    assert a.scaler == a.scaler and a.scaler != b.scaler and len({a.scaler, b.scaler}) == 2


def test_sigmoid_is_stable_for_extreme_scores():
    z = np.array([-1e308, -1000.0, -40.0, -1e-300, 0.0, 1e-300, 40.0, 1000.0, 1e308])
    with np.errstate(all="raise"):
        s = sigmoid(z)
    assert s[0] == 0.0 and s[-1] == 1.0 and s[4] == 0.5
    assert np.all(np.diff(s) >= 0)
    np.testing.assert_allclose(s[2], 1 / (1 + np.exp(40.0)), rtol=1e-15)


def test_label_arrays_keep_the_label_types():
    assert class_array((0, 1)).dtype == np.int64
    assert class_array((0.5, 2.5)).dtype == np.float64
    # an int beside a float stays an int: a float array would print label 2 as "2.0"
    assert class_array((0.5, 2)).tolist() == [0.5, 2] and isinstance(class_array((0.5, 2))[1], int)
    mixed = class_array((3, "not 3"))
    assert mixed.dtype == object and mixed[0] == 3 and isinstance(mixed[0], int)
    tree = tree_for("ionosphere", 2)
    assert set(tree.predict(dataset("ionosphere").X).tolist()) <= {"b", "g"}


@pytest.mark.parametrize("name,depth", [("breast", 2), ("tic-tac-toe", 3), ("w5a", 2)])
def test_fit_stats_counts_and_stds(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    assert tree.node_n[0] == ds.n and tree.node_pos[0] == np.sum(ds.y > 0)
    for t in range(2 ** (depth - 1) - 1):
        assert tree.node_n[t] == tree.node_n[2 * t + 1] + tree.node_n[2 * t + 2]
        assert tree.node_pos[t] == tree.node_pos[2 * t + 1] + tree.node_pos[2 * t + 2]
    mask = tree.decision_path(ds.X).toarray().astype(bool)
    Xs = tree.scaler.transform(ds.X)
    for t in range(tree.n_nodes):
        rows = mask[:, t]
        assert tree.node_n[t] == rows.sum()
        if rows.any():
            np.testing.assert_allclose(tree.node_std[t], Xs[rows].std(axis=0), atol=1e-12)
        else:
            assert (tree.node_std[t] == 0).all()
    np.testing.assert_array_equal(tree.influence(), tree.W * tree.node_std)


def test_influence_needs_training_statistics():
    tree = Tree.from_arrays([[1.0, -2.0]], [0.5])
    with pytest.raises(OlctcError, match="no training statistics"):
        tree.influence()
    # without statistics, features rank by standardised weight
    assert tree.ranked_features(0) == [(1, -2.0), (0, 1.0)]


def test_node_scores_and_labels_out_of_range_are_refused():
    tree, ds = tree_for("heart", 2), dataset("heart")
    assert tree.ranked_features(2, k=0) == [] and len(tree.ranked_features(2, k=1)) == 1
    # -1 gave node 2's features, k=-1 left out the last one, 99 was numpy's IndexError
    for t in (-1, 3, 99, 1.0, True):
        with pytest.raises(OlctcError, match=r"^The 't' parameter must be a node number from 0 to 2\."):
            tree.ranked_features(t)
    for k in (-1, 2.5):
        with pytest.raises(OlctcError, match=r"^The 'k' parameter must be None or an integer >= 0\."):
            tree.ranked_features(0, k=k)
    z = tree.decision_function(ds.X[:4])
    np.testing.assert_array_equal(tree.proba_of(z), tree.predict_proba(ds.X[:4]))
    for bad in (np.zeros((2, 2)), 0.5):  # a 2-D array gave 4 "probability" columns
        for f in (tree.proba_of, tree.log_proba_of):
            with pytest.raises(OlctcError, match=r"^scores must be 1-D, one decision_function value per row"):
                f(bad)
    for y in (np.full(ds.n, 7), np.where(ds.y > 0, 1, 0), ds.y.astype(str)):  # 7 everywhere: all positive
        with pytest.raises(OlctcError, match=r"^y must hold labels -1 and \+1 .* at row 0$"):
            tree.fit_stats(ds.X, y)


@pytest.mark.parametrize("name,depth", [("heart", 2), ("tic-tac-toe", 3), ("breast", 3)])
def test_explain_walks_the_path(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    S = tree.scores(ds.X)
    path = tree.decision_path(ds.X)
    P = tree.predict_proba(ds.X)
    labels = tree.predict(ds.X)
    Xs = tree.scaler.transform(ds.X)
    for i in (0, 1, ds.n // 2, ds.n - 1):
        ex = tree.explain(ds.X[i], top=3)
        assert [s.node for s in ex.steps] == sorted(path[i].indices.tolist())
        assert [s.direction for s in ex.steps][-1] == "classify"
        for s in ex.steps:
            assert s.score == pytest.approx(S[i, s.node], abs=1e-9)
            assert s.sigmoid == pytest.approx(float(sigmoid(S[i, s.node])), abs=1e-12)
            # the confidence in the decision taken, as explain prints it and --json writes it
            taken = s.sigmoid if s.direction == "right" or (s.direction == "classify" and s.score > 0) \
                else 1 - s.sigmoid
            assert s.confidence == pytest.approx(taken, abs=1e-15)
            assert ex.to_dict()["path"][ex.steps.index(s)]["confidence"] == s.confidence
            full = tree.W[s.node] * Xs[i]
            assert s.bias + full.sum() == pytest.approx(s.score, abs=1e-9)  # contributions add up
            assert len(s.contributions) <= 3
            mags = [abs(c) for _, _, c in s.contributions]
            assert mags == sorted(mags, reverse=True)
            if s.contributions:
                assert mags[0] == pytest.approx(np.abs(full[tree.W[s.node] != 0]).max())
        assert ex.label == labels[i] and ex.probability == pytest.approx(P[i, 1], abs=1e-15)
        d = ex.to_dict()
        assert d["path"][0]["node"] == 0 and len(d["path"]) == depth
        # "confidence" is in the decision each node took: the direction, then the label (not P(positive))
        assert all(step["confidence"] >= 0.5 for step in d["path"])
        assert d["path"][-1]["confidence"] == pytest.approx(d["probability"], abs=1e-15)
        assert ex.lines()[-1].startswith("prediction:")
        # the text's lines under a node add up to its score (shown contributions, the other features, the
        # bias), which the text left out (QA pass, 2026-12-03)
        text = ex.lines()
        for s in ex.steps:
            k = next(j for j, line in enumerate(text) if line.startswith(f"node {s.node} "))
            terms = [float(line.split()[0]) for line in itertools.takewhile(lambda t: t.startswith("    "),
                                                                             text[k + 1:])]
            assert text[k + len(terms)].endswith("  bias") and float(text[k + len(terms)].split()[0]) == \
                pytest.approx(s.bias, rel=1e-3)
            assert sum(terms) == pytest.approx(s.score, abs=6e-4 * sum(map(abs, terms)) + 1e-9), (text, s.score)


def test_explain_takes_raw_cells():
    tree, ds = tree_for("tic-tac-toe", 2), dataset("tic-tac-toe")
    cells = raw_cells(ds.schema, ds.X[5:6])
    row = {k: v[0] for k, v in cells.items()}
    assert tree.explain(row).to_dict() == tree.explain(ds.X[5]).to_dict()
    np.testing.assert_array_equal(tree.encode(cells), ds.X[5:6])


def test_raw_cell_errors_name_the_row_not_a_file_line():
    """Cells given as arrays come from no file: a bad one was placed at "line 2" (a CSV's first data line)."""
    schema = Schema((Column("u", "numeric"), Column("v", "numeric")))
    tree = Tree(np.array([[1.0, 0.0]]), np.zeros(1), Scaler.identity(2), schema, (0, 1))
    with pytest.raises(OlctcError) as err:
        tree.encode({"u": [1, 2, "x"], "v": [1, 2, 3]})
    assert str(err.value) == "data: column 'u' row 2: expected a number, got 'x'"
    with pytest.raises(OlctcError) as err:
        tree.explain({"u": None, "v": 1.0})
    assert str(err.value) == "x_row: column 'u' row 0: a missing value; fill or drop missing values"
    # a cell that is a sequence: numpy made a 2-D array of the column, and bytearray(b"2") encoded as 50
    for cell, shown in ((bytearray(b"2"), "\"bytearray(b'2')\""), ([1.0], "'[1.0]'")):
        with pytest.raises(OlctcError) as err:
            tree.encode({"u": [cell], "v": [1.0]})
        assert str(err.value) == f"data: column 'u' row 0: expected a number, got {shown}"


def test_a_missing_cell_is_named_as_such():
    """Said "expected a finite number, got np.float64(nan)" for a pandas NA; a text cell "nan" (a CSV's)
    is still quoted as the text it is."""
    import pandas as pd

    schema = Schema((Column("u", "numeric"),))
    tree = Tree(np.array([[1.0]]), np.zeros(1), Scaler.identity(1), schema, (0, 1))
    for cells in [pd.DataFrame({"u": [1.0, None]}), pd.DataFrame({"u": [1.0, None]}).convert_dtypes(),
                  pd.DataFrame({"u": pd.array([1, None], dtype="Int64")}), {"u": [1.0, np.float64("nan")]},
                  {"u": [1.0, pd.NA]}, {"u": [1.0, None]}, {"u": np.array([1.0, np.nan], dtype=np.float32)}]:
        with pytest.raises(OlctcError) as err:
            tree.encode(cells)
        assert str(err.value) == "data: column 'u' row 1: a missing value; fill or drop missing values"
    with pytest.raises(OlctcError) as err:
        tree.encode({"u": ["1", "nan"]})
    assert str(err.value) == "data: column 'u' row 1: expected a finite number, got 'nan'"


def test_construction_is_validated():
    schema = Schema((Column("u", "numeric"), Column("v", "numeric")))
    sc = Scaler.identity(2)
    with pytest.raises(OlctcError, match="2\\^depth - 1 rows"):
        Tree(np.zeros((2, 2)), np.zeros(2), sc, schema, (0, 1))
    with pytest.raises(OlctcError, match="one entry per node"):
        Tree(np.zeros((3, 2)), np.zeros(2), sc, schema, (0, 1))
    with pytest.raises(OlctcError, match="encodes 2 features; W has 3"):
        Tree(np.zeros((1, 3)), np.zeros(1), Scaler.identity(3), schema, (0, 1))
    with pytest.raises(OlctcError, match="must differ"):
        Tree(np.zeros((1, 2)), np.zeros(1), sc, schema, ("a", "a"))
    with pytest.raises(OlctcError, match=r"node_n: nodes 1 and 2 count 4 \+ 3 points, more than their parent node "
                                         r"0's 6"):
        Tree(np.zeros((3, 2)), np.zeros(3), sc, schema, (0, 1), node_n=[6, 4, 3])
    with pytest.raises(OlctcError, match=r"node_pos: nodes 1 and 2 count 1 \+ 1 points, more than .* node 0's 1$"):
        Tree(np.zeros((3, 2)), np.zeros(3), sc, schema, (0, 1), node_n=[6, 3, 3], node_pos=[1, 1, 1])
    with pytest.raises(OlctcError, match="must differ as text; got '1' and 1"):
        Tree(np.zeros((1, 2)), np.zeros(1), sc, schema, ("1", 1))
    with pytest.raises(OlctcError, match="bool"):
        Tree(np.zeros((1, 2)), np.zeros(1), sc, schema, (False, True))
    with pytest.raises(OlctcError, match="finite"):
        Tree(np.full((1, 2), np.nan), np.zeros(1), sc, schema, (0, 1))
    with pytest.raises(OlctcError, match="positive"):
        Tree(np.zeros((1, 2)), np.zeros(1), Scaler(np.zeros(2), np.zeros(2)), schema, (0, 1))
    with pytest.raises(OlctcError, match="node_std must have shape"):
        Tree(np.zeros((1, 2)), np.zeros(1), sc, schema, (0, 1), node_std=np.zeros((1, 3)))


def test_prediction_inputs_are_validated():
    tree = tree_for("heart", 2)
    X = dataset("heart").X[:3].copy()
    with pytest.raises(OlctcError, match=r"shape \(n, 13\)"):
        tree.predict(X[:, :5])
    X[1, 4] = np.nan
    with pytest.raises(OlctcError, match=r"missing value \(NaN\) at row 1, feature 'chol'; fill or drop"):
        tree.predict(X)
    one = tree.predict(dataset("heart").X[0])  # a single 1-D row is one sample
    assert one.shape == (1,)


def test_from_arrays_defaults():
    tree = Tree.from_arrays(np.array([[1.0, 0.0], [0.0, 2.0], [-1.0, 1.0]]), [0.0, -1.0, 1.0])
    assert tree.depth == 2 and tree.feature_names == ["x0", "x1"] and tree.classes == (-1, 1)
    np.testing.assert_array_equal(tree.W_raw, tree.W)
    np.testing.assert_array_equal(tree.b_raw, tree.b)
    X = np.array([[-1.0, 5.0], [1.0, 0.0], [1.0, 2.0]])
    # row 0: root score -1 -> node 1: 2*5 - 1 = 9 > 0 -> +1; row 1: root 1 -> node 2: -1 + 1 = 0 -> -1
    np.testing.assert_array_equal(tree.apply(X), [1, 2, 2])
    np.testing.assert_array_equal(tree.predict(X), [1, -1, 1])


def test_overflowing_scores_are_an_error_not_nan_probabilities():
    # Finite rows whose terms overflow with opposite signs made inf - inf: NaN probabilities, class 0.
    tree = Tree.from_arrays([[2.0, -2.0]], [0.0])
    with np.errstate(all="raise"), pytest.raises(OlctcError, match=r"^row 1: the score of node 0 overflows"):
        tree.predict_proba([[1.0, 2.0], [1e308, 1e308]])
    assert np.isfinite(tree.predict_proba([[1.0, 2.0]])).all()
    # Weights that overflow on the raw features cannot make a usable tree.
    with pytest.raises(OlctcError, match=r"weights on the raw features .* overflow"):
        Tree.from_arrays([[1.0, 1.0]], [0.0], scaler=Scaler(np.zeros(2), np.array([5e-324, 1.0])))


def test_dataframe_columns_must_be_the_features_in_order():
    # A DataFrame with the right columns in another order was predicted silently wrong (361 of 569 breast
    # rows changed class with a fitted depth-2 tree); scikit-learn refuses such a frame, so does the tree.
    pd = pytest.importorskip("pandas")
    tree, ds = tree_for("breast", 2), dataset("breast")
    df = pd.DataFrame(ds.X, columns=ds.feature_names)
    np.testing.assert_array_equal(tree.predict(df), tree.predict(ds.X))
    assert (tree.predict(df[df.columns[::-1]].to_numpy()) != tree.predict(ds.X)).any()  # what went wrong
    with pytest.raises(OlctcError, match=r"^X holds the tree's features in another order: its column 0 is "
                                         r"'worst_fractal_dimension', the tree's feature 0 is 'mean_radius'; "
                                         r"pass X\[tree.feature_names\]$"):
        tree.predict(df[df.columns[::-1]])
    with pytest.raises(OlctcError, match=r"does not name the tree's features: its column 1 is 'tex'"):
        tree.predict_proba(df.rename(columns={"mean_texture": "tex"}))
    with pytest.raises(OlctcError, match="another order"):
        tree.explain(df[df.columns[::-1]].iloc[:1])
    # integer column names (a frame built from an array) and trees trained without names are not checked
    np.testing.assert_array_equal(tree.predict(pd.DataFrame(ds.X)), tree.predict(ds.X))
    unnamed = Tree.from_arrays(tree.W, tree.b, scaler=tree.scaler, classes=tree.classes)
    np.testing.assert_array_equal(unnamed.predict(df), tree.predict(ds.X))


def test_integers_beyond_float64_are_an_error():
    tree = tree_for("heart", 2)
    with pytest.raises(OlctcError, match="integer too large for a float64"):
        tree.predict([[10 ** 400] * 13])


def test_scores_of_a_few_rows_add_the_terms_in_feature_order():
    """Up to 64 rows (explain, one row at a time) the scores come from one numpy call per node (one per term
    took 0.12 s a row at depth 6 and 1000 features): still the sum in feature order that the generated code
    makes, to the bit, and what the same rows get inside a large batch."""
    rng = np.random.default_rng(5)
    depth, p = 4, 40
    W = rng.normal(size=(2 ** depth - 1, p)) * 10.0 ** rng.integers(-4, 5, size=(2 ** depth - 1, p))
    W[rng.random(W.shape) < 0.6] = 0.0
    W[3] = 0.0  # a node with no term: its bias alone
    tree = Tree(W, rng.normal(size=2 ** depth - 1), Scaler(rng.normal(size=p), rng.uniform(0.5, 2, size=p)),
                Schema(tuple(Column(f"f{j}", "numeric") for j in range(p))), ("no", "yes"))
    X = rng.normal(size=(2000, p)) * 10.0 ** rng.integers(-3, 4, size=(2000, p))
    Wr, br = tree.W_raw, tree.b_raw

    def plain(x: np.ndarray) -> list[float]:
        out = []
        for t in range(Wr.shape[0]):
            s = 0.0
            for j in range(p):
                if Wr[t, j] != 0.0:
                    s += float(x[j]) * float(Wr[t, j])
            out.append(s + float(br[t]))
        return out

    few = tree.scores(X[:64])
    assert few.tolist() == [plain(x) for x in X[:64]]
    assert np.array_equal(few, tree.scores(X)[:64])  # the batch path, term by term
    assert np.array_equal(tree.scores(X[7]), few[7:8])


@pytest.mark.parametrize("depth", [1, 2, 3, 5, 8])
def test_path_scores_are_the_full_scores_at_the_path_to_the_bit(depth):
    """decision_function and apply score only the nodes on each row's path: the same bits as every node's
    scores (Tree.scores) routed by Topology.route, across the few-rows and block paths and block edges."""
    rng = np.random.default_rng(depth)
    for p in (1, 3, 40):
        nodes = 2 ** depth - 1
        W = rng.normal(size=(nodes, p)) * (rng.random((nodes, p)) < 0.6)
        schema = Schema(tuple(Column(f"c{j}", "numeric") for j in range(p)))
        tree = Tree(W, rng.normal(size=nodes) * 0.3, Scaler(rng.normal(size=p), rng.random(p) + 0.5), schema,
                    (0, 1))
        for n in (1, 64, 65, 8192 + 7):
            X = rng.normal(size=(n, p)) * 3
            S = tree.scores(X)
            leaf = tree.topology.route(S)
            assert np.array_equal(tree.apply(X), leaf)
            assert np.array_equal(tree.decision_function(X).view(np.int64), S[np.arange(n), leaf].view(np.int64))


def test_scoring_a_deep_tree_holds_the_path_not_every_node():
    """A depth-10 tree's decision_function held rows x 1023 scores (20,000 rows: 164 MB; predict's chunks of a
    3-column file: 1 GB, QA 2026-12-05); the path's 10 scores per row take 1.6 MB."""
    import tracemalloc

    rng = np.random.default_rng(0)
    p, n = 3, 20_000
    tree = Tree(rng.normal(size=(1023, p)), rng.normal(size=1023), Scaler.identity(p),
                Schema(tuple(Column(f"c{j}", "numeric") for j in range(p))), (0, 1))
    X = rng.normal(size=(n, p))
    tracemalloc.start()
    try:
        tree.decision_function(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20, peak
