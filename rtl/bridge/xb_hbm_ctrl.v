// HBM3-like buffer memory behind a synthesizable controller front-end (models/bridge/hbm.py is the
// reference and states the rules). Storage is a plain line array; the timing is what an open-page
// HBM pseudo-channel would give: per-bank state (open row, ACT/column/ready timestamps against a
// free-running cycle counter), per-pseudo-channel data bus, tRCD/tCL/tRP/tRAS/tBURST.
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
// two, NPC, NBANK >= 2, T_REFI/(NPC*NBANK) > NPC*NBANK (checked at elaboration).
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
    localparam [31:0] REF_SLOT = (T_REFI / NB > 0) ? 32'(T_REFI / NB) : 32'd1;
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

    reg [31:0] cnt;
    assign now = cnt;

    reg             bk_open  [0:NB-1];
    reg [IDX_W-1:0] bk_row   [0:NB-1];
    reg [31:0]      bk_act   [0:NB-1];
    reg [31:0]      bk_col   [0:NB-1];
    reg [31:0]      bk_avail [0:NB-1];
    reg [31:0]      next_ref;
    reg [OW-1:0]    owed;
    reg [RW_-1:0]   rnd_left;                // refreshes left in a forced round after this cycle
    reg [IW_-1:0]   idle_q;                  // consecutive idle cycles before this one (saturating)
    reg [NB_W-1:0]  ref_ptr;
    reg [511:0]     mem [0:SETS-1];

    // in-flight slots
    reg             s_v    [0:INFLIGHT-1];
    reg [31:0]      s_done [0:INFLIGHT-1];
    reg [31:0]      s_col  [0:INFLIGHT-1];   // start of the slot's data burst
    reg             s_we   [0:INFLIGHT-1];
    reg [IDX_W-1:0] s_idx  [0:INFLIGHT-1];
    reg [TAG_W-1:0] s_tag  [0:INFLIGHT-1];
    reg [511:0]     s_data [0:INFLIGHT-1];

    function automatic [31:0] mx(input [31:0] x0, input [31:0] x1);
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
            if (s_v[i] && s_done[i] == cnt) begin pop = 1'b1; pop_i = SL_W'(i); end
        end
    end

    // refresh: owed count; a round starts at a timer cycle when every bank is REF_POSTPONE behind
    wire tick   = (cnt == next_ref);
    wire at_lim = (LIMIT == 0) ? 1'b1 : (owed >= OW'(LIMIT));
    wire idle_ok = (REF_IDLE == 0) ? 1'b1 : (idle_q >= IW_'(REF_IDLE));
    wire start  = tick && at_lim && (rnd_left == {RW_{1'b0}});
    wire forced = start || (rnd_left != {RW_{1'b0}});

    assign req_ready = !forced && free_any;
    wire   fire      = req_valid && req_ready;
    wire   idle_now  = !busy && !fire;
    wire   do_ref    = forced || ((owed != {OW{1'b0}}) && idle_now && idle_ok);

    // bank timing of the offered access: earliest column time col_e of its bank
    wire [NB_W-1:0]  bsel  = req_idx[NB_W-1:0];
    wire [PC_W-1:0]  psel  = req_idx[PC_W-1:0];
    wire [IDX_W-1:0] row_n = req_idx >> SHIFT;
    reg  [31:0] act_n, col_e;
    reg         new_act;
    always @* begin
        new_act = 1'b1;
        act_n   = bk_act[bsel];
        if (bk_open[bsel] && bk_row[bsel] == row_n) begin
            new_act = 1'b0;
            col_e   = mx(mx(cnt, bk_act[bsel] + T_RCD), bk_col[bsel] + T_BURST);
        end else begin
            if (bk_open[bsel])
                act_n = mx(mx(cnt, bk_act[bsel] + T_RAS), bk_col[bsel] + T_BURST) + T_RP;
            else
                act_n = mx(cnt, bk_avail[bsel]);
            col_e = mx(act_n + T_RCD, bk_col[bsel] + T_BURST);
        end
    end

    // data bus of the pseudo-channel: the earliest start >= col_e whose burst overlaps no burst
    // held by a slot of the same pseudo-channel; candidates are col_e and the end of each such burst.
    // Every candidate is checked in parallel, and the earliest that fits is taken by a tree of
    // compares (a running minimum would chain INFLIGHT+1 32-bit compares)
    localparam integer NC = INFLIGHT + 1;           // candidates
    localparam integer NT = 1 << $clog2(NC);        // tree leaves
    reg [INFLIGHT-1:0] on_pc;
    reg [31:0]         cand, col_n;
    reg                fits;
    reg [32*NT-1:0]    mt;                          // tree: candidates (all ones: unusable), then minima
    integer c, m, lv;
    always @* begin
        for (m = 0; m < INFLIGHT; m = m + 1)
            on_pc[m] = s_v[m] && (s_idx[m][PC_W-1:0] == psel);
        mt = {(32*NT){1'b1}};
        for (c = 0; c <= INFLIGHT; c = c + 1) begin
            if (c == INFLIGHT) cand = col_e;
            else               cand = mx(col_e, s_col[c] + T_BURST);
            fits = (c == INFLIGHT) || on_pc[c];
            for (m = 0; m < INFLIGHT; m = m + 1)
                if (on_pc[m] && (s_col[m] + T_BURST > cand) && (s_col[m] < cand + T_BURST)) fits = 1'b0;
            if (fits) mt[32*c +: 32] = cand;
        end
        for (lv = NT / 2; lv >= 1; lv = lv / 2)
            for (c = 0; c < lv; c = c + 1)
                mt[32*c +: 32] = (mt[32*(2*c+1) +: 32] < mt[32*(2*c) +: 32]) ? mt[32*(2*c+1) +: 32]
                                                                             : mt[32*(2*c) +: 32];
        col_n = mt[31:0];
    end
    wire [31:0] done_raw = col_n + T_CL + T_BURST;

    // completion reservation: first offset k < INFLIGHT with done_raw + k held by no slot (at most
    // INFLIGHT-1 slots are held when an access is accepted, so one is always free)
    reg [INFLIGHT-1:0] taken;
    reg [31:0]         dk;
    reg [SL_W:0]       off;
    reg                found;
    integer j;
    always @* begin
        taken = {INFLIGHT{1'b0}};
        for (j = 0; j < INFLIGHT; j = j + 1) begin
            dk = s_done[j] - done_raw;
            if (s_v[j] && dk < 32'(INFLIGHT)) taken[dk[SL_W-1:0]] = 1'b1;
        end
        off = {(SL_W+1){1'b0}}; found = 1'b0;
        for (j = 0; j < INFLIGHT; j = j + 1)
            if (!found && !taken[j]) begin off = (SL_W+1)'(j); found = 1'b1; end
    end
    wire [31:0] done_res = done_raw + 32'(off);

    integer bi;
    always @(posedge clk) begin
        if (rst) begin
            cnt      <= 32'd0;
            next_ref <= REF_SLOT;
            owed     <= {OW{1'b0}};
            rnd_left <= {RW_{1'b0}};
            idle_q   <= {IW_{1'b0}};
            ref_ptr  <= {NB_W{1'b0}};
            for (bi = 0; bi < NB; bi = bi + 1) begin
                bk_open[bi]  <= 1'b0;
                bk_row[bi]   <= {IDX_W{1'b0}};
                bk_act[bi]   <= 32'd0;
                bk_col[bi]   <= 32'd0;
                bk_avail[bi] <= 32'd0;
            end
            for (bi = 0; bi < INFLIGHT; bi = bi + 1) s_v[bi] <= 1'b0;
        end else begin
            cnt <= cnt + 32'd1;
            if (tick) next_ref <= next_ref + REF_SLOT;
            owed <= owed + OW'(tick) - OW'(do_ref);
            if (start)                        rnd_left <= RW_'(ROUND - 1);
            else if (rnd_left != {RW_{1'b0}}) rnd_left <= rnd_left - 1'b1;
            if (!idle_now)                    idle_q <= {IW_{1'b0}};
            else if (!idle_ok)                idle_q <= idle_q + 1'b1;
            if (do_ref) begin
                // REFsb on the oldest owed bank: precharge (after tRAS and the last burst), then tRFC
                if (bk_open[ref_ptr])
                    bk_avail[ref_ptr] <= mx(mx(cnt, bk_act[ref_ptr] + T_RAS),
                                            bk_col[ref_ptr] + T_BURST) + T_RP + T_RFC;
                else
                    bk_avail[ref_ptr] <= mx(cnt, bk_avail[ref_ptr]) + T_RFC;
                bk_open[ref_ptr] <= 1'b0;
                ref_ptr <= ref_ptr + 1'b1;
            end
            // no access is accepted in a refresh cycle (forced blocks it, idle needs !fire)
            if (fire) begin
                bk_open[bsel] <= 1'b1;
                bk_row[bsel]  <= row_n;
                if (new_act) bk_act[bsel] <= act_n;
                bk_col[bsel]   <= col_n;
                s_v[free_i]    <= 1'b1;
                s_done[free_i] <= done_res;
                s_col[free_i]  <= col_n;
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
    assign iss_done   = done_res;
    assign ref_valid  = do_ref;
    assign ref_forced = forced;
    assign ref_bank   = ref_ptr;
    assign idle       = !busy;
endmodule
`default_nettype wire
