"""Call paths that run beside their caller: a kernel tagged as running on a GPU is shown under
its caller but not summed into it (nor subtracted from it), and a helper thread's tree is a root
of its own, not added to the program's run."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest

from perfcompose.analyze import analyze

X = (4.0, 8.0, 16.0, 32.0, 64.0, 128.0)
GPU, HELPER = '\x03{"gpu": true}', '\x03{"thread": 1}'


def _points(law) -> list[dict]:
    return [{"coordinate": [x], "mean": law(x), "median": law(x), "minimum": law(x), "maximum": law(x), "std": 0.0,
             "repetitions": 1, "values": None} for x in X]


def _profile(path: Path) -> Path:
    """An Extra-P experiment of inclusive CPU times: main (own 2) calls work (3 x) and launches a
    GPU kernel (50 x, on the device); a helper thread waits (40 x)."""
    measurements = {"main": {"time": _points(lambda x: 2 + 3 * x)},
                    "main->work": {"time": _points(lambda x: 3 * x)},
                    "main->kernel" + GPU: {"time": _points(lambda x: 50 * x)},
                    "helper" + HELPER: {"time": _points(lambda x: 40 * x)},
                    "helper->wait": {"time": _points(lambda x: 40 * x)}}
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("experiment.json", json.dumps({"Extra-P": "4.2.5", "parameters": ["x"],
                                                  "measurements": measurements}))
    path.write_bytes(buf.getvalue())
    return path


def test_a_gpu_kernel_and_a_helper_thread_are_not_summed(tmp_path: Path) -> None:
    time = analyze(_profile(tmp_path / "tagged.extra-p"), {"x": 1024}).metrics[0]
    assert [r.path for r in time.roots] == ["main", "helper"] and time.run == "main"
    nodes = {n.path: n for n in time.walk()}
    main, kernel = nodes["main"], nodes["main->kernel"]
    assert main.composition.term == "seq(own, work)"
    assert main.at_target.value == pytest.approx(2 + 3 * 1024, rel=0.01)
    # the kernel was not subtracted from main's own time (which would leave it below zero, read as 0)
    assert main.composition.own_model is not None and main.composition.at_target.value == pytest.approx(3074, rel=0.01)
    assert kernel.beside == "on a device" and nodes["helper"].beside == "on thread 1"
    assert nodes["main->work"].beside == "" and nodes["helper->wait"].beside == ""
    assert "2 call path(s) on a device or another thread not summed" in time.note
