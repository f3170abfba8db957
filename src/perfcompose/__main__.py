"""``python -m perfcompose`` runs the command line."""
from perfcompose.launch import main

main()
