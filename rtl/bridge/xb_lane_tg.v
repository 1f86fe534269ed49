`default_nettype none
// The hot-line cache's tag and valid bit of one set, selected by the set index (combinational;
// rtl/bridge/xb_lane.v "lookups": an incoming line's cache hit). A module of its own so that
// synthesis builds the select as a mux tree of log2(SETS) levels and the lane's tag compare
// follows it, instead of merging the select into the compare (deeper than the two in series);
// the tree's nodes are (* keep *): ABC otherwise rebuilds the select deeper, about 10 levels for 64
// sets where the tree has 6.
module xb_lane_tg #(
    parameter integer SETS = 16,   // cache sets (power of two, >= 2)
    parameter integer TW   = 42    // tag bits per set (>= 1)
) (
    input  wire [SETS-1:0]      tv,    // valid bit of every set
    input  wire [SETS*TW-1:0]   tg,    // tag of every set (set s at [s*TW +: TW])
    input  wire [$clog2(SETS)-1:0] set,
    output wire                 v,     // the set's valid bit ...
    output wire [TW-1:0]        t      // ... and tag
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (SETS < 2 || (SETS & (SETS - 1)) != 0 || TW < 1) begin : g_bad_size
            xb_lane_tg_parameter_error_SETS_a_power_of_two_at_least_2_and_TW_at_least_1 u_stop ();
        end
    endgenerate

    // a binary tree of 2:1 selects in heap order ({valid, tag} per node at [n * NW]): leaf
    // SETS + s is set s, node n < SETS picks node 2n or 2n + 1 by the set bit of its depth (the
    // root, node 1, by the highest)
    localparam integer SB = $clog2(SETS);
    localparam integer NW = TW + 1;
    wire [2 * SETS * NW - 1:NW] nd;
    genvar gn;
    generate
        for (gn = 1; gn < 2 * SETS; gn = gn + 1) begin : g_nd
            if (gn >= SETS) begin : g_leaf
                assign nd[NW * gn +: NW] = {tv[gn - SETS], tg[TW * (gn - SETS) +: TW]};
            end else begin : g_sel
                localparam integer D = $clog2(gn + 1) - 1;      // depth of node gn
                (* keep *) wire [NW-1:0] k;
                assign k = set[SB - 1 - D] ? nd[NW * (2 * gn + 1) +: NW] : nd[NW * (2 * gn) +: NW];
                assign nd[NW * gn +: NW] = k;
            end
        end
    endgenerate
    assign {v, t} = nd[NW +: NW];
endmodule
`default_nettype wire
