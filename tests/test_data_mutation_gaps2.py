"""Schema encoding, standardisation, Dataset records, labels and weights: behaviour a second mutation pass over
olctc/data/dataset.py, labels.py and weights.py (QA 2026-12-07, after test_data_mutation_gaps,
test_data_csv_mutation_gaps and test_dataset_schema_mutation_gaps) found unpinned. Each test names the wrong
behaviour it rules out (mutants of the code, not defects seen in olctc)."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest

from olctc.data import from_arrays, read_csv
from olctc.data.dataset import Column, Dataset, Scaler, Schema
from olctc.data.labels import binarise_labels, json_label
from olctc.data.weights import class_weight_by_label
from olctc.errors import OlctcError

NUMERIC = Schema((Column("a", "numeric"),))


def _four() -> Dataset:
    """Four points of two features, labels alternating."""
    return from_arrays(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1])


def test_bytes_are_no_list_of_values():
    """b'xy' is one value, not a column of the numbers 120 and 121 (its bytes): refused as a text is."""
    with pytest.raises(OlctcError, match=r"^data: column 'a' must hold a list of values, one per row; got b'xy'$"):
        NUMERIC.encode({"a": b"xy"})


def test_a_column_of_values_near_1e_158_standardises_to_full_precision():
    """Columns below TINY_COLUMN (1e-100) are rescaled first: squares of 1e-158 are subnormal and lost 8 digits."""
    scaler = Scaler.fit(np.array([[1.0], [2.0], [3.0], [4.0]]) * 1e-158)
    np.testing.assert_allclose(scaler.scale, [np.sqrt(1.25) * 1e-158], rtol=1e-12)
    np.testing.assert_allclose(scaler.mean, [2.5e-158], rtol=1e-12)


def test_a_difference_above_1e_12_of_the_scale_is_kept():
    """Off a mean of 1e6 by 8 ulps (9.3e-10, within 16 eps of the mean) is kept when it is above 1e-12 of the
    scale 2: the data resolve it. It is zeroed only when within both the mean's rounding and 1e-12 of the scale."""
    step = 8 * 2.0 ** -33  # 8 ulps of 1e6
    scaler = Scaler(np.array([1e6]), np.array([2.0]))
    assert scaler.transform(np.array([[1e6 + step]])).tolist() == [[step / 2]]


def test_values_within_rounding_of_the_mean_are_zeroed_across_row_blocks():
    """transform zeroes by blocks of 4096 rows: every row is looked at, the last of each block too."""
    scaler = Scaler(np.array([0.1 + 0.2]), np.array([2.0]))
    assert not scaler.transform(np.full((4100, 1), 0.3)).any()


def test_a_subset_of_every_row_in_order_records_no_rows():
    """All rows in order is the whole data: its manifest records no row list (as data read whole)."""
    ds = _four()
    assert ds.subset(np.arange(4)).rows is None and ds.subset(np.ones(4, bool)).rows is None


def test_a_subsets_extra_is_its_own():
    """A subset copies ``extra``: filling a training split's does not change the data it came from."""
    ds = _four()
    ds.extra["k"] = 1
    sub = ds.subset([0, 1])
    sub.extra["split"] = "train"
    assert ds.extra == {"k": 1} and sub.extra == {"k": 1, "split": "train"}


def test_source_info_names_dropped_columns_only_when_some_are(tmp_path):
    """Data read whole records no 'dropped' key (records stay as they were); data read with --drop lists them."""
    p = tmp_path / "d.csv"
    p.write_text("a,b,y\n1,2,p\n2,1,q\n3,4,p\n")
    assert "dropped" not in read_csv(p, "y").source_info()
    assert read_csv(p, "y", drop=["b"]).source_info()["dropped"] == ["b"]


def test_an_integral_label_beyond_2_53_stays_a_float():
    """'1e20' is a float label: only integral floats below 2**53 (exact integers) become ints."""
    _, classes = binarise_labels(["1e20", "1.0", "1e20", "1.0"])
    assert classes == (1, 1e20) and [type(c) for c in classes] == [int, float]


def test_text_labels_given_as_arrays_are_stripped():
    """' a' and 'a' are one class in arrays, as in a CSV file's cells."""
    y, classes = binarise_labels([" a", "b ", "a", "b"])
    assert classes == ("a", "b") and y.tolist() == [-1, 1, -1, 1]


def test_ragged_row_indices_are_a_parameter_error():
    """Rows numpy cannot make an array of are refused as other bad indices are, not with numpy's ValueError."""
    with pytest.raises(OlctcError, match=r"^The 'rows' parameter must be row indices in \[0, 4\) or a boolean mask"):
        _four().subset([[0], [1, 2]])


def test_durations_and_dates_in_a_dataframe_are_refused():
    """timedelta64 (an array) and datetime64 (a DataFrame's column) became numbers silently: both are refused."""
    pd = pytest.importorskip("pandas")
    with pytest.raises(OlctcError, match=r"^X holds dates or durations \(datetime64, timedelta64\)"):
        from_arrays(np.array([[1], [2], [3]], dtype="m8[D]"), [0, 1, 0])
    frame = pd.DataFrame({"d": pd.to_datetime(["2020-01-01", "2020-01-02", "2020-01-03"]), "v": [1.0, 2.0, 3.0]})
    with pytest.raises(OlctcError, match=r"^X holds dates or durations"):
        from_arrays(frame, [0, 1, 0])


def test_no_label_at_all_is_named_nothing():
    """An empty target says it has no class ('nothing'), not an empty label ''."""
    with pytest.raises(OlctcError, match=r"^f: target 'y' has one class only \('nothing'\); a classifier needs two$"):
        binarise_labels([], source="f")


@pytest.mark.parametrize("positive", [" a", " yes "])
def test_a_positive_class_is_stripped(positive):
    """' a' names the class 'a' (as a label cell is stripped); ' yes ' gets the case hint for the class 'Yes'."""
    if positive == " a":
        assert binarise_labels(["a", "b", "a", "b"], positive_class=positive)[1] == ("b", "a")
    else:
        with pytest.raises(OlctcError, match=r"is not a value of target 'y'; its values are \['No', 'Yes'\]; "
                                             r"did you mean 'Yes'\?$"):
            binarise_labels(["Yes", "No", "Yes", "No"], positive_class=positive)


def test_the_case_hint_is_given_for_one_near_class_only():
    """'yes' against the classes 'Yes' and 'YES' is ambiguous: no 'did you mean' then."""
    with pytest.raises(OlctcError, match=r"its values are \['YES', 'Yes'\]$"):
        binarise_labels(["Yes", "YES", "Yes", "YES"], positive_class="yes")


@pytest.mark.parametrize("cells, shown", [(["1", "1.0", "1e0"], "'1', '1.0', '1e0'"),
                                          (["1", "1.0", "1e0", "+1"], "'+1', '1', '1.0', ...")])
def test_one_class_of_several_spellings_names_three_of_them(cells, shown):
    """The one-class message shows the first three sorted spellings, with ', ...' only when there are more."""
    with pytest.raises(OlctcError, match=r"one class only \(1, read as one number from the cells "
                                         + re.escape(shown) + r"\); a classifier needs two$"):
        binarise_labels(cells)


def test_ten_classes_are_listed_without_an_ellipsis():
    """A list of exactly 10 classes is whole: ', ...' marks only labels left out."""
    with pytest.raises(OlctcError, match=r"has 10 classes \[0, 1, 2, 3, 4, 5, 6, 7, 8, 9\]; olctc trains"):
        binarise_labels(list(range(10)))


def test_a_numpy_float_label_becomes_a_python_float_for_json():
    """json_label turns np.float32 (which json cannot write) into a Python float, and np.int64 into an int."""
    assert type(json_label(np.float32(0.5))) is float and json.dumps(json_label(np.float32(0.5))) == "0.5"
    assert type(json_label(np.int64(3))) is int


def test_a_marker_label_sorted_as_the_positive_class_is_named_as_it(tmp_path):
    """'NA' sorted after 'A' is the positive class: the warning says it trains as 'NA', not as 'A'."""
    p = tmp_path / "na.csv"
    p.write_text("x,y\n1,NA\n2,A\n3,NA\n4,A\n")
    with pytest.warns(UserWarning, match=r"line 2: label 'NA' looks like a missing value, yet trains as class 'NA'"):
        read_csv(p, "y")


def test_balanced_is_read_in_any_case_and_with_spaces():
    """--class-weight ' Balanced ' is 'balanced', not a malformed weight list."""
    assert class_weight_by_label(" Balanced ", ("a", "b")) == "balanced"


def test_a_class_label_with_an_equals_sign_and_many_commas_takes_its_weight():
    """'a=1,b,c,d,e=3' is the class 'a=1,b,c,d,e' weighing 3 when that is a class (five comma parts)."""
    assert class_weight_by_label("a=1,b,c,d,e=3", ("a=1,b,c,d,e", "f")) == (3.0, 1.0)


def test_an_infinite_sample_weight_is_named_at_its_row():
    """An inf weight is named at its row as not finite (not reported as weights summing past the float range)."""
    with pytest.raises(OlctcError, match=r"^sample_weight: row 1: expected a finite number >= 0, got inf$"):
        from_arrays(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1], sample_weight=[1, np.inf, 1, 1])
