"""QA of `olctc fit --cv K` and olctc.cv (cross_validate, fit_cv), on real data with real solvers.

What test_fit_cv.py does not cover: the fold fits' own refusals made once before any fold (not as "fold 0"'s
error, nor as a TypeError), fit_cv's --jobs, the size budget of weighted data, the agreement with grid +
collect on weighted data with text labels, interrupts, tiny data and the tree file's CV record.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from conftest import cli_main
from test_cluster import run_tasks_here

from olctc.cli import _register_optional, cli, main
from olctc.cluster import collect
from olctc.compile import estimate_size
from olctc.cv import cross_validate, fit_cv
from olctc.data import read_csv
from olctc.datasets import dataset_path, load
from olctc.errors import OlctcError
from olctc.fit import split
from olctc.spec import make_spec

_register_optional()

OLCTC = [sys.executable, "-m", "olctc.cli"]


def vendored_rows(name: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(gzip.decompress(dataset_path(name).read_bytes()).decode())))


# ----------------------------------------------------------------------------- refused before any fold fit

# Was wrong: these reached the first fold's fit, which refused them as "cross-validation, fold 0, C 1: ..."
# (the fold and C had nothing to do with it; with jobs > 1 after the fork server had started), or failed
# with a TypeError ("'<' not supported between instances of 'str' and 'float'", "'str' object is not
# callable", "'NoneType' object is not iterable"); C_values=["1"] and [True] were taken as C = 1.
API_BAD = [
    (dict(threads=0), r"^The 'threads' parameter must be an integer from 1 to 1024"),
    (dict(threads="1"), r"^The 'threads' parameter must be an integer from 1 to 1024"),
    (dict(time_limit="5"), r"^The 'time_limit' parameter must be a positive number of seconds"),
    (dict(refine="no"), r"^The 'refine' parameter must be True or False\. Got 'no' instead\.$"),
    (dict(leave_overrun="yes"), r"^The 'leave_overrun' parameter must be True or False\. Got 'yes' instead\.$"),
    (dict(progress="x"), r"^The 'progress' parameter must be None or a function taking one line of text"),
    (dict(C_values=None), r"^The 'C_values' parameter \(--C-values\) must be numbers such as \[0\.1, 1, 10\], "
                          r"or a text such as '0\.1,1,10'\. Got None instead\.$"),
    (dict(C_values=1), r"^The 'C_values' parameter \(--C-values\) must be numbers .* Got 1 instead\.$"),
    (dict(C_values=["1"]), r"^The 'C_values' parameter \(--C-values\) must be numbers .* Got \['1'\] instead\.$"),
    (dict(C_values=[True]), r"^The 'C_values' parameter \(--C-values\) must be numbers .* Got \[True\] instead\.$"),
    (dict(C_values=np.array(1.0)), r"^The 'C_values' parameter \(--C-values\) must be numbers .* Got array\(1\.\) "
                                   r"instead\.$"),
    (dict(solver="highs", spec=make_spec(preset="margot", depth=1)),
     r"^preset margot is a MIQP \(quadratic objective\): fit it with SCIP"),
    (dict(jobs="2"), r"^The 'jobs' parameter \(--jobs\) must be an integer >= 1\. Got '2' instead\.$"),
    (dict(folds=True), r"^The 'folds' parameter \(--cv\) must be an integer >= 2\. Got True instead\.$"),
]


@pytest.mark.parametrize("kw, message", API_BAD, ids=[str(k) for k, _ in API_BAD])
def test_cross_validate_refuses_before_any_fold_fit(kw, message):
    kw = dict(kw)
    spec = kw.pop("spec", make_spec(depth=1))
    lines: list[str] = []
    progress = kw.pop("progress", lines.append)
    with pytest.raises(OlctcError, match=message):
        cross_validate(load("heart"), spec, **{"folds": 2, "C_values": [1.0], "jobs": 2, "progress": progress,
                                               **kw})
    assert lines == []  # not even the plan: nothing ran


def test_fit_cmd_miqp_on_highs_is_not_a_fold_error(tmp_path, capsys):
    # Was wrong: "error: cross-validation, fold 0, C 0.01: preset margot is a MIQP ...", after the fork server
    # had started for --jobs 2. (In process: cli_main.)
    out = tmp_path / "t.json"
    code, stdout, stderr = cli_main(["fit", "--dataset", "heart", "--preset", "margot", "--solver", "highs",
                                     "--depth", "1", "--cv", "2", "--jobs", "2", "--threads", "1", "-o", out], capsys)
    assert code == 2 and not out.exists()
    assert stderr == ("error: preset margot is a MIQP (quadratic objective): fit it with SCIP (--solver scip; "
                      "solver='scip' in Python; or gurobi, cplex, copt, xpress where installed)"
                      "\n")
    assert stdout == ""


def test_fit_cv_takes_jobs_and_checks_its_own_arguments_first():
    # Was wrong: fit_cv had no `jobs` (TypeError: unexpected keyword argument; only cross_validate and the CLI
    # could run fold fits in parallel), and verbose="no" / echo=None were refused by the final fit, after the
    # whole cross-validation.
    ds = load("heart")
    kw = dict(folds=2, C_values=[0.1, 1.0], seed=1, threads=1, verbose=False)
    res2, cv2 = fit_cv(ds, make_spec(depth=1), jobs=2, **kw)
    res1, cv1 = fit_cv(ds, make_spec(depth=1), **kw)
    assert cv2.table == cv1.table and cv2.best == cv1.best == tuple(res2.summary["spec"]["C"])
    for bad, message in ((dict(verbose="no"), "The 'verbose' parameter must be True or False"),
                         (dict(echo=None), "The 'echo' parameter must be a function"),
                         (dict(jobs=0), r"The 'jobs' parameter \(--jobs\) must be an integer >= 1")):
        lines: list[str] = []
        with pytest.raises(OlctcError, match=message):
            fit_cv(ds, make_spec(depth=1), progress=lines.append, **{**kw, "verbose": True, **bad})
        assert lines == []


# ----------------------------------------------------------------------------- the size budget


def test_fit_cv_size_budget_counts_the_points_the_model_keeps(tmp_path, capsys):
    # Was wrong: --cv checked --max-nonzeros against every training point, though points of weight 0 are left
    # out of the model; a budget plain `olctc fit` took on the same data was refused with --cv.
    rows = vendored_rows("heart")
    data = tmp_path / "hz.csv"
    with data.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(rows[0] + ["w"])
        w.writerows(r + ["0" if i % 2 else "1"] for i, r in enumerate(rows[1:]))
    ds = read_csv(data, target="y", weight_column="w")
    train, _ = split(ds, 0.5, 0)
    kept = int((ds.weight[train] > 0).sum())
    budget = estimate_size(kept, ds.p, make_spec(depth=1)).nonzeros  # the final model's size exactly
    assert estimate_size(len(train), ds.p, make_spec(depth=1)).nonzeros > budget  # all training points: over it
    args = [str(data), "--target", "y", "--weight-column", "w", "--depth", "1", "--test-size", "0.5",
            "--max-nonzeros", str(budget), "--quiet", "--threads", "1"]
    # in process (cli_main): three fresh interpreters cost about 4 s of imports and checked nothing more
    code, _, err = cli_main(["fit", *args, "-o", tmp_path / "plain.json"], capsys)
    assert code == 0, err
    code, _, err = cli_main(["fit", *args, "--cv", "2", "--C-values", "1", "-o", tmp_path / "cv.json"], capsys)
    assert code == 0, err
    assert json.loads((tmp_path / "cv.json").read_text())["meta"]["cv"]["C"] == [1.0]
    # still refused before any fold fit when the points kept are too many
    code, out, err = cli_main(["fit", *args[:-5], "--max-nonzeros", "1000", "--cv", "2", "--C-values", "1",
                               "-o", tmp_path / "no.json"], capsys)
    assert code == 2 and "over the budget of 1,000 nonzeros (max_nonzeros, --max-nonzeros)" in err
    assert "cv fit" not in out and not (tmp_path / "no.json").exists()


# ----------------------------------------------------------------------------- agreement with grid + collect


@pytest.fixture(scope="module")
def weighted_iono(tmp_path_factory) -> Path:
    """80 ionosphere rows (text labels b/g) with a weight column of 0.5, 1, 2 and 3."""
    rows = vendored_rows("ionosphere")
    yi = rows[0].index("y")
    b = [r for r in rows[1:] if r[yi] == "b"][:30]
    g = [r for r in rows[1:] if r[yi] == "g"][:50]
    path = tmp_path_factory.mktemp("iono") / "iono_w.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(rows[0] + ["w"])
        w.writerows(r + [str((0.5, 1, 2, 3)[i % 4])] for i, r in enumerate(b + g))
    return path


IONO = ["--target", "y", "--weight-column", "w", "--positive-class", "b", "--drop", "a2", "--depth", "1",
        "--class-weight", "balanced", "--seed", "4", "--test-size", "0.25", "--C-values", "0.01,1,100"]


@pytest.fixture(scope="module")
def iono_grid(weighted_iono, tmp_path_factory) -> Path:
    """The cluster route's grid of weighted_iono (2 folds x 3 C), solved task by task by their `olctc solve`
    command lines (HiGHS), in this process (run_tasks_here: a fresh interpreter per task cost about a second):
    one grid for both scorings, which collect reads without changing it."""
    g = tmp_path_factory.mktemp("iono_grid") / "g"
    res = CliRunner().invoke(cli, ["grid", str(weighted_iono), *IONO, "--folds", "2", "--solver", "highs",
                                   "--time-limit", "30", "--olctc-cmd", " ".join(OLCTC), "-o", str(g)])
    assert res.exit_code == 0, res.output
    run_tasks_here(g)
    return g


# one pytest-xdist worker for both scorings: iono_grid is built once
@pytest.mark.xdist_group("iono_grid")
@pytest.mark.parametrize("scoring, best", [("neg_log_loss", [1.0]), ("accuracy", [100.0])])
def test_fit_cv_agrees_with_grid_and_collect_on_weighted_text_labels(weighted_iono, iono_grid, tmp_path, capsys,
                                                                      scoring, best):
    # Pinned: text labels with --positive-class, --drop, a weight column and --class-weight balanced give the
    # cluster route's table and choice (every fit proven optimal), for two scorings that choose differently.
    col = collect(iono_grid, scoring=scoring)
    assert all(r.status == "optimal" for r in col.results)
    out = tmp_path / "t.json"
    code, stdout, err = cli_main(["fit", weighted_iono, *IONO, "--cv", "2", "--scoring", scoring, "--quiet",
                                  "--threads", "1", "-o", out], capsys)
    assert code == 0, err
    cv = json.loads(out.read_text())["meta"]["cv"]
    assert cv["C"] == best == list(col.best) and cv["fits_not_optimal"] == 0
    for a, b in zip(cv["table"], col.table, strict=True):
        assert a["C"] == b["C"] and a["folds_scored"] == b["folds_scored"] == 2
        assert a["mean"] == pytest.approx(b["mean"], rel=1e-6, abs=1e-9)
    assert "points weighted by column 'w'" in stdout


# ----------------------------------------------------------------------------- interrupts


def _session_processes(sid: int) -> list[str]:
    ps = subprocess.run(["ps", "-e", "-o", "sid=,pid=,args="], capture_output=True, text=True).stdout
    return [ln for ln in ps.splitlines() if ln.split() and ln.split()[0] == str(sid)]


@pytest.mark.parametrize("sig, jobs, delay", [(signal.SIGINT, "2", 2.0), (signal.SIGTERM, "1", 2.0),
                                               (signal.SIGINT, "2", 0.3)])
def test_fit_cv_interrupted_writes_nothing_and_leaves_no_process(tmp_path, sig, jobs, delay):
    # Pinned: Ctrl-C (to the whole process group, as a terminal sends it) or SIGTERM during the fold fits:
    # exit 130, no tree file, no fold fit left solving (the fork server's children included).
    # Was wrong (delay 0.3): a Ctrl-C while the fork server of --jobs was importing its preloads (about 2 s
    # after the plan line) printed its 30-line KeyboardInterrupt traceback above "interrupted".
    out = tmp_path / "t.json"
    proc = subprocess.Popen([*OLCTC, "fit", "--dataset", "heart", "--preset", "oct-h", "--depth", "2", "--cv", "2",
                             "--C-values", "0.1,10", "--jobs", jobs, "--threads", "1", "--time-limit", "60",
                             "--quiet", "-o", str(out)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    first = proc.stdout.readline()
    assert first.startswith("cross-validation: 4 C combination(s) x 2 folds = 8 fits"), first
    time.sleep(delay)  # 2 s: the fold fits are solving (each takes over 10 s); 0.3 s: the fork server starts
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    rest, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1] == "interrupted" and "Traceback" not in err
    assert "best C" not in rest and not out.exists()
    deadline = time.monotonic() + 5
    while _session_processes(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _session_processes(proc.pid) == []


# ----------------------------------------------------------------------------- tiny data, the tree file


def test_fit_cv_on_two_points_per_class(tmp_path, capsys):
    # Pinned: 2 points per class make 2 folds (each fold trains on one point of each class), not 3; the
    # refusal is one line naming the class and the largest --cv that works. (In process: cli_main.)
    data = tmp_path / "tiny.csv"
    data.write_text("x1,x2,label\n0.1,-0.3,yes\n2.2,1.9,no\n-0.4,0.2,yes\n1.8,2.4,no\n")
    out = tmp_path / "t.json"
    code, _, err = cli_main(["fit", data, "--target", "label", "--depth", "1", "--cv", "2", "--C-values", "0.1,1",
                             "--test-size", "0", "--quiet", "-o", out], capsys)
    assert code == 0, err
    assert json.loads(out.read_text())["meta"]["cv"]["folds"] == 2
    out.unlink()
    code, stdout, err = cli_main(["fit", data, "--target", "label", "--depth", "1", "--cv", "3", "--test-size", "0",
                                  "-o", out], capsys)
    assert code == 2 and not out.exists() and stdout == ""
    assert err == ("error: cannot make 3 stratified folds: the training part has only 2 point(s) of class "
                   "'no'; use 2 folds or fewer (--cv 2), or more data\n")


def test_cv_record_survives_save_load_and_the_tree_still_predicts(tmp_path, capsys):
    # Pinned: meta["cv"] is kept through olctc.export.json save/load, and predict / explain read such a file.
    from olctc.export.json import load as load_tree, save

    res, cv = fit_cv(load("heart"), make_spec(depth=1), folds=2, C_values="0.1,1", threads=1, verbose=False)
    path = tmp_path / "t.json"
    save(res.tree, path)
    again = load_tree(path)
    assert again.meta["cv"] == cv.to_json() == res.tree.meta["cv"]
    data = tmp_path / "heart.csv"
    data.write_bytes(gzip.decompress(dataset_path("heart").read_bytes()))
    code, _, err = cli_main(["predict", path, data, "-o", tmp_path / "p.csv"], capsys)
    assert code == 0, err
    code, out, err = cli_main(["explain", path, "--data", data, "--row", "3"], capsys)
    assert code == 0 and "prediction:" in out, err


def test_fit_cv_final_fit_refusing_the_time_limit_says_the_choice(tmp_path, monkeypatch, capsys):
    # Was wrong: the final model is the largest, so a --time-limit every fold fit took could leave it no time
    # (a6a, depth 1, --time-limit 3: "give at least 4 s") after the whole cross-validation, whose choice was
    # then lost. The error now names the C chosen and how to fit it without cross-validating again. (The final
    # fit's refusal is simulated: the real one depends on the machine's speed.)
    import olctc.fit
    from olctc.errors import TimeLimitTooShort

    real = olctc.fit.fit

    def fit(ds, spec, **kw):
        if kw.get("test_size"):  # the final fit (the fold fits have no test part)
            raise TimeLimitTooShort("a time limit of 3 s leaves no time to solve: give at least 4 s")
        return real(ds, spec, **kw)

    monkeypatch.setattr(olctc.fit, "fit", fit)
    out = tmp_path / "t.json"
    with pytest.raises(SystemExit) as ended:
        # --time-limit 10, not a6a's 3: on a busy machine the fold fits themselves refused 3 s (their build and
        # warm start took 0.3 s); --test-size 0.8 keeps the depth-2 fold fits to about 30 rows, proven optimal
        # in well under a second
        main(["fit", "--dataset", "heart", "--test-size", "0.8", "--depth", "2", "--cv", "2", "--C-values", "1",
              "--time-limit", "10", "--threads", "1", "--quiet", "-o", str(out)])
    cap = capsys.readouterr()
    assert ended.value.code == 2 and not out.exists()
    best = json.loads("[" + cap.out.split("best C: ")[1].split(" ")[0] + "]")
    assert cap.err == (f"error: the final fit: a time limit of 3 s leaves no time to solve: give at least 4 s; the "
                       f"cross-validation chose C {best[0]:g},{best[1]:g}: fit that with --C {best[0]:g},{best[1]:g} "
                       "instead of --cv (no need to cross-validate again)\n")


def test_fit_cv_api_final_fit_refusing_the_time_limit_says_the_choice(monkeypatch):
    # Was wrong: as with the command, fit_cv's final fit refusing its time limit lost the CV's choice.
    import olctc.fit
    from olctc.errors import TimeLimitTooShort

    real = olctc.fit.fit

    def fit(ds, spec, **kw):
        if kw.get("test_size"):
            raise TimeLimitTooShort("a time limit of 3 s leaves no time to solve: give at least 4 s")
        return real(ds, spec, **kw)

    monkeypatch.setattr(olctc.fit, "fit", fit)
    with pytest.raises(TimeLimitTooShort, match=r"^the final fit: a time limit of 3 s leaves no time to solve: give "
                                                 r"at least 4 s; the cross-validation chose C 1: fit that \(spec "
                                                 r"C=\(1\.0,\)\) with a longer time_limit$"):
        # time_limit 10: the fold fits refused 3 s on a busy machine (the final fit's refusal is simulated)
        fit_cv(load("heart"), make_spec(depth=1), folds=2, C_values=[1.0], time_limit=10, threads=1, verbose=False)


def test_fit_cv_plan_counts_the_jobs_that_run():
    # Was wrong: --jobs 9 for 2 fits planned "2 fits, 9 at a time"; at most 2 run at once.
    lines: list[str] = []
    cv = cross_validate(load("haberman"), make_spec(depth=1), folds=2, C_values=[1.0], jobs=9, threads=1,
                        time_limit=10, progress=lines.append)
    assert lines[0] == ("cross-validation: 1 C combination(s) x 2 folds = 2 fits, 2 at a time, then the final fit; "
                        "each fit at most 10 s (about 20 s at most in all)")
    assert len(cv.fits) == 2 and cv.best == (1.0,)
