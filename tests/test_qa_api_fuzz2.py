"""Bad input to the public Python API, second pass: paths of the wrong type, fit's switches, Dataset.subset,
from_arrays' feature names, external solver programs, the estimators.

The first part pins the defects this pass fixed (each failed before with the error quoted beside it); the
tables after it pin bad inputs that already behaved well. Solves are depth 1 on 30 points, 3 s at most.
"""
from __future__ import annotations

import os

import numpy as np
import pytest

from olctc.data import from_arrays, read_csv
from olctc.decode import decode_file
from olctc.errors import OlctcError
from olctc.export import export_tree, render
from olctc.export import json as tree_json
from olctc.fit import fit
from olctc.pipeline import write_compiled
from olctc.solve import solve_file, solve_milp
from olctc.spec import make_spec

try:  # the first pass's fixtures and helper (tests/ is on sys.path: a rootdir-less test folder)
    from test_qa_api_fuzz import comp, raises, small, tree
except ImportError:  # pragma: no cover
    from tests.test_qa_api_fuzz import comp, raises, small, tree

FIXTURES = (small, comp, tree)  # pytest finds them in this module by name

BAD_PATHS = [b"x.json", None, 3, "", "  "]


@pytest.fixture(scope="module")
def model(comp, tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "m.mps"
    write_compiled(comp, path)
    return path


def path_error(name: str, got: object) -> str:
    import re

    return (rf"^The '{name}' parameter must be a file path \(a non-empty str or os\.PathLike\)\. "
            rf"Got {re.escape(repr(got))} instead\.$")


# ---------------------------------------------------------------- fixed defects

# before: bytes gave "argument should be a str object or an os.PathLike object returning str, not <class
# 'bytes'>", None/3 "expected str, bytes or os.PathLike object, not NoneType", "" read the current folder
# (".: is a folder, expected a CSV file", "model file . is not a regular file", ...)
@pytest.mark.parametrize("bad", BAD_PATHS)
def test_read_csv_path_type(bad):
    with raises(path_error("path", bad)):
        read_csv(bad, "y")


@pytest.mark.parametrize("bad", BAD_PATHS)
def test_write_compiled_path_type(comp, bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with raises(path_error("out", bad)):
        write_compiled(comp, bad)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", BAD_PATHS)
def test_solve_file_model_path_type(bad):
    with raises(path_error("model_path", bad)):
        solve_file(bad, "highs", verbose=False, time_limit=3)


@pytest.mark.parametrize("bad", [b"x", 3, "", " "])
@pytest.mark.parametrize("key,solver", [("start_path", "highs"), ("solver_path", "cbc-cli"),
                                        ("solution_path", "cbc-cli")])
def test_solve_file_path_keywords_type(model, key, solver, bad):
    # solver_path "": was "solver program /work/main does not exist or is not executable" (the cwd)
    with raises(path_error(key, bad)):
        solve_file(model, solver, verbose=False, time_limit=3, **{key: bad})


@pytest.mark.parametrize("bad", [b"x", 3, ""])
def test_solve_milp_path_keywords_type(comp, bad):
    with raises(path_error("solver_path", bad)):
        solve_milp(comp.milp, "cbc-cli", verbose=False, time_limit=3, solver_path=bad)


@pytest.mark.parametrize("start", ["", b"x.sol", "abc"])
def test_solve_file_start_text(model, start):
    # was ValueError: could not convert string to float: '' (solve_milp already said this)
    with raises(r"^The 'start' parameter must be numbers, one per column, or a dict of column name -> value\. "):
        solve_file(model, "highs", verbose=False, time_limit=3, start=start)


@pytest.mark.parametrize("bad", BAD_PATHS)
@pytest.mark.parametrize("key", ["manifest", "solution", "data"])
def test_decode_file_path_type(model, key, bad):
    args = {"manifest": model.with_name("m.olctc.json"), "solution": model.with_name("m.start.highs.sol")}
    if key == "data" and bad is None:
        return  # data=None: read the data the manifest names
    args[key] = bad
    with raises(path_error(key, bad)):
        decode_file(args.pop("manifest"), args.pop("solution"), **args)


@pytest.mark.parametrize("bad", BAD_PATHS)
def test_export_and_save_path_type(tree, bad, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with raises(path_error("path", bad)):
        export_tree(tree, "json", bad)
    with raises(path_error("path", bad)):
        tree_json.save(tree, bad)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("bad", [None, 3, "", "   "])
def test_json_load_bad_argument(bad):
    # None: "expected str, bytes or os.PathLike object, not NoneType"; "": ".: is a folder, expected ..."
    with raises(r"^The 'text_or_path' parameter must be JSON text or a file path \(a non-empty str, bytes or "
                rf"os\.PathLike\)\. Got {bad!r} instead\.$"):
        tree_json.load(bad)


@pytest.mark.parametrize("bad,got", [(None, "NoneType"), (3, "int")])
def test_json_loads_not_text(bad, got):
    # was TypeError: the JSON object must be str, bytes or bytearray, not NoneType
    with raises(rf"^The 'text' parameter must be JSON text \(a str or bytes; load reads a file\)\. Got '{got}' instead\.$"):
        tree_json.loads(bad)


def test_json_loads_bytes(tree):
    # b"x.csv": was TypeError: a bytes-like object is required, not 'str'
    with raises(r"^<string>: not an olctc tree file \(a tree file is a JSON object"):
        tree_json.loads(b"x.csv")
    with raises(r"^<bytes>: not UTF-8 text \(byte 0xff at offset 0\)$"):
        tree_json.loads(b"\xff")
    assert tree_json.loads(tree_json.dump(tree).encode()).depth == 1


@pytest.mark.parametrize("call", [lambda t, p: render(None, "json"), lambda t, p: render(None, "python"),
                                  lambda t, p: export_tree(None, "json", p), lambda t, p: tree_json.save(None, p),
                                  lambda t, p: tree_json.dump("tree")])
def test_tree_type(tree, tmp_path, call):
    # was AttributeError: 'NoneType' object has no attribute 'schema'
    with raises(r"^The 'tree' parameter must be an olctc Tree \(olctc\.fit, olctc\.export\.json\.load\)\. "
                r"Got '(NoneType|str)' instead\.$"):
        call(tree, tmp_path / "t.json")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name,value", [("verbose", "no"), ("verbose", None), ("keep_incumbent", "yes"),
                                        ("refine", 1), ("standardise", None), ("leave_overrun", 3)])
def test_fit_switch_types(small, name, value):
    # were taken by truth value: verbose="no" printed the solver's log
    with raises(rf"^The '{name}' parameter must be True or False\. Got {value!r} instead\.$"):
        fit(small, make_spec(depth=1), time_limit=5, **({"verbose": False} | {name: value}))


@pytest.mark.parametrize("echo", [None, 3, "print"])
def test_fit_echo_not_callable(small, echo):
    # with verbose: TypeError: 'NoneType' object is not callable, after the model was built
    with raises(rf"^The 'echo' parameter must be a function taking one line of text \(such as print\)\. "
                rf"Got {echo!r} instead\.$"):
        fit(small, make_spec(depth=1), time_limit=5, verbose=True, echo=echo)


@pytest.mark.parametrize("rows,got", [
    ([30], r"\[30\]"),  # IndexError: index 30 is out of bounds for axis 0 with size 30
    ([-1], r"\[-1\]"),  # was the last row, silently
    ([1.0, 2.0], r"\[1\.0, 2\.0\]"),  # IndexError: arrays used as indices must be of integer (or boolean) type
    ([True, False], r"\[True, False\]"),  # IndexError: boolean index did not match
    (np.ones((2, 2), int), r"array\(\[\[1, 1\], \[1, 1\]\]\)"),  # was a Dataset with a 3-D X
    (3, "3"),  # was a "Dataset" of row 3 with n == 3 (its features)
    (None, "None"), ("a", "'a'"), (slice(0, 3), r"slice\(0, 3, None\)"),
])
def test_subset_bad_rows(small, rows, got):
    with raises(rf"^The 'rows' parameter must be row indices in \[0, 30\) or a boolean mask of 30, 1-D\. "
                rf"Got {got} instead\.$"):
        small.subset(rows)


def test_subset_good_rows(small):
    assert small.subset([]).n == 0  # was IndexError (an empty list is a float array)
    assert small.subset(np.arange(30) < 5).n == 5
    assert small.subset([0, 0, 29]).X.shape == (3, 3)
    assert small.subset(np.array([2], dtype=np.uint8)).n == 1


@pytest.mark.parametrize("names", ["abc", ["a", None, "c"], b"abc"])
def test_from_arrays_feature_names_type(small, names):
    # "abc" named the features a, b, c; None named one "None"
    with raises(r"^The 'feature_names' parameter must be a list of names, one per column of X\. Got "):
        from_arrays(small.X, small.y, names)


# ---------------------------------------------------------------- bad inputs that behaved well

IN_PROCESS_ONLY = "must be one of highs, cbc, scip, gurobi, cplex, copt, xpress for an in-process fit"

@pytest.mark.parametrize("kw,pattern", [
    ({"solver": "HIGHS"}, rf"^The 'solver' parameter {IN_PROCESS_ONLY}\. Got 'HIGHS' instead\.$"),
    ({"solver": 3}, rf"^The 'solver' parameter {IN_PROCESS_ONLY}\. Got 3"),
    ({"solver": "cbc-cli"}, rf"^The 'solver' parameter {IN_PROCESS_ONLY}"),
    ({"threads": 0}, r"^The 'threads' parameter must be an integer from 1 to 1024 "),
    ({"threads": "2"}, r"^The 'threads' parameter must be an integer from 1 to 1024 "),
    ({"time_limit": float("nan")}, r"^The 'time_limit' parameter must be a positive number of seconds"),
    ({"time_limit": float("inf")}, r"^The 'time_limit' parameter must be a positive number of seconds"),
    ({"time_limit": True}, r"^The 'time_limit' parameter must be a positive number of seconds"),
    ({"time_limit": 1e-9}, r"^a time limit of 1e-09 s leaves no time to solve: .* give at least \d+ s$"),
    ({"seed": None, "test_size": 0.5}, r"^The 'seed' parameter must be an integer in \[0, 4294967295\]\. Got None"),
])
def test_fit_bad_keywords(small, kw, pattern):
    with raises(pattern):
        fit(small, make_spec(depth=1), **({"verbose": False, "time_limit": 3} | kw))


EXTERNAL = [("cbc-cli", "cbc"), ("highs-cli", "highs"), ("glpk-cli", "glpsol")]


@pytest.mark.parametrize("solver,program", EXTERNAL)
@pytest.mark.parametrize("what", ["missing", "folder", "plain"])
def test_external_bad_solver_path(model, tmp_path, solver, program, what):
    (tmp_path / "plain").write_text("x")
    path = {"missing": tmp_path / "nope", "folder": tmp_path, "plain": tmp_path / "plain"}[what]
    with raises(rf"^solver program {path} does not exist or is not executable$"):
        solve_file(model, solver, verbose=False, time_limit=3, solver_path=path)


@pytest.mark.parametrize("solver,program", EXTERNAL)
@pytest.mark.filterwarnings("ignore:glpsol has no command-line flag")
@pytest.mark.parametrize("fake", ["/bin/true", "/bin/echo"])
def test_external_not_the_solver(model, tmp_path, solver, program, fake):
    if not os.access(fake, os.X_OK):
        pytest.skip(f"no {fake}")
    with raises(rf"^{program} wrote no solution file \(exit code 0\); (it printed nothing|last output: )"):
        solve_file(model, solver, verbose=False, time_limit=3, solver_path=fake,
                   solution_path=tmp_path / "s.sol")
    assert list(tmp_path.iterdir()) == []


def test_in_process_solver_refuses_solver_path(model):
    with raises(r"^solver_path and solution_path apply to external solvers \(cbc-cli, highs-cli, glpk-cli\), "
                r"not to highs$"):
        solve_file(model, "highs", verbose=False, time_limit=3, solver_path="/bin/true")


def test_json_load_null_is_a_missing_file():
    with raises(r"^null: no such file$"):
        tree_json.load("null")


@pytest.mark.parametrize("kw,pattern", [
    ({"feature_names": ["a", "a", "b"]}, r"^feature_names names 'a' twice; feature names must be unique$"),
    ({"feature_names": ["a", "b"]}, r"^feature_names has 2 name\(s\) for the 3 column\(s\) of X$"),
    ({"feature_names": ["a", "", "c"]}, r"^feature_names\[1\] is empty; every feature needs a name$"),
    ({"y": "short"}, r"^y must be 1-D with one label per row of X \(30\); got shape \(5,\)$"),
    ({"y": "three"}, r"^arrays: target 'y' has 3 classes \[0, 1, 2\]; olctc trains binary trees"),
    ({"y": "one"}, r"^arrays: target 'y' has one class only \(1\)(\.0)?; a classifier needs two$"),
    ({"X": "1d"}, r"^X must be a 2-D array; got 1 dimension\(s\)$"),
    ({"X": "text"}, r"^X must be numeric; encode text columns first \(or use a CSV file\)$"),
])
def test_from_arrays_bad(small, kw, pattern):
    X, y, names = small.X, small.y, ["a", "b", "c"]
    X = {"1d": X[:, 0], "text": [[1, 2, "x"]] * 30, None: X}[kw.get("X")]
    y = {"short": y[:5], "three": np.arange(30) % 3, "one": np.ones(30), None: y}[kw.get("y")]
    with raises(pattern):
        from_arrays(X, y, kw.get("feature_names", names))


def test_from_arrays_number_names_become_text(small):
    assert from_arrays(small.X, small.y, [1, 2, 3]).feature_names == ["1", "2", "3"]


@pytest.fixture(scope="module")
def fitted(small):
    pytest.importorskip("sklearn")
    from olctc.estimator import OLCTClassifier

    return OLCTClassifier(depth=1, time_limit=5, verbose=False).fit(small.X, (small.y > 0).astype(int))


@pytest.mark.parametrize("cls,kw,pattern", [
    ("OLCTClassifier", {"depth": "2"}, r"^The 'depth' parameter must be an integer >= 1\. Got '2' instead\.$"),
    ("OLCTClassifier", {"solver": "x"}, r"^The 'solver' parameter must be None \(the preset's default\) or one of "),
    ("OLCTClassifier", {"verbose": "no"},
     r"^The 'verbose' parameter must be True, False or an integer >= 0\. Got 'no' instead\.$"),
    ("OLCTClassifier", {"threads": 0}, r"^The 'threads' parameter must be an integer from 1 to 1024 "),
    ("MARGOTClassifier", {"budget": "x"}, r"^The 'budget' parameter must be an integer >= 1\. Got 'x' instead\.$"),
    ("OCTHClassifier", {"alpha": -1}, r"^The 'alpha' parameter must be a finite number >= 0\. Got -1\.0 instead\.$"),
])
def test_estimator_bad_constructor_args_at_fit(small, cls, kw, pattern):
    pytest.importorskip("sklearn")
    import olctc.estimator as est

    model = getattr(est, cls)(**kw)  # scikit-learn: no check before fit
    with raises(pattern):
        model.fit(small.X, small.y)


@pytest.mark.parametrize("y,pattern,exc", [
    ("short", r"^Found input variables with inconsistent numbers of samples: \[30, 5\]$", ValueError),
    ("one", r"^OLCTClassifier needs two classes to train; y has one class only \(1\.0\)$", OlctcError),
    ("three", r"^Only binary classification is supported\. .*OneVsRestClassifier", OlctcError),
])
def test_estimator_bad_y(small, y, pattern, exc):
    pytest.importorskip("sklearn")
    from olctc.estimator import OLCTClassifier

    y = {"short": small.y[:5], "one": np.ones(30), "three": np.arange(30) % 3}[y]
    with raises(pattern, exc):
        OLCTClassifier(depth=1, time_limit=5, verbose=False).fit(small.X, y)


def test_estimator_predict_before_fit(small):
    pytest.importorskip("sklearn")
    from sklearn.exceptions import NotFittedError

    from olctc.estimator import MARGOTClassifier, OCTHClassifier, OLCTClassifier

    for cls in (OLCTClassifier, MARGOTClassifier, OCTHClassifier):
        with raises(rf"^This {cls.__name__} instance is not fitted yet", NotFittedError):
            cls().predict(small.X)


def test_estimator_predict_wrong_width(small, fitted):
    with raises(r"^X has 2 features, but OLCTClassifier is expecting 3 features as input\.$", ValueError):
        fitted.predict(small.X[:, :2])


def test_explain_pandas_row(small, fitted):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(small.X, columns=["x0", "x1", "x2"])
    assert fitted.tree_.explain(df.iloc[0]).label == fitted.tree_.explain(small.X[0]).label
