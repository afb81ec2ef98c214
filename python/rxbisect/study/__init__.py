"""Studies over many runs: sweeps, the experiment catalogue and its reproduction, NDR
searches, calibration and fidelity, the design comparison and the stall anatomy.
`python -m rxbisect.study` runs the headline study (headline.py, `make run`)."""
