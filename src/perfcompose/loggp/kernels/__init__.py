"""The compiled LogGP kernels (C extensions built at install): the step simulators, LogGOPSim's
loop, the readers' inner loops; where one is not built, the plain-Python reference runs."""
