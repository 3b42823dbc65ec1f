"""compile(dataset, spec) -> (MILP, manifest): the forward step; the manifest is its inverse data.

The manifest (``NAME.olctc.json`` beside ``NAME.mps``) holds everything later steps need to turn a
solution back into a tree: the spec, the encoding schema, the scaler, the class labels, the block map,
and sha256 hashes of the data and of the model file.
"""
from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

import numpy as np

from olctc import __version__
from olctc.data import Dataset, Scaler
from olctc.errors import OlctcError, param_error
from olctc.formulation import build_milp
from olctc.formulation.losses import loss_layers, tangent_lines
from olctc.formulation.topology import Topology
from olctc.io import atomic_write_text, sha256_file
from olctc.milp import MILP
from olctc.spec import TreeSpec

MANIFEST_FORMAT = "olctc-manifest"
MANIFEST_VERSION = 1
DEFAULT_MAX_NONZEROS = 400_000_000  # about 16 GB while building: fits a 24 GB machine
MODEL_FORMATS = ("mps", "lp")


@dataclass(frozen=True)
class SizeEstimate:
    rows: int
    cols: int
    nonzeros: int

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
    if info.loss == "misclassification":
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
    """The size of the model ``spec`` makes of ``n`` x ``p`` data; OlctcError when over ``max_nonzeros``.

    Cheap (no allocation): called before anything large is built or any file is written.
    """
    if max_nonzeros is None:
        max_nonzeros = DEFAULT_MAX_NONZEROS
    if isinstance(max_nonzeros, bool) or not isinstance(max_nonzeros, (int, np.integer)) or max_nonzeros < 1:
        raise param_error("max_nonzeros", "an integer >= 1", max_nonzeros)
    est = estimate_size(n, p, spec)
    if est.nonzeros > max_nonzeros:
        raise OlctcError(f"the model would have {est.describe()}, over the budget of {int(max_nonzeros):,} "
                         f"nonzeros (--max-nonzeros); use a smaller depth, fewer tangents or fewer points")
    return est


def compile_problem(dataset: Dataset, spec: TreeSpec, name: str = "model", *,
                    standardise: bool = True, max_nonzeros: int | None = None,
                    rows: np.ndarray | None = None) -> Compiled:
    """Standardise ``dataset`` on itself and build the MILP of ``spec``.

    ``rows`` records which rows of the source data this dataset is (a training split), for the manifest.
    Raises OlctcError, before allocating anything large, when the model would exceed ``max_nonzeros``.
    """
    check_size(dataset.n, dataset.p, spec, max_nonzeros)
    scaler = Scaler.fit(dataset.X) if standardise else Scaler.identity(dataset.p)
    with np.errstate(over="ignore", invalid="ignore"):
        X = scaler.transform(dataset.X)
    if not np.isfinite(X).all():  # a column spanning more than the float range (-1e308 and 1e308)
        j = int(np.argwhere(~np.isfinite(X))[0][1])
        raise OlctcError(f"{dataset.source or dataset.name}: feature {dataset.feature_names[j]!r} is too large to "
                         f"standardise (|value| up to {np.abs(dataset.X[:, j]).max():.3g}); rescale the column")
    milp = build_milp(X, dataset.y, spec, name=_mps_name(name))
    manifest = {
        "format": MANIFEST_FORMAT,
        "version": MANIFEST_VERSION,
        "olctc_version": __version__,
        "name": name,
        "spec": spec.to_json(),
        "data": {"name": dataset.name, "source": dataset.source, "sha256": dataset.sha256,
                 "target": dataset.target, "n": dataset.n, "p": dataset.p,
                 "rows": None if rows is None else [int(r) for r in rows],
                 "positive_class": _json_label(dataset.classes[1]),
                 "n_positive": int((dataset.y > 0).sum()), "n_negative": int((dataset.y < 0).sum())},
        "schema": dataset.schema.to_json(),
        "feature_names": dataset.feature_names,
        "classes": [_json_label(c) for c in dataset.classes],
        "scaler": scaler.to_json(),
        "model": {"n_cols": milp.n_cols, "n_rows": milp.n_rows, "nnz": milp.nnz,
                  "n_integer": int(milp.integer.sum()), "quadratic": milp.is_quadratic,
                  "obj_constant": milp.obj_constant},
        "blocks": milp.block_map(),
        "files": {},
    }
    return Compiled(milp, spec, dataset, scaler, X, manifest)


def _mps_name(name: str) -> str:
    # ASCII only: str.isalnum() accepts "é", which MPS/LP names may not hold
    safe = "".join(ch if (ch.isascii() and ch.isalnum()) or ch == "_" else "_" for ch in name)[:32]
    return safe if safe and not safe[0].isdigit() else f"m_{safe}"[:32]


def _json_label(v: Any) -> Any:
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def manifest_path(model_path: str | Path) -> Path:
    """``NAME.mps`` -> ``NAME.olctc.json``."""
    p = Path(model_path)
    stem = p.name
    for ext in (".mps", ".lp"):
        if stem.lower().endswith(ext):  # model_format accepts NAME.MPS too
            stem = stem[: -len(ext)]
    return p.with_name(stem + ".olctc.json")


def model_format(path: str | Path) -> str:
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in MODEL_FORMATS:
        raise OlctcError(f"{path}: the model file must end in .mps or .lp (got {Path(path).suffix or 'no suffix'!r})")
    return suffix


def write_manifest(manifest: dict[str, Any], path: str | Path) -> None:
    atomic_write_text(path, json.dumps(manifest, indent=1, sort_keys=False, allow_nan=False) + "\n")


def read_manifest(path: str | Path, check_model: bool = True) -> dict[str, Any]:
    """Load and check a manifest; with ``check_model``, verify the model file's hash."""
    path = Path(path)
    if not path.exists():
        raise OlctcError(f"{path}: no such manifest (compile writes NAME.olctc.json beside NAME.mps)")
    try:
        man = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise OlctcError(f"{path}: not a valid manifest (JSON error: {exc})") from None
    if not isinstance(man, dict) or man.get("format") != MANIFEST_FORMAT:
        raise OlctcError(f"{path}: not an olctc manifest (no \"format\": \"{MANIFEST_FORMAT}\")")
    if man.get("version") != MANIFEST_VERSION:
        raise OlctcError(f"{path}: manifest version {man.get('version')!r} is not supported "
                         f"(this olctc reads version {MANIFEST_VERSION})")
    for key, kind in (("spec", dict), ("data", dict), ("schema", list), ("classes", list), ("scaler", dict),
                      ("model", dict), ("blocks", dict)):
        if not isinstance(man.get(key), kind):
            raise OlctcError(f"{path}: damaged manifest: field {key!r} is missing or malformed; compile again")
    if check_model and not all(isinstance(man["model"].get(k), str) for k in ("file", "sha256")):
        raise OlctcError(f"{path}: damaged manifest: field 'model' is missing or malformed; compile again")
    if check_model:
        model = path.parent / man["model"]["file"]
        if not model.exists():
            raise OlctcError(f"{path}: its model file {model} is missing")
        digest = sha256_file(model)
        if digest != man["model"]["sha256"]:
            raise OlctcError(f"{model}: the model file changed since it was compiled (sha256 {digest[:12]}... "
                             f"!= {man['model']['sha256'][:12]}... in {path.name}); compile it again")
    return man


@contextlib.contextmanager
def manifest_fields(path: str | Path) -> Iterator[None]:
    """Turn a missing or malformed field deep inside a manifest into one clear error."""
    try:
        yield
    except (KeyError, TypeError, AttributeError, IndexError) as exc:
        raise OlctcError(f"{path}: damaged manifest: field {exc} is missing or malformed; compile again") from None
