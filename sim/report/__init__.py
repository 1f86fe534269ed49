"""Scoring against ../shared/reference/targets.md and the report (`python -m sim.report.run`)."""
