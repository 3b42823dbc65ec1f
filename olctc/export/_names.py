"""Safe display of user-controlled names (features, columns, class labels) in exported artifacts.

Names come from CSV headers and cells: they may hold quotes, newlines, control characters, code, or
10,000 characters. Every exporter shows them only through these helpers (or ``repr`` inside code).
"""
from __future__ import annotations

from typing import Any, Callable, Sequence


def labels_as_text(classes: Sequence[Any]) -> bool:
    """Whether an export writes both class labels as text: beside a str label, when an int label is beyond int64,
    or when one beyond 2^53 sits beside a float label (numbers, the two would share one double type, which
    rounds 2**53 + 1 to 2**53). ONNX's label tensor and SQL's CASE both follow this rule."""
    ints = [c for c in classes if isinstance(c, int)]
    return (any(isinstance(c, str) for c in classes) or any(not -2 ** 63 <= c < 2 ** 63 for c in ints)
            or (any(isinstance(c, float) for c in classes) and any(abs(c) > 2 ** 53 for c in ints)))


def printable(name: Any, limit: int = 40) -> str:
    """One line, printable characters only, at most ``limit`` characters: a name with any other character is
    shown as its Python ``repr`` (quoted, escapes and backslashes spelled out), so a name holding a newline
    and one holding a backslash and an "n" read differently."""
    s = str(name)
    out = s if s.isprintable() else repr(s)
    if len(out) > limit:
        out = out[: max(limit - 1, 1)] + "…"
    return out


def comment(name: Any, limit: int = 80) -> str:
    """Text safe inside a ``#`` comment of generated code: ``repr`` (no line breaks), truncated."""
    r = repr(str(name))
    # repr escapes every non-printable character, so the comment cannot end early; the cut may split
    # an escape, which is harmless in a comment.
    return r if len(r) <= limit else r[: limit - 4] + "...'"


def invalid_text(tree, ok: Callable[[str], bool] | None = None, names: bool = True) -> str | None:
    """The first column name, category or class label that is not valid Unicode text (or fails ``ok``), or
    None: a description to start an error message with.

    A lone surrogate (``"\\ud800"``: JSON may spell one, ``Tree.from_arrays`` may be given one) has no
    UTF-8 form, so no file (JSON, ONNX) can hold it: writers refuse it with this description instead
    of a UnicodeEncodeError traceback. ``names=False``: categories and class labels only.
    """
    from olctc.data import is_unicode

    good = is_unicode if ok is None else ok
    for k, col in enumerate(tree.schema.columns):
        if names and not good(col.name):
            return f"the name of column {k}, {col.name!r},"
        for cat in col.categories:
            if not good(cat):
                return f"category {cat!r} of column {col.name!r}"
    for what, c in zip(("negative", "positive"), tree.classes):
        if isinstance(c, str) and not good(c):
            return f"the {what} class {c!r}"
    return None


def check_tree(tree) -> None:
    """OlctcError unless ``tree`` is an olctc Tree (None gave "'NoneType' object has no attribute 'schema'")."""
    from olctc.errors import param_error
    from olctc.tree import Tree

    if not isinstance(tree, Tree):
        raise param_error("tree", "an olctc Tree (olctc.fit, olctc.export.json.load)", type(tree).__name__)


def check_text(tree, what: str) -> None:
    """OlctcError when the tree holds text that ``what`` (a file format) cannot store."""
    from olctc.errors import OlctcError

    bad = invalid_text(tree)
    if bad is not None:
        raise OlctcError(f"{bad} is not valid Unicode text (it holds a lone surrogate), which {what} cannot "
                         "store: fix that name")
