`default_nettype none
// Multi-write FIFO: up to W writes (any valid mask, compacted in index order) and one read per
// cycle, first-word fall-through. `free` is the space before this cycle's read, so the writer's
// view never depends combinationally on out_ready. Valid entries beyond `free` are dropped and
// set the sticky `overflow` flag (cleared only by reset): loss is never silent.
// Timing: a lane's rank among the valid lanes is its own population count (a carry-save tree, not
// a chain through the lanes), so every lane's entry and enable are known after one count and one
// add; `free` is kept in flops, and the next pointer, count and free space are formed for every
// possible number of valid lanes from the flops and picked by the lanes' count.
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
    reg [W:0]      room;       // room[r]: a lane of rank r finds space (below; r = W unused)
    integer i, k;
    always @* begin
        rank = {W*RW{1'b0}};
        we   = {W{1'b0}};
        for (i = 0; i < W; i = i + 1) begin
            acc = {RW{1'b0}};
            for (k = 0; k < i; k = k + 1) acc = acc + RW'(in_valid[k]);
            rank[i*RW +: RW] = acc;
            we[i] = in_valid[i] && room[acc];
        end
        total = {RW{1'b0}};
        for (k = 0; k < W; k = k + 1) total = total + RW'(in_valid[k]);
    end

    // Next pointer, count and free space for every possible number t of valid lanes (0..W),
    // formed from the flops and the read alone; the lanes' count then selects one (one-hot
    // AND-OR). t > free (overflow): free entries are filled, the rest dropped, so the FIFO is
    // full before the read.
    reg [W:0]         c_ovf, tsel;
    reg [AW*(W+1)-1:0] c_wr;
    reg [CW*(W+1)-1:0] c_cnt, c_free;
    reg [SW-1:0]      c_sum;
    integer t;
    always @* begin
        for (t = 0; t <= W; t = t + 1) room[t] = SW'(t) < SW'(free_q);
        for (t = 0; t <= W; t = t + 1) begin
            c_ovf[t] = SW'(t) > SW'(free_q);
            tsel[t]  = total == RW'(t);
            // pointer advance by the entries written (< 2*DEPTH before the wrap)
            c_sum = SW'(wr_ptr) + (c_ovf[t] ? SW'(free_q) : SW'(t));
            if (c_sum >= DEPTH_S) c_sum = c_sum - DEPTH_S;
            c_wr[t*AW +: AW]   = c_sum[AW-1:0];
            c_cnt[t*CW +: CW]  = c_ovf[t] ? CW'(DEPTH) - CW'(pop) : cnt + CW'(t) - CW'(pop);
            c_free[t*CW +: CW] = c_ovf[t] ? CW'(pop) : free_q - CW'(t) + CW'(pop);
        end
    end
    reg [AW-1:0] wr_next;
    reg [CW-1:0] cnt_next, free_next;
    reg          ovf;
    integer u;
    always @* begin
        wr_next = {AW{1'b0}}; cnt_next = {CW{1'b0}}; free_next = {CW{1'b0}};
        ovf = |(c_ovf & tsel);
        for (u = 0; u <= W; u = u + 1) begin
            wr_next   = wr_next   | (c_wr[u*AW +: AW]   & {AW{tsel[u]}});
            cnt_next  = cnt_next  | (c_cnt[u*CW +: CW]  & {CW{tsel[u]}});
            free_next = free_next | (c_free[u*CW +: CW] & {CW{tsel[u]}});
        end
    end

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
            cnt    <= cnt_next;
            free_q <= free_next;
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
