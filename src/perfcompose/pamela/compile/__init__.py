"""PAMELA models compiled into symbolic cost models (paper 004, section 2.2): the normal-form
processes (``ir``), the compiler to phi, delta, omega and T, the simplifier that closes them, and
their evaluation, exact with SymPy or in floating point from the numeric form kept on disk."""
