"""Tree <-> JSON (format ``olctc-tree``, version 1, schema in ``docs/tree-schema.json``).

Floats are written with ``repr`` (Python's shortest round-tripping form), so ``load(dump(t))`` has
bitwise-identical arrays. Loading is ``json.loads`` plus validation: nothing in the file is ever executed
or imported, and every defect is one OlctcError naming the file and the field.
"""
from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from olctc.data import Column, Scaler, Schema
from olctc.errors import OlctcError, brief, not_utf8, param_error
from olctc.io import atomic_write_text, check_path

if TYPE_CHECKING:
    from olctc.tree import Tree

FORMAT = "olctc-tree"
VERSION = 1
_TOP_KEYS = frozenset({"format", "version", "olctc_version", "depth", "classes", "columns", "feature_names",
                       "scaler", "nodes", "raw", "meta"})
#: Deepest nesting of lists and objects in meta (meta itself is level 1): writing it back recurses per level.
META_DEPTH = 64


def meta_problem(meta: Any) -> str | None:
    """Why ``meta`` cannot be written as JSON (nested deeper than META_DEPTH, holding itself, or two keys of one
    object alike as text), else None.
    Checked before anything recurses through it: ``_jsonable`` and ``_pretty`` take one frame per level."""
    too_deep = f"meta: expected lists and objects nested at most {META_DEPTH} levels deep, got deeper"

    def walk(v: Any, level: int, inside: frozenset[int]) -> str | None:
        if isinstance(v, np.ndarray):
            if v.dtype != object:  # numbers only: written as lists nested by its dimensions
                return too_deep if level + v.ndim - 1 > META_DEPTH else None
            v = v.tolist()
        if not isinstance(v, (dict, list, tuple)):
            return None
        if level > META_DEPTH:  # bounds this recursion too
            return too_deep
        if id(v) in inside:
            return (f"meta: expected lists and objects nested at most {META_DEPTH} levels deep, got one that "
                    "holds itself (a cycle)")
        inside = inside | {id(v)}
        if isinstance(v, dict):  # JSON's keys are text: {1: 'a', '1': 'b'} was saved as one of the two
            seen: dict[str, Any] = {}
            for k in v:
                if str(k) in seen:
                    return (f"meta: expected keys that differ as text (JSON's keys are text), got {seen[str(k)]!r} "
                            f"and {k!r}, both written {str(k)!r}")
                seen[str(k)] = k
        for x in (v.values() if isinstance(v, dict) else v):
            bad = walk(x, level + 1, inside)
            if bad is not None:
                return bad
        return None

    return walk(meta, 1, frozenset())


# ---------------------------------------------------------------- writing

def _jsonable(v: Any) -> Any:
    """Meta values as strict JSON: numpy scalars/arrays to Python, non-finite floats to strings."""
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, np.ndarray):
        return _jsonable(v.tolist())
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        # Strict JSON has no NaN/inf; a string keeps the information (e.g. an unbounded MIP bound).
        return f if math.isfinite(f) else repr(f)
    if v is None or isinstance(v, (int, str)):
        return v
    return str(v)


def tree_to_dict(tree) -> dict[str, Any]:
    """The JSON record of a tree (plain Python types only)."""
    from olctc import __version__

    bad = meta_problem(tree.meta)  # a meta set in Python is checked only here
    if bad is not None:
        raise OlctcError(f"the tree's {bad}")

    def opt(a):
        return None if a is None else a.tolist()

    return {
        "format": FORMAT,
        "version": VERSION,
        "olctc_version": __version__,
        "depth": tree.depth,
        "classes": list(tree.classes),
        "columns": tree.schema.to_json(),
        "feature_names": tree.feature_names,
        "scaler": {"mean": tree.scaler.mean.tolist(), "scale": tree.scaler.scale.tolist()},
        "nodes": {"W": tree.W.tolist(), "b": tree.b.tolist(), "n": opt(tree.node_n),
                  "pos": opt(tree.node_pos), "std": opt(tree.node_std)},
        "raw": {"W": tree.W_raw.tolist(), "b": tree.b_raw.tolist()},
        "meta": _jsonable(tree.meta),
    }


def _pretty(v: Any, indent: str = "") -> str:
    """JSON with one line per list of scalars (a weight row stays on one line), indented objects."""
    def scalar(x: Any) -> bool:
        return not isinstance(x, (dict, list))

    def flat(x: Any) -> bool:
        return scalar(x) or (isinstance(x, list) and all(scalar(y) for y in x))

    if (isinstance(v, list) and all(scalar(x) for x in v)) or (
            isinstance(v, dict) and all(flat(x) for x in v.values()) and len(json.dumps(v)) <= 120):
        return json.dumps(v, ensure_ascii=False, allow_nan=False)
    inner = indent + " "
    if isinstance(v, list):
        return "[\n" + ",\n".join(inner + _pretty(x, inner) for x in v) + "\n" + indent + "]"
    if isinstance(v, dict) and v:
        items = (inner + json.dumps(str(k), ensure_ascii=False) + ": " + _pretty(x, inner) for k, x in v.items())
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    return json.dumps(v, ensure_ascii=False, allow_nan=False)


def dump(tree) -> str:
    """The tree as JSON text (format ``olctc-tree`` version 1); floats written with ``repr``."""
    from olctc.export._names import check_text, check_tree

    check_tree(tree)
    check_text(tree, "a JSON file")
    text = _pretty(tree_to_dict(tree)) + "\n"
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate in meta: no UTF-8 file can hold it
        raise OlctcError(f"the tree's meta holds text that is not valid Unicode ({text[exc.start:exc.end]!r}, "
                         "a lone surrogate), which a JSON file cannot store") from None
    return text


def save(tree, path: str | os.PathLike[str]) -> None:
    """Write the tree's JSON to ``path`` atomically."""
    check_path(path, "path")
    atomic_write_text(path, dump(tree))


# ---------------------------------------------------------------- reading

def _integer(x: Any) -> int | None:
    """x as an int if JSON Schema calls it an integer (2 and 2.0 alike, as the schema's validators do), else None."""
    if isinstance(x, bool):
        return None
    if isinstance(x, int):
        return x
    if isinstance(x, float) and math.isfinite(x) and x.is_integer():
        return int(x)
    return None


def _unknown(d: dict, keys: Any) -> list[Any]:
    """The keys of d not in keys, non-strings first (from_dict may get an int key beside a str one, as YAML
    gives: plain sorted() would raise TypeError comparing them)."""
    return sorted(set(d) - set(keys), key=lambda k: (isinstance(k, str), repr(k)))


def _only(doc: "_Doc", d: dict, keys: tuple[str, ...], where: str) -> None:
    """Refuse a field the schema does not define (a typo would otherwise be ignored silently)."""
    unknown = _unknown(d, keys)
    if unknown:
        raise doc.fail(where, f"only the fields {', '.join(keys)}", unknown[0])


class _Doc:
    """Typed access to the parsed document; every failure names the source and the field."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, expected: str, got: Any) -> OlctcError:
        return OlctcError(f"{self.source}: {where}: expected {expected}, got {brief(got)}")

    def get(self, d: dict, key: str, where: str = "") -> Any:
        if key not in d:
            return self.missing(f"{where}{key}")
        return d[key]

    def missing(self, where: str) -> Any:
        raise OlctcError(f"{self.source}: field {where!r} is missing")

    def number_array(self, v: Any, shape: tuple[int, ...], where: str, integer: bool = False) -> np.ndarray:
        def ok(x: Any) -> bool:
            if isinstance(x, bool):
                return False
            if not integer:  # an int beyond float64 (10**400) is no finite number either
                return isinstance(x, float) or (isinstance(x, int) and abs(x) <= sys.float_info.max)
            v = _integer(x)
            return v is not None and -2 ** 63 <= v < 2 ** 63  # counts are stored as int64

        flat: list[Any] = []
        if len(shape) == 1:
            if not isinstance(v, list) or len(v) != shape[0]:
                raise self.fail(where, f"a list of {shape[0]} numbers", v)
            flat = v
        else:
            if not isinstance(v, list) or len(v) != shape[0]:
                raise self.fail(where, f"a list of {shape[0]} rows", v)
            for i, row in enumerate(v):
                if not isinstance(row, list) or len(row) != shape[1]:
                    raise self.fail(f"{where}[{i}]", f"a list of {shape[1]} numbers", row)
            flat = [x for row in v for x in row]
        for k, x in enumerate(flat):
            if not ok(x) or (isinstance(x, float) and not math.isfinite(x)):
                pos = f"[{k}]" if len(shape) == 1 else f"[{k // shape[1]}][{k % shape[1]}]"
                raise self.fail(f"{where}{pos}", "an integer" if integer else "a finite number", x)
        if integer:
            return np.asarray([_integer(x) for x in flat], dtype=np.int64).reshape(shape)
        return np.asarray(v, dtype=np.float64).reshape(shape)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _DuplicateKey(ValueError):
    pass


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, refusing a key given twice (json keeps the last silently: a hand-edited
    file with two "classes" would load whichever came last). Checked at every depth, meta included."""
    d = dict(pairs)
    if len(d) != len(pairs):
        seen: set[str] = set()
        for k, _ in pairs:
            if k in seen:
                raise _DuplicateKey(k)
            seen.add(k)
    return d


def _columns(doc: _Doc, v: Any) -> Schema:
    if not isinstance(v, list):
        raise doc.fail("columns", "a list of column objects", v)
    cols: list[Column] = []
    by_name: dict[str, Column] = {}  # the first column of each name (a scan of cols per column was quadratic)
    for i, c in enumerate(v):
        where = f"columns[{i}]"
        if not isinstance(c, dict):
            raise doc.fail(where, "an object", c)
        _only(doc, c, ("name", "kind", "categories"), where)
        name, kind = doc.get(c, "name", where + "."), doc.get(c, "kind", where + ".")
        if not isinstance(name, str) or not name:
            raise doc.fail(where + ".name", "a non-empty string", name)
        twin = by_name.get(name)
        if twin is not None and (twin.kind != kind or kind != "numeric"):
            # predict reads input columns by name: one input cannot be a number and a category, nor two
            # sets of categories (two numeric columns of one name are one input, as in a table)
            raise doc.fail(where + ".name", "a name no other column has (unless both are numeric)", name)
        if kind == "numeric":
            if "categories" in c:
                raise doc.fail(where + ".categories", "no categories for a numeric column", c["categories"])
            cols.append(Column(name, "numeric"))
        elif kind == "categorical":
            cats = doc.get(c, "categories", where + ".")
            if not isinstance(cats, list) or not cats or not all(isinstance(x, str) for x in cats):
                raise doc.fail(where + ".categories", "a non-empty list of strings", cats)
            if len(set(cats)) != len(cats):
                raise doc.fail(where + ".categories", "distinct categories", cats)
            cols.append(Column(name, "categorical", tuple(cats)))
        else:
            raise doc.fail(where + ".kind", "'numeric' or 'categorical'", kind)
        by_name.setdefault(name, cols[-1])
    return Schema(tuple(cols))


def tree_from_dict(d: Any, source: str = "tree", cls: type | None = None) -> Tree:
    """Validate a parsed ``olctc-tree`` document and build the Tree (an instance of ``cls``, a subclass of
    Tree, when given)."""
    from olctc.export._names import invalid_text
    from olctc.tree import Tree, children_over

    if cls is not None and not (isinstance(cls, type) and issubclass(cls, Tree)):  # int: a raw TypeError
        raise param_error("cls", "None or Tree (or a subclass of it)", cls)
    doc = _Doc(source)
    if not isinstance(d, dict):
        raise doc.fail("top level", "a JSON object", d)
    fmt = d.get("format")
    if fmt != FORMAT:
        raise doc.fail("format", f"{FORMAT!r} (not an olctc tree file?)", fmt)
    version = _integer(d.get("version"))
    if version is None:
        raise doc.fail("version", "an integer", d.get("version"))
    if version != VERSION:
        raise OlctcError(f"{source}: unsupported olctc-tree version {brief(version)}; this olctc reads version "
                         f"{VERSION}" + (" (written by a newer olctc: upgrade)" if version > VERSION else ""))
    unknown = _unknown(d, _TOP_KEYS)
    if unknown:
        raise doc.fail("top level", f"only the fields {sorted(_TOP_KEYS)}", unknown[0])
    if not isinstance(d.get("olctc_version", ""), str):
        raise doc.fail("olctc_version", "a string (the olctc version that wrote the file)", d["olctc_version"])
    depth = _integer(doc.get(d, "depth"))
    if depth is None or not 1 <= depth <= 30:
        raise doc.fail("depth", "an integer in [1, 30]", d["depth"])
    n_nodes = 2 ** depth - 1
    classes = doc.get(d, "classes")
    if not isinstance(classes, list) or len(classes) != 2:
        raise doc.fail("classes", "a list of two labels (numbers or strings)", classes)
    for k, c in enumerate(classes):  # which entry, not "got a list of 2"
        if not isinstance(c, (int, float, str)) or isinstance(c, bool):
            raise doc.fail(f"classes[{k}]", "a label (a number or a string)", c)
    if classes[0] != classes[1] and str(classes[0]) == str(classes[1]):
        # [1, "1"] or [1, 1.0]: predict's columns proba_1, proba_1 and one label for both classes
        raise OlctcError(f"{doc.source}: classes: expected two labels that differ as text, got {classes!r}")
    schema = _columns(doc, doc.get(d, "columns"))
    p = schema.n_features
    names = doc.get(d, "feature_names")
    if names != schema.feature_names:
        if isinstance(names, list) and len(names) == p:
            k = next(k for k, (a, b) in enumerate(zip(names, schema.feature_names)) if a != b)
            raise doc.fail(f"feature_names[{k}]", f"{schema.feature_names[k]!r}, as the columns encode", names[k])
        raise doc.fail("feature_names", f"the {p} names the columns encode", names)
    scaler_d = doc.get(d, "scaler")
    if not isinstance(scaler_d, dict):
        raise doc.fail("scaler", "an object", scaler_d)
    _only(doc, scaler_d, ("mean", "scale"), "scaler")
    mean = doc.number_array(doc.get(scaler_d, "mean", "scaler."), (p,), "scaler.mean")
    scale = doc.number_array(doc.get(scaler_d, "scale", "scaler."), (p,), "scaler.scale")
    if (scale <= 0).any():
        raise doc.fail("scaler.scale", "positive numbers", float(scale[scale <= 0][0]))
    nodes = doc.get(d, "nodes")
    if not isinstance(nodes, dict):
        raise doc.fail("nodes", "an object", nodes)
    unknown = _unknown(nodes, ("W", "b", "n", "pos", "std"))
    if unknown:
        raise doc.fail("nodes", "only the fields W, b, n, pos, std", unknown[0])
    W = doc.number_array(doc.get(nodes, "W", "nodes."), (n_nodes, p), "nodes.W")
    b = doc.number_array(doc.get(nodes, "b", "nodes."), (n_nodes,), "nodes.b")
    stats: dict[str, np.ndarray | None] = {}
    for key, shape, integer in (("n", (n_nodes,), True), ("pos", (n_nodes,), True), ("std", (n_nodes, p), False)):
        v = nodes.get(key)
        stats[key] = arr = None if v is None else doc.number_array(v, shape, f"nodes.{key}", integer)
        if arr is not None and (arr < 0).any():
            raise doc.fail(f"nodes.{key}", "non-negative numbers", v)
    n_stat, pos_stat = stats["n"], stats["pos"]
    if n_stat is not None and pos_stat is not None and (pos_stat > n_stat).any():
        k = int(np.argmax(pos_stat > n_stat))
        raise doc.fail(f"nodes.pos[{k}]", f"at most nodes.n[{k}] = {int(n_stat[k])} positive points (of the "
                       "training points that reached the node)", int(pos_stat[k]))
    for key in ("n", "pos"):
        a = stats[key]
        over = children_over(a)
        if a is not None and over is not None:
            raise doc.fail(f"nodes.{key}[{2 * over + 1}] + nodes.{key}[{2 * over + 2}]",
                           f"at most nodes.{key}[{over}] = {int(a[over])} (the points reaching node {over}, split "
                           "between its two child nodes)", int(a[2 * over + 1]) + int(a[2 * over + 2]))
    meta = d.get("meta", {})
    if not isinstance(meta, dict):
        raise doc.fail("meta", "an object", meta)
    bad = meta_problem(meta)  # refused now, not when the tree is saved or exported
    if bad is not None:
        raise OlctcError(f"{source}: {bad}")
    try:
        tree = (cls or Tree)(W, b, Scaler(mean, scale), schema, tuple(classes), stats["n"], stats["pos"],
                             stats["std"], meta)
    except OlctcError as exc:
        raise OlctcError(f"{source}: {exc}") from None
    bad = invalid_text(tree)
    if bad is not None:  # JSON can spell a lone surrogate ("\\ud800"); no exporter could write it back
        raise OlctcError(f"{source}: {bad} is not valid Unicode text (it holds a lone surrogate)")
    if "raw" in d:  # optional; null is no object either
        _check_raw(doc, d["raw"], tree)
    return tree


def _check_raw(doc: _Doc, raw: Any, tree) -> None:
    """The raw-space weights are derived; if present they must agree with W and the scaler."""
    if not isinstance(raw, dict):
        raise doc.fail("raw", "an object", raw)
    _only(doc, raw, ("W", "b"), "raw")
    Wr = doc.number_array(doc.get(raw, "W", "raw."), tree.W.shape, "raw.W")
    br = doc.number_array(doc.get(raw, "b", "raw."), tree.b.shape, "raw.b")
    terms = np.abs(tree.W * (tree.scaler.mean / tree.scaler.scale)).sum(axis=1) + np.abs(tree.b)
    if not (np.allclose(Wr, tree.W_raw, rtol=1e-9, atol=0)
            and (np.abs(br - tree.b_raw) <= 1e-9 * (1 + terms)).all()):
        raise OlctcError(f"{doc.source}: raw.W/raw.b disagree with nodes.W, nodes.b and the scaler "
                         "(edited by hand? raw is derived: delete it or fix nodes)")


def loads(text: str | bytes | bytearray, source: str = "<string>", cls: type | None = None):
    """Parse and validate JSON text (str, or UTF-8 bytes) into a Tree (``cls``: as in ``tree_from_dict``)."""
    if isinstance(text, (bytes, bytearray)):  # was "a bytes-like object is required, not 'str'" on bad JSON
        try:
            text = bytes(text).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise OlctcError(f"<bytes>: {not_utf8(exc)}") from None
    elif not isinstance(text, str):  # None: json's "the JSON object must be str, bytes or bytearray"
        raise param_error("text", "JSON text (a str or bytes; load reads a file)", type(text).__name__)
    elif text.startswith("\ufeff"):  # a BOM kept by reading a file as "utf-8" (json.loads refuses it)
        text = text[1:]
    try:
        d = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_reject_duplicates)
    except _DuplicateKey as exc:
        raise OlctcError(f"{source}: the key {brief(exc.args[0])} appears twice in one object (a duplicate "
                         "key: edited by hand? keep one)") from None
    except json.JSONDecodeError as exc:
        head = text.lstrip("\ufeff \t\r\n")[:1]
        if head and head not in "{[":
            # a CSV given where the tree goes (`predict data.csv tree.json`) is no damaged tree
            raise OlctcError(f"{source}: not an olctc tree file (a tree file is a JSON object, written by "
                             "fit, decode or export --format json; are the arguments swapped?)") from None
        raise OlctcError(f"{source}: not valid JSON (line {exc.lineno} column {exc.colno}: {exc.msg}); "
                         "the file is corrupted or truncated") from None
    except (ValueError, RecursionError) as exc:
        raise OlctcError(f"{source}: not valid JSON ({exc})") from None
    return tree_from_dict(d, source, cls)


def load(text_or_path: str | bytes | bytearray | os.PathLike[str], cls: type | None = None) -> Tree:
    """Read a tree from JSON text or from a file path (a str naming an existing file is a path, even one
    starting with ``{``; a missing one of one line ending in .json is called missing, not bad JSON). ``cls``: as in
    ``tree_from_dict``."""
    if isinstance(text_or_path, (bytes, bytearray)):
        return loads(text_or_path, cls=cls)
    # a BOM (U+FEFF, which lstrip() keeps) can start text read from a file with encoding="utf-8"
    if (isinstance(text_or_path, str) and text_or_path.lstrip().lstrip("\ufeff").lstrip().startswith(("{", "["))
            and not os.path.isfile(text_or_path)):  # isfile: False, not an error, for text too long for a name
        try:
            return loads(text_or_path, cls=cls)
        except OlctcError as exc:
            # "[v2] tree.json", a file name starting with a bracket, said "<string>: not valid JSON ... the file is
            # corrupted or truncated" when the file was missing: one line ending in .json is more likely a name
            name = text_or_path.strip()
            if "\n" in name or not name.lower().endswith(".json") or "not valid JSON" not in str(exc):
                raise
            raise OlctcError(f"{text_or_path}: no such file (nor is it JSON text)") from None
    if not isinstance(text_or_path, (str, os.PathLike)) or not os.fspath(text_or_path).strip():
        # None: "expected str, bytes or os.PathLike object"; "": ".: is a folder"
        raise param_error("text_or_path", "JSON text or a file path (a non-empty str, bytes or os.PathLike)",
                          text_or_path)
    path = Path(text_or_path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise OlctcError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise OlctcError(f"{path}: is a folder, expected a tree JSON file") from None
    except OSError as exc:  # ENAMETOOLONG included, which Path.exists raised
        raise OlctcError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise OlctcError(f"{path}: {not_utf8(exc)}; not an olctc tree file?") from None
    except ValueError:  # a NUL character in the name
        raise OlctcError(f"{path}: no such file (a file name holds no NUL character)") from None
    return loads(text, str(path), cls)
