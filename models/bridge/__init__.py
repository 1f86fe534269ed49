"""Reference model of the XLink-CXL bridge (issue 5): packets, conversion, HBM timing, buffer policies."""
from models.bridge.buffer import BridgeRef, HeaderTable, HotLineCache
from models.bridge.convert import BridgeConfig, LineOp, check, is_coherent, response, split, translate
from models.bridge.hbm import HbmGeom, HbmModel, HbmTiming
from models.bridge.packets import (NVLINK, UALINK, Packet, XlHeader, XlOp, XlStatus, dl_pack,
                                   dl_stream, dl_unpack, len_bytes, len_field_for, nv_flits,
                                   packet_from_beats)

__all__ = ["BridgeConfig", "BridgeRef", "HbmGeom", "HbmModel", "HbmTiming", "HeaderTable",
           "HotLineCache", "LineOp", "NVLINK", "Packet", "UALINK", "XlHeader", "XlOp", "XlStatus",
           "check", "dl_pack", "dl_stream", "dl_unpack", "is_coherent", "len_bytes",
           "len_field_for", "nv_flits", "packet_from_beats", "response", "split", "translate"]
