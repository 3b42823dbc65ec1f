"""docs/ARCHITECTURE.md names only what exists: every path in backticks (`olctc/...`, `tests/...`, `docs/...`,
`benchmarks/...`) is in the repository, and every dotted name in backticks (`olctc.spec.PRESETS`) imports and
resolves (the longest importable module, then attributes), so a rename breaks this test, not the page."""
from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "ARCHITECTURE.md"
PATH = re.compile(r"^(olctc|tests|docs|benchmarks|examples)/[\w./<>-]*$")
NAME = re.compile(r"^olctc(\.\w+)+$")


def cited(text: str) -> list[str]:
    """The contents of every `...` span (outside fenced blocks)."""
    text = re.sub(r"^```.*?^```$", "", text, flags=re.S | re.M)
    return re.findall(r"`([^`\n]+)`", text)


def resolve(dotted: str) -> object:
    """The object ``dotted`` names: the longest prefix that imports as a module, then getattr for the rest
    (AttributeError or ModuleNotFoundError when any part is missing)."""
    parts = dotted.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ModuleNotFoundError as exc:
            if exc.name is None or not ".".join(parts[:k]).startswith(exc.name):
                raise  # a module that exists failed to import something else
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        return obj
    raise ModuleNotFoundError(dotted)


def paths_and_names(text: str) -> tuple[list[str], list[str]]:
    spans = cited(text)
    return [s for s in spans if PATH.match(s)], [s for s in spans if NAME.match(s)]


def test_the_page_cites_paths_and_names():
    paths, names = paths_and_names(DOC.read_text())
    assert len(paths) >= 30 and len(names) >= 60, (len(paths), len(names))
    assert cited("a `x` b\n```text\n`y`\n```\n`olctc.spec.PRESETS`") == ["x", "olctc.spec.PRESETS"]


def test_every_cited_path_exists():
    paths, _ = paths_and_names(DOC.read_text())
    # `tests/test_export_<format>.py` and the like are patterns of a file to add, not files
    missing = [p for p in paths if "<" not in p and not (ROOT / p).exists()]
    assert not missing, f"docs/ARCHITECTURE.md names paths that do not exist: {missing}"


def test_every_cited_name_resolves():
    _, names = paths_and_names(DOC.read_text())
    missing = []
    for name in sorted(set(names)):
        try:
            resolve(name)
        except (AttributeError, ModuleNotFoundError) as exc:
            missing.append(f"{name} ({exc})")
    assert not missing, "docs/ARCHITECTURE.md names what does not exist: " + "; ".join(missing)


def test_a_renamed_name_or_path_is_caught():
    assert resolve("olctc.spec.PRESETS") is importlib.import_module("olctc.spec").PRESETS
    assert resolve("olctc.read") is importlib.import_module("olctc.read")
    for wrong in ("olctc.spec.PRESET", "olctc.nosuchmodule.NAME", "olctc.read._base.READER"):
        with pytest.raises((AttributeError, ModuleNotFoundError)):
            resolve(wrong)
    assert paths_and_names("`olctc/spec.py` `olctc.x.Y` `olctc solve` `NAME.olctc.json`") == (
        ["olctc/spec.py"], ["olctc.x.Y"])


def test_lines_are_short():
    long = [k + 1 for k, line in enumerate(DOC.read_text().splitlines()) if len(line) > 120]
    assert not long, f"lines over 120 characters: {long}"
