// Formal environment for rtl/common/skid_buffer.v: free inputs, reset in the first cycle.
// Properties in skid_buffer.props.svh (spliced into the module's scope).
module fv_skid_buffer #(
    parameter integer WIDTH = 3
) (
    input wire             clk,
    input wire             rst,
    input wire             in_valid,
    input wire [WIDTH-1:0] in_data,
    input wire             out_ready
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    skid_buffer #(.WIDTH(WIDTH)) dut (
        .clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(), .in_data(in_data),
        .out_valid(), .out_ready(out_ready), .out_data());
endmodule
