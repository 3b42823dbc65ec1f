"""Tree -> Graphviz DOT text (render with ``dot -Tpng tree.dot -o tree.png``).

Node ids are generated (``n0``, ``n1``, ..., ``c3_neg``); user-controlled text only appears inside
double-quoted labels, made printable by ``_names.printable`` and escaped for DOT.
"""
from __future__ import annotations

from olctc.export._names import printable


def quote(text: str) -> str:
    """A DOT double-quoted string whose content displays ``text`` literally (lines split on '\\n')."""
    lines = [printable(line, 60).replace("\\", "\\\\").replace('"', '\\"') for line in text.split("\n")]
    # "\l" left-justifies each line in Graphviz.
    return '"' + "\\l".join(lines) + '\\l"'


def _label(tree, t: int, top: int) -> str:
    last = t >= 2 ** (tree.depth - 1) - 1
    lines = [f"node {t} ({'classifier' if last else 'split'})"]
    if tree.node_n is not None:
        # Python ints: 100 * a count near 2**63 (valid in a file) overflows numpy's int64
        n, n_t = int(tree.node_n[0]) or 1, int(tree.node_n[t])
        share = f"n={n_t} ({100 * n_t / n:.1f}%)"
        if tree.node_pos is not None and n_t:  # the schema lets a file give nodes.n without nodes.pos
            # the class by name, as the text export says it ("positive" named none)
            share += f", class {printable(tree.classes[1], 20)}: {100 * int(tree.node_pos[t]) / n_t:.1f}%"
        lines.append(share)
    key = "r" if tree.node_std is not None else "w_std"
    W, names = tree.W_raw, tree.feature_names
    ranked = tree.ranked_features(t)
    for j, v in ranked[:top]:
        # printable() on the name itself: its line break split the line, so a name could show as a line of its own
        lines.append(f"{key}={v:+.3g} w={float(W[t, j]):.3g} {printable(names[j], 60)}")
    if len(ranked) > top:
        lines.append(f"... {len(ranked) - top} more")
    lines.append(f"b={float(tree.b_raw[t]):.4g}")
    return quote("\n".join(lines))


def to_dot(tree, top: int = 4) -> str:
    """DOT source: split nodes white, last-layer classifiers grey, class labels as ellipses."""
    out = ["digraph olctc_tree {",
           '  graph [rankdir=TB, label="olctc tree: left if score <= 0, right if score > 0", labelloc=t];',
           '  node [shape=box, style=filled, fillcolor=white, fontname="Helvetica", fontsize=10];',
           '  edge [fontname="Helvetica", fontsize=9];']
    first_last = 2 ** (tree.depth - 1) - 1
    for t in range(tree.n_nodes):
        fill = ', fillcolor="#c8c8c8"' if t >= first_last else ""
        out.append(f"  n{t} [label={_label(tree, t, top)}{fill}];")
    for t in range(first_last):
        out.append(f'  n{t} -> n{2 * t + 1} [label="<= 0"];')
        out.append(f'  n{t} -> n{2 * t + 2} [label="> 0"];')
    for t in range(first_last, tree.n_nodes):
        for side, cls, edge in (("neg", tree.classes[0], "<= 0"), ("pos", tree.classes[1], "> 0")):
            out.append(f"  c{t}_{side} [label={quote(printable(cls, 60))}, shape=ellipse, fillcolor=white];")
            out.append(f'  n{t} -> c{t}_{side} [label="{edge}"];')
    out.append("}")
    return "\n".join(out) + "\n"


def export(tree) -> bytes:
    """UTF-8 DOT text (registry entry)."""
    return to_dot(tree).encode("utf-8")
