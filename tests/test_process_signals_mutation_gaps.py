"""Signals, child processes and threads: what a mutation pass over background.py, sigactions.py and
process_state.py (QA 2026-12-07) found the earlier tests (test_background.py, test_interrupt.py,
test_plumbing_mutation_gaps.py) did not pin. The forked scenarios run in a fresh interpreter: a pytest-xdist
worker runs threads, and ``in_child`` forks only from a process running one."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading

import pytest

from test_plumbing_mutation_gaps import no_interrupt  # noqa: F401 - a fixture

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="in_child forks on Linux only")

SCENARIOS = textwrap.dedent(r'''
    import json, os, resource, signal, sys, threading, warnings
    from olctc.background import in_child

    out = {"parent": os.getpid()}

    def caught(call):
        try:
            with in_child(call, "scenario") as result:
                return {"value": result()}
        except BaseException as exc:
            return {"type": type(exc).__name__, "message": str(exc)}

    def stopped(sig):
        def call():
            os.kill(os.getpid(), sig)  # as a Ctrl-C or a hang-up reaching the whole process group would
            return os.getpid()
        return call
    for name in ("SIGINT", "SIGTERM", "SIGHUP"):
        out[name] = caught(stopped(getattr(signal, name)))

    out["exit3"] = caught(lambda: os._exit(3))
    out["unnamed"] = caught(lambda: os.kill(os.getpid(), signal.SIGRTMIN + 2))
    out["unnamed_number"] = int(signal.SIGRTMIN + 2)
    out["lock"] = caught(threading.Lock)  # pickle refuses it with a TypeError, not a PicklingError

    def warns_then_fails():
        warnings.warn("half-way there", RuntimeWarning)
        raise ValueError("then it failed")
    def warns():
        warnings.warn("a runtime matter", RuntimeWarning); return sys._getframe().f_lineno
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out["warns"] = caught(warns)
        out["warns_then_fails"] = caught(warns_then_fails)
    out["shown"] = [[str(x.message), x.category.__name__, os.path.basename(x.filename), x.lineno] for x in w]

    fds = sorted(os.listdir("/proc/self/fd"))
    with in_child(lambda: 11, "scenario") as result:
        out["twice"] = [result(), result()]
    try:
        os.waitpid(-1, os.WNOHANG)
        out["child_left"] = True
    except ChildProcessError:
        out["child_left"] = False
    out["fds_kept"] = sorted(os.listdir("/proc/self/fd")) == fds

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowest = os.dup(0)  # the lowest free descriptor: the only one left below the limit, and a pipe needs two
    os.close(lowest)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowest + 1, hard))
    try:  # no file descriptor left for the pipe: the call runs on a thread
        out["no_pipe"] = caught(os.getpid)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory) -> dict:
    script = tmp_path_factory.mktemp("signals") / "scenarios.py"
    script.write_text(SCENARIOS)
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("name", ["SIGINT", "SIGTERM", "SIGHUP"])
def test_a_forked_child_outlives_a_stop_the_parent_handles(scenarios, name):
    """Ctrl-C, a scheduler's SIGTERM and a hang-up are the parent's to handle: the child answers. Kills b01 and
    b21 (SIGHUP left out of the stops: the child died of a hang-up, an error of the warm start's)."""
    got = scenarios[name]
    assert "value" in got, got
    assert got["value"] != scenarios["parent"]


def test_a_child_that_exits_names_its_exit_status(scenarios):
    """Kills b33 (the raw wait status, 768, shown) and b44 (the message's words)."""
    assert scenarios["exit3"] == {"type": "OlctcError", "message": "scenario, a child process of this command, "
                                                                   "exited with status 3 before it answered"}


def test_a_child_killed_by_a_signal_without_a_name_is_a_clear_error(scenarios):
    """A real-time signal has no name in the signal module. Kills b32 (ValueError instead of the error)."""
    n = scenarios["unnamed_number"]
    assert scenarios["unnamed"] == {"type": "OlctcError", "message": f"scenario, a child process of this command, "
                                                                     f"was killed by signal {n} before it answered"}


def test_a_value_pickle_refuses_with_a_type_error_is_a_clear_error(scenarios):
    """Kills b47 (only PicklingError caught: the child's TypeError left no answer, "exited with status 1")."""
    got = scenarios["lock"]
    assert got["type"] == "OlctcError"
    assert got["message"].startswith("scenario: value <unlocked _thread.lock")
    assert "could not be sent back to the parent process (cannot pickle '_thread.lock' object)" in got["message"]


def test_warnings_keep_their_category_and_place_and_come_with_an_error_too(scenarios):
    """Kills b27 (every warning a UserWarning), b28 (its line lost) and b29 (a failed call's warnings dropped)."""
    line = scenarios["warns"]["value"]
    assert scenarios["warns_then_fails"] == {"type": "ValueError", "message": "then it failed"}
    assert scenarios["shown"] == [["a runtime matter", "RuntimeWarning", "scenarios.py", line],
                                  ["half-way there", "RuntimeWarning", "scenarios.py", line - 3]]


def test_an_answer_asked_twice_is_the_same_and_nothing_is_left(scenarios):
    """Kills b12 (the second call read an empty pipe: "exited with status 0"), b15 (the pipe's read end left open)
    and b37 (the child not waited for: a zombie left)."""
    assert scenarios["twice"] == [11, 11]
    assert scenarios["child_left"] is False
    assert scenarios["fds_kept"] is True


def test_no_file_descriptor_for_the_pipe_runs_the_call_on_a_thread(scenarios):
    """Kills b18 (the pipe's EMFILE raised instead of running the call here)."""
    assert scenarios["no_pipe"] == {"value": scenarios["parent"]}


def test_a_failing_block_waits_for_its_thread():
    """``on_thread``: nothing of the call outlives a block that fails. Kills b03."""
    from olctc.background import on_thread

    started, done = threading.Event(), threading.Event()

    def call() -> None:
        started.set()
        threading.Event().wait(0.5)
        done.set()

    with pytest.raises(RuntimeError):
        with on_thread(call, "olctc-test"):
            assert started.wait(60)
            raise RuntimeError("the block fails")
    assert done.is_set()


def test_a_thread_s_error_is_raised_in_the_caller():
    """``on_thread`` (a process with threads of its own does not fork): the call's exception comes back. Kills b05
    (it was dropped and the block went on with None)."""
    from olctc.background import on_thread

    def call() -> None:
        raise ValueError("in the thread")

    with pytest.raises(ValueError, match="in the thread"):
        with on_thread(call, "olctc-test") as result:
            result()


def test_a_thread_s_value_is_waited_for():
    """Kills b35 (``result`` not joining the thread: a KeyError for a value not there yet)."""
    from olctc.background import on_thread

    def call() -> int:
        threading.Event().wait(0.3)
        return 5

    with on_thread(call, "olctc-test") as result:
        assert result() == 5


def test_a_child_whose_parent_is_already_gone_exits_at_once():
    """The parent died (SIGKILL) before the child asked to die with it: the child must not run the call as an
    orphan. Kills b42."""
    from olctc import background

    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        background._die_with(os.getppid() + 1)  # not its parent: as if the parent had died and it was adopted
        os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 1


def test_an_interrupted_thread_does_not_hold_the_interpreter_at_exit(tmp_path):
    """A call left running by an interrupted block (a native call that never asks ``check_abandoned``) must not
    keep the program from ending. Kills b06 (a non-daemon thread: the interpreter waited for it for good)."""
    script = textwrap.dedent('''
        import threading
        from olctc.background import on_thread
        try:
            with on_thread(threading.Event().wait, "olctc-test"):
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    ''')
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=tmp_path)
    assert (p.returncode, p.stdout, p.stderr) == (0, "interrupted\n", "")


def test_every_crash_signal_and_sigint_are_kept():
    """Kills s02 (SIGSEGV's handler not saved: CBC's stayed, and faulthandler printed nothing at a crash)."""
    from olctc.sigactions import saved

    names = {"SIGSEGV", "SIGFPE", "SIGABRT", "SIGBUS", "SIGILL", "SIGINT"}
    assert set(saved()) == {int(getattr(signal, n)) for n in names}


def test_a_child_forked_while_the_lock_is_held_can_keep_handlers():
    """A fork while another thread held the shared lock (a solve starting on a pool thread): the child's own blocks
    must not wait for that lock for good. Kills s10."""
    from olctc import sigactions

    with sigactions._SHARED["lock"]:  # held by this thread across the fork, as another thread's would be
        pid = os.fork()
        if pid == 0:  # pragma: no cover - the child
            signal.alarm(30)  # a lock never released ends the child by SIGALRM
            with sigactions.kept():
                pass
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_deferred_section_on_another_thread_ends_cleanly():
    """Kills p13 (the section ran the main thread's path after its own: "generator didn't stop")."""
    from olctc.process_state import interrupts_deferred

    errors: list[BaseException] = []

    def run() -> None:
        try:
            with interrupts_deferred():
                pass
        except BaseException as exc:
            errors.append(exc)

    t = threading.Thread(target=run)
    t.start()
    t.join(30)
    assert errors == []


def test_an_interrupt_is_raised_at_the_outermost_section_s_end_only(no_interrupt):
    """Kills p06 (raised at an inner section's end, and never at the outermost one's)."""
    from olctc.process_state import interrupts_deferred, note_interrupt

    reached = []
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            with interrupts_deferred():
                note_interrupt()
            reached.append("after the inner section")
    assert reached == ["after the inner section"]
    note_interrupt(False)
    with pytest.raises(KeyboardInterrupt):
        with interrupts_deferred():
            note_interrupt()


def test_olctc_run_inside_another_program_is_not_the_console_program(tmp_path):
    """Only the console program may leave a native solve running after an interrupt (it exits at once); a notebook
    running a command in process keeps its process, so a HiGHS solve there must be cancelled. Kills p10."""
    script = textwrap.dedent('''
        from olctc.cli import main
        from olctc.process_state import is_console
        try:
            main(["datasets"])
        except SystemExit as exc:
            print(exc.code, is_console())
    ''')
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[-1] == "0 False"
