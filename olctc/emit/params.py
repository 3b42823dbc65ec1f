"""Solver settings: the one table of tolerance and limit parameters, and the files that carry them.

Why the tolerances: the formulations route a point left when its split score is <= 0 and right when it
is >= epsilon = 1e-5, switched by big-M = 100 constraints. A binary accepted as integral at 1 - 1e-6
(the usual default integrality tolerance) relaxes a big-M row by 100 * 1e-6 = 1e-4 > epsilon, so a
solver can route a point to the side it likes for free and report a false optimum (measured: true
optimum 4.437, HiGHS at default tolerances "optimal" 1.664). At 1e-9 the leak is 1e-7 << epsilon, as in
the paper (Gurobi IntFeasTol = 1e-9). Every olctc solve, in process or external, uses ``TIGHT_TOL``.

``PARAM_NAMES`` is the registry: per solver interface, the native name of each setting. Every name was
checked against the program where it is installed here (HiGHS 1.15 CLI and highspy, CBC 2.10.8 and the
cbcbox CBC devel CLI, python-mip 2.0, SCIP 10 through PySCIPOpt, glpsol 5.0, and Gurobi 13, CPLEX 22.2, COPT 8.0
and Xpress 9.9 through their size-limited pip wheels: tests/test_live_commercial.py and
tests/test_live_copt_xpress.py read every file back into them), and
once in older releases (HiGHS 1.7-1.13, SCIP 9.0/9.2, CPLEX 22.1, Gurobi 10-12: tests/test_qa_solver_versions.py).
"""
from __future__ import annotations

import math
import os
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Collection

from olctc.errors import OlctcError, is_integer, is_real, param_error
from olctc.io import atomic_write_text, remove_files, shell_path

#: Integrality and primal feasibility tolerance for every solver. It is also the smallest value Gurobi
#: (IntFeasTol, FeasibilityTol) and CPLEX (simplex feasibility) accept; HiGHS accepts down to 1e-10.
TIGHT_TOL = 1e-9


@dataclass(frozen=True)
class ParamNames:
    """Native names of the settings olctc controls; ``None`` where the interface has no such setting.

    ``integrality``: how far from an integer a value may be and still count as integral.
    ``feasibility``: how far a row or bound may be violated. ``mip_gap``: relative gap at which to stop.
    """

    integrality: str | None
    feasibility: str | None
    time_limit: str | None
    threads: str | None
    mip_gap: str | None


#: interface -> native parameter names. "highs" serves highspy, the HiGHS options file and the HiGHS
#: CLI (the CLI takes tolerances only through --options_file). "python-mip" names Model attributes
#: (the time limit is the ``max_seconds`` argument of ``optimize``). "cbc-cli" and "glpk-cli" are
#: command-line flags. COPT's 1e-9 is the least its IntTol and FeasTol accept; Xpress's controls have no
#: settings file its Python API reads (problem.setControl takes them, in NAME.solvers.txt). SCIP has one
#: feasibility tolerance that also decides integrality (SCIPisFeasIntegral); its LP feasibility tolerance is
#: feastol * numerics/lpfeastolfactor (default 1). SCIP's branch and bound runs on one thread and glpsol is
#: single-threaded. glpsol has no flag for its tolerances: its integrality tolerance stays at GLPK's default
#: 1e-5 (see ``UNTUNABLE``).
#: The commercial solvers: olctc writes their files, and runs them in process through their own Python packages
#: (``olctc.solve.commercial``) where those are installed.
COMMERCIAL_SOLVERS = ("gurobi", "cplex", "copt", "xpress")
PARAM_NAMES: dict[str, ParamNames] = {
    "highs": ParamNames("mip_feasibility_tolerance", "primal_feasibility_tolerance",
                        "time_limit", "threads", "mip_rel_gap"),
    "python-mip": ParamNames("integer_tol", "infeas_tol", "max_seconds", "threads", "max_mip_gap"),
    "cbc-cli": ParamNames("-integerT", "-primalT", "-sec", "-threads", "-ratio"),
    "scip": ParamNames("numerics/feastol", "numerics/feastol", "limits/time", None, "limits/gap"),
    "gurobi": ParamNames("IntFeasTol", "FeasibilityTol", "TimeLimit", "Threads", "MIPGap"),
    "cplex": ParamNames("CPXPARAM_MIP_Tolerances_Integrality", "CPXPARAM_Simplex_Tolerances_Feasibility",
                        "CPXPARAM_TimeLimit", "CPXPARAM_Threads", "CPXPARAM_MIP_Tolerances_MIPGap"),
    "glpk-cli": ParamNames(None, None, "--tmlim", None, "--mipgap"),
    "copt": ParamNames("IntTol", "FeasTol", "TimeLimit", "Threads", "RelGap"),
    # Xpress's controls, as its Python API's problem.setControl takes them (any case)
    "xpress": ParamNames("miptol", "feastol", "timelimit", "threads", "miprelstop"),
}

#: CBC parameters set for every CBC solve, on its command line and through python-mip alike.
#: ``preprocess off``: CBC's integer preprocessing (CglPreProcess) proves false optima on these big-M
#: models at 1e-9 tolerances. On 90 small OLCT instances (24-60 points, depth 2 and 3) the devel CBC of
#: python-mip and cbcbox called trees up to 60% worse than the optimum (HiGHS's, confirmed by SCIP)
#: "optimal" on 14 with it and on 4-5 without (two draws; benchmarks/cbc_false_optima.py). No setting
#: found removes the rest, hence HiGHS is fit's default.
#: ``increment``: the devel CBC's default cutoff increment (1e-4) skips improvements smaller than that and
#: called a tree 1.2e-6 (relative) worse than the optimum "optimal" at a gap of 0.
CBC_PARAMETERS: dict[str, str] = {"preprocess": "off", "increment": "1e-09"}

#: Relative slack of CBC's cutoff above the start's objective (``cbc_cutoff``): the start read back from a
#: file, and CBC's own evaluation of it (the continuous columns solved again), may differ from olctc's by rounding
START_CUTOFF_SLACK = 1e-6


def cbc_cutoff(start_objective: float) -> float:
    """CBC's cutoff for a MIP start of this objective, in process and on its command line (``-cutoff``).

    With its preprocessing off (CBC_PARAMETERS), CBC devel evaluates a start ("MIPStart provided solution with
    cost 3718.84") but searches as if it had none, from a first solution of its own ("Reduced search"): a later
    solution better than that one replaced the start, worse as it was (parkinsons, C = 100: 5501.1 returned at
    60 s in process, 4525.7 at 90 s by the program, for starts of 3718.8 and 3416.5). Searching below the
    start's objective keeps only better trees, and CBC then searches from the start.
    """
    return start_objective + START_CUTOFF_SLACK * max(1.0, abs(start_objective))

#: Settings that keep a solver clear of its own bugs: interface -> {native name: value}. Three of SCIP's
#: primal heuristics corrupt its heap on the L2 presets' MIQPs: glibc aborts the process ("malloc(): invalid
#: size", "free(): invalid pointer") or optimize() hangs for good. Found by bisecting SCIP's 43 heuristics on
#: the bench runs that died: ``mpec`` on SFS-MARGOT, tic-tac-toe (authors' split, seed 0; SCIP 9.2.4 and
#: 10.0.2 alike); ``nlpdiving`` on depth-3 MARGOT, wholesale (seed 0; SCIP 10.0.2); ``adaptivediving`` (it
#: runs the diving heuristics in turn) on `large`'s MARGOT, svmguide1 (seed 0, C = 0.5; SCIP 10.0.2, an abort
#: 42 s into the fit in 3 of 3 runs, none in 2 without it). Those svmguide1 runs, and phishing's (whose
#: bisection named ``completesol``), gave SCIP its start as a partial solution, which completesol completes
#: in a sub-SCIP; olctc now gives the start whole (``olctc.solve.scip``), and both ran clean with
#: adaptivediving on (one run each): it stays off for starts SCIP must complete (a start file read by SCIP
#: without the helper's value). CBC's command line gets CBC_PARAMETERS here.
#: ``limits/absgap``: SCIP's default absolute gap is 0, and on a MIQP whose bound and incumbent differ by
#: round-off (3e-10 at an objective of 5.6: margot depth 3, 4 points, score columns; found by fuzzing) it
#: branches until the time limit, or for ever without one; 1e-6 is HiGHS's default mip_abs_gap.
#: ``misc/usesymmetry``: SCIP's symmetry detection (nauty, in presolve) checks no clock, and duplicate points
#: make MARGOT's MIQP hugely symmetric: on `large`'s phishing (8,844 points, 5,123 distinct; seed 0, C = 0.5)
#: one call ran 257 s of a fit limited to 60 s (SCIP 10.0.2; 30 s and 120 s limits alike), on 3,000 points of
#: 20 distinct rows 70 s of 5 s. Without it those stop at 60 s and 5 s with the same tree; at 60 s on MARGOT of
#: haberman, heart, wholesale, parkinsons and breast the bound is within run-to-run noise of SCIP's default
#: (benchmarks/scip_symmetry.py, docs/BENCHMARKS.md).
#: ``propagating/symmetry/nautymaxlevel`` = 100 did as well on phishing, but SCIP 9 has no such parameter.
#: ``presolve_rule_off`` bit 14 (``kPresolveRuleSparsify``): HiGHS 1.16's MIP presolve never returned from
#: HPresolve::sparsify on the score-variable form of a6a, depth 2 (olctc fit's default; killed after 15
#: minutes at --time-limit 15): sparsify uses each equality row to cancel nonzeros in others and checks
#: no time limit, and the score form has 3 equality rows per point. Without it the same fit returns in
#: 56 s (w5a: 112 s at 60 s, in the root LP's presolve, also unchecked; benchmarks in docs/BENCHMARKS.md).
HIGHS_SPARSIFY_OFF = 1 << 14
#: ``presolve_rule_off`` bits 12 (Aggregator) and 13 (Parallel rows and columns): HiGHS's MIP presolve cut the
#: optimum off OCT-H models and HiGHS proved a worse tree optimal: 9 points of one feature, score-variable form
#: (fit's default), depth 1, optimum 2.5 (Gurobi, CPLEX, SCIP; HiGHS without presolve), HiGHS 1.16 "optimal" at
#: 3.5 with its bound at 3.5 (HiGHS 1.15 too). Random OCT-H models of 5-11 points (found by fuzzing), HiGHS
#: against HiGHS without presolve: score form, 1 of 500 wrong with both rules on, 1 with Parallel rows and
#: columns off (3.0 "optimal" against 2.5), none with the Aggregator or both off; paper form, 1 of 400 with both
#: on, 2 with the Aggregator off ("optimal" at 20 with its bound at 10), none with both off. No OLCT model of 200
#: was wrong. Cost: docs/BENCHMARKS.md.
HIGHS_AGGREGATOR_PARALLEL_OFF = (1 << 12) | (1 << 13)
HIGHS_PRESOLVE_OFF = HIGHS_SPARSIFY_OFF | HIGHS_AGGREGATOR_PARALLEL_OFF
#: The bit numbers of presolve_rule_off moved between releases (measured with the highsbox CLIs, which list
#: the rules an options file turns off): bit 14 is Sparsify from HiGHS 1.12 on, Probing in 1.11 (whose
#: Sparsify had no bit), and no rule at all in 1.7 to 1.10 (accepted, no effect); bits 12 and 13 are the
#: Aggregator and Parallel rows and columns in all of them. No one value turns off Sparsify and nothing else in
#: every release, so the options file keeps 1.12's and says what 1.11 needs, after what each bit is for.
HIGHS_PRESOLVE_NOTE = (f"presolve_rule_off = {HIGHS_PRESOLVE_OFF} turns off three presolve rules: bits 12 and 13 "
                       "(4096, 8192), the Aggregator and Parallel rows and columns in every release, with which "
                       "HiGHS cut the optimum off OCT-H models and proved worse trees optimal; bit 14 (16384), "
                       "Sparsify in HiGHS 1.12 and newer, whose step checks no time limit (it never returned on "
                       "large score-form models). But bit 14 is Probing in HiGHS 1.11: with HiGHS 1.11 write "
                       f"presolve_rule_off = {HIGHS_AGGREGATOR_PARALLEL_OFF} (bits 12 and 13 only; HiGHS 1.10 and "
                       "older have no rule 14 and ignore it)")
#: ``mipaddcutoff``: Xpress prunes every node that cannot beat the incumbent by this much (default -1e-5, an
#: absolute amount), so its "optimal" may be up to 1e-5 worse than the optimum: on a depth-1 HFS-MARGOT model of
#: 10 random points, 4.1306058 "optimal" with a bound exactly 1e-5 below, where SCIP's optimum is 4.1306010
#: (Xpress 9.9.1; at -1e-6, 4.1306010). -1e-6 is the absolute gap HiGHS stops at by default and SCIP is given.
XPRESS_ADD_CUTOFF = -1e-6
WORKAROUNDS: dict[str, dict[str, float | int | str]] = {
    "highs": {"presolve_rule_off": HIGHS_PRESOLVE_OFF},
    "scip": {"heuristics/mpec/freq": -1, "heuristics/nlpdiving/freq": -1, "heuristics/adaptivediving/freq": -1,
             "limits/absgap": 1e-6, "misc/usesymmetry": 0},
    "cbc-cli": {f"-{name}": value for name, value in CBC_PARAMETERS.items()},
    "xpress": {"mipaddcutoff": XPRESS_ADD_CUTOFF},
}

#: Interfaces that cannot be given tight tolerances, and why (shown to the user when they are used).
UNTUNABLE: dict[str, str] = {
    "glpk-cli": "glpsol has no command-line flag for its tolerances, so it keeps GLPK's integrality "
                "tolerance 1e-5, which lets big-M = 100 rows leak by up to 1e-3 > epsilon = 1e-5: "
                "treat a glpk-cli optimum as approximate",
}


def solver_settings(interface: str, *, time_limit: float | None = None, threads: int | None = None,
                    mip_gap: float | None = None) -> dict[str, float | int | str]:
    """The settings for one interface as ``{native name: value}``: tight tolerances plus the given limits.

    Parameters
    ----------
    interface : a key of ``PARAM_NAMES``.
    time_limit, threads, mip_gap : left out when None, or when the interface has no such setting.
    """
    if interface not in PARAM_NAMES:
        raise param_error("interface", f"one of {sorted(PARAM_NAMES)}", interface)
    validate_limits(time_limit=time_limit, threads=threads, mip_gap=mip_gap)
    names = PARAM_NAMES[interface]
    wanted: list[tuple[str | None, float | int | None]] = [
        (names.integrality, TIGHT_TOL), (names.feasibility, TIGHT_TOL),
        (names.time_limit, time_limit), (names.threads, threads), (names.mip_gap, mip_gap)]
    out: dict[str, float | int | str] = {}
    for name, value in wanted:
        if name is not None and value is not None:
            out[name] = value
    out.update(WORKAROUNDS.get(interface, {}))
    if interface == "glpk-cli" and "--tmlim" in out:
        # glpsol rejects a fractional time limit ("Invalid time limit '1.5'"). Rounded down: a limit is the
        # most a run may take, and glpsol overruns its own by 1-2 s (rounded up, solve --time-limit 8 took 10.5 s)
        out["--tmlim"] = max(1, math.floor(float(out["--tmlim"])))
    return out


#: The longest time limit accepted, in seconds (115 days): no solve runs that long, and far larger
#: values break timers (1e10 s overflowed the watchdog of the external solvers).
MAX_TIME_LIMIT = 1e7
#: The most threads accepted: about the most cores a machine has. HiGHS starts one worker per thread
#: before solving and hung at 100000.
MAX_THREADS = 1024


def validate_limits(*, time_limit: float | None = None, threads: int | None = None,
                    mip_gap: float | None = None, cli: bool = False, unlimited: bool = True) -> None:
    """OlctcError unless the time limit is a number of seconds in (0, MAX_TIME_LIMIT], the thread count
    an integer in [1, MAX_THREADS] and the gap in [0, 1); None means no limit / the solver's default.

    ``cli``: the values came from command options, which the message names too (``--time-limit``).
    ``unlimited``: the caller takes None for no limit (grid's default is 600 s, collect's the grid's).
    """
    def real(v: object) -> bool:
        try:
            return is_real(v) and math.isfinite(float(v))
        except OverflowError:  # a Python int beyond float64 (10**400)
            return False

    def fail(name: str, expected: str, got: object) -> OlctcError:
        return param_error(name, expected, got, option=f"--{name.replace('_', '-')}" if cli else None)

    if time_limit is not None and not (real(time_limit) and 0 < time_limit <= MAX_TIME_LIMIT):
        rest = ("; leave the option out for no limit" if cli else "; pass None for no limit") if unlimited else ""
        raise fail("time_limit", f"a positive number of seconds, at most 1e7 (115 days{rest})", time_limit)
    if threads is not None and not (is_integer(threads) and 1 <= threads <= MAX_THREADS):
        raise fail("threads", f"an integer from 1 to {MAX_THREADS} (more threads than cores only slow a "
                              "solver down)", threads)
    if mip_gap is not None and not (real(mip_gap) and 0 <= mip_gap < 1):
        raise fail("mip_gap", "a relative gap in [0, 1)", mip_gap)


def format_value(value: float | int | str) -> str:
    """A number as solvers' parsers accept it (``1e-09``, ``60``, ``0.5``); a word as it is."""
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return str(value)
    return str(int(value)) if float(value).is_integer() and abs(value) < 1e15 else repr(float(value))


def cbc_args(*, time_limit: float | None = None, threads: int | None = None,
             mip_gap: float | None = None) -> list[str]:
    """The CBC command-line flags as a list (options go between the model file and ``-solve``)."""
    out: list[str] = []
    for flag, value in solver_settings("cbc-cli", time_limit=time_limit, threads=threads,
                                       mip_gap=mip_gap).items():
        out += [flag, format_value(value)]
    return out


def glpk_args(*, time_limit: float | None = None, mip_gap: float | None = None,
              model_format: str = "mps") -> list[str]:
    """The glpsol flags for a model file of ``model_format`` ("mps" or "lp") and the limits it supports
    (it has no tolerance or thread flags)."""
    if model_format not in GLPK_FORMAT_FLAGS:
        raise param_error("model_format", f"one of {sorted(GLPK_FORMAT_FLAGS)}", model_format)
    out: list[str] = list(GLPK_FORMAT_FLAGS[model_format])
    for flag, value in solver_settings("glpk-cli", time_limit=time_limit, mip_gap=mip_gap).items():
        out += [flag, format_value(value)]
    return out


#: glpsol reads free MPS unless told otherwise (its --mps means fixed columns) and ignores the suffix.
GLPK_FORMAT_FLAGS: dict[str, tuple[str, ...]] = {"mps": (), "lp": ("--lp",)}


def highs_options_text(*, time_limit: float | None = None, threads: int | None = None,
                       mip_gap: float | None = None, bit_14_is_sparsify: bool = True) -> str:
    """A HiGHS options file (``key = value`` lines), for ``highs --options_file`` or ``Highs.readOptions``.

    ``bit_14_is_sparsify=False``: presolve_rule_off without bit 14, for a HiGHS known to be older than 1.12
    (Probing in 1.11, no rule before)."""
    lines = ["# olctc: tight tolerances so that big-M rows cannot leak across epsilon"]
    for k, v in solver_settings("highs", time_limit=time_limit, threads=threads, mip_gap=mip_gap).items():
        if k == "presolve_rule_off":
            if not bit_14_is_sparsify:
                v = int(v) & ~HIGHS_SPARSIFY_OFF
            elif v == HIGHS_PRESOLVE_OFF:  # what the note explains (a test may set other WORKAROUNDS)
                lines += [f"# {line}" for line in textwrap.wrap(HIGHS_PRESOLVE_NOTE, 100)]  # HiGHS skips '#' lines
        lines.append(f"{k} = {format_value(v)}")
    return "\n".join(lines) + "\n"


#: interface -> (the first line, a comment, of its settings file; what separates a name from its value). Every
#: one skips '#' lines. CPLEX's optional "CPLEX Parameter File Version" header warns when it names another
#: version, so it is left out; COPT's readParam reads the 'Name value' lines its writeParam writes (8.0.7).
SETTINGS_FILE_FORM: dict[str, tuple[str, str]] = {
    "scip": ("# olctc: SCIP settings (scip -c 'set load <this file>' or Model.readParams)", " = "),
    "gurobi": ("# olctc: Gurobi PRM file (model.read('<this file>') or GRBreadparams)", " "),
    "cplex": ("# olctc: CPLEX PRM file (cplex.parameters.read_file('<this file>') or CPXreadcopyparam)", " "),
    "copt": ("# olctc: COPT parameter file (Model.readParam('<this file>'))", " "),
}


def _settings_text(interface: str, *, time_limit: float | None = None, threads: int | None = None,
                   mip_gap: float | None = None) -> str:
    """A settings file of ``SETTINGS_FILE_FORM``'s kind: its comment, then one setting a line."""
    head, sep = SETTINGS_FILE_FORM[interface]
    settings = solver_settings(interface, time_limit=time_limit, threads=threads, mip_gap=mip_gap)
    return "\n".join([head] + [f"{k}{sep}{format_value(v)}" for k, v in settings.items()]) + "\n"


def xpress_settings(*, time_limit: float | None = None, threads: int | None = None,
                    mip_gap: float | None = None) -> dict[str, float | int | str]:
    """Xpress's controls in the order ``problem.setControl`` must get them."""
    settings = solver_settings("xpress", time_limit=time_limit, threads=threads, mip_gap=mip_gap)
    # feastol first: Xpress sets the controls in the dict's order and refuses a miptol below the feastol of the
    # moment ("?710 Warning: MIPTOL (1.e-9) must not be less than FEASTOL (1.e-6)": miptol kept its 5e-6)
    feas = PARAM_NAMES["xpress"].feasibility
    return {feas: settings.pop(feas), **settings} if feas in settings else settings


def xpress_controls(*, time_limit: float | None = None, threads: int | None = None,
                    mip_gap: float | None = None) -> str:
    """Xpress's settings as the Python dict literal ``problem.setControl`` takes (Xpress has no settings file
    its Python API reads, so NAME.solvers.txt gives them in the call)."""
    settings = xpress_settings(time_limit=time_limit, threads=threads, mip_gap=mip_gap)
    return "{" + ", ".join(f"{k!r}: {format_value(v)}" for k, v in settings.items()) + "}"


def _cbc_text(*, time_limit: float | None = None, threads: int | None = None,
              mip_gap: float | None = None) -> str:
    return " ".join(cbc_args(time_limit=time_limit, threads=threads, mip_gap=mip_gap)) + "\n"


def _glpk_text(model: str, time_limit: float | None = None, threads: int | None = None,
               mip_gap: float | None = None) -> str:
    return " ".join(glpk_args(time_limit=time_limit, mip_gap=mip_gap, model_format=_format(model))) + "\n"


def _format(model: str) -> str:
    return model.rsplit(".", 1)[-1].lower()


def scip_word(name: str) -> str:
    """``name`` as one word of SCIP's shell: its dialog splits a line at spaces, and reads a word in double
    quotes as it is, but for \\" and \\\\ (src/scip/dialog.c, SCIPdialoghdlrGetWord)."""
    if name and not any(c.isspace() or c in "\"'\\" for c in name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _readme_text(model: str, starts: bool = False, quadratic: bool = False, *, time_limit: float | None = None,
                 threads: int | None = None, mip_gap: float | None = None,
                 solvers: Collection[str] | None = None, start_objective: float | None = None) -> str:
    """Every solver's command line for the model file ``model`` (a name in its folder). HiGHS, CBC, SCIP,
    Gurobi and CPLEX tell MPS from LP by the suffix; glpsol needs a flag (``GLPK_FORMAT_FLAGS``).
    A ``quadratic`` model (MIQP) lists the solvers that solve it only; ``solvers``, those only.
    ``start_objective``: the MIP start's objective, CBC's cutoff (``cbc_cutoff``)."""
    from olctc.emit.start import start_filename

    stem = model.rsplit(".", 1)[0]
    q = shell_path  # one shell word for a name with spaces, ./ before a leading "-"
    cbc = " ".join(cbc_args(time_limit=time_limit, threads=threads, mip_gap=mip_gap))
    glpk = " ".join(glpk_args(time_limit=time_limit, mip_gap=mip_gap,
                              model_format=_format(model)))
    commands = {
        "highs": [f"  HiGHS:  highs --model_file {q(model)} --options_file {q(stem + '.highs.opt')} "
                  f"--solution_file {q(stem + '.highs.sol')}",
                  f"          (HiGHS 1.11 only: set presolve_rule_off = {HIGHS_AGGREGATOR_PARALLEL_OFF} in "
                  f"{stem}.highs.opt: its bit 14 (16384)",
                  "          is Sparsify in HiGHS 1.12 and newer but Probing in 1.11)"],
        "cbc": [f"  CBC:    cbc {q(model)} {cbc} -solve -solu {q(stem + '.cbc.sol')}   (flags also in {stem}.cbc.args;",
                "          keep them between the model file and -solve; CBC proves false optima on these models",
                "          even so: treat its 'optimal' as 'feasible')"],
        "scip": ["  SCIP:   scip -c " + q(f"set load {scip_word(stem + '.scip.set')} read {scip_word(model)} optimize "
                                       f"write solution {scip_word(stem + '.scip.sol')} quit")],
        "gurobi": [f"  Gurobi: m = gurobipy.read({model!r}); m.read({stem + '.gurobi.prm'!r}); m.optimize()"],
        "cplex": [f"  CPLEX:  c = cplex.Cplex({model!r}); c.parameters.read_file({stem + '.cplex.prm'!r}); c.solve()"],
        "glpk": ["  GLPK:   " + " ".join(filter(None, ["glpsol", q(model), glpk, "-w", q(stem + ".glpk.sol")]))
                 + (f"   (flags also in {stem}.glpk.args)" if glpk else ""),  # an MPS model needs none
                 f"          ({UNTUNABLE['glpk-cli']})"],
        "copt": [f"  COPT:   m = coptpy.Envr().createModel(); m.read({model!r}); m.readParam({stem + '.copt.par'!r}); "
                 f"m.solve(); m.write({stem + '.copt.sol'!r})"],
        "xpress": [f"  Xpress: p = xpress.problem(); p.readProb({model!r}); p.setControl("
                   f"{xpress_controls(time_limit=time_limit, threads=threads, mip_gap=mip_gap)}); p.optimize(); "
                   f"p.writeSlxSol({stem + '.xpress.slx'!r}, 'x')",
                   "          (Xpress reads no settings file: the controls are in the call; flag 'x' writes each value",
                   "          exactly, as its double's bits in hex, where the default prints 16 digits)"],
    }
    use = [k for k in commands if not (quadratic and k in LINEAR_ONLY_SOLVERS) and (solvers is None or k in solvers)]
    lines = [f"Solver settings for {model} (integrality and feasibility tolerance {TIGHT_TOL:g}; the",
             "big-M rows need them: at default tolerances solvers report false optima)."]
    lines += [line for k in use for line in commands[k]]
    if time_limit is None:  # the first thing a cluster user adds, in each program's own words
        flags = {"highs": "HiGHS --time_limit S", "cbc": "CBC -timeMode elapsed -sec S (before -solve)",
                 "scip": "SCIP set limits time S (before optimize)", "gurobi": "Gurobi m.Params.TimeLimit = S",
                 # read_file resets every parameter the file does not set: a limit set before it is lost
                 "cplex": "CPLEX c.parameters.timelimit.set(S) (after read_file)",
                 "glpk": "glpsol --tmlim S (whole seconds)",
                 "copt": "COPT m.setParam('TimeLimit', S) (after readParam)",
                 "xpress": "Xpress 'timelimit': S in setControl's dict"}
        lines.append("  No time limit is set above; add " + ", ".join(flags[k] for k in use)
                     + " (docs/FORMATS.md section 7).")
    if solvers is not None:
        lines.append("  (written for these solvers only: the other solvers' files were left out)")
    elif quadratic:
        lines.append("  (HiGHS, CBC and GLPK do not solve this model: its objective is quadratic, a MIQP, which "
                     "HiGHS refuses, glpsol cannot read and CBC calls infeasible or solves inexactly)")
    if starts:
        def start(solver: str) -> str:
            return start_filename(stem, solver)

        reads = {
            "highs": f"  HiGHS:  --read_solution_file {q(start('highs'))}   (before --solution_file)",
            "cbc": (f"  CBC:    -mips {q(start('cbc'))}   (right after the model file)" if start_objective is None
                    else f"  CBC:    -mips {q(start('cbc'))} -cutoff {format_value(cbc_cutoff(start_objective))}   "
                         "(right after the model file; the cutoff, the start's objective, keeps CBC from returning "
                         "a tree worse than the start)"),
            "scip": f"  SCIP:   read {scip_word(start('scip'))}   (after read {scip_word(model)})",
            "gurobi": f"  Gurobi: m.read({start('gurobi')!r})   (before m.optimize())",
            "cplex": f"  CPLEX:  c.MIP_starts.read({start('cplex')!r})   (before c.solve())",
            "glpk": "  GLPK:   (glpsol takes no MIP start)",
            # COPT reads Gurobi's MST layout as it is (measured, 8.0.7)
            "copt": f"  COPT:   m.readMst({start('copt')!r})   (before m.solve())",
            "xpress": f"  Xpress: p.readSlxSol({start('xpress')!r})   (before p.optimize())",
        }
        lines += ["", "The warm start (olctc's MIP start, a feasible tree to improve on), added to the commands above:"]
        lines += [reads[k] for k in use]
    return "\n".join(lines + [""])


#: file suffix -> writer of its text, given the model file's name. One entry per external solver plus a
#: README with command lines.
PARAM_FILES = {
    "highs.opt": lambda model, starts, quadratic, **kw: highs_options_text(**kw),
    "scip.set": lambda model, starts, quadratic, **kw: _settings_text("scip", **kw),
    "gurobi.prm": lambda model, starts, quadratic, **kw: _settings_text("gurobi", **kw),
    "cplex.prm": lambda model, starts, quadratic, **kw: _settings_text("cplex", **kw),
    "cbc.args": lambda model, starts, quadratic, **kw: _cbc_text(**kw),
    "glpk.args": lambda model, starts, quadratic, **kw: _glpk_text(model, **kw),
    "copt.par": lambda model, starts, quadratic, **kw: _settings_text("copt", **kw),
    "solvers.txt": lambda model, starts, quadratic, **kw: _readme_text(model, starts, quadratic, **kw),
}

#: The solvers ``--solvers`` picks from, each with its settings file (every set has ``solvers.txt`` too);
#: Xpress has none (``xpress_controls``).
SOLVER_FILES: dict[str, str | None] = {"highs": "highs.opt", "scip": "scip.set", "gurobi": "gurobi.prm",
                                       "cplex": "cplex.prm", "cbc": "cbc.args", "glpk": "glpk.args",
                                       "copt": "copt.par", "xpress": None}

#: The solvers that do not solve a quadratic objective (measured: HiGHS refuses a MIQP, glpsol cannot read
#: QUADOBJ, CBC 2.10 calls a feasible MARGOT model infeasible and CBC devel's optimum is not its values'):
#: a MIQP gets no settings or MIP-start file for them.
LINEAR_ONLY_SOLVERS = {"highs": "highs.opt", "cbc": "cbc.args", "glpk": "glpk.args"}

#: The suffixes of the model files these settings go with, compared in lower case (compile writes NAME.MPS
#: as asked; it refuses NAME.LP, which CBC would not read as LP).
MODEL_SUFFIXES = (".mps", ".lp")


def check_solvers(solvers: str | Collection[str] | None, quadratic: bool = False, *,
                  option: str | None = None) -> tuple[str, ...] | None:
    """``solvers`` (a comma list or names) as a tuple in ``SOLVER_FILES`` order, checked: known names, at
    least one, and for a ``quadratic`` model (MIQP) solvers that solve one. None stays None (every solver)."""
    if solvers is None:
        return None
    if not isinstance(solvers, (str, list, tuple, set, frozenset)):  # 5: "'int' object is not iterable"
        raise param_error("solvers", f"a comma list of {', '.join(SOLVER_FILES)}", solvers, option)
    given = solvers.split(",") if isinstance(solvers, str) else list(solvers)
    names = [str(s).strip().lower() for s in given]
    unknown = [s for s, n in zip(given, names) if n not in SOLVER_FILES]
    if unknown or not names:
        raise param_error("solvers", f"a comma list of {', '.join(SOLVER_FILES)}", unknown[0] if unknown else solvers,
                          option)
    linear_only = [n for n in names if quadratic and n in LINEAR_ONLY_SOLVERS]
    if linear_only:
        can = ", ".join(n for n in SOLVER_FILES if n not in LINEAR_ONLY_SOLVERS)
        raise OlctcError(f"{'--solvers' if option else 'solvers'}: {linear_only[0]} does not solve this model, whose "
                         f"objective is quadratic (a MIQP); pick among {can}")
    return tuple(n for n in SOLVER_FILES if n in names)


def write_param_files(folder: str | os.PathLike[str], stem: str, *, model: str | None = None,
                      time_limit: float | None = None, threads: int | None = None, mip_gap: float | None = None,
                      starts: bool = False, quadratic: bool = False,
                      solvers: Collection[str] | None = None, start_objective: float | None = None) -> list[Path]:
    """Write the solver settings files beside a model ``folder/stem.mps`` or ``folder/stem.lp``.

    Parameters
    ----------
    folder : existing folder of the model.
    stem : model file name without extension; files are ``stem.<suffix>`` for each suffix of
        ``PARAM_FILES`` (``stem.highs.opt``, ``stem.scip.set``, ``stem.gurobi.prm``, ``stem.cplex.prm``,
        ``stem.cbc.args``, ``stem.glpk.args``, ``stem.copt.par``, ``stem.solvers.txt``).
    model : the model file's name, ``stem.mps`` or ``stem.lp``: the commands in ``stem.solvers.txt``
        and the glpsol flags read it as what it is. Default ``stem.mps``.
    time_limit, threads, mip_gap : optional limits written where the solver supports them.
    starts : whether MIP-start files (``olctc.emit.start.start_filename``) sit beside the model:
        ``stem.solvers.txt`` then shows how each solver reads its start.
    quadratic : whether the model is a MIQP: then only the solvers that solve one get files
        (``LINEAR_ONLY_SOLVERS`` do not).
    solvers : the solvers that get files (``check_solvers``), and the only ones ``stem.solvers.txt`` lists;
        default every one.
    start_objective : the MIP start's objective, when ``starts``: ``stem.solvers.txt``'s CBC line gives it as
        CBC's cutoff (``cbc_cutoff``).

    Returns
    -------
    The paths written, in ``PARAM_FILES`` order.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise OlctcError(f"cannot write solver settings: folder {folder} does not exist")
    if not stem or "/" in stem or os.sep in stem:
        raise param_error("stem", "a file name without folder", stem)
    validate_limits(time_limit=time_limit, threads=threads, mip_gap=mip_gap)
    if model is None:
        model = f"{stem}.mps"
    elif not (isinstance(model, str) and model[: len(stem) + 1] == stem + "."
              and model[len(stem):].lower() in MODEL_SUFFIXES):
        raise param_error("model", f"the model file's name, {stem}.mps or {stem}.lp", model)
    solvers = check_solvers(solvers, quadratic)
    paths = param_file_paths(folder, stem, quadratic, solvers)
    try:
        for path in paths:
            suffix = path.name[len(stem) + 1:]
            listed = {"solvers": solvers, "start_objective": start_objective} if suffix == "solvers.txt" else {}
            atomic_write_text(path, PARAM_FILES[suffix](model, starts, quadratic, time_limit=time_limit,
                                                        threads=threads, mip_gap=mip_gap, **listed))
    except BaseException:
        remove_files(paths)  # all or none: an interrupt between two files must not leave some
        raise
    return paths


def param_file_paths(folder: str | os.PathLike[str], stem: str, quadratic: bool = False,
                     solvers: Collection[str] | None = None) -> list[Path]:
    """The files ``write_param_files`` writes, in ``PARAM_FILES`` order (all of them for a linear model and
    every solver)."""
    skip = set(LINEAR_ONLY_SOLVERS.values()) if quadratic else set()
    if solvers is not None:
        skip |= {suffix for name, suffix in SOLVER_FILES.items() if name not in solvers and suffix is not None}
    return [Path(folder) / f"{stem}.{suffix}" for suffix in PARAM_FILES if suffix not in skip]
