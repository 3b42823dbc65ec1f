"""The names on ``olctc`` itself (imported on first use) and ``Tree.save`` / ``Tree.load``."""
from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys

import numpy as np
import pytest

import olctc
from olctc import OlctcError

HOMES = {
    "OLCTClassifier": ("olctc.estimator", "OLCTClassifier"),
    "MARGOTClassifier": ("olctc.estimator", "MARGOTClassifier"),
    "OCTHClassifier": ("olctc.estimator", "OCTHClassifier"),
    "Tree": ("olctc.tree", "Tree"),
    "load_tree": ("olctc.export.json", "load"),
    "export_tree": ("olctc.export", "export_tree"),
    "read_csv": ("olctc.data", "read_csv"),
    "from_arrays": ("olctc.data", "from_arrays"),
    "make_spec": ("olctc.spec", "make_spec"),
    "compile_problem": ("olctc.compile", "compile_problem"),
    "load_dataset": ("olctc.datasets", "load_dataset"),
    "dataset_names": ("olctc.datasets", "dataset_names"),
    "OlctcError": ("olctc.errors", "OlctcError"),
}


def _fresh(code: str) -> str:
    """Run ``code`` in a new interpreter (nothing imported yet) and return its stdout."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout


@pytest.mark.parametrize("name", sorted(HOMES))
def test_each_name_is_its_home_modules_object(name):
    module, attr = HOMES[name]
    assert getattr(olctc, name) is getattr(importlib.import_module(module), attr)


def test_all_lists_exactly_the_names_and_dir_shows_them():
    assert set(olctc.__all__) == set(HOMES) | {"__version__"}
    assert set(HOMES) <= set(dir(olctc))


def test_import_stays_light_and_names_load_on_first_use():
    out = _fresh("import sys, olctc\n"
                 "heavy = ('sklearn', 'onnx', 'mip', 'highspy', 'pyscipopt', 'olctc.estimator', 'olctc.compile')\n"
                 "print(sorted(m for m in heavy if m in sys.modules))\n"
                 "olctc.OLCTClassifier\n"
                 "print('sklearn' in sys.modules, 'olctc.estimator' in sys.modules)\n")
    assert out.splitlines() == ["[]", "True True"]


def test_a_tree_loads_and_predicts_without_scipy_or_the_model_builder(tmp_path):
    """predict and export load a tree: scipy.sparse (0.1 s) only for decision_path, the MILP builder never (it
    loaded scipy.sparse for every olctc predict, through Topology's package)."""
    X, y, _ = olctc.load_dataset("breast")
    tree = olctc.OLCTClassifier(depth=1, time_limit=20).fit(X, y).tree_
    olctc.export_tree(tree, "json", tmp_path / "t.json")
    out = _fresh("import sys, numpy as np, olctc\n"
                 f"t = olctc.load_tree({str(tmp_path / 't.json')!r})\n"
                 "X = np.zeros((3, 30))\n"
                 "t.predict(X), t.predict_proba(X), olctc.export.render(t, 'python')\n"
                 "heavy = ('scipy', 'scipy.sparse', 'sklearn', 'olctc.formulation.builder', 'olctc.milp')\n"
                 "print(sorted(m for m in heavy if m in sys.modules))\n"
                 "print(t.decision_path(X).shape, 'scipy.sparse' in sys.modules)\n")
    assert out.splitlines() == ["[]", "(3, 1) True"]


def test_star_import_binds_every_name():
    out = _fresh("from olctc import *\n"
                 "import olctc\n"
                 "print(all(globals()[n] is getattr(olctc, n) for n in olctc.__all__))\n")
    assert out.strip() == "True"


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match=r"^module 'olctc' has no attribute 'OLCTClassifer'$"):
        olctc.OLCTClassifer  # noqa: B018 (a typo a user makes)
    assert not hasattr(olctc, "nope")
    with pytest.raises(ImportError, match="cannot import name 'nope'"):
        exec("from olctc import nope", {})


def test_the_fit_module_is_not_shadowed():
    # ``olctc.fit`` is a module: a top-level function of that name would be replaced on the module's import.
    import olctc.fit

    assert callable(olctc.fit.fit) and olctc.fit.__name__ == "olctc.fit"


def _tree():
    W = np.array([[0.5, -1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 0.25, -0.5]])
    tree = olctc.Tree.from_arrays(W, [0.1, -0.2, 0.3], feature_names=["a", "b", "c"], classes=("no", "yes"))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    tree.fit_stats(X, np.where(X[:, 0] > 0, 1, -1))
    return tree, X


def test_tree_save_load_round_trip(tmp_path):
    tree, X = _tree()
    path = tmp_path / "tree.json"
    tree.save(path)
    back = olctc.Tree.load(path)
    assert back.to_dict() == tree.to_dict()
    assert list(back.predict(X)) == list(tree.predict(X))
    assert json.loads(path.read_text())["format"] == "olctc-tree"


def test_tree_load_takes_a_path_that_looks_like_json(tmp_path, monkeypatch):
    # export.json.load reads a str starting with "{" as JSON text; Tree.load's argument is always a path.
    tree, _ = _tree()
    monkeypatch.chdir(tmp_path)
    tree.save("{odd}.json")
    assert olctc.Tree.load("{odd}.json").to_dict() == tree.to_dict()


def test_tree_load_and_save_errors_name_the_file(tmp_path):
    tree, _ = _tree()
    with pytest.raises(OlctcError, match=r"missing\.json: no such file$"):
        olctc.Tree.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": \"olctc-tree\"")
    with pytest.raises(OlctcError, match=r"bad\.json: not valid JSON"):
        olctc.Tree.load(bad)
    with pytest.raises(OlctcError, match="no-such-folder"):
        tree.save(tmp_path / "no-such-folder" / "tree.json")
    assert not (tmp_path / "no-such-folder").exists()


def test_front_door_names_fit_save_and_reload(tmp_path):
    """The README's Python start, through the top-level names only: fit, save, reload, same answers."""
    X, y, names = olctc.load_dataset("breast")
    est = olctc.OLCTClassifier(depth=1, C=1.0, time_limit=30).fit(X, y)
    est.export_tree().save(tmp_path / "tree.json")
    back = olctc.Tree.load(tmp_path / "tree.json")
    assert (back.predict(X) == est.predict(X)).all()
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X), rtol=0, atol=1e-12)
    assert back.n_features == X.shape[1] == len(names)  # a bare array: the tree names them x0, x1, ...
    assert (est.predict(X) == y).mean() > 0.9


def test_readme_python_block_runs(tmp_path):
    """The README's scikit-learn block as written, with shorter fits (2 folds, 5 s each instead of 4 x 30 s, on
    heart's first 40 rows: the depth-2 fits on 20 and 40 points are solved at once, where on the whole set each
    ran to its limit), in this process (n_jobs=1: loky's two fresh workers, importing scikit-learn and olctc,
    took 4-5 s of the test's 11-13; GridSearchCV with loky workers is tested in test_qa_ecosystem)."""
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    section = readme.split("## From Python: scikit-learn estimators", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    load = 'X, y, names = load_dataset("heart")\n'
    fast = code.replace("time_limit=30", "time_limit=5").replace("cv=4", "cv=2").replace("n_jobs=2", "n_jobs=1")
    fast = fast.replace(load, load + "X, y = X[:40], y[:40]\n")
    assert fast.count("time_limit=5") == 1 and "cv=2" in fast and "n_jobs=1" in fast and code.count(load) == 1, \
        "the README block changed: update this test"
    out = subprocess.run([sys.executable, "-c", fast], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "tree.json").stat().st_size > 0 and (tmp_path / "tree.onnx").stat().st_size > 0
    printed = out.stdout.strip()
    X, y, _ = olctc.load_dataset("heart")
    assert printed.startswith("[") and len(printed.strip("[]").split()) == 5
    assert set(printed.strip("[]").split()) <= {str(v) for v in np.unique(y)}
