"""A bench folder: bench.json, and runs.jsonl with one JSON line per run (resumable).

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
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from olctc import __version__
from olctc.bench.experiments import EXPERIMENTS, THREADS
from olctc.bench.options import BenchOptions
from olctc.errors import OlctcError, is_integer, is_real, param_error, shorten
from olctc.io import atomic_write_text, folder_problem, is_temporary_name


BENCH_JSON = "bench.json"
RUNS = "runs.jsonl"
REPORT_DIR = "report"
#: The file whose flock holds a bench folder for one process (``exclusive``): never replaced, unlike bench.json.
LOCK = "bench.lock"
#: bench.json's "model_settings": 2 since the bench states C and alpha in the authors' terms
#: (``experiments.AUTHORS_L2_SCALE``); a folder without it ran MARGOT, SFS-MARGOT and OCT-H at olctc's.
MODEL_SETTINGS = 2
#: Records without results; --retry-errors runs them again ("skipped": a peer's package was missing, which a
#: retry after installing it runs).
FAILED = ("error", "timeout", "skipped")
#: Numeric fields of a record the report reads: a number or null in every well-formed record.
NUMERIC_FIELDS = ("train_balanced_accuracy", "test_balanced_accuracy", "time_solve", "gap",
                  "mean_nonzero_per_node", "test_brier", "test_ece", "exact_objective")


# ---- options ---------------------------------------------------------------------------------------

@contextmanager
def open_bench(out: str | os.PathLike[str], opts: BenchOptions) -> Iterator[Path]:
    """Create DIR (or take the existing one), hold it for this process (``exclusive``), then write its
    bench.json, or check that it is this very bench; never deletes what a bench wrote. The checks and the
    write come after the lock: two benches started together on a new folder each wrote a bench.json, the
    second replacing the first's."""
    if not os.fspath(out).strip():  # Path("") is the current folder: an unset variable in a script
        raise param_error("output", "a folder path (-o DIR)", os.fspath(out))
    d = Path(out)
    with os_errors(d):
        made = _make_folder(d)
        _contents(d)  # a folder of other files is refused before the lock file is made in it
    with exclusive(d):
        try:
            with os_errors(d):
                _prepare_folder(d, opts)
        except BaseException:
            if not (d / BENCH_JSON).exists():  # a full disk: no lock file, nor a folder this call made, left
                with contextlib.suppress(OSError):
                    (d / LOCK).unlink()
                    if made:
                        d.rmdir()
            raise
        yield d


@contextmanager
def exclusive(d: Path):
    """Hold the bench folder ``d`` for one bench process: a second one, started on the same folder before
    the first ends, would run the same runs again and interleave its records with the first's.

    The lock is an flock on ``d``/bench.lock (made if missing, never written or replaced; opened for
    writing, as NFS wants for an exclusive lock); it goes with the process however it ends. A file system
    without locks (some NFS mounts) runs unguarded.
    """
    import fcntl

    with os_errors(d):
        fd = os.open(d / LOCK, os.O_RDWR | os.O_CREAT, 0o666)
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


def _make_folder(d: Path) -> bool:
    """Create the bench folder ``d`` unless it exists; whether this call made it."""
    if d.exists() and not d.is_dir():
        raise OlctcError(f"bench folder {d} is a file, not a folder")
    if d.exists():
        return False
    parent = d.parent if str(d.parent) else Path(".")
    problem = folder_problem(parent)  # a file there "is not a folder", not missing
    if problem:
        raise OlctcError(f"cannot create bench folder {d}: folder {parent} {problem}")
    try:
        d.mkdir()
    except FileExistsError:  # another bench made it since: the lock tells which of the two runs
        if not d.is_dir():
            raise OlctcError(f"bench folder {d} is a file, not a folder") from None
        return False
    except OSError as exc:  # /proc says "no such file" and /sys "operation not permitted", even to root
        raise OlctcError(f"cannot create bench folder {d}: {exc.strerror or exc}") from None
    return True


def _contents(d: Path) -> set[str]:
    """The names in the bench folder ``d``, after checking it is a bench's, or empty, and writable.

    A bench's folder may hold other files beside its own (a Slurm log written into it, .DS_Store): bench
    never touches them. A folder of other files without a bench.json is refused: it is someone else's."""
    names = {p.name for p in d.iterdir() if not is_temporary_name(p.name)}
    if not os.access(d, os.W_OK):
        raise OlctcError(f"bench folder {d} is not writable")
    if names - {LOCK} and BENCH_JSON not in names:
        raise OlctcError(f"{d} is not a bench folder (no {BENCH_JSON}) and is not empty: "
                         "give a new or empty folder")
    return names


#: Why the models ``at_older_settings`` names are not the authors'.
OLDER_SETTINGS_WHY = "the authors' code weighs MARGOT's ||w||^2 without 1/2 and OCT-H's errors over the baseline error"


def at_older_settings(meta: dict[str, Any], experiment: str, models: Sequence[str]) -> list[str]:
    """The names among ``models`` that the bench folder of ``meta`` (its bench.json) ran at the authors' C and
    alpha taken as olctc's: a folder made before ``MODEL_SETTINGS`` (resuming it is refused, its report says so)."""
    settings = meta.get("model_settings", 1)
    if is_integer(settings) and settings >= MODEL_SETTINGS:
        return []
    exp = EXPERIMENTS[experiment]
    known = {m.name for m in exp.models}
    return [m for m in models if m in known and exp.model(m).authors_scaled]


def older_olctc(meta: dict[str, Any]) -> str:
    """Who started the bench folder of ``meta``, for the messages about its older settings: "an earlier olctc
    (0.1.0, 2026-12-01)". Its version alone read as this very olctc: the version was not raised as they changed."""
    when = str(meta.get("created", ""))[:10]
    return f"an earlier olctc ({meta.get('olctc_version', 'version unknown')}{', ' + when if when else ''})"


def _prepare_folder(d: Path, opts: BenchOptions) -> None:
    """Check that the held folder ``d`` is this very bench (its options), or write its bench.json."""
    names = _contents(d)  # again, now that the folder is held: another bench may have written since
    meta_path = d / BENCH_JSON
    if BENCH_JSON in names:
        meta = read_bench_json(d)
        _check_appendable(d / RUNS)
        if meta.get("experiment") != opts.experiment:
            raise OlctcError(f"{d} holds the bench of experiment {meta.get('experiment')!r}, not "
                             f"{opts.experiment!r}: give another folder")
        old = meta.get("options", {})
        new = opts.to_json()
        exp = EXPERIMENTS[opts.experiment]
        # a folder made when an unused --C-grid was accepted (no --cv, no L1-LR) resumes without it
        diff = [k for k in sorted(set(old) | set(new)) if (k != "C_grid" or opts.uses_C_grid)
                and _option_key(k, old.get(k), exp.depth) != _option_key(k, new.get(k), exp.depth)]
        if diff:
            k = diff[0]
            raise OlctcError(f"{d} was started with other options ({OPTION_NAMES.get(k, k)}: "
                             f"{_option_text(k, old.get(k))} there, {_option_text(k, new.get(k))} now): "
                             "rerun with the same options or give another folder")
        scaled = at_older_settings(meta, opts.experiment, opts.models)
        if scaled:
            raise OlctcError(f"{d} was started by {older_olctc(meta)}, which ran "
                             f"{', '.join(scaled)} at the authors' C and alpha taken as olctc's ({OLDER_SETTINGS_WHY}; "
                             "see docs/BENCHMARKS.md); "
                             "`olctc bench report` still reads it: give another folder to run these models")
        return
    meta = {"experiment": opts.experiment, "options": opts.to_json(), "model_settings": MODEL_SETTINGS,
            "olctc_version": __version__,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "machine": machine_info()}
    atomic_write_text(meta_path, json.dumps(meta, indent=2) + "\n")


def _check_appendable(p: Path) -> None:
    """OlctcError unless the runs file ``p`` (if there) can take more records: found read-only at the first
    record, it cost the runs that had finished by then (QA: a `chattr +i` runs.jsonl)."""
    if not p.exists():
        return  # the folder is writable (checked): the first record makes it
    try:
        os.close(os.open(p, os.O_WRONLY | os.O_APPEND))
    except OSError as exc:
        raise OlctcError(f"cannot write {p}: {exc.strerror or exc} (the runs recorded in it are kept: make it "
                         "writable and run the same command again)") from None


#: Options that are sets: their order only orders the runs ("--seeds 42,0" resumes a "0,42" bench).
UNORDERED_OPTIONS = frozenset({"seeds", "datasets", "models"})


#: bench.json's option names as the command line spells them, for the messages that name them.
OPTION_NAMES = {"datasets": "--datasets", "seeds": "--seeds", "models": "--models", "solver": "--solver",
                "time_limit": "--time-limit", "fixed_C": "--fixed-C", "cv": "--cv", "C_grid": "--C-grid",
                "authors_split": "--authors-split", "threads": "--threads", "class_weight": "--class-weight",
                "score_variables": "--score-variables", "min_leaf": "--min-leaf",
                "smooth_pure_nodes": "--smooth-pure-nodes"}
#: What an option left out of bench.json (see BenchOptions.to_json) means.
OPTION_DEFAULTS = {"authors_split": False, "threads": THREADS, "class_weight": None, "score_variables": False,
                   "min_leaf": 0, "smooth_pure_nodes": False}


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
    _check_option_types(p, meta.get("options", {}))
    return meta


def _list_of(ok: Any) -> Any:
    return lambda v: isinstance(v, list) and all(map(ok, v))


#: What each option bench.json records must be (a folder of an older olctc may lack some): seeds [0, 42, 'x'] made
#: bench report fail with a TypeError, and time_limit "3" called every record another bench's.
_OPTION_TYPES: dict[str, tuple[str, Any]] = {
    "datasets": ("a list of names", _list_of(lambda s: isinstance(s, str))),
    "models": ("a list of names", _list_of(lambda s: isinstance(s, str))),
    "seeds": ("a list of integers", _list_of(is_integer)),
    "solver": ("a name", lambda v: isinstance(v, str)),
    "time_limit": ("a number of seconds", is_real),
    "threads": ("an integer", is_integer),
    "C_grid": ("a list of numbers", _list_of(is_real)),
}


def _check_option_types(p: Path, options: dict[str, Any]) -> None:
    for key, (expected, ok) in _OPTION_TYPES.items():
        if key in options and not ok(options[key]):
            raise OlctcError(f"{p}: option {key!r} is {shorten(json.dumps(options[key]))}, expected {expected} (the "
                             "file was edited?)")


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
    if rec.get("status") not in FAILED and rec.get("test_balanced_accuracy") is None:
        return False  # a run that worked has its score: without, bench skipped it as done, the report said failed
    if not all(rec.get(k) is None or (is_real(rec[k]) and _float_sized(rec[k])) for k in NUMERIC_FIELDS):
        return False  # 10**400: the report's mean raised OverflowError (QA 2026-12-05)
    shares = [rec.get(k) for k in ("test_balanced_accuracy", "train_balanced_accuracy")]
    # NaN: a mean over fewer seeds than said; inf: numpy warnings in the report; 57.0 (a percentage typed in)
    # averaged to "2873.78" (QA 2026-12-05)
    return all(v is None or (math.isfinite(v) and 0.0 <= v <= 1.0) for v in shares)


def _float_sized(v: Any) -> bool:
    """Whether the number ``v`` fits a float64 (a JSON integer may not)."""
    try:
        float(v)
    except OverflowError:
        return False
    return True


#: Options a record states (older records lack some): a record stating another value than bench.json's was
#: copied or edited in from another bench. Not class_weight: pystreed's records state None, as it ran.
RECORD_OPTIONS = ("time_limit", "threads", "score_variables", "min_leaf", "smooth_pure_nodes")


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
    end = -1  # the file's size once every byte is in
    try:
        size = os.fstat(fd).st_size
        if size:
            with open(p, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    view = memoryview(b"\n" + data)  # keep the partial line as it is, on its own line
        end = size + len(view)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    except BaseException as exc:
        # an interrupt once every byte is in keeps those records: judged by the file's size, since the signal
        # handler may run after os.write returned and before its count was taken off `view` (a record a
        # kill's test had already read was cut back)
        if end < 0:  # nothing written yet, and `size` may not be known (cut back to 0, the file was emptied)
            if not existed:
                with contextlib.suppress(OSError):
                    os.unlink(p)
        elif isinstance(exc, OSError) or _size_of(fd) != end:
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


def _size_of(fd: int) -> int:
    try:
        return os.fstat(fd).st_size
    except OSError:
        return -2


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
