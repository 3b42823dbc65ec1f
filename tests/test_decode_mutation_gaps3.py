"""Decode behaviour a third mutation pass (QA 2026-12-07, finishing the second's list) found unpinned: the report's
exact-objective line, the contradicted-optimum warning's figure, the rounding allowances decode_arrays grants a
file that prints few digits, rebuild's checks of a manifest against its data, and what finish records.

Values are solved by HiGHS in process (test_core_mutation_gaps's helpers); a solution object stands in for a
read file only where the file's own figures (objective, digits) are what is under test; reports are built
directly where the property is arithmetic on their fields (test_decode_mutation_gaps2's helper).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from olctc.decode import decode_arrays
from olctc.errors import OlctcError
from test_core_mutation_gaps import compiled, decoded, solve_fixed
from test_decode_mutation_gaps2 import _report


def _file(objective: float, digits: int | None = 6, **kw) -> SimpleNamespace:
    """What a solution reader hands decode_arrays: the file's stated objective and printing precision."""
    fields = {"objective": objective, "solver": "glpk", "status": "optimal", "raw_status": "OPTIMAL", "bound": None,
              "path": "m.sol", "digits": digits}
    fields.update(kw)
    return SimpleNamespace(**fields)


# ---------------------------------------------------------------- the report's lines


def test_a_logistic_trees_exact_objective_is_reported_and_a_0_1_loss_trees_is_not():
    """A logistic (smooth) model's tree has an exact objective (the true logistic loss, not the tangents'): decode
    computes it and prints it; a 0/1-loss model's has none, and no such line may appear."""
    from olctc.objective import tree_objective

    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    dec, _ = decoded(comp, x)
    exact = dec.report.exact_objective
    assert exact is not None and exact > 0
    line = f"exact objective (true logistic loss) of the solver's (w, b): {exact:.10g}"
    assert line in dec.report.lines()
    # the solver's (w, b), split at epsilon / 2 (before the fold)
    W, b = comp.milp.values(x, "w"), comp.milp.values(x, "b")
    assert exact == pytest.approx(tree_objective(W, b, comp.X, comp.dataset.y, comp.spec, loss="exact",
                                                 threshold=comp.spec.epsilon / 2).total, rel=1e-9)
    octh = compiled("oct-h", 1)
    rep = decoded(octh, solve_fixed(octh))[0].report
    assert rep.exact_objective is None and not any(s.startswith("exact objective") for s in rep.lines())


def test_the_contradicted_optimum_warning_measures_the_model_objective():
    """'its (w, b) give this model an objective P% lower': the model's objective counts what big-M rows charge
    (model_objective = true + big_m_extra), so 23.2756 against 20 + 1 is 9.78% lower, not the 14.07% of the
    true objective alone."""
    rep = _report(20.0, big_m_extra=1.0)
    assert rep.optimum_contradicted
    warning = next(s for s in rep.lines() if s.startswith("WARNING"))
    assert "give this model an objective 9.78% lower, beyond a MIP gap of 0.001:" in warning


# ---------------------------------------------------------------- rounding allowances of a few-digit file


def test_a_six_digit_objective_may_miss_its_values_by_its_own_rounding_too():
    """A file printing 6 significant digits rounds its objective as it rounds its values: the objective check allows
    OBJ_RTOL (1e-5) plus the values' rounding (5e-6 relative here: every cost and value is >= 0) plus the printed
    objective's (5e-6): 1.7e-5 off is this model's solution, 2.2e-5 off is another model's."""
    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    obj = comp.milp.objective(x)
    assert float(np.abs(comp.milp.c) @ np.abs(x)) == pytest.approx(obj)  # the values' slack is u * obj
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x, _file(obj * (1 + 1.7e-5)))
    assert dec.report.solver_objective == obj * (1 + 1.7e-5)
    with pytest.raises(OlctcError, match=r"^m\.sol: the solver's objective [\d.]+ is not this model's objective of "
                                         r"its values \([\d.]+\): the solution belongs to another model"):
        decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x, _file(obj * (1 + 2.2e-5)))


def test_the_values_slack_bounds_what_rounding_moves_in_a_quadratic_model():
    """values_slack's bounds must cover what moving every value by relative u does (to first order): MARGOT's
    objective has a quadratic part (x'Qx / 2 moves by about u x'Qx), 95% of the move on heart, which the linear
    costs alone miss; and a row's activity moves by up to u |A_i|.|x| in its worst row, not the rows' mean."""
    from olctc.decode import rounding_unit, values_slack
    from olctc.warmstart import warm_start

    comp = compiled("margot", 2)
    milp = comp.milp
    x, _ = warm_start(milp, comp.X, comp.dataset.y, comp.spec)
    u = rounding_unit(6)
    obj_slack, row_slack = values_slack(milp, x, u)
    moved = x * (1 + u)
    assert milp.objective(moved) - milp.objective(x) == pytest.approx(obj_slack, rel=1e-5)
    assert np.abs(milp.A @ moved - milp.A @ x).max() <= row_slack
    assert values_slack(milp, x, 0.0) == (0.0, 0.0)


def test_rounding_slack_weighs_each_loss_layer_by_its_c_and_steepest_tangent():
    """rounding_slack's loss part: a score moved by d moves a tangent loss by up to max |g| d in each loss layer,
    weighted by that layer's C: with C = (1, 0.5) and the one tangent at 0 (slope 1/2), a point whose scores
    move by u moves the objective by (1 + 0.5) x 0.5 x u, not by C_1 alone or slope 1."""
    from olctc.decode import rounding_slack, rounding_unit
    from olctc.spec import make_spec

    u = rounding_unit(6)
    spec = make_spec("olct", 2, C=(1, 0.5), tangents=(0.0,))
    X, W, b = np.zeros((1, 1)), np.zeros((3, 1)), np.ones(3)  # every score is b = 1, moved by u
    assert rounding_slack(W, b, X, np.array([1.0]), spec, u) == pytest.approx(0.75 * u, rel=1e-12)


def test_rounding_slack_counts_an_l2_regulariser_as_the_sum_of_squares():
    """MARGOT's regulariser is sum w^2 (L2), not sum |w|: rounding by u moves it by about u sum w^2 (first order
    in u, halved by its 1/2 and doubled by its derivative), 4u at w = 2; with no score to move there is no loss
    term."""
    from olctc.decode import rounding_slack, rounding_unit
    from olctc.spec import make_spec

    u = rounding_unit(6)
    W, b, X, y = np.array([[2.0]]), np.zeros(1), np.zeros((2, 1)), np.array([1.0, -1.0])
    assert rounding_slack(W, b, X, y, make_spec("margot", 1), u) == pytest.approx(4 * u, rel=1e-12)
    assert rounding_slack(W, b, X, y, make_spec("olct", 1), u) == pytest.approx(2 * u, rel=1e-12)



def test_cbcs_objective_off_its_values_of_a_linear_model_is_another_models():
    """CBC's MIQP objective is known to miss its values' (a QUADOBJ excuse), but a linear model has no quadratic
    part: CBC's objective 1% off an OLCT model's values means another model's file, said as such."""
    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    with pytest.raises(OlctcError, match=r"^m\.sol: the solver's objective [\d.]+ is not this model's objective of "
                                         r"its values \([\d.]+\): the solution belongs to another model \(other "
                                         r"data, depth, C, tangents or weights\?\)$"):
        decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x,
                      _file(comp.milp.objective(x) * 1.01, None, solver="cbc"))

# ---------------------------------------------------------------- rebuild's checks of a manifest against its data


def _tiny_manifest(tmp_path) -> dict:
    """The manifest compile writes for TINY_CSV at depth 1, as a dict (rebuild's checks come after the checksum's,
    which refuses any edit of the file: these are the checks of a manifest the checksum cannot vouch for)."""
    import json

    from conftest import tiny_folder

    tiny_folder(tmp_path, ["compile", "tiny.csv", "--target", "y", "--depth", "1", "-o", "m.mps"])
    return json.loads((tmp_path / "m.olctc.json").read_text())


def test_rebuild_checks_the_nonzeros_list_entries_and_class_counts_of_a_manifest(tmp_path):
    """rebuild compares the rebuilt model's nonzeros too (another version's model can have the same shape), names
    the first entry of a list that differs, and checks both class counts (n_positive 4 of 6 with n_negative 2
    keeps n and is named)."""
    import copy

    from olctc.decode import rebuild

    man = _tiny_manifest(tmp_path)
    rebuild(man, where="m.olctc.json")  # as compiled
    edited = copy.deepcopy(man)
    edited["model"]["nnz"] += 1
    with pytest.raises(OlctcError, match=r"^the model rebuilt from the data has 22 rows, 25 columns, 90 nonzeros; "
                                         r"the manifest says 22, 25, 91 \(another olctc version\?\)$"):
        rebuild(edited, where="m.olctc.json")
    edited = copy.deepcopy(man)
    edited["feature_names"][1] = "bb"
    with pytest.raises(OlctcError, match=r"^m\.olctc\.json: field 'feature_names\[1\]' does not match the training "
                                         r"data \(\"bb\" in the manifest, \"b\" from the data; edited\?\)"):
        rebuild(edited, where="m.olctc.json")
    edited = copy.deepcopy(man)
    edited["data"].update(n_positive=3, n_negative=2)
    with pytest.raises(OlctcError, match=r"field 'data\.n_negative' does not match the training data \(2 in the "
                                         r"manifest, 3 from the data"):
        rebuild(edited, where="m.olctc.json")
    del edited["data"]["n_negative"]  # a field the manifest lacks is not checked (older manifests)
    rebuild(edited, where="m.olctc.json")


def test_rebuild_names_the_scaler_field_that_differs(tmp_path):
    """An edited scaler is named by the field that differs from the data's fit: 'scaler.scale[1]' when only a
    scale was changed, not 'scaler.mean[...]' (which matches)."""
    import copy

    from olctc.decode import rebuild

    man = _tiny_manifest(tmp_path)
    edited = copy.deepcopy(man)
    edited["scaler"]["scale"][1] = 2.0
    with pytest.raises(OlctcError, match=r"^m\.olctc\.json: field 'scaler' does not match the training data "
                                         r"\(scaler\.scale\[1\] is 2, the data gives 1\.047483757; edited\?\)"):
        rebuild(edited, where="m.olctc.json")


def test_rebuild_accepts_the_identity_scaler_of_an_unstandardised_compile():
    """compile_problem(standardise=False) records the identity scaler, which the data's fit is not: rebuild must
    accept it and rebuild the same (unscaled) model."""
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.decode import rebuild
    from olctc.spec import make_spec
    from test_core_mutation_gaps import ROWS

    heart = load("heart")
    comp = compile_problem(heart.subset(ROWS), make_spec("olct", 1), standardise=False)
    milp, _, ds, _, X = rebuild(comp.manifest, source=heart)
    assert np.array_equal(X, ds.X) and milp.nnz == comp.milp.nnz


# ---------------------------------------------------------------- decode_arrays's tree


def test_a_logistic_leaf_keeps_the_solvers_b_and_an_in_process_solution_is_optimal():
    """Only routing nodes split at epsilon / 2: a logistic model's leaf scores every point with its tangent rows
    (no 0/1 split at epsilon), so its b is the solver's, bit for bit (shifting it by epsilon / 2 moves every leaf
    probability). A vector handed over in process without a solution object is the caller's optimum."""
    from olctc.formulation.topology import Topology

    comp = compiled("olct", 2)
    x = solve_fixed(comp)
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, x)
    last = Topology(2).last
    assert dec.b[last].tolist() == comp.milp.values(x, "b")[last].tolist()
    assert (dec.report.solver, dec.report.status) == ("in-process", "optimal")


# ---------------------------------------------------------------- finish


def test_refinement_keeps_the_solvers_nodes_it_refit_in_the_meta():
    """meta.refine.before holds the solver's (w, b) of each node refinement refit (what --start-tree tries), not
    the refit ones the tree already holds: an OLCT stump fixed at w_2 = 0.3, b = 0.1 is refit, and its record
    keeps 0.3 and 0.1."""
    from olctc.decode import finish

    comp = compiled("olct", 1)
    p = comp.X.shape[1]
    W = np.zeros((1, p))
    W[0, 2] = 0.3
    dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, solve_fixed(comp, W, np.array([0.1])))
    tree, _ = finish(dec, comp.manifest, comp.dataset, refine=True)
    refine = tree.meta["refine"]
    assert refine["nodes_refit"] == [0] and refine["objective_after"] < refine["objective_before"]
    assert refine["before"] == {"W": W.tolist(), "b": [0.1]}
    assert tree.b[0] != 0.1


def test_pure_node_smoothing_is_said_only_when_a_node_was_smoothed():
    """finish records a request to smooth pure nodes even when none is (nodes []), but the line decode and fit print
    is for smoothed nodes only; when some are (both leaves of heart's optimum at depth 2: b = -100 and log 4), it
    gives the exact objective before and after, recomputed, and the tree's exact objective is the latter."""
    from olctc.decode import finish, pure_nodes_line

    said = []
    for depth in (1, 2):
        comp = compiled("olct", depth)
        dec = decode_arrays(comp.milp, comp.spec, comp.X, comp.dataset.y, solve_fixed(comp))
        tree, _ = finish(dec, comp.manifest, comp.dataset, refine=True, smooth_pure_nodes=True)
        said.append((tree.meta["pure_nodes"], pure_nodes_line(tree.meta), tree.meta["exact_objective"]))
    (stump, line, _), (pure, smoothed, exact) = said
    assert stump["nodes"] == [] and line is None
    assert pure["nodes"] == [1, 2] and exact == pure["objective_after"] < pure["objective_before"]
    assert smoothed == ("pure node(s) 1, 2 smoothed (w = 0, b the log-odds of their points plus one of each class): "
                        f"exact objective {pure['objective_before']:.10g} -> {exact:.10g}")


def weighted_stump() -> SimpleNamespace:
    """An OLCT stump on heart rows where every third point weighs 3, solved at w_2 = 0.3, b = 0.1: the compiled
    problem ``comp``, its data set ``ds``, ``weight``, ``W``, ``b``, the values ``x`` and their decoding ``dec``."""
    import dataclasses

    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.spec import make_spec
    from test_core_mutation_gaps import ROWS

    heart = load("heart").subset(ROWS)
    weight = np.where(np.arange(heart.n) % 3 == 0, 3.0, 1.0)
    ds = dataclasses.replace(heart, weight=weight)
    comp = compile_problem(ds, make_spec("olct", 1))
    W, b = np.zeros((1, comp.X.shape[1])), np.array([0.1])
    W[0, 2] = 0.3
    x = solve_fixed(comp, W, b)
    dec = decode_arrays(comp.milp, comp.spec, comp.X, ds.y, x, sample_weight=weight)
    return SimpleNamespace(comp=comp, ds=ds, weight=weight, W=W, b=b, x=x, dec=dec)


def test_refinement_fits_the_weighted_loss_of_a_weighted_model():
    """Refinement must minimise the model's own loss: with point weights (every third heart point weighing 3) the
    refit stump's objective is the weighted exact objective the tree records, not the unweighted loss's."""
    from olctc.decode import finish

    s = weighted_stump()
    tree, _ = finish(s.dec, s.comp.manifest, s.ds, refine=True)
    assert tree.meta["refine"]["nodes_refit"] == [0]
    assert tree.meta["refine"]["objective_after"] == pytest.approx(tree.meta["exact_objective"], rel=1e-12)
