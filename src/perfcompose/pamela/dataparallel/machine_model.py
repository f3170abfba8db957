"""The PAMELA machine model as values: the cost of each kind of work and of messages on one
computer (:class:`MachineParameters`), and :func:`machine_text`, the PAMELA file that program
models ``include``. :mod:`perfcompose.pamela.dataparallel.calibration` measures them (paper 004, section 3)."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields

__all__ = ["MachineParameters", "contended", "machine_text"]


@dataclass(frozen=True)
class MachineParameters:
    """Seconds: per NumPy call, per view, per element of each kind of work, per message and word; each
    field's note is the comment the machine model file gives it."""

    t_call: float = field(metadata={"note": "one NumPy operation on a tiny array"})  # the interpreter's share included
    t_index: float = field(metadata={"note": "one subscript (a view)"})
    t_ew: float = field(metadata={"note": "per element, element-wise, contiguous"})
    t_ews: float = field(metadata={"note": "per element, element-wise, along a column"})  # strided
    t_ewm: float = field(metadata={"note": "per element, element-wise, on a block of parts of matrix rows"})
    t_ewc: float = field(metadata={"note": "per element, element-wise, on a block of whole matrix rows"})  # contiguous
    t_copy: float = field(metadata={"note": "per element copied"})
    t_mxv: float = field(metadata={"note": "per multiply-add, vector-matrix"})
    t_mxm: float = field(metadata={"note": "per multiply-add, matrix-matrix"})
    t_sort: float = field(metadata={"note": "per n log2 n, sort"})
    t_merge: float = field(metadata={"note": "per n log2(k + 1), merge of k sorted runs"})
    t_msg: float = field(metadata={"note": "one message (start-up)"})  # answered before the next
    t_word: float = field(metadata={"note": "per 8-byte word of a message"})
    t_smsg: float = field(metadata={"note": "one message of a stream (start-up)"})  # sent without waiting for an answer
    t_sword: float = field(metadata={"note": "per 8-byte word of a message of a stream"})


_PROCESSES = """\
resource cpu(p) = fcfs(p, 1)              % processor p

% one NumPy operation on processor p; n elements (or multiply-adds, or numbers sorted)
process call(p) = use(cpu(p), t_call)
process index(p) = use(cpu(p), t_index)
process ew(p, n) = use(cpu(p), t_call + n * t_ew)
process ews(p, n) = use(cpu(p), t_call + n * t_ews)
process ewm(p, n) = use(cpu(p), t_call + n * t_ewm)
% r rows of c elements in rows of w: whole rows (c = w) are one contiguous run of memory
process ewb(p, r, c, w) = use(cpu(p), t_call + r * c * (t_ewc + (t_ewm - t_ewc) * min(1, w - c)))
process copy(p, n) = use(cpu(p), t_call + n * t_copy)
process mxv(p, n) = use(cpu(p), t_call + n * t_mxv)
process mxm(p, n) = use(cpu(p), t_call + n * t_mxm)
process sort(p, n) = use(cpu(p), t_call + t_sort * n * log2(max(n, 2)))
process merge(p, n, k) = use(cpu(p), t_call + t_merge * n * log2(k + 1))

% communication: n words from every processor (pairwise exchanges, one after the other)
numeric msg(n) = t_msg + n * t_word
% a slice of n words (c = 1: a column of a row-major array) copied out by its root, which sends
% it to the P - 1 others without waiting: a message of a stream. Every processor is the root of
% 1 / P of the slices: it pays 1 / P of a copy per broadcast.
process bcast(n, c) = delay((t_call + t_index + n * (t_copy + c * (t_ews - t_copy))) / P
                            + (P - 1) * (t_smsg + n * t_sword))
% the slices of a cyclic axis have their roots in turn: the root of the next slice sends it when
% done with this one, so every processor waits each step for the copy and one message at a time
process bcastc(n, c) = delay(t_call + t_index + n * (t_copy + c * (t_ews - t_copy)) + (P - 1) * msg(n))
process allgather(n) = delay((P - 1) * 2 * msg(n) + t_call + P * n * t_copy)
process alltoall(n) = if (P > 1) delay((P - 1) * 2 * msg(n / P) + t_call + n * t_copy)
% the same global array in blocks along another axis: parts copied out, exchanged, joined
process redistribute(n) = if (P > 1) delay((P - 1) * 2 * msg(n / P) + 2 * (t_call + n * t_copy))
"""

def contended(name: str, workers: Sequence[int]) -> str:
    """A parameter measured with ``w`` workers at once (``name_w``) for each ``w`` of ``workers`` as an
    expression in ``P``: the values joined by straight lines, the last one beyond."""
    w0, *rest = sorted(workers)
    if not rest:
        return f"{name}_{w0}"
    terms = [f"{name}_{w0}"]
    for wa, wb in zip(sorted(workers), rest):
        terms.append(f"({name}_{wb} - {name}_{wa}) * (min(P, {wb}) - min(P, {wa}))"
                     + (f" / {wb - wa}" if wb - wa != 1 else ""))
    return " + ".join(terms)


def machine_text(params: MachineParameters | Mapping[int, MachineParameters], origin: str = "") -> str:
    """The machine model as PAMELA text: the calibrated numbers, then the machine processes. Given
    the parameters measured with 1, 2, ... workers at once (:func:`calibrate`), each compute
    parameter is written per number of workers and the model takes the one for its ``P``."""
    levels = dict(params) if isinstance(params, Mapping) else {1: params}
    lines = ["% The machine model of this computer (seconds), calibrated by micro-benchmarks"
             + (f": {origin}" if origin else "") + ".", "numeric parameter P                       % processors"]
    if len(levels) > 1:
        lines.append("% compute costs measured with W workers at once (name_W), taken at W = P")
    first = asdict(levels[min(levels)])
    notes = {f.name: f.metadata["note"] for f in fields(MachineParameters)}
    for name in first:
        values = [(w, getattr(p, name)) for w, p in sorted(levels.items())]
        if len(levels) == 1 or len({v for _, v in values}) == 1:
            lines.append(f"numeric {name} = {first[name]:.6g}".ljust(42) + f"% {notes[name]}")
            continue
        for w, v in values:
            lines.append(f"numeric {name}_{w} = {v:.6g}".ljust(42) + f"% {notes[name]}, {w} at once")
        lines.append(f"numeric {name} = {contended(name, sorted(levels))}")
    return "\n".join(lines) + "\n\n" + _PROCESSES
