"""Labels, weights, Dataset and from_arrays behaviour a third mutation pass over olctc/data/labels.py, weights.py,
dataset.py and arrays.py (QA 2026-12-07, after test_data_mutation_gaps, test_data_mutation_gaps2 and
test_dataset_schema_mutation_gaps) found unpinned. Each test names the wrong behaviour it rules out (mutants of the
code unless a test says it found a defect)."""
from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

from olctc.data import binarise_labels, class_weight_by_label, from_arrays, read_csv
from olctc.data.dataset import Column, Dataset, Schema
from olctc.errors import OlctcError


def test_infinite_label_texts_stay_texts():
    """'inf' and '-inf' are labels of text (as 'nan' is no class): read as floats they were written to the
    manifest as JSON's non-standard Infinity."""
    y, classes = binarise_labels(["inf", "-inf", "inf"])
    assert classes == ("-inf", "inf") and y.tolist() == [1, -1, 1]


def test_an_integral_label_of_2_53_stays_a_float():
    """2**53 is where floats stop holding every integer: '9007199254740992.0' is a float label, not an int."""
    _, classes = binarise_labels(["9007199254740992.0", "1"])
    assert classes == (1, 2 ** 53) and [type(c) for c in classes] == [int, float]


def test_a_positive_class_matches_a_label_by_its_text():
    """positive_class matches a label by value or by text: np.float32(0.1) (0.10000000149...) names the label 0.1."""
    y, classes = binarise_labels(["0.1", "0.2", "0.1"], positive_class=np.float32(0.1))
    assert classes == (0.2, 0.1) and y.tolist() == [1, -1, 1]


def test_a_negative_class_that_is_no_unicode_text_is_refused():
    """The negative class is checked too: its lone surrogate could not be saved in the tree file after the solve."""
    with pytest.raises(OlctcError, match=r"^data: class label '\\udc80' of target 'y' is not valid Unicode text"):
        binarise_labels(["a", "\udc80", "a"], positive_class="a")


def test_labels_are_int8():
    """y is int8 (-1/+1), as Dataset documents: the arrays' hash covers y's bytes, so a wider type changed the hash
    every manifest compiled from arrays recorded."""
    assert binarise_labels(["a", "b"])[0].dtype == np.int8
    assert from_arrays(np.eye(2), [0, 1]).y.dtype == np.int8


def test_one_text_class_spelled_with_spaces_is_not_read_as_a_number():
    """' a' and 'a ' are one class once stripped: the message says nothing of cells read as one number."""
    with pytest.raises(OlctcError, match=r"^data: target 'y' has one class only \('a'\); a classifier needs two$"):
        binarise_labels([" a", "a "])


def test_the_case_hint_folds_the_case_of_the_request_too():
    """'YES' against the class 'Yes' gets the hint: both sides are case-folded, not only the classes."""
    with pytest.raises(OlctcError, match=r"its values are \['No', 'Yes'\]; did you mean 'Yes'\?$"):
        binarise_labels(["Yes", "No"], positive_class="YES")


def test_the_case_hint_shows_a_numpy_class_plainly():
    """The estimator's classes are numpy scalars: the hint says 'Yes', not np.str_('Yes')."""
    with pytest.raises(OlctcError, match=r"\('yes' is not one; did you mean 'Yes'\?\)\. Got \{'yes': 2\} instead\.$"):
        class_weight_by_label({"yes": 2}, (np.str_("No"), np.str_("Yes")))


def test_integral_float_labels_of_arrays_are_ints():
    """A float array of 0.0/1.0 labels has the classes 0 and 1 (ints, as a CSV file's '0'/'1'): the manifest
    records positive_class 1, not 1.0; 0.5 stays a float."""
    ds = from_arrays(np.eye(3), np.array([0.0, 1.0, 1.0]))
    assert [type(c) for c in ds.classes] == [int, int] and json.dumps(ds.source_info()["positive_class"]) == "1"
    assert from_arrays(np.eye(2), np.array([0.5, 2.0], dtype=np.float32)).classes == (0.5, 2)


@pytest.mark.parametrize("y", [np.array([True, False, True]), [True, False, True], [1.0, 0.0, 1.0]])
def test_bool_and_integral_python_float_labels_are_the_ints_0_and_1(y):
    """Labels True/False (numpy's or Python's) and Python floats 1.0/0.0 are the classes 0 and 1 as ints: a
    numpy bool sorted as text and could not be written to JSON, a bool or a float was written as true or 1.0."""
    _, classes = binarise_labels(list(y) if isinstance(y, np.ndarray) else y)
    assert classes == (0, 1) and [type(c) for c in classes] == [int, int]
    assert json.dumps(from_arrays(np.eye(3), y).source_info()["positive_class"]) == "1"


def test_unsigned_integer_labels_sort_as_numbers():
    """uint8 labels 9 and 10 are the numbers 9 < 10 (Python ints), not texts sorting '10' before '9'."""
    ds = from_arrays(np.eye(3), np.array([10, 9, 10], dtype=np.uint8))
    assert ds.classes == (9, 10) and [type(c) for c in ds.classes] == [int, int] and ds.y.tolist() == [1, -1, 1]


@pytest.mark.parametrize("cells, classes", [(["1", "0.5", "1"], (0.5, 1)), (["10.5", "9.5", "10.5"], (9.5, 10.5))])
def test_float_labels_sort_as_numbers(cells, classes):
    """Float labels sort by value among themselves and the ints (0.5 < 1, 9.5 < 10.5), not as texts after the ints:
    the second is the positive class."""
    y, got = binarise_labels(cells)
    assert got == classes and y.tolist() == [1, -1, 1]


def test_a_marker_label_joining_the_negatives_is_warned_of_but_not_a_chosen_one(tmp_path):
    """With --positive-class 'A' the 'NA' rows join the negatives without a word unless warned of (at the caller's
    line, as read_csv's other warnings); --positive-class 'NA' chose it: no warning then."""
    p = tmp_path / "na.csv"
    p.write_text("x,y\n1,A\n2,NA\n3,B\n4,A\n")
    with pytest.warns(UserWarning, match=r"line 3: label 'NA' looks like a missing value, yet trains as class "
                                         r"'not A'; drop the unlabelled rows if it is one$") as caught:
        assert read_csv(p, "y", positive_class="A").classes == ("not A", "A")
    assert [w.filename for w in caught] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert read_csv(p, "y", positive_class="NA").y.tolist() == [-1, 1, -1, -1]


def test_long_spellings_of_one_class_are_cut_short():
    """The spellings named in the one-class message are cut to 30 characters each, as the listed classes are."""
    with pytest.raises(OlctcError, match=r"from the cells '1\.0', '1\.0{24}\.\.\.\); a classifier needs two$"):
        binarise_labels(["1.0", "1." + "0" * 40])


def test_a_class_weight_names_a_class_by_its_text():
    """A weight's label matches a class by value or by text, as positive_class does: np.float32(0.1)
    (0.10000000149...) names the class 0.1 of a CSV file."""
    assert class_weight_by_label({np.float32(0.1): 2}, (0.1, 0.2)) == (2.0, 1.0)


def test_a_weight_is_after_the_last_equals_sign():
    """A weight is a number: the label of 'x=y=2' is 'x=y' (not 'x' of weight 'y=2'), named as no class."""
    with pytest.raises(OlctcError, match=r"^The 'class_weight' parameter must be weights of the classes \['a', 'b'\] "
                                         r"\('x=y' is not one\)"):
        class_weight_by_label("x=y=2", ("a", "b"))


MIXED = Schema((Column("a", "numeric"), Column("c", "categorical", ("x", "y"))))


def test_a_missing_value_in_a_categorical_column_is_refused():
    """None is a missing value, named at its row, not the unseen category 'None' encoded as none."""
    with pytest.raises(OlctcError, match=r"^data: column 'c' row 1: a missing value; fill or drop missing values"):
        MIXED.encode({"a": [1, 2], "c": ["x", None]})


def test_cells_of_no_mapping_are_refused_by_type():
    """None for the cells is an OlctcError naming its type, not a TypeError from 'in'."""
    with pytest.raises(OlctcError, match=r"^new: expected raw cells as a dict of column name -> values \(or a "
                                         r"DataFrame\); got NoneType$"):
        MIXED.encode(None, "new")


def test_a_subset_keeps_its_dropped_columns(tmp_path):
    """A training split of data read with --drop 'b' records the dropped column, for decode to read it again."""
    p = tmp_path / "d.csv"
    p.write_text("a,b,label\n1,2,p\n2,1,q\n3,4,p\n")
    assert read_csv(p, "label", drop=["b"]).subset([2, 0]).source_info()["dropped"] == ["b"]


def test_the_positive_class_is_recorded_as_json_can_hold_it():
    """A Dataset of numpy classes records its positive class as a Python number (json.dumps refused np.int64)."""
    schema = Schema((Column("a", "numeric"), Column("b", "numeric")))
    ds = Dataset(np.eye(2), np.array([-1, 1], np.int8), (np.int64(0), np.int64(1)), schema)
    assert json.dumps(ds.source_info()["positive_class"]) == "1"


def test_labels_map_back_to_the_classes_themselves():
    """labels() gives the classes as they are (an object array): 1 stays an int next to the float 0.5, not 1.0."""
    ds = from_arrays(np.eye(3), [0.5, 1, 1])
    got = ds.labels(np.array([1, -1])).tolist()
    assert got == [1, 0.5] and [type(v) for v in got] == [int, float]


def test_a_2_d_empty_index_is_refused():
    """[[]] is no 1-D index: refused, not read as an empty subset."""
    with pytest.raises(OlctcError, match=r"^The 'rows' parameter must be row indices in \[0, 3\)"):
        from_arrays(np.eye(3), [0, 1, 0]).subset([[]])


def test_a_complex_nan_label_is_no_class():
    """A complex NaN label is an unlabelled row, as a float NaN is."""
    with pytest.raises(OlctcError, match=r"^y row 2: no class label \(\(nan\+0j\)\); drop the unlabelled rows$"):
        from_arrays(np.eye(3), np.array([0, 1, np.nan], complex))


def test_a_dataframe_of_unnamed_columns_has_generic_feature_names():
    """Only string column names name the features: a DataFrame's 0, 1 give x0, x1 (as the estimators keep them)."""
    pd = pytest.importorskip("pandas")
    assert from_arrays(pd.DataFrame(np.eye(2)), [0, 1]).feature_names == ["x0", "x1"]


@pytest.mark.parametrize("X, y, names, message", [
    (np.eye(2), [[0], [1]], None, r"y must be 1-D with one label per row of X \(2\); got shape \(2, 1\)"),
    (np.eye(1), [0], None, r"at least 2 points are needed; got 1"),
    (np.zeros((3, 0)), [0, 1, 0], None, r"X has no feature columns; at least 1 is needed"),
    (np.eye(2), [0, 1], 5, r"The 'feature_names' parameter must be a list of names, one per column of X\. "
                           r"Got 5 instead\."),
    (np.eye(2), [0, np.nan], None, r"y row 1: no class label \(nan\); drop the unlabelled rows")])
def test_from_arrays_refuses_with_its_own_message(X, y, names, message):
    """Each shape or value from_arrays cannot take has its own message (not a numpy error or another check's)."""
    with pytest.raises(OlctcError, match="^" + message + "$"):
        from_arrays(X, y, feature_names=names)


def test_a_class_weight_label_text_is_read_as_a_label_cell():
    """'1.0=2' weighs the class 1: a label text is read as a label cell is ('1.0' is the number 1), not compared
    as text only."""
    assert class_weight_by_label("1.0=2", (1, 2)) == (2.0, 1.0)


def test_the_smallest_negative_weight_is_refused():
    """A weight must be >= 0: -5e-324 (the smallest negative float) is refused as -1 is, not taken for 0."""
    with pytest.raises(OlctcError, match=r"^sample_weight: row 1: expected a weight >= 0, got -5e-324$"):
        from_arrays(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], sample_weight=[1, -5e-324, 1, 1])
