`default_nettype none
// Banked multi-write FIFO: up to W writes and one read per cycle, first-word fall-through, built
// from W single-write-port banks (SRAM-style storage: each bank is written at most once per cycle
// at one row, and all banks are read at one shared row).
// Entry k of the FIFO lives in bank k mod W, row (k div W) mod ROWS. A cycle's writes go to W
// consecutive entries, so input i lands in bank (wr_bank + i) mod W: the inputs are rotated by
// wr_bank (a log2(W)-stage rotation network) and every bank takes at most one of them. The read
// side selects bank rd_bank of the shared row. Compared with a flop array where every entry can
// take any of the W inputs (fifo_mw), the write side costs one rotation instead of a W:1 mux per
// entry, and each bank maps to a 1W1R memory.
// in_valid must be a prefix (inputs 0..n-1 valid): the writers here produce packed vectors. A
// valid input after an invalid one, or beyond `free`, is dropped and sets the sticky `overflow`
// (cleared only by reset): loss is never silent. `free` is the space before this cycle's read, so
// the writer's view never depends combinationally on out_ready. Capacity is exactly DEPTH
// entries; the banks hold W * ceil(DEPTH / W) (DEPTH a multiple of W wastes nothing).
module fifo_bank #(
    parameter integer WIDTH = 8,   // bits per entry, >= 1
    parameter integer DEPTH = 16,  // capacity in entries, >= 1
    parameter integer W     = 4    // writes per cycle = banks, 1..64
) (
    input  wire                       clk,
    input  wire                       rst,
    input  wire [W-1:0]               in_valid,
    input  wire [W*WIDTH-1:0]         in_data,
    output wire [$clog2(DEPTH+1)-1:0] free,
    output wire                       out_valid,
    input  wire                       out_ready,
    output wire [WIDTH-1:0]           out_data,
    output wire [$clog2(DEPTH+1)-1:0] count,
    output reg                        overflow
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1) begin : g_bad_width
            fifo_bank_parameter_error_WIDTH_must_be_at_least_1 u_stop ();
        end
        if (DEPTH < 1) begin : g_bad_depth
            fifo_bank_parameter_error_DEPTH_must_be_at_least_1 u_stop ();
        end
        if (W < 1 || W > 64) begin : g_bad_w
            fifo_bank_parameter_error_W_must_be_1_to_64 u_stop ();
        end
    endgenerate

    localparam integer ROWS = (DEPTH + W - 1) / W;
    localparam integer BW   = (W > 1) ? $clog2(W) : 1;       // bank index bits
    localparam integer RW   = (ROWS > 1) ? $clog2(ROWS) : 1;  // row index bits
    localparam integer CW   = $clog2(DEPTH + 1);
    localparam integer NST  = (W > 1) ? $clog2(W) : 0;        // rotation stages


    reg [BW-1:0] wr_bank, rd_bank;
    reg [RW-1:0] wr_row, rd_row;
    reg [CW-1:0] cnt;

    // ---------------------------------------------------------------- write count and checks
    // The write decisions come from two thermometer masks over the W inputs instead of a counting
    // loop: lead[k] = inputs 0..k all valid (the leading run), room[k] = entry k of this cycle's
    // writes fits (k < free_w, free_w from the registered count). ok = lead & room are the inputs
    // written (a prefix, as both masks are); the number written, n_wr, is the index after its last
    // one. The enables are a prefix AND, a compare against a register and the rotation below: no
    // adder before a bank.
    wire [CW-1:0] free_w = CW'(DEPTH) - cnt;
    wire [W-1:0]  lead, room;
    genvar k, lv;
    generate
        for (k = 0; k < W; k = k + 1) begin : g_room
            assign room[k] = ({{(32-CW){1'b0}}, free_w} > k);
        end
        // lead as a log-depth prefix AND (Kogge-Stone): level lv ANDs in the partial product
        // 2^(lv-1) inputs down. Its levels are (* keep *) nets because ABC otherwise shares
        // lead[k-1] into lead[k] and maps a chain W gates deep.
        for (lv = 0; lv <= NST; lv = lv + 1) begin : g_lead
            (* keep *) wire [W-1:0] a;
            if (lv == 0) begin : g_in
                assign a = in_valid;
            end else begin : g_lv
                for (k = 0; k < W; k = k + 1) begin : g_k
                    if (k >= (1 << (lv - 1))) begin : g_and
                        assign a[k] = g_lead[lv-1].a[k] & g_lead[lv-1].a[k - (1 << (lv - 1))];
                    end else begin : g_pass
                        assign a[k] = g_lead[lv-1].a[k];
                    end
                end
            end
        end
    endgenerate
    assign lead = g_lead[NST].a;
    wire [W-1:0] ok   = lead & room;
    wire         hole = |(in_valid & ~lead);       // a valid input after an invalid one
    wire         drop = hole || |(lead & ~room);   // or more leading inputs than free entries
    wire         pop  = (cnt != {CW{1'b0}}) && out_ready;

    // ---------------------------------------------------------------- rotation: input i -> bank (wr_bank + i) mod W
    // Stage st rotates by 2^st mod W when bit st of wr_bank is set; the stages add up to wr_bank.
    wire [W*WIDTH-1:0] rot_out;
    genvar st, b;
    generate
        for (st = 0; st <= NST; st = st + 1) begin : g_rot
            wire [W*WIDTH-1:0] r;
            if (st == 0) begin : g_in
                assign r = in_data;
            end else begin : g_st
                localparam integer SH = (1 << (st - 1)) % W;
                for (b = 0; b < W; b = b + 1) begin : g_b
                    localparam integer SRC = (b - SH + W) % W;
                    assign r[b*WIDTH +: WIDTH] = wr_bank[st-1] ? g_rot[st-1].r[SRC*WIDTH +: WIDTH]
                                                               : g_rot[st-1].r[b*WIDTH +: WIDTH];
                end
            end
        end
    endgenerate
    assign rot_out = g_rot[NST].r;

    // the same rotation of the write mask: bank b is written when input (b - wr_bank) mod W is
    wire [W-1:0] we_rot;
    generate
        for (st = 0; st <= NST; st = st + 1) begin : g_wrot
            wire [W-1:0] r;
            if (st == 0) begin : g_in
                assign r = ok;
            end else begin : g_st
                localparam integer SH = (1 << (st - 1)) % W;
                for (b = 0; b < W; b = b + 1) begin : g_b
                    localparam integer SRC = (b - SH + W) % W;
                    assign r[b] = wr_bank[st-1] ? g_wrot[st-1].r[SRC] : g_wrot[st-1].r[b];
                end
            end
        end
    endgenerate
    assign we_rot = g_wrot[NST].r;

    // ---------------------------------------------------------------- banks
    // Bank b takes the input (b - wr_bank) mod W when that input is written (we_rot); it writes row
    // wr_row, or wr_row + 1 when the write sequence wrapped past bank W-1 before reaching it.
    wire [W*WIDTH-1:0] bank_q;
    generate
        for (b = 0; b < W; b = b + 1) begin : g_bank
            reg  [WIDTH-1:0] mem [0:ROWS-1];
            wire             we   = we_rot[b];
            wire             nxt  = ({1'b0, wr_bank} > (BW+1)'(b));  // wrapped past bank W-1
            wire [RW-1:0]    row  = !nxt ? wr_row :
                                    ({{(32-RW){1'b0}}, wr_row} == ROWS - 1) ? {RW{1'b0}} : wr_row + 1'b1;
            always @(posedge clk) begin
                if (we) mem[row] <= rot_out[b*WIDTH +: WIDTH];
            end
            assign bank_q[b*WIDTH +: WIDTH] = mem[rd_row];
        end
    endgenerate

    // ---------------------------------------------------------------- pointers
    // The next write bank is (wr_bank + n_wr) mod W and the count becomes cnt + n_wr - pop. Each is
    // formed for every possible n_wr from the registers alone (a carry-select structure: the adders
    // sit before the select instead of after the inputs) and picked by ok. As ok is a thermometer
    // (ok[k] = k < n_wr), the pick is a binary search on it: a tree of 2:1 muxes NL deep over the
    // 2^NL >= W + 1 candidates, where the node covering candidates [lo, lo + 2S) takes its upper
    // half when ok[lo + S - 1] is set (an ok bit beyond W-1 is 0). The count carries both values,
    // with and without the read, through the tree, and pop picks between them after it: out_ready
    // reaches the count through two gates, not through the whole select.
    // The row advances when wr_bank + n_wr reaches W, that is when input W-1-wr_bank is written:
    // ok indexed by the register (okr: ok reversed, 0 beyond W-1 like the unreachable banks).
    localparam integer NL = $clog2(W + 1);           // select tree levels
    localparam integer NP = 1 << NL;                 // candidates, padded to a power of two
    localparam integer SW = BW + 2 * CW;             // candidate: {wr_bank_n, cnt_n with pop, without}
    wire [NP-2:0] okp = (NP-1)'(ok);                 // the tree reads bits 0..NP-2
    genvar lt, nd, lq, q;
    generate
        for (lt = 0; lt <= NL; lt = lt + 1) begin : g_sel
            wire [(NP >> lt)*SW-1:0] v;              // node nd covers candidates [nd 2^lt, (nd+1) 2^lt)
            for (nd = 0; nd < (NP >> lt); nd = nd + 1) begin : g_nd
                if (lt == 0) begin : g_leaf
                    localparam integer NN = (nd > W) ? W : nd;   // padding repeats n_wr = W
                    // (wr_bank + NN) mod W as a tree of 2:1 muxes over the constants for every
                    // wr_bank (BW levels at most; an add, compare and subtract is about twice as
                    // deep). Values beyond W-1 follow the same formula. Written as ?: on the bits
                    // of wr_bank rather than an indexed constant array, which yosys would turn
                    // into a ROM and merge the wr_bank register into its read port.
                    for (lq = 0; lq <= BW; lq = lq + 1) begin : g_bt
                        wire [((1 << BW) >> lq)*BW-1:0] t;
                        for (q = 0; q < ((1 << BW) >> lq); q = q + 1) begin : g_q
                            if (lq == 0) begin : g_c
                                localparam integer RQ = (q + NN >= W) ? q + NN - W : q + NN;
                                assign t[q*BW +: BW] = BW'(RQ);
                            end else begin : g_m
                                assign t[q*BW +: BW] = wr_bank[lq-1] ? g_bt[lq-1].t[(2*q + 1)*BW +: BW]
                                                                     : g_bt[lq-1].t[(2*q)*BW +: BW];
                            end
                        end
                    end
                    assign v[nd*SW +: SW] = {g_bt[BW].t,
                                             CW'(cnt + CW'(NN) - 1'b1), CW'(cnt + CW'(NN))};
                end else begin : g_mux
                    // an AND-OR rather than a ?: mux: yosys' opt_share would otherwise move the
                    // muxes in front of the leaves' adders. (* keep *): ABC would fold the tree
                    // into a deeper, smaller network where the inputs have slack in this module.
                    wire s = okp[nd * (1 << lt) + (1 << (lt - 1)) - 1];
                    (* keep *) wire [SW-1:0] m;
                    assign m = ({SW{s}} & g_sel[lt-1].v[(2*nd + 1)*SW +: SW])
                             | ({SW{!s}} & g_sel[lt-1].v[(2*nd)*SW +: SW]);
                    assign v[nd*SW +: SW] = m;
                end
            end
        end
    endgenerate
    wire [BW-1:0] wr_bank_n = g_sel[NL].v[2*CW +: BW];
    wire [CW-1:0] cnt_n     = pop ? g_sel[NL].v[CW +: CW] : g_sel[NL].v[0 +: CW];
    wire [(1<<BW)-1:0] okr;
    generate
        for (b = 0; b < (1 << BW); b = b + 1) begin : g_okr
            if (b < W) begin : g_in
                assign okr[b] = ok[W-1-b];
            end else begin : g_out
                assign okr[b] = 1'b0;
            end
        end
    endgenerate
    wire         wr_wrap   = okr[wr_bank];
    wire [RW-1:0] wr_row_n = !wr_wrap ? wr_row :
                             ({{(32-RW){1'b0}}, wr_row} == ROWS - 1) ? {RW{1'b0}} : wr_row + 1'b1;

    assign free      = free_w;
    assign count     = cnt;
    assign out_valid = (cnt != {CW{1'b0}});
    assign out_data  = bank_q[rd_bank*WIDTH +: WIDTH];

    always @(posedge clk) begin
        if (rst) begin
            wr_bank  <= {BW{1'b0}};
            wr_row   <= {RW{1'b0}};
            rd_bank  <= {BW{1'b0}};
            rd_row   <= {RW{1'b0}};
            cnt      <= {CW{1'b0}};
            overflow <= 1'b0;
        end else begin
            wr_bank <= wr_bank_n;
            wr_row  <= wr_row_n;
            if (pop) begin
                if ({{(32-BW){1'b0}}, rd_bank} == W - 1) begin
                    rd_bank <= {BW{1'b0}};
                    rd_row  <= ({{(32-RW){1'b0}}, rd_row} == ROWS - 1) ? {RW{1'b0}} : rd_row + 1'b1;
                end else begin
                    rd_bank <= rd_bank + 1'b1;
                end
            end
            cnt <= cnt_n;
            if (drop) overflow <= 1'b1;
        end
    end
endmodule
`default_nettype wire
