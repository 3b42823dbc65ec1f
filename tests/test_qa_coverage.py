"""Behaviour the rest of the suite never ran, found by a coverage pass: solver-file format branches and
damaged files, hand-edited tree files through `olctc predict`, the model writers given hand-built MILPs, and
the solve / spec / tree / refine parameter checks, each with its exact message. Real files, real solvers."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.read import read_solution
from conftest import cli_main as run_main
from conftest import tiny_folder

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
COLS = ["x", "y", "z", "v", "w", "u"]  # model.mps column order
OPT = {"x": 4.0, "y": 3.0, "z": 1.0, "v": 3.0, "w": 2.0, "u": 0.0}


def _edited(tmp_path: Path, sample: str, old: str, new: str) -> Path:
    """A copy of a sample solution file with one edit (which must apply)."""
    text = (SAMPLES / sample).read_text()
    assert old in text
    path = tmp_path / f"edited-{sample}"
    path.write_text(text.replace(old, new, 1))
    return path


def test_cplex_lp_status_reads_as_no_solution_and_says_why(tmp_path):
    """A CPLEX file holding an LP status (code < 100, not infeasible) gives no MIP solution, and says so."""
    path = _edited(tmp_path, "cplex_solution.sol", 'solutionStatusValue="101"', 'solutionStatusValue="1"')
    sol = read_solution(path)
    assert (sol.status, sol.objective, sol.values) == ("no_solution", None, {})
    assert sol.raw_status == "1 integer optimal solution (an LP solution, not a MIP solution)"


@pytest.mark.parametrize("old, new, message", [
    ('solutionStatusValue="101"', 'solutionStatusValue="x1"', "expected an integer solutionStatusValue, got 'x1'"),
    ('name="x" ', "", "expected a <variable> with a name (or an index and col_names), "
                      "got '<variable index=\"0\" value=\"4\" />'"),
], ids=["status-code", "nameless"])
def test_cplex_malformed_header_or_variable_is_named(tmp_path, old, new, message):
    """A non-integer status code, or a nameless variable without col_names, fails naming the culprit."""
    path = _edited(tmp_path, "cplex_solution.sol", old, new)
    with pytest.raises(OlctcError) as exc:
        read_solution(path)
    assert str(exc.value) == f"{path}: {message}"


def test_cplex_variable_without_name_takes_it_from_col_names(tmp_path):
    """CPLEX may write a variable by index only: col_names supplies its name and the values still map."""
    path = _edited(tmp_path, "cplex_solution.sol", 'name="x" ', "")
    sol = read_solution(path, col_names=COLS)
    assert sol.status == "optimal" and sol.values == OPT
    with pytest.raises(OlctcError, match="expected a <variable> with a name"):
        read_solution(path, col_names=COLS[:0])  # index 0 out of range of an empty list


def test_cplex_document_without_header(tmp_path):
    """A <CPLEXSolution> without <header> (no status at all) is refused with what was found."""
    path = tmp_path / "noheader.sol"
    path.write_text('<?xml version="1.0"?>\n<CPLEXSolution version="1.2">\n<variables/>\n</CPLEXSolution>\n')
    with pytest.raises(OlctcError) as exc:
        read_solution(path)
    assert str(exc.value) == f"{path}: expected a <CPLEXSolution> with a <header>, got <CPLEXSolution>"


@pytest.mark.parametrize("old, new, message", [
    ("# Columns 6", "# Columns six", ":7: expected '# Columns <n>', got '# Columns six'"),
    ("Objective -21.5", "Objektive -21.5", ":6: expected 'Objective <v>', got 'Objektive -21.5'"),
], ids=["columns-count", "objective"])
def test_highs_raw_file_with_a_damaged_header_line(tmp_path, old, new, message):
    """HiGHS style 0: a non-numeric column count or a mangled Objective line fails at its line number."""
    path = _edited(tmp_path, "highs_solution.sol", old, new)
    with pytest.raises(OlctcError) as exc:
        read_solution(path, col_names=COLS)
    assert str(exc.value) == f"{path}{message}"


def test_highs_style_minus_one_without_primal_and_without_col_names(tmp_path):
    """Style -1: 'F Primal solution' means no solution; a solution needs col_names, else a clear error."""
    path = _edited(tmp_path, "highs_solution_style-1.sol", "T Primal solution", "F Primal solution")
    sol = read_solution(path)
    assert (sol.status, sol.values, sol.raw_status) == ("no_solution", {},
                                                        "F Primal solution (style -1 has no model status)")
    with pytest.raises(OlctcError) as exc:
        read_solution(SAMPLES / "highs_solution_style-1.sol")
    assert str(exc.value).endswith("expected col_names (the MPS column order) to map the values of a HiGHS "
                                   "style -1 file, got none")


@pytest.mark.parametrize("sample, old, new, message", [
    ("glpk_solution_w.txt", "s mip", "s mip 1", ":8: expected 's mip ROWS COLS STATUS OBJ' (or 's bas'/'s ipt'), "
                                                "got 's mip 1 5 6 o -21.5'"),
    ("glpk_output_o.txt", "Columns:", "Kolumns:", ": expected a 'Columns:' line in the header of a GLPK "
                                                  "printable file, got none"),
    ("glpk_output_o.txt", "Objective:", "Objectif:", ": expected an 'Objective:' line in the header of a GLPK "
                                                     "printable file, got none"),
], ids=["w-s-line", "o-columns", "o-objective"])
def test_glpk_damaged_header(tmp_path, sample, old, new, message):
    """GLPK -w with a wrong token count on its 's' line, GLPK -o without 'Columns:': exact errors."""
    path = _edited(tmp_path, sample, old, new)
    with pytest.raises(OlctcError) as exc:
        read_solution(path, col_names=COLS)
    assert str(exc.value) == f"{path}{message}"


# ---------------------------------------------------------------- tree JSON documents a user edited

@pytest.fixture(scope="module")
def tiny_tree(tmp_path_factory) -> Path:
    """A folder with tiny.csv and tree.json: a real depth-1 tree (compile, HiGHS, decode), with a categorical column."""
    return tiny_folder(tmp_path_factory.mktemp("qa-cov"),
                       ["compile", "tiny.csv", "--target", "y", "--depth", "1", "-o", "m.mps"],
                       ["solve", "m.mps", "--solver", "highs", "--quiet", "-o", "m.highs.sol"],
                       ["decode", "m.olctc.json", "m.highs.sol", "-o", "tree.json"])


def _tree_edit(d: Path, name: str, edit) -> Path:
    doc = json.loads((d / "tree.json").read_text())
    edit(doc)
    (d / name).write_text(json.dumps(doc))
    return d / name


@pytest.mark.parametrize("edit, message", [
    (lambda t: t.update(columns={"a": 1}), "columns: expected a list of column objects, got an object"),
    (lambda t: t["columns"].__setitem__(0, "a"), "columns[0]: expected an object, got 'a'"),
    (lambda t: t["columns"][0].update(name=""), "columns[0].name: expected a non-empty string, got ''"),
    (lambda t: t["columns"][0].update(categories=["p"]),
     "columns[0].categories: expected no categories for a numeric column, got a list of 1"),
    (lambda t: t["columns"][2].update(categories=[]),
     "columns[2].categories: expected a non-empty list of strings, got a list of 0"),
    (lambda t: t["columns"][2].update(categories=["x", "x"]),
     "columns[2].categories: expected distinct categories, got a list of 2"),
    (lambda t: t.update(scaler=[1]), "scaler: expected an object, got a list of 1"),
    (lambda t: t.update(nodes=[1]), "nodes: expected an object, got a list of 1"),
    (lambda t: t["nodes"].update(n=[-1]), "nodes.n: expected non-negative numbers, got a list of 1"),
    (lambda t: t.update(raw=[1]), "raw: expected an object, got a list of 1"),
], ids=["columns", "column", "name", "numeric-cats", "empty-cats", "twin-cats", "scaler", "nodes", "n", "raw"])
def test_predict_refuses_an_edited_tree_file(tiny_tree, capsys, edit, message):
    """`olctc predict` on a hand-edited tree.json: exit 2 and the exact field at fault, no traceback."""
    path = _tree_edit(tiny_tree, "edited.json", edit)
    code, out, err = run_main(["predict", path, tiny_tree / "tiny.csv", "-o", "-"], capsys)
    assert (code, out) == (2, "")
    assert err == f"error: {path}: {message}\n"


def test_tree_without_raw_weights_loads_and_predicts_the_same(tiny_tree, capsys):
    """'raw' is derived and optional: a tree without it predicts exactly as the full file."""
    from olctc.export.json import load

    path = _tree_edit(tiny_tree, "noraw.json", lambda t: t.pop("raw"))
    full, bare = load(tiny_tree / "tree.json"), load(path)
    np.testing.assert_array_equal(bare.W, full.W)
    outs = [run_main(["predict", p, tiny_tree / "tiny.csv", "-o", "-"], capsys)
            for p in (tiny_tree / "tree.json", path)]
    assert outs[0][0] == outs[1][0] == 0 and outs[0][1] == outs[1][1]
    assert outs[0][1].splitlines()[0] == "prediction" and len(outs[0][1].splitlines()) == 7


# ---------------------------------------------------------------- solve API misuse

@pytest.fixture(scope="module")
def haberman12():
    """The first 12 rows of the vendored haberman set, as a Dataset."""
    import olctc
    from olctc.data import from_arrays

    X, y, _ = olctc.load_dataset("haberman")
    return from_arrays(X[:12], y[:12])


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_solve_milp_refuses_a_quadratic_model_for_a_linear_solver(haberman12, solver):
    """A MARGOT (MIQP) model handed to HiGHS or CBC in process is refused, pointing at SCIP."""
    from olctc.compile import compile_problem
    from olctc.solve import solve_milp
    from olctc.spec import make_spec

    milp = compile_problem(haberman12, make_spec("margot", depth=1), name="hab").milp
    with pytest.raises(OlctcError) as exc:
        solve_milp(milp, solver)
    assert str(exc.value) == (f"MILP 'hab' is a MIQP (quadratic objective), which {solver} cannot solve; "
                              "solve it with SCIP (--solver scip; solver='scip' in Python; or gurobi, cplex, copt, "
                              "xpress where installed)")


def test_solve_names_a_quadratic_model_file_as_typed(haberman12, tmp_path, monkeypatch, capsys):
    """`olctc solve out/mg.mps` of a MARGOT model with HiGHS named 'mg.mps', without its folder (QA 2026-12-05)."""
    from conftest import cli_main
    from olctc.compile import compile_problem
    from olctc.pipeline import write_compiled
    from olctc.spec import make_spec

    (tmp_path / "out").mkdir()
    write_compiled(compile_problem(haberman12, make_spec("margot", depth=1), name="mg"), tmp_path / "out" / "mg.mps")
    monkeypatch.chdir(tmp_path)
    code, _, err = cli_main(["solve", "out/mg.mps", "-o", "out/mg.sol"], capsys)
    assert code == 2 and err.startswith("error: out/mg.mps is a MIQP (quadratic objective), which highs cannot "
                                        "solve; solve it with SCIP"), err
    assert not (tmp_path / "out" / "mg.sol").exists()


def test_solve_file_start_arguments_are_checked(tmp_path):
    """start and start_path together, or a start_path that is not a file: clear errors before any solve."""
    from olctc.solve import solve_file

    model = SAMPLES / "model.mps"
    with pytest.raises(OlctcError, match=r"^give either start or start_path, not both$"):
        solve_file(model, start={"x": 1.0}, start_path=SAMPLES / "cplex_mipstart.mst")
    missing = tmp_path / "none.sol"
    with pytest.raises(OlctcError) as exc:
        solve_file(model, start_path=missing)
    assert str(exc.value) == f"MIP start file {missing} does not exist"


@pytest.mark.parametrize("sample, old, new, message", [
    ("gurobi_solution.sol", "y 3\n", "y 3\n# a comment\n",
     ":5: expected 'name value' lines after the comments, got '# a comment'"),
    ("glpk_output_o.txt", "Columns:    6", "Columns:    six",
     ":3: expected the number of columns, got 'six (3 integer, 1 binary)'"),
    ("glpk_output_o.txt", "No. Column name", "No. Kolumn name",
     ": expected a column table ('No. Column name ...'), got none (file truncated?)"),
    ("glpk_solution_w.txt", "s mip 5 6 o", "s mip 5 six o",
     ":8: expected the number of columns in the 's' line, got 'six'"),
    ("highs_solution_style1.sol", "\nRows\n", "\nRoows\n",
     ":19: expected a 'Rows' table and a 'Model status:' line after the columns, got end of file (file truncated?)"),
], ids=["gurobi-comment-among-values", "glpk-o-columns-count", "glpk-o-no-table", "glpk-w-columns-count",
        "highs-style1-no-rows"])
def test_damaged_solution_bodies_are_named_by_line(tmp_path, sample, old, new, message):
    """Gurobi, GLPK (-o, -w) and HiGHS style 1 files damaged in their body: the line and what was expected."""
    path = _edited(tmp_path, sample, old, new)
    with pytest.raises(OlctcError) as exc:
        read_solution(path, col_names=COLS)
    assert str(exc.value) == f"{path}{message}"


def test_highs_style1_header_without_primal(tmp_path):
    """A style 1 table whose header lost its 'Primal' field is refused at line 2, header shown."""
    path = _edited(tmp_path, "highs_solution_style1.sol", "Primal", "Primo")
    with pytest.raises(OlctcError) as exc:
        read_solution(path)
    assert str(exc.value).startswith(f"{path}:2: expected a 'Columns' table header with Primal and Name fields, "
                                     "got 'Index Status        Lower")


# ---------------------------------------------------------------- model writers given hand-built MILPs

def _milp(col="x", row="r", const=0.0, lb=0.0, Q=None, n=1):
    """A one-row MILP with n columns named from `col`, written by hand as a library user would."""
    import scipy.sparse as sp

    from olctc.milp import MILP, Block

    cols = (Block(col, 0, (), (), ()),) if n == 1 else (Block(col, 0, (n,), ("i",), (tuple(range(n)),)),)
    return MILP("t", np.ones(n), sp.csr_matrix(np.ones((1, n))), np.array(["L"]), np.array([1.0]), np.full(n, lb),
                np.ones(n), np.zeros(n, bool), cols if n else (), (Block(row, 0, (), (), ()),), Q, const)


@pytest.mark.parametrize("fmt, milp, message", [
    ("mps", lambda: _milp(row="OBJ"), "row name 'OBJ' is reserved for the objective row"),
    ("mps", lambda: _milp(col="OBJCONST", const=1.0), "column name 'OBJCONST' is reserved for the objective constant"),
    ("lp", lambda: _milp(row="obj"), "row name 'obj' is reserved for the objective"),
    ("lp", lambda: _milp(col="OBJCONST", const=1.0), "column name 'OBJCONST' is reserved for the objective constant"),
    ("mps", lambda: _milp(lb=np.nan), "a variable bound is NaN"),
    ("mps", lambda: _milp(n=0), "the model has no variables; there is nothing to write"),
    ("mps", lambda: _milp(n=2, Q=np.array([[1.0, 1.0], [0.0, 1.0]])),
     "Q must be symmetric (the full matrix of the objective 0.5 x'Qx)"),
], ids=["mps-OBJ-row", "mps-OBJCONST-col", "lp-obj-row", "lp-OBJCONST-col", "nan-bound", "no-columns", "asymmetric-Q"])
def test_writers_refuse_a_milp_they_cannot_write(tmp_path, fmt, milp, message):
    """write_mps / write_lp refuse reserved names, NaN bounds, no columns, an asymmetric Q; no file is left."""
    from olctc.emit.lp import write_lp
    from olctc.emit.mps import write_mps

    out = tmp_path / f"m.{fmt}"
    with pytest.raises(OlctcError) as exc:
        (write_mps if fmt == "mps" else write_lp)(milp(), out)
    assert str(exc.value) == message
    assert list(tmp_path.iterdir()) == []


def test_hand_built_milp_with_a_constant_is_written_and_solved(tmp_path):
    """The control case of the table above: the same MILP with legal names writes and HiGHS reads it back."""
    from olctc.emit.mps import write_mps
    from olctc.solve import solve_file

    write_mps(_milp(const=2.5), tmp_path / "m.mps")
    res = solve_file(tmp_path / "m.mps", "highs", verbose=False)
    assert res.status == "optimal" and res.objective == pytest.approx(2.5)


# ---------------------------------------------------------------- parameter checks of the library API

@pytest.mark.parametrize("call, message", [
    (lambda: __import__("olctc.spec", fromlist=["x"]).make_spec("olct", tangents=[]),
     "The 'tangents' parameter must be a non-empty list of tangent points. Got [] instead."),
    (lambda: __import__("olctc.spec", fromlist=["x"]).make_spec("olct", tangents=[-np.inf, np.inf]),
     "The 'tangents' parameter must be a list with at least one finite point (with -inf and inf only, the tree "
     "of zero weights has loss 0). Got [-inf, inf] instead."),
    (lambda: __import__("olctc.emit.params", fromlist=["x"]).validate_limits(mip_gap=1.0),
     "The 'mip_gap' parameter must be a relative gap in [0, 1). Got 1.0 instead."),
    (lambda: __import__("olctc.emit.params", fromlist=["x"]).write_param_files("/tmp", "sub/m", model="m.mps"),
     "The 'stem' parameter must be a file name without folder. Got 'sub/m' instead."),
], ids=["no-tangents", "infinite-tangents-only", "mip-gap-1", "stem-with-folder"])
def test_library_parameters_out_of_range(call, message):
    """make_spec, validate_limits and write_param_files name the parameter and the value refused."""
    with pytest.raises(OlctcError) as exc:
        call()
    assert str(exc.value) == message


@pytest.mark.parametrize("solver", ["highs", "cbc"])
def test_a_nan_mip_start_is_refused_before_solving(haberman12, solver):
    """A MIP start with NaN is refused with one message whatever the solver."""
    from olctc.compile import compile_problem
    from olctc.solve import solve_milp
    from olctc.spec import make_spec

    milp = compile_problem(haberman12, make_spec("olct", depth=1)).milp
    start = np.zeros(milp.n_cols)
    start[3] = np.nan
    with pytest.raises(OlctcError, match=r"^the MIP start has NaN or infinite values$"):
        solve_milp(milp, solver, start=start, verbose=False)


def test_tree_and_refine_check_their_arguments(tiny_tree):
    """A Tree with a wrong scaler/schema/classes, refine without a spec, non-finite b or text labels."""
    import dataclasses

    from olctc.export.json import load
    from olctc.refine import refine
    from olctc.spec import make_spec

    tree = load(tiny_tree / "tree.json")
    for field, value, what in (("scaler", None, "an olctc.data.Scaler. Got None"),
                               ("schema", "a", "an olctc.data.Schema. Got 'a'"),
                               ("classes", "ab", "two labels (negative, positive). Got 'ab'")):
        with pytest.raises(OlctcError) as exc:
            dataclasses.replace(tree, **{field: value})
        assert str(exc.value) == f"The '{field}' parameter must be {what} instead."
    X, y, spec = np.zeros((2, 4)), np.array([1.0, -1.0]), make_spec("olct", depth=1)
    with pytest.raises(OlctcError, match=r"^The 'spec' parameter must be a TreeSpec \(olctc.spec.make_spec\)"):
        refine(tree.W, tree.b, X, y, None)
    with pytest.raises(OlctcError, match=r"^W and b must be finite$"):
        refine(tree.W, tree.b * np.nan, X, y, spec)
    with pytest.raises(OlctcError, match=r"^y must hold labels -1 and \+1$"):
        refine(tree.W, tree.b, X, ["a", "b"], spec)


def test_glpk_raw_stray_line_before_the_s_line_is_named(tmp_path):
    """A glpsol -w file with a stray line before 's mip' was refused with 'got none' and no line number: the
    error shows that line and its number."""
    path = _edited(tmp_path, "glpk_solution_w.txt", "s mip", "junk\ns mip")
    with pytest.raises(OlctcError) as exc:
        read_solution(path, col_names=COLS)
    assert str(exc.value) == f"{path}:8: expected an 's mip', 's bas' or 's ipt' line after the 'c' lines, got 'junk'"


@pytest.mark.parametrize("code, status", [("103", "infeasible"), ("118", "unbounded"), ("3", "infeasible")])
def test_cplex_fixed_status_codes(tmp_path, code, status):
    """CPLEX's infeasible (103, LP 3) and unbounded (118) codes map to those statuses, with no values."""
    path = _edited(tmp_path, "cplex_solution.sol", 'solutionStatusValue="101"', f'solutionStatusValue="{code}"')
    sol = read_solution(path)
    assert (sol.status, sol.objective, sol.values) == (status, None, {})
    assert sol.raw_status == f"{code} integer optimal solution"


def test_highs_style1_without_objective_line(tmp_path):
    """A HiGHS style 1 file cut before 'Objective value:' is refused as truncated, not read without objective."""
    path = _edited(tmp_path, "highs_solution_style1.sol", "Objective value: -21.5", "")
    with pytest.raises(OlctcError) as exc:
        read_solution(path)
    assert str(exc.value) == f"{path}:19: expected an 'Objective value:' line, got end of file (file truncated?)"
