"""QA: how every command handles file paths and working folders.

Users compile in one folder, submit from another, solve on a node whose working folder differs, move
folders, use symbolic links and odd names. Each probe must either succeed or end with a one-line
``error: ...`` and exit code 2, no traceback, nothing half-written.
"""
from __future__ import annotations

import gzip
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import CPYTHON_DELETED_CWD_BUG, HIGHS_START_ACCEPTED, cli_here, cli_main
from olctc.datasets import dataset_path

# One pytest-xdist worker for the module: the compiled model and the solved grid were built by each worker that
# ran one of the tests using them.
pytestmark = pytest.mark.xdist_group("qa_paths")

OLCTC = [sys.executable, "-m", "olctc"]
GRID_ARGS = ["--target", "y", "--depth", "1", "--C-values", "1", "--folds", "2", "--time-limit", "10",
             "--solver", "highs"]


def run(args, cwd, env=None, timeout=120) -> subprocess.CompletedProcess:
    """``python -m olctc ARGS`` in ``cwd``."""
    return subprocess.run([*OLCTC, *map(str, args)], cwd=cwd, env=env, capture_output=True, text=True,
                          errors="replace", timeout=timeout)


def sh(script: str, cwd, env=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                          errors="replace", timeout=timeout)


def one_line_error(res_or_err, code=None) -> None:
    err = res_or_err if isinstance(res_or_err, str) else res_or_err.stderr
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.startswith("error: ")]
    assert len(lines) == 1, err


def solutions(grid: Path) -> list[Path]:
    return [p for p in sorted(grid.glob("tasks/*/model.*.sol")) if ".start." not in p.name]


def write_haberman(path: Path) -> Path:
    path.write_bytes(gzip.decompress(dataset_path("haberman").read_bytes()))
    return path


def real_olctc_script() -> Path:
    """The olctc console script itself (not a pyenv shim), whose shebang names this Python."""
    script = Path(sysconfig.get_path("scripts")) / "olctc"
    if not script.is_file():
        pytest.skip("no olctc console script beside this Python")
    return script


# ---- shared, never mutated: a compiled model, a solved grid -----------------------------------------------

@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """haberman at depth 1 compiled into ROOT/proj/m.mps from ROOT (relative paths), and HiGHS's solution (both
    in this process: the tests use what they write)."""
    root = tmp_path_factory.mktemp("compiled")
    (root / "data").mkdir()
    write_haberman(root / "data" / "hab.csv")
    (root / "proj").mkdir()
    res = cli_here("compile", "data/hab.csv", "--target", "y", "--depth", "1", "-o", "proj/m.mps", cwd=root)
    assert res.returncode == 0, res.stderr
    res = cli_here("solve", "proj/m.mps", "--quiet", "--time-limit", "10", "-o", "proj/m.highs.sol", cwd=root)
    assert res.returncode == 0, res.stderr
    return root


@pytest.fixture(scope="module")
def solved_grid(tmp_path_factory):
    """A 2-task grid of haberman (its CSV given by a relative path; written in this process), solved by
    run_local.sh run from /."""
    root = tmp_path_factory.mktemp("grid")
    write_haberman(root / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "-o", "g", cwd=root)
    assert res.returncode == 0, res.stderr
    done = sh(f"bash {shlex.quote(str(root / 'g' / 'run_local.sh'))}", cwd="/")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(solutions(root / "g")) == 2
    return root


def copy_grid(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("*.mps"), symlinks=True)  # collect needs no .mps
    return dst


# ==== defects =================================================================================================

def test_grid_with_a_relative_olctc_cmd_has_tasks_that_run(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "myolctc").symlink_to(real_olctc_script())
    write_haberman(tmp_path / "hab.csv")
    # grid in this process, from tmp_path; run_local.sh runs the tasks, each olctc in a process of its own
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "--olctc-cmd", "bin/myolctc", "-o", "g", cwd=tmp_path)
    if res.returncode == 2:  # refused: fine, if in one line and nothing written
        one_line_error(res)
        assert not (tmp_path / "g").exists()
        return
    assert res.returncode == 0, res.stderr
    done = sh("bash g/run_local.sh", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # was: "task 0 failed (see tasks/0000/solve.log)"
    assert len(solutions(tmp_path / "g")) == 2


def test_a_relative_olctc_cmd_with_a_quoted_dollar_is_anchored_too(tmp_path):
    """A '$' inside single quotes is a letter of the folder's name, not a variable: the path was left relative
    and unchecked, and every task failed ("b in$x/olctc: No such file or directory")."""
    (tmp_path / "b in$x").mkdir()
    (tmp_path / "b in$x" / "my;olctc").symlink_to(real_olctc_script())
    write_haberman(tmp_path / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "--olctc-cmd", "'b in$x/my;olctc'", "-o", "g", cwd=tmp_path)
    assert res.returncode == 0 and "warning" not in res.stderr, res.stderr
    done = sh("bash g/run_local.sh", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(solutions(tmp_path / "g")) == 2


def test_grid_warns_of_a_solver_program_not_found_here(tmp_path, monkeypatch):
    """gurobi_cl missing: every task's solve.log said "command not found", and only collect told of it."""
    write_haberman(tmp_path / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "--solver", "glpk-cli", "-o", "g1", cwd=tmp_path)
    assert res.returncode == 0 and "warning" not in res.stderr, res.stderr  # glpsol is here
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "--solver", "glpk-cli", "-o", "g2", cwd=tmp_path)
    assert res.returncode == 0 and res.stderr == (
        "warning: --solver glpk-cli: the tasks run the program 'glpsol', which is not on PATH here: make it "
        "available where they run (or choose another --solver)\n"), res.stderr


@pytest.mark.parametrize("name", ["g\n", "a\nb"])
def test_a_grid_folder_with_a_line_break_is_refused(tmp_path, name):
    """run_local.sh and submit.sh cd to $(dirname ...), which drops a trailing newline: the scripts of "g\n"
    ran the tasks of a sibling grid "g"."""
    write_haberman(tmp_path / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "-o", name, cwd=tmp_path)
    assert res.returncode == 2 and "expected a path without a line break" in res.stderr, res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hab.csv"]


@pytest.mark.parametrize("cmd, expanded", [
    ("~/bin/olctc", True), ("$HOME/bin/olctc", True), ('"$HOME"/bin/olctc', True), ("`which olctc`", True),
    ("'b in$x/olctc'", False), ("b\\$x/olctc", False), ("bin/olctc --x $Y", False), ("a/~b", False)])
def test_which_olctc_cmd_the_task_shell_expands(cmd, expanded):
    from olctc.cluster.grid import _expanded

    assert _expanded(cmd) == expanded


def test_grid_default_olctc_cmd_found_through_a_relative_PATH_entry_still_runs(tmp_path):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "olctc").symlink_to(real_olctc_script())
    write_haberman(tmp_path / "hab.csv")
    env = {**os.environ, "PATH": "bin:/usr/bin:/bin"}
    res = run(["grid", "hab.csv", *GRID_ARGS, "-o", "g"], cwd=tmp_path, env=env)
    if res.returncode == 2:  # refused: fine, if in one line and nothing written
        one_line_error(res)
        assert not (tmp_path / "g").exists()
        return
    assert res.returncode == 0, res.stderr
    done = sh("bash g/run_local.sh", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(solutions(tmp_path / "g")) == 2


@pytest.mark.parametrize("cmd", ["~/bin/olctc", "$HOME/bin/olctc"])
def test_grid_does_not_warn_of_an_olctc_cmd_the_shell_expands(tmp_path, cmd):
    home = tmp_path / "home"
    (home / "bin").mkdir(parents=True)
    (home / "bin" / "olctc").symlink_to(real_olctc_script())
    env = {**os.environ, "HOME": str(home)}
    res = run(["grid", "--dataset", "haberman", "--depth", "1", "--folds", "2", "--C-values", "1",
               "--time-limit", "10", "--olctc-cmd", cmd, "-o", "g"], cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    done = sh("bash g/run_local.sh", cwd=tmp_path, env=env)
    assert done.returncode == 0 and len(solutions(tmp_path / "g")) == 2, done.stderr  # the tasks run ...
    assert "warning" not in res.stderr, res.stderr  # ... so the warning is wrong


def test_grid_prints_runnable_commands_for_a_folder_starting_with_a_dash(tmp_path):
    write_haberman(tmp_path / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "-o", "-g", cwd=tmp_path)  # in this process: what it prints is tested
    assert res.returncode == 0, res.stderr
    lines = {ln.split(":", 1)[0].strip(): ln.split(":", 1)[1].strip() for ln in res.stdout.splitlines()
             if ln.startswith("  ") and ":" in ln and not ln.strip().startswith("task")}
    script = tmp_path / "local.sh"
    script.write_text(lines["locally"] + "\n")
    done = subprocess.run(["bash", str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr  # was: "/bin/bash: -g: invalid option"
    assert len(solutions(tmp_path / "-g")) == 2
    submit_cd = lines["submit"].split("(or ", 1)[1].split(" && ")[0]  # "cd -g"
    assert sh(submit_cd, cwd=tmp_path).returncode == 0, submit_cd


def test_run_local_through_a_symlink_runs_the_tasks_or_fails(tmp_path):
    write_haberman(tmp_path / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "-o", "g", cwd=tmp_path)  # in this process: run_local.sh is tested
    assert res.returncode == 0, res.stderr
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "run-grid.sh").symlink_to(tmp_path / "g" / "run_local.sh")
    done = sh("bash bin/run-grid.sh", cwd=tmp_path)
    ran = len(solutions(tmp_path / "g")) == 2
    assert ran or done.returncode != 0, (done.returncode, done.stdout, done.stderr)


def test_run_local_without_its_jobs_file_fails(tmp_path):
    write_haberman(tmp_path / "hab.csv")
    res = cli_here("grid", "hab.csv", *GRID_ARGS, "-o", "g", cwd=tmp_path)  # in this process: run_local.sh is tested
    assert res.returncode == 0, res.stderr
    (tmp_path / "g" / "jobs.tsv").rename(tmp_path / "jobs.tsv.bak")
    done = sh("bash g/run_local.sh", cwd=tmp_path)
    assert done.returncode != 0 and "jobs.tsv" in done.stderr, (done.returncode, done.stderr)


@pytest.mark.parametrize("script", ["run_local.sh", "submit.slurm", "submit.sh"])
def test_collect_does_not_write_the_tree_over_the_grids_scripts(solved_grid, tmp_path, script, monkeypatch, capsys):
    g = copy_grid(solved_grid / "g", tmp_path / "g")
    before = (g / script).read_bytes()
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["collect", "g", "--quiet", "--time-limit", "5", "--data",
                               str(solved_grid / "hab.csv"), "-o", f"g/{script}"], capsys)
    assert (g / script).read_bytes() == before
    assert code == 2, (code, err)
    one_line_error(err)


def test_bench_under_a_file_names_it_a_file_not_missing(tmp_path, monkeypatch, capsys):
    (tmp_path / "afile").write_text("")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["bench", "models", "--datasets", "haberman", "--seeds", "0", "--models", "CART",
                               "--time-limit", "5", "-o", "afile/b"], capsys)
    assert code == 2
    one_line_error(err)
    assert (tmp_path / "afile").read_text() == ""
    assert "does not exist" not in err and "afile" in err, err  # it exists: a file, not a folder


#: olctc commands one after another in one interpreter (argv[1]: a JSON list of argument lists): the first that
#: does not exit 0 ends it, naming itself and its exit code. scikit-learn's base modules and scipy.optimize are
#: imported first: compile's warm start, computed in a forked child (sklearn.linear_model is not loaded yet),
#: imported them anew (about 1.5 s).
OLCTC_SEQ = ("import json, sys\n"
             "import scipy.optimize, sklearn.base, sklearn.exceptions, sklearn.utils.validation\n"
             "from olctc.cli import main\n"
             "for args in json.loads(sys.argv[1]):\n"
             "    try:\n"
             "        main(args)\n"
             "    except SystemExit as e:\n"
             "        if e.code != 0:\n"
             "            sys.exit(f'olctc {args[0]} exited {e.code}')\n")


def _in_a_deleted_folder(tmp_path: Path, args: list[str], env=None, *,
                         seq: list[list] | None = None) -> subprocess.CompletedProcess:
    """``python -m olctc ARGS`` run from a folder deleted before it starts; with ``seq``, the commands of ``seq``
    one after another in one such interpreter (OLCTC_SEQ) instead."""
    gone = tmp_path / "gone"
    gone.mkdir()
    if seq is None:
        cmd = " ".join(shlex.quote(a) for a in [*OLCTC, *map(str, args)])
    else:
        todo = json.dumps([[str(a) for a in command] for command in seq])
        cmd = " ".join(shlex.quote(a) for a in [sys.executable, "-c", OLCTC_SEQ, todo])
    return sh(f"cd {shlex.quote(str(gone))} && rmdir {shlex.quote(str(gone))} && exec {cmd}", cwd=tmp_path, env=env)


def test_fit_cv_jobs_in_a_deleted_working_folder(tmp_path):
    res = _in_a_deleted_folder(tmp_path, ["fit", "--dataset", "haberman", "--depth", "1", "--cv", "2", "--C-values",
                                          "1,10", "--jobs", "2", "--threads", "1", "--time-limit", "5", "--quiet",
                                          "-o", tmp_path / "t.json"])
    assert "Traceback" not in res.stderr, res.stderr[-600:]
    assert res.returncode == 0 or (res.returncode == 2 and not (tmp_path / "t.json").exists())


def test_bench_in_a_deleted_working_folder(tmp_path):
    res = _in_a_deleted_folder(tmp_path, ["bench", "models", "--datasets", "haberman", "--seeds", "0",
                                          "--models", "CART", "--time-limit", "5", "-o", tmp_path / "b"])
    assert "Traceback" not in res.stderr, res.stderr[-600:]
    assert res.returncode in (0, 2), res.stderr
    if res.returncode == 2:
        one_line_error(res)


def test_solve_through_a_symlinked_model_keeps_its_mip_start(compiled, tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "m.mps").symlink_to(compiled / "proj" / "m.mps")
    res = run(["solve", "run/m.mps", "--time-limit", "10", "-o", "run/s.sol"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    took_start = HIGHS_START_ACCEPTED.search(res.stdout + res.stderr) is not None
    said_so = "start" in res.stderr.lower()
    assert took_start or said_so


# ==== what works ==============================================================================================

def test_model_and_manifest_moved_together_decode_from_a_third_folder(compiled, tmp_path, monkeypatch, capsys):
    """Model + manifest moved to another folder, the solution elsewhere, the data moved too; decode from a third
    working folder with relative paths; without --data, a one-line error naming --data."""
    moved = tmp_path / "moved"
    moved.mkdir()
    for name in ("m.mps", "m.olctc.json"):
        shutil.copy(compiled / "proj" / name, moved / name)
    (tmp_path / "sols").mkdir()
    shutil.copy(compiled / "proj" / "m.highs.sol", tmp_path / "sols" / "answer.sol")
    (tmp_path / "data2").mkdir()
    shutil.copy(compiled / "data" / "hab.csv", tmp_path / "data2" / "hab.csv")
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")  # in process: the relative paths are the working folder's
    code, _, err = cli_main(["decode", "../moved/m.olctc.json", "../sols/answer.sol", "--data", "../data2/hab.csv",
                             "-o", "../out.json"], capsys)
    assert code == 0, err
    assert (tmp_path / "out.json").is_file()
    # the manifest names the data by an absolute path, which still exists here: decode works without --data
    monkeypatch.chdir(tmp_path)
    code, _, err = cli_main(["decode", "moved/m.olctc.json", "sols/answer.sol", "-o", "out2.json"], capsys)
    assert code == 0, err


def test_decode_with_the_data_gone_names_data(compiled, tmp_path):
    man = tmp_path / "m.olctc.json"
    shutil.copy(compiled / "proj" / "m.olctc.json", man)
    text = man.read_text()
    assert str(compiled / "data" / "hab.csv") in text  # absolute: works from any working folder
    res = run(["decode", "m.olctc.json", str(compiled / "proj" / "m.highs.sol"), "--data", "nope.csv",
               "-o", "t.json"], cwd=tmp_path)
    assert res.returncode == 2 and not (tmp_path / "t.json").exists()
    one_line_error(res)


def test_grid_moved_with_its_data_then_collected_from_elsewhere(solved_grid, tmp_path):
    g = copy_grid(solved_grid / "g", tmp_path / "far away" / "g x")
    (tmp_path / "d").mkdir()
    shutil.copy(solved_grid / "hab.csv", tmp_path / "d" / "hab.csv")
    (tmp_path / "cwd").mkdir()
    # in this process, from tmp_path/cwd: the relative paths are the working folder's
    res = cli_here("collect", "../far away/g x", "--quiet", "--time-limit", "5", "--data", "../d/hab.csv",
                   "-o", "../tree.json", cwd=tmp_path / "cwd")
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "tree.json").is_file() and (g / "cv_results.json").is_file()
    # jobs.tsv names files relative to the grid folder only: it moved with it
    jobs = (g / "jobs.tsv").read_text()
    assert str(solved_grid) not in jobs and str(solved_grid) not in (g / "submit.slurm").read_text()


def test_collect_rerun_advice_runs_from_where_collect_ran(solved_grid, tmp_path):
    g = copy_grid(solved_grid / "g", tmp_path / "grids" / "g")
    shutil.copy(solved_grid / "g" / "tasks" / "0001" / "model.mps", g / "tasks" / "0001" / "model.mps")
    (g / "tasks" / "0001" / "model.highs.sol").unlink()
    (tmp_path / "cwd").mkdir()
    # in this process, from tmp_path/cwd: the advice's path is relative to the working folder; bash runs it there
    res = cli_here("collect", "../grids/g", "--quiet", "--data", str(solved_grid / "hab.csv"), cwd=tmp_path / "cwd")
    assert res.returncode == 2
    one_line_error(res)
    advice = res.stderr.split("), or ")[-1].split(" without Slurm")[0]  # "../grids/g/run_local.sh"
    assert advice.endswith("run_local.sh"), res.stderr
    done = sh(advice, cwd=tmp_path / "cwd")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(solutions(g)) == 2


def _fake_sbatch(tmp_path: Path, body: str) -> dict[str, str]:
    """The environment of a fake ``sbatch`` running the bash ``body``, first on PATH; it may log to $FAKE_LOG
    (tmp_path/sbatch.log)."""
    fake = tmp_path / "fakebin"
    fake.mkdir()
    (fake / "sbatch").write_text("#!/bin/bash\n" + body)
    (fake / "sbatch").chmod(0o755)
    return {**os.environ, "PATH": f"{fake}:{os.environ['PATH']}", "FAKE_LOG": str(tmp_path / "sbatch.log")}


def test_submit_sh_from_another_folder_with_a_node_in_another_folder(solved_grid, tmp_path):
    """bash DIR/submit.sh from anywhere; a fake sbatch runs each array task as Slurm does: the working folder
    of the node is not the grid's, SLURM_SUBMIT_DIR is the folder sbatch ran in."""
    g = copy_grid(solved_grid / "g", tmp_path / "my grid")
    for mps in (solved_grid / "g" / "tasks").glob("*/model.mps"):
        shutil.copy(mps, g / "tasks" / mps.parent.name / "model.mps")
    for sol in solutions(g):
        sol.unlink()
    env = _fake_sbatch(tmp_path,
                       'script="${@: -1}"; submit_dir="$PWD"; echo "$*" >> "$FAKE_LOG"\n'
                       'arr=$(sed -n "s/^#SBATCH --array=0-\\([0-9]*\\)$/\\1/p" "$script")\n'
                       'for i in $(seq 0 "$arr"); do\n'
                       '  (cd / && SLURM_SUBMIT_DIR="$submit_dir" SLURM_ARRAY_TASK_ID=$i bash "$submit_dir/$script")'
                       ' || exit 1\n'
                       "done\n")
    (tmp_path / "elsewhere").mkdir()
    done = sh(f"bash {shlex.quote(str(g / 'submit.sh'))} --partition=short", cwd=tmp_path / "elsewhere", env=env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(solutions(g)) == 2
    assert (tmp_path / "sbatch.log").read_text() == "--partition=short submit.slurm\n"
    # submit.slurm run by hand outside the grid folder: exit 2 naming jobs.tsv, nothing run
    res = sh(f"SLURM_ARRAY_TASK_ID=0 bash {shlex.quote(str(g / 'submit.slurm'))}", cwd=tmp_path / "elsewhere")
    assert res.returncode == 2 and "jobs.tsv not found" in res.stderr


def test_submit_sh_submits_every_array_at_once_and_reports_a_failed_one(tmp_path):
    # `bash submit.sh --wait` (examples/slurm_grid.sh): sbatch --wait returns when its array has ended, with
    # its status; the loop ran the arrays one after the other, and a failed task in the first (set -e) left
    # the second unsubmitted (QA pass under a real Slurm: 1089 tasks, only tasks 1000-1088 ran, exit 1)
    from olctc.cluster.slurm import submit_all_script

    g = tmp_path / "g"
    g.mkdir()
    (g / "submit.sh").write_text(submit_all_script(2))
    (g / "submit.slurm").write_text("tasks 0-999\n")
    (g / "submit-1000.slurm").write_text("tasks 1000-1088\n")
    # the array of submit-1000.slurm fails, at once; the other ends a second later, well
    env = _fake_sbatch(tmp_path,
                       'script="${@: -1}"; echo "start $* $(cat "$script")" >> "$FAKE_LOG"\n'
                       'if [ "$script" = submit-1000.slurm ]; then exit 1; fi\n'
                       'sleep 1; echo "end $script" >> "$FAKE_LOG"\n')
    done = sh(f"bash {shlex.quote(str(g / 'submit.sh'))} --wait", cwd=tmp_path, env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    log = sorted((tmp_path / "sbatch.log").read_text().splitlines())
    assert log == ["end submit.slurm", "start --wait submit-1000.slurm tasks 1000-1088",
                   "start --wait submit.slurm tasks 0-999"]
    (tmp_path / "sbatch.log").unlink()
    (g / "submit-1000.slurm").unlink()  # one array, which ends well: exit 0
    assert sh(f"bash {shlex.quote(str(g / 'submit.sh'))}", cwd=tmp_path, env=env).returncode == 0


WEIRD_DIR = "we ird;$x 'é'"
WEIRD_NAME = "-n ü$(x)"


@pytest.fixture(scope="module")
def weird(tmp_path_factory):
    root = tmp_path_factory.mktemp("weird") / WEIRD_DIR
    root.mkdir()
    write_haberman(root / "d a.csv")
    res = cli_here("compile", "d a.csv", "--target", "y", "--depth", "1", "-o", f"./{WEIRD_NAME}.mps", cwd=root)
    assert res.returncode == 0, res.stderr
    return root


@pytest.mark.parametrize("solver", ["cbc-cli", "glpk-cli", "highs-cli", "highs"])
def test_odd_names_solve_and_decode(weird, solver, tmp_path, monkeypatch, capsys):
    out = tmp_path / WEIRD_DIR
    out.mkdir()
    monkeypatch.chdir(weird)
    code, _, err = cli_main(["solve", f"./{WEIRD_NAME}.mps", "--solver", solver, "--quiet", "--time-limit", "10",
                             "-o", str(out / f"{WEIRD_NAME}.sol")], capsys)
    assert code == 0, err
    monkeypatch.chdir(out)
    code, _, err = cli_main(["decode", str(weird / f"{WEIRD_NAME}.olctc.json"), f"./{WEIRD_NAME}.sol",
                             "-o", f"./{WEIRD_NAME}.json"], capsys)
    assert code == 0, err
    assert sorted(p.name for p in out.iterdir()) == sorted([f"{WEIRD_NAME}.sol", f"{WEIRD_NAME}.json"])


@pytest.mark.parametrize("name", [
    "my model's $x (1) ü",
    "-n ü$(x)",  # was cbc '-n x.mps' and glpsol '-n x.mps' in NAME.solvers.txt: read as options (QA pass)
])
def test_solvers_txt_command_lines_run_as_written_for_odd_names(tmp_path, name, monkeypatch, capsys):
    if shutil.which("cbc") is None or shutil.which("glpsol") is None:
        pytest.skip("needs the cbc and glpsol programs")
    work = tmp_path / WEIRD_DIR
    work.mkdir()
    write_haberman(work / "d.csv")
    monkeypatch.chdir(work)
    code, _, err = cli_main(["compile", "d.csv", "--target", "y", "--depth", "1", "-o", f"./{name}.mps"], capsys)
    assert code == 0, err
    text = (work / f"{name}.solvers.txt").read_text()
    cbc = next(ln for ln in text.splitlines() if ln.strip().startswith("CBC:")).split("CBC:", 1)[1]
    cbc = cbc.split("   (flags")[0].strip()
    glpk = next(ln for ln in text.splitlines() if ln.strip().startswith("GLPK:") and "glpsol " in ln)
    glpk = glpk.split("GLPK:", 1)[1].strip()
    for line, sol in ((cbc, f"{name}.cbc.sol"), (glpk, f"{name}.glpk.sol")):
        done = sh(line, cwd=work)
        assert (work / sol).is_file(), (line, done.stdout[-300:], done.stderr[-300:])


def _tools_link(tmp_path: Path, program: str) -> None:
    """tmp_path/tools/PROGRAM: a link to the installed program (the test is skipped without it)."""
    found = shutil.which(program)
    if found is None:
        pytest.skip(f"no {program} program")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / program).symlink_to(found)


def test_solver_path_relative_and_bare(compiled, tmp_path, monkeypatch, capsys):
    # in process, from tmp_path: the paths are relative to the working folder, not to a fresh interpreter
    _tools_link(tmp_path, "cbc")
    model = os.path.relpath(compiled / "proj" / "m.mps", tmp_path)
    monkeypatch.chdir(tmp_path)
    for path, out in (("./tools/cbc", "a.sol"), ("tools/cbc", "b.sol"), ("cbc", "c.sol")):
        code, _, err = cli_main(["solve", model, "--solver", "cbc-cli", "--solver-path", path, "--quiet",
                                 "--time-limit", "10", "-o", out], capsys)
        assert code == 0, (path, err)
        assert (tmp_path / out).is_file()
    for path in ("./nope/cbc", "tools", "nocbc-here"):
        code, _, err = cli_main(["solve", model, "--solver", "cbc-cli", "--solver-path", path, "--quiet",
                                 "-o", "x.sol"], capsys)
        assert code == 2 and not (tmp_path / "x.sol").exists(), (path, err)
        one_line_error(err)


def test_relative_PATH_entry_for_the_solver_program(compiled, tmp_path):
    _tools_link(tmp_path, "glpsol")
    env = {**os.environ, "PATH": "tools:/nonexistent"}
    res = run(["solve", compiled / "proj" / "m.mps", "--solver", "glpk-cli", "--quiet", "--time-limit", "10",
               "-o", "s.sol"], cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "s.sol").is_file()


@pytest.mark.parametrize("tmpdir", ["missing", "a file"])
@pytest.mark.parametrize("solver", ["cbc-cli", "highs"])
def test_a_bad_TMPDIR_does_not_stop_solve(compiled, tmp_path, tmpdir, solver):
    (tmp_path / "a file").write_text("")
    env = {**os.environ, "TMPDIR": str(tmp_path / tmpdir)}
    res = run(["solve", compiled / "proj" / "m.mps", "--solver", solver, "--quiet", "--time-limit", "10",
               "-o", "s.sol"], cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    assert "Traceback" not in res.stderr


def test_no_HOME_and_no_TMPDIR_fit_and_export(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "MPLCONFIGDIR", "XDG_CACHE_HOME")}
    env["TMPDIR"] = str(tmp_path / "missing")
    res = run(["fit", "--dataset", "haberman", "--depth", "1", "--time-limit", "5", "--quiet", "-o", "t.json"],
              cwd=tmp_path, env=env)
    assert res.returncode == 0, res.stderr
    res = run(["export", "t.json", "-o", "t.png"], cwd=tmp_path, env=env)
    assert res.returncode == 0 and "Traceback" not in res.stderr, res.stderr


@CPYTHON_DELETED_CWD_BUG
def test_plain_commands_in_a_deleted_working_folder(compiled, tmp_path):
    proj = tmp_path / "p"
    shutil.copytree(compiled / "proj", proj)
    # one interpreter for the five (each one's start, a second or more, is not what they test; the last command
    # below starts `python -m olctc` in a deleted folder)
    res = _in_a_deleted_folder(tmp_path, [], seq=[
        ["compile", "--dataset", "haberman", "--depth", "1", "-o", proj / "n.mps"],
        ["solve", proj / "n.mps", "--quiet", "--time-limit", "10"],
        ["solve", proj / "n.mps", "--solver", "cbc-cli", "--quiet", "--time-limit", "10", "-o", proj / "n.c.sol"],
        ["decode", proj / "n.olctc.json", proj / "n.highs.sol", "-o", proj / "t.json"],
        ["grid", "--dataset", "haberman", "--depth", "1", "--folds", "2", "--C-values", "1", "--time-limit", "5",
         "-o", proj / "g"]])
    assert res.returncode == 0, res.stderr[-600:]
    res = _in_a_deleted_folder(tmp_path, ["compile", "--dataset", "haberman", "--depth", "1", "-o", "m.mps"])
    assert res.returncode == 2
    one_line_error(res)


def test_symlink_loops_as_inputs_are_one_line_errors(compiled, tmp_path, monkeypatch, capsys):
    for name in ("l.csv", "l.mps", "l.json", "l.sol", "ldir"):
        (tmp_path / name).symlink_to(name)
    shutil.copy(compiled / "proj" / "m.olctc.json", tmp_path / "m.olctc.json")
    monkeypatch.chdir(tmp_path)
    before = sorted(p.name for p in tmp_path.iterdir())
    for args in (["compile", "l.csv", "--target", "y", "-o", "x.mps"],
                 ["solve", "l.mps", "-o", "x.sol"],
                 ["decode", "l.json", "l.sol", "-o", "x.json"],
                 ["decode", "m.olctc.json", "l.sol", "-o", "x.json"],
                 ["decode", "m.olctc.json", str(compiled / "proj" / "m.highs.sol"), "--data", "l.csv",
                  "-o", "x.json"],
                 ["predict", "l.json", "l.csv"],
                 ["export", "l.json", "-o", "x.py"],
                 ["collect", "ldir"],
                 ["grid", "l.csv", "--target", "y", "-o", "g"],
                 ["compile", "--dataset", "haberman", "--depth", "1", "-o", "ldir/x.mps"]):
        code, _, err = cli_main(args, capsys)
        assert code == 2, (args, err)
        one_line_error(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_names_of_255_bytes(compiled, tmp_path, monkeypatch, capsys):
    """Every file is written under a temporary name first: a final name of 255 bytes must still work."""
    shutil.copytree(compiled / "proj", tmp_path / "p")
    monkeypatch.chdir(tmp_path / "p")
    longest = lambda suffix: "x" * (255 - len(suffix)) + suffix  # noqa: E731
    for args in (["solve", "m.mps", "--quiet", "--time-limit", "10", "-o", longest(".sol")],
                 ["solve", "m.mps", "--solver", "cbc-cli", "--quiet", "--time-limit", "10", "-o", longest(".c.sol")],
                 ["decode", "m.olctc.json", "m.highs.sol", "-o", longest(".json")],
                 ["export", longest(".json"), "-o", longest(".onnx")],
                 ["predict", longest(".json"), str(compiled / "data" / "hab.csv"), "-o", longest(".csv")],
                 ["grid", "--dataset", "haberman", "--depth", "1", "--folds", "2", "--C-values", "1",
                  "--time-limit", "5", "-o", "g" * 255]):
        code, _, err = cli_main(args, capsys)
        assert code == 0, (args[:2], err)
    # compile: NAME.start.gurobi.mst beside NAME.mps would exceed 255 bytes: one line, nothing written
    before = sorted(p.name for p in Path(".").iterdir())
    code, _, err = cli_main(["compile", "--dataset", "haberman", "--depth", "1", "-o", "y" * 245 + ".mps"], capsys)
    assert code == 2
    one_line_error(err)
    assert sorted(p.name for p in Path(".").iterdir()) == before


def test_grid_into_a_symlink_to_an_empty_folder_keeps_the_link(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    res = cli_here("grid", "--dataset", "haberman", "--depth", "1", "--folds", "2", "--C-values", "1",
                   "--time-limit", "5", "-o", "link/", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real" / "grid.json").is_file()


def test_bench_folder_moved_is_resumed_and_reported(tmp_path):
    # in this process, from the working folders given: the paths are relative to them
    res = cli_here("bench", "models", "--datasets", "haberman", "--seeds", "0", "--models", "CART",
                   "--time-limit", "5", "-o", "b x", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    (tmp_path / "moved").mkdir()
    (tmp_path / "b x").rename(tmp_path / "moved" / "b x")
    res = cli_here("bench", "models", "--datasets", "haberman", "--seeds", "0", "--models", "CART",
                   "--time-limit", "5", "-o", "b x", cwd=tmp_path / "moved")
    assert res.returncode == 0 and "1 skipped" in res.stdout, res.stdout + res.stderr
    res = cli_here("bench", "report", "moved/b x", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / "moved" / "b x" / "report").is_dir()


# ---- names that are not UTF-8 (a Latin-1 byte, as in files from old archives) --------------------------------

LATIN1 = os.fsdecode(b"caf\xe9")  # a lone surrogate in Python: what os.listdir gives for such a name


@pytest.fixture(scope="module")
def latin1(tmp_path_factory):
    """A compiled model in a folder whose name holds a non-UTF-8 byte; its data under a plain name."""
    root = tmp_path_factory.mktemp("latin1")
    write_haberman(root / "plain.csv")
    folder = root / LATIN1
    folder.mkdir()
    # in this process: what it writes is the tests' input (the tests of such names in a fresh process follow)
    res = cli_here("compile", root / "plain.csv", "--target", "y", "--depth", "1", "-o", folder / "m.mps", cwd=root)
    assert res.returncode == 0, res.stderr
    return root


@pytest.mark.parametrize("solver", ["highs", "cbc", "scip"])
def test_in_process_solve_of_a_model_under_a_non_utf8_name(latin1, solver, tmp_path):
    res = run(["solve", latin1 / LATIN1 / "m.mps", "--solver", solver, "--quiet", "--time-limit", "10",
               "-o", tmp_path / "s.sol"], cwd=tmp_path)
    assert "Traceback" not in res.stderr, res.stderr[-400:]
    assert res.returncode == 0 or (res.returncode == 2 and not (tmp_path / "s.sol").exists()), res.stderr


@pytest.mark.parametrize("solver", ["cbc-cli", "glpk-cli"])
def test_solver_programs_solve_a_model_under_a_non_utf8_name(latin1, solver, tmp_path):
    res = run(["solve", latin1 / LATIN1 / "m.mps", "--solver", solver, "--quiet", "--time-limit", "10",
               "-o", tmp_path / f"{LATIN1}.sol"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert (tmp_path / f"{LATIN1}.sol").is_file()


def test_compile_to_a_non_utf8_name(tmp_path):
    res = run(["compile", "--dataset", "haberman", "--depth", "1", "-o", f"{LATIN1}.mps"], cwd=tmp_path)
    assert "Traceback" not in res.stderr, res.stderr[-400:]
    if res.returncode == 2:
        one_line_error(res)
        assert list(tmp_path.iterdir()) == []
    else:
        assert res.returncode == 0 and (tmp_path / f"{LATIN1}.olctc.json").is_file()


def test_training_data_under_a_non_utf8_name_gives_a_tree(tmp_path):
    write_haberman(tmp_path / f"{LATIN1}.csv")
    res = run(["fit", f"{LATIN1}.csv", "--target", "y", "--depth", "1", "--time-limit", "5", "--quiet",
               "-o", "t.json"], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
