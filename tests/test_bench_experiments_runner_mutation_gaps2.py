"""Tests from a second mutation pass of the bench's experiments (registry, anchors, C per run, CV grids) and runner
(QA 2026-12-07). Each test pins behaviour some hand-written mutant got wrong while the bench tests passed; the
comments name the mutants (none a bug seen in olctc; their ids are in the commit message). The runner tests run
real CART benches (one data set, at most two seeds) and one phases run on sonar killed at its 1 s run timeout."""
from __future__ import annotations

import io
import json
import time
from itertools import product
from pathlib import Path

import pytest

from olctc.bench import experiments as ex
from olctc.bench import runner
from olctc.bench import tasks as bench_tasks
from olctc.bench.folder import open_bench
from olctc.bench.options import BenchOptions, make_options
from olctc.datasets import load
from olctc.errors import OlctcError
from test_bench_options_runner_mutation_gaps import _cart


# ---- experiments.py: the registry against the paper ------------------------------------------------------------

@pytest.mark.parametrize("name, datasets, seeds, depth, models, defaults", [
    ("tangents", ("parkinsons", "wholesale", "tic-tac-toe", "haberman", "sonar"), (0, 42, 314, 6, 71), 2,
     ("OLCT-V0", "OLCT-V1", "OLCT-V2", "OLCT-V3"), ("OLCT-V0", "OLCT-V1", "OLCT-V2")),
    ("phases", ("parkinsons", "wholesale", "tic-tac-toe", "haberman", "sonar"), (0, 42, 314, 6, 71), 2,
     ("OLCT-phases",), ("OLCT-phases",)),
    ("models", ("breast", "climate", "haberman", "heart", "ionosphere", "parkinsons", "sonar", "spectf",
                "tic-tac-toe", "wholesale"), (0, 42, 314, 6, 71), 2,
     ("OLCT", "MARGOT", "SFS-MARGOT", "OCT-H", "CART", "L1-LR", "STreeD"),
     ("OLCT", "MARGOT", "SFS-MARGOT", "OCT-H", "CART", "L1-LR")),
    ("large", ("a6a", "german.numer", "w5a", "phishing", "splice", "svmguide1", "svmguide3"), (0,), 2,
     ("OLCT", "MARGOT", "OCT-H", "CART", "L1-LR"), ("OLCT", "MARGOT", "OCT-H", "CART", "L1-LR")),
    ("depth3", ("parkinsons", "wholesale", "haberman", "ionosphere", "spectf"), (0,), 3,
     ("OLCT", "MARGOT", "OCT-H", "CART", "L1-LR"), ("OLCT", "MARGOT", "OCT-H", "CART", "L1-LR")),
])
def test_each_experiment_runs_the_papers_data_sets_seeds_depth_and_models(name: str, datasets: tuple, seeds: tuple,
                                                                          depth: int, models: tuple,
                                                                          defaults: tuple) -> None:
    """A bench of default options runs what Sec. 5 ran: no test compared the registry with the paper."""
    # Mutants: a data set dropped from UCI10, PRELIM5 or LARGE; DEPTH3's spectf replaced; PAPER_SEEDS' 71 changed;
    # large at two seeds; depth3 at depth 2; large without L1-LR; tangents' defaults without V2; models' defaults
    # with STreeD (needs pystreed).
    e = ex.get_experiment(name)
    assert (e.datasets, e.seeds, e.depth, tuple(m.name for m in e.models), e.defaults) == (datasets, seeds, depth,
                                                                                           models, defaults)
    o = make_options(name)
    assert (o.datasets, o.seeds, o.models) == (datasets, seeds, defaults)


def test_anchor_tables_cover_the_experiments_cells() -> None:
    """Every cell the paper reports has its anchor: the per-seed logs for the models experiment (all five seeds),
    the single-split tables for large and depth3 (OLCT, MARGOT, OCT-H), with their runtimes and spreads."""
    # Mutants: PAPER_SEEDS' 71 changed (that seed's column never read); the std or sparsity figure read from
    # another column; the single-split runtime never read.
    assert ex.seed_anchors()[("OLCT(v0,ref)", "heart")] == {
        "seeds": {0: 86.16, 42: 84.6, 314: 82.59, 6: 87.95, 71: 84.15}, "mean": 85.09, "std": 1.83,
        "runtime": 121.41, "nonzero": 5.0}
    for d in ex.UCI10:
        assert len(ex.seed_anchors()[("OLCT(v0,ref)", d)]["seeds"]) == 5
    for e in ("large", "depth3"):
        for d, m in product(ex.EXPERIMENTS[e].datasets, ("OLCT", "MARGOT", "OCT-H")):
            assert ex.anchor_for(e, m, d, 0) is not None, (e, m, d)
    assert ex.single_anchors()[("depth3", "OLCT", "parkinsons")] == {"bacc": 89.83, "runtime": 223.66}
    assert ex.single_anchors()[("large", "OLCT", "a6a")] == {"bacc": 74.49, "runtime": None}


def test_only_the_tangent_set_the_authors_ran_has_an_anchor() -> None:
    """The tangents experiment compares OLCT-V0 (the authors' OLCT(v0,ref)) with their log; V1-V3 have no row."""
    # Mutant: the anchor put on OLCT-V1 instead of OLCT-V0.
    assert ex.anchor_for("tangents", "OLCT-V0", "sonar", 0) == 65.9
    assert [ex.anchor_for("tangents", f"OLCT-V{i}", "sonar", 0) for i in (1, 2, 3)] == [None, None, None]


# ---- experiments.py: C and alpha per run --------------------------------------------------------------------------

def test_cv_grids_hold_the_papers_values() -> None:
    """The CV configurations are the paper's values, not only its counts (which test_bench checks)."""
    # Mutants: C_GRID's 100 changed; SFS_C_GRID or SFS_ALPHA_GRID changed; SFS-MARGOT's grid always the
    # paper's, ignoring --C-grid; OCT-H's alpha grid without 2**2 or 0; OCT-H's C of one layer; OCTH_C 0.5.
    paper = (0.01, 0.1, 1.0, 10.0, 100.0)
    assert ex.cv_grid(ex.OLCT, 2, ex.C_GRID) == [{"C": c, "alpha": None} for c in product(paper, repeat=2)]
    assert ex.cv_grid(ex.SFS_MARGOT, 2, ex.C_GRID) == [{"C": c, "alpha": a} for c in product((0.01, 1.0, 100.0),
                                                                                             repeat=2)
                                                       for a in (0.1, 1.0, 10.0)]
    assert [g["C"] for g in ex.cv_grid(ex.SFS_MARGOT, 1, (1.0, 10.0))] == [(1.0,)] * 3 + [(10.0,)] * 3
    # the paper's grid given in another order is still the paper's (it gave 75 configurations instead of 27)
    assert ex.cv_grid(ex.SFS_MARGOT, 2, paper[::-1]) == ex.cv_grid(ex.SFS_MARGOT, 2, ex.C_GRID)
    alphas = [0.00390625, 0.0078125, 0.015625, 0.03125, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0, 0.0]
    assert ex.cv_grid(ex.OCT_H, 3, ex.C_GRID) == [{"C": (1.0, 1.0, 1.0), "alpha": a} for a in alphas]


def test_fixed_C_OCT_H_takes_no_C_from_the_table() -> None:
    """Under --fixed-C anchors, OCT-H has no C of the authors' table (its loss is the error count over the baseline
    error): heart's table row (1, 0.1) is OLCT's, not OCT-H's."""
    # Mutants: the OCT-H branch of resolve_C dropped (heart's OCT-H at (1, 0.1)); OCTH_C 0.5.
    assert ex.resolve_C(ex.OCT_H, "heart", 2, "anchors") == ((1.0, 1.0), "oct-h: 1 / baseline error")
    assert ex.resolve_C(ex.OLCT, "heart", 2, "anchors") == ((1.0, 0.1), "anchors")


def test_specs_at_the_authors_settings() -> None:
    """The spec a fixed-C run solves: OCT-H at C / L and the grid's smallest positive alpha; MARGOT at C / 2 (the
    authors' ||w||^2); SFS-MARGOT at alpha 1 / 2; OLCT as given. MARGOT is a MIQP: solved by SCIP, not HiGHS."""
    # Mutants: OCT-H or MARGOT not authors_scaled; AUTHORS_L2_SCALE 1; OCTH_ALPHA 2**-7; OCT-H's alpha None;
    # SFS-MARGOT's alpha 0.1; needs_solver 'highs'.
    y = load("heart").y
    L = min(int((y > 0).sum()), int((y < 0).sum()))
    assert L == 137

    def spec(m: ex.ModelDef):
        return bench_tasks._make_spec(m, 2, (1.0, 10.0), m.alpha, None, y)

    assert spec(ex.OCT_H).C == pytest.approx((1 / L, 10 / L), rel=1e-12) and spec(ex.OCT_H).alpha == 2.0 ** -8
    assert spec(ex.MARGOT).C == (0.5, 5.0)
    assert (spec(ex.SFS_MARGOT).C, spec(ex.SFS_MARGOT).alpha) == ((0.5, 5.0), 0.5)
    assert spec(ex.OLCT).C == (1.0, 10.0)
    assert [bench_tasks._solver_for(m, {"options": {"solver": "highs"}}) for m in (ex.MARGOT, ex.OLCT, ex.OCT_H)] \
        == ["scip", "highs", "highs"]


def test_a_phases_bench_is_refused_a_time_limit_no_fit_can_use() -> None:
    """The phases model is an olctc fit: its bench is refused a time limit fit would refuse (else every run of it
    is recorded as that error and the folder keeps the limit)."""
    # Mutant: fits_olctc false for "phases" (the check and the run-timeout note skipped for it).
    with pytest.raises(OlctcError, match="leaves no time to solve"):
        make_options("phases", datasets="haberman", seeds="0", time_limit=1)


# ---- runner.py: the progress bar ---------------------------------------------------------------------------------

def test_progress_bar_rounds_and_pads_the_seconds() -> None:
    """1 of 3 runs on a bar of 8 is 2.67 marks: 3; 65 s read 1:05; a bench of no runs shows a full bar."""
    # Mutants: the marks floored; the seconds not padded to two digits; an empty bench's bar empty.
    s = io.StringIO()
    p = runner.Progress(3, s, width=8)
    p.t0 = time.perf_counter() - 65.5
    p.step()
    assert s.getvalue() == "[###.....] 1/3 runs done, 2 left, elapsed 1:05\n"
    assert runner.Progress(0, s, width=4).line().startswith("[####] 0/0 runs done, 0 left")


# ---- runner.py: the run-timeout note ------------------------------------------------------------------------------

@pytest.mark.parametrize("models, time_limit, run_timeout, noted", [
    ("OLCT,CART", 30.0, 20.0, True),  # one tree model among others is enough
    ("OLCT", 30.0, 30.0, False),  # a run timeout equal to the limit kills nothing before its solver stops
    ("OLCT-phases", 30.0, 20.0, True),
])
def test_run_timeout_note_before_any_run(tmp_path: Path, models: str, time_limit: float, run_timeout: float,
                                         noted: bool) -> None:
    """The note comes before the folder is made; an empty -o refused after it, so nothing runs here."""
    # Mutants: the note only when every model is a tree; at run_timeout == time_limit; stating the run timeout as
    # the time limit; not for phases (fits_olctc).
    exp = "phases" if models == "OLCT-phases" else "models"
    opts = make_options(exp, models=models, datasets="haberman", seeds="0", time_limit=time_limit)
    said: list[str] = []
    with pytest.raises(OlctcError, match="'output' parameter"):
        runner.run_bench(opts, "", echo=said.append, run_timeout=run_timeout)
    assert said == ([f"note: run_timeout (--run-timeout) {run_timeout:g} s is below the time limit of each fit "
                     f"({time_limit:g} s): the tree runs will be killed (status timeout) before their solvers stop"]
                    if noted else [])


# ---- runner.py: resuming ------------------------------------------------------------------------------------------

def _lines(d: Path) -> list[dict]:
    """The records of the bench folder ``d``, in file order."""
    return [json.loads(x) for x in (d / "runs.jsonl").read_text().splitlines()]


def _write(d: Path, recs: list[dict]) -> None:
    """Replace the bench folder's runs.jsonl by ``recs``, one line each."""
    (d / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_resumed_bench_retries_only_runs_whose_last_record_failed(tmp_path: Path) -> None:
    """Seed 0 failed once and then ran (its last record is fine); seed 1's last record is a timeout. With
    --retry-errors only seed 1 runs again, it is not counted a skipped failure, and the bar starts at 1 of 2."""
    # Mutants: failed runs taken from every record, not the last of each key (seed 0 rerun at every resume);
    # skipped_failed counting retried runs; the bar's count or total not including the skipped run.
    d = tmp_path / "b"
    s = runner.run_bench(_cart(seeds="0,1"), d, echo=lambda m: None, progress_stream=io.StringIO())
    assert (s.total, s.ran, s.errors) == (2, 2, 0)
    r0, r1 = sorted(_lines(d), key=lambda r: r["seed"])
    _write(d, [dict(r0, status="error"), r0, dict(r1, status="timeout")])
    said: list[str] = []
    bar = io.StringIO()
    s = runner.run_bench(_cart(seeds="0,1"), d, echo=said.append, progress_stream=bar, retry_errors=True)
    assert (s.total, s.skipped, s.ran, s.errors, s.skipped_failed) == (2, 1, 1, 0, 0)
    assert [x.split("] ")[1].split(",")[0] for x in bar.getvalue().splitlines()] == ["1/2 runs done",
                                                                                    "2/2 runs done"]
    assert said == [f"1 of 2 run(s) already in {d / 'runs.jsonl'}: skipped"]
    assert [(r["seed"], r["status"]) for r in _lines(d)[3:]] == [(1, "optimal")]


@pytest.fixture()
def phases_folder(tmp_path: Path) -> tuple[Path, BenchOptions, list[dict]]:
    """A phases bench folder on sonar (seed 0, time limit 6 s), and its one task's three records, all "optimal" with
    their scores (written by hand from failed_records: no solve)."""
    opts = make_options("phases", datasets="sonar", seeds="0", time_limit=6)
    d = tmp_path / "b"
    with open_bench(d, opts):
        pass
    (task,) = runner.timed_under(bench_tasks.make_tasks(opts), 1, None)
    scores = {"status": "optimal", "error": None, "test_balanced_accuracy": 0.7, "train_balanced_accuracy": 0.8}
    recs = [dict(r, **scores) for r in bench_tasks.failed_records(task, "error", "x", 1.0)]
    assert [r["model"] for r in recs] == ["OLCT-W", "OLCT-V0", "OLCT-V0R"]
    return d, opts, recs


def test_a_phases_run_with_one_failed_record_is_a_skipped_failure(phases_folder) -> None:
    """A phases run writes three records; all three there, one an error: the run is skipped (no --retry-errors),
    counted once among the skipped failures, and none of its records is said to be another bench's."""
    # Mutants: a skipped failure only when every record of the run failed; own_records keeping only each run's
    # first key (OLCT-V0 and OLCT-V0R then "other" records and the run done again).
    d, opts, recs = phases_folder
    _write(d, [recs[0], dict(recs[1], status="error"), recs[2]])
    said: list[str] = []
    s = runner.run_bench(opts, d, echo=said.append, progress_stream=io.StringIO())
    assert (s.total, s.skipped, s.ran, s.errors, s.skipped_failed) == (1, 1, 0, 0, 1)
    assert said == [f"1 of 1 run(s) already in {d / 'runs.jsonl'}: skipped"]


def test_a_phases_run_missing_a_record_runs_again_and_counts_one_failure(phases_folder) -> None:
    """Two of a phases run's three records there: the run is not done and runs again. Killed at its 1 s run timeout
    (unkilled: 4.6 s), it writes three timeout records and is one failed run, not three, nor none."""
    # Mutants: a run done when any (not every) of its keys is; errors counted per record (3); timeouts not counted.
    d, opts, recs = phases_folder
    _write(d, recs[:2])
    s = runner.run_bench(opts, d, echo=lambda m: None, progress_stream=io.StringIO(), run_timeout=1.0)
    assert (s.total, s.skipped, s.ran, s.errors, s.skipped_failed) == (1, 0, 1, 1, 0)
    new = _lines(d)[2:]
    assert [(r["model"], r["status"], r["hard_limit"]) for r in new] == [("OLCT-W", "timeout", 1.0),
                                                                         ("OLCT-V0", "timeout", 1.0),
                                                                         ("OLCT-V0R", "timeout", 1.0)]
