"""``perfcompose loggp simulate X.goal``: a LogGOPSim GOAL schedule simulated with LogGOPSim's
rules, shown as a table, JSON or a timeline."""
from __future__ import annotations

from typing import Any

from perfcompose.commands.common import err_console, write_json
from perfcompose.commands.loggp.tables import goal_layout, print_layout


def _goal_timeline(res: Any) -> Any:
    """A GOAL run as a program result for the timeline plot (operations, no message arrows)."""
    import numpy as np

    from perfcompose.loggp.goal.loggopsim import timeline_ops
    from perfcompose.loggp.results import ProgramResult

    n = res.schedule.num_ranks
    return ProgramResult(n, res.finish, np.zeros(n), res.finish.copy(), timeline_ops(res, messages=False))


def simulate_goal_file(opts: Any, params: Any) -> None:
    """``loggp simulate`` of a GOAL schedule (the command's options ``opts``): LogGOPSim's rules."""
    from perfcompose.loggp.goal.loggopsim import LOGGOPSIM_S, simulate_goal
    from perfcompose.loggp.goal.schedule import SEND, read_goal, write_goal
    from perfcompose.loggp.work_size import check_simulation
    from perfcompose.progress_callbacks import phases

    program, O, json_out, timeline, to_goal = opts.program, opts.O, opts.json_out, opts.timeline, opts.to_goal
    with phases(program, ("reading", "simulating")) as step:
        sched = read_goal(program)
        rendezvous = LOGGOPSIM_S if opts.S is None else opts.S
        check_simulation(sched.num_ranks, int((sched.kind == SEND).sum()), 1, semantics="loggopsim",
                         timelines=json_out is not None or timeline is not None)
        step("simulating")
        # the operations' times only where they are shown (the table needs the finish times)
        res = simulate_goal(sched, params, O=O, S=rendezvous, path=program,
                            timelines=bool(json_out) or timeline is not None)
        step(None)
    if to_goal is not None:
        write_goal(sched, to_goal)
        err_console.print(f"GOAL schedule written to {to_goal}")
    if timeline is not None:
        from perfcompose.report.loggp import plot_timeline

        plot_timeline(_goal_timeline(res), timeline, unit=params.unit,
                      title=f"{program.name}: LogGOPSim semantics, makespan {res.makespan:.6g}")
        err_console.print(f"timeline written to {timeline}")
    print_layout(goal_layout(str(program), sched.num_ranks, params, O, rendezvous, res.finish))
    if json_out is not None:
        names = ("send", "recv", "calc")
        labels = sched.labels or ("",) * sched.num_ops
        write_json(json_out, {"finish": res.finish.tolist(), "makespan": res.makespan,
                              "ops": [[[names[int(sched.kind[i])], labels[i] or None, float(res.op_start[i]),
                                        float(res.op_end[i])]
                                       for i in range(int(sched.op_ptr[h]), int(sched.op_ptr[h + 1]))]
                                      for h in range(sched.num_ranks)]}, "simulation", indent=None)
