"""QA of olctc in a data scientist's workflow: pandas input, scikit-learn composition, persistence across
interpreters, the exports fed from DataFrames, fits in threads, error messages.

Tests that need pandas skip without it; the behaviours that do not depend on pandas (a row keyed by name,
a table with another row index) are also checked with small duck-typed stand-ins.
"""
from __future__ import annotations

import csv
import gzip
import json
import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from olctc.datasets import dataset_path, load_dataset
from olctc.errors import OlctcError
from olctc.estimator import OLCTClassifier

FIT = dict(time_limit=10, threads=1)


@pytest.fixture(scope="module")
def heart():
    """80 rows of heart (40 per class): X, y (ints 0/1), feature names."""
    X, y, names = load_dataset("heart")
    rows = np.concatenate([np.flatnonzero(y == 1)[:40], np.flatnonzero(y == 0)[:40]])
    return X[rows], y[rows].astype(np.int64), names


@pytest.fixture(scope="module")
def heart_depth1(heart):
    X, y, names = heart
    return OLCTClassifier(depth=1, **FIT).fit(X, y)


# ---------------------------------------------------------------- a tree with text columns, from a CSV

CP = {1: "typical", 2: "atypical", 3: "nonanginal", 4: "asymptomatic"}


@pytest.fixture(scope="module")
def mixed(tmp_path_factory):
    """A depth-2 tree fitted (olctc.fit, as ``olctc fit``) on a CSV of 40 heart rows (20 per class: proven
    optimal in about 2 s, where 80 rows took about 8 s) whose columns cp and thal are text, every category of
    both present: (tree, folder, header, rows of raw cells as strings)."""
    from olctc.data import read_csv
    from olctc.fit import fit
    from olctc.spec import make_spec

    folder = tmp_path_factory.mktemp("qa_eco")
    with gzip.open(dataset_path("heart"), "rt", newline="") as f:
        table = list(csv.reader(f))
    header, body = table[0], table[1:]
    iy, icp, ithal = header.index("y"), header.index("cp"), header.index("thal")
    body = [r for r in body if r[iy] == "1"][:20] + [r for r in body if r[iy] == "0"][:20]
    rows = []
    for r in body:
        r = list(r)
        r[icp] = CP[int(float(r[icp]))]
        r[ithal] = f"t{int(float(r[ithal]))}"
        r[iy] = "sick" if r[iy] == "1" else "healthy"
        rows.append(r)
    with open(folder / "mixed.csv", "w", newline="") as f:
        csv.writer(f).writerows([header] + rows)
    ds = read_csv(folder / "mixed.csv", "y")
    res = fit(ds, make_spec(preset="olct", depth=2, C=1.0), time_limit=15, threads=1, verbose=False,
              echo=lambda s: None)
    tree = res.tree
    assert [c.kind for c in tree.schema.columns if c.name in ("cp", "thal")] == ["categorical"] * 2
    features = [h for h in header if h != "y"]
    return tree, folder, features, [[c for c, h in zip(r, header) if h != "y"] for r in rows]


def _mixed_frame(mixed):
    """The mixed tree's raw rows as a DataFrame of typed columns (int, bool, nullable, category, string),
    columns in reverse order, a non-default index, and two unseen categories."""
    pd = pytest.importorskip("pandas")
    tree, folder, features, rows = mixed
    df = pd.DataFrame(rows, columns=features)
    for c in features:
        if c not in ("cp", "thal"):
            df[c] = df[c].astype(float)
    df["sex"] = df["sex"].astype(int)
    df["fbs"] = df["fbs"].astype(bool)
    df["exang"] = df["exang"].astype("boolean")
    df["ca"] = df["ca"].astype("Int64")
    df["cp"] = df["cp"].astype("category")
    df["thal"] = df["thal"].astype("string[python]")
    df.loc[0, "thal"] = "t99"  # unseen categories: add nothing to any score
    df["cp"] = df["cp"].cat.add_categories(["never seen"])
    df.loc[1, "cp"] = "never seen"
    df.index = np.arange(700, 700 - len(df), -1)
    return df[features[::-1]]


def test_tree_exports_agree_on_pandas_rows_with_text_and_unseen_categories(mixed, tmp_path):
    """Tree.encode of a typed DataFrame, the generated module in a fresh interpreter (rows as Series and as
    dicts) and the ONNX graph give the same probabilities."""
    pd = pytest.importorskip("pandas")
    from olctc.export import export_tree
    from olctc.export.onnx import feeds, session

    tree = mixed[0]
    df = _mixed_frame(mixed)
    X = tree.encode(df)
    P = tree.predict_proba(X)
    # the raw frame as floats and strings gives the same encoding
    plain = pd.DataFrame(mixed[3], columns=mixed[2])
    plain.loc[0, "thal"], plain.loc[1, "cp"] = "t99", "never seen"
    assert np.array_equal(tree.encode(plain), X)
    assert not X[0, [j for j, n in enumerate(tree.feature_names) if n.startswith("thal=")]].any()

    export_tree(tree, "python", tmp_path / "tree.py")
    df.to_pickle(tmp_path / "rows.pkl")
    code = ("import json, runpy, sys, pandas as pd\n"
            "m = runpy.run_path(sys.argv[1]); df = pd.read_pickle(sys.argv[2])\n"
            "a = [m['predict_proba'](r)[1] for _, r in df.iterrows()]\n"
            "b = [m['predict_proba'](r)[1] for r in df.to_dict('records')]\n"
            "c = [m['predict'](r) for r in df.to_dict('records')]\n"
            "print(json.dumps([a, b, c]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "tree.py"), str(tmp_path / "rows.pkl")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    a, b, c = json.loads(out.stdout)
    assert np.abs(np.array(a) - P[:, 1]).max() <= 1e-9 and np.abs(np.array(b) - P[:, 1]).max() <= 1e-9
    assert c == tree.predict(X).tolist()

    export_tree(tree, "onnx", tmp_path / "tree.onnx")
    label, proba = session((tmp_path / "tree.onnx").read_bytes()).run(None, feeds(tree, cells=df))
    assert np.abs(proba - P).max() <= 1e-9
    assert label.tolist() == tree.predict(X).tolist()


def test_encode_reads_rows_by_position_whatever_the_index(mixed):
    """A bad cell of a DataFrame indexed 700, 699, ... raised KeyError (the Series was read by label)."""
    pd = pytest.importorskip("pandas")
    tree = mixed[0]
    df = _mixed_frame(mixed)
    bad = df.copy()
    bad.iloc[5, bad.columns.get_loc("age")] = np.nan
    with pytest.raises(OlctcError, match=r"column 'age' row 5: a missing value; fill or drop missing values"):
        tree.encode(bad)
    bad = df.copy()
    bad["ca"] = bad["ca"].astype("Int64")
    bad.loc[bad.index[3], "ca"] = pd.NA
    with pytest.raises(OlctcError, match=r"column 'ca' row 3: a missing value; fill or drop missing values"):
        tree.encode(bad)
    with pytest.raises(OlctcError, match="column 'age' is missing"):
        tree.encode(df.drop(columns="age"))
    assert np.array_equal(tree.encode(df.assign(extra=1)), tree.encode(df))  # other columns: ignored


class LabelColumn:
    """A column indexed by row labels (as a pandas Series with an index other than 0..n-1), no pandas."""

    def __init__(self, values, labels):
        self._v, self._by_label = np.asarray(values), dict(zip(labels, values))

    def __getitem__(self, label):
        return self._by_label[label]

    def __len__(self):
        return len(self._v)

    def __iter__(self):
        return iter(self._v.tolist())

    def __array__(self, dtype=None, copy=None):
        return self._v if dtype is None else self._v.astype(dtype)

    def to_numpy(self):
        return self._v


def test_encode_of_label_indexed_columns_names_the_row_without_pandas(mixed):
    tree, _, features, rows = mixed
    cells = {c: [r[k] for r in rows] for k, c in enumerate(features)}
    labels = list(range(500, 500 + len(rows)))
    cells["age"] = LabelColumn([float(v) for v in cells["age"][:4]] + [np.nan] + [0.0] * (len(rows) - 5), labels)
    with pytest.raises(OlctcError, match=r"column 'age' row 4: a missing value; fill or drop missing values"):
        tree.encode(cells)


class Frame:
    """A DataFrame-like table without pandas: ``columns`` plus ``__array__``."""

    def __init__(self, X, columns):
        self._X, self.columns, self.shape = np.asarray(X), list(columns), np.shape(X)

    def __array__(self, dtype=None, copy=None):
        return self._X if dtype is None else self._X.astype(dtype)

    def __len__(self):
        return self._X.shape[0]


class Row:
    """One row keyed by feature name (a pandas Series' interface: index, keys, values), no pandas."""

    def __init__(self, values, names):
        self.index, self._v = list(names), np.asarray(values, dtype=np.float64)

    def keys(self):
        return self.index

    def tolist(self):
        return self._v.tolist()

    def __array__(self, dtype=None, copy=None):
        return self._v if dtype is None else self._v.astype(dtype)

    def __len__(self):
        return len(self._v)


def test_a_row_keyed_by_name_is_read_by_name_not_position(heart, heart_depth1):
    """``tree.explain(df.iloc[i])`` of a frame whose columns are in another order explained another point
    (read by position); ``tree.predict(row)`` predicted it silently wrong."""
    X, y, names = heart
    tree = OLCTClassifier(depth=1, **FIT).fit(Frame(X, names), y).export_tree()
    assert tree.feature_names == names
    order = names[::-1]
    for i in (0, 1, 50):
        want = tree.explain(X[i]).probability
        row = Row(X[i][::-1], order)
        assert tree.explain(row).probability == want
        assert tree.explain(Row(X[i], names)).probability == want
        with pytest.raises(OlctcError, match="another order"):
            tree.predict_proba(row)
        assert tree.predict_proba(Row(X[i], names))[0, 1] == want


def test_pandas_row_of_raw_cells_explains_as_its_dict(mixed):
    pytest.importorskip("pandas")
    tree = mixed[0]
    df = _mixed_frame(mixed)
    X = tree.encode(df)
    for i in (0, 1, 7):
        e = tree.explain(df.iloc[i])
        assert e.probability == tree.explain(df.iloc[i].to_dict()).probability == tree.predict_proba(X[i])[0, 1]


def test_missing_cells_of_nullable_columns_are_named(heart_depth1, heart):
    """pd.NA in an Int64/boolean column: the cell is named, not "use Tree.encode for raw cells"."""
    pd = pytest.importorskip("pandas")
    X, y, names = heart
    tree = OLCTClassifier(depth=1, **FIT).fit(pd.DataFrame(X, columns=names), y).export_tree()
    df = pd.DataFrame(X, columns=names, index=np.arange(100, 180))
    for col, dtype in (("ca", "Int64"), ("fbs", "boolean"), ("oldpeak", "Float64")):
        bad = df.copy()
        bad[col] = bad[col].astype(dtype)
        bad.loc[103, col] = pd.NA
        with pytest.raises(OlctcError, match=rf"missing value \(NaN\) at row 3, feature '{col}'"):
            tree.predict(bad)
    text = df.astype({"ca": object})
    text.loc[101, "ca"] = "x"
    with pytest.raises(OlctcError, match="numeric encoded feature matrix"):
        tree.predict(text)


# ---------------------------------------------------------------- the estimator and pandas


def test_dataframe_dtypes_fit_the_same_tree_as_floats(heart):
    pd = pytest.importorskip("pandas")
    X, y, names = heart
    df = pd.DataFrame(X, columns=names, index=np.arange(1000, 1080))
    base = OLCTClassifier(depth=1, **FIT).fit(df, y)
    typed = df.astype({"sex": int, "fbs": bool, "cp": "category", "ca": "Int64", "exang": "boolean"})
    typed["thal"] = typed["thal"].astype(str).astype("string[python]")
    est = OLCTClassifier(depth=1, **FIT).fit(typed, pd.Series(y, index=np.arange(80)))  # index not aligned
    assert list(est.feature_names_in_) == names and est.tree_.feature_names == names
    assert np.array_equal(est.tree_.W, base.tree_.W) and np.array_equal(est.tree_.b, base.tree_.b)
    assert np.array_equal(est.predict_proba(typed), base.predict_proba(df))
    with pytest.raises(ValueError, match="Feature names must be in the same order"):
        est.predict(df[names[::-1]])
    with pytest.raises(ValueError, match="unseen at fit time"):
        est.predict(df.assign(extra=1.0))
    with pytest.raises(ValueError, match="yet now missing"):
        est.predict(df.drop(columns="age"))
    with pytest.warns(UserWarning, match="valid feature names"):
        assert np.array_equal(est.predict(X), base.predict(df))


def test_label_series_give_the_classes_logistic_regression_gives(heart):
    pd = pytest.importorskip("pandas")
    from sklearn.linear_model import LogisticRegression

    X, y, names = heart
    text = np.where(y == 1, "sick", "healthy")
    for ys in (pd.Series(text), pd.Series(y == 1), pd.Series(pd.Categorical(text)), pd.Series(y, dtype="Int64"),
               pd.Series(text, dtype="string"), pd.Series(y == 1, dtype="boolean")):
        est = OLCTClassifier(depth=1, **FIT).fit(X, ys)
        ref = LogisticRegression(max_iter=5000).fit(X, ys)
        kind = {"O": "text", "U": "text"}  # olctc keeps text labels as a str array, LogisticRegression as objects
        assert est.classes_.tolist() == ref.classes_.tolist()
        assert kind.get(est.classes_.dtype.kind, est.classes_.dtype.kind) == \
            kind.get(ref.classes_.dtype.kind, ref.classes_.dtype.kind)
        assert set(est.predict(X).tolist()) <= set(ref.classes_.tolist())
        assert est.score(X, ys) > 0.7


def test_column_transformer_with_pandas_output_and_skl2onnx(mixed):
    """OneHotEncoder on the text columns, set_output(pandas) upstream: the tree gets the transformer's names,
    the same probabilities as with arrays, and skl2onnx's graph of the whole pipeline (one string input per
    text column, unseen categories) agrees."""
    pd = pytest.importorskip("pandas")
    from sklearn.compose import ColumnTransformer
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import OneHotEncoder, StandardScaler
    from skl2onnx import to_onnx

    from olctc.export.onnx import session

    _, _, features, rows = mixed
    X = pd.DataFrame(rows, columns=features)
    y = np.where(np.arange(len(rows)) < len(rows) // 2, "sick", "healthy")  # the rows' first half is class 1
    num = [c for c in features if c not in ("cp", "thal")]
    X[num] = X[num].astype(np.float64)
    ct = ColumnTransformer([("cat", OneHotEncoder(handle_unknown="ignore", sparse_output=False), ["cp", "thal"]),
                            ("num", StandardScaler(), num)])
    arrays = make_pipeline(ct, OLCTClassifier(depth=1, **FIT)).fit(X, y)
    frames = make_pipeline(clone(ct).set_output(transform="pandas"), OLCTClassifier(depth=1, **FIT)).fit(X, y)
    names = list(frames[-1].feature_names_in_)
    assert names[:2] == ["cat__cp_asymptomatic", "cat__cp_atypical"] and frames[-1].tree_.feature_names == names
    assert not hasattr(arrays[-1], "feature_names_in_")
    Xq = X.copy()
    Xq.loc[0, "cp"], Xq.loc[1, "thal"] = "never seen", "t99"
    assert np.array_equal(frames.predict_proba(Xq), arrays.predict_proba(Xq))
    model = to_onnx(arrays, X[:1], options={id(arrays[-1]): {"zipmap": False}},
                    target_opset={"": 19, "ai.onnx.ml": 3})
    sess = session(model)
    feed = {i.name: Xq[[i.name]].to_numpy().astype(object if "string" in i.type else np.float64)
            for i in sess.get_inputs()}
    label, proba = sess.run(None, feed)
    assert np.abs(proba - arrays.predict_proba(Xq)).max() <= 1e-9
    assert label.tolist() == arrays.predict(Xq).tolist()


# ---------------------------------------------------------------- scikit-learn composition


def test_meta_estimators_with_loky_workers_and_sample_weights(heart):
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.ensemble import BaggingClassifier, VotingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, StratifiedKFold, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, _ = heart
    est = OLCTClassifier(depth=1, **FIT)
    cv = StratifiedKFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(make_pipeline(StandardScaler(), est), X, y, cv=cv, n_jobs=2)
    serial = cross_val_score(make_pipeline(StandardScaler(), est), X, y, cv=cv, n_jobs=1)
    assert np.array_equal(scores, serial) and scores.mean() > 0.7
    gs = GridSearchCV(est, {"C": [0.1, 10.0]}, cv=cv, n_jobs=2).fit(X, y)
    assert np.isfinite(gs.cv_results_["mean_test_score"]).all()
    cal = CalibratedClassifierCV(est, cv=3).fit(X, y)
    P = cal.predict_proba(X)
    assert P.shape == (80, 2) and np.allclose(P.sum(axis=1), 1) and cal.score(X, y) > 0.7
    w = np.where(y == 1, 2.0, 1.0)
    vote = VotingClassifier([("tree", est), ("lr", LogisticRegression(max_iter=5000))], voting="soft")
    assert vote.fit(X, y, sample_weight=w).score(X, y) > 0.7
    bag = BaggingClassifier(est, n_estimators=3, random_state=0).fit(X, y, sample_weight=w)
    assert bag.score(X, y) > 0.7 and all(hasattr(e, "tree_") for e in bag.estimators_)


def test_clone_params_and_repr():
    est = OLCTClassifier(depth=3, C=(1.0, 10.0, 0.5), tangents=[0.5, 1.0], positive_class="sick",
                         class_weight={"sick": 2.0}, solver="highs", threads=1)
    c = clone(est)
    assert c.get_params() == est.get_params() and c is not est
    other = OLCTClassifier().set_params(**est.get_params())
    assert other.get_params() == est.get_params()
    assert " ".join(repr(est).split()) == ("OLCTClassifier(C=(1.0, 10.0, 0.5), class_weight={'sick': 2.0}, "
                                           "depth=3, positive_class='sick', solver='highs', tangents=[0.5, 1.0], "
                                           "threads=1)")
    assert repr(OLCTClassifier()) == "OLCTClassifier()"


# ---------------------------------------------------------------- persistence


def test_pickle_joblib_and_json_round_trips_in_a_fresh_interpreter(heart, tmp_path):
    import joblib
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from olctc.export.json import dump, load

    X, y, names = heart
    X, y = X[20:60], y[20:60]  # 20 rows per class: the depth-2 fit is proven optimal in about a second
    ys = np.where(y == 1, "sick", "healthy")
    pipe = make_pipeline(StandardScaler(), OLCTClassifier(depth=2, positive_class="healthy", **FIT)).fit(X, ys)
    tree = pipe[-1].export_tree()
    (tmp_path / "pipe.pkl").write_bytes(pickle.dumps(pipe))
    joblib.dump(pipe, tmp_path / "pipe.joblib")
    (tmp_path / "tree.pkl").write_bytes(pickle.dumps(tree))
    np.save(tmp_path / "X.npy", X)
    code = ("import json, pickle, sys, joblib, numpy as np\n"
            "d = sys.argv[1]; X = np.load(d + '/X.npy')\n"
            "a = pickle.load(open(d + '/pipe.pkl', 'rb')); b = joblib.load(d + '/pipe.joblib')\n"
            "t = pickle.load(open(d + '/tree.pkl', 'rb'))\n"
            "Z = a[:-1].transform(X)\n"
            "print(json.dumps([a.predict_proba(X).tolist(), b.predict_proba(X).tolist(), a.predict(X).tolist(),\n"
            "                  t.predict_proba(Z).tolist(), t.predict(Z).tolist()]))\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    pa, pb, la, pt, lt = json.loads(out.stdout)
    P = pipe.predict_proba(X)
    assert np.array_equal(pa, P) and np.array_equal(pb, P) and la == pipe.predict(X).tolist()
    Z = pipe[:-1].transform(X)
    assert np.array_equal(pt, tree.predict_proba(Z)) and lt == tree.predict(Z).tolist()
    # classes (negative, positive) = ("sick", "healthy"): the tree's columns, the estimator's in classes_ order
    assert np.array_equal(np.asarray(pt)[:, ::-1], P)
    back = load(dump(tree))
    assert back.classes == ("sick", "healthy")
    assert np.array_equal(back.predict_proba(Z), tree.predict_proba(Z))
    assert back.predict(Z).tolist() == pipe.predict(X).tolist()


# ---------------------------------------------------------------- threads


def test_two_fits_at_once_in_threads_give_the_sequential_trees(heart):
    # highspy 1.16 keeps the locks of its threaded solve (Highs.solve) on the class: a second solve at once
    # raised HighsError('Solver is already running.'); olctc now solves in its own solver threads.
    X, y, _ = heart
    Xb, yb, _ = load_dataset("breast")
    rows = np.concatenate([np.flatnonzero(yb == 1)[:40], np.flatnonzero(yb == 0)[:40]])
    # 20 heart rows per class (all 80 took about 6 s each to prove optimal, and ran into the limit on a busy
    # machine): both fits still take about a second, long enough to solve at the same time
    jobs = [(X[20:60], y[20:60], 1.0), (Xb[rows], yb[rows], 10.0)]

    def fit(job):
        return OLCTClassifier(depth=2, C=job[2], time_limit=20, threads=1).fit(job[0], job[1])

    seq = [fit(j) for j in jobs]
    with ThreadPoolExecutor(2) as pool:
        par = list(pool.map(fit, jobs))
    for a, b in zip(seq, par):
        assert a.summary_["status"] == b.summary_["status"] == "optimal"
        assert np.array_equal(a.tree_.W, b.tree_.W) and np.array_equal(a.tree_.b, b.tree_.b)


# ---------------------------------------------------------------- error messages


def test_error_messages(heart, heart_depth1):
    X, y, names = heart
    with pytest.raises(NotFittedError, match="not fitted yet"):
        OLCTClassifier().predict(X)
    with pytest.raises(NotFittedError):
        OLCTClassifier().export_tree()
    with pytest.raises(ValueError, match=r"^Only binary classification is supported.*\(3 classes\).*OneVsRest"):
        OLCTClassifier(depth=1, **FIT).fit(X, np.array(["a", "b", "c"])[np.arange(80) % 3])
    with pytest.raises(ValueError, match="X has 5 features, but OLCTClassifier is expecting 13 features"):
        heart_depth1.predict(X[:, :5])
    with pytest.raises(OlctcError, match=r"^X must have shape \(n, 13\); got \(80, 5\)$"):
        heart_depth1.tree_.predict(X[:, :5])
    with pytest.raises(OlctcError, match=r"^X must have shape \(n, 13\); got \(0,\)$"):  # said (1, 0)
        heart_depth1.tree_.predict([])
    # a scipy sparse matrix (LIBSVM data) is read as the matrix it is (it was refused: "use Tree.encode")
    import scipy.sparse as sp

    tree = heart_depth1.tree_
    np.testing.assert_array_equal(tree.predict(sp.csr_matrix(X)), tree.predict(X))
    np.testing.assert_array_equal(tree.predict_proba(sp.csc_matrix(X[:3])), tree.predict_proba(X[:3]))
    bad = X.copy()
    bad[3, 4] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        heart_depth1.predict(bad)
    with pytest.raises(OlctcError, match=r"^X has a missing value \(NaN\) at row 3, feature 'x4'; fill or drop missing values$"):
        heart_depth1.tree_.predict(bad)


def test_error_messages_on_dataframes(heart):
    pd = pytest.importorskip("pandas")
    X, y, names = heart
    df = pd.DataFrame(X, columns=names, index=np.arange(100, 180))
    est = OLCTClassifier(depth=1, **FIT).fit(df, y)
    bad = df.copy()
    bad.loc[103, "chol"] = np.nan
    with pytest.raises(ValueError, match="Input X contains NaN"):
        est.predict(bad)
    with pytest.raises(OlctcError, match=r"^X has a missing value \(NaN\) at row 3, feature 'chol'; fill or drop missing values$"):
        est.tree_.predict(bad)
    with pytest.raises(ValueError, match="could not convert string to float"):
        OLCTClassifier(depth=1, **FIT).fit(df.assign(cp="text"), y)
    with pytest.raises(ValueError, match=r"\(3 classes\)"):
        OLCTClassifier(depth=1, **FIT).fit(df, pd.Series(pd.Categorical(np.arange(80) % 3)))
