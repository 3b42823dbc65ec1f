"""`olctc grid` and `olctc collect`: cross-validation grids solved as a Slurm job array (or locally)."""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

import click

from olctc.cli import (TREE_FILE, InputPath, _load_data, _note_cbc_optimum, _spec, data_options, echo_written,
                       manifest_model_field, max_nonzeros_option, spec_options, with_class_weight)
from olctc.cluster.grid import GRID_SOLVERS, MIQP_SOLVERS, check_olctc_cmd, solver_program_warning
from olctc.errors import OlctcError, param_error, warn
from olctc.spec import PRESETS


def _solver_help() -> str:
    """--solver's help, from what make_grid accepts: a hand-written list fell behind GRID_SOLVERS (it left
    out scip, the open-source solver of the MIQP presets)."""
    programs = [k for k in GRID_SOLVERS if k.endswith("-cli")]
    in_process = [k for k, v in GRID_SOLVERS.items() if k == v and k not in programs]
    aliases = [f"{k} (`olctc solve` with {v})" for k, v in GRID_SOLVERS.items() if k not in programs + in_process]
    miqp = ", ".join(n for n, p in PRESETS.items() if p.quadratic)
    return (f"How each task is solved: {'; '.join(aliases)}; {', '.join(in_process)} (`olctc solve` with that "
            f"solver in process; gurobi, cplex, copt and xpress need their Python packages where the tasks run); "
            f"{', '.join(programs)} (that program; gurobi-cli runs gurobi_cl). The MIQP presets ({miqp}) need "
            f"{', '.join(MIQP_SOLVERS[:-1])} or {MIQP_SOLVERS[-1]}.")


def _refuse_C(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    """grid takes its C values from --C-values; a --C would otherwise be taken for the grid's C."""
    if value is not None:
        raise OlctcError(f"--C {value} does not apply to grid: its tasks take each layer's C from --C-values "
                         "(the grid is their product over the layers), and collect picks the best")


@click.command("grid", short_help="Compile a CV grid (fold x C) with Slurm job scripts.")
@data_options
@spec_options(with_C=False)
@click.option("--C", "C", default=None, hidden=True, expose_value=False, callback=_refuse_C)
@click.option("--C-values", "C_values", default="0.01,0.1,1,10,100", show_default=True,
              help="Values of C per layer; the grid is their product over the layers.")
@click.option("--folds", type=int, default=4, show_default=True, help="Stratified CV folds.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the test split and folds.")
@click.option("--test-size", type=float, default=0.2, show_default=True,
              help="Stratified test share held out (0: none).")
@click.option("--solver", default="olctc", show_default=True, help=_solver_help())
@click.option("--time-limit", type=float, default=600.0, show_default=True,
              help="Seconds per task's solve. Its Slurm --time is this plus 5 min, or plus 15% + 30 s when "
                   "that is more (bash DIR/submit.sh --time=... overrides it).")
@click.option("--threads", type=int, default=None,
              help="Solver threads per task (default: --cpus-per-task when above 1, else the solver's default).")
@click.option("--cpus-per-task", type=int, default=1, show_default=True, help="Slurm CPUs per task.")
@click.option("--mem", default="4G", show_default=True, help="Slurm memory per task ('4G', '500M').")
@click.option("--partition", default=None, help="Slurm partition (default: the cluster's).")
@click.option("--account", default=None, help="Slurm account (default: yours).")
@click.option("--olctc-cmd", default=None,
              help="How jobs call olctc (default: `olctc` if on PATH, else this Python -m olctc.cli); a relative "
                   "path is written absolute, as the jobs run in the grid folder.")
@max_nonzeros_option
@click.option("-o", "--output", "output", required=True, type=click.Path(file_okay=False),
              help="Grid folder to create.")
def grid_cmd(data, target, dataset, positive_class, drop, weight_column, preset, depth, tangents, big_m, epsilon,
             alpha, budget, score_variables, class_weight, min_leaf, C_values, folds, seed, test_size, solver,
             time_limit, threads, cpus_per_task, mem, partition, account, olctc_cmd, max_nonzeros, output) -> None:
    """Compile a CV grid (fold x C) of instances with a Slurm job array to solve them."""
    from olctc.cluster.grid import make_grid, olctc_command
    from olctc.cluster.slurm import (ARRAY_CHUNK, SUBMIT_ALL, SlurmOptions, check_slurm_options, sbatch_available,
                                     submit_scripts)
    from olctc.emit.params import MAX_THREADS, validate_limits
    from olctc.io import check_not_stdout, refuse_read_once, shell_path
    from olctc.fit import least_time_limit
    from olctc.pipeline import check_task_time_limit

    check_not_stdout(output, "which cannot hold grid's folder of instances and scripts",
                     "a folder name such as -o grid")
    if cpus_per_task < 1:
        raise param_error("cpus_per_task", ">= 1", cpus_per_task)
    if threads is None and cpus_per_task > MAX_THREADS:
        # Each task would run `olctc solve --threads CPUS`, refused on the cluster by every task.
        raise param_error("cpus_per_task", f"at most {MAX_THREADS} (each task's solver threads) unless "
                          "--threads is given", cpus_per_task)
    # The tasks run `olctc solve --time-limit --threads` later, on the cluster: check the values now.
    validate_limits(time_limit=time_limit, threads=threads, cli=True, unlimited=False)
    check_task_time_limit(time_limit)
    if time_limit < (least := least_time_limit()):  # collect's final fit would refuse it, after every task ran
        warn(f"--time-limit {time_limit:g} s is enough for each task's solve but not for the final fit of "
             f"olctc collect, which takes the grid's limit unless given its own: give collect --time-limit "
             f"{math.ceil(least)} or more (or --emit-final)")
    slurm = SlurmOptions(cpus_per_task, mem, partition, account)
    check_slurm_options(slurm)
    if olctc_cmd is not None and (cmd_warning := check_olctc_cmd(olctc_cmd)):
        warn(cmd_warning)  # the cluster's paths may differ from this machine's: not an error
    if program_warning := solver_program_warning(solver):
        warn(program_warning)  # as above
    spec = _spec(preset, depth, "1", tangents, big_m, epsilon, alpha, budget, score_variables,  # C: --C-values
                 min_leaf)
    # collect read the grid's data again from /proc/PID/fd/pipe:[...]: "is not there"
    refuse_read_once(data, "olctc collect reads the grid's data again")
    ds = _load_data(data, target, dataset, positive_class, drop, weight_column, max_nonzeros)
    spec = with_class_weight(spec, class_weight, ds)
    if threads is None and cpus_per_task > 1:
        threads = cpus_per_task
    single = {"glpk-cli": "glpsol", "scip": "SCIP's branch and bound"}.get(solver)
    if single is not None and threads is not None and threads > 1:  # each task's solve.log said so, on the cluster
        warn(f"{single} runs on one thread: the {threads} threads of each task (--threads, or "
             "--cpus-per-task) are not used; --cpus-per-task 1 reserves what a task uses")
    g = make_grid(ds, spec, output, C_values=C_values, folds=folds, seed=seed, test_size=test_size,
                  solver=solver, time_limit=time_limit, threads=threads,
                  slurm=slurm,
                  olctc_cmd=olctc_cmd or olctc_command(), echo=click.echo, max_nonzeros=max_nonzeros)
    n = len(g.tasks)
    info = g.info
    click.echo(f"grid {ds.name}: {len(info['train_rows'])} train / {len(info['test_rows'])} test points, "
               f"{folds} folds x {len(info['C_grid'])} C combinations = {n} tasks in {output}")
    folder = shell_path(os.fspath(output).rstrip("/") or "/")  # "-o grid/" printed "grid//run_local.sh"
    local = shell_path(os.path.join(os.fspath(output), "run_local.sh"))
    arrays = len(submit_scripts(n))
    submit = shell_path(os.path.join(os.fspath(output), "submit.sh"))
    if arrays == 1:
        click.echo(f"  submit:  bash {submit}   (or cd {folder} && sbatch submit.slurm)")
    else:  # one job array per ARRAY_CHUNK tasks: Slurm's MaxArraySize (1001 by default) refuses more
        click.echo(f"  submit:  bash {submit}   ({arrays} job arrays of at most {ARRAY_CHUNK} tasks: Slurm's "
                   f"default limit; or cd {folder} && {SUBMIT_ALL})")
    click.echo(f"  locally: {local}")
    click.echo(f"  then:    olctc collect {folder}")
    if not sbatch_available():
        click.echo(f"note: sbatch is not on PATH here: copy the folder to a Slurm cluster, or run {local}")


@click.command("collect", short_help="Score a grid's solutions, pick C, fit the final tree.")
@click.argument("folder", type=InputPath(file_okay=False))
@click.option("-o", "--output", "output", default=None, type=click.Path(dir_okay=False),
              help="Final tree file (JSON); default FOLDER/final_tree.json.")
@click.option("--emit-final", is_flag=True,
              help="Write the final instance (FOLDER/final/model.mps) instead of fitting it in process.")
@click.option("--solver", default=None,
              help="In-process solver of the final fit: highs, cbc or scip, or gurobi, cplex, copt, xpress where "
                   "their Python packages are installed (default: the grid's, in process: cbc for cbc-cli, highs "
                   "for olctc and highs-cli; else highs, or scip for the MIQP presets).")
@click.option("--time-limit", type=float, default=None,
              help="Seconds for the final fit (default: the grid's time limit); a HiGHS solve still busy 3 s "
                   "+ 5% past its share is left, as in olctc fit.")
@click.option("--threads", type=int, default=None,
              help="Solver threads of the final fit (default: the solver's default).")
@click.option("--data", default=None, type=InputPath(dir_okay=False),
              help="The grid's CSV, if it moved since `olctc grid` (its sha256 must match).")
@click.option("--quiet", is_flag=True, help="Hide the solver's log of the final fit.")
@click.option("--score-variables/--paper-form", "score_variables", default=None,
              help="The form of the final model (the same optimum; see olctc fit --help). Default: the score "
                   "form for the in-process fit, as olctc fit's; the grid's form for --emit-final.")
@click.option("--scoring", default="balanced_accuracy", show_default=True, metavar="NAME",
              help="The validation score that chooses C, by scikit-learn's scorer name: balanced_accuracy, "
                   "accuracy, roc_auc, neg_log_loss or neg_brier_score (the last two judge the probabilities).")
@click.option("--smooth-pure-nodes", "smooth_pure_nodes", is_flag=True, default=False,
              help="As olctc fit's, for every task's tree scored and the final fit (with --emit-final: the scores "
                   "only; give it to olctc decode of the final solution).")
def collect_cmd(folder, output, emit_final, solver, time_limit, threads, data, quiet, score_variables,
                scoring, smooth_pure_nodes) -> None:
    """Decode and score every solution of a grid, pick C, fit (or emit) the final tree. Each task's score or
    problem, the CV table and the choice go to FOLDER/cv_results.json."""
    from olctc.cluster.final import check_final_folder, check_final_time_limit, emit_final as write_final, fit_final
    from olctc.cluster.grid import c_text, grid_scripts
    from olctc.cluster.read import read_grid
    from olctc.cluster.scoring import SCORINGS, check_scoring, collect, rerun_advice, table_lines
    from olctc.emit.params import validate_limits
    from olctc.io import (atomic_write_text, check_not_input, check_not_linked, check_not_stdout, check_output_file,
                          check_suffix, check_writable)

    check_scoring(scoring)
    check_not_stdout(output, "where collect prints its table of scores",
                     "a file name such as -o final_tree.json (or no -o: FOLDER/final_tree.json)")
    grid = Path(folder)
    if emit_final:
        # --emit-final fits nothing: these were accepted and ignored (-o FILE: no tree written there, exit 0)
        given = [name for name, value in (("-o", output), ("--solver", solver), ("--time-limit", time_limit),
                                          ("--threads", threads), ("--quiet", quiet or None)) if value is not None]
        if given:
            raise OlctcError(f"{given[0]} applies to the final fit in process, which --emit-final does not run "
                             f"(it writes {grid / 'final' / 'model.mps'} to solve anywhere): leave out "
                             f"{given[0]} or --emit-final")
    if output is not None and os.path.realpath(output) == os.path.realpath(grid / "cv_results.json"):
        # not there yet on a first collect: the tree was written over the table of scores just written
        raise OlctcError(f"-o {output} is the table of scores collect writes ({grid / 'cv_results.json'}); "
                         "write the tree elsewhere")
    script = next((p for p in grid_scripts(grid) if output is not None
                   and os.path.realpath(output) == os.path.realpath(p)), None)
    if script is not None:  # the tree was written over it, exit 0: the grid could no longer be run
        raise OlctcError(f"-o {output} is the grid's job script {script}; write the tree elsewhere")
    if solver is not None:  # before decoding every task, not after
        from olctc.fit import check_in_process

        check_in_process(solver)
    check_not_input(output, ("grid file", grid / "grid.json"), ("grid file", grid / "jobs.tsv"),
                    ("grid file", grid / "cv_results.json"), ("data", data))
    tasks = grid / "tasks"
    if output is not None and tasks.is_dir() and Path(output).resolve().is_relative_to(tasks.resolve()):
        raise OlctcError(f"-o {output} is inside {tasks}, whose manifests and solutions collect reads; "
                         "write the tree elsewhere")
    check_suffix(output, "collect", TREE_FILE, (".json",))
    if output is not None:
        check_writable(output)  # before the final fit, which may take minutes
    if emit_final:
        check_final_folder(folder)  # before decoding every task
    if grid.is_dir():  # else collect names what is missing
        own = ["cv_results.json"] + (["final_tree.json"] if output is None and not emit_final else [])
        for name in own:  # a link, a folder under the name, a read-only grid folder: now, not after decoding
            check_not_linked(grid / name, "collect writes it as a file of the folder's own")
            check_output_file(grid / name)
            check_writable(grid / name)
    validate_limits(time_limit=time_limit, threads=threads, cli=True, unlimited=False)
    if not emit_final and (grid / "grid.json").is_file():  # else collect names what is wrong with the folder
        check_final_time_limit(read_grid(folder), time_limit)  # before decoding every task
    col = collect(folder, data_path=data, scoring=scoring, smooth_pure_nodes=smooth_pure_nodes)
    for line in table_lines(col):
        click.echo(line)
    # Written even when no C can be chosen (best null): the record of each task's score or problem, for a
    # script to act on, and no stale earlier file left to contradict the table printed above.
    results = Path(folder) / "cv_results.json"
    atomic_write_text(results, json.dumps(
        {"scoring": scoring, **({"smooth_pure_nodes": True} if smooth_pure_nodes else {}), "table": col.table,
         "best": None if col.best is None else list(col.best),
         "tasks": [{"task": r.task, "fold": r.fold, "C": list(r.C), "score": r.score, "status": r.status,
                    "problem": r.problem} for r in col.results]}, indent=1) + "\n")
    if col.best is None:
        raise OlctcError(f"{folder}: no C combination has every fold scored ({sum(r.score is not None for r in col.results)}"
                         f" of {len(col.results)} tasks usable; the scores so far are in {results}, with best "
                         f"null); too little is left to choose C: "
                         f"{rerun_advice(col.results, folder, len(col.info['tasks']))}")
    best = c_text(col.best)
    wcol = col.info["data"].get("weight_column")
    weighted = "" if wcol is None else f", points weighted by column {wcol!r}"
    click.echo(f"best C: {best} (mean validation {SCORINGS[scoring][0]} "
               f"{next(r['mean'] for r in col.table if tuple(r['C']) == col.best):.4f}{weighted})")
    ds = col.dataset
    n_train = len(col.info["train_rows"])
    zero = 0 if ds.weight is None else int((ds.weight[col.info["train_rows"]] == 0).sum())
    left_out = f" less {zero} of weight 0" if zero else ""  # the final model leaves them out
    if emit_final:
        final = Path(folder) / "final"
        before = {p.name for p in final.iterdir()} if final.is_dir() else set()
        old_model = manifest_model_field(final / "model.olctc.json", "sha256")
        written = write_final(folder, col.info, ds, col.best, score_variables)
        click.echo(f"final instance (all {n_train} training points{left_out}, C {best}):")
        echo_written(written)
        older = sorted(before - {p.name for p in written.values()})
        if older and old_model != manifest_model_field(written["manifest"], "sha256"):
            # a solution of the earlier final instance, say: not removed (the user's), but named
            click.echo(f"note: {final} also holds {', '.join(older[:5])}{', ...' if len(older) > 5 else ''}, "
                       "written before this instance; a solution of an earlier instance does not fit this one")
        from olctc.io import shell_path
        from olctc.spec import PRESETS

        model, man = shell_path(written["model"]), shell_path(written["manifest"])
        scip = " --solver scip" if PRESETS[col.info["spec"]["preset"]].quadratic else ""
        commands = f"the commands are in {written['params:solvers'].name}, or " if "params:solvers" in written else ""
        # the scores that chose C were the smoothed trees': the final tree should be smoothed too
        smooth = " --smooth-pure-nodes" if smooth_pure_nodes else ""
        click.echo(f"then: solve it ({commands}olctc solve {model}{scip} -o SOLUTION) and "
                   f"olctc decode {man} SOLUTION{smooth} -o tree.json")
        return
    from olctc.export.json import save

    out = Path(output) if output else Path(folder) / "final_tree.json"
    scores = True if score_variables is None else score_variables  # fit's default form, in process
    res, test_acc = fit_final(col.info, ds, col.best, solver=solver, time_limit=time_limit, threads=threads,
                              score_variables=scores, verbose=not quiet, leave_overrun=True,
                              smooth_pure_nodes=smooth_pure_nodes)
    s = res.summary
    from olctc.decode import pure_nodes_line
    from olctc.spec import form_name
    from olctc.solve.result import gap_text

    gap = gap_text(s["gap"])
    click.echo(f"final fit on {n_train} training points{left_out}, {form_name(scores)}: {s['status']} (gap {gap}), "
               f"train balanced accuracy {s['train_balanced_accuracy']:.4f}"
               + (f", test balanced accuracy {test_acc:.4f}" if test_acc is not None else ""))
    _note_cbc_optimum(s["solver"], s["status"])  # as fit's: the final fit is one, and CBC's 'optimal' is no proof
    if "train_balanced_accuracy_weighted" in s:  # the CV table's measure, which chose C
        test_w = res.tree.meta["fit"].get("test_balanced_accuracy_weighted")
        click.echo(f"balanced accuracy, points weighted by column {wcol!r}: train "
                   f"{s['train_balanced_accuracy_weighted']:.4f}"
                   + (f", test {test_w:.4f}" if test_w is not None else ""))
    if (smoothed := pure_nodes_line(s)) is not None:
        click.echo(smoothed)
    for note in s.get("notes", []):
        click.echo(f"note: {note}")
    save(res.tree, out)
    click.echo(f"tree written to {out}")
