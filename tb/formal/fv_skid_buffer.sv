// Formal environment for rtl/common/skid_buffer.v: free inputs, reset in the first cycle.
// Properties in skid_buffer.props.svh (spliced into the module's scope).
module fv_skid_buffer #(
    parameter integer WIDTH = 3
) (
    input wire             clk,
    input wire             rst,
    input wire             s_valid,
    input wire [WIDTH-1:0] s_data,
    input wire             m_ready
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    skid_buffer #(.WIDTH(WIDTH)) dut (
        .clk(clk), .rst(rst), .s_valid(s_valid), .s_ready(), .s_data(s_data),
        .m_valid(), .m_ready(m_ready), .m_data());
endmodule
