"""One table of malformed inputs, each run through the real `olctc` entry point.

Every case asserts the whole error line, exit code 2, no traceback and no file left behind. The
`from_arrays` cases go through the library (no command takes arrays) and assert the exact OlctcError.
A module fixture compiles a 6-point CSV at depth 1, solves it with HiGHS and decodes it once, so the
decode / export / predict / explain cases work on real files.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

from olctc.cli import main
from olctc.data import from_arrays
from olctc.errors import OlctcError
from conftest import cli_main as run_main
from conftest import cli_sub as run_sub
from conftest import TINY_CSV, tiny_folder

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
TINY = TINY_CSV


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> Path:
    """A folder holding a real model, solution, manifest and tree, and the broken files of the table."""
    d = tiny_folder(tmp_path_factory.mktemp("bad"),
                    ["compile", "tiny.csv", "--target", "y", "--depth", "1", "-o", "m.mps"],
                    ["solve", "m.mps", "--solver", "highs", "--quiet", "-o", "m.highs.sol"],
                    ["decode", "m.olctc.json", "m.highs.sol", "-o", "tree.json"])
    _broken_files(d)
    return d


def _broken_files(d: Path) -> None:
    man = json.loads((d / "m.olctc.json").read_text())

    def manifest(name: str, **changes) -> None:
        doc = json.loads(json.dumps(man))
        for key, value in changes.items():
            if value is None:
                doc.pop(key)
            else:
                doc[key] = value
        (d / name).write_text(json.dumps(doc))

    manifest("v99.olctc.json", version=99)
    manifest("nomodel.olctc.json", model=None)
    manifest("nospec.olctc.json", spec="olct")
    manifest("gone.olctc.json", data={**man["data"], "source": "gone.csv"})
    (d / "list.olctc.json").write_text("[1, 2]")
    (d / "cut.olctc.json").write_text('{"format": "olctc-manifest", "version": 1,')
    (d / "latin.olctc.json").write_bytes(b"\xff\xfe{}")
    (d / "folder").mkdir()

    sol = (d / "m.highs.sol").read_text()
    assert "\nb_0 " in sol
    (d / "unknown.sol").write_text(sol.replace("\nb_0 ", "\nzzz_0 ", 1))
    # a garbage token of any length is named shortened (a 200 MB one went to stderr whole: QA 2026-12-05)
    (d / "huge.sol").write_text(sol.replace("\nb_0 ", "\n" + "z" * 100_000 + " ", 1))

    tree = json.loads((d / "tree.json").read_text())

    def tree_file(name: str, edit: Callable[[dict], None]) -> None:
        doc = json.loads(json.dumps(tree))
        edit(doc)
        (d / name).write_text(json.dumps(doc))

    tree_file("t99.json", lambda t: t.update(version=99))
    tree_file("tdepth.json", lambda t: t.update(depth=0))
    tree_file("tformat.json", lambda t: t.update(format="sklearn-tree"))
    tree_file("textra.json", lambda t: t.update(extra=1))
    tree_file("tscale.json", lambda t: (t.pop("raw"), t["scaler"]["scale"].__setitem__(1, 0.0)))
    tree_file("tweight.json", lambda t: t["nodes"]["W"][0].__setitem__(0, "x"))
    tree_file("traw.json", lambda t: t["raw"]["b"].__setitem__(0, t["raw"]["b"][0] + 1.0))
    tree_file("tclasses.json", lambda t: t.update(classes=[0, 1, 2]))
    tree_file("tbool.json", lambda t: t.update(version=True))
    tree_file("tsame.json", lambda t: t.update(classes=[1, "1"]))
    (d / "tnan.json").write_text((d / "tree.json").read_text().replace('"b": [', '"b": [NaN, ', 1))
    (d / "tbin.json").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff")
    (d / "tempty.json").write_text("")
    (d / "tlist.json").write_text("[1]")

    files = {
        "feat.csv": "a,b,c\n1,2,x\n3,4,y\n",
        "miss.csv": "a,c\n1,x\n2,y\n",
        "cat.csv": "a,b,c,y\n1,2,z,1\n3,4,x,-1\n",
        "empty.csv": "",
        "header.csv": "a,b,c\n",
        "ragged.csv": "a,b,c\n1,2,x\n3,4\n",
        "dup.csv": "a,b,b,c\n1,2,2,x\n3,4,4,y\n",
        "blank.csv": "a,b,y\n1,2,1\n\n3,4,0\n",
        "noname.csv": "a,,y\n1,2,1\n3,4,0\n",
        "one.csv": "a,b,c,y\n1,2,x,1\n",
        "other.csv": TINY.replace("0.1,0.3", "0.1,0.4"),
        "relabelled.csv": TINY.replace(",1\n", ",yes\n").replace(",-1\n", ",no\n"),
        "oneclass.csv": "a,b,y\n1,2,1\n3,4,1\n",
        "heavy.csv": "a,b,w,y\n1,2,1e19,1\n2,1,1,-1\n3,3,1,1\n0,1,2,-1\n",
        "side.olctc.json": TINY,  # data named as the manifest of -o side.mps
        "hugecell.csv": "a,b,c,y\n1,2,x,1\n3," + "7" * 100 + "x" * 1_000_000 + ",y,-1\n",
    }
    for name, text in files.items():
        (d / name).write_text(text)
    (d / "latin1.csv").write_bytes(b"a,b,c,y\n1,2,\xe9,1\n3,4,x,-1\n")
    (d / "utf16.csv").write_bytes("a,b,y\n1,2,1\n3,4,-1\n".encode("utf-16-le"))  # no BOM
    model = (d / "m.mps").read_text()
    (d / "cut.mps").write_text(model[: model.index("ENDATA")])
    (d / "cut.lp").write_text("Minimize\n obj: x\nSubject To\n c1: x >= 1\n")
    (d / "garbage.mps").write_text("NAME x\nROWS\n N obj\nCOLUMNS\n    x  obj  1\n  garbage here\nENDATA\n")
    (d / "cut.csv.gz").write_bytes(gzip.compress(TINY.encode())[:30])


def sha12(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


@dataclass(frozen=True)
class Case:
    id: str
    args: tuple[str, ...]
    message: str  # the line after "error: "; {sample} is the samples folder
    runner: str = "main"  # "main": olctc.cli.main in process; "sub": python -m olctc.cli


def C(id: str, args: str, message: str, runner: str = "main") -> Case:
    return Case(id, tuple(args.split()), message, runner)


HELP = "(see 'olctc {} --help')"

CASES = [
    # ---- CSV files (through compile / fit / decode --data)
    C("csv-blank-line", "compile blank.csv --target y -o x.mps",
      "blank.csv: line 3 is blank; remove blank lines inside the data"),
    C("csv-empty-header-name", "compile noname.csv --target y -o x.mps",
      "noname.csv: the header's column 2 (after 'a') has no name; name it"),
    C("csv-not-utf8", "compile latin1.csv --target y -o x.mps",
      "latin1.csv: not UTF-8 text (byte 0xe9 at offset 12); save the CSV as UTF-8"),
    # it read as one-letter columns split by NULs: "line 3 has 1 field, the header has 4", NULs printed raw
    C("csv-utf16-no-bom", "compile utf16.csv --target y -o x.mps",
      "utf16.csv: not UTF-8 text: it is UTF-16 without a byte-order mark (every other byte is 0); save the CSV as "
      "UTF-8"),
    C("csv-cut-gzip", "compile cut.csv.gz --target y -o x.mps",
      "cut.csv.gz: cannot read: Compressed file ended before the end-of-stream marker was reached"),
    C("csv-is-folder", "compile folder --target y -o x.mps",
      "Invalid value for '[DATA]': File 'folder' is a directory. " + HELP.format("compile")),
    C("csv-no-target-option", "compile tiny.csv -o x.mps",
      "tiny.csv: say which column holds the class with --target COLUMN"),
    C("csv-and-dataset", "compile tiny.csv --target y --dataset heart -o x.mps",
      "give either a CSV file (DATA.csv --target COLUMN) or --dataset NAME"),
    C("no-data-at-all", "fit -o t.json", "give either a CSV file (DATA.csv --target COLUMN) or --dataset NAME"),
    C("dataset-with-target", "compile --dataset heart --target cls -o x.mps",
      "--target applies to a CSV file; vendored data sets have their label in 'y'"),
    C("csv-unknown-positive-class", "compile tiny.csv --target y --positive-class 7 -o x.mps",
      "tiny.csv: positive class '7' is not a value of target 'y'; its values are [-1, 1]"),
    C("csv-one-class-fit", "fit oneclass.csv --target y -o t.json",
      "oneclass.csv: target 'y' has one class only (1); a classifier needs two"),
    # ---- spec options
    C("C-wrong-length", "compile tiny.csv --target y --C 1,2,3 -o x.mps",
      "The 'C' parameter (--C) must be one value or 2 values (one per layer, root first) for depth 2. "
      "Got '1,2,3' instead."),
    C("C-wrong-length-depth-1", "compile tiny.csv --target y --depth 1 --C 1,2 -o x.mps",
      "The 'C' parameter (--C) must be one value for depth 1. Got '1,2' instead."),  # was "or 1 values"
    C("C-not-a-number", "fit tiny.csv --target y --C abc -o t.json",
      "The 'C' parameter (--C) must be a positive number or one per layer separated by commas. Got 'abc' instead."),
    C("C-negative", "compile tiny.csv --target y --C -1 -o x.mps",
      "The 'C' parameter (--C) must be finite and > 0 for every layer. Got '-1' instead."),
    # HiGHS answered "Unknown" at once to a cost of 1e20 (its infinite_cost), and fit kept its warm start
    C("C-infinite-to-solvers", "fit tiny.csv --target y --C 1,1e20 -o t.json",
      "The 'C' parameter (--C) must be below 1e20 for every layer (solvers read a cost of 1e20 or more as "
      "infinite). Got '1,1e20' instead."),
    C("C-times-weights-infinite-to-solvers", "compile heavy.csv --target y --weight-column w --C 100 -o x.mps",
      "{base}/heavy.csv: C times the point weights (column 'w') and the class weights gives loss costs up to 1e+21, "
      "and solvers read a cost of 1e20 or more as infinite; scale C or the weights down"),
    C("class-weight-infinite-to-solvers", "fit tiny.csv --target y --class-weight 1=1e19 --C 10 -o t.json",
      "{base}/tiny.csv: C times the point weights and the class weights gives loss costs up to 1e+20, and solvers "
      "read a cost of 1e20 or more as infinite; scale C or the weights down"),
    C("C-values-infinite-to-solvers", "grid tiny.csv --target y --C-values 1,1e21 --folds 2 -o g",
      "The 'C_values' parameter (--C-values) must be below 1e20 for every value (solvers read a cost of 1e20 or "
      "more as "
      "infinite). Got '1,1e21' instead."),
    # Python's float() reads digit grouping: '0_5' was a tangent at 5.0, '1_0' a C of 10
    C("tangents-digit-grouping", "compile tiny.csv --target y --tangents -inf,0_5,inf -o x.mps",
      "The 'tangents' parameter (--tangents) must be V0, V1, V2, V3 or a comma-separated list of numbers such as "
      "'-inf,-1.9,0,1.9,inf'. Got '-inf,0_5,inf' instead."),
    C("C-digit-grouping", "fit tiny.csv --target y --C 1_0 -o t.json",
      "The 'C' parameter (--C) must be a positive number or one per layer separated by commas. Got '1_0' instead."),
    C("class-weight-digit-grouping", "compile tiny.csv --target y --class-weight 1=1_0 -o x.mps",
      "The 'class_weight' parameter (--class-weight) must be finite weights > 0 (class 1 has '1_0'). "
      "Got '1=1_0' instead."),
    C("tangents-unknown-set", "compile tiny.csv --target y --tangents V9 -o x.mps",
      "The 'tangents' parameter (--tangents) must be V0, V1, V2, V3 or a comma-separated list of numbers such as "
      "'-inf,-1.9,0,1.9,inf'. Got 'V9' instead."),
    C("big-m-zero", "compile tiny.csv --target y --big-m 0 -o x.mps",
      "The 'big_m' parameter (--big-m) must be a finite number > 0. Got 0.0 instead."),
    C("budget-zero", "compile tiny.csv --target y --preset margot-hfs --budget 0 -o x.mps",
      "The 'budget' parameter (--budget) must be an integer >= 1. Got 0 instead."),
    # tiny.csv has 4 features once its text column c is one-hot encoded
    C("budget-above-features", "compile tiny.csv --target y --preset margot-hfs --budget 5 -o x.mps",
      "The 'budget' parameter (--budget) must be at most 4, the number of features (after one-hot encoding), since a "
      "larger budget bounds nothing. Got 5 instead."),
    C("budget-above-features-fit", "fit tiny.csv --target y --preset olct-univariate --budget 5 -o t.json",
      "The 'budget' parameter (--budget) must be at most 4, the number of features (after one-hot encoding), since a "
      "larger budget bounds nothing. Got 5 instead."),
    C("budget-above-features-grid", "grid tiny.csv --target y --preset margot-sfs --solver scip --budget 9 "
                                    "--folds 2 -o g",
      "The 'budget' parameter (--budget) must be at most 4, the number of features (after one-hot encoding), since a "
      "larger budget bounds nothing. Got 9 instead."),
    C("drop-missing", "fit tiny.csv --target y --drop d -o t.json",
      "tiny.csv: column 'd' to drop is not in the file; columns are: a, b, c, y"),
    C("drop-target", "compile tiny.csv --target y --drop y -o x.mps",
      "tiny.csv: column 'y' to drop is the target column"),
    C("tangents-unused", "compile tiny.csv --target y --preset oct-h --tangents V1 -o x.mps",
      "The 'tangents' parameter (--tangents) must be unset (or V0, the default): preset 'oct-h' uses the "
      "misclassification "
      "loss, not the logistic one's tangents (they apply to olct, olct-univariate). Got 'V1' instead."),
    C("alpha-negative", "compile tiny.csv --target y --preset oct-h --alpha -1 -o x.mps",
      "The 'alpha' parameter (--alpha) must be a finite number >= 0. Got -1.0 instead."),
    C("alpha-infinite-to-solvers", "compile tiny.csv --target y --preset oct-h --alpha 1e20 -o x.mps",
      "The 'alpha' parameter (--alpha) must be below 1e20 (solvers read a cost of 1e20 or more as infinite). "
      "Got 1e+20 instead."),
    C("alpha-unused", "fit tiny.csv --target y --alpha 2 -o t.json",
      "The 'alpha' parameter (--alpha) must be unset (or 1.0, the default): preset 'olct' does not use it "
      "(it applies to margot-sfs, oct-h). Got 2.0 instead."),
    C("epsilon-below-tolerance", "compile tiny.csv --target y --epsilon 1e-10 -o x.mps",
      "The 'epsilon' parameter (--epsilon) must be >= 1e-8: the solvers' feasibility tolerance is 1e-9, and a smaller "
      "epsilon does not separate the two sides of a split. Got 1e-10 instead."),
    C("max-nonzeros", "compile tiny.csv --target y --max-nonzeros 10 -o x.mps",
      "the model would have 66 rows, 63 columns, about 360 nonzeros, over the budget of 10 nonzeros "
      "(max_nonzeros, --max-nonzeros); use a smaller depth, fewer tangents or fewer points"),
    C("max-nonzeros-fit", "fit tiny.csv --target y --max-nonzeros 10 -o t.json",  # the score-variable form
      "the model would have 60 rows, 67 columns, about 196 nonzeros, over the budget of 10 nonzeros "
      "(max_nonzeros, --max-nonzeros); use a smaller depth, fewer tangents or fewer points"),
    C("max-nonzeros-grid", "grid tiny.csv --target y --folds 2 --max-nonzeros 200 -o g",
      "the model would have 48 rows, 55 columns, about 252 nonzeros, over the budget of 200 nonzeros "
      "(max_nonzeros, --max-nonzeros); use a smaller depth, fewer tangents or fewer points"),
    # within the nonzeros' budget, but its rows make it a 36 GB build (QA 2026-12-05: ~40 GB extrapolated)
    C("max-memory", "compile --dataset svmguide1 --depth 12 --score-variables -o x.mps",
      "the model would have 50,614,200 rows, 19,066,030 columns, about 354,283,304 nonzeros: building it would "
      "take about 36 GB of memory, over the default budget of about 16 GB; use a smaller depth or fewer points, "
      "or pass max_nonzeros=354283304 (--max-nonzeros 354283304) to build it anyway"),
    C("max-nonzeros-zero", "compile tiny.csv --target y --max-nonzeros 0 -o x.mps",
      "The 'max_nonzeros' parameter (--max-nonzeros) must be an integer >= 1. Got 0 instead."),
    C("model-suffix-gz", "compile tiny.csv --target y -o x.MPS.gz",
      "x.MPS.gz: the model file must end in .mps or .lp (got '.gz')"),
    # CBC reads a file as LP by a case-sensitive suffix: solvers.txt's `cbc x.LP` would load nothing
    C("model-suffix-upper-lp", "compile tiny.csv --target y -o x.LP",
      "x.LP: CBC reads a file as LP only when its name ends in lower-case .lp; name it x.lp"),
    C("model-suffix-mixed-lp", "compile tiny.csv --target y -o folder/x.Lp",
      "folder/x.Lp: CBC reads a file as LP only when its name ends in lower-case .lp; name it folder/x.lp"),
    # ---- option syntax (click), one line like every other error
    C("depth-not-integer", "compile --dataset heart --depth abc -o x.mps",
      "Invalid value for '--depth': 'abc' is not a valid integer. " + HELP.format("compile")),
    C("compile-without-output", "compile --dataset heart",
      "Missing option '-o' / '--output'. " + HELP.format("compile")),
    C("unknown-top-option", "--bogus", "No such option '--bogus'. (see 'olctc --help')"),
    C("datasets-extra-argument", "datasets extra",
      "Got unexpected extra argument (extra) " + HELP.format("datasets")),
    C("datasets-unknown-option", "datasets --all", "No such option '--all'. " + HELP.format("datasets"),
      runner="sub"),
    # ---- solve
    C("solve-missing-model", "solve nope.mps", "nope.mps: no such model file"),
    C("solve-unknown-solver", "solve m.mps --solver mosek",
      "The 'solver' parameter (--solver) must be one of highs, cbc, scip, gurobi, cplex, copt, xpress, cbc-cli, "
      "highs-cli, glpk-cli. Got 'mosek' instead."),
    C("solve-threads-0", "solve m.mps --threads 0",
      "The 'threads' parameter (--threads) must be an integer from 1 to 1024 (more threads than cores only "
      "slow a solver down). Got 0 instead.", runner="sub"),
    C("solve-threads-huge", "solve m.mps --threads 100000",
      "The 'threads' parameter (--threads) must be an integer from 1 to 1024 (more threads than cores only "
      "slow a solver down). Got 100000 instead."),
    C("solve-threads-text", "solve m.mps --threads two",
      "Invalid value for '--threads': 'two' is not a valid integer. " + HELP.format("solve")),
    C("solve-time-limit-negative", "solve m.mps --time-limit -1",
      "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 (115 days; "
      "leave the option out for no limit). Got -1.0 instead."),
    C("solve-time-limit-nan", "solve m.mps --time-limit nan",
      "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 (115 days; "
      "leave the option out for no limit). Got nan instead."),
    C("solve-time-limit-huge", "solve m.mps --solver cbc-cli --time-limit 1e10",
      "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 (115 days; "
      "leave the option out for no limit). Got 10000000000.0 instead.", runner="sub"),
    C("solve-missing-program", "solve m.mps --solver cbc-cli --solver-path /nonexistent/cbc",
      "solver program /nonexistent/cbc does not exist or is not executable"),
    # a bare name was looked up on PATH, then reported as "/the/cwd/nocbc does not exist" (QA pass)
    C("solve-program-not-on-path", "solve m.mps --solver cbc-cli --solver-path nocbc",
      "solver program 'nocbc' is not on PATH, nor a file in this folder: give its path"),
    C("solve-path-for-inprocess", "solve m.mps --solver highs --solver-path /usr/bin/cbc",
      "--solver-path applies to the solver programs (cbc-cli, highs-cli, glpk-cli), not to highs, which runs "
      "in process"),
    C("solve-output-folder-missing", "solve m.mps -o nodir/x.sol",
      "cannot write nodir/x.sol: folder nodir does not exist"),
    C("solve-not-a-model", "solve tiny.csv",
      "cannot tell the format of tiny.csv: expected a .mps or .lp file (optionally .gz)"),
    C("solve-truncated-mps", "solve cut.mps --solver scip",
      "cut.mps: the file ends before its 'ENDATA' line (truncated?); write it again"),
    C("solve-truncated-lp-cbc", "solve cut.lp --solver cbc",
      "cut.lp: the file ends before its 'End' line (truncated?); write it again", runner="sub"),
    C("solve-truncated-lp-scip", "solve cut.lp --solver scip",
      "cut.lp: the file ends before its 'End' line (truncated?); write it again"),
    C("solve-truncated-lp-cbc-program", "solve cut.lp --solver cbc-cli --solver-path /usr/bin/cbc",
      "cut.lp: the file ends before its 'End' line (truncated?); write it again"),
    C("solve-bad-mps-scip", "solve garbage.mps --solver scip",
      "SCIP cannot read model file garbage.mps: Syntax error in line 6", runner="sub"),
    C("solve-output-is-the-model", "solve m.mps -o m.mps", "-o m.mps is also the input model; write to another file"),
    C("solve-output-is-the-manifest", "solve m.mps --solver cbc-cli -o ./m.olctc.json",
      "-o ./m.olctc.json is also the input manifest; write to another file"),
    C("solve-output-is-the-start", "solve m.mps -o m.start.highs.sol",
      "-o m.start.highs.sol is also the input MIP start; write to another file"),
    # ---- fit
    C("fit-test-size", "fit tiny.csv --target y --test-size 1.5 -o t.json",
      "The 'test_size' parameter (--test-size) must be in [0, 1). Got 1.5 instead."),
    C("fit-unknown-solver", "fit tiny.csv --target y --solver mosek -o t.json",
      "The 'solver' parameter (--solver) must be one of highs, cbc, scip, gurobi, cplex, copt, xpress for an "
      "in-process fit. Got 'mosek' instead."),
    C("fit-threads-0", "fit tiny.csv --target y --threads 0 -o t.json",
      "The 'threads' parameter (--threads) must be an integer from 1 to 1024 (more threads than cores only "
      "slow a solver down). Got 0 instead."),
    C("fit-time-limit-negative", "fit tiny.csv --target y --time-limit -1 -o t.json",
      "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 (115 days; "
      "leave the option out for no limit). Got -1.0 instead."),
    C("fit-time-limit-huge", "fit tiny.csv --target y --time-limit 1e10 -o t.json",
      "The 'time_limit' parameter (--time-limit) must be a positive number of seconds, at most 1e7 (115 days; "
      "leave the option out for no limit). Got 10000000000.0 instead."),
    C("fit-output-is-data", "fit tiny.csv --target y -o tiny.csv",
      "-o tiny.csv is also the input data; write to another file"),
    # files compile writes beside -o, and solve's -o, used to overwrite the data (exit 0)
    C("compile-side-file-is-data", "compile side.olctc.json --target y -o side.mps",
      "side.olctc.json, written beside -o side.mps, is also the input data; choose another -o name"),
    C("solve-output-is-the-training-data", "solve m.mps --solver highs -o tiny.csv",
      "-o tiny.csv is also the input data named in the manifest; write to another file"),
    C("solve-output-is-a-parameter-file", "solve m.mps --solver highs -o m.highs.opt",
      "-o m.highs.opt is also the input file compile wrote beside the model; write to another file"),
    C("compile-output-is-data", "compile tiny.csv --target y -o tiny.csv",
      "tiny.csv: the model file must end in .mps or .lp (got '.csv')"),
    C("fit-miqp-with-highs", "fit tiny.csv --target y --preset margot --solver highs -o t.json",
      "preset margot is a MIQP (quadratic objective): fit it with SCIP (--solver scip; solver='scip' in Python; "
      "or gurobi, cplex, copt, xpress where installed)"),
    C("fit-output-folder-missing", "fit tiny.csv --target y -o nodir/t.json",
      "cannot write nodir/t.json: folder nodir does not exist"),
    # ---- manifests
    C("manifest-version-99", "decode v99.olctc.json m.highs.sol -o o.json",
      "v99.olctc.json: manifest version 99 is not supported (this olctc reads version 1)", runner="sub"),
    C("manifest-not-json", "decode cut.olctc.json m.highs.sol -o o.json",
      "cut.olctc.json: not a valid manifest (JSON error: Expecting property name enclosed in double quotes: "
      "line 1 column 43 (char 42))"),
    C("manifest-not-utf8", "decode latin.olctc.json m.highs.sol -o o.json",
      "latin.olctc.json: not a valid manifest (JSON error: 'utf-8' codec can't decode byte 0xff in position 0: "
      "invalid start byte)"),
    C("manifest-a-list", "decode list.olctc.json m.highs.sol -o o.json",
      'list.olctc.json: not an olctc manifest (no "format": "olctc-manifest")'),
    C("manifest-without-model", "decode nomodel.olctc.json m.highs.sol -o o.json",
      "nomodel.olctc.json: damaged manifest: field 'model' is missing or malformed; compile again"),
    C("manifest-spec-not-object", "decode nospec.olctc.json m.highs.sol -o o.json",
      "nospec.olctc.json: damaged manifest: field 'spec' is missing or malformed; compile again"),
    C("manifest-is-folder", "decode folder m.highs.sol -o o.json",
      "Invalid value for 'MANIFEST': File 'folder' is a directory. " + HELP.format("decode")),
    C("manifest-training-data-gone", "decode gone.olctc.json m.highs.sol -o o.json",
      "the training data gone.csv is not there; pass its path with --data (data= in Python)"),
    # --data given and missing: the advice was to pass --data (QA 2026-12-05)
    C("decode-data-given-missing", "decode m.olctc.json m.highs.sol --data nosuch.csv -o o.json",
      "the training data nosuch.csv does not exist: give the path of the file it was made from"),
    # ---- decode options and solution files
    C("decode-unknown-format", "decode m.olctc.json m.highs.sol --format xml -o o.json",
      "The 'format' parameter (--format) must be one of cplex, gurobi, scip, cbc, glpk, highs, xpress, copt (or none, "
      "to detect it from the content). Got 'xml' instead."),
    C("decode-format-mismatch", "decode m.olctc.json m.highs.sol --format cbc -o o.json",
      "m.highs.sol: expected a CBC solution file (first line '<status> - objective value <v>'), got a HiGHS file"),
    C("decode-output-folder-missing", "decode m.olctc.json m.highs.sol -o nodir/o.json",
      "cannot write nodir/o.json: folder nodir does not exist"),
    C("decode-output-is-the-manifest", "decode m.olctc.json m.highs.sol -o m.olctc.json",
      "-o m.olctc.json is also the input manifest; write to another file"),
    C("decode-output-is-the-solution", "decode m.olctc.json m.highs.sol -o ./m.highs.sol",
      "-o ./m.highs.sol is also the input solution; write to another file"),
    C("decode-output-is-the-model", "decode m.olctc.json m.highs.sol -o m.mps",
      "-o m.mps is also the input model; write to another file"),
    C("decode-output-is-the-training-data", "decode m.olctc.json m.highs.sol -o tiny.csv",
      "-o tiny.csv is also the input data; write to another file"),
    # the hash first: a replaced file is "changed", whatever else is wrong with it (too short, other labels)
    C("decode-data-too-short", "decode m.olctc.json m.highs.sol --data one.csv -o o.json",
      "one.csv: the data changed since compile (sha256 {sha:one.csv}... != {sha:tiny.csv}...)"),
    C("decode-data-relabelled", "decode m.olctc.json m.highs.sol --data relabelled.csv -o o.json",
      "relabelled.csv: the data changed since compile (sha256 {sha:relabelled.csv}... != {sha:tiny.csv}...)"),
    C("decode-data-changed", "decode m.olctc.json m.highs.sol --data other.csv -o o.json",
      "other.csv: the data changed since compile (sha256 {sha:other.csv}... != {sha:tiny.csv}...)"),
    C("solution-unknown-column", "decode m.olctc.json unknown.sol -o o.json",
      "unknown.sol: column 'zzz_0' is not in this model: the solution belongs to another model"),
    C("solution-huge-unknown-column", "decode m.olctc.json huge.sol -o o.json",
      "huge.sol: column '" + "z" * 57 + "...' is not in this model: the solution belongs to another model"),
    C("solution-is-a-mip-start", "decode m.olctc.json m.start.cbc -o o.json",
      "m.start.cbc: expected a solver's solution file, got the MIP start compile wrote (m.start.cbc, olctc's warm "
      "start); pass the file the solver wrote (NAME.solvers.txt shows each solver's command)"),
    # said before the model is rebuilt from the data (a6a at depth 4: 8 s and 1.7 GB first; QA 2026-12-05)
    C("solution-is-a-mip-start-before-the-data", "decode m.olctc.json m.start.highs.sol --data other.csv -o o.json",
      "m.start.highs.sol: expected a solver's solution file, got the MIP start compile wrote (m.start.highs.sol, "
      "olctc's warm start); pass the file the solver wrote (NAME.solvers.txt shows each solver's command)"),
    C("solution-is-the-model", "decode m.olctc.json m.mps -o o.json",
      "m.mps:1: expected a solution file of a known format (cplex, gurobi, scip, cbc, glpk, highs, xpress, copt), "
      "got 'NAME m FREE'"),
    C("solution-is-a-folder", "decode m.olctc.json folder -o o.json",
      "Invalid value for 'SOLUTION': File 'folder' is a directory. " + HELP.format("decode")),
    C("solution-of-another-model-gurobi", "decode m.olctc.json {sample}/gurobi_solution.sol -o o.json",
      "{sample}/gurobi_solution.sol: column 'x' is not in this model: the solution belongs to another model"),
    C("solution-of-another-model-glpk", "decode m.olctc.json {sample}/glpk_solution_w.txt -o o.json",
      "{sample}/glpk_solution_w.txt:8: the file holds 6 columns (its 's' line) and the model 25: "
      "the solution belongs to another model"),
    # ---- tree files (export / predict / explain)
    C("export-unknown-format", "export tree.json --format xml -o o.xml",
      "unknown export format 'xml'; expected one of json, python, onnx, sql, text, dot, png, svg"),
    C("export-png-to-stdout", "export tree.json --format png",
      "--format png writes binary data: give an output file with -o FILE"),
    C("export-output-is-the-tree", "export tree.json --format json -o tree.json",
      "-o tree.json is also the input tree; write to another file"),
    C("export-output-folder-missing", "export tree.json --format python -o nodir/t.py",
      "cannot write nodir/t.py: folder nodir does not exist"),
    C("tree-version-99", "export t99.json --format text",
      "t99.json: unsupported olctc-tree version 99; this olctc reads version 1 (written by a newer olctc: upgrade)"),
    C("tree-version-true", "export tbool.json --format text", "tbool.json: version: expected an integer, got true"),
    # predict wrote the columns proba_1, proba_1 and the label "1" for both classes
    C("predict-arguments-swapped", "predict tiny.csv tree.json -o p.csv",
      "tiny.csv: not an olctc tree file (a tree file is a JSON object, written by fit, decode or export --format "
      "json; are the arguments swapped?)"),
    C("tree-classes-same-as-text", "predict tsame.json tiny.csv -o p.csv",
      "tsame.json: classes: expected two labels that differ as text, got [1, '1']"),
    # scikit-learn's own message spoke of "test_size = 6" (a count) next to our test size 0.9 (a share)
    C("fit-split-leaves-no-training-part", "fit tiny.csv --target y --test-size 0.9 -o t.json",
      "cannot split 6 points with test size 0.9: the test part would hold 6 and the training part 0, and a "
      "stratified split needs at least 2 in each (one of each class); use more points, another test size, or 0"),
    C("tree-depth-0", "export tdepth.json --format text", "tdepth.json: depth: expected an integer in [1, 30], got 0"),
    C("tree-foreign-format", "export tformat.json --format dot",
      "tformat.json: format: expected 'olctc-tree' (not an olctc tree file?), got 'sklearn-tree'"),
    C("tree-unknown-field", "export textra.json --format text",
      "textra.json: top level: expected only the fields ['classes', 'columns', 'depth', 'feature_names', "
      "'format', 'meta', 'nodes', 'olctc_version', 'raw', 'scaler', 'version'], got 'extra'"),
    C("tree-zero-scale", "export tscale.json --format text",
      "tscale.json: scaler.scale: expected positive numbers, got 0.0"),
    C("tree-text-weight", "export tweight.json --format text",
      "tweight.json: nodes.W[0][0]: expected a finite number, got 'x'"),
    C("tree-raw-disagrees", "export traw.json --format text",
      "traw.json: raw.W/raw.b disagree with nodes.W, nodes.b and the scaler (edited by hand? raw is derived: "
      "delete it or fix nodes)"),
    C("tree-three-classes", "predict tclasses.json feat.csv",
      "tclasses.json: classes: expected a list of two labels (numbers or strings), got a list of 3"),
    C("tree-nan-literal", "export tnan.json --format text", "tnan.json: not valid JSON (NaN is not valid JSON)"),
    C("tree-binary", "export tbin.json --format text", "tbin.json: not UTF-8 text (byte 0x89 at offset 0); "
      "not an olctc tree file?"),
    C("tree-empty", "explain tempty.json --data feat.csv --row 0",
      "tempty.json: not valid JSON (line 1 column 1: Expecting value); the file is corrupted or truncated"),
    C("tree-a-list", "export tlist.json --format text", "tlist.json: top level: expected a JSON object, got a "
                                                        "list of 1"),
    C("tree-is-folder", "export folder --format text",
      "Invalid value for 'TREE': File 'folder' is a directory. " + HELP.format("export")),
    # ---- predict
    C("predict-missing-column", "predict tree.json miss.csv",
      "miss.csv: feature column 'b' is missing (1 missing: 'b'); the tree needs 3 columns"),
    C("predict-unknown-id-column", "predict tree.json cat.csv --id-column id",
      "cat.csv: --id-column 'id' is not a column; columns are: a, b, c, y"),
    C("predict-empty-csv", "predict tree.json empty.csv", "empty.csv: the file is empty"),
    # a 1 MB cell used to make a 1 MB error line
    C("predict-huge-cell", "predict tree.json hugecell.csv",
      "hugecell.csv: column 'b' line 3: expected a number, got '" + "7" * 56 + "..."),
    C("compile-huge-cell", "compile hugecell.csv --target y -o x.mps",
      "hugecell.csv: column 'b' line 3: expected a number, got '" + "7" * 56 + "..."),
    C("predict-ragged-csv", "predict tree.json ragged.csv", "ragged.csv: line 3 has 2 fields, the header has 3"),
    C("predict-duplicate-header", "predict tree.json dup.csv", "dup.csv: the header names column 'b' twice"),
    C("predict-output-is-the-data", "predict tree.json feat.csv -o feat.csv",
      "-o feat.csv is also the input data; write to another file"),
    C("predict-output-is-the-tree", "predict tree.json feat.csv -o ./tree.json",
      "-o ./tree.json is also the input tree; write to another file"),
    C("predict-output-folder-missing", "predict tree.json feat.csv -o nodir/p.csv",
      "cannot write nodir/p.csv: folder nodir does not exist"),
    # ---- explain
    C("explain-row-out-of-range", "explain tree.json --data tiny.csv --row 6",
      "--row 6 is out of range: tiny.csv has 6 data row(s) (0 to 5)"),
    C("explain-no-rows", "explain tree.json --data header.csv --row 0",
      "--row 0 is out of range: header.csv has 0 data row(s) (none)"),
    C("explain-top-0", "explain tree.json --data tiny.csv --row 0 --top 0", "--top must be at least 1; got 0"),
    C("explain-tree-version-99", "explain t99.json --data tiny.csv --row 0",
      "t99.json: unsupported olctc-tree version 99; this olctc reads version 1 (written by a newer olctc: upgrade)"),
    C("explain-missing-column", "explain tree.json --data miss.csv --row 1",
      "miss.csv: feature column 'b' is missing (1 missing: 'b'); the tree needs 3 columns"),
]


def snapshot(folder: Path) -> dict[str, tuple[int, int]]:
    return {str(p.relative_to(folder)): (p.stat().st_size, p.stat().st_mtime_ns)
            for p in folder.rglob("*")}


def expand(text: str, base: Path) -> str:
    text = text.replace("{sample}", str(SAMPLES)).replace("{base}", str(base))
    while "{sha:" in text:
        start = text.index("{sha:")
        end = text.index("}", start)
        text = text[:start] + sha12(base / text[start + 5:end]) + text[end + 1:]
    return text


def test_table_is_big_and_unique():
    assert len(CASES) >= 40
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case, base: Path, capsys, monkeypatch):
    monkeypatch.chdir(base)
    args = [expand(a, base) for a in case.args]
    before = snapshot(base)
    if case.runner == "sub":
        code, out, err = run_sub(args, base)
    else:
        code, out, err = run_main(args, capsys)
    assert "Traceback" not in err, err
    assert err == f"error: {expand(case.message, base)}\n", err
    assert code == 2, (code, out, err)
    assert snapshot(base) == before, "the failed command left or changed files"


# ---------------------------------------------------------------- arrays passed to the library

ARRAY_CASES = [
    ("text-X", lambda: from_arrays([["a", "b"], ["c", "d"]], [0, 1]),
     "X must be numeric; encode text columns first (or use a CSV file)"),
    ("ragged-X", lambda: from_arrays([[1.0, 2.0], [3.0]], [0, 1]),
     "X must be numeric; encode text columns first (or use a CSV file)"),
    ("1-D-X", lambda: from_arrays([1.0, 2.0, 3.0], [0, 1, 0]), "X must be a 2-D array; got 1 dimension(s)"),
    ("3-D-X", lambda: from_arrays(np.zeros((2, 2, 2)), [0, 1]), "X must be a 2-D array; got 3 dimension(s)"),
    ("2-D-y", lambda: from_arrays(np.zeros((3, 2)), [[0], [1], [0]]),
     "y must be 1-D with one label per row of X (3); got shape (3, 1)"),
    ("scalar-y", lambda: from_arrays(np.zeros((3, 2)), 5),
     "y must be 1-D with one label per row of X (3); got shape ()"),
    ("one-row", lambda: from_arrays(np.zeros((1, 2)), [0]), "at least 2 points are needed; got 1"),
    ("minus-inf", lambda: from_arrays([[1.0, 2.0], [1.0, -np.inf]], [0, 1]),
     "X has a non-finite value -inf at row 1, column 1"),
    ("None-in-object-X", lambda: from_arrays(np.array([[1, None], [2, 3]], dtype=object), [0, 1]),
     "X has a missing value (NaN) at row 0, column 1; fill or drop missing values"),
    ("one-class", lambda: from_arrays(np.zeros((3, 2)), [1, 1, 1]),
     "arrays: target 'y' has one class only (1); a classifier needs two"),
    ("three-classes", lambda: from_arrays(np.zeros((3, 2)), ["a", "b", "c"], name="mine"),
     "mine: target 'y' has 3 classes ['a', 'b', 'c']; olctc trains binary trees: pick one with "
     "--positive-class, positive_class= in Python (one class against the rest)"),
    ("unknown-positive-class", lambda: from_arrays(np.zeros((3, 2)), [1, 2, 1], positive_class=5),
     "arrays: positive class 5 is not a value of target 'y'; its values are [1, 2]"),
    ("feature-names-length", lambda: from_arrays(np.zeros((3, 2)), [1, 2, 1], feature_names=["a"]),
     "feature_names has 1 name(s) for the 2 column(s) of X"),
    ("no-columns", lambda: from_arrays(np.zeros((3, 0)), [1, 2, 1]),
     "X has no feature columns; at least 1 is needed"),
]


@pytest.mark.parametrize("make,message", [c[1:] for c in ARRAY_CASES], ids=[c[0] for c in ARRAY_CASES])
def test_bad_arrays(make, message):
    with pytest.raises(OlctcError) as exc:
        make()
    assert str(exc.value) == message
    assert "\n" not in str(exc.value)


def test_fit_refuses_to_overwrite_the_vendored_data_set(tmp_path, monkeypatch, capsys):
    """`fit --dataset NAME -o FILE` where FILE is the vendored data set's file: refused, the file untouched."""
    import olctc.datasets as datasets

    copy = tmp_path / "haberman.csv.gz"  # stands in for the installed package's file
    shutil.copy(datasets.dataset_path("haberman"), copy)
    before = copy.read_bytes()
    monkeypatch.setattr(datasets, "dataset_path", lambda name: copy)
    code, out, err = run_main(["fit", "--dataset", "haberman", "--depth", "1", "--solver", "highs", "--quiet",
                               "--time-limit", "20", "-o", copy], capsys)
    assert (code, err) == (2, f"error: -o {copy} is also the input data; write to another file\n"), (code, out, err)
    assert copy.read_bytes() == before


@pytest.mark.parametrize("command", [["fit", "--dataset", "heart", "--depth", "1", "--time-limit", "5", "--quiet"],
                                     ["compile", "--dataset", "heart"]])
def test_empty_output_name_is_refused_before_any_work(tmp_path, command):
    # Path("") is the current folder: fit used to fit, then fail with "cannot write : it is a folder"
    code, out, err = run_sub([*command, "-o", ""], tmp_path)
    assert (code, err) == (2, "error: cannot write '': give a file name\n"), err
    assert out == "" and list(tmp_path.iterdir()) == []


# ---------------------------------------------------------------- -o - and -o of another format

@pytest.mark.parametrize("args", [["predict", "tree.json", "tiny.csv", "--proba"],
                                  ["export", "tree.json", "--format", "text"],
                                  ["export", "tree.json", "--format", "json"],
                                  ["export", "tree.json", "--format", "python"]],
                         ids=["predict", "export-text", "export-json", "export-python"])
def test_dash_output_is_standard_output(args, base, tmp_path, monkeypatch, capsys):
    """`-o -` writes exactly what omitting -o writes to standard output; it wrote a file named '-'."""
    monkeypatch.chdir(tmp_path)
    command = [args[0], *(base / a if a.endswith((".json", ".csv")) else a for a in args[1:])]
    code, plain, err = run_main(command, capsys)
    assert code == 0, err
    code, dashed, err_dashed = run_main([*command, "-o", "-"], capsys)
    assert (code, err_dashed) == (0, err)
    assert dashed.encode() == plain.encode() and plain
    assert list(tmp_path.iterdir()) == []


DASH_REFUSED = [
    (["compile", "--dataset", "heart"],
     "-o - means standard output, which cannot hold compile's model file and the manifest, MIP start and "
     "parameter files it writes beside it; give a file name such as -o model.mps"),
    (["fit", "{base}/tiny.csv", "--target", "y", "--depth", "1", "--solver", "highs", "--quiet"],
     "-o - means standard output, where fit prints its log and summary; give a file name such as -o tree.json"),
    (["solve", "{base}/m.mps", "--solver", "highs", "--quiet"],
     "-o - means standard output, where solve prints its result and the solver's log; give a solution file "
     "name such as -o model.sol (or no -o: NAME.SOLVER.sol beside the model)"),
    (["decode", "{base}/m.olctc.json", "{base}/m.highs.sol"],
     "-o - means standard output, where decode prints its report; give a file name such as -o tree.json"),
    (["export", "{base}/tree.json", "--format", "png"],
     "-o - means standard output, and --format png is binary data, which olctc writes only to a file; give a "
     "file name such as -o tree.png"),
    (["export", "{base}/tree.json"],
     "-o - (standard output) has no suffix to tell the format: say which with --format (json, python, sql, "
     "text, dot, svg)"),
    (["bench", "models", "--models", "CART", "--datasets", "heart", "--seeds", "0"],
     "-o - means standard output, which cannot hold bench's folder of runs; give a folder name such as "
     "-o bench-runs"),
    (["grid", "--dataset", "heart", "--depth", "1", "--C-values", "1", "--folds", "2"],
     "-o - means standard output, which cannot hold grid's folder of instances and scripts; give a folder name "
     "such as -o grid"),
    (["collect", "{base}"],
     "-o - means standard output, where collect prints its table of scores; give a file name such as "
     "-o final_tree.json (or no -o: FOLDER/final_tree.json)"),
]


@pytest.mark.parametrize("args,message", DASH_REFUSED, ids=[c[0][0] + ("-png" if "png" in c[0] else "-noformat"
                                                                     if c[0][0] == "export" else "")
                                                              for c in DASH_REFUSED])
def test_dash_output_is_refused_where_standard_output_cannot_take_it(args, message, base, tmp_path, monkeypatch,
                                                                     capsys):
    """Several files, a folder, binary data or a command that prints its own report: one line, exit 2, before
    any work, and no file named '-' (nor any other) left behind."""
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main([a.format(base=base) for a in args] + ["-o", "-"], capsys)
    assert (code, out, err) == (2, "", f"error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_dot_slash_dash_still_names_a_file(base, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(["export", base / "tree.json", "--format", "text", "-o", "./-"], capsys)
    assert code == 0, err
    assert (tmp_path / "-").read_text().startswith("olctc tree")


class _FitStarted(Exception):
    pass


def _no_fit(*args, **kwargs):
    raise _FitStarted


@pytest.mark.parametrize("name,message", [
    ("t.csv", "-o t.csv: fit writes a tree file (JSON), not CSV (.csv is what `olctc predict TREE DATA.csv -o t.csv` "
              "writes); name it t.json"),
    ("t.onnx", "-o t.onnx: fit writes a tree file (JSON), not ONNX (.onnx is what `olctc export TREE -o t.onnx` "
               "writes); name it t.json"),
    ("t.v2.mps", "-o t.v2.mps: fit writes a tree file (JSON), not an MPS model (.mps is what `olctc compile "
                 "DATA.csv --target COLUMN -o t.v2.mps` writes); name it t.v2.json"),
    ("t.TXT", "-o t.TXT: fit writes a tree file (JSON), not text (.txt is what `olctc export TREE -o t.TXT` "
              "writes); name it t.json"),
    ("t.csv.gz", "-o t.csv.gz: fit writes a tree file (JSON), uncompressed, not gzip (.gz); name it t.json"),
    ("t.sql", "-o t.sql: fit writes a tree file (JSON), not SQL (.sql is what `olctc export TREE -o t.sql` "
              "writes); name it t.json"),
], ids=["csv", "onnx", "mps", "TXT", "csv.gz", "sql"])
def test_fit_refuses_an_output_of_another_format_before_fitting(name, message, tmp_path, monkeypatch, capsys):
    """`fit -o t.csv` fitted for minutes, then wrote the JSON tree into t.csv."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("olctc.fit.fit", _no_fit)
    code, out, err = run_main(["fit", "--dataset", "heart", "--depth", "1", "--quiet", "-o", name], capsys)
    assert (code, out, err) == (2, "", f"error: {message}\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["tree.json", "tree.JSON", "tree", "tree.v2", "tree.yaml"])
def test_fit_accepts_json_and_unknown_suffixes(name, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("olctc.fit.fit", _no_fit)
    with pytest.raises(_FitStarted):
        main(["fit", "--dataset", "heart", "--depth", "1", "--quiet", "-o", name])


@pytest.mark.parametrize("args,message", [
    (["predict", "{base}/tree.json", "{base}/tiny.csv", "-o", "p.json"],
     "-o p.json: predict writes predictions (CSV), not JSON (.json is what `olctc export TREE -o p.json` writes); "
     "name it p.csv"),
    (["decode", "{base}/m.olctc.json", "{base}/m.highs.sol", "-o", "t.csv"],
     "-o t.csv: decode writes a tree file (JSON), not CSV (.csv is what `olctc predict TREE DATA.csv -o t.csv` "
     "writes); name it t.json"),
    (["collect", "{base}", "-o", "t.png"],
     "-o t.png: collect writes a tree file (JSON), not PNG (.png is what `olctc export TREE -o t.png` writes); "
     "name it t.json"),
], ids=["predict", "decode", "collect"])
def test_fixed_format_outputs_refuse_another_format(args, message, base, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main([a.format(base=base) for a in args], capsys)
    assert (code, out, err) == (2, "", f"error: {message}\n")
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_a_format_other_than_its_output_suffix(base, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)  # --format svg -o t.png wrote SVG text into t.png
    code, out, err = run_main(["export", base / "tree.json", "--format", "svg", "-o", "t.png"], capsys)
    assert (code, out, err) == (2, "", "error: -o t.png is the name of a png file, but --format is svg: name it "
                                       "t.svg, or leave --format out\n")
    assert list(tmp_path.iterdir()) == []
    code, _, err = run_main(["export", base / "tree.json", "--format", "python", "-o", "t.onnx"], capsys)
    assert (code, err) == (2, "error: -o t.onnx is the name of an onnx file, but --format is python: name it t.py, "
                              "or leave --format out\n")  # not "a onnx"
    code, _, err = run_main(["export", base / "tree.json", "--format", "text", "-o", "rules.out"], capsys)
    assert code == 0 and (tmp_path / "rules.out").exists(), err  # a suffix export does not know is the user's


def test_predict_accepts_txt(base, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_main(["predict", base / "tree.json", base / "tiny.csv", "-o", "p.txt"], capsys)
    assert code == 0, err
    assert (tmp_path / "p.txt").read_text().startswith("prediction\n")


def test_a_huge_value_given_for_a_parameter_is_cut_in_the_message():
    """load_tree(a tree's dict) printed the whole record (kilobytes) as the 'got' of a one-line error."""
    import olctc
    from olctc.tree import Tree

    record = Tree.from_arrays([[1.0] * 300], [0.0]).to_dict()
    with pytest.raises(OlctcError) as err:
        olctc.load_tree(record)
    text = str(err.value)
    assert "'text_or_path' parameter" in text and "format" in text and len(text) < 400 and "\n" not in text


MEMORY_CAPPED = """
import resource, sys
import numpy, scipy.sparse, sklearn.linear_model, olctc.cli, olctc.compile, olctc.emit.mps, olctc.warmstart  # noqa
vm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmSize:")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 400 * 2**20, resource.getrlimit(resource.RLIMIT_AS)[1]))
olctc.cli.main(sys.argv[1:])
"""


def test_running_out_of_memory_is_one_line_and_leaves_nothing(tmp_path):
    """A model too large for the memory left printed numpy's 30-line _ArrayMemoryError traceback (QA
    2026-12-05). The process gets 400 MB beyond what its imports take; w5a at depth 3 needs about 2.3 GB."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")  # its threads' buffers would take the 400 MB
    p = subprocess.run([sys.executable, "-c", MEMORY_CAPPED, "compile", "--dataset", "w5a", "--depth", "3",
                        "--paper-form", "-o", "big.mps"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 1, p.stderr[-2000:]
    assert p.stderr.startswith("error: out of memory (Unable to allocate ") and p.stderr.count("\n") == 1, p.stderr
    assert "make the job smaller: a smaller --depth" in p.stderr and "Traceback" not in p.stderr
    assert sorted(os.listdir(tmp_path)) == []


def test_an_explicit_max_nonzeros_replaces_the_default_memory_budget():
    from olctc.compile import BYTES_PER_NONZERO, BYTES_PER_ROW, check_size, estimate_size
    from olctc.datasets import load
    from olctc.spec import make_spec

    ds = load("svmguide1")
    spec = make_spec("olct", 12, score_variables=True)
    est = estimate_size(ds.n, ds.p, spec)
    assert est.memory == BYTES_PER_NONZERO * est.nonzeros + BYTES_PER_ROW * est.rows > 16 * 2**30
    with pytest.raises(OlctcError, match="building it would take about 36 GB of memory"):
        check_size(ds.n, ds.p, spec)
    assert check_size(ds.n, ds.p, spec, max_nonzeros=est.nonzeros) == est  # the user's own budget: theirs
    assert check_size(ds.n, ds.p, make_spec("olct", 10, score_variables=True)).memory < 16 * 2**30
