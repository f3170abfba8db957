"""Validation: the papers tables reproduced; modular vs monolithic vs measured."""
