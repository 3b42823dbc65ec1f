"""Third mutation-testing pass on olctc.bench's report and metrics (QA 2026-12-07): behaviour the earlier passes'
tests left unpinned. Each test names the mutants (/tmp/qa173/mut) it kills. Bench folders are written by hand (no
bench fit is run); the trees are the earlier pass's tiny HiGHS fit."""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import olctc.bench.report as report
from olctc.errors import OlctcError
from test_bench_tasks_report_mutation_gaps import _done, _overrun, _rec, drawn, tiny_tree  # noqa: F401  (fixtures)

# ---- the target check -----------------------------------------------------------------------------------------


def _target(recs: list[dict[str, Any]]) -> str:
    """The target check's one line for the records' summary rows."""
    (text,) = report.target_check(report.summary_rows("models", recs))[1:]
    return text


def test_a_data_set_where_both_models_failed_is_not_counted_against_olct() -> None:
    # Mutant r39: a data set where OLCT and CART both failed counted as one CART won ("0 of 1"): only a data set
    # where CART finished and OLCT failed is lost.
    text = _target([_rec("heart", 0, "OLCT", "error"), _rec("heart", 0, "CART", "timeout")])
    assert "; above CART on 0 of 0, each data set's means" in text
    assert text.endswith("; every OLCT run failed on heart: counted as missing the target.")


def test_data_sets_with_no_seed_both_finished_are_named() -> None:
    # Mutant r63: a data set where every CART run failed left out of the "not compared" note (r40, the note
    # dropped, also fails here). OLCT finished seed 0 and CART seed 42 only; then CART's only run failed.
    tail = "above CART on 0 of 0, each data set's means over the seeds both finished; not compared on heart (no seed"
    assert tail in _target([_done("heart", 0, "OLCT", 0.8), _done("heart", 42, "CART", 0.7)])
    assert tail in _target([_done("heart", 0, "OLCT", 0.8), _rec("heart", 0, "CART", "error")])


def test_a_mean_within_the_anchor_is_qualified_only_when_runs_failed() -> None:
    # Mutant r41: "(over the runs that finished ...)" said of a cell of several runs none of which failed.
    # heart: the authors' 86.16 and 84.6 on seeds 0 and 42.
    full = [_done("heart", 0, "OLCT", 0.8616), _done("heart", 42, "OLCT", 0.846)]
    assert "over the runs that finished" not in _target(full)
    text = _target([*full, _rec("heart", 314, "OLCT", "error")])
    assert "(heart) (over the runs that finished: heart: 2 of 3 runs); above CART on 0 of 0" in text


# ---- the summary's Markdown -------------------------------------------------------------------------------------

def _md(recs: list[dict[str, Any]], models: list[str], options: dict[str, Any]) -> str:
    """summary.md of the records under bench.json ``options`` (of the models experiment)."""
    return report.markdown("models", report.summary_rows("models", recs), models, {"options": options}, recs)


def test_cells_name_their_seeds_sorted_when_they_are_not_the_benchs() -> None:
    # Mutants r17 (seeds compared by count: seeds 0, 1 of a bench of 0, 42 read as the bench's), r18 (a cell's
    # seeds in record order), r27 (the table's separator a column short: the Markdown table broke).
    recs = [_done("heart", 42, "CART", 0.7), _done("heart", 0, "CART", 0.8), _done("heart", 1, "OLCT", 0.9),
            _done("heart", 0, "OLCT", 0.7)]
    md = _md(recs, ["OLCT", "CART"], {"seeds": [0, 42, 314]})
    assert "| data set | OLCT | CART |\n|---|---|---|\n| heart | 80.00 ± 10.00 (seeds: 0, 1) | 75.00 ± 5.00" in md
    assert "(seeds: 0, 42)" in md
    md = _md(recs, ["OLCT", "CART"], {"seeds": [0, 42]})
    assert "(seeds: 0, 1)" in md and "(seeds: 0, 42)" not in md


def test_seeds_that_are_no_list_name_no_cells_seeds() -> None:
    # Mutant r66: seeds of a bench.json edited into a string compared with each cell's (every cell then named
    # its seeds, the bench's "seeds" being no list of them).
    md = _md([_done("heart", 0, "CART", 0.8)], ["CART"], {"seeds": "0"})
    assert "| heart | 80.00 [68.30] |" in md


def test_header_states_min_leaf_and_smoothing_each_by_its_own_option() -> None:
    # Mutants r23 (CART's and STreeD's minimum leaf stated one above --min-leaf), r24 (the --smooth-pure-nodes note
    # keyed on --min-leaf: said of a bench that did not smooth, missing from one that did).
    recs = [_done("heart", 0, "CART", 0.8)]
    md = _md(recs, ["CART"], {"seeds": [0], "min_leaf": 5})
    assert (" Every last-layer node of the tree models holds none or at least 5 training points, CART's and STreeD's "
            "leaves at least 5 (--min-leaf; the authors' trees had no minimum).\n") in md
    assert "--smooth-pure-nodes" not in md
    md = _md(recs, ["CART"], {"seeds": [0], "smooth_pure_nodes": True})
    assert ("olctc's splits (all rows). The tree models' one-class last-layer nodes predict their points' smoothed "
            "log-odds (--smooth-pure-nodes; the authors kept the solver's).\n") in md


def test_figure_notes_count_instances_only_when_some_are_left_out() -> None:
    # Mutant r35: "(n of n instances ...; a run not made yet is left out)" said of a bench that left none out.
    recs = [_done("heart", 0, "OLCT", 0.7), _done("heart", 0, "CART", 0.7)]
    assert report.figure_notes(recs, ["OLCT", "CART"]) == [
        "Figures: each compares its models per instance (data set, seed) over the instances all of them have a "
        "record for. A run recorded as failed (error, timeout, or skipped) counts as never within any gap and worst "
        "in every profile, as in the paper."]


def test_overrun_note_counts_only_solves_past_the_cap_and_numeric_times() -> None:
    # Mutants r30 (a solve of exactly 1.5 x 5 + 5 = 12.5 s named), r32 (", ..." after exactly five named, none
    # left out), r33 (an edited time_solve "30" compared with the cap: a TypeError crashed the report).
    recs = [_overrun(f"d{i}", 20.0 + i) for i in range(5)] + [_overrun("cap", 12.5), _overrun("text", "30")]
    (_, line) = report.overrun_note(recs, 5)
    assert line.startswith("**Solves past the time limit**: 5 of 6 olctc solve(s) took over 1.5 x 5 + 5 s: d4 seed 0 "
                           "OLCT (24.0 s), d3 seed 0 OLCT (23.0 s), d2 seed 0 OLCT (22.0 s), d1 seed 0 OLCT (21.0 s), "
                           "d0 seed 0 OLCT (20.0 s). A machine"), line
    assert report.overrun_note([_overrun("cap", 12.5)], 5) == []


def test_a_profile_of_equal_costs_runs_to_a_ratio_of_two(drawn, tmp_path: Path) -> None:  # noqa: F811
    # Mutant r44: the ratio axis's floor 1, not 2: where every model ties (all ratios 1) it ran from 1 to 1.1, a
    # sliver of an axis. Nonzeros per node (OLCT, CART): (2, 2) and (1, 1).
    recs = [_done("heart", s, m, 0.7, mean_nonzero_per_node=v) for s, v in ((0, 2.0), (42, 1.0))
            for m in ("OLCT", "CART")]
    report.fig_sparsity(tmp_path / "s.png", recs, ["OLCT", "CART"])
    x, Y, _, _ = drawn["s.png"]
    np.testing.assert_allclose(x, np.geomspace(1.0, 2.0, 200))
    assert (Y == 1).all()


# ---- the bench folder's runs ------------------------------------------------------------------------------------

def test_expected_runs_of_phases_are_its_record_names() -> None:
    # Mutant r12: the runs a bench expects named by model, not by the records its runs write (OLCT-phases writes
    # OLCT-W, OLCT-V0 and OLCT-V0R): every phases run read as missing, and every record as another bench's.
    got = report.expected_runs({"experiment": "phases", "options": {"datasets": ["heart"], "seeds": [0],
                                                                    "models": ["OLCT-phases"]}})
    assert got == {f"heart|0|{m}": ("heart", 0, m) for m in ("OLCT-W", "OLCT-V0", "OLCT-V0R")}


def test_missing_runs_are_named_by_data_set_then_model() -> None:
    # Mutant r13: the cells in the order of the sorted runs (heart seed 0 OLCT before heart seed 42 CART), not by
    # data set and model as the docstring's example and the report's tables.
    text = report.missing_text([("heart", 0, "OLCT"), ("heart", 42, "CART"), ("breast", 42, "OLCT")], 8)
    assert text == "3 of 8 run(s) missing: breast OLCT (seed 42); heart CART (seed 42); heart OLCT (seed 0)"


def _folder(d: Path, recs: list[dict[str, Any]], extra: str = "") -> Path:
    """A bench folder of heart CART seeds 0 and 42 holding ``recs`` (and the text ``extra``) in runs.jsonl."""
    d.mkdir()
    options = {"datasets": ["heart"], "seeds": [0, 42], "models": ["CART"], "solver": "highs", "time_limit": 5,
               "fixed_C": "anchors", "cv": None, "C_grid": [1.0]}
    (d / "bench.json").write_text(json.dumps({"experiment": "models", "options": options}))
    (d / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs) + extra)
    return d


def test_a_complete_bench_reports_in_silence(tmp_path: Path) -> None:
    # Mutant r55: "the bench is incomplete, 0 of 2 run(s) missing" said of a bench that has every run.
    said: list[str] = []
    rep = report.write_report(_folder(tmp_path / "b", [_done("heart", s, "CART", 0.7) for s in (0, 42)]), said.append)
    assert said == [] and rep.missing == () and rep.bad_lines == 0


def test_a_bench_folder_that_does_not_exist_is_named_as_missing(tmp_path: Path) -> None:
    # Mutant r56: a folder that does not exist called "a file, not a folder".
    with pytest.raises(OlctcError, match=f"^bench folder {re.escape(str(tmp_path / 'nope'))} does not exist$"):
        report.write_report(tmp_path / "nope", print)
    assert not (tmp_path / "nope").exists()


def test_a_single_unreadable_line_and_a_single_foreign_record_are_said(tmp_path: Path) -> None:
    # Mutants r53 (one unreadable line ignored in silence), r54 (one record of another bench's run, seed 7, too).
    recs = [_done("heart", s, "CART", 0.7) for s in (0, 42, 7)]
    d = _folder(tmp_path / "b", recs, '{"dataset": "heart", "se')
    said: list[str] = []
    rep = report.write_report(d, said.append)
    assert said == [f"{d / 'runs.jsonl'}: ignored 1 unreadable line(s) (a run killed while writing, a line edited by "
                    "hand, or a record of another experiment)",
                    f"{d / 'runs.jsonl'}: ignored 1 record(s) of runs this bench does not have (a data set, seed, "
                    "model or option other than its bench.json's: copied or edited in)"]
    assert rep.bad_lines == 1 and rep.rows[0]["seeds_used"] == "0 42"


def test_runs_csv_keeps_only_the_list_fields_it_names(tmp_path: Path) -> None:
    # Mutant r59: every list field of a record written into runs.csv (train_leaf_sizes here), beside the two it
    # keeps (C and the per-node nonzero counts); the CV grid, a list of settings, stays out either way.
    extra = {"C": [1.0], "nonzero_weights_per_node": [1, 0, 0], "train_leaf_sizes": [40, 60, 20, 31],
             "cv_grid": [{"C": [1.0], "score": 0.7}]}
    d = _folder(tmp_path / "b", [_done("heart", s, "CART", 0.7, **extra) for s in (0, 42)])
    report.write_report(d, print)
    header = (d / "report" / "runs.csv").read_text().splitlines()[0].split(",")
    assert {"C", "nonzero_weights_per_node"} <= set(header)
    assert "train_leaf_sizes" not in header and "cv_grid" not in header


# ---- the runs' tree files -------------------------------------------------------------------------------------

def test_three_trees_whose_names_collide_are_all_written(tiny_tree, tmp_path: Path) -> None:  # noqa: F811
    # Mutant r50: every colliding name numbered _1, so the third of three overwrote the second.
    tree, _ = tiny_tree
    recs = [{"dataset": d, "seed": 0, "model": "OLCT", "key": f"{d}|0|OLCT", "tree": tree.to_dict()}
            for d in ("a b", "a_b", "a/b")]
    assert report._write_trees(tmp_path / "trees", recs, print) == 3
    assert sorted(f.name for f in (tmp_path / "trees").iterdir()) == [
        "a_b_0_OLCT.json", "a_b_0_OLCT_1.json", "a_b_0_OLCT_2.json"]


def test_a_renamed_tree_file_never_takes_an_earlier_files_name(tiny_tree, tmp_path: Path) -> None:  # noqa: F811
    """The second 'a?b' run's file is numbered as it comes, _2, which model OLCT_2 of run 'a b' has already taken:
    it overwrote that file (QA 2026-12-07, qa173's note), and the report said 2 trees for 3 runs."""
    tree, _ = tiny_tree
    recs = [{"dataset": d, "seed": 0, "model": m, "key": f"{d}|0|{m}", "tree": tree.to_dict()}
            for d, m in (("a b", "OLCT"), ("a b", "OLCT_2"), ("a_b", "OLCT"))]
    assert report._write_trees(tmp_path / "trees", recs, print) == 3
    assert sorted(f.name for f in (tmp_path / "trees").iterdir()) == [
        "a_b_0_OLCT.json", "a_b_0_OLCT_2.json", "a_b_0_OLCT_3.json"]


def test_a_report_without_trees_removes_the_emptied_trees_folder(tmp_path: Path) -> None:
    # Mutant r51: the trees folder of an earlier report left behind, empty, once its stale files were removed.
    trees = tmp_path / "trees"
    trees.mkdir()
    (trees / "heart_0_OLCT.json").write_text("{}")
    said: list[str] = []
    report._replace_trees(None, trees, said.append)
    assert not trees.exists() and len(said) == 1
