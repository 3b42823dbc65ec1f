"""The console program's process plumbing (cli_process.py) a third mutation pass (QA 2026-12-07) found no test
pinning: what an interrupt's hard exit flushes and puts back, writes into a full pipe after an interrupt, standard
input that was closed, Python's -u output (its encoding, its error handler, a short write, prompt lines), a
standard output on a full disk inside another program, an error whose chain loops, and CPython 3.11's record of an
unhandled interrupt. Real subprocesses, real pipes, real tmpfs file systems; each test names the mutants it kills."""
from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import tmpfs
from test_cli_tree_process_mutation_gaps import _tree
from test_disk_full import NO_SPACE, PAGE, fill
from test_plumbing_mutation_gaps import _default_hang_up, _full_pipe, _python

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals, pipes and /proc: Linux")

#: How long a command that must not block gets (it takes about 1 s; a blocked one never ends).
_PATIENCE = 30


def _start(script: str, cwd: Path, **kw) -> subprocess.Popen:
    """``script`` in a fresh interpreter, SIGHUP at its default; ``kw`` goes to Popen (the streams)."""
    return subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)], cwd=cwd, preexec_fn=_default_hang_up,
                            **kw)


def _ends(p: subprocess.Popen, seconds: float = _PATIENCE) -> int:
    """``p``'s exit code, or a failure saying it was still running after ``seconds`` (then it is killed)."""
    try:
        return p.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        pytest.fail(f"the command was still running after {seconds} s: it blocked")


# ---------------------------------------------------------------- an interrupt's hard exit

#: A command that signals itself (SIGTERM) and keeps busy until the signal ends it; {before}: what it does first.
_SIGNALLED_AFTER = """
import os, signal, sys
import olctc.cli as c

def command(*args, **kwargs):
{before}    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(10 ** 8):
        pass

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""
_SIGNALLED = _SIGNALLED_AFTER.format(before="")
# "partial result" stays in standard output's buffer (a pipe; under -u no line's end flushes it)
_BUFFERED_THEN_SIGNALLED = _SIGNALLED_AFTER.format(before='    sys.stdout.write("partial result")\n')


def test_an_interrupt_s_exit_writes_out_what_standard_output_held(tmp_path: Path) -> None:
    """The hard exit (os._exit) runs no finalisation: what standard output's buffer held must be flushed first, or
    a line the command printed before the signal is lost. Kills m27 (no flush at all), m75 (standard error only)
    and m36 (the non-blocking write not flushing)."""
    p = _python(_BUFFERED_THEN_SIGNALLED, cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (130, "partial result", "interrupted\n")


def test_a_pipe_the_caller_made_non_blocking_is_left_non_blocking(tmp_path: Path) -> None:
    """The interrupt makes the output pipes non-blocking and the exit puts back the mode each had: a pipe whose
    open file the caller had made non-blocking (an event loop reading the other end) stays so, not forced blocking
    under the caller's feet. Kills m28 (put back blocking) and m76 (the mode recorded as blocking)."""
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        p = _start(_SIGNALLED, tmp_path, stdin=subprocess.DEVNULL, stdout=w, stderr=w)
        code = _ends(p)
        os.set_blocking(r, False)  # an empty pipe: nothing to read, not a wait for good
        with contextlib.suppress(BlockingIOError):
            assert (code, os.read(r, 1 << 16)) == (130, b"interrupted\n")
        assert code == 130
        assert not os.get_blocking(w), "the caller's non-blocking pipe was made blocking"
    finally:
        os.close(r)
        os.close(w)


def test_a_write_without_blocking_puts_back_a_non_blocking_mode() -> None:
    """The one write of "interrupted" leaves the pipe's mode as it found it, non-blocking included. Kills m39 (the
    mode taken as blocking)."""
    from olctc.cli_process import _write_without_blocking

    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        with open(w, "w", closefd=False) as stream:
            _write_without_blocking(stream, "interrupted\n")
        assert os.read(r, 100) == b"interrupted\n" and not os.get_blocking(w)
    finally:
        os.close(r)
        os.close(w)


_WRITES_AFTER_AN_INTERRUPT = """
import os, signal, sys
import click
import olctc.cli as c
from olctc.process_state import interrupt_handled

def command(*args, **kwargs):
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(10 ** 8):
            pass
    except KeyboardInterrupt:
        interrupt_handled()  # as a solver that stops and hands back its incumbent
    click.echo("interrupted (the best solution found until then was written)", err=sys.argv[2] == "stderr")
    sys.exit(130)

c.cli.main = command
sys.argv = ["olctc", "datasets", sys.argv[1]]
c.main()
"""


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_line_written_after_an_interrupt_into_a_full_pipe_does_not_block(tmp_path: Path, stream: str) -> None:
    """`olctc solve ... 2>&1 | less`, paused: after the interrupt the command still says what it wrote, into a pipe
    nobody reads. The first interrupt makes both standard pipes non-blocking, so that line is dropped and the
    command exits 130; a blocking write waited for good, and only SIGKILL ended it. Kills m01 and m74 (the pipes
    not unblocked at the first interrupt of the console program), m33 (made blocking), m32 (stderr left out)."""
    out_r, out_w = _full_pipe()
    err_r, err_w = _full_pipe()
    try:
        p = subprocess.Popen([sys.executable, "-c", textwrap.dedent(_WRITES_AFTER_AN_INTERRUPT), stream],
                             cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=out_w, stderr=err_w,
                             preexec_fn=_default_hang_up)
        assert _ends(p) == 130
        assert os.get_blocking(out_w) and os.get_blocking(err_w)
    finally:
        for fd in (out_r, out_w, err_r, err_w):
            os.close(fd)


# ---------------------------------------------------------------- errors and CPython's interrupt record

_LOOPING_CHAIN = """
import sys
import olctc.cli as c

def command(*args, **kwargs):
    first, second = ValueError("first"), ValueError("second")
    first.__cause__, second.__cause__ = second, first  # a chain a library built by hand, looping
    raise first

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""


def test_an_error_whose_chain_loops_is_reported_not_looped_over(tmp_path: Path) -> None:
    """Whether an error wraps an interrupt is decided by following its chain a bounded number of steps: a chain
    that loops is a bug's traceback (exit 1), not a process that spins for good. Kills m43 (no bound)."""
    p = _start(_LOOPING_CHAIN, tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
               text=True)
    code = _ends(p)
    assert code == 1 and "ValueError: first" in p.stderr.read()


_CALLER_GOES_ON = """
import sys
import olctc.cli as c

def command(*args, **kwargs):
    exec("raise KeyboardInterrupt")  # how pybind11 modules (onnx) run code while they import

c.cli.main = command
try:
    c.main(["datasets"])
except SystemExit as exc:
    print("olctc exited", exc.code, flush=True)
print("the caller goes on", flush=True)
"""


@pytest.mark.skipif(sys.version_info[:2] != (3, 11),
                    reason="the record cleared is CPython 3.11's _Py_UnhandledKeyboardInterrupt")
def test_a_program_calling_olctc_is_not_killed_by_an_interrupt_olctc_handled(tmp_path: Path) -> None:
    """An interrupt raised through code run from a string is recorded by CPython 3.11 as unhandled even once
    caught, and the interpreter then ended the calling program by SIGINT (exit -2) after it finished its work.
    olctc handled it (exit 130 to its caller): the record is cleared. Kills m67."""
    p = _python(_CALLER_GOES_ON, cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (0, "olctc exited 130\nthe caller goes on\n", "interrupted\n")


# ---------------------------------------------------------------- standard input

@pytest.fixture
def tree_and_rows(tmp_path: Path) -> Path:
    """tmp_path with t.json (a depth-1 tree on column a) and d.csv (two rows, one per side)."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("a\n1\n-1\n")
    return tmp_path


def test_predict_reads_standard_input_through_dev_stdin(tree_and_rows: Path) -> None:
    """`... | olctc predict t.json /dev/stdin`: an open standard input is left as it is, not replaced by /dev/null
    (only a closed one is). Kills m50."""
    p = subprocess.run([sys.executable, "-m", "olctc.cli", "predict", "t.json", "/dev/stdin"], cwd=tree_and_rows,
                       input=(tree_and_rows / "d.csv").read_text(), capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout, p.stderr) == (0, "prediction\n1\n-1\n", "")


def test_a_closed_standard_input_reads_as_empty(tree_and_rows: Path) -> None:
    """`olctc predict t.json /dev/stdin <&-`: a closed standard input is opened on /dev/null, so it reads as an
    empty file (one error line), and no file the command opens takes descriptor 0. Kills m49."""
    p = subprocess.run(["bash", "-c", f"{sys.executable} -m olctc.cli predict t.json /dev/stdin <&-"],
                       cwd=tree_and_rows, capture_output=True, text=True, timeout=120)
    assert (p.returncode, p.stdout, p.stderr) == (2, "", "error: /dev/stdin: the file is empty\n")


# ---------------------------------------------------------------- Python's -u (PYTHONUNBUFFERED=1)

def _unbuffered(**extra: str) -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1", **extra}


def test_unbuffered_output_keeps_the_stream_s_encoding_and_error_handler(tmp_path: Path) -> None:
    """Under -u the console program puts a buffer under each standard stream's text layer: the new layer keeps the
    stream's encoding (PYTHONIOENCODING=latin-1: 'é' one byte) and its error handler (standard error's
    backslashreplace: a '€' latin-1 lacks is escaped, not a UnicodeEncodeError traceback). Kills m55 and m56."""
    p = subprocess.run([sys.executable, "-m", "olctc.cli", "solve", "é€.mps"], cwd=tmp_path, capture_output=True,
                       timeout=120, env=_unbuffered(PYTHONIOENCODING="latin-1"))
    assert (p.returncode, p.stdout, p.stderr) == (2, b"", b"error: \xe9\\u20ac.mps: no such model file\n")


def test_unbuffered_output_cut_short_by_a_full_disk_is_an_error(tmp_path: Path) -> None:
    """`python -u -m olctc.cli export --format sql > FULL/x.sql` with one page free: the raw file takes part of the
    query, and the rest must be written or fail (exit 2), not be dropped with exit 0. Kills m53 (the raw file left
    right under the text layer)."""
    _tree(tmp_path, [f"feature_{k:03d}" for k in range(300)])
    with tmpfs(tmp_path / "d") as d:
        fill(d, 1)
        with open(d / "x.sql", "w") as out:
            p = subprocess.run([sys.executable, "-m", "olctc.cli", "export", "t.json", "--format", "sql", "-o", "-"],
                               cwd=tmp_path, stdout=out, stderr=subprocess.PIPE, text=True, timeout=120,
                               env=_unbuffered())
        assert (p.returncode, p.stderr) == (2, f"error: cannot write standard output: {NO_SPACE}\n")
        assert (d / "x.sql").stat().st_size == PAGE


_LINE_THEN_WAIT = """
import signal, sys, time
import olctc.cli as c

def command(*args, **kwargs):
    sys.stderr.write("progress 1 of 3\\n")  # as bench's workers' lines: no flush of their own
    time.sleep(60)

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""


def test_unbuffered_output_is_written_line_by_line(tmp_path: Path) -> None:
    """Under -u each line reaches the reader as soon as it is written (the buffer put under the text layer is line
    buffered), as unbuffered output did: a progress line is read while the command still runs. Kills m54."""
    p = _start(_LINE_THEN_WAIT, tmp_path, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
               env=_unbuffered())
    try:
        ready, _, _ = select.select([p.stderr], [], [], _PATIENCE)
        assert ready and p.stderr.readline() == b"progress 1 of 3\n", "the line was held back"
    finally:
        p.send_signal(signal.SIGTERM)
        assert _ends(p) == 130
        p.stderr.close()


# ---------------------------------------------------------------- standard output on a full disk, in process

def test_olctc_in_a_program_whose_standard_output_fills_the_disk_is_one_error(tmp_path: Path) -> None:
    """olctc.cli.main(ARGS) in a program whose standard output is a file on a full disk: the failed write is
    "cannot write standard output", exit 2, not the OSError thrown at the caller (the failing frame is click.echo's,
    whose stream is its local ``file``). Kills m65."""
    from olctc.cli import main

    with tmpfs(tmp_path / "d") as d:
        fill(d)
        err = io.StringIO()
        with open(d / "x.txt", "w") as out, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            with pytest.raises(SystemExit) as exc:
                main(["datasets"])
        assert (exc.value.code, err.getvalue()) == (2, f"error: cannot write standard output: {NO_SPACE}\n")

