"""Decode at its edges, on files real solvers wrote: answers that are no solution, files that print few
digits, solver helper columns, and hand-edited manifests.

A module fixture compiles 31 haberman points at depth 2 (154 columns; every solver finishes in well
under a second) and solves it once with HiGHS at tight tolerances.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest
from conftest import cli_main as run
from conftest import run_highs

from olctc.cli import main
from olctc.decode import decode_file, rounding_slack, rounding_unit
from olctc.emit.params import cbc_args
from olctc.read import read_solution

CBC_210 = "/usr/bin/cbc"
GLPSOL = "/usr/bin/glpsol"
# CBC devel, from cbcbox (a dependency of python-mip): the one that writes "LP relaxation not completed".
CBC_DEVEL = Path(sys.executable).with_name("cbc")
HABERMAN = "age,year_of_operation,positive_axillary_nodes,y"


def decode(folder: Path, manifest: str, solution: Path, capsys) -> tuple[int, str, str, Path]:
    tree = folder / "tree.json"
    tree.unlink(missing_ok=True)
    code, out, err = run(["decode", folder / manifest, solution, "-o", tree], capsys)
    return code, out, err, tree


def assert_refused(code: int, err: str, tree: Path, message: str, exit_code: int = 2) -> None:
    """Exit 2 (1: a file of the solver's failure), one line naming the problem, no traceback, nothing written."""
    assert code == exit_code, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert message in err, err
    assert "Traceback" not in err
    assert not tree.exists()


def write_h31(folder: Path) -> Path:
    """Every tenth haberman point (31), as FOLDER/h31.csv with the target column y."""
    from olctc.datasets import load

    ds = load("haberman")
    lines = [HABERMAN] + [",".join([*(f"{v:g}" for v in ds.X[i]), str(ds.classes[(ds.y[i] + 1) // 2])])
                          for i in range(0, ds.n, 10)]
    (folder / "h31.csv").write_text("\n".join(lines) + "\n")
    return folder / "h31.csv"


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("edges")
    write_h31(folder)
    for args in (["compile", folder / "h31.csv", "--target", "y", "--depth", "2", "-o", folder / "m.mps"],
                 ["solve", folder / "m.mps", "--solver", "highs", "--quiet", "-o", folder / "m.highs.sol"]):
        with pytest.raises(SystemExit) as exc:
            main([str(a) for a in args])
        assert exc.value.code == 0, args
    return folder


def highs_run(model: Path, relax: bool = False):
    """highspy at the tight tolerances of compile's parameter files (optionally the LP relaxation)."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.readModel(str(model))
    h.readOptions(str(model.with_name(model.stem + ".highs.opt")))
    h.setOptionValue("threads", 1)
    if relax:
        lp = h.getLp()
        lp.integrality_ = [highspy.HighsVarType.kContinuous] * lp.num_col_
        h.passModel(lp)
    run_highs(h)
    return h


# ---------------------------------------------------------------- 1. answers that are no integer solution


@pytest.mark.skipif(not CBC_DEVEL.exists(), reason="cbcbox's CBC devel is not installed")
def test_cbc_stopped_inside_the_root_lp_has_no_solution(work, tmp_path, capsys):
    # A zero time limit stops CBC devel inside the root LP, every time (measured).
    sol = tmp_path / "root.sol"
    subprocess.run([str(CBC_DEVEL), str(work / "m.mps"), "-sec", "0", "-solve", "-solu", str(sol)],
                   check=True, capture_output=True, timeout=60)
    header = "Stopped on time (LP relaxation not completed - no integer solution)"
    assert sol.read_text().startswith(header + " - objective value ")
    assert read_solution(sol).status == "no_solution"
    code, _, err, tree = decode(work, "m.olctc.json", sol, capsys)
    assert_refused(code, err, tree, f"{sol}: cbc reports no solution ({header}): its time limit came before it "
                   "found any solution; give it more time", exit_code=1)


def test_cbc_stopped_in_the_lp_by_an_iteration_limit_is_refused(work, tmp_path, capsys):
    # CBC 2.10 says "Stopped on iterations" with no remark, but its values are an unfinished LP's.
    sol = tmp_path / "it.sol"
    subprocess.run([CBC_210, str(work / "m.mps"), "-maxIt", "5", "-solve", "-solu", str(sol)],
                   check=True, capture_output=True, timeout=60)
    assert sol.read_text().startswith("Stopped on iterations - objective value ")
    code, _, err, tree = decode(work, "m.olctc.json", sol, capsys)
    assert_refused(code, err, tree, "but must be integral (a relaxation's answer, not an integer solution?)")
    assert re.search(rf"error: {re.escape(str(sol))}: column z_\d+_\d+ is 0\.\d+ but", err), err


def test_cbc_file_cut_at_a_line_end_may_be_cut_short(work, tmp_path, capsys):
    # CBC leaves zeros out, so a file cut at a line end is a well-formed file with more zeros.
    args = (work / "m.cbc.args").read_text().split()
    full = tmp_path / "full.sol"
    subprocess.run([CBC_210, str(work / "m.mps"), *args, "-solve", "-solu", str(full)], check=True,
                   capture_output=True, timeout=60)
    cut = tmp_path / "cut.sol"
    lines = full.read_text().splitlines(keepends=True)
    cut.write_text("".join(lines[:len(lines) // 3]))
    code, _, err, tree = decode(work, "m.olctc.json", cut, capsys)
    assert_refused(code, err, tree, "the solution belongs to another model (or the file was cut short)")


@pytest.mark.skipif(not CBC_DEVEL.exists(), reason="cbcbox's CBC devel is not installed")
def test_cbc_digits_depend_on_the_version(work, tmp_path, capsys):
    args = (work / "m.cbc.args").read_text().split()
    for exe, digits in ((CBC_210, 8), (str(CBC_DEVEL), None)):  # %15.8g, then 15 digits
        sol = tmp_path / "c.sol"
        subprocess.run([exe, str(work / "m.mps"), *args, "-solve", "-solu", str(sol)], check=True,
                       capture_output=True, timeout=60)
        assert read_solution(sol).digits == digits
        code, out, err, _ = decode(work, "m.olctc.json", sol, capsys)
        assert code == 0, (exe, out, err)
        assert ("precision: the file prints values with 8 significant digits" in out) == (digits == 8)


def test_lp_relaxation_written_as_optimal_is_refused(work, tmp_path, capsys):
    h = highs_run(work / "m.mps", relax=True)
    sol = tmp_path / "relaxed.sol"
    h.writeSolution(str(sol), 0)
    assert read_solution(sol).status == "optimal"
    x = np.asarray(h.getSolution().col_value)
    names = list(h.getLp().col_names_)
    z = np.array([n.startswith("z_") for n in names])
    frac = np.abs(x - np.round(x)) * z
    worst = int(np.argmax(frac))
    code, _, err, tree = decode(work, "m.olctc.json", sol, capsys)
    assert_refused(code, err, tree, f"error: {sol}: column {names[worst]} is {x[worst]:.6g} but must be integral "
                                    "(a relaxation's answer, not an integer solution?)")


def _edit_value(src: Path, dst: Path, column: str, value: str) -> None:
    lines = src.read_text().splitlines()
    k = next(i for i, line in enumerate(lines) if line.split()[:1] == [column])
    lines[k] = f"{column} {value}"
    dst.write_text("\n".join(lines) + "\n")


def _one_z(solution: Path) -> str:
    """A z column at 1 in a HiGHS style-0 file."""
    return next(line.split()[0] for line in solution.read_text().splitlines()
                if line.startswith("z_") and float(line.split()[1]) == 1.0)


def test_integrality_tolerance(work, tmp_path, capsys):
    column = _one_z(work / "m.highs.sol")
    # Within a loose solver's integrality tolerance (GLPK's 1e-5): still an integer solution.
    near = tmp_path / "near.sol"
    _edit_value(work / "m.highs.sol", near, column, "0.99999")
    code, out, err, tree = decode(work, "m.olctc.json", near, capsys)
    assert code == 0, (out, err)
    # Beyond INTEGRALITY_TOL (1e-4): refused, naming the column and its value.
    far = tmp_path / "far.sol"
    _edit_value(work / "m.highs.sol", far, column, "0.999")
    code, _, err, tree = decode(work, "m.olctc.json", far, capsys)
    assert_refused(code, err, tree, f"error: {far}: column {column} is 0.999 but must be integral")


# ---------------------------------------------------------------- 2. files that print 6 significant digits


def _six_digit_file(work: Path, tmp_path: Path, writer: str) -> Path:
    sol = tmp_path / f"{writer}.sol"
    if writer == "glpsol -o":
        subprocess.run([GLPSOL, "--freemps", str(work / "m.mps"), "-o", str(sol)], check=True,
                       capture_output=True, timeout=60)
    else:
        highs_run(work / "m.mps").writeSolution(str(sol), int(writer[-1]))
    return sol


@pytest.mark.parametrize("writer", ["glpsol -o", "highs style 1", "highs style 3"])
def test_six_digit_formats_decode_without_a_false_alarm(work, tmp_path, capsys, writer):
    sol = _six_digit_file(work, tmp_path, writer)
    assert read_solution(sol).digits == 6
    code, out, err, tree = decode(work, "m.olctc.json", sol, capsys)
    assert code == 0, (out, err)  # exit 3 ("tolerances exploited") before the precision was accounted for
    assert "precision: the file prints values with 6 significant digits" in out
    assert "the tree routes every training point as z says" in out and tree.exists()
    # The rounding moved the true objective, by less than the bound decode allows for it.
    _, report = decode_file(work / "m.olctc.json", sol)
    _, exact = decode_file(work / "m.olctc.json", work / "m.highs.sol")
    moved = abs(report.true_objective - exact.true_objective)
    assert 1e-6 * exact.true_objective < moved <= report.rounding_slack


def test_full_precision_formats_keep_the_tight_check(work, tmp_path):
    h = highs_run(work / "m.mps")
    for style in (0, 4):
        h.writeSolution(str(tmp_path / f"s{style}.sol"), style)
        _, report = decode_file(work / "m.olctc.json", tmp_path / f"s{style}.sol")
        assert (report.digits, report.rounding_slack) == (None, 0.0)
    subprocess.run([GLPSOL, "--freemps", str(work / "m.mps"), "-w", str(tmp_path / "g.w")], check=True,
                   capture_output=True, timeout=60)
    _, report = decode_file(work / "m.olctc.json", tmp_path / "g.w")
    assert (report.digits, report.rounding_slack) == (None, 0.0)


def test_the_precision_allowance_does_not_hide_a_tolerance_leak(tmp_path, capsys):
    # glpsol (integrality tolerance 1e-5, no flag to tighten it) routes a point of this instance for free.
    csv = tmp_path / "tiny.csv"
    csv.write_text("a,b,y\n0.5,-1.25,1\n1.5,0.75,-1\n-0.25,2.0,1\n-1.0,-0.5,-1\n2.0,1.0,-1\n")
    code, _, err = run(["compile", csv, "--target", "y", "--C", "1,0.5", "--tangents", "V1",
                        "-o", tmp_path / "tiny.mps"], capsys)
    assert code == 0, err
    sol = tmp_path / "tiny.txt"
    subprocess.run([GLPSOL, "--freemps", str(tmp_path / "tiny.mps"), "-o", str(sol)], check=True,
                   capture_output=True, timeout=60)
    code, out, _, tree = decode(tmp_path, "tiny.olctc.json", sol, capsys)
    assert code == 3, out
    # the tree is written all the same, and says what it is: glpsol's "optimal" is no optimum of this model
    from olctc.export.json import load as load_tree

    meta = load_tree(tree).meta
    assert (meta["status"], meta["tolerance_exploited"]) == ("feasible", True), meta
    assert "precision: the file prints values with 6 significant digits" in out
    assert "WARNING: the solver's objective is not the tree's true objective" in out
    # a routing disagreement read from rounded values may be the rounding's: the report says how to tell
    assert "routed differently than z" in out
    assert "or the file's 6-digit values moved points across a split" in out


def test_rounding_slack_is_zero_for_exact_values_and_grows_with_fewer_digits():
    from olctc.spec import make_spec

    rng = np.random.default_rng(0)
    X, W, b = rng.normal(size=(20, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    y = np.where(np.arange(20) < 5, 1, -1)
    spec = make_spec("olct", 2)
    slack = [rounding_slack(W, b, X, y, spec, rounding_unit(d)) for d in (None, 15, 8, 6)]
    assert slack[0] == 0.0 and 0.0 < slack[1] < slack[2] < slack[3]
    assert rounding_unit(6) == pytest.approx(5e-6)
    # class weights scale each point's share of the bound: weighing both classes 3 triples the loss part
    u = rounding_unit(6)
    reg = u * float(np.abs(W).sum())
    tripled = rounding_slack(W, b, X, y, make_spec("olct", 2, class_weight=(3, 3)), u)
    assert tripled - reg == pytest.approx(3 * (slack[3] - reg))
    balanced = rounding_slack(W, b, X, y, make_spec("olct", 2, class_weight="balanced"), u)
    assert balanced != pytest.approx(slack[3])


# ---------------------------------------------------------------- 3. SCIP's helper column of a MIQP


def test_scip_miqp_solutions_decode(work, tmp_path, capsys):
    import pyscipopt

    # SCIP 10 lists the epigraph column of a quadratic objective under a name that depends on the reader.
    for fmt, helper in (("mps", "qmatrixvar"), ("lp", "quadobjvar")):
        model = tmp_path / f"q.{fmt}"
        code, _, err = run(["compile", work / "h31.csv", "--target", "y", "--preset", "margot", "--depth", "1",
                            "-o", model], capsys)
        assert code == 0, err
        m = pyscipopt.Model()
        m.hideOutput()
        m.readProblem(str(model))
        m.readParams(str(tmp_path / "q.scip.set"))
        m.optimize()
        sol = tmp_path / f"q.{fmt}.scip.sol"
        m.writeBestSol(str(sol))
        assert re.search(rf"^{helper} ", sol.read_text(), re.M)
        code, out, err, tree = decode(tmp_path, "q.olctc.json", sol, capsys)
        assert code == 0, (fmt, out, err)
        assert tree.exists()


# ---------------------------------------------------------------- 4. hand-edited manifests


DELETE = object()


def _set(path: str, value: Any) -> Callable[[dict], None]:
    """An edit that sets (or, with DELETE, removes) the field at a dotted path ('scaler.mean.0')."""
    def edit(man: dict) -> None:
        *parents, last = path.split(".")
        node = man
        for key in parents:
            node = node[int(key)] if isinstance(node, list) else node[key]
        key = int(last) if isinstance(node, list) else last
        if value is DELETE:
            del node[key]
        elif callable(value):
            node[key] = value(node[key])
        else:
            node[key] = value
    return edit

# (id, edit, the message after "error: <manifest>: ")
CORRUPTIONS = [
    ("name-number", _set("name", 7), "damaged manifest: field 'name': expected a non-empty string, got 7"),
    ("spec-depth-0", _set("spec.depth", 0),
     "damaged manifest: field 'spec': The 'depth' parameter must be an integer >= 1. Got 0 instead; compile again"),
    ("spec-preset", _set("spec.preset", "cart"), "damaged manifest: field 'spec': The 'preset' parameter must be"),
    ("spec-no-epsilon", _set("spec.epsilon", DELETE),
     "damaged manifest: field 'spec.epsilon': expected a value, got nothing (missing); compile again"),
    ("spec-tangent-number", _set("spec.tangents.1", 0.0),
     "damaged manifest: field 'spec.tangents[1]': expected a string ('-inf', '0.0', 'inf' ...), got 0.0"),
    ("spec-C-text", _set("spec.C", "x"), "damaged manifest: field 'spec': The 'C' parameter must be"),
    ("data-source-number", _set("data.source", 5),
     "damaged manifest: field 'data.source': expected a non-empty string, got 5"),
    ("data-sha-short", _set("data.sha256", "abc"),
     "damaged manifest: field 'data.sha256': expected 64 hex digits, got 'abc'"),
    ("data-n-text", _set("data.n", "31"), "damaged manifest: field 'data.n': expected an integer >= 1, got '31'"),
    ("data-n-edited", _set("data.n", 30),
     "damaged manifest: field 'data.n': expected n_positive + n_negative = 31, got 30"),
    ("data-counts-edited", lambda m: m["data"].update(n_positive=m["data"]["n_positive"] + 1,
                                                      n_negative=m["data"]["n_negative"] - 1),
     "field 'data.n_positive' does not match the training data"),
    ("data-rows-short", _set("data.rows", [0, 1]),
     "damaged manifest: field 'data.rows': expected 31 row numbers (data.n), got a list of 2"),
    # a row may repeat (a bootstrap sample); these are not the points compiled
    ("data-rows-repeated", _set("data.rows", [0] * 31), "field 'data.n_positive' does not match the training data"),
    ("data-rows-negative", _set("data.rows", list(range(30)) + [-1]),
     "damaged manifest: field 'data.rows[30]': expected an integer >= 0, got -1"),
    ("data-positive-list", _set("data.positive_class", [2]),
     "damaged manifest: field 'data.positive_class': expected a class label (a string or a finite number), "
     "got a list of 1"),
    ("data-positive-other", _set("data.positive_class", 1),
     "damaged manifest: field 'data.positive_class': expected null or 2, the positive class in 'classes', got 1"),
    ("schema-kind", _set("schema.0.kind", "text"),
     "damaged manifest: field 'schema[0].kind': expected 'numeric' or 'categorical', got 'text'"),
    ("schema-string", _set("schema.0", "age"), "damaged manifest: field 'schema[0]': expected an object, got 'age'"),
    ("schema-column-gone", _set("schema.2", DELETE),
     "damaged manifest: field 'schema': expected columns that encode to 3 features (data.p), got 2 features"),
    ("schema-renamed", _set("schema.1.name", "height"),
     "field 'schema[1]' does not match the training data ({\"name\": \"height\", \"kind\": \"numeric\"} in the "
     "manifest, {\"name\": \"year_of_operation\", \"kind\": \"numeric\"} from the data; edited?); compile again"),
    ("schema-categorical", _set("schema.0", {"name": "age", "kind": "categorical", "categories": []}),
     "damaged manifest: field 'schema[0].categories': expected a non-empty list of distinct strings, "
     "got a list of 0"),
    ("feature-name-number", _set("feature_names.0", 5),
     "damaged manifest: field 'feature_names[0]': expected a non-empty string, got 5"),
    ("classes-one", _set("classes", [1]),
     "damaged manifest: field 'classes': expected 2 class labels, got a list of 1"),
    ("classes-same", _set("classes", [2, 2]),
     "damaged manifest: field 'classes': expected two different labels, got 2"),
    ("classes-bool", _set("classes.0", True),
     "damaged manifest: field 'classes[0]': expected a class label (a string or a finite number), got true"),
    ("classes-renamed", _set("classes.0", "alive"),
     "field 'classes[0]' does not match the training data (\"alive\" in the manifest, 1 from the data; edited?); "
     "compile again"),
    ("scaler-short", _set("scaler.mean", lambda v: v[:2]),
     "damaged manifest: field 'scaler.mean': expected 3 numbers (data.p), got a list of 2; compile again"),
    ("scaler-no-scale", _set("scaler.scale", DELETE),
     "damaged manifest: field 'scaler.scale': expected 3 numbers (data.p), got nothing (missing)"),
    ("scaler-zero-scale", _set("scaler.scale.1", 0),
     "damaged manifest: field 'scaler.scale[1]': expected a finite number > 0, got 0"),
    ("scaler-text", _set("scaler.mean.0", "x"),
     "damaged manifest: field 'scaler.mean[0]': expected a finite number, got 'x'"),
    ("scaler-edited", _set("scaler.mean.1", lambda v: v + 0.5),
     "field 'scaler' does not match the training data (scaler.mean[1] is"),
    ("model-cols-text", _set("model.n_cols", "154"),
     "damaged manifest: field 'model.n_cols': expected an integer >= 0, got '154'"),
    ("blocks-not-list", _set("blocks.columns", {}),
     "damaged manifest: field 'blocks.columns': expected a list of blocks, got an object"),
    ("blocks-labels", _set("blocks.columns.0.labels.1", [0]),
     "damaged manifest: field 'blocks.columns[0].labels[1]': expected 3 integers (shape[1]), got a list of 1"),
    ("blocks-start", _set("blocks.columns.1.start", 0),
     "damaged manifest: field 'blocks.columns[1].start': expected 9 (where the block before ends), got 0"),
    ("files-start", _set("files.start.highs", "m.start.highs.sol"),
     "damaged manifest: field 'files.start.highs': expected an object, got 'm.start.highs.sol'"),
    ("version-true", _set("version", True), "manifest version True is not supported"),
    # decode compares the solver's optimum with it: a text here was a TypeError traceback (read_manifest checks
    # it now, for solve as well)
    ("warm-start-text", _set("warm_start.objective", "x"),
     "damaged manifest: field 'warm_start.objective': expected a finite number, got 'x'; compile again"),
    ("warm-start-nan", _set("warm_start.objective", float("nan")),
     "damaged manifest: field 'warm_start.objective': expected a finite number, got nan; compile again"),
    ("warm-start-list", _set("warm_start", [1]),
     "damaged manifest: field 'warm_start': expected an object, got a list of 1; compile again"),
]


@pytest.mark.parametrize("edit, message", [c[1:] for c in CORRUPTIONS], ids=[c[0] for c in CORRUPTIONS])
def test_edited_manifest_is_refused(work, capsys, edit, message):
    man = json.loads((work / "m.olctc.json").read_text())
    # without its checksum, as manifests before 2026-11-26: each edit meets the check that names it
    # (with the checksum, a well-formed edit is refused as an edit: test_a_manifest_edit_is_caught_by_its_checksum)
    del man["checksum"]
    edit(man)
    bad = work / "bad.olctc.json"
    bad.write_text(json.dumps(man))
    code, _, err, tree = decode(work, "bad.olctc.json", work / "m.highs.sol", capsys)
    assert_refused(code, err, tree, f"error: {bad}: {message}")


def test_rows_of_a_split_are_checked_against_the_data(work, capsys):
    man = json.loads((work / "m.olctc.json").read_text())
    del man["checksum"]  # a manifest from before checksums: the rows are checked against the data
    # Rows naming every point in order make the same model: decoded.
    man["data"]["rows"] = list(range(man["data"]["n"]))
    (work / "rows.olctc.json").write_text(json.dumps(man))
    code, out, err, tree = decode(work, "rows.olctc.json", work / "m.highs.sol", capsys)
    assert code == 0, (out, err)
    # A row past the end of the data: only the data can tell.
    man["data"]["rows"][-1] = 99
    (work / "rows.olctc.json").write_text(json.dumps(man))
    code, _, err, tree = decode(work, "rows.olctc.json", work / "m.highs.sol", capsys)
    assert_refused(code, err, tree, f"error: {work / 'rows.olctc.json'}: field 'data.rows' names row 99, but the "
                                    f"training data {work / 'h31.csv'} has 31 rows (edited?); compile again")


def test_a_tree_better_than_the_solver_said_is_no_tolerance_leak():
    # an unfinished solution (time limit, heuristic) may hold loss variables above their minimum: its tree's
    # true objective is then below the solver's, which is no leak (decode used to exit 3 on honest data)
    from olctc.decode import DecodeReport

    def report(true: float, disagreements=()) -> DecodeReport:
        return DecodeReport(solver="scip", status="feasible", raw_status="time limit reached", solver_objective=23.2756,
                            values_objective=23.2756, true_objective=true, exact_objective=None, bound=17.0,
                            disagreements=list(disagreements))

    lower = report(23.2612)
    assert lower.lines()[0].endswith(", objective 23.2756, bound 17 (gap 27%)")
    assert lower.ok and lower.loss_slack
    assert any(line.startswith("note: the tree's true objective is below the solver's") for line in lower.lines())
    higher = report(23.29)
    assert higher.tolerance_exploited and not higher.loss_slack
    assert any(line.startswith("WARNING:") for line in higher.lines())
    assert report(23.2756 * (1 + 1e-9)).ok and not report(23.2756 * (1 + 1e-9)).loss_slack
    assert report(23.2612, [(0, 1, 2)]).tolerance_exploited  # a routing disagreement is a leak whatever the sums
    # the warning says what leaked: routing, or (OCT-H's leaf predictions, CBC at 1e-9) rows missed by how much
    routed = " ".join(report(23.29, [(0, 1, 2)]).lines())
    assert "tolerances to route points for free. If it ran without the parameter files" in routed
    higher.max_row_violation = 1.2e-4
    text = " ".join(higher.lines())
    assert "routes every training point as z says" in text
    assert ("tolerances to count a loss (or leaf predictions) that (w, b) do not give: its values miss the rows "
            "by up to 0.00012. If it ran without the parameter files compile wrote (tolerances 1e-9), solve again "
            "with them; if it had them, it broke its own tolerances on this model") in text
    glpk = dataclasses.replace(higher, solver="glpk")  # glpsol takes no tolerance: no parameter file can help
    text = " ".join(glpk.lines())
    assert "parameter files" not in text and "glpsol has no flag for its tolerances" in text


def test_an_optimum_whose_losses_sit_above_the_trees_is_warned_of_and_not_recorded_optimal(work, tmp_path, capsys):
    """The optimum of the same points with one label flipped satisfies every row here and its objective is its
    values' (the flipped point's loss column is feasible for either label), but an optimum of this model cannot
    count more loss than its (w, b) give: it decoded silently as "highs says optimal". Not refused: a solver's
    false optimum of this model (CBC 2.10) looks the same, and its tree is this model's."""
    lines = (work / "h31.csv").read_text().splitlines()
    # the second point: flipped, its loss column here sits above its loss (flipping the first breaks a row)
    values = lines[2].split(",")
    values[-1] = {"1": "2", "2": "1"}[values[-1]]
    lines[2] = ",".join(values)
    (tmp_path / "flip.csv").write_text("\n".join(lines) + "\n")
    for args in (["compile", tmp_path / "flip.csv", "--target", "y", "--depth", "2", "-o", tmp_path / "f.mps"],
                 ["solve", tmp_path / "f.mps", "--solver", "highs", "--quiet", "-o", tmp_path / "f.highs.sol"]):
        code, _, err = run(args, capsys)
        assert code == 0, err
    from olctc.export.json import load

    code, out, err, tree = decode(work, "m.olctc.json", tmp_path / "f.highs.sol", capsys)
    assert code == 0, err
    said = [ln for ln in out.splitlines() if ln.startswith("WARNING: the solver calls its solution optimal, but its "
                                                            "(w, b) give this model an objective ")]
    assert len(said) == 1 and re.search(r"objective [\d.]+% lower, beyond a MIP gap of 0\.001: .* Either the solver "
                                        r"proved a false optimum \(CBC does on these models\) or the solution is "
                                        r"another model's optimum \(other data, C, alpha or tangents\?\)", said[0]), out
    assert "an unfinished solution" not in out
    assert load(tree).meta["status"] == "feasible"
    # its own manifest: optimal, nothing said
    code, out, err = run(["decode", tmp_path / "f.olctc.json", tmp_path / "f.highs.sol", "-o", tmp_path / "t.json"],
                         capsys)
    assert code == 0 and "WARNING" not in out and load(tmp_path / "t.json").meta["status"] == "optimal", out


def test_a_file_that_leaves_zeros_out_and_misses_rows_is_said_to_maybe_have_lost_a_line(work, tmp_path, capsys):
    """A line lost from a CBC file reads as 0 (its zeros are left out): a small weight dropped broke rows by 9e-4,
    blamed on the solver's tolerances alone. Here the root's b moved by 5e-4 breaks rows the same way."""
    from olctc.compile import read_manifest
    from olctc.decode import rebuild, solution_vector
    from olctc.read.api import read_solution

    milp = rebuild(read_manifest(work / "m.olctc.json"), where=work / "m.olctc.json")[0]
    x = solution_vector(milp, read_solution(work / "m.highs.sol"))
    names = [str(n) for n in milp.col_names()]
    x[names.index("b_0")] += 5e-4
    sol = tmp_path / "m.cbc.sol"
    sol.write_text(f"Optimal - objective value {float(milp.objective(x))!r}\n"
                   + "".join(f"{k:>7} {n} {float(v)!r} 0\n" for k, (n, v) in enumerate(zip(names, x)) if v))
    code, out, err, tree = decode(work, "m.olctc.json", sol, capsys)
    assert code == 3 and tree.exists(), err
    assert (f"note: {sol} leaves zero values out, so a line missing from it reads as 0: the values miss the rows by up "
            "to 0.0005; check the file is whole") in out.splitlines(), out
    # the warning says the values miss the rows (exit 3): no second note of it
    assert not any(ln.startswith("note: the values miss the rows") for ln in out.splitlines()), out
    # a HiGHS file states every value: no such note
    high = tmp_path / "m.highs.sol"
    high.write_text((work / "m.highs.sol").read_text())
    code, out, _, _ = decode(work, "m.olctc.json", high, capsys)
    assert code == 0 and "leaves zero values out" not in out


LOOSE_NOTE = ("note: the values miss the rows by up to {amount} (row {row}), above the 1e-9 tolerance olctc's "
              "parameter files ask for (the solver may have run at its default tolerances): solve again with {file}, "
              "written beside the model (m.solvers.txt shows how); the tree was scored by its true routing")


def test_values_that_miss_rows_beyond_the_tight_tolerances_are_noted(work, tmp_path, capsys):
    """A solver at its default tolerances (1e-6: python-mip's CBC left a route row 2.3e-6 short) leaves values
    that miss rows far beyond compile's 1e-9 with the objective intact: no tolerance warning, so decode says so in
    a note naming the row and the solver's parameter file. Here one z of the tight HiGHS file moved by 3e-6."""
    column = _one_z(work / "m.highs.sol")
    point = column.rsplit("_", 1)[1]
    loose = tmp_path / "loose.sol"
    _edit_value(work / "m.highs.sol", loose, column, "0.999997")
    code, out, err, tree = decode(work, "m.olctc.json", loose, capsys)
    assert code == 0 and tree.exists(), (out, err)  # a note: no exit 3, the tree written
    note = LOOSE_NOTE.format(amount="3e-06", row=f"assign_{point}", file="m.highs.opt")
    assert note in out.splitlines(), out
    assert "WARNING" not in out + err, out
    from olctc.export.json import load as load_tree

    meta = load_tree(tree).meta
    assert meta["status"] == "optimal" and "tolerance_exploited" not in meta, meta
    assert not any("miss the rows" in n for n in meta.get("notes", [])), meta  # about the file, not the tree
    # The same values in CBC's format: CBC's flags file is named.
    from olctc.compile import read_manifest
    from olctc.decode import rebuild, solution_vector

    milp = rebuild(read_manifest(work / "m.olctc.json"), where=work / "m.olctc.json")[0]
    x = solution_vector(milp, read_solution(loose))
    names = [str(n) for n in milp.col_names()]
    cbc = tmp_path / "loose.cbc.sol"
    cbc.write_text(f"Optimal - objective value {float(milp.objective(x))!r}\n"
                   + "".join(f"{k:>7} {n} {float(v)!r} 0\n" for k, (n, v) in enumerate(zip(names, x)) if v))
    code, out, err, _ = decode(work, "m.olctc.json", cbc, capsys)
    assert code == 0, err
    assert LOOSE_NOTE.format(amount="3e-06", row=f"assign_{point}", file="m.cbc.args") in out.splitlines(), out
    assert "leaves zero values out" not in out  # that note is for a leak a lost line may explain
    # No note within ten times what 1e-9 allows on a big-M row (M * 1e-9 = 1e-7), nor for the solver's own file,
    # nor for a file printed with 6 digits, which breaks rows by 3.7e-6 here: the file's rounding (the precision
    # line says so), not the solver's tolerances.
    near = tmp_path / "near.sol"
    _edit_value(work / "m.highs.sol", near, column, "0.9999995")
    for sol in (near, work / "m.highs.sol", _six_digit_file(work, tmp_path, "highs style 1")):
        code, out, err, _ = decode(work, "m.olctc.json", sol, capsys)
        assert code == 0 and "miss the rows" not in out, (sol, out, err)


@pytest.mark.parametrize("solver, listed, advice", [
    ("highs", True, " (the solver may have run at its default tolerances): solve again with m.highs.opt, written "
                    "beside the model (m.solvers.txt shows how)"),
    ("copt", False, " (the solver may have run at its default tolerances): solve again with its parameter file, "
                    "which compile writes beside the model (m.solvers.txt)"),
    ("in-process", True, " (the solver may have run at its default tolerances): solve again with its parameter "
                         "file, which compile writes beside the model (m.solvers.txt)"),
    ("xpress", True, " (the solver may have run at its default tolerances): solve again with the controls "
                     "m.solvers.txt passes to setControl"),
    ("glpk", True, ": glpsol has no flag for its tolerances (GLPK's integrality tolerance is 1e-5): solve with "
                   "another solver and its parameter file (m.solvers.txt)"),
])
def test_loose_rows_advice_names_the_solver_s_settings(solver, listed, advice):
    """The settings file of the solver that wrote the file, when compile wrote it (``--solvers`` may have left
    it out); Xpress reads none, glpsol takes no tolerance."""
    from olctc.decode import _tolerance_advice

    params = ["m.highs.opt", "m.glpk.args", "m.solvers.txt"]
    man = {"model": {"file": "m.mps"}, "files": {"params": params if listed else ["m.solvers.txt"]}}
    assert _tolerance_advice(solver, man) == advice


def test_an_optimum_worse_than_the_warm_start_is_called_false(work, tmp_path, capsys):
    """A solution file that says optimal while compile's warm start is a better feasible tree: decode says
    the proof is false (CBC 2.10 does this; here a hand-made file: the warm start with both halves of one
    L1 weight raised, feasible and worse, labelled optimal)."""
    from olctc.compile import read_manifest
    from olctc.decode import rebuild

    man = read_manifest(work / "m.olctc.json")
    milp = rebuild(man, where=work / "m.olctc.json")[0]
    cells = [ln.split() for ln in (work / "m.start.cbc").read_text().splitlines()[1:]]
    names, x = [c[1] for c in cells], np.array([float(c[2]) for c in cells])
    assert names == [str(n) for n in milp.col_names()]
    warm = milp.objective(x)
    assert warm == pytest.approx(man["warm_start"]["objective"], rel=1e-12)
    # w = w_pos - w_neg stays, the L1 term grows: a feasible, worse solution
    j = [names.index("w_pos_0_0"), names.index("w_neg_0_0")]
    for raise_by, false in ((1.0, True), (0.0, False)):
        y = x.copy()
        y[j] += raise_by
        sol = tmp_path / "worse.sol"
        sol.write_text(f"Optimal - objective value {float(milp.objective(y))!r}\n"
                       + "".join(f"{k:>7} {n} {float(v)!r} 0\n" for k, (n, v) in enumerate(zip(names, y))))
        code, out, err, tree = decode(work, "m.olctc.json", sol, capsys)
        assert code == 0 and tree.exists(), err
        said = [ln for ln in out.splitlines() if "the solver's proof is false" in ln]
        assert said == ([f"WARNING: the solver calls its solution optimal, but the warm start compile wrote is a "
                         f"feasible tree with the lower objective {warm:.10g}: the solver's proof is false. CBC "
                         "does this on these models; solve with HiGHS or SCIP with the settings of "
                         "NAME.solvers.txt"] if false else []), out
    # a true optimum is at most the warm start's objective: nothing to say
    code, out, _, _ = decode(work, "m.olctc.json", work / "m.highs.sol", capsys)
    assert code == 0 and "proof is false" not in out


def test_a_gzip_csv_decodes_as_it_compiled(work, tmp_path, capsys):
    """The data's hash is of the CSV's text (gzip or not): decode checked the compressed bytes against it
    and called an untouched d.csv.gz "changed"; a changed one must still be called so, before reading."""
    import gzip

    gz = tmp_path / "h31.csv.gz"
    gz.write_bytes(gzip.compress((work / "h31.csv").read_bytes()))
    for args in (["compile", gz, "--target", "y", "--depth", "1", "-o", tmp_path / "g.mps"],
                 ["solve", tmp_path / "g.mps", "--solver", "highs", "--quiet", "-o", tmp_path / "g.highs.sol"]):
        assert run(args, capsys)[0] == 0
    code, out, err, tree = decode(tmp_path, "g.olctc.json", tmp_path / "g.highs.sol", capsys)
    assert code == 0 and tree.is_file(), err
    other = tmp_path / "other.csv.gz"
    other.write_bytes(gzip.compress((work / "h31.csv").read_bytes().replace(b",1\n", b",one\n")))
    code, _, err = run(["decode", tmp_path / "g.olctc.json", tmp_path / "g.highs.sol", "--data", other,
                        "-o", tmp_path / "t2.json"], capsys)
    assert_refused(code, err, tmp_path / "t2.json", f"{other}: the data changed since compile (sha256 ")


# ---------------------------------------------------------------- 5. QA: compressed solutions, CBC on a MIQP


def test_a_gzip_solution_decodes(work, tmp_path, capsys):
    # gurobi_cl ResultFile=x.sol.gz writes one; here the HiGHS file of the fixture, gzipped
    import gzip

    sol = tmp_path / "m.highs.sol.gz"
    sol.write_bytes(gzip.compress((work / "m.highs.sol").read_bytes()))
    code, out, err, tree = decode(work, "m.olctc.json", sol, capsys)
    plain = decode(work, "m.olctc.json", work / "m.highs.sol", capsys)[1]
    assert code == 0 and tree.is_file(), err
    assert out.replace(str(tree), "") == plain.replace(str(tree), "")


def test_cbc_objective_of_a_miqp_is_not_called_another_models(work, tmp_path, capsys):
    # CBC 2.10 reads QUADOBJ but its optimum of a MARGOT model is not the objective of its own values (measured:
    # 17.97050567 against 17.97124915): decode said "the solution belongs to another model", which sent the
    # user after the wrong file.
    assert run(["compile", work / "h31.csv", "--target", "y", "--depth", "2", "--preset", "margot",
                "-o", tmp_path / "q.mps"], capsys)[0] == 0
    args = cbc_args()  # compile writes no CBC settings for a MIQP: solvers.txt sends it to SCIP, Gurobi, CPLEX
    sol = tmp_path / "q.cbc.sol"
    subprocess.run([CBC_210, str(tmp_path / "q.mps"), *args, "-solve", "-solu", str(sol)], check=True,
                   capture_output=True, timeout=120)
    assert read_solution(sol).status == "optimal"
    code, _, err, tree = decode(tmp_path, "q.olctc.json", sol, capsys)
    assert_refused(code, err, tree, "cbc does not solve quadratic objectives exactly (docs/FORMATS.md; solve this "
                                    "model with SCIP, Gurobi or CPLEX), unless the solution belongs to another model")


def test_a_manifest_edit_is_caught_by_its_checksum(work, capsys):
    """epsilon or big-M edited by hand decoded with exit 0 against a model other than the one solved (the
    rebuilt model has the same counts); the checksum refuses any edit but data.source (a moved file)."""
    for key, value in (("epsilon", 2e-5), ("big_m", 1000.0)):
        man = json.loads((work / "m.olctc.json").read_text())
        man["spec"][key] = value
        bad = work / "bad.olctc.json"
        bad.write_text(json.dumps(man))
        code, _, err, tree = decode(work, "bad.olctc.json", work / "m.highs.sol", capsys)
        assert_refused(code, err, tree, f"error: {bad}: the manifest was edited after compile (its content does not "
                                        "match its checksum); compile again (a data file that moved needs no edit: "
                                        "pass --data)")
    # data.source is not covered: pointing it at the data's new place by hand decodes
    moved = work / "moved"
    moved.mkdir(exist_ok=True)
    man = json.loads((work / "m.olctc.json").read_text())
    source = Path(man["data"]["source"])
    shutil.copy(source, moved / source.name)
    man["data"]["source"] = str(moved / source.name)
    (work / "src.olctc.json").write_text(json.dumps(man))
    code, out, err, tree = decode(work, "src.olctc.json", work / "m.highs.sol", capsys)
    assert code == 0, (out, err)


def test_decode_needs_no_model_file(work, tmp_path, capsys):
    """From a cluster, the manifest and the solution are enough (the model may be large): decode rebuilds the
    model and checks the solution against it; the same tree as beside the model file."""
    shutil.copy(work / "m.olctc.json", tmp_path / "m.olctc.json")
    code, out, err, tree = decode(tmp_path, "m.olctc.json", work / "m.highs.sol", capsys)
    assert code == 0, (out, err)
    assert "model file: m.mps is not here (not needed: the solution was checked against the model rebuilt" in out
    code, out2, err, tree2 = decode(work, "m.olctc.json", work / "m.highs.sol", capsys)
    assert code == 0 and "model file" not in out2
    assert tree.read_bytes() == tree2.read_bytes()


def test_an_empty_node_predicts_the_class_balance_of_its_nearest_ancestor_with_points():
    """No point reaches node 3 (node 1 sends all its points right) nor nodes 5 and 6 (the root sends all left
    in the second tree): whatever the solver left there is replaced by the smoothed log-odds of the points at
    the nearest ancestor holding some; the other nodes and the objective's loss are untouched."""
    from olctc.decode import settle_empty_nodes
    from olctc.objective import tree_objective
    from olctc.spec import make_spec

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 1] > 0.3, 1.0, -1.0)
    spec = make_spec("olct", 3)
    W = np.array([[1.0, 0], [0, 0], [0, 1], [5, 5], [0, 2], [1, 0], [0, -1]])
    b = np.array([0.0, 1.0, 0.0, -100.0, 0.0, 0.0, 0.0])
    before = tree_objective(W, b, X, y, spec, loss="exact")
    W2, b2 = W.copy(), b.copy()
    assert settle_empty_nodes(W2, b2, X, y, spec) == [(3, 1)]
    left = X[:, 0] <= 0
    pos, neg = int((y[left] > 0).sum()), int((y[left] < 0).sum())
    assert pos and neg and b2[3] == np.log((pos + 1) / (neg + 1)) and not W2[3].any()
    keep = np.arange(7) != 3
    assert np.array_equal(W2[keep], W[keep]) and np.array_equal(b2[keep], b[keep])
    after = tree_objective(W2, b2, X, y, spec, loss="exact")
    assert after.total < before.total  # node 3's |w| is no longer paid for; no point's loss moves
    assert after.total == pytest.approx(before.total - 10.0, rel=1e-12)

    # the root sends every point left: node 2's subtree is empty, its nodes take the root's balance
    W3, b3 = W.copy(), b.copy()
    W3[0], b3[0] = 0.0, -1.0
    sw = rng.uniform(0.5, 2.0, size=40)
    assert settle_empty_nodes(W3, b3, X, y, spec, sw) == [(3, 1), (5, 0), (6, 0)]
    a = sw.mean()
    want = np.log((sw[y > 0].sum() + a) / (sw[y < 0].sum() + a))
    assert b3[5] == b3[6] == pytest.approx(want, rel=1e-12) and b3[3] == pytest.approx(want, rel=1e-12)
    assert W3[0].sum() == 0 and b3[0] == -1.0  # inner nodes are left as they route


def test_decode_settles_an_empty_node_and_says_so(tmp_path, capsys):
    """olctc fit with min_leaf = n puts every training point in one last-layer node: the other predicts the
    root's class balance (before: the solver's b = -100, probability 1 for any point sent there)."""
    from olctc.export.json import load as load_tree

    rows = ["a,b,y"] + [f"{a},{b},{y}" for a, b, y in
                        [(0, 0, "p"), (1, 0, "q"), (0, 1, "p"), (1, 1, "q"), (2, 0, "q"), (0, 2, "p"), (2, 2, "q")]]
    (tmp_path / "d.csv").write_text("\n".join(rows) + "\n")
    code, out, err = run(["fit", tmp_path / "d.csv", "--target", "y", "--test-size", "0", "--min-leaf", "7",
                          "--time-limit", "10", "--threads", "1", "-o", tmp_path / "t.json"], capsys)
    assert code == 0, err
    tree = load_tree(tmp_path / "t.json")
    empty = [s for s in (1, 2) if tree.node_n[s] == 0]
    assert len(empty) == 1 and tree.meta["empty_nodes"] == [{"node": empty[0], "as": 0}]
    assert f"note: no training point reaches node(s) {empty[0]}: each predicts" in out + err
    assert tree.meta["fit"]["notes"] == [f"no training point reaches node(s) {empty[0]}: each predicts the class "
                                         "balance of its nearest ancestor's points"]
    # q, the +1 class (second in sorted order), has 4 of the 7 points
    assert not tree.W[empty[0]].any() and tree.b[empty[0]] == pytest.approx(np.log((4 + 1) / (3 + 1)), rel=1e-12)
    grid = np.array([[a, b] for a in np.linspace(-20, 20, 41) for b in np.linspace(-20, 20, 41)])
    there, elsewhere = grid[tree.apply(grid) == empty[0]][0], grid[tree.apply(grid) != empty[0]][0]
    said = "no training point reached this node: it gives the class balance of the nearest node above that had some"
    assert said in str(tree.explain(there)) and said not in str(tree.explain(elsewhere))
    assert [s["training_points"] for s in tree.explain(there).to_dict()["path"]] == [7, 0]
    from olctc.export.text import to_text

    text = to_text(tree)  # the empty node says its one class; the other, a classifier, its two rules
    assert text.count("|--- every point: class q (P(q) = 0.5556)") == 1 and text.count("score > 0: class q") == 1


def test_decode_settles_before_anything_scores_the_tree():
    """A solve stopped early may leave weight on a node no point reaches (it costs, and nothing else sees it):
    decode_arrays settles it, so fit's "after MILP" and refinement's figures score the same tree the file
    gets, while the report keeps the solver's tree's true objective for its checks."""
    from olctc.decode import decode_arrays
    from olctc.formulation import build_milp
    from olctc.objective import tree_objective
    from olctc.solve import solve_milp
    from olctc.spec import make_spec

    X = np.array([[0, 0], [1, 0], [0, 1], [1, 1], [2, 0], [0, 2], [2, 2]], dtype=float)
    X = (X - X.mean(0)) / X.std(0)
    y = np.array([-1, 1, -1, 1, 1, -1, 1], dtype=float)
    spec = make_spec("olct", 2, min_leaf=7)
    milp = build_milp(X, y, spec)
    res = solve_milp(milp, "highs", threads=1, verbose=False, time_limit=20)
    x = res.x.copy()
    s = int(np.flatnonzero(milp.values(x, "z").sum(axis=1) == 0)[0])  # last-layer index of the empty node
    node = 1 + s
    for name in ("w", "w_pos"):  # w = w_pos - w_neg, |w| = w_pos + w_neg: 0.5 of weight, paid in the objective
        x[milp.col_block(name).start + node * X.shape[1]] = 0.5
    assert max(milp.violation(x).values()) <= 1e-9
    dec = decode_arrays(milp, spec, X, y, x, None, trusted=True)
    assert dec.report.empty_nodes == [(node, 0)] and not dec.W[node].any()
    assert dec.report.true_objective == pytest.approx(milp.objective(x), rel=1e-9)
    settled = tree_objective(dec.W, dec.b, X, y, spec).total  # b folded: the root's loss moves by about eps/2
    assert settled == pytest.approx(dec.report.true_objective - 0.5, abs=1e-5)


def test_a_report_of_bare_values_quotes_no_empty_status_word():
    """Values given to decode_arrays without the solver's result have no raw status: the report's first line
    does not show an empty "()" for it, and one of a real solver's result still quotes the solver's words."""
    from olctc.decode import decode_arrays
    from olctc.solve import solve_milp
    from tests.test_core_mutation_gaps import compiled

    comp = compiled("olct", 1)
    res = solve_milp(comp.milp, "highs", threads=1, verbose=False, time_limit=30)
    bare = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, res.x, trusted=True).report.lines()[0]
    assert bare == "solution: in-process says optimal, objective -"
    said = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, res.x, res, trusted=True).report.lines()[0]
    assert said.startswith(f"solution: highs says optimal ({res.raw_status}), objective {res.objective:.10g}")
