"""QA of inputs given as pipes (``olctc decode <(zcat m.olctc.json.gz) ...``, ``--data <(zcat f.csv.gz)``): what
is read once works, what a command reads twice or a later step reads again is refused up front, naming the
pipe, not reported as an empty or broken file. Real pipes, fed by a thread, through the CLI."""
from __future__ import annotations

import gzip
import json
import os
import threading
from pathlib import Path

import pytest

from conftest import cli_here, cli_main, cli_sub
from olctc.datasets import dataset_path

class Pipe:
    """What bash's ``<(cat FILE)`` gives a command: ``path`` is /dev/fd/N of a pipe a thread fills with ``data``.
    Opened a second time, it is the same pipe, read to its end: empty (a FIFO's second open() would wait)."""

    def __init__(self, data: bytes):
        self._read, self._write_end = os.pipe()
        self.path = Path(f"/dev/fd/{self._read}")
        self.thread = threading.Thread(target=self._write, args=(data,), daemon=True)
        self.thread.start()

    def _write(self, data: bytes) -> None:
        try:
            with open(self._write_end, "wb") as fh:
                fh.write(data)
        except BrokenPipeError:  # no reader left: what the command made of that is the test's
            pass

    def __enter__(self) -> Pipe:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        os.close(self._read)  # the last reader: a writer still writing gets EPIPE
        self.thread.join(10)
        assert not self.thread.is_alive()


@pytest.fixture(scope="module")
def solved(tmp_path_factory) -> Path:
    """heart, depth 1, compiled from a file and solved by HiGHS: m.mps, m.olctc.json, m.sol."""
    folder = tmp_path_factory.mktemp("pipes")
    data = folder / "heart.csv"
    data.write_bytes(gzip.decompress(dataset_path("heart").read_bytes()))
    assert cli_here("compile", data, "--target", "y", "--depth", "1", "-o", folder / "m.mps").returncode == 0
    assert cli_here("solve", folder / "m.mps", "--time-limit", "30", "-o", folder / "m.sol").returncode == 0
    return folder


def test_compile_from_a_pipe_says_decode_will_need_the_data_as_a_file(solved, tmp_path, capsys):
    with Pipe((solved / "heart.csv").read_bytes()) as fifo:
        code, out, err = cli_main(["compile", fifo.path, "--target", "y", "--depth", "1", "-o", tmp_path / "m.mps"],
                                  capsys)
    assert code == 0 and out.startswith("compiled pipe (297 points, 13 features)")
    assert err == (f"note: {fifo.path} is a pipe: decode reads the training data again, so save it to a file and "
                   "pass that with --data (olctc reads .csv.gz files as they are)\n")
    # the model is the file's: only the data's name differs in the manifest, which names the pipe as given (it
    # resolved to /proc/PID/fd/pipe:[N], and the data were called "63")
    assert (tmp_path / "m.mps").read_bytes() == (solved / "m.mps").read_bytes()
    data = json.loads((tmp_path / "m.olctc.json").read_text())["data"]
    assert (data["name"], data["source"]) == ("pipe", str(fifo.path))
    # decode, later (another process: in this one the pipe's number may be a file opened since), names it
    code, out, err = cli_sub(["decode", tmp_path / "m.olctc.json", solved / "m.sol", "-o", tmp_path / "t.json"],
                             tmp_path)
    assert code == 2 and not (tmp_path / "t.json").exists()
    assert err == f"error: the training data {fifo.path} is not there; pass its path with --data (data= in Python)\n"


def test_decode_refuses_a_manifest_through_a_pipe(solved, tmp_path, capsys):
    """decode read the manifest twice: the second read found the pipe empty, "not a valid manifest (JSON error:
    Expecting value: line 1 column 1 (char 0))" of a valid one."""
    with Pipe((solved / "m.olctc.json").read_bytes()) as fifo:
        got = cli_main(["decode", fifo.path, solved / "m.sol", "-o", tmp_path / "t.json"], capsys)
    assert got == (2, "", f"error: {fifo.path}: a pipe or device, not a manifest file: pass NAME.olctc.json itself "
                          "(the model and MIP start files are found beside it)\n")
    assert not (tmp_path / "t.json").exists()


def test_decode_refuses_training_data_through_a_pipe(solved, tmp_path, capsys):
    """The data is hashed, then read: the second read said "the file is empty"."""
    with Pipe((solved / "heart.csv").read_bytes()) as fifo:
        got = cli_main(["decode", solved / "m.olctc.json", solved / "m.sol", "--data", fifo.path,
                        "-o", tmp_path / "t.json"], capsys)
    assert got == (2, "", f"error: {fifo.path}: a pipe or device, read once: the training data is hashed, then "
                          "read, so pass a data file (olctc reads .csv.gz files as they are)\n")
    assert not (tmp_path / "t.json").exists()
    # the same data as a file decodes
    assert cli_main(["decode", solved / "m.olctc.json", solved / "m.sol", "--data", solved / "heart.csv",
                     "-o", tmp_path / "t.json"], capsys)[0] == 0


def test_grid_refuses_data_through_a_pipe(solved, tmp_path, capsys):
    """collect reads the grid's data again: from a pipe it found /proc/PID/fd/pipe:[N] "not there", after every
    task had run."""
    with Pipe((solved / "heart.csv").read_bytes()) as fifo:
        got = cli_main(["grid", fifo.path, "--target", "y", "--depth", "1", "-o", tmp_path / "grid"], capsys)
    assert got == (2, "", f"error: {fifo.path}: a pipe or device, read once: olctc collect reads the grid's data "
                          "again, so pass a data file (olctc reads .csv.gz files as they are)\n")
    assert not (tmp_path / "grid").exists()


def test_what_is_read_once_works_through_a_pipe(solved, tmp_path, capsys):
    """predict's data, fit's data and --start-tree, decode's solution file: each read once."""
    assert cli_main(["decode", solved / "m.olctc.json", solved / "m.sol", "-o", tmp_path / "t.json"], capsys)[0] == 0
    runs = [
        (["predict", tmp_path / "t.json", "{}", "-o", tmp_path / "p.csv"], solved / "heart.csv"),
        (["fit", "{}", "--target", "y", "--depth", "1", "--time-limit", "5", "-o", tmp_path / "f.json"],
         solved / "heart.csv"),
        (["decode", solved / "m.olctc.json", "{}", "-o", tmp_path / "d.json"], solved / "m.sol"),
    ]
    for k, (args, src) in enumerate(runs):
        with Pipe(src.read_bytes()) as fifo:
            code, out, err = cli_main([fifo.path if a == "{}" else a for a in args], capsys)
        assert code == 0, (args, err)
    assert len((tmp_path / "p.csv").read_text().splitlines()) == 298  # a header and 297 predictions
    assert (tmp_path / "d.json").read_bytes() == (tmp_path / "t.json").read_bytes()
