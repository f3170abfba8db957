"""The ``perfcompose`` commands, a module per command or group (:mod:`perfcompose.cli` lists them); :mod:`.common`
holds what they share (consoles, the error wrapper that turns a PerfcomposeError into exit status 2, progress bars)."""
