// Formal environment for rtl/common/sync_fifo.v: free inputs every cycle, reset in the first
// cycle, one power-of-two and one non-power-of-two depth. The properties (tracked values, full and
// empty flags, pointer invariants) are in sync_fifo.props.svh, spliced into the module's scope.
module fv_sync_fifo #(
    parameter integer WIDTH = 3
) (
    input wire             clk,
    input wire             rst,
    input wire [1:0]       in_valid,
    input wire [2*WIDTH-1:0] in_data,
    input wire [1:0]       out_ready
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    sync_fifo #(.WIDTH(WIDTH), .DEPTH(4)) dut4 (
        .clk(clk), .rst(rst), .in_valid(in_valid[0]), .in_ready(), .in_data(in_data[0 +: WIDTH]),
        .out_valid(), .out_ready(out_ready[0]), .out_data(), .count());
    sync_fifo #(.WIDTH(WIDTH), .DEPTH(5)) dut5 (
        .clk(clk), .rst(rst), .in_valid(in_valid[1]), .in_ready(), .in_data(in_data[WIDTH +: WIDTH]),
        .out_valid(), .out_ready(out_ready[1]), .out_data(), .count());
endmodule
