// ScalePool rack edge, composed for the co-simulation (issues 6 and 12):
//
//   XLink (per bridge b) -> xbridge_core b =[hop b]= CXL.mem M2S/S2M -> switch A USP b
//       switch A DSP 2 =[hop 2NBR]= sp_mem_node 0 (tier-2 memory)
//       switch A port 3 =[hop 2NBR+2]= switch B port 0 (CASCADE=1); B DSP n =[hop 2NBR+2+n]= sp_mem_node n
//   xbridge_core b CXL.cache (D2H Req/Data, H2D Rsp/Data) =[hop NBR+b]= coh_home_agent port b
//       (coherent region, tier 1; RdCurr reads, ItoMWr writes)
//       home agent ports NBR.. -> peer caching devices (testbench, `peer_*`, message level)
//       home agent memory port =[hop 2NBR+1]= sp_mem_node H (home memory)
//
// Every hop is an sp_hop: LINKS = 0 joins the blocks at message level (canonical headers, zero
// cycles); LINKS = 1 puts a cxl_link pair on it (68B flits; the cascade hop carries 256B PBR flits
// with CASC_FLIT = 1), so each hop includes packing, CRC, credits and replay, and a bit-error channel
// on each flit direction (`ber_thresh`, enabled per hop by `ber_mask`). Link status per hop on
// `lk_*` (LINKS = 0: up, no errors).
//
// Routing is chosen at run time by the switch registers (`cfg_*`, cfg_sel 0 = A, 1 = B): HBR with
// A's decoder on DSP 2 for one switch hop; two switch hops either HBR (A's decoder on DSP 3, B's USP
// port 0 decoding onto DSPs 1 and 2; works on any hop flavour) or PBR (A's decoder on B's memory
// nodes' PIDs; needs PBR message fields on the cascade: message level or CASC_FLIT = 1). The cascade
// carries M2S from A to B and S2M back (cascades are trees with hosts upstream). Tags: the switch does
// not tell two requesters with the same (LD-ID, Tag) apart at one DSP, so bridge b numbers its CXL.mem
// tags from TAG_BASE = b * 0x4000. Bridge b is FLAVOR b (0 UALink-style, 1 NVLink-style).
//
// Observation (`tap_*`): valid, ready and the 16-bit id (CXL.mem Tag / CXL.cache CQID) of every
// block boundary (outside the hops), so a testbench times each hop from valid to valid. Channel map:
//   bridge b:  6b + {0 M2S Req, 1 M2S RwD, 2 S2M NDR, 3 S2M DRS (tags as the bridge sees them),
//                    4 D2H Req (CQID), 5 H2D Data (CQID)}
//   node n:    6*NBR + 4n + {0 M2S Req, 1 M2S RwD, 2 S2M NDR, 3 S2M DRS} (tags as the node sees them);
//              n = 0 .. NMN-1 tier-2 nodes, n = NMN the home agent's memory.
module sp_rack_edge #(
    parameter integer NBR      = 2,                 // bridges (1 or 2)
    parameter integer CASCADE  = 1,                 // 1: switch B behind switch A port 3 (two more nodes)
    parameter integer NPEER    = 2,                 // peer caching devices on the home agent
    parameter integer LINKS    = 0,                 // 0 message level, 1 cxl_link pair on every hop
    parameter integer CASC_FLIT = 0,                // cascade hop with LINKS=1: 0 68B flits, 1 256B PBR flits
    parameter integer LK_RX_DEPTH = 16,             // cxl_link credits per class
    parameter integer LK_REPLAY   = 32,             // cxl_link replay buffer entries
    parameter integer LK_TIMEOUT  = 4096,           // cxl_link retry timeout, transmitted flits (spec: >= 4096)
    parameter integer MN_AW    = 4,                 // memory nodes store 2^MN_AW lines (co-simulation: 18)
    parameter [63:0]  WIN_BASE = 64'h1_0000_0000,   // XLink window (both bridges)
    parameter [63:0]  WIN_SIZE = 64'h100_0000,
    parameter [63:0]  HPA_BASE = 64'h40_0000_0000,
    parameter [63:0]  COH_OFF  = 64'hF0_0000,
    parameter [63:0]  COH_SIZE = 64'h10_0000,
    parameter integer BR_SETS  = 64,
    parameter integer BR_NROB  = 8,
    parameter integer BR_WB    = 8,
    parameter integer HA_SETS  = 8,
    parameter integer HA_WAYS  = 2,
    parameter integer HA_NTXN  = 8,
    parameter integer SW_VOQ_DEPTH = 4,
    parameter integer NMN  = (CASCADE != 0) ? 3 : 1,   // tier-2 memory nodes
    parameter integer NTAP = 6 * NBR + 4 * (NMN + 1),
    parameter integer NHA  = NBR + NPEER,
    parameter integer NLK  = 2 * NBR + 2 + ((CASCADE != 0) ? 3 : 0)   // hops (map in the header)
) (
    input  wire                  clk,
    input  wire                  rst,
    // XLink side, one lane per bridge
    input  wire [NBR-1:0]        xl_rx_valid,
    output wire [NBR-1:0]        xl_rx_ready,
    input  wire [NBR*512-1:0]    xl_rx_data,
    input  wire [NBR-1:0]        xl_rx_last,
    output wire [NBR-1:0]        xl_tx_valid,
    input  wire [NBR-1:0]        xl_tx_ready,
    output wire [NBR*512-1:0]    xl_tx_data,
    output wire [NBR-1:0]        xl_tx_last,
    // far-memory time of the memory nodes (cycles), runtime knobs
    input  wire [15:0]           t2_lat,
    input  wire [15:0]           ha_lat,
    // switch registers (cxl_switch_cfg map and handshake); cfg_sel: 0 switch A, 1 switch B. The
    // request is held until cfg_ready (that of the selected switch); the answer is cfg_rvalid from
    // either switch: each answers a fixed time after it took a request, so answers come in the
    // order the requests were taken, never two in one cycle
    input  wire                  cfg_sel,
    input  wire                  cfg_valid,
    output wire                  cfg_ready,
    input  wire                  cfg_write,
    input  wire [11:0]           cfg_addr,
    input  wire [31:0]           cfg_wdata,
    output wire                  cfg_rvalid,
    output wire [31:0]           cfg_rdata,
    output wire [1:0]            cfg_resp,
    // home agent: coherent line ranges (Addr[51:6], [lo, hi))
    input  wire [1:0]            coh_en,
    input  wire [2*46-1:0]       coh_lo,
    input  wire [2*46-1:0]       coh_hi,
    // peer caching devices (home agent ports NBR .. NHA-1)
    input  wire [NPEER-1:0]      peer_d2h_req_valid,
    output wire [NPEER-1:0]      peer_d2h_req_ready,
    input  wire [NPEER*128-1:0]  peer_d2h_req_hdr,
    input  wire [NPEER-1:0]      peer_d2h_rsp_valid,
    output wire [NPEER-1:0]      peer_d2h_rsp_ready,
    input  wire [NPEER*128-1:0]  peer_d2h_rsp_hdr,
    input  wire [NPEER-1:0]      peer_d2h_data_valid,
    output wire [NPEER-1:0]      peer_d2h_data_ready,
    input  wire [NPEER*128-1:0]  peer_d2h_data_hdr,
    input  wire [NPEER*512-1:0]  peer_d2h_data_data,
    output wire [NPEER-1:0]      peer_h2d_req_valid,
    input  wire [NPEER-1:0]      peer_h2d_req_ready,
    output wire [NPEER*128-1:0]  peer_h2d_req_hdr,
    output wire [NPEER-1:0]      peer_h2d_rsp_valid,
    input  wire [NPEER-1:0]      peer_h2d_rsp_ready,
    output wire [NPEER*128-1:0]  peer_h2d_rsp_hdr,
    output wire [NPEER-1:0]      peer_h2d_data_valid,
    input  wire [NPEER-1:0]      peer_h2d_data_ready,
    output wire [NPEER*128-1:0]  peer_h2d_data_hdr,
    output wire [NPEER*512-1:0]  peer_h2d_data_data,
    // link layer (LINKS = 1): bit errors and status per hop
    input  wire [31:0]           ber_thresh,        // per-flit error probability x 2^32
    input  wire [NLK-1:0]        ber_mask,          // hops whose flit wires inject errors
    output wire [NLK-1:0]        lk_up,
    output wire [NLK-1:0]        lk_fatal,
    output wire [NLK*16-1:0]     lk_retry,          // RETRY.Req sequences, both endpoints
    output wire [NLK*16-1:0]     lk_crc,            // CRC errors seen, both endpoints
    output wire [NLK*32-1:0]     lk_flips,          // flits hit by the error channel
    // observation
    output wire [NTAP-1:0]       tap_valid,
    output wire [NTAP-1:0]       tap_ready,
    output wire [NTAP*16-1:0]    tap_id,
    output wire [NBR-1:0]        br_line_valid,     // bridge issued one line (kind, request seq)
    output wire [NBR*3-1:0]      br_line_kind,      // 0 mem rd, 1 hit, 2 wb fwd, 3 coh rd, 4-6 writes
    output wire [NBR*16-1:0]     br_line_seq,
    output wire [NBR*16-1:0]     br_stat_err,
    output wire [NBR*16-1:0]     br_stat_proto_err,
    output wire [NBR-1:0]        br_wb_empty,
    output wire [45:0]           tap_ha_line,       // Addr[51:6] of the home agent's memory request
    output wire [6*16-1:0]       ha_err_count,
    output wire [(NMN+1)*32-1:0] mn_alias,          // per memory node: writes that evicted another line
    output reg                   err_bridge_h2d     // sticky: H2D Req (snoop) sent to a bridge port
);
    localparam integer NA = 4;                      // switch A: USP 0, USP 1, DSP 2, port 3 to B
    localparam integer NB = 3;                      // switch B: port 0 from A, DSP 1, DSP 2
    localparam integer M2S_TAG = 11;                // Tag LSB in M2S Req / RwD canonical headers
    localparam integer S2M_TAG = 7;                 // Tag LSB in S2M NDR / DRS canonical headers
    localparam integer M2S_ADDR = 27;               // Addr[51:6] LSB in M2S Req canonical headers
    localparam [15:0]  TAG_STRIDE = 16'h4000;       // CXL.mem tag range of one bridge
    localparam integer D2H_CQID = 5, H2D_DATA_CQID = 0;
    localparam integer HK_NODE0 = 2 * NBR, HK_HOME = 2 * NBR + 1, HK_CASC = 2 * NBR + 2;

    generate
        if (NBR < 1 || NBR > 2 || (LINKS != 0 && LINKS != 1) || (CASC_FLIT != 0 && CASC_FLIT != 1)
            || NLK != 2 * NBR + 2 + ((CASCADE != 0) ? 3 : 0)) begin : g_bad
            sp_rack_edge_parameter_error_NBR_1_to_2_LINKS_and_CASC_FLIT_0_or_1 u_stop ();
        end
    endgenerate

    // ------------------------------------------------------------------ switch lanes
    /* verilator lint_off UNUSEDSIGNAL */
    wire [NA*4-1:0]      a_in_valid, a_in_ready, a_out_valid, a_out_ready;
    wire [NA*4*128-1:0]  a_in_hdr, a_out_hdr;
    wire [NA*2*512-1:0]  a_in_data, a_out_data;
    wire [NB*4-1:0]      b_in_valid, b_in_ready, b_out_valid, b_out_ready;
    wire [NB*4*128-1:0]  b_in_hdr, b_out_hdr;
    wire [NB*2*512-1:0]  b_in_data, b_out_data;
    /* verilator lint_on UNUSEDSIGNAL */

    // memory nodes: n < NMN tier-2, n == NMN home memory (node side of their hops)
    wire [NMN:0]         mn_req_valid, mn_req_ready, mn_rwd_valid, mn_rwd_ready;
    wire [NMN:0]         mn_ndr_valid, mn_ndr_ready, mn_drs_valid, mn_drs_ready;
    wire [(NMN+1)*128-1:0] mn_req_hdr, mn_rwd_hdr, mn_ndr_hdr, mn_drs_hdr;
    wire [(NMN+1)*512-1:0] mn_rwd_data, mn_drs_data;

    // link status per hop
    wire [NLK-1:0]       hk_up, hk_fatal;
    wire [NLK*16-1:0]    hk_retry, hk_crc;
    wire [NLK*32-1:0]    hk_flips;
    assign lk_up = hk_up;
    assign lk_fatal = hk_fatal;
    assign lk_retry = hk_retry;
    assign lk_crc = hk_crc;
    assign lk_flips = hk_flips;

    // ------------------------------------------------------------------ bridges
    wire [NBR-1:0]       br_req_valid, br_req_ready, br_rwd_valid, br_rwd_ready;
    wire [NBR-1:0]       br_ndr_valid, br_ndr_ready, br_drs_valid, br_drs_ready;
    wire [NBR*128-1:0]   br_req_hdr, br_rwd_hdr, br_ndr_hdr, br_drs_hdr;
    wire [NBR*512-1:0]   br_rwd_data, br_drs_data;
    wire [NBR-1:0]       br_d2h_valid, br_d2h_ready, br_h2d_valid, br_h2d_ready;
    wire [NBR*128-1:0]   br_d2h_hdr, br_h2d_hdr;
    wire [NBR*512-1:0]   br_h2d_data;
    wire [NBR-1:0]       br_d2hd_valid, br_d2hd_ready, br_h2dr_valid, br_h2dr_ready;
    wire [NBR*128-1:0]   br_d2hd_hdr, br_h2dr_hdr;
    wire [NBR*512-1:0]   br_d2hd_data;

    // home agent ports 0 .. NBR-1 (the bridges' CXL.cache, home-agent side of their hops)
    wire [NBR-1:0]       hb_d2h_req_valid, hb_d2h_req_ready, hb_d2h_rsp_valid, hb_d2h_rsp_ready;
    wire [NBR-1:0]       hb_d2h_data_valid, hb_d2h_data_ready;
    wire [NBR*128-1:0]   hb_d2h_req_hdr, hb_d2h_rsp_hdr, hb_d2h_data_hdr;
    wire [NBR*512-1:0]   hb_d2h_data_data;
    wire [NBR-1:0]       hb_h2d_req_valid, hb_h2d_req_ready, hb_h2d_rsp_valid, hb_h2d_rsp_ready;
    wire [NBR-1:0]       hb_h2d_data_valid, hb_h2d_data_ready;
    wire [NBR*128-1:0]   hb_h2d_req_hdr, hb_h2d_rsp_hdr, hb_h2d_data_hdr;
    wire [NBR*512-1:0]   hb_h2d_data_data;

    genvar gb, gn;
    generate
        for (gb = 0; gb < NBR; gb = gb + 1) begin : g_br
            /* verilator lint_off UNUSEDSIGNAL */
            wire [31:0] st_hit, st_fwd, st_miss, st_ht, st_rmw, hbm_now, hbm_done;
            wire        dbg_req_valid, dbg_req_hthit, hbm_valid, hbm_we;
            wire [15:0] dbg_req_seq;
            wire [$clog2(BR_SETS)-1:0] hbm_idx;
            /* verilator lint_on UNUSEDSIGNAL */
            xbridge_core #(.FLAVOR(gb), .WIN_BASE(WIN_BASE), .WIN_SIZE(WIN_SIZE), .HPA_BASE(HPA_BASE),
                           .COH_OFF(COH_OFF), .COH_SIZE(COH_SIZE), .BUF_EN(1), .SETS(BR_SETS), .WR_ALLOC(1),
                           .NROB(BR_NROB), .WB_DEPTH(BR_WB), .TAG_BASE(16'(gb) * TAG_STRIDE)) u_br (
                .clk(clk), .rst(rst),
                .xl_rx_valid(xl_rx_valid[gb]), .xl_rx_ready(xl_rx_ready[gb]),
                .xl_rx_data(xl_rx_data[gb*512 +: 512]), .xl_rx_last(xl_rx_last[gb]),
                .xl_tx_valid(xl_tx_valid[gb]), .xl_tx_ready(xl_tx_ready[gb]),
                .xl_tx_data(xl_tx_data[gb*512 +: 512]), .xl_tx_last(xl_tx_last[gb]),
                .m2s_req_valid(br_req_valid[gb]), .m2s_req_ready(br_req_ready[gb]), .m2s_req_hdr(br_req_hdr[gb*128 +: 128]),
                .m2s_rwd_valid(br_rwd_valid[gb]), .m2s_rwd_ready(br_rwd_ready[gb]), .m2s_rwd_hdr(br_rwd_hdr[gb*128 +: 128]),
                .m2s_rwd_data(br_rwd_data[gb*512 +: 512]),
                .s2m_ndr_valid(br_ndr_valid[gb]), .s2m_ndr_ready(br_ndr_ready[gb]), .s2m_ndr_hdr(br_ndr_hdr[gb*128 +: 128]),
                .s2m_drs_valid(br_drs_valid[gb]), .s2m_drs_ready(br_drs_ready[gb]), .s2m_drs_hdr(br_drs_hdr[gb*128 +: 128]),
                .s2m_drs_data(br_drs_data[gb*512 +: 512]),
                .d2h_req_valid(br_d2h_valid[gb]), .d2h_req_ready(br_d2h_ready[gb]), .d2h_req_hdr(br_d2h_hdr[gb*128 +: 128]),
                .d2h_data_valid(br_d2hd_valid[gb]), .d2h_data_ready(br_d2hd_ready[gb]),
                .d2h_data_hdr(br_d2hd_hdr[gb*128 +: 128]), .d2h_data_data(br_d2hd_data[gb*512 +: 512]),
                .h2d_rsp_valid(br_h2dr_valid[gb]), .h2d_rsp_ready(br_h2dr_ready[gb]), .h2d_rsp_hdr(br_h2dr_hdr[gb*128 +: 128]),
                .h2d_data_valid(br_h2d_valid[gb]), .h2d_data_ready(br_h2d_ready[gb]), .h2d_data_hdr(br_h2d_hdr[gb*128 +: 128]),
                .h2d_data_data(br_h2d_data[gb*512 +: 512]),
                .stat_err(br_stat_err[gb*16 +: 16]), .stat_proto_err(br_stat_proto_err[gb*16 +: 16]),
                .stat_hit(st_hit), .stat_fwd(st_fwd), .stat_miss(st_miss), .stat_ht_hit(st_ht), .stat_rmw(st_rmw),
                .wb_empty(br_wb_empty[gb]),
                .dbg_line_valid(br_line_valid[gb]), .dbg_line_kind(br_line_kind[gb*3 +: 3]),
                .dbg_line_seq(br_line_seq[gb*16 +: 16]), .dbg_req_valid(dbg_req_valid),
                .dbg_req_seq(dbg_req_seq), .dbg_req_hthit(dbg_req_hthit), .hbm_now(hbm_now),
                .hbm_iss_valid(hbm_valid), .hbm_iss_done(hbm_done), .hbm_iss_we(hbm_we), .hbm_iss_idx(hbm_idx));

            // CXL.mem: bridge (host side) =[hop gb]= switch A USP gb (device side)
            wire [1:0]       sw_m2s_valid, sw_s2m_ready;
            wire [2*128-1:0] sw_m2s_hdr;
            wire [511:0]     sw_m2s_data;
            sp_mem_hop #(.LINKS(LINKS), .RX_DEPTH(LK_RX_DEPTH), .REPLAY_DEPTH(LK_REPLAY), .TIMEOUT_FLITS(LK_TIMEOUT),
                         .SEED(64'h1000 + 64'(gb))) u_mhop (
                .clk(clk), .rst(rst),
                .h_m2s_valid({br_rwd_valid[gb], br_req_valid[gb]}), .h_m2s_ready({br_rwd_ready[gb], br_req_ready[gb]}),
                .h_m2s_hdr({br_rwd_hdr[gb*128 +: 128], br_req_hdr[gb*128 +: 128]}), .h_m2s_data(br_rwd_data[gb*512 +: 512]),
                .h_s2m_valid({br_drs_valid[gb], br_ndr_valid[gb]}), .h_s2m_ready({br_drs_ready[gb], br_ndr_ready[gb]}),
                .h_s2m_hdr({br_drs_hdr[gb*128 +: 128], br_ndr_hdr[gb*128 +: 128]}), .h_s2m_data(br_drs_data[gb*512 +: 512]),
                .d_m2s_valid(sw_m2s_valid), .d_m2s_ready(a_in_ready[gb*4 +: 2]), .d_m2s_hdr(sw_m2s_hdr),
                .d_m2s_data(sw_m2s_data),
                .d_s2m_valid(a_out_valid[gb*4 + 2 +: 2]), .d_s2m_ready(sw_s2m_ready),
                .d_s2m_hdr(a_out_hdr[(gb*4 + 2)*128 +: 256]), .d_s2m_data(a_out_data[(gb*2 + 1)*512 +: 512]),
                .ber_en(ber_mask[gb]), .ber_thresh(ber_thresh),
                .link_up(hk_up[gb]), .link_fatal(hk_fatal[gb]), .stat_retry(hk_retry[gb*16 +: 16]),
                .stat_crc(hk_crc[gb*16 +: 16]), .stat_flips(hk_flips[gb*32 +: 32]));
            assign a_in_valid[gb*4 +: 4]            = {2'b00, sw_m2s_valid};
            assign a_in_hdr[gb*4*128 +: 4*128]      = {256'd0, sw_m2s_hdr};
            assign a_in_data[gb*2*512 +: 2*512]     = {512'd0, sw_m2s_data};
            assign a_out_ready[gb*4 +: 4]           = {sw_s2m_ready, 2'b11};   // a USP sends no M2S

            // CXL.cache: home agent port gb (host side) =[hop NBR+gb]= bridge (device side). Classes
            // 0 C_REQ, 1 C_RSP, 2 C_DATA (data lane 0); the bridge sends no D2H Rsp and sinks H2D Req
            // (never sent to it: err_bridge_h2d).
            /* verilator lint_off UNUSEDSIGNAL */
            wire [5:0]       c_htr, c_hrv, c_dtr, c_drv;
            wire [6*128-1:0] c_hrh, c_drh;
            wire [2*512-1:0] c_hrd, c_drd;
            /* verilator lint_on UNUSEDSIGNAL */
            sp_hop #(.LINKS(LINKS), .RX_DEPTH(LK_RX_DEPTH), .REPLAY_DEPTH(LK_REPLAY), .TIMEOUT_FLITS(LK_TIMEOUT),
                     .SEED(64'h2000 + 64'(gb))) u_chop (
                .clk(clk), .rst(rst),
                .h_tx_valid({3'b000, hb_h2d_data_valid[gb], hb_h2d_rsp_valid[gb], hb_h2d_req_valid[gb]}),
                .h_tx_ready(c_htr),
                .h_tx_hdr({384'd0, hb_h2d_data_hdr[gb*128 +: 128], hb_h2d_rsp_hdr[gb*128 +: 128],
                           hb_h2d_req_hdr[gb*128 +: 128]}),
                .h_tx_data({512'd0, hb_h2d_data_data[gb*512 +: 512]}),
                .h_rx_valid(c_hrv), .h_rx_ready({3'b111, hb_d2h_data_ready[gb], hb_d2h_rsp_ready[gb], hb_d2h_req_ready[gb]}),
                .h_rx_hdr(c_hrh), .h_rx_data(c_hrd),
                .d_tx_valid({3'b000, br_d2hd_valid[gb], 1'b0, br_d2h_valid[gb]}), .d_tx_ready(c_dtr),
                .d_tx_hdr({384'd0, br_d2hd_hdr[gb*128 +: 128], 128'd0, br_d2h_hdr[gb*128 +: 128]}),
                .d_tx_data({512'd0, br_d2hd_data[gb*512 +: 512]}),
                .d_rx_valid(c_drv), .d_rx_ready({3'b111, br_h2d_ready[gb], br_h2dr_ready[gb], 1'b1}),
                .d_rx_hdr(c_drh), .d_rx_data(c_drd),
                .ber_en(ber_mask[NBR + gb]), .ber_thresh(ber_thresh),
                .link_up(hk_up[NBR + gb]), .link_fatal(hk_fatal[NBR + gb]),
                .stat_retry(hk_retry[(NBR + gb)*16 +: 16]), .stat_crc(hk_crc[(NBR + gb)*16 +: 16]),
                .stat_flips(hk_flips[(NBR + gb)*32 +: 32]));
            assign hb_h2d_req_ready[gb]           = c_htr[0];
            assign hb_h2d_rsp_ready[gb]           = c_htr[1];
            assign hb_h2d_data_ready[gb]          = c_htr[2];
            assign hb_d2h_req_valid[gb]           = c_hrv[0];
            assign hb_d2h_req_hdr[gb*128 +: 128]  = c_hrh[0 +: 128];
            assign hb_d2h_rsp_valid[gb]           = c_hrv[1];
            assign hb_d2h_rsp_hdr[gb*128 +: 128]  = c_hrh[128 +: 128];
            assign hb_d2h_data_valid[gb]          = c_hrv[2];
            assign hb_d2h_data_hdr[gb*128 +: 128] = c_hrh[2*128 +: 128];
            assign hb_d2h_data_data[gb*512 +: 512] = c_hrd[0 +: 512];
            assign br_d2h_ready[gb]               = c_dtr[0];
            assign br_d2hd_ready[gb]              = c_dtr[2];
            assign br_h2dr_valid[gb]              = c_drv[1];
            assign br_h2dr_hdr[gb*128 +: 128]     = c_drh[1*128 +: 128];
            assign br_h2d_valid[gb]               = c_drv[2];
            assign br_h2d_hdr[gb*128 +: 128]      = c_drh[2*128 +: 128];
            assign br_h2d_data[gb*512 +: 512]     = c_drd[0 +: 512];

            // taps (bridge boundary: bridge-side tags)
            assign tap_valid[6*gb +: 6] = {br_h2d_valid[gb], br_d2h_valid[gb], br_drs_valid[gb], br_ndr_valid[gb],
                                          br_rwd_valid[gb], br_req_valid[gb]};
            assign tap_ready[6*gb +: 6] = {br_h2d_ready[gb], br_d2h_ready[gb], br_drs_ready[gb], br_ndr_ready[gb],
                                          br_rwd_ready[gb], br_req_ready[gb]};
            assign tap_id[(6*gb + 0)*16 +: 16] = br_req_hdr[gb*128 + M2S_TAG +: 16];
            assign tap_id[(6*gb + 1)*16 +: 16] = br_rwd_hdr[gb*128 + M2S_TAG +: 16];
            assign tap_id[(6*gb + 2)*16 +: 16] = br_ndr_hdr[gb*128 + S2M_TAG +: 16];
            assign tap_id[(6*gb + 3)*16 +: 16] = br_drs_hdr[gb*128 + S2M_TAG +: 16];
            assign tap_id[(6*gb + 4)*16 +: 16] = {4'd0, br_d2h_hdr[gb*128 + D2H_CQID +: 12]};
            assign tap_id[(6*gb + 5)*16 +: 16] = {4'd0, br_h2d_hdr[gb*128 + H2D_DATA_CQID +: 12]};
        end
        for (gb = NBR; gb < 2; gb = gb + 1) begin : g_nobr   // unused USP of switch A
            assign a_in_valid[gb*4 +: 4]            = 4'd0;
            assign a_in_hdr[gb*4*128 +: 4*128]      = {4*128{1'b0}};
            assign a_in_data[gb*2*512 +: 2*512]     = {2*512{1'b0}};
            assign a_out_ready[gb*4 +: 4]           = 4'hF;
        end
    endgenerate

    // ------------------------------------------------------------------ switch A DSP 2 =[hop]= node 0
    wire [1:0] a2_s2m_valid, a2_m2s_ready;
    wire [2*128-1:0] a2_s2m_hdr;
    wire [511:0] a2_s2m_data;
    sp_mem_hop #(.LINKS(LINKS), .RX_DEPTH(LK_RX_DEPTH), .REPLAY_DEPTH(LK_REPLAY), .TIMEOUT_FLITS(LK_TIMEOUT), .SEED(64'h3000)) u_hop_n0 (
        .clk(clk), .rst(rst),
        .h_m2s_valid(a_out_valid[2*4 +: 2]), .h_m2s_ready(a2_m2s_ready), .h_m2s_hdr(a_out_hdr[2*4*128 +: 256]),
        .h_m2s_data(a_out_data[(2*2 + 0)*512 +: 512]),
        .h_s2m_valid(a2_s2m_valid), .h_s2m_ready(a_in_ready[2*4 + 2 +: 2]), .h_s2m_hdr(a2_s2m_hdr),
        .h_s2m_data(a2_s2m_data),
        .d_m2s_valid({mn_rwd_valid[0], mn_req_valid[0]}), .d_m2s_ready({mn_rwd_ready[0], mn_req_ready[0]}),
        .d_m2s_hdr({mn_rwd_hdr[0 +: 128], mn_req_hdr[0 +: 128]}), .d_m2s_data(mn_rwd_data[0 +: 512]),
        .d_s2m_valid({mn_drs_valid[0], mn_ndr_valid[0]}), .d_s2m_ready({mn_drs_ready[0], mn_ndr_ready[0]}),
        .d_s2m_hdr({mn_drs_hdr[0 +: 128], mn_ndr_hdr[0 +: 128]}), .d_s2m_data(mn_drs_data[0 +: 512]),
        .ber_en(ber_mask[HK_NODE0]), .ber_thresh(ber_thresh),
        .link_up(hk_up[HK_NODE0]), .link_fatal(hk_fatal[HK_NODE0]), .stat_retry(hk_retry[HK_NODE0*16 +: 16]),
        .stat_crc(hk_crc[HK_NODE0*16 +: 16]), .stat_flips(hk_flips[HK_NODE0*32 +: 32]));
    assign a_out_ready[2*4 +: 4]          = {2'b11, a2_m2s_ready};     // a DSP receives no S2M from the switch
    assign a_in_valid[2*4 +: 4]           = {a2_s2m_valid, 2'b00};
    assign a_in_hdr[2*4*128 +: 4*128]     = {a2_s2m_hdr, 256'd0};
    assign a_in_data[2*2*512 +: 2*512]    = {a2_s2m_data, 512'd0};

    // ------------------------------------------------------------------ switch A port 3 =[hop]= switch B
    wire a_cfg_ready, a_cfg_rvalid, b_cfg_ready, b_cfg_rvalid;
    wire [31:0] a_cfg_rdata, b_cfg_rdata;
    wire [1:0]  a_cfg_resp, b_cfg_resp;
    wire        sel_b = (CASCADE != 0) && cfg_sel;

    generate
        if (CASCADE != 0) begin : g_casc
            // cascade: A port 3 (host side, M2S out) =[hop]= B port 0 (device side, S2M out)
            wire [1:0] c_s2m_valid, c_m2s_ready, c_m2s_valid, c_s2m_ready;
            wire [2*128-1:0] c_s2m_hdr, c_m2s_hdr;
            wire [511:0] c_s2m_data, c_m2s_data;
            sp_mem_hop #(.LINKS(LINKS), .FLIT_MODE(CASC_FLIT), .PBR(CASC_FLIT), .RX_DEPTH(LK_RX_DEPTH),
                         .REPLAY_DEPTH(LK_REPLAY), .TIMEOUT_FLITS(LK_TIMEOUT), .SEED(64'h4000)) u_hop_casc (
                .clk(clk), .rst(rst),
                .h_m2s_valid(a_out_valid[3*4 +: 2]), .h_m2s_ready(c_m2s_ready), .h_m2s_hdr(a_out_hdr[3*4*128 +: 256]),
                .h_m2s_data(a_out_data[(3*2 + 0)*512 +: 512]),
                .h_s2m_valid(c_s2m_valid), .h_s2m_ready(a_in_ready[3*4 + 2 +: 2]), .h_s2m_hdr(c_s2m_hdr),
                .h_s2m_data(c_s2m_data),
                .d_m2s_valid(c_m2s_valid), .d_m2s_ready(b_in_ready[0 +: 2]), .d_m2s_hdr(c_m2s_hdr),
                .d_m2s_data(c_m2s_data),
                .d_s2m_valid(b_out_valid[2 +: 2]), .d_s2m_ready(c_s2m_ready), .d_s2m_hdr(b_out_hdr[2*128 +: 256]),
                .d_s2m_data(b_out_data[512 +: 512]),
                .ber_en(ber_mask[HK_CASC]), .ber_thresh(ber_thresh),
                .link_up(hk_up[HK_CASC]), .link_fatal(hk_fatal[HK_CASC]), .stat_retry(hk_retry[HK_CASC*16 +: 16]),
                .stat_crc(hk_crc[HK_CASC*16 +: 16]), .stat_flips(hk_flips[HK_CASC*32 +: 32]));
            assign a_out_ready[3*4 +: 4]       = {2'b11, c_m2s_ready};
            assign a_in_valid[3*4 +: 4]        = {c_s2m_valid, 2'b00};
            assign a_in_hdr[3*4*128 +: 4*128]  = {c_s2m_hdr, 256'd0};
            assign a_in_data[3*2*512 +: 2*512] = {c_s2m_data, 512'd0};
            assign b_in_valid[0 +: 4]          = {2'b00, c_m2s_valid};
            assign b_in_hdr[0 +: 4*128]        = {256'd0, c_m2s_hdr};
            assign b_in_data[0 +: 2*512]       = {512'd0, c_m2s_data};
            assign b_out_ready[0 +: 4]         = {c_s2m_ready, 2'b11};
            for (gn = 1; gn < NMN; gn = gn + 1) begin : g_bnode   // B port gn =[hop]= node gn
                localparam integer HK = HK_CASC + gn;
                wire [1:0] n_s2m_valid, n_m2s_ready;
                wire [2*128-1:0] n_s2m_hdr;
                wire [511:0] n_s2m_data;
                sp_mem_hop #(.LINKS(LINKS), .RX_DEPTH(LK_RX_DEPTH), .REPLAY_DEPTH(LK_REPLAY), .TIMEOUT_FLITS(LK_TIMEOUT),
                             .SEED(64'h3000 + 64'(gn))) u_hop_n (
                    .clk(clk), .rst(rst),
                    .h_m2s_valid(b_out_valid[gn*4 +: 2]), .h_m2s_ready(n_m2s_ready),
                    .h_m2s_hdr(b_out_hdr[gn*4*128 +: 256]), .h_m2s_data(b_out_data[(gn*2 + 0)*512 +: 512]),
                    .h_s2m_valid(n_s2m_valid), .h_s2m_ready(b_in_ready[gn*4 + 2 +: 2]), .h_s2m_hdr(n_s2m_hdr),
                    .h_s2m_data(n_s2m_data),
                    .d_m2s_valid({mn_rwd_valid[gn], mn_req_valid[gn]}), .d_m2s_ready({mn_rwd_ready[gn], mn_req_ready[gn]}),
                    .d_m2s_hdr({mn_rwd_hdr[gn*128 +: 128], mn_req_hdr[gn*128 +: 128]}),
                    .d_m2s_data(mn_rwd_data[gn*512 +: 512]),
                    .d_s2m_valid({mn_drs_valid[gn], mn_ndr_valid[gn]}), .d_s2m_ready({mn_drs_ready[gn], mn_ndr_ready[gn]}),
                    .d_s2m_hdr({mn_drs_hdr[gn*128 +: 128], mn_ndr_hdr[gn*128 +: 128]}),
                    .d_s2m_data(mn_drs_data[gn*512 +: 512]),
                    .ber_en(ber_mask[HK]), .ber_thresh(ber_thresh),
                    .link_up(hk_up[HK]), .link_fatal(hk_fatal[HK]), .stat_retry(hk_retry[HK*16 +: 16]),
                    .stat_crc(hk_crc[HK*16 +: 16]), .stat_flips(hk_flips[HK*32 +: 32]));
                assign b_out_ready[gn*4 +: 4]          = {2'b11, n_m2s_ready};
                assign b_in_valid[gn*4 +: 4]           = {n_s2m_valid, 2'b00};
                assign b_in_hdr[gn*4*128 +: 4*128]     = {n_s2m_hdr, 256'd0};
                assign b_in_data[gn*2*512 +: 2*512]    = {n_s2m_data, 512'd0};
            end
            cxl_switch_core #(.N(NB), .VOQ_DEPTH(SW_VOQ_DEPTH)) u_sw_b (
                .clk(clk), .rst(rst),
                .cfg_valid(cfg_valid && sel_b), .cfg_ready(b_cfg_ready), .cfg_write(cfg_write),
                .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(b_cfg_rvalid), .cfg_rdata(b_cfg_rdata),
                .cfg_resp(b_cfg_resp),
                .in_valid(b_in_valid), .in_ready(b_in_ready), .in_hdr(b_in_hdr), .in_data(b_in_data),
                .out_valid(b_out_valid), .out_ready(b_out_ready), .out_hdr(b_out_hdr), .out_data(b_out_data),
                .ev_unsup({NB{1'b0}}));
        end else begin : g_nocasc
            assign a_in_valid[3*4 +: 4]        = 4'd0;
            assign a_in_hdr[3*4*128 +: 4*128]  = {4*128{1'b0}};
            assign a_in_data[3*2*512 +: 2*512] = {2*512{1'b0}};
            assign a_out_ready[3*4 +: 4]       = 4'hF;
            assign b_in_valid = {NB*4{1'b0}};
            assign b_in_ready = {NB*4{1'b0}};
            assign b_out_valid = {NB*4{1'b0}};
            assign b_out_ready = {NB*4{1'b0}};
            assign b_in_hdr = {NB*4*128{1'b0}};
            assign b_out_hdr = {NB*4*128{1'b0}};
            assign b_in_data = {NB*2*512{1'b0}};
            assign b_out_data = {NB*2*512{1'b0}};
            assign b_cfg_ready = 1'b0;
            assign b_cfg_rvalid = 1'b0;
            assign b_cfg_rdata = 32'd0;
            assign b_cfg_resp = 2'd0;
        end
    endgenerate

    cxl_switch_core #(.N(NA), .VOQ_DEPTH(SW_VOQ_DEPTH)) u_sw_a (
        .clk(clk), .rst(rst),
        .cfg_valid(cfg_valid && !sel_b), .cfg_ready(a_cfg_ready), .cfg_write(cfg_write), .cfg_addr(cfg_addr),
        .cfg_wdata(cfg_wdata), .cfg_rvalid(a_cfg_rvalid), .cfg_rdata(a_cfg_rdata), .cfg_resp(a_cfg_resp),
        .in_valid(a_in_valid), .in_ready(a_in_ready), .in_hdr(a_in_hdr), .in_data(a_in_data),
        .out_valid(a_out_valid), .out_ready(a_out_ready), .out_hdr(a_out_hdr), .out_data(a_out_data),
        .ev_unsup({NA{1'b0}}));

    assign cfg_ready  = sel_b ? b_cfg_ready : a_cfg_ready;
    assign cfg_rvalid = a_cfg_rvalid || b_cfg_rvalid;
    assign cfg_rdata  = b_cfg_rvalid ? b_cfg_rdata : a_cfg_rdata;
    assign cfg_resp   = b_cfg_rvalid ? b_cfg_resp : a_cfg_resp;

    // ------------------------------------------------------------------ home agent
    /* verilator lint_off UNUSEDSIGNAL */
    wire [NHA-1:0]       ha_d2h_req_ready, ha_d2h_rsp_ready, ha_d2h_data_ready;
    wire [NHA-1:0]       ha_h2d_req_valid, ha_h2d_rsp_valid, ha_h2d_data_valid;
    wire [NHA*128-1:0]   ha_h2d_req_hdr, ha_h2d_rsp_hdr, ha_h2d_data_hdr;
    wire [NHA*512-1:0]   ha_h2d_data_data;
    wire [5:0]           ha_err_pulse;
    wire                 trc_valid, trc_binv;
    wire [45:0]          trc_line;
    wire [$clog2(NHA)-1:0] trc_port;
    wire [11:0]          trc_cqid;
    /* verilator lint_on UNUSEDSIGNAL */
    // home memory: home agent (host side) =[hop]= node NMN (device side)
    wire [1:0]           hm_m2s_valid, hm_m2s_ready, hm_s2m_valid, hm_s2m_ready;
    wire [2*128-1:0]     hm_m2s_hdr, hm_s2m_hdr;
    wire [511:0]         hm_m2s_data, hm_s2m_data;

    coh_home_agent #(.N(NHA), .SETS(HA_SETS), .WAYS(HA_WAYS), .NTXN(HA_NTXN), .NRANGE(2)) u_ha (
        .clk(clk), .rst(rst),
        .d2h_req_valid({peer_d2h_req_valid, hb_d2h_req_valid}), .d2h_req_ready(ha_d2h_req_ready),
        .d2h_req_hdr({peer_d2h_req_hdr, hb_d2h_req_hdr}),
        .d2h_rsp_valid({peer_d2h_rsp_valid, hb_d2h_rsp_valid}), .d2h_rsp_ready(ha_d2h_rsp_ready),
        .d2h_rsp_hdr({peer_d2h_rsp_hdr, hb_d2h_rsp_hdr}),
        .d2h_data_valid({peer_d2h_data_valid, hb_d2h_data_valid}), .d2h_data_ready(ha_d2h_data_ready),
        .d2h_data_hdr({peer_d2h_data_hdr, hb_d2h_data_hdr}),
        .d2h_data_data({peer_d2h_data_data, hb_d2h_data_data}),
        .h2d_req_valid(ha_h2d_req_valid), .h2d_req_ready({peer_h2d_req_ready, hb_h2d_req_ready}),
        .h2d_req_hdr(ha_h2d_req_hdr),
        .h2d_rsp_valid(ha_h2d_rsp_valid), .h2d_rsp_ready({peer_h2d_rsp_ready, hb_h2d_rsp_ready}),
        .h2d_rsp_hdr(ha_h2d_rsp_hdr),
        .h2d_data_valid(ha_h2d_data_valid), .h2d_data_ready({peer_h2d_data_ready, hb_h2d_data_ready}),
        .h2d_data_hdr(ha_h2d_data_hdr), .h2d_data_data(ha_h2d_data_data),
        .m2s_req_valid(hm_m2s_valid[0]), .m2s_req_ready(hm_m2s_ready[0]), .m2s_req_hdr(hm_m2s_hdr[0 +: 128]),
        .m2s_rwd_valid(hm_m2s_valid[1]), .m2s_rwd_ready(hm_m2s_ready[1]), .m2s_rwd_hdr(hm_m2s_hdr[128 +: 128]),
        .m2s_rwd_data(hm_m2s_data),
        .s2m_ndr_valid(hm_s2m_valid[0]), .s2m_ndr_ready(hm_s2m_ready[0]), .s2m_ndr_hdr(hm_s2m_hdr[0 +: 128]),
        .s2m_drs_valid(hm_s2m_valid[1]), .s2m_drs_ready(hm_s2m_ready[1]), .s2m_drs_hdr(hm_s2m_hdr[128 +: 128]),
        .s2m_drs_data(hm_s2m_data),
        .cfg_coh_en(coh_en), .cfg_coh_lo(coh_lo), .cfg_coh_hi(coh_hi),
        .err_pulse(ha_err_pulse), .err_count(ha_err_count),
        .trc_valid(trc_valid), .trc_binv(trc_binv), .trc_line(trc_line), .trc_port(trc_port), .trc_cqid(trc_cqid));

    sp_mem_hop #(.LINKS(LINKS), .RX_DEPTH(LK_RX_DEPTH), .REPLAY_DEPTH(LK_REPLAY), .TIMEOUT_FLITS(LK_TIMEOUT), .SEED(64'h5000)) u_hop_home (
        .clk(clk), .rst(rst),
        .h_m2s_valid(hm_m2s_valid), .h_m2s_ready(hm_m2s_ready), .h_m2s_hdr(hm_m2s_hdr), .h_m2s_data(hm_m2s_data),
        .h_s2m_valid(hm_s2m_valid), .h_s2m_ready(hm_s2m_ready), .h_s2m_hdr(hm_s2m_hdr), .h_s2m_data(hm_s2m_data),
        .d_m2s_valid({mn_rwd_valid[NMN], mn_req_valid[NMN]}), .d_m2s_ready({mn_rwd_ready[NMN], mn_req_ready[NMN]}),
        .d_m2s_hdr({mn_rwd_hdr[NMN*128 +: 128], mn_req_hdr[NMN*128 +: 128]}), .d_m2s_data(mn_rwd_data[NMN*512 +: 512]),
        .d_s2m_valid({mn_drs_valid[NMN], mn_ndr_valid[NMN]}), .d_s2m_ready({mn_drs_ready[NMN], mn_ndr_ready[NMN]}),
        .d_s2m_hdr({mn_drs_hdr[NMN*128 +: 128], mn_ndr_hdr[NMN*128 +: 128]}), .d_s2m_data(mn_drs_data[NMN*512 +: 512]),
        .ber_en(ber_mask[HK_HOME]), .ber_thresh(ber_thresh),
        .link_up(hk_up[HK_HOME]), .link_fatal(hk_fatal[HK_HOME]), .stat_retry(hk_retry[HK_HOME*16 +: 16]),
        .stat_crc(hk_crc[HK_HOME*16 +: 16]), .stat_flips(hk_flips[HK_HOME*32 +: 32]));

    // bridge ports of the home agent (home-agent side of the CXL.cache hops)
    assign hb_d2h_req_ready  = ha_d2h_req_ready[NBR-1:0];
    assign hb_d2h_rsp_ready  = ha_d2h_rsp_ready[NBR-1:0];
    assign hb_d2h_data_ready = ha_d2h_data_ready[NBR-1:0];
    assign hb_h2d_req_valid  = ha_h2d_req_valid[NBR-1:0];
    assign hb_h2d_req_hdr    = ha_h2d_req_hdr[NBR*128-1:0];
    assign hb_h2d_rsp_valid  = ha_h2d_rsp_valid[NBR-1:0];
    assign hb_h2d_rsp_hdr    = ha_h2d_rsp_hdr[NBR*128-1:0];
    assign hb_h2d_data_valid = ha_h2d_data_valid[NBR-1:0];
    assign hb_h2d_data_hdr   = ha_h2d_data_hdr[NBR*128-1:0];
    assign hb_h2d_data_data  = ha_h2d_data_data[NBR*512-1:0];
    // peers (message level)
    assign peer_d2h_req_ready  = ha_d2h_req_ready[NHA-1:NBR];
    assign peer_d2h_rsp_ready  = ha_d2h_rsp_ready[NHA-1:NBR];
    assign peer_d2h_data_ready = ha_d2h_data_ready[NHA-1:NBR];
    assign peer_h2d_req_valid  = ha_h2d_req_valid[NHA-1:NBR];
    assign peer_h2d_req_hdr    = ha_h2d_req_hdr[NHA*128-1:NBR*128];
    assign peer_h2d_rsp_valid  = ha_h2d_rsp_valid[NHA-1:NBR];
    assign peer_h2d_rsp_hdr    = ha_h2d_rsp_hdr[NHA*128-1:NBR*128];
    assign peer_h2d_data_valid = ha_h2d_data_valid[NHA-1:NBR];
    assign peer_h2d_data_hdr   = ha_h2d_data_hdr[NHA*128-1:NBR*128];
    assign peer_h2d_data_data  = ha_h2d_data_data[NHA*512-1:NBR*512];

    // a bridge never caches a line (RdCurr / ItoMWr only), so it must never be snooped
    always @(posedge clk) begin
        if (rst) err_bridge_h2d <= 1'b0;
        else if (|ha_h2d_req_valid[NBR-1:0]) err_bridge_h2d <= 1'b1;
    end

    assign tap_ha_line = mn_req_hdr[NMN*128 + M2S_ADDR +: 46];

    // ------------------------------------------------------------------ memory nodes
    generate
        for (gn = 0; gn <= NMN; gn = gn + 1) begin : g_mn
            sp_mem_node #(.AW(MN_AW)) u_mn (
                .clk(clk), .rst(rst), .lat((gn == NMN) ? ha_lat : t2_lat),
                .m2s_req_valid(mn_req_valid[gn]), .m2s_req_ready(mn_req_ready[gn]), .m2s_req_hdr(mn_req_hdr[gn*128 +: 128]),
                .m2s_rwd_valid(mn_rwd_valid[gn]), .m2s_rwd_ready(mn_rwd_ready[gn]), .m2s_rwd_hdr(mn_rwd_hdr[gn*128 +: 128]),
                .m2s_rwd_data(mn_rwd_data[gn*512 +: 512]),
                .s2m_ndr_valid(mn_ndr_valid[gn]), .s2m_ndr_ready(mn_ndr_ready[gn]), .s2m_ndr_hdr(mn_ndr_hdr[gn*128 +: 128]),
                .s2m_drs_valid(mn_drs_valid[gn]), .s2m_drs_ready(mn_drs_ready[gn]), .s2m_drs_hdr(mn_drs_hdr[gn*128 +: 128]),
                .s2m_drs_data(mn_drs_data[gn*512 +: 512]), .stat_alias(mn_alias[gn*32 +: 32]));
            localparam integer T = 6 * NBR + 4 * gn;
            assign tap_valid[T +: 4] = {mn_drs_valid[gn], mn_ndr_valid[gn], mn_rwd_valid[gn], mn_req_valid[gn]};
            assign tap_ready[T +: 4] = {mn_drs_ready[gn], mn_ndr_ready[gn], mn_rwd_ready[gn], mn_req_ready[gn]};
            assign tap_id[(T + 0)*16 +: 16] = mn_req_hdr[gn*128 + M2S_TAG +: 16];
            assign tap_id[(T + 1)*16 +: 16] = mn_rwd_hdr[gn*128 + M2S_TAG +: 16];
            assign tap_id[(T + 2)*16 +: 16] = mn_ndr_hdr[gn*128 + S2M_TAG +: 16];
            assign tap_id[(T + 3)*16 +: 16] = mn_drs_hdr[gn*128 + S2M_TAG +: 16];
        end
    endgenerate
endmodule
