"""The measured side of paper 002 on a real MPI: L, o, g, G calibrated on two ranks, and the
Gaussian elimination of section 5 run and timed."""
