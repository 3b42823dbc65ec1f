"""compile / solve / fit / grid / collect behaviour a third mutation pass over cli.py and cli_cluster.py
(QA 2026-12-06) found no test pinning. Most cases run the real CLI in process (``olctc.cli.main`` through
conftest's cli_here) on tiny.csv, with real fits; a few call the CLI's own helpers directly."""
from __future__ import annotations

from pathlib import Path

import pytest

from conftest import cli_here, tiny_folder
from test_cli_cluster_mutation_gaps2 import GRID
from test_cli_core_mutation_gaps import _spy


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tiny.csv, a depth-2 tree fitted on it (t2.json) and GRID's two-task grid g, its tasks not solved."""
    return tiny_folder(tmp_path_factory.mktemp("mut3_tiny"),
                       ["fit", "tiny.csv", "--target", "y", "--depth", "2", "--threads", "1", "--quiet",
                        "-o", "t2.json"], [*GRID, "-o", "g"])


# ---------------------------------------------------------------- error messages: the option named

def test_a_parameter_error_names_options_not_arguments() -> None:
    """A library message about a parameter that shares its name with a command's argument (solve's MODEL) is left
    as it is: only an option (--time-limit) is what the user typed for it. Mutant: '(model)' added."""
    from olctc.cli import _named_option

    message = "The 'model' parameter must be the model file's name. Got 'x' instead."
    assert _named_option(message, ["solve", "m.mps"]) == message
    assert _named_option("The 'time_limit' parameter must be > 0.", ["solve", "m.mps"]) == \
        "The 'time_limit' parameter (--time-limit) must be > 0."


def test_a_parameter_error_after_a_context_still_names_its_option() -> None:
    """The library's message may open with where it happened ("cross-validation fold 0: The 'x' parameter ..."):
    the option is named there too. Mutant: only a message that starts with "The" gets its option named."""
    from olctc.cli import _named_option

    assert _named_option("fold 0: The 'time_limit' parameter must be > 0.", ["fit", "d.csv"]) == \
        "fold 0: The 'time_limit' parameter (--time-limit) must be > 0."


def test_a_start_tree_too_deep_is_named_by_its_option_and_file(tiny: Path) -> None:
    """compile and fit check --start-tree against the data and spec before any model is built, naming the option
    and its file. Mutant: left to the compile's own check, which says 'the start tree' only."""
    for cmd, out in (("compile", "m.mps"), ("fit", "f.json")):
        r = cli_here(cmd, "tiny.csv", "--target", "y", "--depth", "1", "--start-tree", "t2.json", "-o", out,
                     cwd=tiny)
        assert (r.returncode, r.stdout) == (2, ""), (cmd, r.stdout)
        assert r.stderr.startswith("error: --start-tree t2.json has depth 2, deeper than the model's 1"), r.stderr
    assert not (tiny / "m.mps").exists() and not (tiny / "f.json").exists()


def test_fit_cv_checks_C_values_before_the_data_is_read(tmp_path: Path) -> None:
    """A bad --C-values is the error even when the data file does not exist: checked with the other --cv options,
    first. Mutant: checked only by the cross-validation, after the data is read."""
    r = cli_here("fit", "missing.csv", "--target", "y", "--cv", "2", "--C-values", "1,0", "-o", "t.json", cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == "error: The 'C_values' parameter (--C-values) must be finite and > 0. Got '1,0' instead.\n"


def test_fit_cv_refuses_a_start_tree_before_any_fold_fit(tiny: Path) -> None:
    """fit --cv --start-tree is refused at once (the start has seen every fold's held-out points), on tiny.csv as
    on haberman (test_start_tree's case, which a mutant lets run a whole default CV). Mutant: the CV run."""
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--cv", "2", "--start-tree", "t2.json",
                 "-o", "t.json", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: --start-tree does not apply with --cv: "), r.stderr
    assert not (tiny / "t.json").exists()


# ---------------------------------------------------------------- solve / fit: what they say

def test_the_cbc_note_follows_an_optimum_only(capsys: pytest.CaptureFixture[str]) -> None:
    """CBC's false-optimum note is for a CBC 'optimal' only: a time-limited or infeasible CBC result claims no
    optimum to doubt. Mutant: the note after every CBC result."""
    from olctc.cli import CBC_NOTE, _note_cbc_optimum

    for solver, status in (("cbc", "time_limit"), ("cbc-cli", "infeasible"), ("highs", "optimal")):
        _note_cbc_optimum(solver, status)
    assert capsys.readouterr() == ("", "")
    _note_cbc_optimum("cbc-cli", "optimal")
    assert capsys.readouterr().err == CBC_NOTE + "\n"


def test_fit_cv_runs_one_fold_fit_at_a_time_by_default(tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """fit --cv without --jobs runs the fold fits one at a time, in process (several processes are asked for).
    Mutant: two at a time by default."""
    import olctc.cv

    seen = _spy(monkeypatch, olctc.cv, "cross_validate")
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--threads", "1", "--cv", "2", "--C-values", "1",
                 "--test-size", "0", "--quiet", "-o", "cv.json", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert seen["jobs"] == 1
    assert "at a time" not in r.stdout, r.stdout
    (tiny / "cv.json").unlink()


# ---------------------------------------------------------------- exit codes

def test_an_error_with_its_own_exit_code_exits_with_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """An OlctcError subclass with its own exit code (NoSolution: a solver ended without a solution) exits with
    it, 1, not bad input's 2: a script tells a failed solve from a wrong command. Mutant: every OlctcError exit 2."""
    import olctc.datasets
    from olctc.errors import NoSolution

    def none_found():
        raise NoSolution("the solver stopped without a solution")

    monkeypatch.setattr(olctc.datasets, "dataset_names", none_found)
    r = cli_here("datasets")
    assert (r.returncode, r.stderr) == (1, "error: the solver stopped without a solution\n"), r.stderr


def test_an_interrupted_solve_exits_130_and_a_time_limited_one_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    """After writing what the solver handed back, an interrupted solve exits 130 (a script's `solve -o X.part &&
    mv X.part X` must not take it for a finished one); a solve stopped by its time limit is a result, exit 0.
    Mutants: exit 1 after an interrupt; the time limit taken for the interrupt."""
    from olctc.cli import _exit_if_interrupted

    _exit_if_interrupted("Time limit reached")
    assert capsys.readouterr() == ("", "")
    with pytest.raises(SystemExit) as exc:
        _exit_if_interrupted("Interrupted by user")
    assert exc.value.code == 130
    assert capsys.readouterr().err == "interrupted (the best solution found until then was written)\n"


def test_fit_cv_notes_unproven_fold_fits_and_no_cbc_note_when_none_is_optimal(
        tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """When fold fits are not proven optimal (as after a time limit: made so here), fit --cv says how many, before
    its choice; and with CBC, whose 'optimal' it doubts, it has no such fit to doubt when none is called optimal.
    Mutants: the count left out; the CBC note whatever the statuses."""
    from olctc.cv import CVResult

    monkeypatch.setattr(CVResult, "not_optimal", lambda self: list(self.fits))
    r = cli_here("fit", "tiny.csv", "--target", "y", "--depth", "1", "--threads", "1", "--cv", "2", "--C-values", "1",
                 "--solver", "cbc", "--test-size", "0", "--quiet", "-o", "cv.json", cwd=tiny)
    assert r.returncode == 0, r.stderr
    assert "\nnote: 2 of the 2 fold fits are not proven optimal (" in r.stdout, r.stdout
    assert "a longer --time-limit may change the choice of C\nbest C: 1 " in r.stdout, r.stdout
    assert "fold fits CBC called optimal" not in r.stdout, r.stdout
    (tiny / "cv.json").unlink()


# ---------------------------------------------------------------- grid / collect

def test_collect_time_limit_has_no_no_limit_to_offer(tiny: Path) -> None:
    """collect --time-limit 1e10 is refused without grid's or fit's "leave the option out for no limit": left out,
    collect's final fit takes the grid's limit, not none. Mutant: the no-limit advice given."""
    r = cli_here("collect", "g", "--time-limit", "1e10", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == ("error: The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at "
                        "most 1e7 (115 days). Got 10000000000.0 instead.\n"), r.stderr


def test_collect_checks_its_output_folder_before_reading_any_task(tiny: Path) -> None:
    """collect -o nodir/t.json is refused at once, not after every task is decoded and the final fit (minutes)
    has run: here, with no task solved, that error comes first. Mutant: -o checked only when the tree is saved."""
    r = cli_here("collect", "g", "-o", "nodir/t.json", cwd=tiny)
    assert (r.returncode, r.stdout, r.stderr) == (2, "", "error: cannot write nodir/t.json: folder nodir does not "
                                                         "exist\n")


def test_grid_refuses_an_empty_C_too(tiny: Path) -> None:
    """grid --C '' (an unset $C) is refused as any --C is, not taken for no --C: the user meant to give a C, which
    grid never uses. Mutant: only a non-empty --C refused."""
    r = cli_here(*GRID, "--C", "", "-o", "gc", cwd=tiny)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("error: --C  does not apply to grid: its tasks take each layer's C from --C-values"), \
        r.stderr
    assert not (tiny / "gc").exists()
