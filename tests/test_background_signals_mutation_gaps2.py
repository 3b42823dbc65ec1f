"""Forked children, signal masks and answers cut short: what a second mutation pass over background.py,
process_state.py and sigactions.py (QA 2026-12-07) found the earlier tests (test_background.py,
test_plumbing_mutation_gaps.py, test_process_signals_mutation_gaps.py) did not pin. The forked scenarios run in
a fresh interpreter: a pytest-xdist worker runs threads, and ``in_child`` forks only from a process running one.
Each test's docstring names the mutants (mNN) it kills.

83 mutants: 63 killed by the targeted tests, m62/m63 (the console / solver-left records) by test_solver_overrun.py,
11 by these tests (each seen to fail with its mutant); equivalent m58 (only the console program notes interrupts,
and there any error after one exits 130), m80, m81 (Linux), m83 (Python < 3.12); left m28 (a child's exit status 1
when even the fallback answer cannot be sent: reachable only through the known unsendable warning class, or a
value whose repr raises); not run m20, m23 (each hangs until the scenario's timeout)."""
from __future__ import annotations

import signal
import sys
import textwrap

import pytest
from test_background import run_scenarios

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="in_child forks on Linux only")

SCENARIOS = textwrap.dedent(r'''
    import fcntl, json, os, signal, struct, sys, termios, threading, time, warnings
    from olctc.background import in_child

    folder = sys.argv[1]
    out = {"parent": os.getpid()}

    def caught(call, during=lambda: None):
        try:
            with in_child(call, "scenario") as result:
                during()
                return {"value": result()}
        except BaseException as exc:
            return {"type": type(exc).__name__, "message": str(exc), "code": getattr(exc, "code", None)}

    def note_pid(name):  # the child's pid, in a file the parent waits for
        path = os.path.join(folder, name)
        with open(path + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(path + ".tmp", path)

    def child_pid(name):
        path = os.path.join(folder, name)
        while not os.path.exists(path):
            time.sleep(0.01)
        return int(open(path).read())

    def mask():
        return sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, []))

    # a caller that holds a signal of its own (SIGUSR1) across the call, forked and on a thread
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
    out["mask_in_child"] = caught(mask)["value"]
    out["mask_after"] = mask()
    real_fork = os.fork
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")
    os.fork = refused
    out["refused_pid"] = caught(os.getpid)["value"]
    out["mask_after_refused"] = mask()
    os.fork = real_fork
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGUSR1})

    out["exit0"] = caught(lambda: os._exit(0))
    out["sys_exit"] = caught(lambda: sys.exit(4))

    def unsendable_error():
        raise ValueError(threading.Lock())
    out["unsendable_error"] = caught(unsendable_error)

    def warns_then_unsendable():
        warnings.warn("before the lock", RuntimeWarning)
        return threading.Lock()
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out["unsendable_value"] = caught(warns_then_unsendable)
    out["unsendable_shown"] = [[str(x.message), x.category.__name__] for x in w]

    def big():
        note_pid("big")
        return b"x" * 4_000_000  # far more than a pipe holds: the child blocks in its write
    def kill_mid_answer():
        pid = child_pid("big")
        pipes = []  # the answer's read end (0 to 2 are the test's pipes)
        for fd in os.listdir("/proc/self/fd"):
            try:
                if int(fd) > 2 and os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:"):
                    pipes.append(int(fd))
            except OSError:  # the listing's own descriptor, closed by now
                pass
        def waiting() -> int:
            return sum(struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0] for fd in pipes)
        while not waiting():
            time.sleep(0.01)
        os.kill(pid, signal.SIGKILL)  # as the kernel's out-of-memory killer would, part of the answer sent
    out["killed_mid_answer"] = caught(big, kill_mid_answer)

    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the system reaps the children
    def reaped_then_fail():
        pid = child_pid("quick")
        while os.path.exists(f"/proc/{pid}"):
            time.sleep(0.01)
        raise RuntimeError("the block fails")
    out["reaped_then_fail"] = caught(lambda: note_pid("quick"), reaped_then_fail)
    signal.signal(signal.SIGCHLD, previous)
    print(json.dumps(out))
''')


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory) -> dict:
    folder = tmp_path_factory.mktemp("signals2")
    return run_scenarios(SCENARIOS, folder, folder)


def test_the_caller_s_own_blocked_signals_stay_blocked_in_the_child_and_after(scenarios):
    """The stops are held only across the fork: a signal the caller blocks itself stays blocked in the child and
    after the block, and the child's stops are let through again (ignored). Kills m11 (the parent's mask emptied),
    m13 (the child's mask emptied) and m14 (the child's stops left blocked: inherited by anything it runs)."""
    assert scenarios["mask_in_child"] == [int(signal.SIGUSR1)]
    assert scenarios["mask_after"] == [int(signal.SIGUSR1)]


def test_a_refused_fork_leaves_the_caller_s_mask_as_it_was(scenarios):
    """Kills m12 (the mask emptied when the fork was refused)."""
    assert scenarios["refused_pid"] == scenarios["parent"]
    assert scenarios["mask_after_refused"] == [int(signal.SIGUSR1)]


def test_a_child_that_exits_cleanly_without_answering_says_so(scenarios):
    """No answer and exit status 0 is a child gone quiet, not an answer that could not be read. Kills m45 (the
    empty answer unpickled: "could not be read back (EOFError: Ran out of input)")."""
    assert scenarios["exit0"]["message"] == ("scenario, a child process of this command, exited with status 0 "
                                             "before it answered")


def test_a_system_exit_in_the_call_comes_back_as_it_was(scenarios):
    """``on_thread``'s contract: whatever the call raises, BaseException too, is raised again in the caller. Kills
    m32 (only Exception caught: the child died with "exited with status 1")."""
    assert scenarios["sys_exit"]["type"] == "SystemExit"
    assert scenarios["sys_exit"]["code"] == 4


def test_an_error_that_cannot_be_sent_back_is_named_as_an_error(scenarios):
    """Kills m36 (the message called the exception a value)."""
    got = scenarios["unsendable_error"]
    assert got["type"] == "OlctcError"
    assert got["message"].startswith("scenario: error ValueError(<unlocked _thread.lock")
    assert got["message"].endswith("could not be sent back to the parent process (cannot pickle '_thread.lock' "
                                   "object)")


def test_warnings_come_back_with_an_unsendable_value_s_error(scenarios):
    """Kills m37 (the warnings dropped when the value could not be sent)."""
    assert scenarios["unsendable_value"]["type"] == "OlctcError"
    assert scenarios["unsendable_shown"] == [["before the lock", "RuntimeWarning"]]


def test_a_child_killed_while_it_answers_is_named_killed(scenarios):
    """Part of the answer came before the child was killed (out of memory): the signal is the news, not the cut
    answer. Kills m42 (``and`` -> ``or``: SIGKILL's status read as exit 0) and m43 (any unreadable answer called
    "could not be read back")."""
    assert scenarios["killed_mid_answer"]["message"] == ("scenario, a child process of this command, was killed "
                                                         "by SIGKILL (signal 9) before it answered (out of memory?)")


def test_a_failing_block_whose_child_the_system_reaped_raises_its_own_error(scenarios):
    """A program ignoring SIGCHLD: the child answered and was reaped before the block failed, so the kill finds no
    process. Kills m18 (ProcessLookupError raised instead of the block's error)."""
    assert scenarios["reaped_then_fail"]["type"] == "RuntimeError"
    assert scenarios["reaped_then_fail"]["message"] == "the block fails"
