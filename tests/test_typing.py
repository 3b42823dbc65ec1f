"""mypy over the package, with the settings of pyproject.toml ([tool.mypy]): the public functions' types stay
true to their bodies and callers. The test extra pins mypy's minor release."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_mypy_finds_no_issue(tmp_path):
    out = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache")], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-5000:] + out.stderr[-2000:]
    assert out.stdout.startswith("Success: no issues found in ")
