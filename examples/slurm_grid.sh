#!/bin/bash
# Cross-validate C on a Slurm cluster: one MILP per (fold, C combination), solved as a job array.
# Usage: examples/slurm_grid.sh [GRID_FOLDER]   (without a reachable Slurm cluster it runs the tasks locally)
set -euo pipefail
GRID=${1:-heart-grid}
TIME_LIMIT=${TIME_LIMIT:-60}   # seconds per task; the paper used 300 per fit (3600 for large data and depth 3)
FOLDS=${FOLDS:-4}              # cross-validation folds: one task per fold and C combination

olctc grid --dataset heart --depth 2 --C-values 0.1,1 --folds "$FOLDS" --test-size 0.2 --seed 0 \
    --solver olctc --time-limit "$TIME_LIMIT" --cpus-per-task 1 --mem 2G -o "$GRID"

if command -v sbatch > /dev/null && sinfo > /dev/null 2>&1; then   # a reachable Slurm cluster
    bash "$GRID/submit.sh" --wait   # or without --wait: submit, log out, and come back later
else
    "$GRID/run_local.sh"
fi

olctc collect "$GRID" -o "$GRID/heart_tree.json" --quiet   # CV table, best C, final tree on all training data
