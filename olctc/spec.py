"""What to compile: the tree spec (preset, depth, C per layer, tangents, big-M, epsilon, L0 knobs).

A preset is a loss x regulariser choice and nothing else (docs/FORMULATION.md); the registry below is
the single place that says which pieces each preset uses.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np

from olctc.emit.params import TIGHT_TOL
from olctc.errors import MISSING, check_flags, is_integer, is_real, number_text, param_error

# Sato et al.'s greedy tangent points for the logistic loss (paper Sec. 3.1).
_V0 = (-math.inf, 0.0, math.inf)
TANGENT_SETS: dict[str, tuple[float, ...]] = {
    "V0": _V0,
    "V1": tuple(sorted(_V0 + (-1.9, 1.9))),
    "V2": tuple(sorted(_V0 + (-1.9, 1.9, -0.89, 0.89, -3.55, 3.55))),
    "V3": tuple(sorted(_V0 + (-1.9, 1.9, -0.89, 0.89, -3.55, 3.55, -0.44, 0.44, -1.37, 1.37,
                              -2.63, 2.63, -5.16, 5.16))),
}


@dataclass(frozen=True)
class LossKind:
    """What the steps around the model need to know of a loss (its rows are olctc.formulation.losses').

    tangent_rows : the loss is max(0, max_k c_k - g_k y score) by tangent lines, at every layer (logistic,
        hinge); otherwise it is OCT's 0/1 loss, by rows with a label column q, at the last layer only.
    smooth : the tangent lines approximate a smooth loss (the logistic): a tree has an exact objective (the
        true loss), its last layer is refined, and sigmoid(score) is a fitted probability.
    line : the loss's one tangent (g, c) (the hinge: max(0, 1 - y score)); None: the spec's tangent set.
    zero_score_loss : the loss of a score of 0: a big-M below it cannot switch a loss row off.
    row_name : the name of its tangent rows in the model files.
    """

    name: str
    tangent_rows: bool
    smooth: bool = False
    line: tuple[float, float] | None = None
    zero_score_loss: float | None = None
    row_name: str = "loss"

    @property
    def last_layer_only(self) -> bool:
        """Only the last layer's nodes carry the loss, and they classify by the routing rule (OCT-H)."""
        return not self.tangent_rows

    @property
    def uses_tangent_set(self) -> bool:
        return self.tangent_rows and self.line is None


LOSS_KINDS: dict[str, LossKind] = {k.name: k for k in (
    LossKind("logistic", tangent_rows=True, smooth=True, zero_score_loss=math.log(2.0)),
    LossKind("hinge", tangent_rows=True, line=(1.0, 1.0), zero_score_loss=1.0, row_name="hinge"),
    LossKind("misclassification", tangent_rows=False),
)}


@dataclass(frozen=True)
class Preset:
    """A loss x regulariser choice."""

    name: str
    loss: str  # "logistic" | "hinge" | "misclassification"
    regulariser: str  # "l1" | "l2" | "l1_norm_bound" (OCT-H)
    l0: str | None = None  # None | "hfs" | "sfs" | "penalty"
    default_budget: int | None = None
    quadratic: bool = False
    description: str = ""

    @property
    def uses_alpha(self) -> bool:
        return self.l0 in ("sfs", "penalty")

    @property
    def uses_budget(self) -> bool:
        return self.l0 in ("hfs", "sfs")

    @property
    def kind(self) -> LossKind:
        return LOSS_KINDS[self.loss]

    @property
    def uses_tangents(self) -> bool:
        return self.kind.uses_tangent_set


PRESETS: dict[str, Preset] = {p.name: p for p in (
    Preset("olct", "logistic", "l1", description="Optimal Logistic CT: logistic loss (tangents), L1"),
    Preset("olct-univariate", "logistic", "l1", "hfs", 1,
           description="univariate (axis-aligned) OLCT: L1 + hard budget of B features per split "
                       "(B = 1 unless --budget says otherwise)"),
    Preset("margot", "hinge", "l2", quadratic=True, description="MARGOT: hinge loss, L2 (MIQP)"),
    Preset("margot-sfs", "hinge", "l2", "sfs", 1, quadratic=True,
           description="MARGOT with soft feature selection: + alpha * max(0, ||w||_0 - B) (MIQP)"),
    Preset("margot-hfs", "hinge", "l2", "hfs", 1, quadratic=True,
           description="MARGOT with hard feature selection: ||w||_0 <= B (MIQP)"),
    Preset("oct-h", "misclassification", "l1_norm_bound", "penalty", quadratic=False,
           description="OCT-H: misclassification at the last layer, alpha * ||w||_0, ||w||_1 <= 1"),
)}

MAX_DEPTH = 12

# The routing constants live beside the solvers' tolerances (TIGHT_TOL, written into every parameter
# file). Each bound keeps a factor 10 of margin over the tolerance it guards against.
MIN_EPSILON = 10 * TIGHT_TOL
MAX_BIG_M_OVER_EPSILON = 0.1 / TIGHT_TOL
MAX_BIG_M = 1e9
# HiGHS reads an objective coefficient of 1e20 or more as infinite (and answers "Unknown" at once), SCIP
# refuses it as input data: a C or alpha that large, or C times the weights, is refused before any solve.
MAX_COST = 1e20

# The slope of the tangent at v is 1/(1 + e^v): 1.0e-6 at 13.8, 9e-14 at 30. Beyond, the line is the bound
# xi >= 0 (the point +inf) up to coefficients and right-hand sides that solvers read as 0 or not: HiGHS, SCIP,
# CBC, Gurobi and COPT dropped a row's entries of 3e-20..9e-18 at 40, CPLEX and Xpress kept them, and Xpress
# then called a point 2% above the optimum optimal (QA, 2026-12-05). The loss there is below 1e-6.
MAX_TANGENT = 13.8
#: The limit before: manifests, grids and tree files written then may hold points up to it, and still read.
MAX_TANGENT_READ = 700.0

_DEFAULT_ALPHA = 1.0


@dataclass(frozen=True)
class TreeSpec:
    """Everything that defines one MILP besides the data.

    Parameters
    ----------
    preset : a key of PRESETS.
    depth : number of branching layers (>= 1).
    C : loss weight per layer, root first (length ``depth``).
    tangents : tangent points of the logistic loss (may include +-inf); ignored by other losses.
    big_m, epsilon : the routing constants (left if score <= 0, right if score >= epsilon).
    alpha : L0 penalty weight (SFS, OCT-H).
    budget : L0 budget B (HFS, SFS).
    score_variables : give every score w_t.x_i + b_t a column s_{t,i} defined by one equality row, and
        use s in the routing and loss rows. The same feasible set in (w, b, z, xi) and the same optimum;
        x_i is written once per node instead of once per row (a6a depth 2: 4.4M instead of 11.2M
        nonzeros). Off by default: the paper's model, as docs/FORMULATION.md writes it.
    class_weight : each point's loss term is multiplied by its class's weight: None (every point 1, the
        paper's model), "balanced" (n / (2 n_c) for class c, worked out from the labels the spec is applied
        to, scikit-learn's rule) or (weight of the -1 class, weight of the +1 class).
    min_leaf : every last-layer node receives either no training point or at least this many (0: no such
        rule, the paper's model). scikit-learn's ``min_samples_leaf`` for the regions of a fixed-depth tree:
        a node that would hold fewer points is left empty, its parent routing them all to the other side.
    """

    preset: str = "olct"
    depth: int = 2
    C: tuple[float, ...] = (1.0, 1.0)
    tangents: tuple[float, ...] = _V0
    big_m: float = 100.0
    epsilon: float = 1e-5
    alpha: float = _DEFAULT_ALPHA
    budget: int | None = None
    tangent_set: str = "V0"
    score_variables: bool = False
    class_weight: str | tuple[float, float] | None = None
    min_leaf: int = 0
    extra: dict[str, Any] = field(default_factory=dict, compare=False)

    def __post_init__(self) -> None:
        # Built directly (not by make_spec), a bad field failed deep in the build ("unsupported operand type(s)
        # for ** or pow(): 'int' and 'str'", an IndexError for C of the wrong length): make_spec's checks here.
        tangents = self.tangents if isinstance(self.tangents, str) else _listed(self.tangents)
        fields = _checked_fields(self.preset, self.depth, self.C, tangents, self.big_m, self.epsilon, self.alpha,
                                 self.budget, self.score_variables, self.class_weight, self.min_leaf)
        if self.tangent_set not in ("V0", fields[8]):  # "V0" is the default: the points then name the set
            raise param_error("tangent_set", f"{fields[8]!r}, the name of the tangents given", self.tangent_set)
        for name, value in zip(("preset", "depth", "C", "tangents", "big_m", "epsilon", "alpha", "budget",
                                "tangent_set", "score_variables", "class_weight", "min_leaf"), fields):
            object.__setattr__(self, name, value)

    @property
    def info(self) -> Preset:
        return PRESETS[self.preset]

    @property
    def loss_kind(self) -> LossKind:
        return self.info.kind

    @property
    def leaf_rows(self) -> bool:
        """Whether the model needs min_leaf's column and rows: at 1 every node holds none or at least one
        point anyway, and at depth 1 the one node holds every point (build_milp refuses min_leaf above them)."""
        return self.min_leaf > 1 and self.depth > 1

    @property
    def effective_budget(self) -> int | None:
        return self.budget if self.budget is not None else self.info.default_budget

    def describe(self, classes: Sequence[Any] | None = None) -> str:
        """'margot-sfs depth 2 (C 1,1, budget 1, alpha 1)': the preset with the knobs its model uses; with the
        (negative, positive) ``classes``, class weights as label=weight."""
        knobs = ["C " + ",".join(f"{c:g}" for c in self.C)]
        knobs += [f"budget {self.effective_budget}"] if self.info.uses_budget else []
        knobs += [f"alpha {self.alpha:g}"] if self.info.uses_alpha else []
        knobs += [f"tangents {self.tangent_set}"] if self.info.uses_tangents else []
        if self.class_weight is not None:
            cw = self.class_weight
            if isinstance(cw, str):
                knobs.append(f"class weight {cw}")
            elif classes is not None:
                knobs.append("class weights " + ", ".join(f"{c}={w:g}" for c, w in zip(classes, cw)))
            else:
                knobs.append(f"class weights {cw[0]:g},{cw[1]:g}")
        if self.min_leaf:
            knobs.append(f"min leaf {self.min_leaf}")
        return f"{self.preset} depth {self.depth} ({', '.join(knobs)})"

    def to_json(self) -> dict[str, Any]:
        """The spec as the manifest and the tree's meta record it (``from_json`` reads it back)."""
        return {"preset": self.preset, "depth": self.depth, "C": list(self.C),
                "tangents": [_tangent_str(v) for v in self.tangents], "tangent_set": self.tangent_set,
                "big_m": self.big_m, "epsilon": self.epsilon, "alpha": self.alpha,
                "budget": self.effective_budget,
                # only when on, so the manifests of the default form stay as they were
                **({"score_variables": True} if self.score_variables else {}),
                **({"class_weight": _listed(self.class_weight)} if self.class_weight is not None else {}),
                **({"min_leaf": self.min_leaf} if self.min_leaf else {})}

    def class_weights(self, y: np.ndarray, sample_weight: np.ndarray | None = None) -> tuple[float, float] | None:
        """(weight of the -1 class, weight of the +1 class) on labels ``y``; None when every point weighs 1.

        "balanced" is worked out from ``y``: pass the labels the model is trained on (all of them, not a
        node's share), and their ``sample_weight`` if any: a class's size is then its total weight (a
        point of weight 2 counts as two points), so that each class weighs half of the total.
        """
        cw = self.class_weight
        if cw is None:
            return None
        if isinstance(cw, tuple):
            return cw
        y = np.asarray(y)
        pos = y > 0
        if sample_weight is None:
            n, n_pos = float(y.shape[0]), float(pos.sum())
        else:
            w = np.asarray(sample_weight, dtype=float)  # a list indexed by a mask would raise
            n, n_pos = float(np.sum(w)), float(np.sum(w[pos]))
        if n_pos <= 0 or n_pos >= n:
            return None  # one class: balancing has nothing to weigh (n / (2 n_c) would be 1/2 for all)
        return n / (2.0 * (n - n_pos)), n / (2.0 * n_pos)

    def point_weights(self, y: np.ndarray, sample_weight: np.ndarray | None = None) -> np.ndarray | None:
        """Each point's loss weight: its class's (see ``class_weights``) times its ``sample_weight``;
        None when every point weighs 1."""
        cw = self.class_weights(y, sample_weight)
        if cw is None:
            return None if sample_weight is None else np.asarray(sample_weight, dtype=float)
        by_class = np.where(np.asarray(y) > 0, cw[1], cw[0])
        return by_class if sample_weight is None else by_class * sample_weight

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "TreeSpec":
        """The spec ``to_json`` recorded, its fields checked (tangent points beyond today's limit still read)."""
        # Manifests written before unused L0 knobs were refused may record one; their model never held it.
        info = PRESETS.get(d["preset"])
        alpha = d["alpha"] if info is None or info.uses_alpha else _DEFAULT_ALPHA
        budget = d.get("budget") if info is None or info.uses_budget else None
        tangents = ",".join(d["tangents"]) if info is None or info.uses_tangents else None
        # not make_spec: a point above MAX_TANGENT, allowed when the manifest was written, still reads (the default
        # tangent_limit)
        return cls(*_checked_fields(d["preset"], d["depth"], d["C"], tangents, d["big_m"], d["epsilon"], alpha,
                                    budget, d.get("score_variables", False), d.get("class_weight"),
                                    d.get("min_leaf", 0)))


def _tangent_str(v: float) -> str:
    return "inf" if v == math.inf else "-inf" if v == -math.inf else repr(float(v))


def parse_tangents(value: str | Iterable[float] | None,
                   limit: float = MAX_TANGENT_READ) -> tuple[tuple[float, ...], str]:
    """A tangent set name (V0..V3) or a list of points -> (sorted points, label); finite points above ``limit``
    refused (``make_spec``, for new models: ``MAX_TANGENT``)."""
    if value is None:
        return TANGENT_SETS["V0"], "V0"
    if isinstance(value, str):
        key = value.strip()
        if key.upper() in TANGENT_SETS:
            return TANGENT_SETS[key.upper()], key.upper()
        parts = [s.strip() for s in key.split(",")]
        if not key or any(s == "" for s in parts):
            raise param_error("tangents", "V0, V1, V2, V3 or a comma-separated list of numbers "
                              "such as '-inf,-1.9,0,1.9,inf'", value)
        pts = []
        for s in parts:
            try:
                pts.append(number_text(s))
            except ValueError:
                raise param_error("tangents", "V0, V1, V2, V3 or a comma-separated list of numbers "
                                  "such as '-inf,-1.9,0,1.9,inf'", value) from None
        label = "custom"
    else:
        if isinstance(value, Iterator):  # read once: the messages below quoted a generator by its repr
            value = list(value)
        value = _listed(value)  # an array's repr, quoted by the messages below, runs over several lines
        pts = [_number("tangents", v, value) for v in _sequence("tangents", value, "V0, V1, V2, V3 or a list of numbers")]
        label = "custom"
    if any(math.isnan(v) for v in pts):
        raise param_error("tangents", "numbers or +-inf, not NaN", value)
    if not pts:
        raise param_error("tangents", "a non-empty list of tangent points", value)
    if all(v == math.inf for v in pts):
        # +inf is the bound xi >= 0, always present: with nothing else the model would have no loss.
        raise param_error("tangents", "a list with at least one point other than +inf", value)
    if all(math.isinf(v) for v in pts):
        # -inf gives the line -u: the loss max(0, -y s) is 0 for the tree of zero weights, whatever the data
        raise param_error("tangents", "a list with at least one finite point (with -inf and inf only, the tree "
                                      "of zero weights has loss 0)", value)
    big = [v for v in pts if limit < v < math.inf]
    if big:
        raise param_error("tangents", f"points <= {limit:g} or inf: the tangent at {big[0]!r} has a slope "
                          f"1/(1 + e^v) below 1e-6 (where the loss is below 1e-6 too), so its line is the bound "
                          "xi >= 0 that inf gives, up to coefficients solvers read as 0 or not", value)
    points = tuple(sorted(set(pts)))
    # A list equal to a named set is that set (so a manifest's points read back under their name).
    label = next((name for name, known in TANGENT_SETS.items() if known == points), label)
    return points, label


def form_name(score_variables: bool) -> str:
    """How the model writes its split scores, as the logs say it (here, not in olctc.fit: compile imported the
    whole fit module, scipy.optimize included, for it)."""
    return "score-variable form" if score_variables else "the paper's form"


def check_spec(value: Any) -> None:
    """The parameter error for ``spec`` unless ``value`` is a TreeSpec (None or a dict failed deep inside)."""
    if not isinstance(value, TreeSpec):
        raise param_error("spec", "a TreeSpec (olctc.spec.make_spec)", type(value).__name__)


def _pow2(k: int, plus: int = 0) -> str:
    """2^k + plus as text; past 64 bits as a formula, since 2 ** k itself would not fit in memory."""
    if k <= 64:
        return str(2 ** k + plus)
    return f"2^{k}" + (f" + {plus}" if plus > 0 else f" - {-plus}" if plus < 0 else "")


def _sci(x: float) -> str:
    """1e9, 1e-8: a power of ten as people write it in messages."""
    return f"{x:.0e}".replace("e+0", "e").replace("e-0", "e-").replace("e+", "e")


def _check_routing_constants(big_m: float, epsilon: float) -> None:
    if not (big_m > 0) or math.isinf(big_m):
        raise param_error("big_m", "a finite number > 0", big_m)
    if big_m > MAX_BIG_M:
        raise param_error("big_m", f"<= {_sci(MAX_BIG_M)}: solvers do not read larger coefficients reliably "
                          f"(HiGHS refuses a file with a value >= 1e15)", big_m)
    if not (0 < epsilon < math.inf):
        raise param_error("epsilon", "a finite number > 0", epsilon)
    if epsilon < MIN_EPSILON:
        raise param_error("epsilon", f">= {_sci(MIN_EPSILON)}: the solvers' feasibility tolerance is {_sci(TIGHT_TOL)}, "
                          f"and a smaller epsilon does not separate the two sides of a split", epsilon)
    if not (epsilon < big_m):
        raise param_error("epsilon", f"smaller than big-M ({big_m})", epsilon)
    if big_m > MAX_BIG_M_OVER_EPSILON * epsilon:
        raise param_error("big_m", f"<= {_sci(MAX_BIG_M_OVER_EPSILON)} * epsilon ({MAX_BIG_M_OVER_EPSILON * epsilon:g} "
                          f"for epsilon {epsilon:g}): a binary within the solvers' integrality tolerance "
                          f"{_sci(TIGHT_TOL)} of its value relaxes a routing row by big_m * {_sci(TIGHT_TOL)}, "
                          f"which must stay below epsilon", big_m)


def _check_unused_knobs(preset: str, alpha: float, budget: int | None, tangent_set: str, tangents: Any) -> None:
    """Refuse a knob the preset's model does not contain: it would change nothing but the manifest."""
    info = PRESETS[preset]
    # The CLI and the estimators always pass tangents ("V0"), so only another set is a request.
    if tangent_set != "V0" and not info.uses_tangents:
        users = ", ".join(p.name for p in PRESETS.values() if p.uses_tangents)
        raise param_error("tangents", f"unset (or V0, the default): preset {preset!r} uses the {info.loss} loss, "
                          f"not the logistic one's tangents (they apply to {users})", _listed(tangents))
    if budget is not None and not info.uses_budget:
        users = ", ".join(p.name for p in PRESETS.values() if p.uses_budget)
        raise param_error("budget", f"unset: preset {preset!r} does not use it (it applies to {users})", budget)
    # The CLI and the estimators always pass alpha, so only a value other than the default is a request.
    if alpha != _DEFAULT_ALPHA and not info.uses_alpha:
        users = ", ".join(p.name for p in PRESETS.values() if p.uses_alpha)
        raise param_error("alpha", f"unset (or {_DEFAULT_ALPHA}, the default): preset {preset!r} does not use it "
                          f"(it applies to {users})", alpha)


def _number(name: str, value: Any, whole: Any = MISSING) -> float:
    """``value`` as a float, or the parameter error for ``name`` (quoting ``whole``, the full value given,
    when ``value`` is one item of it)."""
    shown = value if whole is MISSING else whole
    if not is_real(value):
        raise param_error(name, "a number" if whole is MISSING else "a list of numbers", _listed(shown))
    try:
        return float(value)
    except OverflowError:  # a Python int beyond float64 (10**400): said as the value's own check says it
        raise param_error(name, "a number within the float range (below 1.8e308)", _listed(shown)) from None


def _sequence(name: str, value: Any, expected: str) -> list[Any]:
    """The items of a list-like parameter value, or its parameter error."""
    if isinstance(value, (str, bytes, dict, set, frozenset)) or not isinstance(value, Iterable) \
            or (isinstance(value, np.ndarray) and value.ndim == 0):  # a 0-d array cannot be iterated
        raise param_error(name, expected, value)
    return list(value)


def _listed(value: Any) -> Any:
    """A value for a message: numpy arrays and tuples as lists, so that the message stays one readable line."""
    if isinstance(value, np.ndarray):  # a 0-d array stays one ("Got 50.0" read as if 50.0 were refused)
        return value.tolist() if value.ndim else value
    return list(value) if isinstance(value, tuple) else value


def check_cost(name: str, values: Sequence[float], shown: Any, where: str = "") -> None:
    """Refuse an objective weight (C, alpha) that solvers would read as infinite."""
    if max(values, default=0.0) >= MAX_COST:
        raise param_error(name, f"below 1e20{where} (solvers read a cost of 1e20 or more as infinite)", shown)


def parse_C(value: float | str | Iterable[float], depth: int, *, name: str = "C") -> tuple[float, ...]:
    """One C per layer; a single value broadcasts. ``name``: the parameter errors name (bench's fixed_C)."""
    if not is_integer(depth) or depth < 1:  # depth 0 returned (), and None "can't multiply sequence by non-int"
        raise param_error("depth", "an integer >= 1", depth)
    if isinstance(value, str):
        try:
            vals = [number_text(s) for s in value.split(",")]
        except ValueError:
            raise param_error(name, "a positive number or one per layer separated by commas", value) from None
    elif is_real(value):
        vals = [_number(name, value)]
    else:
        if isinstance(value, Iterator):  # read once: the messages below quoted a generator as "[]" or its repr
            value = list(value)
        vals = [_number(name, v, value) for v in _sequence(name, value, "a positive number or one per layer")]
    if len(vals) == 1:
        vals = vals * depth
    if len(vals) != depth:
        wanted = "one value for depth 1" if depth == 1 else \
            f"one value or {depth} values (one per layer, root first) for depth {depth}"
        raise param_error(name, wanted,
                          value if isinstance(value, str) else list(value) if isinstance(value, Iterable) else value)
    if any(not (v > 0) or math.isinf(v) for v in vals):
        raise param_error(name, "finite and > 0 for every layer", value if isinstance(value, str) else vals)
    check_cost(name, vals, value if isinstance(value, str) else vals, " for every layer")
    return tuple(vals)


def make_spec(preset: str = "olct", depth: int = 2, C: float | str | Iterable[float] = 1.0,
              tangents: str | Iterable[float] | None = None, big_m: float = 100.0,
              epsilon: float = 1e-5, alpha: float = _DEFAULT_ALPHA, budget: int | None = None,
              score_variables: bool = False, class_weight: Any = None, min_leaf: int = 0) -> TreeSpec:
    """Validate every knob and build a TreeSpec; bad values raise OlctcError naming the parameter.

    ``class_weight``: None, "balanced" or (weight of the -1 class, weight of the +1 class); weights by class
    label are turned into that pair where the labels are known (``olctc.data.class_weight_by_label``).
    """
    # a new model's tangent limit; TreeSpec's own check (and from_json's) reads older models' points too
    return TreeSpec(*_checked_fields(preset, depth, C, tangents, big_m, epsilon, alpha, budget, score_variables,
                                     class_weight, min_leaf, tangent_limit=MAX_TANGENT))


def _checked_fields(preset: Any, depth: Any, C: Any, tangents: Any, big_m: Any, epsilon: Any, alpha: Any,
                    budget: Any, score_variables: Any, class_weight: Any, min_leaf: Any = 0, *,
                    tangent_limit: float = MAX_TANGENT_READ) -> tuple:
    """make_spec's checks: TreeSpec's fields in order, normalised, or the parameter error (``tangent_limit``:
    ``parse_tangents``')."""
    if not isinstance(preset, str) or preset not in PRESETS:
        raise param_error("preset", f"one of {', '.join(PRESETS)}", preset)
    # numpy integers (np.int64 from an array or a grid) are integers too: refusing them said "must be an
    # integer >= 1. Got np.int64(2) instead."
    if not is_integer(depth) or depth < 1:
        raise param_error("depth", "an integer >= 1", depth)
    depth = int(depth)
    if depth > MAX_DEPTH:
        raise param_error("depth", f"<= {MAX_DEPTH} (depth {depth} has {_pow2(depth, -1)} branch nodes and "
                          f"{_pow2(depth - 1)} routing variables per point)", depth)
    Cs = parse_C(C, depth)
    pts, label = parse_tangents(tangents, tangent_limit)
    big_m, epsilon, alpha = (_number(name, v) for name, v in (("big_m", big_m), ("epsilon", epsilon),
                                                               ("alpha", alpha)))
    _check_routing_constants(big_m, epsilon)
    if not (alpha >= 0) or math.isinf(alpha):
        raise param_error("alpha", "a finite number >= 0", alpha)
    check_cost("alpha", [alpha], alpha)
    if budget is not None:
        if not is_integer(budget) or budget < 1:
            raise param_error("budget", "an integer >= 1", budget)
        budget = int(budget)
    _check_unused_knobs(preset, alpha, budget, label, tangents)
    if budget is None:
        # the preset's default, as to_json writes it: a spec read back from its JSON equals the spec written
        budget = PRESETS[preset].default_budget
    check_flags(score_variables=score_variables)  # numpy's booleans too, as numpy's integers for depth
    if not is_integer(min_leaf) or min_leaf < 0:
        raise param_error("min_leaf", "an integer >= 0 (training points per last-layer node; 0: no minimum)",
                          min_leaf)
    return (preset, depth, Cs, pts, big_m, epsilon, alpha, budget, label, bool(score_variables),
            parse_class_weight(class_weight), int(min_leaf))


CLASS_WEIGHT_EXPECTED = "None, 'balanced' or two weights (class -1, class +1), each finite and > 0"


def parse_class_weight(value: Any) -> str | tuple[float, float] | None:
    """None, "balanced" or a (negative, positive) pair of finite weights > 0; else the parameter error."""
    if value is None:
        return None
    if isinstance(value, str):
        if value.strip().lower() == "balanced":
            return "balanced"
        raise param_error("class_weight", CLASS_WEIGHT_EXPECTED, value)
    items = _sequence("class_weight", value, CLASS_WEIGHT_EXPECTED)
    if len(items) != 2 or not all(is_real(v) for v in items):
        raise param_error("class_weight", CLASS_WEIGHT_EXPECTED, _listed(value))
    try:
        pair = (float(items[0]), float(items[1]))
    except OverflowError:  # a Python int beyond float64 (10**400): not finite either
        raise param_error("class_weight", CLASS_WEIGHT_EXPECTED, _listed(value)) from None
    if not all(v > 0 and math.isfinite(v) for v in pair):
        raise param_error("class_weight", CLASS_WEIGHT_EXPECTED, _listed(value))
    # (1, 1) is the unweighted model: one spelling, so its manifest and describe() stay the paper's
    return None if pair == (1.0, 1.0) else pair
