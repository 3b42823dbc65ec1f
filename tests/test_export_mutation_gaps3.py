"""ONNX and Python exports, third mutation pass (QA 2026-12-07): behaviour of olctc/export/_names.py that the
mutants left unrun by the second pass changed without any other test noticing. Every tree is a real one and every
export is really made (the ONNX model, the JSON file), with no mocks."""
from __future__ import annotations

from pathlib import Path

import pytest

from olctc.errors import OlctcError
from olctc.export import export_tree, render
from olctc.export._names import invalid_text
from olctc.export.onnx import to_onnx
from olctc.tree import Tree

_TAIL = r" is not valid Unicode text \(it holds a lone surrogate\), which {} cannot store: fix that name$"


@pytest.mark.parametrize("classes,what", [(("\ud800", "yes"), "negative"), (("no", "\udfff"), "positive")])
def test_a_lone_surrogate_in_either_class_label_is_refused_naming_which_class(classes: tuple, what: str,
                                                                              tmp_path: Path) -> None:
    """A bad label is refused by name and side: the user must learn which of the two labels to fix.

    Mutants: the positive class never checked (to_onnx then raised a raw UnicodeEncodeError); every
    class called 'negative' in the message (the user fixes the wrong label)."""
    tree = Tree.from_arrays([[1.0]], [0.0], classes=classes)
    assert invalid_text(tree) == f"the {what} class {classes[what == 'positive']!r}"
    pattern = f"^the {what} class " + repr(classes[what == "positive"]).replace("\\", "\\\\") + _TAIL
    with pytest.raises(OlctcError, match=pattern.format("an ONNX model")):
        to_onnx(tree)
    with pytest.raises(OlctcError, match=pattern.format("an ONNX model")):
        export_tree(tree, "onnx", tmp_path / "tree.onnx")
    assert list(tmp_path.iterdir()) == []


def test_invalid_text_checks_the_positive_class_with_the_callers_rule() -> None:
    """The SQL writer passes its own rule (no line break in a label, names=False): a positive label that breaks
    it is found too (mutant: positive class skipped), and a good pair of labels passes."""
    tree = Tree.from_arrays([[1.0]], [0.0], classes=("no", "ye\ns"))
    assert invalid_text(tree, lambda s: "\n" not in s, names=False) == "the positive class 'ye\\ns'"
    assert invalid_text(Tree.from_arrays([[1.0]], [0.0], classes=("no", "yes")), lambda s: "\n" not in s) is None
    with pytest.raises(OlctcError, match="positive class"):
        render(tree, "sql")
