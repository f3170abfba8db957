"""GOAL schedules with one mistake each, the line it is on and what the message says: every GOAL
reader (from text or from a file) rejects each alike, naming the file and the line."""
from __future__ import annotations

#: (text, line of the mistake, part of the message)
BAD_GOAL = [
    ("rank 0 {\n}\n", 1, "'num_ranks N' must come before"),
    ("num_ranks 1\nrank 0 {\n a: send 8 to 0\n}\n", 3, "cannot read this line"),
    ("num_ranks 2\nrank 0 {\nl0: calc 5 nic 1\n}\n", 3, "cannot read this line"),
    ("num_ranks 1\nrank 0 {\n a: send 8b to 3\n}\n", 3, "rank 3 is not below num_ranks"),
    ("num_ranks 2\nrank 0 {\nl0: send 8b to 5\n}\n", 3, "rank 5 is not below num_ranks = 2"),
    ("num_ranks 1\nrank 0 {\n a: calc 1\n a requires b\n}\n", 4, "undefined label 'b'"),
    ("num_ranks 2\nrank 0 {\nl0: calc 5\nl0 requires l7\n}\n", 4, "undefined label 'l7'"),
    ("num_ranks 1\nrank 0 {\n a: calc 1\n a: calc 2\n}\n", 4, "defined twice"),
    ("num_ranks 2\nrank 0 {\nl0: calc 5\nl0: calc 6\n}\n", 4, "label 'l0' defined twice"),
    ("num_ranks 1\nrank 0 {\n a: recv 1b to 0\n}\n", 3, "a recv is written"),
    ("num_ranks 2\nrank 0 {\nl0: send 8b from 1\n}\n", 3, "a send is written"),
    ("num_ranks 1\nrank 0 {\n a: calc 1\n", 4, "not closed"),
    ("num_ranks 2\nrank 0 {\nl0: calc 5\n", 4, "rank 0 is not closed"),
]
