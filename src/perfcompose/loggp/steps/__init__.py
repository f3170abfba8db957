"""Paper 002's programs of computation and communication steps: reading them (JSON, ``.npz``,
templates), and simulating them under LogGP (Figure 2, the worst case of section 4.2, LogGOPSim's rules)."""
