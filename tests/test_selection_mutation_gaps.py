"""Tests from a mutation pass of model selection (QA): the bench's CV score, a grid's final fit, the checks of
grid.json and jobs.tsv, the folds check, weighted balanced accuracy. Each pins a behaviour a mutant got wrong
while the suite passed; the comments say which (mutants, none a bug seen in olctc)."""
from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from olctc.bench import experiments as ex
from olctc.bench import tasks as bench_tasks
from olctc.cluster import make_grid
from olctc.cluster.final import final_spec, fit_final
from olctc.cluster.read import read_grid
from olctc.cv import cross_validate
from olctc.data import Scaler
from olctc.data.arrays import from_arrays
from olctc.datasets import load
from olctc.errors import OlctcError
from olctc.fit import balanced_accuracy, fit
from olctc.spec import make_spec


def test_bench_cv_score_is_the_mean_of_three_fold_scores() -> None:
    # Mutant: the bench's CV score the median of the fold scores (2-fold tests cannot tell: 2 values' median
    # is their mean). Here the 3 folds score 0.4545, 0.5, 0.4375: mean 0.4640, median 0.4545.
    tr = load("haberman").subset(np.arange(0, 306, 6))
    idx = np.arange(tr.n)
    folds = [(np.setdiff1d(idx, idx[i::3]), idx[i::3]) for i in range(3)]
    _, _, _, info = bench_tasks.cross_validate(ex.OLCT, tr, 1, 3, (1.0,), "highs", 30, 0, threads=1, folds=folds)
    X = Scaler.fit(tr.X).transform(tr.X)  # given folds: the whole part standardised once
    vals = []
    for a, b in folds:
        res = fit(replace(tr.subset(a), X=X[a]), make_spec("olct", 1, C=[1.0]), solver="highs", threads=1,
                  verbose=False, standardise=False)
        assert res.summary["status"] == "optimal"
        vals.append(balanced_accuracy(tr.y[b], np.where(res.tree.decision_function(X[b]) > 0, 1, -1)))
    assert np.mean(vals) != pytest.approx(np.median(vals), abs=1e-3)  # the data tell mean from median
    [row] = info["cv_grid"]
    assert row["score"] == pytest.approx(np.mean(vals), abs=1e-12)
    assert row["optimal_folds"] == 3


@pytest.fixture(scope="module")
def haberman_grid(tmp_path_factory) -> tuple[Path, object]:
    """A depth-1, 2-fold grid of one C on haberman, seed 3 (only compiled: nothing here solves its tasks)."""
    ds = load("haberman")
    out = tmp_path_factory.mktemp("sel") / "g"
    make_grid(ds, make_spec("olct", 1), out, C_values=[1.0], folds=2, seed=3, solver="highs", time_limit=30,
              threads=1)
    return out, ds


def _grid_copy(src: Path, tmp_path: Path) -> tuple[Path, dict]:
    """A copy of the grid ``src`` to edit, and its grid.json as read."""
    g = tmp_path / "g"
    shutil.copytree(src, g)
    return g, json.loads((g / "grid.json").read_text())


def _set_jobs_cell(g: Path, column: int, value: str) -> list[str]:
    """Set cell ``column`` of jobs.tsv's first task (line 2) to ``value``; returns that line's cells before."""
    lines = (g / "jobs.tsv").read_text().splitlines()
    cells = lines[1].split("\t")
    lines[1] = "\t".join(cells[:column] + [value] + cells[column + 1:])
    (g / "jobs.tsv").write_text("\n".join(lines) + "\n")
    return cells


def _assert_refused(g: Path, info: dict, match: str) -> None:
    """Write ``info`` as the grid's grid.json and check that reading the grid refuses it with ``match``."""
    (g / "grid.json").write_text(json.dumps(info))
    with pytest.raises(OlctcError, match=match):
        read_grid(g)


def test_final_fit_scores_its_tree_on_the_grids_test_rows(haberman_grid) -> None:
    # Mutant: the final fit's test balanced accuracy computed on the negated predictions (1 - the true value):
    # collect printed and recorded it, and no test compared it with the tree's own predictions.
    g, ds = haberman_grid
    info = read_grid(g)
    res, acc = fit_final(info, ds, (1.0,), threads=1)
    te = ds.subset(np.asarray(info["test_rows"]))
    assert te.n == 62
    expected = balanced_accuracy(te.y, np.where(res.tree.decision_function(te.X) > 0, 1, -1))
    assert expected != pytest.approx(0.5)  # 1 - x would be x
    assert acc == pytest.approx(expected, abs=1e-12)
    assert res.tree.meta["fit"]["test_balanced_accuracy"] == pytest.approx(expected, abs=1e-12)
    assert res.tree.meta["fit"]["n_test"] == 62


def test_final_tree_records_the_grids_fold_count(haberman_grid) -> None:
    # Mutant: the final tree's meta "grid" said one fold fewer than the grid had (2 folds recorded as 1).
    g, ds = haberman_grid
    res, _ = fit_final(read_grid(g), ds, (1.0,), threads=1)
    assert res.tree.meta["grid"] == {"C": [1.0], "folds": 2, "seed": 3}


def test_final_spec_keeps_the_layers_C_in_order() -> None:
    # Mutant: the final spec took the chosen C reversed (C = (1, 10) solved as (10, 1): root and last layer
    # swapped), which a grid of equal C per layer cannot tell.
    info = {"spec": make_spec("olct", 2, C=[5.0, 5.0]).to_json()}
    assert final_spec(info, (1.0, 10.0)).C == (1.0, 10.0)
    assert final_spec(info, [0.5, 2], score_variables=True).C == (0.5, 2.0)


def test_jobs_tsv_with_a_C_near_grid_jsons_is_refused(haberman_grid, tmp_path) -> None:
    # Mutant: jobs.tsv's C compared with grid.json's at a relative tolerance of 0.5, so a task edited to
    # C 1.4 passed as grid.json's C 1 (its solution then scored as C 1's).
    src, _ = haberman_grid
    g, _ = _grid_copy(src, tmp_path)
    assert _set_jobs_cell(g, 2, "1.4")[:3] == ["0", "0", "1"]
    with pytest.raises(OlctcError, match=r"jobs\.tsv line 2: task 0 has C '1\.4', grid\.json says 1$"):
        read_grid(g)


def test_grid_json_row_number_n_is_refused(haberman_grid, tmp_path) -> None:
    # Mutant: a row number equal to the data's row count (one past the last row) passed the check of
    # grid.json's rows; collect then failed on it with an IndexError, not a one-line error.
    src, ds = haberman_grid
    g, info = _grid_copy(src, tmp_path)
    assert info["data"]["n"] == ds.n == 306
    info["test_rows"].append(306)
    _assert_refused(g, info, r"field 'test_rows' holds 306, not a row number from 0 to 305 of the data")


def test_final_fit_counts_a_test_score_of_exactly_0_as_negative() -> None:
    # Mutant: the final fit's test balanced accuracy counted a point of score exactly 0 as positive (>= 0),
    # where the tree predicts it negative (score > 0 is positive). Four points of x = -1, 1, each of both
    # classes: the optimum is w = 0, b = 0, every score 0; the one test point is negative.
    ds = from_arrays(np.array([[-1.0], [-1.0], [1.0], [1.0], [1.0]]), np.array([1, -1, 1, -1, -1]))
    info = {"train_rows": [0, 1, 2, 3], "test_rows": [4], "spec": make_spec("olct", 1, C=[1.0]).to_json(),
            "seed": 0, "folds": [{}, {}], "time_limit": 30}
    res, acc = fit_final(info, ds, (1.0,), solver="highs", threads=1)
    assert res.summary["status"] == "optimal"
    assert res.tree.decision_function(ds.X[[4]]).tolist() == [0.0]
    assert res.tree.predict(ds.X[[4]]).tolist() == [-1]
    assert acc == 1.0
    assert res.tree.meta["fit"]["test_balanced_accuracy"] == 1.0


def test_grid_json_test_rows_inside_the_training_part_are_refused(haberman_grid, tmp_path) -> None:
    # Mutant: grid.json's test rows no longer checked against its training rows: a test row also trained on
    # passed, and the final tree was scored on a point it had been fitted to.
    src, _ = haberman_grid
    g, info = _grid_copy(src, tmp_path)
    shared = info["train_rows"][0]
    info["test_rows"].append(shared)
    _assert_refused(g, info, r"field 'test_rows' must be rows outside train_rows, got a list of 1;")


def test_grid_json_fold_whose_validation_rows_it_also_fits_is_refused(haberman_grid, tmp_path) -> None:
    # Mutant: a fold's 'train' and 'val' rows no longer checked disjoint: a fold validated on a row it was
    # fitted to passed, and collect scored C on it.
    src, _ = haberman_grid
    g, info = _grid_copy(src, tmp_path)
    info["folds"][0]["val"].append(info["folds"][0]["train"][0])
    _assert_refused(g, info, r"field 'folds\[0\]' must be disjoint non-empty 'train' and 'val' parts")


def test_grid_json_fold_holding_a_test_row_is_refused(haberman_grid, tmp_path) -> None:
    # Mutant: a fold's rows no longer checked inside train_rows: a fold validated on a test row passed, the
    # test part then leaking into the choice of C.
    src, _ = haberman_grid
    g, info = _grid_copy(src, tmp_path)
    info["folds"][1]["val"].append(info["test_rows"][0])
    _assert_refused(g, info, r"field 'folds\[1\]' must be disjoint non-empty 'train' and 'val' parts")


def test_grid_json_task_of_fold_number_equal_to_the_fold_count_is_refused(haberman_grid, tmp_path) -> None:
    # Mutant: a task's fold number checked <= the number of folds: fold 2 of a 2-fold grid (grid.json and
    # jobs.tsv edited alike) passed, and collect failed on folds[2] with an IndexError.
    src, _ = haberman_grid
    g, info = _grid_copy(src, tmp_path)
    assert len(info["folds"]) == 2 and info["tasks"][0]["fold"] == 0
    info["tasks"][0]["fold"] = 2
    _set_jobs_cell(g, 1, "2")
    _assert_refused(g, info, r"field 'tasks\[0\]\.fold' must be a fold number from 0 to 1, got 2;")


def test_grid_json_of_one_fold_is_refused(haberman_grid, tmp_path) -> None:
    # Mutant: grid.json's folds checked for at least 1 fold: a grid edited down to one fold (its other fold's
    # task gone from grid.json and jobs.tsv) passed, a cross-validation of one fold.
    src, _ = haberman_grid
    g, info = _grid_copy(src, tmp_path)
    assert [t["fold"] for t in info["tasks"]] == [0, 1]
    info["folds"], info["tasks"] = info["folds"][:1], info["tasks"][:1]
    lines = (g / "jobs.tsv").read_text().splitlines()
    (g / "jobs.tsv").write_text("\n".join(lines[:2]) + "\n")
    _assert_refused(g, info, r"field 'folds' must be a list of at least 2 folds, got a list of 1;")


def test_cross_validate_names_the_smaller_class_when_it_is_the_positive_one() -> None:
    # Mutant: the class too small for the folds looked up with argmax: with the positive class the smaller
    # (3 of 13 points, 4 folds) the check passed and grid's make_folds refused instead, naming no class and
    # advising `--folds 3`, an option cross-validation does not have (its is --cv).
    ds = from_arrays(np.arange(13.0).reshape(-1, 1), np.array([1] * 3 + [-1] * 10))
    with pytest.raises(OlctcError) as err:
        cross_validate(ds, make_spec("olct", 1), folds=4, C_values=[1.0], test_size=0.0, solver="highs", threads=1)
    assert str(err.value) == ("cannot make 4 stratified folds: the training part has only 3 point(s) of class 1; "
                              "use 3 folds or fewer (--cv 3), or more data")


def test_balanced_accuracy_weighs_each_rate_by_sample_weight() -> None:
    # Mutant: balanced_accuracy ignored sample_weight (every point weight 1): the positive class's rate here is
    # 3/4 weighted (1/2 unweighted), so 0.875, not 0.75, as scikit-learn's balanced_accuracy_score.
    from sklearn.metrics import balanced_accuracy_score

    y, pred, w = np.array([1, 1, -1, -1]), np.array([1, -1, -1, -1]), np.array([3.0, 1.0, 1.0, 1.0])
    assert balanced_accuracy(y, pred, w) == 0.875
    assert balanced_accuracy(y, pred, w) == pytest.approx(balanced_accuracy_score(y, pred, sample_weight=w))
    assert balanced_accuracy(y, pred) == 0.75
