"""validate refuses sizes whose inputs do not fit in memory before it measures, and a part that
fails at a size when timed alone is a located error (x = 1e15 had ended in a KeyError traceback
after the point failed). Found by the option fuzz."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from perfcompose.cli import app
from perfcompose.errors import InputError
from perfcompose.validate.modular import _Progress, _time_parts_alone


def test_sizes_beyond_the_memory_limit_are_refused_before_measuring() -> None:
    result = CliRunner().invoke(app, ["validate", "nop", "--x", "1024,2048,1e15", "--count", "2"],
                                env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "2 inputs of x = 1e+15 values (--x, --count) would need about" in result.output


def test_a_part_failing_at_a_size_names_the_part_and_the_size() -> None:
    def fragile(data: list[int]) -> None:
        if len(data) > 2:
            raise ValueError("too long for this stage")

    with pytest.raises(InputError, match=r"fragile timed alone failed at x = 4: .*too long for this stage"):
        _time_parts_alone(["fragile"], {"fragile": fragile}, lambda x: [0] * int(x), (2.0, 4.0), 1, 1, None, False,
                          _Progress(None, 2))
