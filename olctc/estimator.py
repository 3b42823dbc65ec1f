"""scikit-learn estimators: an OLCT (or MARGOT, OCT-H) tree trained in process by ``olctc.fit.fit``.

``OLCTClassifier(preset="olct", depth=2, C=1.0, ...)`` follows scikit-learn's conventions: parameters
are stored untouched in ``__init__`` and validated in ``fit``; fitted attributes end with ``_``.

Classes
-------
``classes_`` is sorted (``np.unique``). The positive class (the one the tree's last-layer classifiers
score, ``+1`` in the MILP) is ``positive_class`` or, by default, ``classes_[1]``. Whatever the positive
class, ``predict_proba`` columns follow ``classes_`` and ``decision_function`` is positive for
``classes_[1]`` (scikit-learn's convention): with ``positive_class=classes_[0]`` it is the negated tree
score. ``predict`` follows the tree (and its ONNX, JSON and Python exports): the positive class where the
score is > 0. The two agree except at a score of exactly 0 (a row on a last-layer split, or a node with w = 0 and
b = 0), where ``predict`` gives the negative class whatever ``positive_class`` is.

Probabilities: ``predict_proba`` is the logistic function of the tree's score. For the logistic presets
(olct, olct-univariate) the score is a fitted log-odds, calibrated by the loss itself; for MARGOT (hinge)
and OCT-H (misclassification, whose scores can be tiny: probabilities all near 0.5) it is only a
monotone map of the margin: wrap those in ``sklearn.calibration.CalibratedClassifierCV`` when
probabilities matter.

Determinism: a fit solved to optimality gives the same tree every time. A fit stopped by ``time_limit``
returns the best tree found by then, which depends on the machine's speed and load, so two such fits of
the same data may differ (``mip_gap_`` says how far from proven optimal a tree is, and such a fit warns with
scikit-learn's ``ConvergenceWarning``, as LogisticRegression does at ``max_iter``).

ONNX: the estimators are registered with skl2onnx when skl2onnx is imported (before or after this module;
``register_skl2onnx`` does it by hand), so ``skl2onnx.to_onnx(fitted, X[:1])`` works; the converter inlines the
graph of ``olctc.export.onnx``.
"""
from __future__ import annotations

import contextlib
import sys
import warnings
from typing import TYPE_CHECKING, Any, Iterator

import numpy as np

if TYPE_CHECKING:
    import scipy.sparse as sp

    from olctc.tree import Tree

from olctc._sklearn import IMPORTING

with IMPORTING:  # one thread at a time (olctc._sklearn): this module's first import may run on any thread
    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.utils.multiclass import check_classification_targets, type_of_target
    from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from olctc.errors import OlctcError, TimeLimitTooShort, check_flags, is_integer, is_real, param_error, warn


class OLCTClassifier(ClassifierMixin, BaseEstimator):
    """Loss-optimal classification tree trained as a MILP (the OLCT paper), scikit-learn style.

    Parameters
    ----------
    preset : str, default "olct"
        A key of ``olctc.spec.PRESETS`` (olct, olct-univariate, margot, margot-sfs, margot-hfs, oct-h).
    depth : int, default 2
        Branching layers.
    C : float or tuple of float, default 1.0
        Loss weight: one value, or one per layer (root first).
    tangents : str or sequence of float, default "V0"
        Logistic tangent set (V0..V3) or explicit points.
    big_m, epsilon, alpha, budget
        Routing constants and L0 knobs (see ``olctc.spec.make_spec``).
    solver : str or None, default None
        In-process solver: "highs", "cbc" or "scip", or "gurobi", "cplex", "copt", "xpress" where their Python
        packages are installed; None picks ``olctc fit``'s default for the preset (HiGHS, SCIP for the MIQP
        presets).
    time_limit : float or None, default 60
        Seconds for the whole fit (build + warm start + solve + refine). A limit too short to leave the
        solver a second (about 3 s on small data) is refused, naming the least that works. A fit stopped
        by it before proving optimality keeps the best tree found and warns (``ConvergenceWarning``); so does
        a fit whose solver had no time left to start (the warm start is kept). HiGHS can overrun the limit
        on large data: its presolve and root LP check no clock for long stretches, and a library call waits
        for them (the console program leaves such a solve; README).
    threads : int or None
        Solver threads.
    refine : bool, default True
        Refit the last layer with exact L1 logistic regression (logistic presets).
    positive_class : label or None
        Class scored as positive by the tree (default ``classes_[1]``).
    class_weight : dict, "balanced" or None, default None
        Each point's loss term times its class's weight: {label: weight} (a class not named weighs 1),
        "balanced" (n / (2 n_class) on the training data, scikit-learn's rule) or None (all 1, the paper's
        model). With ``fit(X, y, sample_weight=)`` the two multiply, and "balanced" counts each class by
        its total sample weight.
    verbose : bool or int, default False
        Show the solver log (True, or an integer > 0: scikit-learn's verbosity levels; all show the same log).
    score_variables : bool, default True
        Give every split score w_t.x_i + b_t its own column, defined by one equality row (``olctc compile
        --score-variables``): the same trees and optimum, far fewer nonzeros on data with many features
        (a6a at depth 2: 2.5x), and with HiGHS better trees under a time limit (the paper's 50 OLCT fits at
        60 s: a lower objective in 29, a higher one in 8; docs/BENCHMARKS.md). False: the paper's form, the
        scores written out in every row (``olctc compile``'s default).
    warm_start : bool, default False
        When fitted already, start the next fit's solve from the fitted tree instead of the greedy warm
        start (scikit-learn's meaning): a refit with another C, ``time_limit`` or ``depth`` (a deeper tree
        starts from this one's layers) goes on from it, and the tree kept is never worse by the new model's
        objective. The classes must be the same, and the depth at least the fitted tree's (else OlctcError);
        features are matched by name when both fits had column names (DataFrames), else by position. A
        fitted tree that breaks ``min_leaf`` on the points of the new fit cannot start it: that fit starts
        from the greedy tree, as with ``warm_start=False``, and warns.
    min_leaf : int, default 0
        Training points every last-layer node holds: none or at least ``min_leaf`` (``olctc fit
        --min-leaf``; scikit-learn's ``min_samples_leaf`` for the regions of the fixed-depth tree). 0: no
        minimum, the paper's model. More than the training points is refused.
    smooth_pure_nodes : bool, default False
        Give each last-layer node whose training points are all of one class w = 0 and the log-odds of its
        points plus one of each class (``predict_proba`` (m+ + 1) / (m + 2) there, Laplace's rule; ``olctc
        fit --smooth-pure-nodes``). With sample or class weights, each added point weighs the node's mean
        weight: scaling every weight leaves the probability alone, and a weight of 2 is not two points there.
        False: the solver's (w, b), the paper's; any b past the tangents' zero is optimal there, so the
        probability is arbitrary (measured: 4e-44, 0.2, 0.8). Can raise the exact objective (``objective_``
        is the final tree's).

    Attributes
    ----------
    classes_, n_features_in_, feature_names_in_ (when X has string column names), tree_ (olctc Tree),
    positive_class_, mip_gap_, objective_, solve_time_, summary_ (the fit record), feature_importances_.
    """

    _default_preset = "olct"

    def __init__(self, preset: str = "olct", depth: int = 2, C: Any = 1.0, tangents: Any = "V0",
                 big_m: float = 100.0, epsilon: float = 1e-5, alpha: float = 1.0, budget: int | None = None,
                 solver: str | None = None, time_limit: float | None = 60, threads: int | None = None,
                 refine: bool = True, positive_class: Any = None, class_weight: Any = None,
                 verbose: bool = False, score_variables: bool = True, warm_start: bool = False,
                 min_leaf: int = 0, smooth_pure_nodes: bool = False) -> None:
        self.preset = preset
        self.depth = depth
        self.C = C
        self.tangents = tangents
        self.big_m = big_m
        self.epsilon = epsilon
        self.alpha = alpha
        self.budget = budget
        self.solver = solver
        self.time_limit = time_limit
        self.threads = threads
        self.refine = refine
        self.positive_class = positive_class
        self.class_weight = class_weight
        self.verbose = verbose
        self.score_variables = score_variables
        self.warm_start = warm_start
        self.min_leaf = min_leaf
        self.smooth_pure_nodes = smooth_pure_nodes

    # ------------------------------------------------------------------ scikit-learn plumbing
    def __setstate__(self, state: dict[str, Any]) -> None:
        """Unpickling: a parameter an older olctc did not have (min_leaf, smooth_pure_nodes) takes its default,
        which is what that version did. Without it, get_params, clone and repr of such a pickle raised
        AttributeError, though it predicted as before (QA 2026-12-05)."""
        import inspect

        for name, p in inspect.signature(type(self).__init__).parameters.items():
            if name != "self" and p.default is not inspect.Parameter.empty and name not in state:
                state[name] = p.default
        super().__setstate__(state)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.allow_nan = False
        # OCT-H's by its preset, not its class: OLCTClassifier(preset="oct-h") is the same model (OCTHClassifier)
        tags.non_deterministic = self.preset == "oct-h" and self.time_limit is not None
        return tags

    def _spec(self):
        from olctc.spec import make_spec

        C = self.C
        if isinstance(C, np.ndarray):
            C = C.tolist()
        if is_real(C):
            C = float(C)
        depth = int(self.depth) if is_integer(self.depth) else self.depth
        budget = int(self.budget) if is_integer(self.budget) else self.budget
        return make_spec(preset=self.preset, depth=depth, C=C, tangents=self.tangents, big_m=self.big_m,
                         epsilon=self.epsilon, alpha=self.alpha, budget=budget,
                         score_variables=self.score_variables, min_leaf=self.min_leaf)

    def _solver(self, spec) -> str:
        from olctc.fit import IN_PROCESS, MIQP_IN_PROCESS, default_solver

        if self.solver is None:
            return default_solver(spec)
        # "" would reach olctc.fit.fit's ``solver or default``: a silent default, not the named solver
        if not isinstance(self.solver, str) or self.solver not in IN_PROCESS:
            raise param_error("solver", f"None (the preset's default) or one of {', '.join(IN_PROCESS)}",
                              self.solver)
        if spec.info.quadratic and self.solver not in MIQP_IN_PROCESS:  # olctc.fit's own message names --solver
            raise param_error("solver", f"None or one of {', '.join(MIQP_IN_PROCESS)} for preset {spec.preset!r}, a "
                              "MIQP (quadratic objective)", self.solver)
        return self.solver

    def _check_flags(self) -> None:
        """refine, warm_start: booleans (``bool("no")`` is True); verbose: a boolean or an integer >= 0, as
        scikit-learn's estimators take it (verbose=1 was refused); positive_class: one label, not a sequence."""
        check_flags(refine=self.refine, warm_start=self.warm_start, smooth_pure_nodes=self.smooth_pure_nodes)
        if not (isinstance(self.verbose, (bool, np.bool_)) or (is_integer(self.verbose) and self.verbose >= 0)):
            raise param_error("verbose", "True, False or an integer >= 0", self.verbose)
        pc = self.positive_class
        try:
            scalar = np.ndim(pc) == 0 and not isinstance(pc, (set, frozenset, dict))
        except (TypeError, ValueError):  # ragged sequences
            scalar = False
        if not scalar:  # [1] == np.int64(1) is array([True]): a list would match a class by broadcasting
            raise param_error("positive_class", "None or one class label (not a sequence)",
                              pc.tolist() if isinstance(pc, np.ndarray) else pc)  # repr on one line

    # ------------------------------------------------------------------ fit / predict
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "OLCTClassifier":
        """Fit the tree on (X, y); y must hold exactly two classes.

        ``sample_weight``: one loss weight >= 0 per point (a weight of 2 counts a point twice; points of
        weight 0 are left out of the model), multiplied with ``class_weight``'s; the scaling of the
        features is weighted alike. The weights scale the loss against the penalty as C does (as in
        scikit-learn's LogisticRegression): weights summing to 1, as AdaBoostClassifier passes them, act
        like C / n and may leave every split empty; raise C by n there.

        A fit that fails (bad parameter or data, solver error, interrupt) leaves the estimator as it was:
        the previous fit's attributes, or none.

        Returns
        -------
        self
        """
        saved = {k: v for k, v in vars(self).items() if _is_fitted_attribute(k)}
        try:
            try:
                return self._fit(X, y, sample_weight)
            except TimeLimitTooShort as exc:  # olctc.fit's words name no parameter of this class
                raise TimeLimitTooShort(f"{type(self).__name__}: the 'time_limit' parameter is too short: {exc}") \
                    from None
        except BaseException:
            # validate_data and the label handling set attributes before the solve: without this a failed
            # refit left n_features_in_/classes_ of the new data next to the previous tree_.
            for k in [k for k in vars(self) if _is_fitted_attribute(k)]:
                delattr(self, k)
            self.__dict__.update(saved)
            raise

    def _fit(self, X: Any, y: Any, sample_weight: Any) -> "OLCTClassifier":
        from dataclasses import replace

        from olctc.data import check_classes_weigh, class_weight_by_label, from_arrays
        from olctc.fit import fit as olctc_fit
        from olctc.warmstart import LeafTooSmall

        spec = self._spec()
        solver = self._solver(spec)
        self._check_flags()
        # not export_tree(): a label no tree file holds (numpy.datetime64) still starts the next fit
        previous = self._labelled_tree() if self.warm_start and hasattr(self, "tree_") else None
        named_before = hasattr(self, "feature_names_in_")  # validate_data drops it for data without names
        names = _generic_column_names(X)
        with _float_range(self, "X"):
            X, y = validate_data(self, X, y, dtype=np.float64)
        y = _homogeneous_labels(y)
        if names is not None and not hasattr(self, "feature_names_in_") and len(names) == X.shape[1]:
            self.feature_names_in_ = np.asarray(names, dtype=object)
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y", raise_unknown=True)
        classes = np.unique(y)
        if classes.size < 2:
            raise OlctcError(f"{type(self).__name__} needs two classes to train; y has one class only "
                             f"({_py_label(classes[0])!r})")
        if y_type != "binary":
            raise OlctcError(f"Only binary classification is supported. The type of the target is {y_type} "
                             f"({classes.size} classes); wrap the estimator in "
                             "sklearn.multiclass.OneVsRestClassifier for more classes.")
        self.classes_ = classes
        if self.positive_class is None:
            pos = 1
        else:
            hits = [k for k, c in enumerate(classes) if c == self.positive_class
                    or str(c) == str(self.positive_class)]
            if not hits:
                raise param_error("positive_class", f"one of the classes {classes.tolist()}",
                                  self.positive_class)
            pos = hits[0]
        self._pos_index = pos
        self.positive_class_ = classes[pos]
        feature_names = ([str(n) for n in self.feature_names_in_] if hasattr(self, "feature_names_in_")
                         else None)
        if feature_names is not None and "" in feature_names:
            # from_arrays' words ("feature_names[0] is empty") name no argument the user gave
            raise OlctcError(f"X's column {feature_names.index('')} has an empty name: the tree, and every export "
                             "of it, takes its features by name; rename the column")
        labels = (classes[1 - pos], classes[pos])  # (negative, positive): the fit's 0 and 1
        spec = replace(spec, class_weight=class_weight_by_label(self.class_weight, labels))
        y01 = (y == classes[pos]).astype(np.int64)
        if sample_weight is not None:
            with _float_range(self, "sample_weight"):
                sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
            # here, where the labels are the user's: from_arrays sees the 0/1 codes and would name class 1
            check_classes_weigh(sample_weight, np.where(y01 == 1, 1, -1), labels, "sample_weight")
        ds = from_arrays(X, y01, feature_names, positive_class=1, name=type(self).__name__,
                         sample_weight=sample_weight)
        start = None if previous is None else _coded_start(previous, labels, spec.depth)
        if start is not None and not (named_before and feature_names is not None) \
                and start.schema.n_features == ds.schema.n_features:
            # a fit without column names named the features x0, x1, ...: by position, as scikit-learn matches them
            start.schema = ds.schema
        if start is not None:  # olctc.start_tree's words ("the start tree", "the data") are the CLI's
            have = set(ds.schema.feature_names)
            lost = [k for k, f in enumerate(start.feature_names) if f not in have and (start.W_raw[:, k] != 0).any()]
            if lost:
                raise OlctcError(f"warm_start: the fitted tree splits on feature {start.feature_names[lost[0]]!r}, "
                                 f"which this X ({X.shape[1]} columns) does not have: give X the previous fit's "
                                 "columns, or set warm_start=False")
        try:
            res = olctc_fit(ds, spec, solver=solver, time_limit=self.time_limit, threads=self.threads,
                            test_size=0.0, refine=bool(self.refine), verbose=bool(self.verbose),
                            echo=print, start_tree=start, smooth_pure_nodes=bool(self.smooth_pure_nodes))
        except LeafTooSmall as exc:
            if start is None:
                raise
            # The rows decide this, not the parameters: the fitted tree was only a start, and the fit it
            # cannot start is the one warm_start=False makes (time_limit anew: a cut limit could refuse it).
            warn(f"{type(self).__name__}: warm_start: the fitted tree breaks min_leaf={spec.min_leaf} on "
                 f"these training points ({_leaf_why(exc)}); this fit starts from the greedy tree, as "
                 "with warm_start=False", UserWarning)
            res = olctc_fit(ds, spec, solver=solver, time_limit=self.time_limit, threads=self.threads,
                            test_size=0.0, refine=bool(self.refine), verbose=bool(self.verbose), echo=print,
                            smooth_pure_nodes=bool(self.smooth_pure_nodes))
        self.tree_ = res.tree
        self.summary_ = res.summary
        if "class_weights" in res.summary:  # keyed by the fit's 0/1 codes: the user's labels instead
            self.summary_ = dict(res.summary, class_weights=_by_label(res.summary["class_weights"], labels))
        self.mip_gap_ = res.summary.get("gap")
        self.objective_ = (res.tree.meta.get("exact_objective") if res.tree.meta.get("exact_objective") is not None
                           else res.summary.get("objective_milp_true"))
        self.solve_time_ = res.summary.get("time_solve")
        _warn_unless_optimal(self, res.summary)
        return self

    def _scores(self, X: Any) -> np.ndarray:
        X = self._checked(X)
        return self.tree_.decision_function(X)

    def _checked(self, X: Any) -> np.ndarray:
        """X as the fitted tree takes it: float64, the fitted width, the fitted column names if it has any."""
        check_is_fitted(self, "tree_")
        names = _generic_column_names(X)
        # catch_warnings edits the process's filters, which threads predicting at once can leave edited (Python
        # 3.11: QA 2026-12-05 found scikit-learn's warning silenced for good): entered only where needed
        hidden = names is not None and not _sklearn_sees_names(X)
        with warnings.catch_warnings() if hidden else contextlib.nullcontext():
            if hidden:  # names scikit-learn cannot see: checked below instead
                warnings.filterwarnings("ignore", message="X does not have valid feature names")
            with _float_range(self, "X"):
                X = validate_data(self, X, reset=False, dtype=np.float64)
        if names is not None and hasattr(self, "feature_names_in_") and \
                list(names) != [str(n) for n in self.feature_names_in_]:
            raise ValueError(f"The feature names should match those that were passed during fit: "
                             f"got {list(names)}, fitted with {list(self.feature_names_in_)}")
        return X

    def apply(self, X: Any) -> np.ndarray:
        """(n,) heap id of the last-layer node each row reaches (root 0, children of t: 2t+1 left, 2t+2 right),
        as scikit-learn's trees' ``apply`` gives the leaf."""
        X = self._checked(X)
        return self.tree_.apply(X)

    def decision_path(self, X: Any) -> sp.csr_matrix:
        """(n, 2**depth - 1) CSR indicator matrix of the nodes on each row's path, as scikit-learn's trees'."""
        X = self._checked(X)
        return self.tree_.decision_path(X)

    def get_depth(self) -> int:
        """The fitted tree's depth."""
        check_is_fitted(self, "tree_")
        return self.tree_.depth

    def get_n_leaves(self) -> int:
        """Last-layer nodes of the fitted tree, 2**(depth - 1): the values ``apply`` can return. Each is a
        linear classifier of the points that reach it, so the tree has twice as many decision regions."""
        check_is_fitted(self, "tree_")
        return 2 ** (self.tree_.depth - 1)

    def decision_function(self, X: Any) -> np.ndarray:
        """Score of ``classes_[1]`` (the reached last-layer node's w.x + b, sign-adjusted), shape (n,)."""
        z = self._scores(X)
        return z if self._pos_index == 1 else -z

    def predict_proba(self, X: Any) -> np.ndarray:
        """(n, 2) class probabilities, columns in ``classes_`` order."""
        from olctc.tree import sigmoid

        p_pos = sigmoid(self._scores(X))
        P = np.empty((p_pos.shape[0], 2))
        P[:, self._pos_index] = p_pos
        P[:, 1 - self._pos_index] = 1.0 - p_pos
        return P

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """(n, 2) natural logs of the class probabilities, columns in ``classes_`` order, computed from the
        scores: finite where ``predict_proba`` rounds a probability to 0 (a score beyond about +-37)."""
        z = self._scores(X)  # first: it checks that the estimator is fitted
        L = self.tree_.log_proba_of(z)  # the tree's class order: classes_ reversed or not
        return L if self._pos_index == 1 else L[:, ::-1]

    def predict(self, X: Any) -> np.ndarray:
        """Labels: the positive class where the tree's score is > 0 (as ``Tree.predict``)."""
        z = self._scores(X)
        idx = np.where(z > 0, self._pos_index, 1 - self._pos_index)
        return self.classes_[idx]

    @property
    def feature_importances_(self) -> np.ndarray:
        """(n_features,) each feature's share of the fitted tree, summing to 1 (all zeros when every weight
        is 0): over the nodes, |weight| times the feature's standard deviation among the training points at
        the node, weighted by the share of training points the node holds (``Tree.feature_importances``).
        Features the L1 penalty left out of every node get exactly 0. ``SelectFromModel`` reads it."""
        check_is_fitted(self, "tree_")
        return self.tree_.feature_importances()

    def export_tree(self) -> Tree:
        """The fitted tree with the original class labels (negative, positive), for olctc's exporters.

        A tree holds int, float or str labels (a tree file stores no others): bools become 0 and 1 (equal to
        False and True in Python), and labels of another type, which fit and predict take as scikit-learn does
        (numpy.datetime64, ...), raise OlctcError here."""
        from olctc.tree import _check_label

        t = self._labelled_tree()
        for what, label in zip(("negative", "positive"), t.classes):
            try:
                if isinstance(label, np.timedelta64):  # Tree's rule would take it for the integer numpy calls it
                    raise OlctcError(f"the {what} class must be an int, float or str; got timedelta64 {label!r}")
                _check_label(label, f"the {what} class")  # Tree's own rule, which the copy skips
            except OlctcError as exc:
                raise OlctcError(f"{type(self).__name__}.export_tree(): {exc}; a tree holds no other labels: fit on "
                                 "y mapped to str (y.astype(str)) or int to export it") from None
        return t

    def _labelled_tree(self) -> Tree:
        """The fitted tree with the original class labels, unchecked (the ONNX converter and warm_start map
        them on)."""
        import copy

        check_is_fitted(self, "tree_")
        t = copy.copy(self.tree_)
        # tree_ speaks of the fit's 0/1 codes throughout; its copy of the user's labels, a deep copy: editing
        # the exported tree's records changed the estimator's
        t.meta = copy.deepcopy(self.tree_.meta)
        t.classes = (_py_label(self.classes_[1 - self._pos_index]), _py_label(self.classes_[self._pos_index]))
        for record in (t.meta.get("fit"), t.meta.get("data")):
            if isinstance(record, dict) and isinstance(record.get("class_weights"), dict):
                record["class_weights"] = _by_label(record["class_weights"], t.classes)
        return t


def _by_label(weights: dict[str, float], labels: Any) -> dict[str, float]:
    """Class weights keyed by the fit's codes '0' and '1', keyed by the (negative, positive) ``labels`` instead."""
    return {str(_py_label(labels[int(k)])): w for k, w in weights.items()}


class MARGOTClassifier(OLCTClassifier):
    """MARGOT (hinge loss + L2, a MIQP): ``OLCTClassifier`` with preset "margot", solved by SCIP."""

    def __init__(self, preset: str = "margot", depth: int = 2, C: Any = 1.0, tangents: Any = "V0",
                 big_m: float = 100.0, epsilon: float = 1e-5, alpha: float = 1.0, budget: int | None = None,
                 solver: str | None = "scip", time_limit: float | None = 60, threads: int | None = None,
                 refine: bool = True, positive_class: Any = None, class_weight: Any = None,
                 verbose: bool = False, score_variables: bool = True, warm_start: bool = False,
                 min_leaf: int = 0, smooth_pure_nodes: bool = False) -> None:
        super().__init__(preset=preset, depth=depth, C=C, tangents=tangents, big_m=big_m, epsilon=epsilon,
                         alpha=alpha, budget=budget, solver=solver, time_limit=time_limit, threads=threads,
                         refine=refine, positive_class=positive_class, class_weight=class_weight,
                         verbose=verbose, score_variables=score_variables, warm_start=warm_start,
                         min_leaf=min_leaf, smooth_pure_nodes=smooth_pure_nodes)


class OCTHClassifier(OLCTClassifier):
    """OCT-H (misclassification at the last layer, L0 penalty alpha): preset "oct-h".

    Its MILP has binaries at every depth and a bound near 0 that solvers hardly lift, so a fit under a
    time limit stops with a gap and two fits of the same data can differ: the estimator says so through
    scikit-learn's ``non_deterministic`` tag (measured: 6 of 20 predictions differed between two 5 s fits),
    whichever class is given the preset.
    """

    def __init__(self, preset: str = "oct-h", depth: int = 2, C: Any = 1.0, tangents: Any = "V0",
                 big_m: float = 100.0, epsilon: float = 1e-5, alpha: float = 1.0, budget: int | None = None,
                 solver: str | None = None, time_limit: float | None = 60, threads: int | None = None,
                 refine: bool = True, positive_class: Any = None, class_weight: Any = None,
                 verbose: bool = False, score_variables: bool = True, warm_start: bool = False,
                 min_leaf: int = 0, smooth_pure_nodes: bool = False) -> None:
        super().__init__(preset=preset, depth=depth, C=C, tangents=tangents, big_m=big_m, epsilon=epsilon,
                         alpha=alpha, budget=budget, solver=solver, time_limit=time_limit, threads=threads,
                         refine=refine, positive_class=positive_class, class_weight=class_weight,
                         verbose=verbose, score_variables=score_variables, warm_start=warm_start,
                         min_leaf=min_leaf, smooth_pure_nodes=smooth_pure_nodes)


def _coded_start(previous: Any, labels: tuple, depth: int) -> Any:
    """The previous fit's tree (with its user labels) as a start for a fit of ``depth`` whose data code
    ``labels`` (negative, positive) as 0 and 1."""
    import copy

    from olctc.start_tree import label_key

    def start_key(c: Any) -> str:  # label_key takes a timedelta64 for an integer, as numpy does
        return repr(c) if isinstance(c, np.timedelta64) else label_key(_py_label(c))

    key = [start_key(c) for c in labels]
    had = [start_key(c) for c in previous.classes]
    if sorted(had) != sorted(key):
        raise OlctcError(f"warm_start: the fitted tree separates classes {list(previous.classes)}; y holds "
                         f"{[_py_label(c) for c in labels]}: fit a new estimator (or warm_start=False)")
    if previous.depth > depth:  # as the classes, a choice of the parameters: said in theirs, before any work
        raise OlctcError(f"warm_start: the fitted tree has depth {previous.depth}, deeper than the model's {depth} "
                         f"(depth={depth}): a start may be shallower, not deeper; set depth={previous.depth} or more, "
                         "or warm_start=False")
    start = copy.copy(previous)
    start.classes = tuple(key.index(c) for c in had)
    return start


@contextlib.contextmanager
def _float_range(est: Any, what: str) -> Iterator[None]:
    """A Python int beyond float64 (10**400) in ``what``: the message of the estimator's other input errors
    instead of numpy's OverflowError, which is no ValueError."""
    try:
        yield
    except OverflowError:
        raise OlctcError(f"{type(est).__name__}: {what} holds a number beyond the float64 range (about "
                         "1.8e308); rescale it") from None


def _leaf_why(exc: BaseException) -> str:
    """Which node breaks min_leaf: ``olctc.start_tree`` re-raises the warm start's LeafTooSmall in
    command-line words, the original (its context) has the bare reason."""
    from olctc.warmstart import LeafTooSmall

    inner = exc.__context__ if isinstance(exc.__context__, LeafTooSmall) else exc
    why = getattr(inner, "why", "")
    return why if inner is not exc and why else "a last-layer node holds fewer points than that"


def _warn_unless_optimal(est: Any, summary: dict) -> None:
    """A fit that stops before proving its tree optimal (mostly at ``time_limit``) says so, as scikit-learn's
    iterative estimators do when they stop at ``max_iter``: the tree is usable, but maybe not the best."""
    from sklearn.exceptions import ConvergenceWarning

    from olctc.solve.result import gap_text

    if summary.get("status") == "optimal":
        return
    gap = "unknown" if summary.get("gap") is None else gap_text(summary["gap"])
    from_start = summary.get("solution_from") == "warm start"
    status = summary.get("solver_status")
    claim = {"optimal": "called its tree optimal ({}) but the data route that tree worse than its objective says",
             "infeasible": "called the model infeasible ({}), which the warm start disproves"}
    if status in claim and (from_start or status == "optimal"):
        # a false proof: "the solver stopped ... a larger time_limit may give a better tree" misled, as it
        # neither stopped nor would more time help
        tree = "the warm start (a heuristic tree)" if from_start else "the solver's"
        message = (f"{summary.get('solver')} {claim[status].format(summary.get('raw_status'))}; "
                   f"the tree is {tree}, not proven optimal (MIP gap {gap})"
                   + ("" if summary.get("solver") == "highs" else ". solver='highs' proves these models"))
    else:
        kept = "the warm start (a heuristic tree): the solver found none better" if from_start else "the best one found"
        message = (f"the solver stopped ({summary.get('raw_status')}) before proving the tree optimal (MIP gap "
                   f"{gap}); the tree is {kept}. A larger time_limit (now {est.time_limit!r}) may give a better "
                   "tree")
    warn(f"{type(est).__name__}: {message}; summary_['status'] is {summary.get('status')!r}",
         ConvergenceWarning)


def _is_fitted_attribute(name: str) -> bool:
    """Attributes fit sets: scikit-learn's trailing underscore, plus ``_pos_index``."""
    return (name.endswith("_") and not name.startswith("__")) or name == "_pos_index"


def _sklearn_sees_names(X: Any) -> bool:
    """Whether scikit-learn reads X's column names itself (a pandas or polars DataFrame)."""
    try:
        from sklearn.utils.validation import _get_feature_names
    except ImportError:  # a private name: without it, as if it did not (the filter is then set)
        return False
    try:
        return _get_feature_names(X) is not None
    except (TypeError, ValueError):  # mixed name types: scikit-learn's own error comes from validate_data
        return False


def _generic_column_names(X: Any) -> list[str] | None:
    """String column names of a DataFrame-like object (anything with a ``columns`` attribute), or None."""
    cols = getattr(X, "columns", None)
    if cols is None or isinstance(X, np.ndarray):
        return None
    try:
        names = list(cols)
    except TypeError:
        return None
    if not names or not all(isinstance(n, str) for n in names):
        return None
    return names


_INT64 = np.iinfo(np.int64)


def _homogeneous_labels(y: np.ndarray) -> np.ndarray:
    """An object array of plain ints (or of plain strs) as an int (str) array, so sklearn sees its type."""
    if y.dtype != object or y.size == 0:
        return y
    items = y.tolist()
    if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
           and _INT64.min <= v <= _INT64.max for v in items):
        return np.asarray(items, dtype=np.int64)
    if all(isinstance(v, str) for v in items):
        return np.asarray(items, dtype=str)
    return y


def _py_label(v: Any) -> Any:
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, np.timedelta64):  # a numpy integer type, yet a duration: int() of one in days fails
        return v
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, np.str_):
        return str(v)
    return v


# ---------------------------------------------------------------------- skl2onnx registration

def _onnx_shape_calculator(operator) -> None:
    from onnx import TensorProto
    from skl2onnx.common.data_types import (DoubleTensorType, FloatTensorType, Int64TensorType,
                                            StringTensorType)

    from olctc.export.onnx import _label_tensor

    est = operator.raw_operator
    _check_onnx_inputs(operator)
    n = operator.inputs[0].get_first_dimension()
    labels = est.classes_
    options = _onnx_options(operator)
    if not options["nocl"] and np.issubdtype(labels.dtype, np.floating) \
            and not all(float(c).is_integer() for c in labels):
        raise OlctcError("ONNX export needs integer or string class labels (skl2onnx's label types); "
                         f"got {labels.tolist()}")
    # The type the converter's graph gives its labels (ints beyond int64 go out as text), not a guess
    # from classes_'s dtype.
    proto = _label_tensor(_export_tree_for_onnx(est, nocl=bool(options["nocl"])).classes)[1]
    operator.outputs[0].type = (Int64TensorType if proto == TensorProto.INT64 else StringTensorType)([n])
    in_type = operator.inputs[0].type
    # ZipMap (skl2onnx's default post-processing) takes float only; zipmap=False and zipmap="columns"
    # (whose per-class outputs skl2onnx types after the input) keep double input double.
    double = isinstance(in_type, DoubleTensorType) and options["zipmap"] is not True
    prob_type = DoubleTensorType if double else FloatTensorType
    if len(operator.outputs) > 1:
        operator.outputs[1].type = prob_type([n, 2])


def _onnx_options(operator) -> dict:
    scope = getattr(operator, "scope_inst", None)
    options = {"zipmap": True, "nocl": False}
    if scope is not None:
        options.update(scope.get_options(operator.raw_operator, dict(options)))
    return options


def _check_onnx_inputs(operator) -> None:
    # skl2onnx gives one input per column of a DataFrame; the tree graph takes one matrix.
    if len(operator.inputs) != 1:
        raise OlctcError(f"ONNX conversion takes one input matrix of the {operator.raw_operator.n_features_in_} "
                         f"features; got {len(operator.inputs)} inputs (one per DataFrame column?): call "
                         "to_onnx(estimator, X[:1].to_numpy()) instead")


def _export_tree_for_onnx(est, nocl: bool = False):
    tree = est._labelled_tree()  # its labels are replaced below by ones ONNX holds
    labels = est.classes_
    if nocl:  # skl2onnx's option: labels are indices into classes_ (olctc's order is negative, positive)
        tree.classes = (1 - est._pos_index, est._pos_index)
    elif np.issubdtype(labels.dtype, np.integer) or np.issubdtype(labels.dtype, np.floating) \
            or labels.dtype == np.bool_:
        tree.classes = tuple(int(c) for c in tree.classes)
    else:
        tree.classes = tuple(str(c) for c in tree.classes)
    return tree


def _onnx_converter(scope, operator, container) -> None:
    """Inline olctc's own ONNX graph of the tree, renaming its values into skl2onnx's scope."""
    from onnx import TensorProto, helper, numpy_helper
    from skl2onnx.common.data_types import DoubleTensorType, guess_proto_type

    from olctc.export.onnx import to_onnx as tree_to_onnx

    if container.target_opset < 13:
        raise OlctcError(f"the olctc tree graph needs ONNX opset >= 13; got target_opset "
                         f"{container.target_opset}")
    est = operator.raw_operator
    _check_onnx_inputs(operator)
    tree = _export_tree_for_onnx(est, nocl=bool(_onnx_options(operator)["nocl"]))
    model = tree_to_onnx(tree)
    g = model.graph
    x_in = operator.inputs[0]
    if isinstance(x_in.type, DoubleTensorType):
        x_name = x_in.full_name
    else:
        x_name = scope.get_unique_variable_name("olctc_input_double")
        container.add_node("Cast", [x_in.full_name], [x_name], to=TensorProto.DOUBLE,
                           name=scope.get_unique_operator_name("OlctcCastIn"))
    label_out = operator.outputs[0].full_name
    prob_out = operator.outputs[1].full_name if len(operator.outputs) > 1 else None
    prob_tmp = scope.get_unique_variable_name("olctc_probabilities")
    rename: dict[str, str] = {"input": x_name, "label": label_out, "probabilities": prob_tmp}

    def new(name: str) -> str:
        if name == "":
            return name
        if name not in rename:
            rename[name] = scope.get_unique_variable_name("olctc_" + name.replace(".", "_"))
        return rename[name]

    for init in g.initializer:
        arr = numpy_helper.to_array(init)
        t = numpy_helper.from_array(arr, new(init.name))
        container.initializers.append(t)
    for node in g.node:
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        container.add_node(node.op_type, [new(i) for i in node.input], [new(o) for o in node.output],
                           op_version=13, name=scope.get_unique_operator_name("Olctc" + node.op_type), **attrs)
    if prob_out is None:
        return
    # olctc's columns are (negative, positive); scikit-learn's follow classes_.
    if est._pos_index == 0:
        order = scope.get_unique_variable_name("olctc_column_order")
        container.add_initializer(order, TensorProto.INT64, [2], [1, 0])
        swapped = scope.get_unique_variable_name("olctc_probabilities_sorted")
        container.add_node("Gather", [prob_tmp, order], [swapped], axis=1,
                           name=scope.get_unique_operator_name("OlctcGather"))
        prob_tmp = swapped
    out_proto = guess_proto_type(operator.outputs[1].type)
    if out_proto == TensorProto.DOUBLE:
        container.add_node("Identity", [prob_tmp], [prob_out], name=scope.get_unique_operator_name("OlctcId"))
    else:
        container.add_node("Cast", [prob_tmp], [prob_out], to=out_proto,
                           name=scope.get_unique_operator_name("OlctcCastOut"))


def register_skl2onnx() -> bool:
    """Register the estimators with skl2onnx; False when skl2onnx is not installed."""
    try:
        from skl2onnx import update_registered_converter
    except ImportError:
        return False
    for cls in (OLCTClassifier, MARGOTClassifier, OCTHClassifier):
        update_registered_converter(cls, f"Olctc{cls.__name__}", _onnx_shape_calculator, _onnx_converter,
                                    options={"zipmap": [True, False, "columns"], "nocl": [True, False]})
    return True


class _WhenSkl2onnxImported:
    """A finder on ``sys.meta_path`` whose specs of skl2onnx register the estimators once the module has run:
    importing skl2onnx (and onnx) here took 0.85-1 s and 50 MB of every ``from olctc import OLCTClassifier``, and
    of every joblib worker that unpickles an estimator (QA 2026-12-05), for a converter few callers use.

    It stays on ``sys.meta_path`` (taking itself out while another thread's import walks the list could skip the
    next finder), and each spec it finds is patched: ``importlib.util.find_spec("skl2onnx")``, an availability
    check, takes a spec that is never run, and the import that follows takes another."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != "skl2onnx" or "skl2onnx" in sys.modules:
            return None
        for finder in list(sys.meta_path):  # the others, in order, as the import system asks them
            if type(finder).__name__ == type(self).__name__:
                continue  # this finder, or a copy of it left by importlib.reload of this module (another class)
            found = getattr(finder, "find_spec", None)
            spec = None if found is None else found(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module: Any) -> None:
            run(module)
            register_skl2onnx()

        loader.exec_module = exec_module  # type: ignore[method-assign]  # this spec's loader only
        return spec


def _register_skl2onnx_when_imported() -> None:
    """Register with skl2onnx now if it is imported already, else as soon as it is (once per process: a copy
    of the finder left by importlib.reload of this module counts)."""
    if "skl2onnx" in sys.modules:
        register_skl2onnx()
    elif not any(type(f).__name__ == _WhenSkl2onnxImported.__name__ for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenSkl2onnxImported())


_register_skl2onnx_when_imported()
