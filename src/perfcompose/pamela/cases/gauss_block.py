"""GAUSS: elimination without pivoting on a diagonally dominant matrix whose columns (j axis) are
spread over the processors block-wise (the elimination itself in _elimination.py)."""
from perfcompose.pamela.cases._elimination import eliminate
from perfcompose.pamela.dataparallel import block


def program(dp, N):
    A = dp.array((N, N), block(1), fill="dominant")
    eliminate(dp, A, N)
