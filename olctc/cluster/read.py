"""Reading a grid folder back: grid.json checked field by field (types, ranges, rows, tasks) and against
jobs.tsv, and the grid's data reloaded and checked against its sha256."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from olctc.cluster.grid import GRID_FORMAT, GRID_SOLVERS, GRID_VERSION, JOBS_COLUMNS, c_text
from olctc.errors import MISSING, OlctcError, brief, is_integer, is_real


def read_grid(folder: str | Path) -> dict[str, Any]:
    """grid.json of ``folder``, checked, with its tasks checked against jobs.tsv."""
    folder = Path(folder)
    if not folder.is_dir():
        raise OlctcError(f"{folder}: not a folder")
    path = folder / "grid.json"
    if not path.exists():
        raise OlctcError(f"{folder} is not an olctc grid folder (no grid.json); create one with `olctc grid`")
    try:
        info = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise OlctcError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(info, dict) or info.get("format") != GRID_FORMAT:
        raise OlctcError(f"{path}: not an olctc grid file (format is not {GRID_FORMAT!r})")
    if isinstance(info.get("version"), bool) or info.get("version") != GRID_VERSION:  # true == 1 in Python
        raise OlctcError(f"{path}: grid version {info.get('version')!r}; this olctc reads version {GRID_VERSION}")
    for key in ("data", "train_rows", "test_rows", "folds", "spec", "C_grid", "tasks"):
        if key not in info:
            raise OlctcError(f"{path}: the key {key!r} is missing; the file is damaged")
    check_grid_info(path, info)
    check_jobs(folder, info)
    return info


def check_grid_info(path: Path, info: dict[str, Any]) -> None:
    """OlctcError naming ``path`` and the field unless grid.json has the types and ranges collect relies on
    (an edited file otherwise fails later with a traceback, or scores on the wrong rows)."""
    from olctc.emit.params import MAX_TIME_LIMIT
    from olctc.spec import TreeSpec

    def bad(field: str, expected: str, got: Any = None, show: bool = True) -> OlctcError:
        g = f", got {brief(got)}" if show else ""
        return OlctcError(f"{path}: field {field!r} must be {expected}{g}; the file is damaged (edited?)")

    data = info["data"]
    if not isinstance(data, dict):
        raise bad("data", "an object", data)
    for k in ("source", "sha256"):
        if not isinstance(data.get(k, MISSING), str):
            raise bad(f"data.{k}", "a string", data.get(k, MISSING))
    n = data.get("n", MISSING)
    if not is_integer(n) or n < 1:
        raise bad("data.n", "the number of rows of the data (an integer >= 1)", n)
    dropped = data.get("dropped", [])
    if not (isinstance(dropped, list) and all(isinstance(c, str) for c in dropped)):
        raise bad("data.dropped", "a list of column names", dropped)

    def rows(field: str, v: Any) -> set[int]:
        if not isinstance(v, list):
            raise bad(field, f"a list of row numbers from 0 to {n - 1}", v)
        wrong = next((r for r in v if not (is_integer(r) and 0 <= r < n)), None)
        if wrong is not None:
            raise OlctcError(f"{path}: field {field!r} holds {brief(wrong)}, not a row number from 0 to {n - 1} "
                             "of the data; the file is damaged (edited?)")
        if len(set(v)) != len(v):
            raise bad(field, "a list of distinct row numbers", show=False)
        return set(v)

    train = rows("train_rows", info["train_rows"])
    if not train:
        raise bad("train_rows", "a non-empty list of row numbers", info["train_rows"])
    if train & rows("test_rows", info["test_rows"]):
        raise bad("test_rows", "rows outside train_rows", sorted(train & set(info["test_rows"]))[:5])
    folds = info["folds"]
    if not isinstance(folds, list) or len(folds) < 2:
        raise bad("folds", "a list of at least 2 folds", folds)
    for i, f in enumerate(folds):
        if not isinstance(f, dict):
            raise bad(f"folds[{i}]", "an object with 'train' and 'val' rows", f)
        fit_rows = rows(f"folds[{i}].train", f.get("train", MISSING))
        val_rows = rows(f"folds[{i}].val", f.get("val", MISSING))
        if not val_rows or not fit_rows or not (fit_rows | val_rows) <= train or fit_rows & val_rows:
            raise bad(f"folds[{i}]", "disjoint non-empty 'train' and 'val' parts of train_rows", show=False)
    if not isinstance(info["spec"], dict):
        raise bad("spec", "an object (the tree specification)", info["spec"])
    try:
        depth = TreeSpec.from_json(info["spec"]).depth
    except OlctcError as exc:
        raise OlctcError(f"{path}: field 'spec' is not a valid tree specification: {exc}") from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise OlctcError(f"{path}: field 'spec' is not a valid tree specification "
                         f"({type(exc).__name__}: {exc}); the file is damaged (edited?)") from None
    grid = info["C_grid"]
    if not isinstance(grid, list) or not grid or not all(
            isinstance(C, list) and len(C) == depth and all(is_real(c) and 0 < c < math.inf for c in C)
            for C in grid):
        raise bad("C_grid", f"a non-empty list of C combinations, each {depth} positive number(s)", grid)
    combos = {tuple(float(c) for c in C) for C in grid}
    tasks = info["tasks"]
    if not isinstance(tasks, list) or not tasks:
        raise bad("tasks", "a non-empty list of tasks", tasks)
    ids: set[int] = set()
    for i, t in enumerate(tasks):
        where = f"tasks[{i}]"
        if not isinstance(t, dict):
            raise bad(where, "an object", t)
        if not is_integer(t.get("task", MISSING)) or t["task"] in ids:
            raise bad(f"{where}.task", "a task number not used by another task", t.get("task", MISSING))
        ids.add(t["task"])
        if not is_integer(t.get("fold", MISSING)) or not 0 <= t["fold"] < len(folds):
            raise bad(f"{where}.fold", f"a fold number from 0 to {len(folds) - 1}", t.get("fold", MISSING))
        C = t.get("C", MISSING)
        if not isinstance(C, list) or not all(is_real(c) for c in C) or tuple(float(c) for c in C) not in combos:
            raise bad(f"{where}.C", "one of the combinations of C_grid", C)
        for k in ("model", "solution"):
            v = t.get(k, MISSING)
            if not isinstance(v, str) or not v or Path(v).is_absolute() or ".." in Path(v).parts:
                raise bad(f"{where}.{k}", "a file path inside the grid folder", v)
    if not is_integer(info.get("seed", MISSING)):
        raise bad("seed", "an integer", info.get("seed", MISSING))
    tl = info.get("time_limit")
    if tl is not None and not (is_real(tl) and 0 < tl <= MAX_TIME_LIMIT):
        raise bad("time_limit", "a positive number of seconds (or null)", tl)
    mnz = info.get("max_nonzeros")
    if mnz is not None and not (is_integer(mnz) and mnz >= 1):
        raise bad("max_nonzeros", "an integer >= 1 (or null)", mnz)
    if "solver" in info and not (isinstance(info["solver"], str) and info["solver"] in GRID_SOLVERS):
        raise bad("solver", f"one of {', '.join(GRID_SOLVERS)}", info["solver"])


def check_jobs(folder: Path, info: dict[str, Any]) -> None:
    """jobs.tsv must list the tasks of grid.json, one per line, with the same fold, C, model and solution."""
    path = folder / "jobs.tsv"
    if not path.exists():
        raise OlctcError(f"{path}: missing; the grid folder is incomplete")
    try:
        lines = path.read_text().splitlines()
    except (OSError, ValueError) as exc:  # a folder, or bytes that are not UTF-8: a traceback in collect
        raise OlctcError(f"{path}: not readable as text ({exc}); the grid folder is damaged") from None
    if not lines or tuple(lines[0].split("\t")) != JOBS_COLUMNS:
        raise OlctcError(f"{path} line 1: the header must be {' | '.join(JOBS_COLUMNS)} (tab-separated)")
    tasks = {t["task"]: t for t in info["tasks"]}
    seen: set[int] = set()
    for k, line in enumerate(lines[1:], start=2):
        if not line.strip():
            continue
        cells = line.split("\t")
        where = f"{path} line {k}"
        if len(cells) != len(JOBS_COLUMNS):
            raise OlctcError(f"{where}: {len(cells)} tab-separated fields, expected {len(JOBS_COLUMNS)}")
        try:
            tid = int(cells[0])
        except ValueError:
            raise OlctcError(f"{where}: task id {cells[0]!r} is not a number") from None
        if tid not in tasks:
            raise OlctcError(f"{where}: task {tid} is not in grid.json (tasks 0..{len(tasks) - 1})")
        if tid in seen:
            raise OlctcError(f"{where}: task {tid} is listed twice")
        seen.add(tid)
        t = tasks[tid]
        try:
            C = [float(c) for c in cells[2].split(",")]
        except ValueError:
            C = None
        expected: tuple[Any, ...] = (str(t["fold"]), t["C"], t["model"], t["solution"])
        got: tuple[Any, ...] = (cells[1], C, cells[3], cells[4])
        for name, e, g in zip(("fold", "C", "model", "solution"), expected, got):
            if name == "C":
                if g is None or len(g) != len(e) or any(not math.isclose(a, b) for a, b in zip(e, g)):
                    raise OlctcError(f"{where}: task {tid} has C {cells[2]!r}, grid.json says {c_text(e)}")
            elif e != g:
                raise OlctcError(f"{where}: task {tid} has {name} {g!r}, grid.json says {e!r}")
    missing = sorted(set(tasks) - seen)
    if missing:
        raise OlctcError(f"{path}: task(s) {missing[:10]} of grid.json are not listed")


def load_grid_data(info: dict[str, Any], data_path: str | Path | None = None):
    """The whole source Dataset of a grid, checked against its sha256."""
    from olctc.pipeline import load_source

    return load_source(info["data"], data_path, what="the grid's data", since="`olctc grid`", param="data_path")
