"""compile(dataset, spec) -> (MILP, manifest): the forward step; the manifest is its inverse data.

The manifest (``NAME.olctc.json`` beside ``NAME.mps``) holds everything later steps need to turn a
solution back into a tree: the spec, the encoding schema, the scaler, the class labels, the block map,
and sha256 hashes of the data and of the model file.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from olctc import __version__
from olctc.data import Dataset, Scaler, check_classes_weigh, check_dataset, json_label
from olctc.errors import MISSING, OlctcError, brief, check_flags, param_error, shorten, warn
from olctc.formulation import build_milp
from olctc.formulation.losses import loss_layers, tangent_lines
from olctc.formulation.topology import Topology
from olctc.io import atomic_write_text, read_once, sha256_file
from olctc.milp import MILP
from olctc.spec import MAX_COST, TreeSpec, check_spec

MANIFEST_FORMAT = "olctc-manifest"
MANIFEST_VERSION = 1
DEFAULT_MAX_NONZEROS = 400_000_000  # about 16 GB while building: fits a 24 GB machine
# Peak memory of building and writing a model, measured (8 compiles, depths 3-12, both forms, /usr/bin/time):
# about 36 bytes per nonzero and 510 per row (fit within 8%). A model of many rows per nonzero (score variables
# on few features, deep trees) takes 3x what its nonzeros suggest: svmguide1 at depth 12 with --score-variables,
# 354M nonzeros, within the nonzeros' budget, would take about 40 GB (QA 2026-12-05).
BYTES_PER_NONZERO, BYTES_PER_ROW = 36, 510
DEFAULT_MAX_MEMORY = 16 * 2**30  # the default budget's memory, checked with the nonzeros' unless --max-nonzeros
MODEL_FORMATS = ("mps", "lp")


@dataclass(frozen=True)
class SizeEstimate:
    rows: int
    cols: int
    nonzeros: int

    @property
    def memory(self) -> int:
        """Bytes that building and writing the model take, about (``BYTES_PER_NONZERO``, ``BYTES_PER_ROW``)."""
        return BYTES_PER_NONZERO * self.nonzeros + BYTES_PER_ROW * self.rows

    def describe(self) -> str:
        return f"{self.rows:,} rows, {self.cols:,} columns, about {self.nonzeros:,} nonzeros"


def estimate_size(n: int, p: int, spec: TreeSpec) -> SizeEstimate:
    """Rows, columns and an upper bound on nonzeros of the MILP, computed without building it."""
    topo = Topology(spec.depth)
    T, Td, d = topo.n_nodes, len(topo.last), spec.depth
    info = spec.info
    cols = T * p + T + Td * n + len(loss_layers(spec)) * n
    rows = n
    nnz = n * Td
    sc = p + 1  # entries of one score w_t.x_i + b_t in a row
    if spec.score_variables:
        cols += T * n
        rows += T * n
        nnz += T * n * (p + 2)
        sc = 1
    for h in range(1, d):
        width = 2 ** (d - h - 1)
        rows += 2 * n * 2 ** (h - 1)
        nnz += 2 * n * 2 ** (h - 1) * (sc + width)
    if not info.kind.tangent_rows:  # q, and the mis_up, mis_lo and err rows
        cols += n
        rows += 2 * Td * n + n
        nnz += 2 * Td * n * (sc + 2) + 2 * n
    else:
        K = tangent_lines(spec)[0].shape[0]
        for h in range(1, d + 1):
            r = 2 ** (h - 1) * K * n
            rows += r
            nnz += r * (sc + 1 + (2 ** (d - h) if h > 1 else 0))
    if info.regulariser in ("l1", "l1_norm_bound"):
        cols += 2 * T * p
        rows += T * p
        nnz += 3 * T * p
    if info.l0 is not None:
        cols += T * p
        rows += 2 * T * p
        nnz += 4 * T * p
        if info.l0 in ("hfs", "sfs"):
            rows += T
            nnz += T * (p + 1)
            cols += T if info.l0 == "sfs" else 0
    if info.regulariser == "l1_norm_bound":
        rows += T
        nnz += 2 * T * p
    if spec.leaf_rows:
        cols += Td
        rows += 2 * Td
        nnz += 2 * Td * (n + 1)
    return SizeEstimate(rows, cols, nnz)


@dataclass
class Compiled:
    """A compiled problem: the MILP, the standardised data it was built from, and the manifest."""

    milp: MILP
    spec: TreeSpec
    dataset: Dataset
    scaler: Scaler
    X: np.ndarray  # standardised features
    manifest: dict[str, Any] = field(default_factory=dict)


def check_size(n: int, p: int, spec: TreeSpec, max_nonzeros: int | None = None) -> SizeEstimate:
    """The size of the model ``spec`` makes of ``n`` x ``p`` data; OlctcError when over ``max_nonzeros``
    or when the spec does not fit the data's shape (an L0 budget above ``p``).

    Cheap (no allocation): called before anything large is built or any file is written.
    """
    if spec.budget is not None and spec.budget > p:
        # A budget of p or more bounds nothing: HFS would be the preset without L0, SFS would never pay alpha.
        raise param_error("budget", f"at most {p}, the number of features (after one-hot encoding), since a "
                          f"larger budget bounds nothing", spec.budget)
    default = max_nonzeros is None
    if max_nonzeros is None:
        max_nonzeros = DEFAULT_MAX_NONZEROS
    if isinstance(max_nonzeros, bool) or not isinstance(max_nonzeros, (int, np.integer)) or max_nonzeros < 1:
        raise param_error("max_nonzeros", "an integer >= 1", max_nonzeros)
    est = estimate_size(n, p, spec)
    if default and est.memory > DEFAULT_MAX_MEMORY and est.nonzeros <= max_nonzeros:
        raise OlctcError(f"the model would have {est.describe()}: building it would take about "
                         f"{est.memory / 2**30:.0f} GB of memory, over the default budget of about "
                         f"{DEFAULT_MAX_MEMORY / 2**30:.0f} GB; use a smaller depth or fewer points, or pass "
                         f"max_nonzeros={est.nonzeros} (--max-nonzeros {est.nonzeros}) to build it anyway")
    if est.nonzeros > max_nonzeros:
        raise OlctcError(f"the model would have {est.describe()}, over the budget of {int(max_nonzeros):,} "
                         f"nonzeros (max_nonzeros, --max-nonzeros); use a smaller depth, fewer tangents or fewer "
                         "points")
    return est


def _check_weighted_classes(dataset: Dataset, weight: np.ndarray, rows: np.ndarray | None) -> None:
    """Each class must weigh something in the points to compile (``weight``: ``dataset.weight``, when not
    None). The whole data's weights are checked when read, but a part of it (fit's training split, a grid's
    fold) may hold only points of weight 0 of a class: the model would then train on one class."""
    what = f"weight column {dataset.weight_column!r}" if dataset.weight_column else "sample_weight"
    if rows is None:
        check_classes_weigh(weight, dataset.y, dataset.classes, f"{dataset.source or dataset.name}: {what}")
    else:
        check_classes_weigh(weight, dataset.y, dataset.classes, f"{dataset.source or dataset.name}: {what}",
                            f" among the {len(rows)} training rows", "another split (--seed, --test-size, or the "
                            "folds: --cv, --folds) or more points of that class with a weight > 0 avoids it")


def _source_rows(rows: Any, n: int) -> np.ndarray:
    """``rows`` as n row numbers >= 0: the manifest's ``data.rows``, which decode and collect use to take the
    training rows out of the source data again (a wrong list was stored, then refused there). A row may repeat:
    a bootstrap sample is a training set too."""
    def bad(got: str) -> OlctcError:
        return OlctcError(f"The 'rows' parameter must be {n} integer row numbers >= 0, the dataset's rows "
                          f"in the source data. Got {got} instead.")

    try:
        arr = np.asarray(rows)
    except (TypeError, ValueError):
        raise bad(shorten(repr(rows))) from None
    if arr.ndim != 1 or not np.issubdtype(arr.dtype, np.integer):
        raise bad(shorten(repr(rows)) if arr.dtype.kind in "OUS"
                  else f"an array of shape {arr.shape} and dtype {arr.dtype}")
    if arr.size != n:
        raise bad(f"{arr.size} row numbers")
    if n and arr.min() < 0:
        raise bad(f"row {int(arr.min())}")
    return arr


def compile_problem(dataset: Dataset, spec: TreeSpec, name: str = "model", *,
                    standardise: bool = True, max_nonzeros: int | None = None,
                    rows: np.ndarray | None = None) -> Compiled:
    """Standardise ``dataset`` on itself and build the MILP of ``spec``.

    ``rows`` records which rows of the source data this dataset is (a training split), for the manifest;
    by default ``dataset.rows``, which ``Dataset.subset`` sets.
    Points of weight 0 (``dataset.weight``) are left out: they cannot change the objective, and the
    model is smaller (``Compiled.dataset`` and the manifest's rows are the points compiled).
    Raises OlctcError, before allocating anything large, when the model would exceed ``max_nonzeros``.
    """
    check_dataset(dataset, "dataset")
    check_spec(spec)
    check_flags(standardise=standardise)  # "no" was taken as True
    if not isinstance(name, str):
        raise param_error("name", "a string", name)
    if rows is not None:
        rows = _source_rows(rows, dataset.n)
        if dataset.rows is not None and not np.array_equal(rows, dataset.rows):
            k = int(np.argmax(rows != dataset.rows))
            raise OlctcError(f"The 'rows' parameter must be the dataset's own rows in its source, which "
                             f"Dataset.subset recorded (leave rows out to use them). Got row {int(rows[k])} at "
                             f"position {k}, where the dataset has row {int(dataset.rows[k])}.")
    else:
        rows = dataset.rows
    if dataset.weight is not None:
        _check_weighted_classes(dataset, dataset.weight, rows)
        if not (dataset.weight > 0).all():
            keep = np.flatnonzero(dataset.weight > 0)
            rows = keep if rows is None else np.asarray(rows)[keep]
            dataset = dataset.subset(keep)
            dataset.rows = rows  # in the source, as the manifest's (subset's are in the dataset given)
    check_size(dataset.n, dataset.p, spec, max_nonzeros)
    scaler = Scaler.fit(dataset.X, dataset.weight) if standardise else Scaler.identity(dataset.p)
    with np.errstate(over="ignore", invalid="ignore"):
        X = scaler.transform(dataset.X)
    if not np.isfinite(X).all():  # a column spanning more than the float range (-1e308 and 1e308)
        j = int(np.argwhere(~np.isfinite(X))[0][1])
        raise OlctcError(f"{dataset.source or dataset.name}: feature {dataset.feature_names[j]!r} is too large to "
                         f"standardise (|value| up to {np.abs(dataset.X[:, j]).max():.3g}); rescale the column")
    _check_tiny_spread(dataset, scaler)
    zero = np.asarray(~X.any(axis=0))  # columns that standardise to 0: constant, or only in their last digits
    _warn_rounding_columns(dataset, zero)
    _warn_constant_data(dataset, zero)
    _warn_small_big_m(spec)
    _warn_offset_columns(dataset, standardised=standardise, zero=zero)
    milp = build_milp(X, dataset.y, spec, name=_mps_name(name), sample_weight=dataset.weight)
    _check_costs(milp, dataset)
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "olctc_version": __version__,
        "name": name,
        "spec": spec.to_json(),
        "data": {**dataset.source_info(), "n": dataset.n, "p": dataset.p,
                 "rows": None if rows is None else [int(r) for r in rows],
                 "n_positive": int((dataset.y > 0).sum()), "n_negative": int((dataset.y < 0).sum()),
                 # each class's loss weight as the model has it ("balanced" worked out), in "classes" order
                 **({"class_weights": list(cw)} if (cw := spec.class_weights(dataset.y, dataset.weight)) else {}),
                 **({"weight_sum": float(dataset.weight.sum())} if dataset.weight is not None else {})},
        "schema": dataset.schema.to_json(),
        "feature_names": dataset.feature_names,
        "classes": [json_label(c) for c in dataset.classes],
        "scaler": scaler.to_json(),
        "model": {"n_cols": milp.n_cols, "n_rows": milp.n_rows, "nnz": milp.nnz,
                  "n_integer": int(milp.integer.sum()), "quadratic": milp.is_quadratic,
                  "obj_constant": milp.obj_constant},
        "blocks": milp.block_map(),
        "files": {},
    }
    return Compiled(milp, spec, dataset, scaler, X, manifest)


#: Standard deviations below this are refused: the tree's weights on raw values are w / std, which overflows for
#: a weight above 1.8e308 * std (a column of 1e-310 went through the solve and failed when the tree was made). At
#: 1e-305 a weight up to 1,800 fits; columns of 1e-300 fit trees (tests/test_qa_numeric.py).
MIN_SCALE = 1e-305


def _check_tiny_spread(dataset: Dataset, scaler: Scaler) -> None:
    small = np.flatnonzero(scaler.scale < MIN_SCALE)
    if small.size:
        j = int(small[0])
        raise OlctcError(f"{dataset.source or dataset.name}: feature {dataset.feature_names[j]!r} spreads by "
                         f"{scaler.scale[j]:.3g} only (its standard deviation; at least {MIN_SCALE:g} is needed): "
                         "the tree's weights on raw values (w / std) would overflow; rescale the column")


def _warn_constant_data(dataset: Dataset, zero: np.ndarray) -> None:
    """Warn when no feature varies (``zero``: the columns that standardise to 0): the model can only fit each
    class's share, whatever the solver does."""
    if dataset.n and dataset.p and zero.all():
        warn(f"{dataset.source or dataset.name}: every feature is constant on the {dataset.n} points "
             "compiled, so no split can separate them: the tree predicts the classes' mix")


def _warn_small_big_m(spec: TreeSpec) -> None:
    """Warn of a big-M too small to switch a loss row off. Below layer 1 a point's loss rows at the nodes it
    does not reach are relaxed by big-M; below the loss of a score of 0 they still bind, and the model charges
    the point's loss at nodes it does not reach."""
    floor = spec.loss_kind.zero_score_loss
    if floor is not None and spec.depth > 1 and spec.big_m < floor:
        warn(f"big_m {spec.big_m:g} is below the {spec.info.loss} loss of a score of 0 ({floor:.3g}): "
             "the loss rows of a point at the nodes it does not reach are relaxed by big-M only, so they "
             "bind and the model charges its loss there too (the paper's big-M is 100)")


def _warn_rounding_columns(dataset: Dataset, zero: np.ndarray) -> None:
    """Warn of columns whose values differ but standardise to 0 (``zero``): their spread is within the rounding of
    their mean (values near 1e15 spread by 1), so the tree cannot use them."""
    if not dataset.n:
        return
    lo, hi = dataset.X.min(axis=0), dataset.X.max(axis=0)
    for j in np.flatnonzero((lo != hi) & zero):
        warn(f"{dataset.source or dataset.name}: feature {dataset.feature_names[j]!r} varies only in its "
             f"last digits (from {lo[j]:.17g} to {hi[j]:.17g}), within the rounding of its mean, and is "
             "treated as constant; subtract its offset to use it")


#: Columns whose largest magnitude exceeds their spread this many times are warned of.
OFFSET_RATIO = 1e8


def _warn_offset_columns(dataset: Dataset, standardised: bool = False, zero: np.ndarray | None = None) -> None:
    """Warn of columns far from 0 for their spread (values near 1e14 spread by 1): a split score w.x + b then
    cancels most of its digits. Unstandardised, the solver's, the tree's and the exports' rounding can route a
    point differently (measured: 2 of 20 training points of an OCT-H tree). Standardised, the model is sound,
    but the tree and its exports score raw values, folding the mean into b (measured at 1e15 spread by 1000: ONNX
    scores 3e-4 off the Python export's, 7 of 200,000 labels flipped). ``zero``: columns already warned of as
    constant (``_warn_rounding_columns``)."""
    if not dataset.n:
        return
    lo, hi = dataset.X.min(axis=0), dataset.X.max(axis=0)
    top = np.maximum(np.abs(lo), np.abs(hi))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        ratio = top / (hi - lo)
    offset = (hi > lo) & (ratio > OFFSET_RATIO)
    if zero is not None:
        offset &= ~zero
    for j in np.flatnonzero(offset):
        digits = f"{16 - np.log10(ratio[j]):.0f}"
        if standardised:
            warn(f"{dataset.source or dataset.name}: feature {dataset.feature_names[j]!r} spans "
                 f"{lo[j]:.17g} to {hi[j]:.17g}: the tree and its exports score raw values, which keep "
                 f"about {digits} significant digits of its spread, so the tree may route points near a split "
                 "otherwise than the model fitted, and its exports otherwise than the tree; subtract its "
                 "offset (such as its minimum) from the column")
        else:
            warn(f"{dataset.source or dataset.name}: feature {dataset.feature_names[j]!r}, not "
                 f"standardised, spans {lo[j]:.17g} to {hi[j]:.17g}: a split on it keeps about {digits} "
                 "significant digits of its spread and may route points differently in the solver and the "
                 "tree; standardise it or subtract its offset")


def _check_costs(milp: MILP, dataset: Dataset) -> None:
    """Refuse loss costs (C times the point and class weights) that solvers would read as infinite."""
    top = float(np.abs(milp.c).max(initial=0.0))
    if top >= MAX_COST:
        weights = "the point weights" + (f" (column {dataset.weight_column!r})" if dataset.weight_column else "")
        raise OlctcError(f"{dataset.source or dataset.name}: C times {weights} and the class weights gives loss "
                         f"costs up to {top:.3g}, and solvers read a cost of 1e20 or more as infinite; scale C "
                         "or the weights down")


def _mps_name(name: str) -> str:
    # ASCII only: str.isalnum() accepts "é", which MPS/LP names may not hold
    safe = "".join(ch if (ch.isascii() and ch.isalnum()) or ch == "_" else "_" for ch in name)[:32]
    return safe if safe and not safe[0].isdigit() else f"m_{safe}"[:32]


def warm_start_objective(man: dict[str, Any]) -> float | None:
    """The objective of the warm start compile wrote, a point the model is known to hold (``_verify`` checked it
    against every row); None when compile wrote none."""
    return (man.get("warm_start") or {}).get("objective")


def manifest_path(model_path: str | Path) -> Path:
    """``NAME.mps`` -> ``NAME.olctc.json``."""
    p = Path(model_path)
    stem = p.name
    for ext in (".mps", ".lp"):
        if stem.lower().endswith(ext):  # model_format accepts NAME.MPS too
            stem = stem[: -len(ext)]
    return p.with_name(stem + ".olctc.json")


def model_format(path: str | Path) -> str:
    """``"mps"`` or ``"lp"``: the format of a model file compile is asked to write."""
    suffix = Path(path).suffix
    fmt = suffix.lower().lstrip(".")
    if fmt not in MODEL_FORMATS:
        raise OlctcError(f"{path}: the model file must end in .mps or .lp (got {suffix or 'no suffix'!r})")
    if fmt == "lp" and suffix != ".lp":
        # CBC tells LP from MPS by a case-sensitive suffix and reads anything else as MPS (which is why
        # NAME.MPS works): the commands in NAME.solvers.txt would fail on NAME.LP.
        raise OlctcError(f"{path}: CBC reads a file as LP only when its name ends in lower-case .lp; "
                         f"name it {str(path)[: -len(suffix)]}.lp")
    return fmt


def manifest_checksum(manifest: dict[str, Any]) -> str:
    """sha256 of a manifest's content (its own ``checksum`` and ``data.source`` aside), as JSON with sorted keys.

    ``data.source`` is a path that may be corrected by hand (``--data`` does it without editing); any
    other edit changes the model decode rebuilds from the manifest (an epsilon or big-M edited by hand
    decoded against another model than the one solved).
    """
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    if isinstance(body.get("data"), dict):
        body["data"] = {k: v for k, v in body["data"].items() if k != "source"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def write_manifest(manifest: dict[str, Any], path: str | Path) -> None:
    """Write ``manifest`` with its checksum (added to the dict)."""
    manifest["checksum"] = manifest_checksum(manifest)
    atomic_write_text(path, json.dumps(manifest, indent=1, sort_keys=False, allow_nan=False) + "\n")


def read_manifest(path: str | Path, check_model: bool = True, model_optional: bool = False) -> dict[str, Any]:
    """Load and check a manifest; with ``check_model``, verify the model file's hash (``model_optional``:
    when the file is there; decode rebuilds the model and needs no file).

    Every field a later step reads is checked for type and shape (``_ManifestCheck``): a hand-edited or
    damaged manifest gives one line naming the field, never a traceback further on; then its checksum
    (manifests since 2026-11-26) refuses any other edit. What only the training data can tell (classes,
    scaler ...) is checked where the data is read (``olctc.decode``).
    """
    path = Path(path)
    if path.suffix.lower() in (".mps", ".lp"):
        # `olctc decode m.mps m.sol` read the model as JSON: "not a valid manifest (JSON error: Expecting value...)"
        raise OlctcError(f"{path} is a model file: pass its manifest {manifest_path(path)}, which compile wrote "
                         "beside it")
    if not path.exists():
        raise OlctcError(f"{path}: no such manifest (compile writes NAME.olctc.json beside NAME.mps)")
    if path.is_dir():  # read_text raised IsADirectoryError
        raise OlctcError(f"{path}: is a folder, expected a manifest (compile writes NAME.olctc.json beside NAME.mps)")
    if read_once(path):  # read twice by decode (cli, then olctc.decode): the second read found it empty
        raise OlctcError(f"{path}: a pipe or device, not a manifest file: pass NAME.olctc.json itself (the model "
                         "and MIP start files are found beside it)")
    try:
        man = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OlctcError(f"{path}: not a valid manifest (JSON error: {exc})") from None
    except RecursionError:  # '[[[[...' nested deeper than the JSON parser goes
        raise OlctcError(f"{path}: not a valid manifest (JSON nested too deeply)") from None
    if not isinstance(man, dict) or man.get("format") != MANIFEST_FORMAT:
        raise OlctcError(f"{path}: not an olctc manifest (no \"format\": \"{MANIFEST_FORMAT}\")")
    version = man.get("version")
    if isinstance(version, bool) or version != MANIFEST_VERSION:  # true == 1 in Python
        raise OlctcError(f"{path}: manifest version {version!r} is not supported "
                         f"(this olctc reads version {MANIFEST_VERSION})")
    for key, kind in (("spec", dict), ("data", dict), ("schema", list), ("classes", list), ("scaler", dict),
                      ("model", dict), ("blocks", dict)):
        if not isinstance(man.get(key), kind):
            raise OlctcError(f"{path}: damaged manifest: field {key!r} is missing or malformed; compile again")
    if check_model and not all(isinstance(man["model"].get(k), str) for k in ("file", "sha256")):
        raise OlctcError(f"{path}: damaged manifest: field 'model' is missing or malformed; compile again")
    _ManifestCheck(path).run(man)
    if "checksum" in man:
        if not isinstance(man["checksum"], str):
            raise manifest_error(path, "checksum", "a string", brief(man["checksum"]))
        if man["checksum"] != manifest_checksum(man):
            raise OlctcError(f"{path}: the manifest was edited after compile (its content does not match its "
                             "checksum); compile again (a data file that moved needs no edit: pass --data)")
    if check_model:
        model = path.parent / man["model"]["file"]
        if not model.exists():
            if model_optional:
                return man
            raise OlctcError(f"{path}: its model file {model} is missing")
        digest = sha256_file(model)
        if digest != man["model"]["sha256"]:
            raise OlctcError(f"{model}: the model file changed since it was compiled (sha256 {digest[:12]}... "
                             f"!= {man['model']['sha256'][:12]}... in {path.name}); compile it again")
    return man


@contextlib.contextmanager
def manifest_fields(path: str | Path) -> Iterator[None]:
    """Turn a missing or malformed field deep inside a manifest into one clear error.

    ``read_manifest`` checks every field it knows of; this is the net under code that reads a field it
    does not check yet.
    """
    try:
        yield
    except KeyError as exc:
        raise OlctcError(f"{path}: damaged manifest: field {exc.args[0]!r} is missing; compile again") from None
    except (TypeError, AttributeError, IndexError) as exc:
        detail = " ".join(str(exc).split())[:120]
        raise OlctcError(f"{path}: damaged manifest: a field is malformed ({type(exc).__name__}: {detail}); "
                         "compile again") from None


def manifest_error(path: str | Path, field: str, expected: str, got: str) -> OlctcError:
    """The one-line error for a manifest field: ``<file>: damaged manifest: field 'a.b[3]': expected ..., got ...``."""
    return OlctcError(f"{path}: damaged manifest: field {field!r}: expected {expected}, got {got}; compile again")


class _ManifestCheck:
    """Type and shape of every manifest field that the steps after compile read (decode, solve)."""

    def __init__(self, path: Path):
        self.path = path

    def fail(self, field: str, expected: str, value: Any) -> OlctcError:
        return manifest_error(self.path, field, expected, brief(value))

    # ---- leaves: each returns the value it checked
    def ints(self, values: list[Any], field: str, low: int = 0) -> list[int]:
        """Every item an integer >= low. Row numbers and block labels run to millions: one cheap pass
        first, the item-by-item check (which names the bad one) only when it fails."""
        if not all(type(v) is int and v >= low for v in values):
            for k, v in enumerate(values):
                self.integer(v, f"{field}[{k}]", low)
        return values

    def integer(self, value: Any, field: str, low: int = 0) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise self.fail(field, f"an integer >= {low}", value)
        return value

    def number(self, value: Any, field: str, positive: bool = False) -> float:
        ok = not isinstance(value, bool) and isinstance(value, (int, float)) and math.isfinite(value)
        if not ok or (positive and value <= 0):
            raise self.fail(field, "a finite number > 0" if positive else "a finite number", value)
        return float(value)

    def text(self, value: Any, field: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(field, "a non-empty string", value)
        return value

    def label(self, value: Any, field: str) -> Any:
        if isinstance(value, str) or (not isinstance(value, bool) and isinstance(value, (int, float))
                                      and math.isfinite(value)):
            return value
        raise self.fail(field, "a class label (a string or a finite number)", value)

    def items(self, value: Any, field: str, n: int | None, what: str) -> list[Any]:
        if not isinstance(value, list) or (n is not None and len(value) != n):
            raise self.fail(field, f"{n} {what}" if n is not None else f"a list of {what}", value)
        return value

    def obj(self, value: Any, field: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(field, "an object", value)
        return value

    # ---- sections
    def run(self, man: dict[str, Any]) -> None:
        if "name" in man:
            self.text(man["name"], "name")
        p = self.data(man["data"])
        self.spec(man["spec"])
        self.schema(man["schema"], p)
        if "feature_names" in man:
            for k, v in enumerate(self.items(man["feature_names"], "feature_names", p, "strings (data.p)")):
                self.text(v, f"feature_names[{k}]")
        self.classes(man["classes"], man["data"].get("positive_class"))
        for key in ("mean", "scale"):
            values = self.items(man["scaler"].get(key, MISSING), f"scaler.{key}", p, "numbers (data.p)")
            for k, v in enumerate(values):
                self.number(v, f"scaler.{key}[{k}]", positive=key == "scale")
        n_cols, n_rows, _ = (self.integer(man["model"].get(k, MISSING), f"model.{k}")
                             for k in ("n_cols", "n_rows", "nnz"))
        self.blocks(man["blocks"], "columns", n_cols)
        if "rows" in man["blocks"]:
            self.blocks(man["blocks"], "rows", n_rows)
        self.files(man.get("files", {}))
        ws = man.get("warm_start")
        if ws is not None and self.obj(ws, "warm_start").get("objective") is not None:
            self.number(ws["objective"], "warm_start.objective")

    def data(self, d: dict[str, Any]) -> int:
        for key in ("name", "source", "target"):
            self.text(d.get(key, MISSING), f"data.{key}")
        digest = d.get("sha256", MISSING)
        if not (isinstance(digest, str) and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest)):
            raise self.fail("data.sha256", "64 hex digits", digest)
        n = self.integer(d.get("n", MISSING), "data.n", low=1)
        p = self.integer(d.get("p", MISSING), "data.p", low=1)
        if d.get("positive_class") is not None:
            self.label(d["positive_class"], "data.positive_class")
        if "dropped" in d:
            for k, col in enumerate(self.items(d["dropped"], "data.dropped", None, "column names")):
                self.text(col, f"data.dropped[{k}]")
        if "weight_column" in d:
            self.text(d["weight_column"], "data.weight_column")
        rows = d.get("rows")
        if rows is not None:
            self.ints(self.items(rows, "data.rows", n, "row numbers (data.n)"), "data.rows")
        counts = [self.integer(d[k], f"data.{k}") for k in ("n_positive", "n_negative") if k in d]
        if len(counts) == 2 and sum(counts) != n:
            raise self.fail("data.n", f"n_positive + n_negative = {sum(counts)}", n)
        return p

    def spec(self, d: dict[str, Any]) -> None:
        from olctc.spec import TreeSpec

        for key in ("preset", "depth", "C", "tangents", "big_m", "epsilon", "alpha"):
            if key not in d:
                raise self.fail(f"spec.{key}", "a value", MISSING)
        for k, v in enumerate(self.items(d["tangents"], "spec.tangents", None, "strings")):
            if not isinstance(v, str):
                raise self.fail(f"spec.tangents[{k}]", "a string ('-inf', '0.0', 'inf' ...)", v)
        try:
            TreeSpec.from_json(d)
        except OlctcError as exc:  # make_spec's "The 'depth' parameter must be ... Got 0 instead."
            raise OlctcError(f"{self.path}: damaged manifest: field 'spec': {str(exc).rstrip('.')}; "
                             "compile again") from None
        except (TypeError, ValueError, AttributeError) as exc:
            raise OlctcError(f"{self.path}: damaged manifest: field 'spec' is malformed ({exc}); "
                             "compile again") from None

    def schema(self, columns: list[Any], p: int) -> None:
        width = 0
        for k, col in enumerate(columns):
            col = self.obj(col, f"schema[{k}]")
            self.text(col.get("name", MISSING), f"schema[{k}].name")
            kind = col.get("kind", MISSING)
            if kind == "numeric":
                width += 1
            elif kind == "categorical":
                cats = col.get("categories", MISSING)
                if not (isinstance(cats, list) and cats and all(isinstance(c, str) for c in cats)
                        and len(set(cats)) == len(cats)):
                    raise self.fail(f"schema[{k}].categories", "a non-empty list of distinct strings", cats)
                width += len(cats)
            else:
                raise self.fail(f"schema[{k}].kind", "'numeric' or 'categorical'", kind)
        if width != p:
            raise manifest_error(self.path, "schema", f"columns that encode to {p} features (data.p)",
                                 f"{width} features")

    def classes(self, classes: list[Any], positive: Any) -> None:
        for k, v in enumerate(self.items(classes, "classes", 2, "class labels")):
            self.label(v, f"classes[{k}]")
        if classes[0] == classes[1]:
            raise self.fail("classes", "two different labels", classes[1])
        # compile records the positive class it was given as the label it found: classes[1].
        if positive is not None and positive != classes[1] and str(positive) != str(classes[1]):
            raise self.fail("data.positive_class", f"null or {classes[1]!r}, the positive class in 'classes'",
                            positive)

    def blocks(self, blocks: dict[str, Any], side: str, total: int) -> None:
        start = 0
        for k, b in enumerate(self.items(blocks.get(side, MISSING), f"blocks.{side}", None, "blocks")):
            field = f"blocks.{side}[{k}]"
            b = self.obj(b, field)
            self.text(b.get("name", MISSING), f"{field}.name")
            if isinstance(b.get("start"), bool) or b.get("start", MISSING) != start:
                raise self.fail(f"{field}.start", f"{start} (where the block before ends)", b.get("start", MISSING))
            shape = [self.integer(s, f"{field}.shape[{j}]")
                     for j, s in enumerate(self.items(b.get("shape", MISSING), f"{field}.shape", None, "sizes"))]
            for j, a in enumerate(self.items(b.get("axes", MISSING), f"{field}.axes", len(shape),
                                             "axis names (one per shape entry)")):
                self.text(a, f"{field}.axes[{j}]")
            labels = self.items(b.get("labels", MISSING), f"{field}.labels", len(shape),
                                "label lists (one per shape entry)")
            for j, lab in enumerate(labels):
                self.ints(self.items(lab, f"{field}.labels[{j}]", shape[j], f"integers (shape[{j}])"),
                          f"{field}.labels[{j}]")
            start += math.prod(shape)
        if start != total:
            raise manifest_error(self.path, f"blocks.{side}", f"blocks covering the {total} {side} of the model",
                                 f"blocks covering {start}")

    def files(self, files: Any) -> None:
        starts = self.obj(self.obj(files, "files").get("start", {}), "files.start")
        for kind, entry in starts.items():
            entry = self.obj(entry, f"files.start.{kind}")
            for key in ("file", "sha256"):
                self.text(entry.get(key, MISSING), f"files.start.{kind}.{key}")
