"""Choose C by cross-validation with scikit-learn's GridSearchCV around OLCTClassifier, export to ONNX.

Run: python examples/grid_search.py
"""
from __future__ import annotations

import numpy as np
from skl2onnx import to_onnx
from sklearn.model_selection import GridSearchCV, StratifiedKFold, train_test_split

import olctc.estimator  # noqa: F401  (registers the skl2onnx converter)
from olctc.datasets import load_dataset
from olctc.estimator import OLCTClassifier

X, y, names = load_dataset("heart")
y = y.astype(int)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)

search = GridSearchCV(
    OLCTClassifier(depth=2, time_limit=10),
    {"C": [(c1, c2) for c1 in (0.1, 1.0) for c2 in (0.1, 1.0)]},  # one C per layer, root first
    cv=StratifiedKFold(3, shuffle=True, random_state=0), scoring="balanced_accuracy", n_jobs=2)
search.fit(X_train, y_train)
for params, mean in zip(search.cv_results_["params"], search.cv_results_["mean_test_score"]):
    print(f"C = {params['C']}: mean balanced accuracy {mean:.4f}")
best = search.best_estimator_
print(f"best C {search.best_params_['C']}, MIP gap {best.mip_gap_}, test accuracy {best.score(X_test, y_test):.4f}")

onx = to_onnx(best, X_test[:1].astype(np.float64), options={id(best): {"zipmap": False}})
import onnxruntime as ort

sess = ort.InferenceSession(onx.SerializeToString(), providers=["CPUExecutionProvider"])
label, proba = sess.run(None, {sess.get_inputs()[0].name: X_test.astype(np.float64)})
assert np.array_equal(label, best.predict(X_test))
print("ONNX (skl2onnx) predictions match")
