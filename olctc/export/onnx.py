"""Tree -> ONNX graph (standard ``ai.onnx`` operators, plus ``ai.onnx.ml`` LabelEncoder for text; float64).

Inputs
------
- All-numeric schema: one tensor ``input`` of shape (N, n_features), double, columns in
  ``Tree.feature_names`` order (as skl2onnx classifiers take them).
- Schema with categorical columns: one input per raw column, named exactly as the column, shape (N, 1):
  double for a numeric column, string for a categorical one (from a DataFrame: ``feeds(tree, cells=df)``;
  ``df[[c]].to_numpy()`` is int64 for an integer column, which onnxruntime refuses). The graph one-hot
  encodes each string column: ``ai.onnx.ml`` LabelEncoder maps the text, compared as given (no stripping,
  case-sensitive), to its category's index and anything else to -1; ``Equal`` (int64) against the
  categories' indices and ``Cast`` give the block, so an unseen value ("", "?", other case) encodes as all
  zeros and a category listed twice sets both its columns, like ``Schema.encode``. The blocks are
  concatenated in schema order. Two columns with the same name share one input. A NUL inside a fed
  value reaches the graph whole from Python; onnxruntime-node and -web cut it there (C strings).

Outputs
-------
``label`` (N,): int64 when both classes are ints (within int64), double when both are numbers (ints
within 2^53), otherwise string (the ``str`` of each label); ``probabilities`` (N, 2) double, columns in
``classes`` order.

Versions: every tree declares opset 13 and IR version 7, a tree with a categorical column also
``ai.onnx.ml`` 2 (which IR 7 carries; ``Equal`` on strings would need opset 19 and IR 9). onnxruntime
>= 1.8 runs every tree: measured 1.8, 1.10, 1.12, 1.14, 1.15, 1.16 and 1.32 (Python) and
onnxruntime-node 1.10-1.30, same labels and bit-identical probabilities; onnxruntime-web 1.30 (wasm),
same labels, probabilities within 5e-16. Unsqueeze's axes and Pad's pads are inputs, as opset 13 wants.

Computation: the scores of all nodes in one matrix product, Gemm(W_raw, X^T) + b_raw, laid out node-major
(n_nodes, N), and every node's decision at once, Greater(scores, 0). Routing is a bottom-up tree of
``Where`` over the levels: the last-layer node reached under t is Where(right_t, reached(2t+2),
reached(2t+1)), one Where per routing node; GatherElements then picks each row's reached score. No
Loop/Scan/If, nothing per row.

Rounding and bad values: ``Tree.scores`` and the generated Python add a node's terms one by one in
feature order (bit-identical to each other, and a row's result does not depend on its batch); Gemm sums
in the runtime's order. A row whose score is within rounding (a few units in the last place) of 0 can
therefore route the other way here; elsewhere the probabilities agree within 1e-15. The graph checks
nothing: a NaN cell, or an infinite one (0 * inf is NaN), makes the scores it touches NaN, which route
left and give NaN probabilities, where ``Tree.predict`` and the generated code raise; finite cells whose
score overflows (values near 1e308) route by the infinite score and give a probability, where they
raise too. Checking the scores on each row's path in the graph cost 5-26% of the inference time
(measured, 1,000,000 rows, depths 1-3), so the graph leaves it to the caller: check inputs before the
session if they can hold such values.
"""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from olctc.data.cells import _is_missing, _missing
from olctc.errors import OlctcError
from olctc.export._names import labels_as_text

if TYPE_CHECKING:
    from olctc.tree import Tree

# Declared versions. Every operator the graph uses exists with the same semantics at opset 13 (Unsqueeze
# and Pad take their axes/pads as inputs there, as emitted). A categorical column is encoded by the
# ``ai.onnx.ml`` LabelEncoder (version 2: keys_strings -> values_int64s, default_int64), not by ``Equal`` on
# strings (opset 19 only). onnx's VERSION_TABLE pairs opset 13 + ai.onnx.ml 2 with IR 7 (onnx 1.8);
# onnxruntime >= 1.8 runs every tree. The ai.onnx.ml domain is declared only by a graph that uses it.
OPSET, ML_OPSET, IR_VERSION = 13, 2, 7
ML_DOMAIN = "ai.onnx.ml"


def opset_for(tree) -> tuple[int, int]:
    """(opset, IR version) the export of ``tree`` declares: (13, 7) for every tree (plus ai.onnx.ml 2 with a
    text column)."""
    return OPSET, IR_VERSION


def _label_tensor(classes: tuple) -> tuple[np.ndarray, int]:
    from onnx import TensorProto

    if labels_as_text(classes):  # a double holds an int exactly only up to 2^53: larger ones go out as text
        return np.asarray([str(c) for c in classes], dtype=object), TensorProto.STRING
    if all(isinstance(c, int) for c in classes):
        return np.asarray(classes, dtype=np.int64), TensorProto.INT64
    return np.asarray(classes, dtype=np.float64), TensorProto.DOUBLE


OUTPUTS = ("label", "probabilities")


def _prefix(tree) -> str:
    """A prefix for internal value names that no input column name starts with (no clashes)."""
    pre = "olctc."
    while any(c.name.startswith(pre) for c in tree.schema.columns):
        pre += "_"
    return pre


def _inputs(tree, nodes: list, inits: list, pre: str) -> tuple[list, str]:
    """Graph inputs and the name of the (N, p) double feature matrix built from them."""
    from onnx import TensorProto, helper, numpy_helper

    if tree.schema.is_numeric:
        return [helper.make_tensor_value_info("input", TensorProto.DOUBLE, ["N", tree.n_features])], "input"
    graph_inputs: dict[str, Any] = {}
    kinds: dict[str, str] = {}
    blocks = []
    for k, col in enumerate(tree.schema.columns):
        if not col.name:
            raise OlctcError(f"column {k} has an empty name; ONNX inputs need names")
        if "\x00" in col.name:  # C-string APIs (onnxruntime-node and -web, Java, C#) cut the name there
            raise OlctcError(f"column {col.name!r} holds a NUL character, at which onnxruntime's C interface "
                             "(onnxruntime-node, -web, Java, C#) cuts an input's name, so no feed could reach it; "
                             "rename the column to export this tree to ONNX")
        if col.name in OUTPUTS:
            raise OlctcError(f"column {col.name!r} has the name of an ONNX output ({', '.join(OUTPUTS)}); "
                             "rename the column to export this tree to ONNX")
        if kinds.setdefault(col.name, col.kind) != col.kind:
            raise OlctcError(f"column {col.name!r} appears twice with different kinds; "
                             "ONNX inputs are named by column")
        if col.name not in graph_inputs:
            etype = TensorProto.DOUBLE if col.kind == "numeric" else TensorProto.STRING
            graph_inputs[col.name] = helper.make_tensor_value_info(col.name, etype, ["N", 1])
        if col.kind == "numeric":
            blocks.append(col.name)
            continue
        # LabelEncoder maps each category's text to the index of its first occurrence and anything else to -1
        # (compared as given: no stripping, case-sensitive); Equal on int64 against each category's index then
        # one-hot encodes, so a category listed twice sets both its columns (as Schema.encode does) and an
        # unseen value sets none. An empty list still needs a key: "" with value -1, i.e. no hit.
        first = {c: i for i, c in reversed(list(enumerate(col.categories)))}
        keys = list(dict.fromkeys(col.categories)) or [""]
        codes, idx = f"{pre}code_{k}", f"{pre}category_index_{k}"
        hit, onehot = f"{pre}is_{k}", f"{pre}onehot_{k}"
        nodes.append(helper.make_node("LabelEncoder", [col.name], [codes], domain=ML_DOMAIN, keys_strings=keys,
                                      values_int64s=[first.get(c, -1) for c in keys], default_int64=-1))
        inits.append(numpy_helper.from_array(np.asarray([[first[c] for c in col.categories]], dtype=np.int64), idx))
        nodes.append(helper.make_node("Equal", [codes, idx], [hit]))
        nodes.append(helper.make_node("Cast", [hit], [onehot], to=TensorProto.DOUBLE))
        blocks.append(onehot)
    nodes.append(helper.make_node("Concat", blocks, [pre + "X"], axis=1))
    return list(graph_inputs.values()), pre + "X"


def to_onnx(tree) -> Any:
    """The tree as an ``onnx.ModelProto`` (checked with ``onnx.checker``)."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    from olctc import __version__
    from olctc.export._names import check_text

    check_text(tree, "an ONNX model")
    pre = _prefix(tree)
    nodes: list = []
    inits: list = []
    graph_inputs, X = _inputs(tree, nodes, inits, pre)

    def const(name: str, value: Any) -> str:
        arr = np.asarray(value)
        if arr.dtype.kind == "U":  # onnx 1.15's from_array takes text as an object array only
            arr = arr.astype(object)
        inits.append(numpy_helper.from_array(arr, pre + name))
        return pre + name

    def op(kind: str, ins: list[str], out: str, **attrs: Any) -> str:
        name = out if out in OUTPUTS else pre + out
        nodes.append(helper.make_node(kind, ins, [name], **attrs))
        return name

    n, first_last = tree.n_nodes, 2 ** (tree.depth - 1) - 1
    # Scores node-major, (n_nodes, N) = W_raw X^T + b_raw, so that each node's row is contiguous.
    # onnxruntime loops element by element over (N, 1)/(N, k) broadcasts (measured 50-100x slower than
    # 1-D), and every N-sized intermediate costs memory traffic: routing therefore works on 1-byte
    # bool rows and int32 node ids, and only the reached score is gathered as a double.
    W = np.ascontiguousarray(tree.W_raw)
    if W.shape[1] == 0:  # no features: onnxruntime < 1.20's Gemm refuses K = 0, so one zero column each side
        W = np.zeros((W.shape[0], 1))
        X = op("Pad", [X, const("pad_one_column", np.asarray([0, 0, 0, 1], dtype=np.int64))], "X_padded")
    ST = op("Gemm", [const("W", W), X, const("b", tree.b_raw.reshape(-1, 1))], "ST", transB=1)
    flat = const("flat", np.asarray([-1], dtype=np.int64))
    zero = const("zero", np.float64(0.0))
    if n == 1:
        z = op("Reshape", [ST, flat], "z")
    else:
        right = op("Greater", [ST, zero], "right")  # (n_nodes, N) bool: every node's decision at once
        # Each routing node's row by Gather with a scalar index, (N,): Split would do it too, but
        # onnxruntime 1.8-1.12 have no bool Split kernel (measured: "Could not find an implementation for Split(13)").
        go = [op("Gather", [right, const(f"node_{t}", np.int64(t))], f"right_{t}", axis=0)
              for t in range(first_last)]

        def reached(t: int) -> str:
            """Id of the last-layer node reached under t: one Where per routing node, bottom up."""
            if t >= first_last:
                return const(f"id_{t}", np.int32(t))
            return op("Where", [go[t], reached(2 * t + 2), reached(2 * t + 1)], f"reached_{t}")

        leaf = op("Unsqueeze", [reached(0), const("axis0", np.asarray([0], dtype=np.int64))], "leaf")
        z = op("Reshape", [op("GatherElements", [ST, leaf], "z_row", axis=0), flat], "z")
    # The reached node is a logistic classifier: P(positive) = 1 / (1 + exp(-z)). In IEEE arithmetic
    # exp(-z) overflows to inf for z < -709 and 1 / inf = 0, the right limit; no NaN can arise. It is
    # cheaper than onnxruntime's double Sigmoid and within 1e-16 of Tree.predict_proba.
    one = const("one", np.float64(1.0))
    denominator = op("Add", [op("Exp", [op("Neg", [z], "minus_z")], "exp_minus_z"), one], "denominator")
    p_pos = op("Reciprocal", [denominator], "p_pos")
    p_neg = op("Sub", [one, p_pos], "p_neg")
    axis1 = const("axis1", np.asarray([1], dtype=np.int64))
    op("Concat", [op("Unsqueeze", [p_neg, axis1], "p_neg_col"), op("Unsqueeze", [p_pos, axis1], "p_pos_col")],
       "probabilities", axis=1)
    labels, ltype = _label_tensor(tree.classes)
    positive = op("Greater", [z, zero], "positive")
    op("Where", [positive, const("class_pos", labels[1]), const("class_neg", labels[0])], "label")
    outputs = [helper.make_tensor_value_info("label", ltype, ["N"]),
               helper.make_tensor_value_info("probabilities", TensorProto.DOUBLE, ["N", 2])]
    graph = helper.make_graph(nodes, "olctc_tree", graph_inputs, outputs, inits)
    opset, ir_version = opset_for(tree)
    imports = [helper.make_opsetid("", opset)]
    if any(nd.domain == ML_DOMAIN for nd in nodes):
        imports.append(helper.make_opsetid(ML_DOMAIN, ML_OPSET))
    model = helper.make_model(graph, opset_imports=imports,
                              producer_name="olctc", producer_version=__version__,
                              doc_string=f"olctc oblique classification tree, depth {tree.depth}")
    model.ir_version = ir_version  # the lowest IR version the opsets allow: older runtimes read it
    helper.set_model_props(model, {
        "olctc.classes": json.dumps(list(tree.classes)),
        "olctc.columns": json.dumps(tree.schema.to_json()),
        "olctc.input_layout": "single 'input' (N, n_features) double" if tree.schema.is_numeric
        else "one (N, 1) input per column: double for numeric, string for categorical",
    })
    onnx.checker.check_model(model, full_check=True)
    return model


def export(tree) -> bytes:
    """Serialized ONNX model (registry entry)."""
    return to_onnx(tree).SerializeToString()


def session(model_or_bytes: Any, options: Any = None):
    """An onnxruntime CPU session for a model produced here (helper for tests and benchmarks)."""
    import onnxruntime as ort

    data = model_or_bytes if isinstance(model_or_bytes, bytes) else model_or_bytes.SerializeToString()
    return ort.InferenceSession(data, sess_options=options, providers=["CPUExecutionProvider"])


def feeds(tree: Tree, X: np.ndarray | None = None, cells: dict[str, Any] | None = None) -> dict[str, np.ndarray]:
    """Input dict for a session: from an encoded matrix X (numeric schemas) or raw cells (any schema)."""
    if tree.schema.is_numeric:
        if X is None:
            X = tree.encode(cells)
        return {"input": np.ascontiguousarray(X, dtype=np.float64)}
    if cells is None:
        raise OlctcError("a schema with categorical columns needs raw cells (column -> values)")
    out: dict[str, np.ndarray] = {}
    for col in tree.schema.columns:
        vals = cells[col.name]
        if col.kind == "numeric":
            out[col.name] = np.asarray(vals, dtype=np.float64).reshape(-1, 1)
        else:
            # str(None) is 'None', a category or an unseen text to the graph: refused as Tree.encode does
            bad = next((i for i, v in enumerate(vals) if _is_missing(v)), None)
            if bad is not None:
                raise _missing("data", col.name, f"row {bad}")
            out[col.name] = np.asarray([str(v) for v in vals], dtype=object).reshape(-1, 1)
    return out
