"""Process-and-files plumbing a mutation pass over io.py, scratch.py, background.py, process_state.py,
sigactions.py and the interrupt / closed-pipe / standard-output paths of cli_process.py (QA 2026-12-06) could
change without any other test noticing. Real files in tmp_path, real processes signalled for real, real pipes
(full ones, and ones whose reader is gone); each test's comment names the mutant it kills.

93 mutants: 24 killed by targeted existing tests, 53 by these tests (each re-applied and seen to fail), 16 survive:
equivalent c22 (a closed descriptor reopened always lands on its own number), c25 (click.echo flushes each line),
c27/c28 (what the closed-pipe guard drops goes to /dev/null either way), c30 (EPIPE never reaches _stdout_failed),
c40 (click.echo flushes), i25 (root: the probe decides), s10 (a non-regular marker fails the host read); gaps
c04/c33 (pipes not made non-blocking at the first interrupt: a paused reader's test was not robust), c18/c24
(not run against test_interrupt's recompile and test_disk_full's -u tests), s3 (needs a mount inside), b2 (masked
by the parent's exit 130), b4 (a failing block not waiting for its thread), b7 (a message)."""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from conftest import cli_main

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals, pipes and /proc: Linux")


def _default_hang_up() -> None:
    """In the child before exec: SIGHUP at its default (a test run under nohup passes an ignored one on)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def _python(script: str, *args: str, cwd: Path, env: dict | None = None,
            ignore: tuple[int, ...] = ()) -> subprocess.CompletedProcess:
    """``script`` in a fresh interpreter, SIGHUP at its default and the signals ``ignore`` ignored (as a shell
    starts a background job: ``olctc ... &``)."""
    def before_exec() -> None:
        _default_hang_up()
        for sig in ignore:
            signal.signal(sig, signal.SIG_IGN)

    return subprocess.run([sys.executable, "-c", textwrap.dedent(script), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=120, env=env, preexec_fn=before_exec)


def _catches(pid: int, sig: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``sig`` (its SigCgt mask in /proc)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(status.split("SigCgt:")[1].split()[0], 16)
    return bool(mask >> (sig - 1) & 1)


def _wait_for(what: str, ready, p: subprocess.Popen, seconds: float = 120) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        assert p.poll() is None, f"the command ended before {what}"
        assert time.monotonic() < deadline, f"no {what} within {seconds} s"
        time.sleep(0.01)


def _full_pipe() -> tuple[int, int]:
    """A pipe (read end, write end) filled to the brim: a blocking write into it waits for good."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    with contextlib.suppress(BlockingIOError):
        while True:
            os.write(w, b"x" * 4096)
    os.set_blocking(w, True)
    return r, w


# ---------------------------------------------------------------- cli_process: interrupts and pipes

def test_an_interrupt_with_its_output_pipes_full_exits_130_and_puts_their_mode_back(tmp_path):
    """`olctc ... 2>&1 | less`, paused: stdout and stderr are one full pipe. A SIGTERM still ends the command (exit
    130) at once, and the pipe's open file, shared with the shell's other commands, is blocking again after.
    Kills c03 ("interrupted" echoed by click: blocks for good), c05 (_hard_exit not putting modes back)."""
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)  # no writer ever comes: the fit waits in open() until it is signalled
    r, w = _full_pipe()
    try:
        p = subprocess.Popen([sys.executable, "-m", "olctc.cli", "fit", fifo.name, "--target", "y", "--depth", "1",
                              "--quiet", "-o", "t.json"], cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=w, stderr=w,
                             preexec_fn=_default_hang_up)
        try:
            _wait_for("SIGTERM handler", lambda: _catches(p.pid, signal.SIGTERM), p)
            p.send_signal(signal.SIGTERM)
            code = p.wait(timeout=60)
        finally:
            if p.poll() is None:
                p.kill()
                p.wait()
        assert code == 130
        assert os.get_blocking(w), "the shared pipe was left non-blocking"
        assert sorted(os.listdir(tmp_path)) == ["data.csv"]
    finally:
        os.close(r)
        os.close(w)


def test_ctrl_c_during_a_solve_writes_the_incumbent_exits_130_and_leaves_its_pipe_blocking(tmp_path, capsys,
                                                                                          monkeypatch):
    """Ctrl-C in a real solve (HiGHS, its log into a pipe the test keeps a copy of): the incumbent is written, the
    exit is 130 with its one line, and the pipe the interrupt made non-blocking is blocking again (a later writer in
    the same pipeline failed with "Resource temporarily unavailable"). Kills c35 (main not leaving by _hard_exit
    after the pipes were unblocked), c38 (exit 0 after an interrupted solve), p3 (interrupt_handled not clearing the
    interrupt: the solution is not committed)."""
    monkeypatch.chdir(tmp_path)
    code, _out, err = cli_main(["compile", "--dataset", "sonar", "--depth", "2", "-o", "m.mps"], capsys)
    assert code == 0, err
    r, w = os.pipe()
    log: list[bytes] = []
    solving = threading.Event()

    def drain() -> None:
        while chunk := os.read(r, 65536):
            log.append(chunk)
            if b"B&B Tree" in b"".join(log):
                solving.set()

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    p = subprocess.Popen([sys.executable, "-m", "olctc.cli", "solve", "m.mps", "--solver", "highs", "--threads", "1",
                          "--time-limit", "60", "-o", "m.sol"], cwd=tmp_path, stdout=w, stderr=subprocess.PIPE,
                         text=True, preexec_fn=_default_hang_up)
    try:
        _wait_for("branch-and-bound log", solving.is_set, p)
        p.send_signal(signal.SIGINT)
        _out, err = p.communicate(timeout=120)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    try:
        assert p.returncode == 130, err
        assert err.endswith("interrupted (the best solution found until then was written)\n") and "Trace" not in err
        assert os.get_blocking(w), "the pipe of the solve's log was left non-blocking"
    finally:
        os.close(w)
        reader.join(30)
        os.close(r)
    from olctc.read import read_solution

    sol = read_solution(tmp_path / "m.sol")
    assert sol.status == "feasible" and sol.values


_SIGNAL_THEN_ERROR = """
import os, signal, sys
import olctc.cli as c

def command(*args, **kwargs):
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(10 ** 8):
            pass
    except KeyboardInterrupt:
        pass
    # outside the except block: no __context__ leads back to the interrupt (matplotlib's renderer style)
    raise ValueError("Invalid bounding box")

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""


def test_any_error_after_a_signal_is_the_interrupt(tmp_path):
    """An error that follows a signal is its consequence: exit 130 "interrupted", not a traceback. Kills c36 (the
    error after a signal judged by its chain only)."""
    p = _python(_SIGNAL_THEN_ERROR, cwd=tmp_path)
    assert (p.returncode, p.stderr) == (130, "interrupted\n")


_SIGNAL_AFTER_THE_COMMAND = """
import os, signal, sys
import olctc.cli as c

def solver_left():  # main's first call once the command is over (exit 0 on its way)
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10 ** 6):
        pass
    return False

c.solver_left = solver_left
sys.argv = ["olctc", "--version"]
c.main()
"""


def test_a_signal_once_the_command_is_done_takes_its_default_action(tmp_path):
    """A SIGTERM once the command's files are whole ends the process as SIGTERM does (-15), silently: raised as a
    KeyboardInterrupt outside every handler it was a traceback. Kills c16 (the handler ignoring ``closing``) and
    c37 (_run not marking the command done)."""
    p = _python(_SIGNAL_AFTER_THE_COMMAND, cwd=tmp_path)
    assert p.returncode == -signal.SIGTERM and p.stderr == "", p.stderr


_MULTIPROCESSING_FOLDER = """
import multiprocessing.util, os, signal, sys
import olctc.cli as c

print(multiprocessing.util.get_temp_dir(), flush=True)

def command(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10 ** 8):
        pass

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""


def test_an_interrupted_command_leaves_no_multiprocessing_folder(tmp_path):
    """The pymp-* folder multiprocessing removes at a normal exit is removed by the interrupt's os._exit too. Kills
    c07 (_hard_exit not removing it) and c08 (the prefix misspelt)."""
    p = _python(_MULTIPROCESSING_FOLDER, cwd=tmp_path, env={**os.environ, "TMPDIR": str(tmp_path)})
    made = Path(p.stdout.splitlines()[0])
    assert made.parent == tmp_path and made.name.startswith("pymp-")
    assert (p.returncode, p.stderr) == (130, "interrupted\n")
    assert not made.exists()


def test_an_interrupt_in_process_exits_130(monkeypatch, capsys):
    """olctc.cli.main(ARGS) in another program: an interrupt is exit 130 and one line. Kills c02."""
    import olctc.cli as c

    def command(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(c.cli, "main", command)
    assert cli_main(["datasets"], capsys) == (130, "", "interrupted\n")


@pytest.mark.parametrize("wrap", ["context", "cause", "twice"])
def test_an_error_wrapping_an_interrupt_is_the_interrupt(monkeypatch, capsys, wrap):
    """Python turns an interrupt raised in a class body's __set_name__ into a RuntimeError: exit 130, not an error,
    also wrapped once more (the import machinery's error raised from it). Kills c19 (the __context__ chain not
    followed), c20 (the chain not followed at all) and qa149's mutant following the chain two steps only."""
    import olctc.cli as c

    def command(*args, **kwargs):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            if wrap == "context":
                raise RuntimeError("Error calling __set_name__")
            if wrap == "cause":
                raise RuntimeError("Error calling __set_name__") from exc
            try:
                raise RuntimeError("Error calling __set_name__") from exc
            except RuntimeError as inner:
                raise RuntimeError("import failed") from inner

    monkeypatch.setattr(c.cli, "main", command)
    assert cli_main(["datasets"], capsys) == (130, "", "interrupted\n")


def test_a_warning_is_one_line(monkeypatch, capsys):
    """A warning whose text holds line breaks is printed on one line, like the errors. Kills c21."""
    import warnings

    import olctc.cli as c

    def command(*args, **kwargs):
        warnings.warn("first part,\n    second part", UserWarning)

    monkeypatch.setattr(c.cli, "main", command)
    assert cli_main(["datasets"], capsys) == (0, "", "warning: first part, second part\n")


def test_the_handlers_of_a_calling_program_are_put_back(monkeypatch, capsys):
    """olctc.cli.main(ARGS) inside another program leaves its SIGTERM and SIGHUP handlers as they were. Kills c12
    and c41 (the handlers olctc installed left in place)."""
    before = {sig: signal.signal(sig, signal.SIG_DFL) for sig in (signal.SIGTERM, signal.SIGHUP)}
    try:
        assert cli_main(["--version"], capsys)[0] == 0
        after = {sig: signal.getsignal(sig) for sig in before}
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    assert after == {signal.SIGTERM: signal.SIG_DFL, signal.SIGHUP: signal.SIG_DFL}


@pytest.mark.parametrize("unbuffered", [False, True], ids=["buffered", "unbuffered"])
def test_a_reader_gone_before_the_first_write_stops_nothing(tmp_path, unbuffered):
    """`olctc datasets | head -c0` (the reader gone before the command writes), with Python's output buffered or not
    (-u, PYTHONUNBUFFERED=1, common in containers): exit 0, nothing on stderr. Kills c26-c29 (the closed-pipe
    guard not catching, or catching too much) where the existing closed-pipe tests do not reach."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"} if unbuffered else {
        k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([sys.executable, "-m", "olctc.cli", "datasets"], stdout=w, stderr=subprocess.PIPE,
                           text=True, timeout=120, cwd=tmp_path, env=env)
    finally:
        os.close(w)
    assert (p.returncode, p.stderr) == (0, "")


def test_a_closed_standard_output_stops_nothing(tmp_path):
    """`olctc datasets >&-`: sys.stdout was None, and the final flush failed (exit 1). Kills c23."""
    p = subprocess.run(["bash", "-c", f"{sys.executable} -m olctc.cli datasets >&-"], capture_output=True, text=True,
                       timeout=120, cwd=tmp_path)
    assert (p.returncode, p.stderr) == (0, "")


# ---------------------------------------------------------------- process_state: deferred interrupts

@pytest.fixture
def no_interrupt():
    from olctc.process_state import note_interrupt

    note_interrupt(False)
    yield
    note_interrupt(False)


def test_an_interrupt_noted_in_a_deferred_section_is_raised_at_the_outermost_end(no_interrupt):
    """Kills p1 (the section's end not raising it) and p2 (a single section not counted as deferring)."""
    from olctc.process_state import interrupts_are_deferred, interrupts_deferred, note_interrupt

    assert not interrupts_are_deferred()
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            assert interrupts_are_deferred()
            with interrupts_deferred():
                note_interrupt()
            assert interrupts_are_deferred()  # the inner end raises nothing: the outer one will
    assert not interrupts_are_deferred()


def test_a_deferred_section_on_another_thread_defers_nothing(no_interrupt):
    """Signals reach the main thread only: a section on another thread must not hold the main thread's. Kills p5."""
    from olctc.process_state import interrupts_are_deferred, interrupts_deferred

    seen = []

    def run() -> None:
        with interrupts_deferred():
            seen.append(interrupts_are_deferred())

    t = threading.Thread(target=run)
    t.start()
    t.join(30)
    assert seen == [False]


# ---------------------------------------------------------------- io: atomic writes and output paths

def test_a_rewritten_file_keeps_its_permissions_and_a_link_stays_a_link(tmp_path):
    """Kills i05 (a private 0600 file rewritten 0644) and i06 (a symbolic link replaced by a file)."""
    from olctc.io import atomic_write_text

    target = tmp_path / "private.json"
    target.write_text("old")
    target.chmod(0o600)
    link = tmp_path / "link.json"
    link.symlink_to(target.name)
    atomic_write_text(link, "new")
    assert link.is_symlink() and target.read_text() == "new"
    assert target.stat().st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ["link.json", "private.json"]


def test_a_fifo_is_written_into_not_replaced(tmp_path):
    """-o FIFO: the text goes to its reader, and the FIFO stays a FIFO. Kills i07."""
    import stat

    from olctc.io import atomic_write_text

    fifo = tmp_path / "out"
    os.mkfifo(fifo)
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader, so that opening it to write does not block
    try:
        atomic_write_text(fifo, "through the pipe\n")
        got = os.read(fd, 1 << 16)
    finally:
        os.close(fd)
    assert got == b"through the pipe\n"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and os.listdir(tmp_path) == ["out"]


def test_a_failed_write_leaves_nothing_and_the_earlier_file_whole(tmp_path):
    """Kills i01 (the temporary file left behind by a failed block) and i04 (it stays recorded as being written:
    an interrupt's exit would remove it again, and the record grows with every write)."""
    from olctc import io

    out = tmp_path / "t.json"
    out.write_text("earlier")
    with pytest.raises(ZeroDivisionError):
        with io.atomic_open(out) as fh:
            fh.write("half")
            1 / 0
    io.atomic_write_text(tmp_path / "u.json", "whole")
    assert sorted(os.listdir(tmp_path)) == ["t.json", "u.json"] and out.read_text() == "earlier"
    assert not io._being_written


def test_probing_the_output_folder_leaves_it_as_it_was(tmp_path):
    """A command refused later leaves its folder as it found it: no probe file, the same modification time. Kills
    i12 (the folder's times not put back) and i13 (the probe left)."""
    from olctc.io import check_writable

    folder = tmp_path / "out"
    folder.mkdir()
    old = time.time_ns() - 3_600 * 10**9
    os.utime(folder, ns=(old, old))
    assert check_writable(folder / "t.json") == folder
    assert os.listdir(folder) == [] and folder.stat().st_mtime_ns == old


def test_output_path_checks(tmp_path):
    """Kills i15 (a linked file in olctc's own folder written through), i16 (a hard link to the input not seen as
    the input), i21 (a name ending in a slash taken as a file), i23 (a folder called read-once)."""
    from olctc.errors import OlctcError
    from olctc.io import check_file_name, check_not_input, check_not_linked, read_once

    (tmp_path / "outside").write_text("theirs")
    (tmp_path / "runs.jsonl").symlink_to(tmp_path / "outside")
    with pytest.raises(OlctcError, match="is a symbolic link"):
        check_not_linked(tmp_path / "runs.jsonl", "records are written there")
    check_not_linked(tmp_path / "outside", "records are written there")
    os.link(tmp_path / "outside", tmp_path / "hard")
    with pytest.raises(OlctcError, match="is also the input model"):
        check_not_input(tmp_path / "hard", ("model", tmp_path / "outside"))
    with pytest.raises(OlctcError, match="it is a folder"):
        check_file_name("x.json/")
    assert not read_once(tmp_path) and not read_once(tmp_path / "outside")


def test_the_longest_name_gets_a_temporary_name_that_fits(tmp_path):
    """A 255-byte output name: its temporary name must fit in 255 bytes too. Kills i17."""
    from olctc.io import atomic_write_text

    out = tmp_path / ("é" * 127 + "x")
    assert len(out.name.encode()) == 255
    atomic_write_text(out, "whole")
    assert out.read_text() == "whole" and os.listdir(tmp_path) == [out.name]


def test_a_temporary_name_is_hidden_and_ends_in_tmp():
    """Kills i19."""
    from olctc.io import is_temporary_name, temporary_name

    assert is_temporary_name(temporary_name("t.json"))
    assert not is_temporary_name(".profile") and not is_temporary_name("results.tmp")


def test_a_staged_folder_error_names_the_folder_asked_for(tmp_path):
    """Kills i22 (an OlctcError naming the hidden staging folder)."""
    from olctc.errors import OlctcError
    from olctc.io import staged_errors

    out, tmp = tmp_path / "grid", tmp_path / ".grid.0123456789ab.tmp"
    with pytest.raises(OlctcError) as exc:
        with staged_errors(out, tmp):
            raise OlctcError(f"cannot write {tmp / 'jobs.tsv'}: No space left on device")
    assert str(exc.value) == f"cannot write {out / 'jobs.tsv'}: No space left on device"


def test_a_folder_lock_held_elsewhere_says_it_waits(tmp_path):
    """A compile behind another one says it waits, then runs once the other is done. Kills i24."""
    from olctc.io import folder_lock

    said, done = threading.Event(), threading.Event()

    def second() -> None:
        with folder_lock(tmp_path, waiting=said.set):
            done.set()

    with folder_lock(tmp_path):
        t = threading.Thread(target=second, daemon=True)
        t.start()
        assert said.wait(60), "the second holder did not say it waits"
        assert not done.is_set()
    t.join(60)
    assert done.is_set()


# ---------------------------------------------------------------- sigactions: handlers kept across a library

def _action(sig: int) -> bytes:
    """The handler's address and the signals it blocks (what the kernel keeps: glibc fills the rest of its larger
    sigset_t with whatever its stack held)."""
    from olctc.sigactions import saved

    return saved()[int(sig)].raw[:16]


@pytest.fixture
def python_handlers():
    """Python's own record of SIGFPE's and SIGINT's handlers put back after the test (the C level is the test's)."""
    kept = {sig: signal.getsignal(sig) for sig in (signal.SIGFPE, signal.SIGINT)}
    yield
    for sig, handler in kept.items():
        signal.signal(sig, handler)


def test_a_library_s_handlers_are_undone_when_the_block_ends(python_handlers):
    """Kills g2 (nothing restored) and g3 (SIGINT's handler not kept: CBC's and SCIP's stayed)."""
    from olctc.sigactions import kept

    fpe, intr = _action(signal.SIGFPE), _action(signal.SIGINT)
    with kept():
        signal.signal(signal.SIGFPE, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        assert _action(signal.SIGFPE) != fpe
    assert (_action(signal.SIGFPE), _action(signal.SIGINT)) == (fpe, intr)


def test_blocks_running_at_once_share_one_save(python_handlers):
    """Two solves at once: the first block saves, the last restores. Kills g1 (the first to end restored while the
    other's library still ran) and g5 (each block saved its own: the later one saved the library's for good)."""
    from olctc.sigactions import kept

    original = _action(signal.SIGFPE)
    first, second = kept(), kept()
    first.__enter__()
    signal.signal(signal.SIGFPE, signal.SIG_IGN)  # the first block's library installs its handler
    library = _action(signal.SIGFPE)
    second.__enter__()
    second.__exit__(None, None, None)
    assert _action(signal.SIGFPE) == library  # the first block's library still runs
    second = kept()
    second.__enter__()
    first.__exit__(None, None, None)
    second.__exit__(None, None, None)
    assert _action(signal.SIGFPE) == original


def test_a_forked_child_starts_with_no_block_running():
    """Kills g4 (the child inherited the parent's count: its blocks never restored)."""
    from olctc import sigactions

    with sigactions.kept():
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            os._exit(0 if sigactions._SHARED["depth"] == 0 else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_write_without_blocking_leaves_the_pipe_as_it_was():
    """Its pipe's open file is shared with the shell's other commands: non-blocking only for the write, and what
    does not fit is dropped, not waited for. Kills c06 (the mode not put back) and c34 (the write made blocking:
    into a full pipe it waits for good)."""
    from olctc.cli_process import _write_without_blocking

    r, w = _full_pipe()
    done = threading.Event()

    streams = []

    def write() -> None:
        streams.append(open(w, "w", closefd=False))
        _write_without_blocking(streams[0], "interrupted\n")
        done.set()

    t = threading.Thread(target=write, daemon=True)
    try:
        t.start()
        assert done.wait(60), "the write waited for the full pipe's reader"
        assert os.get_blocking(w)
    finally:
        os.close(r)  # a write still waiting fails now
        t.join(30)
        for stream in streams:
            with contextlib.suppress(OSError):  # what the full pipe did not take: the reader is gone
                stream.close()
        os.close(w)


_INTERRUPT_IN_AN_IMPORT = """
import sys
import olctc.cli as c

def command(*args, **kwargs):
    import half_made  # its body signals this process, then finishes its work
    open("went_on", "w").close()  # the interrupt is raised before this

c.cli.main = command
sys.path.insert(0, ".")
sys.argv = ["olctc", "datasets"]
c.main()
"""

_MODULE = """
import os, signal
os.kill(os.getpid(), signal.SIGTERM)
for _ in range(10 ** 6):
    pass
open("finished", "w").close()
"""


def test_an_interrupt_during_an_import_waits_for_its_end(tmp_path):
    """An interrupt raised in a module's body left it half made (native ones: a segfault or an abort at exit): it
    waits for the import's end, then the command exits 130. Kills c10 (raised at once) and c11 (never raised: the
    command ran on to its end, exit 0)."""
    (tmp_path / "half_made.py").write_text(_MODULE)
    p = _python(_INTERRUPT_IN_AN_IMPORT, cwd=tmp_path)
    assert (p.returncode, p.stderr) == (130, "interrupted\n")
    assert (tmp_path / "finished").exists() and not (tmp_path / "went_on").exists()


def test_another_writer_s_temporary_file_is_never_taken(tmp_path, monkeypatch):
    """A temporary name already taken (another process writing the same file) is passed over, and that file left
    alone. Kills i08 (the temporary file opened without O_EXCL: the other writer's file written over and moved into
    place)."""
    from olctc import io

    names = iter(["aaaaaaaaaaaa", "bbbbbbbbbbbb"])
    monkeypatch.setattr(io.secrets, "token_hex", lambda n: next(names))
    theirs = tmp_path / ".t.json.aaaaaaaaaaaa.tmp"
    theirs.write_text("another writer's")
    io.atomic_write_text(tmp_path / "t.json", "mine")
    assert theirs.read_text() == "another writer's" and (tmp_path / "t.json").read_text() == "mine"
    assert sorted(os.listdir(tmp_path)) == [theirs.name, "t.json"]


def test_an_input_s_error_inside_a_write_names_the_input(tmp_path):
    """A block that reads an input while it writes: an error of the input is not "cannot write OUTPUT". Kills
    i10."""
    from olctc.io import atomic_open

    with pytest.raises(FileNotFoundError):
        with atomic_open(tmp_path / "out.csv") as fh:
            fh.write(open(tmp_path / "missing.csv").read())
    assert os.listdir(tmp_path) == []


def test_an_interrupt_s_exit_removes_the_folders_being_written(tmp_path):
    """The grid's staged folder, recorded as being written, is removed by an interrupt's exit. Kills i11."""
    from olctc.io import being_written, remove_files_being_written

    staged = tmp_path / ".grid.0123456789ab.tmp"
    (staged / "tasks").mkdir(parents=True)
    (staged / "tasks" / "jobs.tsv").write_text("x")
    (tmp_path / ".t.json.0123456789ab.tmp").write_text("half")
    being_written(staged)
    being_written(tmp_path / ".t.json.0123456789ab.tmp")
    remove_files_being_written()
    assert os.listdir(tmp_path) == []


def test_a_folder_s_removal_goes_on_through_a_second_interrupt(tmp_path, monkeypatch):
    """Ctrl-C pressed again while the first one's cleanup removes a folder: the removal is finished. Kills i20."""
    import shutil

    from olctc.io import remove_tree

    real, calls = shutil.rmtree, []

    def cut_once(path, *args, **kwargs):
        calls.append(path)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(path, *args, **kwargs)

    (tmp_path / "d" / "e").mkdir(parents=True)
    monkeypatch.setattr(shutil, "rmtree", cut_once)
    remove_tree(tmp_path / "d")
    assert os.listdir(tmp_path) == [] and len(calls) == 2


def test_a_noted_interrupt_stops_a_write_at_its_commit(tmp_path, no_interrupt):
    """An interrupt whose KeyboardInterrupt Python dropped (in a finaliser) stops the next commit: nothing appears
    under the final name. Kills i02."""
    from olctc.io import atomic_open
    from olctc.process_state import note_interrupt

    with pytest.raises(KeyboardInterrupt):
        with atomic_open(tmp_path / "t.json") as fh:
            fh.write("whole, but interrupted")
            note_interrupt()  # the handler's record; its KeyboardInterrupt was dropped
    assert os.listdir(tmp_path) == []


def test_an_interrupt_s_exit_finds_the_temporary_file_of_a_write_under_way(tmp_path):
    """The console program's interrupt exit (os._exit: no cleanup of a suspended writer runs) removes the temporary
    file of a write under way. Kills i03 (the file not recorded)."""
    from olctc.errors import OlctcError
    from olctc.io import atomic_open, remove_files_being_written

    with pytest.raises((OlctcError, OSError)):  # the commit finds its file gone
        with atomic_open(tmp_path / "t.json") as fh:
            fh.write("half")
            fh.flush()
            assert len(os.listdir(tmp_path)) == 1
            remove_files_being_written()
            assert os.listdir(tmp_path) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another user needs root")
def test_the_sweep_leaves_another_user_s_folders_alone(tmp_path, monkeypatch):
    """A dead folder (its marker names this machine, no process holds it) of another user is not this process's to
    remove. Kills s6."""
    import socket
    import tempfile

    from olctc.scratch import MARK, sweep

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    for var in ("TEMP", "TMP"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    theirs, mine = tmp_path / "olctc-milp-abcd1234", tmp_path / "olctc-milp-efgh5678"
    for d in (theirs, mine):
        d.mkdir()
        (d / "model.mps").write_text("x")
        (d / MARK).write_bytes(socket.gethostname().encode())
    os.chown(theirs, 65534, 65534)
    assert sweep() == [mine]
    assert os.listdir(tmp_path) == [theirs.name]
