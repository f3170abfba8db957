"""Call paths of a Python program from its profiles: cProfile's callers apportioned as gprof does,
pyinstrument's sampled tree read as it is, and small paths folded into their callers."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from perfcompose.bench.python_profile import (
    ProfileTarget,
    call_path_times,
    experiment,
    profiled_command,
    sampled_path_times,
)
from perfcompose.errors import InputError

ROOT, F1, F2, G, H = (("s.py", k, name) for k, name in enumerate(("main", "f1", "f2", "g", "h"), 1))
# main calls f1 and f2; both call g (f1 a quarter of g's time, f2 three quarters); g calls h
STATS = {
    ROOT: (1, 1, 0.0, 1.0, {}),
    F1: (1, 1, 0.0, 0.25, {ROOT: (1, 1, 0.0, 0.25)}),
    F2: (1, 1, 0.0, 0.75, {ROOT: (1, 1, 0.0, 0.75)}),
    G: (4, 4, 0.6, 1.0, {F1: (1, 1, 0.15, 0.25), F2: (3, 3, 0.45, 0.75)}),
    H: (4, 4, 0.4, 0.4, {G: (4, 4, 0.4, 0.4)}),
}
MAIN = "main (s.py:1)"


def test_a_function_called_from_two_places_splits_its_callees_by_the_time_each_caller_spent() -> None:
    times = call_path_times(STATS, min_share=0.0)
    f1_g, f2_g = f"{MAIN}->f1 (s.py:2)->g (s.py:4)", f"{MAIN}->f2 (s.py:3)->g (s.py:4)"
    assert times[MAIN] == pytest.approx(1.0)
    assert times[f1_g] == pytest.approx(0.25) and times[f2_g] == pytest.approx(0.75)
    assert times[f"{f1_g}->h (s.py:5)"] == pytest.approx(0.1) and times[f"{f2_g}->h (s.py:5)"] == pytest.approx(0.3)


def test_a_path_below_the_share_is_folded_into_its_caller_and_the_total_stays_whole() -> None:
    times = call_path_times(STATS, min_share=0.2)
    f1_g = f"{MAIN}->f1 (s.py:2)->g (s.py:4)"
    assert f"{f1_g}->h (s.py:5)" not in times and f"{MAIN}->f2 (s.py:3)->g (s.py:4)->h (s.py:5)" in times
    assert times[f1_g] == pytest.approx(0.25) and times[MAIN] == pytest.approx(1.0)


def test_a_function_called_from_outside_the_profile_is_a_root_though_profiled_functions_call_it_too() -> None:
    # the exec that runs the program also runs each import, called from importlib inside the profile
    exec_ = ("~", 0, "exec")
    # (the program's module takes 0.8 s of which its import 0.2 s, which runs another module for 0.1 s)
    module, load, imported = ("s.py", 1, "<module>"), ("importlib", 1, "load"), ("t.py", 1, "<module>")
    stats = {exec_: (1, 2, 0.0, 0.8, {load: (1, 1, 0.0, 0.1)}),
             module: (1, 1, 0.6, 0.8, {exec_: (1, 1, 0.6, 0.8)}),
             load: (1, 1, 0.1, 0.2, {module: (1, 1, 0.1, 0.2)}),
             imported: (1, 1, 0.1, 0.1, {exec_: (1, 1, 0.1, 0.1)})}
    times = call_path_times(stats, 0.0)
    assert times == pytest.approx({"exec": 0.8, "exec-><module> (s.py:1)": 0.7, "exec-><module> (t.py:1)": 0.1,
                                   "exec-><module> (s.py:1)->load (importlib:1)": 0.1})


def test_a_recursive_call_is_its_caller_s_own_time() -> None:
    stats = {ROOT: (1, 1, 0.0, 1.0, {}), G: (5, 1, 1.0, 1.0, {ROOT: (1, 1, 0.2, 1.0), G: (4, 4, 0.8, 0.8)})}
    assert call_path_times(stats, 0.0) == pytest.approx({MAIN: 1.0, f"{MAIN}->g (s.py:4)": 1.0})


def test_a_sampled_tree_is_read_without_the_runpy_frames_and_its_self_time() -> None:
    def frame(name, time, *children, file="s.py", line=1):
        return {"function": name, "file_path_short": file, "line_no": line, "time": time, "children": list(children)}

    doc = {"root_frame": frame("_run_code", 2.0, frame("<module>", 2.0, frame("[self]", 0.5), frame("solve", 1.49),
                                                      frame("tiny", 0.01)), file="<frozen runpy>")}
    assert sampled_path_times(doc, min_share=0.01) == {"<module> (s.py:1)": 2.0,
                                                       "<module> (s.py:1)->solve (s.py:1)": 1.49}


def test_each_call_path_is_a_series_of_its_own_seconds_in_every_run_at_a_point() -> None:
    runs = {(10.0,): [{"a": 1.0, "a->b": 0.5}, {"a": 1.2}], (20.0,): [{"a": 2.0, "a->b": 1.0}], (40.0,): [{"a": 4.0}]}
    e = experiment(["n"], runs)
    assert e.parameters == ("n",) and e.regions == ("a", "a->b")
    assert [p.values for p in e.get("time", "a").points] == [(0.5, 1.2), (1.0,), (4.0,)]
    # the second run at n=10 did not follow a->b: its time is a's own there, and a->b's 0
    b = e.get("time", "a->b")
    assert [p.values for p in b.points] == [(0.5, 0.0), (1.0,)] and b.unit == "s"


def test_only_a_python_command_is_profiled() -> None:
    assert profiled_command(["python", "x.py", "3"], Path("o"))[:5] == ["python", "-m", "cProfile", "-o", "o"]
    with pytest.raises(InputError, match="profile runs Python programs"):
        profiled_command(["./solver", "3"], Path("o"))


def test_a_script_profiled_by_cpu_time_has_the_call_paths_of_the_wall_clock_profile(tmp_path: Path) -> None:
    script = tmp_path / "s.py"
    script.write_text("import sys\n\ndef work(n):\n    return sum(i * i for i in range(n))\n\nwork(int(sys.argv[1]))\n")
    target = ProfileTarget((sys.executable, str(script), "{n}"), profiler="cprofile-cpu")
    wall = target.measure({"n": 200000.0})
    (times,) = target.details()
    work = "<built-in method builtins.exec>-><module> (s.py:1)->work (s.py:3)"
    assert work in times and 0 < times[work] <= times["<built-in method builtins.exec>"] <= wall
