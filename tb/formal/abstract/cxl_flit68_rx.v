// Abstraction of rtl/link/cxl_flit68_rx.v for formal proofs of cxl_link's replay logic: same
// ports, every output free in every cycle (any partner, any decoded flit).
module cxl_flit68_rx #(
    parameter integer ROLE = 0,
    parameter integer PBR  = 0,
    parameter integer MAXM = 4,
    parameter integer SEQ_CRC = 0
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    flit_valid,
    input  wire [527:0]            flit,
    input  wire                    commit,
    input  wire                    in_seq,
    input  wire [15:0]             crc_term,
    output wire                    valid,
    output wire                    crc_ok,
    output wire                    retryable,
    output wire [2:0]              ctl_kind,
    output wire [7:0]              ctl_eseq,
    output wire [4:0]              ctl_num_retry,
    output wire                    ctl_empty,
    output wire [7:0]              ack_cnt,
    output wire [6*8-1:0]          crd_cnt,
    output wire [6*MAXM-1:0]       msg_valid,
    output wire [6*MAXM*128-1:0]   msg_hdr,
    output wire [2*MAXM*512-1:0]   msg_data,
    output wire                    proto_err,
    output wire                    seq_chk
);
    assign valid         = $anyseq;
    assign crc_ok        = $anyseq;
    assign retryable     = $anyseq;
    assign ctl_kind      = $anyseq;
    assign ctl_eseq      = $anyseq;
    assign ctl_num_retry = $anyseq;
    assign ctl_empty     = $anyseq;
    assign ack_cnt       = $anyseq;
    assign crd_cnt       = $anyseq;
    assign msg_valid     = $anyseq;
    assign msg_hdr       = $anyseq;
    assign msg_data      = $anyseq;
    assign proto_err     = $anyseq;
    assign seq_chk       = $anyseq;
endmodule
