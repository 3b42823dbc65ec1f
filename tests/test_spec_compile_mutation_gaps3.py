"""Gaps found by a third mutation pass over olctc/spec.py and olctc/compile.py (QA 2026-12-07, qa182): refusals of
NaN, 0 and numpy values, the spec's JSON round trip, the tangent sets, the size and row checks, the warnings and the
manifest checks the first two passes left unpinned.

Each test names the mutants (mNN) it rules out; those were changes to the code, not defects seen in olctc. Models
are compiled for real and, where the weights matter, solved in process by HiGHS.
"""
from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from olctc.compile import compile_problem, manifest_path, read_manifest
from olctc.data import from_arrays
from olctc.errors import OlctcError
from olctc.objective import tree_objective
from olctc.solve import solve_milp
from olctc.spec import TANGENT_SETS, TreeSpec, form_name, make_spec, parse_C

from test_decode_edges import DELETE, _set
from test_spec_compile_mutation_gaps import refused, tiny_data
from test_spec_compile_pipeline_mutation_gaps2 import read_edited, written  # noqa: F401  (a fixture)

CW_EXPECTED = "None, 'balanced' or two weights (class -1, class +1), each finite and > 0"


def compile_warnings(X: np.ndarray, y: Any, standardise: bool = True, **spec: Any) -> list[str]:
    """Every warning compile gives on data (X, y) named 'd', as text."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        compile_problem(from_arrays(X, y, name="d"), make_spec(**{"depth": 1, **spec}), standardise=standardise)
    return [str(w.message) for w in got]


# ---------------------------------------------------------------- spec: each refusal whole


@pytest.mark.parametrize("kwargs, message", [
    # m22, m23, m24, m25: NaN fails every comparison, so it must fail the check written as not (x > 0)
    (dict(big_m=math.nan), "The 'big_m' parameter must be a finite number > 0. Got nan instead."),
    (dict(big_m=0), "The 'big_m' parameter must be a finite number > 0. Got 0.0 instead."),
    (dict(epsilon=math.nan), "The 'epsilon' parameter must be a finite number > 0. Got nan instead."),
    (dict(epsilon=0.0), "The 'epsilon' parameter must be a finite number > 0. Got 0.0 instead."),
    # infinity is not a routing gap a solver can read: say "finite", as big_m's check does
    (dict(epsilon=math.inf), "The 'epsilon' parameter must be a finite number > 0. Got inf instead."),
    # m26
    (dict(preset="oct-h", alpha=math.nan), "The 'alpha' parameter must be a finite number >= 0. Got nan instead."),
    # m07: 1.5e9 is within 1e8 * epsilon for epsilon 100, and above the 1e9 limit
    (dict(big_m=1.5e9, epsilon=100.0), "The 'big_m' parameter must be <= 1e9: solvers do not read larger coefficients "
                                       "reliably (HiGHS refuses a file with a value >= 1e15). Got 1500000000.0 "
                                       "instead."),
    # m32: an alpha below the default is a request too
    (dict(alpha=0.5), "The 'alpha' parameter must be unset (or 1.0, the default): preset 'olct' does not use it (it "
                      "applies to margot-sfs, oct-h). Got 0.5 instead."),
    # m33, m34, m35: an item of a list, a dict (iterated, {1.0: 2.0} was C = 1), a 0-d array
    (dict(C=[1, "a"]), "The 'C' parameter must be a list of numbers. Got [1, 'a'] instead."),
    (dict(C={1.0: 2.0}), "The 'C' parameter must be a positive number or one per layer. Got {1.0: 2.0} instead."),
    (dict(tangents=np.array(0.0)), "The 'tangents' parameter must be V0, V1, V2, V3 or a list of numbers. Got "
                                   "array(0.) instead."),
    # m39, m40, m41: C of 0 and NaN, quoted per layer as the model would take them
    (dict(C=0), "The 'C' parameter must be finite and > 0 for every layer. Got [0.0, 0.0] instead."),
    (dict(C=math.nan), "The 'C' parameter must be finite and > 0 for every layer. Got [nan, nan] instead."),
    (dict(C=-1), "The 'C' parameter must be finite and > 0 for every layer. Got [-1.0, -1.0] instead."),
    # m43: a list is no preset (it failed as "unhashable type")
    (dict(preset=["olct"]), "The 'preset' parameter must be one of olct, olct-univariate, margot, margot-sfs, "
                            "margot-hfs, oct-h. Got ['olct'] instead."),
    # m17: +inf alone, named for what it is rather than as 'no finite point'
    (dict(tangents=[math.inf]), "The 'tangents' parameter must be a list with at least one point other than +inf. Got "
                                "[inf] instead."),
    # m36, m44, m45, m46: a pair as a list, three weights, a text weight, a weight of 0
    (dict(class_weight=(1.0, -1.0)), f"The 'class_weight' parameter must be {CW_EXPECTED}. Got [1.0, -1.0] instead."),
    (dict(class_weight=[1, 2, 3]), f"The 'class_weight' parameter must be {CW_EXPECTED}. Got [1, 2, 3] instead."),
    (dict(class_weight=["a", 1]), f"The 'class_weight' parameter must be {CW_EXPECTED}. Got ['a', 1] instead."),
    (dict(class_weight=[0, 1]), f"The 'class_weight' parameter must be {CW_EXPECTED}. Got [0, 1] instead."),
    # m47, m48: a generator is read once and quoted as the list it gave
    (dict(C=(v for v in [1, "a"])), "The 'C' parameter must be a list of numbers. Got [1, 'a'] instead."),
    (dict(tangents=(v for v in [0, "a"])), "The 'tangents' parameter must be a list of numbers. Got [0, 'a'] instead."),
])
def test_make_spec_refuses_with_the_whole_message(kwargs: dict[str, Any], message: str) -> None:
    assert refused(**kwargs) == message


def test_parse_C_checks_depth_and_names_its_own_parameter() -> None:
    """m37 (parse_C's depth check dropped: depth 0 gave C = ()), m38 (bench's fixed_C refused as 'C')."""
    with pytest.raises(OlctcError) as exc:
        parse_C(1.0, 0)
    assert str(exc.value) == "The 'depth' parameter must be an integer >= 1. Got 0 instead."
    with pytest.raises(OlctcError) as exc:
        parse_C("x", 2, name="fixed_C")
    assert str(exc.value) == ("The 'fixed_C' parameter must be a positive number or one per layer separated by "
                              "commas. Got 'x' instead.")


def test_knobs_at_the_edge_of_their_range_are_taken() -> None:
    """m27 (OCT-H's alpha of 0 refused: no L0 penalty is a model), m42 (depth 12, the largest, refused), m18 (a
    tangent point below -13.8 refused: its slope is near 1, only points above the limit are flat)."""
    assert make_spec("oct-h", alpha=0).alpha == 0.0
    assert make_spec(depth=12).depth == 12
    assert make_spec(tangents=[-20, 0, math.inf]).tangents == (-20.0, 0.0, math.inf)


# ---------------------------------------------------------------- spec: tangents, presets, the JSON round trip


def test_tangent_sets_are_sorted_and_v3_holds_the_papers_points() -> None:
    """m01 (a V3 point changed), m19 (points kept in the order given: the rows and the manifest then followed it),
    m08 (TreeSpec built with V1's points and the default name refused: the points name the set)."""
    assert make_spec(tangents="V3").tangents == (-math.inf, -5.16, -3.55, -2.63, -1.9, -1.37, -0.89, -0.44, 0.0,
                                                 0.44, 0.89, 1.37, 1.9, 2.63, 3.55, 5.16, math.inf)
    assert make_spec(tangents="1.9,0,-inf").tangents == (-math.inf, 0.0, 1.9)
    assert TreeSpec(tangents=TANGENT_SETS["V1"]).tangent_set == "V1"


def test_the_spec_round_trips_through_json_with_every_knob() -> None:
    """m11, m12 (score_variables, class_weight left out of to_json), m14, m15 (left out of from_json), m16 (a custom
    tangent point written with 6 digits): the spec read back is the spec written."""
    s = make_spec(tangents=[-math.inf, 0.123456789, math.inf], class_weight=(2.0, 3.0), score_variables=True)
    d = json.loads(json.dumps(s.to_json()))
    assert (d["score_variables"], d["class_weight"], d["tangents"]) == (True, [2.0, 3.0], ["-inf", "0.123456789",
                                                                                          "inf"])
    back = TreeSpec.from_json(d)
    assert back == s and (back.score_variables, back.class_weight) == (True, (2.0, 3.0))
    assert TreeSpec.from_json(make_spec(class_weight="balanced").to_json()).class_weight == "balanced"


@pytest.mark.parametrize("preset", ["olct", "olct-univariate", "margot", "margot-sfs", "margot-hfs", "oct-h"])
def test_every_presets_default_spec_round_trips(preset: str) -> None:
    """A budget preset's default budget is the spec's budget: to_json writes it, so the spec read back had budget 1
    where the one written had None, and the two specs differed."""
    s = make_spec(preset)
    assert TreeSpec.from_json(json.loads(json.dumps(s.to_json()))) == s
    assert s.budget == s.effective_budget


def test_numpy_knobs_are_stored_as_python_values() -> None:
    """m28, m29, m30, m31: a depth, budget or min_leaf from np.arange and a numpy boolean kept as numpy values, and
    the manifest's json.dumps failed on them ('Object of type int64 is not JSON serializable')."""
    s = make_spec("margot-hfs", depth=np.int64(2), budget=np.int64(2), min_leaf=np.int64(2),
                  score_variables=np.bool_(True))
    assert [type(v) for v in (s.depth, s.budget, s.min_leaf, s.score_variables)] == [int, int, int, bool]
    assert json.loads(json.dumps(s.to_json()))["budget"] == 2


def test_the_form_and_the_describe_names() -> None:
    """m20 (the two forms' names swapped), m10 (balanced described as 'class weights')."""
    assert (form_name(True), form_name(False)) == ("score-variable form", "the paper's form")
    assert make_spec("margot", class_weight="balanced").describe() == "margot depth 2 (C 1,1, class weight balanced)"


# ---------------------------------------------------------------- compile: weights in the model, solved


def test_class_and_sample_weights_multiply_in_the_model_solved() -> None:
    """m13: with class weights, point_weights dropped the sample weights. The model compiled with both, solved by
    HiGHS, has the objective of its tree under the product of the two as plain point weights."""
    w = np.array([1.0, 3.0, 1.0, 2.0, 1.0, 1.0, 4.0, 1.0])
    spec = make_spec("olct", 1, class_weight=(2.0, 3.0))
    c = compile_problem(tiny_data(list(w)), spec)
    y = c.dataset.y
    np.testing.assert_array_equal(spec.point_weights(y, w), np.where(y > 0, 3.0, 2.0) * w)
    res = solve_milp(c.milp, "highs", threads=1, time_limit=30, verbose=False)
    assert res.status == "optimal"
    W, b = c.milp.values(res.x, "w"), c.milp.values(res.x, "b")
    plain = tree_objective(W, b, c.X, y, make_spec("olct", 1), threshold=spec.epsilon / 2,
                           sample_weight=np.where(y > 0, 3.0, 2.0) * w)
    assert res.objective == pytest.approx(plain.total, rel=1e-7)


def test_a_min_leaf_at_depth_1_adds_nothing() -> None:
    """m09: at depth 1 the one node holds every point, so min_leaf needs no column or row: the model is the model
    without it (the estimate agreed with the mutant's, so only the model shows it)."""
    one = compile_problem(tiny_data(), make_spec(depth=1, min_leaf=2)).milp
    none = compile_problem(tiny_data(), make_spec(depth=1)).milp
    assert (one.n_rows, one.n_cols, one.nnz) == (none.n_rows, none.n_cols, none.nnz)


def test_standardising_weighs_each_point_by_its_weight() -> None:
    """m56: the scaler fitted without the sample weights (a point of weight 3 counts three times in the mean)."""
    w = [1.0, 3.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0]
    ds = tiny_data(w)
    mean = compile_problem(ds, make_spec(depth=1)).manifest["scaler"]["mean"]
    np.testing.assert_allclose(mean, np.average(ds.X, axis=0, weights=w), rtol=1e-12)


def test_a_non_spec_is_refused_as_the_spec_parameter() -> None:
    """m21: a dict passed for the spec failed deep inside the build."""
    with pytest.raises(OlctcError) as exc:
        compile_problem(tiny_data(), {"preset": "olct"})  # type: ignore[arg-type]
    assert str(exc.value) == "The 'spec' parameter must be a TreeSpec (olctc.spec.make_spec). Got 'dict' instead."


# ---------------------------------------------------------------- compile: size, rows, names


ROWS_PREFIX = "The 'rows' parameter must be 8 integer row numbers >= 0, the dataset's rows in the source data. "


@pytest.mark.parametrize("rows, got", [
    (np.arange(8.0), "an array of shape (8,) and dtype float64"),  # m52
    (np.arange(8).reshape(2, 4), "an array of shape (2, 4) and dtype int64"),  # m53
    (list(range(7)), "7 row numbers"),  # m54
])
def test_rows_refused_say_what_came(rows: Any, got: str) -> None:
    with pytest.raises(OlctcError) as exc:
        compile_problem(tiny_data(), make_spec(depth=1), rows=rows)
    assert str(exc.value) == f"{ROWS_PREFIX}Got {got} instead."


def test_row_0_is_a_row() -> None:
    """m55: the source's first row (0) refused as negative."""
    assert compile_problem(tiny_data(), make_spec(depth=1), rows=list(range(8))).manifest["data"]["rows"] == \
        list(range(8))


def test_model_names_and_file_names() -> None:
    """m62 (a non-ASCII letter kept in the MPS name), m63 (an empty name: IndexError), m64 (NAME.lp's manifest named
    NAME.lp.olctc.json)."""
    assert compile_problem(tiny_data(), make_spec(depth=1), name="modèle").milp.name == "mod_le"
    assert compile_problem(tiny_data(), make_spec(depth=1), name="").milp.name == "m_"
    assert manifest_path("a/m.lp") == Path("a/m.olctc.json")


def test_hinge_rows_are_named_hinge() -> None:
    """m03: the hinge loss's rows named 'loss' like the logistic's tangent rows (the model files and the block map
    say which loss a row is)."""
    c = compile_problem(tiny_data(), make_spec("margot", 1))
    assert [b["name"] for b in c.manifest["blocks"]["rows"]] == ["assign", "hinge"]


# ---------------------------------------------------------------- compile: warnings


def test_a_small_big_m_warning_names_the_logistic_loss_of_a_score_of_0() -> None:
    """m02: the logistic loss at 0 is log 2 (0.693), not the hinge's 1."""
    got = compile_warnings(np.random.default_rng(0).normal(size=(8, 2)), [0, 1] * 4, depth=2, big_m=0.5)
    assert got == ["big_m 0.5 is below the logistic loss of a score of 0 (0.693): the loss rows of a point at the "
                   "nodes it does not reach are relaxed by big-M only, so they bind and the model charges its loss "
                   "there too (the paper's big-M is 100)"]


def test_the_offset_warning_of_unstandardised_data_says_so() -> None:
    """m61: a column far from 0 for its spread, not standardised, was warned of with the standardised text (the
    tree's exports folding the mean into b), which says nothing of the split the solver itself makes."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    X[:, 0] = X[:, 0] * 0.25 + 2e8
    assert compile_warnings(X, np.where(X[:, 1] > 0, 1, -1), standardise=False) == [
        "d: feature 'x0', not standardised, spans 199999999.4187423 to 200000000.45550284: a split on it keeps about 8 "
        "significant digits of its spread and may route points differently in the solver and the tree; standardise "
        "it or subtract its offset"]


def test_a_column_of_tiny_spread_is_refused() -> None:
    """m57: a column spreading by 1e-310 went through to the solve; the tree's weights (w / std) would overflow."""
    X = np.random.default_rng(0).normal(size=(8, 2))
    X[:, 0] *= 1e-310
    with pytest.raises(OlctcError) as exc:
        compile_problem(from_arrays(X, [0, 1] * 4, name="t"), make_spec(depth=1))
    assert str(exc.value) == ("t: feature 'x0' spreads by 1.05e-310 only (its standard deviation; at least 1e-305 is "
                              "needed): the tree's weights on raw values (w / std) would overflow; rescale the column")


# ---------------------------------------------------------------- read_manifest


@pytest.mark.parametrize("edit, message", [
    (_set("data.p", 0), "field 'data.p': expected an integer >= 1, got 0"),  # m67
    (_set("spec.alpha", DELETE), "field 'spec.alpha': expected a value, got nothing (missing)"),  # m68
    (_set("spec.tangents", [0.0, "inf"]), "field 'spec.tangents[0]': expected a string ('-inf', '0.0', 'inf' ...), "
                                          "got 0.0"),  # m69
    (_set("data.rows", [True, 1, 2, 3, 4, 5]), "field 'data.rows[0]': expected an integer >= 0, got true"),  # m70
    (_set("classes", [True, 0]), "field 'classes[0]': expected a class label (a string or a finite number), got "
                                 "true"),  # m72
    (_set("data.weight_column", 3), "field 'data.weight_column': expected a non-empty string, got 3"),  # m73
])
def test_read_manifest_names_each_damaged_field(written: dict[str, Any], tmp_path: Path, edit: Any,  # noqa: F811
                                                message: str) -> None:
    assert read_edited(tmp_path, written, edit) == f"damaged manifest: {message}; compile again"


def test_a_manifest_whose_model_file_is_gone_is_refused(written: dict[str, Any], tmp_path: Path) -> None:  # noqa: F811
    """m71: a missing model file read as if there (solve then had no model to run)."""
    (tmp_path / "m.mps").unlink()
    with pytest.raises(OlctcError) as exc:
        read_manifest(tmp_path / "m.olctc.json")
    assert str(exc.value) == f"{tmp_path / 'm.olctc.json'}: its model file {tmp_path / 'm.mps'} is missing"
