"""GAUSS: elimination without pivoting on a diagonally dominant matrix whose columns (j axis) are
spread over the processors block-wise (the elimination itself in _elimination.py)."""
from perfcompose.pamela.dataparallel import block
from perfcompose.pamela.dataparallel.cases._elimination import eliminate


def program(dp, N):
    A = dp.array((N, N), block(1), fill="dominant")
    eliminate(dp, A, N)
