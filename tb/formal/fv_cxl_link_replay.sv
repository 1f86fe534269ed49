// Formal environment for the replay buffer and retry logic of rtl/link/cxl_link.v (68B mode).
// The flit packer, the flit decoder and the RX buffers are abstracted (tb/formal/abstract/: same
// ports, every output free in every cycle), so the partner may send anything in any cycle and the
// packer may prepare any flit; the TX class queues, credit counters, the prepared-flit buffer and
// the output builder (cxl_flit68_txout) are the real ones.
// The properties are in cxl_link.props.svh, spliced into cxl_link's scope. REPLAY_DEPTH 9 is the
// smallest depth cxl_link accepts that is not a power of two, so pointer wrap is exercised. Flits
// are the real 528 bits: cxl_link derives FLIT_W from FLIT_MODE and refuses any other width.
module fv_cxl_link_replay (
    input wire               clk,
    input wire               rst,
    input wire [5:0]         tx_valid,
    input wire [6*128-1:0]   tx_hdr,
    input wire [2*512-1:0]   tx_data,
    input wire [5:0]         rx_ready,
    input wire               tx_flit_ready,
    input wire               rx_flit_valid,
    input wire [527:0]       rx_flit
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    cxl_link #(.FLIT_MODE(0), .ROLE(0), .REPLAY_DEPTH(9), .RX_DEPTH(2), .TXQ_DEPTH(2),
               .TIMEOUT_FLITS(8), .MAX_RETRY(3)) dut (
        .clk(clk), .rst(rst), .tx_valid(tx_valid), .tx_ready(), .tx_hdr(tx_hdr), .tx_data(tx_data),
        .rx_valid(), .rx_ready(rx_ready), .rx_hdr(), .rx_data(), .tx_flit_valid(),
        .tx_flit_ready(tx_flit_ready), .tx_flit(), .rx_flit_valid(rx_flit_valid), .rx_flit(rx_flit),
        .link_up(), .link_fatal(), .stat_crc_err(), .stat_retry(), .stat_proto_err(),
        .dbg_lrsm(), .dbg_eseq(), .dbg_num_free(), .dbg_rx_commit(), .dbg_tx_replay(),
        .dbg_rx_overflow(), .dbg_credit_err());
endmodule
