"""CLI commands on a trained tree: ``export``, ``predict``, ``explain``.

Plain ``click`` commands; the main group in ``olctc.cli`` registers them and turns OlctcError into
``error: ...`` with exit code 2.
"""
from __future__ import annotations

import contextlib
import csv
import io
import json
from collections.abc import Iterable, Sequence
from operator import itemgetter
from pathlib import Path
from typing import IO

import click
import numpy as np

from olctc.cli import InputPath, load_tree_file  # InputPath refuses an empty name
from olctc.errors import OlctcError, shorten


def _columns_needed(tree) -> list[str]:
    return list(dict.fromkeys(c.name for c in tree.schema.columns))


#: Characters that show as nothing: a second byte-order mark (a file saved twice with one), zero-width spaces and
#: joiners, the word joiner, the soft hyphen.
_INVISIBLE = dict.fromkeys(map(ord, "\ufeff\u200b\u200c\u200d\u2060\u00ad"))


def _seen_as(s: str) -> str:
    """``s`` as it shows: without ``_INVISIBLE`` characters, in NFC (macOS writes NFD)."""
    import unicodedata

    return unicodedata.normalize("NFC", s.translate(_INVISIBLE))


def _near_miss(name: str, header: list[str]) -> str:
    """A hint when the header holds ``name`` in another case, another Unicode form (NFC vs NFD), or with or
    without characters that show as nothing (``_INVISIBLE``)."""
    import unicodedata

    near = next((h for h in header if _seen_as(h).casefold() == _seen_as(name).casefold()), None)
    if near is None:
        return ""
    if near != name and near.translate(_INVISIBLE) == name:
        return (f"; the file has {ascii(near)}, the same name with characters that show as nothing (a byte-order "
                "mark, a zero-width space): remove them from the header")
    if near == name.translate(_INVISIBLE):  # the tree's name holds them (a header fitted on had a zero-width space)
        return (f"; the file has {near!r}, the same name without the characters that show as nothing in the tree's "
                f"({ascii(name)}): rename the column to the tree's spelling")
    if unicodedata.normalize("NFC", near) == unicodedata.normalize("NFC", name):
        return (f"; the file has {near!r}, the same name in other Unicode code points ({ascii(near)}; the "
                f"tree's is {ascii(name)}): rename the column to the tree's spelling")
    return f"; the file has {near!r} (names are case-sensitive)"


def _look_alike(value: str, known: set[str]) -> str:
    """", the same text as 'x' in other Unicode code points (...)" when ``value`` is a known category spelled
    otherwise (NFD on macOS, an invisible character): it looks the same and matches nothing."""
    same = next((k for k in sorted(known) if _seen_as(k) == _seen_as(value)), None)
    return "" if same is None else (f", the same text as {same!r} in other Unicode code points: {ascii(value)} against "
                                    f"{ascii(same)}")


def _missing_columns(tree, path: str, header: list[str]) -> OlctcError | None:
    """The error for feature columns the header lacks, or None."""
    from olctc.data import SEPARATORS_READ
    from olctc.data.table import ADD_HEADER, headerless_hint

    needed = _columns_needed(tree)
    missing = [c for c in needed if c not in header]
    if missing and len(header) == 1 and len(needed) > 1:
        # "a b c" read as one column: say so, not "13 columns missing"
        return OlctcError(f"{path}: the header is one column {shorten(header[0])!r} and the tree needs "
                          f"{len(needed)}: {SEPARATORS_READ}")
    if missing:
        shown = ", ".join(repr(c) for c in missing[:5]) + (" ..." if len(missing) > 5 else "")
        hint = _near_miss(missing[0], header)
        if not hint and len(missing) == len(needed) > 1:  # a file without its header line: the names are data
            hint = headerless_hint(header) or f"; the header line names none of the tree's columns: {ADD_HEADER}"
        return OlctcError(f"{path}: feature column {missing[0]!r} is missing "
                          f"({len(missing)} missing: {shown}); the tree needs {len(needed)} columns{hint}")
    return None


class _CellChecks:
    """Cells of the columns the tree needs, checked chunk by chunk of a file as if all of it at once.

    An empty cell, or a numeric cell that is not a number or not finite, is an error naming the column and
    the file line. The error raised (``error``) is the file's first faulty row's (in it, the first column in
    the tree's order with a fault): naming a later line first sent the user back to fix an earlier one next.
    Categories the tree never saw are counted for ``notes`` over every row.
    """

    def __init__(self, tree, path: str, header: list[str]) -> None:
        self.path = path
        self.numeric = {c.name for c in tree.schema.columns if c.kind == "numeric"}
        self.index = {name: header.index(name) for name in _columns_needed(tree)}
        self.fault: tuple[int, OlctcError] | None = None  # (file line, error) of the first faulty row
        self.categorical = [(c, set(c.categories)) for c in tree.schema.columns if c.kind == "categorical"]
        self.unseen: dict[int, list] = {}  # index in categorical -> [rows, first cell, its line]

    @property
    def error(self) -> OlctcError | None:
        return None if self.fault is None else self.fault[1]

    def cells(self, chunk) -> dict[str, list | np.ndarray] | None:
        """The cells of ``chunk`` (a ``RowChunk``; numbers parsed), or None once the file has a fault."""
        from olctc.data.cells import _finite_column, _parse_column

        cells: dict[str, list | np.ndarray] = {}
        for name, i in self.index.items():
            vals = list(map(str.strip, map(itemgetter(i), chunk.rows)))
            error = None
            if "" not in vals:
                if name not in self.numeric:
                    cells[name] = vals
                    continue
                try:
                    cells[name] = _finite_column(_parse_column(vals, name, self.path, chunk.lines), vals, name,
                                                 self.path, chunk.lines)
                    continue
                except OlctcError as exc:
                    error = exc.with_traceback(None)  # errors are kept without their traceback (it holds the chunk)
            # a fault in this column: the cell-by-cell pass finds which comes first (an empty cell always does)
            fault = self._first_fault(name, vals, chunk.lines)
            if fault is None and error is not None:  # not expected: the column's check found what no cell's did
                fault = (chunk.lines[0], error)
            if fault is not None and (self.fault is None or fault[0] < self.fault[0]):
                self.fault = fault
        if self.fault is not None:
            return None
        self._count_unseen(cells, chunk.lines)
        return cells

    def _empty(self, name: str, line: int) -> OlctcError:
        return OlctcError(f"{self.path}: line {line} column {name!r}: empty cell; the tree needs a value for every "
                          "feature")

    def _first_fault(self, name: str, vals: list[str], lines: list[int]) -> tuple[int, OlctcError] | None:
        """(line, error) of the first cell of ``vals`` that is empty, or, in a numeric column, no number or
        not finite (a fault is known to be there: the error path only)."""
        from olctc.data.cells import _finite_column, _parse_column

        for k, v in enumerate(vals):
            if v == "":
                return lines[k], self._empty(name, lines[k])
            if name not in self.numeric:
                continue
            try:
                _finite_column(_parse_column([v], name, self.path, [lines[k]]), [v], name, self.path, [lines[k]])
            except OlctcError as exc:
                return lines[k], exc.with_traceback(None)
        return None

    def _count_unseen(self, cells: dict[str, list | np.ndarray], lines: list[int]) -> None:
        # Unseen categories encode as none of the column's categories (all its indicators 0), as
        # scikit-learn's handle_unknown='ignore': the prediction is made, but the user is told.
        for j, (col, known) in enumerate(self.categorical):
            vals = cells[col.name]
            if known.issuperset(vals):
                continue
            rows = [k for k, v in enumerate(vals) if v not in known]
            self.unseen.setdefault(j, [0, vals[rows[0]], lines[rows[0]]])[0] += len(rows)

    def notes(self) -> list[str]:
        """One note per categorical column holding categories the tree never saw."""
        return [f"note: column {col.name!r}: {self.unseen[j][0]} row(s) hold a category the tree never saw "
                f"(first {self.unseen[j][1]!r} at line {self.unseen[j][2]}{_look_alike(self.unseen[j][1], known)}): "
                f"encoded as none of its {len(known)} categories"
                for j, (col, known) in enumerate(self.categorical) if j in self.unseen]


def _note_ignored(header: list[str], checks: _CellChecks, named: tuple[str | None, ...] = ()) -> None:
    """The note on the columns of ``header`` the tree does not use, other than those ``named`` (an id, the
    target), which are used."""
    extra = list(dict.fromkeys(h for h in header if h not in checks.index and h not in named))
    if extra:
        shown = ", ".join(repr(h) for h in extra[:8]) + (" ..." if len(extra) > 8 else "")
        click.echo(f"note: ignoring {len(extra)} column(s) the tree does not use: {shown}", err=True)


# ---------------------------------------------------------------- export

@click.command("export", short_help="Export a tree as code, ONNX, SQL, JSON, text or a picture.")
@click.argument("tree", type=InputPath(dir_okay=False))
@click.option("--format", "fmt", default=None,
              help="json, python, onnx, sql, text, dot, png or svg (default: from the -o suffix; needed to "
                   "write to standard output).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="File to write; without it, or with -o -, text formats (all but onnx and png) go to "
                   "standard output.")
@click.option("--table", default=None, metavar="NAME",
              help="sql: the table (or view) the query reads, such as sales.customers, quoted part by part "
                   "(default: olctc_input); a part holding a dot in double quotes: 'sales.\"q1.data\"'.")
def export_cmd(tree: str, fmt: str | None, output: str | None, table: str | None) -> None:
    """Export the tree in TREE (JSON) as code, ONNX, an SQL query, text, DOT or a picture.

    \b
    python: a module (standard library only) with predict(row) and
      predict_proba(row), row a dict by column name or a sequence in FEATURES
      order: one row per call.
    onnx: all-numeric columns: one input 'input', double (float64), shape
      (N, features), in the tree's feature_names order; with a text column: one
      (N, 1) input per column, named after it, double or string. Outputs 'label'
      (N) and 'probabilities' (N, 2), in the order of the tree's classes.
    sql: one query over --table that keeps its columns and adds olctc_node,
      olctc_score, olctc_proba and olctc_label (NULL for a row it cannot score).
    """
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
    if output is not None and named is not None and named != fmt:  # --format svg -o t.png wrote SVG text into t.png
        own = next(k for k, v in SUFFIXES.items() if v == fmt)
        article = "an" if named[0] in "aeiou" else "a"
        raise OlctcError(f"-o {output} is the name of {article} {named} file, but --format is {fmt}: name it "
                         f"{str(output)[:-len(Path(output).suffix)]}{own}, or leave --format out")
    options = {}
    if table is not None:
        if fmt != "sql":
            raise OlctcError(f"--table names the table an SQL query reads: it applies to --format sql only, not {fmt}")
        from olctc.export.sql import table_parts

        table_parts(table)  # a bad name fails before the tree is read
        options["table"] = table
    check_not_input(output, ("tree", tree))
    t = load_tree_file(tree)
    if output is None:  # color=True: the data unchanged (click.echo strips ANSI codes from a non-terminal)
        click.echo(render(t, fmt, **options).decode("utf-8"), nl=False, color=True)
        return
    export_tree(t, fmt, output, **options)
    click.echo(f"{fmt} written to {output}")


# ---------------------------------------------------------------- predict

class _Sink:
    """Where predictions go while the data file is read: nothing reaches the output before its end.

    With ``-o FILE``, ``atomic_open``'s temporary file beside FILE, renamed onto it by ``stack``'s exit.
    For standard output, and for a device or pipe named by -o (which ``atomic_open`` would write to
    directly), an unnamed temporary file (the file system's free space, not memory), copied out by
    ``deliver``. Reading the data twice instead would cost a second parse (as long as the first) and fail
    on a pipe (``<(zcat big.csv.gz)``).

    A write that fails is remembered, not raised: a fault in the data found later is reported first, as
    when all the data was checked before anything was written.
    """

    def __init__(self, stack: contextlib.ExitStack, output: str | None) -> None:
        import tempfile

        from olctc.io import atomic_open

        self.output = output
        self.error: OSError | OlctcError | None = None
        self.spooled = output is None or (Path(output).exists() and not Path(output).is_file())
        self.fh: IO[str] | None
        if output is not None and not self.spooled:
            from olctc.io import warn_leftovers

            warn_leftovers(output, False, "a predict")
        try:
            self.fh = stack.enter_context(atomic_open(output) if output is not None and not self.spooled
                                          else tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n"))
        except (OSError, OlctcError) as exc:
            self.fh, self.error = None, exc

    def write(self, text: str) -> None:
        """Append ``text``; after a failed write, nothing."""
        if self.error is not None or self.fh is None:  # fh is None only with an error
            return
        try:
            self.fh.write(text)
        except OSError as exc:
            self.error = exc
            with contextlib.suppress(OSError):  # its buffer cannot be written either: drop it
                self.fh.close()

    def deliver(self) -> None:
        """Raise the write error, if any (inside ``stack``: the temporary file goes); else copy a spool out."""
        import tempfile

        from olctc.io import atomic_open

        if isinstance(self.error, OSError) and self.spooled:
            raise OlctcError(f"cannot hold the predictions in a temporary file in {tempfile.gettempdir()}: "
                             f"{self.error.strerror or self.error}; set TMPDIR to a folder with room, or give "
                             "-o FILE") from None
        if self.error is not None:
            raise self.error  # an OSError is turned into "cannot write FILE: ..." by atomic_open
        if not self.spooled:
            return
        fh = self.fh
        assert fh is not None  # None only with an error, raised above
        fh.seek(0)
        with contextlib.nullcontext() if self.output is None else atomic_open(self.output) as out:
            for lines in iter(lambda: fh.readlines(1 << 20), []):
                if out is None:  # color=True: labels unchanged (click.echo strips ANSI codes from a non-terminal)
                    click.echo("".join(lines), nl=False, color=True)
                else:
                    out.write("".join(lines))


def _csv_text(rows: Iterable[Sequence[str]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def _prediction_rows(ids: list[str] | None, labels, P) -> Iterable[Sequence[str]]:
    """Each row's id (if any), label and class probabilities (repr: exact), as the CSV cells to write."""
    # Python ints print as numpy's do, and faster; other labels print as they are (str of each, as before)
    columns = ([ids] if ids is not None else []) + [list(map(str, labels.tolist() if labels.dtype.kind in "iu"
                                                              else labels))]
    if P is not None:
        columns += [list(map(repr, P[:, 0].tolist())), list(map(repr, P[:, 1].tolist()))]
    return zip(*columns)


def _not_a_column(data: str, option: str, name: str, header: Sequence[str]) -> OlctcError:
    from olctc.data.csvfile import _columns_text

    return OlctcError(f"{data}: {option} {name!r} is not a column; columns are: {_columns_text(header, name)}")


class _Scorer:
    """The predictions against the class labels of DATA.csv's --target column, counted chunk by chunk: the
    labels' confusion counts, and the probabilities' log loss and Brier score (summed)."""

    def __init__(self, tree, data: str, header: Sequence[str], target: str) -> None:
        self.tree, self.data, self.target = tree, data, target
        self.where = header.index(target)
        from olctc.data.labels import _label_value
        from olctc.start_tree import label_key

        self.index = {c: k for k, c in enumerate(tree.classes)}  # 0: the negative class, 1: the positive
        # A tree's classes as text, for labels the reader's rule does not give back: an estimator keeps the
        # strings "0" and "1" as given, where the reader makes the cell "0" the number 0, and " dog" stripped;
        # a class "0.0" is the cell "0" read so. An estimator fitted on bools exports the classes 0 and 1
        # (equal to False and True in Python): pandas writes that column as False/True. A key two classes share
        # is no key.
        keys: dict[str, set[int]] = {}
        texts: dict[str, set[int]] = {}
        zero_one = all(isinstance(c, int) and not isinstance(c, bool) for c in tree.classes) \
            and set(tree.classes) == {0, 1}
        for k, c in enumerate(tree.classes):
            text = str(c).strip()
            texts.setdefault(text, set()).add(k)
            for key in (text, label_key(c), label_key(_label_value(text))):
                keys.setdefault(key, set()).add(k)
            if zero_one:
                for key in (str(bool(c)), str(bool(c)).lower(), str(bool(c)).upper()):
                    keys.setdefault(key, set()).add(k)
        self.by_text = {key: ks.pop() for key, ks in keys.items() if len(ks) == 1}
        # A cell spelled as a class is that class, though another class reads as the same value (classes '0.0' and
        # '0': the cell '0' was refused as no class of the tree).
        self.by_text.update((text, ks.pop()) for text, ks in texts.items() if len(ks) == 1)
        self.rest = _one_against_rest(tree.classes)
        self.as_rest: dict[str, None] = {}  # labels scored as the negative class by that rule, in file order
        self.counts = np.zeros((2, 2), dtype=np.int64)  # [true class, predicted class]
        self.log_loss = self.brier = 0.0
        self.error: OlctcError | None = None

    def add(self, chunk, scores: np.ndarray) -> None:
        from olctc.data.labels import _label_value, _no_label  # the rule read_csv reads labels by
        from olctc.start_tree import label_key
        from olctc.tree import sigmoid

        if self.error is not None:
            return
        # Each distinct cell is read once (a label column holds a handful): the rows only look up a code.
        codes: dict[str, int] = {}
        cells = map(itemgetter(self.where), chunk.rows)
        inv = np.fromiter((codes.setdefault(c, len(codes)) for c in cells), dtype=np.intp, count=len(chunk.rows))
        klass = np.full(len(codes), -1, dtype=np.intp)
        for raw, code in codes.items():
            cell = raw.strip()
            c = None
            if not _no_label(cell):
                value = _label_value(cell)
                c = self.index.get(value)
                if c is None:
                    c = self.by_text.get(cell, self.by_text.get(label_key(value)))
                if c is None and self.rest:
                    c = 0  # as training counted it: every label but the positive one is the rest
                    self.as_rest.setdefault(repr(value))
            klass[code] = -1 if c is None else c
        truth = klass[inv]
        bad = np.flatnonzero(truth < 0)
        if bad.size:
            k = int(bad[0])
            cell = chunk.rows[k][self.where].strip()
            classes = ", ".join(map(repr, self.tree.classes))
            what = "no class label" if _no_label(cell) else \
                f"label {shorten(cell)!r} is not one of the tree's classes ({classes})"
            self.error = OlctcError(f"{self.data}: --target {self.target!r} line {chunk.lines[k]}: {what}; drop "
                                    "such rows to score the others, or leave out --target")
            return
        pred = (scores > 0).astype(np.intp)  # Tree.labels_of's rule: positive iff the score is above 0
        np.add.at(self.counts, (truth, pred), 1)
        # -log P(true class) from the score itself: exact where 1 - sigmoid(s) rounds to 0 (no clipping)
        self.log_loss += float(np.logaddexp(0.0, np.where(truth == 1, -scores, scores)).sum())
        self.brier += float(np.square(sigmoid(scores) - truth).sum())

    def line(self) -> str:
        n = int(self.counts.sum())
        if n == 0:
            return f"no rows to score against column {self.target!r}"
        right = np.diag(self.counts)
        per_class = self.counts.sum(axis=1)
        acc = f"accuracy {right.sum() / n:.4f}"
        loss = self.log_loss / n  # unclipped: a confident mistake on a row of 1e308 costs about 1e306
        proba = f"log loss {loss:.4f}" if loss < 1e6 else f"log loss {loss:.4e}"
        proba += f", Brier score {self.brier / n:.4f}"
        if (per_class == 0).any():  # a class with no row has no recall: left out, as scikit-learn and fit do
            k = int(np.argmax(per_class))
            return (f"{acc}, balanced accuracy {right[k] / n:.4f}, {proba} on {n} rows (column {self.target!r}; "
                    f"every row is {self.tree.classes[k]!r}: balanced accuracy is its recall{self._rest_note()})")
        recall = right / per_class
        return (f"{acc}, balanced accuracy {recall.mean():.4f}, {proba} on {n} rows (column {self.target!r}; recall "
                f"{recall[0]:.4f} of {self.tree.classes[0]!r}, {recall[1]:.4f} of {self.tree.classes[1]!r}"
                f"{self._rest_note()})")

    def _rest_note(self) -> str:
        """'; 0, 1 scored as 'not 2'' when the one-against-the-rest rule took labels the tree does not name."""
        if not self.as_rest:
            return ""
        shown = list(self.as_rest)
        more = f" and {len(shown) - 5} more" if len(shown) > 5 else ""
        return f"; {', '.join(shorten(v) for v in shown[:5])}{more} scored as {self.tree.classes[0]!r}"


def _one_against_rest(classes: Sequence) -> bool:
    """Whether a tree's negative class is the rest of a one-against-the-rest fit: "not P" for positive class P.

    Training (``olctc.data.labels.binarise_labels``, ``--positive-class`` on a column of three or more labels)
    names the rest so and records nothing else of it, so the name is the rule. A binary column whose labels
    are literally P and "not P" reads the same: there a label other than the two is "not P" by its class's
    own name, and the score line lists every label so taken.
    """
    neg, pos = classes
    return isinstance(neg, str) and neg == f"not {pos}"  # binarise_labels' own spelling of the rest


@click.command("predict", short_help="Predict every row of a CSV with a tree.")
@click.argument("tree", type=InputPath(dir_okay=False))
@click.argument("data", type=InputPath(dir_okay=False))
@click.option("--proba", is_flag=True, help="Add one probability column per class.")
@click.option("--id-column", default=None, help="Copy this column of DATA.csv into the output.")
@click.option("--target", default=None, metavar="COLUMN",
              help="Score the predictions against the class labels in COLUMN: accuracy, balanced accuracy, "
                   "each class's recall, and the probabilities' log loss and Brier score (on standard error when "
                   "the predictions go to standard output).")
@click.option("-o", "--output", default=None, type=click.Path(dir_okay=False),
              help="CSV to write, such as NAME.csv (the suffix of another format, .json, .py ..., is refused); "
                   "without it, or with -o -, standard output.")
def predict_cmd(tree: str, data: str, proba: bool, id_column: str | None, target: str | None,
                output: str | None) -> None:
    """Predict the class of every row of DATA.csv with the tree in TREE.

    Columns are matched by name, in any order; columns the tree does not use (an identifier, the target)
    are ignored with a note; --target scores the predictions against the labels of one. Every feature
    column must be there and every feature cell filled; a text value not seen in training adds nothing to
    any score.

    DATA.csv is read in chunks of rows, in memory that does not grow with the file. The output appears
    only once all of it has been read and checked: -o FILE is written beside FILE and renamed onto it,
    standard output gets the rows from an unnamed temporary file (in TMPDIR) at the end.
    """
    from olctc.data.csvfile import CsvStream  # TableStream naming faults of CSV syntax (read_csv's too)
    from olctc.io import is_stdout
    from olctc.process_state import check_interrupt
    from olctc.tree import ScoreOverflow

    if is_stdout(output):
        output = None  # as without -o
    if output is not None:
        from olctc.io import check_not_input, check_suffix, check_writable

        check_writable(output)  # before any work or note
        check_not_input(output, ("tree", tree), ("data", data))
        # CSV is text: a .txt of predictions is no mistake, a .json or .py is
        check_suffix(output, "predict", "predictions (CSV)", (".csv", ".txt"))
    t = load_tree_file(tree)
    # pandas' or R's unnamed index column: unused, ignored; so is a column named twice that nothing reads (an
    # export's repeated 'id' was refused, and compile's --drop could not help)
    used = [*_columns_needed(t), *(c for c in (id_column, target) if c is not None)]
    stream = CsvStream(data, index_column=True, needed=used)
    header = stream.header
    head = ([id_column] if id_column else []) + ["prediction"] + ([f"proba_{c}" for c in t.classes] if proba else [])
    # Faults are raised in the order of the checks of the whole file, once all of it has been read:
    # the file's own (raised by stream.chunks), the header's, the cells', the scores'; a write's last.
    fault = None
    if id_column is not None and id_column not in header:
        fault = _not_a_column(data, "--id-column", id_column, header)
    elif id_column is not None and head.count(id_column) > 1:
        fault = OlctcError(f"{data}: --id-column {id_column!r} has the name of an output column; the output "
                           f"columns would be {', '.join(head)}: rename that column of the CSV file")
    if fault is None and target is not None and target not in header:
        fault = _not_a_column(data, "--target", target, header)
    fault = fault or _missing_columns(t, data, header)
    checks = _CellChecks(t, data, header) if fault is None else None
    scorer = _Scorer(t, data, header, target) if target is not None and fault is None else None
    i = header.index(id_column) if id_column and fault is None else None
    overflow = None
    with contextlib.ExitStack() as stack:
        sink = _Sink(stack, output)
        sink.write(_csv_text([head]))
        for chunk in stream.chunks():
            check_interrupt()  # one whose KeyboardInterrupt Python dropped: a large file would be read to its end
            cells = checks.cells(chunk) if checks is not None else None
            if cells is None or overflow is not None or sink.error is not None:
                continue  # read on: the rest of the file may hold a fault that comes first
            X = t.encode(cells, str(data), n_rows=len(chunk.lines))
            try:
                scores = t.decision_function(X)  # once: predict and predict_proba would each score the rows
            except ScoreOverflow as exc:
                k = chunk.first + exc.row
                overflow = ScoreOverflow(k, exc.node, f"{data}: row {k} (line {chunk.lines[exc.row]})")
                continue
            labels = t.labels_of(scores)
            P = t.proba_of(scores) if proba else None
            ids = list(map(itemgetter(i), chunk.rows)) if i is not None else None
            sink.write(_csv_text(_prediction_rows(ids, labels, P)))
            if scorer is not None:
                scorer.add(chunk, scores)
        if checks is not None:  # else there is a fault already
            fault = checks.error or (scorer.error if scorer is not None else None)
        if fault is not None:
            raise fault
        assert checks is not None  # no fault: the cells were checked
        for note in checks.notes():
            click.echo(note, err=True)
        _note_ignored(header, checks, (id_column, target))
        if t.probability_note and (proba or scorer is not None):  # probability columns, log loss, Brier score
            click.echo(f"note: {t.probability_note}", err=True)
        if overflow is not None:
            raise overflow
        sink.deliver()
    if output is not None:
        click.echo(f"{stream.rows_read} prediction(s) written to {output}")
    if scorer is not None:
        click.echo(scorer.line(), err=output is None)


# ---------------------------------------------------------------- explain

@click.command("explain", short_help="Explain one prediction: its path, confidences, features.")
@click.argument("tree", type=InputPath(dir_okay=False))
@click.option("--data", required=True, type=InputPath(dir_okay=False), help="CSV holding the row.")
@click.option("--row", "row", required=True, type=int, help="Data row to explain, 0-based (0 = first data row).")
@click.option("--top", default=5, show_default=True, type=int, help="Features shown per node.")
@click.option("--json", "as_json", is_flag=True, help="Print the explanation as JSON.")
def explain_cmd(tree: str, data: str, row: int, top: int, as_json: bool) -> None:
    """Explain one prediction: the path, each node's confidence and its top feature contributions.

    The --data CSV is read up to the row (all of it when the row is beyond its end, to say how many it has).
    """
    from olctc.data import RowChunk
    from olctc.data.csvfile import CsvStream  # TableStream naming faults of CSV syntax (read_csv's too)
    from olctc.export._names import printable
    from olctc.tree import ScoreOverflow

    t = load_tree_file(tree)
    stream = CsvStream(data, index_column=True, needed=_columns_needed(t))
    picked = None
    for chunk in stream.chunks(stop=row if row >= 0 else None):
        if chunk.first <= row < chunk.first + len(chunk.rows):
            k = row - chunk.first
            picked = RowChunk([chunk.rows[k]], [chunk.lines[k]], row)
    if picked is None:
        n = stream.rows_read
        span = f"0 to {n - 1}" if n else "none"
        raise OlctcError(f"--row {row} is out of range: {data} has {n} data row(s) ({span})")
    if top < 1:
        raise OlctcError(f"--top must be at least 1; got {top}")
    fault = _missing_columns(t, data, stream.header)
    if fault is not None:
        raise fault
    checks = _CellChecks(t, data, stream.header)
    cells = checks.cells(picked)
    if cells is None:
        fault = checks.error
        assert fault is not None  # cells() gives None only once it has found an error
        raise fault
    for note in checks.notes():
        click.echo(note, err=True)
    _note_ignored(stream.header, checks)
    X = t.encode(cells, str(data), n_rows=1)
    try:
        ex = t.explain(X[0], top=top)
    except ScoreOverflow as exc:  # its row is the batch's (0), not --row
        raise ScoreOverflow(row, exc.node, f"{data}: row {row} (line {picked.lines[0]})") from None
    if as_json:
        if ex.note:  # the text ends with it; the JSON's keys stay those documented
            click.echo(f"note: {ex.note}", err=True)
        click.echo(json.dumps({"row": row, **ex.to_dict()}, indent=1, ensure_ascii=False, allow_nan=False))
        return
    head = f"row {row} (line {picked.lines[0]} of {data})"
    click.echo("\n".join([head] + ex.lines(name=lambda f: printable(f, 60))))
