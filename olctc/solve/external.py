"""External solver programs (``cbc``, ``highs``, ``glpsol``): run, stream the log, read the answer back.

Each program gets the tight tolerances of ``olctc.emit.params`` (glpsol has no flag for them and says
so with a warning), the time limit, threads where supported and a MIP start where the program takes
one. The solver writes its own solution file, which ``olctc.read.read_solution`` turns back into
values.
"""
from __future__ import annotations

import collections
import contextlib
import functools
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from olctc.emit.params import UNTUNABLE, cbc_args, cbc_cutoff, format_value, glpk_args, highs_options_text
from olctc.errors import OlctcError, TimeLimitTooShort, warn
from olctc.process_state import check_interrupt
from olctc.scratch import scratch_folder
from olctc.solve.modelfile import (SOLVER_PATH_MAX, file_columns, handed_over, model_format, model_stem,
                                   readable_path)
from olctc.solve.options import SolveOptions, overrun_grace, start_vector
from olctc.solve.result import SolveResult, finite_or_none, highs_gap_left, limit_kind, relative_gap


@dataclass(frozen=True)
class Invocation:
    """Paths of one external run."""

    exe: Path
    model: Path
    solution: Path
    start: Path | None
    workdir: Path
    env: dict[str, str] | None = None  # the program's environment (highsbox's LD_LIBRARY_PATH)


@dataclass(frozen=True)
class ExternalSolver:
    """How to find, run and identify one solver program.

    ``start_solver`` is the ``olctc.emit.start.write_start`` solver key of the program's MIP-start
    format (None: the program takes no start). ``command`` builds the argument list.
    """

    name: str
    program: str
    install: str
    start_solver: str | None
    version_patterns: tuple[tuple[str, str], ...]
    command: Callable[[Invocation, SolveOptions], list[str]]
    locate_extra: Callable[[], Path | None] = lambda: None
    bound_pattern: str | None = None  # the bound in the program's closing summary (its solution file has none)
    #: a log line saying the time limit stopped the search, where the solution file's status does not say so
    stopped_on_time: str | None = None
    #: a log line saying the time limit stopped the program while it read the model (it then writes no file)
    stopped_reading: str | None = None
    #: why the program may run well past its time limit, said when it did
    overrun_why: str = ""


def _cbc_command(inv: Invocation, opts: SolveOptions) -> list[str]:
    # Order matters: the model, then options (the start included), then -solve, then -solu.
    # The cbcbox (devel) CBC rejects the dash-less forms that CBC 2.10 accepts.
    cmd = [str(inv.exe), str(inv.model)]
    if inv.start is not None:
        cmd += ["-mips", str(inv.start)]
        if opts.start_objective is not None:  # else CBC may return a tree worse than its start (cbc_cutoff)
            cmd += ["-cutoff", format_value(cbc_cutoff(opts.start_objective))]
    cmd += cbc_args(time_limit=opts.time_limit, threads=opts.threads, mip_gap=opts.mip_gap)
    if opts.time_limit is not None:
        # CBC's -sec counts CPU time unless told otherwise; a time limit means wall time to users.
        cmd += ["-timeMode", "elapsed"]
    return cmd + ["-solve", "-solu", str(inv.solution)]


def highs_version(exe: Path, env: dict[str, str] | None = None) -> tuple[int, int] | None:
    """(major, minor) of a HiGHS program, from ``highs --version`` (HiGHS 1.7 and newer); None if unknown."""
    try:
        out = subprocess.run([str(exe), "--version"], env=env, capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    found = re.search(r"HiGHS version (\d+)\.(\d+)", out)
    return (int(found[1]), int(found[2])) if found else None


def _highs_command(inv: Invocation, opts: SolveOptions) -> list[str]:
    # The HiGHS CLI has no tolerance flags: they go through an options file.
    options = inv.workdir / "olctc.highs.opt"
    version = highs_version(inv.exe, inv.env)
    # presolve_rule_off's bit 14 is Sparsify from HiGHS 1.12 on, Probing in 1.11, nothing before
    options.write_text(highs_options_text(time_limit=opts.time_limit, threads=opts.threads, mip_gap=opts.mip_gap,
                                          bit_14_is_sparsify=version is None or version >= (1, 12)))
    cmd = [str(inv.exe), "--model_file", str(inv.model), "--options_file", str(options)]
    if inv.start is not None:
        cmd += ["--read_solution_file", str(inv.start)]
    return cmd + ["--solution_file", str(inv.solution)]


def _glpk_command(inv: Invocation, opts: SolveOptions) -> list[str]:
    return [str(inv.exe), str(inv.model), *glpk_args(time_limit=opts.time_limit, mip_gap=opts.mip_gap,
                                                     model_format=model_format(inv.model)), "-w", str(inv.solution)]


def _highsbox_binary() -> Path | None:
    try:
        import highsbox
    except ImportError:
        return None
    path = Path(highsbox.highs_bin_path())
    return path if path.is_file() else None


#: olctc name -> program description. Version patterns are tried in order on the program's output.
EXTERNAL: dict[str, ExternalSolver] = {
    "cbc-cli": ExternalSolver(
        "cbc-cli", "cbc", "apt-get install coinor-cbc (or pip install cbcbox)", "cbc",
        ((r"Version:\s*(\S+)", "CBC {}"), (r"CBC (devel \(git:\w+\))", "CBC {}")), _cbc_command,
        bound_pattern=r"^Lower bound:\s+(\S+)\s*$"),
    "highs-cli": ExternalSolver(
        "highs-cli", "highs", "pip install highsbox", "highs",
        ((r"Running HiGHS (\S+)", "HiGHS {}"), (r"HiGHS version (\S+)", "HiGHS {}")), _highs_command, _highsbox_binary,
        bound_pattern=r"^\s*Dual bound\s+(\S+)\s*$",
        stopped_reading=r"reader reached time_limit|Parser reached timeout"),
    "glpk-cli": ExternalSolver(
        "glpk-cli", "glpsol", "apt-get install glpk-utils", None,
        ((r"GLPK LP/MIP Solver,?\s*v?(\S+)", "GLPK {}"),), _glpk_command, stopped_on_time=r"^TIME LIMIT EXCEEDED",
        # glpsol.c sets smcp.tm_lim = iocp.tm_lim = --tmlim: glp_simplex's root LP, then glp_intopt, each
        overrun_why=": glpsol's --tmlim leaves out reading the model, and holds for its LP relaxation and for its "
                    "search each"),
}


def find_program(spec: ExternalSolver) -> Path | None:
    """The program ``spec`` runs, found on PATH (else where its package puts it), or None."""
    found = shutil.which(spec.program)
    # absolute: an empty or "." entry of PATH gives a name relative to here, and the program runs elsewhere
    return Path(found).absolute() if found else spec.locate_extra()


def locate(spec: ExternalSolver, solver_path: Path | None) -> tuple[Path, dict[str, str]]:
    """The program to run and its environment; OlctcError saying how to install it when missing."""
    exe: Path | None
    if solver_path is not None:
        # A bare program name is looked up on PATH; a path is used as given. The program runs in a
        # temporary folder, so the path is made absolute.
        bare = os.sep not in str(solver_path)
        found = shutil.which(str(solver_path)) if bare else None
        exe = Path(found).absolute() if found else Path(solver_path).absolute()
        if not (exe.is_file() and os.access(exe, os.X_OK)):
            if bare and not exe.exists():  # a name: looked up on PATH first
                raise OlctcError(f"solver program {str(solver_path)!r} is not on PATH, nor a file in this folder: "
                                 "give its path")
            raise OlctcError(f"solver program {exe} does not exist or is not executable")
    else:
        exe = find_program(spec)
        if exe is None:
            raise OlctcError(f"{spec.name} needs the '{spec.program}' program, which is not on PATH: "
                             f"install it with `{spec.install}` or give its path (--solver-path; solver_path= in Python)")
    env = dict(os.environ)
    # highsbox's binary has no RPATH: it finds libhighs only through LD_LIBRARY_PATH (../lib).
    lib = exe.resolve().parent.parent / "lib"
    if exe.resolve().parent.parent.name == "highs_dist" and lib.is_dir():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(filter(None, [str(lib), env.get("LD_LIBRARY_PATH", "")]))
    return exe, env


@functools.cache
def dies_with_us() -> tuple[str, ...]:
    """The command prefix that sends a solver program SIGKILL when the thread that started it ends, however it
    ends: util-linux's ``setpriv --pdeathsig KILL --`` (util-linux 2.33+); () where it is not there (not Linux).

    A SIGKILLed olctc (``kill -9``, the out-of-memory killer) left CBC running on a core to its own time limit.
    Linux's PR_SET_PDEATHSIG would need Python code between fork and exec (``preexec_fn``), which may deadlock in
    a process with threads: setpriv sets it in the child and execs the program, which keeps setpriv's pid
    (``proc.kill`` reaches the solver).
    """
    if not sys.platform.startswith("linux"):
        return ()
    # cached for the process: a PATH without /usr/bin at the first call (PATH=bin to find one program) left every
    # later program unguarded, so the system's folders are looked in too
    exe = shutil.which("setpriv") or shutil.which("setpriv", path=os.defpath)
    if exe is None:
        return ()
    prefix = (exe, "--pdeathsig", "KILL", "--")
    try:
        ok = subprocess.run([*prefix, shutil.which("true") or sys.executable, "-c", ""], stdin=subprocess.DEVNULL,
                            capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):  # a setpriv that cannot run here: run programs as they are
        ok = False
    return prefix if ok else ()


def _echo(text: str) -> None:
    """Write ``text`` to standard output, each character it cannot encode replaced: on an ASCII stdout
    (PYTHONIOENCODING=ascii) a model path holding an é raised UnicodeEncodeError mid-solve."""
    out = sys.stdout
    try:
        out.write(text)
    except UnicodeEncodeError:  # raised before anything is written: the text is encoded whole
        encoding = out.encoding or "ascii"
        out.write(text.encode(encoding, "replace").decode(encoding))
    out.flush()


def _run(cmd: list[str], env: dict[str, str], verbose: bool, hard_timeout: float | None,
         cwd: Path) -> tuple[int, str, list[str]]:
    """Run, echoing output lines when verbose. Returns exit code, full output head (for the version)
    and the last lines (for error messages)."""
    if verbose:
        _echo("running: " + " ".join(cmd) + "\n")
    tail: collections.deque[str] = collections.deque(maxlen=60)  # holds CBC's and HiGHS's closing summary
    head: list[str] = []
    try:
        proc = subprocess.Popen([*dies_with_us(), *cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env,
                                cwd=cwd, text=True, encoding="utf-8", errors="replace", bufsize=1)
    except OSError as exc:  # a program the system cannot start: "Exec format error", a script's missing interpreter
        raise OlctcError(f"cannot run the solver program {cmd[0]}: {exc.strerror or exc}") from None
    with proc:
        # A watchdog in case the solver overruns its own time limit by far (CBC can hang in cleanup).
        timer = threading.Timer(hard_timeout, proc.kill) if hard_timeout else None
        if timer:
            # a daemon: a cancel() cut short by an interrupt (Event.set holds a lock in Python code) must not
            # leave a thread that the interpreter's exit waits for
            timer.daemon = True
            timer.start()
        try:
            assert proc.stdout is not None
            for line in proc.stdout:
                check_interrupt()  # one whose KeyboardInterrupt Python dropped: the program would run on
                if len(head) < 40:
                    head.append(line)
                tail.append(line.rstrip("\n"))
                if verbose:
                    _echo(line)
            code = proc.wait()
        except BaseException:
            proc.kill()
            raise
        finally:
            if timer:
                timer.cancel()
    return code, "".join(head), list(tail)


def _said(pattern: str | None, tail: list[str]) -> bool:
    """Whether a line of the program's last output matches ``pattern``."""
    return pattern is not None and any(re.search(pattern, line) for line in tail)


def _version(spec: ExternalSolver, output: str) -> str:
    for pattern, fmt in spec.version_patterns:
        match = re.search(pattern, output)
        if match:
            return fmt.format(match.group(1))
    return f"{spec.program} (version unknown)"


def _logged_bound(spec: ExternalSolver, tail: list[str]) -> float | None:
    """The bound the program printed in its closing summary, the last such line; None if it printed none
    (its solution file states none: CBC's never, HiGHS's not for a MIP stopped by a limit)."""
    if spec.bound_pattern is None:
        return None
    for line in reversed(tail):
        found = re.match(spec.bound_pattern, line)
        if found:
            try:
                return finite_or_none(float(found.group(1)))
            except ValueError:  # not a number: no bound, as if not printed
                return None
    return None


def solve_external(name: str, path: Path, opts: SolveOptions) -> SolveResult:
    """Run external solver ``name`` on model file ``path`` and read its solution file back."""
    from olctc.read import read_solution

    spec = EXTERNAL[name]
    exe, env = locate(spec, opts.solver_path)
    if name in UNTUNABLE:
        warn(UNTUNABLE[name])
    if name == "glpk-cli" and opts.threads is not None and opts.threads > 1:
        # the request was dropped without a word (glpk_args takes no threads)
        warn(f"glpsol runs on one thread: the {opts.threads} threads asked for are not used")
    solution = Path(opts.solution_path) if opts.solution_path is not None else \
        path.with_name(f"{model_stem(path)}.{spec.program if spec.program != 'glpsol' else 'glpk'}.sol")
    if not solution.parent.is_dir():
        raise OlctcError(f"cannot write solution {solution}: folder {solution.parent} does not exist")

    names: list[str] | None = list(opts.col_names) if opts.col_names is not None else None
    lb = ub = None
    if names is None or (opts.start is not None and not isinstance(opts.start, np.ndarray)):
        names, lb, ub = file_columns(path)

    with scratch_folder("olctc-solve-") as workdir, contextlib.ExitStack() as stack:
        start_file: Path | None = None
        if opts.start is not None or opts.start_path is not None:
            if spec.start_solver is None:
                warn(f"{spec.program} takes no MIP start; the start is ignored")
            elif opts.start_path is not None:
                start_file = Path(opts.start_path).resolve()  # the solver runs in its own folder
                if not start_file.is_file():
                    raise OlctcError(f"MIP start file {start_file} does not exist")
                if len(os.fsencode(start_file)) > SOLVER_PATH_MAX:  # as the model (readable_path)
                    (workdir / "start").mkdir()
                    start_file = stack.enter_context(handed_over(start_file, workdir / "start", "start.sol"))
            else:
                from olctc.emit.start import start_filename, write_start

                x0 = start_vector(opts.start, names, lb, ub)
                assert x0 is not None  # opts.start is not None here: there is a start and no start_path
                # own subfolder: HiGHS's start and solution files share the name <stem>.highs.sol
                (workdir / "start").mkdir()
                start_file = workdir / "start" / start_filename(model_stem(path), spec.start_solver)
                write_start(start_file, names, x0, spec.start_solver)
        # The solver writes into the temporary folder; the file is moved to its final name only
        # when complete, so a failed run never leaves a stale or partial solution behind. Own subfolder: a
        # solution named "model" or "start" (no suffix) was written onto those folders, and the solve was lost.
        (workdir / "solution").mkdir()
        raw_solution = workdir / "solution" / (solution.name if len(os.fsencode(solution.name)) <= 100
                                               else "solution.sol")
        # own subfolder, so that no solution or start file can take the model's name
        (workdir / "model").mkdir()
        with readable_path(path, workdir / "model") as model:
            inv = Invocation(exe=exe, model=model, solution=raw_solution, start=start_file, workdir=workdir,
                             env=env)
            # the program's limit is what this call has left (reading the model is the program's own business)
            opts = replace(opts, time_limit=opts.remaining(), deadline=None)
            cmd = spec.command(inv, opts)
            hard_timeout = 2 * opts.time_limit + 60 if opts.time_limit is not None else None
            t0 = time.perf_counter()
            code, head, tail = _run(cmd, env, opts.verbose, hard_timeout, cwd=workdir)
            runtime = time.perf_counter() - t0
        if opts.time_limit is not None and runtime > opts.time_limit + overrun_grace(opts.time_limit):
            warn(f"{spec.program} ran {runtime:.1f} s, {runtime - opts.time_limit:.1f} s past its time "
                 f"limit of {opts.time_limit:.1f} s{spec.overrun_why}")
        if not raw_solution.is_file() or raw_solution.stat().st_size == 0:
            if _said(spec.stopped_reading, tail):
                raise TimeLimitTooShort(f"no time is left to solve: {spec.program} stopped reading model file {path} "
                                        "when the time limit ran out; give it more time")
            last = " | ".join(line for line in tail[-3:] if line.strip())
            said = f"last output: {last}" if last else "it printed nothing"
            raise OlctcError(f"{spec.program} wrote no solution file (exit code {code}); {said}")
        try:  # before the move: a solution of other columns (CBC's x0, x1, ...) is not written
            sol = read_solution(raw_solution, col_names=names)
            x = sol.to_array(names) if sol.has_solution() else None
        except OlctcError as exc:  # named olctc's temporary file, which is gone: name what the program wrote
            raise type(exc)(str(exc).replace(str(raw_solution), f"the solution {spec.program} wrote")) from None
        with contextlib.suppress(OSError):
            solution.unlink()
        shutil.move(str(raw_solution), str(solution))

    objective = sol.objective if x is not None else None
    bound = sol.bound if sol.bound is not None else _logged_bound(spec, tail)
    if bound is None and sol.status == "optimal":
        bound = objective  # what the program claims (CBC's summary of an optimum prints no bound)
    status, gap = sol.status, relative_gap(objective, bound)
    raw_status = str(sol.raw_status)
    if status != "optimal" and limit_kind(raw_status) != "time" and _said(spec.stopped_on_time, tail):
        raw_status += "; stopped on time"  # glpsol's "s mip u" (undefined) or "f" (feasible): its log says why
    if name == "highs-cli" and status == "optimal" and highs_gap_left(gap, objective, bound, opts.mip_gap):
        status = "feasible"  # raw_status keeps the program's "Optimal"
    return SolveResult(status=status, objective=objective, bound=bound, gap=gap,
                       x=x, col_names=names, solver=name,
                       solver_version=_version(spec, head), runtime=runtime,
                       raw_status=raw_status, solution_path=solution)
