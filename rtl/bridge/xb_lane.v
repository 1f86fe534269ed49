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
    // per-cycle events for the core's statistics
    output wire             ev_hit,        // a read line went to the HBM (cache hit)
    output wire             ev_fwd,        // a read line was forwarded from the write buffer
    output wire             ev_miss,       // a read line went to CXL.mem
    output wire             ev_rmw,        // a partial write line read its line
    output wire [2:0]       ev_proto,      // CXL responses dropped this cycle (unknown tag / opcode)
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
        if (SETS_L < 2 || (SETS_L & (SETS_L - 1)) != 0) begin : g_bad_sets
            xb_lane_parameter_error_SETS_L_must_be_a_power_of_two_at_least_2 u_stop ();
        end
        if (WBS < 2 || (WBS & (WBS - 1)) != 0 || LANES * WBS > 16'h4000) begin : g_bad_wbs
            xb_lane_parameter_error_WBS_must_be_a_power_of_two_2_to_0x4000_per_LANES u_stop ();
        end
        if (WQ_DEPTH < 2 || LQ_DEPTH < 2 || CW_DEPTH < 1) begin : g_bad_q
            xb_lane_parameter_error_WQ_DEPTH_LQ_DEPTH_at_least_2_and_CW_DEPTH_at_least_1_required u_stop ();
        end
    endgenerate

    // 16 B chunk mask of a line as a 512-bit byte-lane mask
    function automatic [511:0] cmask(input [3:0] m);
        cmask = {{128{m[3]}}, {128{m[2]}}, {128{m[1]}}, {128{m[0]}}};
    endfunction

    // ------------------------------------------------------------------ request queue, current line
    wire          q_ov;
    wire [QW-1:0] q_o;
    wire          q_pop;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [$clog2(LQ_DEPTH+1)-1:0] q_count;
    /* verilator lint_on UNUSEDSIGNAL */
    sync_fifo #(.WIDTH(QW), .DEPTH(LQ_DEPTH)) u_q (
        .clk(clk), .rst(rst), .in_valid(q_valid), .in_ready(q_ready), .in_data(q_data),
        .out_valid(q_ov), .out_ready(q_pop), .out_data(q_o), .count(q_count));

    wire [15:0]      e_seq  = q_o[0 +: 16];
    wire             e_wr   = q_o[16];
    wire [NCW-1:0]   e_nll  = q_o[17 +: NCW];
    wire [NLL-1:0]   e_coh  = q_o[O_CO +: NLL];
    wire [4*NLL-1:0] e_mask = q_o[O_MK +: 4 * NLL];

    reg  [JW-1:0]  i_line;                 // line of the entry being issued
    reg            i_ph;                   // its read-modify-write read has been issued
    wire           i_v    = q_ov;
    wire [45:0]    i_la   = q_o[O_LA + 46 * i_line +: 46];
    wire [LSW-1:0] i_ls   = q_o[O_LS + LSW * i_line +: LSW];
    wire [45:0]    i_li   = i_la >> LB;    // line index inside the lane
    wire           i_lcoh = e_coh[i_line];
    wire [3:0]     i_lm   = e_mask[4 * i_line +: 4];
    wire [511:0]   i_ld   = q_o[O_DT + 512 * i_line +: 512];
    wire           i_part = (i_lm != 4'hF);
    wire           i_p0   = e_wr && i_part && !i_ph;   // partial write line, nothing read yet

    // ------------------------------------------------------------------ cache tags, write buffer
    reg            c_tv [0:SETS_L-1];
    reg [45:0]     c_tg [0:SETS_L-1];
    wire [SW-1:0]  i_set  = i_li[SW-1:0];
    wire           i_chit = (BUF_EN != 0) && !i_lcoh && c_tv[i_set] && (c_tg[i_set] == i_la);

    reg [1:0]      wb_st   [0:WBS-1];
    reg [45:0]     wb_addr [0:WBS-1];
    reg [511:0]    wb_data [0:WBS-1];
    // fully associative: the entry holding the line (at most one), else the lowest free entry.
    // Every entry compares in parallel; the entry used is a one-hot (wb_uoh) and its data an AND-OR
    // select, so no index is formed after the compares. The lowest free entry depends on the
    // states only.
    reg  [WBS-1:0] wb_hv, wb_fr, wb_ff;
    integer wm;
    always @* begin
        for (wm = 0; wm < WBS; wm = wm + 1) begin
            wb_hv[wm] = (wb_st[wm] != WB_FREE) && (wb_addr[wm] == i_la);
            wb_fr[wm] = (wb_st[wm] == WB_FREE);
        end
        wb_ff = wb_fr & ~(wb_fr - 1'b1);                // lowest free entry, one-hot
    end
    wire           wb_hit   = |wb_hv;
    wire           i_wmatch = (BUF_EN != 0) && wb_hit;
    wire           i_wfree  = |wb_fr;                   // a free entry for a new line
    wire [WBS-1:0] wb_uoh   = wb_hit ? wb_hv : wb_ff;   // the entry the line's write uses
    // data of the hit entry (a forward, a coalescing write) and of the used entry
    reg  [511:0]   wb_hdat;
    integer wd;
    always @* begin
        wb_hdat = 512'd0;
        for (wd = 0; wd < WBS; wd = wd + 1) wb_hdat = wb_hdat | (wb_data[wd] & {512{wb_hv[wd]}});
    end

    // hazard counters (line index mod HZ): CXL reads outstanding, direct / coherent writes
    // outstanding; lines sharing a counter are ordered conservatively. Each counter keeps a
    // registered nonzero flag, so the issue stage reads one bit per counter.
    reg [CNW-1:0]  hz_rd [0:HZ-1];
    reg [CNW-1:0]  hz_wr [0:HZ-1];
    reg [HZ-1:0]   hz_rnz, hz_wnz;                      // hz_rd / hz_wr nonzero
    wire [HZW-1:0] i_hs    = i_li[HZW-1:0];
    wire           i_hz_rd = hz_wnz[i_hs];
    wire           i_rd_out = hz_rnz[i_hs];
    wire           i_hz_wr = i_hz_rd || i_rd_out;

    // per line slot: what this lane has outstanding on CXL for it
    reg            ls_rd  [0:NLINE-1];     // a read (MemRd or RdCurr)
    reg            ls_coh [0:NLINE-1];     // ... on CXL.cache
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
    wire           hbm_idle;
    wire wq_in_ready, wq_out_valid;
    wire drs_fill;
    wire wq_ok_i = (BUF_EN != 0) && wq_in_ready && !drs_fill;   // the issue stage may use the queue
    wire hrd_ok  = hbm_ready && !wq_out_valid;                  // an HBM read overtakes no queued write

    // write buffer drain: the first PEND slot at or after the round-robin pointer (no CXL read of a
    // buffered line can be outstanding: a line enters the buffer only when no read of its slot is,
    // and a read of a buffered line is forwarded)
    reg [WW-1:0]  dr_ptr;
    reg           dr_any;
    reg [WW-1:0]  dr_i, dr_j;
    integer dk;
    always @* begin
        dr_any = 1'b0; dr_i = {WW{1'b0}}; dr_j = {WW{1'b0}};
        for (dk = WBS - 1; dk >= 0; dk = dk - 1) begin
            dr_j = dr_ptr + WW'(dk);
            if (wb_st[dr_j] == WB_PEND) begin
                dr_any = 1'b1; dr_i = dr_j;
            end
        end
    end
    wire wb_drain = (BUF_EN != 0) && dr_any && rwd_s_ready;

    // write data: phase 1 of a read-modify-write merges the request's chunks into the line read back
    wire [511:0] w_rmw  = (rmw_data & ~cmask(i_lm)) | (i_ld & cmask(i_lm));
    wire [511:0] w_new  = i_ph ? w_rmw : i_ld;
    wire [3:0]   w_mask = i_p0 ? i_lm : 4'hF;
    wire [511:0] co_dat = (wb_hdat & ~cmask(w_mask)) | (w_new & cmask(w_mask));

    // ------------------------------------------------------------------ issue decision
    reg       f_fire, f_memrd, f_coh, f_cohwr, f_hbm_rd, f_fwd, f_wq, f_wbins, f_wbco, f_direct;
    reg       f_rmw_mem, f_rmw_hbm, f_skip;
    reg [2:0] f_kind;
    always @* begin
        f_fire = 1'b0; f_memrd = 1'b0; f_coh = 1'b0; f_cohwr = 1'b0; f_hbm_rd = 1'b0; f_fwd = 1'b0;
        f_wq = 1'b0; f_wbins = 1'b0; f_wbco = 1'b0; f_direct = 1'b0;
        f_rmw_mem = 1'b0; f_rmw_hbm = 1'b0; f_skip = 1'b0;
        f_kind = K_MEMRD;
        if (i_v) begin
            if (!e_wr) begin
                if (i_lcoh) begin
                    f_kind = K_COH;
                    if (!i_hz_rd) begin f_coh = d2h_s_ready; f_fire = d2h_s_ready; end
                end else if (i_chit) begin
                    f_kind = K_HIT; f_hbm_rd = hrd_ok; f_fire = hrd_ok;
                end else if (i_wmatch) begin
                    // forward, and fill the line (every read miss fills)
                    f_kind = K_FWD; f_fwd = wq_ok_i; f_wq = wq_ok_i; f_fire = wq_ok_i;
                end else begin
                    f_kind = K_MEMRD;
                    if (!i_hz_rd) begin f_memrd = req_s_ready; f_fire = req_s_ready; end
                end
            end else if (i_lcoh) begin
                // coherent full line: ItoMWr, the data follows on GO_WritePull
                f_kind = K_COHWR;
                if (!i_hz_wr && cw_free_any) begin f_cohwr = d2h_s_ready; f_fire = d2h_s_ready; end
            end else if (i_ph && rmw_wait) begin
                f_kind = K_WR;                                 // waiting for the line of a RMW
            end else if (i_ph && rmw_nxm) begin
                f_kind = K_WR; f_skip = 1'b1; f_fire = 1'b1;   // its read failed: not written
            end else if (BUF_EN != 0) begin
                f_kind = i_chit ? K_WBWR_HIT : K_WBWR;
                // a new line waits while a CXL read of its slot is out: that read's fill must
                // reach the cache before the write updates it
                if ((i_wmatch || (i_wfree && !i_p0 && !i_rd_out)) &&
                    (wq_ok_i || !(i_chit || WR_ALLOC != 0))) begin
                    f_fire  = 1'b1;
                    f_wbco  = i_wmatch;
                    f_wbins = !i_wmatch;
                    f_wq    = i_chit || (WR_ALLOC != 0);
                end else if (i_p0 && i_wfree) begin
                    // partial line not in the write buffer: read it (cache or CXL) first
                    if (i_chit)        f_rmw_hbm = hrd_ok;
                    else if (!i_hz_rd) f_rmw_mem = req_s_ready;
                end
            end else if (i_p0) begin
                f_kind = K_WR;
                if (!i_hz_rd) f_rmw_mem = req_s_ready;
            end else begin
                f_kind = K_WR;
                if (!i_hz_wr) begin f_direct = rwd_s_ready; f_fire = rwd_s_ready; end
            end
        end
    end
    wire f_rmw  = f_rmw_mem || f_rmw_hbm;
    wire f_cxl  = f_memrd || f_coh || f_rmw_mem || f_cohwr || f_direct;  // a CXL op of line i_ls
    wire i_last = f_fire && ({{(NCW - JW){1'b0}}, i_line} == e_nll - NCW'(1));
    assign q_pop = i_last;

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
    wire           drs_kn   = (drs_loc < 16'(NLINE)) && ls_rd[drs_ls] && !ls_coh[drs_ls];
    wire           drs_bad  = (s2m_drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: 3] == CXL_S2M_DRS_OP_MEMDATA_NXM) ||
                              s2m_drs_hdr[CXL_S2M_DRS_POISON_LSB];
    wire           drs_rmw  = rmw_wait && !rmw_hbm && (drs_ls == rmw_ls);
    // a read-miss line is filled as it arrives (the read of a RMW is not); a full HBM write queue
    // holds that DRS back, every other DRS (unknown tags included) is taken at once
    wire           drs_fw   = (BUF_EN != 0) && drs_kn && !drs_bad && !drs_rmw;
    assign         s2m_drs_ready = !drs_fw || wq_in_ready;
    wire           drs_fire = s2m_drs_valid && s2m_drs_ready;
    assign         drs_fill = s2m_drs_valid && drs_fw;
    wire           drs_ok   = drs_fire && drs_kn;

    wire [11:0]    hd_cq    = h2d_data_hdr[CXL_H2D_DH_CQID_LSB +: 12];
    wire [LSW-1:0] hd_ls    = hd_cq[LSW-1:0];
    wire           hd_ok    = h2d_data_valid && ({1'b0, hd_cq} < 13'(NLINE)) && ls_rd[hd_ls] && ls_coh[hd_ls];
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
    wire           hr_rderr = !cw_hit && ({1'b0, hr_cq} < 13'(NLINE)) && ls_rd[hr_ls] && ls_coh[hr_ls] &&
                              hr_op == CXL_H2D_RSP_OP_GO && hr_data[3:0] == CXL_GO_STATE_ERR;
    assign         h2d_rsp_ready = !hr_pull || dd_s_ready;
    wire           hr_fire  = h2d_rsp_valid && h2d_rsp_ready;
    wire           dd_push  = hr_fire && hr_pull;
    wire           hr_done  = hr_fire && (cw_hit || hr_rderr);
    wire           hr_err   = hr_rderr || (cw_hit && hr_op != CXL_H2D_RSP_OP_GO_WRITEPULL);

    wire [15:0]    nd_loc   = s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: 16] - TAG_BASE;
    wire [15:0]    nd_wbo   = nd_loc - WB_TAG0;
    wire [WW-1:0]  nd_s     = nd_wbo[WW-1:0];
    wire           nd_wb    = (BUF_EN != 0) && (nd_wbo < 16'(WBS)) &&
                              (wb_st[nd_s] == WB_FLY || wb_st[nd_s] == WB_FLYP);
    wire [LSW-1:0] nd_ls    = nd_loc[LSW-1:0];
    wire           nd_dir   = (nd_loc < 16'(NLINE)) && ls_wr[nd_ls];
    assign         s2m_ndr_ready = 1'b1;

    // dropped responses: unknown tag / CQID, a type the slot does not expect, a coherent-write
    // answer other than (GO_)WritePull
    wire p_drs = drs_fire && !drs_kn;
    wire p_ndr = s2m_ndr_valid && !nd_wb && !nd_dir;
    wire p_hd  = h2d_data_valid && !hd_ok;
    wire p_hr  = hr_fire && !(hr_pull || hr_rderr);
    assign ev_proto = 3'(p_drs) + 3'(p_ndr) + 3'(p_hd) + 3'(p_hr);

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
    wire          rd_inc = f_memrd || f_coh || f_rmw_mem;
    wire          wr_inc = f_cohwr || f_direct;
    wire          d_drs  = drs_ok;
    wire          d_hd   = hd_ok;
    wire          d_hrr  = hr_fire && hr_rderr;
    wire          d_hrw  = hr_fire && cw_hit;
    wire          d_nd   = s2m_ndr_valid && nd_dir;

    // Next counter values: the completions of this cycle (0-3 per counter, known from the
    // responses) pick among the counter minus 0..3, and the issue stage's increment (late) picks
    // between that and the counter plus one minus 0..3; every candidate and its nonzero flag come
    // from the register alone.
    function automatic [CNW:0] hz_next(input [CNW-1:0] c, input [1:0] dec, input inc);
        reg [CNW-1:0] a, b;
        begin
            case (dec)
                2'd0:    begin a = c;              b = c + 1'b1;       end
                2'd1:    begin a = c - 1'b1;       b = c;              end
                2'd2:    begin a = c - CNW'(2);    b = c - 1'b1;       end
                default: begin a = c - CNW'(3);    b = c - CNW'(2);    end
            endcase
            hz_next = inc ? {b != {CNW{1'b0}}, b} : {a != {CNW{1'b0}}, a};
        end
    endfunction
    reg [CNW:0] hz_rn [0:HZ-1];
    reg [CNW:0] hz_wn [0:HZ-1];
    integer hn;
    always @* begin
        for (hn = 0; hn < HZ; hn = hn + 1) begin
            hz_rn[hn] = hz_next(hz_rd[hn], 2'(d_drs && s_drs == HZW'(hn)) + 2'(d_hd && s_hd == HZW'(hn))
                                           + 2'(d_hrr && s_hr == HZW'(hn)), rd_inc && i_hs == HZW'(hn));
            hz_wn[hn] = hz_next(hz_wr[hn], 2'(d_nd && s_nd == HZW'(hn)) + 2'(d_hrw && s_hr == HZW'(hn)),
                                wr_inc && i_hs == HZW'(hn));
        end
    end
    integer hs;
    always @(posedge clk) begin
        if (rst) begin
            for (hs = 0; hs < HZ; hs = hs + 1) begin
                hz_rd[hs] <= {CNW{1'b0}}; hz_wr[hs] <= {CNW{1'b0}};
            end
            hz_rnz <= {HZ{1'b0}}; hz_wnz <= {HZ{1'b0}};
        end else begin
            for (hs = 0; hs < HZ; hs = hs + 1) begin
                hz_rd[hs] <= hz_rn[hs][CNW-1:0]; hz_rnz[hs] <= hz_rn[hs][CNW];
                hz_wr[hs] <= hz_wn[hs][CNW-1:0]; hz_wnz[hs] <= hz_wn[hs][CNW];
            end
        end
    end

    integer li;
    always @(posedge clk) begin
        if (rst) begin
            for (li = 0; li < NLINE; li = li + 1) begin
                ls_rd[li] <= 1'b0; ls_coh[li] <= 1'b0; ls_wr[li] <= 1'b0;
            end
            for (li = 0; li < CW_DEPTH; li = li + 1) cw_v[li] <= 1'b0;
            rmw_wait <= 1'b0; rmw_hbm <= 1'b0; rmw_nxm <= 1'b0;
        end else begin
            if (f_cxl) ls_la[i_ls] <= i_la;
            if (f_memrd || f_rmw_mem || f_coh) begin
                ls_rd[i_ls] <= 1'b1; ls_coh[i_ls] <= f_coh;
            end
            if (f_direct) ls_wr[i_ls] <= 1'b1;
            if (f_cohwr) begin
                cw_v[cw_fi] <= 1'b1; cw_ls[cw_fi] <= i_ls; cw_d[cw_fi] <= i_ld;
            end
            if (f_rmw) begin
                rmw_wait <= 1'b1; rmw_hbm <= f_rmw_hbm; rmw_nxm <= 1'b0; rmw_ls <= i_ls;
            end
            if (drs_ok) begin
                ls_rd[drs_ls] <= 1'b0;
                if (drs_rmw) begin
                    rmw_wait <= 1'b0; rmw_data <= s2m_drs_data; rmw_nxm <= drs_bad;
                end
            end
            if (hbm_rsp_v && rmw_wait && rmw_hbm && hbm_rsp_tag == rmw_ls) begin
                rmw_wait <= 1'b0; rmw_data <= hbm_rsp_data;
            end
            if (hd_ok) ls_rd[hd_ls] <= 1'b0;
            if (hr_fire && hr_rderr) ls_rd[hr_ls] <= 1'b0;
            if (hr_fire && cw_hit) cw_v[cw_i] <= 1'b0;
            if (d_nd) ls_wr[nd_ls] <= 1'b0;
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
            if (s2m_ndr_valid && nd_wb && nd_s == WW'(wn)) wb_nx = (wb_nx == WB_FLYP) ? WB_PEND : WB_FREE;
            if (wb_drain && dr_i == WW'(wn)) wb_nx = WB_FLY;
            if ((f_wbins || f_wbco) && wb_uoh[wn])
                wb_nx = (wb_nx == WB_FLY || wb_nx == WB_FLYP) ? WB_FLYP : WB_PEND;
            wb_nxt[2 * wn +: 2] = wb_nx;
        end
    end
    integer ws;
    always @(posedge clk) begin
        if (rst) begin
            for (ws = 0; ws < WBS; ws = ws + 1) wb_st[ws] <= WB_FREE;
            dr_ptr <= {WW{1'b0}};
        end else begin
            for (ws = 0; ws < WBS; ws = ws + 1) wb_st[ws] <= wb_nxt[2 * ws +: 2];
            if (wb_drain) dr_ptr <= dr_i + 1'b1;
            for (ws = 0; ws < WBS; ws = ws + 1) begin
                if (f_wbins && wb_uoh[ws]) begin wb_addr[ws] <= i_la; wb_data[ws] <= w_new; end
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
    wire [511:0]   wq_d_i  = drs_fill_go ? s2m_drs_data :
                             (f_fwd ? wb_hdat : (f_wbco ? co_dat : w_new));
    wire           wq_pop;
    wire           hbm_v   = wq_out_valid || f_hbm_rd || f_rmw_hbm;
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

    // tags change when a line enters the write queue: fills are never dropped and a hit read waits
    // for the queue, so a lookup after the line's data reached the bridge always sees it
    integer cs;
    always @(posedge clk) begin
        if (rst) begin
            for (cs = 0; cs < SETS_L; cs = cs + 1) c_tv[cs] <= 1'b0;
        end else if (wq_push && wq_in_ready) begin
            c_tv[wq_li_i[SW-1:0]] <= 1'b1;
            c_tg[wq_li_i[SW-1:0]] <= wq_la_i;
        end
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
    wire [45:0]  rwd_la  = wb_drain ? wb_addr[dr_i] : i_la;
    wire [15:0]  rwd_tag = (wb_drain ? WB_TAG0 + 16'(dr_i) : 16'(i_ls)) + TAG_BASE;
    wire [511:0] rwd_dat = wb_drain ? wb_data[dr_i] : w_new;
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
    wire hbm_rmw = rmw_wait && rmw_hbm && hbm_rsp_tag == rmw_ls;
    assign cpl_v    = {s2m_ndr_valid && nd_dir, hr_done, hd_ok, hbm_rsp_v && !hbm_rmw,
                       drs_ok && !drs_rmw, f_fire && (f_fwd || f_wbins || f_wbco || f_skip)};
    assign cpl_ls   = {nd_ls, hr_ls, hd_ls, hbm_rsp_tag, drs_ls, i_ls};
    assign cpl_err  = {1'b0, hr_err, hd_bad, 1'b0, drs_bad, f_skip};
    assign cpl_dv   = {1'b1, 1'b1, 1'b1, f_fwd};
    assign cpl_data = {h2d_data_data, hbm_rsp_data, s2m_drs_data, wb_hdat};

    reg wb_any;
    integer wa;
    always @* begin
        wb_any = 1'b0;
        for (wa = 0; wa < WBS; wa = wa + 1) if (wb_st[wa] != WB_FREE) wb_any = 1'b1;
    end
    assign wb_empty = !wb_any && hbm_idle && !wq_out_valid;

    assign ev_hit  = f_fire && f_hbm_rd;
    assign ev_fwd  = f_fire && f_fwd;
    assign ev_miss = f_fire && f_memrd;
    assign ev_rmw  = f_rmw;
    assign dbg_line_valid = f_fire;
    assign dbg_line_kind  = f_kind;
    assign dbg_line_seq   = e_seq;

    // header bits the lane does not interpret
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, s2m_ndr_hdr, s2m_drs_hdr, h2d_data_hdr, h2d_rsp_hdr, i_li, la_hd, la_hr,
                       la_nd, li_drs, li_hd, li_hr, li_nd, wq_la_i, wq_li_i};
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
