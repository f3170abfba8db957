"""Programs whose computation times and message sizes are model expressions in named parameters.

A template is a program JSON (P, steps, unit) in which any computation duration and any message's
``bytes`` may be a string such as ``"8*x"`` or ``"2.5 + 1e-3*x*log2(x)"``. Reading it parses every
expression once and checks the program's structure with a trial value in place of each; an
instance at a point only evaluates the compiled expressions and fills arrays.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from perfcompose.errors import InputError, ModelSyntaxError
from perfcompose.loggp.jsonfile import JsonText, load_json_program
from perfcompose.loggp.steps.json_array_slots import mapped
from perfcompose.loggp.steps.json_arrays import JsonLists, JsonNumbers, readonly
from perfcompose.loggp.steps.program import CommStep, CompStep, Problem, Program, located_error, parse_program

if TYPE_CHECKING:  # SymPy is loaded only for a program that has expressions
    import sympy as sp

__all__ = ["ProgramTemplate", "read_template", "problem_error"]

JsonPath = tuple[str | int, ...]

#: what stands in for every expression while the structure is checked (a valid size and duration)
_TRIAL = 0.0


@dataclass(frozen=True)
class _Slot:
    """Where an expression sits: step ``step``, entry ``index`` (processor or message id)."""

    step: int
    index: int
    expr: int
    path: JsonPath


@dataclass(frozen=True, eq=False)
class _StepFill:
    """The expression entries of one step: ``values[positions] = results[exprs]``."""

    step: int
    positions: np.ndarray
    exprs: np.ndarray


@dataclass(frozen=True, eq=False)
class ProgramTemplate:
    """A program with expressions for durations and sizes; :meth:`instantiate` fixes a point.

    ``doc`` is the JSON document as read (for writing back), ``source`` names where it came from, ``parameters`` are the
    expressions' free symbols in order of first appearance (the names of one expression sorted).
    """

    P: int
    unit: str
    parameters: tuple[str, ...]
    doc: Mapping[str, Any] = field(repr=False)
    source: str = ""
    expressions: tuple[sp.Expr, ...] = field(default=(), repr=False)
    _base: Program = field(default=None, repr=False)  # type: ignore[assignment]
    _slots: tuple[_Slot, ...] = field(default=(), repr=False)
    _fills: tuple[_StepFill, ...] = field(default=(), repr=False)
    _compiled: Callable[..., Any] | None = field(default=None, repr=False)
    _text: str | JsonText | None = field(default=None, repr=False)
    _prefix: JsonPath = field(default=(), repr=False)

    @classmethod
    def from_doc(cls, doc: Any, *, source: Path | str = "", text: str | JsonText | None = None,
                 prefix: JsonPath = ()) -> ProgramTemplate:
        """Build a template from a parsed program document.

        ``text`` is the file it was parsed from (errors then carry line and column); ``prefix`` is
        the JSON path of the program inside that file (``("program",)`` in a model record). The
        template keeps its own copy of ``doc``, with the number arrays as read-only arrays.
        """
        source = str(source)
        doc = _own(doc)
        try:
            entries = _expression_entries(doc)
            exprs, slots = _parse_entries(doc, entries, source, text, prefix)
            trial = _with_trial_values(doc, entries)
            base = parse_program(trial)
        except Problem as p:
            raise problem_error(p, source, text, prefix) from None
        parameters = _parameters(exprs, slots)
        compiled = _lambdify(parameters, exprs) if exprs else None
        template = cls(P=base.P, unit=base.unit, parameters=parameters, doc=doc, source=source,
                       expressions=exprs, _base=base, _slots=slots, _fills=_fills(slots), _compiled=compiled,
                       _text=text, _prefix=prefix)
        if exprs and not parameters:  # constant expressions: check and fill them once
            object.__setattr__(template, "_base", template.instantiate({}))
            object.__setattr__(template, "_compiled", None)
        return template

    def instantiate(self, values: Mapping[str, float]) -> Program:
        """The program at ``values`` (one number per parameter; other names are ignored).

        A duration or size that is negative or not finite there is an InputError naming the step,
        the processor or message, and the point.
        """
        missing = [p for p in self.parameters if p not in values]
        if missing:
            raise InputError(f"the program needs a value for {', '.join(missing)}", path=self.source or None,
                             hint="its parameters: " + ", ".join(self.parameters))
        if self._compiled is None:
            return self._base
        point = tuple(float(values[p]) for p in self.parameters)
        with np.errstate(all="ignore"):
            results = np.asarray(self._compiled(*point), dtype=np.float64).reshape(-1)
        bad = ~np.isfinite(results) | (results < 0)
        if bad.any():
            raise self._bad_value(int(np.flatnonzero(bad)[0]), float(results[bad][0]), point)
        steps = list(self._base.steps)
        for fill in self._fills:
            s = steps[fill.step]
            if isinstance(s, CompStep):
                d = s.durations.copy()
                d[fill.positions] = results[fill.exprs]
                steps[fill.step] = CompStep(readonly(d))
            else:
                b = s.nbytes.copy()
                b[fill.positions] = results[fill.exprs]
                steps[fill.step] = CommStep(s.P, s.src, s.dst, readonly(b), s.order, s.send_ptr)
        return Program(self.P, tuple(steps), self.unit)

    def _bad_value(self, expr: int, value: float, point: tuple[float, ...]) -> InputError:
        """The error for expression ``expr`` evaluating to ``value`` at ``point``, at its first entry."""
        slot = next(s for s in self._slots if s.expr == expr)
        at = ", ".join(f"{n}={v:.15g}" for n, v in zip(self.parameters, point)) or "every point"
        text = _entry(self.doc, slot.path)
        step = self._base.steps[slot.step]
        if isinstance(step, CommStep):
            what = (f"the size of message {slot.index} ({int(step.src[slot.index])} -> "
                    f"{int(step.dst[slot.index])}), {text!r}, is {value:g} bytes")
        else:
            what = f"the duration of processor {slot.index}, {text!r}, is {value:g}"
        problem = Problem(f"step {slot.step}: {what} at {at}; it must be finite and non-negative",
                           slot.path, hint="the expression must not be negative for any point the model is "
                                           "evaluated at")
        return problem_error(problem, self.source, self._text, self._prefix)


def read_template(path: Path | str, text: str | None = None) -> ProgramTemplate:
    """Read a program JSON file whose durations and sizes may be expressions; every problem is an
    InputError naming the file, line and column."""
    path = Path(path)
    source, doc = load_json_program(path, text, what="program")
    return ProgramTemplate.from_doc(doc, source=path, text=source)


# ---------------------------------------------------------------------------------------------
# reading


def _lambdify(parameters: Sequence[str], exprs: Sequence[sp.Expr]) -> Callable[..., Any]:
    """The expressions as one NumPy function of the parameters, in order."""
    import sympy as sp

    from perfcompose.model import symbol

    return sp.lambdify([symbol(n) for n in parameters], list(exprs), modules=[np])


def _expression_entries(doc: Any) -> list[tuple[int, int, JsonPath]]:
    """``(step, index, path)`` of every string duration and string message size, in document
    order; anything malformed around them is left for the structural check to report."""
    entries: list[tuple[int, int, JsonPath]] = []
    steps = doc.get("steps") if isinstance(doc, dict) else None
    if not isinstance(steps, list):
        return entries
    for k, s in enumerate(steps):
        if not isinstance(s, dict):
            continue
        if s.get("kind") == "comp" and isinstance(s.get("durations"), list):
            entries += [(k, p, ("steps", k, "durations", p)) for p, v in enumerate(s["durations"])
                        if isinstance(v, str)]
        elif s.get("kind") == "comm" and isinstance(s.get("messages"), list):
            messages = s["messages"]
            if _all_numbers(messages):  # the fast path of large steps
                continue
            entries += [(k, m, ("steps", k, "messages", m, 2)) for m, msg in enumerate(messages)
                        if isinstance(msg, list) and len(msg) == 3 and isinstance(msg[2], str)]
    return entries


_ARRAYS = ("messages", "durations", "send_order")


def _own(doc: Any) -> Any:
    """A copy of a program document that later changes to ``doc`` do not reach: objects and lists copied, the number
    arrays of its steps (messages, durations, send orders) as read-only arrays, which need no copy."""
    if not isinstance(doc, dict):
        return doc
    out = dict(doc)
    steps = doc.get("steps")
    if isinstance(steps, list):
        out["steps"] = [_own_step(s) for s in steps]
    return out


def _own_step(step: Any) -> Any:
    if not isinstance(step, dict):
        return _copy(step)
    return {key: _as_array(key, value) if key in _ARRAYS and isinstance(value, list) else _copy(value)
            for key, value in step.items()}


def _as_array(key: str, value: list[Any]) -> Any:
    """A list of plain numbers (or, for send_order, lists of integers) as an array; else a copy."""
    try:
        if key == "send_order":
            if not all(isinstance(ids, list) for ids in value):
                return _copy(value)
            counts = np.array([len(ids) for ids in value], dtype=np.int64)
            flat = np.array([m for ids in value for m in ids], dtype=np.float64)
            if not (flat == np.floor(flat)).all():
                return _copy(value)
            return JsonLists(readonly(flat.astype(np.int64)), readonly(counts))
        if any(isinstance(v, (bool, str)) or (isinstance(v, list) and any(isinstance(x, (bool, str)) for x in v))
               for v in value):
            return _copy(value)
        values = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        return _copy(value)
    if values.ndim != (2 if key == "messages" else 1) or (key == "messages" and values.shape[1] != 3):
        return _copy(value)
    return JsonNumbers(readonly(values))


def _copy(value: Any) -> Any:
    return mapped(value, lambda v: v)


def _all_numbers(messages: list[Any]) -> bool:
    """True when the messages convert to one array of numbers at once, as the reader's do."""
    try:
        np.array(messages, dtype=np.float64)
    except (TypeError, ValueError):
        return False
    return True


def _parse_entries(doc: Any, entries: list[tuple[int, int, JsonPath]], source: str, text: str | JsonText | None,
                   prefix: JsonPath) -> tuple[tuple[sp.Expr, ...], tuple[_Slot, ...]]:
    """Parse every expression (equal texts once); a syntax error points into the string."""
    if not entries:
        return (), ()
    from perfcompose.model import parse_expression

    exprs: list[sp.Expr] = []
    ids: dict[sp.Expr, int] = {}
    by_text: dict[str, int] = {}
    slots: list[_Slot] = []
    for step, index, path in entries:
        raw = _entry(doc, path)
        if raw not in by_text:
            try:
                expr = parse_expression(raw)
            except ModelSyntaxError as exc:
                problem = Problem(f"{exc.reason} in {raw!r}", path, exc.hint)  # the column: inside the string
                raise problem_error(problem, source, text, prefix, shift=exc.column or 0) from None
            by_text[raw] = ids.setdefault(expr, len(ids))
            if by_text[raw] == len(exprs):
                exprs.append(expr)
        slots.append(_Slot(step, index, by_text[raw], path))
    return tuple(exprs), tuple(slots)


def _with_trial_values(doc: Any, entries: list[tuple[int, int, JsonPath]]) -> Any:
    """A copy of ``doc`` with every expression replaced by the trial value (``doc`` is kept)."""
    if not entries:
        return doc
    trial = {**doc, "steps": list(doc["steps"])}
    copied: set[int] = set()
    for step, index, path in entries:
        if step not in copied:
            s = trial["steps"][step] = dict(doc["steps"][step])
            key = path[2]
            s[key] = [list(v) if isinstance(v, list) else v for v in s[key]]
            copied.add(step)
        entry = trial["steps"][step][path[2]]
        if path[2] == "durations":
            entry[index] = _TRIAL
        else:
            entry[index][2] = _TRIAL
    return trial


def _parameters(exprs: Sequence[sp.Expr], slots: Sequence[_Slot]) -> tuple[str, ...]:
    """The free symbols, in the order their expressions first appear (names within one sorted)."""
    names: list[str] = []
    for slot in slots:
        names += sorted(s.name for s in exprs[slot.expr].free_symbols)
    return tuple(dict.fromkeys(names))


def _fills(slots: Sequence[_Slot]) -> tuple[_StepFill, ...]:
    by_step: dict[int, list[_Slot]] = {}
    for s in slots:
        by_step.setdefault(s.step, []).append(s)
    return tuple(_StepFill(k, np.array([s.index for s in ss], dtype=np.int64),
                           np.array([s.expr for s in ss], dtype=np.int64)) for k, ss in by_step.items())


def _entry(doc: Any, path: JsonPath) -> Any:
    for key in path:
        doc = doc[key]
    return doc


def problem_error(problem: Problem, source: str, text: str | JsonText | None, prefix: JsonPath,
                  shift: int = 0) -> InputError:
    """A located InputError when the file's text is known (``shift`` characters right of its value), else one naming
    the JSON path."""
    shifted = Problem(problem.message, prefix + problem.path, problem.hint, problem.node, problem.index)
    if text is not None:
        return located_error(text, source, shifted, shift=shift)
    return InputError(shifted.described, path=source or None, hint=problem.hint)
