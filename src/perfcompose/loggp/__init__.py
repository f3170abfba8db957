"""LogGP simulation of parallel programs (paper 002, Rugina & Schauser).

Communication steps are simulated with the paper's algorithm (Figure 2) or its overestimation
(section 4.2); programs alternate computation and communication steps, and a program whose
durations and sizes are expressions is a performance model of their parameters (``LogGPSource``);
LogGOPSim's semantics and GOAL schedules are available for comparison; the blocked Gaussian
elimination study of section 5 and a calibration of L, o, g, G from a real MPI complete it.
"""
from perfcompose.loggp.execute import ProgramResult, simulate_program
from perfcompose.loggp.loggopsim import (GoalSchedule, goal_text, parse_goal, program_to_goal, read_goal,
                                         simulate_goal)
from perfcompose.loggp.params import MEIKO_CS2, LogGP, read_params, write_params
from perfcompose.loggp.program import CommStep, CompStep, Program, program_to_json, read_program
from perfcompose.loggp.simulate import ForcedSend, Op, StepResult, simulate_step
from perfcompose.loggp.source import LogGPSource, read_source
from perfcompose.loggp.template import ProgramTemplate, read_template
from perfcompose.loggp.worstcase import worst_case_step

__all__ = ["LogGP", "MEIKO_CS2", "read_params", "write_params", "CommStep", "CompStep", "Program", "read_program",
           "program_to_json", "simulate_step", "worst_case_step", "StepResult", "Op", "ForcedSend",
           "simulate_program", "ProgramResult", "GoalSchedule", "parse_goal", "read_goal", "goal_text",
           "program_to_goal", "simulate_goal", "ProgramTemplate", "read_template", "LogGPSource", "read_source"]
