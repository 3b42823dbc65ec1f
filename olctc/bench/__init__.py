"""The paper's experiments (Sec. 5): run them into a resumable bench folder and report on them."""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from olctc.bench.experiments import EXPERIMENTS, Experiment, ModelDef, get_experiment
from olctc.bench.folder import read_runs
from olctc.bench.options import BenchOptions, make_options

if TYPE_CHECKING:
    from olctc.bench.runner import run_bench

__all__ = ["EXPERIMENTS", "Experiment", "ModelDef", "get_experiment", "BenchOptions", "make_options",
           "read_runs", "run_bench"]


def __getattr__(name: str) -> Any:
    # The runner, imported on first use: through olctc.tree it pulls in scipy.sparse, 0.1 s of every olctc
    # command's start (the command line registers `bench` by importing this package; QA 2026-12-05)
    if name == "run_bench":
        value = importlib.import_module("olctc.bench.runner").run_bench
        globals()[name] = value
        return value
    raise AttributeError(f"module 'olctc.bench' has no attribute {name!r}")
