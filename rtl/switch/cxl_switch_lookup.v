`default_nettype none
// PBR route lookup of one 12-bit key (cxl_switch_port): the lowest candidate whose ID equals the
// key and that takes part (cand_v) gives its fields. Candidates are in priority order (the
// port's own PIDs, then the route-table entries). The compares run in parallel; a binary tree
// of 2:1 selects keeps the lowest hit ($clog2(NC) levels after them). Without a hit, hit is
// low and f is all zero.
// A module of its own, so that the mapper shapes the compares and the tree by their own depth:
// inside the port they share mapping runs with the decisions after them, which are then mapped
// as if the lookup's outputs were early.
module cxl_switch_lookup #(
    parameter integer NC = 12,   // candidates (>= 1)
    parameter integer FW = 10    // field bits per candidate (>= 1)
) (
    input  wire [11:0]      key,
    input  wire [NC-1:0]    cand_v,    // candidate takes part in the lookup
    input  wire [NC*12-1:0] cand_id,
    input  wire [NC*FW-1:0] cand_f,
    output wire             hit,
    output wire [FW-1:0]    f
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (NC < 1) begin : g_bad_nc
            cxl_switch_lookup_parameter_error_NC_must_be_at_least_1 u_stop ();
        end
        if (FW < 1) begin : g_bad_fw
            cxl_switch_lookup_parameter_error_FW_must_be_at_least_1 u_stop ();
        end
    endgenerate

    // RP leaves (a power of two, at least one padding leaf that never hits); node k of the heap
    // keeps child 2k (the lower candidates) when a candidate under it hit
    localparam integer RL = $clog2(NC + 1);
    localparam integer RP = 1 << RL;
    (* keep *) wire [2*RP-1:1]     hh;   // a candidate under node k hit
    (* keep *) wire [2*RP*FW-1:FW] tt;   // fields of the lowest hit under node k
    genvar gt;
    generate
        for (gt = 0; gt < RP; gt = gt + 1) begin : g_leaf
            if (gt < NC) begin : g_c
                assign hh[RP + gt] = cand_v[gt] && cand_id[gt*12 +: 12] == key;
                assign tt[(RP + gt)*FW +: FW] = cand_f[gt*FW +: FW];
            end else begin : g_pad
                assign hh[RP + gt] = 1'b0;
                assign tt[(RP + gt)*FW +: FW] = {FW{1'b0}};
            end
        end
        for (gt = 1; gt < RP; gt = gt + 1) begin : g_node
            assign hh[gt] = hh[2*gt] | hh[2*gt+1];
            assign tt[gt*FW +: FW] = hh[2*gt] ? tt[2*gt*FW +: FW] : tt[(2*gt+1)*FW +: FW];
        end
    endgenerate
    assign hit = hh[1];
    assign f   = tt[FW +: FW];
endmodule
`default_nettype wire
