"""The Tree object, second mutation pass over ``olctc/tree.py`` (QA 2026-12-07): behaviour a hand mutant could
change without the tree's tests (test_tree, test_tree_mutation_gaps, test_qa_tree_use, test_qa_hostile_trees,
test_export_json) noticing. Each test's comment names the mutant(s) it kills.

The trees are built by hand (the first pass's ``_tree``: a depth-2 tree with a non-identity scaler) and every
expectation is computed here with numpy or written out, not taken from the code under test."""
from __future__ import annotations

import json
import math
import pickle
import warnings

import numpy as np
import pytest

from olctc.data import Column, Scaler, Schema
from olctc.errors import OlctcError, UnseenCategoryWarning
from olctc.tree import ScoreOverflow, Tree, class_array, weights_used
from test_tree_mutation_gaps import B2, MEAN, SCALE, W2, X_NEG, X_POS, _leaf, _score, _sig, _tree


def _plain(W, b, names=None, classes=(0, 1), **stats) -> Tree:
    """A tree on numeric features x0, x1, ... (or ``names``) with the identity scaler: raw = standardised."""
    W = np.asarray(W, dtype=np.float64)
    names = names or [f"x{j}" for j in range(W.shape[1])]
    return Tree(W, np.asarray(b, dtype=np.float64), Scaler.identity(W.shape[1]),
                Schema(tuple(Column(n, "numeric") for n in names)), classes, **stats)


# ---------------------------------------------------------------- construction: validation and conversion

@pytest.mark.parametrize("W, b, message", [
    (np.zeros((0, 2)), [], r"W must have 2\^depth - 1 rows \(1, 3, 7, \.\.\.\); got 0"),  # log2(1) = 0 = 2**0 - 1
    (np.zeros((1, 2)), [np.nan], "W and b must be finite"),
    (np.zeros((1, 2)), [np.inf], "W and b must be finite"),
])
def test_an_empty_or_non_finite_tree_is_refused(W, b, message):
    # mutants: the n_nodes >= 1 check dropped (a tree of no node was built); b's finite check dropped (a NaN
    # intercept predicted the negative class for every row)
    with pytest.raises(OlctcError, match=message):
        Tree.from_arrays(W, b)


@pytest.mark.parametrize("scaler, message", [
    (Scaler(np.zeros(2), np.ones(3)), r"the scaler must have 2 means and scales; got 2 and 3"),
    (Scaler(np.zeros(3), np.ones(2)), r"the scaler must have 2 means and scales; got 3 and 2"),
    (Scaler(np.array([np.inf, 0.0]), np.ones(2)), r"the scaler's means must be finite"),
])
def test_a_scaler_of_another_size_or_an_infinite_mean_is_refused(scaler, message):
    # mutants: the scaler's shape check needed both sizes wrong; the means' finite check dropped (an infinite
    # mean was then refused as overflowing raw weights, which names no mean)
    with pytest.raises(OlctcError, match=message):
        Tree.from_arrays(np.ones((1, 2)), [0.0], scaler=scaler)


@pytest.mark.parametrize("classes", [(1,), (1, 2, 3)])
def test_classes_must_be_exactly_two(classes):
    # mutants: one label accepted (IndexError on the second), three accepted (the third dropped silently)
    with pytest.raises(OlctcError, match=rf"^classes must be two labels \(negative, positive\); got {len(classes)}$"):
        Tree.from_arrays(np.ones((1, 2)), [0.0], classes=classes)


def test_from_arrays_refuses_a_string_of_two_characters_as_classes():
    # mutant: from_arrays's own check dropped: tuple("ab") made the classes 'a' and 'b' silently
    with pytest.raises(OlctcError, match=r"The 'classes' parameter must be two labels \(negative, positive\)"):
        Tree.from_arrays(np.ones((1, 2)), [0.0], classes="ab")


def test_numpy_scalar_classes_become_python_labels():
    # mutants: np.float64 and np.str_ labels were kept (subclasses of float and str): explain's line and the
    # JSON record then showed np.float64(1.5) and np.str_('yes'); np.int64 labels were refused
    X = np.array([[1.0, 1.0]])
    for classes, shown in (((np.str_("no"), np.str_("yes")), "'yes'"), ((np.float64(0.5), np.float64(1.5)), "1.5"),
                           ((np.int64(0), np.int64(7)), "7")):
        tree = Tree.from_arrays(np.ones((3, 2)), [0.0, 0.0, 0.0], classes=classes)
        assert [type(c) for c in tree.classes] == [type(c.item()) for c in classes]
        assert tree.explain(X[0]).lines()[-1] == f"prediction: {shown} with probability {_sig(2.0):.4f}"
        assert json.loads(json.dumps(tree.to_dict()))["classes"] == [c.item() for c in classes]


def test_the_first_parent_with_too_many_points_is_named():
    # mutant: children_over returned the last such node (node 1 here), not the first (the root)
    with pytest.raises(OlctcError, match=r"^node_n: nodes 1 and 2 count 3 \+ 3 points, more than their parent "
                                         r"node 0's 2$"):
        _plain(np.zeros((7, 2)), np.zeros(7), node_n=[2, 3, 3, 3, 3, 1, 1])


def test_counts_are_kept_exactly_and_floats_beyond_int64_refused():
    # mutants: int64 counts went through float64 (2**53 + 1 became 2**53); a float count of 1e19 was cast to
    # int64 (wrapping to a negative count) instead of refused
    big = 2 ** 53 + 1
    tree = _plain(np.zeros((3, 2)), np.zeros(3), node_n=np.array([big, big - 1, 1], dtype=np.int64))
    assert tree.node_n.dtype == np.int64 and tree.node_n.tolist() == [big, big - 1, 1]
    with pytest.raises(OlctcError, match=r"^node_n must hold whole numbers below 2\*\*63"):
        _plain(np.zeros((3, 2)), np.zeros(3), node_n=[1e19, 0.0, 0.0])


def test_b_raw_of_a_negative_zero_intercept_is_plus_zero():
    # mutant: b_raw's + 0.0 dropped (an intercept of -0.0 was exported as "b=-0" and "score = -0")
    tree = _plain(np.zeros((1, 2)), [-0.0])
    assert not np.signbit(tree.b_raw).any()


def test_from_arrays_copies_the_meta():
    # mutant: the caller's dict was kept as the tree's meta (a later change to one changed the other)
    meta = {"spec": {"preset": "olct"}}
    tree = Tree.from_arrays(np.ones((1, 2)), [0.0], meta=meta)
    tree.meta["note"] = "changed"
    assert meta == {"spec": {"preset": "olct"}}


# ---------------------------------------------------------------- small public helpers

def test_weights_used_counts_only_weights_above_the_noise_level():
    # mutants: NEGLIGIBLE_WEIGHT raised (a weight of 2e-6 was not counted); every weight counted, 0 too
    W = np.array([[0.0, 3e-9, -1e-6, 2e-6, -5e-5, 1.0]])
    assert weights_used(W).tolist() == [[False, False, False, True, True, True]]


def test_class_array_keeps_int64_labels_to_the_bounds():
    # mutant: the int64 range's upper bound excluded (2**63 - 1 became a Python object)
    assert class_array((0, 2 ** 63 - 1)).dtype == np.int64
    assert class_array((-2 ** 63, 0)).dtype == np.int64
    assert class_array((0, 2 ** 63)).dtype == object


def test_score_overflow_pickles_with_its_row_node_and_where():
    # mutant: __reduce__ dropped: a joblib worker's error came back as ScoreOverflow(message) (row = the
    # message, and unpickling failed on the missing node)
    exc = pickle.loads(pickle.dumps(ScoreOverflow(3, 2, "f.csv: row 3 (line 5)")))
    assert isinstance(exc, ScoreOverflow) and (exc.row, exc.node, exc.where) == (3, 2, "f.csv: row 3 (line 5)")
    assert str(exc) == ("f.csv: row 3 (line 5): the score of node 2 overflows (values too large for this tree's "
                        "weights); rescale the input")
    assert str(ScoreOverflow(4, 0)).startswith("row 4: the score of node 0 overflows")


@pytest.mark.parametrize("scores", [["a", "b"], "abc", {"a": 1}])
def test_scores_that_are_no_numbers_are_named(scores):
    # mutant: the message's wording changed ("scores must be numbers" is what a caller reads)
    with pytest.raises(OlctcError, match=r"^scores must be numbers, one decision_function value per row; got "):
        _tree().labels_of(scores)


def test_nan_scores_are_refused_not_labelled_negative():
    # defect (QA 2026-12-07): a NaN score (None in a list of scores) was labelled the negative class, with
    # probabilities NaN: scores are decision_function values, never NaN
    tree = _tree()
    for f in (tree.labels_of, tree.proba_of, tree.log_proba_of):
        with pytest.raises(OlctcError, match=r"^scores must not be NaN \(decision_function values\); got NaN "
                                             r"at row 1$"):
            f([0.5, None, 1.0])
    assert tree.labels_of([-np.inf, np.inf]).tolist() == ["no", "yes"]


# ---------------------------------------------------------------- inputs: tables, rows and the first bad cell

def test_sparse_rows_are_predicted_as_the_dense_ones():
    # mutant: a scipy.sparse matrix was not made dense (numpy made it a 0-d object array: refused)
    sp = pytest.importorskip("scipy.sparse")
    tree = _tree()
    X = np.vstack([X_NEG, X_POS, [0.0, 0.0, 0.0]])
    want = ["yes" if _score(x, _leaf(x)) > 0 else "no" for x in X]
    assert want == ["no", "yes", "no"]
    assert tree.predict(sp.csr_matrix(X)).tolist() == want


def test_a_series_in_another_order_is_refused():
    # mutant: a pandas Series (df.iloc[i]) was read by position, its index unchecked
    pd = pytest.importorskip("pandas")
    tree = _tree()
    assert tree.predict(pd.Series(X_POS, index=["a", "b", "c"])).tolist() == ["yes"]
    with pytest.raises(OlctcError, match=r"^X holds the tree's features in another order: its column 0 is 'b'"):
        tree.predict(pd.Series(X_POS[[1, 0, 2]], index=["b", "a", "c"]))


def test_the_first_non_finite_cell_is_named():
    # mutant: the last non-finite cell was named
    X = np.vstack([X_NEG, X_POS, X_POS])
    X[1, 2], X[2, 0] = np.nan, np.inf
    with pytest.raises(OlctcError, match=r"missing value \(NaN\) at row 1, feature 'c'"):
        _tree().predict(X)


def test_the_first_overflowing_row_is_named():
    # mutants: scores() and the path's check named the last overflowing row, not the first
    tree = Tree.from_arrays([[1e300, 0.0], [0.0, 1.0], [0.0, -1.0]], [0.0, 0.0, 0.0])
    X = np.array([[1.0, 0.0], [1e10, 0.0], [2e10, 0.0]])
    for f in (tree.scores, tree.predict):
        with pytest.raises(ScoreOverflow, match="^row 1: the score of node 0 overflows") as exc:
            f(X)
        assert (exc.value.row, exc.value.node) == (1, 0)


def test_unseen_categories_warn_with_the_first_row_the_count_and_the_caller():
    # mutants: the last unseen row named as the first; the count off by one; the warning attributed to tree.py
    # (stacklevel 2) instead of the line that called encode
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b"))))
    tree = Tree(np.array([[1.0, 1.0, -1.0]]), [0.0], Scaler.identity(3), schema, ("n", "y"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        X = tree.encode({"u": [1, 2, 3, 4], "c": ["a", "z", "b", "q"]})
    assert X.tolist() == [[1, 1, 0], [2, 0, 0], [3, 0, 1], [4, 0, 0]]
    assert len(caught) == 1 and caught[0].category is UnseenCategoryWarning
    assert str(caught[0].message) == ("data: column 'c': 2 row(s) hold a category the tree never saw (first 'z' at "
                                      "row 1): encoded as none of its 2 categories")
    assert caught[0].filename == __file__


def test_a_tree_of_no_feature_encodes_as_many_rows_as_the_table_has():
    # mutant: a DataFrame's own row count not taken (a tree of no feature encoded 0 rows, or refused the table)
    pd = pytest.importorskip("pandas")
    tree = Tree(np.zeros((1, 0)), [0.5], Scaler.identity(0), Schema(()), ("n", "y"))
    X = tree.encode(pd.DataFrame({"other": [1, 2, 3]}))
    assert X.shape == (3, 0)
    assert tree.predict(X).tolist() == ["y", "y", "y"]


# ---------------------------------------------------------------- fit_stats and importances

def test_fit_stats_takes_float_labels_and_names_the_first_bad_one_and_the_length():
    # mutants: float labels -1.0/+1.0 refused; the last bad label named; a short y accepted until numpy failed
    tree = _tree()
    X = np.vstack([X_NEG, X_POS, X_POS])
    tree.fit_stats(X, np.array([-1.0, 1.0, 1.0]))
    assert tree.node_n.tolist() == [3, 1, 2] and tree.node_pos.tolist() == [2, 0, 2]
    with pytest.raises(OlctcError, match=r"got 5 at row 1$"):
        tree.fit_stats(X, np.array([1, 5, 7]))
    for y in (np.array([1, -1]), np.array([1, -1, 1, 1])):
        with pytest.raises(OlctcError, match=rf"^y must have one label per row of X \(3\); got {len(y)}$"):
            tree.fit_stats(X, y)


def test_importances_of_a_tree_with_spreads_but_no_counts_are_refused():
    # mutants: node_n None not checked (TypeError); node_n[0] == 0 not checked (0/0: NaN importances)
    for node_n in (None, [0]):
        tree = _plain(np.ones((1, 2)), [0.0], node_std=np.ones((1, 2)), node_n=node_n)
        with pytest.raises(OlctcError, match=r"^this tree has no training statistics \(node_n\)"):
            tree.feature_importances()


def test_importances_of_zero_weights_are_zeros_and_an_overflow_is_an_error():
    # mutants: a total of 0 divided by (NaN importances); the overflow check dropped (inf / inf: NaN)
    zero = _plain(np.zeros((1, 2)), [0.0])
    zero.fit_stats(np.array([[1.0, 2.0], [3.0, 5.0]]), np.array([1, -1]))
    assert zero.feature_importances().tolist() == [0.0, 0.0] and zero.ranked_importances() == []
    huge = _plain([[1e300, 1e300]], [0.0], node_std=np.full((1, 2), 1e10), node_n=[5])
    with pytest.raises(OlctcError, match=r"^feature importances overflow"):
        huge.feature_importances()


def test_ranked_features_lists_a_weighted_feature_of_no_spread_as_plus_zero():
    # mutants: features chosen by influence != 0 (a weighted feature constant at the node was left out); the
    # + 0.0 dropped (a negative weight's influence -0.0, shown "influence=-0")
    tree = _plain([[1.0, -2.0]], [0.0])
    tree.fit_stats(np.array([[1.0, 3.0], [2.0, 3.0]]), np.array([1, -1]))
    got = tree.ranked_features(0)
    assert got == [(0, 0.5), (1, 0.0)] and not math.copysign(1.0, got[1][1]) < 0


# ---------------------------------------------------------------- explain

def test_explain_refuses_two_rows_and_a_fractional_top():
    # mutants: a second row explained silently (the first only); top=1.5 reached the slice (TypeError)
    tree = _tree()
    with pytest.raises(OlctcError, match=r"^explain takes one row; got 2$"):
        tree.explain(np.vstack([X_NEG, X_POS]))
    with pytest.raises(OlctcError, match=r"^The 'top' parameter must be an integer >= 1"):
        tree.explain(X_POS, top=1.5)


def test_explain_labels_a_tie_at_the_classifier_as_predict_does():
    # mutant: explain gave the positive label at a last-layer score of exactly 0 (predict gives the negative)
    tree = _plain(np.zeros((3, 2)), [1.0, 0.0, 0.0], classes=("no", "yes"))
    x = np.zeros((1, 2))
    e = tree.explain(x)
    assert [s.node for s in e.steps] == [0, 2] and e.steps[-1].score == 0.0
    assert e.label == tree.predict(x)[0] == "no" and e.label_probability == 0.5
    assert e.lines()[-1] == "prediction: 'no' with probability 0.5000"


def test_explain_lines_of_a_left_turn_and_a_whole_path():
    # mutants: a left turn's line and JSON showed sigmoid(score) as its confidence; the "the other features"
    # line written when every contribution was shown (a rest of 0) or only when a large one was left out; str()
    # joined the lines with spaces
    tree = _tree()
    e = tree.explain(X_NEG, top=3)
    s0 = _score(X_NEG, 0)
    conf = 1.0 - _sig(s0)
    assert e.lines()[0] == f"node 0 (layer 1): score {s0:.6g} -> left (confidence {conf:.4f})"
    assert e.to_dict()["path"][0]["confidence"] == pytest.approx(conf, rel=1e-12)
    assert not any(ln.endswith("the other features") for ln in e.lines())
    assert str(e) == "\n".join(e.lines()) and str(e).count("\n") == len(e.lines()) - 1
    # a left-out contribution of 1% of the score is still its own line
    small = _plain([[1.0, 0.01]], [0.0], classes=("no", "yes"))
    lines = small.explain(np.array([1.0, 1.0]), top=1).lines()
    assert "    +0.01  the other features" in lines


def test_explain_without_statistics_says_nothing_of_training_points():
    # mutant: the "no training point reached this node" note written when the tree has no statistics at all
    e = _tree().explain(X_POS)
    assert [s.training_points for s in e.steps] == [None, None]
    assert not any("training point" in ln for ln in e.lines())


@pytest.mark.parametrize("preset, noted", [("oct-h", True), ("olct", False)])
def test_explain_carries_the_probability_note_of_a_non_logistic_preset(preset, noted):
    # mutants: probability_note's smooth test inverted; explain dropped the note; lines() did not print it
    tree = Tree.from_arrays(W2, B2, feature_names=["a", "b", "c"], scaler=Scaler(MEAN.copy(), SCALE.copy()),
                            meta={"spec": {"preset": preset}})
    e = tree.explain(X_POS)
    if noted:
        assert tree.probability_note.startswith("preset oct-h fitted the misclassification loss, not the logistic")
        assert e.note == tree.probability_note and e.lines()[-1] == f"note: {tree.probability_note}"
    else:
        assert tree.probability_note is None and e.note is None and not e.lines()[-1].startswith("note:")


def test_explain_reads_a_series_of_raw_cells_by_name():
    # mutants: a Series holding the tree's columns (and another) was not read by name: a reordered one was
    # refused, one with an extra entry read by position
    pd = pytest.importorskip("pandas")
    tree = _tree()
    x = pd.Series({"c": X_POS[2], "b": X_POS[1], "a": X_POS[0], "id": 17.0})
    e = tree.explain(x)
    assert [s.node for s in e.steps] == [0, _leaf(X_POS)] and e.label == "yes"
    assert e.steps[-1].score == pytest.approx(_score(X_POS, 2), rel=1e-12)
    assert tree.explain(x[["c", "b", "a"]]).label == "yes"


# ---------------------------------------------------------------- load

def test_load_of_indented_json_text_says_it_takes_a_path(tmp_path, monkeypatch):
    # mutant: the check looked at the text's first character only (indented JSON got "File name too long")
    monkeypatch.chdir(tmp_path)
    text = "\n  " + json.dumps(_tree().to_dict())
    with pytest.raises(OlctcError, match=r"^Tree.load takes a file path, and was given JSON text"):
        Tree.load(text)


# ---------------------------------------------------------------- raw cells and columns

def test_a_bad_cell_of_a_frame_with_another_index_is_named_by_position():
    # mutant: a DataFrame's columns were passed on as Series: the unseen category's cell was looked up by the row's
    # label (KeyError for row 1 of an index 12, 10, 11)
    pd = pytest.importorskip("pandas")
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b"))))
    tree = Tree(np.array([[1.0, 1.0, -1.0]]), [0.0], Scaler.identity(3), schema, ("n", "y"))
    good = pd.DataFrame({"c": ["b", "zz", "a"], "u": [3.0, 1.0, 2.0]}, index=[12, 10, 11])
    with pytest.warns(UnseenCategoryWarning, match=r"1 row\(s\) hold a category the tree never saw \(first 'zz' at "
                                                   r"row 1\)"):
        assert tree.encode(good).tolist() == [[3, 0, 1], [1, 0, 0], [2, 1, 0]]
    bad = pd.DataFrame({"u": [1.0, "x", 3.0], "c": ["a", "b", "a"]}, index=[10, 0, 1])
    with pytest.raises(OlctcError, match=r"^data: column 'u' row 1: expected a number, got 'x'$"):
        tree.encode(bad)


def test_a_column_of_another_kind_is_refused():
    # mutant: the kind check dropped (a Column of kind 'text', which Column itself accepts, made a tree)
    schema = Schema((Column("u", "numeric"), Column("z", "text")))
    with pytest.raises(OlctcError, match=r"^column 'z': kind must be 'numeric' or 'categorical'; got 'text'$"):
        Tree(np.ones((1, schema.n_features)), [0.0], Scaler.identity(schema.n_features), schema, (0, 1))


def test_a_missing_cell_of_a_nullable_column_is_named_not_read_as_zero():
    # mutant: pandas' NA became 0.0 (the row predicted silently as if the feature were 0)
    pd = pytest.importorskip("pandas")
    tree = Tree.from_arrays([[1.0, 0.0]], [0.0])
    X = pd.DataFrame({"x0": pd.array([1, None], dtype="Int64"), "x1": [1.0, 2.0]})
    with pytest.raises(OlctcError, match=r"^X has a missing value \(NaN\) at row 1, feature 'x0'"):
        tree.predict(X)


def test_statistics_of_another_shape_but_the_same_size_are_refused():
    # mutant: only the statistics' sizes were compared (node_n of shape (3, 1) was taken)
    with pytest.raises(OlctcError, match=r"^node_n must have shape \(3,\); got \(3, 1\)$"):
        _plain(np.zeros((3, 2)), np.zeros(3), node_n=[[3], [1], [2]])


def test_the_scaler_is_kept_flat():
    # mutant: the scaler kept as given (means and scales of shape (1, p), written so to the JSON record)
    tree = Tree.from_arrays([[1.0, 0.0]], [0.0], scaler=Scaler(np.zeros((1, 2)), np.ones((1, 2))))
    assert tree.scaler.mean.shape == tree.scaler.scale.shape == (2,)
    assert tree.to_dict()["scaler"] == {"mean": [0.0, 0.0], "scale": [1.0, 1.0]}


def test_a_deep_tree_walks_a_tie_to_the_left():
    # mutant: the layer-by-layer walk (depth > 5) sent a score of exactly 0 right, where Topology.route (and
    # the shallow path, and every exporter) sends it left
    depth = 6
    b = np.zeros(2 ** depth - 1)
    b[2 ** (depth - 1) - 1] = -1.0  # the leftmost last-layer node: score -1
    tree = _plain(np.zeros((2 ** depth - 1, 2)), b, classes=("no", "yes"))
    X = np.array([[1.0, -2.0], [0.0, 0.0]])
    assert tree.apply(X).tolist() == [2 ** (depth - 1) - 1] * 2
    assert tree.decision_function(X).tolist() == [-1.0, -1.0] and tree.predict(X).tolist() == ["no", "no"]
