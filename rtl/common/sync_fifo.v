`default_nettype none
// Synchronous FIFO, first-word fall-through: out_data is the head entry whenever out_valid.
// Any DEPTH >= 2 (pointers wrap explicitly, so non-powers of two work).
module sync_fifo #(
    parameter integer WIDTH = 8,
    parameter integer DEPTH = 16
) (
    input  wire                           clk,
    input  wire                           rst,
    input  wire                           in_valid,
    output wire                           in_ready,
    input  wire [WIDTH-1:0]               in_data,
    output wire                           out_valid,
    input  wire                           out_ready,
    output wire [WIDTH-1:0]               out_data,
    output wire [$clog2(DEPTH+1)-1:0]     count
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1) begin : g_bad_width
            sync_fifo_parameter_error_WIDTH_must_be_at_least_1 u_stop ();
        end
        if (DEPTH < 2) begin : g_bad_depth
            sync_fifo_parameter_error_DEPTH_must_be_at_least_2 u_stop ();
        end
    endgenerate

    localparam integer AW = (DEPTH > 1) ? $clog2(DEPTH) : 1;
    localparam integer CW = $clog2(DEPTH + 1);
    localparam [AW-1:0] LAST = AW'(DEPTH - 1);
    localparam [CW-1:0] FULL = CW'(DEPTH);

    reg [WIDTH-1:0] mem [0:DEPTH-1];
    reg [AW-1:0]    wr_ptr;
    reg [AW-1:0]    rd_ptr;
    reg [CW-1:0]    cnt;

    wire push = in_valid && in_ready;
    wire pop  = out_valid && out_ready;
    // next count with and without a write offered (kept, so in_valid stays the last select)
    wire [CW-1:0] cnt_dn = pop ? cnt - 1'b1 : cnt;
    (* keep *) wire [CW-1:0] cnt_nw = cnt_dn;
    (* keep *) wire [CW-1:0] cnt_wr = in_ready ? (pop ? cnt : cnt + 1'b1) : cnt_dn;

    assign in_ready  = (cnt != FULL);
    assign out_valid = (cnt != {CW{1'b0}});
    assign out_data  = mem[rd_ptr];
    assign count     = cnt;

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr <= {AW{1'b0}};
            rd_ptr <= {AW{1'b0}};
            cnt    <= {CW{1'b0}};
        end else begin
            if (push) wr_ptr <= (wr_ptr == LAST) ? {AW{1'b0}} : wr_ptr + 1'b1;
            if (pop)  rd_ptr <= (rd_ptr == LAST) ? {AW{1'b0}} : rd_ptr + 1'b1;
            // a writer that decides in the same cycle (a late in_valid) passes one select level
            cnt <= in_valid ? cnt_wr : cnt_nw;
        end
    end

    // Storage needs no reset: entries are only read when cnt says they were written.
    always @(posedge clk) begin
        if (push) mem[wr_ptr] <= in_data;
    end
endmodule
`default_nettype wire
