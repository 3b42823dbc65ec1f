"""The paper's experiments (Sec. 5): run them into a resumable bench folder and report on them."""
from __future__ import annotations

from olctc.bench.experiments import EXPERIMENTS, Experiment, ModelDef, get_experiment
from olctc.bench.folder import read_runs
from olctc.bench.options import BenchOptions, make_options
from olctc.bench.runner import run_bench

__all__ = ["EXPERIMENTS", "Experiment", "ModelDef", "get_experiment", "BenchOptions", "make_options",
           "read_runs", "run_bench"]
