"""The loss registry (olctc.spec.LOSS_KINDS) against the losses themselves."""
from __future__ import annotations

import numpy as np
import pytest

from olctc.formulation.losses import LOSSES, loss_layers, tangent_lines
from olctc.objective import point_losses
from olctc.spec import LOSS_KINDS, PRESETS, make_spec


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_preset_has_a_kind_and_rows(preset):
    info = PRESETS[preset]
    assert info.kind is LOSS_KINDS[info.loss]
    assert info.loss in LOSSES
    # the q label column is what the 0/1 rows need, and only they
    assert LOSSES[info.loss].needs_q == (not info.kind.tangent_rows)


@pytest.mark.parametrize("name", ["logistic", "hinge"])
def test_zero_score_loss_is_the_loss_of_a_score_of_0(name):
    """The big-M floor compile warns about is the loss itself at u = 0, the true one and the model's: for the
    logistic, log(1 + e^0); for the hinge, max(0, 1 - 0)."""
    kind = LOSS_KINDS[name]
    preset = next(p for p in PRESETS.values() if p.loss == name and p.l0 is None)
    spec = make_spec(preset.name, depth=2)
    true = {"logistic": np.log1p(np.exp(0.0)), "hinge": 1.0}[name]
    assert kind.zero_score_loss == pytest.approx(true, rel=1e-15)
    exact = "exact" if kind.smooth else "model"
    assert point_losses(np.zeros(1), spec, exact)[0] == pytest.approx(true, rel=1e-15)


def test_only_the_logistic_is_smooth_and_takes_a_tangent_set():
    assert [k for k, v in LOSS_KINDS.items() if v.smooth] == ["logistic"]
    assert [k for k, v in LOSS_KINDS.items() if v.uses_tangent_set] == ["logistic"]
    assert sorted(p.name for p in PRESETS.values() if p.uses_tangents) == ["olct", "olct-univariate"]


def test_the_hinge_line_is_the_hinge():
    spec = make_spec("margot", depth=2)
    g, c = tangent_lines(spec)
    u = np.linspace(-3, 3, 61)
    assert np.array_equal(np.maximum(0.0, c[0] - g[0] * u), np.maximum(0.0, 1.0 - u))
    assert np.array_equal(point_losses(u, spec, "model"), np.maximum(0.0, 1.0 - u))


@pytest.mark.parametrize("preset, layers", [("olct", [1, 2, 3]), ("margot", [1, 2, 3]), ("oct-h", [3])])
def test_loss_layers(preset, layers):
    assert loss_layers(make_spec(preset, depth=3)).tolist() == layers
    assert LOSS_KINDS[PRESETS[preset].loss].last_layer_only == (layers == [3])
