"""The final model of a grid, once C is chosen: fitted in process on the whole training part and scored on
the test part, or written as ``final/model.mps`` to solve elsewhere."""
from __future__ import annotations

import contextlib
import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

import numpy as np

from olctc.cluster.grid import GRID_SOLVERS
from olctc.errors import OlctcError, TimeLimitTooShort
from olctc.io import check_not_linked, remove_tree, staged_errors, temporary_name
from olctc.process_state import check_interrupt, interrupts_deferred

if TYPE_CHECKING:
    from olctc.data import Dataset
    from olctc.fit import FitResult
    from olctc.spec import TreeSpec


def final_dataset(info: dict[str, Any], ds: Dataset) -> Dataset:
    """The training part of the grid's data (all folds together)."""
    return ds.subset(np.asarray(info["train_rows"], dtype=np.int64))


def final_spec(info: dict[str, Any], C: Sequence[float], score_variables: bool | None = None) -> TreeSpec:
    """The grid's spec with the chosen C, in the form ``score_variables`` says (None: the grid's)."""

    from olctc.spec import TreeSpec

    spec = replace(TreeSpec.from_json(info["spec"]), C=tuple(float(c) for c in C))
    return spec if score_variables is None else replace(spec, score_variables=bool(score_variables))


@contextlib.contextmanager
def _grid_limit_named(time_limit: float | None) -> Iterator[None]:
    """A final fit's TimeLimitTooShort says, when the limit was the grid's, how collect replaces it."""
    try:
        yield
    except TimeLimitTooShort as exc:
        if time_limit is None:
            raise TimeLimitTooShort(f"{exc} (the final fit takes the grid's --time-limit unless collect is "
                                    "given one: olctc collect FOLDER --time-limit SECONDS)") from None
        raise


def check_final_time_limit(info: dict[str, Any], time_limit: float | None) -> None:
    """Refuse, before collect decodes every task, a final-fit time limit (collect's, else the grid's) that
    ``fit`` would refuse after all that work."""
    from olctc.fit import check_time_limit

    with _grid_limit_named(time_limit):
        check_time_limit(time_limit if time_limit is not None else info.get("time_limit"))


def fit_final(info: dict[str, Any], ds: Dataset, C: Sequence[float], *, solver: str | None = None,
              time_limit: float | None = None, threads: int | None = None, verbose: bool = False,
              score_variables: bool = True, leave_overrun: bool = False,
              smooth_pure_nodes: bool = False) -> tuple[FitResult, float | None]:
    """Fit the final tree in process on the whole training part; returns (FitResult, test balanced accuracy).

    ``score_variables``: the form solved, as ``olctc fit``'s (the score form by default: the same optimum,
    solved better in process; the grid's files keep their own form). ``leave_overrun``, ``smooth_pure_nodes``:
    as ``olctc.fit.fit``'s."""
    from olctc.fit import IN_PROCESS, balanced_accuracy, fit

    spec = final_spec(info, C, score_variables)
    tr = final_dataset(info, ds)
    if solver is None:
        # The grid's own solver when olctc runs it in process too, so the final tree is found by the
        # solver whose fold fits chose C (cbc-cli's twin is cbc); otherwise fit's default for the preset.
        twin = (GRID_SOLVERS.get(info.get("solver", "")) or "").removesuffix("-cli")
        solver = twin if twin in IN_PROCESS else None
    with _grid_limit_named(time_limit):
        res = fit(tr, spec, solver=solver, time_limit=time_limit if time_limit is not None else info.get("time_limit"),
                  threads=threads, test_size=0.0, seed=info["seed"], verbose=verbose,
                  max_nonzeros=info.get("max_nonzeros"), leave_overrun=leave_overrun,
                  smooth_pure_nodes=smooth_pure_nodes)
    test_acc = None
    if info["test_rows"]:
        te = ds.subset(np.asarray(info["test_rows"], dtype=np.int64))
        pred = np.where(res.tree.decision_function(te.X) > 0, 1, -1)
        test_acc = balanced_accuracy(te.y, pred)
        # the fit saw the training part only (test_size 0): the test part is the grid's, as olctc fit records it
        res.tree.meta.setdefault("fit", {}).update(n_test=int(te.n), test_balanced_accuracy=test_acc)
        if te.weight is not None:
            res.tree.meta["fit"]["test_balanced_accuracy_weighted"] = balanced_accuracy(te.y, pred, te.weight)
    res.tree.meta["grid"] = {"C": list(C), "folds": len(info["folds"]), "seed": info["seed"]}
    return res, test_acc


def emit_final(folder: str | Path, info: dict[str, Any], ds: Dataset, C: Sequence[float],
               score_variables: bool | None = None) -> dict[str, Path]:
    """Write the final instance (training part, chosen C) to ``folder/final/model.mps``.

    The files are written in a temporary folder inside ``final`` and moved into place (the manifest last)
    only once all are whole: an earlier final instance, which a solution in ``final`` may have been solved
    from, stays as it was when this one fails (write_compiled alone removed it on a full disk).
    """
    from olctc.compile import compile_problem
    from olctc.pipeline import write_compiled

    out = check_final_folder(folder)
    rows = np.asarray(info["train_rows"], dtype=np.int64)
    comp = compile_problem(ds.subset(rows), final_spec(info, C, score_variables), "final", rows=rows,
                           max_nonzeros=info.get("max_nonzeros"))
    made = not out.exists()
    tmp: Path | None = None
    try:
        out.mkdir(exist_ok=True)
        tmp = out / temporary_name("final")  # named before it exists: an interrupt after mkdir removes it
        tmp.mkdir()
        with staged_errors(out, tmp):
            staged = write_compiled(comp, tmp / "model.mps")
            check_interrupt()
            written = {}
            # A grid's final instances are all one preset: the same file names each time, none left stale.
            with interrupts_deferred():  # cut halfway, the folder held a mix of the earlier set and this one
                for role, path in staged.items():  # in the order written: the manifest last
                    os.replace(path, out / path.name)
                    written[role] = out / path.name
        tmp.rmdir()
        return written
    except BaseException as exc:
        if tmp is not None:
            remove_tree(tmp)
        if made:  # the folder made for the files goes too
            with contextlib.suppress(OSError):
                out.rmdir()
        if isinstance(exc, OSError):
            raise OlctcError(f"cannot write {out}: {exc.strerror or exc}") from None
        raise


def check_final_folder(folder: str | Path) -> Path:
    """``folder``/final, after checking emit_final can write there (before collect decodes every task)."""
    out = Path(folder) / "final"
    check_not_linked(out, "collect --emit-final writes it as a file of the folder's own")
    if out.exists() and not out.is_dir():
        raise OlctcError(f"cannot write {out / 'model.mps'}: {out} exists and is not a folder")
    return out
