"""Gaps found by a second mutation pass over olctc/spec.py, olctc/compile.py and olctc/pipeline.py (QA 2026-12-07):
the parameter errors whole (the parameter, what it must be, the value), the spec as described and recorded, the size
estimate against the model built, the manifest's fields and read_manifest's checks, and what write_compiled records.

Each test names the mutants it rules out; those were changes to the code, not defects seen in olctc. Models are
compiled for real, written into tmp_path and read back; solves run real solvers.
"""
from __future__ import annotations

import copy
import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.compile import check_size, compile_problem, estimate_size, manifest_path, model_format, read_manifest
from olctc.data import from_arrays, read_csv
from olctc.errors import OlctcError
from olctc.pipeline import solve_compiled_file, training_data, write_compiled
from olctc.spec import TreeSpec, make_spec

from conftest import TINY_CSV
from test_pipeline_params_mutation_gaps import _handed
from test_decode_edges import _set
from test_spec_compile_mutation_gaps import refused, tiny_data

TANGENT_TEXT = ("has a slope 1/(1 + e^v) below 1e-6 (where the loss is below 1e-6 too), so its line is the bound "
                "xi >= 0 that inf gives, up to coefficients solvers read as 0 or not")


# ---------------------------------------------------------------- spec: each refusal whole


@pytest.mark.parametrize("kwargs, message", [
    # S13/S14: 13.8 itself is allowed; the first point above it in the order given is named
    (dict(tangents="-inf,0,20,14,inf"), f"The 'tangents' parameter must be points <= 13.8 or inf: the tangent at 20.0 "
                                        f"{TANGENT_TEXT}. Got '-inf,0,20,14,inf' instead."),
    # S15, S16
    (dict(tangents="-inf,nan,inf"), "The 'tangents' parameter must be numbers or +-inf, not NaN. Got '-inf,nan,inf' "
                                    "instead."),
    (dict(tangents=[-math.inf, math.inf]), "The 'tangents' parameter must be a list with at least one finite point "
                                           "(with -inf and inf only, the tree of zero weights has loss 0). Got [-inf, "
                                           "inf] instead."),
    # S38: a set has no order, so no list of points
    (dict(tangents={0.0, 1.0}), "The 'tangents' parameter must be V0, V1, V2, V3 or a list of numbers. Got {0.0, 1.0} "
                                "instead."),
    # S17: _sci writes 1e-8, not 1e-08
    (dict(epsilon=1e-9), "The 'epsilon' parameter must be >= 1e-8: the solvers' feasibility tolerance is 1e-9, and a "
                         "smaller epsilon does not separate the two sides of a split. Got 1e-09 instead."),
    # S19: the bound for this epsilon, not the ratio
    (dict(big_m=2e5, epsilon=1e-3), "The 'big_m' parameter must be <= 1e8 * epsilon (100000 for epsilon 0.001): a "
                                    "binary within the solvers' integrality tolerance 1e-9 of its value relaxes a "
                                    "routing row by big_m * 1e-9, which must stay below epsilon. Got 200000.0 "
                                    "instead."),
    # S20, S21, S22: the presets a knob applies to
    (dict(preset="margot", tangents="V1"), "The 'tangents' parameter must be unset (or V0, the default): preset "
                                           "'margot' uses the hinge loss, not the logistic one's tangents (they apply "
                                           "to olct, olct-univariate). Got 'V1' instead."),
    (dict(preset="oct-h", budget=2), "The 'budget' parameter must be unset: preset 'oct-h' does not use it (it "
                                     "applies to olct-univariate, margot-sfs, margot-hfs). Got 2 instead."),
    (dict(preset="olct-univariate", alpha=2.0), "The 'alpha' parameter must be unset (or 1.0, the default): preset "
                                                "'olct-univariate' does not use it (it applies to margot-sfs, oct-h). "
                                                "Got 2.0 instead."),
    # S24: a 0-d array is quoted as one
    (dict(big_m=np.array(1e10)), "The 'big_m' parameter must be a number. Got array(1.e+10) instead."),
    # S26, S27: what C must be at depth 1 and at depth 3, quoting the value as given
    (dict(depth=1, C=[1, 2]), "The 'C' parameter must be one value for depth 1. Got [1, 2] instead."),
    (dict(depth=3, C=(1, 2)), "The 'C' parameter must be one value or 3 values (one per layer, root first) for depth "
                              "3. Got [1, 2] instead."),
    (dict(depth=3, C="1,2"), "The 'C' parameter must be one value or 3 values (one per layer, root first) for depth 3. "
                             "Got '1,2' instead."),
    # S25: 1e20 itself is infinite to the solvers
    (dict(preset="oct-h", alpha=1e20), "The 'alpha' parameter must be below 1e20 (solvers read a cost of 1e20 or more "
                                       "as infinite). Got 1e+20 instead."),
    # S29, S30, S33, S34, S36
    (dict(preset="margot-hfs", budget=0), "The 'budget' parameter must be an integer >= 1. Got 0 instead."),
    (dict(min_leaf=-1), "The 'min_leaf' parameter must be an integer >= 0 (training points per last-layer node; 0: no "
                        "minimum). Got -1 instead."),
    (dict(class_weight=[1.0, math.inf]), "The 'class_weight' parameter must be None, 'balanced' or two weights (class "
                                         "-1, class +1), each finite and > 0. Got [1.0, inf] instead."),
    (dict(depth=13), "The 'depth' parameter must be <= 12 (depth 13 has 8191 branch nodes and 4096 routing variables "
                     "per point). Got 13 instead."),
    (dict(preset="oct-h", alpha=math.inf), "The 'alpha' parameter must be a finite number >= 0. Got inf instead."),
])
def test_make_spec_refuses_with_the_whole_message(kwargs: dict[str, Any], message: str) -> None:
    assert refused(**kwargs) == message


def test_an_int_beyond_the_float_range_is_named_as_such() -> None:
    """S23: 10**400 was refused as 'must be a number', which it is."""
    assert refused(big_m=10 ** 400).startswith("The 'big_m' parameter must be a number within the float range (below "
                                                "1.8e308). Got 10000000000")


def test_limits_of_the_knobs_are_allowed_at_the_limit() -> None:
    """S13 (13.8 refused with >=), S18 (big-M of exactly 1e8 * epsilon refused): both are inside the limits."""
    assert make_spec(tangents=[-math.inf, 0, 13.8, math.inf]).tangents == (-math.inf, 0.0, 13.8, math.inf)
    assert make_spec(big_m=1e6, epsilon=1e-2).big_m == 1e6


def test_named_tangent_sets_hold_the_papers_points() -> None:
    """S37: a V2 point changed (3.55 to 3.5) went unnoticed: V1 and V2 are Sato et al.'s points."""
    assert make_spec(tangents="V1").tangents == (-math.inf, -1.9, 0.0, 1.9, math.inf)
    assert make_spec(tangents="V2").tangents == (-math.inf, -3.55, -1.9, -0.89, 0.0, 0.89, 1.9, 3.55, math.inf)


def test_a_tangent_point_beyond_todays_limit_is_refused_new_and_read_old() -> None:
    """S28 (make_spec with the read limit, 700): a new spec refuses a point of 20, a manifest's spec still reads it."""
    assert refused(tangents="-inf,0,20,inf").startswith("The 'tangents' parameter must be points <= 13.8 or inf")
    d = make_spec().to_json()
    d.update(tangents=["-inf", "0.0", "20.0", "inf"], tangent_set="custom")
    assert TreeSpec.from_json(d).tangents == (-math.inf, 0.0, 20.0, math.inf)


def test_a_tangent_set_name_that_is_not_the_points_is_refused() -> None:
    """S35: TreeSpec built with V0's points named V1 kept the wrong name (the manifest then said V1)."""
    with pytest.raises(OlctcError) as exc:
        TreeSpec(tangents=(-math.inf, 0.0, math.inf), tangent_set="V1")
    assert str(exc.value) == ("The 'tangent_set' parameter must be 'V0', the name of the tangents given. Got 'V1' "
                              "instead.")


def test_class_weights_of_one_and_balanced_in_any_case() -> None:
    """S31 ((1, 1) kept as weights: another manifest and description for the paper's model), S32 (' Balanced '
    refused)."""
    assert make_spec(class_weight=[1, 1]).class_weight is None
    assert make_spec(class_weight=[1, 1]).describe() == "olct depth 2 (C 1,1, tangents V0)"
    assert make_spec(class_weight=" Balanced ").class_weight == "balanced"


def test_describe_names_the_knobs_the_preset_uses_and_the_weights_by_class() -> None:
    """S03 (tangents described for a preset without them), S04/S05 (the class weights swapped)."""
    s = make_spec("oct-h", class_weight=(2, 3), min_leaf=2)
    assert s.describe() == "oct-h depth 2 (C 1,1, alpha 1, class weights 2,3, min leaf 2)"
    assert s.describe(["no", "yes"]) == "oct-h depth 2 (C 1,1, alpha 1, class weights no=2, yes=3, min leaf 2)"
    assert make_spec("margot").describe() == "margot depth 2 (C 1,1)"
    assert make_spec(tangents="V2").describe() == "olct depth 2 (C 1,1, tangents V2)"


def test_the_spec_records_the_presets_default_budget() -> None:
    """S06: to_json recording the budget given (None) for margot-hfs's default of 1."""
    assert make_spec("margot-hfs").to_json()["budget"] == 1
    assert make_spec("margot-hfs", budget=2).to_json()["budget"] == 2


def test_balanced_weights_from_labels_and_from_sample_weights() -> None:
    """S07 (one class balanced), S08 (the two classes' weights swapped), S09 (sample weights not counted), S10
    (sample weights dropped from the point weights when there are no class weights)."""
    y = np.array([1, 1, -1, 1])
    spec = make_spec(class_weight="balanced")
    assert spec.class_weights(y) == (2.0, 2 / 3)
    assert spec.class_weights(y, np.array([1.0, 1.0, 2.0, 0.0])) == (1.0, 1.0)
    assert spec.class_weights(np.array([1, 1])) is None and spec.class_weights(np.array([-1, -1])) is None
    np.testing.assert_array_equal(spec.point_weights(np.array([1, 1]), np.array([1.0, 3.0])), [1.0, 3.0])
    np.testing.assert_array_equal(make_spec().point_weights(y, np.array([1, 2, 3, 4])), [1.0, 2.0, 3.0, 4.0])


def test_an_old_manifests_unused_knobs_read_as_unset() -> None:
    """S11, S12: a manifest written before unused knobs were refused (olct with alpha 3 and budget 2) reads."""
    d = make_spec("olct").to_json()
    d.update(alpha=3.0, budget=2)
    s = TreeSpec.from_json(d)
    assert (s.alpha, s.budget) == (1.0, None)


# ---------------------------------------------------------------- compile: sizes, checks, the manifest


SIZE_CASES = [(preset, depth, sv, leaf) for preset in ("olct", "olct-univariate", "margot", "margot-sfs", "margot-hfs",
                                                       "oct-h") for depth in (1, 3) for sv in (False, True)
              for leaf in (0, 2)]


def test_the_size_estimate_is_the_models_size() -> None:
    """C01-C07 (a term of the estimate changed): rows and columns are the model's own, the nonzeros an upper bound,
    over by one per node only where HFS's budget row counts an entry it does not hold. S02 (min_leaf 1 given its
    rows): a min_leaf of 1 is the model without them."""
    rng = np.random.default_rng(1)
    X = rng.normal(size=(10, 3))
    ds = from_arrays(X, np.where(X[:, 0] + rng.normal(size=10) > 0, 1, -1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for preset, depth, sv, leaf in SIZE_CASES:
            spec = make_spec(preset, depth, score_variables=sv, min_leaf=leaf,
                             **({"tangents": "V1"} if preset == "olct" else {}))
            milp = compile_problem(ds, spec).milp
            est = estimate_size(ds.n, ds.p, spec)
            over = 2 ** depth - 1 if spec.info.l0 == "hfs" else 0
            assert (est.rows, est.cols, est.nonzeros - milp.nnz) == (milp.n_rows, milp.n_cols, over), spec
        one = compile_problem(ds, make_spec(depth=2, min_leaf=1)).milp
        none = compile_problem(ds, make_spec(depth=2)).milp
    assert (one.n_rows, one.n_cols, one.nnz) == (none.n_rows, none.n_cols, none.nnz)


def test_check_size_takes_a_budget_of_p_and_refuses_a_bool_limit() -> None:
    """C09 (a budget of p refused), C12 (max_nonzeros=True taken as 1)."""
    assert check_size(10, 3, make_spec("margot-hfs", budget=3)).rows == 81
    with pytest.raises(OlctcError) as exc:
        check_size(10, 3, make_spec(), True)  # type: ignore[arg-type]
    assert str(exc.value) == "The 'max_nonzeros' parameter must be an integer >= 1. Got True instead."


def test_a_model_over_the_nonzeros_budget_is_refused_for_its_nonzeros() -> None:
    """C10: a model over the default budget of nonzeros and of memory was refused for its memory, with the advice to
    pass max_nonzeros; over the nonzeros it is refused for them, with the advice to make it smaller."""
    with pytest.raises(OlctcError) as exc:
        check_size(1_000_000, 200, make_spec(depth=6))
    assert str(exc.value) == ("the model would have 189,012,600 rows, 38,037,863 columns, about 38,426,037,800 "
                              "nonzeros, over the budget of 400,000,000 nonzeros (max_nonzeros, --max-nonzeros); use a "
                              "smaller depth, fewer tangents or fewer points")


def test_the_memory_refusal_names_the_command_line_option_too() -> None:
    """C11: the memory refusal gives the value to pass both as max_nonzeros and as --max-nonzeros."""
    from olctc.datasets import load

    ds = load("svmguide1")
    spec = make_spec("olct", 12, score_variables=True)
    nnz = estimate_size(ds.n, ds.p, spec).nonzeros
    with pytest.raises(OlctcError) as exc:
        check_size(ds.n, ds.p, spec)
    assert str(exc.value).endswith(f"or pass max_nonzeros={nnz} (--max-nonzeros {nnz}) to build it anyway")


def test_the_manifest_records_the_weighted_data_and_the_model() -> None:
    """C13 (n_negative miscounted), C14 (balanced weights worked out without the sample weights), C15 (no
    weight_sum), C16 (a MIQP recorded as linear)."""
    c = compile_problem(tiny_data([1.0, 0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0]), make_spec("margot", 1,
                                                                                          class_weight="balanced"))
    data = c.manifest["data"]
    assert (data["n"], data["n_positive"], data["n_negative"]) == (6, 3, 3)
    assert data["class_weights"] == [1.125, 0.9] and data["weight_sum"] == 9.0
    assert c.manifest["model"]["quadratic"] is True
    assert compile_problem(tiny_data(), make_spec(depth=1)).manifest["model"]["quadratic"] is False


def test_rows_refused_name_the_negative_row_and_the_first_difference() -> None:
    """C18 (the largest row named for a negative one), C19 (the position off by one)."""
    ds = tiny_data()
    with pytest.raises(OlctcError) as exc:
        compile_problem(ds, make_spec(depth=1), rows=[0, 1, 2, 3, 4, 5, 6, -2])
    assert str(exc.value).endswith("Got row -2 instead.")
    sub = ds.subset(np.arange(1, 8))
    with pytest.raises(OlctcError) as exc:
        compile_problem(sub, make_spec(depth=1), rows=[1, 2, 9, 4, 5, 6, 7])
    assert str(exc.value).endswith("Got row 9 at position 2, where the dataset has row 3.")


def test_loss_costs_of_exactly_1e20_are_refused_naming_the_weight_column(tmp_path: Path) -> None:
    """C20 (a cost of exactly 1e20 taken), C21 (the weight column left out of the message): C 1e19 times a point
    weight of 10 is 1e20."""
    csv = tmp_path / "w.csv"
    lines = TINY_CSV.splitlines()
    csv.write_text("\n".join([lines[0] + ",w"] + [ln + (",10" if k == 0 else ",1") for k, ln in
                                                   enumerate(lines[1:])]) + "\n")
    ds = read_csv(csv, "y", weight_column="w")
    with pytest.raises(OlctcError) as exc:
        compile_problem(ds, make_spec("oct-h", 1, C=1e19))
    assert str(exc.value) == (f"{csv}: C times the point weights (column 'w') and the class weights gives loss costs "
                              "up to 1e+20, and solvers read a cost of 1e20 or more as infinite; scale C or the "
                              "weights down")


def test_model_file_names() -> None:
    """C22 (NAME.MPS's manifest named NAME.MPS.olctc.json), C23 (a name without suffix said '')."""
    assert manifest_path("a/m.MPS") == Path("a/m.olctc.json")
    with pytest.raises(OlctcError) as exc:
        model_format("m")
    assert str(exc.value) == "m: the model file must end in .mps or .lp (got 'no suffix')"


# ---------------------------------------------------------------- read_manifest: each check


@pytest.fixture
def written(tmp_path: Path) -> dict[str, Any]:
    """A compiled problem of TINY_CSV written to tmp_path/m.mps; its manifest as read."""
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    write_compiled(compile_problem(read_csv(tmp_path / "tiny.csv", "y"), make_spec("olct", 1)), tmp_path / "m.mps")
    return json.loads((tmp_path / "m.olctc.json").read_text())


def read_edited(tmp_path: Path, man: dict[str, Any], edit: Any, checksum: bool = False) -> str:
    """read_manifest's answer ("OK" or its message) on ``man`` edited by ``edit`` (its checksum dropped)."""
    m = copy.deepcopy(man)
    if not checksum:
        del m["checksum"]
    edit(m)
    path = tmp_path / "e.olctc.json"
    path.write_text(json.dumps(m))
    try:
        read_manifest(path, check_model=False)
    except OlctcError as exc:
        return str(exc).replace(f"{path}: ", "")
    return "OK"


@pytest.mark.parametrize("edit, message", [
    # C25: JSON true is 1 in Python
    (_set("version", True), "manifest version True is not supported (this olctc reads version 1)"),
    # C29: 0 points, with no counts to sum
    (lambda m: (m["data"].pop("n_positive"), m["data"].pop("n_negative"), m["data"].update(n=0, rows=None)),
     "damaged manifest: field 'data.n': expected an integer >= 1, got 0; compile again"),
    # C30
    (_set("data.n_positive", 5), "damaged manifest: field 'data.n': expected n_positive + n_negative = 8, got 6; "
                                    "compile again"),
    # C31
    (lambda m: (m.update(classes=[1, 1]), m["data"].update(positive_class=None)),
     "damaged manifest: field 'classes': expected two different labels, got 1; compile again"),
    # C33, C34
    (lambda m: m.update(schema=m["schema"][:1]), "damaged manifest: field 'schema': expected columns that encode to 4 "
                                                 "features (data.p), got 1 features; compile again"),
    (_set("schema.2.categories", ["x", "x"]), "damaged manifest: field 'schema[2].categories': expected a "
                                                  "non-empty list of distinct strings, got a list of 2; compile again"),
    # C35, C36, C37
    (_set("scaler.scale.0", 0), "damaged manifest: field 'scaler.scale[0]': expected a finite number > 0, got 0; "
                                    "compile again"),
    (_set("warm_start", {"objective": "a"}), "damaged manifest: field 'warm_start.objective': expected a finite "
                                             "number, got 'a'; compile again"),
    (lambda m: m["files"]["start"]["highs"].pop("sha256"), "damaged manifest: field 'files.start.highs.sha256': "
                                                           "expected a non-empty string, got nothing (missing); "
                                                           "compile again"),
    # C43, C44, C45
    (_set("blocks.columns.0.start", False), "damaged manifest: field 'blocks.columns[0].start': expected 0 "
                                                   "(where the block before ends), got false; compile again"),
    (lambda m: m["blocks"]["rows"].pop(), "damaged manifest: field 'blocks.rows': expected blocks covering the 22 rows "
                                          "of the model, got blocks covering 18; compile again"),
    (_set("data.sha256", "G" * 64), "damaged manifest: field 'data.sha256': expected 64 hex digits, got "
                                       "'GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG...; compile again"),
    # C32: a positive class recorded as text for a number label is the same class
    (_set("data.positive_class", "1"), "OK"),
])
def test_read_manifest_refuses_each_damage(written: dict[str, Any], tmp_path: Path, edit: Any, message: str) -> None:
    assert read_edited(tmp_path, written, edit) == message


def test_a_moved_data_file_needs_no_edit_of_the_checksum(written: dict[str, Any], tmp_path: Path) -> None:
    """C24 (data.source in the checksum): a corrected data path keeps the checksum; a non-string checksum (C27)
    is named as such."""
    assert read_edited(tmp_path, written, _set("data.source", "moved/tiny.csv"), checksum=True) == "OK"
    assert read_edited(tmp_path, written, _set("checksum", 5), checksum=True) == (
        "damaged manifest: field 'checksum': expected a string, got 5; compile again")


def test_a_folder_and_a_missing_optional_model(written: dict[str, Any], tmp_path: Path) -> None:
    """C26 (a folder read as a file), C28 (a missing model refused where decode needs none)."""
    (tmp_path / "d.olctc.json").mkdir()
    with pytest.raises(OlctcError) as exc:
        read_manifest(tmp_path / "d.olctc.json")
    assert str(exc.value) == (f"{tmp_path / 'd.olctc.json'}: is a folder, expected a manifest (compile writes "
                              "NAME.olctc.json beside NAME.mps)")
    (tmp_path / "m.mps").unlink()
    assert read_manifest(tmp_path / "m.olctc.json", model_optional=True)["name"] == "model"


def test_a_key_missing_deep_inside_is_named(tmp_path: Path) -> None:
    """C38: manifest_fields names the missing field."""
    from olctc.compile import manifest_fields

    with pytest.raises(OlctcError) as exc:
        with manifest_fields("m.olctc.json"):
            {}["files"]
    assert str(exc.value) == "m.olctc.json: damaged manifest: field 'files' is missing; compile again"


# ---------------------------------------------------------------- write_compiled and solve_compiled_file


def _tiny(tmp_path: Path, preset: str = "olct"):
    (tmp_path / "tiny.csv").write_text(TINY_CSV)
    return compile_problem(read_csv(tmp_path / "tiny.csv", "y"), make_spec(preset, 1))


def test_the_manifest_lists_the_solvers_their_sorted_params_and_an_empty_start(tmp_path: Path) -> None:
    """P03 (files.solvers dropped), P04 (no empty start for a compile for glpsol alone, whose solve then could not
    say so), P06 (the parameter files unsorted)."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="glpk,highs")
    files = json.loads((tmp_path / "m.olctc.json").read_text())["files"]
    assert files["solvers"] == ["highs", "glpk"] and files["params"] == ["m.glpk.args", "m.highs.opt",
                                                                         "m.solvers.txt"]
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="glpk")
    files = json.loads((tmp_path / "m.olctc.json").read_text())["files"]
    assert files["start"] == {} and files["solvers"] == ["glpk"]


def test_the_highs_program_takes_no_scip_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """P01: highs-cli (the HiGHS program, not on this machine) was handed SCIP's start file, which it does not
    read; it is told it has none."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="scip")
    with pytest.warns(UserWarning, match=r"none that highs-cli reads: solving without one \(compile with --solvers "
                                         r"highs to have it\)"):
        got = _handed(tmp_path, monkeypatch, "highs-cli")
    assert got["start_path"] is None


def test_a_commercial_solver_takes_xpresss_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """P22: after a compile for Xpress alone, Gurobi in process was handed no start, though olctc reads Xpress's."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="xpress")
    assert _handed(tmp_path, monkeypatch, "gurobi")["start_path"] == tmp_path / "m.start.xpress.slx"


def test_a_solve_in_process_names_the_start_to_compile_for(tmp_path: Path) -> None:
    """P11: after a compile for CBC alone, HiGHS solves without a start and names its own first (highs, not scip)."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="cbc")
    with pytest.warns(UserWarning, match=r"none that highs reads: solving without one \(compile with --solvers highs "
                                         r"to have it\)"):
        res, sol = solve_compiled_file(tmp_path / "m.mps", "highs", verbose=False)
    assert res.status == "optimal" and sol == tmp_path / "m.highs.sol"


def test_a_missing_start_file_is_warned_of(tmp_path: Path) -> None:
    """P12: a start file compile wrote and someone removed: the solve says it runs without one."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="highs")
    (tmp_path / "m.start.highs.sol").unlink()
    with pytest.warns(UserWarning, match=r"m\.start\.highs\.sol: missing \(compile wrote it\); solving without the MIP "
                                         r"start"):
        res, _ = solve_compiled_file(tmp_path / "m.mps", "highs", verbose=False)
    assert res.status == "optimal"


def test_a_manifest_of_another_file_name_is_named(tmp_path: Path) -> None:
    """P08: the warning names the model file the manifest was written for."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="highs")
    (tmp_path / "m.MPS").write_bytes((tmp_path / "m.mps").read_bytes())  # its manifest is m.olctc.json too
    with pytest.warns(UserWarning, match=r"^m\.olctc\.json was written for model file 'm\.mps', not m\.MPS: solving "
                                         r"without the MIP start compile wrote"):
        res, _ = solve_compiled_file(tmp_path / "m.MPS", "highs", verbose=False)
    assert res.status == "optimal"


def test_cbcs_solution_is_named_without_cli(tmp_path: Path) -> None:
    """P15: the CBC program's solution is NAME.cbc.sol, the name the solvers' commands give it."""
    write_compiled(_tiny(tmp_path), tmp_path / "m.mps", solvers="cbc")
    res, sol = solve_compiled_file(tmp_path / "m.mps", "cbc-cli", verbose=False)
    assert sol == tmp_path / "m.cbc.sol" and sol.exists() and res.status in ("optimal", "feasible")


def test_a_given_data_path_that_is_missing_and_a_row_at_the_end(written: dict[str, Any], tmp_path: Path) -> None:
    """P13 (the advice to pass --data given to a user who passed it), P14 (row n taken as a row of n rows)."""
    with pytest.raises(OlctcError) as exc:
        training_data(written, tmp_path / "gone.csv")
    assert str(exc.value) == (f"the training data {tmp_path / 'gone.csv'} does not exist: give the path of the file "
                              "it was made from")
    man = copy.deepcopy(written)
    man["data"]["rows"] = [0, 1, 2, 3, 4, 6]
    with pytest.raises(OlctcError) as exc:
        training_data(man, where="m.olctc.json")
    assert str(exc.value).startswith("m.olctc.json: field 'data.rows' names row 6, but the training data ")


def test_a_start_tree_is_recorded_as_the_start_and_refused_without_start_files(tmp_path: Path) -> None:
    """P05 (the warm start not said to come from the start tree), P02 (start=False with a start tree wrote the
    set without the start the caller gave)."""
    from olctc.tree import Tree

    comp = _tiny(tmp_path)
    tree = Tree.from_arrays(np.array([[1.0, 0.0, 0.0, 0.0]]), [0.0], schema=comp.dataset.schema, scaler=comp.scaler,
                            classes=comp.dataset.classes)
    write_compiled(comp, tmp_path / "m.mps", solvers="highs", start_tree=tree)
    assert json.loads((tmp_path / "m.olctc.json").read_text())["warm_start"]["from"] == "start tree"
    with pytest.raises(OlctcError) as exc:
        write_compiled(comp, tmp_path / "n.mps", start=False, start_tree=tree)
    assert str(exc.value) == "start_tree gives the MIP start files, which start=False leaves out: drop one of them"
    assert not (tmp_path / "n.mps").exists()
    with pytest.raises(OlctcError) as exc:  # P21
        write_compiled(comp, tmp_path / "n.mps", solvers="glpk", start_tree=tree)
    assert str(exc.value) == ("start_tree gives the MIP start files, and none of the solvers chosen (glpk) reads one: "
                              "add one that does")


def test_time_advice_is_for_a_time_limit_and_names_the_start_if_given() -> None:
    """P18 (advice for any limit: a node limit is no time limit), P19 (the start not named when one was given)."""
    from olctc.pipeline import time_advice

    assert time_advice("Node limit reached") == ""
    assert time_advice("Time limit reached") == (": its time limit came before it took up any solution, the MIP start "
                                                 "included; give it more time (`olctc fit` keeps its warm start's tree "
                                                 "when that happens)")
    assert time_advice("Time limit reached", start=False).startswith(": its time limit came before it found any "
                                                                     "solution;")


def test_tangents_given_as_an_array_are_quoted_on_one_line() -> None:
    """A defect this pass found: tangent points given as a numpy array (np.linspace) were quoted by their repr, which
    numpy wraps over several lines ("Got array([20., 20.25641026, ...,\\n       21.28205128, ..."); C and
    class_weight quote an array as a list. Now the tangents' messages do too, on one line."""
    message = refused(tangents=np.linspace(20.0, 30.0, 40))
    assert "\n" not in message and message.endswith("Got [20.0, 20.256410256410255, 20.51282051282051, "
                                                    "20.76923076923077, 21.025641025641026, 21.28205128205128, "
                                                    "21.53846153846154, 21.794871794871796, 22.05128205128205, "
                                                    "22.307692307692307, 22.564102564102... instead.")
    assert refused(tangents=np.array([np.nan, 0.0])) == ("The 'tangents' parameter must be numbers or +-inf, not NaN. "
                                                         "Got [nan, 0.0] instead.")
    assert make_spec(tangents=np.array([-np.inf, -1.9, 0.0, 1.9, np.inf])).tangent_set == "V1"


def test_compile_warns_of_each_column_for_what_it_is() -> None:
    """C39 (a constant column taken for constant data), C41 (a constant column said to vary in its last digits),
    C42 (the digits of its spread an offset column keeps, 8 at a ratio of 2e8, miscounted)."""
    X = np.random.default_rng(0).normal(size=(40, 3))
    X[:, 1] = 5.0
    X[:, 2] = X[:, 2] * 0.25 + 2e8
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        compile_problem(from_arrays(X, np.where(X[:, 0] > 0, 1, -1), name="cols"), make_spec(depth=1))
    said = [str(w.message) for w in got]
    assert len(said) == 1 and said[0].startswith("cols: feature 'x2' spans ")
    assert "which keep about 8 significant digits of its spread" in said[0]


def test_a_solver_program_that_finds_no_solution_names_its_file(tmp_path: Path) -> None:
    """P10: CBC's program on an infeasible model (no manifest: any MPS file) writes its file all the same; the error
    says that file holds no solution."""
    from olctc.errors import NoSolution

    (tmp_path / "inf.mps").write_text("NAME inf\nROWS\n N obj\n G r\nCOLUMNS\n    MARKER 'MARKER' 'INTORG'\n"
                                      "    x obj 1 r 1\n    MARKER 'MARKER' 'INTEND'\nRHS\n    rhs r 2\nBOUNDS\n"
                                      " UP bnd x 1\nENDATA\n")
    with pytest.raises(NoSolution) as exc:
        solve_compiled_file(tmp_path / "inf.mps", "cbc-cli", verbose=False)
    assert str(exc.value).startswith("cbc-cli found no solution (")
    assert str(exc.value).endswith(f"; its file {tmp_path / 'inf.cbc.sol'} holds none")
    assert (tmp_path / "inf.cbc.sol").exists()


def test_glpsols_worse_solution_is_blamed_on_its_taking_no_start() -> None:
    """P20: glpsol's worse solution was worded as another program's not given the start ("solve again with it"),
    which glpsol cannot do: it names glpsol and a solver that reads the start."""
    from olctc.pipeline import _warn_if_worse_than_start
    from test_pipeline_mutation_gaps2 import _result

    with pytest.warns(UserWarning) as got:
        _warn_if_worse_than_start(_result("feasible", 142.0, "glpk-cli"), 100.0, "glpk-cli", False)
    assert [str(w.message) for w in got] == [
        "glpk-cli's solution (objective 142) is worse than the warm start compile wrote (objective 100), which glpsol "
        "cannot take as a start: `olctc fit` keeps the better of the two; or solve with a solver that reads it"]
