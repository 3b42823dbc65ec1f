"""export / predict / explain (cli_tree.py) behaviour a fourth mutation pass (QA qa189, 2026-12-07) found no test
pinning. Every case runs the real CLI in process (``cli_main``) on small files written here and trees made with
``Tree.from_arrays``.

79 mutants (listed in the pass's commit message): 63 killed by the targeted existing tests, 12 by these tests (each
re-applied and seen to fail: m01 m22 m24 m27 m39 m47 m50 m52 m53 m55 m77 m79), 3 equivalent: m05 (a near miss equal
to the tree's name is no missing column), m14 (the column check's fallback line: the cell-by-cell pass always finds
the fault), m36 (str of a numpy unsigned label is the Python int's); 1 left: m08 (the look-alike category named when
two known categories look alike: which one then follows the hash seed, not the sorted order). One defect fixed: a
tree's column name holding a zero-width space, against a clean file's name, was hinted as a case difference."""
from __future__ import annotations

import json

import pytest

from conftest import cli_main
from test_cli_tree_bench_mutation_gaps import _run, _tree


# ---------------------------------------------------------------- header names

@pytest.mark.parametrize("hidden", ["\u200b", "\u200c", "\u200d", "\u2060"])
def test_each_invisible_character_in_a_header_name_is_said_to_show_as_nothing(tmp_path, capsys, monkeypatch,
                                                                               hidden: str) -> None:
    """'age' followed by a zero-width space, non-joiner, joiner or word joiner looks like the tree's 'age': the
    error says the file's name holds characters that show as nothing. Mutant m01: the word joiner left out of
    the invisible characters (no hint: the user sees two equal names and no reason)."""
    _tree(tmp_path, ["age"])
    (tmp_path / "d.csv").write_text(f"age{hidden}\n1\n", encoding="utf-8")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == (f"error: d.csv: feature column 'age' is missing (1 missing: 'age'); the tree needs 1 columns; the "
                   f"file has {ascii('age' + hidden)}, the same name with characters that show as nothing (a "
                   "byte-order mark, a zero-width space): remove them from the header\n")


def test_a_trees_name_with_an_invisible_character_is_not_called_a_case_difference(tmp_path, capsys,
                                                                                  monkeypatch) -> None:
    """A tree fitted on a header holding a zero-width space ('a\\u200bge') against a clean file's 'age': the hint
    says the tree's name holds characters that show as nothing. It said "the file has 'age' (names are
    case-sensitive)", though the two differ in no letter's case (defect fixed in this pass)."""
    _tree(tmp_path, ["a\u200bge"])
    (tmp_path / "d.csv").write_text("age\n1\n")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: feature column 'a\\u200bge' is missing (1 missing: 'a\\u200bge'); the tree needs 1 "
                   "columns; the file has 'age', the same name without the characters that show as nothing in the "
                   "tree's ('a\\u200bge'): rename the column to the tree's spelling\n")


# ---------------------------------------------------------------- export

def test_export_help_lists_every_format(capsys) -> None:
    """export --help names the eight formats it writes, png and svg too. Mutant m22: a shorter list."""
    code, out, _ = cli_main(["export", "--help"], capsys)
    assert code == 0
    assert "json, python, onnx, sql, text, dot, png or svg (default: from the -o suffix;" in " ".join(out.split())


def test_export_without_format_or_output_lists_formats_and_suffixes(tmp_path, capsys, monkeypatch) -> None:
    """No --format and no -o: the error lists the formats and the -o suffixes that name one. Mutant m24: the
    suffixes not listed ("a known suffix")."""
    _tree(tmp_path, ["a"])
    code, out, err = _run(["export", "t.json"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: say which format with --format (json, python, onnx, sql, text, dot, png, svg) or give -o "
                   "a name ending in .json, .py, .onnx, .txt, .text, .dot, .gv, .sql, .png, .svg\n")


def test_export_suffix_against_format_keeps_the_folder_in_the_name_to_use(tmp_path, capsys, monkeypatch) -> None:
    """--format svg -o out/t.png: the name offered instead is out/t.svg, in the same folder. Mutant m27: the
    folder dropped ('name it t.svg', a file elsewhere)."""
    _tree(tmp_path, ["a"])
    (tmp_path / "out").mkdir()
    code, out, err = _run(["export", "t.json", "--format", "svg", "-o", "out/t.png"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == "error: -o out/t.png is the name of a png file, but --format is svg: name it out/t.svg, or leave " \
                  "--format out\n"
    assert list((tmp_path / "out").iterdir()) == []


def test_export_offers_a_formats_first_suffix(tmp_path, capsys, monkeypatch) -> None:
    """--format dot -o t.png: the name offered is t.dot, the format's own suffix, not its other one (.gv), and no
    file is written. Mutant m77: the format's last suffix."""
    _tree(tmp_path, ["a"])
    code, out, err = _run(["export", "t.json", "--format", "dot", "-o", "t.png"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == "error: -o t.png is the name of a png file, but --format is dot: name it t.dot, or leave --format " \
                  "out\n"
    assert not (tmp_path / "t.png").exists()


def test_export_with_format_writes_a_file_of_any_suffix(tmp_path, capsys, monkeypatch) -> None:
    """--format json -o tree.out: a suffix no format owns is no mistake to check the format against: the JSON is
    written. Mutant m79: every suffix compared with the format (a TypeError traceback for '.out')."""
    _tree(tmp_path, ["a"], [2.0])
    code, out, err = _run(["export", "t.json", "--format", "json", "-o", "tree.out"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (0, "json written to tree.out\n", "")
    assert json.loads((tmp_path / "tree.out").read_text()) == json.loads((tmp_path / "t.json").read_text())


# ---------------------------------------------------------------- predict

def test_target_shortens_a_long_bad_label(tmp_path, capsys, monkeypatch) -> None:
    """A label of 100 characters that is no class: the error cuts it to 60 characters, one line however long the
    cell. Mutant m39: the label in full."""
    _tree(tmp_path, ["a"], [1.0], classes=("no", "yes"))
    (tmp_path / "d.csv").write_text("a,y\n1,yes\n1,yes\n1," + "z" * 100 + "\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == (f"error: d.csv: --target 'y' line 4: label '{'z' * 57}...' is not one of the tree's classes "
                   "('no', 'yes'); drop such rows to score the others, or leave out --target\n")


def test_target_takes_other_labels_as_the_rest_only_for_not_the_positive_class(tmp_path, capsys,
                                                                                monkeypatch) -> None:
    """Classes 'not Q' and 'P' are no one-against-the-rest pair (the rest of P is 'not P'): a label 'Z' is refused,
    not scored as 'not Q'. Mutant m47: any negative class starting 'not ' taken as the rest."""
    _tree(tmp_path, ["a"], [1.0], classes=("not Q", "P"))
    (tmp_path / "d.csv").write_text("a,y\n-1,Z\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: --target 'y' line 2: label 'Z' is not one of the tree's classes ('not Q', 'P'); "
                   "drop such rows to score the others, or leave out --target\n")


def test_predict_reads_a_file_with_pandas_unnamed_index_column(tmp_path, capsys, monkeypatch) -> None:
    """pandas' to_csv writes an unnamed index column first: predict ignores it with a note, as any column the tree
    does not use. Mutant m52: the file refused for its unnamed first column."""
    _tree(tmp_path, ["a"], [1.0])
    (tmp_path / "d.csv").write_text(",a\n0,1\n1,-1\n")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (0, "prediction\n1\n-1\n", "note: ignoring 1 column(s) the tree does not use: ''\n")


def test_id_column_named_as_a_probability_column_is_refused(tmp_path, capsys, monkeypatch) -> None:
    """--id-column proba_1 with --proba would write two columns of that name: refused, naming the output's
    columns; without --proba it is a plain id. Mutant m55: only the name 'prediction' refused."""
    _tree(tmp_path, ["a"], [1.0], classes=(0, 1))
    (tmp_path / "d.csv").write_text("proba_1,a\nr7,1\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--id-column", "proba_1", "--proba"], capsys, tmp_path,
                          monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: --id-column 'proba_1' has the name of an output column; the output columns would "
                   "be proba_1, prediction, proba_0, proba_1: rename that column of the CSV file\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--id-column", "proba_1"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (0, "proba_1,prediction\nr7,1\n", "")


def test_predict_refuses_an_output_named_as_another_format(tmp_path, capsys, monkeypatch) -> None:
    """-o p.json: predictions are CSV, and a .json would be taken for an exported tree: refused before any work,
    naming the name to use; no file is made. Mutant m50: no check of the suffix (CSV written into p.json)."""
    _tree(tmp_path, ["a"], [1.0])
    (tmp_path / "d.csv").write_text("a\n1\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "-o", "p.json"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: -o p.json: predict writes predictions (CSV), not JSON (.json is what `olctc export TREE -o "
                   "p.json` writes); name it p.csv\n")
    assert not (tmp_path / "p.json").exists()


# ---------------------------------------------------------------- explain

def test_explain_reads_a_file_with_a_repeated_column_it_does_not_use(tmp_path, capsys, monkeypatch) -> None:
    """A column named twice that the tree does not read (an export's repeated 'id') does not stop explain, as it
    does not stop predict. Mutant m53: every repeat refused."""
    _tree(tmp_path, ["a"], [1.0])
    (tmp_path / "d.csv").write_text("id,a,id\n7,2,7\n")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "0", "--json"], capsys, tmp_path,
                          monkeypatch)
    assert (code, err) == (0, "note: ignoring 1 column(s) the tree does not use: 'id'\n"), err
    assert json.loads(out)["row"] == 0
