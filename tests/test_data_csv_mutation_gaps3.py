"""Reading CSV data (csvfile, table): behaviour a third mutation pass over olctc.data.csvfile, table and arrays
(QA 2026-12-07, finishing the mutants test_data_csv_mutation_gaps2's pass left unrun) found unpinned. Each test
names the wrong behaviour it rules out (mutants of the code, not defects seen in olctc)."""
from __future__ import annotations

import os
import re
import threading
import warnings
from pathlib import Path

import pytest

from conftest import cli_main
from olctc.data import IDENTIFIER_ROWS, read_csv
from olctc.errors import OlctcError
from test_data import write
from test_drop_columns import write_ids
from test_qa_csv_reading import _tree


def _warned(p: Path) -> list[str]:
    """The warnings read_csv(p, "y") gives, as text."""
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        read_csv(p, "y")
    return [str(w.message) for w in record]


def test_an_identifier_in_exactly_identifier_rows_rows_is_warned_of(tmp_path: Path) -> None:
    """IDENTIFIER_ROWS rows are enough for the identifier warning: the limit is the first row count warned of,
    not the last one spared (the test of the limit checked IDENTIFIER_ROWS - 1 only)."""
    p = write_ids(tmp_path / "c.csv", n=IDENTIFIER_ROWS)
    assert _warned(p) == [f"{p}: column 'id' has a different text value on each of its {IDENTIFIER_ROWS} rows (an "
                          f"identifier?), one-hot encoded into {IDENTIFIER_ROWS} features; leave it out with --drop id"]


def test_the_summary_warning_adds_no_ellipsis_when_it_names_every_column(tmp_path: Path) -> None:
    """Ten identifier columns: five warned of one by one, the other five all named in the summary, so it must not
    end in ', ...' as if more were left unnamed."""
    p = tmp_path / "wide.csv"
    p.write_text(",".join(f"t{j}" for j in range(10)) + ",y\n"
                 + "".join(",".join(f"r{i}c{j}" for j in range(10)) + f",{i % 2}\n" for i in range(20)))
    messages = _warned(p)
    assert len(messages) == 6
    assert messages[5].endswith(": 't5', 't6', 't7', 't8', 't9'; leave them out with --drop")


def test_a_named_fifo_keeps_its_file_name(tmp_path: Path) -> None:
    """Only bash's /dev/fd/N pipes are named "pipe": a FIFO made with mkfifo has a name the user chose, which
    trees' meta and compile's summary show (its source is the path as given, as for any read-once file)."""
    fifo = tmp_path / "train.csv"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w") as fh:
            fh.write("a,y\n1,p\n2,q\n3,p\n")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    ds = read_csv(fifo, "y")
    writer.join(10)
    assert not writer.is_alive()
    assert (ds.name, ds.source) == ("train", os.path.abspath(fifo))


def test_a_header_of_exactly_thirteen_columns_is_cut_in_the_message(tmp_path: Path) -> None:
    """A missing target's message lists the first 12 columns and then the count and the last (often the label):
    a header of 13 is already cut, not listed in full."""
    p = write(tmp_path, ",".join(f"c{j}" for j in range(13)) + "\n" + ",".join(["1"] * 13) + "\n"
              + ",".join(["2"] * 13) + "\n")
    with pytest.raises(OlctcError) as exc:
        read_csv(p, "y")
    assert str(exc.value) == (f"{p}: target column 'y' not found; columns are: "
                              + ", ".join(f"c{j}" for j in range(12)) + " ... (13 columns, the last c12)")


def test_a_separator_hint_in_capitals_is_named(tmp_path: Path) -> None:
    """Excel reads "SEP=;" as it reads "sep=;": that first line is named as the hint it is, not blamed on the
    data ("line 2 has 2 fields, the header has 1")."""
    p = write(tmp_path, "SEP=;\na;y\n1;p\n2;q\n")
    with pytest.raises(OlctcError, match=re.escape(f"{p}: line 1 is 'SEP=;', a spreadsheet's separator hint, not "
                                                   "a header; delete that line")):
        read_csv(p, "y")


@pytest.mark.parametrize("raw", [
    "a,y\n1,p\n2,q\n".encode("utf-16-be"),  # big-endian: the even bytes are the 0s
    "a,y\n1,p\n2,q\n".encode("utf-16-be") + b"\n",  # and a stray last byte: the odd length is cut off first
], ids=["big-endian", "big-endian-odd-length"])
def test_utf16_big_endian_without_a_mark_is_named(tmp_path: Path, raw: bytes) -> None:
    """UTF-16 without a byte-order mark is named in either byte order (the test of it had little-endian only),
    and a file of odd length (a last byte appended) is judged on its whole 2-byte units."""
    p = tmp_path / "d.csv"
    p.write_bytes(raw)
    with pytest.raises(OlctcError, match=re.escape(f"{p}: not UTF-8 text: it is UTF-16 without a byte-order mark "
                                                   "(every other byte is 0); save the CSV as UTF-8")):
        read_csv(p, "y")


def test_explain_gives_the_separator_hint_for_a_fault_before_its_row(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """explain reads up to its row only; a ragged row before it is still explained as for predict (a comma in a
    tab-separated header): only a fault beyond the row is left unexplained, being unread."""
    tree = _tree(tmp_path)
    data = write(tmp_path, "a, x\tb\tcity\n0.1\t0\tRome\n0.2\t0\tOslo\n0.3\t0\tOslo\n", "new.tsv")
    code, out, err = cli_main(["explain", tree, "--data", data, "--row", 2], capsys)
    assert (code, out) == (2, "")
    assert err == (f"error: {data}: line 2 has 1 field, the header has 2; the header was read as comma-separated "
                   "(2 fields) because it has a comma, but it also holds tabs: quote the name that holds the comma, "
                   "or remove the comma\n")
