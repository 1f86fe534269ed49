// Abstraction of rtl/common/fifo_bank.v for proofs of the modules around it: the same ports as
// fifo_mw, so it is the free-output fifo_mw abstraction under this name (fifo_bank itself is
// checked in simulation: tests/test_common_fifo.py::test_fifo_bank).
module fifo_bank #(
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
    output wire                           overflow
);
    fifo_mw #(.WIDTH(WIDTH), .DEPTH(DEPTH), .W(W)) u_free (
        .clk(clk), .rst(rst), .in_valid(in_valid), .in_data(in_data), .free(free),
        .out_valid(out_valid), .out_ready(out_ready), .out_data(out_data), .count(count),
        .overflow(overflow));
endmodule
