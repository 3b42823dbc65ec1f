"""Tree -> plain-text rules, in the spirit of scikit-learn's ``export_text``.

Each node shows its training share, its top features by influence r = w * std (paper Sec. 3.4) with
the raw-space weight, and its intercept; the last-layer classifiers end in class labels.
"""
from __future__ import annotations

from olctc.errors import OlctcError
from olctc.export._names import printable


def _fmt(v: float, decimals: int) -> str:
    return f"{v:.{decimals}g}"


def _share(tree, t: int) -> str:
    if tree.node_n is None:
        return ""
    total = max(int(tree.node_n[0]), 1)
    n = int(tree.node_n[t])
    # the schema lets a file give nodes.n without nodes.pos; int(): 100 * a count near 2**63 overflows int64
    pos = (f", class {printable(tree.classes[1], 20)}: {100 * int(tree.node_pos[t]) / n:.1f}%"
           if n and tree.node_pos is not None else "")
    return f"  [n={n} ({100 * n / total:.1f}%){pos}]"


def node_lines(tree, t: int, top: int = 5, decimals: int = 4) -> list[str]:
    """Description of node t: role, share of training points, top features, intercept."""
    last = t >= 2 ** (tree.depth - 1) - 1
    role = "classifier" if last else "split"
    out = [f"node {t} ({role}){_share(tree, t)}"]
    ranked = tree.ranked_features(t)
    # Without training statistics the standardised weight is the best available ranking.
    key = "influence" if tree.node_std is not None else "std_weight"
    W, names = tree.W_raw, tree.feature_names
    if not ranked:
        out.append(f"  constant score {_fmt(float(tree.b_raw[t]), decimals)}")
        return out
    out.append(f"  score = {_fmt(float(tree.b_raw[t]), decimals)} + sum of w * feature over "
               f"{len(ranked)} feature(s); top by |{key}|:")
    for j, v in ranked[:top]:
        out.append(f"    {printable(names[j])}: w={_fmt(float(W[t, j]), decimals)}  {key}={_fmt(v, decimals)}")
    if len(ranked) > top:
        out.append(f"    ... and {len(ranked) - top} more")
    return out


def to_text(tree, top: int = 5, decimals: int = 4) -> str:
    """The tree as indented text rules; ``top`` features per node, numbers to ``decimals`` digits."""
    neg, pos = printable(tree.classes[0]), printable(tree.classes[1])
    head = [f"olctc tree: depth {tree.depth}, {tree.n_features} features, classes {neg} / {pos}",
            "every node scores raw features: w . x + b; left if score <= 0, right if > 0; "
            f"a last-layer node predicts {pos} if score > 0, P({pos}) = sigmoid(score)"]
    if tree.probability_note:
        head.append(f"({tree.probability_note})")
    body: list[str] = []

    def visit(t: int, prefix: str) -> None:
        body.extend(prefix + line for line in node_lines(tree, t, top, decimals))
        last = t >= 2 ** (tree.depth - 1) - 1
        if last and not tree.W[t].any():  # one class for every point: say which, not two rules
            score = float(tree.b_raw[t])
            p_pos = float(tree.proba_of([score])[0, 1])  # predict_proba's own formula
            label = pos if score > 0 else neg
            body.append(f"{prefix}|--- every point: class {label} (P({pos}) = {_fmt(p_pos, decimals)})")
            return
        if last:
            body.append(f"{prefix}|--- score <= 0: class {neg}")
            body.append(f"{prefix}|--- score > 0: class {pos}")
            return
        body.append(f"{prefix}|--- score <= 0")
        visit(2 * t + 1, prefix + "|   ")
        body.append(f"{prefix}|--- score > 0")
        visit(2 * t + 2, prefix + "|   ")

    visit(0, "")
    return "\n".join(head + body + _shares(tree, top, decimals)) + "\n"


def _shares(tree, top: int, decimals: int) -> list[str]:
    """The features with the largest share of the tree (``Tree.feature_importances``), when it has training
    statistics and a nonzero weight."""
    try:
        ranked = tree.ranked_importances()
    except OlctcError:  # no training statistics, or |w| x std beyond float64 (a hand-made tree)
        return []
    if not ranked:
        return []
    names = tree.feature_names
    out = ["feature importances (each feature's share of the tree, summing to 1):"]
    out += [f"  {printable(names[j])}: {_fmt(share, decimals)}" for j, share in ranked[:top]]
    if len(ranked) > top:
        out.append(f"  ... and {len(ranked) - top} more")
    return out


def export(tree) -> bytes:
    """UTF-8 text (registry entry)."""
    return to_text(tree).encode("utf-8")
