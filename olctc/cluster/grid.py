"""Building a grid folder: the C grid and the stratified folds, every (fold, C) task compiled to a model
file with the command line that solves it, and grid.json, jobs.tsv and the scripts, all written in a
temporary folder and moved into place once whole."""
from __future__ import annotations

import contextlib
import errno
import itertools
import json
import math
import os
import re
import shlex
import shutil
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator, Sequence

import numpy as np

from olctc.cluster.slurm import (SlurmOptions, check_slurm_options, local_script, slurm_script, submit_all_script,
                                 submit_scripts)
from olctc.emit.params import COMMERCIAL_SOLVERS, format_value
from olctc.errors import OlctcError, is_integer, number_text, param_error
from olctc.io import (being_written, check_lookup, is_temporary_name, remove_tree, staged_errors, in_use_while,
                      temporary_name, warn_leftovers)
from olctc.process_state import check_interrupt

if TYPE_CHECKING:
    from olctc.data import Dataset
    from olctc.spec import TreeSpec

GRID_FORMAT = "olctc-grid"
GRID_VERSION = 1
JOBS_COLUMNS = ("task", "fold", "C", "model", "solution", "command", "gurobi_command")
#: --solver value -> the `olctc solve` solver it runs ("gurobi-cli" runs gurobi_cl directly).
#: Gurobi, CPLEX, COPT and Xpress (COMMERCIAL_SOLVERS) run in process on the nodes, through their Python packages.
GRID_SOLVERS = {"cbc-cli": "cbc-cli", "highs-cli": "highs-cli", "glpk-cli": "glpk-cli",
                "gurobi-cli": None, "olctc": "highs", "highs": "highs", "cbc": "cbc", "scip": "scip",
                **{name: name for name in COMMERCIAL_SOLVERS}}
#: The solvers whose parameter and MIP-start files each task holds (compile's ``solvers``): its job's (the
#: start it reads; the settings, to run the task by hand) and Gurobi's, jobs.tsv's alternative command. Every
#: solver's, as a lone compile writes, would make 17 small files a task: 17,000 on a parallel file system for 1000.
TASK_SOLVERS = {"olctc": ("highs", "gurobi"), "highs": ("highs", "gurobi"), "cbc": ("cbc", "highs", "gurobi"),
                "scip": ("scip", "gurobi"), "cbc-cli": ("cbc", "gurobi"), "highs-cli": ("highs", "gurobi"),
                "glpk-cli": ("glpk", "gurobi"), "gurobi-cli": ("gurobi",),
                # the start olctc reads for them in process (SCIP's: MILP or MIQP), and their own settings file
                **{name: tuple(dict.fromkeys(("scip", name, "gurobi"))) for name in COMMERCIAL_SOLVERS}}
#: The --solver values that solve a MIQP (the margot presets); the others solve MILPs only.
MIQP_SOLVERS = ("scip", "gurobi-cli", *COMMERCIAL_SOLVERS)

#: More tasks than this get a note before grid writes them.
LARGE_GRID_TASKS = 1000


def parse_C_values(text: str | Sequence[float]) -> list[float]:
    """``"0.01,0.1,1"`` -> [0.01, 0.1, 1.0]; every value finite and > 0, no repeats."""
    if isinstance(text, str):
        try:
            # every item a number: '1,,2' was read as 1,2 where --C, --fixed-C and --C-grid refuse it
            vals = [number_text(s) for s in text.split(",")] if text.strip() else []
        except ValueError:
            raise param_error("C_values", "numbers separated by commas such as '0.1,1,10'", text) from None
    else:
        from olctc.spec import _number, _sequence

        # None, 1.0 or ['a'] from Python callers were a TypeError or ValueError of float(), not the parameter's error
        text = _sequence("C_values", text, "numbers such as [0.1, 1, 10], or a text such as '0.1,1,10'")  # as fit_cv
        vals = [_number("C_values", v, text) for v in text]
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

    folds = check_folds(folds)
    yt = y[train_rows]
    smallest = int(min((yt > 0).sum(), (yt < 0).sum()))
    if smallest < folds:
        raise OlctcError(f"cannot make {folds} stratified folds: the training part has only {smallest} "
                         "point(s) of one class; " + (f"use --folds {max(2, smallest)} or fewer, or more data"
                                                      if smallest >= 2 else "use a smaller --test-size or more data"))
    skf = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
    out = []
    for tr, va in skf.split(np.zeros(len(train_rows)), yt):
        out.append({"train": [int(r) for r in np.sort(train_rows[tr])],
                    "val": [int(r) for r in np.sort(train_rows[va])]})
    return out


def check_folds(folds: Any, option: str | None = None) -> int:
    """``folds`` as an int if it is an integer (numpy's too) >= 2, else the parameter error (naming ``option``)."""
    if not is_integer(folds) or folds < 2:
        raise param_error("folds", "an integer >= 2", folds, option=option)
    return int(folds)


@dataclass
class Grid:
    """What ``make_grid`` wrote."""

    folder: Path
    info: dict[str, Any]
    tasks: list[dict[str, Any]] = field(default_factory=list)


def _solve_command(solver: str, model: str, solution: str, log: str, time_limit: float,
                   threads: int | None, olctc_cmd: str) -> str:
    """A shell line that solves ``model`` into ``solution`` atomically (``.part`` then ``mv``). Two runs of
    one task at once (run_local.sh started twice, a task resubmitted while it runs, where the scripts' task
    lock cannot work) solve into one ``.part``: the second ``mv`` finds it moved, and the task is done when
    the solution is there (``_promote``)."""
    part = solution + ".part"
    if solver == "gurobi-cli":
        return _gurobi_command(model, solution, log, time_limit, threads)
    threads_opt = f" --threads {int(threads)}" if threads else ""
    return (f"{olctc_cmd} solve {shlex.quote(model)} --solver {GRID_SOLVERS[solver]} "
            f"--time-limit {format_value(float(time_limit))}"
            f"{threads_opt} -o {shlex.quote(part)} > {shlex.quote(log)} 2>&1 && {_promote(part, solution)}")


def _promote(part: str, solution: str) -> str:
    """Shell: move the finished ``part`` onto ``solution``; done too when another run of the task moved it."""
    return f"{{ mv {shlex.quote(part)} {shlex.quote(solution)} 2>/dev/null || test -s {shlex.quote(solution)}; }}"


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
            f"> {shlex.quote(log)} 2>&1 && {_promote(part, solution)}")


def _check_reloadable(ds) -> None:
    """OlctcError unless collect can reload ``ds`` from its source, whole: a subset, or arrays, made a grid that
    every task solved, and collect then refused ("the data has 297 rows"; "arrays is not there")."""
    if ds.rows is not None:
        raise OlctcError("ds is part of its data (Dataset.subset): a grid records its whole source, which collect "
                         "reloads, and makes its own split of it: pass the whole Dataset")
    if not ds.source.startswith("dataset:") and not os.path.isfile(ds.source):
        raise OlctcError(f"ds comes from {ds.source or 'nowhere'!r}, no file collect can reload it from: a grid "
                         "needs data read from a CSV file (read_csv) or a vendored data set (load_dataset)")


def make_grid(ds: Dataset, spec: TreeSpec, out: str | Path, *, C_values: Sequence[float], folds: int = 4, seed: int = 0,
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
    solver : a key of GRID_SOLVERS: olctc (in-process HiGHS through `olctc solve`), highs, cbc, scip, gurobi,
        cplex, copt or xpress (`olctc solve` in process; the last four need their Python packages where the
        tasks run), highs-cli, cbc-cli, glpk-cli (those programs) or gurobi-cli; a MIQP
        preset needs one of MIQP_SOLVERS. CBC proves false optima on these models (docs/BENCHMARKS.md):
        its fold scores are a feasible tree's.
    max_nonzeros : refuse the grid, before writing anything, if the final model (all training points,
        the largest of the grid) would exceed this many nonzeros; kept for collect's final fit.
    olctc_cmd : how the tasks call olctc; a relative path to a program here is written absolute
        (``anchored_olctc_cmd``), as the tasks run from the grid folder.
    """
    from olctc.compile import check_size
    from olctc.data import check_dataset
    from olctc.emit.params import validate_limits
    from olctc.errors import check_callback
    from olctc.fit import split
    from olctc.spec import check_spec

    # Python callers' values, checked before anything is written (None, a str, a Dataset for the spec failed
    # deep inside as AttributeError or TypeError; QA 2026-12-05)
    check_dataset(ds)
    check_spec(spec)
    if solver not in GRID_SOLVERS:
        raise param_error("solver", f"one of {', '.join(GRID_SOLVERS)}", solver)
    if spec.info.quadratic and solver not in MIQP_SOLVERS:
        raise OlctcError(f"preset {spec.preset} is a MIQP (quadratic objective): use --solver "
                         f"{', '.join(MIQP_SOLVERS[:-1])} or {MIQP_SOLVERS[-1]}")
    if time_limit is None:  # None is no limit to validate_limits; every task's command needs one
        raise param_error("time_limit", "a positive number of seconds, at most 1e7 (each task's limit)", None)
    validate_limits(time_limit=time_limit, threads=threads, unlimited=False)
    check_callback("echo", echo, optional=True)
    # before the note of a large grid, which counts the tasks: folds=None was a TypeError there
    folds = check_folds(folds)
    if not (isinstance(olctc_cmd, str) and olctc_cmd.strip()):  # None went into every task as "None solve ..."
        raise param_error("olctc_cmd", "the command that runs olctc where the tasks run (such as 'olctc')",
                          olctc_cmd)
    if slurm is not None and not isinstance(slurm, SlurmOptions):
        raise param_error("slurm", "None or olctc.cluster.SlurmOptions(...)", slurm)
    _check_reloadable(ds)
    slurm = slurm or SlurmOptions()
    check_slurm_options(slurm)
    if not os.fspath(out).strip():  # Path("") is the current folder: an unset variable in a script
        raise param_error("output", "a folder path (-o DIR)", os.fspath(out))
    olctc_cmd = anchored_olctc_cmd(olctc_cmd)
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
    if "\n" in str(out.resolve()):
        raise OlctcError(f"grid folder {str(out.resolve())!r}: expected a path without a line break: the job scripts "
                         "find their folder with the shell's $(...), which drops one at its end (and then ran the "
                         "tasks of a folder named without it)")
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
    warn_leftovers(anchor / (out.name or "grid"), True, "a grid")
    try:
        for _ in range(100):
            # The name is set before the folder exists: an interrupt right after mkdir still removes it.
            tmp = anchor / temporary_name(out.name or "grid")
            try:
                tmp.mkdir()
                being_written(tmp)
                break
            except FileExistsError:  # another process's folder: never ours to remove
                tmp = None
            except OSError as exc:
                tmp = None
                raise OlctcError(f"cannot write {out}: {exc.strerror or exc}") from None
        else:
            raise OlctcError(f"cannot write {out}: no free temporary name in {anchor}")
        # marked as this grid's while it runs: another grid's leftover check passes over it
        with in_use_while(tmp), staged_errors(out, tmp):
            yield tmp
            check_interrupt()
            if existing:
                _move_entries(tmp, out)
            else:
                for p in reversed(missing):
                    p.mkdir(exist_ok=True)
                try:
                    os.rename(tmp, out)
                except OSError as exc:
                    if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST) or not (out / "grid.json").exists():
                        raise
                    # "cannot write g: Directory not empty": another grid made the folder while this one built
                    raise OlctcError(f"{out} already holds a grid, made while this one was built (another olctc "
                                     "grid into the same folder?); choose a new folder") from None
    except BaseException:
        if tmp is not None:
            remove_tree(tmp)
        for p in missing:  # deepest first; only the empty ones, which this call made
            with contextlib.suppress(OSError):
                p.rmdir()
        raise
    finally:
        if tmp is not None:
            being_written(tmp, False)


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
            try:
                comp = compile_problem(sub, replace(spec, C=C), f"task{tid:04d}", rows=rows,
                                       max_nonzeros=max_nonzeros)
            except OlctcError as exc:  # min_leaf above a fold's points: say which points it counted
                raise type(exc)(f"cross-validation, fold {f} ({sub.n} of the {ds.n} points), C {c_text(C)}: "
                                f"{exc}") from None
            (folder / task_folder).mkdir()
            write_compiled(comp, folder / model, solvers=TASK_SOLVERS[solver])
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
    for name in [s[0] for s in scripts] + list(GRID_SCRIPTS):
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


#: The scripts grid writes in the folder besides the job arrays (submit.slurm, submit-1000.slurm, ...).
GRID_SCRIPTS = ("run_local.sh", "submit.sh")


def grid_scripts(folder: Path) -> list[Path]:
    """The scripts of the grid in ``folder``: run_local.sh, submit.sh and each job array's submit*.slurm."""
    arrays = sorted(p for p in folder.glob("submit*.slurm") if re.fullmatch(r"submit(-[0-9]+)?\.slurm", p.name))
    return [folder / name for name in GRID_SCRIPTS] + arrays


def solver_program_warning(solver: str) -> str | None:
    """A warning when the program the tasks of ``solver`` run (cbc, glpsol, highs, gurobi_cl) is not found here:
    every task then failed with "command not found" (gurobi_cl) or a missing-program error, seen only in
    collect. The cluster's PATH may differ, hence no error."""
    from olctc.solve.external import EXTERNAL, find_program

    if solver == "gurobi-cli":
        program = "gurobi_cl"
        found = shutil.which(program) is not None
    elif solver in EXTERNAL:
        program = EXTERNAL[solver].program
        found = find_program(EXTERNAL[solver]) is not None
    else:
        return None
    if found:
        return None
    return (f"--solver {solver}: the tasks run the program {program!r}, which is not on PATH here: make it "
            "available where they run (or choose another --solver)")


def check_olctc_cmd(cmd: str) -> str | None:
    """Refuse an --olctc-cmd the task scripts cannot run as written; return a warning when its program is not
    found here (a path with a space, written unquoted, runs its first part only: every task would fail) or is a
    file that is not executable."""
    program = _program(cmd)
    if _expanded(cmd):  # ~/bin/olctc, $HOME/bin/olctc: the task's shell makes the path, not this one
        return None
    found = Path(program).is_file() if "/" in program else shutil.which(program) is not None
    if found and "/" in program and not os.access(program, os.X_OK):
        # the task's shell would say "Permission denied" for every task
        return (f"--olctc-cmd: the tasks will run {program!r}, which is a file but not executable here: make it "
                "executable (chmod +x) or run it through its interpreter (--olctc-cmd 'python -m olctc.cli')")
    if found:
        return None
    hint = ("; a path with spaces must be quoted inside the option, as in --olctc-cmd \"'/my dir/olctc'\""
            if " " in cmd.strip() else "")
    return (f"--olctc-cmd: the tasks will run {program!r}, which is not {'a file' if '/' in program else 'on PATH'}"
            f" here{hint}")


def _program(cmd: str) -> str:
    """The program ``cmd`` runs (its first word, unquoted); OlctcError unless a task script can run ``cmd``."""
    expected = "a command on one line, such as 'olctc' or 'python -m olctc.cli'"
    if not cmd.strip() or any(c in cmd for c in "\t\n\r"):
        raise param_error("olctc_cmd", expected, cmd, option="--olctc-cmd")
    try:
        program = shlex.split(cmd)[0]
    except ValueError:  # an unbalanced quote
        raise param_error("olctc_cmd", expected + ", its quotes balanced", cmd, option="--olctc-cmd") from None
    if _has_comment(cmd):  # "true #": the shell skipped the rest of each task's line, and every task "succeeded"
        raise param_error("olctc_cmd", expected + ", without a comment (an unquoted #), which would hide the "
                          "arguments each task adds", cmd, option="--olctc-cmd")
    return program


def _scan(cmd: str) -> Iterator[tuple[str, str]]:
    """Each character of ``cmd`` as a shell reads it: (character, how), how being "" outside quotes, "'" or '"'
    inside such quotes, "\\" escaped by a backslash, "quote" for an opening or closing quote itself. A
    backslash that escapes is not yielded."""
    quote, escaped = "", False
    for ch in cmd:
        if escaped:
            escaped = False
            yield ch, "\\"
        elif quote:
            if ch == quote:
                quote = ""
                yield ch, "quote"
            elif ch == "\\" and quote == '"':
                escaped = True
            else:
                yield ch, quote
        elif ch == "\\":
            escaped = True
        elif ch in "'\"":
            quote = ch
            yield ch, "quote"
        else:
            yield ch, ""


def _has_comment(cmd: str) -> bool:
    """Whether ``cmd`` holds a shell comment: a ``#`` outside quotes that starts a word (``a#b`` is one word,
    though shlex's commenters would cut it)."""
    word_start = True
    for ch, how in _scan(cmd):
        if ch == "#" and not how and word_start:
            return True
        word_start = not how and (ch.isspace() or ch in ";&|()<>")
    return False


def _expanded(cmd: str) -> bool:
    """Whether the shell running a task expands ``cmd``'s program (a ``~`` starting it, a ``$`` or backquote
    outside single quotes): no path to check here. As written: a quoted '$' (a folder "b in$x") is a letter."""
    text = cmd.lstrip()
    if text.startswith("~"):
        return True
    for ch, how in _scan(text):
        if not how and (ch.isspace() or ch in ";&|()<>"):  # the end of the first word
            return False
        if ch in "$`" and how in ("", '"'):
            return True
    return False


def anchored_olctc_cmd(cmd: str) -> str:
    """``cmd`` with its program made absolute when it is a relative path to a file here (``bin/olctc``): the
    tasks run from the grid folder, where the relative path names nothing and every task failed."""
    try:
        program = shlex.split(cmd)[0]
    except (ValueError, IndexError):  # no command, a quote left open: check_olctc_cmd says so
        return cmd
    if "/" not in program or os.path.isabs(program) or _expanded(cmd) or not Path(program).is_file():
        return cmd
    text = cmd.lstrip()
    # the first word as written (maybe quoted): the shortest start of the text that splits to it alone
    end = next(i for i in range(1, len(text) + 1)
               if (i == len(text) or text[i].isspace()) and _splits_to(text[:i], program))
    return shlex.quote(os.path.abspath(program)) + text[end:]


def _splits_to(text: str, word: str) -> bool:
    try:
        return shlex.split(text) == [word]
    except ValueError:  # a quote still open
        return False


def olctc_command() -> str:
    """How jobs call olctc: ``olctc`` when it is on PATH, else this Python running the CLI module. Found
    through a relative PATH entry (PATH=bin:...), its absolute path: the tasks run from the grid folder."""
    found = shutil.which("olctc")
    if found is None:
        return f"{shlex.quote(sys.executable)} -m olctc.cli"
    return "olctc" if os.path.isabs(found) else shlex.quote(os.path.abspath(found))
