"""The choices and options of the LogGP simulators, declared once: the library's type hints and
defaults, the command line's options and a design file's loggp keys are all read from these.
Cheap to import, so that a command can name them up front."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from perfcompose.errors import InputError
from perfcompose.option_fields import option

__all__ = ["GapOrigin", "Ties", "Semantics", "LogGPOptions", "LogGPParameters", "LogGPFiles", "LogGOPSimOptions",
           "SimulateOutputs", "LOGGOPSIM_S"]

#: where section 3's "g later" counts from: the end (default) or the start of the previous operation
GapOrigin = Literal["end", "start"]
#: ties between processors: a seeded random choice (the paper's) or the lower rank
Ties = Literal["random", "rank"]
#: the paper's algorithm (Figure 2 / section 4.2) or LogGOPSim's rules
Semantics = Literal["paper", "loggopsim"]

LOGGOPSIM_S = 65535.0  #: LogGOPSim's default eager/rendezvous threshold [bytes]


@dataclass(frozen=True)
class LogGPOptions:
    """How a program is simulated with the paper's semantics (a LogGP model's options)."""

    worst_case: bool = option(False, "Section 4.2: receive everything, then send.")
    ties: Ties = option("random", "Ties between processors: random (seeded, the paper's) or rank (the paper's "
                                  "semantics only).")
    seed: int = option(0, "Seed of the random tie-breaks and forced sends (the paper's semantics only).")
    gap_origin: GapOrigin = option("end", "Section 3's 'g later': from the end or the start of the previous "
                                          "operation (the paper's semantics only).")

    def __post_init__(self) -> None:
        for name, kind in (("ties", Ties), ("gap_origin", GapOrigin)):
            if getattr(self, name) not in get_args(kind):
                raise InputError(f"{name} {getattr(self, name)!r}: choose "
                                 + " or ".join(repr(v) for v in get_args(kind)))


@dataclass(frozen=True)
class LogGPParameters:
    """The LogGP parameters as given one by one; each given replaces a parameter file's value."""

    L: float | None = option(None, "Latency.")
    o: float | None = option(None, "Overhead per message.")
    g: float | None = option(None, "Gap between consecutive messages.")
    G: float | None = option(None, "Gap per byte.")


@dataclass(frozen=True)
class LogGPFiles:
    """Where the LogGP parameters come from when not given one by one."""

    params: Path | None = option(None, "Parameter file (from perfcompose loggp calibrate); the parameters given "
                                       "one by one (--L/--o/--g/--G) replace its values.")


@dataclass(frozen=True)
class LogGOPSimOptions:
    """Which rules ``loggp simulate`` follows, and LogGOPSim's own parameters."""

    semantics: Semantics | None = option(None, "paper (default for programs), or loggopsim (LogGOPSim's rules; "
                                               "always for GOAL schedules).")
    O: float = option(0.0, "LogGOPSim: overhead per byte.")
    S: float | None = option(None, "LogGOPSim: rendezvous above S bytes (default 65535, LogGOPSim's own default).")


@dataclass(frozen=True)
class SimulateOutputs:
    """What ``loggp simulate`` writes or fixes besides its table."""

    timeline: Path | None = option(None, "Draw the timeline to this PNG.")
    to_goal: Path | None = option(None, "Also write the program as a GOAL schedule in the text form LogGOPSim's "
                                        "txt2bin reads.")
    time_scale: float = option(1.0, "With --to-goal: multiply times by this (GOAL holds integers).")
    at: list[str] | None = option(None, "NAME=VALUE: a value of a parameter of the program's expressions (repeat "
                                        "for each).")
    model_json: Path | None = option(None, "Write the program, parameters and options as a LogGP model record (its "
                                           "makespan as a model of the program's parameters).")
