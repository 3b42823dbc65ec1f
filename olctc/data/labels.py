"""Class labels: a label cell read as a number or a text, the two classes sorted and mapped to -1/+1."""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from olctc.data.cells import _INT_TEXT, _LEADING_ZERO, Label, line_of, _looks_missing, _parse_float, _shown
from olctc.errors import OlctcError, shorten, warn


def _label_value(s: str) -> Label:
    """A label cell as a number when it reads as one, else the text itself: "1", "1.0" and "1e0" are one class
    (as pandas reads them, and as a test file written by another tool spells them), "007" is a code, kept as text."""
    if _INT_TEXT.fullmatch(s):
        try:
            return int(s)  # exact at any size: float() would merge 12345678901234567890 and ...891
        except ValueError:  # above Python's 4300 digits (sys.set_int_max_str_digits): a code, kept as text
            return s
    if _LEADING_ZERO.match(s):
        return s  # "007" is a code, not 7
    f = _parse_float(s)
    if f is None or not math.isfinite(f):
        return s
    return int(f) if f.is_integer() and abs(f) < 2 ** 53 else f


def binarise_labels(raw: Sequence[Any], positive_class: Any = None, source: str = "data",
                    target: str = "y") -> tuple[np.ndarray, tuple[Label, Label]]:
    """Map two class labels to -1/+1; the positive one is ``positive_class`` or the second sorted."""
    vals = [_label_value(str(v).strip()) if isinstance(v, str) else _py(v) for v in raw]
    uniq = sorted(set(vals), key=_sort_key)
    if len(uniq) < 2:
        got = uniq[0] if uniq else "nothing"
        raise OlctcError(f"{source}: target {target!r} has one class only ({got!r}{_spellings(raw)}); "
                         "a classifier needs two")
    if positive_class is None:
        if len(uniq) > 2:
            blank = next((u for u in uniq if _looks_missing(u)), None)
            hint = "" if blank is None else f"; {blank!r} looks like a missing label: drop those rows"
            raise OlctcError(f"{source}: target {target!r} has {len(uniq)} classes {_listed(uniq)}; olctc trains "
                             f"binary trees: pick one with --positive-class, positive_class= in Python (one class "
                             f"against the rest){hint}")
        pos = uniq[1]
    else:
        pos_v = _label_value(str(positive_class).strip()) if isinstance(positive_class, str) else _py(positive_class)
        matches = [u for u in uniq if u == pos_v or str(u) == str(positive_class)]
        if not matches:
            raise OlctcError(f"{source}: positive class {positive_class!r} is not a value of target "
                             f"{target!r}; its values are {_listed(uniq)}{_case_hint(positive_class, uniq)}")
        pos = matches[0]
    rest = [u for u in uniq if u != pos]
    neg: Label = rest[0] if len(rest) == 1 else f"not {pos}"
    for c in (neg, pos):
        if isinstance(c, str) and not is_unicode(c):
            # Every file olctc writes is UTF-8: the tree of such a class could not be saved after the solve.
            raise OlctcError(f"{source}: class label {shorten(repr(c))} of target {target!r} is not valid Unicode "
                             f"text (a lone surrogate)")
    y = np.where(np.asarray([v == pos for v in vals]), 1, -1).astype(np.int8)
    return y, (neg, pos)


def _spellings(raw: Sequence[Any]) -> str:
    """', read as one number from the cells '1', '1.0'' when the one class has several spellings (every label
    reads as the same number), else '': the message then explains why the file's two texts are one class."""
    texts = sorted({v.strip() for v in raw if isinstance(v, str)})
    if len(texts) < 2:
        return ""
    shown = ", ".join(shorten(repr(t), 30) for t in texts[:3])
    return f", read as one number from the cells {shown}{', ...' if len(texts) > 3 else ''}"


def _listed(labels: Sequence[Any]) -> str:
    """The first 10 labels, each cut short: a message names them without quoting a whole long text cell (a
    target of free text has as many labels as rows)."""
    shown = ", ".join(shorten(repr(v), 30) for v in labels[:10])
    return f"[{shown}{', ...' if len(labels) > 10 else ''}]"


def _case_hint(label: Any, classes: Sequence[Any]) -> str:
    """'; did you mean 'True'?' when ``label`` matches one class's text but for case, else ''."""
    # Labels match exactly (the value or its text): 'yes' and 'Yes' may be two classes. Only a hint, then.
    text = str(label).strip().casefold()
    near = [c for c in classes if str(c).casefold() == text]
    return f"; did you mean {_shown(near[0])!r}?" if len(near) == 1 else ""


def is_unicode(text: str) -> bool:
    """Whether ``text`` has a UTF-8 form (no lone surrogate): every file olctc writes is UTF-8."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _py(v: Any) -> Label:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return int(v) if float(v).is_integer() else float(v)
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, float) and v.is_integer():
        return int(v)
    return v


def _sort_key(v: Label) -> tuple[int, Any]:
    return (0, v) if isinstance(v, (int, float)) else (1, str(v))


def json_label(v: Any) -> Any:
    """A class label as JSON can hold it (numpy numbers and booleans as Python ones)."""
    if isinstance(v, np.bool_):  # json cannot write numpy's bool, and label_key would read it as "True", not "1"
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    return v


def _no_label(cell: str) -> bool:
    """An empty cell or NaN in any spelling ("nan", "NaN", "-nan": pandas' missing label) is no class."""
    f = _parse_float(cell)
    return cell == "" or (f is not None and math.isnan(f))


def _warn_missing_marker(labels: Sequence[str], y: np.ndarray, classes: tuple[Label, Label], chosen: bool,
                         source: str, target: str, lines: Sequence[int] | np.ndarray) -> None:
    """Warn when a label that reads as a missing value ("NA") trains as a class: with --positive-class it
    joined the negatives without a word, and two such rows made a class of their own."""
    k = next((k for k, v in enumerate(labels) if _looks_missing(v) and not (chosen and y[k] > 0)), None)
    if k is None:
        return
    cls = classes[1] if y[k] > 0 else classes[0]
    warn(f"{source}: target {target!r} line {line_of(k, lines)}: label {labels[k]!r} looks like a missing "
         f"value, yet trains as class {_shown(cls)!r}; drop the unlabelled rows if it is one")
