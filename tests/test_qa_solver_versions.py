"""Older solver releases, as a cluster has them: their solution files decode, and the parameter files olctc
writes say what an older release needs.

Measured once (2026-11) in throwaway venvs, one per release, on every preset at depth 1 and 2, MPS and LP,
with olctc's parameter file and MIP start: HiGHS 1.7.2, 1.9.0, 1.11.0, 1.13.1 (highspy and the highsbox CLI),
SCIP 9.0 and 9.2 (pyscipopt 5.0.1, 5.7.1), CPLEX 22.1.1 and 22.1.2 (cplex 20.1.0.5, 22.1.2.1) and cbcbox 2.901's
CBC read every file, accepted the start and reached the current optimum; gurobipy 10-12 only read the .prm (their
bundled licences have expired). Their solution files are kept in tests/data/solvers/samples (README.txt says
which release and command wrote each); these tests need none of those releases.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import cli_main

from olctc.emit.params import HIGHS_PRESOLVE_OFF, highs_options_text, solver_settings, write_param_files
from olctc.read import read_solution

SAMPLES = Path(__file__).parent / "data" / "solvers" / "samples"
OPT = {"x": 4.0, "y": 3.0, "z": 1.0, "v": 3.0, "w": 2.0, "u": 0.0}  # model.mps's optimum, objective -21.5

# file -> (solver, status, objective, omits_zeros, digits, number of values)
OLD_FILES = {
    "highs_1.7_solution.sol": ("highs", "optimal", -21.5, False, None, 6),
    "highs_1.7_solution_style1.sol": ("highs", "optimal", -21.5, False, 6, 6),
    "highs_1.7_solution_style4.sol": ("highs", "optimal", -21.5, True, None, 5),
    "scip_9.0_solution.sol": ("scip", "feasible", -21.5, True, None, 5),
    "cplex_22.1.1_solution.sol": ("cplex", "optimal", -21.5, False, None, 6),
}


@pytest.mark.parametrize("name", sorted(OLD_FILES))
def test_an_older_release_s_solution_of_model_mps_reads_exactly(name: str) -> None:
    solver, status, objective, omits_zeros, digits, count = OLD_FILES[name]
    sol = read_solution(SAMPLES / name)
    assert (sol.solver, sol.status, sol.objective) == (solver, status, objective)
    assert (sol.omits_zeros, sol.digits, sol.bound) == (omits_zeros, digits, None)  # no bound before HiGHS 1.16
    assert len(sol.values) == count
    assert {k: sol.values.get(k, 0.0) for k in OPT} == OPT


def test_highs_1_7_files_without_a_solution_or_stopped_by_the_time_limit() -> None:
    none = read_solution(SAMPLES / "highs_1.7_infeasible.sol")
    assert (none.status, none.raw_status, none.objective, none.values) == ("infeasible", "Infeasible", None, {})
    stopped = read_solution(SAMPLES / "highs_1.7_timelimit_incumbent.sol")
    assert (stopped.status, stopped.raw_status) == ("feasible", "Time limit reached")
    assert stopped.objective == -5542.000000000002 and len(stopped.values) == 250
    assert [stopped.values[f"x{i}"] for i in range(6)] == [1.0, 0.0, 0.0, 1.0, 1.0, 0.0]


def test_scip_9_0_without_a_solution() -> None:
    sol = read_solution(SAMPLES / "scip_9.0_infeasible.sol")
    assert (sol.status, sol.objective, sol.values) == ("no_solution", None, {})


# olctc's own files solved by an older release (olctc compile heart16.csv --depth 1, README.txt): the solution
# file, the true objective decode prints, and the optimum of today's HiGHS 1.16 / SCIP 10 on the same model.
DECODES = [
    ("highs_1.7_heart16_olct_d1.sol", "heart16_olct_d1", "highs says optimal (Optimal)", 5.9247138378738,
     {"w_0_0": -0.022594495373, "b_0": -0.8020754644886, "z_0_0": 1.0}, 5.924713837873786),
    ("scip_9.0_heart16_margot_d1.sol", "heart16_margot_d1", "scip says feasible", 6.20183230711347,
     {"z_0_14": 1.0, "qmatrixvar": 1.19883997864236}, 6.201832308336446),
    # Xpress 9.9.1 and COPT 8.0.7 (size-limited pip wheels; EXTRA.txt), at olctc's tolerances (1e-9)
    ("xpress_9.9_heart16_olct_d1.slx", "heart16_olct_d1", "an Xpress .slx file, which carries no status", None,
     {"w_0_0": -0.02259449537299824, "b_0": -0.8020754644886215, "z_0_0": 1.0}, 5.924713837873786),
    ("copt_8.0_heart16_olct_d1.sol", "heart16_olct_d1", "a COPT .sol file, which carries no status",
     5.924713837873781, {"w_0_0": -0.022594495372998093, "z_0_0": 1.0}, 5.924713837873786),
    ("xpress_9.9_heart16_margot_d1.slx", "heart16_margot_d1", "an Xpress .slx file, which carries no status", None,
     {"w_0_0": -0.213316853604365, "z_0_0": 1.0}, 6.201832308336446),
    ("copt_8.0_heart16_margot_d1.sol", "heart16_margot_d1", "a COPT .sol file, which carries no status",
     6.201832322149966, {"w_0_0": -0.21331685432437286, "z_0_0": 1.0}, 6.201832308336446),
]


@pytest.mark.parametrize("name, stem, said, objective, values, optimum", DECODES, ids=[d[0] for d in DECODES])
def test_decode_turns_an_older_release_s_solution_into_the_optimal_tree(name, stem, said, objective, values, optimum,
                                                                       tmp_path, capsys) -> None:
    sol = read_solution(SAMPLES / name)
    assert sol.objective == objective
    assert {k: sol.values[k] for k in values} == values
    code, out, err = cli_main(["decode", SAMPLES / f"{stem}.olctc.json", SAMPLES / name,
                               "--data", SAMPLES / "heart16.csv", "-o", tmp_path / "tree.json"], capsys)
    text = out + err
    assert code == 0, text
    assert f"solution: {said}" in text and "WARNING" not in text, text
    true = float(re.search(r"true objective of the solver's \(w, b\) \(real routing\): (\S+)", text).group(1))
    assert abs(true - optimum) <= 1e-6 * optimum, text
    assert (tmp_path / "tree.json").exists()


def test_highs_options_file_says_what_bit_14_is_in_each_release() -> None:
    """presolve_rule_off = 16384 turns off Sparsify in HiGHS 1.12+, Probing in 1.11, nothing in 1.7-1.10 (the
    highsbox CLIs list the rules a file turns off); no one value fits all, so the file says what 1.11 needs."""
    lines = highs_options_text(time_limit=30, threads=2, mip_gap=1e-4).splitlines()
    at = lines.index(f"presolve_rule_off = {HIGHS_PRESOLVE_OFF}")
    first = at
    while first > 1 and lines[first - 1].startswith("# "):  # the comment right above the line (not the header)
        first -= 1
    note = " ".join(line[2:] for line in lines[first:at])
    assert note.startswith(f"presolve_rule_off = {HIGHS_PRESOLVE_OFF} turns off three presolve rules: bits 12 and 13 "
                           "(4096, 8192), the Aggregator and Parallel rows and columns"), lines
    assert "bit 14 (16384), Sparsify in HiGHS 1.12 and newer" in note and "Probing in HiGHS 1.11" in note, lines
    assert "with HiGHS 1.11 write presolve_rule_off = 12288 (bits 12 and 13 only" in note, lines
    assert HIGHS_PRESOLVE_OFF == 4096 + 8192 + 16384
    assert all(line.startswith("# ") or re.fullmatch(r"[a-z_]+ = \S+", line) for line in lines), lines


def test_highs_options_file_with_the_note_still_reads_in_highspy(tmp_path: Path) -> None:
    highspy = pytest.importorskip("highspy")
    path = tmp_path / "m.highs.opt"
    path.write_text(highs_options_text())
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readOptions(str(path)) == highspy.HighsStatus.kOk
    assert h.getOptionValue("presolve_rule_off")[1] == HIGHS_PRESOLVE_OFF
    assert h.getOptionValue("mip_feasibility_tolerance")[1] == 1e-9


def test_solvers_txt_tells_highs_1_11_users_to_delete_the_presolve_line(tmp_path: Path) -> None:
    write_param_files(tmp_path, "m")
    text = (tmp_path / "m.solvers.txt").read_text()
    assert ("(HiGHS 1.11 only: set presolve_rule_off = 12288 in m.highs.opt: its bit 14 (16384)\n"
            "          is Sparsify in HiGHS 1.12 and newer but Probing in 1.11)") in text, text
    write_param_files(tmp_path, "q", quadratic=True)  # no HiGHS for a MIQP: no such line
    assert "presolve_rule_off" not in (tmp_path / "q.solvers.txt").read_text()


#: The parameter names (with every limit set) that the older releases accepted: Gurobi 10.0.3, 11.0.3 and
#: 12.0.3 (Env.readParams on an unstarted Env, the licences having expired; all took their values), SCIP 9.0
#: (Model.readParams: no 'unknown parameter' warning), HiGHS 1.7.2-1.13.1 (readOptions kOk) and CPLEX 22.1.1
#: (parameters.read_file, each value read back). A name added later must be checked in them again.
CHECKED_IN_OLD_RELEASES = {
    "gurobi": {"IntFeasTol", "FeasibilityTol", "TimeLimit", "Threads", "MIPGap"},
    "scip": {"numerics/feastol", "limits/time", "limits/gap", "heuristics/mpec/freq", "heuristics/nlpdiving/freq",
             "limits/absgap", "heuristics/adaptivediving/freq", "misc/usesymmetry"},  # the last two: read by SCIP 9.0
    # (PySCIPOpt 5.0.1)
    "highs": {"mip_feasibility_tolerance", "primal_feasibility_tolerance", "time_limit", "threads", "mip_rel_gap",
              "presolve_rule_off"},
    "cplex": {"CPXPARAM_MIP_Tolerances_Integrality", "CPXPARAM_Simplex_Tolerances_Feasibility", "CPXPARAM_TimeLimit",
              "CPXPARAM_Threads", "CPXPARAM_MIP_Tolerances_MIPGap"},
}


@pytest.mark.parametrize("interface", sorted(CHECKED_IN_OLD_RELEASES))
def test_every_parameter_written_was_accepted_by_the_older_releases(interface: str) -> None:
    written = set(solver_settings(interface, time_limit=60.5, threads=2, mip_gap=0.01))
    assert written <= CHECKED_IN_OLD_RELEASES[interface], written - CHECKED_IN_OLD_RELEASES[interface]


@pytest.mark.parametrize("version, has_bit_14", [("1.11.0", False), ("1.10.0", False), ("1.12.0", True),
                                                 ("1.16.0", True)])
def test_solve_with_highs_cli_leaves_bit_14_out_for_a_highs_before_1_12(tmp_path: Path, version: str,
                                                                       has_bit_14: bool) -> None:
    """olctc solve --solver highs-cli wrote presolve_rule_off = 16384 whatever the program's release, which turned
    off Probing under HiGHS 1.11. A wrapper reports the release and hands the run to the real highsbox HiGHS."""
    import os
    import stat

    highsbox = pytest.importorskip("highsbox")
    from olctc.solve import solve_file

    real = Path(highsbox.highs_bin_path())
    lib = real.resolve().parent.parent / "lib"
    seen = tmp_path / "options.seen"
    wrapper = tmp_path / "highs"
    wrapper.write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = "--version" ]; then echo "HiGHS version {version} Githash 0000000."; exit 0; fi\n'
        'prev=""; for a in "$@"; do [ "$prev" = "--options_file" ] && cp "$a" ' f"{seen}" '; prev="$a"; done\n'
        f'LD_LIBRARY_PATH="{lib}${{LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}}" exec "{real}" "$@"\n')
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    res = solve_file(SAMPLES / "model.mps", "highs-cli", solver_path=wrapper, verbose=False,
                     solution_path=tmp_path / "m.highs.sol")
    assert res.status == "optimal" and res.objective == pytest.approx(-21.5)
    text = seen.read_text()
    assert f"presolve_rule_off = {28672 if has_bit_14 else 12288}\n" in text, text
    assert "mip_feasibility_tolerance = 1e-09" in text and os.path.getsize(tmp_path / "m.highs.sol") > 0
