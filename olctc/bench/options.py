"""What a bench run is asked for (``BenchOptions``): experiment, data sets, seeds, models, C, solver, limits,
parsed and checked before anything runs."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Iterable, Sequence


from olctc.bench.experiments import C_GRID, THREADS, Experiment, get_experiment
from olctc.emit.params import COMMERCIAL_SOLVERS, MAX_THREADS, MAX_TIME_LIMIT
from olctc.errors import OlctcError, is_integer, number_text, param_error


TEST_SIZE = 0.2
#: fit's in-process solvers (olctc.fit.IN_PROCESS); the commercial ones where their package is installed
SOLVERS = ("highs", "cbc", "scip", *COMMERCIAL_SOLVERS)
MAX_SEED = 2 ** 32 - 1  # scikit-learn's random_state (and olctc's split) take seeds in [0, 2**32 - 1]
@dataclass(frozen=True)
class BenchOptions:
    """Everything that defines the set of runs (not how many run at once)."""

    experiment: str
    datasets: tuple[str, ...]
    seeds: tuple[int, ...]
    models: tuple[str, ...]
    solver: str = "highs"
    time_limit: float = 300.0
    fixed_C: str = "anchors"
    cv: int | None = None
    C_grid: tuple[float, ...] = C_GRID
    authors_split: bool = False
    threads: int = THREADS
    class_weight: str | None = None  # "balanced": every model's loss (and the baselines') balanced
    score_variables: bool = False  # every tree model compiled with a column per split score
    min_leaf: int = 0  # every tree's last-layer nodes hold none or at least this many training points
    smooth_pure_nodes: bool = False  # every tree's one-class last-layer nodes given their smoothed log-odds

    @property
    def uses_C_grid(self) -> bool:
        """Whether a run searches ``C_grid``: every run under --cv, and L1-LR's, which picks its C by CV always."""
        return uses_C_grid(get_experiment(self.experiment), self.models, self.cv)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        # Options at their default are left out, so folders made before they existed stay resumable.
        if not self.authors_split:
            del d["authors_split"]
        if self.threads == THREADS:
            del d["threads"]
        if self.class_weight is None:
            del d["class_weight"]
        if not self.score_variables:
            del d["score_variables"]
        if not self.min_leaf:
            del d["min_leaf"]
        if not self.smooth_pure_nodes:
            del d["smooth_pure_nodes"]
        return {k: list(v) if isinstance(v, tuple) else v for k, v in d.items()}


def parse_seeds(text: str | None, default: Iterable[int]) -> tuple[int, ...]:
    """'0,42,314' -> (0, 42, 314); OlctcError unless every item is an integer."""
    if text is None:
        return tuple(default)
    parts = [s.strip() for s in str(text).split(",")]
    try:
        seeds = tuple(number_text(s, int) for s in parts)
    except ValueError:
        raise param_error("seeds", "comma-separated integers such as '0,42,314'", text) from None
    if len(set(seeds)) != len(seeds):
        raise param_error("seeds", "distinct integers", text)
    if any(not 0 <= s <= MAX_SEED for s in seeds):
        # Every run of such a seed would fail (the split's random_state), each with the same error.
        raise param_error("seeds", f"integers from 0 to {MAX_SEED}", text)
    return seeds


def parse_datasets(text: str | None, default: Iterable[str]) -> tuple[str, ...]:
    """'a,b' -> ('a', 'b'), each a vendored data set; OlctcError naming the first unknown one."""
    from olctc.datasets import dataset_names

    names = tuple(default) if text is None else tuple(s.strip() for s in str(text).split(","))
    known = dataset_names()
    for n in names:
        if n not in known:
            raise OlctcError(f"unknown data set {n!r}; known: {', '.join(known)}")
    if not names or len(set(names)) != len(names):
        raise param_error("datasets", "distinct data set names separated by commas", text)
    return names


def parse_models(text: str | None, exp: Experiment) -> tuple[str, ...]:
    """Model names of ``exp`` (default: its default list)."""
    if text is None:
        return exp.defaults
    names = tuple(s.strip() for s in str(text).split(","))
    for n in names:
        exp.model(n)
    if len(set(names)) != len(names):
        # The same task twice: two runs, two records of one key, and the report counting both.
        raise param_error("models", "distinct model names separated by commas", text)
    return names


def parse_grid(text: str | None) -> tuple[float, ...]:
    """'0.01,1,100' -> floats > 0 (the per-layer C grid of --cv)."""
    if text is None:
        return C_GRID
    try:
        vals = tuple(number_text(s) for s in str(text).split(","))
    except ValueError:
        raise param_error("C_grid", "positive numbers separated by commas", text) from None
    if not vals or any(not (v > 0 and math.isfinite(v)) for v in vals):
        raise param_error("C_grid", "positive finite numbers separated by commas", text)
    from olctc.spec import check_cost

    check_cost("C_grid", vals, text, " for every value")
    if len(set(vals)) != len(vals):
        raise param_error("C_grid", "distinct numbers separated by commas", text)
    return vals


def uses_C_grid(exp: Experiment, model_names: Sequence[str], cv: int | None) -> bool:
    """Whether a bench of these models searches a C grid: under --cv, or with L1-LR (its C by CV always)."""
    return cv is not None or any(exp.model(n).kind == "l1lr" for n in model_names)


def make_options(experiment: str, *, datasets: str | None = None, seeds: str | None = None,
                 models: str | None = None, solver: str = "highs", time_limit: float = 300.0,
                 fixed_C: str = "anchors", cv: int | None = None, C_grid: str | None = None,
                 authors_split: bool = False, threads: int = THREADS,
                 class_weight: str | None = None, score_variables: bool = False, min_leaf: int = 0,
                 smooth_pure_nodes: bool = False) -> BenchOptions:
    """Validate every bench option (OlctcError with a one-line message) and build BenchOptions."""
    exp = get_experiment(experiment)
    if not is_integer(threads) or threads < 1:  # numpy's integers too: np.int64(2) was "Got 2 instead"
        raise param_error("threads", "an integer >= 1 (solver threads per fit)", threads)
    if threads > MAX_THREADS:
        raise param_error("threads", f"at most {MAX_THREADS} (solver threads per fit)", threads)
    if solver not in SOLVERS:
        raise param_error("solver", f"one of {', '.join(SOLVERS)}", solver)
    if solver in COMMERCIAL_SOLVERS:  # each run failed alone on the missing package: said once, now
        from olctc.solve.commercial import import_solver

        import_solver(solver)
    if not (time_limit > 0):
        raise param_error("time_limit", "> 0 seconds", time_limit)
    if not time_limit <= MAX_TIME_LIMIT:  # inf: the run's hard limit (and the wait for it) overflows
        raise param_error("time_limit", "at most 1e7 seconds (115 days)", time_limit)
    model_names = parse_models(models, exp)
    peers = [n for n in model_names if exp.model(n).kind == "pystreed"]
    if peers:
        import importlib

        try:
            importlib.import_module("pystreed")
        except ImportError:  # each run was recorded "skipped", and the bench said nothing of it
            raise OlctcError(f"model {peers[0]} needs pystreed, which is not installed here: pip install pystreed, "
                             f"or leave {peers[0]} out of --models") from None
    if any(exp.model(n).fits_olctc for n in model_names):
        # as fit refuses it: a bench at --time-limit 1 recorded every tree run as that error, and the folder
        # kept the limit
        from olctc.fit import check_time_limit

        check_time_limit(time_limit)
    if cv is not None and (not is_integer(cv) or cv < 2):  # 2.5 was taken, and every run failed on it
        raise param_error("cv", "an integer >= 2 (folds)", cv)
    if fixed_C != "anchors":
        from olctc.spec import parse_C

        parse_C(fixed_C, exp.depth, name="fixed_C")
    if class_weight is not None and class_weight != "balanced":
        # one request for every data set: weights by label would name other labels in each
        raise param_error("class_weight", "'balanced' or unset", class_weight, option="--class-weight")
    if not is_integer(min_leaf) or min_leaf < 0:
        raise param_error("min_leaf", "an integer >= 0 (training points per last-layer node; 0: no minimum)",
                          min_leaf, option="--min-leaf")
    grid = parse_grid(C_grid)  # its own errors first: a malformed grid is named as such
    if C_grid is not None and not uses_C_grid(exp, model_names, cv):
        # accepted and ignored before: the folder recorded a grid no run used
        raise OlctcError(f"--C-grid is the grid --cv searches (and L1-LR's, which always picks C by CV); these "
                         f"models ({', '.join(model_names)}) use --fixed-C without --cv: give --cv K, or leave "
                         "out --C-grid")
    names = parse_datasets(datasets, exp.datasets)
    seed_list = parse_seeds(seeds, exp.seeds)
    if cv is not None:
        _check_folds(cv, names, seed_list, bool(authors_split))
    if min_leaf:
        _check_min_leaf(min_leaf, names, seed_list, cv, bool(authors_split))
    return BenchOptions(exp.name, names, seed_list,
                        model_names, solver, float(time_limit),
                        "cv" if cv is not None else fixed_C, None if cv is None else int(cv), grid, bool(authors_split),
                        int(threads), class_weight, bool(score_variables), int(min_leaf), bool(smooth_pure_nodes))


def _check_folds(cv: int, datasets: Sequence[str], seeds: Sequence[int], authors_split: bool) -> None:
    """OlctcError when the training part of a data set's split (by any of ``seeds``) holds fewer points of its
    smaller class than ``cv`` folds: every fold needs both classes, and --cv 1000000 ran the whole bench to
    record each run as scikit-learn's error. The bound is the training part's, as fit's and grid's: counted on
    the whole data set (haberman's 81 against 65 in training), it let through folds each run then failed on."""
    from olctc.bench.tasks import bench_split
    from olctc.datasets import load

    for name in datasets:
        ds = load(name)
        least = min(int(min((y > 0).sum(), (y < 0).sum()))
                    for y in (ds.y[bench_split(ds, seed, authors_split)[0]] for seed in seeds))
        if cv > least:
            raise param_error("cv", f"at most {least} folds for {name} (the points of the smaller class in its "
                                    "training part)", cv)


def _check_min_leaf(min_leaf: int, datasets: Sequence[str], seeds: Sequence[int], cv: int | None,
                    authors_split: bool) -> None:
    """OlctcError when some fit of the bench would train on fewer points than ``min_leaf``: its model has no
    tree at all (every last-layer node would have to be empty), and each of those runs failed alone. The
    fits' sizes are counted on the bench's own splits and folds: an estimate (n - ceil(0.2 n) - 1, less
    ceil(1/k) of it with --cv) refused heart's --min-leaf 237, which its 237 training points meet."""
    from olctc.bench.tasks import fit_sizes
    from olctc.datasets import load

    # each data set read once, whatever the number of seeds
    least, name = min((min(fit_sizes(ds, seed, authors_split, cv)), ds.name)
                      for ds in map(load, datasets) for seed in seeds)
    if min_leaf > least:
        what = f"{cv}-fold CV fits" if cv is not None else "training part"
        raise param_error("min_leaf", f"at most {least} (the fewest points a fit trains on: {name}'s {what})",
                          min_leaf, option="--min-leaf")


# ---- folder ----------------------------------------------------------------------------------------
