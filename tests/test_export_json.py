"""JSON export: exact round trips on every vendored data set, the documented schema, hostile input."""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.export.json import dump, load, loads, save
from olctc.tree import Tree
from test_tree import cases, dataset, greedy_tree, hostile_dataset, tree_for

SCHEMA_PATH = Path(__file__).resolve().parents[1] / "docs" / "tree-schema.json"


def _same(a: Tree, b: Tree) -> None:
    for field in ("W", "b", "node_n", "node_pos", "node_std", "W_raw", "b_raw"):
        x, y = getattr(a, field), getattr(b, field)
        assert x.dtype == y.dtype and x.tobytes() == y.tobytes(), field  # bitwise
    np.testing.assert_array_equal(a.scaler.mean, b.scaler.mean)
    np.testing.assert_array_equal(a.scaler.scale, b.scaler.scale)
    assert a.schema == b.schema
    assert a.classes == b.classes and [type(c) for c in a.classes] == [type(c) for c in b.classes]


@pytest.mark.parametrize("name,depth", cases())
def test_round_trip_is_exact(name, depth):
    tree, ds = tree_for(name, depth), dataset(name)
    text = dump(tree)
    back = load(text)
    _same(tree, back)
    assert back.meta == tree.meta
    assert dump(back) == text
    np.testing.assert_array_equal(back.predict(ds.X), tree.predict(ds.X))
    assert back.predict_proba(ds.X).tobytes() == tree.predict_proba(ds.X).tobytes()


def test_documented_schema_accepts_what_we_write():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for name, depth in [("heart", 2), ("tic-tac-toe", 3), ("ionosphere", 2)]:
        validator.validate(json.loads(dump(tree_for(name, depth))))
    bare = Tree.from_arrays([[1.0, 2.0]], [0.0])  # no training statistics: nulls
    validator.validate(json.loads(dump(bare)))
    doc = json.loads(dump(bare))
    doc["version"] = 2
    assert not validator.is_valid(doc)


def test_meta_is_made_strict_json():
    tree = Tree.from_arrays([[1.0]], [0.0], meta={"bound": float("inf"), "gap": np.float64(0.25),
                                                 "n": np.int64(3), "nodes": np.array([1, 2]), "t": (1, None)})
    doc = json.loads(dump(tree))
    assert doc["meta"] == {"bound": "inf", "gap": 0.25, "n": 3, "nodes": [1, 2], "t": [1, None]}


def test_meta_keys_alike_as_text_are_refused():
    """JSON's keys are text: meta {1: 'a', '1': 'b'} was saved holding one of the two, without a word."""
    for meta, keys in (({1: "a", "1": "b"}, "1 and '1', both written '1'"),
                       ({"cv": {"x": [{True: 1, "True": 2}]}}, "True and 'True', both written 'True'")):
        with pytest.raises(OlctcError, match=rf"^the tree's meta: expected keys that differ as text \(JSON's keys are "
                                             rf"text\), got {re.escape(keys)}$"):
            dump(Tree.from_arrays([[1.0]], [0.0], meta=meta))
    assert json.loads(dump(Tree.from_arrays([[1.0]], [0.0], meta={1: "a", "2": "b"})))["meta"] == {"1": "a", "2": "b"}


def test_save_and_load_paths(tmp_path, monkeypatch):
    tree = tree_for("heart", 2)
    path = tmp_path / "tree.json"
    save(tree, path)
    for source in (path, str(path), path.read_bytes()):
        _same(tree, load(source))
    assert [p.name for p in tmp_path.iterdir()] == ["tree.json"]  # no temporary left behind
    # Tree.load takes paths only: given the text, its message was the whole JSON, then "File name too long"
    with pytest.raises(OlctcError, match=r"^Tree.load takes a file path, and was given JSON text: read text with "
                                         r"olctc.load_tree\(text\)"):
        Tree.load(dump(tree))
    with pytest.raises(OlctcError, match=r"^The 'cls' parameter must be None or Tree \(or a subclass of it\)"):
        load(path, cls=int)  # a raw TypeError: int() takes at most 2 arguments (9 given)
    save(tree, tmp_path / "{odd}.json")  # a file whose name starts as JSON text does is still read
    monkeypatch.chdir(tmp_path)
    _same(tree, Tree.load("{odd}.json"))


def test_a_missing_file_named_like_json_text_is_called_missing(tmp_path, monkeypatch):
    """load("[v2] tree.json") of a missing file said "<string>: not valid JSON ... the file is corrupted or
    truncated". One line ending in .json is a file name; JSON text of one line still gets the JSON message."""
    monkeypatch.chdir(tmp_path)
    for name in ("[v2] tree.json", "{odd}.JSON"):
        with pytest.raises(OlctcError, match=rf"^{re.escape(name)}: no such file \(nor is it JSON text\)$"):
            load(name)
    with pytest.raises(OlctcError, match=r"^<string>: not valid JSON \(line 1 column 26: Expecting ':' delimiter"):
        load('{"a": [1, 2], "tree.json"')  # damaged JSON text of one line
    with pytest.raises(OlctcError, match=r"^<string>: not valid JSON \(line 2"):
        load("[1,\n x].json")


def test_hostile_names_round_trip_and_run_nothing(tmp_path):
    marker = tmp_path / "pwned"
    ds = hostile_dataset(str(marker))
    tree = greedy_tree(ds, 2)
    back = load(dump(tree))
    _same(tree, back)
    assert back.feature_names == tree.feature_names and len(back.feature_names[5]) == 10_000
    np.testing.assert_array_equal(back.predict(ds.X), tree.predict(ds.X))
    assert not marker.exists()


def _doc(tree_name="heart") -> dict:
    return json.loads(dump(tree_for(tree_name, 2)))


@pytest.mark.parametrize("edit", [
    lambda d: d.update(version=1.0), lambda d: d.update(depth=2.0), lambda d: d.update(depth=2.5),
    lambda d: d["nodes"].update(n=[float(v) for v in d["nodes"]["n"]]),
    lambda d: d["nodes"].update(n=[v + 0.5 for v in d["nodes"]["n"]]),
    lambda d: d["scaler"].update(center=0), lambda d: d["columns"][0].update(unit="mmHg"),
    lambda d: d["raw"].update(note="x"), lambda d: d["nodes"].update(extra=1), lambda d: d.update(extra=1),
    lambda d: d.update(meta={"any": ["thing"]}), lambda d: d.update(raw=None), lambda d: d.pop("raw"),
    lambda d: d.update(olctc_version=5), lambda d: d.pop("olctc_version"),
], ids=["version-1.0", "depth-2.0", "depth-2.5", "n-floats", "n-halves", "scaler-extra", "column-extra",
        "raw-extra", "nodes-extra", "top-extra", "meta-free", "raw-null", "raw-absent", "olctc_version-int",
        "olctc_version-absent"])
def test_loader_and_documented_schema_agree(tmp_path, edit):
    """A document is loadable exactly when the published schema says it is valid."""
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft202012Validator(json.loads(SCHEMA_PATH.read_text()))
    doc = _doc()
    edit(doc)
    try:
        load(_write(tmp_path, doc))
        loads_ok = True
    except OlctcError:
        loads_ok = False
    assert loads_ok == validator.is_valid(doc), [e.message for e in validator.iter_errors(doc)]


def _write(tmp_path, doc_or_text) -> Path:
    path = tmp_path / "bad.json"
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text))
    return path


@pytest.mark.parametrize("edit,message", [
    (lambda d: d.update(version=2), "unsupported olctc-tree version 2; this olctc reads version 1"),
    (lambda d: d.update(version="1"), "version: expected an integer, got '1'"),
    (lambda d: d.update(format="other"), "format: expected 'olctc-tree'"),
    (lambda d: d.pop("nodes"), "field 'nodes' is missing"),
    (lambda d: d["nodes"]["W"].pop(), "nodes.W: expected a list of 3 rows, got a list of 2"),
    (lambda d: d["nodes"]["W"][1].pop(), r"nodes.W\[1\]: expected a list of 13 numbers"),
    (lambda d: d["nodes"]["W"][2].__setitem__(4, "1.0"), r"nodes.W\[2\]\[4\]: expected a finite number, got '1.0'"),
    (lambda d: d["nodes"]["b"].append(0.0), "nodes.b: expected a list of 3 numbers"),
    (lambda d: d.update(depth=3), "nodes.W: expected a list of 7 rows"),
    (lambda d: d["nodes"].update(n=[1, 2, True]), r"nodes.n\[2\]: expected an integer, got true"),
    (lambda d: d["nodes"].update(pos=[10**6, 0, 0]),
     r"nodes.pos\[0\]: expected at most nodes.n\[0\] = \d+ positive points .*, got 1000000$"),
    (lambda d: d["nodes"]["n"].__setitem__(1, d["nodes"]["n"][0]),
     r"nodes.n\[1\] \+ nodes.n\[2\]: expected at most nodes.n\[0\] = \d+ \(the points reaching node 0, split "
     r"between its two child nodes\), got \d+$"),
    (lambda d: d["nodes"].update(pos=[0, 0, 0]) or d["nodes"]["n"].__setitem__(0, 0), r"nodes.n\[1\] \+ nodes.n\[2\]"),
    (lambda d: d["nodes"].update(n=[1, 2 ** 62, 2 ** 62], pos=[0, 0, 0]),  # int64's sum wraps to -2**63
     r"nodes.n\[1\] \+ nodes.n\[2\]: expected at most nodes.n\[0\] = 1 \(the points reaching node 0, split between "
     r"its two child nodes\), got 9223372036854775808$"),
    (lambda d: d["nodes"].update(pos=[1, 1, 1]),
     r"nodes.pos\[1\] \+ nodes.pos\[2\]: expected at most nodes.pos\[0\] = 1 "),
    (lambda d: d["nodes"]["W"][0].__setitem__(0, 10 ** 400), r"nodes.W\[0\]\[0\]: expected a finite number, got 1000"),
    (lambda d: d["scaler"]["mean"].__setitem__(1, -10 ** 309), r"scaler.mean\[1\]: expected a finite number"),
    (lambda d: d.update(version=10 ** 400), r"unsupported olctc-tree version 1000.{50,60}; this olctc"),
    (lambda d: d.update(raw=None), "raw: expected an object, got null"),
    (lambda d: d.update(olctc_version=5),
     r"olctc_version: expected a string \(the olctc version that wrote the file\), got 5"),
    (lambda d: d["scaler"]["scale"].__setitem__(0, 0.0), "scaler.scale: expected positive numbers"),
    (lambda d: d.update(classes=[0]), "classes: expected a list of two labels"),
    (lambda d: d.update(classes=[1, 1]), "the two classes must differ"),
    (lambda d: d["columns"][0].update(kind="date"), r"columns\[0\].kind: expected 'numeric' or 'categorical'"),
    (lambda d: d["feature_names"].reverse(), r"feature_names\[0\]: expected 'age', as the columns encode, got 'thal'"),
    (lambda d: d["feature_names"].pop(), "feature_names: expected the 13 names the columns encode, got a list of 12"),
    (lambda d: d.update(classes=[False, True]), r"classes\[0\]: expected a label \(a number or a string\), got false"),
    (lambda d: d["columns"][1].update(name="age", kind="categorical", categories=["0", "1"]),
     r"columns\[1\].name: expected a name no other column has \(unless both are numeric\), got 'age'"),
    (lambda d: d["raw"]["b"].__setitem__(0, 123.0), "raw.W/raw.b disagree"),
    (lambda d: d.update(code="__import__('os')"), "top level: expected only the fields"),
    (lambda d: d.update(meta=[1]), "meta: expected an object"),
])
def test_bad_documents_are_rejected_with_the_file_and_field(tmp_path, edit, message):
    doc = _doc()
    edit(doc)
    path = _write(tmp_path, doc)
    with pytest.raises(OlctcError, match=message) as err:
        load(path)
    assert str(err.value).startswith(str(path))


@pytest.mark.parametrize("text,message", [
    ("", "not valid JSON"),
    ("{", "not valid JSON \\(line 1 column 2"),
    ('{"format": "olctc-tree", "version": NaN}', "NaN is not valid JSON"),
    ("[1, 2]", "top level: expected a JSON object"),
    ("null", "top level: expected a JSON object"),
])
def test_corrupted_json_is_rejected(tmp_path, text, message):
    path = _write(tmp_path, text)
    with pytest.raises(OlctcError, match=message) as err:
        load(path)
    assert str(path) in str(err.value)


def test_truncated_and_non_utf8_files(tmp_path):
    text = dump(tree_for("heart", 2))
    path = _write(tmp_path, text[: len(text) // 2])
    with pytest.raises(OlctcError, match="not valid JSON .* corrupted or truncated"):
        load(path)
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(OlctcError, match="not UTF-8"):
        load(path)
    with pytest.raises(OlctcError, match="no such file"):
        load(tmp_path / "missing.json")
    with pytest.raises(OlctcError, match="is a folder"):
        load(tmp_path)


def test_infinite_numbers_are_rejected():
    d = json.loads(dump(tree_for("heart", 2)))
    d["nodes"]["b"][0] = "HUGE"
    # 1e999 is valid JSON syntax but overflows to inf: validation catches it
    text = json.dumps(d).replace('"HUGE"', "1e999")
    with pytest.raises(OlctcError, match=r"nodes.b\[0\]: expected a finite number, got inf"):
        loads(text)
    with pytest.raises(OlctcError, match="Infinity is not valid JSON"):
        loads(text.replace("1e999", "-Infinity"))


def _encoded_names(doc: dict) -> list[str]:
    return [f"{c['name']}={k}" if c["kind"] == "categorical" else c["name"]
            for c in doc["columns"] for k in c.get("categories", [None])]


def test_lone_surrogates_are_refused_with_the_file_and_name(tmp_path):
    # JSON may spell a lone surrogate ("\ud800"), which no UTF-8 file holds: such a tree loaded, then
    # `export --format json/onnx` ended in a UnicodeEncodeError traceback.
    doc = _doc("tic-tac-toe")
    doc["columns"][0]["name"] = "a\ud800b"
    doc["feature_names"] = _encoded_names(doc)
    doc.pop("raw")
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # ensure_ascii spells it \ud800
    with pytest.raises(OlctcError, match=r"surrogate.json: the name of column 0, 'a\\ud800b', is not valid "
                                         r"Unicode text \(it holds a lone surrogate\)$"):
        load(path)
    doc = _doc("tic-tac-toe")
    doc["columns"][2]["categories"][0] = "\udc80"
    doc["feature_names"] = _encoded_names(doc)
    with pytest.raises(OlctcError, match=r"category '\\udc80' of column 'top_right'"):
        load(_write(tmp_path, doc))
    doc = _doc()
    doc["classes"] = ["no", "yes\ud800"]
    with pytest.raises(OlctcError, match=r"the positive class 'yes\\ud800' is not valid Unicode"):
        load(_write(tmp_path, doc))
    # a tree built in Python with such a label: the JSON writer says so instead of a traceback
    tree = Tree.from_arrays([[1.0, 2.0]], [0.5], classes=("no", "yes\ud800"))
    with pytest.raises(OlctcError, match=r"positive class 'yes\\ud800' .*which a JSON file cannot store"):
        save(tree, tmp_path / "t.json")
    with pytest.raises(OlctcError, match=r"meta holds text that is not valid Unicode"):
        dump(Tree.from_arrays([[1.0]], [0.5], meta={"note": "\udc80"}))
    assert not list(tmp_path.glob("t.json")) and not list(tmp_path.glob(".t.json*"))
