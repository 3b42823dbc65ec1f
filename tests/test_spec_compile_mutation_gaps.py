"""Tree spec checks, compile and a grid's scoring: behaviour a mutation pass (QA 2026-12-06, olctc/spec.py,
olctc/compile.py, olctc/cluster/scoring.py) found unpinned. Each test names the mutant it rules out; those were
changes to the code, not defects seen in olctc. The refusals are pinned whole: one line naming the parameter,
what it must be and what came."""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.spec import make_spec


def refused(**kwargs: Any) -> str:
    """make_spec's error message for ``kwargs``."""
    with pytest.raises(OlctcError) as exc:
        make_spec(**kwargs)
    return str(exc.value)


# ---------------------------------------------------------------- routing constants at their limits


def test_routing_constants_at_their_limits_are_accepted() -> None:
    """A limit checked with >= for > (or <= for <): big-M of exactly 1e9, epsilon of exactly 1e-8 are allowed."""
    assert make_spec(big_m=1e9, epsilon=10.0).big_m == 1e9
    assert make_spec(big_m=1.0, epsilon=1e-8).epsilon == 1e-8


def test_epsilon_equal_to_big_m_is_refused() -> None:
    """``epsilon <= big_m`` for ``<``: a point right of a split needs a score of at least epsilon, which big-M must
    exceed to switch the row off."""
    assert refused(big_m=1.0, epsilon=1.0) == ("The 'epsilon' parameter must be smaller than big-M (1.0). "
                                               "Got 1.0 instead.")


def test_an_infinite_big_m_is_called_not_finite() -> None:
    """Without its isinf check an infinite big-M was refused as 'must be <= 1e9' (the message of a large finite
    one): the message says what is wrong with inf."""
    assert refused(big_m=math.inf) == "The 'big_m' parameter must be a finite number > 0. Got inf instead."


def test_an_infinite_C_is_called_not_finite() -> None:
    """Without its isinf check C = inf fell to the 1e20 cost check ('below 1e20 ...'): it is refused as not finite."""
    assert refused(C=math.inf) == "The 'C' parameter must be finite and > 0 for every layer. Got [inf, inf] instead."


# ---------------------------------------------------------------- tangents, depth, the spec as recorded


def test_tangent_set_names_read_in_any_case_and_repeated_points_once() -> None:
    """A set name compared case-sensitively ('v1' refused as no number), or points not made distinct (a repeated
    point wrote its tangent rows twice and named the set 'custom'): 'v1' is V1, '0,0' is one point."""
    assert make_spec(tangents="v1").tangent_set == "V1"
    s = make_spec(tangents="-inf,0,0,inf")
    assert (s.tangents, s.tangent_set) == ((-math.inf, 0.0, math.inf), "V0")


def test_depth_message_writes_2_to_the_64_as_a_number_and_2_to_the_65_as_a_formula() -> None:
    """``_pow2`` switching to the formula at k < 64 for k <= 64: up to 64 bits the counts are numbers."""
    assert refused(depth=65) == ("The 'depth' parameter must be <= 12 (depth 65 has 2^65 - 1 branch nodes and "
                                 "18446744073709551616 routing variables per point). Got 65 instead.")


def test_spec_records_and_describes_the_effective_budget_and_min_leaf_one() -> None:
    """describe() with the budget given (None) for the preset's default, and to_json() dropping a min_leaf of 1:
    margot-sfs without --budget describes budget 1, and min_leaf 1 survives the manifest's round trip."""
    from olctc.spec import TreeSpec

    assert make_spec("margot-sfs").describe() == "margot-sfs depth 2 (C 1,1, budget 1, alpha 1)"
    s = make_spec(min_leaf=1)
    assert s.to_json()["min_leaf"] == 1 and TreeSpec.from_json(s.to_json()) == s


# ---------------------------------------------------------------- compile: sizes, names, files, warnings


def tiny_data(weights: list[float] | None = None) -> Any:
    """Eight points of two random features, classes alternating (``weights``: their sample weights)."""
    from olctc.data import from_arrays

    return from_arrays(np.random.default_rng(0).normal(size=(8, 2)), [0, 1] * 4, sample_weight=weights)


def test_model_name_is_at_most_32_characters_and_starts_with_a_letter() -> None:
    """The MPS NAME cut at 31, or a name starting with a digit kept: '1xxx...' becomes 'm_1xxx...', 32 long."""
    from olctc.compile import compile_problem

    c = compile_problem(tiny_data(), make_spec(depth=1), name="1" + "x" * 40)
    assert c.milp.name == "m_1" + "x" * 29
    assert compile_problem(tiny_data(), make_spec(depth=1), name="x" * 40).milp.name == "x" * 32


def test_an_upper_case_model_suffix_passed_as_the_manifest_is_refused_as_a_model_file() -> None:
    """read_manifest comparing the suffix case-sensitively read NAME.MPS as JSON ('not a valid manifest'): it is
    named as the model file it is, with the manifest to pass instead."""
    from olctc.compile import read_manifest

    with pytest.raises(OlctcError) as exc:
        read_manifest("x/m.MPS")
    assert str(exc.value) == "x/m.MPS is a model file: pass its manifest x/m.olctc.json, which compile wrote beside it"


def test_small_big_m_is_warned_of_only_below_the_zero_score_loss_and_below_the_root(recwarn: Any) -> None:
    """The small big-M warning at depth 1 (no layer below the root is relaxed by big-M) or at a big-M equal to the
    loss of a score of 0 (the hinge's 1: the rows are then switched off): neither warns; 0.5 at depth 2 does."""
    from olctc.compile import compile_problem

    compile_problem(tiny_data(), make_spec("margot", 2, big_m=1.0))
    compile_problem(tiny_data(), make_spec("margot", 1, big_m=0.5))
    assert not [w for w in recwarn if "big_m" in str(w.message)]
    with pytest.warns(UserWarning, match=r"^big_m 0.5 is below the hinge loss of a score of 0 \(1\)"):
        compile_problem(tiny_data(), make_spec("margot", 2, big_m=0.5))


# ---------------------------------------------------------------- a grid's scoring: status, foreign tasks, nan


def test_solve_log_status_takes_the_last_line_of_the_solver_of_the_file(tmp_path: Any) -> None:
    """The first status line taken for the last (a task solved twice: a stopped run, then a finished one): the
    last line of the file's solver says, and a status other than optimal or feasible is 'unknown'."""
    from olctc.cluster.scoring import solve_log_status

    log = tmp_path / "solve.log"
    log.write_text("status feasible (gurobi: TIME_LIMIT), objective 3.5, time 10 s\n"
                   "status optimal (gurobi: OPTIMAL), objective 3.25, time 12 s\n"
                   "status feasible (highs: Time limit reached), objective 9, time 1 s\n")
    assert solve_log_status(log, "gurobi") == "optimal"
    assert solve_log_status(log, "copt") == "unknown"
    log.write_text("status optimal (gurobi: OPTIMAL), objective 3.25\n"
                   "status infeasible (gurobi: INFEASIBLE), objective -\n")
    assert solve_log_status(log, "gurobi") == "unknown"
    assert solve_log_status(tmp_path / "missing.log", "gurobi") == "unknown"


def test_a_task_compiled_with_another_spec_or_data_is_foreign_and_weight_0_rows_are_not() -> None:
    """_foreign_task's checks beyond C and rows (test_cluster pins those): a model of another epsilon or of other
    data (sha256) is another grid's, while a fold's training rows of weight 0, which compile leaves out, are no
    difference. Mutants dropped the spec comparison and the data hash comparison."""
    from olctc.cluster.scoring import _foreign_task
    from olctc.compile import compile_problem

    weights = [1, 0, 2, 1, 1, 1, 0, 3]
    ds = tiny_data([float(w) for w in weights])
    spec = make_spec(depth=1, C=1.0)
    man = compile_problem(ds, spec).manifest
    info = {"spec": {k: v for k, v in spec.to_json().items() if k != "C"},
            "data": {"sha256": man["data"]["sha256"]}, "folds": [{"train": list(range(8))}]}
    task = {"task": 3, "fold": 0, "C": [1.0]}
    w = np.array(weights, dtype=float)
    assert _foreign_task(man, task, info, w) is None
    assert _foreign_task(man, task, info) == "its model was compiled on other training rows than the grid's fold 0"
    other = {**info, "spec": {**info["spec"], "epsilon": 1e-3}}
    assert _foreign_task(man, task, other, w) == "its model was compiled with epsilon 1e-05, the grid's with 0.001"
    other = {**info, "data": {"sha256": "0" * 64}}
    assert _foreign_task(man, task, other, w) == "its model was compiled from other data (sha256) than the grid's"


# ---------------------------------------------------------------- compile: weight-0 rows, offset warnings (QA pass 2)


def test_compiled_dataset_keeps_source_rows_when_weight_0_points_are_left_out() -> None:
    """Compile leaving out weight-0 points of a dataset given explicit source ``rows``: the Compiled dataset's rows
    are the source rows kept (as the manifest's), not positions in the dataset given. Mutant C16 dropped
    ``dataset.rows = rows`` (the dataset then said rows 0, 2, ... where the manifest said 10, 12, ...)."""
    from olctc.compile import compile_problem

    ds = tiny_data([1.0, 0.0, 2.0, 1.0, 1.0, 1.0, 0.0, 3.0])
    c = compile_problem(ds, make_spec(depth=1), rows=list(range(10, 18)))
    assert c.manifest["data"]["rows"] == [10, 12, 13, 14, 15, 17]
    assert c.dataset.rows.tolist() == [10, 12, 13, 14, 15, 17]


def offset_warnings(offset: float, spread: float) -> list[str]:
    """The starts of compile's warnings about feature x0, normal values times ``spread`` plus ``offset``."""
    import warnings

    from olctc.compile import compile_problem
    from olctc.data import from_arrays

    X = np.random.default_rng(0).normal(size=(40, 2))
    X[:, 0] = X[:, 0] * spread + offset
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        compile_problem(from_arrays(X, np.where(X[:, 1] > 0, 1, -1), name="off"), make_spec(depth=1))
    return [str(w.message)[:40] for w in got if "'x0'" in str(w.message)]


def test_offset_warning_starts_at_a_ratio_of_1e8_and_a_column_constant_to_rounding_warns_once() -> None:
    """A column's magnitude over its spread of about 2e8 is warned of (it keeps ~8 digits of its spread), 2e7 is
    not; a column near 1e15 constant to rounding gets that warning only, not the offset one too. Mutants: the
    ratio 1e8 made 1e9 (C22), the ``warn &= ~zero`` mask dropped (C23b: two warnings for one column)."""
    assert offset_warnings(2e7, 0.25) == []
    assert offset_warnings(2e8, 0.25) == ["off: feature 'x0' spans 199999999.418742"]
    assert offset_warnings(1e15, 1.0) == ["off: feature 'x0' varies only in its las"]


def test_a_manifest_whose_column_blocks_fall_short_of_the_model_is_refused(tmp_path: Any) -> None:
    """A manifest (without checksum, as before 2026-11-26) missing its last column block: the blocks must cover
    every column of the model, or decode would read a solution through a wrong map. Mutant C41 dropped that."""
    import json

    from olctc.compile import compile_problem, read_manifest

    man = json.loads(json.dumps(compile_problem(tiny_data(), make_spec(depth=1)).manifest))
    man["blocks"]["columns"].pop()
    path = tmp_path / "m.olctc.json"
    path.write_text(json.dumps(man))
    with pytest.raises(OlctcError) as exc:
        read_manifest(path, check_model=False)
    assert str(exc.value) == (f"{path}: damaged manifest: field 'blocks.columns': expected blocks covering the 23 "
                              "columns of the model, got blocks covering 15; compile again")


def test_a_device_passed_as_the_manifest_is_refused_as_one() -> None:
    """A pipe or device (here /dev/null, read only) can be read once, and decode reads the manifest twice: it is
    refused as what it is. Mutant C44 dropped the check (/dev/null then read as an empty, invalid JSON manifest)."""
    from olctc.compile import read_manifest

    with pytest.raises(OlctcError) as exc:
        read_manifest("/dev/null")
    assert str(exc.value) == ("/dev/null: a pipe or device, not a manifest file: pass NAME.olctc.json itself (the "
                              "model and MIP start files are found beside it)")


def test_standardise_must_be_a_bool_and_name_a_string() -> None:
    """compile_problem(standardise="no") standardised (a non-empty string is true), and name=3 failed with a
    TypeError inside: both are refused as parameters. Mutants C53 and C54 dropped the checks."""
    from olctc.compile import compile_problem

    with pytest.raises(OlctcError) as exc:
        compile_problem(tiny_data(), make_spec(depth=1), standardise="no")  # type: ignore[arg-type]
    assert str(exc.value) == "The 'standardise' parameter must be True or False. Got 'no' instead."
    with pytest.raises(OlctcError) as exc:
        compile_problem(tiny_data(), make_spec(depth=1), name=3)  # type: ignore[arg-type]
    assert str(exc.value) == "The 'name' parameter must be a string. Got 3 instead."
