"""Exceptions of the switch reference model."""
from __future__ import annotations


class ConfigError(ValueError):
    """A switch configuration the hardware must refuse (the RTL register interface sets its error
    status for the same cases). The message names the offending item and the reason."""


class OrderingError(AssertionError):
    """An observed egress message does not fit the expected per-source streams."""
