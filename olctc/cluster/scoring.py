"""Collecting a grid: every solution decoded and scored on its validation fold, the CV table, the choice of
C, and the table, problems and advice (what to solve again, how) for humans."""
from __future__ import annotations

import itertools
import math
import os
import re
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

import numpy as np

from olctc.cluster.grid import c_text
from olctc.cluster.read import load_grid_data, read_grid
from olctc.cluster.slurm import submit_scripts
from olctc.errors import OlctcError, check_flags, param_error
from olctc.io import shell_path

if TYPE_CHECKING:
    from olctc.data import Dataset
    from olctc.tree import ScoreOverflow, Tree

TIE_TOL = 1e-12


def _balanced_accuracy(tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    from olctc.fit import balanced_accuracy

    return balanced_accuracy(y, np.where(tree.decision_function(X) > 0, 1, -1), weight)


def _accuracy(tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    from sklearn import metrics

    return float(metrics.accuracy_score(y, np.where(tree.decision_function(X) > 0, 1, -1), sample_weight=weight))


def _roc_auc(tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    from sklearn import metrics

    return float(metrics.roc_auc_score(y, tree.decision_function(X), sample_weight=weight))


def _neg_log_loss(tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    from sklearn import metrics

    # columns -1, +1: the labels' sorted order, as log_loss reads them
    return -float(metrics.log_loss(y, tree.predict_proba(X), sample_weight=weight, labels=[-1, 1]))


def _neg_brier_score(tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    from sklearn import metrics

    return -float(metrics.brier_score_loss(y, tree.predict_proba(X)[:, 1], sample_weight=weight, pos_label=1))


class Scoring(NamedTuple):
    """A validation score: its name in messages, its CV table header, and the score of a tree on rows X with
    labels y in {-1, +1} (points weighted when given), as scikit-learn's scorer of that name computes it."""

    name: str
    header: str
    score: Callable[[Tree, np.ndarray, np.ndarray, np.ndarray | None], float]


#: collect's validation scores, by scikit-learn's scorer names (each greater is better, hence the negated losses).
SCORINGS: dict[str, Scoring] = {
    "balanced_accuracy": Scoring("balanced accuracy", "bal.acc", _balanced_accuracy),
    "accuracy": Scoring("accuracy", "acc", _accuracy),
    "roc_auc": Scoring("ROC AUC", "roc_auc", _roc_auc),
    "neg_log_loss": Scoring("negative log loss", "-log_loss", _neg_log_loss),
    "neg_brier_score": Scoring("negative Brier score", "-brier", _neg_brier_score),
}


@dataclass
class TaskResult:
    """One task's outcome: a validation score, or why there is none."""

    task: int
    fold: int
    C: tuple[float, ...]
    score: float | None = None
    problem: str | None = None  # None when scored
    status: str | None = None   # the solver's status when decoded
    warnings: list[str] = field(default_factory=list)
    unusable: Path | None = None  # a solution file that exists but does not decode: resubmitting skips it
    unscorable: bool = False  # decoded, but the scoring is undefined on its fold: solving again changes nothing
    foreign: bool = False  # its model was compiled for another grid (other C, rows, data or model)
    bent: bool = False  # its solver bent its tolerances (a warning says so; status feasible)
    short: bool = False  # its solve ended with no solution (its time limit): solving again the same way ends so too
    running: bool = False  # no solution, and its solve.log, written lately, does not end as a solve ends: running?
    #: (finished .part, solution): its solve ended and wrote the .part, the task's mv did not run
    unrenamed: tuple[Path, Path] | None = None


@dataclass
class Collected:
    """Everything collect found: per-task results, the CV table and the choice."""

    results: list[TaskResult]
    table: list[dict[str, Any]]
    best: tuple[float, ...] | None
    info: dict[str, Any]
    folder: Path | None = None  # the grid folder, for the advice to name it
    dataset: Any = None  # the grid's whole source Dataset, read once
    scoring: str = "balanced_accuracy"  # the validation score of the table, a name of SCORINGS


def _log_lines(path: Path, n: int) -> list[str]:
    """The last ``n`` lines of a log that are not blank ([] when it cannot be read)."""
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return []
    return lines[-n:]


def _log_tail(path: Path, n: int = 1) -> str:
    return " | ".join(_log_lines(path, n))


#: An error line of a task's solve.log when its solve ended with no solution for lack of time (olctc solve's
#: NoSolution with time_advice's words, TimeLimitTooShort, a HiGHS solve left past its limit): a rerun with the
#: same limit ends the same way.
_ENDED_SHORT = re.compile(r"^error: .*(: its time limit came before it|leaves no time to solve|no time is left to "
                          r"solve|past its time limit)")


#: The problem of a task whose solve.log is missing or empty: not run yet, or still queued.
_NOT_RUN = "missing solution (not run yet?)"


def _why_missing(r: TaskResult, sol: Path, folder: Path, time_limit: float) -> None:
    """Set ``r.problem`` (and ``r.short``, ``r.running``) for a task without a solution file, from its solve.log,
    its ``.part`` and its Slurm log. A glpsol task that found no solution in time was said to be "stopped" by
    its job (the .part is the program's own file, which holds none), a cancelled one to need more job time, and
    one still running to need solving again (QA under a real Slurm, 2026-12-05)."""
    log = sol.parent / "solve.log"
    last = _log_lines(log, 5)  # a warning on stderr may come after the end's line
    if not last:
        r.problem = _NOT_RUN
        return
    tail = last[-1]
    r.problem = f"missing solution (last line of solve.log: {tail})"
    if any(_ENDED_SHORT.match(line) for line in last):
        r.short = True
        return
    part = [p for p in (Path(f"{sol}.part"), Path(f"{sol}.part.sol")) if p.is_file()]
    # an interrupted olctc solve writes its best solution to the .part and says so before "interrupted": stopped
    interrupted = any(line.startswith("interrupted") for line in last)
    if part and not interrupted \
            and any(line.startswith("solution written to ") and line.endswith(part[0].name) for line in last):
        # olctc solve ended and wrote its whole solution; the task's mv onto the solution's name did not run
        r.problem += (f"; the solve ended and wrote {part[0].name}, but the task was stopped before it renamed the "
                      f"file: mv {shell_path(part[0])} {shell_path(sol)}, then collect again (no solve needed)")
        r.unrenamed = (part[0], sol)
        return
    if not interrupted and any(line.startswith(("error: ", "solution written to ")) for line in last):
        return  # it ended: a rerun may help once the cause is gone
    if part or interrupted:
        slurm = _log_tail(folder / "logs" / f"task-{r.task}.out", 5)
        due = re.search(r"CANCELLED AT \S+ DUE TO ([A-Z ]+?) \*\*\*", slurm)  # TIME LIMIT, PREEMPTION, NODE FAILURE
        how = ("killed at its job's time limit (give the job more time than the grid's --time-limit: #SBATCH "
               "--time in submit.slurm)" if due and due[1] == "TIME LIMIT" else
               f"cancelled by Slurm ({due[1].lower()})" if due else
               "cancelled (scancel)" if "CANCELLED" in slurm else "stopped (cancelled, killed, or its node lost)")
        # "the best solution found until then was written": to the .part, which a finished solve renames
        kept = f": {part[0].name} holds its best solution until then, which collect does not score" if part else ""
        r.problem += f"; the task was {how}{kept}"
        return
    try:
        age = time.time() - log.stat().st_mtime
    except OSError:
        return
    if age < time_limit + 120:  # a solver prints every few seconds; a task killed outright looks so for a while
        r.running = True
        r.problem += f"; still running? (its solve.log was written {age:.0f} s ago)"


def _listed(ids: Sequence[int]) -> str:
    """Task numbers as the table shows them, the first ten: "0003, 0007, ..."."""
    return ", ".join(f"{t:04d}" for t in ids[:10]) + (", ..." if len(ids) > 10 else "")


def check_scoring(scoring: str) -> str:
    """``scoring`` if it is one of ``SCORINGS``, else an error listing them."""
    if scoring not in SCORINGS:
        raise param_error("scoring", "one of " + ", ".join(SCORINGS), scoring, option="--scoring")
    return scoring


def validation_score(scoring: str, tree: Tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    """``tree``'s ``scoring`` (a name of ``SCORINGS``) on rows ``X`` with labels ``y`` in {-1, +1}, each
    point weighted by ``weight`` when given, as scikit-learn's scorer of that name computes it."""
    return SCORINGS[scoring].score(tree, X, y, weight)


def overflow_text(exc: ScoreOverflow, val: np.ndarray, ds: Dataset) -> str:
    """What a validation row whose score overflows is told, by collect and cross_validate alike: the data's fault,
    which no scoring avoids, named by its row in the data (``val``: the fold's rows of ``ds``), not in the fold."""
    row = int(val[exc.row] if ds.rows is None else ds.rows[val[exc.row]])
    return (f"validation row {row} of the data: the score of node {exc.node} overflows (values too large for the "
            "tree's weights); rescale the data")


def score_tasks(folder: str | Path, info: dict[str, Any], ds: Dataset, *, data_path: str | Path | None = None,
                refine: bool = True, scoring: str = "balanced_accuracy",
                smooth_pure_nodes: bool = False) -> list[TaskResult]:
    """Decode every solution present and score it on its validation fold (``scoring``, balanced accuracy by
    default; its points weighted by the data's weight column, if it has one). ``smooth_pure_nodes``:
    ``decode_file``'s."""
    from olctc.decode import decode_file
    from olctc.compile import manifest_path, read_manifest
    from olctc.read import copt, gurobi, xpress
    from olctc.tree import ScoreOverflow

    folder = Path(folder)
    out = []
    for t in info["tasks"]:
        r = TaskResult(int(t["task"]), int(t["fold"]), tuple(float(c) for c in t["C"]))
        sol = folder / t["solution"]
        model = folder / t["model"]
        alt = sol.parent / "model.gurobi.sol"  # written by the gurobi_command column instead
        if (not sol.exists() or sol.stat().st_size == 0) and alt.exists():
            sol = alt
        if not sol.parent.is_dir():  # "not run yet?" and a rerun, which fails on its solve.log, cannot help
            r.problem = (f"its folder {sol.parent.relative_to(folder)} is missing: restore it (its model, "
                         "manifest and start) or make the grid again")
            out.append(r)
            continue
        if not sol.exists() or sol.stat().st_size == 0:
            _why_missing(r, sol, folder, float(info.get("time_limit") or 0.0))
            out.append(r)
            continue
        try:
            man = read_manifest(manifest_path(model), model_optional=True)
        except OlctcError as exc:
            # not the solution's fault: "delete the unusable solution and resubmit" could not help
            r.problem = (f"unusable manifest: {exc}; restore the task folder's files (model, manifest, start) or "
                         "make the grid again")
            out.append(r)
            continue
        foreign = _foreign_task(man, t, info, ds.weight)
        if foreign is not None:
            r.problem, r.foreign = f"another grid's task: {foreign}", True
            out.append(r)
            continue
        try:
            tree, report = decode_file(manifest_path(model), sol, data=data_path, refine=refine, source=ds,
                                       smooth_pure_nodes=smooth_pure_nodes)
        except OlctcError as exc:
            r.problem, r.unusable = f"unusable solution: {exc}", sol
            out.append(r)
            continue
        except Exception as exc:  # an error of olctc's own, not a verdict on the file: the other tasks go on
            # no advice to delete the solution: a fault in olctc (a NameError while decode.py was being
            # edited, under a QA pass) called every task's good solution unusable, and said to delete them all
            r.problem = (f"decoding failed: {type(exc).__name__}: {exc} (an error in olctc, not in the solution "
                         "file: keep the file, and report the error)")
            out.append(r)
            continue
        # Gurobi's, COPT's and Xpress's files carry no status (the reader's "feasible" only means it holds a
        # solution): calling every such task "not proven optimal" would be wrong for those the solver proved.
        # The task's solve.log says (olctc solve's status line, or gurobi_cl's log); without it, "unknown".
        fmt = {gurobi.NO_STATUS: "gurobi", copt.NO_STATUS: "copt", xpress.NO_STATUS: "xpress"}.get(
            str(getattr(report, "raw_status", "")))
        r.status = solve_log_status(sol.parent / "solve.log", fmt) if fmt else getattr(report, "status", None)
        if not report.ok:
            r.status, r.bent = "feasible", True  # as decode records it: tolerances bent, no proven optimum
            r.warnings.append("the solver's objective differs from the tree's (tolerances)")
        if getattr(report, "optimum_contradicted", False):
            r.status = "feasible"  # as decode records it: no proven optimum
            r.warnings.append("the solver calls its solution optimal, but its (w, b) give this model an objective "
                              "lower than a MIP gap allows: a false proof, or another model's solution in this "
                              "task's folder?")
        if sol != alt and alt.is_file() and alt.stat().st_size > 0:
            # both columns were run on this task (the jobs of two runs): say which one the table holds
            r.warnings.append(f"{alt.name} is there too (the gurobi_command column's solution): {sol.name} was "
                              f"scored; remove the one not to score")
        val = np.asarray(info["folds"][r.fold]["val"], dtype=np.int64)
        y, weight = ds.y[val], None if ds.weight is None else ds.weight[val]
        none = f"no {SCORINGS[scoring][0]} on validation fold {r.fold}"
        try:
            with warnings.catch_warnings():  # scikit-learn's UndefinedMetricWarning: the problem below says it
                warnings.simplefilter("ignore")
                score = validation_score(scoring, tree, ds.X[val], y, weight)
        except ScoreOverflow as exc:
            # left unscored, the task was named by its row in the fold, with "collect again with another --scoring"
            raise OlctcError(f"task {r.task:04d} (fold {r.fold}, C {c_text(r.C)}): {overflow_text(exc, val, ds)} and "
                             "make the grid again") from None
        except ValueError as exc:  # scikit-learn's: say, ROC AUC on a fold of one class
            r.problem, r.unscorable = f"{none}: {exc}", True
        else:
            if math.isfinite(score):
                r.score = score
            else:  # roc_auc where a class weighs nothing on the fold: nan, which no mean or max survives
                wcol = info["data"].get("weight_column")
                r.problem, r.unscorable = f"{none}: {why_undefined(y, weight, ds.classes, wcol)}", True
        out.append(r)
    return out


def _foreign_task(man: dict[str, Any], task: dict[str, Any], info: dict[str, Any],
                  weight: np.ndarray | None = None) -> str | None:
    """Why the task's model (its manifest ``man``, checked by ``read_manifest``) is not the one grid compiled
    for it, or None. A task folder copied from another grid (other C values, another seed's folds) decoded
    and scored as this grid's: its trees were labelled with this grid's C and scored on folds they were
    trained on, exit 0 (QA pass, 2026-12-03)."""
    spec, data = dict(man["spec"]), dict(man["data"])
    C = [float(c) for c in task["C"]]
    if [float(c) for c in spec.get("C") or []] != C:
        return f"its model was compiled with C {spec.get('C')}, the grid's task {task['task']} has C {C}"
    grid_spec = {k: v for k, v in info.get("spec", {}).items() if k != "C"}
    other = next((k for k, v in grid_spec.items() if spec.get(k) != v), None)
    if other is not None:
        return f"its model was compiled with {other} {spec.get(other)!r}, the grid's with {grid_spec[other]!r}"
    sha = info.get("data", {}).get("sha256")
    if sha is not None and data.get("sha256") != sha:
        return "its model was compiled from other data (sha256) than the grid's"
    train = info["folds"][int(task["fold"])]["train"]
    if weight is not None:  # compile leaves out the points that weigh 0
        train = [r for r in train if 0 <= r < len(weight) and weight[r] > 0]
    if data.get("rows") != train:
        return f"its model was compiled on other training rows than the grid's fold {task['fold']}"
    return None


#: ``olctc solve``'s line with the status of its solve: "status optimal (gurobi: OPTIMAL), objective ..."
_SOLVE_LINE = re.compile(r"^status (optimal|feasible|infeasible|unbounded|no_solution) \(([\w-]+): ")


def solve_log_status(path: str | os.PathLike[str], solver: str) -> str:
    """The status a task's solve.log gives of a solve by ``solver`` (the format of its solution file):
    ``olctc solve``'s own line for that solver, else the end of gurobi_cl's log (``olctc.read.gurobi.log_status``):
    "optimal", "feasible" or "unknown"."""
    from olctc.read import gurobi

    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return "unknown"
    said = [m.group(1) for line in text.splitlines() if (m := _SOLVE_LINE.match(line)) and m.group(2) == solver]
    if said:
        return said[-1] if said[-1] in ("optimal", "feasible") else "unknown"
    return gurobi.log_status(path)


def why_undefined(y: np.ndarray, weight: np.ndarray | None, classes: Sequence[Any], wcol: str | None) -> str:
    """Why a score came out nan on a fold of labels ``y`` (-1/+1) and point weights ``weight``: a class
    without weight there, as a rule."""
    w = np.ones(len(y)) if weight is None else weight
    for code, label in zip((-1, 1), classes):
        if not w[y == code].sum() > 0:
            where = f" (its points weigh 0 in column {wcol!r})" if (y == code).any() and wcol else ""
            return f"class {label!r} has no weight on this fold{where}"
    return "the scorer gave nan"


def cv_table(results: list[TaskResult], info: dict[str, Any]) -> list[dict[str, Any]]:
    """One row per C combination: folds scored, mean and std of the validation score."""
    n_folds = len(info["folds"])
    rows = []
    for C in info["C_grid"]:
        C = tuple(float(c) for c in C)
        mine = [r for r in results if r.C == C]
        scores = [r.score for r in mine if r.score is not None]
        rows.append({"C": list(C), "folds_scored": len(scores), "folds": n_folds,
                     "mean": float(np.mean(scores)) if scores else None,
                     "std": float(np.std(scores)) if scores else None,
                     "scores": {str(r.fold): r.score for r in mine if r.score is not None}})
    return rows


def pick_best(table: list[dict[str, Any]]) -> tuple[float, ...] | None:
    """The C of the best complete row: highest mean; ties -> smaller C sum, then smaller C tuple."""
    complete = [r for r in table if r["folds_scored"] == r["folds"] and r["mean"] is not None]
    if not complete:
        return None
    top = max(r["mean"] for r in complete)
    tied = [r for r in complete if r["mean"] >= top - TIE_TOL]
    # the sums as written in decimals: 0.7 + 0.1 is 0.7999999999999999 in doubles, and took (0.7, 0.1) before
    # (0.3, 0.5), whose sum is 0.8, against the rule (equal sums, then the smaller tuple: QA)
    best = min(tied, key=lambda r: (float(f"{sum(r['C']):.12g}"), tuple(r["C"])))
    return tuple(best["C"])


def collect(folder: str | Path, *, data_path: str | Path | None = None, refine: bool = True,
            scoring: str = "balanced_accuracy", smooth_pure_nodes: bool = False) -> Collected:
    """Read a grid folder's solutions, score them by ``scoring`` (one of ``SCORINGS``), build the CV table and
    pick C (no final fit). ``smooth_pure_nodes``: each task's tree's, as ``decode_file``'s."""
    from olctc.io import check_path

    check_scoring(scoring)
    check_flags(refine=refine, smooth_pure_nodes=smooth_pure_nodes)
    folder = check_path(folder, "folder")  # None: pathlib's TypeError (QA 2026-12-05)
    if data_path is not None:
        data_path = check_path(data_path, "data_path")
    info = read_grid(folder)
    ds = load_grid_data(info, data_path)
    if ds.n != info["data"]["n"]:
        raise OlctcError(f"{Path(folder) / 'grid.json'}: field 'data.n' is {info['data']['n']}, but the data "
                         f"has {ds.n} rows; the file is damaged (edited?)")
    results = score_tasks(folder, info, ds, data_path=data_path, refine=refine, scoring=scoring,
                          smooth_pure_nodes=smooth_pure_nodes)
    table = cv_table(results, info)
    return Collected(results, table, pick_best(table), info, Path(folder), ds, scoring)


def score_table_lines(table: list[dict[str, Any]], best: tuple[float, ...] | None, scoring: str) -> list[str]:
    """The CV table (``cv_table``'s rows) for humans, the row of ``best`` marked."""
    depth = len(table[0]["C"]) if table else 0
    width = max([8] + [len(c_text([c])) for r in table for c in r["C"]])  # 1e-05 and 0.001234 line up
    head = "  ".join(f"C{h + 1}".ljust(width) for h in range(depth))
    lines = [f"{head}  folds  {'mean ' + SCORINGS[scoring][1]:<13}  std"]
    for r in table:
        cs = "  ".join(c_text([c]).ljust(width) for c in r["C"])
        mean = "-" if r["mean"] is None else f"{r['mean']:.4f}"
        # one scored fold has no spread to show: 0.0000 read as "every fold agrees"
        std = "-" if r["std"] is None or r["folds_scored"] < 2 else f"{r['std']:.4f}"
        mark = " <- best" if best is not None and tuple(r["C"]) == best else ""
        lines.append(f"{cs}  {r['folds_scored']}/{r['folds']}    {mean:<12}  {std}{mark}")
    incomplete = [r for r in table if r["folds_scored"] < r["folds"]]
    if incomplete:
        lines.append(f"note: {len(incomplete)} C combination(s) without every fold scored are not candidates")
    return lines


def table_lines(col: Collected) -> list[str]:
    """The CV table and the problems, for humans."""
    lines = score_table_lines(col.table, col.best, col.scoring)
    bad = [r for r in col.results if r.problem]
    n = len(col.results)
    lines.append(f"tasks: {n - len(bad)} of {n} scored")
    for r in bad:
        lines.append(f"  task {r.task:04d} (fold {r.fold}, C {c_text(r.C)}): {r.problem}")
    for r in col.results:
        for w in r.warnings:
            lines.append(f"  task {r.task:04d}: warning: {w}")
    # a task whose solver bent its tolerances has its own warning above: its reason is no time limit
    unproven = [r for r in col.results if r.score is not None and r.status not in (None, "optimal", "unknown")
                and not r.bent]
    if unproven:
        # A fold fit stopped at its time limit scores some feasible tree, not the optimal one: the table
        # would otherwise compare C values on unequal terms without a word ("8 of 8 scored").
        ids = _listed([r.task for r in unproven])
        lines.append(f"note: {len(unproven)} of the scored tasks are not proven optimal (status "
                     f"{'/'.join(sorted({str(r.status) for r in unproven}))}; tasks {ids}): their scores are the "
                     "best trees found, for instance within the time limit (see their solve.log); a longer "
                     "--time-limit may change the choice of C")
    unknown = [r for r in col.results if r.score is not None and r.status == "unknown"]
    if unknown:
        ids = _listed([r.task for r in unknown])
        lines.append(f"note: {len(unknown)} of the scored tasks come from Gurobi, COPT or Xpress solution files, which "
                     "do not say whether the solution is optimal, and their solve.log holds no olctc or Gurobi log "
                     f"that does (tasks {ids}); a fit stopped at its time limit scores the best tree found")
    if any(r.unusable for r in col.results):
        lines.append(f"note: to solve the tasks of unusable solutions again, "
                     f"{rerun_advice(col.results, col.folder, len(col.info['tasks']))}")
    elif any(not r.unscorable for r in bad):
        lines.append("note: to solve the unscored tasks, "
                     f"{rerun_advice(col.results, col.folder, len(col.info['tasks']))}")
    elif bad:
        lines.append(f"note: {unscorable_advice(col.results)}")
    return lines


def _index_ranges(ids: Sequence[int]) -> str:
    """Slurm's --array syntax for sorted distinct ``ids``: [0, 1, 2, 5] -> "0-2,5"."""
    parts: list[str] = []
    for _, run in itertools.groupby(enumerate(ids), key=lambda kv: kv[1] - kv[0]):
        ks = [k for _, k in run]
        parts.append(str(ks[0]) if len(ks) == 1 else f"{ks[0]}-{ks[-1]}")
    return ",".join(parts)


def resubmit_commands(folder: str | Path, task_ids: Sequence[int], n_tasks: int) -> list[str]:
    """The sbatch command lines that run exactly ``task_ids`` again (one per job array script involved)."""
    ids = sorted(set(int(k) for k in task_ids))
    where = shell_path(folder)
    out = []
    for name, first, count in submit_scripts(n_tasks):
        mine = [k - first for k in ids if first <= k < first + count]
        if mine:
            out.append(f"(cd {where} && sbatch --array={_index_ranges(mine)} {name})")
    return out


def rerun_advice(results: list[TaskResult], folder: str | Path | None = None, n_tasks: int | None = None) -> str:
    """How to get the unscored tasks solved. The job scripts skip every task whose solution file is not
    empty, so resubmitting alone never replaces an unusable (truncated, foreign) one: it must go first.
    With ``folder``, the sbatch lines that submit only the unscored tasks, and the local runner."""
    again = "run the missing tasks again (resubmit; solved tasks are skipped)"
    foreign = [r.task for r in results if r.foreign]
    if foreign:  # solving them again would solve the other grid's models
        return (f"task folder(s) {_listed(foreign)} hold another grid's files: copy this grid's own tasks back (or "
                "make the grid again with olctc grid), then collect again")
    notes = []
    if short := [r.task for r in results if r.short]:
        notes.append(f"task(s) {_listed(short)} ended with no solution within the grid's --time-limit (see their "
                     "solve.log): solved again the same way they end the same; make the grid again with a longer "
                     "--time-limit (or another --solver)")
    if any(r.unscorable for r in results):
        notes.append(unscorable_advice(results))
    # not solved again: that would replace the finished .part
    if renamed := [(r.task, r.unrenamed) for r in results if r.unrenamed is not None]:
        shown = "; ".join(f"mv {shell_path(part)} {shell_path(sol)}" for _, (part, sol) in renamed[:10])
        notes.append(f"rename the finished solution file(s) of task(s) {_listed([t for t, _ in renamed])} ({shown}"
                     f"{'; ...' if len(renamed) > 10 else ''}), then collect again: no solve needed")
    todo = [r.task for r in results if r.score is None and not (r.unscorable or r.short or r.unrenamed)]
    if not todo:
        return "; ".join(notes)
    also = "".join(f"; {n}" for n in notes)
    if running := [r.task for r in results if r.running]:  # resubmitted now, they would be solved twice
        again = f"task(s) {_listed(running)} may still be running: wait for them to end, then {again}"
    elif any(r.problem == _NOT_RUN for r in results):
        again = (f"if the grid's jobs are still queued or running, wait for them (resubmitted, a task is solved "
                 f"twice); {again}")
    if folder is not None:
        cmds = resubmit_commands(folder, todo, n_tasks if n_tasks is not None else len(results))
        if sum(c.count(",") + 1 for c in cmds) <= 50:  # a short --array list; else resubmitting is simpler
            local = shell_path(os.path.join(os.fspath(folder), "run_local.sh"))
            again += f"; only these: {'; '.join(cmds)}, or {local} without Slurm"
    broken = [r.unusable for r in results if r.unusable is not None]
    if not broken:
        return again + also
    if len(broken) > 10:
        rm = f"delete the {len(broken)} unusable solution files of the tasks listed above"
    else:
        rm = "rm " + " ".join(shell_path(f) for f in broken)
    return (f"delete the unusable solution file(s) first ({rm}: resubmitting skips every task that has a "
            f"solution file), then {again}{also}")


def unscorable_advice(results: list[TaskResult]) -> str:
    """What to do about tasks whose tree decoded but whose fold the scoring cannot score."""
    ids = [r.task for r in results if r.unscorable]
    return (f"task(s) {_listed(ids)} are solved, but the scoring is undefined on their validation folds (solving them "
            "again changes nothing): collect again with another --scoring")
