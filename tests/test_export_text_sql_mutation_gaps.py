"""Text, DOT, picture and SQL exports and the name helpers: behaviour a mutation pass (QA 2026-12-06, second pass over
export/sql.py, text.py, dot.py, plot.py and _names.py) could change without any other test noticing. The trees are
written by hand (a scaler that makes raw and standardised weights differ, training statistics from fit_stats on
seeded rows), so every expected number is computed here; the SQL is run for real in SQLite (and DuckDB), the DOT
and text are parsed, and the picture's matplotlib Figure is read back (its texts and bars)."""
from __future__ import annotations

import re

import numpy as np
import pytest

from olctc.data import Column, Scaler, Schema
from olctc.export.dot import to_dot
from olctc.export.text import to_text
from olctc.tree import Tree

# Depth 2 on six numeric features; node 0 uses five, node 1 none (a constant), node 2 two. The scaler makes the
# raw weights W / scale and intercepts b - W . mean / scale differ from the standardised ones.
W6 = np.array([[1.0, -2.0, 0.5, 0.0, 3.0, 0.25], [0.0] * 6, [2.0, 1.0, 0.0, 0.0, 0.0, 0.0]])
B6 = np.array([0.5, -1.5, 0.25])
MEAN6, SCALE6 = np.array([1.0, 2.0, 0.0, 0.0, -1.0, 4.0]), np.array([2.0, 4.0, 1.0, 1.0, 0.5, 8.0])


def _tree6(stats: bool = False) -> Tree:
    """The depth-2 tree above, classes neg / pos; ``stats``: training statistics from 40 seeded rows."""
    tree = Tree.from_arrays(W6, B6, scaler=Scaler(MEAN6, SCALE6), classes=("neg", "pos"))
    if stats:
        X = np.random.default_rng(0).normal(size=(40, 6)) * SCALE6 + MEAN6
        tree.fit_stats(X, np.where(X[:, 0] > 1.0, 1, -1))
    return tree


def _g(v: float, digits: int = 4) -> str:
    return f"{v:.{digits}g}"


# ---------------------------------------------------------------- text export

def test_text_shows_raw_weights_and_intercepts_to_four_digits():
    # mutants: the standardised W[t, j] or b[t] shown in place of the raw ones (the text says it "scores raw
    # features"), 3 significant digits by default instead of 4
    tree = _tree6()
    lines = to_text(tree).splitlines()
    assert tree.b_raw.tolist() == [6.875, -1.5, -1.25] and tree.W_raw[0, 4] == 6.0 and tree.W_raw[0, 5] == 0.03125
    assert "  score = 6.875 + sum of w * feature over 5 feature(s); top by |std_weight|:" in lines
    assert "    x4: w=6  std_weight=3" in lines and "    x5: w=0.03125  std_weight=0.25" in lines
    assert "|     constant score -1.5" in lines
    assert "|     score = -1.25 + sum of w * feature over 2 feature(s); top by |std_weight|:" in lines
    assert "|       x1: w=0.25  std_weight=1" in lines


def test_text_lists_top_features_and_counts_the_rest():
    # mutants: one feature more than top listed; "... and 0 more" when exactly top are nonzero; the count of
    # all features in place of those left out; top 4 by default instead of 5 (node 0 has exactly five)
    tree = _tree6()
    body = to_text(tree).splitlines()
    node0 = body[body.index("node 0 (split)") + 2:body.index("|--- score <= 0")]
    assert [ln.split(":")[0].strip() for ln in node0] == ["x4", "x1", "x0", "x2", "x5"]
    two = to_text(tree, top=2).splitlines()
    node0 = two[two.index("node 0 (split)") + 2:two.index("|--- score <= 0")]
    assert node0 == ["    x4: w=6  std_weight=3", "    x1: w=-0.5  std_weight=-2", "    ... and 3 more"]
    # node 2 has two features: with top=2 both, and no "... and" line
    k = two.index("|   node 2 (classifier)")
    assert two[k + 2:k + 5] == ["|       x0: w=1  std_weight=2", "|       x1: w=0.25  std_weight=1",
                                "|   |--- score <= 0: class neg"]


def test_text_influence_key_and_feature_importances_are_cut_at_top():
    # mutants: importances listed past top, or their "... and N more" line dropped for the one left out; with
    # training statistics the key is "influence" (without, std_weight: test above)
    tree = _tree6(stats=True)
    ranked = tree.ranked_importances()
    assert len(ranked) == 5
    lines = to_text(tree, top=4).splitlines()
    k = lines.index("feature importances (each feature's share of the tree, summing to 1):")
    names = tree.feature_names
    assert lines[k + 1:] == [f"  {names[j]}: {_g(s)}" for j, s in ranked[:4]] + ["  ... and 1 more"]
    assert "  score = 6.875 + sum of w * feature over 5 feature(s); top by |influence|:" in lines


def test_text_without_any_weight_has_no_importance_header():
    # mutant: the "feature importances" header written with no feature under it (every weight 0: no shares)
    tree = Tree.from_arrays(np.zeros((3, 2)), [0.0, 1.0, -1.0], classes=("neg", "pos"))
    tree.fit_stats(np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 2.0]]), np.array([1, -1, 1]))
    assert tree.ranked_importances() == []
    text = to_text(tree)
    assert "feature importances" not in text
    assert text.rstrip("\n").splitlines()[-1] == "|   |--- every point: class neg (P(pos) = 0.2689)"


def test_text_constant_root_still_shows_both_subtrees():
    # mutant: "every point" written for any node without weights, a split too: the text then stopped at a
    # constant root and hid the last layer (the constant node routes every point, not classifies it)
    tree = Tree.from_arrays([[0.0, 0.0], [1.0, 0.0], [0.0, -1.0]], [2.0, 0.5, 0.0], classes=("neg", "pos"))
    lines = to_text(tree).splitlines()
    assert "|--- every point" not in "\n".join(lines)
    assert lines[2:5] == ["node 0 (split)", "  constant score 2", "|--- score <= 0"]
    assert "|   node 2 (classifier)" in lines and lines[-2:] == ["|   |--- score <= 0: class neg",
                                                                 "|   |--- score > 0: class pos"]


def test_text_constant_node_gives_the_positive_class_probability():
    # mutant: P(negative) printed as P(positive) (b = -1.5: 0.1824, not 0.8176)
    lines = to_text(_tree6()).splitlines()
    p = 1 / (1 + np.exp(1.5))
    assert f"|   |--- every point: class neg (P(pos) = {_g(p)})" in lines and _g(p) == "0.1824"


def test_text_header_counts_encoded_features():
    # mutant: the number of input columns in place of features (a categorical column of 3 categories is 3)
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b", "c"))))
    tree = Tree.from_arrays([[1.0, 0.0, 2.0, 0.0]], [0.0], schema=schema, classes=("neg", "pos"))
    assert to_text(tree).splitlines()[0] == "olctc tree: depth 1, 4 features, classes neg / pos"


# ---------------------------------------------------------------- DOT export

def _dot_labels(text: str) -> dict[str, list[str]]:
    """Node id -> its DOT label's lines, as Graphviz reads them (\\l ends a line, \\\\ and \\" are escapes)."""
    def lines(v: str) -> list[str]:
        return re.sub(r"\\(.)", lambda m: "\n" if m[1] == "l" else m[1], v).split("\n")[:-1]

    return {k: lines(v) for k, v in re.findall(r'^  (\w+) \[label="((?:[^"\\]|\\.)*)"', text, re.M)}


def test_dot_labels_show_raw_weights_top_four_and_the_rest_counted():
    # mutants: standardised W or b in place of the raw ones; top 3 by default instead of 4; one feature more than
    # top; "... 0 more" when exactly top features are nonzero
    tree = _tree6()
    labels = _dot_labels(to_dot(tree))
    assert labels["n0"] == ["node 0 (split)", "w_std=+3 w=6 x4", "w_std=-2 w=-0.5 x1", "w_std=+1 w=0.5 x0",
                            "w_std=+0.5 w=0.5 x2", "... 1 more", "b=6.875"]
    assert labels["n2"] == ["node 2 (classifier)", "w_std=+2 w=1 x0", "w_std=+1 w=0.25 x1", "b=-1.25"]
    assert _dot_labels(to_dot(tree, top=2))["n2"] == labels["n2"]


def test_dot_with_statistics_names_r_and_shares_of_the_root():
    # with training statistics: the share of the root's points and of the positive class, r = w * std as the key
    tree = _tree6(stats=True)
    labels = _dot_labels(to_dot(tree, top=1))
    r = tree.influence()
    assert labels["n1"][1] == "n=22 (55.0%), class pos: 45.5%" and labels["n2"][1] == "n=18 (45.0%), class pos: 55.6%"
    assert labels["n2"][2:] == [f"r={r[2, 0]:+.3g} w=1 x0", "... 1 more", "b=-1.25"]


def test_dot_every_last_layer_node_is_grey_and_every_split_white():
    # mutants: the first last-layer node (2^(d-1) - 1) left white, or named a split; the last split's edges dropped
    tree = Tree.from_arrays(np.ones((7, 2)), np.zeros(7))
    text = to_dot(tree)
    grey = set(re.findall(r'^  (n\d+) \[label=.*fillcolor="#c8c8c8"\];$', text, re.M))
    assert grey == {"n3", "n4", "n5", "n6"}
    labels = _dot_labels(text)
    assert [labels[f"n{t}"][0] for t in range(7)] == [f"node {t} (split)" for t in range(3)] + [
        f"node {t} (classifier)" for t in range(3, 7)]
    edges = re.findall(r'^  (n\d+) -> (n\d+) \[label="([^"]*)"\];$', text, re.M)
    assert edges == [(f"n{t}", f"n{2 * t + k}", lab) for t in range(3) for k, lab in ((1, "<= 0"), (2, "> 0"))]


# ---------------------------------------------------------------- picture (the matplotlib Figure, read back)

def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].texts]


def _bars(fig) -> list:
    from matplotlib.patches import Rectangle

    return [p for p in fig.axes[0].patches if type(p) is Rectangle]


def test_picture_bars_scale_by_influence_and_colour_by_sign():
    # mutants: the bar scale from |W| in place of |influence| (the largest influence no longer a full half-width
    # bar); blue and red swapped (blue pushes right: positive); one bar more than top (4)
    from olctc.export.plot import figure

    tree = _tree6(stats=True)
    r = tree.influence()
    fig = figure(tree)
    bars = _bars(fig)
    assert len(bars) == 4 + 0 + 2  # node 0: top 4 of 5, node 1: none, node 2: both
    half = 0.2 * 0.9
    widths = [b.get_width() for b in bars]
    want = [half * r[t, j] / np.abs(r).max() for t in (0, 2) for j, _ in tree.ranked_features(t, 4)]
    np.testing.assert_allclose(widths, want, rtol=1e-12)
    assert max(abs(w) for w in widths) == pytest.approx(half)
    colours = {("+" if w > 0 else "-"): b.get_facecolor()[:3] for w, b in zip(widths, bars)}
    assert np.allclose(colours["+"], (0x3b / 255, 0x6f / 255, 0xb6 / 255))
    assert np.allclose(colours["-"], (0xc4 / 255, 0x4e / 255, 0x52 / 255))


def test_picture_texts_say_roles_shares_edges_and_classes():
    # mutants: the first last-layer node called a split; "% pos" as the negative share; edge labels swapped;
    # the class labels under a last-layer node swapped; the title naming influence without statistics
    from olctc.export.plot import figure

    texts = _texts(figure(_tree6(stats=True)))
    assert "node 0 · split\nn=40 (100.0%) · 50% pos" in texts
    assert "node 1 · classifier\nn=22 (55.0%) · 45% pos" in texts
    assert "node 2 · classifier\nn=18 (45.0%) · 56% pos" in texts
    assert texts.count("≤ 0: neg") == 2 and texts.count("> 0: pos") == 2
    bare = figure(_tree6())
    assert _texts(bare)[0] == ("olctc tree · depth 2 · bars: top features by standardised weight (blue: towards "
                               "right / positive)")
    edges = [(t.get_position(), t.get_text()) for t in bare.axes[0].texts if t.get_text() in ("≤ 0", "> 0")]
    assert sorted(edges) == [((0.75, 1.0), "≤ 0"), ((1.25, 1.0), "> 0")]


def test_depth_one_picture_is_four_inches_wide_with_a_two_line_title():
    # mutants: the figure of one node 3.2 inches wide (its title ran off it), the title on one line
    from olctc.export.plot import figure

    fig = figure(Tree.from_arrays([[1.0, -1.0]], [0.0]))
    assert fig.get_size_inches().tolist() == [4.0, 3.0]
    assert _texts(fig)[0] == ("olctc tree · depth 1\nbars: top features by standardised weight (blue: towards "
                              "right / positive)")


def test_picture_of_a_tree_whose_influences_are_all_zero():
    # mutant: no fallback scale of 1 when every influence is 0 (every training row alike: std 0, weights not 0):
    # 0 / 0 raised ZeroDivisionError instead of drawing empty bars
    from olctc.export.plot import figure

    tree = Tree.from_arrays([[1.0, -2.0]], [0.5])
    tree.fit_stats(np.array([[1.0, 1.0], [1.0, 1.0]]), np.array([1, -1]))
    assert not tree.influence().any()
    assert [b.get_width() for b in _bars(figure(tree))] == [0.0, 0.0]


# ---------------------------------------------------------------- SQL

def _sql_out(run, tree: Tree, rows: list) -> list[tuple]:
    """(node, score, proba, label) of each row, the query run by ``run`` (run_sqlite, run_duckdb)."""
    from olctc.export.sql import OUTPUTS, to_sql

    return [tuple(r[k] for k in OUTPUTS) for r in run(tree, rows, to_sql(tree))]


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_sql_infinity_in_a_column_off_the_rows_path_gives_null(engine):
    # mutant: the test that every column the tree uses holds a finite number dropped: a row with inf in a column
    # only node 2 reads, routed to node 1, was scored; Tree.predict refuses it, and the query must say NULL
    from olctc.export.sql import OUTPUTS, to_sql
    from test_qa_export_sql import _double_cols, run_typed

    tree = Tree.from_arrays([[1.0, 0.0], [0.0, 0.0], [0.0, 10.0]], [0.0, -1.0, 2.0], classes=("neg", "pos"))
    with pytest.raises(Exception, match="non-finite"):
        tree.predict(np.array([[-1.0, np.inf]]))
    rows = run_typed(engine, None, _double_cols(tree), [[-1.0, 0.5], [-1.0, np.inf], [-1.0, -np.inf]], to_sql(tree))
    got = [tuple(r[k] for k in OUTPUTS) for r in rows]
    assert got[0] == (1, -1.0, pytest.approx(1 / (1 + np.e)), "neg")
    assert got[1:] == [(None,) * 4] * 2


def _helper_tree(n_numeric: int, extra_unused: int = 0) -> Tree:
    """Depth 10 (1023 nodes), node 0 reading ``n_numeric`` numeric columns, ``extra_unused`` more columns unused."""
    p = n_numeric + extra_unused
    W = np.zeros((1023, p))
    W[0, :n_numeric] = 1.0
    return Tree.from_arrays(W, np.zeros(1023))


def test_sql_column_limit_is_1500_columns_exactly():
    # mutants: the limit taken as >= 1500, the four outputs or olctc_ok left out of the count, the limit raised:
    # 236 features used + olctc_ok + 1023 nodes + 4 outputs + 236 input columns = 1500 columns: accepted; one unused
    # input column more: refused, with the count in the message
    from olctc.errors import OlctcError
    from olctc.export.sql import to_sql

    assert "AS olctc_s1022" in to_sql(_helper_tree(236))
    with pytest.raises(OlctcError, match=r"^the SQL query would hold 1264 columns of its own besides the 237 input "
                                         r"columns \(one per node, 1023, and per feature the tree uses\), more than"):
        to_sql(_helper_tree(236, extra_unused=1))


@pytest.mark.parametrize("classes,labels", [
    ((0, 2 ** 63), ["0", "9223372036854775808"]),  # beyond int64: a bare literal would be a REAL (9.2e18)
    ((-2 ** 63, 0), [-2 ** 63, 0]),  # int64's least value is an INTEGER literal: numbers
    ((-(2 ** 53) - 1, 0.5), ["-9007199254740993", "0.5"]),  # beside a float, |c| > 2^53 needs text, either sign
])
def test_sql_labels_at_the_int64_and_double_edges(classes, labels):
    # mutants: 2^63 taken as an int64 (the label came back 9.223372036854776e18), -2^63 taken as beyond it (text),
    # only c > 2^53 (not |c|) sent to text beside a float label (-(2^53 + 1) came back as -2^53)
    from test_export_sql import run_sqlite

    tree = Tree.from_arrays([[1.0]], [0.0], classes=classes)
    got = [r[3] for r in _sql_out(run_sqlite, tree, [[-1.0], [1.0]])]
    assert got == labels and [type(g) for g in got] == [type(v) for v in labels]


# ---------------------------------------------------------------- names cut to length (_names)

def test_text_names_of_40_characters_are_whole_and_longer_ones_cut_to_40():
    # mutants: printable cutting a name of exactly its limit (40), or cutting a longer one to 41 characters
    a, b = "a" * 40, "b" * 41
    tree = Tree.from_arrays([[2.0, 1.0]], [0.0], feature_names=[a, b])
    lines = to_text(tree).splitlines()
    assert f"    {a}: w=2  std_weight=2" in lines and f"    {'b' * 39}…: w=1  std_weight=1" in lines


def test_sql_comments_hold_a_name_of_80_characters_and_cut_longer_ones_to_80():
    # mutants: comment cutting a name whose repr is exactly its limit (80), or cutting a longer one to 81
    from olctc.export.sql import to_sql

    a, b = "a" * 78, "b" * 79  # repr: 80 and 81 characters
    tree = Tree.from_arrays([[2.0, 1.0]], [0.0], feature_names=[a, b])
    lines = to_sql(tree).splitlines()
    assert f"--   '{a}' (number)" in lines and f"    -- '{a}'" in lines
    cut = "'" + "b" * 75 + "...'"
    assert len(cut) == 80 and f"--   {cut} (number)" in lines and f"    -- {cut}" in lines


@pytest.mark.parametrize("engine", ["sqlite", "duckdb"])
def test_sql_sums_up_to_500_terms_in_one_run_as_python_does(engine):
    # mutant: runs of fewer terms (CHUNK 50): a node of 300 weights was then summed in another order than the
    # generated Python's s += w * x, and its score differed in the last bits; up to CHUNK terms it is the same sum
    from olctc.export.sql import to_sql
    from test_qa_export_sql import _double_cols, run_typed

    rng = np.random.default_rng(7)
    w, b = rng.normal(size=300) * 10.0 ** rng.integers(-3, 4, size=300), 0.3
    tree = Tree.from_arrays(w[None, :], [b])
    X = rng.normal(size=(8, 300)) * 10.0 ** rng.integers(-3, 4, size=(8, 300))
    want = []
    for x in X:
        s = 0.0
        for wj, xj in zip(w.tolist(), x.tolist()):
            s += wj * xj
        want.append(s + b)
    got = [r["olctc_score"] for r in run_typed(engine, None, _double_cols(tree), X.tolist(), to_sql(tree))]
    assert got == want


@pytest.mark.parametrize("first,p", [(Column("c", "numeric"), 3), (Column("c", "categorical", ("y",)), 3)])
def test_sql_refuses_one_name_for_a_numeric_and_a_categorical_column(first, p):
    # mutant: two columns of one name let through whatever their kinds (only two numeric ones are one input, read
    # twice); the message said they "differ only in case" when they do not differ at all (fixed, QA 2026-12-06)
    from olctc.errors import OlctcError
    from olctc.export.sql import to_sql

    schema = Schema((first, Column("c", "categorical", ("a", "b"))))
    tree = Tree(np.ones((1, p)), np.zeros(1), Scaler.identity(p), schema, ("n", "p"))
    kinds = r"\((a numeric and a categorical one|both categorical)\)"
    with pytest.raises(OlctcError, match=rf"^two columns are named 'c' {kinds}: "):
        to_sql(tree)
    twins = Schema((Column("c", "numeric"), Column("c", "numeric")))
    tree = Tree(np.ones((1, 2)), np.zeros(1), Scaler.identity(2), twins, (0, 1))
    assert 'olctc_input."c" AS olctc_f1' in to_sql(tree)
