"""Reference model of the lightweight CXL.cache coherence agent (issue 4).

Public API: see README.md in this folder.
"""
from models.coherence.checkers import (
    CacheState,
    CompletionChecker,
    DataValueChecker,
    Load,
    OrderingChecker,
    PortMsg,
    Store,
    SwmrChecker,
    check_trace,
    swmr_violations,
)
from models.coherence.device import DeviceCache
from models.coherence.explore import ExploreResult, explore, replay
from models.coherence.home import ERROR_KINDS, HomeAgent, HomeConfig
from models.coherence.msgs import (
    CD2HData,
    CD2HReq,
    CD2HRsp,
    CH2DData,
    CH2DReq,
    CH2DRsp,
    CM2SReq,
    CM2SRwD,
    CS2MDRS,
    CS2MNDR,
    from_cxl,
    to_cxl,
)
from models.coherence.protocol import DirState, LineState, decide, snoop_options, snoop_plan
from models.coherence.system import SysConfig, System

__all__ = [
    "CacheState", "CompletionChecker", "DataValueChecker", "Load", "OrderingChecker", "PortMsg", "Store",
    "SwmrChecker", "check_trace", "swmr_violations", "DeviceCache", "ExploreResult", "explore", "replay",
    "ERROR_KINDS", "HomeAgent", "HomeConfig", "CD2HData", "CD2HReq", "CD2HRsp", "CH2DData", "CH2DReq",
    "CH2DRsp", "CM2SReq", "CM2SRwD", "CS2MDRS", "CS2MNDR", "from_cxl", "to_cxl", "DirState", "LineState",
    "decide", "snoop_options", "snoop_plan", "SysConfig", "System",
]
