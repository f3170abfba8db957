"""The reference tasks compute what the papers say they compute."""
from __future__ import annotations

import numpy as np

from perfcompose.bench.tasks import RESOLUTIONS, TASKS, histogram_map, image, inc, qsort, reduce_p, reduce_v


def test_inc_adds_ten():
    a = np.arange(100, dtype=np.int32)
    assert np.array_equal(inc(a.copy()), a + 10)


def test_qsort_sorts():
    a = np.random.default_rng(1).integers(0, 1000, 5000).astype(np.int32)
    assert np.array_equal(qsort(a), np.sort(a))


def test_histogram_map_counts_every_channel_value_of_the_image():
    img = image("small")
    assert img.shape == (RESOLUTIONS["small"][1], RESOLUTIONS["small"][0], 3)
    h = histogram_map(img.reshape(-1, 3))
    assert h.shape == (768,) and h.sum() == img.size
    assert np.array_equal(h[256:512], np.bincount(img[..., 1].ravel(), minlength=256))


def test_the_image_is_deterministic():
    assert np.array_equal(image.__wrapped__("small"), image.__wrapped__("small"))


def test_reductions():
    assert np.array_equal(reduce_p(np.ones(768, np.int64), np.ones(768, np.int64)), np.full(768, 2))
    assert reduce_v(np.arange(10)) == 45


def test_every_task_runs_on_its_own_inputs():
    for task in TASKS.values():
        task.warm()


def test_touch_takes_whatever_a_stage_before_it_hands_on():
    import numpy as np

    from perfcompose.bench.tasks import touch, warm_touch

    warm_touch()
    ints = np.zeros(8, dtype=np.int32)
    assert (touch(ints) == 1).all()
    samples = np.zeros(4, dtype=np.int16)
    assert touch(samples) is samples and samples.view(np.uint8).tolist() == [1] * 8
    assert touch(b"packed") == b"packed"
