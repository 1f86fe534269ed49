// One line lane's CXL.mem wire side of xbridge_top: a ROLE_DOWN rtl/link/cxl_link whose M_REQ /
// M_DATA transmit classes carry the lane's M2S Req / RwD and whose M_RSP / M_DATA receive classes
// deliver S2M NDR / DRS. Classes a memory device must not send (D2H, BISnp) are taken at once and
// flagged in `unexp` (one bit per class 0..3, counted by xbridge_top).
`default_nettype none
module xb_cxl_port #(
    parameter integer  FLIT_MODE = 0,                  // cxl_link: 0 = 68B, 1 = 256B flits
    localparam integer FLIT_W    = (FLIT_MODE != 0) ? 2048 : 528
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              m2s_req_valid,
    output wire              m2s_req_ready,
    input  wire [127:0]      m2s_req_hdr,
    input  wire              m2s_rwd_valid,
    output wire              m2s_rwd_ready,
    input  wire [127:0]      m2s_rwd_hdr,
    input  wire [511:0]      m2s_rwd_data,
    output wire              s2m_ndr_valid,
    output wire [127:0]      s2m_ndr_hdr,
    output wire              s2m_drs_valid,
    input  wire              s2m_drs_ready,
    output wire [127:0]      s2m_drs_hdr,
    output wire [511:0]      s2m_drs_data,
    output wire [3:0]        unexp,
    output wire              tx_flit_valid,
    input  wire              tx_flit_ready,
    output wire [FLIT_W-1:0] tx_flit,
    input  wire              rx_flit_valid,
    input  wire [FLIT_W-1:0] rx_flit,
    output wire              link_up,
    output wire              link_fatal
);
`include "cxl_defs.vh"
    generate if (FLIT_MODE != 0 && FLIT_MODE != 1) begin : g_bad_mode
        xb_cxl_port_parameter_error_FLIT_MODE_must_be_0_68B_or_1_256B u_stop ();
    end endgenerate
    wire [5:0]       l_tx_ready, l_rx_valid;
    wire [6*128-1:0] l_rx_hdr;
    wire [2*512-1:0] l_rx_data;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [15:0]  l_crc, l_retry, l_proto;
    wire [1:0]   l_lrsm;
    wire [7:0]   l_eseq, l_free;
    wire         l_commit, l_replay, l_ovf, l_cerr;
    wire [511:0] unused_c_data = l_rx_data[511:0];
    wire [511:0] unused_c_hdr  = l_rx_hdr[511:0];
    /* verilator lint_on UNUSEDSIGNAL */
    assign m2s_req_ready = l_tx_ready[CXL_CLS_M_REQ];
    assign m2s_rwd_ready = l_tx_ready[CXL_CLS_M_DATA];
    assign s2m_ndr_valid = l_rx_valid[CXL_CLS_M_RSP];
    assign s2m_ndr_hdr   = l_rx_hdr[CXL_CLS_M_RSP*128 +: 128];
    assign s2m_drs_valid = l_rx_valid[CXL_CLS_M_DATA];
    assign s2m_drs_hdr   = l_rx_hdr[CXL_CLS_M_DATA*128 +: 128];
    assign s2m_drs_data  = l_rx_data[512 +: 512];
    assign unexp         = l_rx_valid[3:0];
    // the bridge takes every NDR (space reserved) and D2H / BISnp at once; DRS may wait
    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(CXL_ROLE_DOWN)) u_link (
        .clk(clk), .rst(rst),
        .tx_valid({m2s_rwd_valid, 1'b0, m2s_req_valid, 3'b000}), .tx_ready(l_tx_ready),
        .tx_hdr({m2s_rwd_hdr, 128'd0, m2s_req_hdr, 384'd0}), .tx_data({m2s_rwd_data, 512'd0}),
        .rx_valid(l_rx_valid), .rx_ready({s2m_drs_ready, 5'b11111}), .rx_hdr(l_rx_hdr),
        .rx_data(l_rx_data),
        .tx_flit_valid(tx_flit_valid), .tx_flit_ready(tx_flit_ready), .tx_flit(tx_flit),
        .rx_flit_valid(rx_flit_valid), .rx_flit(rx_flit),
        .link_up(link_up), .link_fatal(link_fatal), .stat_crc_err(l_crc), .stat_retry(l_retry),
        .stat_proto_err(l_proto), .dbg_lrsm(l_lrsm), .dbg_eseq(l_eseq), .dbg_num_free(l_free),
        .dbg_rx_commit(l_commit), .dbg_tx_replay(l_replay), .dbg_rx_overflow(l_ovf),
        .dbg_credit_err(l_cerr));
endmodule
`default_nettype wire
