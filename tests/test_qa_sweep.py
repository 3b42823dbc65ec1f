"""QA sweep over the vendored data: the fit -> tree -> exports chain checked independently of olctc's own
code (the objective recomputed in numpy from the raw CSV, the split redrawn with scikit-learn), the four
ways to predict agreeing on extreme rows and unseen categories, and a row whose path score overflows."""
from __future__ import annotations

import csv
import gzip
import io
import json
import subprocess
import sys

import numpy as np
import pytest
from sklearn.model_selection import train_test_split

from olctc import load_dataset
from olctc.datasets import dataset_path
from olctc.errors import OlctcError
from olctc.export.json import load
from olctc.export.onnx import feeds, session, to_onnx
from olctc.export.python import to_python


BIG = 1.7e308  # finite; times a weight above about 1.06 it overflows


def _olctc(*args, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "olctc.cli", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def _raw(name: str) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a vendored data set's CSV, as text (label column ``y`` last)."""
    with gzip.open(dataset_path(name), "rt", newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def _label(s: str):
    for kind in (int, float):
        try:
            return kind(s)
        except ValueError:
            pass
    return s


def _encode(columns: list[dict], cells: dict[str, list[str]], n: int) -> np.ndarray:
    """The encoding the tree file's columns describe, written again: numbers, one-hot categories."""
    blocks = []
    for c in columns:
        v = cells[c["name"]]
        if c["kind"] == "numeric":
            blocks.append(np.array([float(x) for x in v]).reshape(n, 1))
        else:
            blocks.append(np.array([[float(x == k) for k in c["categories"]] for x in v]).reshape(n, -1))
    return np.hstack(blocks)


@pytest.fixture(scope="module")
def fits(tmp_path_factory):
    """breast depth 2 (5 s limit; 80/20 split), heart and tic-tac-toe depth 1 (optimal in well under 1 s)."""
    folder = tmp_path_factory.mktemp("qa_sweep")
    for name, depth, limit in (("breast", 2, 5), ("heart", 1, 20), ("tic-tac-toe", 1, 20)):
        p = _olctc("fit", "--dataset", name, "--depth", depth, "--time-limit", limit, "--threads", 1, "--quiet",
                   "-o", f"{name}.json", cwd=folder)
        assert p.returncode == 0 and "Warning" not in p.stderr, p.stderr[-2000:]
    return folder


def test_stated_objective_split_and_accuracy_recomputed_from_the_raw_data(fits):
    # Everything the tree file states, recomputed from the CSV text with numpy and scikit-learn only: the
    # scaler (population std), the split, the exact objective sum_h C_h sum_i log(1 + e^-u) + ||W||_1 on the
    # tree's own path, the node counts, refinement not worse, and the balanced accuracies.
    for name in ("breast", "heart", "tic-tac-toe"):
        d = json.loads((fits / f"{name}.json").read_text(encoding="utf-8"))
        meta, fit = d["meta"], d["meta"]["fit"]
        header, body = _raw(name)
        cells = {h: [r[k].strip() for r in body] for k, h in enumerate(header) if h != "y"}
        X = _encode(d["columns"], cells, len(body))
        y = np.array([1.0 if _label(r[-1]) == d["classes"][1] else -1.0 for r in body])
        tr, te = train_test_split(np.arange(len(body)), test_size=0.2, random_state=fit["seed"], stratify=y)
        tr, te = np.sort(tr), np.sort(te)
        assert (tr.size, te.size) == (fit["n_train"], fit["n_test"])
        mean, scale = np.array(d["scaler"]["mean"]), np.array(d["scaler"]["scale"])
        sd = X[tr].std(axis=0)
        assert np.allclose(mean, X[tr].mean(axis=0), rtol=1e-12, atol=1e-12)
        assert np.allclose(scale, np.where(sd > 0, sd, 1.0), rtol=1e-12)
        W, b = np.array(d["nodes"]["W"]), np.array(d["nodes"]["b"])
        S = (X - mean) / scale @ W.T + b
        node, path = np.zeros(len(body), dtype=int), []
        for _ in range(d["depth"]):
            path.append(node)
            node = np.where(S[np.arange(len(body)), node] > 0, 2 * node + 2, 2 * node + 1)
        C = meta["spec"]["C"]
        loss = sum(C[h] * np.logaddexp(0.0, -y[tr] * S[tr, path[h][tr]]).sum() for h in range(d["depth"]))
        exact = loss + np.abs(W).sum()
        assert meta["exact_objective"] == pytest.approx(exact, rel=1e-12)
        assert meta["refine"]["objective_after"] == meta["exact_objective"]
        assert meta["refine"]["objective_after"] <= meta["refine"]["objective_before"]
        assert d["nodes"]["n"] == [int(sum((p[tr] == t).sum() for p in path)) for t in range(W.shape[0])]
        # the labels `olctc predict` writes, scored on the recorded split
        (fits / f"{name}.csv").write_text("\n".join([",".join(h for h in header if h != "y")]
                                                   + [",".join(r[:-1]) for r in body]) + "\n", encoding="utf-8")
        p = _olctc("predict", f"{name}.json", f"{name}.csv", cwd=fits)
        assert p.returncode == 0 and not p.stderr, p.stderr
        pred = np.array([1 if _label(r[0]) == d["classes"][1] else -1 for r in csv.reader(io.StringIO(p.stdout))][1:])
        assert np.array_equal(pred, np.where(S[np.arange(len(body)), path[-1]] > 0, 1, -1))
        for part, rows in (("train", tr), ("test", te)):
            bacc = np.mean([np.mean(pred[rows][y[rows] == c] == c) for c in (-1, 1)])
            assert fit[f"{part}_balanced_accuracy"] == pytest.approx(bacc, abs=1e-15)


def _four_ways(folder, name: str, cells: dict[str, list]) -> dict[str, np.ndarray]:
    """P(classes) of raw rows by Tree, the generated module in a fresh interpreter, ONNX and `olctc predict`."""
    tree = load(folder / f"{name}.json")
    n = len(next(iter(cells.values())))
    out = {"tree": tree.predict_proba(tree.encode(cells))}
    (folder / f"{name}.py").write_text(to_python(tree), encoding="utf-8")
    rows = [{c: v[i] for c, v in cells.items()} for i in range(n)]
    code = ("import json, runpy, sys; m = runpy.run_path(sys.argv[1]); "
            "print(json.dumps([m['predict_proba'](r) for r in json.load(sys.stdin)]))")
    p = subprocess.run([sys.executable, "-I", "-c", code, f"{name}.py"], input=json.dumps(rows), capture_output=True,
                       text=True, cwd=folder, timeout=60)
    assert p.returncode == 0, p.stderr[-2000:]
    out["python"] = np.array(json.loads(p.stdout))
    out["onnx"] = session(to_onnx(tree)).run(None, feeds(tree, cells=cells))[1]
    with open(folder / f"{name}.extreme.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(list(cells))
        w.writerows([[repr(v) if isinstance(v, float) else v for v in r.values()] for r in rows])
    p = _olctc("predict", f"{name}.json", f"{name}.extreme.csv", "--proba", cwd=folder)
    assert p.returncode == 0, p.stderr
    out["cli"] = np.array([[float(x) for x in r[1:]] for r in list(csv.reader(io.StringIO(p.stdout)))[1:]])
    return out


@pytest.mark.parametrize("name", ["heart", "tic-tac-toe"])
def test_tree_module_onnx_and_predict_agree_on_extreme_rows_and_unseen_categories(fits, name):
    tree = load(fits / f"{name}.json")
    header, body = _raw(name)
    base = dict(zip(header[:-1], body[0][:-1]))
    rows = []
    for col in tree.schema.columns:
        if col.kind == "numeric":
            rows += [{**base, col.name: v} for v in (1e6, -1e6, 0.0)]
        else:
            rows.append({**base, col.name: "unseen"})
    numeric = [c.name for c in tree.schema.columns if c.kind == "numeric"]
    rows += [{**base, **{c: v for c in numeric}} for v in (1e6, -1e6, 0.0)]
    rows = [{c: float(v) if c in numeric else v for c, v in r.items()} for r in rows]
    cells = {c: [r[c] for r in rows] for c in base}
    out = _four_ways(fits, name, cells)
    for way in ("python", "onnx", "cli"):
        assert np.abs(out[way] - out["tree"]).max() <= 1e-12, way


def _overflowing_row(tree, X: np.ndarray, node: int) -> np.ndarray | None:
    """A data row with one feature set to +-BIG so that ``node``'s score overflows while the path to
    ``node`` stays finite (the feature is unused by the nodes above it); None if there is no such feature."""
    above, Wr = [], tree.W_raw
    t = node
    while t:
        t = (t - 1) // 2
        above.append(t)
    js = [j for j in np.argsort(-np.abs(Wr[node])) if abs(Wr[node, j]) > 1.1 and all(Wr[a, j] == 0 for a in above)]
    if not js:
        return None
    for row in X:
        if tree.decision_path([row]).toarray()[0, node]:
            row = row.copy()
            row[js[0]] = BIG * np.sign(Wr[node, js[0]])
            return row
    return None


def test_onnx_routes_an_overflowing_score_as_documented(fits):
    """Tree.predict, the generated module and `olctc predict` refuse a row whose score on its path
    overflows ("the score of node 0 overflows"); the ONNX graph routes it by the infinite score and gives a
    probability, as its docstring says (a check in the graph cost 5-26% of inference). If this fails,
    the graph changed: update olctc/export/onnx.py's docstring."""
    fitted = load(fits / "breast.json")
    X = load_dataset("breast")[0]
    row = _overflowing_row(fitted, X, 0)
    assert row is not None
    with pytest.raises(OlctcError, match="the score of node 0 overflows"):
        fitted.predict_proba([row])
    label, proba = session(to_onnx(fitted)).run(None, {"input": row[None, :]})
    assert np.isfinite(proba).all() and abs(proba.sum() - 1) < 1e-12
    assert "score overflows (values near 1e308) route by the infinite score" in \
        " ".join(sys.modules["olctc.export.onnx"].__doc__.split())
