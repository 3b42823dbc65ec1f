"""How olctc is packaged, as a user of its wheel or sdist meets it (a packaging QA pass).

Defects pinned here: the MIT licence text was in neither the wheel nor the sdist; ``python -m olctc`` failed
(no ``olctc/__main__.py``); the wheel had no ``py.typed``, so a user's mypy read olctc as untyped; the
sdist held neither ``tests/conftest.py`` nor ``tests/data``, so its tests could not run. The slow tests build
an sdist from a copy of this checkout, then the wheel from that sdist (as ``python -m build`` does), with
setuptools >= 77 fetched by pip into a scratch folder (skipped when pip cannot get it).
"""
from __future__ import annotations

import importlib.metadata
import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest

import olctc

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "olctc"
# what a clean clone does not have (build outputs, tool caches); __pycache__ is copied on purpose: the
# MANIFEST.in must keep it out of the sdist
NOT_IN_A_CLONE = {".git", "build", "dist", ".hypothesis", ".pytest_cache", ".mypy_cache", ".benchmarks", "out",
                  "bench-out"}


def _run_olctc_module(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "olctc", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=60)


def test_python_m_olctc_help_names_the_program_olctc():
    proc = _run_olctc_module("--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("Usage: olctc [OPTIONS] COMMAND [ARGS]..."), proc.stdout[:200]
    sub = _run_olctc_module("fit", "--help")
    assert sub.returncode == 0 and sub.stdout.startswith("Usage: olctc fit "), sub.stdout[:200] + sub.stderr


def test_python_m_olctc_version_and_errors_read_like_the_console_script():
    proc = _run_olctc_module("--version")
    assert (proc.returncode, proc.stdout.strip()) == (0, f"olctc, version {olctc.__version__}"), proc.stderr
    bad = _run_olctc_module("no-such-command")
    assert bad.returncode == 2 and "No such command 'no-such-command'" in bad.stderr, bad.stderr
    assert "Traceback" not in bad.stderr and "__main__" not in bad.stderr + bad.stdout


def test_distribution_version_is_olctc_version():
    assert importlib.metadata.version("olctc") == olctc.__version__


def test_pyproject_takes_its_version_from_olctc():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    declared = project["project"].get("version")
    if declared is not None:  # a static version must be olctc.__version__
        assert declared == olctc.__version__
    else:
        assert "version" in project["project"]["dynamic"]
        assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "olctc.__version__"}


def test_license_text_is_mit_and_declared():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("MIT License") and "Copyright (c) 2026 the olctc developers" in text


# ---------------------------------------------------------------- the built sdist and wheel

def _copy_checkout(dest: Path) -> None:
    def ignore(folder: str, names: list[str]) -> set[str]:
        top = Path(folder).resolve() == ROOT
        return {n for n in names if n.endswith(".egg-info") or (top and n in NOT_IN_A_CLONE)}

    shutil.copytree(ROOT, dest, ignore=ignore)


def _setuptools(folder: Path) -> Path:
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(folder),
                           "setuptools>=77", "wheel"], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.skip(f"pip could not fetch setuptools>=77 to build with: {proc.stderr.strip()[-300:]}")
    return folder


def _build(backend: Path, source: Path, hook: str, out: Path) -> Path:
    code = f"import setuptools.build_meta as b; print(b.{hook}({str(out)!r}))"
    env = {**os.environ, "PYTHONPATH": str(backend), "PYTHONDONTWRITEBYTECODE": "1"}
    proc = subprocess.run([sys.executable, "-c", code], cwd=source, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return out / proc.stdout.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    """(sdist, wheel): the sdist built from a copy of this checkout, the wheel built from that sdist."""
    tmp = tmp_path_factory.mktemp("packaging")
    backend = _setuptools(tmp / "backend")
    _copy_checkout(tmp / "checkout")
    sdist = _build(backend, tmp / "checkout", "build_sdist", tmp / "dist")
    with tarfile.open(sdist) as tar:
        if hasattr(tarfile, "data_filter"):  # Python 3.11.4 and newer: no links or paths out of the folder
            tar.extractall(tmp / "unpacked", filter="data")
        else:
            tar.extractall(tmp / "unpacked")
    unpacked = next((tmp / "unpacked").iterdir())
    wheel = _build(backend, unpacked, "build_wheel", tmp / "dist")
    return sdist, wheel


def _package_files() -> tuple[list[str], list[str]]:
    """(every .py file, every other file) of the checkout's package, as paths inside a wheel."""
    files = [p for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    names = [p.relative_to(ROOT).as_posix() for p in files]
    return [n for n in names if n.endswith(".py")], [n for n in names if not n.endswith(".py")]


@pytest.mark.slow
def test_wheel_holds_the_package_its_data_and_licence_and_nothing_else(built):
    _, wheel = built
    names = set(zipfile.ZipFile(wheel).namelist())
    code, data = _package_files()
    dist_info = f"olctc-{olctc.__version__}.dist-info"
    assert not set(code) - names, "modules not in the wheel"
    assert not set(data) - names, "data files (data sets, anchors, READMEs, py.typed) not in the wheel"
    for needed in ("olctc/py.typed", "olctc/__main__.py", "olctc/datasets/breast.csv.gz",
                   "olctc/datasets/README.md", "olctc/bench/anchors.csv", "olctc/bench/fixed_C.csv",
                   f"{dist_info}/licenses/LICENSE"):
        assert needed in names
    subpackages = {p.parent.relative_to(ROOT).as_posix() for p in PACKAGE.rglob("__init__.py")}
    assert {"olctc/emit", "olctc/export", "olctc/read", "olctc/solve", "olctc/formulation",
            "olctc/bench", "olctc/datasets", "olctc/cluster", "olctc/data"} <= subpackages
    assert all(f"{s}/__init__.py" in names for s in subpackages)
    stray = [n for n in names if not (n.startswith("olctc/") or n.startswith(f"{dist_info}/"))
             or "__pycache__" in n or n.endswith((".pyc", ".pyo"))]
    assert not stray, f"stray files in the wheel: {stray}"


@pytest.mark.slow
def test_wheel_metadata(built):
    _, wheel = built
    with zipfile.ZipFile(wheel) as whl:
        dist_info = f"olctc-{olctc.__version__}.dist-info"
        meta = whl.read(f"{dist_info}/METADATA").decode()
        scripts = whl.read(f"{dist_info}/entry_points.txt").decode()
    head = meta.split("\n\n", 1)[0].splitlines()
    assert f"Version: {olctc.__version__}" in head and "Name: olctc" in head
    assert "License-Expression: MIT" in head and "License-File: LICENSE" in head
    assert "Requires-Python: >=3.11" in head and "Classifier: Typing :: Typed" in head
    assert "[console_scripts]\nolctc = olctc.__main__:main" in scripts


@pytest.mark.slow
def test_sdist_builds_the_wheel_and_runs_the_tests(built):
    sdist, _ = built
    with tarfile.open(sdist) as tar:
        top = f"olctc-{olctc.__version__}/"
        names = {n[len(top):] for n in tar.getnames() if n.startswith(top)}
    test_data = {p.relative_to(ROOT).as_posix() for p in (ROOT / "tests" / "data").rglob("*") if p.is_file()}
    assert test_data and not test_data - names, "tests/data is not in the sdist"
    for needed in ("LICENSE", "README.md", "pyproject.toml", "olctc/py.typed", "tests/conftest.py",
                   "tests/test_qa_packaging.py", "docs/tree-schema.json", "docs/PYTHON.md", "docs/FORMATS.md",
                   "examples/fit_in_process.py", "benchmarks/mip_olct.py", ".ci/run"):
        assert needed in names, f"{needed} is not in the sdist"
    stray = [n for n in names if "__pycache__" in n or n.endswith((".pyc", ".pyo"))]
    assert not stray, f"stray files in the sdist: {stray}"
