"""JSON, SQL, DOT, picture and text exports: behaviour a third mutation pass (QA 2026-12-07, over export/json.py,
sql.py, dot.py, plot.py and text.py) could change without any other test noticing. Trees are written by hand so
every expected value is computed here; the SQL runs for real in SQLite, the DOT is parsed with the strict parser
of test_export_render, the picture's matplotlib Figure is read back and the JSON is loaded from real files."""
from __future__ import annotations

import json

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.export.dot import to_dot
from olctc.export.text import to_text
from olctc.tree import Tree
from test_export_render import parse_dot
from test_export_text_sql_mutation_gaps import _dot_labels


def _zero_row_tree() -> Tree:
    """Depth 2 with training statistics from no rows at all: every node's count is 0 (the root's too)."""
    tree = Tree.from_arrays([[1.0, -1.0], [0.0, 1.0], [2.0, 0.0]], [0.5, 0.0, -1.0], classes=("no", "yes"))
    tree.fit_stats(np.empty((0, 2)), np.empty(0))
    return tree


# ---------------------------------------------------------------- text, DOT and picture

def test_statistics_of_zero_rows_show_0_percent_in_text_dot_and_picture() -> None:
    """A tree whose statistics count no row (fit_stats on an empty set, or a file's zero counts) is shown with
    n=0 (0.0%) everywhere. Mutants: the root's count used without the floor of 1 (division by zero)."""
    from olctc.export.plot import figure

    tree = _zero_row_tree()
    text = to_text(tree)
    assert [line.lstrip("| ") for line in text.splitlines() if "[n=" in line] == [
        f"node {t} ({role})  [n=0 (0.0%)]" for t, role in ((0, "split"), (1, "classifier"), (2, "classifier"))]
    labels = _dot_labels(to_dot(tree))
    assert [labels[f"n{t}"][1] for t in range(3)] == ["n=0 (0.0%)"] * 3
    texts = [x.get_text() for x in figure(tree).axes[0].texts]
    assert "node 0 · split\nn=0 (0.0%)" in texts and "node 2 · classifier\nn=0 (0.0%)" in texts


def test_a_node_no_training_row_reached_shows_no_positive_share() -> None:
    """Rows that all go left leave node 2 empty: its count is 0 and no share of positives is shown (0 of 0).
    Mutants: the share computed for an empty node in the picture (division by zero)."""
    from olctc.export.plot import figure

    tree = Tree.from_arrays([[1.0, -1.0], [0.0, 1.0], [2.0, 0.0]], [-10.0, 0.0, -1.0], classes=("no", "yes"))
    tree.fit_stats(np.array([[1.0, 0.0], [2.0, 1.0], [0.0, 3.0], [1.0, 1.0]]), np.array([1, -1, 1, 1]))
    assert tree.node_n.tolist() == [4, 4, 0]
    texts = [x.get_text() for x in figure(tree).axes[0].texts]
    assert "node 1 · classifier\nn=4 (100.0%) · 75% pos" in texts and "node 2 · classifier\nn=0 (0.0%)" in texts
    assert _dot_labels(to_dot(tree))["n2"][1] == "n=0 (0.0%)"
    assert "node 2 (classifier)  [n=0 (0.0%)]" in to_text(tree)


def test_picture_is_3_2_inches_per_last_layer_node_and_2_per_layer() -> None:
    """A depth-3 figure is 4 x 3.2 inches wide and 3 x 2 + 1 tall, so deep trees stay legible. Mutant: 3.0 per
    last-layer node."""
    from olctc.export.plot import figure

    fig = figure(Tree.from_arrays(np.ones((7, 2)), np.zeros(7)))
    assert fig.get_size_inches().tolist() == pytest.approx([12.8, 7.0])


def test_dot_escapes_backslashes_of_a_name() -> None:
    """A backslash in a feature name is doubled in the DOT label: a name ending in one would otherwise escape the
    label's closing quote (the file no longer parses) and "a\\l" would become a line break. Mutant: no doubling."""
    tree = Tree.from_arrays([[1.0, 2.0]], [0.0], feature_names=["dir\\", "a\\lb"])
    text = to_dot(tree)
    nodes, edges = parse_dot(text)
    assert nodes == {"n0", "c0_neg", "c0_pos"} and len(edges) == 2
    # the graph's title on top (labelloc=t): a mutant moved it to the bottom
    assert text.splitlines()[1] == ('  graph [rankdir=TB, label="olctc tree: left if score <= 0, right if score > 0", '
                                    'labelloc=t];')
    assert _dot_labels(text)["n0"][1:3] == ["w_std=+2 w=2 a\\lb", "w_std=+1 w=1 dir\\"]


def test_dot_lines_are_cut_at_60_characters() -> None:
    """Each line of a DOT label is at most 60 characters (59 and an ellipsis); a line of 60 stays whole.
    Mutant: cut at 40."""
    long, fits = "f" * 60, "g" * 47  # "w_std=+1 w=1 " is 13 characters: 13 + 47 = 60
    tree = Tree.from_arrays([[2.0, 1.0]], [0.0], feature_names=[long, fits])
    lines = _dot_labels(to_dot(tree))["n0"]
    assert lines[1] == ("w_std=+2 w=2 " + long)[:59] + "…"
    assert lines[2] == "w_std=+1 w=1 " + fits


def test_dot_share_names_a_class_of_20_characters_whole_and_cuts_a_longer_one() -> None:
    """The share line names the positive class in at most 20 characters. Mutant: cut at 10 (a class of 20 shown
    as its first 9 and an ellipsis)."""
    X, y = np.array([[1.0, 0.0], [-1.0, 0.0], [2.0, 0.0], [-2.0, 1.0]]), np.array([1, -1, 1, 1])
    for name, shown in (("p" * 20, "p" * 20), ("q" * 21, "q" * 19 + "…")):
        tree = Tree.from_arrays([[1.0, 0.0]], [0.0], classes=("neg", name))
        tree.fit_stats(X, y)
        assert _dot_labels(to_dot(tree))["n0"][1] == f"n=4 (100.0%), class {shown}: 75.0%"


def test_picture_boxes_grey_for_last_layer_nodes_and_names_cut_at_16() -> None:
    """Last-layer classifiers are grey boxes and splits white (as in the paper), a zero line runs through each
    node's bars, a value sits beyond its bar's end, and a feature name is at most 16 characters. Mutants: every
    box white or hidden; no zero line; values of negative bars aligned left; names cut at 60."""
    from matplotlib.colors import to_rgba
    from matplotlib.patches import FancyBboxPatch

    from olctc.export.plot import figure

    names = ["a" * 16, "b" * 17]
    fig = figure(Tree.from_arrays([[1.0, 2.0], [-1.0, 0.0], [0.0, 1.0]], [0.0, 0.0, 0.0], feature_names=names))
    boxes = [p for p in fig.axes[0].patches if isinstance(p, FancyBboxPatch)]
    assert [p.get_facecolor() for p in boxes] == [to_rgba("white"), to_rgba("#d0d0d0"), to_rgba("#d0d0d0")]
    assert all(p.get_visible() for p in boxes)
    # two edges from the split, and one zero line through the bars of each node
    assert len(fig.axes[0].lines) == 2 + 3
    # a bar's value sits beyond its end: left of a negative bar (aligned right), right of a positive one
    values = {x.get_text(): x.get_horizontalalignment() for x in fig.axes[0].texts if x.get_text()[:1] in "+-"}
    assert values == {"+2": "left", "+1": "left", "-1": "right"}
    texts = [x.get_text() for x in fig.axes[0].texts]
    assert texts.count("a" * 16) == 2 and texts.count("b" * 15 + "…") == 2 and "b" * 16 not in "".join(texts)


def test_png_is_100_dpi_and_a_missing_glyph_warns_nothing() -> None:
    """A depth-1 picture (4 x 3 inches) is a 400 x 300 PNG at the default 100 dpi; a name the font lacks glyphs
    for (CJK) is drawn as boxes without a warning reaching the caller. Mutants: 72 dpi; the warning filter
    dropped."""
    import struct
    import warnings

    from olctc.export.plot import render

    tree = Tree.from_arrays([[1.0, -1.0]], [0.0], feature_names=["年齢", "体重"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        png = render(tree)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png[12:16] == b"IHDR"
    assert struct.unpack(">II", png[16:24]) == (400, 300)


# ---------------------------------------------------------------- JSON

def test_meta_numpy_bools_become_json_booleans_and_arrays_may_nest_to_64_levels() -> None:
    """numpy booleans in meta are written as true/false (not the text "True"), numpy integers as exact integers
    (2^53 + 1 is no double), and a numeric array counts its dimensions as nesting levels: 63 dimensions under a
    key of meta (level 2) reach level 64 exactly, which is allowed; 64 are refused. Mutants: np.bool_ written as
    text; np.int64 as a float; an array's levels counted one too many."""
    from olctc.export.json import dump, loads

    tree = Tree.from_arrays([[1.0]], [0.0], meta={"flag": np.bool_(True), "off": np.array([False, True]),
                                                 "n": np.int64(2 ** 53 + 1)})
    meta = json.loads(dump(tree))["meta"]
    assert meta == {"flag": True, "off": [False, True], "n": 2 ** 53 + 1} and type(meta["n"]) is int
    deep = Tree.from_arrays([[1.0]], [0.0], meta={"a": np.zeros((1,) * 63)})
    assert np.asarray(loads(dump(deep)).meta["a"]).shape == (1,) * 63
    deeper = Tree.from_arrays([[1.0]], [0.0], meta={"a": np.zeros((1,) * 64)})
    with pytest.raises(OlctcError, match="nested at most 64 levels deep, got deeper"):
        dump(deeper)


def test_an_object_of_scalars_stays_on_one_line_up_to_120_characters() -> None:
    """The writer keeps an object of scalars and lists on one line while its JSON is at most 120 characters, and
    breaks a longer one into a line per key. Mutant: the limit at 80."""
    from olctc.export.json import dump

    for n, one_line in ((111, True), (112, False)):  # {"s": "x...x"} is 9 + n characters
        text = dump(Tree.from_arrays([[1.0]], [0.0], meta={"k": {"s": "x" * n}}))
        assert ('  "k": {"s": "' + "x" * n + '"}\n' in text) is one_line
        assert ('   "s": "' + "x" * n + '"\n' in text) is not one_line


@pytest.mark.parametrize("count", [2 ** 53 + 1, 2 ** 63 - 1])
def test_a_files_counts_load_exactly_up_to_the_int64_maximum(tmp_path, count: int) -> None:
    """nodes.n and nodes.pos may hold any int64 (the loader checks that range); they load, export and save back
    exactly. DEFECT fixed (Tree._stat): counts went through float64, so 2^53 + 1 loaded as 2^53 and 2^63 - 1
    wrapped to the negative count -2^63, which the text and DOT exports then showed."""
    from olctc.export.json import dump, load

    doc = json.loads(dump(Tree.from_arrays([[1.0, 2.0]], [0.5], classes=("no", "yes"))))
    doc["nodes"].update(n=[count], pos=[count - 1])
    path = tmp_path / "big.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    tree = load(path)
    assert tree.node_n.tolist() == [count] and tree.node_pos.tolist() == [count - 1]
    assert json.loads(dump(tree))["nodes"]["n"] == [count]
    assert f"node 0 (classifier)  [n={count} (100.0%), class yes: 100.0%]" in to_text(tree)
    assert _dot_labels(to_dot(tree))["n0"][1] == f"n={count} (100.0%), class yes: 100.0%"


@pytest.mark.parametrize("field", ["version", "depth"])
def test_true_is_no_integer_for_the_version_or_the_depth(field: str) -> None:
    """JSON true is refused where an integer goes (Python's True == 1 would pass as version 1 or depth 1), as
    the documented schema does. Mutant: _integer without its bool test."""
    from olctc.export.json import dump, tree_from_dict

    doc = json.loads(dump(Tree.from_arrays([[1.0, 2.0]], [0.5])))
    doc[field] = True
    msg = {"version": "version: expected an integer, got true",
           "depth": r"depth: expected an integer in \[1, 30\]"}[field]
    with pytest.raises(OlctcError, match=f"^tree: {msg}"):
        tree_from_dict(doc)


def test_raw_intercepts_are_checked_relative_to_the_size_of_their_terms() -> None:
    """raw.b may differ from the derived intercept by 1e-9 of the size of its terms (|w mean / scale| + |b|): a
    file whose raw.b was written to 12 digits loads, one off by 1e-2 is refused. Mutant: an absolute 1e-9."""
    from olctc.data import Scaler
    from olctc.export.json import dump, loads

    tree = Tree.from_arrays([[2.0]], [0.5], scaler=Scaler(np.array([1e6]), np.array([3.0])))
    doc = json.loads(dump(tree))
    b_raw = doc["raw"]["b"][0]  # about -666666.17: terms of about 666667
    doc["raw"]["b"] = [float(f"{b_raw:.12g}")]
    assert doc["raw"]["b"][0] != b_raw
    assert loads(json.dumps(doc)).b.tolist() == [0.5]
    doc["raw"]["b"] = [b_raw + 1e-2]
    with pytest.raises(OlctcError, match=r"^<string>: raw.W/raw.b disagree with nodes.W"):
        loads(json.dumps(doc))


def test_utf8_bytes_starting_with_a_bom_load() -> None:
    """UTF-8 bytes with a byte order mark (as Windows editors save) load through loads and load, as a file
    does. Mutant: bytes decoded as plain UTF-8 (the BOM then made it no JSON)."""
    from olctc.export.json import dump, load, loads

    text = dump(Tree.from_arrays([[1.0, 2.0]], [0.5]))
    data = b"\xef\xbb\xbf" + text.encode("utf-8")
    assert loads(data).W.tolist() == [[1.0, 2.0]] and load(bytearray(data)).b.tolist() == [0.5]


def test_meta_keys_are_written_as_text_and_the_writer_names_its_version() -> None:
    """Keys of meta that are no strings (an int, a tuple) are written as their text, and the file records the
    olctc version that wrote it. Mutants: keys passed through (a tuple key raised TypeError); another version."""
    import olctc
    from olctc.export.json import dump

    doc = json.loads(dump(Tree.from_arrays([[1.0]], [0.0], meta={1: "a", "m": {(2, 3): [4]}})))
    assert doc["meta"] == {"1": "a", "m": {"(2, 3)": [4]}}
    assert doc["olctc_version"] == olctc.__version__


# ---------------------------------------------------------------- SQL

def test_sql_writes_weights_with_18_significant_digits_and_scores_as_python() -> None:
    """Weights and intercepts are written with 18 significant digits (0.1 as 1.00000000000000006e-01), the form
    the module docstring promises SQLite's parser reads exactly; the scores SQLite computes equal Python's bit for
    bit. Mutant: 17 digits (read exactly by SQLite 3.40 too: the text is what pins it)."""
    from olctc.export.sql import OUTPUTS, to_sql
    from test_export_sql import run_sqlite

    tree = Tree.from_arrays([[0.1, -0.7]], [0.3], classes=("no", "yes"))
    query = to_sql(tree)
    assert "      1.00000000000000006e-01 * olctc_f0\n      - 6.99999999999999956e-01 * olctc_f1\n" in query
    assert "    ) + 2.99999999999999989e-01 AS olctc_s0" in query
    X = np.array([[1.5, 0.25], [-3.0, 2.0]])
    got = [tuple(r[k] for k in OUTPUTS) for r in run_sqlite(tree, X.tolist(), query)]
    scores = (X @ np.array([0.1, -0.7])) + 0.3
    assert [g[1] for g in got] == scores.tolist() and [g[3] for g in got] == ["yes", "no"]


def test_a_zero_influence_and_a_zero_intercept_show_no_minus_sign() -> None:
    """A negative weight on a feature that does not vary at the node has influence -0.0, and an intercept can be
    -0.0: text, DOT and the picture show them as 0, not as '-0' (a sign that means nothing to the reader)."""
    from olctc.export.plot import figure

    tree = Tree.from_arrays([[-1.0, 2.0]], [-0.0], classes=("no", "yes"))
    tree.fit_stats(np.array([[1.0, 0.0], [1.0, 1.0], [1.0, 3.0]]), np.array([1, -1, 1]))
    text = to_text(tree)
    assert "score = 0 + sum of w * feature" in text and "    x0: w=-1  influence=0\n" in text
    assert _dot_labels(to_dot(tree))["n0"][2:] == ["r=+2.49 w=2 x1", "r=+0 w=-1 x0", "b=0"]
    assert "-0" not in " ".join(x.get_text() for x in figure(tree).axes[0].texts)
