"""``--olctc-path``: run another checkout of olctc in a benchmark's fresh processes (before/after in one session)."""
from __future__ import annotations

import argparse
import os
import platform


def add_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--olctc-path", default=None, help="a checkout of olctc to run instead of the installed one")


def environment(olctc_path: str | None) -> dict[str, str]:
    """The environment of the fresh processes: ``olctc_path`` first on PYTHONPATH, when given."""
    env = dict(os.environ)
    if olctc_path:
        env["PYTHONPATH"] = olctc_path + os.pathsep + env.get("PYTHONPATH", "")
    return env


def header(olctc_path: str | None, more: str = "") -> str:
    """The machine line each benchmark prints first."""
    return (f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}, olctc from {olctc_path or 'the installed package'}{more}")
