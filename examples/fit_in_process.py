"""Fit an OLCT in process on a vendored data set, then export it (JSON, ONNX) and check the ONNX model.

Run: python examples/fit_in_process.py [OUTPUT_FOLDER]
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from olctc.datasets import load
from olctc.export import onnx as olctc_onnx
from olctc.export.json import save
from olctc.fit import fit, summary_lines
from olctc.spec import make_spec

out = Path(sys.argv[1] if len(sys.argv) > 1 else ".")
out.mkdir(parents=True, exist_ok=True)
ds = load("heart")
# the score-variable form, as `olctc fit` and the estimators solve by default: HiGHS does better in it
spec = make_spec(preset="olct", depth=2, C=1.0, score_variables=True)
res = fit(ds, spec, solver="highs", time_limit=20, test_size=0.2, seed=0, verbose=False)
print("\n".join(summary_lines(res.summary)))

save(res.tree, out / "heart_tree.json")
model = olctc_onnx.to_onnx(res.tree)
(out / "heart_tree.onnx").write_bytes(model.SerializeToString())
sess = olctc_onnx.session(model)
label, proba = sess.run(None, olctc_onnx.feeds(res.tree, ds.X))
assert np.array_equal(label, res.tree.predict(ds.X))
assert np.allclose(proba, res.tree.predict_proba(ds.X))
print(f"wrote {out / 'heart_tree.json'} and {out / 'heart_tree.onnx'} (ONNX predictions match)")
