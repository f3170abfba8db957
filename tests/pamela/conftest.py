"""Every PAMELA test keeps compiled models in a folder of its own, never in the user's cache."""
from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _model_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("PERFCOMPOSE_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
