"""The whole pipeline in process: split, compile, warm start, solve, decode, refine.

``--time-limit`` bounds the whole fit: model building and the warm start are timed and the solver gets
what is left, minus a reserve for decoding and refinement.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numpy as np

from olctc._sklearn import sklearn_module
from olctc.compile import Compiled, compile_problem
from olctc.data import Dataset, check_dataset
from olctc.emit.params import COMMERCIAL_SOLVERS, validate_limits
from olctc.errors import OlctcError, TimeLimitTooShort, check_callback, check_flags, is_real, param_error, warn
from olctc.process_state import interrupt_handled, is_console
from olctc.refine import polish_deadline
from olctc.spec import TreeSpec, check_spec, form_name
from olctc.tree import Tree, weights_used

if TYPE_CHECKING:
    from olctc.decode import Decoded, DecodeReport
    from olctc.milp import MILP
    from olctc.solve import SolveResult

# HiGHS for every MILP preset: its optima held on every check (90 small OLCT instances, each confirmed by
# SCIP where CBC disagreed), while python-mip's CBC called trees up to 60% worse than the optimum "optimal"
# on 14 of those 90 with its integer preprocessing and on 4-5 without (CBC_PARAMETERS). On OCT-H that CBC
# also returns "optima" whose rows miss by 1e-5..1e-4, so tiny weights route points for free (heart, 20
# rows, depth 2: "optimal" 0, true 19). CBC stays one flag away. MIQP presets need SCIP.
DEFAULT_SOLVER = "highs"
DEFAULT_MIQP_SOLVER = "scip"
SOLVER_SHARE = 0.9  # share of the time left after building that the solver is given
IN_PROCESS = ("highs", "cbc", "scip", *COMMERCIAL_SOLVERS)
#: The in-process solvers that solve the MIQP presets.
MIQP_IN_PROCESS = ("scip", *COMMERCIAL_SOLVERS)


def default_solver(spec: TreeSpec) -> str:
    """The in-process solver a fit uses when none is named: SCIP for MIQPs, else HiGHS."""
    return DEFAULT_MIQP_SOLVER if spec.info.quadratic else DEFAULT_SOLVER


def check_in_process(solver: str) -> None:
    """The parameter error unless ``solver`` is one a fit runs in this process."""
    if solver not in IN_PROCESS:
        raise param_error("solver", f"one of {', '.join(IN_PROCESS)} for an in-process fit", solver)


def resolve_solver(spec: TreeSpec, solver: str | None) -> str:
    """The in-process solver a fit of ``spec`` uses (``default_solver`` when None), checked: one of
    IN_PROCESS, and one of MIQP_IN_PROCESS for a MIQP."""
    solver = default_solver(spec) if solver is None else solver
    check_in_process(solver)
    if spec.info.quadratic and solver not in MIQP_IN_PROCESS:
        raise OlctcError(f"preset {spec.preset} is a MIQP (quadratic objective): fit it with SCIP (--solver scip; "
                         f"solver='scip' in Python; or {', '.join(COMMERCIAL_SOLVERS)} where installed)")
    return solver


def preload() -> None:
    """Import the scikit-learn modules the fit phases use (0.5-0.8 s the first time in a process), so
    that the phase times and the time limit measure building, warm start and refinement, not imports
    (a depth-1 heart fit reported "built in 0.64 s" for 0.004 s of building)."""
    import importlib

    for module in ("sklearn.linear_model", "sklearn.model_selection", "sklearn.svm"):
        importlib.import_module(module)


_LEAST_RESERVE = 0.5  # seconds kept for decoding and refinement however small the model


def _least_limit(spent: float, reserve: float) -> float:
    """The smallest time limit that leaves the solver 1 s once ``spent`` and ``reserve`` are taken (the rule of
    ``solver_budget``: (limit - spent - reserve) * SOLVER_SHARE - 1 >= 1)."""
    return spent + reserve + 2.0 / SOLVER_SHARE


def least_time_limit() -> float:
    """The smallest time limit a fit takes (``check_time_limit``), whatever the model."""
    return _least_limit(0.0, _LEAST_RESERVE)


def check_time_limit(time_limit: float | None) -> None:
    """Refuse, before anything is built, a time limit ``solver_budget`` would refuse whatever the build took
    (a fit of a large model at --time-limit 0.1 built it first, then said so)."""
    least = least_time_limit()
    if time_limit is not None and time_limit < least:
        raise TimeLimitTooShort(f"a time limit of {time_limit:g} s leaves no time to solve: decoding, refinement "
                                f"and the solver's overrun need a reserve: give at least {math.ceil(least)} s")


def solver_budget(time_limit: float, spent: float, t_build: float, t_warm: float = 0.0) -> float:
    """Seconds the solver gets of a fit's ``time_limit`` when building and the warm start took ``spent``
    seconds (``t_build`` of them building the model, ``t_warm`` the warm start); every fit, and bench's
    phases, use this rule.

    Raises
    ------
    OlctcError
        when that leaves the solver under 1 s, naming the smallest limit that would do.
    """
    # Keep a reserve for decoding and refinement. Refinement fits L1 logistic regressions at the last layer's
    # nodes, as the warm start did at every node: measured after the solve, 2.0 s on a6a (warm start 1.5 s),
    # 4.2 s on w5a (3.8 s), 0.7 s on phishing (0.3 s), under 0.1 s on the UCI sets; with a reserve of half
    # the build time only, a w5a fit at --time-limit 8 took 12.5 s. Both steps got faster on sparse shifts
    # (2026-12-01, 2026-12-05): refinement 0.86 s on w5a, warm start 0.42 s; the 0.5 s floor and SOLVER_SHARE
    # cover that difference. Solvers overrun their own limit (CBC by 3.5 s at 55 s, measured), hence
    # SOLVER_SHARE.
    reserve = max(_LEAST_RESERVE, 0.5 * t_build, t_warm)
    remaining = (time_limit - spent - reserve) * SOLVER_SHARE - 1.0
    if remaining < 1.0:
        # the smallest limit that leaves the solver 1 s, rounded up to whole seconds
        least = math.ceil(_least_limit(spent, reserve))
        raise TimeLimitTooShort(f"a time limit of {time_limit:g} s leaves no time to solve: building the model "
                                f"and the warm start took {spent:.1f} s, and decoding, refinement and the "
                                f"solver's overrun need a reserve: give at least {least} s")
    return remaining


@dataclass
class FitResult:
    """The fitted tree and the record of how it was obtained."""

    tree: Any
    summary: dict[str, Any] = field(default_factory=dict)
    train_rows: np.ndarray | None = None
    test_rows: np.ndarray | None = None


def balanced_accuracy(y_true: np.ndarray, y_pred: np.ndarray, sample_weight: np.ndarray | None = None) -> float:
    """Mean of sensitivity and specificity for labels in {-1, +1} (each rate weighted by
    ``sample_weight`` when given, as scikit-learn's ``balanced_accuracy_score``)."""
    y_true = np.asarray(y_true)
    y_pred = np.asarray(y_pred)
    w = np.ones(y_true.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    rates = [float(w[m] @ (y_pred[m] == c) / w[m].sum()) for c in (-1, 1)
             if (m := y_true == c).any() and w[m].sum() > 0]
    return float(np.mean(rates)) if rates else float("nan")


def split(ds: Dataset, test_size: float, seed: int, *, ordered: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Stratified train/test row indices (the paper's protocol), sorted; with ``ordered=False`` in the
    order scikit-learn's ``train_test_split`` draws them (the order the paper's scripts trained in)."""
    train_test_split = sklearn_module("sklearn.model_selection").train_test_split

    check_dataset(ds)
    if not is_real(test_size) or not (0.0 <= test_size < 1.0):  # "0.2" or None: a TypeError on comparing
        raise param_error("test_size", "in [0, 1)", test_size)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 32:
        raise param_error("seed", "an integer in [0, 4294967295]", seed)
    rows = np.arange(ds.n)
    if test_size == 0.0:
        return rows, np.array([], dtype=np.int64)
    for label, count in zip(ds.classes, ((ds.y < 0).sum(), (ds.y > 0).sum())):
        if count < 2:  # scikit-learn's own message names the class by its -1/+1 code
            raise OlctcError(f"cannot split {ds.n} points with test size {test_size}: class {label!r} has "
                             f"{count} point(s), a stratified split needs at least 2 of each class "
                             "(test size 0 trains on all points)")
    n_test = math.ceil(test_size * ds.n)  # scikit-learn's rounding
    if min(n_test, ds.n - n_test) < 2:
        raise OlctcError(f"cannot split {ds.n} points with test size {test_size:g}: the test part would hold "
                         f"{n_test} and the training part {ds.n - n_test}, and a stratified split needs at least "
                         "2 in each (one of each class); use more points, another test size, or 0")
    try:
        tr, te = train_test_split(rows, test_size=test_size, random_state=seed, stratify=ds.y)
    except ValueError as exc:
        raise OlctcError(f"cannot split {ds.n} points with test size {test_size}: {exc}") from None
    if np.unique(ds.y[te]).size < 2:  # stratified, a rare class can still get no test point (2 of 12)
        only = ds.classes[int(ds.y[te][0] > 0)]
        warn(f"{ds.source or ds.name}: the test part ({te.size} of {ds.n} points, test size {test_size:g}) "
             f"holds class {only!r} only, so its balanced accuracy says little; use more points or a "
             "larger test size")
    return (np.sort(tr), np.sort(te)) if ordered else (tr, te)


def fit(ds: Dataset, spec: TreeSpec, *, solver: str | None = None, time_limit: float | None = None,
        threads: int | None = None, test_size: float = 0.0, seed: int = 0, refine: bool = True,
        verbose: bool = True, echo: Callable[[str], None] = print, keep_incumbent: bool = False,
        max_nonzeros: int | None = None, standardise: bool = True, leave_overrun: bool = False,
        start_tree: Tree | None = None, smooth_pure_nodes: bool = False) -> FitResult:
    """Fit a tree on ``ds`` (or on its training split when ``test_size > 0``) and report on it.

    An interrupt (Ctrl-C, SIGTERM through the CLI) during the solve stops the fit with KeyboardInterrupt,
    unless ``keep_incumbent``: then the best tree found so far (the warm start, before the solver runs) is
    decoded, refined and returned (HiGHS, SCIP, Gurobi, CPLEX, COPT and Xpress hand back their incumbent when
    interrupted; CBC cannot be stopped from
    outside: the console program abandons its solve, and a library caller's interrupt waits for CBC's time
    limit, unless it lands in the root LP, which Clp stops with no incumbent).
    ``max_nonzeros`` refuses, before building it, a model above that size (default: the compile budget).
    ``standardise=False`` fits on the features as given (data scaled elsewhere, as in the paper's CV).
    ``leave_overrun`` (the console program): a HiGHS solve still running well past the time limit is left
    (summary ``solver_left`` says so) with the best solution it had found; with none, the warm start is
    kept (``olctc.solve.solve_milp``).
    ``start_tree``: a fitted tree to start the solve from instead of the greedy warm start (same classes,
    features matched by name, depth at most the spec's: ``olctc.start_tree``); the tree kept is never worse
    by the model's objective than it (after the changes the MIP start may need, which are echoed).
    ``smooth_pure_nodes``: give the last-layer nodes whose training points are all of one class w = 0 and
    their points' smoothed log-odds (``olctc.decode.settle_pure_nodes``); summary ``pure_nodes`` says which
    and the exact objective before and after.
    """
    from olctc.decode import decode_arrays
    from olctc.solve.result import limit_kind, relative_gap
    from olctc.warmstart import warm_start

    check_dataset(ds)
    check_spec(spec)
    check_flags(refine=refine, verbose=verbose, keep_incumbent=keep_incumbent, standardise=standardise,
                leave_overrun=leave_overrun, smooth_pure_nodes=smooth_pure_nodes)
    check_callback("echo", echo)
    solver = resolve_solver(spec, solver)
    validate_limits(time_limit=time_limit, threads=threads)
    check_time_limit(time_limit)
    preload()
    t0 = time.perf_counter()
    train, test = split(ds, test_size, seed)
    tr = ds.subset(train)
    comp = compile_problem(tr, spec, ds.name, max_nonzeros=max_nonzeros,  # rows: tr.rows, in ds's source
                           standardise=standardise)
    fitted = comp.dataset  # the training points less those of weight 0, which the model leaves out
    sw = fitted.weight
    t_build = time.perf_counter() - t0
    record: dict[str, Any] = {}
    if start_tree is None:
        x0, ws_info = warm_start(comp.milp, comp.X, fitted.y, spec, sample_weight=sw)
    else:
        from olctc.start_tree import start_record, tree_start

        x0, ws_info = tree_start(comp, start_tree)
        record = start_record(ws_info)
    t_warm = time.perf_counter() - t0 - t_build
    warm_obj = comp.milp.objective(x0)
    started_from = "greedy tree" if start_tree is None else "start tree"
    remaining = None
    if time_limit is not None:
        remaining = solver_budget(time_limit, time.perf_counter() - t0, t_build, t_warm)
    if verbose:
        _echo_start(echo, comp.milp, spec, t_build, t_warm, warm_obj, start_tree, ws_info, record)
    t_call = time.perf_counter()
    res = _solve(comp.milp, solver, x0, remaining, threads, verbose, keep_incumbent, leave_overrun)
    # The whole call: a CBC or SCIP solve includes writing the model file and the solver reading it (seconds on
    # large data), which the solver's own runtime leaves out; the rest of the time breakdown has no place for it
    t_solve = time.perf_counter() - t_call
    if limit_kind(res.raw_status) == "interrupt" and not keep_incumbent:
        raise KeyboardInterrupt
    status, gap = res.status, res.gap  # of the tree kept
    ans = _answer(res, solver, remaining, warm_obj, spec, verbose, echo)
    # trusted: this process built the model the solver ran on; CBC once returned values whose objective
    # (53.633) beat the one it reported (53.840): the solver's inconsistency, not a foreign model.
    dec = decode_arrays(comp.milp, spec, comp.X, fitted.y, x0 if res.x is None else res.x,
                        res if res.x is not None else None, trusted=True, sample_weight=sw)
    warm = dec if res.x is None else decode_arrays(comp.milp, spec, comp.X, fitted.y, x0, None, trusted=True,
                                                   sample_weight=sw)
    milp_true, warm_true = dec.report.true_objective, warm.report.true_objective
    if (why := _worse_than_start(res, solver, milp_true, warm_true)) is not None:
        if verbose:
            echo(f"{why}: keeping the warm start")
        dec, ans = warm, _Answer("warm start", why, ans.left_why)
    # The exact objectives of the trees as exported (b folded to the routing midpoint, as decode returns
    # them), so that the three figures compare: the solver's unfolded (w, b) differ from the tree by
    # epsilon/2 in the inner nodes' losses, and refinement seemed to raise the objective (by 8e-7, fuzzing).
    exact_warm, exact_milp = _exact_objective(warm), _exact_objective(dec)
    tree, report = _finish_in_time(dec, comp, fitted, refine, smooth_pure_nodes,
                                   None if time_limit is None else t0 + time_limit)
    pure = {k: v for k, v in tree.meta.get("pure_nodes", {}).items() if k != "before"}  # {} unless asked for
    used, kept_why, left_why = ans
    if used == "warm start":
        # The tree kept is the warm start: feasible, proven nothing, whatever the solver said of its own
        # run (CBC called 0 optimal on an OCT-H model whose optimum is 2, kept 5; and called another
        # "infeasible", which the start disproves). decode took it for a solver's answer ("in-process",
        # "optimal"): the tree's meta says what it is.
        status, gap = "feasible", relative_gap(warm_true, res.bound)
        tree.meta.update(solver=solver, status=status, solver_objective=None, bound=res.bound,
                         solution_from="warm start")
    elif report.optimum_contradicted or report.tolerance_exploited:
        # finish recorded it feasible: a false proof (CBC 2.10's, loss left high), or tolerances bent
        status = "feasible"
    t_total = time.perf_counter() - t0
    summary: dict[str, Any] = {
        "data": ds.name, "n_train": int(train.size), "n_test": int(test.size), "seed": seed,
        "spec": spec.to_json(), **_class_weights(comp.manifest, fitted.classes), **_sample_weights(tr),
        "model_size": {"rows": comp.milp.n_rows, "columns": comp.milp.n_cols, "nonzeros": comp.milp.nnz},
        "solver": solver, "warm_start_from": started_from, **{f"warm_start_{k}": v for k, v in record.items()},
        "solution_from": used, **({"warm_start_kept": kept_why} if kept_why else {}),
        **({"solver_left": left_why} if left_why else {}),
        "status": status, "solver_status": res.status,
        "raw_status": res.raw_status, "gap": gap, "bound": res.bound,
        "objective_warm_start": warm_obj, "objective_milp": res.objective,
        "objective_milp_true": milp_true, "objective_warm_start_true": warm_true,
        "exact_objective_warm_start": exact_warm,
        "exact_objective_before_refine": exact_milp,
        "exact_objective_after_refine": pure["objective_before"] if pure else tree.meta.get("exact_objective"),
        **({"pure_nodes": pure} if pure else {}),
        "routing_disagreements": len(report.disagreements),
        "tolerance_exploited": report.tolerance_exploited,
        **({"notes": list(report.notes)} if report.notes else {}),
        "time_build": t_build, "time_warm_start": t_warm, "time_solve": t_solve, "time_total": t_total,
        "nonzero_weights_per_node": [int(v) for v in weights_used(tree.W).sum(axis=1)],
        **_feature_shares(tree),
    }
    parts = [("train", tr)] + ([("test", ds.subset(test))] if test.size else [])
    for part, d in parts:
        pred = _pm(tree, d.X)
        summary[f"{part}_balanced_accuracy"] = balanced_accuracy(d.y, pred)
        if d.weight is not None:
            summary[f"{part}_balanced_accuracy_weighted"] = balanced_accuracy(d.y, pred, d.weight)
    tree.meta["fit"] = {k: v for k, v in summary.items() if k != "spec"}
    return FitResult(tree, summary, train, test)


class _Answer(NamedTuple):
    """Where fit's tree comes from: the solver or the warm start; why the start was kept; why the solver was
    left running."""

    used: str
    kept_why: str | None
    left_why: str | None


def _answer(res: SolveResult, solver: str, remaining: float | None, warm_obj: float, spec: TreeSpec,
            verbose: bool, echo: Callable[[str], None]) -> _Answer:
    """What the solve handed back: its solution, or none (the warm start is kept), and why, echoed."""
    from olctc.solve.calls import left_after_interrupt
    from olctc.solve.result import false_infeasible, limit_kind

    left_why = None
    if interrupted := left_after_interrupt(res):
        left_why = f"{solver} {interrupted}"
    elif res.left_running and remaining is not None:  # else left only past a time limit
        left_why = (f"{solver} was still running {res.runtime - remaining:.0f} s past its time limit of "
                    f"{remaining:.0f} s (work that checks no clock) and was left")
    if left_why and res.x is not None and verbose:
        echo(f"{left_why}: taking the best solution it had found (objective {res.objective:.6g})")
    if res.x is not None:
        return _Answer(solver, None, left_why)
    kept_why = left_why or (f"{solver} {res.raw_status}" if limit_kind(res.raw_status) == "interrupt"
                            else f"{solver} found no solution ({res.raw_status})"
                            + false_infeasible(res.status, warm_obj, solver, quadratic=spec.info.quadratic,
                                               start="the warm start"))
    if verbose:
        echo(f"{kept_why}: keeping the warm start")
    return _Answer("warm start", kept_why, left_why)


def _worse_than_start(res: SolveResult, solver: str, milp_true: float, warm_true: float) -> str | None:
    """Why the solver's tree is worse than the warm start it was given, by the objective the data really give
    (true routing); None when it is not. A solver that bends its tolerances can hand back such a tree."""
    from olctc.decode import TRUE_OBJ_RTOL

    tol = TRUE_OBJ_RTOL * max(1.0, abs(milp_true))
    if not warm_true < milp_true - tol:
        return None
    if res.objective is not None and milp_true <= res.objective + tol:
        # not a routing leak: the solver's best is worse than the start it was given (CBC without its cutoff)
        return (f"{solver} returned a solution worse than the warm start it was given (objective "
                f"{milp_true:.6g}, warm start {warm_true:.6g})")
    return (f"{solver}'s solution routes worse than its objective says (true objective "
            f"{milp_true:.6g}, warm start {warm_true:.6g})")


def _finish_in_time(dec: Decoded, comp: Compiled, fitted: Dataset, refine: bool, smooth_pure_nodes: bool,
                    deadline: float | None) -> tuple[Tree, DecodeReport]:
    """decode.finish (refinement, pure nodes) with its polish stopped at the fit's deadline, which a note says."""
    from olctc.decode import finish

    with polish_deadline(deadline) as polish_stopped:
        tree, report = finish(dec, comp.manifest, fitted, refine, smooth_pure_nodes)
    if polish_stopped:
        note = ("refinement stopped at the time limit: a node's L1 logistic fit kept the best point its "
                "L-BFGS-B polish had reached (a longer --time-limit finishes it)")
        report.notes.append(note)
        tree.meta["notes"] = [*tree.meta.get("notes", []), note]
    return tree, report


def _echo_start(echo: Callable[[str], None], m: MILP, spec: TreeSpec, t_build: float, t_warm: float,
                warm_obj: float, start_tree: Tree | None, ws_info: dict[str, Any], record: dict[str, Any]) -> None:
    """fit's lines on the model built and the MIP start (and how a start tree was made one)."""
    started_from = "greedy tree" if start_tree is None else "start tree"
    echo(f"model ({form_name(spec.score_variables)}): {m.n_rows:,} rows, {m.n_cols:,} columns "
         f"({int(m.integer.sum()):,} integer), {m.nnz:,} nonzeros; built in {t_build:.2f} s; "
         f"warm start objective {warm_obj:.6g} ({started_from}, {t_warm:.2f} s)")
    if start_tree is None:
        return
    if record.get("tree") == "before refinement":
        echo("start tree: its last layer as the solver left it, before refinement (the lower MILP objective)")
    if "deepened" in record:
        echo(f"start tree deepened from depth {start_tree.depth}: "
             + ("its last layer copied below" if record["deepened"] == "copies"
                else "the new layers fit greedily below its nodes (a lower objective than copies)"))
    for note in ws_info["adjustments"]:
        echo(f"start tree, made a MIP start: {note}")


def _solve(milp: MILP, solver: str, x0: np.ndarray, remaining: float | None, threads: int | None, verbose: bool,
           keep_incumbent: bool, leave_overrun: bool) -> SolveResult:
    """``solve_milp`` from the start ``x0``; a result with no solution, in words, when an interrupt (with
    ``keep_incumbent``) or the time limit stops it before the solver runs (the warm start is kept then)."""
    from olctc.solve import solve_milp
    from olctc.solve.calls import leave_running
    from olctc.solve.result import SolveResult

    t_call = time.perf_counter()
    try:
        return solve_milp(milp, solver, time_limit=remaining, threads=threads, start=x0, verbose=verbose,
                          keep_incumbent=keep_incumbent, leave_overrun=leave_overrun)
    except KeyboardInterrupt:
        # An interrupt while the model is handed to the solver (before its thread runs, which a stop reaches)
        # left no tree at all: the best one found so far is the warm start. So after an interrupt of CBC,
        # whose thread python-mip can neither stop nor ask for its incumbent: the console program leaves it
        # running (and exits by os._exit); a library caller's CBC ran in its own thread and is over.
        if not keep_incumbent or (solver == "cbc" and not is_console()):
            raise
        why = "interrupted before the solver started"
        if solver == "cbc":
            leave_running()
            why = "interrupted; python-mip cannot take the best solution from a running CBC"
        interrupt_handled()  # a result now, as a stopped solver's: the tree is written, then the command exits 130
        return SolveResult("no_solution", None, None, None, None, [], solver, "", time.perf_counter() - t_call, why)
    except TimeLimitTooShort:
        # Handing the model to the solver used up its share of the limit (a deep tree on a loaded machine:
        # 0.9 s of 1.0 s). The warm start is a tree: keep it, as when the solver finds none in its time,
        # rather than raise after the whole budget is spent (an estimator in a GridSearchCV scored NaN).
        return SolveResult("no_solution", None, None, None, None, [], solver, "", time.perf_counter() - t_call,
                           "time limit reached before the solver started")


def _class_weights(manifest: dict[str, Any], classes) -> dict[str, Any]:
    """{"class_weights": {label: weight}} of a weighted fit: the pair compile worked out and recorded
    ("balanced" on the training points compiled)."""
    from olctc.decode import weights_record

    cw = weights_record(manifest, classes).get("class_weights")
    return {} if cw is None else {"class_weights": cw}


def _sample_weights(tr) -> dict[str, Any]:
    """What a fit with per-point weights records of them: their column, sum, and the points of weight 0."""
    if tr.weight is None:
        return {}
    return {"sample_weights": {"column": tr.weight_column, "sum": float(tr.weight.sum()),
                               "zero": int((tr.weight == 0).sum())}}


def _counts_text(counts: list[int], shown: int = 31) -> str:
    """The list as printed, up to a depth-5 tree's 31 nodes; a deeper tree's first ones and a summary (depth
    12's 4,095 counts filled the terminal)."""
    if len(counts) <= shown:
        return str(counts)
    return (f"[{', '.join(str(c) for c in counts[:shown])}, ...] ({len(counts):,} nodes: {sum(counts):,} in all, at "
            f"most {max(counts)}; the tree file has them all)")


def _weights_text(sw: dict[str, Any]) -> str:
    where = f"from column {sw['column']!r}" if sw.get("column") else "given"
    zero = f"; {sw['zero']} of weight 0 left out" if sw.get("zero") else ""
    return f"{where} (sum {sw['sum']:.6g}{zero})"


def _exact_objective(dec) -> float | None:
    """The exact (true logistic loss) objective of a decoded tree as it stands; None for other losses."""
    from olctc.objective import tree_objective

    if not dec.spec.loss_kind.smooth:
        return None
    return tree_objective(dec.W, dec.b, dec.X, dec.y, dec.spec, loss="exact",
                          sample_weight=dec.sample_weight).total


def _pm(tree, X: np.ndarray) -> np.ndarray:
    return np.where(tree.decision_function(X) > 0, 1, -1)


#: How many features a fit's summary names by their share of the tree.
TOP_FEATURES = 5


def _feature_shares(tree: Tree) -> dict[str, Any]:
    """How many features the tree uses, and the most important by their share of it (``feature_importances``)."""
    try:
        ranked = tree.ranked_importances()
    except OlctcError:  # a share beyond float64: the summary does without (the tree is what the fit is for)
        return {}
    return {"features_used": int(weights_used(tree.W).any(axis=0).sum()), "n_features": int(tree.n_features),
            "top_features": [[tree.feature_names[j], share] for j, share in ranked[:TOP_FEATURES]]}


def shares_text(top: list) -> str:
    """``name share, name share, ...`` for fit's "largest shares" line: each name escaped and shortened as the
    text export shows it (a name holds what the CSV header held), in quotes when it holds a comma."""
    from olctc.export._names import printable

    def item(name: Any, share: float) -> str:
        s = printable(name)
        return f'"{s}" {share:.3f}' if "," in s or s.startswith('"') else f"{s} {share:.3f}"

    return ", ".join(item(name, share) for name, share in top)


def summary_lines(s: dict[str, Any]) -> list[str]:
    """Human summary of a fit."""
    def f(v, fmt=".6g"):
        return "-" if v is None else format(v, fmt)
    from olctc.decode import pure_nodes_line
    from olctc.solve.result import gap_text

    gap = gap_text(s["gap"])
    lines = [f"fit {s['data']} ({s['n_train']} train / {s['n_test']} test points, seed {s['seed']}): "
             f"{s['spec']['preset']} depth {s['spec']['depth']}, C {s['spec']['C']}"
             + ("" if "class_weights" not in s else ", class weights "
                + ", ".join(f"{c}={w:.4g}" for c, w in s["class_weights"].items())
                + (" (balanced)" if s["spec"].get("class_weight") == "balanced" else ""))
             + ("" if "sample_weights" not in s else f", point weights {_weights_text(s['sample_weights'])}")
             + (f", min leaf {s['spec']['min_leaf']}" if s["spec"].get("min_leaf") else ""),
             f"model: {form_name(s['spec'].get('score_variables', False))}, "
             f"{s['model_size']['rows']:,} rows, {s['model_size']['columns']:,} columns, "
             f"{s['model_size']['nonzeros']:,} nonzeros",
             f"solver {s['solver']}: {s['status']} ({s['raw_status']}), gap {gap}, "
             f"solution from {s['solution_from']}"
             + (f" ({s['warm_start_kept']})" if s.get("warm_start_kept")
                else f" ({s['solver_left']})" if s.get("solver_left") else ""),
             f"objective: warm start{' (start tree)' if s.get('warm_start_from') == 'start tree' else ''} "
             f"{f(s['objective_warm_start'])} -> MILP {f(s['objective_milp'])} "
             f"(true {f(s['objective_milp_true'])})"]
    if s.get("exact_objective_before_refine") is not None:
        lines.append(f"exact logistic objective: warm start {f(s['exact_objective_warm_start'])}, after MILP "
                     f"{f(s['exact_objective_before_refine'])}, after refinement "
                     f"{f(s['exact_objective_after_refine'])}")
        warm, milp = s["exact_objective_warm_start"], s["exact_objective_before_refine"]
        if warm is not None and milp > warm * (1 + 1e-9) and s["solution_from"] != "warm start":
            # The front door's own run (breast, depth 2) shows 63 -> 149 -> 94: say why, once.
            tset = s["spec"].get("tangent_set") or "custom"
            lines.append(f"note: the MILP minimises the loss through its tangent lines ({tset}), not the exact "
                         "logistic loss, so its tree can score worse on the latter than the warm start "
                         "(refinement recovers some or all of it); --tangents V1..V3 approximate it more closely")
    if (line := pure_nodes_line(s)) is not None:
        lines.append(line)
    lines.append(f"balanced accuracy: train {f(s['train_balanced_accuracy'], '.4f')}"
                 + (f", test {f(s['test_balanced_accuracy'], '.4f')}" if "test_balanced_accuracy" in s else ""))
    if "train_balanced_accuracy_weighted" in s:
        lines.append(f"balanced accuracy, points weighted: train {f(s['train_balanced_accuracy_weighted'], '.4f')}"
                     + (f", test {f(s['test_balanced_accuracy_weighted'], '.4f')}"
                        if "test_balanced_accuracy_weighted" in s else ""))
    lines.append(f"nonzero weights per node: {_counts_text(s['nonzero_weights_per_node'])}")
    if "top_features" in s:
        top = shares_text(s["top_features"])
        lines.append(f"features used: {s['features_used']} of {s['n_features']}"
                     + (f"; largest shares of the tree: {top}" if top else ""))
    lines.append(f"time: build {s['time_build']:.2f} s, warm start {s['time_warm_start']:.2f} s, "
                 f"solve {s['time_solve']:.2f} s, total {s['time_total']:.2f} s")
    lines += [f"note: {note}" for note in s.get("notes", [])]
    if s["routing_disagreements"]:
        lines.append(f"WARNING: {s['routing_disagreements']} training point(s) routed differently than the "
                     "solver's z")
    if s["tolerance_exploited"]:
        lines.append("WARNING: the solver's objective differs from the tree's true objective (tolerances)")
    return lines
