"""Tree -> one SQL query that scores the rows of a table in the database (SQLite, DuckDB, PostgreSQL, ...).

The query reads a table or view named ``olctc_input`` (rename it in the query, or define that view) whose
columns carry the tree's input column names, and returns every input column plus ``olctc_node`` (the
last-layer node reached), ``olctc_score`` (its log-odds of the positive class), ``olctc_proba``
(P(positive class)) and ``olctc_label``; its helper columns are named ``olctc_`` too, so no input
column may be.

Only standard SQL: common table expressions, ``CASE``, arithmetic and ``EXP``. Safety rule: a
user-controlled string (column, category, class label) appears only as a quoted identifier ("" doubled)
or string literal ('' doubled), or in a comment after ``_names.comment`` (no line break can end it).
Weights are ``repr`` floats, added in the order of the Python export, so a database computing in IEEE
doubles (SQLite, DuckDB) gives the Python module's scores to the last bit.

A row holding NULL in any column the tree uses gets NULL in every output column, where the other
exports raise on a missing value.
"""
from __future__ import annotations

import math
from typing import Any

from olctc.errors import OlctcError
from olctc.export._names import check_text, comment

TABLE = "olctc_input"
#: |score| above this: EXP(-score) could overflow (or underflow: PostgreSQL raises on both), and
#: sigmoid(score) is within 1e-304 of 0 or 1.
EXP_LIMIT = 700


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _text(value: str) -> str:
    return "'" + value.replace("'", "''") + "'"


def _number(v: float) -> str:
    # With an exponent a literal is a double in SQLite, DuckDB and MySQL (without one, DuckDB and MySQL
    # read a fixed-point DECIMAL); PostgreSQL reads either as an exact numeric.
    r = repr(float(v))
    return r if "e" in r else r + "e0"


def _label(v: Any, as_text: bool) -> str:
    return _text(str(v)) if as_text else repr(v)


def _check_names(tree) -> None:
    """No SQL identifier or literal can hold a NUL character (PostgreSQL refuses it outright), and an input
    column named like the query's own columns would be read in their place (SQLite takes the first of two)."""
    for k, col in enumerate(tree.schema.columns):
        if col.name.lower().startswith("olctc_"):
            raise OlctcError(f"column {k} is named {col.name!r}: the SQL query names its own columns olctc_..., "
                             "so an input column may not be; rename it")
        if "\x00" in col.name:
            raise OlctcError(f"the name of column {k}, {col.name!r}, holds a NUL character, which SQL cannot "
                             "store: rename the column")
        for cat in col.categories:
            if "\x00" in cat:
                raise OlctcError(f"category {cat!r} of column {col.name!r} holds a NUL character, which SQL "
                                 "cannot store")
    for what, c in zip(("negative", "positive"), tree.classes):
        if isinstance(c, str) and "\x00" in c:
            raise OlctcError(f"the {what} class {c!r} holds a NUL character, which SQL cannot store")


def _features(tree, used: Any) -> tuple[list[str], list[str], list[str]]:
    """(SQL term of each encoded feature, the one-hot helper columns, the input columns the tree uses)."""
    terms: list[str] = []
    helpers: list[str] = []
    needed: list[str] = []
    j = 0
    for col in tree.schema.columns:
        name = _ident(col.name)
        if col.kind == "numeric":
            terms.append(name)
            if used[j]:
                needed.append(name)
            j += 1
            continue
        if used[j:j + len(col.categories)].any():
            needed.append(name)
        for cat in col.categories:
            terms.append(f"olctc_f{j}")
            if used[j]:
                helpers.append(f"    CASE WHEN {name} = {_text(cat)} THEN 1.0e0 ELSE 0.0e0 END AS olctc_f{j},"
                               f"  -- {comment(col.name)} = {comment(cat)}")
            j += 1
    return terms, helpers, needed


def _score(tree, t: int, W: Any, b: Any, terms: list[str]) -> list[str]:
    """Node t's score, one term per line: (w x + w x ...) + b, summed in the Python export's order."""
    parts: list[str] = []
    for j in range(tree.n_features):
        w = float(W[t, j])
        if w != 0.0:  # 0 * x adds exactly 0: skipping it keeps the sum the Python export's, bit for bit
            # a - b is a + (-b) exactly, in IEEE doubles as in exact decimals
            neg = math.copysign(1.0, w) < 0
            sign = ("- " if neg else "+ ") if parts else ("-" if neg else "")
            parts.append(f"{sign}{_number(abs(w))} * {terms[j]}")
    if not parts:
        return [f"    {_number(b[t])} AS olctc_s{t}"]
    bias = float(b[t])
    return (["    ("] + [f"      {p}" for p in parts]
            + [f"    ) {'-' if math.copysign(1.0, bias) < 0 else '+'} {_number(abs(bias))} AS olctc_s{t}"])


def _route(tree, t: int, indent: int) -> list[str]:
    pad = "  " * indent
    if t >= 2 ** (tree.depth - 1) - 1:
        return [f"{pad}{t}"]
    return ([f"{pad}CASE WHEN olctc_s{t} <= 0 THEN"] + _route(tree, 2 * t + 1, indent + 1)
            + [f"{pad}ELSE"] + _route(tree, 2 * t + 2, indent + 1) + [f"{pad}END"])


def to_sql(tree) -> str:
    """The text of a query scoring the rows of ``olctc_input`` with ``tree`` (see the module docstring)."""
    from olctc import __version__

    check_text(tree, "an SQL query")
    _check_names(tree)
    W, b = tree.W_raw, tree.b_raw
    used = (W != 0).any(axis=0)
    terms, helpers, needed = _features(tree, used)
    first_leaf = 2 ** (tree.depth - 1) - 1
    as_text = any(isinstance(c, str) for c in tree.classes)
    neg, pos = (_label(c, as_text) for c in tree.classes)

    out = [f"-- Generated by olctc {__version__}: an oblique classification tree of depth {tree.depth}.",
           "-- Regenerate with `olctc export TREE.json --format sql` rather than edit.",
           f"-- Scores the rows of {TABLE} (rename it below, or CREATE VIEW {TABLE} AS SELECT ... FROM your",
           "-- table); its columns, by name (numeric columns hold numbers, text columns the categories):"]
    for col in tree.schema.columns:
        kind = "number" if col.kind == "numeric" else f"text, {len(col.categories)} categories"
        out.append(f"--   {comment(col.name)} ({kind})")
    out += ["-- Output: every input column, and olctc_node (the last-layer node reached, heap order),",
            f"-- olctc_score (log-odds of {comment(str(tree.classes[1]))}), olctc_proba (its probability) and "
            "olctc_label.",
            "-- A row with NULL in a column the tree uses gets NULL outputs.",
            "WITH olctc_x AS (",
            "  SELECT",
            "    *,"]
    out += helpers
    missing = [f"{n} IS NULL" for n in needed] or ["1 = 0"]
    out += ["    CASE WHEN " + missing[0]] + [f"      OR {m}" for m in missing[1:]]
    out += ["    THEN 1 ELSE 0 END AS olctc_missing",
            f"  FROM {TABLE}",
            "), olctc_s AS (",
            "  SELECT",
            "    *"]
    for t in range(tree.n_nodes):
        out[-1] += ","
        out += _score(tree, t, W, b, terms)
    out += ["  FROM olctc_x",
            "), olctc_n AS (",
            "  SELECT",
            "    *,",
            "    CASE WHEN olctc_missing = 1 THEN NULL ELSE"]
    out += _route(tree, 0, 3)
    out += ["    END AS olctc_node",
            "  FROM olctc_s",
            "), olctc_z AS (",
            "  SELECT",
            "    *,",
            "    CASE olctc_node"]
    out += [f"      WHEN {t} THEN olctc_s{t}" for t in range(first_leaf, tree.n_nodes)]
    out += ["    END AS olctc_score",
            "  FROM olctc_n",
            ")",
            "SELECT",
            "  *,",
            "  CASE WHEN olctc_score IS NULL THEN NULL",
            f"       WHEN olctc_score > {EXP_LIMIT} THEN 1.0e0 WHEN olctc_score < -{EXP_LIMIT} THEN 0.0e0",
            "       ELSE 1.0e0 / (1.0e0 + EXP(-olctc_score)) END AS olctc_proba,",
            f"  CASE WHEN olctc_score IS NULL THEN NULL WHEN olctc_score > 0 THEN {pos} ELSE {neg} END "
            "AS olctc_label",
            "FROM olctc_z;"]
    return "\n".join(out) + "\n"


def export(tree) -> bytes:
    """The query as UTF-8 bytes (registry entry)."""
    return to_sql(tree).encode("utf-8")
