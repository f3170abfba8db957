"""Runtime tables T(n, p): long and wide CSV, and the bad tables that no estimate can use."""
from __future__ import annotations

from pathlib import Path

import pytest
from case_files import cases

from perfcompose.errors import DataFormatError
from perfcompose.skeleton import SEQ, RuntimeTable, half_unit, read_table


def test_long_and_wide_forms_read_the_same(write_file):
    long = write_file("long.csv", "# Table 1\nn,p,time\n40,1,0.7368\n40,7,0.2772\n50,1,1.3365\n50,seq,1.30\n")
    wide = write_file("wide.csv", "n,seq,1,7\n40,,0.7368,0.2772\n50,1.30,1.3365,\n")
    a, b = read_table(long), read_table(wide)
    assert a.times == b.times
    assert a.times[(40.0, 7)] == 0.2772 and a.times[(50.0, SEQ)] == 1.30
    assert a.absolute and a.reference_ns == [50.0]


def test_relative_reference_point_without_sequential_times(write_file):
    t = read_table(write_file("t.csv", "n,1,8\n10,2.0,0.3\n20,4.0,0.6\n"))
    assert not t.absolute and t.sequential(20) == 4.0 and t.ps == [1, 8]


def test_half_unit_of_the_last_printed_digit():
    assert half_unit("3.74") == 0.005 and half_unit("17") == 0.5 and half_unit("1.5e-3") == pytest.approx(5e-5)


@pytest.mark.parametrize("text, line, message", cases(Path(__file__).with_name("bad_tables.toml"),
                                                     "text", "line", "message"))
def test_bad_tables_get_located_errors(write_file, text, line, message):
    path = write_file("bad.csv", text)
    with pytest.raises(DataFormatError) as err:
        read_table(path)
    assert message in str(err.value) and str(path) in str(err.value)
    if line is not None:
        assert err.value.line == line


def test_from_rows_and_without():
    t = RuntimeTable.from_rows([(10, 1, "2.0"), (20, 1, "4.0"), (20, 4, "1.1")])
    assert (20.0, 4) not in t.without_all([(20, 4)]).times and t.times[(20.0, 4)] == 1.1
    with pytest.raises(DataFormatError, match="duplicate"):
        RuntimeTable.from_rows([(10, 1, 2.0), (10, 1, 2.0)])
