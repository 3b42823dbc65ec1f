"""compile / decode behaviour of cli.py that the mutants of qa195 left unrun until qa202 found no test pinning: an
input that compile must not write over, and a bad -o that decode refuses before it decodes. Every case runs the real
CLI in process (conftest's cli_here) on tiny.csv with a real HiGHS solve; each test names the mutant it kills (ids as
in the pass's commit message)."""
from __future__ import annotations

from pathlib import Path

from conftest import TINY_CSV, cli_here
from test_bad_inputs import snapshot
from test_cli_mutation_gaps2 import _refused, tiny  # noqa: F401  (tiny: a module fixture, by name)


def test_compile_refuses_an_output_naming_its_data_file(tmp_path: Path) -> None:
    """A CSV that happens to end in .lp given as both the data and -o is refused, and left as it was: compile reads
    the data before it writes, so without the check the model replaced the user's data. Mutant cli-m21: the check of
    -o against the inputs dropped."""
    (tmp_path / "data.lp").write_text(TINY_CSV)
    before = snapshot(tmp_path)
    _refused(cli_here("compile", "data.lp", "--target", "y", "--depth", "1", "-o", "data.lp", cwd=tmp_path),
             "-o data.lp is also the input data; write to another file")
    assert snapshot(tmp_path) == before and (tmp_path / "data.lp").read_text() == TINY_CSV


def test_decode_refuses_an_output_in_a_missing_folder_before_it_decodes(tiny: Path) -> None:  # noqa: F811
    """decode -o nodir/o.json is refused before the solution is read: nothing on standard output, where a decode
    would have printed its report (solution status, objectives, refinement) above an error saying no tree was
    written. Mutant cli-m50: the early writability check dropped (saving then failed with the same line)."""
    _refused(cli_here("decode", "m.olctc.json", "m.sol", "-o", "nodir/o.json", cwd=tiny),
             "cannot write nodir/o.json: folder nodir does not exist")
