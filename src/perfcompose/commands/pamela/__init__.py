"""``perfcompose pamela`` (and ``paper vangemund``): its commands, a module each."""
