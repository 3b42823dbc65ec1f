"""Cross-validation grids as independent MILP files: one instance per (fold, C combination), a Slurm job
array to solve them anywhere, and ``collect`` to decode, score, pick C and fit the final tree.

Layout of a grid folder ``DIR``::

    DIR/grid.json        everything collect needs: data source + sha256, split rows, folds, spec, C grid
    DIR/jobs.tsv         task id, fold, C per layer, model, solution, command, gurobi_command
    DIR/submit.sh        submits every job array of the grid, from any folder: ``bash DIR/submit.sh``
    DIR/submit.slurm     the job array (submit from DIR: ``cd DIR && sbatch submit.slurm``; Slurm opens
                         its logs/ relative to the folder sbatch runs in); submit-1000.slurm, ... beyond
                         1000 tasks
    DIR/run_local.sh     the same tasks one after the other, without Slurm
    DIR/tasks/NNNN/      model.mps, its manifest, parameter and start files, solution, solve.log

Protocol (the paper's): a stratified test part is split off (``test_size``, seed ``seed``), the training
part is cut into ``folds`` stratified folds; each task trains on all folds but one and is scored by
balanced accuracy on the held-out fold (or another of ``SCORINGS``: ``collect(scoring=)``). The C grid is
the product of ``C_values`` over the layers. Choice of C: the highest mean validation score among the
combinations with every fold scored; ties (within 1e-12) go to the smaller sum of C (the stronger
regularisation), then to the lexicographically smaller C tuple (root first).
"""
from __future__ import annotations

import contextlib
import itertools
import json
import math
import os
import re
import shlex
import shutil
import sys
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from olctc.emit.params import format_value
from olctc.errors import MISSING, OlctcError, TimeLimitTooShort, brief, is_integer, is_real, number_text, param_error
from olctc.io import (check_interrupt, check_lookup, is_temporary_name, remove_tree, staged_errors,
                      temporary_name)

GRID_FORMAT = "olctc-grid"
GRID_VERSION = 1
JOBS_COLUMNS = ("task", "fold", "C", "model", "solution", "command", "gurobi_command")
#: --solver value -> the `olctc solve` solver it runs ("gurobi-cli" runs gurobi_cl directly).
GRID_SOLVERS = {"cbc-cli": "cbc-cli", "highs-cli": "highs-cli", "glpk-cli": "glpk-cli",
                "gurobi-cli": None, "olctc": "highs", "highs": "highs", "cbc": "cbc", "scip": "scip"}
#: The --solver values that solve a MIQP (the margot presets); the others solve MILPs only.
MIQP_SOLVERS = ("scip", "gurobi-cli")
#: Tasks per job array: Slurm refuses array indices >= MaxArraySize (1001 by default); a larger grid gets
#: one submit script per ARRAY_CHUNK tasks. Its log names rely on it being 1000 (see slurm_script).
ARRAY_CHUNK = 1000
#: The shell loop that submits every job array of a grid (run in its folder).
SUBMIT_ALL = 'for s in submit*.slurm; do sbatch "$s"; done'
#: More tasks than this get a note before grid writes them.
LARGE_GRID_TASKS = 1000
SLURM_MARGIN_S = 300  # job time = solver time limit + this margin (decoding is done later by collect)
TIE_TOL = 1e-12

#: collect's validation scores, by scikit-learn's scorer names (each greater is better, hence the negated
#: losses): the name, and how the CV table's header calls it.
SCORINGS = {"balanced_accuracy": ("balanced accuracy", "bal.acc"), "accuracy": ("accuracy", "acc"),
            "roc_auc": ("ROC AUC", "roc_auc"), "neg_log_loss": ("negative log loss", "-log_loss"),
            "neg_brier_score": ("negative Brier score", "-brier")}


# ------------------------------------------------------------------------------------------ building

def parse_C_values(text: str | Sequence[float]) -> list[float]:
    """``"0.01,0.1,1"`` -> [0.01, 0.1, 1.0]; every value finite and > 0, no repeats."""
    if isinstance(text, str):
        try:
            # every item a number: '1,,2' was read as 1,2 where --C, --fixed-C and --C-grid refuse it
            vals = [number_text(s) for s in text.split(",")] if text.strip() else []
        except ValueError:
            raise param_error("C_values", "numbers separated by commas such as '0.1,1,10'", text) from None
    else:
        vals = [float(v) for v in text]
    if not vals:
        raise param_error("C_values", "at least one value", text)
    if any(not (v > 0) or math.isinf(v) for v in vals):
        raise param_error("C_values", "finite and > 0", text)
    from olctc.spec import check_cost

    check_cost("C_values", vals, text, " for every value")
    if len(set(vals)) != len(vals):
        raise param_error("C_values", "distinct values", text)
    return vals


def C_grid(C_values: Sequence[float], depth: int) -> list[tuple[float, ...]]:
    """One C per layer from ``C_values``: the product over the ``depth`` layers (root first)."""
    return [tuple(c) for c in itertools.product([float(v) for v in C_values], repeat=depth)]


def make_folds(y: np.ndarray, train_rows: np.ndarray, folds: int, seed: int) -> list[dict[str, list[int]]]:
    """Stratified folds of ``train_rows`` (source row indices): [{"train": rows, "val": rows}, ...]."""
    from sklearn.model_selection import StratifiedKFold

    if isinstance(folds, bool) or not isinstance(folds, int) or folds < 2:
        raise param_error("folds", "an integer >= 2", folds)
    yt = y[train_rows]
    smallest = int(min((yt > 0).sum(), (yt < 0).sum()))
    if smallest < folds:
        raise OlctcError(f"cannot make {folds} stratified folds: the training part has only {smallest} "
                         f"point(s) of one class; use --folds {max(2, smallest)} or more data")
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    out = []
    for tr, va in skf.split(np.zeros(len(train_rows)), yt):
        out.append({"train": [int(r) for r in np.sort(train_rows[tr])],
                    "val": [int(r) for r in np.sort(train_rows[va])]})
    return out


@dataclass
class SlurmOptions:
    """Resources of the job array."""

    cpus_per_task: int = 1
    mem: str = "4G"
    partition: str | None = None
    account: str | None = None
    job_name: str | None = None  # None: olctc-<grid folder name>, so that two grids differ in squeue
    margin_s: int = SLURM_MARGIN_S


_SLURM_MEM = re.compile(r"[0-9]+[KMGTkmgt]?")
# Slurm's own names (partitions, accounts) are letters, digits, '_', '-' and '.'; sbatch takes a comma-separated
# list of partitions. Anything else ('a;b', a quote) passes grid and fails every submission on the cluster.
_SLURM_NAME = r"[A-Za-z0-9_.-]+"
_SLURM_NAMES = {"partition": (re.compile(rf"{_SLURM_NAME}(,{_SLURM_NAME})*"),
                              "a Slurm partition name (letters, digits, '_', '-', '.'), or several with commas "
                              "between them"),
                "account": (re.compile(_SLURM_NAME), "a Slurm account name (letters, digits, '_', '-', '.')")}


def check_slurm_options(opts: SlurmOptions) -> None:
    """OlctcError unless the values make valid ``#SBATCH`` lines: a newline would end the directive and
    run the rest as a command of the job; a space or an empty value makes sbatch refuse the script, and a
    partition Slurm cannot hold ('a;b') fails every submission."""
    if not _SLURM_MEM.fullmatch(opts.mem or ""):
        raise param_error("mem", "a Slurm memory size such as '4G', '500M' or '4000' (megabytes)", opts.mem)
    for name, (pattern, expected) in _SLURM_NAMES.items():
        v = getattr(opts, name)
        if v is not None and not pattern.fullmatch(v):
            raise param_error(name, expected, v)


@dataclass
class Grid:
    """What ``make_grid`` wrote."""

    folder: Path
    info: dict[str, Any]
    tasks: list[dict[str, Any]] = field(default_factory=list)


def _solve_command(solver: str, model: str, solution: str, log: str, time_limit: float,
                   threads: int | None, olctc_cmd: str) -> str:
    """A shell line that solves ``model`` into ``solution`` atomically (``.part`` then ``mv``)."""
    part = solution + ".part"
    if solver == "gurobi-cli":
        return _gurobi_command(model, solution, log, time_limit, threads)
    threads_opt = f" --threads {int(threads)}" if threads else ""
    return (f"{olctc_cmd} solve {shlex.quote(model)} --solver {GRID_SOLVERS[solver]} "
            f"--time-limit {format_value(float(time_limit))}"
            f"{threads_opt} -o {shlex.quote(part)} > {shlex.quote(log)} 2>&1 && mv {shlex.quote(part)} "
            f"{shlex.quote(solution)}")


def _gurobi_command(model: str, solution: str, log: str, time_limit: float, threads: int | None) -> str:
    from olctc.emit.start import start_filename

    stem = model[: -len(".mps")]
    name = Path(stem).name
    folder = str(Path(model).parent)
    prm = f"{folder}/{name}.gurobi.prm"
    mst = f"{folder}/{start_filename(name, 'gurobi')}"
    part = solution + ".part.sol"  # gurobi_cl picks the format from the suffix
    threads_opt = f" Threads={int(threads)}" if threads else ""
    # gurobi_cl has no ParamFile: an unknown parameter to it. A .prm goes in through its InputFile (repeatable).
    return (f"gurobi_cl InputFile={shlex.quote(prm)} TimeLimit={format_value(float(time_limit))}{threads_opt} "
            f"ResultFile={shlex.quote(part)} InputFile={shlex.quote(mst)} {shlex.quote(model)} "
            f"> {shlex.quote(log)} 2>&1 && mv {shlex.quote(part)} {shlex.quote(solution)}")


def make_grid(ds, spec, out: str | Path, *, C_values: Sequence[float], folds: int = 4, seed: int = 0,
              test_size: float = 0.2, solver: str = "olctc", time_limit: float = 600.0,
              threads: int | None = None, slurm: SlurmOptions | None = None, olctc_cmd: str = "olctc",
              echo: Callable[[str], None] | None = None, max_nonzeros: int | None = None) -> Grid:
    """Compile every (fold, C combination) instance of a CV grid into ``out`` with jobs.tsv and scripts.

    The grid is built in a temporary folder and moved to ``out`` once whole: a grid that fails or is
    interrupted leaves ``out`` as it was (not created, or still empty).

    Parameters
    ----------
    ds : the whole Dataset (its ``source`` and ``sha256`` are recorded so collect can reload it).
    spec : TreeSpec; its C is replaced by each combination of the grid.
    out : grid folder: new (missing parent folders are created too) or empty.
    C_values : the values each layer's C takes.
    solver : a key of GRID_SOLVERS: olctc (in-process HiGHS through `olctc solve`), highs, cbc or scip
        (`olctc solve` in process), highs-cli, cbc-cli, glpk-cli (those programs) or gurobi-cli; a MIQP
        preset needs one of MIQP_SOLVERS. CBC proves false optima on these models (docs/BENCHMARKS.md):
        its fold scores are a feasible tree's.
    max_nonzeros : refuse the grid, before writing anything, if the final model (all training points,
        the largest of the grid) would exceed this many nonzeros; kept for collect's final fit.
    """
    from olctc.compile import check_size
    from olctc.fit import split

    if solver not in GRID_SOLVERS:
        raise param_error("solver", f"one of {', '.join(GRID_SOLVERS)}", solver)
    if spec.info.quadratic and solver not in MIQP_SOLVERS:
        raise OlctcError(f"preset {spec.preset} is a MIQP (quadratic objective): use --solver "
                         f"{' or '.join(MIQP_SOLVERS)}")
    if not (time_limit > 0) or math.isinf(time_limit):
        raise param_error("time_limit", "a finite number of seconds > 0", time_limit)
    if not ds.source:
        raise OlctcError("the data has no source to reload it from; grids need a CSV file or --dataset")
    slurm = slurm or SlurmOptions()
    check_slurm_options(slurm)
    if not os.fspath(out).strip():  # Path("") is the current folder: an unset variable in a script
        raise param_error("output", "a folder path (-o DIR)", os.fspath(out))
    out = Path(out)
    check_grid_folder(out)
    if slurm.job_name is None:
        # Slurm takes any text, but a space ends an #SBATCH line's value: ASCII word characters only
        name = re.sub(r"[^A-Za-z0-9_.-]", "_", out.resolve().name)[:40] or "grid"
        slurm = replace(slurm, job_name=f"olctc-{name}")
    values = parse_C_values(C_values)
    Cs = C_grid(values, spec.depth)
    if echo is not None and len(Cs) * folds > LARGE_GRID_TASKS:
        # the product over the layers grows fast (30 values at depth 2: 1800 tasks, 700 MB, a minute to write)
        echo(f"note: {len(Cs) * folds} tasks: {len(values)} C values per layer over "
             f"{spec.depth} layer(s) make {len(Cs)} combinations, times {folds} folds; each task is a model "
             "file to write and a solve to run (fewer --C-values make fewer)")
    train, test = split(ds, test_size, seed)
    check_size(len(train), ds.p, spec, max_nonzeros)
    fold_rows = make_folds(ds.y, train, folds, seed)
    with _staged_folder(out) as tmp:
        tasks = _write_tasks(tmp, ds, spec, Cs, fold_rows, solver=solver, time_limit=time_limit,
                             threads=threads, olctc_cmd=olctc_cmd, echo=echo, max_nonzeros=max_nonzeros)
        info = {
            "format": GRID_FORMAT, "version": GRID_VERSION,
            "data": {**ds.source_info(), "n": ds.n, "p": ds.p},
            "seed": seed, "test_size": test_size,
            "train_rows": [int(r) for r in train], "test_rows": [int(r) for r in test],
            "folds": fold_rows, "spec": spec.to_json(), "C_values": [float(v) for v in values],
            "C_grid": [list(C) for C in Cs], "solver": solver, "time_limit": time_limit, "threads": threads,
            "max_nonzeros": max_nonzeros,
            "tasks": [{k: t[k] for k in ("task", "fold", "C", "model", "solution")} for t in tasks],
        }
        _write_grid_files(tmp, info, tasks, slurm)
    return Grid(out, info, tasks)


def check_grid_folder(out: Path) -> None:
    """OlctcError unless a grid can be built in ``out``: a new folder under a writable one, or an empty
    writable folder. Checked before the (long) build."""
    check_lookup(out)  # else every stat below fails with a traceback
    if (out / "grid.json").exists() or (out / "jobs.tsv").exists():
        raise OlctcError(f"{out} already holds a grid; choose a new folder (or delete it)")
    if (out.exists() or out.is_symlink()) and not out.is_dir():
        raise OlctcError(f"{out} exists and is not a folder")
    if out.is_dir():
        # A grid writes run_local.sh, submit.slurm and tasks/NNNN/* over whatever has those names: only a
        # new or empty folder. Temporary files of an olctc killed outright (SIGKILL) are no reason to refuse.
        foreign = sorted(p.name for p in out.iterdir() if not is_temporary_name(p.name))
        if foreign:
            raise OlctcError(f"{out} is not empty and holds no grid ({', '.join(foreign[:3])}"
                             f"{', ...' if len(foreign) > 3 else ''}): give a new or empty folder")
    anchor = _existing_ancestor(out)
    if not anchor.is_dir():
        raise OlctcError(f"cannot write {out}: folder {anchor} is not a folder")
    if not os.access(anchor, os.W_OK | os.X_OK):
        raise OlctcError(f"cannot write {out}: folder {anchor} is not writable")


def _existing_ancestor(path: Path) -> Path:
    """``path`` itself if it exists, else its nearest parent that does (possibly not a folder)."""
    return next((p for p in (path, *path.parents) if p.exists() or p.is_symlink()), Path("."))


@contextlib.contextmanager
def _staged_folder(out: Path) -> Iterator[Path]:
    """A temporary folder to build the grid in, moved to ``out`` when the block succeeds and removed on
    any exception (KeyboardInterrupt included): a failed or interrupted grid leaves ``out`` as it was.

    It is made inside ``out`` when that is an existing (empty) folder, else beside ``out`` in its nearest
    existing parent: the same file system either way, so moving it into place is a rename. An existing
    ``out`` is kept, not replaced: its owner, mode and being someone's current folder stay as they were.
    """
    existing = out.is_dir()
    anchor = out if existing else _existing_ancestor(out)
    missing = [] if existing else [p for p in (out.parent, *out.parent.parents) if not p.exists()]
    tmp: Path | None = None
    try:
        for _ in range(100):
            # The name is set before the folder exists: an interrupt right after mkdir still removes it.
            tmp = anchor / temporary_name(out.name or "grid")
            try:
                tmp.mkdir()
                break
            except FileExistsError:  # another process's folder: never ours to remove
                tmp = None
            except OSError as exc:
                tmp = None
                raise OlctcError(f"cannot write {out}: {exc.strerror or exc}") from None
        else:
            raise OlctcError(f"cannot write {out}: no free temporary name in {anchor}")
        with staged_errors(out, tmp):
            yield tmp
            check_interrupt()
            if existing:
                _move_entries(tmp, out)
            else:
                for p in reversed(missing):
                    p.mkdir(exist_ok=True)
                os.rename(tmp, out)
    except BaseException:
        if tmp is not None:
            remove_tree(tmp)
        for p in missing:  # deepest first; only the empty ones, which this call made
            with contextlib.suppress(OSError):
                p.rmdir()
        raise


def _move_entries(src: Path, dst: Path) -> None:
    """Move what ``src`` holds into the empty folder ``dst`` (grid.json last: it makes ``dst`` a grid),
    then remove ``src``; on failure move back what was moved."""
    names = sorted((p.name for p in src.iterdir()), key=lambda n: n == "grid.json")
    moved: list[str] = []
    try:
        for name in names:
            if (dst / name).exists():  # os.rename would replace it: written there during the build
                raise OlctcError(f"cannot write {dst / name}: it appeared while the grid was built")
            os.rename(src / name, dst / name)
            moved.append(name)
    except BaseException:
        for name in moved:
            with contextlib.suppress(OSError):
                os.rename(dst / name, src / name)
        raise
    src.rmdir()


def _write_tasks(folder: Path, ds, spec, Cs: list[tuple[float, ...]], fold_rows: list[dict[str, list[int]]], *,
                 solver: str, time_limit: float, threads: int | None, olctc_cmd: str,
                 echo: Callable[[str], None] | None, max_nonzeros: int | None) -> list[dict[str, Any]]:
    """Compile every (fold, C) task into ``folder``/tasks/NNNN; the rows of jobs.tsv, paths relative to
    ``folder`` (the jobs run from the grid folder, wherever it is moved)."""

    from olctc.compile import compile_problem
    from olctc.pipeline import write_compiled

    (folder / "tasks").mkdir()
    (folder / "logs").mkdir()
    tasks: list[dict[str, Any]] = []
    for f, fr in enumerate(fold_rows):
        rows = np.asarray(fr["train"], dtype=np.int64)
        sub = ds.subset(rows)
        for C in Cs:
            tid = len(tasks)
            task_folder = f"tasks/{tid:04d}"
            model = f"{task_folder}/model.mps"
            sol = f"{task_folder}/model.{(GRID_SOLVERS[solver] or solver).replace('-cli', '')}.sol"
            log = f"{task_folder}/solve.log"
            comp = compile_problem(sub, replace(spec, C=C), f"task{tid:04d}", rows=rows,
                                   max_nonzeros=max_nonzeros)
            (folder / task_folder).mkdir()
            write_compiled(comp, folder / model)
            cmd = _solve_command(solver, model, sol, log, time_limit, threads, olctc_cmd)
            gcmd = _gurobi_command(model, f"{task_folder}/model.gurobi.sol", log, time_limit, threads)
            tasks.append({"task": tid, "fold": f, "C": list(C), "model": model, "solution": sol,
                          "command": cmd, "gurobi_command": gcmd})
            if echo:
                echo(f"  task {tid:04d}: fold {f}, C {c_text(C)} ({comp.milp.n_rows:,} rows, "
                     f"{comp.milp.n_cols:,} columns)")
    return tasks


def _write_grid_files(folder: Path, info: dict[str, Any], tasks: list[dict[str, Any]],
                      slurm: SlurmOptions) -> None:
    """grid.json, jobs.tsv and the two scripts (which ``cd`` to the grid folder: no path inside)."""
    from olctc.io import atomic_write_text

    atomic_write_text(folder / "grid.json", json.dumps(info, indent=1) + "\n")
    atomic_write_text(folder / "jobs.tsv", _jobs_text(tasks))
    scripts = submit_scripts(len(tasks))
    for name, first, _ in scripts:
        atomic_write_text(folder / name, slurm_script(len(tasks), info["time_limit"], slurm, first))
    atomic_write_text(folder / "run_local.sh", local_script())
    atomic_write_text(folder / "submit.sh", submit_all_script(len(scripts)))
    for name in [s[0] for s in scripts] + ["run_local.sh", "submit.sh"]:
        os.chmod(folder / name, 0o755)


def c_text(C: Sequence[float]) -> str:
    """C values exactly, as read back (``0.01,10``): ``{:g}`` cut 0.123456789 to 0.123457, and collect then
    refused the grid's own jobs.tsv (its C no longer matched grid.json's). Time limits go on the command
    lines by the same ``format_value`` (``{:g}`` wrote 1234567 as 1.23457e+06)."""
    return ",".join(format_value(float(c)) for c in C)


def _jobs_text(tasks: list[dict[str, Any]]) -> str:
    lines = ["\t".join(JOBS_COLUMNS)]
    for t in tasks:
        for k in ("command", "gurobi_command"):
            if "\t" in t[k] or "\n" in t[k]:
                raise OlctcError(f"task {t['task']}: a path contains a tab or newline; use plain folder names")
        lines.append("\t".join([str(t["task"]), str(t["fold"]), c_text(t["C"]), t["model"], t["solution"],
                                t["command"], t["gurobi_command"]]))
    return "\n".join(lines) + "\n"


def _slurm_time(seconds: float) -> str:
    s = int(math.ceil(seconds))
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{d}-{h:02d}:{m:02d}:{s:02d}" if d else f"{h:02d}:{m:02d}:{s:02d}"


# The task runner shared by submit.slurm and run_local.sh: run line $1 of jobs.tsv unless solved.
_RUN_TASK = r'''run_task() {
    local id="$1" col="${OLCTC_COMMAND_COLUMN:-command}" line sol cmd
    task_dir=""  # not local: run_local.sh names the failed task's folder with it
    # a jobs.tsv saved with Windows line ends keeps working: the \r would end the last column's mv target
    line=$(awk -F'\t' -v id="$id" 'NR > 1 { sub(/\r$/, "") } NR > 1 && $1 == id' jobs.tsv)
    if [ -z "$line" ]; then echo "task $id: not in jobs.tsv" >&2; return 2; fi
    sol=$(printf '%s\n' "$line" | cut -f5)
    task_dir="${sol%/*}"
    if [ "$col" = gurobi_command ]; then
        cmd=$(printf '%s\n' "$line" | cut -f7); sol="${sol%/*}/model.gurobi.sol"
    else
        cmd=$(printf '%s\n' "$line" | cut -f6)
    fi
    if [ -s "$sol" ]; then echo "task $id: $sol exists, skipped"; return 0; fi
    echo "task $id: $cmd"
    bash -c "$cmd"
}
'''


def submit_script_name(first: int) -> str:
    """The job array script whose array index 0 is task ``first``: submit.slurm, submit-1000.slurm, ..."""
    return "submit.slurm" if first == 0 else f"submit-{first}.slurm"


def submit_scripts(n_tasks: int) -> list[tuple[str, int, int]]:
    """(script name, first task, number of tasks) of each job array of a grid of ``n_tasks`` tasks: one
    array up to ARRAY_CHUNK tasks, then one more per ARRAY_CHUNK (Slurm refuses an array index at or above
    its MaxArraySize, 1001 by default: "Invalid job array specification")."""
    return [(submit_script_name(a), a, min(ARRAY_CHUNK, n_tasks - a)) for a in range(0, n_tasks, ARRAY_CHUNK)]


def slurm_script(n_tasks: int, time_limit: float, opts: SlurmOptions, first: int = 0) -> str:
    """The job array of tasks ``first`` .. ``first`` + ARRAY_CHUNK - 1 of the grid's ``n_tasks`` (all when
    ``first`` is 0 and there are at most ARRAY_CHUNK): array index k runs task ``first`` + k of jobs.tsv
    (submit from the grid folder)."""
    count = min(ARRAY_CHUNK, n_tasks - first)
    # Its log is logs/task-ID.out with ID the task, not the array index: "1%3a" makes 1000 + a of index a.
    log = "logs/task-%a.out" if first == 0 else f"logs/task-{first // ARRAY_CHUNK}%3a.out"
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={opts.job_name}",
             f"#SBATCH --array=0-{count - 1}",
             f"#SBATCH --cpus-per-task={opts.cpus_per_task}",
             f"#SBATCH --mem={opts.mem}",
             f"#SBATCH --time={_slurm_time(time_limit + opts.margin_s)}",
             f"#SBATCH --output={log}"]
    if opts.partition:
        lines.append(f"#SBATCH --partition={opts.partition}")
    if opts.account:
        lines.append(f"#SBATCH --account={opts.account}")
    me = submit_script_name(first)
    lines += [f"# olctc grid: submit from the grid folder (cd DIR && sbatch {me}), or every array from anywhere "
              "with bash DIR/submit.sh."]
    if n_tasks > ARRAY_CHUNK:
        lines += [f"# Array index k runs task {first} + k: tasks {first}-{first + count - 1} of {n_tasks}. A Slurm "
                  f"job array holds at most {ARRAY_CHUNK} tasks here",
                  "# (MaxArraySize is 1001 by default): submit every script, bash DIR/submit.sh"]
    lines += ["# Safe to resubmit: tasks whose solution exists are skipped; "
              f"sbatch --array=3,7 {me} runs only those indices.",
              f"# OLCTC_COMMAND_COLUMN=gurobi_command sbatch {me} runs gurobi_cl instead.",
              "set -u",
              'cd "${SLURM_SUBMIT_DIR:-.}"',
              '[ -f jobs.tsv ] || { echo "jobs.tsv not found in $(pwd): submit from the grid folder" >&2; exit 2; }',
              _RUN_TASK]
    index = "${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}"
    lines += [f'run_task "{index}"' if first == 0 else f'run_task "$(( {first} + {index} ))"', ""]
    return "\n".join(lines)


def submit_all_script(n_arrays: int) -> str:
    """Submit every job array of the grid from its own folder, wherever it is called from: ``sbatch
    DIR/submit.slurm`` from elsewhere fails with no log at all (Slurm opens the relative logs/ path in the
    folder sbatch runs in, before the script can cd)."""
    return "\n".join([
        "#!/bin/bash",
        "# olctc grid: submits every job array of this grid to Slurm, from any folder: bash DIR/submit.sh",
        f"# ({n_arrays} job array(s): {', '.join(submit_script_name(ARRAY_CHUNK * k) for k in range(n_arrays))}). "
        "Options are passed to each sbatch",
        "# (bash DIR/submit.sh --partition=short); OLCTC_COMMAND_COLUMN=gurobi_command bash DIR/submit.sh runs "
        "gurobi_cl instead. Safe to run again: tasks whose solution exists are skipped.",
        "set -eu",
        'cd "$(dirname "$0")"',
        'for s in submit*.slurm; do sbatch "$@" "$s"; done', ""])


def local_script() -> str:
    """Run every task of jobs.tsv in turn, without Slurm (skips solved tasks)."""
    return "\n".join([
        "#!/bin/bash",
        "# olctc grid without Slurm: runs every task of jobs.tsv in turn (solved tasks are skipped).",
        "set -u",
        'cd "$(dirname "$0")"',
        _RUN_TASK,
        # Ctrl-C stops the run, not just the task at hand: olctc exits 130 when interrupted, and bash then goes
        # on with the next command, so without this each of N tasks needed its own Ctrl-C.
        "trap 'echo \"interrupted: run $0 again to go on (solved tasks are skipped)\" >&2; exit 130' INT",
        "status=0",
        "for id in $(awk -F'\\t' 'NR > 1 {print $1}' jobs.tsv); do",
        '    run_task "$id"; rc=$?',
        '    if [ "$rc" -eq 130 ]; then echo "task $id: interrupted; run $0 again to go on" >&2; exit 130; fi',
        '    if [ "$rc" -ne 0 ]; then echo "task $id failed (see ${task_dir:-its folder}/solve.log)" >&2; status=1; fi',
        "done",
        'exit "$status"', ""])


def sbatch_available() -> bool:
    """True when ``sbatch`` is on PATH."""
    return shutil.which("sbatch") is not None


# ------------------------------------------------------------------------------------------ reading

def read_grid(folder: str | Path) -> dict[str, Any]:
    """grid.json of ``folder``, checked, with its tasks checked against jobs.tsv."""
    folder = Path(folder)
    if not folder.is_dir():
        raise OlctcError(f"{folder}: not a folder")
    path = folder / "grid.json"
    if not path.exists():
        raise OlctcError(f"{folder} is not an olctc grid folder (no grid.json); create one with `olctc grid`")
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise OlctcError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(info, dict) or info.get("format") != GRID_FORMAT:
        raise OlctcError(f"{path}: not an olctc grid file (format is not {GRID_FORMAT!r})")
    if info.get("version") != GRID_VERSION:
        raise OlctcError(f"{path}: grid version {info.get('version')!r}; this olctc reads version {GRID_VERSION}")
    for key in ("data", "train_rows", "test_rows", "folds", "spec", "C_grid", "tasks"):
        if key not in info:
            raise OlctcError(f"{path}: the key {key!r} is missing; the file is damaged")
    check_grid_info(path, info)
    check_jobs(folder, info)
    return info


def check_grid_info(path: Path, info: dict[str, Any]) -> None:
    """OlctcError naming ``path`` and the field unless grid.json has the types and ranges collect relies on
    (an edited file otherwise fails later with a traceback, or scores on the wrong rows)."""
    from olctc.emit.params import MAX_TIME_LIMIT
    from olctc.spec import TreeSpec

    def bad(field: str, expected: str, got: Any = None, show: bool = True) -> OlctcError:
        g = f", got {brief(got)}" if show else ""
        return OlctcError(f"{path}: field {field!r} must be {expected}{g}; the file is damaged (edited?)")

    data = info["data"]
    if not isinstance(data, dict):
        raise bad("data", "an object", data)
    for k in ("source", "sha256"):
        if not isinstance(data.get(k, MISSING), str):
            raise bad(f"data.{k}", "a string", data.get(k, MISSING))
    n = data.get("n", MISSING)
    if not is_integer(n) or n < 1:
        raise bad("data.n", "the number of rows of the data (an integer >= 1)", n)
    dropped = data.get("dropped", [])
    if not (isinstance(dropped, list) and all(isinstance(c, str) for c in dropped)):
        raise bad("data.dropped", "a list of column names", dropped)

    def rows(field: str, v: Any) -> set[int]:
        if not isinstance(v, list):
            raise bad(field, f"a list of row numbers from 0 to {n - 1}", v)
        wrong = next((r for r in v if not (is_integer(r) and 0 <= r < n)), None)
        if wrong is not None:
            raise OlctcError(f"{path}: field {field!r} holds {brief(wrong)}, not a row number from 0 to {n - 1} "
                             "of the data; the file is damaged (edited?)")
        if len(set(v)) != len(v):
            raise bad(field, "a list of distinct row numbers", show=False)
        return set(v)

    train = rows("train_rows", info["train_rows"])
    if not train:
        raise bad("train_rows", "a non-empty list of row numbers", info["train_rows"])
    if train & rows("test_rows", info["test_rows"]):
        raise bad("test_rows", "rows outside train_rows", sorted(train & set(info["test_rows"]))[:5])
    folds = info["folds"]
    if not isinstance(folds, list) or len(folds) < 2:
        raise bad("folds", "a list of at least 2 folds", folds)
    for i, f in enumerate(folds):
        if not isinstance(f, dict):
            raise bad(f"folds[{i}]", "an object with 'train' and 'val' rows", f)
        fit_rows, val_rows = rows(f"folds[{i}].train", f.get("train", MISSING)), rows(f"folds[{i}].val", f.get("val", MISSING))
        if not val_rows or not fit_rows or not (fit_rows | val_rows) <= train or fit_rows & val_rows:
            raise bad(f"folds[{i}]", "disjoint non-empty 'train' and 'val' parts of train_rows", show=False)
    if not isinstance(info["spec"], dict):
        raise bad("spec", "an object (the tree specification)", info["spec"])
    try:
        depth = TreeSpec.from_json(info["spec"]).depth
    except OlctcError as exc:
        raise OlctcError(f"{path}: field 'spec' is not a valid tree specification: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise OlctcError(f"{path}: field 'spec' is not a valid tree specification "
                         f"({type(exc).__name__}: {exc}); the file is damaged (edited?)") from None
    grid = info["C_grid"]
    if not isinstance(grid, list) or not grid or not all(
            isinstance(C, list) and len(C) == depth and all(is_real(c) and 0 < c < math.inf for c in C)
            for C in grid):
        raise bad("C_grid", f"a non-empty list of C combinations, each {depth} positive number(s)", grid)
    combos = {tuple(float(c) for c in C) for C in grid}
    tasks = info["tasks"]
    if not isinstance(tasks, list) or not tasks:
        raise bad("tasks", "a non-empty list of tasks", tasks)
    ids: set[int] = set()
    for i, t in enumerate(tasks):
        where = f"tasks[{i}]"
        if not isinstance(t, dict):
            raise bad(where, "an object", t)
        if not is_integer(t.get("task", MISSING)) or t["task"] in ids:
            raise bad(f"{where}.task", "a task number not used by another task", t.get("task", MISSING))
        ids.add(t["task"])
        if not is_integer(t.get("fold", MISSING)) or not 0 <= t["fold"] < len(folds):
            raise bad(f"{where}.fold", f"a fold number from 0 to {len(folds) - 1}", t.get("fold", MISSING))
        C = t.get("C", MISSING)
        if not isinstance(C, list) or not all(is_real(c) for c in C) or tuple(float(c) for c in C) not in combos:
            raise bad(f"{where}.C", "one of the combinations of C_grid", C)
        for k in ("model", "solution"):
            v = t.get(k, MISSING)
            if not isinstance(v, str) or not v or Path(v).is_absolute() or ".." in Path(v).parts:
                raise bad(f"{where}.{k}", "a file path inside the grid folder", v)
    if not is_integer(info.get("seed", MISSING)):
        raise bad("seed", "an integer", info.get("seed", MISSING))
    tl = info.get("time_limit")
    if tl is not None and not (is_real(tl) and 0 < tl <= MAX_TIME_LIMIT):
        raise bad("time_limit", "a positive number of seconds (or null)", tl)
    mnz = info.get("max_nonzeros")
    if mnz is not None and not (is_integer(mnz) and mnz >= 1):
        raise bad("max_nonzeros", "an integer >= 1 (or null)", mnz)
    if "solver" in info and not (isinstance(info["solver"], str) and info["solver"] in GRID_SOLVERS):
        raise bad("solver", f"one of {', '.join(GRID_SOLVERS)}", info["solver"])


def check_jobs(folder: Path, info: dict[str, Any]) -> None:
    """jobs.tsv must list the tasks of grid.json, one per line, with the same fold, C, model and solution."""
    path = folder / "jobs.tsv"
    if not path.exists():
        raise OlctcError(f"{path}: missing; the grid folder is incomplete")
    lines = path.read_text().splitlines()
    if not lines or tuple(lines[0].split("\t")) != JOBS_COLUMNS:
        raise OlctcError(f"{path} line 1: the header must be {' | '.join(JOBS_COLUMNS)} (tab-separated)")
    tasks = {t["task"]: t for t in info["tasks"]}
    seen: set[int] = set()
    for k, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        where = f"{path} line {k}"
        if len(cells) != len(JOBS_COLUMNS):
            raise OlctcError(f"{where}: {len(cells)} tab-separated fields, expected {len(JOBS_COLUMNS)}")
        try:
            tid = int(cells[0])
        except ValueError:
            raise OlctcError(f"{where}: task id {cells[0]!r} is not a number") from None
        if tid not in tasks:
            raise OlctcError(f"{where}: task {tid} is not in grid.json (tasks 0..{len(tasks) - 1})")
        if tid in seen:
            raise OlctcError(f"{where}: task {tid} is listed twice")
        seen.add(tid)
        t = tasks[tid]
        try:
            C = [float(c) for c in cells[2].split(",")]
        except ValueError:
            C = None
        expected: tuple[Any, ...] = (str(t["fold"]), t["C"], t["model"], t["solution"])
        got: tuple[Any, ...] = (cells[1], C, cells[3], cells[4])
        for name, e, g in zip(("fold", "C", "model", "solution"), expected, got):
            if name == "C":
                if g is None or len(g) != len(e) or any(not math.isclose(a, b) for a, b in zip(e, g)):
                    raise OlctcError(f"{where}: task {tid} has C {cells[2]!r}, grid.json says {c_text(e)}")
            elif e != g:
                raise OlctcError(f"{where}: task {tid} has {name} {g!r}, grid.json says {e!r}")
    missing = sorted(set(tasks) - seen)
    if missing:
        raise OlctcError(f"{path}: task(s) {missing[:10]} of grid.json are not listed")


def load_grid_data(info: dict[str, Any], data_path: str | Path | None = None):
    """The whole source Dataset of a grid, checked against its sha256."""
    from olctc.pipeline import load_source

    return load_source(info["data"], data_path, what="the grid's data", since="`olctc grid`")


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


def _log_tail(path: Path, n: int = 1) -> str:
    try:
        lines = [ln.strip() for ln in path.read_text(errors="replace").splitlines() if ln.strip()]
    except OSError:
        return ""
    return " | ".join(lines[-n:])


def check_scoring(scoring: str) -> str:
    """``scoring`` if it is one of ``SCORINGS``, else an error listing them."""
    if scoring not in SCORINGS:
        raise param_error("scoring", "one of " + ", ".join(SCORINGS), scoring, option="--scoring")
    return scoring


def validation_score(scoring: str, tree, X: np.ndarray, y: np.ndarray, weight: np.ndarray | None) -> float:
    """``tree``'s ``scoring`` (a name of ``SCORINGS``) on rows ``X`` with labels ``y`` in {-1, +1}, each
    point weighted by ``weight`` when given, as scikit-learn's scorer of that name computes it."""
    from sklearn import metrics

    from olctc.fit import balanced_accuracy

    f = tree.decision_function(X)
    if scoring == "balanced_accuracy":
        return balanced_accuracy(y, np.where(f > 0, 1, -1), weight)
    if scoring == "accuracy":
        return float(metrics.accuracy_score(y, np.where(f > 0, 1, -1), sample_weight=weight))
    if scoring == "roc_auc":
        return float(metrics.roc_auc_score(y, f, sample_weight=weight))
    p = tree.predict_proba(X)  # columns -1, +1: the labels' sorted order, as log_loss reads them
    if scoring == "neg_log_loss":
        return -float(metrics.log_loss(y, p, sample_weight=weight, labels=[-1, 1]))
    return -float(metrics.brier_score_loss(y, p[:, 1], sample_weight=weight, pos_label=1))


def score_tasks(folder: str | Path, info: dict[str, Any], ds, *, data_path: str | Path | None = None,
                refine: bool = True, scoring: str = "balanced_accuracy") -> list[TaskResult]:
    """Decode every solution present and score it on its validation fold (``scoring``, balanced accuracy by
    default; its points weighted by the data's weight column, if it has one)."""
    from olctc.decode import decode_file
    from olctc.compile import manifest_path
    from olctc.read import gurobi

    folder = Path(folder)
    out = []
    for t in info["tasks"]:
        r = TaskResult(int(t["task"]), int(t["fold"]), tuple(float(c) for c in t["C"]))
        sol = folder / t["solution"]
        model = folder / t["model"]
        alt = sol.parent / "model.gurobi.sol"  # written by the gurobi_command column instead
        if (not sol.exists() or sol.stat().st_size == 0) and alt.exists():
            sol = alt
        if not sol.exists() or sol.stat().st_size == 0:
            tail = _log_tail(sol.parent / "solve.log")
            r.problem = "missing solution" + (f" (last line of solve.log: {tail})" if tail else " (not run yet?)")
            out.append(r)
            continue
        try:
            tree, report = decode_file(manifest_path(model), sol, data=data_path, refine=refine, source=ds)
        except OlctcError as exc:
            r.problem, r.unusable = f"unusable solution: {exc}", sol
            out.append(r)
            continue
        except Exception as exc:  # a corrupt file must not stop the other tasks
            r.problem, r.unusable = f"unusable solution: {type(exc).__name__}: {exc}", sol
            out.append(r)
            continue
        # A Gurobi .sol file carries no status (the reader's "feasible" only means it holds a solution):
        # calling every such task "not proven optimal" would be wrong for those Gurobi proved. gurobi_cl's
        # log, the task's solve.log, says; without it the status is "unknown".
        no_status = getattr(report, "raw_status", None) == gurobi.NO_STATUS
        r.status = gurobi.log_status(sol.parent / "solve.log") if no_status else getattr(report, "status", None)
        if not report.ok:
            r.warnings.append("the solver's objective differs from the tree's (tolerances)")
        val = np.asarray(info["folds"][r.fold]["val"], dtype=np.int64)
        y, weight = ds.y[val], None if ds.weight is None else ds.weight[val]
        none = f"no {SCORINGS[scoring][0]} on validation fold {r.fold}"
        try:
            with warnings.catch_warnings():  # scikit-learn's UndefinedMetricWarning: the problem below says it
                warnings.simplefilter("ignore")
                score = validation_score(scoring, tree, ds.X[val], y, weight)
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
    best = min(tied, key=lambda r: (sum(r["C"]), tuple(r["C"])))
    return tuple(best["C"])


def collect(folder: str | Path, *, data_path: str | Path | None = None, refine: bool = True,
            scoring: str = "balanced_accuracy") -> Collected:
    """Read a grid folder's solutions, score them by ``scoring`` (one of ``SCORINGS``), build the CV table and
    pick C (no final fit)."""
    check_scoring(scoring)
    info = read_grid(folder)
    ds = load_grid_data(info, data_path)
    if ds.n != info["data"]["n"]:
        raise OlctcError(f"{Path(folder) / 'grid.json'}: field 'data.n' is {info['data']['n']}, but the data "
                         f"has {ds.n} rows; the file is damaged (edited?)")
    results = score_tasks(folder, info, ds, data_path=data_path, refine=refine, scoring=scoring)
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
    unproven = [r for r in col.results if r.score is not None and r.status not in (None, "optimal", "unknown")]
    if unproven:
        # A fold fit stopped at its time limit scores some feasible tree, not the optimal one: the table
        # would otherwise compare C values on unequal terms without a word ("8 of 8 scored").
        ids = ", ".join(f"{r.task:04d}" for r in unproven[:10]) + (", ..." if len(unproven) > 10 else "")
        lines.append(f"note: {len(unproven)} of the scored tasks are not proven optimal (status "
                     f"{'/'.join(sorted({str(r.status) for r in unproven}))}; tasks {ids}): their scores are the "
                     "best trees found, for instance within the time limit (see their solve.log); a longer "
                     "--time-limit may change the choice of C")
    unknown = [r for r in col.results if r.score is not None and r.status == "unknown"]
    if unknown:
        ids = ", ".join(f"{r.task:04d}" for r in unknown[:10]) + (", ..." if len(unknown) > 10 else "")
        lines.append(f"note: {len(unknown)} of the scored tasks come from Gurobi .sol files, which do not say whether "
                     f"the solution is optimal, and their solve.log holds no Gurobi log that does (tasks {ids}); a "
                     "fit stopped at its time limit scores the best tree found")
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
    where = shlex.quote(os.fspath(folder))
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
    todo = [r.task for r in results if r.score is None and not r.unscorable]
    if not todo:
        return unscorable_advice(results)
    also = f"; {unscorable_advice(results)}" if any(r.unscorable for r in results) else ""
    if folder is not None:
        cmds = resubmit_commands(folder, todo, n_tasks if n_tasks is not None else len(results))
        if sum(c.count(",") + 1 for c in cmds) <= 50:  # a short --array list; else resubmitting is simpler
            local = shlex.quote(os.path.join(os.fspath(folder), "run_local.sh"))
            again += f"; only these: {'; '.join(cmds)}, or {local} without Slurm"
    broken = [r.unusable for r in results if r.unusable is not None]
    if not broken:
        return again + also
    if len(broken) > 10:
        rm = f"delete the {len(broken)} unusable solution files of the tasks listed above"
    else:
        rm = "rm " + " ".join(shlex.quote(os.fspath(f)) for f in broken)
    return (f"delete the unusable solution file(s) first ({rm}: resubmitting skips every task that has a "
            f"solution file), then {again}{also}")


def unscorable_advice(results: list[TaskResult]) -> str:
    """What to do about tasks whose tree decoded but whose fold the scoring cannot score."""
    ids = [r.task for r in results if r.unscorable]
    listed = ", ".join(f"{t:04d}" for t in ids[:10]) + (", ..." if len(ids) > 10 else "")
    return (f"task(s) {listed} are solved, but the scoring is undefined on their validation folds (solving them "
            "again changes nothing): collect again with another --scoring")


def final_dataset(info: dict[str, Any], ds):
    """The training part of the grid's data (all folds together)."""
    return ds.subset(np.asarray(info["train_rows"], dtype=np.int64))


def final_spec(info: dict[str, Any], C: Sequence[float], score_variables: bool | None = None):
    """The grid's spec with the chosen C, in the form ``score_variables`` says (None: the grid's)."""

    from olctc.spec import TreeSpec

    spec = replace(TreeSpec.from_json(info["spec"]), C=tuple(float(c) for c in C))
    return spec if score_variables is None else replace(spec, score_variables=bool(score_variables))


@contextlib.contextmanager
def _grid_limit_named(time_limit: float | None) -> Iterator[None]:
    """A final fit's TimeLimitTooShort says, when the limit was the grid's, how collect replaces it."""
    try:
        yield
    except TimeLimitTooShort as exc:
        if time_limit is None:
            raise TimeLimitTooShort(f"{exc} (the final fit takes the grid's --time-limit unless collect is "
                                    "given one: olctc collect FOLDER --time-limit SECONDS)") from None
        raise


def check_final_time_limit(info: dict[str, Any], time_limit: float | None) -> None:
    """Refuse, before collect decodes every task, a final-fit time limit (collect's, else the grid's) that
    ``fit`` would refuse after all that work."""
    from olctc.fit import check_time_limit

    with _grid_limit_named(time_limit):
        check_time_limit(time_limit if time_limit is not None else info.get("time_limit"))


def fit_final(info: dict[str, Any], ds, C: Sequence[float], *, solver: str | None = None,
              time_limit: float | None = None, threads: int | None = None, verbose: bool = False,
              score_variables: bool = True, leave_overrun: bool = False):
    """Fit the final tree in process on the whole training part; returns (FitResult, test balanced accuracy).

    ``score_variables``: the form solved, as ``olctc fit``'s (the score form by default: the same optimum,
    solved better in process; the grid's files keep their own form). ``leave_overrun``: the console
    program's, as ``olctc.fit.fit``'s."""
    from olctc.fit import IN_PROCESS, balanced_accuracy, fit

    spec = final_spec(info, C, score_variables)
    tr = final_dataset(info, ds)
    if solver is None:
        # The grid's own solver when olctc runs it in process too, so the final tree is found by the
        # solver whose fold fits chose C (cbc-cli's twin is cbc); otherwise fit's default for the preset.
        twin = (GRID_SOLVERS.get(info.get("solver", "")) or "").removesuffix("-cli")
        solver = twin if twin in IN_PROCESS else None
    with _grid_limit_named(time_limit):
        res = fit(tr, spec, solver=solver, time_limit=time_limit if time_limit is not None else info.get("time_limit"),
                  threads=threads, test_size=0.0, verbose=verbose, max_nonzeros=info.get("max_nonzeros"),
                  leave_overrun=leave_overrun)
    test_acc = None
    if info["test_rows"]:
        te = ds.subset(np.asarray(info["test_rows"], dtype=np.int64))
        pred = np.where(res.tree.decision_function(te.X) > 0, 1, -1)
        test_acc = balanced_accuracy(te.y, pred)
        res.tree.meta.setdefault("fit", {})["test_balanced_accuracy"] = test_acc
        if te.weight is not None:
            res.tree.meta["fit"]["test_balanced_accuracy_weighted"] = balanced_accuracy(te.y, pred, te.weight)
    res.tree.meta["grid"] = {"C": list(C), "folds": len(info["folds"]), "seed": info["seed"]}
    return res, test_acc


def emit_final(folder: str | Path, info: dict[str, Any], ds, C: Sequence[float],
               score_variables: bool | None = None) -> dict[str, Path]:
    """Write the final instance (training part, chosen C) to ``folder/final/model.mps``.

    The files are written in a temporary folder inside ``final`` and moved into place (the manifest last)
    only once all are whole: an earlier final instance, which a solution in ``final`` may have been solved
    from, stays as it was when this one fails (write_compiled alone removed it on a full disk).
    """
    from olctc.compile import compile_problem
    from olctc.pipeline import write_compiled

    out = check_final_folder(folder)
    rows = np.asarray(info["train_rows"], dtype=np.int64)
    comp = compile_problem(ds.subset(rows), final_spec(info, C, score_variables), "final", rows=rows,
                           max_nonzeros=info.get("max_nonzeros"))
    made = not out.exists()
    tmp: Path | None = None
    try:
        out.mkdir(exist_ok=True)
        tmp = out / temporary_name("final")  # named before it exists: an interrupt after mkdir removes it
        tmp.mkdir()
        with staged_errors(out, tmp):
            staged = write_compiled(comp, tmp / "model.mps")
            check_interrupt()
            written = {}
            # A grid's final instances are all one preset: the same file names each time, none left stale.
            for role, path in staged.items():  # in the order written: the manifest last
                os.replace(path, out / path.name)
                written[role] = out / path.name
        tmp.rmdir()
        return written
    except BaseException as exc:
        if tmp is not None:
            remove_tree(tmp)
        if made:  # the folder made for the files goes too
            with contextlib.suppress(OSError):
                out.rmdir()
        if isinstance(exc, OSError):
            raise OlctcError(f"cannot write {out}: {exc.strerror or exc}") from None
        raise


def check_final_folder(folder: str | Path) -> Path:
    """``folder``/final, after checking emit_final can write there (before collect decodes every task)."""
    out = Path(folder) / "final"
    if out.exists() and not out.is_dir():
        raise OlctcError(f"cannot write {out / 'model.mps'}: {out} exists and is not a folder")
    return out


def check_olctc_cmd(cmd: str) -> str | None:
    """Refuse an --olctc-cmd the task scripts cannot run as written; return a warning when its program is not
    found here (a path with a space, written unquoted, runs its first part only: every task would fail)."""
    expected = "a command on one line, such as 'olctc' or 'python -m olctc.cli'"
    if not cmd.strip() or any(c in cmd for c in "\t\n\r"):
        raise param_error("olctc_cmd", expected, cmd, option="--olctc-cmd")
    try:
        program = shlex.split(cmd)[0]
    except ValueError:  # an unbalanced quote
        raise param_error("olctc_cmd", expected + ", its quotes balanced", cmd, option="--olctc-cmd") from None
    found = Path(program).is_file() if "/" in program else shutil.which(program) is not None
    if found:
        return None
    hint = ("; a path with spaces must be quoted inside the option, as in --olctc-cmd \"'/my dir/olctc'\""
            if " " in cmd.strip() else "")
    return (f"--olctc-cmd: the tasks will run {program!r}, which is not {'a file' if '/' in program else 'on PATH'}"
            f" here{hint}")


def olctc_command() -> str:
    """How jobs call olctc: ``olctc`` when it is on PATH, else this Python running the CLI module."""
    return "olctc" if shutil.which("olctc") else f"{shlex.quote(sys.executable)} -m olctc.cli"
