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

_WHERE = {
    "LogGP": "params", "MEIKO_CS2": "params", "read_params": "params", "write_params": "params",
    "ForcedSend": "results", "Op": "results", "ProgramResult": "results", "StepResult": "results",
    "LogGPSource": "source", "read_source": "source",
    "CommStep": "steps.program", "CompStep": "steps.program", "Program": "steps.program",
    "program_to_json": "steps.program", "read_program": "steps.program",
    "ProgramTemplate": "steps.template", "read_template": "steps.template",
    "simulate_step": "steps.simulate", "worst_case_step": "steps.worstcase", "simulate_program": "steps.execute",
    "GoalSchedule": "goal.schedule", "goal_text": "goal.schedule", "parse_goal": "goal.schedule",
    "program_to_goal": "goal.schedule", "read_goal": "goal.schedule", "simulate_goal": "goal.loggopsim",
}

__all__ = list(_WHERE)


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'perfcompose.loggp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"perfcompose.loggp.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
