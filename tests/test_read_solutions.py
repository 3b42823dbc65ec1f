"""Solution readers: every sample file, round trips through the real solvers, and bad input."""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.read import FORMATS, Solution, detect_format, read_solution

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
MODEL = SAMPLES / "model.mps"
OPT = {"x": 4.0, "y": 3.0, "z": 1.0, "v": 3.0, "w": 2.0, "u": 0.0}
COLS = list(OPT)  # model.mps column order
CBC = "/usr/bin/cbc"
GLPSOL = "/usr/bin/glpsol"


def _highs_model(path: Path):
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(path))
    return h


@pytest.fixture(scope="module")
def mknap() -> tuple[list[str], np.ndarray]:
    """mknap.mps column names and costs, to check an incumbent against its objective."""
    lp = _highs_model(SAMPLES / "mknap.mps").getLp()
    return list(lp.col_names_), np.asarray(lp.col_cost_, dtype=float)


COL_NAMES = {"model": COLS, "infeasible": ["a", "b"], "msplit": [f"x{i}" for i in range(60)], "none": None}

# file, col_names, solver, status, objective, values ("mknap": check the values against the costs).
SAMPLE_CASES = [
    ("cbc_2.10.8_solution.txt", "none", "cbc", "optimal", -21.5, OPT),
    ("cbc_devel_solution.txt", "none", "cbc", "optimal", -21.5, OPT),
    ("cbc_2.10.8_printall_solution.txt", "none", "cbc", "optimal", -21.5, OPT),
    ("cbc_infeasible_solution.txt", "none", "cbc", "infeasible", None, {}),
    ("cbc_2.10.8_printall_infeasible.txt", "none", "cbc", "infeasible", None, {}),
    ("cbc_devel_infeasible_solution.txt", "none", "cbc", "infeasible", None, {}),
    ("cbc_timelimit_solution.txt", "none", "cbc", "no_solution", None, {}),
    ("cbc_devel_timelimit_solution.txt", "none", "cbc", "no_solution", None, {}),
    ("cbc_timelimit_incumbent_solution.txt", "none", "cbc", "feasible", -5540.0, "mknap"),
    ("cplex_solution.sol", "none", "cplex", "optimal", -21.5, OPT),
    ("glpk_solution_w.txt", "model", "glpk", "optimal", -21.5, OPT),
    ("glpk_output_o.txt", "none", "glpk", "optimal", -21.5, OPT),
    ("glpk_infeasible_w.txt", "infeasible", "glpk", "infeasible", None, {}),
    ("glpk_lp_only_w.txt", "none", "glpk", "no_solution", None, {}),
    ("glpk_timelimit_incumbent_w.txt", "mknap", "glpk", "feasible", -5546.0, "mknap"),
    ("glpk_timelimit_nosol_w.txt", "msplit", "glpk", "no_solution", None, {}),
    ("gurobi_solution.sol", "none", "gurobi", "feasible", -21.5, {**OPT, "MPS_Rgc3": 5.0}),
    ("highs_solution.sol", "none", "highs", "optimal", -21.5, OPT),
    ("highs_solution_style-1.sol", "model", "highs", "feasible", None, OPT),
    ("highs_solution_style1.sol", "none", "highs", "optimal", -21.5, OPT),
    ("highs_solution_style2.sol", "model", "glpk", "optimal", -21.5, OPT),
    ("highs_solution_style3.sol", "none", "glpk", "optimal", -21.5, OPT),
    ("highs_solution_style4.sol", "none", "highs", "optimal", -21.5, {k: v for k, v in OPT.items() if v}),
    ("highs_infeasible.sol", "none", "highs", "infeasible", None, {}),
    ("highs_timelimit_incumbent.sol", "none", "highs", "feasible", -5534.999999999999, "mknap"),
    ("highs_timelimit_nosol.sol", "none", "highs", "no_solution", None, {}),
    ("highs_1.16_solution.sol", "none", "highs", "optimal", -21.5, OPT),
    ("highs_1.16_solution_style1.sol", "none", "highs", "optimal", -21.5, OPT),
    ("highs_1.16_solution_style4.sol", "none", "highs", "optimal", -21.5, {k: v for k, v in OPT.items() if v}),
    ("highs_1.16_sollimit_style4.sol", "none", "highs", "feasible", -5455.0, "mknap"),
    ("scip_solution.sol", "none", "scip", "optimal", -21.5, {k: v for k, v in OPT.items() if v}),
    ("scip_infeasible.sol", "none", "scip", "infeasible", None, {}),
    ("scip_timelimit_incumbent.sol", "none", "scip", "feasible", -5542.0, "mknap"),
    # Xpress 9.9.1 and COPT 8.0.7 (EXTRA.txt): files with no status; Xpress's with no objective either
    ("xpress_9.9_solution.slx", "none", "xpress", "feasible", None, OPT),
    ("xpress_9.9_solution_hex.slx", "none", "xpress", "feasible", None, OPT),
    ("xpress_9.9_solution_slacks.slx", "none", "xpress", "feasible", None, OPT),
    ("xpress_9.9_infeasible.slx", "none", "xpress", "no_solution", None, {}),
    ("xpress_9.9_timelimit_incumbent.slx", "none", "xpress", "feasible", None, "mknap"),
    ("copt_8.0_solution.sol", "none", "copt", "feasible", -21.5, OPT),
    ("copt_8.0_timelimit_incumbent.sol", "none", "copt", "feasible", -5534.0, "mknap"),
]

RAW_STATUS = {
    "cbc_devel_infeasible_solution.txt": "Integer infeasible",
    "cbc_timelimit_solution.txt": "Stopped on time (no integer solution - continuous used)",
    "cbc_timelimit_incumbent_solution.txt": "Stopped on time",
    "cplex_solution.sol": "101 integer optimal solution",
    "glpk_lp_only_w.txt": "s bas f f: LP basic solution, primal feasible (not a MIP solution)",
    "glpk_timelimit_incumbent_w.txt": "s mip f: feasible",
    "glpk_timelimit_nosol_w.txt": "s mip u: undefined",
    "gurobi_solution.sol": "solution (a Gurobi .sol file has no status)",
    "xpress_9.9_solution.slx": "solution (an Xpress .slx file has no status)",
    "xpress_9.9_infeasible.slx": "no solution (ENDATA alone)",
    "copt_8.0_solution.sol": "solution (a COPT .sol file has no status)",
    "highs_timelimit_nosol.sol": "Time limit reached",
    "highs_1.16_sollimit_style4.sol": "Solution limit reached",
    "scip_timelimit_incumbent.sol": "time limit reached",
}

#: Files that state a best bound (HiGHS 1.16, a MIP solved to optimality); every other file states none.
BOUND = {"highs_1.16_solution.sol": -21.5, "highs_1.16_solution_style1.sol": -21.5,
         "highs_1.16_solution_style4.sol": -21.5}


def _check_values(sol: Solution, expected, mknap) -> None:
    if expected == "mknap":
        names, cost = mknap
        x = sol.to_array(names)
        assert set(np.unique(x)) <= {0.0, 1.0}
        # an .slx file states no objective: Xpress's own (its MIPOBJVAL attribute) when it wrote the file
        assert float(cost @ x) == pytest.approx(-5559.0 if sol.objective is None else sol.objective, abs=1e-9)
    else:
        assert sol.values == expected


@pytest.mark.parametrize("name, cols, solver, status, objective, values", SAMPLE_CASES,
                         ids=[c[0] for c in SAMPLE_CASES])
def test_sample(name, cols, solver, status, objective, values, mknap) -> None:
    col_names = mknap[0] if cols == "mknap" else COL_NAMES[cols]
    sol = read_solution(SAMPLES / name, col_names=col_names)
    assert (sol.solver, sol.status, sol.objective) == (solver, status, objective)
    assert sol.path == str(SAMPLES / name)
    assert sol.has_solution() == (status in ("optimal", "feasible"))
    assert sol.bound == BOUND.get(name)
    if name in RAW_STATUS:
        assert sol.raw_status == RAW_STATUS[name]
    _check_values(sol, values, mknap)
    if values is OPT or (isinstance(values, dict) and "x" in values):
        assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]
    assert detect_format((SAMPLES / name).read_text()) == solver


@pytest.mark.parametrize("name", ["highs_solution.sol", "highs_timelimit_incumbent.sol"])
def test_a_highs_file_holding_two_solutions_is_refused(name, tmp_path) -> None:
    # two files joined (an old solution and a new): the first was read silently
    text = (SAMPLES / name).read_text()
    doubled = tmp_path / "two.sol"
    doubled.write_text(text + text)
    second = len(text.splitlines()) + 1
    with pytest.raises(OlctcError, match=rf"^{doubled}:{second}: expected one solution \(the file holds a second "
                                         r"'Model status': two files joined\?\), got 'Model status'$"):
        read_solution(doubled)
    assert read_solution(SAMPLES / name).has_solution()


def test_a_cplex_variable_twice_is_named_without_a_line(tmp_path) -> None:
    # CPLEX's XML is read without line numbers: the message said "(first on line 0)"
    import re

    text = (SAMPLES / "cplex_solution.sol").read_text()
    var = re.search(r"\s*<variable [^>]*/>", text).group(0)
    (tmp_path / "dup.sol").write_text(text.replace(var, var + var, 1))
    with pytest.raises(OlctcError, match=r"^[^:]*dup\.sol: expected each column once, got '\w+' again$"):
        read_solution(tmp_path / "dup.sol")


def test_xpress_rows_duals_and_reduced_costs_are_skipped() -> None:
    # writeSlxSol(f, "sdrx") on an LP: slacks (S), duals (D), reduced costs (R), every value as hex bits
    sol = read_solution(SAMPLES / "xpress_9.9_lp_only_sdrx.slx")
    assert (sol.solver, sol.status, sol.values) == ("xpress", "feasible", {"x": 1.5, "y": 2.5})


def test_xpress_hex_values_are_the_doubles_and_the_decimals_within_an_ulp_or_two() -> None:
    # the same solve written twice: writeSlxSol(f) prints 16 significant digits, writeSlxSol(f, "x") the bits
    import struct

    hexa = read_solution(SAMPLES / "xpress_9.9_heart16_olct_d1_hex.slx").values
    dec = read_solution(SAMPLES / "xpress_9.9_heart16_olct_d1.slx").values
    assert hexa["w_0_0"] == struct.unpack(">d", bytes.fromhex("bf972302eac95ed0"))[0] == -0.022594495372998236
    assert hexa.keys() == dec.keys() and hexa != dec
    assert all(abs(hexa[k] - dec[k]) <= 4e-16 * abs(hexa[k]) for k in hexa)


def test_omits_zeros_follows_the_format() -> None:
    expect = {"cbc_2.10.8_solution.txt": True, "scip_solution.sol": True, "highs_solution_style4.sol": True,
              "highs_1.16_solution_style4.sol": True, "highs_1.16_solution.sol": False,
              "highs_solution.sol": False, "gurobi_solution.sol": False, "cplex_solution.sol": False,
              "glpk_output_o.txt": False, "xpress_9.9_solution.slx": False, "copt_8.0_solution.sol": False}
    assert {n: read_solution(SAMPLES / n).omits_zeros for n in expect} == expect


def test_glpsol_formats_written_by_highs_read_as_highs_when_asked() -> None:
    for name in ("highs_solution_style2.sol", "highs_solution_style3.sol"):
        sol = read_solution(SAMPLES / name, format="highs", col_names=COLS)
        assert (sol.solver, sol.status, sol.objective, sol.values) == ("highs", "optimal", -21.5, OPT)


def test_formats_and_detection() -> None:
    assert set(FORMATS) == {"cbc", "highs", "scip", "gurobi", "cplex", "glpk", "xpress", "copt"}
    assert detect_format("Optimal - objective value 1.0\n      0 x 1 0\n") == "cbc"
    assert detect_format("Feasible solution - objective 0.0\n0 x 4.0 -3.0\n") == "cbc"
    assert detect_format("objective value: 3\nx 1 \t(obj:3)\n") == "scip"
    assert detect_format("no solution available\n") == "scip"


# ---------------------------------------------------------------- round trips with real solvers


def _cbc(tmp_path: Path, model: str, *args: str) -> Path:
    out = tmp_path / "cbc_out.txt"
    if not (tmp_path / model).exists():
        shutil.copy(SAMPLES / model, tmp_path / model)
    subprocess.run([CBC, model, *args, "-solve", "-solu", out.name], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    return out


@pytest.mark.parametrize("model, args, status, raw", [
    ("model.mps", (), "optimal", "Optimal"),
    ("model.mps", ("-printingOptions", "all"), "optimal", "Optimal"),
    ("infeasible.mps", (), "infeasible", "Infeasible"),
    ("mknap.mps", ("-maxSolutions", "1"), "feasible", "Stopped on iterations"),
    ("mknap.mps", ("-maxSolutions", "1", "-printingOptions", "all"), "feasible", "Stopped on iterations"),
    ("hard_msplit.mps", ("-maxNodes", "0", "-heuristicsOnOff", "off", "-cuts", "off"), "no_solution",
     "Stopped on iterations (no integer solution - continuous used)"),
])
def test_cbc_program(tmp_path, mknap, model, args, status, raw) -> None:
    sol = read_solution(_cbc(tmp_path, model, *args))
    assert (sol.solver, sol.status, sol.raw_status) == ("cbc", status, raw)
    if model == "model.mps":
        assert (sol.objective, sol.to_array(COLS).tolist()) == (-21.5, [4.0, 3.0, 1.0, 3.0, 2.0, 0.0])
    if model == "mknap.mps":
        _check_values(sol, "mknap", mknap)


UNBOUNDED_MPS = """NAME UNB FREE
ROWS
 N obj
 L c1
COLUMNS
 MARKER 'MARKER' 'INTORG'
 x obj 1 c1 1
 MARKER 'MARKER' 'INTEND'
 y obj 0 c1 1
RHS
 RHS c1 4
BOUNDS
 MI BND x
 PL BND x
ENDATA
"""


def test_unbounded_with_every_program(tmp_path) -> None:
    (tmp_path / "unb.mps").write_text(UNBOUNDED_MPS)
    sol = read_solution(_cbc(tmp_path, "unb.mps"))
    assert (sol.status, sol.raw_status, sol.values) == ("unbounded", "Unbounded", {})
    subprocess.run([GLPSOL, "--freemps", "unb.mps", "-w", "g.txt"], cwd=tmp_path, check=True, capture_output=True)
    sol = read_solution(tmp_path / "g.txt", col_names=["x", "y"])
    assert (sol.status, sol.raw_status) == ("no_solution", "s mip u: undefined")
    h = _highs_model(tmp_path / "unb.mps")
    h.run()
    h.writeSolution(str(tmp_path / "h.sol"), 0)
    sol = read_solution(tmp_path / "h.sol")
    assert (sol.status, sol.raw_status) == ("no_solution", "Primal infeasible or unbounded")


@pytest.mark.parametrize("phrase, status", [
    ("Optimal (within gap tolerance)", "optimal"),
    ("Stopped on time", "feasible"),
    ("Stopped on iterations", "feasible"),
    ("Stopped on difficulties", "feasible"),
    ("Stopped on ctrl-c", "feasible"),
    ("Stopped on ctrl-c (no integer solution - continuous used)", "no_solution"),
    # CBC devel, stopped by its time limit inside the root LP (seen with -sec 0)
    ("Stopped on time (LP relaxation not completed - no integer solution)", "no_solution"),
    ("Status unknown", "no_solution"),
])
def test_cbc_status_words(tmp_path, phrase, status) -> None:
    path = tmp_path / "s.txt"
    path.write_text(f"{phrase} - objective value -21.50000000\n      0 x 4 0\n      1 y 3 0\n")
    sol = read_solution(path)
    assert (sol.status, sol.raw_status) == (status, phrase)
    assert sol.values == ({"x": 4.0, "y": 3.0} if status == "feasible" or status == "optimal" else {})


def test_python_mip_cbc_solution_file(tmp_path) -> None:
    import mip

    m = mip.Model(solver_name="CBC")
    m.verbose = 0
    m.read(str(MODEL))
    assert m.optimize() == mip.OptimizationStatus.OPTIMAL
    m.write(str(tmp_path / "pm.sol"))
    sol = read_solution(tmp_path / "pm.sol")
    # python-mip writes each value's repr: no printing precision (digits None), even where every value is short
    # enough to look like CBC 2.10's 8 digits
    assert (sol.solver, sol.status, sol.objective, sol.omits_zeros, sol.digits) == ("cbc", "feasible", None, True, None)
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]
    # no status words in the file: raw_status says so (decode's messages quote it), rather than passing 'Feasible
    # solution' off as what the solver said
    assert sol.raw_status == "Feasible solution (python-mip .sol: no status)"


@pytest.mark.parametrize("model, flag, status", [
    ("model.mps", "-w", "optimal"), ("model.mps", "-o", "optimal"),
    ("infeasible.mps", "-w", "infeasible"), ("infeasible.mps", "-o", "infeasible"),
    ("lp_only.mps", "-w", "no_solution"), ("lp_only.mps", "-o", "no_solution"),
])
def test_glpsol_program(tmp_path, model, flag, status) -> None:
    shutil.copy(SAMPLES / model, tmp_path / model)
    subprocess.run([GLPSOL, "--freemps", model, flag, "out.txt"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    cols = {"model.mps": COLS, "infeasible.mps": ["a", "b"], "lp_only.mps": ["x", "y"]}[model]
    sol = read_solution(tmp_path / "out.txt", col_names=cols)
    assert (sol.solver, sol.status) == ("glpk", status)
    if status == "optimal":
        assert (sol.objective, sol.values) == (-21.5, OPT)


@pytest.mark.parametrize("style", [-1, 0, 1, 2, 3, 4])
def test_highspy_styles(tmp_path, mknap, style) -> None:
    h = _highs_model(MODEL)
    h.run()
    h.writeSolution(str(tmp_path / "h.sol"), style)
    sol = read_solution(tmp_path / "h.sol", col_names=COLS)
    assert sol.status == ("feasible" if style == -1 else "optimal")
    assert sol.solver == ("glpk" if style in (2, 3) else "highs")
    assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]
    assert sol.objective == (None if style == -1 else -21.5)
    # HiGHS 1.16 states the bound of a MIP solved to optimality in styles 0, 1 and 4; 1.15 never does.
    writes_bound = style in (0, 1, 4) and tuple(int(p) for p in h.version().split(".")[:2]) >= (1, 16)
    assert sol.bound == (-21.5 if writes_bound else None)
    if style in (2, 3):
        assert read_solution(tmp_path / "h.sol", format="highs", col_names=COLS).solver == "highs"

    # A solution limit stops HiGHS deterministically with an incumbent.
    h = _highs_model(SAMPLES / "mknap.mps")
    h.setOptionValue("mip_max_improving_sols", 1)
    h.run()
    h.writeSolution(str(tmp_path / "limit.sol"), style)
    sol = read_solution(tmp_path / "limit.sol", col_names=mknap[0])
    assert sol.status == "feasible"
    assert sol.raw_status in ("Solution limit reached", "s mip f: feasible", "INTEGER NON-OPTIMAL",
                              "T Primal solution (style -1 has no model status)")
    if style != -1:  # style -1 has no objective to check against
        _check_values(sol, "mknap", mknap)
    assert float(mknap[1] @ sol.to_array(mknap[0])) == h.getInfo().objective_function_value
    assert sol.bound is None  # a limit, not optimality: no version states the bound then


@pytest.mark.parametrize("style", [0, 1, 2, 3, 4])
def test_highspy_infeasible(tmp_path, style) -> None:
    h = _highs_model(SAMPLES / "infeasible.mps")
    h.run()
    h.writeSolution(str(tmp_path / "h.sol"), style)
    sol = read_solution(tmp_path / "h.sol", col_names=["a", "b"])
    assert (sol.status, sol.objective, sol.values) == ("infeasible", None, {})


def test_highspy_style_minus_one_infeasible_is_an_empty_file(tmp_path) -> None:
    h = _highs_model(SAMPLES / "infeasible.mps")
    h.run()
    h.writeSolution(str(tmp_path / "h.sol"), -1)
    with pytest.raises(OlctcError) as err:
        read_solution(tmp_path / "h.sol")
    assert str(err.value) == (f"{tmp_path / 'h.sol'}: expected a solution file (cplex, gurobi, scip, cbc, glpk, "
                              "highs, xpress, copt), got an empty file")


def test_pyscipopt(tmp_path, mknap) -> None:
    import pyscipopt

    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(MODEL))
    m.optimize()
    m.writeBestSol(str(tmp_path / "best.sol"))
    m.writeBestSol(str(tmp_path / "zeros.sol"), write_zeros=True)
    for name, values in (("best.sol", {k: v for k, v in OPT.items() if v}), ("zeros.sol", OPT)):
        sol = read_solution(tmp_path / name)
        assert (sol.solver, sol.status, sol.objective, sol.values) == ("scip", "feasible", -21.5, values)
        assert sol.to_array(COLS).tolist() == [4.0, 3.0, 1.0, 3.0, 2.0, 0.0]

    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(SAMPLES / "infeasible.mps"))
    m.optimize()
    m.writeBestSol(str(tmp_path / "inf.sol"))
    assert read_solution(tmp_path / "inf.sol").status == "no_solution"

    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(SAMPLES / "mknap.mps"))
    m.setParam("limits/solutions", 1)
    m.optimize()
    m.writeBestSol(str(tmp_path / "limit.sol"))
    sol = read_solution(tmp_path / "limit.sol")
    assert (sol.status, sol.objective) == ("feasible", m.getObjVal())
    _check_values(sol, "mknap", mknap)


# ---------------------------------------------------------------- to_array


def test_to_array_rules() -> None:
    sol = read_solution(SAMPLES / "gurobi_solution.sol")
    with pytest.raises(OlctcError) as err:
        sol.to_array(["x", "y", "z", "v", "w", "u", "t"])
    assert str(err.value) == f"{SAMPLES / 'gurobi_solution.sol'}: expected a value for every column, got none for column 't'"
    with pytest.raises(OlctcError) as err:
        sol.to_array(["x", "y", "z", "v", "w"])
    assert str(err.value) == f"{SAMPLES / 'gurobi_solution.sol'}: expected only columns of the model, got unknown column 'u'"
    # A model that really has a column named like a helper gets its value.
    assert sol.to_array(COLS + ["MPS_Rgc3"]).tolist()[-1] == 5.0
    # Zero-omitting formats: absent columns are 0.
    assert read_solution(SAMPLES / "scip_solution.sol").to_array(COLS + ["t"]).tolist()[-2:] == [0.0, 0.0]
    sol = read_solution(SAMPLES / "cbc_timelimit_solution.txt")
    with pytest.raises(OlctcError) as err:
        sol.to_array(COLS)
    assert str(err.value) == (f"{SAMPLES / 'cbc_timelimit_solution.txt'}: expected a solution to convert to an "
                              "array, got status 'no_solution' (Stopped on time (no integer solution - continuous "
                              "used))")


def test_to_array_takes_numpy_names() -> None:
    # olctc's Block.names() gives numpy unicode arrays.
    sol = read_solution(SAMPLES / "glpk_solution_w.txt", col_names=np.array(COLS))
    assert sol.values == OPT
    with pytest.raises(OlctcError) as err:
        sol.to_array(np.array(COLS + ["t"]))
    assert str(err.value).endswith("expected a value for every column, got none for column 't'")


def test_scip_helper_column_is_skipped() -> None:
    # SCIP 10 names the epigraph column of a quadratic objective after the file it read: LP or MPS.
    for helper in ("quadobjvar", "qmatrixvar"):
        sol = Solution("optimal", 1.0, {"x": 1.0, helper: 3.0}, "scip", "optimal solution found", True)
        assert sol.to_array(["x", "y"]).tolist() == [1.0, 0.0]


def test_printed_digits_of_each_format() -> None:
    # Formats that round values say how much; the others (None) print 13 digits or more.
    expect = {"glpk_output_o.txt": 6, "highs_solution_style1.sol": 6, "highs_solution_style3.sol": 6,
              "highs_1.16_solution_style1.sol": 6, "cbc_2.10.8_solution.txt": 8,
              "cbc_timelimit_incumbent_solution.txt": 8, "highs_solution.sol": None,
              "highs_solution_style4.sol": None, "scip_solution.sol": None, "gurobi_solution.sol": None,
              "cplex_solution.sol": None, "cbc_infeasible_solution.txt": None,
              "xpress_9.9_heart16_olct_d1.slx": None, "copt_8.0_heart16_olct_d1.sol": None}
    assert {n: read_solution(SAMPLES / n).digits for n in expect} == expect
    assert read_solution(SAMPLES / "glpk_solution_w.txt", col_names=COLS).digits is None


def test_printed_digits_measured_on_the_values() -> None:
    from olctc.read._base import printed_digits

    # A writer's own precision is the floor: short values were rounded at that digit too.
    assert printed_digits(np.array([1.0, 0.5, 0.0, -3e-7]), 6) == 6
    assert printed_digits(np.array([-0.0347922, 123456.0, 1.5e10]), 6) == 6
    # A value with more digits shows another writer (CBC devel after CBC 2.10's 8 digits).
    assert printed_digits(np.array([0.12345678, 0.0347921791251622]), 8) is None
    assert printed_digits(np.array([0.1234567891, -98.76543210]), 8) == 10
    assert printed_digits(np.zeros(3), 8) == 8


# ---------------------------------------------------------------- bad input


def _write(tmp_path: Path, text: str, name: str = "bad.sol") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


KNOWN = "cplex, gurobi, scip, cbc, glpk, highs, xpress, copt"
HIGHS_HEAD = "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective -21.5\n"


@pytest.mark.parametrize("text, kwargs, message", [
    ("", {}, f": expected a solution file ({KNOWN}), got an empty file"),
    ("\n  \n", {}, f": expected a solution file ({KNOWN}), got an empty file"),
    ("hello world\n", {}, f":1: expected a solution file of a known format ({KNOWN}), got 'hello world'"),
    ("# MIP start\nx 4\n", {}, f":1: expected a solution file of a known format ({KNOWN}), got '# MIP start'"),
    (HIGHS_HEAD + "# Columns 6\nx 4\ny 3\nz 1\n", {},
     ":10: expected 6 lines after '# Columns 6' (line 7), got 3 (file truncated?)"),
    (HIGHS_HEAD + "# Columns 6\nx 4\ny 3\n# Rows 5\nc1 8\n", {},
     ":10: expected 6 lines after '# Columns 6' (line 7), got 2 (file truncated?)"),
    (HIGHS_HEAD + "# Columns -3\nx 4 0\nz 1 2\n", {},
     ":9: expected 3 lines after '# Columns -3' (line 7), got 2 (file truncated?)"),
    (HIGHS_HEAD + "# Columns 2\nx 4\ny 3\n# Rows 2\nc1 8\n", {},
     ":11: expected 2 lines after '# Rows 2' (line 10), got 1 (file truncated?)"),
    (HIGHS_HEAD, {}, ":7: expected '# Columns <n>', got end of file (file truncated?)"),
    (HIGHS_HEAD + "# Columns 2\nx 4\ny nan\n", {},
     ":9: expected a finite number as the value of column 'y', got 'nan'"),
    (HIGHS_HEAD + "# Columns 2\nx 4\ny 3..0\n", {},
     ":9: expected a finite number as the value of column 'y', got '3..0'"),
    (HIGHS_HEAD + "# Columns 2\nx 1_0\ny 3\n", {},
     ":8: expected a finite number as the value of column 'x', got '1_0'"),
    (HIGHS_HEAD + "# Columns 2\nx 4 extra\ny 3\n", {}, ":8: expected 'name value', got 'x 4 extra'"),
    ("Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective abc\n# Columns 1\nx 4\n", {},
     ":6: expected a finite objective value, got 'abc'"),
    (HIGHS_HEAD + "Objective_bound -21.5\nGap 0\n# Columns 1\nx 4\n", {},
     ":8: expected '# Columns <n>', 'Objective_bound <v>' or 'MIP_rel_gap <v>', got 'Gap 0'"),
    (HIGHS_HEAD + "Objective_bound -21.5\nObjective_bound -21.5\n# Columns 1\nx 4\n", {},
     ":8: expected '# Columns <n>', 'Objective_bound <v>' or 'MIP_rel_gap <v>', got 'Objective_bound -21.5'"),
    (HIGHS_HEAD + "Objective_bound low\n# Columns 1\nx 4\n", {},
     ":7: expected a number after 'Objective_bound', got 'low'"),
    (HIGHS_HEAD + "Objective_bound -21.5\n", {}, ":8: expected '# Columns <n>', got end of file (file truncated?)"),
    (HIGHS_HEAD + "# Columns 1 sparse\nx 4 0\n", {},
     ":7: expected '# Columns -<k> sparse' (a negative count, or 0), got '# Columns 1 sparse'"),
    (HIGHS_HEAD + "# Columns -2 sparse\nx 4 0\n", {},
     ":8: expected 2 lines after '# Columns -2 sparse' (line 7), got 1 (file truncated?)"),
    ("Optimal - objective value -21.5\n      0 x 4 0\n      1 y inf 0\n", {},
     ":3: expected a finite number as the value of column 'y', got 'inf'"),
    ("Optimal - objective value -21.5\n      0 x 4 0\n      1 y 3\n", {},
     ":3: expected 'index name value reduced_cost', got '1 y 3'"),
    ("Optimal - objective value -21.5\n      0 x 4 0\n      1 y 3 0", {},
     ":3: expected a newline at the end of the last line, got a cut line (file truncated?)"),
    ("Optimal - objective value -21.5\n      0 x 4 0\n      1 x 3 0\n", {},
     ":3: expected each column once, got 'x' again (first on line 2)"),
    ("Solved somehow - objective value 1\n      0 x 4 0\n", {},
     ":1: expected a CBC status (Optimal, Infeasible, Integer infeasible, Unbounded, Stopped on ...), got "
     "'Solved somehow'"),
    ("c Problem: T\nc\ns mip 1 2 o 3\ni 1 3\nj 1 1\nj 2 2\n", {"col_names": ["a", "b"]},
     ":6: expected 'e o f' as the last line, got end of file after line 6 (file truncated?)"),
    ("c Problem: T\nc\ns mip 1 2 o 3\ni 1 3\nj 1 1\nj 2 2\ne o f\n", {},
     ": expected col_names (the MPS column order) to map the column numbers of a GLPK -w file, got none"),
    ("c Problem: T\nc\ns mip 1 2 o 3\ni 1 3\nj 1 1\nj 2 2\ne o f\n", {"col_names": ["a"]},
     ":3: the file holds 2 columns (its 's' line) and the model 1: the solution belongs to another model"),
    ("c Problem: T\nc\ns mip 1 2 o 3\ni 1 3\nj 1 1\ne o f\n", {"col_names": ["a", "b"]},
     ":6: expected 2 'j' lines, as the 's' line says, got 1 (file truncated?)"),
    ("c Problem: T\nc\ns mip 1 2 o 3\ni 1 3\nj 1 1\nj 3 2\ne o f\n", {"col_names": ["a", "b"]},
     ":6: expected 'j 2 VALUE', got 'j 3 2'"),
    ("c Problem: T\nc\ns mip 1 2 x 3\ne o f\n", {"col_names": ["a", "b"]},
     ":3: expected a status letter among o, f, n, u, got 'x'"),
    ('<?xml version="1.0"?>\n<CPLEXSolution version="1.2">\n <header solutionStatusValue="101"\n', {},
     ":3: expected well-formed CPLEX solution XML, got 'unclosed token: line 3, column 1' (file truncated?)"),
    ("# Solution for model m\n# Objective value = 1\n# olctc: status proven\nx 1\n", {},
     ":3: expected '# olctc: status optimal|feasible[, bound B]', got '# olctc: status proven'"),
    ("# Solution for model m\n# Objective value = 1\nx 1\nx 2\n", {},
     ":4: expected each column once, got 'x' again (first on line 3)"),
    ("solution status: optimal solution found\nobjective value: 1\nx 1 \t(obj:1)\ny -nan \t(obj:0)\n", {},
     ":4: expected a finite number as the value of column 'y', got '-nan'"),
    ("solution status: optimal solution found\n", {},
     ":2: expected 'objective value: <v>' or 'no solution available', got end of file (file truncated?)"),
    ("Optimal - objective value -21.5\n      0 x 4 0\n", {"format": "gurobi"},
     ": expected a Gurobi solution file (first line '# Solution for model ...'), got a CBC file"),
    ("hello\n", {"format": "scip"},
     ": expected a SCIP solution file (first line 'solution status: ...' or 'objective value: ...'), got 'hello'"),
    ("NAME          M\n  C x  4\n  C y  3\n", {},
     ":3: expected 'ENDATA' as the last line, got 'C y  3' (file truncated?)"),
    ("NAME          M\n  C x  4\n  C y\nENDATA\n", {}, ":3: expected 'C name value', got 'C y'"),
    ("NAME          M\n  C x  4\n  Q y  3\nENDATA\n", {},
     ":3: expected 'C name value' (or S, D, R lines), got 'Q y  3'"),
    ("NAME          M\n  C x  4\n  C y  nan\nENDATA\n", {},
     ":3: expected a finite number as the value of column 'y', got 'nan'"),
    ("NAME          M\n  C x  0x4010000000000000\n  C y  0x7ff0000000000000\nENDATA\n", {},
     ":3: expected a finite double as 16 hexadecimal digits (0x...) as the value of column 'y', "
     "got '0x7ff0000000000000'"),
    ("NAME          M\n  C x  0x4010000000000000\n  C y  3\nENDATA\n", {},
     ":3: expected a finite double as 16 hexadecimal digits (0x...) as the value of column 'y', got '3'"),
    ("NAME          M\n  C x  4\n  C x  3\nENDATA\n", {},
     ":3: expected each column once, got 'x' again (first on line 2)"),
    ("NAME          M\n  C x  4\nENDATA\nNAME          M\n  C x  4\nENDATA\n", {},
     ":3: expected one solution per file ('C name value' lines), got 'ENDATA'"),
    ("# Objective value -21.5\nx 4\ny 3", {},
     ":3: expected a newline at the end of the last line, got a cut line (file truncated?)"),
    ("# Objective value -21.5\nx 4\ny\n", {}, ":3: expected 'name value', got 'y'"),
    ("# Objective value -21.5\nx 4\n# y\n", {}, ":3: expected 'name value' lines after the objective, got '# y'"),
    ("# Objective value low\nx 4\n", {}, ":1: expected a finite objective value, got 'low'"),
    ("Optimal - objective value -21.5\n      0 x 4 0\n", {"format": "xpress"},
     ": expected an Xpress solution file (first line 'NAME ...', then 'C name value' lines and 'ENDATA'), got a CBC "
     "file"),
])
def test_bad_input(tmp_path, text, kwargs, message) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(OlctcError) as err:
        read_solution(path, **kwargs)
    assert str(err.value) == f"{path}{message}"
    assert "\n" not in str(err.value)


def test_highs_bound_lines_in_either_order_and_infinite(tmp_path) -> None:
    path = _write(tmp_path, HIGHS_HEAD + "MIP_rel_gap 0.5\nObjective_bound -30\n# Columns 1\nx 4\n")
    assert (read_solution(path).bound, read_solution(path).values) == (-30.0, {"x": 4.0})
    # An infinite bound is no bound (as SolveResult.bound of an in-process solve).
    path = _write(tmp_path, HIGHS_HEAD + "Objective_bound -inf\nMIP_rel_gap inf\n# Columns 1\nx 4\n")
    assert read_solution(path).bound is None


def test_missing_file_and_folder(tmp_path) -> None:
    with pytest.raises(OlctcError) as err:
        read_solution(tmp_path / "nope.sol")
    assert str(err.value) == f"{tmp_path / 'nope.sol'}: expected a solution file, got no such file"
    with pytest.raises(OlctcError) as err:
        read_solution(tmp_path)
    assert str(err.value) == f"{tmp_path}: expected a solution file, got a directory"


def test_binary_file(tmp_path) -> None:
    path = tmp_path / "x.sol"
    path.write_bytes(b"\x00\x01\x02\x03 Optimal\n")
    with pytest.raises(OlctcError) as err:
        read_solution(path)
    assert str(err.value) == (f"{path}: expected a text solution file (cplex, gurobi, scip, cbc, glpk, highs, "
                              "xpress, copt), got binary content")


def test_unknown_format_name(tmp_path) -> None:
    with pytest.raises(OlctcError) as err:
        read_solution(SAMPLES / "highs_solution.sol", format="mosek")
    assert str(err.value) == ("The 'format' parameter must be one of cplex, gurobi, scip, cbc, glpk, highs, xpress, "
                              "copt (or none, to detect it from the content). Got 'mosek' instead.")


def test_cplex_mip_start_is_not_a_solution() -> None:
    with pytest.raises(OlctcError) as err:
        read_solution(SAMPLES / "cplex_mipstart.mst")
    assert str(err.value) == (f"{SAMPLES / 'cplex_mipstart.mst'}: expected a header with solutionStatusValue "
                              "(a solution, not a MIP start), got a header without a status")


def test_cplex_discrete_only_write_level_is_refused(tmp_path) -> None:
    text = (SAMPLES / "cplex_solution.sol").read_text().replace('writeLevel="1"', 'writeLevel="2"')
    path = _write(tmp_path, text)
    with pytest.raises(OlctcError) as err:
        read_solution(path)
    assert str(err.value) == (f"{path}: expected writeLevel 1 (all values) or 3 (nonzero values), got "
                              "writeLevel 2 (discrete variables only)")


def test_cbc_bound_violation_marker(tmp_path) -> None:
    # CBC prints '** ' before the index of a column outside its bounds (CbcSolver.cpp).
    text = (SAMPLES / "cbc_2.10.8_solution.txt").read_text().replace("      2 z", "**       2 z")
    sol = read_solution(_write(tmp_path, text))
    assert (sol.status, sol.values) == ("optimal", OPT)


def test_detect_format_unrecognised() -> None:
    with pytest.raises(OlctcError) as err:
        detect_format("\nsomething else\n")
    assert str(err.value) == ("solution text:2: expected a solution file of a known format (cplex, gurobi, scip, "
                              "cbc, glpk, highs, xpress, copt), got 'something else'")
    with pytest.raises(OlctcError) as err:
        detect_format("")
    assert str(err.value) == ("solution text: expected a solution file (cplex, gurobi, scip, cbc, glpk, highs, "
                              "xpress, copt), got an empty text")


# ---------------------------------------------------------------- QA: compressed and re-encoded files, cut files


@pytest.mark.parametrize("name", ["gurobi_solution.sol", "cplex_solution.sol", "highs_solution.sol",
                                  "cbc_2.10.8_solution.txt", "glpk_solution_w.txt", "scip_solution.sol",
                                  "xpress_9.9_solution.slx", "copt_8.0_solution.sol"])
@pytest.mark.parametrize("pack", ["gzip", "bz2"])
def test_compressed_solution_files_are_read(tmp_path, name, pack) -> None:
    # gurobi_cl ResultFile=x.sol.gz (and .bz2) writes a compressed solution; a user may gzip any file.
    import bz2
    import gzip

    data = (SAMPLES / name).read_bytes()
    path = tmp_path / f"{name}.{pack}"
    path.write_bytes(gzip.compress(data) if pack == "gzip" else bz2.compress(data))
    plain = read_solution(SAMPLES / name, col_names=COLS)
    sol = read_solution(path, col_names=COLS)
    assert (sol.solver, sol.status, sol.objective, sol.values) == (plain.solver, plain.status, plain.objective,
                                                                   plain.values)


def test_cut_or_archived_compressed_file_is_refused(tmp_path) -> None:
    import gzip
    import zipfile

    cut = tmp_path / "cut.sol.gz"
    cut.write_bytes(gzip.compress((SAMPLES / "highs_solution.sol").read_bytes())[:40])
    with pytest.raises(OlctcError) as err:
        read_solution(cut)
    assert str(err.value).startswith(f"{cut}: expected a complete gzip file, got a damaged or cut one (")
    archive = tmp_path / "sol.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(SAMPLES / "highs_solution.sol", "highs_solution.sol")
    with pytest.raises(OlctcError) as err:
        read_solution(archive)
    assert str(err.value) == (f"{archive}: expected a solution file (cplex, gurobi, scip, cbc, glpk, highs, xpress, "
                              "copt, or gzip/bzip2 of one), got a zip archive: extract the solution file from it first")


@pytest.mark.parametrize("name", ["highs_solution.sol", "cbc_2.10.8_solution.txt", "scip_solution.sol",
                                  "gurobi_solution.sol", "glpk_output_o.txt", "cplex_solution.sol",
                                  "xpress_9.9_solution.slx", "copt_8.0_solution.sol"])
@pytest.mark.parametrize("encoding", ["utf-8-sig", "utf-16"])
def test_byte_order_mark_and_utf16(tmp_path, name, encoding) -> None:
    # Windows editors add a UTF-8 byte order mark; PowerShell's redirection writes UTF-16 with one.
    text = (SAMPLES / name).read_text()
    if encoding == "utf-16" and name == "cplex_solution.sol":
        text = text.replace('encoding="UTF-8"', 'encoding="UTF-16"')
    path = tmp_path / name
    path.write_bytes(text.replace("\n", "\r\n").encode(encoding))
    plain = read_solution(SAMPLES / name)
    sol = read_solution(path)
    assert (sol.solver, sol.status, sol.objective, sol.values) == (plain.solver, plain.status, plain.objective,
                                                                   plain.values)


def _cut_inside_last_column_value(text: str, last_name: str) -> str:
    """``text`` up to the line of column ``last_name``, cut two characters before that line's end."""
    lines = text.splitlines(keepends=True)
    k = next(k for k, line in enumerate(lines) if line.split()[:1] == [last_name]
             or line.split()[1:2] == [last_name])
    return "".join(lines[:k]) + lines[k].rstrip("\n")[:-2]


@pytest.mark.parametrize("name", ["glpk_output_o.txt", "highs_solution_style3.sol"])
def test_glpk_printable_cut_in_the_header_or_after_a_long_name(tmp_path, name) -> None:
    text = (SAMPLES / name).read_text()
    # cut inside 'Objective:  obj = -21.5 (MINimum)', after the '=': was an IndexError
    at = text.index("Objective:")
    path = _write(tmp_path, text[:text.index("=", at) + 1])
    with pytest.raises(OlctcError) as err:
        read_solution(path)
    assert str(err.value) == f"{path}:6: expected a finite objective value, got ''"


LONG_NAMES_MPS = """NAME LONG FREE
ROWS
 N obj
 L c1
COLUMNS
 MARKER 'MARKER' 'INTORG'
 x obj -2 c1 1
 MARKER 'MARKER' 'INTEND'
 a_column_name_longer_than_12 obj -1 c1 1
RHS
 RHS c1 3.5
BOUNDS
 UP BND x 2
 UP BND a_column_name_longer_than_12 10
ENDATA
"""


def test_glpk_printable_cut_after_a_long_column_name(tmp_path) -> None:
    # glpsol puts a name over 12 characters on a line of its own; a file cut right after it was an IndexError.
    (tmp_path / "long.mps").write_text(LONG_NAMES_MPS)
    subprocess.run([GLPSOL, "--freemps", "long.mps", "-o", "full.txt"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    full = read_solution(tmp_path / "full.txt")
    assert full.values == {"x": 2.0, "a_column_name_longer_than_12": 1.5}
    text = (tmp_path / "full.txt").read_text()
    end = text.index("a_column_name_longer_than_12\n", text.index("Column name")) + len("a_column_name_longer_than_12")
    for cut in (text[:end], text[:end + 1]):
        path = _write(tmp_path, cut)
        with pytest.raises(OlctcError) as err:
            read_solution(path)
        line = cut.rstrip("\n").count("\n") + 1  # the name's line
        assert str(err.value) == (f"{path}:{line}: expected the activity of column "
                                  "'a_column_name_longer_than_12' on the next line, got end of file (file truncated?)")


def test_glpk_printable_cut_inside_the_last_value(tmp_path) -> None:
    # glpsol -o goes on after the column table ('Integer feasibility conditions', 'End of output'): a file that
    # ends inside the last activity was read with that value shortened (1 for 1.5).
    (tmp_path / "long.mps").write_text(LONG_NAMES_MPS)
    subprocess.run([GLPSOL, "--freemps", "long.mps", "-o", "full.txt"], cwd=tmp_path, check=True,
                   capture_output=True, timeout=60)
    text = (tmp_path / "full.txt").read_text()
    table = text.index("Column name")
    cut = text[:text.index(" 1.5 ", table) + 2]  # '... 1.' of the last column's activity 1.5
    path = _write(tmp_path, cut)
    with pytest.raises(OlctcError) as err:
        read_solution(path)
    assert str(err.value) == (f"{path}:{cut.count(chr(10)) + 1}: expected a newline at the end of the last line, "
                              "got a cut line (file truncated?)")


@pytest.mark.parametrize("style", [0, -1])
def test_highs_file_cut_inside_the_last_column_value(tmp_path, style) -> None:
    # Style 0 goes on with '# Rows', style -1 with 'Rows': a file ending inside the last column's value was read
    # with that value shortened (1 for 1.5).
    (tmp_path / "long.mps").write_text(LONG_NAMES_MPS)
    h = _highs_model(tmp_path / "long.mps")
    h.run()
    h.writeSolution(str(tmp_path / "full.sol"), style)
    names = ["x", "a_column_name_longer_than_12"]
    assert read_solution(tmp_path / "full.sol", col_names=names).values == {"x": 2.0, names[1]: 1.5}
    text = (tmp_path / "full.sol").read_text()
    at = text.index("a_column_name_longer_than_12 1.5\n") + len("a_column_name_longer_than_12 1.") if style == 0 \
        else text.index("\n1.5", text.index("Columns")) + len("\n1.")
    path = _write(tmp_path, text[:at])
    with pytest.raises(OlctcError) as err:
        read_solution(path, col_names=names)
    assert str(err.value) == (f"{path}:{text[:at].count(chr(10)) + 1}: expected a newline at the end of the last "
                              "line, got a cut line (file truncated?)")


def test_highs_style_minus_one_of_another_model(tmp_path) -> None:
    with pytest.raises(OlctcError) as err:
        read_solution(SAMPLES / "highs_solution_style-1.sol", col_names=COLS + ["extra"])
    assert str(err.value) == (f"{SAMPLES / 'highs_solution_style-1.sol'}:1: the file holds 6 columns (its line 1) "
                              "and the model 7: the solution belongs to another model")


@pytest.mark.parametrize("style", [2, 3])
def test_highs_glpsol_styles_without_a_solution(tmp_path, style) -> None:
    # HiGHS 1.15/1.16 write 's mip ... u inf' and 'Status: UNDEFINED' when a limit stops them before any incumbent:
    # 'u' is GLPK's "undefined", not "unbounded", and there is no LP solution either.
    h = _highs_model(SAMPLES / "hard_msplit.mps")
    h.setOptionValue("time_limit", 0.2)
    h.run()
    assert h.getInfo().primal_solution_status == 0  # no solution
    h.writeSolution(str(tmp_path / "h.sol"), style)
    for fmt in (None, "highs"):
        sol = read_solution(tmp_path / "h.sol", format=fmt, col_names=COL_NAMES["msplit"])
        assert (sol.status, sol.values) == ("no_solution", {})
        assert sol.raw_status == ("s mip u: undefined" if style == 2 else "UNDEFINED")


@pytest.mark.parametrize("integer", [False, True])
def test_highspy_style_1_values_wider_than_their_field(tmp_path, integer) -> None:
    """%12g writes -1.23457e-200 in 13 characters, pushing the rest of the line right: the fixed-width
    reader took '0 -1.23457e-' for the value and refused a good file."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = 4, 1
    v = np.array([-1.234567e-200, 3.333333e15, -2.545454e-120, 7.0])
    lp.col_cost_ = np.array([1.0, 0.0, -1.0, 1.0])
    lp.col_lower_, lp.col_upper_ = v, v
    lp.row_lower_, lp.row_upper_ = np.array([-highspy.kHighsInf]), np.array([1e19])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array([0, 1, 2, 3, 4], dtype=np.int32)
    lp.a_matrix_.index_ = np.zeros(4, dtype=np.int32)
    lp.a_matrix_.value_ = np.array([1.0, 1.0, 1.0, -1.234567e-150])
    names = ["tiny_neg", "big", "mid_neg", "seven"]
    lp.col_names_, lp.row_names_ = names, ["r"]
    if integer:  # a MIP: no Status or Dual values, a Type column before Name
        lp.integrality_ = [highspy.HighsVarType.kContinuous] * 3 + [highspy.HighsVarType.kInteger]
    h.passModel(lp)
    h.run()
    h.writeSolution(str(tmp_path / "h.sol"), 1)
    assert "-1.23457e-200 -1.23457e-200 -1.23457e-200" in (tmp_path / "h.sol").read_text()
    sol = read_solution(tmp_path / "h.sol", col_names=names)
    assert sol.status == "optimal"
    assert sol.values == {"tiny_neg": -1.23457e-200, "big": 3.33333e15, "mid_neg": -2.54545e-120, "seven": 7.0}


def test_format_name_in_any_case() -> None:
    """--format HiGHS was refused: the docs spell the solvers HiGHS, CBC, GLPK."""
    assert read_solution(SAMPLES / "highs_solution.sol", format="HiGHS").objective == \
        read_solution(SAMPLES / "highs_solution.sol", format="highs").objective


def test_highs_style_minus_1_with_a_value_line_too_many(tmp_path) -> None:
    """A duplicated value line shifted every later value onto the next column: decode then said "z_1_0 must
    be integral". The reader now names the line where 'Rows' should be."""
    lines = (SAMPLES / "highs_solution_style-1.sol").read_text().split("\n")
    top = lines.index("Columns")
    path = tmp_path / "dup.sol"
    path.write_text("\n".join(lines[:top + 2] + [lines[top + 1]] + lines[top + 2:]))
    with pytest.raises(OlctcError) as err:
        read_solution(path, format="highs", col_names=[f"c{k}" for k in range(6)])
    assert str(err.value) == f"{path}:12: expected 'Rows' after the 6 values of line 1's count, got '0' (a value " \
                             "line too many?)"


def test_read_solution_leaves_the_garbage_collector_as_it_found_it(tmp_path):
    """The collector is paused while a file is parsed (its passes took 30-45% of the time at 400k columns):
    it must be on again afterwards, after a failed read too, and stay off for a caller that turned it off."""
    import gc

    good, bad = SAMPLES / "highs_solution.sol", tmp_path / "bad.sol"
    bad.write_text(good.read_text().replace("\ny 3\n", "\ny nope\n"))  # fails inside the parser
    assert gc.isenabled()
    assert read_solution(good).objective == -21.5 and gc.isenabled()
    with pytest.raises(OlctcError, match="nope"):
        read_solution(bad)
    assert gc.isenabled()
    gc.disable()
    try:
        read_solution(good)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_every_format_has_its_name_in_messages() -> None:
    """A message names a format as its solver is spelt ("an Xpress solution file", "got a HiGHS file")."""
    from olctc.read._base import READERS

    assert {r.name: r.named for r in READERS.values()} == {
        "cbc": "a CBC", "copt": "a COPT", "cplex": "a CPLEX", "glpk": "a GLPK", "gurobi": "a Gurobi",
        "highs": "a HiGHS", "scip": "a SCIP", "xpress": "an Xpress"}


@pytest.mark.parametrize("pack", ["gzip", "bz2"])
def test_a_compressed_file_that_expands_past_its_limit_is_refused(tmp_path, pack) -> None:
    """A few hundred bytes of bzip2 expanded to 300 MB, and 6 KB to 1.2 GB, all read into memory (QA 2026-12-05:
    decode died at 2.5 GB). A compressed solution may expand to 200x its size, at least 256 MiB, at most 4 GiB."""
    import bz2
    import zlib

    from olctc.read._base import MAX_RATIO

    data = (SAMPLES / "highs_solution.sol").read_bytes()
    pad = b" " * (1 << 20)
    packer = zlib.compressobj(wbits=31) if pack == "gzip" else bz2.BZ2Compressor()
    parts = [packer.compress(data)] + [packer.compress(pad) for _ in range(257)] + [packer.flush()]
    path = tmp_path / f"bomb.sol.{pack}"
    path.write_bytes(b"".join(parts))
    assert path.stat().st_size * MAX_RATIO < 256 << 20  # the 256 MiB floor is the limit here
    kind = "gzip" if pack == "gzip" else "bzip2"
    with pytest.raises(OlctcError) as err:
        read_solution(path, col_names=COLS)
    assert str(err.value) == (f"{path}: expected a {kind} solution file, got one that expands past 268,435,456 "
                              f"bytes ({path.stat().st_size:,} bytes packed): a damaged or crafted file; decompress "
                              "it yourself if it is a solution")
