// XLink-CXL bridge with the CXL link layer on its wire side: xbridge_core + one rtl/link/cxl_link
// per line lane (ROLE_DOWN: the bridge is the CXL.mem host of the far memory; 68B flits by
// default). Lane g's M2S Req/RwD go out on link g as classes M_REQ/M_DATA; its S2M NDR/DRS come in
// on M_RSP/M_DATA. With LANES=2 the far side is reached over two links (each carries the lines whose
// address has that parity), like a bifurcated port. The CXL.cache path (D2H Req/Data out, H2D
// Rsp/Data in) stays a message port: a ROLE_DOWN link cannot carry D2H requests, so the coherent path
// needs its own ROLE_UP link toward the coherence agent (not built here, see README). Link messages
// the bridge never expects are taken and counted. S2M DRS may be held back by the core (full HBM
// write queue); the link buffers it.
`default_nettype none
module xbridge_top #(
    parameter integer  FLAVOR     = 0,                 // xbridge_core parameters (rtl/bridge/README.md)
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
    parameter integer  LANES      = 1,
    parameter integer  XW         = 1,
    parameter integer  NLINE      = 4 * NROB,
    parameter integer  LQ_DEPTH   = 2,
    parameter integer  CW_DEPTH   = 2,
    parameter integer  FLIT_MODE  = 0,                 // cxl_link: 0 = 68B, 1 = 256B flits
    localparam integer FLIT_W     = (FLIT_MODE != 0) ? 2048 : 528,
    localparam integer SWL        = $clog2(SETS / LANES)
) (
    input  wire clk,
    input  wire rst,
    input  wire                  xl_rx_valid,
    output wire                  xl_rx_ready,
    input  wire [512*XW-1:0]     xl_rx_data,
    input  wire [XW-1:0]         xl_rx_last,
    output wire                  xl_tx_valid,
    input  wire                  xl_tx_ready,
    output wire [512*XW-1:0]     xl_tx_data,
    output wire [XW-1:0]         xl_tx_last,
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
    // CXL flit wire, one link per lane
    output wire [LANES-1:0]        tx_flit_valid,
    input  wire [LANES-1:0]        tx_flit_ready,
    output wire [FLIT_W*LANES-1:0] tx_flit,
    input  wire [LANES-1:0]        rx_flit_valid,
    input  wire [FLIT_W*LANES-1:0] rx_flit,
    output wire [LANES-1:0]        link_up,
    output wire [LANES-1:0]        link_fatal,
    output reg  [15:0]             stat_link_unexp    // unexpected link messages, all links
);
    wire [LANES-1:0]       m2s_req_valid, m2s_req_ready, m2s_rwd_valid, m2s_rwd_ready;
    wire [128*LANES-1:0]   m2s_req_hdr, m2s_rwd_hdr;
    wire [512*LANES-1:0]   m2s_rwd_data;
    wire [LANES-1:0]       s2m_ndr_valid, s2m_drs_valid, core_drs_rdy;
    wire [128*LANES-1:0]   s2m_ndr_hdr, s2m_drs_hdr;
    wire [512*LANES-1:0]   s2m_drs_data;
    wire [4*LANES-1:0]     l_unexp;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [LANES-1:0]       core_ndr_rdy;   // always 1: the core takes every NDR
    /* verilator lint_on UNUSEDSIGNAL */

    xbridge_core #(
        .FLAVOR(FLAVOR), .WIN_BASE(WIN_BASE), .WIN_SIZE(WIN_SIZE), .HPA_BASE(HPA_BASE),
        .COH_OFF(COH_OFF), .COH_SIZE(COH_SIZE), .BUF_EN(BUF_EN), .SETS(SETS),
        .WR_ALLOC(WR_ALLOC), .HT_ENTRIES(HT_ENTRIES), .WB_DEPTH(WB_DEPTH), .WQ_DEPTH(WQ_DEPTH),
        .NROB(NROB), .HBM_INFLIGHT(HBM_INFLIGHT), .NPC(NPC), .NBANK(NBANK), .ROW_LINES(ROW_LINES),
        .T_CL(T_CL), .T_RCD(T_RCD), .T_RP(T_RP), .T_RAS(T_RAS), .T_BURST(T_BURST),
        .T_REFI(T_REFI), .T_RFC(T_RFC), .REF_POSTPONE(REF_POSTPONE), .REF_IDLE(REF_IDLE),
        .TAG_BASE(TAG_BASE), .LANES(LANES), .XW(XW), .NLINE(NLINE), .LQ_DEPTH(LQ_DEPTH),
        .CW_DEPTH(CW_DEPTH)) u_core (
        .clk(clk), .rst(rst),
        .xl_rx_valid(xl_rx_valid), .xl_rx_ready(xl_rx_ready), .xl_rx_data(xl_rx_data),
        .xl_rx_last(xl_rx_last), .xl_tx_valid(xl_tx_valid), .xl_tx_ready(xl_tx_ready),
        .xl_tx_data(xl_tx_data), .xl_tx_last(xl_tx_last),
        .m2s_req_valid(m2s_req_valid), .m2s_req_ready(m2s_req_ready), .m2s_req_hdr(m2s_req_hdr),
        .m2s_rwd_valid(m2s_rwd_valid), .m2s_rwd_ready(m2s_rwd_ready), .m2s_rwd_hdr(m2s_rwd_hdr),
        .m2s_rwd_data(m2s_rwd_data),
        .s2m_ndr_valid(s2m_ndr_valid), .s2m_ndr_ready(core_ndr_rdy), .s2m_ndr_hdr(s2m_ndr_hdr),
        .s2m_drs_valid(s2m_drs_valid), .s2m_drs_ready(core_drs_rdy), .s2m_drs_hdr(s2m_drs_hdr),
        .s2m_drs_data(s2m_drs_data),
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
        .hbm_iss_done(hbm_iss_done), .hbm_iss_we(hbm_iss_we), .hbm_iss_idx(hbm_iss_idx));

    genvar g;
    generate for (g = 0; g < LANES; g = g + 1) begin : g_link
        xb_cxl_port #(.FLIT_MODE(FLIT_MODE)) u_port (
            .clk(clk), .rst(rst),
            .m2s_req_valid(m2s_req_valid[g]), .m2s_req_ready(m2s_req_ready[g]),
            .m2s_req_hdr(m2s_req_hdr[128 * g +: 128]),
            .m2s_rwd_valid(m2s_rwd_valid[g]), .m2s_rwd_ready(m2s_rwd_ready[g]),
            .m2s_rwd_hdr(m2s_rwd_hdr[128 * g +: 128]), .m2s_rwd_data(m2s_rwd_data[512 * g +: 512]),
            .s2m_ndr_valid(s2m_ndr_valid[g]), .s2m_ndr_hdr(s2m_ndr_hdr[128 * g +: 128]),
            .s2m_drs_valid(s2m_drs_valid[g]), .s2m_drs_ready(core_drs_rdy[g]),
            .s2m_drs_hdr(s2m_drs_hdr[128 * g +: 128]), .s2m_drs_data(s2m_drs_data[512 * g +: 512]),
            .unexp(l_unexp[4 * g +: 4]),
            .tx_flit_valid(tx_flit_valid[g]), .tx_flit_ready(tx_flit_ready[g]),
            .tx_flit(tx_flit[FLIT_W * g +: FLIT_W]),
            .rx_flit_valid(rx_flit_valid[g]), .rx_flit(rx_flit[FLIT_W * g +: FLIT_W]),
            .link_up(link_up[g]), .link_fatal(link_fatal[g]));
    end endgenerate

    // The links' unexpected-message flags are registered before they are counted and added
    // (stat_link_unexp counts a message one cycle after the cycle it arrived in); the saturating
    // add is a prefix adder one bit wider than the count (the top bit is the carry).
    reg [4*LANES-1:0] unexp_q;
    reg [3:0] n_unexp;
    integer u;
    always @* begin
        n_unexp = 4'd0;
        for (u = 0; u < 4 * LANES; u = u + 1) n_unexp = n_unexp + 4'(unexp_q[u]);
    end
    wire [16:0] unexp_sum;
    ks_adder #(.WIDTH(17)) u_unexp_add (.a({1'b0, stat_link_unexp}), .b(17'(n_unexp)), .sum(unexp_sum));
    always @(posedge clk) begin
        if (rst) begin
            stat_link_unexp <= 16'd0; unexp_q <= {4*LANES{1'b0}};
        end else begin
            unexp_q <= l_unexp;
            stat_link_unexp <= unexp_sum[16] ? 16'hFFFF : unexp_sum[15:0];
        end
    end
endmodule
`default_nettype wire
