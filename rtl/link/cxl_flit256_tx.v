`default_nettype none
// 256B standard flit formatter, transmit side (CONVENTIONS.md "Flit wire"; cxl-flits.md 4).
// Combinational: one flit per call from the class heads, the credits and the acks to return.
// Messages are placed only with msg_en (and ctl_kind NONE): the same flit as with msg_avail gated
// by msg_en, but the placement is formed from msg_avail alone and msg_en gates its results last.
// Packing (greedy, one message per class per flit, always enough for line rate):
//   slot 0 (H-slot) takes the first available class (order C_REQ C_RSP M_REQ M_RSP C_DATA M_DATA)
//   whose message fits the 108 H payload bits (only PBR M2S Req/RwD with upper bits set do not);
//   the other classes follow in G-slots 1..14 in the same order, one single-message slot each; a
//   DH slot is followed by its 4 data slots (+1 zero trailer slot when BEP/TRP = 1). A class is
//   taken only if all its slots fit in this flit, so data never rolls over.
// Message 0 of the format is the one message; the rest of the slot is zero (tight prefix).
module cxl_flit256_tx #(
    parameter integer ROLE = 0,  // CXL_ROLE_DOWN (host/DSP) or CXL_ROLE_UP (device)
    parameter integer PBR  = 0   // 1: PBR message layouts and slot formats
) (
    input wire               clk,
    input wire               rst,
    input wire  [5:0]        msg_avail,    // class heads that could be sent (queue and credit)
    input wire               msg_en,       // messages may be placed (with ctl_kind NONE)
    input wire  [6*128-1:0]  msg_hdr,
    input wire  [2*512-1:0]  msg_data,
    output wire [5:0]        msg_take,
    input wire  [6*8-1:0]    crd_pend,
    output wire [6*8-1:0]    crd_take,
    input wire  [7:0]        ack_pend,
    output wire [7:0]        ack_take,
    input wire  [2:0]        ctl_kind,
    input wire  [7:0]        ctl_eseq,
    input wire  [4:0]        ctl_num_retry,
    input wire               ctl_empty,
    input wire               fire,
    output wire [2047:0]     flit,
    output wire [2047:0]     flit_nocrc,   // the same flit with its CRC field zero
    output wire              flit_retryable,
    output wire              busy_adf
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit256_tx_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_flit256_tx_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
    endgenerate

    `include "cxl_defs.vh"

    localparam [2:0] K_NONE = 3'd0, K_REQ = 3'd3, K_ACK = 3'd4;
    localparam [1:0] FT_NOP = 2'b00, FT_PAYLOAD = 2'b10;
    localparam [1:0] RC_NONE = 2'b00, RC_ACK = 2'b01, RC_REQ = 2'b10, RC_RACK = 2'b11;
    localparam [4:0] CRD_EMPTY = 5'h01;
    localparam integer NSLOT = 15;
    localparam integer DOWN = (ROLE == CXL_ROLE_DOWN) ? 1 : 0;
    // CRD channel code base of what the partner sends us (we return credits for our RX classes):
    // A = H2D (04h), B = D2H (09h), C = M2S (14h), D = S2M (19h).
    localparam [4:0] CRD_CACHE = (DOWN == 1) ? 5'h09 : 5'h04;
    localparam [4:0] CRD_MEM   = (DOWN == 1) ? 5'h19 : 5'h14;

    // Single-message slot format per class (cxl-flits.md 4.2 encodings).
    function automatic [3:0] cls_fmt(input [2:0] c);
        begin
            case (c)
                3'd0: cls_fmt = (DOWN == 1) ? 4'd0  : 4'd2;
                3'd1: cls_fmt = (DOWN == 1) ? 4'd1  : 4'd3;
                3'd2: cls_fmt = (DOWN == 1) ? 4'd12 : 4'd13;
                3'd3: cls_fmt = (DOWN == 1) ? 4'd4  : 4'd6;
                3'd4: cls_fmt = (DOWN == 1) ? 4'd5  : 4'd7;
                default: cls_fmt = (DOWN == 1) ? 4'd14 : 4'd15;
            endcase
        end
    endfunction

    // Placement order: header-only classes first, data classes last.
    function automatic [2:0] order(input [2:0] i);
        begin
            case (i)
                3'd0: order = 3'd0;
                3'd1: order = 3'd1;
                3'd2: order = 3'd3;
                3'd3: order = 3'd4;
                3'd4: order = 3'd2;
                default: order = 3'd5;
            endcase
        end
    endfunction
    // Classes whose message can be too wide for the H-slot's 108 payload bits (PBR M2S Req, RwD)
    /* verilator lint_off UNUSEDSIGNAL */  // table builder: dummy arg
    function automatic [5:0] mk_hv(input integer dummy);
        integer i;
        begin
            mk_hv = 6'(dummy);
            for (i = 0; i < 6; i = i + 1) mk_hv[i] = (cxl_cls_w256(ROLE, PBR, i) > 108);
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [5:0] HV = mk_hv(0);
    localparam integer NV = 32'(HV[0]) + 32'(HV[1]) + 32'(HV[2]) + 32'(HV[3]) + 32'(HV[4]) + 32'(HV[5]);

    // Largest encodable credit return (1/4/8/12/16) not above n; index 0..4 or 7 = none.
    function automatic [2:0] crd_idx(input [7:0] n);
        begin
            if (n >= 8'd16)      crd_idx = 3'd4;
            else if (n >= 8'd12) crd_idx = 3'd3;
            else if (n >= 8'd8)  crd_idx = 3'd2;
            else if (n >= 8'd4)  crd_idx = 3'd1;
            else if (n >= 8'd1)  crd_idx = 3'd0;
            else                 crd_idx = 3'd7;
        end
    endfunction
    function automatic [7:0] crd_val(input [2:0] i);
        begin
            case (i)
                3'd0: crd_val = 8'd1;
                3'd1: crd_val = 8'd4;
                3'd2: crd_val = 8'd8;
                3'd3: crd_val = 8'd12;
                3'd4: crd_val = 8'd16;
                default: crd_val = 8'd0;
            endcase
        end
    endfunction

    // ---------------------------------------------------------------- per class slot images
    wire [127:0] sbits [0:5];  // {message, SlotFmt} as a G-slot image
    wire [5:0]   trl;
    wire [5:0]   h_ok;         // fits the 112-bit H-slot
    genvar c;
    generate
        for (c = 0; c < 6; c = c + 1) begin : g_enc
            wire [123:0] w;
            cxl_flit256_enc #(.ROLE(ROLE), .PBR(PBR), .CLS(c)) u_enc (
                .canon(msg_hdr[c*128 +: 128]), .wire_o(w), .trl(trl[c]));
            assign sbits[c] = {w, cls_fmt(c)};
            // a message of at most 108 bits always fits (the encoder drives 0 above its width)
            if (HV[c] != 0) begin : g_hv
                assign h_ok[c] = ~|sbits[c][127:112];
            end else begin : g_fit
                assign h_ok[c] = 1'b1;
            end
        end
    endgenerate

    wire build = (ctl_kind == K_NONE);
    // Messages go into the flit only with build and msg_en; the placement below is formed from
    // msg_avail alone, and this gate is applied to its results last (take, slot images).
    wire men = build && msg_en;

    // ---------------------------------------------------------------- placement
    // The placement depends only on which classes are available, which of them fit the H-slot
    // (a constant for every class but PBR M2S Req / RwD) and the two data classes' trailer bits:
    // 8 bits, plus one per class whose H-slot fit varies. It is read from tables built at
    // elaboration by the greedy loop of place(), one table of 256 entries (index {msg_avail,
    // trl5, trl2}) per combination of the varying fit bits, the fit bits picking the table last.
    // An entry: [5:0] the class in the H-slot (one-hot), [11:6] the classes taken, then per class
    // c the G-slot of its header (14 bits from 12 + 14c, bit s-1 = slot s), then for C_DATA and
    // M_DATA the slot of their first data slot (14 bits from 96 / 110; also for a DH in the H-slot).
    localparam integer TW = 124;
    function automatic [TW-1:0] place(input [5:0] av, input [5:0] hk, input t2, input t5);
        reg        h0v;
        reg [2:0]  h0c, oc;
        reg [5:0]  tk;
        reg [4:0]  p, sz;
        reg [29:0] pos;          // 5 bits per class
        integer    i;
        begin
            h0v = 1'b0;
            h0c = 3'd0;
            tk = 6'd0;
            pos = 30'd0;
            for (i = 5; i >= 0; i = i - 1) begin
                oc = order(3'(i));
                if (av[oc] && hk[oc]) begin
                    h0v = 1'b1;
                    h0c = oc;
                end
            end
            p = 5'd1;
            if (h0v) begin
                tk[h0c] = 1'b1;
                if (h0c == 3'd2) p = 5'd5 + {4'd0, t2};
                if (h0c == 3'd5) p = 5'd5 + {4'd0, t5};
            end
            for (i = 0; i < 6; i = i + 1) begin
                oc = order(3'(i));
                sz = (oc == 3'd2) ? 5'd5 + {4'd0, t2} : (oc == 3'd5) ? 5'd5 + {4'd0, t5} : 5'd1;
                if (av[oc] && !(h0v && h0c == oc) && p + sz <= 5'(NSLOT)) begin
                    tk[oc] = 1'b1;
                    pos[oc*5 +: 5] = p;
                    p = p + sz;
                end
            end
            place = {TW{1'b0}};
            if (h0v) place[7'(h0c)] = 1'b1;
            place[11:6] = tk;
            for (i = 0; i < 6; i = i + 1)
                if (tk[i] && !(h0v && h0c == 3'(i))) place[12 + 14*i + 32'(pos[i*5 +: 5]) - 1] = 1'b1;
            if (tk[2]) place[96 + ((h0v && h0c == 3'd2) ? 0 : 32'(pos[10 +: 5]))] = 1'b1;
            if (tk[5]) place[110 + ((h0v && h0c == 3'd5) ? 0 : 32'(pos[25 +: 5]))] = 1'b1;
        end
    endfunction
    // fit bits of sub-table k: class c's bit from k when its fit varies, else 1
    function automatic [5:0] hk_of(input integer k);
        integer i, j;
        begin
            hk_of = 6'b111111;
            j = 0;
            for (i = 0; i < 6; i = i + 1)
                if (HV[i] != 0) begin
                    hk_of[i] = k[j];
                    j = j + 1;
                end
        end
    endfunction
    function automatic [256*TW-1:0] mk_tab(input integer k);
        integer x;
        begin
            for (x = 0; x < 256; x = x + 1)   // every bit is set by one entry
                mk_tab[x*TW +: TW] = place(6'(x >> 2), hk_of(k), x[0], x[1]);
        end
    endfunction
    function automatic [255:0] col_of(input [256*TW-1:0] t, input integer b);  // bit b of each entry
        integer x;
        begin
            col_of = 256'd0;
            for (x = 0; x < 256; x = x + 1) col_of[x] = t[x*TW + b];
        end
    endfunction
    wire [7:0]             pidx = {msg_avail, trl[5], trl[2]};
    wire [(1<<NV)*TW-1:0]  pents;     // the entry of every sub-table
    genvar kv, b;
    generate
        for (kv = 0; kv < (1 << NV); kv = kv + 1) begin : g_tab
            localparam [256*TW-1:0] TAB = mk_tab(kv);
            for (b = 0; b < TW; b = b + 1) begin : g_b
                localparam [255:0] COL = col_of(TAB, b);
                assign pents[kv*TW + b] = COL[pidx];
            end
        end
    endgenerate
    // the varying fit bits (in class order) pick the sub-table
    localparam integer NVW = (NV > 0) ? NV : 1;
    reg [NVW-1:0] hsel;
    integer hv, hj;
    always @* begin
        hsel = {NVW{1'b0}};
        hj = 0;
        for (hv = 0; hv < 6; hv = hv + 1)
            if (HV[hv] != 0) begin
                hsel[hj] = h_ok[hv];
                hj = hj + 1;
            end
    end
    wire [TW-1:0] pe = pents[hsel*TW +: TW];
    wire [5:0]    h0   = pe[5:0];
    wire [5:0]    take = pe[11:6];
    wire [13:0]   hp [0:5];
    generate
        for (c = 0; c < 6; c = c + 1) begin : g_hp
            assign hp[c] = pe[12 + 14*c +: 14];
        end
    endgenerate
    wire [13:0]   dE = pe[96 +: 14];
    wire [13:0]   dF = pe[110 +: 14];
    // ---------------------------------------------------------------- slot contents
    // AND-OR select per slot over the sources that can reach it (6 headers, 4 data slots of each
    // data class), gated by men last.
    wire [127:0] slot [1:NSLOT-1];
    // (the selects are kept: ABC, which takes every input as arriving at time 0, would otherwise
    // fold the late gate into them)
    (* keep *) wire [111:0] slot0_m = ({112{h0[0]}} & sbits[0][111:0]) | ({112{h0[1]}} & sbits[1][111:0]) |
                           ({112{h0[2]}} & sbits[2][111:0]) | ({112{h0[3]}} & sbits[3][111:0]) |
                           ({112{h0[4]}} & sbits[4][111:0]) | ({112{h0[5]}} & sbits[5][111:0]);
    wire [111:0] slot0 = {112{men}} & slot0_m;
    genvar s, k;
    generate
        for (s = 1; s < NSLOT; s = s + 1) begin : g_slot
            wire [127:0] dv [0:1][0:3];
            for (k = 0; k < 4; k = k + 1) begin : g_k
                if (k < s) begin : g_on
                    assign dv[0][k] = {128{dE[s-k-1]}} & msg_data[k*128 +: 128];
                    assign dv[1][k] = {128{dF[s-k-1]}} & msg_data[512 + k*128 +: 128];
                end else begin : g_off
                    assign dv[0][k] = 128'd0;
                    assign dv[1][k] = 128'd0;
                end
            end
            (* keep *) wire [127:0] sm = ({128{hp[0][s-1]}} & sbits[0]) | ({128{hp[1][s-1]}} & sbits[1]) |
                              ({128{hp[2][s-1]}} & sbits[2]) | ({128{hp[3][s-1]}} & sbits[3]) |
                              ({128{hp[4][s-1]}} & sbits[4]) | ({128{hp[5][s-1]}} & sbits[5]) |
                              dv[0][0] | dv[0][1] | dv[0][2] | dv[0][3] |
                              dv[1][0] | dv[1][1] | dv[1][2] | dv[1][3];
            assign slot[s] = {128{men}} & sm;
        end
    endgenerate

    // ---------------------------------------------------------------- credits (CRD[15:0])
    // Field f returns credits of one channel: cache class (0 req, 2 data, 1 rsp) or the mem class
    // (3, 5, 4), whichever has more pending. Formed from the pending counts alone (kept), then
    // gated by build.
    reg [14:0] crd_fc;
    reg [47:0] ctake_c;
    reg [2:0]  ci, cm, cx;
    integer    f;
    always @* begin
        crd_fc = 15'd0;
        ctake_c = 48'd0;
        ci = 3'd0;
        cm = 3'd0;
        cx = 3'd7;
        for (f = 0; f < 3; f = f + 1) begin
            ci = (f == 0) ? 3'd0 : (f == 1) ? 3'd2 : 3'd1;
            cm = (f == 0) ? 3'd3 : (f == 1) ? 3'd5 : 3'd4;
            if (crd_pend[ci*8 +: 8] >= crd_pend[cm*8 +: 8]) begin
                cx = crd_idx(crd_pend[ci*8 +: 8]);
                if (cx != 3'd7) begin
                    crd_fc[f*5 +: 5] = CRD_CACHE + {2'd0, cx};
                    ctake_c[ci*8 +: 8] = crd_val(cx);
                end
            end else begin
                cx = crd_idx(crd_pend[cm*8 +: 8]);
                crd_fc[f*5 +: 5] = CRD_MEM + {2'd0, cx};
                ctake_c[cm*8 +: 8] = crd_val(cx);
            end
        end
    end
    (* keep *) wire [14:0] crd_fr   = crd_fc;
    (* keep *) wire [47:0] ctake_r  = ctake_c;
    wire [14:0] crd_f = {15{build}} & crd_fr;
    wire [47:0] ctake = {48{build}} & ctake_r;

    // ---------------------------------------------------------------- header and flit
    // Some class is taken whenever one is available: the H-slot or, when no available message fits
    // it, G-slot 1 takes the first, and whatever the H-slot took leaves at least 9 G-slots for it
    // (a data class needs at most 6). So `any_msg` needs only the availability, not the placement.
    // A credit field is used whenever one of its two classes has credits pending.
    (* keep *) wire av_any = (msg_avail != 6'd0);
    (* keep *) wire cr_any = (crd_pend != 48'd0);
    (* keep *) wire pl_x   = cr_any || (ack_pend != 8'd0);   // a payload without messages
    wire        any_msg = men && av_any;
    wire        any_crd = build && cr_any;
    wire        payload = build && (pl_x || (msg_en && av_any));
    wire [15:0] crd = {1'b0, crd_f[14:5], (payload && !any_msg && !any_crd) ? CRD_EMPTY : crd_f[4:0]};
    reg  [1:0]  rcmd;
    reg  [9:0]  fld;
    always @* begin
        rcmd = RC_NONE;
        fld  = 10'd0;
        if (payload) begin
            if (ack_pend != 8'd0) begin
                rcmd = RC_ACK;
                fld  = {2'd0, ack_pend};
            end
        end else if (ctl_kind == K_REQ) begin
            rcmd = RC_REQ;
            fld  = {2'd0, ctl_eseq};
        end else if (ctl_kind == K_ACK) begin
            rcmd = RC_RACK;
            fld  = {2'd0, ctl_eseq};
        end
    end
    // Flit header: [7:6] type, [5:4] 0, [3:2] Replay Cmd, {[1:0],[15:8]} 10-bit field.
    wire [15:0] fhdr = {fld[7:0], payload ? FT_PAYLOAD : FT_NOP, 2'b00, rcmd, fld[9:8]};

    // Slots and CRD are zero without a payload (no message placed, no credit field used), so they
    // need no payload gate.
    wire [1935:0] body;
    assign body[15:0]      = fhdr;
    assign body[127:16]    = slot0;
    generate
        for (s = 1; s < NSLOT; s = s + 1) begin : g_body
            assign body[s*128 +: 128] = slot[s];
        end
    endgenerate
    assign body[1935:1920] = crd;

    wire [63:0] crc;
    cxl_crc64_256b u_crc (.data(body), .crc(crc));

    assign flit           = {48'd0, crc, body};  // FEC bytes 250..255 = 0 (left to the PHY)
    assign flit_nocrc     = {112'd0, body};
    assign flit_retryable = payload;
    assign msg_take       = take & {6{men}};
    assign crd_take       = ctake;
    assign ack_take       = payload ? ack_pend : 8'd0;
    assign busy_adf       = 1'b0;

    // The 256B TX keeps no state (never rolls over); RETRY.Ack carries only the ESeq echo. Header-
    // only classes have no trailer; slots 0 and 15 of the data-slot vectors are never selected.
    wire unused_ok = &{1'b0, clk, rst, fire, ctl_num_retry, ctl_empty, trl[4:3], trl[1:0]};
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok_sink = unused_ok;
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
