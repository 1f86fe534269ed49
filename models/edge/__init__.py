"""Reference models of the rack-edge composition's own blocks (rtl/edge)."""
from models.edge.mem_node import DATA_TAG, MemNodeModel, RespQueue, Response

__all__ = ["DATA_TAG", "MemNodeModel", "RespQueue", "Response"]
