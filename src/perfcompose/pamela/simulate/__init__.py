"""The time a compiled bound approximates: a discrete-event simulation of the same normal-form
model (and its Numba kernel), and mean value analysis where the model is a closed network."""
