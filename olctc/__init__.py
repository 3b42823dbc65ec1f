"""olctc: compile optimal classification tree training problems into portable MILP files."""
from __future__ import annotations

__version__ = "0.1.0"

from olctc.errors import OlctcError
from olctc.datasets import load_dataset, dataset_names

__all__ = ["__version__", "OlctcError", "load_dataset", "dataset_names"]
