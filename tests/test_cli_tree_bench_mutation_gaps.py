"""predict / explain / export / bench CLI behaviour a second mutation pass over cli_tree.py and cli_bench.py
(QA 2026-12-06) could change without any other test noticing. Every case runs the real CLI in process
(``cli_main``) on small files written here and trees made with ``Tree.from_arrays``; bench cases stop at a
refused argument or folder before any fit."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cli_main
from olctc.tree import Tree


def _tree(d: Path, names: list[str], w: list[float] | None = None, b: float = 0.0, **kw) -> Path:
    """A depth-1 tree on numeric columns ``names`` (weights ``w``, bias ``b``) saved as d/t.json."""
    Tree.from_arrays([w or [0.0] * len(names)], [b], feature_names=names, **kw).save(d / "t.json")
    return d / "t.json"


def _write(d: Path, name: str, text: str) -> Path:
    """d, after writing ``text`` into d/name."""
    (d / name).write_text(text)
    return d


def _run(args: list, capsys, d: Path, monkeypatch) -> tuple[int, str, str]:
    """``olctc ARGS`` in process from folder d (cli_main): exit code, stdout, stderr."""
    monkeypatch.chdir(d)
    return cli_main(args, capsys)


# ---------------------------------------------------------------- missing columns

def test_missing_columns_are_listed_five_at_a_time_and_counted(tmp_path, capsys, monkeypatch) -> None:
    """Seven feature columns missing: the first five named, ' ...' after, the count of missing and of needed.
    Mutants: list four; say the count of missing columns where the tree's needed count belongs."""
    names = [f"f{k}" for k in range(8)]
    _tree(tmp_path, names)
    (tmp_path / "d.csv").write_text("f0,z\n1,2\n")
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: feature column 'f1' is missing (7 missing: 'f1', 'f2', 'f3', 'f4', 'f5' ...); "
                   "the tree needs 8 columns\n")


def test_a_one_column_header_for_a_one_column_tree_names_the_column(tmp_path, capsys, monkeypatch) -> None:
    """A one-column header is read as a separator problem only when the tree needs several columns: for a tree
    on one column it is that column's absence. Mutant: the separator message for any one-column tree."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("b\n1\n")
    code, _, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, err) == (2, "error: d.csv: feature column 'a' is missing (1 missing: 'a'); the tree needs 1 "
                              "columns\n")


def test_a_column_the_tree_names_twice_is_needed_once(tmp_path, capsys, monkeypatch) -> None:
    """An edited tree naming column 'a' twice needs it once: 'the tree needs 2 columns' (a, b), not 3.
    Mutant: the needed columns without removing repeats."""
    _tree(tmp_path, ["a", "a", "b"])
    (tmp_path / "d.csv").write_text("a,z\n1,2\n")
    code, _, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert code == 2 and "both named 'a'" in err, err  # the tree's own warning line, then the error
    assert err.splitlines()[-1] == ("error: d.csv: feature column 'b' is missing (1 missing: 'b'); the tree needs 2 "
                                    "columns")


# ---------------------------------------------------------------- which cell fault is named

@pytest.mark.parametrize("rows,said", [
    # b's fault on an earlier line than a's: the earlier line, though a comes first in the tree's order
    ("1,\nx,2\n", "line 2 column 'b': empty cell"),
    # both faults on one line (a empty, b no number): the tree's first column
    ("1,2\n,x\n", "line 3 column 'a': empty cell"),
])
def test_the_first_faulty_row_is_named_then_the_trees_first_column(tmp_path, capsys, monkeypatch, rows, said) -> None:
    """The error is the file's first faulty line's and, on it, the first column in the tree's order.
    Mutants: keep the first column's fault found whatever its line; let a later column's fault on the same
    line replace it."""
    _tree(tmp_path, ["a", "b"])
    (tmp_path / "d.csv").write_text("a,b\n" + rows)
    code, out, err = _run(["predict", "t.json", "d.csv"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith(f"error: d.csv: {said}"), err


def test_a_cell_fault_comes_before_a_bad_label(tmp_path, capsys, monkeypatch) -> None:
    """A bad --target label on line 2 (the first chunk) and an empty feature cell on line 5 (a later chunk): the
    cell's error is raised (the checks' order over the whole file: cells, then scores). Mutant: the scorer's
    error first."""
    import olctc.data.table

    monkeypatch.setattr(olctc.data.table, "CHUNK_CELLS", 4)  # 2 rows of 2 cells per chunk
    _tree(tmp_path, ["a"], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n1,7\n1,0\n1,0\n,0\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == "error: d.csv: line 5 column 'a': empty cell; the tree needs a value for every feature\n"


# ---------------------------------------------------------------- notes

def test_unseen_category_note_counts_rows_and_names_the_first(tmp_path, capsys, monkeypatch) -> None:
    """Two rows of unseen categories ('q' on line 3, 'r' on line 4): the note counts both, quotes the first
    cell and its line, and the column's number of categories. Mutants: count 1 per chunk; quote the last
    cell; the chunk's first line; one category fewer."""
    fit = ["fit", "d.csv", "--target", "y", "--depth", "1", "--test-size", "0", "--quiet", "-o", "t.json"]
    code, _, err = _run(fit, capsys, _write(tmp_path, "d.csv", "c,y\nx,1\ny,0\nx,1\ny,0\n"), monkeypatch)
    assert code == 0, err
    (tmp_path / "p.csv").write_text("c\nx\nq\nr\ny\n")
    code, _, err = cli_main(["predict", "t.json", "p.csv"], capsys)
    assert code == 0, err
    assert err == ("note: column 'c': 2 row(s) hold a category the tree never saw (first 'q' at line 3): encoded "
                   "as none of its 2 categories\n")


def test_ignored_columns_are_listed_once_eight_at_a_time(tmp_path, capsys, monkeypatch) -> None:
    """Nine unused columns, one of them named twice: counted once each, eight shown, ' ...' after; --id-column
    and --target are used, not ignored. Mutants: list seven; list a repeated name twice; note the id column."""
    _tree(tmp_path, ["a"], classes=(0, 1))
    extra = [f"u{k}" for k in range(9)]
    header = ["id", "a", *extra, "u0", "y"]
    (tmp_path / "d.csv").write_text(",".join(header) + "\n" + ",".join(["7", "1", *"0" * 10, "1"]) + "\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--id-column", "id", "--target", "y", "-o", "p.csv"],
                          capsys, tmp_path, monkeypatch)
    assert code == 0, err
    assert err == ("note: ignoring 9 column(s) the tree does not use: 'u0', 'u1', 'u2', 'u3', 'u4', 'u5', 'u6', "
                   "'u7' ...\n")
    assert (tmp_path / "p.csv").read_text() == "id,prediction\n7,0\n"


def test_an_oblique_presets_probability_note_comes_with_target_alone(tmp_path, capsys, monkeypatch) -> None:
    """A MARGOT tree's probabilities are no calibrated ones: --target (log loss, Brier score) says so even
    without --proba; a plain predict does not. Mutant: the note with --proba only."""
    _tree(tmp_path, ["a"], classes=(0, 1), meta={"spec": {"preset": "margot"}})
    (tmp_path / "d.csv").write_text("a,y\n1,0\n")
    (tmp_path / "x.csv").write_text("a\n1\n")
    code, _, err = _run(["predict", "t.json", "x.csv"], capsys, tmp_path, monkeypatch)
    assert code == 0 and err == ""
    code, _, err = cli_main(["predict", "t.json", "d.csv", "--target", "y"], capsys)
    assert code == 0 and err.startswith("note: preset margot fitted the ") and "accuracy 1.0000" in err, err


# ---------------------------------------------------------------- predict -o

@pytest.mark.parametrize("output,said", [
    ("no/p.csv", "error: cannot write no/p.csv: folder no does not exist\n"),
    ("d.csv", "error: -o d.csv is also the input data; write to another file\n"),
])
def test_predict_refuses_an_output_it_cannot_or_must_not_write(tmp_path, capsys, monkeypatch, output, said) -> None:
    """-o in a missing folder, or naming DATA.csv itself, is refused before anything is read or written.
    Mutants: no check_writable (the data read first: a note on the unused column 'u', then a late error); the
    data not among the inputs."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("a,u\n1,2\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "-o", output], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith(said) and err.count("\n") == 1, err
    assert (tmp_path / "d.csv").read_text() == "a,u\n1,2\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv", "t.json"]


def test_predict_writes_a_txt_output(tmp_path, capsys, monkeypatch) -> None:
    """CSV is text: -o p.txt is accepted as -o p.csv is. Mutant: only .csv accepted."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("a\n1\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "-o", "p.txt"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (0, "1 prediction(s) written to p.txt\n", "")
    assert (tmp_path / "p.txt").read_text() == "prediction\n-1\n"


def test_id_column_named_prediction_is_refused(tmp_path, capsys, monkeypatch) -> None:
    """--id-column prediction would write two columns of that name: refused, naming the output's columns.
    Mutant: no such check."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("a,prediction\n1,2\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--id-column", "prediction"], capsys, tmp_path,
                          monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: --id-column 'prediction' has the name of an output column; the output columns "
                   "would be prediction, prediction: rename that column of the CSV file\n")


def test_a_missing_id_column_is_named_before_a_missing_feature(tmp_path, capsys, monkeypatch) -> None:
    """--id-column not a column and a feature column missing: the --id-column error (the options first).
    Mutant: the missing feature first."""
    _tree(tmp_path, ["a", "b"])
    (tmp_path / "d.csv").write_text("a,c\n1,2\n")
    code, _, err = _run(["predict", "t.json", "d.csv", "--id-column", "nope"], capsys, tmp_path, monkeypatch)
    assert (code, err) == (2, "error: d.csv: --id-column 'nope' is not a column; columns are: a, c\n")


# ---------------------------------------------------------------- predict --target: the score line

def test_target_on_a_file_of_no_rows(tmp_path, capsys, monkeypatch) -> None:
    """A data file of a header only: the score line says there is nothing to score, naming the column.
    Mutant: the column left out."""
    _tree(tmp_path, ["a"], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (0, "prediction\n")
    assert err == "no rows to score against column 'y'\n"


def test_target_of_a_single_class_reports_its_recall(tmp_path, capsys, monkeypatch) -> None:
    """Every row of class 1, half predicted 1: balanced accuracy is class 1's recall (0.5), the line says which
    class. Mutants: that branch only when both classes are absent; the absent class's recall."""
    _tree(tmp_path, ["a"], [1.0], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n1,1\n-1,1\n")
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert code == 0, err
    line = err.splitlines()[-1]
    assert line.startswith("accuracy 0.5000, balanced accuracy 0.5000, log loss ")
    assert line.endswith(" on 2 rows (column 'y'; every row is 1: balanced accuracy is its recall)")


@pytest.mark.parametrize("cells,ok", [(["True", "false", "TRUE"], True), (["yes"], False)])
def test_target_reads_bool_spellings_for_classes_0_and_1(tmp_path, capsys, monkeypatch, cells, ok) -> None:
    """A tree of classes 0 and 1 (an estimator fitted on bools) scores a column written False/True in any of
    pandas', lower or upper case. Mutants: no such keys; only 'True'/'False'."""
    _tree(tmp_path, ["a"], [1.0], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n" + "".join(f"1,{c}\n" for c in cells))
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    if ok:
        assert code == 0 and f"accuracy {2 / 3:.4f}," in err, err
    else:
        assert code == 2 and "label 'yes' is not one of the tree's classes (0, 1)" in err


def test_target_bool_spellings_only_for_classes_0_and_1(tmp_path, capsys, monkeypatch) -> None:
    """Classes 0 and 2 are no bools: a 'True' label is refused, not scored as 2. Mutant: the bool keys for any
    integer classes."""
    _tree(tmp_path, ["a"], [1.0], classes=(0, 2))
    (tmp_path / "d.csv").write_text("a,y\n1,True\n")
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert code == 2 and "line 2: label 'True' is not one of the tree's classes (0, 2)" in err, err


def test_target_rest_note_shows_five_labels_and_counts_the_others(tmp_path, capsys, monkeypatch) -> None:
    """A one-against-the-rest tree ('not P', 'P') takes seven other labels as the rest: five are named, then
    'and 2 more'. Mutants: every label named; the count left out."""
    _tree(tmp_path, ["a"], classes=("not P", "P"))
    labels = [f"L{k}" for k in range(7)]
    (tmp_path / "d.csv").write_text("a,y\n" + "".join(f"1,{v}\n" for v in labels))
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert code == 0, err
    assert err.splitlines()[-1].endswith("; 'L0', 'L1', 'L2', 'L3', 'L4' and 2 more scored as 'not P')")


def test_target_without_a_label_names_the_line(tmp_path, capsys, monkeypatch) -> None:
    """An empty --target cell: 'no class label' on its line, refused. Mutant: another wording."""
    _tree(tmp_path, ["a"], classes=(0, 1))
    (tmp_path / "d.csv").write_text("a,y\n1,0\n1,\n")
    code, out, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: --target 'y' line 3: no class label; drop such rows to score the others, or "
                   "leave out --target\n")


# ---------------------------------------------------------------- explain

def test_explain_reads_no_further_than_its_row(tmp_path, capsys, monkeypatch) -> None:
    """explain --row 0 reads up to row 0 only: a broken line further on does not stop it (the file can be
    huge). Mutant: the whole file read."""
    _tree(tmp_path, ["a", "b"], [1.0, 0.0])
    (tmp_path / "d.csv").write_text("a,b\n1,2\n" + "3,4\n" * 3 + "5,6,7,8\n")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "0"], capsys, tmp_path, monkeypatch)
    assert code == 0, err
    assert out.startswith("row 0 (line 2 of d.csv)\n")


def test_explain_out_of_range_names_the_rows(tmp_path, capsys, monkeypatch) -> None:
    """--row past the end: the count of rows and their range, 0 to n - 1. Mutant: 0 to n."""
    _tree(tmp_path, ["a"])
    (tmp_path / "d.csv").write_text("a\n1\n2\n")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "5"], capsys, tmp_path, monkeypatch)
    assert (code, out, err) == (2, "", "error: --row 5 is out of range: d.csv has 2 data row(s) (0 to 1)\n")


def test_explain_notes_unseen_categories_and_ignored_columns(tmp_path, capsys, monkeypatch) -> None:
    """explain says, as predict does, which category the tree never saw and which columns it ignores.
    Mutants: either note dropped."""
    fit = ["fit", "d.csv", "--target", "y", "--depth", "1", "--test-size", "0", "--quiet", "-o", "t.json"]
    _run(fit, capsys, _write(tmp_path, "d.csv", "c,y\nx,1\ny,0\nx,1\ny,0\n"), monkeypatch)
    (tmp_path / "e.csv").write_text("c,id\nq,1\n")
    code, _, err = cli_main(["explain", "t.json", "--data", "e.csv", "--row", "0"], capsys)
    assert code == 0, err
    assert err == ("note: column 'c': 1 row(s) hold a category the tree never saw (first 'q' at line 2): encoded "
                   "as none of its 2 categories\nnote: ignoring 1 column(s) the tree does not use: 'id'\n")


def test_explain_overflow_names_the_row_asked_for(tmp_path, capsys, monkeypatch) -> None:
    """A score that overflows on --row 2 is named as row 2 (line 4), not as the batch's row 0.
    Mutant: the batch's row."""
    _tree(tmp_path, ["a", "b"], [10.0, 1.0])
    (tmp_path / "d.csv").write_text("a,b\n1,1\n1,1\n1e308,1\n")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "2"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("error: d.csv: row 2 (line 4): the score of node 0 overflows"), err


def test_explain_json_puts_the_probability_note_on_standard_error(tmp_path, capsys, monkeypatch) -> None:
    """--json keeps its keys; a MARGOT tree's probability note goes to standard error. Mutant: the note dropped."""
    import json

    _tree(tmp_path, ["a"], meta={"spec": {"preset": "margot"}})
    (tmp_path / "d.csv").write_text("a\n1\n")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "0", "--json"], capsys, tmp_path,
                          monkeypatch)
    assert code == 0 and json.loads(out)["row"] == 0
    assert err.startswith("note: preset margot fitted the ") and err.count("\n") == 1, err


# ---------------------------------------------------------------- export

def test_export_format_against_an_upper_case_suffix(tmp_path, capsys, monkeypatch) -> None:
    """--format svg -o T.PNG is refused as -o t.png is: the suffix is compared in any case. Mutant: a case-
    sensitive suffix, SVG text written into T.PNG."""
    _tree(tmp_path, ["a"])
    code, out, err = _run(["export", "t.json", "--format", "svg", "-o", "T.PNG"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err == ("error: -o T.PNG is the name of a png file, but --format is svg: name it T.svg, or leave "
                   "--format out\n")
    assert not (tmp_path / "T.PNG").exists()


def test_export_refuses_to_write_over_its_tree(tmp_path, capsys, monkeypatch) -> None:
    """export t.json -o t.json (json) would replace the tree it reads: refused, the tree unchanged.
    Mutant: no check_not_input."""
    before = _tree(tmp_path, ["a"]).read_bytes()
    code, out, err = _run(["export", "t.json", "-o", "t.json"], capsys, tmp_path, monkeypatch)
    assert (code, out) == (2, "")
    assert err.startswith("error: -o t.json is also the input tree; write to another file\n"), err
    assert (tmp_path / "t.json").read_bytes() == before


# ---------------------------------------------------------------- bench

def test_bench_help_takes_dash_h(capsys) -> None:
    """bench -h and bench --help print the help, not 'unknown experiment'. Mutants: an option taken as an
    experiment's name; -h dropped."""
    for flag in ("-h", "--help"):
        code, out, err = cli_main(["bench", flag], capsys)
        assert (code, err) == (0, ""), err
        assert "report" in out and "models" in out


def test_bench_experiment_short_help_and_defaults_in_help(capsys) -> None:
    """bench --help lists each experiment as 'what (Sec. N)'; an experiment's help names its default seeds
    and the paper's time limit. Mutants: the whole description (cut at 'Sec.'); the seeds left out; large's
    3600 s said as 300 s."""
    from olctc.bench.experiments import EXPERIMENTS

    code, out, _ = cli_main(["bench", "--help"], capsys)
    assert code == 0
    section, _, what = EXPERIMENTS["models"].description.partition(": ")
    assert f"{what[:20]}" in out and "(Sec" in out
    code, out, _ = cli_main(["bench", "large", "--help"], capsys)
    flat = " ".join(out.split())
    assert code == 0 and "3600, on 40 threads" in flat
    assert f"default {','.join(map(str, EXPERIMENTS['large'].seeds))}" in flat


def test_bench_refuses_standard_output(tmp_path, capsys, monkeypatch) -> None:
    """bench -o - is refused (a folder of runs cannot be standard output); no folder '-' is made.
    Mutant: no check_not_stdout."""
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["bench", "models", "--datasets", "haberman", "--models", "CART", "--seeds", "0",
                               "-o", "-"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith("error: -o - means standard output, which cannot hold bench's folder of runs"), err
    assert list(tmp_path.iterdir()) == []


def test_bench_options_reach_the_bench(tmp_path, capsys, monkeypatch) -> None:
    """Each option of bench reaches its options and run_bench (seen by a spy; the folder is a file, so the bench
    stops there). Mutants: --authors-split, --class-weight (any case), --min-leaf, --smooth-pure-nodes,
    --solver, --C-grid, --retry-errors, --run-timeout, --jobs dropped; --min-leaf 1 or --score-variables by
    default."""
    import olctc.bench.options
    import olctc.bench.runner

    made, ran = {}, {}
    real_make, real_run = olctc.bench.options.make_options, olctc.bench.runner.run_bench

    def make(*a, **k):
        made.update(k)
        return real_make(*a, **k)

    def run(*a, **k):
        ran.update(k)
        return real_run(*a, **k)

    monkeypatch.setattr(olctc.bench.options, "make_options", make)
    monkeypatch.setattr(olctc.bench.runner, "run_bench", run)
    (tmp_path / "f").write_text("x")
    base = ["bench", "models", "--datasets", "haberman", "--models", "OLCT", "--seeds", "0", "-o",
            str(tmp_path / "f")]
    code, _, err = cli_main(base, capsys)
    assert (code, err) == (2, f"error: bench folder {tmp_path / 'f'} is a file, not a folder\n")
    assert (made["min_leaf"], made["score_variables"], made["smooth_pure_nodes"], made["class_weight"]) == \
        (0, False, False, None)
    assert (ran["jobs"], ran["retry_errors"], ran["run_timeout"]) == (1, False, None)
    code, _, _ = cli_main(base + ["--authors-split", "--class-weight", "Balanced", "--min-leaf", "3",
                                  "--smooth-pure-nodes", "--solver", "cbc", "--cv", "2", "--C-grid", "1,10",
                                  "--retry-errors", "--run-timeout", "50", "--jobs", "2", "--score-variables"],
                          capsys)
    assert code == 2
    assert (made["authors_split"], made["class_weight"], made["min_leaf"], made["smooth_pure_nodes"]) == \
        (True, "balanced", 3, True)
    assert (made["solver"], made["cv"], made["C_grid"], made["score_variables"]) == ("cbc", 2, "1,10", True)
    assert (ran["jobs"], ran["retry_errors"], ran["run_timeout"]) == (2, True, 50.0)


def test_predict_strips_feature_and_label_cells_but_not_ids(tmp_path, capsys, monkeypatch) -> None:
    """Feature and --target cells are read stripped (' x ' is the category x, ' 1' the class 1), the --id-column
    is copied as written. Mutants: features or labels unstripped; ids stripped."""
    fit = ["fit", "d.csv", "--target", "y", "--depth", "1", "--test-size", "0", "--quiet", "-o", "t.json"]
    code, _, err = _run(fit, capsys, _write(tmp_path, "d.csv", "c,y\nx,1\ny,0\nx,1\ny,0\n"), monkeypatch)
    assert code == 0, err
    (tmp_path / "p.csv").write_text("id,c,y\n 7 , x , 1\n8,y,0\n")
    code, out, err = cli_main(["predict", "t.json", "p.csv", "--id-column", "id", "--target", "y", "-o", "o.csv"],
                              capsys)
    assert code == 0 and "never saw" not in err, err
    assert out.splitlines()[1].startswith("accuracy 1.0000, balanced accuracy 1.0000"), out
    assert (tmp_path / "o.csv").read_text() == "id,prediction\n 7 ,1\n8,0\n"


def test_explain_shows_feature_names_up_to_60_characters(tmp_path, capsys, monkeypatch) -> None:
    """explain's text names a feature in full up to 60 characters, then cuts it with an ellipsis.
    Mutant: a shorter limit."""
    short, long = "s" * 55, "L" * 70
    _tree(tmp_path, [short, long], [1.0, 2.0])
    (tmp_path / "d.csv").write_text(f"{short},{long}\n1,1\n")
    code, out, err = _run(["explain", "t.json", "--data", "d.csv", "--row", "0"], capsys, tmp_path, monkeypatch)
    assert code == 0, err
    assert f"  {short} = 1" in out and f"  {'L' * 59}… = 1" in out, out


def test_bench_says_where_its_results_are_and_report_where_it_wrote(tmp_path, capsys, monkeypatch) -> None:
    """A one-run CART bench (no solver, about a second): the summary line with the runs file on standard
    output, the progress bar on standard error; bench report lists its files and ends 'report written to'.
    Mutants: the runs file left out; the progress on standard output; the report's last line dropped."""
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["bench", "models", "--datasets", "haberman", "--models", "CART", "--seeds", "0",
                               "--threads", "1", "-o", "b"], capsys)
    assert code == 0, err
    assert out == "bench models: 1 run(s) done now, 0 skipped (already done), 0 failed; results in b/runs.jsonl\n"
    assert "1/1 runs done" in err
    code, out, err = cli_main(["bench", "report", "b"], capsys)
    assert code == 0, err
    assert "  b/report/summary.md\n" in out and out.endswith("report written to b/report\n")


def test_target_reads_a_text_label_stripped(tmp_path, capsys, monkeypatch) -> None:
    """A --target cell ' yes ' is the class 'yes' (the reader's rule), not an unknown label. Mutant: the cell
    looked up unstripped."""
    _tree(tmp_path, ["a"], [1.0], classes=("no", "yes"))
    (tmp_path / "d.csv").write_text("a,y\n1, yes \n-1,no\n")
    code, _, err = _run(["predict", "t.json", "d.csv", "--target", "y"], capsys, tmp_path, monkeypatch)
    assert code == 0, err
    assert err.splitlines()[-1].startswith("accuracy 1.0000, balanced accuracy 1.0000")
