"""Tests from a mutation pass over the text, DOT and SQL exports with their name helpers (olctc.export._names, text,
dot, sql) and over the flow the commercial in-process solvers share (olctc.solve.commercial): each pins a behaviour
that a small code change (a mutant, named in the test's comment) broke without any other test failing. Trees are
written by hand and their queries run in SQLite; packages are imported in a fresh interpreter."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from test_commercial_in_process import need

from olctc.export.sql import to_sql
from olctc.tree import Tree


# ================================================================== export/sql.py
def test_sql_reads_a_qualified_table_named_like_the_default() -> None:
    """Only the bare default name reads olctc_input as it stands: ``sales.olctc_input`` is another table, read as
    named (mutant qa204/m94, added by qa210: any name whose last part is olctc_input read the default table, here
    the one row of main.olctc_input in place of the two of sales.olctc_input)."""
    tree = Tree.from_arrays([[1.0]], [-0.5], classes=("neg", "pos"))
    con = sqlite3.connect(":memory:")
    con.execute("ATTACH DATABASE ':memory:' AS sales")
    for table, rows in (("olctc_input", "(0.0)"), ("sales.olctc_input", "(1.0), (2.0)")):
        con.execute(f"CREATE TABLE {table} (x0 REAL)")
        con.execute(f"INSERT INTO {table} VALUES {rows}")
    query = to_sql(tree, "sales.olctc_input")
    assert '  FROM "sales"."olctc_input" olctc_input' in query.splitlines()
    got = con.execute(f"SELECT x0, olctc_score, olctc_label FROM ({query.rstrip().rstrip(';')}) ORDER BY x0")
    assert got.fetchall() == [(1.0, 0.5, "pos"), (2.0, 1.5, "pos")]


# ================================================================== solve/commercial.py: import_solver
def test_a_broken_highspy_does_not_stop_copt(tmp_path: Path) -> None:
    """olctc imports highspy before coptpy only to keep highspy working beside it: a highspy whose native library
    does not load (ImportError, not ModuleNotFoundError; a stand-in here, in a fresh interpreter) must not keep
    COPT from loading (mutant qa208/m45, added by qa210: only ModuleNotFoundError suppressed, so the ImportError
    escaped)."""
    need("copt")
    (tmp_path / "highspy.py").write_text("raise ImportError('libhighs.so: cannot open shared object file')\n")
    code = ("import sys; from olctc.solve.commercial import import_solver; "
            "print(import_solver('copt').__name__, 'highspy' in sys.modules)")
    path = os.pathsep.join([str(tmp_path), *sys.path])
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": path})
    assert (run.returncode, run.stdout) == (0, "coptpy False\n"), run.stderr[-2000:]

