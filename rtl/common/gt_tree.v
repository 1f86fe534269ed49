`default_nettype none
// Combinational unsigned compare gt = (a > b) as a tree of (greater, equal) pairs: log2(WIDTH)
// stages of an AND-OR and an AND, instead of yosys' carry chain, which ABC keeps at about two
// levels per bit. The tree's nets are (* keep *) because ABC otherwise folds an unkept tree back
// into a chain where that saves area.
module gt_tree #(
    parameter integer WIDTH = 16    // operand width, 1..64
) (
    input  wire [WIDTH-1:0] a,
    input  wire [WIDTH-1:0] b,
    output wire             gt      // a > b, unsigned
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1 || WIDTH > 64) begin : g_bad_width
            gt_tree_parameter_error_WIDTH_must_be_1_to_64 u_stop ();
        end
    endgenerate

    // L stages over the operands padded with zeros to 2^L bits
    localparam integer L = (WIDTH <= 1) ? 1 : $clog2(WIDTH);
    localparam integer P = 1 << L;

    // tg / te, level l at bits l*P +: P: node j of level l is a > b / a == b on bits
    // j*2^l .. (j+1)*2^l - 1 (nodes j >= P >> l are unused and tied to 0)
    wire [P*(L+1)-1:0] tg;
    wire [P*(L+1)-1:0] te;
    wire [P-1:0] pa = P'(a);
    wire [P-1:0] pb = P'(b);
    (* keep *) wire [P-1:0] g0;
    (* keep *) wire [P-1:0] e0;
    assign g0 = pa & ~pb;
    assign e0 = ~(pa ^ pb);
    assign tg[P-1:0] = g0;
    assign te[P-1:0] = e0;
    genvar gl, gi;
    generate
        for (gl = 0; gl < L; gl = gl + 1) begin : g_lv
            // nodes 0 .. (P >> (gl + 1)) - 1 of level gl + 1, each from two nodes of level gl
            for (gi = 0; gi < (P >> (gl + 1)); gi = gi + 1) begin : g_nd
                (* keep *) wire gk;
                (* keep *) wire ek;
                assign gk = tg[gl*P+2*gi+1] | (te[gl*P+2*gi+1] & tg[gl*P+2*gi]);
                assign ek = te[gl*P+2*gi+1] & te[gl*P+2*gi];
                assign tg[(gl+1)*P+gi] = gk;
                assign te[(gl+1)*P+gi] = ek;
            end
            // the rest of level gl + 1 is unused, tied to 0 by one assign per level (a generate block
            // per node would cost Icarus elaboration time: it elaborates every block separately)
            assign tg[(gl+1)*P+(P >> (gl + 1)) +: P-(P >> (gl + 1))] = {(P-(P >> (gl + 1))){1'b0}};
            assign te[(gl+1)*P+(P >> (gl + 1)) +: P-(P >> (gl + 1))] = {(P-(P >> (gl + 1))){1'b0}};
        end
    endgenerate
    assign gt = tg[L*P];

    wire unused = &{1'b0, tg, te};
endmodule
`default_nettype wire
