// Testbench-only wrapper: xbridge_top flit-wired to one ROLE_UP cxl_link per lane (the device
// side), whose message side carries the same port names as xbridge_core, so the core's pyuvm bench
// runs through the CXL link layer. Only the parameters the link-level test varies are forwarded;
// every other xbridge_top parameter keeps its default (tests/test_bridge.py checks that the test's
// configuration leaves them at their defaults).
`default_nettype none
module xbridge_top_tb #(
    parameter integer FLAVOR    = 0,
    parameter integer LANES     = 1,
    parameter integer XW        = 1,
    parameter integer NPC       = 2,
    parameter [15:0]  TAG_BASE  = 16'h0000,           // xbridge_top's defaults
    parameter [63:0]  WIN_BASE  = 64'h1_0000_0000,
    parameter [63:0]  WIN_SIZE  = 64'h100_0000,
    parameter [63:0]  HPA_BASE  = 64'h40_0000_0000,
    parameter integer FLIT_MODE = 0,
    localparam integer FLIT_W   = (FLIT_MODE != 0) ? 2048 : 528,
    localparam integer SWL      = $clog2(16 / LANES)      // xbridge_top's default SETS = 16
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  xl_rx_valid,
    output wire                  xl_rx_ready,
    input  wire [512*XW-1:0]     xl_rx_data,
    input  wire [XW-1:0]         xl_rx_last,
    output wire                  xl_tx_valid,
    input  wire                  xl_tx_ready,
    output wire [512*XW-1:0]     xl_tx_data,
    output wire [XW-1:0]         xl_tx_last,
    output wire [LANES-1:0]      m2s_req_valid,
    input  wire [LANES-1:0]      m2s_req_ready,
    output wire [128*LANES-1:0]  m2s_req_hdr,
    output wire [LANES-1:0]      m2s_rwd_valid,
    input  wire [LANES-1:0]      m2s_rwd_ready,
    output wire [128*LANES-1:0]  m2s_rwd_hdr,
    output wire [512*LANES-1:0]  m2s_rwd_data,
    input  wire [LANES-1:0]      s2m_ndr_valid,
    output wire [LANES-1:0]      s2m_ndr_ready,
    input  wire [128*LANES-1:0]  s2m_ndr_hdr,
    input  wire [LANES-1:0]      s2m_drs_valid,
    output wire [LANES-1:0]      s2m_drs_ready,
    input  wire [128*LANES-1:0]  s2m_drs_hdr,
    input  wire [512*LANES-1:0]  s2m_drs_data,
    output wire [LANES-1:0]      d2h_req_valid,
    input  wire [LANES-1:0]      d2h_req_ready,
    output wire [128*LANES-1:0]  d2h_req_hdr,
    output wire [LANES-1:0]      d2h_data_valid,
    input  wire [LANES-1:0]      d2h_data_ready,
    output wire [128*LANES-1:0]  d2h_data_hdr,
    output wire [512*LANES-1:0]  d2h_data_data,
    input  wire [LANES-1:0]      h2d_rsp_valid,
    output wire [LANES-1:0]      h2d_rsp_ready,
    input  wire [128*LANES-1:0]  h2d_rsp_hdr,
    input  wire [LANES-1:0]      h2d_data_valid,
    output wire [LANES-1:0]      h2d_data_ready,
    input  wire [128*LANES-1:0]  h2d_data_hdr,
    input  wire [512*LANES-1:0]  h2d_data_data,
    output wire [15:0]           stat_err,
    output wire [15:0]           stat_proto_err,
    output wire [31:0]           stat_hit,
    output wire [31:0]           stat_fwd,
    output wire [31:0]           stat_miss,
    output wire [31:0]           stat_ht_hit,
    output wire [31:0]           stat_rmw,
    output wire                  wb_empty,
    output wire [LANES-1:0]      dbg_line_valid,
    output wire [3*LANES-1:0]    dbg_line_kind,
    output wire [16*LANES-1:0]   dbg_line_seq,
    output wire                  dbg_req_valid,
    output wire [15:0]           dbg_req_seq,
    output wire                  dbg_req_hthit,
    output wire [31:0]           hbm_now,
    output wire [LANES-1:0]      hbm_iss_valid,
    output wire [32*LANES-1:0]   hbm_iss_done,
    output wire [LANES-1:0]      hbm_iss_we,
    output wire [SWL*LANES-1:0]  hbm_iss_idx,
    output wire [LANES-1:0]      link_up_host,
    output wire [LANES-1:0]      link_up_dev
);
`include "cxl_defs.vh"
    wire [LANES-1:0]        h_tx_v, d_tx_v;
    wire [FLIT_W*LANES-1:0] h_tx, d_tx;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [15:0]      h_unexp;
    wire [LANES-1:0] h_fatal;
    /* verilator lint_on UNUSEDSIGNAL */

    xbridge_top #(.FLAVOR(FLAVOR), .LANES(LANES), .XW(XW), .NPC(NPC), .TAG_BASE(TAG_BASE),
                  .WIN_BASE(WIN_BASE), .WIN_SIZE(WIN_SIZE), .HPA_BASE(HPA_BASE),
                  .FLIT_MODE(FLIT_MODE)) u_top (
        .clk(clk), .rst(rst),
        .xl_rx_valid(xl_rx_valid), .xl_rx_ready(xl_rx_ready), .xl_rx_data(xl_rx_data),
        .xl_rx_last(xl_rx_last), .xl_tx_valid(xl_tx_valid), .xl_tx_ready(xl_tx_ready),
        .xl_tx_data(xl_tx_data), .xl_tx_last(xl_tx_last),
        .d2h_req_valid(d2h_req_valid), .d2h_req_ready(d2h_req_ready), .d2h_req_hdr(d2h_req_hdr),
        .d2h_data_valid(d2h_data_valid), .d2h_data_ready(d2h_data_ready),
        .d2h_data_hdr(d2h_data_hdr), .d2h_data_data(d2h_data_data),
        .h2d_rsp_valid(h2d_rsp_valid), .h2d_rsp_ready(h2d_rsp_ready), .h2d_rsp_hdr(h2d_rsp_hdr),
        .h2d_data_valid(h2d_data_valid), .h2d_data_ready(h2d_data_ready),
        .h2d_data_hdr(h2d_data_hdr), .h2d_data_data(h2d_data_data),
        .stat_err(stat_err), .stat_proto_err(stat_proto_err), .stat_hit(stat_hit),
        .stat_fwd(stat_fwd), .stat_miss(stat_miss), .stat_ht_hit(stat_ht_hit), .stat_rmw(stat_rmw),
        .wb_empty(wb_empty), .dbg_line_valid(dbg_line_valid), .dbg_line_kind(dbg_line_kind),
        .dbg_line_seq(dbg_line_seq), .dbg_req_valid(dbg_req_valid), .dbg_req_seq(dbg_req_seq),
        .dbg_req_hthit(dbg_req_hthit), .hbm_now(hbm_now), .hbm_iss_valid(hbm_iss_valid),
        .hbm_iss_done(hbm_iss_done), .hbm_iss_we(hbm_iss_we), .hbm_iss_idx(hbm_iss_idx),
        .tx_flit_valid(h_tx_v), .tx_flit_ready({LANES{1'b1}}), .tx_flit(h_tx),
        .rx_flit_valid(d_tx_v), .rx_flit(d_tx), .link_up(link_up_host), .link_fatal(h_fatal),
        .stat_link_unexp(h_unexp));

    genvar g;
    generate for (g = 0; g < LANES; g = g + 1) begin : g_dev
        wire [5:0]       d_tx_ready, d_rx_valid;
        wire [6*128-1:0] d_rx_hdr;
        wire [2*512-1:0] d_rx_data;
        /* verilator lint_off UNUSEDSIGNAL */
        wire [15:0] d_crc, d_retry, d_proto;
        wire        d_fatal;
        wire [1:0]  d_lrsm;
        wire [7:0]  d_eseq, d_free;
        wire        d_commit, d_replay, d_ovf, d_cerr;
        wire [511:0] unused_c = d_rx_data[511:0];
        wire [6*128-1:0] unused_h = d_rx_hdr;
        /* verilator lint_on UNUSEDSIGNAL */
        assign m2s_req_valid[g]             = d_rx_valid[CXL_CLS_M_REQ];
        assign m2s_req_hdr[128 * g +: 128]  = d_rx_hdr[CXL_CLS_M_REQ*128 +: 128];
        assign m2s_rwd_valid[g]             = d_rx_valid[CXL_CLS_M_DATA];
        assign m2s_rwd_hdr[128 * g +: 128]  = d_rx_hdr[CXL_CLS_M_DATA*128 +: 128];
        assign m2s_rwd_data[512 * g +: 512] = d_rx_data[512 +: 512];
        assign s2m_ndr_ready[g]             = d_tx_ready[CXL_CLS_M_RSP];
        assign s2m_drs_ready[g]             = d_tx_ready[CXL_CLS_M_DATA];
        cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(CXL_ROLE_UP)) u_dev (
            .clk(clk), .rst(rst),
            .tx_valid({s2m_drs_valid[g], s2m_ndr_valid[g], 4'b0000}), .tx_ready(d_tx_ready),
            .tx_hdr({s2m_drs_hdr[128 * g +: 128], s2m_ndr_hdr[128 * g +: 128], 512'd0}),
            .tx_data({s2m_drs_data[512 * g +: 512], 512'd0}),
            .rx_valid(d_rx_valid),
            .rx_ready({m2s_rwd_ready[g], 1'b1, m2s_req_ready[g], 3'b111}),
            .rx_hdr(d_rx_hdr), .rx_data(d_rx_data),
            .tx_flit_valid(d_tx_v[g]), .tx_flit_ready(1'b1), .tx_flit(d_tx[FLIT_W * g +: FLIT_W]),
            .rx_flit_valid(h_tx_v[g]), .rx_flit(h_tx[FLIT_W * g +: FLIT_W]),
            .link_up(link_up_dev[g]), .link_fatal(d_fatal), .stat_crc_err(d_crc),
            .stat_retry(d_retry), .stat_proto_err(d_proto), .dbg_lrsm(d_lrsm), .dbg_eseq(d_eseq),
            .dbg_num_free(d_free), .dbg_rx_commit(d_commit), .dbg_tx_replay(d_replay),
            .dbg_rx_overflow(d_ovf), .dbg_credit_err(d_cerr));
    end endgenerate
endmodule
`default_nettype wire
