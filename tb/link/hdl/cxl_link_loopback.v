`default_nettype none
// Test-bench top (not a synthesis top): two cxl_link endpoints, A = ROLE_DOWN, B = ROLE_UP,
// joined by a wire that can stall (x_ready) and flip bits (x_flip XOR mask, applied to the flit
// the receiver sees in that cycle). Flit monitors observe the corrupted wire values.
module cxl_link_loopback #(
    parameter integer FLIT_MODE     = 0,
    parameter integer REPLAY_DEPTH  = 32,
    parameter integer REPLAY_DEPTH_B = REPLAY_DEPTH,
    parameter integer RX_DEPTH      = 16,
    parameter integer TIMEOUT_FLITS = 64,
    parameter integer MAX_RETRY     = 16,
    parameter integer FLIT_W        = (FLIT_MODE != 0) ? 2048 : 528
) (
    input  wire              clk,
    input  wire              rst,
    // endpoint A (ROLE_DOWN)
    input  wire [5:0]        a_tx_valid,
    output wire [5:0]        a_tx_ready,
    input  wire [6*128-1:0]  a_tx_hdr,
    input  wire [2*512-1:0]  a_tx_data,
    output wire [5:0]        a_rx_valid,
    input  wire [5:0]        a_rx_ready,
    output wire [6*128-1:0]  a_rx_hdr,
    output wire [2*512-1:0]  a_rx_data,
    // endpoint B (ROLE_UP)
    input  wire [5:0]        b_tx_valid,
    output wire [5:0]        b_tx_ready,
    input  wire [6*128-1:0]  b_tx_hdr,
    input  wire [2*512-1:0]  b_tx_data,
    output wire [5:0]        b_rx_valid,
    input  wire [5:0]        b_rx_ready,
    output wire [6*128-1:0]  b_rx_hdr,
    output wire [2*512-1:0]  b_rx_data,
    // wire A->B and B->A
    input  wire              ab_ready,
    input  wire [FLIT_W-1:0] ab_flip,
    output wire              ab_valid,
    output wire [FLIT_W-1:0] ab_flit,
    input  wire              ba_ready,
    input  wire [FLIT_W-1:0] ba_flip,
    output wire              ba_valid,
    output wire [FLIT_W-1:0] ba_flit,
    // status
    output wire              a_link_up, b_link_up, a_fatal, b_fatal,
    output wire [15:0]       a_crc_err, a_retry, a_proto_err,
    output wire [15:0]       b_crc_err, b_retry, b_proto_err,
    output wire [1:0]        a_lrsm, b_lrsm,
    output wire              a_rx_commit, b_rx_commit, a_tx_replay, b_tx_replay,
    output wire              a_rx_overflow, b_rx_overflow, a_credit_err, b_credit_err,
    output wire [7:0]        a_num_free, b_num_free
);
    wire             a_fv, b_fv;
    wire [FLIT_W-1:0] a_f, b_f;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [7:0]       a_eseq, b_eseq;
    /* verilator lint_on UNUSEDSIGNAL */

    assign ab_valid = a_fv && ab_ready;
    assign ab_flit  = a_f ^ ab_flip;
    assign ba_valid = b_fv && ba_ready;
    assign ba_flit  = b_f ^ ba_flip;

    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(0), .REPLAY_DEPTH(REPLAY_DEPTH), .RX_DEPTH(RX_DEPTH),
               .TIMEOUT_FLITS(TIMEOUT_FLITS), .MAX_RETRY(MAX_RETRY)) u_a (
        .clk(clk), .rst(rst),
        .tx_valid(a_tx_valid), .tx_ready(a_tx_ready), .tx_hdr(a_tx_hdr), .tx_data(a_tx_data),
        .rx_valid(a_rx_valid), .rx_ready(a_rx_ready), .rx_hdr(a_rx_hdr), .rx_data(a_rx_data),
        .tx_flit_valid(a_fv), .tx_flit_ready(ab_ready), .tx_flit(a_f),
        .rx_flit_valid(ba_valid), .rx_flit(ba_flit),
        .link_up(a_link_up), .link_fatal(a_fatal),
        .stat_crc_err(a_crc_err), .stat_retry(a_retry), .stat_proto_err(a_proto_err),
        .dbg_lrsm(a_lrsm), .dbg_eseq(a_eseq), .dbg_num_free(a_num_free),
        .dbg_rx_commit(a_rx_commit), .dbg_tx_replay(a_tx_replay),
        .dbg_rx_overflow(a_rx_overflow), .dbg_credit_err(a_credit_err));

    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(1), .REPLAY_DEPTH(REPLAY_DEPTH_B), .RX_DEPTH(RX_DEPTH),
               .TIMEOUT_FLITS(TIMEOUT_FLITS), .MAX_RETRY(MAX_RETRY)) u_b (
        .clk(clk), .rst(rst),
        .tx_valid(b_tx_valid), .tx_ready(b_tx_ready), .tx_hdr(b_tx_hdr), .tx_data(b_tx_data),
        .rx_valid(b_rx_valid), .rx_ready(b_rx_ready), .rx_hdr(b_rx_hdr), .rx_data(b_rx_data),
        .tx_flit_valid(b_fv), .tx_flit_ready(ba_ready), .tx_flit(b_f),
        .rx_flit_valid(ab_valid), .rx_flit(ab_flit),
        .link_up(b_link_up), .link_fatal(b_fatal),
        .stat_crc_err(b_crc_err), .stat_retry(b_retry), .stat_proto_err(b_proto_err),
        .dbg_lrsm(b_lrsm), .dbg_eseq(b_eseq), .dbg_num_free(b_num_free),
        .dbg_rx_commit(b_rx_commit), .dbg_tx_replay(b_tx_replay),
        .dbg_rx_overflow(b_rx_overflow), .dbg_credit_err(b_credit_err));
endmodule
`default_nettype wire
