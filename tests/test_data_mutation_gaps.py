"""Data reading, spec checks and parameter values a mutation pass (QA 2026-12-06) found unpinned: each test names the
wrong behaviour it rules out (those were mutants of the code, not defects seen in olctc)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from olctc.compile import compile_problem, read_manifest, write_manifest
from olctc.data import from_arrays, read_csv
from olctc.data.dataset import Column, Schema
from olctc.emit.params import cbc_cutoff, solver_settings
from olctc.errors import OlctcError
from olctc.spec import make_spec


def test_text_cells_with_spaces_encode_as_their_stripped_category(tmp_path):
    # a reader that kept ' blue' as a category (or stripped it in one place only) made all-zero one-hot columns
    p = tmp_path / "t.csv"
    p.write_text("x,colour,y\n1, blue,a\n2, red,b\n3, blue,b\n4, red,a\n")
    ds = read_csv(p, "y")
    assert ds.feature_names == ["x", "colour=blue", "colour=red"]
    assert ds.X[:, 1:].tolist() == [[1, 0], [0, 1], [1, 0], [0, 1]]


def test_a_blank_text_cell_is_an_empty_cell(tmp_path):
    # a cell of spaces is empty, not the category 'colour='
    p = tmp_path / "t.csv"
    p.write_text("colour,y\nred,a\n ,b\nblue,a\nred,b\n")
    with pytest.raises(OlctcError, match=r"column 'colour' line 3: empty cell"):
        read_csv(p, "y")


def test_columns_read_whole_keep_their_order(tmp_path):
    # a cell the chunked reader takes for text but str.strip() makes a number (a leading \x1c, which Python strips
    # as whitespace) sends the file down the whole-file path: its columns keep their order there too
    p = tmp_path / "t.csv"
    p.write_text("a,b,y\n\x1c1.5,10,x\n2.5,20,y\n3.5,30,x\n")
    assert read_csv(p, "y").X.tolist() == [[1.5, 10], [2.5, 20], [3.5, 30]]


def test_array_cells_are_named_by_their_0_based_row():
    # arrays' rows are named as numpy indexes them (row 1 is the second), not one off
    with pytest.raises(OlctcError, match=r"column 'a' row 1: expected a number, got 'x'"):
        Schema((Column("a", "numeric"),)).encode({"a": [1.0, "x", 2.0]}, "X")


@pytest.mark.parametrize("w, msg", [([1, np.nan, 1, np.inf], "row 1: expected a finite number >= 0, got nan"),
                                    ([1, -1, 1, -2], "row 1: expected a weight >= 0, got -1.0")])
def test_the_first_bad_weight_is_named(w, msg):
    # the message names the first bad weight, not the last
    with pytest.raises(OlctcError, match=re.escape(msg)):
        from_arrays(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], sample_weight=w)


@pytest.mark.parametrize("rows", [[0, 0, 1, 3, 3, 5], [5, 4, 3, 2, 1, 0]])
def test_a_subset_of_n_rows_records_them(rows):
    # a subset as long as the data (a bootstrap sample, a permutation) is not the whole data: its rows are recorded
    ds = from_arrays(np.random.default_rng(0).normal(size=(6, 2)), [0, 1] * 3)
    assert ds.subset(np.array(rows)).rows.tolist() == rows


def test_big_m_over_epsilon_limit_is_1e8():
    # big-M / epsilon above 1e8 is refused (5000 / 1e-5 = 5e8), 1e8 itself accepted
    with pytest.raises(OlctcError, match="big_m"):
        make_spec(big_m=5000, epsilon=1e-5)
    assert make_spec(big_m=1000, epsilon=1e-5).big_m == 1000


def test_tangent_limit_boundary():
    # a tangent point of 13.8 is the largest accepted, 13.81 refused
    assert 13.8 in make_spec(tangents="-inf,0,13.8,inf").tangents
    with pytest.raises(OlctcError, match="<= 13.8"):
        make_spec(tangents="-inf,0,13.81,inf")


def test_manifest_records_the_effective_budget():
    # olct-univariate's budget is 1 in the manifest, not null
    assert make_spec("olct-univariate").to_json()["budget"] == 1


def test_balanced_on_one_class_is_no_weighting():
    # 'balanced' on labels of one class weighs nothing (it divided by the missing class's count)
    assert make_spec(class_weight="balanced").class_weights(np.array([1, 1, 1])) is None
    assert make_spec(class_weight="balanced").class_weights(np.array([-1, -1])) is None


def test_scip_workaround_values():
    # test_solver_bugs reads these back from the settings: a changed value would pass there
    s = solver_settings("scip")
    assert s["limits/absgap"] == 1e-6 and s["misc/usesymmetry"] == 0


def test_cbc_cutoff_slack_is_at_least_absolute_1e_6():
    # the slack is 1e-6 relative to max(1, |objective|): an objective of 0 still gets 1e-6
    assert cbc_cutoff(0.0) == 1e-6 and cbc_cutoff(0.25) == 0.25 + 1e-6


def test_a_column_of_spread_1e_302_compiles():
    # a spread of 1.7e-302 is above the smallest scale (1e-305): standardised, not refused
    X = np.column_stack([np.arange(1, 7.0) * 1e-302, np.arange(6.0)])
    assert compile_problem(from_arrays(X, [0, 1] * 3), make_spec(depth=1)).scaler.scale[0] > 0


def test_a_manifest_with_its_keys_reordered_reads(tmp_path):
    # the manifest's checksum is over its content, not its key order: a manifest re-sorted by a tool (jq -S) reads
    c = compile_problem(from_arrays(np.random.default_rng(0).normal(size=(8, 2)), [0, 1] * 4), make_spec(depth=1))
    p = tmp_path / "m.olctc.json"
    write_manifest(c.manifest, p)
    p.write_text(json.dumps(json.loads(p.read_text()), sort_keys=True, indent=2))
    read_manifest(p, check_model=False)
