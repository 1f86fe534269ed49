// HBM3-like buffer memory behind a synthesizable controller front-end (models/bridge/hbm.py is the
// reference and states the rules). Storage is a plain line array; the timing is what an open-page
// HBM pseudo-channel would give: per-bank state (open row, ACT/column/ready times), per-pseudo-
// channel data bus, tRCD/tCL/tRP/tRAS/tBURST.
// One access is accepted per cycle into one of INFLIGHT slots. Scheduling is out of order across
// banks: the column burst takes the earliest bus gap of its pseudo-channel at or after the bank is
// ready (so a bank waiting for refresh does not hold the bus for the others), and the access
// reserves the first cycle at or after its data time that no slot holds (one data port, one
// completion per cycle) and leaves tagged then. Per bank both increase with acceptance order, so
// one bank / one line completes in order (a read after a write of a line sees the write).
// Refresh: per-bank (REFsb), one owed every T_REFI/(NPC*NBANK) cycles round robin. Owed refreshes
// run one per cycle once the controller has been idle REF_IDLE cycles; once every bank is
// REF_POSTPONE behind, a timer cycle forces a round: every bank refreshed in NPC*NBANK consecutive
// cycles, no access accepted meanwhile (one stall per tREFI for an in-order consumer instead of one
// per bank). REF_POSTPONE=0: one bank at each timer cycle. NPC, NBANK, ROW_LINES, SETS: powers of
// two, NPC, NBANK >= 2, T_REFI/(NPC*NBANK) > NPC*NBANK, T_RP + T_RFC below the per-bank refresh
// interval (checked at elaboration).
// Times: every time the scheduler keeps is an offset from the current cycle (TW bits, counting
// down), so its decisions do not depend on the absolute cycle number and never see a wrap; `now`
// (32-bit cycle count since reset) and `iss_done` (now + offset) wrap modulo 2^32, consistently.
`default_nettype none
module xb_hbm_ctrl #(
    parameter integer SETS      = 16,      // buffer lines (power of two, >= NPC * NBANK)
    parameter integer NPC       = 2,       // pseudo-channels (power of two, >= 2)
    parameter integer NBANK     = 4,       // banks per pseudo-channel (power of two, >= 2)
    parameter integer ROW_LINES = 16,      // 64 B lines per row (power of two)
    parameter integer T_CL      = 13,      // timing in core cycles (>= 1 each; README)
    parameter integer T_RCD     = 20,
    parameter integer T_RP      = 17,
    parameter integer T_RAS     = 29,
    parameter integer T_BURST   = 3,
    parameter integer T_REFI    = 3900,    // refresh interval: one REFsb per bank per T_REFI
    parameter integer T_RFC     = 160,     // single-bank refresh time
    parameter integer REF_POSTPONE = 8,    // refreshes per bank that may be postponed (0: none)
    parameter integer REF_IDLE  = 32,      // idle cycles before owed refreshes run
    parameter integer INFLIGHT  = 8,       // accesses in flight (slots), >= 2
    parameter integer TAG_W     = 4,       // width of the access tag returned with read data
    localparam integer IDX_W    = $clog2(SETS)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             req_valid,
    output wire             req_ready,
    input  wire             req_we,
    input  wire [IDX_W-1:0] req_idx,
    input  wire [511:0]     req_data,
    input  wire [TAG_W-1:0] req_tag,
    output wire             rsp_valid,     // read data, tagged; the consumer always takes it
    output wire [TAG_W-1:0] rsp_tag,
    output wire [511:0]     rsp_data,
    output wire [31:0]      now,
    output wire             iss_valid,     // debug: an access was accepted this cycle ...
    output wire [31:0]      iss_done,      // ... and the cycle it completes
    output wire             ref_valid,     // debug: a refresh executes this cycle ...
    output wire             ref_forced,    // ... forced (postponement exhausted) ...
    output wire [$clog2(NPC*NBANK)-1:0] ref_bank, // ... on this bank number
    output wire             idle
);
    localparam integer PC_W   = $clog2(NPC);
    localparam integer NB     = NPC * NBANK;
    localparam integer NB_W   = $clog2(NB);
    localparam integer SHIFT  = NB_W + $clog2(ROW_LINES);
    localparam integer LIMIT  = REF_POSTPONE * NB;
    localparam integer OW     = $clog2(LIMIT + 2);
    localparam integer ROUND  = (REF_POSTPONE > 0) ? NB : 1;   // refreshes of a forced round
    localparam integer RW_    = $clog2(ROUND + 1);
    localparam integer IW_    = $clog2(REF_IDLE + 2);
    localparam integer SL_W   = (INFLIGHT > 1) ? $clog2(INFLIGHT) : 1;

    // illegal parameters are refused at elaboration
    generate
        if (NPC < 2 || (NPC & (NPC - 1)) != 0 || NBANK < 2 || (NBANK & (NBANK - 1)) != 0) begin : g_bad_banks
            xb_hbm_ctrl_parameter_error_NPC_and_NBANK_must_be_powers_of_two_at_least_2 u_stop ();
        end
        if (ROW_LINES < 1 || (ROW_LINES & (ROW_LINES - 1)) != 0) begin : g_bad_row
            xb_hbm_ctrl_parameter_error_ROW_LINES_must_be_a_power_of_two u_stop ();
        end
        if ((SETS & (SETS - 1)) != 0 || SETS < NPC * NBANK) begin : g_bad_sets
            xb_hbm_ctrl_parameter_error_SETS_must_be_a_power_of_two_at_least_NPC_x_NBANK u_stop ();
        end
        if (INFLIGHT < 2 || TAG_W < 1) begin : g_bad_slots
            xb_hbm_ctrl_parameter_error_INFLIGHT_at_least_2_and_TAG_W_at_least_1_required u_stop ();
        end
        if (T_CL < 1 || T_RCD < 1 || T_RP < 1 || T_RAS < 1 || T_BURST < 1 || T_RFC < 1 ||
            REF_POSTPONE < 0 || REF_IDLE < 0) begin : g_bad_timing
            xb_hbm_ctrl_parameter_error_timings_must_be_at_least_1_and_REF_counts_at_least_0 u_stop ();
        end
        if (T_REFI / (NPC * NBANK) <= NPC * NBANK) begin : g_bad_refi
            xb_hbm_ctrl_parameter_error_T_REFI_per_bank_must_exceed_the_bank_count u_stop ();
        end
    endgenerate

    localparam integer NB1    = (NB > 0) ? NB : 1;                     // NB, kept constant when refused
    localparam integer RSLOT  = (T_REFI / NB1 > 0) ? T_REFI / NB1 : 1; // cycles between refreshes owed
    localparam integer RS_W   = $clog2(RSLOT + 1);                     // width of the refresh timer
    localparam integer CD     = T_CL + T_BURST;                        // column command to raw done
    localparam integer TWIN   = (T_RAS > T_RCD + T_BURST) ? T_RAS - T_RCD : T_BURST;  // col to PRE
    // Horizon: a bound on how far after now any time the scheduler keeps can lie, which sets the
    // width TW of the relative times. An access's column time is at most STEP after that of an
    // access still in flight (same bank: precharge after tRAS or the last burst, tRP, tRCD; same
    // bus: the end of a held burst), such a chain has at most INFLIGHT links in flight, and a
    // completion lies within tCL + tBURST + INFLIGHT of its column time. A refresh adds tRP + tRFC
    // on top of a chain; at most REF_POSTPONE + 1 refreshes of one bank run close together, and
    // the bank catches up between them since the per-bank refresh interval NB * RSLOT exceeds
    // tRP + tRFC (refused otherwise: the bank's availability would run away). HORIZON sums these
    // terms generously and TW keeps a factor 2 above it. This is an argued bound, not a proof;
    // the equivalence runs against the absolute-time design check it on every cycle.
    localparam integer STEP   = T_RP + T_RCD + TWIN + CD + INFLIGHT;
    localparam integer HORIZON = (REF_POSTPONE + 2) * (T_RP + T_RFC + (INFLIGHT + 1) * STEP) +
                                 NB * RSLOT;
    localparam integer TW     = $clog2(2 * HORIZON);

    // the relative-time width must fit the 32-bit absolute outputs, and refresh must keep up
    generate
        if (TW > 31) begin : g_bad_horizon
            xb_hbm_ctrl_parameter_error_timing_horizon_exceeds_31_bits u_stop ();
        end
        if (T_RP + T_RFC >= NB * RSLOT) begin : g_bad_rfc
            xb_hbm_ctrl_parameter_error_T_RP_plus_T_RFC_must_be_below_the_per_bank_refresh_interval u_stop ();
        end
    endgenerate

    // Times are held relative to the current cycle: a register for a time x holds max(F, x - now)
    // for a floor F (0 unless named) and counts down by one per cycle until it reaches F. The
    // scheduler only compares times at or after now, where the floor loses nothing, so it works
    // on TW-bit offsets and needs no subtraction on its path; only `now` and `iss_done` are
    // 32-bit absolute (free-running counter plus offset, for the benches and debug outputs).
    reg [31:0] cnt;
    assign now = cnt;

    // per bank: open row, and the times the next access would see in each case
    reg             bk_open [0:NB-1];
    reg [IDX_W-1:0] bk_row  [0:NB-1];
    reg [TW-1:0]    bk_ceh  [0:NB-1];   // row hit: column ready, max(act + tRCD, col + tBURST)
    reg [TW-1:0]    bk_am   [0:NB-1];   // row miss: ACT, max(act + tRAS, col + tBURST) + tRP (floor tRP)
    reg [TW-1:0]    bk_cem  [0:NB-1];   // row miss: column ready, bk_am + tRCD (floor tRP + tRCD)
    reg [TW-1:0]    bk_ac   [0:NB-1];   // closed: ACT, avail (the end of its refresh)
    reg [TW-1:0]    bk_cec  [0:NB-1];   // closed: column ready, max(avail + tRCD, col + tBURST) (floor tRCD)
    reg [TW-1:0]    bk_aras [0:NB-1];   // act + tRAS
    reg [TW-1:0]    bk_arm  [0:NB-1];   // row miss: ACT + tRAS, bk_am + tRAS (floor tRP + tRAS)
    reg [TW-1:0]    bk_arc  [0:NB-1];   // closed: ACT + tRAS, bk_ac + tRAS (floor tRAS)
    reg [TW-1:0]    bk_kb   [0:NB-1];   // col + tBURST
    reg [RS_W-1:0]  ref_left;           // cycles to the next refresh timer cycle
    reg [OW-1:0]    owed;
    reg [RW_-1:0]   rnd_left;           // refreshes left in a forced round after this cycle
    reg [IW_-1:0]   idle_q;             // consecutive idle cycles before this one (saturating)
    reg [NB_W-1:0]  ref_ptr;
    reg [511:0]     mem [0:SETS-1];

    // in-flight slots
    reg             s_v    [0:INFLIGHT-1];
    reg [TW-1:0]    s_e    [0:INFLIGHT-1];   // end of the slot's data burst (col + tBURST)
    reg [TW-1:0]    s_l    [0:INFLIGHT-1];   // col + 1 - tBURST: a burst starting in [s_l, s_e) overlaps it
    reg [TW-1:0]    s_d    [0:INFLIGHT-1];   // reserved completion cycle
    reg             s_we   [0:INFLIGHT-1];
    reg [IDX_W-1:0] s_idx  [0:INFLIGHT-1];
    reg [TAG_W-1:0] s_tag  [0:INFLIGHT-1];
    reg [511:0]     s_data [0:INFLIGHT-1];

    // a relative time one cycle later (stays at its floor)
    function automatic [TW-1:0] dn(input [TW-1:0] x, input [TW-1:0] f);
        dn = (x == f) ? x : x - 1'b1;
    endfunction
    function automatic [TW-1:0] mx(input [TW-1:0] x0, input [TW-1:0] x1);
        mx = (x0 > x1) ? x0 : x1;
    endfunction

    // slot bookkeeping: busy, a free slot, the slot completing now (reserved cycles are unique)
    reg            busy, free_any, pop;
    reg [SL_W-1:0] free_i, pop_i;
    integer i;
    always @* begin
        busy = 1'b0; free_any = 1'b0; free_i = {SL_W{1'b0}}; pop = 1'b0; pop_i = {SL_W{1'b0}};
        for (i = INFLIGHT - 1; i >= 0; i = i - 1) begin
            if (s_v[i]) busy = 1'b1;
            if (!s_v[i]) begin free_any = 1'b1; free_i = SL_W'(i); end
            if (s_v[i] && s_d[i] == {TW{1'b0}}) begin pop = 1'b1; pop_i = SL_W'(i); end
        end
    end

    // refresh: owed count; a round starts at a timer cycle when every bank is REF_POSTPONE behind
    wire tick   = (ref_left == {RS_W{1'b0}});
    wire at_lim = (LIMIT == 0) ? 1'b1 : (owed >= OW'(LIMIT));
    wire idle_ok = (REF_IDLE == 0) ? 1'b1 : (idle_q >= IW_'(REF_IDLE));
    wire start  = tick && at_lim && (rnd_left == {RW_{1'b0}});
    wire forced = start || (rnd_left != {RW_{1'b0}});

    assign req_ready = !forced && free_any;
    wire   fire      = req_valid && req_ready;
    wire   idle_now  = !busy && !fire;
    wire   do_ref    = forced || ((owed != {OW{1'b0}}) && idle_now && idle_ok);

    // bank timing of the offered access: every bank's column-ready and ACT time for this row in
    // parallel (row compare, case select), then the one of its bank
    wire [NB_W-1:0]  bsel  = req_idx[NB_W-1:0];
    wire [PC_W-1:0]  psel  = req_idx[PC_W-1:0];
    wire [IDX_W-1:0] row_n = req_idx >> SHIFT;
    reg  [TW-1:0] b_ce  [0:NB-1];
    reg           b_new [0:NB-1];
    reg  [TW-1:0] b_ras [0:NB-1];   // ACT + tRAS after the access
    integer b;
    always @* begin
        for (b = 0; b < NB; b = b + 1) begin
            b_new[b] = !(bk_open[b] && bk_row[b] == row_n);
            b_ce[b]  = !b_new[b] ? bk_ceh[b] : bk_open[b] ? bk_cem[b] : bk_cec[b];
            b_ras[b] = !b_new[b] ? bk_aras[b] : bk_open[b] ? bk_arm[b] : bk_arc[b];
        end
    end
    wire [TW-1:0] col_e   = b_ce[bsel];
    wire [TW-1:0] aras_n  = b_ras[bsel];

    // data bus of the pseudo-channel: the earliest start >= col_e whose burst overlaps no burst held
    // by a slot of the same pseudo-channel. Candidates are col_e and the end of each held burst
    // that lies after col_e (an end at or before col_e gives col_e again). Whether a burst end
    // fits, and the order of the ends, depend on the slots only; the access adds one compare of
    // col_e against each burst, then a one-hot pick of the earliest fitting end.
    reg [INFLIGHT-1:0] on_pc, gt, ovl, e_fit, cv, sel;
    reg                fit0;
    integer c, m;
    always @* begin
        for (m = 0; m < INFLIGHT; m = m + 1) begin
            on_pc[m] = s_v[m] && (s_idx[m][PC_W-1:0] == psel);
            gt[m]    = s_e[m] > col_e;
            ovl[m]   = on_pc[m] && gt[m] && (s_l[m] <= col_e);
        end
        fit0 = ~|ovl;
        for (c = 0; c < INFLIGHT; c = c + 1) begin
            e_fit[c] = 1'b1;
            for (m = 0; m < INFLIGHT; m = m + 1)
                if (s_v[m] && s_idx[m][PC_W-1:0] == s_idx[c][PC_W-1:0] && s_e[m] > s_e[c] &&
                    s_l[m] <= s_e[c]) e_fit[c] = 1'b0;
            cv[c] = on_pc[c] && gt[c] && e_fit[c];
        end
        for (c = 0; c < INFLIGHT; c = c + 1) begin
            sel[c] = cv[c] && !fit0;
            for (m = 0; m < INFLIGHT; m = m + 1)
                if (m != c && cv[m] && (s_e[m] < s_e[c] || (s_e[m] == s_e[c] && m < c))) sel[c] = 1'b0;
        end
    end

    // completion reservation: first offset k < INFLIGHT with raw done + k held by no slot (at most
    // INFLIGHT-1 slots are held when an access is accepted, so one is always free). It is computed
    // for every candidate column time in parallel, together with everything else the access
    // writes (relative to the next cycle), so that nothing but the one-hot pick follows the bus
    // fit: for col_e by equality of col_e with s_d - CD - k (prepared from the slots), for a
    // burst end from the slots alone.
    reg [TW+1:0] s_dkw [0:INFLIGHT-1][0:INFLIGHT-1];  // s_d - CD - k (negative: below any raw done)
    integer j, k;
    always @*
        for (j = 0; j < INFLIGHT; j = j + 1)
            for (k = 0; k < INFLIGHT; k = k + 1)
                s_dkw[j][k] = {2'b00, s_d[j]} - (TW + 2)'(CD + k);
    // the ACT + tRAS time of the bank after this access, minus tBURST (a burst ending before it
    // leaves the precharge to wait for tRAS)
    wire [TW+1:0] ras_mb = {2'b00, aras_n} - (TW + 2)'(T_BURST);

    localparam integer NCD = INFLIGHT + 1;   // candidates: each slot's burst end, then col_e
    reg [TW-1:0]  cv_t  [0:NCD-1];   // the candidate column time
    reg [TW-1:0]  w_e   [0:NCD-1];   // col + tBURST: the bank's and the slot's burst end
    reg [TW-1:0]  w_l   [0:NCD-1];   // col + 1 - tBURST (floor 0)
    reg [TW-1:0]  w_am  [0:NCD-1];   // ACT of a later row miss: max(act + tRAS, col + tBURST) + tRP
    reg [TW-1:0]  w_cem [0:NCD-1];   // ... + tRCD
    reg [TW-1:0]  w_arm [0:NCD-1];   // ... + tRAS
    reg [TW-1:0]  w_d   [0:NCD-1];   // reserved completion
    reg [NCD-1:0] pk;                // the candidate taken (one-hot)
    reg [INFLIGHT-1:0] tk, fz;       // completion offsets held, first free offset (one-hot)
    reg [TW+1:0]  dkc;
    reg           ras_late;
    reg [TW-1:0]  p_e, p_l, p_am, p_cem, p_arm, p_d;
    always @* begin
        p_e = {TW{1'b0}}; p_l = {TW{1'b0}}; p_am = {TW{1'b0}}; p_cem = {TW{1'b0}};
        p_arm = {TW{1'b0}}; p_d = {TW{1'b0}};
        for (c = 0; c < NCD; c = c + 1) begin
            cv_t[c] = (c == INFLIGHT) ? col_e : s_e[c];
            pk[c]   = (c == INFLIGHT) ? fit0 : sel[c];
            tk = {INFLIGHT{1'b0}};
            for (j = 0; j < INFLIGHT; j = j + 1)
                if (c == INFLIGHT) begin
                    for (k = 0; k < INFLIGHT; k = k + 1)
                        if (s_v[j] && !s_dkw[j][k][TW+1] && s_dkw[j][k][TW-1:0] == col_e) tk[k] = 1'b1;
                end else begin
                    dkc = s_dkw[j][0] - {2'b00, s_e[c]};
                    if (s_v[j] && !dkc[TW+1] && dkc < (TW + 2)'(INFLIGHT)) tk[dkc[SL_W-1:0]] = 1'b1;
                end
            for (k = 0; k < INFLIGHT; k = k + 1)
                fz[k] = !tk[k] && &(tk | ({INFLIGHT{1'b1}} << k));    // offsets below k held
            w_d[c] = {TW{1'b0}};
            for (k = 0; k < INFLIGHT; k = k + 1)
                if (fz[k]) w_d[c] = w_d[c] | (cv_t[c] + TW'(CD - 1 + k));
            ras_late  = !ras_mb[TW+1] && ras_mb[TW:0] > {1'b0, cv_t[c]};
            w_e[c]   = cv_t[c] + TW'(T_BURST - 1);
            w_l[c]   = (cv_t[c] > TW'(T_BURST)) ? cv_t[c] - TW'(T_BURST) : {TW{1'b0}};
            w_am[c]  = ras_late ? aras_n + TW'(T_RP - 1) : cv_t[c] + TW'(T_BURST + T_RP - 1);
            w_cem[c] = ras_late ? aras_n + TW'(T_RP + T_RCD - 1)
                                : cv_t[c] + TW'(T_BURST + T_RP + T_RCD - 1);
            w_arm[c] = ras_late ? aras_n + TW'(T_RP + T_RAS - 1)
                                : cv_t[c] + TW'(T_BURST + T_RP + T_RAS - 1);
            if (pk[c]) begin
                p_e = p_e | w_e[c]; p_l = p_l | w_l[c]; p_am = p_am | w_am[c];
                p_cem = p_cem | w_cem[c]; p_arm = p_arm | w_arm[c]; p_d = p_d | w_d[c];
            end
        end
    end

    // the refreshed bank's ACT time (precharge after tRAS and the last burst, then tRP, tRFC)
    wire [TW-1:0] rf_a  = bk_open[ref_ptr] ? bk_am[ref_ptr] + TW'(T_RFC) : bk_ac[ref_ptr] + TW'(T_RFC);

    integer bi;
    always @(posedge clk) begin
        if (rst) begin
            cnt      <= 32'd0;
            ref_left <= RS_W'(RSLOT);
            owed     <= {OW{1'b0}};
            rnd_left <= {RW_{1'b0}};
            idle_q   <= {IW_{1'b0}};
            ref_ptr  <= {NB_W{1'b0}};
            // every bank as if ACT and column at cycle 0 and available since then
            for (bi = 0; bi < NB; bi = bi + 1) begin
                bk_open[bi] <= 1'b0;
                bk_row[bi]  <= {IDX_W{1'b0}};
                bk_ceh[bi]  <= TW'(T_RCD > T_BURST ? T_RCD : T_BURST);
                bk_am[bi]   <= TW'((T_RAS > T_BURST ? T_RAS : T_BURST) + T_RP);
                bk_cem[bi]  <= TW'((T_RAS > T_BURST ? T_RAS : T_BURST) + T_RP + T_RCD);
                bk_ac[bi]   <= {TW{1'b0}};
                bk_cec[bi]  <= TW'(T_RCD > T_BURST ? T_RCD : T_BURST);
                bk_aras[bi] <= TW'(T_RAS);
                bk_arm[bi]  <= TW'((T_RAS > T_BURST ? T_RAS : T_BURST) + T_RP + T_RAS);
                bk_arc[bi]  <= TW'(T_RAS);
                bk_kb[bi]   <= TW'(T_BURST);
            end
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) s_v[bi] <= 1'b0;
        end else begin
            cnt <= cnt + 32'd1;
            ref_left <= tick ? RS_W'(RSLOT - 1) : ref_left - 1'b1;
            owed <= owed + OW'(tick) - OW'(do_ref);
            if (start)                        rnd_left <= RW_'(ROUND - 1);
            else if (rnd_left != {RW_{1'b0}}) rnd_left <= rnd_left - 1'b1;
            if (!idle_now)                    idle_q <= {IW_{1'b0}};
            else if (!idle_ok)                idle_q <= idle_q + 1'b1;
            for (bi = 0; bi < NB; bi = bi + 1) begin
                bk_ceh[bi]  <= dn(bk_ceh[bi], {TW{1'b0}});
                bk_am[bi]   <= dn(bk_am[bi], TW'(T_RP));
                bk_cem[bi]  <= dn(bk_cem[bi], TW'(T_RP + T_RCD));
                bk_ac[bi]   <= dn(bk_ac[bi], {TW{1'b0}});
                bk_cec[bi]  <= dn(bk_cec[bi], TW'(T_RCD));
                bk_aras[bi] <= dn(bk_aras[bi], {TW{1'b0}});
                bk_arm[bi]  <= dn(bk_arm[bi], TW'(T_RP + T_RAS));
                bk_arc[bi]  <= dn(bk_arc[bi], TW'(T_RAS));
                bk_kb[bi]   <= dn(bk_kb[bi], {TW{1'b0}});
            end
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) begin
                s_e[bi] <= dn(s_e[bi], {TW{1'b0}});
                s_l[bi] <= dn(s_l[bi], {TW{1'b0}});
                s_d[bi] <= dn(s_d[bi], {TW{1'b0}});
            end
            if (do_ref) begin
                // REFsb on the oldest owed bank: precharge (after tRAS and the last burst), then tRFC
                bk_ac[ref_ptr]  <= rf_a - 1'b1;
                bk_arc[ref_ptr] <= rf_a + TW'(T_RAS - 1);
                bk_cec[ref_ptr] <= mx(rf_a + TW'(T_RCD), bk_kb[ref_ptr]) - 1'b1;
                bk_open[ref_ptr] <= 1'b0;
                ref_ptr <= ref_ptr + 1'b1;
            end
            // no access is accepted in a refresh cycle (forced blocks it, idle needs !fire)
            if (fire) begin
                bk_open[bsel] <= 1'b1;
                bk_row[bsel]  <= row_n;
                bk_ceh[bsel]  <= p_e;
                bk_kb[bsel]   <= p_e;
                bk_am[bsel]   <= p_am;
                bk_cem[bsel]  <= p_cem;
                bk_arm[bsel]  <= p_arm;
                bk_aras[bsel] <= dn(aras_n, {TW{1'b0}});
                s_v[free_i]    <= 1'b1;
                s_e[free_i]    <= p_e;
                s_l[free_i]    <= p_l;
                s_d[free_i]    <= p_d;
                s_we[free_i]   <= req_we;
                s_idx[free_i]  <= req_idx;
                s_tag[free_i]  <= req_tag;
                s_data[free_i] <= req_data;
            end
            if (pop) s_v[pop_i] <= 1'b0;
        end
    end

    wire             h_we  = s_we[pop_i];
    wire [IDX_W-1:0] h_idx = s_idx[pop_i];
    always @(posedge clk) begin
        if (pop && h_we) mem[h_idx] <= s_data[pop_i];
    end

    assign rsp_valid  = pop && !h_we;
    assign rsp_tag    = s_tag[pop_i];
    assign rsp_data   = mem[h_idx];
    assign iss_valid  = fire;
    assign iss_done   = cnt + 32'(p_d) + 32'd1;   // p_d is relative to the next cycle
    assign ref_valid  = do_ref;
    assign ref_forced = forced;
    assign ref_bank   = ref_ptr;
    assign idle       = !busy;
endmodule
`default_nettype wire
