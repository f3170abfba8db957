"""LogGP simulation of parallel programs (paper 002, Rugina & Schauser).

Communication steps are simulated with the paper's algorithm (Figure 2) or its overestimation
(section 4.2); programs alternate computation and communication steps, and a program whose
durations and sizes are expressions is a performance model of their parameters (``LogGPSource``);
LogGOPSim's semantics and GOAL schedules are available for comparison; the blocked Gaussian
elimination study of section 5 and a calibration of L, o, g, G from a real MPI complete it.

The names below are imported on first use, so that importing one submodule (the options, the
GOAL format) does not load the compiled simulators or SymPy.
"""
from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "ProgramResult": "results", "simulate_program": "execute",
    "GoalSchedule": "goal", "goal_text": "goal", "parse_goal": "goal", "program_to_goal": "goal",
    "read_goal": "goal", "simulate_goal": "loggopsim",
    "MEIKO_CS2": "params", "LogGP": "params", "read_params": "params", "write_params": "params",
    "CommStep": "program", "CompStep": "program", "Program": "program", "program_to_json": "program",
    "read_program": "program",
    "ForcedSend": "results", "Op": "results", "StepResult": "results", "simulate_step": "simulate",
    "LogGPSource": "source", "read_source": "source",
    "ProgramTemplate": "template", "read_template": "template",
    "worst_case_step": "worstcase",
}

__all__ = ["LogGP", "MEIKO_CS2", "read_params", "write_params", "CommStep", "CompStep", "Program", "read_program",
           "program_to_json", "simulate_step", "worst_case_step", "StepResult", "Op", "ForcedSend",
           "simulate_program", "ProgramResult", "GoalSchedule", "parse_goal", "read_goal", "goal_text",
           "program_to_goal", "simulate_goal", "ProgramTemplate", "read_template", "LogGPSource", "read_source"]


def __getattr__(name: str) -> Any:
    if name not in _WHERE:
        raise AttributeError(f"module 'perfcompose.loggp' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"perfcompose.loggp.{_WHERE[name]}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
