"""Tables (Markdown, CSV) and the paper's figures (PNG) from a bench folder's runs.jsonl.

Balanced accuracies are reported in percent, as the paper and the anchors. Standard deviations are
population ones (ddof = 0), as in the authors' logs.
"""
from __future__ import annotations

import csv
import io
import math
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import numpy as np

from olctc.bench.experiments import EXPERIMENTS, anchor_for, anchor_method, seed_anchors, uses_seed_anchors
from olctc.bench.metrics import gap_cdf, performance_profile
from olctc.bench.runner import REPORT_DIR, latest, read_bench_json, read_runs
from olctc.errors import OlctcError
from olctc.io import atomic_open, atomic_write_bytes, atomic_write_text

TIME_FLOOR = 0.01  # seconds: below this run times are noise, and a 0 would make every ratio infinite
SPARSITY_SHIFT = 1.0  # a tree with no nonzero weight has cost 0; ratios use (nnz + 1) / (best + 1)

SUMMARY_COLUMNS = ("dataset", "model", "runs", "errors", "test_bacc_mean", "test_bacc_std", "anchor_mean",
                   "anchor_std", "diff_vs_anchor", "train_bacc_mean", "time_solve_mean", "optimal",
                   "gap_mean", "nonzero_per_node_mean", "anchor_nonzero", "brier_mean", "ece_mean",
                   "exact_train_loss_mean")


@dataclass
class Report:
    """Files a report wrote, and the summary rows."""

    folder: Path
    files: list[Path]
    rows: list[dict[str, Any]]
    bad_lines: int


def _ok(r: dict[str, Any]) -> bool:
    return r.get("status") not in ("error", "skipped") and r.get("test_balanced_accuracy") is not None


def _mean(vals: list[float]) -> float | None:
    v = [x for x in vals if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return float(np.mean(v)) if v else None


def _std(vals: list[float]) -> float | None:
    v = [x for x in vals if x is not None and not (isinstance(x, float) and math.isnan(x))]
    return float(np.std(v)) if v else None


def summary_rows(experiment: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (data set, model): means, stds and the anchor values beside them."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault((r["dataset"], r["model"]), []).append(r)
    rows = []
    for (ds, model), rs in groups.items():
        good = [r for r in rs if _ok(r)]
        bacc = [100 * r["test_balanced_accuracy"] for r in good]
        seeds = [r["seed"] for r in good]
        anchors = [anchor_for(experiment, model, ds, s) for s in seeds]
        # Like for like: an anchor mean (and a diff) only when the authors have a value for every seed
        # whose mean we report; over a subset of those seeds it would compare two different means.
        a_vals = anchors if anchors and all(a is not None for a in anchors) else []
        method = anchor_method(experiment, model)
        a_nz = (seed_anchors().get((method, ds), {}).get("nonzero")
                if method and uses_seed_anchors(experiment) else None)
        row = {"dataset": ds, "model": model, "runs": len(rs), "errors": len(rs) - len(good),
               "test_bacc_mean": _mean(bacc), "test_bacc_std": _std(bacc),
               # The anchor over the same seeds we ran, so that a 2-seed run is compared like for like.
               "anchor_mean": _mean(a_vals), "anchor_std": _std(a_vals),
               "train_bacc_mean": _mean([100 * r["train_balanced_accuracy"] for r in good]),
               "time_solve_mean": _mean([r.get("time_solve") for r in good]),
               "optimal": sum(r.get("status") == "optimal" for r in good),
               "gap_mean": _mean([r.get("gap") for r in good]),
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


def instance_matrix(records: list[dict[str, Any]], models: list[str], field: str,
                    scale: float = 1.0) -> tuple[list[tuple[str, int]], np.ndarray]:
    """(instances, (n_instances, n_models) values of ``field``); NaN where a run failed or is missing."""
    inst = sorted({(r["dataset"], r["seed"]) for r in records})
    idx = {k: i for i, k in enumerate(inst)}
    col = {m: j for j, m in enumerate(models)}
    M = np.full((len(inst), len(models)), np.nan)
    for r in records:
        if r["model"] in col and _ok(r) and r.get(field) is not None:
            M[idx[(r["dataset"], r["seed"])], col[r["model"]]] = scale * float(r[field])
    return inst, M


def _fmt(v: Any, nd: int = 2) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:.{nd}f}" if isinstance(v, float) else str(v)


def markdown(experiment: str, rows: list[dict[str, Any]], models: list[str], meta: dict[str, Any]) -> str:
    """The summary as Markdown: a wide table (mean ± std, anchor in brackets) and a detail table."""
    o = meta.get("options", {})
    lines = [f"# olctc bench: {experiment}", "",
             f"{EXPERIMENTS[experiment].description}. Solver {o.get('solver')}, time limit "
             f"{o.get('time_limit')} s per fit, C: {o.get('fixed_C')}"
             + (f" ({o.get('cv')}-fold CV)" if o.get("cv") else "") + f", seeds {o.get('seeds')}, "
             + ("the authors' splits (their files without the first row; olctc's split where theirs is "
                "unknown)." if o.get("authors_split") else "olctc's splits (all rows)."),
             "Test balanced accuracy (%), mean ± std over seeds; [authors' value over the same seeds].", ""]
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
            c = f"{r['test_bacc_mean']:.2f} ± {r['test_bacc_std']:.2f}"
            if r["anchor_mean"] is not None:
                c += f" [{r['anchor_mean']:.2f}]"
            cells.append(c)
        lines.append(f"| {ds} | " + " | ".join(cells) + " |")
    lines += target_check(rows)
    lines += ["", "| data set | model | runs | test bAcc | anchor | diff | train bAcc | solve s | optimal | "
              "gap | nnz/node | anchor nnz | Brier | ECE | exact train loss |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['dataset']} | {r['model']} | {r['runs']}"
                     + (f" ({r['errors']} failed)" if r["errors"] else "")
                     + f" | {_fmt(r['test_bacc_mean'])} | {_fmt(r['anchor_mean'])} | {_fmt(r['diff_vs_anchor'])} "
                     f"| {_fmt(r['train_bacc_mean'])} | {_fmt(r['time_solve_mean'])} | {r['optimal']} "
                     f"| {_fmt(r['gap_mean'], 3)} | {_fmt(r['nonzero_per_node_mean'])} | "
                     f"{_fmt(r['anchor_nonzero'])} | {_fmt(r['brier_mean'], 3)} | {_fmt(r['ece_mean'], 3)} "
                     f"| {_fmt(r['exact_train_loss_mean'], 1)} |")
    return "\n".join(lines) + "\n"


def target_check(rows: list[dict[str, Any]], model: str = "OLCT", baseline: str = "CART",
                 tolerance: float = 1.0) -> list[str]:
    """The issue's target, measured: data sets where ``model`` is within ``tolerance`` points of the
    authors' mean (over the seeds run) and where it beats ``baseline`` of the same depth (our runs)."""
    by = {(r["dataset"], r["model"]): r for r in rows}
    sets = sorted({d for d, m in by if m == model and by[(d, m)]["test_bacc_mean"] is not None})
    if not sets:
        return []
    near = [d for d in sets if by[(d, model)]["diff_vs_anchor"] is not None
            and abs(by[(d, model)]["diff_vs_anchor"]) <= tolerance]
    with_anchor = [d for d in sets if by[(d, model)]["anchor_mean"] is not None]
    base = [d for d in sets if (d, baseline) in by and by[(d, baseline)]["test_bacc_mean"] is not None]
    above = [d for d in base if by[(d, model)]["test_bacc_mean"] > by[(d, baseline)]["test_bacc_mean"]]
    out = ["", f"Target check: {model} within {tolerance:g} point of the authors' mean on {len(near)} of "
               f"{len(with_anchor)} data set(s) with an anchor"
               + (f" ({', '.join(near)})" if near else "") + "; "
               f"above {baseline} on {len(above)} of {len(base)}" + (f" ({', '.join(above)})" if above else "")
               + "."]
    return out


def _plot(path: Path, x: np.ndarray, Y: np.ndarray, models: list[str], xlabel: str, ylabel: str,
          title: str, logx: bool = False) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4), dpi=100)
    for j, m in enumerate(models):
        ax.step(x, Y[j], where="post", label=m)
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


@_figure("bacc_gap_cdf.png")
def fig_bacc_gap(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    _, M = instance_matrix(recs, models, "test_balanced_accuracy", 100.0)
    if not np.isfinite(M).any():
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # instances where every model failed: all-NaN rows
        best = np.nanmax(M, axis=1)
    t = np.linspace(0, max(1.0, float(np.nanmax(best[:, None] - M, initial=0.0))), 300)
    _plot(path, t, gap_cdf(M, t), models, "gap t from the best test balanced accuracy (points)",
          "fraction of instances within t", "Test balanced accuracy: gap from the best")
    return path


@_figure("train_loss_gap_cdf.png")
def fig_loss_gap(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    # Only the logistic trees share one training objective; other presets' losses are not comparable.
    models = [m for m in models if any(r["model"] == m and r.get("exact_objective") is not None
                                       and r.get("preset") == "olct" for r in recs)]
    if not models:
        return None
    _, M = instance_matrix(recs, models, "exact_objective")
    if not np.isfinite(M).any():
        return None
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        gaps = M - np.nanmin(M, axis=1, keepdims=True)
    t = np.linspace(0, max(1.0, float(np.nanmax(gaps, initial=0.0))), 300)
    _plot(path, t, gap_cdf(M, t, higher_is_better=False), models,
          "gap t from the best exact training objective", "fraction of instances within t",
          "Exact (logistic) training objective: gap from the best")
    return path


@_figure("time_profile.png")
def fig_time(path: Path, recs: list[dict[str, Any]], models: list[str]) -> Path | None:
    _, M = instance_matrix(recs, models, "time_solve")
    if not np.isfinite(M).any():
        return None
    M = np.where(np.isnan(M), np.nan, np.maximum(M, TIME_FLOOR))
    taus = _ratio_axis(M, 0.0)
    _plot(path, taus, performance_profile(M, taus), models, "tau (ratio to the fastest)", "rho(tau)",
          "Performance profile: solve time", logx=True)
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


def write_report(folder: str | Path, echo: Callable[[str], None] = print) -> Report:
    """Write DIR/report/{summary.md, summary.csv, runs.csv, *.png}; returns what was written."""
    d = Path(folder)
    if d.exists() and not d.is_dir():
        raise OlctcError(f"bench folder {d} is a file, not a folder")
    if not d.is_dir():
        raise OlctcError(f"bench folder {d} does not exist")
    meta = read_bench_json(d)
    experiment = meta["experiment"]
    all_recs, bad = read_runs(d, experiment)
    if bad:
        echo(f"{d / 'runs.jsonl'}: ignored {bad} unreadable line(s) (a run killed while writing, or a line "
             "edited by hand)")
    recs = list(latest(all_recs).values())
    if not recs:
        raise OlctcError(f"{d} holds no finished runs yet: run `olctc bench {experiment}` into it first "
                         f"(with the options of its {d / 'bench.json'})")
    out = d / REPORT_DIR
    if out.exists() and not out.is_dir():
        raise OlctcError(f"{out} is a file, not the report folder: move it away and run the report again")
    out.mkdir(exist_ok=True)
    models = _model_order(experiment, recs)
    rows = summary_rows(experiment, recs)
    files = []
    p = out / "summary.csv"
    with atomic_open(p, "w") as f:
        w = csv.DictWriter(f, fieldnames=SUMMARY_COLUMNS, lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: ("" if r[k] is None else r[k]) for k in SUMMARY_COLUMNS})
    files.append(p)
    p = out / "runs.csv"
    cols = sorted({k for r in recs for k, v in r.items() if not isinstance(v, (dict, list)) or k in
                   ("C", "nonzero_weights_per_node")} - {"cv_grid", "options"})
    with atomic_open(p, "w") as f:
        w = csv.DictWriter(f, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in sorted(recs, key=lambda r: (r["dataset"], r["seed"], r["model"])):
            w.writerow({k: r.get(k, "") for k in cols})
    files.append(p)
    p = out / "summary.md"
    atomic_write_text(p, markdown(experiment, rows, models, meta))
    files.append(p)
    for name, fig in FIGURES.items():
        got = fig(out / name, recs, models)
        if got is not None:
            files.append(got)
        elif (out / name).is_file():
            # an earlier report's figure: beside this report's tables it would show runs they no longer do
            (out / name).unlink()
            echo(f"removed {out / name}: these runs do not give that figure")
    return Report(out, files, rows, bad)
