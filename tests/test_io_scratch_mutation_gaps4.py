"""What a fourth mutation pass over io.py and scratch.py (QA 2026-12-07: qa205's unrun mutants, then m61-m80 of
kinds its LIST lacked) found the targeted tests (the files that import olctc.io or olctc.scratch) not noticing: a
path no system call takes, an upper-case gzip suffix, every leftover warned of, the rerun advice of a linked folder,
and the scratch sweep's marker and its record of what it removed. Real files, folders, FIFOs and a tmpfs; no mocks.
Each test's docstring names the mutants it kills (the LIST's ids)."""
from __future__ import annotations

import os
import socket

import pytest

from olctc import io
from olctc.errors import OlctcError
from olctc.scratch import MARK, sweep
from test_io_scratch_fpenv_mutation_gaps2 import linux_only
from test_scratch import PREFIX, tmpdir_env  # noqa: F401 (tmpdir_env: a fixture)


# ---------------------------------------------------------------- io: outputs and inputs

def test_a_path_with_a_nul_character_is_not_read_once():
    """Not a path the OS can stat: whoever opens it says so, not a ValueError of the check. Kills m68."""
    assert io.read_once("x\x00y.csv") is False
    io.refuse_read_once("x\x00y.csv", "the data is read again")


def test_an_upper_case_gzip_suffix_is_refused_as_gzip():
    """``-o t.csv.GZ``: gzip whatever its case, with the name to give (it was taken for a suffix olctc does not know,
    and the JSON tree written into it). Kills m71."""
    with pytest.raises(OlctcError) as exc:
        io.check_suffix("t.csv.GZ", "fit", "a tree (JSON)", (".json",))
    assert str(exc.value) == "-o t.csv.GZ: fit writes a tree (JSON), uncompressed, not gzip (.gz); name it t.json"


# ---------------------------------------------------------------- io: leftovers and links

def test_each_leftover_is_warned_of(tmp_path):
    """Two killed writes left two files: both are named (the second held hundreds of MB as well). Kills m72."""
    out = tmp_path / "p.csv"
    left = [tmp_path / f".p.csv.{n * 12}.tmp" for n in "ab"]
    for p in left:
        p.write_text("half")
    with pytest.warns(UserWarning) as caught:
        io.warn_leftovers(out, False, "a predict")
    assert [str(w.message).split(":")[0] for w in caught] == [os.fspath(p) for p in left]


def test_a_linked_folder_says_what_to_run_again(tmp_path):
    """The caller's next step (``run the report again``) ends the message. Kills m73."""
    link = tmp_path / "report"
    link.symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OlctcError) as exc:
        io.check_not_linked(link, "the report writes there", "run the report again")
    assert str(exc.value) == (f"{link} is a symbolic link (to {tmp_path / 'elsewhere'}): the report writes there; "
                              "remove the link and run the report again")


# ---------------------------------------------------------------- scratch: the sweep

@linux_only
def test_a_marker_that_is_a_fifo_is_no_marker(tmpdir_env):
    """Only a regular file is olctc's marker: a FIFO of that name, even one whose writer gave it this machine's
    name, leaves the folder as it is (reading it took the writer's data). Kills m48."""
    d = tmpdir_env / (PREFIX + "deadbeef")
    d.mkdir()
    (d / "model.mps").write_text("theirs")
    os.mkfifo(d / MARK)
    fd = os.open(d / MARK, os.O_RDWR | os.O_NONBLOCK)  # a writer that stays: the FIFO holds the name
    try:
        os.write(fd, socket.gethostname().encode())
        assert sweep() == []
    finally:
        os.close(fd)
    assert sorted(os.listdir(d)) == [MARK, "model.mps"] and (d / "model.mps").read_text() == "theirs"


def test_a_leftover_that_is_a_mount_point_is_not_reported_removed(tmpdir_env):
    """Emptied but still there (a file system mounted on it: rmdir says busy): not among the folders the sweep
    removed. Kills m75."""
    from conftest import tmpfs

    with tmpfs(tmpdir_env / (PREFIX + "deadbeef")) as d:
        (d / "model.mps").write_text("x")
        (d / MARK).write_bytes(socket.gethostname().encode())
        assert sweep() == [] and d.is_dir()
