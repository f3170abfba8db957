"""``perfcompose loggp``: its commands, a module each."""
