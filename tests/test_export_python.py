"""Python export: the generated module runs in a fresh interpreter with the standard library only
(``python -I -S``: no site-packages, so no numpy, no olctc) and agrees with Tree on every row."""
from __future__ import annotations

import ast
import dataclasses
import io
import json
import sqlite3
import subprocess
import sys
import tokenize
from pathlib import Path

import numpy as np
import pytest

from olctc.export.python import to_python
from test_tree import cases, dataset, greedy_tree, hostile_dataset, raw_rows, tree_for

RUNNER = r"""
import importlib.util, json, sys
jobs = json.load(open(sys.argv[1], encoding="utf-8"))
results = []
for k, job in enumerate(jobs):
    spec = importlib.util.spec_from_file_location("exported_%d" % k, job["module"])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    rows = job["rows"]
    if job["as_dict"]:
        rows = [dict(zip(mod.FEATURES, r)) for r in rows]
    results.append({
        "features": mod.FEATURES, "classes": mod.CLASSES,
        "pred": [mod.predict(r) for r in rows],
        "proba": [mod.predict_proba(r) for r in rows],
        "apply": [mod.apply(r) for r in rows],
        "modules": sorted(m for m in sys.modules if m.split(".")[0] in ("numpy", "olctc", "scipy")),
    })
json.dump(results, open(sys.argv[2], "w", encoding="utf-8"))
"""


def run_fresh(tmp_path: Path, jobs: list[dict], python: str = sys.executable) -> list[dict]:
    """Import each generated module in one fresh, isolated interpreter and predict its rows."""
    jobs_path, out_path, runner = tmp_path / "jobs.json", tmp_path / "out.json", tmp_path / "runner.py"
    jobs_path.write_text(json.dumps(jobs), encoding="utf-8")
    runner.write_text(RUNNER, encoding="utf-8")
    proc = subprocess.run([python, "-I", "-S", str(runner), str(jobs_path), str(out_path)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out_path.read_text(encoding="utf-8"))


def _check(tree, X, res) -> None:
    assert res["modules"] == []
    assert res["classes"] == list(tree.classes)
    assert res["pred"] == tree.predict(X).tolist()  # 100% of rows
    np.testing.assert_array_equal(res["apply"], tree.apply(X))
    assert np.abs(np.asarray(res["proba"]) - tree.predict_proba(X)).max() <= 1e-9


def test_every_data_set_agrees_in_a_fresh_interpreter(tmp_path):
    jobs, trees = [], []
    for k, (name, depth) in enumerate(cases()):
        tree, ds = tree_for(name, depth), dataset(name)
        path = tmp_path / f"tree_{k}.py"
        path.write_text(to_python(tree), encoding="utf-8")
        # tic-tac-toe goes in as dicts of raw categories; the others as sequences in FEATURES order
        jobs.append({"module": str(path), "rows": raw_rows(ds.schema, ds.X), "as_dict": not ds.schema.is_numeric})
        trees.append((tree, ds))
    for (tree, ds), res in zip(trees, run_fresh(tmp_path, jobs)):
        assert res["features"] == [c.name for c in ds.schema.columns]
        _check(tree, ds.X, res)


def _other_pythons() -> list[str]:
    """Every other CPython 3 on this machine (pyenv's versions, python3.N on PATH), one per minor version."""
    import glob
    import shutil

    found: dict[str, str] = {}
    candidates = sorted(glob.glob(str(Path.home() / ".pyenv/versions/3.*/bin/python3")))
    candidates += [p for n in range(6, 20) if (p := shutil.which(f"python3.{n}"))]
    for exe in candidates:
        ver = subprocess.run([exe, "-I", "-S", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                             capture_output=True, text=True).stdout.strip()
        if ver and ver != "%d.%d" % sys.version_info[:2]:
            found.setdefault(ver, exe)
    return [found[v] for v in sorted(found, key=lambda v: tuple(map(int, v.split("."))))]


def test_every_data_set_agrees_on_every_other_python_here(tmp_path):
    """The module promises Python 3.6 or newer (its header): users embed it where olctc does not run."""
    pythons = _other_pythons()
    if not pythons:
        pytest.skip("no other CPython 3 on this machine")
    jobs, trees = [], []
    for k, (name, depth) in enumerate(cases()):
        tree, ds = tree_for(name, depth), dataset(name)
        path = tmp_path / f"tree_{k}.py"
        path.write_text(to_python(tree), encoding="utf-8")
        jobs.append({"module": str(path), "rows": raw_rows(ds.schema, ds.X[:200]),
                     "as_dict": not ds.schema.is_numeric})
        trees.append((tree, ds))
    for python in pythons:
        for (tree, ds), res in zip(trees, run_fresh(tmp_path, jobs, python)):
            _check(tree, ds.X[:200], res)


ALLOWED_NAMES = {"math", "float", "str", "abs", "isinstance", "dict", "list", "len", "KeyError", "ValueError",
                 "TypeError", "OverflowError", "row", "values", "name", "missing", "value", "k", "v", "x", "c",
                 "s", "t", "z", "e", "p", "bool", "FEATURES", "CLASSES", "__all__", "_inputs", "_number", "_category",
                 "_score", "_shown", "repr", "text", "any", "ord", "ch", "set", "present", "bytes",
                 "_encode", "_reach",
                 "decision_function", "apply", "predict", "predict_proba"}


def _code_names(src: str) -> set[str]:
    tree = ast.parse(src)
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    imports = [a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names]
    assert imports == ["math"]
    return names


def test_hostile_names_stay_data(tmp_path):
    marker = tmp_path / "pwned"
    ds = hostile_dataset(str(marker))
    tree = greedy_tree(ds, 3)
    src = to_python(tree)
    # every identifier in the module is one of ours: no name ever became code
    assert {n for n in _code_names(src) if not n.startswith("_node_")} <= ALLOWED_NAMES
    # comments are single tokens of bounded length: a name cannot break out of one or flood it
    comments = [t.string for t in tokenize.generate_tokens(io.StringIO(src).readline) if t.type == tokenize.COMMENT]
    assert len(comments) > tree.n_features and max(map(len, comments)) <= 100
    path = tmp_path / "hostile.py"
    path.write_text(src, encoding="utf-8")
    rows = raw_rows(ds.schema, ds.X)
    out = run_fresh(tmp_path, [{"module": str(path), "rows": rows, "as_dict": False},
                               {"module": str(path), "rows": rows, "as_dict": True}])
    for res in out:
        assert res["features"] == [c.name for c in ds.schema.columns]
        _check(tree, ds.X, res)
    assert set(res["pred"]) == set(tree.classes)  # both hostile labels come out as data
    assert not marker.exists()


@pytest.mark.parametrize("classes", [(0, 1), (0.5, 2.25), ("no", "yes"), (3, "not 3")])
def test_labels_of_every_type(tmp_path, classes):
    ds = dataset("heart")
    tree = greedy_tree(ds, 2)
    tree.classes = classes
    path = tmp_path / "t.py"
    path.write_text(to_python(tree), encoding="utf-8")
    (res,) = run_fresh(tmp_path, [{"module": str(path), "rows": raw_rows(ds.schema, ds.X[:50]), "as_dict": False}])
    assert res["pred"] == tree.predict(ds.X[:50]).tolist()
    assert [type(c) for c in res["classes"]] == [type(c) for c in classes]


def test_module_api_in_process():
    tree, ds = tree_for("tic-tac-toe", 2), dataset("tic-tac-toe")
    ns: dict = {}
    exec(compile(to_python(tree), "tree.py", "exec"), ns)
    row = raw_rows(ds.schema, ds.X[:1])[0]
    assert ns["predict"](row) == tree.predict(ds.X[:1])[0]
    assert ns["decision_function"](row) == pytest.approx(tree.decision_function(ds.X[:1])[0], abs=1e-12)
    unseen = ["?"] * len(row)  # unseen categories contribute nothing, as in Schema.encode
    assert ns["predict"](unseen) == tree.predict(np.zeros((1, tree.n_features)))[0]
    with pytest.raises(ValueError, match="expected 9 values"):
        ns["predict"](row[:3])
    with pytest.raises(KeyError, match="missing input column"):
        ns["predict"]({"top_left": "x"})
    numeric = {}
    exec(compile(to_python(tree_for("heart", 2)), "heart.py", "exec"), numeric)
    with pytest.raises(ValueError, match="must be a finite number"):
        numeric["predict"]([float("nan")] * 13)
    assert numeric["predict"](["1e0"] * 13) == numeric["predict"]([1.0] * 13)  # numeric strings work


def test_a_sqlite_row_is_read_by_name():
    """sqlite3.Row has keys() and row[name], but `name in row` searches its values."""
    tree, ds = tree_for("heart", 2), dataset("heart")
    ns: dict = {}
    exec(compile(to_python(tree), "heart.py", "exec"), ns)
    con = sqlite3.connect(":memory:")
    con.row_factory = sqlite3.Row
    names = list(reversed(ns["FEATURES"]))  # by name, not by position
    con.execute("create table h(%s)" % ",".join('"%s"' % f for f in names))
    con.executemany("insert into h values (%s)" % ",".join("?" * len(names)),
                    [r[::-1] for r in raw_rows(ds.schema, ds.X[:20])])
    got = [ns["predict"](row) for row in con.execute("select * from h")]
    assert got == tree.predict(ds.X[:20]).tolist()
    with pytest.raises(KeyError, match=r"missing input column\(s\): \['age', 'cp'"):
        ns["predict"](con.execute('select "sex" from h').fetchone())


def test_code_is_readable():
    tree = tree_for("heart", 2)
    src = to_python(tree)
    assert "if _node_0(x) <= 0.0:" in src and "return 1, _node_1(x)" in src
    j = int(np.flatnonzero(tree.W_raw[0])[0])
    assert f"s += {float(tree.W_raw[0, j])!r} * x[{j}]  # {tree.feature_names[j]!r}" in src


def test_a_margot_or_oct_h_module_says_its_probabilities_are_no_calibrated_ones():
    """The module's docstring calls the score a log-odds: true of the logistic presets only."""
    tree = tree_for("heart", 2)
    assert "# Note:" not in to_python(tree)
    plain = to_python(tree)
    for preset in ("olct", "margot", "oct-h"):
        given = dataclasses.replace(tree, meta={"spec": {"preset": preset}})
        src = to_python(given)
        head, body = src[:src.index('"""')], src[src.index('"""'):]
        comments = " ".join(line[2:] for line in head.splitlines() if line.startswith("# "))
        if preset == "olct":
            assert src == plain
        else:  # the note, wrapped in comment lines before the docstring; the code itself unchanged
            assert f"Note: {given.probability_note}." in comments
            assert body == plain[plain.index('"""'):]
            ns: dict = {}
            exec(compile(src, "tree.py", "exec"), ns)
            assert ns["predict"]([1.0] * 13) == tree.predict(np.ones((1, 13)))[0]


def test_rows_on_a_split_route_as_the_tree_routes_them_alone_or_in_a_batch(tmp_path):
    # Rows put on the root's hyperplane, where rounding decides the side: the generated code and Tree
    # must compute the same bits (same order of terms), and a row's route must not depend on its batch
    # (a BLAS matrix product's order does).
    from olctc.tree import Tree

    rng = np.random.default_rng(0)
    w = np.array([0.1, 0.2, 0.7, -0.3, 0.05, 1e-3, -2.5])
    tree = Tree.from_arrays([w, np.zeros(7), np.zeros(7)], [0.0, -5.0, 5.0], classes=("neg", "pos"))
    X = rng.normal(size=(2000, 7))
    X[:, 2] -= (X @ w) / w[2]
    path = tmp_path / "tree.py"
    path.write_text(to_python(tree), encoding="utf-8")
    res = run_fresh(tmp_path, [{"module": str(path), "rows": X.tolist(), "as_dict": False}])[0]
    assert len(set(res["pred"])) == 2  # the rows do fall on both sides
    _check(tree, X, res)
    alone = np.array([tree.predict(x)[0] for x in X])
    assert (alone == tree.predict(X)).all()
    assert [tree.explain(x).label for x in X[:200]] == alone[:200].tolist()


ERRORS = r"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("exported", sys.argv[1])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
out = []
for row in json.loads(sys.argv[2]):
    row = [10 ** 400 if v == "HUGE_INT" else v for v in row]
    try:
        out.append(["ok", mod.predict(row), mod.predict_proba(row)])
    except ValueError as exc:
        out.append(["ValueError", str(exc)])
print(json.dumps(out))
"""


def test_bad_rows_raise_where_the_tree_raises(tmp_path):
    # Finite rows whose terms overflow routed as +-inf or NaN (NaN <= 0 is false: right) and gave a class
    # where Tree.predict raises; "1_000" (Python's digit grouping, which olctc refuses in a CSV) was read
    # as 1000; a word or an int beyond float64 raised a ValueError/OverflowError that named no column.
    from olctc.errors import OlctcError
    from olctc.tree import Tree

    tree = Tree.from_arrays([[2.0, -2.0], [1.0, 0.0], [0.0, 1.0]], [0.0, 0.5, -0.5], feature_names=["u", "v"],
                            classes=("neg", "pos"))
    path = tmp_path / "tree.py"
    path.write_text(to_python(tree), encoding="utf-8")
    rows = [[1.0, 2.0], [1e308, -1e308], [-1e308, 1e308], [1e308, 1e308], ["1_000", 1.0], [1.0, "abc"],
            ["HUGE_INT", 1.0], [" 2.5 ", "1e0"], ["\u0666\u0662.\u0668", 1.0], [1.0, "\uff16\uff12"],
            ["\xa03\xa0", 1.0],
            ["9" * 100_000 + "x", 1.0]]
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", ERRORS, str(path), json.dumps(rows)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    for python in _other_pythons():  # the module promises Python 3.6 or newer, its checks included
        other = subprocess.run([python, "-I", "-S", "-c", ERRORS, str(path), json.dumps(rows)],
                               capture_output=True, text=True, timeout=60)
        assert other.returncode == 0 and json.loads(other.stdout) == out, (python, other.stderr[-2000:])
    assert out[0] == ["ok", tree.predict([[1.0, 2.0]])[0], tree.predict_proba([[1.0, 2.0]])[0].tolist()]
    for k in (1, 2, 3):
        with pytest.raises(OlctcError, match="the score of node 0 overflows"):
            tree.predict([rows[k]])
        assert out[k] == ["ValueError", "the score of node 0 overflows (values too large for this tree's "
                                        "weights); rescale the input"]
    assert out[4] == ["ValueError", "column 0 ('u') must be a number, got '1_000'"]
    assert out[5] == ["ValueError", "column 1 ('v') must be a number, got 'abc'"]
    # as Tree.predict words it ("expected a finite number"), not "must be a number"
    assert out[6][0] == "ValueError" and out[6][1].startswith("column 0 ('u') must be a finite number, got 1000")
    assert out[7] == ["ok", tree.predict([[2.5, 1.0]])[0], tree.predict_proba([[2.5, 1.0]])[0].tolist()]
    # Unicode digits, which float() reads and olctc refuses; a no-break space around a number is no part of it
    for k, (j, name) in zip((8, 9), ((0, "u"), (1, "v"))):
        with pytest.raises(OlctcError, match="expected a number"):
            tree.encode(dict(zip("uv", ([v] for v in rows[k]))))
        assert out[k] == ["ValueError", f"column {j} ({name!r}) must be a number, got {rows[k][j]!r}"]
    assert out[10] == ["ok", tree.predict([[3.0, 1.0]])[0], tree.predict_proba([[3.0, 1.0]])[0].tolist()]
    # a huge cell is quoted in part, as olctc's own messages quote it
    assert out[11] == ["ValueError", "column 0 ('u') must be a number, got '" + "9" * 56 + "..."]
