"""Parameters refused before the long work they would make useless: the final fit's time limit before collect
decodes every task, a fit's before the model is built, and the training rows compile_problem stores in the
manifest."""
from __future__ import annotations

import json

import numpy as np
import pytest

from conftest import cli_main
from olctc.compile import compile_problem
from olctc.data import from_arrays
from olctc.errors import OlctcError
from olctc.spec import make_spec


@pytest.fixture
def small():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20, 3))
    return from_arrays(X, np.where(X[:, 0] + 0.3 * X[:, 1] > 0, 1, -1), name="small")


ROWS_MSG = r"^The 'rows' parameter must be 20 integer row numbers >= 0, the dataset's rows in the source " \
           r"data\. Got {} instead\.$"


@pytest.mark.parametrize("rows, got", [
    (np.arange(5), "5 row numbers"),
    (np.arange(20) - 3, "row -3"),
    (np.arange(20) * 0.5, r"an array of shape \(20,\) and dtype float64"),
    (np.ones(20, dtype=bool), r"an array of shape \(20,\) and dtype bool"),
    (np.arange(40).reshape(20, 2), r"an array of shape \(20, 2\) and dtype int64"),
    ("abc", "'abc'"),
    ([1, [2]], r"\[1, \[2\]\]"),
])
def test_compile_refuses_rows_the_manifest_could_not_hold(small, rows, got):
    # each of these was stored in the manifest's data.rows, which decode and collect then refused (or, for
    # "abc", int('a') raised ValueError)
    with pytest.raises(OlctcError, match=ROWS_MSG.format(got)):
        compile_problem(small, make_spec(depth=1), rows=rows)


def test_compile_keeps_good_rows_in_the_manifest(small):
    rows = np.arange(100, 120)[::-1]
    comp = compile_problem(small, make_spec(depth=1), rows=list(rows))
    assert comp.manifest["data"]["rows"] == [int(r) for r in rows]
    assert compile_problem(small, make_spec(depth=1)).manifest["data"]["rows"] is None
    # a row may repeat: a bootstrap sample is a training set too
    rows = np.r_[np.arange(19), 4]
    assert compile_problem(small, make_spec(depth=1), rows=rows).manifest["data"]["rows"] == [int(r) for r in rows]


def test_a_subset_compiles_with_its_rows_and_decodes_from_its_files(tmp_path, capsys):
    """A part of a data set (two subsets deep, a row twice) compiled through the Python API: its manifest said
    the whole source and no rows, and decode refused its solution ("field 'data.n' does not match the training
    data ... edited?"). Its rows in the source are recorded now; decode takes the same points again, and gives
    the tree the solver's x gives in process."""
    from olctc.datasets import load
    from olctc.decode import decode_arrays, decode_file
    from olctc.pipeline import write_compiled
    from olctc.solve import solve_milp

    heart = load("heart")
    part = heart.subset(np.arange(100, 160)).subset(np.r_[np.arange(0, 40, 2), 7])  # heart rows 100..138, 107
    want = [*range(100, 140, 2), 107]
    assert part.rows.tolist() == want and np.array_equal(part.X, heart.X[want])
    assert heart.subset(np.arange(heart.n)).rows is None and heart.subset(np.ones(heart.n, bool)).rows is None
    comp = compile_problem(part, make_spec(depth=1))
    assert comp.manifest["data"]["rows"] == want and comp.manifest["data"]["n"] == 21
    write_compiled(comp, tmp_path / "m.mps")
    code, _, err = cli_main(["solve", str(tmp_path / "m.mps"), "--solver", "highs", "--quiet", "-o",
                             str(tmp_path / "m.sol")], capsys)
    assert code == 0, err
    tree, report = decode_file(tmp_path / "m.olctc.json", tmp_path / "m.sol", refine=False)
    assert report.ok and report.status == "optimal"
    x = solve_milp(comp.milp, "highs", threads=1, verbose=False, time_limit=20).x
    direct = decode_arrays(comp.milp, comp.spec, comp.X, part.y, x, None).report
    # the points decode took are the ones compiled: the tree's objective on them is the in-process optimum's
    assert report.true_objective == pytest.approx(direct.true_objective, rel=1e-6)
    assert report.true_objective == pytest.approx(report.solver_objective, rel=1e-6)
    # rows that are not the subset's own are refused, not recorded
    with pytest.raises(OlctcError, match=r"^The 'rows' parameter must be the dataset's own rows in its source, "
                                         r"which Dataset.subset recorded \(leave rows out to use them\)\. Got row 0 "
                                         r"at position 0, where the dataset has row 100\.$"):
        compile_problem(part, make_spec(depth=1), rows=np.arange(21))


def test_fit_refuses_a_hopeless_time_limit_before_building(small):
    from olctc.fit import fit

    # max_nonzeros=1 makes building fail: the time limit must be refused first, before any of that work
    with pytest.raises(OlctcError, match=r"^a time limit of 0\.5 s leaves no time to solve: decoding, refinement "
                                         r"and the solver's overrun need a reserve: give at least 3 s$"):
        fit(small, make_spec(depth=1), time_limit=0.5, max_nonzeros=1, verbose=False)
    with pytest.raises(OlctcError, match="nonzeros"):  # the limit that is enough goes on to the build
        fit(small, make_spec(depth=1), time_limit=5, max_nonzeros=1, verbose=False)


@pytest.mark.parametrize("limit", [0.01, 1.0, 2.5, 2.7, 2.72, 2.73, 2.75, 3.0, 10.0])
def test_the_early_check_refuses_what_the_budget_rule_refuses_with_nothing_spent(limit):
    from olctc.fit import check_time_limit, solver_budget

    def refused(f, *args) -> bool:
        try:
            f(*args)
        except OlctcError:
            return True
        return False

    assert refused(check_time_limit, limit) == refused(solver_budget, limit, 0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def solved_grid(tmp_path_factory):
    """A grid of 2 folds x 1 C on haberman whose tasks were solved (--time-limit 2: too short for a fit)."""
    import subprocess

    d = tmp_path_factory.mktemp("grid")
    code, _, _ = _main(["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2",
                        "--time-limit", "2", "-o", str(d / "g")])
    assert code == 0
    run = subprocess.run(["bash", str(d / "g" / "run_local.sh")], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return d / "g"


def _main(args):
    from olctc.cli import main

    try:
        main([str(a) for a in args])
    except SystemExit as exc:
        return exc.code, None, None
    return 0, None, None


@pytest.mark.parametrize("args, message", [
    (["--time-limit", "0.5"], "error: a time limit of 0.5 s leaves no time to solve: decoding, refinement and "
                              "the solver's overrun need a reserve: give at least 3 s"),
    ([], "error: a time limit of 2 s leaves no time to solve: decoding, refinement and the solver's overrun need "
         "a reserve: give at least 3 s (the final fit takes the grid's --time-limit unless collect is given one: "
         "olctc collect FOLDER --time-limit SECONDS)"),
])
def test_collect_refuses_before_decoding_the_tasks(solved_grid, capsys, args, message, tmp_path):
    code, out, err = cli_main(["collect", solved_grid, *args, "-o", tmp_path / "tree.json"], capsys)
    assert code == 2 and err.startswith(message), err
    assert out == "", out  # no table of scores: nothing was decoded
    assert not (solved_grid / "cv_results.json").exists()
    assert not (tmp_path / "tree.json").exists()


def test_collect_with_enough_time_fits_the_final_tree(solved_grid, capsys, tmp_path):
    code, out, err = cli_main(["collect", solved_grid, "--time-limit", "5", "--quiet", "-o", tmp_path / "t.json"],
                              capsys)
    assert code == 0, err
    assert "best C: 1" in out
    assert json.loads((tmp_path / "t.json").read_text())["meta"]["grid"]["C"] == [1.0]
    (solved_grid / "cv_results.json").unlink()
