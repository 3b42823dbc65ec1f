"""`olctc bench EXPERIMENT ... -o DIR` and `olctc bench report DIR`: the paper's experiments (Sec. 5)."""
from __future__ import annotations

import sys
from typing import Any

import click

from olctc.bench.experiments import EXPERIMENTS, THREADS
from olctc.cli import InputPath
from olctc.errors import OlctcError


class BenchGroup(click.Group):
    """A group whose unknown subcommand is an OlctcError (one line, exit 2), naming the experiments."""

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            raise OlctcError(f"unknown experiment {name!r}; known: {', '.join(EXPERIMENTS)} "
                             "(or `report DIR`)")
        return super().resolve_command(ctx, args)


@click.group("bench", cls=BenchGroup, short_help="Run the paper's experiments into a resumable folder.",
             context_settings={"help_option_names": ["-h", "--help"]})
def bench() -> None:
    """Run the paper's experiments into a resumable folder (runs.jsonl), then `bench report DIR`."""


def _experiment_command(name: str) -> click.Command:
    exp = EXPERIMENTS[name]

    section, _, what = exp.description.partition(": ")
    # click cuts the short help at the first period, which "Sec. 5.1" would hit at once.
    @click.command(name, short_help=f"{what} ({section})", help=f"{exp.description}. Default data sets: {', '.join(exp.datasets)}; models: "
                              f"{', '.join(exp.defaults)}.")
    @click.option("--datasets", default=None, help="Comma-separated data sets (default: the paper's).")
    @click.option("--seeds", default=None,
                  help=f"Comma-separated split seeds (default {','.join(map(str, exp.seeds))}).")
    @click.option("--models", default=None,
                  help=f"Comma-separated models among {', '.join(m.name for m in exp.models)}.")
    @click.option("--solver", default="highs", show_default=True,
                  help="highs, cbc or scip, or gurobi, cplex, copt, xpress where installed (the paper's solver "
                       "is Gurobi); the MIQP models (MARGOT ...) use scip unless a commercial solver is given.")
    @click.option("--time-limit", type=float, default=300.0, show_default=True,
                  help="Seconds per fit (the paper: "
                       f"{'3600, on 40 threads' if name in ('large', 'depth3') else '300, on 14 threads'}).")
    @click.option("--cv", type=int, default=None,
                  help="K-fold CV over the C grid per layer (expensive: K fits per grid point, each with the "
                       "time limit).")
    @click.option("--fixed-C", "fixed_C", default=None,
                  help="'anchors' (the authors' C table, olctc/bench/fixed_C.csv; C = 1 for data sets not in it and "
                       "for OCT-H; default without --cv) or C values ('1' or '1,10'). In the authors' terms: "
                       "MARGOT models run at olctc's C/2, OCT-H at C / (baseline error).")
    @click.option("--C-grid", "--C-values", "C_grid", default=None,
                  help="Per-layer C grid for --cv (default the paper's 0.01,0.1,1,10,100); the L1-LR baseline "
                       "always picks its C from it by CV. Refused where no model would use it. --C-values: the "
                       "same, as olctc fit and grid name it.")
    @click.option("--authors-split", is_flag=True,
                  help="The authors' own train/test split per seed (their files lacked the first row; "
                       "verified for the 10 UCI sets but climate). Other data sets keep olctc's split.")
    @click.option("--jobs", type=int, default=1, show_default=True, help="Runs in parallel (processes).")
    @click.option("--threads", type=int, default=THREADS, show_default=True,
                  help="Solver threads per fit (60 s per fit on 2 cores: --time-limit 60 --threads 2 --jobs 1, "
                       "or --threads 1 --jobs 2).")
    @click.option("--retry-errors", is_flag=True,
                  help="Run again the runs whose last record is an error, a timeout or skipped (a peer's package "
                       "was missing); their new record is appended.")
    @click.option("--run-timeout", type=float, default=None,
                  help="Hard wall-clock seconds per run: past it the run's process is killed and recorded "
                       "with status 'timeout' [default: 1.5 x the time limit of every fit it makes + 120].")
    @click.option("--class-weight", "class_weight", default=None, type=click.Choice(["balanced"], case_sensitive=False),
                  help="'balanced': weigh each point's loss by n / (2 n_class) in every tree model, and CART's "
                       "and L1-LR's likewise (STreeD runs unweighted). Default: unweighted, the paper's.")
    @click.option("--score-variables/--paper-form", "score_variables", default=False,
                  help="Compile every tree model with a column per split score (same optimum, fewer "
                       "nonzeros; see olctc compile --help), or in the paper's form. Default: --paper-form.")
    @click.option("--min-leaf", "min_leaf", type=int, default=0, show_default=True,
                  help="Training points each last-layer node of every tree model holds: none or at least this "
                       "many (as olctc fit --min-leaf); CART's and STreeD's leaves at least this many. 0: no "
                       "minimum, the paper's.")
    @click.option("--smooth-pure-nodes", "smooth_pure_nodes", is_flag=True,
                  help="Give the one-class last-layer nodes of every tree model their points' smoothed log-odds "
                       "(as olctc fit --smooth-pure-nodes: it changes predict_proba, Brier and ECE, and the label "
                       "of a node the solver left predicting the other class). Default: the solver's (w, b), the "
                       "paper's.")
    @click.option("-o", "--output", "output", required=True, metavar="DIRECTORY",
                  help="Bench folder (created; resumed if it holds this bench).")
    def cmd(datasets, seeds, models, solver, time_limit, cv, fixed_C, C_grid, authors_split, jobs, threads,
            retry_errors, run_timeout, class_weight, score_variables, min_leaf, smooth_pure_nodes, output) -> None:
        from olctc.bench.folder import RUNS
        from olctc.bench.options import make_options
        from olctc.bench.runner import run_bench
        from olctc.io import check_not_stdout

        check_not_stdout(output, "which cannot hold bench's folder of runs", "a folder name such as -o bench-runs")
        if cv is not None and fixed_C is not None:
            raise OlctcError("give either --cv K or --fixed-C, not both")
        opts = make_options(name, datasets=datasets, seeds=seeds, models=models, solver=solver,
                            time_limit=time_limit,
                            fixed_C="anchors" if fixed_C is None else fixed_C, cv=cv, C_grid=C_grid,
                            authors_split=authors_split, threads=threads, class_weight=class_weight,
                            score_variables=score_variables, min_leaf=min_leaf,
                            smooth_pure_nodes=smooth_pure_nodes)
        s = run_bench(opts, output, jobs=jobs, echo=lambda m: click.echo(m, err=True), retry_errors=retry_errors,
                      run_timeout=run_timeout)
        recorded = (f"; {s.skipped_failed} of them recorded as failed (error, timeout or skipped): "
                    "--retry-errors runs them again" if s.skipped_failed else "")
        click.echo(f"bench {name}: {s.ran} run(s) done now, {s.skipped} skipped (already done{recorded}), "
                   f"{s.errors} failed; results in {s.folder / RUNS}")
        if s.errors:
            # exit 1, as a grid's failed task: a batch script sees it (exit 0 hid a bench whose every OLCT run
            # failed, QA); the failures are recorded, so the report counts them and a rerun goes on
            click.echo(f"error: {s.errors} run(s) of this call failed (error or timeout; each record says why): "
                       "`olctc bench report` counts them as failed, --retry-errors runs them again", err=True)
            sys.exit(1)

    return cmd


for _name in EXPERIMENTS:
    bench.add_command(_experiment_command(_name))


@bench.command("report", short_help="Tables, figures and trees of a bench folder.")
@click.argument("folder", type=InputPath())  # '' was read as the current folder
def report_cmd(folder: Any) -> None:
    """Markdown and CSV tables (with the authors' anchors), the paper's figures (PNG) and each run's tree (JSON)
    of a bench, into FOLDER/report/."""
    from olctc.bench.report import write_report

    rep = write_report(folder, echo=lambda m: click.echo(m, err=True))
    for p in rep.files:
        click.echo(f"  {p}")
    if rep.trees:
        click.echo(f"  {rep.folder / 'trees'}/ ({rep.trees} tree(s): olctc export, predict and explain take them)")
    click.echo(f"report written to {rep.folder}")
