"""`olctc predict` and `olctc explain` read the data in chunks: the same bytes out, the same errors, and
nothing written before the whole file has been checked.

The reference is predict and explain as they were before (git e2c7924): ``read_table`` read the whole
file, then every check ran on every row, column by column. It is kept here, verbatim but for names and the
order in which cell faults are named (``old_cells``: the first faulty row's since), and
every case runs through both; the chunked reading runs both with its default sizes and with chunks of
100 cells read from blocks of 61 bytes, so that rows, lines, quoted cells and UTF-8 characters straddle
chunk and block boundaries. Random small files (hypothesis) check the same against read_table too.
"""
from __future__ import annotations

import copy
import csv
import functools
import gzip
import hashlib
import io
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import olctc.data.table
from conftest import cli_main
from olctc.cli import load_tree_file
from olctc.cli_tree import _columns_needed, _near_miss
from olctc.data import SEPARATORS_READ, Column, Scaler, Schema, Table, line_of, read_table, sniff_delimiter
from olctc.data.cells import _to_float_column
from olctc.datasets import dataset_path
from olctc.errors import OlctcError, shorten
from olctc.export.json import save
from olctc.tree import Tree
from test_tree import tree_for


# ---------------------------------------------------------------- the reference (the code before)

def old_table_bytes(path: Path) -> bytes:
    if not path.exists():
        raise OlctcError(f"{path}: no such file")
    if path.is_dir():
        raise OlctcError(f"{path}: is a folder, expected a CSV file")
    try:
        raw = path.read_bytes()
        return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw
    except (OSError, EOFError) as exc:
        raise OlctcError(f"{path}: cannot read: {exc}") from None


def old_read_table(path, named_cr: bool = False, needed=None) -> Table:
    path = Path(path)
    raw = old_table_bytes(path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        # the byte's value beside its offset since 2026-12-04 ("byte 81" read as a value)
        raise OlctcError(f"{path}: not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start}); save "
                         "the CSV as UTF-8") from None
    if not text.strip():
        raise OlctcError(f"{path}: the file is empty")
    if "\r" in text and "\n" not in text:
        text = text.replace("\r", "\n")
    limit = csv.field_size_limit()
    try:
        csv.field_size_limit(max(limit, 1 << 30))
        delimiter = sniff_delimiter(text)
        reader, rows, ends = csv.reader(io.StringIO(text), delimiter=delimiter), [], [0]
        for r in reader:
            rows.append(r)
            ends.append(reader.line_num)
        starts = np.asarray(ends[:-1], dtype=np.int64) + 1
    except csv.Error as exc:
        if named_cr and "new-line character" in str(exc):  # csv's words, named by their line since (CsvStream)
            raise OlctcError(f"{path}: line {reader.line_num}: a carriage return ('\\r') inside an unquoted cell, or "
                             "mixed line endings; quote that cell, or save the file with one kind of line ending "
                             "(all '\\n' or all '\\r\\n')") from None
        raise OlctcError(f"{path}: not a readable CSV file: {exc}") from None
    finally:
        csv.field_size_limit(limit)
    while rows and not any(c.strip() for c in rows[-1]):
        rows.pop()
    header = [h.strip() for h in rows[0]]
    body = rows[1:]
    lines = starts[1:len(rows)]
    width = len(header)
    blank_header = OlctcError(f"{path}: line 1, the header, is blank or only separators: the file must start with "
                              "its header line (the column names); delete the lines before it")  # since 2026-12-04
    for k, r in enumerate(body):
        if len(r) != width:
            if not any(header):
                raise blank_header
            if not any(c.strip() for c in r):
                raise OlctcError(f"{path}: line {lines[k]} is blank; remove blank lines inside the data")
            raise OlctcError(f"{path}: line {lines[k]} has {len(r)} field{'s' * (len(r) != 1)}, the header has "
                             f"{width}")
    seen: set[str] = set()
    if body and not any(header):
        raise blank_header
    for k, h in enumerate(header):
        if h == "":  # named by its place since 2026-12-04
            between = f" (after {header[k - 1]!r})" if k else ""
            raise OlctcError(f"{path}: the header's column {k + 1}{between} has no name; name it")
        if h in seen and (needed is None or h in needed):  # a repeat of a column not read: no fault since 2026-12-04
            raise OlctcError(f"{path}: the header names column {h!r} twice")
        seen.add(h)
    return Table(header, body, hashlib.sha256(raw).hexdigest(), text, lines, delimiter)


def old_cells(tree, path, header, rows, first_line=2):
    kinds = {c.name: c.kind for c in tree.schema.columns}
    needed = _columns_needed(tree)
    missing = [c for c in needed if c not in header]
    if missing and len(header) == 1 and len(needed) > 1:
        raise OlctcError(f"{path}: the header is one column {shorten(header[0])!r} and the tree needs "
                         f"{len(needed)}: {SEPARATORS_READ}")
    if missing:
        shown = ", ".join(repr(c) for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise OlctcError(f"{path}: feature column {missing[0]!r} is missing "
                         f"({len(missing)} missing: {shown}); the tree needs {len(needed)} columns"
                         + _near_miss(missing[0], header))
    # The first faulty row's fault (in it, the first column in the tree's order): since 2026-12-04. The code
    # before named the first column with a fault, and in it an empty cell before one that is no number before
    # one that is not finite, so a user fixed line 8 only to be sent back to line 3.
    cells, first = {}, None
    for name in needed:
        i = header.index(name)
        vals = [r[i].strip() for r in rows]
        for k, v in enumerate(vals):
            if v == "":
                err = OlctcError(f"{path}: line {line_of(k, first_line)} column {name!r}: empty cell; "
                                 "the tree needs a value for every feature")
            elif kinds[name] != "numeric":
                continue
            else:
                try:
                    _to_float_column([v], name, path, line_of(k, first_line))
                    continue
                except OlctcError as exc:
                    err = exc
            if first is None or k < first[0]:
                first = (k, err)
            break
        if first is None:
            cells[name] = _to_float_column(vals, name, path, first_line) if kinds[name] == "numeric" else vals
    if first is not None:
        raise first[1]
    return cells


def old_unseen_notes(tree, cells, first_line=2):
    notes = []
    for col in tree.schema.columns:
        if col.kind != "categorical":
            continue
        known = set(col.categories)
        rows = [k for k, v in enumerate(cells[col.name]) if v not in known]
        if rows:
            first = cells[col.name][rows[0]]
            notes.append(f"note: column {col.name!r}: {len(rows)} row(s) hold a category the tree never saw "
                         f"(first {first!r} at line {line_of(rows[0], first_line)}): encoded as none of its "
                         f"{len(known)} categories")
    return notes


def old_predict(tree, data, proba=False, id_column=None, output=None) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `olctc predict` before; with ``output``, the file is written."""
    err = []
    try:
        t = load_tree_file(tree)
        table = old_read_table(data, named_cr=True, needed={*_columns_needed(t), id_column})
        header, rows, lines = table.header, table.rows, table.lines
        if id_column is not None and id_column not in header:
            from olctc.data.csvfile import _columns_text  # the message's wording changed since (the last column)

            raise OlctcError(f"{data}: --id-column {id_column!r} is not a column; columns are: "
                             f"{_columns_text(header, id_column)}")
        head = ([id_column] if id_column else []) + ["prediction"] + \
            ([f"proba_{c}" for c in t.classes] if proba else [])
        if id_column is not None and head.count(id_column) > 1:
            raise OlctcError(f"{data}: --id-column {id_column!r} has the name of an output column; the output "
                             f"columns would be {', '.join(head)}: rename that column of the CSV file")
        cells = old_cells(t, data, header, rows, lines)
        err += old_unseen_notes(t, cells, lines)
        extra = [h for h in header if h not in cells and h != id_column]
        if extra:
            shown = ", ".join(repr(h) for h in extra[:8]) + (" ..." if len(extra) > 8 else "")
            err.append(f"note: ignoring {len(extra)} column(s) the tree does not use: {shown}")
        X = t.encode(cells, str(data))
        labels = t.predict(X)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(head)
        P = t.predict_proba(X) if proba else None
        ids = [r[header.index(id_column)] for r in rows] if id_column else None
        for k in range(len(rows)):
            line = ([ids[k]] if ids else []) + [str(labels[k])]
            if P is not None:
                line += [repr(float(P[k, 0])), repr(float(P[k, 1]))]
            w.writerow(line)
    except OlctcError as exc:
        return 2, "", "".join(f"{e}\n" for e in err + [f"error: {exc}"])
    if output is None:
        # the CSV unchanged: predict no longer lets click.echo strip ANSI codes from labels and ids (data)
        return 0, buf.getvalue(), "".join(f"{e}\n" for e in err)
    Path(output).write_text(buf.getvalue(), encoding="utf-8")
    return 0, f"{len(rows)} prediction(s) written to {output}\n", "".join(f"{e}\n" for e in err)


def echoed(text: str) -> str:
    """What click.echo(text, nl=False) writes to a file that is not a terminal (ANSI codes stripped)."""
    import click

    buf = io.StringIO()
    click.echo(text, file=buf, nl=False)
    return buf.getvalue()


def old_explain(tree, data, row) -> tuple[int, str, str]:
    """(exit code, stdout, stderr) of `olctc explain TREE --data DATA --row ROW` before."""
    from olctc.export._names import printable

    err = []
    try:
        t = load_tree_file(tree)
        table = old_read_table(data, named_cr=True, needed=set(_columns_needed(t)))
        header, rows, lines = table.header, table.rows, table.lines
        if not 0 <= row < len(rows):
            span = f"0 to {len(rows) - 1}" if rows else "none"
            raise OlctcError(f"--row {row} is out of range: {data} has {len(rows)} data row(s) ({span})")
        cells = old_cells(t, data, header, [rows[row]], first_line=int(lines[row]))
        err += old_unseen_notes(t, cells, first_line=int(lines[row]))
        extra = [h for h in header if h not in cells]  # noted as predict notes them (since 2026-12-04)
        if extra:
            shown = ", ".join(repr(h) for h in extra[:8]) + (" ..." if len(extra) > 8 else "")
            err.append(f"note: ignoring {len(extra)} column(s) the tree does not use: {shown}")
        ex = t.explain(t.encode(cells, str(data))[0], top=5)
    except OlctcError as exc:
        return 2, "", "".join(f"{e}\n" for e in err + [f"error: {exc}"])
    head = f"row {row} (line {lines[row]} of {data})"
    text = "\n".join([head] + ex.lines(name=lambda f: printable(f, 60))) + "\n"
    return 0, echoed(text), "".join(f"{e}\n" for e in err)


# ---------------------------------------------------------------- files

SMALL = {"CHUNK_CELLS": 100, "_BLOCK": 61}  # heart: 100 // 14 = 7 rows


@pytest.fixture(params=["default", "small"])
def sizes(request, monkeypatch):
    """The chunked reading with its own sizes, and with chunks of 100 cells (6 or 7 rows of heart) read
    from blocks of 61 bytes."""
    if request.param == "small":
        for name, value in SMALL.items():
            monkeypatch.setattr(olctc.data.table, name, value)
    return request.param


def vendored(name: str) -> str:
    return gzip.decompress(dataset_path(name).read_bytes()).decode()


def with_ids(text: str, seed: int = 0) -> str:
    """``text`` with an ``id`` column in front whose cells are awkward: quoted line breaks (\\n, \\r\\n),
    quotes, commas, non-ASCII text, an ANSI colour code (click strips those from a non-terminal)."""
    rng = np.random.default_rng(seed)
    awkward = ['a\nb', 'x"y', 'p,q', 'é漢字', '\x1b[31mred\x1b[0m', 'two\r\nlines', ' pad ', '']
    rows = list(csv.reader(io.StringIO(text)))
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["id"] + rows[0])
    for k, r in enumerate(rows[1:]):
        w.writerow([awkward[k % len(awkward)] + str(k) if rng.random() < 0.5 else str(k)] + r)
    return buf.getvalue()


@functools.lru_cache(maxsize=None)  # a str: the same 20,000 rows serve two tests (0.6 s each to draw)
def resampled(name: str, n: int, seed: int = 0) -> str:
    """``n`` rows of a vendored data set drawn with replacement (numbers get a little noise)."""
    rows = list(csv.reader(io.StringIO(vendored(name))))
    rng = np.random.default_rng(seed)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(rows[0])
    for i in rng.integers(1, len(rows), n):
        w.writerow([repr(float(c) * (1 + rng.normal(scale=1e-3))) if c.replace(".", "").replace("-", "").isdigit()
                    and h != "y" else c for h, c in zip(rows[0], rows[i])])
    return buf.getvalue()


def write(folder: Path, name: str, text: str, *, encoding: str = "utf-8", gz: bool = False) -> Path:
    raw = text.encode(encoding)
    path = folder / name
    path.write_bytes(gzip.compress(raw) if gz else raw)
    return path


@pytest.fixture(scope="module")
def trees(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("trees")
    out = {}
    for name, depth in (("heart", 2), ("tic-tac-toe", 2), ("breast", 3)):
        out[name] = folder / f"{name}.json"
        save(tree_for(name, depth), out[name])
    return out


def ttt_unseen() -> str:
    """tic-tac-toe with categories the tree never saw ('X', 'O ') on rows spread over many chunks."""
    lines = vendored("tic-tac-toe").splitlines()
    for k in (3, 40, 41, 500, 957):
        cells = lines[k].split(",")
        cells[0] = "X"
        cells[4] = "O "  # stripped: 'O' is no category either (they are lower case)
        lines[k] = ",".join(cells)
    return "\n".join(lines) + "\n"


# (name, tree, text, how the file is written)
GOOD = [
    ("heart", "heart", lambda: vendored("heart"), {}),
    ("heart-ids", "heart", lambda: with_ids(resampled("heart", 3000)), {}),
    ("heart-ids-semicolon", "heart", lambda: with_ids(resampled("heart", 500)).replace(",", ";"), {}),
    ("heart-ids-tab-gzip", "heart", lambda: with_ids(resampled("heart", 500)).replace(",", "\t"), {"gz": True}),
    ("heart-ids-bom", "heart", lambda: with_ids(resampled("heart", 500)), {"encoding": "utf-8-sig"}),
    ("heart-crlf-trailing-blanks", "heart",
     lambda: vendored("heart").replace("\n", "\r\n") + "\r\n,,,,,,,,,,,,,\n \n", {}),
    ("heart-old-mac", "heart", lambda: vendored("heart").replace("\n", "\r"), {}),
    ("tic-tac-toe-unseen", "tic-tac-toe", ttt_unseen, {}),
    ("tic-tac-toe-ids-gzip-bom", "tic-tac-toe", lambda: with_ids(ttt_unseen(), 1),
     {"gz": True, "encoding": "utf-8-sig"}),
    ("breast", "breast", lambda: vendored("breast"), {}),
]


@pytest.fixture(scope="module")
def good_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("good")
    return {name: write(folder, f"{name}.csv" + (".gz" if how.get("gz") else ""), make(), **how)
            for name, _, make, how in GOOD}


# ---------------------------------------------------------------- the same output

@pytest.mark.parametrize("name,tree", [(g[0], g[1]) for g in GOOD], ids=[g[0] for g in GOOD])
def test_predict_writes_the_same_bytes_and_notes(trees, good_files, sizes, name, tree, capsys):
    data = good_files[name]
    has_id = "ids" in name
    for args in ([], ["--proba"]) + ((["--id-column", "id"], ["--proba", "--id-column", "id"]) if has_id else ()):
        want = old_predict(trees[tree], data, "--proba" in args, "id" if "--id-column" in args else None)
        got = cli_main(["predict", trees[tree], data, *args], capsys)
        assert want[0] == 0 and got == want, (args, got[2], want[2])


def test_predict_to_a_file_writes_the_same_bytes(trees, good_files, tmp_path, capsys, monkeypatch):
    for name, value in SMALL.items():
        monkeypatch.setattr(olctc.data.table, name, value)
    data = good_files["tic-tac-toe-ids-gzip-bom"]
    old, new = tmp_path / "old.csv", tmp_path / "new.csv"
    want = old_predict(trees["tic-tac-toe"], data, True, "id", old)
    got = cli_main(["predict", trees["tic-tac-toe"], data, "--proba", "--id-column", "id", "-o", new], capsys)
    assert got == (want[0], want[1].replace(str(old), str(new)), want[2])
    assert new.read_bytes() == old.read_bytes() and "never saw" in got[2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.csv", "old.csv"]


def test_read_table_reads_as_before(good_files, sizes):
    """read_table (compile, fit, decode) is built on the chunked reading: the same table."""
    for data in good_files.values():
        want, got = old_read_table(data), read_table(data)
        assert (got.header, got.rows, got.sha256, got.text, got.delimiter) == \
            (want.header, want.rows, want.sha256, want.text, want.delimiter)
        assert got.lines.dtype == np.int64 and got.lines.tolist() == want.lines.tolist()


# ---------------------------------------------------------------- the same errors

HEART = vendored("heart").splitlines()
CHOL, AGE, THAL = (HEART[0].split(",").index(c) for c in ("chol", "age", "thal"))


def heart_with(*edits: tuple[int, int, str], lines: list[str] | None = None) -> str:
    """heart's text with cell ``col`` of data row ``row`` set to ``value`` for each (row, col, value)."""
    lines = list(lines or HEART)
    for row, col, value in edits:
        cells = lines[row + 1].split(",")
        cells[col] = value
        lines[row + 1] = ",".join(cells)
    return "\n".join(lines) + "\n"


def _bytes_edit(text: str, at: int, raw: bytes) -> bytes:
    data = text.encode()
    return data[:at] + raw + data[at:]


# (name, file content (str or bytes), write options); the data row count is 297
BAD = [
    ("empty-cell", heart_with((30, CHOL, ""))),
    ("not-a-number", heart_with((30, AGE, "foo"))),
    ("not-finite", heart_with((30, AGE, "inf"))),
    ("grouped-digits", heart_with((30, AGE, "1_000"))),
    ("decimal-comma", heart_with((30, AGE, "1,5")).replace(",", ";").replace("1;5", "1,5")),
    # which fault comes first: the file's first faulty row (then the tree's column order), whatever the
    # chunk that finds it
    ("later-row-earlier-column", heart_with((2, THAL, ""), (250, AGE, "foo"))),
    ("later-no-number-beats-earlier-not-finite", heart_with((3, CHOL, "nan"), (200, CHOL, "foo"), (5, CHOL, "inf"))),
    ("later-empty-beats-earlier-no-number", heart_with((3, AGE, "foo"), (280, AGE, " "))),
    ("missing-column", "\n".join(",".join(c for k, c in enumerate(r.split(",")) if k != CHOL) for r in HEART) + "\n"),
    ("near-miss", vendored("heart").replace("age", "Age", 1)),
    ("one-column-header", vendored("heart").replace(",", " ")),
    ("duplicate-header", vendored("heart").replace("chol", "age", 1)),
    ("empty-header-name", vendored("heart").replace("chol", " ", 1)),
    ("ragged-after-bad-cells", heart_with((1, AGE, "foo"), (1, THAL, ""), lines=HEART[:250] + ["1,2"] + HEART[250:])),
    ("ragged-beats-bad-header", "\n".join(HEART[:200] + ["1,2,3"] + HEART[200:]).replace("chol", "age", 1)),
    ("blank-line-inside", "\n".join(HEART[:100] + ["", " "] + HEART[100:]) + "\n"),
    ("blank-full-row-inside", "\n".join(HEART[:100] + [",,,,,,,,,,,,,"] + HEART[100:]) + "\n"),
    ("unquoted-carriage-return", heart_with((280, AGE, "6\r3"), (2, AGE, ""))),
    ("bad-utf8-late", _bytes_edit(heart_with((2, AGE, "")), 9000, b"\xff")),
    ("bad-utf8-late-bom", b"\xef\xbb\xbf" + _bytes_edit(heart_with((2, AGE, "")), 9000, b"\xe2\x82")),
    ("truncated-utf8-at-end", vendored("heart").encode() + b"\xe2\x82"),
    ("truncated-gzip", gzip.compress(heart_with((2, AGE, "")).encode())[:-200]),
    ("truncated-gzip-bad-utf8-early", gzip.compress(_bytes_edit(vendored("heart"), 100, b"\xff"))[:-200]),
    ("truncated-gzip-unquoted-cr-early", gzip.compress(heart_with((1, AGE, "6\r3")).encode())[:-200]),
    ("empty", ""),
    ("whitespace", " \n\t\n  \n"),
    ("whitespace-bad-line-end", " \r \n"),
    ("header-only", HEART[0] + "\n"),
    ("blank-cells-only", '""\n\n'),
]


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("bad")
    out = {}
    for name, content in BAD:
        out[name] = folder / f"{name}.csv"
        out[name].write_bytes(content.encode() if isinstance(content, str) else content)
    return out


@pytest.mark.parametrize("name", [b[0] for b in BAD])
def test_predict_fails_as_before(trees, bad_files, sizes, name, capsys, tmp_path, monkeypatch):
    data = bad_files[name]
    if name == "blank-cells-only":  # read_table failed with an IndexError (a traceback)
        want = (2, "", f"error: {data}: the file has only blank cells, no header\n")
    else:
        want = old_predict(trees["heart"], data)
        assert want[0] == 2 or name == "header-only", want
    assert cli_main(["predict", trees["heart"], data], capsys) == want
    # with -o: the same, and nothing left in the output's folder
    monkeypatch.chdir(tmp_path)
    got = cli_main(["predict", trees["heart"], data, "-o", "p.csv"], capsys)
    if want[0] == 0:
        assert got[0] == 0 and (tmp_path / "p.csv").read_text() == want[1]
    else:
        assert got == want and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args", [["--id-column", "nope"], ["--id-column", "prediction", "--proba"]])
def test_id_column_errors_come_after_the_file_is_read(trees, bad_files, good_files, args, capsys):
    for data in (good_files["heart"], bad_files["ragged-after-bad-cells"], bad_files["empty-cell"]):
        text = data.read_text().replace("age", "prediction", 1) if "prediction" in args else data.read_text()
        renamed = data.with_name("renamed-" + data.name)
        renamed.write_text(text)
        want = old_predict(trees["heart"], renamed, "--proba" in args, args[1])
        assert want[0] == 2
        assert cli_main(["predict", trees["heart"], renamed, *args], capsys) == want


def test_overflow_names_the_row_of_the_file_after_the_notes(tmp_path, sizes, capsys):
    """A score that overflows names its row in the whole file (Tree.scores saw one chunk), after the
    notes, as before, and now the file and the row's line too; explain names its --row, not 0."""
    schema = Schema((Column("a", "numeric"), Column("c", "categorical", ("p", "q"))))
    tree = Tree(np.array([[10.0, 1.0, -1.0]]), np.zeros(1), Scaler.identity(3), schema, ("no", "yes"))
    save(tree, tmp_path / "t.json")
    rows = [f"{k % 5},{'pq'[k % 2]}" for k in range(40)]
    rows[23], rows[11], rows[31] = "1e308,p", "2,zz", "-1e308,q"
    data = write(tmp_path, "d.csv", "a,c\n" + "\n".join(rows) + "\n")
    want = old_predict(tmp_path / "t.json", data)
    assert want[0] == 2 and "error: row 23: the score of node 0 overflows" in want[2] and "never saw" in want[2]
    want = (*want[:2], want[2].replace("error: row 23:", f"error: {data}: row 23 (line 25):"))
    assert cli_main(["predict", tmp_path / "t.json", data], capsys) == want
    code, out, err = cli_main(["explain", tmp_path / "t.json", "--data", data, "--row", "31"], capsys)
    assert (code, out) == (2, "") and err == (f"error: {data}: row 31 (line 33): the score of node 0 overflows "
                                              "(values too large for this tree's weights); rescale the input\n")


def test_an_error_late_in_a_long_file_leaves_no_file_and_prints_nothing(trees, tmp_path, monkeypatch, capsys):
    """-o: the temporary file beside the output is removed; standard output: nothing was printed."""
    monkeypatch.setattr(olctc.data.table, "CHUNK_CELLS", 1400)  # 100 rows
    lines = resampled("heart", 3000).splitlines()
    lines[-1] = lines[-1].replace(",", ",,", 1)  # a ragged last row (line 3001): 2900 rows predicted by then
    data = write(tmp_path, "d.csv", "\n".join(lines) + "\n")
    out = tmp_path / "out" / "p.csv"
    out.parent.mkdir()
    out.write_text("the old predictions\n")
    message = f"error: {data}: line 3001 has 15 fields, the header has 14\n"
    assert cli_main(["predict", trees["heart"], data, "-o", out], capsys) == (2, "", message)
    assert [p.name for p in out.parent.iterdir()] == ["p.csv"] and out.read_text() == "the old predictions\n"
    assert cli_main(["predict", trees["heart"], data], capsys) == (2, "", message)


def test_a_write_error_comes_after_the_data_errors(trees, bad_files, good_files, tmp_path, capsys, monkeypatch):
    """A full disk while writing is reported only if the data has no fault, as when the output was
    written after all was checked; the temporary file goes either way."""
    import olctc.io

    real = olctc.io.os.fdopen

    class Full(io.TextIOWrapper):
        def write(self, text):
            raise OSError(28, "No space left on device")

    def fdopen(fd, mode="r", *args, **kwargs):
        return Full(real(fd, "wb"), encoding="utf-8") if "w" in mode else real(fd, mode, *args, **kwargs)

    monkeypatch.setattr(olctc.io.os, "fdopen", fdopen)
    monkeypatch.chdir(tmp_path)
    got = cli_main(["predict", trees["heart"], bad_files["empty-cell"], "-o", "p.csv"], capsys)
    assert got == old_predict(trees["heart"], bad_files["empty-cell"]) and list(tmp_path.iterdir()) == []
    got = cli_main(["predict", trees["heart"], good_files["heart"], "-o", "p.csv"], capsys)
    assert got == (2, "", "note: ignoring 1 column(s) the tree does not use: 'y'\n"
                          "error: cannot write p.csv: No space left on device\n")
    assert list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- random files

CELLS = ["1", "2.5", "-3e2", " 7 ", "nan", "inf", "1_0", '"1,5"', "foo", "p", "q", " q", "zz", "", " ", '"q\nr"',
         '"p""q"', '"a\r\nb"', "\x1b[1mp"]
HEADERS = ["a,note,y", "note,a", "a", "a,a,note", "a,,note", "y,note,a,id", '"a",note', " a , note "]


@st.composite
def csv_files(draw) -> bytes:
    """Small CSV files, good and bad: awkward cells, ragged and blank rows, three line ends, a BOM, a bad
    byte, gzip, another separator."""
    header = draw(st.sampled_from(HEADERS))
    width = len(header.split(","))
    rows = draw(st.lists(st.one_of(
        st.lists(st.sampled_from(CELLS), min_size=width, max_size=width),
        st.lists(st.sampled_from(CELLS), min_size=0, max_size=width + 1)), max_size=12))
    rows = [",".join(r) for r in rows] + draw(st.sampled_from([[], [""], ["", " "], [",,"]]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    text = end.join([header] + rows) + draw(st.sampled_from(["", end]))
    if draw(st.booleans()) and '"' not in text:
        text = text.replace(",", draw(st.sampled_from([";", "\t"])))
    raw = (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode()
    if draw(st.integers(0, 5)) == 0:
        at = draw(st.integers(0, len(raw)))
        raw = raw[:at] + draw(st.sampled_from([b"\xff", b"\xe2\x82"])) + raw[at:]
    return gzip.compress(raw) if draw(st.booleans()) else raw


@pytest.fixture(scope="module")
def small_tree(tmp_path_factory) -> Path:
    """A depth-1 tree on a numeric column 'a' and a categorical 'note' (p, q)."""
    schema = Schema((Column("a", "numeric"), Column("note", "categorical", ("p", "q"))))
    path = tmp_path_factory.mktemp("small") / "t.json"
    save(Tree(np.array([[1.0, 0.5, -0.5]]), np.array([0.1]), Scaler.identity(3), schema, ("x", "y")), path)
    return path


@settings(derandomize=True, max_examples=300, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(content=csv_files(), small=st.booleans(), block=st.sampled_from([1, 2, 3, 5, 61]), row=st.integers(-1, 14))
def test_random_files_read_predict_and_explain_as_before(small_tree, tmp_path, capsys, content, small, block, row):
    data = tmp_path / "d.csv"
    data.write_bytes(content)
    with pytest.MonkeyPatch.context() as mp:
        if small:
            mp.setattr(olctc.data.table, "CHUNK_CELLS", 2)
            mp.setattr(olctc.data.table, "_BLOCK", block)
        try:
            want = old_read_table(data)
        except OlctcError as exc:
            want = str(exc)
        except IndexError:  # a file of blank cells: read_table failed; now an error
            want = f"{data}: the file has only blank cells, no header"
        try:
            got = read_table(data)
        except OlctcError as exc:
            got = str(exc)
        if isinstance(want, str) or isinstance(got, str):
            assert got == want
        else:
            assert (got.header, got.rows, got.lines.tolist(), got.sha256, got.text, got.delimiter) == \
                (want.header, want.rows, want.lines.tolist(), want.sha256, want.text, want.delimiter)
        if isinstance(want, str) and "only blank cells" in want:
            return
        for args in ([], ["--proba", "--id-column", "note"]):
            assert cli_main(["predict", small_tree, data, *args], capsys) == \
                old_predict(small_tree, data, bool(args), "note" if args else None)
        before = old_explain(small_tree, data, row)
        if before[0] == 0:  # it fails now only for faults after its row, which it no longer reads
            assert cli_main(["explain", small_tree, "--data", data, "--row", row], capsys) == before


# ---------------------------------------------------------------- explain

@pytest.mark.parametrize("name,tree", [("heart-ids", "heart"), ("tic-tac-toe-ids-gzip-bom", "tic-tac-toe"),
                                       ("heart-old-mac", "heart"), ("heart-crlf-trailing-blanks", "heart")])
def test_explain_says_what_it_said(trees, good_files, sizes, name, tree, capsys):
    data = good_files[name]
    n = len(old_read_table(data).rows)
    for row in (0, 3, 40, n - 1, n, n + 5, -1):
        got = cli_main(["explain", trees[tree], "--data", data, "--row", row], capsys)
        assert got == old_explain(trees[tree], data, row), row


@pytest.mark.parametrize("name", ["empty-cell", "not-a-number", "later-row-earlier-column", "missing-column",
                                  "near-miss", "one-column-header", "duplicate-header", "empty-header-name",
                                  "blank-full-row-inside", "whitespace", "empty", "header-only"])
def test_explain_fails_as_before_up_to_its_row(trees, bad_files, sizes, name, capsys):
    """Faults up to the row explained; those after it are the next test's."""
    data = bad_files[name]
    for row in (1, 30, 100, 500):
        assert cli_main(["explain", trees["heart"], "--data", data, "--row", row], capsys) == \
            old_explain(trees["heart"], data, row), row


def test_explain_reads_no_further_than_its_row(trees, tmp_path, sizes, capsys):
    """Rows after the one explained are not read: a broken end (a ragged row, a truncated gzip) does not
    stop it, where the whole file was read before; a row beyond the end still says how many there are."""
    lines = vendored("heart").splitlines()
    text = "\n".join(lines[:200] + ["1,2"] + lines[200:]) + "\n"
    ragged = write(tmp_path, "ragged.csv", text)
    assert old_explain(trees["heart"], ragged, 5)[0] == 2
    code, out, err = cli_main(["explain", trees["heart"], "--data", ragged, "--row", 5], capsys)
    assert (code, err) == (0, "note: ignoring 1 column(s) the tree does not use: 'y'\n")
    assert out.startswith(f"row 5 (line 7 of {ragged})")
    assert cli_main(["explain", trees["heart"], "--data", ragged, "--row", 300], capsys) == \
        (2, "", f"error: {ragged}: line 201 has 2 fields, the header has 14\n")
    cut = tmp_path / "cut.csv.gz"  # 3 MB of text: the first blocks read before the cut
    text = vendored("heart") + "".join(f"{line}\n" for line in lines[1:]) * 300
    cut.write_bytes(gzip.compress(text.encode())[:-300])
    got = cli_main(["explain", trees["heart"], "--data", cut, "--row", 5], capsys)
    assert got[:2] == (0, out.replace(str(ragged), str(cut)))
    good = write(tmp_path, "g.csv", vendored("heart"))
    assert cli_main(["explain", trees["heart"], "--data", good, "--row", 297], capsys) == \
        (2, "", f"error: --row 297 is out of range: {good} has 297 data row(s) (0 to 296)\n")


# ---------------------------------------------------------------- memory, interrupts

def _peak_rss_mb(args: list, cwd: Path) -> tuple[int, float]:
    """Exit code and peak RSS of ``olctc ARGS``, run by a small Python process: a child's ru_maxrss starts at
    its parent's RSS when started (kept across exec), and this test process holds hundreds of MB of text."""
    measure = ("import os, sys; pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ); "
               "_, status, usage = os.wait4(pid, 0); print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", measure, sys.executable, "-m", "olctc.cli", *map(str, args)],
                          cwd=cwd, capture_output=True, text=True, timeout=600)
    code, rss = proc.stdout.split()[-2:]
    return int(code), int(rss) / 1024


@pytest.mark.slow
def test_memory_does_not_grow_with_the_rows(trees, tmp_path):
    """Peak RSS of predict on 10x more rows grows by less than 40 MB (it grew by 460 MB: 20k -> 200k rows
    of heart took 165 -> 625 MB when the whole file was read at once)."""
    small = resampled("heart", 20_000)
    big = small + "".join(small.splitlines(keepends=True)[1:]) * 9
    sizes = []
    for name, text in (("small.csv", small), ("big.csv", big)):
        write(tmp_path, name, with_ids(text))
        code, rss = _peak_rss_mb(["predict", trees["heart"], name, "--proba", "--id-column", "id", "-o", "p.csv"],
                                 tmp_path)
        assert code == 0
        sizes.append(rss)
    assert sizes[1] - sizes[0] < 40, sizes


def _reading(pid: int, name: str) -> bool:
    """Whether process ``pid`` has the file ``name`` open (Linux's /proc)."""
    try:
        return any(os.readlink(f"/proc/{pid}/fd/{fd}").endswith(name) for fd in os.listdir(f"/proc/{pid}/fd"))
    except OSError:
        return False


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="needs /proc")
def test_interrupted_predict_leaves_nothing(trees, tmp_path):
    """Ctrl-C while predicting to a file: exit 130, the temporary file beside the output removed; to standard
    output: nothing printed."""
    text = resampled("heart", 20_000)
    write(tmp_path, "d.csv", text + "".join(text.splitlines(keepends=True)[1:]) * 9)  # 2 s of reading or more
    for args, stdout in ((["-o", "p.csv"], subprocess.DEVNULL), ([], subprocess.PIPE)):
        proc = subprocess.Popen([sys.executable, "-m", "olctc.cli", "predict", str(trees["heart"]), "d.csv", *args],
                                cwd=tmp_path, stdout=stdout, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while not _reading(proc.pid, "/d.csv") and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.005)
        time.sleep(0.3)  # some chunks predicted
        assert proc.poll() is None, "predict ended before the interrupt"
        if args:
            assert any(p.name.startswith(".p.csv.") for p in tmp_path.iterdir())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 130 and err.strip().endswith("interrupted") and "Traceback" not in err, err
        assert not out and sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_a_killed_predicts_hidden_file_is_named_on_the_next_predict(tmp_path, capsys):
    """SIGKILL leaves the hidden file the predictions are written in (as large as the output, in no listing)."""
    save(tree_for("heart", 1), tmp_path / "t.json")
    data = tmp_path / "d.csv"
    data.write_bytes(gzip.decompress(dataset_path("heart").read_bytes()))
    left = tmp_path / ".p.csv.0123456789ab.tmp"
    left.write_text("prediction\n1\n")
    (tmp_path / ".p.csv.0123456789ab.tmp.x").write_text("not the pattern\n")
    (tmp_path / ".q.csv.0123456789ab.tmp").write_text("another name's\n")
    (tmp_path / ".p.csv.ba9876543210.tmp").mkdir()  # a folder: no predict writes one
    code, out, err = cli_main(["predict", tmp_path / "t.json", data, "-o", tmp_path / "p.csv"], capsys)
    assert code == 0 and err.startswith(f"warning: {left}: left by a predict of p.csv that was killed before it "
                                        "finished, or in use by one running now; nothing else reads it: remove it "
                                        "once none is running\n") and err.count("warning") == 1, err
    assert left.read_text() == "prediction\n1\n"  # said, not removed: it could be another predict's, under way
    assert (tmp_path / "p.csv").read_text().startswith("prediction\n")


@pytest.mark.parametrize("name", ["heart", "tic-tac-toe"])
def test_predict_target_scores_as_scikit_learn_does(tmp_path, capsys, name):
    """--target COLUMN: accuracy and balanced accuracy of the predictions against the file's labels, on
    standard error when the predictions go to standard output (here across chunks: 300,000 cells each)."""
    from sklearn.metrics import accuracy_score, balanced_accuracy_score, brier_score_loss, log_loss, recall_score

    save(tree_for(name, 2), tmp_path / "t.json")
    data = tmp_path / "d.csv"
    text = gzip.decompress(dataset_path(name).read_bytes()).decode()
    head, *rows = text.splitlines()
    data.write_text("\n".join([head] + rows * (1 + 300_000 // (len(rows) * head.count(",")))) + "\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", data, "--target", "y"], capsys)
    assert code == 0, err
    truth = [r["y"] for r in csv.DictReader(io.StringIO(data.read_text()))]
    pred = [r["prediction"] for r in csv.DictReader(io.StringIO(out))]
    t = load_tree_file(tmp_path / "t.json")
    rec = recall_score(truth, pred, average=None, labels=[str(c) for c in t.classes])
    import pandas as pd

    p = t.predict_proba(t.encode(pd.read_csv(data)))[:, 1]
    z = np.array(truth) == str(t.classes[1])
    assert err.strip().splitlines()[-1] == (
        f"accuracy {accuracy_score(truth, pred):.4f}, balanced accuracy {balanced_accuracy_score(truth, pred):.4f}, "
        f"log loss {log_loss(z, p):.4f}, Brier score {brier_score_loss(z, p):.4f} on {len(truth)} rows (column 'y'; "
        f"recall {rec[0]:.4f} of {t.classes[0]!r}, {rec[1]:.4f} of {t.classes[1]!r})")
    assert "ignoring" not in err  # the target is used, not a column the tree ignores
    code, out, err2 = cli_main(["predict", tmp_path / "t.json", data, "--target", "y", "-o", tmp_path / "p.csv"],
                               capsys)
    assert code == 0 and out.splitlines()[-1] == err.strip().splitlines()[-1] and err2 == ""


def test_predict_target_refuses_labels_it_cannot_score(tmp_path, capsys):
    save(tree_for("heart", 1), tmp_path / "t.json")
    lines = gzip.decompress(dataset_path("heart").read_bytes()).decode().splitlines()
    for edit, message in [((None, None), "--target 'label' is not a column; columns are: age, sex, cp, trestbps, chol, fbs, "
                                         "restecg, thalach, exang, oldpeak, slope, ca ... (14 columns, the last y)"),
                          ((4, "maybe"), "--target 'y' line 5: label 'maybe' is not one of the tree's classes "
                                         "(0, 1); drop such rows to score the others, or leave out --target"),
                          ((6, ""), "--target 'y' line 7: no class label; drop such rows to score the others, "
                                    "or leave out --target")]:
        k, label = edit
        body = list(lines)
        if k is not None:
            body[k] = body[k].rsplit(",", 1)[0] + "," + label
        data = tmp_path / "d.csv"
        data.write_text("\n".join(body) + "\n")
        code, out, err = cli_main(["predict", tmp_path / "t.json", data, "--target", "label" if k is None else "y",
                                   "-o", tmp_path / "p.csv"], capsys)
        assert (code, err) == (2, f"error: {data}: {message}\n"), err
        assert not (tmp_path / "p.csv").exists()
    (tmp_path / "one.csv").write_text("\n".join([lines[0]] + [r for r in lines[1:] if r.endswith(",1")][:5]) + "\n")
    code, _, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "one.csv", "--target", "y"], capsys)
    last = err.strip().splitlines()[-1]
    assert code == 0 and re.search(r"^accuracy ([0-9.]+), balanced accuracy \1, log loss [0-9.]+, Brier score "
                                   r"[0-9.]+ on 5 rows \(column 'y'; every row is 1: balanced accuracy is its "
                                   r"recall\)$", last), last


def test_predict_target_names_the_first_bad_row_and_reads_labels_as_read_csv_does(tmp_path, capsys):
    """The scorer reads each distinct cell once: the error still names the first bad row of the file, and
    cells that differ only by spaces or by number spelling ("1", " 1 ", "1.0") are the same class."""
    save(tree_for("heart", 1), tmp_path / "t.json")
    lines = gzip.decompress(dataset_path("heart").read_bytes()).decode().splitlines()
    body = list(lines)
    for k, label in ((2, " 1 "), (3, "1.0"), (5, "maybe"), (4, ""), (9, "maybe")):
        body[k] = body[k].rsplit(",", 1)[0] + "," + label
    data = tmp_path / "d.csv"
    data.write_text("\n".join(body) + "\n")
    code, _, err = cli_main(["predict", tmp_path / "t.json", data, "--target", "y", "-o", tmp_path / "p.csv"], capsys)
    assert (code, err) == (2, f"error: {data}: --target 'y' line 5: no class label; drop such rows to score the "
                              "others, or leave out --target\n")
    del body[4:6], body[7]  # the bad rows gone (lines 5, 6 and 10): the spellings of 1 count as 1
    data.write_text("\n".join(body) + "\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", data, "--target", "y"], capsys)
    assert code == 0, err
    truth = [int(float(r["y"])) for r in csv.DictReader(io.StringIO(data.read_text()))]
    pred = [int(r["prediction"]) for r in csv.DictReader(io.StringIO(out))]
    assert len(truth) == len(lines) - 4 and truth[1:3] == [1, 1]
    right = sum(t == p for t, p in zip(truth, pred))
    assert err.strip().splitlines()[-1].startswith(f"accuracy {right / len(truth):.4f}, ")


def test_predict_target_log_loss_is_exact_for_confident_mistakes(tmp_path, capsys):
    """--target's log loss is -log P(true class) from the score itself: a mistake at score 800 costs 800,
    where 1 - sigmoid(800) is 0 in floating point (scikit-learn's log_loss clips it to about 36)."""
    from olctc.tree import Tree

    save(Tree.from_arrays([[1.0]], [0.0], feature_names=["x"]), tmp_path / "t.json")
    (tmp_path / "d.csv").write_text("x,y\n800,-1\n-500,-1\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "d.csv", "--target", "y",
                               "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    assert out.splitlines()[-1] == ("accuracy 0.5000, balanced accuracy 0.5000, log loss 400.0000, Brier score 0.5000 "
                                    "on 2 rows (column 'y'; every row is -1: balanced accuracy is its recall)")


def test_predict_target_huge_log_loss_in_scientific_notation(tmp_path, capsys):
    """A confident mistake on a row of 1e308 costs about 1e308: '.4f' printed its 300 digits (QA pass,
    2026-12-03)."""
    from olctc.tree import Tree

    save(Tree.from_arrays([[1.0]], [0.0], feature_names=["x"]), tmp_path / "t.json")
    (tmp_path / "d.csv").write_text("x,y\n1e308,-1\n-5,-1\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "d.csv", "--target", "y",
                               "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    assert ", log loss 5.0000e+307, Brier score 0.5000 on 2 rows" in out.splitlines()[-1], out


def test_predict_target_scores_a_tree_of_numeric_looking_text_classes(tmp_path, capsys):
    """An estimator keeps string labels as given: its tree's classes can be the text "0" and "1" (pandas reading a
    CSV with dtype=str) or " 0" and "1 ", where the reader makes the cell "0" the number 0 and strips spaces. Such a
    tree was refused: "label '0' is not one of the tree's classes ('0', '1')" (QA, 2026-12-05)."""
    data = tmp_path / "d.csv"
    data.write_bytes(gzip.decompress(dataset_path("heart").read_bytes()))
    tree = copy.deepcopy(tree_for("heart", 1))  # tree_for is cached: the classes are changed below
    save(tree, tmp_path / "t.json")
    code, out, err = cli_main(["predict", tmp_path / "t.json", data, "--target", "y", "-o", tmp_path / "p.csv"],
                              capsys)
    assert code == 0, err
    expected = out.strip().splitlines()[-1].split(" (column")[0]
    assert expected.startswith("accuracy 0.")
    for classes in (("0", "1"), (" 0", "1 "), ("0.0", "1.0")):
        tree.classes = classes
        save(tree, tmp_path / "s.json")
        code, out, err = cli_main(["predict", tmp_path / "s.json", data, "--target", "y", "-o", tmp_path / "q.csv"],
                                  capsys)
        assert code == 0, err
        assert out.strip().splitlines()[-1].split(" (column")[0] == expected, (classes, out)
    # two classes one text apart are no key for either: the cell is refused, not given to one of them
    tree.classes = ("1", " 1")
    save(tree, tmp_path / "s.json")
    code, _, err = cli_main(["predict", tmp_path / "s.json", data, "--target", "y", "-o", tmp_path / "q.csv"], capsys)
    assert code == 2 and "label '0' is not one of the tree's classes ('1', ' 1')" in err, err


def test_predict_target_scores_false_true_against_a_tree_of_bools(tmp_path, capsys):
    """An estimator fitted on bool labels exports the classes 0 and 1; pandas writes that target column as
    False/True, which --target refused: "label 'False' is not one of the tree's classes (0, 1)" (2026-12-05).
    Only a tree of exactly the classes 0 and 1 takes them: for the classes 1 and 2, 'True' is no label."""
    text = gzip.decompress(dataset_path("heart").read_bytes()).decode()
    data = tmp_path / "d.csv"
    data.write_text(text)
    header, *rows = text.splitlines()
    where = header.split(",").index("y")

    def relabel(names):
        out = [header]
        for r in rows:
            cells = r.split(",")
            cells[where] = names[int(float(cells[where]))]
            out.append(",".join(cells))
        return "\n".join(out) + "\n"

    tree = copy.deepcopy(tree_for("heart", 1))  # tree_for is cached: the classes are changed below
    assert tree.classes == (0, 1)
    save(tree, tmp_path / "t.json")
    code, out, err = cli_main(["predict", tmp_path / "t.json", data, "--target", "y", "-o", tmp_path / "p.csv"],
                              capsys)
    assert code == 0, err
    expected = out.strip().splitlines()[-1]
    assert expected.startswith("accuracy 0.")
    for names in (("False", "True"), ("false", "true"), ("FALSE", "TRUE")):
        (tmp_path / "b.csv").write_text(relabel(names))
        code, out, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "b.csv", "--target", "y",
                                   "-o", tmp_path / "q.csv"], capsys)
        assert code == 0, err
        assert out.strip().splitlines()[-1] == expected, (names, out)
    tree.classes = (1, 2)
    save(tree, tmp_path / "s.json")
    (tmp_path / "b.csv").write_text(relabel(("True", "2")))
    code, _, err = cli_main(["predict", tmp_path / "s.json", tmp_path / "b.csv", "--target", "y",
                             "-o", tmp_path / "q.csv"], capsys)
    assert code == 2 and "label 'True' is not one of the tree's classes (1, 2)" in err, err


def test_blank_lines_are_not_held_past_the_first(trees, tmp_path, capsys):
    """Blank lines were held, each, until a data row showed whether they were inside the data: 5M of them (a
    5 MB file, or 10 KB of gzip) took predict to 930 MB (QA 2026-12-05). Past the first blank line of another
    width none is held (the error is the first one's, whatever follows): the same results, in flat memory."""
    import tracemalloc

    from olctc.data.csvfile import CsvStream

    text = gzip.decompress(dataset_path("heart").read_bytes()).decode()
    header, *rows = text.splitlines()
    trailing = tmp_path / "trailing.csv"
    trailing.write_text(text + "\n" * 400_000)
    inside = tmp_path / "inside.csv"
    inside.write_text("\n".join([header, *rows[:5]]) + "\n" * 400_000 + "\n".join(rows[5:]) + "\n")
    tracemalloc.start()
    try:
        n = sum(len(c.rows) for c in CsvStream(trailing).chunks())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert n == len(rows) and peak < 20 * 2**20, peak  # held: 400k x ~100 bytes
    with pytest.raises(OlctcError, match=r"inside.csv: line 7 is blank; remove blank lines inside the data$"):
        for _ in CsvStream(inside).chunks():
            pass
    code, out, err = cli_main(["predict", trees["heart"], trailing, "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    assert len((tmp_path / "p.csv").read_text().splitlines()) == len(rows) + 1
