"""Loading a tree file, the generated Python and the export registry: behaviour a mutation pass (QA 2026-12-06,
over export/json.py, python.py, onnx.py and export/__init__.py) could change without any other test noticing. Bad
files are written to tmp_path and read through olctc's load (and the CLI); the generated module runs in a fresh,
isolated interpreter; expected values are computed here by hand with numpy. The ONNX mutants that survived the
suite are equivalent (see the commit message), so no ONNX test is added here."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.export.json import META_DEPTH, dump, load, loads, save
from olctc.tree import Tree
from conftest import cli_here

# A depth-2 tree on two numeric columns, written by hand: standardised weights W, b and the scaler.
W = np.array([[1.0, 2.0], [0.5, -1.0], [3.0, 0.25]])
B = np.array([0.5, -0.25, 1.0])
MEAN, SCALE = np.array([1.0, -2.0]), np.array([2.0, 0.5])
W_RAW = W / SCALE  # score = W . (x - mean) / scale + b
B_RAW = B - (W * MEAN / SCALE).sum(axis=1)


def _doc() -> dict:
    """A valid olctc-tree document (raw block computed here by hand, node counts consistent)."""
    return {"format": "olctc-tree", "version": 1, "depth": 2, "classes": ["neg", "pos"],
            "columns": [{"name": "u", "kind": "numeric"}, {"name": "v", "kind": "numeric"}],
            "feature_names": ["u", "v"], "scaler": {"mean": MEAN.tolist(), "scale": SCALE.tolist()},
            "nodes": {"W": W.tolist(), "b": B.tolist(), "n": [10, 6, 4], "pos": [5, 2, 3]},
            "raw": {"W": W_RAW.tolist(), "b": B_RAW.tolist()}, "meta": {}}


def _refused(tmp_path, doc, message: str) -> str:
    """Write doc to a file, load it: one OlctcError, one line, starting with the file's name, matching message."""
    path = tmp_path / "bad.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    with pytest.raises(OlctcError) as err:
        load(path)
    text = str(err.value)
    assert text.startswith(f"{path}: ") and "\n" not in text, text
    assert text[len(f"{path}: "):] == message or message == "", text
    return text


def test_the_hand_written_document_loads_with_its_raw_weights(tmp_path):
    # the reference for every edit below: untouched, the document loads, raw block and all
    path = tmp_path / "good.json"
    path.write_text(json.dumps(_doc()))
    tree = load(path)
    np.testing.assert_array_equal(tree.W, W)
    np.testing.assert_allclose(tree.W_raw, W_RAW, rtol=1e-15)
    np.testing.assert_allclose(tree.b_raw, B_RAW, rtol=1e-15)


# ---------------------------------------------------------------- load: which field, what came

@pytest.mark.parametrize("version,tail", [
    (0, "; this olctc reads version 1"), (-1, "; this olctc reads version 1"),
    (2, "; this olctc reads version 1 (written by a newer olctc: upgrade)")])
def test_only_a_newer_version_says_upgrade(tmp_path, version, tail):
    # mutant: the "(written by a newer olctc: upgrade)" note on versions other than > 1 (0, -1 are no newer olctc)
    doc = _doc()
    doc["version"] = version
    _refused(tmp_path, doc, f"unsupported olctc-tree version {version}{tail}")


def test_depth_31_is_named_as_the_depth(tmp_path):
    # mutant: depth allowed up to 31, which then failed on nodes.W (2147483647 rows) instead of naming the depth
    doc = _doc()
    doc["depth"] = 31
    _refused(tmp_path, doc, "depth: expected an integer in [1, 30], got 31")


def test_one_positive_point_too_many_at_a_later_node(tmp_path):
    # mutants: pos > n + 1 (pos = n + 1 let through); the message naming node 0 instead of the node at fault
    doc = _doc()
    doc["nodes"]["pos"][2] = 5  # nodes.n[2] = 4
    _refused(tmp_path, doc, "nodes.pos[2]: expected at most nodes.n[2] = 4 positive points (of the training "
                            "points that reached the node), got 5")


def _nested(levels: int) -> list:
    v: list = []
    for _ in range(levels - 1):
        v = [v]
    return v


def test_meta_nested_too_deep_is_refused_when_loaded(tmp_path):
    # mutants: load no longer checking meta's depth (the file loaded; save then refused it); the limit off by one.
    # meta is level 1, so {"a": 63 nested lists} reaches level 64 exactly
    doc = _doc()
    doc["meta"] = {"a": _nested(META_DEPTH - 1)}
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(doc))
    tree = load(path)
    save(tree, tmp_path / "again.json")
    assert load(tmp_path / "again.json").meta == doc["meta"]
    doc["meta"] = {"a": _nested(META_DEPTH)}
    _refused(tmp_path, doc, f"meta: expected lists and objects nested at most {META_DEPTH} levels deep, got deeper")


def test_a_meta_holding_itself_is_named_a_cycle():
    # mutant: no cycle check (the depth bound then said "got deeper", which hides what is wrong)
    meta: dict = {"k": 1}
    meta["self"] = meta
    tree = Tree.from_arrays(W_RAW, B_RAW, meta=meta)
    with pytest.raises(OlctcError, match=r"^the tree's meta: expected lists and objects nested at most 64 levels deep, "
                                         r"got one that holds itself \(a cycle\)$"):
        dump(tree)


@pytest.mark.parametrize("field", ["W", "b"])
def test_raw_weights_a_millionth_off_are_refused(tmp_path, field):
    # mutants: raw.W's rtol or raw.b's tolerance loosened from 1e-9 to 1e-3 (a hand edit of 1e-6 read silently)
    doc = _doc()
    terms = np.abs(W * (MEAN / SCALE)).sum(axis=1) + np.abs(B)  # the scale of b_raw's rounding
    if field == "W":
        doc["raw"]["W"][1][0] = W_RAW[1, 0] * (1 + 1e-12)
    else:
        doc["raw"]["b"][1] = B_RAW[1] + 1e-12 * (1 + terms[1])
    path = tmp_path / "close.json"
    path.write_text(json.dumps(doc))
    load(path)  # within rounding: read
    if field == "W":
        doc["raw"]["W"][1][0] = W_RAW[1, 0] * (1 + 1e-6)
    else:
        doc["raw"]["b"][1] = B_RAW[1] + 1e-6 * (1 + terms[1])
    _refused(tmp_path, doc, "raw.W/raw.b disagree with nodes.W, nodes.b and the scaler (edited by hand? raw is "
                            "derived: delete it or fix nodes)")


def test_text_starting_with_a_bom_loads():
    # mutant: loads no longer dropping a BOM from str text (a file read with encoding="utf-8" keeps one)
    text = "\ufeff" + json.dumps(_doc())
    np.testing.assert_array_equal(loads(text).W, W)
    np.testing.assert_array_equal(load(text).W, W)


def test_two_categorical_columns_of_one_name_are_refused(tmp_path):
    # mutant: only columns of different kinds refused: two categorical "c" (one input, two sets of categories)
    # loaded; two numeric columns of one name are one input, and load
    doc = _doc()
    doc["columns"] = [{"name": "c", "kind": "categorical", "categories": ["a"]},
                      {"name": "c", "kind": "categorical", "categories": ["b"]}]
    doc["feature_names"] = ["c=a", "c=b"]
    doc.pop("raw")
    _refused(tmp_path, doc, "columns[1].name: expected a name no other column has (unless both are numeric), got 'c'")
    doc["columns"] = [{"name": "c", "kind": "numeric"}, {"name": "c", "kind": "numeric"}]
    doc["feature_names"] = ["c", "c"]
    path = tmp_path / "twins.json"
    path.write_text(json.dumps(doc))
    assert load(path).feature_names == ["c", "c"]


def test_a_file_whose_name_starts_with_a_brace_is_a_path(tmp_path, monkeypatch):
    # mutant: a str starting with "{" always taken as JSON text, even when it names an existing file
    monkeypatch.chdir(tmp_path)
    (tmp_path / "{tree}.json").write_text(json.dumps(_doc()))
    np.testing.assert_array_equal(load("{tree}.json").W, W)


@pytest.mark.parametrize("field,value,message", [
    ("columns", "", "columns: expected a list of column objects, got ''"),
    ("columns", "uv", "columns: expected a list of column objects, got 'uv'"),
    ("scaler", 5, "scaler: expected an object, got 5"),
    ("scaler", [], "scaler: expected an object, got a list of 0"),
    ("nodes", 5, "nodes: expected an object, got 5"),
    ("nodes", [], "nodes: expected an object, got a list of 0"),
])
def test_objects_of_the_wrong_type_are_named(tmp_path, field, value, message):
    # mutants: no type check of columns (a string iterated as columns: "" loaded a tree of no features), of
    # scaler or of nodes (5: a TypeError traceback; []: "field 'scaler.mean' is missing")
    doc = _doc()
    doc[field] = value
    _refused(tmp_path, doc, message)


# ---------------------------------------------------------------- generated Python, in a fresh interpreter

RUNNER = r"""
import importlib.util, json, math, sys
spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
out = []
for kind, row in json.loads(sys.argv[2]):
    row = [float(v[4:]) if isinstance(v, str) and v.startswith("NUM:") else None if v == "NONE" else v for v in row]
    if kind == "dict":
        row = dict(zip(mod.FEATURES, row))
    elif kind == "partial":
        row = dict(zip(mod.FEATURES[1:], row))
    try:
        out.append(["ok", mod.predict(row), mod.predict_proba(row), mod.apply(row), mod.decision_function(row)])
    except (ValueError, KeyError) as exc:
        out.append([type(exc).__name__, str(exc)])
print(json.dumps(out))
"""


def _run_module(tmp_path, tree: Tree, rows: list) -> list:
    """Export tree as Python, run it in a fresh, isolated interpreter on rows ([kind, values]); its answers."""
    from olctc.export.python import to_python

    path = tmp_path / "exported_tree.py"
    path.write_text(to_python(tree), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", RUNNER, str(path), json.dumps(rows)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _mixed_tree() -> Tree:
    """Depth 1 on a numeric column u and a categorical column c (categories a, b): score = 2u + 1 [c=a] - 3 [c=b]."""
    from olctc.data import Column, Schema

    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b"))))
    return Tree.from_arrays([[2.0, 1.0, -3.0]], [0.0], schema=schema, classes=("neg", "pos"))


def test_python_refuses_a_missing_category_and_a_wrong_row_length(tmp_path):
    # mutants: None read as the text "None" (no category: score 2u), NaN read as "nan"; a sequence of too many
    # values read by its first ones
    tree = _mixed_tree()
    out = _run_module(tmp_path, tree, [["seq", [1.0, "NONE"]], ["seq", [1.0, "NUM:nan"]], ["seq", [1.0, "a", 7.0]],
                                       ["seq", [1.0]], ["seq", [-1.0, "a"]], ["dict", [0.25, "zzz"]],
                                       ["partial", ["a"]]])
    assert out[0] == ["ValueError", "column 1 ('c') must be a category, got the missing value None"]
    assert out[1] == ["ValueError", "column 1 ('c') must be a category, got the missing value nan"]
    assert out[2] == ["ValueError", "expected 2 values in FEATURES order, got 3"]
    assert out[3] == ["ValueError", "expected 2 values in FEATURES order, got 1"]
    # the rows that are fine: score by hand, 2 * -1 + 1 = -1 and 2 * 0.25 = 0.5 (an unseen category adds nothing)
    for got, z in zip(out[4:6], (-1.0, 0.5)):
        p = 1 / (1 + np.exp(-z))
        assert got[0] == "ok" and got[1] == ("pos" if z > 0 else "neg") and got[3] == 0 and got[4] == z
        np.testing.assert_allclose(got[2], [1 - p, p], rtol=0, atol=1e-15)
    assert out[6] == ["KeyError", "\"missing input column(s): ['u']\""]


def test_python_routes_a_zero_score_left_and_to_the_negative_class(tmp_path):
    # mutants: the generated routing "< 0.0" (a score of exactly 0 went right), predict ">= 0.0"
    tree = Tree.from_arrays(np.zeros((3, 2)), np.zeros(3), classes=("no", "yes"))
    out = _run_module(tmp_path, tree, [["seq", [1.0, -2.0]], ["dict", [1e300, 0.0]]])
    assert [r[:2] + r[3:] for r in out] == [["ok", "no", 1, 0.0]] * 2
    assert [r[2] for r in out] == [[0.5, 0.5]] * 2


def test_python_one_category_column_keeps_its_own_feature(tmp_path):
    # mutant: the feature index not advanced after a one-category column, so the next column overwrote it
    from olctc.data import Column, Schema

    schema = Schema((Column("c", "categorical", ("only",)), Column("u", "numeric")))
    tree = Tree.from_arrays([[5.0, 1.0]], [-2.0], schema=schema, classes=(0, 1))
    out = _run_module(tmp_path, tree, [["seq", ["only", 0.5]], ["seq", ["other", 0.5]], ["dict", ["only", -4.0]]])
    assert [r[4] for r in out] == [5.0 + 0.5 - 2.0, 0.5 - 2.0, 5.0 - 4.0 - 2.0]
    assert [r[1] for r in out] == [1, 0, 0]


# ---------------------------------------------------------------- the registry (olctc.export)

def test_render_names_an_option_the_format_does_not_take():
    # mutant: render no longer checking options (json got table=...: a TypeError from the exporter)
    from olctc.export import render

    tree = Tree.from_arrays(W_RAW, B_RAW)
    with pytest.raises(OlctcError, match=r"^export option 'table' applies to format sql only; format json takes none$"):
        render(tree, "json", table="t")
    with pytest.raises(OlctcError, match=r"^export option 'tabel' is unknown; format sql takes table$"):
        render(tree, "sql", tabel="t")
    assert b'FROM "t"' in render(tree, "sql", table="t")


@pytest.mark.parametrize("fmt", ["python", "onnx", "text", "dot", "sql"])
def test_render_refuses_what_is_no_tree(fmt):
    # mutant: render no longer checking its tree (None: "'NoneType' object has no attribute ...")
    from olctc.export import render

    with pytest.raises(OlctcError, match="an olctc Tree"):
        render(None, fmt)


def test_export_reads_the_format_from_gv_and_refuses_png_on_standard_output(tmp_path):
    # mutants: ".gv" mapped to text instead of DOT, ".text" to json; png not in BINARY (a PNG written to
    # standard output as text)
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(_doc()))
    for name in ("tree.gv", "tree.text"):
        done = cli_here("export", path, "-o", tmp_path / name)
        assert done.returncode == 0, done.stderr
    dot = (tmp_path / "tree.gv").read_text()
    assert dot.startswith("digraph") and "n0 -> n1" in dot
    assert (tmp_path / "tree.text").read_text().startswith("olctc tree: depth 2, 2 features, classes neg / pos\n")
    done = cli_here("export", path, "--format", "png")
    assert done.returncode != 0 and done.stdout == ""
    assert "--format png writes binary data: give an output file with -o FILE" in done.stderr


@pytest.mark.parametrize("path", [None, b"tree.json"])
def test_export_tree_names_a_bad_path(tmp_path, monkeypatch, path):
    # mutant: export_tree no longer checking its path before the work (None, bytes: an error naming no parameter)
    from olctc.export import export_tree

    monkeypatch.chdir(tmp_path)
    with pytest.raises(OlctcError, match=r"^The 'path' parameter must be a file path \(a non-empty str or "
                                         r"os\.PathLike\)\. Got "):
        export_tree(Tree.from_arrays(W_RAW, B_RAW), "python", path)
    assert list(tmp_path.iterdir()) == []
