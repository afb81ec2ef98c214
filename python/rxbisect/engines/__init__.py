"""The engines a scenario runs on: the simulator rxb-sim (engine.py), the DPDK emulator
rxb-emu (emu.py), and the provenance of each run (provenance.py)."""
