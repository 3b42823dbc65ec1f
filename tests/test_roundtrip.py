"""Round trips through real solver programs: compile -> solve (in process and programs) -> decode.

Every path must give the same tree (the same predictions on every training point), with and without
the warm start; solutions of other models and broken files are refused with one-line errors.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import HIGHS_START_ACCEPTED, cli_here
from olctc.cli import main
from olctc.export.json import load as load_tree

HABERMAN = "age,year_of_operation,positive_axillary_nodes,y"


def olctc(*args: str) -> tuple[int, str, str]:
    """Run the CLI in a fresh interpreter, as a user would."""
    p = subprocess.run([sys.executable, "-m", "olctc.cli", *args], capture_output=True, text=True, timeout=600)
    return p.returncode, p.stdout, p.stderr


def cli(*args: str) -> tuple[int, str, str]:
    """``olctc ARGS`` in this process (conftest's cli_here): for the tests that check what a command writes and
    says, not how a process starts or ends."""
    res = cli_here(*args)
    return res.returncode, res.stdout, res.stderr


@pytest.fixture(scope="module")
def small_csv(tmp_path_factory) -> Path:
    """Every 12th haberman point: 26 points, depth 2 solves to optimality in about a second."""
    from olctc.datasets import load

    ds = load("haberman")
    rows = np.arange(0, ds.n, 12)
    folder = tmp_path_factory.mktemp("data")
    path = folder / "haberman26.csv"
    lines = [HABERMAN] + [",".join([*(f"{v:g}" for v in ds.X[i]), str(ds.classes[(ds.y[i] + 1) // 2])])
                          for i in rows]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def compiled(small_csv, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("model") / "h26.mps"
    code, stdout, stderr = cli("compile", str(small_csv), "--target", "y", "--depth", "2", "--C", "1,10",
                               "-o", str(out))
    assert code == 0, stderr
    return out


def training_predictions(tree_path: Path, csv: Path) -> np.ndarray:
    from olctc.data import read_csv

    tree = load_tree(tree_path)
    ds = read_csv(csv, "y")
    return tree.predict(ds.X)


SOLVERS = [("highs", []), ("cbc", []), ("scip", []), ("cbc-cli", ["--solver-path", "/usr/bin/cbc"]),
           ("highs-cli", []), ("glpk-cli", ["--solver-path", "/usr/bin/glpsol"])]
# Debian's CBC 2.10.8 with olctc's settings (integer preprocessing off) calls a tree of 22.24 optimal here;
# with its preprocessing it finds 16.64, but then it fails on 9 of 90 other small instances where
# preprocessing off fails on 6 (docs/BENCHMARKS.md): a CBC bug either way.
KNOWN_WRONG = {"cbc-cli": "Debian's CBC 2.10.8 reports a suboptimal 'optimal' 22.2447 (true 16.6429)"}


def solve_and_decode(compiled: Path, small_csv: Path, solver: str, extra: list[str], start: str,
                     tmp_path: Path) -> tuple[float, np.ndarray]:
    """Solve with ``solver`` (status optimal), decode (the tree routes as z says): its true objective and
    its predictions on the training rows."""
    sol = tmp_path / f"{solver}.sol"
    code, out, err = cli("solve", str(compiled), "--solver", solver, "--quiet", start, "-o", str(sol), *extra)
    assert code == 0, (solver, err)
    assert "status optimal" in out, (solver, out)
    tree = tmp_path / f"{solver}.json"
    code, out, err = cli("decode", str(compiled.with_name("h26.olctc.json")), str(sol), "-o", str(tree))
    assert code == 0, (solver, out, err)
    assert "the tree routes every training point as z says" in out
    objective = float(out.split("true objective of the solver's (w, b) (real routing): ")[1].split()[0])
    return objective, training_predictions(tree, small_csv)


@pytest.fixture(scope="module")
def reference(compiled, small_csv, tmp_path_factory) -> tuple[float, np.ndarray]:
    return solve_and_decode(compiled, small_csv, "scip", [], "--no-start", tmp_path_factory.mktemp("ref"))


@pytest.mark.parametrize("start", ["--start", "--no-start"])
@pytest.mark.parametrize("solver,extra", SOLVERS, ids=[s for s, _ in SOLVERS])
def test_every_solver_gives_the_same_tree(compiled, small_csv, reference, solver, extra, start, tmp_path):
    objective, predictions = solve_and_decode(compiled, small_csv, solver, extra, start, tmp_path)
    if solver in KNOWN_WRONG:  # read, solved and decoded alike: only the claim of optimality is false
        assert objective > reference[0] * (1 + 1e-3), f"{solver} now finds the optimum: drop it from KNOWN_WRONG"
        pytest.xfail(KNOWN_WRONG[solver])
    assert objective == pytest.approx(reference[0], rel=1e-6)
    assert np.array_equal(predictions, reference[1]), solver


def test_score_variables_round_trip_to_the_same_tree(compiled, small_csv, tmp_path):
    out = tmp_path / "s26.mps"
    code, _, err = cli("compile", str(small_csv), "--target", "y", "--depth", "2", "--C", "1,10",
                       "--score-variables", "-o", str(out))
    assert code == 0, err
    assert json.loads(out.with_name("s26.olctc.json").read_text())["spec"]["score_variables"] is True
    objectives, predictions = {}, {}
    for name, model, solver, extra in (("inline", compiled, "highs", []), ("scores", out, "highs", []),
                                       ("scores-cbc", out, "cbc-cli", ["--solver-path", "/usr/bin/cbc"])):
        sol = tmp_path / f"{name}.sol"
        code, stdout, err = cli("solve", str(model), "--solver", solver, "--quiet", "-o", str(sol), *extra)
        assert code == 0 and "status optimal" in stdout, (name, stdout, err)
        tree = tmp_path / f"{name}.json"
        manifest = model.with_name(model.name.replace(".mps", ".olctc.json"))
        code, stdout, err = cli("decode", str(manifest), str(sol), "-o", str(tree))
        assert code == 0, (name, stdout, err)
        objectives[name] = float(stdout.split("true objective of the solver's (w, b) (real routing): ")[1].split()[0])
        predictions[name] = training_predictions(tree, small_csv)
    assert objectives["scores"] == pytest.approx(objectives["inline"], rel=1e-6), objectives
    assert objectives["scores-cbc"] == pytest.approx(objectives["inline"], rel=1e-6), objectives
    assert np.array_equal(predictions["scores"], predictions["inline"])


def test_a_test_part_of_one_class_is_named(tmp_path):
    """12 points, 2 of one class: the stratified 20% test part gets none of them, and fit (and collect, from
    grid's split) reported a test balanced accuracy of 1.0 without a word."""
    data = tmp_path / "rare.csv"
    rng = np.random.default_rng(1)
    data.write_text("a,b,y\n" + "".join(f"{a:.3f},{b:.3f},{'p' if i < 2 else 'n'}\n"
                                        for i, (a, b) in enumerate(rng.random((12, 2)))))
    warning = (f"warning: {data}: the test part (3 of 12 points, test size 0.2) holds class 'n' only, so its "
               "balanced accuracy says little; use more points or a larger test size")
    code, _, err = cli("fit", str(data), "--target", "y", "--depth", "1", "--quiet", "--time-limit", "10",
                       "-o", str(tmp_path / "t.json"))
    assert code == 0 and warning in err.splitlines(), err
    code, _, err = cli("grid", str(data), "--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2",
                       "-o", str(tmp_path / "g"))
    assert code == 0 and warning in err.splitlines(), err
    code, _, err = cli("fit", str(data), "--target", "y", "--depth", "1", "--quiet", "--time-limit", "10",
                       "--test-size", "0.5", "-o", str(tmp_path / "t.json"))
    assert code == 0 and "warning" not in err, err


def test_fit_solves_in_the_score_variable_form_unless_told_the_papers(small_csv, tmp_path):
    """fit's default is the score-variable form (better trees with HiGHS under a time limit), compile's the
    paper's; --paper-form and --score-variables choose either, and the log and the tree file say which."""
    trees, sizes = {}, {}
    for form in ("", "--paper-form", "--score-variables"):
        out = tmp_path / f"t{form}.json"
        code, stdout, err = cli("fit", str(small_csv), "--target", "y", "--test-size", "0", "--quiet",
                                *([form] if form else []), "-o", str(out))
        assert code == 0, err
        line = next(x for x in stdout.splitlines() if x.startswith("model: "))
        sizes[form] = line
        trees[form] = json.loads(out.read_text())
    assert sizes[""] == sizes["--score-variables"] != sizes["--paper-form"]
    assert sizes[""].startswith("model: score-variable form, ")
    assert sizes["--paper-form"].startswith("model: the paper's form, ")
    meta, paper = trees[""]["meta"], trees["--paper-form"]["meta"]
    assert meta["spec"]["score_variables"] is True and "score_variables" not in paper["spec"]
    assert meta["status"] == paper["status"] == "optimal"
    assert meta["true_objective"] == pytest.approx(paper["true_objective"], rel=1e-6)
    code, _, err = cli("compile", str(small_csv), "--target", "y", "-o", str(tmp_path / "c.mps"))
    assert code == 0, err
    assert "score_variables" not in json.loads((tmp_path / "c.olctc.json").read_text())["spec"]


def test_start_files_are_used(compiled, tmp_path):
    code, out, err = cli("solve", str(compiled), "--solver", "cbc-cli", "--solver-path", "/usr/bin/cbc",
                         "-o", str(tmp_path / "c.sol"))
    assert code == 0, err
    assert "MIPStart values read for" in out and "opening mipstart file" in out
    code, out, err = cli("solve", str(compiled), "--solver", "highs-cli", "-o", str(tmp_path / "h.sol"))
    assert code == 0, err
    # HiGHS took the start, at the warm start's objective as compile recorded it
    taken = HIGHS_START_ACCEPTED.search(out)
    assert taken, out[-2000:]
    start = json.loads(compiled.with_suffix(".olctc.json").read_text())["warm_start"]["objective"]
    assert float(taken.group(1)) == pytest.approx(start, rel=1e-6)


@pytest.fixture(scope="module")
def highs_solution(compiled, tmp_path_factory) -> Path:
    sol = tmp_path_factory.mktemp("sol") / "h26.highs.sol"
    code, _, err = cli("solve", str(compiled), "--solver", "highs", "--quiet", "-o", str(sol))
    assert code == 0, err
    return sol


@pytest.mark.parametrize("change,message", [
    (["--depth", "3", "--C", "1,10,10"], "the solution belongs to another model"),
    (["--C", "5,10"], "the solution belongs to another model (other data, depth, C, tangents or weights?)"),
    (["--tangents", "V1"], "of this model by 0.206: the solution belongs to another model"),
])
def test_solution_of_another_model_is_refused(small_csv, highs_solution, tmp_path, change, message):
    out = tmp_path / "other.mps"
    args = ["compile", str(small_csv), "--target", "y", "--depth", "2", "--C", "1,10", "-o", str(out)]
    for k in range(0, len(change), 2):
        i = args.index(change[k]) if change[k] in args else None
        if i is None:
            args[-2:-2] = change[k:k + 2]
        else:
            args[i + 1] = change[k + 1]
    assert cli(*args)[0] == 0
    code, stdout, stderr = cli("decode", str(out.with_name("other.olctc.json")), str(highs_solution), "-o",
                               str(tmp_path / "t.json"))
    assert code == 2, stderr
    assert message in stderr and "Traceback" not in stderr
    assert stderr.count("\n") == 1
    assert not (tmp_path / "t.json").exists()


def test_solution_of_other_data_is_refused(small_csv, highs_solution, tmp_path):
    other = tmp_path / "other.csv"
    lines = small_csv.read_text().splitlines()
    lines[1], lines[2] = lines[2], lines[1]  # same shape, other order: other model
    other.write_text("\n".join(lines) + "\n")
    out = tmp_path / "other.mps"
    assert cli("compile", str(other), "--target", "y", "--C", "1,10", "-o", str(out))[0] == 0
    code, _, stderr = cli("decode", str(out.with_name("other.olctc.json")), str(highs_solution), "-o",
                          str(tmp_path / "t.json"))
    assert code == 2 and "belongs to another model" in stderr


def test_glpk_tolerance_leak_is_reported(tmp_path):
    """glpsol takes no tolerance settings; on this instance it routes a point for free: exit code 3."""
    csv = tmp_path / "tiny.csv"
    X = np.array([[0.5, -1.25], [1.5, 0.75], [-0.25, 2.0], [-1.0, -0.5], [2.0, 1.0]])
    y = [1, -1, 1, -1, -1]
    csv.write_text("a,b,y\n" + "".join(f"{r[0]},{r[1]},{c}\n" for r, c in zip(X, y)))
    model = tmp_path / "tiny.mps"
    assert cli("compile", str(csv), "--target", "y", "--C", "1,0.5", "--tangents", "V1", "-o", str(model))[0] == 0
    sol = tmp_path / "tiny.glpk.sol"
    code, out, err = cli("solve", str(model), "--solver", "glpk-cli", "--solver-path", "/usr/bin/glpsol", "-o",
                         str(sol))
    assert code == 0, err
    code, out, err = cli("decode", str(tmp_path / "tiny.olctc.json"), str(sol), "-o", str(tmp_path / "t.json"))
    assert code == 3, (out, err)
    assert "WARNING: the solver's objective is not the tree's true objective" in out
    # at tight tolerances HiGHS finds the true optimum, and decode agrees with it
    sol2 = tmp_path / "tiny.highs.sol"
    assert cli("solve", str(model), "--solver", "highs", "--quiet", "-o", str(sol2))[0] == 0
    code, out, err = cli("decode", str(tmp_path / "tiny.olctc.json"), str(sol2), "-o", str(tmp_path / "t2.json"))
    assert code == 0, (out, err)


def decode_error(compiled: Path, solution: Path, tmp_path: Path) -> tuple[int, str]:
    code, _, stderr = cli("decode", str(compiled.with_name("h26.olctc.json")), str(solution), "-o",
                          str(tmp_path / "t.json"))
    assert not (tmp_path / "t.json").exists()
    assert "Traceback" not in stderr
    return code, stderr.strip()


def test_bad_solution_files(compiled, highs_solution, tmp_path):
    empty = tmp_path / "empty.sol"
    empty.write_text("")
    assert decode_error(compiled, empty, tmp_path) == (2, f"error: {empty}: expected a solution file (cplex, gurobi, "
                                                           "scip, cbc, glpk, highs, xpress, copt), got an empty file")
    trunc = tmp_path / "trunc.sol"
    trunc.write_text("\n".join(highs_solution.read_text().splitlines()[:12]) + "\n")
    code, msg = decode_error(compiled, trunc, tmp_path)
    assert code == 2 and msg.startswith(f"error: {trunc}:12: expected 134 lines after '# Columns 134'") and "truncated" in msg
    nan = tmp_path / "nan.sol"
    text = highs_solution.read_text().splitlines()
    k = next(i for i, line in enumerate(text) if line.startswith("w_0_0 "))
    text[k] = "w_0_0 nan"
    nan.write_text("\n".join(text) + "\n")
    code, msg = decode_error(compiled, nan, tmp_path)
    assert code == 2 and "w_0_0" in msg
    garbage = tmp_path / "garbage.sol"
    garbage.write_text("hello world\n")
    code, msg = decode_error(compiled, garbage, tmp_path)
    assert (code, msg) == (2, f"error: {garbage}:1: expected a solution file of a known format (cplex, gurobi, "
                              "scip, cbc, glpk, highs, xpress, copt), got 'hello world'")


def test_infeasible_and_no_incumbent_statuses(compiled, tmp_path):
    infeasible = tmp_path / "inf.sol"
    shutil.copy(Path(__file__).parent / "data" / "solvers" / "samples" / "cbc_infeasible_solution.txt", infeasible)
    code, msg = decode_error(compiled, infeasible, tmp_path)
    # the model holds compile's warm start: "infeasible" is the solver's failure, which the message says (it said
    # only "infeasible" when CBC called a tiny OCT-H model so; QA 2026-12-05)
    ws = json.loads(compiled.with_suffix(".olctc.json").read_text())["warm_start"]["objective"]
    # exit 1: the solver's failure, as solve's exit for the same run (it was 2, bad input)
    assert code == 1 and msg == (f"error: {infeasible}: cbc reports infeasible (Infeasible), which is false: the warm "
                                 f"start compile wrote is a feasible point of the model (objective {ws:.6g}), so the "
                                 "solver's numerics failed (CBC's do on these models); solve with highs or scip; "
                                 "there is no solution to decode")
    # only CBC is named for it; a MIQP's advice leaves HiGHS out (test_false_infeasible_names_the_solvers_left)
    highs = tmp_path / "highs_inf.sol"
    shutil.copy(Path(__file__).parent / "data" / "solvers" / "samples" / "highs_infeasible.sol", highs)
    code, msg = decode_error(compiled, highs, tmp_path)
    assert code == 1 and "highs reports infeasible (Infeasible), which is false" in msg
    assert msg.endswith("numerics failed; solve with scip; there is no solution to decode"), msg
    nosol = tmp_path / "nosol.sol"
    shutil.copy(Path(__file__).parent / "data" / "solvers" / "samples" / "highs_timelimit_nosol.sol", nosol)
    code, msg = decode_error(compiled, nosol, tmp_path)
    # status words, not olctc's token ("reports no_solution"), and the way out solve gives for the same run
    assert code == 1 and msg == (f"error: {nosol}: highs reports no solution (Time limit reached): its time limit "
                                 "came before it found any solution; give it more time (`olctc fit` keeps its warm "
                                 "start's tree when that happens); there is no solution to decode"), msg


def test_changed_model_and_missing_manifest(compiled, highs_solution, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(compiled.parent, folder)
    model = folder / "h26.mps"
    model.write_text(model.read_text().replace("ENDATA", "ENDATA\n"))
    code, msg = decode_error(model, highs_solution, tmp_path)
    assert code == 2 and "the model file changed since it was compiled" in msg
    code, _, stderr = cli("decode", str(folder / "nope.olctc.json"), str(highs_solution), "-o",
                          str(tmp_path / "t.json"))
    assert code == 2 and "no such manifest" in stderr
    # the model file where the manifest goes (it was read as JSON: "JSON error: Expecting value ...")
    code, _, stderr = cli("decode", str(model), str(highs_solution), "-o", str(tmp_path / "t.json"))
    assert (code, stderr) == (2, f"error: {model} is a model file: pass its manifest {folder / 'h26.olctc.json'}, "
                                 "which compile wrote beside it\n")
    assert not (tmp_path / "t.json").exists()


def test_fit_breast_reaches_the_papers_accuracy(tmp_path):
    """The issue's acceptance run: depth 2 on breast, 60 s for everything, test balanced accuracy >= 94%."""
    out = tmp_path / "tree.json"
    code, stdout, stderr = olctc("fit", "--dataset", "breast", "--depth", "2", "--time-limit", "60", "--quiet",
                                 "-o", str(out))
    assert code == 0, stderr
    line = next(line for line in stdout.splitlines() if line.startswith("balanced accuracy"))
    test_bacc = float(line.split("test ")[1])
    assert test_bacc >= 0.94, stdout
    meta = json.loads(out.read_text())["meta"]
    # CBC counts CPU time and post-processes past its limit; fit gives it 90% of what is left minus 1 s.
    # Measured on a loaded 2-core machine: 59.3 to 61.3 s. Allowed overshoot: 5%.
    assert meta["fit"]["time_total"] <= 63.0


def test_cli_compile_bad_inputs_write_nothing(tmp_path, capsys):
    out = tmp_path / "m.mps"
    cases = [
        (["compile", "--dataset", "nope", "-o", str(out)], "unknown data set 'nope'; known: a6a, breast"),
        (["compile", "--dataset", "heart", "--preset", "cart", "-o", str(out)], "The 'preset' parameter "
                                                                                "(--preset) must be"),
        (["compile", "--dataset", "heart", "--depth", "0", "-o", str(out)], "The 'depth' parameter (--depth) "
                                                                            "must be an integer >= 1"),
        (["compile", "--dataset", "heart", "--epsilon", "0", "-o", str(out)],
         "The 'epsilon' parameter (--epsilon) must be a finite number > 0"),
        (["compile", "--dataset", "heart", "-o", str(tmp_path / "no" / "m.mps")], "folder"),
        (["compile", "--dataset", "heart", "-o", str(tmp_path / "m.txt")], "the model file must end in .mps or .lp"),
        (["compile", str(tmp_path / "missing.csv"), "--target", "y", "-o", str(out)], "no such file"),
        (["compile", "--dataset", "a6a", "--depth", "12", "-o", str(out)], "the model would have"),
    ]
    for args, message in cases:
        with pytest.raises(SystemExit) as exc:
            main(args)
        err = capsys.readouterr().err
        assert exc.value.code == 2, (args, err)
        assert err.startswith("error: ") and message in err and err.count("\n") == 1, (args, err)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("damage, field", [
    ("spec", "field 'spec.depth': expected a value, got nothing (missing)"),
    ("source", "field 'data.source': expected a non-empty string, got nothing (missing)"),
    ("scale", "field 'scaler.mean': expected 3 numbers (data.p), got a list of 1"),
])
def test_manifest_damaged_inside_a_section(compiled, highs_solution, tmp_path, damage, field):
    folder = tmp_path / "copy"
    shutil.copytree(compiled.parent, folder)
    mpath = folder / "h26.olctc.json"
    man = json.loads(mpath.read_text())
    if damage == "spec":
        man["spec"] = {"preset": "olct"}
    elif damage == "source":
        del man["data"]["source"]
    else:
        man["scaler"] = {"mean": [0]}
    mpath.write_text(json.dumps(man))
    code, _, stderr = cli("decode", str(mpath), str(highs_solution), "-o", str(tmp_path / "t.json"))
    assert code == 2 and "Traceback" not in stderr, stderr
    assert stderr == f"error: {mpath}: damaged manifest: {field}; compile again\n"
    assert not (tmp_path / "t.json").exists()
    # solve reads the same manifest (block map, start files) and refuses it the same way
    code, _, stderr = cli("solve", str(folder / "h26.mps"), "--quiet", "-o", str(tmp_path / "s.sol"))
    assert code == 2 and stderr == f"error: {mpath}: damaged manifest: {field}; compile again\n"


def test_trusted_decode_reports_a_solver_objective_it_does_not_believe():
    # A solver once returned values whose objective (53.633) beat the one it reported (53.840). From a file
    # that means another model; in the process that built the model it is the solver's inconsistency.
    from types import SimpleNamespace

    from olctc.data import Scaler
    from olctc.datasets import load
    from olctc.decode import decode_arrays
    from olctc.errors import OlctcError
    from olctc.formulation import build_milp
    from olctc.spec import make_spec
    from olctc.warmstart import warm_start

    ds = load("haberman").subset(np.arange(0, 306, 6))
    X = Scaler.fit(ds.X).transform(ds.X)
    spec = make_spec("olct", 2)
    milp = build_milp(X, ds.y, spec)
    x0, _ = warm_start(milp, X, ds.y, spec)
    claimed = SimpleNamespace(objective=milp.objective(x0) * 1.004, solver="cbc", status="feasible",
                              raw_status="FEASIBLE", bound=None, path=None)
    with pytest.raises(OlctcError, match="the solution belongs to another model"):
        decode_arrays(milp, spec, X, ds.y, x0, claimed)
    dec = decode_arrays(milp, spec, X, ds.y, x0, claimed, trusted=True)
    assert dec.report.values_objective == pytest.approx(milp.objective(x0))
    assert dec.report.tolerance_exploited  # the summary says the solver's number is not the tree's


def test_fit_on_data_scaled_elsewhere_is_the_same_tree():
    # The paper's CV scaled the training part once and fitted on its folds without scaling again:
    # fit(standardise=False) on data scaled by hand must give the tree fit builds from the raw data.
    from dataclasses import replace

    from olctc.data import Scaler
    from olctc.datasets import load
    from olctc.fit import fit
    from olctc.spec import make_spec

    # every 12th point (26, as small_csv): each fit proves its optimum in a fraction of a second, and the
    # unscaled fit below still finds another tree (objective 15.6 against 62.3)
    ds = load("haberman").subset(np.arange(0, 306, 12))
    scaled = replace(ds, X=Scaler.fit(ds.X).transform(ds.X))
    spec = make_spec("olct", 2, C=[1.0, 10.0])
    raw = fit(ds, spec, solver="highs", threads=1, verbose=False)
    pre = fit(scaled, spec, solver="highs", threads=1, verbose=False, standardise=False)
    assert raw.summary["status"] == pre.summary["status"] == "optimal"
    assert pre.summary["exact_objective_after_refine"] == pytest.approx(raw.summary["exact_objective_after_refine"],
                                                                        rel=1e-6)
    assert np.allclose(pre.tree.decision_function(scaled.X), raw.tree.decision_function(ds.X), atol=1e-6)
    # the flag matters: the raw features, left unscaled, give another tree
    again = fit(ds, spec, solver="highs", threads=1, verbose=False, standardise=False)
    assert not np.allclose(again.tree.decision_function(ds.X), raw.tree.decision_function(ds.X), atol=1e-3)


def test_cli_warnings_are_one_line(tmp_path):
    # SCIP warns that it ignores --threads; the console program prints it as one line, like its errors,
    # not as Python's "path:line: UserWarning: ..." followed by the source line that warned.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(16, 2))
    rows = [f"{a:.4f},{b:.4f},{int(a + b > 0)}" for a, b in X]
    (tmp_path / "d.csv").write_text("a,b,y\n" + "\n".join(rows) + "\n")
    p = subprocess.run([sys.executable, "-m", "olctc.cli", "fit", "d.csv", "--target", "y", "--preset", "margot",
                        "--depth", "1", "--threads", "2", "--test-size", "0", "--quiet", "-o", "t.json"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == "warning: SCIP's branch and bound runs on one thread; threads is ignored\n", p.stderr


def test_a_cbc_optimum_comes_with_a_note_that_cbc_proves_false_optima(compiled, small_csv, tmp_path):
    """CBC's "optimal" on these models is not to be trusted (docs/BENCHMARKS.md): solve and fit say so."""
    from olctc.cli import CBC_NOTE

    for solver in ("cbc", "highs"):
        code, out, err = cli("solve", str(compiled), "--solver", solver, "--quiet", "-o", str(tmp_path / "s.sol"))
        assert code == 0 and "status optimal" in out
        assert (CBC_NOTE in err) == (solver == "cbc"), err
        code, out, err = cli("fit", str(small_csv), "--target", "y", "--solver", solver, "--test-size", "0",
                             "--quiet", "-o", str(tmp_path / "t.json"))
        assert code == 0 and f"solver {solver}: optimal" in out, out
        assert (CBC_NOTE in err) == (solver == "cbc"), err


def test_fit_phase_times_do_not_include_scikit_learns_imports():
    """The fit's clock starts after scikit-learn is imported (0.5-0.8 s the first time in a process):
    a depth-1 heart fit reported "built in 0.64 s" for 0.004 s of building, and bench's time_build too.
    Checked in a fresh interpreter, where nothing is imported yet: the first timed step (the split) must
    find the modules the warm start and refinement use already loaded."""
    code = (
        "import sys\nimport olctc.fit as F\nfrom olctc.datasets import load\nfrom olctc.spec import make_spec\n"
        "seen = []\norig = F.split\n"
        "def split(*a, **k):\n"
        "    seen.append([m for m in ('sklearn.linear_model', 'sklearn.model_selection', 'sklearn.svm') "
        "if m not in sys.modules])\n"
        "    return orig(*a, **k)\n"
        "F.split = split\n"
        "F.fit(load('heart', None), make_spec(depth=1), time_limit=20, test_size=0.2, verbose=False)\n"
        "print(seen)\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip() == "[[]]"


def test_fit_reports_the_exact_objectives_of_the_trees_it_returns():
    """The 'after MILP' exact objective was the solver's (w, b); the tree is folded (b moved to the routing
    midpoint, epsilon/2, in the inner nodes), whose inner losses differ: with C = 1000 at the root, 'after
    refinement' (619.07008) read above 'after MILP' (619.06930) though refinement never raises its own
    objective (found by fuzzing, olctc depth 3)."""
    from olctc.data import from_arrays
    from olctc.fit import fit
    from olctc.objective import tree_objective
    from olctc.spec import make_spec

    X = np.array([[1.2510752251521306e-150, 0.0], [-4.6195582728373085e-151, 0.0], [-2.973243027576047e-151, 0.0]])
    spec = make_spec("olct", 3, C=[1000.0, 10.0, 1.0])
    res = fit(from_arrays(X, [-1, 1, 1]), spec, threads=1, verbose=False)
    s = res.summary
    assert s["exact_objective_after_refine"] <= s["exact_objective_before_refine"]
    # and the one after refinement is the returned tree's (standardised features, as fit trained on)
    Xs = res.tree.scaler.transform(X)
    assert tree_objective(res.tree.W, res.tree.b, Xs, np.array([-1, 1, 1]), spec, loss="exact").total == \
        pytest.approx(s["exact_objective_after_refine"], rel=1e-12)


def test_a_loss_column_within_tolerance_at_large_C_is_not_called_a_leak():
    """SCIP leaves a hinge column at -1e-9 (within its 1e-9 tolerance); with C = 1000 that moves the objective
    by 2.6e-6, relative 3e-6, and fit reported the solver as exploiting its tolerances (found by fuzzing).
    The allowance now grows with the objective's coefficients: 1e-9 x sum |c|."""
    from olctc.data import from_arrays
    from olctc.fit import fit
    from olctc.spec import make_spec

    spec = make_spec("margot-hfs", 2, C=[1000.0, 0.001], big_m=5.0, score_variables=True)
    res = fit(from_arrays(np.array([[-1.0], [2.0], [0.0]]), [-1, 1, -1]), spec, solver="scip", threads=1,
              verbose=False)
    s = res.summary
    assert s["objective_milp"] != s["objective_milp_true"]  # the solver's values sit at its tolerance
    assert abs(s["objective_milp"] - s["objective_milp_true"]) < 1e-9 * 3 * 1000.0 * 1.01
    assert not s["tolerance_exploited"] and s["routing_disagreements"] == 0
