`default_nettype none
// Test module for tools.toggle_const (tests/test_verif_tools.py): bits that no input or state can
// change, next to a bit that only reset and the flops' transitions keep constant.
module cov_const_bits #(
    parameter integer W = 2     // bits counted by cnt, 1..4
) (
    input  wire       clk,
    input  wire       rst,
    input  wire [3:0] a,
    output wire [2:0] cnt,      // number of set bits among a[W-1:0]: bit 2 set only for W = 4
    output wire       one,      // a[0] | ~a[0]: always 1
    output wire [1:0] mix,      // {a[1] & ~a[1], a[2]}: bit 1 always 0, bit 0 free
    output reg        held      // reset to 0 and never set: constant in simulation, not provably
);
    wire [2:0] c0 = {2'b00, a[0]};
    wire [2:0] c1 = (W > 1) ? {2'b00, a[1]} : 3'd0;
    wire [2:0] c2 = (W > 2) ? {2'b00, a[2]} : 3'd0;
    wire [2:0] c3 = (W > 3) ? {2'b00, a[3]} : 3'd0;
    assign cnt = c0 + c1 + c2 + c3;
    assign one = a[0] | ~a[0];
    assign mix = {a[1] & ~a[1], a[2]};
    always @(posedge clk) held <= rst ? 1'b0 : held;
endmodule
`default_nettype wire
