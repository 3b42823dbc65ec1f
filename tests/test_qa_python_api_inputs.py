"""QA (2026-12-05): the Python functions that mirror the commands (write_compiled, solve_compiled_file,
decode_file, collect) check their values and name their Python parameters; None, a str for a number or a
Dataset for a Compiled failed deep inside as AttributeError or TypeError, and on/off flags took "no" for True."""
from __future__ import annotations

import numpy as np
import pytest

from olctc.errors import OlctcError


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    from olctc.compile import compile_problem
    from olctc.datasets import load
    from olctc.pipeline import solve_compiled_file, write_compiled
    from olctc.spec import make_spec

    d = tmp_path_factory.mktemp("api")
    ds = load("heart").subset(np.arange(40))
    comp = compile_problem(ds, make_spec("olct", 1), "m", rows=np.arange(40))
    write_compiled(comp, d / "m.mps")
    solve_compiled_file(d / "m.mps", "highs", verbose=False)
    return d, comp


def _refused(call, message: str) -> None:
    with pytest.raises(OlctcError) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)
    assert "--" not in str(info.value), str(info.value)


@pytest.mark.parametrize("kwargs, message", [
    (dict(comp=None), "The 'comp' parameter must be the Compiled that olctc.compile.compile_problem returns. Got "
                      "'NoneType'"),
    (dict(start="no"), "The 'start' parameter must be"),
    (dict(params=None), "The 'params' parameter must be"),
    (dict(start_in_child=1), "The 'start_in_child' parameter must be"),
    (dict(solvers=5), "The 'solvers' parameter must be a comma list of"),
])
def test_write_compiled_refuses(compiled, tmp_path, kwargs, message):
    from olctc.pipeline import write_compiled

    args = dict(comp=compiled[1], out=tmp_path / "x.mps")
    args.update(kwargs)
    _refused(lambda: write_compiled(args.pop("comp"), args.pop("out"), **args), message)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kwargs, message", [
    (dict(solver=None), "The 'solver' parameter must be one of highs"),
    (dict(solver=5), "The 'solver' parameter must be one of highs"),
    (dict(time_limit="5"), "The 'time_limit' parameter must be a positive number of seconds"),
    (dict(threads=0), "The 'threads' parameter must be an integer from 1"),
    (dict(use_start="x"), "The 'use_start' parameter must be"),
    (dict(verbose=None), "The 'verbose' parameter must be"),
    (dict(model=None), "The 'model' parameter must be a file path"),
    (dict(output=5), "The 'output' parameter must be a file path"),
])
def test_solve_compiled_file_refuses(compiled, kwargs, message):
    from olctc.pipeline import solve_compiled_file

    d = compiled[0]
    args = dict(model=d / "m.mps", solver="highs", verbose=False)
    args.update(kwargs)
    _refused(lambda: solve_compiled_file(args.pop("model"), args.pop("solver"), **args), message)


@pytest.mark.parametrize("kwargs, message", [
    (dict(refine="no"), "The 'refine' parameter must be"),
    (dict(smooth_pure_nodes="x"), "The 'smooth_pure_nodes' parameter must be"),
    (dict(fmt="foo"), "The 'fmt' parameter must be one of cplex, gurobi"),
])
def test_decode_file_refuses(compiled, kwargs, message):
    from olctc.decode import decode_file

    d = compiled[0]
    _refused(lambda: decode_file(d / "m.olctc.json", d / "m.highs.sol", **kwargs), message)


def test_decode_of_a_model_from_arrays_says_how_to_give_the_data(tmp_path):
    # "the training data arrays is not there; pass its path with --data": there is no file to pass
    from olctc.compile import compile_problem
    from olctc.data import from_arrays
    from olctc.datasets import load
    from olctc.decode import decode_file
    from olctc.pipeline import solve_compiled_file, write_compiled
    from olctc.spec import make_spec

    heart = load("heart")
    ds = from_arrays(heart.X[:40], heart.y[:40])
    write_compiled(compile_problem(ds, make_spec("olct", 1), "a"), tmp_path / "a.mps")
    solve_compiled_file(tmp_path / "a.mps", "highs", verbose=False)
    with pytest.raises(OlctcError) as info:
        decode_file(tmp_path / "a.olctc.json", tmp_path / "a.highs.sol")
    assert str(info.value) == ("the training data came as arrays (from_arrays), which olctc cannot read again: pass "
                               "that Dataset as source= (decode_file), or the data as a CSV file (--data)")
    tree, _ = decode_file(tmp_path / "a.olctc.json", tmp_path / "a.highs.sol", source=ds)
    assert tree.predict(ds.X).shape == (40,)


@pytest.mark.parametrize("kwargs, message", [
    (dict(folder=None), "The 'folder' parameter must be a file path"),
    (dict(data_path=5), "The 'data_path' parameter must be a file path"),
])
def test_collect_refuses(tmp_path, kwargs, message):
    from olctc.cluster import collect

    args = dict(folder=tmp_path)
    args.update(kwargs)
    _refused(lambda: collect(args.pop("folder"), **args), message)


def test_from_arrays_and_read_csv_refuse_what_they_took_silently(tmp_path):
    import pandas as pd

    from olctc.data import from_arrays, read_csv
    from olctc.datasets import load

    heart = load("heart")
    X, y = heart.X[:20, :2], heart.y[:20]
    with pytest.raises(OlctcError, match=r"^The 'feature_names' parameter must be a list of names, one per column "
                                         r"of X\. Got 5 instead\.$"):
        from_arrays(X, y, feature_names=5)
    # dates became days (an array) or nanoseconds (a DataFrame) since 1970, as ordinary features
    days = np.datetime64("2020-01-01") + np.arange(20).astype("timedelta64[D]")
    durations = np.diff(days, prepend=days[0])[:, None]
    for bad in (days.reshape(-1, 1), pd.DataFrame({"when": days, "x": X[:, 0]}), durations):
        with pytest.raises(OlctcError, match=r"^X holds dates or durations \(datetime64, timedelta64\); olctc "
                                             r"needs numbers: convert them first"):
            from_arrays(bad, y)
    (tmp_path / "d.csv").write_text("a,y\n1,0\n2,1\n3,0\n4,1\n")
    with pytest.raises(OlctcError, match="^The 'warn_identifiers' parameter must be"):
        read_csv(tmp_path / "d.csv", "y", warn_identifiers="no")


def test_labels_of_takes_the_scores_proba_of_takes():
    from olctc.datasets import load
    from olctc.estimator import OLCTClassifier

    heart = load("heart")
    tree = OLCTClassifier(depth=1, time_limit=10).fit(heart.X[:40], heart.y[:40]).tree_
    scores = tree.decision_function(heart.X[:40])
    assert np.array_equal(tree.labels_of(scores), tree.predict(heart.X[:40]))
    for bad, message in ((None, "scores"), ("a", "scores"), (scores[:, None], "scores must be 1-D")):
        with pytest.raises(OlctcError, match=message):  # None: TypeError; text: numpy's UFuncTypeError; 2-D: 2-D
            tree.labels_of(bad)
        with pytest.raises(OlctcError, match=message):
            tree.proba_of(bad)
