"""A LogGP program simulated under calibrated parameters carries the calibration's doubt."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from perfcompose.compose import load_design
from perfcompose.ensemble import RebuiltEnsemble
from perfcompose.errors import InputError
from perfcompose.loggp import LogGPSource, read_params, read_template
from perfcompose.loggp.params import calibration_members

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PARAMS_FILE = EXAMPLES / "loggp" / "params_local.json"
EXCHANGE = EXAMPLES / "loggp" / "exchange.json"


def test_members_are_medians_of_resampled_repetitions():
    reps = json.loads(PARAMS_FILE.read_text())["per_repetition"]
    members = calibration_members(PARAMS_FILE, count=25)
    assert len(members) == 25
    for name in ("L", "o", "g", "G"):
        values = np.array([getattr(m, name) for m in members])
        assert np.all(values >= 0)
        assert np.all(values <= max(reps[name]))
        assert np.median(values) == pytest.approx(np.median(reps[name]), rel=0.5)
    assert len({(m.L, m.o, m.g, m.G) for m in members}) > 1  # the resamples differ


def test_a_file_without_repetitions_is_exact(tmp_path):
    path = tmp_path / "typed.json"
    path.write_text(json.dumps({"unit": "us", "L": 9, "o": 2, "g": 14, "G": 0.03}))
    assert calibration_members(path) == []


def test_bad_repetitions_are_a_located_error(tmp_path):
    path = tmp_path / "bad.json"
    record = json.loads(PARAMS_FILE.read_text())
    record["per_repetition"]["L"][0] = "fast"
    path.write_text(json.dumps(record))
    with pytest.raises(InputError, match="per_repetition") as info:
        calibration_members(path)
    assert info.value.path == path


def test_the_simulated_model_carries_one_member_per_calibration():
    calibration = calibration_members(PARAMS_FILE, count=10)
    source = LogGPSource(read_template(EXCHANGE), read_params(PARAMS_FILE), calibration=calibration)
    model = source.model("halo", interval=True)
    assert isinstance(model.ensemble, RebuiltEnsemble) and len(model.ensemble.basis) == 10
    members = model.ensemble.members(x=np.array([65536.0]))[:10, 0]
    alone = [LogGPSource(read_template(EXCHANGE), p).model("h").__call__(x=65536.0) for p in calibration]
    np.testing.assert_allclose(members, alone)
    lo, hi = model.interval(x=65536.0)
    assert lo <= model(x=65536.0) <= hi and lo < hi
    assert source.model("halo").ensemble is None  # only when asked for


def test_a_design_with_calibrated_loggp_parameters_predicts_with_their_doubt():
    design = load_design(EXAMPLES / "designs" / "mixed.toml")
    assert isinstance(design.components["halo"].ensemble, RebuiltEnsemble)
