"""Models shared by the PAMELA tests: the paper's MRM, verbatim."""
from __future__ import annotations

from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "pamela"

# The Machine Repair Model exactly as printed in paper 004, section 2.1.
MRM = """\
numeric parameter P           % # clients
numeric parameter N           % # iterations
numeric t_l = 10              % local think time
numeric t_s = 0.1             % service time

resource parameter fcfs(i)     % predefined FCFS array
resource s = fcfs(0,1)         % s is FCFS type resource
                                % args: index, multiplicity

process main = par (p = 1, P)
    seq (i = 1, N) {
        delay(t_l) ;
        use(s,t_s)
    }
"""
