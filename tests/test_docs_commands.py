"""The README's commands run as written, and what the docs say about the command line stays true.

The "Compile once, solve anywhere" section's ```bash block is run line by line in a temporary folder
(its only edit: a shorter solve time limit); every file its commands and comments name must then exist.
Other checks: every option the README names exists, every option has a help text, and the behaviour a
documentation pass found wrong (grid took --C and ignored it; collect's "no time to solve" named no option).
"""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from conftest import cli_here
from olctc.cli import _register_optional, cli

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SECTION = "Compile once, solve anywhere"
#: Options the README names that belong to other programs (sbatch --array=... and --time=..., pytest --dist).
NOT_OLCTC = {"--array", "--dist", "--time"}


def olctc_argv() -> list[str]:
    """How to call olctc: the console script the README uses, else this Python's module."""
    exe = shutil.which("olctc")
    return [exe] if exe else [sys.executable, "-m", "olctc.cli"]


def run_olctc(args: list[str], cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run(olctc_argv() + args, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def section(text: str, title: str) -> str:
    """The text under the level-2 heading ``title``, up to the next level-2 heading (fences respected)."""
    lines, out, inside, fenced = text.splitlines(), [], False, False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            if inside:
                break
            inside = line[3:].strip() == title
            continue
        if inside:
            out.append(line)
    assert out, f"README.md has no section '## {title}'"
    return "\n".join(out)


def bash_blocks(text: str) -> list[list[str]]:
    """The lines of each fenced ```bash block, continuation lines (a trailing backslash) joined."""
    blocks, current = [], None
    for line in text.splitlines():
        if current is None:
            if line.strip() == "```bash":
                current = []
        elif line.strip() == "```":
            blocks.append(current)
            current = None
        elif current and current[-1].endswith("\\"):
            current[-1] = current[-1][:-1].rstrip() + " " + line.strip()
        else:
            current.append(line)
    assert current is None, "an unclosed ``` fence in README.md"
    return blocks


def readme_compile_block() -> tuple[list[list[str]], list[str]]:
    """(the commands as argument lists, the comment lines) of the section's one bash block."""
    blocks = bash_blocks(section(README.read_text(), SECTION))
    assert len(blocks) == 1, f"expected one ```bash block under '## {SECTION}', found {len(blocks)}"
    commands, comments = [], []
    for line in blocks[0]:
        stripped = line.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            comments.append(stripped)
            continue
        commands.append(shlex.split(stripped, comments=True))
        if "#" in stripped:
            comments.append(stripped.split("#", 1)[1])
    return commands, comments


def option_value(argv: list[str], *names: str) -> str | None:
    for k, a in enumerate(argv[:-1]):
        if a in names:
            return argv[k + 1]
    return None


def test_readme_compile_once_solve_anywhere_runs_as_written(tmp_path):
    commands, comments = readme_compile_block()
    assert all(c[0] == "olctc" for c in commands), commands
    compiled = [c for c in commands if c[1] == "compile"]
    assert len(compiled) == 1
    stem = Path(option_value(compiled[0], "-o", "--output")).name.rsplit(".", 1)[0]
    # Files the block promises: every -o target, and every STEM.* file its comments name.
    promised = {option_value(c, "-o", "--output") for c in commands} - {None}
    promised |= set(re.findall(rf"(?<![\w.]){re.escape(stem)}(?:\.[A-Za-z0-9_]+)+", " ".join(comments)))
    assert {f"{stem}.mps", f"{stem}.olctc.json", "tree.json", "tree.onnx"} <= promised, promised

    for k, argv in enumerate(commands):
        argv = list(argv[1:])
        if argv[0] == "solve" and "--time-limit" in argv:
            # The README gives the solve 60 s; 2 s keeps this test fast and still finds a tree (heart, depth 2:
            # HiGHS takes compile's MIP start at once, and the test needs a solution, not an optimal one).
            argv[argv.index("--time-limit") + 1] = "2"
        # the first command through the `olctc` program the README types; the others in this process (olctc.cli's
        # main, which that program calls), without a fresh interpreter's second of imports each
        res = run_olctc(argv, tmp_path) if k == 0 else cli_here(*argv, cwd=tmp_path)
        assert res.returncode == 0, f"olctc {shlex.join(argv)} exited {res.returncode}:\n{res.stderr[-2000:]}"
        if argv[0] == "datasets":
            said = re.search(r"the (\d+) vendored data sets", " ".join(comments))
            listed = [ln for ln in res.stdout.splitlines()[1:] if ln.strip()]
            assert said and int(said.group(1)) == len(listed), (said, listed)
        if argv[0] == "compile":
            # compile lists what it wrote; the README's comment names some of it
            written = {ln.split()[-1] for ln in res.stdout.splitlines() if ln.startswith("  ")}
            named = {p for p in promised if p.startswith(f"{stem}.") and p != f"{stem}.highs.sol"}
            assert named <= written, named - written
    missing = sorted(p for p in promised if not (tmp_path / p).is_file())
    assert not missing, f"the README names files its commands did not write: {missing}"


def _all_commands() -> list[tuple[str, click.Command]]:
    _register_optional()
    found, todo = [], [("olctc", cli)]
    while todo:
        path, cmd = todo.pop()
        found.append((path, cmd))
        if isinstance(cmd, click.Group):
            todo += [(f"{path} {name}", sub) for name, sub in cmd.commands.items()]
    return found


def test_every_option_the_readme_names_exists():
    options = {o for _, cmd in _all_commands() for p in cmd.params if isinstance(p, click.Option)
               for o in p.opts + p.secondary_opts}
    named = set(re.findall(r"(?<![\w-])--[A-Za-z][A-Za-z0-9-]*", README.read_text())) - NOT_OLCTC
    assert named and not named - options, f"README.md names options no olctc command has: {named - options}"


def test_ci_runs_exactly_the_readmes_test_command():
    commands = [line for block in bash_blocks(README.read_text()) for line in block if "pytest" in line]
    assert commands and commands[0].startswith("pip install -e "), commands
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines()
          if line.strip() and not line.lstrip().startswith("#")]
    assert ci[-1] == commands[0]


def test_every_option_has_a_help_text():
    bare = [f"{path} {p.opts[0]}" for path, cmd in _all_commands() for p in cmd.params
            if isinstance(p, click.Option) and not p.hidden and not p.help and "--help" not in p.opts
            and "--version" not in p.opts]
    assert not bare, f"options without a help text: {bare}"


def test_grid_refuses_C_which_its_grid_would_ignore(tmp_path):
    # grid took --C (shared with compile and fit), then replaced it by each --C-values combination.
    res = cli_here("grid", "--dataset", "heart", "--C", "5", "--C-values", "1", "--folds", "2",
                   "-o", tmp_path / "g")
    assert res.returncode == 2, res.stdout
    assert res.stderr.startswith("error: --C 5 does not apply to grid") and "--C-values" in res.stderr
    assert res.stderr.count("\n") == 1 and not (tmp_path / "g").exists()
    assert "--C " not in cli_here("grid", "--help").stdout


def _small_csv(path: Path) -> Path:
    import numpy as np

    rng = np.random.default_rng(0)
    rows = ["a,b,label"] + [f"{rng.normal() + (k % 2):.4f},{rng.normal():.4f},{'yes' if k % 2 else 'no'}"
                            for k in range(24)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_collect_names_its_time_limit_option_when_the_grids_is_too_short(tmp_path):
    csv = _small_csv(tmp_path / "d.csv")
    grid = tmp_path / "g"
    res = cli_here("grid", csv, "--target", "label", "--depth", "1", "--C-values", "1", "--folds", "2",
                   "--time-limit", "2", "-o", grid, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    local = subprocess.run(["bash", str(grid / "run_local.sh")], capture_output=True, text=True, timeout=120)
    assert local.returncode == 0, local.stderr
    res = cli_here("collect", grid, "--quiet")
    # 2 s suits each task's `olctc solve`, not a whole fit: the error must say how to give the fit more
    assert res.returncode == 2
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("error: a time limit of 2 s leaves no time to solve") and "collect" in last \
        and "--time-limit" in last, res.stderr
    res = cli_here("collect", grid, "--quiet", "--time-limit", "5")
    assert res.returncode == 0, res.stderr
    assert (grid / "final_tree.json").is_file()


@pytest.mark.parametrize("text, title, expected", [
    ("## A\n```bash\nx \\\n  y\n```\n## B\n```bash\nz\n```\n", "A", [["x y"]]),
    ("## A\n```bash\n## not a heading\n```\n```python\nq\n```\n```bash\nw\n```\n## B\n", "A",
     [["## not a heading"], ["w"]]),
])
def test_readme_parsing(text, title, expected):
    assert bash_blocks(section(text, title)) == expected


def test_solve_names_the_solver_path_option_when_a_program_is_missing(tmp_path):
    # The message ended "or pass solver_path" (the library's keyword argument), no help on the command line.
    csv = _small_csv(tmp_path / "d.csv")
    assert cli_here("compile", csv, "--target", "label", "--depth", "1", "--no-start", "--no-params",
                    "-o", tmp_path / "m.mps").returncode == 0
    bare = tmp_path / "bin"  # a PATH with Python and bash only: no cbc, highs or glpsol
    bare.mkdir()
    for exe in (sys.executable, shutil.which("bash")):
        (bare / Path(exe).name).symlink_to(exe)
    res = subprocess.run([sys.executable, "-m", "olctc.cli", "solve", "m.mps", "--solver", "glpk-cli"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120, env={"PATH": str(bare)})
    assert res.returncode == 2
    assert res.stderr.startswith("error: glpk-cli needs the 'glpsol' program, which is not on PATH")
    assert res.stderr.endswith("or give its path (--solver-path; solver_path= in Python)\n")
    assert res.stderr.count("\n") == 1
