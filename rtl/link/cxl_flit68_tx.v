`default_nettype none
// 68B flit formatter (TX): builds one 528-bit flit per cycle from the class queue heads, the
// credits and acks to return, or a control flit (cxl-flits.md 1, CONVENTIONS.md "Flit wire").
// Packing policy (ours, legal per spec 4.2.5): at most one message per class and one data header
// (DH) per flit, Sz=1 (64 B), BE=0, no MDH. Slot 0 takes the first header group, later headers go
// to the first G-slots after the rollover chunks, the DH is always the last header placed so its
// data fills the following slots to the end of the flit; the rest rolls over (4 -> all-data flit).
// The interface is the link68/link256 formatter contract, except that this formatter leaves the
// CRC field [527:512] zero (cxl_link adds it one cycle later).
module cxl_flit68_tx #(
    parameter integer ROLE = 0      // CXL_ROLE_DOWN (sends H2D/M2S) or CXL_ROLE_UP (D2H/S2M)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [5:0]       msg_avail,
    input  wire [6*128-1:0] msg_hdr,
    input  wire [2*512-1:0] msg_data,
    output reg  [5:0]       msg_take,
    input  wire [6*8-1:0]   crd_pend,
    output reg  [6*8-1:0]   crd_take,
    input  wire [7:0]       ack_pend,
    output reg  [7:0]       ack_take,
    input  wire [2:0]       ctl_kind,
    input  wire [7:0]       ctl_eseq,      // RETRY.Req ESeq / RETRY.Ack ESeq echo / INIT wrap value
    input  wire [4:0]       ctl_num_retry,
    input  wire             ctl_empty,
    input  wire             fire,
    output wire [527:0]     flit,
    output reg              flit_retryable,
    output wire             busy_adf
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit68_tx_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
    endgenerate

`include "cxl_defs.vh"

    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_FRAME = 3'd2, K_REQ = 3'd3, K_ACK = 3'd4,
                     K_INIT = 3'd5;
    localparam integer UP = (ROLE == CXL_ROLE_UP) ? 1 : 0;
    // Slot format codes (cxl-flits.md 1.4)
    localparam [2:0] F0 = 3'd0, F1 = 3'd1, F2 = 3'd2, F3 = 3'd3, F4 = 3'd4, F5 = 3'd5;
    localparam [2:0] G_EMPTY = (UP != 0) ? F5 : F1;  // a header format whose messages are all invalid
    // Control flit fields (cxl-flits.md 1.7)
    localparam [3:0] LLCTRL_LLCRD = 4'h0, LLCTRL_RETRY = 4'h1, LLCTRL_INIT = 4'hC;
    localparam [3:0] ST_IDLE = 4'h0, ST_REQ = 4'h1, ST_ACK = 4'h2, ST_FRAME = 4'h3,
                     ST_LLCRD = 4'h1, ST_INIT = 4'h8;
    localparam [3:0] INIT_VERSION = 4'h2;      // CXL 2.0+
    localparam [2:0] ROLL_ADF = 3'd4;

    // Rollover state: chunks of the last DH still owed, and its line.
    reg [2:0]   roll;
    reg [511:0] pdata;
    reg         dh_rr;       // round robin between the two data classes
    reg [2:0]   crd_rr;      // per credit field: prefer mem (1) or cache (0) next

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

    // 68B credit field code for n pending: largest power of two <= n, at most 64.
    function automatic [2:0] crd_code(input [7:0] n);
        begin
            if (n >= 8'd64)      crd_code = 3'd7;
            else if (n >= 8'd32) crd_code = 3'd6;
            else if (n >= 8'd16) crd_code = 3'd5;
            else if (n >= 8'd8)  crd_code = 3'd4;
            else if (n >= 8'd4)  crd_code = 3'd3;
            else if (n >= 8'd2)  crd_code = 3'd2;
            else if (n >= 8'd1)  crd_code = 3'd1;
            else                 crd_code = 3'd0;
        end
    endfunction
    function automatic [7:0] crd_value(input [2:0] code);
        crd_value = (code == 3'd0) ? 8'd0 : (8'd1 << (code - 3'd1));
    endfunction

    // Some credit field returns credits: the field of classes f / f+3 carries a nonzero code
    // exactly when either count is nonzero (the round robin only picks which one), so this is
    // taken from the counts directly and not through the round robin and the code (timing).
    wire        any_crd = (crd_pend != 48'd0);
    // Some message is placed: slot 0 always takes a message of this direction when one is
    // available (DOWN sends classes 0, 1, 2, 3, 5; UP 0, 1, 2, 4, 5), so this equals `take` != 0
    // in a flit that may carry messages, and it does not wait for the packing (timing).
    wire        any_msg = (UP == 0) ? (|{msg_avail[5], msg_avail[3:0]})
                                    : (|{msg_avail[5:4], msg_avail[2:0]});

    reg [511:0] body;         // flit bits [511:0]
    reg [2:0]   fmt [0:3];
    reg [11:0]  crd_hdr;      // {DataCrd, ReqCrd, RspCrd}
    reg [47:0]  crd_t;
    reg [1:0]   dsel;         // 0 none, 1 C_DATA, 2 M_DATA
    reg         dh_placed;
    reg         x_placed;     // the "other" header (DOWN: M2S Req, UP: D2H Req) already placed
    reg [2:0]   gs;           // next free slot
    reg [2:0]   roll_next;
    reg [511:0] dline;
    reg [5:0]   take;
    reg         upd_state;
    reg [2:0]   crd_rr_next;
    integer     j, f;

    always @* begin
        body           = {512{1'b0}};
        for (j = 0; j < 4; j = j + 1) fmt[j] = F0;
        crd_hdr        = 12'd0;
        crd_t          = 48'd0;
        crd_take       = 48'd0;
        take           = 6'd0;
        ack_take       = 8'd0;
        flit_retryable = 1'b0;
        roll_next      = roll;
        dline          = pdata;
        dh_placed      = 1'b0;
        x_placed       = 1'b0;
        dsel           = 2'd0;
        gs             = 3'd0;
        upd_state      = 1'b0;
        crd_rr_next    = crd_rr;
        j              = 0;

        // Credit fields: field f covers local RX classes f (cache) and f+3 (mem); one per flit.
        for (f = 0; f < 3; f = f + 1) begin : crd_pick
            reg [7:0] pc, pm;
            reg       use_mem;
            reg [2:0] code;
            pc = crd_pend[f*8 +: 8];
            pm = crd_pend[(f+3)*8 +: 8];
            use_mem = (pm != 8'd0) && (crd_rr[f] || (pc == 8'd0));
            code = crd_code(use_mem ? pm : pc);
            if (code != 3'd0) begin
                if (use_mem) crd_t[(f+3)*8 +: 8] = crd_value(code);
                else         crd_t[f*8 +: 8]     = crd_value(code);
            end
            // the code is nonzero exactly when either count is (see any_crd): tested on the
            // counts so that the round robin's update does not wait for the code (timing)
            if (pc != 8'd0 || pm != 8'd0) crd_rr_next[f] = !use_mem;
            // header order: RspCrd [23:20] (f=1), ReqCrd [27:24] (f=0), DataCrd [31:28] (f=2)
            case (f)
                0:       crd_hdr[7:4]  = {use_mem, code};
                1:       crd_hdr[3:0]  = {use_mem, code};
                default: crd_hdr[11:8] = {use_mem, code};
            endcase
        end

        case (ctl_kind)
            K_IDLE, K_FRAME, K_REQ, K_ACK: begin
                body[0]     = 1'b1;
                body[35:32] = LLCTRL_RETRY;
                case (ctl_kind)
                    K_IDLE:  body[39:36] = ST_IDLE;
                    K_FRAME: body[39:36] = ST_FRAME;
                    K_REQ: begin
                        body[39:36] = ST_REQ;
                        body[71:64] = ctl_eseq;
                        body[84:80] = ctl_num_retry;
                    end
                    default: begin
                        body[39:36] = ST_ACK;
                        body[64]    = ctl_empty;
                        body[71:67] = ctl_num_retry;
                        body[87:80] = ctl_eseq;
                    end
                endcase
            end
            K_INIT: begin
                body[0]        = 1'b1;
                body[35:32]    = LLCTRL_INIT;
                body[39:36]    = ST_INIT;
                body[67:64]    = INIT_VERSION;
                body[95:88]    = ctl_eseq;     // LLR Wrap Value
                flit_retryable = 1'b1;
            end
            K_NONE: begin
                if (roll == ROLL_ADF) begin
                    // All-data flit: the four chunks of the pending line, no header.
                    body           = pdata;
                    flit_retryable = 1'b1;
                    roll_next      = 3'd0;
                    upd_state      = 1'b1;
                end else begin
                    // Which data class gets this flit's single DH.
                    if (msg_avail[2] && msg_avail[5]) dsel = dh_rr ? 2'd2 : 2'd1;
                    else if (msg_avail[2])            dsel = 2'd1;
                    else if (msg_avail[5])            dsel = 2'd2;
                    if (UP == 0) begin
                        // ---- H2D / M2S ----
                        if (msg_avail[0] || msg_avail[1]) begin
                            fmt[0] = F0;                                   // H0: Req + Rsp
                            if (msg_avail[0]) begin body[32 +: 64] = h2d_req_w; take[0] = 1'b1; end
                            if (msg_avail[1]) begin body[96 +: 32] = h2d_rsp_w; take[1] = 1'b1; end
                        end else if (msg_avail[3]) begin
                            fmt[0] = F5;                                   // H5: M2S Req
                            body[32 +: 87] = m2s_req_w; take[3] = 1'b1; x_placed = 1'b1;
                        end else if (dsel == 2'd1) begin
                            fmt[0] = F1;                                   // H1: DH (+2 Rsp)
                            body[32 +: 24] = h2d_dh_w; dh_placed = 1'b1;
                        end else if (dsel == 2'd2) begin
                            fmt[0] = F4;                                   // H4: RwD
                            body[32 +: 87] = m2s_rwd_w; dh_placed = 1'b1;
                        end
                        gs = roll + 3'd1;
                        if (msg_avail[3] && !x_placed && gs <= 3'd3) begin
                            fmt[gs[1:0]] = F4;                             // G4: M2S Req (+DH)
                            body[128*gs[1:0] +: 87] = m2s_req_w; take[3] = 1'b1;
                            if (dsel == 2'd1) begin
                                body[128*gs[1:0] + 88 +: 24] = h2d_dh_w; dh_placed = 1'b1;
                            end
                            gs = gs + 3'd1;
                        end
                        if (!dh_placed && dsel != 2'd0 && gs <= 3'd3) begin
                            if (dsel == 2'd1) begin
                                fmt[gs[1:0]] = F4;                         // G4: DH only
                                body[128*gs[1:0] + 88 +: 24] = h2d_dh_w;
                            end else begin
                                fmt[gs[1:0]] = F5;                         // G5: RwD
                                body[128*gs[1:0] +: 87] = m2s_rwd_w;
                            end
                            dh_placed = 1'b1;
                            gs = gs + 3'd1;
                        end
                    end else begin
                        // ---- D2H / S2M ----
                        if (msg_avail[1] || msg_avail[4]) begin
                            fmt[0] = F0;                                   // H0: DH + 2 Rsp + NDR
                            if (msg_avail[1]) begin body[32 + 17 +: 20] = d2h_rsp_w; take[1] = 1'b1; end
                            if (msg_avail[4]) begin body[32 + 57 +: 30] = s2m_ndr_w; take[4] = 1'b1; end
                            if (dsel == 2'd1 && !msg_avail[0]) begin
                                body[32 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                            end
                        end else if (msg_avail[0]) begin
                            fmt[0] = F1;                                   // H1: Req + DH
                            body[32 +: 79] = d2h_req_w; take[0] = 1'b1; x_placed = 1'b1;
                            if (dsel == 2'd1) begin
                                body[32 + 79 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                            end
                        end else if (dsel == 2'd1) begin
                            fmt[0] = F1;                                   // H1: DH only
                            body[32 + 79 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                        end else if (dsel == 2'd2) begin
                            fmt[0] = F3;                                   // H3: DRS (+NDR)
                            body[32 +: 40] = s2m_drs_w; dh_placed = 1'b1;
                        end
                        gs = roll + 3'd1;
                        if (msg_avail[0] && !x_placed && gs <= 3'd3) begin
                            body[128*gs[1:0] +: 79] = d2h_req_w; take[0] = 1'b1;
                            if (dsel == 2'd1) begin
                                fmt[gs[1:0]] = F2;                         // G2: Req + DH
                                body[128*gs[1:0] + 79 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                            end else begin
                                fmt[gs[1:0]] = F1;                         // G1: Req
                            end
                            gs = gs + 3'd1;
                        end
                        if (!dh_placed && dsel != 2'd0 && gs <= 3'd3) begin
                            if (dsel == 2'd1) begin
                                fmt[gs[1:0]] = F2;                         // G2: DH only
                                body[128*gs[1:0] + 79 +: 17] = d2h_dh_w;
                            end else begin
                                fmt[gs[1:0]] = F4;                         // G4: DRS
                                body[128*gs[1:0] +: 40] = s2m_drs_w;
                            end
                            dh_placed = 1'b1;
                            gs = gs + 3'd1;
                        end
                    end
                    if (dh_placed) begin
                        take[dsel == 2'd1 ? 2 : 5] = 1'b1;
                        dline = (dsel == 2'd1) ? msg_data[0 +: 512] : msg_data[512 +: 512];
                    end
                    // Rollover chunks of the previous line go first, in slots 1..roll.
                    for (j = 1; j < 4; j = j + 1) begin
                        if (j <= roll) begin
                            fmt[j] = F0;
                            body[128*j +: 128] = pdata[128*(3 + j - {29'd0, roll}) +: 128];
                        end else if (j >= gs && dh_placed) begin
                            fmt[j] = F0;                                   // new line, chunk j-gs
                            body[128*j +: 128] = dline[128*(j - {29'd0, gs}) +: 128];
                        end else if (j >= gs) begin
                            fmt[j] = G_EMPTY;
                        end
                    end
                    roll_next = dh_placed ? gs : 3'd0;
                    if (any_msg || roll != 3'd0) begin
                        // Protocol flit
                        body[0]     = 1'b0;
                        body[4]     = 1'b1;                                // Sz = 64 B
                        body[7:5]   = fmt[0];
                        body[10:8]  = fmt[1];
                        body[13:11] = fmt[2];
                        body[16:14] = fmt[3];
                        body[31:20] = crd_hdr;
                        if (ack_pend >= 8'd8) begin body[2] = 1'b1; ack_take = 8'd8; end
                        flit_retryable = 1'b1;
                        upd_state      = 1'b1;
                    end else if (any_crd || ack_pend != 8'd0) begin
                        // LLCRD.Acknowledge: credits + full ack {Ack[7:4], Ak, Ack[2:0]}
                        body           = {512{1'b0}};
                        body[0]        = 1'b1;
                        body[2]        = ack_pend[3];
                        body[31:20]    = crd_hdr;
                        body[35:32]    = LLCTRL_LLCRD;
                        body[39:36]    = ST_LLCRD;
                        body[66:64]    = ack_pend[2:0];
                        body[71:68]    = ack_pend[7:4];
                        ack_take       = ack_pend;
                        flit_retryable = 1'b1;
                        upd_state      = 1'b1;
                    end else begin
                        body        = {512{1'b0}};                         // RETRY.Idle
                        body[0]     = 1'b1;
                        body[35:32] = LLCTRL_RETRY;
                        body[39:36] = ST_IDLE;
                        take        = 6'd0;
                        roll_next   = roll;
                    end
                    if (upd_state) crd_take = crd_t;
                end
            end
            default: ;
        endcase
        msg_take = take;
    end

    // The CRC field is left zero: cxl_link computes the CRC in its output stage, from the flit it
    // sends (new or replayed), so the packing and the CRC tree are in different cycles.
    assign flit        = {16'd0, body};
    assign busy_adf    = (roll == ROLL_ADF);

    always @(posedge clk) begin
        if (rst) begin
            roll   <= 3'd0;
            dh_rr  <= 1'b0;
            crd_rr <= 3'd0;
        end else begin
            if (fire && ctl_kind == K_NONE && upd_state) begin
                roll   <= roll_next;
                crd_rr <= crd_rr_next;
            end
            // a placed DH is taken (see pdata below): take[2] || take[5] is dh_placed, and
            // take[2] is dsel == 1
            if (fire && dh_placed) dh_rr <= (dsel == 2'd1);
        end
    end

    // Line of the DH carried by the fired flit; only read while roll != 0. A placed DH is always
    // taken (dh_placed is only set in a K_NONE protocol flit, which takes it), so dh_placed
    // stands for take[2] || take[5] here: it skips the flit-kind decision (timing).
    always @(posedge clk) begin
        if (fire && dh_placed) pdata <= dline;
    end

endmodule
`default_nettype wire
