"""Transaction-level reference model of the ScalePool CXL switch (issue 3). See README.md."""
from models.switch.cascade import SwitchFabric
from models.switch.config import PortConfig, PortRole, SwitchConfig, hbr_config
from models.switch.errors import ConfigError, OrderingError
from models.switch.flows import META_FIELD_NO_OP, decode_error_response, expected_response
from models.switch.hdm import (HDM_UNIT, HdmDecoder, check_no_overlap, eig_from_granularity, eiw_from_ways,
                               find_decoder, granularity_from_eig, ways_from_eiw)
from models.switch.model import Outstanding, SwitchCounters, SwitchModel
from models.switch.pbr import (PID_BITS, PID_COUNT, request_to_hbr, request_to_pbr, response_to_hbr,
                               response_to_pbr)
from models.switch.streams import SWITCH_SRC, Expected, ExpectedStreams

__all__ = [
    "SwitchFabric", "PortConfig", "PortRole", "SwitchConfig", "hbr_config", "ConfigError", "OrderingError",
    "META_FIELD_NO_OP", "decode_error_response", "expected_response", "HDM_UNIT", "HdmDecoder",
    "check_no_overlap", "eig_from_granularity", "eiw_from_ways", "find_decoder", "granularity_from_eig",
    "ways_from_eiw", "Outstanding", "SwitchCounters", "SwitchModel", "PID_BITS", "PID_COUNT",
    "request_to_hbr", "request_to_pbr", "response_to_hbr", "response_to_pbr", "SWITCH_SRC", "Expected",
    "ExpectedStreams",
]
