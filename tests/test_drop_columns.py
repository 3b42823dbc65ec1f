"""Leaving columns out (`--drop COLUMN`, ``read_csv(drop=...)``) and the warning for identifier columns.

What is dropped is recorded (manifest, grid.json) so that every later step reads the data the model was
compiled from: decode, collect and the grid's tasks re-read the CSV themselves.
"""
from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from conftest import cli_here
from olctc.data import IDENTIFIER_ROWS, read_csv
from olctc.errors import OlctcError


def olctc(*args: str, cwd: Path | None = None) -> tuple[int, str, str]:
    """``olctc ARGS``: exit code, stdout, stderr. In process (cli_here): these tests check what the commands
    write and say, not the process; a fresh interpreter per command cost about a second of imports (8 in one
    test)."""
    p = cli_here(*args, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def write_ids(path: Path, n: int = 30, seed: int = 0) -> Path:
    """A customer file as users have them: an identifier, two numbers, a text column, the class."""
    rng = np.random.default_rng(seed)
    a, b = rng.normal(size=n), rng.normal(size=n)
    y = np.where(a + 0.5 * b + 0.3 * rng.normal(size=n) > 0, "yes", "no")
    lines = ["id,a,b,region,y"] + [f"cust{i:03d},{a[i]:.3f},{b[i]:.3f},{'north' if i % 3 else 'south'},{y[i]}"
                                  for i in range(n)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture(scope="module")
def ids_csv(tmp_path_factory) -> Path:
    return write_ids(tmp_path_factory.mktemp("ids") / "customers.csv")


def test_dropped_columns_are_not_features(ids_csv):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no identifier warning once the identifier is out
        ds = read_csv(ids_csv, "y", drop=["id"])
    assert ds.feature_names == ["a", "b", "region=north", "region=south"]
    assert ds.dropped == ("id",)
    assert ds.source_info()["dropped"] == ["id"]
    assert ds.subset(np.arange(5)).dropped == ("id",)
    full = read_csv(ids_csv, "y", warn_identifiers=False)
    assert full.p == 30 + 4 and "dropped" not in full.source_info()
    # the same numbers as the file without the column
    assert np.array_equal(ds.X, full.X[:, 30:])
    assert read_csv(ids_csv, "y", drop=["id", "region", "id"]).feature_names == ["a", "b"]


@pytest.mark.parametrize("drop, message", [
    (["ID"], "column 'ID' to drop is not in the file; columns are: id, a, b, region, y; did you mean 'id'?"),
    (["y"], "column 'y' to drop is the target column"),
    (["id", "a", "b", "region"], "no feature columns left once the dropped ones are out ('y' is the target)"),
])
def test_bad_drops_are_named(ids_csv, drop, message):
    with pytest.raises(OlctcError) as info:
        read_csv(ids_csv, "y", drop=drop)
    assert str(info.value) == f"{ids_csv}: {message}"


def test_an_identifier_column_is_reported_with_the_way_out(ids_csv, tmp_path):
    with pytest.warns(UserWarning) as record:
        read_csv(ids_csv, "y")
    assert [str(w.message) for w in record] == [
        f"{ids_csv}: column 'id' has a different text value on each of its 30 rows (an identifier?), one-hot "
        "encoded into 30 features; leave it out with --drop id"]
    # 2,000 such columns gave 2,000 warnings (QA 2026-12-05): five are named one by one, the rest in one warning
    wide = tmp_path / "wide.csv"
    wide.write_text(",".join(f"t{j}" for j in range(12)) + ",y\n"
                    + "".join(",".join(f"r{i}c{j}" for j in range(12)) + f",{i % 2}\n" for i in range(30)))
    with pytest.warns(UserWarning) as record:
        read_csv(wide, "y")
    messages = [str(w.message) for w in record]
    assert len(messages) == 6 and all(f"column 't{j}' has a different" in messages[j] for j in range(5))
    assert messages[5] == (f"{wide}: 7 more text columns look like identifiers, free text or dates (more different "
                           "values than half their 30 rows, or 20 dates or more), one-hot encoded into a feature per "
                           "value: 't5', 't6', 't7', 't8', 't9', ...; leave them out with --drop")
    # below IDENTIFIER_ROWS a text column of distinct values is ordinary (tiny examples, tests)
    few = write_ids(tmp_path / "few.csv", n=IDENTIFIER_ROWS - 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read_csv(few, "y")
        read_csv(ids_csv, "y", warn_identifiers=False)


@pytest.mark.parametrize("values, expected", [
    # 25 days in 30 rows, ISO, with a time, and day/month/year: dates, whatever their share of the rows
    ([f"2024-03-{d % 25 + 1:02d}" for d in range(30)], "25 different text values on its 30 rows (dates?), one-hot "
     "encoded into 25 features of 1.2 rows each on average; write them as numbers (days since a day, say) for "
     "the tree to split on, or leave the column out with --drop c"),
    ([f"2024-03-{d % 20 + 1:02d}T10:00" for d in range(30)], "20 different text values on its 30 rows (dates?)"),
    ([f"{d % 21 + 1}/3/2024" for d in range(30)], "21 different text values on its 30 rows (dates?)"),
    # codes: more values than half the rows
    ([f"k{d % 16}" for d in range(30)], "16 different text values on its 30 rows, one-hot encoded into 16 features "
     "of 1.9 rows each on average; leave it out with --drop c if it is free text or a code"),
    ([f"k{d % 15}" for d in range(30)], None),  # 2 rows a value: a category
    ([f"2024-03-{d % 19 + 1:02d}" for d in range(40)], None),  # 19 days in 40 rows: a category
    ([f"2024-03-{d % 20 + 1:02d}" for d in range(60)], "20 different text values on its 60 rows (dates?)"),
])
def test_a_text_column_of_many_values_is_reported(tmp_path, values, expected):
    """One-hot encoding gives each value a feature: dates (20 or more), free text or codes (more values than
    half the rows) make many features of a row or two, which split nothing that generalises."""
    path = tmp_path / "c.csv"
    path.write_text("a,c,y\n" + "".join(f"{i},{v},{i % 2}\n" for i, v in enumerate(values)))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        read_csv(path, "y")
    messages = [str(w.message) for w in record]
    if expected is None:
        assert messages == []
    else:
        (message,) = messages
        assert message.startswith(f"{path}: column 'c' has {expected}"), message


def test_compile_solve_decode_predict_without_the_dropped_column(ids_csv, tmp_path):
    """decode re-reads the CSV named in the manifest: it must leave out what compile left out (without the
    record it read 34 features into a 4-feature model). The tree is the one compiled from the file
    without the column, and predicts on the file as it is (the extra column ignored)."""
    model = tmp_path / "m.mps"
    code, out, err = olctc("compile", str(ids_csv), "--target", "y", "--drop", "id", "--depth", "1",
                           "-o", str(model))
    assert code == 0 and err == "", err
    assert "(30 points, 4 features)" in out
    man = json.loads(model.with_name("m.olctc.json").read_text())
    assert man["data"]["dropped"] == ["id"] and man["feature_names"][0] == "a"
    code, out, err = olctc("solve", str(model), "--solver", "highs", "--quiet", "-o", str(tmp_path / "m.sol"))
    assert code == 0 and "status optimal" in out, err
    code, out, err = olctc("decode", str(model.with_name("m.olctc.json")), str(tmp_path / "m.sol"),
                           "-o", str(tmp_path / "t.json"))
    assert code == 0, err
    dropped_obj = float(out.split("true objective of the solver's (w, b) (real routing): ")[1].split()[0])

    # the same data without the column, compiled and solved the same way
    lines = ids_csv.read_text().splitlines()
    plain = tmp_path / "plain.csv"
    plain.write_text("\n".join(line.split(",", 1)[1] for line in lines) + "\n")
    other = tmp_path / "plain"
    other.mkdir()
    code, _, err = olctc("compile", str(plain), "--target", "y", "--depth", "1", "-o", str(other / "m.mps"))
    assert code == 0, err
    assert (other / "m.mps").read_bytes() == model.read_bytes()  # the very same model file
    code, _, err = olctc("solve", str(other / "m.mps"), "--solver", "highs", "--quiet", "-o", str(other / "m.sol"))
    assert code == 0, err
    code, out, err = olctc("decode", str(other / "m.olctc.json"), str(other / "m.sol"), "-o", str(other / "t.json"))
    assert code == 0, err
    assert float(out.split("true objective of the solver's (w, b) (real routing): ")[1].split()[0]) == dropped_obj

    code, out, err = olctc("predict", str(tmp_path / "t.json"), str(ids_csv), "--proba")
    assert code == 0 and "'id'" in err, err
    code, plain_out, err = olctc("predict", str(other / "t.json"), str(plain), "--proba")
    assert code == 0 and out == plain_out


def test_a_damaged_dropped_field_is_refused(ids_csv, tmp_path):
    model = tmp_path / "m.mps"
    assert olctc("compile", str(ids_csv), "--target", "y", "--drop", "id", "--depth", "1", "-o", str(model))[0] == 0
    mpath = model.with_name("m.olctc.json")
    man = json.loads(mpath.read_text())
    man["data"]["dropped"] = "id"
    mpath.write_text(json.dumps(man))
    code, _, err = olctc("solve", str(model), "--quiet", "-o", str(tmp_path / "m.sol"))
    assert code == 2
    assert err == f"error: {mpath}: damaged manifest: field 'data.dropped': expected a list of column names, " \
                  "got 'id'; compile again\n"


def test_grid_and_fit_leave_the_column_out(ids_csv, tmp_path):
    from olctc.cluster import load_grid_data

    code, _, err = olctc("grid", str(ids_csv), "--target", "y", "--drop", "id", "--depth", "1", "--folds", "2",
                         "--C-values", "1", "--time-limit", "10", "-o", str(tmp_path / "g"))
    assert code == 0 and "warning" not in err, err
    info = json.loads((tmp_path / "g" / "grid.json").read_text())
    assert info["data"]["dropped"] == ["id"]
    assert load_grid_data(info).feature_names == ["a", "b", "region=north", "region=south"]
    task = next((tmp_path / "g").rglob("*.olctc.json"))
    assert json.loads(task.read_text())["data"]["p"] == 4
    code, out, err = olctc("fit", str(ids_csv), "--target", "y", "--drop", "id", "--drop", "region", "--depth", "1",
                           "--time-limit", "20", "--quiet", "-o", str(tmp_path / "f.json"))
    assert code == 0 and err == "", err
    assert json.loads((tmp_path / "f.json").read_text())["feature_names"] == ["a", "b"]


def test_a_vendored_data_set_drops_columns_too(tmp_path):
    from olctc.datasets import load

    ds = load("tic-tac-toe", drop=["top_left"])
    assert ds.p == 27 - 3 and not any(f.startswith("top_left=") for f in ds.feature_names)
    code, out, err = olctc("compile", "--dataset", "tic-tac-toe", "--drop", "top_left", "--depth", "1",
                           "-o", str(tmp_path / "t.mps"))
    assert code == 0 and "24 features" in out, err
