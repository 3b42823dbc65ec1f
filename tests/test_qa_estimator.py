"""QA of the scikit-learn estimators: messages in the user's labels, fits stopped by the time limit."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from olctc.datasets import load_dataset
from olctc.errors import OlctcError
from olctc.estimator import OLCTClassifier


def test_a_class_of_weight_zero_is_named_by_its_label():
    # from_arrays sees the fit's 0/1 codes: the message said "class 1" for the class "yes"
    X, y, _ = load_dataset("breast")
    X, y = X[:60, :5], y[:60].astype(int)
    labels = np.where(y == 1, "yes", "no")
    w = np.where(y == 1, 0.0, 1.0)
    for positive in (None, "no"):
        est = OLCTClassifier(depth=1, time_limit=5, positive_class=positive)
        with pytest.raises(OlctcError, match=r"^sample_weight: every point of class 'yes' weighs 0, which leaves "
                                             r"one class to train on; give some of them a weight > 0$"):
            est.fit(X, labels, sample_weight=w)
        assert not hasattr(est, "tree_")


def test_a_fit_stopped_by_the_time_limit_warns_and_an_optimal_one_does_not():
    X, y, _ = load_dataset("german.numer")
    with pytest.warns(ConvergenceWarning, match=r"^OLCTClassifier: the solver stopped \(.*[Tt]ime limit.*\) before "
                                                r"proving the tree optimal \(MIP gap .*\); the tree is the .*A "
                                                r"larger time_limit \(now 4\) may give a better tree") as record:
        est = OLCTClassifier(depth=3, time_limit=4).fit(X[:400], y[:400])
    assert record[0].filename == __file__  # points at the caller's fit
    assert est.summary_["status"] == "feasible" and est.score(X[:400], y[:400]) > 0.7
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert OLCTClassifier(depth=1, time_limit=5).fit(X[:60], y[:60]).summary_["status"] == "optimal"
