`default_nettype none
// Link-layer soak top (test-only): two cxl_link endpoints, A = ROLE_DOWN and B = ROLE_UP, joined
// by two faulty channels (soak_chan: bit errors at a BER, bursts, dropped and duplicated flits,
// wire stalls), with a soak_stream (generator + in-order checker + on/off consumer) on every class
// each endpoint sends. Knobs are inputs set once by the testbench; totals over all streams and
// both channels come out as counters, so a soak runs without Python in the cycle loop.
// Negative-test knobs inject faults that bypass the link layer into stream A->B class 0 (see
// soak_stream: a message sent twice, a flipped header bit).
module soak_link_tb #(
    parameter integer FLIT_MODE     = 0,
    parameter integer SEQ_CRC       = (FLIT_MODE != 0) ? 1 : 0,
    parameter integer REPLAY_DEPTH  = 32,
    parameter integer RX_DEPTH      = 16,
    parameter integer TIMEOUT_FLITS = 64,
    parameter integer MAX_RETRY     = 31,
    parameter integer FLIT_W        = (FLIT_MODE != 0) ? 2048 : 528
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  seed,
    input  wire [31:0]  n_msgs,        // per stream
    input  wire [15:0]  gen_p,
    input  wire [15:0]  rdy_on_p,
    input  wire [15:0]  rdy_off_p,
    input  wire [31:0]  ber_inv,
    input  wire [31:0]  burst_p,
    input  wire [31:0]  drop_p,
    input  wire [31:0]  dup_p,
    input  wire [15:0]  stall_p,
    input  wire [31:0]  inj_dup_at,
    input  wire [31:0]  inj_flip_at,
    output wire [31:0]  t_sent, t_ok, t_uniq, t_dup, t_reord, t_corrupt,
    output wire [31:0]  c_flits, c_err_flits, c_bits, c_bursts, c_drops, c_dups,
    output wire [15:0]  a_crc_err, b_crc_err, a_retry, b_retry, a_proto_err, b_proto_err,
    output wire         a_fatal, b_fatal, a_link_up, b_link_up,
    output wire         a_overflow, b_overflow, a_credit_err, b_credit_err,
    output wire [11:0]  n_streams
);
    localparam integer FLAV = (FLIT_MODE != 0) ? 1 : 0;
    // classes each endpoint sends: 68B DOWN has no BIRsp (4), 68B UP no BISnp (3)
    localparam [5:0] SEND_A = (FLIT_MODE != 0) ? 6'b111111 : 6'b101111;
    localparam [5:0] SEND_B = (FLIT_MODE != 0) ? 6'b111111 : 6'b110111;
    assign n_streams = 12'(32'($countones(SEND_A)) + 32'($countones(SEND_B)));

    /* verilator lint_off UNUSEDSIGNAL */  // 68B: the lanes of the class a role does not use
    wire [5:0]       a_tv, a_tr, a_rv, a_rr, b_tv, b_tr, b_rv, b_rr;
    wire [6*128-1:0] a_th, a_rh, b_th, b_rh;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [2*512-1:0] a_td, a_rd, b_td, b_rd;
    wire             a_fv, b_fv, ab_rdy, ba_rdy, ab_v, ba_v;
    wire [FLIT_W-1:0] a_f, b_f, ab_f, ba_f;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [1:0]  a_lrsm, b_lrsm;
    wire [7:0]  a_eseq, b_eseq, a_nf, b_nf;
    wire        a_cm, b_cm, a_rp, b_rp;
    /* verilator lint_on UNUSEDSIGNAL */

    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(0), .REPLAY_DEPTH(REPLAY_DEPTH), .RX_DEPTH(RX_DEPTH),
               .TIMEOUT_FLITS(TIMEOUT_FLITS), .MAX_RETRY(MAX_RETRY), .SEQ_CRC(SEQ_CRC)) u_a (
        .clk(clk), .rst(rst),
        .tx_valid(a_tv), .tx_ready(a_tr), .tx_hdr(a_th), .tx_data(a_td),
        .rx_valid(a_rv), .rx_ready(a_rr), .rx_hdr(a_rh), .rx_data(a_rd),
        .tx_flit_valid(a_fv), .tx_flit_ready(ab_rdy), .tx_flit(a_f),
        .rx_flit_valid(ba_v), .rx_flit(ba_f),
        .link_up(a_link_up), .link_fatal(a_fatal),
        .stat_crc_err(a_crc_err), .stat_retry(a_retry), .stat_proto_err(a_proto_err),
        .dbg_lrsm(a_lrsm), .dbg_eseq(a_eseq), .dbg_num_free(a_nf), .dbg_rx_commit(a_cm),
        .dbg_tx_replay(a_rp), .dbg_rx_overflow(a_overflow), .dbg_credit_err(a_credit_err));
    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(1), .REPLAY_DEPTH(REPLAY_DEPTH), .RX_DEPTH(RX_DEPTH),
               .TIMEOUT_FLITS(TIMEOUT_FLITS), .MAX_RETRY(MAX_RETRY), .SEQ_CRC(SEQ_CRC)) u_b (
        .clk(clk), .rst(rst),
        .tx_valid(b_tv), .tx_ready(b_tr), .tx_hdr(b_th), .tx_data(b_td),
        .rx_valid(b_rv), .rx_ready(b_rr), .rx_hdr(b_rh), .rx_data(b_rd),
        .tx_flit_valid(b_fv), .tx_flit_ready(ba_rdy), .tx_flit(b_f),
        .rx_flit_valid(ab_v), .rx_flit(ab_f),
        .link_up(b_link_up), .link_fatal(b_fatal),
        .stat_crc_err(b_crc_err), .stat_retry(b_retry), .stat_proto_err(b_proto_err),
        .dbg_lrsm(b_lrsm), .dbg_eseq(b_eseq), .dbg_num_free(b_nf), .dbg_rx_commit(b_cm),
        .dbg_tx_replay(b_rp), .dbg_rx_overflow(b_overflow), .dbg_credit_err(b_credit_err));

    // channels A->B and B->A
    wire [31:0] cs [0:1][0:5];
    soak_chan #(.W(FLIT_W)) u_ab (
        .clk(clk), .rst(rst), .seed(seed ^ 64'hA5A5_0000_0000_0001), .ber_inv(ber_inv),
        .burst_p(burst_p), .drop_p(drop_p), .dup_p(dup_p), .stall_p(stall_p),
        .in_valid(a_fv), .in_ready(ab_rdy), .in_flit(a_f), .out_valid(ab_v), .out_flit(ab_f),
        .n_flits(cs[0][0]), .n_err_flits(cs[0][1]), .n_bits(cs[0][2]), .n_bursts(cs[0][3]),
        .n_drops(cs[0][4]), .n_dups(cs[0][5]));
    soak_chan #(.W(FLIT_W)) u_ba (
        .clk(clk), .rst(rst), .seed(seed ^ 64'h5A5A_0000_0000_0002), .ber_inv(ber_inv),
        .burst_p(burst_p), .drop_p(drop_p), .dup_p(dup_p), .stall_p(stall_p),
        .in_valid(b_fv), .in_ready(ba_rdy), .in_flit(b_f), .out_valid(ba_v), .out_flit(ba_f),
        .n_flits(cs[1][0]), .n_err_flits(cs[1][1]), .n_bits(cs[1][2]), .n_bursts(cs[1][3]),
        .n_drops(cs[1][4]), .n_dups(cs[1][5]));
    assign c_flits     = cs[0][0] + cs[1][0];
    assign c_err_flits = cs[0][1] + cs[1][1];
    assign c_bits      = cs[0][2] + cs[1][2];
    assign c_bursts    = cs[0][3] + cs[1][3];
    assign c_drops     = cs[0][4] + cs[1][4];
    assign c_dups      = cs[0][5] + cs[1][5];

    // streams: index d*6 + c, d = 0 for A->B, 1 for B->A
    wire [31:0] st [0:11][0:5];
    genvar d, c;
    generate
        for (d = 0; d < 2; d = d + 1) begin : g_dir
            for (c = 0; c < 6; c = c + 1) begin : g_cls
                localparam [5:0] SEND = (d == 0) ? SEND_A : SEND_B;
                if (SEND[c]) begin : g_on
                    localparam integer DI = (c == 5) ? 1 : 0;
                    wire         tv, tr, rv, rr;
                    wire [127:0] th, rh;
                    wire [511:0] td, rd;
                    soak_stream #(.ROLE(d), .CLS(c), .FLAV(FLAV), .SID(d*6 + c)) u_s (
                        .clk(clk), .rst(rst), .seed(seed), .n_msgs(n_msgs), .gen_p(gen_p),
                        .rdy_on_p(rdy_on_p), .rdy_off_p(rdy_off_p),
                        .inj_dup_at((d == 0 && c == 0) ? inj_dup_at : 32'd0),
                        .inj_flip_at((d == 0 && c == 0) ? inj_flip_at : 32'd0),
                        .tx_valid(tv), .tx_ready(tr), .tx_hdr(th), .tx_data(td),
                        .rx_valid(rv), .rx_ready(rr), .rx_hdr(rh), .rx_data(rd),
                        .n_sent(st[d*6+c][0]), .n_ok(st[d*6+c][1]), .n_uniq(st[d*6+c][2]),
                        .n_dup(st[d*6+c][3]), .n_reord(st[d*6+c][4]), .n_corrupt(st[d*6+c][5]));
                    if (d == 0) begin : g_ab
                        assign a_tv[c] = tv;
                        assign tr = a_tr[c];
                        assign a_th[c*128 +: 128] = th;
                        assign rv = b_rv[c];
                        assign b_rr[c] = rr;
                        assign rh = b_rh[c*128 +: 128];
                        if (c == 2 || c == 5) begin : g_d
                            assign a_td[DI*512 +: 512] = td;
                            assign rd = b_rd[DI*512 +: 512];
                        end else begin : g_nd
                            assign rd = 512'd0;
                            wire unused_td = &{1'b0, td};
                        end
                    end else begin : g_ba
                        assign b_tv[c] = tv;
                        assign tr = b_tr[c];
                        assign b_th[c*128 +: 128] = th;
                        assign rv = a_rv[c];
                        assign a_rr[c] = rr;
                        assign rh = a_rh[c*128 +: 128];
                        if (c == 2 || c == 5) begin : g_d
                            assign b_td[DI*512 +: 512] = td;
                            assign rd = a_rd[DI*512 +: 512];
                        end else begin : g_nd
                            assign rd = 512'd0;
                            wire unused_td = &{1'b0, td};
                        end
                    end
                end else begin : g_off
                    for (genvar k = 0; k < 6; k = k + 1) begin : g_z
                        assign st[d*6+c][k] = 32'd0;
                    end
                    if (d == 0) begin : g_ab
                        assign a_tv[c] = 1'b0;
                        assign a_th[c*128 +: 128] = 128'd0;
                        assign b_rr[c] = 1'b1;
                    end else begin : g_ba
                        assign b_tv[c] = 1'b0;
                        assign b_th[c*128 +: 128] = 128'd0;
                        assign a_rr[c] = 1'b1;
                    end
                end
            end
        end
    endgenerate

    function automatic [31:0] sum(input integer k, input [12*6*32-1:0] v);
        integer i;
        begin
            sum = 32'd0;
            for (i = 0; i < 12; i = i + 1) sum = sum + v[(i*6 + k)*32 +: 32];
        end
    endfunction
    wire [12*6*32-1:0] stv;
    generate
        for (genvar i = 0; i < 12; i = i + 1) begin : g_flat
            for (genvar k = 0; k < 6; k = k + 1) begin : g_k
                assign stv[(i*6 + k)*32 +: 32] = st[i][k];
            end
        end
    endgenerate
    assign t_sent    = sum(0, stv);
    assign t_ok      = sum(1, stv);
    assign t_uniq    = sum(2, stv);
    assign t_dup     = sum(3, stv);
    assign t_reord   = sum(4, stv);
    assign t_corrupt = sum(5, stv);
endmodule
`default_nettype wire
