"""Run one experiment into a bench folder: one JSON line per run in DIR/runs.jsonl, resumable.

Folder contract: DIR/bench.json (experiment, options, olctc version) is written when the folder is
created; a folder without it (and not empty), or with files bench does not write, is refused; a
bench.json with another experiment or options is refused. Nothing in the folder is ever deleted or
rewritten: records are appended, one whole buffer per task, by the parent process only (``bench report``
rewrites its own DIR/report/).
"""
from __future__ import annotations

import contextlib
import json
import math
import os
import platform
import sys
import time
import warnings
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np

from olctc import __version__
from olctc.bench.experiments import (AUTHORS_SPLIT, C_GRID, EXPERIMENTS, THREADS, Experiment, ModelDef,
                                     cv_grid, get_experiment, resolve_C)
from olctc.bench.metrics import brier_score, expected_calibration_error
from olctc.bench.workers import run_isolated
from olctc.data import Dataset, Scaler
from olctc.emit.params import MAX_THREADS, MAX_TIME_LIMIT
from olctc.errors import OlctcError, is_integer, is_real, number_text, param_error
from olctc.io import atomic_write_text, is_temporary_name

BENCH_JSON = "bench.json"
RUNS = "runs.jsonl"
REPORT_DIR = "report"
OWN_FILES = frozenset({BENCH_JSON, RUNS, REPORT_DIR})
TEST_SIZE = 0.2
SOLVERS = ("highs", "cbc", "scip")
FAILED = ("error", "timeout")  # records without results; --retry-errors runs them again
MAX_SEED = 2 ** 32 - 1  # scikit-learn's random_state (and olctc's split) take seeds in [0, 2**32 - 1]
#: Numeric fields of a record the report reads: a number or null in every well-formed record.
NUMERIC_FIELDS = ("train_balanced_accuracy", "test_balanced_accuracy", "time_solve", "gap",
                  "mean_nonzero_per_node", "test_brier", "test_ece", "exact_objective")


# ---- options ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class BenchOptions:
    """Everything that defines the set of runs (not how many run at once)."""

    experiment: str
    datasets: tuple[str, ...]
    seeds: tuple[int, ...]
    models: tuple[str, ...]
    solver: str = "highs"
    time_limit: float = 300.0
    fixed_C: str = "anchors"
    cv: int | None = None
    C_grid: tuple[float, ...] = C_GRID
    authors_split: bool = False
    threads: int = THREADS
    class_weight: str | None = None  # "balanced": every model's loss (and the baselines') balanced
    score_variables: bool = False  # every tree model compiled with a column per split score

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        # Options at their default are left out, so folders made before they existed stay resumable.
        if not self.authors_split:
            del d["authors_split"]
        if self.threads == THREADS:
            del d["threads"]
        if self.class_weight is None:
            del d["class_weight"]
        if not self.score_variables:
            del d["score_variables"]
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def parse_seeds(text: str | None, default: Iterable[int]) -> tuple[int, ...]:
    """'0,42,314' -> (0, 42, 314); OlctcError unless every item is an integer."""
    if text is None:
        return tuple(default)
    parts = [s.strip() for s in str(text).split(",")]
    try:
        seeds = tuple(number_text(s, int) for s in parts)
    except ValueError:
        raise param_error("seeds", "comma-separated integers such as '0,42,314'", text) from None
    if len(set(seeds)) != len(seeds):
        raise param_error("seeds", "distinct integers", text)
    if any(not 0 <= s <= MAX_SEED for s in seeds):
        # Every run of such a seed would fail (the split's random_state), each with the same error.
        raise param_error("seeds", f"integers from 0 to {MAX_SEED}", text)
    return seeds


def parse_datasets(text: str | None, default: Iterable[str]) -> tuple[str, ...]:
    """'a,b' -> ('a', 'b'), each a vendored data set; OlctcError naming the first unknown one."""
    from olctc.datasets import dataset_names

    names = tuple(default) if text is None else tuple(s.strip() for s in str(text).split(","))
    known = dataset_names()
    for n in names:
        if n not in known:
            raise OlctcError(f"unknown data set {n!r}; known: {', '.join(known)}")
    if not names or len(set(names)) != len(names):
        raise param_error("datasets", "distinct data set names separated by commas", text)
    return names


def parse_models(text: str | None, exp: Experiment) -> tuple[str, ...]:
    """Model names of ``exp`` (default: its default list)."""
    if text is None:
        return exp.defaults
    names = tuple(s.strip() for s in str(text).split(","))
    for n in names:
        exp.model(n)
    if len(set(names)) != len(names):
        # The same task twice: two runs, two records of one key, and the report counting both.
        raise param_error("models", "distinct model names separated by commas", text)
    return names


def parse_grid(text: str | None) -> tuple[float, ...]:
    """'0.01,1,100' -> floats > 0 (the per-layer C grid of --cv)."""
    if text is None:
        return C_GRID
    try:
        vals = tuple(number_text(s) for s in str(text).split(","))
    except ValueError:
        raise param_error("C_grid", "positive numbers separated by commas", text) from None
    if not vals or any(not (v > 0 and math.isfinite(v)) for v in vals):
        raise param_error("C_grid", "positive finite numbers separated by commas", text)
    from olctc.spec import check_cost

    check_cost("C_grid", vals, text, " for every value")
    if len(set(vals)) != len(vals):
        raise param_error("C_grid", "distinct numbers separated by commas", text)
    return vals


def make_options(experiment: str, *, datasets: str | None = None, seeds: str | None = None,
                 models: str | None = None, solver: str = "highs", time_limit: float = 300.0,
                 fixed_C: str = "anchors", cv: int | None = None, C_grid: str | None = None,
                 authors_split: bool = False, threads: int = THREADS,
                 class_weight: str | None = None, score_variables: bool = False) -> BenchOptions:
    """Validate every bench option (OlctcError with a one-line message) and build BenchOptions."""
    exp = get_experiment(experiment)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise param_error("threads", "an integer >= 1 (solver threads per fit)", threads)
    if threads > MAX_THREADS:
        raise param_error("threads", f"at most {MAX_THREADS} (solver threads per fit)", threads)
    if solver not in SOLVERS:
        raise param_error("solver", f"one of {', '.join(SOLVERS)}", solver)
    if not (time_limit > 0):
        raise param_error("time_limit", "> 0 seconds", time_limit)
    if not time_limit <= MAX_TIME_LIMIT:  # inf: the run's hard limit (and the wait for it) overflows
        raise param_error("time_limit", "at most 1e7 seconds (115 days)", time_limit)
    if cv is not None and (isinstance(cv, bool) or cv < 2):
        raise param_error("cv", "an integer >= 2 (folds)", cv)
    if fixed_C != "anchors":
        from olctc.spec import parse_C

        parse_C(fixed_C, exp.depth, name="fixed_C")
    if class_weight is not None and class_weight != "balanced":
        # one request for every data set: weights by label would name other labels in each
        raise param_error("class_weight", "'balanced' or unset", class_weight, option="--class-weight")
    names = parse_datasets(datasets, exp.datasets)
    if cv is not None:
        _check_folds(cv, names)
    return BenchOptions(exp.name, names, parse_seeds(seeds, exp.seeds),
                        parse_models(models, exp), solver, float(time_limit),
                        "cv" if cv is not None else fixed_C, cv, parse_grid(C_grid), bool(authors_split),
                        threads, class_weight, bool(score_variables))


def _check_folds(cv: int, datasets: Sequence[str]) -> None:
    """OlctcError when a data set's smaller class has fewer points than ``cv`` folds: every fold needs
    both classes, and --cv 1000000 ran the whole bench to record each run as scikit-learn's error."""
    from olctc.datasets import load

    for name in datasets:
        y = load(name).y
        least = int(min((y > 0).sum(), (y < 0).sum()))
        if cv > least:
            raise param_error("cv", f"at most {least} folds for {name} (the points of its smaller class, "
                                    "and its training part has fewer)", cv)


# ---- folder ----------------------------------------------------------------------------------------

def prepare_folder(out: str | os.PathLike[str], opts: BenchOptions) -> Path:
    """Create DIR with bench.json, or check that an existing DIR is this very bench; never deletes."""
    if not os.fspath(out).strip():  # Path("") is the current folder: an unset variable in a script
        raise param_error("output", "a folder path (-o DIR)", os.fspath(out))
    d = Path(out)
    with os_errors(d):
        return _prepare_folder(d, opts)


@contextmanager
def exclusive(d: Path):
    """Hold the bench folder ``d`` for one bench process: a second one, started on the same folder before
    the first ends, would run the same runs again and interleave its records with the first's.

    The lock is an flock on ``d``/bench.json (written once, before, by ``prepare_folder``; opened for
    writing, as NFS wants for an exclusive lock, never written); it goes with the process however it
    ends. A file system without locks (some NFS mounts) runs unguarded.
    """
    import fcntl

    with os_errors(d):
        fd = os.open(d / BENCH_JSON, os.O_RDWR)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OlctcError(f"bench folder {d} is in use by another olctc bench: wait for it to end (its "
                             "runs are recorded as they finish), or give another folder") from None
        except OSError:
            pass
        yield
    finally:
        os.close(fd)


@contextmanager
def os_errors(d: Path):
    """An OSError inside (a name too long, /proc refusing mkdir, /sys refusing writes) as a one-line
    OlctcError naming the bench folder and the OS's reason; nothing bench wrote is undone."""
    try:
        yield
    except OSError as exc:
        raise OlctcError(f"cannot use bench folder {d}: {exc.strerror or exc}") from None


def _prepare_folder(d: Path, opts: BenchOptions) -> Path:
    if d.exists() and not d.is_dir():
        raise OlctcError(f"bench folder {d} is a file, not a folder")
    made = not d.exists()
    if made:
        parent = d.parent if str(d.parent) else Path(".")
        if not parent.is_dir():
            raise OlctcError(f"cannot create bench folder {d}: folder {parent} does not exist")
        if not os.access(parent, os.W_OK):
            raise OlctcError(f"cannot create bench folder {d}: folder {parent} is not writable")
        try:
            d.mkdir()
        except OSError as exc:  # /proc says "no such file" and /sys "operation not permitted", even to root
            raise OlctcError(f"cannot create bench folder {d}: {exc.strerror or exc}") from None
    names = {p.name for p in d.iterdir() if not is_temporary_name(p.name)}
    if not os.access(d, os.W_OK):
        raise OlctcError(f"bench folder {d} is not writable")
    if names and BENCH_JSON not in names:
        raise OlctcError(f"{d} is not a bench folder (no {BENCH_JSON}) and is not empty: "
                         "give a new or empty folder")
    foreign = sorted(names - OWN_FILES)
    if foreign:
        raise OlctcError(f"{d} holds files bench did not write ({', '.join(foreign[:3])}): "
                         "give a new or empty folder")
    meta_path = d / BENCH_JSON
    if BENCH_JSON in names:
        meta = read_bench_json(d)
        if meta.get("experiment") != opts.experiment:
            raise OlctcError(f"{d} holds the bench of experiment {meta.get('experiment')!r}, not "
                             f"{opts.experiment!r}: give another folder")
        old = meta.get("options", {})
        new = opts.to_json()
        depth = EXPERIMENTS[opts.experiment].depth
        diff = [k for k in sorted(set(old) | set(new))
                if _option_key(k, old.get(k), depth) != _option_key(k, new.get(k), depth)]
        if diff:
            k = diff[0]
            raise OlctcError(f"{d} was started with other options ({OPTION_NAMES.get(k, k)}: "
                             f"{_option_text(k, old.get(k))} there, {_option_text(k, new.get(k))} now): "
                             "rerun with the same options or give another folder")
        return d
    meta = {"experiment": opts.experiment, "options": opts.to_json(), "olctc_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine_info()}
    try:
        atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")
    except BaseException:
        if made:  # a full disk: no empty folder left behind either
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    return d


#: Options that are sets: their order only orders the runs ("--seeds 42,0" resumes a "0,42" bench).
UNORDERED_OPTIONS = frozenset({"seeds", "datasets", "models"})


#: bench.json's option names as the command line spells them, for the messages that name them.
OPTION_NAMES = {"datasets": "--datasets", "seeds": "--seeds", "models": "--models", "solver": "--solver",
                "time_limit": "--time-limit", "fixed_C": "--fixed-C", "cv": "--cv", "C_grid": "--C-grid",
                "authors_split": "--authors-split", "threads": "--threads", "class_weight": "--class-weight",
                "score_variables": "--score-variables"}
#: What an option left out of bench.json (see BenchOptions.to_json) means.
OPTION_DEFAULTS = {"authors_split": False, "threads": THREADS, "class_weight": None, "score_variables": False}


def _option_key(name: str, value: Any, depth: int) -> Any:
    value = OPTION_DEFAULTS.get(name) if value is None else value
    if name in UNORDERED_OPTIONS and isinstance(value, list):
        return sorted(value, key=repr)
    if name == "fixed_C" and isinstance(value, str) and value not in ("anchors", "cv"):
        from olctc.spec import parse_C

        # "1", "1.0", "1e0" and "1,1" are one C (one value broadcasts to every layer)
        try:
            return parse_C(value, depth)
        except OlctcError:
            return value  # an edited bench.json: compared as written, so it never matches a valid C
    return value


def _option_text(name: str, value: Any) -> str:
    """An option's value as one would type it: lists comma-separated, flags on/off, absent "not given"."""
    value = OPTION_DEFAULTS.get(name) if value is None else value
    if isinstance(value, bool):
        return "on" if value else "off"
    if value is None:
        return "not given"
    if isinstance(value, list):
        return ",".join(_option_text(name, v) for v in value)
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def read_bench_json(d: Path) -> dict[str, Any]:
    """DIR/bench.json; OlctcError if missing or unreadable."""
    p = Path(d) / BENCH_JSON
    if p.exists() and not p.is_file():
        raise OlctcError(f"{p} is not a file (a folder?): the bench folder is damaged")
    if not p.is_file():
        raise OlctcError(f"{d} is not a bench folder (no {BENCH_JSON})")
    try:
        meta = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise OlctcError(f"{p} is not readable JSON: {exc}") from None
    exp = meta.get("experiment") if isinstance(meta, dict) else None
    if not isinstance(exp, str) or exp not in EXPERIMENTS:
        raise OlctcError(f"{p} names no known experiment")
    if not isinstance(meta.get("options", {}), dict):
        raise OlctcError(f"{p}: 'options' is {type(meta['options']).__name__}, expected an object "
                         "(the file was edited?)")
    return meta


def machine_info() -> dict[str, Any]:
    """CPU model, core count and Python of this machine (recorded in bench.json)."""
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {"cpu": cpu, "nproc": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform()}


# ---- runs.jsonl ------------------------------------------------------------------------------------

def read_runs(d: str | os.PathLike[str], experiment: str | None = None) -> tuple[list[dict[str, Any]], int]:
    """(records, number of unreadable lines) of DIR/runs.jsonl; a partial line from a kill is skipped,
    and so is a line that is no well-formed record (of ``experiment``, when given): see ``is_record``."""
    p = Path(d) / RUNS
    if not p.exists():
        return [], 0
    if not p.is_file():
        raise OlctcError(f"{p} is not a file (a folder?): the bench folder is damaged")
    recs, bad = [], 0
    try:
        with open(p, "rb") as f:
            for raw in f:
                line = raw.strip()
                if not line:
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    bad += 1
                    continue
                if is_record(rec, experiment):
                    recs.append(rec)
                else:
                    bad += 1
    except OSError as exc:
        raise OlctcError(f"cannot read {p}: {exc.strerror or exc}") from None
    return recs, bad


def is_record(rec: Any, experiment: str | None = None) -> bool:
    """Whether a parsed line is a record bench could have written: an object whose key is its own
    data set, seed and model, with numbers (or null) where the report expects numbers. An edited line
    that fails this is skipped like a partial one (and its run done again), never a crash later."""
    if not isinstance(rec, dict):
        return False
    ds, seed, model, key = rec.get("dataset"), rec.get("seed"), rec.get("model"), rec.get("key")
    if not (isinstance(ds, str) and isinstance(model, str) and isinstance(key, str)
            and is_integer(seed) and key == run_key(ds, seed, model)):
        return False
    if experiment is not None and rec.get("experiment") != experiment:
        return False
    if rec.get("status") is not None and not isinstance(rec.get("status"), str):
        return False
    if rec.get("test_balanced_accuracy") is not None and "train_balanced_accuracy" not in rec:
        return False  # a finished run states both (a report of it crashed on the missing one)
    return all(rec.get(k) is None or is_real(rec[k]) for k in NUMERIC_FIELDS)


#: Options a record states (older records lack some): a record stating another value than bench.json's was
#: copied or edited in from another bench. Not class_weight: pystreed's records state None, as it ran.
RECORD_OPTIONS = ("time_limit", "threads", "score_variables")


def own_records(records: list[dict[str, Any]], options: dict[str, Any],
                keys: set[str] | None) -> tuple[list[dict[str, Any]], int]:
    """(the records that are runs of this bench, how many are not): a record whose key the options do not
    ask for (``keys``; None: not known), or whose stated options differ from ``options`` (bench.json's),
    is left out, and its run counts as not done. Such lines came from another bench's runs.jsonl or an
    edit, and were reported (and skipped on resume) as this bench's."""
    ours = [r for r in records
            if (keys is None or r["key"] in keys)
            and all(r[k] == options.get(k, OPTION_DEFAULTS.get(k)) for k in RECORD_OPTIONS if k in r)]
    return ours, len(records) - len(ours)


def latest(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """{key: the last record written for it} (a redone run supersedes an earlier partial one)."""
    out: dict[str, dict[str, Any]] = {}
    for r in records:
        out[r["key"]] = r
    return out


def append_records(d: str | os.PathLike[str], records: list[dict[str, Any]]) -> None:
    """Append whole lines in one write; start on a fresh line if a kill left a partial one.

    A write that fails (a full disk; an interrupt between two partial writes) is undone: the file is cut
    back to its size before, so the records already there stay intact and no partial line is added, and
    the error (OlctcError) names the file. os.write on a nearly full disk writes what fits and returns
    the count: ignored, it left part of a line and the bench went on as if it were recorded.
    """
    p = Path(d) / RUNS
    data = "".join(json.dumps(r, default=_jsonable, allow_nan=True) + "\n" for r in records).encode()
    existed = p.exists()
    try:
        fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    except OSError as exc:
        raise OlctcError(f"cannot write {p}: {exc.strerror or exc}") from None
    size, view = 0, memoryview(data)
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(p, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    view = memoryview(b"\n" + data)  # keep the partial line as it is, on its own line
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException as exc:
        if view or isinstance(exc, OSError):  # not an interrupt once every byte is written: those records stay
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
                if not existed and not size:
                    os.unlink(p)
        if isinstance(exc, OSError):
            raise OlctcError(f"cannot write {p}: {exc.strerror or exc} (the runs recorded before are kept: "
                             "run the same command again to go on)") from None
        raise
    finally:
        os.close(fd)


def _jsonable(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    if isinstance(v, np.ndarray):
        return v.tolist()
    return str(v)


def run_key(dataset: str, seed: int, model: str) -> str:
    """The identity of a record in runs.jsonl."""
    return f"{dataset}|{seed}|{model}"


# ---- tasks -----------------------------------------------------------------------------------------

def make_tasks(opts: BenchOptions) -> list[dict[str, Any]]:
    """One task per (data set, seed, model); each carries the record keys it will write."""
    exp = EXPERIMENTS[opts.experiment]
    tasks = []
    for ds in opts.datasets:
        for seed in opts.seeds:
            for name in opts.models:
                m = exp.model(name)
                tasks.append({"experiment": exp.name, "dataset": ds, "seed": seed, "model": name,
                              "depth": exp.depth, "options": opts.to_json(),
                              "keys": [run_key(ds, seed, r) for r in m.record_names]})
    return tasks


def solver_version(solver: str) -> str:
    """Version of the Python package behind an in-process solver."""
    from importlib.metadata import PackageNotFoundError, version

    pkg = {"highs": "highspy", "cbc": "mip", "scip": "pyscipopt"}.get(solver, solver)
    try:
        return f"{pkg} {version(pkg)}"
    except PackageNotFoundError:
        return f"{pkg} (unknown version)"


def _base_record(task: dict[str, Any], exp: Experiment, started: float, pid: int | None) -> dict[str, Any]:
    return {"experiment": exp.name, "dataset": task["dataset"], "seed": task["seed"], "depth": exp.depth,
            "threads": task_threads(task), "time_limit": task["options"]["time_limit"],
            "class_weight": task_class_weight(task), "score_variables": task_score_variables(task),
            "olctc_version": __version__,
            "started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(started)), "pid": pid,
            "split": "olctc" if _authors_orientation(task["dataset"], _wants_authors(task)) is None
            else "authors"}


def _finish(task: dict[str, Any], exp: Experiment, base: dict[str, Any], recs: list[dict[str, Any]],
            wall: float) -> list[dict[str, Any]]:
    out = []
    for r in recs:
        rec = dict(base)
        rec.update(r)
        rec["key"] = run_key(task["dataset"], task["seed"], rec["model"])
        rec["wall_time"] = wall
        out.append(rec)
    return out


def execute_task(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Run one task and return its records; failures become records with status "error"."""
    exp = EXPERIMENTS[task["experiment"]]
    m = exp.model(task["model"])
    base = _base_record(task, exp, time.time(), os.getpid())
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            recs = KIND_RUNNERS[m.kind](m, task)
    except Exception as exc:  # one failed run must not stop a bench; the record says why
        recs = [{"model": r, "status": "error", "error": f"{type(exc).__name__}: {exc}"} for r in m.record_names]
    return _finish(task, exp, base, recs, time.perf_counter() - t0)


def failed_records(task: dict[str, Any], status: str, why: str, wall: float) -> list[dict[str, Any]]:
    """The records of a task whose process never returned them (killed at its hard limit, or crashed)
    ``wall`` seconds after it started; no pid: the run's own process is gone."""
    exp = EXPERIMENTS[task["experiment"]]
    m = exp.model(task["model"])
    base = _base_record(task, exp, time.time() - wall, None)
    return _finish(task, exp, base, [{"model": r, "status": status, "error": why} for r in m.record_names], wall)


def task_class_weight(task: dict[str, Any]) -> str | None:
    """The class weight request of a task's fits and baselines (None: unweighted, the paper's)."""
    return task["options"].get("class_weight")


def task_score_variables(task: dict[str, Any]) -> bool:
    """Whether a task's tree models are compiled with score columns (the paper's form otherwise)."""
    return bool(task["options"].get("score_variables", False))


def task_threads(task: dict[str, Any]) -> int:
    """Solver threads per fit of a task (folders made before --threads existed: 1)."""
    return int(task["options"].get("threads", THREADS))


def fits_per_run(task: dict[str, Any]) -> int:
    """How many fits one task makes: 1, or every CV fold of every configuration plus the final fit.
    L1-LR always cross-validates its C (4 folds without --cv); its fits have no time limit, but the
    hard limit counts them like the others' (liblinear's CV took more than 210 s on w5a)."""
    o = task["options"]
    m = EXPERIMENTS[task["experiment"]].model(task["model"])
    if m.kind == "l1lr":
        return int(o["cv"] or 4) * len(o["C_grid"]) + 1
    if o["cv"] is None:
        return 1
    return int(o["cv"]) * len(cv_grid(m, task["depth"], tuple(o["C_grid"]))) + 1


def hard_limit(task: dict[str, Any], run_timeout: float | None = None) -> float:
    """Wall-clock seconds after which a run's process is killed: ``run_timeout`` if given, else every
    fit at 1.5 times its time limit plus 120 s (CBC was measured up to 9 s past a 60 s limit)."""
    if run_timeout is not None:
        return float(run_timeout)
    return fits_per_run(task) * float(task["options"]["time_limit"]) * 1.5 + 120.0


def _load_split(task: dict[str, Any]):
    from olctc.datasets import load

    ds = load(task["dataset"])
    return (ds, *bench_split(ds, int(task["seed"]), _wants_authors(task)))


def _wants_authors(task: dict[str, Any]) -> bool:
    return bool(task["options"].get("authors_split"))


def _authors_orientation(dataset: str, authors: bool) -> int | None:
    """The authors' label orientation when their split is asked for and known, else None (olctc's)."""
    return AUTHORS_SPLIT.get(dataset) if authors else None


def bench_split(ds: Dataset, seed: int, authors: bool = False, *, ordered: bool = True
                ) -> tuple[np.ndarray, np.ndarray]:
    """Train/test rows of the bench protocol; with ``authors`` (and a data set in AUTHORS_SPLIT) the
    authors' own split: first row left out, stratified in their label orientation. Sorted rows, or with
    ``ordered=False`` in the order the split draws them."""
    from olctc.fit import split

    orientation = _authors_orientation(ds.name, authors)
    if orientation is None:
        return split(ds, TEST_SIZE, seed, ordered=ordered)
    rows = np.arange(1, ds.n)
    part = ds.subset(rows)
    if orientation < 0:
        part = replace(part, y=-part.y)
    train, test = split(part, TEST_SIZE, seed, ordered=ordered)
    return rows[train], rows[test]


def authors_cv_folds(ds: Dataset, seed: int, k: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The folds of the authors' CV on their training part, as positions into its sorted rows.

    Their scripts ran ``GridSearchCV(model, cv=k)`` on a model that is no scikit-learn classifier, so
    scikit-learn used plain ``KFold(k)``: unshuffled, contiguous blocks of the training part in the order
    ``train_test_split`` returned it.
    """
    from sklearn.model_selection import KFold

    drawn, _ = bench_split(ds, seed, authors=True, ordered=False)
    pos = np.argsort(np.argsort(drawn))  # drawn[i] is the pos[i]-th smallest training row
    return [(np.sort(pos[a]), np.sort(pos[b])) for a, b in KFold(n_splits=k).split(drawn)]


def _scores(y_tr, pred_tr, y_te, pred_te, p_te) -> dict[str, Any]:
    from olctc.fit import balanced_accuracy

    return {"train_balanced_accuracy": balanced_accuracy(y_tr, pred_tr),
            "test_balanced_accuracy": balanced_accuracy(y_te, pred_te),
            "test_brier": brier_score(y_te, p_te), "test_ece": expected_calibration_error(y_te, p_te)}


def _tree_scores(tree, tr, te) -> dict[str, Any]:
    def pm(X):
        return np.where(tree.decision_function(X) > 0, 1, -1)
    return _scores(tr.y, pm(tr.X), te.y, pm(te.X), tree.predict_proba(te.X)[:, 1])


def _nonzero(W: np.ndarray) -> dict[str, Any]:
    nz = [int(v) for v in (np.abs(W) > 1e-9).sum(axis=1)]
    return {"nonzero_weights_per_node": nz, "mean_nonzero_per_node": float(np.mean(nz)) if nz else 0.0}


def _solver_for(m: ModelDef, task: dict[str, Any]) -> str:
    return m.needs_solver or task["options"]["solver"]


def _make_spec(m: ModelDef, depth: int, C: tuple[float, ...], alpha: float | None, class_weight: str | None,
               score_variables: bool = False):
    from olctc.spec import make_spec

    kw: dict[str, Any] = {"preset": m.preset, "depth": depth, "C": list(C), "tangents": m.tangents,
                          "class_weight": class_weight, "score_variables": score_variables}
    if alpha is not None:
        kw["alpha"] = alpha
    return make_spec(**kw)


def _choose_config(m: ModelDef, task: dict[str, Any], tr) -> tuple[tuple[float, ...], float | None,
                                                                    str, dict[str, Any]]:
    """C (and alpha) for a tree model: the fixed setting, or K-fold CV on the training part."""
    opts = task["options"]
    depth = task["depth"]
    if opts["cv"] is None:
        C, source = resolve_C(m, task["dataset"], depth, opts["fixed_C"])
        return C, m.alpha, source, {}
    folds = None
    if _authors_orientation(task["dataset"], _wants_authors(task)) is not None:
        from olctc.datasets import load

        folds = authors_cv_folds(load(task["dataset"]), int(task["seed"]), int(opts["cv"]))
    return cross_validate(m, tr, depth, int(opts["cv"]), tuple(opts["C_grid"]), _solver_for(m, task),
                          float(opts["time_limit"]), int(task["seed"]), task_threads(task), folds=folds,
                          class_weight=task_class_weight(task), score_variables=task_score_variables(task))


def cross_validate(m: ModelDef, tr, depth: int, k: int, c_grid: tuple[float, ...], solver: str,
                   time_limit: float, seed: int, threads: int = THREADS,
                   folds: list[tuple[np.ndarray, np.ndarray]] | None = None, class_weight: str | None = None,
                   score_variables: bool = False) -> tuple[tuple[float, ...], float | None, str, dict[str, Any]]:
    """K-fold CV of a tree model over the paper's grid; the mean validation balanced accuracy picks the
    configuration (ties: the first in grid order, as GridSearchCV). ``folds`` (positions into ``tr``)
    default to stratified shuffled folds drawn with ``seed``, each fold standardised on its fit rows;
    given folds are the authors', whose folds reused the scaling of the whole training part.

    Returns (C, alpha, "cv", info with the grid scores, the fold scheme and the CV time).
    """
    from sklearn.model_selection import StratifiedKFold

    from olctc.fit import balanced_accuracy, fit

    t0 = time.perf_counter()
    scheme = "authors" if folds is not None else "stratified"
    per_fold_scaling = folds is None
    if folds is None:
        folds = list(StratifiedKFold(n_splits=k, shuffle=True, random_state=seed).split(tr.X, tr.y))
    else:
        tr = replace(tr, X=Scaler.fit(tr.X).transform(tr.X))
    grid = cv_grid(m, depth, c_grid)
    # optimal_folds: a CV score of trees cut off at the time limit is a weaker guide to C, and the record
    # should say so.
    rows = []
    for cfg in grid:
        spec = _make_spec(m, depth, cfg["C"], cfg["alpha"], class_weight, score_variables)
        vals, optimal = [], 0
        for fit_rows, val_rows in folds:
            res = fit(tr.subset(fit_rows), spec, solver=solver, time_limit=time_limit, threads=threads,
                      test_size=0.0, seed=seed, refine=m.refine, verbose=False, standardise=per_fold_scaling)
            optimal += res.summary["status"] == "optimal"
            va = tr.subset(val_rows)
            vals.append(balanced_accuracy(va.y, np.where(res.tree.decision_function(va.X) > 0, 1, -1)))
        rows.append({"C": list(cfg["C"]), "alpha": cfg["alpha"], "score": float(np.mean(vals)),
                     "optimal_folds": int(optimal)})
    best = int(np.argmax([r["score"] for r in rows]))
    info = {"cv_folds": k, "cv_fold_scheme": scheme, "cv_grid": rows, "time_cv": time.perf_counter() - t0}
    return tuple(grid[best]["C"]), grid[best]["alpha"], "cv", info


def _run_tree(m: ModelDef, task: dict[str, Any]) -> list[dict[str, Any]]:
    from olctc.fit import fit

    ds, train, test = _load_split(task)
    tr, te = ds.subset(train), ds.subset(test)
    C, alpha, source, cvinfo = _choose_config(m, task, tr)
    spec = _make_spec(m, task["depth"], C, alpha, task_class_weight(task), task_score_variables(task))
    solver = _solver_for(m, task)
    # fit gets the training part itself: letting it split would draw olctc's split, not the bench's
    # (--authors-split), and test points would leak into training.
    res = fit(tr, spec, solver=solver, time_limit=float(task["options"]["time_limit"]), threads=task_threads(task),
              test_size=0.0, seed=int(task["seed"]), refine=m.refine, verbose=False)
    s = res.summary
    rec = {"model": m.name, "preset": m.preset, "tangents": spec.tangent_set, "C": list(spec.C),
           "n_train": s["n_train"], "n_test": int(len(test)),
           "alpha": spec.alpha if m.preset in ("margot-sfs", "oct-h") else None, "C_source": source,
           "solver": solver, "solver_version": solver_version(solver), "status": s["status"],
           "raw_status": s["raw_status"], "gap": s["gap"], "bound": s["bound"],
           "solution_from": s["solution_from"], "model_size": s["model_size"],
           "objective_warm_start": s["objective_warm_start"], "objective_milp": s["objective_milp"],
           "objective_milp_true": s["objective_milp_true"],
           "exact_objective_warm_start": s["exact_objective_warm_start"],
           "exact_objective_before_refine": s["exact_objective_before_refine"],
           "exact_objective": s["exact_objective_after_refine"],
           "routing_disagreements": s["routing_disagreements"],
           "time_build": s["time_build"], "time_warm_start": s["time_warm_start"],
           "time_solve": s["time_solve"], "time_total": s["time_total"], "refined": m.refine}
    if spec.info.loss != "logistic":
        # "Exact" means the true logistic loss; other presets' objectives are exact already (objective_milp_true).
        rec["exact_objective"] = None
    rec.update(_nonzero(res.tree.W))
    rec.update(_tree_scores(res.tree, tr, te))
    rec.update(cvinfo)
    return [rec]


def _run_phases(m: ModelDef, task: dict[str, Any]) -> list[dict[str, Any]]:
    """One warm start + one solve, three trees: warm start, MILP, MILP + refinement (paper Sec. 5.2).

    Mirrors ``olctc.fit.fit`` step by step so that the three trees share the very same solve.
    """
    from olctc.compile import compile_problem
    from olctc.decode import decode_arrays, finish
    from olctc.fit import preload, solver_budget
    from olctc.solve import solve_milp
    from olctc.warmstart import warm_start

    ds, train, test = _load_split(task)
    tr, te = ds.subset(train), ds.subset(test)
    C, alpha, source, cvinfo = _choose_config(m, task, tr)
    spec = _make_spec(m, task["depth"], C, alpha, task_class_weight(task), task_score_variables(task))
    solver = _solver_for(m, task)
    limit = float(task["options"]["time_limit"])
    preload()
    t0 = time.perf_counter()
    comp = compile_problem(tr, spec, ds.name, rows=train)
    t_build = time.perf_counter() - t0
    x0, _ = warm_start(comp.milp, comp.X, tr.y, spec)
    t_warm = time.perf_counter() - t0 - t_build
    # fit's own rule (and its refusal of too short a limit), so that phases' OLCT-V0 and tangents'
    # OLCT-V0 solve for the same time under the same --time-limit.
    remaining = solver_budget(limit, time.perf_counter() - t0, t_build, t_warm)
    res = solve_milp(comp.milp, solver, time_limit=remaining, threads=task_threads(task), start=x0, verbose=False)
    x = res.x if res.x is not None else x0
    common = {"preset": m.preset, "tangents": spec.tangent_set, "C": list(spec.C), "alpha": None,
              "C_source": source, "solver": solver, "solver_version": solver_version(solver),
              "status": res.status, "raw_status": res.raw_status, "gap": res.gap, "bound": res.bound,
              "solution_from": solver if res.x is not None else "warm start",
              "objective_warm_start": comp.milp.objective(x0), "objective_milp": res.objective,
              "time_build": t_build, "time_warm_start": t_warm, "time_solve": res.runtime, **cvinfo}
    recs = []
    phases = [(m.outputs[0], x0, None, False), (m.outputs[1], x, res if res.x is not None else None, False),
              (m.outputs[2], x, res if res.x is not None else None, True)]
    for name, xv, sol, refine in phases:
        dec = decode_arrays(comp.milp, spec, comp.X, tr.y, xv, sol, trusted=True)
        tree, report = finish(dec, comp.manifest, tr, refine)
        rec = dict(common, model=name, refined=refine, phase=name,
                   objective_milp_true=report.true_objective,
                   exact_objective_before_refine=report.exact_objective,
                   exact_objective=tree.meta.get("exact_objective"),
                   routing_disagreements=len(report.disagreements),
                   time_total=time.perf_counter() - t0)
        if name == m.outputs[0]:
            # The warm-start tree used no solver time: its "solve" is the greedy fit, and the solver's fields
            # are not its own (runs.csv showed the MILP's "Time limit reached", bound and solution source).
            rec.update(status="warm start", gap=None, time_solve=0.0, time_total=t_build + t_warm,
                       raw_status=None, bound=None, objective_milp=None, solution_from="warm start")
        rec.update(_nonzero(tree.W))
        rec.update(_tree_scores(tree, tr, te))
        recs.append(rec)
    return recs


def _run_cart(m: ModelDef, task: dict[str, Any]) -> list[dict[str, Any]]:
    from sklearn.tree import DecisionTreeClassifier

    ds, train, test = _load_split(task)
    tr, te = ds.subset(train), ds.subset(test)
    t0 = time.perf_counter()
    clf = DecisionTreeClassifier(max_depth=task["depth"], random_state=int(task["seed"]),
                                 class_weight=task_class_weight(task)).fit(tr.X, tr.y)
    t = time.perf_counter() - t0
    inner = clf.tree_.children_left >= 0
    nz = [1] * int(inner.sum())  # one feature per split node actually grown
    rec = {"model": m.name, "solver": "scikit-learn", "solver_version": solver_version("scikit-learn"),
           "status": "optimal", "gap": None, "time_solve": t, "time_total": t, "C": None, "C_source": None,
           "nonzero_weights_per_node": nz, "mean_nonzero_per_node": 1.0 if nz else 0.0,
           "tree_depth": int(clf.get_depth())}
    rec.update(_scores(tr.y, clf.predict(tr.X), te.y, clf.predict(te.X), clf.predict_proba(te.X)[:, 1]))
    return [rec]


def _run_l1lr(m: ModelDef, task: dict[str, Any]) -> list[dict[str, Any]]:
    """L1 logistic regression on standardised features, C by K-fold CV (K = --cv or 4) over the C grid."""
    from sklearn.model_selection import GridSearchCV, StratifiedKFold
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from olctc.refine import _sklearn_l1_logistic

    ds, train, test = _load_split(task)
    tr, te = ds.subset(train), ds.subset(test)
    k = int(task["options"]["cv"] or 4)
    t0 = time.perf_counter()
    lr = _sklearn_l1_logistic(1.0, 0).set_params(class_weight=task_class_weight(task))
    pipe = make_pipeline(StandardScaler(), lr)
    grid = GridSearchCV(pipe, {"logisticregression__C": list(task["options"]["C_grid"])},
                        scoring="balanced_accuracy",
                        cv=StratifiedKFold(k, shuffle=True, random_state=int(task["seed"]))).fit(tr.X, tr.y)
    t = time.perf_counter() - t0
    best = grid.best_estimator_
    W = best[-1].coef_
    rec = {"model": m.name, "solver": "scikit-learn liblinear",
           "solver_version": solver_version("scikit-learn"), "status": "optimal", "gap": None,
           "time_solve": t, "time_total": t, "C": [float(grid.best_params_["logisticregression__C"])],
           "C_source": "cv", **_nonzero(W)}
    rec.update(_scores(tr.y, best.predict(tr.X), te.y, best.predict(te.X), best.predict_proba(te.X)[:, 1]))
    return [rec]


def _run_pystreed(m: ModelDef, task: dict[str, Any]) -> list[dict[str, Any]]:
    """STreeD (pystreed): an optimal univariate tree of the same depth on quantile-binarised features.

    pystreed's defaults otherwise (5 thresholds per feature, misclassification score, cost complexity
    0.01), as a user of that package would run it; its time limit is the bench's.
    """
    try:
        from pystreed import STreeDClassifier
    except ImportError:
        return [{"model": m.name, "status": "skipped", "error": "pystreed is not installed"}]
    ds, train, test = _load_split(task)
    tr, te = ds.subset(train), ds.subset(test)
    y01 = (tr.y > 0).astype(int)
    t0 = time.perf_counter()
    clf = STreeDClassifier(max_depth=task["depth"], time_limit=float(task["options"]["time_limit"]),
                           random_seed=int(task["seed"])).fit(tr.X, y01)
    t = time.perf_counter() - t0
    n_inner = max(0, int(clf.get_n_leaves()) - 1)  # a binary tree: one split node fewer than leaves
    nz = [1] * n_inner
    optimal = bool(clf.fit_result.is_optimal())
    rec = {"model": m.name, "solver": "pystreed", "solver_version": solver_version("pystreed"),
           "status": "optimal" if optimal else "feasible", "gap": 0.0 if optimal else None,
           "time_solve": t, "time_total": t, "C": None, "C_source": None,
           "nonzero_weights_per_node": nz, "mean_nonzero_per_node": 1.0 if nz else 0.0,
           "tree_depth": int(clf.get_depth()),
           "class_weight": None}  # pystreed's classifier takes no class weights: it ran unweighted

    def pm(X: np.ndarray) -> np.ndarray:
        return np.where(clf.predict(X) == 1, 1, -1)

    p_te = clf.predict_proba(te.X)[:, list(clf.classes_).index(1)] if 1 in clf.classes_ else np.zeros(te.n)
    rec.update(_scores(tr.y, pm(tr.X), te.y, pm(te.X), p_te))
    return [rec]


KIND_RUNNERS: dict[str, Callable[[ModelDef, dict[str, Any]], list[dict[str, Any]]]] = {
    "tree": _run_tree, "phases": _run_phases, "cart": _run_cart, "l1lr": _run_l1lr, "pystreed": _run_pystreed,
}


# ---- the loop --------------------------------------------------------------------------------------

class Progress:
    """Plain-text progress on stderr: a bar, runs done / left, elapsed time."""

    def __init__(self, total: int, stream=None, width: int = 30) -> None:
        self.total, self.done, self.width = total, 0, width
        self.stream = stream if stream is not None else sys.stderr
        self.t0 = time.perf_counter()

    def line(self) -> str:
        frac = self.done / self.total if self.total else 1.0
        n = int(round(frac * self.width))
        el = int(time.perf_counter() - self.t0)
        return (f"[{'#' * n}{'.' * (self.width - n)}] {self.done}/{self.total} runs done, "
                f"{self.total - self.done} left, elapsed {el // 60}:{el % 60:02d}")

    def step(self, k: int = 1) -> None:
        self.done += k
        self.stream.write(self.line() + "\n")
        self.stream.flush()


@dataclass
class BenchSummary:
    """What a bench call did."""

    folder: Path
    total: int
    skipped: int
    ran: int
    errors: int
    bad_lines: int
    skipped_failed: int = 0  # skipped runs whose record is an error or a timeout (see --retry-errors)


def run_bench(opts: BenchOptions, out: str | os.PathLike[str], *, jobs: int = 1,
              echo: Callable[[str], None] = print, progress_stream=None,
              retry_errors: bool = False, run_timeout: float | None = None) -> BenchSummary:
    """Run every task of ``opts`` not yet in DIR/runs.jsonl, ``jobs`` at a time (1 thread each), each in
    its own process, killed after ``hard_limit(task, run_timeout)`` seconds (record status "timeout").

    ``retry_errors`` also runs again the tasks whose last record of some key is an error or a timeout;
    the report reads the last record of each key, so the new one replaces it there (nothing is rewritten).
    """
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise param_error("jobs", "an integer >= 1", jobs)
    if run_timeout is not None and not run_timeout > 0:
        raise param_error("run_timeout", "> 0 seconds", run_timeout)
    if run_timeout is not None and not run_timeout <= MAX_TIME_LIMIT:
        raise param_error("run_timeout", "at most 1e7 seconds (115 days)", run_timeout)
    d = prepare_folder(out, opts)
    with exclusive(d):
        return _run_todo(d, opts, jobs, echo, progress_stream, retry_errors, run_timeout)


def _run_todo(d: Path, opts: BenchOptions, jobs: int, echo: Callable[[str], None], progress_stream,
              retry_errors: bool, run_timeout: float | None) -> BenchSummary:
    """``run_bench`` once the folder is ready and held."""
    recs, bad = read_runs(d, opts.experiment)
    if bad:
        echo(f"{d / RUNS}: ignored {bad} unreadable line(s) (a run killed while writing, or a line edited "
             "by hand); those runs will be redone")
    tasks = make_tasks(opts)
    recs, other = own_records(recs, opts.to_json(), {k for t in tasks for k in t["keys"]})
    if other:
        echo(f"{d / RUNS}: ignored {other} record(s) of runs this bench does not have (a data set, seed, model "
             f"or option other than its {BENCH_JSON}'s: copied or edited in); those runs will be done")
    done = {r["key"] for r in recs}
    failed = {k for k, r in latest(recs).items() if r.get("status") in FAILED}
    if retry_errors:
        done -= failed
    todo = [t for t in tasks if not all(k in done for k in t["keys"])]
    skipped = len(tasks) - len(todo)
    # Skipped tasks whose record says error/timeout: "already done" alone would hide that they never worked.
    skipped_failed = sum(all(k in done for k in t["keys"]) and any(k in failed for k in t["keys"]) for t in tasks)
    if skipped:
        echo(f"{skipped} of {len(tasks)} run(s) already in {d / RUNS}: skipped")
    prog = Progress(len(tasks), progress_stream)
    prog.done = skipped
    if todo:
        prog.step(0)  # show the bar before the first (possibly long) run
    errors = 0

    def keep(records: list[dict[str, Any]]) -> None:
        nonlocal errors
        append_records(d, records)
        errors += sum(r.get("status") in FAILED for r in records)
        prog.step()

    # Every run in its own process, even with one job: a native crash or a solver that ignores its time
    # limit costs that run only (status "error" / "timeout"), not the bench.
    run_isolated(todo, jobs, execute_task, lambda t: hard_limit(t, run_timeout), failed_records, keep)
    return BenchSummary(d, len(tasks), skipped, len(todo), errors, bad, skipped_failed)
