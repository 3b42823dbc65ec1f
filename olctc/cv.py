"""Choose C in process by K-fold cross-validation (``olctc fit --cv K``).

The protocol is that of ``olctc grid`` + ``olctc collect``, run here instead of on a cluster: the same
train/test split (``fit.split``), the same stratified folds of the training part (``cluster.make_folds``),
the same grid of C (``cluster.C_grid``: the values' product over the layers), the same validation scores
(``cluster.validation_score``, points weighted by the data's weight column) and the same choice among
ties (``cluster.pick_best``: the smaller C sum). Each fold's tree is fitted as ``olctc fit`` fits one
(warm start, solve, refinement) on the fold's training rows, standardised on them; the chosen C is then
fitted on the whole training part.
"""
from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np

from olctc.cluster.grid import C_grid, c_text, make_folds, parse_C_values
from olctc.cluster.grid import check_folds as check_grid_folds  # cv's own check_folds names --cv
from olctc.cluster.scoring import (SCORINGS, TaskResult, check_scoring, cv_table, overflow_text, pick_best,
                                   validation_score, why_undefined)
from olctc.data import Dataset, check_dataset
from olctc.errors import (OlctcError, TimeLimitTooShort, check_callback, check_flags, is_integer, is_real,
                          param_error)
from olctc.fit import FitResult
from olctc.solve.result import gap_text
from olctc.spec import TreeSpec, check_spec
from olctc.tree import ScoreOverflow

#: The values each layer's C takes unless told (those of ``olctc grid``, the paper's grid).
DEFAULT_C_VALUES = (0.01, 0.1, 1.0, 10.0, 100.0)

#: More fits than this get a note before they start (5 values at depth 2, 4 folds: 100 fits).
MANY_FITS = 100


@dataclass
class CVResult:
    """What cross-validation found: one result per (fold, C) fit, the table of mean scores, the C chosen."""

    folds: int
    seed: int
    scoring: str
    C_values: list[float]
    fits: list[TaskResult]
    table: list[dict[str, Any]]
    best: tuple[float, ...] | None
    seconds: float

    def best_row(self) -> dict[str, Any] | None:
        """The table's row of the C chosen."""
        return next((r for r in self.table if tuple(r["C"]) == self.best), None)

    def not_optimal(self) -> list[TaskResult]:
        """The scored fits whose solve was not proven optimal (a time limit, as a rule)."""
        return [r for r in self.fits if r.score is not None and r.status != "optimal"]

    def to_json(self) -> dict[str, Any]:
        """The record kept in the tree's meta (``cv``)."""
        return {"folds": self.folds, "seed": self.seed, "scoring": self.scoring, "C_values": self.C_values,
                "C": None if self.best is None else list(self.best), "table": self.table,
                "fits_not_optimal": len(self.not_optimal()), "seconds": self.seconds}


def check_folds(folds: Any) -> int:
    """``folds`` as an int if it is an integer >= 2 (the grid's check, naming fit's --cv)."""
    return check_grid_folds(folds, option="--cv")


def check_jobs(jobs: Any) -> int:
    """``jobs`` if it is an integer >= 1."""
    if not is_integer(jobs) or jobs < 1:
        raise param_error("jobs", "an integer >= 1", jobs, option="--jobs")
    return int(jobs)


def _check_folds(folds: Any, ds: Dataset, train: np.ndarray) -> int:
    """``folds`` if it is an integer >= 2 that each class of the training part can fill."""
    check_folds(folds)
    y = ds.y[train]
    counts = [int((y < 0).sum()), int((y > 0).sum())]
    few = int(np.argmin(counts))
    if counts[few] < folds:
        fix = (f"use {counts[few]} folds or fewer (--cv {counts[few]}), or more data" if counts[few] >= 2 else
               "cross-validation needs at least 2 points of each class")
        raise OlctcError(f"cannot make {folds} stratified folds: the training part has only {counts[few]} "
                         f"point(s) of class {ds.classes[few]!r}; {fix}")
    return int(folds)


def cross_validate(ds: Dataset, spec: TreeSpec, *, folds: int = 4,
                   C_values: Sequence[float] | str = DEFAULT_C_VALUES, scoring: str = "balanced_accuracy",
                   test_size: float = 0.2, seed: int = 0, solver: str | None = None,
                   time_limit: float | None = None, threads: int | None = None, refine: bool = True,
                   max_nonzeros: int | None = None, jobs: int = 1, leave_overrun: bool = False,
                   progress: Callable[[str], None] | None = None, smooth_pure_nodes: bool = False) -> CVResult:
    """Score every C of the grid by ``folds``-fold CV on ``ds``'s training part (the split ``fit`` makes with
    ``test_size`` and ``seed``) and choose one.

    ``time_limit`` bounds each fit (the whole fit, as ``fit``'s), not the whole cross-validation. ``jobs``
    fits run at a time, each in a process of its own when more than one (killed, and the cross-validation
    stopped, if still running at 1.5 times its time limit + 120 s); give each ``threads=1`` then.
    ``progress`` gets what will run (``plan_text``), then one line per fit as it ends. A fit that fails stops
    the cross-validation with its error, named by fold and C; a fold where ``scoring`` is undefined (ROC AUC
    where a class weighs nothing) leaves its C unscored, and ``best`` is None when no C has every fold scored.
    """
    from olctc.compile import check_size
    from olctc.emit.params import validate_limits
    from olctc.fit import check_time_limit, resolve_solver, split

    check_dataset(ds)
    check_spec(spec)
    check_scoring(scoring)
    values = parse_C_values(_check_C_values(C_values))
    # What each fold's fit would refuse, refused once before any: not as "fold 0, C ..."'s error, after the
    # fork server started (--jobs), nor as a TypeError ('<' between str and float for time_limit="5").
    validate_limits(time_limit=time_limit, threads=threads)
    check_time_limit(time_limit)
    check_jobs(jobs)
    if jobs > 1:  # the fold fits' processes start in the current folder: refused now, not after the plan
        from olctc.bench.workers import check_working_folder

        check_working_folder()
    check_flags(refine=refine, leave_overrun=leave_overrun, smooth_pure_nodes=smooth_pure_nodes)
    check_callback("progress", progress, optional=True)
    resolve_solver(spec, solver)
    train, _test = split(ds, test_size, seed)
    k = _check_folds(folds, ds, train)
    # The final model is the largest: refused now, not after the fold fits. Its points are those of weight > 0
    # (compile leaves the others out); counting every point refused budgets that a plain fit met.
    n_final = len(train) if ds.weight is None else int((ds.weight[train] > 0).sum())
    check_size(n_final, ds.p, spec, max_nonzeros)
    fold_rows = make_folds(ds.y, train, k, seed)
    Cs = C_grid(values, spec.depth)
    if progress is not None:
        progress(plan_text(len(Cs), k, time_limit, min(int(jobs), len(Cs) * k)))  # --jobs 8 for 4 fits runs 4
    fit_kw = {"solver": solver, "time_limit": time_limit, "threads": threads, "seed": seed, "refine": refine,
              "max_nonzeros": max_nonzeros, "leave_overrun": leave_overrun, "smooth_pure_nodes": smooth_pure_nodes}
    tasks: list[dict[str, Any]] = [
        {"task": i * k + fold, "fold": fold, "C": C, "spec": replace(spec, C=C), "ds": ds,
         "train": np.asarray(rows["train"], dtype=np.int64), "val": np.asarray(rows["val"], dtype=np.int64),
         "scoring": scoring, "fit": fit_kw}
        for i, C in enumerate(Cs) for fold, rows in enumerate(fold_rows)]
    t0 = time.perf_counter()
    fits: list[TaskResult] = []

    def keep(records: list[dict[str, Any]]) -> None:
        rec = records[0]
        task = tasks[rec["task"]]
        if "error" in rec:
            kind = TimeLimitTooShort if rec.get("kind") == "TimeLimitTooShort" else OlctcError
            raise kind(f"cross-validation, fold {task['fold']}, C {c_text(task['C'])}: {rec['error']}")
        r = TaskResult(rec["task"], task["fold"], task["C"], score=rec["score"], status=rec["status"])
        if rec["score"] is None:
            r.problem, r.unscorable = (f"no {SCORINGS[scoring][0]} on validation fold {task['fold']}: "
                                       f"{rec['why']}"), True
        fits.append(r)
        if progress is not None:
            shown = "-" if r.score is None else f"{r.score:.4f}"
            gap = "" if rec["gap"] is None or r.status == "optimal" else f" (gap {gap_text(rec['gap'])})"
            progress(f"cv fit {len(fits)}/{len(tasks)}: C {c_text(task['C'])}, fold {task['fold']}: {r.status}{gap}, "
                     f"validation {SCORINGS[scoring][1]} {shown} ({rec['seconds']:.1f} s)")

    if jobs == 1:
        for task in tasks:
            try:
                records = _fit_fold(task)
            except OlctcError as exc:
                raise type(exc)(f"cross-validation, fold {task['fold']}, C {c_text(task['C'])}: {exc}") from None
            keep(records)
    else:
        from olctc.bench.workers import run_isolated

        hard = math.inf if time_limit is None else 1.5 * float(time_limit) + 120.0
        run_isolated(tasks, int(jobs), _fit_fold_isolated, lambda _task: hard, _fit_killed, keep)
    fits.sort(key=lambda r: r.task)
    table = cv_table(fits, {"folds": fold_rows, "C_grid": Cs})
    return CVResult(k, seed, scoring, values, fits, table, pick_best(table), time.perf_counter() - t0)


def _check_C_values(C_values: Any) -> Sequence[float] | str:
    """``C_values`` if it is a text or a sequence of real numbers (None, 1, ["1"] or [True] are neither: a
    TypeError, or a C of 1 nobody asked for)."""
    if isinstance(C_values, str):
        return C_values
    expected = "numbers such as [0.1, 1, 10], or a text such as '0.1,1,10'"
    listed = isinstance(C_values, Sequence) or (isinstance(C_values, np.ndarray) and C_values.ndim == 1)
    if not listed or not all(is_real(v) for v in C_values):
        raise param_error("C_values", expected, C_values, option="--C-values")
    return C_values


def _fit_fold(task: dict[str, Any]) -> list[dict[str, Any]]:
    """One fold's fit and its validation score: the record ``cross_validate`` keeps. Raises fit's errors."""
    from olctc.fit import fit

    t = time.perf_counter()
    ds: Dataset = task["ds"]
    res = fit(ds.subset(task["train"]), task["spec"], test_size=0.0, verbose=False, **task["fit"])
    val = task["val"]
    weight = None if ds.weight is None else ds.weight[val]
    try:
        with warnings.catch_warnings():  # scikit-learn's UndefinedMetricWarning: the problem says it
            warnings.simplefilter("ignore")
            score = validation_score(task["scoring"], res.tree, ds.X[val], ds.y[val], weight)
    except ScoreOverflow as exc:
        # left unscored, it ended in "cross-validation chose no C ... use another --scoring"
        raise OlctcError(overflow_text(exc, val, ds)) from None
    except ValueError as exc:  # scikit-learn's: ROC AUC on a fold of one class, say
        score, why = math.nan, str(exc)
    else:
        why = why_undefined(ds.y[val], weight, ds.classes, ds.weight_column)
    s = res.summary
    return [{"task": task["task"], "status": s["status"], "gap": s["gap"],
             "score": score if math.isfinite(score) else None, "why": None if math.isfinite(score) else why,
             "seconds": time.perf_counter() - t}]


def _fit_fold_isolated(task: dict[str, Any]) -> list[dict[str, Any]]:
    """``_fit_fold`` in a child process: its error comes back as a record (an exception would be a crash)."""
    try:
        return _fit_fold(task)
    except OlctcError as exc:
        return [{"task": task["task"], "error": str(exc), "kind": type(exc).__name__}]


def _fit_killed(task: dict[str, Any], status: str, why: str, seconds: float) -> list[dict[str, Any]]:
    """The record of a fold fit whose process was killed at its hard limit, or died."""
    what = "was stopped" if status == "timeout" else "failed"
    return [{"task": task["task"], "error": f"the fit's process {what} after {seconds:.0f} s: {why}"}]


def plan_text(n_C: int, folds: int, time_limit: float | None, jobs: int = 1) -> str:
    """What a cross-validation will run: fits, and their longest time under ``time_limit``, ``jobs`` at a time."""
    n = n_C * folds
    line = (f"cross-validation: {n_C} C combination(s) x {folds} folds = {n} fits"
            + (f", {jobs} at a time" if jobs > 1 else "") + ", then the final fit")
    if time_limit is not None:
        rounds = -(-n // jobs) + 1
        line += f"; each fit at most {time_limit:g} s (about {_duration(rounds * time_limit)} at most in all)"
    if n > MANY_FITS:
        line += "; fewer --C-values or --cv folds make fewer fits"
    return line


def _duration(seconds: float) -> str:
    """'50 s', '12 min', '3.5 h': a rough length of time for a person."""
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def no_choice_error(cv: CVResult) -> OlctcError:
    """The error when no C has every fold scored."""
    bad = [r for r in cv.fits if r.problem]
    first = bad[0].problem if bad else "no fit was scored"
    return OlctcError(f"cross-validation chose no C: no C combination has every fold scored ({len(bad)} of "
                      f"{len(cv.fits)} fits unscored; first: {first}); use another --scoring")


def fit_cv(ds: Dataset, spec: TreeSpec, *, folds: int = 4, C_values: Sequence[float] | str = DEFAULT_C_VALUES,
           scoring: str = "balanced_accuracy", test_size: float = 0.2, seed: int = 0, solver: str | None = None,
           time_limit: float | None = None, threads: int | None = None, refine: bool = True,
           max_nonzeros: int | None = None, verbose: bool = True, echo: Callable[[str], None] = print,
           progress: Callable[[str], None] | None = None, jobs: int = 1,
           smooth_pure_nodes: bool = False) -> tuple[FitResult, CVResult]:
    """``fit`` with C chosen first by ``cross_validate`` (``olctc fit --cv``): the same split (``test_size``,
    ``seed``) for both, the chosen C fitted on the whole training part. ``time_limit`` bounds each fit;
    ``jobs`` fold fits run at a time (``cross_validate``'s, as ``--jobs``). ``smooth_pure_nodes``: ``fit``'s, in
    every fit.
    The tree's meta keeps the CV record (``cv``). Raises OlctcError when no C has every fold scored."""
    from olctc.fit import fit

    # fit's own checks, made before the cross-validation rather than after it (verbose="no" came minutes late)
    check_flags(verbose=verbose)
    check_callback("echo", echo)
    cv = cross_validate(ds, spec, folds=folds, C_values=C_values, scoring=scoring, test_size=test_size, seed=seed,
                        solver=solver, time_limit=time_limit, threads=threads, refine=refine,
                        max_nonzeros=max_nonzeros, jobs=jobs, progress=progress, smooth_pure_nodes=smooth_pure_nodes)
    if cv.best is None:
        raise no_choice_error(cv)
    try:
        res = fit(ds, replace(spec, C=cv.best), solver=solver, time_limit=time_limit, threads=threads,
                  test_size=test_size, seed=seed, refine=refine, verbose=verbose, echo=echo,
                  max_nonzeros=max_nonzeros, smooth_pure_nodes=smooth_pure_nodes)
    except TimeLimitTooShort as exc:  # the final model is the largest: the choice must not be lost with it
        raise TimeLimitTooShort(f"the final fit: {exc}; the cross-validation chose C {c_text(cv.best)}: fit that "
                                f"(spec C={cv.best}) with a longer time_limit") from None
    res.tree.meta["cv"] = cv.to_json()
    return res, cv
