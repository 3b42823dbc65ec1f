"""QA of tree use (export, predict, explain) on a real fit: extreme values, trees without some statistics,
the generated module given a pandas Series."""
from __future__ import annotations

import csv
import json
import subprocess
import sys

import numpy as np
import pytest

from olctc.errors import OlctcError
from olctc.export.json import load
from olctc.export.onnx import session, to_onnx
from olctc.export.python import to_python

BIG = 1.79e308  # finite, near the largest float64


def _olctc(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def _write_csv(path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


@pytest.fixture(scope="module")
def fitted(tmp_path_factory):
    """A depth-2 univariate tree (optimal in about 2 s) on features of scale 1e-3, so raw weights near 1e3;
    and its training rows (encoded)."""
    folder = tmp_path_factory.mktemp("qa_tree_use")
    rng = np.random.default_rng(0)
    u, v, w = rng.normal(size=40), rng.normal(size=40), rng.normal(size=40)
    y = np.where(u > 0, w > 0, v > 0)
    rows = [[float(f"{a / 1000:.6g}"), float(f"{b / 1000:.6g}"), float(f"{c / 1000:.6g}")] for a, b, c in zip(u, v, w)]
    _write_csv(folder / "uvw.csv", ["u", "v", "w", "y"], [r + ["yes" if d else "no"] for r, d in zip(rows, y)])
    p = _olctc("fit", "uvw.csv", "--target", "y", "--preset", "olct-univariate", "--C", "10", "--depth", "2",
               "--time-limit", "60", "--threads", "1", "--test-size", "0", "-o", "tree.json", cwd=folder)
    assert p.returncode == 0, p.stderr[-2000:]
    return folder, load(folder / "tree.json"), np.array(rows)


def test_a_node_off_the_path_that_overflows_does_not_stop_the_prediction(fitted):
    # A row whose feature j overflows only a last-layer node it does not reach: the generated code and the
    # ONNX graph predicted it, Tree.predict and `olctc predict` refused it ("the score of node 1 overflows").
    folder, tree, X = fitted
    Wr = tree.W_raw
    t, j = next((t, j) for t in (1, 2) for j in np.flatnonzero(Wr[t]) if Wr[0, j] == 0 and Wr[3 - t, j] == 0)
    assert abs(Wr[t, j]) > 10, Wr
    row = X[tree.apply(X) == 3 - t][0].copy()
    row[j] = BIG
    assert tree.apply([row])[0] == 3 - t
    expected = tree.predict_proba([row])[0]
    label, proba = session(to_onnx(tree)).run(None, {"input": row[None, :]})
    assert proba[0].tolist() == pytest.approx(expected.tolist(), abs=1e-15)
    assert label[0] == tree.predict([row])[0]
    (folder / "tree.py").write_text(to_python(tree), encoding="utf-8")
    code = f"import runpy, json; m = runpy.run_path('tree.py'); print(json.dumps(m['predict_proba']({row.tolist()!r})))"
    p = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=folder, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout) == expected.tolist()
    _write_csv(folder / "offpath.csv", ["u", "v", "w"], [[repr(x) for x in row.tolist()]])
    p = _olctc("predict", "tree.json", "offpath.csv", "--proba", cwd=folder)
    assert p.returncode == 0, p.stderr
    assert [float(x) for x in p.stdout.splitlines()[1].split(",")[1:]] == expected.tolist()
    # a node on the path that overflows is still an error
    row = X[tree.apply(X) == t][0].copy()
    row[j] = BIG
    with pytest.raises(OlctcError, match=f"^row 0: the score of node {t} overflows"):
        tree.predict([row])


def test_explain_json_when_the_standardised_value_overflows(fitted):
    # x / scale overflowed where w_raw * x did not: explain printed a contribution of +inf beside a finite
    # score, and explain --json died with "ValueError: Out of range float values are not JSON compliant".
    folder, tree, X = fitted
    (j,) = np.flatnonzero(tree.W[0])
    row = X[0].copy()
    row[j] = 0.999 * BIG / tree.W_raw[0, j]
    with np.errstate(over="ignore"):
        assert abs(tree.W[0, j]) < 0.99 and np.isinf(abs(np.float64(row[j])) / tree.scaler.scale[j])
    tree.predict([row])  # the path is finite
    _write_csv(folder / "huge.csv", ["u", "v", "w"], [[repr(x) for x in row.tolist()]])
    p = _olctc("explain", "tree.json", "--data", "huge.csv", "--row", "0", "--json", cwd=folder)
    assert p.returncode == 0, p.stderr[-2000:]
    root = json.loads(p.stdout)["path"][0]
    (c,) = [c["contribution"] for c in root["contributions"]]
    assert c == pytest.approx(root["score"] - root["bias"], rel=1e-12)
    p = _olctc("explain", "tree.json", "--data", "huge.csv", "--row", "0", cwd=folder)
    assert p.returncode == 0 and "inf" not in p.stdout and not p.stderr, p.stdout + p.stderr


@pytest.mark.parametrize("fmt", ["text", "dot", "svg"])
def test_exports_of_a_tree_with_counts_but_no_positive_counts(fitted, fmt):
    # The schema makes nodes.n and nodes.pos optional each; with n but no pos, text, dot and pictures died
    # with "TypeError: 'NoneType' object is not subscriptable".
    folder, _, _ = fitted
    d = json.loads((folder / "tree.json").read_text(encoding="utf-8"))
    d["nodes"]["pos"] = None
    (folder / "nopos.json").write_text(json.dumps(d), encoding="utf-8")
    p = _olctc("export", "nopos.json", "--format", fmt, "-o", f"nopos.{fmt}", cwd=folder)
    assert p.returncode == 0, p.stderr[-2000:]
    text = (folder / f"nopos.{fmt}").read_text(encoding="utf-8")
    if fmt != "svg":  # the picture's text is drawn as glyphs
        assert "n=40 (100.0%)" in text and "positive" not in text.replace("P(", "")


def test_explain_top_below_one_is_refused(fitted):
    # top=-1 sliced [:-1]: the last contribution was dropped without a word
    _, tree, X = fitted
    with pytest.raises(OlctcError, match=r"^top must be at least 1; got -1$"):
        tree.explain(X[0], top=-1)


def test_generated_module_reads_a_pandas_series_by_name(fitted):
    # predict(df.iloc[0]) took the Series' values in its own order: columns w, v, u were read as u, v, w
    pytest.importorskip("pandas")
    folder, tree, _ = fitted
    (folder / "tree.py").write_text(to_python(tree), encoding="utf-8")
    row = {"u": 0.002, "v": -0.001, "w": -0.002}
    code = ("import runpy, json, pandas as pd; m = runpy.run_path('tree.py'); "
            f"s = pd.DataFrame([{row!r}])[['w', 'v', 'u']].iloc[0]; print(json.dumps(m['predict_proba'](s)))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=folder, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    assert json.loads(p.stdout) == tree.predict_proba([[row["u"], row["v"], row["w"]]])[0].tolist()
