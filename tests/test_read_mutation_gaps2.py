"""Solution-reader plumbing a second mutation pass over olctc/read (_base, api, solution, highs) found unpinned:
how a file's bytes become text (line ends, encodings, compression and its damage, archives, the decompression
cap), the digits a writer is measured to keep, format names, Solution.to_array's unknown-column message, and HiGHS
files only some runs write. Solution files are real samples (tests/data/solvers/samples) with the edit stated, or
written here by highspy; compressed files come from Python's gzip/bz2 (QA 2026-12-07).

It also pins a defect the pass found and fixed: HiGHS 1.16 writes a sparse (style 4) file whose columns are all
zero with the count line '# Columns 0 sparse', which the reader refused as "expected a negative count"."""
from __future__ import annotations

import bz2
import codecs
import gzip
import zlib
from pathlib import Path

import numpy as np
import pytest

from conftest import run_highs
from olctc.errors import OlctcError
from olctc.read import detect_format, read_solution
from olctc.read._base import printed_digits, read_as_written
from olctc.read.api import check_format
from test_read_mutation_gaps import COLS, OPT, SAMPLES, _edited, _error

KNOWN = "cplex, gurobi, scip, cbc, glpk, highs, xpress, copt"


def _bytes(tmp_path: Path, data: bytes, name: str = "sol.txt") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ---------------------------------------------------------------- messages and line ends


@pytest.mark.parametrize("width", [60, 61])
def test_a_shown_line_is_cut_after_60_characters(tmp_path: Path, width: int) -> None:
    """Messages quote a line whole up to 60 characters and cut longer ones to 60 plus '...', so an error stays on
    one readable line; the limit is inclusive."""
    line = "z" * width
    shown = line if width == 60 else line[:60] + "..."
    assert _error(_bytes(tmp_path, f"{line}\n".encode())) == (
        f":1: expected a solution file of a known format ({KNOWN}), got '{shown}'")


def test_an_unknown_first_line_is_quoted_without_its_padding(tmp_path: Path) -> None:
    """The first non-blank line is named stripped of the spaces around it, and on its own line number."""
    assert _error(_bytes(tmp_path, b"\n   hello world  \n")) == (
        f":2: expected a solution file of a known format ({KNOWN}), got 'hello world'")


def test_a_file_with_carriage_return_line_ends_is_complete(tmp_path: Path) -> None:
    """A file saved with old Mac line ends (a bare CR each) ends with a line end: not a cut last line, which the
    formats without an end marker (Gurobi here) refuse."""
    text = (SAMPLES / "gurobi_solution.sol").read_text().replace("\n", "\r")
    sol = read_solution(_bytes(tmp_path, text.encode()))
    assert (sol.solver, sol.objective, sol.values) == ("gurobi", -21.5, {**OPT, "MPS_Rgc3": 5.0})


def test_an_unreadable_path_names_the_system_error_alone(tmp_path: Path) -> None:
    """A path through a file (OSError 'Not a directory') is refused with the system's words, not Python's
    '[Errno 20] ...' that repeats the path."""
    path = tmp_path / "plain.sol" / "x.sol"
    _bytes(tmp_path, b"x\n", "plain.sol")
    with pytest.raises(OlctcError) as err:
        read_solution(path)
    assert str(err.value) == f"{path}: expected a readable solution file, got Not a directory"


# ---------------------------------------------------------------- encodings


def test_a_nul_byte_past_the_first_kilobytes_is_binary_content(tmp_path: Path) -> None:
    """Binary content is looked for in the first 64 KB, not only at the start of the file."""
    data = (SAMPLES / "highs_solution.sol").read_bytes() + b" " * 3000 + b"\0\n"
    assert _error(_bytes(tmp_path, data)) == f": expected a text solution file ({KNOWN}), got binary content"


def test_latin1_names_survive(tmp_path: Path) -> None:
    """A file that is not UTF-8 (CPLEX and GLPK write names in Latin-1) is read as Latin-1: the name keeps its
    letter instead of a replacement character."""
    data = (SAMPLES / "gurobi_solution.sol").read_bytes().replace(b"\nx 4\n", b"\ncaf\xe9 4\n")
    sol = read_solution(_bytes(tmp_path, data))
    assert sol.values["caf\u00e9"] == 4.0


def test_a_big_endian_utf16_file_is_read(tmp_path: Path) -> None:
    """UTF-16 with a big-endian byte order mark reads as its text does, like the little-endian one."""
    text = (SAMPLES / "highs_solution.sol").read_text()
    sol = read_solution(_bytes(tmp_path, codecs.BOM_UTF16_BE + text.encode("utf-16-be")))
    assert (sol.solver, sol.status, sol.values) == ("highs", "optimal", OPT)


def test_a_damaged_utf16_file_is_binary_content(tmp_path: Path) -> None:
    """A UTF-16 file that does not decode (a lone surrogate) is refused as binary, not read with replacement
    characters."""
    text = (SAMPLES / "highs_solution.sol").read_text()
    data = codecs.BOM_UTF16_LE + text.encode("utf-16-le") + b"\x00\xd8" + "x 1\n".encode("utf-16-le")
    assert _error(_bytes(tmp_path, data)) == f": expected a text solution file ({KNOWN}), got binary content"


@pytest.mark.parametrize("data, shown", [(b"BZh9 not a solution\n", "BZh9 not a solution"),
                                         (b"\x1fnot gzip\n", "not gzip")], ids=["BZh", "0x1f"])
def test_text_starting_like_a_compression_magic_is_no_compressed_file(tmp_path: Path, data: bytes,
                                                                      shown: str) -> None:
    """Compression is recognised by its whole signature (gzip's two bytes, bzip2's 'BZh' and block magic): text
    that only starts like one is an unknown format, not a damaged archive."""
    assert _error(_bytes(tmp_path, data)) == f":1: expected a solution file of a known format ({KNOWN}), got '{shown}'"


@pytest.mark.parametrize("head, plain", [
    (b"# Solution for model m\nx 1\n", True),
    (gzip.compress(b"x 1\n"), False),
    (codecs.BOM_UTF8 + b"x 1\n", False),
    (codecs.BOM_UTF16_LE + "x 1\n".encode("utf-16-le"), False),
    (b"x 1\r\ny 2\r\n", False),
    (b"x 1\vy 2\n", False),
    (b"x 1\x1ey 2\n", False),
    (b"x 1\x85y 2\n", False),
], ids=["plain", "gzip", "bom8", "utf16", "crlf", "vt", "rs", "nel"])
def test_read_as_written_says_when_the_lines_read_differ_from_the_bytes(head: bytes, plain: bool) -> None:
    """decode compares a solution file with compile's MIP starts by hash, and hashes the file as read only when
    this says the read lines may differ from its bytes: compressed, a byte order mark, or any line end but LF."""
    assert read_as_written(head) is plain


# ---------------------------------------------------------------- compression and archives


def test_a_7z_archive_is_refused_by_name(tmp_path: Path) -> None:
    """An empty 7z archive (its 32-byte signature header) is named as such, with what to do."""
    start = bytes(20)
    data = b"7z\xbc\xaf\x27\x1c\x00\x04" + zlib.crc32(start).to_bytes(4, "little") + start
    assert _error(_bytes(tmp_path, data, "sol.7z")) == (
        f": expected a solution file ({KNOWN}, or gzip/bzip2 of one), got a 7z archive: extract the solution file "
        "from it first")


@pytest.mark.parametrize("damage", ["crc", "stream"])
def test_a_damaged_gzip_file_is_refused(tmp_path: Path, damage: str) -> None:
    """A gzip file whose check sum is wrong (gzip.BadGzipFile, an OSError) or whose deflate stream is garbage
    (zlib.error) is refused as damaged, not with a traceback."""
    packed = bytearray(gzip.compress((SAMPLES / "highs_solution.sol").read_bytes()))
    if damage == "crc":
        packed[-8] ^= 0xFF
    else:
        packed[10:14] = b"\xff\xff\xff\xff"
    path = _bytes(tmp_path, bytes(packed), "sol.gz")
    with pytest.raises(OlctcError) as err:
        read_solution(path)
    assert str(err.value).startswith(f"{path}: expected a complete gzip file, got a damaged or cut one (")


def test_the_decompression_cap_is_inclusive_and_binds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A compressed file may expand to MAX_UNCOMPRESSED bytes and no more, even under the 256 MiB floor (the
    cap is lowered here to a file's size instead of writing 4 GiB)."""
    from olctc.read import _base

    data = (SAMPLES / "highs_solution.sol").read_bytes() + b"\n" * 1000
    monkeypatch.setattr(_base, "MAX_UNCOMPRESSED", len(data))
    exact = _bytes(tmp_path, bz2.compress(data), "exact.sol.bz2")
    assert read_solution(exact).values == OPT
    over = _bytes(tmp_path, bz2.compress(data + b"\n"), "over.sol.bz2")
    assert _error(over).startswith(f": expected a bzip2 solution file, got one that expands past {len(data):,} bytes")


# ---------------------------------------------------------------- printed digits


def test_thirteen_digits_count_as_exact_and_twelve_do_not() -> None:
    """From FULL_DIGITS (13) significant digits on, values count as exact (None); 12 are still a rounding that
    decode widens its checks by."""
    assert printed_digits(np.array([0.1234567890123]), 6) is None
    assert printed_digits(np.array([0.123456789012]), 6) == 12


def test_a_value_off_its_rounding_by_five_units_in_the_13th_digit_is_not_rounded() -> None:
    """1.0000000000005 is 1 rounded to 6 digits plus 5e-13: the fit tolerance (1e-14 relative) must not absorb
    that, or a file of exact values would be taken for one printed with 6 digits."""
    assert printed_digits(np.array([1.0000000000005]), 6) is None


# ---------------------------------------------------------------- format names and detection


@pytest.mark.parametrize("value", ["", 0, False])
def test_a_falsy_format_is_refused_not_taken_for_none(value: object) -> None:
    """Only None means "detect the format"; '' (an empty --format=) or 0 is a parameter error."""
    with pytest.raises(OlctcError, match=r"^The 'format' parameter must be one of cplex, .* Got .* instead\.$"):
        check_format(value)


def test_detect_format_of_blank_text_is_an_empty_text() -> None:
    """Text of blank lines is "an empty text", like an empty string (not an unknown format on line 0)."""
    with pytest.raises(OlctcError) as err:
        detect_format(" \n\t\n")
    assert str(err.value) == f"solution text: expected a solution file ({KNOWN}), got an empty text"


# ---------------------------------------------------------------- Solution.to_array


def test_the_first_unknown_column_is_named(tmp_path: Path) -> None:
    """With several columns the model lacks, the message names the first the file lists."""
    sol = read_solution(SAMPLES / "highs_solution.sol")
    with pytest.raises(OlctcError, match=r"got unknown column 'x'$"):
        sol.to_array(["z", "v", "w", "u"])


@pytest.mark.parametrize("sample, old, new, hint", [
    ("cbc_2.10.8_solution.txt", " x ", " x12y ", False),
    ("highs_solution.sol", "\nx 4\n", "\nx12 4\n", False),
    ("cbc_2.10.8_solution.txt", " x ", " x12 ", True),
], ids=["cbc-not-x-digits", "highs-x-digits", "cbc-x-digits"])
def test_cbc_lost_names_hint_is_for_cbc_columns_named_x_and_digits_only(tmp_path: Path, sample: str, old: str,
                                                                        new: str, hint: bool) -> None:
    """The hint that CBC lost an LP file's names is given only for a CBC solution's column named x<digits>: x12y
    or another solver's x12 is just an unknown column."""
    sol = read_solution(_edited(tmp_path, sample, (old, new)))
    with pytest.raises(OlctcError) as err:
        sol.to_array(COLS[2:])  # y is unknown too, after the edited column: the hint is about the first
    assert ("CBC names the columns x0, x1, ..." in str(err.value)) is hint


def test_a_gurobi_column_named_like_mps_r_but_not_mps_rg_is_unknown(tmp_path: Path) -> None:
    """Only MPS_Rg<row> is Gurobi's own range column; MPS_Rowdy in a Gurobi file is a column the model lacks."""
    sol = read_solution(_edited(tmp_path, "gurobi_solution.sol", ("MPS_Rgc3 5", "MPS_Rowdy 5")))
    with pytest.raises(OlctcError, match=r"got unknown column 'MPS_Rowdy'$"):
        sol.to_array(COLS)


# ---------------------------------------------------------------- HiGHS


def _highs_written(tmp_path: Path, style: int, unbounded: bool = False) -> Path:
    """highspy (one thread) on two integer columns a, b in [0, 1] with a + b in [0, 1], minimising a + b: the
    optimum has every column at 0. ``unbounded``: minimise -a with a unbounded above and presolve off, which
    HiGHS 1.16 ends as 'Unbounded' with a feasible point."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = 2, 1
    lp.col_cost_, lp.col_lower_, lp.col_upper_ = np.ones(2), np.zeros(2), np.ones(2)
    lp.row_lower_, lp.row_upper_ = np.zeros(1), np.ones(1)
    if unbounded:
        h.setOptionValue("presolve", "off")
        lp.col_cost_, lp.col_upper_ = np.array([-1.0, 0.0]), np.array([highspy.kHighsInf, 1.0])
        lp.row_upper_ = np.array([highspy.kHighsInf])
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = np.array([0, 1, 2], dtype=np.int32)
    lp.a_matrix_.index_ = np.zeros(2, dtype=np.int32)
    lp.a_matrix_.value_ = np.ones(2)
    lp.col_names_, lp.row_names_ = ["a", "b"], ["r"]
    lp.integrality_ = [highspy.HighsVarType.kInteger] * 2
    h.passModel(lp)
    run_highs(h)
    path = tmp_path / f"h{style}{'u' if unbounded else ''}.sol"
    h.writeSolution(str(path), style)
    return path


def test_highs_sparse_file_with_no_nonzero_column_is_an_all_zero_solution(tmp_path: Path) -> None:
    """DEFECT fixed: HiGHS 1.16 writes '# Columns 0 sparse' when no column is nonzero; it was refused as "expected
    a negative count". It is a sparse file with no lines: every column 0."""
    path = _highs_written(tmp_path, 4)
    if "# Columns 0 sparse\n" not in path.read_text():
        pytest.skip("this HiGHS writes the sparse count otherwise")
    sol = read_solution(path)
    assert (sol.status, sol.objective, sol.values, sol.omits_zeros) == ("optimal", 0.0, {}, True)
    assert sol.to_array(["a", "b"]).tolist() == [0.0, 0.0]
    # the fourth token must be the word 'sparse'
    assert _error(_edited(tmp_path, "highs_1.16_solution_style4.sol", ("-5 sparse", "-5 dense"))) == (
        ":9: expected '# Columns <n>', got '# Columns -5 dense'")


def test_highs_unbounded_model_status_is_unbounded(tmp_path: Path) -> None:
    """'Unbounded' (written with a feasible point) reads as "unbounded", without the point: decode then says the
    model is unbounded rather than that the solver found nothing."""
    path = _highs_written(tmp_path, 0, unbounded=True)
    assert path.read_text().startswith("Model status\nUnbounded\n")
    sol = read_solution(path)
    assert (sol.status, sol.raw_status, sol.objective, sol.values) == ("unbounded", "Unbounded", None, {})


def test_highs_spelled_out_infinite_bound_is_no_bound(tmp_path: Path) -> None:
    """'Infinity' (as C++ streams and Python may spell it) is an infinite bound like 'inf': no bound, not an
    error about a non-finite number."""
    text = "Model status\nOptimal\n\n# Primal solution values\nFeasible\nObjective -21.5\n" \
           "Objective_bound -Infinity\n# Columns 1\nx 4\n"
    assert read_solution(_bytes(tmp_path, text.encode())).bound is None


def test_highs_bound_line_with_a_third_token_is_refused(tmp_path: Path) -> None:
    """HiGHS 1.16's 'Objective_bound b' has two tokens; a third (two lines run together) is a damaged line."""
    path = _edited(tmp_path, "highs_1.16_solution.sol", ("Objective_bound -21.5", "Objective_bound -21.5 0"))
    assert _error(path) == (":7: expected '# Columns <n>', 'Objective_bound <v>' or 'MIP_rel_gap <v>', got "
                            "'Objective_bound -21.5 0'")


def test_highs_style_1_header_without_name_is_refused(tmp_path: Path) -> None:
    """Style 1 names come from the 'Name' field of the header: a header without it is named as the problem."""
    path = _edited(tmp_path, "highs_solution_style1.sol", ("Type        Name", "Type        Nome"))
    assert _error(path).startswith(":2: expected a 'Columns' table header with Primal and Name fields, got 'Index ")


@pytest.mark.parametrize("old, new, message", [
    ("F Basis\nColumns\n", "F Basis\n", ": expected a 'Columns' line, got none (file truncated?)"),
    ("Columns\n4 \n", "Columns\n", ":11: expected 6 values after 'Columns' (line 5), got fewer (file truncated?)"),
    ("Columns\n4 \n", "Columns\n4 0 1 2\n", ":6: expected 'value [dual] [basis status]', got '4 0 1 2'"),
], ids=["no-columns-line", "a-value-missing", "four-tokens"])
def test_highs_style_minus_1_damage_is_named(tmp_path: Path, old: str, new: str, message: str) -> None:
    """Style -1 reads values by position: a missing 'Columns' line, a value line fewer (so 'Rows' comes among the
    six values) or a line of four tokens is refused as what it is, not read onto the wrong columns."""
    path = _edited(tmp_path, "highs_solution_style-1.sol", (old, new))
    assert _error(path, col_names=COLS) == message


def test_highs_style_1_without_its_model_status_line_is_cut(tmp_path: Path) -> None:
    """A style 1 file with its tables but no 'Model status:' line lost its end: refused as truncated."""
    path = _edited(tmp_path, "highs_solution_style1.sol", ("Model status: Optimal", ""))
    assert _error(path) == (":19: expected a 'Rows' table and a 'Model status:' line after the columns, got end of "
                            "file (file truncated?)")
