`default_nettype none
// One queued line's lookups in an xb_lane, after this cycle's changes (combinational; the lane
// registers them, rtl/bridge/xb_lane.v "lookups"). From the line's address and its lookups before
// the changes: the hot-line cache holds it (c0) and which write-buffer entries hold its address
// (a0). Changes of the cycle: the issue stage writes the head line's cache tag (tw_i, set i_set);
// a DRS fill's tag is written (fl_v, address fl_la, set fl_set) unless the issue stage cancels it
// (fl_kill); a new line enters write-buffer entry wb_ins (one-hot, wb_new: any); NDRs free the
// entries wb_nf; the head line's hazard counters count up (rd_inc, wr_inc, counter i_hs).
// Outputs: the cache holds the line (a tag write of its set decides: the issue stage's after the
// fill's); which entries hold its address (an insert sets its entry to "the head line is this
// line"); an entry in use holds it; its read / write hazard counter is nonzero, picked from the
// counters' flags after the cycle without / with the increment (hz_ra / hz_rb, hz_wa / hz_wb).
// A module of its own so that synthesis sees the late change signals as its inputs and keeps the
// address compares off their paths.
module xb_lane_lk #(
    parameter integer WBS = 8,     // write-buffer entries of the lane (>= 1)
    parameter integer SW  = 4,     // cache set index bits of the lane (>= 1)
    parameter integer HZW = 5,     // hazard counter index bits (>= 1) ...
    parameter integer HZ  = 32,    // ... and counters, 2^HZW
    parameter integer LB  = 0      // line address bits above which the lane's line index starts
) (
    input  wire [45:0]    la,      // the line's address
    input  wire           c0,      // the cache holds it, before this cycle's tag writes
    input  wire [WBS-1:0] a0,      // the write-buffer entries holding its address, before an insert
    input  wire [45:0]    i_la,    // the head line's address
    input  wire [SW-1:0]  i_set,   // ... its cache set
    input  wire [HZW-1:0] i_hs,    // ... its hazard counter index
    input  wire [45:0]    fl_la,   // the DRS fill whose tag is written in this cycle
    input  wire [SW-1:0]  fl_set,
    input  wire           fl_v,
    input  wire           fl_kill, // ... its tag write is cancelled
    input  wire           tw_i,    // the issue stage writes the head line's tag
    input  wire           wb_new,  // a new line enters the write buffer ...
    input  wire [WBS-1:0] wb_ins,  // ... into this entry (one-hot)
    input  wire [WBS-1:0] wb_lv,   // write-buffer entries in use
    input  wire [WBS-1:0] wb_nf,   // ... freed by an NDR in this cycle
    input  wire           rd_inc,  // the head line's read counter counts up
    input  wire           wr_inc,  // ... its write counter
    input  wire [HZ-1:0]  hz_ra,   // read counters nonzero after the cycle without the increment
    input  wire [HZ-1:0]  hz_rb,   // ... with it
    input  wire [HZ-1:0]  hz_wa,   // write counters, likewise
    input  wire [HZ-1:0]  hz_wb,
    output wire           cm_n,    // the cache holds the line after the cycle
    output wire [WBS-1:0] am_n,    // the entries holding its address after the cycle
    output wire           wm_n,    // an entry in use holds it after the cycle
    output wire           rz_n,    // its read counter is nonzero after the cycle
    output wire           wz_n     // its write counter is nonzero after the cycle
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

    wire           ei  = (la == i_la);                   // it is the head line
    wire           ef  = (la == fl_la);                  // ... the fill's line
    wire           si  = (la[LB +: SW] == i_set);        // it is in the head line's set
    wire           sf  = (la[LB +: SW] == fl_set);       // ... in the fill's set
    assign cm_n = (tw_i && si) ? ei : ((fl_v && sf) ? (ef && !fl_kill) : c0);
    assign am_n = (wb_ins & {WBS{ei}}) | (~wb_ins & a0);
    assign wm_n = (wb_new && ei) || |(a0 & wb_lv & ~wb_nf);
    wire [HZW-1:0] hl  = la[LB +: HZW];                  // its hazard counter index
    wire           eh  = (hl == i_hs);                   // ... the head line's
    wire [HZ-1:0]  hoh = {{(HZ - 1){1'b0}}, 1'b1} << hl;
    assign rz_n = (rd_inc && eh) ? |(hoh & hz_rb) : |(hoh & hz_ra);
    assign wz_n = (wr_inc && eh) ? |(hoh & hz_wb) : |(hoh & hz_wa);
endmodule
`default_nettype wire
