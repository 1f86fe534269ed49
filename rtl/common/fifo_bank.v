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
    wire [W:0]   okx  = {1'b0, ok};
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
    // formed for every possible n_wr from the registers alone and selected by the one-hot end of the
    // ok mask (and pop), so the adders sit before the select instead of after the inputs (a
    // carry-select structure). The row advances when wr_bank + n_wr reaches W, that is when input
    // W-1-wr_bank is written: a select of ok by the register.
    reg [W-1:0]  wrap_at;
    integer q;
    always @* begin
        for (q = 0; q < W; q = q + 1) wrap_at[q] = ({{(32-BW){1'b0}}, wr_bank} == W - 1 - q);
    end
    wire         wr_wrap = |(ok & wrap_at);
    reg [BW-1:0] wr_bank_n;
    reg [CW-1:0] cnt_n;
    reg [BW:0]   sum_n;
    integer n;
    always @* begin
        wr_bank_n = {BW{1'b0}};
        cnt_n     = {CW{1'b0}};
        for (n = 0; n <= W; n = n + 1) begin
            sum_n = {1'b0, wr_bank} + (BW+1)'(n);                      // < 2W
            if ((n == 0) ? !okx[0] : (okx[n-1] && !okx[n])) begin
                wr_bank_n = wr_bank_n | ((sum_n >= (BW+1)'(W)) ? BW'(sum_n - (BW+1)'(W)) : BW'(sum_n));
                cnt_n     = cnt_n | (pop ? cnt + CW'(n) - 1'b1 : cnt + CW'(n));
            end
        end
    end
    wire [RW-1:0]  wr_row_n  = !wr_wrap ? wr_row :
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
