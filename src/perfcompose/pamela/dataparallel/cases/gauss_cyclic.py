"""GAUSS: elimination without pivoting on a diagonally dominant matrix whose columns (j axis) are
spread over the processors cyclic-wise (the elimination itself in _elimination.py)."""
from perfcompose.pamela.dataparallel import cyclic
from perfcompose.pamela.dataparallel.cases._elimination import eliminate


def program(dp, N):
    A = dp.array((N, N), cyclic(1), fill="dominant")
    eliminate(dp, A, N)
