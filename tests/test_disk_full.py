"""A full disk, a read-only one, a folder gone: one line naming the file, exit 2, nothing half-written.

Each test mounts a small tmpfs of its own (root only; skipped where mount is refused) and fills it with a
file until exactly the wanted number of pages is left, so that a write fails where the test wants it: on
the first file, in the middle of one, on the last one.
"""
from __future__ import annotations

import csv
import errno
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import cli_here, tmpfs
from olctc.compile import compile_problem
from olctc.datasets import dataset_path, load
from olctc.errors import OlctcError
from olctc.io import is_temporary_name
from olctc.pipeline import write_compiled
from olctc.spec import make_spec

PAGE = os.sysconf("SC_PAGE_SIZE")  # a tmpfs allocates whole pages
NO_SPACE = "No space left on device"


def fill(folder: Path, pages: int = 0) -> None:
    """Fill ``folder``'s file system with the file ``filler``, then give back ``pages`` pages."""
    fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        chunk = b"\0" * (1 << 16)
        while True:
            try:
                os.write(fd, chunk)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise
                break
        size = os.fstat(fd).st_size
        assert size >= pages * PAGE, "the tmpfs is too small for the test"
        os.ftruncate(fd, (size // PAGE - pages) * PAGE)
    finally:
        os.close(fd)


def olctc(*args, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder`` (the filler aside), with its sha256."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "/"
            for p in sorted(folder.rglob("*")) if p.name != "filler"}


def no_temporary_names(folder: Path) -> bool:
    return not [p for p in folder.rglob("*") if is_temporary_name(p.name)]


def pages(paths) -> int:
    return sum(-(-p.stat().st_size // PAGE) for p in paths)


def one_line_error(res: subprocess.CompletedProcess, path: Path | str, why: str = NO_SPACE,
                   before: tuple[str, ...] = ("warning: ",)) -> None:
    """Exit 2 and the error on the last line of stderr (after lines that start with ``before``)."""
    assert res.returncode == 2, res.stderr
    lines = res.stderr.splitlines()
    assert "Traceback" not in res.stderr and lines[-1].startswith(f"error: cannot write {path}"), res.stderr
    assert why in lines[-1] and all(line.startswith(before) for line in lines[:-1]), res.stderr


def small_csv(path: Path, per_class: int = 20) -> Path:
    """The first ``per_class`` rows of each class of the vendored heart data."""
    rows = list(csv.reader(io.StringIO(gzip.decompress(dataset_path("heart").read_bytes()).decode())))
    yi = rows[0].index("y")
    body = [r for r in rows[1:] if r[yi] == "1"][:per_class] + [r for r in rows[1:] if r[yi] == "0"][:per_class]
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows([rows[0]] + body)
    return path


@pytest.fixture(scope="module")
def model(tmp_path_factory) -> Path:
    """A depth-1 model of 40 heart rows with its manifest and starts (its CBC solution is ~4.1 kB)."""
    root = tmp_path_factory.mktemp("model")
    res = cli_here("compile", small_csv(root / "h40.csv"), "--target", "y", "--depth", "1", "-o",
                     root / "m.mps")
    assert res.returncode == 0, res.stderr
    return root / "m.mps"


# ------------------------------------------------------------------ compile
def test_compile_on_a_full_disk_leaves_no_file_wherever_it_fails(model, tmp_path):
    written = [p for p in model.parent.iterdir() if p.name.startswith("m.")]  # what compile wrote beside m.mps
    need = pages(written)
    mps = pages([model])
    # the model; a parameter or start file; the manifest, written last
    for free, failing in ((0, "m.mps"), (mps + 2, "m."), (need - 1, "m.olctc.json")):
        with tmpfs(tmp_path / f"d{free}") as d:
            fill(d, free)
            res = cli_here("compile", model.parent / "h40.csv", "--target", "y", "--depth", "1", "-o",
                             d / "m.mps")
            one_line_error(res, d / failing)
            assert sorted(os.listdir(d)) == ["filler"]  # the files written before the failing one went too


def test_a_model_write_that_fails_waits_for_the_warm_start_on_its_thread(tmp_path):
    # the warm start runs on a thread of its own while the model is written; the write fails first
    comp = compile_problem(load("a6a"), make_spec("olct", 1))
    with tmpfs(tmp_path / "d") as d:
        fill(d, 0)
        with pytest.raises(OlctcError, match=f"^cannot write {re.escape(str(d / 'm.mps'))}: .*{NO_SPACE}"):
            write_compiled(comp, d / "m.mps")
        assert sorted(os.listdir(d)) == ["filler"]
    assert not [t for t in threading.enumerate() if t.name == "olctc-warm-start"]  # nothing of it outlives it


def test_standard_output_cut_short_under_python_u_is_an_error(model, tmp_path):
    # PYTHONUNBUFFERED=1 (python -u): the text layer over the raw file dropped a short write's rest, and the
    # command exited 0 with its output cut (8192 of 8201 bytes of SQL); /dev/full fails every write, not this one
    tree = tmp_path / "t.json"
    sol = tmp_path / "m.sol"
    assert cli_here("solve", model, "--quiet", "-o", sol).returncode == 0
    assert cli_here("decode", model.with_suffix(".olctc.json"), sol, "-o", tree).returncode == 0
    whole = olctc("export", tree, "--format", "sql").stdout
    assert len(whole) > PAGE
    with tmpfs(tmp_path / "d") as d:
        fill(d, 1)
        with open(d / "x.sql", "w") as out:
            res = subprocess.run([sys.executable, "-m", "olctc.cli", "export", tree, "--format", "sql"], stdout=out,
                                 stderr=subprocess.PIPE, text=True, timeout=120, env={**os.environ,
                                                                                       "PYTHONUNBUFFERED": "1"})
        assert res.returncode == 2 and res.stderr == f"error: cannot write standard output: {NO_SPACE}\n"
        assert 0 < (d / "x.sql").stat().st_size < len(whole)


# ------------------------------------------------------------------ solve
@pytest.mark.skipif(shutil.which("cbc") is None, reason="needs the cbc program")
@pytest.mark.parametrize("free", [0, 1])  # no room at all; a page, less than the solution's 4.1 kB
def test_solve_with_a_solver_program_on_a_full_disk_keeps_the_earlier_solution(model, tmp_path, free):
    with tmpfs(tmp_path / "d") as d:
        (d / "x.sol").write_text("the earlier solution\n")
        fill(d, free)
        res = olctc("solve", model, "--solver", "cbc-cli", "--quiet", "-o", d / "x.sol")
        # used to: shutil.move's traceback (exit 1), the earlier file removed and a partial one in its place
        one_line_error(res, d / "x.sol")
        assert sorted(os.listdir(d)) == ["filler", "x.sol"]
        assert (d / "x.sol").read_text() == "the earlier solution\n"


@pytest.mark.parametrize("solver", ["highs", "cbc-cli"])
def test_solve_into_a_read_only_folder_fails_before_solving(model, tmp_path, solver):
    if solver == "cbc-cli" and shutil.which("cbc") is None:
        pytest.skip("needs the cbc program")
    with tmpfs(tmp_path / "ro", "ro") as ro:
        res = olctc("solve", model, "--solver", solver, "-o", ro / "x.sol")
        # used to: cbc-cli solved, then a traceback (exit 1); highs solved (its log printed), then failed
        assert res.returncode == 2 and res.stderr == f"error: cannot write {ro / 'x.sol'}: folder {ro} is not " \
                                                      "writable\n", res.stderr
        assert res.stdout == ""  # no solver log: refused before the solve


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0 or not os.path.isdir("/proc/self"),
                    reason="needs root and /proc: os.access then says /proc is writable")
@pytest.mark.parametrize("command", [["fit", "--dataset", "heart", "--depth", "1", "--time-limit", "5"],
                                     ["compile", "--dataset", "heart", "--depth", "1"]])
def test_a_folder_os_access_calls_writable_but_is_not_fails_before_the_work(command):
    res = olctc(*command, "-o", "/proc/x.json" if command[0] == "fit" else "/proc/x.mps")
    # used to: fit printed its whole run (solver log, report), then "cannot write /proc/x.json: No such file"
    assert res.returncode == 2 and re.fullmatch(r"error: cannot write /proc/x\.(json|mps): folder /proc is not "
                                                r"writable \(.+\)\n", res.stderr), res.stderr
    assert res.stdout == ""


# ------------------------------------------------------------------ collect --emit-final
@pytest.fixture(scope="module")
def solved_grid(tmp_path_factory) -> Path:
    """A 2-fold, one-C, depth-1 grid on 40 heart rows, solved by olctc solve (HiGHS) through run_local.sh."""
    root = tmp_path_factory.mktemp("grid")
    out = root / "g"
    res = cli_here("grid", small_csv(root / "h40.csv"), "--target", "y", "--depth", "1", "--C-values", "1",
                     "--folds", "2", "--time-limit", "20", "--olctc-cmd", f"{sys.executable} -m olctc.cli", "-o",
                     out)
    assert res.returncode == 0, res.stderr
    run = subprocess.run(["bash", str(out / "run_local.sh")], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return out


def test_emit_final_on_a_full_disk_keeps_the_earlier_final_instance(solved_grid, tmp_path):
    with tmpfs(tmp_path / "d") as d:
        g = d / "g"
        shutil.copytree(solved_grid, g)
        res = cli_here("collect", g, "--emit-final")
        assert res.returncode == 0, res.stderr
        need = pages((g / "final").iterdir())
        # a solution of the earlier final instance, solved on a cluster: decoding it needs that manifest
        (g / "final" / "model.highs.sol").write_text("the solution of the earlier final instance\n")
        before = snapshot(g)
        for free, failing in ((1, "model.mps"), (need - 1, "model.olctc.json")):
            fill(d, free)
            res = cli_here("collect", g, "--emit-final")
            # used to: every file of the earlier final instance removed, its solution left without them
            one_line_error(res, g / "final" / failing)
            assert snapshot(g) == before and no_temporary_names(g)
            (d / "filler").unlink()


def test_collect_in_a_read_only_grid_folder_fails_before_decoding(solved_grid, tmp_path):
    with tmpfs(tmp_path / "d") as d:
        g = d / "g"
        shutil.copytree(solved_grid, g)
        subprocess.run(["mount", "-o", "remount,ro", str(d)], check=True)
        res = cli_here("collect", g)
        # used to: every task decoded and the table printed, then the failure on cv_results.json
        assert res.returncode == 2 and res.stdout == "", res.stdout
        assert res.stderr == f"error: cannot write {g / 'cv_results.json'}: folder {g} is not writable\n", res.stderr


# ------------------------------------------------------------------ bench
_BENCH = ("bench", "models", "--datasets", "heart", "--models", "CART", "--seeds", "0,42,314,6,71,7",
          "--time-limit", "5")


def _records(folder: Path) -> list[str]:
    raw = (folder / "runs.jsonl").read_bytes()
    assert raw.endswith(b"\n")  # whole lines only
    return [json.loads(line)["key"] for line in raw.decode().splitlines()]


def test_bench_on_a_disk_that_fills_up_keeps_its_records_and_resumes(tmp_path):
    # bench.json takes one page, runs.jsonl one: four or so CART records fit, not six
    with tmpfs(tmp_path / "d", f"size={2 * PAGE}") as d:
        b = d / "b"
        res = cli_here(*_BENCH, "-o", b)
        # used to: a traceback (exit 1) after a part of the next record was appended without a word
        one_line_error(res, b / "runs.jsonl", before=("[",))  # after the progress bar
        assert "run the same command again to go on" in res.stderr
        assert sorted(os.listdir(b)) == ["bench.json", "bench.lock", "runs.jsonl"]
        kept = _records(b)
        assert 1 <= len(kept) < 6
        subprocess.run(["mount", "-o", f"remount,size={64 * PAGE}", str(d)], check=True)
        res = cli_here(*_BENCH, "-o", b)
        assert res.returncode == 0, res.stderr
        assert f"{len(kept)} of 6 run(s) already in {b / 'runs.jsonl'}: skipped" in res.stderr
        keys = _records(b)
        assert keys[:len(kept)] == kept and len(set(keys)) == len(keys) == 6


def test_bench_without_room_for_its_bench_json_leaves_no_folder(tmp_path):
    with tmpfs(tmp_path / "d") as d:
        fill(d)
        res = cli_here(*_BENCH, "-o", d / "b")
        one_line_error(res, d / "b" / "bench.json")
        assert sorted(os.listdir(d)) == ["filler"]  # used to: an empty folder b


@pytest.fixture(scope="module")
def bench_folder(tmp_path_factory) -> Path:
    """A bench of CART and L1-LR on heart, seeds 0 and 42 (four records)."""
    out = tmp_path_factory.mktemp("bench") / "b"
    res = cli_here("bench", "models", "--datasets", "heart", "--models", "CART,L1-LR", "--seeds", "0,42",
                     "--time-limit", "5", "-o", out)
    assert res.returncode == 0, res.stderr
    return out


def test_bench_report_on_a_full_disk_leaves_the_earlier_report_as_it_was(bench_folder, tmp_path):
    lines = (bench_folder / "runs.jsonl").read_text().splitlines(keepends=True)
    whole = tmp_path / "whole"
    shutil.copytree(bench_folder, whole)
    assert cli_here("bench", "report", whole).returncode == 0
    need = pages((whole / "report").iterdir())  # the report of all four runs
    with tmpfs(tmp_path / "d") as d:
        b = d / "b"
        b.mkdir()
        shutil.copy(bench_folder / "bench.json", b)
        # no report yet: none may appear
        (b / "runs.jsonl").write_text("".join(lines))
        fill(d, 1)  # summary.csv fits, runs.csv does not
        res = cli_here("bench", "report", b)
        one_line_error(res, b / "report" / "runs.csv")
        assert sorted(os.listdir(b)) == ["bench.json", "runs.jsonl"]  # used to: report/ with summary.csv
        (d / "filler").unlink()
        # a report of the first two runs, then two runs more: the new report must replace all of it or nothing
        (b / "runs.jsonl").write_text("".join(lines[:2]))
        assert cli_here("bench", "report", b).returncode == 0
        (b / "runs.jsonl").write_text("".join(lines))
        before = snapshot(b)
        for free in (1, need - 1):  # the second table; the last page of the last figure
            fill(d, free)
            res = cli_here("bench", "report", b)
            one_line_error(res, f"{b / 'report'}/")  # whichever file it is
            # used to: a new summary.csv beside the earlier runs.csv, summary.md and figures
            assert snapshot(b) == before and no_temporary_names(b)
            (d / "filler").unlink()
        assert cli_here("bench", "report", b).returncode == 0 and snapshot(b) != before


# ------------------------------------------------------------------ a name longer than the file system takes
def _too_long(folder: Path, suffix: str) -> Path:
    return folder / ("n" * (os.pathconf(folder, "PC_NAME_MAX") + 1 - len(suffix)) + suffix)


@pytest.mark.parametrize("command", ["compile", "fit", "decode", "export", "solve", "solve-cbc-cli", "grid"])
def test_a_file_name_too_long_is_a_one_line_error(model, tmp_path, command):
    if command == "solve-cbc-cli" and shutil.which("cbc") is None:
        pytest.skip("needs the cbc program")
    out = tmp_path / "out"
    out.mkdir()
    if command == "compile":
        # the model's name fits, its start file's (NAME.start.gurobi.mst) does not: found after the model
        # and parameter files were written, which go again
        name = "n" * (os.pathconf(out, "PC_NAME_MAX") - 15)
        res = cli_here("compile", model.parent / "h40.csv", "--target", "y", "--depth", "1", "-o",
                         out / f"{name}.mps")
        one_line_error(res, out / f"{name}.start.gurobi.mst", "File name too long")
        assert os.listdir(out) == []
        return
    data = [model.parent / "h40.csv", "--target", "y", "--depth", "1"]
    if command == "fit":
        args, suffix = ["fit", *data, "--time-limit", "5"], ".json"
    elif command == "grid":
        args, suffix = ["grid", *data, "--folds", "2", "--C-values", "1"], ""
    elif command.startswith("solve"):
        args, suffix = ["solve", model, "--solver", "cbc-cli" if command == "solve-cbc-cli" else "highs"], ".sol"
    else:
        args, suffix = ["decode", model.with_suffix(".olctc.json"), _highs_solution(model)], ".json"
        if command == "export":
            tree = tmp_path / "t.json"
            assert cli_here(*args, "-o", tree).returncode == 0
            args = ["export", tree]
    long = _too_long(out, suffix)
    # fit and solve in a fresh interpreter: a solver's log would go to its file descriptor 1, seen there only
    res = (olctc if command in ("fit", "solve") else cli_here)(*args, "-o", long)
    # used to: a traceback (OSError: File name too long), after the fit or the solve
    one_line_error(res, long, "File name too long")
    assert res.stdout == "" and os.listdir(out) == []  # refused before the work (export has none)


def _highs_solution(model: Path) -> Path:
    sol = model.parent / "solution" / "m.highs.sol"  # not beside the model, whose files a test counts
    if not sol.exists():
        sol.parent.mkdir(exist_ok=True)
        assert cli_here("solve", model, "--quiet", "-o", sol).returncode == 0
    return sol
