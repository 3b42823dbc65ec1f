"""Tree -> picture (PNG or SVG) with matplotlib's Agg backend, in the spirit of the paper's Fig. 2.

Each node is a box: its id and role, its share of the training points and of positives, and bars for
its top features by influence r = w * std (blue pushes right / positive, red left / negative). Split
nodes are white, last-layer classifiers grey (as in the paper), with their class labels below. The
figure grows with the number of last-layer nodes, so deep trees stay legible.
"""
from __future__ import annotations

import io
import warnings

import numpy as np

from olctc.errors import OlctcError
from olctc.export._names import printable

_BOX_W, _BOX_H = 0.9, 0.72  # node box in layout units (one unit per last-layer node and per layer)


def _header(tree, t: int) -> str:
    last = t >= 2 ** (tree.depth - 1) - 1
    head = f"node {t} · {'classifier' if last else 'split'}"
    if tree.node_n is None:
        return head
    n, total = int(tree.node_n[t]), max(int(tree.node_n[0]), 1)
    # the schema lets a file give nodes.n without nodes.pos; int(): 100 * a count near 2**63 overflows int64
    pos = f" · {100 * int(tree.node_pos[t]) / n:.0f}% pos" if n and tree.node_pos is not None else ""
    return f"{head}\nn={n} ({100 * n / total:.1f}%){pos}"


def _draw_node(ax, tree, t: int, x: float, y: float, top: int, scale: float) -> None:
    from matplotlib.patches import FancyBboxPatch, Rectangle

    last = t >= 2 ** (tree.depth - 1) - 1
    x0, y0 = x - _BOX_W / 2, y - _BOX_H / 2
    ax.add_patch(FancyBboxPatch((x0, y0), _BOX_W, _BOX_H, boxstyle="round,pad=0.01",
                                fc="#d0d0d0" if last else "white", ec="black", lw=0.8))
    ax.text(x, y0 + _BOX_H - 0.03, _header(tree, t), ha="center", va="top", fontsize=7, parse_math=False)
    ranked = tree.ranked_features(t, top)
    rows_top, row_h = y0 + _BOX_H - 0.2, 0.4 / max(top, 1)
    if not ranked:
        ax.text(x, rows_top - 0.1, f"constant score {float(tree.b_raw[t]):.3g}", ha="center", va="top",
                fontsize=6.5, parse_math=False)
        return
    mid, half = x0 + 0.62 * _BOX_W, 0.2 * _BOX_W
    names = tree.feature_names
    for i, (j, v) in enumerate(ranked):
        yc = rows_top - (i + 0.5) * row_h
        ax.text(x0 + 0.03, yc, printable(names[j], 16), ha="left", va="center", fontsize=6, parse_math=False)
        # at most the half-width: an influence that overflowed to inf (|w| * std > 1.8e308) gets a full bar
        width = half * max(-1.0, min(1.0, v / scale))
        ax.add_patch(Rectangle((mid, yc - 0.4 * row_h), width, 0.8 * row_h, lw=0,
                               fc="#3b6fb6" if v > 0 else "#c44e52"))
        ax.text(mid + width + (0.01 if v > 0 else -0.01), yc, f"{v:+.2g}", fontsize=5.5, va="center",
                ha="left" if v > 0 else "right", parse_math=False)
    ax.plot([mid, mid], [rows_top, rows_top - len(ranked) * row_h], color="black", lw=0.5)


def figure(tree, top: int = 4):
    """A matplotlib Figure (Agg canvas, no pyplot state) drawing the tree."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    d = tree.depth
    width = 2 ** (d - 1)
    fig = Figure(figsize=(max(3.2 * width, 4.0), 2.0 * d + 1.0))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0.01, 0.01, 0.98, 0.98))
    ax.set_xlim(0, width)
    ax.set_ylim(-0.3, d + 0.2)
    what = "influence r = w · std" if tree.node_std is not None else "standardised weight"
    sep = " · " if width > 1 else "\n"  # the line is 5.3 inches long: a depth-1 figure (4 inches) cut it off
    ax.text(0.01, d + 0.17, f"olctc tree · depth {d}{sep}bars: top features by {what} "
            "(blue: towards right / positive)", fontsize=7, va="top", parse_math=False)
    ax.axis("off")
    infl = np.abs(tree.influence() if tree.node_std is not None else tree.W)
    # One scale for all bars (nodes are comparable), from the finite values: an overflowed influence made
    # it inf and every bar vanish, and a tree without features (W of shape (n, 0)) crashed max().
    scale = float(infl[np.isfinite(infl)].max(initial=0.0)) or 1.0
    pos: dict[int, tuple[float, float]] = {}
    for t in range(tree.n_nodes):
        h = int(tree.topology.layer(t))
        k = t - (2 ** (h - 1) - 1)
        pos[t] = ((k + 0.5) * width / 2 ** (h - 1), d - h + 0.5)
    for t in range(2 ** (d - 1) - 1):
        (x, y) = pos[t]
        for child, lab in ((2 * t + 1, "≤ 0"), (2 * t + 2, "> 0")):
            cx, cy = pos[child]
            ax.plot([x, cx], [y - _BOX_H / 2, cy + _BOX_H / 2], color="black", lw=0.8, zorder=0)
            ax.text((x + cx) / 2, (y - _BOX_H / 2 + cy + _BOX_H / 2) / 2, lab, fontsize=7, ha="center",
                    va="center", bbox={"fc": "white", "ec": "none", "pad": 0.5}, parse_math=False)
    for t, (x, y) in pos.items():
        _draw_node(ax, tree, t, x, y, top, scale)
    for t in range(2 ** (d - 1) - 1, tree.n_nodes):
        x, y = pos[t]
        for dx, lab, cls in ((-0.22, "≤ 0", tree.classes[0]), (0.22, "> 0", tree.classes[1])):
            ax.text(x + dx, y - _BOX_H / 2 - 0.08, f"{lab}: {printable(cls, 14)}", ha="center", va="top",
                    fontsize=7, parse_math=False,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "#808080", "lw": 0.5})
    return fig


def render(tree, fmt: str = "png", dpi: int = 100) -> bytes:
    """The picture as PNG or SVG bytes."""
    if fmt not in ("png", "svg"):
        raise OlctcError(f"picture format must be 'png' or 'svg'; got {fmt!r}")
    fig = figure(tree)
    buf = io.BytesIO()
    # Fonts may lack glyphs for some feature names (e.g. CJK): matplotlib draws a box and warns.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        meta = {"Date": None} if fmt == "svg" else {}
        # SVG clip-path ids are random unless salted: a fixed salt makes the same tree the same file.
        from matplotlib import rc_context

        with rc_context({"svg.hashsalt": "olctc"}):
            fig.savefig(buf, format=fmt, dpi=dpi, metadata=meta)
    return buf.getvalue()


def export_png(tree) -> bytes:
    """PNG bytes (registry entry)."""
    return render(tree, "png")


def export_svg(tree) -> bytes:
    """SVG bytes (registry entry)."""
    return render(tree, "svg")
