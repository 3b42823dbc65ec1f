"""Data in: vendored data sets, encoding, class mapping, standardisation, and every bad table."""
from __future__ import annotations

import gzip
import hashlib
import re
import warnings

import numpy as np
import pytest

import olctc
from olctc.data import Scaler, from_arrays, read_csv
from olctc.datasets import dataset_names, dataset_path, load, load_dataset
from olctc.errors import OlctcError
from olctc.formulation.losses import logistic_tangents
from olctc.spec import TreeSpec, make_spec

SHAPES = {"a6a": (11220, 123), "breast": (569, 30), "climate": (540, 18), "german.numer": (1000, 24),
          "haberman": (306, 3), "heart": (297, 13), "ionosphere": (351, 34), "parkinsons": (195, 22),
          "phishing": (11055, 68), "sonar": (208, 60), "spectf": (267, 44), "splice": (1000, 60),
          "svmguide1": (3089, 4), "svmguide3": (1243, 22), "tic-tac-toe": (958, 27), "w5a": (9888, 300),
          "wholesale": (440, 7)}

# sha256 of the uncompressed CSVs, from the provenance README
SHA = {"breast": "db5f878dad3c9b39aa946fda1e4251b0e790787104a3aacf00e6ba8964fd6697",
       "tic-tac-toe": "08104a9b94088561682ec802d560ebc0f8162bc7c9c7a7f97f0c787ade7bb0b9",
       "a6a": "670ab0ec809016ee8f080da427854a45c08a00d3ced5b5733562dc103637b41f"}


def test_all_seventeen_vendored_with_the_papers_shapes():
    assert sorted(SHAPES) == dataset_names()
    for name, shape in SHAPES.items():
        X, y, names = load_dataset(name)
        assert X.shape == shape, name
        assert len(names) == shape[1] and y.shape == (shape[0],)
        assert len(set(y.tolist())) == 2


@pytest.mark.parametrize("name", sorted(SHA))
def test_vendored_bytes_match_provenance(name):
    raw = gzip.decompress(dataset_path(name).read_bytes())
    assert hashlib.sha256(raw).hexdigest() == SHA[name]
    assert load(name).sha256 == SHA[name]


def test_tic_tac_toe_one_hot_27_columns():
    ds = load("tic-tac-toe")
    assert ds.p == 27
    assert ds.feature_names[:3] == ["top_left=b", "top_left=o", "top_left=x"]
    # every square is exactly one of x / o / b
    assert np.array_equal(ds.X.reshape(ds.n, 9, 3).sum(axis=2), np.ones((ds.n, 9)))
    assert ds.classes == ("negative", "positive") and (ds.y > 0).sum() == 626


def test_class_mapping_default_and_positive_class():
    ds = load("haberman")
    assert ds.classes == (1, 2) and (ds.y > 0).sum() == 81
    ds = load("haberman", positive_class="1")
    assert ds.classes == (2, 1) and (ds.y > 0).sum() == 225
    ds = load("german.numer")  # labels written +1 / -1: sorted numerically
    assert ds.classes == (-1, 1) and (ds.y > 0).sum() == 300


def test_scaler_is_population_std_and_handles_constant_columns():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [5.0, 5.0]])
    s = Scaler.fit(X)
    assert np.allclose(s.mean, [3.0, 5.0]) and np.allclose(s.scale, [np.std([1, 3, 5]), 1.0])
    Z = s.transform(X)
    assert np.allclose(Z[:, 0].std(), 1.0) and np.all(Z[:, 1] == 0)
    from sklearn.preprocessing import StandardScaler

    ds = load("ionosphere")  # column a2 is constant 0
    assert np.allclose(Scaler.fit(ds.X).transform(ds.X), StandardScaler().fit_transform(ds.X))


def test_a_value_at_the_mean_standardises_to_exactly_zero(tmp_path):
    """heart's first 24 rows: a column of mean 1.5 is summed to 1.5 + 2.2e-16, so its 1.5s came out as
    -2.1e-16, a model coefficient that glpsol read from the LP file to a false optimum (9.81 for 5.92)."""
    import subprocess
    import sys

    X = load("heart").X[:24]
    mean = X.mean(axis=0)
    at_mean = X == 1.5
    assert at_mean[:, 9].any() and mean[9] != 1.5  # the rounding this is about
    Z = Scaler.fit(X).transform(X)
    assert np.all(Z[at_mean[:, 9], 9] == 0.0)
    assert not np.any((np.abs(Z) < 1e-12) & (Z != 0))
    assert np.allclose(Z, (X - mean) / X.std(axis=0), rtol=0, atol=1e-15)

    ds = load("heart")
    csv = tmp_path / "h24.csv"
    csv.write_text(",".join([*ds.feature_names, "y"]) + "\n" + "".join(
        ",".join(repr(float(v)) for v in ds.X[i]) + f",{int(ds.y[i])}\n" for i in range(24)))
    objectives = []
    for solver in ("glpk-cli", "highs"):
        model = tmp_path / f"h-{solver}.lp"
        run = [sys.executable, "-m", "olctc.cli"]
        assert subprocess.run([*run, "compile", csv, "--target", "y", "--depth", "1", "-o", model],
                              capture_output=True).returncode == 0
        out = subprocess.run([*run, "solve", model, "--solver", solver, "--quiet", "--time-limit", "30"],
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        objectives.append(float(re.search(r"objective (\S+),", out.stdout).group(1)))
    assert objectives[0] == pytest.approx(objectives[1], rel=1e-6) == 5.924656475


def test_public_load_dataset_exported():
    X, y, names = olctc.load_dataset("wholesale")
    assert X.shape == (440, 7) and names[0] == "Region"
    assert y.dtype == np.int64 and set(y.tolist()) == {1, 2}
    from sklearn.metrics import balanced_accuracy_score

    _, y2, _ = olctc.load_dataset("ionosphere")  # text labels: a str array scikit-learn accepts
    assert y2.dtype.kind == "U" and balanced_accuracy_score(y2, y2) == 1.0


def write(tmp_path, text: str, name: str = "d.csv"):
    p = tmp_path / name
    p.write_text(text)
    return p


BAD_TABLES = [
    ("", "the file is empty"),
    ("a,b,y\n", "0 data row(s); at least 2 points are needed"),
    ("a,b,y\n1,2,0\n", "1 data row(s); at least 2 points are needed"),
    ("a,b,c\n1,2,0\n3,4,1\n", "target column 'y' not found; columns are: a, b, c"),
    ("a b y\n1 2 0\n3 4 1\n", "target column 'y' not found: the header is one column 'a b y'; olctc reads "
                             "comma-, semicolon-, tab- or '|'-separated files (save it with commas)"),
    ("a,b,y\n1,2,0\n3,4,0\n", "target 'y' has one class only (0); a classifier needs two"),
    # labels read as numbers: "1" and "1.0" are one class (pandas' reading); the message says why there is one
    ("a,b,y\n1,2,1\n3,4,1.0\n5,6,1\n", "target 'y' has one class only (1, read as one number from the cells '1', "
                                      "'1.0'); a classifier needs two"),
    ("a,b,y\n1,2,0\n3,4,1\n5,6,2\n", "target 'y' has 3 classes [0, 1, 2]; olctc trains binary trees: "
                                     "pick one with --positive-class, positive_class= in Python (one "
                                     "class against the rest)"),
    ("a,b,y\n1,2,0\nnan,4,1\n", "column 'a' line 3: expected a finite number, got 'nan'"),
    ("a,b,y\n1,inf,0\n3,4,1\n", "column 'b' line 2: expected a finite number, got 'inf'"),
    ("a,b,y\n1,2,0\n3,4,1\n5,x,1\n", "column 'b' line 4: expected a number, got 'x'"),
    ("a,b,y\n1,,0\n3,4,1\n", "column 'b' line 2: empty cell (1 in this column); fill or drop missing values "
     "(olctc does not impute), or leave a column out (--drop; drop= in Python)"),
    ("a,b,y\n1,2,0\n3,4\n", "line 3 has 2 fields, the header has 3"),
    ("a,a,y\n1,2,0\n3,4,1\n", "the header names column 'a' twice"),
    # a blank line or only separators before the header: "line 2 has 3 fields, the header has 0"
    ("\na,b,y\n1,2,0\n3,4,1\n", "line 1, the header, is blank or only separators: the file must start with its header "
                                "line (the column names); delete the lines before it"),
    (",,\na,b,y\n1,2,0\n3,4,1\n", "line 1, the header, is blank or only separators: the file must start with its "
                                  "header line (the column names); delete the lines before it"),
    ("a,,y\n1,2,0\n3,4,1\n", "the header's column 2 (after 'a') has no name; name it"),
    ("y\n0\n1\n", "no feature columns besides the target 'y'"),
    ("a,b,y\nu,1,0\nv,w,1\nq,r,1\n", "column 'b' mixes text and numbers (line 2 has '1'); make it all text "
                                     "(categorical) or all numbers"),
    # an unlabelled row is not a third class, nor (with --positive-class) a negative example
    ("a,b,y\n1,2,x\n3,4,\n5,6,x\n7,8,y\n", "target 'y' line 3: no class label (''); drop the unlabelled rows"),
    ("a,b,y\n1,2,x\n3,4,NaN\n5,6,y\n", "target 'y' line 3: no class label ('NaN'); drop the unlabelled rows"),
    # all-numeric files go through numpy's fast reader: "#" must not start a comment there either
    ("a,b,y\n1,12#3,x\n3,4,y\n", "column 'b' line 2: expected a number, got '12#3'"),
    # Python's float() reads "1_000" as 1000 (digit grouping in literals): not a number in a CSV
    ("a,b,y\n1,2,x\n3,1_000,y\n", "column 'b' line 3: expected a number, got '1_000'"),
    ("a,c=x,c,y\n1,5,x,0\n3,4,z,1\n", "feature 'c=x' would come from column 'c=x' and from category 'x' of "
                                        "column 'c'; rename one of the columns"),
]


@pytest.mark.parametrize("text,message", BAD_TABLES)
def test_bad_tables(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(OlctcError) as exc:
        read_csv(p, "y")
    assert str(exc.value) == f"{p}: {message}"



# Quoted cells spanning lines: rows 0 and 2 take 2 and 3 lines, so the row after them (row 3) starts on
# line 8 (header 1, row 0 on 2-3, row 1 on 4, row 2 on 5-7), not on line 5 as counting records says.
MULTI = 'a,note,y\n1,"two\nlines",x\n2,plain,y\n3,"three\nmore\nlines",x\n'

MULTI_LINE_TABLES = [
    (MULTI + "foo,n,y\n", "column 'a' line 8: expected a number, got 'foo'"),
    (MULTI + "inf,n,y\n", "column 'a' line 8: expected a finite number, got 'inf'"),
    (MULTI + "nan,n,y\n", "column 'a' line 8: expected a finite number, got 'nan'"),
    (MULTI + ",n,y\n", "column 'a' line 8: empty cell (1 in this column); fill or drop missing values "
                        "(olctc does not impute), or leave a column out (--drop; drop= in Python)"),
    (MULTI + "4,n\n", "line 8 has 2 fields, the header has 3"),
    (MULTI + "\n4,n,y\n", "line 8 is blank; remove blank lines inside the data"),
    (MULTI + "4,n,\n", "target 'y' line 8: no class label (''); drop the unlabelled rows"),
    (MULTI + "4,7,y\n", "column 'note' mixes text and numbers (line 8 has '7'); make it all text "
                         "(categorical) or all numbers"),
    # a header spanning lines moves every row down; CRLF line ends count once
    ('"a\nlong",note,y\n1,"two\nlines",x\n2,plain,y\nfoo,n,y\n', "column 'a\\nlong' line 6: expected a number, "
                                                                  "got 'foo'"),
    (MULTI.replace("\n", "\r\n") + "foo,n,y\r\n", "column 'a' line 8: expected a number, got 'foo'"),
]


@pytest.mark.parametrize("text,message", MULTI_LINE_TABLES)
def test_bad_cells_after_multi_line_cells_name_the_physical_line(tmp_path, text, message):
    for p in (write(tmp_path, text), tmp_path / "d.csv.gz"):
        if p.suffix == ".gz":
            p.write_bytes(gzip.compress(text.encode()))
        with pytest.raises(OlctcError) as exc:
            read_csv(p, "y")
        assert str(exc.value) == f"{p}: {message}"


def test_grouped_digits_are_no_number_on_the_array_path_either():
    from olctc.data.cells import _to_float_column

    assert _to_float_column(["1", "2.5"], "a", "f").tolist() == [1.0, 2.5]
    with pytest.raises(OlctcError, match=r"^f: column 'a' line 3: expected a number, got '1_0'$"):
        _to_float_column(["1", "1_0"], "a", "f")  # predict's path: numpy read it as 10


def test_row_lines_of_read_table(tmp_path):
    from olctc.data import read_table
    from olctc.data.cells import _to_float_column

    p = write(tmp_path, '"a\nb",y\n1,"x\n\ny"\n2,z\n\n')
    t = read_table(p)
    header, body, lines = t.header, t.rows, t.lines
    assert t.delimiter == "," and header == ["a\nb", "y"] and body == [["1", "x\n\ny"], ["2", "z"]]
    assert lines.tolist() == [3, 6]
    assert _to_float_column(["1", "2"], "a", "f", lines).tolist() == [1.0, 2.0]
    with pytest.raises(OlctcError, match=r"^f: column 'a' line 6: expected a number, got 'q'$"):
        _to_float_column(["1", "q"], "a", "f", lines)
    with pytest.raises(OlctcError, match=r"^f: column 'a' line 11: expected a number, got 'q'$"):
        _to_float_column(["1", "q"], "a", "f", 10)  # an int: the line of the first value


def test_cli_compile_names_the_physical_line_after_multi_line_cells(tmp_path, capsys):
    from conftest import cli_main

    p = write(tmp_path, MULTI + "4,n,y\nfoo,n,x\n")
    code, out, err = cli_main(["compile", p, "--target", "y", "-o", tmp_path / "m.mps"], capsys)
    assert (code, out, err) == (2, "", f"error: {p}: column 'a' line 9: expected a number, got 'foo'\n")
    assert not (tmp_path / "m.mps").exists()


def _predict_files(tmp_path, data: str):
    """A depth-1 tree on columns a (numeric) and note (categorical), and ``data`` to predict."""
    from olctc.export.json import save
    from olctc.tree import Tree

    ds = read_csv(write(tmp_path, 'a,note,y\n1,p,x\n2,"q\nr",y\n3,p,x\n', "train.csv"), "y")
    tree = Tree(np.zeros((1, ds.p)), np.ones(1), Scaler.fit(ds.X), ds.schema, ds.classes, meta={"depth": 1})
    tree.fit_stats(ds.X, ds.y)
    save(tree, tmp_path / "tree.json")
    return tmp_path / "tree.json", write(tmp_path, data, "new.csv")


# row 0 on lines 2-3, row 1 on 4, row 2 on 5-6: row 3 starts on line 7 (not 5)
PREDICT_MULTI = 'a,note,y\n1,"q\nr",x\n2,p,y\n3,"q\nr",x\n'


def test_cli_predict_ragged_row_names_the_physical_line(tmp_path, capsys):
    from conftest import cli_main

    tree, data = _predict_files(tmp_path, PREDICT_MULTI + "4,p\n")
    code, out, err = cli_main(["predict", tree, data], capsys)
    assert (code, out, err) == (2, "", f"error: {data}: line 7 has 2 fields, the header has 3\n")


@pytest.mark.parametrize("bad,message", [
    ("foo,p,y", "column 'a' line 7: expected a number, got 'foo'"),
    (",p,y", "line 7 column 'a': empty cell; the tree needs a value for every feature"),
])
def test_cli_predict_bad_cell_names_the_physical_line(tmp_path, capsys, bad, message):
    from conftest import cli_main

    tree, data = _predict_files(tmp_path, PREDICT_MULTI + bad + "\n")
    code, out, err = cli_main(["predict", tree, data], capsys)
    assert (code, out, err) == (2, "", f"error: {data}: {message}\n")


def test_cli_predict_unseen_category_note_names_the_physical_line(tmp_path, capsys):
    from conftest import cli_main

    tree, data = _predict_files(tmp_path, PREDICT_MULTI + "4,zz,y\n")
    code, out, err = cli_main(["predict", tree, data], capsys)
    assert code == 0
    assert err.splitlines()[0] == ("note: column 'note': 1 row(s) hold a category the tree never saw (first "
                                   "'zz' at line 7): encoded as none of its 2 categories")
    assert err.count("never saw") == 1  # the note, not also Tree.encode's warning


def test_encode_warns_of_unseen_categories_as_onehotencoder_does(tmp_path):
    # The CLI noted them; in Python they were silent (scikit-learn's OneHotEncoder(handle_unknown='ignore')
    # warns). One warning per column, naming it, the rows and the first unseen value with its row.
    from olctc.errors import UnseenCategoryWarning
    from olctc.export.json import load as load_tree

    tree = load_tree(_predict_files(tmp_path, PREDICT_MULTI)[0])
    seen = {"a": [1.0, 2.0, 3.0], "note": ["p", "q\nr", "p"]}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        X = tree.encode(seen)
        tree.explain({"a": 1.0, "note": "p"})
    with pytest.warns(UnseenCategoryWarning) as record:
        got = tree.encode({"a": [1.0, 2.0, 3.0, 4.0], "note": ["p", "P", "q\nr", "zz"]})
    assert [str(w.message) for w in record] == [
        "data: column 'note': 2 row(s) hold a category the tree never saw (first 'P' at row 1): encoded as none "
        "of its 2 categories"]
    assert record[0].filename == __file__  # the caller's line, not olctc's
    assert got[[0, 2], 1:].tolist() == X[[0, 1], 1:].tolist() and got[[1, 3], 1:].tolist() == [[0, 0], [0, 0]]
    with pytest.warns(UnseenCategoryWarning, match="^x_row: column 'note': 1 row"):
        tree.explain({"a": 1.0, "note": "zz"})
    # a number in a text column, as numpy holds it: quoted as 7, not np.int64(7)
    with pytest.warns(UnseenCategoryWarning, match=r"\(first 7 at row 0\)"):
        tree.encode({"a": np.array([1.0]), "note": np.array([7])})


def test_labels_keep_their_value_and_text(tmp_path):
    cases = [("12345678901234567890", "12345678901234567891", (12345678901234567890, 12345678901234567891)),
             ("007", "010", ("007", "010")),  # codes, not 7 and 10
             ("-1", "+1", (-1, 1)), ("0.0", "1.0", (0, 1)), ("1", "2.5", (1, 2.5)), ("no", "yes", ("no", "yes")),
             ("0", "1" * 5000, (0, "1" * 5000))]  # above Python's int text limit: a traceback, now a code
    for a, b, classes in cases:
        ds = read_csv(write(tmp_path, f"x,y\n1,{a}\n2,{b}\n3,{a}\n"), "y")
        assert ds.classes == classes and [type(c) for c in ds.classes] == [type(c) for c in classes]
        assert ds.y.tolist() == [-1, 1, -1]
    from olctc.tree import class_array

    assert class_array((1, 2.5)).tolist() == [1, 2.5] and str(class_array((1, 2.5))[0]) == "1"
    assert class_array((0, 10 ** 19)).tolist() == [0, 10 ** 19]  # beyond int64: Python ints


def test_awkward_but_valid_csv_files(tmp_path):
    # old Mac line ends; a cell longer than csv's default 128 KiB limit; "NaN" and "Inf" as words
    assert read_csv(write(tmp_path, "a,b,y\r1,2,x\r3,4,y\r"), "y").X.tolist() == [[1, 2], [3, 4]]
    ds = read_csv(write(tmp_path, "a,b,y\n1,1." + "0" * 200_000 + ",x\n3,4,y\n"), "y")
    assert ds.X[0, 1] == 1.0
    ds = read_csv(write(tmp_path, "a,name,y\n1,Bob,x\n3,NaN,y\n5,Inf,x\n"), "y")
    assert ds.feature_names == ["a", "name=Bob", "name=Inf", "name=NaN"]


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_semicolon_tab_and_pipe_separated_files_read_as_their_comma_twin(tmp_path, sep):
    # all numeric (numpy's fast reader) and with a text column (the cell-by-cell path)
    for text in ("a,b,y\n1.5,2,x\n3,-4e2,y\n5,6,x\n", 'a,note,y\n1.5,p,x\n3,"q r",y\n5,p,x\n'):
        twin = read_csv(write(tmp_path, text), "y")
        ds = read_csv(write(tmp_path, text.replace(",", sep), "sep.csv"), "y")
        assert ds.feature_names == twin.feature_names and ds.classes == twin.classes
        assert np.array_equal(ds.X, twin.X) and np.array_equal(ds.y, twin.y)
    # the header decides: a header with a comma keeps commas, whatever the cells hold
    ds = read_csv(write(tmp_path, "a,b,y\n1,p;q,x\n2,r,y\n"), "y")
    assert ds.feature_names == ["a", "b=p;q", "b=r"]


@pytest.mark.parametrize("text,message", [
    # a spreadsheet's "CSV" in a decimal-comma locale: numbers must not become one-hot categories
    ("a;b;y\n1,5;2;x\n3,25;4;y\n", "column 'a' line 2: expected a number, got '1,5', a number with a comma"),
    ("a;b;y\n1;2;x\n3;-0,5;y\n", "column 'b' line 3: expected a number, got '-0,5', a number with a comma"),
    ('a,b,y\n1,"1,000",x\n2,"2,500",y\n', "column 'b' line 2: expected a number, got '1,000', a number with a "
                                          "comma"),
    # a thousands dot with the decimal comma: the column was one-hot categories, silently, as no cell matched
    ("a;b;y\n12,5;2;x\n1.234,5;4;y\n3,0;1;x\n", "column 'a' line 2: expected a number, got '12,5', a number with a "
                                                "comma"),
    ("a;b;y\n1.234,5;2;x\n2.000,25;4;y\n", "column 'a' line 2: expected a number, got '1.234,5', a number with a "
                                          "comma"),
    # digit grouping by commas among plain numbers: refused without the hint
    ("a\tb\ty\n1,234.5\t2\tx\n3\t4\ty\n5\t6\tx\n", "column 'a' line 2: expected a number, got '1,234.5', a "
                                                       "number with a comma"),
])
def test_numbers_with_commas_are_refused_with_a_hint(tmp_path, text, message):
    with pytest.raises(OlctcError, match="^" + re.escape(f"{tmp_path / 'd.csv'}: {message}; olctc reads numbers "
                                                          "as 1234.5 (no decimal comma, no digit grouping)") + "$"):
        read_csv(write(tmp_path, text), "y")


def test_cli_predict_reads_a_semicolon_file_as_its_comma_twin(tmp_path, capsys):
    from conftest import cli_main

    tree, data = _predict_files(tmp_path, 'a,note,y\n1,p,x\n2.5,"q\nr",y\n')
    code, out, err = cli_main(["predict", tree, data, "--proba"], capsys)
    semi = write(tmp_path, 'a;note;y\n1;p;x\n2.5;"q\nr";y\n', "semi.csv")
    assert code == 0 and cli_main(["predict", tree, semi, "--proba"], capsys) == (0, out, err)
    assert out.count("\n") == 3
    bad = write(tmp_path, "a;note;y\n1;p;x\n2,5;p;y\n", "bad.csv")
    code, out, err = cli_main(["predict", tree, bad], capsys)
    assert (code, out) == (2, "") and err.startswith(f"error: {bad}: column 'a' line 3: expected a number, got "
                                                     "'2,5', a number with a comma;")


def test_huge_values_standardise_or_say_which_column(tmp_path):
    from olctc.compile import compile_problem

    ds = read_csv(write(tmp_path, "a,b,y\n1,1e200,x\n3,-1e200,y\n5,2e200,x\n7,3e200,y\n"), "y")
    sc = Scaler.fit(ds.X)
    assert np.isfinite(sc.scale).all() and sc.mean[1] == pytest.approx(1.25e200)
    assert sc.scale[1] == pytest.approx(np.std([1, -1, 2, 3]) * 1e200)
    assert compile_problem(ds, make_spec(depth=1)).manifest["scaler"]["scale"][1] == pytest.approx(sc.scale[1])
    ds = read_csv(write(tmp_path, "a,b,y\n1,1.7e308,x\n3,-1.7e308,y\n5,1.7e308,x\n"), "y")
    with pytest.raises(OlctcError, match=r"feature 'b' is too large to standardise \(\|value\| up to 1.7e\+308\)"):
        compile_problem(ds, make_spec(depth=1))


def test_subnormal_spread_is_refused_before_the_solve(tmp_path, capsys):
    from conftest import cli_main
    from olctc.compile import compile_problem

    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    ok = compile_problem(from_arrays(X * [1e-200, 1.0], y), make_spec(depth=1))
    assert ok.manifest["scaler"]["scale"][0] == pytest.approx(X[:, 0].std() * 1e-200)
    # a spread of 1e-310 made weights on raw values of 1e310: the fit failed after the solve, naming no column
    with pytest.raises(OlctcError, match=r"feature 'x0' spreads by \d\.\d+e-31\d only .* rescale the column$"):
        compile_problem(from_arrays(X * [1e-310, 1.0], y, feature_names=["x0", "x1"]), make_spec(depth=1))
    rows = "\n".join(f"{float(a)!r},{float(b)!r},{c}" for (a, b), c in zip(X * [1e-310, 1.0], y))
    data = write(tmp_path, f"x0,x1,y\n{rows}\n")
    code, out, err = cli_main(["compile", str(data), "--target", "y", "-o", str(tmp_path / "m.mps")], capsys)
    assert code == 2 and "feature 'x0' spreads by" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_constant_data_and_small_big_m_are_warned_of():
    from olctc.compile import compile_problem

    rng = np.random.default_rng(4)
    X = rng.normal(size=(20, 2))
    y = np.where(X[:, 0] > 0, 1, -1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        compile_problem(from_arrays(X * [0.0, 1.0], y), make_spec(depth=2))  # one constant column: no warning
        compile_problem(from_arrays(X, y), make_spec(depth=2, big_m=np.log(2)))
        compile_problem(from_arrays(X, y), make_spec(depth=1, big_m=0.5))  # layer 1's rows have no big-M
        compile_problem(from_arrays(X, y), make_spec(preset="oct-h", depth=2, big_m=0.5))
    with pytest.warns(UserWarning, match=r"every feature is constant on the 20 points compiled"):
        compile_problem(from_arrays(np.full((20, 2), 3.0), y), make_spec(depth=2))
    with pytest.warns(UserWarning, match=r"big_m 0\.6 is below the logistic loss of a score of 0 \(0\.693\)"):
        compile_problem(from_arrays(X, y), make_spec(depth=2, big_m=0.6))
    with pytest.warns(UserWarning, match=r"big_m 0\.9 is below the hinge loss of a score of 0 \(1\)"):
        compile_problem(from_arrays(X, y), make_spec(preset="margot", depth=3, big_m=0.9))


@pytest.mark.parametrize("missing", [np.nan, None, "NA", "NaT"])
def test_from_arrays_refuses_rows_without_a_label(missing):
    pd = pytest.importorskip("pandas")
    X = np.arange(12.0).reshape(6, 2)
    labels = [0, 1, 1, 0, 1, 0]
    if missing == "NA":
        y = pd.Series([0, 1, pd.NA, 0, 1, 0], dtype="Int64")
    elif missing == "NaT":
        y = np.array(["2020-01-01", "2020-01-02", "NaT", "2020-01-01", "2020-01-02", "2020-01-01"],
                     dtype="datetime64[D]")
    else:
        y = np.array(labels[:2] + [missing] + labels[3:], dtype=float if missing is not None else object)
    # a NaN was a class of its own (7 "classes"), and with positive_class every unlabelled row a negative one
    for kw in ({}, {"positive_class": 1}):
        with pytest.raises(OlctcError, match=r"^y row 2: no class label \(.*\); drop the unlabelled rows$"):
            from_arrays(X, y, **kw)
    assert from_arrays(X, np.array(labels, dtype=float)).classes == (0, 1)


def test_columns_of_few_texts_convert_as_numpy_does():
    # a column of few different texts (0/1, one-hot) is converted one text at a time: the same floats to the bit
    from olctc.data.cells import _parse_column, _to_float_column

    texts = ["0", "1", "-0", "0.1", "1e-320", "+2.5", "7.", ".5", "1E3", "inf", "nan", "-1e400"]
    vals = [texts[k % len(texts)] for k in range(5000)]
    got = _parse_column(vals, "c", "f.csv")
    want = np.asarray(vals, dtype=np.float64)
    assert got.tobytes() == want.tobytes()  # -0.0 and the NaNs' bits included
    assert np.signbit(got[2]) and got[4] == 1e-320
    with pytest.raises(OlctcError, match=r"^f.csv: column 'c' line 11: expected a finite number, got 'inf'"):
        _to_float_column(vals, "c", "f.csv")
    bad = vals[:100] + ["1_000"] + vals[:100]  # digit grouping: refused, as in any column
    with pytest.raises(OlctcError, match=r"^f.csv: column 'c' line 102: expected a number, got '1_000'"):
        _parse_column(bad, "c", "f.csv")
    numbers = [0.0, -0.0] * 100  # numbers, not texts: converted by numpy, -0.0 kept
    assert np.signbit(_parse_column(numbers, "c", "f.csv")[1::2]).all()


def test_missing_file_and_folder(tmp_path):
    with pytest.raises(OlctcError, match=r"no such file$"):
        read_csv(tmp_path / "nope.csv", "y")
    with pytest.raises(OlctcError, match=r"is a folder, expected a CSV file$"):
        read_csv(tmp_path, "y")


def test_unknown_positive_class(tmp_path):
    p = write(tmp_path, "a,y\n1,cat\n2,dog\n")
    with pytest.raises(OlctcError, match=r"positive class 'cow' is not a value of target 'y'; its values are \['cat', 'dog'\]"):
        read_csv(p, "y", positive_class="cow")


def test_many_long_labels_are_listed_short(tmp_path):
    """A target of free text (here 12 labels of 200 characters) has as many classes as rows: the message listed
    ten whole labels, 2,000 characters on one line."""
    labels = [f"{k:02d}" + "x" * 198 for k in range(12)]
    p = write(tmp_path, "a,y\n" + "".join(f"{k},{lab}\n" for k, lab in enumerate(labels)))
    shown = ", ".join(f"'{k:02d}" + "x" * 24 + "..." for k in range(10))  # 30 characters each
    with pytest.raises(OlctcError) as exc:
        read_csv(p, "y")
    assert str(exc.value) == (f"{p}: target 'y' has 12 classes [{shown}, ...]; olctc trains binary trees: pick one "
                              "with --positive-class, positive_class= in Python (one class against the rest)")
    with pytest.raises(OlctcError) as exc:
        read_csv(p, "y", positive_class="cow")
    assert str(exc.value) == f"{p}: positive class 'cow' is not a value of target 'y'; its values are [{shown}, ...]"


def test_one_vs_rest_with_positive_class(tmp_path):
    p = write(tmp_path, "a,y\n1,cat\n2,dog\n3,cow\n")
    ds = read_csv(p, "y", positive_class="dog")
    assert ds.classes == ("not dog", "dog") and ds.y.tolist() == [-1, 1, -1]


def test_quoted_and_categorical_csv(tmp_path):
    p = write(tmp_path, 'size,"colour, shade",y\n1.5,"red, dark",a\n2,blue,b\n3,"red, dark",b\n')
    ds = read_csv(p, "y")
    assert ds.feature_names == ["size", "colour, shade=blue", "colour, shade=red, dark"]
    assert ds.X.tolist() == [[1.5, 0, 1], [2, 1, 0], [3, 0, 1]]


def test_from_arrays_errors():
    with pytest.raises(OlctcError, match=r"X has a missing value \(NaN\) at row 1, column 0; fill or drop missing values"):
        from_arrays([[0.0], [np.nan]], [0, 1])
    with pytest.raises(OlctcError, match=r"y must be 1-D with one label per row of X \(2\)"):
        from_arrays([[0.0], [1.0]], [0, 1, 1])
    with pytest.raises(OlctcError, match=r"^X has complex values; olctc needs real numbers$"):
        from_arrays([[1 + 1j], [2.0]], [0, 1])
    with pytest.raises(OlctcError, match=r"^feature_names names 'a' twice; feature names must be unique$"):
        from_arrays([[1.0, 2.0], [3.0, 4.0]], [0, 1], ["a", "a"])


def test_fit_seed_must_be_a_valid_integer():
    from olctc.fit import split

    ds = load("haberman")
    with pytest.raises(OlctcError, match=r"^The 'seed' parameter must be an integer in \[0, 4294967295\]. Got -1 instead.$"):
        split(ds, 0.2, -1)


SPEC_ERRORS = [
    (dict(preset="cart"), "The 'preset' parameter must be one of olct, olct-univariate, margot, margot-sfs, "
                          "margot-hfs, oct-h. Got 'cart' instead."),
    (dict(depth=0), "The 'depth' parameter must be an integer >= 1. Got 0 instead."),
    (dict(depth=40), "The 'depth' parameter must be <= 12 (depth 40 has 1099511627775 branch nodes and "
                     "549755813888 routing variables per point). Got 40 instead."),
    (dict(depth=2, C="1,2,3"), "The 'C' parameter must be one value or 2 values (one per layer, root first) "
                               "for depth 2. Got '1,2,3' instead."),
    (dict(C=0.0), "The 'C' parameter must be finite and > 0 for every layer. Got [0.0, 0.0] instead."),
    (dict(C="a"), "The 'C' parameter must be a positive number or one per layer separated by commas. "
                  "Got 'a' instead."),
    (dict(epsilon=0.0), "The 'epsilon' parameter must be a finite number > 0. Got 0.0 instead."),
    (dict(epsilon=200.0), "The 'epsilon' parameter must be smaller than big-M (100.0). Got 200.0 instead."),
    (dict(tangents="V9"), "The 'tangents' parameter must be V0, V1, V2, V3 or a comma-separated list of "
                          "numbers such as '-inf,-1.9,0,1.9,inf'. Got 'V9' instead."),
    (dict(tangents="0,,1"), "The 'tangents' parameter must be V0, V1, V2, V3 or a comma-separated list of "
                            "numbers such as '-inf,-1.9,0,1.9,inf'. Got '0,,1' instead."),
    (dict(tangents="inf"), "The 'tangents' parameter must be a list with at least one point other than +inf. "
                           "Got 'inf' instead."),
    (dict(budget=0), "The 'budget' parameter must be an integer >= 1. Got 0 instead."),
    (dict(big_m=-1.0), "The 'big_m' parameter must be a finite number > 0. Got -1.0 instead."),
    # a depth whose size would not fit in memory is still described, as a formula
    (dict(depth=10 ** 6), "The 'depth' parameter must be <= 12 (depth 1000000 has 2^1000000 - 1 branch nodes and "
                          "2^999999 routing variables per point). Got 1000000 instead."),
    (dict(tangents="-inf,0,30,inf"), "The 'tangents' parameter must be points <= 13.8 or inf: the tangent at "
     "30.0 has a slope 1/(1 + e^v) below 1e-6 (where the loss is below 1e-6 too), so its line is the bound xi >= 0 "
     "that inf gives, up to coefficients solvers read as 0 or not. Got '-inf,0,30,inf' instead."),
    (dict(big_m=1e10), "The 'big_m' parameter must be <= 1e9: solvers do not read larger coefficients reliably "
                       "(HiGHS refuses a file with a value >= 1e15). Got 10000000000.0 instead."),
    (dict(epsilon=1e-9), "The 'epsilon' parameter must be >= 1e-8: the solvers' feasibility tolerance is 1e-9, "
                         "and a smaller epsilon does not separate the two sides of a split. Got 1e-09 instead."),
    (dict(big_m=1e4), "The 'big_m' parameter must be <= 1e8 * epsilon (1000 for epsilon 1e-05): a binary within "
                      "the solvers' integrality tolerance 1e-9 of its value relaxes a routing row by big_m * 1e-9, "
                      "which must stay below epsilon. Got 10000.0 instead."),
    (dict(budget=2), "The 'budget' parameter must be unset: preset 'olct' does not use it (it applies to "
                     "olct-univariate, margot-sfs, margot-hfs). Got 2 instead."),
    (dict(preset="margot", alpha=2.0), "The 'alpha' parameter must be unset (or 1.0, the default): preset "
                                       "'margot' does not use it (it applies to margot-sfs, oct-h). Got 2.0 instead."),
    (dict(preset="margot", tangents="V2"), "The 'tangents' parameter must be unset (or V0, the default): preset "
     "'margot' uses the hinge loss, not the logistic one's tangents (they apply to olct, olct-univariate). "
     "Got 'V2' instead."),
    (dict(preset="oct-h", tangents=[-np.inf, 1.0, np.inf]), "The 'tangents' parameter must be unset (or V0, the "
     "default): preset 'oct-h' uses the misclassification loss, not the logistic one's tangents (they apply to "
     "olct, olct-univariate). Got [-inf, 1.0, inf] instead."),
    # Python callers (the estimators): wrong types name their parameter instead of a bare TypeError
    (dict(C=None), "The 'C' parameter must be a positive number or one per layer. Got None instead."),
    (dict(C=True), "The 'C' parameter must be a positive number or one per layer. Got True instead."),
    (dict(C=[1, "x"]), "The 'C' parameter must be a list of numbers. Got [1, 'x'] instead."),
    (dict(C=(1, True)), "The 'C' parameter must be a list of numbers. Got [1, True] instead."),
    (dict(tangents=3), "The 'tangents' parameter must be V0, V1, V2, V3 or a list of numbers. Got 3 instead."),
    (dict(tangents=[0, None]), "The 'tangents' parameter must be a list of numbers. Got [0, None] instead."),
    (dict(big_m=None), "The 'big_m' parameter must be a number. Got None instead."),
    (dict(big_m="100"), "The 'big_m' parameter must be a number. Got '100' instead."),
    (dict(epsilon="a"), "The 'epsilon' parameter must be a number. Got 'a' instead."),
    (dict(preset="oct-h", alpha=None), "The 'alpha' parameter must be a number. Got None instead."),
]


def test_spec_takes_numpy_numbers_and_arrays():
    s = make_spec(depth=2, C=np.array([1.0, 2.0]), tangents=np.array([-1.9, 0.0, np.inf]), big_m=np.float32(50),
                  epsilon=np.float64(1e-4))
    assert (s.C, s.tangents, s.big_m, s.epsilon) == ((1.0, 2.0), (-1.9, 0.0, np.inf), 50.0, 1e-4)
    assert make_spec(C=np.int64(3)).C == (3.0, 3.0)


def test_l0_knobs_apply_where_the_model_uses_them():
    assert make_spec("oct-h", alpha=0.5).alpha == 0.5
    s = make_spec("margot-sfs", budget=2, alpha=3.0)
    assert (s.budget, s.alpha) == (2, 3.0)
    assert make_spec("olct-univariate", budget=2).budget == 2
    # a manifest written before unused knobs were refused still loads, as the model it describes
    old = make_spec("olct").to_json() | {"alpha": 5.0, "budget": 3}
    assert TreeSpec.from_json(old) == make_spec("olct")
    old = make_spec("margot").to_json() | {"tangents": ["-inf", "-1.9", "0.0", "1.9", "inf"], "tangent_set": "V1"}
    assert TreeSpec.from_json(old) == make_spec("margot")
    # a tangent point above 13.8 was allowed (up to 700) when this manifest was written: it still reads
    old = make_spec("olct").to_json() | {"tangents": ["-inf", "0.0", "30.0", "inf"], "tangent_set": "custom"}
    assert TreeSpec.from_json(old).tangents == (-np.inf, 0.0, 30.0, np.inf)
    assert make_spec(tangents=iter([-np.inf, 0.0, np.inf])).tangents == (-np.inf, 0.0, np.inf)  # read once
    # V0, the default every caller passes, is accepted by every preset
    assert make_spec("oct-h", tangents="V0").tangents == make_spec("olct").tangents
    # the largest tangent point allowed has a line every solver reads: slope and intercept above their zero
    g, c = logistic_tangents(make_spec(tangents="-inf,0,13.8,inf").tangents)
    assert np.all(np.isfinite(g)) and np.all(np.isfinite(c)) and abs(g[-2]) >= 1e-6 and abs(c[-2]) >= 1e-6


@pytest.mark.parametrize("kwargs,message", SPEC_ERRORS)
def test_spec_errors(kwargs, message):
    with pytest.raises(OlctcError) as exc:
        make_spec(**kwargs)
    assert str(exc.value) == message


def test_tangent_sets_and_custom_lists():
    assert make_spec(tangents="V0").tangents == (-np.inf, 0.0, np.inf)
    assert len(make_spec(tangents="V3").tangents) == 17
    s = make_spec(tangents="-inf,-1.9,0,1.9,inf")
    assert s.tangents == make_spec(tangents="V1").tangents and s.tangent_set == "V1"
    assert make_spec(tangents="-inf,-1.9,0,1,inf").tangent_set == "custom"
    assert make_spec(depth=3, C="1,10,100").C == (1.0, 10.0, 100.0)
    assert make_spec(depth=3, C=0.5).C == (0.5, 0.5, 0.5)


@pytest.mark.parametrize("names,message", [
    (["a\udc80", "b"], "feature_names[0] 'a\\udc80' is not valid Unicode text (a lone surrogate); "
                       "decode the name properly"),
    ([1, "1"], "feature_names names '1' twice; feature names must be unique"),
])
def test_feature_names_that_could_not_be_saved_are_refused(names, message):
    with pytest.raises(OlctcError) as exc:
        from_arrays(np.eye(2), [0, 1], feature_names=names)
    assert str(exc.value) == message


def test_values_on_a_large_offset_keep_their_differences_and_a_column_constant_to_rounding_is_named():
    """Values near 1e14 with a spread of 1 resolve 1/64, yet a third of them (those within 16 eps of the
    mean, 0.35) were standardised to 0; near 1e15 the column is constant to rounding (as scikit-learn's
    test says), which olctc now says instead of dropping the feature silently."""
    from sklearn.preprocessing import StandardScaler

    from olctc.compile import compile_problem
    from olctc.spec import make_spec

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    X[:, 0] += 1e14
    Z = Scaler.fit(X).transform(X)
    assert np.all(Z[:, 0] != 0)
    assert np.corrcoef(Z[:, 0], X[:, 0] - 1e14)[0, 1] > 0.9999  # the differences, to the data's resolution
    assert np.allclose(Z[:, 1], StandardScaler().fit(X).transform(X)[:, 1], rtol=0, atol=1e-12)
    y = np.where(X[:, 1] > 0, 1, -1)
    ds = from_arrays(X, y, name="offset")
    # the model keeps the differences; the tree's raw-space scores do not all (test_qa_numeric)
    with pytest.warns(UserWarning, match=r"^offset: feature 'x0' spans .* the tree and its exports score raw values") \
            as got:
        compile_problem(ds, make_spec(depth=1))
    assert len(got) == 1
    X[:, 0] += 9e14
    with pytest.warns(UserWarning, match=r"^offset: feature 'x0' varies only in its last digits \(from [\d.]+ to "
                                         r"[\d.]+\), within the rounding of its mean, and is treated as constant; "
                                         r"subtract its offset to use it$"):
        comp = compile_problem(from_arrays(X, y, name="offset"), make_spec(depth=1))
    assert not comp.X[:, 0].any() and comp.X[:, 1].all()


def test_scaler_scales_tiny_columns_and_flags_constant_ones_as_scikit_learn():
    # A column of values near 1e-20 is informative (scikit-learn scales it); one near 1e8 with a spread
    # of 1e-7 is constant to rounding. An absolute threshold (10 eps) once dropped the former.
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 4))
    X[:, 0] *= 1e-20
    X[:, 1] = 1e8 + 1e-7 * X[:, 1]
    X[:, 3] = 7.3
    s = Scaler.fit(X)
    ref = StandardScaler().fit(X)
    assert np.allclose(s.scale, ref.scale_, rtol=1e-12, atol=0.0)
    Z, R = s.transform(X), ref.transform(X)
    assert np.allclose(Z[:, [0, 2, 3]], R[:, [0, 2, 3]])
    # column 1 differs from its mean by a few ulps of 1e8: those values are the mean (0), or as scikit-learn's
    assert np.all(np.abs(R[:, 1]) < 1e-6) and np.all((Z[:, 1] == 0) | (Z[:, 1] == R[:, 1]))
    assert (Z[:, 1] == 0).mean() > 0.5
    assert abs(Z[:, 0].std() - 1.0) < 1e-12



def test_cli_explain_names_the_physical_line_of_its_row(tmp_path, capsys):
    from conftest import cli_main

    tree, data = _predict_files(tmp_path, PREDICT_MULTI + "4,zz,y\n")
    code, out, err = cli_main(["explain", tree, "--data", data, "--row", "3"], capsys)
    assert code == 0 and out.splitlines()[0] == f"row 3 (line 7 of {data})"
    assert "'zz' at line 7" in err


def test_values_beyond_float64_and_unwritable_labels_are_named():
    """Python ints beyond float64 raised a bare OverflowError (from_arrays, raw cells); a class label
    holding a lone surrogate was found only when the fitted tree could not be saved."""
    from olctc.data.cells import _to_float_column

    with pytest.raises(OlctcError, match=r"^X holds an integer too large for a float64 \(above 1.8e308\)$"):
        from_arrays([[1.0], [10 ** 400]], [0, 1])
    with pytest.raises(OlctcError) as info:
        _to_float_column([1, 10 ** 400], "a", "rows")
    assert str(info.value) == "rows: column 'a' line 3: expected a finite number, got " + "1" + "0" * 56 + "..."
    with pytest.raises(OlctcError, match=r"^arrays: class label '\\ud800' of target 'y' is not valid Unicode"):
        from_arrays([[1.0], [2.0]], ["a", "\ud800"])


def test_spec_takes_numpy_integers():
    # make_spec refused np.int64 depth and budget with "must be an integer >= 1. Got np.int64(2) instead."
    spec = make_spec("olct-univariate", np.int64(2), budget=np.int32(1))
    assert spec.depth == 2 and type(spec.depth) is int
    assert spec.budget == 1 and type(spec.budget) is int
    assert spec.to_json()["budget"] == 1
    for bad in (np.int64(0), True, 2.0):
        with pytest.raises(ValueError, match="The 'depth' parameter must be an integer >= 1"):
            make_spec("olct", bad)


def test_every_column_with_empty_cells_is_named_at_once(tmp_path):
    # one column per run sent the user back to the file once per column
    p = tmp_path / "d.csv"
    rows = ["a,b,c,d,y"] + [f"{'' if k in (3, 5) else k},{'' if k == 7 else 'x' if k % 2 else 'z'},{k},"
                            f"{'' if k == 1 else 'u'},{k % 2}" for k in range(10)]
    p.write_text("\n".join(rows) + "\n")
    with pytest.raises(OlctcError) as exc:
        read_csv(p, "y")
    # the first empty row's column first (column 'a' line 5 sent the user past line 3)
    assert str(exc.value) == (f"{p}: column 'd' line 3: empty cell (1 in this column; empty cells also in 'a' (2), "
                              "'b' (1)); fill or drop missing values (olctc does not impute), or leave a column "
                              "out (--drop; drop= in Python)")
    assert read_csv(p, "y", drop=("a", "b", "d")).feature_names == ["c"]
    # the manifest records the dropped columns in the file's order, so any order of --drop compiles the same
    # manifest (QA 2026-12-05: its checksum differed); a column named twice is dropped once
    ds = read_csv(p, "y", drop=("d", "b", "a", "b"))
    assert ds.dropped == ("a", "b", "d") and ds.source_info()["dropped"] == ["a", "b", "d"]


@pytest.mark.parametrize("first,later", [("oops", "bad"), ("", "bad"), ("inf", "")])
def test_the_first_faulty_row_is_named_whatever_its_column(tmp_path, first, later):
    # column 'a' line 8 was named first, though column 'b' line 3 came before it: fixed, then sent back
    p = tmp_path / "d.csv"
    rows = [["a", "b", "y"]] + [[str(k), str(2 * k), str(k % 2)] for k in range(10)]
    rows[2][1], rows[7][0] = first, later
    p.write_text("\n".join(",".join(r) for r in rows) + "\n")
    with pytest.raises(OlctcError, match=r"column 'b' line 3: (expected a (finite )?number, got '(oops|inf)'|"
                                         r"empty cell)"):
        read_csv(p, "y")


def test_a_missing_value_marker_is_named_as_one(tmp_path):
    p = tmp_path / "d.csv"
    p.write_text("a,b,y\n" + "".join(f"{k},{'NA' if k == 4 else k * 2},{k % 2}\n" for k in range(8)))
    with pytest.raises(OlctcError, match=r"column 'b' line 6: expected a number, got 'NA', a missing-value marker; "
                                         r"olctc does not impute: fill or drop missing values$"):
        read_csv(p, "y")
    # in a text column it is a category of its own: said, not refused
    p.write_text("a,b,y\n" + "".join(f"{k},{'?' if k == 4 else 'xy'[k % 2]},{k % 2}\n" for k in range(8)))
    with pytest.warns(UserWarning, match=r"column 'b' has the text value '\?', which reads as a missing value, "
                                         r"encoded as a category of its own"):
        ds = read_csv(p, "y")
    assert "b=?" in ds.feature_names


@pytest.mark.parametrize("target,hint", [
    ("Y", "; did you mean 'y'?"),           # another case
    ("diagnosys", "; did you mean 'diagnosis'?"),  # a typo
    ("nope", ""),                            # nothing close: no guess ('slope' is 0.67 alike)
])
def test_missing_target_names_the_last_column_and_a_close_one(tmp_path, target, hint):
    """More than 12 columns: the message shows the first 12 and the last (often the label), and the column
    most like the name given, when one is close."""
    names = [f"f{k}" for k in range(12)] + ["slope", "diagnosis", "y"]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n" + ",".join(["1"] * 15) + "\n" + ",".join(["0"] * 15) + "\n")
    with pytest.raises(OlctcError) as err:
        read_csv(path, target)
    assert str(err.value) == (f"{path}: target column {target!r} not found; columns are: "
                              + ", ".join(names[:12]) + " ... (15 columns, the last y)" + hint)
