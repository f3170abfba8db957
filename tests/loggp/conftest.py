"""The LogGP tests, in folders that mirror the package; their shared helpers (random_programs,
bad_goal) sit here, importable from every folder."""
