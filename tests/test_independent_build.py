"""olctc's linear models against the same models built independently, from docs/FORMULATION.md's equations, with python-mip.

``benchmarks/mip_olct.py`` (olct, olct-univariate, oct-h; python-mip has no quadratic objectives, so
not the MARGOT presets) is a plain python-mip loop (one ``xsum`` per split score, one ``add_constr``
per row) sharing no code with ``olctc.formulation``. Both models are written to MPS (olctc by its own
writer, python-mip through its HiGHS backend) and read back by HiGHS; then every column's bounds, cost
and type, every row's range, and every matrix entry are compared by name.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import numpy as np
import pytest

from olctc.datasets import load
from olctc.emit.mps import write_mps
from olctc.formulation import build_milp
from olctc.spec import make_spec

_SPEC = importlib.util.spec_from_file_location(
    "mip_olct", Path(__file__).resolve().parent.parent / "benchmarks" / "mip_olct.py")
mip_olct = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(mip_olct)


def read_by_name(path: Path) -> tuple[dict, dict, dict]:
    """Columns {name: (lb, ub, cost, integer)}, rows {name: (lo, hi)}, entries {(row, col): value}."""
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) == highspy.HighsStatus.kOk
    lp = h.getLp()
    assert lp.offset_ == 0.0
    cnames, rnames = list(lp.col_names_), list(lp.row_names_)
    integ = list(lp.integrality_) or [highspy.HighsVarType.kContinuous] * lp.num_col_
    # Each attribute read copies the whole vector out of HiGHS: read each once.
    lower, upper, cost = list(lp.col_lower_), list(lp.col_upper_), list(lp.col_cost_)
    cols = {cnames[j]: (lower[j], upper[j], cost[j], integ[j] == highspy.HighsVarType.kInteger)
            for j in range(lp.num_col_)}
    rows = dict(zip(rnames, zip(list(lp.row_lower_), list(lp.row_upper_))))
    a = lp.a_matrix_
    assert a.format_ == highspy.MatrixFormat.kColwise
    start, index, value = list(a.start_), list(a.index_), list(a.value_)
    entries = {}
    for j in range(lp.num_col_):
        for k in range(start[j], start[j + 1]):
            entries[rnames[index[k]], cnames[j]] = value[k]
    return cols, rows, entries


def assert_same(ours: tuple[dict, dict, dict], theirs: tuple[dict, dict, dict]) -> None:
    # python-mip's HiGHS backend writes 15 significant digits; olctc writes repr (17).
    close = lambda a, b: a == b or math.isclose(a, b, rel_tol=1e-13, abs_tol=1e-15)  # noqa: E731
    for what, a, b in zip(("columns", "rows", "entries"), ours, theirs):
        assert a.keys() == b.keys(), f"{what} differ: only olctc {sorted(a.keys() - b.keys())[:5]}, " \
                                     f"only python-mip {sorted(b.keys() - a.keys())[:5]}"
        bad = [k for k in a if not all(close(u, v) for u, v in zip(np.atleast_1d(a[k]), np.atleast_1d(b[k])))]
        assert not bad, f"{what} differ at {bad[:3]}: olctc {[a[k] for k in bad[:3]]}, " \
                        f"python-mip {[b[k] for k in bad[:3]]}"


CASES = [
    ("olct", 1, "V0", [1.0], {}),
    ("olct", 2, "V0", [1.0, 10.0], {}),
    ("olct", 2, "V2", [0.5, 3.0], {"big_m": 20.0, "epsilon": 1e-3}),
    ("olct", 3, "-inf,-1.9,0,0.5,1.9,inf", [1.0, 2.0, 100.0], {}),
    ("olct-univariate", 2, "V1", [1.0, 10.0], {}),
    ("olct-univariate", 2, "V0", [1.0, 1.0], {"budget": 2}),
    ("oct-h", 1, "V0", [1.0], {"alpha": 0.125}),
    ("oct-h", 3, "V0", [1.0, 1.0, 2.0], {"alpha": 0.25, "big_m": 50.0}),
    ("olct", 2, "V1", [1.0, 10.0], {"class_weight": (0.5, 3.0)}),
    ("olct", 2, "V0", [2.0, 1.0], {"class_weight": "balanced"}),
    ("olct-univariate", 2, "V0", [1.0, 1.0], {"class_weight": (2.0, 1.0)}),
    ("oct-h", 2, "V0", [1.0, 3.0], {"alpha": 0.5, "class_weight": "balanced"}),
]


@pytest.mark.parametrize("preset,depth,tangents,C,knobs", CASES,
                         ids=[f"{p}-d{d}-{t}-{k}" for p, d, t, _, k in CASES])
def test_model_equals_python_mip_from_the_equations(tmp_path, preset, depth, tangents, C, knobs):
    rng = np.random.default_rng(depth)
    X = rng.normal(size=(13, 4))
    X[:, 2] = 0.0            # a constant (standardised) feature: no entries, in either model
    X[::3, 1] = 0.0          # zeros inside a feature
    y = np.where(rng.random(13) < 0.5, -1.0, 1.0)
    spec = make_spec(preset, depth, C=C, tangents=tangents, **knobs)
    write_mps(build_milp(X, y, spec), tmp_path / "olctc.mps")
    weights = knobs.get("class_weight", (1.0, 1.0))
    if weights == "balanced":  # scikit-learn's rule, n / (2 n_class), written out here
        weights = tuple(13 / (2 * np.sum(y == c)) for c in (-1.0, 1.0))
    model = mip_olct.build_tree(X, y, preset, depth, C, tangents=spec.tangents, M=spec.big_m, eps=spec.epsilon,
                                alpha=spec.alpha, budget=spec.effective_budget or 1, class_weight=weights)
    model.write(str(tmp_path / "mip.mps"))
    ours, theirs = read_by_name(tmp_path / "olctc.mps"), read_by_name(tmp_path / "mip.mps")
    assert len(ours[2]) > 13 * 2 ** depth   # the comparison has something to compare
    assert_same(ours, theirs)


def test_real_data_equals_python_mip(tmp_path):
    """tic-tac-toe (27 one-hot columns), standardised here with numpy, compiled by olctc from the data set."""
    from olctc.compile import compile_problem

    ds = load("tic-tac-toe")
    assert set(np.unique(ds.y)) == {-1.0, 1.0}
    write_mps(compile_problem(ds, make_spec("olct", 2, C=[1.0, 10.0])).milp, tmp_path / "olctc.mps")
    sd = ds.X.std(axis=0)
    X = (ds.X - ds.X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    mip_olct.build_olct(X, ds.y, 2, [1.0, 10.0]).write(str(tmp_path / "mip.mps"))
    assert_same(read_by_name(tmp_path / "olctc.mps"), read_by_name(tmp_path / "mip.mps"))


def test_the_comparison_sees_a_wrong_coefficient(tmp_path):
    """A model that differs in one tangent's slope is caught."""
    X = np.random.default_rng(0).normal(size=(8, 3))
    y = np.array([1, -1, 1, -1, 1, 1, -1, -1], dtype=float)
    spec = make_spec("olct", 2, tangents="V1")
    write_mps(build_milp(X, y, spec), tmp_path / "olctc.mps")
    mip_olct.build_olct(X, y, 2, [1.0, 1.0], tangents=(-math.inf, -1.9, 0.0, 1.91, math.inf)).write(
        str(tmp_path / "mip.mps"))
    with pytest.raises(AssertionError, match="differ"):
        assert_same(read_by_name(tmp_path / "olctc.mps"), read_by_name(tmp_path / "mip.mps"))


SAMPLE_WEIGHT_CASES = [
    ("olct", 2, "V1", [1.0, 10.0], {"class_weight": "balanced"}),
    ("oct-h", 2, "V0", [1.0, 3.0], {"alpha": 0.5, "class_weight": (2.0, 0.5)}),
]


@pytest.mark.parametrize("preset,depth,tangents,C,knobs", SAMPLE_WEIGHT_CASES,
                         ids=[f"{p}-d{d}-{t}-{k}" for p, d, t, _, k in SAMPLE_WEIGHT_CASES])
def test_sample_weights_equal_python_mip_from_the_equations(tmp_path, preset, depth, tangents, C, knobs):
    """Per-point weights (0 and non-integers among them): each xi_{h,i} costs C_h times point i's class
    weight times its sample weight; "balanced" counts each class by its total sample weight. python-mip's
    model is the class-weighted one with each xi's cost set here from that rule."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(13, 4))
    X[::3, 1] = 0.0
    y = np.where(rng.random(13) < 0.5, -1.0, 1.0)
    w = np.round(rng.uniform(0.0, 3.0, size=13), 3)
    w[[2, 9]] = 0.0
    spec = make_spec(preset, depth, C=C, tangents=tangents, **knobs)
    write_mps(build_milp(X, y, spec, sample_weight=w), tmp_path / "olctc.mps")
    cw = knobs["class_weight"]
    if cw == "balanced":
        cw = tuple(w.sum() / (2 * w[y == c].sum()) for c in (-1.0, 1.0))
    model = mip_olct.build_tree(X, y, preset, depth, C, tangents=spec.tangents, M=spec.big_m, eps=spec.epsilon,
                                alpha=spec.alpha, budget=spec.effective_budget or 1)
    for h in ([depth] if preset == "oct-h" else range(1, depth + 1)):
        for i in range(13):
            model.var_by_name(f"xi_{h}_{i}").obj = C[h - 1] * cw[int(y[i] > 0)] * w[i]
    model.write(str(tmp_path / "mip.mps"))
    ours, theirs = read_by_name(tmp_path / "olctc.mps"), read_by_name(tmp_path / "mip.mps")
    costs = {v[2] for k, v in ours[0].items() if k.startswith("xi")}
    assert 0.0 in costs and len(costs) > 8  # the weights are in the model, 0 among them
    assert_same(ours, theirs)
