// CXL.cachemem link layer endpoint: TX class queues, credits, flit formatter, replay buffer and
// link-layer retry (LRSM/RRSM), RX flit decoder and per-class RX buffers (CONVENTIONS.md,
// cxl-flits.md 1-3). One flit per clock. FLIT_MODE selects the formatter pair (68B / 256B).
// Retry is go-back-N with implicit sequence numbers: the receiver counts good retryable flits
// (ESeq) and acknowledges them; on a CRC error it sends NFRAMES x RETRY.Frame + RETRY.Req and
// discards retryable flits until a matching RETRY.Ack; the transmitter answers with the framed
// RETRY.Ack and replays from ESeq. Ours: NUM_RETRY reaching MAX_RETRY asserts link_fatal (no PHY
// re-init); a CRC-clean protocol violation also asserts link_fatal (it cannot be retried away).
module cxl_link #(
    parameter integer FLIT_MODE     = 0,     // 0 = 68B, 1 = 256B
    parameter integer ROLE          = 0,     // CXL_ROLE_DOWN (host/DSP) or CXL_ROLE_UP (device)
    parameter integer PBR           = 0,     // 256B only
    parameter integer REPLAY_DEPTH  = 32,    // >= 22 (spec), <= 255 (8-bit sequence numbers)
    parameter integer RX_DEPTH      = 16,    // per-class RX buffer = credits advertised, <= 255
    parameter integer TIMEOUT_FLITS = 4096,  // retry timeout in transmitted flits (spec: >= 4096)
    parameter integer MAX_RETRY     = 16,    // RETRY.Req attempts before link_fatal (<= 31)
    parameter integer TXQ_DEPTH     = 4,     // per-class TX queue
    parameter integer ACK_FORCE     = 16,    // Ack_Force_Threshold
    parameter integer ACK_TIMER     = 32,    // Ack_or_CRD_Flush_Retimer, in cycles
    parameter integer FLIT_W        = (FLIT_MODE != 0) ? 2048 : 528
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

    localparam integer MAXM    = (FLIT_MODE != 0) ? 12 : 4;
    localparam integer NFRAMES = (FLIT_MODE != 0) ? 0 : 5;   // RETRY.Frame flits before Req/Ack
    localparam [2:0]   NFR     = 3'(NFRAMES);
    localparam integer RB_W    = FLIT_W + 1;                 // flit + "is an all-data flit" flag
    localparam integer RA_W    = $clog2(REPLAY_DEPTH);
    localparam [7:0]   DEPTH8  = 8'(REPLAY_DEPTH);
    localparam [7:0]   RXD8    = 8'(RX_DEPTH);
    // ESeq modulus = partner's LLR Wrap Value + 1 (the value after which its counter wraps);
    // spec default wrap value 9 until INIT.Param arrives. 256B: both ends use REPLAY_DEPTH.
    localparam [8:0]   WRAP_RESET = (FLIT_MODE != 0) ? {1'b0, DEPTH8} : 9'd10;
    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_FRAME = 3'd2, K_REQ = 3'd3, K_ACK = 3'd4,
                     K_INIT = 3'd5;
    localparam [1:0] S_NORMAL = 2'd0, S_LLRREQ = 2'd1, S_LOCAL_IDLE = 2'd2;
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
    wire [5:0]       fmt_take;
    wire             fmt_fire;
    wire             rx_commit;
    wire [6*8-1:0]   rx_crd;

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
                    .out_valid(q_valid[g]), .out_ready(fmt_take[g] && fmt_fire),
                    .out_data(head), .count(q_cnt));
                assign q_data[DI*512 +: 512] = head[128 +: 512];
            end else begin : g_h
                sync_fifo #(.WIDTH(128), .DEPTH(TXQ_DEPTH)) u_q (
                    .clk(clk), .rst(rst),
                    .in_valid(tx_valid[g] && TX_SUP[g]), .in_ready(in_rdy),
                    .in_data(tx_hdr[g*128 +: 128]),
                    .out_valid(q_valid[g]), .out_ready(fmt_take[g] && fmt_fire),
                    .out_data(head), .count(q_cnt));
            end
            assign q_hdr[g*128 +: 128] = head[127:0];
            assign tx_ready[g] = in_rdy && TX_SUP[g];
            credit_counter #(.WIDTH(8), .INIT(8'd0)) u_crd (
                .clk(clk), .rst(rst),
                .add((rx_commit && TX_SUP[g]) ? rx_crd[g*8 +: 8] : 8'd0),
                .take(fmt_take[g] && fmt_fire), .avail(crd_avail[g]), .count(c_cnt), .err(crd_err[g]));
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
    // replay buffer
    reg [RB_W-1:0] rb_mem [0:REPLAY_DEPTH-1];
    reg [RA_W-1:0] wr_ptr, rd_ptr;
    reg [7:0]      num_free;
    // output stage
    reg              out_valid;
    reg [FLIT_W-1:0] out_flit;

    // ------------------------------------------------------------------ formatters
    reg  [2:0]        fmt_kind;
    reg  [7:0]        fmt_eseq;
    reg  [4:0]        fmt_nr;
    reg               fmt_empty;
    reg  [5:0]        fmt_avail;
    reg  [6*8-1:0]    fmt_crd_pend;
    reg  [7:0]        fmt_ack_pend;
    wire [6*8-1:0]    fmt_crd_take;
    wire [7:0]        fmt_ack_take;
    wire [FLIT_W-1:0] fmt_flit;
    wire              fmt_retryable;
    wire              fmt_busy_adf;

    wire              rx_crc_ok, rx_retryable, rx_ctl_empty, rx_proto_err;
    wire [2:0]        rx_ctl_kind;
    wire [7:0]        rx_ctl_eseq, rx_ack;
    wire [4:0]        rx_ctl_nr;
    wire [6*MAXM-1:0]     rx_mv;
    wire [6*MAXM*128-1:0] rx_mh;
    wire [2*MAXM*512-1:0] rx_md;
    wire              in_seq = (lrsm == S_NORMAL) && !link_fatal;

    generate
        if (FLIT_MODE == 0) begin : g_68
            cxl_flit68_tx #(.ROLE(ROLE)) u_tx (
                .clk(clk), .rst(rst), .msg_avail(fmt_avail), .msg_hdr(q_hdr), .msg_data(q_data),
                .msg_take(fmt_take), .crd_pend(fmt_crd_pend), .crd_take(fmt_crd_take),
                .ack_pend(fmt_ack_pend), .ack_take(fmt_ack_take), .ctl_kind(fmt_kind),
                .ctl_eseq(fmt_eseq), .ctl_num_retry(fmt_nr), .ctl_empty(fmt_empty),
                .fire(fmt_fire), .flit(fmt_flit), .flit_retryable(fmt_retryable),
                .busy_adf(fmt_busy_adf));
            cxl_flit68_rx #(.ROLE(ROLE), .PBR(PBR), .MAXM(MAXM)) u_rx (
                .clk(clk), .rst(rst), .flit_valid(rx_flit_valid), .flit(rx_flit),
                .commit(rx_commit), .in_seq(in_seq), .crc_ok(rx_crc_ok),
                .retryable(rx_retryable), .ctl_kind(rx_ctl_kind), .ctl_eseq(rx_ctl_eseq),
                .ctl_num_retry(rx_ctl_nr), .ctl_empty(rx_ctl_empty), .ack_cnt(rx_ack),
                .crd_cnt(rx_crd), .msg_valid(rx_mv), .msg_hdr(rx_mh), .msg_data(rx_md),
                .proto_err(rx_proto_err));
        end else begin : g_256
            cxl_flit256_tx #(.ROLE(ROLE), .PBR(PBR)) u_tx (
                .clk(clk), .rst(rst), .msg_avail(fmt_avail), .msg_hdr(q_hdr), .msg_data(q_data),
                .msg_take(fmt_take), .crd_pend(fmt_crd_pend), .crd_take(fmt_crd_take),
                .ack_pend(fmt_ack_pend), .ack_take(fmt_ack_take), .ctl_kind(fmt_kind),
                .ctl_eseq(fmt_eseq), .ctl_num_retry(fmt_nr), .ctl_empty(fmt_empty),
                .fire(fmt_fire), .flit(fmt_flit), .flit_retryable(fmt_retryable),
                .busy_adf(fmt_busy_adf));
            cxl_flit256_rx #(.ROLE(ROLE), .PBR(PBR), .MAXM(MAXM)) u_rx (
                .clk(clk), .rst(rst), .flit_valid(rx_flit_valid), .flit(rx_flit),
                .commit(rx_commit), .crc_ok(rx_crc_ok),
                .retryable(rx_retryable), .ctl_kind(rx_ctl_kind), .ctl_eseq(rx_ctl_eseq),
                .ctl_num_retry(rx_ctl_nr), .ctl_empty(rx_ctl_empty), .ack_cnt(rx_ack),
                .crd_cnt(rx_crd), .msg_valid(rx_mv), .msg_hdr(rx_mh), .msg_data(rx_md),
                .proto_err(rx_proto_err));
        end
    endgenerate

    // ------------------------------------------------------------------ TX flit selection
    wire load = !out_valid || tx_flit_ready;
    wire fire_out = out_valid && tx_flit_ready;
    wire replaying = (rd_ptr != wr_ptr);
    wire [RB_W-1:0] rb_rd = rb_mem[rd_ptr];
    wire next_is_adf = replaying ? rb_rd[FLIT_W] : fmt_busy_adf;
    wire ack_force = (ack_timer >= 8'(ACK_TIMER)) || (ack_pend >= 8'(ACK_FORCE)) ||
                     (num_free <= 8'd2);
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
            else           fmt_kind   = K_NONE;
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
                    // Empty = nothing to replay from the requested ESeq (models.cxl.link): the
                    // retry is then complete, and the requester ends its count of retries without
                    // progress. (A buffer with an unacknowledged flit the partner has received
                    // is not "empty", yet an idle link must not accumulate NUM_RETRY to fatal.)
                    fmt_empty = (RA_W'(seq_on ? ack_eseq_l : ack_eseq) == wr_ptr);
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
        end else if (num_free >= 8'd2) begin
            fmt_kind = K_NONE;
            // Messages need credits and room for their rollover; an ack forced out stops them
            // for a flit so that an LLCRD carries it.
            if (num_free >= 8'd4 && !(ack_force && ack_pend != 8'd0))
                fmt_avail = q_valid & crd_avail & TX_SUP;
            fmt_ack_pend = (ack_force || ack_pend >= 8'd8) ? ack_pend : 8'd0;
            if (num_free >= 8'd3) fmt_crd_pend = crd_pend;
        end
    end

    assign fmt_fire      = load && !use_replay;
    assign dbg_tx_replay = load && use_replay;
    wire   rb_write      = fmt_fire && fmt_retryable;

    function automatic [RA_W-1:0] ptr_inc(input [RA_W-1:0] p);
        ptr_inc = ({{(32-RA_W){1'b0}}, p} == REPLAY_DEPTH - 1) ? {RA_W{1'b0}} : p + 1'b1;
    endfunction

    always @(posedge clk) begin
        if (rb_write) rb_mem[wr_ptr] <= {fmt_busy_adf && fmt_kind == K_NONE, fmt_flit};
        if (load) out_flit <= use_replay ? rb_rd[FLIT_W-1:0] : fmt_flit;
    end

    // ------------------------------------------------------------------ RX acceptance
    wire rx_good     = rx_flit_valid && rx_crc_ok && !rx_proto_err;
    wire rx_bad      = rx_flit_valid && !rx_crc_ok;
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
    wire proto_evt   = (rx_flit_valid && rx_proto_err) || rx_order_err;

    // RX class buffers
    wire [5:0] rxb_ovf;
    wire [5:0] rx_pop = rx_valid & rx_ready;
    generate
        for (g = 0; g < 6; g = g + 1) begin : g_rxq
            localparam integer DW = (g == 2 || g == 5) ? 512 : 0;
            localparam integer DI = (g == 5) ? 1 : 0;
            wire [MAXM-1:0] wv = rx_commit ? rx_mv[g*MAXM +: MAXM] : {MAXM{1'b0}};
            wire [128+DW-1:0] head;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [$clog2(RX_DEPTH+1)-1:0] b_free, b_cnt;
            /* verilator lint_on UNUSEDSIGNAL */
            if (DW != 0) begin : g_d
                reg [MAXM*640-1:0] wd;
                integer i;
                always @* begin
                    for (i = 0; i < MAXM; i = i + 1)
                        wd[i*640 +: 640] = {rx_md[(DI*MAXM + i)*512 +: 512],
                                            rx_mh[(g*MAXM + i)*128 +: 128]};
                end
                fifo_mw #(.WIDTH(640), .DEPTH(RX_DEPTH), .W(MAXM)) u_q (
                    .clk(clk), .rst(rst), .in_valid(wv), .in_data(wd), .free(b_free),
                    .out_valid(rx_valid[g]), .out_ready(rx_ready[g]), .out_data(head),
                    .count(b_cnt), .overflow(rxb_ovf[g]));
                assign rx_data[DI*512 +: 512] = head[128 +: 512];
            end else begin : g_h
                fifo_mw #(.WIDTH(128), .DEPTH(RX_DEPTH), .W(MAXM)) u_q (
                    .clk(clk), .rst(rst), .in_valid(wv), .in_data(rx_mh[g*MAXM*128 +: MAXM*128]),
                    .free(b_free), .out_valid(rx_valid[g]), .out_ready(rx_ready[g]),
                    .out_data(head), .count(b_cnt), .overflow(rxb_ovf[g]));
            end
            assign rx_hdr[g*128 +: 128] = head[127:0];
        end
    endgenerate
    assign dbg_rx_overflow = |rxb_ovf;

    // ------------------------------------------------------------------ sequential control
    wire [7:0] eseq_inc  = ({1'b0, eseq} + 9'd1 >= wrap) ? 8'd0 : eseq + 8'd1;
    wire [8:0] free_add  = {1'b0, num_free} + {1'b0, (rx_commit ? rx_ack : 8'd0)};
    wire [8:0] nf_next   = free_add - {8'd0, rb_write};
    wire [7:0] ack_taken = (fmt_fire && fmt_kind == K_NONE) ? fmt_ack_take : 8'd0;

    function automatic [15:0] sat_inc(input [15:0] v);
        sat_inc = (v == 16'hFFFF) ? v : v + 16'd1;
    endfunction

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
            num_free     <= DEPTH8;
            out_valid    <= 1'b0;
            link_fatal   <= 1'b0;
            stat_crc_err <= 16'd0;
            stat_retry   <= 16'd0;
            stat_proto_err <= 16'd0;
        end else begin
            // ---- output stage / replay buffer
            if (load) out_valid <= 1'b1;
            if (load && use_replay) rd_ptr <= ptr_inc(rd_ptr);
            if (rb_write) wr_ptr <= ptr_inc(wr_ptr);
            if (rb_write && !replaying) rd_ptr <= ptr_inc(rd_ptr);  // RdPtr == WrPtr: new flits
            // free entries: -1 per stored flit, + acks received (never above the depth)
            num_free <= (nf_next > {1'b0, DEPTH8}) ? DEPTH8 : nf_next[7:0];
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
                        timeout    <= 16'd0;
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
            if (lrsm == S_LOCAL_IDLE && fire_out) timeout <= timeout + 16'd1;
            case (lrsm)
                S_NORMAL: if (rx_bad && !link_fatal) lrsm <= S_LLRREQ;
                S_LLRREQ: if ({27'd0, num_retry} >= MAX_RETRY) link_fatal <= 1'b1;
                default: begin
                    if (rx_ack_ok) begin
                        lrsm    <= S_NORMAL;
                        timeout <= 16'd0;
                        // 68B: Empty (nothing to replay). A 256B Ack carries no Empty bit: an
                        // accepted Ack ends the count there (models.cxl.link).
                        if (rx_ctl_empty || FLIT_MODE != 0) num_retry <= 5'd0;
                    end else if ({16'd0, timeout} >= TIMEOUT_FLITS) begin
                        lrsm    <= S_LLRREQ;
                        timeout <= 16'd0;
                    end
                end
            endcase
            if (rx_bad) stat_crc_err <= sat_inc(stat_crc_err);
            if (proto_evt) begin
                stat_proto_err <= sat_inc(stat_proto_err);
                link_fatal     <= 1'b1;
            end
            if (dbg_rx_overflow || dbg_credit_err) link_fatal <= 1'b1;

            // ---- RX bookkeeping
            if (rx_flit_valid && rx_crc_ok) rx_seen_good <= 1'b1;
            if (FLIT_MODE != 0 && rx_flit_valid && rx_crc_ok) init_rcvd <= 1'b1;
            if (rx_flit_valid) begin
                if (rx_good && rx_ctl_kind == K_FRAME)
                    frame_cnt <= (frame_cnt == 3'd7) ? frame_cnt : frame_cnt + 3'd1;
                else
                    frame_cnt <= 3'd0;
            end
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
            ack_pend <= ack_pend + {7'd0, rx_commit} - ack_taken;
            if (ack_taken != 8'd0 || ack_pend <= 8'd1) ack_timer <= 8'd0;
            else if (ack_timer != 8'hFF) ack_timer <= ack_timer + 8'd1;
            for (c = 0; c < 6; c = c + 1)
                crd_pend[c*8 +: 8] <= crd_pend[c*8 +: 8] + {7'd0, rx_pop[c]} -
                                      ((fmt_fire && fmt_kind == K_NONE) ? fmt_crd_take[c*8 +: 8]
                                                                        : 8'd0);
        end
    end

    assign tx_flit_valid = out_valid;
    assign tx_flit       = out_flit;
    assign link_up       = init_sent && init_rcvd && !link_fatal;
    assign dbg_lrsm      = lrsm;
    assign dbg_eseq      = eseq;
    assign dbg_num_free  = num_free;
    assign dbg_rx_commit = rx_commit;
endmodule
