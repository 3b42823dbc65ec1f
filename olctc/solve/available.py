"""Which of the ``--solver`` choices this machine can run, with their versions (``olctc solvers``).

Each in-process solver is imported and asked its version; each program is looked up as ``solve`` looks it
up (PATH, then highsbox for HiGHS) and run once with a flag that only prints its banner.
"""
from __future__ import annotations

import importlib.metadata
import re
import shutil
import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from olctc.emit.params import UNTUNABLE
from olctc.errors import OlctcError
from olctc.solve.commercial import PACKAGES
from olctc.solve.external import EXTERNAL, locate

#: The flag that makes each program print its banner (its version) and stop.
VERSION_FLAGS = {"cbc": ["-quit"], "highs": ["--version"], "glpsol": ["--version"]}

#: What the in-process solvers need, and which models they solve.
IN_PROCESS = {
    "highs": ("highspy", "pip install highspy", "MILP"),
    "cbc": ("mip", "pip install mip", "MILP"),
    "scip": ("pyscipopt", "pip install pyscipopt", "MILP, MIQP"),
    **{name: (package, f"pip install {package}", "MILP, MIQP") for name, (package, _, _) in PACKAGES.items()},
}


@dataclass(frozen=True)
class SolverInfo:
    """One ``--solver`` choice: ``ready`` when it can run here; ``found`` when its package or program is
    there (found, not ready: it fails to load or run, the note says how); ``version`` its own version string;
    ``where`` the program's path or the Python package; ``note`` how to get it, why it does not run, or a
    caveat."""

    name: str
    runs: str  # "in process" or "program"
    commands: str  # the olctc commands whose --solver takes it
    models: str  # "MILP" or "MILP, MIQP"
    ready: bool
    found: bool
    version: str | None
    where: str
    note: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _highs_version() -> str:
    from olctc.solve.highs import new_highs

    return f"HiGHS {new_highs(False).version()}"


def _cbc_version() -> str:
    import mip

    mip.Model(solver_name=mip.CBC)  # loads the CBC library: an import alone does not show a broken one
    from olctc.solve.cbc import _cbc_version as version

    return version()


def _scip_version() -> str:
    import pyscipopt

    from olctc.solve.scip import scip_version

    return scip_version(pyscipopt.Model())


def _commercial_version(solver: str) -> Callable[[], str]:
    def version() -> str:
        module = importlib.import_module(f"olctc.solve.{solver}")
        return getattr(module, f"{solver}_version")()

    return version


_VERSION: dict[str, Callable[[], str]] = {"highs": _highs_version, "cbc": _cbc_version, "scip": _scip_version,
                                          **{name: _commercial_version(name) for name in PACKAGES}}


def _in_process(name: str) -> SolverInfo:
    package, install, models = IN_PROCESS[name]
    # grid's tasks run `olctc solve --solver NAME`, commercial ones included; collect's final fit, bench's fits
    commands = "fit, solve, grid, collect, bench"
    try:
        where, found = f"{package} {importlib.metadata.version(package)}", True
    except importlib.metadata.PackageNotFoundError:
        where, found = package, False
    try:
        version = _VERSION[name]()
    except Exception as exc:  # a missing package, or one whose native library does not load
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        # found: its package is installed, but it (or its native library) does not load
        note = f"cannot load it: {reason} (reinstall: {install})" if found else f"{install} ({reason})"
        if isinstance(exc, OlctcError):  # olctc's own words say what to do
            note = f"cannot load it: {reason}" if found else reason
        return SolverInfo(name, "in process", commands, models, False, found, None, where, note)
    note = {"highs": "the default of fit, solve, collect and bench",
            "scip": "fit's default for the MIQP presets (margot, margot-sfs, margot-hfs)",
            **{k: v[2] for k, v in PACKAGES.items()}}.get(name, "")
    return SolverInfo(name, "in process", commands, models, True, True, version, where, note)


def _version_run(cmd: list[str], env: dict[str, str] | None, timeout: float) -> tuple[str | None, str]:
    """Run a program's version command: (its output, "") when it ran and exited 0, else (None, why not)."""
    try:
        # stdin: a program that reads it would take the caller's input, or wait for a terminal's until timeout
        out = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             errors="replace", timeout=timeout)
    except (OSError, subprocess.SubprocessError) as exc:
        return None, f"cannot run it: {exc}"
    if out.returncode != 0:  # a missing shared library (127), a licence or a crash: it cannot solve either
        # the error is on standard error; a banner on standard output must not hide it (stdout only if stderr is empty)
        last = next((s.strip() for text in (out.stderr, out.stdout) for s in reversed(text.splitlines()) if s.strip()),
                    "")
        last = "".join(c if c.isprintable() else "?" for c in last[:200])  # no terminal escape reaches the table
        return None, (f"cannot run it: `{' '.join(cmd)}` exited with code {out.returncode}"
                      + (f": {last}" if last else ""))
    return out.stdout + out.stderr, ""


def _program(name: str, timeout: float) -> SolverInfo:
    spec = EXTERNAL[name]
    try:
        exe, env = locate(spec, None)
    except OlctcError:
        return SolverInfo(name, "program", "solve, grid", "MILP", False, False, None, spec.program, spec.install)
    from olctc.solve.external import _version

    out, why = _version_run([str(exe), *VERSION_FLAGS[spec.program]], env, timeout)
    if out is None:
        return SolverInfo(name, "program", "solve, grid", "MILP", False, True, None, str(exe), why)
    note = "its tolerances cannot be set, so its optimum is approximate" if name in UNTUNABLE else ""
    return SolverInfo(name, "program", "solve, grid", "MILP", True, True, _version(spec, out), str(exe), note)


def _gurobi(timeout: float) -> SolverInfo:
    """``grid --solver gurobi-cli``: its task lines run ``gurobi_cl`` (on the nodes: here, it is only looked up)."""
    found = shutil.which("gurobi_cl")
    if found is None:
        return SolverInfo("gurobi-cli", "program", "grid", "MILP, MIQP", False, False, None, "gurobi_cl",
                          "Gurobi with a licence, gurobi_cl on PATH where the grid's tasks run")
    exe = Path(found).absolute()
    out, why = _version_run([str(exe), "--version"], None, timeout)
    if out is None:
        return SolverInfo("gurobi-cli", "program", "grid", "MILP, MIQP", False, True, None, str(exe), why)
    match = re.search(r"Gurobi Optimizer version (\S+)", out)
    version = f"Gurobi {match[1]}" if match else "gurobi_cl (version unknown)"
    return SolverInfo("gurobi-cli", "program", "grid", "MILP, MIQP", True, True, version, str(exe), "")


def available_solvers(*, timeout: float = 20.0) -> list[SolverInfo]:
    """Every ``--solver`` choice of ``fit``, ``solve`` and ``grid``, each checked on this machine: the
    in-process solvers, the programs ``solve`` runs, and ``gurobi_cl``, which only grid's task lines run.

    ``timeout`` bounds each program's version run (seconds).
    """
    from olctc.solve import FILE_BACKENDS

    infos = [_in_process(n) if n in IN_PROCESS else _program(n, timeout) for n in FILE_BACKENDS]
    return infos + [_gurobi(timeout)]


def table_lines(infos: list[SolverInfo]) -> list[str]:
    """``olctc solvers``' table: one line per solver, then a line on those that are missing."""
    rows = [("solver", "runs", "commands", "models", "version", "where")]
    rows += [(i.name, i.runs, i.commands, i.models, i.version or ("broken" if i.found else "missing"), i.where)
             for i in infos]
    widths = [max(len(r[k]) for r in rows) for k in range(5)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r[:5], widths)) + "  " + r[5] for r in rows]
    for i in infos:
        if i.note:
            lines.append(f"{i.name}: {'install: ' if not i.found else ''}{i.note}")
    return lines
