"""Choice options of the library that the command line offers, declared once as Literals.

This module imports nothing heavy, so a command module can annotate its options with these
types at import time without slowing down ``perfcompose --help``.
"""
from __future__ import annotations

from typing import Literal, get_args

#: how the automatic forecast choice (001 section 3) picks a method: ``known`` checks every
#: method against the known value nearest to the target; ``best-two`` and ``best-three`` are the
#: paper's "real life" strategies, trained on a few known values
Strategy = Literal["known", "best-two", "best-three"]
STRATEGIES: tuple[str, ...] = get_args(Strategy)

#: the single forecast methods of 001 section 3, in the paper's order; a skeleton forecast may
#: also choose among them (``auto``) or take the mean of the points (``mean``)
SingleMethod = Literal["spline", "loess", "lm-poly", "lm"]
ForecastMethod = Literal["auto", SingleMethod, "mean"]
FORECAST_METHODS: tuple[str, ...] = get_args(ForecastMethod)

#: the algorithmic skeletons of 001: ``general`` (eq. *), ``parmap``, ``farm``, ``dc`` (divide
#: and conquer) and ``iteration``
SkeletonKind = Literal["general", "parmap", "farm", "dc", "iteration"]
SKELETON_KINDS: tuple[str, ...] = get_args(SkeletonKind)

#: in which variable a skeleton's penalty is forecast: n (p fixed), p (n fixed), or ``auto``
Direction = Literal["auto", "n", "p"]
DIRECTIONS: tuple[str, ...] = get_args(Direction)

#: how the repetitions of a measurement point are combined before fitting
Aggregate = Literal["median", "mean", "min", "max"]
AGGREGATE_CHOICES: tuple[str, ...] = get_args(Aggregate)

#: whether the PMNF fitter also tries negative exponents (strong scaling): ``auto`` where the
#: values fall as a parameter grows, ``yes`` always (Extra-P's allow_negative_exponents), ``no`` never
NegativeExponents = Literal["auto", "yes", "no"]
NEGATIVE_EXPONENTS: dict[str, bool | None] = {"auto": None, "yes": True, "no": False}

#: what the runtime of data-parallel programs times: elapsed time between barriers, or the
#: processor time of the busiest worker
Clock = Literal["wall", "cpu"]

#: how the PAMELA simulator draws times: as written, use() times exponential, or delays exponential too
Distribution = Literal["deterministic", "exponential-service", "exponential"]

#: how a pipeline's max is taken: ``asymptotic`` keeps the stage of higher order (the papers'
#: eq. 3), ``pointwise`` the exact max at every point
PipeRule = Literal["asymptotic", "pointwise"]
PIPE_RULES: tuple[str, ...] = get_args(PipeRule)

#: what runs the stages of a validation study: threads or processes
Workers = Literal["threads", "processes"]
WORKERS: tuple[str, ...] = get_args(Workers)

#: the experiment file formats perfcompose writes (``convert --to``) and reads
OutputFormat = Literal["perfcompose", "csv", "extrap-text", "extrap-json", "extrap-saved"]
ExperimentFormat = Literal[OutputFormat, "jsonl", "talpas", "cube", "extrap3"]

#: how the per-location values of a CUBE profile make a run's repetitions (Extra-P's
#: ``--scaling``): ``weak`` keeps every location's value, ``weak-threaded`` the non-zero ones,
#: ``strong`` sums them
Scaling = Literal["weak", "weak-threaded", "strong"]
SCALINGS: tuple[str, ...] = get_args(Scaling)

#: how a MapReduce job reduces (runtime.mapreduce.strategies describes each)
MapReduceStrategy = Literal["pairwise", "local", "shuffle"]
MAPREDUCE_STRATEGIES: tuple[str, ...] = get_args(MapReduceStrategy)

#: the pictures of the pixel-histogram MapReduce job
Picture = Literal["small", "medium", "large"]
PICTURES: tuple[str, ...] = get_args(Picture)

#: the profilers ``perfcompose profile`` runs a Python program under (bench.python_profile.PROFILERS)
PythonProfiler = Literal["cprofile", "cprofile-cpu", "pyinstrument"]

#: what a profile's call-path values are (``perfcompose analyze --values``): ``inclusive`` holds the
#: callees' time, ``exclusive`` does not, ``auto`` decides from the data
ValueKind = Literal["auto", "inclusive", "exclusive"]
