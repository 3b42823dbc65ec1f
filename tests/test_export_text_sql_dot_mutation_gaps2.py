"""Text, SQL and DOT exports and the name helpers: behaviour a third mutation pass (QA 2026-12-07, over
export/text.py, sql.py, dot.py and _names.py) could change without any other test noticing. The trees are written by
hand, so every expected number is computed here; the query is run for real (SQLite, PostgreSQL for the column
types), and the DOT labels are read back as Graphviz reads them."""
from __future__ import annotations

import sqlite3

import numpy as np
import pytest

from olctc.data import Column, Scaler, Schema
from olctc.errors import OlctcError
from olctc.export import render
from olctc.export.dot import to_dot
from olctc.export.sql import table_parts, to_sql
from olctc.export.text import to_text
from olctc.tree import Tree
from test_export_sql import postgres  # noqa: F401  (fixture: a PostgreSQL server of its own)
from test_export_text_sql_mutation_gaps import _dot_labels, _tree6


def _counted(node_n: list[int], node_pos: list[int], classes: tuple = ("neg", "pos")) -> Tree:
    """Depth 2 on two numeric features, with the given training counts and no node_std (a file may give nodes.n
    and nodes.pos without nodes.std)."""
    W = np.array([[1.0, 0.0], [0.0, 2.0], [1.0, 1.0]])
    return Tree(W, np.zeros(3), Scaler.identity(2), Schema((Column("x0", "numeric"), Column("x1", "numeric"))),
                classes, node_n=np.array(node_n), node_pos=np.array(node_pos))


# ---------------------------------------------------------------- shares of the training points

def test_counts_without_node_std_rank_by_standardised_weight():
    # mutant: the DOT key chosen by node_n in place of node_std: counts alone (no std) were labelled "r" (influence)
    # while the ranking was by standardised weight; the text export says std_weight there too
    tree = _counted([6, 4, 2], [2, 1, 1])
    assert _dot_labels(to_dot(tree))["n2"][2:4] == ["w_std=+1 w=1 x0", "w_std=+1 w=1 x1"]
    assert "|     score = 0 + sum of w * feature over 2 feature(s); top by |std_weight|:" in to_text(tree).splitlines()


def test_positive_class_named_in_a_share_is_cut_to_20_characters():
    # mutant: the class name in the share cut at 40 characters (the header's limit) instead of 20
    long = "p" * 30
    tree = _counted([6, 4, 0], [2, 1, 0], classes=("n", long))
    assert f"node 0 (split)  [n=6 (100.0%), class {'p' * 19}…: 33.3%]" in to_text(tree).splitlines()
    assert f"olctc tree: depth 2, 2 features, classes n / {long}" in to_text(tree).splitlines()


# ---------------------------------------------------------------- text: digits, constant leaves, registry

def test_text_decimals_apply_to_weights_intercepts_and_importances():
    # mutants: _fmt ignoring ``decimals`` (always 4); the importance shares written to 4 digits whatever it says
    tree = _tree6(stats=True)
    lines = to_text(tree, decimals=2).splitlines()
    assert "  score = 6.9 + sum of w * feature over 5 feature(s); top by |influence|:" in lines
    k = lines.index("feature importances (each feature's share of the tree, summing to 1):")
    names = tree.feature_names
    assert lines[k + 1:] == [f"  {names[j]}: {s:.2g}" for j, s in tree.ranked_importances()]
    assert lines[k + 1] == "  x4: 0.38"


def test_text_constant_leaf_of_score_zero_is_the_negative_class_and_of_minus_800_has_p_zero():
    # mutant: P computed as 1 / (1 + exp(-score)), which overflows (OverflowError) at -800, where predict_proba's
    # own formula gives 0; a constant score of 0 is the negative class (left if score <= 0), as predict says
    tree = Tree.from_arrays([[1.0], [0.0], [0.0]], [0.0, 0.0, -800.0], classes=("neg", "pos"))
    assert tree.predict(np.array([[-1.0], [1.0]])).tolist() == ["neg", "neg"]
    lines = to_text(tree).splitlines()
    assert "|   |--- every point: class neg (P(pos) = 0.5)" in lines
    assert "|   |--- every point: class neg (P(pos) = 0)" in lines


def test_registry_text_and_dot_are_the_default_exports_ending_in_one_newline():
    # mutants: the registry entries writing other digits (text) or another top (DOT, node 0 has five features)
    # than the functions' defaults; the text's final newline dropped
    tree = _tree6(stats=True)
    assert render(tree, "text") == to_text(tree).encode("utf-8")
    assert render(tree, "dot") == to_dot(tree).encode("utf-8")
    assert to_text(tree).endswith("\n") and not to_text(tree).endswith("\n\n")


# ---------------------------------------------------------------- names shown in text and DOT

def test_unprintable_and_backslash_names_read_apart_in_text_and_dot():
    # a name holding a line break and one holding a backslash and an "n" must read differently in both exports
    # (DOT: the backslash doubled, the line break spelled out as the text export does; mutant: DOT without
    # printable() on the name, the defect fixed below)
    names = ["a\nb", "a\\nb", "f" * 40]
    tree = Tree.from_arrays([[3.0, 2.0, 1.0]], [0.0], feature_names=names)
    lines = to_text(tree).splitlines()
    assert "    'a\\nb': w=3  std_weight=3" in lines and "    a\\nb: w=2  std_weight=2" in lines
    assert _dot_labels(to_dot(tree))["n0"][1:4] == ["w_std=+3 w=3 'a\\nb'", "w_std=+2 w=2 a\\nb",
                                                    f"w_std=+1 w=1 {'f' * 40}"]


# ---------------------------------------------------------------- SQL: header, table name, column types

def test_sql_header_names_the_default_table_categories_and_positive_class():
    # mutants: the count of a text column's categories left out of the header, the log-odds said to be of the
    # negative class
    schema = Schema((Column("u", "numeric"), Column("c", "categorical", ("a", "b", "c"))))
    tree = Tree.from_arrays([[1.0, 0.0, 2.0, 0.0]], [0.0], schema=schema, classes=("neg", "pos"))
    lines = to_sql(tree).splitlines()
    assert lines[2] == ("-- Scores the rows of olctc_input (rename it below, or CREATE VIEW olctc_input AS SELECT "
                        "... FROM your")
    assert "--   'u' (number)" in lines and "--   'c' (text, 3 categories)" in lines
    assert "-- last-layer node reached, heap order), olctc_score (log-odds of 'pos'), olctc_proba (its" in lines


# ---------------------------------------------------------------- SQL: the messages of refused names

def test_sql_table_part_in_double_quotes_keeps_its_doubled_quotes():
    # mutant: a doubled quote ("") inside a quoted part dropped: 'sales."it's ""q1"""' read as the table it's q1
    # (the tests that run such a name create the table from table_parts too, and so agreed with the mutant)
    assert table_parts('sales."it\'s ""q1.data"""') == ["sales", 'it\'s "q1.data"']
    tree = Tree.from_arrays([[1.0]], [-0.5], classes=("neg", "pos"))
    con = sqlite3.connect(":memory:")
    con.execute('CREATE TABLE "a ""b""" (x0 REAL)')
    con.execute('INSERT INTO "a ""b""" VALUES (0.0), (1.0)')
    query = to_sql(tree, table='"a ""b"""')
    assert '  FROM "a ""b""" olctc_input' in query.splitlines()
    assert [r[0] for r in con.execute(f"SELECT olctc_label FROM ({query.rstrip().rstrip(';')}) ORDER BY x0")] == [
        "neg", "pos"]


def test_sql_constant_score_is_a_double_in_postgres(postgres):  # noqa: F811  (the fixture above)
    # mutant: a node of no weight written as its bare literal, not CAST to DOUBLE PRECISION: PostgreSQL reads
    # 2.5e-01 as an exact NUMERIC, and the node's score and the outputs read from it were then numerics
    tree = Tree.from_arrays([[0.0, 0.0]], [0.25], classes=("neg", "pos"))
    body = to_sql(tree).rstrip().rstrip(";")
    cols = "olctc_s0, olctc_score, olctc_proba"
    got = postgres.sql("SET jit = off;\nDROP TABLE IF EXISTS olctc_input;\n"
                       "CREATE TABLE olctc_input (x0 DOUBLE PRECISION, x1 DOUBLE PRECISION);\n"
                       "INSERT INTO olctc_input VALUES (1, 2);\n"
                       f"SELECT {', '.join(f'pg_typeof({c})::text' for c in cols.split(', '))}, olctc_label "
                       f"FROM (\n{body}\n) AS q;\n")
    assert got == [["double precision"] * 3 + ["pos"]]


def test_sql_refusals_of_nul_and_lone_surrogate_say_what_to_do():
    # mutant: the lone-surrogate message cut before its advice ("fix that name"); the NUL one beside it for the
    # same shape of message
    with pytest.raises(OlctcError, match=r"^the positive class 'p\\x00' holds a NUL character, which SQL cannot "
                                         r"store: rename it$"):
        to_sql(Tree.from_arrays([[1.0]], [0.0], classes=("n", "p\x00")))
    with pytest.raises(OlctcError, match=r"^the negative class '\\ud800' is not valid Unicode text \(it holds a "
                                         r"lone surrogate\), which an SQL query cannot store: fix that name$"):
        to_sql(Tree.from_arrays([[1.0]], [0.0], classes=("\ud800", "p")))


def test_dot_name_with_a_line_break_cannot_forge_a_line_of_the_label():
    # defect (fixed here): the DOT label split a feature name or class label holding a line break into two lines,
    # so a feature named "x\nb=99" showed a second intercept line "b=99"; now each name is one printable line, as in
    # the text export
    tree = Tree.from_arrays([[1.0]], [0.5], feature_names=["x\nb=99"], classes=("no\nyes", "yes"))
    labels = _dot_labels(to_dot(tree))
    assert labels["n0"] == ["node 0 (classifier)", "w_std=+1 w=1 'x\\nb=99'", "b=0.5"]
    assert labels["c0_neg"] == ["'no\\nyes'"] and labels["c0_pos"] == ["yes"]
