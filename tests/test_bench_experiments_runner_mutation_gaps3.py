"""Tests from a third mutation pass of the bench's experiments (registry, anchors, C and CV grids per depth) and runner
(QA 2026-12-07). Each test pins behaviour some hand-written mutant got wrong while the bench tests passed; the
comments name the mutants (their ids are in the commit message). The runner tests run real CART benches on haberman
(one seed, about a second); nothing here solves a MILP."""
from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from olctc.bench import experiments as ex
from olctc.bench import runner
from olctc.errors import OlctcError
from test_bench_experiments_runner_mutation_gaps2 import _lines
from test_bench_options_runner_mutation_gaps import _cart


# ---- experiments.py: the registry ------------------------------------------------------------------------------

def test_an_unknown_experiment_is_an_error_naming_the_known_ones_in_the_papers_order() -> None:
    """A name with a space is not an experiment: the same one-line error as any unknown name, not a KeyError."""
    # Mutants: get_experiment stripping the name before the check only (KeyError); the known names listed sorted.
    known = "tangents, phases, models, large, depth3"
    for name in (" models", "nope"):
        with pytest.raises(OlctcError, match=re.escape(f"unknown experiment {name!r}; known: {known}")):
            ex.get_experiment(name)


# ---- experiments.py: anchors ---------------------------------------------------------------------------------------

def test_phases_compares_only_its_refined_tree_with_the_authors() -> None:
    """The authors' OLCT(v0,ref) is the refined tree of the phases run (OLCT-V0R); the warm start and the unrefined
    MILP tree are not theirs and have no anchor."""
    # Mutants: the phases model without an anchor; the anchor put on OLCT-W (outputs[0]) or on every phase record.
    assert ex.anchor_for("phases", "OLCT-V0R", "sonar", 0) == 65.9
    assert ex.anchor_for("phases", "OLCT-V0R", "sonar") == ex.anchor_for("models", "OLCT", "sonar")
    assert [ex.anchor_for("phases", m, "sonar", 0) for m in ("OLCT-W", "OLCT-V0")] == [None, None]


def test_every_anchored_model_has_the_authors_numbers_and_baselines_without_a_row_have_none() -> None:
    """Each model of the models experiment with a row in the authors' log has all five seeds on every data set;
    CART's row is their CART log (no runtime, no sparsity: empty cells, not zeros); L1-LR and STreeD have none."""
    # Mutants: CART's anchor method renamed; SFS-MARGOT without an anchor; empty cells read as 0.
    for m in ("OLCT", "MARGOT", "SFS-MARGOT", "OCT-H", "CART"):
        for d in ex.UCI10:
            assert all(ex.anchor_for("models", m, d, s) is not None for s in ex.PAPER_SEEDS), (m, d)
    assert ex.anchor_for("models", "CART", "heart", 0) == 68.3
    assert ex.anchor_for("models", "CART", "heart") == 71.07
    cart = ex.seed_anchors()[("CART(authors log)", "heart")]
    assert (cart["runtime"], cart["nonzero"]) == (None, None)
    assert [ex.anchor_for("models", m, "heart", 0) for m in ("L1-LR", "STreeD")] == [None, None]


def test_no_anchor_for_a_seed_the_authors_did_not_run() -> None:
    """Another seed is another split: the models experiment has no anchor at seed 1 (not the mean); large and
    depth3 ran seed 0 only, so seed 42 has none either, while their mean (seed None) is the table's number."""
    # Mutants: an unknown seed falling back to the mean; the single-split check against the paper's five seeds or
    # dropped; the mean (seed None) refused for single-split experiments.
    assert ex.anchor_for("models", "OLCT", "heart", 1) is None
    assert ex.anchor_for("models", "OLCT", "heart") == 85.09
    assert [ex.anchor_for("large", "OLCT", "a6a", s) for s in (0, 42, None)] == [74.49, None, 74.49]
    assert [ex.anchor_for("depth3", "OLCT", "parkinsons", s) for s in (0, 6, None)] == [89.83, None, 89.83]


# ---- experiments.py: C per layer and CV grids at depth 3 ------------------------------------------------------------

def test_C_per_layer_at_depth_3() -> None:
    """At depth 3 the authors' root C_1 is the root's only; every deeper layer takes C_2. Fixed numbers are read at
    the run's depth: one number for every layer, or one per layer."""
    # Mutants: C_1 on every layer but the last; two layers whatever the depth; --fixed-C parsed at depth 2.
    assert ex.resolve_C(ex.OLCT, "haberman", 3, "anchors") == ((0.1, 100.0, 100.0), "anchors")
    assert ex.resolve_C(ex.MARGOT, "haberman", 3, "2") == ((2.0, 2.0, 2.0), "fixed")
    assert ex.resolve_C(ex.OLCT, "haberman", 3, "1,2,3") == ((1.0, 2.0, 3.0), "fixed")


def test_cv_grids_at_depth_3_keep_the_given_order() -> None:
    """Each layer takes every grid value at depth 3 too (SFS-MARGOT: 27 C triples x 3 alphas); the configurations
    come in --C-grid's order, which decides ties in CV (the first best is kept)."""
    # Mutants: the SFS or default grid at two layers whatever the depth; the default grid sorted.
    sfs = ex.cv_grid(ex.SFS_MARGOT, 3, ex.C_GRID)
    assert len(sfs) == 81 and {len(g["C"]) for g in sfs} == {3}
    assert sfs[:4] == [{"C": (0.01, 0.01, 0.01), "alpha": a} for a in (0.1, 1.0, 10.0)] + [
        {"C": (0.01, 0.01, 1.0), "alpha": 0.1}]
    assert [g["C"] for g in ex.cv_grid(ex.OLCT, 3, (10.0, 1.0))][:3] == [(10.0, 10.0, 10.0), (10.0, 10.0, 1.0),
                                                                       (10.0, 1.0, 10.0)]


# ---- runner.py ---------------------------------------------------------------------------------------------------

def test_unreadable_lines_and_other_records_are_counted_apart_and_are_no_failures(tmp_path: Path) -> None:
    """One unreadable line and one record of a seed this bench does not run: each said (even one of them), the line
    counted as the one bad line, and neither a failed run of this call."""
    # Mutants: a single bad line or other record not said; the note naming the folder, not runs.jsonl; other records
    # counted as bad lines; bad lines counted as errors; the summary's bad lines 0.
    d = tmp_path / "b"
    runner.run_bench(_cart(), d, echo=lambda m: None, progress_stream=io.StringIO())
    (rec,) = _lines(d)
    with open(d / "runs.jsonl", "a") as f:
        f.write("{not json\n" + json.dumps(dict(rec, seed=1, key="haberman|1|CART")) + "\n")
    said: list[str] = []
    s = runner.run_bench(_cart(), d, echo=said.append, progress_stream=io.StringIO())
    assert (s.total, s.skipped, s.ran, s.errors, s.bad_lines, s.skipped_failed) == (1, 1, 0, 0, 1, 0)
    runs = d / "runs.jsonl"
    assert said == [f"{runs}: ignored 1 unreadable line(s) (a run killed while writing, a line edited by hand, or a "
                    "record of another experiment); any run they held is done again",
                    f"{runs}: ignored 1 record(s) of runs this bench does not have (a data set, seed, model or option "
                    "other than its bench.json's: copied or edited in); those runs will be done",
                    f"1 of 1 run(s) already in {runs}: skipped"]
