`default_nettype none
// Receive buffers of a 256B cxl_link: per class, the runs cxl_flit256_rx delivers (the messages of
// one class in one header slot) go into a banked FIFO (fifo_bank, one bank per run lane, so every
// bank has a single write port), data lines into a second banked FIFO, and the read side walks
// through the messages of the head run one per cycle, decoding each to the canonical header.
// Storing runs keeps the write side of a class to one rotation of at most 2 x its group limit
// lanes; a FIFO of single messages needs a packer that selects every message of a flit.
// Capacity is counted in messages (DEPTH = credits advertised per class); a run holds at least
// one message, so the run FIFO never fills before the message count does. A flit whose messages
// of a class do not fit (the partner ignored credits) writes nothing of that class and sets the
// sticky overflow bit of the class: loss is never silent (cxl_link then goes link_fatal).
module cxl_flit256_rxq #(
    parameter integer ROLE  = 0,   // role of THIS endpoint: the partner's messages are decoded
    parameter integer PBR   = 0,   // 1: PBR message layouts
    parameter integer MAXM  = 12,  // run lanes per class at the RX formatter's outputs (its MAXM)
    parameter integer DEPTH = 16   // messages per class (= credits advertised), 1..255
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  wr,         // write this flit's runs and lines (it was committed)
    input  wire [6*5-1:0]        msg_cnt,
    input  wire [6*MAXM-1:0]     run_valid,
    input  wire [6*MAXM*3-1:0]   run_n,
    /* verilator lint_off UNUSEDSIGNAL */  // lanes and bits beyond a class's run lanes and width
    input  wire [6*MAXM*124-1:0] run_bits,
    input  wire [2*3*512-1:0]    line,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire [5:0]            out_valid,
    input  wire [5:0]            out_ready,
    output wire [6*128-1:0]      out_hdr,
    output wire [2*512-1:0]      out_data,
    output wire [5:0]            overflow
);
    `include "cxl_defs.vh"

    localparam integer SR   = (ROLE == CXL_ROLE_DOWN) ? CXL_ROLE_UP : CXL_ROLE_DOWN;
    localparam integer MAXD = (MAXM < 3) ? MAXM : 3;   // data lines per class per flit
    localparam integer CW   = $clog2(DEPTH + 1);

    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit256_rxq_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_flit256_rxq_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
        if (MAXM < 1 || MAXM > 12) begin : g_bad_maxm
            cxl_flit256_rxq_parameter_error_MAXM_must_be_1_to_12 u_stop ();
        end
        if (DEPTH < 1 || DEPTH > 255) begin : g_bad_depth
            cxl_flit256_rxq_parameter_error_DEPTH_must_be_1_to_255 u_stop ();
        end
    endgenerate

    // Run lanes of class c a flit within the group limits can fill (the rule of cxl_flit256_rx):
    // data classes MAXD, others 2 x the group limit, at most MAXM.
    function automatic integer rlanes(input integer c);
        begin
            if (c == 2 || c == 5) rlanes = MAXD;
            else rlanes = 2 * cxl_cls_glim256(SR, PBR, c);
            if (rlanes > MAXM) rlanes = MAXM;
        end
    endfunction
    function automatic integer nrmax(input integer w);  // messages of one class per slot
        begin
            nrmax = 124 / w;
            if (nrmax > 4) nrmax = 4;
        end
    endfunction

    genvar c, j, t;
    generate
        for (c = 0; c < 6; c = c + 1) begin : g_c
            localparam integer W  = cxl_cls_w256(SR, PBR, c);
            localparam integer NR = nrmax(W);
            localparam integer RW = NR * W;          // run bits kept
            localparam integer RL = rlanes(c);
            localparam integer DC = (c == 2 || c == 5) ? 1 : 0;
            localparam integer DI = (c == 5) ? 1 : 0;

            // ---- free message entries and credit check
            // The register counts the free entries (DEPTH - messages held) rather than the messages
            // held, so the credit check is one compare of the flit's count against a register.
            reg  [CW-1:0] m_room;
            reg           ovf_r;
            wire [4:0]    n_in = msg_cnt[c*5 +: 5];
            wire          pop  = out_valid[c] && out_ready[c];
            // fits = n_in <= m_room = !(m_room < n_in), as a tree of (less, equal) pairs over the
            // bits: a node covering a high and a low half is less = equal_hi ? less_lo : less_hi
            // and equal = equal_hi & equal_lo, so the check costs one level per halving after the
            // bit compares (4 levels at 5 bits) instead of a subtraction's carry chain. The nets
            // are (* keep *) because ABC otherwise folds the tree into a chain where it has slack.
            localparam integer NS = $clog2((CW > 5) ? CW : 5);  // tree levels over the compared bits
            wire [(1<<NS)-1:0] cmp_a = (1<<NS)'(m_room);
            wire [(1<<NS)-1:0] cmp_b = (1<<NS)'(n_in);
            for (j = 0; j <= NS; j = j + 1) begin : g_cmp
                // node t of level j covers bits [t 2^j, (t+1) 2^j)
                /* verilator lint_off UNUSEDSIGNAL */  // the root's equal
                (* keep *) wire [((1<<NS)>>j)-1:0] lt_n, eq_n;
                /* verilator lint_on UNUSEDSIGNAL */
                if (j == 0) begin : g_bit
                    assign lt_n = ~cmp_a & cmp_b;
                    assign eq_n = ~(cmp_a ^ cmp_b);
                end else begin : g_node
                    for (t = 0; t < ((1<<NS)>>j); t = t + 1) begin : g_t
                        assign lt_n[t] = g_cmp[j-1].eq_n[2*t+1] ? g_cmp[j-1].lt_n[2*t]
                                                                : g_cmp[j-1].lt_n[2*t+1];
                        assign eq_n[t] = g_cmp[j-1].eq_n[2*t+1] & g_cmp[j-1].eq_n[2*t];
                    end
                end
            end
            wire          fits = !g_cmp[NS].lt_n[0];
            wire          wr_c = wr && fits;
            wire          over = wr && !fits;
            // next room, m_room - (accepted messages) + pop: the four cases are formed from the
            // register and n_in in parallel with the check and picked by wr_c and pop afterwards.
            // The pick is AND-OR: as a mux, yosys' opt_share would move it in front of the subtract.
            wire [CW-1:0] r_p1  = m_room + 1'b1;
            wire [CW-1:0] r_t0  = m_room - CW'(n_in);
            wire [CW-1:0] r_t1  = r_p1 - CW'(n_in);
            wire [CW-1:0] r_nxt = ({CW{ wr_c && !pop}} & r_t0) | ({CW{ wr_c && pop}} & r_t1)
                                | ({CW{!wr_c && !pop}} & m_room) | ({CW{!wr_c && pop}} & r_p1);

            // ---- run FIFO: lane j = {message count, run bits}
            wire [RL*(3+RW)-1:0] rd;
            for (j = 0; j < RL; j = j + 1) begin : g_l
                assign rd[j*(3+RW) +: 3+RW] = {run_n[(c*MAXM + j)*3 +: 3],
                                                run_bits[(c*MAXM + j)*124 +: RW]};
            end
            wire             r_valid;
            wire [3+RW-1:0]  r_head;
            wire             r_ovf;
            reg  [1:0]       k;                      // next message of the head run
            wire [2:0]       r_n  = r_head[RW +: 3];
            wire             last = ({1'b0, k} + 3'd1 >= r_n);
            /* verilator lint_off UNUSEDSIGNAL */
            wire [CW-1:0]    r_free, r_cnt;
            /* verilator lint_on UNUSEDSIGNAL */
            fifo_bank #(.WIDTH(3 + RW), .DEPTH(DEPTH), .W(RL)) u_runs (
                .clk(clk), .rst(rst), .in_valid(run_valid[c*MAXM +: RL] & {RL{wr}} & {RL{fits}}),
                .in_data(rd), .free(r_free), .out_valid(r_valid), .out_ready(pop && last),
                .out_data(r_head), .count(r_cnt), .overflow(r_ovf));

            // ---- the head message: k-th of the run, decoded
            reg [W-1:0] msg_w;
            integer kk;
            always @* begin
                msg_w = {W{1'b0}};
                for (kk = 0; kk < NR; kk = kk + 1)
                    if (k == 2'(kk)) msg_w = r_head[kk*W +: W];
            end
            /* verilator lint_off UNUSEDSIGNAL */
            wire v_unused, rsv_unused, trl_unused;
            /* verilator lint_on UNUSEDSIGNAL */
            cxl_flit256_dec #(.ROLE(SR), .PBR(PBR), .CLS(c), .N(1)) u_dec (
                .wire_i(124'(msg_w)), .canon(out_hdr[c*128 +: 128]), .valid(v_unused),
                .rsvd_err(rsv_unused), .trl(trl_unused));

            // ---- data lines
            wire l_valid, l_ovf;
            if (DC != 0) begin : g_d
                wire [MAXD-1:0] lv;
                for (j = 0; j < MAXD; j = j + 1) begin : g_lv
                    assign lv[j] = wr && (5'(j) < n_in) && fits;
                end
                /* verilator lint_off UNUSEDSIGNAL */
                wire [CW-1:0] l_free, l_cnt;
                /* verilator lint_on UNUSEDSIGNAL */
                fifo_bank #(.WIDTH(512), .DEPTH(DEPTH), .W(MAXD)) u_lines (
                    .clk(clk), .rst(rst), .in_valid(lv), .in_data(line[DI*3*512 +: MAXD*512]),
                    .free(l_free), .out_valid(l_valid), .out_ready(pop),
                    .out_data(out_data[DI*512 +: 512]), .count(l_cnt), .overflow(l_ovf));
            end else begin : g_h
                assign l_valid = 1'b1;
                assign l_ovf   = 1'b0;
            end
            assign out_valid[c] = r_valid && l_valid;
            assign overflow[c]  = ovf_r || r_ovf || l_ovf;

            always @(posedge clk) begin
                if (rst) begin
                    m_room <= CW'(DEPTH);
                    k      <= 2'd0;
                    ovf_r  <= 1'b0;
                end else begin
                    m_room <= r_nxt;
                    if (pop) k <= last ? 2'd0 : k + 2'd1;
                    if (over) ovf_r <= 1'b1;
                end
            end
            if (RL < MAXM) begin : g_unused_runs
                wire unused_r = &{1'b0, run_valid[c*MAXM + RL +: MAXM - RL],
                                  run_n[(c*MAXM + RL)*3 +: (MAXM - RL)*3]};
            end
        end
    endgenerate
endmodule
`default_nettype wire
