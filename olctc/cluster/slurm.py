"""The scripts that run a grid's tasks: Slurm job arrays (``submit.slurm``, ``submit-1000.slurm``, ...),
``submit.sh`` that submits them all, and ``run_local.sh`` that runs the tasks one after the other without
Slurm. Each runs line k of the grid's jobs.tsv unless that task's solution exists or another run holds it
(a flock on the task folder's run.lock, where flock and the file system can)."""
from __future__ import annotations

import math
import re
import shutil
from dataclasses import dataclass

from olctc.errors import is_integer, is_real, param_error

#: Tasks per job array: Slurm refuses array indices >= MaxArraySize (1001 by default); a larger grid gets
#: one submit script per ARRAY_CHUNK tasks. Its log names rely on it being 1000 (see slurm_script).
ARRAY_CHUNK = 1000
#: The shell loop that submits every job array of a grid (run in its folder).
SUBMIT_ALL = 'for s in submit*.slurm; do sbatch "$s"; done'

SLURM_MARGIN_S = 300  # job time = solver time limit + at least this margin (decoding is done later by collect)


def job_seconds(time_limit: float, margin_s: float = SLURM_MARGIN_S) -> float:
    """A task's Slurm time: its solve limit plus ``margin_s`` or 15% + 30 s, whichever is more. A solver
    runs past its limit by up to 10% + 10 s (CBC) or 5% + 3 s (HiGHS, which olctc solve then leaves), plus
    the model's reading (docs/BENCHMARKS.md): a flat 300 s was less than that from about 1.6 hours, and
    Slurm killed tasks olctc would have ended in time (QA pass, 2026-12-03)."""
    return time_limit + max(margin_s, 0.15 * time_limit + 30.0)


@dataclass
class SlurmOptions:
    """Resources of the job array."""

    cpus_per_task: int = 1
    mem: str = "4G"
    partition: str | None = None
    account: str | None = None
    job_name: str | None = None  # None: olctc-<grid folder name>, so that two grids differ in squeue
    margin_s: int = SLURM_MARGIN_S


_SLURM_MEM = re.compile(r"[0-9]+([KMGTkmgt][Bb]?)?")  # sbatch takes '4GB' as '4G' (Slurm 22.05)
# Slurm's own names (partitions, accounts) are letters, digits, '_', '-' and '.'; sbatch takes a comma-separated
# list of partitions. Anything else ('a;b', a quote) passes grid and fails every submission on the cluster.
_SLURM_NAME = r"[A-Za-z0-9_.-]+"
_SLURM_NAMES = {"partition": (re.compile(rf"{_SLURM_NAME}(,{_SLURM_NAME})*"),
                              "a Slurm partition name (letters, digits, '_', '-', '.'), or several with commas "
                              "between them"),
                "account": (re.compile(_SLURM_NAME), "a Slurm account name (letters, digits, '_', '-', '.')"),
                # grid names its jobs so; one given through the Python API was not checked (QA pass, 2026-12-07)
                "job_name": (re.compile(_SLURM_NAME), "a Slurm job name (letters, digits, '_', '-', '.')")}


def check_slurm_options(opts: SlurmOptions) -> None:
    """OlctcError unless the values make valid ``#SBATCH`` lines: a newline would end the directive and
    run the rest as a command of the job (and sbatch reads no directive after it); a space or an empty value
    makes sbatch refuse the script, and a partition Slurm cannot hold ('a;b') fails every submission."""
    if not is_integer(opts.cpus_per_task) or opts.cpus_per_task < 1:
        raise param_error("cpus_per_task", "an integer >= 1", opts.cpus_per_task)
    # a string crashed job_seconds with a TypeError, inf or NaN wrote "--time=" of nonsense
    if not is_real(opts.margin_s) or not 0 <= opts.margin_s < math.inf:
        raise param_error("margin_s", "a number of seconds >= 0", opts.margin_s)
    if not _SLURM_MEM.fullmatch(opts.mem or ""):
        raise param_error("mem", "a Slurm memory size such as '4G', '500M' or '4000' (megabytes)", opts.mem)
    for name, (pattern, expected) in _SLURM_NAMES.items():
        v = getattr(opts, name)
        if v is not None and not pattern.fullmatch(v):
            raise param_error(name, expected, v)


def _slurm_time(seconds: float) -> str:
    s = int(math.ceil(seconds))
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{d}-{h:02d}:{m:02d}:{s:02d}" if d else f"{h:02d}:{m:02d}:{s:02d}"


# The task runner shared by submit.slurm and run_local.sh: run line $1 of jobs.tsv unless solved.
_RUN_TASK = r'''run_task() {
    local id="$1" col="${OLCTC_COMMAND_COLUMN:-command}" line sol cmd rc
    task_dir=""  # not local: run_local.sh names the failed task's folder with it
    # a jobs.tsv saved with Windows line ends keeps working: the \r would end the last column's mv target
    line=$(awk -F'\t' -v id="$id" 'NR > 1 { sub(/\r$/, "") } NR > 1 && $1 == id' jobs.tsv)
    if [ -z "$line" ]; then echo "task $id: not in jobs.tsv" >&2; return 2; fi
    sol=$(printf '%s\n' "$line" | cut -f5)
    task_dir="${sol%/*}"
    if [ "$col" = gurobi_command ]; then
        cmd=$(printf '%s\n' "$line" | cut -f7); sol="${sol%/*}/model.gurobi.sol"
    else
        cmd=$(printf '%s\n' "$line" | cut -f6)
    fi
    if [ -s "$sol" ]; then echo "task $id: $sol exists, skipped"; return 0; fi
    # Another run may hold the task (run_local.sh started twice or on two machines, a task resubmitted while
    # it runs): a lock on the task folder's run.lock leaves it to that run, so runners share the tasks instead
    # of each solving all. The lock is on this shell's descriptor 9, kept by the task's command: flock running
    # the command died at a Ctrl-C before it, and passed on its exit status (a command's 75 read as a
    # conflict). Opened for writing: NFS locks only such files, and a lock on the model itself would be
    # mandatory on CIFS (the solver's read refused). Where flock is missing (macOS, BSD), lacks -E (util-linux
    # < 2.26) or cannot lock (Lustre without -o flock), it fails otherwise than by a conflict (75) and the
    # task runs, as before. `command`: a failed redirection of exec ends a POSIX shell (dash) otherwise.
    if [ -d "$task_dir" ] && command exec 9>>"$task_dir/run.lock"; then
        flock -n -E 75 9 2>/dev/null
        rc=$?
        if [ "$rc" -eq 75 ]; then exec 9<&-; echo "task $id: running in another process, skipped"; return 0; fi
        # solved by another run between the test above and the lock
        if [ "$rc" -eq 0 ] && [ -s "$sol" ]; then exec 9<&-; echo "task $id: $sol exists, skipped"; return 0; fi
    fi
    echo "task $id: $cmd"
    bash -c "$cmd"
    rc=$?
    exec 9<&-
    return "$rc"
}
'''


# The shell lines that cd to the folder of the script itself (run_local.sh, submit.sh), wherever it is called
# from. Started through a symbolic link, $0 names the link, whose folder holds no jobs.tsv: the link is
# followed, by readlink -f where it has it (GNU, BSD, macOS 12.3 on), else one link at a time. "--": a
# folder named "-g" is no option. Plain sh (dash) runs them too.
_CD_HERE = r'''here="$0"
if target=$(readlink -f -- "$here" 2>/dev/null) && [ -n "$target" ]; then
    here="$target"
else
    while [ -L "$here" ] && target=$(readlink -- "$here"); do
        case "$target" in /*) here="$target" ;; *) here="$(dirname -- "$here")/$target" ;; esac
    done
fi
cd -- "$(dirname -- "$here")" || exit 2'''


def submit_script_name(first: int) -> str:
    """The job array script whose array index 0 is task ``first``: submit.slurm, submit-1000.slurm, ..."""
    return "submit.slurm" if first == 0 else f"submit-{first}.slurm"


def submit_scripts(n_tasks: int) -> list[tuple[str, int, int]]:
    """(script name, first task, number of tasks) of each job array of a grid of ``n_tasks`` tasks: one
    array up to ARRAY_CHUNK tasks, then one more per ARRAY_CHUNK (Slurm refuses an array index at or above
    its MaxArraySize, 1001 by default: "Invalid job array specification")."""
    return [(submit_script_name(a), a, min(ARRAY_CHUNK, n_tasks - a)) for a in range(0, n_tasks, ARRAY_CHUNK)]


def slurm_script(n_tasks: int, time_limit: float, opts: SlurmOptions, first: int = 0) -> str:
    """The job array of tasks ``first`` .. ``first`` + ARRAY_CHUNK - 1 of the grid's ``n_tasks`` (all when
    ``first`` is 0 and there are at most ARRAY_CHUNK): array index k runs task ``first`` + k of jobs.tsv
    (submit from the grid folder)."""
    count = min(ARRAY_CHUNK, n_tasks - first)
    # Its log is logs/task-ID.out with ID the task, not the array index: "1%3a" makes 1000 + a of index a.
    log = "logs/task-%a.out" if first == 0 else f"logs/task-{first // ARRAY_CHUNK}%3a.out"
    lines = ["#!/bin/bash",
             f"#SBATCH --job-name={opts.job_name}",
             f"#SBATCH --array=0-{count - 1}",
             f"#SBATCH --cpus-per-task={opts.cpus_per_task}",
             f"#SBATCH --mem={opts.mem}",
             f"#SBATCH --time={_slurm_time(job_seconds(time_limit, opts.margin_s))}",
             f"#SBATCH --output={log}",
             # a resubmitted task ("exists, skipped") replaced the log of the run that solved it
             "#SBATCH --open-mode=append"]
    if opts.partition:
        lines.append(f"#SBATCH --partition={opts.partition}")
    if opts.account:
        lines.append(f"#SBATCH --account={opts.account}")
    me = submit_script_name(first)
    lines += [f"# olctc grid: submit from the grid folder (cd DIR && sbatch {me}), or every array from anywhere "
              "with bash DIR/submit.sh."]
    if n_tasks > ARRAY_CHUNK:
        lines += [f"# Array index k runs task {first} + k: tasks {first}-{first + count - 1} of {n_tasks}. A Slurm "
                  f"job array holds at most {ARRAY_CHUNK} tasks here",
                  "# (MaxArraySize is 1001 by default): submit every script, bash DIR/submit.sh"]
    lines += ["# Safe to resubmit: tasks whose solution exists are skipped; "
              f"sbatch --array=3,7 {me} runs only those indices.",
              f"# OLCTC_COMMAND_COLUMN=gurobi_command sbatch {me} runs gurobi_cl instead.",
              "set -u",
              'cd "${SLURM_SUBMIT_DIR:-.}"',
              '[ -f jobs.tsv ] || { echo "jobs.tsv not found in $(pwd): submit from the grid folder" >&2; exit 2; }',
              _RUN_TASK]
    index = "${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}"
    lines += [f'run_task "{index}"' if first == 0 else f'run_task "$(( {first} + {index} ))"', ""]
    return "\n".join(lines)


def submit_all_script(n_arrays: int) -> str:
    """Submit every job array of the grid from its own folder, wherever it is called from: ``sbatch
    DIR/submit.slurm`` from elsewhere fails with no log at all (Slurm opens the relative logs/ path in the
    folder sbatch runs in, before the script can cd)."""
    return "\n".join([
        "#!/bin/bash",
        "# olctc grid: submits every job array of this grid to Slurm, from any folder: bash DIR/submit.sh",
        f"# ({n_arrays} job array(s): {', '.join(submit_script_name(ARRAY_CHUNK * k) for k in range(n_arrays))}). "
        "Options are passed to each sbatch",
        "# (bash DIR/submit.sh --partition=short); OLCTC_COMMAND_COLUMN=gurobi_command bash DIR/submit.sh runs "
        "gurobi_cl instead. Safe to run again: tasks whose solution exists are skipped.",
        "set -eu",
        _CD_HERE,
        # Every array at once, then a failed one's status (the last in file order), or 0: with --wait each sbatch
        # returns when its array has ended, with its status, so a loop ran the arrays one after the other, and the
        # first failed task (set -e) left the next array unsubmitted (QA pass under a real Slurm)
        "# all arrays at once: with --wait each sbatch returns only when its array has ended",
        "pids=()",
        'for s in submit*.slurm; do sbatch "$@" "$s" & pids+=("$!"); done',
        "status=0",
        'for p in "${pids[@]}"; do wait "$p" || status=$?; done',
        'exit "$status"', ""])


def local_script() -> str:
    """Run every task of jobs.tsv in turn, without Slurm (skips solved tasks)."""
    return "\n".join([
        "#!/bin/bash",
        "# olctc grid without Slurm: runs every task of jobs.tsv in turn (solved tasks are skipped). Started",
        "# several times at once, on this machine or on others sharing the folder, the runs share the tasks",
        "# where flock(1) works (util-linux; not macOS or BSD): each takes the next task no other run holds.",
        "set -u",
        _CD_HERE,
        # as submit.slurm: without it awk said "cannot open jobs.tsv", and the script ran nothing and exited 0
        '[ -f jobs.tsv ] || { echo "jobs.tsv not found in $(pwd): run_local.sh runs the tasks of its own grid '
        'folder" >&2; exit 2; }',
        _RUN_TASK,
        # Ctrl-C stops the run, not just the task at hand: olctc exits 130 when interrupted, and bash then goes
        # on with the next command, so without this each of N tasks needed its own Ctrl-C.
        "trap 'echo \"interrupted: run $0 again to go on (solved tasks are skipped)\" >&2; exit 130' INT",
        "status=0",
        "for id in $(awk -F'\\t' 'NR > 1 {print $1}' jobs.tsv); do",
        '    run_task "$id"; rc=$?',
        '    if [ "$rc" -eq 130 ]; then echo "task $id: interrupted; run $0 again to go on" >&2; exit 130; fi',
        '    if [ "$rc" -ne 0 ]; then echo "task $id failed (see ${task_dir:-its folder}/solve.log)" >&2; status=1; fi',
        "done",
        'exit "$status"', ""])


def sbatch_available() -> bool:
    """True when ``sbatch`` is on PATH."""
    return shutil.which("sbatch") is not None
