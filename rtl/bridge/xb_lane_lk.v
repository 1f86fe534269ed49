`default_nettype none
// The compares behind one queued line's lookups in an xb_lane (combinational; the lane updates and
// registers the lookups, rtl/bridge/xb_lane.v "lookups"). From the line's address against the
// head line's (whose cache tag the issue stage may write, whose hazard counters may count up) and
// the DRS fill's whose tag is written in this cycle; the write-buffer entries in use after this
// cycle's NDRs that hold its address; its hazard counters' nonzero flags after the cycle without
// and with the head line's increment. Every input is early in the cycle (registers, or the
// responses' decode); the lane applies the late issue decision to these outputs in its last
// gates. A module of its own so that synthesis keeps these compares apart from the decision.
module xb_lane_lk #(
    parameter integer WBS = 8,     // write-buffer entries of the lane (>= 1)
    parameter integer SW  = 4,     // cache set index bits of the lane (>= 1)
    parameter integer HZW = 5,     // hazard counter index bits (>= 1) ...
    parameter integer HZ  = 32,    // ... and counters, 2^HZW
    parameter integer LB  = 0      // line address bit where the lane's line index starts
) (
    input  wire [45:0]    la,      // the line's address
    input  wire [WBS-1:0] a0,      // the write-buffer entries holding its address
    input  wire [45:0]    i_la,    // the head line's address
    input  wire [SW-1:0]  i_set,   // ... its cache set
    input  wire [HZW-1:0] i_hs,    // ... its hazard counter index
    input  wire [45:0]    fl_la,   // the DRS fill whose tag is written in this cycle ...
    input  wire [SW-1:0]  fl_set,
    input  wire           fl_v,    // ... (valid)
    input  wire [WBS-1:0] wb_lv,   // write-buffer entries in use
    input  wire [WBS-1:0] wb_nf,   // ... freed by an NDR in this cycle
    input  wire [HZ-1:0]  hz_ra,   // read counters nonzero after the cycle without the increment
    input  wire [HZ-1:0]  hz_rb,   // ... with it
    input  wire [HZ-1:0]  hz_wa,   // write counters, likewise
    input  wire [HZ-1:0]  hz_wb,
    output wire           ei,      // the line is the head line
    output wire           si,      // it is in the head line's cache set
    output wire           ef,      // it is the fill's line
    output wire           fw,      // the fill's tag write is to its set
    output wire           wmo,     // an entry in use after this cycle's NDRs holds its address
    output wire           eh,      // it uses the head line's hazard counters
    output wire [3:0]     hz4      // its counters nonzero after the cycle: {write with, write
                                   // without, read with, read without} the increment
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WBS < 1 || SW < 1 || HZW < 1 || HZ != (1 << HZW)) begin : g_bad_size
            xb_lane_lk_parameter_error_WBS_SW_HZW_at_least_1_and_HZ_2_to_the_HZW u_stop ();
        end
        if (LB < 0 || LB + SW > 46 || LB + HZW > 46) begin : g_bad_lb
            xb_lane_lk_parameter_error_LB_plus_SW_and_LB_plus_HZW_at_most_46 u_stop ();
        end
    endgenerate

    assign ei  = (la == i_la);
    assign si  = (la[LB +: SW] == i_set);
    assign ef  = (la == fl_la);
    assign fw  = fl_v && (la[LB +: SW] == fl_set);
    assign wmo = |(a0 & wb_lv & ~wb_nf);
    wire [HZW-1:0] hl  = la[LB +: HZW];                  // its hazard counter index
    wire [HZ-1:0]  hoh = {{(HZ - 1){1'b0}}, 1'b1} << hl;
    assign eh  = (hl == i_hs);
    assign hz4 = {|(hoh & hz_wb), |(hoh & hz_wa), |(hoh & hz_rb), |(hoh & hz_ra)};
endmodule
`default_nettype wire
