"""Decode behaviour a fourth mutation pass (QA 2026-12-07, qa185) found unpinned: the report's lines for files with
no status word and for leaks below the solver's figure, the big-M notes' figures, what solution_vector and
decode_arrays say of another model's or a damaged file, the empty-node listing, what finish records in a tree's
meta, and decode_file's refusals and notes.

Reports are built directly where the property is arithmetic on their fields (test_decode_mutation_gaps2's helper);
values are solved by HiGHS in process (test_core_mutation_gaps's helpers); files are compiled and solved for real.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from olctc.decode import Decoded
from test_decode_mutation_gaps2 import OBJ, _report

# ---------------------------------------------------------------- the report's lines


def test_a_file_with_no_status_is_said_as_such_with_the_precision_to_three_digits() -> None:
    """A Gurobi .sol file carries no status: the first line says so and where the status is told, rather than
    'gurobi says optimal (solution (...))'; the precision line rounds its allowance to 3 significant digits."""
    from olctc.read.gurobi import NO_STATUS

    lines = _report(OBJ, raw_status=NO_STATUS, solver="gurobi", digits=6, rounding_slack=1.23456e-3).lines()
    assert lines[0] == ("solution: a Gurobi .sol file, which carries no status (Gurobi's log says whether it is "
                        f"optimal), objective {OBJ}")
    assert lines[3] == ("precision: the file prints values with 6 significant digits; that rounding alone may move "
                        "the objectives above by up to 0.00123")


def test_a_leak_whose_tree_is_below_the_solvers_figure_says_the_objectives_differ() -> None:
    """Points routed against z with a true objective far below the solver's: the warning must say the two
    objectives differ, not 'the tree's true objective equals the solver's' (only a tree above it was compared)."""
    warning = next(s for s in _report(20.0, disagreements=[(0, 3, 4)]).lines() if s.startswith("WARNING"))
    assert warning.startswith("WARNING: the solver's objective is not the tree's true objective: it used its "
                              "feasibility/integrality tolerances to route points for free.")


def test_a_stated_objective_below_its_values_is_a_leak_too() -> None:
    """A stated objective its values do not give is a leak in either direction: one a whole unit below the values'
    (the solver under-reporting) is no tree's objective either, even when the tree's equals the stated one."""
    rep = _report(OBJ, values_objective=OBJ + 1.0)
    assert rep.tolerance_exploited
    assert any(s.startswith("WARNING: the tree's true objective equals the solver's, but not the one its values "
                            f"give ({OBJ + 1.0:.10g})") for s in rep.lines())


def test_a_small_optimum_is_contradicted_only_beyond_an_absolute_gap_floor() -> None:
    """The MIP gap allowance is taken of max(1, |objective|), as solvers' absolute gaps floor it: an optimum of 0.01
    whose tree scores 0.0095 is within the gap (loss slack, noted), not a false optimum warned of."""
    rep = _report(0.0095, solver_objective=0.01, values_objective=0.01)
    assert not rep.optimum_contradicted and rep.loss_slack
    assert not any(s.startswith("WARNING") for s in rep.lines())


def test_a_tree_worse_than_the_start_by_round_off_of_a_large_objective_is_no_worse() -> None:
    """The allowance of 'worse than the warm start' is relative to the start's objective: 5e-4 above a start of 1000
    is round-off (1e-6 x 1000), not a better tree the user should be told to keep."""
    rep = _report(1000.0005, "feasible", solver_objective=1000.0005, values_objective=1000.0005, known_feasible=1000.0)
    assert not rep.worse_than_start


def test_a_false_proof_is_judged_by_the_solvers_objective_not_the_trees() -> None:
    """'the solver's proof is false' compares the objective the solver proved optimal with the warm start's: a start
    of 20 below a stated optimum of 23.28 is a false proof even when the tree's own objective (19) is lower still."""
    rep = _report(19.0, known_feasible=20.0)
    assert rep.false_optimum
    assert any("the warm start compile wrote is a feasible tree with the lower objective 20: the solver's proof is "
               "false" in s for s in rep.lines())


def test_the_bound_is_printed_to_ten_significant_digits() -> None:
    """The first line gives the bound as it gives the objective (10 significant digits), so a bound that differs
    from the objective in the 7th digit is not printed equal to it."""
    assert _report(OBJ, "feasible", bound=17.123456789).lines()[0].endswith(", bound 17.12345679 (gap 26.4%)")


# ---------------------------------------------------------------- big-M notes


def test_each_big_m_note_gives_its_own_figures() -> None:
    """The three big-M notes name what the user acts on: the charge and the M that would avoid it (4 digits), the
    node where a point scores at a routing limit (not the point's index again), and the weight at +-M; none is said
    when nothing meets a limit."""
    from olctc.decode import big_m_notes
    from olctc.objective import BigMCharge, BigMLimit
    from olctc.spec import make_spec

    spec = make_spec("olct", 2)
    charge, limit = BigMCharge(1.5, 3, 7, 4, -123.456, 123.4567), BigMLimit(2, 5, 1, 99.99999, 1, 0, 3)
    notes = big_m_notes(charge, limit, spec)
    assert len(notes) == 3
    assert notes[0].startswith("big-M: the model charges the solver's tree 1.5 more than its true objective: 3 "
                               "point(s) have a margin y * score below about -M (M = 100) at a node they do not pass "
                               "(point 7: score -123.456 at node 4)")
    assert notes[0].endswith("with --big-m above 123.5 (or features without extreme values) the model would not "
                             "charge them")
    assert "2 point(s) score at a limit of the routing rows" in notes[1]
    assert "(M = 100; point 5: score 99.99999 at node 1)" in notes[1]
    assert notes[2].startswith("big-M: in the solver's tree 1 weight(s) sit at +-M, the bound of the L0 rows")
    assert "(M = 100; node 0, feature 3)" in notes[2]
    assert big_m_notes(BigMCharge(0.0, 0), BigMLimit(0), spec) == []


def test_a_tree_held_at_a_small_big_m_is_told_so_and_keeps_the_note() -> None:
    """At --big-m 1 heart's optimum scores 10 points at a routing limit: decode says so among its notes, and the
    tree's meta keeps the note (a tree file read later must still say its big-M may have held it back)."""
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.decode import decode_arrays, finish
    from olctc.spec import make_spec
    from test_core_mutation_gaps import ROWS, solve_fixed

    comp = compile_problem(load("heart").subset(ROWS), make_spec("olct", 2, big_m=1.0))
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, solve_fixed(comp))
    note = ("big-M: in the solver's tree 10 point(s) score at a limit of the routing rows, which hold every score at "
            "a split within [epsilon - M, M] (M = 1; point 2: score -0.99999 at node 0)")
    assert [s[:len(note)] for s in dec.report.tree_notes] == [note]
    assert dec.report.notes[-1].startswith(note) and dec.report.lines()[3].startswith(note)
    tree, _ = finish(dec, comp.manifest, comp.dataset, refine=True)
    assert tree.meta["notes"] == dec.report.tree_notes


# ---------------------------------------------------------------- solution_vector


def test_a_file_of_no_solution_says_why_in_the_solvers_words() -> None:
    """HiGHS stopped by its time limit with no solution: NoSolution says 'no solution' (not olctc's token
    no_solution), that the limit came before any solution was found (decode's solver had no MIP start to take up),
    and that there is nothing to decode."""
    from olctc.decode import solution_vector
    from olctc.errors import NoSolution
    from olctc.read import read_solution
    from test_core_mutation_gaps import compiled
    from test_read_mutation_gaps import COLS, SAMPLES

    path = SAMPLES / "highs_timelimit_nosol.sol"
    with pytest.raises(NoSolution) as exc:
        solution_vector(compiled("olct", 1).milp, read_solution(path, col_names=COLS))
    assert str(exc.value) == (f"{path}: highs reports no solution (Time limit reached): its time limit came before it "
                              "found any solution; give it more time (`olctc fit` keeps its warm start's tree when "
                              "that happens); there is no solution to decode")


def test_a_false_infeasible_of_a_quadratic_model_points_to_scip_only() -> None:
    """CBC's 'infeasible' for a model whose warm start is feasible is false; for a MIQP (MARGOT) the advice is SCIP
    alone, as HiGHS does not solve quadratic objectives."""
    from olctc.decode import solution_vector
    from olctc.errors import NoSolution
    from olctc.read import read_solution
    from test_core_mutation_gaps import compiled
    from test_read_mutation_gaps import COLS, SAMPLES

    sol = read_solution(SAMPLES / "cbc_infeasible_solution.txt", col_names=COLS)
    milp = compiled("olct", 1).milp
    with pytest.raises(NoSolution, match=r"\(objective 12\.5\), so the solver's numerics failed \(CBC's do on these "
                                         r"models\); solve with scip; there is no solution to decode$"):
        solution_vector(milp, sol, 12.5, quadratic=True)
    with pytest.raises(NoSolution, match=r"; solve with highs or scip; there is no solution to decode$"):
        solution_vector(milp, sol, 12.5)


def test_columns_a_solver_adds_by_itself_are_no_foreign_columns() -> None:
    """SCIP's quadratic-objective helpers and Gurobi's MPS_Rg range columns are the solver's own, not another
    model's: a file listing them beside the model's columns decodes; the same name from another solver does not."""
    import dataclasses

    from olctc.decode import solution_vector
    from olctc.errors import OlctcError
    from olctc.read.solution import Solution
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 1)
    x = solve_fixed(comp)
    values = dict(zip([str(n) for n in comp.milp.col_names()], x.tolist()))
    scip = Solution("optimal", comp.milp.objective(x), {**values, "quadobjvar": 1.0}, "scip", "optimal solution found",
                    False)
    assert solution_vector(comp.milp, scip).tolist() == x.tolist()
    gurobi = dataclasses.replace(scip, values={**values, "MPS_Rg3": 0.5}, solver="gurobi")
    assert solution_vector(comp.milp, gurobi).tolist() == x.tolist()
    with pytest.raises(OlctcError, match="column 'quadobjvar' is not in this model"):
        solution_vector(comp.milp, dataclasses.replace(scip, solver="highs"))


def test_cbcs_own_column_names_are_said_to_be_cbcs() -> None:
    """CBC names the columns x0, x1, ... when it cannot read an LP file's names: decode says that, and what to do,
    rather than calling the file another model's."""
    from olctc.decode import solution_vector
    from olctc.errors import OlctcError
    from olctc.read.solution import CBC_LOST_NAMES, Solution
    from test_core_mutation_gaps import compiled

    comp = compiled("olct", 1)
    sol = Solution("optimal", 1.0, {f"x{j}": 0.0 for j in range(comp.milp.n_cols)}, "cbc", "Optimal", False)
    with pytest.raises(OlctcError) as exc:
        solution_vector(comp.milp, sol)
    assert str(exc.value) == f"solution: column 'x0' is not in this model: {CBC_LOST_NAMES}"


# ---------------------------------------------------------------- empty nodes


def _all_routing_fixed(W: np.ndarray, b: np.ndarray) -> Decoded:
    """The decoding of heart's depth-5 OLCT solved with every routing node (0-14) fixed at (W, b)."""
    from olctc.decode import decode_arrays
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 5)
    x = solve_fixed(comp, W, b, nodes=list(range(15)))
    return decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x)


def test_ten_empty_nodes_are_all_named_and_more_are_counted() -> None:
    """The empty-node note names up to ten nodes: exactly ten are all listed (no 'and 0 more'); fifteen are listed
    to the tenth, then 'and 5 more'. Each empty node takes its nearest ancestor holding points: 17 and 18 (under
    node 8, which no point reaches) take node 3's, and meta.empty_nodes records (node, ancestor) in that order."""
    from olctc.decode import finish
    from test_core_mutation_gaps import compiled

    p = 13
    W, b = np.zeros((15, p)), -np.ones(15)  # score -1 sends every point left
    for t, j in ((1, 0), (7, 3), (4, 4), (9, 7), (10, 9)):  # these split at a feature's mean
        W[t, j], b[t] = 1.0, 0.0
    ten = _all_routing_fixed(W, b)
    tail = ": each predicts the class balance of its nearest ancestor's points"
    assert ten.report.notes == [f"no training point reaches node(s) 17, 18, 23, 24, 25, 26, 27, 28, 29, 30{tail}"]
    assert ten.report.empty_nodes[:3] == [(17, 3), (18, 3), (23, 0)]
    comp = compiled("olct", 5)
    tree, _ = finish(ten, comp.manifest, comp.dataset, refine=False)
    assert tree.meta["empty_nodes"][:2] == [{"node": 17, "as": 3}, {"node": 18, "as": 3}]
    fifteen = _all_routing_fixed(np.zeros((15, p)), -np.ones(15))
    assert fifteen.report.notes == [f"no training point reaches node(s) 16, 17, 18, 19, 20, 21, 22, 23, 24, 25 and 5 "
                                    f"more{tail}"]


# ---------------------------------------------------------------- decode_file


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding TINY_CSV compiled at depth 2 (m.mps, its starts and parameter files) and HiGHS's solution
    m.highs.sol."""
    from conftest import tiny_folder

    return tiny_folder(tmp_path_factory.mktemp("tiny4"), ["compile", "tiny.csv", "--target", "y", "--depth", "2",
                                                          "-o", "m.mps"],
                       ["solve", "m.mps", "--solver", "highs", "--quiet", "-o", "m.highs.sol"])


def _start_refused(folder: Path, given: str, named: str) -> None:
    """decode_file refuses ``given`` as the MIP start ``named`` (compile's warm start, not a solver's answer)."""
    from olctc.decode import decode_file
    from olctc.errors import OlctcError

    path = folder / given
    with pytest.raises(OlctcError) as exc:
        decode_file(folder / "m.olctc.json", path)
    assert str(exc.value) == (f"{path}: expected a solver's solution file, got the MIP start compile wrote ({named}, "
                              "olctc's warm start); pass the file the solver wrote (NAME.solvers.txt shows each "
                              "solver's command)")


def test_a_start_is_refused_in_any_form_the_readers_read(tiny: Path, tmp_path: Path) -> None:
    """HiGHS's start is in HiGHS's solution format and would decode as the solver's answer: it is refused as it is,
    gzipped or with CRLF line ends (hashed as the readers read it, a final newline kept); COPT's start is Gurobi's
    byte for byte, and is named as the file given."""
    import gzip
    import shutil

    start = (tiny / "m.start.highs.sol").read_bytes()
    assert start.endswith(b"\n")
    _start_refused(tiny, "m.start.highs.sol", "m.start.highs.sol")
    _start_refused(tiny, "m.start.copt.mst", "m.start.copt.mst")
    _start_refused(tiny, "m.start.gurobi.mst", "m.start.gurobi.mst")
    for name, data in (("crlf.sol", start.replace(b"\n", b"\r\n")), ("start.sol.gz", gzip.compress(start))):
        shutil.copy(tiny / "m.olctc.json", tmp_path / "m.olctc.json")
        shutil.copy(tiny / "tiny.csv", tmp_path / "tiny.csv")
        (tmp_path / name).write_bytes(data)
        _start_refused(tmp_path, name, "m.start.highs.sol")


def test_a_decoded_file_knows_the_warm_start_and_records_the_data(tiny: Path) -> None:
    """decode_file gives the report the warm start's objective (what 'the solver's proof is false' and 'worse than
    the warm start' compare with) and the tree's meta the training data's name, hash, n and p."""
    import json

    from olctc.compile import warm_start_objective
    from olctc.decode import decode_file

    man = json.loads((tiny / "m.olctc.json").read_text())
    tree, rep = decode_file(tiny / "m.olctc.json", tiny / "m.highs.sol")
    assert rep.known_feasible == warm_start_objective(man) and rep.known_feasible is not None
    assert tree.meta["data"] == {k: man["data"][k] for k in ("name", "sha256", "n", "p")}
    assert (tree.meta["data"]["n"], tree.meta["data"]["p"]) == (6, 4)


# ---------------------------------------------------------------- finish


def test_a_tree_whose_solver_bent_its_tolerances_is_recorded_as_feasible_and_exploited() -> None:
    """A trusted solution whose z sends point 0 to the leaf its (w, b) do not: decode writes the tree but its file
    must not say optimal (decode exits 3 on it), and must say the solver's tolerances were exploited."""
    from olctc.decode import finish
    from test_core_mutation_gaps import compiled, decoded, solve_fixed

    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    z = comp.milp.col_block("z")
    zc = np.arange(z.slice.start, z.slice.stop).reshape(z.shape)
    x[zc[:, 0]] = 1.0 - x[zc[:, 0]]  # point 0 assigned to the other leaf
    dec, _ = decoded(comp, x)
    assert dec.report.disagreements == [(0, 2, 1)] and dec.report.status == "optimal"
    tree, _ = finish(dec, comp.manifest, comp.dataset, refine=False)
    assert tree.meta["status"] == "feasible" and tree.meta["tolerance_exploited"] is True


def test_a_weighted_models_tree_records_its_weights() -> None:
    """The tree of a weighted model records the weights' sum (so a tree read later says it was fit weighted), and
    each class's weight by its label, in the manifest's (negative, positive) order."""
    from olctc.decode import finish, weights_record
    from test_decode_mutation_gaps3 import weighted_stump

    s = weighted_stump()
    tree, _ = finish(s.dec, s.comp.manifest, s.ds, refine=False)
    assert tree.meta["data"]["weight_sum"] == 55.0
    man = {"data": {"weight_column": "w", "weight_sum": 12.0, "class_weights": [0.5, 2.0]}}
    assert weights_record(man, ("a", "b")) == {"weight_column": "w", "weight_sum": 12.0,
                                               "class_weights": {"a": 0.5, "b": 2.0}}


# ---------------------------------------------------------------- smoothing pure and empty nodes


def test_pure_nodes_are_judged_and_smoothed_by_weight() -> None:
    """A depth-2 tree on four points: leaf 1 holds two positives, leaf 2 a negative and a positive. Unweighted only
    leaf 1 is pure (b = log 3, Laplace's rule); with weights 2 and the negative at weight 0, leaf 2 is pure too, and
    each smoothing adds their mean weight (2) to each class: b = log(6 / 2) and log(4 / 2), the weight-0 point left
    out of the mean."""
    from olctc.decode import settle_pure_nodes
    from olctc.spec import make_spec

    spec = make_spec("olct", 2)
    X, y = np.array([[-1.0], [-2.0], [1.0], [2.0]]), np.array([1.0, 1.0, -1.0, 1.0])
    W, b = np.array([[1.0], [0.5], [0.5]]), np.array([0.0, 3.0, -7.0])
    W1, b1 = W.copy(), b.copy()
    assert settle_pure_nodes(W1, b1, X, y, spec) == [1]
    assert b1.tolist() == [0.0, np.log(3.0), -7.0] and W1[1, 0] == 0.0 and W1[2, 0] == 0.5
    W2, b2 = W.copy(), b.copy()
    assert settle_pure_nodes(W2, b2, X, y, spec, np.array([2.0, 2.0, 0.0, 2.0])) == [1, 2]
    assert b2[1:].tolist() == pytest.approx([np.log(3.0), np.log(2.0)], rel=1e-12)


def test_an_empty_node_under_balanced_weights_scores_exactly_zero() -> None:
    """Class masses equal up to rounding (three positives of weight 0.1 against a negative of 0.3: 0.30000000000000004
    against 0.3) are a tie: the empty node's b is 0, not the sign of round-off (which decides its class)."""
    from olctc.decode import settle_empty_nodes
    from olctc.spec import make_spec

    X, y = np.array([[-1.0], [-2.0], [1.0], [2.0]]), np.array([1.0, 1.0, 1.0, -1.0])
    W, b = np.zeros((3, 1)), np.array([-1.0, 0.5, 0.5])  # the root sends every point left: leaf 2 is empty
    assert settle_empty_nodes(W, b, X, y, make_spec("olct", 2), np.array([0.1, 0.1, 0.1, 0.3])) == [(2, 0)]
    assert b[2] == 0.0


def test_smoothing_keeps_the_solvers_pure_nodes_and_tells_the_report() -> None:
    """meta.pure_nodes.before holds the nodes as they were before smoothing (what --start-tree tries), not the
    smoothed ones the tree holds, and the report lists the nodes smoothed; the line gives both objectives to 10
    significant digits."""
    from olctc.decode import decode_arrays, finish, pure_nodes_line
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x)
    tree, rep = finish(dec, comp.manifest, comp.dataset, refine=False, smooth_pure_nodes=True)
    pure = tree.meta["pure_nodes"]
    assert pure["nodes"] == [1, 2] and rep.pure_nodes == [1, 2]
    assert pure["before"]["b"] == comp.milp.values(x, "b")[[1, 2]].tolist()
    assert pure["before"]["b"] != tree.b[[1, 2]].tolist()
    assert f"exact objective {pure['objective_before']:.10g} -> " in pure_nodes_line(tree.meta)


# ---------------------------------------------------------------- decode_arrays


def test_only_cbc_is_excused_for_a_quadratic_objective_off_its_values() -> None:
    """SCIP solves MARGOT's quadratic objective exactly: its objective 1% off its values' means another model's
    file, said as such; the 'does not solve quadratic objectives exactly' excuse is CBC's alone."""
    from olctc.decode import decode_arrays
    from olctc.errors import OlctcError
    from olctc.warmstart import warm_start
    from test_core_mutation_gaps import compiled
    from test_decode_mutation_gaps3 import _file

    comp = compiled("margot", 2)
    x, _ = warm_start(comp.milp, comp.X, comp.dataset.y, comp.spec)
    wrong = comp.milp.objective(x) * 1.01
    with pytest.raises(OlctcError, match=r"\): the solution belongs to another model \(other data, depth, C, tangents "
                                         r"or weights\?\)$"):
        decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x, _file(wrong, None, solver="scip"))
    with pytest.raises(OlctcError, match=r"\): cbc does not solve quadratic objectives exactly"):
        decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x, _file(wrong, None, solver="cbc"))


def test_a_score_between_zero_and_epsilon_is_routed_and_scored_at_half_epsilon() -> None:
    """A (trusted) root at w = 0, b = epsilon / 4, which no tolerance-respecting solution has: the MILP's z sends
    every point left, and so must the tree split at epsilon / 2 (no disagreement), and its exact objective must be
    the one of that routing (33.01), not of splitting at 0 (every point right: 50.41)."""
    from olctc.objective import tree_objective
    from test_core_mutation_gaps import compiled, decoded, solve_fixed

    comp = compiled("olct", 2)
    p, eps = comp.X.shape[1], comp.spec.epsilon
    x = solve_fixed(comp, np.zeros((1, p)), np.zeros(1), nodes=[0])
    x[comp.milp.col_block("b").start] = eps / 4
    dec, _ = decoded(comp, x)
    assert dec.report.disagreements == []
    W, b = comp.milp.values(x, "w"), comp.milp.values(x, "b")
    at_half = tree_objective(W, b, comp.X, comp.dataset.y, comp.spec, loss="exact", threshold=eps / 2).total
    at_zero = tree_objective(W, b, comp.X, comp.dataset.y, comp.spec, loss="exact").total
    assert dec.report.exact_objective == at_half and at_zero - at_half > 10


def test_weights_at_the_zero_weight_round_off_are_zero_and_near_integers_are_reported() -> None:
    """A weight of exactly ZERO_WEIGHT (1e-9) is round-off the tree holds at 0 (a univariate tree must not read as
    using a feature); a z column 1e-6 from an integer is integral enough to decode, and the report keeps how far."""
    from olctc.decode import ZERO_WEIGHT
    from test_core_mutation_gaps import compiled, decoded, solve_fixed

    comp = compiled("olct", 2)
    p = comp.X.shape[1]
    x = solve_fixed(comp, np.zeros((1, p)), np.zeros(1), nodes=[0])
    for name in ("w", "w_pos"):  # root, feature 2; |w| = w_pos + w_neg keeps the rows
        x[comp.milp.col_block(name).start + 2] = ZERO_WEIGHT
    x[comp.milp.col_block("z").start] += 1e-6
    dec, _ = decoded(comp, x)
    assert not dec.W[0].any()
    assert dec.report.max_integrality_violation == pytest.approx(1e-6, rel=1e-3)


def test_an_integer_column_exactly_at_the_integrality_tolerance_is_integral() -> None:
    """INTEGRALITY_TOL (1e-4) is the farthest an integer column may be from an integer: a z at exactly 1e-4 is
    accepted; one at 0.3 is refused by its own name (z_1_5, the 6th integer column from the z block's start, not
    the model's 6th column)."""
    from olctc.decode import INTEGRALITY_TOL, check_integral
    from olctc.errors import OlctcError
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    j = comp.milp.col_block("z").start + 5
    assert x[j] == 0.0 and comp.milp.col_names()[j] == "z_1_5"
    x[j] = INTEGRALITY_TOL
    check_integral(comp.milp, x, "m.sol")
    x[j] = 0.3
    with pytest.raises(OlctcError, match=r"^m\.sol: column z_1_5 is 0\.3 but must be integral \(a relaxation's "
                                         r"answer, not an integer solution\?\)$"):
        check_integral(comp.milp, x, "m.sol")


def test_what_big_m_rows_charge_a_real_solution_is_no_contradicted_optimum() -> None:
    """HiGHS's optimum with leaf 2 fixed at b = -150 (M = 100): the loss rows of the three positives that leaf 1
    holds are relaxed by M only at leaf 2, and charge them 150 beyond the tree's true objective. decode_arrays
    counts that charge (model_objective is the solver's), so the optimum is no contradicted one, and says so."""
    from olctc.decode import decode_arrays
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 2)
    W = np.zeros((3, comp.X.shape[1]))
    W[0, 2] = 1.0
    x = solve_fixed(comp, W, np.array([0.0, 3.0, -150.0]))
    rep = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x).report
    assert rep.big_m_extra == pytest.approx(150.0, rel=1e-9)
    assert rep.model_objective == pytest.approx(rep.values_objective, rel=1e-9)
    assert not rep.optimum_contradicted and not rep.loss_slack
    assert not any(s.startswith("WARNING") for s in rep.lines())
    assert rep.tree_notes[0].startswith("big-M: the model charges the solver's tree 150 more than its true objective: "
                                        "3 point(s)")


# ---------------------------------------------------------------- the loose-rows note


def test_the_loose_rows_note_allows_for_big_m_and_the_files_rounding_and_yields_to_a_leak() -> None:
    """Rows missed by 5e-7 at M = 100 are within 1e-8 x M (a solver scales big-M rows by M), and by 5e-6 in a file
    whose rounding moves rows by 1e-5 are rounding: neither is noted; 2e-6 is. A leak's warning says more, and the
    note is not added to it."""
    from olctc.decode import loose_rows_note
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    man = {"model": {"file": "m.mps"}, "files": {"params": ["m.scip.set"]}}

    def note(**kw: object) -> str | None:
        return loose_rows_note(comp.milp, comp.spec, x, _report(OBJ, **kw), man)

    assert note(max_row_violation=5e-7) is None
    assert note(max_row_violation=5e-6, row_slack=1e-5) is None
    assert note(max_row_violation=1e-3, disagreements=[(0, 1, 2)]) is None
    said = note(max_row_violation=2e-6)
    assert said is not None and said.endswith("solve again with m.scip.set, written beside the model (m.solvers.txt "
                                              "shows how); the tree was scored by its true routing")


def test_the_lost_line_note_needs_a_file_that_omits_zeros_and_rows_missed_by_far() -> None:
    """'a line missing from it reads as 0' is said of a leak in a file that leaves zeros out (CBC's) whose values
    miss the rows by far more than a solver's tolerance (1.39: point 0's z moved to the other leaf); not of a file
    that lists every value, nor of rows missed by 1e-6 (within 100 x 1e-9 x M = 1e-5: a tolerance, not a line)."""
    from olctc.decode import decode_arrays
    from test_core_mutation_gaps import compiled, solve_fixed
    from test_decode_mutation_gaps3 import _file

    comp = compiled("olct", 2)
    milp = comp.milp

    def notes(x: np.ndarray, stated: float, omits_zeros: bool) -> list[str]:
        rep = decode_arrays(milp, comp.spec, comp.X, comp.dataset.y, x,
                            _file(stated, None, solver="cbc", omits_zeros=omits_zeros), trusted=True).report
        assert rep.tolerance_exploited
        return rep.notes

    moved = solve_fixed(comp)
    z = milp.col_block("z")
    zc = np.arange(z.slice.start, z.slice.stop).reshape(z.shape)
    moved[zc[:, 0]] = 1.0 - moved[zc[:, 0]]
    assert notes(moved, milp.objective(moved), True) == [
        "note: m.sol leaves zero values out, so a line missing from it reads as 0: the values miss the rows by up to "
        "1.39; check the file is whole"]
    assert notes(moved, milp.objective(moved), False) == []
    near = solve_fixed(comp)
    xi = milp.col_block("xi")
    near[xi.start + int(np.argmax(near[xi.slice]))] -= 1e-6  # a loss column 1e-6 below its row
    assert milp.violation(near)["rows"] == pytest.approx(1e-6, rel=1e-6)
    assert notes(near, milp.objective(near) - 1.0, True) == []  # exploited: the stated objective is not the values'


def test_a_min_leaf_rule_the_real_routing_breaks_is_noted_and_kept() -> None:
    """z obeys min_leaf (7 heart points of age above 0.9 sd in leaf 2, min_leaf 5); a (trusted) root moved to 1.0 sd
    routes only 4 there: decode says the real routing breaks the rule, by the tree's counts (z's hold), and the
    tree's meta keeps it."""
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.decode import finish
    from olctc.spec import make_spec
    from test_core_mutation_gaps import ROWS, decoded, solve_fixed

    comp = compile_problem(load("heart").subset(ROWS), make_spec("olct", 2, min_leaf=5))
    W = np.zeros((1, comp.X.shape[1]))
    W[0, 0] = 1.0
    x = solve_fixed(comp, W, np.array([-0.9]), nodes=[0])
    x[comp.milp.col_block("b").start] = -1.0
    dec, _ = decoded(comp, x)
    note = ("min_leaf: by its real routing, last-layer node 2 holds 4 training point(s), fewer than min_leaf 5 (a node "
            "holds none or at least min_leaf)")
    assert len(dec.report.disagreements) == 3 and dec.report.notes == [note]
    tree, _ = finish(dec, comp.manifest, comp.dataset, refine=False)
    assert tree.meta["notes"] == [note]


def test_an_oct_h_leaf_classifies_at_half_epsilon_and_is_never_refined() -> None:
    """OCT-H's last layer classifies by the routing rule (class +1 at a score >= epsilon): its b is folded by epsilon
    / 2 as a routing node's is; it has no logistic loss to refine, so finish asked to refine leaves it (and its meta)
    as the solver's."""
    from olctc.decode import decode_arrays, finish
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("oct-h", 1)
    x = solve_fixed(comp)
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x)
    assert dec.b.tolist() == (comp.milp.values(x, "b") - comp.spec.epsilon / 2).tolist()
    W, b = dec.W.copy(), dec.b.copy()
    tree, _ = finish(dec, comp.manifest, comp.dataset, refine=True)
    assert "refine" not in tree.meta and np.array_equal(tree.W, W) and np.array_equal(tree.b, b)


def test_a_0_1_loss_counts_a_point_at_the_half_epsilon_split_as_one_that_may_flip() -> None:
    """OCT-H's tree splits at epsilon / 2: a point scoring exactly there flips with any rounding of (w, b), so each of
    the two points counts with the last layer's C (1): 2.0, not the 0 of a window around epsilon."""
    from olctc.decode import rounding_slack, rounding_unit
    from olctc.spec import make_spec

    spec = make_spec("oct-h", 2)
    b = np.full(3, spec.epsilon / 2)
    assert rounding_slack(np.zeros((3, 1)), b, np.zeros((2, 1)), np.array([1.0, -1.0]), spec, rounding_unit(6)) == 2.0


# ---------------------------------------------------------------- decode_file's arguments and rebuild


@pytest.mark.parametrize("kw, message", [
    ({"fmt": "nope"}, "The 'fmt' parameter must be one of cplex, gurobi, scip, cbc, glpk, highs, xpress, copt (or "
                      "none, to detect it from the content). Got 'nope' instead."),
    ({"refine": "no"}, "The 'refine' parameter must be True or False. Got 'no' instead."),
    ({"smooth_pure_nodes": 1}, "The 'smooth_pure_nodes' parameter must be True or False. Got 1 instead."),
    ({"source": "x"}, "The 'source' parameter must be an olctc Dataset (olctc.data.read_csv, from_arrays, "
                      "olctc.datasets.load). Got 'str' instead."),
])
def test_decode_file_names_a_bad_argument(tiny: Path, kw: dict, message: str) -> None:
    """Each argument of decode_file is checked by its own name ('fmt', not read_solution's 'format'; refine="no" is
    not taken for True; a path given as source is no Dataset), before any file is decoded."""
    from olctc.decode import decode_file
    from olctc.errors import OlctcError

    with pytest.raises(OlctcError) as exc:
        decode_file(tiny / "m.olctc.json", tiny / "m.highs.sol", **kw)
    assert str(exc.value) == message


def test_a_scaler_edited_in_its_sixth_decimal_is_refused(tmp_path: Path) -> None:
    """rebuild's tolerance on the scaler spares only a platform's summation order (1e-12): a mean moved by 1e-6
    changes the model, and is refused by name."""
    from olctc.decode import rebuild
    from olctc.errors import OlctcError
    from test_decode_mutation_gaps3 import _tiny_manifest

    man = _tiny_manifest(tmp_path)
    man["scaler"]["mean"][0] += 1e-6
    with pytest.raises(OlctcError, match=r"^m\.olctc\.json: field 'scaler' does not match the training data "
                                         r"\(scaler\.mean\[0\] is "):
        rebuild(man, where="m.olctc.json")


def test_a_tree_not_asked_to_be_refined_keeps_the_solvers_nodes() -> None:
    """refine=False (decode --no-refine) writes the solver's tree: the OLCT stump fixed at w_2 = 0.3, b = 0.1, which
    refinement refits (test_decode_mutation_gaps3), keeps w and b = 0.1 (its one node is a leaf: nothing is folded)
    and its meta has no refine record."""
    from olctc.decode import decode_arrays, finish
    from test_core_mutation_gaps import compiled, solve_fixed

    comp = compiled("olct", 1)
    W = np.zeros((1, comp.X.shape[1]))
    W[0, 2] = 0.3
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, solve_fixed(comp, W, np.array([0.1])))
    tree, rep = finish(dec, comp.manifest, comp.dataset, refine=False)
    assert "refine" not in tree.meta and rep.refine is None
    assert tree.b.tolist() == [0.1] and tree.W.tolist() == W.tolist()
