"""Safe display of user-controlled names (features, columns, class labels) in exported artifacts.

Names come from CSV headers and cells: they may hold quotes, newlines, control characters, code, or
10,000 characters. Every exporter shows them only through these helpers (or ``repr`` inside code).
"""
from __future__ import annotations

from typing import Any


def printable(name: Any, limit: int = 40) -> str:
    """One line, printable characters only (others as escapes), at most ``limit`` characters."""
    s = str(name)
    out = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in s)
    if len(out) > limit:
        out = out[: max(limit - 1, 1)] + "…"
    return out


def comment(name: Any, limit: int = 80) -> str:
    """Text safe inside a ``#`` comment of generated code: ``repr`` (no line breaks), truncated."""
    r = repr(str(name))
    # repr escapes every non-printable character, so the comment cannot end early; the cut may split
    # an escape, which is harmless in a comment.
    return r if len(r) <= limit else r[: limit - 4] + "...'"
