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
    reg [CW:0] n_in;     // leading valid inputs
    reg        hole;     // a valid input after an invalid one
    reg        seen_gap;
    integer i;
    always @* begin
        n_in = {(CW+1){1'b0}};
        hole = 1'b0;
        seen_gap = 1'b0;
        for (i = 0; i < W; i = i + 1) begin
            if (!in_valid[i]) seen_gap = 1'b1;
            else if (seen_gap) hole = 1'b1;
            else n_in = n_in + 1'b1;
        end
    end
    wire [CW-1:0] free_w = CW'(DEPTH) - cnt;
    wire [CW:0]   n_wr   = (n_in > {1'b0, free_w}) ? {1'b0, free_w} : n_in;
    wire          drop   = hole || (n_in > {1'b0, free_w});
    wire          pop    = (cnt != {CW{1'b0}}) && out_ready;

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

    // ---------------------------------------------------------------- banks
    // Bank b takes the input (b - wr_bank) mod W when that index is below n_wr; it writes row
    // wr_row, or wr_row + 1 when the write sequence wrapped past bank W-1 before reaching it.
    wire [W*WIDTH-1:0] bank_q;
    generate
        for (b = 0; b < W; b = b + 1) begin : g_bank
            reg  [WIDTH-1:0] mem [0:ROWS-1];
            wire [BW:0]      idx  = ({1'b0, wr_bank} <= (BW+1)'(b)) ? (BW+1)'(b) - {1'b0, wr_bank}
                                                                 : (BW+1)'(b + W) - {1'b0, wr_bank};
            wire             we   = ({{(CW-BW){1'b0}}, idx} < n_wr);
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
    wire [BW+CW:0] wr_sum = {{CW{1'b0}}, 1'b0, wr_bank} + {{BW{1'b0}}, n_wr};  // < 2W
    wire           wr_wrap = (wr_sum >= (BW+CW+1)'(W));
    wire [BW-1:0]  wr_bank_n = wr_wrap ? BW'(wr_sum - (BW+CW+1)'(W)) : BW'(wr_sum);
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
            cnt <= cnt + n_wr[CW-1:0] - CW'(pop);
            if (drop) overflow <= 1'b1;
        end
    end
endmodule
`default_nettype wire
