"""The one error type olctc raises for bad input, helpers to phrase it, and olctc's warnings."""
from __future__ import annotations

import json
import numbers
import os
import sys
import warnings
from types import FrameType
from typing import Any, Hashable, Sequence, TypeGuard


class OlctcError(ValueError):
    """Bad input or an impossible request, with a one-line message that says what to do.

    The CLI prints ``error: <message>`` and exits with code 2 (``exit_code`` of a subclass otherwise).
    """


class NoSolution(OlctcError):
    """A solver ended (limit, infeasibility) without a solution to write or decode; the CLI exits 1."""

    exit_code = 1


class TimeLimitTooShort(OlctcError):
    """A time limit leaves the solver no time (a fit's, once the model is built, or a solve's, once the model is
    read); callers whose limit came from elsewhere say where."""


class UnseenCategoryWarning(UserWarning):
    """Raw cells hold a category the tree never saw: encoded as none of its column's categories (all its
    indicators 0, as scikit-learn's ``handle_unknown='ignore'``), so the row is still scored."""


#: Where olctc's own modules are: a warning is told at the line of code that called into them.
_PACKAGE = os.path.dirname(__file__) + os.sep


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn`` at the caller of olctc: the line above the outermost olctc frame (the user's script, a
    notebook cell, scikit-learn's cross_val_score), however deep in olctc the warning arose. Hand-counted
    ``stacklevel`` values pointed into olctc whenever a second path led to the same warning (solve_file and
    solve_milp reach SCIP's at different depths); Python 3.12's ``skip_file_prefixes`` does this, not 3.11."""
    frame: FrameType | None = sys._getframe(1)
    depth = level = 2
    while frame is not None:
        if frame.f_code.co_filename.startswith(_PACKAGE):
            level = depth + 1
        frame, depth = frame.f_back, depth + 1
    warnings.warn(message, category, stacklevel=level)


def param_error(name: str, expected: str, got: object, option: str | None = None) -> OlctcError:
    """Build the canonical parameter error: ``The 'name' parameter must be <expected>. Got <got> instead.``

    ``option``: the command-line option that set it, named too (``The 'time_limit' parameter (--time-limit)``).
    """
    named = f"The '{name}' parameter" + (f" ({option})" if option else "")
    # cut: a whole tree record or data set passed where a path goes printed as one line of kilobytes
    return OlctcError(f"{named} must be {expected}. Got {shorten(repr(_plain(got)), 200)} instead.")


def _plain(value: Any) -> Any:
    """``value`` with numpy scalars as Python's, also inside a list or tuple: "Got np.int64(0) instead" (a value
    from np.arange or a search grid) said more about numpy than about the value."""
    import numpy as np  # loaded already by every caller

    if type(value) in (list, tuple) and len(value) <= 1000:
        return type(value)(_plain(v) for v in value)
    # a numpy scalar, not a 0-d array: "Got array(1.) instead" says why a number was refused
    return value.item() if isinstance(value, np.generic) else value


def check_flags(**flags: Any) -> None:
    """Each keyword's value a boolean (Python's or numpy's), else the parameter error naming the first that is
    not: ``bool("no")`` is True, so verbose="no" would print the solver's log."""
    import numpy as np  # loaded already by every caller

    for name, value in flags.items():
        if not isinstance(value, (bool, np.bool_)):
            raise param_error(name, "True or False", value)


def check_callback(name: str, value: Any, *, optional: bool = False) -> None:
    """``value`` a function taking one line of text (or None when ``optional``), else the parameter error:
    echo=None failed as "'NoneType' object is not callable" after the work began."""
    if not callable(value) and not (optional and value is None):
        raise param_error(name, ("None or " if optional else "") + "a function taking one line of text (such as "
                          "print)", value)


def number_text(text: str, kind: type = float) -> Any:
    """``kind(text)`` (float or int) without Python's digit grouping, which reads '0_5' as 5: no one writing
    an option or a cell means that. Raises ValueError as ``float`` does."""
    if "_" in text:
        raise ValueError(f"digit grouping in {text!r}")
    return kind(text)


def is_integer(value: Any) -> TypeGuard[int]:
    """An integer (Python's or numpy's), not a bool: ``True`` is an int in Python, never a count here."""
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def is_real(value: Any) -> TypeGuard[float]:
    """A real number (int, float, numpy scalars), not a bool and not a string."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


#: A field absent from a document (a manifest, a tree JSON, grid.json): ``brief`` says "nothing (missing)".
MISSING: Any = object()


def brief(value: Any, limit: int = 60) -> str:
    """What a document field holds, in a few words for a one-line message: JSON's null/true/false,
    "a list of N", "an object", or the value's repr shortened to ``limit`` characters."""
    if value is MISSING:
        return "nothing (missing)"
    if value is None or isinstance(value, bool):
        return json.dumps(value)
    if isinstance(value, (list, tuple)):
        return f"a list of {len(value)}"
    if isinstance(value, dict):
        return "an object"
    return shorten(repr(value), limit)


def shorten(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters (the last three "...") so that a message stays readable."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def first_repeat(items: Sequence[Hashable]) -> int | None:
    """The index of the first item equal to an earlier one (None: all distinct), in one pass: names a user gives
    (feature names, --drop, a tree file's columns) are checked this way, a tree's on every predict."""
    seen: set[Hashable] = set()
    for k, item in enumerate(items):
        if item in seen:
            return k
        seen.add(item)
    return None


def not_utf8(exc: UnicodeDecodeError, offset: int | None = None) -> str:
    """"not UTF-8 text (byte 0xNN at offset N)" for a decoding error (``offset``: in the whole file, where the
    error's own is in the decoded part only)."""
    return f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset {exc.start if offset is None else offset})"
