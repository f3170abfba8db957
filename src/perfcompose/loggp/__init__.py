"""LogGP simulation of parallel programs (paper 002, Rugina & Schauser).

Communication steps are simulated with the paper's algorithm (Figure 2) or its overestimation (section 4.2); programs
alternate computation and communication steps, and a program whose durations and sizes are expressions is a performance
model of their parameters (``LogGPSource``); LogGOPSim's semantics and GOAL schedules are available for comparison; the
blocked Gaussian elimination study of section 5 and a calibration of L, o, g, G from a real MPI complete it.

The names below are imported on first use, so that importing one submodule (the options, the GOAL format) does not load
the compiled simulators or SymPy.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {name: module for module, names in {
    "params": "LogGP MEIKO_CS2 read_params write_params", "results": "ForcedSend Op ProgramResult StepResult",
    "source": "LogGPSource read_source", "steps.program": "CommStep CompStep Program program_to_json read_program",
    "steps.template": "ProgramTemplate read_template", "steps.simulate": "simulate_step",
    "steps.worstcase": "worst_case_step", "steps.execute": "simulate_program",
    "goal.schedule": "GoalSchedule goal_text parse_goal program_to_goal read_goal", "goal.loggopsim": "simulate_goal",
}.items() for name in names.split()}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'perfcompose.loggp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"perfcompose.loggp.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
