"""QA of the CSV reader's syntax faults: a quote never closed, an unnamed index column (pandas, R), a bare
carriage return, a header read as comma-separated that holds tabs, numbers in non-ASCII digits. Real files
through the CLI (compile, predict, explain) and ``read_csv``."""
from __future__ import annotations

import gzip
import os
import random
import threading
from pathlib import Path

import numpy as np
import pytest

from conftest import cli_main
from olctc.data import Scaler, read_csv
from olctc.errors import OlctcError

STRAY = ("line {line}: a quoted field opened here is never closed (a stray '\"'?) and runs to the end of the "
         "file; remove that quote or close it (a '\"' inside a quoted field is written '\"\"')")
INDEX = ("the header's first column (column 1) has no name: it looks like the index column that pandas' to_csv "
         "and R's write.csv write by default; save the file without it (pandas: to_csv(..., index=False); R: "
         "write.csv(..., row.names = FALSE)), or name the column")
CLOSED = ("line {opened}: a quoted field opened here runs to line {closed}, where a '\"' followed by {after!r}, not a "
          "separator, closes it: lines {opened}-{closed} were read as one cell (a stray '\"'?); remove the stray "
          "quote, or write a '\"' inside a quoted field as '\"\"'")
BARE_CR = ("line {line}: a carriage return ('\\r') inside an unquoted cell, or mixed line endings; quote that "
           "cell, or save the file with one kind of line ending (all '\\n' or all '\\r\\n')")


def cities(stray: int | None, header: str = "a,b,city,label", n: int = 1000, end: str = "\n",
           last_break: bool = True) -> str:
    """``n`` rows of a, b, city, label; the city of row ``stray`` is '"Rome' (a quote opened, never closed)."""
    rng = random.Random(1)
    rows = [header]
    for k in range(n):
        a = rng.gauss(0, 1)
        city = '"Rome' if k == stray else rng.choice(["Rome", "Paris", "Oslo"])
        cells = {"a": f"{a:.4f}", "b": f"{rng.gauss(0, 1):.4f}", "city": city, "label": "yes" if a > 0 else "no"}
        rows.append(",".join(cells[h] for h in header.split(",")))
    return end.join(rows) + (end if last_break else "")


def write(tmp_path: Path, text: str, name: str = "d.csv") -> Path:
    p = tmp_path / name
    if name.endswith(".gz"):
        p.write_bytes(gzip.compress(text.encode()))
    else:
        p.write_bytes(text.encode())
    return p


def compile_error(tmp_path: Path, data: Path, capsys, target: str = "label") -> tuple[int, str, str, bool]:
    code, out, err = cli_main(["compile", data, "--target", target, "-o", tmp_path / "m.mps"], capsys)
    return code, out, err, (tmp_path / "m.mps").exists()


# ---------------------------------------------------------------- 1. a quote never closed

@pytest.mark.parametrize("header", ["a,b,label,city", "a,b,city,label", "a,city,b,label"],
                         ids=["last-column", "target-column", "middle-column"])
def test_a_stray_quote_is_refused_naming_its_line(tmp_path, capsys, header):
    """Row 10 (line 11) of 1000 has '"Rome': read as 10 points whose last cell held the rest of the file
    (exit 0), as a class label of 1.9 MB, or as "line 11 has 4 fields, the header has 5"."""
    data = write(tmp_path, cities(9, header))
    assert compile_error(tmp_path, data, capsys) == (2, "", f"error: {data}: {STRAY.format(line=11)}\n", False)


@pytest.mark.parametrize("text,line", [
    ('a,"note,label\n1,x,yes\n2,y,no\n', 1),  # in the header: the header took the whole file
    ('a,b,label\n1,2,yes\n3,4,"no', 3),  # on the last line, with no line break after it
    ('a,b,label\n1,2,yes\n3,4,"no\n', 3),
    (cities(999, last_break=False), 1001),
    (cities(9, end="\r\n"), 11),
    (cities(9, end="\r"), 11),  # old Mac line ends
    # quoted cells spanning lines before it move it down
    ('a,note,label\n1,"two\nlines",yes\n2,"x\n\ny",no\n3,"open,yes\n4,q,no\n', 7),
], ids=["header", "last-line-unended", "last-line", "last-row-unended", "crlf", "cr", "after-multi-line-cells"])
def test_a_stray_quote_anywhere_is_refused(tmp_path, text, line):
    for name in ("d.csv", "d.csv.gz"):
        data = write(tmp_path, text, name)
        with pytest.raises(OlctcError) as exc:
            read_csv(data, "label")
        assert str(exc.value) == f"{data}: {STRAY.format(line=line)}"
    with pytest.raises(OlctcError) as exc:
        _through_a_pipe(tmp_path / "fifo.csv", text)
    assert str(exc.value) == f"{tmp_path / 'fifo.csv'}: {STRAY.format(line=line)}"


def _through_a_pipe(fifo: Path, text: str):
    """read_csv of ``text`` written into a FIFO by a thread (as `olctc compile <(zcat f.csv.gz)` reads)."""
    os.mkfifo(fifo)
    writer = threading.Thread(target=fifo.write_text, args=(text,), daemon=True)
    writer.start()
    try:
        return read_csv(fifo, "label")
    finally:
        writer.join(10)


def test_a_stray_quote_on_the_unended_last_line_of_a_pipe_is_refused(tmp_path):
    """The last line is checked as read: a gzip file's and a pipe's were not (they were read without it)."""
    with pytest.raises(OlctcError) as exc:
        _through_a_pipe(tmp_path / "open.csv", 'a,b,label\n1,2,yes\n3,4,no\n5,6,"no')
    assert str(exc.value) == f"{tmp_path / 'open.csv'}: {STRAY.format(line=4)}"
    assert len(_through_a_pipe(tmp_path / "closed.csv", 'a,b,label\n1,2,yes\n3,4,no\n5,6,"no"').y) == 3


def _stray_quotes(text: str, lines: tuple[int, ...], column: int) -> str:
    """``text`` with a '"' put before the cell of ``column`` (0-based) on each of ``lines`` (1-based)."""
    out = text.split("\n")
    for line in lines:
        cells = out[line - 1].split(",")
        cells[column] = '"' + cells[column]
        out[line - 1] = ",".join(cells)
    return "\n".join(out)


@pytest.mark.parametrize("text,opened,closed,after", [
    # a second stray quote closes the first one's field: 1000 points read as 998, exit 0
    (_stray_quotes(cities(None), (12, 14), 2), 12, 14, cities(None).split("\n")[13].split(",")[2][0]),
    ('a,b,label\n1,2,yes\n3,4,"no\n5,6,yes\n7,8,"no\n9,10,yes\n', 3, 5, "n"),  # in the target column
    ('a,b,label\n1,2,yes\n3,4,"no\n5,6,yes\n7,8,"no', 3, 5, "n"),  # the file's last line, unended
    ('a,b,label\r\n1,2,yes\r\n3,4,"no\r\n5,6,yes\r\n7,8,"no\r\n', 3, 5, "n"),
    ('a,"b,label\n1,2,yes\n3,4,"no\n5,6,yes\n', 1, 3, "n"),  # in the header
    # after cells that rightly span lines (and doubled quotes in them)
    ('a,note,label\n1,"two\n""lines""",yes\n2,"x\n\ny",no\n3,"open,yes\n4,"q,no\n5,r,yes\n', 7, 8, "q"),
], ids=["feature-column", "target-column", "last-line-unended", "crlf", "header", "after-multi-line-cells"])
def test_a_field_closed_by_a_stray_quote_is_refused(tmp_path, capsys, text, opened, closed, after):
    for name in ("d.csv", "d.csv.gz"):
        data = write(tmp_path, text, name)
        want = f"{data}: {CLOSED.format(opened=opened, closed=closed, after=after)}"
        with pytest.raises(OlctcError) as exc:
            read_csv(data, "label")
        assert str(exc.value) == want
    assert compile_error(tmp_path, data, capsys) == (2, "", f"error: {want}\n", False)
    with pytest.raises(OlctcError) as exc:  # read once, not again: the fault was read as 998 points, exit 0
        _through_a_pipe(tmp_path / "fifo.csv", text)
    assert str(exc.value) == f"{tmp_path / 'fifo.csv'}: {CLOSED.format(opened=opened, closed=closed, after=after)}"


def test_stray_quotes_far_into_a_pipe_of_fields_spanning_lines(tmp_path, monkeypatch):
    """Records spanning lines in every chunk of rows and every block read: the stray quotes of row 4000 of 5000
    are found at their lines, and the text kept to check them (``TableStream._tail``) stays about a chunk's,
    however long the file."""
    import olctc.data.table as table
    from olctc.data.csvfile import CsvStream

    monkeypatch.setattr(table, "_BLOCK", 4096)
    rows, line, where = ["a,note,label"], 2, {}
    for k in range(5000):
        note = f'"two\nlines {k}"' if k % 3 == 0 else f"n{k}"
        if k == 4000:
            note, where["opened"] = '"x', line
        if k == 4001:
            note, where["closed"] = 'y"z', line
        rows.append(f"{k},{note},{'yes' if k % 2 else 'no'}")
        line += rows[-1].count("\n") + 1
    text = "\n".join(rows) + "\n"
    want = CLOSED.format(opened=where["opened"], closed=where["closed"], after="z")
    with pytest.raises(OlctcError) as exc:
        _through_a_pipe(tmp_path / "fifo.csv", text)
    assert str(exc.value) == f"{tmp_path / 'fifo.csv'}: {want}"

    stream, kept = CsvStream(write(tmp_path, text)), []
    with pytest.raises(OlctcError, match=f"line {where['opened']}: a quoted field opened here runs to line"):
        for _ in stream.chunks(size=100):
            kept.append(sum(len(piece) for _, _, piece in stream._tail.pieces))
    assert len(kept) == 50 and max(kept) < 4 * 4096 + 100 * 20, kept  # a chunk's text and a block or so


def test_predict_refuses_a_field_closed_by_a_stray_quote(tmp_path, capsys):
    """predict wrote 998 predictions for 1000 rows, one for the row holding three lines."""
    tree = _tree(tmp_path)
    text = cities(None, "a,b,label,city")
    data = write(tmp_path, _stray_quotes(text, (102, 104), 3), "new.csv")
    want = CLOSED.format(opened=102, closed=104, after=text.split("\n")[103].split(",")[3][0])
    assert cli_main(["predict", tree, data, "-o", tmp_path / "p.csv"], capsys) == (2, "", f"error: {data}: {want}\n")
    assert not (tmp_path / "p.csv").exists()


@pytest.mark.parametrize("text", [
    'a,note,label\n1,"two\nlines",yes\n2,x,no\n3,"end\n",yes\n',
    'a,note,label\n1,"two\nlines",yes\n2,x,no\n3,"end\n",yes',
    'a,note,label\r\n1,"two\r\nlines",yes\r\n2,x,no\r\n3,"end ""quoted""\r\n",yes\r\n',
    'a,note,label\n1,"say ""hi""",yes\n2,x,no\n3,y,"yes"',
    'a,note,label\n1,5",yes\n2,x"y,no\n3,p,yes\n',  # a quote inside an unquoted cell is a character
    # text after a closing quote: blanks after a field spanning lines, anything after one on one line
    'a,note,label\n1,"two\nlines" ,yes\n2,"x"y,no\n3,"p\nq"\t,yes\n',
], ids=["lf", "lf-unended", "crlf", "doubled-quotes", "quote-inside-a-cell", "text-after-a-closing-quote"])
def test_quoted_fields_spanning_lines_still_read(tmp_path, text):
    for name in ("d.csv", "d.csv.gz"):
        ds = read_csv(write(tmp_path, text, name), "label")
        assert len(ds.y) == 3


def test_a_stray_quote_message_is_short_whatever_the_file(tmp_path, capsys):
    """The target column's stray quote made "target 'label' has 3 classes [...]" of the whole file."""
    lines = cities(None, "a,b,label", n=20000).split("\n")
    lines[3] = lines[3][:lines[3].rindex(",") + 1] + '"' + lines[3][lines[3].rindex(",") + 1:]
    data = write(tmp_path, "\n".join(lines))
    code, out, err, wrote = compile_error(tmp_path, data, capsys)
    assert (code, out, wrote) == (2, "", False) and err == f"error: {data}: {STRAY.format(line=4)}\n"


# ---------------------------------------------------------------- predict and explain

def _tree(tmp_path: Path) -> Path:
    """A depth-1 tree on a (numeric) and city (categorical), classes no/yes."""
    from olctc.export.json import save
    from olctc.tree import Tree

    ds = read_csv(write(tmp_path, cities(None, n=50), "train.csv"), "label")
    tree = Tree(np.array([[1.0] + [0.0] * (ds.p - 1)]), np.zeros(1), Scaler.fit(ds.X), ds.schema, ds.classes,
                meta={"depth": 1})
    tree.fit_stats(ds.X, ds.y)
    save(tree, tmp_path / "tree.json")
    return tmp_path / "tree.json"


def test_predict_and_explain_refuse_a_stray_quote(tmp_path, capsys):
    tree, data = _tree(tmp_path), write(tmp_path, cities(9, "a,b,label,city"), "new.csv")
    want = (2, "", f"error: {data}: {STRAY.format(line=11)}\n")
    assert cli_main(["predict", tree, data, "-o", tmp_path / "p.csv"], capsys) == want
    assert not (tmp_path / "p.csv").exists()
    assert cli_main(["explain", tree, "--data", data, "--row", 100], capsys) == want
    assert cli_main(["explain", tree, "--data", data, "--row", 3], capsys)[0] == 0  # reads no further than row 3


def test_predict_ignores_an_unnamed_index_column(tmp_path, capsys):
    tree = _tree(tmp_path)
    plain = cities(None, "a,b,city,label", n=30)
    lines = plain.splitlines()
    indexed = "\n".join([","+ lines[0]] + [f"{k},{r}" for k, r in enumerate(lines[1:])]) + "\n"
    code, out, err = cli_main(["predict", tree, write(tmp_path, indexed, "new.csv")], capsys)
    want = cli_main(["predict", tree, write(tmp_path, plain, "plain.csv")], capsys)
    assert (code, out) == (0, want[1])
    assert err == "note: ignoring 2 column(s) the tree does not use: '', 'label'\n"
    r_style = '"","a","b","city"\n"1",0.5,0,"Rome"\n"2",-1,0,"Oslo"\n'
    assert cli_main(["predict", tree, write(tmp_path, r_style, "r.csv")], capsys)[:2] == (0, "prediction\nyes\nno\n")
    row = cli_main(["explain", tree, "--data", tmp_path / "r.csv", "--row", 1], capsys)
    assert row[0] == 0 and row[1].startswith("row 1 (line 3 of ")


def test_predict_names_a_bare_carriage_return(tmp_path, capsys):
    tree = _tree(tmp_path)
    data = write(tmp_path, "a,b,city\n0.1,0,Rome\n0.2,0,Os\rlo\n", "new.csv")
    assert cli_main(["predict", tree, data], capsys) == (2, "", f"error: {data}: {BARE_CR.format(line=3)}\n")


# ---------------------------------------------------------------- 2. an unnamed index column

@pytest.mark.parametrize("text", [
    ",a,b,label\n0,0.1,1,yes\n1,0.2,2,no\n2,-0.3,3,no\n",  # pandas' df.to_csv("f.csv")
    '"","a","b","label"\n"1",0.1,1,"yes"\n"2",0.2,2,"no"\n"3",-0.3,3,"no"\n',  # R's write.csv(df, "f.csv")
], ids=["pandas", "R"])
def test_an_index_column_is_named_with_the_fix(tmp_path, capsys, text):
    data = write(tmp_path, text)
    assert compile_error(tmp_path, data, capsys) == (2, "", f"error: {data}: {INDEX}\n", False)


def test_other_unnamed_columns_keep_their_messages(tmp_path):
    with pytest.raises(OlctcError, match=r": the header's last column \(column 4\) has no name: the header line"):
        read_csv(write(tmp_path, "a,b,label,\n1,2,yes,\n3,4,no,\n"), "label")
    with pytest.raises(OlctcError, match=r": the header's column 2 \(after 'a'\) has no name; name it$"):
        read_csv(write(tmp_path, "a,,label\n1,2,yes\n3,4,no\n"), "label")


# ---------------------------------------------------------------- 3. a bare carriage return

@pytest.mark.parametrize("text,line", [
    ("a,b,color,label\n0.1,1,red,yes\n0.2,2,bl\rue,no\n", 3),
    ("a,b,label\r\n1,2,yes\r3,4,no\r\n5,6,yes\r\n", 2),  # CRLF and CR line ends mixed
    ("a,b,label\r1,2,yes\r\n3,4,no\r\n", 1),
    ('a,note,label\n1,"two\nlines",yes\n2,x\ry,no\n', 4),  # after a cell spanning lines
], ids=["in-a-cell", "crlf-and-cr", "cr-in-the-header", "after-multi-line-cells"])
def test_a_bare_carriage_return_names_its_line(tmp_path, capsys, text, line):
    for name in ("d.csv", "d.csv.gz"):
        data = write(tmp_path, text, name)
        assert compile_error(tmp_path, data, capsys) == (2, "", f"error: {data}: {BARE_CR.format(line=line)}\n",
                                                         False)


@pytest.mark.parametrize("end", ["\r", "\r\n"])
def test_one_kind_of_line_end_still_reads(tmp_path, end):
    text = end.join(["a,b,label", "1,p,yes", '3,"x' + end + 'y",no', "5,q,yes"]) + end
    ds = read_csv(write(tmp_path, text), "label")
    assert len(ds.y) == 3


# ---------------------------------------------------------------- 4. a comma in a tab-separated header

def test_a_comma_in_a_tab_separated_header_is_explained(tmp_path, capsys):
    data = write(tmp_path, "income, USD\tage\tlabel\n10\t20\tyes\n12\t30\tno\n", "d.tsv")
    assert compile_error(tmp_path, data, capsys) == (
        2, "", f"error: {data}: line 2 has 1 field, the header has 2; the header was read as comma-separated "
               "(2 fields) because it has a comma, but it also holds tabs: quote the name that holds the comma, or "
               "remove the comma\n", False)
    # quoted, the name is read as the file's header meant it
    assert read_csv(write(tmp_path, '"income, USD"\tage\tlabel\n10\t20\tyes\n12\t30\tno\n', "q.tsv"),
                    "label").schema.columns[0].name == "income, USD"


def test_a_ragged_row_without_tabs_in_the_header_keeps_its_message(tmp_path):
    with pytest.raises(OlctcError, match=r": line 3 has 2 fields, the header has 3$"):
        read_csv(write(tmp_path, "a,b,label\n1,2,yes\n3,4\n"), "label")


# ---------------------------------------------------------------- 5. digits that are not ASCII

@pytest.mark.parametrize("cell", ["\u0663", "\uff11\uff12", "\u0661.5", "1\u0662", "\u096a"])
def test_non_ascii_digits_are_no_number(tmp_path, capsys, cell):
    """float() reads '٣' as 3 and '１２' as 12: refused as '1_000' is, whatever path the column takes."""
    want = f"column 'b' line 3: expected a number, got {cell!r}"
    grouped = write(tmp_path, "a,b,label\n0.1,1,yes\n0.2,1_000,no\n-0.3,3,no\n0.4,4,yes\n", "grouped.csv")
    with pytest.raises(OlctcError, match=r"column 'b' line 3: expected a number, got '1_000'$"):
        read_csv(grouped, "label")
    text = f"a,b,label\n0.1,1,yes\n0.2,{cell},no\n-0.3,3,no\n0.4,4,yes\n"
    for name in ("d.csv", "d.csv.gz"):
        data = write(tmp_path, text, name)
        assert compile_error(tmp_path, data, capsys) == (2, "", f"error: {data}: {want}\n", False)
    # a text column besides: the whole-file reading and the column-by-column one
    data = write(tmp_path, "\n".join(r + (",c" if k == 0 else ",p") for k, r in enumerate(text.splitlines())),
                 "text.csv")
    with pytest.raises(OlctcError) as exc:
        read_csv(data, "label")
    assert str(exc.value) == f"{data}: {want}"


def test_non_ascii_digits_in_a_long_column_take_no_fast_path(tmp_path):
    """Chunks of 20,000 rows are converted by numpy, which reads '٣' as 3."""
    rows = [f"{k % 7},{k % 2}" for k in range(30000)]
    rows[25000] = "\u0663,1"
    data = write(tmp_path, "a,label\n" + "\n".join(rows) + "\n")
    with pytest.raises(OlctcError) as exc:
        read_csv(data, "label")
    assert str(exc.value) == f"{data}: column 'a' line 25002: expected a number, got '\u0663'"


def test_space_around_a_number_may_be_any_whitespace(tmp_path):
    ds = read_csv(write(tmp_path, "a,label\n\u00a01.5\u2003,yes\n2,no\n3,yes\n"), "label")
    assert ds.schema.columns[0].kind == "numeric"


def test_predict_refuses_non_ascii_digits(tmp_path, capsys):
    from olctc.data.cells import _to_float_column

    with pytest.raises(OlctcError, match=r"^f: column 'a' line 3: expected a number, got '\uff11\uff12'$"):
        _to_float_column(["1", "\uff11\uff12"], "a", "f")
    tree = _tree(tmp_path)
    data = write(tmp_path, "a,b,city\n0.1,0,Rome\n\u0663,0,Oslo\n", "new.csv")
    assert cli_main(["predict", tree, data], capsys) == (
        2, "", f"error: {data}: column 'a' line 3: expected a number, got '\u0663'\n")


def test_a_stream_dropped_half_read_is_freed_at_once(tmp_path):
    """The text kept for the quote checks holds no reference back to its stream: a stream left half read (a
    bad cell in its first chunk) is freed, and its file closed, without waiting for the cycle collector."""
    import gc
    import weakref

    from olctc.data.csvfile import CsvStream

    stream = CsvStream(write(tmp_path, cities(None, n=500)))
    chunks = stream.chunks(size=10)
    next(chunks)
    ref = weakref.ref(stream)
    gc.disable()
    try:
        del chunks, stream
        assert ref() is None
    finally:
        gc.enable()
