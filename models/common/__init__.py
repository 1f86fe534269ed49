"""Shared helpers for the reference models."""
from models.common.bits import bit_mask, check_field, get_field, set_field

__all__ = ["bit_mask", "check_field", "get_field", "set_field"]
