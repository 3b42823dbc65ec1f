"""Shared test helpers: a direct highspy solve of MILP arrays (independent of olctc.solve), what
HiGHS logs when it takes a MIP start, a file system of a given size (tmpfs)."""
from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

# One BLAS/OpenMP thread per process: the suite runs two workers on two cores (`-n 2`), each starting olctc
# processes of its own, and OpenBLAS's threads spin while they wait for work. With one thread each, the whole
# suite took about 10% less CPU and wall time (measured on 2 cores, 2026-12-01: 4 test files 188 -> 171 s and
# 3 others 201 -> 180 s). Set before numpy is loaded here, inherited by every process a test starts, and a
# value the caller set is kept.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

# A test run started in the background by a script (`pytest &`) inherits SIGINT ignored, and so does
# every olctc process the tests start: the tests that interrupt one as a terminal's Ctrl-C would then
# see it carry on (measured: a compile finished with exit 0). A caught signal is reset to its default
# in a child at exec, so catching it here gives the children a terminal's Ctrl-C.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

#: CPython 3.13.0's getattr on a module raises SystemError ("returned NULL without setting an exception") when
#: ``python -c`` runs in a deleted working folder (its module-shadowing check; CPython gh-130932, fixed in a
#: later 3.13 release): numpy fails to import there, whatever olctc does (QA pass on 3.13.0, 2026-12-04).
#: ``olctc`` and ``python -m olctc`` in a deleted folder work on 3.13.0.
CPYTHON_DELETED_CWD_BUG = pytest.mark.skipif(
    (3, 13, 0) <= sys.version_info[:3] < (3, 13, 3),
    reason="CPython 3.13.0-3.13.2: `python -c` in a deleted folder fails in getattr (gh-130932)")

#: The line by which HiGHS says it took a MIP start, and the start's objective. HiGHS 1.16 writes
#: "is feasible: objective value is v" where 1.15 wrote "is feasible, objective value is v".
HIGHS_START_ACCEPTED = re.compile(r"MIP start solution is feasible[,:] objective value is (\S+)")


def run_highs(h) -> None:
    """``h.run()`` in this thread, whatever thread count earlier runs in this thread used.

    HiGHS keeps one task scheduler per calling thread, sized by that thread's first run. Until it is
    reset, a later run in the same thread asking for another ``threads`` fails (kError, model status
    'Not Set'): in 1.15 only when asking for more (fewer was logged and ignored), in 1.16 both ways.
    Without the reset, the tests asking for one thread depend on which tests ran before them in
    pytest's thread (a default run sizes it to the machine's cores).
    """
    import highspy

    # 1.16 renamed resetGlobalScheduler (still there) to resetThreadScheduler: it was always per thread.
    reset = getattr(highspy.Highs, "resetThreadScheduler", None) or highspy.Highs.resetGlobalScheduler
    reset(True)
    h.run()


def highs_option(h, name: str):
    """An option's value: getOptionValue returns (status, value) in highspy 1.15 and the bare value in older
    versions."""
    value = h.getOptionValue(name)
    return value[1] if isinstance(value, tuple) else value


def highs_of(milp, time_limit: float | None = None, tol: float = 1e-9, fixed: dict[int, float] | None = None):
    """A highspy.Highs holding a MILP object (its quadratic part too, without the objective constant) at tight
    tolerances on one thread, not yet run. ``fixed`` columns are fixed at their values and made continuous (an
    MIQP with every integer fixed is a convex QP HiGHS solves)."""
    import highspy
    import scipy.sparse as sp

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("mip_feasibility_tolerance", tol)
    h.setOptionValue("primal_feasibility_tolerance", tol)
    h.setOptionValue("mip_rel_gap", 0.0)
    h.setOptionValue("mip_abs_gap", 0.0)
    h.setOptionValue("threads", 1)
    if time_limit:
        h.setOptionValue("time_limit", float(time_limit))
    lb, ub, integer = milp.lb.copy(), milp.ub.copy(), milp.integer.copy()
    for j, val in (fixed or {}).items():
        lb[j] = ub[j] = val
        integer[j] = False
    A = milp.A.tocsc()
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = milp.n_cols, milp.n_rows
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = milp.c, lb, ub
    inf = highspy.kHighsInf
    lp.row_lower_ = np.where(milp.sense == "L", -inf, milp.rhs)
    lp.row_upper_ = np.where(milp.sense == "G", inf, milp.rhs)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_, lp.a_matrix_.index_, lp.a_matrix_.value_ = A.indptr, A.indices, A.data
    if integer.any():  # none once every integer is fixed: a QP, which HiGHS solves as such
        lp.integrality_ = [highspy.HighsVarType.kInteger if i else highspy.HighsVarType.kContinuous for i in integer]
    model = highspy.HighsModel()
    model.lp_ = lp
    if milp.Q is not None and milp.Q.nnz:
        Q = milp.Q.tocsc()
        assert abs(Q - Q.T).max() == 0 and (Q.diagonal() >= 0).all()
        L = sp.tril(Q, format="csc")
        hess = highspy.HighsHessian()
        hess.dim_, hess.format_ = milp.n_cols, highspy.HessianFormat.kTriangular
        hess.start_, hess.index_, hess.value_ = L.indptr, L.indices, L.data
        model.hessian_ = hess
    assert h.passModel(model) == highspy.HighsStatus.kOk
    return h


def solve_highs_arrays(milp, time_limit: float | None = None, tol: float = 1e-9,
                       fixed: dict[int, float] | None = None):
    """Optimal objective and x of a MILP object, by highspy at tight tolerances (``fixed``: as ``highs_of``); the
    solve must end optimal."""
    import highspy

    h = highs_of(milp, time_limit, tol, fixed)
    run_highs(h)
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.modelStatusToString(h.getModelStatus())
    return h.getInfo().objective_function_value + milp.obj_constant, np.array(h.getSolution().col_value)


def cli_main(args: list, capsys) -> tuple[int, str, str]:
    """``olctc ARGS`` through ``olctc.cli.main`` in this process: exit code, stdout, stderr."""
    import pytest

    from olctc.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as exc:
        main([str(a) for a in args])
    out, err = capsys.readouterr()
    code = exc.value.code
    assert isinstance(code, int), f"olctc exited with {code!r}, not an exit code"  # main always gives one
    return code, out, err


def cli_here(*args, cwd: Path | str | None = None) -> subprocess.CompletedProcess:
    """``olctc ARGS`` through ``olctc.cli.main`` in this process, from folder ``cwd``: what ``python -m
    olctc.cli ARGS`` gives (exit code, stdout, stderr) without a fresh interpreter's imports (about a second,
    scikit-learn's most). For the tests that check what a command writes and says, not how a process starts,
    ends or inherits its environment; needs no capsys, so module-scoped fixtures can use it. A solver program's
    log that goes to file descriptor 1 directly is not caught: olctc echoes the ones it reads."""
    from olctc.cli import main

    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    if cwd is not None:
        os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                main([str(a) for a in args])
                code = 0
            except SystemExit as exc:
                assert isinstance(exc.code, int), f"olctc exited with {exc.code!r}, not an exit code"
                code = exc.code
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["olctc", *map(str, args)], code, out.getvalue(), err.getvalue())


TINY_CSV = "a,b,c,y\n0.5,-1.25,x,1\n1.5,0.75,y,-1\n-0.25,2.0,x,1\n-1.0,-0.5,y,-1\n2.0,1.0,x,-1\n0.1,0.3,y,1\n"


def tiny_folder(d: Path, *commands: list[str]) -> Path:
    """``d`` holding tiny.csv (TINY_CSV) and what ``olctc COMMAND`` wrote for each command, run in process
    from ``d`` (each must exit 0): a real model, solution, tree ... for tables of bad inputs."""
    import pytest

    from olctc.cli import main

    cwd = os.getcwd()
    os.chdir(d)
    try:
        (d / "tiny.csv").write_text(TINY_CSV)
        for args in commands:
            with pytest.raises(SystemExit) as exc:
                main(args)
            assert exc.value.code == 0, args
    finally:
        os.chdir(cwd)
    return d


def proc_stat(pid: int) -> list[str] | None:
    """The fields of ``/proc/PID/stat`` after the command's name (state, parent pid, group, session, ...), or
    None when no such process is left (the name is cut at its last ')': it may hold spaces and parentheses)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def process_gone(pid: int) -> bool:
    """Whether process ``pid`` has ended: no such process, or a zombie no one has reaped yet (dead too)."""
    fields = proc_stat(pid)
    return fields is None or fields[0] in ("Z", "X")


def assert_dies_with(parent: subprocess.Popen, child: int, seconds: float, what: str) -> None:
    """SIGKILL ``parent`` and wait up to ``seconds`` for process ``child`` (``what``, for the message) to end too."""
    import time

    parent.send_signal(signal.SIGKILL)
    parent.wait(timeout=30)
    deadline = time.monotonic() + seconds
    while not process_gone(child):
        assert time.monotonic() < deadline, f"{what} ({child}) outlived its SIGKILLed parent"
        time.sleep(0.05)


def child_processes(pid: int) -> list[int]:
    """The live processes whose parent is ``pid``."""
    pids = (int(name) for name in os.listdir("/proc") if name.isdigit())
    return [q for q in pids if (fields := proc_stat(q)) is not None and int(fields[1]) == pid and not process_gone(q)]


def cli_sub(args: list, cwd) -> tuple[int, str, str]:
    """``python -m olctc.cli ARGS`` in a fresh interpreter: exit code, stdout, stderr."""
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "olctc.cli", *map(str, args)], capture_output=True, text=True,
                       cwd=cwd, timeout=120)
    return p.returncode, p.stdout, p.stderr


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A new folder with a short path, for a TMPDIR that must hold multiprocessing's fork-server socket
    (under pytest-xdist, tmp_path is too long for one, and bench then spawns its runs instead)."""
    d = Path(tempfile.mkdtemp(prefix="olctc-t", dir="/tmp"))
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@contextlib.contextmanager
def tmpfs(path: Path, options: str = "size=4m") -> Iterator[Path]:
    """A file system of its own at ``path``; skipped where it cannot be mounted; always unmounted."""
    path.mkdir()
    if shutil.which("mount") is None:
        pytest.skip("no mount command")
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip()}")
    try:
        yield path
    finally:
        if subprocess.run(["umount", str(path)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(path)], check=True)


#: python module -> why its bundled licence cannot run anything ("" when it can), found once per process
_WHEEL_LICENCE: dict[str, str] = {}

#: a one-column MIP, far inside any size limit: a licence that cannot solve it has expired (or is missing)
_WHEEL_PROBE = {
    "coptpy": "import coptpy\nm = coptpy.Envr().createModel('p')\nx = m.addVar(ub=1, vtype='I')\n"
              "m.setObjective(x)\nm.solve()\nprint('PROBE', m.status)\n",
    "xpress": "import xpress\np = xpress.problem()\nx = p.addVariable(ub=1, vartype=xpress.integer)\n"
              "p.setObjective(x)\np.optimize()\nprint('PROBE', p.attributes.solstatus)\n"}


def needs_solver_wheel(module: str) -> None:
    """Skip unless the solver wheel ``module`` (coptpy, xpress) is installed and its bundled licence solves a
    one-column MIP, without importing it in this process: importing coptpy 8.0.7 before highspy 1.16 makes
    Highs.readSolution read garbage in that process (5.4e-323 for 0.1), which would break the HiGHS tests that
    follow in this worker. A failure that names no licence fails the test: a broken wheel is not an expired
    licence (Xpress Community 9.9's ends 31-jul-2027; a newer wheel brings a new one)."""
    import importlib.util
    import sys

    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed")
    if module not in _WHEEL_LICENCE:
        done = subprocess.run([sys.executable, "-W", "ignore", "-c", _WHEEL_PROBE[module]], capture_output=True,
                              text=True, timeout=120)
        text = done.stdout + done.stderr
        if done.returncode == 0 and "PROBE" in done.stdout:
            _WHEEL_LICENCE[module] = ""
        else:
            lines = [line.strip() for line in text.splitlines() if re.search(r"(?i)licen[cs]e", line)]
            assert lines, f"{module} failed on a one-column problem, not on its licence: {text[-2000:]}"
            _WHEEL_LICENCE[module] = lines[-1][:300]
    if _WHEEL_LICENCE[module]:
        pytest.skip(f"{module}: its bundled licence cannot solve a one-column problem ({_WHEEL_LICENCE[module]}); a "
                    f"newer {module} brings a new one: raise the pin in pyproject.toml's test extras once the tests "
                    "pass with it")
