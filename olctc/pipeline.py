"""The steps the CLI chains: write a compiled problem with its side files, solve a compiled file.

Each function here is one user-visible step; all the mathematics lives in the modules it calls.
"""
from __future__ import annotations

import contextlib
import hashlib
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterator

import numpy as np

from olctc.compile import (Compiled, manifest_fields, manifest_path, model_format, read_manifest, warm_start_objective,
                           write_manifest)
from olctc.emit.params import COMMERCIAL_SOLVERS, cbc_cutoff
from olctc.errors import NoSolution, OlctcError, TimeLimitTooShort, check_flags, param_error, warn
from olctc.io import (atomic_open, atomic_write_text, being_written, check_not_input, check_output_file, check_path,
                      check_suffix, check_writable, folder_lock, refuse_read_once, remove_files, remove_tree,
                      sha256_file, staged_errors, temporary_name, warn_leftovers)
from olctc.milp import names_from_block_map
from olctc.process_state import check_interrupt, interrupts_deferred

if TYPE_CHECKING:
    from olctc.solve import SolveResult
    from olctc.tree import Tree

#: The MIP-start files each ``olctc solve`` backend reads, the first that compile wrote. In process, any
#: solution file olctc reads: a MIQP has no HiGHS start (HiGHS does not solve one), and SCIP took none at all;
#: a compile for some solvers only (``--solvers scip``) may have written SCIP's alone.
START_SOLVERS_BY_BACKEND: dict[str, tuple[str, ...]] = {
    "highs": ("highs", "scip"), "cbc": ("highs", "scip"), "scip": ("highs", "scip"),
    "cbc-cli": ("cbc",), "highs-cli": ("highs",), "glpk-cli": (),
    # in process, olctc reads the start and hands the solver its values: any start olctc's readers read
    **{name: ("scip", "highs", "xpress") for name in COMMERCIAL_SOLVERS}}


def compiled_files(out: str | Path) -> list[Path]:
    """Every file compile may write, or remove as another model's, for model file ``out``: the model, its
    manifest, then every solver parameter file and MIP-start file of the stem."""
    from olctc.emit.params import param_file_paths
    from olctc.emit.start import START_FORMATS, start_filename

    out = Path(out)
    stem = out.name[: -len(out.suffix)]
    return ([out, manifest_path(out)] + param_file_paths(out.parent, stem)
            + [out.parent / start_filename(stem, s) for s in START_FORMATS])


def write_compiled(comp: Compiled, out: str | Path, *, params: bool = True, start: bool = True,
                   start_tree: Tree | None = None, start_in_child: bool = False,
                   solvers: str | Collection[str] | None = None) -> dict[str, Path]:
    """Write model, solver parameter files, MIP-start files and (last) the manifest.

    The MIP start is the greedy warm start's tree, or ``start_tree``'s (``olctc.start_tree``).
    ``solvers``: the solvers whose parameter and MIP-start files are written (``olctc.emit.params.SOLVER_FILES``
    names; default every solver that solves the model); the manifest lists them.

    The files are written in a hidden folder beside ``out`` and renamed into place, the manifest last, once all
    are whole (``_staged_set``). If any step fails, nothing of this compile stays behind and an earlier
    compile's set under the same name stays whole: never a mix of the two (a manifest whose model is gone,
    start files of another model). An interrupted recompile used to remove the earlier set (a 557 MB model
    lost to a Ctrl-C); now only a failure among the renames, which take milliseconds, removes it.

    Two compiles into one name at once (two array tasks) left a mixed set: one's model, the other's
    manifest and starts. The writes hold the folder (``folder_lock``): the set the second compile writes
    replaces the first's whole.

    The greedy warm start runs beside the model's writing: a failure there, too, removes the set. On a
    thread of its own, by default (its liblinear fits leave the interpreter free); a failed write waits for
    that thread before it raises, an interrupt leaves it to finish on its own (it writes nothing).
    ``start_in_child``: in a forked child process instead (``olctc.background.in_child``, on Linux), when
    scikit-learn is still to be imported: a fresh interpreter's import (a second of pure Python) then runs
    on the other core, not in turns with the writing. For one compile in a fresh process (``olctc
    compile``); a process that compiles again and again (``olctc grid``) imports once on its thread.
    """
    from olctc.emit.lp import write_lp
    from olctc.emit.mps import write_mps
    from olctc.emit.params import LINEAR_ONLY_SOLVERS, check_solvers, param_file_paths, write_param_files
    from olctc.emit.start import START_FORMATS, start_filename, start_texts

    if not isinstance(comp, Compiled):  # None, a Dataset: AttributeError 'manifest' (QA 2026-12-05)
        raise param_error("comp", "the Compiled that olctc.compile.compile_problem returns", type(comp).__name__)
    check_flags(params=params, start=start, start_in_child=start_in_child)  # start="no" wrote every start
    out = check_path(out, "out")
    check_output_file(out)
    # m.txt was written as LP, then refused as "The 'model' parameter must be ..." (a parameter of another
    # function), and a name without suffix as "The 'stem' parameter ... Got ''": compile's own check first
    fmt = model_format(out)
    stem = out.name[: -len(out.suffix)]
    written: dict[str, Path] = {}
    man = comp.manifest
    quadratic = comp.milp.is_quadratic
    solvers = check_solvers(solvers, quadratic)
    all_files = compiled_files(out)[2:]
    param_files = param_file_paths(out.parent, stem, quadratic, solvers) if params else []
    start_solvers = [s for s in START_FORMATS if not (quadratic and s in LINEAR_ONLY_SOLVERS)
                     and (solvers is None or s in solvers)] if start else []
    if start_tree is not None and start and not start_solvers:
        raise OlctcError("start_tree gives the MIP start files, and none of the solvers chosen "
                         f"({', '.join(solvers or ())}) reads one: add one that does")
    # glpsol alone takes no start: no warm start to compute, but the manifest records that one was asked for
    start_asked, start = start, bool(start_solvers)
    start_files = [out.parent / start_filename(stem, solver) for solver in start_solvers]
    the_set = [out] + param_files + start_files + [manifest_path(out)]  # renamed in this order
    # An earlier compile's files under this name that this one does not write belong to another model:
    # a solver run by hand with `-mips NAME.start.cbc` would load its start (olctc solve checks hashes).
    stale = [f for f in all_files if f not in the_set]
    if start_tree is not None and not start:
        raise OlctcError("start_tree gives the MIP start files, which start=False leaves out: drop one of them")

    def rendered_starts(x: np.ndarray) -> tuple[float, list[str]]:
        """The start's MILP objective and the text of each start file."""
        objective = comp.milp.objective(x)
        names = [str(n) for n in comp.milp.col_names()]
        quad_part = comp.milp.quadratic_part(x)
        return objective, start_texts(start_files, names, x, start_solvers, objective, quadratic=quad_part)

    warm: contextlib.AbstractContextManager[Callable[[], tuple[float, list[str]]] | None]
    warm = contextlib.nullcontext(None)
    if start_tree is not None:
        from olctc.start_tree import start_record, tree_start

        x, info = tree_start(comp, start_tree)
        rendered = rendered_starts(x)
    elif start:
        from olctc.background import in_child, on_thread

        def greedy_start() -> tuple[float, list[str]]:
            from olctc.warmstart import warm_start  # scipy.optimize and scikit-learn: imported beside the writing

            x, _ = warm_start(comp.milp, comp.X, comp.dataset.y, comp.spec, sample_weight=comp.dataset.weight)
            return rendered_starts(x)  # formatted there too: the files' text is what comes back

        beside = in_child if start_in_child and "sklearn.linear_model" not in sys.modules else on_thread
        warm = beside(greedy_start, "olctc-warm-start")

    def waiting() -> None:
        warn(f"another olctc process is writing into {out.parent}{os.sep} (one compile at a time per "
             "folder): waiting for it to finish")

    with warm as greedy, folder_lock(out.parent, waiting), _staged_set(the_set, stale) as place:
        # What an earlier write of this Compiled recorded is not this write's: a second write without starts
        # listed the first one's start files (another name's) and warm start.
        man["files"] = {}
        man.pop("warm_start", None)
        written["model"] = out
        digest = (write_mps if fmt == "mps" else write_lp)(comp.milp, place(out))
        if greedy is not None:
            rendered = greedy()
        man["model"].update({"file": out.name, "format": fmt, "sha256": digest})
        if params:
            for f in param_files:
                written[f"params:{f.name.rsplit('.', 2)[-2]}"] = f
            files = write_param_files(place(out).parent, stem, model=out.name, starts=start, quadratic=quadratic,
                                      solvers=solvers, start_objective=rendered[0] if start else None)
            man["files"]["params"] = sorted(f.name for f in files)
        if solvers is not None:
            man["files"]["solvers"] = list(solvers)
        if start_asked and not start:
            man["files"]["start"] = {}  # none of the solvers chosen reads one (olctc solve says so)
        if start:
            start_objective, texts = rendered
            starts: dict[str, Any] = {}
            for solver, path, text in zip(start_solvers, start_files, texts):
                written[f"start:{solver}"] = path
                starts[solver] = {"file": path.name, "sha256": atomic_write_text(place(path), text)}
            man["files"]["start"] = starts
            man["warm_start"] = {"objective": float(start_objective)}
            if start_tree is not None:
                man["warm_start"].update({"from": "start tree", "adjustments": info["adjustments"],
                                          **start_record(info)})
        mpath = manifest_path(out)
        written["manifest"] = mpath
        write_manifest(man, place(mpath))
    return written


@contextlib.contextmanager
def _staged_set(files: list[Path], stale: list[Path]) -> Iterator[Callable[[Path], Path]]:
    """Write the set ``files`` (one folder's) all or none: the block writes each file at ``place(file)``, in a
    hidden folder beside them, and they are renamed into place in ``files``' order once the block succeeds; then
    ``stale`` (an earlier set's files this one does not replace) are removed. If the block raises
    (KeyboardInterrupt included), the hidden folder goes and the folder is as it was; if a rename fails, every
    file of the set goes (the set would be a mix). A file that is a link, or not a regular file, is written
    where it is (the rename would replace the link, or a FIFO): then a failure removes the set."""
    folder = files[0].parent
    if any(_not_a_plain_file(f) for f in files):
        try:
            yield lambda f: f
        except BaseException:
            remove_files(files)
            raise
        remove_files(stale)
        return
    warn_leftovers(files[0], True, "a compile")
    stage = folder / temporary_name(files[0].name)
    being_written(stage)  # named before it exists: an interrupt right after mkdir still removes it
    try:
        with staged_errors(folder, stage):
            try:
                stage.mkdir()
            except OSError as exc:
                raise OlctcError(f"cannot write {files[0]}: {exc.strerror or exc}") from None
            yield lambda f: stage / f.name
            check_interrupt()
        with interrupts_deferred():  # the staged files are whole: the set goes in all or none
            try:
                for f in files:
                    os.replace(stage / f.name, f)
            except BaseException as exc:
                remove_files(files)
                if isinstance(exc, OSError):
                    raise OlctcError(f"cannot write {f}: {exc.strerror or exc}") from None
                raise
            remove_files(stale)
    finally:
        remove_tree(stage)
        being_written(stage, False)


def _not_a_plain_file(path: Path) -> bool:
    """Whether ``path`` is a link, or exists and is not a regular file (a name too long is neither: its write
    fails, and says so)."""
    try:
        return path.is_symlink() or (path.exists() and not path.is_file())
    except OSError:
        return False


#: Seconds kept back from ``olctc solve --time-limit`` for writing the solution file.
SOLUTION_RESERVE = 0.2


def check_task_time_limit(time_limit: float) -> None:
    """Refuse a limit no ``olctc solve --time-limit`` takes, whatever checking the model's files takes: grid writes
    it into every task's command, which each failed on the cluster."""
    from olctc.solve.options import MIN_SOLVE_SECONDS

    least = math.ceil(SOLUTION_RESERVE + MIN_SOLVE_SECONDS)
    if time_limit < least:
        raise TimeLimitTooShort(f"--time-limit {time_limit:g} s leaves each task's `olctc solve` no time to solve: "
                                f"writing the solution needs {SOLUTION_RESERVE:g} s and a solver at least "
                                f"{MIN_SOLVE_SECONDS:g} s, besides checking the model's files: give at least "
                                f"{least} s (more for a large model)")


def solve_compiled_file(model: str | Path, solver: str, *, time_limit: float | None = None,
                        threads: int | None = None, use_start: bool = True, solver_path: str | None = None,
                        output: str | Path | None = None, verbose: bool = True,
                        leave_overrun: bool = False) -> tuple[SolveResult, Path]:
    """Solve a model file; use the MIP start compile wrote beside it; write the native solution file.

    ``leave_overrun`` (the console program): HiGHS still running well past the time limit is left, and
    the best solution it had found is written (``olctc.solve.solve_milp``).

    The manifest beside the model (``NAME.olctc.json``) is used only if it was written for this very
    file (same name and sha256): two models may share a stem (``m.mps`` and ``m.lp``), and a model may
    be edited after compile. Otherwise a warning says so and the solve runs without its MIP start. A model
    given through a symbolic link with no manifest beside it has its compiled files looked up beside the
    file the link names; the solution goes beside the link.

    Returns (SolveResult, solution path). A solve that ends without a solution raises NoSolution (exit 1 in the
    console), the -cli solvers too, whose own file is written all the same (its status, no values).
    """
    from olctc.emit.params import validate_limits
    from olctc.solve import ALL_SOLVERS, bound_checked, solve_file, write_native_solution
    from olctc.solve.calls import left_after_interrupt
    from olctc.solve.modelfile import check_model_path, model_stem
    from olctc.solve.options import MIN_SOLVE_SECONDS
    from olctc.solve.result import false_infeasible

    started = time.monotonic()
    # Python callers' values first: solver=None failed as AttributeError, time_limit="5" as TypeError (QA)
    if not isinstance(solver, str) or solver not in ALL_SOLVERS:
        raise param_error("solver", f"one of {', '.join(ALL_SOLVERS)}", solver)
    validate_limits(time_limit=time_limit, threads=threads)
    check_flags(use_start=use_start, verbose=verbose, leave_overrun=leave_overrun)
    model = check_path(model, "model")
    if output is not None:
        check_path(output, "output")  # kept as given: messages name it as the user wrote it (./m.sol)
    if not model.exists():
        raise OlctcError(f"{model}: no such model file")
    files = model  # where compile's other files are
    if not manifest_path(model).exists() and model.is_symlink():
        files = model.resolve()  # a link to a compiled model: its start and manifest are beside the model
    mpath = manifest_path(files)
    check_not_input(output, ("model", model), ("manifest", mpath))
    check_model_path(model)
    man = read_manifest(mpath, check_model=False) if mpath.exists() else None
    source = man["data"]["source"] if man is not None else None  # read_manifest checked it is text
    with manifest_fields(mpath):
        if man is not None:
            entry, why = man["model"], None
            if entry.get("file") != files.name:
                why = f"{mpath.name} was written for model file {entry.get('file')!r}, not {files.name}"
            elif entry.get("sha256") != sha256_file(model):
                why = f"{files.name} changed since compile (its sha256 is not the one in {mpath.name})"
            if why is not None:
                if use_start:
                    warn(f"{why}: solving without the MIP start compile wrote")
                man = None  # its start and column names belong to another model
        start_path = _start_file(files, man, solver) if use_start and man is not None else None
        names = None if man is None else [str(n) for n in names_from_block_map(man["blocks"]["columns"])]
    check_not_input(output, ("MIP start", start_path))
    if mpath.exists():  # what decode reads next, and compile's other files
        check_not_input(output, ("data named in the manifest", source),
                        *(("file compile wrote beside the model", f) for f in compiled_files(files)[2:]))
    # after the inputs: -o m.mps is the input model rather than a wrong suffix; -o x.json / x.mps wrote a
    # solution under another format's name
    check_suffix(output, "solve", "a solution file", (".sol", ".txt"))
    # Xpress's: .slx, the name compile's NAME.solvers.txt gives the file of an Xpress run elsewhere
    default = f"{model_stem(model)}.{solver.replace('-cli', '')}.{'slx' if solver == 'xpress' else 'sol'}"
    sol = Path(output) if output else model.with_name(default)
    if not os.path.exists(sol) or os.path.isfile(sol):  # a FIFO or device (/dev/null) is written to directly
        check_writable(sol)  # before the solve: a folder that is missing or read-only fails at once
    if time_limit is not None and time_limit > 0:
        # The limit is the whole command's: what reading the manifest and checking the start took is
        # not the solver's. A reserve covers writing the solution afterwards.
        spent = time.monotonic() - started
        if time_limit - spent - SOLUTION_RESERVE < MIN_SOLVE_SECONDS:
            least = math.ceil(spent + SOLUTION_RESERVE + MIN_SOLVE_SECONDS + 0.1)
            raise TimeLimitTooShort(f"--time-limit {time_limit:g} s leaves no time to solve: checking the model's "
                                    f"files took {spent:.1f} s, writing the solution needs {SOLUTION_RESERVE:g} s "
                                    f"and a solver at least {MIN_SOLVE_SECONDS:g} s: give at least {least} s")
        time_limit -= spent + SOLUTION_RESERVE
    known_feasible = None if man is None else warm_start_objective(man)
    quadratic = man is not None and man["model"].get("quadratic") is True

    def found_none(res) -> str:
        return (f"found no solution ({res.raw_status}){time_advice(res.raw_status, start_path is not None)}"
                + false_infeasible(res.status, known_feasible, solver, quadratic=quadratic))

    start_objective = known_feasible if start_path is not None else None  # CBC's cutoff (cbc_cutoff)
    if solver.endswith("-cli"):
        res = _solve_external(model, solver, sol, time_limit=time_limit, threads=threads, start_path=start_path,
                              verbose=verbose, solver_path=solver_path, col_names=names,
                              start_objective=start_objective)
    else:
        res = solve_file(model, solver, time_limit=time_limit, threads=threads, start_path=start_path,
                         verbose=verbose, solver_path=solver_path, leave_overrun=leave_overrun,
                         start_objective=start_objective)
    if man is not None:  # olctc's model: it minimises
        res = bound_checked(res)
    _warn_if_worse_than_start(res, known_feasible, solver, start_path is not None)
    if solver.endswith("-cli"):
        if res.status not in ("optimal", "feasible"):  # the program wrote its file all the same
            raise NoSolution(f"{solver} {found_none(res)}; its file {sol} holds none")
        return res, sol
    if res.x is None:
        if interrupted := left_after_interrupt(res):
            why = f"{interrupted}, with no solution"
        elif res.left_running and time_limit is not None:  # else left running past a time limit only
            why = (f"was still running {res.runtime - time_limit:.0f} s past its time limit (work that checks no "
                   f"clock) and was left, with no solution")
        else:
            why = found_none(res)
        raise NoSolution(f"{solver} {why}; nothing written")
    write_native_solution(res, sol, solver)
    return res, sol


def _warn_if_worse_than_start(res: SolveResult, known: float | None, solver: str, given: bool) -> None:
    """A warning when the solution is worse than the warm start compile wrote (``known``, its objective): glpsol
    takes no start and, stopped on time, returned a tree 42% worse than it (heart, 5 s), which solve and decode then
    passed on in silence. ``given``: the solver was handed the start."""
    if known is None or res.objective is None or res.status not in ("optimal", "feasible"):
        return
    if res.objective <= cbc_cutoff(known):  # within the slack CBC's cutoff allows the start: not worse
        return
    why, more = (("though it was given it as its MIP start (the solver did not keep it)", "") if given
                 else ("which glpsol cannot take as a start", "; or solve with a solver that reads it")
                 if solver == "glpk-cli" else ("which it was not given", "; or solve again with it, or for longer"))
    warn(f"{solver}'s solution (objective {res.objective:.10g}) is worse than the warm start compile wrote "
         f"(objective {known:.10g}), {why}: `olctc fit` keeps the better of the two{more}")


def time_advice(raw_status: str, start: bool = True) -> str:
    """What to do when a time limit ended a solve with no solution: on a6a, CBC stopped in its root LP, the MIP
    start read but not yet taken up, and the user was left with no tree and no hint. ``start``: the solver was
    given a MIP start."""
    from olctc.solve.result import limit_kind

    if limit_kind(raw_status) != "time":
        return ""
    what = "took up any solution, the MIP start included" if start else "found any solution"
    return (f": its time limit came before it {what}; give it more time (`olctc fit` keeps its warm start's tree "
            "when that happens)")


def _solve_external(model: Path, solver: str, sol: Path, *, col_names: list[str] | None, **kwargs: Any):
    """Run a solver program; its solution file reaches ``sol`` whole or not at all (``atomic_open``).

    The program writes into a temporary folder, and the file is copied to ``sol``: moved there directly
    (``shutil.move``, a copy across file systems), a full disk or a read-only or vanished folder left a
    partial file under ``sol`` (the earlier one removed beforehand) and a traceback.
    """
    import shutil

    from olctc.scratch import scratch_folder
    from olctc.solve import solve_file

    with scratch_folder("olctc-solution-") as tmp:
        res = solve_file(model, solver, solution_path=tmp / sol.name, col_names=col_names, **kwargs)
        with open(tmp / sol.name, "rb") as src, atomic_open(sol, "wb") as dst:
            shutil.copyfileobj(src, dst)
    res.solution_path = sol
    return res


def _start_file(model: Path, man: dict[str, Any], solver: str) -> Path | None:
    """The MIP start compile wrote for this solver, checked against the manifest's hash."""
    files = man.get("files", {})
    written = files.get("start", {})
    kinds = START_SOLVERS_BY_BACKEND.get(solver, ())
    entry = next((written[k] for k in kinds if k in written), None)
    if not entry:
        chosen = files.get("solvers")
        # a compile for other solvers, not in silence either ("start" absent: --no-start, asked for)
        if "start" in files and kinds and chosen is not None:
            # --solvers cbc (or gurobi) writes the start file of that solver's program; in process olctc reads a
            # start itself and hands over its values: "none that cbc reads" alone read as a contradiction
            readable = " or ".join([", ".join(kinds[:-1]), kinds[-1]] if len(kinds) > 2 else kinds)
            own = (f" (in process, olctc hands {solver} the values of the start file of {readable}; the {solver} "
                   f"file is for the {solver} program)" if solver in chosen else "")
            wrote = (f"wrote MIP starts for {', '.join(chosen)} only (--solvers), none that {solver} reads{own}"
                     if written else f"wrote no MIP start (--solvers {','.join(chosen)}: none of them reads one)")
            warn(f"compile {wrote}: solving without one (compile with --solvers {kinds[0]} to have it)")
        return None
    candidate = model.parent / entry["file"]
    if not candidate.exists():
        # a solve without its warm start may find nothing at all in its time limit: not silently
        warn(f"{candidate}: missing (compile wrote it); solving without the MIP start (--no-start "
             "says so on purpose)")
        return None
    if sha256_file(candidate) != entry["sha256"]:
        raise OlctcError(f"{candidate}: the MIP start changed since compile (hash mismatch); "
                         "compile again or pass --no-start")
    return candidate


def load_source(info: dict[str, Any], data_path: str | Path | None = None, *, what: str = "the training data",
                since: str = "compile", source=None, param: str = "data"):
    """The whole source Dataset a manifest or grid names (``info["data"]``), checked against its sha256.
    ``param``: the Python parameter that gives ``data_path`` (decode_file's ``data``, collect's ``data_path``).

    ``source``: that Dataset, already loaded (collect decodes every task of a grid from one data set, which
    it read once; each task read and hashed the file again): checked against the sha256, not read again."""
    from olctc.data import read_csv, table_bytes
    from olctc.data.arrays import ARRAYS_SOURCE
    from olctc.datasets import load

    src = str(data_path) if data_path else info["source"]
    if source is not None:
        ds = source
    elif src.startswith("dataset:"):
        ds = load(src.split(":", 1)[1], info.get("positive_class"), info.get("dropped", ()),
                  weight_column=info.get("weight_column"))
    else:
        if src == ARRAYS_SOURCE and not Path(src).exists():  # "the training data arrays is not there" (QA)
            raise OlctcError(f"{what} came as arrays (from_arrays), which olctc cannot read again: pass that "
                             "Dataset as source= (decode_file), or the data as a CSV file (--data)")
        if not Path(src).exists():
            if data_path:  # given: advice to give it ("pass its path with --data") sent the user round in circles
                raise OlctcError(f"{what} {src} does not exist: give the path of the file it was made from")
            raise OlctcError(f"{what} {src} is not there; pass its path with --data ({param}= in Python)")
        refuse_read_once(src, f"{what} is hashed, then read")  # the second read found it empty: "the file is empty"
        # The file's hash first: a changed file may not even read as before (other labels, columns).
        _check_data_hash(src, hashlib.sha256(table_bytes(src)).hexdigest(), info["sha256"], since)
        # warned at compile (or grid) already
        ds = read_csv(src, info["target"], info.get("positive_class"), info.get("dropped", ()),
                      warn_identifiers=False, weight_column=info.get("weight_column"))
    _check_data_hash(src, ds.sha256, info["sha256"], since)
    return ds


def _check_data_hash(src: str, got: str, expected: str, since: str) -> None:
    if got != expected:
        raise OlctcError(f"{src}: the data changed since {since} (sha256 {got[:12]}... != {expected[:12]}...)")


def training_data(man: dict[str, Any], data_path: str | Path | None = None, where: str | Path = "manifest",
                  source=None):
    """The Dataset a manifest was compiled from, checked against its sha256 (rows subset applied, each
    row checked against the data's length; ``where`` names the manifest in the error; ``source``: the
    whole source Dataset, if already loaded, as ``load_source`` takes it)."""
    info = man["data"]
    ds = load_source(info, data_path, source=source)
    rows = info.get("rows")
    if rows is None:
        return ds
    if rows and max(rows) >= ds.n:
        raise OlctcError(f"{where}: field 'data.rows' names row {max(rows)}, but the training data "
                         f"{data_path or info['source']} has {ds.n} rows (edited?); compile again")
    return ds.subset(np.asarray(rows, dtype=np.int64))
