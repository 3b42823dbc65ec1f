"""The Tree object, third mutation pass over ``olctc/tree.py`` (QA 2026-12-07): behaviour a hand mutant could
change without the targeted tests (test_tree_mutation_gaps, test_tree_mutation_gaps2, test_export_json,
test_export_load_mutation_gaps, test_predict_stream, test_feature_importances, test_properties) noticing. Each
test's comment names the mutant(s) of /tmp/qa183/mut it kills.

The trees are the earlier passes' hand-built ones (a depth-2 tree with a non-identity scaler; identity-scaled
trees) or random weights on heart's features; every expectation is computed here with numpy or written out."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest

from olctc.data import Column, Scaler, Schema
from olctc.errors import OlctcError, UnseenCategoryWarning
from olctc.tree import Tree
from test_tree_mutation_gaps import B2, MEAN, SCALE, W2, X_NEG, X_POS, _heart_tree, _score, _sig, _tree
from test_tree_mutation_gaps2 import _plain


def _route(S: np.ndarray, depth: int) -> np.ndarray:
    """Last-layer node of each row from every node's scores S (n, n_nodes): left iff score <= 0."""
    leaf = np.zeros(S.shape[0], dtype=np.int64)
    for _ in range(depth - 1):
        leaf = 2 * leaf + np.where(S[np.arange(S.shape[0]), leaf] > 0, 2, 1)
    return leaf


# ---------------------------------------------------------------- probabilities and scores

def test_log_probabilities_of_huge_scores_are_finite():
    # m02: log_sigmoid computed as -log1p(exp(-z)): a score of -1000 gave log P(positive) = -inf, not -1000
    tree = _plain(np.zeros((1, 2)), [-1000.0])
    assert tree.predict_log_proba(np.zeros((1, 2))).tolist() == [[0.0, -1000.0]]
    assert tree.log_proba_of([-1000.0, 1000.0]).tolist() == [[0.0, -1000.0], [-1000.0, 0.0]]


def test_scores_of_two_dimensions_are_refused():
    # m03: the 1-D check dropped (a (1, 2) array of scores was labelled as two rows, or made a ragged stack)
    for f in (_tree().labels_of, _tree().proba_of):
        with pytest.raises(OlctcError, match=r"^scores must be 1-D, one decision_function value per row; got shape "
                                             r"\(1, 2\)$"):
            f([[0.5, -0.5]])


# ---------------------------------------------------------------- classes

@pytest.mark.parametrize("classes, message", [
    ((False, True), "the negative class must be an int, float or str; got the bool False"),
    ((0, np.bool_(True)), "the positive class must be an int, float or str; got the bool True"),
    ((None, 1), "the negative class must be an int, float or str; got NoneType None"),
    ((0, [1]), r"the positive class must be an int, float or str; got list \[1\]"),
])
def test_a_class_label_must_be_a_number_or_text(classes, message):
    # m05: a bool label accepted (True == 1: predict gave True where the file says 1); m06: the type check
    # dropped (None or a list became a label, written to the JSON record). Defect (fixed, QA 2026-12-07): numpy's
    # bool was shown in numpy's repr ("got the bool np.True_")
    with pytest.raises(OlctcError, match=f"^{message}$"):
        Tree.from_arrays(W2, B2, classes=classes)


def test_float_labels_are_predicted_as_floats():
    # m07: float labels made an object array (predict's result no number array)
    tree = _tree(classes=(0.5, 1.5))
    got = tree.predict(np.vstack([X_NEG, X_POS]))
    assert got.dtype == np.float64 and got.tolist() == [0.5, 1.5]


# ---------------------------------------------------------------- many rows: the blocks of the row walk and of scores

def test_more_rows_than_a_block_route_and_score_as_by_hand():
    # m08: the root's scores of a deep tree read all rows at once, not a block; m09: every block of a node's rows
    # read the first block's rows; m49: scores() read the first block again for every block. heart's rows
    # repeated past 8192 (the block) through a depth-6 tree (the walk)
    ds, tree = _heart_tree(6, seed=1)  # its root sends 231 of heart's 297 rows right
    X = np.tile(ds.X, (40, 1))
    X = X + np.random.default_rng(0).normal(scale=1e-3, size=X.shape)  # rows differ in every block
    S = ((X - tree.scaler.mean) / tree.scaler.scale) @ tree.W.T + tree.b
    leaf = _route(S, 6)
    z = S[np.arange(len(X)), leaf]
    np.testing.assert_allclose(tree.scores(X), S, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(tree.apply(X), leaf)
    assert np.bincount(_route(S, 3)).max() < 8192 < np.bincount(_route(S, 2)).max()  # node 2 holds > a block
    np.testing.assert_allclose(tree.decision_function(X), z, rtol=1e-9, atol=1e-9)


# ---------------------------------------------------------------- raw cells

def test_explain_takes_a_one_row_frame_of_encoded_features():
    # m10: a DataFrame (2-D) was taken for a labelled row: its column names became the cells, refused as text
    pd = pytest.importorskip("pandas")
    tree = _tree()
    e = tree.explain(pd.DataFrame([X_POS], columns=["a", "b", "c"]))
    assert [s.node for s in e.steps] == [0, 2] and e.label == "yes"
    assert e.steps[-1].score == pytest.approx(_score(X_POS, 2), rel=1e-12)


def test_a_dict_of_series_with_another_index_is_read_by_position():
    # m11: a dict of pandas Series was passed on as is: the unseen category's cell was looked up by its row label
    # (KeyError for row 1 of an index 12, 10, 11)
    pd = pytest.importorskip("pandas")
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b"))))
    tree = Tree(np.array([[1.0, 1.0, -1.0]]), [0.0], Scaler.identity(3), schema, ("n", "y"))
    cells = {"u": pd.Series([3.0, 1.0, 2.0], index=[12, 10, 11]), "c": pd.Series(["b", "zz", "a"], index=[12, 10, 11])}
    with pytest.warns(UnseenCategoryWarning, match=r"\(first 'zz' at row 1\)"):
        assert tree.encode(cells).tolist() == [[3, 0, 1], [1, 0, 0], [2, 1, 0]]


def test_an_unseen_number_category_is_shown_as_written():
    # m12: the unseen cell shown in numpy's repr ("first np.int64(7)")
    schema = Schema((Column("c", "categorical", ("1", "2")),))
    tree = Tree(np.array([[1.0, -1.0]]), [0.0], Scaler.identity(2), schema, ("n", "y"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X = tree.encode({"c": np.array([1, 7, 2])})
    assert X.tolist() == [[1, 0], [0, 0], [0, 1]]
    assert [str(w.message) for w in caught] == [
        "data: column 'c': 1 row(s) hold a category the tree never saw (first 7 at row 1): encoded as none of its "
        "2 categories"]


# ---------------------------------------------------------------- explain's lines

def test_explain_lines_of_a_whole_path_as_written():
    # m14: the classifier line named the negative class; m15: a contribution's line lost the feature's value;
    # m16: the name formatter ignored; m17: the bias line dropped
    tree = _tree()
    x = X_POS
    e = tree.explain(x, top=3)
    z0, z2 = _score(x, 0), _score(x, 2)
    c2 = sorted(((W2[2, j] * (x[j] - MEAN[j]) / SCALE[j], "abc"[j], x[j]) for j in range(3)), key=lambda c: -abs(c[0]))
    assert e.lines(name=str)[4:] == [
        f"node 2 (layer 2): classifier: P('yes') = sigmoid({z2:.6g}) = {_sig(z2):.4f}",
        *(f"    {c:+.4g}  {n} = {v:.6g}" for c, n, v in c2),
        f"    {B2[2]:+.4g}  bias",
        f"prediction: 'yes' with probability {_sig(z2):.4f}"]
    assert e.lines()[0] == f"node 0 (layer 1): score {z0:.6g} -> right (confidence {_sig(z0):.4f})"
    assert e.lines()[1:4] == ["    +6  'a' = 13", "    +4  'b' = -10", f"    {B2[0]:+.4g}  bias"]


def test_no_other_features_line_for_rounding_at_a_score_of_zero():
    # m13: the rounding allowance taken relative to |score| alone: at a score of 0 the rounding of the
    # contributions' sum (-1.4e-17) showed as "the other features", with every feature shown
    tree = Tree.from_arrays([[1.0]], [0.1], scaler=Scaler(np.array([0.2]), np.array([7.0])))
    e = tree.explain(np.array([-0.5]))  # (-0.5 - 0.2) / 7 + 0.1: 0 in raw space, -0.09999999999999999 + 0.1 not
    s = e.steps[0]
    assert s.score == 0.0 and s.score - s.bias - math.fsum(c for _, _, c in s.contributions) != 0.0
    assert e.lines() == ["node 0 (layer 1): classifier: P(1) = sigmoid(0) = 0.5000", "    -0.1  'x0' = -0.5",
                         "    +0.1  bias", "prediction: -1 with probability 0.5000"]


# ---------------------------------------------------------------- construction: the types of the parts

@pytest.mark.parametrize("kw, message", [
    ({"meta": None}, r"The 'meta' parameter must be a dict\. Got None instead\."),
    ({"scaler": (MEAN, SCALE)}, r"The 'scaler' parameter must be an olctc\.data\.Scaler\. Got "),
    ({"schema": ["a", "b", "c"]}, r"The 'schema' parameter must be an olctc\.data\.Schema\. Got "),
    ({"classes": "ny"}, r"The 'classes' parameter must be two labels \(negative, positive\)\. Got 'ny' instead\."),
])
def test_the_parts_of_a_tree_must_be_of_their_types(kw, message):
    # m18: meta=None accepted (probability_note then raised AttributeError); m19, m20: a tuple for the scaler or a
    # list for the schema reached an attribute (AttributeError); m21: the classes "ny" taken as 'n' and 'y'
    parts = {"scaler": Scaler(MEAN.copy(), SCALE.copy()), "schema": _tree().schema, "classes": ("no", "yes")} | kw
    with pytest.raises(OlctcError, match=f"^{message}"):
        Tree(W2, B2, **parts)


@pytest.mark.parametrize("kw, message", [
    ({"scaler": Scaler(np.zeros(3), np.array([1.0, 0.0, 1.0]))},
     r"the scaler's means must be finite and its scales finite and positive$"),
    ({"scaler": Scaler(np.zeros(3), np.array([1.0, 1e-310, 1.0]))},
     r"the weights on the raw features \(W / scale, b - W mean / scale\) overflow: the scaler's scales are too small"),
    ({"classes": (1, 1)}, r"the two classes must differ; got 1 twice$"),
    ({"classes": (1, "1")}, r"the two classes must differ as text; got 1 and '1'$"),
    ({"W": np.where(W2 == 0, np.nan, W2)}, r"W and b must be finite$"),
    ({"schema": Schema((Column("a", "numeric"), Column("b", "numeric")))},
     r"the schema encodes 2 features; W has 3 columns$"),
])
def test_a_tree_of_inconsistent_parts_is_refused_by_name(kw, message):
    # m22: a scale of 0 named as overflowing raw weights, not as a scale; m23: the raw weights' overflow check
    # dropped (W / 1e-310 = inf predicted NaN); m24, m25: equal classes (also as text) accepted; m27: a NaN weight
    # accepted; m26: a schema of another width accepted
    parts = {"W": W2, "b": B2, "scaler": Scaler(MEAN.copy(), SCALE.copy()), "schema": _tree().schema,
             "classes": ("no", "yes")} | kw
    with pytest.raises(OlctcError, match=f"^{message}"):
        Tree(**parts)


def test_a_one_node_tree_takes_a_scalar_intercept():
    # m28: b was not flattened: a scalar intercept (shape ()) of a one-node tree was refused
    tree = Tree.from_arrays([[1.0, 2.0]], 0.5)
    assert tree.b.tolist() == [0.5] and tree.decision_function(np.array([[1.0, 1.0]])).tolist() == [3.5]


# ---------------------------------------------------------------- training statistics as given

def test_spreads_need_not_be_whole_numbers_but_counts_must():
    # m29: node_std held to whole numbers (every fitted tree's spreads refused); m31: the counts' message said
    # "finite values" where fractions are the fault
    tree = _plain(np.ones((3, 2)), np.zeros(3), node_std=np.full((3, 2), 0.5))
    assert tree.node_std.tolist() == [[0.5, 0.5]] * 3
    with pytest.raises(OlctcError, match=r"^node_n must hold finite whole numbers >= 0$"):
        _plain(np.ones((3, 2)), np.zeros(3), node_n=[3, 1.5, 1.5])


def test_unsigned_counts_beyond_int64_are_refused_not_wrapped():
    # m30: uint64 counts were cast to int64 as given: 2**63 wrapped to -2**63
    with pytest.raises(OlctcError, match=r"^node_n must hold whole numbers below 2\*\*63"):
        _plain(np.zeros((3, 2)), np.zeros(3), node_n=np.array([2 ** 63, 2 ** 62, 2 ** 62], dtype=np.uint64))
    kept = _plain(np.zeros((3, 2)), np.zeros(3), node_n=np.array([2 ** 63 - 1, 2 ** 62, 5], dtype=np.uint64))
    assert kept.node_n.dtype == np.int64 and kept.node_n.tolist() == [2 ** 63 - 1, 2 ** 62, 5]


def test_positive_counts_of_children_above_their_parent_are_refused():
    # m32: the children's check applied to node_n only (node_pos 2 + 2 under a parent's 2 accepted)
    with pytest.raises(OlctcError, match=r"^node_pos: nodes 1 and 2 count 2 \+ 2 points, more than their parent "
                                         r"node 0's 2$"):
        _plain(np.zeros((3, 2)), np.zeros(3), node_n=[10, 5, 5], node_pos=[2, 2, 2])


def test_non_numbers_as_counts_and_weights_are_named():
    # m78: node_n of text raised numpy's ValueError; m77: an int beyond float64 in W raised OverflowError
    with pytest.raises(OlctcError, match=r"^node_n must be an array of numbers; got \['a', 'b', 'c'\]$"):
        _plain(np.zeros((3, 2)), np.zeros(3), node_n=["a", "b", "c"])
    with pytest.raises(OlctcError, match=r"^W must be an array of numbers; got \[\[1"):
        Tree.from_arrays([[10 ** 400, 0.0]], [0.0])


# ---------------------------------------------------------------- rows: shapes, names, integers

def test_rows_of_another_width_and_a_huge_integer_are_named():
    # m36: the shape message showed the 1-D row as made 2-D ((1, 2), not what was given); m34: a Python int
    # beyond float64 raised OverflowError
    tree = _tree()
    with pytest.raises(OlctcError, match=r"^X must have shape \(n, 3\); got \(2,\)$"):
        tree.predict(np.zeros(2))
    with pytest.raises(OlctcError, match=r"^X holds an integer too large for a float64 \(above 1\.8e308\)$"):
        tree.predict([[10 ** 400, 0, 0]])


def test_a_missing_cell_beside_a_huge_integer_names_the_integer():
    # defect (fixed, QA 2026-12-07; found by m76): a frame of a nullable column holding pandas' NA and a column
    # holding an int beyond float64 was told "X must be the numeric encoded feature matrix; use Tree.encode for
    # raw cells", which it is: _missing_as_nan's conversion overflowed, and that was taken for text
    pd = pytest.importorskip("pandas")
    tree = Tree.from_arrays([[1.0, 0.0]], [0.0])
    with pytest.raises(OlctcError, match=r"^X holds an integer too large for a float64 \(above 1\.8e308\)$"):
        tree.predict(pd.DataFrame({"x0": pd.array([1, None], dtype="Int64"), "x1": [10 ** 400, 1]}))


def test_frames_whose_names_are_not_all_text_go_by_position_and_other_names_are_named():
    # m37: columns of mixed names (a DataFrame with one column renamed) were checked; m40: the fixes of the two
    # faults swapped (a wrong name was told to reorder)
    pd = pytest.importorskip("pandas")
    tree = _tree()
    X = np.vstack([X_NEG, X_POS])
    assert tree.predict(pd.DataFrame(X, columns=["a", 1, "c"])).tolist() == ["no", "yes"]
    with pytest.raises(OlctcError, match=r"^X does not name the tree's features: its column 2 is 'z', the tree's "
                                         r"feature 2 is 'c'; its columns must be tree.feature_names, in order$"):
        tree.predict(pd.DataFrame(X, columns=["a", "b", "z"]))
    with pytest.raises(OlctcError, match=r"; pass X\[tree.feature_names\]$"):
        tree.predict(pd.DataFrame(X[:, [0, 2, 1]], columns=["a", "c", "b"]))


def test_decision_path_is_an_int8_indicator_of_the_hand_path():
    # m50: the indicator came as booleans (scikit-learn's decision_path holds integers)
    tree = _tree()
    X = np.vstack([X_NEG, X_POS])
    got = tree.decision_path(X)
    assert got.dtype == np.int8
    assert got.toarray().tolist() == [[1, 1, 0], [1, 0, 1]]


# ---------------------------------------------------------------- raw cells: the source and the row count

def _cat_tree() -> Tree:
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b"))))
    return Tree(np.array([[1.0, 1.0, -1.0]]), [0.0], Scaler.identity(3), schema, ("n", "y"))


def test_unseen_categories_are_warned_under_the_caller_s_source():
    # m52: Tree.encode's warning always said "data"; m66: explain's dict of cells warned as "data", not "x_row"
    tree = _cat_tree()
    with pytest.warns(UnseenCategoryWarning, match=r"^new\.csv: column 'c': 1 row\(s\)"):
        tree.encode({"u": [1.0], "c": ["q"]}, source="new.csv")
    with pytest.warns(UnseenCategoryWarning, match=r"^x_row: column 'c': 1 row\(s\)"):
        assert tree.explain({"u": 2.0, "c": "q"}).label == "y"


def test_a_given_row_count_is_kept_for_a_table():
    # m51: a DataFrame's own row count replaced the n_rows given
    pd = pytest.importorskip("pandas")
    tree = Tree(np.zeros((1, 0)), [0.5], Scaler.identity(0), Schema(()), ("n", "y"))
    assert tree.encode(pd.DataFrame({"other": [1, 2, 3]}), n_rows=2).shape == (2, 0)


# ---------------------------------------------------------------- fit_stats and ranked_features

def test_fit_stats_takes_a_column_of_labels_and_names_a_bool_one():
    # m53: y of shape (n, 1) was not flattened (the positives counted over every pair of rows); m54: booleans
    # read as numbers (True taken for +1, and False named as the bad label)
    tree = _tree()
    X = np.vstack([X_NEG, X_POS, X_POS])
    tree.fit_stats(X, np.array([[-1], [1], [-1]]))
    assert tree.node_n.tolist() == [3, 1, 2] and tree.node_pos.tolist() == [1, 0, 1]
    with pytest.raises(OlctcError, match=r"got True at row 0$"):
        tree.fit_stats(X, np.array([True, False, True]))


@pytest.mark.parametrize("kw, name", [({"t": 1.0}, "t"), ({"t": 0, "k": 1.5}, "k")])
def test_ranked_features_refuses_fractional_arguments(kw, name):
    # m57: t=1.0 reached numpy's indexing (IndexError); m58: k=1.5 reached the slice (TypeError)
    with pytest.raises(OlctcError, match=f"^The '{name}' parameter must be "):
        _tree().ranked_features(**kw)


# ---------------------------------------------------------------- explain: contributions at the edge of float64

def test_explain_keeps_a_contribution_whose_standardised_value_overflows():
    # m61: the fallback to w / scale * (x - mean) dropped: x / 0.5 = inf, a finite contribution, was refused
    tree = Tree.from_arrays([[0.25]], [0.0], scaler=Scaler(np.zeros(1), np.array([0.5])))
    e = tree.explain(np.array([1e308]))
    assert e.steps[0].contributions == [("x0", 1e308, 0.5e308)] and e.steps[0].score == 0.5e308


def test_explain_refuses_a_contribution_that_overflows_where_the_score_does_not():
    # m62: the check dropped: x - mean = 2e308 made the contribution inf (explain --json wrote Infinity)
    tree = Tree.from_arrays([[0.25]], [0.0], scaler=Scaler(np.array([-1e308]), np.ones(1)))
    x = np.array([1e308])
    assert tree.decision_function(x).tolist() == [0.5e308]
    with pytest.raises(OlctcError, match=r"^row 0: the score of node 0 overflows"):
        tree.explain(x)


def test_explain_lists_only_the_features_a_node_weighs():
    # m63: every feature listed, a zero weight's 0 contribution too
    e = _tree().explain(X_POS, top=3)
    assert [f for f, _, _ in e.steps[0].contributions] == ["a", "b"]  # W2[0] = (1, -2, 0): 'c' not weighed


# ---------------------------------------------------------------- from_arrays, from_dict, probability_note, records

def test_from_arrays_names_features_as_text():
    # m67: feature names given as numbers were kept as numbers (the JSON record's names no text)
    tree = Tree.from_arrays([[1.0, 2.0]], [0.0], feature_names=[1, 2])
    assert tree.feature_names == ["1", "2"] and tree.to_dict()["columns"][0]["name"] == "1"


def test_a_preset_that_is_no_name_gives_no_probability_note():
    # m73: a preset that is a list was looked up in the presets (TypeError: unhashable)
    tree = Tree.from_arrays(W2, B2, meta={"spec": {"preset": ["oct-h"]}})
    assert tree.probability_note is None


def test_explanation_record_lists_the_classes():
    # m74: the record's classes a tuple (json writes a list: a record read back compared unequal)
    assert _tree().explain(X_POS).to_dict()["classes"] == ["no", "yes"]


def test_from_dict_names_the_source_it_is_given():
    # m71: the source given was dropped: every error of a record read from a file said "tree"
    d = _tree().to_dict()
    d["version"] = None
    with pytest.raises(OlctcError, match=r"^my\.json: version: expected an integer, got null"):
        Tree.from_dict(d, "my.json")


def test_a_frame_naming_a_feature_twice_is_refused_by_name():
    """m81's neighbourhood: a DataFrame with the column 'u' twice gave encode a frame for 'u', read as
    "column 'u' row 0: expected a number, got 'u'" (the column's name shown as the bad cell)."""
    pd = pytest.importorskip("pandas")
    tree = _tree()
    names = list(tree.schema.feature_names)
    frame = pd.DataFrame([[0.5] * (len(names) + 1)], columns=names + names[:1])
    with pytest.raises(OlctcError, match="^" + re.escape(f"rows.csv: column {names[0]!r} appears 2 times; "
                                                         "give each column once") + "$"):
        tree.encode(frame, source="rows.csv")
    assert tree.encode(frame.iloc[:, :len(names)], source="rows.csv").shape == (1, len(names))
