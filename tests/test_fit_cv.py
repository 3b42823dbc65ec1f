"""`olctc fit --cv K` and olctc.cv: C chosen in process by K-fold cross-validation.

The independent check: the same protocol run the cluster way (`olctc grid`, each task compiled to a file,
solved by `olctc solve`, decoded from the solution file by `olctc collect`) gives the same table of scores
and the same C, for two scorings that choose differently.
"""
from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from olctc.cli import _register_optional, cli
from olctc.cluster import collect, make_folds, pick_best
from olctc.cv import cross_validate, fit_cv
from olctc.data import read_csv
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.fit import split
from olctc.spec import make_spec
from conftest import cli_main
from test_cluster import run_tasks_here, small_heart_csv

_register_optional()

HEART_CV = ["--dataset", "heart", "--depth", "1", "--C-values", "0.001,0.1,10", "--seed", "2", "--threads", "1"]


def invoke(*args: str):
    res = CliRunner().invoke(cli, list(args))
    return res


@pytest.fixture(scope="module")
def heart_grid(tmp_path_factory):
    """heart, depth 1, 3 folds x 3 C, solved task by task by their `olctc solve` command lines (HiGHS), in this
    process (run_tasks_here: a fresh interpreter per task cost about a second)."""
    root = tmp_path_factory.mktemp("cvgrid")
    res = invoke("grid", *HEART_CV, "--folds", "3", "--solver", "highs", "--time-limit", "30",
                 "--olctc-cmd", f"{sys.executable} -m olctc.cli", "-o", str(root / "g"))
    assert res.exit_code == 0, res.output
    run_tasks_here(root / "g")
    return root / "g"


# one pytest-xdist worker for both scorings: heart_grid is built once
@pytest.mark.xdist_group("heart_grid")
@pytest.mark.parametrize("scoring, best", [("balanced_accuracy", [10.0]), ("neg_log_loss", [0.1])])
def test_fit_cv_agrees_with_grid_and_collect(heart_grid, tmp_path, scoring, best):
    col = collect(heart_grid, scoring=scoring)
    assert all(r.status == "optimal" for r in col.results)  # optimal trees: the two routes must agree
    out = tmp_path / "tree.json"
    res = invoke("fit", *HEART_CV, "--cv", "3", "--paper-form", "--scoring", scoring, "--quiet", "-o", str(out))
    assert res.exit_code == 0, res.output
    meta = json.loads(out.read_text())["meta"]
    cv = meta["cv"]
    assert cv["C"] == best == list(col.best)
    assert [r["C"] for r in cv["table"]] == [r["C"] for r in col.table] == [[0.001], [0.1], [10.0]]
    for mine, theirs in zip(cv["table"], col.table):
        assert mine["folds_scored"] == theirs["folds_scored"] == 3
        assert mine["scores"].keys() == theirs["scores"].keys()
        for k in mine["scores"]:
            assert mine["scores"][k] == pytest.approx(theirs["scores"][k], rel=1e-6, abs=1e-9)
    assert f"olct depth 1, C {best}" in res.output  # the final fit's summary
    assert f"best C: {best[0]:g} (mean validation" in res.output
    assert "<- best" in res.output and "cv fit 9/9: C 10, fold 2: optimal" in res.output
    assert res.output.index("best C:") < res.output.index("fit heart (")  # the choice, then the final fit


def test_fit_cv_final_tree_uses_the_choice_on_the_same_split(tmp_path):
    ds = load("heart")
    res, cv = fit_cv(ds, make_spec(depth=1), folds=2, C_values=[0.01, 1], test_size=0.25, seed=3, verbose=False,
                     threads=1)
    assert res.summary["spec"]["C"] == list(cv.best) == res.tree.meta["cv"]["C"]
    assert cv.best == pick_best(cv.table)
    train, test = split(ds, 0.25, 3)
    assert np.array_equal(res.train_rows, train) and np.array_equal(res.test_rows, test)
    # the folds cover the training part only: no test point was used to choose C
    folds = make_folds(ds.y, train, 2, 3)
    assert sorted(r for f in folds for r in f["val"]) == sorted(train.tolist())
    assert res.tree.meta["cv"]["folds"] == 2 and len(cv.fits) == 4
    for row in cv.table:  # each mean is its folds' mean
        assert row["mean"] == pytest.approx(np.mean(list(row["scores"].values())))


def test_cross_validate_reports_progress_and_fold_statuses():
    lines: list[str] = []
    cv = cross_validate(load("breast"), make_spec(depth=1), folds=2, C_values="0.1,1", scoring="accuracy",
                        progress=lines.append, threads=1)
    assert lines[0] == "cross-validation: 2 C combination(s) x 2 folds = 4 fits, then the final fit"
    assert len(lines) == 5 and lines[4].startswith("cv fit 4/4: C 1, fold 1: optimal, validation acc 0.")
    assert [r.status for r in cv.fits] == ["optimal"] * 4 and not cv.not_optimal()
    assert all(0.8 < r.score <= 1 for r in cv.fits)


def test_plan_text_says_how_long_at_most():
    from olctc.cv import plan_text

    assert plan_text(25, 4, 60) == ("cross-validation: 25 C combination(s) x 4 folds = 100 fits, then the final "
                                    "fit; each fit at most 60 s (about 101 min at most in all)")
    assert plan_text(25, 4, 60, jobs=3).endswith("= 100 fits, 3 at a time, then the final fit; each fit at most "
                                                 "60 s (about 35 min at most in all)")
    assert plan_text(125, 4, 600).endswith("(about 83.5 h at most in all); fewer --C-values or --cv folds make "
                                           "fewer fits")


def test_fit_cv_without_test_part(tmp_path):
    out = tmp_path / "t.json"
    res = invoke("fit", "--dataset", "heart", "--depth", "1", "--cv", "2", "--C-values", "1", "--test-size", "0",
                 "--quiet", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert "fit heart (297 train / 0 test points" in res.output
    assert json.loads(out.read_text())["meta"]["cv"]["C"] == [1.0]


def _weighted_heart(tmp_path: Path, zero_fold: int, seed: int, folds: int) -> Path:
    """60 heart rows with a weight column in which the positives of one validation fold weigh 0."""
    src = small_heart_csv(tmp_path / "h.csv")
    ds = read_csv(src, target="y")
    train, _ = split(ds, 0.2, seed)
    val = make_folds(ds.y, train, folds, seed)[zero_fold]["val"]
    rows = list(csv.reader(src.open()))
    yi = rows[0].index("y")
    out = tmp_path / "hw.csv"
    with out.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(rows[0] + ["w"])
        for i, r in enumerate(rows[1:]):
            w.writerow(r + ["0" if i in val and ds.y[i] > 0 else "1"])
    assert sum(ds.y[v] > 0 for v in val) > 0 and rows[1][yi] in ("0", "1")
    return out


def test_fit_cv_unscorable_fold_names_it_and_writes_nothing(tmp_path, capsys):
    # in process (cli_main): the exit code and the two streams are what is checked, not the interpreter
    data = _weighted_heart(tmp_path, zero_fold=0, seed=0, folds=3)
    out = tmp_path / "t.json"
    args = ["fit", str(data), "--target", "y", "--weight-column", "w", "--depth", "1", "--cv", "3",
            "--C-values", "1", "--quiet", "-o", str(out)]
    code, stdout, stderr = cli_main([*args, "--scoring", "roc_auc"], capsys)
    assert code == 2 and not out.exists()
    assert stderr == ("error: cross-validation chose no C: no C combination has every fold scored (1 of 3 "
                      "fits unscored; first: no ROC AUC on validation fold 0: class 1 has no weight on this "
                      "fold (its points weigh 0 in column 'w')); use another --scoring\n")
    assert "fit 1 (fold 0, C 1): no ROC AUC on validation fold 0" in stdout
    assert "Traceback" not in stderr
    # balanced accuracy is defined there (one class's rate): the same data chooses a C
    code, stdout, stderr = cli_main(args, capsys)
    assert code == 0, stderr
    assert "points weighted by column 'w'" in stdout and out.exists()


def test_cross_validate_in_parallel_gives_the_same_table():
    kw = dict(folds=2, C_values=[0.01, 1], seed=1, threads=1)
    one = cross_validate(load("heart"), make_spec(depth=1), **kw)
    lines: list[str] = []
    two = cross_validate(load("heart"), make_spec(depth=1), jobs=2, progress=lines.append, **kw)
    assert two.table == one.table and two.best == one.best
    assert [(r.task, r.fold, r.C, r.status) for r in two.fits] == [(r.task, r.fold, r.C, r.status) for r in one.fits]
    assert lines[0] == "cross-validation: 2 C combination(s) x 2 folds = 4 fits, 2 at a time, then the final fit"
    assert len(lines) == 5 and sorted(ln.split(": ")[1] for ln in lines[1:]) == \
        sorted(f"C {c:g}, fold {f}" for c in (0.01, 1) for f in (0, 1))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_fit_cv_fold_fit_error_names_fold_and_C(tmp_path, capsys, jobs):
    """A fold whose training rows leave a class without weight: fit's own error, named by fold and C, from
    this process or from a child's (the command runs in process; with --jobs 2 the fold fits still run in
    processes of their own). It says what a grid's task says (the fold's rows are known: a fold fit's data is
    a subset of the source, which records its rows)."""
    data = _weighted_heart(tmp_path, zero_fold=0, seed=0, folds=2)
    out = tmp_path / "t.json"
    code, _, stderr = cli_main(["fit", str(data), "--target", "y", "--weight-column", "w", "--depth", "1", "--cv",
                                "2", "--C-values", "1", "--jobs", jobs, "--threads", "1", "-o", str(out)], capsys)
    assert code == 2 and not out.exists()
    assert stderr == (f"error: cross-validation, fold 1, C 1: {data}: weight column 'w': every point of class 1 "
                      "among the 24 training rows weighs 0, which leaves one class to train on; another split (--seed, "
                      "--test-size, or the folds: --cv, --folds) or more points of that class with a weight > 0 "
                      "avoids it\n")


BAD = [
    # "or give one C with --C" for --jobs and --scoring, which followed failed again (QA 2026-12-05)
    (["--jobs", "2"], "error: --jobs 2 applies to cross-validation only: add --cv K (such as --cv 4) to choose C "
                      "among --C-values, or leave out --jobs"),
    (["--cv", "2", "--jobs", "0"], "error: The 'jobs' parameter (--jobs) must be an integer >= 1. Got 0 instead."),
    (["--cv", "1"], "error: The 'folds' parameter (--cv) must be an integer >= 2. Got 1 instead."),
    (["--cv", "-3"], "error: The 'folds' parameter (--cv) must be an integer >= 2. Got -3 instead."),
    (["--C-values", "1,2"], "error: --C-values 1,2 applies to cross-validation only: add --cv K (such as --cv 4) "
                            "to choose C among --C-values, or give one C with --C"),
    (["--scoring", "roc_auc"], "error: --scoring roc_auc applies to cross-validation only: add --cv K (such as "
                               "--cv 4) to choose C among --C-values, or leave out --scoring"),
    (["--cv", "4", "--C", "1"], "error: --C does not apply with --cv, which chooses C among --C-values (each "
                                "layer's values; the grid is their product): leave out --C, or --cv to fit the C "
                                "given"),
    (["--cv", "4", "--scoring", "f1"], "error: The 'scoring' parameter (--scoring) must be one of "
                                       "balanced_accuracy, accuracy, roc_auc, neg_log_loss, neg_brier_score. Got "
                                       "'f1' instead."),
    (["--cv", "4", "--C-values", "1,0"], "error: The 'C_values' parameter (--C-values) must be finite and > 0. "
                                         "Got '1,0' instead."),
    (["--cv", "25"], "error: cannot make 25 stratified folds: the training part has only 24 point(s) of class 0; "
                     "use 24 folds or fewer (--cv 24), or more data"),
    (["--cv", "2", "--time-limit", "0.5"], None),  # fit's own refusal of too short a limit, before any fit
]


@pytest.mark.parametrize("extra, message", BAD)
def test_fit_cv_bad_input(tmp_path, capsys, extra, message):
    data = small_heart_csv(tmp_path / "h.csv")
    out = tmp_path / "t.json"
    # in process (cli_main): a fresh interpreter per case cost about 1.5 s of imports and checked nothing more
    code, stdout, stderr = cli_main(["fit", str(data), "--target", "y", "--depth", "1", *extra, "-o", str(out)],
                                    capsys)
    assert code == 2, stdout + stderr
    assert len(stderr.splitlines()) == 1 and stderr.startswith("error: ")
    if message is not None:
        assert stderr == message + "\n"
    else:
        assert "time limit" in stderr
    assert "cv fit" not in stdout  # refused before any fold fit
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]


def test_cross_validate_python_errors():
    ds = load("heart")
    with pytest.raises(OlctcError, match=r"The 'folds' parameter \(--cv\) must be an integer >= 2\. Got 2\.0"):
        cross_validate(ds, make_spec(depth=1), folds=2.0)
    with pytest.raises(OlctcError, match="The 'scoring' parameter"):
        cross_validate(ds, make_spec(depth=1), scoring="precision")
    with pytest.raises(OlctcError, match="The 'C_values' parameter"):
        cross_validate(ds, make_spec(depth=1), C_values=[])


def test_fit_cv_with_cbc_says_its_fold_optima_may_be_false(tmp_path):
    # The CV's "not proven optimal" note counted CBC's "optimal" fold fits as proofs, which on these models
    # they are not (CBC_NOTE, said only after the final fit, when C was chosen already).
    out = tmp_path / "t.json"
    res = invoke("fit", "--dataset", "heart", "--depth", "1", "--cv", "2", "--C-values", "1", "--solver", "cbc",
                 "--quiet", "-o", str(out))
    assert res.exit_code == 0, res.output
    assert ("note: the fold fits CBC called optimal may not be (CBC proves false optima on these models): their "
            "scores are those of feasible trees; HiGHS (the default) proves its optima") in res.output
    assert res.output.index("fold fits CBC called optimal") < res.output.index("best C:")
    assert "fold fits CBC" not in invoke("fit", "--dataset", "heart", "--depth", "1", "--cv", "2", "--C-values",
                                         "1", "--quiet", "-o", str(out)).output
