`default_nettype none
// Count-down step of a relative time with a floor: y = (x == floor) ? x : x - 1 (x >= floor; the
// floor is a port so that one module serves every floor, usually a constant).
// The decrement is a prefix AND over the inverted low bits (bit i flips when every bit below is
// zero), log2(WIDTH) stages, with (* keep *) nets so ABC does not fold it into a borrow chain.
module dn_floor #(
    parameter integer WIDTH = 16    // operand width, 1..64
) (
    input  wire [WIDTH-1:0] x,
    input  wire [WIDTH-1:0] floor,  // the value the time stays at
    output wire [WIDTH-1:0] y
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1 || WIDTH > 64) begin : g_bad
            dn_floor_parameter_error_WIDTH_must_be_1_to_64 u_stop ();
        end
    endgenerate

    localparam integer L = (WIDTH <= 1) ? 1 : $clog2(WIDTH);

    // zl, level l at bits l*WIDTH +: WIDTH: bit i is set when bits i - 2^l + 1 .. i are all zero
    wire [WIDTH*(L+1)-1:0] zl;
    (* keep *) wire [WIDTH-1:0] z0;
    (* keep *) wire [WIDTH-1:0] q0;
    assign z0 = ~x;
    assign q0 = ~(x ^ floor);
    assign zl[WIDTH-1:0] = z0;
    genvar gl;
    generate
        for (gl = 0; gl < L; gl = gl + 1) begin : g_lv
            if ((1 << gl) < WIDTH) begin : g_op
                // bits 2^l .. WIDTH-1 join the span 2^l below them, as one vector per stage
                (* keep *) wire [WIDTH-1:(1 << gl)] zk;
                assign zk = zl[gl*WIDTH+(1 << gl) +: WIDTH-(1 << gl)] & zl[gl*WIDTH +: WIDTH-(1 << gl)];
                // bits below 2^l already span down to bit 0 and pass unchanged
                assign zl[(gl+1)*WIDTH +: WIDTH] = {zk, zl[gl*WIDTH +: (1 << gl)]};
            end else begin : g_pass
                assign zl[(gl+1)*WIDTH +: WIDTH] = zl[gl*WIDTH +: WIDTH];
            end
        end
    endgenerate
    wire [WIDTH-1:0] m1;
    generate
        if (WIDTH == 1) begin : g_m1
            assign m1 = ~x;
        end else begin : g_mn
            assign m1 = x ^ {zl[L*WIDTH +: WIDTH-1], 1'b1};
        end
    endgenerate
    assign y = (&q0) ? x : m1;

    wire unused = &{1'b0, zl};
endmodule
`default_nettype wire
