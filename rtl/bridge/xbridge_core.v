// XLink-CXL bridge core. XLink side: packets as 512-bit beats, XW beats per cycle (header beat =
// 64 B UALink TL flit or 16 B NVLink header flit in [127:0]; data beats = 64 B, packet-relative; a
// packet starts in beat lane 0 of a transfer and xl_*_last marks its final lane). CXL side, per line
// lane: canonical CXL.mem M2S Req/RwD out, S2M NDR/DRS in; CXL.cache toward the coherence agent for
// the coherent sub-range: D2H Req (RdCurr, ItoMWr) and D2H Data out, H2D Rsp (GO_WritePull) and
// H2D Data in. Field layout, policies and sizing: rtl/bridge/README.md.
//
// Pipeline: parser (P, XW beats per cycle) -> S1 check + header-table lookup + shift of the data to
// line positions -> S2 translate/build (skipped on a table hit) -> enter: reorder-buffer entry
// (request ring, NROB) and line slots (line ring, NLINE; CXL tag = TAG_BASE + slot) allocated, the
// request's lines handed to their lanes (xb_lane: line address mod LANES) -> lanes issue one line
// per cycle each and report completions by slot -> in-order responses, XW beats per cycle.
// A request whose (src, tag) is still outstanding (not yet answered) when its header is taken is
// answered BAD_TAG.
`default_nettype none
module xbridge_core #(
    parameter integer FLAVOR     = 0,                 // 0 UALink-style, 1 NVLink-style
    parameter [63:0]  WIN_BASE   = 64'h1_0000_0000,   // XLink unified-address window
    parameter [63:0]  WIN_SIZE   = 64'h100_0000,
    parameter [63:0]  HPA_BASE   = 64'h40_0000_0000,  // CXL host physical address of the window
    parameter [63:0]  COH_OFF    = 64'hF0_0000,       // coherent sub-range (window offsets, 64 B aligned)
    parameter [63:0]  COH_SIZE   = 64'h10_0000,
    parameter integer BUF_EN     = 1,                 // 1: HBM buffer (hot-line cache, write buffer)
    parameter integer SETS       = 16,                // hot-line cache lines, all lanes (power of two, >= 4)
    parameter integer WR_ALLOC   = 1,                 // a write miss allocates its line in the cache
    parameter integer HT_ENTRIES = 8,                 // pre-converted header table (power of two, >= 2)
    parameter integer WB_DEPTH   = 8,                 // write-buffer slots, all lanes (power of two)
    parameter integer WQ_DEPTH   = 4,                 // HBM write queue per lane (fills + write updates), >= 2
    parameter integer NROB       = 4,                 // outstanding requests (power of two, >= 2)
    parameter integer HBM_INFLIGHT = 8,               // HBM accesses in flight per lane (latency x rate)
    parameter integer NPC        = 2,                 // HBM pseudo-channels, all lanes (power of two)
    parameter integer NBANK      = 4,                 // banks per pseudo-channel (power of two, >= 2)
    parameter integer ROW_LINES  = 16,                // 64 B lines per HBM row (power of two)
    parameter integer T_CL       = 13,                // HBM timing in core cycles (README)
    parameter integer T_RCD      = 20,
    parameter integer T_RP       = 17,
    parameter integer T_RAS      = 29,
    parameter integer T_BURST    = 3,
    parameter integer T_REFI     = 3900,
    parameter integer T_RFC      = 160,
    parameter integer REF_POSTPONE = 8,               // refreshes per bank the HBM may postpone
    parameter integer REF_IDLE   = 32,                // HBM idle cycles before owed refreshes run
    parameter [15:0]  TAG_BASE   = 16'h0000,          // CXL.mem tags = TAG_BASE + local tag (README)
    parameter integer LANES      = 1,                 // line lanes, 1 or 2 (each a full line pipeline)
    parameter integer XW         = 1,                 // XLink beats per cycle, 1 or 2
    parameter integer NLINE      = 4 * NROB,          // line slots of the reorder buffer (power of two, 4..4096)
    parameter integer LQ_DEPTH   = 2,                 // request entries queued per lane (>= 2)
    parameter integer CW_DEPTH   = 2,                 // coherent writes waiting for GO_WritePull, per lane
    localparam integer SWL       = $clog2(SETS / LANES)
) (
    input  wire                  clk,
    input  wire                  rst,
    // XLink
    input  wire                  xl_rx_valid,
    output wire                  xl_rx_ready,
    input  wire [512*XW-1:0]     xl_rx_data,
    input  wire [XW-1:0]         xl_rx_last,      // one-hot: the packet's final beat lane
    output wire                  xl_tx_valid,
    input  wire                  xl_tx_ready,
    output wire [512*XW-1:0]     xl_tx_data,
    output wire [XW-1:0]         xl_tx_last,
    // CXL.mem (canonical headers), one channel per lane
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
    // CXL.cache toward the coherence agent, one channel per lane
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
    // status
    output reg  [15:0]           stat_err,        // XLink requests answered with ERR (saturating)
    output reg  [15:0]           stat_proto_err,  // CXL responses with an unknown tag / opcode (dropped)
    output wire [31:0]           stat_hit,        // read lines answered from the hot-line cache
    output wire [31:0]           stat_fwd,        // read lines forwarded from the write buffer
    output wire [31:0]           stat_miss,       // read lines sent to CXL.mem
    output wire [31:0]           stat_ht_hit,     // requests that skipped translation
    output wire [31:0]           stat_rmw,        // partial-line writes that had to read their line
    output wire                  wb_empty,
    // debug (testbench): per issued line (per lane) and per request entering the reorder buffer
    output wire [LANES-1:0]      dbg_line_valid,
    output wire [3*LANES-1:0]    dbg_line_kind,   // 0 mem rd, 1 hit, 2 wb fwd, 3 coh rd, 4 wb wr, 5 wr, 6 wb wr hit, 7 coh wr
    output wire [16*LANES-1:0]   dbg_line_seq,
    output wire                  dbg_req_valid,
    output wire [15:0]           dbg_req_seq,
    output wire                  dbg_req_hthit,
    output wire [31:0]           hbm_now,
    output wire [LANES-1:0]      hbm_iss_valid,
    output wire [32*LANES-1:0]   hbm_iss_done,
    output wire [LANES-1:0]      hbm_iss_we,
    output wire [SWL*LANES-1:0]  hbm_iss_idx
);
`include "cxl_defs.vh"
    // XLink header fields (ours, see README)
    localparam integer F_OP = 0, F_TAG = 8, F_LEN = 28, F_ADDR = 44;  // status at [7:4], src at [27:18]
    localparam [3:0] OP_READ = 4'h1, OP_WRITE = 4'h2, OP_RD_DATA = 4'h8, OP_WR_ACK = 4'h9,
                     OP_ERR = 4'hF;
    localparam [3:0] ST_OK = 4'd0, ST_BAD_LEN = 4'd1, ST_BAD_OP = 4'd2, ST_BAD_ADDR = 4'd3,
                     ST_BAD_ALIGN = 4'd4, ST_COH_PTL = 4'd5, ST_CXL_ERR = 4'd6, ST_BAD_TAG = 4'd7;
    localparam [63:0] WIN_END = WIN_BASE + WIN_SIZE;
    localparam [63:0] COH_END = COH_OFF + COH_SIZE;
    localparam integer RW    = $clog2(NROB);
    localparam integer LSW   = $clog2(NLINE);
    localparam integer HW    = $clog2(HT_ENTRIES);
    localparam integer LB    = $clog2(LANES);
    localparam integer NLL   = 4 / LANES;                 // lines of one request per lane, at most
    localparam integer NCW   = $clog2(NLL + 1);
    localparam integer QW    = 16 + 1 + NCW + 46 * NLL + LSW * NLL + NLL + 4 * NLL + 512 * NLL;
    localparam integer LP    = (46 + LSW) * NLL;   // line addresses and slots of a lane entry

    // illegal parameters are refused at elaboration
    generate
        if (FLAVOR != 0 && FLAVOR != 1) begin : g_bad_flavor
            xbridge_core_parameter_error_FLAVOR_must_be_0_UALink_or_1_NVLink u_stop ();
        end
        if (LANES != 1 && LANES != 2) begin : g_bad_lanes
            xbridge_core_parameter_error_LANES_must_be_1_or_2 u_stop ();
        end
        if (XW != 1 && XW != 2) begin : g_bad_xw
            xbridge_core_parameter_error_XW_must_be_1_or_2 u_stop ();
        end
        if (NROB < 2 || (NROB & (NROB - 1)) != 0) begin : g_bad_nrob
            xbridge_core_parameter_error_NROB_must_be_a_power_of_two_at_least_2 u_stop ();
        end
        if (NLINE < 4 || NLINE > 4096 || (NLINE & (NLINE - 1)) != 0) begin : g_bad_nline
            xbridge_core_parameter_error_NLINE_must_be_a_power_of_two_in_4_to_4096 u_stop ();
        end
        if (SETS < 4 || (SETS & (SETS - 1)) != 0 || SETS < 2 * LANES) begin : g_bad_sets
            xbridge_core_parameter_error_SETS_must_be_a_power_of_two_at_least_4 u_stop ();
        end
        if (HT_ENTRIES < 2 || (HT_ENTRIES & (HT_ENTRIES - 1)) != 0) begin : g_bad_ht
            xbridge_core_parameter_error_HT_ENTRIES_must_be_a_power_of_two_at_least_2 u_stop ();
        end
        if (WB_DEPTH < 2 * LANES || (WB_DEPTH & (WB_DEPTH - 1)) != 0 || WB_DEPTH > 16'h4000) begin : g_bad_wb
            xbridge_core_parameter_error_WB_DEPTH_must_be_a_power_of_two_2_x_LANES_to_0x4000 u_stop ();
        end
        if (NPC < 2 * LANES || (NPC & (NPC - 1)) != 0) begin : g_bad_npc
            xbridge_core_parameter_error_NPC_must_be_a_power_of_two_at_least_2_x_LANES_2_per_lane u_stop ();
        end
        if (SETS / LANES < (NPC / LANES) * NBANK) begin : g_bad_geom
            xbridge_core_parameter_error_SETS_per_LANES_must_cover_NPC_per_LANES_x_NBANK_banks u_stop ();
        end
        if (COH_OFF[5:0] != 6'd0 || COH_SIZE[5:0] != 6'd0 || WIN_BASE[5:0] != 6'd0 ||
            WIN_SIZE[5:0] != 6'd0 || HPA_BASE[5:0] != 6'd0) begin : g_bad_align
            xbridge_core_parameter_error_WIN_BASE_WIN_SIZE_HPA_BASE_COH_OFF_COH_SIZE_must_be_64_B_aligned u_stop ();
        end
    endgenerate

    // ------------------------------------------------------------------ parser (P)
    // A transfer carries XW beat lanes; lane x is valid when no lower lane is the packet's last.
    reg         p_full, p_mid;
    reg [95:0]  p_hdr;
    reg         p_dup;        // the packet's (src, tag) was outstanding when its header was taken
    reg         h_dup;        // this cycle's header beat is such a duplicate (below)
    reg [511:0] p_line [0:3];
    reg [2:0]   p_nbeats;     // data beats seen, saturates at 7
    wire        p_take;       // S1 takes the packet this cycle
    assign xl_rx_ready = !p_full || p_take;
    wire rx_fire = xl_rx_valid && xl_rx_ready;
    reg  [XW-1:0] rx_lv;       // beat lanes of this transfer
    reg  [3*XW-1:0] rx_idx;          // data-beat index of each lane (header lane: unused)
    reg  [2:0]    rx_nb;             // data beats after this transfer (saturating)
    reg           rx_end;
    integer x;
    always @* begin
        rx_end = 1'b0;
        rx_nb  = p_mid ? p_nbeats : 3'd0;
        for (x = 0; x < XW; x = x + 1) begin
            rx_lv[x]  = !rx_end;
            rx_idx[3 * x +: 3] = rx_nb;
            if (rx_lv[x]) begin
                if ((p_mid || x != 0) && rx_nb != 3'd7) rx_nb = rx_nb + 3'd1;
                if (xl_rx_last[x]) rx_end = 1'b1;
            end
        end
    end

    // Address checks of the header beat, registered with it (compares with constants as gt_tree
    // networks, so none is in series with S1's decisions): the window's lower bound; for every
    // legal length l (UALink 64 l B, NVLink l flits of 16 B), addr <= WIN_END - bytes(l) (S1
    // picks the one of the request's length; an illegal length is BAD_LEN first); and per line k
    // of the request whether it is in the coherent sub-range (S2's translation uses it). A bound
    // at or above 2^52 (2^46 for line addresses) decides its compare at elaboration.
    localparam [63:0] T_COH_LO  = WIN_BASE + COH_OFF;   // first coherent XLink address
    localparam [63:0] T_COH_HI  = WIN_BASE + COH_END;   // first address past the coherent range
    wire [51:0] r_addr = xl_rx_data[F_ADDR +: 52];
    wire [45:0] r_la   = r_addr[51:6];
    wire        r_lo;                  // addr < WIN_BASE
    wire [16:1] r_hi;                  // [l]: addr <= WIN_END - bytes(l) (unused l: 0)
    wire [3:0]  r_coh;                 // [k]: line k's XLink address in [T_COH_LO, T_COH_HI)
    genvar gl;
    generate
        if (WIN_BASE[63:52] != 12'd0) begin : g_lo_all
            assign r_lo = 1'b1;
        end else begin : g_lo
            gt_tree #(.WIDTH(52)) u_c (.a(WIN_BASE[51:0]), .b(r_addr), .gt(r_lo));
        end
        for (gl = 1; gl <= 16; gl = gl + 1) begin : g_hi
            localparam [63:0] BYT = (FLAVOR == 0) ? 64 * gl : 16 * gl;
            localparam [63:0] LIM = WIN_END - BYT;
            if (!((FLAVOR == 0) ? (gl <= 4) : (gl >= 2)) || WIN_END < BYT) begin : g_no
                assign r_hi[gl] = 1'b0;
            end else if (LIM[63:52] != 12'd0) begin : g_all
                assign r_hi[gl] = 1'b1;
            end else begin : g_l
                wire gt;                                              // addr > WIN_END - bytes
                gt_tree #(.WIDTH(52)) u_c (.a(r_addr), .b(LIM[51:0]), .gt(gt));
                assign r_hi[gl] = !gt;
            end
        end
        for (gl = 0; gl < 4; gl = gl + 1) begin : g_coh
            // on line addresses: la >= (T_COH_LO - 64 k) / 64 and la < (T_COH_HI - 64 k) / 64
            localparam [63:0] LO = (T_COH_LO < 64'(64 * gl)) ? 64'd0 : (T_COH_LO - 64'(64 * gl)) >> 6;
            localparam [63:0] HI = (T_COH_HI <= 64'(64 * gl)) ? 64'd0 : (T_COH_HI - 64'(64 * gl)) >> 6;
            wire lt_lo, lt_hi;                                        // la < LO, la < HI
            if (LO == 64'd0) begin : g_lo0
                assign lt_lo = 1'b0;
            end else if (LO[63:46] != 18'd0) begin : g_lo1
                assign lt_lo = 1'b1;
            end else begin : g_lo
                gt_tree #(.WIDTH(46)) u_c (.a(LO[45:0]), .b(r_la), .gt(lt_lo));
            end
            if (HI == 64'd0) begin : g_hi0
                assign lt_hi = 1'b0;
            end else if (HI[63:46] != 18'd0) begin : g_hi1
                assign lt_hi = 1'b1;
            end else begin : g_hi
                gt_tree #(.WIDTH(46)) u_c (.a(HI[45:0]), .b(r_la), .gt(lt_hi));
            end
            assign r_coh[gl] = !lt_lo && lt_hi;
        end
    endgenerate
    reg         p_lo;
    reg [16:1]  p_hi;
    reg [3:0]   p_coh;

    // payload lines: beat lane y is data beat rx_idx of the packet (kept: which line each lane
    // writes is known before the transfer's handshake, which enables the write last)
    (* keep *) wire [4*XW-1:0] p_we;   // [XW * i + y]: lane y writes payload line i
    genvar gw, gv;
    generate for (gw = 0; gw < 4; gw = gw + 1) begin : g_pw
        for (gv = 0; gv < XW; gv = gv + 1) begin : g_v
            assign p_we[XW * gw + gv] = rx_lv[gv] && (p_mid || gv != 0) && (rx_idx[3 * gv +: 3] == 3'(gw));
        end
    end endgenerate
    integer y, yi;
    always @(posedge clk) begin
        for (yi = 0; yi < 4; yi = yi + 1)
            for (y = 0; y < XW; y = y + 1)
                if (rx_fire && p_we[XW * yi + y]) p_line[yi] <= xl_rx_data[512 * y +: 512];
    end
    always @(posedge clk) begin
        if (rst) begin
            p_full <= 1'b0; p_mid <= 1'b0; p_nbeats <= 3'd0; p_hdr <= 96'd0; p_dup <= 1'b0;
        end else begin
            if (p_take) p_full <= 1'b0;
            if (rx_fire) begin
                if (!p_mid) begin
                    p_hdr <= xl_rx_data[95:0];
                    p_dup <= h_dup;
                    p_lo  <= !r_lo;
                    p_hi  <= r_hi;
                    p_coh <= r_coh;
                end
                p_nbeats <= rx_nb;
                p_mid    <= !rx_end;
                if (rx_end) p_full <= 1'b1;
            end
        end
    end

    // ------------------------------------------------------------------ S1: check + table lookup
    wire [3:0]  c_op   = p_hdr[F_OP +: 4];
    wire [8:0]  c_lenf = p_hdr[F_LEN +: 9];
    wire [51:0] c_addr = p_hdr[F_ADDR +: 52];
    // UALink: 64..256 B in 64 B steps; NVLink: 2..16 data flits of 16 B
    wire        c_len_ok = (FLAVOR == 0) ? ((c_lenf[5:0] == 6'd0) && (c_lenf[8:6] >= 3'd1) && (c_lenf[8:6] <= 3'd4))
                                         : ((c_lenf >= 9'd2) && (c_lenf <= 9'd16));
    wire [4:0]  c_nch  = (FLAVOR == 0) ? c_lenf[8:4] : c_lenf[4:0];   // 16 B chunks (valid when c_len_ok)
    wire [1:0]  c_s    = (FLAVOR == 0) ? 2'd0 : c_addr[5:4]; // first chunk inside the first line
    wire [5:0]  c_gend = {4'd0, c_s} + {1'b0, c_nch};        // chunk after the last, from the first line
    wire [5:0]  c_nb6  = ({1'b0, c_nch} + 6'd3) >> 2;
    wire [5:0]  c_nl6  = (c_gend + 6'd3) >> 2;
    wire [2:0]  c_nbeat = c_nb6[2:0];
    wire [2:0]  c_nl   = c_nl6[2:0];
    wire        c_wr   = (c_op == OP_WRITE);
    wire        c_beats_ok = c_wr ? (p_nbeats == c_nbeat) : (p_nbeats == 3'd0);
    wire        c_align_ok = (FLAVOR == 0) ? (c_addr[5:0] == 6'd0)
                                           : ((c_addr[3:0] == 4'd0) && (c_gend <= 6'd16));
    // [addr, addr + bytes) inside [WIN_BASE, WIN_END): addr >= WIN_BASE, and addr <= WIN_END - bytes
    // by the bound of the request's length (both compared at the header beat, above). An illegal
    // length is BAD_LEN before BAD_ADDR, so only legal lengths need a bound.
    reg         c_hi_ok;
    integer cl;
    always @* begin
        c_hi_ok = 1'b0;
        for (cl = 1; cl <= 16; cl = cl + 1)
            if (c_lenf == ((FLAVOR == 0) ? 9'(64 * cl) : 9'(cl)) && p_hi[cl]) c_hi_ok = 1'b1;
    end
    wire        c_win_ok = p_lo && c_hi_ok;
    reg  [3:0]  c_st;
    always @* begin
        if (c_op != OP_READ && c_op != OP_WRITE)  c_st = ST_BAD_OP;
        else if (!c_len_ok || !c_beats_ok)        c_st = ST_BAD_LEN;
        else if (!c_align_ok)                     c_st = ST_BAD_ALIGN;
        else if (!c_win_ok)                       c_st = ST_BAD_ADDR;
        else                                      c_st = ST_OK;   // COH_PTL is found in S2
    end
    // chunk mask over the (up to) 4 lines, and which lines are partial
    // (chunk i is covered when c_s <= i < c_gend: a compare per chunk, no shift and subtract)
    reg  [15:0] c_hi;
    integer ci;
    always @* begin
        for (ci = 0; ci < 16; ci = ci + 1) c_hi[ci] = (c_gend > 6'(ci));
    end
    wire [15:0] c_lo = {13'd0, c_s == 2'd3, c_s[1], c_s != 2'd0};
    wire [15:0] c_mask = c_hi & ~c_lo;
    reg  [3:0]  c_pl;
    integer q;
    always @* begin
        for (q = 0; q < 4; q = q + 1)
            c_pl[q] = (3'(q) < c_nl) && (c_mask[4*q +: 4] != 4'hF);
    end
    // payload -> line positions (NVLink may start at chunk 1..3 of its first line)
    wire [2047:0] c_pay = {p_line[3], p_line[2], p_line[1], p_line[0]};
    wire [2047:0] c_shf = c_pay << {c_s, 7'd0};

    // pre-converted header table: key (addr, len, op) -> HPA line + coherent-line mask
    reg            ht_v   [0:HT_ENTRIES-1];
    reg [64:0]     ht_key [0:HT_ENTRIES-1];
    reg [45:0]     ht_hpa [0:HT_ENTRIES-1];
    reg [3:0]      ht_coh [0:HT_ENTRIES-1];
    wire [HW-1:0]  c_hti  = c_addr[6 +: HW];
    wire [64:0]    c_key  = {c_addr, c_lenf, c_op};
    wire           c_hthit = ht_v[c_hti] && (ht_key[c_hti] == c_key) && (c_st == ST_OK);

    reg         s1_v, s1_wr, s1_hit, s1_dup;
    reg [2:0]   s1_enl;       // lines it takes when it enters (0: an error or a duplicate) ...
    reg [4:0]   s1_eoh;       // ... one-hot
    reg         s1_bp;        // it skips S2 (a table hit or an error)
    reg [3:0]   s1_st, s1_op;
    reg [95:0]  s1_hdr;
    reg [2:0]   s1_nl;
    reg [45:0]  s1_hpa [0:3];  // HPA line address of the request's line k (a table hit's)
    reg [3:0]   s1_coh, s1_pl, s1_tcoh;
    reg [15:0]  s1_mask;
    reg [511:0] s1_line [0:3];

    // ------------------------------------------------------------------ S2: translate + build
    wire [51:0] s1_addr = s1_hdr[F_ADDR +: 52];
    // HPA = line address - WIN_BASE + HPA_BASE, one adder with the constant difference (mod 2^64).
    // Line k of the request is coherent when WIN_BASE + COH_OFF <= address + 64 k < WIN_BASE +
    // COH_END (compared at the header beat, carried in s1_tcoh). Both only matter for a request
    // inside the window (S1 status OK), where nothing wraps.
    localparam [63:0] T_HPA_OFF = HPA_BASE - WIN_BASE;
    // the HPA line address of line k, one prefix adder (ks_adder) per line with the constant
    // difference + k, so the lanes get every line's address from a register
    wire [46*4-1:0] t_la;
    genvar gk;
    generate for (gk = 0; gk < 4; gk = gk + 1) begin : g_tla
        ks_adder #(.WIDTH(46)) u_hpa (.a(s1_addr[51:6]), .b(T_HPA_OFF[51:6] + 46'(gk)),
                                      .sum(t_la[46 * gk +: 46]));
    end endgenerate
    wire [45:0] t_hpa   = t_la[45:0];
    // a table hit's line addresses: the stored first line + k (k < 4: short prefix adders)
    wire [46*4-1:0] c_la;
    generate for (gk = 0; gk < 4; gk = gk + 1) begin : g_cla
        ks_adder #(.WIDTH(46)) u_hpa (.a(ht_hpa[c_hti]), .b(46'(gk)), .sum(c_la[46 * gk +: 46]));
    end endgenerate
    wire [3:0]  t_coh   = s1_tcoh;
    // a partial line in the coherent range cannot be written (no byte enables toward the home)
    wire [3:0]  t_st = (s1_st == ST_OK && s1_wr && |(t_coh & s1_pl)) ? ST_COH_PTL : s1_st;
    reg         s2_v, s2_wr, s2_dup;
    reg [2:0]   s2_enl;
    reg [4:0]   s2_eoh;
    reg [3:0]   s2_st;
    reg [95:0]  s2_hdr;
    reg [45:0]  s2_hpa [0:3];
    reg [3:0]   s2_coh;
    reg [15:0]  s2_mask;
    reg [511:0] s2_line [0:3];

    // ------------------------------------------------------------------ reorder buffer
    // Request ring (NROB entries, in order) and line ring (NLINE slots, allocated in request order,
    // freed with the request's response): a line's slot is its CXL tag / CQID.
    reg           rob_v   [0:NROB-1];
    reg           rob_rd  [0:NROB-1];
    reg [95:0]    rob_hdr [0:NROB-1];
    reg [3:0]     rob_st  [0:NROB-1];
    reg [LSW-1:0] rob_ls  [0:NROB-1];     // first line slot
    reg [2:0]     rob_nl  [0:NROB-1];     // lines (0 for an error)
    reg [2:0]     rob_nb  [0:NROB-1];     // data beats of a read response without error
    wire [NLINE-1:0] l_done;              // per line slot (registers in g_ls below)
    wire [NLINE-1:0] l_err;               // the far side answered the line with an error
    wire [511:0]  l_data  [0:NLINE-1];
    reg [RW-1:0]  rob_head, rob_tail;
    reg [RW:0]    rob_cnt;
    reg [LSW-1:0] l_tail;
    reg [LSW:0]   l_cnt;
    reg [15:0]    seq_cnt;

    // ------------------------------------------------------------------ duplicate (src, tag)
    // A request is a duplicate when, in the cycle its header is taken, an earlier request with the
    // same (src, tag) has not been answered: it is still in the parser, S1, S2 or the reorder
    // buffer (an entry whose last response beat leaves in this cycle included). This is the
    // requester's view at the XLink port, so the verdict does not depend on how long the request
    // then waits in front of the reorder buffer. The flag travels with the request; it is
    // answered BAD_TAG when it enters.
    wire [19:0] h_key = xl_rx_data[27:8];   // (src, tag) of a header beat
    integer d;
    always @* begin
        h_dup = (p_full && p_hdr[27:8] == h_key) || (s1_v && s1_hdr[27:8] == h_key) ||
                (s2_v && s2_hdr[27:8] == h_key);
        for (d = 0; d < NROB; d = d + 1)
            if (rob_v[d] && rob_hdr[d][27:8] == h_key) h_dup = 1'b1;
    end

    // ------------------------------------------------------------------ enter
    // The candidate is S2's request, or S1's when it skips S2 (table hit or error, S2 empty).
    wire s1_byp   = s1_v && s1_bp && !s2_v;          // s1_bp: s1_hit || s1_st != ST_OK
    wire [3:0]  n_st   = s2_v ? s2_st  : s1_st;
    wire [95:0] n_hdr  = s2_v ? s2_hdr : s1_hdr;
    wire        n_wr   = s2_v ? s2_wr  : s1_wr;
    wire        n_h0   = s2_v ? s2_hpa[0][0] : s1_hpa[0][0];   // first line address bit 0
    wire [3:0]  n_coh  = s2_v ? s2_coh : s1_coh;
    wire [15:0] n_mask = s2_v ? s2_mask : s1_mask;
    wire        n_dup  = s2_v ? s2_dup : s1_dup;
    wire [3:0]  e_st  = n_dup ? ST_BAD_TAG : n_st;
    wire [2:0]  e_nl  = s2_v ? s2_enl : s1_enl;          // lines (0 unless e_st is ST_OK)
    wire [8:0]  e_lenf = n_hdr[F_LEN +: 9];
    wire [4:0]  e_nch  = (FLAVOR == 0) ? e_lenf[8:4] : e_lenf[4:0];
    wire [5:0]  e_nb6  = ({1'b0, e_nch} + 6'd3) >> 2;
    wire [2:0]  e_nb   = e_nb6[2:0];                     // data beats of its read response
    // The entry decision of each candidate from registers (kept nets, the choice between them
    // last): its line count (0 for an error or a duplicate), room for them in the line ring (the
    // registered flags l_fr[k]: at least k slots free), each lane it has lines for ready
    // (lane ln takes lines k0, k0 + LANES, ... with k0 = ln XOR the first line's address bit 0, so
    // it has lines when the count exceeds k0), and a free request entry.
    reg  [4:1]  l_fr;
    // (the line count as a one-hot n: room when none or its flag; lane f has lines when the count
    // exceeds k0)
    function automatic room(input [4:0] n, input [4:1] fr);
        room = n[0] || |(n[4:1] & fr);
    endfunction
    function automatic [LANES-1:0] needs(input [1:0] n, input h0);   // n: the one-hot's bits 0, 1
        integer f;
        for (f = 0; f < LANES; f = f + 1)
            needs[f] = ((LANES == 1) || !(1'(f) ^ h0)) ? !n[0] : !(n[0] || n[1]);
    endfunction

    // the request's lines per lane: lane ln takes lines k0, k0 + LANES, ... (k0 = first line whose
    // address is ln modulo LANES); their addresses from S2's or S1's registers
    wire [46*LANES*NLL-1:0] ln_la;
    genvar gla, glj;
    generate for (gla = 0; gla < LANES; gla = gla + 1) begin : g_la
        for (glj = 0; glj < NLL; glj = glj + 1) begin : g_j
            wire [1:0] kk = ((LANES == 1) ? 2'd0 : {1'b0, 1'(gla) ^ n_h0}) + 2'(glj * LANES);
            assign ln_la[46 * (NLL * gla + glj) +: 46] = s2_v ? s2_hpa[kk] : s1_hpa[kk];
        end
    end endgenerate
    wire [LANES-1:0]    ln_ready;
    reg  [LANES-1:0]    ln_need;
    reg  [QW*LANES-1:0] ln_ent;
    reg  [1:0]          k0;
    reg  [1:0]          kk;
    reg  [NCW-1:0]      nll;
    integer ln, j;
    always @* begin
        ln_ent = {(QW*LANES){1'b0}};
        for (ln = 0; ln < LANES; ln = ln + 1) begin
            k0  = (LANES == 1) ? 2'd0 : {1'b0, 1'(ln) ^ n_h0};
            nll = (e_nl > 3'(k0)) ? NCW'((e_nl - 3'(k0) + 3'(LANES - 1)) >> LB) : {NCW{1'b0}};
            ln_need[ln] = (nll != {NCW{1'b0}});
            ln_ent[QW * ln +: 16]                 = seq_cnt;
            ln_ent[QW * ln + 16]                  = n_wr;
            ln_ent[QW * ln + 17 +: NCW]           = nll;
            for (j = 0; j < NLL; j = j + 1) begin
                kk = k0 + 2'(j * LANES);
                ln_ent[QW * ln + 17 + NCW + 46 * j +: 46]               = ln_la[46 * (NLL * ln + j) +: 46];
                ln_ent[QW * ln + 17 + NCW + 46 * NLL + LSW * j +: LSW]  = l_tail + LSW'(kk);
                ln_ent[QW * ln + 17 + NCW + LP + j]                     = n_coh[kk[1:0]];
                ln_ent[QW * ln + 17 + NCW + LP + NLL + 4 * j +: 4]      = n_mask[4 * kk[1:0] +: 4];
                ln_ent[QW * ln + 17 + NCW + LP + 5 * NLL + 512 * j +: 512] =
                    s2_v ? s2_line[kk[1:0]] : s1_line[kk[1:0]];
            end
        end
    end
    reg  rob_free;               // a request entry is free (rob_cnt != NROB), registered
    (* keep *) wire en2, en1;    // S2's request enters; S1's enters (when S2 is empty)
    assign en2 = s2_v && rob_free && room(s2_eoh, l_fr) &&
                 ((needs(s2_eoh[1:0], s2_hpa[0][0]) & ~ln_ready) == {LANES{1'b0}});
    assign en1 = s1_v && s1_bp && rob_free && room(s1_eoh, l_fr) &&
                 ((needs(s1_eoh[1:0], s1_hpa[0][0]) & ~ln_ready) == {LANES{1'b0}});
    wire enter    = s2_v ? en2 : en1;
    wire s2_to_i  = s2_v && en2;
    wire s1_to_i  = !s2_v && en1;
    wire s1_to_s2 = s1_v && !s1_byp && (!s2_v || en2);
    wire s1_out   = s1_to_i || s1_to_s2;
    assign p_take = p_full && (!s1_v || s1_out);

    integer jj;
    always @(posedge clk) begin
        if (rst) begin
            s1_v <= 1'b0; s2_v <= 1'b0;
            for (jj = 0; jj < HT_ENTRIES; jj = jj + 1) ht_v[jj] <= 1'b0;
        end else begin
            if (p_take) begin
                s1_v <= 1'b1;
                s1_st <= c_st; s1_op <= c_op; s1_wr <= c_wr; s1_hdr <= p_hdr; s1_nl <= c_nl; s1_dup <= p_dup;
                s1_enl <= (!p_dup && c_st == ST_OK) ? c_nl : 3'd0;
                s1_eoh <= 5'd1 << ((!p_dup && c_st == ST_OK) ? c_nl : 3'd0);
                s1_bp  <= c_hthit || (c_st != ST_OK);
                s1_hit <= c_hthit; s1_coh <= ht_coh[c_hti];
                for (jj = 0; jj < 4; jj = jj + 1) s1_hpa[jj] <= c_la[46 * jj +: 46];
                s1_mask <= c_mask; s1_pl <= c_pl; s1_tcoh <= p_coh;
                for (jj = 0; jj < 4; jj = jj + 1) s1_line[jj] <= c_shf[512 * jj +: 512];
            end else if (s1_out) s1_v <= 1'b0;
            if (s1_to_s2) begin
                s2_v <= 1'b1;
                s2_st <= t_st; s2_wr <= s1_wr; s2_hdr <= s1_hdr; s2_mask <= s1_mask; s2_dup <= s1_dup;
                s2_enl <= (!s1_dup && t_st == ST_OK) ? s1_nl : 3'd0;
                s2_eoh <= 5'd1 << ((!s1_dup && t_st == ST_OK) ? s1_nl : 3'd0);
                s2_coh <= t_coh;
                for (jj = 0; jj < 4; jj = jj + 1) s2_hpa[jj] <= t_la[46 * jj +: 46];
                for (jj = 0; jj < 4; jj = jj + 1) s2_line[jj] <= s1_line[jj];
                if (t_st == ST_OK) begin
                    ht_v[s1_addr[6 +: HW]]   <= 1'b1;
                    ht_key[s1_addr[6 +: HW]] <= {s1_addr, s1_hdr[F_LEN +: 9], s1_op};
                    ht_hpa[s1_addr[6 +: HW]] <= t_hpa;
                    ht_coh[s1_addr[6 +: HW]] <= t_coh;
                end
            end else if (s2_to_i) s2_v <= 1'b0;
        end
    end

    // ------------------------------------------------------------------ lanes
    wire [6*LANES-1:0]      cp_v, cp_err;
    wire [6*LSW*LANES-1:0]  cp_ls;
    wire [4*LANES-1:0]      cp_dv;
    wire [4*512*LANES-1:0]  cp_dat;
    wire [LANES-1:0]        ev_hit, ev_fwd, ev_miss, ev_rmw, ln_wbe;
    wire [3*LANES-1:0]      ev_proto;
    wire [32*LANES-1:0]     ln_now;
    genvar g;
    generate for (g = 0; g < LANES; g = g + 1) begin : g_lane
        xb_lane #(.LANE(g), .LANES(LANES), .NLL(NLL), .NLINE(NLINE), .BUF_EN(BUF_EN),
                  .WR_ALLOC(WR_ALLOC), .SETS_L(SETS / LANES), .WBS(WB_DEPTH / LANES),
                  .WQ_DEPTH(WQ_DEPTH), .LQ_DEPTH(LQ_DEPTH), .CW_DEPTH(CW_DEPTH),
                  .HBM_INFLIGHT(HBM_INFLIGHT), .NPC(NPC / LANES), .NBANK(NBANK),
                  .ROW_LINES(ROW_LINES), .T_CL(T_CL), .T_RCD(T_RCD), .T_RP(T_RP), .T_RAS(T_RAS),
                  .T_BURST(T_BURST), .T_REFI(T_REFI), .T_RFC(T_RFC), .REF_POSTPONE(REF_POSTPONE),
                  .REF_IDLE(REF_IDLE), .TAG_BASE(TAG_BASE)) u_lane (
            .clk(clk), .rst(rst),
            .q_valid(enter && ln_need[g]), .q_ready(ln_ready[g]), .q_data(ln_ent[QW * g +: QW]),
            .cpl_v(cp_v[6 * g +: 6]), .cpl_ls(cp_ls[6 * LSW * g +: 6 * LSW]),
            .cpl_err(cp_err[6 * g +: 6]), .cpl_dv(cp_dv[4 * g +: 4]),
            .cpl_data(cp_dat[4 * 512 * g +: 4 * 512]),
            .m2s_req_valid(m2s_req_valid[g]), .m2s_req_ready(m2s_req_ready[g]),
            .m2s_req_hdr(m2s_req_hdr[128 * g +: 128]),
            .m2s_rwd_valid(m2s_rwd_valid[g]), .m2s_rwd_ready(m2s_rwd_ready[g]),
            .m2s_rwd_hdr(m2s_rwd_hdr[128 * g +: 128]), .m2s_rwd_data(m2s_rwd_data[512 * g +: 512]),
            .s2m_ndr_valid(s2m_ndr_valid[g]), .s2m_ndr_ready(s2m_ndr_ready[g]),
            .s2m_ndr_hdr(s2m_ndr_hdr[128 * g +: 128]),
            .s2m_drs_valid(s2m_drs_valid[g]), .s2m_drs_ready(s2m_drs_ready[g]),
            .s2m_drs_hdr(s2m_drs_hdr[128 * g +: 128]), .s2m_drs_data(s2m_drs_data[512 * g +: 512]),
            .d2h_req_valid(d2h_req_valid[g]), .d2h_req_ready(d2h_req_ready[g]),
            .d2h_req_hdr(d2h_req_hdr[128 * g +: 128]),
            .d2h_data_valid(d2h_data_valid[g]), .d2h_data_ready(d2h_data_ready[g]),
            .d2h_data_hdr(d2h_data_hdr[128 * g +: 128]), .d2h_data_data(d2h_data_data[512 * g +: 512]),
            .h2d_rsp_valid(h2d_rsp_valid[g]), .h2d_rsp_ready(h2d_rsp_ready[g]),
            .h2d_rsp_hdr(h2d_rsp_hdr[128 * g +: 128]),
            .h2d_data_valid(h2d_data_valid[g]), .h2d_data_ready(h2d_data_ready[g]),
            .h2d_data_hdr(h2d_data_hdr[128 * g +: 128]), .h2d_data_data(h2d_data_data[512 * g +: 512]),
            .ev_hit(ev_hit[g]), .ev_fwd(ev_fwd[g]), .ev_miss(ev_miss[g]), .ev_rmw(ev_rmw[g]),
            .ev_proto(ev_proto[3 * g +: 3]), .wb_empty(ln_wbe[g]),
            .dbg_line_valid(dbg_line_valid[g]), .dbg_line_kind(dbg_line_kind[3 * g +: 3]),
            .dbg_line_seq(dbg_line_seq[16 * g +: 16]), .hbm_now(ln_now[32 * g +: 32]),
            .hbm_iss_valid(hbm_iss_valid[g]), .hbm_iss_done(hbm_iss_done[32 * g +: 32]),
            .hbm_iss_we(hbm_iss_we[g]), .hbm_iss_idx(hbm_iss_idx[SWL * g +: SWL]));
    end endgenerate
    assign hbm_now  = ln_now[31:0];  // every lane's controller counts the same cycles
    assign wb_empty = &ln_wbe;

    // ------------------------------------------------------------------ response
    wire [RW-1:0]  hd     = rob_head;
    wire [95:0]    hh     = rob_hdr[hd];
    wire           h_rd   = rob_rd[hd];
    wire [LSW-1:0] h_ls   = rob_ls[hd];
    wire [2:0]     h_nl   = rob_nl[hd];
    wire [8:0]     h_lenf = hh[F_LEN +: 9];
    wire [4:0]     h_nch  = (FLAVOR == 0) ? h_lenf[8:4] : h_lenf[4:0];
    wire [1:0]     h_s    = (FLAVOR == 0) ? 2'd0 : hh[F_ADDR + 4 +: 2];
    wire [5:0]     h_nb6  = ({1'b0, h_nch} + 6'd3) >> 2;
    // the head request's line slots as a registered mask (hm, kept with the head below): all
    // done, any failed
    reg  [NLINE-1:0] hm;
    wire        h_all   = &(l_done | ~hm);
    wire        h_err   = |(l_err & hm);
    wire [3:0]  h_st    = (rob_st[hd] == ST_OK && h_err) ? ST_CXL_ERR : rob_st[hd];
    wire        h_data  = h_rd && (h_st == ST_OK);
    wire [2:0]  h_beats = h_data ? h_nb6[2:0] : 3'd0;        // data beats after the header
    wire [3:0]  h_op    = (h_st != ST_OK) ? OP_ERR : (h_rd ? OP_RD_DATA : OP_WR_ACK);
    wire [95:0] rsp_hdr = {hh[95:F_TAG], h_st, h_op};         // echoes tag, src, len, addr
    reg  [2:0]  tx_t;                                         // transfer of the response
    wire        tx_fire = xl_tx_valid && xl_tx_ready;
    // the transfer ending the response: the one with the last data beat, or the header's when
    // there is no data (both from registers, kept; h_data, late, picks)
    (* keep *) wire [XW-1:0] lst_d, lst_0;
    genvar gy;
    generate for (gy = 0; gy < XW; gy = gy + 1) begin : g_lst
        assign lst_d[gy] = (3'(XW) * tx_t + 3'(gy) == rob_nb[hd]);
        assign lst_0[gy] = (3'(XW) * tx_t + 3'(gy) == 3'd0);
    end endgenerate
    wire        tx_end  = tx_fire && (h_data ? |lst_d : |lst_0);
    assign xl_tx_valid  = (rob_cnt != {(RW+1){1'b0}}) && h_all;

    // beat b of the response: 0 = header, b >= 1 = chunks s+4(b-1) .. of the lines, zero past the end
    genvar gx;
    generate for (gx = 0; gx < XW; gx = gx + 1) begin : g_tx
        wire [2:0]     bi   = 3'(XW) * tx_t + 3'(gx);
        wire [1:0]     db   = 2'(bi - 3'd1);
        wire [1023:0]  two  = {l_data[h_ls + LSW'(db) + LSW'(1)], l_data[h_ls + LSW'(db)]};
        wire [1023:0]  shf  = two >> {h_s, 7'd0};
        reg  [3:0]     keep;
        integer k3;
        always @* begin
            for (k3 = 0; k3 < 4; k3 = k3 + 1)
                keep[k3] = ({1'b0, db, 2'(k3)} < h_nch);
        end
        assign xl_tx_last[gx] = h_data ? lst_d[gx] : lst_0[gx];   // = (bi == h_beats)
        assign xl_tx_data[512 * gx +: 512] = (bi == 3'd0) ? {416'd0, rsp_hdr} :
            ((bi <= h_beats) ? (shf[511:0] & {{128{keep[3]}}, {128{keep[2]}}, {128{keep[1]}}, {128{keep[0]}}}) : 512'd0);
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_tx = &{1'b0, shf[1023:512]};
        /* verilator lint_on UNUSEDSIGNAL */
    end endgenerate

    // ------------------------------------------------------------------ reorder buffer update
    // slots ls .. ls + n - 1 (mod NLINE) as a mask
    function automatic [NLINE-1:0] smask(input [LSW-1:0] ls, input [2:0] n);
        reg [NLINE-1:0] oh;
        integer f;
        begin
            oh = {{(NLINE - 1){1'b0}}, 1'b1} << ls;
            smask = {NLINE{1'b0}};
            for (f = 0; f < 4; f = f + 1)
                if (3'(f) < n) smask = smask | (oh << f) | (oh >> (NLINE - f));
        end
    endfunction
    // Next values from registers for every outcome of the cycle (kept nets), picked by the late
    // enter / tx_end: the line count and its room flags, the request count, the head's mask (the
    // next entry's when the head leaves with others behind it, the entering request's when it
    // becomes the head).
    wire [RW-1:0] hd1 = rob_head + 1'b1;
    (* keep *) wire [NLINE-1:0] m_next, m_ent;
    assign m_next = smask(rob_ls[hd1], rob_nl[hd1]);
    assign m_ent  = smask(l_tail, e_nl);
    (* keep *) wire [LSW:0] lc_a, lc_b, lc_c, lc_d;     // l_cnt, + entering, - leaving, both
    assign lc_a = l_cnt;
    assign lc_b = l_cnt + (LSW+1)'(e_nl);
    assign lc_c = l_cnt - (LSW+1)'(h_nl);
    assign lc_d = l_cnt + (LSW+1)'(e_nl) - (LSW+1)'(h_nl);
    function automatic [4:1] frees(input [LSW:0] c);     // [k]: at least k slots free
        integer f;
        for (f = 1; f <= 4; f = f + 1) frees[f] = (c <= (LSW+1)'(NLINE - f));
    endfunction
    (* keep *) wire [4:1] lf_a, lf_b, lf_c, lf_d;
    assign lf_a = frees(lc_a);
    assign lf_b = frees(lc_b);
    assign lf_c = frees(lc_c);
    assign lf_d = frees(lc_d);
    wire h_next = (rob_cnt != (RW+1)'(1));              // another request is behind the head
    wire rb_f0  = (rob_cnt != (RW+1)'(NROB));           // a request entry free, count unchanged
    wire rb_f1  = (rob_cnt != (RW+1)'(NROB - 1));       // ... after one more

    // line slots: cleared for an entering request, set by the lanes' completions (every event
    // names a distinct outstanding slot), data written with the completion. The events meet the
    // slot's state in three tiers of kept nets, the latest last: the slot's state and the early
    // events (o_*), then the home agent's H2D data (3) and H2D response (4), whose valids come
    // through the lane's slot lookup of the agent's queue outputs (m_*), then the lanes' issue-time
    // event (0: forward, buffered write, skipped line), the latest signal, in the last gates.
    localparam [5:0] MID_EV = 6'b011000;    // per lane event index: the middle tier
    // a per-lane event mask repeated over the lanes: by event (6 per lane) and by data event (the
    // first 4 events of a lane carry data)
    function automatic [6*LANES-1:0] ev_mask(input [5:0] m);
        integer k;
        for (k = 0; k < 6 * LANES; k = k + 1) ev_mask[k] = m[k % 6];
    endfunction
    function automatic [4*LANES-1:0] dv_mask(input [5:0] m);
        integer k;
        for (k = 0; k < 4 * LANES; k = k + 1) dv_mask[k] = m[k % 4];
    endfunction
    // the tiers' masks: EV0 the issue-time events, MID the middle tier
    localparam [6*LANES-1:0] EV0  = ev_mask(6'b000001);
    localparam [6*LANES-1:0] MID  = ev_mask(MID_EV);
    localparam [4*LANES-1:0] EV0D = dv_mask(6'b000001);
    localparam [4*LANES-1:0] MIDD = dv_mask(MID_EV);
    wire [NLINE-1:0] l_clr = enter ? m_ent : {NLINE{1'b0}};
    genvar gsl, gse;
    generate for (gsl = 0; gsl < NLINE; gsl = gsl + 1) begin : g_ls
        reg          done, err;
        reg  [511:0] dat;
        (* keep *) wire [6*LANES-1:0] hit; // completion events naming this slot
        (* keep *) wire [4*LANES-1:0] wd;  // ... with data
        (* keep *) wire [6*LANES-1:0] dec; // events whose slot this is (valid or not)
        for (gse = 0; gse < 6 * LANES; gse = gse + 1) begin : g_e
            assign dec[gse] = (cp_ls[LSW * gse +: LSW] == LSW'(gsl));
            assign hit[gse] = cp_v[gse] && dec[gse];
            if (gse % 6 < 4) begin : g_d
                assign wd[4 * (gse / 6) + gse % 6] = hit[gse] && cp_dv[4 * (gse / 6) + gse % 6];
            end
        end
        reg [511:0] od, md;
        integer f;
        // tier o: the early events and the slot's state after the clearing
        (* keep *) wire o_done, o_err, o_we;
        (* keep *) wire [511:0] o_dat;
        always @* begin
            od = 512'd0;
            for (f = 0; f < 4 * LANES; f = f + 1)
                if (!EV0D[f] && !MIDD[f]) od = od | (cp_dat[512 * f +: 512] & {512{wd[f]}});
        end
        assign o_done = (|(hit & ~EV0 & ~MID)) || (done && !l_clr[gsl]);
        assign o_err  = (|(hit & cp_err & ~EV0 & ~MID)) || (err && !l_clr[gsl]);
        assign o_we   = |(wd & ~EV0D & ~MIDD);
        assign o_dat  = od;
        // tier m: the H2D data and response events on top of tier o
        (* keep *) wire m_done, m_err, m_we;
        (* keep *) wire [511:0] m_dat;
        always @* begin
            md = o_dat;
            for (f = 0; f < 4 * LANES; f = f + 1)
                if (MIDD[f] && wd[f]) md = cp_dat[512 * f +: 512];
        end
        assign m_done = (|(hit & MID)) || o_done;
        assign m_err  = (|(hit & cp_err & MID)) || o_err;
        assign m_we   = (|(wd & MIDD)) || o_we;
        assign m_dat  = md;
        // the lanes' event 0
        reg          z_done, z_err, z_we;
        reg  [511:0] z_dat;
        always @* begin
            z_done = 1'b0; z_err = 1'b0; z_we = 1'b0; z_dat = m_dat;
            for (f = 0; f < LANES; f = f + 1) begin
                z_done = z_done | hit[6 * f];
                z_err  = z_err | (hit[6 * f] & cp_err[6 * f]);
                z_we   = z_we | wd[4 * f];
                if (wd[4 * f]) z_dat = cp_dat[512 * (4 * f) +: 512];
            end
        end
        always @(posedge clk) begin
            if (rst) begin
                done <= 1'b0; err <= 1'b0;
            end else begin
                done <= z_done || m_done;
                err  <= z_err || m_err;
            end
            if (z_we || m_we) dat <= z_dat;
        end
        assign l_done[gsl] = done;
        assign l_err[gsl]  = err;
        assign l_data[gsl] = dat;
    end endgenerate

    integer l;
    always @(posedge clk) begin
        if (rst) begin
            rob_head <= {RW{1'b0}}; rob_tail <= {RW{1'b0}}; rob_cnt <= {(RW+1){1'b0}};
            l_tail <= {LSW{1'b0}}; l_cnt <= {(LSW+1){1'b0}}; l_fr <= 4'hF; hm <= {NLINE{1'b0}};
            rob_free <= 1'b1;
            tx_t <= 3'd0; seq_cnt <= 16'd0;
            for (l = 0; l < NROB; l = l + 1) rob_v[l] <= 1'b0;
        end else begin
            case ({enter, tx_end})
                2'b10:   begin rob_cnt <= rob_cnt + 1'b1; l_cnt <= lc_b; l_fr <= lf_b; rob_free <= rb_f1; end
                2'b01:   begin rob_cnt <= rob_cnt - 1'b1; l_cnt <= lc_c; l_fr <= lf_c; rob_free <= 1'b1;  end
                2'b11:   begin                            l_cnt <= lc_d; l_fr <= lf_d; rob_free <= rb_f0; end
                default: begin                            l_cnt <= lc_a; l_fr <= lf_a; rob_free <= rb_f0; end
            endcase
            if (tx_end && h_next)                        hm <= m_next;
            else if (enter && (rob_cnt == {(RW+1){1'b0}} || (tx_end && !h_next))) hm <= m_ent;
            if (enter) begin
                rob_v[rob_tail] <= 1'b1; rob_rd[rob_tail] <= !n_wr; rob_hdr[rob_tail] <= n_hdr;
                rob_st[rob_tail] <= e_st; rob_ls[rob_tail] <= l_tail; rob_nl[rob_tail] <= e_nl;
                rob_nb[rob_tail] <= e_nb;
                rob_tail <= rob_tail + 1'b1;
                l_tail   <= l_tail + LSW'(e_nl);
                seq_cnt  <= seq_cnt + 16'd1;
            end
            if (tx_fire) tx_t <= tx_t + 3'd1;
            if (tx_end) begin
                tx_t <= 3'd0;
                rob_v[hd] <= 1'b0;
                rob_head <= rob_head + 1'b1;
            end
        end
    end

    // ------------------------------------------------------------------ statistics / debug
    // The lanes' dropped-response counts (formed from registered flags in the lanes) are
    // registered again before they are summed and added: stat_proto_err counts a dropped response
    // two cycles after the cycle it arrived in.
    reg [2:0] n_hit, n_fwd, n_miss, n_rmw;
    reg [3:0] n_proto;
    reg [3*LANES-1:0] ev_proto_q;
    integer ls;
    always @* begin
        n_hit = 3'd0; n_fwd = 3'd0; n_miss = 3'd0; n_rmw = 3'd0; n_proto = 4'd0;
        for (ls = 0; ls < LANES; ls = ls + 1) begin
            n_hit = n_hit + 3'(ev_hit[ls]); n_fwd = n_fwd + 3'(ev_fwd[ls]);
            n_miss = n_miss + 3'(ev_miss[ls]); n_rmw = n_rmw + 3'(ev_rmw[ls]);
            n_proto = n_proto + 4'(ev_proto_q[3 * ls +: 3]);
        end
    end
    // saturating add as a prefix adder one bit wider than the count (the top bit is the carry)
    wire [16:0] proto_sum;
    ks_adder #(.WIDTH(17)) u_proto_add (.a({1'b0, stat_proto_err}), .b(17'(n_proto)), .sum(proto_sum));
    always @(posedge clk) begin
        if (rst) begin
            stat_err <= 16'd0; stat_proto_err <= 16'd0; ev_proto_q <= {3*LANES{1'b0}};
        end else begin
            if (tx_fire && tx_t == 3'd0 && h_st != ST_OK && stat_err != 16'hFFFF)
                stat_err <= stat_err + 16'd1;
            ev_proto_q <= ev_proto;
            stat_proto_err <= proto_sum[16] ? 16'hFFFF : proto_sum[15:0];
        end
    end
    // The wrapping 32-bit event counts sit after the lanes' per-cycle decisions: a prefix adder
    // (stat_counter) keeps the add to about log2(32) levels instead of a 32-bit ripple carry.
    stat_counter #(.WIDTH(32), .AW(3)) u_stat_hit (
        .clk(clk), .rst(rst), .en(1'b1), .add(n_hit), .count(stat_hit));
    stat_counter #(.WIDTH(32), .AW(3)) u_stat_fwd (
        .clk(clk), .rst(rst), .en(1'b1), .add(n_fwd), .count(stat_fwd));
    stat_counter #(.WIDTH(32), .AW(3)) u_stat_miss (
        .clk(clk), .rst(rst), .en(1'b1), .add(n_miss), .count(stat_miss));
    stat_counter #(.WIDTH(32), .AW(3)) u_stat_rmw (
        .clk(clk), .rst(rst), .en(1'b1), .add(n_rmw), .count(stat_rmw));
    stat_counter #(.WIDTH(32), .AW(1)) u_stat_ht_hit (
        .clk(clk), .rst(rst), .en(s1_to_i && s1_hit), .add(1'b1), .count(stat_ht_hit));
    // header bits the bridge does not interpret
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, s1_addr[5:0], hh[7:0], h_lenf, c_nb6, c_nl6, h_nb6, e_nb6, ln_now};
    /* verilator lint_on UNUSEDSIGNAL */
    assign dbg_req_valid  = enter;
    assign dbg_req_seq    = seq_cnt;
    assign dbg_req_hthit  = s1_to_i && s1_hit;
endmodule
`default_nettype wire
