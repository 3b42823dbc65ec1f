"""QA: several olctc processes at once on the same files or folders (a cluster's array tasks on a shared file
system, or a command started twice). Each case: both succeed with a consistent result, or the loser exits 2
with one `error: ...` line and no traceback; never a corrupt, half-written or mixed file, never a hang.

Races that depend on timing are made deterministic by pausing one process at the point where a slow machine
(or a descheduled process) would be: PAUSE runs the console program with one olctc function wrapped to wait
for a "go" file first; the grid tests run their tasks through a stand-in for `olctc` (--olctc-cmd) that waits
at a barrier. Nothing else in olctc is changed.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import cli_here

# One pytest-xdist worker for the module: the compiled model and the two trees were built by each worker that ran
# one of the tests using them.
pytestmark = pytest.mark.xdist_group("qa_concurrency")

TIMEOUT = 120

# The console program with one function (module attribute) wrapped: its first call creates READY, then waits
# (at most 60 s) for GO to exist before going on. argv: module attribute ready go olctc-args...
PAUSE = r'''
import importlib, os, sys, time
module, attr, ready, go = sys.argv[1:5]
mod = importlib.import_module(module)
orig = getattr(mod, attr)
state = {"first": True}
def paused(*a, **k):
    if state["first"]:
        state["first"] = False
        open(ready, "w").close()
        t0 = time.monotonic()
        while not os.path.exists(go) and time.monotonic() - t0 < 60:
            time.sleep(0.02)
    return orig(*a, **k)
setattr(mod, attr, paused)
sys.argv = ["olctc", *sys.argv[5:]]
from olctc.cli import main
main()
'''

# A stand-in for `olctc` in a grid's jobs (--olctc-cmd): runs the real one, with two hooks for the tests.
# QA_HOLD=NNNN: task NNNN first leaves a half-written gurobi_cl result (.part.sol, as gurobi_cl writes it in
#   place), creates $QA_DIR/held and waits for $QA_DIR/go before solving.
# QA_WAIT=NNNN: task NNNN creates $QA_DIR/held and waits for $QA_DIR/go before solving; with QA_SLOW_INT=1 a
#   Ctrl-C meanwhile takes it 2 s to end (as a solver writing its best solution), then creates $QA_DIR/ended.
# QA_EXIT=N: every task exits N at once (a site's wrapper: 75 is EX_TEMPFAIL).
# QA_BARRIER=1: after its solve has written the .part file, waits until the same task's solve of the other
#   run_local.sh has written too (two runners without task locks both take each task).
# Each solve of task NNNN adds a line NNNN to $QA_DIR/solves.
STANDIN = r'''#!/bin/bash
task=""
for a in "$@"; do case "$a" in tasks/*/model.mps) task="${a#tasks/}"; task="${task%%/*}";; esac; done
[ -n "${QA_DIR:-}" ] && [ -n "$task" ] && echo "$task" >> "$QA_DIR/solves"
[ -n "${QA_EXIT:-}" ] && exit "$QA_EXIT"
if [ -n "${QA_WAIT:-}" ] && [ "$task" = "$QA_WAIT" ]; then
    [ -n "${QA_SLOW_INT:-}" ] && trap 'sleep 2; touch "$QA_DIR/ended"; exit 130' INT
    touch "$QA_DIR/held"
    for i in $(seq 600); do [ -e "$QA_DIR/go" ] && break; sleep 0.05; done
fi
if [ -n "${QA_HOLD:-}" ] && [ "$task" = "$QA_HOLD" ]; then
    printf 'Objective value = 12.3\nw_pos_0_1 0.5\nw_pos_0_' > "tasks/$task/model.gurobi.sol.part.sol"
    touch "$QA_DIR/held"
    for i in $(seq 600); do [ -e "$QA_DIR/go" ] && break; sleep 0.05; done
fi
"@PY@" -m olctc "$@"; rc=$?
if [ -n "${QA_BARRIER:-}" ] && [ -n "$task" ]; then
    touch "$QA_DIR/$task.$$"
    for i in $(seq 600); do
        [ "$(ls "$QA_DIR" | grep -c "^$task\.")" -ge 2 ] && break
        sleep 0.05
    done
fi
exit $rc
'''


def olctc(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def start(args: list[str], cwd: Path, name: str, **kw) -> subprocess.Popen:
    """A process with its stdout and stderr in files cwd/NAME.out and cwd/NAME.err (readable while it runs)."""
    out = open(cwd / f"{name}.out", "w")
    err = open(cwd / f"{name}.err", "w")
    try:
        return subprocess.Popen(args, cwd=cwd, stdout=out, stderr=err, text=True, **kw)
    finally:
        out.close()
        err.close()


def start_olctc(args: list[str], cwd: Path, name: str, **kw) -> subprocess.Popen:
    return start([sys.executable, "-m", "olctc", *args], cwd, name, **kw)


def start_paused(target: str, ready: Path, go: Path, args: list[str], cwd: Path, name: str) -> subprocess.Popen:
    module, attr = target.rsplit(".", 1)
    return start([sys.executable, "-c", PAUSE, module, attr, str(ready), str(go), *args], cwd, name)


def finish(p: subprocess.Popen, cwd: Path, name: str, timeout: float = TIMEOUT) -> tuple[int, str, str]:
    try:
        p.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()
        raise AssertionError(f"{name} hung")
    return p.returncode, (cwd / f"{name}.out").read_text(), (cwd / f"{name}.err").read_text()


def wait_for(cond, what: str, timeout: float = 60) -> None:
    t0 = time.monotonic()
    while not cond():
        if time.monotonic() - t0 > timeout:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def waits_for_a_lock(pid: int) -> bool:
    """Whether process ``pid`` is blocked on a file lock (flock, fcntl): a `->` line of /proc/locks names it."""
    try:
        text = Path("/proc/locks").read_text()
    except OSError:
        return False
    return any(f[1:2] == ["->"] and f[5:6] == [str(pid)] for f in map(str.split, text.splitlines()))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def leftovers(folder: Path) -> list[str]:
    """Temporary files of atomic writes left behind (.NAME.XXXX.tmp)."""
    return sorted(p.name for p in folder.rglob(".*.tmp"))


def assert_loser_line(code: int, err: str) -> None:
    """The loser of a race: exit 2, one `error:` line, no traceback."""
    assert code == 2 and "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), err


def check_compiled_set(folder: Path, stem: str) -> dict:
    """The compiled set of STEM.mps is one run's: the manifest names the model by its sha256, and every
    start file it lists by its own."""
    man = json.loads((folder / f"{stem}.olctc.json").read_text())
    assert man["model"]["file"] == f"{stem}.mps"
    assert man["model"]["sha256"] == sha(folder / f"{stem}.mps"), "the manifest is not the model's"
    for solver, entry in man["files"]["start"].items():
        assert sha(folder / entry["file"]) == entry["sha256"], f"the {solver} start is not the manifest's"
    return man


# ---- compile ------------------------------------------------------------------------------------------

def start_paused_compile(folder: Path, dataset: str, output: str) -> tuple[subprocess.Popen, Path]:
    """`compile --dataset DATASET --depth 1 -o OUTPUT` as process "a", paused at its first MIP start file (its
    model written in the hidden folder its set goes into place from); returns it and the file that lets it go on.

    pipeline's first atomic_write_text writes the first start file (the model and the parameter files are
    written by other modules' functions). Was olctc.emit.start.write_start, which compile no longer calls (it
    writes start_texts' texts): A ran whole before B started, and the test passed without a race."""
    ready, go = folder / "ready", folder / "go"
    a = start_paused("olctc.pipeline.atomic_write_text", ready, go,
                     ["compile", "--dataset", dataset, "--depth", "1", "-o", output], folder, "a")
    try:
        wait_for(lambda: ready.exists() or a.poll() is not None, "compile A to reach its MIP starts")
        assert a.poll() is None, "compile A ended before its MIP starts: it was not paused"
    except BaseException:
        go.touch()
        raise
    return a, go


def test_two_compiles_into_one_name_leave_one_consistent_set(tmp_path: Path) -> None:
    """compile A wrote its model, then computed its warm start (seconds on a large set), while compile B of
    other data ran whole; A then wrote its starts and manifest over B's set: a mixed set (QA pass). The warm
    start now comes before the writes, which hold the folder: A is paused between its model and its starts,
    and B waits for it, then writes its own whole set."""
    a, go = start_paused_compile(tmp_path, "breast", "m.mps")
    try:
        # A's model is written, in the hidden folder its set goes into place from once whole
        assert list(tmp_path.glob(".m.mps.*.tmp/m.mps")) and not (tmp_path / "m.mps").exists()
        b = start_olctc(["compile", "--dataset", "heart", "--depth", "1", "-o", "m.mps"], tmp_path, "b")
        # B given 5 s to run whole; a compile that waits for A (the lock) is fine too, released below: B seen
        # waiting for a lock has nothing more to do meanwhile
        t0 = time.monotonic()
        wait_for(lambda: b.poll() is not None or waits_for_a_lock(b.pid) or time.monotonic() - t0 > 5,
                 "compile B to end or wait")
    finally:
        go.touch()
    code_a, _, err_a = finish(a, tmp_path, "a")
    code_b, _, err_b = finish(b, tmp_path, "b")
    for code, err in ((code_a, err_a), (code_b, err_b)):
        assert code in (0, 2) and "Traceback" not in err, err
        if code == 2:
            assert_loser_line(code, err)
    assert 0 in (code_a, code_b)
    man = check_compiled_set(tmp_path, "m")
    assert man["data"]["source"] in ("dataset:breast", "dataset:heart")
    assert not leftovers(tmp_path)


# ---- solve and decode ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> Path:
    """breast at depth 1 compiled into m.mps by the same compile started twice at once (an array task
    resubmitted while it runs)."""
    d = tmp_path_factory.mktemp("compiled")
    ps = [start_olctc(["compile", "--dataset", "breast", "--depth", "1", "-o", "m.mps"], d, f"c{i}")
          for i in range(2)]
    for i, p in enumerate(ps):
        code, out, err = finish(p, d, f"c{i}")
        assert code == 0 and "Traceback" not in err, err
    return d


def copy_compiled(compiled: Path, to: Path) -> None:
    for f in compiled.glob("m.*"):
        shutil.copy(f, to / f.name)


def test_a_grid_that_another_grid_finished_first_says_so(tmp_path: Path) -> None:
    # two `olctc grid -o g` at once: the second to finish got "cannot write g: Directory not empty"
    from olctc.cluster.grid import _staged_folder
    from olctc.errors import OlctcError

    out = tmp_path / "g"
    with pytest.raises(OlctcError, match=r"^.*/g already holds a grid, made while this one was built \(another olctc "
                                         r"grid into the same folder\?\); choose a new folder$"):
        with _staged_folder(out) as tmp:
            (tmp / "grid.json").write_text("{}")
            out.mkdir()  # the other grid's rename
            (out / "grid.json").write_text('{"the other": 1}')
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g"] and (out / "grid.json").read_text() == '{"the other": 1}'


def test_two_identical_compiles_at_once(compiled: Path) -> None:
    """The same compile twice at once: one whole set."""
    check_compiled_set(compiled, "m")
    assert not leftovers(compiled)


def test_compile_while_solve_reads_the_model(compiled: Path, tmp_path: Path) -> None:
    """solve has checked m.mps against its manifest and is about to read it (paused there) when a compile
    of other data replaces the set: the solve ends well and its solution decodes with the manifest now
    there (or it fails in one line)."""
    copy_compiled(compiled, tmp_path)
    ready, go = tmp_path / "ready", tmp_path / "go"
    s = start_paused("olctc.solve.solve_file", ready, go,
                     ["solve", "m.mps", "--time-limit", "20", "--quiet", "-o", "s.sol"], tmp_path, "s")
    try:
        wait_for(lambda: ready.exists() or s.poll() is not None, "solve to read its model")
        res = cli_here("compile", "--dataset", "heart", "--depth", "1", "-o", "m.mps", cwd=tmp_path)
        assert res.returncode == 0, res.stderr
    finally:
        go.touch()
    code, out, err = finish(s, tmp_path, "s")
    if code == 2:
        assert_loser_line(code, err)
        return
    assert code == 0 and "Traceback" not in err, out + err
    res = cli_here("decode", "m.olctc.json", "s.sol", "-o", "t.json", cwd=tmp_path)
    assert res.returncode == 0 and "tree written to t.json" in res.stdout, res.stdout + res.stderr


def test_two_solves_into_one_solution_while_decode_reads_it(compiled: Path, tmp_path: Path) -> None:
    """Two `solve -o s.sol` at once, and decode reading s.sol meanwhile: every decode sees a whole solution
    (the earlier one or a new one), both solves succeed, and the last s.sol decodes."""
    copy_compiled(compiled, tmp_path)
    first = cli_here("solve", "m.mps", "--quiet", "-o", "s.sol", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    solve = ["solve", "m.mps", "--quiet", "-o", "s.sol"]
    ps = [start_olctc(solve, tmp_path, f"s{i}") for i in range(2)]
    decodes = 0
    while any(p.poll() is None for p in ps) or decodes == 0:
        # in this process (a reader other than the two writers): a decode takes milliseconds, not the second
        # of a fresh interpreter's imports; the pause (a few reads a second, more than a fresh process each
        # managed) leaves the solves the CPU however long a loaded machine makes them take
        res = cli_here("decode", "m.olctc.json", "s.sol", "-o", f"t{decodes}.json", cwd=tmp_path)
        assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr
        decodes += 1
        time.sleep(0.2)
    for i, p in enumerate(ps):
        code, _, err = finish(p, tmp_path, f"s{i}")
        assert code == 0 and "Traceback" not in err, err
    res = cli_here("decode", "m.olctc.json", "s.sol", "-o", "final.json", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert json.loads((tmp_path / "final.json").read_text())["depth"] == 1
    assert not leftovers(tmp_path)


# ---- grid, run_local.sh, collect ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def grid_template(tmp_path_factory) -> Path:
    """A grid of 2 tasks (haberman, depth 1, C 1, 2 folds) whose jobs run olctc through the stand-in. haberman,
    not breast: its tasks and final fit take a fraction of the time, and the stand-in's waits, not the solves'
    length, order the races."""
    d = tmp_path_factory.mktemp("grid")
    standin = d / "olctc-standin"
    standin.write_text(STANDIN.replace("@PY@", sys.executable))
    standin.chmod(standin.stat().st_mode | stat.S_IXUSR)
    # in this process: the grid's writing races nothing
    res = cli_here("grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1", "--folds", "2", "--solver",
                   "highs", "--time-limit", "20", "--olctc-cmd", standin, "-o", "g", cwd=d)
    assert res.returncode == 0, res.stderr
    return d / "g"


def qa_grid(template: Path, tmp_path: Path, hooks: dict[str, str]) -> tuple[Path, Path, dict[str, str]]:
    """A copy of the grid, the stand-in's folder (made) and the environment that sets its ``hooks``."""
    qa = tmp_path / "qa"
    qa.mkdir()
    return grid_copy(template, tmp_path), qa, {**os.environ, **hooks, "QA_DIR": str(qa)}


def grid_copy(template: Path, tmp_path: Path) -> Path:
    g = tmp_path / "g"
    shutil.copytree(template, g)
    return g


def assert_runners_solved(g: Path, tmp_path: Path, results: list[tuple[int, str, str]]) -> None:
    """Every task's solution whole, every runner ended well, and collect scores both tasks."""
    for t in ("0000", "0001"):
        assert (g / "tasks" / t / "model.highs.sol").stat().st_size > 0
    col = cli_here("collect", str(g), "--emit-final", cwd=tmp_path)
    assert col.returncode == 0 and "tasks: 2 of 2 scored" in col.stdout, col.stdout + col.stderr
    for code, out, err in results:
        assert code == 0 and "failed" not in err, out + err


def test_run_local_twice_at_once(grid_template: Path, tmp_path: Path) -> None:
    """Two runners on one grid folder (run_local.sh started twice, or a task resubmitted while it runs) share
    the tasks: the second leaves the task the first holds and solves the next, the first then finds that one
    solved. Each task is solved once, both runners end well, and collect works. Before, both solved every
    task (each runner took each task in turn)."""
    g, qa, env = qa_grid(grid_template, tmp_path, {"QA_WAIT": "0000"})
    first = start(["bash", str(g / "run_local.sh")], tmp_path, "r0", env=env)
    try:
        wait_for(lambda: (qa / "held").exists() or first.poll() is not None, "task 0 to start")
        second = finish(start(["bash", str(g / "run_local.sh")], tmp_path, "r1", env=env), tmp_path, "r1")
    finally:
        (qa / "go").touch()
    results = [finish(first, tmp_path, "r0"), second]
    assert "task 0: running in another process, skipped" in second[1], second
    assert "task 1: tasks/0001/model.highs.sol exists, skipped" in results[0][1], results[0]
    assert sorted((qa / "solves").read_text().split()) == ["0000", "0001"]
    assert_runners_solved(g, tmp_path, results)


def test_ctrl_c_ends_the_runner_after_its_task(grid_template: Path, tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the runner's process group) while a task takes 2 s to end: the runner waits for it,
    and a rerun then solves the task. With flock running the task's command, flock died at once, the runner
    with it, and the task went on holding the lock: a rerun skipped it as "running in another process" and
    left it unsolved (QA 2026-12-05)."""
    g, qa, env = qa_grid(grid_template, tmp_path, {"QA_WAIT": "0000", "QA_SLOW_INT": "1"})
    p = start(["bash", str(g / "run_local.sh")], tmp_path, "r", env=env, start_new_session=True)
    try:
        wait_for(lambda: (qa / "held").exists() or p.poll() is not None, "task 0 to start")
        os.killpg(p.pid, signal.SIGINT)
        code, out, err = finish(p, tmp_path, "r")
    finally:
        (qa / "go").touch()
    assert code == 130 and (qa / "ended").exists(), (code, out, err)
    code, out, err = finish(start(["bash", str(g / "run_local.sh")], tmp_path, "again", env={**os.environ}),
                            tmp_path, "again")
    assert code == 0 and "running in another process" not in out, out + err
    assert_runners_solved(g, tmp_path, [(code, out, err)])


def test_a_task_exiting_75_is_a_failed_task(grid_template: Path, tmp_path: Path) -> None:
    """A task's command that exits 75 (EX_TEMPFAIL, a site wrapper's "license server busy") fails the task. It
    was read as flock's lock conflict: "running in another process, skipped", and the runner exited 0."""
    g = grid_copy(grid_template, tmp_path)
    code, out, err = finish(start(["bash", str(g / "run_local.sh")], tmp_path, "r",
                                  env={**os.environ, "QA_EXIT": "75"}), tmp_path, "r")
    assert code == 1 and "running in another process" not in out, out + err
    assert "task 0 failed (see tasks/0000/solve.log)" in err and "task 1 failed" in err, err


def test_run_local_twice_at_once_without_locks(grid_template: Path, tmp_path: Path) -> None:
    """Where flock cannot lock (util-linux before 2.26 has no -E; Lustre mounted without flock), two runners
    each solve every task, as before the locks: every solution must be whole, both runners must end well, and
    collect must work."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    fake = bin_dir / "flock"  # as an old flock: "invalid option -- 'E'", exit 64
    fake.write_text("#!/bin/sh\necho \"flock: invalid option -- 'E'\" >&2\nexit 64\n")
    fake.chmod(0o755)
    g, qa, env = qa_grid(grid_template, tmp_path,
                         {"QA_BARRIER": "1", "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"})
    ps = [start(["bash", str(g / "run_local.sh")], tmp_path, f"r{i}", env=env) for i in range(2)]
    results = [finish(p, tmp_path, f"r{i}") for i, p in enumerate(ps)]
    assert sorted((qa / "solves").read_text().split()) == ["0000", "0000", "0001", "0001"]
    assert_runners_solved(g, tmp_path, results)


def test_collect_while_a_task_is_running(grid_template: Path, tmp_path: Path) -> None:
    """collect while task 1 is still running (a half-written gurobi_cl result beside it): no crash, no
    decoding of the partial file, task 1 named as missing; after the runner ends, collect works."""
    g, qa, env = qa_grid(grid_template, tmp_path, {"QA_HOLD": "0001"})
    p = start(["bash", str(g / "run_local.sh")], tmp_path, "run", env=env)
    try:
        wait_for(lambda: (qa / "held").exists() or p.poll() is not None, "task 1 to start")
        assert (g / "tasks/0000/model.highs.sol").exists()
        res = cli_here("collect", str(g), "-o", "tree.json", cwd=tmp_path)
    finally:
        (qa / "go").touch()
    assert_loser_line(res.returncode, res.stderr)
    assert "no C combination has every fold scored (1 of 2 tasks usable" in res.stderr, res.stderr
    assert "tasks: 1 of 2 scored" in res.stdout and "task 0001 (fold 1, C 1): missing solution" in res.stdout, \
        res.stdout
    assert not (tmp_path / "tree.json").exists()
    cv = json.loads((g / "cv_results.json").read_text())
    assert cv["best"] is None and [t["score"] is not None for t in cv["tasks"]] == [True, False]
    code, out, err = finish(p, tmp_path, "run")
    assert code == 0, out + err
    (g / "tasks/0001/model.gurobi.sol.part.sol").unlink()
    res = cli_here("collect", str(g), "-o", "tree.json", "--quiet", cwd=tmp_path)
    assert res.returncode == 0 and "tasks: 2 of 2 scored" in res.stdout, res.stdout + res.stderr
    assert json.loads((tmp_path / "tree.json").read_text())["depth"] == 1


@pytest.mark.parametrize("made", [False, True], ids=["new-folder", "empty-folder"])
def test_two_grids_into_one_folder(tmp_path: Path, made: bool) -> None:
    """`olctc grid -o g` started twice at once (with other C values), g new or made empty beforehand: one
    grid, whole and of one run; the other exits 2 with one line."""
    if made:
        (tmp_path / "g").mkdir()
    base = ["grid", "--dataset", "breast", "--depth", "1", "--folds", "2", "--time-limit", "5", "-o", "g"]
    ps = [start_olctc(base + ["--C-values", C], tmp_path, f"g{i}") for i, C in enumerate(("1", "0.5,2"))]
    results = [finish(p, tmp_path, f"g{i}") for i, p in enumerate(ps)]
    codes = sorted(r[0] for r in results)
    assert codes == [0, 2], results
    for code, _, err in results:
        if code == 2:
            assert_loser_line(code, err)
    from olctc.cluster.read import read_grid

    info = read_grid(tmp_path / "g")  # grid.json and jobs.tsv agree
    n = len(info["tasks"])
    assert n in (2, 4)
    assert sorted(p.name for p in (tmp_path / "g/tasks").iterdir()) == [f"{k:04d}" for k in range(n)]
    assert not leftovers(tmp_path) and [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# ---- bench --------------------------------------------------------------------------------------------

# heart's OLCT does not close its gap in seconds: a run that holds the folder for its whole time limit. 5 s, not
# 3: at 3 s the solver's share is under its 1 s floor once building and the warm start take 0.3 s
# (solver_budget), so on a loaded machine the run ended at once as an error record, and the bench could end
# before the test had overlapped it (test_bench_workers measured "give at least 4 s" under load).
SLOW_BENCH = ["bench", "models", "--datasets", "heart", "--seeds", "0", "--threads", "1", "--time-limit", "5"]


def records(d: Path) -> list[dict]:
    return [json.loads(s) for s in (d / "runs.jsonl").read_text().splitlines() if s.strip()]


def test_second_bench_refused_and_report_while_bench_runs(tmp_path: Path) -> None:
    """A bench running (CART recorded, OLCT solving): the same bench started again is refused in one line,
    `bench report` works on what is recorded; at the end every run is recorded once."""
    # OLCT given 25 s, not SLOW_BENCH's 6: since bench's runs fork with their imports done (eaa2e65) OLCT starts
    # at once after CART, and two `bench report`s (matplotlib's imports) outlasted its 6 s, and once its 15 s, on a
    # loaded machine
    args = SLOW_BENCH[:-1] + ["25", "--models", "CART,OLCT", "-o", "b"]
    a = start_olctc(args, tmp_path, "a")
    d = tmp_path / "b"
    wait_for(lambda: (d / "runs.jsonl").exists() and len(records(d)) >= 1 or a.poll() is not None,
             "the first run recorded")
    assert a.poll() is None, "the bench ended before the test could overlap it"
    second = cli_here(*args, cwd=tmp_path)
    assert second.returncode == 2 and second.stderr == (
        "error: bench folder b is in use by another olctc bench: wait for it to end (its runs are recorded as "
        "they finish), or give another folder\n"), second.stderr
    reps = [start_olctc(["bench", "report", "b"], tmp_path, f"rep{i}") for i in range(2)]  # two at once
    for i, p in enumerate(reps):
        code, out, err = finish(p, tmp_path, f"rep{i}")
        assert code == 0 and "Traceback" not in err, err
        assert "the bench is incomplete" in err, err  # OLCT runs for its 25 s time limit at least
    assert (d / "report/summary.md").is_file() and (d / "report/summary.csv").is_file()
    assert a.poll() is None, "the bench ended before the reports: they read a finished bench"
    code, out, err = finish(a, tmp_path, "a")
    assert code == 0 and "2 run(s) done now" in out, out + err
    recs = records(d)
    assert sorted(r["key"] for r in recs) == sorted({r["key"] for r in recs}) and len(recs) == 2
    again = cli_here(*args, cwd=tmp_path)
    assert again.returncode == 0 and "0 run(s) done now, 2 skipped" in again.stdout, again.stdout + again.stderr
    assert not leftovers(d)


def test_two_benches_started_together_on_an_empty_folder(tmp_path: Path) -> None:
    """`mkdir b` then the same bench twice (two array tasks): B lists the empty folder, and is paused just
    before writing bench.json (a few ms on a busy node); A writes bench.json, locks it and starts running;
    B then wrote its bench.json over A's, locked the new file and ran the same run (QA pass). Now the folder
    is held (bench.lock) before bench.json is written: B, holding it, runs; A is refused."""
    d = tmp_path / "b"
    d.mkdir()
    args = SLOW_BENCH + ["--models", "OLCT", "-o", "b"]
    ready, go = tmp_path / "ready", tmp_path / "go"
    b = start_paused("olctc.bench.folder.atomic_write_text", ready, go, args, tmp_path, "b")
    try:
        wait_for(lambda: ready.exists() or b.poll() is not None, "bench B to find the folder empty")
        a = start_olctc(args, tmp_path, "a")
        wait_for(lambda: "runs done" in (tmp_path / "a.err").read_text() or a.poll() is not None,
                 "bench A to hold the folder")
    finally:
        go.touch()
    code_a, out_a, err_a = finish(a, tmp_path, "a")
    code_b, out_b, err_b = finish(b, tmp_path, "b")
    assert code_b == 0, out_b + err_b
    recs = records(d)
    assert len(recs) == len({r["key"] for r in recs}) == 1, f"{len(recs)} records of 1 run"
    assert_loser_line(code_a, err_a)
    assert "is in use by another olctc bench" in err_a


def test_two_benches_started_together_on_a_new_folder(tmp_path: Path) -> None:
    """The same bench twice into a folder that does not exist yet: B finds it missing, and is paused just
    before creating it (a few ms on a busy node); A creates it and runs. B must then either say the folder
    is in use, or resume it (skipping what A recorded)."""
    args = ["bench", "models", "--datasets", "haberman", "--seeds", "0", "--models", "CART", "-o", "b"]
    ready, go = tmp_path / "ready", tmp_path / "go"
    b = start_paused("olctc.bench.folder.folder_problem", ready, go, args, tmp_path, "b")
    try:
        wait_for(lambda: ready.exists() or b.poll() is not None, "bench B to find no folder")
        a = cli_here(*args, cwd=tmp_path)  # B, paused, is the other process
    finally:
        go.touch()
    assert a.returncode == 0, a.stderr
    code, out, err = finish(b, tmp_path, "b")
    assert len(records(tmp_path / "b")) == 1
    if code == 0:
        assert "0 run(s) done now, 1 skipped" in out, out + err
    else:
        assert_loser_line(code, err)
        assert "in use by another olctc bench" in err, err


# ---- fit, export, predict into one output ---------------------------------------------------------------

@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> Path:
    """Two trees of breast (C 0.1 and C 10) in two files, fitted in this process (they race nothing: two fits at
    once into one file are test_two_fits_into_one_tree_file's)."""
    d = tmp_path_factory.mktemp("trees")
    for i, C in enumerate(("0.1", "10")):
        res = cli_here("fit", "--dataset", "breast", "--depth", "1", "--C", C, "--time-limit", "20", "-o",
                       f"t{i}.json", cwd=d)
        assert res.returncode == 0, res.stdout + res.stderr
    from olctc import load_dataset

    X, y, names = load_dataset("breast")
    lines = [",".join(names)] + [",".join(repr(float(v)) for v in row) for row in X[:200]]
    (d / "new.csv").write_text("\n".join(lines) + "\n")
    return d


def test_two_fits_into_one_tree_file(tmp_path: Path) -> None:
    """`fit -o tree.json` twice at once (other C): both succeed, and tree.json is one of the two trees."""
    ps = [start_olctc(["fit", "--dataset", "breast", "--depth", "1", "--C", C, "--time-limit", "20", "-o",
                       "tree.json"], tmp_path, f"f{i}") for i, C in enumerate(("0.1", "10"))]
    for i, p in enumerate(ps):
        code, out, err = finish(p, tmp_path, f"f{i}")
        assert code == 0 and "Traceback" not in err, out + err
    tree = json.loads((tmp_path / "tree.json").read_text())
    assert tree["meta"]["spec"]["C"] in ([0.1], [10.0])
    res = cli_here("export", "tree.json", "-o", "tree.py", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert not leftovers(tmp_path)


@pytest.mark.parametrize("command", ["export", "predict"])
def test_two_writers_of_one_output_file(trees: Path, tmp_path: Path, command: str) -> None:
    """`export -o` / `predict -o` twice at once into one file (two trees): the file is byte for byte what
    one of them writes alone."""
    for f in ("t0.json", "t1.json", "new.csv"):
        shutil.copy(trees / f, tmp_path / f)

    def args(tree: str, out: str) -> list[str]:
        if command == "export":
            return ["export", tree, "-o", out]
        return ["predict", tree, "new.csv", "--proba", "-o", out]

    suffix = ".py" if command == "export" else ".csv"
    for i in range(2):  # what each writes alone (in this process: these two race nothing)
        assert cli_here(*args(f"t{i}.json", f"ref{i}{suffix}"), cwd=tmp_path).returncode == 0
    ref = {(tmp_path / f"ref{i}{suffix}").read_bytes() for i in range(2)}
    assert len(ref) == 2
    ps = [start_olctc(args(f"t{i}.json", f"out{suffix}"), tmp_path, f"w{i}") for i in range(2)]
    for i, p in enumerate(ps):
        code, out, err = finish(p, tmp_path, f"w{i}")
        assert code == 0 and "Traceback" not in err, out + err
    assert (tmp_path / f"out{suffix}").read_bytes() in ref
    assert not leftovers(tmp_path)


def test_two_bench_reports_take_turns(tmp_path: Path) -> None:
    """Two reports at once on one folder moved their files into report/ at the same time: one's tables beside the
    other's summary.md and trees, the newer one's trees removed as an earlier report's (QA 2026-12-05). A report
    now holds the folder from reading the runs to its last rename; the other says it waits, then writes."""
    made = cli_here(*SLOW_BENCH[:-1], "5", "--models", "CART", "-o", "b", cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    ready, go = tmp_path / "ready", tmp_path / "go"
    a = start_paused("olctc.bench.report._replace_trees", ready, go, ["bench", "report", "b"], tmp_path, "a")
    try:
        wait_for(lambda: ready.exists() or a.poll() is not None, "report A to reach its trees")
        assert a.poll() is None, "report A ended before its trees: it was not paused"
        b = start_olctc(["bench", "report", "b"], tmp_path, "b")
        wait_for(lambda: b.poll() is not None or waits_for_a_lock(b.pid), "report B to wait", timeout=TIMEOUT)
        assert b.poll() is None, (tmp_path / "b.err").read_text()
    finally:
        go.touch()
    code_a, _, err_a = finish(a, tmp_path, "a")
    code_b, _, err_b = finish(b, tmp_path, "b")
    assert code_a == 0 and "waiting" not in err_a, err_a
    assert code_b == 0 and "another olctc process is writing into b (a bench report?): waiting for it to finish" \
        in err_b, err_b
    assert (tmp_path / "b/report/summary.md").is_file() and not leftovers(tmp_path / "b")


def test_a_compile_behind_another_into_the_folder_says_it_waits(tmp_path: Path) -> None:
    """A compile into a folder another compile is writing into waited in silence (QA 2026-12-05)."""
    a, go = start_paused_compile(tmp_path, "heart", "a.mps")
    try:
        b = start_olctc(["compile", "--dataset", "heart", "--depth", "1", "-o", "b.mps"], tmp_path, "b")
        wait_for(lambda: b.poll() is not None or waits_for_a_lock(b.pid), "compile B to wait", timeout=TIMEOUT)
        assert b.poll() is None, (tmp_path / "b.err").read_text()
    finally:
        go.touch()
    assert finish(a, tmp_path, "a")[0] == 0
    code, _, err = finish(b, tmp_path, "b")
    assert code == 0 and err.startswith(f"warning: another olctc process is writing into .{os.sep} (one compile "
                                        "at a time per folder): waiting for it to finish"), err
    check_compiled_set(tmp_path, "a")
    check_compiled_set(tmp_path, "b")
