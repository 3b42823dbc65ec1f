"""``olctc solvers``: every --solver choice, whether it runs here, and its version, checked against the solvers."""
from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import cli_main
from olctc.cluster.grid import GRID_SOLVERS
from olctc.solve import COMMERCIAL_SOLVERS as COMMERCIAL
from olctc.solve import FILE_BACKENDS
from olctc.solve.available import available_solvers, table_lines


@pytest.fixture(scope="module")
def infos():
    return {i.name: i for i in available_solvers()}


def test_every_solver_choice_is_listed_once_in_process_first(infos):
    names = [i.name for i in available_solvers()]
    assert names == [*FILE_BACKENDS, "gurobi-cli"]
    assert names == ["highs", "cbc", "scip", *COMMERCIAL, "cbc-cli", "highs-cli", "glpk-cli", "gurobi-cli"]
    # grid's default is olctc solve with HiGHS; its tasks run the commercial solvers in process too
    assert set(names) == set(GRID_SOLVERS) - {"olctc"}
    assert [infos[n].runs for n in names] == ["in process"] * 7 + ["program"] * 4
    assert [infos[n].models for n in names] == ["MILP", "MILP"] + ["MILP, MIQP"] * 5 + ["MILP"] * 3 + ["MILP, MIQP"]
    assert [infos[n].commands for n in names] == (["fit, solve, grid, collect, bench"] * 7 + ["solve, grid"] * 3
                                                  + ["grid"])


def test_versions_are_the_solvers_own(infos):
    """Each version is read again here the other way: the library's own call, the program's own banner."""
    import highspy
    import pyscipopt

    from olctc.solve.highs import new_highs

    # every one that olctc runs itself runs on this machine (and in CI: .ci/run installs them)
    assert all(i.ready for n, i in infos.items() if n != "gurobi-cli"), [i for i in infos.values() if not i.ready]
    assert infos["highs"].version == f"HiGHS {new_highs(False).version()}"
    assert infos["highs"].where == f"highspy {importlib.metadata.version('highspy')}"
    assert highspy.Highs is not None
    m = pyscipopt.Model()
    assert infos["scip"].version == f"SCIP {m.getMajorVersion()}.{m.getMinorVersion()}.{m.getTechVersion()}"
    assert re.fullmatch(r"CBC via mip \S+(, cbcbox \S+)?", infos["cbc"].version)
    glpk = subprocess.run([infos["glpk-cli"].where, "--version"], capture_output=True, text=True).stdout
    assert infos["glpk-cli"].version == "GLPK " + re.search(r"Solver,?\s*v?(\S+)", glpk)[1]
    assert re.fullmatch(r"HiGHS \d+\.\d+\.\d+", infos["highs-cli"].version)
    cbc = subprocess.run([infos["cbc-cli"].where, "-quit"], capture_output=True, text=True).stdout
    assert infos["cbc-cli"].version.removeprefix("CBC ") in cbc


def test_commercial_versions_are_their_packages_own(infos):
    """Read in a process of its own (importing coptpy before highspy breaks highspy's readSolution)."""
    code = textwrap.dedent("""
        import gurobipy, cplex, coptpy, xpress
        c = cplex.Cplex()
        print("Gurobi " + ".".join(map(str, gurobipy.gurobi.version())))
        print("CPLEX " + c.get_version())
        print(f"COPT {coptpy.COPT.VERSION_MAJOR}.{coptpy.COPT.VERSION_MINOR}.{coptpy.COPT.VERSION_TECHNICAL}")
        print(xpress.getVersion())
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        pytest.skip(f"a commercial solver's package is missing: {out.stderr.strip().splitlines()[-1]}")
    gurobi, cplex, copt, xpress = out.stdout.splitlines()
    assert (infos["gurobi"].version, infos["cplex"].version, infos["copt"].version) == (gurobi, cplex, copt)
    assert infos["xpress"].version == f"Xpress {importlib.metadata.version('xpress')} (optimizer {xpress})"
    assert infos["gurobi"].where == f"gurobipy {importlib.metadata.version('gurobipy')}"
    assert all(infos[n].ready for n in COMMERCIAL)


def test_notes_say_the_defaults_and_the_caveat(infos):
    assert infos["highs"].note == "the default of fit, solve, collect and bench"
    assert "MIQP presets" in infos["scip"].note and infos["cbc"].note == ""
    assert "approximate" in infos["glpk-cli"].note and infos["cbc-cli"].note == ""
    # the size limit of each wheel's licence, and what lifts it
    assert all("lifts the limit" in infos[n].note for n in COMMERCIAL)


def test_cli_table_and_json(capsys):
    code, out, err = cli_main(["solvers"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].split() == ["solver", "runs", "commands", "models", "version", "where"]
    every = available_solvers()
    assert [ln.split()[0] for ln in lines[1:12]] == [i.name for i in every]
    assert lines[12:] == [f"{i.name}: {'' if i.found else 'install: '}{i.note}" for i in every if i.note]
    # the columns line up: each row's version starts where the header's does
    col = lines[0].index("version")
    assert all(ln[col - 2:col] == "  " and ln[col] != " " for ln in lines[1:12])
    code, out, err = cli_main(["solvers", "--json"], capsys)
    assert code == 0 and err == ""
    assert json.loads(out) == [i.to_dict() for i in available_solvers()]


def test_missing_solvers_say_how_to_install_them(tmp_path):
    """No program on PATH (HiGHS's still found through highsbox, as solve finds it), and pyscipopt not
    importable: each missing one is 'missing' with its install line; pyscipopt, installed but failing its
    import, is 'broken' with the reason; the command still exits 0."""
    code = textwrap.dedent("""
        import sys
        sys.modules["pyscipopt"] = None  # import pyscipopt raises ImportError, as without the package
        sys.modules["gurobipy"] = None
        from olctc.cli import main
        main(["solvers"])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={"PATH": str(tmp_path), "HOME": str(tmp_path)})
    assert out.returncode == 0, out.stderr
    rows = {ln.split()[0]: ln for ln in out.stdout.splitlines()[1:12]}
    for name in ("cbc-cli", "glpk-cli", "gurobi-cli"):
        assert "  missing  " in rows[name], rows[name]
    assert "  broken  " in rows["scip"], rows["scip"]
    assert "missing" not in rows["highs"] and "missing" not in rows["highs-cli"]
    assert "  broken  " in rows["gurobi"], rows["gurobi"]
    notes = out.stdout.splitlines()[12:]
    assert ("scip: cannot load it: import of pyscipopt halted; None in sys.modules (reinstall: pip install "
            "pyscipopt)") in notes
    assert "cbc-cli: install: apt-get install coinor-cbc (or pip install cbcbox)" in notes
    assert "glpk-cli: install: apt-get install glpk-utils" in notes
    assert ("gurobi: cannot load it: --solver gurobi runs Gurobi in process through the gurobipy package, which "
            "cannot be imported (import of gurobipy halted; None in sys.modules): pip install gurobipy (its pip "
            "wheel solves models of up to 2000 variables and 2000 rows (200 variables for a MIQP) without a "
            "licence; a Gurobi licence (gurobi.com) lifts the limit)") in notes


def test_table_lines_of_nothing_is_the_header():
    assert table_lines([]) == ["solver  runs  commands  models  version  where"]


def test_gurobi_cl_found_on_path_gives_its_version(tmp_path, monkeypatch):
    """No Gurobi here: a stand-in ``gurobi_cl`` prints the banner of Gurobi's ``gurobi_cl --version``."""
    from olctc.solve.available import _gurobi

    fake = tmp_path / "gurobi_cl"
    fake.write_text('#!/bin/sh\necho "Gurobi Optimizer version 12.0.3 build v12.0.3rc0 (linux64 - \\"Ubuntu\\")"\n'
                    'echo "Copyright (c) 2025, Gurobi Optimization, LLC"\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    info = _gurobi(10.0)
    assert (info.ready, info.version, info.where, info.note) == (True, "Gurobi 12.0.3", str(fake), "")
    fake.write_text("#!/bin/sh\necho something else\n")
    assert _gurobi(10.0).version == "gurobi_cl (version unknown)"


def test_xpress_not_installed_says_how_to_install_it():
    """Without the xpress package (no metadata, no module) its note was the metadata's exception: "pip install
    xpress (No package metadata was found for xpress)"; the other commercial solvers' said what --solver does
    and what its pip wheel allows (QA 2026-12-05)."""
    code = textwrap.dedent("""
        import importlib.metadata as md
        import sys
        real = md.version
        def version(name):
            if name == "xpress":
                raise md.PackageNotFoundError(name)
            return real(name)
        md.version = version
        sys.modules["xpress"] = None
        from olctc.cli import main
        main(["solvers"])
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    note = next(ln for ln in out.stdout.splitlines() if ln.startswith("xpress: "))
    assert note.startswith("xpress: install: --solver xpress runs Xpress in process through the xpress package, "
                           "which cannot be imported ("), note
    assert note.endswith("a FICO Xpress licence lifts the limit)") and "metadata" not in note, note
