`default_nettype none
// Statistics counter: `count` <= `count` + `add` in every cycle with `en` set, wrapping modulo
// 2^WIDTH; reset clears it. The count read is exact on every cycle (no lag, no split halves).
// Timing: the sum is ks_adder's kept Kogge-Stone prefix network instead of yosys' ripple carry
// chain (31 levels for a 32-bit +1). With AW = 1 and `add` tied to 1 the generate terms above
// bit 0 are constant zero and each stage is one AND: log2(WIDTH) + 2 levels in all (7 for 32 bits).
module stat_counter #(
    parameter integer WIDTH = 32,   // counter width, 1..64
    parameter integer AW    = 1     // width of `add`, 1..WIDTH (zero-extended to WIDTH)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             en,     // count this cycle
    input  wire [AW-1:0]    add,    // amount counted when en is set
    output reg  [WIDTH-1:0] count
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1 || WIDTH > 64) begin : g_bad_width
            stat_counter_parameter_error_WIDTH_must_be_1_to_64 u_stop ();
        end
        if (AW < 1 || AW > WIDTH) begin : g_bad_aw
            stat_counter_parameter_error_AW_must_be_1_to_WIDTH u_stop ();
        end
    endgenerate

    wire [WIDTH-1:0] sum;
    ks_adder #(.WIDTH(WIDTH)) u_add (.a(count), .b({{(WIDTH - AW){1'b0}}, add}), .sum(sum));

    always @(posedge clk) begin
        if (rst)     count <= {WIDTH{1'b0}};
        else if (en) count <= sum;
    end
endmodule
`default_nettype wire
