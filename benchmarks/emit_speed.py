"""Time the MPS and LP writers on a model the size of the target instance.

~90,000 rows x 750 columns, ~11 million nonzeros in dense rows of ~125 entries, names like
``w_pos_2_117`` and ``route_l_0_11219`` / ``loss_1_2_11219``. Coefficients come from a standardised
feature matrix: ``--values few`` has binary features (two distinct values per feature, so few
distinct coefficients), ``--values many`` continuous ones (all distinct). Prints seconds (median of
``--repeat``), MB/s and process CPU seconds for each writer; ``--breakdown`` adds the CPU time of
assembling the bytes alone and of their sha256 alone (the digest runs on a second thread, so on an
idle 2-core machine a write takes about the larger of "assemble + write(2)" and "sha256").

    python benchmarks/emit_speed.py                  # both variants, both writers
    python benchmarks/emit_speed.py --values few --writers mps --points 2000   # smaller
    python benchmarks/emit_speed.py --writers lp --lp-line-limits 4000,510    # LP line limits, interleaved
"""
from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from olctc.emit import _format as F  # noqa: E402
from olctc.emit import lp, mps  # noqa: E402
from olctc.emit.lp import write_lp  # noqa: E402
from olctc.emit.mps import write_mps  # noqa: E402
from olctc.milp import MILP, Block  # noqa: E402


def build(points: int, features: int, nodes: int, values: str, seed: int = 0) -> MILP:
    """A tree-shaped model: rows route_l/route_r per (node, point) with ~features/2 + 1 entries,
    sparse loss rows per (class, leaf, point/4); columns w_pos/w_neg per (node, feature), d per node."""
    rng = np.random.default_rng(seed)
    if values == "few":
        X = (rng.random((points, features)) < rng.uniform(0.1, 0.9, features)).astype(float)
    else:
        X = rng.standard_normal((points, features)) * rng.uniform(0.5, 3, features) + rng.uniform(-2, 2, features)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    half = features // 2
    # Row (node t, point i), "route_l" and "route_r": sum_j w_pos[t, j] x_ij (first half of the
    # features) - sum_j w_neg[t, j] x_ij (second half) - d_t (side) ... ~features/2 + 1 entries each.
    ncol_w = nodes * features
    n = 2 * ncol_w // 2 + nodes  # w_pos (nodes x half) and w_neg (nodes x half) and d
    rows_idx, cols_idx, vals = [], [], []
    nrow = 0
    row_blocks = []
    for kind, feats in (("route_l", np.arange(half)), ("route_r", np.arange(half, features))):
        start = nrow
        for t in range(nodes):
            base = (0 if kind == "route_l" else nodes * half) + t * half
            r = nrow + np.repeat(np.arange(points), half)
            cidx = np.tile(base + np.arange(half), points)
            v = X[:, feats].ravel()
            rows_idx += [r, nrow + np.arange(points)]
            cols_idx += [cidx, np.full(points, 2 * nodes * half + t)]
            vals += [v, np.full(points, -1.0)]
            nrow += points
        row_blocks.append(Block(kind, start, (nodes, points), ("node", "point"),
                                (tuple(range(nodes)), tuple(range(points)))))
    # loss rows: 2 classes x 2 leaves x points/4, two entries each (sparse; realistic names).
    start = nrow
    q = points // 4
    r = nrow + np.arange(4 * q)
    rows_idx += [r, r]
    cols_idx += [np.full(4 * q, 2 * nodes * half), np.full(4 * q, 2 * nodes * half + 1)]
    vals += [np.ones(4 * q), -np.ones(4 * q)]
    nrow += 4 * q
    row_blocks.append(Block("loss", start, (2, 2, q), ("class", "leaf", "point"),
                            ((0, 1), (0, 1), tuple(range(q)))))
    A = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows_idx), np.concatenate(cols_idx))),
                      shape=(nrow, n))
    col_blocks = (Block("w_pos", 0, (nodes, half), ("node", "feature"), (tuple(range(nodes)), tuple(range(half)))),
                  Block("w_neg", nodes * half, (nodes, half), ("node", "feature"),
                        (tuple(range(nodes)), tuple(range(half)))),
                  Block("d", 2 * nodes * half, (nodes,), ("node",), (tuple(range(nodes)),)))
    c = np.zeros(n)
    c[-nodes:] = 1.0
    sense = np.where(np.arange(nrow) % 3 == 0, "L", np.where(np.arange(nrow) % 3 == 1, "G", "E"))
    rhs = np.where(np.arange(nrow) % 2 == 0, 0.0, 1.0)
    lb = np.concatenate([np.full(2 * nodes * half, -1.0), np.zeros(nodes)])
    ub = np.ones(n)
    integer = np.concatenate([np.zeros(2 * nodes * half, dtype=bool), np.ones(nodes, dtype=bool)])
    return MILP("bench", c, A, sense.astype("U1"), rhs, lb, ub, integer, col_blocks, tuple(row_blocks))


def breakdown(milp: MILP, module) -> tuple[float, float, int]:
    """CPU seconds to assemble the bytes alone (no file, no digest) and to sha256 them; size."""
    pool = F._Pool(4)
    h = hashlib.sha256()
    size = 0
    produce = hashing = 0.0
    t = time.process_time()
    prep = module._prepare(milp)
    for ch in module._produce(prep, pool.alloc):
        t1 = time.process_time()
        produce += t1 - t
        for piece in ch.pieces:
            h.update(piece)
            size += len(piece)
        t = time.process_time()
        hashing += t - t1
        pool.release(ch.buf)
    return produce, hashing, size


def compare_line_limits(args: argparse.Namespace, limits: list[int]) -> None:
    """write_lp at each of ``limits`` (lp.MAX_LINE), the limits alternating within each repeat."""
    variants = ["few", "many"] if args.values == "both" else [args.values]
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        path = os.path.join(tmp, "bench.lp")
        for values in variants:
            milp = build(args.points, args.features, args.nodes, values)
            times: dict[int, list[float]] = {k: [] for k in limits}
            shape: dict[int, tuple[int, int]] = {}
            for r in range(args.repeat):
                for k in (limits if r % 2 == 0 else limits[::-1]):
                    lp.MAX_LINE = k
                    t0 = time.perf_counter()
                    write_lp(milp, path)
                    times[k].append(time.perf_counter() - t0)
                    with open(path, "rb") as fh:
                        data = fh.read()
                    shape[k] = (len(data), max(len(line) for line in data.split(b"\n")))
                    os.unlink(path)
            for k in limits:
                print(f"[{values}] write_lp at MAX_LINE {k}: {statistics.median(times[k]):.2f} s median of "
                      f"{args.repeat} ({', '.join(f'{t:.2f}' for t in times[k])}), {shape[k][0] / 1e6:.1f} MB, "
                      f"longest line {shape[k][1]}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--points", type=int, default=14500)
    ap.add_argument("--features", type=int, default=250)
    ap.add_argument("--nodes", type=int, default=3)
    ap.add_argument("--values", choices=["few", "many", "both"], default="both")
    ap.add_argument("--writers", choices=["mps", "lp", "both"], default="both")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--dir", default=None, help="where to write (default: a temporary folder)")
    ap.add_argument("--breakdown", action="store_true",
                    help="also time assembling the bytes alone and hashing them alone")
    ap.add_argument("--lp-line-limits", default=None,
                    help="comma-separated lp.MAX_LINE values: the LP writer at each, runs interleaved")
    args = ap.parse_args()
    if args.lp_line_limits:
        compare_line_limits(args, [int(v) for v in args.lp_line_limits.split(",")])
        return
    variants = ["few", "many"] if args.values == "both" else [args.values]
    writers = [("mps", write_mps), ("lp", write_lp)]
    writers = [w for w in writers if args.writers in ("both", w[0])]
    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        for values in variants:
            t0 = time.perf_counter()
            milp = build(args.points, args.features, args.nodes, values)
            print(f"[{values}] model {milp.n_rows} rows x {milp.n_cols} cols, {milp.nnz:,} nonzeros, "
                  f"{np.unique(milp.A.data).size:,} distinct coefficients (built in "
                  f"{time.perf_counter() - t0:.1f} s)", flush=True)
            for name, write in writers:
                path = os.path.join(tmp, f"bench.{name}")
                times, cpus = [], []
                for _ in range(args.repeat):
                    t0, c0 = time.perf_counter(), time.process_time()
                    write(milp, path)
                    times.append(time.perf_counter() - t0)
                    cpus.append(time.process_time() - c0)
                    size = os.path.getsize(path)
                    os.unlink(path)
                med = statistics.median(times)
                print(f"[{values}] write_{name}: {med:.2f} s median of {args.repeat} "
                      f"({', '.join(f'{t:.2f}' for t in times)}), {size / 1e6:.0f} MB, "
                      f"{size / 1e6 / med:.0f} MB/s; CPU {statistics.median(cpus):.2f} s (both threads)",
                      flush=True)
                if args.breakdown:
                    prod, hsh, _ = breakdown(milp, mps if name == "mps" else lp)
                    print(f"[{values}]   {name} breakdown (CPU s): assemble bytes {prod:.2f}, "
                          f"sha256 {hsh:.2f} ({size / 1e6 / hsh:.0f} MB/s)", flush=True)


if __name__ == "__main__":
    main()
