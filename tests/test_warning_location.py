"""Where olctc's warnings point: at the line of the caller's code that called into olctc, whichever path led to
the warning (``olctc.errors.warn``). Python's warning filters and its "once per location" registry key on that
line, and a traceback-like "file:line" that names olctc's own internals tells a user nothing. Each solver warning
below is reached through two public functions at different depths; hand-counted stacklevels pointed into
olctc/solve/__init__.py for one of them."""
from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest
from test_data import PREDICT_MULTI, _predict_files
from test_solve import leak_milp
from test_solve_external_mutation_gaps import _model

from olctc import OLCTClassifier
from olctc.compile import compile_problem
from olctc.data import from_arrays
from olctc.errors import UnseenCategoryWarning, warn
from olctc.export.json import load
from olctc.solve import solve_file, solve_milp
from olctc.spec import make_spec


def _warned(call) -> list[tuple[str, str]]:
    """(file name, message) of each warning ``call()`` gives, the filters reset so none is hidden as seen."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [(w.filename, str(w.message)) for w in caught]


@pytest.mark.parametrize("solver,words", [("scip", "SCIP's branch and bound runs on one thread"),
                                          ("glpk-cli", "glpsol runs on one thread")])
@pytest.mark.parametrize("through", ["solve_file", "solve_milp"])
def test_a_solver_warning_points_at_the_callers_line(tmp_path: Path, solver: str, words: str, through: str):
    if through == "solve_file":
        shown = _warned(lambda: solve_file(_model(tmp_path), solver, threads=2, verbose=False))
    else:
        shown = _warned(lambda: solve_milp(leak_milp(), solver, threads=2, verbose=False))
    assert [name for name, text in shown if words in text] == [__file__], shown


def test_compile_and_the_estimators_fit_warn_at_the_callers_line():
    """compile_problem's constant-data warning, reached from compile_problem itself and from OLCTClassifier.fit
    (three olctc frames deeper, through fit and the pipeline)."""
    X, y = np.full((12, 2), 3.0), np.repeat([0, 1], 6)
    shown = _warned(lambda: compile_problem(from_arrays(X, y), make_spec(depth=1)))
    shown += _warned(lambda: OLCTClassifier(depth=1, time_limit=20, verbose=False).fit(X, y))
    constant = [name for name, text in shown if "every feature is constant" in text]
    assert constant == [__file__, __file__], shown


def test_a_tree_warns_of_unseen_categories_at_the_line_that_encoded_or_explained(tmp_path: Path):
    """explain reaches encode's warning a level deeper than encode itself."""
    tree = load(_predict_files(tmp_path, PREDICT_MULTI)[0])
    shown = _warned(lambda: tree.encode({"a": [1.0, 2.0], "note": ["p", "zz"]}))
    shown += _warned(lambda: tree.explain({"a": 1.0, "note": "zz"}))
    assert [name for name, text in shown if "never saw" in text] == [__file__, __file__], shown


def test_warn_called_outside_olctc_points_at_its_own_caller():
    """Called from code outside olctc (a plug-in, a test), warn is warnings.warn at its caller's line, with the
    category given."""
    with pytest.warns(UnseenCategoryWarning) as record:
        warn("a note", UnseenCategoryWarning)
    assert [(w.filename, str(w.message)) for w in record] == [(__file__, "a note")]
