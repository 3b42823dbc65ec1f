"""QA: tree JSON files from somewhere untrusted, or edited by hand.

A tree file may come from a colleague, a download or a text editor. Two promises are checked here:

- hostile text in a *valid* file (column names, categories, class labels holding quotes, backslashes,
  line breaks, U+2028, NUL, comment starters, SQL, DOT, HTML and format-string syntax) stays data in every
  artifact: the generated Python module runs nothing when imported in a fresh ``python -I -S``, the SQL is
  one statement that sqlite3 runs without touching anything else, DOT stays well formed, SVG parses as XML,
  and every exporter still agrees with ``Tree.predict`` / ``predict_proba``;
- a *bad* file (wrong types, non-finite numbers, wrong lengths, wrong depth, wrong top level, deep nesting,
  BOM, bad bytes, duplicate keys) is one ``OlctcError`` naming the field (CLI: exit 2, one line on stderr,
  no traceback, no output file), and never allocates by the declared depth.

Trees are built directly from arrays or edited JSON (no solver), so the file runs in a few seconds.
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import tracemalloc
import warnings
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import olctc
from olctc.errors import OlctcError
from olctc.export import render
from olctc.export.json import dump, load, loads
from olctc.export.python import to_python
from olctc.export.sql import table_parts, to_sql
from olctc.tree import Tree

SEED = 20261128
MARKER_NAME = "pwned_marker"

# Text that means something in one of the artifacts' languages (Python, SQL, DOT, XML/SVG, format strings,
# terminals); each is a column name, a category or a class label below.
HOSTILE = [
    '"""', "'''", "\\", "a\\", "line\nbreak", "cr\rret", "ls\u2028ps\u2029", "# hash", "-- dash", "/* open",
    "close */", "semi; DROP TABLE olctc_input; --", "it's", 'say "hi"', "`tick`", "${HOME}", "{0}{x!r}",
    '"]; a -> b [label="x', "<script>alert(1)</script>", "&amp; &lt;", "]]>", "\x1b[31mred", "tab\there",
    "é🌳", "\\N\\G\\l",
]


def _inject(marker: str) -> list[str]:
    """Strings that would create ``marker`` if any artifact ever executed them as code."""
    return [
        f"__import__('pathlib').Path({marker!r}).touch()",
        f"'); __import__('pathlib').Path({marker!r}).touch() #",
        f'"""\n__import__("pathlib").Path({marker!r}).touch()\n"""',
        f"x\n__import__('pathlib').Path({marker!r}).touch()\n#",
        f"x\u2028__import__('pathlib').Path({marker!r}).touch()",
        f"x\r__import__('pathlib').Path({marker!r}).touch()",
        f"\\\n__import__('pathlib').Path({marker!r}).touch()",
    ]


# ---------------------------------------------------------------- building trees from JSON text

def _doc(cols: list[dict], classes: list, depth: int = 2, seed: int = SEED, stats: bool = True) -> dict:
    """A valid olctc-tree document with random weights, written as a colleague's editor would (no raw)."""
    rng = np.random.default_rng(seed)
    names = [c["name"] if c["kind"] == "numeric" else f"{c['name']}={k}"
             for c in cols for k in (c.get("categories") or [None])]
    p, n = len(names), 2 ** depth - 1
    doc = {
        "format": "olctc-tree", "version": 1, "olctc_version": "0.0.0", "depth": depth, "classes": classes,
        "columns": cols, "feature_names": names,
        "scaler": {"mean": rng.normal(size=p).tolist(), "scale": rng.uniform(0.5, 2.0, size=p).tolist()},
        "nodes": {"W": rng.normal(size=(n, p)).tolist(), "b": rng.normal(scale=0.3, size=n).tolist()},
        "meta": {"note": "hand-made"},
    }
    if stats:
        # 50 training points at each last-layer node, split evenly: each node counts its two child nodes' sum
        counts = [25 * 2 ** (depth - int(np.log2(k + 1))) for k in range(n)]
        doc["nodes"].update(n=counts, pos=[c // 2 for c in counts], std=np.ones((n, p)).tolist())
    return doc


def _hostile_doc(marker: str, *, sql_safe: bool = False) -> dict:
    """Numeric columns named by HOSTILE and injection strings, one categorical column whose categories are
    hostile too, hostile class labels. ``sql_safe``: no NUL (SQL cannot hold one), no line break in a category or
    label (the SQL export refuses them: a file's line endings would change them)."""
    names = HOSTILE + _inject(marker)
    if not sql_safe:
        names = names + ["nul\x00char"]
    cols = [{"name": nm, "kind": "numeric"} for nm in names]
    cats = ["plain", "it's", 'a"b', "\\", "x\ny", "\u2028", "]]>", "<b>", "--", "{}"] + _inject(marker)[:2]
    classes = [_inject(marker)[1], "'); DROP TABLE olctc_input; --\n<script>&"]
    if sql_safe:
        cats[4], classes[1] = "x\ty", classes[1].replace("\n", "\t")
    cols.append({"name": "hostile category column", "kind": "categorical", "categories": cats})
    return _doc(cols, classes, depth=3)


def _rows(tree: Tree, n: int = 80, seed: int = SEED) -> tuple[list[dict], np.ndarray]:
    """n raw rows (column -> value) and their encoded matrix."""
    rng = np.random.default_rng(seed)
    rows = []
    for _ in range(n):
        row = {}
        for col in tree.schema.columns:
            if col.kind == "numeric":
                row.setdefault(col.name, float(rng.normal(scale=2.0)))
            else:
                cats = list(col.categories) + ["unseen value"]
                row[col.name] = cats[int(rng.integers(len(cats)))]
        rows.append(row)
    X = tree.encode({c.name: [r[c.name] for r in rows] for c in tree.schema.columns})
    return rows, X


def _from_text(tmp_path, doc: dict) -> Tree:
    """The document written to a file and loaded back, as `olctc export` would read it."""
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return load(path)


# ---------------------------------------------------------------- injection: Python module

_RUNNER = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("hostile_tree", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
rows = json.load(open(sys.argv[2], encoding="utf-8"))
out = {"features": mod.FEATURES, "classes": mod.CLASSES,
       "pred": [mod.predict(r) for r in rows], "proba": [mod.predict_proba(r) for r in rows]}
sys.stdout.write(json.dumps(out))
"""


def test_python_module_of_a_hostile_file_runs_nothing_and_agrees(tmp_path):
    marker = tmp_path / MARKER_NAME
    tree = _from_text(tmp_path, _hostile_doc(str(marker)))
    src = to_python(tree)
    compile(src, "hostile_tree.py", "exec")
    module = tmp_path / "hostile_tree.py"
    module.write_bytes(render(tree, "python"))
    rows, X = _rows(tree)
    (tmp_path / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "runner.py").write_text(_RUNNER, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-I", "-S", str(tmp_path / "runner.py"), str(module),
                           str(tmp_path / "rows.json")], capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    out = json.loads(proc.stdout)
    assert out["features"] == [c.name for c in tree.schema.columns]
    assert out["classes"] == list(tree.classes)
    assert out["pred"] == tree.predict(X).tolist()
    np.testing.assert_allclose(out["proba"], tree.predict_proba(X), rtol=0, atol=1e-12)
    assert set(out["pred"]) == set(tree.classes)  # both hostile labels came out, as data


def test_python_module_comments_and_docstring_cannot_be_closed_by_names(tmp_path):
    tree = _from_text(tmp_path, _hostile_doc(str(tmp_path / MARKER_NAME)))
    src = to_python(tree)
    import ast

    module = ast.parse(src)
    # the only top-level statements are ours: docstring, import math, assignments and function definitions
    kinds = [type(n).__name__ for n in module.body]
    assert set(kinds) <= {"Expr", "Import", "Assign", "FunctionDef"}
    assert kinds.count("Expr") == 1  # the module docstring, nothing a name opened
    assert all(not isinstance(n, ast.Call) for n in ast.walk(module.body[0]))
    # every string constant in the module is ours or one of the tree's texts
    texts = {c.name for c in tree.schema.columns} | {k for c in tree.schema.columns for k in c.categories}
    texts |= {c for c in tree.classes if isinstance(c, str)}
    consts = {n.value for n in ast.walk(module) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    assert texts <= consts
    # no physical line of the source holds a line separator outside a literal: splitlines() == ast's lines
    assert all("\u2028" not in line and "\r" not in line and "\x00" not in line for line in src.split("\n"))


# ---------------------------------------------------------------- injection: SQL

def _sqlite_scores(tree: Tree, rows: list[dict], sql: str):
    con = sqlite3.connect(":memory:")
    names = list(dict.fromkeys(c.name for c in tree.schema.columns))
    con.execute("CREATE TABLE olctc_input (" + ", ".join('"' + n.replace('"', '""') + '"' for n in names) + ")")
    con.execute("CREATE TABLE canary (v)")
    con.execute("INSERT INTO canary VALUES (1)")
    con.executemany("INSERT INTO olctc_input VALUES (" + ", ".join("?" * len(names)) + ")",
                    [[r[n] for n in names] for r in rows])
    cur = con.execute(sql)  # sqlite3 refuses more than one statement in execute()
    cols = [d[0] for d in cur.description]
    out = [dict(zip(cols, r)) for r in cur.fetchall()]
    tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"olctc_input", "canary"}
    assert con.execute("SELECT COUNT(*) FROM olctc_input").fetchone()[0] == len(rows)
    return out


def test_sql_of_a_hostile_file_is_one_safe_query_that_agrees(tmp_path):
    tree = _from_text(tmp_path, _hostile_doc(str(tmp_path / MARKER_NAME), sql_safe=True))
    sql = to_sql(tree)
    assert sqlite3.complete_statement(sql)
    body = sql.rstrip().rstrip(";")
    assert not sqlite3.complete_statement(body)  # the only statement end is the last character
    rows, X = _rows(tree)
    out = _sqlite_scores(tree, rows, sql)
    assert [r["olctc_label"] for r in out] == tree.predict(X).tolist()
    np.testing.assert_allclose([r["olctc_proba"] for r in out], tree.predict_proba(X)[:, 1], rtol=0, atol=1e-12)
    # every input column comes back whole, hostile names and values included
    for r, src in zip(out, rows):
        for name, v in src.items():
            assert r[name] == v


@pytest.mark.parametrize("where", ["category", "label"])
@pytest.mark.parametrize("brk", ["\n", "\r"])
def test_sql_refuses_a_line_break_in_a_category_or_label(where, brk):
    # the literal 'p\nq' became 'p\r\nq' when the file's line endings were changed (unix2dos, git autocrlf), and
    # SQLite silently scored such rows as another category (0.995 -> 0.024)
    from olctc.tree import Column, Scaler, Schema

    cats, classes = ("p" + brk + "q", "z") if where == "category" else ("p", "z"), ("n", "y")
    if where == "label":
        classes = ("n", "y" + brk + "es")
    tree = Tree(np.array([[1.0, -1.0]]), np.array([0.0]), Scaler.identity(2),
                Schema((Column("c", "categorical", cats),)), classes)
    with pytest.raises(OlctcError, match=r"^(category 'p\\[nr]q' of column 'c'|the positive class 'y\\[nr]es') "
                                         r"holds a line break, which the query would compare as written"):
        to_sql(tree)
    render(tree, "python")  # the other exports take it
    tree.schema, tree.classes = Schema((Column("c" + brk + "d", "categorical", ("p", "z")),)), ("n", "y")
    assert "c" + brk + "d" in to_sql(tree)  # a column name so changed fails loudly: no such column


def test_sql_of_a_file_with_a_nul_is_refused_not_truncated(tmp_path):
    tree = _from_text(tmp_path, _hostile_doc(str(tmp_path / MARKER_NAME)))
    with pytest.raises(OlctcError, match="NUL"):
        to_sql(tree)


@pytest.mark.parametrize("table", ['"x""; DROP TABLE canary; --"', ['x"; DROP TABLE canary; --'], "main.olctc_input"])
def test_sql_table_option_with_hostile_text_reads_that_table_only(tmp_path, table):
    tree = _from_text(tmp_path, _doc([{"name": "a", "kind": "numeric"}, {"name": "b", "kind": "numeric"}],
                                     ["no", "yes"]))
    rows, X = _rows(tree)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE canary (v)")
    quoted = ".".join('"' + s.replace('"', '""') + '"' for s in table_parts(table))
    con.execute(f"CREATE TABLE {quoted} (a, b)")
    con.executemany(f"INSERT INTO {quoted} VALUES (?, ?)", [[r["a"], r["b"]] for r in rows])
    out = con.execute(to_sql(tree, table=table)).fetchall()
    assert [r[-1] for r in out] == tree.predict(X).tolist()
    assert {r[0] for r in con.execute("SELECT name FROM sqlite_master")} >= {"canary"}


# ---------------------------------------------------------------- injection: DOT, SVG, text, explain

_DOT_LINE = re.compile(r'^  (?:n\d+|c\d+_(?:neg|pos)) \[label="(?:[^"\\]|\\.)*"(?:, [a-z]+=(?:"[^"]*"|[a-z]+))*\];$'
                       r'|^  n\d+ -> (?:n\d+|c\d+_(?:neg|pos)) \[label="(?:<= 0|> 0)"\];$')


def test_dot_of_a_hostile_file_keeps_its_structure(tmp_path):
    tree = _from_text(tmp_path, _hostile_doc(str(tmp_path / MARKER_NAME)))
    dot = render(tree, "dot").decode("utf-8")
    lines = dot.split("\n")
    assert lines[0] == "digraph olctc_tree {" and lines[-2] == "}" and lines[-1] == ""
    body = lines[4:-2]
    bad = [line for line in body if not _DOT_LINE.match(line)]
    assert not bad, bad[:3]
    n_last = 2 ** (tree.depth - 1)
    assert sum(" -> " in line for line in body) == 2 * (tree.n_nodes - n_last) + 2 * n_last
    assert sum(" -> " not in line for line in body) == tree.n_nodes + 2 * n_last
    assert not any(ch in dot for ch in "\r\x00\x1b\u2028\u2029")


def test_svg_of_a_hostile_file_is_xml_without_active_content(tmp_path):
    tree = _from_text(tmp_path, _hostile_doc(str(tmp_path / MARKER_NAME)))
    svg = render(tree, "svg")
    root = ET.fromstring(svg)
    tags = {el.tag.split("}")[-1] for el in root.iter()}
    assert not tags & {"script", "foreignObject", "iframe"}
    for el in root.iter():
        assert not any(k.lower().startswith("on") for k in el.attrib)
    assert b"<script" not in svg


def test_text_export_of_a_hostile_file_is_printable_lines(tmp_path):
    tree = _from_text(tmp_path, _hostile_doc(str(tmp_path / MARKER_NAME)))
    text = render(tree, "text").decode("utf-8")
    assert all(line.isprintable() for line in text.split("\n"))
    n_lines = len(text.split("\n"))
    assert text.count("|--- score") == 2 * tree.n_nodes and n_lines < 10 * tree.n_nodes + 20


def test_onnx_of_a_hostile_file_agrees(tmp_path):
    pytest.importorskip("onnxruntime")
    from olctc.export.onnx import session

    doc = _hostile_doc(str(tmp_path / MARKER_NAME), sql_safe=True)  # ONNX input names hold no NUL
    tree = _from_text(tmp_path, doc)
    rows, X = _rows(tree, n=40)
    sess = session(render(tree, "onnx"))
    feed = {}
    for col in tree.schema.columns:
        vals = [r[col.name] for r in rows]
        feed[col.name] = (np.asarray(vals, dtype=np.float64) if col.kind == "numeric"
                          else np.asarray(vals, dtype=object)).reshape(-1, 1)
    label, proba = sess.run(None, feed)
    assert label.tolist() == [str(c) for c in tree.predict(X).tolist()]
    np.testing.assert_allclose(proba, tree.predict_proba(X), rtol=0, atol=1e-12)


def _cli(args: list, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=60, env={**os.environ, "PYTHONWARNINGS": "ignore"})


def _ansi_tree_files(tmp_path, label_break: str = "\n") -> tuple[Tree, np.ndarray]:
    """tree.json whose names and labels hold ANSI escapes, CR, U+2028 and a line break (``label_break``, in a
    label: the SQL export refuses one there); data.csv of 5 rows."""
    import csv

    cols = [{"name": "\x1b[2Jclear", "kind": "numeric"}, {"name": "a\rb", "kind": "numeric"},
            {"name": "c\u2028d", "kind": "numeric"}]
    tree = _from_text(tmp_path, _doc(cols, ["\x1b[31mred", f"ok{label_break}line"]))
    rows, X = _rows(tree, n=5)
    with open(tmp_path / "data.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([c["name"] for c in cols])
        for r in rows:
            w.writerow([repr(r[c["name"]]) for c in cols])
    return tree, X


def test_cli_explain_of_a_hostile_file_prints_no_control_characters(tmp_path):
    _ansi_tree_files(tmp_path)
    res = _cli(["explain", tmp_path / "tree.json", "--data", tmp_path / "data.csv", "--row", 1], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "\\x1b[2Jclear" in res.stdout  # shown escaped, as text
    assert not any(ch in res.stdout for ch in "\x1b\r\u2028")


def test_cli_predict_to_a_file_keeps_hostile_labels(tmp_path):
    import csv

    tree, X = _ansi_tree_files(tmp_path)
    out = tmp_path / "pred.csv"
    res = _cli(["predict", tmp_path / "tree.json", tmp_path / "data.csv", "--proba", "-o", out], tmp_path)
    assert res.returncode == 0, res.stderr
    with open(out, newline="", encoding="utf-8") as fh:
        got = list(csv.reader(fh))
    assert got[0] == ["prediction"] + [f"proba_{c}" for c in tree.classes]
    assert [r[0] for r in got[1:]] == tree.predict(X).tolist()


@pytest.mark.parametrize("command", ["export sql", "predict"])
def test_cli_stdout_is_the_same_bytes_as_the_file(tmp_path, command):
    _ansi_tree_files(tmp_path, "\u2028" if command == "export sql" else "\n")
    tree_path, out = tmp_path / "tree.json", tmp_path / "out.txt"
    if command == "export sql":
        args = ["export", tree_path, "--format", "sql"]
        to_file = ["-o", tmp_path / "out.sql"]
        out = tmp_path / "out.sql"
    else:
        args = ["predict", tree_path, tmp_path / "data.csv"]
        to_file = ["-o", tmp_path / "out.csv"]
        out = tmp_path / "out.csv"
    piped = _cli(args, tmp_path)
    assert piped.returncode == 0, piped.stderr
    assert _cli(args + to_file, tmp_path).returncode == 0
    assert piped.stdout == out.read_text(encoding="utf-8")


# ---------------------------------------------------------------- good but unusual files

def _base() -> dict:
    return _doc([{"name": "a", "kind": "numeric"}, {"name": "b", "kind": "numeric"},
                 {"name": "c", "kind": "categorical", "categories": ["x", "y", ""]}], [0, 1])


def _unusual(name: str) -> dict:
    d = _base()
    n, p = len(d["nodes"]["b"]), len(d["feature_names"])
    if name == "integers and -0.0 everywhere":
        d["nodes"]["W"] = [[int(v * 3) for v in row] for row in d["nodes"]["W"]]
        d["nodes"]["W"][0][0] = -0.0
        d["nodes"]["b"] = [-0.0] * n
        d["scaler"]["mean"] = [0] * p
        d["scaler"]["scale"] = [1] * p
    elif name == "no stats, no meta, no raw":
        for k in ("n", "pos", "std"):
            d["nodes"].pop(k)
        d.pop("meta")
    elif name == "n without pos, null std":
        d["nodes"].pop("pos")
        d["nodes"]["std"] = None
    elif name == "all-zero weights":
        d["nodes"]["W"] = [[0.0] * p for _ in range(n)]
    elif name == "subnormal and huge numbers":
        d["nodes"]["W"][0][0] = 5e-324
        d["nodes"]["W"][1][1] = 1e-300
        d["scaler"]["scale"][0] = 1e300
        d["nodes"]["b"][2] = 1e-310
    elif name == "float labels and float counts":
        d["classes"] = [0.5, -2.25]
        d["nodes"]["n"] = [float(c) for c in d["nodes"]["n"]]
        d["version"] = 1.0
        d["depth"] = 2.0
    elif name == "depth 1":
        d = _doc(d["columns"], ["neg", "pos"], depth=1)
    elif name == "two numeric columns of one name":
        d = _doc([{"name": "a", "kind": "numeric"}, {"name": "a", "kind": "numeric"},
                  {"name": "c", "kind": "categorical", "categories": ["x", "y"]}], ["n", "p"])
    return d


UNUSUAL = ["integers and -0.0 everywhere", "no stats, no meta, no raw", "n without pos, null std",
           "all-zero weights", "subnormal and huge numbers", "float labels and float counts", "depth 1"]


@pytest.mark.parametrize("name", UNUSUAL)
def test_unusual_valid_files_work_in_every_exporter(tmp_path, name):
    tree = _from_text(tmp_path, _unusual(name))
    rows, X = _rows(tree, n=40)
    pred, proba = tree.predict(X).tolist(), tree.predict_proba(X)
    ns: dict = {}
    exec(compile(to_python(tree), "m", "exec"), ns)
    assert [ns["predict"](r) for r in rows] == pred
    np.testing.assert_allclose([ns["predict_proba"](r) for r in rows], proba, rtol=0, atol=1e-12)
    out = _sqlite_scores(tree, rows, to_sql(tree))
    assert [r["olctc_label"] for r in out] == pred
    np.testing.assert_allclose([r["olctc_proba"] for r in out], proba[:, 1], rtol=0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fmt in ("text", "dot", "json"):
            render(tree, fmt)
    again = loads(dump(tree))
    assert np.array_equal(again.W, tree.W) and again.classes == tree.classes


# ---------------------------------------------------------------- bad files: API

def _hab() -> dict:
    return _doc([{"name": "age", "kind": "numeric"}, {"name": "year", "kind": "numeric"},
                 {"name": "nodes", "kind": "numeric"}], [1, 2])


def _set(path: str, value):
    def edit(d):
        *head, last = path.split(".")
        for k in head:
            d = d[int(k)] if isinstance(d, list) else d[k]
        if isinstance(d, list):
            d[int(last)] = value
        else:
            d[last] = value
    return edit


BAD_DOCS = [
    # (edit, expected words in the message)
    (_set("depth", 0), "depth: expected an integer in [1, 30], got 0"),
    (_set("depth", -3), "depth: expected an integer in [1, 30], got -3"),
    (_set("depth", 60), "depth: expected an integer in [1, 30], got 60"),
    (_set("depth", 2.5), "depth: expected an integer in [1, 30], got 2.5"),
    (_set("depth", True), "depth: expected an integer in [1, 30], got true"),
    (_set("depth", "2"), "depth: expected an integer in [1, 30], got '2'"),
    (_set("depth", [2]), "depth: expected an integer in [1, 30], got a list of 1"),
    (_set("version", 1.5), "version: expected an integer, got 1.5"),
    (_set("version", 0), "unsupported olctc-tree version 0"),
    (_set("version", 10 ** 30), "written by a newer olctc"),
    (_set("format", "olctc-tree\x00"), "format: expected 'olctc-tree'"),
    (_set("classes", [1, 2, 3]), "classes: expected a list of two labels"),
    (_set("classes", ["1", 1]), "classes: expected two labels that differ as text"),
    (_set("classes", [None, 1]), "classes[0]: expected a label"),
    (_set("classes", [{"a": 1}, 1]), "classes[0]: expected a label"),
    (_set("classes", "ab"), "classes: expected a list of two labels"),
    (_set("scaler.mean.0", "0.5"), "scaler.mean[0]: expected a finite number, got '0.5'"),
    (_set("scaler.mean.1", [0.5]), "scaler.mean[1]: expected a finite number, got a list of 1"),
    (_set("scaler.scale.2", -1.0), "scaler.scale: expected positive numbers, got -1.0"),
    (_set("scaler.scale.2", -0.0), "scaler.scale: expected positive numbers, got -0.0"),
    (_set("scaler.scale.0", 1e-320), "the weights on the raw features"),
    (_set("scaler.mean.0", 1e308), "the weights on the raw features"),
    (_set("scaler.scale", [1.0, 1.0]), "scaler.scale: expected a list of 3 numbers, got a list of 2"),
    (_set("scaler.extra", 1), "scaler: expected only the fields mean, scale"),
    (_set("nodes.W.0.0", True), "nodes.W[0][0]: expected a finite number, got true"),
    (_set("nodes.W.1", [[1.0, 2.0, 3.0]]), "nodes.W[1]: expected a list of 3 numbers, got a list of 1"),
    (_set("nodes.W", {"0": [1, 2, 3]}), "nodes.W: expected a list of 3 rows, got an object"),
    (_set("nodes.b.2", None), "nodes.b[2]: expected a finite number, got null"),
    (_set("nodes.n.0", 1.5), "nodes.n[0]: expected an integer, got 1.5"),
    (_set("nodes.n.0", 2 ** 63), "nodes.n[0]: expected an integer"),
    (_set("nodes.n.1", -1), "nodes.n: expected non-negative numbers"),
    (_set("nodes.std.0.0", -0.5), "nodes.std: expected non-negative numbers"),
    (_set("nodes.leaf", [1]), "nodes: expected only the fields W, b, n, pos, std"),
    (_set("columns.0.name", ""), "columns[0].name: expected a non-empty string, got ''"),
    (_set("columns.0.name", 5), "columns[0].name: expected a non-empty string, got 5"),
    (_set("columns.0.categories", ["x"]), "columns[0].categories: expected no categories for a numeric column"),
    (_set("columns.0.type", "numeric"), "columns[0]: expected only the fields name, kind, categories"),
    (_set("columns", {"age": "numeric"}), "columns: expected a list of column objects, got an object"),
    (_set("feature_names", ["age", "age", "nodes"]), "feature_names[1]: expected 'year'"),
    (_set("meta", "x"), "meta: expected an object, got 'x'"),
    (_set("raw", [1]), "raw: expected an object, got a list of 1"),
    (_set("exec", "print(1)"), "top level: expected only the fields"),
]


@pytest.mark.parametrize("edit,message", BAD_DOCS, ids=[m[:40] for _, m in BAD_DOCS])
def test_bad_file_is_one_error_naming_the_field(tmp_path, edit, message):
    d = _hab()
    edit(d)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d), encoding="utf-8")
    with pytest.raises(OlctcError) as err:
        load(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith(str(path)), text
    assert message in text, text


@pytest.mark.parametrize("categories,message", [
    (["x", "x"], "distinct categories"), ([], "a non-empty list of strings"), ([1, 2], "a non-empty list of strings"),
    ("xy", "a non-empty list of strings"), (None, "a non-empty list of strings"),
])
def test_bad_categories(tmp_path, categories, message):
    d = _doc([{"name": "c", "kind": "categorical", "categories": ["x", "y"]}], ["a", "b"])
    d["columns"][0]["categories"] = categories
    with pytest.raises(OlctcError, match=re.escape(message)):
        _from_text(tmp_path, d)


@pytest.mark.parametrize("literal,message", [
    ("NaN", "NaN is not valid JSON"), ("Infinity", "Infinity is not valid JSON"),
    ("-Infinity", "-Infinity is not valid JSON"), ("1e309", "expected a finite number, got inf"),
    ("-1e309", "expected a finite number, got -inf"),
])
@pytest.mark.parametrize("field", ["nodes.b", "scaler.mean", "scaler.scale"])
def test_non_finite_literals_are_refused(field, literal, message):
    d = _hab()
    _set(field + ".1", "@@")(d)
    text = json.dumps(d).replace('"@@"', literal)
    with pytest.raises(OlctcError, match=re.escape(message)) as err:
        loads(text)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("text,message", [
    ("[]", "top level: expected a JSON object, got a list of 0"),
    ("42", "top level: expected a JSON object, got 42"),
    ('"olctc-tree"', "top level: expected a JSON object"),
    ("null", "top level: expected a JSON object, got null"),
    ("[" * 200_000 + "]" * 200_000, "not valid JSON"),
    ('{"a": ' * 200_000 + "1" + "}" * 200_000, "not valid JSON"),
    ('{"format": "olctc-tree", "version": 1, "depth": ' + "9" * 5000 + "}", "not valid JSON"),
    ("name,age\n1,2\n", "not an olctc tree file"),
])
def test_odd_top_levels_and_deep_nesting(tmp_path, text, message):
    path = tmp_path / "odd.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(OlctcError, match=re.escape(message)) as err:
        load(path)
    assert "\n" not in str(err.value) and len(str(err.value)) < 400


def test_depth_of_a_huge_tree_allocates_nothing_by_the_depth(tmp_path):
    for depth in (30, 29, 60, 10 ** 6):
        d = _hab()
        d["depth"] = depth
        tracemalloc.start()
        with pytest.raises(OlctcError, match="depth: expected an integer in|nodes.W: expected a list of"):
            loads(json.dumps(d))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 5_000_000, (depth, peak)


def test_bom_file_loads_and_bad_bytes_are_refused(tmp_path):
    text = json.dumps(_hab())
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load(path).classes == (1, 2)
    assert loads(b"\xef\xbb\xbf" + text.encode("utf-8")).classes == (1, 2)
    path.write_bytes(text.encode("utf-8").replace(b'"age"', b'"a\xc3ge"'))
    with pytest.raises(OlctcError, match="not UTF-8 text"):
        load(path)
    path.write_bytes(text.encode("utf-16"))
    with pytest.raises(OlctcError, match="not UTF-8 text"):
        load(path)


def test_lone_surrogate_label_is_refused(tmp_path):
    d = _hab()
    d["classes"] = ["ok", "@@"]
    text = json.dumps(d).replace('"@@"', '"\\udc80"')
    with pytest.raises(OlctcError, match="lone surrogate"):
        loads(text)


# ---------------------------------------------------------------- bad files: CLI

@pytest.mark.parametrize("case", ["depth60", "nan", "list", "binary", "future"])
def test_cli_bad_file_exit_2_one_line_no_output(tmp_path, case):
    d = _hab()
    path = tmp_path / "bad.json"
    if case == "depth60":
        d["depth"] = 60
        path.write_text(json.dumps(d))
    elif case == "nan":
        path.write_text(json.dumps(d).replace('"b": [', '"b": [NaN, ', 1))
    elif case == "list":
        path.write_text("[1, 2, 3]")
    elif case == "binary":
        path.write_bytes(bytes(range(256)))
    else:
        d["version"] = 2
        path.write_text(json.dumps(d))
    out = tmp_path / "out.py"
    res = _cli(["export", path, "--format", "python", "-o", out], tmp_path)
    assert res.returncode == 2, res.stderr
    assert res.stderr.count("\n") == 1 and res.stderr.startswith("error: "), res.stderr
    assert "Traceback" not in res.stderr and str(path) in res.stderr
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["bad.json"]


# ---------------------------------------------------------------- defects

def _nested_meta_doc(levels: int) -> str:
    text = json.dumps(dict(_hab(), meta={"deep": "@@"}))
    return text.replace('"@@"', "[" * levels + "0" + "]" * levels)


@pytest.mark.parametrize("how", ["file nested 400 deep", "from_dict cyclic meta"])
def test_deeply_nested_meta_is_refused_on_load_or_written_back(tmp_path, how):
    try:
        if how == "file nested 400 deep":
            path = tmp_path / "deep.json"
            path.write_text(_nested_meta_doc(400))
            tree = load(path)
        else:
            d = _hab()
            d["meta"]["self"] = d["meta"]
            tree = Tree.from_dict(d)
    except OlctcError:
        return  # refusing it on load is fine too
    try:
        tree.save(tmp_path / "again.json")
    except OlctcError:
        pass


def test_cli_deeply_nested_meta_is_one_line_error(tmp_path):
    path = tmp_path / "deep.json"
    path.write_text(_nested_meta_doc(400))
    out = tmp_path / "copy.json"
    res = _cli(["export", path, "--format", "json", "-o", out], tmp_path)
    assert res.returncode in (0, 2) and "Traceback" not in res.stderr, res.stderr[-300:]
    assert res.stderr.count("\n") <= 1


def _huge_counts_tree() -> Tree:
    d = _hab()
    d["nodes"]["n"] = [2 ** 62, 2 ** 61, 2 ** 61]
    d["nodes"]["pos"] = [2 ** 61, 2 ** 61, 0]
    return loads(json.dumps(d))


@pytest.mark.parametrize("fmt", ["text", "dot"])
def test_huge_node_counts_show_true_percentages(fmt):
    tree = _huge_counts_tree()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = render(tree, fmt).decode("utf-8")
    assert "-" not in "".join(re.findall(r"-?\d+\.\d%", out))
    assert ("(100.0%)" in out) and ("50.0%" in out)


def test_sql_labels_beyond_int64_come_back_exact(tmp_path):
    d = _doc([{"name": "a", "kind": "numeric"}, {"name": "b", "kind": "numeric"}], [10 ** 30, 0])
    tree = _from_text(tmp_path, d)
    rows, X = _rows(tree, n=60)
    out = _sqlite_scores(tree, rows, to_sql(tree))
    pred = tree.predict(X).tolist()
    assert 10 ** 30 in pred
    got = [r["olctc_label"] for r in out]
    # SQLite's integers are int64: both labels come back as their exact text, as from the ONNX export
    assert got == [str(v) for v in pred]
    assert "'1000000000000000000000000000000'" in to_sql(tree)


def test_sql_of_two_numeric_columns_of_one_name(tmp_path):
    tree = _from_text(tmp_path, _unusual("two numeric columns of one name"))
    rows, X = _rows(tree, n=40)
    ns: dict = {}
    exec(compile(to_python(tree), "m", "exec"), ns)
    assert [ns["predict"](r) for r in rows] == tree.predict(X).tolist()  # Python: fine
    try:
        sql = to_sql(tree)
    except OlctcError as exc:
        assert "differ only in case" not in str(exc), str(exc)
        return
    out = _sqlite_scores(tree, rows, sql)
    assert [r["olctc_label"] for r in out] == tree.predict(X).tolist()


@pytest.mark.parametrize("where", ["top", "nodes"])
def test_duplicate_keys_are_refused(where):
    text = json.dumps(_hab())
    if where == "top":
        text = text.replace('"classes": [1, 2]', '"classes": [2, 1], "classes": [1, 2]')
    else:
        text = text.replace('"nodes": {', '"nodes": {"b": [9.0, 9.0, 9.0], ', 1)
    assert text.count('"classes"') == 2 or text.count('"b"') == 2
    with pytest.raises(OlctcError, match="(?i)duplicate|twice"):
        loads(text)


@pytest.mark.parametrize("where", ["top", "scaler", "nodes", "columns", "raw"])
def test_from_dict_with_non_string_keys(where):
    d = loads(json.dumps(_hab())).to_dict()
    extra = {1: "x", "zz": "y"}
    if where == "top":
        d.update(extra)
    elif where == "columns":
        d["columns"][0].update(extra)
    else:
        d[where].update(extra)
    with pytest.raises(OlctcError, match="expected only the fields"):
        Tree.from_dict(d)


def test_load_tree_of_text_with_a_bom():
    text = "\ufeff" + json.dumps(_hab(), indent=1)
    try:
        tree = olctc.load_tree(text)
    except OlctcError as exc:
        assert "\n" not in str(exc) and "File name too long" not in str(exc), str(exc)[:200]
        return
    assert tree.classes == (1, 2)


def test_text_export_tells_a_line_break_from_a_backslash_and_n():
    tree = Tree.from_arrays([[1.0, -2.0, 3.0]], [0.5], feature_names=["a\nb", "a\\nb", "tab\there"],
                            classes=("no\tpe", "yes"))
    text = render(tree, "text").decode("utf-8")
    # used to: both first names showed as a\nb; a name needing escapes is now shown as its repr
    assert "'a\\nb': w=1" in text and "    a\\nb: w=-2" in text and "'tab\\there': w=3" in text, text
    assert "classes 'no\\tpe' / yes" in text, text
