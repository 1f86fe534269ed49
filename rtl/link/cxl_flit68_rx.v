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
    output reg                     proto_err
);
`include "cxl_defs.vh"

    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_FRAME = 3'd2, K_REQ = 3'd3, K_ACK = 3'd4,
                     K_INIT = 3'd5;
    localparam integer PUP = (ROLE == CXL_ROLE_DOWN) ? 1 : 0;  // partner sends D2H/S2M
    localparam [3:0] LLCTRL_LLCRD = 4'h0, LLCTRL_RETRY = 4'h1, LLCTRL_INIT = 4'hC;
    localparam [2:0] ROLL_ADF = 3'd4;
    localparam integer NC = 16;     // message candidates per flit: 4 slots x 4 positions
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

    // One candidate: {valid, dh, cls[2:0], hdr[127:0]}
    localparam integer CW = 133;
    function automatic [CW-1:0] cand(input v, input dh, input [2:0] c, input [127:0] h);
        cand = {v, dh, c, h};
    endfunction

    // Decode one slot of the partner's direction. Returns {legal, cand3, cand2, cand1, cand0}.
    function automatic [4*CW:0] dec_slot(input [127:0] s, input is_h, input [2:0] f);
        reg [4*CW-1:0] c;
        reg            ok;
        begin
            c  = {4*CW{1'b0}};
            ok = 1'b1;
            if (PUP != 0) begin
                case ({is_h, f})
                    4'b1000: begin  // H0: DH + 2 Rsp + NDR
                        c[0*CW +: CW] = cand(s[0], 1'b1, 3'd2, cxl_d2h_dh_from_w68(s[0 +: 17]));
                        c[1*CW +: CW] = cand(s[17], 1'b0, 3'd1, cxl_d2h_rsp_from_w68(s[17 +: 20]));
                        c[2*CW +: CW] = cand(s[37], 1'b0, 3'd1, cxl_d2h_rsp_from_w68(s[37 +: 20]));
                        c[3*CW +: CW] = cand(s[57], 1'b0, 3'd4, cxl_s2m_ndr_from_w68(s[57 +: 30]));
                    end
                    4'b1001: begin  // H1: Req + DH
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd0, cxl_d2h_req_from_w68(s[0 +: 79]));
                        c[1*CW +: CW] = cand(s[79], 1'b1, 3'd2, cxl_d2h_dh_from_w68(s[79 +: 17]));
                    end
                    4'b1011: begin  // H3: DRS + NDR
                        c[0*CW +: CW] = cand(s[0], 1'b1, 3'd5, cxl_s2m_drs_from_w68(s[0 +: 40]));
                        c[1*CW +: CW] = cand(s[40], 1'b0, 3'd4, cxl_s2m_ndr_from_w68(s[40 +: 30]));
                    end
                    4'b1100, 4'b0101: begin  // H4 / G5: 2 NDR, NDR0.DevLoad after NDR1
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd4,
                                             cxl_s2m_ndr_from_w68({s[58 +: 2], s[0 +: 28]}));
                        c[1*CW +: CW] = cand(s[28], 1'b0, 3'd4, cxl_s2m_ndr_from_w68(s[28 +: 30]));
                    end
                    4'b0001: begin  // G1: Req + 2 Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd0, cxl_d2h_req_from_w68(s[0 +: 79]));
                        c[1*CW +: CW] = cand(s[79], 1'b0, 3'd1, cxl_d2h_rsp_from_w68(s[79 +: 20]));
                        c[2*CW +: CW] = cand(s[99], 1'b0, 3'd1, cxl_d2h_rsp_from_w68(s[99 +: 20]));
                    end
                    4'b0010: begin  // G2: Req + DH + Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd0, cxl_d2h_req_from_w68(s[0 +: 79]));
                        c[1*CW +: CW] = cand(s[79], 1'b1, 3'd2, cxl_d2h_dh_from_w68(s[79 +: 17]));
                        c[2*CW +: CW] = cand(s[96], 1'b0, 3'd1, cxl_d2h_rsp_from_w68(s[96 +: 20]));
                    end
                    4'b0100: begin  // G4: DRS + 2 NDR, NDR0.DevLoad after NDR1
                        c[0*CW +: CW] = cand(s[0], 1'b1, 3'd5, cxl_s2m_drs_from_w68(s[0 +: 40]));
                        c[1*CW +: CW] = cand(s[40], 1'b0, 3'd4,
                                             cxl_s2m_ndr_from_w68({s[98 +: 2], s[40 +: 28]}));
                        c[2*CW +: CW] = cand(s[68], 1'b0, 3'd4, cxl_s2m_ndr_from_w68(s[68 +: 30]));
                    end
                    default: ok = 1'b0;  // H2/H5/G3/G6 MDH, H6 MAC, 7 RSVD (G0 handled by caller)
                endcase
            end else begin
                case ({is_h, f})
                    4'b1000: begin  // H0: Req + Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd0, cxl_h2d_req_from_w68(s[0 +: 64]));
                        c[1*CW +: CW] = cand(s[64], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[64 +: 32]));
                    end
                    4'b1001: begin  // H1: DH + 2 Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b1, 3'd2, cxl_h2d_dh_from_w68(s[0 +: 24]));
                        c[1*CW +: CW] = cand(s[24], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[24 +: 32]));
                        c[2*CW +: CW] = cand(s[56], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[56 +: 32]));
                    end
                    4'b1010: begin  // H2: Req + DH
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd0, cxl_h2d_req_from_w68(s[0 +: 64]));
                        c[1*CW +: CW] = cand(s[64], 1'b1, 3'd2, cxl_h2d_dh_from_w68(s[64 +: 24]));
                    end
                    4'b1100: begin  // H4: RwD
                        c[0*CW +: CW] = cand(s[0], 1'b1, 3'd5, cxl_m2s_rwd_from_w68(s[0 +: 87]));
                    end
                    4'b1101: begin  // H5: M2S Req
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd3, cxl_m2s_req_from_w68(s[0 +: 87]));
                    end
                    4'b0001: begin  // G1: 4 Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[0 +: 32]));
                        c[1*CW +: CW] = cand(s[32], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[32 +: 32]));
                        c[2*CW +: CW] = cand(s[64], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[64 +: 32]));
                        c[3*CW +: CW] = cand(s[96], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[96 +: 32]));
                    end
                    4'b0010: begin  // G2: Req + DH + Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd0, cxl_h2d_req_from_w68(s[0 +: 64]));
                        c[1*CW +: CW] = cand(s[64], 1'b1, 3'd2, cxl_h2d_dh_from_w68(s[64 +: 24]));
                        c[2*CW +: CW] = cand(s[88], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[88 +: 32]));
                    end
                    4'b0100: begin  // G4: M2S Req + DH
                        c[0*CW +: CW] = cand(s[0], 1'b0, 3'd3, cxl_m2s_req_from_w68(s[0 +: 87]));
                        c[1*CW +: CW] = cand(s[88], 1'b1, 3'd2, cxl_h2d_dh_from_w68(s[88 +: 24]));
                    end
                    4'b0101: begin  // G5: RwD + Rsp
                        c[0*CW +: CW] = cand(s[0], 1'b1, 3'd5, cxl_m2s_rwd_from_w68(s[0 +: 87]));
                        c[1*CW +: CW] = cand(s[88], 1'b0, 3'd1, cxl_h2d_rsp_from_w68(s[88 +: 32]));
                    end
                    default: ok = 1'b0;  // H3/G3 MDH, H6/G6 MAC/RSVD, 7 RSVD
                endcase
            end
            dec_slot = {ok, c};
        end
    endfunction

    // 68B credit field -> {class offset (0 cache, 3 mem), count}
    function automatic [7:0] crd_val(input [2:0] code);
        crd_val = (code == 3'd0) ? 8'd0 : (8'd1 << (code - 3'd1));
    endfunction

    reg [NC-1:0]      cv, cdh;
    reg [3*NC-1:0]    cc;
    reg [128*NC-1:0]  chh;
    reg [4*CW:0]      ds;
    reg [127:0]       sbits;
    reg [2:0]         sfmt;
    reg               err;
    reg               adf;
    reg [2:0]         owed_new;     // chunks of this flit's new DH still to come
    reg               new_dh;
    reg [127:0]       nhdr;
    reg               ncls;
    reg [511:0]       ndata;        // chunks of the new DH received in this flit
    reg [511:0]       odata;        // pending line with this flit's rollover chunks merged
    reg               old_done;
    reg [2:0]         roll_next;
    reg [3:0]         cnt [0:5];
    reg [11:0]        crd_hdr;
    integer           j, k, c, idx;

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
        cv = {NC{1'b0}}; cdh = {NC{1'b0}}; cc = {3*NC{1'b0}}; chh = {128*NC{1'b0}};
        ds = {(4*CW+1){1'b0}};
        sbits = 128'd0; sfmt = 3'd0;
        owed_new = 3'd0; new_dh = 1'b0; nhdr = 128'd0; ncls = 1'b0; ndata = 512'd0;
        odata = pdata; old_done = 1'b0; roll_next = roll;
        j = 0; k = 0; idx = 0;
        for (c = 0; c < 6; c = c + 1) cnt[c] = 4'd0;
        crd_hdr = flit[31:20];
        adf = in_seq && (roll == ROLL_ADF);

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
            retryable = 1'b1;
            if (flit[2]) ack_cnt = 8'd8;
            for (j = 0; j < 4; j = j + 1) begin
                sfmt  = flit[5 + 3*j +: 3];
                sbits = (j == 0) ? {32'd0, flit[32 +: 96]} : flit[128*j +: 128];
                if (j != 0 && j <= roll) begin
                    // rollover chunk of the pending line
                    if (sfmt != 3'd0) err = 1'b1;
                    odata[128*(3 + j - {29'd0, roll}) +: 128] = sbits;
                    if (j == {29'd0, roll}) old_done = 1'b1;
                end else if (j != 0 && owed_new != 3'd0) begin
                    // chunk of this flit's new line
                    if (sfmt != 3'd0) err = 1'b1;
                    ndata[128*(4 - {29'd0, owed_new}) +: 128] = sbits;
                    owed_new = owed_new - 3'd1;
                end else if (j != 0 && sfmt == 3'd0) begin
                    err = 1'b1;                                          // data nobody owes
                end else begin
                    ds = dec_slot(sbits, j == 0, sfmt);
                    if (!ds[4*CW]) err = 1'b1;
                    for (k = 0; k < 4; k = k + 1) begin
                        if (ds[k*CW + 132]) begin
                            cv[4*j + k]  = 1'b1;
                            cdh[4*j + k] = ds[k*CW + 131];
                            cc[3*(4*j + k) +: 3] = ds[k*CW + 128 +: 3];
                            chh[128*(4*j + k) +: 128] = ds[k*CW +: 128];
                            if (ds[k*CW + 131]) begin
                                if (new_dh) err = 1'b1;                  // one DH per flit
                                new_dh   = 1'b1;
                                owed_new = 3'd4;
                                nhdr     = ds[k*CW +: 128];
                                ncls     = ds[k*CW + 130];               // class 5 vs 2
                            end
                        end
                    end
                end
            end
            // Sz/BE describe this flit's DH: 64 B without byte enables only (ours: no 32B/BE)
            if (new_dh && (flit[4] != 1'b1 || flit[3] != 1'b0)) err = 1'b1;
            if (new_dh) roll_next = owed_new;
            else if (old_done) roll_next = 3'd0;
        end

        // Credits (protocol flits and LLCRD): field f returns classes f (cache) / f+3 (mem)
        if (!adf) begin
            crd_cnt[(crd_hdr[7]  ? 3 : 0)*8 +: 8] = crd_val(crd_hdr[6:4]);   // ReqCrd
            crd_cnt[(crd_hdr[3]  ? 4 : 1)*8 +: 8] = crd_val(crd_hdr[2:0]);   // RspCrd
            crd_cnt[(crd_hdr[11] ? 5 : 2)*8 +: 8] = crd_val(crd_hdr[10:8]);  // DataCrd
        end

        // Compact the non-data messages per class in flit bit order; data messages complete
        // at most one per flit (no MDH) and go to index 0 of their class.
        for (k = 0; k < NC; k = k + 1) begin
            if (cv[k]) begin
                c = {29'd0, cc[3*k +: 3]};
                if (cnt[c] == 4'hF) err = 1'b1;
                else cnt[c] = cnt[c] + 4'd1;
                if (!cdh[k]) begin
                    idx = {28'd0, cnt[c]} - 1;
                    if (idx < MAXM) begin
                        msg_valid[c*MAXM + idx] = 1'b1;
                        msg_hdr[(c*MAXM + idx)*128 +: 128] = chh[128*k +: 128];
                    end
                end
            end
        end
        for (c = 0; c < 6; c = c + 1) begin
            if (cnt[c] > MAXK[4*c +: 4]) err = 1'b1;
        end
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

    always @(posedge clk) begin
        if (rst) begin
            roll <= 3'd0;
        end else if (commit) begin
            roll <= roll_next;
        end
    end

    always @(posedge clk) begin
        if (commit && new_dh) begin
            phdr  <= nhdr;
            pcls  <= ncls;
            pdata <= ndata;
        end
    end

    wire unused = &{1'b0, PBR[0]};
endmodule
