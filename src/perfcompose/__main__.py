"""``python -m perfcompose`` runs the command line."""
from perfcompose.cli import main

main()
