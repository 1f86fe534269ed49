// Testbench-only wrapper: xbridge_top flit-wired to one ROLE_UP cxl_link per lane (the device
// side), whose message side carries the same port names as xbridge_core, so the core's pyuvm bench
// runs through the CXL link layer. Only the parameters the link-level test varies are forwarded;
// every other xbridge_top parameter keeps its default (tests/test_bridge.py checks that the test's
// configuration leaves them at their defaults).
// Each flit direction of each lane passes an rtl/edge/sp_flit_wire (one register stage, a flipped
// bit per flit with probability ber_thresh / 2^32 while ber_en is set), and each link's
// tx_flit_ready stalls at random with probability bp_thresh / 2^16 per cycle (cxl_link's flit
// output is registered and holds while not ready, rtl/link/README.md). Both are off at 0, so a bench
// that leaves these inputs at 0 sees perfect wires (one cycle each way). The link statistics of
// both ends come out as ports, the bridge side's read from inside xbridge_top by hierarchical
// reference (xbridge_top does not export them). The device side can also send the CXL.cache
// messages a memory device must not send (D2H Req / Rsp / Data, unexp_*), which the bridge takes
// and counts in stat_link_unexp.
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
    parameter [63:0]  BER_SEED  = 64'h2545_F491_4F6C_DD1D, // sp_flit_wire seed (nonzero), varied
                                                         // per lane and direction
    localparam integer FLIT_W   = (FLIT_MODE != 0) ? 2048 : 528,
    localparam integer SWL      = $clog2(16 / LANES)      // xbridge_top's default SETS = 16
) (
    input  wire                  clk,
    input  wire                  rst,
    // ports xl_rx_valid .. hbm_iss_idx of rtl/bridge/xbridge_core.v (make gen)
    input  wire                 xl_rx_valid,
    output wire                 xl_rx_ready,
    input  wire [512*XW-1:0]    xl_rx_data,
    input  wire [XW-1:0]        xl_rx_last,     // one-hot: the packet's final beat lane
    output wire                 xl_tx_valid,
    input  wire                 xl_tx_ready,
    output wire [512*XW-1:0]    xl_tx_data,
    output wire [XW-1:0]        xl_tx_last,
    // CXL.mem (canonical headers), one channel per lane
    output wire [LANES-1:0]     m2s_req_valid,
    input  wire [LANES-1:0]     m2s_req_ready,
    output wire [128*LANES-1:0] m2s_req_hdr,
    output wire [LANES-1:0]     m2s_rwd_valid,
    input  wire [LANES-1:0]     m2s_rwd_ready,
    output wire [128*LANES-1:0] m2s_rwd_hdr,
    output wire [512*LANES-1:0] m2s_rwd_data,
    input  wire [LANES-1:0]     s2m_ndr_valid,
    output wire [LANES-1:0]     s2m_ndr_ready,
    input  wire [128*LANES-1:0] s2m_ndr_hdr,
    input  wire [LANES-1:0]     s2m_drs_valid,
    output wire [LANES-1:0]     s2m_drs_ready,
    input  wire [128*LANES-1:0] s2m_drs_hdr,
    input  wire [512*LANES-1:0] s2m_drs_data,
    // CXL.cache toward the coherence agent, one channel per lane
    output wire [LANES-1:0]     d2h_req_valid,
    input  wire [LANES-1:0]     d2h_req_ready,
    output wire [128*LANES-1:0] d2h_req_hdr,
    output wire [LANES-1:0]     d2h_data_valid,
    input  wire [LANES-1:0]     d2h_data_ready,
    output wire [128*LANES-1:0] d2h_data_hdr,
    output wire [512*LANES-1:0] d2h_data_data,
    input  wire [LANES-1:0]     h2d_rsp_valid,
    output wire [LANES-1:0]     h2d_rsp_ready,
    input  wire [128*LANES-1:0] h2d_rsp_hdr,
    input  wire [LANES-1:0]     h2d_data_valid,
    output wire [LANES-1:0]     h2d_data_ready,
    input  wire [128*LANES-1:0] h2d_data_hdr,
    input  wire [512*LANES-1:0] h2d_data_data,
    // status
    output wire [15:0]          stat_err,       // XLink requests answered with ERR (saturating)
    output wire [15:0]          stat_proto_err, // CXL responses with an unknown tag / opcode (dropped)
    output wire [31:0]          stat_hit,       // read lines answered from the hot-line cache
    output wire [31:0]          stat_fwd,       // read lines forwarded from the write buffer
    output wire [31:0]          stat_miss,      // read lines sent to CXL.mem
    output wire [31:0]          stat_ht_hit,    // requests that skipped translation
    output wire [31:0]          stat_rmw,       // partial-line writes that had to read their line
    output wire                 wb_empty,
    // debug (testbench): per issued line (per lane) and per request entering the reorder buffer
    output wire [LANES-1:0]     dbg_line_valid,
    output wire [3*LANES-1:0]   dbg_line_kind,  // 0 mem rd, 1 hit, 2 wb fwd, 3 coh rd, 4 wb wr, 5 wr, 6 wb wr hit, 7 coh wr
    output wire [16*LANES-1:0]  dbg_line_seq,
    output wire                 dbg_req_valid,
    output wire [15:0]          dbg_req_seq,
    output wire                 dbg_req_hthit,
    output wire [31:0]          hbm_now,
    output wire [LANES-1:0]     hbm_iss_valid,
    output wire [32*LANES-1:0]  hbm_iss_done,
    output wire [LANES-1:0]     hbm_iss_we,
    output wire [SWL*LANES-1:0] hbm_iss_idx,
    // end of generated ports
    output wire [LANES-1:0]      link_up_host,
    output wire [LANES-1:0]      link_up_dev,
    // flit wire faults (0: perfect wires)
    input  wire                  ber_en,         // bit errors on, both directions of every lane
    input  wire [31:0]           ber_thresh,     // per-flit error probability x 2^32
    input  wire [63:0]           bp_seed,        // stall generator seed, loaded in reset (0: a constant)
    input  wire [15:0]           bp_thresh,      // per-cycle stall probability x 2^16, each link
    // link statistics, lane g at [16g +: 16] / [32g +: 32]
    output wire [16*LANES-1:0]   stat_crc_host,  // bridge-side cxl_link: CRC errors received
    output wire [16*LANES-1:0]   stat_retry_host, // ... RETRY.Req sequences sent
    output wire [16*LANES-1:0]   stat_crc_dev,   // device-side cxl_link: CRC errors received
    output wire [16*LANES-1:0]   stat_retry_dev, // ... RETRY.Req sequences sent
    output wire [LANES-1:0]      link_fatal_host,
    output wire [LANES-1:0]      link_fatal_dev,
    output wire [32*LANES-1:0]   flips_hd,       // flits hit by bit errors, bridge -> device
    output wire [32*LANES-1:0]   flips_dh,       // ... device -> bridge
    output wire [32*LANES-1:0]   stalls_host,    // cycles the bridge's flit waited for the wire
    // device-side messages of link classes 0-2 (D2H Req, D2H Rsp, D2H Data), lane g's class c at
    // [3g + c] (header [128(3g + c) +: 128]); 0 on unexp_valid sends none
    input  wire [3*LANES-1:0]     unexp_valid,
    output wire [3*LANES-1:0]     unexp_ready,
    input  wire [3*128*LANES-1:0] unexp_hdr,
    input  wire [512*LANES-1:0]   unexp_data,     // lane g's D2H Data line
    output wire [15:0]            stat_link_unexp // xbridge_top: unexpected link messages taken
);
`include "cxl_defs.vh"
    wire [LANES-1:0]        h_tx_v, d_tx_v, h_rdy, d_rdy, hd_v, dh_v;
    wire [FLIT_W*LANES-1:0] h_tx, d_tx, hd_f, dh_f;

    // stall draws: one xorshift64 step per cycle, 16 bits per (lane, direction); LANES <= 2
    // (xbridge_core's limit), so the four fields fit
    reg  [63:0] bp_rnd;
    wire [63:0] bp_x1 = bp_rnd ^ (bp_rnd << 13);
    wire [63:0] bp_x2 = bp_x1 ^ (bp_x1 >> 7);
    wire [63:0] bp_x3 = bp_x2 ^ (bp_x2 << 17);
    always @(posedge clk) begin
        if (rst) bp_rnd <= (bp_seed != 64'd0) ? bp_seed : 64'h9E37_79B9_7F4A_7C15;
        else     bp_rnd <= bp_x3;
    end

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
        .tx_flit_valid(h_tx_v), .tx_flit_ready(h_rdy), .tx_flit(h_tx),
        .rx_flit_valid(dh_v), .rx_flit(dh_f), .link_up(link_up_host), .link_fatal(link_fatal_host),
        .stat_link_unexp(stat_link_unexp));

    genvar g;
    generate for (g = 0; g < LANES; g = g + 1) begin : g_dev
        wire [5:0]       d_tx_ready, d_rx_valid;
        wire [6*128-1:0] d_rx_hdr;
        wire [2*512-1:0] d_rx_data;
        reg  [31:0] n_stall;
        /* verilator lint_off UNUSEDSIGNAL */
        wire [15:0] d_proto;
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
        assign unexp_ready[3 * g +: 3]      = d_tx_ready[2:0];
        assign h_rdy[g] = bp_rnd[32 * g +: 16] >= bp_thresh;
        assign d_rdy[g] = bp_rnd[32 * g + 16 +: 16] >= bp_thresh;
        // bridge -> device and device -> bridge: a flit enters the wire when it is taken
        sp_flit_wire #(.W(FLIT_W), .SEED(BER_SEED ^ (64'h100 * (2 * g + 1)))) u_hd (
            .clk(clk), .rst(rst), .in_valid(h_tx_v[g] && h_rdy[g]), .in_flit(h_tx[FLIT_W * g +: FLIT_W]),
            .ber_en(ber_en), .ber_thresh(ber_thresh), .out_valid(hd_v[g]),
            .out_flit(hd_f[FLIT_W * g +: FLIT_W]), .stat_flips(flips_hd[32 * g +: 32]));
        sp_flit_wire #(.W(FLIT_W), .SEED(BER_SEED ^ (64'h100 * (2 * g + 2)))) u_dh (
            .clk(clk), .rst(rst), .in_valid(d_tx_v[g] && d_rdy[g]), .in_flit(d_tx[FLIT_W * g +: FLIT_W]),
            .ber_en(ber_en), .ber_thresh(ber_thresh), .out_valid(dh_v[g]),
            .out_flit(dh_f[FLIT_W * g +: FLIT_W]), .stat_flips(flips_dh[32 * g +: 32]));
        always @(posedge clk) begin
            if (rst)                          n_stall <= 32'd0;
            else if (h_tx_v[g] && !h_rdy[g])  n_stall <= n_stall + 32'd1;
        end
        assign stalls_host[32 * g +: 32]     = n_stall;
        assign stat_crc_host[16 * g +: 16]   = u_top.g_link[g].u_port.l_crc;
        assign stat_retry_host[16 * g +: 16] = u_top.g_link[g].u_port.l_retry;
        cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(CXL_ROLE_UP)) u_dev (
            .clk(clk), .rst(rst),
            .tx_valid({s2m_drs_valid[g], s2m_ndr_valid[g], 1'b0, unexp_valid[3 * g +: 3]}),
            .tx_ready(d_tx_ready),
            .tx_hdr({s2m_drs_hdr[128 * g +: 128], s2m_ndr_hdr[128 * g +: 128], 128'd0,
                     unexp_hdr[384 * g +: 384]}),
            .tx_data({s2m_drs_data[512 * g +: 512], unexp_data[512 * g +: 512]}),
            .rx_valid(d_rx_valid),
            .rx_ready({m2s_rwd_ready[g], 1'b1, m2s_req_ready[g], 3'b111}),
            .rx_hdr(d_rx_hdr), .rx_data(d_rx_data),
            .tx_flit_valid(d_tx_v[g]), .tx_flit_ready(d_rdy[g]), .tx_flit(d_tx[FLIT_W * g +: FLIT_W]),
            .rx_flit_valid(hd_v[g]), .rx_flit(hd_f[FLIT_W * g +: FLIT_W]),
            .link_up(link_up_dev[g]), .link_fatal(link_fatal_dev[g]),
            .stat_crc_err(stat_crc_dev[16 * g +: 16]), .stat_retry(stat_retry_dev[16 * g +: 16]),
            .stat_proto_err(d_proto), .dbg_lrsm(d_lrsm), .dbg_eseq(d_eseq),
            .dbg_num_free(d_free), .dbg_rx_commit(d_commit), .dbg_tx_replay(d_replay),
            .dbg_rx_overflow(d_ovf), .dbg_credit_err(d_cerr));
    end endgenerate
endmodule
`default_nettype wire
