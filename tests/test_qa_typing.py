"""Bugs found by a static-typing pass (mypy) over olctc, each pinned by a test that failed before its fix."""
from __future__ import annotations

import pytest

from olctc.errors import OlctcError
from olctc.spec import make_spec, parse_C


# ---------------------------------------------------------------- spec.parse_C
# parse_C reads any iterable of numbers (``_sequence``), but the wrong-length message quoted ``list(value)``:
# a generator, already read, was quoted as "Got []".

def test_parse_c_wrong_length_generator_quotes_its_values():
    with pytest.raises(OlctcError, match=r"for depth 2\. Got \[1\.0, 2\.0, 3\.0\] instead"):
        make_spec(depth=2, C=(c for c in (1.0, 2.0, 3.0)))


def test_parse_c_bad_item_of_generator_quotes_its_values():
    with pytest.raises(OlctcError, match=r"Got \[1\.0, 'x'\] instead"):
        parse_C(iter([1.0, "x"]), 2)


def test_parse_c_generator_of_right_length_is_read():
    assert make_spec(depth=2, C=(c for c in (1.0, 2.0))).C == (1.0, 2.0)


def test_parse_tangents_generator_is_quoted_by_its_values():
    with pytest.raises(OlctcError, match=r"not NaN\. Got \[0\.0, nan\] instead"):
        make_spec(tangents=(t for t in (0.0, float("nan"))))
