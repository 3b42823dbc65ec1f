"""CLI commands on a trained tree: ``export``, ``predict``, ``explain``.

Plain ``click`` commands; the main group in ``olctc.cli`` registers them and turns OlctcError into
``error: ...`` with exit code 2.
"""
from __future__ import annotations

import csv
import io
import json
from collections.abc import Sequence
from pathlib import Path

import click

from olctc.errors import OlctcError, shorten


def _load_tree(path: str):
    from olctc.export.json import load

    return load(Path(path))


def _columns_needed(tree) -> list[str]:
    return list(dict.fromkeys(c.name for c in tree.schema.columns))


def _near_miss(name: str, header: list[str]) -> str:
    """A hint when the header holds ``name`` in another case or another Unicode form (NFC vs NFD)."""
    import unicodedata

    def key(s: str) -> str:
        return unicodedata.normalize("NFC", s).casefold()

    near = next((h for h in header if key(h) == key(name)), None)
    if near is None:
        return ""
    if unicodedata.normalize("NFC", near) == unicodedata.normalize("NFC", name):
        return (f"; the file has {near!r}, the same name in other Unicode code points ({ascii(near)}; the "
                f"tree's is {ascii(name)}): rename the column to the tree's spelling")
    return f"; the file has {near!r} (names are case-sensitive)"


def _cells(tree, path: str, header: list[str], rows: list[list[str]],
           first_line: int | Sequence[int] = 2) -> dict[str, list]:
    """Cells of the columns the tree needs (numbers parsed); errors name the column and the file line.

    ``first_line``: the file line of ``rows[0]`` (an int), or each row's line from ``read_table``
    (a quoted cell may span lines).

    A missing column, an empty cell, or a numeric cell that is not a finite number is an error.
    """
    from olctc.data import SEPARATORS_READ, _to_float_column, line_of

    kinds = {c.name: c.kind for c in tree.schema.columns}
    needed = _columns_needed(tree)
    missing = [c for c in needed if c not in header]
    if missing and len(header) == 1 and len(needed) > 1:
        # "a b c" read as one column: say so, not "13 columns missing"
        raise OlctcError(f"{path}: the header is one column {shorten(header[0])!r} and the tree needs "
                         f"{len(needed)}: {SEPARATORS_READ}")
    if missing:
        shown = ", ".join(repr(c) for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise OlctcError(f"{path}: feature column {missing[0]!r} is missing "
                         f"({len(missing)} missing: {shown}); the tree needs {len(needed)} columns"
                         + _near_miss(missing[0], header))
    cells: dict[str, list[str]] = {}
    for name in needed:
        i = header.index(name)
        vals = [r[i].strip() for r in rows]
        empty = [k for k, v in enumerate(vals) if v == ""]
        if empty:
            raise OlctcError(f"{path}: line {line_of(empty[0], first_line)} column {name!r}: empty cell; "
                             "the tree needs a value for every feature")
        cells[name] = _to_float_column(vals, name, path, first_line) if kinds[name] == "numeric" else vals
    return cells


def _unseen_notes(tree, cells: dict[str, list], first_line: int | Sequence[int] = 2) -> list[str]:
    """One note per categorical column holding categories the tree never saw in training.

    They encode as none of the column's categories (all its indicators 0), as scikit-learn's
    ``handle_unknown='ignore'``: the prediction is made, but the user is told.
    """
    from olctc.data import line_of

    notes = []
    for col in tree.schema.columns:
        if col.kind != "categorical":
            continue
        known = set(col.categories)
        rows = [k for k, v in enumerate(cells[col.name]) if v not in known]
        if rows:
            first = cells[col.name][rows[0]]
            notes.append(f"note: column {col.name!r}: {len(rows)} row(s) hold a category the tree never saw "
                         f"(first {first!r} at line {line_of(rows[0], first_line)}): encoded as none of its "
                         f"{len(known)} categories")
    return notes


# ---------------------------------------------------------------- export

@click.command("export")
@click.argument("tree", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", default=None,
              help="json, python, onnx, text, dot, png or svg (default: from the -o suffix; needed to "
                   "write to standard output).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="File to write; without it, or with -o -, text formats (all but onnx and png) go to "
                   "standard output.")
def export_cmd(tree: str, fmt: str | None, output: str | None) -> None:
    """Export the tree in TREE (JSON) as code, ONNX, text, DOT or a picture."""
    from olctc.export import BINARY, EXPORTERS, SUFFIXES, export_tree, render
    from olctc.io import check_not_input, check_not_stdout, is_stdout

    if is_stdout(output):
        if fmt is None:
            raise OlctcError(f"-o - (standard output) has no suffix to tell the format: say which with --format "
                             f"({', '.join(f for f in EXPORTERS if f not in BINARY)})")
        if fmt in BINARY:
            check_not_stdout(output, f"and --format {fmt} is binary data, which olctc writes only to a file",
                             f"a file name such as -o tree.{fmt}")
        output = None  # as without -o
    if fmt is None:
        if output is None or Path(output).suffix.lower() not in SUFFIXES:
            raise OlctcError(f"say which format with --format ({', '.join(EXPORTERS)}) "
                             f"or give -o a name ending in {', '.join(SUFFIXES)}")
        fmt = SUFFIXES[Path(output).suffix.lower()]
    if fmt not in EXPORTERS:
        raise OlctcError(f"unknown export format {fmt!r}; expected one of {', '.join(EXPORTERS)}")
    if output is None and fmt in BINARY:
        raise OlctcError(f"--format {fmt} writes binary data: give an output file with -o FILE")
    named = SUFFIXES.get(Path(output).suffix.lower()) if output is not None else None
    if named is not None and named != fmt:  # --format svg -o t.png wrote SVG text into t.png
        own = next(k for k, v in SUFFIXES.items() if v == fmt)
        raise OlctcError(f"-o {output} is the name of a {named} file, but --format is {fmt}: name it "
                         f"{str(output)[:-len(Path(output).suffix)]}{own}, or leave --format out")
    check_not_input(output, ("tree", tree))
    t = _load_tree(tree)
    if output is None:
        click.echo(render(t, fmt).decode("utf-8"), nl=False)
        return
    export_tree(t, fmt, output)
    click.echo(f"{fmt} written to {output}")


# ---------------------------------------------------------------- predict

@click.command("predict")
@click.argument("tree", type=click.Path(dir_okay=False))
@click.argument("data", type=click.Path(dir_okay=False))
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@click.option("--id-column", default=None, help="Copy this column of DATA.csv into the output.")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="CSV to write, such as NAME.csv (the suffix of another format, .json, .py ..., is refused); "
                   "without it, or with -o -, standard output.")
def predict_cmd(tree: str, data: str, proba: bool, id_column: str | None, output: str | None) -> None:
    """Predict the class of every row of DATA.csv with the tree in TREE."""
    from olctc.data import read_table
    from olctc.io import atomic_write_text, is_stdout

    if is_stdout(output):
        output = None  # as without -o
    if output is not None:
        from olctc.io import check_not_input, check_suffix, check_writable

        check_writable(output)  # before any work or note
        check_not_input(output, ("tree", tree), ("data", data))
        # CSV is text: a .txt of predictions is no mistake, a .json or .py is
        check_suffix(output, "predict", "predictions (CSV)", (".csv", ".txt"))
    t = _load_tree(tree)
    table = read_table(data)
    header, rows, lines = table.header, table.rows, table.lines
    if id_column is not None and id_column not in header:
        raise OlctcError(f"{data}: --id-column {id_column!r} is not a column; columns are: "
                         f"{', '.join(header[:12])}" + (" ..." if len(header) > 12 else ""))
    head = ([id_column] if id_column else []) + ["prediction"] + ([f"proba_{c}" for c in t.classes] if proba else [])
    if id_column is not None and head.count(id_column) > 1:
        raise OlctcError(f"{data}: --id-column {id_column!r} has the name of an output column; the output "
                         f"columns would be {', '.join(head)}: rename that column of the CSV file")
    cells = _cells(t, data, header, rows, lines)
    for note in _unseen_notes(t, cells, lines):
        click.echo(note, err=True)
    extra = [h for h in header if h not in cells and h != id_column]
    if extra:
        shown = ", ".join(repr(h) for h in extra[:8]) + (" ..." if len(extra) > 8 else "")
        click.echo(f"note: ignoring {len(extra)} column(s) the tree does not use: {shown}", err=True)
    X = t.encode(cells, str(data))
    labels = t.predict(X)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(head)
    P = t.predict_proba(X) if proba else None
    ids = [r[header.index(id_column)] for r in rows] if id_column else None
    for k in range(len(rows)):
        line = ([ids[k]] if ids else []) + [str(labels[k])]
        if P is not None:
            line += [repr(float(P[k, 0])), repr(float(P[k, 1]))]
        w.writerow(line)
    if output is None:
        click.echo(buf.getvalue(), nl=False)
        return
    atomic_write_text(output, buf.getvalue())
    click.echo(f"{len(rows)} prediction(s) written to {output}")


# ---------------------------------------------------------------- explain

@click.command("explain")
@click.argument("tree", type=click.Path(dir_okay=False))
@click.option("--data", required=True, type=click.Path(dir_okay=False), help="CSV holding the row.")
@click.option("--row", "row", required=True, type=int, help="Data row to explain, 0-based (0 = first data row).")
@click.option("--top", default=5, show_default=True, type=int, help="Features shown per node.")
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
def explain_cmd(tree: str, data: str, row: int, top: int, as_json: bool) -> None:
    """Explain one prediction: the path, each node's confidence and its top feature contributions."""
    from olctc.data import read_table
    from olctc.export._names import printable

    t = _load_tree(tree)
    table = read_table(data)
    header, rows, lines = table.header, table.rows, table.lines
    if not 0 <= row < len(rows):
        span = f"0 to {len(rows) - 1}" if rows else "none"
        raise OlctcError(f"--row {row} is out of range: {data} has {len(rows)} data row(s) ({span})")
    if top < 1:
        raise OlctcError(f"--top must be at least 1; got {top}")
    cells = _cells(t, data, header, [rows[row]], first_line=int(lines[row]))
    for note in _unseen_notes(t, cells, first_line=int(lines[row])):
        click.echo(note, err=True)
    X = t.encode(cells, str(data))
    ex = t.explain(X[0], top=top)
    if as_json:
        click.echo(json.dumps({"row": row, **ex.to_dict()}, indent=1, ensure_ascii=False, allow_nan=False))
        return
    head = f"row {row} (line {lines[row]} of {data})"
    click.echo("\n".join([head] + ex.lines(name=lambda f: printable(f, 60))))
