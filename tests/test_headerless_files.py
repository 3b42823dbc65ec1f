"""A data file without its header line: its first data row is read as the column names. compile said "target
column 'y' not found; columns are: 30.0, 64, 1.0, 1" and predict "feature column 'age' is missing", with nothing
on the likely cause; both now ask whether the header line is missing."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from conftest import cli_main
from olctc.data import read_csv
from olctc.datasets import dataset_path
from olctc.errors import OlctcError
from test_data import write
from test_tree import tree_for

ASK = "if the file has no header line, add one (olctc reads the first line as the column names)"


def _haberman_lines() -> list[str]:
    return gzip.decompress(dataset_path("haberman").read_bytes()).decode().splitlines()


def _haberman_tree(tmp_path: Path) -> Path:
    """A depth-1 tree on haberman's three features, saved as t.json."""
    from olctc.export.json import save

    save(tree_for("haberman", 1), tmp_path / "t.json")
    return tmp_path / "t.json"


def test_compile_of_a_file_without_its_header_line_asks_for_one(tmp_path: Path, capsys) -> None:
    """haberman's rows without the header: every name is a number, so the first line is data."""
    lines = _haberman_lines()
    write(tmp_path, "\n".join(lines[1:]) + "\n")
    code, out, err = cli_main(["compile", tmp_path / "d.csv", "--target", "y", "-o", tmp_path / "m.mps"], capsys)
    first = lines[1].split(",")
    assert (code, out) == (2, "")
    assert err == (f"error: {tmp_path / 'd.csv'}: target column 'y' not found; columns are: {', '.join(first)}; the "
                   f"header line holds numbers only: {ASK}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.csv"]


def test_a_number_as_the_only_name_is_asked_about_not_told_of_separators(tmp_path: Path) -> None:
    """A one-column file whose name is a number is a data row: "save it with commas" cannot help there. A name that
    is text keeps the separators' advice (a file of other separators read as one column)."""
    with pytest.raises(OlctcError) as exc:
        read_csv(write(tmp_path, "1\n0\n1\n"), "y")
    assert str(exc.value).endswith(f"target column 'y' not found: the header is one column '1'; the header line "
                                   f"holds numbers only: {ASK}"), str(exc.value)
    with pytest.raises(OlctcError, match=r"the header is one column 'a b y'; olctc reads comma-, semicolon-, tab- or "
                                         r"'\|'-separated files \(save it with commas\)$"):
        read_csv(write(tmp_path, "a b y\n1 2 0\n3 4 1\n"), "y")


def test_a_name_twice_among_numbers_asks_for_the_header_line(tmp_path: Path) -> None:
    """Numbers repeat where names do not: '1.0' twice in a first line of numbers is a data row."""
    with pytest.raises(OlctcError) as exc:
        read_csv(write(tmp_path, "1.0,2,1.0,0\n3,4,5,1\n"), "y")
    assert str(exc.value).endswith(f"the header names column '1.0' twice; the header line holds numbers only: {ASK}")
    with pytest.raises(OlctcError, match=r"the header names column 'a' twice$"):  # text names: no such question
        read_csv(write(tmp_path, "a,b,a,y\n1,2,3,0\n3,4,5,1\n"), "y")


def test_a_number_that_is_a_name_is_no_data_row(tmp_path: Path) -> None:
    """One name of text among numbers ('2024' columns of years beside 'y'): a header, not a data row."""
    with pytest.raises(OlctcError) as exc:
        read_csv(write(tmp_path, "2023,2024,y\n1,2,0\n3,4,1\n"), "z")
    assert str(exc.value).endswith("target column 'z' not found; columns are: 2023, 2024, y"), str(exc.value)


def test_predict_of_a_file_without_its_header_line_asks_for_one(tmp_path: Path, capsys) -> None:
    """Numbers as names: 'the header line holds numbers only'. Text names none of which the tree needs (a data row of
    category cells): 'names none of the tree's columns'. One of the tree's names present: no question."""
    _haberman_tree(tmp_path)
    lines = _haberman_lines()
    write(tmp_path, "\n".join(lines[1:4]) + "\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "d.csv"], capsys)
    assert (code, out) == (2, "")
    assert err.endswith(f"the tree needs 3 columns; the header line holds numbers only: {ASK}\n"), err
    write(tmp_path, "u,v,w\nx,o,b\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "d.csv"], capsys)
    assert err.endswith(f"the tree needs 3 columns; the header line names none of the tree's columns: {ASK}\n"), err
    write(tmp_path, "age,1,2\n1,2,3\n")
    code, out, err = cli_main(["predict", tmp_path / "t.json", tmp_path / "d.csv"], capsys)
    assert err.endswith("(2 missing: 'year_of_operation', 'positive_axillary_nodes'); the tree needs 3 columns\n"), err
