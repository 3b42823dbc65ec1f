"""Bad input to the public Python API: one clear error naming the parameter, never a deep traceback.

The first part pins the defects this pass fixed (each failed before with the error quoted beside it); the
tables after it pin bad inputs that already behaved well. Solves are depth 1 on 30 points, 2 s at most.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

from olctc.compile import compile_problem, read_manifest
from olctc.data import Dataset, Scaler, Schema, Column, from_arrays, read_csv
from olctc.errors import OlctcError
from olctc.export import export_tree, render
from olctc.export import json as tree_json
from olctc.fit import fit, split
from olctc.pipeline import write_compiled
from olctc.refine import fit_l1_logistic, refine
from olctc.solve import solve_file, solve_milp
from olctc.spec import TreeSpec, make_spec, parse_C, parse_class_weight, parse_tangents
from olctc.tree import Tree

import olctc

HUGE = 10 ** 400  # a Python int beyond float64


@pytest.fixture(scope="module")
def small():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] + 0.3 * rng.normal(size=30) > 0, 1, -1)
    return from_arrays(X, y, ["a", "b", "c"])


@pytest.fixture(scope="module")
def comp(small):
    return compile_problem(small, make_spec(depth=1))


@pytest.fixture(scope="module")
def tree():
    return Tree.from_arrays([[1.0, -1.0, 0.5]], [0.1], feature_names=["a", "b", "c"])


def raises(pattern: str, exc: type = OlctcError):
    return pytest.raises(exc, match=pattern)


# ---------------------------------------------------------------- fixed defects

@pytest.mark.parametrize("kw,name", [({"C": HUGE}, "C"), ({"tangents": [HUGE]}, "tangents"),
                                     ({"big_m": HUGE}, "big_m"), ({"epsilon": HUGE}, "epsilon"),
                                     ({"preset": "oct-h", "alpha": HUGE}, "alpha")])
def test_huge_int_knob_is_a_parameter_error(kw, name):
    # was OverflowError: int too large to convert to float
    with raises(rf"^The '{name}' parameter must be .*Got \[?1000"):
        make_spec(depth=1, **kw)


@pytest.mark.parametrize("kw", [{"time_limit": HUGE}, {"mip_gap": HUGE}])
def test_huge_int_solver_limit_is_a_parameter_error(comp, kw):
    # was OverflowError from validate_limits
    name = next(iter(kw))
    with raises(rf"^The '{name}' parameter must be "):
        solve_milp(comp.milp, "highs", verbose=False, **kw)


@pytest.mark.parametrize("kw,pattern", [
    ({"C": np.array(1.0)}, r"^The 'C' parameter must be a positive number or one per layer\. Got array\(1\.\) instead\.$"),
    ({"tangents": np.array(0.0)}, r"^The 'tangents' parameter must be V0, V1, V2, V3 or a list of numbers\. "
                                  r"Got array\(0\.\) instead\.$"),
    # was "must be a number. Got 50.0 instead." (the 0-d array shown as the number it holds)
    ({"big_m": np.array(50.0)}, r"^The 'big_m' parameter must be a number\. Got array\(50\.\) instead\.$"),
])
def test_zero_d_array_knob(kw, pattern):
    # C and tangents: was TypeError: iteration over a 0-d array
    with raises(pattern):
        make_spec(depth=1, **kw)


@pytest.mark.parametrize("depth", [0, None, "2", True])
def test_parse_C_checks_depth(depth):
    # depth 0 returned (), None raised "can't multiply sequence by non-int of type 'NoneType'"
    with raises(r"^The 'depth' parameter must be an integer >= 1\. Got "):
        parse_C(1.0, depth)


@pytest.mark.parametrize("kw,pattern", [
    ({"depth": "a"}, r"^The 'depth' parameter must be an integer >= 1\. Got 'a' instead\.$"),
    ({"preset": "x"}, r"^The 'preset' parameter must be one of olct, "),  # was KeyError: 'x' at describe()
    ({"depth": 3}, r"^The 'C' parameter must be one value or 3 values .* Got \[1\.0, 1\.0\] instead\.$"),
    ({"C": (1.0,), "depth": 2, "tangents": (0.0, 1.0), "tangent_set": "V2"},
     r"^The 'tangent_set' parameter must be 'custom', the name of the tangents given\. Got 'V2' instead\.$"),
    ({"epsilon": 0.0}, r"^The 'epsilon' parameter must be a finite number > 0\. Got 0\.0 instead\.$"),
])
def test_treespec_direct_construction_is_checked(kw, pattern):
    with raises(pattern):
        TreeSpec(**kw)


def test_treespec_direct_construction_normalises():
    spec = TreeSpec(depth=np.int64(1), C=5, tangents=(-np.inf, 0.0, np.inf))  # C=5: was TypeError at build
    assert (spec.depth, spec.C, spec.tangent_set) == (1, (5.0,), "V0")
    assert TreeSpec(depth=1, C=(1.0,), tangents=(-np.inf, -1.9, 0.0, 1.9, np.inf)).tangent_set == "V1"


def test_compile_treespec_with_short_C(small):
    # was IndexError: index 1 is out of bounds for axis 0 with size 1, from the build; one C now broadcasts
    # as make_spec's does, and a wrong count is refused
    assert compile_problem(small, TreeSpec(depth=2, C=(1.0,))).spec.C == (1.0, 1.0)
    with raises(r"^The 'C' parameter must be one value or 2 values"):
        TreeSpec(depth=2, C=(1.0, 2.0, 3.0))


def test_read_manifest_of_a_folder(tmp_path):
    # was IsADirectoryError: [Errno 21] Is a directory
    with raises(r": is a folder, expected a manifest \(compile writes NAME\.olctc\.json beside NAME\.mps\)$"):
        read_manifest(tmp_path)


@pytest.mark.parametrize("ts", ["0.2", None, np.array(0.2)])
def test_split_test_size_type(small, ts):
    # "0.2"/None: TypeError: '<=' not supported; the 0-d array got scikit-learn's message
    with raises(r"^The 'test_size' parameter must be in \[0, 1\)\. Got "):
        split(small, ts, 0)


@pytest.mark.parametrize("call", [lambda s: split(None, 0.2, 0), lambda s: compile_problem(None, make_spec(depth=1)),
                                  lambda s: fit(None, make_spec(depth=1), verbose=False)])
def test_dataset_type(small, call):
    # was AttributeError: 'NoneType' object has no attribute 'n' / 'weight'
    with raises(r"^The '(ds|dataset)' parameter must be an olctc Dataset .*Got 'NoneType' instead\.$"):
        call(small)


@pytest.mark.parametrize("spec", [None, {"depth": 1}])
def test_compile_and_fit_spec_type(small, spec):
    # was AttributeError: ... has no attribute 'budget'
    with raises(r"^The 'spec' parameter must be a TreeSpec \(olctc\.spec\.make_spec\)\. Got '(NoneType|dict)'"):
        compile_problem(small, spec)
    with raises(r"^The 'spec' parameter must be a TreeSpec"):
        fit(small, spec, verbose=False)


@pytest.mark.parametrize("name", [None, 3])
def test_compile_name_type(small, name):
    # was TypeError: 'NoneType' object is not iterable
    with raises(r"^The 'name' parameter must be a string\. Got "):
        compile_problem(small, make_spec(depth=1), name)


@pytest.mark.parametrize("drop", [None, ()])
def test_read_csv_drop_none_is_nothing(tmp_path, drop):
    # None: was TypeError: 'NoneType' object is not iterable
    path = tmp_path / "a.csv"
    path.write_text("x,y\n1,a\n2,b\n3,a\n")
    assert read_csv(path, "y", drop=drop).feature_names == ["x"]


def test_read_csv_drop_not_a_list(tmp_path):
    path = tmp_path / "a.csv"
    path.write_text("x,y\n1,a\n2,b\n3,a\n")
    with raises(r"^The 'drop' parameter must be a column name or a list of column names\. Got 3 instead\.$"):
        read_csv(path, "y", drop=3)


@pytest.mark.parametrize("out,pattern", [
    ("m.txt", r"m\.txt: the model file must end in \.mps or \.lp \(got '\.txt'\)$"),  # was 'model' parameter
    ("m", r"/m: the model file must end in \.mps or \.lp \(got 'no suffix'\)$"),  # was 'stem' ... Got ''
])
def test_write_compiled_suffix(comp, tmp_path, out, pattern):
    with raises(pattern):
        write_compiled(comp, tmp_path / out)
    assert list(tmp_path.iterdir()) == []


def test_write_compiled_into_folder(comp, tmp_path):
    with raises(r"^cannot write .*: it is a folder; give a file name$"):
        write_compiled(comp, tmp_path)


def test_write_compiled_name_too_long(comp, tmp_path):
    # was OSError: [Errno 36] File name too long, from the folder check (Path.is_dir) before the lookup check
    with raises(r"^cannot write .*x{50}\.mps: File name too long$"):
        write_compiled(comp, tmp_path / ("x" * 300 + ".mps"))
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kw,pattern", [
    ({"y": "01"}, r"^y must hold labels -1 and \+1 only; got 0\.0$"),  # was w = 0, silently
    ({"X": "1d"}, r"^X must be a 2-D array; got 1 dimension\(s\)$"),  # was IndexError
    ({"C": 0}, r"^The 'C' parameter must be a finite number > 0\. Got 0 instead\.$"),  # was sklearn's message
    ({"C": np.inf}, r"^The 'C' parameter must be a finite number > 0\. Got inf instead\.$"),
    ({"C": HUGE}, r"^The 'C' parameter must be a finite number > 0\. Got 1000"),  # was OverflowError
    ({"C": True}, r"^The 'C' parameter must be a finite number > 0\. Got True instead\.$"),  # was accepted
    ({"sample_weight": "len"}, r"^sample_weight must be 1-D with one weight per point \(30\); got shape \(3,\)$"),
    ({"sample_weight": "neg"}, r"^sample_weight must be finite and >= 0$"),  # was "max() arg is an empty sequence"
    ({"sample_weight": "zero"}, r"^sample_weight must give some point of each class a weight > 0$"),  # ZeroDivision
    ({"sample_weight": "str"}, r"^sample_weight must be numbers, one per point$"),
    ({"X": "complex"}, r"^X has complex values; olctc needs real numbers$"),
    ({"X": "ragged"}, r"^X must be a numeric array$"),  # was numpy's ValueError from the complex check
])
def test_fit_l1_logistic_checks_inputs(small, kw, pattern):
    X, y = small.X.copy(), small.y.astype(float)
    C, sw = 1.0, None
    if kw.get("y") == "01":
        y = (y > 0).astype(float)
    if kw.get("X") == "1d":
        X = X[:, 0]
    if kw.get("X") == "complex":
        X = X + 1j
    if kw.get("X") == "ragged":
        X = [list(r) for r in X[:-1]] + [list(X[-1, :2])]
    C = kw.get("C", C)
    sw = {"len": np.ones(3), "neg": -np.ones(30), "zero": np.zeros(30), "str": "a", None: None}[kw.get("sample_weight")]
    with raises(pattern):
        fit_l1_logistic(X, y, C, sample_weight=sw)


def test_refine_spec_type(small):
    # was AttributeError: 'NoneType' object has no attribute 'depth'
    with raises(r"^The 'spec' parameter must be a TreeSpec \(olctc\.spec\.make_spec\)\. Got None instead\.$"):
        refine(np.zeros((1, 3)), np.zeros(1), small.X, small.y, None)


@pytest.mark.parametrize("method", ["predict", "predict_proba", "apply", "decision_path", "decision_function"])
def test_tree_refuses_complex_X(tree, method):
    # was a silent answer on the real parts (numpy's ComplexWarning only)
    with raises(r"^X has complex values; olctc needs real numbers$"):
        getattr(tree, method)(np.ones((2, 3)) + 1j)


def test_tree_tells_complex_X_of_every_container(tree):
    pd = pytest.importorskip("pandas")
    for X in ([[1.0, 2.0, 3.0 + 1j]], pd.DataFrame({"a": [1.0], "b": [2.0], "c": [3.0 + 1j]}),
              pd.Series([1.0, 2.0, 3.0 + 1j], index=["a", "b", "c"])):
        with raises(r"^X has complex values; olctc needs real numbers$"):
            tree.predict(X)
    ok = pd.DataFrame({"a": [1.0], "b": pd.array([2], dtype="Int64"), "c": [3.0]})  # pandas' own dtypes
    assert tree.predict(ok).tolist() == tree.predict([[1.0, 2.0, 3.0]]).tolist()


def test_tree_ragged_X_still_the_numeric_message(tree):
    with raises(r"^X must be the numeric encoded feature matrix; use Tree\.encode for raw cells$"):
        tree.predict([[1, 2, 3], [4, 5]])


@pytest.mark.parametrize("top", [1.5, "2", None, True])
def test_explain_top_type(tree, top):
    # 1.5: TypeError: slice indices must be integers; "2"/None: TypeError on '<'; True was taken as 1
    with raises(r"^The 'top' parameter must be an integer >= 1\. Got "):
        tree.explain([1, 2, 3], top=top)


def test_explain_top_numpy_int(tree):
    assert tree.explain([1, 2, 3], top=np.int64(2)).label == 1


@pytest.mark.parametrize("cells,pattern", [
    (None, r"^data: expected raw cells as a dict of column name -> values \(or a DataFrame\); got NoneType$"),
    ({"a": 1, "b": 2, "c": 3}, r"^data: column 'a' must hold a list of values, one per row; got 1$"),
    ({"a": "x", "b": [2], "c": [3]}, r"^data: column 'a' must hold a list of values, one per row; got 'x'$"),
])
def test_encode_bad_table(tree, cells, pattern):
    # was TypeError: argument of type 'NoneType' is not iterable / object of type 'int' has no len()
    with raises(pattern):
        tree.encode(cells)


@pytest.mark.parametrize("kw,pattern", [
    ({"W": "abc"}, r"^W must be an array of numbers; got 'abc'$"),  # was numpy's ValueError
    ({"b": "a"}, r"^b must be an array of numbers; got 'a'$"),
    ({"W": np.ones((1, 3)) * 1j}, r"^W has complex values; olctc needs real numbers$"),  # was W = 0, silently
    ({"classes": None}, r"^The 'classes' parameter must be two labels \(negative, positive\)\. Got None instead\.$"),
    ({"meta": [1]}, r"^The 'meta' parameter must be a dict or None\. Got \[1\] instead\.$"),
])
def test_tree_from_arrays_bad(kw, pattern):
    args = {"W": np.ones((1, 3)), "b": [0.0]} | kw
    W, b = args.pop("W"), args.pop("b")
    with raises(pattern):
        Tree.from_arrays(W, b, **args)


def _schema():
    return Schema(tuple(Column(c, "numeric") for c in "abc"))


@pytest.mark.parametrize("kw,pattern", [
    ({"scaler": None}, r"^The 'scaler' parameter must be an olctc\.data\.Scaler\. Got None instead\.$"),
    ({"schema": None}, r"^The 'schema' parameter must be an olctc\.data\.Schema\. Got None instead\.$"),
    ({"meta": "x"}, r"^The 'meta' parameter must be a dict\. Got 'x' instead\.$"),
    ({"node_n": ["a"]}, r"^node_n must be an array of numbers; got \['a'\]$"),
    ({"node_n": [1.5]}, r"^node_n must hold finite whole numbers >= 0$"),  # was truncated to 1
    ({"node_n": [-1]}, r"^node_n must hold finite whole numbers >= 0$"),
    ({"node_std": [[np.nan, 1, 1]]}, r"^node_std must hold finite values >= 0$"),
    ({"node_n": [1], "node_pos": [5]}, r"^node_pos must not exceed node_n "),
])
def test_tree_direct_construction_bad(kw, pattern):
    args = {"scaler": Scaler.identity(3), "schema": _schema()} | kw
    with raises(pattern):
        Tree(np.ones((1, 3)), [0.0], args.pop("scaler"), args.pop("schema"), (0, 1), **args)


@pytest.mark.parametrize("milp", [None, "model.mps"])
def test_solve_milp_needs_a_milp(milp):
    # was AttributeError: 'NoneType' object has no attribute 'is_quadratic'
    with raises(r"^The 'milp' parameter must be an olctc MILP \(compile_problem\(\.\.\.\)\.milp; solve_file solves"):
        solve_milp(milp, "highs", verbose=False, time_limit=2)


@pytest.mark.parametrize("start,got", [("abc", "'abc'"), ([1j, 0], r"\[1j, 0\]")])
def test_solve_milp_bad_start(comp, start, got):
    # "abc": was ValueError: could not convert string to float: 'abc'; complex lost its imaginary part
    with raises(rf"^The 'start' parameter must be numbers, one per column, or a dict of column name -> value\. "
                rf"Got {got} instead\.$"):
        solve_milp(comp.milp, "highs", verbose=False, time_limit=2, start=start)


# ---------------------------------------------------------------- bad inputs that behaved well

SPEC_CASES = [
    ({"depth": True}, r"^The 'depth' parameter must be an integer >= 1\. Got True instead\.$"),
    ({"depth": 2.0}, r"^The 'depth' parameter must be an integer >= 1\. Got 2\.0 instead\.$"),
    ({"depth": np.array(2)}, r"^The 'depth' parameter must be an integer >= 1\. Got array\(2\) instead\.$"),
    ({"depth": 13}, r"^The 'depth' parameter must be <= 12 "),
    ({"C": 0}, r"^The 'C' parameter must be finite and > 0 for every layer\. Got \[0\.0, 0\.0\] instead\.$"),
    ({"C": float("nan")}, r"^The 'C' parameter must be finite and > 0 for every layer\."),
    ({"C": 1e20}, r"^The 'C' parameter must be below 1e20 for every layer "),
    ({"C": "1,2,3"}, r"^The 'C' parameter must be one value or 2 values "),
    ({"C": [1, None]}, r"^The 'C' parameter must be a list of numbers\. Got \[1, None\] instead\.$"),
    ({"C": True}, r"^The 'C' parameter must be a positive number or one per layer\. Got True instead\.$"),
    ({"tangents": "V4"}, r"^The 'tangents' parameter must be V0, V1, V2, V3 or a comma-separated list "),
    ({"tangents": [np.inf]}, r"^The 'tangents' parameter must be a list with at least one point other than \+inf"),
    ({"tangents": [1e308]}, r"^The 'tangents' parameter must be points <= 13.8 or inf"),
    ({"big_m": "100"}, r"^The 'big_m' parameter must be a number\. Got '100' instead\.$"),
    ({"big_m": 1e10}, r"^The 'big_m' parameter must be <= 1e9"),
    ({"epsilon": 1e-9}, r"^The 'epsilon' parameter must be >= 1e-8"),
    ({"preset": "OLCT"}, r"^The 'preset' parameter must be one of olct, "),
    ({"preset": "margot-hfs", "budget": True}, r"^The 'budget' parameter must be an integer >= 1\. Got True"),
    ({"budget": 2}, r"^The 'budget' parameter must be unset: preset 'olct' does not use it"),
    ({"score_variables": 1}, r"^The 'score_variables' parameter must be True or False\. Got 1 instead\.$"),
    ({"class_weight": [0, 1]}, r"^The 'class_weight' parameter must be None, 'balanced' or two weights"),
    ({"class_weight": "bal"}, r"^The 'class_weight' parameter must be None, 'balanced' or two weights"),
]


@pytest.mark.parametrize("kw,pattern", SPEC_CASES)
def test_make_spec_bad(kw, pattern):
    with raises(pattern):
        make_spec(**kw)


def test_numpy_numbers_accepted():
    spec = make_spec(preset="margot-hfs", depth=np.int64(2), C=np.float32(2), big_m=np.float64(50),
                     budget=np.int64(2), score_variables=np.bool_(True), class_weight=[np.int64(1), np.float32(2)])
    assert (spec.depth, spec.C, spec.big_m, spec.budget, spec.score_variables) == (2, (2.0, 2.0), 50.0, 2, True)
    assert parse_tangents(np.array([0.0, 1.0]))[0] == (0.0, 1.0)
    assert parse_class_weight(np.array([1.0, 2.0])) == (1.0, 2.0)


@pytest.mark.parametrize("name", [None, "HEART", " heart", b"heart"])
def test_load_dataset_unknown(name):
    with raises(rf"^unknown data set {re.escape(repr(name))}; known: a6a, breast, "):
        olctc.load_dataset(name)


@pytest.mark.parametrize("kw,pattern", [
    ({"time_limit": 0}, r"^The 'time_limit' parameter must be a positive number of seconds"),
    ({"time_limit": "5"}, r"^The 'time_limit' parameter must be a positive number of seconds"),
    ({"threads": True}, r"^The 'threads' parameter must be an integer from 1 to 1024"),
    ({"threads": 1.0}, r"^The 'threads' parameter must be an integer from 1 to 1024"),
    ({"mip_gap": 1}, r"^The 'mip_gap' parameter must be a relative gap in \[0, 1\)\. Got 1 instead\.$"),
])
def test_solve_milp_bad_limits(comp, kw, pattern):
    with raises(pattern):
        solve_milp(comp.milp, "highs", verbose=False, **kw)


def test_solve_milp_unknown_solver(comp):
    with raises(r"^The 'solver' parameter must be one of highs, cbc, scip, "):
        solve_milp(comp.milp, "HIGHS", verbose=False)


def test_solve_numpy_limits_accepted(comp):
    res = solve_milp(comp.milp, "highs", verbose=False, time_limit=np.int64(2), threads=np.int64(1))
    assert res.status in ("optimal", "feasible", "time_limit")


@pytest.mark.parametrize("what,pattern", [
    ("none.mps", r"model file .*none\.mps does not exist$"),
    (".", r"model file .* is not a regular file$"),
    ("empty.mps", r"empty\.mps: the model file is empty; write it again$"),
    ("m.json", r"cannot tell the format of .*m\.json: expected a \.mps or \.lp file"),
])
def test_solve_file_bad(tmp_path, what, pattern):
    (tmp_path / "empty.mps").write_text("")
    (tmp_path / "m.json").write_text("{}")
    with raises(pattern):
        solve_file(tmp_path / what, "highs", verbose=False, time_limit=2)


@pytest.mark.parametrize("seed", [-1, 2 ** 32, 1.0, True, np.array(3)])
def test_split_bad_seed(small, seed):
    with raises(r"^The 'seed' parameter must be an integer in \[0, 4294967295\]\. Got "):
        split(small, 0.2, seed)


@pytest.mark.parametrize("mn", [0, 1.5, "10", True])
def test_compile_bad_max_nonzeros(small, mn):
    with raises(r"^The 'max_nonzeros' parameter must be an integer >= 1\. Got "):
        compile_problem(small, make_spec(depth=1), max_nonzeros=mn)


@pytest.mark.parametrize("X,pattern", [
    (np.array(1.0), r"^X must have shape \(n, 3\); got \(\)$"),
    (np.ones((1, 2, 3)), r"^X must have shape \(n, 3\); got \(1, 2, 3\)$"),
    (np.ones((2, 4)), r"^X must have shape \(n, 3\); got \(2, 4\)$"),
    ([["a", "b", "c"]], r"^X must be the numeric encoded feature matrix; use Tree\.encode for raw cells$"),
    ([[np.nan, 1, 1]], r"^X has a missing value \(NaN\) at row 0, feature 'a'; fill or drop missing values$"),
    ([[HUGE, 1, 1]], r"^X holds an integer too large for a float64"),
    (None, r"^X must have shape \(n, 3\); got \(\)$"),
])
def test_tree_predict_bad(tree, X, pattern):
    with raises(pattern):
        tree.predict(X)


def test_tree_predict_good_shapes(tree):
    assert tree.predict([1, 2, 3]).shape == (1,)
    assert tree.predict(np.ones((2, 3), bool)).shape == (2,)
    assert tree.predict_proba(np.ones((0, 3))).shape == (0, 2)


@pytest.mark.parametrize("fmt", ["JSON", "xml", "", None])
def test_render_unknown_format(tree, fmt, tmp_path):
    with raises(rf"^unknown export format {re.escape(repr(fmt))}; expected one of json, python, onnx, "):
        render(tree, fmt)
    with raises(r"^unknown export format"):
        export_tree(tree, fmt, tmp_path / "t.out")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where,pattern", [
    ("", r"cannot write .*: it is a folder; give a file name$"),
    ("nodir/t.json", r"cannot write .*t\.json: folder .*nodir does not exist$"),
])
def test_export_bad_paths(tree, tmp_path, where, pattern):
    with raises(pattern):
        export_tree(tree, "json", tmp_path / where if where else tmp_path)
    with raises(pattern):
        tree_json.save(tree, tmp_path / where if where else tmp_path)


def test_export_str_and_path_alike(tree, tmp_path):
    export_tree(tree, "json", tmp_path / "a.json")
    export_tree(tree, "json", str(tmp_path / "b.json"))
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()
    assert tree_json.load(tmp_path / "a.json").depth == 1


@pytest.mark.parametrize("arg,pattern", [
    ("{}", r"^<string>: format: expected 'olctc-tree' \(not an olctc tree file\?\), got null$"),
    ("[]", r"^<string>: top level: expected a JSON object, got a list of 0$"),
    (b"\xff\xfe", r"^<bytes>: not UTF-8 text \(byte 0xff at offset 0\)$"),
])
def test_tree_json_load_bad(arg, pattern):
    with raises(pattern):
        tree_json.load(arg)


def test_tree_json_load_folder_and_missing(tmp_path):
    with raises(r": is a folder, expected a tree JSON file$"):
        tree_json.load(tmp_path)
    with raises(r"none\.json: no such file$"):
        tree_json.load(tmp_path / "none.json")


def test_read_csv_bad_paths(tmp_path):
    with raises(r"nope\.csv: no such file$"):
        read_csv(tmp_path / "nope.csv", "y")
    with raises(r": is a folder, expected a CSV file$"):
        read_csv(tmp_path, "y")
    (tmp_path / "a.csv").write_text("x,y\n1,a\n2,b\n")
    with raises(r"a\.csv: target column None not found; columns are: x, y$"):
        read_csv(tmp_path / "a.csv", None)


def test_refine_bad_shapes(small):
    spec = make_spec(depth=1)
    with raises(r"^W must have shape \(1, 3\) \(branch nodes of depth 1, features of X\); got \(3,\)$"):
        refine(np.zeros(3), np.zeros(1), small.X, small.y, spec)
    with raises(r"^y must hold labels -1 and \+1 only; got 0\.0$"):
        refine(np.zeros((1, 3)), np.zeros(1), small.X, (small.y > 0).astype(int), spec)


def test_dataset_still_a_dataclass(small):
    assert isinstance(small, Dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert split(small, np.float64(0.2), np.int64(3))[1].size == 6


def test_numpy_values_are_named_as_plain_numbers_in_parameter_errors():
    """A value from np.arange or a search grid was named "Got np.int64(0) instead." (QA 2026-12-05)."""
    from olctc.errors import param_error

    X, y, _ = olctc.load_dataset("haberman")
    for kw, got in (({"threads": np.int64(0)}, "Got 0 instead."), ({"time_limit": np.float64(0)}, "Got 0.0 instead."),
                    ({"tangents": [np.float64(1), np.float64("nan")]}, "Got [1.0, nan] instead.")):
        with pytest.raises(OlctcError) as exc:
            olctc.OLCTClassifier(depth=1, **kw).fit(X, y)
        assert str(exc.value).endswith(got), exc.value
    with pytest.raises(OlctcError, match=r"^The 'depth' parameter must be an integer >= 1\. Got 0 instead\.$"):
        make_spec(depth=np.int64(0))
    assert str(param_error("x", "y", (np.int32(3), "a"))).endswith("Got (3, 'a') instead.")
    assert str(param_error("x", "y", np.array([1, 2]))).endswith("Got array([1, 2]) instead.")  # arrays as they are
    assert str(param_error("x", "y", np.array(2.0))).endswith("Got array(2.) instead.")
