`default_nettype none
// Combinational WIDTH-bit adder: sum = a + b modulo 2^WIDTH, as a Kogge-Stone prefix network
// (log2(WIDTH) carry stages) instead of yosys' ripple carry chain, which ABC keeps at one or two
// levels per bit. The prefix nets are (* keep *) because ABC otherwise folds an unkept prefix
// network back into a chain where that saves area. Constant-zero high bits of an operand reduce
// each stage to one AND (a +1 on 32 bits is log2(32) + 2 levels).
module ks_adder #(
    parameter integer WIDTH = 32    // operand and sum width, 1..64
) (
    input  wire [WIDTH-1:0] a,
    input  wire [WIDTH-1:0] b,
    output wire [WIDTH-1:0] sum     // (a + b) mod 2^WIDTH
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1 || WIDTH > 64) begin : g_bad_width
            ks_adder_parameter_error_WIDTH_must_be_1_to_64 u_stop ();
        end
    endgenerate

    // number of prefix stages: smallest L with 2^L >= WIDTH
    localparam integer L = (WIDTH <= 1) ? 1 : $clog2(WIDTH);

    // ks_g[l][i] / ks_p[l][i]: generate / propagate of bits (i - 2^l + 1 .. i), clipped at bit 0
    wire [WIDTH-1:0] ks_g [0:L] /*verilator split_var*/;
    wire [WIDTH-1:0] ks_p [0:L] /*verilator split_var*/;
    (* keep *) wire [WIDTH-1:0] ks_g0;
    (* keep *) wire [WIDTH-1:0] ks_p0;
    assign ks_g0   = a & b;
    assign ks_p0   = a ^ b;
    assign ks_g[0] = ks_g0;
    assign ks_p[0] = ks_p0;
    genvar gl;
    generate
        for (gl = 0; gl < L; gl = gl + 1) begin : g_ks
            if ((1 << gl) < WIDTH) begin : g_op
                // bits 2^l .. WIDTH-1 join the span 2^l below them, as one vector per stage
                (* keep *) wire [WIDTH-1:(1 << gl)] gk;
                (* keep *) wire [WIDTH-1:(1 << gl)] pk;
                assign gk = ks_g[gl][WIDTH-1:(1 << gl)]
                          | (ks_p[gl][WIDTH-1:(1 << gl)] & ks_g[gl][WIDTH-1-(1 << gl):0]);
                assign pk = ks_p[gl][WIDTH-1:(1 << gl)] & ks_p[gl][WIDTH-1-(1 << gl):0];
                // bits below 2^l already span down to bit 0 and pass unchanged
                assign ks_g[gl+1] = {gk, ks_g[gl][(1 << gl)-1:0]};
                assign ks_p[gl+1] = {pk, ks_p[gl][(1 << gl)-1:0]};
            end else begin : g_pass
                assign ks_g[gl+1] = ks_g[gl];
                assign ks_p[gl+1] = ks_p[gl];
            end
        end
    endgenerate
    generate
        if (WIDTH == 1) begin : g_sum1
            assign sum = ks_p0;
        end else begin : g_sumn
            assign sum = ks_p0 ^ {ks_g[L][WIDTH-2:0], 1'b0};
        end
    endgenerate

    wire unused = &{1'b0, ks_g[L][WIDTH-1], ks_p[L]};
endmodule
`default_nettype wire
