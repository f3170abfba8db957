"""MPI programs traced (a PMPI library, ``pctrace.c``), their traces read back (:mod:`.records`)
and turned into GOAL schedules (:mod:`.schedule`, collectives by :mod:`.collectives`)."""
