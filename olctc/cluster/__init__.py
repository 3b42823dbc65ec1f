"""Cross-validation grids as independent MILP files: one instance per (fold, C combination), a Slurm job
array to solve them anywhere, and ``collect`` to decode, score, pick C and fit the final tree.

Layout of a grid folder ``DIR``::

    DIR/grid.json        everything collect needs: data source + sha256, split rows, folds, spec, C grid
    DIR/jobs.tsv         task id, fold, C per layer, model, solution, command, gurobi_command
    DIR/submit.sh        submits every job array of the grid, from any folder: ``bash DIR/submit.sh``
    DIR/submit.slurm     the job array (submit from DIR: ``cd DIR && sbatch submit.slurm``; Slurm opens
                         its logs/ relative to the folder sbatch runs in); submit-1000.slurm, ... beyond
                         1000 tasks
    DIR/run_local.sh     the same tasks one after the other, without Slurm
    DIR/tasks/NNNN/      model.mps, its manifest, the parameter and start files of the job's solver and
                         Gurobi's (``grid.TASK_SOLVERS``), solution, solve.log

Protocol (the paper's): a stratified test part is split off (``test_size``, seed ``seed``), the training
part is cut into ``folds`` stratified folds; each task trains on all folds but one and is scored by
balanced accuracy on the held-out fold (or another of ``SCORINGS``: ``collect(scoring=)``). The C grid is
the product of ``C_values`` over the layers. Choice of C: the highest mean validation score among the
combinations with every fold scored; ties (within 1e-12) go to the smaller sum of C (the stronger
regularisation), then to the lexicographically smaller C tuple (root first).

The modules, each importing only those above it:

    olctc.cluster.slurm     the job array scripts, submit.sh and run_local.sh (SlurmOptions)
    olctc.cluster.grid      building a grid folder: C grid, folds, task models and command lines (make_grid)
    olctc.cluster.read      reading a grid folder back: grid.json and jobs.tsv checked (read_grid)
    olctc.cluster.scoring   scoring the solved tasks, the CV table and the choice of C (collect)
    olctc.cluster.final     the final model with the chosen C, fitted in process or written (fit_final)

This package re-exports their public names: ``from olctc.cluster import collect`` works as before.
"""
from __future__ import annotations

# The functions read their module's own globals (LARGE_GRID_TASKS, ...): a test patches the submodule,
# not these re-exported copies.
from olctc.cluster.final import (check_final_folder, check_final_time_limit, emit_final, final_dataset, final_spec,
                                 fit_final)
from olctc.cluster.grid import (GRID_FORMAT, GRID_SCRIPTS, GRID_SOLVERS, GRID_VERSION, JOBS_COLUMNS, LARGE_GRID_TASKS,
                                MIQP_SOLVERS, C_grid, Grid, anchored_olctc_cmd, c_text, check_grid_folder,
                                check_olctc_cmd, grid_scripts, make_folds, make_grid, olctc_command, parse_C_values)
from olctc.cluster.read import check_grid_info, check_jobs, load_grid_data, read_grid
from olctc.cluster.scoring import (SCORINGS, TIE_TOL, Collected, TaskResult, check_scoring, collect, cv_table,
                                   pick_best, rerun_advice, resubmit_commands, score_table_lines, score_tasks,
                                   table_lines, unscorable_advice, validation_score, why_undefined)
from olctc.cluster.slurm import (ARRAY_CHUNK, SLURM_MARGIN_S, SUBMIT_ALL, SlurmOptions, check_slurm_options,
                                 local_script, sbatch_available, slurm_script, submit_all_script, submit_script_name,
                                 submit_scripts)

__all__ = [
    # grid
    "GRID_FORMAT", "GRID_SCRIPTS", "GRID_SOLVERS", "GRID_VERSION", "JOBS_COLUMNS", "LARGE_GRID_TASKS", "MIQP_SOLVERS",
    "C_grid", "Grid", "anchored_olctc_cmd", "c_text", "check_grid_folder", "check_olctc_cmd", "grid_scripts",
    "make_folds", "make_grid", "olctc_command", "parse_C_values",
    # slurm
    "ARRAY_CHUNK", "SLURM_MARGIN_S", "SUBMIT_ALL", "SlurmOptions", "check_slurm_options", "local_script",
    "sbatch_available", "slurm_script", "submit_all_script", "submit_script_name", "submit_scripts",
    # read
    "check_grid_info", "check_jobs", "load_grid_data", "read_grid",
    # scoring
    "SCORINGS", "TIE_TOL", "Collected", "TaskResult", "check_scoring", "collect", "cv_table", "pick_best",
    "rerun_advice", "resubmit_commands", "score_table_lines", "score_tasks", "table_lines", "unscorable_advice",
    "validation_score", "why_undefined",
    # final
    "check_final_folder", "check_final_time_limit", "emit_final", "final_dataset", "final_spec", "fit_final",
]
