"""The arguments and options the ``perfcompose pamela`` commands share: the model (:class:`ModelOptions`,
declared beside the models), parameter values and their unit."""
from __future__ import annotations

from dataclasses import dataclass

from perfcompose.errors import InputError, PerfcomposeError
from perfcompose.option_fields import option
from perfcompose.pamela.options import ModelOptions
from perfcompose.units import check_unit


@dataclass(frozen=True)
class PointOptions(ModelOptions):
    """A model evaluated at the parameter values given."""

    assignments: list[str] | None = option(None, "Parameter values, e.g. P=1000 N=1e6.", argument=True)
    unit: str = option("us", "The time unit of the model's numbers (PAMELA's examples are in microseconds): us, ms, "
                             "s or ns.")


def time_unit(unit: str) -> str:
    """``--unit`` checked; a unit it cannot read is refused with the ones it can."""
    try:
        check_unit(unit)
    except PerfcomposeError as exc:
        raise InputError(str(exc), hint="--unit us (PAMELA's examples), ms, s or ns") from None
    return unit
