`default_nettype none
// 68B flit decoder (RX): CRC check, control flit decode, and the partner direction's slot formats
// (cxl-flits.md 1). Every legal non-MDH format is decoded, several messages of a class per flit
// are delivered packed from index 0 in flit bit order. Data chunks are a FIFO behind their data
// header (DH): rollover chunks fill slots 1..r, a DH's chunks fill the following G slots, a
// rollover of 4 makes the next in-sequence flit an all-data flit (shadow rollover count).
// A data message is delivered in the flit that completes it. State changes only on `commit`.
// proto_err (CRC-clean but not accepted) reasons: MDH/MAC/reserved slot formats, a DH with Sz=0
// or BE=1 (our link never negotiates 32B/BE transfers), a data slot where none is owed or a header slot
// where data is owed, two DHs in a flit, more messages of a kind than the spec allows per flit,
// IDE or unknown control flits, nonzero static bits [63:40] of a control flit.
// `in_seq` (68B extra): the flit is in the in-sequence stream (LRSM NORMAL); only then is a
// rollover of 4 taken to mean "this is an all-data flit" (out of sequence only RETRY flits matter).
// Two stages (timing, rtl/README-timing.md): stage F takes the received flit and registers what
// can be known from the flit alone: its CRC check, and for each of the four rollover cases
// (roll 0, 1, 2, 3 or more) the slot roles' verdict (protocol errors), the new DH and what it
// owes, and per class the message picks (which slot position is the class's m-th message).
// Stage V, one cycle later, holds that flit: the rollover it is checked against selects a case,
// the control fields are decoded, and every output describes it (`valid` = it is there). The
// decode of the flit in stage F needs no state, so stage V's verdict (and the state it updates
// through `commit`) is a short path from the registers.
module cxl_flit68_rx #(
    parameter integer ROLE    = 0,  // role of THIS endpoint; the partner's direction is decoded
    parameter integer PBR     = 0,  // unused in 68B (contract port list)
    parameter integer MAXM    = 4,  // message outputs per class, 1..4
    parameter integer SEQ_CRC = 0   // 1: the CRC of a flit in sequence (seq_chk) carries crc_term
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    flit_valid,   // received flit (into stage F)
    input  wire [527:0]            flit,
    input  wire                    commit,       // the flit in stage V is accepted in sequence
    input  wire                    in_seq,       // ... and is judged in sequence (LRSM NORMAL)
    input  wire [15:0]             crc_term,     // SEQ_CRC: sequence term a seq_chk flit's CRC carries
    output wire                    valid,        // a flit is in stage V (flit_valid a cycle before)
    output wire                    crc_ok,
    output reg                     retryable,
    output reg  [2:0]              ctl_kind,
    output reg  [7:0]              ctl_eseq,
    output reg  [4:0]              ctl_num_retry,
    output reg                     ctl_empty,
    output reg  [7:0]              ack_cnt,
    output reg  [6*8-1:0]          crd_cnt,
    output reg  [6*MAXM-1:0]       msg_valid,
    output reg  [6*MAXM*128-1:0]   msg_hdr,
    output reg  [2*MAXM*512-1:0]   msg_data,
    output reg                     proto_err,
    // the flit in stage V is checked against ESeq when SEQ_CRC is on: a protocol flit, a control
    // flit other than RETRY.*, or the all-data flit the stream owes (in sequence)
    output wire                    seq_chk
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit68_rx_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0) begin : g_bad_pbr
            cxl_flit68_rx_parameter_error_PBR_must_be_0_in_68B u_stop ();
        end
        if (MAXM < 1 || MAXM > 4) begin : g_bad_maxm
            cxl_flit68_rx_parameter_error_MAXM_must_be_1_to_4 u_stop ();
        end
        if (SEQ_CRC != 0 && SEQ_CRC != 1) begin : g_bad_seq_crc
            cxl_flit68_rx_parameter_error_SEQ_CRC_must_be_0_or_1 u_stop ();
        end
    endgenerate

`include "cxl_defs.vh"

    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_FRAME = 3'd2, K_REQ = 3'd3, K_ACK = 3'd4,
                     K_INIT = 3'd5;
    localparam integer PUP = (ROLE == CXL_ROLE_DOWN) ? 1 : 0;  // partner sends D2H/S2M
    localparam [3:0] LLCTRL_LLCRD = 4'h0, LLCTRL_RETRY = 4'h1, LLCTRL_INIT = 4'hC;
    localparam [2:0] ROLL_ADF = 3'd4;
    // Spec maximum messages per flit of the partner's direction, per class (cxl-flits.md 1.6)
    localparam [23:0] MAXK = (PUP != 0) ? {4'd1, 4'd2, 4'd0, 4'd1, 4'd2, 4'd4}   // 5..0
                                        : {4'd1, 4'd0, 4'd2, 4'd1, 4'd4, 4'd2};

    // Shadow rollover: chunks owed to the pending DH, its header, class and chunks so far.
    reg [2:0]   roll;
    reg [127:0] phdr;
    reg         pcls;       // 0 C_DATA, 1 M_DATA
    reg [511:0] pdata;

    localparam integer DW = 1 + 4*128 + 24;   // dec_slot result: {legal, 4 headers, 4x6 valid}


    // Decode one slot of the partner's direction. Returns {legal, hdr3..hdr0, valid}: valid bit
    // 6*q + c = position q holds a message of class c. Classes are constants per format, so the
    // (position, class) pairs no format uses are constant zero and drop out of the packing logic.
    function automatic [DW-1:0] dec_slot(input [127:0] s, input is_h, input [2:0] f);
        reg [4*128-1:0] h;
        reg [23:0]      v;
        reg             ok;
        begin
            h  = {4*128{1'b0}};
            v  = 24'd0;
            ok = 1'b1;
            if (PUP != 0) begin
                case ({is_h, f})
                    4'b1000: begin  // H0: DH + 2 Rsp + NDR
                        v[0*6 + 2] = s[0]; h[0*128 +: 128] = cxl_d2h_dh_from_w68(s[0 +: 17]);
                        v[1*6 + 1] = s[17]; h[1*128 +: 128] = cxl_d2h_rsp_from_w68(s[17 +: 20]);
                        v[2*6 + 1] = s[37]; h[2*128 +: 128] = cxl_d2h_rsp_from_w68(s[37 +: 20]);
                        v[3*6 + 4] = s[57]; h[3*128 +: 128] = cxl_s2m_ndr_from_w68(s[57 +: 30]);
                    end
                    4'b1001: begin  // H1: Req + DH
                        v[0*6 + 0] = s[0]; h[0*128 +: 128] = cxl_d2h_req_from_w68(s[0 +: 79]);
                        v[1*6 + 2] = s[79]; h[1*128 +: 128] = cxl_d2h_dh_from_w68(s[79 +: 17]);
                    end
                    4'b1011: begin  // H3: DRS + NDR
                        v[0*6 + 5] = s[0]; h[0*128 +: 128] = cxl_s2m_drs_from_w68(s[0 +: 40]);
                        v[1*6 + 4] = s[40]; h[1*128 +: 128] = cxl_s2m_ndr_from_w68(s[40 +: 30]);
                    end
                    4'b1100, 4'b0101: begin  // H4 / G5: 2 NDR, NDR0.DevLoad after NDR1
                        v[0*6 + 4] = s[0]; h[0*128 +: 128] = cxl_s2m_ndr_from_w68({s[58 +: 2], s[0 +: 28]});
                        v[1*6 + 4] = s[28]; h[1*128 +: 128] = cxl_s2m_ndr_from_w68(s[28 +: 30]);
                    end
                    4'b0001: begin  // G1: Req + 2 Rsp
                        v[0*6 + 0] = s[0]; h[0*128 +: 128] = cxl_d2h_req_from_w68(s[0 +: 79]);
                        v[1*6 + 1] = s[79]; h[1*128 +: 128] = cxl_d2h_rsp_from_w68(s[79 +: 20]);
                        v[2*6 + 1] = s[99]; h[2*128 +: 128] = cxl_d2h_rsp_from_w68(s[99 +: 20]);
                    end
                    4'b0010: begin  // G2: Req + DH + Rsp
                        v[0*6 + 0] = s[0]; h[0*128 +: 128] = cxl_d2h_req_from_w68(s[0 +: 79]);
                        v[1*6 + 2] = s[79]; h[1*128 +: 128] = cxl_d2h_dh_from_w68(s[79 +: 17]);
                        v[2*6 + 1] = s[96]; h[2*128 +: 128] = cxl_d2h_rsp_from_w68(s[96 +: 20]);
                    end
                    4'b0100: begin  // G4: DRS + 2 NDR, NDR0.DevLoad after NDR1
                        v[0*6 + 5] = s[0]; h[0*128 +: 128] = cxl_s2m_drs_from_w68(s[0 +: 40]);
                        v[1*6 + 4] = s[40]; h[1*128 +: 128] = cxl_s2m_ndr_from_w68({s[98 +: 2], s[40 +: 28]});
                        v[2*6 + 4] = s[68]; h[2*128 +: 128] = cxl_s2m_ndr_from_w68(s[68 +: 30]);
                    end
                    default: ok = 1'b0;  // H2/H5/G3/G6 MDH, H6 MAC, 7 RSVD (G0 handled by caller)
                endcase
            end else begin
                case ({is_h, f})
                    4'b1000: begin  // H0: Req + Rsp
                        v[0*6 + 0] = s[0]; h[0*128 +: 128] = cxl_h2d_req_from_w68(s[0 +: 64]);
                        v[1*6 + 1] = s[64]; h[1*128 +: 128] = cxl_h2d_rsp_from_w68(s[64 +: 32]);
                    end
                    4'b1001: begin  // H1: DH + 2 Rsp
                        v[0*6 + 2] = s[0]; h[0*128 +: 128] = cxl_h2d_dh_from_w68(s[0 +: 24]);
                        v[1*6 + 1] = s[24]; h[1*128 +: 128] = cxl_h2d_rsp_from_w68(s[24 +: 32]);
                        v[2*6 + 1] = s[56]; h[2*128 +: 128] = cxl_h2d_rsp_from_w68(s[56 +: 32]);
                    end
                    4'b1010: begin  // H2: Req + DH
                        v[0*6 + 0] = s[0]; h[0*128 +: 128] = cxl_h2d_req_from_w68(s[0 +: 64]);
                        v[1*6 + 2] = s[64]; h[1*128 +: 128] = cxl_h2d_dh_from_w68(s[64 +: 24]);
                    end
                    4'b1100: begin  // H4: RwD
                        v[0*6 + 5] = s[0]; h[0*128 +: 128] = cxl_m2s_rwd_from_w68(s[0 +: 87]);
                    end
                    4'b1101: begin  // H5: M2S Req
                        v[0*6 + 3] = s[0]; h[0*128 +: 128] = cxl_m2s_req_from_w68(s[0 +: 87]);
                    end
                    4'b0001: begin  // G1: 4 Rsp
                        v[0*6 + 1] = s[0]; h[0*128 +: 128] = cxl_h2d_rsp_from_w68(s[0 +: 32]);
                        v[1*6 + 1] = s[32]; h[1*128 +: 128] = cxl_h2d_rsp_from_w68(s[32 +: 32]);
                        v[2*6 + 1] = s[64]; h[2*128 +: 128] = cxl_h2d_rsp_from_w68(s[64 +: 32]);
                        v[3*6 + 1] = s[96]; h[3*128 +: 128] = cxl_h2d_rsp_from_w68(s[96 +: 32]);
                    end
                    4'b0010: begin  // G2: Req + DH + Rsp
                        v[0*6 + 0] = s[0]; h[0*128 +: 128] = cxl_h2d_req_from_w68(s[0 +: 64]);
                        v[1*6 + 2] = s[64]; h[1*128 +: 128] = cxl_h2d_dh_from_w68(s[64 +: 24]);
                        v[2*6 + 1] = s[88]; h[2*128 +: 128] = cxl_h2d_rsp_from_w68(s[88 +: 32]);
                    end
                    4'b0100: begin  // G4: M2S Req + DH
                        v[0*6 + 3] = s[0]; h[0*128 +: 128] = cxl_m2s_req_from_w68(s[0 +: 87]);
                        v[1*6 + 2] = s[88]; h[1*128 +: 128] = cxl_h2d_dh_from_w68(s[88 +: 24]);
                    end
                    4'b0101: begin  // G5: RwD + Rsp
                        v[0*6 + 5] = s[0]; h[0*128 +: 128] = cxl_m2s_rwd_from_w68(s[0 +: 87]);
                        v[1*6 + 1] = s[88]; h[1*128 +: 128] = cxl_h2d_rsp_from_w68(s[88 +: 32]);
                    end
                    default: ok = 1'b0;  // H3/G3 MDH, H6/G6 MAC/RSVD, 7 RSVD
                endcase
            end
            dec_slot = {ok, h, v};
        end
    endfunction

    // 68B credit field -> {class offset (0 cache, 3 mem), count}
    function automatic [7:0] crd_val(input [2:0] code);
        crd_val = (code == 3'd0) ? 8'd0 : (8'd1 << (code - 3'd1));
    endfunction

    // Counts as thermometer codes: bit t-1 = "count >= t" (t = 1..5, saturating at 5). A sum is
    // an AND-OR of the operands' bits (a + b >= t when a >= i and b >= t - i for some i), so the
    // class counts and ranks below are two-level terms instead of adder chains (timing).
    function automatic [4:0] th_add(input [4:0] a, input [4:0] b);
        th_add = {a[4] | b[4] | (a[0] & b[3]) | (a[1] & b[2]) | (a[2] & b[1]) | (a[3] & b[0]),
                  a[3] | b[3] | (a[0] & b[2]) | (a[1] & b[1]) | (a[2] & b[0]),
                  a[2] | b[2] | (a[0] & b[1]) | (a[1] & b[0]),
                  a[1] | b[1] | (a[0] & b[0]),
                  a[0] | b[0]};
    endfunction
    function automatic [4:0] th_cnt(input [3:0] x);       // number of set bits of x
        th_cnt = {1'b0, &x,
                  (x[0] & x[1] & (x[2] | x[3])) | (x[2] & x[3] & (x[0] | x[1])),
                  (x[0] & (x[1] | x[2] | x[3])) | (x[1] & (x[2] | x[3])) | (x[2] & x[3]),
                  |x};
    endfunction

    // ================================================================ stage F (the flit alone)
    wire [15:0] crc_calc;
    cxl_crc16_68b u_crc (.data(flit[511:0]), .crc(crc_calc));
    wire [15:0] crc_res = crc_calc ^ flit[527:512];       // zero: the spec CRC checks

    // per-slot decode, the four slots in parallel
    wire [2:0]      sf  [0:3];      // slot format
    wire [4*DW-1:0] ds;             // decode of slot j at ds[DW*j +: DW]
    wire [3:0]      s_ok, s_dh, s_dh2;   // slot j: a legal format; has a DH; has two DHs
    wire [4*2-1:0]  s_dq;           // slot j: position of its (last) DH
    wire [4*6*5-1:0]   s_n;         // thermometer count of class c in slot j at (6*j + c)*5
    wire [4*4*6*5-1:0] s_w;         // ... at the positions before q, at ((4*j + q)*6 + c)*5
    genvar gj, gq, gc, gm;
    generate
        for (gj = 0; gj < 4; gj = gj + 1) begin : g_slot
            wire [127:0] sb = (gj == 0) ? {32'd0, flit[32 +: 96]} : flit[128*gj +: 128];
            wire [23:0]  v;
            assign sf[gj] = flit[5 + 3*gj +: 3];
            assign ds[DW*gj +: DW] = dec_slot(sb, gj == 0, sf[gj]);
            assign v = ds[DW*gj +: 24];
            assign s_ok[gj]  = ds[DW*gj + DW-1];
            wire [3:0]   dp = {v[3*6+2] | v[3*6+5], v[2*6+2] | v[2*6+5],
                               v[1*6+2] | v[1*6+5], v[0*6+2] | v[0*6+5]};   // DH at position q
            assign s_dh[gj]  = |dp;
            assign s_dh2[gj] = (dp[0] & (dp[1] | dp[2] | dp[3])) | (dp[1] & (dp[2] | dp[3])) |
                               (dp[2] & dp[3]);
            assign s_dq[2*gj +: 2] = {dp[3] | dp[2], dp[3] | (dp[1] & !dp[2])};
            for (gc = 0; gc < 6; gc = gc + 1) begin : g_cls
                assign s_n[(6*gj + gc)*5 +: 5] = th_cnt({v[3*6+gc], v[2*6+gc], v[1*6+gc], v[0*6+gc]});
                for (gq = 0; gq < 4; gq = gq + 1) begin : g_pos
                    wire [3:0] prior = {1'b0, (gq > 2) ? v[2*6+gc] : 1'b0, (gq > 1) ? v[1*6+gc] : 1'b0,
                                        (gq > 0) ? v[0*6+gc] : 1'b0};
                    assign s_w[((4*gj + gq)*6 + gc)*5 +: 5] = th_cnt(prior);
                end
            end
        end
    endgenerate
    wire szbe_bad = (flit[4] != 1'b1 || flit[3] != 1'b0);   // Sz/BE of this flit's DH: 64 B only

    // Per rollover case r (slots 1..r are rollover chunks): slot 0 and slots after r are header
    // slots up to the first with a DH; the slots after that DH are chunks of its line. A header
    // slot's candidate k = 4*slot + position of class c is the class's message number rank(k):
    // the messages of c in the header slots before it plus those before it in its slot. The header
    // slots before a header slot are all the non-rollover slots before it, so the rank needs no
    // role (only the candidate's own slot does). The class count (for the per-flit limit) sums
    // the header slots only.
    localparam integer PW = 6*MAXM*16;          // picks: bit (c*MAXM + m)*16 + k
    wire [3:0]      c_err, c_newdh;
    wire [4*2-1:0]  c_dhs, c_dhq;               // slot and position of the new DH
    wire [4*3-1:0]  c_owed;                     // chunks its line still owes after this flit
    wire [4*PW-1:0] c_pick;
    genvar gr;
    generate
        for (gr = 0; gr < 4; gr = gr + 1) begin : g_rcase
            // NR[j]: slot j is not a rollover chunk in this case
            localparam [3:0] NR = (gr == 0) ? 4'b1111 : (gr == 1) ? 4'b1101 :
                                  (gr == 2) ? 4'b1001 : 4'b0001;
            wire [3:0] hdr;                     // header slot
            wire [3:0] hd;                      // header slot with the (new) DH
            wire [5:0] over;                    // class count above its per-flit limit
            for (gj = 0; gj < 4; gj = gj + 1) begin : g_role
                // no DH in an earlier non-rollover slot
                localparam [3:0] EARLIER = NR & ((4'd1 << gj) - 4'd1);
                assign hdr[gj] = NR[gj] && !(|(s_dh & EARLIER));
                assign hd[gj]  = hdr[gj] && s_dh[gj];
            end
            for (gc = 0; gc < 6; gc = gc + 1) begin : g_cnt
                wire [4:0] tot = th_add(th_add(s_n[(6*0 + gc)*5 +: 5] & {5{hdr[0]}},
                                               s_n[(6*1 + gc)*5 +: 5] & {5{hdr[1]}}),
                                        th_add(s_n[(6*2 + gc)*5 +: 5] & {5{hdr[2]}},
                                               s_n[(6*3 + gc)*5 +: 5] & {5{hdr[3]}}));
                assign over[gc] = tot[MAXK[4*gc +: 3]];          // count >= MAXK + 1
                for (gj = 0; gj < 4; gj = gj + 1) begin : g_slot
                    localparam [3:0] EARLIER = NR & ((4'd1 << gj) - 4'd1);
                    // messages of the class in the header slots before this one
                    wire [4:0] bj = th_add(th_add(s_n[(6*0 + gc)*5 +: 5] & {5{EARLIER[0]}},
                                                  s_n[(6*1 + gc)*5 +: 5] & {5{EARLIER[1]}}),
                                           s_n[(6*2 + gc)*5 +: 5] & {5{EARLIER[2]}});
                    for (gq = 0; gq < 4; gq = gq + 1) begin : g_pos
                        /* verilator lint_off UNUSEDSIGNAL */  // ranks from MAXM on: no output
                        wire [4:0] rk = th_add(bj, s_w[((4*gj + gq)*6 + gc)*5 +: 5]);
                        /* verilator lint_on UNUSEDSIGNAL */
                        for (gm = 0; gm < MAXM; gm = gm + 1) begin : g_out
                            // output m of class c is the header candidate of rank m
                            assign c_pick[PW*gr + (gc*MAXM + gm)*16 + 4*gj + gq] =
                                hdr[gj] && ds[DW*gj + 6*gq + gc] && ((gm == 0) || rk[(gm > 0) ? gm-1 : 0]) &&
                                !rk[gm];
                        end
                    end
                end
            end
            wire [3:0] chunk_bad = ~hdr & {sf[3] != 3'd0, sf[2] != 3'd0, sf[1] != 3'd0, 1'b0};
            wire [3:0] owe_bad   = hdr & {sf[3] == 3'd0, sf[2] == 3'd0, sf[1] == 3'd0, 1'b0};
            wire [3:0] fmt_bad   = hdr & (~s_ok | s_dh2);
            wire [1:0] dhs = {hd[3] | hd[2], hd[3] | hd[1]};
            assign c_newdh[gr]      = |hd;
            assign c_dhs[2*gr +: 2] = dhs;
            assign c_dhq[2*gr +: 2] = ({2{hd[0]}} & s_dq[0 +: 2]) | ({2{hd[1]}} & s_dq[2 +: 2]) |
                                      ({2{hd[2]}} & s_dq[4 +: 2]) | ({2{hd[3]}} & s_dq[6 +: 2]);
            // chunk slot not G0, data nobody owes, format (one DH per flit), class limits, Sz/BE
            assign c_err[gr] = |chunk_bad || |owe_bad || |fmt_bad || |over || (|hd && szbe_bad);
            // chunks still owed: 4 minus the new-line chunks in this flit (the slots after
            // the DH's slot and after the rollover chunks)
            assign c_owed[3*gr +: 3] = 3'd1 + ((32'(dhs) > gr) ? {1'b0, dhs} : 3'(gr));
        end
    endgenerate

    // control flit decode (and a protocol flit's credit field and Ak), from the flit alone
    reg        k_retryable, k_err;
    reg [2:0]  k_kind;
    reg [7:0]  k_eseq, k_ack;
    reg [4:0]  k_nr;
    reg        k_empty;
    reg [11:0] k_crd;             // credit fields: zero in RETRY and INIT flits
    always @* begin
        k_retryable = 1'b0;
        k_err       = 1'b0;
        k_kind      = K_NONE;
        k_eseq      = 8'd0;
        k_nr        = 5'd0;
        k_empty     = 1'b0;
        k_ack       = 8'd0;
        k_crd       = flit[31:20];
        if (flit[0]) begin
            // Control flit: CTL_FMT 000b only (IDE not supported), static bits [63:40] zero.
            if (flit[7:5] != 3'b000 || flit[63:40] != 24'd0) k_err = 1'b1;
            case (flit[35:32])
                LLCTRL_LLCRD: begin
                    if (flit[39:36] != 4'h1) k_err = 1'b1;
                    k_retryable = 1'b1;
                    k_ack       = {flit[71:68], flit[2], flit[66:64]};
                end
                LLCTRL_RETRY: begin
                    case (flit[39:36])
                        4'h0: k_kind = K_IDLE;
                        4'h1: begin
                            k_kind = K_REQ;
                            k_eseq = flit[71:64];
                            k_nr   = flit[84:80];
                        end
                        4'h2: begin
                            k_kind  = K_ACK;
                            k_empty = flit[64];
                            k_nr    = flit[71:67];
                            k_eseq  = flit[87:80];
                        end
                        4'h3: k_kind = K_FRAME;
                        default: k_err = 1'b1;
                    endcase
                    k_crd = 12'd0;                    // RSVD in RETRY flits
                end
                LLCTRL_INIT: begin
                    if (flit[39:36] != 4'h8) k_err = 1'b1;
                    k_kind      = K_INIT;
                    k_eseq      = flit[95:88];        // LLR Wrap Value
                    k_retryable = 1'b1;
                    k_crd       = 12'd0;
                end
                default: k_err = 1'b1;
            endcase
        end else begin
            k_retryable = 1'b1;                       // protocol flit
            if (flit[2]) k_ack = 8'd8;
        end
    end
    // the credits a flit returns, per class (protocol flits and LLCRD): field f returns
    // classes f (cache) / f+3 (mem)
    reg [6*8-1:0] k_crdc;
    always @* begin
        k_crdc = 48'd0;
        k_crdc[(k_crd[7]  ? 3 : 0)*8 +: 8] = crd_val(k_crd[6:4]);   // ReqCrd
        k_crdc[(k_crd[3]  ? 4 : 1)*8 +: 8] = crd_val(k_crd[2:0]);   // RspCrd
        k_crdc[(k_crd[11] ? 5 : 2)*8 +: 8] = crd_val(k_crd[10:8]);  // DataCrd
    end

    reg             f_v;
    reg [511:0]     f_flit;
    reg             f_kretry, f_kempty;
    reg [2:0]       f_kkind;
    reg [7:0]       f_keseq, f_kack;
    reg [4:0]       f_knr;
    reg [6*8-1:0]   f_kcrd;
    reg             f_crc0;        // the spec CRC checks
    reg [15:0]      f_res;         // CRC residual (SEQ_CRC: compared with crc_term)
    reg [3:0]       f_err, f_newdh;  // per rollover case: protocol error (control flits too); new DH
    reg [4*2-1:0]   f_dhs, f_dhq;
    reg [4*3-1:0]   f_owed;
    reg [4*PW-1:0]  f_pick;
    always @(posedge clk) begin
        if (rst) f_v <= 1'b0;
        else     f_v <= flit_valid;
    end
    // the verdict per rollover case: a control flit's own check, or the slot check
    wire [3:0] c_verr = flit[0] ? {4{k_err}} : c_err;
    always @(posedge clk) begin
        f_flit  <= flit[511:0];
        f_kretry <= k_retryable;
        f_kkind  <= k_kind;
        f_keseq  <= k_eseq;
        f_knr    <= k_nr;
        f_kempty <= k_empty;
        f_kack   <= k_ack;
        f_kcrd   <= k_crdc;
        f_crc0  <= (crc_res == 16'd0);
        f_res   <= crc_res;
        f_err   <= c_verr;
        f_newdh <= c_newdh;
        f_dhs   <= c_dhs;
        f_dhq   <= c_dhq;
        f_owed  <= c_owed;
        f_pick  <= c_pick;
    end

    // ================================================================ stage V (the flit registered)
    assign valid = f_v;
    wire adf = in_seq && (roll == ROLL_ADF);
    assign seq_chk = !f_flit[0] || f_flit[35:32] != LLCTRL_RETRY || adf;
    assign crc_ok  = (SEQ_CRC != 0 && seq_chk) ? (f_res == crc_term) : f_crc0;

    // the rollover case: roll 4 makes slots 1..3 rollover chunks, as roll 3 does
    wire [3:0] rs = {roll[2] || roll[1:0] == 2'd3, !roll[2] && roll[1:0] == 2'd2,
                     !roll[2] && roll[1:0] == 2'd1, !roll[2] && roll[1:0] == 2'd0};
    reg          newdh_s;
    reg [1:0]    dhs_s, dhq_s;
    reg [2:0]    owed_s;
    reg [PW-1:0] pick_s;
    integer      r;
    always @* begin
        newdh_s = 1'b0; dhs_s = 2'd0; dhq_s = 2'd0; owed_s = 3'd0;
        pick_s = {PW{1'b0}};
        for (r = 0; r < 4; r = r + 1) begin                  // AND-OR select by the one-hot rs
            newdh_s = newdh_s | (f_newdh[r] & rs[r]);
            dhs_s   = dhs_s   | (f_dhs[2*r +: 2]  & {2{rs[r]}});
            dhq_s   = dhq_s   | (f_dhq[2*r +: 2]  & {2{rs[r]}});
            owed_s  = owed_s  | (f_owed[3*r +: 3] & {3{rs[r]}});
            pick_s  = pick_s  | (f_pick[PW*r +: PW] & {PW{rs[r]}});
        end
    end

    // the registered flit's slots again, for the headers and the data chunks
    wire [127:0]    vsb [0:3];
    wire [4*DW-1:0] vds;
    generate
        for (gj = 0; gj < 4; gj = gj + 1) begin : g_vslot
            assign vsb[gj] = (gj == 0) ? {32'd0, f_flit[32 +: 96]} : f_flit[128*gj +: 128];
            assign vds[DW*gj +: DW] = dec_slot(vsb[gj], gj == 0, f_flit[5 + 3*gj +: 3]);
        end
    endgenerate

    // Header and class of the new DH
    wire [DW-1:0] dsd  = vds[DW*dhs_s +: DW];
    wire [127:0]  nhdr = dsd[24 + 128*dhq_s +: 128];
    wire          ncls = dsd[6*dhq_s + 5];                          // class 5 vs 2

    // ---- data lines: rollover chunks merge into the pending line, new chunks into a fresh one.
    // Rollover chunks are slots 1..roll (1..3 from roll 3 on); the new line's chunks are the
    // slots from owed_s on, chunk index slot - owed_s.
    reg [511:0] odata_p;        // pending line with this flit's rollover chunks merged
    reg [511:0] ndata;          // chunks of the new DH received in this flit
    integer     i, js;
    always @* begin
        odata_p = pdata;
        ndata   = 512'd0;
        for (i = 0; i < 4; i = i + 1)
            for (js = 1; js < 4; js = js + 1) begin
                // rollover chunk j fills chunk 3 + j - roll
                if (js <= ((roll[2] || roll[1:0] == 2'd3) ? 3 : 32'(roll[1:0])) &&
                    4'(i) + {1'b0, roll} == 4'(3 + js))
                    odata_p[128*i +: 128] = vsb[js];
                if (newdh_s && 3'(js) >= owed_s && 3'(js) - owed_s == 3'(i))
                    ndata[128*i +: 128] = vsb[js];
            end
    end

    // Protocol error: the verdict of this rollover case (roll 0..3; from roll 4 on, in sequence,
    // the flit is the owed all-data flit, which has no check)
    wire [3:0] rx4 = {roll == 3'd3, roll == 3'd2, roll == 3'd1, roll == 3'd0};
    always @* proto_err = f_v && crc_ok && in_seq && |(f_err & rx4);

    reg [2:0]   roll_next;
    reg         old_done;
    reg [511:0] odata;
    reg         proto_flit;
    integer     cm, m, kk;
    always @* begin
        // an all-data flit carries neither control fields nor credits; otherwise stage F's decode
        retryable     = adf || f_kretry;
        ctl_kind      = adf ? K_NONE : f_kkind;
        ctl_eseq      = adf ? 8'd0 : f_keseq;
        ctl_num_retry = adf ? 5'd0 : f_knr;
        ctl_empty     = !adf && f_kempty;
        ack_cnt       = adf ? 8'd0 : f_kack;
        crd_cnt       = adf ? 48'd0 : f_kcrd;
        msg_valid     = {6*MAXM{1'b0}};
        msg_hdr       = {6*MAXM*128{1'b0}};
        msg_data      = {2*MAXM*512{1'b0}};
        odata         = pdata;
        old_done      = 1'b0;
        cm = 0; m = 0; kk = 0;
        roll_next     = roll;
        proto_flit    = 1'b0;

        if (adf) begin
            odata     = f_flit;
            old_done  = 1'b1;
            roll_next = 3'd0;
        end else if (!f_flit[0]) begin
            // Protocol flit
            proto_flit = 1'b1;
            odata = odata_p;
            // the pending line completes when this flit brings its last rollover chunks
            old_done = !roll[2] && roll[1:0] != 2'd0;
            if (newdh_s) roll_next = owed_s;
            else if (old_done) roll_next = 3'd0;
            // Non-data messages per class in flit order (data headers complete in old_done)
            for (cm = 0; cm < 6; cm = cm + 1)
                if (cm != 2 && cm != 5)
                    for (m = 0; m < MAXM; m = m + 1) begin
                        msg_valid[cm*MAXM + m] = |pick_s[(cm*MAXM + m)*16 +: 16];
                        for (kk = 0; kk < 16; kk = kk + 1)
                            msg_hdr[(cm*MAXM + m)*128 +: 128] = msg_hdr[(cm*MAXM + m)*128 +: 128] |
                                ({128{pick_s[(cm*MAXM + m)*16 + kk]}} &
                                 vds[DW*(kk / 4) + 24 + 128*(kk % 4) +: 128]);
                    end
        end

        // A data message completes at most once per flit (no MDH): index 0 of its class.
        if (old_done) begin
            msg_valid[(pcls ? 5 : 2)*MAXM] = 1'b1;
            msg_hdr[(pcls ? 5 : 2)*MAXM*128 +: 128] = phdr;
            msg_data[(pcls ? 1 : 0)*MAXM*512 +: 512] = odata;
        end
        if (!crc_ok || !f_v) begin
            msg_valid = {6*MAXM{1'b0}};
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            roll <= 3'd0;
        end else if (commit) begin
            roll <= roll_next;
        end
    end

    always @(posedge clk) begin
        if (commit && newdh_s && proto_flit) begin
            phdr  <= nhdr;
            pcls  <= ncls;
            pdata <= ndata;
        end
    end

    wire unused = &{1'b0, PBR[0], crc_term, f_res};
endmodule
`default_nettype wire
