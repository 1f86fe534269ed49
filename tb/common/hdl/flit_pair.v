// Test-only top for the flit agent / FlitWire bench: two independent FIFOs. The bench drives
// a_in, carries a_out -> b_in through a FlitWire (b_in has no ready, like cxl_link rx_flit) and
// monitors b_out.
module flit_pair #(
    parameter integer FLIT_W = 528,
    parameter integer DEPTH  = 8
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              a_in_valid,
    output wire              a_in_ready,
    input  wire [FLIT_W-1:0] a_in_data,
    output wire              a_out_valid,
    input  wire              a_out_ready,
    output wire [FLIT_W-1:0] a_out_data,
    input  wire              b_in_valid,
    output wire              b_in_ready,
    input  wire [FLIT_W-1:0] b_in_data,
    output wire              b_out_valid,
    input  wire              b_out_ready,
    output wire [FLIT_W-1:0] b_out_data
);
    /* verilator lint_off PINCONNECTEMPTY */
    sync_fifo #(.WIDTH(FLIT_W), .DEPTH(DEPTH)) u_a (
        .clk(clk), .rst(rst),
        .in_valid(a_in_valid), .in_ready(a_in_ready), .in_data(a_in_data),
        .out_valid(a_out_valid), .out_ready(a_out_ready), .out_data(a_out_data),
        .count());
    sync_fifo #(.WIDTH(FLIT_W), .DEPTH(DEPTH)) u_b (
        .clk(clk), .rst(rst),
        .in_valid(b_in_valid), .in_ready(b_in_ready), .in_data(b_in_data),
        .out_valid(b_out_valid), .out_ready(b_out_ready), .out_data(b_out_data),
        .count());
    /* verilator lint_on PINCONNECTEMPTY */
endmodule
