"""Tree -> one SQL query that scores the rows of a table in the database (SQLite, DuckDB, PostgreSQL, ...).

The query reads a table or view named ``olctc_input`` (or the one ``table`` names: the query then calls it
``olctc_input`` inside) whose columns carry the tree's input column names, and returns every input column
plus ``olctc_node`` (the last-layer node reached), ``olctc_score`` (its log-odds of the positive class), ``olctc_proba``
(P(positive class)) and ``olctc_label``; between them come its working columns ``olctc_f<j>`` (one per
feature), ``olctc_ok`` (where the tree reads a numeric column: 0, or NULL where one holds text that is not a
number) and ``olctc_s<t>`` (one per node), which standard SQL cannot leave out of ``SELECT *``. All are named
``olctc_``, so no input column may be: a tree's column is refused here, and a table holding a column of one of
those names (a table scored before) makes the query fail with the database's "ambiguous column" error naming
it (the ``olctc_guard`` row), where the table's column would otherwise have been read in place of the query's.

Only standard SQL: common table expressions, ``CASE``, ``CAST``, arithmetic and ``EXP``, and one
``SELECT`` without ``FROM`` (the guard row; Oracle before 23c would want ``FROM DUAL``). Safety rule: a
user-controlled string (column, category, class label) appears only as a quoted identifier ("" doubled)
or string literal ('' doubled), or in a comment after ``_names.comment`` (no line break can end it).
Input columns are read as ``olctc_input."name"``: SQLite takes an unqualified double-quoted name that
matches no column for a string, which would score a renamed column as 0.

Where the other exports raise, the query gives NULL in all four outputs: NULL, NaN or an infinity in a column the
tree uses (or text that is not a number: SQLite, ``_is_number``, tested once per row in a join's condition), or a
score that is not a finite number (an overflow) at a node on the row's path, as the other exports (PostgreSQL
raises 'value out of range' on the overflowing product itself). A database may copy a column's expression into
every place that reads it (PostgreSQL and SQLite inline the CTEs), so each score is read as few times as possible.
Numbers are doubles everywhere (``CAST(... AS DOUBLE PRECISION)``: PostgreSQL reads ``1.0e0`` as an exact NUMERIC,
in which a tree of text columns only was computed). PostgreSQL's JIT then spends seconds compiling those
expressions: the query's header says to turn it off (``benchmarks/sql_scoring.py``). Weights are written with 18
significant digits, which SQLite's parser reads exactly (it misreads some shortest forms by an ulp), and a node's
terms are added in the Python export's order, so a database computing in IEEE doubles (SQLite, DuckDB) gives the
Python module's scores to the last bit (given the same input doubles: SQLite's ``.import`` of a CSV file misreads
some decimal texts by an ulp, and a row on a split can go the other way); a node with more than ``CHUNK``
nonzero weights is summed in runs of ``CHUNK`` (databases limit an expression's depth to about 1000)."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from olctc.errors import OlctcError
from olctc.export._names import check_text, comment, invalid_text, labels_as_text

TABLE = "olctc_input"
#: The query's outputs, after the input's columns and its working columns.
OUTPUTS = ("olctc_node", "olctc_score", "olctc_proba", "olctc_label")
#: |score| above this: EXP(-score) could overflow (or underflow: PostgreSQL raises on both), and
#: sigmoid(score) is within 1e-304 of 0 or 1.
EXP_LIMIT = 700
#: Terms per run of a long sum (SQLite and DuckDB refuse expressions deeper than 1000).
CHUNK = 500
#: Helper columns the query may add (PostgreSQL takes at most 1664 columns in a query, SQLite 2000).
MAX_HELPERS = 1500


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _number(v: float) -> str:
    # An exponent makes the literal a double in SQLite, DuckDB and MySQL (without one, DuckDB and MySQL read
    # a fixed-point DECIMAL); PostgreSQL reads either as an exact numeric. 18 digits: see the module docstring.
    return "%.17e" % float(v)


def _split_name(name: str) -> list[str]:
    """``sales.customers`` -> ``["sales", "customers"]``; a part in double quotes may hold dots, with ``""`` for a
    quote, as SQL writes it: ``sales."q1.data"`` -> ``["sales", "q1.data"]``."""
    if '"' not in name:
        return name.split(".")
    parts: list[str] = []
    i = 0
    while True:
        if name.startswith('"', i):
            j, buf = i + 1, []
            while True:
                k = name.find('"', j)
                if k < 0:
                    raise OlctcError(f"table {name!r}: the double quote at character {i + 1} is not closed (a quote "
                                     'inside a quoted part is written "")')
                buf.append(name[j:k])
                if not name.startswith('"', k + 1):
                    break
                buf.append('"')
                j = k + 2
            parts.append("".join(buf))
            i = k + 1
        else:
            end = name.find(".", i)
            end = len(name) if end < 0 else end
            if '"' in name[i:end]:
                raise OlctcError(f"table {name!r}: a double quote inside the part {name[i:end]!r}: put the whole part "
                                 'in double quotes, with "" for each quote in it')
            parts.append(name[i:end])
            i = end
        if i == len(name):
            return parts
        if name[i] != ".":
            raise OlctcError(f"table {name!r}: expected a dot after the quoted part ending at character {i}, not "
                             f"{name[i]!r}")
        i += 1
        if i == len(name):
            return [*parts, ""]


def table_parts(table: str | Sequence[str]) -> list[str]:
    """The parts of a table's name: ``"sales.customers"`` is ``["sales", "customers"]``, and a part in double
    quotes may hold dots (``'sales."q1.data"'``, ``""`` for a quote in it, as SQL writes it); a sequence is taken
    as the parts themselves. At most three (catalog, schema, table)."""
    from olctc.data import is_unicode

    if isinstance(table, str):
        parts = _split_name(table)
    elif isinstance(table, Sequence) and all(isinstance(s, str) for s in table):
        parts = list(table)
    else:
        raise OlctcError(f"table must be a name such as 'sales.customers' or a sequence of its parts, not "
                         f"{type(table).__name__}")
    if not 1 <= len(parts) <= 3 or not all(parts):
        raise OlctcError(f"table {table!r}: expected a name of one to three non-empty parts separated by dots "
                         "(table, schema.table or catalog.schema.table)")
    for part in parts:
        if "\x00" in part or not is_unicode(part):
            raise OlctcError(f"table {table!r} holds a NUL character or a lone surrogate, which SQL cannot store")
    return parts


def _double(literal: str) -> str:
    return f"CAST({literal} AS DOUBLE PRECISION)"


ONE, ZERO = _double("1"), _double("0")


def _label(v: Any, as_text: bool) -> str:
    if as_text:
        return _text(str(v))
    # a float label as a double (DuckDB reads -0.5 as a DECIMAL(2,1), PostgreSQL as a NUMERIC); an int exactly
    return _double(_number(v)) if isinstance(v, float) else repr(v)


def _check_names(tree) -> None:
    """Names SQL cannot hold, or cannot tell apart from another column's or the query's own."""
    check_text(tree, "an SQL query")
    bad = invalid_text(tree, lambda s: "\x00" not in s)  # no identifier or literal holds NUL (PostgreSQL)
    if bad is not None:
        raise OlctcError(f"{bad} holds a NUL character, which SQL cannot store: rename it")
    # A string literal holding a line break changes with the file's line endings (an editor or git writing CRLF),
    # and the query would then silently compare another text: a category no row matches, another label. (A column
    # name changed so fails loudly: no such column.)
    bad = invalid_text(tree, lambda s: "\n" not in s and "\r" not in s, names=False)
    if bad is not None:
        raise OlctcError(f"{bad} holds a line break, which the query would compare as written: a change of the "
                         "file's line endings (CRLF, by an editor or git) would silently change it; rename it (the "
                         "Python, ONNX and JSON exports take it)")
    seen: dict[str, tuple[str, str]] = {}
    for k, col in enumerate(tree.schema.columns):
        if col.name.lower().startswith("olctc_"):
            raise OlctcError(f"column {k} is named {col.name!r}: the SQL query names its own columns olctc_..., "
                             "so an input column may not be; rename it")
        twin = seen.get(col.name.lower())
        if twin is not None and twin[0] == col.name and twin[1] == col.kind == "numeric":
            continue  # two numeric columns of one name are one input (as the loader says): read it twice
        if twin is not None and twin[0] == col.name:  # one table column cannot be read as two kinds of input
            kinds = f"a {twin[1]} and a {col.kind} one" if twin[1] != col.kind else f"both {col.kind}"
            raise OlctcError(f"two columns are named {col.name!r} ({kinds}): a table has one column of a name, "
                             "read as one kind of input; rename one")
        if twin is not None:  # SQLite and DuckDB match column names ignoring case
            raise OlctcError(f"columns {twin[0]!r} and {col.name!r} differ only in case, which "
                             "SQLite and DuckDB do not tell apart: rename one")
        seen[col.name.lower()] = (col.name, col.kind)


def _helpers(tree, used: Any) -> tuple[list[list[str]], list[str]]:
    """One column per feature the tree uses (the number itself, or 1/0 for a category, NULL for NULL), and
    the test, one per numeric column the tree reads, that its value is a number (``_is_number``)."""
    out: list[list[str]] = []
    numbers: list[str] = []
    j = 0
    for col in tree.schema.columns:
        name = f"{TABLE}.{_ident(col.name)}"
        if col.kind == "numeric":
            if used[j]:  # 1.0 * x is x exactly, as a number even where the column holds text (SQLite)
                out.append([f"    -- {comment(col.name)}", f"    1.0e0 * {name} AS olctc_f{j}"])
                numbers.append(_is_number(name))
            j += 1
            continue
        for cat in col.categories:
            if used[j]:
                out.append([f"    -- {comment(col.name)} = {comment(cat)}",
                            f"    CASE WHEN {name} IS NULL THEN NULL WHEN {name} = {_text(cat)} THEN {ONE} "
                            f"ELSE {ZERO} END AS olctc_f{j}"])
            j += 1
    return out, numbers


def _is_number(name: str) -> str:
    """True where the column's value is a number, NULL where SQLite's column holds text that is not one.

    SQLite keeps text a column cannot convert as text (in a REAL column too; ``.import --csv`` makes every
    column TEXT), and arithmetic reads its longest numeric prefix: '4O', 'abc' and '' scored as 4, 0 and 0.
    A comparison with a REAL (then a NUMERIC) cast converts the other side only if the whole text is a number,
    so the value equals its cast then and only then; NUMERIC keeps an integer beyond 2^53 exact, which SQLite
    compares exactly with a double. In typed databases (PostgreSQL, DuckDB) the first test holds for every
    number (NaN = NaN there; NaN and infinities are nulled later), so the NUMERIC cast, which PostgreSQL before
    14 refuses for an infinity, is only reached by NULL."""
    return (f"CASE WHEN CAST({name} AS DOUBLE PRECISION) = +{name} THEN 1 WHEN CAST({name} AS NUMERIC) = +{name} "
            "THEN 1 END = 1")


def _select(items: list[list[str]], star: str = "*") -> list[str]:
    """A SELECT list: ``star`` and each item (its lines), commas between."""
    out = ["  SELECT", f"    {star}"]
    for lines in items:
        out[-1] += ","
        out += lines
    return out


def _balanced(items: list[str], op: str) -> str:
    """``a op b op c ...`` as a balanced tree of parentheses: its depth grows as log2 of its length."""
    if len(items) == 1:
        return items[0]
    mid = len(items) // 2
    return f"({_balanced(items[:mid], op)}) {op} ({_balanced(items[mid:], op)})"


def _score(t: int, W: Any, b: Any, p: int) -> list[str]:
    """Node t's score, one term per line: (w x + w x ...) + b, summed in the Python export's order (in runs
    of CHUNK terms beyond CHUNK)."""
    terms: list[tuple[bool, str]] = []
    for j in range(p):
        w = float(W[t, j])
        if w != 0.0:  # 0 * x adds exactly 0: skipping it keeps the sum the Python export's, bit for bit
            terms.append((math.copysign(1.0, w) < 0, f"{_number(abs(w))} * olctc_f{j}"))
    bias = float(b[t])
    if not terms:
        return [f"    {_double(_number(bias))} AS olctc_s{t}"]
    lines = ["    ("]
    for k in range(0, len(terms), CHUNK):
        run = terms[k:k + CHUNK]
        if len(terms) > CHUNK:
            lines.append(f"      {'+ ' if k else ''}(")
        pad = "        " if len(terms) > CHUNK else "      "
        for i, (neg, term) in enumerate(run):
            # a - b is a + (-b) exactly, in IEEE doubles as in exact decimals
            sign = ("- " if neg else "+ ") if i else ("-" if neg else "")
            lines.append(f"{pad}{sign}{term}")
        if len(terms) > CHUNK:
            lines.append("      )")
    sign = "-" if math.copysign(1.0, bias) < 0 else "+"
    return lines + [f"    ) {sign} {_number(abs(bias))} AS olctc_s{t}"]


def _route(t: int, first_leaf: int, indent: int) -> list[str]:
    """The last-layer node reached from t, NULL when a score on the way is not finite (each score read twice:
    a database may copy a column's expression into every place that reads it)."""
    pad = "  " * indent
    # 0 * s is 0 for a finite s, NaN for NaN or an infinity (NaN = 0 is false), NULL for NULL (SQLite's NaN)
    if t >= first_leaf:
        return [f"{pad}CASE WHEN 0 * olctc_s{t} = 0 THEN {t} END"]
    # right iff finite and > 0, else left iff finite (NaN, ordered above every number, and +inf fail the first
    # test's second half, -inf the second test). One CASE level per layer: SQLite's parser takes about 18 nested.
    # No bound near the largest double: SQLite parsed -1.7976931348623157e308 as -inf after another library
    # of the process had set the x87 FPU to double precision (a test's order in a CI run; Xpress does: olctc.fpenv)
    return ([f"{pad}CASE WHEN olctc_s{t} > 0 AND 0 * olctc_s{t} = 0 THEN"]
            + _route(2 * t + 2, first_leaf, indent + 1) + [f"{pad}WHEN 0 * olctc_s{t} = 0 THEN"]
            + _route(2 * t + 1, first_leaf, indent + 1) + [f"{pad}END"])


def to_sql(tree, table: str | Sequence[str] = TABLE) -> str:
    """The text of a query scoring the rows of ``table`` with ``tree`` (see the module docstring).

    ``table`` is quoted part by part, so it must match the table's name exactly, case included where the
    database tells case apart in quoted names (PostgreSQL stores an unquoted ``Customers`` as ``customers``).
    """
    from olctc import __version__

    parts = table_parts(table)
    _check_names(tree)
    W, b = tree.W_raw, tree.b_raw
    used = (W != 0).any(axis=0)
    helpers, numbers = _helpers(tree, used)
    n_helpers = len(helpers) + bool(numbers) + tree.n_nodes + 4
    if n_helpers + len(tree.schema.columns) > MAX_HELPERS:
        raise OlctcError(f"the SQL query would hold {n_helpers} columns of its own besides the "
                         f"{len(tree.schema.columns)} input columns (one per node, {tree.n_nodes}, and per feature "
                         f"the tree uses), more than databases take in one query (PostgreSQL 1664, SQLite 2000): "
                         "export a shallower tree, or one on fewer features")
    first_leaf = int(tree.topology.last[0])
    # an int beyond int64 as a bare literal is read as a REAL (1e+30 for 10**30); beside a float label the
    # CASE's type is DOUBLE, which rounded 2**53 + 1 to 2**53
    as_text = labels_as_text(tree.classes)
    neg, pos = (_label(c, as_text) for c in tree.classes)

    if parts == [TABLE]:
        source = TABLE
        head = [f"-- Scores the rows of {TABLE} (rename it below, or CREATE VIEW {TABLE} AS SELECT ... FROM your",
                "-- table); its columns, by name (numeric columns hold numbers, text columns the categories):"]
    else:  # the alias keeps every column read as olctc_input."name" (no AS: Oracle takes none for a table)
        source = ".".join(_ident(s) for s in parts) + " " + TABLE
        head = [f"-- Scores the rows of {comment('.'.join(parts))}; its columns, by name (numeric columns hold",
                "-- numbers, text columns the categories):"]
    out = [f"-- Generated by olctc {__version__}: an oblique classification tree of depth {tree.depth}.",
           "-- Regenerate with `olctc export TREE.json --format sql` rather than edit.", *head]
    for col in tree.schema.columns:
        kind = "number" if col.kind == "numeric" else f"text, {len(col.categories)} categories"
        out.append(f"--   {comment(col.name)} ({kind})")
    out += ["-- Output: every input column, the query's working columns olctc_f0, ... (one per feature),",
            "-- olctc_ok (NULL where a numeric column holds text) and olctc_s0, ... (one per node), which a",
            "-- SELECT naming its columns leaves out, then olctc_node (the",
            f"-- last-layer node reached, heap order), olctc_score (log-odds of {comment(str(tree.classes[1]))}), "
            "olctc_proba (its",
            "-- probability) and olctc_label.",
            "-- NULL in all four where the tree cannot score the row: NULL, NaN, an infinity or text that is no",
            "-- number in a column it uses, or a score that overflows on the row's path (PostgreSQL raises 'value",
            "-- out of range').",
            "-- A table already holding a column of one of these names (a scored table) is refused: 'ambiguous",
            "-- column'. Select its own columns into a view and score that.",
            "-- PostgreSQL: run SET jit = off; first. Its JIT compiles the query's long expressions for seconds",
            "-- (a depth-3 tree on 300 features, 10,000 rows: 6.4 s with it, 0.6 s without).",
            "WITH olctc_guard AS ("]
    features = [f"olctc_f{j}" for j in np.flatnonzero(used)]
    ok = ["olctc_ok"] if numbers else []
    ours = [*features, *ok, *(f"olctc_s{t}" for t in range(tree.n_nodes)), *OUTPUTS]
    # a name of ours that the table holds too is an ambiguous reference in the WHERE below: an error naming it
    zeros = [f"0 AS {name}" for name in ours]
    out += ["  SELECT", *(f"    {', '.join(zeros[k:k + 6])}{',' if k + 6 < len(zeros) else ''}"
                          for k in range(0, len(zeros), 6))]
    join = []
    if numbers:
        # The join's condition is tested once per row, and olctc_ok is then a column: the same test in an
        # expression would be copied into every score reading it (PostgreSQL and SQLite inline the CTEs), and
        # PostgreSQL's JIT compiled the copies for minutes (benchmarks/sql_scoring.py, docs/BENCHMARKS.md).
        out += ["), olctc_numbers AS (", "  SELECT 0 AS olctc_zero"]
        helpers.append(["    -- 0 where every numeric column read holds a number (else NULL: text, SQLite)",
                        "    olctc_numbers.olctc_zero AS olctc_ok"])
        join = [f"    LEFT JOIN olctc_numbers ON {_balanced(numbers, 'AND')}"]
    out += ["), olctc_x AS ("]
    out += _select(helpers, f"{TABLE}.*")
    out += [f"  FROM {source}", *join, "    , olctc_guard", f"  WHERE {_balanced(ours, '+')} = 0",
            "), olctc_s AS ("]
    out += _select([_score(t, W, b, tree.n_features) for t in range(tree.n_nodes)])
    out += ["  FROM olctc_x", "), olctc_n AS ("]
    route = _route(0, first_leaf, 3)
    if features:  # 0 * x is 0 for a finite x: one sum tests every column the tree uses at once
        zero = _balanced([f"0 * {name}" for name in features] + ok, "+")
        route = [f"    CASE WHEN {zero} = 0 THEN", *route, "    END"]
    out += _select([[*route[:-1], route[-1] + " AS olctc_node"]])
    out += ["  FROM olctc_s", "), olctc_z AS ("]
    out += _select([["    CASE olctc_node",
                     *[f"      WHEN {t} THEN olctc_s{t}" for t in range(first_leaf, tree.n_nodes)],
                     "    END AS olctc_score"]])
    out += ["  FROM olctc_n",
            ")",
            "SELECT",
            "  *,",
            # NULL compares as unknown and EXP(NULL) is NULL: no IS NULL test needed (each read of the score
            # may be a copy of its whole expression)
            f"  CASE WHEN olctc_score > {EXP_LIMIT} THEN {ONE} WHEN olctc_score < -{EXP_LIMIT} THEN {ZERO}",
            "       ELSE 1.0e0 / (1.0e0 + EXP(-olctc_score)) END AS olctc_proba,",
            f"  CASE WHEN olctc_score > 0 THEN {pos} WHEN olctc_score <= 0 THEN {neg} END AS olctc_label",
            "FROM olctc_z;"]
    return "\n".join(out) + "\n"


def export(tree, table: str | Sequence[str] = TABLE) -> bytes:
    """The query as UTF-8 bytes (registry entry)."""
    return to_sql(tree, table).encode("utf-8")
