"""Co-simulation of the ScalePool rack edge (rtl/edge/sp_rack_edge.v) driven by sim/traffic streams.

`python -m sim.cosim.run --out results/cosim` runs it and writes `latency.json` for the system model
(format: sim/system/measured.py). See README.md for the hop mapping.
"""
