"""olctc.background: work beside the main thread, in a forked child (Linux) or on a thread.

The fork is only taken in a process running a single Python thread, which a pytest-xdist worker is not:
the scenarios run in a fresh interpreter, as `olctc compile` does.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import assert_dies_with, child_processes, cli_here, process_gone

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="in_child forks on Linux only")

SCENARIOS = textwrap.dedent(r'''
    import json, os, pickle, signal, sys, threading, time, warnings
    import numpy as np
    from olctc.background import can_fork, in_child
    from olctc.errors import OlctcError
    from olctc.warmstart import LeafTooSmall

    out = {"parent": os.getpid(), "can_fork": can_fork()}

    def caught(call):
        try:
            with in_child(call, "scenario") as result:
                return {"value": result()}
        except BaseException as exc:
            return {"type": type(exc).__name__, "message": str(exc), "why": getattr(exc, "why", None),
                    "notes": "".join(getattr(exc, "__notes__", []))}

    def value():
        return os.getpid(), np.arange(200_000, dtype=float)   # more than a pipe's buffer

    got = caught(value)["value"]
    out["value"] = {"pid": got[0], "equal": bool((got[1] == np.arange(200_000)).all()),
                    "blocked": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, []))}

    def leaf():
        raise LeafTooSmall("node 4 holds 3 points", why="3 < 5")
    out["olctc_error"] = caught(leaf)

    def bug():
        return 1 / 0
    out["bug"] = caught(bug)

    def warns():
        warnings.warn("careful: something odd", UserWarning)
        return 7
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out["warns"] = {"value": caught(warns)["value"], "shown": [str(x.message) for x in w],
                        "category": [x.category.__name__ for x in w]}

    out["unpicklable"] = caught(lambda: (lambda: 1))

    class Odd(Exception):  # pickles, but cannot be rebuilt from its args
        def __init__(self, a, b):
            super().__init__(a)
    def odd():
        raise Odd("a", "b")
    out["unreadable"] = caught(odd)

    out["killed"] = caught(lambda: os.kill(os.getpid(), signal.SIGKILL))

    def sleeper():
        with open(sys.argv[1], "w") as f:
            f.write(str(os.getpid()))
        time.sleep(60)
    started = time.monotonic()
    try:
        with in_child(sleeper, "scenario") as result:
            while not (os.path.exists(sys.argv[1]) and open(sys.argv[1]).read()):
                time.sleep(0.01)
            raise RuntimeError("the block fails")
    except RuntimeError:
        pid = int(open(sys.argv[1]).read())
        try:
            os.kill(pid, 0)
            alive = True
        except ProcessLookupError:
            alive = False
        out["abandoned"] = {"child": pid, "alive": alive, "seconds": time.monotonic() - started}

    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped by the system: waitpid fails
    out["sigchld_ignored"] = caught(lambda: 5)
    signal.signal(signal.SIGCHLD, previous)

    real_fork = os.fork
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")
    os.fork = refused  # as under a process limit (root is exempt from RLIMIT_NPROC)
    out["fds_before"] = len(os.listdir("/proc/self/fd"))
    out["fork_refused"] = {"pid": caught(os.getpid)["value"], "open_fds": len(os.listdir("/proc/self/fd")),
                           "blocked": sorted(signal.pthread_sigmask(signal.SIG_BLOCK, []))}
    os.fork = real_fork

    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    out["threaded"] = {"can_fork": can_fork(), "pid": caught(os.getpid)["value"]}
    stop.set()
    other.join()
    print(json.dumps(out))
''')


def run_scenarios(text: str, folder: Path, arg: Path) -> dict:
    """Run the scenario script ``text`` (saved in ``folder``) in a fresh interpreter with ``arg``; the JSON it
    prints."""
    script = folder / "scenarios.py"
    script.write_text(text)
    proc = subprocess.run([sys.executable, str(script), str(arg)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def scenarios(tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("background")
    return run_scenarios(SCENARIOS, d, d / "child.pid")


def test_the_value_comes_from_a_child_process(scenarios):
    assert scenarios["can_fork"] is True
    assert scenarios["value"]["pid"] != scenarios["parent"]
    assert scenarios["value"]["equal"]
    assert scenarios["value"]["blocked"] == []  # SIGINT and SIGTERM, held across the fork, are let through again


def test_an_olctc_error_is_raised_again_whole(scenarios):
    got = scenarios["olctc_error"]
    assert got["type"] == "LeafTooSmall"
    assert got["message"] == "node 4 holds 3 points"
    assert got["why"] == "3 < 5"  # pickled with its extra attribute
    assert got["notes"] == ""  # a user's error: no traceback attached


def test_a_bug_keeps_the_child_traceback(scenarios):
    got = scenarios["bug"]
    assert got["type"] == "ZeroDivisionError"
    assert "in scenario, a child process" in got["notes"]
    assert "return 1 / 0" in got["notes"]


def test_warnings_are_raised_again_in_the_parent(scenarios):
    assert scenarios["warns"] == {"value": 7, "shown": ["careful: something odd"], "category": ["UserWarning"]}


def test_an_unpicklable_value_is_a_clear_error(scenarios):
    got = scenarios["unpicklable"]
    assert got["type"] == "OlctcError"
    assert got["message"].startswith("scenario: value <function")
    assert "could not be sent back to the parent process" in got["message"]


def test_an_answer_that_cannot_be_rebuilt_is_a_clear_error(scenarios):
    got = scenarios["unreadable"]
    assert got["type"] == "OlctcError"
    assert got["message"].startswith("scenario: the answer of its child process could not be read back (")


def test_a_killed_child_is_a_clear_error(scenarios):
    got = scenarios["killed"]
    assert got["type"] == "OlctcError"
    assert got["message"] == ("scenario, a child process of this command, was killed by SIGKILL (signal 9) "
                              "before it answered (out of memory?)")


def test_a_failing_block_kills_the_child(scenarios):
    got = scenarios["abandoned"]
    assert got["child"] != scenarios["parent"]
    assert got["alive"] is False
    assert got["seconds"] < 30  # not the 60 s the child would have slept


def test_a_program_that_ignores_sigchld_still_gets_the_value(scenarios):
    assert scenarios["sigchld_ignored"] == {"value": 5}


def test_a_refused_fork_runs_the_call_on_a_thread(scenarios):
    got = scenarios["fork_refused"]
    assert got["pid"] == scenarios["parent"]
    assert got["open_fds"] == scenarios["fds_before"]  # the pipe was closed
    assert got["blocked"] == []  # the stops held for the fork are let through again


def test_another_thread_means_no_fork(scenarios):
    assert scenarios["threaded"] == {"can_fork": False, "pid": scenarios["parent"]}


def test_the_child_dies_with_its_parent(tmp_path):
    pidfile = tmp_path / "child.pid"
    script = tmp_path / "parent.py"
    script.write_text(textwrap.dedent(f'''
        import os, time
        from olctc.background import in_child
        def sleeper():
            with open({str(pidfile)!r}, "w") as f:
                f.write(str(os.getpid()))
            time.sleep(60)
        with in_child(sleeper, "scenario") as result:
            result()
    '''))
    parent = subprocess.Popen([sys.executable, str(script)])
    try:
        deadline = time.monotonic() + 60
        while not (pidfile.exists() and pidfile.read_text()):
            assert time.monotonic() < deadline and parent.poll() is None, "the child never started"
            time.sleep(0.02)
        child = int(pidfile.read_text())
        assert not process_gone(child)
        assert_dies_with(parent, child, 20, "the child")
    finally:
        if parent.poll() is None:
            parent.kill()
            parent.wait()


def test_compile_in_a_fresh_process_writes_what_the_threaded_compile_writes(tmp_path):
    """`olctc compile` in a fresh interpreter (its warm start forked) and the same compile in this process
    (threaded: pytest runs threads here, and scikit-learn is imported) write the same bytes."""
    args = ["compile", "--dataset", "ionosphere", "--depth", "2", "-o", "model.mps"]
    for d in ("forked", "here"):
        (tmp_path / d).mkdir()
    # olctc's own main, with the warm start noting the process it ran in
    spy = tmp_path / "spy.py"
    spy.write_text(textwrap.dedent(f'''
        import os, sys
        import olctc.background as bg
        real = bg.in_child
        def in_child(call, name):
            def noted():
                with open({str(tmp_path / "ran_in")!r}, "w") as f:
                    f.write(f"{{os.getppid()}} {{os.getpid()}}")
                return call()
            return real(noted, name)
        bg.in_child = in_child
        from olctc.cli import main
        main(sys.argv[1:])
    '''))
    forked = subprocess.Popen([sys.executable, str(spy), *args], cwd=tmp_path / "forked", stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    _, err = forked.communicate(timeout=300)
    assert forked.returncode == 0, err
    assert (tmp_path / "ran_in").read_text().split()[0] == str(forked.pid)  # run by a child of the command
    here = cli_here(*args, cwd=tmp_path / "here")
    assert here.returncode == 0, here.stderr
    a = json.loads((tmp_path / "forked" / "model.olctc.json").read_text())
    b = json.loads((tmp_path / "here" / "model.olctc.json").read_text())
    assert a["model"]["sha256"] == b["model"]["sha256"]
    assert a["files"]["start"] == b["files"]["start"] and len(a["files"]["start"]) == 7
    assert a["warm_start"] == b["warm_start"]


STOP_AT_FORK = textwrap.dedent(r'''
    import os, signal, sys
    import olctc.background as bg

    parent = os.getpid()
    who = lambda: "parent" if os.getpid() == parent else "child"
    def stop(signum, frame):  # as `olctc`'s own handler does for SIGTERM
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, stop)
    real = bg._fork
    def fork_then_stop():
        got = real()
        if got is not None:  # a stop to the process group lands in both, right after the fork
            os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        return got
    bg._fork = fork_then_stop
    try:
        with bg.in_child(os.getpid, "scenario") as result:
            print(who(), "answered", result() != parent, flush=True)
    except KeyboardInterrupt:
        print(who(), "interrupted", flush=True)
    try:
        os.waitpid(-1, os.WNOHANG)
        print(who(), "left a child", flush=True)
    except ChildProcessError:
        pass
''')


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_stop_right_after_the_fork_is_raised_in_the_parent_only(tmp_path, sig):
    """Ctrl-C lands in the parent and the child as soon as the fork returns: the parent raises it where it
    kills and reaps the child, and the child, which ignores stops, never runs the parent's code."""
    script = tmp_path / "stop_at_fork.py"
    script.write_text(STOP_AT_FORK)
    p = subprocess.run([sys.executable, str(script), sig], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines() == ["parent interrupted"] and p.stderr == "", (p.stdout, p.stderr)


@pytest.mark.parametrize("sig, to", [(signal.SIGINT, "group"), (signal.SIGTERM, "group"),
                                     (signal.SIGINT, "command"), (signal.SIGTERM, "command")])
def test_an_interrupted_compile_leaves_no_child_and_no_file(tmp_path, sig, to):
    """Ctrl-C (the terminal's, to the process group, or `kill -INT` to the command) or a SIGTERM (a scheduler's)
    while the forked warm start runs: the command exits 130, not with an error of its child's, the child is
    gone with it, and nothing is written."""
    proc = subprocess.Popen([sys.executable, "-m", "olctc.cli", "compile", "--dataset", "a6a", "--depth", "2",
                             "-o", "model.mps"], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not (children := child_processes(proc.pid)):
            assert proc.poll() is None and time.monotonic() < deadline, "the compile never forked its warm start"
            time.sleep(0.01)
        if to == "group":
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130 and err.strip() == "interrupted", err
    assert all(process_gone(c) for c in children)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


ABANDONED_START = textwrap.dedent('''
    import json, os, signal, sys, threading
    import olctc.background as bg
    import olctc.warmstart as ws
    threading.Thread(target=threading.Event().wait, daemon=True).start()  # a thread of the caller's: no fork
    fitting, out = threading.Event(), {"fits": 0}
    real_start, real_fit = ws.warm_start, ws._fit_node
    def warm_start(*args, **kwargs):
        try:
            return real_start(*args, **kwargs)
        except BaseException as exc:
            out["ended"] = type(exc).__name__
            raise
        finally:
            out.setdefault("ended", "finished")
    def fit_node(*args, **kwargs):
        if not out["fits"]:  # the first node: on once the block is interrupted
            fitting.set()
            out["stop_seen"] = bg._CALL.stop.wait(120)
        out["fits"] += 1
        return real_fit(*args, **kwargs)
    ws.warm_start, ws._fit_node = warm_start, fit_node
    def interrupt():
        fitting.wait()
        os.kill(os.getpid(), signal.SIGINT)  # a notebook's Ctrl-C while the model is written
    threading.Thread(target=interrupt, daemon=True).start()
    from olctc.cli import main
    try:
        main(["compile", "--dataset", "heart", "--depth", "3", "-o", "m.mps"])
    except SystemExit as exc:
        out["exit"] = exc.code
    for t in threading.enumerate():
        if t.name == "olctc-warm-start":
            t.join(120)
            out["alive"] = t.is_alive()
    out["files"] = sorted(os.listdir("."))
    print(json.dumps(out))
''')


def test_an_interrupted_threaded_warm_start_ends_at_its_next_step(tmp_path):
    """An in-process compile interrupted while its warm start runs on a thread (a notebook's Ctrl-C; a process
    with threads of its own does not fork it): the compile stops with nothing written, and the warm start ends
    at its next check (after the node it was fitting, or in that node's polish) instead of fitting the other
    six nodes of a depth-3 tree while holding the fit locks a next fit would wait for."""
    p = subprocess.run([sys.executable, "-c", ABANDONED_START], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    got = json.loads(p.stdout.strip().splitlines()[-1])
    assert got["exit"] == 130 and got["files"] == [] and got["stop_seen"] and got["alive"] is False, got
    assert got["ended"] == "Abandoned" and got["fits"] == 1, got
