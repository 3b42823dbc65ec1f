"""export / predict / explain (cli_tree.py) behaviour a third mutation pass (QA qa167, 2026-12-07) found no test
pinning. Every case runs the real CLI: in process (``cli_main``, ``cli_here``) on small files written here, or as a
fresh interpreter (``cli_sub``) where the process's own standard output is the point; the SQL export runs in SQLite.

58 mutants: 38 killed by the targeted existing tests, 18 by these tests (each re-applied and seen to fail), 2
equivalent: m117 (the cell-by-cell pass always finds the fault a column's check found), m116 (a class's text kept
unstripped among the keys: its own stripped text is a key too since the fix below). One defect fixed: a --target
cell spelled exactly as a class ('0' of classes '0.0' and '0') was refused as no class of the tree."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import cli_here, cli_main, cli_sub, tiny_folder
from test_cli_tree_bench_mutation_gaps import _run, _tree


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """tiny.csv (numeric a, b; text c of categories x, y; labels y) and a depth-1 tree HiGHS fitted on it."""
    return tiny_folder(tmp_path_factory.mktemp("qa167_tiny"),
                       ["fit", "tiny.csv", "--target", "y", "--depth", "1", "--quiet", "--time-limit", "5",
                        "-o", "tree.json"])


# ---------------------------------------------------------------- lists cut at their limit

def test_exactly_five_missing_columns_are_listed_without_an_ellipsis(tmp_path, capsys, monkeypatch) -> None:
    """Five missing columns are all shown: ' ...' only when some are left out. Mutant: ' ...' from five on."""
    _tree(tmp_path, ["a", "b", "c", "d", "e"])
    (tmp_path / "d.csv").write_text("z,w\n1,2\n")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: feature column 'a' is missing (5 missing: 'a', 'b', 'c', 'd', 'e'); the tree needs "
                   "5 columns; the header line names none of the tree's columns: if the file has no header line, add "
                   "one (olctc reads the first line as the column names)\n")


def test_exactly_eight_ignored_columns_are_listed_without_an_ellipsis(tmp_path, capsys, monkeypatch) -> None:
    """Eight unused columns are all named: ' ...' only past eight. Mutant: ' ...' from eight on."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("a," + ",".join(f"u{k}" for k in range(8)) + "\n" + ",".join("1" * 9) + "\n")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (0, "prediction\n-1\n")
    assert err == "note: ignoring 8 column(s) the tree does not use: 'u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', 'u7'\n"


# ---------------------------------------------------------------- cells

def test_an_empty_text_cell_after_a_filled_one_is_named(tiny) -> None:
    """An empty cell of the text column c on the second data row is an error naming its line, not a crash: the
    cell-by-cell pass goes on past the text column's filled cells. Mutant: it stopped at the first filled
    cell of a text column (no fault found, a KeyError traceback)."""
    (tiny / "p.csv").write_text("a,b,c\n1,2,x\n1,2,\n")
    r = cli_here("predict", "tree.json", "p.csv", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "error: p.csv: line 3 column 'c': empty cell; the tree needs a value for every feature\n"


# ---------------------------------------------------------------- export

def test_export_reads_the_format_from_an_upper_case_suffix(tmp_path, capsys, monkeypatch) -> None:
    """-o T.JSON without --format writes JSON, as -o t.json does (cameras and Windows write upper case).
    Mutant: the suffix looked up as written (an error asking for --format)."""
    _tree(tmp_path, ["a"], [2.0])
    code, out, err = _run(["export", "t.json", "-o", "T.JSON"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (0, "json written to T.JSON\n", "")
    assert json.loads((tmp_path / "T.JSON").read_text()) == json.loads((tmp_path / "t.json").read_text())


def test_export_names_a_bad_table_before_reading_the_tree(tmp_path, capsys, monkeypatch) -> None:
    """A bad --table is the command line's mistake, said before the tree file's (here not a tree at all): the
    user fixes the command first. Mutant: the name checked only when the query is written (the tree's error)."""
    (tmp_path / "t.json").write_text("not json")
    code, out, err = _run(["export", "t.json", "--format", "sql", "--table", "a..b"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("error: table 'a..b': expected a name of one to three non-empty parts"), err


def test_export_sql_reads_the_table_given(tmp_path, capsys, monkeypatch) -> None:
    """--table sales.customers: the query reads that table, run here in SQLite on a schema attached as 'sales';
    its labels are the tree's predictions. Mutant: --table not passed on (the query reads olctc_input)."""
    import sqlite3

    _tree(tmp_path, ["a"], [1.0], classes=("no", "yes"))
    code, out, err = _run(["export", "t.json", "--format", "sql", "--table", "sales.customers", "-o", "-"], capsys,
                          tmp_path, monkeypatch)
    assert (code, err) == (0, ""), err
    db = sqlite3.connect(":memory:")
    db.execute("ATTACH DATABASE ':memory:' AS sales")
    db.execute("CREATE TABLE sales.customers (a REAL)")
    db.executemany("INSERT INTO sales.customers VALUES (?)", [(2.0,), (-3.0,)])
    rows = db.execute(f"SELECT a, olctc_label FROM ({out.rstrip().rstrip(';')}) ORDER BY a").fetchall()
    assert rows == [(-3.0, "no"), (2.0, "yes")]


# ---------------------------------------------------------------- predict -o a device

def test_predict_to_dev_stdout_prints_nothing_before_a_late_fault(tmp_path) -> None:
    """-o /dev/stdout (a pipe here) cannot be written beside and renamed onto: the predictions are held in a
    temporary file until all the data is checked, so a fault on the last line leaves the output empty, as with
    standard output. Mutant: a device written to directly (the header and first row went out before the error)."""
    _tree(tmp_path, ["a", "b"], [1.0, 1.0])
    (tmp_path / "d.csv").write_text("a,b\n1,1\n1,\n")
    code, out, err = cli_sub(["predict", "t.json", "d.csv", "-o", "/dev/stdout"], tmp_path)
    assert (code, out) == (2, "")
    assert err == "error: d.csv: line 3 column 'b': empty cell; the tree needs a value for every feature\n"
    (tmp_path / "d.csv").write_text("a,b\n1,1\n-1,-1\n")
    assert cli_sub(["predict", "t.json", "d.csv", "-o", "/dev/stdout"], tmp_path) == \
        (0, "prediction\n1\n-1\n2 prediction(s) written to /dev/stdout\n", "")


# ---------------------------------------------------------------- predict --target: labels of text classes

def test_target_refuses_a_label_two_text_classes_read_alike(tmp_path, capsys, monkeypatch) -> None:
    """Classes '0.0' and '0.00' (an estimator fitted on strings) both read as the number 0: a cell '0' could be
    either, so it is refused, naming both; the cell '0.00' is its own class. Mutant: a key two classes share
    kept (the cell scored as one of them)."""
    _tree(tmp_path, ["a"], [1.0], classes=("0.0", "0.00"))
    (tmp_path / "d.csv").write_text("a,y\n1,0.00\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (0, "prediction\n0.00\n"), err
    assert err.startswith("accuracy 1.0000, ")
    (tmp_path / "d.csv").write_text("a,y\n1,0.00\n-1,0\n")
    code, out, err = cli_main(["predict", "t.json", "d.csv", "--target", "y"], capsys)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: --target 'y' line 3: label '0' is not one of the tree's classes ('0.0', '0.00'); "
                   "drop such rows to score the others, or leave out --target\n")


def test_target_cell_spelled_as_a_class_is_that_class(tmp_path, capsys, monkeypatch) -> None:
    """Classes '0.0' and '0': the cell '0' is the class '0' by its very text, though the class '0.0' also reads as
    the number 0. It was refused as "not one of the tree's classes ('0.0', '0')" (QA qa167)."""
    _tree(tmp_path, ["a"], [1.0], classes=("0.0", "0"))
    (tmp_path / "d.csv").write_text("a,y\n1,0\n-1,0.0\n-1,0\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (0, "prediction\n0\n0.0\n0.0\n"), err
    assert err.startswith("accuracy 0.6667, balanced accuracy 0.7500, "), err


def test_target_log_loss_of_thousands_is_printed_in_full(tmp_path, capsys, monkeypatch) -> None:
    """A confident mistake at score 5000 costs 5000: printed '5000.0000', scientific notation only from a
    million on. Mutant: the switch at 10 000."""
    _tree(tmp_path, ["a"], [1.0], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n50000,0\n")
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert code == 0 and ", log loss 50000.0000, Brier score 1.0000 on 1 rows " in err, err


def test_target_rest_note_of_exactly_five_labels_says_no_more(tmp_path, capsys, monkeypatch) -> None:
    """Five labels taken as the rest ('not P') are all named, with no 'and 0 more'; predicted 'not P', they are
    right. Mutants: 'and N more' from five on; the rest counted as the positive class (accuracy 0)."""
    _tree(tmp_path, ["a"], [1.0], classes=("not P", "P"))
    (tmp_path / "d.csv").write_text("a,y\n" + "".join(f"-1,L{k}\n" for k in range(5)))
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert code == 0, err
    assert err.startswith("accuracy 1.0000, balanced accuracy 1.0000, "), err
    assert err.splitlines()[-1].endswith("; 'L0', 'L1', 'L2', 'L3', 'L4' scored as 'not P')"), err


def test_a_missing_id_column_is_named_before_a_missing_target(tmp_path, capsys, monkeypatch) -> None:
    """--id-column and --target both not columns: the --id-column error, the first option checked. Mutant: the
    --target check made whatever came before (its error replaced the id column's)."""
    _tree(tmp_path, ["a"], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n1,0\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "nope", "--id-column", "nid"], capsys, tmp_path,
                          monkeypatch)
    assert (code, out, err) == (2, "", "error: d.csv: --id-column 'nid' is not a column; columns are: a, y\n")


# ---------------------------------------------------------------- explain

def test_explain_json_keeps_non_ascii_names_readable(tmp_path, capsys, monkeypatch) -> None:
    """--json writes 'é' and the class 'oui' as they are (UTF-8), not as \\u escapes: others read it by eye.
    Mutant: ensure_ascii left on."""
    _tree(tmp_path, ["é"], [1.0], classes=("non", "oui"))
    (tmp_path / "d.csv").write_text("é\n1\n", encoding="utf-8")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "0", "--json"], capsys, tmp_path,
                          monkeypatch)
    assert (code, err) == (0, "")
    assert '"feature": "é"' in out and "\\u" not in out, out
    assert json.loads(out)["path"][0]["contributions"][0]["feature"] == "é"



# ---------------------------------------------------------------- predict: standard output, overflow

def test_predict_dash_o_is_standard_output(tmp_path, capsys, monkeypatch) -> None:
    """-o - prints the predictions as no -o does, and makes no file named '-'. Mutant: '-' taken as a file name
    ("1 prediction(s) written to -")."""
    _tree(tmp_path, ["a"], [1.0])
    (tmp_path / "d.csv").write_text("a\n1\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "-o", "-"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (0, "prediction\n1\n", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "t.json"]


def test_overflow_names_the_first_overflowing_row_of_a_later_chunk(tmp_path, capsys, monkeypatch) -> None:
    """Rows 3 and 5 overflow, each in a chunk of its own after the first (2 rows per chunk): the error names row 3
    of the whole file (line 5), not its row in the chunk, nor the later row 5. Mutants: the chunk's row number;
    a later chunk's overflow replacing the first."""
    import olctc.data.table

    monkeypatch.setattr(olctc.data.table, "CHUNK_CELLS", 4)  # 2 rows of 2 cells per chunk
    _tree(tmp_path, ["a", "b"], [10.0, 1.0])
    (tmp_path / "d.csv").write_text("a,b\n1,1\n1,1\n1,1\n1e308,1\n1,1\n-1e308,1\n")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("error: d.csv: row 3 (line 5): the score of node 0 overflows"), err


def test_export_names_an_unknown_format_before_a_misplaced_table(tmp_path, capsys, monkeypatch) -> None:
    """--format yaml --table t: the format is unknown, said as such, not that --table applies to sql only (which
    would send the user to a --table that is not the problem). Mutant: no check of the format (the --table
    error)."""
    _tree(tmp_path, ["a"])
    code, out, err = _run(["export", "t.json", "--format", "yaml", "--table", "t", "-o", "-"], capsys, tmp_path,
                          monkeypatch)
    assert (code, out) == (2, "")
    assert err == "error: unknown export format 'yaml'; expected one of json, python, onnx, sql, text, dot, png, svg\n"


def test_target_reads_a_class_written_with_spaces_from_a_cell_without(tmp_path, capsys, monkeypatch) -> None:
    """A tree whose class is ' dog' (an estimator keeps its labels as given): the cells 'dog' and ' dog ' are read
    stripped, as training reads labels, and are that class. Mutant (equivalent since the class's own text is a key
    too): the class's text kept unstripped in the keys."""
    _tree(tmp_path, ["a"], [1.0], classes=(" dog", "cat"))
    (tmp_path / "d.csv").write_text("a,y\n-1,dog\n1, cat\n-1, dog \n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (0, "prediction\n dog\ncat\n dog\n"), err
    assert err.startswith("accuracy 1.0000, balanced accuracy 1.0000, "), err
