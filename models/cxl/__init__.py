"""CXL reference models: messages (this package's public API), flits, CRC, link.

Only `messages` is imported here so that the flit/CRC/link modules can import it freely.
"""
from models.cxl.messages import *  # noqa: F401,F403
from models.cxl.messages import __all__ as _msg_all

__all__ = list(_msg_all)
