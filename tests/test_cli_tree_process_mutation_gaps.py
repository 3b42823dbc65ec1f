"""export / predict / explain (cli_tree.py) and console-program (cli_process.py) behaviour a second mutation pass
(QA 2026-12-07) found no test pinning. Every case runs the real CLI: in process (``cli_main``, ``cli_here``) on
small files written here, or as a real subprocess where the console program's own streams and signals matter.

87 mutants: 57 killed by the targeted existing tests, 17 by these tests (each re-applied and seen to fail; the
twice-wrapped interrupt is a case of test_plumbing_mutation_gaps's wrapping test), 13 survive: equivalent t19/t60
(predict's loop and _Sink.write each skip writes after a failed one), t33 (a file of one class: its row count is n),
t49 (a fallback no cell-by-cell pass reaches), p13 (click.echo flushes each line), p16 (a closed descriptor reopened
lands on its own number); gaps p05, p19, p23 (a signal timed inside another thread's import, a nested import, a
deferred section), p11 (pipes made non-blocking at the first interrupt: needs a paused reader), p14 (an OSError of
another file taken for standard output's: every file goes through atomic_open), p22 (CPython 3.11's
unhandled-interrupt flag), p26 (a terminal made non-blocking: needs a pty)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cli_here, cli_main, tiny_folder, tmpfs
from olctc.tree import Tree
from test_plumbing_mutation_gaps import _python


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> Path:
    """tiny.csv (numeric a, b; text c; labels y) and a depth-1 tree HiGHS fitted on it, tree.json."""
    return tiny_folder(tmp_path_factory.mktemp("qa149_tiny"),
                       ["fit", "tiny.csv", "--target", "y", "--depth", "1", "--quiet", "--time-limit", "5",
                        "-o", "tree.json"])


def _tree(d: Path, names: list[str], **kw) -> Path:
    """A depth-1 tree (weight 1 on every numeric column ``names``, bias 0) saved as d/t.json."""
    Tree.from_arrays([[1.0] * len(names)], [0.0], feature_names=names, **kw).save(d / "t.json")
    return d / "t.json"


# ---------------------------------------------------------------- export: refused option combinations

def test_export_refuses_a_binary_format_on_standard_output_by_naming_dash_o(tiny) -> None:
    """``--format png -o -``: the error says -o - is standard output and png binary, and what to give instead,
    not the generic "give an output file" of a missing -o. Mutant: check_not_stdout dropped."""
    r = cli_here("export", "tree.json", "--format", "png", "-o", "-", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("error: -o - means standard output, and --format png is binary data, which olctc writes only "
                        "to a file; give a file name such as -o tree.png\n")


def test_export_to_dash_o_without_format_names_the_text_formats(tiny) -> None:
    """``-o -`` alone: standard output has no suffix, so the error says that and lists the formats it can take
    (the text ones, not onnx or png). Mutant: the message losing "(standard output)"."""
    r = cli_here("export", "tree.json", "-o", "-", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("error: -o - (standard output) has no suffix to tell the format: say which with --format "
                        "(json, python, sql, text, dot, svg)\n")


def test_export_suffix_against_format_uses_an_before_a_vowel(tiny) -> None:
    """``--format json -o out.onnx``: "the name of an onnx file", and the name to use instead. Mutant: always "a"."""
    r = cli_here("export", "tree.json", "--format", "json", "-o", "out.onnx", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("error: -o out.onnx is the name of an onnx file, but --format is json: name it out.json, or "
                        "leave --format out\n")
    assert not (tiny / "out.onnx").exists()


def test_export_refuses_table_for_a_format_other_than_sql(tiny) -> None:
    """--table only means something to the SQL export: given with another format it is refused by name, not
    silently ignored. Mutant: the format check dropped (the JSON printed, exit 0)."""
    r = cli_here("export", "tree.json", "--format", "json", "--table", "sales.customers", "-o", "-", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("error: --table names the table an SQL query reads: it applies to --format sql only, not "
                        "json\n")


def test_export_to_standard_output_keeps_escape_characters(tmp_path) -> None:
    """A class label holding an ANSI escape ends up raw in the SQL text: -o - must print exactly what -o FILE writes
    (click strips ANSI codes from a non-terminal unless told not to). Mutant: color=True dropped."""
    Tree.from_arrays([[1.0]], [0.0], feature_names=["a"], classes=("n\x1b[1mo", "yes")).save(tmp_path / "t.json")
    r = cli_here("export", "t.json", "--format", "sql", "-o", "-", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert cli_here("export", "t.json", "-o", "t.sql", cwd=tmp_path).returncode == 0
    assert "\x1b[1m" in r.stdout and r.stdout == (tmp_path / "t.sql").read_text(encoding="utf-8")


# ---------------------------------------------------------------- predict / explain: notes and hints

def test_predict_proba_alone_brings_the_probability_note(tmp_path, capsys, monkeypatch) -> None:
    """A MARGOT tree's probabilities are no calibrated ones: --proba (probability columns) says so on standard
    error, without --target too. Mutant: the note with --target only."""
    _tree(tmp_path, ["a"], classes=(0, 1), meta={"spec": {"preset": "margot"}})
    (tmp_path / "x.csv").write_text("a\n1\n-1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["predict", "t.json", "x.csv", "--proba"], capsys)
    assert code == 0 and out.splitlines()[0] == "prediction,proba_0,proba_1", out
    assert err.startswith("note: preset margot fitted the ") and err.count("\n") == 1, err


def test_a_soft_hyphen_in_a_header_name_is_said_to_show_as_nothing(tmp_path, capsys, monkeypatch) -> None:
    """'ag\\xadge' (a soft hyphen, invisible in most viewers) for the tree's 'age': the error says the name holds
    characters that show as nothing. Mutant: the soft hyphen left out of the invisible characters (no hint)."""
    _tree(tmp_path, ["age"])
    (tmp_path / "d.csv").write_text("ag\u00ade\n1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["predict", "t.json", "d.csv"], capsys)
    assert (code, out) == (2, "")
    assert err == ("error: d.csv: feature column 'age' is missing (1 missing: 'age'); the tree needs 1 columns; the "
                   "file has 'ag\\xade', the same name with characters that show as nothing (a byte-order mark, a "
                   "zero-width space): remove them from the header\n")


# ---------------------------------------------------------------- predict: a full temporary folder

def test_predict_to_stdout_with_a_full_temporary_folder_is_one_error(tmp_path, capsys, monkeypatch) -> None:
    """Predictions to standard output are spooled in TMPDIR: when it fills up part way through the file, the
    command reads on, then says TMPDIR has no room (exit 2, no traceback, nothing printed). Mutant: writing on
    after the failed write (into the closed spool: a ValueError traceback)."""
    import tempfile

    import olctc.data.table

    with tmpfs(tmp_path / "small", "size=4k") as small:
        _tree(tmp_path, ["a"])
        (tmp_path / "d.csv").write_text("id,a\n" + "".join(f"{'r' * 200}{k},{k % 3 - 1}\n" for k in range(200)))
        monkeypatch.setattr(tempfile, "tempdir", str(small))
        monkeypatch.setattr(olctc.data.table, "CHUNK_CELLS", 40)  # 20 rows (about 4 kB of output) per chunk
        monkeypatch.chdir(tmp_path)
        code, out, err = cli_main(["predict", "t.json", "d.csv", "--id-column", "id"], capsys)
        assert (code, out) == (2, "")
        assert err == (f"error: cannot hold the predictions in a temporary file in {small}: No space left on device; "
                       "set TMPDIR to a folder with room, or give -o FILE\n")
        assert list(small.iterdir()) == []


def test_explain_says_top_is_too_small_before_a_missing_column(tmp_path, capsys, monkeypatch) -> None:
    """--top 0 is the option's own mistake, said before the data's (a missing column): the user fixes the command
    line first. Mutant: the column check moved before the --top check."""
    _tree(tmp_path, ["a", "b"])
    (tmp_path / "d.csv").write_text("a\n1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["explain", "t.json", "--data", "d.csv", "--row", "0", "--top", "0"], capsys)
    assert (code, out, err) == (2, "", "error: --top must be at least 1; got 0\n")


# ---------------------------------------------------------------- cli_process: signals and finalisers

_SELF_INTERRUPT = """
import os, signal, sys
import olctc.cli as c

def command(*args, **kwargs):
    os.kill(os.getpid(), signal.SIGINT)
    print("went on", flush=True)

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""


def test_a_console_run_with_sigint_ignored_keeps_it_ignored(tmp_path) -> None:
    """`olctc ... &` from a script starts with SIGINT ignored (so a terminal's Ctrl-C spares background jobs): olctc
    must not take it over and die of it. Mutant: the SIGINT handler installed whatever was there (exit 130)."""
    p = _python(_SELF_INTERRUPT, cwd=tmp_path, ignore=(signal.SIGINT,))
    assert (p.returncode, p.stdout, p.stderr) == (0, "went on\n", "")


_FAILING_FINALISER = """
import sys
import olctc.cli as c

class Leaky:
    def __del__(self):
        raise ValueError("finaliser failed")

def command(*args, **kwargs):
    Leaky()

c.cli.main = command
sys.argv = ["olctc", "datasets"]
c.main()
"""


def test_a_finaliser_error_other_than_an_interrupt_is_still_reported(tmp_path) -> None:
    """The console program silences interrupts raised inside finalisers only: another error there is Python's
    usual "Exception ignored" report, which a bug must not lose. Mutant: the hook dropping everything."""
    p = _python(_FAILING_FINALISER, cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert "Exception ignored" in p.stderr and "ValueError: finaliser failed" in p.stderr, p.stderr


def test_an_interrupted_call_in_process_does_not_interrupt_the_next(monkeypatch, capsys) -> None:
    """olctc.cli.main(ARGS) in another program: a SIGTERM during one call ends it with 130, and the next call runs
    as usual (the interrupt is consumed when the call ends). Mutant: the noted interrupt kept, the next call 130."""
    import olctc.cli as c

    def command(*args, **kwargs) -> None:
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)  # olctc handles SIGTERM only where nobody else does
    try:
        with monkeypatch.context() as m:
            m.setattr(c.cli, "main", command)
            assert cli_main(["datasets"], capsys) == (130, "", "interrupted\n")
        code, out, err = cli_main(["--version"], capsys)
    finally:
        signal.signal(signal.SIGTERM, before)
    assert (code, err) == (0, "") and out.startswith("olctc"), (code, out, err)


def test_explain_top_limits_the_features_shown_and_json_is_indented(tmp_path, capsys, monkeypatch) -> None:
    """--top 1 shows the largest contribution and sums the rest; --json is indented one space per level, as
    documented output others read by eye and diff. Mutants: --top not passed on (5 shown); indent dropped."""
    Tree.from_arrays([[1.0, -2.0, 3.0]], [0.5], feature_names=["a", "b", "c"]).save(tmp_path / "t.json")
    (tmp_path / "d.csv").write_text("a,b,c\n1,1,1\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["explain", "t.json", "--data", "d.csv", "--row", "0", "--top", "1"], capsys)
    assert (code, err) == (0, "")
    assert out == ("row 0 (line 2 of d.csv)\nnode 0 (layer 1): classifier: P(1) = sigmoid(2.5) = 0.9241\n"
                   "    +3  c = 1\n    -1  the other features\n    +0.5  bias\nprediction: 1 with probability 0.9241\n")
    code, out, err = cli_main(["explain", "t.json", "--data", "d.csv", "--row", "0", "--top", "1", "--json"], capsys)
    assert (code, err) == (0, "") and out.startswith('{\n "row": 0,\n "label": 1,\n'), out
    assert [c["feature"] for c in json.loads(out)["path"][0]["contributions"]] == ["c"]


def test_target_reads_a_label_written_otherwise_for_text_classes_of_numbers(tmp_path, capsys, monkeypatch) -> None:
    """A tree whose classes are the texts '0.0' and '1.0' (an estimator fitted on strings) scores a --target cell
    '1.00' as class '1.0': the cell is read as the number 1, as training reads labels. Mutant: only the cell's own
    text looked up (the row refused as no class of the tree)."""
    Tree.from_arrays([[1.0]], [0.0], feature_names=["a"], classes=("0.0", "1.0")).save(tmp_path / "t.json")
    (tmp_path / "d.csv").write_text("a,y\n1,1.00\n-1,0\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_main(["predict", "t.json", "d.csv", "--target", "y"], capsys)
    assert (code, out) == (0, "prediction\n1.0\n0.0\n"), err
    assert err.startswith("accuracy 1.0000, balanced accuracy 1.0000, "), err


def test_export_to_a_full_disk_through_standard_output_is_an_error(tiny, tmp_path) -> None:
    """``olctc export --format python -o - > FULL/x.py`` (Python's usual buffered output): the failed flush is
    "cannot write standard output", exit 2, not a silent exit 0 with a cut file. Mutant: the closed-pipe guard's
    flush taking any OSError for a closed pipe (the rest sent to /dev/null)."""
    with tmpfs(tmp_path / "full", "size=4k") as full:
        (full / "pad").write_bytes(b"x" * 4096)  # the disk is full before the command starts
        env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
        with open(full / "x.py", "w") as out:
            p = subprocess.run([sys.executable, "-m", "olctc.cli", "export", "tree.json", "--format", "python", "-o",
                                "-"], cwd=tiny, stdout=out, stderr=subprocess.PIPE, text=True, timeout=120, env=env)
    assert p.returncode == 2 and p.stderr == "error: cannot write standard output: No space left on device\n", \
        (p.returncode, p.stderr)
