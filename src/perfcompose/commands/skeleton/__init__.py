"""``perfcompose skeleton``: its commands, a module each."""
