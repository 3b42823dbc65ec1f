"""Exporters: a registry of ``format -> (tree -> bytes)`` and one atomic writer.

Every exported artifact takes raw features (the standardisation is folded into the weights) and
categorical columns as their original values.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable

from olctc.errors import OlctcError
from olctc.export._names import check_tree
from olctc.io import atomic_write_bytes, check_path

if TYPE_CHECKING:
    from olctc.tree import Tree


def _json(tree) -> bytes:
    from olctc.export.json import dump

    return dump(tree).encode("utf-8")


def _python(tree) -> bytes:
    from olctc.export.python import export

    return export(tree)


def _onnx(tree) -> bytes:
    from olctc.export.onnx import export  # onnx is heavy: import it only when asked for

    return export(tree)


def _text(tree) -> bytes:
    from olctc.export.text import export

    return export(tree)


def _dot(tree) -> bytes:
    from olctc.export.dot import export

    return export(tree)


def _sql(tree, **options: Any) -> bytes:
    from olctc.export.sql import export

    return export(tree, **options)


def _png(tree) -> bytes:
    from olctc.export.plot import export_png

    return export_png(tree)


def _svg(tree) -> bytes:
    from olctc.export.plot import export_svg

    return export_svg(tree)


EXPORTERS: dict[str, Callable[..., bytes]] = {
    "json": _json, "python": _python, "onnx": _onnx, "sql": _sql, "text": _text, "dot": _dot, "png": _png,
    "svg": _svg,
}

# File suffix -> format, to infer ``--format`` from the output name.
SUFFIXES: dict[str, str] = {
    ".json": "json", ".py": "python", ".onnx": "onnx", ".txt": "text", ".text": "text", ".dot": "dot",
    ".gv": "dot", ".sql": "sql", ".png": "png", ".svg": "svg",
}

BINARY = frozenset({"onnx", "png"})

# Format -> the keyword options its exporter takes.
OPTIONS: dict[str, frozenset[str]] = {"sql": frozenset({"table"})}


def render(tree: Tree, fmt: str, **options: Any) -> bytes:
    """The artifact of format ``fmt`` as bytes. ``options``: the format's own (``OPTIONS``), such as
    ``table="sales.customers"`` for sql."""
    if fmt not in EXPORTERS:
        raise OlctcError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORTERS)}")
    allowed = OPTIONS.get(fmt, frozenset())
    for name in options:
        if name not in allowed:
            takers = [f for f, names in OPTIONS.items() if name in names]
            where = f"applies to format {', '.join(takers)} only" if takers else "is unknown"
            has = f"format {fmt} takes {', '.join(sorted(allowed))}" if allowed else f"format {fmt} takes none"
            raise OlctcError(f"export option {name!r} {where}; {has}")
    check_tree(tree)
    return EXPORTERS[fmt](tree, **options)


def export_tree(tree: Tree, fmt: str, path: str | os.PathLike[str], **options: Any) -> None:
    """Write ``tree`` in format ``fmt`` to ``path`` atomically (whole or not at all). ``options``: the
    format's own (``render``)."""
    check_path(path, "path")  # before the work: bytes or None named no parameter
    data = render(tree, fmt, **options)
    atomic_write_bytes(path, data)
