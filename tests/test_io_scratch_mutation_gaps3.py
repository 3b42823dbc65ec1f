"""What a third mutation pass over io.py and scratch.py (QA 2026-12-07) could change without the targeted tests
(test_output_files, test_disk_full, test_scratch, test_io_scratch_fpenv_mutation_gaps2, test_plumbing_mutation_gaps,
test_predict_stream) noticing: every step of an atomic write an interrupt can land on, temporary names taken by
another writer, outputs that cannot be opened, leftovers, and the scratch folders' descriptors and sweep. Real files,
folders, links, sockets and flocks in tmp_path; an interrupt is a KeyboardInterrupt raised from a wrapped os function
at a chosen call, as a signal handler raises it. Each test's docstring names the mutants it kills (this pass's ids).

The interrupt steps found a defect, fixed in folder_problem: an interrupt raised at once (olctc inside another
program, Python's own handler: no deferral) between the making of the output folder's probe file and its removal left
``.olctc-probe.*.tmp`` in the user's folder."""
from __future__ import annotations

import hashlib
import os
import socket
from typing import Callable

import pytest

from olctc import io
from olctc.errors import OlctcError
from test_io_scratch_fpenv_mutation_gaps2 import linux_only
from test_scratch import PREFIX, _left, _names, tmpdir_env  # noqa: F401 (tmpdir_env: a fixture)


def _interrupting(real: Callable, at: int, after: bool) -> tuple[Callable, list]:
    """``real`` wrapped to raise KeyboardInterrupt at its ``at``-th call, before doing it or (``after``) once done."""
    calls: list = []

    def wrapped(*args, **kwargs):
        calls.append(args)
        if len(calls) != at:
            return real(*args, **kwargs)
        if after:
            real(*args, **kwargs)
        raise KeyboardInterrupt

    return wrapped, calls


# ---------------------------------------------------------------- io: an interrupt at every step of a rewrite

# (os function, its call in atomic_open of an existing file, after the call's work, the content left)
STEPS = [
    ("open", 1, True, "old"),      # the folder's probe file made, not yet removed (a library caller: no deferral)
    ("unlink", 1, False, "old"),   # the probe about to be removed
    ("utime", 1, False, "old"),    # the probe removed, the folder's times not yet put back
    ("open", 2, False, "old"),     # the temporary file about to be made
    ("open", 2, True, "old"),      # the temporary file made, its descriptor not yet returned
    ("fchmod", 1, True, "old"),    # its mode copied from the file it replaces
    ("fdopen", 1, False, "old"),   # the descriptor not yet a file object
    ("replace", 1, False, "old"),  # the whole new file about to be renamed into place
    ("replace", 1, True, "new"),   # renamed: the new file stays
]


@pytest.mark.parametrize("name, at, after, left", STEPS)
def test_an_interrupt_at_any_step_of_a_rewrite_leaves_the_old_file_or_the_new_one(tmp_path, monkeypatch, name, at,
                                                                                   after, left):
    """Never a partial file, never a stray temporary or probe file, and nothing left in the record the console
    program's exit removes (another process may make a file of that name since). The probe's two steps failed before
    the fix in folder_problem. Also kills m08 (only an Exception removed the temporary file) and m09 (the record
    kept), which the targeted tests kill too."""
    out = tmp_path / "t.json"
    out.write_text("old")
    wrapped, calls = _interrupting(getattr(os, name), at, after)
    monkeypatch.setattr(io.os, name, wrapped)
    with pytest.raises(KeyboardInterrupt):
        io.atomic_write_text(out, "new")
    monkeypatch.undo()
    assert len(calls) >= at
    assert os.listdir(tmp_path) == ["t.json"] and out.read_text() == left
    assert not io._being_written


def test_a_new_file_gets_the_mode_open_gives(tmp_path):
    """A new file is as readable as one open() makes (0666 less the umask), not private as mkstemp's. Kills m12."""
    umask = os.umask(0o022)
    try:
        io.atomic_write_text(tmp_path / "t.json", "{}")
    finally:
        os.umask(umask)
    assert (tmp_path / "t.json").stat().st_mode & 0o777 == 0o644


# ---------------------------------------------------------------- io: temporary names another writer holds

def test_a_write_under_way_is_no_leftover(tmp_path):
    """Its temporary file is flocked while written: ``leftovers`` (a compile starting beside it) does not name it, as
    it does once its writer is gone. Kills m11 (the file not marked: a running write warned of as killed)."""
    out = tmp_path / "p.csv"
    with io.atomic_open(out) as fh:
        fh.write("a\n")
        assert io.leftovers(out, False) == []
    assert os.listdir(tmp_path) == ["p.csv"]


def test_no_free_temporary_name_is_one_line_and_leaves_the_other_writers_file(tmp_path, monkeypatch):
    """Every temporary name tried is another writer's (the random part fixed): the write fails in one line and the
    other's file stays. Kills m04 (the last name tried taken for ours, and removed on the way out)."""
    theirs = tmp_path / ".t.json.0123456789ab.tmp"
    theirs.write_text("theirs")
    monkeypatch.setattr(io.secrets, "token_hex", lambda n: "0123456789ab")
    with pytest.raises(OlctcError) as exc:
        io.atomic_write_text(tmp_path / "t.json", "mine")
    monkeypatch.undo()
    assert str(exc.value) == f"cannot write {tmp_path / 't.json'}: no free temporary name in {tmp_path} after 100 tries"
    assert os.listdir(tmp_path) == [theirs.name] and theirs.read_text() == "theirs"


# ---------------------------------------------------------------- io: inputs and outputs

@linux_only
def test_an_output_that_cannot_be_opened_is_a_one_line_error(tmp_path):
    """An output named as a socket (no regular file, so opened as a device would be): the OS's reason in one line,
    the socket left. Kills m29 (a raw OSError: a traceback)."""
    sock = socket.socket(socket.AF_UNIX)
    path = tmp_path / "out.csv"
    try:
        sock.bind(os.fspath(path))
        with pytest.raises(OlctcError) as exc:
            io.atomic_write_text(path, "x")
    finally:
        sock.close()
    assert str(exc.value) == f"cannot write {path}: No such device or address"
    assert os.listdir(tmp_path) == ["out.csv"]


def test_an_input_not_there_does_not_stop_the_check_of_the_others(tmp_path):
    """Kills m21 (the first missing input ended the check: the model, given second, was overwritten)."""
    model = tmp_path / "m.mps"
    model.write_text("NAME m\n")
    with pytest.raises(OlctcError, match=r"is also the input model; write to another file$"):
        io.check_not_input(model, ("data", tmp_path / "missing.csv"), ("model", model))


# ---------------------------------------------------------------- io: digests, leftovers, links

def test_the_digest_of_a_file_is_of_all_its_bytes(tmp_path):
    """A manifest's digest of a model larger than one read (1 MB): the whole file, not its first read. Kills m32."""
    data = bytes(range(256)) * (3 * 4096 + 7)
    (tmp_path / "m.mps").write_bytes(data)
    assert io.sha256_file(tmp_path / "m.mps") == hashlib.sha256(data).hexdigest()



def test_leftovers_are_named_in_order(tmp_path):
    """Warnings in a stable order, whatever the file system lists first. Kills m22."""
    made = [tmp_path / f".m.mps.{i:x}{i:x}{'0' * 10}.tmp" for i in range(15, -1, -1)]
    for p in made:
        p.write_text("part")
    assert io.leftovers(tmp_path / "m.mps", False) == sorted(os.fspath(p) for p in made)


def test_a_dangling_link_in_olctcs_own_folder_is_refused(tmp_path):
    """A link to nothing where a grid's file goes: writing there would make a file wherever it points. Kills m31
    (only a link to an existing file refused)."""
    link = tmp_path / "results.csv"
    link.symlink_to(tmp_path / "nowhere")
    with pytest.raises(OlctcError) as exc:
        io.check_not_linked(link, "collect writes the results there")
    assert str(exc.value) == (f"{link} is a symbolic link (to {tmp_path / 'nowhere'}): collect writes the results "
                              "there; remove the link and run again")


# ---------------------------------------------------------------- scratch

def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@linux_only
def test_a_scratch_folder_keeps_no_descriptor_open(tmpdir_env, monkeypatch):
    """A bench runs thousands of solves in one process: each one's marker descriptor is closed, whether the marker
    could be locked or not. Kills m42 and m43."""
    import olctc.scratch as scratch

    before = _open_fds()
    with scratch.scratch_folder(PREFIX):
        pass
    assert _open_fds() == before
    monkeypatch.setattr(scratch, "mark_in_use", lambda fd: False)
    with scratch.scratch_folder(PREFIX):
        pass
    assert _open_fds() == before and _names(tmpdir_env) == []


def test_a_relative_tmpdir_is_not_swept(tmpdir_env, tmp_path, monkeypatch):
    """A relative $TMPDIR names a different folder in each working folder: it is not swept. Kills m44."""
    from olctc.scratch import sweep

    (tmp_path / "rel").mkdir()
    d = _left(tmp_path / "rel", PREFIX + "deadbeef", "model.mps")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TMPDIR", "rel")
    assert sweep() == [] and d.exists()


def test_an_interrupt_while_the_marker_is_made_removes_the_folder(tmpdir_env, monkeypatch):
    """Ctrl-C between the folder's making and the block's start: no folder left (an unmarked one no sweep
    removes). Kills m56."""
    import olctc.scratch as scratch

    wrapped, calls = _interrupting(os.rename, 1, False)
    monkeypatch.setattr(scratch.os, "rename", wrapped)
    with pytest.raises(KeyboardInterrupt):
        with scratch.scratch_folder(PREFIX):
            pytest.fail("the block ran")
    monkeypatch.undo()
    assert len(calls) == 1 and _names(tmpdir_env) == []

