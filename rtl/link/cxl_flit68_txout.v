`default_nettype none
// 68B flit output builder (TX, second half of the 68B formatter): builds the flit cxl_link sends
// next from a protocol flit that cxl_flit68_tx packed one or more cycles earlier (held in
// cxl_link's prepared-flit buffer) or, without one, an LLCRD or a control flit (cxl-flits.md 1.7).
// The packer runs ahead of the link's flit-kind decision, so this module carries every field that
// depends on that decision or on the current credit and ack counts: the credit fields and Ak of a
// protocol flit, the LLCRD and the RETRY/INIT control flits. The CRC field is left zero (cxl_link
// computes it in its output stage). Credit field policy: field f returns local RX class f (cache)
// or f+3 (mem), alternating when both have credits pending.
module cxl_flit68_txout (
    input  wire             clk,
    input  wire             rst,
    input  wire [2:0]       ctl_kind,      // K_NONE: the stream flit (pk_send) or an LLCRD / idle
    input  wire             pk_send,       // K_NONE: send the prepared flit pk_flit
    input  wire [511:0]     pk_flit,       // prepared flit, credit fields and Ak zero
    input  wire             pk_adf,        // ... it is an all-data flit (no header)
    input  wire [6*8-1:0]   crd_pend,      // RX credits owed per class
    input  wire             crd_en,        // credits may be returned in this flit
    input  wire [7:0]       ack_pend,      // acks owed
    input  wire             ack_en,        // an LLCRD returns the acks (forced or >= 8 pending)
    input  wire [7:0]       ctl_eseq,      // RETRY.Req ESeq / RETRY.Ack ESeq echo / INIT wrap value
    input  wire [4:0]       ctl_num_retry,
    input  wire             ctl_empty,
    input  wire             fire,          // the flit is taken this cycle
    output reg  [527:0]     flit,
    output reg              flit_retryable,
    output reg  [2:0]       crd_mem,       // per credit field: it returns class f+3 (1) or f (0)
    output reg              crd_used,      // the flit returns credits (when ctl_kind == K_NONE)
    output reg              ack_all,       // the flit returns all of ack_pend (LLCRD)
    output reg              ack_8          // the flit returns 8 acks (Ak of a protocol flit)
);
    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_FRAME = 3'd2, K_REQ = 3'd3, K_ACK = 3'd4,
                     K_INIT = 3'd5;
    localparam [3:0] LLCTRL_LLCRD = 4'h0, LLCTRL_RETRY = 4'h1, LLCTRL_INIT = 4'hC;
    localparam [3:0] ST_IDLE = 4'h0, ST_REQ = 4'h1, ST_ACK = 4'h2, ST_FRAME = 4'h3,
                     ST_LLCRD = 4'h1, ST_INIT = 4'h8;
    localparam [3:0] INIT_VERSION = 4'h2;      // CXL 2.0+

    reg [2:0] crd_rr;        // per credit field: prefer mem (1) or cache (0) next

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

    // credit fields from the counts alone (not from the flit-kind decision)
    reg [11:0] crd_hdr;      // {DataCrd, ReqCrd, RspCrd}
    reg [2:0]  crd_rr_next;
    integer    f;
    always @* begin
        crd_mem     = 3'd0;
        crd_hdr     = 12'd0;
        crd_rr_next = crd_rr;
        for (f = 0; f < 3; f = f + 1) begin : crd_pick
            reg [7:0] pc, pm;
            reg       use_mem;
            reg [2:0] code;
            pc = crd_pend[f*8 +: 8];
            pm = crd_pend[(f+3)*8 +: 8];
            use_mem = (pm != 8'd0) && (crd_rr[f] || (pc == 8'd0));
            code = crd_code(use_mem ? pm : pc);
            crd_mem[f] = use_mem;
            if (pc != 8'd0 || pm != 8'd0) crd_rr_next[f] = !use_mem;
            // header order: RspCrd [23:20] (f=1), ReqCrd [27:24] (f=0), DataCrd [31:28] (f=2)
            case (f)
                0:       crd_hdr[7:4]  = {use_mem, code};
                1:       crd_hdr[3:0]  = {use_mem, code};
                default: crd_hdr[11:8] = {use_mem, code};
            endcase
        end
    end
    wire any_crd = crd_en && (crd_pend != 48'd0);
    wire [11:0] crd_f = crd_en ? crd_hdr : 12'd0;
    wire [7:0]  ack_f = ack_en ? ack_pend : 8'd0;

    reg [511:0] body;
    always @* begin
        body           = {512{1'b0}};
        flit_retryable = 1'b0;
        crd_used       = 1'b0;
        ack_all        = 1'b0;
        ack_8          = 1'b0;
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
                if (pk_send) begin
                    // prepared flit: a protocol flit gets the credit fields and Ak here
                    body           = pk_flit;
                    flit_retryable = 1'b1;
                    if (!pk_adf) begin
                        body[31:20] = crd_f;
                        crd_used    = crd_en;
                        if (ack_pend >= 8'd8) begin
                            body[2] = 1'b1;
                            ack_8   = 1'b1;
                        end
                    end
                end else if (any_crd || ack_f != 8'd0) begin
                    // LLCRD.Acknowledge: credits + full ack {Ack[7:4], Ak, Ack[2:0]}
                    body[0]        = 1'b1;
                    body[2]        = ack_f[3];
                    body[31:20]    = crd_f;
                    body[35:32]    = LLCTRL_LLCRD;
                    body[39:36]    = ST_LLCRD;
                    body[66:64]    = ack_f[2:0];
                    body[71:68]    = ack_f[7:4];
                    flit_retryable = 1'b1;
                    crd_used       = crd_en;
                    ack_all        = ack_en;
                end else begin
                    body[0]     = 1'b1;                                // RETRY.Idle
                    body[35:32] = LLCTRL_RETRY;
                    body[39:36] = ST_IDLE;
                end
            end
            default: ;
        endcase
        flit = {16'd0, body};
    end

    always @(posedge clk) begin
        if (rst) crd_rr <= 3'd0;
        else if (fire && ctl_kind == K_NONE && crd_used) crd_rr <= crd_rr_next;
    end
endmodule
`default_nettype wire
