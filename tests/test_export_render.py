"""Text, DOT and picture exports, and the exporter registry."""
from __future__ import annotations

import dataclasses
import io
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from olctc.data import Column, Schema
from olctc.errors import OlctcError
from olctc.export import EXPORTERS, export_tree, render
from olctc.export.dot import to_dot
from olctc.export.text import to_text
from olctc.tree import Tree
from test_tree import dataset, greedy_tree, hostile_dataset, tree_for

# ---------------------------------------------------------------- a strict little DOT parser

_TOKEN = re.compile(r'\s*(?:(?P<arrow>->)|(?P<punct>[{}\[\];,=])|(?P<id>[A-Za-z_][A-Za-z0-9_]*)'
                    r'|(?P<num>-?(?:\d+\.?\d*|\.\d+))|(?P<str>"(?:[^"\\\n]|\\.)*"))')


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise ValueError(f"bad DOT at {pos}: {text[pos:pos + 30]!r}")
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def parse_dot(text: str) -> tuple[set[str], list[tuple[str, str]]]:
    """Nodes and edges of a ``digraph``; raises ValueError on anything outside the grammar we emit."""
    toks = _tokens(text) + [("eof", "")]
    k = 0

    def take(kind: str, value: str | None = None) -> str:
        nonlocal k
        if toks[k][0] != kind or (value is not None and toks[k][1] != value):
            raise ValueError(f"expected {value or kind} at token {k}: {toks[k:k + 3]}")
        k += 1
        return toks[k - 1][1]

    def attrs() -> None:
        nonlocal k
        take("punct", "[")
        while toks[k] != ("punct", "]"):
            take("id")
            take("punct", "=")
            if toks[k][0] not in ("id", "str", "num"):
                raise ValueError(f"bad attribute value {toks[k]}")
            k += 1
            if toks[k] == ("punct", ","):
                k += 1
        take("punct", "]")

    take("id", "digraph")
    take("id")
    take("punct", "{")
    nodes: set[str] = set()
    edges: list[tuple[str, str]] = []
    while toks[k] != ("punct", "}"):
        a = take("id")
        if a in ("graph", "node", "edge"):
            attrs()
        elif toks[k][0] == "arrow":
            k += 1
            edges.append((a, take("id")))
            if toks[k] == ("punct", "["):
                attrs()
        else:
            nodes.add(a)
            if toks[k] == ("punct", "["):
                attrs()
        take("punct", ";")
    take("punct", "}")
    take("eof")
    missing = {x for e in edges for x in e} - nodes
    if missing:
        raise ValueError(f"edges to undeclared nodes {missing}")
    return nodes, edges


def test_the_parser_rejects_broken_dot():
    good = 'digraph g {\n  a [label="x\\"y"];\n  b;\n  a -> b;\n}\n'
    assert parse_dot(good) == ({"a", "b"}, [("a", "b")])
    for bad in (good.replace("}", ""), good.replace('\\"', '"'), good.replace("b;", "b"),
                good.replace('"x', '"x\n'), good.replace("a -> b", "a -> c")):
        with pytest.raises(ValueError):
            parse_dot(bad)


@pytest.mark.parametrize("name,depth", [("heart", 1), ("heart", 2), ("tic-tac-toe", 3)])
def test_dot_parses_with_every_node_and_edge(name, depth):
    tree = greedy_tree(dataset(name), depth)
    nodes, edges = parse_dot(to_dot(tree))
    n = 2 ** depth - 1
    n_last = 2 ** (depth - 1)
    assert len(nodes) == n + 2 * n_last and len(edges) == 2 * n
    assert {f"n{t}" for t in range(n)} <= nodes


def test_dot_names_the_class_whose_share_each_node_shows():
    tree = tree_for("heart", 2)
    text = to_dot(tree)
    share = 100 * int(tree.node_pos[0]) / int(tree.node_n[0])
    assert f"n={tree.node_n[0]} (100.0%), class {tree.classes[1]}: {share:.1f}%" in text
    assert "positive" not in text


def test_dot_with_hostile_names(tmp_path):
    marker = tmp_path / "pwned"
    tree = greedy_tree(hostile_dataset(str(marker)), 2)
    text = to_dot(tree)
    nodes, edges = parse_dot(text)
    assert len(edges) == 6
    assert max(len(line) for line in text.splitlines()) < 1500
    assert "x" * 100 not in text


# ---------------------------------------------------------------- text

def test_text_rules_show_nodes_features_and_classes():
    tree = tree_for("heart", 2)
    text = to_text(tree, top=3)
    for t in range(3):
        assert f"node {t} (" in text
    assert text.count("|--- score <= 0") == 3 and text.count(": class 1") == 2
    j, r = tree.ranked_features(0, 1)[0]
    assert f"{tree.feature_names[j]}: w=" in text and f"influence={r:.4g}" in text
    assert f"[n={tree.node_n[0]} (100.0%)" in text


def test_text_with_hostile_names():
    tree = greedy_tree(hostile_dataset("/nonexistent/marker"), 3)
    text = to_text(tree, top=50)
    lines = text.splitlines()
    # structure: every line is a header, a node line, a feature line, a branch line or the shares' header
    assert all(re.match(r"^(olctc tree|every node|feature importances \(|(\|   |  )*(\|--- |node |  ))", line)
               for line in lines)
    assert lines.count("feature importances (each feature's share of the tree, summing to 1):") == 1
    assert "x\ny" not in text and "\x00" not in text and "\u2028" not in text
    assert max(len(line) for line in lines) < 300


# ---------------------------------------------------------------- pictures

def test_png_is_valid_and_grows_with_depth():
    Image = pytest.importorskip("PIL.Image")
    ds = dataset("heart")
    sizes = {}
    for depth in (1, 3):
        png = render(greedy_tree(ds, depth), "png")
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        img = Image.open(io.BytesIO(png))
        img.verify()
        sizes[depth] = (len(png), Image.open(io.BytesIO(png)).size)
    assert sizes[3][0] > sizes[1][0]
    assert sizes[3][1][0] > sizes[1][1][0] and sizes[3][1][1] > sizes[1][1][1]


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_every_text_of_the_picture_lies_inside_it(depth):
    # the title, one line 5.3 inches long, ran off the 4-inch figure of a depth-1 tree
    from olctc.export.plot import figure

    k = 2 ** depth - 1
    for tree in (greedy_tree(dataset("heart"), depth), Tree.from_arrays(np.zeros((k, 2)), [0.0] * k)):
        fig = figure(tree)
        fig.canvas.draw()
        box = fig.bbox
        texts = fig.axes[0].texts
        assert texts and texts[0].get_text().startswith(f"olctc tree · depth {depth}")
        for t in texts:
            e = t.get_window_extent()
            assert box.x0 <= e.x0 and e.x1 <= box.x1 and box.y0 <= e.y0 and e.y1 <= box.y1, t.get_text()


def test_svg_is_xml_and_pictures_take_hostile_names():
    tree = greedy_tree(hostile_dataset("/nonexistent/marker"), 2)
    svg = render(tree, "svg")
    assert ET.fromstring(svg).tag.endswith("svg")
    assert render(tree, "png")[:4] == b"\x89PNG"
    bare = Tree.from_arrays([[1.0, 0.0]], [0.0])  # no training statistics
    assert render(bare, "png")[:4] == b"\x89PNG"


def test_pictures_of_the_same_tree_are_the_same_bytes():
    # matplotlib salts SVG clip-path ids with a random uuid unless told otherwise
    tree = tree_for("heart", 2)
    for fmt in ("svg", "png"):
        assert render(tree, fmt) == render(tree, fmt), fmt


# ---------------------------------------------------------------- registry

def test_registry_writes_every_format(tmp_path):
    assert set(EXPORTERS) == {"json", "python", "onnx", "sql", "text", "dot", "png", "svg"}
    tree = tree_for("tic-tac-toe", 2)
    for fmt in EXPORTERS:
        path = tmp_path / f"tree.{fmt}"
        export_tree(tree, fmt, path)
        assert path.stat().st_size > 100
    assert len(list(tmp_path.iterdir())) == len(EXPORTERS)  # no temporaries left


def test_failed_export_writes_nothing(tmp_path):
    schema = Schema((Column("label", "categorical", ("a", "b")),))
    tree = Tree.from_arrays(np.ones((1, 2)), [0.0], schema=schema)
    with pytest.raises(OlctcError, match="name of an ONNX output"):
        export_tree(tree, "onnx", tmp_path / "t.onnx")
    with pytest.raises(OlctcError, match="unknown export format 'xls'"):
        export_tree(tree_for("heart", 2), "xls", tmp_path / "t.xls")
    with pytest.raises(OlctcError, match="does not exist"):
        export_tree(tree_for("heart", 2), "json", tmp_path / "no" / "t.json")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("preset, note", [("olct", False), ("olct-univariate", False), ("margot", True),
                                          ("margot-sfs", True), ("oct-h", True), ("no such preset", False)])
def test_text_and_explain_say_when_probabilities_are_no_calibrated_ones(preset, note):
    """sigmoid(score) is a probability for the logistic presets only: an OCT-H leaf of 98% positive points
    said P = 0.73 in both, with nothing to tell it apart from an OLCT tree's calibrated figure."""
    given = tree_for("heart", 2)
    assert given.probability_note is None and "(preset" not in to_text(given)  # meta without a spec
    tree = dataclasses.replace(given, meta={"spec": {"preset": preset}})
    text, lines = to_text(tree), tree.explain(dataset("heart").X[0]).lines()
    if note:
        assert tree.probability_note.startswith(f"preset {preset} fitted the ")
        assert f"({tree.probability_note})" in text.splitlines()[2]
        assert lines[-1] == f"note: {tree.probability_note}" and lines[-2].startswith("prediction: ")
    else:
        assert tree.probability_note is None and "not the logistic" not in text + "".join(lines)
        assert lines[-1].startswith("prediction: ")


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_a_fitted_oct_h_tree_carries_the_note(tmp_path):
    from olctc import load_tree
    from olctc.estimator import OCTHClassifier

    ds = dataset("heart")
    clf = OCTHClassifier(depth=1, time_limit=3, threads=1, verbose=False).fit(ds.X[:40], ds.y[:40])
    assert clf.tree_.probability_note.startswith("preset oct-h fitted the misclassification loss")
    clf.tree_.save(tmp_path / "t.json")
    assert load_tree(tmp_path / "t.json").probability_note == clf.tree_.probability_note
