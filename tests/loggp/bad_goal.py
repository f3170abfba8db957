"""GOAL schedules with one mistake each (bad_goal.toml), the line it is on and what the message
says: every GOAL reader (from text or from a file) rejects each alike, naming the file and the line."""
from __future__ import annotations

from pathlib import Path

from case_files import cases

#: (text, line of the mistake, part of the message)
BAD_GOAL = cases(Path(__file__).with_name("bad_goal.toml"), "text", "line", "needle")
