"""The `olctc` command line: thin wrappers over the library; OlctcError -> one line, exit code 2."""
from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from olctc import __version__
from olctc.cli_process import (_ClosedPipeGuard, _Interrupts, _from_interrupt, _hard_exit, _interrupted, _show_warning,
                               _standard_streams_opened, _stdout_failed, _whole_writes, pipes_unblocked)
from olctc.errors import OlctcError, UnseenCategoryWarning, first_repeat, shorten, warn
from olctc.io import check_file_name, check_not_input, check_not_stdout, check_suffix, check_writable, read_once
from olctc.process_state import check_interrupt, solver_left


EXIT_BAD_INPUT = 2
EXIT_TOLERANCE = 3  # decoded, but the solver's objective is not the tree's: it exploited its tolerances

#: What fit, decode and collect write (``check_suffix``).
TREE_FILE = "a tree file (JSON)"


class InputPath(click.Path):
    """``click.Path`` of a file (or folder) a command reads, refusing an empty name: ``Path("")`` is the
    current folder, so `solve ''` and `decode '' SOL` ended in a traceback, `predict '' D` said ".: is a
    folder", and `decode --data ''` and `collect --data ''` silently used the data named elsewhere."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and value == "":
            self.fail(f"'' names no {'file' if self.file_okay else 'folder'}.", param, ctx)
        return super().convert(value, param, ctx)


#: Characters that end a line (str.splitlines'), written as escapes in an error: a file name holding a line break
#: split the one-line error in two ("error: no" / "such.csv: no such file").
_LINE_ENDS = {c: repr(chr(c))[1:-1] for c in (0x0A, 0x0B, 0x0C, 0x0D, 0x1C, 0x1D, 0x1E, 0x85, 0x2028, 0x2029)}


def _fail(message: str, code: int = EXIT_BAD_INPUT) -> None:
    click.echo(f"error: {message.translate(_LINE_ENDS)}", err=True)
    sys.exit(code)


def _named_option(message: str, args: list[str]) -> str:
    """``message`` with the command-line option named beside a Python parameter name: the library's checks
    say 'C_values', which the user of ``olctc grid`` typed as --C-values."""
    import re

    found = re.search(r"The '(\w+)' parameter must", message)  # also after a context ("cross-validation fold 0")
    if found is None:
        return message
    command: click.Command = cli
    for a in args:  # down the groups (olctc bench models): the first word naming a subcommand, each time
        if isinstance(command, click.Group) and a in command.commands:
            command = command.commands[a]
    for param in command.params:
        if param.name == found[1] and isinstance(param, click.Option):
            # the long name typed (bench's --C-values for --C-grid), else the longest
            typed = [o for a in args for o in param.opts if o.startswith("--") and (a == o or a.startswith(o + "="))]
            option = typed[0] if typed else max(param.opts, key=len)
            return message.replace(f"'{found[1]}' parameter", f"'{found[1]}' parameter ({option})", 1)
    return message


def _load_data(data: str | None, target: str | None, dataset: str | None, positive_class: Any,
               drop: tuple[str, ...] = (), weight_column: str | None = None, max_nonzeros: int | None = None):
    from olctc.compile import DEFAULT_MAX_NONZEROS
    from olctc.data import read_csv
    from olctc.datasets import load

    if (data is None) == (dataset is None):
        raise OlctcError("give either a CSV file (DATA.csv --target COLUMN) or --dataset NAME")
    twice = first_repeat(drop)
    if twice is not None:
        raise OlctcError(f"--drop names column {drop[twice]!r} twice: give each column once")
    if dataset is not None:
        if target not in (None, "y"):
            raise OlctcError("--target applies to a CSV file; vendored data sets have their label in 'y'")
        return load(dataset, positive_class, drop, weight_column=weight_column)
    if not target:
        raise OlctcError(f"{data}: say which column holds the class with --target COLUMN")
    assert data is not None  # one of data and dataset, checked above
    return read_csv(data, target, positive_class, drop, weight_column=weight_column,
                    max_one_hot=max_nonzeros or DEFAULT_MAX_NONZEROS)


def _vendored_path(dataset: str | None) -> Path | None:
    """The file of the vendored data set ``dataset`` (None when not given or unknown: loading says so)."""
    if dataset is None:
        return None
    from olctc.datasets import dataset_path

    try:
        return dataset_path(dataset)
    except OlctcError:
        return None


def data_options(f):
    """The shared ways to name the data: DATA.csv --target COL, or --dataset NAME."""
    f = click.option("--weight-column", "weight_column", default=None, metavar="COLUMN",
                     help="COLUMN holds each point's loss weight (a number >= 0; 2 counts a point twice, 0 "
                          "leaves it out); it is not a feature. Default: every point weighs 1.")(f)
    f = click.option("--drop", "drop", multiple=True, metavar="COLUMN",
                     help="Leave COLUMN out of the features (an identifier, free text, a leak, a column "
                          "with empty cells: olctc does not impute, and refuses an empty feature cell); "
                          "repeat for more.")(f)
    f = click.option("--positive-class", default=None,
                     help="Class label mapped to +1 (default: the second in sorted order).")(f)
    f = click.option("--dataset", default=None, help="A vendored data set (see `olctc datasets`).")(f)
    f = click.option("--target", default=None, help="Column of DATA.csv that holds the class.")(f)
    f = click.argument("data", required=False, type=InputPath(dir_okay=False))(f)
    return f


smooth_pure_nodes_option = click.option(
    "--smooth-pure-nodes", "smooth_pure_nodes", is_flag=True, default=False,
    help="Give each last-layer node whose training points are all of one class w = 0 and the log-odds of its "
         "points plus one of each class (P = (m+ + 1)/(m + 2)); default: the solver's (w, b), whose "
         "probability there is arbitrary (any b past the tangents' zero is optimal). Can raise the exact "
         "objective.")


def spec_options(f=None, *, with_C: bool = True, score_variables: bool = False):
    """The tree spec knobs shared by compile, fit and grid (``with_C=False``: grid, whose C values come from
    --C-values: a --C there was accepted and ignored). ``score_variables`` is the form's default: fit solves
    in the score-variable form, while compile and grid write DESIGN.md's formulation as the paper states it."""
    if f is None:
        return lambda g: spec_options(g, with_C=with_C, score_variables=score_variables)
    from olctc.spec import PRESETS

    f = click.option("--min-leaf", "min_leaf", type=int, default=0, show_default=True,
                     help="Training points every last-layer node holds: none or at least this many (a node that "
                          "would hold fewer is left empty; scikit-learn's min_samples_leaf). 0: no minimum, the "
                          "paper's model.")(f)
    f = click.option("--class-weight", "class_weight", default=None,
                     help="Weigh each point's loss by its class: 'balanced' (n / (2 n_class), worked out on the "
                          "training points) or 'LABEL=WEIGHT[,LABEL=WEIGHT]' (a class not named weighs 1). "
                          "Default: every point weighs 1, the paper's model.")(f)
    f = click.option("--score-variables/--paper-form", "score_variables", default=score_variables,
                     help="--score-variables: one column per score w_t.x_i + b_t, defined once and used by "
                          "every row: the same optimum, fewer nonzeros (a6a at depth 2: 2.5x; more with more "
                          "features and tangents, little with a handful of features), and with HiGHS better "
                          "trees under a time limit (docs/BENCHMARKS.md). --paper-form: the scores written "
                          "out in every row, as the paper's model. Default: "
                          + ("--score-variables." if score_variables else "--paper-form."))(f)
    f = click.option("--budget", type=int, default=None,
                     help="L0 budget B, features per split, at most the number of features: a "
                          "hard bound for olct-univariate and margot-hfs, the free part of margot-sfs's "
                          "penalty; refused for the other presets. Default 1.")(f)
    f = click.option("--alpha", type=float, default=1.0, show_default=True,
                     help="L0 penalty weight (margot-sfs, oct-h).")(f)
    f = click.option("--epsilon", type=float, default=1e-5, show_default=True,
                     help="Routing margin: right iff score >= epsilon.")(f)
    f = click.option("--big-m", "big_m", type=float, default=100.0, show_default=True, help="Big-M constant.")(f)
    f = click.option("--tangents", default="V0", show_default=True,
                     help="Logistic tangent set V0..V3 or a list such as '-inf,-1.9,0,1.9,inf' "
                          "(olct, olct-univariate).")(f)
    if with_C:
        f = click.option("--C", "C", default="1", show_default=True,
                         help="Loss weight C_h: one value, or one per layer root first ('1,10').")(f)
    f = click.option("--depth", type=int, default=2, show_default=True, help="Branching layers (>= 1).")(f)
    f = click.option("--preset", default="olct", show_default=True,
                     help="Model: " + ", ".join(PRESETS) + ".")(f)
    return f


def max_nonzeros_option(f):
    """--max-nonzeros, on every command that builds a model."""
    return click.option("--max-nonzeros", type=int, default=None,
                        help="Refuse, before building anything, a model above this many nonzeros "
                             "(default 400,000,000, and about 16 GB of memory to build, which a model of many rows "
                             "per nonzero reaches first).")(f)


def start_tree_option(f):
    return click.option("--start-tree", "start_tree", type=InputPath(dir_okay=False), default=None, metavar="TREE",
                        help="Start the solve from the tree in TREE (JSON, such as an earlier fit's) instead of "
                             "the greedy warm start: same classes, features matched by name, depth at most "
                             "--depth (below a shallower tree, its last layer copied or new layers fit "
                             "greedily, whichever gives the lower objective).")(f)


def load_tree_file(path: str):
    """The tree in the file a command's argument or option names (a Path: never read as JSON text)."""
    from olctc.export.json import load

    tree = load(Path(path))
    names = [col.name for col in tree.schema.columns]
    twice = first_repeat(names)
    if twice is not None:  # the loader takes it (one input read twice, as from a table), but a file edited by
        # renaming a column reads another column's values in its place, with only a note of the one left out
        warn(f"{path}: columns {names.index(names[twice])} and {twice} are both named {names[twice]!r}: "
             "both read that one input column (a tree fitted on a table's columns has distinct names: "
             "was the file edited?)")
    return tree


def _start_weights_checked(tree, ds, spec, path: str | None) -> None:
    """--start-tree against the data and spec, before any model is built: the scaler plays no part in
    what can fail (classes, columns, features, depth, budget)."""
    if tree is not None:
        from olctc.data import Scaler
        from olctc.start_tree import start_weights

        start_weights(tree, ds.schema, Scaler.identity(ds.p), ds.classes, spec, what=f"--start-tree {path}")


def _spec(preset: str, depth: int, C: str, tangents: str, big_m: float, epsilon: float, alpha: float,
          budget: int | None, score_variables: bool = False, min_leaf: int = 0):
    from olctc.spec import make_spec

    return make_spec(preset=preset, depth=depth, C=C, tangents=tangents, big_m=big_m, epsilon=epsilon,
                     alpha=alpha, budget=budget, score_variables=score_variables, min_leaf=min_leaf)


def with_class_weight(spec, request: str | None, ds):
    """The spec with --class-weight, whose labels are known once the data is read."""
    from olctc.data import class_weight_by_label

    return replace(spec, class_weight=class_weight_by_label(request, ds.classes, "--class-weight"))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="olctc")
def cli() -> None:
    """Compile optimal classification tree training problems into portable MILP files, solve them, and
    decode, export and use the trees."""


@cli.command("datasets")
def datasets_cmd() -> None:
    """List the vendored data sets with their shapes and class counts."""
    from olctc.datasets import dataset_names, load

    click.echo(f"{'name':<14} {'rows':>6} {'features':>8}  classes (count; the second is +1 by default)")
    for name in dataset_names():
        ds = load(name)
        neg, pos = ds.classes
        click.echo(f"{name:<14} {ds.n:>6} {ds.p:>8}  {neg}: {int((ds.y < 0).sum())}, {pos}: {int((ds.y > 0).sum())}")


@cli.command("solvers", short_help="List the --solver choices, which run here, and their versions.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per solver, a list, instead of the table.")
def solvers_cmd(as_json: bool) -> None:
    """List the --solver choices, which of them run here, and their versions."""
    from olctc.solve.available import available_solvers, table_lines

    infos = available_solvers()
    if as_json:
        import json

        click.echo(json.dumps([i.to_dict() for i in infos], indent=2))
    else:
        click.echo("\n".join(table_lines(infos)))


@cli.command("compile", short_help="Compile a data set into a portable MILP file (MPS or LP).")
@data_options
@spec_options
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="Model file to write: NAME.mps or NAME.lp (manifest NAME.olctc.json beside it).")
@click.option("--start/--no-start", default=True, show_default=True,
              help="Write warm-start (MIP start) files for Gurobi, CPLEX, CBC, HiGHS, SCIP, COPT and Xpress.")
@click.option("--params/--no-params", default=True, show_default=True,
              help="Write solver parameter files with the tight tolerances the model needs.")
@click.option("--solvers", "solvers", default=None, metavar="LIST",
              help="Write the parameter and MIP-start files of these solvers only, a comma list of highs, scip, "
                   "gurobi, cplex, cbc, glpk, copt, xpress (NAME.solvers.txt lists their commands). Default: every "
                   "solver that solves the model.")
@start_tree_option
@max_nonzeros_option
def compile_cmd(data, target, dataset, positive_class, drop, weight_column, preset, depth, C, tangents, big_m,
                epsilon, alpha, budget, score_variables, class_weight, min_leaf, output, start, params, solvers,
                start_tree, max_nonzeros) -> None:
    """Compile DATA.csv (or --dataset NAME) into a MILP file any solver can run."""
    from olctc.compile import compile_problem, manifest_path, model_format
    from olctc.emit.params import check_solvers
    from olctc.spec import form_name
    from olctc.pipeline import compiled_files, write_compiled

    out = Path(output)
    check_not_stdout(output, "which cannot hold compile's model file and the manifest, MIP start and parameter "
                             "files it writes beside it", "a file name such as -o model.mps")
    check_writable(output)
    model_format(out)
    check_not_input(out, ("data", data), ("--start-tree", start_tree))
    for side in compiled_files(out)[1:]:  # written, or removed as another model's
        check_not_input(side, ("data", data), ("--start-tree", start_tree), beside=out)
    spec = _spec(preset, depth, C, tangents, big_m, epsilon, alpha, budget, score_variables, min_leaf)
    if start_tree is not None and not start:
        raise OlctcError("--start-tree gives the MIP start files, which --no-start leaves out: drop one of them")
    if solvers is not None and not start and not params:
        raise OlctcError("--solvers picks the solvers whose MIP start and parameter files compile writes, which "
                         "--no-start and --no-params leave out: drop one of them")
    solvers = check_solvers(solvers, spec.info.quadratic, option="--solvers")
    if start_tree is not None and solvers == ("glpk",):
        raise OlctcError("--start-tree gives the MIP start files, and glpsol (--solvers glpk) reads none: add a "
                         "solver that does")
    tree = None if start_tree is None else load_tree_file(start_tree)  # before the data: a bad file costs nothing
    ds = _load_data(data, target, dataset, positive_class, drop, weight_column, max_nonzeros)
    spec = with_class_weight(spec, class_weight, ds)
    _start_weights_checked(tree, ds, spec, start_tree)
    comp = compile_problem(ds, spec, out.name.rsplit(".", 1)[0],
                           max_nonzeros=max_nonzeros)
    previous = manifest_model_field(manifest_path(out), "file")
    written = write_compiled(comp, out, params=params, start=start, start_tree=tree, start_in_child=True,
                             solvers=solvers)
    m = comp.milp
    n = comp.dataset.n
    points = f"{n} points" if n == ds.n else f"{n} of {ds.n} points, {ds.n - n} of weight 0 left out"
    click.echo(f"compiled {ds.name} ({points}, {ds.p} features) as {spec.describe(ds.classes)}, "
               f"{form_name(spec.score_variables)}: {m.n_rows:,} rows, {m.n_cols:,} columns "
               f"({int(m.integer.sum()):,} integer), {m.nnz:,} nonzeros")
    echo_written(written)
    if tree is not None:
        ws = comp.manifest["warm_start"]
        click.echo(f"MIP start from --start-tree {start_tree}: objective {ws['objective']:.10g}")
        for note in ws["adjustments"]:
            click.echo(f"  made a MIP start: {note}")
    hint = _score_variables_hint(n, ds.p, spec, m.nnz)
    if hint:
        click.echo(hint)
    if read_once(data):
        click.echo(f"note: {data} is a pipe: decode reads the training data again, so save it to a file and pass "
                   "that with --data (olctc reads .csv.gz files as they are)", err=True)
    if previous is not None and previous != out.name:
        click.echo(f"note: {written['manifest'].name}, its MIP start and parameter files were those of {previous}, "
                   f"which is left without them (solve it without its MIP start, or compile it again)", err=True)


def manifest_model_field(path: Path, field: str) -> str | None:
    """``field`` ("file", "sha256") of the model an existing manifest was written for; None if there is no
    manifest, or it is unreadable. Lenient: read to name a file about to be replaced, not to use it."""
    import json

    try:
        value = json.loads(path.read_text(encoding="utf-8"))["model"][field]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return value if isinstance(value, str) else None


def echo_written(written: dict[str, Path]) -> None:
    """The files compile wrote, one per line, role then path, the paths in one column."""
    width = max(map(len, written), default=0)
    for role, path in written.items():
        click.echo(f"  {role:<{width}}  {path}")


def _score_variables_hint(n: int, p: int, spec, nnz: int) -> str | None:
    """A one-line hint when --score-variables would make a large model much smaller."""
    from olctc.compile import estimate_size

    if spec.score_variables or nnz < SCORE_HINT_NNZ:
        return None
    smaller = estimate_size(n, p, replace(spec, score_variables=True)).nonzeros
    if smaller > nnz / 2:
        return None
    return (f"hint: --score-variables would write about {smaller:,} instead of {nnz:,} nonzeros (same optimum, "
            f"a {nnz / smaller:.1f}x smaller file)")


#: Models below this many nonzeros are small enough that the hint would be noise.
SCORE_HINT_NNZ = 1_000_000


@cli.command("solve", short_help="Solve a compiled model; write the solver's solution file.")
@click.argument("model", type=InputPath(dir_okay=False))
@click.option("--solver", default="highs", show_default=True,
              help="highs, cbc, scip, or gurobi, cplex, copt, xpress where their Python packages are installed "
                   "(in-process); or cbc-cli, highs-cli, glpk-cli (programs). The MIQP presets (margot*) need scip "
                   "or a commercial solver.")
@click.option("--time-limit", type=float, default=None,
              help="Seconds for the whole command, reading the model included; the solver gets what is left "
                   "(default: no limit). A HiGHS solve still busy 3 s + 5% past it is left, and its best "
                   "solution written.")
@click.option("--threads", type=int, default=None, help="Solver threads (default: the solver's default).")
@click.option("--start/--no-start", "use_start", default=True, show_default=True,
              help="Use the MIP start compile wrote beside the model, when there is one.")
@click.option("--solver-path", default=None,
              help="Solver program to run (the *-cli solvers; default: cbc, highs or glpsol on PATH, highs "
                   "also from the highsbox package).")
@click.option("-o", "--output", "output", default=None, type=click.Path(dir_okay=False),
              help="Solution file (the solver's native format); default NAME.SOLVER.sol beside the model "
                   "(highs, cbc, scip, gurobi, cplex, copt or glpk: the -cli solvers write the format of "
                   "their program; Xpress's NAME.xpress.slx).")
@click.option("--quiet", is_flag=True, help="Hide the solver's log.")
def solve_cmd(model, solver, time_limit, threads, use_start, solver_path, output, quiet) -> None:
    """Solve a compiled MODEL and write the solver's native solution file."""
    from olctc.emit.params import validate_limits
    from olctc.pipeline import solve_compiled_file
    from olctc.solve import EXTERNAL_SOLVERS, SOLVERS

    check_not_stdout(output, "where solve prints its result and the solver's log",
                     "a solution file name such as -o model.sol (or no -o: NAME.SOLVER.sol beside the model)")
    if output is not None:
        # -o '' (an unset $OUT) solved into NAME.SOLVER.sol beside the model, replacing that file; -o x.sol/
        # wrote a file x.sol. (The suffix is checked with solve's inputs, in solve_compiled_file.)
        check_file_name(output)
    validate_limits(time_limit=time_limit, threads=threads, cli=True)
    if solver_path is not None and not solver_path.strip():
        # '' was taken for the current folder: "solver program /cwd does not exist or is not executable"
        raise OlctcError(f"--solver-path {solver_path!r} names no program: give the solver program's path")
    if solver_path is not None and solver in SOLVERS:  # else the library's message names its parameters
        raise OlctcError(f"--solver-path applies to the solver programs ({', '.join(EXTERNAL_SOLVERS)}), not "
                         f"to {solver}, which runs in process")
    res, sol_path = solve_compiled_file(model, solver, time_limit=time_limit, threads=threads,
                                        use_start=use_start, solver_path=solver_path, output=output,
                                        verbose=not quiet, leave_overrun=True)
    click.echo(_result_line(res))
    if res.left_running:
        from olctc.solve.calls import left_after_interrupt

        why = (left_after_interrupt(res)
               or "was still running past its time limit (work that checks no clock) and was left")
        click.echo(f"{solver} {why}: the best solution it had found is written")
    _note_cbc_optimum(solver, res.status)
    click.echo(f"solution written to {sol_path}")
    _exit_if_interrupted(res.raw_status)


def _exit_if_interrupted(raw_status: str) -> None:
    """Exit 130 after writing what an interrupted solver handed back: a script must not take the
    incumbent of a stopped solve for a finished one (the grid's ``solve -o X.part && mv X.part X``)."""
    from olctc.solve.result import limit_kind

    if limit_kind(raw_status) == "interrupt":
        click.echo("interrupted (the best solution found until then was written)", err=True)
        sys.exit(130)


def _check_no_refine(preset: str) -> None:
    """--no-refine is refused for a preset with nothing to refine, as compile refuses --tangents for them."""
    from olctc.spec import PRESETS

    if preset in PRESETS and not PRESETS[preset].kind.smooth:
        raise OlctcError(f"--no-refine applies to the logistic presets (olct, olct-univariate), whose last layer "
                         f"refinement refits; {preset} refines nothing: leave it out")


@cli.command("decode", short_help="Turn a solver's solution of a compiled model into a tree.")
@click.argument("manifest", type=InputPath(dir_okay=False))
@click.argument("solution", type=InputPath(dir_okay=False))
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="Tree file to write (JSON), such as NAME.json; the suffix of another format "
                   "(.csv, .onnx, .txt ...) is refused.")
@click.option("--refine/--no-refine", default=True, show_default=True,
              help="Refit the last layer with the exact logistic loss (logistic presets).")
@smooth_pure_nodes_option
@click.option("--format", "fmt", default=None, help="Force the solution format (cbc, highs, scip, gurobi, "
                                                    "cplex, glpk, xpress, copt).")
@click.option("--data", default=None, type=InputPath(dir_okay=False),
              help="The training CSV, if it moved since compile (its sha256 must match).")
def decode_cmd(manifest, solution, output, refine, smooth_pure_nodes, fmt, data) -> None:
    """Turn a solver's SOLUTION of a compiled model into a tree (exit 3 if the solver cheated)."""
    from olctc.compile import read_manifest
    from olctc.decode import decode_file, pure_nodes_line
    from olctc.export.json import save
    from olctc.read.api import check_format

    check_not_stdout(output, "where decode prints its report", "a file name such as -o tree.json")
    fmt = check_format(fmt, option="--format")
    check_writable(output)
    inputs = [("manifest", manifest), ("solution", solution), ("data", data)]
    try:  # decode also reads the model the manifest names (its hash) and the training CSV
        man = read_manifest(manifest, check_model=False)
        inputs += [("model", Path(manifest).parent / man["model"]["file"]), ("data", man["data"]["source"])]
        preset = man["spec"]["preset"]
    except (OlctcError, KeyError, TypeError):
        preset = None  # decode_file says what is wrong with the manifest
    if not refine and isinstance(preset, str):
        _check_no_refine(preset)
    check_not_input(output, *inputs)
    check_suffix(output, "decode", TREE_FILE, (".json",))
    tree, report = decode_file(manifest, solution, data=data, refine=refine, fmt=fmt,
                               smooth_pure_nodes=smooth_pure_nodes)
    for line in report.lines():
        click.echo(line)
    if report.refine is not None:
        r = report.refine
        # not the figure above: the tree's b sit epsilon/2 lower, at the middle of the model's routing gap
        click.echo(f"refinement: exact objective of the tree (b moved to the routing midpoint) "
                   f"{r.objective_before:.10g} -> {r.objective_after:.10g} (refit nodes {list(r.nodes_refit)})")
    if (pure := pure_nodes_line(tree.meta)) is not None:
        click.echo(pure)
    save(tree, output)
    click.echo(f"tree written to {output}")
    if not report.ok:
        sys.exit(EXIT_TOLERANCE)


@cli.command("fit", short_help="Fit a tree in process: compile, solve, decode, refine.")
@data_options
@spec_options(score_variables=True)
@click.option("--test-size", type=float, default=0.2, show_default=True,
              help="Stratified test share held out (0 trains on everything).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the test split (and with --cv, of the "
              "folds).")
@click.option("--solver", default=None,
              help="highs, cbc or scip, or gurobi, cplex, copt, xpress where their Python packages are "
                   "installed; default: highs, scip for the MIQP presets.")
@click.option("--time-limit", type=float, default=None,
              help="Seconds for the whole fit, building and refining included (default: no limit); a HiGHS "
                   "solve still busy 3 s + 5% past its share is left with its best solution (none: the warm "
                   "start is kept).")
@click.option("--threads", type=int, default=None, help="Solver threads (default: the solver's default).")
@click.option("--refine/--no-refine", default=True, show_default=True,
              help="Refit the last layer with the exact logistic loss (logistic presets).")
@click.option("--keep-incumbent", is_flag=True,
              help="If interrupted during the solve, still decode and write the best tree found (CBC cannot "
                   "hand its incumbent back: the warm start's tree is written then). The exit code is 130.")
@click.option("--quiet", is_flag=True, help="Hide the solver's log.")
@click.option("--cv", "cv", type=int, default=None, metavar="K",
              help="Choose C by K-fold stratified cross-validation on the training part (olctc grid + "
                   "collect's protocol, in process): each C combination of --C-values is fitted on every "
                   "fold and scored on the fold's held-out points, then the best is fitted on the whole "
                   "training part. --time-limit then bounds each fit.")
@click.option("--C-values", "C_values", default=None,
              help="With --cv: the values each layer's C takes; the grid is their product over the layers. "
                   "Default: 0.01,0.1,1,10,100.")
@click.option("--scoring", default=None, metavar="NAME",
              help="With --cv: the validation score that chooses C, as olctc collect's (balanced_accuracy, "
                   "accuracy, roc_auc, neg_log_loss, neg_brier_score). Default: balanced_accuracy.")
@click.option("--jobs", type=int, default=None, metavar="J",
              help="With --cv: fold fits run J at a time, each in a process of its own (default 1; starting "
                   "them costs about 2 s once, worth it when fits take seconds); with --threads 1, J can be the "
                   "number of cores.")
@start_tree_option
@max_nonzeros_option
@smooth_pure_nodes_option
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False),
              help="Tree file to write (JSON), such as NAME.json; the suffix of another format "
                   "(.csv, .onnx, .txt ...) is refused.")
def fit_cmd(data, target, dataset, positive_class, drop, weight_column, preset, depth, C, tangents, big_m, epsilon,
            alpha, budget, score_variables, class_weight, min_leaf, test_size, seed, solver, time_limit, threads,
            refine, keep_incumbent, quiet, cv, C_values, scoring, jobs, start_tree, max_nonzeros, smooth_pure_nodes,
            output) -> None:
    """Fit a tree in process: split, compile, warm start, solve, decode, refine (with --cv, choose C first)."""
    from olctc.emit.params import validate_limits
    from olctc.errors import TimeLimitTooShort
    from olctc.export.json import save
    from olctc.fit import fit, summary_lines

    _check_cv_options(cv, C_values, scoring, jobs)
    check_not_stdout(output, "where fit prints its log and summary", "a file name such as -o tree.json")
    check_writable(output)
    check_not_input(output, ("data", data), ("data", _vendored_path(dataset)))
    check_suffix(output, "fit", TREE_FILE, (".json",))  # before the fit, which may take minutes
    validate_limits(time_limit=time_limit, threads=threads, cli=True)
    spec = _spec(preset, depth, C, tangents, big_m, epsilon, alpha, budget, score_variables, min_leaf)
    if not refine:
        _check_no_refine(spec.preset)
    if start_tree is not None and cv is not None:
        # the start's splits have seen every fold's held-out points: the validation scores would be biased
        raise OlctcError("--start-tree does not apply with --cv: a tree fitted on these points would start the "
                         "fold fits with what their held-out points taught it; choose C with --cv, then fit "
                         "that C with --start-tree")
    tree = None if start_tree is None else load_tree_file(start_tree)  # now: -o may name it, to go on from it
    ds = _load_data(data, target, dataset, positive_class, drop, weight_column, max_nonzeros)
    spec = with_class_weight(spec, class_weight, ds)
    _start_weights_checked(tree, ds, spec, start_tree)
    chosen = None
    if cv is not None:
        chosen = _cross_validate(ds, spec, cv, C_values, scoring, test_size=test_size, seed=seed, solver=solver,
                                 time_limit=time_limit, threads=threads, refine=refine, max_nonzeros=max_nonzeros,
                                 jobs=1 if jobs is None else jobs, smooth_pure_nodes=smooth_pure_nodes)
        spec = replace(spec, C=chosen.best)
    try:
        res = fit(ds, spec, solver=solver, time_limit=time_limit, threads=threads, test_size=test_size,
                  seed=seed, refine=refine, verbose=not quiet, echo=click.echo, keep_incumbent=keep_incumbent,
                  max_nonzeros=max_nonzeros, leave_overrun=True, start_tree=tree, smooth_pure_nodes=smooth_pure_nodes)
    except TimeLimitTooShort as exc:
        if chosen is None:
            raise
        # the final model is the largest: a limit the fold fits took can leave it no time, after the whole CV
        from olctc.cluster.grid import c_text

        raise TimeLimitTooShort(f"the final fit: {exc}; the cross-validation chose C {c_text(chosen.best)}: fit "
                                f"that with --C {c_text(chosen.best)} instead of --cv (no need to cross-validate "
                                "again)") from None
    if chosen is not None:
        res.tree.meta["cv"] = chosen.to_json()
    for line in summary_lines(res.summary):
        click.echo(line)
    _note_cbc_optimum(res.summary["solver"], res.summary["status"])
    save(res.tree, output)
    click.echo(f"tree written to {output}")
    _exit_if_interrupted(res.summary["raw_status"])


def _check_cv_options(cv: int | None, C_values: str | None, scoring: str | None, jobs: int | None) -> None:
    """--C-values and --scoring belong to --cv, and --cv chooses C itself: refuse, before any work, a --C
    that would be silently replaced, or a --C-values taken for nothing."""
    if cv is None:
        given = [(flag, value) for flag, value in (("--C-values", C_values), ("--scoring", scoring),
                                                   ("--jobs", jobs)) if value is not None]
        if given:
            flag, value = given[0]
            # "or give one C with --C" for --scoring or --jobs: followed, it failed again the same way
            way_out = "give one C with --C" if flag == "--C-values" else f"leave out {flag}"
            raise OlctcError(f"{flag} {value} applies to cross-validation only: add --cv K (such as --cv 4) to "
                             f"choose C among --C-values, or {way_out}")
        return
    source = click.get_current_context().get_parameter_source("C")
    if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
        raise OlctcError("--C does not apply with --cv, which chooses C among --C-values (each layer's values; "
                         "the grid is their product): leave out --C, or --cv to fit the C given")
    from olctc.cluster.grid import parse_C_values
    from olctc.cluster.scoring import check_scoring
    from olctc.cv import check_folds, check_jobs

    check_folds(cv)
    if jobs is not None:
        check_jobs(jobs)
    if C_values is not None:
        parse_C_values(C_values)
    if scoring is not None:
        check_scoring(scoring)


def _cross_validate(ds, spec, folds: int, C_values: str | None, scoring: str | None, **kw):
    """fit --cv: choose C, saying what runs and what it found (the CV table, as collect prints it)."""
    from olctc.cluster.grid import c_text
    from olctc.cluster.scoring import SCORINGS, score_table_lines
    from olctc.cv import DEFAULT_C_VALUES, cross_validate, no_choice_error

    scoring = scoring or "balanced_accuracy"
    cv = cross_validate(ds, spec, folds=folds, C_values=C_values or DEFAULT_C_VALUES, scoring=scoring,
                        leave_overrun=True, progress=click.echo, **kw)
    for line in score_table_lines(cv.table, cv.best, scoring):
        click.echo(line)
    for r in cv.fits:
        if r.problem:
            click.echo(f"  fit {r.task + 1} (fold {r.fold}, C {c_text(r.C)}): {r.problem}")
    if cv.best is None:
        raise no_choice_error(cv)
    unproven = cv.not_optimal()
    if unproven:
        click.echo(f"note: {len(unproven)} of the {len(cv.fits)} fold fits are not proven optimal "
                   f"({'/'.join(sorted({str(r.status) for r in unproven}))}): their scores are those of the best "
                   "trees found; a longer --time-limit may change the choice of C")
    if kw["solver"] == "cbc" and len(unproven) < len(cv.fits):
        # CBC_NOTE is said after the final fit; the fold fits' "optimal" weighed in the choice of C already
        click.echo("note: the fold fits CBC called optimal may not be (CBC proves false optima on these models): "
                   "their scores are those of feasible trees; HiGHS (the default) proves its optima")
    wcol = ds.weight_column if ds.weight is not None else None
    weighted = "" if wcol is None else f", points weighted by column {wcol!r}"
    row = cv.best_row()
    assert row is not None  # cv.best is a C of the table
    click.echo(f"best C: {c_text(cv.best)} (mean validation {SCORINGS[scoring][0]} {row['mean']:.4f} "
               f"over {folds} folds{weighted}; cross-validation took {cv.seconds:.1f} s)")
    return cv


#: Said after a CBC solve's result: its "optimal" is not to be trusted on these models (docs/BENCHMARKS.md).
CBC_NOTE = ("note: CBC proves false optima on these models (a worse tree called optimal on 4-5 of 90 small OLCT "
            "instances with olctc's settings, 6-11 for CBC 2.10; python-mip's CBC was wrong on 13 of 21 tiny OCT-H "
            "ones): read its 'optimal' as 'feasible'; HiGHS (the default) and SCIP proved every one")


def _note_cbc_optimum(solver: str, status: str) -> None:
    if solver in ("cbc", "cbc-cli") and status == "optimal":
        click.echo(CBC_NOTE, err=True)


def _result_line(res) -> str:
    from olctc.solve.result import gap_text

    def fmt(v):
        return "-" if v is None else f"{v:.10g}"
    gap = gap_text(res.gap, 4)
    return (f"status {res.status} ({res.solver}: {res.raw_status}), objective {fmt(res.objective)}, "
            f"bound {fmt(res.bound)}, gap {gap}, {res.runtime:.2f} s")


def _register_optional() -> None:
    """Commands that live in their own modules."""
    try:
        from olctc import cli_bench
    except ImportError:
        pass
    else:
        cli.add_command(cli_bench.bench, "bench")
    try:
        from olctc import cli_tree
    except ImportError:
        return
    for name in ("export", "predict", "explain"):
        cmd = getattr(cli_tree, f"{name}_cmd", None) or getattr(cli_tree, name, None)
        if isinstance(cmd, click.Command):
            cli.add_command(cmd, name)
    try:
        from olctc import cli_cluster
    except ImportError:
        return
    for name in ("grid", "collect"):
        cmd = getattr(cli_cluster, f"{name}_cmd", None)
        if isinstance(cmd, click.Command):
            cli.add_command(cmd, name)


def main(argv: list[str] | None = None) -> None:
    """Entry point: bad input prints one line and exits 2, never a traceback."""
    if argv is None:
        _standard_streams_opened()
    interrupts = _Interrupts()
    interrupts.install(imports=argv is None)
    try:
        _run(argv, interrupts)
    except SystemExit as exc:
        if argv is None and (solver_left() or pipes_unblocked()):
            # A solver thread left running (fit's leave_overrun) would still be in the solver library
            # while the interpreter and that library finalise: leave without finalising. After an interrupt
            # that made the pipes non-blocking (solve's exit 130 with its incumbent written), _hard_exit puts
            # their modes back. (every exit of _run is sys.exit with an int code)
            _hard_exit(exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1)
        raise
    finally:
        interrupts.close(restore=argv is not None)


def _run(argv: list[str] | None, interrupts: _Interrupts) -> None:
    import warnings

    hard = argv is None
    if hard and not isinstance(sys.stdout, _ClosedPipeGuard) and sys.stdout is not None:
        sys.stdout = _ClosedPipeGuard(_whole_writes(sys.stdout))
    if hard and not isinstance(sys.stderr, _ClosedPipeGuard) and sys.stderr is not None:
        # notes, progress and errors on stderr: `olctc fit --solver cbc ... 2>&1 | head -1` lost its tree (the
        # CBC note met the closed pipe), and bench stopped after its first run (its progress line did)
        sys.stderr = _ClosedPipeGuard(_whole_writes(sys.stderr))
    try:
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            # matplotlib 3.10 (3.10.3 checked) and older call pyparsing's camelCase names, which pyparsing >= 3.3
            # deprecates with a warning that is also a UserWarning, so shown: not the user's business
            warnings.filterwarnings("ignore", category=DeprecationWarning, module="matplotlib")
            # predict and explain count unseen categories over the whole file, in one note per column
            warnings.filterwarnings("ignore", category=UnseenCategoryWarning)
            _register_optional()
            cli.main(args=argv, prog_name="olctc", standalone_mode=False)
            # An interrupt whose KeyboardInterrupt Python dropped (raised inside a finaliser that the garbage
            # collector ran) let the command go on to its end: still exit 130, never 0, after a SIGTERM.
            check_interrupt()
            sys.stdout.flush()  # here, where a failed write is reported, not at the interpreter's exit
            if hard:
                # The command is done and its files are whole: a signal from here on takes its default action
                # (exit -15), not a KeyboardInterrupt raised on the way out, outside every handler, as a
                # traceback (test_interrupt's export killed at 1.0 of its duration, on a loaded machine).
                interrupts.closing = True
    except (KeyboardInterrupt, click.exceptions.Abort):
        _interrupted(hard, interrupts)
    except click.exceptions.Exit as exc:
        sys.exit(exc.exit_code)
    except Exception as exc:
        # After an interrupt, any error is its consequence: matplotlib's C++ renderer, for one, turns a
        # KeyboardInterrupt raised in a callback into "ValueError: Invalid bounding box".
        if interrupts.fired or _from_interrupt(exc):
            _interrupted(hard, interrupts)
        if isinstance(exc, OlctcError):
            _fail(_named_option(str(exc), sys.argv[1:] if argv is None else argv),
                  getattr(exc, "exit_code", EXIT_BAD_INPUT))
        if isinstance(exc, OSError) and _stdout_failed(exc):
            _fail(f"cannot write standard output: {exc.strerror or exc}")
        if isinstance(exc, MemoryError):  # numpy's says what it could not allocate: worth one line, no traceback
            what = " ".join(str(exc).split()) or "no detail"
            _fail(f"out of memory ({shorten(what, 200)}); free memory or make the job smaller: a smaller --depth or "
                  "fewer rows (compile and fit refuse a model over --max-nonzeros before building it)", 1)
        if isinstance(exc, click.ClickException):
            if isinstance(exc, getattr(click.exceptions, "NoArgsIsHelpError", ())):
                exc.show()  # bare `olctc`: the help text, not an error line
                sys.exit(EXIT_BAD_INPUT)
            # not " ".join(split()): that made a folder named 'a  b.mps' "File 'a b.mps' is a directory", naming
            # no file there; click's messages are one line, and _fail escapes a line break a value brings
            message = exc.format_message()
            if isinstance(exc, click.UsageError) and exc.ctx is not None:
                message += f" (see '{exc.ctx.command_path} --help')"
            _fail(message)
        raise
    sys.exit(0)


if __name__ == "__main__":
    main()
