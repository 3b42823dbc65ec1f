"""Weights: class weights given by class label, and per-point weights, checked against the classes."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from olctc.data.cells import Label, _shown
from olctc.data.labels import _case_hint, _label_value, _py
from olctc.errors import OlctcError, is_real, number_text, param_error


def class_weight_by_label(request: Any, classes: tuple[Label, Label],
                          option: str | None = None) -> str | tuple[float, float] | None:
    """A class weight request in terms of class labels -> the spec's form (``olctc.spec.parse_class_weight``).

    ``request``: None, "balanced", a dict {label: weight} (scikit-learn's form; a class not named weighs 1)
    or the command line's text "LABEL=WEIGHT[,LABEL=WEIGHT]" (a label may hold commas and '=' signs, see
    ``_label_weight_items``). Labels match as ``positive_class`` does (the value or its text). Returns None,
    "balanced" or (weight of ``classes[0]``, weight of ``classes[1]``).
    ``option``: the command-line option that gave it, for the error messages.
    """
    from olctc.spec import parse_class_weight

    def bad(expected: str) -> OlctcError:
        return param_error("class_weight", expected, _shown(request), option)

    if request is None:
        return None
    form = "'balanced' or weights by class label ('LABEL=WEIGHT,LABEL=WEIGHT' or a dict)"
    if isinstance(request, str):
        if request.strip().lower() == "balanced":
            return "balanced"
        items = _class_items(request, classes) or _label_weight_items(request)
        if items is None:
            raise bad(form)
    elif isinstance(request, dict):
        items = list(request.items())
    else:
        raise bad("None, " + form)
    shown = [_shown(c) for c in classes]  # the estimator's classes are numpy scalars: np.str_('a') in a message
    weights: list[float | None] = [None, None]
    for label, weight in items:
        hits = _class_hits(label, classes)
        if not hits:
            raise bad(f"weights of the classes {shown} ({_shown(label)!r} is not one"
                      f"{_case_hint(label, classes)})")
        k = hits[0]
        if weights[k] is not None:
            raise bad(f"one weight per class (class {shown[k]!r} has two)")
        w = _class_weight_value(weight)
        if w is None:
            raise bad(f"finite weights > 0 (class {shown[k]!r} has {_shown(weight)!r})")
        weights[k] = w
    return parse_class_weight(tuple(1.0 if w is None else w for w in weights))


def _class_hits(label: Any, classes: tuple) -> list[int]:
    """Indices of the classes ``label`` names, as ``positive_class`` matches: the value, or its text."""
    key = _label_value(label) if isinstance(label, str) else _py(label)
    return [k for k, c in enumerate(classes) if c == key or str(c) == str(label)]


def _class_items(text: str, classes: tuple) -> list[tuple[str, str]] | None:
    """"LABEL=WEIGHT[,LABEL=WEIGHT]" split so that every label is one of ``classes``, or None. A label may hold
    both ',' and '=' ("x=1, y", whose weight "x=1, y=3" gives): read without the classes, "x=1" and " y=3"."""
    parts = text.split(",")

    def split(i: int) -> list[tuple[str, str]] | None:
        if i == len(parts):
            return []
        for j in range(i + 1, len(parts) + 1):
            head, eq, weight = ",".join(parts[i:j]).rpartition("=")
            if eq and weight.strip() and "," not in weight and _class_hits(head.strip(), classes):  # no ',' in a weight
                rest = split(j)
                if rest is not None:
                    return [(head.strip(), weight.strip())] + rest
        return None

    return split(0) if len(parts) <= 2 * len(classes) + 8 else None  # two weights: a few parts at most


def _label_weight_items(text: str) -> list[tuple[str, str]] | None:
    """"LABEL=WEIGHT[,LABEL=WEIGHT]" as (label, weight) texts, stripped; None when malformed.

    A weight is a number, so it holds neither ',' nor '=': the weight is after a part's last '=', and a part
    without '=' is the start of a label with a comma, continued by the next part ("yes, sick=3").
    """
    items, label = [], ""
    for part in text.split(","):
        head, eq, weight = part.rpartition("=")
        if not eq:
            label += part + ","
            continue
        label += head
        if not label.strip():
            return None
        items.append((label.strip(), weight.strip()))
        label = ""
    return None if label else items


def _class_weight_value(weight: Any) -> float | None:
    """A class weight (a number, or its text) as a float if finite and > 0, else None."""
    try:
        w = number_text(weight) if isinstance(weight, str) else float(weight) if is_real(weight) else None
    except (ValueError, OverflowError):  # OverflowError: a Python int beyond float64 (10**400)
        return None
    return w if w is not None and 0 < w < math.inf else None


def check_weights(weight: np.ndarray, y: np.ndarray, classes: tuple[Label, Label], what: str,
                  where: Any = lambda k: f"row {k}") -> None:
    """Per-point weights must be finite and >= 0, and each class must weigh something (a class of weight
    0 leaves a one-class problem). ``what`` starts each message, ``where(k)`` names point k."""
    bad = ~np.isfinite(weight)
    if bad.any():
        k = int(np.argmax(bad))
        raise OlctcError(f"{what}: {where(k)}: expected a finite number >= 0, got {float(weight[k])!r}")
    neg = weight < 0
    if neg.any():
        k = int(np.argmax(neg))
        raise OlctcError(f"{what}: {where(k)}: expected a weight >= 0, got {float(weight[k])!r}")
    with np.errstate(over="ignore"):
        total = float(np.sum(weight))
    if not math.isfinite(total):  # the model's sums of weighted losses (and "balanced") would overflow
        raise OlctcError(f"{what}: the weights sum past the float range (1.8e308); divide them all by one "
                         "number (the model weighs them against the penalty as C does: a larger C "
                         "compensates)")
    check_classes_weigh(weight, y, classes, what)


def check_classes_weigh(weight: np.ndarray, y: np.ndarray, classes: tuple[Label, Label], what: str,
                        among: str = "", fix: str = "give some of them a weight > 0") -> None:
    """Each class must have a point of weight > 0: a class of weight 0 leaves a one-class problem."""
    for label, sign in zip(classes, (-1, 1)):
        if not (weight[y == sign] > 0).any():
            raise OlctcError(f"{what}: every point of class {_shown(label)!r}{among} weighs 0, which leaves one "
                             f"class to train on; {fix}")


def _weight_array(sample_weight: Any, n: int, y: np.ndarray, classes: tuple[Label, Label]) -> np.ndarray:
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError):
        raise OlctcError("sample_weight must be numbers, one per row of X") from None
    except OverflowError:
        raise OlctcError("sample_weight holds an integer too large for a float64 (above 1.8e308)") from None
    if w.ndim == 0:  # scikit-learn's _check_sample_weight: a scalar weighs every point alike
        w = np.full(n, float(w))
    if w.shape != (n,):
        raise OlctcError(f"sample_weight must be 1-D with one weight per row of X ({n}); got shape {w.shape}")
    check_weights(w, y, classes, "sample_weight")
    return w
