"""Written model and start files as real solvers read them: every preset entry by entry, the SCIP start of a
MIQP, LP names that CPLEX reads as numbers, and whole compiles under different hash seeds."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from olctc.data import Scaler
from olctc.emit.lp import lp_bytes, write_lp
from olctc.emit.mps import write_mps
from olctc.emit.start import SCIP_QUADRATIC_HELPERS, write_start
from olctc.errors import OlctcError
from olctc.formulation import build_milp
from olctc.spec import PRESETS, make_spec
from olctc.warmstart import warm_start

INF = float("inf")
WRITERS = {"mps": write_mps, "lp": write_lp}


def instance(preset: str, score_variables: bool, n: int = 14, depth: int = 2, seed: int = 3):
    """A small compiled instance: (milp, spec, standardised X, y), data with a one-hot-like 0/1 column."""
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n), (np.arange(n) % 3 == 0).astype(float)])
    y = np.where(X[:, 0] + 0.4 * rng.normal(size=n) > 0, 1, -1)
    spec = make_spec(preset, depth, C=[1.0, 0.25], alpha=0.5 if PRESETS[preset].uses_alpha else 1.0,
                     tangents="V1" if preset.startswith("olct") else "V0", score_variables=score_variables)
    Xs = Scaler.fit(X).transform(X)
    return build_milp(Xs, y, spec, name="qa"), spec, Xs, y


def model_as_read_by_highs(path: Path) -> dict:
    import highspy
    import scipy.sparse as sp

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    lp = h.getLp()
    a = lp.a_matrix_
    A = sp.csc_matrix((np.array(a.value_), np.array(a.index_), np.array(a.start_)),
                      shape=(lp.num_row_, lp.num_col_)).tocsr()
    integer = np.array([int(v) for v in lp.integrality_]) > 0 if len(lp.integrality_) else np.zeros(lp.num_col_, bool)
    return {"cols": list(lp.col_names_), "rows": list(lp.row_names_), "c": np.array(lp.col_cost_),
            "lb": np.array(lp.col_lower_), "ub": np.array(lp.col_upper_), "integer": integer, "A": A,
            "rlo": np.array(lp.row_lower_), "rup": np.array(lp.row_upper_), "offset": lp.offset_}


def model_as_read_by_scip(path: Path) -> dict:
    import pyscipopt
    import scipy.sparse as sp

    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(path))
    inf = m.infinity()
    vs = [v for v in m.getVars() if v.name not in SCIP_QUADRATIC_HELPERS]
    idx = {v.name: j for j, v in enumerate(vs)}
    rows, ri, ci, vals, rlo, rup = [], [], [], [], [], []
    for cons in m.getConss():
        if cons.getConshdlrName() != "linear":
            continue  # SCIP's own row for a quadratic objective
        for name, v in m.getValsLinear(cons).items():
            ri.append(len(rows))
            ci.append(idx[name])
            vals.append(v)
        rows.append(cons.name)
        rlo.append(max(m.getLhs(cons), -INF) if m.getLhs(cons) > -inf else -INF)
        rup.append(m.getRhs(cons) if m.getRhs(cons) < inf else INF)
    lb = np.array([v.getLbOriginal() for v in vs])
    ub = np.array([v.getUbOriginal() for v in vs])
    return {"cols": [v.name for v in vs], "rows": rows, "c": np.array([v.getObj() for v in vs]),
            "lb": np.where(lb <= -inf, -INF, lb), "ub": np.where(ub >= inf, INF, ub),
            "integer": np.array([v.vtype() in ("BINARY", "INTEGER") for v in vs]),
            "A": sp.csr_matrix((vals, (ri, ci)), shape=(len(rows), len(vs))),
            "rlo": np.array(rlo), "rup": np.array(rup), "offset": m.getObjoffset()}


def assert_same_model(milp, got: dict, who: str) -> None:
    """Every cost, bound, integrality flag, coefficient and side equal, bit for bit, matched by name."""
    cols, rows = list(milp.col_names()), list(milp.row_names())
    assert sorted(got["cols"]) == sorted(cols), who
    assert sorted(got["rows"]) == sorted(rows), who
    cp = np.array([got["cols"].index(c) for c in cols])
    rp = np.array([got["rows"].index(r) for r in rows])
    np.testing.assert_array_equal(got["c"][cp], milp.c, err_msg=who)
    np.testing.assert_array_equal(got["lb"][cp], milp.lb, err_msg=who)
    np.testing.assert_array_equal(got["ub"][cp], milp.ub, err_msg=who)
    np.testing.assert_array_equal(got["integer"][cp], milp.integer, err_msg=who)
    A = got["A"][rp][:, cp]
    assert A.nnz == milp.nnz, who
    assert (A != milp.A).nnz == 0, who
    np.testing.assert_array_equal(got["rlo"][rp], np.where(milp.sense == "L", -INF, milp.rhs), err_msg=who)
    np.testing.assert_array_equal(got["rup"][rp], np.where(milp.sense == "G", INF, milp.rhs), err_msg=who)
    assert got["offset"] == milp.obj_constant, who


@pytest.mark.parametrize("score_variables", [False, True], ids=["paper", "scores"])
@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("preset", list(PRESETS))
def test_every_preset_is_read_entry_by_entry_alike_by_highs_scip_glpk_and_cbc(preset, fmt, score_variables,
                                                                              tmp_path):
    milp = instance(preset, score_variables)[0]
    path = tmp_path / f"m.{fmt}"
    WRITERS[fmt](milp, path)
    assert_same_model(milp, model_as_read_by_highs(path), "highs")  # a MIQP too: HiGHS reads, not solves, it
    assert_same_model(milp, model_as_read_by_scip(path), "scip")
    if milp.is_quadratic:
        return  # glpsol reads no quadratic objective, CBC solves none
    if shutil.which("glpsol"):
        out = subprocess.run(["glpsol", "--lp" if fmt == "lp" else "--freemps", str(path), "--check"],
                             capture_output=True, text=True).stdout
        got = re.search(r"(\d+) rows?, (\d+) columns?, (\d+) non-zeros?", out).groups()
        # glpsol counts the objective as a row of an MPS file (its N row), not of an LP file
        rows = milp.n_rows + (fmt == "mps")
        nnz = milp.nnz + (fmt == "mps") * int(np.count_nonzero(milp.c))
        assert tuple(map(int, got)) == (rows, milp.n_cols, nnz), out
        assert f"{int(milp.integer.sum())} integer variables, all of which are binary" in out
    if shutil.which("cbc"):
        out = subprocess.run(["cbc", str(path), "-quit"], capture_output=True, text=True).stdout
        m = re.search(r"\|Rows\| = (\d+)\s+\|Cols\| = (\d+)\s+\|NZ\| = (\d+)", out) or \
            re.search(r"has (\d+) rows, (\d+) columns and (\d+) elements", out)
        assert m is not None, out
        assert tuple(map(int, m.groups())) == (milp.n_rows, milp.n_cols, milp.nnz), out


@pytest.mark.parametrize("fmt", ["mps", "lp"])
@pytest.mark.parametrize("preset", ["margot", "margot-sfs"])
def test_scip_takes_the_start_of_a_miqp_with_its_objective(preset, fmt, tmp_path):
    """SCIP reads a quadratic objective into a helper column (qmatrixvar from MPS, quadobjvar from LP) of
    cost 1 and a row 0.5 x'Qx - helper <= 0. The SCIP start olctc wrote for MARGOT left the helper out,
    SCIP set it to 0 and threw the start away ("all 1 solutions given by solution candidate storage are
    infeasible"). With the helper's value the start is feasible and its objective is the start's."""
    import pyscipopt

    milp, spec, X, y = instance(preset, False)
    path = tmp_path / f"m.{fmt}"
    WRITERS[fmt](milp, path)
    x, _ = warm_start(milp, X, y, spec)
    names = [str(n) for n in milp.col_names()]
    quadratic = milp.quadratic_part(x)
    assert quadratic == pytest.approx(0.5 * float(np.sum(milp.values(x, "w") ** 2)), rel=1e-12) and quadratic > 0
    start = tmp_path / "m.start.scip.sol"
    for give, feasible in ((None, False), (quadratic, True)):
        write_start(start, names, x, "scip", objective=milp.objective(x), quadratic=give)
        m = pyscipopt.Model()
        m.hideOutput()
        m.readProblem(str(path))
        sol = m.readSolFile(str(start))
        assert m.checkSol(sol, original=True) is feasible
    assert m.getSolObjVal(sol, original=True) == pytest.approx(milp.objective(x), rel=1e-12, abs=1e-12)
    # ... and the solve starts from it (SCIP's `read` of the start, as NAME.solvers.txt says)
    m = pyscipopt.Model()
    m.setLogfile(str(tmp_path / "scip.log"))
    m.hideOutput()
    m.readProblem(str(path))
    m.setParam("limits/nodes", 1)
    m.readSol(str(start))
    m.optimize()
    log = (tmp_path / "scip.log").read_text()
    assert "1/1 feasible solution given by solution candidate storage" in log, log[:2000]


def test_the_quadratic_part_is_for_quadratic_models_only_and_only_the_scip_start_carries_it(tmp_path):
    milp, spec, X, y = instance("olct", False)
    x, _ = warm_start(milp, X, y, spec)
    assert milp.quadratic_part(x) is None
    names = [str(n) for n in milp.col_names()]
    for solver in ("gurobi", "cbc", "highs"):
        write_start(tmp_path / "a", names, x, solver, quadratic=1.5)
        write_start(tmp_path / "b", names, x, solver)
        assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()
    write_start(tmp_path / "s", names, x, "scip", quadratic=1.5)
    assert (tmp_path / "s").read_text().splitlines()[-2:] == ["qmatrixvar 1.5", "quadobjvar 1.5"]
    with pytest.raises(OlctcError, match="expected a finite quadratic part, got nan"):
        write_start(tmp_path / "s", names, x, "scip", quadratic=float("nan"))
    with pytest.raises(OlctcError, match="column 'qmatrixvar' has the name SCIP gives the helper column"):
        write_start(tmp_path / "s", names[:-1] + ["qmatrixvar"], x, "scip", quadratic=1.0)


def _two_column_model(names):
    import scipy.sparse as sp

    from olctc.milp import MILP, Block

    return MILP("t", np.array([1.0, 2.0]), sp.csr_matrix(np.array([[3.0, 1.0]])), np.array(["G"]),
                np.array([6.0]), np.zeros(2), np.full(2, 10.0), np.zeros(2, dtype=bool),
                tuple(Block(s, j, (), (), ()) for j, s in enumerate(names)), (Block("r0", 0, (), (), ()),))


@pytest.mark.parametrize("name", ["e", "E", "e1", "E9a", "ee", "eE_x"])
def test_lp_names_cplex_reads_as_numbers_are_refused(name):
    """CPLEX 22.1 reads "+ 1 e1" as the number 1e1 (error 1434) and "+ 2 e" by dropping the column e (a
    different model, silently), where HiGHS, SCIP, CBC and GLPK read a column: such names were written."""
    with pytest.raises(OlctcError, match=f"column name '{name}' reads as part of a number in CPLEX's LP format"):
        lp_bytes(_two_column_model([name, "x"]))
    with pytest.raises(OlctcError, match="reads as part of a number"):
        lp_bytes(_two_column_model(["x", name]))


@pytest.mark.parametrize("name", ["e_1", "ex", "excess_0", "err_3", "x_e1"])
def test_lp_names_that_only_start_like_an_exponent_are_written_and_read(name, tmp_path):
    path = tmp_path / "m.lp"
    write_lp(_two_column_model([name, "x"]), path)
    got = model_as_read_by_highs(path)
    assert got["cols"] == [name, "x"]
    np.testing.assert_array_equal(got["c"], [1.0, 2.0])


def test_compile_writes_byte_identical_files_under_different_hash_seeds(tmp_path):
    """Model, manifest, parameter and start files of two compiles in fresh processes with different
    PYTHONHASHSEED: nothing in them may depend on set or dict order."""
    csv = tmp_path / "d.csv"
    rng = np.random.default_rng(0)
    lines = ["a,b,color,w,y"] + [f"{rng.normal()!r},{rng.normal():.3f},{['red', 'green', 'blue'][i % 3]},"
                                 f"{[1, 2, 0.5, 0][i % 4]},{'yes' if i % 2 else 'no'}" for i in range(16)]
    csv.write_text("\n".join(lines) + "\n")
    outs = []
    for seed in ("1", "4242"):
        out = tmp_path / f"run{seed}"
        out.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": seed}
        for preset, fmt in (("olct", "mps"), ("margot-sfs", "lp")):
            r = subprocess.run([sys.executable, "-m", "olctc.cli", "compile", str(csv), "--target", "y",
                                "--weight-column", "w", "--class-weight", "balanced", "--preset", preset,
                                "--depth", "2", "--score-variables", "-o", str(out / f"{preset}.{fmt}")],
                               capture_output=True, text=True, env=env, cwd=tmp_path)
            assert r.returncode == 0, r.stderr
        outs.append(out)
    a, b = ({p.name: p.read_bytes() for p in out.iterdir()} for out in outs)
    assert sorted(a) == sorted(b) and len(a) >= 20
    assert [name for name in a if a[name] != b[name]] == []


@pytest.mark.parametrize("fmt", ["mps", "lp"])
def test_compiles_scip_start_of_a_miqp_is_feasible_for_scip(fmt, tmp_path):
    """What `olctc compile --preset margot` writes, as NAME.solvers.txt has SCIP use it: the start file
    gave SCIP's quadratic-objective helper no value and SCIP threw the start away."""
    import pyscipopt

    csv = tmp_path / "d.csv"
    rng = np.random.default_rng(1)
    csv.write_text("a,b,y\n" + "".join(f"{rng.normal()!r},{rng.normal()!r},{i % 2}\n" for i in range(14)))
    out = tmp_path / f"m.{fmt}"
    r = subprocess.run([sys.executable, "-m", "olctc.cli", "compile", str(csv), "--target", "y", "--preset",
                        "margot", "--depth", "2", "-o", str(out)], capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    import json

    objective = json.loads((tmp_path / "m.olctc.json").read_text())["warm_start"]["objective"]
    m = pyscipopt.Model()
    m.hideOutput()
    m.readProblem(str(out))
    sol = m.readSolFile(str(tmp_path / "m.start.scip.sol"))
    assert m.checkSol(sol, original=True)
    assert m.getSolObjVal(sol, original=True) == pytest.approx(objective, rel=1e-12)
