"""A fitted tree as the MIP start of another model (``fit --start-tree``, ``compile --start-tree``, the
estimators' ``warm_start``): a longer solve that goes on from an earlier one's tree, a model of another C
or preset started from a tree at hand, a deeper tree grown from a shallower one.

The tree's splits are carried over as scores on the raw inputs, which do not depend on the scaler: a tree
fitted on other points (another split, a sample) gives the same score to every point. Features are matched
by column and category, not by position; a feature the model has and the tree lacks weighs 0, as the tree
encodes an unseen category. A tree whose classes are the model's the other way round is mirrored (every
score negated, left and right swapped). A shallower tree is deepened: each node below its last layer
copies its ancestor there, so the deeper tree routes and predicts every point as the given one did
(``warmstart.warm_start(given_layers=)`` also tries the greedy fit of the new layers under the given ones,
and keeps the start of the lower objective).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from olctc.data import Scaler, Schema, json_label
from olctc.errors import OlctcError, param_error
from olctc.formulation.topology import Topology
from olctc.spec import TreeSpec
from olctc.tree import Tree
from olctc.warmstart import over_budget


def tree_start(comp: Any, tree: Any) -> tuple[np.ndarray, dict[str, Any]]:
    """The MIP start of the compiled problem ``comp`` (``olctc.compile.Compiled``) from ``tree``: each of
    ``start_trees(tree)`` carried over (``start_weights``), deepened when shallower, completed by
    ``warmstart.warm_start``, the lowest MILP objective kept. Returns its (x, info)."""
    from olctc.warmstart import LeafTooSmall, warm_start

    ds = comp.dataset
    starts = [start_weights(t, ds.schema, comp.scaler, ds.classes, comp.spec, X=comp.X) for t in start_trees(tree)]
    try:
        return warm_start(comp.milp, comp.X, ds.y, comp.spec, sample_weight=ds.weight, tree=starts,
                          given_layers=tree.depth)
    except LeafTooSmall as exc:
        n = comp.spec.min_leaf
        raise LeafTooSmall(f"the start tree breaks min_leaf {n} on these training points: {exc.why}; start "
                           f"from a tree fitted with min_leaf {n} (--min-leaf {n}, min_leaf={n}) on them, or from "
                           "none") from None


def start_record(info: dict[str, Any]) -> dict[str, Any]:
    """What ``tree_start``'s info says of the start it kept, for a fit's record and a manifest: which tree
    ("as saved" or "before refinement") and, for a shallower tree, how it was deepened."""
    return {"tree": "before refinement" if info["tree"] else "as saved",
            **({"deepened": info["deepened"]} if "deepened" in info else {})}


def start_trees(tree: Any) -> list[Any]:
    """The trees a start from ``tree`` tries: itself, and, when refinement refit its last layer or its pure
    nodes were smoothed and the tree file kept the solver's nodes (``meta.refine.before``, written by decode
    since 2026-11-28; ``meta.pure_nodes.before``), the tree with those nodes back (by the MILP's objective,
    the tangents' loss, often the better start). A ``before`` that does not fit the tree (a hand-edited
    file) is passed over: it only ever adds a candidate."""
    import copy

    meta = tree.meta if isinstance(tree, Tree) and isinstance(tree.meta, dict) else {}
    changed = [c for c in (_kept_nodes(meta.get("refine"), "nodes_refit", tree),
                           _kept_nodes(meta.get("pure_nodes"), "nodes", tree)) if c is not None]
    if not changed:
        return [tree]
    solver = copy.copy(tree)
    solver.W, solver.b = tree.W.copy(), tree.b.copy()
    # undone last change first: a node refit and then smoothed keeps in meta.pure_nodes.before the refit
    # values, in meta.refine.before the solver's, which must win (set last)
    for nodes, W, b in reversed(changed):
        solver.W[nodes], solver.b[nodes] = W, b
    return [tree, solver]


def _kept_nodes(part: Any, key: str, tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(nodes, W, b) a meta record (``refine`` or ``pure_nodes``) kept of the nodes it changed, or None."""
    before = part.get("before") if isinstance(part, dict) else None
    if not isinstance(before, dict):
        return None
    try:
        given = np.asarray(part[key]).reshape(-1)
        # a hand-edited 1.5 (or "1", true) is no node: it was taken as node 1; checked before the cast, which warns
        # of NaN and of numbers beyond int64
        real = (given >= 0) & (given < tree.n_nodes) & (np.floor(given) == given) if given.dtype.kind in "iuf" else None
        if real is None or not real.all():
            return None
        nodes = given.astype(np.int64)
        W = np.asarray(before["W"], dtype=np.float64).reshape(nodes.size, tree.n_features)
        b = np.asarray(before["b"], dtype=np.float64).reshape(nodes.size)
    except (KeyError, TypeError, ValueError, OverflowError):  # OverflowError: 10**30 for int64, 10**400 for float
        return None
    if not nodes.size or not (np.isfinite(W).all() and np.isfinite(b).all()):
        return None
    return nodes, W, b


def _feature_keys(schema: Schema) -> list[tuple[str, str | None]]:
    """(column, category) of each encoded feature; category None for a numeric column. Not the feature's
    name: a numeric column named "a=b" and category b of column a share that."""
    return [(c.name, None) if c.kind == "numeric" else (c.name, cat) for c in schema.columns
            for cat in ([None] if c.kind == "numeric" else c.categories)]


def label_key(label: Any) -> str:
    """A class label as the start's classes are compared: a CSV's "1", an array's 1, 1.0 and True are one
    class to the user (olctc's readers make "1.0" and float arrays' 1.0 into 1)."""
    v = json_label(label)
    if isinstance(v, bool):
        v = int(v)
    elif isinstance(v, float) and v.is_integer():
        v = int(v)
    return str(v)


def _margins(S: np.ndarray, depth: int, spec: TreeSpec, flip: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per node of the given tree, a factor k >= 1 and a shift c of its score (of the mirrored score -s when
    ``flip``), k u + c, after which the model routes every point as the tree does: right (score >= eps) the
    points the tree sends right (score > 0; mirrored, those it sends left, score <= 0, ties included), left
    (score <= 0) the others. c is the smallest shift that does it (0 when none is needed). k is 1 unless the
    two sides lie closer than eps: a decoded tree's do by the solver's tolerance (its rows hold to 1e-9, and
    its b sits eps/2 lower, at the routing midpoint), and k = 1.0001 or so opens the gap again, where the
    warm start's band shift would send points of one side across (a restart from an optimal breast tree,
    29.77, began at 229.77).
    """
    topo = Topology(depth)
    k, c = np.ones(topo.n_nodes), np.zeros(topo.n_nodes)
    if depth < 2 or not S.shape[0]:
        return k, c
    on_path = topo.path_mask(topo.route(S))
    eps = spec.epsilon
    # clear of the scores' rounding (the warm start recomputes them, summed in another order), far below eps
    tiny = max(64 * np.finfo(float).eps * (1.0 + float(np.abs(S).max(initial=0.0))), 1e-6 * eps)
    for t in topo.inner:
        s = S[on_path[:, t], t]
        right = (s <= 0.0) if flip else (s > 0.0)  # the side each point must take in the model
        u = -s if flip else s
        top_left = float(u[~right].max(initial=-np.inf))
        low_right = float(u[right].min(initial=np.inf))
        gap = low_right - top_left
        if gap <= 0.0:  # rounding: nothing to open (the routing above already has every point's side)
            continue
        k[t] = max(1.0, (eps + 4 * tiny) / gap) if np.isfinite(gap) else 1.0
        lo, hi = eps + tiny - k[t] * low_right, -tiny - k[t] * top_left  # any c in [lo, hi] does it
        if k[t] > 1.0 or not lo <= 0.0 <= hi:
            c[t] = min(max(0.0, lo), hi) if lo <= hi else 0.0
    return k, c


def _mirrored(W: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same tree for the classes swapped: scores negated, each layer's nodes in reverse order (a point
    that went right, score > 0, now goes left, where the right subtree's mirror is)."""
    topo = Topology(int(round(np.log2(W.shape[0] + 1))))
    order = np.concatenate([topo.layer_nodes(h)[::-1] for h in range(1, topo.depth + 1)])
    return -W[order], -b[order]


def _deepened(W: np.ndarray, b: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """The tree at ``depth``: every node below the given last layer copies its ancestor in that layer."""
    given = int(round(np.log2(W.shape[0] + 1)))
    source = np.arange(2 ** depth - 1)
    for _ in range(depth - given):
        deep = Topology(depth).layer(source) > given
        source = np.where(deep, (source - 1) // 2, source)
    return W[source], b[source]


def start_weights(tree: Any, schema: Schema, scaler: Scaler, classes: tuple, spec: TreeSpec,
                  what: str = "the start tree", X: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(W, b) of ``tree`` for a model of ``spec`` on data encoded by ``schema``, standardised by ``scaler``,
    with classes (negative, positive) ``classes``: W (2^depth - 1, p), scores of every point as the tree's.

    OlctcError, naming ``what``, when the tree cannot start that model: deeper than it, other classes, a
    column numeric in one and categorical in the other, weight on a feature the data lack, more features
    in a node than a hard budget allows. The MIP start made from (W, b) may still move an intercept or
    scale a node (``warmstart.admissible_tree``): the model needs every score clear of the routing margin
    and within big-M. ``X``: the model's (standardised) points; with them, each routing node's intercept
    moves as little as makes the model route every point as the tree does (``_margins``: a decoded tree's
    b sits eps/2 below the model's, and a mirrored tie, score 0, must go right).
    """
    if not isinstance(tree, Tree):
        raise param_error("start_tree", "an olctc Tree (olctc.load_tree('tree.json'))", tree)
    if tree.depth > spec.depth:
        raise OlctcError(f"{what} has depth {tree.depth}, deeper than the model's {spec.depth}: a start may be "
                         f"shallower (it is deepened), not deeper; fit with --depth {tree.depth} or more")
    given, wanted = [label_key(c) for c in tree.classes], [label_key(c) for c in classes]
    if sorted(given) != sorted(wanted):
        raise OlctcError(f"{what} separates classes {tree.classes[0]!r} and {tree.classes[1]!r}; the data's are "
                         f"{classes[0]!r} and {classes[1]!r}")
    kinds = {c.name: c.kind for c in schema.columns}
    for c in tree.schema.columns:
        if c.name in kinds and kinds[c.name] != c.kind:
            raise OlctcError(f"{what}: column {c.name!r} is {c.kind} there and {kinds[c.name]} in the data")
    position = {key: j for j, key in enumerate(_feature_keys(schema))}
    W_raw, b_raw = tree.W_raw, tree.b_raw
    W = np.zeros((tree.n_nodes, len(position)))
    for k, key in enumerate(_feature_keys(tree.schema)):
        j = position.get(key)
        if j is not None:
            W[:, j] = W_raw[:, k]
        elif (W_raw[:, k] != 0).any():
            raise OlctcError(f"{what} weighs feature {tree.feature_names[k]!r}, which the data do not have "
                             f"(node {int(np.flatnonzero(W_raw[:, k])[0])}): a start must split on the data's "
                             f"features ({len(position)}: {', '.join(map(repr, schema.feature_names[:5]))}"
                             f"{', ...' if len(position) > 5 else ''})")
    with np.errstate(over="ignore", invalid="ignore"):
        b = b_raw + W @ scaler.mean  # raw score w.x + b on x = mean + scale * standardised x
        W = W * scaler.scale
    if not (np.isfinite(W).all() and np.isfinite(b).all()):
        raise OlctcError(f"{what}'s weights overflow on the data's scale")
    over = over_budget(W, spec)
    if over is not None:
        raise OlctcError(f"{what} splits on {over[1]} features at node {over[0]}; preset {spec.preset!r} allows "
                         f"at most {spec.effective_budget} per node (--budget)")
    flip = given != wanted
    if X is not None:
        factor, shift = _margins(X @ W.T + b, tree.depth, spec, flip)
        W, b = W * factor[:, None], b * factor + (-shift if flip else shift)  # mirrored below: -k b + c
    if flip:
        W, b = _mirrored(W, b)
    return _deepened(W, b, spec.depth)
