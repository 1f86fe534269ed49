// Abstraction of rtl/common/fifo_mw.v (proven on its own: tb/formal fifo_mw) for proofs of the
// modules around it: same ports, every output free in every cycle.
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
    output wire                           overflow
);
    assign free      = $anyseq;
    assign out_valid = $anyseq;
    assign out_data  = $anyseq;
    assign count     = $anyseq;
    assign overflow  = $anyseq;
endmodule
