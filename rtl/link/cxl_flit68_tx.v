`default_nettype none
// 68B slot packer (TX, first half of the 68B formatter): packs one protocol flit (or the all-data
// flit a previous one owes) per `fire` from the class queue heads into cxl_link's prepared-flit
// buffer (cxl-flits.md 1, CONVENTIONS.md "Flit wire"). It places messages and data only: the
// credit fields, Ak, LLCRD and RETRY/INIT control flits are cxl_flit68_txout's (it builds the
// flit that is sent, from the counts of that cycle), and cxl_link adds the CRC after that.
// Packing policy (ours, legal per spec 4.2.5): at most one message per class and one data header
// (DH) per flit, Sz=1 (64 B), BE=0, no MDH. Slot 0 takes the first header group, later headers go
// to the first G-slots after the rollover chunks, the DH is always the last header placed so its
// data fills the following slots to the end of the flit; the rest rolls over (4 -> all-data flit).
// `flit` holds flit bits [511:0] with the credit fields [31:20] and Ak [2] zero; it is a flit to
// store when `flit_valid` (a protocol flit with messages or owed chunks, or an all-data flit).
module cxl_flit68_tx #(
    parameter integer ROLE = 0      // CXL_ROLE_DOWN (sends H2D/M2S) or CXL_ROLE_UP (D2H/S2M)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [5:0]       msg_avail,     // queue head of class c may be packed (credit held)
    input  wire [6*128-1:0] msg_hdr,
    input  wire [2*512-1:0] msg_data,
    output reg  [5:0]       msg_take,      // queue heads packed into `flit` (taken on `fire`)
    input  wire             fire,          // `flit` is stored this cycle (the buffer has room)
    output reg  [511:0]     flit,
    output reg              flit_valid,
    output wire             busy_adf       // the next flit packed is the all-data flit owed
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit68_tx_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
    endgenerate

`include "cxl_defs.vh"

    localparam integer UP = (ROLE == CXL_ROLE_UP) ? 1 : 0;
    // Slot format codes (cxl-flits.md 1.4)
    localparam [2:0] F0 = 3'd0, F1 = 3'd1, F2 = 3'd2, F3 = 3'd3, F4 = 3'd4, F5 = 3'd5;
    localparam [2:0] G_EMPTY = (UP != 0) ? F5 : F1;  // a header format whose messages are all invalid
    localparam [2:0] ROLL_ADF = 3'd4;

    // Rollover state: chunks of the last DH still owed, and its line.
    reg [2:0]   roll;
    reg [511:0] pdata;
    reg         dh_rr;       // round robin between the two data classes

    // Wire forms of the queue heads (both directions computed; ROLE selects).
    wire [63:0] h2d_req_w = cxl_h2d_req_to_w68(msg_hdr[0*128 +: 128]);
    wire [31:0] h2d_rsp_w = cxl_h2d_rsp_to_w68(msg_hdr[1*128 +: 128]);
    wire [23:0] h2d_dh_w  = cxl_h2d_dh_to_w68(msg_hdr[2*128 +: 128]);
    wire [86:0] m2s_req_w = cxl_m2s_req_to_w68(msg_hdr[3*128 +: 128]);
    wire [86:0] m2s_rwd_w = cxl_m2s_rwd_to_w68(msg_hdr[5*128 +: 128]);
    wire [78:0] d2h_req_w = cxl_d2h_req_to_w68(msg_hdr[0*128 +: 128]);
    wire [19:0] d2h_rsp_w = cxl_d2h_rsp_to_w68(msg_hdr[1*128 +: 128]);
    wire [16:0] d2h_dh_w  = cxl_d2h_dh_to_w68(msg_hdr[2*128 +: 128]);
    wire [29:0] s2m_ndr_w = cxl_s2m_ndr_to_w68(msg_hdr[4*128 +: 128]);
    wire [39:0] s2m_drs_w = cxl_s2m_drs_to_w68(msg_hdr[5*128 +: 128]);

    // Packing plan, from msg_avail, roll and dh_rr only: which source every slot takes, as
    // one-hot selects, so each flit bit is an AND-OR of its possible sources (timing: a chain of
    // conditional assignments made a mux per source in series, and the slot of a G header and of
    // each data chunk an indexed write). Outside the all-data flit (roll 4) nothing is placed.
    wire       adf = (roll == ROLL_ADF);
    wire [5:0] a   = msg_avail & {6{!adf}};
    wire [3:0] r1h = {roll == 3'd3, roll == 3'd2, roll == 3'd1, roll == 3'd0};   // roll 0..3
    wire       r_le1 = r1h[0] | r1h[1];
    wire       r_le2 = r_le1 | r1h[2];
    // Some message is placed: slot 0 always takes a message of this direction when one is
    // available (DOWN sends classes 0, 1, 2, 3, 5; UP 0, 1, 2, 4, 5), so this equals `take` != 0
    // in a flit that may carry messages, and it does not wait for the packing (timing).
    wire       any_msg = (UP == 0) ? (|{a[5], a[3:0]}) : (|{a[5:4], a[2:0]});
    // the flit's single DH: C_DATA (d1) or M_DATA (d2), round robin when both wait
    wire       d1 = a[2] && !(a[5] && dh_rr);
    wire       d2 = a[5] && !(a[2] && !dh_rr);
    // Slot 0 (a header slot), one of four cases:
    //   DOWN: s0a H0 Req + Rsp; s0b H5 M2S Req; s0c H1 DH; s0d H4 RwD
    //   UP:   s0a H0 Rsp + NDR (+ DH when no D2H Req waits); s0b H1 Req (+ DH); s0c H1 DH;
    //         s0d H3 DRS
    // gx: the request slot 0 could not take (DOWN M2S Req, UP D2H Req) in G slot roll + 1, with
    // the DH when it is C_DATA. The DH goes into slot 0 (dh0), with gx (gxd), or into a G slot of
    // its own at roll + 1 (gd1) or after gx at roll + 2 (gd2); its line's chunks follow in the
    // slots after the DH's slot, from roll + 1 + off (off 0: dh0, 1: gd1 or gxd, 2: gd2), and the
    // rest rolls over. Each is written flat from the availability bits (not one from the other).
    wire hx  = (UP == 0) ? (a[0] || a[1]) : (a[1] || a[4]);   // slot 0's first header group
    wire ox  = (UP == 0) ? a[3] : a[0];                        // the other request waits
    wire dha = a[2] || a[5];                                   // a DH waits
    wire s0a = hx;
    wire s0b = !hx && ox;
    wire s0c = !hx && !ox && d1;
    wire s0d = !hx && !ox && d2;
    wire gx  = hx && ox && r_le2;
    wire gxd = gx && d1;
    wire off0 = (UP == 0) ? (!hx && !ox && dha)
                          : (dha && ((!hx && !ox) || (d1 && (hx != ox))));
    wire gd1  = (UP == 0) ? (r_le2 && dha && (hx != ox)) : (r_le2 && d2 && (hx != ox));
    wire gd2  = hx && ox && d2 && r_le1;
    wire off1 = gd1 || gxd;
    wire dh_pl = off0 || off1 || gd2;           // the DH is placed (and taken)
    // per G slot j (1..3): rollover chunk of the pending line, the gx or gd header slot, chunk i
    // of the new line, or an empty header slot
    reg  [3:0] s_gx, s_gd, s_em;
    reg  [3*4-1:0] s_nw;                          // bit 3*j + i: slot j holds new chunk i
    reg  [4*4-1:0] s_rk;                          // bit 4*j + k: slot j holds rollover chunk of roll k
    integer    j, i;
    always @* begin
        s_gx = 4'd0; s_gd = 4'd0; s_em = 4'd0; s_nw = 12'd0; s_rk = 16'd0;
        for (j = 1; j < 4; j = j + 1) begin
            for (i = j; i < 4; i = i + 1) s_rk[4*j + i] = r1h[i];   // slot j <= roll
            s_gx[j] = gx && r1h[j-1];
            s_gd[j] = (gd1 && r1h[j-1]) || (gd2 && j >= 2 && r1h[(j >= 2) ? j-2 : 0]);
            for (i = 0; i < 3; i = i + 1)                           // slot roll + 1 + off + i
                s_nw[3*j + i] = (off0 && j-1-i >= 0 && r1h[(j-1-i >= 0) ? j-1-i : 0]) ||
                                (off1 && j-2-i >= 0 && r1h[(j-2-i >= 0) ? j-2-i : 0]) ||
                                (gd2  && j-3-i >= 0 && r1h[(j-3-i >= 0) ? j-3-i : 0]);
            for (i = 0; i < 4; i = i + 1)                           // slot >= roll + 1 + gx
                if (r1h[i] && !dh_pl && (i + 1 <= j) && (!gx || i + 2 <= j)) s_em[j] = 1'b1;
        end
    end

    reg [511:0] body;         // flit bits [511:0]
    reg [2:0]   fmt [0:3];
    reg [5:0]   take;
    reg [2:0]   roll_next;
    integer     b, e;         // slot, chunk
    always @* begin
        for (b = 0; b < 4; b = b + 1) fmt[b] = F0;
        body = adf ? pdata : {512{1'b0}};
        if (UP == 0) begin
            // ---- H2D / M2S ----
            body[32 +: 64]  = body[32 +: 64]  | ({64{s0a && a[0]}} & h2d_req_w);
            body[96 +: 32]  = body[96 +: 32]  | ({32{s0a && a[1]}} & h2d_rsp_w);
            body[32 +: 87]  = body[32 +: 87]  | ({87{s0b}} & m2s_req_w) | ({87{s0d}} & m2s_rwd_w);
            body[32 +: 24]  = body[32 +: 24]  | ({24{s0c}} & h2d_dh_w);
            fmt[0] = s0b ? F5 : s0c ? F1 : s0d ? F4 : F0;
            for (b = 1; b < 4; b = b + 1) begin
                body[128*b +: 87]      = body[128*b +: 87] | ({87{s_gx[b]}} & m2s_req_w) |
                                         ({87{s_gd[b] && !d1}} & m2s_rwd_w);
                body[128*b + 88 +: 24] = body[128*b + 88 +: 24] |
                                         ({24{(s_gx[b] || s_gd[b]) && d1}} & h2d_dh_w);
                fmt[b] = s_gx[b] ? F4 : s_gd[b] ? (d1 ? F4 : F5) : s_em[b] ? G_EMPTY : F0;
            end
        end else begin
            // ---- D2H / S2M ----
            body[32 + 17 +: 20] = body[32 + 17 +: 20] | ({20{s0a && a[1]}} & d2h_rsp_w);
            body[32 + 57 +: 30] = body[32 + 57 +: 30] | ({30{s0a && a[4]}} & s2m_ndr_w);
            body[32 +: 17]      = body[32 +: 17] | ({17{s0a && d1 && !a[0]}} & d2h_dh_w);
            body[32 +: 79]      = body[32 +: 79] | ({79{s0b}} & d2h_req_w);
            body[32 + 79 +: 17] = body[32 + 79 +: 17] | ({17{(s0b && d1) || s0c}} & d2h_dh_w);
            body[32 +: 40]      = body[32 +: 40] | ({40{s0d}} & s2m_drs_w);
            fmt[0] = (s0b || s0c) ? F1 : s0d ? F3 : F0;
            for (b = 1; b < 4; b = b + 1) begin
                body[128*b +: 79]      = body[128*b +: 79] | ({79{s_gx[b]}} & d2h_req_w);
                body[128*b + 79 +: 17] = body[128*b + 79 +: 17] |
                                         ({17{(s_gx[b] || s_gd[b]) && d1}} & d2h_dh_w);
                body[128*b +: 40]      = body[128*b +: 40] | ({40{s_gd[b] && !d1}} & s2m_drs_w);
                fmt[b] = s_gx[b] ? (d1 ? F2 : F1) : s_gd[b] ? (d1 ? F2 : F4) : s_em[b] ? G_EMPTY : F0;
            end
        end
        // Rollover chunks of the previous line go first, in slots 1..roll (chunk 3 + b - roll);
        // the new line's chunk e in slot gs2 + e.
        for (b = 1; b < 4; b = b + 1)
            for (e = 0; e < 4; e = e + 1) begin
                if (e >= b)
                    body[128*b +: 128] = body[128*b +: 128] |
                                         ({128{s_rk[4*b + e]}} & pdata[128*(3 + b - e) +: 128]);
                if (e < 3)
                    body[128*b +: 128] = body[128*b +: 128] |
                                         ({128{s_nw[3*b + e] && d1}} & msg_data[128*e +: 128]) |
                                         ({128{s_nw[3*b + e] && !d1}} & msg_data[512 + 128*e +: 128]);
            end
        if (!adf && (any_msg || roll != 3'd0)) begin
            // Protocol flit (credit fields and Ak: cxl_flit68_txout)
            body[4]     = 1'b1;                                // Sz = 64 B
            body[7:5]   = fmt[0];
            body[10:8]  = fmt[1];
            body[13:11] = fmt[2];
            body[16:14] = fmt[3];
        end
        flit_valid = adf || any_msg || roll != 3'd0;
        take = 6'd0;
        if (UP == 0) begin
            take[0] = a[0];
            take[1] = a[1];
            take[3] = s0b || gx;
        end else begin
            take[1] = a[1];
            take[4] = a[4];
            take[0] = s0b || gx;
        end
        take[2] = dh_pl && d1;
        take[5] = dh_pl && !d1;
        roll_next = dh_pl ? (roll + (gd2 ? 3'd3 : off1 ? 3'd2 : 3'd1)) : 3'd0;
        msg_take = take;
        flit     = body;
    end
    wire [511:0] dline = d1 ? msg_data[0 +: 512] : msg_data[512 +: 512];
    wire         dsel1 = d1;     // the placed DH is C_DATA

    assign busy_adf = (roll == ROLL_ADF);

    always @(posedge clk) begin
        if (rst) begin
            roll  <= 3'd0;
            dh_rr <= 1'b0;
        end else begin
            if (fire && flit_valid) roll <= roll_next;
            // a placed DH is taken (see pdata below): take[2] || take[5] is dh_pl, and
            // take[2] is d1
            if (fire && dh_pl) dh_rr <= dsel1;
        end
    end

    // Line of the DH carried by the fired flit; only read while roll != 0. A placed DH is always
    // taken, so dh_pl stands for take[2] || take[5] here: it skips the take encoding (timing).
    always @(posedge clk) begin
        if (fire && dh_pl) pdata <= dline;
    end

endmodule
`default_nettype wire
