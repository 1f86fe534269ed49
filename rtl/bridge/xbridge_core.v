// XLink-CXL bridge core (issue 5). XLink side: packets as 512-bit beats with `last` (header beat =
// 64 B UALink TL flit or 16 B NVLink header flit in [127:0]; data beats = 64 B, packet-relative).
// CXL side: canonical CXL.mem M2S Req/RwD out, S2M NDR/DRS in; CXL.cache toward the coherence
// agent for the coherent sub-range: D2H Req (RdCurr, ItoMWr) and D2H Data out, H2D Rsp
// (GO_WritePull) and H2D Data in. Field layout and policies: rtl/bridge/README.md.
//
// Pipeline: parser (P) -> S1 check + header-table lookup + shift of the data to line positions ->
// S2 translate/build (skipped on a table hit) -> I issue (one 64 B line per cycle, ROB slot
// allocated on entry; a partial-line write first reads its line: read-modify-write) -> ROB
// (outstanding-request table, CXL tag = TAG_BASE + {slot, line}) -> in-order responses. Buffer
// (BUF_EN=1): hot-line cache in the HBM model (every HBM write, fills included, goes through a
// write queue that sets the tag on entry; HBM reads complete out of order, tagged), write buffer
// with coalescing and read forwarding.
module xbridge_core #(
    parameter integer FLAVOR     = 0,                 // 0 UALink-style, 1 NVLink-style
    parameter [63:0]  WIN_BASE   = 64'h1_0000_0000,   // XLink unified-address window
    parameter [63:0]  WIN_SIZE   = 64'h100_0000,
    parameter [63:0]  HPA_BASE   = 64'h40_0000_0000,  // CXL host physical address of the window
    parameter [63:0]  COH_OFF    = 64'hF0_0000,       // coherent sub-range (window offsets, 64 B aligned)
    parameter [63:0]  COH_SIZE   = 64'h10_0000,
    parameter integer BUF_EN     = 1,
    parameter integer SETS       = 16,                // hot-line cache lines (power of two, >= 4)
    parameter integer WR_ALLOC   = 1,
    parameter integer HT_ENTRIES = 8,                 // pre-converted header table (power of two)
    parameter integer WB_DEPTH   = 8,
    parameter integer WQ_DEPTH   = 4,                 // HBM write queue (fills + write updates), >= 2
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
    parameter integer T_RFC      = 160,
    parameter integer REF_POSTPONE = 8,               // refreshes per bank the HBM may postpone
    parameter integer REF_IDLE   = 32,                // HBM idle cycles before owed refreshes run
    parameter [15:0]  TAG_BASE   = 16'h0000           // CXL.mem tags = TAG_BASE + local tag (README)
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
    output wire         d2h_data_valid,
    input  wire         d2h_data_ready,
    output wire [127:0] d2h_data_hdr,
    output wire [511:0] d2h_data_data,
    input  wire         h2d_rsp_valid,
    output wire         h2d_rsp_ready,
    input  wire [127:0] h2d_rsp_hdr,
    input  wire         h2d_data_valid,
    output wire         h2d_data_ready,
    input  wire [127:0] h2d_data_hdr,
    input  wire [511:0] h2d_data_data,
    // status
    output reg  [15:0]  stat_err,        // XLink requests answered with ERR (saturating)
    output reg  [15:0]  stat_proto_err,  // CXL responses with an unknown tag / opcode (dropped)
    output reg  [31:0]  stat_hit,        // read lines answered from the hot-line cache
    output reg  [31:0]  stat_fwd,        // read lines forwarded from the write buffer
    output reg  [31:0]  stat_miss,       // read lines sent to CXL.mem
    output reg  [31:0]  stat_ht_hit,     // requests that skipped translation
    output reg  [31:0]  stat_rmw,        // partial-line writes that had to read their line
    output wire         wb_empty,
    // debug (testbench): per issued line and per request entering issue
    output wire         dbg_line_valid,
    output wire [2:0]   dbg_line_kind,   // 0 mem rd, 1 hit, 2 wb fwd, 3 coh rd, 4 wb wr, 5 wr, 6 wb wr hit, 7 coh wr
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
                     ST_BAD_ALIGN = 4'd4, ST_COH_PTL = 4'd5, ST_CXL_ERR = 4'd6;
    localparam [2:0] K_MEMRD = 3'd0, K_HIT = 3'd1, K_FWD = 3'd2, K_COH = 3'd3, K_WBWR = 3'd4,
                     K_WR = 3'd5, K_WBWR_HIT = 3'd6, K_COHWR = 3'd7;
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

    // 16 B chunk mask of a line as a 512-bit byte-lane mask
    function automatic [511:0] cmask(input [3:0] m);
        cmask = {{128{m[3]}}, {128{m[2]}}, {128{m[1]}}, {128{m[0]}}};
    endfunction

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
    // UALink: 64..256 B in 64 B steps; NVLink: 2..16 data flits of 16 B
    wire        c_len_ok = (FLAVOR == 0) ? ((c_lenf[5:0] == 6'd0) && (c_lenf[8:6] >= 3'd1) && (c_lenf[8:6] <= 3'd4))
                                         : ((c_lenf >= 9'd2) && (c_lenf <= 9'd16));
    wire [4:0]  c_nch  = c_bytes[8:4];                       // 16 B chunks (valid when c_len_ok)
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
    wire [63:0] c_a64 = {12'd0, c_addr};
    wire [63:0] c_end = c_a64 + {51'd0, c_bytes};
    wire        c_win_ok = (c_a64 >= WIN_BASE) && (c_end <= WIN_END);
    reg  [3:0]  c_st;
    always @* begin
        if (c_op != OP_READ && c_op != OP_WRITE)  c_st = ST_BAD_OP;
        else if (!c_len_ok || !c_beats_ok)        c_st = ST_BAD_LEN;
        else if (!c_align_ok)                     c_st = ST_BAD_ALIGN;
        else if (!c_win_ok)                       c_st = ST_BAD_ADDR;
        else                                      c_st = ST_OK;   // COH_PTL is found in S2
    end
    // chunk mask over the (up to) 4 lines, and which lines are partial
    wire [16:0] c_hi   = (17'd1 << c_gend) - 17'd1;
    wire [16:0] c_lo   = (17'd1 << c_s) - 17'd1;
    wire [15:0] c_mask = c_hi[15:0] & ~c_lo[15:0];
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

    reg         s1_v, s1_wr, s1_hit;
    reg [3:0]   s1_st, s1_op;
    reg [95:0]  s1_hdr;
    reg [2:0]   s1_nl;
    reg [45:0]  s1_hpa;
    reg [3:0]   s1_coh, s1_pl;
    reg [15:0]  s1_mask;
    reg [511:0] s1_line [0:3];

    // ------------------------------------------------------------------ S2: translate + build
    wire [51:0] s1_addr = s1_hdr[F_ADDR +: 52];
    wire [63:0] t_off   = {12'd0, s1_addr[51:6], 6'd0} - WIN_BASE;
    wire [63:0] t_hpa   = t_off + HPA_BASE;
    reg  [3:0]  t_coh;
    integer k;
    always @* begin
        for (k = 0; k < 4; k = k + 1)
            t_coh[k] = ((t_off + 64'(64 * k)) >= COH_OFF) && ((t_off + 64'(64 * k)) < COH_END);
    end
    // a partial line in the coherent range cannot be written (no byte enables toward the home)
    wire [3:0]  t_st = (s1_st == ST_OK && s1_wr && |(t_coh & s1_pl)) ? ST_COH_PTL : s1_st;
    reg         s2_v, s2_wr;
    reg [3:0]   s2_st;
    reg [95:0]  s2_hdr;
    reg [2:0]   s2_nl;
    reg [45:0]  s2_hpa;
    reg [3:0]   s2_coh;
    reg [15:0]  s2_mask;
    reg [511:0] s2_line [0:3];

    // ------------------------------------------------------------------ ROB / outstanding table
    reg           rob_v    [0:NROB-1];
    reg           rob_rd   [0:NROB-1];
    reg [95:0]    rob_hdr  [0:NROB-1];
    reg [3:0]     rob_st   [0:NROB-1];
    reg           rob_nxm  [0:NROB-1];
    reg           l_done   [0:NL-1];
    reg           l_pend   [0:NL-1];   // a CXL op of the line is outstanding (mem/coh read, direct or coh write)
    reg           l_wr     [0:NL-1];   // ... and it is a write
    reg           l_rd     [0:NL-1];   // the read of a read-modify-write is outstanding
    reg           l_cw     [0:NL-1];   // coherent write waiting for GO_WritePull
    reg           l_nxm    [0:NL-1];
    reg [45:0]    l_addr   [0:NL-1];
    reg [511:0]   l_data   [0:NL-1];
    reg [RW-1:0]  rob_head, rob_tail;
    reg [RW:0]    rob_cnt;
    wire          rob_free = (rob_cnt != NROB[RW:0]);

    // ------------------------------------------------------------------ I: issue
    reg         i_v, i_wr, i_ph;
    reg [1:0]   i_line;
    reg [2:0]   i_nl;
    reg [45:0]  i_hpa;
    reg [3:0]   i_coh;
    reg [15:0]  i_mask;
    reg [RW-1:0] i_rob;
    reg [15:0]  i_seq;
    reg [511:0] i_ldat [0:3];
    reg [15:0]  seq_cnt;

    wire [45:0] i_la    = i_hpa + {44'd0, i_line};
    wire        i_lcoh  = i_coh[i_line];
    wire [511:0] i_ld   = i_ldat[i_line];
    wire [3:0]  i_lm    = i_mask[4 * i_line +: 4];
    wire        i_part  = (i_lm != 4'hF);
    wire        i_p0    = i_wr && i_part && !i_ph;     // partial write line, nothing read yet
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

    // outputs through skid buffers (valid/payload held stable toward CXL)
    wire req_s_ready, rwd_s_ready, d2h_s_ready, dd_s_ready;
    wire hbm_ready;
    wire wb_drain = (BUF_EN != 0) && wb_pend_any && rwd_s_ready;

    // HBM write queue state (declared here, driven below)
    wire wq_in_ready, wq_out_valid;
    wire drs_fill;
    wire wq_ok_i  = (BUF_EN != 0) && wq_in_ready && !drs_fill;   // the issue stage may push
    wire hrd_ok   = hbm_ready && !wq_out_valid;                  // a read may go to HBM: no queued write ahead

    // write data: phase 1 of a read-modify-write merges the request's chunks into the line read back
    wire [511:0] i_rmw  = (l_data[i_slot] & ~cmask(i_lm)) | (i_ld & cmask(i_lm));
    wire [511:0] w_new  = i_ph ? i_rmw : i_ld;
    wire [3:0]   w_mask = i_p0 ? i_lm : 4'hF;
    wire [511:0] co_dat = (wb_data[wb_mi] & ~cmask(w_mask)) | (w_new & cmask(w_mask));

    // issue decision for the current line
    reg        f_fire, f_memrd, f_coh, f_cohwr, f_hbm_rd, f_fwd, f_wq, f_wbins, f_wbco, f_direct;
    reg        f_rmw_mem, f_rmw_hbm, f_skip;
    reg [2:0]  f_kind;
    reg        w_hit, w_co;
    always @* begin
        f_fire = 1'b0; f_memrd = 1'b0; f_coh = 1'b0; f_cohwr = 1'b0; f_hbm_rd = 1'b0; f_fwd = 1'b0;
        f_wq = 1'b0; f_wbins = 1'b0; f_wbco = 1'b0; f_direct = 1'b0;
        f_rmw_mem = 1'b0; f_rmw_hbm = 1'b0; f_skip = 1'b0;
        f_kind = K_MEMRD;
        w_hit = i_chit;
        w_co  = wb_mp && !(wb_drain && wb_di == wb_mi);   // coalesce unless the drain takes it now
        if (i_v && !hazard) begin
            if (!i_wr) begin
                if (i_lcoh) begin
                    f_kind = K_COH; f_coh = d2h_s_ready; f_fire = d2h_s_ready;
                end else if (i_chit) begin
                    f_kind = K_HIT; f_hbm_rd = hrd_ok; f_fire = hrd_ok;
                end else if ((BUF_EN != 0) && (wb_mp || wb_mf)) begin
                    // forward, and fill the line (every read miss fills)
                    f_kind = K_FWD; f_fwd = wq_ok_i; f_wq = wq_ok_i; f_fire = wq_ok_i;
                end else begin
                    f_kind = K_MEMRD; f_memrd = req_s_ready; f_fire = req_s_ready;
                end
            end else if (i_lcoh) begin
                // coherent full line: ItoMWr, the data follows on GO_WritePull
                f_kind = K_COHWR; f_cohwr = d2h_s_ready; f_fire = d2h_s_ready;
            end else if (i_ph && l_rd[i_slot]) begin
                f_kind = K_WR;                                 // waiting for the line of a RMW
            end else if (i_ph && l_nxm[i_slot]) begin
                f_kind = K_WR; f_skip = 1'b1; f_fire = 1'b1;   // its read failed: not written
            end else if (BUF_EN != 0) begin
                f_kind = w_hit ? K_WBWR_HIT : K_WBWR;
                if (!wb_mf && (w_co || (!wb_mp && wb_free_any && !i_p0)) &&
                    (wq_ok_i || !(w_hit || WR_ALLOC != 0))) begin
                    f_fire  = 1'b1;
                    f_wbco  = w_co;
                    f_wbins = !w_co;
                    f_wq    = w_hit || (WR_ALLOC != 0);
                end else if (i_p0 && !wb_mf && !wb_mp) begin
                    // partial line not in the write buffer: read it (cache or CXL) first
                    if (i_chit) f_rmw_hbm = hrd_ok;
                    else        f_rmw_mem = req_s_ready;
                end
            end else if (i_p0) begin
                f_kind = K_WR; f_rmw_mem = req_s_ready;
            end else begin
                f_kind = K_WR;
                f_direct = rwd_s_ready;                        // wb_drain is 0 without a buffer
                f_fire = f_direct;
            end
        end
    end
    wire f_rmw  = f_rmw_mem || f_rmw_hbm;
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
    wire [15:0] e_mask = s2_to_i ? s2_mask : s1_mask;

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
                s1_mask <= c_mask; s1_pl <= c_pl;
                for (j = 0; j < 4; j = j + 1) s1_line[j] <= c_shf[512 * j +: 512];
            end else if (s1_out) s1_v <= 1'b0;
            if (s1_to_s2) begin
                s2_v <= 1'b1;
                s2_st <= t_st; s2_wr <= s1_wr; s2_hdr <= s1_hdr; s2_nl <= s1_nl; s2_mask <= s1_mask;
                s2_hpa <= t_hpa[51:6]; s2_coh <= t_coh;
                for (j = 0; j < 4; j = j + 1) s2_line[j] <= s1_line[j];
                if (t_st == ST_OK) begin
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
            i_v <= 1'b0; i_ph <= 1'b0; i_line <= 2'd0; seq_cnt <= 16'd0; i_seq <= 16'd0;
            i_rob <= {RW{1'b0}};
        end else begin
            if (f_fire) begin i_line <= i_line + 2'd1; i_ph <= 1'b0; end
            if (f_rmw) i_ph <= 1'b1;
            if (i_last) i_v <= 1'b0;
            if (enter) begin
                seq_cnt <= seq_cnt + 16'd1;
                i_seq   <= seq_cnt;
                if (e_nl != 3'd0) begin
                    i_v <= 1'b1; i_line <= 2'd0; i_ph <= 1'b0; i_nl <= e_nl; i_wr <= e_wr;
                    i_hpa <= e_hpa; i_coh <= e_coh; i_mask <= e_mask; i_rob <= rob_tail;
                    for (j2 = 0; j2 < 4; j2 = j2 + 1) i_ldat[j2] <= s2_to_i ? s2_line[j2] : s1_line[j2];
                end
            end
        end
    end

    // ------------------------------------------------------------------ CXL responses (decode)
    wire          drs_fire = s2m_drs_valid && s2m_drs_ready;
    wire [15:0]   drs_tag  = s2m_drs_hdr[CXL_S2M_DRS_TAG_LSB +: 16] - TAG_BASE;   // local tag
    wire [RW+1:0] drs_slot = drs_tag[RW+1:0];
    wire          drs_ok   = (drs_tag[15:RW+2] == 0) && l_pend[drs_slot] && !l_wr[drs_slot];
    wire          drs_nxm  = s2m_drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: 3] == CXL_S2M_DRS_OP_MEMDATA_NXM;
    // a read-miss line is filled as it arrives (the read of a RMW is not)
    assign        drs_fill = (BUF_EN != 0) && drs_fire && drs_ok && !drs_nxm && !l_rd[drs_slot];
    // a full write queue holds the DRS back instead of dropping the fill
    assign s2m_drs_ready = (BUF_EN == 0) || wq_in_ready;

    // ------------------------------------------------------------------ HBM write queue + model
    localparam integer WQW = SW + 512;        // {buffer index, line}
    wire [WQW-1:0] wq_out;
    wire [SW-1:0]  wq_ix_o = wq_out[512 +: SW];
    wire [511:0]   wq_d_o  = wq_out[0 +: 512];
    wire           wq_push = drs_fill || f_wq;
    wire [45:0]    wq_la_i = drs_fill ? l_addr[drs_slot] : i_la;
    wire [511:0]   wq_d_i  = drs_fill ? s2m_drs_data : (f_fwd ? wb_data[wb_mi] : (f_wbco ? co_dat : w_new));
    wire           wq_pop;
    wire          hbm_rsp_v;
    wire [HTAG-1:0] hbm_rsp_tag;
    wire [511:0]  hbm_rsp_data;
    wire          hbm_idle;
    // queued writes have the port first; a read goes only when the queue is empty
    wire          hbm_v    = wq_out_valid || f_hbm_rd || f_rmw_hbm;
    wire          hbm_we   = wq_out_valid;
    wire [SW-1:0] hbm_idx  = wq_out_valid ? wq_ix_o : i_set;
    assign        wq_pop   = wq_out_valid && hbm_ready;

    generate if (BUF_EN != 0) begin : g_hbm
        /* verilator lint_off UNUSEDSIGNAL */
        wire [$clog2(WQ_DEPTH+1)-1:0] wq_count;
        wire hbm_ref_v, hbm_ref_f;                    // refresh debug (the bench peeks at them)
        wire [$clog2(NPC*NBANK)-1:0] hbm_ref_b;
        /* verilator lint_on UNUSEDSIGNAL */
        sync_fifo #(.WIDTH(WQW), .DEPTH(WQ_DEPTH)) u_wq (
            .clk(clk), .rst(rst), .in_valid(wq_push), .in_ready(wq_in_ready),
            .in_data({wq_la_i[SW-1:0], wq_d_i}), .out_valid(wq_out_valid), .out_ready(wq_pop),
            .out_data(wq_out), .count(wq_count));
        xb_hbm_ctrl #(.SETS(SETS), .NPC(NPC), .NBANK(NBANK), .ROW_LINES(ROW_LINES),
                      .T_CL(T_CL), .T_RCD(T_RCD), .T_RP(T_RP), .T_RAS(T_RAS), .T_BURST(T_BURST),
                      .T_REFI(T_REFI), .T_RFC(T_RFC), .REF_POSTPONE(REF_POSTPONE),
                      .REF_IDLE(REF_IDLE), .INFLIGHT(HBM_INFLIGHT), .TAG_W(HTAG)) u_hbm (
            .clk(clk), .rst(rst), .req_valid(hbm_v), .req_ready(hbm_ready), .req_we(hbm_we),
            .req_idx(hbm_idx), .req_data(wq_d_o), .req_tag(i_slot),
            .rsp_valid(hbm_rsp_v), .rsp_tag(hbm_rsp_tag), .rsp_data(hbm_rsp_data),
            .now(hbm_now), .iss_valid(hbm_iss_valid), .iss_done(hbm_iss_done),
            .ref_valid(hbm_ref_v), .ref_forced(hbm_ref_f), .ref_bank(hbm_ref_b), .idle(hbm_idle));
    end else begin : g_nohbm
        assign wq_in_ready = 1'b0; assign wq_out_valid = 1'b0; assign wq_out = {WQW{1'b0}};
        assign hbm_ready = 1'b0; assign hbm_rsp_v = 1'b0; assign hbm_rsp_tag = {HTAG{1'b0}};
        assign hbm_rsp_data = 512'd0; assign hbm_now = 32'd0; assign hbm_iss_valid = 1'b0;
        assign hbm_iss_done = 32'd0; assign hbm_idle = 1'b1;
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_nb = &{1'b0, wq_d_i, wq_d_o, wq_pop, hbm_v};
        /* verilator lint_on UNUSEDSIGNAL */
    end endgenerate
    assign hbm_iss_we  = hbm_we;
    assign hbm_iss_idx = hbm_idx;

    // tags change when a line enters the write queue: fills are never dropped and a hit read waits
    // for the queue, so a lookup after the line's data reached the bridge always sees it
    integer s;
    always @(posedge clk) begin
        if (rst) begin
            for (s = 0; s < SETS; s = s + 1) c_tv[s] <= 1'b0;
        end else if (wq_push && wq_in_ready) begin
            c_tv[wq_la_i[SW-1:0]] <= 1'b1;
            c_tg[wq_la_i[SW-1:0]] <= wq_la_i;
        end
    end

    // ------------------------------------------------------------------ CXL requests
    reg [127:0] q_req;
    always @* begin
        q_req = 128'd0;
        q_req[CXL_M2S_REQ_MEMOP_LSB +: CXL_M2S_REQ_MEMOP_W]         = CXL_M2S_REQ_OP_MEMRD;
        q_req[CXL_M2S_REQ_METAFIELD_LSB +: CXL_M2S_REQ_METAFIELD_W] = META_NOOP;
        q_req[CXL_M2S_REQ_TAG_LSB +: CXL_M2S_REQ_TAG_W]             = 16'(i_slot) + TAG_BASE;
        q_req[CXL_M2S_REQ_ADDR_LSB +: CXL_M2S_REQ_ADDR_W]           = i_la;
    end
    wire [45:0]  rwd_la   = wb_drain ? wb_addr[wb_di] : i_la;
    wire [15:0]  rwd_tag  = (wb_drain ? {1'b1, 15'(wb_di)} : 16'(i_slot)) + TAG_BASE;
    wire [511:0] rwd_dat  = wb_drain ? wb_data[wb_di] : w_new;
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
        q_d2h[CXL_D2H_REQ_OPCODE_LSB +: CXL_D2H_REQ_OPCODE_W] = i_wr ? CXL_D2H_REQ_OP_ITOMWR
                                                                      : CXL_D2H_REQ_OP_RDCURR;
        q_d2h[CXL_D2H_REQ_CQID_LSB +: CXL_D2H_REQ_CQID_W]     = 12'(i_slot);
        q_d2h[CXL_D2H_REQ_ADDR_LSB +: CXL_D2H_REQ_ADDR_W]     = i_la;
    end
    skid_buffer #(.WIDTH(128)) u_req (.clk(clk), .rst(rst), .in_valid(f_memrd || f_rmw_mem),
        .in_ready(req_s_ready), .in_data(q_req), .out_valid(m2s_req_valid), .out_ready(m2s_req_ready),
        .out_data(m2s_req_hdr));
    skid_buffer #(.WIDTH(640)) u_rwd (.clk(clk), .rst(rst), .in_valid(wb_drain || f_direct),
        .in_ready(rwd_s_ready), .in_data({rwd_dat, q_rwd}), .out_valid(m2s_rwd_valid),
        .out_ready(m2s_rwd_ready), .out_data({m2s_rwd_data, m2s_rwd_hdr}));
    skid_buffer #(.WIDTH(128)) u_d2h (.clk(clk), .rst(rst), .in_valid(f_coh || f_cohwr),
        .in_ready(d2h_s_ready), .in_data(q_d2h), .out_valid(d2h_req_valid), .out_ready(d2h_req_ready),
        .out_data(d2h_req_hdr));

    // ------------------------------------------------------------------ CXL responses
    assign s2m_ndr_ready  = 1'b1;    // space is reserved in the ROB
    assign h2d_data_ready = 1'b1;
    wire [15:0]   ndr_tag  = s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: 16] - TAG_BASE;   // local tag
    wire [RW+1:0] ndr_slot = ndr_tag[RW+1:0];
    wire          ndr_wb   = (BUF_EN != 0) && ndr_tag[15] && (ndr_tag[14:0] < 15'(WB_DEPTH)) &&
                             (wb_st[ndr_tag[WW-1:0]] == WB_FLY);
    wire          ndr_rob  = !ndr_tag[15] && (ndr_tag[14:RW+2] == 0) && l_pend[ndr_slot] &&
                             l_wr[ndr_slot] && !l_cw[ndr_slot];
    wire [11:0]   h2d_cq   = h2d_data_hdr[CXL_H2D_DH_CQID_LSB +: 12];
    wire [RW+1:0] h2d_slot = h2d_cq[RW+1:0];
    wire          h2d_ok   = (h2d_cq[11:RW+2] == 0) && l_pend[h2d_slot] && !l_wr[h2d_slot];
    // GO_WritePull of a coherent write: the line goes out on D2H Data with the pulled UQID
    assign h2d_rsp_ready = dd_s_ready;
    wire          hr_fire  = h2d_rsp_valid && h2d_rsp_ready;
    wire [11:0]   hr_cq    = h2d_rsp_hdr[CXL_H2D_RSP_CQID_LSB +: 12];
    wire [RW+1:0] hr_slot  = hr_cq[RW+1:0];
    wire          hr_ok    = (hr_cq[11:RW+2] == 0) && l_pend[hr_slot] && l_cw[hr_slot] &&
                             (h2d_rsp_hdr[CXL_H2D_RSP_OPCODE_LSB +: 4] == CXL_H2D_RSP_OP_GO_WRITEPULL);
    wire          dd_push  = hr_fire && hr_ok;
    reg [127:0] q_dd;
    always @* begin
        q_dd = 128'd0;
        q_dd[CXL_D2H_DH_UQID_LSB +: CXL_D2H_DH_UQID_W] = h2d_rsp_hdr[CXL_H2D_RSP_RSPDATA_LSB +: 12];
    end
    skid_buffer #(.WIDTH(640)) u_dd (.clk(clk), .rst(rst), .in_valid(dd_push), .in_ready(dd_s_ready),
        .in_data({l_data[hr_slot], q_dd}), .out_valid(d2h_data_valid), .out_ready(d2h_data_ready),
        .out_data({d2h_data_data, d2h_data_hdr}));
    wire          proto_err = (drs_fire && !drs_ok) || (s2m_ndr_valid && !ndr_wb && !ndr_rob) ||
                              (h2d_data_valid && !h2d_ok) || (hr_fire && !hr_ok);

    // write buffer state
    integer wbi;
    always @(posedge clk) begin
        if (rst) begin
            for (wbi = 0; wbi < WB_DEPTH; wbi = wbi + 1) wb_st[wbi] <= WB_FREE;
        end else begin
            if (wb_drain) wb_st[wb_di] <= WB_FLY;
            if (s2m_ndr_valid && ndr_wb) wb_st[ndr_tag[WW-1:0]] <= WB_FREE;
            if (f_wbins) begin
                wb_st[wb_fi] <= WB_PEND; wb_addr[wb_fi] <= i_la; wb_data[wb_fi] <= w_new;
            end
            if (f_wbco) wb_data[wb_mi] <= co_dat;
        end
    end
    reg wb_any;
    integer wbj;
    always @* begin
        wb_any = 1'b0;
        for (wbj = 0; wbj < WB_DEPTH; wbj = wbj + 1) if (wb_st[wbj] != WB_FREE) wb_any = 1'b1;
    end
    assign wb_empty = !wb_any && hbm_idle && !wq_out_valid;

    // ------------------------------------------------------------------ ROB update
    wire [RW-1:0] tx_head = rob_head;
    reg  [2:0]    tx_beat;
    wire [95:0]   hh      = rob_hdr[tx_head];
    wire          h_rd    = rob_rd[tx_head];
    wire [8:0]    h_lenf  = hh[F_LEN +: 9];
    wire [4:0]    h_nch   = (FLAVOR == 0) ? h_lenf[8:4] : h_lenf[4:0];
    wire [1:0]    h_s     = (FLAVOR == 0) ? 2'd0 : hh[F_ADDR + 4 +: 2];
    wire [5:0]    h_nb6   = ({1'b0, h_nch} + 6'd3) >> 2;
    reg           h_all;
    integer k2;
    always @* begin
        h_all = 1'b1;
        for (k2 = 0; k2 < 4; k2 = k2 + 1) if (!l_done[{tx_head, 2'(k2)}]) h_all = 1'b0;
    end
    wire [3:0]    h_st    = (rob_st[tx_head] == ST_OK && rob_nxm[tx_head]) ? ST_CXL_ERR : rob_st[tx_head];
    wire          h_data  = h_rd && (h_st == ST_OK);
    wire [2:0]    h_beats = h_data ? h_nb6[2:0] : 3'd0;          // data beats after the header
    wire          tx_fire = xl_tx_valid && xl_tx_ready;
    wire          tx_end  = tx_fire && xl_tx_last;

    integer l;
    always @(posedge clk) begin
        if (rst) begin
            rob_head <= {RW{1'b0}}; rob_tail <= {RW{1'b0}}; rob_cnt <= {(RW+1){1'b0}};
            tx_beat <= 3'd0;
            for (l = 0; l < NROB; l = l + 1) rob_v[l] <= 1'b0;
            for (l = 0; l < NL; l = l + 1) begin
                l_done[l] <= 1'b0; l_pend[l] <= 1'b0; l_rd[l] <= 1'b0; l_cw[l] <= 1'b0;
            end
        end else begin
            rob_cnt <= rob_cnt + {{RW{1'b0}}, enter} - {{RW{1'b0}}, tx_end};
            if (enter) begin
                rob_v[rob_tail] <= 1'b1; rob_rd[rob_tail] <= !e_wr; rob_hdr[rob_tail] <= e_hdr;
                rob_st[rob_tail] <= e_st; rob_nxm[rob_tail] <= 1'b0;
                for (l = 0; l < 4; l = l + 1) begin
                    l_done[{rob_tail, 2'(l)}] <= (3'(l) >= e_nl);
                    l_pend[{rob_tail, 2'(l)}] <= 1'b0;
                    l_wr[{rob_tail, 2'(l)}]   <= e_wr;
                    l_rd[{rob_tail, 2'(l)}]   <= 1'b0;
                    l_cw[{rob_tail, 2'(l)}]   <= 1'b0;
                    l_nxm[{rob_tail, 2'(l)}]  <= 1'b0;
                    l_addr[{rob_tail, 2'(l)}] <= e_hpa + 46'(l);
                end
                rob_tail <= rob_tail + 1'b1;
            end
            // issue-stage results
            if (f_fire) begin
                if (f_fwd) begin
                    l_data[i_slot] <= wb_data[wb_mi]; l_done[i_slot] <= 1'b1;
                end else if (f_wbins || f_wbco || f_skip) begin
                    l_done[i_slot] <= 1'b1;
                end else if (f_memrd || f_coh) begin
                    l_pend[i_slot] <= 1'b1; l_wr[i_slot] <= 1'b0;
                end else if (f_direct) begin
                    l_pend[i_slot] <= 1'b1; l_wr[i_slot] <= 1'b1;
                end else if (f_cohwr) begin
                    l_pend[i_slot] <= 1'b1; l_wr[i_slot] <= 1'b1; l_cw[i_slot] <= 1'b1;
                    l_data[i_slot] <= i_ld;
                end
            end
            if (f_rmw) begin
                l_rd[i_slot] <= 1'b1;
                if (f_rmw_mem) begin l_pend[i_slot] <= 1'b1; l_wr[i_slot] <= 1'b0; end
            end
            if (hbm_rsp_v) begin
                l_data[hbm_rsp_tag] <= hbm_rsp_data;
                if (l_rd[hbm_rsp_tag]) l_rd[hbm_rsp_tag] <= 1'b0; else l_done[hbm_rsp_tag] <= 1'b1;
            end
            if (drs_fire && drs_ok) begin
                l_data[drs_slot] <= s2m_drs_data; l_pend[drs_slot] <= 1'b0;
                if (l_rd[drs_slot]) l_rd[drs_slot] <= 1'b0; else l_done[drs_slot] <= 1'b1;
                if (drs_nxm) begin
                    l_nxm[drs_slot] <= 1'b1; rob_nxm[drs_slot[RW+1:2]] <= 1'b1;
                end
            end
            if (s2m_ndr_valid && ndr_rob) begin
                l_done[ndr_slot] <= 1'b1; l_pend[ndr_slot] <= 1'b0;
            end
            if (h2d_data_valid && h2d_ok) begin
                l_data[h2d_slot] <= h2d_data_data; l_done[h2d_slot] <= 1'b1; l_pend[h2d_slot] <= 1'b0;
            end
            if (dd_push) begin
                l_done[hr_slot] <= 1'b1; l_pend[hr_slot] <= 1'b0; l_cw[hr_slot] <= 1'b0;
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

    // read data back to packet positions: beat b = chunks s+4b .. s+4b+3 of the lines, zero past the end
    wire [1:0]    tb_b    = 2'(tx_beat - 3'd1);
    wire [1023:0] tb_two  = {l_data[{tx_head, tb_b + 2'd1}], l_data[{tx_head, tb_b}]};
    wire [1023:0] tb_shf  = tb_two >> {h_s, 7'd0};
    reg  [3:0]    tb_keep;
    integer k3;
    always @* begin
        for (k3 = 0; k3 < 4; k3 = k3 + 1)
            tb_keep[k3] = ({1'b0, tb_b, 2'(k3)} < h_nch);
    end
    wire [3:0]  h_op = (h_st != ST_OK) ? OP_ERR : (h_rd ? OP_RD_DATA : OP_WR_ACK);
    wire [95:0] rsp_hdr = {hh[95:F_TAG], h_st, h_op};   // echoes tag, src, len, addr
    assign xl_tx_valid = rob_v[tx_head] && h_all;
    assign xl_tx_last  = (tx_beat == h_beats);
    assign xl_tx_data  = (tx_beat == 3'd0) ? {416'd0, rsp_hdr} : (tb_shf[511:0] & cmask(tb_keep));

    // ------------------------------------------------------------------ statistics / debug
    always @(posedge clk) begin
        if (rst) begin
            stat_err <= 16'd0; stat_proto_err <= 16'd0; stat_hit <= 32'd0; stat_fwd <= 32'd0;
            stat_miss <= 32'd0; stat_ht_hit <= 32'd0; stat_rmw <= 32'd0;
        end else begin
            if (tx_fire && tx_beat == 3'd0 && h_st != ST_OK && stat_err != 16'hFFFF)
                stat_err <= stat_err + 16'd1;
            if (proto_err && stat_proto_err != 16'hFFFF) stat_proto_err <= stat_proto_err + 16'd1;
            if (f_fire && f_hbm_rd) stat_hit <= stat_hit + 32'd1;
            if (f_fire && f_fwd) stat_fwd <= stat_fwd + 32'd1;
            if (f_fire && f_memrd) stat_miss <= stat_miss + 32'd1;
            if (s1_to_i && s1_hit) stat_ht_hit <= stat_ht_hit + 32'd1;
            if (f_rmw) stat_rmw <= stat_rmw + 32'd1;
        end
    end
    // header bits the bridge does not interpret
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, s2m_ndr_hdr, s2m_drs_hdr, h2d_data_hdr, h2d_rsp_hdr, t_hpa, t_off,
                       hh[7:0], h_lenf, c_hi[16], c_lo[16], c_nb6, c_nl6, h_nb6, tb_shf[1023:512]};
    /* verilator lint_on UNUSEDSIGNAL */
    assign dbg_line_valid = f_fire;
    assign dbg_line_kind  = f_kind;
    assign dbg_line_seq   = i_seq;
    assign dbg_req_valid  = enter;
    assign dbg_req_seq    = seq_cnt;
    assign dbg_req_hthit  = s1_to_i && s1_hit;
endmodule
