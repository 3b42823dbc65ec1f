"""read_csv's chunked reading (numeric columns converted chunk by chunk, in segments) against a plain,
independent reading: Python's csv module, float() and a one-hot encoding written out here. Small files,
also read with tiny chunks and segments so that every boundary is crossed; and Scaler's in-place
transform against its formula."""
from __future__ import annotations

import csv
import gzip
import hashlib
import io
import random

import numpy as np
import pytest

import olctc.data.csvfile
import olctc.data.table
from olctc.data import Scaler, read_csv
from olctc.errors import OlctcError


def reference(text: str, target: str, weight: str | None = None, delimiter: str = ","):
    """(X, y, classes, feature names, weights) read plainly: every cell a float, or a category."""
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    header = [h.strip() for h in rows[0]]
    body = rows[1:]
    while body and not any(c.strip() for c in body[-1]):
        body.pop()
    feats = [h for h in header if h not in (target, weight)]
    cols, names = [], []
    for h in feats:
        vals = [r[header.index(h)].strip() for r in body]
        try:
            cols.append(np.array([[float(v)] for v in vals]))
            names.append(h)
        except ValueError:
            cats = sorted(set(vals))
            cols.append(np.array([[float(v == c) for c in cats] for v in vals]))
            names += [f"{h}={c}" for c in cats]
    labels = [r[header.index(target)].strip() for r in body]
    classes = sorted(set(labels))
    y = np.array([1 if v == classes[1] else -1 for v in labels], dtype=np.int8)
    w = None if weight is None else np.array([float(r[header.index(weight)]) for r in body])
    return np.hstack(cols), y, classes, names, w


def numeric_text(n: int, p: int, seed: int, delimiter: str = ",") -> str:
    rng = random.Random(seed)
    lines = [delimiter.join([f"x{j}" for j in range(p)] + ["y"])]
    for i in range(n):
        cells = [repr(rng.uniform(-1e3, 1e3)) if j % 3 else str(rng.randint(0, 2)) for j in range(p)]
        if i % 7 == 0:
            cells[0] = f'"{cells[0]}"'  # a quoted number
        if i % 5 == 0:
            cells[-1] = f" {cells[-1]} "  # spaces around a number
        lines.append(delimiter.join(cells + [f'"{rng.choice(["0", "1"])}"']))
    return "\n".join(lines) + "\n"


def text_columns_text(n: int, seed: int) -> str:
    rng = random.Random(seed)
    lines = ["a,colour,note,w,b,y"]
    for i in range(n):
        note = '"two\nlines, one comma"' if i % 4 == 0 else rng.choice(["plain", '"q ""quoted"""'])
        lines.append(f"{rng.uniform(0, 1)!r},{rng.choice(['red', 'blue', 'green'])},{note},"
                     f"{rng.choice(['0.5', '1', '2', '0'])},{rng.randint(-3, 3)},{rng.choice(['yes', 'no'])}")
    return "\n".join(lines) + "\n"


def write(tmp_path, name: str, text: str, variant: str):
    data = text.encode()
    if variant == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif variant == "bom":
        data = b"\xef\xbb\xbf" + data
    if variant == "gzip":
        path = tmp_path / f"{name}.csv.gz"
        path.write_bytes(gzip.compress(data))
    else:
        path = tmp_path / f"{name}.csv"
        path.write_bytes(data)
    return path, hashlib.sha256(data).hexdigest(), data.decode().removeprefix("\ufeff")


@pytest.fixture(params=["default", "tiny"])
def chunking(request, monkeypatch):
    if request.param == "tiny":  # chunks of a few rows, segments of a few cells: every boundary crossed
        monkeypatch.setattr(olctc.data.table, "CHUNK_CELLS", 17)
        monkeypatch.setattr(olctc.data.csvfile, "_SEGMENT_CELLS", 23)
    return request.param


@pytest.mark.parametrize("variant", ["plain", "crlf", "bom", "gzip"])
@pytest.mark.parametrize("delimiter", [",", ";"])
def test_numeric_file_as_read_plainly(tmp_path, chunking, variant, delimiter):
    text = numeric_text(60, 6, seed=len(variant), delimiter=delimiter)
    path, digest, text = write(tmp_path, "num", text, variant)
    ds = read_csv(path, "y")
    X, y, classes, names, _ = reference(text, "y", delimiter=delimiter)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous
    assert ds.X.shape == X.shape and ds.X.tobytes() == X.tobytes()
    assert ds.y.tolist() == y.tolist() and list(ds.classes) == [int(c) for c in classes]
    assert ds.feature_names == names and ds.schema.is_numeric
    assert ds.sha256 == digest and ds.weight is None


@pytest.mark.parametrize("variant", ["plain", "crlf", "gzip", "bom"])
def test_text_columns_weight_and_multiline_cells(tmp_path, chunking, variant):
    text = text_columns_text(45, seed=3)
    path, digest, text = write(tmp_path, "mixed", text, variant)  # CRLF inside quoted cells too
    ds = read_csv(path, "y", weight_column="w", warn_identifiers=False)
    X, y, classes, names, w = reference(text, "y", weight="w")
    assert ds.feature_names == names
    assert ds.X.tobytes() == X.tobytes() and ds.X.shape == X.shape
    assert ds.y.tolist() == y.tolist() and ds.classes == tuple(classes)
    assert ds.weight is not None and ds.weight.tobytes() == w.tobytes() and ds.weight_column == "w"
    assert ds.sha256 == digest
    kinds = {c.name: c.kind for c in ds.schema.columns}
    assert kinds == {"a": "numeric", "colour": "categorical", "note": "categorical", "b": "numeric"}


def test_drop_and_target_first(tmp_path, chunking):
    text = numeric_text(30, 5, seed=9)
    # the target first: the feature columns are the last ones, not a run from column 0
    lines = [",".join([r[-1], *r[:-1]]) for r in csv.reader(io.StringIO(text))]
    path = tmp_path / "first.csv"
    path.write_text("\n".join(lines) + "\n")
    ds = read_csv(path, "y", drop=["x2"])
    X, y, _, names, _ = reference(text, "y")
    keep = [k for k, h in enumerate(names) if h != "x2"]
    assert ds.feature_names == [names[k] for k in keep] and ds.dropped == ("x2",)
    assert ds.X.tobytes() == np.ascontiguousarray(X[:, keep]).tobytes() and ds.y.tolist() == y.tolist()


def line_of_last_row(text: str) -> int:
    """The file line where the last data row starts, counted plainly (a quoted cell may span lines)."""
    reader = csv.reader(io.StringIO(text))
    start = 1
    for _ in reader:
        last, start = start, reader.line_num + 1
    return last


@pytest.mark.parametrize("bad, message", [
    ("x", "column 'x1' line {line}: expected a number, got 'x'"),
    ("", "column 'x1' line {line}: empty cell (1 in this column); fill or drop missing values"),
    ("nan", "column 'x1' line {line}: expected a finite number, got 'nan'"),
    ("1e999", "column 'x1' line {line}: expected a finite number, got '1e999'"),
    ("1_000", "column 'x1' line {line}: expected a number, got '1_000'"),
])
def test_a_bad_cell_at_the_end_of_the_file(tmp_path, chunking, bad, message):
    text = numeric_text(80, 3, seed=5)
    text += f"1.5,{bad},2,1\n"
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(OlctcError) as err:
        read_csv(path, "y")
    assert str(err.value).startswith(f"{path}: " + message.format(line=line_of_last_row(text)))


def test_a_ragged_row_at_the_end_comes_before_a_bad_cell(tmp_path, chunking):
    text = numeric_text(50, 3, seed=6)
    text = text.replace("\n", "\nabc,1,2,0\n", 1)  # a text cell in a numeric column, early
    text += "1,2,3,4,5\n"
    path = tmp_path / "ragged.csv"
    path.write_text(text)
    with pytest.raises(OlctcError, match=rf"line {text.count(chr(10))} has 5 fields, the header has 4"):
        read_csv(path, "y")


def test_scaler_transform_in_place_matches_the_formula():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(9000, 5)) * [1, 1e3, 1e-5, 1, 1] + [0, 5, 0, 1e14, 1.5]
    X[:, 4] = 1.5
    X[::2, 0] = 0.0
    scaler = Scaler.fit(X)
    D = X - scaler.mean
    near = 16 * np.finfo(np.float64).eps * np.abs(scaler.mean)
    near = np.where(scaler.scale == 1.0, near, np.minimum(near, 1e-12 * scaler.scale))
    want = np.where(np.abs(D) <= near, 0.0, D) / scaler.scale
    got = scaler.transform(X)
    assert got.tobytes() == want.tobytes() and got.shape == X.shape
    assert X[0, 4] == 1.5  # the input is not changed
    one = scaler.transform(X[3])  # one point (1-D), as Tree.predict_one passes it
    assert one.tobytes() == want[3].tobytes()


def test_scaler_fit_moments_as_numpy():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(300, 4)) * [1, 1e-200, 1e3, 0]
    scaler = Scaler.fit(X)
    assert scaler.mean[[0, 2]].tobytes() == X.mean(axis=0)[[0, 2]].tobytes()
    assert scaler.scale[[0, 2]].tobytes() == X.std(axis=0)[[0, 2]].tobytes()
    top = np.abs(X[:, 1]).max()  # a tiny column: moments of X / top, times top
    assert scaler.mean[1] == (X[:, 1] / top).mean() * top and scaler.scale[1] == (X[:, 1] / top).std() * top
    assert scaler.scale[3] == 1.0
