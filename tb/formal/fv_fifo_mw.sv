// Formal environment for rtl/common/fifo_mw.v: free write masks, data and out_ready every cycle,
// reset in the first cycle; DEPTH 5 with 3 write lanes and DEPTH 4 with 2. Properties in
// fifo_mw.props.svh (spliced into the module's scope).
module fv_fifo_mw #(
    parameter integer WIDTH = 3
) (
    input wire               clk,
    input wire               rst,
    input wire [2:0]         in_valid_a,
    input wire [3*WIDTH-1:0] in_data_a,
    input wire               out_ready_a,
    input wire [1:0]         in_valid_b,
    input wire [2*WIDTH-1:0] in_data_b,
    input wire               out_ready_b
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    fifo_mw #(.WIDTH(WIDTH), .DEPTH(5), .W(3)) dut_a (
        .clk(clk), .rst(rst), .in_valid(in_valid_a), .in_data(in_data_a), .free(),
        .out_valid(), .out_ready(out_ready_a), .out_data(), .count(), .overflow());
    fifo_mw #(.WIDTH(WIDTH), .DEPTH(4), .W(2)) dut_b (
        .clk(clk), .rst(rst), .in_valid(in_valid_b), .in_data(in_data_b), .free(),
        .out_valid(), .out_ready(out_ready_b), .out_data(), .count(), .overflow());
endmodule
