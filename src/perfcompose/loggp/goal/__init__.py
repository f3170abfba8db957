"""LogGOPSim's GOAL schedules: reading and writing the text, and LogGOPSim's semantics on them."""
