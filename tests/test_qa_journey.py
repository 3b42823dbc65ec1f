"""A new user's journey (own CSV with empty cells and an id column; predict on reordered columns; ONNX and
Python exports; external solvers' time limits): what the help texts and docs now say, checked against what
olctc does."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from conftest import cli_main

ROOT = Path(__file__).resolve().parent.parent

#: 24 rows, two numeric columns, a text column, an id column, a yes/no target; row 3 has an empty 'a'.
ROWS = [(f"id{i}", f"{(i * 7) % 11 - 5:.1f}", f"{(i * 5) % 7 - 3:.2f}", "xyz"[i % 3], "yes" if (i * 7) % 11 > 5 else "no")
        for i in range(24)]


def _csv(path: Path, rows, empty_a_row: int | None = None) -> Path:
    lines = ["id,a,b,city,target"]
    for k, (i, a, b, c, y) in enumerate(rows):
        lines.append(",".join([i, "" if k == empty_a_row else a, b, c, y]))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_drop_help_says_empty_cells_are_refused_and_fit_does_so(tmp_path, capsys):
    code, out, _ = cli_main(["fit", "--help"], capsys)
    assert code == 0
    drop_help = " ".join(out.split("--drop COLUMN", 1)[1].split("--weight-column", 1)[0].split())
    assert "empty cells" in drop_help and "does not impute" in drop_help
    data = _csv(tmp_path / "d.csv", ROWS, empty_a_row=3)
    code, _, err = cli_main(["fit", data, "--target", "target", "--drop", "id", "--depth", "1",
                             "--time-limit", "5", "--quiet", "-o", tmp_path / "t.json"], capsys)
    assert code == 2 and "empty cell" in err and "'a'" in err
    # as the help says, --drop of the column with the empty cell is the way out
    code, _, err = cli_main(["fit", data, "--target", "target", "--drop", "id", "--drop", "a", "--depth", "1",
                             "--time-limit", "5", "--quiet", "-o", tmp_path / "t.json"], capsys)
    assert code == 0, err


def test_predict_help_says_columns_match_by_name_and_they_do(tmp_path, capsys):
    code, out, _ = cli_main(["predict", "--help"], capsys)
    assert code == 0
    assert "matched by name, in any order" in " ".join(out.split())
    data = _csv(tmp_path / "d.csv", ROWS)
    code, _, err = cli_main(["fit", data, "--target", "target", "--drop", "id", "--depth", "1",
                             "--time-limit", "5", "--quiet", "-o", tmp_path / "t.json"], capsys)
    assert code == 0, err
    new = tmp_path / "new.csv"
    new.write_text("city,b,id,a,extra\n" + "".join(f"{c},{b},{i},{a},1\n" for i, a, b, c, _ in ROWS[:5]))
    code, reordered, err = cli_main(["predict", tmp_path / "t.json", new, "--proba"], capsys)
    assert code == 0 and "ignoring" in err
    code, plain, _ = cli_main(["predict", tmp_path / "t.json", data, "--proba"], capsys)
    assert code == 0 and plain.splitlines()[:6] == reordered.splitlines()


def _onnx_inputs(path: Path):
    ort = pytest.importorskip("onnxruntime")
    s = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return s, [(i.name, i.type, i.shape) for i in s.get_inputs()], [o.name for o in s.get_outputs()]


def test_export_help_states_the_onnx_interface_and_the_graph_has_it(tmp_path, capsys):
    pytest.importorskip("onnx")
    code, out, _ = cli_main(["export", "--help"], capsys)
    assert code == 0
    text = " ".join(out.split())
    assert "one input 'input', double (float64)" in text and "one (N, 1) input per column" in text
    assert "'label'" in text and "'probabilities'" in text and "one row per call" in text
    numeric = tmp_path / "num.csv"
    numeric.write_text("a,b,target\n" + "".join(f"{a},{b},{y}\n" for _, a, b, _, y in ROWS))
    mixed = _csv(tmp_path / "mixed.csv", ROWS)
    for data, extra in ((numeric, []), (mixed, ["--drop", "id"])):
        tree = tmp_path / f"{data.stem}.json"
        code, _, err = cli_main(["fit", data, "--target", "target", "--depth", "1", "--time-limit", "5",
                                 "--quiet", *extra, "-o", tree], capsys)
        assert code == 0, err
        assert cli_main(["export", tree, "-o", tmp_path / f"{data.stem}.onnx"], capsys)[0] == 0
    s, inputs, outputs = _onnx_inputs(tmp_path / "num.onnx")
    assert inputs == [("input", "tensor(double)", ["N", 2])] and outputs == ["label", "probabilities"]
    X = np.array([[float(a), float(b)] for _, a, b, _, _ in ROWS])
    label, proba = s.run(None, {"input": X})
    assert proba.shape == (24, 2) and set(label) <= {"no", "yes"}
    _, inputs, outputs = _onnx_inputs(tmp_path / "mixed.onnx")
    assert [(n, t) for n, t, _ in inputs] == [("a", "tensor(double)"), ("b", "tensor(double)"),
                                              ("city", "tensor(string)")]
    assert all(shape == ["N", 1] for _, _, shape in inputs) and outputs == ["label", "probabilities"]


def test_docs_name_each_programs_time_limit_flag_and_compile_writes_none(tmp_path, capsys):
    formats = (ROOT / "docs" / "FORMATS.md").read_text()
    assert "## 7. Time limits on the command line" in formats
    section = formats.split("## 7. Time limits on the command line", 1)[1]
    for flag in ("--time_limit", "-sec", "--tmlim", "set limits time", "TimeLimit", "timelimit"):
        assert flag in section
    readme = (ROOT / "README.md").read_text()
    assert "docs/FORMATS.md (section 7)" in readme and "olctc does not impute" in readme
    # the claim the section starts from: compile's command lines and parameter files carry no time limit
    data = _csv(tmp_path / "d.csv", ROWS)
    code, _, err = cli_main(["compile", data, "--target", "target", "--drop", "id", "--depth", "1",
                             "-o", tmp_path / "m.mps"], capsys)
    assert code == 0, err
    for name in ("m.solvers.txt", "m.highs.opt", "m.scip.set", "m.gurobi.prm", "m.cplex.prm", "m.cbc.args"):
        text = (tmp_path / name).read_text()
        if name == "m.solvers.txt":  # its command lines set none; one line says so and names each flag
            hint = [ln for ln in text.splitlines() if ln.startswith("  No time limit is set above; add ")]
            assert len(hint) == 1 and all(f in hint[0] for f in ("--time_limit S", "-sec S (before -solve)",
                                                                 "--tmlim S", "set limits time S"))
            text = text.replace(hint[0], "")
        assert not re.search(r"time_limit|-sec\b|--tmlim|limits/time|TimeLimit", text), name
