`default_nettype none
// Statistics counter: `count` <= `count` + `add` in every cycle with `en` set, wrapping modulo
// 2^WIDTH; reset clears it. The count read is exact on every cycle (no lag, no split halves).
// Timing: the sum is a Kogge-Stone prefix adder (log2(WIDTH) carry stages) instead of yosys'
// ripple carry chain, which ABC keeps at one or two levels per bit (31 levels for a 32-bit +1).
// The prefix nets are (* keep *) because ABC otherwise folds an unkept prefix network back into a
// chain where that saves area. With AW = 1 and `add` tied to 1 the generate terms above bit 0
// are constant zero and each stage is one AND: log2(WIDTH) + 2 levels in all (7 for 32 bits).
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

    // number of prefix stages: smallest L with 2^L >= WIDTH
    localparam integer L = (WIDTH <= 1) ? 1 : $clog2(WIDTH);

    wire [WIDTH-1:0] b = {{(WIDTH - AW){1'b0}}, add};
    // ks_g[l][i] / ks_p[l][i]: generate / propagate of bits (i - 2^l + 1 .. i), clipped at bit 0
    wire [WIDTH-1:0] ks_g [0:L] /*verilator split_var*/;
    wire [WIDTH-1:0] ks_p [0:L] /*verilator split_var*/;
    (* keep *) wire [WIDTH-1:0] ks_g0;
    (* keep *) wire [WIDTH-1:0] ks_p0;
    assign ks_g0   = count & b;
    assign ks_p0   = count ^ b;
    assign ks_g[0] = ks_g0;
    assign ks_p[0] = ks_p0;
    genvar gl, gi;
    generate
        for (gl = 0; gl < L; gl = gl + 1) begin : g_ks
            for (gi = 0; gi < WIDTH; gi = gi + 1) begin : g_bit
                if (gi >= (1 << gl)) begin : g_op
                    (* keep *) wire gk;
                    (* keep *) wire pk;
                    assign gk = ks_g[gl][gi] | (ks_p[gl][gi] & ks_g[gl][gi - (1 << gl)]);
                    assign pk = ks_p[gl][gi] & ks_p[gl][gi - (1 << gl)];
                    assign ks_g[gl+1][gi] = gk;
                    assign ks_p[gl+1][gi] = pk;
                end else begin : g_pass
                    assign ks_g[gl+1][gi] = ks_g[gl][gi];
                    assign ks_p[gl+1][gi] = ks_p[gl][gi];
                end
            end
        end
    endgenerate
    // ks_g[L][i]: carry out of bit i; bit i of the sum is its propagate XOR the carry into it
    wire [WIDTH-1:0] sum;
    generate
        if (WIDTH == 1) begin : g_sum1
            assign sum = ks_p0;
        end else begin : g_sumn
            assign sum = ks_p0 ^ {ks_g[L][WIDTH-2:0], 1'b0};
        end
    endgenerate

    always @(posedge clk) begin
        if (rst)     count <= {WIDTH{1'b0}};
        else if (en) count <= sum;
    end

    wire unused = &{1'b0, ks_g[L][WIDTH-1], ks_p[L]};
endmodule
`default_nettype wire
