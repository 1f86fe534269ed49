// HBM3-like buffer memory behind a synthesizable controller front-end (models/bridge/hbm.py is the
// reference and states the rules). Storage is a plain line array; the timing is what an open-page
// HBM pseudo-channel would give: per-bank state (open row, ACT/column/ready times), per-pseudo-
// channel data bus, tRCD/tCL/tRP/tRAS/tBURST.
// One access is accepted per cycle into one of INFLIGHT slots and a request register, then
// scheduled by a pipeline:
//   S1 (the scheduling cycle u, at the earliest the cycle after acceptance): bank select, the ready
//      time of the access's case (row hit, row miss, closed), its compares against every burst its
//      pseudo-channel holds; registered.
//   S2 (u + 1): the one-hot pick of the column time and the writes of bank and bus state.
//   S3 (u + 2), S4 (u + 3): the completion reservation (iss_valid / iss_done report it in S4).
// The timing is that of an access issued in cycle u (the column command at u or later), so an
// access accepted at t with the pipeline free completes one cycle later than one issued at t.
// Scheduling is out of order across banks: the column burst takes the earliest bus gap of its
// pseudo-channel at or after the bank is ready (so a bank waiting for refresh does not hold the
// bus for the others), and the access reserves the first cycle at or after its data time that no
// slot holds (one data port, one completion per cycle) and leaves tagged then. Per bank both
// increase with scheduling (= acceptance) order, so one bank / one line completes in order.
// Hazards: an access is not scheduled in the cycle after one of the same pseudo-channel (S1 would
// read the bank and bus state that S2 writes in that cycle), nor in a forced refresh cycle or the
// cycle before a round starts (the refresh would read or write bank state S1/S2 use); the request
// register holds it meanwhile and acceptance continues while the register is free or leaving.
// Refresh: per-bank (REFsb), one owed every T_REFI/(NPC*NBANK) cycles round robin. Owed refreshes
// run one per cycle once the controller has been idle (nothing scheduled in flight, nothing being
// scheduled) REF_IDLE cycles; once every bank is REF_POSTPONE behind, a timer cycle forces a
// round: every bank refreshed in NPC*NBANK consecutive cycles, no access scheduled meanwhile (one
// stall per tREFI for an in-order consumer instead of one per bank). REF_POSTPONE=0: one bank at
// each timer cycle. NPC, NBANK, ROW_LINES, SETS: powers of two, NPC, NBANK >= 2,
// T_REFI/(NPC*NBANK) > NPC*NBANK, T_RP + T_RFC below the per-bank refresh interval, 2 <= T_BURST <=
// T_RCD + T_RFC, T_CL + T_BURST >= 4 (checked at elaboration).
// Times: every time the scheduler keeps is an offset from the current cycle (TW bits, counting
// down), so its decisions do not depend on the absolute cycle number and never see a wrap; `now`
// (32-bit cycle count since reset) and `iss_done` (now + offset) wrap modulo 2^32, consistently.
// Depth: the compares, constant additions and count-down decrements are the gate-network modules
// gt_tree, ks_adder and dn_floor (rtl/common, (* keep *) levels, log2(TW) stages), since ABC maps
// yosys' carry chains at about two levels per bit and folds unkept prefix networks back into chains.
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
    parameter integer T_BURST   = 3,       // 2 .. T_RCD + T_RFC
    parameter integer T_REFI    = 3900,    // refresh interval: one REFsb per bank per T_REFI
    parameter integer T_RFC     = 160,     // single-bank refresh time
    parameter integer REF_POSTPONE = 8,    // refreshes per bank that may be postponed (0: none)
    parameter integer REF_IDLE  = 32,      // idle cycles before owed refreshes run
    parameter integer INFLIGHT  = 8,       // accesses accepted and not completed (slots), >= 2
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
    output wire             iss_valid,     // debug: an access scheduled three cycles ago (S4) ...
    output wire [31:0]      iss_done,      // ... completes in this cycle ...
    output wire             iss_we,        // ... is a write ...
    output wire [IDX_W-1:0] iss_idx,       // ... of this line
    output wire             ref_valid,     // debug: a refresh executes this cycle ...
    output wire             ref_forced,    // ... forced (postponement exhausted) ...
    output wire [$clog2(NPC*NBANK)-1:0] ref_bank, // ... on this bank number
    output wire             idle           // no access accepted and not completed
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
        // S2 writes times relative to two cycles after the scheduling cycle: a burst of at least
        // 2 cycles keeps the bank's and the bus's written times at or after then. A burst no
        // longer than tRCD + tRFC ends before a refreshed bank can take its next column command,
        // so the refresh need not compare with the bank's last burst.
        if (T_BURST < 2 || T_BURST > T_RCD + T_RFC) begin : g_bad_burst
            xb_hbm_ctrl_parameter_error_T_BURST_must_be_2_to_T_RCD_plus_T_RFC u_stop ();
        end
        // S4 writes the reservation in u + 3: the data must not be done before u + 4
        if (T_CL + T_BURST < 4) begin : g_bad_cl
            xb_hbm_ctrl_parameter_error_T_CL_plus_T_BURST_must_be_at_least_4 u_stop ();
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
    // bus: the end of a held burst; the pipeline: 3 cycles), such a chain has at most INFLIGHT
    // links in flight, and a completion lies within tCL + tBURST + INFLIGHT of its column time. A
    // refresh adds tRP + tRFC on top of a chain; at most REF_POSTPONE + 1 refreshes of one bank
    // run close together, and the bank catches up between them since the per-bank refresh
    // interval NB * RSLOT exceeds tRP + tRFC (refused otherwise: the bank's availability would
    // run away). HORIZON sums these terms generously and TW keeps a factor 2 above it. This is an
    // argued bound, not a proof.
    localparam integer STEP   = T_RP + T_RCD + TWIN + CD + INFLIGHT + 3;
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
    // cnt / cnt1: the cycle count and the count + 1, on kept prefix incrementers (a ripple +1 on
    // 32 bits is 30 levels); iss_done adds an offset to cnt1 with a kept prefix adder
    reg  [31:0] cnt, cnt1;
    wire [31:0] cnt_inc, cnt1_inc;
    ks_adder #(.WIDTH(32)) u_cnt  (.a(cnt),  .b(32'd1), .sum(cnt_inc));
    ks_adder #(.WIDTH(32)) u_cnt1 (.a(cnt1), .b(32'd1), .sum(cnt1_inc));
    assign now = cnt;

    // per bank: open row, and the times the next access would see in each case
    reg             bk_open [0:NB-1];
    reg [IDX_W-1:0] bk_row  [0:NB-1];
    // the eight time registers of a bank, bk_t[bank][R_*] (count-downs with the floors of floor_of)
    localparam integer R_CEH  = 0;      // row hit: column ready, max(act + tRCD, col + tBURST)
    localparam integer R_AM   = 1;      // row miss: ACT, max(act + tRAS, col + tBURST) + tRP (floor tRP)
    localparam integer R_CEM  = 2;      // row miss: column ready, R_AM + tRCD (floor tRP + tRCD)
    localparam integer R_AC   = 3;      // closed: ACT, avail (the end of its refresh)
    localparam integer R_CEC  = 4;      // closed: column ready, max(avail + tRCD, col + tBURST) (floor tRCD)
    localparam integer R_ARAS = 5;      // act + tRAS
    localparam integer R_ARM  = 6;      // row miss: ACT + tRAS, R_AM + tRAS (floor tRP + tRAS)
    localparam integer R_ARC  = 7;      // closed: ACT + tRAS, R_AC + tRAS (floor tRAS)
    reg [TW-1:0]    bk_t    [0:NB-1][0:7];
    reg [RS_W-1:0]  ref_left;           // cycles to the next refresh timer cycle
    reg [OW-1:0]    owed;
    reg [RW_-1:0]   rnd_left;           // refreshes left in a forced round after this cycle
    reg [IW_-1:0]   idle_q;             // consecutive idle cycles before this one (saturating)
    reg [NB_W-1:0]  ref_ptr;
    reg [511:0]     mem [0:SETS-1];

    // slots: taken at acceptance (payload), burst written by S2, completion reserved by S4
    reg             s_a    [0:INFLIGHT-1];   // accepted, not completed
    reg             s_b    [0:INFLIGHT-1];   // its burst is scheduled (s_e, s_l valid)
    reg             s_r    [0:INFLIGHT-1];   // its completion is reserved (s_d valid)
    reg [TW-1:0]    s_e    [0:INFLIGHT-1];   // end of the slot's data burst (col + tBURST)
    reg [TW-1:0]    s_l    [0:INFLIGHT-1];   // col + 1 - tBURST: a burst starting in [s_l, s_e) overlaps it
    reg [TW-1:0]    s_d    [0:INFLIGHT-1];   // reserved completion cycle
    reg             s_z    [0:INFLIGHT-1];   // s_r && s_d == 0: the slot completes in this cycle
    reg             s_we   [0:INFLIGHT-1];
    reg [IDX_W-1:0] s_idx  [0:INFLIGHT-1];
    reg [TAG_W-1:0] s_tag  [0:INFLIGHT-1];
    reg [511:0]     s_data [0:INFLIGHT-1];

    // pipeline registers: R (accepted, waiting for S1), P (S1 -> S2), Q (S2 -> S3), T (S3 -> S4)
    reg                r_v;
    reg [IDX_W-1:0]    r_idx;
    reg [SL_W-1:0]     r_sl;
    reg                p_v;
    reg [IDX_W-1:0]    p_idx;
    reg [SL_W-1:0]     p_sl;
    reg [TW-1:0]       p_col;    // column-ready time of the access's bank (relative to u)
    reg [TW-1:0]       p_aras;   // its ACT + tRAS after the access (relative to u)
    reg [TW-1:0]       p_rmb;    // p_aras - tBURST - 1 (valid unless p_rneg)
    reg                p_rneg;   // p_aras < tBURST + 1
    reg [INFLIGHT-1:0] p_gt;     // slot on the pseudo-channel, its burst ends after p_col
    reg [INFLIGHT-1:0] p_ovl;    // ... and overlaps a burst starting at p_col
    reg                q_v;
    reg [SL_W-1:0]     q_sl;
    reg [TW-1:0]       q_e;      // the burst end written by S2 (relative to S3's cycle)
    reg                t_v;      // T (S3 -> S4)
    reg [SL_W-1:0]     t_sl;
    reg [TW-1:0]       t_e;      // q_e of the access (relative to the cycle before S4)
    reg [INFLIGHT-1:0] t_ez;     // t_ez[k]: t_e + tCL - 2 + k == 0 (mod 2^TW)
    reg [INFLIGHT-1:0] t_tk;     // completion offsets held by the reservations S3 saw
    reg [2*INFLIGHT-2:0] t_dd;   // t_dd[I-1+m]: raw done of the access in T + m = that of the
                                 // access in S4 when it was in S3's cycle, m in (-I, I)
    reg                b_v;      // S4 reserved a completion in the previous cycle ...
    reg [INFLIGHT-1:0] b_fz;     // ... at this offset from its raw done (one-hot)
    // slot-only bus terms of the previous cycle (valid for S2: see the bus fit below)
    reg [INFLIGHT-1:0] efit_q;                  // a burst starting at the slot's end fits
    reg [INFLIGHT-1:0] lt_q [0:INFLIGHT-1];     // lt_q[c][m]: slot m's end orders before slot c's

    // ------------------------------------------------------------------ kept arithmetic networks
    // Every compare (a > b), constant addition (a + k mod 2^TW) and count-down step the scheduler
    // needs is listed below and built by a gate-network module (rtl/common): gt_tree (a tree of
    // (greater, equal) pairs), ks_adder (Kogge-Stone prefix sum), dn_floor (x == floor ? x : x - 1
    // by a prefix AND of the inverted low bits); their nets are (* keep *).
    localparam integer I   = INFLIGHT;
    // compares
    localparam integer C_GT  = 0;                 // s_e[m] > col_e                       (S1)
    localparam integer C_LG  = C_GT + I;          // s_l[m] > col_e                       (S1)
    localparam integer C_RN  = C_LG + I;          // tBURST + 1 > aras_n                  (S1)
    localparam integer C_EE  = C_RN + 1;          // s_e[m] > s_e[c], at C_EE + m * I + c (slots)
    localparam integer C_LE  = C_EE + I * I;      // s_l[m] > s_e[c]                      (slots)
    localparam integer C_RL  = C_LE + I * I;      // p_rmb > s_e[c]                       (S2)
    localparam integer C_RC  = C_RL + I;          // p_col > p_rmb                        (S2)
    localparam integer C_WL  = C_RC + 1;          // s_e[c] > tBURST                      (S2)
    localparam integer C_WLC = C_WL + I;          // p_col > tBURST + 1                   (S2)
    localparam integer C_A2  = C_WLC + 1;         // p_aras > 2                           (S2)
    localparam integer NCMP  = C_A2 + 1;
    // constant additions
    localparam integer A_WE  = 0;                 // s_e[c] + tBURST - 1                  (S2)
    localparam integer A_WL  = A_WE + I;          // s_e[c] - tBURST
    localparam integer A_AM  = A_WL + I;          // s_e[c] + tBURST + tRP - 1
    localparam integer A_CEM = A_AM + I;          // s_e[c] + tBURST + tRP + tRCD - 1
    localparam integer A_ARM = A_CEM + I;         // s_e[c] + tBURST + tRP + tRAS - 1
    localparam integer A_C   = A_ARM + I;         // p_col + (tBURST - 2, -tBURST - 1, tBURST + tRP - 2,
                                                  //   + tRCD, + tRAS): 5 entries
    localparam integer A_R   = A_C + 5;           // p_aras + (tRP - 2, tRP + tRCD - 2, tRP + tRAS - 2, -2)
    localparam integer A_D   = A_R + 4;           // t_e + tCL - 2 + k                    (S4)
    localparam integer A_F   = A_D + I;           // refresh: ACT base + (tRFC - 1, tRFC + tRAS - 1, tRFC + tRCD - 1)
    localparam integer A_M   = A_F + 3;           // aras_n - tBURST - 1                  (S1)
    localparam integer NADD  = A_M + 1;
    // count-downs: per bank 8 registers, per slot 3
    localparam integer D_BK  = 0;                 // bank b, register r: D_BK + 8 * b + r
    localparam integer D_SL  = 8 * NB;            // slot i: D_SL + 3 * i + (0 e, 1 l, 2 d)
    localparam integer NDEC  = D_SL + 3 * I;

    /* verilator lint_off UNUSEDSIGNAL */
    function automatic [TW-1:0] add_k(input integer n);
        integer v;   // the constant (negative: subtracted), taken modulo 2^TW
        begin
            if (n < A_WL)       v = T_BURST - 1;
            else if (n < A_AM)  v = -T_BURST;
            else if (n < A_CEM) v = T_BURST + T_RP - 1;
            else if (n < A_ARM) v = T_BURST + T_RP + T_RCD - 1;
            else if (n < A_C)   v = T_BURST + T_RP + T_RAS - 1;
            else if (n == A_C)     v = T_BURST - 2;
            else if (n == A_C + 1) v = -T_BURST - 1;
            else if (n == A_C + 2) v = T_BURST + T_RP - 2;
            else if (n == A_C + 3) v = T_BURST + T_RP + T_RCD - 2;
            else if (n == A_C + 4) v = T_BURST + T_RP + T_RAS - 2;
            else if (n == A_R)     v = T_RP - 2;
            else if (n == A_R + 1) v = T_RP + T_RCD - 2;
            else if (n == A_R + 2) v = T_RP + T_RAS - 2;
            else if (n == A_R + 3) v = -2;
            else if (n < A_F)      v = T_CL - 2 + (n - A_D);
            else if (n == A_F)     v = T_RFC - 1;
            else if (n == A_F + 1) v = T_RFC + T_RAS - 1;
            else if (n == A_F + 2) v = T_RFC + T_RCD - 1;
            else                   v = -T_BURST - 1;
            add_k = TW'(v);
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    function automatic integer floor_of(input integer n);
        integer r;
        begin
            r = (n - D_BK) % 8;
            if (n >= D_SL)   floor_of = 0;
            else if (r == 1) floor_of = T_RP;
            else if (r == 2) floor_of = T_RP + T_RCD;
            else if (r == 4) floor_of = T_RCD;
            else if (r == 6) floor_of = T_RP + T_RAS;
            else if (r == 7) floor_of = T_RAS;
            else             floor_of = 0;
        end
    endfunction

    wire [NCMP-1:0] cmp_gt;
    wire [NADD*TW-1:0] add_s;   // sum n at bits n*TW +: TW
    wire [NDEC*TW-1:0] dec_y;   // count-down n at bits n*TW +: TW

    // ------------------------------------------------------------------ slots, refresh, acceptance
    reg            busy_s, held, free_any, pop;
    reg [SL_W-1:0] free_i, pop_i;
    integer i;
    always @* begin
        busy_s = 1'b0; held = 1'b0; free_any = 1'b0; free_i = {SL_W{1'b0}}; pop = 1'b0; pop_i = {SL_W{1'b0}};
        for (i = INFLIGHT - 1; i >= 0; i = i - 1) begin
            if (s_b[i]) busy_s = 1'b1;
            if (s_a[i]) held = 1'b1;
            if (!s_a[i]) begin free_any = 1'b1; free_i = SL_W'(i); end
            if (s_z[i]) begin pop = 1'b1; pop_i = SL_W'(i); end
        end
    end

    // refresh: owed count; a round starts at a timer cycle when every bank is REF_POSTPONE behind.
    // The conditions are registered flags, set from the counters' next values (tick_q:
    // ref_left == 0, pre_q: ref_left == 1, lim_q: owed >= LIMIT, owz_q: owed != 0, rnd_q:
    // rnd_left != 0, ok_q: idle_q >= REF_IDLE), so the refresh decision and the S1 enable start
    // at flip-flops.
    reg  tick_q, pre_q, lim_q, owz_q, rnd_q, ok_q;
    wire tick    = tick_q;
    wire at_lim  = (LIMIT == 0) ? 1'b1 : lim_q;
    wire idle_ok = (REF_IDLE == 0) ? 1'b1 : ok_q;
    wire start   = tick && at_lim && !rnd_q;
    wire forced  = start || rnd_q;
    // the next cycle starts a round unless a refresh runs in this one (no round runs here: the
    // timer cycle is more than a round after the previous one)
    wire pre_round = pre_q && at_lim;
    // the counters' next values for each case, from the registers
    wire [RS_W-1:0] rl_m1;     // ref_left - 1
    wire [OW-1:0]   ow_p1, ow_m1;
    ks_adder #(.WIDTH(RS_W)) u_rl (.a(ref_left), .b({RS_W{1'b1}}), .sum(rl_m1));
    ks_adder #(.WIDTH(OW))   u_op (.a(owed), .b(OW'(1)), .sum(ow_p1));
    ks_adder #(.WIDTH(OW))   u_om (.a(owed), .b({OW{1'b1}}), .sum(ow_m1));
    // owed + tick - do_ref >= LIMIT / != 0 for do_ref = 0 and 1
    wire lim_0 = tick ? (owed >= OW'(LIMIT > 0 ? LIMIT - 1 : 0)) : (owed >= OW'(LIMIT));
    wire lim_1 = tick ? (owed >= OW'(LIMIT)) : (owed >= OW'(LIMIT + 1));
    wire owz_0 = tick || (owed != {OW{1'b0}});
    wire owz_1 = tick ? (owed != {OW{1'b0}}) : (owed > OW'(1));

    // S1 runs when the request register holds an access, the access in S2 is on another
    // pseudo-channel, and neither this cycle nor the next is a refresh cycle
    wire go = r_v && !(p_v && p_idx[PC_W-1:0] == r_idx[PC_W-1:0]) && !forced && !pre_round;
    assign req_ready = free_any && (!r_v || go);
    wire   fire      = req_valid && req_ready;
    wire   idle_now  = !busy_s && !p_v && !go;    // nothing scheduled in flight, nothing scheduled
    wire   do_ref    = forced || (owz_q && idle_now && idle_ok);

    // ------------------------------------------------------------------ S1
    // bank timing of the access in R: every bank's column-ready and ACT time for this row in
    // parallel (row compare, case select), then the one of its bank
    wire [NB_W-1:0]  bsel  = r_idx[NB_W-1:0];
    wire [PC_W-1:0]  psel  = r_idx[PC_W-1:0];
    wire [IDX_W-1:0] row_n = r_idx >> SHIFT;
    reg  [TW-1:0] b_ce  [0:NB-1];
    reg           b_new [0:NB-1];
    reg  [TW-1:0] b_ras [0:NB-1];   // ACT + tRAS after the access
    integer b;
    always @* begin
        for (b = 0; b < NB; b = b + 1) begin
            b_new[b] = !(bk_open[b] && bk_row[b] == row_n);
            b_ce[b]  = !b_new[b] ? bk_t[b][R_CEH] : bk_open[b] ? bk_t[b][R_CEM] : bk_t[b][R_CEC];
            b_ras[b] = !b_new[b] ? bk_t[b][R_ARAS] : bk_open[b] ? bk_t[b][R_ARM] : bk_t[b][R_ARC];
        end
    end
    wire [TW-1:0] col_e   = b_ce[bsel];
    wire [TW-1:0] aras_n  = b_ras[bsel];

    // data bus of the pseudo-channel: the earliest start >= col_e whose burst overlaps no burst held
    // by a slot of the same pseudo-channel. Candidates are col_e and the end of each held burst
    // that lies after col_e (an end at or before col_e gives col_e again). S1 compares col_e with
    // every burst (gt: the burst ends after col_e; ovl: it overlaps a burst starting at col_e).
    // Whether a burst end fits, and the order of the ends, depend on the slots only: they are
    // registered every cycle (efit_q, lt_q). S2 uses them one cycle later, which is exact: the
    // bursts of the access's pseudo-channel do not change in between (the access before it in S2
    // is on another one), every time counts down by one, and a candidate's end is at least 1 in
    // S1, so the floors change no compare that matters.
    reg [INFLIGHT-1:0] on_pc, s1_gt, s1_ovl;
    integer m, c;
    always @* begin
        for (m = 0; m < I; m = m + 1) begin
            on_pc[m]  = s_b[m] && (s_idx[m][PC_W-1:0] == psel);
            s1_gt[m]  = on_pc[m] && cmp_gt[C_GT + m];
            s1_ovl[m] = s1_gt[m] && !cmp_gt[C_LG + m];
        end
    end
    reg [INFLIGHT-1:0] efit_n;
    reg [INFLIGHT-1:0] lt_n [0:INFLIGHT-1];
    always @* begin
        for (c = 0; c < I; c = c + 1) begin
            efit_n[c] = 1'b1;
            for (m = 0; m < I; m = m + 1) begin
                if (s_b[m] && s_idx[m][PC_W-1:0] == s_idx[c][PC_W-1:0] && cmp_gt[C_EE + m * I + c] &&
                    !cmp_gt[C_LE + m * I + c]) efit_n[c] = 1'b0;
                // m orders before c: an earlier end, or the same end and a lower index
                lt_n[c][m] = (m != c) && (cmp_gt[C_EE + c * I + m] || (m < c && !cmp_gt[C_EE + m * I + c]));
            end
        end
    end

    // ------------------------------------------------------------------ S2
    // the candidate taken: col_e if no held burst overlaps it, else the earliest fitting end
    reg [INFLIGHT-1:0] cv, sel;
    reg                fit0;
    always @* begin
        fit0 = ~|p_ovl;
        cv   = p_gt & efit_q;
        for (c = 0; c < I; c = c + 1)
            sel[c] = cv[c] && !fit0 && !(|(cv & lt_q[c]));
    end
    // everything the access writes, for each candidate in parallel (relative to the cycle after
    // S2); the pick selects among them. A slot candidate's column time is s_e[c] (relative to
    // S2's cycle), col_e's is p_col - 1.
    reg [TW-1:0] p_e, p_l, p_am, p_cem, p_arm;
    reg          rl;
    always @* begin
        rl    = !p_rneg && !cmp_gt[C_RC];
        p_e   = fit0 ? add_s[(A_C)*TW +: TW] : {TW{1'b0}};
        p_l   = (fit0 && cmp_gt[C_WLC]) ? add_s[(A_C + 1)*TW +: TW] : {TW{1'b0}};
        p_am  = fit0 ? (rl ? add_s[(A_R)*TW +: TW]     : add_s[(A_C + 2)*TW +: TW]) : {TW{1'b0}};
        p_cem = fit0 ? (rl ? add_s[(A_R + 1)*TW +: TW] : add_s[(A_C + 3)*TW +: TW]) : {TW{1'b0}};
        p_arm = fit0 ? (rl ? add_s[(A_R + 2)*TW +: TW] : add_s[(A_C + 4)*TW +: TW]) : {TW{1'b0}};
        for (c = 0; c < I; c = c + 1) begin
            rl = !p_rneg && cmp_gt[C_RL + c];
            if (sel[c]) begin
                p_e   = p_e   | add_s[(A_WE + c)*TW +: TW];
                p_l   = p_l   | (cmp_gt[C_WL + c] ? add_s[(A_WL + c)*TW +: TW] : {TW{1'b0}});
                p_am  = p_am  | (rl ? add_s[(A_R)*TW +: TW]     : add_s[(A_AM + c)*TW +: TW]);
                p_cem = p_cem | (rl ? add_s[(A_R + 1)*TW +: TW] : add_s[(A_CEM + c)*TW +: TW]);
                p_arm = p_arm | (rl ? add_s[(A_R + 2)*TW +: TW] : add_s[(A_ARM + c)*TW +: TW]);
            end
        end
    end
    wire [TW-1:0]   p_aras2 = cmp_gt[C_A2] ? add_s[(A_R + 3)*TW +: TW] : {TW{1'b0}};   // ACT + tRAS, floor 0
    wire [NB_W-1:0] p_bsel  = p_idx[NB_W-1:0];

    // ------------------------------------------------------------------ S3, S4
    // completion reservation: first offset k < INFLIGHT with raw done + k held by no slot (at most
    // INFLIGHT-1 other accesses are accepted, so one is always free). S3 (u + 2) finds the offsets
    // held by the reservations in the slots, S4 (u + 3) adds the one S4 made in the cycle before
    // (the access ahead, which S3 could not see yet), takes the first free offset and writes it.
    // raw done + k = q_e + tCL + k (relative to S3's cycle) is compared with each reservation
    // without forming the sum: for a constant K, a + K == d holds iff every bit of d is
    // a ^ K ^ (the carry that a, K and d's lower bit imply): a few gate levels and an AND tree.
    // For the access ahead, S3 compares the two raw done times instead (their difference, decoded
    // for every offset pair), so S4 needs only that access's one-hot offset.
    function automatic sum_eq(input [TW-1:0] a, input [TW-1:0] k, input [TW-1:0] d);
        reg [TW-1:0] cin;   // carry into each bit, if the sum is d
        reg [TW-2:0] cout;  // carry out of each bit below the top given that carry in
        begin
            cin  = a ^ k ^ d;
            cout = (a[TW-2:0] & k[TW-2:0]) | ((a[TW-2:0] | k[TW-2:0]) & cin[TW-2:0]);
            sum_eq = !cin[0] && (cin[TW-1:1] == cout);
        end
    endfunction
    reg [INFLIGHT-1:0] tk, tk4, fz;
    reg [TW-1:0]       q_d;
    reg                q_z;      // q_d == 0
    integer j, k;
    always @* begin
        tk = {INFLIGHT{1'b0}};
        for (k = 0; k < I; k = k + 1)
            for (j = 0; j < I; j = j + 1)
                if (s_r[j] && sum_eq(q_e, TW'(T_CL + k), s_d[j])) tk[k] = 1'b1;
        for (k = 0; k < I; k = k + 1) begin
            tk4[k] = t_tk[k];
            for (j = 0; j < I; j = j + 1)    // j: the offset the access ahead took
                if (b_v && b_fz[j] && t_dd[I - 1 + j - k]) tk4[k] = 1'b1;
        end
        for (k = 0; k < I; k = k + 1)
            fz[k] = !tk4[k] && &(tk4 | ({INFLIGHT{1'b1}} << k));    // offsets below k held
        q_d = {TW{1'b0}};
        for (k = 0; k < I; k = k + 1)
            if (fz[k]) q_d = q_d | add_s[(A_D + k)*TW +: TW];
        // q_d == 0 without forming q_d: the picked offset's t_e + tCL - 2 + k is 0 (t_ez, the
        // compares of t_e with a constant per offset, registered with t_e), or no offset is free
        q_z = &tk4 || |(fz & t_ez);
    end

    // the access in S3 against the one in S4: raw done + k equals the other's raw done + j iff
    // q_e + tCL + k == t_e + tCL - 1 + j, i.e. q_e - t_e - 1 == j - k - 2
    wire [TW-1:0]        qt_d;      // q_e - t_e - 1
    reg  [2*INFLIGHT-2:0] dd;
    ks_adder #(.WIDTH(TW)) u_qt (.a(q_e), .b(~t_e), .sum(qt_d));
    integer dm;
    always @*
        for (dm = 0; dm < 2 * I - 1; dm = dm + 1)
            dd[dm] = t_v && (qt_d == TW'(dm - (I - 1) - 2));

    // ------------------------------------------------------------------ the networks' instances
    // the refreshed bank's ACT base: precharge after tRAS and the last burst, then tRP (open), or
    // its availability (closed); a burst no longer than tRCD + tRFC ends before tRFC + tRCD
    wire [TW-1:0] rf_b = bk_open[ref_ptr] ? bk_t[ref_ptr][R_AM] : bk_t[ref_ptr][R_AC];

    genvar gn;
    generate
        // each network instance takes its operands straight from the state (no named copy per
        // instance: a copy would only repeat its source's toggle points)
        for (gn = 0; gn < NCMP; gn = gn + 1) begin : g_cmp
            if (gn < C_LG) begin : g_gt
                gt_tree #(.WIDTH(TW)) u_gt (.a(s_e[gn - C_GT]), .b(col_e), .gt(cmp_gt[gn]));
            end else if (gn < C_RN) begin : g_lg
                gt_tree #(.WIDTH(TW)) u_gt (.a(s_l[gn - C_LG]), .b(col_e), .gt(cmp_gt[gn]));
            end else if (gn == C_RN) begin : g_rn
                gt_tree #(.WIDTH(TW)) u_gt (.a(TW'(T_BURST + 1)), .b(aras_n), .gt(cmp_gt[gn]));
            end else if (gn < C_LE) begin : g_ee
                gt_tree #(.WIDTH(TW)) u_gt (.a(s_e[(gn - C_EE) / I]), .b(s_e[(gn - C_EE) % I]), .gt(cmp_gt[gn]));
            end else if (gn < C_RL) begin : g_le
                gt_tree #(.WIDTH(TW)) u_gt (.a(s_l[(gn - C_LE) / I]), .b(s_e[(gn - C_LE) % I]), .gt(cmp_gt[gn]));
            end else if (gn < C_RC) begin : g_rl
                gt_tree #(.WIDTH(TW)) u_gt (.a(p_rmb), .b(s_e[gn - C_RL]), .gt(cmp_gt[gn]));
            end else if (gn == C_RC) begin : g_rc
                gt_tree #(.WIDTH(TW)) u_gt (.a(p_col), .b(p_rmb), .gt(cmp_gt[gn]));
            end else if (gn < C_WLC) begin : g_wl
                gt_tree #(.WIDTH(TW)) u_gt (.a(s_e[gn - C_WL]), .b(TW'(T_BURST)), .gt(cmp_gt[gn]));
            end else if (gn == C_WLC) begin : g_wlc
                gt_tree #(.WIDTH(TW)) u_gt (.a(p_col), .b(TW'(T_BURST + 1)), .gt(cmp_gt[gn]));
            end else begin : g_a2
                gt_tree #(.WIDTH(TW)) u_gt (.a(p_aras), .b(TW'(2)), .gt(cmp_gt[gn]));
            end
        end
        for (gn = 0; gn < NADD; gn = gn + 1) begin : g_add
            if (gn < A_C) begin : g_sl
                ks_adder #(.WIDTH(TW)) u_add (.a(s_e[(gn - A_WE) % I]), .b(add_k(gn)), .sum(add_s[gn*TW +: TW]));
            end else if (gn < A_R) begin : g_col
                ks_adder #(.WIDTH(TW)) u_add (.a(p_col), .b(add_k(gn)), .sum(add_s[gn*TW +: TW]));
            end else if (gn < A_D) begin : g_ras
                ks_adder #(.WIDTH(TW)) u_add (.a(p_aras), .b(add_k(gn)), .sum(add_s[gn*TW +: TW]));
            end else if (gn < A_F) begin : g_done
                ks_adder #(.WIDTH(TW)) u_add (.a(t_e), .b(add_k(gn)), .sum(add_s[gn*TW +: TW]));
            end else if (gn < A_M) begin : g_ref
                ks_adder #(.WIDTH(TW)) u_add (.a(rf_b), .b(add_k(gn)), .sum(add_s[gn*TW +: TW]));
            end else begin : g_rmb
                ks_adder #(.WIDTH(TW)) u_add (.a(aras_n), .b(add_k(gn)), .sum(add_s[gn*TW +: TW]));
            end
        end
        for (gn = 0; gn < NDEC; gn = gn + 1) begin : g_dec
            if (gn >= D_SL) begin : g_slot
                if ((gn - D_SL) % 3 == 0) begin : g_e
                    dn_floor #(.WIDTH(TW)) u_dn (.x(s_e[(gn - D_SL) / 3]), .floor(TW'(floor_of(gn))), .y(dec_y[gn*TW +: TW]));
                end else if ((gn - D_SL) % 3 == 1) begin : g_l
                    dn_floor #(.WIDTH(TW)) u_dn (.x(s_l[(gn - D_SL) / 3]), .floor(TW'(floor_of(gn))), .y(dec_y[gn*TW +: TW]));
                end else begin : g_d
                    dn_floor #(.WIDTH(TW)) u_dn (.x(s_d[(gn - D_SL) / 3]), .floor(TW'(floor_of(gn))), .y(dec_y[gn*TW +: TW]));
                end
            end else begin : g_bank
                localparam integer BK = (gn - D_BK) / 8;
                localparam integer RG = (gn - D_BK) % 8;
                dn_floor #(.WIDTH(TW)) u_dn (.x(bk_t[BK][RG]), .floor(TW'(floor_of(gn))), .y(dec_y[gn*TW +: TW]));
            end
        end
    endgenerate


    // ------------------------------------------------------------------ state
    integer bi, br;
    always @(posedge clk) begin
        if (rst) begin
            cnt      <= 32'd0;
            cnt1     <= 32'd1;
            ref_left <= RS_W'(RSLOT);
            owed     <= {OW{1'b0}};
            rnd_left <= {RW_{1'b0}};
            idle_q   <= {IW_{1'b0}};
            tick_q   <= 1'b0;           // RSLOT > 2: the first timer cycle is RSLOT away
            pre_q    <= 1'b0;
            lim_q    <= (LIMIT == 0);
            owz_q    <= 1'b0;
            rnd_q    <= 1'b0;
            ok_q     <= (REF_IDLE == 0);
            ref_ptr  <= {NB_W{1'b0}};
            r_v      <= 1'b0;
            p_v      <= 1'b0;
            q_v      <= 1'b0;
            t_v      <= 1'b0;
            b_v      <= 1'b0;
            // every bank as if ACT and column at cycle 0 and available since then
            for (bi = 0; bi < NB; bi = bi + 1) begin
                bk_open[bi] <= 1'b0;
                bk_row[bi]  <= {IDX_W{1'b0}};
                bk_t[bi][R_CEH]  <= TW'(T_RCD > T_BURST ? T_RCD : T_BURST);
                bk_t[bi][R_AM]   <= TW'((T_RAS > T_BURST ? T_RAS : T_BURST) + T_RP);
                bk_t[bi][R_CEM]  <= TW'((T_RAS > T_BURST ? T_RAS : T_BURST) + T_RP + T_RCD);
                bk_t[bi][R_AC]   <= {TW{1'b0}};
                bk_t[bi][R_CEC]  <= TW'(T_RCD > T_BURST ? T_RCD : T_BURST);
                bk_t[bi][R_ARAS] <= TW'(T_RAS);
                bk_t[bi][R_ARM]  <= TW'((T_RAS > T_BURST ? T_RAS : T_BURST) + T_RP + T_RAS);
                bk_t[bi][R_ARC]  <= TW'(T_RAS);
            end
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) begin
                s_a[bi] <= 1'b0; s_b[bi] <= 1'b0; s_r[bi] <= 1'b0;
            end
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) s_z[bi] <= 1'b0;
        end else begin
            cnt  <= cnt_inc;
            cnt1 <= cnt1_inc;
            ref_left <= tick ? RS_W'(RSLOT - 1) : rl_m1;
            tick_q   <= !tick && (ref_left == RS_W'(1));
            pre_q    <= !tick && (ref_left == RS_W'(2));
            owed     <= (tick == do_ref) ? owed : tick ? ow_p1 : ow_m1;
            lim_q    <= (LIMIT == 0) || (do_ref ? lim_1 : lim_0);
            owz_q    <= do_ref ? owz_1 : owz_0;
            if (start)                        rnd_left <= RW_'(ROUND - 1);
            else if (rnd_q)                   rnd_left <= rnd_left - 1'b1;
            rnd_q    <= start ? (ROUND > 1) : (rnd_left > RW_'(1));
            if (!idle_now)                    idle_q <= {IW_{1'b0}};
            else if (!idle_ok)                idle_q <= idle_q + 1'b1;
            ok_q     <= (REF_IDLE == 0) || (idle_now && (idle_ok || idle_q == IW_'(REF_IDLE > 0 ? REF_IDLE - 1 : 0)));
            for (bi = 0; bi < NB; bi = bi + 1) begin
                for (br = 0; br < 8; br = br + 1)
                    bk_t[bi][br] <= dec_y[(D_BK + 8 * bi + br)*TW +: TW];
            end
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) begin
                s_e[bi] <= dec_y[(D_SL + 3 * bi + 0)*TW +: TW];
                s_l[bi] <= dec_y[(D_SL + 3 * bi + 1)*TW +: TW];
                s_d[bi] <= dec_y[(D_SL + 3 * bi + 2)*TW +: TW];
                // a reservation counting down reaches 0 in the next cycle (s_d counts down to 0
                // and stays), unless it completes in this one; the slot S4 reserves takes q_z
                s_z[bi] <= (t_v && t_sl == SL_W'(bi)) ? q_z :
                           s_r[bi] && s_d[bi][TW-1:1] == {(TW - 1){1'b0}} && !(pop && pop_i == SL_W'(bi));
            end
            if (do_ref) begin
                // REFsb on the oldest owed bank: precharge (after tRAS and the last burst), then tRFC
                bk_t[ref_ptr][R_AC]   <= add_s[(A_F)*TW +: TW];
                bk_t[ref_ptr][R_ARC]  <= add_s[(A_F + 1)*TW +: TW];
                bk_t[ref_ptr][R_CEC]  <= add_s[(A_F + 2)*TW +: TW];
                bk_open[ref_ptr] <= 1'b0;
                ref_ptr <= ref_ptr + 1'b1;
            end
            // acceptance: a slot and the request register
            if (fire) begin
                s_a[free_i]    <= 1'b1;
                s_we[free_i]   <= req_we;
                s_idx[free_i]  <= req_idx;
                s_tag[free_i]  <= req_tag;
                s_data[free_i] <= req_data;
                r_idx <= req_idx;
                r_sl  <= free_i;
            end
            if (fire)    r_v <= 1'b1;
            else if (go) r_v <= 1'b0;
            // S1 -> P
            p_v <= go;
            if (go) begin
                p_idx  <= r_idx;
                p_sl   <= r_sl;
                p_col  <= col_e;
                p_aras <= aras_n;
                p_rmb  <= add_s[(A_M)*TW +: TW];
                p_rneg <= cmp_gt[C_RN];
                p_gt   <= s1_gt;
                p_ovl  <= s1_ovl;
            end
            efit_q <= efit_n;
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) lt_q[bi] <= lt_n[bi];
            // S2: bank and bus writes (no refresh runs in this cycle)
            q_v <= p_v;
            if (p_v) begin
                bk_open[p_bsel] <= 1'b1;
                bk_row[p_bsel]  <= p_idx >> SHIFT;
                bk_t[p_bsel][R_CEH]  <= p_e;
                bk_t[p_bsel][R_AM]   <= p_am;
                bk_t[p_bsel][R_CEM]  <= p_cem;
                bk_t[p_bsel][R_ARM]  <= p_arm;
                bk_t[p_bsel][R_ARAS] <= p_aras2;
                s_b[p_sl] <= 1'b1;
                s_e[p_sl] <= p_e;
                s_l[p_sl] <= p_l;
                q_sl <= p_sl;
                q_e  <= p_e;
            end
            // S3 -> T, S4: completion reservation
            t_v <= q_v;
            if (q_v) begin
                t_sl <= q_sl;
                t_e  <= q_e;
                for (bi = 0; bi < INFLIGHT; bi = bi + 1) t_ez[bi] <= (q_e == TW'(2 - T_CL - bi));
                t_tk <= tk;
                t_dd <= dd;
            end
            b_v  <= t_v;
            b_fz <= fz;
            if (t_v) begin
                s_r[t_sl] <= 1'b1;
                s_d[t_sl] <= q_d;
            end
            if (pop) begin
                s_a[pop_i] <= 1'b0; s_b[pop_i] <= 1'b0; s_r[pop_i] <= 1'b0;
            end
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
    assign iss_valid  = t_v;
    ks_adder #(.WIDTH(32)) u_done (.a(cnt1), .b(32'(q_d)), .sum(iss_done));   // q_d: relative to the next cycle
    assign iss_we     = s_we[t_sl];
    assign iss_idx    = s_idx[t_sl];
    assign ref_valid  = do_ref;
    assign ref_forced = forced;
    assign ref_bank   = ref_ptr;
    assign idle       = !held;
endmodule
`default_nettype wire
