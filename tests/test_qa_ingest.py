"""Real-world CSV files a user hits on `olctc compile` / `fit`: spreadsheet leftovers (a "sep=;" line, a
separator at the end of every line, a quoted name holding a comma), a workbook or an archive passed for
the CSV, missing labels written as "NA", an identifier column one-hot encoded into millions of values.

Bad input: one error line naming the file and what is wrong, exit code 2, no traceback, the output folder
unchanged. Good input: `fit` then `predict` give the tree's labels.
"""
from __future__ import annotations

import bz2
import codecs
import csv
import io
import json
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest

import olctc.data.csvfile
from olctc.data import Column, Schema, read_csv
from olctc.errors import OlctcError
from olctc.tree import Tree
from conftest import cli_main as run_main
from conftest import cli_sub as run_sub
from test_bad_inputs import snapshot

BASE = "a,b,y\n1,2,0\n3,4,1\n5,1,0\n2,2,1\n"


def compile_fails(tmp_path: Path, capsys, content: str | bytes, message: str, *extra: str,
                  name: str = "d.csv") -> None:
    """`olctc compile` of ``content`` exits 2 with ``error: <file>: <message>`` alone, and leaves the
    output folder (holding a model compiled before) as it was."""
    data = tmp_path / name
    data.write_bytes(content.encode() if isinstance(content, str) else content)
    out = tmp_path / "out"
    if not out.exists():
        out.mkdir()
        (tmp_path / "good.csv").write_text(BASE)
        assert run_main(["compile", tmp_path / "good.csv", "--target", "y", "--depth", "1", "-o", out / "m.mps"],
                        capsys)[0] == 0
    before = snapshot(out)
    code, _, err = run_main(["compile", data, "--target", "y", "--depth", "1", *extra, "-o", out / "m.mps"], capsys)
    assert (code, err) == (2, f"error: {data}: {message}\n")
    assert snapshot(out) == before


# ---------------------------------------------------------------- spreadsheet leftovers

@pytest.mark.parametrize("sep", [";", ",", "\t"])
def test_excel_separator_hint_line_is_named_not_blamed_on_the_data(tmp_path, capsys, sep):
    # before: "line 2 has 3 fields, the header has 2", which pointed at the data
    compile_fails(tmp_path, capsys, f"sep={sep}\n" + BASE.replace(",", sep),
                  f"line 1 is {'sep=' + sep!r}, a spreadsheet's separator hint, not a header; delete that "
                  "line (olctc takes the separator from the header line)")


def test_a_separator_ending_every_line_is_named(tmp_path, capsys):
    compile_fails(tmp_path, capsys, BASE.replace("\n", ",\n"),
                  "the header's last column (column 4) has no name: the header line ends with the separator ','; "
                  "remove the separator at the end of each line, or name the column")
    compile_fails(tmp_path, capsys, BASE.replace(",", ";").replace("\n", ";\r\n"),
                  "the header's last column (column 4) has no name: the header line ends with the separator ';'; "
                  "remove the separator at the end of each line, or name the column")


def test_a_quoted_name_with_a_comma_does_not_make_a_semicolon_file_comma_separated(tmp_path):
    comma = tmp_path / "comma.csv"
    comma.write_text('"price, net",b,y\n"1",2,0\n3,4,1\n5,1,0\n2,2,1\n')
    semi = tmp_path / "semi.csv"
    semi.write_text('"price, net";b;y\n"1";2;0\n3;4;1\n5;1;0\n2;2;1\n')
    want, got = read_csv(comma, "y"), read_csv(semi, "y")
    assert got.feature_names == want.feature_names == ["price, net", "b"]
    assert got.X.tolist() == want.X.tolist() and got.y.tolist() == want.y.tolist()


# ---------------------------------------------------------------- not a CSV at all

def _xlsx() -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("xl/workbook.xml", "<workbook>" + "<sheet/>" * 50 + "</workbook>")
    return buf.getvalue()


NOT_TEXT = [
    ("utf16", BASE.replace(",", "\t").encode("utf-16"), "byte 0xff at offset 0",
     "it is UTF-16 (Excel's \"Unicode Text\"): save the CSV as UTF-8"),
    ("xlsx", _xlsx(), None,
     "it is a zip archive (an Excel .xlsx or OpenDocument .ods workbook?): save the sheet as CSV (UTF-8)"),
    ("xls", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(64), "byte 0xd0 at offset 0",
     "it is an Excel .xls workbook: save the sheet as CSV (UTF-8)"),
    ("bz2", bz2.compress(BASE.encode()), None,
     "it is bzip2-compressed: decompress it (olctc reads gzip or uncompressed files)"),
]


def test_a_workbook_or_archive_is_named_for_what_it_is(tmp_path, capsys):
    for name, content, at, what in NOT_TEXT:
        try:
            content.decode("utf-8")
        except UnicodeDecodeError as exc:
            at = at or f"byte 0x{content[exc.start]:02x} at offset {exc.start}"
        compile_fails(tmp_path, capsys, content, f"not UTF-8 text ({at}); {what}", name=f"{name}.csv")
    # Latin-1 text keeps the plain advice, also when its header starts as bzip2's magic does
    compile_fails(tmp_path, capsys, "BZh9,é,y\n1,2,0\n".encode("latin-1"),
                  "not UTF-8 text (byte 0xe9 at offset 5); save the CSV as UTF-8")


# ---------------------------------------------------------------- labels and weights

def test_na_labels_are_named_as_missing(tmp_path, capsys):
    na = BASE.replace("3,4,1", "3,4,NA")
    compile_fails(tmp_path, capsys, na, "target 'y' has 3 classes [0, 1, 'NA']; olctc trains binary trees: pick one "
                  "with --positive-class, positive_class= in Python (one class against the rest); 'NA' looks like a "
                  "missing label: drop those rows")
    # NaN in any spelling is no label, as "nan" already was
    compile_fails(tmp_path, capsys, BASE.replace("3,4,1", "3,4,-nan"),
                  "target 'y' line 3: no class label ('-nan'); drop the unlabelled rows")
    # with --positive-class the NA rows joined the negatives without a word
    data = tmp_path / "na.csv"
    data.write_text(na)
    code, _, err = run_main(["compile", data, "--target", "y", "--positive-class", "1", "--depth", "1",
                             "-o", tmp_path / "na.mps"], capsys)
    assert code == 0
    assert err == (f"warning: {data}: target 'y' line 3: label 'NA' looks like a missing value, yet trains as class "
                   "'not 1'; drop the unlabelled rows if it is one\n")
    # asked for, it is a class: no warning; and decode, re-reading the data, does not warn again
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_csv(data, "y", positive_class="NA")
        read_csv(data, "y", positive_class="1", warn_identifiers=False)


def test_no_feature_but_the_weight_column_names_it(tmp_path, capsys):
    compile_fails(tmp_path, capsys, "w,y\n1,0\n2,1\n3,0\n",
                  "no feature columns besides the target 'y' and the weight column 'w'", "--weight-column", "w")


def test_column_names_typed_with_spaces_are_the_stripped_header_names(tmp_path):
    # The reader strips header names; --target " y" (a quoting slip) was "not found; columns are: a, b, y".
    data = tmp_path / "s.csv"
    data.write_text("a, b ,w,y\n1,2,1,no\n3,4,2,yes\n5,1,1,no\n2,2,1,yes\n")
    ds = read_csv(data, " y ", drop=[" b"], weight_column=" w")
    plain = read_csv(data, "y", drop=["b"], weight_column="w")
    assert ds.target == plain.target == "y"
    assert [c.name for c in ds.schema.columns] == ["a"]
    np.testing.assert_array_equal(ds.X, plain.X)
    np.testing.assert_array_equal(ds.y, plain.y)
    np.testing.assert_array_equal(ds.weight, [1, 2, 1, 1])
    assert ds.weight_column == "w"


def test_a_label_in_another_case_gets_a_hint_not_a_match(tmp_path, capsys):
    bools = "a,b,y\n1,2,True\n3,4,False\n5,1,True\n2,2,False\n"
    compile_fails(tmp_path, capsys, bools, "positive class 'true' is not a value of target 'y'; its values are "
                  "['False', 'True']; did you mean 'True'?", "--positive-class", "true")
    code, _, err = run_main(["compile", tmp_path / "d.csv", "--target", "y", "--class-weight", "true=2",
                             "--depth", "1", "-o", tmp_path / "out" / "m.mps"], capsys)
    assert (code, err) == (2, "error: The 'class_weight' parameter (--class-weight) must be weights of the classes "
                              "['False', 'True'] ('true' is not one; did you mean 'True'?). Got 'true=2' instead.\n")
    # two labels differing in case are two classes: no guess between them
    compile_fails(tmp_path, capsys, "a,y\n1,Yes\n2,yes\n3,Yes\n", "positive class 'YES' is not a value of target "
                  "'y'; its values are ['Yes', 'yes']", "--positive-class", "YES")


# ---------------------------------------------------------------- one-hot blow-up

def test_an_identifier_too_wide_to_encode_is_refused_by_name_before_encoding(tmp_path, capsys, monkeypatch):
    # 60,000 rows of an identifier made a 60,000 x 60,000 matrix (29 GB): a MemoryError traceback after
    # minutes. The limit (compile's --max-nonzeros) is lowered here so that 40 rows stand for them.
    monkeypatch.setattr(olctc.data.csvfile, "ONE_HOT_EARLY", 0)
    monkeypatch.setattr(Schema, "encode", lambda *a, **k: pytest.fail("encoded before the size check"))
    rows = "\n".join(f"cust {i},{i % 7},{'north' if i % 3 else 'south'},{i % 2}" for i in range(40))
    compile_fails(tmp_path, capsys, "customer id,a,region,y\n" + rows + "\n",
                  "one-hot encoding its text columns gives 42 features on 40 rows, 1,680 values (no model within "
                  "--max-nonzeros 1,560 fits them); column 'customer id' alone has 40 different values (an "
                  "identifier? leave it out with --drop 'customer id')", "--max-nonzeros", "1560")
    monkeypatch.undo()
    # the default limit, 400,000,000, lets the data through; decode re-reads it with no limit
    with pytest.warns(UserWarning, match="column 'customer id' has a different text value on each of its 40 rows"):
        assert read_csv(tmp_path / "d.csv", "y").X.shape == (40, 43)
        # below 10 million values (ONE_HOT_EARLY) a limit lets it through, as the docstring says: compile's own
        # size check names the model's size instead
        assert read_csv(tmp_path / "d.csv", "y", max_one_hot=100).X.shape == (40, 43)
    for bad in (0, -5, 2.5, True, "100"):  # 0 was taken, as no limit at all
        with pytest.raises(OlctcError, match=r"^The 'max_one_hot' parameter must be None or an integer >= 1 "):
            read_csv(tmp_path / "d.csv", "y", max_one_hot=bad)


def test_one_hot_encoding_fills_one_matrix_as_the_comparison_did():
    rng = np.random.default_rng(0)
    cats = tuple(f"c{k}" for k in range(30))
    vals = [f"c{k}" for k in rng.integers(0, 40, size=500)]  # c30..c39 unseen: all zeros
    schema = Schema((Column("x", "numeric"), Column("c", "categorical", cats), Column("z", "numeric")))
    X = schema.encode({"x": np.arange(500.0), "c": vals, "z": [" 2.5 "] * 500})
    want = (np.asarray(vals, dtype=object)[:, None] == np.asarray(cats, dtype=object)).astype(float)
    assert X.tolist() == np.column_stack([np.arange(500.0), want, np.full(500, 2.5)]).tolist()
    # columns of different lengths: one line, not numpy's "all the input array dimensions ..."
    with pytest.raises(OlctcError, match=r"^rows: column 'c' has 2 values, column 'x' has 3$"):
        schema.encode({"x": [1, 2, 3], "c": ["c1", "c2"], "z": [1, 2, 3]}, "rows")


# ---------------------------------------------------------------- good files round-trip

ROUND_TRIP = {  # the name 'a' replaced after the separators, so that it keeps its comma
    "bom-crlf-semicolon-quoted-name": lambda body: "\ufeff" + body.replace(",", ";").replace("\n", "\r\n")
    .replace("a;", '"a, raw";', 1),
    "pipe-text-labels-quoted-name": lambda body: body.replace(",", "|").replace("|1\n", "|has disease\n")
    .replace("|0\n", "|no disease\n").replace("a|", '"a, raw"|', 1),
}


@pytest.mark.parametrize("name", list(ROUND_TRIP))
def test_fit_then_predict_on_the_same_awkward_file_gives_the_trees_labels(tmp_path, name):
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=30), rng.normal(size=30)
    lines = ["a,b,region,y"] + [f"{a[i]:.3f},{b[i]:.3f},{'n' if i % 3 else 's'},{int(a[i] + b[i] > 0)}"
                                for i in range(30)]
    data = tmp_path / "d.csv"
    data.write_text(ROUND_TRIP[name]("\n".join(lines) + "\n"), newline="")
    code, out, err = run_sub(["fit", data, "--target", "y", "--depth", "1", "--time-limit", "10", "--test-size", "0",
                              "--quiet", "-o", tmp_path / "t.json"], tmp_path)
    assert code == 0, err
    code, out, err = run_sub(["predict", tmp_path / "t.json", data], tmp_path)
    assert code == 0, err
    tree = Tree.from_dict(json.loads((tmp_path / "t.json").read_text()))
    ds = read_csv(data, "y")
    assert [r[0] for r in list(csv.reader(io.StringIO(out)))[1:]] == [str(v) for v in tree.predict(ds.X)]
    assert codecs.BOM_UTF8 not in out.encode()
