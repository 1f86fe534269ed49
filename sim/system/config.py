"""Import path kept for sim/cosim, which reads `ConfigError`, `parse_scalar` and the parameter tree
from here; the configuration lives in `sim.config`."""
from sim.config.domains import ConfigError
from sim.config.tree import ParamTree as Config, parse_scalar

__all__ = ["Config", "ConfigError", "parse_scalar"]
