"""The tree file and the tree picture: behaviour a mutation pass (QA 2026-12-07, over export/json.py and
export/plot.py) could change without any other test noticing. Documents are written by hand to tmp_path and read
with olctc's load; expected values are worked out here from the hand-written weights; the picture is read back
from its matplotlib Figure (texts, patches, lines) and the rendered bytes."""
from __future__ import annotations

import json
import sys
from pathlib import PurePosixPath
from typing import Any

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.export.json import META_DEPTH, dump, load, loads, tree_from_dict
from olctc.tree import Tree
from test_export_load_mutation_gaps import B, W, W_RAW, B_RAW, _doc, _nested, _refused
from test_export_text_sql_mutation_gaps import _bars, _texts


def _tree_texts(tree: Tree) -> list[str]:
    """Every text of the tree's picture, in drawing order."""
    from olctc.export.plot import figure

    return _texts(figure(tree))


def _loaded(tmp_path, doc: dict) -> Tree:
    """doc written to a real file and loaded from it."""
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load(path)


# ---------------------------------------------------------------- writing: meta and layout

def test_meta_values_are_written_as_strict_json_keys_and_values() -> None:
    """Keys become their str() whatever the layout (a small meta was written with json's 'true'/'null', a large
    one with 'True'/'None'); numpy booleans and the non-finite floats inside arrays stay readable, other objects
    are written as their str(). Mutants: keys not made str (m06), np.bool_ written as 'True' (m07), array elements
    not converted (m10: a raw ValueError), other objects kept (m11: a raw TypeError)."""
    meta = {True: 1, None: 2, "ok": np.bool_(True), "bounds": np.array([np.inf, 1.5, -np.inf]),
            "where": PurePosixPath("runs/a"), "z": 1j}
    got = json.loads(dump(Tree.from_arrays(W_RAW, B_RAW, meta=meta)))["meta"]
    assert got == {"True": 1, "None": 2, "ok": True, "bounds": ["inf", 1.5, "-inf"], "where": "runs/a", "z": "1j"}


def test_an_object_array_in_meta_counts_towards_its_depth() -> None:
    """An object array is walked as the lists it holds: nested one level too deep it is refused when written (the
    file written would not load back). Mutant: object arrays not walked (m05)."""
    def holding(levels: int) -> np.ndarray:
        a = np.empty(1, dtype=object)
        a[0] = _nested(levels)
        return a

    # meta is level 1, the array level 2, so its element of k nested lists reaches level 2 + k
    fine = Tree.from_arrays(W_RAW, B_RAW, meta={"a": holding(META_DEPTH - 2)})
    assert loads(dump(fine)).meta == {"a": [_nested(META_DEPTH - 2)]}
    with pytest.raises(OlctcError, match=rf"^the tree's meta: expected lists and objects nested at most {META_DEPTH} "
                                         r"levels deep, got deeper$"):
        dump(Tree.from_arrays(W_RAW, B_RAW, meta={"a": holding(META_DEPTH - 1)}))


def test_meta_holding_a_lone_surrogate_names_just_that_character() -> None:
    """Mutants: the surrogate check dropped (m18: a raw UnicodeEncodeError at save), the message quoting the
    character after it too (m19)."""
    tree = Tree.from_arrays(W_RAW, B_RAW, meta={"s": "a\ud800z"})
    with pytest.raises(OlctcError, match=r"^the tree's meta holds text that is not valid Unicode \('\\ud800', a "
                                         r"lone surrogate\), which a JSON file cannot store$"):
        dump(tree)


def test_file_layout_keeps_rows_and_small_objects_on_one_line() -> None:
    """One weight row per line, objects indented by one space, non-ASCII names written as themselves, and an
    object of flat values on one line up to 120 characters. Mutants: a whole matrix on one line (m15), \\u escapes
    (m16), two-space indent (m17), the 120 limit at < 120 (m13) or 80 (m14)."""
    names = ["年齢", "v"]
    for n, one_line in ((111, True), (112, False)):  # {"k": "x..."} is n + 9 characters
        text = dump(Tree.from_arrays(W_RAW, B_RAW, feature_names=names, meta={"k": "x" * n}))
        lines = text.splitlines()
        assert ' "feature_names": ["年齢", "v"],' in lines
        i = lines.index('  "W": [')
        assert lines[i + 1:i + 5] == [f"   {json.dumps(row)}," for row in W_RAW[:2].tolist()] + [
            f"   {json.dumps(W_RAW[2].tolist())}", "  ],"]
        meta_line = ' "meta": {"k": "' + "x" * n + '"}'
        assert (meta_line in lines) is one_line
        assert (' "meta": {' in lines and '  "k": "' + "x" * n + '"' in lines) is not one_line


# ---------------------------------------------------------------- reading: which field, what came

def test_a_boolean_version_is_no_integer(tmp_path) -> None:
    """JSON true is no version 1. Mutant: _integer taking a bool as an int (m21)."""
    doc = _doc()
    doc["version"] = True
    _refused(tmp_path, doc, "version: expected an integer, got true")


def test_a_fractional_depth_is_named(tmp_path) -> None:
    """Mutant: _integer reading 1.5 as 1 (m22)."""
    doc = _doc()
    doc["depth"] = 1.5
    _refused(tmp_path, doc, "depth: expected an integer in [1, 30], got 1.5")


def test_unknown_keys_are_named_in_a_fixed_order() -> None:
    """Of several unknown fields the message names the first: non-string keys (from_dict is given YAML's int
    keys) before strings, strings in sorted order, whatever the hash seed. Mutants: sorted by repr only (m24),
    not sorted (m25), the last one named (m26)."""
    doc = _doc()
    doc.update({k: 0 for k in "zyxwvutsrqponmlkjihgfedcba"})
    doc[7] = 0
    with pytest.raises(OlctcError, match=r"^tree: top level: expected only the fields \['classes', 'columns', "
                                         r"'depth', 'feature_names', 'format', 'meta', 'nodes', 'olctc_version', "
                                         r"'raw', 'scaler', 'version'\], got 7$"):
        tree_from_dict(doc)
    del doc[7]
    with pytest.raises(OlctcError, match=r"\], got 'a'$"):
        tree_from_dict(doc)
    doc = _doc()
    doc["columns"][0].update({"unit": "cm", "alias": "x", "zz": 1})
    with pytest.raises(OlctcError, match=r"^tree: columns\[0\]: expected only the fields name, kind, categories, "
                                         r"got 'alias'$"):
        tree_from_dict(doc)


def test_the_largest_finite_number_written_as_an_integer_loads(tmp_path) -> None:
    """An integer equal to the largest float64 is still a finite number. Mutant: <= float max read as < (m27)."""
    doc = _doc()
    doc["nodes"]["b"][0] = int(sys.float_info.max)
    doc.pop("raw")
    assert _loaded(tmp_path, doc).b[0] == sys.float_info.max


@pytest.mark.parametrize("count,message", [
    (2 ** 63, "nodes.n[0]: expected an integer, got 9223372036854775808"),
    (-2 ** 63, "nodes.n: expected non-negative numbers, got a list of 3"),
    (-1, "nodes.n: expected non-negative numbers, got a list of 3")])
def test_counts_beyond_int64_or_below_zero_are_named(tmp_path, count, message) -> None:
    """Counts are int64: 2**63 is named as no integer (it was an OverflowError traceback), -2**63 is an integer
    refused for its sign. Mutants: 2**63 let through (m29, m31), -2**63 called no integer (m30), negative counts
    accepted (m59)."""
    doc = _doc()
    doc["nodes"]["n"][0] = count
    doc["nodes"].pop("pos")
    _refused(tmp_path, doc, message)


@pytest.mark.parametrize("column,message", [
    ({"name": "", "kind": "numeric"}, "columns[0].name: expected a non-empty string, got ''"),
    ({"name": "u", "kind": "numeric", "categories": ["a"]},
     "columns[0].categories: expected no categories for a numeric column, got a list of 1"),
    ({"name": "u", "kind": "categorical", "categories": []},
     "columns[0].categories: expected a non-empty list of strings, got a list of 0"),
    ({"name": "u", "kind": "categorical", "categories": ["a", "b", "a"]},
     "columns[0].categories: expected distinct categories, got a list of 3")])
def test_bad_columns_are_named(tmp_path, column, message) -> None:
    """Mutants: an empty name (m38), categories on a numeric column (m40), no categories (m41) and a category
    twice (m42) let through to the Tree (or loaded)."""
    doc = _doc()
    doc["columns"][0] = column
    _refused(tmp_path, doc, message)


def test_a_file_without_format_is_no_tree_file(tmp_path) -> None:
    """Mutant: a missing format accepted (m45)."""
    doc = _doc()
    doc.pop("format")
    _refused(tmp_path, doc, "format: expected 'olctc-tree' (not an olctc tree file?), got null")


@pytest.mark.parametrize("field,value,message", [
    ("depth", 0, "depth: expected an integer in [1, 30], got 0"),
    ("classes", ["a", "b", "c"], "classes: expected a list of two labels (numbers or strings), got a list of 3"),
    ("classes", [1, "1"], "classes: expected two labels that differ as text, got [1, '1']")])
def test_depth_and_classes_are_named(tmp_path, field, value, message) -> None:
    """Mutants: depth 0 accepted (m49), a third class accepted (m50), labels equal as text accepted (m53)."""
    doc = _doc()
    doc[field] = value
    _refused(tmp_path, doc, message)


def test_the_first_non_positive_scale_is_named(tmp_path) -> None:
    """Mutant: the message quoting the last one (m56)."""
    doc = _doc()
    doc["scaler"]["scale"] = [0.0, -1.0]
    _refused(tmp_path, doc, "scaler.scale: expected positive numbers, got 0.0")


def test_a_node_whose_points_are_all_positive_loads(tmp_path) -> None:
    """nodes.pos equal to nodes.n is a pure node. Mutant: pos == n refused (m60)."""
    doc = _doc()
    doc["nodes"]["pos"] = [7, 3, 4]
    np.testing.assert_array_equal(_loaded(tmp_path, doc).node_pos, [7, 3, 4])


def test_children_over_their_parent_below_the_root_are_named(tmp_path) -> None:
    """At depth 3, node 1's children are nodes 3 and 4. Mutant: the message naming nodes over + 1, over + 2
    (right at the root only) (m61)."""
    doc = _doc()
    doc.update(depth=3)
    doc["nodes"] = {"W": np.ones((7, 2)).tolist(), "b": [0.0] * 7, "n": [10, 6, 4, 5, 2, 1, 3]}
    doc.pop("raw")
    _refused(tmp_path, doc, "nodes.n[3] + nodes.n[4]: expected at most nodes.n[1] = 6 (the points reaching node 1, "
                            "split between its two child nodes), got 7")


def test_a_file_without_meta_loads_with_an_empty_one(tmp_path) -> None:
    """meta is optional. Mutant: a missing meta refused (m63)."""
    doc = _doc()
    doc.pop("meta")
    assert _loaded(tmp_path, doc).meta == {}


def test_raw_weights_are_compared_relative_to_their_size(tmp_path) -> None:
    """raw.W is checked with a relative tolerance only (a tiny weight wrong by half is wrong), raw.b against
    1 + the size of its terms (a zero intercept off by 1e-12 is rounding). Mutants: numpy's default absolute
    tolerance 1e-8 (m65); raw.b's bound without the 1 (m66)."""
    doc = _doc()
    doc["nodes"]["W"][0] = [1e-12, 0.0]
    doc["nodes"]["b"][0] = 0.0
    doc["scaler"]["mean"] = [0.0, 0.0]
    doc["raw"] = {"W": (np.array(doc["nodes"]["W"]) / np.array(doc["scaler"]["scale"])).tolist(),
                  "b": [1e-12] + B[1:].tolist()}
    tree = _loaded(tmp_path, doc)
    assert tree.b_raw[0] == 0.0 and tree.W_raw[0, 0] == 5e-13
    doc["raw"]["W"][0][0] = 2.5e-13
    _refused(tmp_path, doc, "raw.W/raw.b disagree with nodes.W, nodes.b and the scaler (edited by hand? raw is "
                            "derived: delete it or fix nodes)")



def test_text_bytes_and_files_starting_with_a_bom_load(tmp_path) -> None:
    """A byte-order mark (Windows editors write one) is dropped from bytes and from files. Mutant: bytes decoded
    as plain UTF-8 (m67: the BOM reached json.loads)."""
    data = b"\xef\xbb\xbf" + json.dumps(_doc()).encode("utf-8")
    np.testing.assert_array_equal(load(data).W, W)
    path = tmp_path / "bom.json"
    path.write_bytes(data)
    np.testing.assert_array_equal(load(path).W, W)


@pytest.mark.parametrize("bad", [None, 3])
def test_loads_names_text_that_is_no_text(bad: Any) -> None:
    """Mutant: no type check (m68: json's own TypeError, naming no parameter)."""
    with pytest.raises(OlctcError, match=r"^The 'text' parameter must be JSON text \(a str or bytes; load reads a "
                                         r"file\)\. Got "):
        loads(bad)


def test_truncated_json_starting_with_a_bracket_is_called_corrupted() -> None:
    """A '[' starts valid JSON, so a cut-off list is a damaged file, not 'no tree file'. Mutant: only '{' counted
    (m69)."""
    with pytest.raises(OlctcError, match=r"^<string>: not valid JSON \(line 1 column 6: Expecting ',' delimiter\); "
                                         r"the file is corrupted or truncated$"):
        loads("[1, 2")


def test_json_nested_beyond_the_recursion_limit_is_one_error() -> None:
    """Mutant: RecursionError no longer caught (m72: a traceback)."""
    with pytest.raises(OlctcError, match=r"^<string>: not valid JSON \(maximum recursion depth exceeded"):
        loads("[" * 100_000 + "]" * 100_000)


@pytest.mark.parametrize("path,message", [
    ("   ", r"^The 'text_or_path' parameter must be JSON text or a file path"),
    ("a\x00b.json", r"^a\x00b.json: no such file \(a file name holds no NUL character\)$")])
def test_a_blank_or_nul_path_is_named(path: str, message: str) -> None:
    """Mutants: a blank name no longer refused as the parameter (m74: 'no such file'), the NUL check dropped
    (m76: a raw ValueError)."""
    with pytest.raises(OlctcError, match=message):
        load(path)


def test_load_builds_the_given_subclass_from_a_file(tmp_path) -> None:
    """Mutant: cls dropped on the file path (m79: a plain Tree)."""
    class MyTree(Tree):
        pass

    assert type(_loaded(tmp_path, _doc())) is Tree
    path = tmp_path / "tree.json"
    assert type(load(path, cls=MyTree)) is MyTree and type(MyTree.load(path)) is MyTree


# ---------------------------------------------------------------- the picture

def _stats_tree(pos: bool = True) -> Tree:
    """Depth 2 on two features with training statistics: 4 rows, node 1 gets 3 (2 positive), node 2 gets 1."""
    tree = Tree.from_arrays([[1.0, -1.0], [2.0, 0.5], [-1.0, 3.0]], [0.0, 0.0, 0.0], classes=("no", "yes"))
    tree.fit_stats(np.array([[0.0, 1.0], [-1.0, 0.0], [0.0, 2.0], [3.0, 1.0]]), np.array([1, -1, 1, -1]))
    if not pos:
        tree.node_pos = None
    return tree


def test_a_tree_with_counts_but_no_positives_is_drawn_without_shares() -> None:
    """The schema lets a file give nodes.n without nodes.pos. Mutant: the positive share read from None (m81)."""
    tree = _stats_tree(pos=False)
    assert tree.node_n.tolist() == [4, 3, 1]
    texts = _tree_texts(tree)
    assert "node 0 · split\nn=4 (100.0%)" in texts and "node 2 · classifier\nn=1 (25.0%)" in texts


def test_a_node_without_weights_shows_its_raw_score_in_3_digits() -> None:
    """Mutant: 2 significant digits (m85)."""
    tree = Tree.from_arrays([[1.0, 0.0], [0.0, 0.0], [0.0, 1.0]], [0.0, 1.23456, 0.0])
    assert "constant score 1.23" in _tree_texts(tree)


def test_bars_are_blue_right_and_red_left_scaled_by_the_largest_influence() -> None:
    """The largest |influence| of the tree fills half a box (0.18 units), others in proportion; positive bars
    blue, negative red, each value written beyond its bar's end. Mutants: colours swapped (m88), a negative
    value written inside its bar (m89), the bar scale taken from W although influences are drawn (m94)."""
    from matplotlib.colors import to_rgba

    from olctc.export.plot import figure

    tree = _stats_tree()
    r = tree.influence()
    fig = figure(tree)
    bars = _bars(fig)
    ranked = [v for t in range(3) for _, v in tree.ranked_features(t, 4)]
    assert len(bars) == len(ranked) == 6
    half = 0.2 * 0.9
    np.testing.assert_allclose([p.get_width() for p in bars], [half * v / np.abs(r).max() for v in ranked],
                               rtol=1e-12)
    assert [p.get_facecolor() for p in bars] == [to_rgba("#3b6fb6" if v > 0 else "#c44e52") for v in ranked]
    for bar, text in zip(bars, [x for x in fig.axes[0].texts if x.get_text()[:1] in "+-"]):
        end = bar.get_x() + bar.get_width()
        x = text.get_position()[0]
        assert (x > end) if bar.get_width() > 0 else (x < end), (text.get_text(), x, end)


def test_a_tree_whose_influences_are_all_zero_is_drawn() -> None:
    """Features that do not vary give every node influence 0 (weights nonzero): the bars are empty, not a
    ZeroDivisionError. Mutant: no fallback scale of 1 (m95)."""
    from olctc.export.plot import figure

    tree = Tree.from_arrays([[1.0, -1.0]], [0.0])
    tree.fit_stats(np.array([[2.0, 5.0], [2.0, 5.0]]), np.array([1, -1]))
    bars = _bars(figure(tree))
    assert [p.get_width() for p in bars] == [0.0, 0.0]


@pytest.mark.parametrize("stats,what", [(False, "standardised weight"), (True, "influence r = w · std")])
def test_title_names_what_the_bars_show_on_one_line_from_depth_2(stats: bool, what: str) -> None:
    """Mutants: always 'influence' (m92); a depth-2 title on two lines (m93)."""
    tree = _stats_tree() if stats else Tree.from_arrays(np.ones((3, 2)), np.zeros(3))
    assert _tree_texts(tree)[0] == (f"olctc tree · depth 2 · bars: top features by {what} (blue: towards right / "
                                    "positive)")


def test_nodes_sit_centred_in_their_columns_with_edges_and_classes_labelled() -> None:
    """Depth 2 on a 2-unit-wide axis: the root at x = 1, its children at 0.5 and 1.5; the edge to the left child
    says <= 0, each classifier's left label names the negative class; labels cut at 14 characters. Mutants: nodes
    shifted half a unit left (m96), edge labels (m97) or classes (m98) swapped, classes cut at 20 (m99), the
    first classifier without labels (m100)."""
    from matplotlib.patches import FancyBboxPatch

    from olctc.export.plot import figure

    tree = Tree.from_arrays(np.ones((3, 2)), np.zeros(3), classes=("no", "y" * 15))
    ax = figure(tree).axes[0]
    boxes = [p for p in ax.patches if isinstance(p, FancyBboxPatch)]
    assert [round(p.get_x() + p.get_width() / 2, 9) for p in boxes] == [1.0, 0.5, 1.5]
    edges = {x.get_text(): x.get_position()[0] for x in ax.texts if x.get_text() in ("≤ 0", "> 0")}
    assert edges == {"≤ 0": 0.75, "> 0": 1.25}
    labels = [(x.get_text(), round(x.get_position()[0], 9)) for x in ax.texts if x.get_text()[:2] in ("≤ ", "> ")
              and x.get_text() not in edges]
    assert labels == [("≤ 0: no", 0.28), ("> 0: " + "y" * 13 + "…", 0.72), ("≤ 0: no", 1.28),
                      ("> 0: " + "y" * 13 + "…", 1.72)]


def test_at_most_four_features_per_node_and_the_zero_line_spans_the_bars() -> None:
    """A node shows its top 4 features; the zero line runs the height of the bars drawn (0.1 units per row).
    Mutants: 3 per node (m105), the line drawn for 4 rows whatever the node has (m106)."""
    from olctc.export.plot import figure

    tree = Tree.from_arrays([[5.0, 4.0, 3.0, 2.0, 1.0]], [0.0])
    ax = figure(tree).axes[0]
    assert [x.get_text() for x in ax.texts if x.get_text()[:1] == "x"] == ["x0", "x1", "x2", "x3"]
    one = figure(Tree.from_arrays([[1.0, 0.0]], [0.0])).axes[0]
    (line,) = one.lines
    assert abs(np.ptp(line.get_ydata()) - 0.1) < 1e-12


def test_pictures_are_png_or_svg_only_and_svg_carries_no_date() -> None:
    """Mutants: pdf (m101) or any format (m102) accepted; the SVG stamped with the time it was drawn (m103: the same
    tree gave different files a second apart); export_svg giving PNG (m104)."""
    from olctc.export.plot import export_svg, render

    tree = Tree.from_arrays([[1.0, -1.0]], [0.0])
    for fmt in ("pdf", "PNG", "jpg"):
        with pytest.raises(OlctcError, match=rf"^picture format must be 'png' or 'svg'; got '{fmt}'$"):
            render(tree, fmt)
    svg = export_svg(tree)
    assert svg.startswith(b"<?xml") and b"<svg" in svg and b"<dc:date>" not in svg
