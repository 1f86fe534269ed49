// XLink-CXL bridge with the CXL link layer on its wire side: xbridge_core + rtl/link/cxl_link
// (ROLE_DOWN: the bridge is the CXL.mem host of the far memory; 68B flits by default). The core's
// M2S Req/RwD go out as link classes M_REQ/M_DATA; S2M NDR/DRS come in on M_RSP/M_DATA. The
// CXL.cache path (D2H Req/Data out, H2D Rsp/Data in) stays a message port: a ROLE_DOWN link cannot
// carry D2H requests, so the coherent path needs its own ROLE_UP link toward the coherence agent
// (not built here, see README). Link messages the bridge never expects are taken and counted.
// S2M DRS may be held back by the core (full HBM write queue); the link buffers it.
module xbridge_top #(
    parameter integer  FLAVOR     = 0,
    parameter [63:0]   WIN_BASE   = 64'h1_0000_0000,
    parameter [63:0]   WIN_SIZE   = 64'h100_0000,
    parameter [63:0]   HPA_BASE   = 64'h40_0000_0000,
    parameter [63:0]   COH_OFF    = 64'hF0_0000,
    parameter [63:0]   COH_SIZE   = 64'h10_0000,
    parameter integer  BUF_EN     = 1,
    parameter integer  SETS       = 16,
    parameter integer  WR_ALLOC   = 1,
    parameter integer  HT_ENTRIES = 8,
    parameter integer  WB_DEPTH   = 8,
    parameter integer  WQ_DEPTH   = 4,
    parameter integer  NROB       = 4,
    parameter integer  HBM_INFLIGHT = 8,
    parameter integer  NPC        = 2,
    parameter integer  NBANK      = 4,
    parameter integer  ROW_LINES  = 16,
    parameter integer  T_CL       = 13,
    parameter integer  T_RCD      = 20,
    parameter integer  T_RP       = 17,
    parameter integer  T_RAS      = 29,
    parameter integer  T_BURST    = 3,
    parameter integer  T_REFI     = 3900,
    parameter integer  T_RFC      = 160,
    parameter integer  REF_POSTPONE = 8,
    parameter integer  REF_IDLE   = 32,
    parameter [15:0]   TAG_BASE   = 16'h0000,
    parameter integer FLIT_MODE  = 0,
    parameter integer FLIT_W     = (FLIT_MODE != 0) ? 2048 : 528
) (
    input  wire clk,
    input  wire rst,
    input wire xl_rx_valid,
    output wire xl_rx_ready,
    input wire [511:0] xl_rx_data,
    input wire xl_rx_last,
    output wire xl_tx_valid,
    input wire xl_tx_ready,
    output wire [511:0] xl_tx_data,
    output wire xl_tx_last,
    output wire d2h_req_valid,
    input wire d2h_req_ready,
    output wire [127:0] d2h_req_hdr,
    output wire d2h_data_valid,
    input wire d2h_data_ready,
    output wire [127:0] d2h_data_hdr,
    output wire [511:0] d2h_data_data,
    input wire h2d_rsp_valid,
    output wire h2d_rsp_ready,
    input wire [127:0] h2d_rsp_hdr,
    input wire h2d_data_valid,
    output wire h2d_data_ready,
    input wire [127:0] h2d_data_hdr,
    input wire [511:0] h2d_data_data,
    output wire [15:0] stat_err,
    output wire [15:0] stat_proto_err,
    output wire [31:0] stat_hit,
    output wire [31:0] stat_fwd,
    output wire [31:0] stat_miss,
    output wire [31:0] stat_ht_hit,
    output wire [31:0] stat_rmw,
    output wire wb_empty,
    output wire dbg_line_valid,
    output wire [2:0] dbg_line_kind,
    output wire [15:0] dbg_line_seq,
    output wire dbg_req_valid,
    output wire [15:0] dbg_req_seq,
    output wire dbg_req_hthit,
    output wire [31:0] hbm_now,
    output wire hbm_iss_valid,
    output wire [31:0] hbm_iss_done,
    output wire hbm_iss_we,
    output wire [$clog2(SETS)-1:0] hbm_iss_idx,
    output wire              tx_flit_valid,
    input  wire              tx_flit_ready,
    output wire [FLIT_W-1:0] tx_flit,
    input  wire              rx_flit_valid,
    input  wire [FLIT_W-1:0] rx_flit,
    output wire              link_up,
    output wire              link_fatal,
    output reg  [15:0]       stat_link_unexp
);
`include "cxl_defs.vh"
    wire         m2s_req_valid, m2s_req_ready, m2s_rwd_valid, m2s_rwd_ready;
    wire [127:0] m2s_req_hdr, m2s_rwd_hdr;
    wire [511:0] m2s_rwd_data;
    wire [5:0]   l_tx_ready, l_rx_valid;
    wire [6*128-1:0] l_rx_hdr;
    wire [2*512-1:0] l_rx_data;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [15:0]  l_crc, l_retry, l_proto;
    wire [1:0]   l_lrsm;
    wire [7:0]   l_eseq, l_free;
    wire         l_commit, l_replay, l_ovf, l_cerr;
    wire [511:0] unused_c_data = l_rx_data[511:0];
    wire [511:0] unused_c_hdr  = l_rx_hdr[511:0];
    wire         core_ndr_rdy;   // always 1: the core reserves ROB space
    /* verilator lint_on UNUSEDSIGNAL */
    wire         core_drs_rdy;

    xbridge_core #(
        .FLAVOR(FLAVOR), .WIN_BASE(WIN_BASE), .WIN_SIZE(WIN_SIZE), .HPA_BASE(HPA_BASE),
        .COH_OFF(COH_OFF), .COH_SIZE(COH_SIZE), .BUF_EN(BUF_EN), .SETS(SETS),
        .WR_ALLOC(WR_ALLOC), .HT_ENTRIES(HT_ENTRIES), .WB_DEPTH(WB_DEPTH), .WQ_DEPTH(WQ_DEPTH), .NROB(NROB),
        .HBM_INFLIGHT(HBM_INFLIGHT), .NPC(NPC), .NBANK(NBANK), .ROW_LINES(ROW_LINES),
        .T_CL(T_CL), .T_RCD(T_RCD), .T_RP(T_RP), .T_RAS(T_RAS), .T_BURST(T_BURST),
        .T_REFI(T_REFI), .T_RFC(T_RFC), .REF_POSTPONE(REF_POSTPONE), .REF_IDLE(REF_IDLE),
        .TAG_BASE(TAG_BASE)) u_core (
        .clk(clk), .rst(rst),
        .m2s_req_valid(m2s_req_valid), .m2s_req_ready(m2s_req_ready), .m2s_req_hdr(m2s_req_hdr),
        .m2s_rwd_valid(m2s_rwd_valid), .m2s_rwd_ready(m2s_rwd_ready), .m2s_rwd_hdr(m2s_rwd_hdr),
        .m2s_rwd_data(m2s_rwd_data),
        .s2m_ndr_valid(l_rx_valid[CXL_CLS_M_RSP]), .s2m_ndr_ready(core_ndr_rdy),
        .s2m_ndr_hdr(l_rx_hdr[CXL_CLS_M_RSP*128 +: 128]),
        .s2m_drs_valid(l_rx_valid[CXL_CLS_M_DATA]), .s2m_drs_ready(core_drs_rdy),
        .s2m_drs_hdr(l_rx_hdr[CXL_CLS_M_DATA*128 +: 128]), .s2m_drs_data(l_rx_data[512 +: 512]),
        .xl_rx_valid(xl_rx_valid),
        .xl_rx_ready(xl_rx_ready),
        .xl_rx_data(xl_rx_data),
        .xl_rx_last(xl_rx_last),
        .xl_tx_valid(xl_tx_valid),
        .xl_tx_ready(xl_tx_ready),
        .xl_tx_data(xl_tx_data),
        .xl_tx_last(xl_tx_last),
        .d2h_req_valid(d2h_req_valid),
        .d2h_req_ready(d2h_req_ready),
        .d2h_req_hdr(d2h_req_hdr),
        .d2h_data_valid(d2h_data_valid),
        .d2h_data_ready(d2h_data_ready),
        .d2h_data_hdr(d2h_data_hdr),
        .d2h_data_data(d2h_data_data),
        .h2d_rsp_valid(h2d_rsp_valid),
        .h2d_rsp_ready(h2d_rsp_ready),
        .h2d_rsp_hdr(h2d_rsp_hdr),
        .h2d_data_valid(h2d_data_valid),
        .h2d_data_ready(h2d_data_ready),
        .h2d_data_hdr(h2d_data_hdr),
        .h2d_data_data(h2d_data_data),
        .stat_err(stat_err),
        .stat_proto_err(stat_proto_err),
        .stat_hit(stat_hit),
        .stat_fwd(stat_fwd),
        .stat_miss(stat_miss),
        .stat_ht_hit(stat_ht_hit),
        .stat_rmw(stat_rmw),
        .wb_empty(wb_empty),
        .dbg_line_valid(dbg_line_valid),
        .dbg_line_kind(dbg_line_kind),
        .dbg_line_seq(dbg_line_seq),
        .dbg_req_valid(dbg_req_valid),
        .dbg_req_seq(dbg_req_seq),
        .dbg_req_hthit(dbg_req_hthit),
        .hbm_now(hbm_now),
        .hbm_iss_valid(hbm_iss_valid),
        .hbm_iss_done(hbm_iss_done),
        .hbm_iss_we(hbm_iss_we),
        .hbm_iss_idx(hbm_iss_idx));

    assign m2s_req_ready = l_tx_ready[CXL_CLS_M_REQ];
    assign m2s_rwd_ready = l_tx_ready[CXL_CLS_M_DATA];
    wire [5:0] tx_valid = {m2s_rwd_valid, 1'b0, m2s_req_valid, 3'b000};
    wire [6*128-1:0] tx_hdr = {m2s_rwd_hdr, 128'd0, m2s_req_hdr, 384'd0};

    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(CXL_ROLE_DOWN)) u_link (
        .clk(clk), .rst(rst),
        .tx_valid(tx_valid), .tx_ready(l_tx_ready), .tx_hdr(tx_hdr), .tx_data({m2s_rwd_data, 512'd0}),
        .rx_valid(l_rx_valid), .rx_ready({core_drs_rdy, 5'b11111}), .rx_hdr(l_rx_hdr), .rx_data(l_rx_data),
        .tx_flit_valid(tx_flit_valid), .tx_flit_ready(tx_flit_ready), .tx_flit(tx_flit),
        .rx_flit_valid(rx_flit_valid), .rx_flit(rx_flit),
        .link_up(link_up), .link_fatal(link_fatal), .stat_crc_err(l_crc), .stat_retry(l_retry),
        .stat_proto_err(l_proto), .dbg_lrsm(l_lrsm), .dbg_eseq(l_eseq), .dbg_num_free(l_free),
        .dbg_rx_commit(l_commit), .dbg_tx_replay(l_replay), .dbg_rx_overflow(l_ovf),
        .dbg_credit_err(l_cerr));

    // D2H / BISnp traffic from a memory device is unexpected: the core always accepts S2M
    always @(posedge clk) begin
        if (rst) stat_link_unexp <= 16'd0;
        else if (|l_rx_valid[3:0] && stat_link_unexp != 16'hFFFF) stat_link_unexp <= stat_link_unexp + 16'd1;
    end
endmodule
