"""Second mutation-testing pass on olctc.bench (runner, tasks, report, metrics, experiments): behaviour the earlier
passes' tests left unpinned. Each test names the mutant (olctc bench QA, /tmp/qa155/mut) it kills."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import olctc.bench.report as report
from olctc.bench import experiments as ex
from olctc.bench import runner
from olctc.bench import tasks as bench_tasks
from olctc.bench.options import make_options
from olctc.errors import OlctcError
from test_bench_tasks_report_mutation_gaps import _done, drawn  # noqa: F401  (drawn: a fixture)


def test_bacc_gap_axis_runs_to_one_point_at_least(drawn, tmp_path: Path) -> None:  # noqa: F811
    # Mutant r24: the axis floor 0.5 instead of 1 point, so gaps under a point drew a half-point axis.
    # Instances (OLCT, CART) in %: (80, 79.5), (70, 70): gaps CART 0.5 and 0.
    recs = [_done("heart", s, m, v / 100) for s, a, b in ((0, 80.0, 79.5), (42, 70.0, 70.0))
            for m, v in (("OLCT", a), ("CART", b))]
    report.fig_bacc_gap(tmp_path / "f.png", recs, ["OLCT", "CART"])
    x, Y, _, _ = drawn["f.png"]
    np.testing.assert_allclose(x, np.linspace(0, 1.0, 300))
    np.testing.assert_allclose(Y[:, [0, -1]], [[1.0, 1.0], [0.5, 1.0]])


def test_sfs_cv_grid_takes_a_given_C_grid() -> None:
    # Mutant e04: SFS-MARGOT's CV always over the paper's SFS grid (0.01, 1, 100), ignoring --C-grid.
    grid = ex.cv_grid(ex.SFS_MARGOT, 2, (1.0, 10.0))
    assert [(g["C"], g["alpha"]) for g in grid[:4]] == [((1.0, 1.0), 0.1), ((1.0, 1.0), 1.0), ((1.0, 1.0), 10.0),
                                                        ((1.0, 10.0), 0.1)]
    assert len(grid) == 4 * 3 and {g["C"] for g in grid} == {(1.0, 1.0), (1.0, 10.0), (10.0, 1.0), (10.0, 10.0)}
    assert {g["C"] for g in ex.cv_grid(ex.SFS_MARGOT, 1, ex.C_GRID)} == {(0.01,), (1.0,), (100.0,)}


@pytest.mark.parametrize("depth", [2, 3])
def test_a_data_set_without_the_authors_C_gets_C_one_per_layer(depth: int) -> None:
    # Mutant e09: another default C for the data sets absent from the authors' table (the LIBSVM sets).
    assert "a6a" not in ex.fixed_C_table()
    assert ex.resolve_C(ex.OLCT, "a6a", depth, "anchors") == ((1.0,) * depth, "default (no anchor)")
    assert ex.resolve_C(ex.OCT_H, "a6a", depth, "anchors") == ((ex.OCTH_C,) * depth, "oct-h: 1 / baseline error")


def test_only_the_tangent_set_V0_is_compared_with_the_authors_olct() -> None:
    # Mutant e10: every tangent set's runs given the authors' OLCT(v0,ref) values as their anchor.
    assert [ex.anchor_method("tangents", f"OLCT-{v}") for v in ("V0", "V1", "V2", "V3")] == [
        "OLCT(v0,ref)", None, None, None]
    recs = [dict(_done("parkinsons", 0, m, 0.8), experiment="tangents") for m in ("OLCT-V0", "OLCT-V1")]
    rows = {r["model"]: r for r in report.summary_rows("tangents", recs)}
    want = ex.seed_anchors()[("OLCT(v0,ref)", "parkinsons")]["seeds"][0]
    assert rows["OLCT-V0"]["anchor_mean"] == pytest.approx(want)
    assert rows["OLCT-V1"]["anchor_mean"] is None and rows["OLCT-V1"]["diff_vs_anchor"] is None


@pytest.mark.parametrize("models, noted", [("CART,OLCT", True), ("CART", False)])
def test_a_run_timeout_note_comes_when_any_model_is_a_tree(tmp_path: Path, models: str, noted: bool) -> None:
    # Mutant u07: the note only when every model is an olctc fit (CART beside OLCT hid it). The output is a
    # file, so the bench stops once the note is said, before any run.
    out = tmp_path / "a_file"
    out.write_text("not a folder\n")
    said: list[str] = []
    opts = make_options("models", models=models, datasets="haberman", seeds="0", time_limit=5)
    with pytest.raises(OlctcError):
        runner.run_bench(opts, out, echo=said.append, run_timeout=4.0)
    assert any("run_timeout (--run-timeout) 4 s is below the time limit of each fit (5 s)" in m
               for m in said) == noted
    assert out.read_text() == "not a folder\n"


def test_streed_counts_one_split_node_fewer_than_leaves() -> None:
    # Mutant t06: STreeD's split nodes counted as its leaves (one nonzero weight per leaf, not per split).
    pystreed = pytest.importorskip("pystreed")
    opts = make_options("models", datasets="heart", seeds="0", models="STreeD", time_limit=30)
    (task,) = bench_tasks.make_tasks(opts)
    (rec,) = bench_tasks.execute_task(task)
    ds, train, _ = bench_tasks._load_split(task)
    tr = ds.subset(train)
    clf = pystreed.STreeDClassifier(max_depth=2, time_limit=30.0, random_seed=0,
                                    min_leaf_node_size=1).fit(tr.X, (tr.y > 0).astype(int))
    splits = int(clf.get_n_leaves()) - 1
    assert rec["nonzero_weights_per_node"] == [1] * splits + [0] * (3 - splits)
    assert rec["mean_nonzero_per_node"] == pytest.approx(splits / 3)
    assert rec["tree_depth"] == clf.get_depth()


def test_models_unknown_to_the_experiment_follow_its_own_sorted_by_name() -> None:
    # Mutant r13: models no experiment names (an older olctc's, or edited in where bench.json cannot say which
    # runs it holds) left out of the report's columns and figures, their rows in record order.
    recs = [_done("heart", 0, m, 0.7) for m in ("Zeta", "CART", "Alpha", "OLCT")]
    assert report._model_order("models", recs) == ["OLCT", "CART", "Alpha", "Zeta"]
    assert [r["model"] for r in report.summary_rows("models", recs)] == ["OLCT", "CART", "Alpha", "Zeta"]
