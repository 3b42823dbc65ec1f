"""CLI commands export / predict / explain, run with click's CliRunner on the commands themselves."""
from __future__ import annotations

import csv
import copy
import gzip
import io
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from olctc.cli_tree import explain_cmd, export_cmd, predict_cmd
from olctc.datasets import dataset_path
from olctc.errors import OlctcError
from olctc.export.json import dump, save
from test_tree import dataset, greedy_tree, hostile_dataset, raw_cells, tree_for


def run(cmd, args):
    return CliRunner().invoke(cmd, [str(a) for a in args])


def fails(result, message: str) -> None:
    """The command raised OlctcError (the main CLI prints it as `error: ...`, exit 2)."""
    assert result.exit_code != 0
    assert isinstance(result.exception, OlctcError), result.output
    assert message in str(result.exception), str(result.exception)


@pytest.fixture
def heart(tmp_path):
    """(tree file, CSV of the heart data set with its label column 'y', tree)."""
    tree = tree_for("heart", 2)
    tree_path = tmp_path / "tree.json"
    save(tree, tree_path)
    csv_path = tmp_path / "heart.csv"
    csv_path.write_bytes(gzip.decompress(dataset_path("heart").read_bytes()))
    return tree_path, csv_path, tree


def _csv(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text() if hasattr(path, "read_text") else path)))


# ---------------------------------------------------------------- export

@pytest.mark.parametrize("fmt,suffix,magic", [
    ("json", ".json", b"{"), ("python", ".py", b"# Generated"), ("onnx", ".onnx", b"\x08"),
    ("text", ".txt", b"olctc tree"), ("dot", ".dot", b"digraph"), ("png", ".png", b"\x89PNG"),
    ("svg", ".svg", b"<?xml"),
])
def test_export_every_format(heart, tmp_path, fmt, suffix, magic):
    tree_path, _, _ = heart
    out = tmp_path / f"out{suffix}"
    res = run(export_cmd, [tree_path, "--format", fmt, "-o", out])
    assert res.exit_code == 0, res.output
    assert out.read_bytes().startswith(magic) and f"written to {out}" in res.output
    out.unlink()
    res = run(export_cmd, [tree_path, "-o", out])  # the format follows the suffix
    assert res.exit_code == 0 and out.read_bytes().startswith(magic)


def test_export_text_formats_to_stdout(heart):
    tree_path, _, tree = heart
    res = run(export_cmd, [tree_path, "--format", "text"])
    assert res.exit_code == 0 and res.stdout.startswith("olctc tree: depth 2")
    res = run(export_cmd, [tree_path, "--format", "json"])
    assert json.loads(res.stdout)["format"] == "olctc-tree"


def test_export_bad_requests(heart, tmp_path):
    tree_path, _, _ = heart
    fails(run(export_cmd, [tree_path, "--format", "xls", "-o", tmp_path / "t.xls"]), "unknown export format 'xls'")
    fails(run(export_cmd, [tree_path, "--format", "onnx"]), "writes binary data: give an output file with -o")
    fails(run(export_cmd, [tree_path, "-o", tmp_path / "t.xyz"]), "say which format with --format")
    fails(run(export_cmd, [tmp_path / "missing.json", "--format", "text"]), "missing.json: no such file")


def test_export_rejects_bad_tree_files(heart, tmp_path):
    tree_path, _, _ = heart
    doc = json.loads(tree_path.read_text())
    doc["version"] = 7
    bad = tmp_path / "v7.json"
    bad.write_text(json.dumps(doc))
    fails(run(export_cmd, [bad, "--format", "text"]), f"{bad}: unsupported olctc-tree version 7")
    broken = tmp_path / "broken.json"
    broken.write_text(tree_path.read_text()[:-200])
    fails(run(export_cmd, [broken, "--format", "text"]), f"{broken}: not valid JSON")
    assert not (tmp_path / "out.txt").exists()


# ---------------------------------------------------------------- predict

def test_predict_matches_the_tree(heart, tmp_path):
    tree_path, csv_path, tree = heart
    out = tmp_path / "pred.csv"
    res = run(predict_cmd, [tree_path, csv_path, "--proba", "-o", out])
    assert res.exit_code == 0, res.output
    assert "note: ignoring 1 column(s) the tree does not use: 'y'" in res.stderr
    rows = _csv(out)
    X = dataset("heart").X
    assert [r["prediction"] for r in rows] == [str(v) for v in tree.predict(X)]
    P = np.array([[float(r["proba_0"]), float(r["proba_1"])] for r in rows])
    assert np.array_equal(P, tree.predict_proba(X))  # written with repr: exact


def test_predict_id_column_and_stdout(heart):
    tree_path, csv_path, tree = heart
    res = run(predict_cmd, [tree_path, csv_path, "--id-column", "age"])
    assert res.exit_code == 0
    rows = _csv(res.stdout)
    assert list(rows[0]) == ["age", "prediction"] and len(rows) == 297
    assert rows[0]["age"] == csv_path.read_text().splitlines()[1].split(",")[0]
    fails(run(predict_cmd, [tree_path, csv_path, "--id-column", "nope"]), "--id-column 'nope' is not a column")


def _edit_csv(csv_path, tmp_path, edit) -> str:
    lines = csv_path.read_text().splitlines()
    edit(lines)
    path = tmp_path / "edited.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_predict_bad_data(heart, tmp_path):
    tree_path, csv_path, _ = heart

    def drop_chol(lines):
        for k, line in enumerate(lines):
            cells = line.split(",")
            del cells[4]
            lines[k] = ",".join(cells)

    def nan_at_line_7(lines):
        cells = lines[6].split(",")
        cells[4] = "nan"
        lines[6] = ",".join(cells)

    def empty_at_line_9(lines):
        cells = lines[8].split(",")
        cells[2] = " "
        lines[8] = ",".join(cells)

    def word_at_line_3(lines):
        cells = lines[2].split(",")
        cells[0] = "old"
        lines[2] = ",".join(cells)

    fails(run(predict_cmd, [tree_path, _edit_csv(csv_path, tmp_path, drop_chol)]),
          "feature column 'chol' is missing")
    fails(run(predict_cmd, [tree_path, _edit_csv(csv_path, tmp_path, nan_at_line_7)]),
          "column 'chol' line 7: expected a finite number, got 'nan'")
    fails(run(predict_cmd, [tree_path, _edit_csv(csv_path, tmp_path, empty_at_line_9)]),
          "line 9 column 'cp': empty cell")
    fails(run(predict_cmd, [tree_path, _edit_csv(csv_path, tmp_path, word_at_line_3)]),
          "column 'age' line 3: expected a number, got 'old'")
    fails(run(predict_cmd, [tree_path, tmp_path / "none.csv"]), "none.csv: no such file")
    assert not (tmp_path / "pred.csv").exists()


def test_predict_categorical_and_hostile_columns(tmp_path):
    marker = tmp_path / "pwned"
    ds = hostile_dataset(str(marker), n=120, csv_safe=True)
    tree = greedy_tree(ds, 2)
    tree_path = tmp_path / "t.json"
    save(tree, tree_path)
    cells = raw_cells(ds.schema, ds.X)
    names = list(dict.fromkeys(c.name for c in ds.schema.columns))
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(names)
    for k in range(ds.n):
        w.writerow([repr(cells[n][k]) if isinstance(cells[n][k], float) else cells[n][k] for n in names])
    data = tmp_path / "hostile.csv"
    data.write_text(buf.getvalue())
    res = run(predict_cmd, [tree_path, data, "--proba"])
    assert res.exit_code == 0, res.output
    rows = list(csv.reader(io.StringIO(res.stdout)))
    assert rows[0] == ["prediction"] + [f"proba_{c}" for c in tree.classes]
    assert [r[0] for r in rows[1:]] == tree.predict(ds.X).tolist()
    assert not marker.exists()


# ---------------------------------------------------------------- explain

def test_explain_a_row(heart):
    tree_path, csv_path, tree = heart
    X = dataset("heart").X
    res = run(explain_cmd, [tree_path, "--data", csv_path, "--row", 10, "--top", 2])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    assert lines[0] == f"row 10 (line 12 of {csv_path})"
    assert lines[1].startswith("node 0 (layer 1): score")
    assert lines[-1].startswith(f"prediction: {tree.predict(X[10:11]).tolist()[0]!r} with probability")
    res = run(explain_cmd, [tree_path, "--data", csv_path, "--row", 0, "--json"])
    d = json.loads(res.stdout)
    p_pos = tree.predict_proba(X[:1])[0, 1]
    assert d["row"] == 0 and d["positive_probability"] == p_pos
    # the probability beside the label is that label's, as in the text (it was P(positive) for either label)
    assert d["label"] == tree.predict(X[:1]).tolist()[0]
    assert d["probability"] == (p_pos if d["label"] == tree.classes[1] else 1.0 - p_pos)
    assert f"with probability {d['probability']:.4f}" in run(explain_cmd, [tree_path, "--data", csv_path, "--row", 0]).stdout
    for step in d["path"][:-1]:  # a routing node's confidence is in the direction taken, as the text says
        assert step["confidence"] >= 0.5 or step["score"] == 0.0
    # and the classifying node's in the label it gives (it was P(positive), 0.14 beside a negative label)
    assert d["path"][-1]["direction"] == "classify" and d["path"][-1]["confidence"] == d["probability"]
    assert [s["node"] for s in d["path"]] == sorted(tree.decision_path(X[:1]).indices.tolist())


def test_explain_bad_rows(heart, tmp_path):
    tree_path, csv_path, _ = heart
    fails(run(explain_cmd, [tree_path, "--data", csv_path, "--row", 297]),
          f"--row 297 is out of range: {csv_path} has 297 data row(s) (0 to 296)")
    fails(run(explain_cmd, [tree_path, "--data", csv_path, "--row", -1]), "--row -1 is out of range")
    lines = csv_path.read_text().splitlines()
    cells = lines[41].split(",")
    cells[4] = "NaN"
    lines[41] = ",".join(cells)
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(lines) + "\n")
    fails(run(explain_cmd, [tree_path, "--data", bad, "--row", 40]), "column 'chol' line 42: expected a finite")
    assert run(explain_cmd, [tree_path, "--data", bad, "--row", 39]).exit_code == 0  # other rows are fine


def test_main_cli_turns_errors_into_exit_2(heart, capsys):
    cli = pytest.importorskip("olctc.cli")
    tree_path, csv_path, _ = heart
    with pytest.raises(SystemExit) as exc:
        cli.main(["explain", str(tree_path), "--data", str(csv_path), "--row", "1000"])
    assert exc.value.code == 2
    assert capsys.readouterr().err.startswith("error: --row 1000 is out of range")
    doc = json.loads(dump(tree_for("heart", 2)))
    doc["version"] = 99
    bad = tree_path.parent / "v99.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(SystemExit) as exc:
        cli.main(["predict", str(bad), str(csv_path)])
    assert exc.value.code == 2 and "unsupported olctc-tree version 99" in capsys.readouterr().err


# ---------------------------------------------------------------- QA: option interplay and odd files

def test_predict_reads_semicolon_tab_and_pipe_files_and_names_a_space_separated_one(heart, tmp_path):
    """';', tab and '|' read as their comma twin; a space-separated file reads as one column: say so, not
    '13 feature columns are missing'."""
    tree_path, csv_path, _ = heart
    text = csv_path.read_text()
    want = run(predict_cmd, [tree_path, csv_path, "--proba"])
    assert want.exit_code == 0 and want.output.count("\n") == 299  # a note, the header, 297 rows
    path = tmp_path / "sep.csv"
    for sep in (";", "\t", "|"):
        path.write_text(text.replace(",", sep))
        res = run(predict_cmd, [tree_path, path, "--proba"])
        assert (res.exit_code, res.output) == (0, want.output)
    path.write_text(text.replace(",", " "))
    for res in (run(predict_cmd, [tree_path, path]), run(explain_cmd, [tree_path, "--data", path, "--row", 0])):
        fails(res, f"{path}: the header is one column 'age sex ")
        fails(res, "and the tree needs 13: olctc reads comma-, semicolon-, tab- or '|'-separated files (save it")


def test_predict_and_explain_note_unseen_categories(tmp_path):
    """Categories the tree never saw still predict (as none of the known ones), with a note naming them."""
    ds = dataset("tic-tac-toe")
    tree = greedy_tree(ds, 2)
    tree_path = tmp_path / "t.json"
    save(tree, tree_path)
    lines = gzip.decompress(dataset_path("tic-tac-toe").read_bytes()).decode().splitlines()
    cells = lines[3].split(",")
    cells[0] = "X"  # an upper-case x: not a category of top_left
    lines[3] = ",".join(cells)
    data = tmp_path / "ttt.csv"
    data.write_text("\n".join(lines[:6]) + "\n")
    res = run(predict_cmd, [tree_path, data])
    assert res.exit_code == 0, res.output
    note = ("note: column 'top_left': 1 row(s) hold a category the tree never saw (first 'X' at line 4): "
            "encoded as none of its 3 categories")
    assert note in res.stderr
    X = tree.encode({c: [r.split(",")[k] for r in lines[1:6]] for k, c in enumerate(lines[0].split(","))})
    assert [r["prediction"] for r in _csv(res.stdout)] == [str(v) for v in tree.predict(X)]
    res = run(explain_cmd, [tree_path, "--data", data, "--row", 2])
    assert res.exit_code == 0 and note in res.stderr
    res = run(explain_cmd, [tree_path, "--data", data, "--row", 1])
    assert res.exit_code == 0 and "never saw" not in res.stderr


def test_predict_id_column_must_not_shadow_an_output_column(heart, tmp_path):
    tree_path, csv_path, _ = heart
    lines = csv_path.read_text().splitlines()
    lines = [lines[0] + ",prediction"] + [line + f",{k}" for k, line in enumerate(lines[1:])]
    data = tmp_path / "p.csv"
    data.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.csv"
    fails(run(predict_cmd, [tree_path, data, "--id-column", "prediction", "-o", out]),
          f"{data}: --id-column 'prediction' has the name of an output column; the output columns would be "
          "prediction, prediction: rename that column of the CSV file")
    assert not out.exists()
    assert run(predict_cmd, [tree_path, data, "--id-column", "age"]).exit_code == 0


def test_missing_column_names_its_near_miss(tmp_path):
    """'Age' for 'age', or 'âge' in decomposed Unicode (macOS), looks identical: the error says why it differs."""
    import unicodedata

    ds = dataset("heart")
    tree = greedy_tree(ds, 1)
    tree_path = tmp_path / "t.json"
    save(tree, tree_path)
    text = gzip.decompress(dataset_path("heart").read_bytes()).decode()
    data = tmp_path / "case.csv"
    data.write_text(text.replace("age", "Age", 1))
    fails(run(predict_cmd, [tree_path, data]),
          f"{data}: feature column 'age' is missing (1 missing: 'age'); the tree needs 13 columns; "
          "the file has 'Age' (names are case-sensitive)")
    named = copy.deepcopy(tree)  # not tree_for's cached tree, which other tests share
    named.schema = type(named.schema)(tuple(type(c)("âge", c.kind, c.categories) if c.name == "age" else c
                                            for c in named.schema.columns))
    save(named, tree_path)
    data = tmp_path / "nfd.csv"
    data.write_text(text.replace("age", unicodedata.normalize("NFD", "âge"), 1), encoding="utf-8")
    fails(run(explain_cmd, [tree_path, "--data", data, "--row", 0]),
          f"the file has {unicodedata.normalize('NFD', 'âge')!r}, the same name in other Unicode code points "
          "('a\\u0302ge'; the tree's is "
          "'\\xe2ge'): rename the column to the tree's spelling")


def test_a_closed_pipe_on_standard_output_stops_nothing(heart, tmp_path):
    """`olctc fit ... | head -1`: the next echo raised BrokenPipeError, and fit exited 1 without writing its
    tree (decode and collect too; grid said "cannot write FOLDER: Broken pipe"). Now the command writes its
    files and exits with its own code, its remaining output (the solver's log too) going to /dev/null."""
    import json
    import subprocess
    import sys

    tree_path, csv_path, _ = heart
    out = tmp_path / "piped.json"
    for args, made in ((["fit", "--dataset", "haberman", "--depth", "1", "--time-limit", "10", "-o", out], out),
                       (["grid", "--dataset", "haberman", "--depth", "1", "--C-values", "1,10", "--folds", "2",
                         "-o", tmp_path / "g"], tmp_path / "g" / "jobs.tsv"),
                       (["predict", tree_path, csv_path], None)):
        proc = subprocess.Popen([sys.executable, "-m", "olctc.cli", *map(str, args)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline()  # as `head -1` reads, then leaves
        proc.stdout.close()
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 0, (args, err[-2000:])
        assert "Traceback" not in err and "Broken pipe" not in err, err
        if made is not None:
            assert made.exists()
    assert json.loads(out.read_text())["format"] == "olctc-tree"


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
def test_a_failed_write_to_standard_output_is_one_error_line(heart):
    # stdout on a full disk: export, predict, explain (every command: the check is in cli._run) ended in an
    # OSError traceback with exit code 1.
    import subprocess
    import sys

    tree_path, csv_path, _ = heart
    for args in (["export", tree_path, "--format", "text"], ["predict", tree_path, csv_path, "--proba"],
                 ["explain", tree_path, "--data", csv_path, "--row", "0"],
                 ["explain", tree_path, "--data", csv_path, "--row", "0", "--json"],
                 ["datasets"], ["compile", "--dataset", "heart", "--depth", "1", "-o", Path(tree_path).with_name("h.mps")]):
        with open("/dev/full", "w") as full:
            proc = subprocess.run([sys.executable, "-m", "olctc.cli", *map(str, args)], stdout=full,
                                  stderr=subprocess.PIPE, text=True, timeout=120)
        assert proc.returncode == 2, (args, proc.stderr[-2000:])
        assert proc.stderr.splitlines()[-1] == "error: cannot write standard output: No space left on device"
        assert "Traceback" not in proc.stderr
