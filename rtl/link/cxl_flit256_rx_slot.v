`default_nettype none
// One header slot of a 256B flit as the RX sees it (helper of cxl_flit256_rx): decodes SlotFmt into
// up to 4 message positions (class, Valid, trailer flag, RSVD check) and flags format violations.
// Tables (class / offset / count per format, all derived from the generated message widths) are
// built at elaboration by constant functions. Multi-message slots: messages back to back from
// slot bit 4 (every 256B/PBR width is a multiple of 4, so each starts on a nibble boundary).
module cxl_flit256_rx_slot #(
    parameter integer SR  = 0,  // role of the SENDER (partner of the receiving endpoint)
    parameter integer PBR = 0,
    parameter integer H   = 0,  // 1: slot 0 (14 B H-slot), 0: 16 B G-slot
    // Message wire widths per class (8 b each) and the BEP/TRP wire bit of the data classes, from
    // the generated definitions (passed in so this per-slot module does not include them).
    parameter [6*8-1:0] CWV = {8'd104, 8'd40, 8'd100, 8'd28, 8'd40, 8'd72},
    parameter [123:0]   TM2 = 124'd0,
    parameter [123:0]   TM5 = 124'd0,
    // RSVD bits of each class's wire layout (124 b per class, class 0 lowest)
    parameter [6*124-1:0] RMV = {6*124{1'b0}}
) (
    input wire  [127:0]   slot,     // slot image (H-slot zero-extended above bit 111)
    output wire           fmt_err,  // non-empty slot breaking a format rule
    output wire [3:0]     pv,       // position q holds a valid message
    output wire [4*3-1:0] pc,       // class of position q
    output wire [3:0]     ptrl,     // position q is a DH with BEP/TRP set (trailer slot follows)
    output wire [3:0]     prsv      // position q holds a valid message with an RSVD bit set
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (SR != 0 && SR != 1) begin : g_bad_sr
            cxl_flit256_rx_slot_parameter_error_SR_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_flit256_rx_slot_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
        if (H != 0 && H != 1) begin : g_bad_h
            cxl_flit256_rx_slot_parameter_error_H_must_be_0_or_1 u_stop ();
        end
    endgenerate

    localparam integer SDOWN = (SR == 0) ? 1 : 0;  // sender is CXL_ROLE_DOWN (H2D/M2S)
    localparam integer GH = (H == 0 && PBR == 0) ? 1 : 0;  // G-slot HBR: the roomy variants

    // A format holds n0 messages of class c0, then n1 of class c1 (c = 7: none).
    function automatic [2:0] f_c0(input integer f);
        begin
            f_c0 = 3'd7;
            if (SDOWN == 1)
                case (f)
                    0: f_c0 = 3'd0;  1: f_c0 = 3'd1;  4: f_c0 = 3'd3;
                    5: f_c0 = 3'd4;  12: f_c0 = 3'd2; 14: f_c0 = 3'd5;
                    default: f_c0 = 3'd7;
                endcase
            else
                case (f)
                    2: f_c0 = 3'd0;  3: f_c0 = 3'd1;  6: f_c0 = 3'd3;
                    7: f_c0 = 3'd4;  13: f_c0 = 3'd2; 15: f_c0 = 3'd5;
                    default: f_c0 = 3'd7;
                endcase
        end
    endfunction
    function automatic integer f_n0(input integer f);
        begin
            f_n0 = 0;
            if (SDOWN == 1)
                case (f)
                    0, 4, 14: f_n0 = 1;
                    1, 5: f_n0 = (GH == 1) ? 3 : 2;
                    12: f_n0 = (GH == 1) ? 4 : 3;
                    default: f_n0 = 0;
                endcase
            else
                case (f)
                    2, 6: f_n0 = 1;
                    3, 13: f_n0 = (PBR != 0) ? 3 : 4;
                    7, 15: f_n0 = (GH == 1) ? 3 : 2;
                    default: f_n0 = 0;
                endcase
        end
    endfunction
    function automatic [2:0] f_c1(input integer f);
        begin
            if (SDOWN == 1) f_c1 = (f == 0) ? 3'd1 : 3'd7;
            else f_c1 = (f == 2) ? 3'd1 : (f == 6) ? 3'd4 : 3'd7;
        end
    endfunction
    function automatic integer f_n1(input integer f);
        begin
            f_n1 = 0;
            if (SDOWN == 1) begin
                if (f == 0 && GH == 1) f_n1 = 1;
            end else begin
                if (f == 2 && PBR == 0) f_n1 = (H != 0) ? 1 : 2;
                if (f == 6 && GH == 1) f_n1 = 1;
            end
        end
    endfunction
    function automatic integer cw(input [2:0] c);  // wire width of class c as the sender sends it
        begin
            cw = (c < 3'd6) ? 32'(CWV[c*8 +: 8]) : 0;
        end
    endfunction
    // Per (format, position): class (3 b), offset (8 b); per format: positions (3 b), end (8 b).
    /* verilator lint_off UNUSEDSIGNAL */  // table builders: dummy args, 32-bit temporaries
    function automatic [16*4*3-1:0] mk_cls(input integer dummy);
        integer f, q;
        begin
            mk_cls = {16*4*3{1'b1}} ^ {16*4*3{dummy[0]}};
            for (f = 0; f < 16; f = f + 1)
                for (q = 0; q < 4; q = q + 1)
                    mk_cls[(f*4+q)*3 +: 3] = (q < f_n0(f)) ? f_c0(f) : (q < f_n0(f) + f_n1(f)) ? f_c1(f) : 3'd7;
        end
    endfunction
    function automatic [16*4*8-1:0] mk_off(input integer dummy);
        integer f, q, o;
        begin
            mk_off = {16*4*8{dummy[0]}};
            for (f = 0; f < 16; f = f + 1)
                for (q = 0; q < 4; q = q + 1) begin
                    if (q < f_n0(f)) o = 4 + q * cw(f_c0(f));
                    else o = 4 + f_n0(f) * cw(f_c0(f)) + (q - f_n0(f)) * cw(f_c1(f));
                    mk_off[(f*4+q)*8 +: 8] = o[7:0];
                end
        end
    endfunction
    function automatic [16*8-1:0] mk_end(input integer dummy);
        integer f, e;
        begin
            mk_end = {16*8{dummy[0]}};
            for (f = 0; f < 16; f = f + 1) begin
                e = 4 + f_n0(f) * cw(f_c0(f)) + f_n1(f) * cw(f_c1(f));
                mk_end[f*8 +: 8] = e[7:0];
            end
        end
    endfunction
    function automatic [16*3-1:0] mk_nq(input integer dummy);
        integer f, n;
        begin
            mk_nq = {16*3{dummy[0]}};
            for (f = 0; f < 16; f = f + 1) begin
                n = f_n0(f) + f_n1(f);
                mk_nq[f*3 +: 3] = n[2:0];
            end
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [16*4*3-1:0] CLS_T = mk_cls(0);
    localparam [16*4*8-1:0] OFF_T = mk_off(0);
    localparam [16*3-1:0]   NQ_T  = mk_nq(0);
    localparam [16*8-1:0]   END_T = mk_end(0);  // first slot bit above the format's messages

    function automatic [123:0] wmask(input [2:0] c);
        begin
            wmask = (124'd1 << cw(c)) - 124'd1;
        end
    endfunction

    // Each format's positions, offsets and widths are constants, so every format's view of the
    // slot is wiring: per (format, position) the message bits at their constant offset, their
    // Valid bit, trailer flag and checks (OR trees over constant slices), per format the RSVD tail
    // check. The slot's SlotFmt then picks one format's results (a one-hot AND-OR), so no
    // position waits for a shift by a table offset (the decode is about 7 levels to pv / ptrl and
    // 14 to fmt_err instead of a 128-bit barrel shift and OR trees behind it).
    wire [3:0]   fmt = slot[3:0];
    wire [15:0]  fs  = 16'd1 << fmt;      // one-hot format
    wire [63:0]  f_v, f_z, f_r, f_t;      // bit f*4 + q: Valid, invalid-but-nonzero, RSVD, trailer
    wire [15:0]  f_err;                   // per format: a rule of the format broken
    genvar gf, gq;
    generate
        for (gf = 0; gf < 16; gf = gf + 1) begin : g_f
            for (gq = 0; gq < 4; gq = gq + 1) begin : g_q
                localparam [2:0]   C = CLS_T[(gf*4 + gq)*3 +: 3];
                localparam integer O = 32'(OFF_T[(gf*4 + gq)*8 +: 8]);
                if (C < 3'd6) begin : g_on
                    localparam [123:0] M  = wmask(C);
                    localparam [123:0] RM = RMV[32'(C)*124 +: 124];
                    localparam [123:0] TM = (C == 3'd2) ? TM2 : (C == 3'd5) ? TM5 : 124'd0;
                    wire [123:0] raw = 124'(slot >> O) & M;  // bits above the slot read 0
                    assign f_v[gf*4 + gq] = raw[0];
                    assign f_z[gf*4 + gq] = !raw[0] && |raw;
                    assign f_r[gf*4 + gq] = raw[0] && |(raw & RM);
                    assign f_t[gf*4 + gq] = raw[0] && |(raw & TM);
                end else begin : g_off
                    assign f_v[gf*4 + gq] = 1'b0;
                    assign f_z[gf*4 + gq] = 1'b0;
                    assign f_r[gf*4 + gq] = 1'b0;
                    assign f_t[gf*4 + gq] = 1'b0;
                end
            end
            localparam integer E = 32'(END_T[gf*8 +: 8]);
            wire above = (E >= 128) ? 1'b0 : |(slot >> E);   // RSVD tail must be 0
            // valid ones are a prefix of the positions
            wire [3:0] fv = f_v[gf*4 +: 4];
            wire perr = |(fv[3:1] & ~fv[2:0]);
            assign f_err[gf] = (NQ_T[gf*3 +: 3] == 3'd0) || |f_z[gf*4 +: 4] || perr || above;
        end
    endgenerate

    genvar q;
    generate
        for (q = 0; q < 4; q = q + 1) begin : g_pos
            wire [15:0] sv, sr, st;
            for (gf = 0; gf < 16; gf = gf + 1) begin : g_sel
                assign sv[gf] = f_v[gf*4 + q];
                assign sr[gf] = f_r[gf*4 + q];
                assign st[gf] = f_t[gf*4 + q];
            end
            assign pv[q]   = |(fs & sv);
            assign prsv[q] = |(fs & sr);
            assign ptrl[q] = |(fs & st);
            assign pc[q*3 +: 3] = CLS_T[(fmt*4 + q)*3 +: 3];
        end
    endgenerate
    assign fmt_err = |slot && (!slot[4] || |(fs & f_err));
endmodule
`default_nettype wire
