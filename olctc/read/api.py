"""Read any supported solver's solution file into a ``Solution``, detecting the format from content."""
from __future__ import annotations

import contextlib
import gc
import os
from typing import Iterator, Sequence

from olctc.errors import OlctcError, param_error
from olctc.read._base import READERS, Source, detect, known_formats, read_source, shown
from olctc.read.solution import Solution


def _unrecognised(src: Source) -> OlctcError:
    k, first = src.first()
    return src.fail(f"a solution file of a known format ({known_formats()})", shown(first), line=k + 1)


def detect_format(text: str) -> str:
    """Name of the format ``text`` is written in (one of ``FORMATS``).

    Raises
    ------
    OlctcError
        when no known format matches.
    """
    src = Source.from_text(text, "solution text")
    name = detect(src)
    if name is None:
        if not text.strip():
            raise OlctcError(f"solution text: expected a solution file ({known_formats()}), got an empty text")
        raise _unrecognised(src)
    return name


def check_format(value: object, name: str = "format", option: str | None = None) -> str | None:
    """A solution format's name in lower case (``--format GLPK``, as the solvers are spelt in the docs), or None;
    the parameter error naming ``name`` (and the command's ``option``) for anything else."""
    if isinstance(value, str) and value.lower() in READERS:
        return value.lower()
    if value is not None:
        raise param_error(name, f"one of {', '.join(READERS)} (or none, to detect it from the content)", value,
                          option)
    return None


def read_solution(path: str | os.PathLike[str], format: str | None = None,
                  col_names: Sequence[str] | None = None) -> Solution:
    """Read a solver's solution file.

    Parameters
    ----------
    path : the solution file.
    format : one of ``FORMATS`` to skip detection; the content must still match it.
    col_names : the model's column names in MPS order. Required by formats that number columns
        instead of naming them (GLPK ``-w``, HiGHS style 2 and -1); ignored by the others.

    Raises
    ------
    OlctcError
        for a missing, empty, truncated or unrecognised file, a non-finite or non-numeric value, or a
        ``format`` the content does not match.
    """
    format = check_format(format)
    src = read_source(path)
    found = detect(src)
    if format is None:
        if found is None:
            raise _unrecognised(src)
        format = found
    elif not READERS[format].detect(src):
        reader = READERS[format]
        got = f"{READERS[found].named} file" if found else shown(src.first()[1])
        raise src.fail(f"{reader.named} solution file ({reader.signature})", got)
    with _collector_paused():
        return READERS[format].parse(src, col_names)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off while a parser runs: it makes a few objects per column and
    frees none until the end, and the collector's passes over them, which find nothing, took 30-45% of
    the time at 400k columns (benchmarks/scaling.py, read_solution_*)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
