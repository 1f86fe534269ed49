// One line lane of the XLink-CXL bridge (rtl/bridge/README.md, "Lanes"). The bridge splits every
// request into 64 B lines; lane LANE owns the lines whose CXL line address is LANE modulo LANES, so
// everything that orders or caches a line (issue order, hazards, hot-line cache share, write
// buffer, HBM controller, CXL.mem / CXL.cache ports) is inside one lane and lanes never talk to each
// other. The core pushes one entry per request that has lines here (the lane's lines of that
// request, in request order); the lane issues one line per cycle and reports each line's
// completion (with its data for reads) to the core's reorder buffer, keyed by the line's slot.
//
// Issue, per line (first applicable rule; a blocked line holds the lane):
//   read : coherent -> D2H RdCurr; hot-line cache hit -> HBM read; line in the write buffer ->
//          forwarded (and filled into the cache); else CXL.mem MemRd. A read waits while a direct or
//          coherent write of its hazard counter is in flight.
//   write: coherent (full line) -> D2H ItoMWr, data on GO_WritePull; partial line not in the write
//          buffer -> read it first (cache or MemRd, read-modify-write); BUF_EN=1 -> write buffer
//          (coalesce into the line's entry, or take a free entry once no CXL read of its hazard
//          counter is out); BUF_EN=0 -> direct MemWr, waiting while a read or write of its hazard
//          counter is in flight.
// Write buffer: WBS fully associative entries; an entry holds one line in one of FREE / PEND
// (waiting to drain) / FLY (MemWr sent, waiting for its NDR) / FLYP (in flight and newer data
// pending: drains again after the NDR), so one line never has two writes in flight and a read
// always finds the newest data. Hazard counters (line index mod 2*NLINE/LANES: CXL reads; direct /
// coherent writes in flight) keep CXL.mem reads and writes of one line in order (M2S Req and RwD
// are unordered).
// Timing: the issue stage reads registered lookups. Next to every queued entry the lane keeps, per
// line, its cache hit, write-buffer matches and hazard flags; they are made in the cycle the entry
// is pushed (so it issues from the cycle after its push) and follow every later change (write-
// buffer inserts and frees, cache tag writes, hazard counter updates). A DRS fill's tag is
// written one cycle after its data entered the HBM write queue; HBM read data is registered before
// it completes a line or a read-modify-write.
`default_nettype none
module xb_lane #(
    parameter integer LANE         = 0,     // lane number: owns lines with (line address % LANES) == LANE
    parameter integer LANES        = 1,     // lanes of the bridge: 1 or 2
    parameter integer NLL          = 4,     // lines of one request this lane can own: 4 / LANES
    parameter integer NLINE        = 16,    // line slots of the core's reorder buffer (power of two, 4..4096)
    parameter integer BUF_EN       = 1,     // 1: hot-line cache, HBM and write buffer; 0: direct CXL
    parameter integer WR_ALLOC     = 1,     // a write miss allocates its line in the cache
    parameter integer SETS_L       = 16,    // hot-line cache lines of this lane (power of two, >= 2)
    parameter integer WBS          = 8,     // write-buffer entries of this lane (power of two, >= 2)
    parameter integer WQ_DEPTH     = 4,     // HBM write queue (>= 2)
    parameter integer LQ_DEPTH     = 2,     // request entries queued in front of the lane (>= 2)
    parameter integer CW_DEPTH     = 2,     // coherent writes waiting for GO_WritePull (>= 1)
    parameter integer HBM_INFLIGHT = 8,     // HBM accesses in flight in this lane's controller
    parameter integer NPC          = 2,     // HBM pseudo-channels of this lane (power of two, >= 2)
    parameter integer NBANK        = 4,
    parameter integer ROW_LINES    = 16,
    parameter integer T_CL         = 13,
    parameter integer T_RCD        = 20,
    parameter integer T_RP         = 17,
    parameter integer T_RAS        = 29,
    parameter integer T_BURST      = 3,
    parameter integer T_REFI       = 3900,
    parameter integer T_RFC        = 160,
    parameter integer REF_POSTPONE = 8,
    parameter integer REF_IDLE     = 32,
    parameter [15:0]  TAG_BASE     = 16'h0000,
    localparam integer LSW         = $clog2(NLINE),
    localparam integer NCW         = $clog2(NLL + 1),
    localparam integer QW          = 16 + 1 + NCW + 46 * NLL + LSW * NLL + NLL + 4 * NLL + 512 * NLL,
    localparam integer SW          = $clog2(SETS_L)
) (
    input  wire             clk,
    input  wire             rst,
    // request entries: {data[NLL], mask[NLL], coh[NLL], slot[NLL], line address[NLL], lines, wr, seq}
    // (every line's address and slot come with the entry: no add between the queue and the issue)
    input  wire             q_valid,
    output wire             q_ready,
    input  wire [QW-1:0]    q_data,
    // line completions toward the reorder buffer: 0 issue (forward / write buffered / skipped),
    // 1 S2M DRS, 2 HBM read, 3 H2D Data, 4 H2D Rsp (coherent write done, or an error answer),
    // 5 S2M NDR of a direct write. Events 0-3 may carry data (cpl_dv).
    output wire [5:0]       cpl_v,
    output wire [6*LSW-1:0] cpl_ls,
    output wire [5:0]       cpl_err,
    output wire [3:0]       cpl_dv,
    output wire [4*512-1:0] cpl_data,
    // CXL.mem
    output wire             m2s_req_valid,
    input  wire             m2s_req_ready,
    output wire [127:0]     m2s_req_hdr,
    output wire             m2s_rwd_valid,
    input  wire             m2s_rwd_ready,
    output wire [127:0]     m2s_rwd_hdr,
    output wire [511:0]     m2s_rwd_data,
    input  wire             s2m_ndr_valid,
    output wire             s2m_ndr_ready,
    input  wire [127:0]     s2m_ndr_hdr,
    input  wire             s2m_drs_valid,
    output wire             s2m_drs_ready,
    input  wire [127:0]     s2m_drs_hdr,
    input  wire [511:0]     s2m_drs_data,
    // CXL.cache
    output wire             d2h_req_valid,
    input  wire             d2h_req_ready,
    output wire [127:0]     d2h_req_hdr,
    output wire             d2h_data_valid,
    input  wire             d2h_data_ready,
    output wire [127:0]     d2h_data_hdr,
    output wire [511:0]     d2h_data_data,
    input  wire             h2d_rsp_valid,
    output wire             h2d_rsp_ready,
    input  wire [127:0]     h2d_rsp_hdr,
    input  wire             h2d_data_valid,
    output wire             h2d_data_ready,
    input  wire [127:0]     h2d_data_hdr,
    input  wire [511:0]     h2d_data_data,
    // events for the core's statistics, registered (one cycle after the issue)
    output wire             ev_hit,        // a read line went to the HBM (cache hit)
    output wire             ev_fwd,        // a read line was forwarded from the write buffer
    output wire             ev_miss,       // a read line went to CXL.mem
    output wire             ev_rmw,        // a partial write line read its line
    output wire [2:0]       ev_proto,      // CXL responses dropped (unknown tag / opcode), registered
    output wire             wb_empty,      // nothing buffered, in flight to HBM or queued for it
    // debug
    output wire             dbg_line_valid,
    output wire [2:0]       dbg_line_kind,
    output wire [15:0]      dbg_line_seq,
    output wire [31:0]      hbm_now,
    output wire             hbm_iss_valid,
    output wire [31:0]      hbm_iss_done,
    output wire             hbm_iss_we,
    output wire [SW-1:0]    hbm_iss_idx
);
`include "cxl_defs.vh"
    localparam integer LB   = $clog2(LANES);
    localparam integer WW   = $clog2(WBS);
    localparam integer HZ   = 2 * NLINE / LANES;        // hazard counters (line index mod HZ)
    localparam integer HZW  = $clog2(HZ);
    localparam integer JW   = $clog2(NLL);
    localparam integer CNW  = $clog2(NLINE + 1);
    localparam integer CWW  = (CW_DEPTH > 1) ? $clog2(CW_DEPTH) : 1;
    localparam integer O_LA = 17 + NCW;
    localparam integer O_LS = O_LA + 46 * NLL;
    localparam integer O_CO = O_LS + LSW * NLL;
    localparam integer O_MK = O_CO + NLL;
    localparam integer O_DT = O_MK + 4 * NLL;
    localparam [2:0] K_MEMRD = 3'd0, K_HIT = 3'd1, K_FWD = 3'd2, K_COH = 3'd3, K_WBWR = 3'd4,
                     K_WR = 3'd5, K_WBWR_HIT = 3'd6, K_COHWR = 3'd7;
    localparam [1:0] WB_FREE = 2'd0, WB_PEND = 2'd1, WB_FLY = 2'd2, WB_FLYP = 2'd3;
    localparam [1:0] META_NOOP = 2'b11;
    localparam [15:0] WB_TAG0 = 16'h8000 + 16'(LANE * WBS);   // local tag of write-buffer slot 0

    // illegal parameters are refused at elaboration
    generate
        if (LANES != 1 && LANES != 2) begin : g_bad_lanes
            xb_lane_parameter_error_LANES_must_be_1_or_2 u_stop ();
        end
        if (LANE < 0 || LANE >= LANES) begin : g_bad_lane
            xb_lane_parameter_error_LANE_must_be_below_LANES u_stop ();
        end
        if (NLL * LANES != 4) begin : g_bad_nll
            xb_lane_parameter_error_NLL_must_be_4_per_LANES u_stop ();
        end
        if (NLINE < 4 || NLINE > 4096 || (NLINE & (NLINE - 1)) != 0) begin : g_bad_nline
            xb_lane_parameter_error_NLINE_must_be_a_power_of_two_in_4_to_4096_12_bit_CQID u_stop ();
        end
        if (SETS_L < 2 || (SETS_L & (SETS_L - 1)) != 0 || LB + SW > 45) begin : g_bad_sets
            xb_lane_parameter_error_SETS_L_must_be_a_power_of_two_at_least_2_leaving_a_tag_bit u_stop ();
        end
        if (WBS < 2 || (WBS & (WBS - 1)) != 0 || LANES * WBS > 16'h4000) begin : g_bad_wbs
            xb_lane_parameter_error_WBS_must_be_a_power_of_two_2_to_0x4000_per_LANES u_stop ();
        end
        if (WQ_DEPTH < 2 || LQ_DEPTH < 2 || CW_DEPTH < 1) begin : g_bad_q
            xb_lane_parameter_error_WQ_DEPTH_LQ_DEPTH_at_least_2_and_CW_DEPTH_at_least_1_required u_stop ();
        end
    endgenerate

    // one of four CNW-bit values by a one-hot select (AND-OR)
    function automatic [CNW-1:0] sel4(input [3:0] oh, input [4*CNW-1:0] v);
        integer f;
        begin
            sel4 = {CNW{1'b0}};
            for (f = 0; f < 4; f = f + 1) sel4 = sel4 | (v[CNW * f +: CNW] & {CNW{oh[f]}});
        end
    endfunction

    // 16 B chunk mask of a line as a 512-bit byte-lane mask
    function automatic [511:0] cmask(input [3:0] m);
        cmask = {{128{m[3]}}, {128{m[2]}}, {128{m[1]}}, {128{m[0]}}};
    endfunction

    // ------------------------------------------------------------------ request queue, current line
    // LQ_DEPTH entries in a circular buffer, the head at q_rp; q_lk: the slot holds an entry (its
    // lookups are made in the cycle it is pushed, see "lookups").
    localparam integer QA = (LQ_DEPTH > 1) ? $clog2(LQ_DEPTH) : 1;
    localparam integer QC = $clog2(LQ_DEPTH + 1);
    localparam [QA-1:0] Q_LAST = QA'(LQ_DEPTH - 1);
    reg  [QW-1:0]       q_mem [0:LQ_DEPTH-1];
    reg  [QA-1:0]       q_wp, q_rp;
    reg  [QC-1:0]       q_cnt;
    reg  [LQ_DEPTH-1:0] q_lk;
    wire                q_pop;
    wire                q_push = q_valid && q_ready;
    assign              q_ready = (q_cnt != QC'(LQ_DEPTH));
    wire [QW-1:0]       q_o = q_mem[q_rp];

    wire [15:0]      e_seq  = q_o[0 +: 16];
    wire             e_wr   = q_o[16];
    wire [NLL-1:0]   e_coh  = q_o[O_CO +: NLL];
    wire [4*NLL-1:0] e_mask = q_o[O_MK +: 4 * NLL];

    reg  [JW-1:0]  i_line;                 // line of the entry being issued
    reg            i_ph;                   // its read-modify-write read has been issued
    wire [45:0]    i_la   = q_o[O_LA + 46 * i_line +: 46];
    wire [LSW-1:0] i_ls   = q_o[O_LS + LSW * i_line +: LSW];
    wire [45:0]    i_li   = i_la >> LB;    // line index inside the lane
    wire           i_lcoh = e_coh[i_line];
    wire [3:0]     i_lm   = e_mask[4 * i_line +: 4];
    wire [511:0]   i_ld   = q_o[O_DT + 512 * i_line +: 512];
    wire           i_part = q_pt[{q_rp, i_line}];
    wire           i_p0   = e_wr && i_part && !i_ph;   // partial write line, nothing read yet

    // ------------------------------------------------------------------ cache tags, write buffer
    // a set's tag is the line address above its set index (the set index and the lane bits
    // below it are the set's and the lane's own, equal for every line stored there)
    localparam integer TGL = LB + SW;      // lowest tag bit of a line address
    reg            c_tv [0:SETS_L-1];
    reg [45-TGL:0] c_tg [0:SETS_L-1];
    reg [SETS_L-1:0]          c_tvf;       // the same, flat (xb_lane_tg's inputs)
    reg [SETS_L*(46-TGL)-1:0] c_tgf;
    integer tf;
    always @* begin
        for (tf = 0; tf < SETS_L; tf = tf + 1) begin
            c_tvf[tf] = c_tv[tf];
            c_tgf[(46 - TGL) * tf +: 46 - TGL] = c_tg[tf];
        end
    end
    wire [SW-1:0]  i_set  = i_li[SW-1:0];
    reg [1:0]      wb_st   [0:WBS-1];
    reg [45:0]     wb_addr [0:WBS-1];
    reg [511:0]    wb_data [0:WBS-1];
    // changes of this cycle the lookups follow (assigned below): the issue stage's cache tag write
    // (of the head line, set i_set), the write-buffer entry a new line is inserted into (one-hot),
    // and the fill whose tag is written in this cycle (fl_v, fl_la: a DRS fill of the previous
    // cycle) unless the issue stage's write of the same line cancels it (fl_kill)
    wire           tw_i;
    wire           wb_new;                 // a new line enters the write buffer ...
    wire [WBS-1:0] wb_ins;                 // ... into this entry
    wire [WBS-1:0] wb_nf;                  // an NDR frees this entry (its write is done)
    wire           rd_inc, wr_inc;         // the head line's read / write counter counts up
    wire [HZ-1:0]  hz_ra, hz_rb, hz_wa, hz_wb;   // each counter nonzero after this cycle, without /
                                                 // with the issue's increment (g_hz)
    reg            fl_v;
    reg  [45:0]    fl_la;
    wire [SW-1:0]  fl_set = fl_la[LB +: SW];
    wire           fl_kill;

    // ------------------------------------------------------------------ lookups
    // Per queued line (slot s, line j, bit NLL*s + j): q_cm, the hot-line cache holds the line;
    // q_am (bits WBS*(NLL*s + j) + k), write-buffer entry k holds its address; q_wm, an entry in
    // use holds it; q_rz / q_wz, its read / write hazard counter is nonzero; q_pt, it is a partial
    // line. An entry's are made in the cycle it is pushed, from the incoming entry (its line
    // addresses come from registers in the core) against the tags, the write-buffer addresses and
    // the counters, and in that cycle and every later one each follows the cycle's changes: an
    // insert into entry k sets q_am of k to "the head line is this line"; a tag write of set x
    // sets q_cm of the lines of set x to "the written line is this line" (the issue stage's write
    // after a fill's); q_wm is the OR of the entries in use after the cycle (insert, NDR) holding
    // it; q_rz / q_wz are the counter's nonzero flag after the cycle, picked from the flags
    // without and with the increment. The queued lines' compares are between registers (the head
    // line's and the fill's addresses against every queued line's), so none is in series with the
    // issue decision; they are a module of their own (xb_lane_lk), so a late change signal (the
    // issue decision) meets their results in the last gates instead of being merged into them.
    reg  [LQ_DEPTH*NLL-1:0]     q_cm, q_wm, q_rz, q_wz, q_pt;
    reg  [LQ_DEPTH*NLL*WBS-1:0] q_am;
    wire [LQ_DEPTH*NLL-1:0]     q_cm_n, q_wm_n, q_rz_n, q_wz_n;
    wire [LQ_DEPTH*NLL*WBS-1:0] q_am_n;
    reg  [WBS-1:0]              wb_lv;         // write-buffer entry in use
    integer wl;
    always @* begin
        for (wl = 0; wl < WBS; wl = wl + 1) wb_lv[wl] = (wb_st[wl] != WB_FREE);
    end
    // one line's lookups after this cycle's changes, from the compares (xb_lane_lk) and its
    // lookups before the changes (cache hit c0, write-buffer address matches a0): the late change
    // signals select in the last gates
    function automatic [WBS+3:0] lk_next(input c0, input [WBS-1:0] a0, input ei, input si,
                                         input ef, input fw, input wmo, input eh, input [3:0] hz4);
        begin
            lk_next[0] = (tw_i && si) ? ei : (fw ? (ef && !fl_kill) : c0);        // cache hit
            lk_next[1] = (wb_new && ei) || wmo;                                   // in the buffer
            lk_next[2] = (rd_inc && eh) ? hz4[1] : hz4[0];                        // read counter
            lk_next[3] = (wr_inc && eh) ? hz4[3] : hz4[2];                        // write counter
            lk_next[4 +: WBS] = (wb_ins & {WBS{ei}}) | (~wb_ins & a0);            // address matches
        end
    endfunction
    genvar gs, gj, gk;
    // the incoming entry's lines (for the slot being pushed)
    wire [NLL*(WBS+4)-1:0] n_lk;
    generate for (gj = 0; gj < NLL; gj = gj + 1) begin : g_in
        wire [45:0]    la  = q_data[O_LA + 46 * gj +: 46];
        wire [SW-1:0]  set = la[LB +: SW];
        (* keep *) wire c0;                     // the tags hold it
        (* keep *) wire [WBS-1:0] a0;           // the write-buffer entries holding its address
        wire tv;                                // its set's valid bit and tag (xb_lane_tg: the
        wire [45-TGL:0] tg;                     // set select ahead of the compare)
        xb_lane_tg #(.SETS(SETS_L), .TW(46 - TGL)) u_tg (
            .tv(c_tvf), .tg(c_tgf), .set(set), .v(tv), .t(tg));
        assign c0 = tv && (tg == la[45:TGL]);
        for (gk = 0; gk < WBS; gk = gk + 1) begin : g_k
            assign a0[gk] = (wb_addr[gk] == la);
        end
        wire ei, si, ef, fw, wmo, eh;
        wire [3:0] hz4;
        xb_lane_lk #(.WBS(WBS), .SW(SW), .HZW(HZW), .HZ(HZ), .LB(LB)) u_lk (
            .la(la), .a0(a0), .i_la(i_la), .i_set(i_set), .i_hs(i_hs), .fl_la(fl_la),
            .fl_set(fl_set), .fl_v(fl_v), .wb_lv(wb_lv), .wb_nf(wb_nf),
            .hz_ra(hz_ra), .hz_rb(hz_rb), .hz_wa(hz_wa), .hz_wb(hz_wb),
            .ei(ei), .si(si), .ef(ef), .fw(fw), .wmo(wmo), .eh(eh), .hz4(hz4));
        assign n_lk[(WBS + 4) * gj +: WBS + 4] = lk_next(c0, a0, ei, si, ef, fw, wmo, eh, hz4);
    end endgenerate
    // the queued lines
    generate for (gs = 0; gs < LQ_DEPTH; gs = gs + 1) begin : g_qs
        wire ps = q_push && (q_wp == QA'(gs));  // this slot takes the incoming entry
        for (gj = 0; gj < NLL; gj = gj + 1) begin : g_qj
            localparam integer L = NLL * gs + gj;
            wire ei, si, ef, fw, wmo, eh;
            wire [3:0] hz4;
            xb_lane_lk #(.WBS(WBS), .SW(SW), .HZW(HZW), .HZ(HZ), .LB(LB)) u_lk (
                .la(q_mem[gs][O_LA + 46 * gj +: 46]), .a0(q_am[WBS * L +: WBS]), .i_la(i_la),
                .i_set(i_set), .i_hs(i_hs), .fl_la(fl_la), .fl_set(fl_set), .fl_v(fl_v),
                .wb_lv(wb_lv), .wb_nf(wb_nf), .hz_ra(hz_ra), .hz_rb(hz_rb), .hz_wa(hz_wa),
                .hz_wb(hz_wb), .ei(ei), .si(si), .ef(ef), .fw(fw), .wmo(wmo), .eh(eh), .hz4(hz4));
            wire [WBS+3:0] nx = ps ? n_lk[(WBS + 4) * gj +: WBS + 4] :
                                     lk_next(q_cm[L], q_am[WBS * L +: WBS], ei, si, ef, fw, wmo, eh, hz4);
            assign q_cm_n[L] = nx[0];
            assign q_wm_n[L] = nx[1];
            assign q_rz_n[L] = nx[2];
            assign q_wz_n[L] = nx[3];
            assign q_am_n[WBS * L +: WBS] = nx[4 +: WBS];
        end
    end endgenerate
    integer qp;
    always @(posedge clk) begin
        if (rst) begin
            q_wp <= {QA{1'b0}}; q_rp <= {QA{1'b0}}; q_cnt <= {QC{1'b0}};
            q_lk <= {LQ_DEPTH{1'b0}};
        end else begin
            if (q_push) begin
                q_wp <= (q_wp == Q_LAST) ? {QA{1'b0}} : q_wp + 1'b1;
                q_lk[q_wp] <= 1'b1;
            end
            if (q_pop) begin
                q_rp <= (q_rp == Q_LAST) ? {QA{1'b0}} : q_rp + 1'b1;
                q_lk[q_rp] <= 1'b0;
            end
            case ({q_push, q_pop})
                2'b10:   q_cnt <= q_cnt + 1'b1;
                2'b01:   q_cnt <= q_cnt - 1'b1;
                default: q_cnt <= q_cnt;
            endcase
        end
        // storage and lookups need no reset: a slot is read only once its entry was written
        if (q_push) q_mem[q_wp] <= q_data;
        for (qp = 0; qp < NLL; qp = qp + 1)
            if (q_push) q_pt[NLL * q_wp + qp] <= (q_data[O_MK + 4 * qp +: 4] != 4'hF);
        q_cm <= q_cm_n; q_am <= q_am_n; q_wm <= q_wm_n; q_rz <= q_rz_n; q_wz <= q_wz_n;
    end

    // the head line: cache hit, and the write-buffer entry holding it (at most one) from its
    // address match and the entry's state, else the lowest free entry (from the states only). The
    // entry used is a one-hot (wb_uoh) and its data an AND-OR select.
    wire           i_chit = (BUF_EN != 0) && !i_lcoh && q_cm[{q_rp, i_line}];
    wire [WBS-1:0] i_am   = q_am[WBS * {q_rp, i_line} +: WBS];
    reg  [WBS-1:0] wb_fr, wb_ff;
    integer wm;
    always @* begin
        for (wm = 0; wm < WBS; wm = wm + 1) wb_fr[wm] = (wb_st[wm] == WB_FREE);
        wb_ff = wb_fr & ~(wb_fr - 1'b1);                // lowest free entry, one-hot
    end
    wire [WBS-1:0] wb_hv    = i_am & wb_lv;                 // the entry holding it (one-hot or 0)
    wire           wb_hit   = q_wm[{q_rp, i_line}];         // = |wb_hv, registered
    wire           i_wmatch = (BUF_EN != 0) && wb_hit;
    // a free entry for a new line, registered: after a cycle some entry is free when an NDR frees
    // one, or two were free, or one was and no line entered
    reg            wb_fq;
    reg  [WBS-1:0] wb_fb;                               // [k]: an entry below k is free
    integer wf;
    always @* begin
        wb_fb[0] = 1'b0;
        for (wf = 1; wf < WBS; wf = wf + 1) wb_fb[wf] = wb_fb[wf - 1] || wb_fr[wf - 1];
    end
    (* keep *) wire wb_f2;                              // at least two entries are free
    assign wb_f2 = |(wb_fr & wb_fb);
    always @(posedge clk) begin
        if (rst) wb_fq <= 1'b1;
        else     wb_fq <= (|wb_nf) || wb_f2 || ((|wb_fr) && !wb_new);
    end
    wire [WBS-1:0] wb_uoh   = wb_hit ? wb_hv : wb_ff;   // the entry the line's write uses
    // data of the hit entry (a forward, a coalescing write) and of the used entry
    reg  [511:0]   wb_hdat;
    integer wd;
    always @* begin
        wb_hdat = 512'd0;
        for (wd = 0; wd < WBS; wd = wd + 1) wb_hdat = wb_hdat | (wb_data[wd] & {512{wb_hv[wd]}});
    end

    // hazard counters (line index mod HZ, in g_hz below): CXL reads outstanding, direct /
    // coherent writes outstanding; lines sharing a counter are ordered conservatively. Every
    // queued line keeps its counters' nonzero flags registered (q_rz, q_wz, see "lookups"); i_hs
    // is the head line's counter index.
    wire [HZW-1:0] i_hs    = i_li[HZW-1:0];

    // per line slot: what this lane has outstanding on CXL for it
    // (reads: ls_dk, ls_dc, ls_cr below)
    reg            ls_wr  [0:NLINE-1];     // a direct MemWr (BUF_EN=0)
    reg [45:0]     ls_la  [0:NLINE-1];     // the line address

    // read-modify-write: the line read back (the lane holds at the line meanwhile)
    reg            rmw_wait, rmw_hbm, rmw_nxm;
    reg [LSW-1:0]  rmw_ls;
    reg [511:0]    rmw_data;

    // coherent writes waiting for GO_WritePull
    reg            cw_v  [0:CW_DEPTH-1];
    reg [LSW-1:0]  cw_ls [0:CW_DEPTH-1];
    reg [511:0]    cw_d  [0:CW_DEPTH-1];
    reg            cw_free_any;
    reg [CWW-1:0]  cw_fi;
    integer cf;
    always @* begin
        cw_free_any = 1'b0; cw_fi = {CWW{1'b0}};
        for (cf = CW_DEPTH - 1; cf >= 0; cf = cf - 1)
            if (!cw_v[cf]) begin cw_free_any = 1'b1; cw_fi = CWW'(cf); end
    end

    // ------------------------------------------------------------------ outputs toward CXL
    wire req_s_ready, rwd_s_ready, d2h_s_ready, dd_s_ready;
    wire hbm_ready;
    wire           hbm_rsp_v;          // HBM read data, tagged with the line slot
    wire [LSW-1:0] hbm_rsp_tag;
    wire [511:0]   hbm_rsp_data;
    // HBM read data registered before it completes a line or a read-modify-write (the controller's
    // completion pick and data select end at its outputs)
    reg            hb_v;
    reg [LSW-1:0]  hb_tag;
    reg [511:0]    hb_data;
    always @(posedge clk) begin
        if (rst) hb_v <= 1'b0;
        else     hb_v <= hbm_rsp_v;
        hb_tag  <= hbm_rsp_tag;
        hb_data <= hbm_rsp_data;
    end
    wire           hbm_idle;
    wire wq_in_ready, wq_out_valid;
    wire drs_fill;
    // the issue stage may use the write queue when no DRS is offered: a DRS fill has the queue
    // first (its ready is the queue's room alone), and the issue stage does not wait for its header
    wire wq_ok_i = (BUF_EN != 0) && wq_in_ready && !s2m_drs_valid;
    wire hrd_ok  = hbm_ready && !wq_out_valid;                  // an HBM read overtakes no queued write

    // write buffer drain: the first PEND entry at or after the round-robin pointer (rr_arbiter: a
    // one-hot grant from the pointer mask, no index arithmetic). No CXL read of a buffered line can
    // be outstanding: a line enters the buffer only when no read of its slot is, and a read of a
    // buffered line is forwarded.
    reg  [WBS-1:0] dr_req;                              // entries in PEND (registered with wb_st)
    wire [WBS-1:0] dr_g;
    wire [WW-1:0]  dr_gi;
    wire           dr_any;
    wire wb_drain = (BUF_EN != 0) && dr_any && rwd_s_ready;
    rr_arbiter #(.N(WBS)) u_dr (.clk(clk), .rst(rst), .req(dr_req), .advance(wb_drain), .grant(dr_g),
        .grant_idx(dr_gi), .any(dr_any));
    // the drained entry's address, data and CXL tag (a constant per entry) as AND-OR selects
    reg  [45:0]    dr_la;
    reg  [511:0]   dr_dat;
    reg  [15:0]    dr_tag;
    integer dq;
    always @* begin
        dr_la = 46'd0; dr_dat = 512'd0; dr_tag = 16'd0;
        for (dq = 0; dq < WBS; dq = dq + 1) begin
            dr_la  = dr_la  | (wb_addr[dq] & {46{dr_g[dq]}});
            dr_dat = dr_dat | (wb_data[dq] & {512{dr_g[dq]}});
            dr_tag = dr_tag | ((WB_TAG0 + 16'(dq) + TAG_BASE) & {16{dr_g[dq]}});
        end
    end

    // write data: phase 1 of a read-modify-write merges the request's chunks into the line read back
    wire [511:0] w_rmw  = (rmw_data & ~cmask(i_lm)) | (i_ld & cmask(i_lm));
    wire [511:0] w_new  = i_ph ? w_rmw : i_ld;
    wire [3:0]   w_mask = i_p0 ? i_lm : 4'hF;
    wire [511:0] co_dat = (wb_hdat & ~cmask(w_mask)) | (w_new & cmask(w_mask));

    // ------------------------------------------------------------------ issue decision
    // The rules of the header, written as early terms (k_*: the head line's fields, its registered
    // lookups and hazard flags, and the registered ready of the skid buffers and coherent-write
    // slots) that the late conditions qualify in the last gates: hrd_ok (the HBM controller's
    // ready) and wq_ok_i (no DRS offered).
    // The early terms are formed for every queued line as if it were the head line (its slot's
    // fields, its registered lookups, the head-only registers) and the head line's picked from them
    // (kv: NK terms per line, kept; the pick is a select by q_rp and i_line), so the select is the
    // last step before the late conditions.
    localparam integer NK = 17;
    wire [LQ_DEPTH*NLL*NK-1:0] kv;
    genvar gks, gkj;
    generate for (gks = 0; gks < LQ_DEPTH; gks = gks + 1) begin : g_ks
        for (gkj = 0; gkj < NLL; gkj = gkj + 1) begin : g_kj
            localparam integer L = NLL * gks + gkj;
            wire l_v   = q_lk[gks];                        // the slot's lookups are made
            wire l_wr  = q_mem[gks][16];
            wire l_coh = q_mem[gks][O_CO + gkj];
            wire l_cm  = (BUF_EN != 0) && !l_coh && q_cm[L];     // cache hit
            wire l_wm  = (BUF_EN != 0) && q_wm[L];               // in the write buffer
            wire l_wz  = q_wz[L];                          // a write of its counter is in flight
            wire l_rz  = q_rz[L];                          // a CXL read of its counter is
            wire l_p0  = l_wr && q_pt[L] && !i_ph;         // partial write line, nothing read yet
            wire l_wok = l_v && l_wr && !l_coh && !(i_ph && (rmw_wait || rmw_nxm));   // may go
            wire l_go  = (BUF_EN != 0) && l_wok && (l_wm || (wb_fq && !l_p0 && !l_rz));
            wire l_nwq = l_cm || (WR_ALLOC != 0);          // the buffered write updates HBM
            wire l_rp  = (BUF_EN != 0) && l_wok && l_p0 && wb_fq;   // else it reads its line
            wire [NCW-1:0] l_nll = q_mem[gks][17 +: NCW];
            (* keep *) wire [NK-1:0] k;
            // reads: coherent, cache hit (needs hrd_ok), forward (needs wq_ok_i), CXL.mem
            assign k[0]  = l_v && !l_wr && l_coh && !l_wz && d2h_s_ready;
            assign k[1]  = l_v && !l_wr && l_cm;
            assign k[2]  = l_v && !l_wr && !l_coh && !l_cm && l_wm;
            assign k[3]  = l_v && !l_wr && !l_coh && !l_cm && !l_wm && !l_wz && req_s_ready;
            // writes: coherent; a failed read-modify-write read (not written); buffered, inserted
            // or coalesced (7, 9: update HBM, need wq_ok_i); direct (BUF_EN=0)
            assign k[4]  = l_v && l_wr && l_coh && !(l_wz || l_rz) && cw_free_any && d2h_s_ready;
            assign k[5]  = l_v && l_wr && !l_coh && i_ph && !rmw_wait && rmw_nxm;
            assign k[6]  = l_go && !l_nwq && !l_wm;
            assign k[7]  = l_go && l_nwq && !l_wm;
            assign k[8]  = l_go && !l_nwq && l_wm;
            assign k[9]  = l_go && l_nwq && l_wm;
            assign k[10] = (BUF_EN == 0) && l_wok && !l_p0 && !(l_wz || l_rz) && rwd_s_ready;
            // the read of a partial line when the write does not go: from CXL.mem (12: only
            // because the write queue is not free this cycle) or the cache (13, 14: need hrd_ok);
            // BUF_EN=0 always from CXL.mem
            assign k[11] = l_rp && !l_go && !l_cm && !l_wz && req_s_ready;
            assign k[12] = l_rp && l_go && l_nwq && !l_cm && !l_wz && req_s_ready;
            assign k[13] = l_rp && !l_go && l_cm;
            assign k[14] = l_rp && l_go && l_nwq && l_cm;
            assign k[15] = (BUF_EN == 0) && l_wok && l_p0 && !l_wz && req_s_ready;
            assign k[16] = ({{(NCW - JW){1'b0}}, JW'(gkj)} == l_nll - NCW'(1));     // its last line
            assign kv[NK * L +: NK] = k;
        end
    end endgenerate
    wire [NK-1:0] kh = kv[NK * {q_rp, i_line} +: NK];   // the head line's
    wire k_coh = kh[0], k_hit = kh[1], k_fwd = kh[2], k_mem = kh[3], k_cohwr = kh[4], k_skip = kh[5];
    wire k_in1 = kh[6], k_in2 = kh[7], k_co1 = kh[8], k_co2 = kh[9], k_dir = kh[10];
    wire k_rm1 = kh[11], k_rm2 = kh[12], k_rh1 = kh[13], k_rh2 = kh[14], k_rmd = kh[15];
    wire k_lst = kh[16];                                // the entry's last line

    wire f_coh     = k_coh;
    wire f_hbm_rd  = k_hit && hrd_ok;
    wire f_fwd     = k_fwd && wq_ok_i;
    wire f_memrd   = k_mem;
    wire f_cohwr   = k_cohwr;
    wire f_skip    = k_skip;
    wire f_wbins   = k_in1 || (k_in2 && wq_ok_i);
    wire f_wbco    = k_co1 || (k_co2 && wq_ok_i);
    wire f_wq      = (k_fwd || k_in2 || k_co2) && wq_ok_i;        // the issue stage writes HBM
    wire f_direct  = k_dir;
    wire f_rmw_mem = k_rm1 || k_rmd || (k_rm2 && !wq_ok_i);
    wire f_rmw_hbm = (k_rh1 || (k_rh2 && !wq_ok_i)) && hrd_ok;
    wire f_fire    = k_coh || k_mem || k_cohwr || k_skip || k_in1 || k_co1 || k_dir ||
                     (k_hit && hrd_ok) || ((k_fwd || k_in2 || k_co2) && wq_ok_i);
    // the line's kind (debug): the rule the head line is under
    wire [2:0] f_kind = !e_wr ? (i_lcoh ? K_COH : (i_chit ? K_HIT : (i_wmatch ? K_FWD : K_MEMRD))) :
                        (i_lcoh ? K_COHWR :
                         ((BUF_EN != 0) && !(i_ph && (rmw_wait || rmw_nxm)) ?
                              (i_chit ? K_WBWR_HIT : K_WBWR) : K_WR));
    wire f_rmw  = f_rmw_mem || f_rmw_hbm;
    wire f_cxl  = f_memrd || f_coh || f_rmw_mem || f_cohwr || f_direct;  // a CXL op of line i_ls
    wire i_last = f_fire && k_lst;
    assign q_pop = i_last;
    assign tw_i    = f_wq;                                  // the issue stage writes the tag of i_la
    assign wb_new  = f_wbins;
    assign wb_ins  = {WBS{f_wbins}} & wb_ff;                // an insert takes the lowest free entry
    // a buffered write of the fill's line without an HBM update (k_in1 / k_co1)
    (* keep *) wire fl_hl;
    assign fl_hl   = (fl_la == i_la);
    assign fl_kill = fl_v && (k_in1 || k_co1) && fl_hl;

    always @(posedge clk) begin
        if (rst) begin
            i_line <= {JW{1'b0}}; i_ph <= 1'b0;
        end else begin
            if (f_fire) begin i_line <= i_line + 1'b1; i_ph <= 1'b0; end
            if (i_last) i_line <= {JW{1'b0}};
            if (f_rmw)  i_ph <= 1'b1;
        end
    end

    // ------------------------------------------------------------------ CXL responses (decode)
    wire [15:0]    drs_loc  = s2m_drs_hdr[CXL_S2M_DRS_TAG_LSB +: 16] - TAG_BASE;   // local tag
    wire [LSW-1:0] drs_ls   = drs_loc[LSW-1:0];
    // per slot, registered: a DRS for it is known (ls_dk: a CXL.mem read is out, = ls_rd && !ls_coh)
    // and it completes the line (ls_dc: ... and it is not the read of the read-modify-write in
    // progress); the response's slot selects them
    reg  [NLINE-1:0] ls_dk, ls_dc;
    wire           drs_in   = (drs_loc < 16'(NLINE));
    wire           drs_kn   = drs_in && ls_dk[drs_ls];
    wire           drs_cp   = drs_in && ls_dc[drs_ls];                 // = drs_kn && !drs_rmw
    wire           drs_bad  = (s2m_drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: 3] == CXL_S2M_DRS_OP_MEMDATA_NXM) ||
                              s2m_drs_hdr[CXL_S2M_DRS_POISON_LSB];
    wire           drs_rmw  = rmw_wait && !rmw_hbm && (drs_ls == rmw_ls);
    // a read-miss line is filled as it arrives (the read of a RMW is not); a full HBM write queue
    // holds every DRS back (its ready is the queue's room, whatever the header says)
    wire           drs_fw   = (BUF_EN != 0) && drs_cp && !drs_bad;
    assign         s2m_drs_ready = (BUF_EN == 0) || wq_in_ready;
    wire           drs_fire = s2m_drs_valid && s2m_drs_ready;
    assign         drs_fill = s2m_drs_valid && drs_fw;
    wire           drs_ok   = drs_fire && drs_kn;

    wire [11:0]    hd_cq    = h2d_data_hdr[CXL_H2D_DH_CQID_LSB +: 12];
    wire [LSW-1:0] hd_ls    = hd_cq[LSW-1:0];
    // (ls_cr, registered per slot: a coherent read is out, = ls_rd && ls_coh)
    reg  [NLINE-1:0] ls_cr;
    wire           hd_ok    = h2d_data_valid && ({1'b0, hd_cq} < 13'(NLINE)) && ls_cr[hd_ls];
    wire           hd_bad   = h2d_data_hdr[CXL_H2D_DH_GOERR_LSB] || h2d_data_hdr[CXL_H2D_DH_POISON_LSB];
    assign         h2d_data_ready = 1'b1;

    wire [11:0]    hr_cq    = h2d_rsp_hdr[CXL_H2D_RSP_CQID_LSB +: 12];
    wire [LSW-1:0] hr_ls    = hr_cq[LSW-1:0];
    wire [3:0]     hr_op    = h2d_rsp_hdr[CXL_H2D_RSP_OPCODE_LSB +: 4];
    wire [11:0]    hr_data  = h2d_rsp_hdr[CXL_H2D_RSP_RSPDATA_LSB +: 12];
    reg            cw_hit;
    reg [CWW-1:0]  cw_i;
    integer cm;
    always @* begin
        cw_hit = 1'b0; cw_i = {CWW{1'b0}};
        for (cm = CW_DEPTH - 1; cm >= 0; cm = cm - 1)
            if (cw_v[cm] && cw_ls[cm] == hr_ls && {1'b0, hr_cq} < 13'(NLINE)) begin
                cw_hit = 1'b1; cw_i = CWW'(cm);
            end
    end
    wire           hr_pull  = cw_hit && (hr_op == CXL_H2D_RSP_OP_GO_WRITEPULL ||
                                         hr_op == CXL_H2D_RSP_OP_GO_ERR_WRITEPULL);
    // GO-Err for a coherent read: the read is answered with an error (its data may never come)
    wire           hr_rderr = !cw_hit && ({1'b0, hr_cq} < 13'(NLINE)) && ls_cr[hr_ls] &&
                              hr_op == CXL_H2D_RSP_OP_GO && hr_data[3:0] == CXL_GO_STATE_ERR;
    assign         h2d_rsp_ready = dd_s_ready;       // (a GO_WritePull's data needs the D2H Data output)
    wire           hr_fire  = h2d_rsp_valid && h2d_rsp_ready;
    wire           dd_push  = hr_fire && hr_pull;
    wire           hr_done  = hr_fire && (cw_hit || hr_rderr);
    wire           hr_err   = hr_rderr || (cw_hit && hr_op != CXL_H2D_RSP_OP_GO_WRITEPULL);

    wire [15:0]    nd_loc   = s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: 16] - TAG_BASE;
    // the write-buffer entry an NDR answers: its tag compared with each entry's (a constant)
    wire [WBS-1:0] nd_hk;                       // the NDR's tag is entry k's
    wire [WBS-1:0] nd_fk;                       // ... and entry k's write is in flight
    genvar gn;
    generate for (gn = 0; gn < WBS; gn = gn + 1) begin : g_nf
        assign nd_hk[gn] = (BUF_EN != 0) &&
                           (s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: 16] == WB_TAG0 + 16'(gn) + TAG_BASE);
        assign nd_fk[gn] = nd_hk[gn] && (wb_st[gn] == WB_FLY || wb_st[gn] == WB_FLYP);
        assign wb_nf[gn] = s2m_ndr_valid && nd_hk[gn] && (wb_st[gn] == WB_FLY);
    end endgenerate
    wire           nd_wb    = |nd_fk;
    wire [LSW-1:0] nd_ls    = nd_loc[LSW-1:0];
    wire           nd_dir   = (nd_loc < 16'(NLINE)) && ls_wr[nd_ls];
    assign         s2m_ndr_ready = 1'b1;

    // dropped responses: unknown tag / CQID, a type the slot does not expect, a coherent-write
    // answer other than (GO_)WritePull
    wire p_drs = drs_fire && !drs_kn;
    wire p_ndr = s2m_ndr_valid && !nd_wb && !nd_dir;
    wire p_hd  = h2d_data_valid && !hd_ok;
    wire p_hr  = hr_fire && !(hr_pull || hr_rderr);
    // registered, counted from the registers (the core adds the lanes' counts to its statistic)
    reg [3:0] p_q;
    always @(posedge clk) begin
        if (rst) p_q <= 4'd0;
        else     p_q <= {p_hr, p_hd, p_ndr, p_drs};
    end
    assign ev_proto = 3'(p_q[0]) + 3'(p_q[1]) + 3'(p_q[2]) + 3'(p_q[3]);

    // hazard slot of each completing CXL op
    wire [45:0]   la_drs = ls_la[drs_ls];
    wire [45:0]   la_hd  = ls_la[hd_ls];
    wire [45:0]   la_hr  = ls_la[hr_ls];
    wire [45:0]   la_nd  = ls_la[nd_ls];
    wire [45:0]   li_drs = la_drs >> LB;
    wire [45:0]   li_hd  = la_hd >> LB;
    wire [45:0]   li_hr  = la_hr >> LB;
    wire [45:0]   li_nd  = la_nd >> LB;
    wire [HZW-1:0] s_drs = li_drs[HZW-1:0];
    wire [HZW-1:0] s_hd  = li_hd[HZW-1:0];
    wire [HZW-1:0] s_hr  = li_hr[HZW-1:0];
    wire [HZW-1:0] s_nd  = li_nd[HZW-1:0];
    assign        rd_inc = f_memrd || f_coh || f_rmw_mem;
    assign        wr_inc = f_cohwr || f_direct;
    wire          d_drs  = drs_ok;
    wire          d_hd   = hd_ok;
    wire          d_hrr  = hr_fire && hr_rderr;
    wire          d_hrw  = hr_fire && cw_hit;
    wire          d_nd   = s2m_ndr_valid && nd_dir;

    // The completions count their counters down one cycle after they arrive (their slot's counter
    // index and the event registered), so a counter's update starts at flip-flops; a line held by a
    // counter waits one cycle longer, never less. The index is registered decoded (one bit per
    // counter), so each counter reads its own bit instead of comparing the index.
    reg            dq_drs, dq_hd, dq_hrr, dq_hrw, dq_nd;
    reg  [HZ-1:0]  sq_drs, sq_hd, sq_hr, sq_nd;
    always @(posedge clk) begin
        if (rst) begin
            dq_drs <= 1'b0; dq_hd <= 1'b0; dq_hrr <= 1'b0; dq_hrw <= 1'b0; dq_nd <= 1'b0;
        end else begin
            dq_drs <= d_drs; dq_hd <= d_hd; dq_hrr <= d_hrr; dq_hrw <= d_hrw; dq_nd <= d_nd;
        end
        sq_drs <= {{(HZ - 1){1'b0}}, 1'b1} << s_drs;
        sq_hd  <= {{(HZ - 1){1'b0}}, 1'b1} << s_hd;
        sq_hr  <= {{(HZ - 1){1'b0}}, 1'b1} << s_hr;
        sq_nd  <= {{(HZ - 1){1'b0}}, 1'b1} << s_nd;
    end
    // Next counter values: the registered completions of a counter (0-3, as a one-hot count)
    // select among the counter minus 0..3 and plus 1 minus 0..3 and their nonzero flags, all formed
    // from the register (kept nets: an AND-OR select after them); the issue stage's increment,
    // late, picks between the two results in the last gate.
    function automatic [3:0] cnt1h(input [2:0] e);     // one-hot number of set bits of e
        cnt1h = {&e, (e[0] & e[1] & !e[2]) | (e[0] & !e[1] & e[2]) | (!e[0] & e[1] & e[2]),
                 (e[0] & !e[1] & !e[2]) | (!e[0] & e[1] & !e[2]) | (!e[0] & !e[1] & e[2]), !(|e)};
    endfunction
    genvar gh;
    generate for (gh = 0; gh < HZ; gh = gh + 1) begin : g_hz
        reg  [CNW-1:0] rd_c, wr_c;             // CXL reads / direct or coherent writes outstanding
        (* keep *) wire [3:0] rn1, wn1;        // registered completions of the counter, one-hot count
        assign rn1 = cnt1h({dq_drs && sq_drs[gh], dq_hd && sq_hd[gh], dq_hrr && sq_hr[gh]});
        assign wn1 = cnt1h({1'b0, dq_nd && sq_nd[gh], dq_hrw && sq_hr[gh]});
        // the counter plus 1, minus 0..3 (index 0..4 = c + 1 - index) and their nonzero flags
        (* keep *) wire [5*CNW-1:0] rcv, wcv;
        (* keep *) wire [4:0]       rcz, wcz;
        genvar gv;
        for (gv = 0; gv < 5; gv = gv + 1) begin : g_v
            assign rcv[CNW * gv +: CNW] = rd_c + 1'b1 - CNW'(gv);
            assign wcv[CNW * gv +: CNW] = wr_c + 1'b1 - CNW'(gv);
            // c + 1 - gv != 0, i.e. c != gv - 1 (a compare with a constant, no subtraction)
            assign rcz[gv] = (rd_c != CNW'(gv - 1));
            assign wcz[gv] = (wr_c != CNW'(gv - 1));
        end
        // without the increment: c - n (index n + 1); with it: c + 1 - n (index n)
        (* keep *) wire [CNW:0] ra, rb, wa, wb;   // {nonzero, value}
        assign ra = {|(rn1 & rcz[4:1]), sel4(rn1, rcv[CNW +: 4 * CNW])};
        assign rb = {|(rn1 & rcz[3:0]), sel4(rn1, rcv[0 +: 4 * CNW])};
        assign wa = {|(wn1 & wcz[4:1]), sel4(wn1, wcv[CNW +: 4 * CNW])};
        assign wb = {|(wn1 & wcz[3:0]), sel4(wn1, wcv[0 +: 4 * CNW])};
        (* keep *) wire hsel;                     // the head line uses this counter
        assign hsel = (i_hs == HZW'(gh));
        wire [CNW-1:0] rn = (rd_inc && hsel) ? rb[CNW-1:0] : ra[CNW-1:0];
        wire [CNW-1:0] wn = (wr_inc && hsel) ? wb[CNW-1:0] : wa[CNW-1:0];
        always @(posedge clk) begin
            if (rst) begin
                rd_c <= {CNW{1'b0}}; wr_c <= {CNW{1'b0}};
            end else begin
                rd_c <= rn; wr_c <= wn;
            end
        end
        assign hz_ra[gh] = ra[CNW];
        assign hz_rb[gh] = rb[CNW];
        assign hz_wa[gh] = wa[CNW];
        assign hz_wb[gh] = wb[CNW];
    end endgenerate

    // the head line's slot and the responses' slots, one-hot (kept: the issue decision and the
    // responses' checks, late, meet them in the last gates)
    (* keep *) wire [NLINE-1:0] i_dec, drs_dec, hd_dec, hr_dec, nd_dec;
    assign i_dec   = {{(NLINE - 1){1'b0}}, 1'b1} << i_ls;
    assign drs_dec = {{(NLINE - 1){1'b0}}, 1'b1} << drs_ls;
    assign hd_dec  = {{(NLINE - 1){1'b0}}, 1'b1} << hd_ls;
    assign hr_dec  = {{(NLINE - 1){1'b0}}, 1'b1} << hr_ls;
    assign nd_dec  = {{(NLINE - 1){1'b0}}, 1'b1} << nd_ls;
    integer li;
    always @(posedge clk) begin
        if (rst) begin
            for (li = 0; li < NLINE; li = li + 1) begin
                ls_wr[li] <= 1'b0;
            end
            ls_dk <= {NLINE{1'b0}}; ls_dc <= {NLINE{1'b0}}; ls_cr <= {NLINE{1'b0}};
            for (li = 0; li < CW_DEPTH; li = li + 1) cw_v[li] <= 1'b0;
            rmw_wait <= 1'b0; rmw_hbm <= 1'b0; rmw_nxm <= 1'b0;
        end else begin
            for (li = 0; li < NLINE; li = li + 1) begin
                if (f_cxl && i_dec[li]) ls_la[li] <= i_la;
                if (rd_inc && i_dec[li]) begin       // rd_inc: f_memrd || f_rmw_mem || f_coh
                    ls_dk[li] <= !f_coh; ls_dc[li] <= f_memrd; ls_cr[li] <= f_coh;
                end
                if (f_direct && i_dec[li]) ls_wr[li] <= 1'b1;
                // completions (a slot has one outstanding operation: no clash with the issue)
                if (drs_ok && drs_dec[li]) begin ls_dk[li] <= 1'b0; ls_dc[li] <= 1'b0; end
                if (hd_ok && hd_dec[li]) ls_cr[li] <= 1'b0;
                if (hr_fire && hr_rderr && hr_dec[li]) ls_cr[li] <= 1'b0;
                if (d_nd && nd_dec[li]) ls_wr[li] <= 1'b0;
            end
            if (f_cohwr) begin
                cw_v[cw_fi] <= 1'b1; cw_ls[cw_fi] <= i_ls; cw_d[cw_fi] <= i_ld;
            end
            if (f_rmw) begin
                rmw_wait <= 1'b1; rmw_hbm <= f_rmw_hbm; rmw_nxm <= 1'b0; rmw_ls <= i_ls;
            end
            if (drs_ok) begin
                if (drs_rmw) begin
                    rmw_wait <= 1'b0; rmw_data <= s2m_drs_data; rmw_nxm <= drs_bad;
                end
            end
            if (hb_v && rmw_wait && rmw_hbm && hb_tag == rmw_ls) begin
                rmw_wait <= 1'b0; rmw_data <= hb_data;
            end
            if (hr_fire && cw_hit) cw_v[cw_i] <= 1'b0;
        end
    end

    // ------------------------------------------------------------------ write buffer state
    // next state per slot: the NDR of its write, then its drain, then the issue stage's write
    reg [1:0]       wb_nx;
    reg [2*WBS-1:0] wb_nxt;
    integer wn;
    always @* begin
        wb_nxt = {(2*WBS){1'b0}};
        for (wn = 0; wn < WBS; wn = wn + 1) begin
            wb_nx = wb_st[wn];
            if (s2m_ndr_valid && nd_fk[wn]) wb_nx = (wb_nx == WB_FLYP) ? WB_PEND : WB_FREE;
            if (wb_drain && dr_g[wn]) wb_nx = WB_FLY;
            if ((f_wbins || f_wbco) && wb_uoh[wn])
                wb_nx = (wb_nx == WB_FLY || wb_nx == WB_FLYP) ? WB_FLYP : WB_PEND;
            wb_nxt[2 * wn +: 2] = wb_nx;
        end
    end
    integer ws;
    always @(posedge clk) begin
        if (rst) begin
            for (ws = 0; ws < WBS; ws = ws + 1) wb_st[ws] <= WB_FREE;
            dr_req <= {WBS{1'b0}};
        end else begin
            for (ws = 0; ws < WBS; ws = ws + 1) begin
                wb_st[ws]  <= wb_nxt[2 * ws +: 2];
                dr_req[ws] <= (wb_nxt[2 * ws +: 2] == WB_PEND);
            end
            for (ws = 0; ws < WBS; ws = ws + 1) begin
                if (wb_ins[ws]) begin wb_addr[ws] <= i_la; wb_data[ws] <= w_new; end
                if (f_wbco && wb_uoh[ws])  wb_data[ws] <= co_dat;
            end
        end
    end

    // ------------------------------------------------------------------ HBM write queue + controller
    localparam integer WQW = SW + 512;        // {buffer index, line}
    wire [WQW-1:0] wq_out;
    wire [SW-1:0]  wq_ix_o = wq_out[512 +: SW];
    wire [511:0]   wq_d_o  = wq_out[0 +: 512];
    wire           drs_fill_go = drs_fill && wq_in_ready;
    wire           wq_push = drs_fill_go || f_wq;
    wire [45:0]    wq_la_i = drs_fill_go ? la_drs : i_la;
    wire [45:0]    wq_li_i = wq_la_i >> LB;
    // the issue stage's line: a forwarded read's, a coalescing write's merge, a new write's line
    wire [511:0]   wq_d_i  = drs_fill_go ? s2m_drs_data : (!e_wr ? wb_hdat : (i_wmatch ? co_dat : w_new));
    wire           wq_pop;
    // a queued write, else the head line's read (hit or read-modify-write); the controller takes it
    // with its ready (hrd_ok), so the read is offered without waiting for that ready
    wire           hbm_v   = wq_out_valid || k_hit || k_rh1 || (k_rh2 && !wq_ok_i);
    wire           hbm_we  = wq_out_valid;
    wire [SW-1:0]  hbm_idx = wq_out_valid ? wq_ix_o : i_set;
    assign         wq_pop  = wq_out_valid && hbm_ready;

    generate if (BUF_EN != 0) begin : g_hbm
        /* verilator lint_off UNUSEDSIGNAL */
        wire [$clog2(WQ_DEPTH+1)-1:0] wq_count;
        wire hbm_ref_v, hbm_ref_f;                    // refresh debug (the bench peeks at them)
        wire [$clog2(NPC*NBANK)-1:0] hbm_ref_b;
        /* verilator lint_on UNUSEDSIGNAL */
        sync_fifo #(.WIDTH(WQW), .DEPTH(WQ_DEPTH)) u_wq (
            .clk(clk), .rst(rst), .in_valid(wq_push), .in_ready(wq_in_ready),
            .in_data({wq_li_i[SW-1:0], wq_d_i}), .out_valid(wq_out_valid), .out_ready(wq_pop),
            .out_data(wq_out), .count(wq_count));
        xb_hbm_ctrl #(.SETS(SETS_L), .NPC(NPC), .NBANK(NBANK), .ROW_LINES(ROW_LINES),
                      .T_CL(T_CL), .T_RCD(T_RCD), .T_RP(T_RP), .T_RAS(T_RAS), .T_BURST(T_BURST),
                      .T_REFI(T_REFI), .T_RFC(T_RFC), .REF_POSTPONE(REF_POSTPONE),
                      .REF_IDLE(REF_IDLE), .INFLIGHT(HBM_INFLIGHT), .TAG_W(LSW)) u_hbm (
            .clk(clk), .rst(rst), .req_valid(hbm_v), .req_ready(hbm_ready), .req_we(hbm_we),
            .req_idx(hbm_idx), .req_data(wq_d_o), .req_tag(i_ls),
            .rsp_valid(hbm_rsp_v), .rsp_tag(hbm_rsp_tag), .rsp_data(hbm_rsp_data),
            .now(hbm_now), .iss_valid(hbm_iss_valid), .iss_done(hbm_iss_done),
            .iss_we(hbm_iss_we), .iss_idx(hbm_iss_idx),
            .ref_valid(hbm_ref_v), .ref_forced(hbm_ref_f), .ref_bank(hbm_ref_b), .idle(hbm_idle));
    end else begin : g_nohbm
        assign wq_in_ready = 1'b0; assign wq_out_valid = 1'b0; assign wq_out = {WQW{1'b0}};
        assign hbm_ready = 1'b0; assign hbm_rsp_v = 1'b0; assign hbm_rsp_tag = {LSW{1'b0}};
        assign hbm_rsp_data = 512'd0; assign hbm_now = 32'd0; assign hbm_iss_valid = 1'b0;
        assign hbm_iss_done = 32'd0; assign hbm_idle = 1'b1;
        assign hbm_iss_we = 1'b0; assign hbm_iss_idx = {SW{1'b0}};
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_nb = &{1'b0, wq_d_i, wq_d_o, wq_pop, hbm_v, wq_li_i, wq_ix_o};
        /* verilator lint_on UNUSEDSIGNAL */
    end endgenerate

    // Tags change when the issue stage puts a line into the write queue (a forwarded read's fill,
    // a write's update) and one cycle after a DRS fill entered it (fl_*: its address registered,
    // so the lookups follow it by a compare between registers). The issue stage's write of the
    // same cycle is later in the queue and wins. Fills are never dropped and a hit read waits for
    // the queue, so a lookup from the second cycle after the line's data reached the bridge sees
    // it (in the cycle between, the line is a miss). A write of the fill's line in that cycle that
    // does not update HBM (a miss with WR_ALLOC=0) cancels the fill's tag (fl_kill): HBM would hold
    // the line older than the write.
    integer cs;
    always @(posedge clk) begin
        if (rst) begin
            for (cs = 0; cs < SETS_L; cs = cs + 1) c_tv[cs] <= 1'b0;
            fl_v <= 1'b0;
        end else begin
            fl_v <= drs_fill_go;
            if (fl_v) begin
                c_tv[fl_set] <= !fl_kill;
                c_tg[fl_set] <= fl_la[45:TGL];
            end
            if (tw_i) begin
                c_tv[i_set] <= 1'b1;
                c_tg[i_set] <= i_la[45:TGL];
            end
        end
        fl_la <= la_drs;
    end

    // ------------------------------------------------------------------ CXL requests
    reg [127:0] q_req;
    always @* begin
        q_req = 128'd0;
        q_req[CXL_M2S_REQ_MEMOP_LSB +: CXL_M2S_REQ_MEMOP_W]         = CXL_M2S_REQ_OP_MEMRD;
        q_req[CXL_M2S_REQ_METAFIELD_LSB +: CXL_M2S_REQ_METAFIELD_W] = META_NOOP;
        q_req[CXL_M2S_REQ_TAG_LSB +: CXL_M2S_REQ_TAG_W]             = 16'(i_ls) + TAG_BASE;
        q_req[CXL_M2S_REQ_ADDR_LSB +: CXL_M2S_REQ_ADDR_W]           = i_la;
    end
    wire [45:0]  rwd_la  = wb_drain ? dr_la : i_la;
    wire [15:0]  rwd_tag = wb_drain ? dr_tag : 16'(i_ls) + TAG_BASE;
    wire [511:0] rwd_dat = wb_drain ? dr_dat : w_new;
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
        q_d2h[CXL_D2H_REQ_OPCODE_LSB +: CXL_D2H_REQ_OPCODE_W] = e_wr ? CXL_D2H_REQ_OP_ITOMWR
                                                                      : CXL_D2H_REQ_OP_RDCURR;
        q_d2h[CXL_D2H_REQ_CQID_LSB +: CXL_D2H_REQ_CQID_W]     = 12'(i_ls);
        q_d2h[CXL_D2H_REQ_ADDR_LSB +: CXL_D2H_REQ_ADDR_W]     = i_la;
    end
    reg [127:0] q_dd;
    always @* begin
        q_dd = 128'd0;
        q_dd[CXL_D2H_DH_UQID_LSB +: CXL_D2H_DH_UQID_W] = hr_data;
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
    skid_buffer #(.WIDTH(640)) u_dd (.clk(clk), .rst(rst), .in_valid(dd_push), .in_ready(dd_s_ready),
        .in_data({cw_d[cw_i], q_dd}), .out_valid(d2h_data_valid), .out_ready(d2h_data_ready),
        .out_data({d2h_data_data, d2h_data_hdr}));

    // ------------------------------------------------------------------ completions, status
    wire hbm_rmw = rmw_wait && rmw_hbm && hb_tag == rmw_ls;
    assign cpl_v    = {s2m_ndr_valid && nd_dir, hr_done, hd_ok, hb_v && !hbm_rmw,
                       drs_fire && drs_cp, f_fire && (f_fwd || f_wbins || f_wbco || f_skip)};
    assign cpl_ls   = {nd_ls, hr_ls, hd_ls, hb_tag, drs_ls, i_ls};
    assign cpl_err  = {1'b0, hr_err, hd_bad, 1'b0, drs_bad, f_skip};
    assign cpl_dv   = {1'b1, 1'b1, 1'b1, f_fwd};
    assign cpl_data = {h2d_data_data, hb_data, s2m_drs_data, wb_hdat};

    reg wb_any;
    integer wa;
    always @* begin
        wb_any = 1'b0;
        for (wa = 0; wa < WBS; wa = wa + 1) if (wb_st[wa] != WB_FREE) wb_any = 1'b1;
    end
    assign wb_empty = !wb_any && hbm_idle && !wq_out_valid;

    reg ev_hit_q, ev_fwd_q, ev_miss_q, ev_rmw_q;
    always @(posedge clk) begin
        if (rst) begin
            ev_hit_q <= 1'b0; ev_fwd_q <= 1'b0; ev_miss_q <= 1'b0; ev_rmw_q <= 1'b0;
        end else begin
            ev_hit_q <= f_fire && f_hbm_rd; ev_fwd_q <= f_fire && f_fwd;
            ev_miss_q <= f_fire && f_memrd; ev_rmw_q <= f_rmw;
        end
    end
    assign ev_hit  = ev_hit_q;
    assign ev_fwd  = ev_fwd_q;
    assign ev_miss = ev_miss_q;
    assign ev_rmw  = ev_rmw_q;
    assign dbg_line_valid = f_fire;
    assign dbg_line_kind  = f_kind;
    assign dbg_line_seq   = e_seq;

    // header bits the lane does not interpret
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, s2m_ndr_hdr, s2m_drs_hdr, h2d_data_hdr, h2d_rsp_hdr, i_li, la_hd, la_hr,
                       la_nd, li_drs, li_hd, li_hr, li_nd, wq_la_i, wq_li_i, dr_gi};
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
