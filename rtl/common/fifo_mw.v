`default_nettype none
// Multi-write FIFO: up to W writes (any valid mask, compacted in index order) and one read per
// cycle, first-word fall-through. `free` is the space before this cycle's read, so the writer's
// view never depends combinationally on out_ready. Valid entries beyond `free` are dropped and
// set the sticky `overflow` flag (cleared only by reset): loss is never silent.
module fifo_mw #(
    parameter integer WIDTH = 8,
    parameter integer DEPTH = 16,
    parameter integer W     = 4
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
        if (DEPTH < 1) begin : g_bad_depth
            fifo_mw_parameter_error_DEPTH_must_be_at_least_1 u_stop ();
        end
        if (W < 1 || W > 64) begin : g_bad_w
            fifo_mw_parameter_error_W_must_be_1_to_64 u_stop ();
        end
    endgenerate

    localparam integer AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;
    localparam integer CW = $clog2(DEPTH + 1);
    // Slot arithmetic is done one bit wider than both the pointer and the count.
    localparam integer SW = ((AW > CW) ? AW : CW) + 1;
    localparam [SW-1:0] DEPTH_S = SW'(DEPTH);
    localparam [AW-1:0] LAST = AW'(DEPTH - 1);

    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW-1:0]    wr_ptr;
    reg [AW-1:0]    rd_ptr;
    reg [CW-1:0]    cnt;

    // Per-input write enable and slot, from the running count of earlier valid inputs.
    reg [W-1:0]    we;
    reg [AW*W-1:0] waddr;
    reg [CW-1:0]   n_wr;
    reg            drop;
    reg [SW-1:0]   off;
    reg [SW-1:0]   slot;
    integer i;
    integer j;

    wire [CW-1:0] free_w = CW'(DEPTH) - cnt;
    wire          pop    = (cnt != {CW{1'b0}}) && out_ready;

    always @* begin
        off   = {SW{1'b0}};
        n_wr  = {CW{1'b0}};
        drop  = 1'b0;
        we    = {W{1'b0}};
        waddr = {AW*W{1'b0}};
        for (i = 0; i < W; i = i + 1) begin
            slot = SW'(wr_ptr) + off;
            if (slot >= DEPTH_S) slot = slot - DEPTH_S;
            waddr[i*AW +: AW] = slot[AW-1:0];
            if (in_valid[i]) begin
                if (off < SW'(free_w)) begin
                    we[i] = 1'b1;
                    off   = off + 1'b1;
                end else begin
                    drop = 1'b1;
                end
            end
        end
        n_wr = off[CW-1:0];
    end

    assign free      = free_w;
    assign count     = cnt;
    assign out_valid = (cnt != {CW{1'b0}});
    assign out_data  = mem[rd_ptr];

    // Pointer advance by n_wr (< 2*DEPTH before wrap since n_wr <= free <= DEPTH).
    wire [SW-1:0] wr_next_raw = SW'(wr_ptr) + SW'(n_wr);
    wire [AW-1:0] wr_next     = (wr_next_raw >= DEPTH_S) ? AW'(wr_next_raw - DEPTH_S)
                                                         : AW'(wr_next_raw);

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr   <= {AW{1'b0}};
            rd_ptr   <= {AW{1'b0}};
            cnt      <= {CW{1'b0}};
            overflow <= 1'b0;
        end else begin
            wr_ptr <= wr_next;
            if (pop) rd_ptr <= (rd_ptr == LAST) ? {AW{1'b0}} : rd_ptr + 1'b1;
            cnt <= cnt + n_wr - CW'(pop);
            if (drop) overflow <= 1'b1;
        end
    end

    always @(posedge clk) begin
        for (j = 0; j < W; j = j + 1) begin
            if (we[j]) mem[waddr[j*AW +: AW]] <= in_data[j*WIDTH +: WIDTH];
        end
    end
endmodule
`default_nettype wire
