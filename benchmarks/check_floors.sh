#!/usr/bin/env bash
# Run by hand, not by CI: rebuild a venv holding olctc's declared dependency floors (pyproject.toml's lowest
# versions) and run the whole test suite there, as the README's floor paragraph reports.
#
#   benchmarks/check_floors.sh [PYTHON]        # PYTHON: a CPython 3.11 (default: python3.11)
#
# The venv goes to $FLOOR_VENV (default /tmp/olctc-floors, rebuilt from scratch), outside the repository;
# the suite's hypothesis database goes there too. Needs PyPI. The suite took 13 min there on 2 idle cores (29 on busy ones).
#
# uv's lowest-direct resolution takes the lowest version of each dependency pyproject.toml names and the
# newest of the others (what a user of an old numpy or onnx gets), wheels only for the compiled packages
# (the oldest scikit-survival, which pystreed pulls in, is an sdist that no longer builds). scipy comes out
# at 1.11.1 (1.11.0 is yanked); click at 8.4.0, the test extra's (olctc itself runs on 8.1: check by hand).
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${1:-python3.11}
VENV=${FLOOR_VENV:-/tmp/olctc-floors}
case "$(cd "$(dirname "$VENV")" && pwd)/" in "$PWD"/*) echo "FLOOR_VENV must lie outside the repository" >&2; exit 2;; esac

rm -rf "$VENV"
"$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet uv
WHEELS_ONLY="numpy,scipy,scikit-learn,scikit-survival,pyscipopt,highspy,mip,onnx,onnxruntime,matplotlib"
WHEELS_ONLY+=",pandas,pystreed,cplex,gurobipy,contourpy,kiwisolver,pillow,ecos,osqp,numexpr,protobuf,clarabel"
"$VENV/bin/uv" pip install --python "$VENV/bin/python" --resolution lowest-direct --only-binary "$WHEELS_ONLY" \
    -e ".[test,cli-solvers]"
"$VENV/bin/python" -m pip list

HYPOTHESIS_STORAGE_DIRECTORY="$VENV/hypothesis" \
    "$VENV/bin/python" -m pytest -q -n 2 --dist loadgroup -p no:cacheprovider
