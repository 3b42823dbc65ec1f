"""Property tests: the solution readers and the tree JSON loader raise nothing but OlctcError.

Inputs are random bytes, and random truncations and single-byte mutations of every real solver
sample (tests/data/solvers/samples) and of a real exported tree. A successful parse is fine; what is
parsed must then be usable (a solution converts to an array, a tree dumps and loads back).
Derandomised, so a failure reproduces.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from olctc.data import Column, Scaler, Schema
from olctc.errors import OlctcError
from olctc.export.json import dump, load, loads
from olctc.read import read_solution
from olctc.read._base import READERS
from olctc.read.api import detect_format
from olctc.tree import Tree

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
SAMPLE_FILES = sorted(p for p in SAMPLES.rglob("*") if p.is_file())
SAMPLE_BYTES = {p.relative_to(SAMPLES).as_posix(): p.read_bytes() for p in SAMPLE_FILES}
FORMATS = [None, *READERS]


def _columns(name: str) -> list[str]:
    from olctc.solve.modelfile import file_columns

    return [str(n) for n in file_columns(SAMPLES / name)[0]]


COL_NAMES = [None, _columns("model.mps"), _columns("mknap.mps"), ["x", "y"]]


def _tree_json() -> bytes:
    """A real exported tree: depth 2, a numeric and a categorical column, a scaler, statistics, meta."""
    rng = np.random.default_rng(0)
    schema = Schema((Column("age", "numeric"), Column("colour", "categorical", ("blue", "red")),
                     Column("size", "numeric")))
    red = rng.integers(0, 2, 30).astype(float)
    X = np.column_stack([rng.normal(50, 10, 30), 1 - red, red, rng.normal(0, 1, 30)])
    y = np.where(rng.random(30) < 0.4, 1, -1)
    scaler = Scaler.fit(X)
    W = rng.normal(size=(3, 4))
    W[1, 2] = 0.0
    tree = Tree.from_arrays(W, rng.normal(size=3), schema=schema, scaler=scaler, classes=("no", "yes"),
                            meta={"solver": "highs", "bound": float("inf"), "gap": 0.25})
    tree.fit_stats(X, y)
    text = dump(tree)
    assert loads(text).predict(X).tolist() == tree.predict(X).tolist()
    return text.encode("utf-8")


TREE_BYTES = _tree_json()

SETTINGS = settings(derandomize=True, max_examples=500, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("props") / "input"


@st.composite
def truncated(draw, sources: dict[str, bytes]) -> bytes:
    data = sources[draw(st.sampled_from(sorted(sources)))]
    return data[:draw(st.integers(0, len(data)))]


@st.composite
def mutated(draw, sources: dict[str, bytes]) -> bytes:
    data = bytearray(sources[draw(st.sampled_from(sorted(sources)))])
    if not data:
        return bytes(data)
    i = draw(st.integers(0, len(data) - 1))
    # a byte that matters to parsers half the time, any byte otherwise
    data[i] = draw(st.one_of(st.sampled_from(b"0123456789-+.eE \t\n\r:,=#\"[]{}nNaIi"), st.integers(0, 255)))
    return bytes(data)


def solution_inputs(sources: dict[str, bytes]):
    return st.one_of(st.binary(max_size=400), truncated(sources), mutated(sources))


def _read_solution(scratch: Path, data: bytes, fmt, col_names) -> None:
    scratch.write_bytes(data)
    try:
        sol = read_solution(scratch, format=fmt, col_names=col_names)
    except OlctcError as exc:
        assert "\n" not in str(exc), str(exc)
        return
    assert sol.status in ("optimal", "feasible", "infeasible", "unbounded", "no_solution")
    if sol.has_solution():
        names = list(sol.values)
        x = sol.to_array(names)
        assert np.isfinite(x).all()
        assert x.shape == (len(names),)
    try:
        detect_format(data.decode("latin-1"))
    except OlctcError:
        pass


@SETTINGS
@given(data=solution_inputs(SAMPLE_BYTES), fmt=st.sampled_from(FORMATS), col_names=st.sampled_from(COL_NAMES))
def test_solution_readers_raise_only_olctc_error(scratch, data, fmt, col_names):
    _read_solution(scratch, data, fmt, col_names)


@SETTINGS
@given(data=mutated(SAMPLE_BYTES), col_names=st.sampled_from(COL_NAMES))
def test_detected_format_mutations(scratch, data, col_names):
    """Mutations with format detection only: the path users take."""
    _read_solution(scratch, data, None, col_names)


def _load_tree(scratch: Path, data: bytes) -> None:
    for attempt in (lambda: load(data), lambda: (scratch.write_bytes(data), load(scratch))[1]):
        try:
            tree = attempt()
        except OlctcError as exc:
            assert "\n" not in str(exc), str(exc)
            continue
        again = loads(dump(tree))
        assert again.depth == tree.depth
        assert np.array_equal(again.W, tree.W) and np.array_equal(again.b, tree.b)


@SETTINGS
@given(data=st.one_of(st.binary(max_size=300), truncated({"tree": TREE_BYTES}), mutated({"tree": TREE_BYTES})))
def test_tree_loader_raises_only_olctc_error(scratch, data):
    _load_tree(scratch, data)


@settings(derandomize=True, max_examples=150, deadline=None, database=None)
@given(text=st.text(alphabet=st.sampled_from(list('{}[]",:0123456789.-eE truefalsnul"olctc-treeversionW')),
                    max_size=200))
def test_tree_loader_json_like_text(text):
    try:
        loads(text)
    except OlctcError as exc:
        assert "\n" not in str(exc), str(exc)


def _paths(v, prefix=()):
    yield prefix
    if isinstance(v, dict):
        for k, x in v.items():
            yield from _paths(x, prefix + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield from _paths(x, prefix + (i,))


TREE_DOC = json.loads(TREE_BYTES)
TREE_PATHS = list(_paths(TREE_DOC))[1:]
JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**30, 10**30), st.text(max_size=8),
              st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0, -1, 1e308, -1e308, 5e-324])),
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=6), inner, max_size=4)),
    max_leaves=8)


@SETTINGS
@given(path=st.sampled_from(TREE_PATHS), value=JSON_VALUES, drop=st.booleans())
def test_tree_loader_field_mutations(path, value, drop):
    """One field of a real tree replaced by any JSON value (or deleted): OlctcError or a usable tree."""
    doc = json.loads(TREE_BYTES)
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    if drop:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    try:
        tree = loads(json.dumps(doc), "mutated.json")
    except OlctcError as exc:
        assert "\n" not in str(exc), str(exc)
        return
    again = loads(dump(tree))
    assert np.array_equal(again.W, tree.W) and np.array_equal(again.b, tree.b)
    tree.predict_proba(np.zeros((2, tree.W.shape[1])))


def test_every_sample_was_found():
    assert len(SAMPLE_FILES) >= 30
    assert COL_NAMES[1] and COL_NAMES[2]
