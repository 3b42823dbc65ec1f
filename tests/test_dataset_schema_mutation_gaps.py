"""Schema encoding, Dataset subsets and from_arrays behaviour a mutation pass (QA 2026-12-06, olctc/data/dataset.py
and olctc/data/arrays.py) found unpinned: each test names the behaviour it pins (those were mutants of the code,
not defects seen in olctc)."""
from __future__ import annotations

import numpy as np
import pytest

from olctc.data import from_arrays, read_csv
from olctc.data.dataset import Column, Dataset, Scaler, Schema, check_dataset
from olctc.errors import OlctcError

MIXED = Schema((Column("a", "numeric"), Column("c", "categorical", ("x", "y"))))


def test_a_schema_with_any_categorical_column_is_not_numeric():
    """is_numeric holds only when every column is numeric (ONNX export picks its input layout by it)."""
    assert not MIXED.is_numeric
    assert not Schema((Column("c", "categorical", ("x",)), Column("a", "numeric"))).is_numeric
    assert Schema((Column("a", "numeric"), Column("b", "numeric"))).is_numeric


def test_a_missing_column_is_named_with_the_columns_the_tree_needs():
    """A column absent from the cells is an OlctcError naming it and the schema's columns, not a KeyError."""
    with pytest.raises(OlctcError, match=r"^new: column 'c' is missing; the tree needs \['a', 'c'\]$"):
        MIXED.encode({"a": [1.0], "other": ["x"]}, "new")


def test_a_text_instead_of_a_list_of_values_is_refused():
    """A bare string is one value, not a column of one-letter rows."""
    with pytest.raises(OlctcError, match=r"column 'c' must hold a list of values, one per row; got 'xy'"):
        MIXED.encode({"a": [1.0, 2.0], "c": "xy"})


def test_a_schema_of_no_column_encodes_n_rows_of_no_feature():
    """With no column the rows are counted by n_rows (the cells say nothing)."""
    assert Schema(()).encode({}, n_rows=3).shape == (3, 0)
    assert Schema(()).encode({}).shape == (0, 0)


@pytest.mark.parametrize("cells, message", [
    ({"a": [1.0, 2.0], "c": ["x"]}, "column 'c' has 1 values, column 'a' has 2"),
    ({"a": [1.0], "c": ["x", "y"]}, "column 'c' has 2 values, column 'a' has 1")])
def test_columns_of_different_lengths_are_refused(cells, message):
    """Every column must have as many values as the first, shorter or longer."""
    with pytest.raises(OlctcError, match=message):
        MIXED.encode(cells)


def test_a_category_listed_twice_sets_both_of_its_columns():
    """A hand-built schema listing a category twice sets each copy's column; unseen rows match none."""
    schema = Schema((Column("c", "categorical", ("x", "x", "y")),))
    unseen: dict[str, np.ndarray] = {}
    X = schema.encode({"c": ["x", "y", "z", "x"]}, unseen=unseen)
    assert X.tolist() == [[1, 1, 0], [0, 0, 1], [0, 0, 0], [1, 1, 0]]
    assert list(unseen) == ["c"] and unseen["c"].tolist() == [2]


def test_a_category_cell_matches_by_its_exact_text():
    """' x' is not the category 'x' (the ONNX and SQL exports compare exact text too): it encodes as none."""
    unseen: dict[str, np.ndarray] = {}
    X = MIXED.encode({"a": [1.0, 2.0], "c": [" x", "x"]}, unseen=unseen)
    assert X.tolist() == [[1, 0, 0], [2, 1, 0]]
    assert unseen["c"].tolist() == [0]


def test_equal_subnormal_weights_give_the_unweighted_moments():
    """Weights are divided by the largest first: equal weights of 1e-320 scale as no weights (they lost digits)."""
    X = np.array([[0.1, 1.0], [0.7, 3.0], [0.3, 2.0], [1e3, 4.0]])
    plain, weighted = Scaler.fit(X), Scaler.fit(X, np.full(4, 1e-320))
    np.testing.assert_allclose(weighted.mean, plain.mean, rtol=1e-14)
    np.testing.assert_allclose(weighted.scale, plain.scale, rtol=1e-14)


def test_a_single_row_within_rounding_of_the_mean_standardises_to_zero():
    """The 1-D path (one row) zeroes values within the mean's rounding as the 2-D path does."""
    scaler = Scaler(np.array([0.1 + 0.2, 1.0]), np.array([2.0, 1.0]))
    assert scaler.transform(np.array([0.3, 3.0])).tolist() == [0.0, 2.0]
    assert scaler.transform(np.array([[0.3, 3.0]])).tolist() == [[0.0, 2.0]]


def test_a_scaler_fitted_on_no_row_is_the_identity():
    """No row to take moments of: mean 0 and scale 1, without numpy's empty-slice failures."""
    scaler = Scaler.fit(np.zeros((0, 2)))
    assert scaler.mean.tolist() == [0.0, 0.0] and scaler.scale.tolist() == [1.0, 1.0]


def _six() -> Dataset:
    """Six points of two features, labels alternating, weights 1..6."""
    return from_arrays(np.arange(12.0).reshape(6, 2), [0, 1] * 3, sample_weight=np.arange(1.0, 7.0))


def test_a_subset_by_mask_records_the_source_rows_it_keeps():
    """A boolean mask keeps the rows where it is True, and records their numbers, not the mask's 0/1."""
    mask = np.array([False, True, False, True, True, False])
    sub = _six().subset(mask)
    assert sub.rows.tolist() == [1, 3, 4] and sub.X[:, 0].tolist() == [2.0, 6.0, 8.0]
    assert sub.weight.tolist() == [2.0, 4.0, 5.0]


def test_a_subset_of_a_subset_records_the_source_rows():
    """Row numbers refer to the source data, through any number of subsets."""
    sub = _six().subset([5, 3, 1, 0]).subset([1, 3])
    assert sub.rows.tolist() == [3, 0] and sub.X[:, 0].tolist() == [6.0, 0.0]


def test_a_subset_keeps_its_sources_weight_column(tmp_path):
    """A subset of data read with a weight column still names it, for a manifest to read the weights again."""
    p = tmp_path / "w.csv"
    p.write_text("a,w,y\n1,2,p\n2,1,q\n3,4,p\n4,3,q\n")
    sub = read_csv(p, "y", weight_column="w").subset([2, 0])
    assert sub.weight_column == "w" and sub.weight.tolist() == [4.0, 2.0]
    assert sub.source_info()["weight_column"] == "w"


@pytest.mark.parametrize("value", [None, [1, 2], np.zeros((2, 2))])
def test_anything_but_a_dataset_is_a_parameter_error(value):
    """fit and cv's Dataset parameter refuses other values up front, naming their type."""
    name = type(value).__name__
    with pytest.raises(OlctcError, match=rf"^The 'ds' parameter must be an olctc Dataset .*Got '{name}'"):
        check_dataset(value)
    check_dataset(_six())


def test_a_subset_of_no_row_is_an_empty_dataset():
    """An empty list of rows (numpy reads it as floats) selects no point rather than failing."""
    sub = _six().subset([])
    assert sub.n == 0 and sub.p == 2 and sub.rows.tolist() == []


@pytest.mark.parametrize("rows", [np.ones(5, bool), np.ones(7, bool), [6], [0, 6], [-1], [0.0, 1.0],
                                  [[0, 1]]])
def test_rows_outside_the_data_or_of_the_wrong_kind_are_refused(rows):
    """Indices must be integers in [0, n) (no negative one), a mask must have n entries, the index must be 1-D:
    an OlctcError, not numpy's IndexError."""
    with pytest.raises(OlctcError, match=r"^The 'rows' parameter must be row indices in \[0, 6\) or a boolean mask"):
        _six().subset(rows)


def test_a_sparse_matrix_is_refused_with_a_hint():
    """scipy.sparse input is refused by name, with the way to make it dense."""
    sparse = pytest.importorskip("scipy.sparse")
    with pytest.raises(OlctcError, match=r"^X is a sparse matrix; olctc takes dense arrays: pass X.toarray\(\)$"):
        from_arrays(sparse.csr_matrix(np.eye(3)), [0, 1, 0])


def test_a_dataframes_column_names_name_the_features():
    """A DataFrame's string column names become the feature names (not x0, x1), unless names are given."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"u": [1.0, 2.0, 3.0], "v": [3.0, 2.0, 1.0]})
    assert from_arrays(frame, [0, 1, 0]).feature_names == ["u", "v"]
    assert from_arrays(frame, [0, 1, 0], feature_names=["p", "q"]).feature_names == ["p", "q"]


def test_the_first_non_finite_value_of_x_is_named():
    """Of several NaN/inf values the first in row order is named, with its row and column."""
    X = np.array([[1.0, np.nan], [2.0, 3.0], [np.inf, 1.0]])
    with pytest.raises(OlctcError, match=r"^X has a missing value \(NaN\) at row 0, column 1;"):
        from_arrays(X, [0, 1, 0])


@pytest.mark.parametrize("names", ["ab", ["a", None]])
def test_a_text_or_a_none_name_is_no_list_of_feature_names(names):
    """'ab' would name two features a and b, and None one 'None': both are parameter errors."""
    with pytest.raises(OlctcError, match=r"^The 'feature_names' parameter must be a list of names, one per column"):
        from_arrays(np.eye(2), [0, 1], feature_names=names)


def test_an_empty_feature_name_is_refused():
    """Every feature needs a name a tree file can save and read back."""
    with pytest.raises(OlctcError, match=r"^feature_names\[0\] is empty; every feature needs a name$"):
        from_arrays(np.eye(2), [0, 1], feature_names=["", "b"])


@pytest.mark.parametrize("missing", ["nan", "NaT"])
def test_a_nan_or_nat_label_among_python_objects_is_no_class(missing):
    """A float NaN or pandas' NaT in an object array of labels is an unlabelled row, not a class of its own."""
    label = float("nan") if missing == "nan" else pytest.importorskip("pandas").NaT
    with pytest.raises(OlctcError, match=r"^y row 2: no class label"):
        from_arrays(np.eye(4), np.array([0, 1, label, 1], dtype=object))


def test_the_hash_of_arrays_covers_labels_and_weights():
    """Datasets differing only in their labels or their weights hash differently (manifests tell them apart)."""
    X = np.arange(8.0).reshape(4, 2)
    base = from_arrays(X, [0, 1, 0, 1]).sha256
    assert from_arrays(X, [0, 1, 0, 1]).sha256 == base
    assert from_arrays(X, [1, 0, 1, 0]).sha256 != base
    assert from_arrays(X, [0, 1, 0, 1], sample_weight=[1, 2, 1, 1]).sha256 != base
    assert from_arrays(X, [0, 1, 0, 1], sample_weight=[1, 2, 1, 1]).sha256 != from_arrays(
        X, [0, 1, 0, 1], sample_weight=[1, 1, 2, 1]).sha256
