"""The compiled LogGP kernels (C extensions built at install) and their Numba twins, which run
where no C compiler was there: the step simulators, LogGOPSim's loop, the readers' inner loops."""
