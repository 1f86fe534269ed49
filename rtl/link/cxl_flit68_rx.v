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
// Structure (kept small for synthesis): the four slots are decoded in parallel, a short chain
// assigns each slot its role, and per class an index (rank) network packs the messages.
module cxl_flit68_rx #(
    parameter integer ROLE = 0,     // role of THIS endpoint; the partner's direction is decoded
    parameter integer PBR  = 0,     // unused in 68B (contract port list)
    parameter integer MAXM = 4
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    flit_valid,
    input  wire [527:0]            flit,
    input  wire                    commit,
    input  wire                    in_seq,
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
    output wire                    exp_adf     // in sequence, the next flit is an all-data flit
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

    wire [15:0] crc_calc;
    cxl_crc16_68b u_crc (.data(flit[511:0]), .crc(crc_calc));
    assign crc_ok = (crc_calc == flit[527:512]);

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

    // ---- per-slot decode (all four slots decoded in parallel; the chain below picks the roles)
    wire [127:0]   sb  [0:3];      // slot bits (slot 0: the 96 bits after the flit header)
    wire [2:0]     sf  [0:3];      // slot format
    wire [4*DW-1:0] ds;            // decode of slot j at ds[DW*j +: DW]
    genvar gj;
    generate
        for (gj = 0; gj < 4; gj = gj + 1) begin : g_slot
            if (gj == 0) begin : g_h
                assign sb[gj] = {32'd0, flit[32 +: 96]};
            end else begin : g_g
                assign sb[gj] = flit[128*gj +: 128];
            end
            assign sf[gj] = flit[5 + 3*gj +: 3];
            assign ds[DW*gj +: DW] = dec_slot(sb[gj], gj == 0, sf[gj]);
        end
    endgenerate

    // ---- slot roles, in flit order: rollover chunk of the pending line, chunk of this flit's
    // new line, or header slot (only header slots' messages count). Small state only.
    // ---- per-class packing: a message's index is the number of messages of its class before
    // it in flit order. Candidate k = 4*slot + position.
    // Both depend on `roll` only through which of slots 1..3 are rollover chunks, so they are
    // computed for each of the four cases (roll 0, 1, 2, 3 or more) from the flit alone, down to
    // the per-output candidate picks, and the registered `roll` selects one case at the end: the
    // select is a few levels after the roll flops instead of the start of the role chain and the
    // rank network (timing).
    reg [3:0]        s_roll, s_new;
    reg [7:0]        s_nidx;    // chunk index (2 bits per slot) of a new-line chunk
    reg [2:0]        owed_new;  // chunks of this flit's new DH still to come
    reg              new_dh;
    reg              err_slot;
    reg [1:0]        dh_slot;   // header slot of the (last) DH
    reg [1:0]        dh_q;      // its position
    reg              cnt_err;   // more messages of some class than the spec allows per flit
    reg [6*MAXM-1:0] mv;        // bit c*MAXM + m: output m of class c holds a message
    reg [6*MAXM*16-1:0] pick;   // bit (c*MAXM + m)*16 + k: output m of class c is candidate k
                                // (at most one k per output: the ranks of a class's candidates
                                // differ, so the outputs are AND-OR selects)
    // case r of the above (RW bits each), concatenated in the order of the select below
    localparam integer RW = 4 + 4 + 8 + 3 + 1 + 1 + 2 + 2 + 1 + 6*MAXM + 6*MAXM*16;
    wire [RW-1:0]    rcase [0:3];
    genvar gr;
    generate
        for (gr = 0; gr < 4; gr = gr + 1) begin : g_rcase
            reg [3:0]        c_roll, c_new, c_hdr;
            reg [7:0]        c_nidx;
            reg [2:0]        c_owed;
            reg              c_newdh, c_err;
            reg [1:0]        c_dhs, c_dhq;
            reg [6*16-1:0]   c_cv;      // cv, cnt, rank: see the packing comment above
            reg [6*5-1:0]    c_cnt;
            reg [6*16*5-1:0] c_rank;
            reg              c_cerr;
            reg [6*MAXM-1:0] c_mv;
            reg [6*MAXM*16-1:0] c_pick;
            integer          j, q, c, k, m;
            always @* begin
                c_roll = 4'd0; c_new = 4'd0; c_hdr = 4'd0; c_nidx = 8'd0;
                c_owed = 3'd0; c_newdh = 1'b0; c_err = 1'b0; c_dhs = 2'd0; c_dhq = 2'd0;
                for (j = 0; j < 4; j = j + 1) begin
                    if (j != 0 && j <= gr) begin
                        c_roll[j] = 1'b1;
                        if (sf[j] != 3'd0) c_err = 1'b1;
                    end else if (j != 0 && c_owed != 3'd0) begin
                        c_new[j] = 1'b1;
                        if (sf[j] != 3'd0) c_err = 1'b1;
                        c_nidx[2*j +: 2] = 2'(3'd4 - c_owed);
                        c_owed = c_owed - 3'd1;
                    end else if (j != 0 && sf[j] == 3'd0) begin
                        c_err = 1'b1;                                    // data nobody owes
                    end else begin
                        c_hdr[j] = 1'b1;
                        if (!ds[DW*j + DW-1]) c_err = 1'b1;
                        for (q = 0; q < 4; q = q + 1) begin
                            if (ds[DW*j + 6*q + 2] || ds[DW*j + 6*q + 5]) begin
                                if (c_newdh) c_err = 1'b1;               // one DH per flit
                                c_newdh = 1'b1;
                                c_owed  = 3'd4;
                                c_dhs   = 2'(j);
                                c_dhq   = 2'(q);
                            end
                        end
                    end
                end
                c_cv = {6*16{1'b0}}; c_cnt = {6*5{1'b0}}; c_rank = {6*16*5{1'b0}};
                for (c = 0; c < 6; c = c + 1)
                    for (k = 0; k < 16; k = k + 1) begin
                        c_cv[16*c + k] = c_hdr[k / 4] && ds[DW*(k / 4) + 6*(k % 4) + c];
                        c_rank[(16*c + k)*5 +: 5] = c_cnt[5*c +: 5];
                        c_cnt[5*c +: 5] = c_cnt[5*c +: 5] + {4'd0, c_cv[16*c + k]};
                    end
                c_cerr = 1'b0; c_mv = {6*MAXM{1'b0}}; c_pick = {6*MAXM*16{1'b0}};
                for (c = 0; c < 6; c = c + 1) begin
                    if (c_cnt[5*c +: 5] > {1'b0, MAXK[4*c +: 4]}) c_cerr = 1'b1;
                    for (m = 0; m < MAXM; m = m + 1) begin
                        c_mv[c*MAXM + m] = (5'(m) < c_cnt[5*c +: 5]);
                        for (k = 0; k < 16; k = k + 1)
                            c_pick[(c*MAXM + m)*16 + k] =
                                c_cv[16*c + k] && c_rank[(16*c + k)*5 +: 5] == 5'(m);
                    end
                end
            end
            assign rcase[gr] = {c_roll, c_new, c_nidx, c_owed, c_newdh, c_err, c_dhs, c_dhq,
                                c_cerr, c_mv, c_pick};
        end
    endgenerate
    // roll 4 makes slots 1..3 rollover chunks, as roll 3 does
    wire [1:0] rsel = roll[2] ? 2'd3 : roll[1:0];
    always @* begin
        {s_roll, s_new, s_nidx, owed_new, new_dh, err_slot, dh_slot, dh_q, cnt_err, mv, pick} =
            rcase[rsel];
    end

    // Header and class of the new DH (the last one in flit order)
    wire [DW-1:0] dsd  = ds[DW*dh_slot +: DW];
    wire [127:0]  nhdr = dsd[24 + 128*dh_q +: 128];
    wire          ncls = dsd[6*dh_q + 5];                           // class 5 vs 2

    // ---- data lines: rollover chunks merge into the pending line, new chunks into a fresh one
    reg [511:0] odata_p;        // pending line with this flit's rollover chunks merged
    reg [511:0] ndata;          // chunks of the new DH received in this flit
    integer     i, js;
    always @* begin
        odata_p = pdata;
        ndata   = 512'd0;
        for (i = 0; i < 4; i = i + 1)
            for (js = 1; js < 4; js = js + 1) begin
                // rollover chunk j fills chunk 3 + j - roll
                if (s_roll[js] && 4'(i) + {1'b0, roll} == 4'(3 + js))
                    odata_p[128*i +: 128] = sb[js];
                if (s_new[js] && s_nidx[2*js +: 2] == 2'(i))
                    ndata[128*i +: 128] = sb[js];
            end
    end

    reg [2:0]   roll_next;
    reg         old_done;
    reg         err;
    reg         adf;
    reg [11:0]  crd_hdr;
    reg [511:0] odata;
    reg         proto_flit;
    integer     jo, cm, m, kk;
    always @* begin
        retryable     = 1'b0;
        ctl_kind      = K_NONE;
        ctl_eseq      = 8'd0;
        ctl_num_retry = 5'd0;
        ctl_empty     = 1'b0;
        ack_cnt       = 8'd0;
        crd_cnt       = 48'd0;
        msg_valid     = {6*MAXM{1'b0}};
        msg_hdr       = {6*MAXM*128{1'b0}};
        msg_data      = {2*MAXM*512{1'b0}};
        err           = 1'b0;
        odata         = pdata;
        old_done      = 1'b0;
        roll_next     = roll;
        crd_hdr       = flit[31:20];
        adf           = in_seq && (roll == ROLL_ADF);
        proto_flit    = 1'b0;

        if (adf) begin
            retryable = 1'b1;
            odata     = flit[511:0];
            old_done  = 1'b1;
            roll_next = 3'd0;
        end else if (flit[0]) begin
            // Control flit: CTL_FMT 000b only (IDE not supported), static bits [63:40] zero.
            if (flit[7:5] != 3'b000 || flit[63:40] != 24'd0) err = 1'b1;
            case (flit[35:32])
                LLCTRL_LLCRD: begin
                    if (flit[39:36] != 4'h1) err = 1'b1;
                    retryable = 1'b1;
                    ack_cnt   = {flit[71:68], flit[2], flit[66:64]};
                end
                LLCTRL_RETRY: begin
                    case (flit[39:36])
                        4'h0: ctl_kind = K_IDLE;
                        4'h1: begin
                            ctl_kind      = K_REQ;
                            ctl_eseq      = flit[71:64];
                            ctl_num_retry = flit[84:80];
                        end
                        4'h2: begin
                            ctl_kind      = K_ACK;
                            ctl_empty     = flit[64];
                            ctl_num_retry = flit[71:67];
                            ctl_eseq      = flit[87:80];
                        end
                        4'h3: ctl_kind = K_FRAME;
                        default: err = 1'b1;
                    endcase
                    crd_hdr = 12'd0;                  // RSVD in RETRY flits
                end
                LLCTRL_INIT: begin
                    if (flit[39:36] != 4'h8) err = 1'b1;
                    ctl_kind  = K_INIT;
                    ctl_eseq  = flit[95:88];          // LLR Wrap Value
                    retryable = 1'b1;
                    crd_hdr   = 12'd0;
                end
                default: err = 1'b1;
            endcase
        end else begin
            // Protocol flit
            proto_flit = 1'b1;
            retryable  = 1'b1;
            if (flit[2]) ack_cnt = 8'd8;
            if (err_slot) err = 1'b1;
            odata = odata_p;
            for (jo = 1; jo < 4; jo = jo + 1)
                if (s_roll[jo] && jo == {29'd0, roll}) old_done = 1'b1;
            // Sz/BE describe this flit's DH: 64 B without byte enables only (ours: no 32B/BE)
            if (new_dh && (flit[4] != 1'b1 || flit[3] != 1'b0)) err = 1'b1;
            if (new_dh) roll_next = owed_new;
            else if (old_done) roll_next = 3'd0;
            if (cnt_err) err = 1'b1;
            // Non-data messages per class in flit order (data headers complete in old_done)
            for (cm = 0; cm < 6; cm = cm + 1)
                if (cm != 2 && cm != 5)
                    for (m = 0; m < MAXM; m = m + 1) begin
                        msg_valid[cm*MAXM + m] = mv[cm*MAXM + m];
                        for (kk = 0; kk < 16; kk = kk + 1)
                            msg_hdr[(cm*MAXM + m)*128 +: 128] = msg_hdr[(cm*MAXM + m)*128 +: 128] |
                                ({128{pick[(cm*MAXM + m)*16 + kk]}} &
                                 ds[DW*(kk / 4) + 24 + 128*(kk % 4) +: 128]);
                    end
        end

        // Credits (protocol flits and LLCRD): field f returns classes f (cache) / f+3 (mem)
        if (!adf) begin
            crd_cnt[(crd_hdr[7]  ? 3 : 0)*8 +: 8] = crd_val(crd_hdr[6:4]);   // ReqCrd
            crd_cnt[(crd_hdr[3]  ? 4 : 1)*8 +: 8] = crd_val(crd_hdr[2:0]);   // RspCrd
            crd_cnt[(crd_hdr[11] ? 5 : 2)*8 +: 8] = crd_val(crd_hdr[10:8]);  // DataCrd
        end

        // A data message completes at most once per flit (no MDH): index 0 of its class.
        if (old_done) begin
            msg_valid[(pcls ? 5 : 2)*MAXM] = 1'b1;
            msg_hdr[(pcls ? 5 : 2)*MAXM*128 +: 128] = phdr;
            msg_data[(pcls ? 1 : 0)*MAXM*512 +: 512] = odata;
        end
        if (!crc_ok || !flit_valid) begin
            msg_valid = {6*MAXM{1'b0}};
        end
        proto_err = flit_valid && crc_ok && err && in_seq;
    end

    assign exp_adf = in_seq && (roll == ROLL_ADF);

    always @(posedge clk) begin
        if (rst) begin
            roll <= 3'd0;
        end else if (commit) begin
            roll <= roll_next;
        end
    end

    always @(posedge clk) begin
        if (commit && new_dh && proto_flit) begin
            phdr  <= nhdr;
            pcls  <= ncls;
            pdata <= ndata;
        end
    end

    wire unused = &{1'b0, PBR[0]};
endmodule
`default_nettype wire
