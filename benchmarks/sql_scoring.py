"""The SQL export's query scoring a table: SQLite, DuckDB, and PostgreSQL with its JIT on and off.

Usage:
    python benchmarks/sql_scoring.py [--rows 10000] [--repeat 3]

Random oblique trees (half the weights nonzero) at depth 2 and 3 on 300 features and depth 4 on 100, on
``--rows`` random rows. Each database gets the rows first; only the query is timed (``SELECT count(*),
sum(olctc_proba)`` over it, median of ``--repeat``), in the same process. PostgreSQL runs in a server of its
own (tests/test_export_sql.py's ``Postgres``: needs its programs, ``apt-get install postgresql``); JIT off is
``SET jit = off`` in the same session. Every database's answer is checked against the tree's own.
"""
from __future__ import annotations

import argparse
import platform
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from olctc.export.sql import to_sql  # noqa: E402
from olctc.tree import Tree  # noqa: E402
from test_export_sql import Postgres, _create, _inserts  # noqa: E402

CASES = [(2, 300), (3, 300), (4, 100)]


def _median_time(run, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    import duckdb

    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, SQLite "
          f"{sqlite3.sqlite_version}, DuckDB {duckdb.__version__}; {args.rows} rows, median of {args.repeat}")
    root = Path(tempfile.mkdtemp(prefix="olctc-pg-"))
    pg = Postgres(root)
    try:
        print(f"PostgreSQL: {pg.sql('SHOW server_version;')[0][0]}")
        print(f"{'depth':>5} {'p':>4}  {'SQLite':>8} {'DuckDB':>8} {'PG jit on':>10} {'PG jit off':>10}")
        rng = np.random.default_rng(0)
        for depth, p in CASES:
            k = 2 ** depth - 1
            tree = Tree.from_arrays(rng.normal(size=(k, p)) * (rng.random((k, p)) < 0.5), rng.normal(size=k),
                                    classes=(0, 1))
            X = rng.normal(size=(args.rows, p))
            want = float(tree.predict_proba(X)[:, 1].sum())
            query = "SELECT count(*), sum(olctc_proba) FROM (\n" + to_sql(tree).rstrip().rstrip(";") + "\n) AS q"
            rows = [[i, *r] for i, r in enumerate(X.tolist())]
            times = []
            for con in (sqlite3.connect(":memory:"), duckdb.connect()):
                con.execute(_create(tree))
                con.executemany(f"INSERT INTO olctc_input VALUES ({', '.join('?' * (p + 1))})", rows)
                t, got = _median_time(lambda: con.execute(query).fetchall(), args.repeat)
                assert got[0][0] == args.rows and abs(got[0][1] - want) < 1e-6 * args.rows, got
                times.append(t)
            pg.sql("DROP TABLE IF EXISTS olctc_input;\n" + _create(tree) + ";\n" + ";\n".join(_inserts(X.tolist()))
                   + ";\n")
            for jit in ("on", "off"):
                t, got = _median_time(lambda: pg.sql(f"SET jit = {jit};\n{query};"), args.repeat)
                assert int(got[0][0]) == args.rows and abs(float(got[0][1]) - want) < 1e-6 * args.rows, got
                times.append(t)
            print(f"{depth:>5} {p:>4}  " + " ".join(f"{t:>8.2f}" if i < 2 else f"{t:>10.2f}"
                                                    for i, t in enumerate(times)))
    finally:
        pg.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
