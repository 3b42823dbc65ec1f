"""Read MILP solvers' solution files back into one ``Solution``.

One module per format, each registering a reader (a detector and a parser) in
``olctc.read._base.READERS``; ``read_solution`` picks the format from the content. Formats (and
solver names): cbc, highs (styles 0, 4, 1, -1; 2 and 3 are GLPK's formats), scip, gurobi, cplex,
glpk (``-w`` and ``-o``), xpress (``.slx``), copt. Each module's docstring gives its status mapping.
"""
from __future__ import annotations

# Import order is detection order: glpk must precede highs, which also reads GLPK's formats.
from olctc.read import cplex, gurobi, scip, cbc, glpk, highs, xpress, copt  # noqa: F401  (registers the readers)
from olctc.read._base import READERS
from olctc.read.api import detect_format, read_solution
from olctc.read.solution import STATUSES, Solution

#: Format names, which are also the values of ``Solution.solver``.
FORMATS: tuple[str, ...] = tuple(READERS)

__all__ = ["FORMATS", "STATUSES", "Solution", "detect_format", "read_solution"]
