"""The SQL export, run in real databases: SQLite (the standard library), DuckDB, and PostgreSQL (a throwaway
server started here when its programs are installed: .ci/run installs them). Every query's outputs are
compared with Tree's own predictions on the same rows."""
from __future__ import annotations

import glob
import math
import os
import pwd
import re
import shutil
import sqlite3
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

from conftest import cli_main
from olctc.data import Column, Scaler, Schema
from olctc.datasets import load
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.export import export_tree, render
from olctc.export.sql import EXP_LIMIT, table_parts, to_sql
from olctc.export.json import load as load_tree
from olctc.fit import fit
from olctc.spec import make_spec
from olctc.tree import Tree

OUTPUTS = ("olctc_node", "olctc_score", "olctc_proba", "olctc_label")

# One pytest-xdist worker for the whole module (--dist loadgroup): its module fixtures, three real fits (fitted)
# and a PostgreSQL server, are then built once per run rather than once on each worker.
pytestmark = pytest.mark.xdist_group("export_sql")


# ---------------------------------------------------------------- the databases

def _sql_value(v) -> str:
    if v is None:
        return "NULL"
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    r = repr(float(v))
    return r if "e" in r or "inf" in r or "nan" in r else r + "e0"


def _qualified(parts) -> str:
    return ".".join('"' + s.replace('"', '""') + '"' for s in parts)


def _create(tree, table: str = "olctc_input") -> str:
    cols = ", ".join('"' + c.name.replace('"', '""') + '" ' + ("DOUBLE PRECISION" if c.kind == "numeric" else "TEXT")
                     for c in tree.schema.columns)
    return f"CREATE TABLE {table} (olctc_row INTEGER, {cols})"


def _inserts(rows, table: str = "olctc_input", at_once: bool = False) -> list[str]:
    """One INSERT per row; ``at_once``, one for all (DuckDB took 2-3 s to run 569 or 958 one by one)."""
    values = [f"({i}, {', '.join(_sql_value(v) for v in r)})" for i, r in enumerate(rows)]
    if at_once:
        return [f"INSERT INTO {table} VALUES {', '.join(values)}"] if values else []
    return [f"INSERT INTO {table} VALUES {v}" for v in values]


def _ordered(query: str) -> str:
    # the query keeps the input's columns: order by the row number the table was given
    assert query.rstrip().endswith("FROM olctc_z;")
    return query.rstrip()[:-1] + " ORDER BY olctc_row;"


def _run_dbapi(con, tree, rows, query, setup=(), table="olctc_input", at_once=False):
    for s in setup:
        con.execute(s)
    con.execute(_create(tree, table))
    for s in _inserts(rows, table, at_once):
        con.execute(s)
    cur = con.execute(_ordered(query))
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def run_sqlite(tree, rows, query, setup=(), table="olctc_input"):
    return _run_dbapi(sqlite3.connect(":memory:"), tree, rows, query, setup, table)


def run_duckdb(tree, rows, query, setup=(), table="olctc_input", at_once=False):
    return _run_dbapi(pytest.importorskip("duckdb").connect(), tree, rows, query, setup, table, at_once)


def _pg_bin() -> Path | None:
    for d in sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=lambda s: int(Path(s).parent.name), reverse=True):
        if Path(d, "initdb").exists():
            return Path(d)
    found = shutil.which("initdb")
    return Path(found).parent if found else None


class Postgres:
    """A PostgreSQL server of its own, on a Unix socket in a temporary folder, for this module's tests."""

    def __init__(self, root: Path) -> None:
        self.bin = _pg_bin()
        if self.bin is None:
            pytest.skip("PostgreSQL is not installed (apt-get install postgresql; .ci/run installs it)")
        self.root = root
        self.prefix: list[str] = []
        if os.geteuid() == 0:  # the server refuses to run as root: run it as the postgres user
            try:
                user = pwd.getpwnam("postgres")
            except KeyError:
                pytest.skip("running as root with no postgres user to run the server as")
            os.chown(root, user.pw_uid, user.pw_gid)
            self.prefix = ["runuser", "-u", "postgres", "--"]
        self.data, self.sock = root / "data", root
        self._do([str(self.bin / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "olctc", "-E", "UTF8",
                  "--locale=C", "--no-sync"])
        self._do([str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(root / "log"), "-w", "-t", "60", "-o",
                  f"-k {root} -c listen_addresses= -p 5432 -F", "start"])

    def _do(self, cmd: list[str], stdin: str | None = None) -> str:
        out = subprocess.run(self.prefix + cmd, input=stdin, capture_output=True, text=True, timeout=120,
                             cwd=self.root)
        if out.returncode != 0:
            raise AssertionError(f"{' '.join(cmd[:2])} failed: {out.stderr.strip()[-2000:]}")
        return out.stdout

    def sql(self, script: str) -> list[list[str | None]]:
        """Run ``script``; the last statement's rows as text (None for NULL)."""
        out = self._do([str(self.bin / "psql"), "-h", str(self.sock), "-p", "5432", "-U", "olctc", "-d", "postgres",
                        "-X", "-q", "-A", "-t", "-F", "\t", "-P", "null=<NULL>", "-v", "ON_ERROR_STOP=1", "-f", "-"],
                       stdin=script)
        return [[None if c == "<NULL>" else c for c in line.split("\t")] for line in out.splitlines() if line]

    def stop(self) -> None:
        self._do([str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop"])


@pytest.fixture(scope="module")
def postgres():
    # not under pytest's own temporary folder, which only its owner may enter (the server runs as postgres
    # when the tests run as root); a short path too, as a Unix socket's is at most 107 bytes
    root = Path(tempfile.mkdtemp(prefix="olctc-pg-"))
    try:
        server = Postgres(root)
        yield server
        server.stop()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def pg_outputs(server: Postgres, script: str) -> list[dict]:
    """Run ``script``, whose last statement selects olctc_row and the four outputs; its rows as Python values."""
    out = []
    for r in server.sql(script):
        d = dict(zip(["olctc_row", *OUTPUTS], r))
        d["olctc_node"] = None if d["olctc_node"] is None else int(d["olctc_node"])
        for k in ("olctc_score", "olctc_proba"):
            d[k] = None if d[k] is None else float(d[k])
        out.append(d)
    return out


def run_postgres(server: Postgres, tree, rows, query, setup=(), table="olctc_input"):
    script = ("DROP TABLE IF EXISTS olctc_input;\n" + "".join(s + ";\n" for s in setup) + _create(tree, table) + ";\n"
              + ";\n".join(_inserts(rows, table)) + ";\n"
              + f"SELECT olctc_row, {', '.join(OUTPUTS)} FROM (\n" + query.rstrip().rstrip(";")
              + "\n) AS q ORDER BY olctc_row;\n")
    return pg_outputs(server, script)


ENGINES = ["sqlite", "duckdb", "postgres"]


class Engine:
    def __init__(self, name, run) -> None:
        self.name, self.run = name, run
        # SQLite and DuckDB add IEEE doubles in the Python export's order: the same bits
        self.exact = name != "postgres"

    def __call__(self, tree, rows, query, setup=(), table="olctc_input"):
        return self.run(tree, rows, query, setup, table)


@pytest.fixture(params=ENGINES)
def engine(request):
    if request.param == "postgres":
        server = request.getfixturevalue("postgres")
        return Engine("postgres", lambda *args: run_postgres(server, *args))
    return Engine(request.param, {"sqlite": run_sqlite, "duckdb": run_duckdb}[request.param])


# ---------------------------------------------------------------- trees and rows

def raw_rows(tree, X) -> list[list]:
    """The raw rows (numbers, categories) whose encoding is X."""
    rows = []
    for x in X:
        r, j = [], 0
        for c in tree.schema.columns:
            if c.kind == "numeric":
                r.append(float(x[j]))
                j += 1
            else:
                k = len(c.categories)
                hot = np.flatnonzero(x[j:j + k])
                r.append(c.categories[hot[0]] if len(hot) else "unseen")
                j += k
        rows.append(r)
    return rows


@pytest.fixture(scope="module")
def fitted():
    """Real fits: text columns only (tic-tac-toe), numeric columns at depth 3 (heart), depth 1 (breast)."""
    out = {}
    for name, depth in [("tic-tac-toe", 2), ("heart", 3), ("breast", 1)]:
        ds = load(name)
        for limit in (5, 15):  # on a busy machine building the model can eat 5 s (tic-tac-toe: 1.8 s, measured)
            try:  # one solver thread: the trees only need to be real fits, and two pytest workers share two cores
                res = fit(ds, make_spec(depth=depth, C=1), solver="highs", time_limit=limit, threads=1, test_size=0.2,
                          seed=0, verbose=False)
                break
            except TimeLimitTooShort:  # too short to build the model, or to read it
                if limit == 15:
                    raise
        out[name] = (res.tree, ds.X)
    return out


def check_outputs(tree, X, got, *, exact: bool) -> None:
    node = np.array([r["olctc_node"] for r in got])
    score = np.array([r["olctc_score"] for r in got], dtype=float)
    proba = np.array([r["olctc_proba"] for r in got], dtype=float)
    assert len(got) == len(X)
    np.testing.assert_array_equal(node, tree.apply(X))
    want = tree.decision_function(X)
    if exact:
        np.testing.assert_array_equal(score, want)
    else:  # PostgreSQL adds the literals as exact decimals where a column is not a double
        np.testing.assert_allclose(score, want, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(proba, tree.predict_proba(X)[:, 1], rtol=0, atol=1e-15)
    sure = np.abs(want) > 1e-9
    labels = np.array([r["olctc_label"] for r in got], dtype=object)
    expected = tree.predict(X)
    if isinstance(tree.classes[0], str):
        assert (labels[sure] == expected[sure]).all()
    else:
        assert (labels[sure].astype(float) == expected[sure].astype(float)).all()


@pytest.mark.parametrize("name", ["tic-tac-toe", "heart", "breast"])
def test_query_gives_the_trees_predictions(fitted, engine, name):
    tree, X = fitted[name]
    got = engine(tree, raw_rows(tree, X), to_sql(tree))
    check_outputs(tree, X, got, exact=engine.exact)


def test_query_keeps_the_input_columns_and_adds_four(fitted):
    tree, X = fitted["heart"]
    got = run_sqlite(tree, raw_rows(tree, X[:3]), to_sql(tree))
    names = list(got[0])
    assert names[:1 + len(tree.schema.columns)] == ["olctc_row"] + [c.name for c in tree.schema.columns]
    assert names[-4:] == ["olctc_node", "olctc_score", "olctc_proba", "olctc_label"]
    assert all(n.startswith("olctc_") for n in names[1 + len(tree.schema.columns):])


# ---------------------------------------------------------------- hostile names, NULL, extremes

HOSTILE = ['a"b', "it's", "--c", "select", "line\nbreak", "émoji 🌳", "x; DROP TABLE olctc_input; --", "*/"]


def _hostile_tree() -> Tree:
    cols = [Column(n, "numeric") for n in HOSTILE[:4]]
    cols.append(Column("city", "categorical", ("Rome", "it's", 'say "hi"', "-- not a comment", "")))
    cols += [Column(n, "numeric") for n in HOSTILE[4:]]
    schema = Schema(tuple(cols))
    p = schema.n_features
    rng = np.random.default_rng(3)
    W = rng.normal(size=(3, p)) * (rng.random((3, p)) < 0.7)
    return Tree(W, rng.normal(size=3) * 0.1, Scaler(rng.normal(size=p), rng.random(p) + 0.5), schema,
                ("it's no", 'yes "1"'))


def _hostile_rows(tree, n=60):
    rng = np.random.default_rng(4)
    cats = tree.schema.columns[4].categories
    return [[*rng.normal(size=4).tolist(), cats[i % len(cats)] if i % 7 else "unseen", *rng.normal(size=4).tolist()]
            for i in range(n)]


def _enc_row(tree, r) -> list[float]:
    x = []
    for c, v in zip(tree.schema.columns, r):
        if c.kind == "numeric":
            x.append(v)
        else:
            x += [1.0 if v == cat else 0.0 for cat in c.categories]
    return x


def test_hostile_names_categories_and_labels(engine):
    """Quotes, comment markers, keywords, a line break in names, categories and labels: each stays what it is
    (a quoted identifier, a literal), and an unseen category contributes nothing, as in the other exports."""
    tree = _hostile_tree()
    rows = _hostile_rows(tree)
    X = np.array([_enc_row(tree, r) for r in rows])
    got = engine(tree, rows, to_sql(tree))
    check_outputs(tree, X, got, exact=engine.exact)
    assert {r["olctc_label"] for r in got} <= {"it's no", 'yes "1"'}


def test_null_in_a_used_column_gives_null_outputs(engine):
    tree = _hostile_tree()
    rows = _hostile_rows(tree, 12)
    assert tree.W_raw[:, 0].any() and tree.W_raw[:, 4:9].any()  # both columns are used
    rows[1][0] = None          # a used numeric column
    rows[2][4] = None          # the text column
    X = np.array([_enc_row(tree, [0.0 if v is None else v for v in r]) for r in rows])
    got = engine(tree, rows, to_sql(tree))
    for i in (1, 2):
        assert [got[i][k] for k in OUTPUTS] == [None] * 4
    keep = [i for i in range(12) if i not in (1, 2)]
    check_outputs(tree, X[keep], [got[i] for i in keep], exact=engine.exact)


def test_null_in_a_column_no_node_uses_is_ignored():
    schema = Schema((Column("used", "numeric"), Column("ignored", "numeric")))
    tree = Tree(np.array([[2.0, 0.0]]), np.array([-1.0]), Scaler.identity(2), schema, (0, 1))
    got = run_sqlite(tree, [[1.0, None], [0.0, None]], to_sql(tree))
    assert [(r["olctc_node"], r["olctc_score"], r["olctc_label"]) for r in got] == [(0, 1.0, 1), (0, -1.0, 0)]
    assert '"ignored"' not in to_sql(tree).split("WITH", 1)[1]  # the query does not read it


def test_extreme_scores_give_0_and_1_without_an_error(engine):
    """|score| beyond what EXP takes: PostgreSQL raises on EXP's overflow and underflow, so the query
    gives 0 or 1 there (within 1e-304 of the sigmoid)."""
    schema = Schema((Column("x", "numeric"),))
    tree = Tree(np.array([[1.0]]), np.array([0.0]), Scaler.identity(1), schema, (0, 1))
    xs = [-1e6, -800.0, -EXP_LIMIT - 1.0, -EXP_LIMIT + 1.0, -30.0, 0.0, 30.0, EXP_LIMIT + 1.0, 1e6]
    got = engine(tree, [[x] for x in xs], to_sql(tree))
    proba = [r["olctc_proba"] for r in got]
    want = [1 / (1 + math.exp(-x)) if abs(x) <= EXP_LIMIT else float(x > 0) for x in xs]
    np.testing.assert_allclose(proba, want, rtol=1e-14, atol=1e-300)
    assert proba[0] == 0.0 and proba[-1] == 1.0 and proba[5] == 0.5


def test_nul_character_is_refused():
    schema = Schema((Column("a\x00b", "numeric"),))
    tree = Tree(np.array([[1.0]]), np.array([0.0]), Scaler.identity(1), schema, (0, 1))
    with pytest.raises(OlctcError, match=r"^the name of column 0, 'a\\x00b', holds a NUL character, which SQL"):
        to_sql(tree)
    schema = Schema((Column("c", "categorical", ("x\x00",)),))
    tree = Tree(np.array([[1.0]]), np.array([0.0]), Scaler.identity(1), schema, ("n", "p\x00"))
    with pytest.raises(OlctcError, match=r"^category 'x\\x00' of column 'c' holds a NUL character"):
        to_sql(tree)


def test_a_column_named_like_the_querys_own_is_refused():
    schema = Schema((Column("x", "numeric"), Column("OLCTC_Score", "numeric")))
    tree = Tree(np.array([[1.0, 1.0]]), np.array([0.0]), Scaler.identity(2), schema, (0, 1))
    with pytest.raises(OlctcError, match=r"^column 1 is named 'OLCTC_Score': the SQL query names its own columns"):
        to_sql(tree)


def test_names_differing_only_in_case_are_refused():
    # SQLite and DuckDB match column names ignoring case: both would read the one column the table can hold
    schema = Schema((Column("Age", "numeric"), Column("age", "numeric")))
    tree = Tree(np.array([[1.0, -1.0]]), np.array([0.0]), Scaler.identity(2), schema, (0, 1))
    with pytest.raises(OlctcError, match=r"^columns 'Age' and 'age' differ only in case, which SQLite and DuckDB"):
        to_sql(tree)


def test_lone_surrogate_is_refused():
    schema = Schema((Column("a\ud800", "numeric"),))
    tree = Tree(np.array([[1.0]]), np.array([0.0]), Scaler.identity(1), schema, (0, 1))
    with pytest.raises(OlctcError, match=r"^the name of column 0, 'a\\ud800', is not valid Unicode text .* an SQL query"):
        render(tree, "sql")


def test_mixed_label_types_are_both_text():
    schema = Schema((Column("x", "numeric"),))
    tree = Tree(np.array([[1.0]]), np.array([0.0]), Scaler.identity(1), schema, (0, "yes"))
    got = run_sqlite(tree, [[-1.0], [1.0]], to_sql(tree))
    assert [r["olctc_label"] for r in got] == ["0", "yes"]


@pytest.mark.parametrize("classes,labels", [
    ((0.5, 2 ** 53 + 1), ["0.5", "9007199254740993"]),  # a DOUBLE CASE rounded the int to 2**53
    ((-0.5, 2 ** 53), [-0.5, 2.0 ** 53]),  # exact as a double: numbers still
    ((0, 10 ** 30), ["0", str(10 ** 30)]),
])
def test_labels_a_double_cannot_hold_are_text(engine, classes, labels):
    schema = Schema((Column("x", "numeric"),))
    tree = Tree(np.array([[1.0]]), np.array([0.0]), Scaler.identity(1), schema, classes)
    got = [r["olctc_label"] for r in engine(tree, [[-1.0], [1.0]], to_sql(tree))]
    # psql prints numbers as text: they are numbers if they read back as the doubles they stand for
    assert (got if isinstance(labels[0], str) or engine.name != "postgres" else [float(g) for g in got]) == labels


# ---------------------------------------------------------------- the table the query reads

SCHEMA_SETUP = {"sqlite": ["ATTACH DATABASE ':memory:' AS \"sales\""], "duckdb": ['CREATE SCHEMA "sales"'],
                "postgres": ['DROP SCHEMA IF EXISTS "sales" CASCADE', 'CREATE SCHEMA "sales"']}


@pytest.mark.parametrize("data,table", [
    ("tic-tac-toe", "sales.customers"), ("tic-tac-toe", ("sales", 'it\'s "q1.data"')),
    ("tic-tac-toe", 'sales."it\'s ""q1.data"""'), ("breast", "sales.customers")])
def test_table_option_reads_the_named_table(fitted, engine, data, table):
    """A schema-qualified name, and a name holding a dot and both quotes given as its parts or quoted as SQL
    quotes it; an empty olctc_input beside it must not be what the query reads. Breast's numeric columns bring
    the join that tests them for text (olctc_numbers) between the named table and the guard row."""
    tree, X = fitted[data]
    query = to_sql(tree, table=table)
    assert "FROM olctc_input" not in query and query == render(tree, "sql", table=table).decode()
    setup = [*SCHEMA_SETUP[engine.name], _create(tree)]
    got = engine(tree, raw_rows(tree, X), query, setup, _qualified(table_parts(table)))
    check_outputs(tree, X, got, exact=engine.exact)


def test_table_option_default_is_olctc_input(fitted):
    tree, _ = fitted["breast"]
    assert to_sql(tree, table="olctc_input") == to_sql(tree) == to_sql(tree, table=["olctc_input"])
    assert "  FROM olctc_input\n    LEFT JOIN olctc_numbers ON " in to_sql(tree)


@pytest.mark.parametrize("table,message", [
    ("", "one to three non-empty parts"),
    ("a..b", "one to three non-empty parts"),
    ("a.b.c.d", "one to three non-empty parts"),
    ("sales.", "one to three non-empty parts"),
    ([], "one to three non-empty parts"),
    ("a\x00b", "NUL character"),
    ('a."b', 'table \'a."b\': the double quote at character 3 is not closed'),
    ('a"b.c', "a double quote inside the part 'a\"b': put the whole part in double quotes"),
    ('"a"b', "expected a dot after the quoted part ending at character 3, not 'b'"),
    ('"a".', "one to three non-empty parts"),
    ('"".b', "one to three non-empty parts"),
    ("a\ud800", "lone surrogate"),
    (3, "not int"),
    (["a", 3], "not list"),
])
def test_bad_table_names_are_refused(fitted, table, message):
    tree, _ = fitted["breast"]
    with pytest.raises(OlctcError, match=re.escape(message)):
        to_sql(tree, table=table)


def test_export_options_belong_to_their_format(fitted, tmp_path):
    tree, _ = fitted["breast"]
    with pytest.raises(OlctcError, match="export option 'table' applies to format sql only; format python takes none"):
        render(tree, "python", table="t")
    with pytest.raises(OlctcError, match="export option 'tabel' is unknown; format sql takes table"):
        export_tree(tree, "sql", tmp_path / "t.sql", tabel="t")
    assert not (tmp_path / "t.sql").exists()


# ---------------------------------------------------------------- the command line

def test_cli_export_sql_from_the_suffix_and_to_stdout(fitted, tmp_path, capsys):
    tree, X = fitted["tic-tac-toe"]
    export_tree(tree, "json", tmp_path / "t.json")
    code, out, err = cli_main(["export", tmp_path / "t.json", "-o", tmp_path / "t.sql"], capsys)
    assert code == 0, err
    text = (tmp_path / "t.sql").read_text()
    assert text == render(load_tree(tmp_path / "t.json"), "sql").decode() == to_sql(tree)
    code, out, err = cli_main(["export", tmp_path / "t.json", "--format", "sql"], capsys)
    assert code == 0 and out == text
    check_outputs(tree, X, run_sqlite(tree, raw_rows(tree, X), text), exact=True)


def test_cli_export_sql_table(fitted, tmp_path, capsys):
    tree, X = fitted["tic-tac-toe"]
    export_tree(tree, "json", tmp_path / "t.json")
    code, out, err = cli_main(["export", tmp_path / "t.json", "-o", tmp_path / "t.sql", "--table", "sales.customers"],
                              capsys)
    assert code == 0, err
    assert (tmp_path / "t.sql").read_text() == to_sql(tree, table="sales.customers")
    got = run_sqlite(tree, raw_rows(tree, X), (tmp_path / "t.sql").read_text(), SCHEMA_SETUP["sqlite"],
                     '"sales"."customers"')
    check_outputs(tree, X, got, exact=True)
    # a part holding a dot, in double quotes as SQL writes it
    code, out, err = cli_main(["export", tmp_path / "t.json", "--format", "sql", "--table", 'sales."q1.data"'],
                              capsys)
    assert code == 0 and out == to_sql(tree, table=["sales", "q1.data"]) and 'FROM "sales"."q1.data" ' in out


@pytest.mark.parametrize("args,message", [
    (["--format", "python", "--table", "t"], "--table names the table an SQL query reads: it applies to --format "
                                             "sql only, not python"),
    (["-o", "{out}/t.py", "--table", "t"], "applies to --format sql only, not python"),
    (["-o", "{out}/t.sql", "--table", "a..b"], "table 'a..b': expected a name of one to three non-empty parts"),
])
def test_cli_bad_table_is_refused(fitted, tmp_path, capsys, args, message):
    tree, _ = fitted["breast"]
    export_tree(tree, "json", tmp_path / "t.json")
    code, out, err = cli_main(["export", tmp_path / "t.json", *[a.format(out=tmp_path) for a in args]], capsys)
    assert code == 2 and message in err and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.json"]
