"""The LogGP tests, in folders that mirror the package; their shared helpers (random_programs,
bad_goal, txt2bin_grammar) sit here, importable from every folder."""
