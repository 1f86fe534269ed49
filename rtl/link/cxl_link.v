`default_nettype none
// CXL.cachemem link layer endpoint: TX class queues, credits, flit formatter, replay buffer and
// link-layer retry (LRSM/RRSM), RX flit decoder and per-class RX buffers (CONVENTIONS.md,
// cxl-flits.md 1-3). One flit per clock. FLIT_MODE selects the formatter pair (68B / 256B).
// Retry is go-back-N with implicit sequence numbers: the receiver counts good retryable flits
// (ESeq) and acknowledges them; on a CRC error it sends NFRAMES x RETRY.Frame + RETRY.Req and
// discards retryable flits until a matching RETRY.Ack; the transmitter answers with the framed
// RETRY.Ack and replays from ESeq. Ours: NUM_RETRY reaching MAX_RETRY asserts link_fatal (no PHY
// re-init); a CRC-clean protocol violation also asserts link_fatal (it cannot be retried away).
// SEQ_CRC = 1 (ours): the CRC of a retryable flit also covers its sequence number (the sender's
// replay-buffer index = the receiver's ESeq), as if 8 more data bits followed the covered bits.
module cxl_link #(
    parameter integer FLIT_MODE     = 0,     // 0 = 68B, 1 = 256B
    parameter integer ROLE          = 0,     // CXL_ROLE_DOWN (host/DSP) or CXL_ROLE_UP (device)
    parameter integer PBR           = 0,     // 256B only
    parameter integer REPLAY_DEPTH  = 32,    // 8..255 (8-bit sequence numbers); the spec needs >= 22
    parameter integer RX_DEPTH      = 16,    // per-class RX buffer = credits advertised, 1..255
    parameter integer TIMEOUT_FLITS = 4096,  // retry timeout in transmitted flits, 1..65535 (spec: >= 4096)
    parameter integer MAX_RETRY     = 16,    // RETRY.Req attempts before link_fatal, 1..31
    parameter integer TXQ_DEPTH     = 4,     // per-class TX queue, >= 2
    parameter integer ACK_FORCE     = 16,    // Ack_Force_Threshold, 1..255
    parameter integer ACK_TIMER     = 32,    // Ack_or_CRD_Flush_Retimer, in cycles, 1..255
    parameter integer FLIT_W        = (FLIT_MODE != 0) ? 2048 : 528,  // derived, do not set
    // 1: the implicit sequence number of every retryable flit is folded into its CRC (ours), so a
    // flit that is dropped, duplicated or replayed out of turn fails the receiver's CRC check and
    // is retried; both ends must agree. 0: the spec CRC (68B: cxl-flits.md 2), which relies on
    // the PHY never dropping or repeating a flit. Default: 0 for 68B, 1 for 256B (our CRC anyway).
    parameter integer SEQ_CRC       = (FLIT_MODE != 0) ? 1 : 0
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire [5:0]            tx_valid,
    output wire [5:0]            tx_ready,
    input  wire [6*128-1:0]      tx_hdr,
    input  wire [2*512-1:0]      tx_data,
    output wire [5:0]            rx_valid,
    input  wire [5:0]            rx_ready,
    output wire [6*128-1:0]      rx_hdr,
    output wire [2*512-1:0]      rx_data,
    output wire                  tx_flit_valid,
    input  wire                  tx_flit_ready,
    output wire [FLIT_W-1:0]     tx_flit,
    input  wire                  rx_flit_valid,
    input  wire [FLIT_W-1:0]     rx_flit,
    output wire                  link_up,
    output reg                   link_fatal,
    output reg  [15:0]           stat_crc_err,
    output reg  [15:0]           stat_retry,
    output reg  [15:0]           stat_proto_err,
    // debug
    output wire [1:0]            dbg_lrsm,        // 0 NORMAL, 1 LLRREQ, 2 LOCAL_IDLE
    output wire [7:0]            dbg_eseq,
    output wire [7:0]            dbg_num_free,
    output wire                  dbg_rx_commit,   // a received flit was accepted in sequence
    output wire                  dbg_tx_replay,   // the flit loaded this cycle is a replay
    output wire                  dbg_rx_overflow, // an RX buffer overflowed (partner broke credits)
    output wire                  dbg_credit_err   // a message was sent without credit (never)
);
`include "cxl_defs.vh"

    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (FLIT_MODE != 0 && FLIT_MODE != 1) begin : g_bad_flit_mode
            cxl_link_parameter_error_FLIT_MODE_must_be_0_or_1 u_stop ();
        end
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_link_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_link_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && FLIT_MODE == 0) begin : g_bad_pbr_68b
            cxl_link_parameter_error_PBR_needs_FLIT_MODE_1 u_stop ();
        end
        if (REPLAY_DEPTH < 8 || REPLAY_DEPTH > 255) begin : g_bad_replay_depth
            cxl_link_parameter_error_REPLAY_DEPTH_must_be_8_to_255 u_stop ();
        end
        if (RX_DEPTH < 1 || RX_DEPTH > 255) begin : g_bad_rx_depth
            cxl_link_parameter_error_RX_DEPTH_must_be_1_to_255 u_stop ();
        end
        if (TIMEOUT_FLITS < 1 || TIMEOUT_FLITS > 65535) begin : g_bad_timeout_flits
            cxl_link_parameter_error_TIMEOUT_FLITS_must_be_1_to_65535 u_stop ();
        end
        if (MAX_RETRY < 1 || MAX_RETRY > 31) begin : g_bad_max_retry
            cxl_link_parameter_error_MAX_RETRY_must_be_1_to_31 u_stop ();
        end
        if (TXQ_DEPTH < 2) begin : g_bad_txq_depth
            cxl_link_parameter_error_TXQ_DEPTH_must_be_at_least_2 u_stop ();
        end
        if (ACK_FORCE < 1 || ACK_FORCE > 255) begin : g_bad_ack_force
            cxl_link_parameter_error_ACK_FORCE_must_be_1_to_255 u_stop ();
        end
        if (ACK_TIMER < 1 || ACK_TIMER > 255) begin : g_bad_ack_timer
            cxl_link_parameter_error_ACK_TIMER_must_be_1_to_255 u_stop ();
        end
        if (FLIT_W != ((FLIT_MODE != 0) ? 2048 : 528)) begin : g_bad_flit_w
            cxl_link_parameter_error_FLIT_W_must_be_derived u_stop ();
        end
        if (SEQ_CRC != 0 && SEQ_CRC != 1) begin : g_bad_seq_crc
            cxl_link_parameter_error_SEQ_CRC_must_be_0_or_1 u_stop ();
        end
    endgenerate

    localparam integer MAXM    = (FLIT_MODE != 0) ? 12 : 4;
    localparam integer NFRAMES = (FLIT_MODE != 0) ? 0 : 5;   // RETRY.Frame flits before Req/Ack
    localparam [2:0]   NFR     = 3'(NFRAMES);
    localparam integer RA_W    = $clog2(REPLAY_DEPTH);
    localparam [7:0]   DEPTH8  = 8'(REPLAY_DEPTH);
    localparam [7:0]   RXD8    = 8'(RX_DEPTH);
    // ESeq modulus = partner's LLR Wrap Value + 1 (the value after which its counter wraps);
    // spec default wrap value 9 until INIT.Param arrives. 256B: both ends use REPLAY_DEPTH.
    localparam [8:0]   WRAP_RESET = (FLIT_MODE != 0) ? {1'b0, DEPTH8} : 9'd10;
    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_FRAME = 3'd2, K_REQ = 3'd3, K_ACK = 3'd4,
                     K_INIT = 3'd5;
    localparam [1:0] S_NORMAL = 2'd0, S_LLRREQ = 2'd1, S_LOCAL_IDLE = 2'd2;
    // Sequence-number CRC terms (SEQ_CRC): the CRC is linear without seed or inversion, so the
    // term of sequence bit k is the CRC column of the virtual data bit CRC_LSB + k, i.e.
    // x^(CRC_LSB + k + CRC_W) mod G; it is XORed into the CRC field of a retryable flit.
    localparam integer    CRC_W   = (FLIT_MODE != 0) ? 64 : 16;
    localparam integer    CRC_LSB = (FLIT_MODE != 0) ? 1936 : 512;   // = bits the CRC covers
    localparam [63:0]     CRC_G   = (FLIT_MODE != 0) ? 64'h42F0E1EBA9EA3693 : 64'h000000000000F053;
    /* verilator lint_off UNUSEDSIGNAL */  // table builder: dummy arg, loop counter
    function automatic [8*64-1:0] seq_cols(input integer dummy);
        reg [63:0] col;
        integer n;
        begin
            seq_cols = {8*64{dummy[0]}};
            col = CRC_G;                                      // x^CRC_W mod G
            for (n = 0; n < CRC_LSB + 8; n = n + 1) begin
                if (n >= CRC_LSB) seq_cols[(n - CRC_LSB)*64 +: 64] = col;
                col = col[CRC_W-1] ? ((col << 1) ^ CRC_G) : (col << 1);
                if (CRC_W < 64) col = col & ((64'd1 << CRC_W) - 64'd1);
            end
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [8*64-1:0] SEQ_COLS = seq_cols(0);
    function automatic [FLIT_W-1:0] seq_term(input [7:0] sq);
        reg [63:0] t;
        integer k;
        begin
            t = 64'd0;
            for (k = 0; k < 8; k = k + 1)
                if (sq[k]) t = t ^ SEQ_COLS[k*64 +: 64];
            seq_term = {FLIT_W{1'b0}};
            seq_term[CRC_LSB +: CRC_W] = t[CRC_W-1:0];
        end
    endfunction
    // Classes that exist in this mode: BISnp (3 of UP) and BIRsp (4 of DOWN) are 256B only.
    localparam [5:0] TX_SUP = (FLIT_MODE != 0) ? 6'b111111 :
                              ((ROLE == CXL_ROLE_UP) ? 6'b110111 : 6'b101111);
    localparam [5:0] RX_SUP = (FLIT_MODE != 0) ? 6'b111111 :
                              ((ROLE == CXL_ROLE_UP) ? 6'b101111 : 6'b110111);

    integer c;
    genvar g;

    // ------------------------------------------------------------------ TX class queues, credits
    wire [5:0]       q_valid;
    wire [6*128-1:0] q_hdr;
    wire [2*512-1:0] q_data;
    wire [5:0]       crd_avail;
    wire [5:0]       crd_err;
    wire [5:0]       txq_take;     // queue heads taken by the formatter this cycle
    wire             fmt_fire;
    wire             rx_commit;
    wire [6*8-1:0]   rx_crd;
    // what received flits bring, applied this cycle: TX credits per class and acks (zero without
    // a committed flit). 68B: of the flit committed one cycle before (g_68's RX stage).
    wire [6*8-1:0]   rx_upd_crd;
    wire [7:0]       rx_upd_ack;

    generate
        for (g = 0; g < 6; g = g + 1) begin : g_txq
            localparam integer DW = (g == 2 || g == 5) ? 512 : 0;
            localparam integer DI = (g == 5) ? 1 : 0;
            wire             in_rdy;
            wire [128+DW-1:0] head;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [$clog2(TXQ_DEPTH+1)-1:0] q_cnt;
            wire [7:0]       c_cnt;
            /* verilator lint_on UNUSEDSIGNAL */
            if (DW != 0) begin : g_d
                sync_fifo #(.WIDTH(128 + DW), .DEPTH(TXQ_DEPTH)) u_q (
                    .clk(clk), .rst(rst),
                    .in_valid(tx_valid[g] && TX_SUP[g]), .in_ready(in_rdy),
                    .in_data({tx_data[DI*512 +: 512], tx_hdr[g*128 +: 128]}),
                    .out_valid(q_valid[g]), .out_ready(txq_take[g]),
                    .out_data(head), .count(q_cnt));
                assign q_data[DI*512 +: 512] = head[128 +: 512];
            end else begin : g_h
                sync_fifo #(.WIDTH(128), .DEPTH(TXQ_DEPTH)) u_q (
                    .clk(clk), .rst(rst),
                    .in_valid(tx_valid[g] && TX_SUP[g]), .in_ready(in_rdy),
                    .in_data(tx_hdr[g*128 +: 128]),
                    .out_valid(q_valid[g]), .out_ready(txq_take[g]),
                    .out_data(head), .count(q_cnt));
            end
            assign q_hdr[g*128 +: 128] = head[127:0];
            assign tx_ready[g] = in_rdy && TX_SUP[g];
            credit_counter #(.WIDTH(8), .INIT(8'd0)) u_crd (
                .clk(clk), .rst(rst),
                .add(TX_SUP[g] ? rx_upd_crd[g*8 +: 8] : 8'd0),
                .take(txq_take[g]), .avail(crd_avail[g]), .count(c_cnt), .underflow(crd_err[g]));
        end
    endgenerate
    assign dbg_credit_err = |crd_err;

    // ------------------------------------------------------------------ state
    reg [1:0]   lrsm;
    reg [4:0]   num_retry;
    reg [15:0]  timeout;
    reg [7:0]   eseq;
    reg [8:0]   wrap;            // our ESeq modulus (partner's wrap value + 1)
    reg [4:0]   last_req_nr;     // NUM_RETRY carried by our last RETRY.Req (Ack must echo it)
    reg         init_sent, init_rcvd, rx_seen_good;
    reg [7:0]   ack_pend;
    reg [7:0]   ack_timer;
    reg [6*8-1:0] crd_pend;
    reg [2:0]   frame_cnt;       // consecutive good RETRY.Frame flits received
    reg         rrsm_ack;        // RETRY.Ack owed (RRSM LLRACK)
    reg [7:0]   ack_eseq;
    reg [4:0]   ack_nr;
    reg         seq_on;          // a framed control sequence is being sent
    reg         seq_is_ack;
    reg [2:0]   seq_cnt;
    reg [7:0]   ack_eseq_l;
    reg [4:0]   ack_nr_l;
    // replay buffer: the flits, and per entry "is an all-data flit"
    reg [FLIT_W-1:0] rb_mem [0:REPLAY_DEPTH-1];
    reg [REPLAY_DEPTH-1:0] rb_adf;
    reg [RA_W-1:0] wr_ptr, rd_ptr;
    reg [7:0]      num_free;
    // num_free >= 2, 3, 4, registered with it: the flit-kind decision reads flags, not a compare
    reg            nf_ge2, nf_ge3, nf_ge4;
    // rd_ptr != wr_ptr (a replay is under way) and rb_adf[rd_ptr], registered: formed from the
    // next pointers, so the decision reads flags, not a pointer compare and an indexed read
    reg            replaying;
    reg            rp_adf;
    // ack_pend != 0, ack_pend >= 8, and the forcing counts (ack_pend >= ACK_FORCE or the ack
    // timer at ACK_TIMER): registered flags, formed with the counts (g_68, g_256)
    wire           ack_nz, ack_ge8, ack_frc;
    // output stages: stage 1 holds the flit picked (a new 68B flit with its CRC field still
    // zero), stage 2 the flit on tx_flit with its CRC (68B) and sequence term (SEQ_CRC) added
    reg              out_valid;
    reg [FLIT_W-1:0] out_flit;
    reg              out_seqd;   // stage 1 flit is retryable: its sequence number is out_seq
    reg [7:0]        out_seq;
    reg              tx_v;
    reg [FLIT_W-1:0] tx_q;
    wire [FLIT_W-1:0] out_crc;   // what stage 2 XORs into the stage 1 flit

    // ------------------------------------------------------------------ formatters
    reg  [2:0]        fmt_kind;
    reg  [7:0]        fmt_eseq;
    reg  [4:0]        fmt_nr;
    reg               fmt_empty;
    reg  [5:0]        fmt_avail;
    reg  [6*8-1:0]    fmt_crd_pend;
    reg  [7:0]        fmt_ack_pend;
    reg               msg_ok;       // a flit carrying messages may be sent
    reg               crd_en;       // the flit may return credits
    reg               ack_en;       // an LLCRD returns the acks
    reg               pk_send;      // 68B: the flit is the prepared one (fmt_kind == K_NONE)
    wire [FLIT_W-1:0] fmt_flit;
    wire              fmt_retryable;
    wire              fmt_retry;    // the formatter's flit is retryable (256B: from the flags)
    wire              fmt_busy_adf;
    wire [6*8-1:0]    crd_pend_nx;  // crd_pend and ack_pend after this cycle
    wire [7:0]        ack_pend_nx;
    wire              ack_ret;      // the flit loaded returns acks (restarts the ack timer)
    // the ack flags registered: each flit mode forms the next ack_pend != 0, >= 8 and >= ACK_FORCE
    // for its outcomes (ack_*_nx in g_68 / g_256); the timer flag is common (the timer restarts
    // on ack_ret or with <= 1 ack pending, else counts up to FF)
    wire              ack_nz_nx, ack_ge8_nx, ack_gef_nx;
    reg               ack_nz_q, ack_ge8_q, ack_gef_q, tmr_ge_q;
    always @(posedge clk) begin
        if (rst) begin
            {ack_nz_q, ack_ge8_q, ack_gef_q, tmr_ge_q} <= 4'd0;
        end else begin
            ack_nz_q  <= ack_nz_nx;
            ack_ge8_q <= ack_ge8_nx;
            ack_gef_q <= ack_gef_nx;
            tmr_ge_q  <= !(ack_ret || ack_pend <= 8'd1) && (ack_timer >= 8'(ACK_TIMER - 1));
        end
    end
    assign ack_nz  = ack_nz_q;
    assign ack_ge8 = ack_ge8_q;
    assign ack_frc = ack_gef_q || tmr_ge_q;
    wire              fmt_sent = fmt_fire && fmt_kind == K_NONE;
    wire              pk_head_v, pk_head_msg;   // 68B: prepared buffer head valid, has messages

    wire              rx_crc_ok, rx_retryable, rx_ctl_empty, rx_proto_err;
    wire [2:0]        rx_ctl_kind;
    wire [7:0]        rx_ctl_eseq, rx_ack;
    // The RX stage's part common to both modes: whether the flit judged last cycle was committed
    // (ru_commit) and the TX credits and acks it brings, applied this cycle (rx_upd_*); each mode's
    // block registers its messages alongside.
    reg               ru_commit;
    reg  [6*8-1:0]    ru_crd;
    reg  [7:0]        ru_ack;
    always @(posedge clk) begin
        if (rst) ru_commit <= 1'b0;
        else     ru_commit <= rx_commit;
    end
    always @(posedge clk) begin
        ru_crd <= rx_crd;
        ru_ack <= rx_ack;
    end
    assign rx_upd_crd = ru_crd & {48{ru_commit}};
    assign rx_upd_ack = ru_ack & {8{ru_commit}};
    wire [4:0]        rx_ctl_nr;
    wire [5:0]        rxb_ovf;      // an RX buffer overflowed
    wire              in_seq = (lrsm == S_NORMAL) && !link_fatal;
    wire [7:0]        eseq_inc = ({1'b0, eseq} + 9'd1 >= wrap) ? 8'd0 : eseq + 8'd1;  // ESeq after a commit
    // The received flit judged this cycle (its CRC, decode and acceptance below): 256B the one at
    // rx_flit 4 cycles before (cxl_flit256_rx is a 4-stage pipeline), 68B the one at rx_flit the
    // cycle before (cxl_flit68_rx's stage F registers it).
    wire              rx_fv;        // a flit is judged
    // SEQ_CRC: a flit that looks retryable (256B: payload type; 68B: a protocol flit, a control
    // flit other than RETRY.*, or the all-data flit the stream owes) is checked against ESeq.
    wire              rx_seqd;
    wire [FLIT_W-1:0] out_seq_term = (SEQ_CRC != 0 && out_seqd) ? seq_term(out_seq) : {FLIT_W{1'b0}};
    wire              rx_pay_o;     // 256B: the judged flit is a payload flit (g_256)

    generate
        if (FLIT_MODE == 0) begin : g_68
            wire [6*MAXM-1:0]     rx_mv;    // messages per class, packed from lane 0
            wire [6*MAXM*128-1:0] rx_mh;
            wire [2*MAXM*512-1:0] rx_md;
            // RX stages (timing): cxl_flit68_rx registers what the received flit alone tells
            // (its CRC check, its slot verdict for each rollover case, the message picks) in
            // its stage F, and the flit is judged one cycle after rx_flit (rx_fv): the verdict
            // and the state the next flit is checked against (the unpacker's rollover, ESeq,
            // the LRSM, frame count, INIT) act in that cycle. What the flit brings (messages
            // for the RX queues, TX credits, acks for the free count, the ack it is owed) is
            // registered here and applied one cycle later again, gated by ru_commit = rx_commit
            // of that flit. A flit with a CRC or protocol error (or out of sequence) leaves
            // ru_commit 0, so none of its contents reaches the queues or counters. Two cycles
            // more RX latency than a single-cycle receiver (rtl/link/README.md).
            reg  [6*MAXM-1:0]     ru_mv;
            /* verilator lint_off UNUSEDSIGNAL */  // data classes: only lane 0 (one DH per flit)
            reg  [6*MAXM*128-1:0] ru_mh;
            reg  [2*MAXM*512-1:0] ru_md;
            /* verilator lint_on UNUSEDSIGNAL */
            always @(posedge clk) begin
                ru_mv  <= rx_mv;
                ru_mh  <= rx_mh;
                ru_md  <= rx_md;
            end
            // The 68B TX runs in two parts. The packer (cxl_flit68_tx) fills a two-entry buffer
            // of prepared protocol flits (and the all-data flits they owe) from the class queues
            // whenever the buffer has room, independent of the flit-kind decision; the builder
            // (cxl_flit68_txout) makes the flit the decision picks: the buffer head with its
            // credit fields and Ak, an LLCRD or a control flit. Messages wait in the buffer while
            // a retry, an LLCRD or a full replay buffer holds them back; their TX credits are
            // taken when they are packed.
            wire [5:0]   pk_take;
            wire [511:0] pk_new;
            wire         pk_new_v, pk_new_adf;
            reg          pk_v0, pk_v1;          // buffer entries 0 (head) and 1 valid
            reg  [511:0] pk_f0, pk_f1;
            reg          pk_adf0, pk_adf1;      // entry is an all-data flit
            reg          pk_msg0, pk_msg1;      // entry carries messages
            wire         pk_room = !pk_v1;
            wire         pk_push = pk_room && pk_new_v;
            wire         pk_pop;                // the head is sent (fmt_sent && pk_send)
            // the packer packs from what is available; its flit and takes count only with room
            cxl_flit68_tx #(.ROLE(ROLE)) u_tx (
                .clk(clk), .rst(rst), .msg_avail(q_valid & crd_avail & TX_SUP),
                .msg_hdr(q_hdr), .msg_data(q_data), .msg_take(pk_take), .fire(pk_room),
                .flit(pk_new), .flit_valid(pk_new_v), .busy_adf(pk_new_adf));
            assign txq_take = pk_take & {6{pk_room}};
            always @(posedge clk) begin
                if (rst) begin
                    pk_v0 <= 1'b0;
                    pk_v1 <= 1'b0;
                end else if (pk_pop) begin
                    if (pk_v1) pk_v1 <= 1'b0;            // (no push: no room)
                    else       pk_v0 <= pk_push;
                end else if (pk_push) begin
                    if (pk_v0) pk_v1 <= 1'b1;
                    else       pk_v0 <= 1'b1;
                end
            end
            always @(posedge clk) begin
                if (pk_pop ? (pk_v1 || pk_push) : (pk_push && !pk_v0)) begin
                    pk_f0   <= (pk_pop && pk_v1) ? pk_f1   : pk_new;
                    pk_adf0 <= (pk_pop && pk_v1) ? pk_adf1 : pk_new_adf;
                    pk_msg0 <= (pk_pop && pk_v1) ? pk_msg1 : (pk_take != 6'd0);
                end
                if (!pk_pop && pk_push && pk_v0) begin
                    pk_f1   <= pk_new;
                    pk_adf1 <= pk_new_adf;
                    pk_msg1 <= (pk_take != 6'd0);
                end
            end
            // An all-data flit is packed in the cycle after the flit that owes it (no credits or
            // messages needed, and that flit left room), so it is the head when that flit has
            // gone: the decision sends it first (next_is_adf).
            assign fmt_busy_adf = pk_v0 && pk_adf0;
            assign pk_head_v    = pk_v0;
            assign pk_head_msg  = pk_msg0;
            wire [2:0]     crd_mem;
            // the builder's own account of what the flit it built returns (the link forms the
            // same from its flags below, a shorter path; tb/formal checks they agree)
            wire           crd_used, ack_all, ack_8;
            assign fmt_retry = fmt_retryable;
            wire unused_68 = &{1'b0, fmt_avail, fmt_crd_pend, fmt_ack_pend, crd_used, ack_all, ack_8,
                               pk_send, fmt_sent};
            cxl_flit68_txout u_txo (
                .clk(clk), .rst(rst), .ctl_kind(fmt_kind), .pk_send(pk_send), .pk_flit(pk_f0),
                .pk_adf(pk_adf0), .crd_pend(crd_pend), .crd_en(crd_en), .ack_pend(ack_pend),
                .ack_en(ack_en), .ctl_eseq(fmt_eseq), .ctl_num_retry(fmt_nr), .ctl_empty(fmt_empty),
                .fire(fmt_fire), .flit(fmt_flit), .flit_retryable(fmt_retryable),
                .crd_mem(crd_mem), .crd_used(crd_used), .ack_all(ack_all), .ack_8(ack_8));
            // What the flit loaded does, from the registered flags: the decision above written
            // flat for the strobes that update the counts (the same outcomes: the formatter's
            // K_NONE flit in the normal branch is the prepared head or an LLCRD; the owed
            // all-data flit from the prepared buffer returns nothing).
            wire seq_want = seq_on || rrsm_ack || lrsm == S_LLRREQ;
            wire o_adfpk  = !link_fatal && next_is_adf && !replaying;        // owed ADF, new
            wire o_init   = !link_fatal && !next_is_adf && !seq_want && !replaying && !init_sent &&
                            rx_seen_good;
            wire o_norm   = !link_fatal && !next_is_adf && !seq_want && !replaying && init_sent &&
                            nf_ge2;                                           // fmt_kind K_NONE
            wire msg_go   = nf_ge4 && !(ack_force && ack_nz);                 // msg_ok
            wire ack_go   = ack_force || ack_ge8;                             // ack_en
            reg  crd_nz;                                                      // crd_pend != 0
            wire pk_go    = pk_v0 && (!pk_msg0 || msg_go);                    // pk_send
            wire llcrd    = (nf_ge3 && crd_nz) || (ack_go && ack_nz);         // an LLCRD has content
            assign rb_write = load && (o_adfpk || o_init || (o_norm && (pk_go || llcrd)));
            assign pk_pop   = load && (o_adfpk || (o_norm && pk_go));
            wire crd_ret  = load && o_norm && nf_ge3 && (pk_go || llcrd);     // credit fields sent
            wire a_all    = load && o_norm && !pk_go && ack_go && llcrd;      // LLCRD: all acks
            wire a_8      = load && o_norm && pk_go && ack_ge8;               // Ak: 8 acks
            wire a_keep   = !a_all && !a_8;
            // next counts formed for each outcome from the registers, the strobes pick last
            wire [7:0] ack_inc = ack_pend + {7'd0, ru_commit};
            wire [7:0] ack_m8  = ack_pend - 8'd8 + {7'd0, ru_commit};
            assign ack_pend_nx = ({7'd0, ru_commit} & {8{a_all}}) | (ack_m8 & {8{a_8}}) |
                                 (ack_inc & {8{a_keep}});   // AND-OR pick (see g_crd)
            assign ack_ret = a_8 || (a_all && ack_nz);
            // the ack flags of the next count, per outcome, picked the same way
            assign ack_nz_nx  = (ru_commit & a_all) | ((ack_m8 != 8'd0) & a_8) |
                                ((ack_inc != 8'd0) & a_keep);
            assign ack_ge8_nx = ((ack_m8 >= 8'd8) & a_8) | ((ack_inc >= 8'd8) & a_keep);
            assign ack_gef_nx = (ACK_FORCE == 1 && ru_commit && a_all) |
                                ((ack_m8 >= 8'(ACK_FORCE)) & a_8) | ((ack_inc >= 8'(ACK_FORCE)) & a_keep);
            // RX queue pops, registered: the credit they free is owed from the next cycle
            reg [5:0] rx_deq;
            always @(posedge clk) begin
                if (rst) rx_deq <= 6'd0;
                else     rx_deq <= rx_valid & rx_ready;
            end
            // crd_pend != 0 of the next counts: with and without credit fields sent (formed from
            // the registers per class, g_crd), crd_ret picks
            wire [5:0] nz_keep, nz_ret;
            always @(posedge clk) begin
                if (rst) crd_nz <= (RX_SUP != 6'd0);             // initial return of all buffers
                else     crd_nz <= (crd_ret && |nz_ret) || (!crd_ret && |nz_keep);
            end
            // A credit field returns the largest power of two <= n, at most 64, of the class it
            // picks: what is left is n without its highest set bit, or n - 64 from 64 on.
            for (g = 0; g < 6; g = g + 1) begin : g_crd
                wire [7:0] n    = crd_pend[g*8 +: 8];
                wire [7:0] dlv  = {7'd0, rx_deq[g]};
                // bit k: some bit above k is set (n[5:k+1] != 0), so bit k is not the highest
                wire [5:0] abv  = {1'b0, n[5], |n[5:4], |n[5:3], |n[5:2], |n[5:1]};
                wire [5:0] low  = n[5:0] & abv;              // n[5:0] without its highest set bit
                wire [7:0] left = (n[7:6] != 2'd0) ? {n[7:6] - 2'd1, n[5:0]} : {2'd0, low};
                wire       pick = (g >= 3) ? crd_mem[g % 3] : !crd_mem[g % 3];
                wire [7:0] keep = n + dlv;
                wire [7:0] rest = left + dlv;
                wire       take = crd_ret && pick;
                // an AND-OR pick: yosys shares two adds behind a mux ($mux) of their inputs
                // (opt_share), which would put the late pick before the adder
                assign crd_pend_nx[g*8 +: 8] = (rest & {8{take}}) | (keep & {8{!take}});
                assign nz_keep[g] = keep != 8'd0;
                assign nz_ret[g]  = pick ? (rest != 8'd0) : (keep != 8'd0);
            end
            // the formatter leaves the CRC field zero: it is computed from the stage 1 flit (a
            // new flit or a replayed one, both stored without it) in stage 2
            wire [15:0] crc16;
            cxl_crc16_68b u_crc (.data(out_flit[511:0]), .crc(crc16));
            assign out_crc = {crc16, 512'd0} ^ out_seq_term;
            // SEQ_CRC: the CRC bits of seq_term(eseq), registered with eseq (cxl_flit68_rx
            // compares the judged flit's CRC residual with them): the term of eseq + 1 and the
            // wrap compare formed in parallel, as eseq_inc is
            wire [15:0] eseq_t;
            if (SEQ_CRC != 0) begin : g_seq
                reg  [15:0]       term_q;
                wire [FLIT_W-1:0] t_p1  = seq_term(eseq + 8'd1);
                wire [FLIT_W-1:0] t_one = seq_term(8'd1);
                wire              wraps = ({1'b0, eseq} + 9'd1 >= wrap);
                wire unused_t = &{1'b0, t_p1[511:0], t_one[511:0]};   // the term is in the CRC field
                always @(posedge clk) begin
                    if (rst) term_q <= 16'd0;
                    else if (rx_commit)
                        term_q <= (rx_ctl_kind == K_INIT) ? ((rx_ctl_eseq == 8'd0) ? 16'd0 : t_one[512 +: 16])
                                                          : (t_p1[512 +: 16] & {16{!wraps}});
                end
                assign eseq_t = term_q;
            end else begin : g_noseq
                assign eseq_t = 16'd0;
            end
            wire rx_seq_chk;
            assign rx_seqd = (SEQ_CRC != 0) && rx_seq_chk;
            assign rx_pay_o = 1'b0;   // (256B payload type: g_256)
            wire unused_pay = rx_pay_o;
            cxl_flit68_rx #(.ROLE(ROLE), .PBR(PBR), .MAXM(MAXM), .SEQ_CRC(SEQ_CRC)) u_rx (
                .clk(clk), .rst(rst), .flit_valid(rx_flit_valid), .flit(rx_flit),
                .commit(rx_commit), .in_seq(in_seq), .crc_term(eseq_t), .valid(rx_fv),
                .crc_ok(rx_crc_ok),
                .retryable(rx_retryable), .ctl_kind(rx_ctl_kind), .ctl_eseq(rx_ctl_eseq),
                .ctl_num_retry(rx_ctl_nr), .ctl_empty(rx_ctl_empty), .ack_cnt(rx_ack),
                .crd_cnt(rx_crd), .msg_valid(rx_mv), .msg_hdr(rx_mh), .msg_data(rx_md),
                .proto_err(rx_proto_err), .seq_chk(rx_seq_chk));
            // RX class buffers: banked FIFOs, one single-write bank per message a flit can bring
            for (g = 0; g < 6; g = g + 1) begin : g_rxq
                localparam integer DW = (g == 2 || g == 5) ? 512 : 0;
                localparam integer DI = (g == 5) ? 1 : 0;
                wire [MAXM-1:0] wv = ru_commit ? ru_mv[g*MAXM +: MAXM] : {MAXM{1'b0}};
                wire [128+DW-1:0] head;
                /* verilator lint_off UNUSEDSIGNAL */
                wire [$clog2(RX_DEPTH+1)-1:0] b_free, b_cnt;
                /* verilator lint_on UNUSEDSIGNAL */
                if (DW != 0) begin : g_d
                    // 68B: a data message completes at most once per flit (lane 0)
                    wire unused_wv = &{1'b0, wv[MAXM-1:1]};
                    fifo_bank #(.WIDTH(640), .DEPTH(RX_DEPTH), .W(1)) u_q (
                        .clk(clk), .rst(rst), .in_valid(wv[0]),
                        .in_data({ru_md[(DI*MAXM)*512 +: 512], ru_mh[(g*MAXM)*128 +: 128]}),
                        .free(b_free), .out_valid(rx_valid[g]), .out_ready(rx_ready[g]),
                        .out_data(head), .count(b_cnt), .overflow(rxb_ovf[g]));
                    assign rx_data[DI*512 +: 512] = head[128 +: 512];
                end else begin : g_h
                    fifo_bank #(.WIDTH(128), .DEPTH(RX_DEPTH), .W(MAXM)) u_q (
                        .clk(clk), .rst(rst), .in_valid(wv), .in_data(ru_mh[g*MAXM*128 +: MAXM*128]),
                        .free(b_free), .out_valid(rx_valid[g]), .out_ready(rx_ready[g]),
                        .out_data(head), .count(b_cnt), .overflow(rxb_ovf[g]));
                end
                assign rx_hdr[g*128 +: 128] = head[127:0];
            end
        end else begin : g_256
            wire [6*5-1:0]        rx_cnt;   // messages per class, their runs and data lines
            wire [6*MAXM-1:0]     rx_rv;
            wire [6*MAXM*3-1:0]   rx_rn;
            wire [6*MAXM*124-1:0] rx_rb;
            wire [2*3*512-1:0]    rx_ln;
            // RX stage (timing, as g_68's): the verdict on a received flit and the state the next
            // flit is checked against act in the cycle the RX pipeline presents it; what it brings
            // (messages for the RX queues, TX credits, acks for the free count, the ack it is
            // owed) is registered with rx_commit and applied one cycle later (ru_commit).
            reg  [6*5-1:0]        ru_cnt;
            reg  [6*MAXM-1:0]     ru_rv;
            reg  [6*MAXM*3-1:0]   ru_rn;
            reg  [6*MAXM*124-1:0] ru_rb;
            reg  [2*3*512-1:0]    ru_ln;
            always @(posedge clk) begin
                ru_cnt <= rx_cnt;
                ru_rv  <= rx_rv;
                ru_rn  <= rx_rn;
                ru_rb  <= rx_rb;
                ru_ln  <= rx_ln;
            end
            wire [5:0]            fmt_take;
            /* verilator lint_off UNUSEDSIGNAL */  // the counts below are picked, not subtracted
            wire [6*8-1:0]        fmt_crd_take;
            wire [7:0]            fmt_ack_take;
            /* verilator lint_on UNUSEDSIGNAL */
            assign txq_take = fmt_take & {6{fmt_fire}};
            // What the flit loaded does, from the registered flags (as g_68), not read back from
            // the formatter: its K_NONE flit comes only from the decision's normal branch (in
            // 256B there is no owed all-data flit, and INIT.Param is sent as a NOP), and it is a
            // payload flit, retryable, when it returns credits (crd_en, some pending), returns
            // acks (ack_en, some pending) or carries messages (msg_ok, a class head available).
            // A forced ack that holds the messages back (msg_ok low) is itself a payload, so
            // msg_ok's ack term drops out: retryable = the formatter's flit_retryable.
            wire seq_want = seq_on || rrsm_ack || lrsm == S_LLRREQ;
            wire o_norm   = !link_fatal && !next_is_adf && !seq_want && !replaying && init_sent &&
                            nf_ge2;                                           // fmt_kind K_NONE
            wire ack_go   = ack_force || ack_ge8;                             // ack_en
            reg  crd_nz;                                                      // crd_pend != 0
            wire av_any   = ((q_valid & crd_avail & TX_SUP) != 6'd0);         // a head to place
            wire pay      = (nf_ge3 && crd_nz) || (ack_go && ack_nz) || (nf_ge4 && av_any);
            assign rb_write  = load && o_norm && pay;
            assign fmt_retry = o_norm && pay;
            wire crd_ret  = load && o_norm && nf_ge3;                         // credit fields sent
            // a flit sent with acks takes all of ack_pend (nothing to take when it is 0, so the
            // strobe needs no payload term: ack_nz makes the flit a payload)
            wire a_all    = load && o_norm && ack_go && ack_nz;
            // Next counts formed for each outcome from the registers, the strobes pick last
            // (AND-OR, as g_68). (kept: the late pick stays after the adds, see nf_keep)
            (* keep *) wire [7:0] ack_inc = ack_pend + {7'd0, ru_commit};
            assign ack_pend_nx = ({7'd0, ru_commit} & {8{a_all}}) | (ack_inc & {8{!a_all}});
            assign ack_ret     = a_all;
            // the ack flags of the next count, per outcome, picked the same way
            assign ack_nz_nx  = (ru_commit & a_all) | ((ack_inc != 8'd0) & !a_all);
            assign ack_ge8_nx = (ack_inc >= 8'd8) & !a_all;
            assign ack_gef_nx = (ACK_FORCE == 1 && ru_commit && a_all) |
                                ((ack_inc >= 8'(ACK_FORCE)) & !a_all);
            // crd_pend != 0 of the next counts: with and without credit fields sent (formed from
            // the registers per class, g_crd), crd_ret picks; an RX pop this cycle owes a credit
            // whatever was returned, so it is ORed in last
            wire [5:0] nz_keep, nz_ret;
            always @(posedge clk) begin
                if (rst) crd_nz <= (RX_SUP != 6'd0);             // initial return of all buffers
                else     crd_nz <= ((rx_valid & rx_ready) != 6'd0) || (crd_ret && |nz_ret) ||
                                   (!crd_ret && |nz_keep);
            end
            // The formatter's CRD field f returns, for its cache class ci or its mem class cm
            // (whichever has more pending, ci on a tie), the largest of 1/4/8/12/16 not above the
            // count (nothing for 0); with crd_en low it returns nothing. `rest` is the count after
            // that return, formed from the register beside `keep`.
            for (g = 0; g < 6; g = g + 1) begin : g_crd
                localparam integer CI = (g == 0 || g == 3) ? 0 : (g == 2 || g == 5) ? 2 : 1;
                localparam integer CM = CI + 3;
                wire [7:0] n    = crd_pend[g*8 +: 8];
                wire [7:0] dlv  = {7'd0, rx_valid[g] & rx_ready[g]};
                wire [7:0] ret  = (n >= 8'd16) ? 8'd16 : (n >= 8'd12) ? 8'd12 : (n >= 8'd8) ? 8'd8 :
                                  (n >= 8'd4) ? 8'd4 : {7'd0, n != 8'd0};
                wire       pick = (g >= 3) ? (crd_pend[CI*8 +: 8] < crd_pend[CM*8 +: 8])
                                           : (crd_pend[CI*8 +: 8] >= crd_pend[CM*8 +: 8]);
                (* keep *) wire [7:0] keep = n + dlv;
                (* keep *) wire [7:0] rest = n - ret + dlv;
                wire       take = crd_ret && pick;
                assign crd_pend_nx[g*8 +: 8] = (rest & {8{take}}) | (keep & {8{!take}});
                // without the pop (ORed in at crd_nz): n, or n after this field's return
                assign nz_keep[g] = n != 8'd0;
                assign nz_ret[g]  = pick ? (n != ret) : (n != 8'd0);
            end
            assign pk_head_v   = 1'b0;
            assign pk_head_msg = 1'b0;
            // the formatter's own flit_retryable is the same function of its inputs as fmt_retry
            // (tb/formal does not cover 256B; the lockstep check is in rtl/README-timing.md)
            wire unused_256 = &{1'b0, pk_send, fmt_avail, fmt_retryable, fmt_sent, fmt_crd_pend,
                                fmt_ack_pend};
            // the formatter's own CRC (its `flit`) is left unused: stage 2 adds it below. It places
            // messages from the class heads' availability; the decision's msg_ok gates them late.
            // Its message enable, credits and acks are gated by the flags alone (msg_go = msg_ok,
            // credits with crd_en, acks with ack_en of the normal branch): the formatter uses them
            // only with ctl_kind NONE, i.e. in that branch (o_norm), so the decision's other
            // branches need not gate them too.
            wire msg_go = nf_ge4 && !(ack_force && ack_nz);
            /* verilator lint_off PINCONNECTEMPTY */
            cxl_flit256_tx #(.ROLE(ROLE), .PBR(PBR)) u_tx (
                .clk(clk), .rst(rst), .msg_avail(q_valid & crd_avail & TX_SUP), .msg_en(msg_go),
                .msg_hdr(q_hdr), .msg_data(q_data),
                .msg_take(fmt_take), .crd_pend(crd_pend & {48{nf_ge3}}), .crd_take(fmt_crd_take),
                .ack_pend(ack_pend & {8{ack_go}}), .ack_take(fmt_ack_take), .ctl_kind(fmt_kind),
                .ctl_eseq(fmt_eseq), .ctl_num_retry(fmt_nr), .ctl_empty(fmt_empty),
                .fire(fmt_fire), .flit(), .flit_nocrc(fmt_flit), .flit_retryable(fmt_retryable),
                .busy_adf());
            /* verilator lint_on PINCONNECTEMPTY */
            assign fmt_busy_adf = 1'b0;   // no all-data flits in 256B
            // as in 68B, stage 1 (and the replay buffer) hold the flit with its CRC field zero and
            // stage 2 adds the CRC of its 242 header and slot bytes
            wire [63:0] crc64;
            cxl_crc64_256b u_crc (.data(out_flit[1935:0]), .crc(crc64));
            assign out_crc    = {48'd0, crc64, 1936'd0} ^ out_seq_term;
            // The RX pipeline takes the flit as received; its outputs describe the flit of 4
            // cycles earlier (rx_fv), whose CRC field holds the sequence term of the ESeq it is
            // checked against now (SEQ_CRC, payload flits: rx_pay_o), so that term is an input of
            // the output stage. The term of the current eseq is a register (term_q) that follows
            // eseq (0 at reset, the term of eseq_inc on rx_commit, the only eseq change in this
            // mode), so the CRC check does not wait for the term's XOR tree over eseq.
            wire [63:0] rx_term;
            if (SEQ_CRC != 0) begin : g_seq
                reg  [63:0]       term_q;
                wire [FLIT_W-1:0] t_inc = seq_term(eseq_inc);
                wire unused_t = &{1'b0, t_inc[FLIT_W-1:CRC_LSB+64], t_inc[CRC_LSB-1:0]};
                always @(posedge clk) begin
                    if (rst) term_q <= 64'd0;
                    else if (rx_commit) term_q <= t_inc[CRC_LSB +: 64];
                end
                assign rx_term = term_q;
            end else begin : g_noseq
                assign rx_term = 64'd0;
            end
            assign rx_seqd = (SEQ_CRC != 0) && rx_pay_o;   // payload flits are checked against ESeq
            cxl_flit256_rx #(.ROLE(ROLE), .PBR(PBR), .MAXM(MAXM)) u_rx (
                .clk(clk), .rst(rst), .flit_valid(rx_flit_valid), .flit(rx_flit),
                .out_valid(rx_fv), .pay_type(rx_pay_o), .crc_seq(rx_term),
                .commit(rx_commit), .crc_ok(rx_crc_ok),
                .retryable(rx_retryable), .ctl_kind(rx_ctl_kind), .ctl_eseq(rx_ctl_eseq),
                .ctl_num_retry(rx_ctl_nr), .ctl_empty(rx_ctl_empty), .ack_cnt(rx_ack),
                .crd_cnt(rx_crd), .msg_cnt(rx_cnt), .run_valid(rx_rv), .run_n(rx_rn),
                .run_bits(rx_rb), .line(rx_ln), .proto_err(rx_proto_err));
            // RX class buffers: runs and data lines in banked FIFOs
            cxl_flit256_rxq #(.ROLE(ROLE), .PBR(PBR), .MAXM(MAXM), .DEPTH(RX_DEPTH)) u_rxq (
                .clk(clk), .rst(rst), .wr(ru_commit), .msg_cnt(ru_cnt), .run_valid(ru_rv),
                .run_n(ru_rn), .run_bits(ru_rb), .line(ru_ln), .out_valid(rx_valid),
                .out_ready(rx_ready), .out_hdr(rx_hdr), .out_data(rx_data), .overflow(rxb_ovf));
        end
    endgenerate

    // ------------------------------------------------------------------ TX flit selection
    wire s2_load  = !tx_v || tx_flit_ready;       // stage 2 takes stage 1's flit
    wire load     = !out_valid || s2_load;        // stage 1 takes a new or replayed flit
    wire fire_out = tx_v && tx_flit_ready;
    wire [FLIT_W-1:0] rb_rd = rb_mem[rd_ptr];
    wire next_is_adf = replaying ? rp_adf : fmt_busy_adf;
    wire ack_force = ack_frc || !nf_ge3;
    reg        use_replay;
    reg        seq_step;         // this load sends a frame/req/ack of the control sequence
    reg        seq_last;         // ... and it is the final Req/Ack flit
    reg        start_ack;        // the sequence being sent is an Ack sequence

    always @* begin
        fmt_kind     = K_IDLE;
        fmt_eseq     = 8'd0;
        fmt_nr       = 5'd0;
        fmt_empty    = 1'b0;
        fmt_avail    = 6'd0;
        msg_ok       = 1'b0;
        crd_en       = 1'b0;
        ack_en       = 1'b0;
        pk_send      = 1'b0;
        fmt_crd_pend = 48'd0;
        fmt_ack_pend = 8'd0;
        use_replay   = 1'b0;
        seq_step     = 1'b0;
        seq_last     = 1'b0;
        start_ack    = seq_on ? seq_is_ack : rrsm_ack;
        if (link_fatal) begin
            fmt_kind = K_IDLE;
        end else if (next_is_adf) begin
            // The partner expects an all-data flit next in the stream: nothing may precede it.
            if (replaying) use_replay = 1'b1;
            else begin
                fmt_kind = K_NONE;
                pk_send  = 1'b1;                     // 68B: the head of the prepared buffer
            end
        end else if (seq_on || rrsm_ack || lrsm == S_LLRREQ) begin
            seq_step = 1'b1;
            if (seq_cnt != NFR) begin
                fmt_kind = K_FRAME;
            end else begin
                seq_last = 1'b1;
                if (start_ack) begin
                    fmt_kind  = K_ACK;
                    fmt_eseq  = seq_on ? ack_eseq_l : ack_eseq;
                    fmt_nr    = seq_on ? ack_nr_l : ack_nr;
                    // Empty: nothing to replay from the requested ESeq (models/cxl/link.py). The
                    // buffer itself may still hold flits the requester has but not yet acked (a
                    // single pending ack is never forced out), so num_free is not the test.
                    fmt_empty = ((seq_on ? ack_eseq_l : ack_eseq) == 8'(wr_ptr));
                end else begin
                    fmt_kind = K_REQ;
                    fmt_eseq = eseq;
                    fmt_nr   = num_retry;
                end
            end
        end else if (replaying) begin
            use_replay = 1'b1;
        end else if (!init_sent) begin
            if (rx_seen_good) begin
                fmt_kind = K_INIT;
                fmt_eseq = DEPTH8 - 8'd1;            // our LLR Wrap Value
            end
        end else if (nf_ge2) begin
            fmt_kind = K_NONE;
            // Messages need credits and room for their rollover; an ack forced out stops them
            // for a flit so that an LLCRD carries it.
            msg_ok = nf_ge4 && !(ack_force && ack_nz);
            if (msg_ok) fmt_avail = q_valid & crd_avail & TX_SUP;
            ack_en = ack_force || ack_ge8;
            fmt_ack_pend = ack_en ? ack_pend : 8'd0;
            crd_en = nf_ge3;
            if (crd_en) fmt_crd_pend = crd_pend;
            // 68B: the prepared head goes unless it carries messages that may not (a head with
            // only the chunks a previous flit owes needs no more room than an LLCRD)
            pk_send = pk_head_v && (!pk_head_msg || msg_ok);
        end
    end

    assign fmt_fire      = load && !use_replay;
    assign dbg_tx_replay = load && use_replay;
    // the flit loaded is stored in the replay buffer (= fmt_fire && fmt_retryable; both modes form
    // it from the flags directly, g_68 / g_256)
    wire   rb_write;

    function automatic [RA_W-1:0] ptr_inc(input [RA_W-1:0] p);
        ptr_inc = ({{(32-RA_W){1'b0}}, p} == REPLAY_DEPTH - 1) ? {RA_W{1'b0}} : p + 1'b1;
    endfunction

    always @(posedge clk) begin
        if (rb_write) rb_mem[wr_ptr] <= fmt_flit;
        if (load) begin
            out_flit <= use_replay ? rb_rd : fmt_flit;
            // a retryable flit carries sequence number wr_ptr when new, rd_ptr when replayed
            out_seqd <= use_replay || fmt_retry;
            out_seq  <= use_replay ? 8'(rd_ptr) : 8'(wr_ptr);
        end
        if (s2_load) tx_q <= out_flit ^ out_crc;
    end

    // ------------------------------------------------------------------ RX acceptance
    wire rx_good     = rx_fv && rx_crc_ok && !rx_proto_err;
    wire rx_bad      = rx_fv && !rx_crc_ok;
    // SEQ_CRC: retryable flits discarded while a retry is under way carry later sequence numbers
    // and fail the check by design; they are not counted as CRC errors.
    wire rx_bad_cnt  = rx_bad && (!rx_seqd || in_seq);
    // 68B: INIT.Param must be the first retryable flit and come once. 256B formatters carry no
    // INIT.Param (link256 emits a NOP for it): the first CRC-clean flit counts as received INIT.
    wire rx_order_err = (FLIT_MODE == 0) && rx_good && in_seq && rx_retryable &&
                        ((rx_ctl_kind == K_INIT) ? init_rcvd : !init_rcvd);
    assign rx_commit = rx_good && in_seq && rx_retryable && !rx_order_err;
    wire [3:0] frame_cnt1 = {1'b0, frame_cnt} + 4'd1;
    wire framed      = (frame_cnt1 > {1'b0, NFR});          // >= NFRAMES consecutive Frames
    wire rx_req      = rx_good && !link_fatal && rx_ctl_kind == K_REQ && framed;
    wire rx_ack_ok   = rx_good && !link_fatal && rx_ctl_kind == K_ACK && framed &&
                       lrsm == S_LOCAL_IDLE && (FLIT_MODE != 0 || rx_ctl_nr == last_req_nr);
    // (256B RETRY.Ack NOPs carry only the ESeq echo: no NUM_RETRY to compare)
    wire proto_evt   = (rx_fv && rx_proto_err) || rx_order_err;

    assign dbg_rx_overflow = |rxb_ovf;

    // ------------------------------------------------------------------ sequential control
    wire [8:0] free_add  = {1'b0, num_free} + {1'b0, rx_upd_ack};
    // next free count with and without a flit stored this cycle, each capped at the depth: the
    // store (late, after the flit-kind decision) only picks one
    wire [8:0] free_sub  = ({1'b0, num_free} - 9'd1) + {1'b0, rx_upd_ack};
    // (kept: ABC, which takes every submodule output as arriving at time 0, otherwise folds the
    // late store into the adds and the cap)
    (* keep *) wire [7:0] nf_keep  = (free_add > {1'b0, DEPTH8}) ? DEPTH8 : free_add[7:0];
    (* keep *) wire [7:0] nf_store = (free_sub > {1'b0, DEPTH8}) ? DEPTH8 : free_sub[7:0];
    // The flags of the next count, from the registers, not from the sums: x + a >= k is true
    // when x >= j and a >= k - j for some j in 0..k (small compares with constants, no carry
    // chain). The cap at the depth (>= 8) does not change a flag up to 5. The store case is
    // x - 1 + a, i.e. x + a >= k + 1, except for x = a = 0 where the 9-bit sum wraps and the cap
    // makes it the depth (a store never happens with no free entry; kept exact anyway).
    function automatic sum_ge(input [7:0] x, input [7:0] a, input integer k);
        integer j;
        begin
            sum_ge = 1'b0;
            for (j = 0; j <= k; j = j + 1)
                if (x >= 8'(j) && a >= 8'(k - j)) sum_ge = 1'b1;
        end
    endfunction
    wire       nf_z     = (num_free == 8'd0) && (rx_upd_ack == 8'd0);
    (* keep *) wire [2:0] nf_ge_k = {sum_ge(num_free, rx_upd_ack, 4), sum_ge(num_free, rx_upd_ack, 3),
                                     sum_ge(num_free, rx_upd_ack, 2)};
    (* keep *) wire [2:0] nf_ge_s = {sum_ge(num_free, rx_upd_ack, 5), sum_ge(num_free, rx_upd_ack, 4),
                                     sum_ge(num_free, rx_upd_ack, 3)} | {3{nf_z}};

    function automatic [15:0] sat_inc(input [15:0] v);
        sat_inc = (v == 16'hFFFF) ? v : v + 16'd1;
    endfunction

    // Next replay flags, for each way the pointers move (the late strobes pick one). rb_write
    // happens only while not replaying (a replay or a control sequence is sent then), so a new
    // flit moves both pointers and leaves rd_ptr == wr_ptr; the entry written is wr_ptr, never
    // the next rd_ptr (REPLAY_DEPTH >= 8).
    wire [RA_W-1:0] rd_inc  = ptr_inc(rd_ptr);
    wire [RA_W-1:0] ack_e   = RA_W'(seq_on ? ack_eseq_l : ack_eseq);
    wire            rp_ack  = load && seq_step && seq_last && start_ack;   // replay from ack_e
    wire            rp_adv  = !rp_ack && ((load && use_replay) || (rb_write && !replaying));
    wire            rp_wadv = !rp_ack && !(load && use_replay) && rb_write && replaying;
    wire            rp_keep = !rp_ack && !rp_adv && !rp_wadv;
    wire            rp_nx   = (rp_ack && ack_e != wr_ptr) |
                              (rp_adv && (rb_write ? replaying : rd_inc != wr_ptr)) |
                              (rp_wadv && rd_ptr != ptr_inc(wr_ptr)) | (rp_keep && replaying);
    wire            rp_adf_nx = (rp_ack && rb_adf[ack_e]) | (rp_adv && rb_adf[rd_inc]) |
                                ((rp_wadv || rp_keep) && rp_adf);
    // retry timeout: counts transmitted flits in LOCAL_IDLE and restarts when a RETRY.Req is sent,
    // which is the only way into LOCAL_IDLE; it is read (to_hit) only in LOCAL_IDLE, so what it
    // holds after the LRSM leaves (an Ack taken, or the timeout) is never used and needs no
    // restart from the received flit's verdict. +1 formed from the register, the late fire_out picks
    wire        to_hit  = {16'd0, timeout} >= TIMEOUT_FLITS;
    wire        to_step = (lrsm == S_LOCAL_IDLE) && fire_out;
    wire        to_req  = load && seq_step && seq_last && !start_ack;
    wire [15:0] to_inc  = timeout + 16'd1;

    always @(posedge clk) begin
        if (rst) begin
            lrsm         <= S_NORMAL;
            num_retry    <= 5'd0;
            last_req_nr  <= 5'd0;
            timeout      <= 16'd0;
            eseq         <= 8'd0;
            wrap         <= WRAP_RESET;
            init_sent    <= 1'b0;
            init_rcvd    <= 1'b0;
            rx_seen_good <= 1'b0;
            ack_pend     <= 8'd0;
            ack_timer    <= 8'd0;
            for (c = 0; c < 6; c = c + 1)
                crd_pend[c*8 +: 8] <= RX_SUP[c] ? RXD8 : 8'd0;   // initial return of all buffers
            frame_cnt    <= 3'd0;
            rrsm_ack     <= 1'b0;
            ack_eseq     <= 8'd0;
            ack_nr       <= 5'd0;
            seq_on       <= 1'b0;
            seq_is_ack   <= 1'b0;
            seq_cnt      <= 3'd0;
            ack_eseq_l   <= 8'd0;
            ack_nr_l     <= 5'd0;
            wr_ptr       <= {RA_W{1'b0}};
            rd_ptr       <= {RA_W{1'b0}};
            rb_adf       <= {REPLAY_DEPTH{1'b0}};
            replaying    <= 1'b0;
            rp_adf       <= 1'b0;
            num_free     <= DEPTH8;
            {nf_ge4, nf_ge3, nf_ge2} <= 3'b111;      // DEPTH8 >= 8
            out_valid    <= 1'b0;
            tx_v         <= 1'b0;
            link_fatal   <= 1'b0;
            stat_crc_err <= 16'd0;
            stat_retry   <= 16'd0;
            stat_proto_err <= 16'd0;
        end else begin
            // ---- output stage / replay buffer
            if (load) out_valid <= 1'b1;
            if (s2_load) tx_v <= out_valid;
            if (load && use_replay) rd_ptr <= ptr_inc(rd_ptr);
            if (rb_write) rb_adf[wr_ptr] <= fmt_busy_adf && fmt_kind == K_NONE;
            replaying <= rp_nx;
            rp_adf    <= rp_adf_nx;
            if (rb_write) wr_ptr <= ptr_inc(wr_ptr);
            if (rb_write && !replaying) rd_ptr <= ptr_inc(rd_ptr);  // RdPtr == WrPtr: new flits
            // free entries: -1 per stored flit, + acks received (never above the depth)
            num_free <= (nf_store & {8{rb_write}}) | (nf_keep & {8{!rb_write}});   // AND-OR pick
            {nf_ge4, nf_ge3, nf_ge2} <= (nf_ge_s & {3{rb_write}}) | (nf_ge_k & {3{!rb_write}});
            if (fmt_fire && fmt_kind == K_INIT) init_sent <= 1'b1;

            // ---- control sequences (Frames + Req/Ack)
            if (load && seq_step) begin
                if (!seq_on) begin
                    seq_on     <= 1'b1;
                    seq_is_ack <= rrsm_ack;
                    ack_eseq_l <= ack_eseq;
                    ack_nr_l   <= ack_nr;
                end
                seq_cnt <= seq_cnt + 3'd1;
                if (seq_last) begin
                    seq_on  <= 1'b0;
                    seq_cnt <= 3'd0;
                    if (start_ack) begin
                        rrsm_ack <= 1'b0;
                        rd_ptr   <= RA_W'(seq_on ? ack_eseq_l : ack_eseq);  // replay from ESeq
                    end else begin
                        lrsm       <= S_LOCAL_IDLE;
                        last_req_nr <= num_retry;
                        num_retry  <= num_retry + 5'd1;
                        stat_retry <= sat_inc(stat_retry);
                    end
                end
            end
            if (rx_req) begin
                rrsm_ack <= 1'b1;
                ack_eseq <= rx_ctl_eseq;
                ack_nr   <= rx_ctl_nr;
            end

            // ---- LRSM
            timeout <= (to_inc & {16{to_step}}) | (timeout & {16{!to_step && !to_req}});
            case (lrsm)
                S_NORMAL: if (rx_bad && !link_fatal) lrsm <= S_LLRREQ;
                S_LLRREQ: if ({27'd0, num_retry} >= MAX_RETRY) link_fatal <= 1'b1;
                default: begin
                    if (rx_ack_ok) begin
                        lrsm    <= S_NORMAL;
                        if (rx_ctl_empty) num_retry <= 5'd0;
                    end else if (to_hit) begin
                        lrsm    <= S_LLRREQ;
                    end
                end
            endcase
            if (rx_bad_cnt) stat_crc_err <= sat_inc(stat_crc_err);
            if (proto_evt) begin
                stat_proto_err <= sat_inc(stat_proto_err);
                link_fatal     <= 1'b1;
            end
            if (dbg_rx_overflow || dbg_credit_err) link_fatal <= 1'b1;

            // ---- RX bookkeeping
            if (rx_fv && rx_crc_ok) rx_seen_good <= 1'b1;
            if (FLIT_MODE != 0 && rx_fv && rx_crc_ok) init_rcvd <= 1'b1;
            if (rx_fv) begin
                if (rx_good && rx_ctl_kind == K_FRAME)
                    frame_cnt <= (frame_cnt == 3'd7) ? frame_cnt : frame_cnt + 3'd1;
                else
                    frame_cnt <= 3'd0;
            end
            // 256B: RETRY.Ack carries no Empty bit (ESeq echo only), so a CRC-clean flit taken in
            // NORMAL stands for it: after an Ack with nothing to replay, the partner's idle flits
            // reset NUM_RETRY; a replayed flit that keeps failing comes first after each Ack, so
            // a link that cannot deliver it still reaches MAX_RETRY.
            if (FLIT_MODE != 0 && rx_good && in_seq) num_retry <= 5'd0;
            if (rx_commit) begin
                num_retry <= 5'd0;
                if (FLIT_MODE == 0 && rx_ctl_kind == K_INIT) begin
                    init_rcvd <= 1'b1;
                    wrap      <= {1'b0, rx_ctl_eseq} + 9'd1;
                    eseq      <= (rx_ctl_eseq == 8'd0) ? 8'd0 : 8'd1;
                end else begin
                    eseq <= eseq_inc;
                end
            end
            ack_pend <= ack_pend_nx;
            if (ack_ret || ack_pend <= 8'd1) ack_timer <= 8'd0;
            else if (ack_timer != 8'hFF) ack_timer <= ack_timer + 8'd1;
            crd_pend <= crd_pend_nx;
        end
    end

    assign tx_flit_valid = tx_v;
    assign tx_flit       = tx_q;
    assign link_up       = init_sent && init_rcvd && !link_fatal;
    assign dbg_lrsm      = lrsm;
    assign dbg_eseq      = eseq;
    assign dbg_num_free  = num_free;
    assign dbg_rx_commit = rx_commit;
endmodule
`default_nettype wire
