`default_nettype none
// 256B standard flit formatter, transmit side (CONVENTIONS.md "Flit wire"; cxl-flits.md 4).
// Combinational: one flit per call from the class heads, the credits and the acks to return.
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
    input wire  [5:0]        msg_avail,
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
            assign h_ok[c] = ~|sbits[c][127:112];
        end
    endgenerate

    wire build = (ctl_kind == K_NONE);

    // ---------------------------------------------------------------- placement
    reg        h0_v;
    reg [2:0]  h0_c;
    reg [5:0]  take;
    reg [3:0]  pos [0:5];     // header slot of each taken class
    reg [4:0]  p;             // next free slot
    reg [4:0]  sz;
    reg [2:0]  oc;
    integer    i;
    always @* begin
        h0_v = 1'b0;
        h0_c = 3'd0;
        take = 6'd0;
        for (i = 0; i < 6; i = i + 1) pos[i] = 4'd0;
        for (i = 5; i >= 0; i = i - 1) begin
            oc = order(i[2:0]);
            if (build && msg_avail[oc] && h_ok[oc]) begin
                h0_v = 1'b1;
                h0_c = oc;
            end
        end
        p = 5'd1;
        if (h0_v) begin
            take[h0_c] = 1'b1;
            if (h0_c == 3'd2 || h0_c == 3'd5) p = 5'd5 + {4'd0, trl[h0_c]};
        end
        for (i = 0; i < 6; i = i + 1) begin
            oc = order(i[2:0]);
            sz = (oc == 3'd2 || oc == 3'd5) ? 5'd5 + {4'd0, trl[oc]} : 5'd1;
            if (build && msg_avail[oc] && !(h0_v && h0_c == oc) && p + sz <= 5'(NSLOT)) begin
                take[oc] = 1'b1;
                pos[oc] = p[3:0];
                p = p + sz;
            end
        end
    end

    // ---------------------------------------------------------------- slot contents
    wire [127:0] slot [1:NSLOT-1];
    wire [111:0] slot0 = h0_v ? sbits[h0_c][111:0] : 112'd0;
    genvar s, k;
    generate
        for (s = 1; s < NSLOT; s = s + 1) begin : g_slot
            wire [127:0] hv [0:5];
            wire [127:0] dv [0:1][0:3];
            for (c = 0; c < 6; c = c + 1) begin : g_h
                assign hv[c] = (take[c] && !(h0_v && h0_c == c) && pos[c] == s) ? sbits[c] : 128'd0;
            end
            for (c = 0; c < 2; c = c + 1) begin : g_d
                // data class 2 (C_DATA) or 5 (M_DATA); its data starts right after its DH slot
                localparam [2:0] DC = (c == 0) ? 3'd2 : 3'd5;
                wire [3:0] base = (h0_v && h0_c == DC) ? 4'd1 : pos[DC] + 4'd1;
                for (k = 0; k < 4; k = k + 1) begin : g_k
                    assign dv[c][k] = (take[DC] && base + k == s) ? msg_data[c*512 + k*128 +: 128]
                                                                   : 128'd0;
                end
            end
            assign slot[s] = hv[0] | hv[1] | hv[2] | hv[3] | hv[4] | hv[5] |
                             dv[0][0] | dv[0][1] | dv[0][2] | dv[0][3] |
                             dv[1][0] | dv[1][1] | dv[1][2] | dv[1][3];
        end
    endgenerate

    // ---------------------------------------------------------------- credits (CRD[15:0])
    // Field f returns credits of one channel: cache class (0 req, 2 data, 1 rsp) or the mem class
    // (3, 5, 4), whichever has more pending.
    reg [14:0] crd_f;
    reg [47:0] ctake;
    reg [2:0]  ci, cm, cx;
    integer    f;
    always @* begin
        crd_f = 15'd0;
        ctake = 48'd0;
        ci = 3'd0;
        cm = 3'd0;
        cx = 3'd7;
        for (f = 0; f < 3; f = f + 1) begin
            ci = (f == 0) ? 3'd0 : (f == 1) ? 3'd2 : 3'd1;
            cm = (f == 0) ? 3'd3 : (f == 1) ? 3'd5 : 3'd4;
            if (build) begin
                if (crd_pend[ci*8 +: 8] >= crd_pend[cm*8 +: 8]) begin
                    cx = crd_idx(crd_pend[ci*8 +: 8]);
                    if (cx != 3'd7) begin
                        crd_f[f*5 +: 5] = CRD_CACHE + {2'd0, cx};
                        ctake[ci*8 +: 8] = crd_val(cx);
                    end
                end else begin
                    cx = crd_idx(crd_pend[cm*8 +: 8]);
                    crd_f[f*5 +: 5] = CRD_MEM + {2'd0, cx};
                    ctake[cm*8 +: 8] = crd_val(cx);
                end
            end
        end
    end

    // ---------------------------------------------------------------- header and flit
    // Some class is taken whenever one is available: the H-slot or, when no available message fits
    // it, G-slot 1 takes the first, and whatever the H-slot took leaves at least 9 G-slots for it
    // (a data class needs at most 6). So `any_msg` needs only the availability, not the placement.
    wire        any_msg = build && (msg_avail != 6'd0);
    wire        any_crd = |crd_f;
    wire        payload = build && (any_msg || any_crd || ack_pend != 8'd0);
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

    wire [1935:0] body;
    assign body[15:0]      = fhdr;
    assign body[127:16]    = payload ? slot0 : 112'd0;
    generate
        for (s = 1; s < NSLOT; s = s + 1) begin : g_body
            assign body[s*128 +: 128] = payload ? slot[s] : 128'd0;
        end
    endgenerate
    assign body[1935:1920] = payload ? crd : 16'd0;

    wire [63:0] crc;
    cxl_crc64_256b u_crc (.data(body), .crc(crc));

    assign flit           = {48'd0, crc, body};  // FEC bytes 250..255 = 0 (left to the PHY)
    assign flit_nocrc     = {112'd0, body};
    assign flit_retryable = payload;
    assign msg_take       = take;
    assign crd_take       = ctake;
    assign ack_take       = payload ? ack_pend : 8'd0;
    assign busy_adf       = 1'b0;

    // The 256B TX keeps no state (never rolls over); RETRY.Ack carries only the ESeq echo.
    wire unused_ok = &{1'b0, clk, rst, fire, ctl_num_retry, ctl_empty};
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok_sink = unused_ok;
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
