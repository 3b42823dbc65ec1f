"""Tables (Markdown, CSV), the paper's figures (PNG) and the runs' trees (JSON) from a bench folder's runs.jsonl.

Balanced accuracies are reported in percent, as the paper and the anchors. Standard deviations are
population ones (ddof = 0), as in the authors' logs.
"""
from __future__ import annotations

import contextlib
import csv
import io
import math
import os
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from olctc.bench.experiments import CART, EXPERIMENTS, anchor_for, anchor_method, seed_anchors, uses_seed_anchors
from olctc.bench.metrics import gap_cdf, performance_profile
from olctc.bench.folder import (BENCH_JSON, FAILED, OLDER_SETTINGS_WHY, REPORT_DIR, at_older_settings, latest,
                                older_olctc, os_errors, own_records, read_bench_json, read_runs, run_key)
from olctc.errors import OlctcError, is_integer, is_real
from olctc.io import (atomic_open, atomic_write_bytes, atomic_write_text, check_not_linked, folder_lock, in_use_while,
                      remove_tree, staged_errors, temporary_name, warn_leftovers)
from olctc.process_state import check_interrupt, interrupts_deferred

TIME_FLOOR = 0.01  # seconds: below this run times are noise, and a 0 would make every ratio infinite
SPARSITY_SHIFT = 1.0  # a tree with no nonzero weight has cost 0; ratios use (nnz + 1) / (best + 1)

#: Each run's olctc tree (the tree models' records hold it) as REPORT_DIR/TREES_DIR/DATASET_SEED_MODEL.json.
TREES_DIR = "trees"

SUMMARY_COLUMNS = ("dataset", "model", "runs", "errors", "test_bacc_mean", "test_bacc_std", "anchor_mean",
                   "anchor_std", "diff_vs_anchor", "train_bacc_mean", "time_solve_mean", "optimal",
                   "gap_mean", "nonzero_per_node_mean", "anchor_nonzero", "brier_mean", "ece_mean",
                   "exact_train_loss_mean", "seeds_used", "missing")


@dataclass
class Report:
    """Files a report wrote, and the summary rows."""

    folder: Path
    files: list[Path]
    rows: list[dict[str, Any]]
    bad_lines: int
    missing: tuple[tuple[str, int, str], ...] = ()  # (data set, seed, model) the bench has not run yet
    trees: int = 0  # tree files written into folder/TREES_DIR


def _ok(r: dict[str, Any]) -> bool:
    # FAILED: an edited "timeout" line with an accuracy was averaged in (QA 2026-12-05)
    return r.get("status") not in FAILED and r.get("test_balanced_accuracy") is not None


def _proven(r: dict[str, Any]) -> bool:
    """Whether a run proved its tree optimal. CART's records say "optimal" for a greedy tree, which proves nothing:
    the summary counted it, and the time profile drew CART as solving every instance first (QA 2026-12-05)."""
    return r.get("status") == "optimal" and r.get("model") != CART.name


def _mean(vals: list[float | None]) -> float | None:
    v = [x for x in vals if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return float(np.mean(v)) if v else None


def _std(vals: list[float | None]) -> float | None:
    v = [x for x in vals if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return float(np.std(v)) if v else None


def summary_rows(experiment: str, records: list[dict[str, Any]],
                 missing: Sequence[tuple[str, int, str]] = ()) -> list[dict[str, Any]]:
    """One row per (data set, model): means, stds and the anchor values beside them.

    ``missing``: the (data set, seed, model) runs the bench asks for and has no record of yet; each
    row counts its own. ``bacc_by_seed`` (not a CSV column) keeps the test balanced accuracy per seed,
    so that models can be compared on the seeds both finished.
    """
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["dataset"], r["model"]), []).append(r)
    # missing runs per (data set, model) cell, counted once: a scan of ``missing`` per cell took
    # cells x missing steps (9 s of an 11 s report on 40,000 runs)
    missing_by_cell: dict[tuple[str, str], int] = {}
    for m_ds, _, m_model in missing:
        missing_by_cell[(m_ds, m_model)] = missing_by_cell.get((m_ds, m_model), 0) + 1
    rows = []
    for (ds, model), rs in groups.items():
        good = [r for r in rs if _ok(r)]
        bacc = [100 * r["test_balanced_accuracy"] for r in good]
        seeds = [r["seed"] for r in good]
        # The authors' value for each seed this cell ran, failed runs included.
        anchor_by_seed = {r["seed"]: anchor_for(experiment, model, ds, r["seed"]) for r in rs}
        anchors = [anchor_by_seed[s] for s in seeds]
        gaps = [r.get("gap") for r in good]
        # Like for like: an anchor mean (and a diff) only when the authors have a value for every seed
        # whose mean we report; over a subset of those seeds it would compare two different means.
        a_vals = anchors if anchors and all(a is not None for a in anchors) else []
        method = anchor_method(experiment, model)
        a_nz = (seed_anchors().get((method, ds), {}).get("nonzero")
                if method and uses_seed_anchors(experiment) else None)
        row: dict[str, Any] = {"dataset": ds, "model": model, "runs": len(rs), "errors": len(rs) - len(good),
               "seeds_used": " ".join(str(s) for s in sorted(seeds)),
               "missing": missing_by_cell.get((ds, model), 0),
               "bacc_by_seed": dict(zip(seeds, bacc)),
               # a data set whose every run failed still has an anchor it missed (target_check counts it)
               "anchor_for_runs": all(a is not None for a in anchor_by_seed.values()),
               "test_bacc_mean": _mean(bacc), "test_bacc_std": _std(bacc),
               # The anchor over the same seeds we ran, so that a 2-seed run is compared like for like.
               "anchor_mean": _mean(a_vals), "anchor_std": _std(a_vals),
               "train_bacc_mean": _mean([None if r.get("train_balanced_accuracy") is None
                                         else 100 * r["train_balanced_accuracy"] for r in good]),
               "time_solve_mean": _mean([r.get("time_solve") for r in good]),
               "optimal": sum(1 for r in good if _proven(r)),
               # over every finished run or not at all: STreeD states a gap only when optimal (0), and a
               # mean over those read 0.000 for a cell with runs not proven optimal
               "gap_mean": _mean(gaps) if None not in gaps else None,
               "nonzero_per_node_mean": _mean([r.get("mean_nonzero_per_node") for r in good]),
               "anchor_nonzero": a_nz,
               "brier_mean": _mean([r.get("test_brier") for r in good]),
               "ece_mean": _mean([r.get("test_ece") for r in good]),
               "exact_train_loss_mean": _mean([r.get("exact_objective") for r in good
                                               if r.get("preset") == "olct"])}
        row["diff_vs_anchor"] = (row["test_bacc_mean"] - row["anchor_mean"]
                                 if row["test_bacc_mean"] is not None and row["anchor_mean"] is not None else None)
        rows.append(row)
    order = {m: i for i, m in enumerate(_model_order(experiment, records))}
    rows.sort(key=lambda r: (r["dataset"], order.get(r["model"], 99)))
    return rows


def _model_order(experiment: str, records: list[dict[str, Any]]) -> list[str]:
    names = [n for m in EXPERIMENTS[experiment].models for n in m.record_names]
    seen = {r["model"] for r in records}
    return [n for n in names if n in seen] + sorted(seen - set(names))


def comparable_instances(records: Sequence[dict[str, Any]], models: list[str]
                         ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    """(instances every model in ``models`` has a record for, the other instances): a run not made yet
    says nothing about a model, so an instance is compared only once all of them are recorded."""
    has = {(r["dataset"], r["seed"], r["model"]) for r in records}
    inst = sorted({(r["dataset"], r["seed"]) for r in records})
    kept = [i for i in inst if all((*i, m) in has for m in models)]
    return kept, [i for i in inst if not all((*i, m) in has for m in models)]


def instance_matrix(records: list[dict[str, Any]], models: list[str], field: str,
                    scale: float = 1.0) -> tuple[list[tuple[str, int]], np.ndarray]:
    """(instances, (n_instances, n_models) values of ``field``) over ``comparable_instances``; NaN where
    a recorded run failed (error, timeout, skipped) or lacks the field."""
    inst, _ = comparable_instances(records, models)
    idx = {k: i for i, k in enumerate(inst)}
    col = {m: j for j, m in enumerate(models)}
    M = np.full((len(inst), len(models)), np.nan)
    for r in records:
        i = idx.get((r["dataset"], r["seed"]))
        if i is not None and r["model"] in col and _ok(r) and r.get(field) is not None:
            M[i, col[r["model"]]] = scale * float(r[field])
    return inst, M


def expected_runs(meta: dict[str, Any]) -> dict[str, tuple[str, int, str]] | None:
    """{key: (data set, seed, model)} of every record the options in bench.json ask for; None when
    those options cannot say (a bench.json edited by hand), and then no run is called missing."""
    o, exp = meta.get("options", {}), EXPERIMENTS[meta["experiment"]]
    try:
        return {run_key(ds, seed, name): (ds, seed, name) for ds in o["datasets"] for seed in o["seeds"]
                for model in o["models"] for name in exp.model(model).record_names}
    except (KeyError, TypeError, OlctcError):
        return None


def missing_text(missing: list[tuple[str, int, str]], total: int, limit: int = 12) -> str:
    """'3 of 8 runs missing: heart OLCT (seed 42), ...', one entry per (data set, model) cell."""
    cells: dict[tuple[str, str], list[int]] = {}
    for ds, seed, model in missing:
        cells.setdefault((ds, model), []).append(seed)
    parts = [f"{ds} {m} (seed{'s' if len(v) > 1 else ''} {', '.join(map(str, sorted(v)))})"
             for (ds, m), v in sorted(cells.items())]
    more = f", and {len(parts) - limit} more cell(s)" if len(parts) > limit else ""
    return f"{len(missing)} of {total} run(s) missing: " + "; ".join(parts[:limit]) + more


def _fmt(v: Any, nd: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    # z formats a value that rounds to zero as 0.00, not -0.00 (a difference of -0.001 is no deficit)
    return f"{v:z.{nd}f}" if isinstance(v, float) else str(v)


def markdown(experiment: str, rows: list[dict[str, Any]], models: list[str], meta: dict[str, Any],
             records: Sequence[dict[str, Any]] = (), missing: Sequence[tuple[str, int, str]] = (),
             expected: int | None = None) -> str:
    """The summary as Markdown: a wide table (mean ± std, anchor in brackets) and a detail table.

    ``missing`` of ``expected`` runs: said at the top, so that a partial bench never reads as a whole one.
    """
    o = meta.get("options", {})
    bench_seeds = o.get("seeds") if isinstance(o.get("seeds"), list) else None
    # --authors-split: the data sets whose runs used olctc's split (the authors' is unknown there), named where
    # their row sits beside the authors' values of another split (climate's was unmarked; QA 2026-12-05)
    own_split = sorted({r["dataset"] for r in records if r.get("split") == "olctc"}) if o.get("authors_split") else []
    lines = [f"# olctc bench: {experiment}", "",
             f"{EXPERIMENTS[experiment].description}. Solver {o.get('solver')}, time limit "
             f"{o.get('time_limit')} s per fit, C: {o.get('fixed_C')}"
             + (f" ({o.get('cv')}-fold CV)" if o.get("cv") else "") + f", seeds {o.get('seeds')}, "
             + ("the authors' splits (their files without the first row; olctc's split where theirs is "
                f"unknown{': ' + ', '.join(own_split) if own_split else ''})." if o.get("authors_split")
                else "olctc's splits (all rows).")
             + (" Class weights balanced (every model's loss but STreeD's; the authors' figures are "
                "unweighted)." if o.get("class_weight") == "balanced" else "")
             + (" Tree models compiled with score variables (--score-variables; the authors' used the "
                "paper's form)." if o.get("score_variables") else "")
             + (f" Every last-layer node of the tree models holds none or at least {o['min_leaf']} training "
                f"points, CART's and STreeD's leaves at least {o['min_leaf']} (--min-leaf; the authors' trees "
                "had no minimum)." if o.get("min_leaf") else "")
             + (" The tree models' one-class last-layer nodes predict their points' smoothed log-odds "
                "(--smooth-pure-nodes; the authors kept the solver's)." if o.get("smooth_pure_nodes") else ""),
             "Test balanced accuracy (%), mean ± std over seeds; [authors' value over the same seeds]; "
             "(seeds: ...) when a cell's mean covers fewer seeds than the bench's (runs failed or not run yet).",
             ""]
    if missing:
        lines[2:2] = [f"**Incomplete bench**: {missing_text(list(missing), expected or len(missing))}. Each "
                      "cell's mean is over its own finished seeds; comparisons between models (target check, "
                      "figures) use only the seeds / instances both have.", ""]
    scaled = at_older_settings(meta, experiment, models)
    if scaled:  # resuming such a folder is refused; its report compared them silently (QA)
        lines[2:2] = [f"**Older model settings**: this folder was started by {older_olctc(meta)}, which ran "
                      f"{', '.join(scaled)} at the authors' C and alpha taken as olctc's ({OLDER_SETTINGS_WHY}): "
                      "their cells are not the authors' models, and their differences from the authors' values "
                      "compare two models. A new folder runs them at the authors' settings.", ""]
    by = {(r["dataset"], r["model"]): r for r in rows}
    datasets = sorted({r["dataset"] for r in rows})
    lines.append("| data set | " + " | ".join(models) + " |")
    lines.append("|---|" + "---|" * len(models))
    for ds in datasets:
        cells = []
        for m in models:
            r = by.get((ds, m))
            if r is None or r["test_bacc_mean"] is None:
                cells.append("-")
                continue
            c = f"{r['test_bacc_mean']:.2f}"
            if len(r.get("bacc_by_seed") or ()) != 1:  # one seed: a spread of 0 would read as a measured one
                c += f" ± {r['test_bacc_std']:.2f}"
            if r["anchor_mean"] is not None:
                c += f" [{r['anchor_mean']:.2f}]"
            if bench_seeds is not None and sorted(r.get("bacc_by_seed", {})) != sorted(bench_seeds):
                c += f" (seeds: {', '.join(map(str, sorted(r['bacc_by_seed'])))})"
            cells.append(c)
        lines.append(f"| {ds}{' (olctc split)' if ds in own_split else ''} | " + " | ".join(cells) + " |")
    lines += target_check(rows)
    lines += overrun_note(records, o.get("time_limit"))
    lines += jobs_note(records)
    lines += ["", "| data set | model | runs | test bAcc | anchor | diff | train bAcc | solve s | optimal | "
              "gap | nnz/node | anchor nnz | Brier | ECE | exact train loss |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['model']} | {r['runs']}"
                     + (f" ({r['errors']} failed)" if r["errors"] else "")
                     + (f" ({r['missing']} not run yet)" if r.get("missing") else "")
                     + f" | {_fmt(r['test_bacc_mean'])} | {_fmt(r['anchor_mean'])} | {_fmt(r['diff_vs_anchor'])} "
                     f"| {_fmt(r['train_bacc_mean'])} | {_fmt(r['time_solve_mean'])} | {r['optimal']} "
                     f"| {_fmt(r['gap_mean'], 3)} | {_fmt(r['nonzero_per_node_mean'])} | "
                     f"{_fmt(r['anchor_nonzero'])} | {_fmt(r['brier_mean'], 3)} | {_fmt(r['ece_mean'], 3)} "
                     f"| {_fmt(r['exact_train_loss_mean'], 1)} |")
    lines += ["", *COLUMN_NOTES, "", *TIME_NOTES, "", *figure_notes(records, models)]
    return "\n".join(lines) + "\n"


#: A solve past this multiple of the time limit (plus OVERRUN_SLACK s) is named in the report: the limit is the
#: solver's to keep, and HiGHS, CBC and SCIP overrun it by seconds at most on an idle machine (a CBC or SCIP
#: time_solve includes the model file's writing and reading).
OVERRUN_FACTOR = 1.5
OVERRUN_SLACK = 5.0


def overrun_note(records: Sequence[dict[str, Any]], time_limit: Any) -> list[str]:
    """A line naming the olctc solves whose recorded time_solve went well past the bench's time limit (a machine
    loaded beyond its cores by --jobs, a solver checking its clock late): their cells had more solve time than
    the header says (QA: 13.6 s at --time-limit 5 under --jobs 2 at a load of 3.5 read as an honest 5 s run)."""
    if not is_real(time_limit) or time_limit <= 0:
        return []
    cap = OVERRUN_FACTOR * float(time_limit) + OVERRUN_SLACK
    # the records of olctc MILP solves (they alone state objective_milp): L1-LR's time is its whole C search,
    # CART's and STreeD's no solve the limit bounds
    olctc_runs = [r for r in records if "objective_milp" in r and is_real(r.get("time_solve"))]
    over = sorted((r for r in olctc_runs if r["time_solve"] > cap), key=lambda r: -r["time_solve"])
    if not over:
        return []
    named = ", ".join(f"{r['dataset']} seed {r['seed']} {r['model']} ({r['time_solve']:.1f} s)" for r in over[:5])
    return ["", f"**Solves past the time limit**: {len(over)} of {len(olctc_runs)} olctc solve(s) took over "
                f"{OVERRUN_FACTOR:g} x {float(time_limit):g} + {OVERRUN_SLACK:g} s: {named}"
                f"{', ...' if len(over) > 5 else ''}. A machine loaded beyond its cores (--jobs) or a solver that "
                "checks its clock late gives such runs more solve time than the limit; their cells are not runs "
                "at the limit."]


def jobs_note(records: Sequence[dict[str, Any]]) -> list[str]:
    """A line naming the --jobs values the runs were timed under and how many runs each, when more than one (a
    bench resumed with another --jobs). Records that state none (an older olctc's) are not counted."""
    counts = Counter(r["jobs"] for r in records if is_integer(r.get("jobs")))
    if len(counts) < 2:
        return []
    parts = [f"--jobs {j} ({n} run{'' if n == 1 else 's'})" for j, n in sorted(counts.items())]
    return ["", f"**Runs timed under different loads**: runs were timed under {', '.join(parts[:-1])} and "
                f"{parts[-1]}: their solve times are not comparable one to one."]


#: What the columns other than the times hold (a reader recomputing them needs the conventions).
COLUMN_NOTES = (
    "Columns: \"±\" and `*_std` are the population standard deviation over seeds (as the authors' `std_test_bacc`; "
    "no \"±\" for a single seed). "
    "nnz/node: weights with |w| > 1e-6 (standardised; runs recorded before 2026-12-05: 1e-9) per branch node of "
    "the full tree, a node not grown "
    "counting 0; L1-LR's is its number of nonzero coefficients (one node); the anchor's is the authors' count "
    "before refinement. ECE: of the positive class's probability, 10 equal-width bins, each bin's |mean "
    "probability - share of positives| weighted by its points.",
)


#: What "solve s" (time_solve) covers per kind of model; runs.csv keeps every time field as recorded.
TIME_NOTES = (
    "Times: \"solve s\" is the recorded `time_solve`, which is not the same work for every model. olctc "
    "trees: the final fit's solve only (for CBC and SCIP with writing and reading the model file; model "
    "building, warm start and refinement are `time_build`, `time_warm_start`, `time_total` in runs.csv; "
    "with `--cv` the CV fits are in `time_cv`, "
    "not here); OLCT-W: 0 (no solver). L1-LR: its whole C search (K-fold grid search, K = `--cv` or 4, "
    "and the refit). CART and STreeD: the whole fit. The time profile compares these same values.",
)


def figure_notes(records: Sequence[dict[str, Any]], models: list[str]) -> list[str]:
    """How the figures compare models: which instances, and what a failed run counts as."""
    kept, dropped = comparable_instances(records, models)
    text = ("Figures: each compares its models per instance (data set, seed) over the instances all of "
            "them have a record for")
    if dropped:
        text += (f" ({len(kept)} of {len(kept) + len(dropped)} instances for all models here; a run not "
                 "made yet is left out, not counted as a failure)")
    return [text + ". A run recorded as failed (error, timeout, or skipped) counts as never within any "
            "gap and worst in every profile, as in the paper."]


def target_check(rows: list[dict[str, Any]], model: str = "OLCT", baseline: str = "CART",
                 tolerance: float = 1.0) -> list[str]:
    """The issue's target, measured: data sets where ``model`` is within ``tolerance`` points of the
    authors' mean (over the seeds run) and where it beats ``baseline`` of the same depth (our runs)."""
    by = {(r["dataset"], r["model"]): r for r in rows}
    sets = sorted({d for d, m in by if m == model and by[(d, m)]["test_bacc_mean"] is not None})
    # Data sets where every recorded run of ``model`` failed (a run not made yet has no record, hence no
    # row): they fail the target, as a failed run is never within any gap. Left out, "1 of 1" read as a
    # success on a bench whose model failed on the other data set.
    failed = sorted({d for d, m in by if m == model and by[(d, m)]["test_bacc_mean"] is None})
    if not sets and not failed:
        return []
    near = [d for d in sets if by[(d, model)]["diff_vs_anchor"] is not None
            and abs(by[(d, model)]["diff_vs_anchor"]) <= tolerance]
    with_anchor = [d for d in sets if by[(d, model)]["anchor_mean"] is not None] + [
        d for d in failed if by[(d, model)].get("anchor_for_runs")]
    # Like for like: each data set compares the two means over the seeds both models finished; over
    # different seed sets a missing or failed run would decide the comparison instead of the models.
    common = {d: sorted(set(by[(d, model)].get("bacc_by_seed", {})) & set(by[(d, baseline)].get("bacc_by_seed", {})))
              for d in sets if (d, baseline) in by}
    base = [d for d, seeds in common.items() if seeds]
    lost = [d for d in failed if (d, baseline) in by and by[(d, baseline)]["test_bacc_mean"] is not None]

    def mean_on(d: str, m: str) -> float:
        return float(np.mean([by[(d, m)]["bacc_by_seed"][s] for s in common[d]]))

    above = [d for d in base if mean_on(d, model) > mean_on(d, baseline)]
    # named, not left out in silence: both models have runs there, none on a seed both finished (QA 2026-12-05)
    uncompared = [d for d, seeds in common.items() if not seeds]
    # a mean within the tolerance over some of the runs only (the others failed) read as a full success (QA)
    thin = [f"{d}: {len(by[(d, model)]['bacc_by_seed'])} of {by[(d, model)]['runs']} runs" for d in near
            if by[(d, model)]["errors"]]
    partial = [f"{d}: seed{'s' if len(common[d]) > 1 else ''} {', '.join(map(str, common[d]))}" for d in base
               if set(common[d]) != set(by[(d, model)]["bacc_by_seed"]) | set(by[(d, baseline)]["bacc_by_seed"])]
    out = ["", f"Target check: {model} within {tolerance:g} point of the authors' mean on {len(near)} of "
               f"{len(with_anchor)} data set(s) with an anchor"
               + (f" ({', '.join(near)})" if near else "")
               + (f" (over the runs that finished: {'; '.join(thin)})" if thin else "") + "; "
               f"above {baseline} on {len(above)} of {len(base) + len(lost)}"
               + (f" ({', '.join(above)})" if above else "")
               + ", each data set's means over the seeds both finished"
               + (f" (only {'; '.join(partial)})" if partial else "")
               + (f"; not compared on {', '.join(uncompared)} (no seed both finished)" if uncompared else "")
               + (f"; every {model} run failed on {', '.join(failed)}: counted as missing the target" if failed else "")
               + "."]
    return out


def _plot(path: Path, x: np.ndarray, Y: np.ndarray, models: list[str], xlabel: str, ylabel: str,
          title: str, logx: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    styles = ("-", "--", ":", "-.")  # identical curves (two models failing alike) hid one another (QA)
    for j, m in enumerate(models):
        ax.step(x, Y[j], where="post", label=m, linestyle=styles[j % len(styles)])
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    plt.close(fig)
    atomic_write_bytes(path, buf.getvalue())


def _ratio_axis(costs: np.ndarray, shift: float) -> np.ndarray:
    from olctc.bench.metrics import performance_ratios

    r = performance_ratios(costs, shift)
    top = float(np.max(r[np.isfinite(r)])) if np.isfinite(r).any() else 2.0
    return np.geomspace(1.0, max(2.0, 1.1 * top), 200)


FIGURES: dict[str, Callable[[Path, list[dict[str, Any]], list[str]], Path | None]] = {}


def _figure(name: str):
    def deco(f):
        FIGURES[name] = f
        return f
    return deco


def _largest_gap(M: np.ndarray) -> float:
    """The largest gap of a finite score from its instance's best (higher is better); 0 if none.
    Written out rather than with nanmax: an instance every model failed is an all-NaN row, and numpy
    warns about those."""
    ok = np.isfinite(M)
    best = np.where(ok, M, -np.inf).max(axis=1, keepdims=True)
    with np.errstate(invalid="ignore"):
        gaps = (best - M)[ok]
    return float(gaps.max()) if gaps.size else 0.0


@_figure("bacc_gap_cdf.png")
def fig_bacc_gap(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    _, M = instance_matrix(recs, models, "test_balanced_accuracy", 100.0)
    if not np.isfinite(M).any():
        return None
    t = np.linspace(0, max(1.0, _largest_gap(M)), 300)
    _plot(path, t, gap_cdf(M, t), models, "gap t from the best test balanced accuracy (points)",
          "fraction of instances within t", "Test balanced accuracy: gap from the best")
    return path


@_figure("train_loss_gap_cdf.png")
def fig_loss_gap(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    # Only the logistic trees share one training objective; other presets' losses are not comparable.
    models = [m for m in models if any(r["model"] == m and r.get("exact_objective") is not None
                                       and r.get("preset") == "olct" for r in recs)]
    if len(models) < 2:  # one model is its own best everywhere: a flat line at 1 (`models`' OLCT alone; QA)
        return None
    _, M = instance_matrix(recs, models, "exact_objective")
    if not np.isfinite(M).any():
        return None
    t = np.linspace(0, max(1.0, _largest_gap(-M)), 300)
    _plot(path, t, gap_cdf(M, t, higher_is_better=False), models,
          "gap t from the best exact training objective", "fraction of instances within t",
          "Exact (logistic) training objective: gap from the best")
    return path


@_figure("time_profile.png")
def fig_time(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    # The cost is the time to solve: a run not proven optimal (stopped by its time limit) did not solve its
    # instance, and counts as failed, as in the paper ("no model was able to close the optimality gap in
    # more than 70% of the instances"); it read as solved in its time limit, every curve reaching 1.
    if not np.isfinite(instance_matrix(recs, models, "time_solve")[1]).any():
        return None  # no run finished: no figure
    solved = [r if _proven(r) else {**r, "time_solve": None} for r in recs]
    _, M = instance_matrix(solved, models, "time_solve")
    M = np.where(np.isnan(M), np.nan, np.maximum(M, TIME_FLOOR))
    taus = _ratio_axis(M, 0.0)
    none = "" if np.isfinite(M).any() else " (no run proven optimal)"
    _plot(path, taus, performance_profile(M, taus), models, "tau (ratio to the fastest)", "rho(tau)",
          f"Performance profile: time to proven optimality{none}", logx=True)
    return path


@_figure("sparsity_profile.png")
def fig_sparsity(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    _, M = instance_matrix(recs, models, "mean_nonzero_per_node")
    if not np.isfinite(M).any():
        return None
    taus = _ratio_axis(M, SPARSITY_SHIFT)
    _plot(path, taus, performance_profile(M, taus, SPARSITY_SHIFT), models,
          "tau (ratio to the sparsest, (nnz + 1) / (best + 1))", "rho(tau)",
          "Performance profile: nonzero weights per branch node", logx=True)
    return path


def _write_files(out: Path, experiment: str, rows: list[dict[str, Any]], models: list[str], meta: dict[str, Any],
                 recs: list[dict[str, Any]], missing: list[tuple[str, int, str]],
                 expected: dict[str, Any] | None) -> list[str]:
    """Write the report's tables and figures into ``out``; the names of the files written."""
    names = ["summary.csv", "runs.csv", "summary.md"]
    with atomic_open(out / "summary.csv", "w") as f:
        w = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in SUMMARY_COLUMNS})
    cols = sorted({k for r in recs for k, v in r.items() if not isinstance(v, (dict, list)) or k in
                   ("C", "nonzero_weights_per_node")} - {"cv_grid", "options"})
    with atomic_open(out / "runs.csv", "w") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in sorted(recs, key=lambda r: (r["dataset"], r["seed"], r["model"])):
            w.writerow({k: r.get(k, "") for k in cols})
    atomic_write_text(out / "summary.md",
                      markdown(experiment, rows, models, meta, recs, missing, len(expected or {})))
    for name, fig in FIGURES.items():
        if fig(out / name, recs, models) is not None:
            names.append(name)
    return names


def tree_file_name(rec: dict[str, Any]) -> str:
    """The file a record's tree is written to under REPORT_DIR/TREES_DIR: ``DATASET_SEED_MODEL.json``, every
    character but letters, digits, '.', '-' and '_' written as '_' (a name is never a path)."""
    name = re.sub(r"[^A-Za-z0-9._-]", "_", f"{rec['dataset']}_{rec['seed']}_{rec['model']}")
    return name.lstrip(".") + ".json"


def _write_trees(out: Path, recs: list[dict[str, Any]], echo: Callable[[str], None]) -> int:
    """Write each record's tree (checked as any tree file is) into the folder ``out``; how many were written.

    Records of models with no olctc tree (CART, L1-LR, STreeD) and of benches before trees were recorded have
    none; a record whose tree is no valid tree (an edited line) is named and skipped."""
    from olctc.export.json import save
    from olctc.tree import Tree

    used: set[str] = set()
    for r in sorted(recs, key=lambda r: r["key"]):
        if r.get("tree") is None:
            continue
        try:
            tree = Tree.from_dict(r["tree"], f"the tree of run {r['key']}")
        except OlctcError as exc:
            echo(f"runs.jsonl: {exc}; its tree file is not written")
            continue
        name = stem = tree_file_name(r)
        k = len(used)
        while name in used:  # names that differ only in characters written as '_' (a hand-edited bench.json)
            name, k = f"{stem[:-len('.json')]}_{k}.json", k + 1  # the number may be another record's own name
        if not used:
            out.mkdir()
        save(tree, out / name)
        used.add(name)
    return len(used)


def write_report(folder: str | Path, echo: Callable[[str], None] = print) -> Report:
    """Write DIR/report/{summary.md, summary.csv, runs.csv, *.png}; returns what was written."""
    d = Path(folder)
    # One report at a time in a folder, reading the runs to the end of moving its files into place: two at once
    # while the bench ran left report/ mixed (one's tables beside the other's summary.md and trees, the newer
    # report's trees removed as an earlier one's; QA 2026-12-05). The second waits and reads the runs anew.
    with os_errors(d), folder_lock(d, lambda: echo(f"another olctc process is writing into {d} (a bench report?): "
                                                   "waiting for it to finish")):
        return _write_report(d, echo)


def _write_report(d: Path, echo: Callable[[str], None]) -> Report:
    if d.exists() and not d.is_dir():
        raise OlctcError(f"bench folder {d} is a file, not a folder")
    if not d.is_dir():
        raise OlctcError(f"bench folder {d} does not exist")
    meta = read_bench_json(d)
    experiment = meta["experiment"]
    all_recs, bad = read_runs(d, experiment)
    if bad:
        echo(f"{d / 'runs.jsonl'}: ignored {bad} unreadable line(s) (a run killed while writing, a line "
             "edited by hand, or a record of another experiment)")
    expected = expected_runs(meta)
    options = meta.get("options")
    all_recs, other = own_records(all_recs, options if isinstance(options, dict) else {},
                                  None if expected is None else set(expected))
    if other:
        echo(f"{d / 'runs.jsonl'}: ignored {other} record(s) of runs this bench does not have (a data set, seed, "
             f"model or option other than its {BENCH_JSON}'s: copied or edited in)")
    recs = list(latest(all_recs).values())
    if not recs:
        raise OlctcError(f"{d} holds no finished runs yet: run `olctc bench {experiment}` into it first "
                         f"(with the options of its {d / 'bench.json'})")
    out = d / REPORT_DIR
    trees_dir = out / TREES_DIR
    for link in (out, trees_dir):  # the report replaces and removes files there: never outside the folder
        check_not_linked(link, "the report writes and removes its files there, so it must be a folder of the "
                         "bench's own", "run the report again")
    if out.exists() and not out.is_dir():
        raise OlctcError(f"{out} is a file, not the report folder: move it away and run the report again")
    if (trees_dir.exists() or trees_dir.is_symlink()) and not trees_dir.is_dir():
        raise OlctcError(f"{trees_dir} is not a folder (a file, or a link to none): the report writes the runs' "
                         "trees there; move it away and run the report again")
    models = _model_order(experiment, recs)
    have = {r["key"] for r in recs}
    missing = sorted(v for k, v in (expected or {}).items() if k not in have)
    if missing and expected is not None:  # runs are missing only from a bench that expects some
        echo(f"{d}: the bench is incomplete, {missing_text(missing, len(expected))}; the report says so, "
             "and compares models only on the runs both have")
    rows = summary_rows(experiment, recs, missing)
    # Every file is written in a temporary folder first and moved into DIR/report only once all are whole:
    # a full disk halfway left a new summary.csv beside an earlier summary.md and earlier figures (or a
    # report folder with some of the files). The bench folder ignores the temporary name (is_temporary_name).
    warn_leftovers(out, True, "a bench report")
    stage = d / temporary_name(REPORT_DIR)
    try:
        stage.mkdir()
    except OSError as exc:
        raise OlctcError(f"cannot write {out}: {exc.strerror or exc}") from None
    try:
        # marked as this report's while it runs: another report's leftover check passes over it
        with in_use_while(stage), staged_errors(out, stage):
            names = _write_files(stage, experiment, rows, models, meta, recs, missing, expected)
            trees = _write_trees(stage / TREES_DIR, recs, echo)
            check_interrupt()
            out.mkdir(exist_ok=True)
            with interrupts_deferred():  # cut halfway, the report folder held a mix of two reports
                for name in names:
                    os.replace(stage / name, out / name)
                _replace_trees(stage / TREES_DIR if trees else None, trees_dir, echo)
                _remove_stale_figures(out, names, echo)
    finally:
        remove_tree(stage)
    files = [out / name for name in names]
    return Report(out, files, rows, bad, tuple(missing), trees)


def _remove_stale_figures(out: Path, names: list[str], echo: Callable[[str], None]) -> None:
    """Remove an earlier report's figures that this one does not draw: beside this report's tables they would
    show runs the tables no longer hold."""
    for name in FIGURES:
        if name not in names and (out / name).is_file():
            (out / name).unlink()
            echo(f"removed {out / name}: these runs do not give that figure")


def _replace_trees(new: Path | None, old: Path, echo: Callable[[str], None]) -> None:
    """Move the tree files of ``new`` (None: this report has none) into the folder ``old``, and remove the tree files
    of an earlier report there that this one does not write: beside this report's tables they would show runs
    that were redone or are no longer this bench's. Other files in ``old`` stay."""
    written = set()
    if new is not None:
        old.mkdir(exist_ok=True)
        for f in sorted(new.iterdir()):
            os.replace(f, old / f.name)
            written.add(f.name)
    if not old.is_dir():
        return
    stale = [f for f in old.iterdir() if f.suffix == ".json" and f.name not in written and f.is_file()
             and not f.is_symlink()]
    for f in stale:
        f.unlink()
    if stale:
        echo(f"removed {len(stale)} tree file(s) of an earlier report from {old}: these runs do not have them")
    if not written:
        with contextlib.suppress(OSError):  # a folder that holds other files stays
            old.rmdir()
