"""Compatibility fixes found by installing the declared dependency floors (benchmarks/check_floors.sh).

Each test runs on the newest versions too: it imitates the older library's API where the difference lies.
"""
from __future__ import annotations

import warnings

import click
import numpy as np
import onnx.numpy_helper
import pytest

from olctc import cli as olctc_cli
from olctc.export.onnx import session, to_onnx
from olctc.solve.inprocess import _highs_thread_run
from test_tree import dataset, greedy_tree


class _Highs115:
    """highspy 1.15's ``Highs`` as far as the solve thread sees it: ``resetGlobalScheduler`` only (1.16 added
    ``resetThreadScheduler``, the same per-thread reset under a new name)."""

    resets: list[bool] = []

    def run(self) -> str:
        return "ran"

    @classmethod
    def resetGlobalScheduler(cls, blocking: bool) -> None:
        cls.resets.append(blocking)


class _Highs116(_Highs115):
    resets: list[bool] = []
    thread_resets: list[bool] = []

    @classmethod
    def resetThreadScheduler(cls, blocking: bool) -> None:
        cls.thread_resets.append(blocking)


def test_highs_solve_thread_resets_the_scheduler_on_highspy_1_15():
    # The solve thread called Highs.resetThreadScheduler, absent from highspy 1.15: every in-process HiGHS
    # solve raised AttributeError there, after the solve.
    _Highs115.resets.clear()
    assert _highs_thread_run(_Highs115()) == "ran"
    assert _Highs115.resets == [False]


def test_highs_solve_thread_prefers_the_new_name_on_highspy_1_16():
    _Highs116.resets.clear()
    _Highs116.thread_resets.clear()
    assert _highs_thread_run(_Highs116()) == "ran"
    assert (_Highs116.thread_resets, _Highs116.resets) == ([False], [])


def test_onnx_string_constants_are_object_arrays_as_onnx_1_15_needs(monkeypatch):
    # onnx 1.15's numpy_helper.from_array raised "Numpy data type not understood yet: dtype('<U3')" on a
    # numpy text array: every tree with text labels failed to export. Imitate it on the newest onnx.
    from_array = onnx.numpy_helper.from_array

    def from_array_1_15(arr, name=None):
        if arr.dtype.kind == "U":
            raise RuntimeError(f"Numpy data type not understood yet: {arr.dtype!r}")
        return from_array(arr, name)

    ds = dataset("heart")
    tree = greedy_tree(ds, 2)
    tree.classes = ("no", "yes")
    monkeypatch.setattr(onnx.numpy_helper, "from_array", from_array_1_15)
    model = to_onnx(tree)
    monkeypatch.undo()
    label, _ = session(model).run(None, {"input": ds.X})
    assert label.tolist() == [str(c) for c in tree.predict(ds.X).tolist()]


class _PyparsingDeprecationWarning(UserWarning, DeprecationWarning):
    """pyparsing >= 3.3's class: a DeprecationWarning that is also a UserWarning, so shown by default."""


def test_cli_does_not_show_matplotlibs_pyparsing_deprecations(monkeypatch, capsys):
    # matplotlib 3.7 .. 3.10 with pyparsing >= 3.3: "warning: 'parseString' deprecated - use 'parse_string'"
    # printed four times by olctc bench report (and every command that renders), before the CLI's filter.
    @click.command("qa-floors-warn")
    def warn_cmd() -> None:
        warnings.warn_explicit("'parseString' deprecated - use 'parse_string'", _PyparsingDeprecationWarning,
                               "_fontconfig_pattern.py", 92, module="matplotlib._fontconfig_pattern")
        warnings.warn_explicit("a warning for the user", UserWarning, "fit.py", 1, module="olctc.fit")

    monkeypatch.setitem(olctc_cli.cli.commands, "qa-floors-warn", warn_cmd)
    with pytest.raises(SystemExit) as exit_:
        olctc_cli.main(["qa-floors-warn"])
    assert exit_.value.code == 0
    assert capsys.readouterr().err == "warning: a warning for the user\n"


def test_a_tree_without_features_gives_gemm_a_column_as_onnxruntime_1_17_needs():
    # onnxruntime 1.17 .. 1.19 refuse a Gemm whose inner dimension is 0 ("K_ > 0 was false"): the ONNX
    # export of a tree without features (all splits on no column) failed at run time there.
    from onnx import numpy_helper

    from olctc.tree import Tree

    tree = Tree.from_arrays(np.zeros((3, 0)), [1.0, -1.0, 2.0])
    model = to_onnx(tree)
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    gemm = next(n for n in model.graph.node if n.op_type == "Gemm")
    assert inits[gemm.input[0]].shape == (3, 1)
    label, proba = session(model).run(None, {"input": np.zeros((4, 0))})
    assert label.tolist() == [1] * 4 and np.abs(proba[:, 1] - 1 / (1 + np.exp(-2.0))).max() < 1e-15
