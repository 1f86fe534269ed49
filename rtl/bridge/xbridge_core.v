// XLink-CXL bridge core (issue 5). XLink side: packets as 512-bit beats with `last` (header beat =
// 64 B UALink TL flit or 16 B NVLink header flit in [127:0]; data beats = 64 B). CXL side:
// canonical CXL.mem M2S Req/RwD out, S2M NDR/DRS in; CXL.cache D2H Req (RdCurr) out and H2D Data
// in for the coherent sub-range. Field layout and policies: rtl/bridge/README.md.
//
// Pipeline: parser (P) -> S1 check + header-table lookup -> S2 translate/build (skipped on a table
// hit) -> I issue (one 64 B line per cycle, ROB slot allocated on entry) -> ROB (outstanding-request
// table, CXL tag = {slot, line}) -> in-order responses. Buffer (BUF_EN=1): hot-line cache in the
// HBM model, write buffer with coalescing and read forwarding.
module xbridge_core #(
    parameter integer FLAVOR     = 0,                 // 0 UALink-style, 1 NVLink-style
    parameter [63:0]  WIN_BASE   = 64'h1_0000_0000,   // XLink unified-address window
    parameter [63:0]  WIN_SIZE   = 64'h100_0000,
    parameter [63:0]  HPA_BASE   = 64'h40_0000_0000,  // CXL host physical address of the window
    parameter [63:0]  COH_OFF    = 64'hF0_0000,       // coherent sub-range (window offsets)
    parameter [63:0]  COH_SIZE   = 64'h10_0000,
    parameter integer BUF_EN     = 1,
    parameter integer SETS       = 16,                // hot-line cache lines (power of two)
    parameter integer WR_ALLOC   = 1,
    parameter integer HT_ENTRIES = 8,                 // pre-converted header table (power of two)
    parameter integer WB_DEPTH   = 8,
    parameter integer NROB       = 4,                 // outstanding requests (power of two)
    parameter integer HBM_INFLIGHT = 8,               // HBM accesses in flight (latency x rate)
    parameter integer NPC        = 2,
    parameter integer NBANK      = 4,
    parameter integer ROW_LINES  = 16,
    parameter integer T_CL       = 13,
    parameter integer T_RCD      = 20,
    parameter integer T_RP       = 17,
    parameter integer T_RAS      = 29,
    parameter integer T_BURST    = 3,
    parameter integer T_REFI     = 3900,
    parameter integer T_RFC      = 160
) (
    input  wire         clk,
    input  wire         rst,
    // XLink
    input  wire         xl_rx_valid,
    output wire         xl_rx_ready,
    input  wire [511:0] xl_rx_data,
    input  wire         xl_rx_last,
    output wire         xl_tx_valid,
    input  wire         xl_tx_ready,
    output wire [511:0] xl_tx_data,
    output wire         xl_tx_last,
    // CXL.mem (canonical headers)
    output wire         m2s_req_valid,
    input  wire         m2s_req_ready,
    output wire [127:0] m2s_req_hdr,
    output wire         m2s_rwd_valid,
    input  wire         m2s_rwd_ready,
    output wire [127:0] m2s_rwd_hdr,
    output wire [511:0] m2s_rwd_data,
    input  wire         s2m_ndr_valid,
    output wire         s2m_ndr_ready,
    input  wire [127:0] s2m_ndr_hdr,
    input  wire         s2m_drs_valid,
    output wire         s2m_drs_ready,
    input  wire [127:0] s2m_drs_hdr,
    input  wire [511:0] s2m_drs_data,
    // CXL.cache toward the coherence agent
    output wire         d2h_req_valid,
    input  wire         d2h_req_ready,
    output wire [127:0] d2h_req_hdr,
    input  wire         h2d_data_valid,
    output wire         h2d_data_ready,
    input  wire [127:0] h2d_data_hdr,
    input  wire [511:0] h2d_data_data,
    // status
    output reg  [15:0]  stat_err,        // XLink requests answered with ERR (saturating)
    output reg  [15:0]  stat_proto_err,  // CXL responses with an unknown tag (dropped)
    output reg  [31:0]  stat_hit,        // read lines answered from the hot-line cache
    output reg  [31:0]  stat_fwd,        // read lines forwarded from the write buffer
    output reg  [31:0]  stat_miss,       // read lines sent to CXL.mem
    output reg  [31:0]  stat_ht_hit,     // requests that skipped translation
    output wire         wb_empty,
    // debug (testbench): per issued line and per request entering issue
    output wire         dbg_line_valid,
    output wire [2:0]   dbg_line_kind,   // 0 mem rd, 1 hit, 2 wb fwd, 3 coh rd, 4 wb wr, 5 wr, 6 wb wr hit
    output wire [15:0]  dbg_line_seq,
    output wire         dbg_req_valid,
    output wire [15:0]  dbg_req_seq,
    output wire         dbg_req_hthit,
    output wire [31:0]  hbm_now,
    output wire         hbm_iss_valid,
    output wire [31:0]  hbm_iss_done,
    output wire         hbm_iss_we,
    output wire [$clog2(SETS)-1:0] hbm_iss_idx
);
`include "cxl_defs.vh"
    // XLink header fields (ours, see README)
    localparam integer F_OP = 0, F_TAG = 8, F_LEN = 28, F_ADDR = 44;  // status at [7:4], src at [27:18]
    localparam [3:0] OP_READ = 4'h1, OP_WRITE = 4'h2, OP_RD_DATA = 4'h8, OP_WR_ACK = 4'h9,
                     OP_ERR = 4'hF;
    localparam [3:0] ST_OK = 4'd0, ST_BAD_LEN = 4'd1, ST_BAD_OP = 4'd2, ST_BAD_ADDR = 4'd3,
                     ST_BAD_ALIGN = 4'd4, ST_COH_WR = 4'd5, ST_CXL_ERR = 4'd6;
    localparam [2:0] K_MEMRD = 3'd0, K_HIT = 3'd1, K_FWD = 3'd2, K_COH = 3'd3, K_WBWR = 3'd4,
                     K_WR = 3'd5, K_WBWR_HIT = 3'd6;
    localparam [1:0] META_NOOP = 2'b11;
    localparam [63:0] WIN_END = WIN_BASE + WIN_SIZE;
    localparam [63:0] COH_END = COH_OFF + COH_SIZE;
    localparam integer RW    = $clog2(NROB);
    localparam integer NL    = NROB * 4;
    localparam integer SW    = $clog2(SETS);
    localparam integer HW    = $clog2(HT_ENTRIES);
    localparam integer WW    = $clog2(WB_DEPTH);
    localparam integer HTAG  = RW + 2;
    localparam [1:0] WB_FREE = 2'd0, WB_PEND = 2'd1, WB_FLY = 2'd2;

    // ------------------------------------------------------------------ parser (P)
    reg         p_full, p_mid;
    reg [95:0]  p_hdr;
    reg [511:0] p_line [0:3];
    reg [2:0]   p_nbeats;     // data beats seen, saturates at 7
    wire        p_take;       // S1 takes the packet this cycle
    assign xl_rx_ready = !p_full || p_take;
    wire rx_fire = xl_rx_valid && xl_rx_ready;

    always @(posedge clk) begin
        if (rst) begin
            p_full <= 1'b0; p_mid <= 1'b0; p_nbeats <= 3'd0; p_hdr <= 96'd0;
        end else begin
            if (p_take) p_full <= 1'b0;
            if (rx_fire) begin
                if (!p_mid) begin
                    p_hdr    <= xl_rx_data[95:0];
                    p_nbeats <= 3'd0;
                end else begin
                    if (p_nbeats < 3'd4) p_line[p_nbeats[1:0]] <= xl_rx_data;
                    if (p_nbeats != 3'd7) p_nbeats <= p_nbeats + 3'd1;
                end
                p_mid <= !xl_rx_last;
                if (xl_rx_last) p_full <= 1'b1;
            end
        end
    end

    // ------------------------------------------------------------------ S1: check + table lookup
    wire [3:0]  c_op   = p_hdr[F_OP +: 4];
    wire [8:0]  c_lenf = p_hdr[F_LEN +: 9];
    wire [51:0] c_addr = p_hdr[F_ADDR +: 52];
    wire [12:0] c_bytes = (FLAVOR == 0) ? {4'd0, c_lenf} : {c_lenf, 4'd0};
    wire        c_len_ok = (c_bytes[5:0] == 6'd0) && (c_bytes[12:6] >= 7'd1) && (c_bytes[12:6] <= 7'd4);
    wire [2:0]  c_nl = c_bytes[8:6];
    wire        c_wr = (c_op == OP_WRITE);
    wire        c_beats_ok = c_wr ? (p_nbeats == c_nl) : (p_nbeats == 3'd0);
    wire [63:0] c_a64 = {12'd0, c_addr};
    wire [63:0] c_end = c_a64 + {51'd0, c_bytes};
    wire [63:0] c_off = c_a64 - WIN_BASE;
    wire        c_win_ok = (c_a64 >= WIN_BASE) && (c_end <= WIN_END);
    wire        c_coh_ov = (c_off < COH_END) && (c_off + {51'd0, c_bytes} > COH_OFF);
    reg  [3:0]  c_st;
    always @* begin
        if (c_op != OP_READ && c_op != OP_WRITE) c_st = ST_BAD_OP;
        else if (!c_len_ok || !c_beats_ok)       c_st = ST_BAD_LEN;
        else if (c_addr[5:0] != 6'd0)            c_st = ST_BAD_ALIGN;
        else if (!c_win_ok)                      c_st = ST_BAD_ADDR;
        else if (c_wr && c_coh_ov)               c_st = ST_COH_WR;
        else                                     c_st = ST_OK;
    end
    // pre-converted header table: key (addr, len, op) -> HPA line + coherent-line mask
    reg            ht_v   [0:HT_ENTRIES-1];
    reg [64:0]     ht_key [0:HT_ENTRIES-1];
    reg [45:0]     ht_hpa [0:HT_ENTRIES-1];
    reg [3:0]      ht_coh [0:HT_ENTRIES-1];
    wire [HW-1:0]  c_hti  = c_addr[6 +: HW];
    wire [64:0]    c_key  = {c_addr, c_lenf, c_op};
    wire           c_hthit = ht_v[c_hti] && (ht_key[c_hti] == c_key) && (c_st == ST_OK);

    reg         s1_v, s1_wr, s1_hit;
    reg [3:0]   s1_st, s1_op;
    reg [95:0]  s1_hdr;
    reg [2:0]   s1_nl;
    reg [45:0]  s1_hpa;
    reg [3:0]   s1_coh;
    reg [511:0] s1_line [0:3];

    // ------------------------------------------------------------------ S2: translate + build
    wire [51:0] s1_addr = s1_hdr[F_ADDR +: 52];
    wire [63:0] t_off   = {12'd0, s1_addr} - WIN_BASE;
    wire [63:0] t_hpa   = t_off + HPA_BASE;
    reg  [3:0]  t_coh;
    integer k;
    always @* begin
        for (k = 0; k < 4; k = k + 1)
            t_coh[k] = ((t_off + 64'(64 * k)) >= COH_OFF) && ((t_off + 64'(64 * k)) < COH_END);
    end
    reg         s2_v, s2_wr;
    reg [3:0]   s2_st;
    reg [95:0]  s2_hdr;
    reg [2:0]   s2_nl;
    reg [45:0]  s2_hpa;
    reg [3:0]   s2_coh;
    reg [511:0] s2_line [0:3];

    // ------------------------------------------------------------------ ROB / outstanding table
    reg           rob_v    [0:NROB-1];
    reg           rob_rd   [0:NROB-1];
    reg [95:0]    rob_hdr  [0:NROB-1];
    reg [3:0]     rob_st   [0:NROB-1];
    reg [2:0]     rob_nl   [0:NROB-1];
    reg           rob_nxm  [0:NROB-1];
    reg           l_done   [0:NL-1];
    reg           l_pend   [0:NL-1];   // outstanding on CXL (mem read, coherent read, direct write)
    reg           l_wr     [0:NL-1];
    reg [45:0]    l_addr   [0:NL-1];
    reg [511:0]   l_data   [0:NL-1];
    reg [RW-1:0]  rob_head, rob_tail;
    reg [RW:0]    rob_cnt;
    wire          rob_free = (rob_cnt != NROB[RW:0]);

    // ------------------------------------------------------------------ I: issue
    reg         i_v, i_wr;
    reg [1:0]   i_line;
    reg [2:0]   i_nl;
    reg [45:0]  i_hpa;
    reg [3:0]   i_coh;
    reg [RW-1:0] i_rob;
    reg [15:0]  i_seq;
    reg [511:0] i_ldat [0:3];
    reg [15:0]  seq_cnt;

    wire [45:0] i_la    = i_hpa + {44'd0, i_line};
    wire        i_lcoh  = i_coh[i_line];
    wire [511:0] i_ld   = i_ldat[i_line];
    wire [RW+1:0] i_slot = {i_rob, i_line};

    // hazard: a CXL-outstanding line at the same address where either side writes
    reg hazard;
    integer h;
    always @* begin
        hazard = 1'b0;
        for (h = 0; h < NL; h = h + 1)
            if (l_pend[h] && l_addr[h] == i_la && (i_wr || l_wr[h])) hazard = 1'b1;
    end

    // hot-line cache tags (data lives in the HBM model)
    reg            c_tv [0:SETS-1];
    reg [45:0]     c_tg [0:SETS-1];
    wire [SW-1:0]  i_set   = i_la[SW-1:0];
    wire           i_chit  = (BUF_EN != 0) && !i_lcoh && c_tv[i_set] && (c_tg[i_set] == i_la);

    // write buffer
    reg [1:0]   wb_st   [0:WB_DEPTH-1];
    reg [45:0]  wb_addr [0:WB_DEPTH-1];
    reg [511:0] wb_data [0:WB_DEPTH-1];
    reg         wb_mp, wb_mf, wb_free_any, wb_pend_any;
    reg [WW-1:0] wb_mi, wb_fi, wb_di;
    integer w;
    always @* begin
        wb_mp = 1'b0; wb_mf = 1'b0; wb_mi = {WW{1'b0}};
        wb_free_any = 1'b0; wb_fi = {WW{1'b0}};
        wb_pend_any = 1'b0; wb_di = {WW{1'b0}};
        for (w = WB_DEPTH - 1; w >= 0; w = w - 1) begin
            if (wb_st[w] != WB_FREE && wb_addr[w] == i_la) begin
                wb_mi = WW'(w);
                if (wb_st[w] == WB_PEND) wb_mp = 1'b1; else wb_mf = 1'b1;
            end
            if (wb_st[w] == WB_FREE) begin wb_free_any = 1'b1; wb_fi = WW'(w); end
            if (wb_st[w] == WB_PEND) begin wb_pend_any = 1'b1; wb_di = WW'(w); end
        end
    end
    wire wb_drain = (BUF_EN != 0) && wb_pend_any && rwd_s_ready;

    // outputs through skid buffers (valid/payload held stable toward CXL)
    wire req_s_ready, rwd_s_ready, d2h_s_ready;
    wire hbm_ready;

    // issue decision for the current line
    reg        f_fire, f_memrd, f_coh, f_hbm_rd, f_fwd, f_fill, f_wbins, f_wbco, f_hbm_wr, f_direct;
    reg [2:0]  f_kind;
    always @* begin
        f_fire = 1'b0; f_memrd = 1'b0; f_coh = 1'b0; f_hbm_rd = 1'b0; f_fwd = 1'b0;
        f_fill = 1'b0; f_wbins = 1'b0; f_wbco = 1'b0; f_hbm_wr = 1'b0; f_direct = 1'b0;
        f_kind = K_MEMRD;
        if (i_v && !hazard) begin
            if (!i_wr) begin
                if (i_lcoh) begin
                    f_kind = K_COH; f_coh = d2h_s_ready; f_fire = d2h_s_ready;
                end else if (i_chit) begin
                    f_kind = K_HIT; f_hbm_rd = hbm_ready; f_fire = hbm_ready;
                end else if ((BUF_EN != 0) && (wb_mp || wb_mf)) begin
                    f_kind = K_FWD; f_fwd = 1'b1; f_fire = 1'b1; f_fill = hbm_ready;
                end else begin
                    f_kind = K_MEMRD; f_memrd = req_s_ready; f_fire = req_s_ready;
                end
            end else if (BUF_EN != 0) begin
                f_kind = (c_tv[i_set] && c_tg[i_set] == i_la) ? K_WBWR_HIT : K_WBWR;
                // coalesce into a waiting entry unless the drain takes it this cycle
                if (!wb_mf && !(wb_mp && wb_drain && wb_di == wb_mi) &&
                    (wb_mp || wb_free_any) &&
                    (hbm_ready || !((c_tv[i_set] && c_tg[i_set] == i_la) || WR_ALLOC != 0))) begin
                    f_fire   = 1'b1;
                    f_wbco   = wb_mp;
                    f_wbins  = !wb_mp;
                    f_hbm_wr = (c_tv[i_set] && c_tg[i_set] == i_la) || (WR_ALLOC != 0);
                end
            end else begin
                f_kind = K_WR;
                f_direct = !wb_drain && rwd_s_ready;   // wb_drain is 0 without a buffer
                f_fire = f_direct;
            end
        end
    end
    wire i_last = f_fire && ({1'b0, i_line} == i_nl - 3'd1);

    // ------------------------------------------------------------------ pipeline control
    wire i_accept = (!i_v || i_last) && rob_free;
    wire s2_to_i  = s2_v && i_accept;
    wire s1_byp   = s1_v && (s1_hit || s1_st != ST_OK) && !s2_v;  // skip S2 only when it is empty
    wire s1_to_i  = s1_byp && i_accept;
    wire s1_to_s2 = s1_v && !s1_byp && (!s2_v || s2_to_i);
    wire s1_out   = s1_to_i || s1_to_s2;
    assign p_take = p_full && (!s1_v || s1_out);
    wire enter    = s2_to_i || s1_to_i;
    wire [3:0]  e_st  = s2_to_i ? s2_st  : s1_st;
    wire [95:0] e_hdr = s2_to_i ? s2_hdr : s1_hdr;
    wire [2:0]  e_nl  = (e_st != ST_OK) ? 3'd0 : (s2_to_i ? s2_nl : s1_nl);
    wire        e_wr  = s2_to_i ? s2_wr  : s1_wr;
    wire [45:0] e_hpa = s2_to_i ? s2_hpa : s1_hpa;
    wire [3:0]  e_coh = s2_to_i ? s2_coh : s1_coh;

    integer j;
    always @(posedge clk) begin
        if (rst) begin
            s1_v <= 1'b0; s2_v <= 1'b0;
            for (j = 0; j < HT_ENTRIES; j = j + 1) ht_v[j] <= 1'b0;
        end else begin
            if (p_take) begin
                s1_v <= 1'b1;
                s1_st <= c_st; s1_op <= c_op; s1_wr <= c_wr; s1_hdr <= p_hdr; s1_nl <= c_nl;
                s1_hit <= c_hthit; s1_hpa <= ht_hpa[c_hti]; s1_coh <= ht_coh[c_hti];
                for (j = 0; j < 4; j = j + 1) s1_line[j] <= p_line[j];
            end else if (s1_out) s1_v <= 1'b0;
            if (s1_to_s2) begin
                s2_v <= 1'b1;
                s2_st <= s1_st; s2_wr <= s1_wr; s2_hdr <= s1_hdr; s2_nl <= s1_nl;
                s2_hpa <= t_hpa[51:6]; s2_coh <= t_coh;
                for (j = 0; j < 4; j = j + 1) s2_line[j] <= s1_line[j];
                if (s1_st == ST_OK) begin
                    ht_v[s1_addr[6 +: HW]]   <= 1'b1;
                    ht_key[s1_addr[6 +: HW]] <= {s1_addr, s1_hdr[F_LEN +: 9], s1_op};
                    ht_hpa[s1_addr[6 +: HW]] <= t_hpa[51:6];
                    ht_coh[s1_addr[6 +: HW]] <= t_coh;
                end
            end else if (s2_to_i) s2_v <= 1'b0;
        end
    end

    // ------------------------------------------------------------------ issue stage registers
    integer j2;
    always @(posedge clk) begin
        if (rst) begin
            i_v <= 1'b0; i_line <= 2'd0; seq_cnt <= 16'd0; i_seq <= 16'd0; i_rob <= {RW{1'b0}};
        end else begin
            if (f_fire) i_line <= i_line + 2'd1;
            if (i_last) i_v <= 1'b0;
            if (enter) begin
                seq_cnt <= seq_cnt + 16'd1;
                i_seq   <= seq_cnt;
                if (e_nl != 3'd0) begin
                    i_v <= 1'b1; i_line <= 2'd0; i_nl <= e_nl; i_wr <= e_wr;
                    i_hpa <= e_hpa; i_coh <= e_coh; i_rob <= rob_tail;
                    for (j2 = 0; j2 < 4; j2 = j2 + 1) i_ldat[j2] <= s2_to_i ? s2_line[j2] : s1_line[j2];
                end
            end
        end
    end

    // ------------------------------------------------------------------ HBM model + cache tags
    wire          hbm_rsp_v;
    wire [HTAG-1:0] hbm_rsp_tag;
    wire [511:0]  hbm_rsp_data;
    wire          hbm_idle;
    // fill from a DRS uses the port only when the issue stage does not
    wire          drs_fire = s2m_drs_valid;
    wire [15:0]   drs_tag  = s2m_drs_hdr[CXL_S2M_DRS_TAG_LSB +: 16];
    wire [RW+1:0] drs_slot = drs_tag[RW+1:0];
    wire          drs_ok   = (drs_tag[15:RW+2] == 0) && l_pend[drs_slot] && !l_wr[drs_slot];
    wire          drs_nxm  = s2m_drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: 3] == CXL_S2M_DRS_OP_MEMDATA_NXM;
    wire          i_uses_hbm = f_hbm_rd || f_fill || f_hbm_wr;
    // a DRS line waits in a one-entry fill register until the HBM port is free; a newer write
    // of the same set from the issue stage cancels it (newer data wins); a full register drops it
    reg           fq_v;
    reg [45:0]    fq_la;
    reg [511:0]   fq_data;
    wire          fq_kill  = fq_v && ((i_uses_hbm && hbm_we && (i_set == fq_la[SW-1:0])) ||
                                     (f_fire && i_wr && i_la == fq_la));
    wire          fq_go    = fq_v && !i_uses_hbm && hbm_ready && !fq_kill;
    wire          drs_fill = (BUF_EN != 0) && drs_fire && drs_ok && !drs_nxm && (!fq_v || fq_go || fq_kill);
    always @(posedge clk) begin
        if (rst) fq_v <= 1'b0;
        else begin
            if (fq_go || fq_kill) fq_v <= 1'b0;
            if (drs_fill) begin
                fq_v <= 1'b1; fq_la <= l_addr[drs_slot]; fq_data <= s2m_drs_data;
            end
        end
    end
    wire          hbm_v    = i_uses_hbm || fq_go;
    wire          hbm_we   = i_uses_hbm ? !f_hbm_rd : 1'b1;
    wire [SW-1:0] hbm_idx  = i_uses_hbm ? i_set : fq_la[SW-1:0];
    wire [511:0]  hbm_wdat = f_fill ? wb_data[wb_mi] : (i_uses_hbm ? i_ld : fq_data);

    generate if (BUF_EN != 0) begin : g_hbm
        xb_hbm_ctrl #(.SETS(SETS), .NPC(NPC), .NBANK(NBANK), .ROW_LINES(ROW_LINES),
                      .T_CL(T_CL), .T_RCD(T_RCD), .T_RP(T_RP), .T_RAS(T_RAS), .T_BURST(T_BURST),
                      .T_REFI(T_REFI), .T_RFC(T_RFC), .INFLIGHT(HBM_INFLIGHT), .TAG_W(HTAG)) u_hbm (
            .clk(clk), .rst(rst), .req_valid(hbm_v), .req_ready(hbm_ready), .req_we(hbm_we),
            .req_idx(hbm_idx), .req_data(hbm_wdat), .req_tag(i_slot),
            .rsp_valid(hbm_rsp_v), .rsp_tag(hbm_rsp_tag), .rsp_data(hbm_rsp_data),
            .now(hbm_now), .iss_valid(hbm_iss_valid), .iss_done(hbm_iss_done), .idle(hbm_idle));
    end else begin : g_nohbm
        assign hbm_ready = 1'b0; assign hbm_rsp_v = 1'b0; assign hbm_rsp_tag = {HTAG{1'b0}};
        assign hbm_rsp_data = 512'd0; assign hbm_now = 32'd0; assign hbm_iss_valid = 1'b0;
        assign hbm_iss_done = 32'd0; assign hbm_idle = 1'b1;
    end endgenerate
    assign hbm_iss_we  = hbm_we;
    assign hbm_iss_idx = hbm_idx;

    integer s;
    always @(posedge clk) begin
        if (rst) begin
            for (s = 0; s < SETS; s = s + 1) c_tv[s] <= 1'b0;
        end else if (hbm_v && hbm_ready && hbm_we) begin
            c_tv[hbm_idx] <= 1'b1;
            c_tg[hbm_idx] <= i_uses_hbm ? i_la : fq_la;
        end
    end

    // ------------------------------------------------------------------ CXL requests
    reg [127:0] q_req;
    always @* begin
        q_req = 128'd0;
        q_req[CXL_M2S_REQ_MEMOP_LSB +: CXL_M2S_REQ_MEMOP_W]         = CXL_M2S_REQ_OP_MEMRD;
        q_req[CXL_M2S_REQ_METAFIELD_LSB +: CXL_M2S_REQ_METAFIELD_W] = META_NOOP;
        q_req[CXL_M2S_REQ_TAG_LSB +: CXL_M2S_REQ_TAG_W]             = 16'(i_slot);
        q_req[CXL_M2S_REQ_ADDR_LSB +: CXL_M2S_REQ_ADDR_W]           = i_la;
    end
    wire [45:0]  rwd_la   = wb_drain ? wb_addr[wb_di] : i_la;
    wire [15:0]  rwd_tag  = wb_drain ? {1'b1, 15'(wb_di)} : 16'(i_slot);
    wire [511:0] rwd_dat  = wb_drain ? wb_data[wb_di] : i_ld;
    reg [127:0] q_rwd;
    always @* begin
        q_rwd = 128'd0;
        q_rwd[CXL_M2S_RWD_MEMOP_LSB +: CXL_M2S_RWD_MEMOP_W]         = CXL_M2S_RWD_OP_MEMWR;
        q_rwd[CXL_M2S_RWD_METAFIELD_LSB +: CXL_M2S_RWD_METAFIELD_W] = META_NOOP;
        q_rwd[CXL_M2S_RWD_TAG_LSB +: CXL_M2S_RWD_TAG_W]             = rwd_tag;
        q_rwd[CXL_M2S_RWD_ADDR_LSB +: CXL_M2S_RWD_ADDR_W]           = rwd_la;
    end
    reg [127:0] q_d2h;
    always @* begin
        q_d2h = 128'd0;
        q_d2h[CXL_D2H_REQ_OPCODE_LSB +: CXL_D2H_REQ_OPCODE_W] = CXL_D2H_REQ_OP_RDCURR;
        q_d2h[CXL_D2H_REQ_CQID_LSB +: CXL_D2H_REQ_CQID_W]     = 12'(i_slot);
        q_d2h[CXL_D2H_REQ_ADDR_LSB +: CXL_D2H_REQ_ADDR_W]     = i_la;
    end
    skid_buffer #(.WIDTH(128)) u_req (.clk(clk), .rst(rst), .s_valid(f_memrd), .s_ready(req_s_ready),
        .s_data(q_req), .m_valid(m2s_req_valid), .m_ready(m2s_req_ready), .m_data(m2s_req_hdr));
    skid_buffer #(.WIDTH(640)) u_rwd (.clk(clk), .rst(rst), .s_valid(wb_drain || f_direct),
        .s_ready(rwd_s_ready), .s_data({rwd_dat, q_rwd}), .m_valid(m2s_rwd_valid),
        .m_ready(m2s_rwd_ready), .m_data({m2s_rwd_data, m2s_rwd_hdr}));
    skid_buffer #(.WIDTH(128)) u_d2h (.clk(clk), .rst(rst), .s_valid(f_coh), .s_ready(d2h_s_ready),
        .s_data(q_d2h), .m_valid(d2h_req_valid), .m_ready(d2h_req_ready), .m_data(d2h_req_hdr));

    // ------------------------------------------------------------------ CXL responses
    assign s2m_drs_ready  = 1'b1;    // space is reserved in the ROB
    assign s2m_ndr_ready  = 1'b1;
    assign h2d_data_ready = 1'b1;
    wire [15:0]   ndr_tag  = s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: 16];
    wire [RW+1:0] ndr_slot = ndr_tag[RW+1:0];
    wire          ndr_wb   = (BUF_EN != 0) && ndr_tag[15] && (ndr_tag[14:0] < 15'(WB_DEPTH)) &&
                             (wb_st[ndr_tag[WW-1:0]] == WB_FLY);
    wire          ndr_rob  = !ndr_tag[15] && (ndr_tag[14:RW+2] == 0) && l_pend[ndr_slot] && l_wr[ndr_slot];
    wire [11:0]   h2d_cq   = h2d_data_hdr[CXL_H2D_DH_CQID_LSB +: 12];
    wire [RW+1:0] h2d_slot = h2d_cq[RW+1:0];
    wire          h2d_ok   = (h2d_cq[11:RW+2] == 0) && l_pend[h2d_slot] && !l_wr[h2d_slot];
    wire          proto_err = (drs_fire && !drs_ok) || (s2m_ndr_valid && !ndr_wb && !ndr_rob) ||
                              (h2d_data_valid && !h2d_ok);

    // write buffer state
    integer b;
    always @(posedge clk) begin
        if (rst) begin
            for (b = 0; b < WB_DEPTH; b = b + 1) wb_st[b] <= WB_FREE;
        end else begin
            if (wb_drain) wb_st[wb_di] <= WB_FLY;
            if (s2m_ndr_valid && ndr_wb) wb_st[ndr_tag[WW-1:0]] <= WB_FREE;
            if (f_wbins) begin
                wb_st[wb_fi] <= WB_PEND; wb_addr[wb_fi] <= i_la; wb_data[wb_fi] <= i_ld;
            end
            if (f_wbco) wb_data[wb_mi] <= i_ld;
        end
    end
    reg wb_any;
    integer b2;
    always @* begin
        wb_any = 1'b0;
        for (b2 = 0; b2 < WB_DEPTH; b2 = b2 + 1) if (wb_st[b2] != WB_FREE) wb_any = 1'b1;
    end
    assign wb_empty = !wb_any && hbm_idle && !fq_v;

    // ------------------------------------------------------------------ ROB update
    wire [RW-1:0] tx_head = rob_head;
    reg  [2:0]    tx_beat;
    wire          h_rd    = rob_rd[tx_head];
    wire [2:0]    h_nl    = rob_nl[tx_head];
    reg           h_all;
    integer k2;
    always @* begin
        h_all = 1'b1;
        for (k2 = 0; k2 < 4; k2 = k2 + 1) if (!l_done[{tx_head, 2'(k2)}]) h_all = 1'b0;
    end
    wire [3:0]    h_st    = (rob_st[tx_head] == ST_OK && rob_nxm[tx_head]) ? ST_CXL_ERR : rob_st[tx_head];
    wire          h_data  = h_rd && (h_st == ST_OK);
    wire [2:0]    h_beats = h_data ? h_nl : 3'd0;          // data beats after the header
    wire          tx_fire = xl_tx_valid && xl_tx_ready;
    wire          tx_end  = tx_fire && xl_tx_last;

    integer l;
    always @(posedge clk) begin
        if (rst) begin
            rob_head <= {RW{1'b0}}; rob_tail <= {RW{1'b0}}; rob_cnt <= {(RW+1){1'b0}};
            tx_beat <= 3'd0;
            for (l = 0; l < NROB; l = l + 1) rob_v[l] <= 1'b0;
            for (l = 0; l < NL; l = l + 1) begin l_done[l] <= 1'b0; l_pend[l] <= 1'b0; end
        end else begin
            rob_cnt <= rob_cnt + {{RW{1'b0}}, enter} - {{RW{1'b0}}, tx_end};
            if (enter) begin
                rob_v[rob_tail] <= 1'b1; rob_rd[rob_tail] <= !e_wr; rob_hdr[rob_tail] <= e_hdr;
                rob_st[rob_tail] <= e_st; rob_nl[rob_tail] <= e_nl; rob_nxm[rob_tail] <= 1'b0;
                for (l = 0; l < 4; l = l + 1) begin
                    l_done[{rob_tail, 2'(l)}] <= (3'(l) >= e_nl);
                    l_pend[{rob_tail, 2'(l)}] <= 1'b0;
                    l_wr[{rob_tail, 2'(l)}]   <= e_wr;
                    l_addr[{rob_tail, 2'(l)}] <= e_hpa + 46'(l);
                end
                rob_tail <= rob_tail + 1'b1;
            end
            // issue-stage results
            if (f_fire) begin
                if (f_fwd) begin
                    l_data[i_slot] <= wb_data[wb_mi]; l_done[i_slot] <= 1'b1;
                end else if (f_wbins || f_wbco) begin
                    l_done[i_slot] <= 1'b1;
                end else if (f_memrd || f_coh || f_direct) begin
                    l_pend[i_slot] <= 1'b1;
                end
            end
            if (hbm_rsp_v) begin
                l_data[hbm_rsp_tag] <= hbm_rsp_data; l_done[hbm_rsp_tag] <= 1'b1;
            end
            if (drs_fire && drs_ok) begin
                l_data[drs_slot] <= s2m_drs_data; l_done[drs_slot] <= 1'b1; l_pend[drs_slot] <= 1'b0;
                if (drs_nxm) rob_nxm[drs_slot[RW+1:2]] <= 1'b1;
            end
            if (s2m_ndr_valid && ndr_rob) begin
                l_done[ndr_slot] <= 1'b1; l_pend[ndr_slot] <= 1'b0;
            end
            if (h2d_data_valid && h2d_ok) begin
                l_data[h2d_slot] <= h2d_data_data; l_done[h2d_slot] <= 1'b1; l_pend[h2d_slot] <= 1'b0;
            end
            // response out
            if (tx_fire) tx_beat <= tx_beat + 3'd1;
            if (tx_end) begin
                tx_beat <= 3'd0;
                rob_v[tx_head] <= 1'b0;
                rob_head <= rob_head + 1'b1;
            end
        end
    end

    wire [95:0] hh = rob_hdr[tx_head];
    wire [3:0]  h_op = (h_st != ST_OK) ? OP_ERR : (h_rd ? OP_RD_DATA : OP_WR_ACK);
    wire [95:0] rsp_hdr = {hh[95:F_TAG], h_st, h_op};   // echoes tag, src, len, addr
    assign xl_tx_valid = rob_v[tx_head] && h_all;
    assign xl_tx_last  = (tx_beat == h_beats);
    assign xl_tx_data  = (tx_beat == 3'd0) ? {416'd0, rsp_hdr}
                                           : l_data[{tx_head, 2'(tx_beat - 3'd1)}];

    // ------------------------------------------------------------------ statistics / debug
    always @(posedge clk) begin
        if (rst) begin
            stat_err <= 16'd0; stat_proto_err <= 16'd0; stat_hit <= 32'd0; stat_fwd <= 32'd0;
            stat_miss <= 32'd0; stat_ht_hit <= 32'd0;
        end else begin
            if (tx_fire && tx_beat == 3'd0 && h_st != ST_OK && stat_err != 16'hFFFF)
                stat_err <= stat_err + 16'd1;
            if (proto_err && stat_proto_err != 16'hFFFF) stat_proto_err <= stat_proto_err + 16'd1;
            if (f_fire && f_hbm_rd) stat_hit <= stat_hit + 32'd1;
            if (f_fire && f_fwd) stat_fwd <= stat_fwd + 32'd1;
            if (f_fire && f_memrd) stat_miss <= stat_miss + 32'd1;
            if (s1_to_i && s1_hit) stat_ht_hit <= stat_ht_hit + 32'd1;
        end
    end
    // header bits the bridge does not interpret
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, s2m_ndr_hdr, s2m_drs_hdr, h2d_data_hdr, t_hpa, hh[7:0], hbm_wdat};
    /* verilator lint_on UNUSEDSIGNAL */
    assign dbg_line_valid = f_fire;
    assign dbg_line_kind  = f_kind;
    assign dbg_line_seq   = i_seq;
    assign dbg_req_valid  = enter;
    assign dbg_req_seq    = seq_cnt;
    assign dbg_req_hthit  = s1_to_i && s1_hit;
endmodule
