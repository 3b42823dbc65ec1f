"""Ties at score 0, label types and structure of the exports: behaviour a mutation pass (QA 2026-12-06) could change
without any other test noticing. Every artifact is run for real: sqlite3 and DuckDB run the SQL, onnxruntime
the ONNX graph; the text and DOT exports are parsed and checked against the tree's own routing and counts."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import olctc
from olctc.errors import OlctcError
from olctc.estimator import OLCTClassifier
from olctc.export.dot import to_dot
from olctc.export.json import dump, loads
from olctc.export.onnx import session, to_onnx
from olctc.export.sql import to_sql
from olctc.export.text import to_text
from olctc.tree import Tree
from test_export_sql import run_duckdb, run_sqlite
from test_tree import dataset, greedy_tree


def _zero_tree(depth: int, p: int = 2, classes=("no", "yes")) -> Tree:
    """Every node w = 0, b = 0: every score is exactly 0, a tie at every split and every last-layer node."""
    n = 2 ** depth - 1
    return Tree.from_arrays(np.zeros((n, p)), np.zeros(n), classes=classes)


def _sql_labels(run, tree: Tree, X: np.ndarray) -> list:
    """olctc_label of the SQL query, run by ``run`` (run_sqlite, run_duckdb) on the numeric rows X."""
    return [r["olctc_label"] for r in run(tree, X.tolist(), to_sql(tree))]


@pytest.fixture(scope="module")
def heart2() -> Tree:
    """A depth-2 tree fitted (greedily) on heart, with text class labels that tell the two classes apart."""
    tree = greedy_tree(dataset("heart"), 2)
    tree.classes = ("healthy", "sick")
    return tree


# ---------------------------------------------------------------- ties at score 0: the negative class, left

def test_deep_zero_tree_routes_left_in_the_row_walk():
    # depth 6 routes through _walk (depth > 5): a score of 0 must go left (leaf 31), not right (62)
    tree = _zero_tree(6, p=3)
    X = np.random.default_rng(1).normal(size=(50, 3)) * 1e6
    assert tree.apply(X).tolist() == [31] * 50
    assert tree.predict(X).tolist() == ["no"] * 50


def test_explain_label_at_a_zero_score_is_predicts():
    # explain's label at score exactly 0 must be the negative class, as predict says (not the positive one)
    tree = _zero_tree(1)
    x = np.array([1.0, 2.0])
    assert tree.predict(x.reshape(1, -1)).tolist() == ["no"]
    assert tree.explain(x).label == "no"


@pytest.mark.parametrize("run", [run_sqlite, run_duckdb], ids=["sqlite", "duckdb"])
def test_sql_label_at_a_zero_score_is_the_negative_class(run):
    # the SQL CASE at olctc_score = 0 must give the negative class, as Tree.predict does
    tree = _zero_tree(1)
    X = np.array([[1.0, 2.0], [-3.0, 0.0], [0.0, 0.0]])
    assert tree.predict(X).tolist() == ["no"] * 3
    assert _sql_labels(run, tree, X) == ["no"] * 3


@pytest.mark.parametrize("positive_class", [None, 0])
def test_estimator_predict_at_a_zero_score_matches_the_tree(positive_class):
    # a real fit on a feature that says nothing of the balanced labels gives w = 0, b = 0: every score is 0;
    # the estimator's predict must then give the tree's negative class, whichever class is the positive one
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    y = np.array([0, 0, 1, 1])
    est = OLCTClassifier(depth=1, C=1, time_limit=10, positive_class=positive_class).fit(X, y)
    assert est.tree_.W.tolist() == [[0.0]] and est.tree_.b.tolist() == [0.0]
    negative = 1 if positive_class == 0 else 0
    assert est.export_tree().predict(X).tolist() == [negative] * 4
    assert est.predict(X).tolist() == [negative] * 4


# ---------------------------------------------------------------- class labels in ONNX and SQL

def test_onnx_float_labels_are_exact_doubles():
    # float class labels go out as float64: 0.1 must not come back as float32's 0.10000000149011612
    tree = Tree.from_arrays([[1.0, 0.0]], [0.0], classes=(0.1, 0.2))
    X = np.array([[-1.0, 5.0], [1.0, 5.0], [0.0, 5.0]])
    label, _ = session(to_onnx(tree)).run(None, {"input": X})
    assert tree.predict(X).tolist() == [0.1, 0.2, 0.1]
    assert label.dtype == np.float64
    assert label.tolist() == [0.1, 0.2, 0.1]


def test_an_int_beyond_2_53_beside_a_float_label_goes_out_as_text():
    # 2**53 + 1 beside 0.5 would share a double with it and round to 2**53: ONNX and SQL must write text
    big = 2 ** 53 + 1
    tree = Tree.from_arrays([[1.0, 0.0]], [0.0], classes=(0.5, big))
    X = np.array([[-1.0, 0.0], [1.0, 0.0]])
    assert tree.predict(X).tolist() == [0.5, big]
    label, _ = session(to_onnx(tree)).run(None, {"input": X})
    assert label.tolist() == ["0.5", "9007199254740993"]
    assert _sql_labels(run_sqlite, tree, X) == ["0.5", "9007199254740993"]
    assert _sql_labels(run_duckdb, tree, X) == ["0.5", "9007199254740993"]


# ---------------------------------------------------------------- JSON raw block

def test_json_raw_weights_off_by_one_percent_are_refused():
    # raw.W is derived from nodes.W and the scaler: one 1% off (edited by hand) must be refused, not read
    tree = greedy_tree(dataset("heart"), 1)
    doc = json.loads(dump(tree))
    assert loads(json.dumps(doc)).W.tolist() == tree.W.tolist()  # the untouched file reads back
    assert doc["raw"]["W"][0][0] != 0
    doc["raw"]["W"][0][0] *= 1.01
    with pytest.raises(OlctcError, match=r"raw\.W/raw\.b disagree with nodes\.W, nodes\.b and the scaler"):
        loads(json.dumps(doc))


# ---------------------------------------------------------------- text export

def test_text_subtrees_follow_the_routing_and_last_layer_classes(heart2):
    # the "score <= 0" branch must hold the left child (2t + 1, where olctc routes a score <= 0), and a
    # last-layer node's "score <= 0" rule the negative class
    tree = heart2
    X = dataset("heart").X
    s0 = X @ tree.W_raw[0] + tree.b_raw[0]
    assert set(tree.apply(X[s0 <= 0]).tolist()) == {1} and set(tree.apply(X[s0 > 0]).tolist()) == {2}
    lines = to_text(tree).splitlines()
    heads = [(ln.count("|   "), int(m.group(1))) for ln in lines if (m := re.match(r"^(?:\|   )*node (\d+) ", ln))]
    assert heads == [(0, 0), (1, 1), (1, 2)]
    k_le, k_gt = lines.index("|--- score <= 0"), lines.index("|--- score > 0")
    assert lines[k_le + 1].startswith("|   node 1 (classifier)") and lines[k_gt + 1].startswith("|   node 2 (")
    assert [ln for ln in lines if ln.startswith("|   |--- ")] == [
        "|   |--- score <= 0: class healthy", "|   |--- score > 0: class sick"] * 2


def test_text_shares_are_the_positive_class_counts(heart2):
    # each node's "class sick: x%" must be node_pos / node_n (sick = classes[1]), not (n - pos) / n
    tree = heart2
    text = to_text(tree)
    for t in range(tree.n_nodes):
        n, pos = int(tree.node_n[t]), int(tree.node_pos[t])
        assert 2 * pos != n  # else pos / n and (n - pos) / n read the same
        share = f"[n={n} ({100 * n / int(tree.node_n[0]):.1f}%), class sick: {100 * pos / n:.1f}%]"
        assert re.search(rf"^(?:\|   )*node {t} \(\w+\)  " + re.escape(share) + "$", text, re.M), share


def test_text_constant_node_at_score_0_names_predicts_class():
    # a last-layer node with w = 0 and b = 0 scores 0 everywhere: "every point" must name predict's class
    tree = _zero_tree(1)
    assert tree.predict(np.zeros((1, 2))).tolist() == ["no"]
    assert "|--- every point: class no (P(yes) = 0.5)" in to_text(tree).splitlines()


# ---------------------------------------------------------------- DOT export

def _dot_edges(text: str) -> dict[tuple[str, str], str]:
    """(node id, edge label) -> target node id, from the DOT text."""
    edges = re.findall(r'^  (\w+) -> (\w+) \[label="([^"]*)"\];$', text, re.M)
    out = {(a, lab): b for a, b, lab in edges}
    assert len(out) == len(edges)
    return out


def test_dot_edges_follow_the_routing_and_name_the_classes(heart2):
    # "<= 0" must lead to the left child 2t + 1 (where olctc routes a score <= 0), "> 0" to 2t + 2; a
    # last-layer node's "<= 0" ellipse must hold classes[0], its "> 0" one classes[1]
    tree = heart2
    X = dataset("heart").X
    s0 = X @ tree.W_raw[0] + tree.b_raw[0]
    text = to_dot(tree)
    edges = _dot_edges(text)
    assert edges[("n0", "<= 0")] == f"n{tree.apply(X[s0 <= 0])[0]}" == "n1"
    assert edges[("n0", "> 0")] == f"n{tree.apply(X[s0 > 0])[0]}" == "n2"
    labels = dict(re.findall(r'^  (c\d+_\w+) \[label="([^"]*)\\l", shape=ellipse', text, re.M))
    for t in (1, 2):
        assert labels[edges[(f"n{t}", "<= 0")]] == "healthy"
        assert labels[edges[(f"n{t}", "> 0")]] == "sick"
    # the zero tree routes every row left: the "<= 0" edge's target is the leaf apply gives
    zero = _zero_tree(2)
    assert _dot_edges(to_dot(zero))[("n0", "<= 0")] == f"n{zero.apply(np.ones((1, 2)))[0]}" == "n1"


# ---------------------------------------------------------------- labels and arrays (olctc.from_arrays)

X4 = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])


def test_numeric_classes_sort_as_numbers():
    # 9 < 10 as numbers: sorted as text, "10" < "9" would make 9 the positive class
    ds = olctc.from_arrays(X4, [9, 10, 10, 9])
    assert ds.classes == (9, 10)
    assert ds.y.tolist() == [-1, 1, 1, -1]


def test_positive_class_true_selects_the_text_label_true():
    # positive_class=True matches the label "True" by its text (True == 1 matches no text label)
    ds = olctc.from_arrays(X4, ["True", "False", "False", "True"], positive_class=True)
    assert ds.classes == ("False", "True")
    assert ds.y.tolist() == [1, -1, -1, 1]


def test_dataframe_column_names_become_feature_names():
    # a DataFrame's string column names name the features (not x0, x1)
    ds = olctc.from_arrays(pd.DataFrame(X4, columns=["age", "chol"]), [0, 1, 1, 0])
    assert ds.feature_names == ["age", "chol"]


def test_float64_integral_labels_become_ints():
    # np.float64 0.0 / 1.0 labels become the ints 0 and 1 (as pandas' integer labels), not floats
    ds = olctc.from_arrays(X4, np.array([0.0, 1.0, 1.0, 0.0]))
    assert ds.classes == (0, 1)
    assert [type(c) for c in ds.classes] == [int, int]


def test_text_label_beyond_2_53_stays_a_float():
    # "1e20" reads as the float 1e20: an integral float beyond 2**53 is not made an int (its digits are not
    # known); "2" reads as the int 2
    ds = olctc.from_arrays(X4, np.array(["1e20", "2", "2", "1e20"], dtype=object))
    assert ds.classes == (2, 1e20)
    assert [type(c) for c in ds.classes] == [int, float]
