`default_nettype none
// Multi-write FIFO: up to W writes (any valid mask, compacted in index order) and one read per
// cycle, first-word fall-through. `free` is the space before this cycle's read, so the writer's
// view never depends combinationally on out_ready. Valid entries beyond `free` are dropped and
// set the sticky `overflow` flag (cleared only by reset): loss is never silent.
// Timing: a lane's rank among the valid lanes is its own population count (a carry-save tree, not
// a chain through the lanes), so every lane's entry and enable are known after one count and one
// add; `free` is kept in flops and the count takes one of two precomputed values.
module fifo_mw #(
    parameter integer WIDTH = 8,    // bits per entry, >= 1
    parameter integer DEPTH = 16,   // entries (any value >= 2)
    parameter integer W     = 4     // write lanes, 1..64
) (
    input  wire                           clk,
    input  wire                           rst,
    input  wire [W-1:0]                   in_valid,
    input  wire [W*WIDTH-1:0]             in_data,
    output wire [$clog2(DEPTH+1)-1:0]     free,
    output wire                           out_valid,
    input  wire                           out_ready,
    output wire [WIDTH-1:0]               out_data,
    output wire [$clog2(DEPTH+1)-1:0]     count,
    output reg                            overflow
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1) begin : g_bad_width
            fifo_mw_parameter_error_WIDTH_must_be_at_least_1 u_stop ();
        end
        if (DEPTH < 2) begin : g_bad_depth
            fifo_mw_parameter_error_DEPTH_must_be_at_least_2 u_stop ();
        end
        if (W < 1 || W > 64) begin : g_bad_w
            fifo_mw_parameter_error_W_must_be_1_to_64 u_stop ();
        end
    endgenerate

    localparam integer AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;
    localparam integer CW = $clog2(DEPTH + 1);
    // Ranks, distances and pointer sums are compared one bit wider than pointer, count and rank.
    localparam integer RW = $clog2(W + 1);                 // a lane rank / number of valid lanes
    localparam integer SW = ((AW > CW) ? ((AW > RW) ? AW : RW) : ((CW > RW) ? CW : RW)) + 1;
    localparam [SW-1:0] DEPTH_S = SW'(DEPTH);
    localparam [AW-1:0] LAST = AW'(DEPTH - 1);

    reg [AW-1:0]    wr_ptr;
    reg [AW-1:0]    rd_ptr;
    reg [CW-1:0]    cnt;
    reg [CW-1:0]    free_q;     // DEPTH - cnt, kept in flops

    wire pop = (cnt != {CW{1'b0}}) && out_ready;

    // rank of lane i: valid lanes below it; total: valid lanes. Each is its own sum of bits.
    reg [W*RW-1:0] rank;
    reg [RW-1:0]   acc;
    reg [RW-1:0]   total;
    reg [W-1:0]    we;
    integer i, k;
    always @* begin
        rank = {W*RW{1'b0}};
        we   = {W{1'b0}};
        for (i = 0; i < W; i = i + 1) begin
            acc = {RW{1'b0}};
            for (k = 0; k < i; k = k + 1) acc = acc + RW'(in_valid[k]);
            rank[i*RW +: RW] = acc;
            we[i] = in_valid[i] && (SW'(acc) < SW'(free_q));
        end
        total = {RW{1'b0}};
        for (k = 0; k < W; k = k + 1) total = total + RW'(in_valid[k]);
    end
    wire          ovf  = SW'(total) > SW'(free_q);      // some valid lane finds no space
    wire [CW-1:0] n_wr = ovf ? free_q : CW'(total);

    // Pointer advance by n_wr (< 2*DEPTH before wrap since n_wr <= free <= DEPTH).
    wire [SW-1:0] wr_next_raw = SW'(wr_ptr) + SW'(n_wr);
    wire [AW-1:0] wr_next     = (wr_next_raw >= DEPTH_S) ? AW'(wr_next_raw - DEPTH_S)
                                                         : AW'(wr_next_raw);
    // After an overflow the FIFO is full before the read: cnt + n_wr = DEPTH.
    wire [CW-1:0] cnt_add  = cnt + CW'(total) - CW'(pop);
    wire [CW-1:0] free_add = free_q - CW'(total) + CW'(pop);

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr   <= {AW{1'b0}};
            rd_ptr   <= {AW{1'b0}};
            cnt      <= {CW{1'b0}};
            free_q   <= CW'(DEPTH);
            overflow <= 1'b0;
        end else begin
            wr_ptr <= wr_next;
            if (pop) rd_ptr <= (rd_ptr == LAST) ? {AW{1'b0}} : rd_ptr + 1'b1;
            cnt    <= ovf ? CW'(DEPTH) - CW'(pop) : cnt_add;
            free_q <= ovf ? CW'(pop) : free_add;
            if (ovf) overflow <= 1'b1;
        end
    end

    // Lane i writes entry wr_ptr + rank[i] (mod DEPTH); enabled lanes have distinct entries.
    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [SW-1:0]    slot;
    reg [AW*W-1:0]  waddr;
    integer j;
    always @* begin
        for (j = 0; j < W; j = j + 1) begin
            slot = SW'(wr_ptr) + SW'(rank[j*RW +: RW]);
            if (slot >= DEPTH_S) slot = slot - DEPTH_S;
            waddr[j*AW +: AW] = slot[AW-1:0];
        end
    end
    // Storage needs no reset: entries are only read when cnt says they were written. (Own loop
    // variable: one shared with a combinational block would get a flop and a comb driver.)
    integer m;
    always @(posedge clk) begin
        for (m = 0; m < W; m = m + 1) begin
            if (we[m]) mem[waddr[m*AW +: AW]] <= in_data[m*WIDTH +: WIDTH];
        end
    end

    assign free      = free_q;
    assign count     = cnt;
    assign out_valid = (cnt != {CW{1'b0}});
    assign out_data  = mem[rd_ptr];
endmodule
`default_nettype wire
