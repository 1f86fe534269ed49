"""System-level simulation: workload generators (traffic), system model (system), scoring (report)."""
