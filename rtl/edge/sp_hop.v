// One hop of the rack-edge top between a host-side block (sends H2D / M2S) and a device-side block
// (sends D2H / S2M), in the 6-class message convention of cxl_link (CONVENTIONS.md: class c,
// tx/rx_hdr[c*128 +: 128], data lane 0 = C_DATA, 1 = M_DATA; h_tx carries what a ROLE_DOWN
// endpoint transmits, d_tx what a ROLE_UP endpoint transmits).
//   LINKS = 0: message level, the two sides are wired straight through (zero cycles).
//   LINKS = 1: a cxl_link pair: ROLE_DOWN endpoint on the host side, ROLE_UP on the device side,
//              flits both ways through sp_flit_wire (one register stage, bit errors on `ber_en`).
//              Every message is packed into flits, CRC-checked, credit-controlled and, on a CRC
//              error, replayed by the link layer.
module sp_hop #(
    parameter integer LINKS         = 0,       // 0 message level, 1 cxl_link pair
    parameter integer FLIT_MODE     = 0,       // cxl_link FLIT_MODE: 0 68B, 1 256B
    parameter integer PBR           = 0,       // cxl_link PBR (256B only)
    parameter integer RX_DEPTH      = 16,      // cxl_link RX buffer per class = credits
    parameter integer REPLAY_DEPTH  = 32,      // cxl_link replay buffer
    parameter integer TIMEOUT_FLITS = 4096,    // cxl_link retry timeout (transmitted flits)
    parameter [63:0]  SEED          = 64'h1    // bit-error generator seed of this hop (nonzero)
) (
    input  wire              clk,
    input  wire              rst,
    // host side
    input  wire [5:0]        h_tx_valid,
    output wire [5:0]        h_tx_ready,
    input  wire [6*128-1:0]  h_tx_hdr,
    input  wire [2*512-1:0]  h_tx_data,
    output wire [5:0]        h_rx_valid,
    input  wire [5:0]        h_rx_ready,
    output wire [6*128-1:0]  h_rx_hdr,
    output wire [2*512-1:0]  h_rx_data,
    // device side
    input  wire [5:0]        d_tx_valid,
    output wire [5:0]        d_tx_ready,
    input  wire [6*128-1:0]  d_tx_hdr,
    input  wire [2*512-1:0]  d_tx_data,
    output wire [5:0]        d_rx_valid,
    input  wire [5:0]        d_rx_ready,
    output wire [6*128-1:0]  d_rx_hdr,
    output wire [2*512-1:0]  d_rx_data,
    // bit errors on both flit directions (LINKS = 1)
    input  wire              ber_en,
    input  wire [31:0]       ber_thresh,
    // status (LINKS = 0: up, no errors)
    output wire              link_up,          // both endpoints up
    output wire              link_fatal,       // either endpoint fatal (sticky)
    output wire [15:0]       stat_retry,       // RETRY.Req sequences sent, both endpoints (saturating)
    output wire [15:0]       stat_crc,         // CRC errors seen, both endpoints (saturating)
    output wire [31:0]       stat_flips        // flits hit by the error channel, both directions
);
    generate
        if (LINKS != 0 && LINKS != 1) begin : g_bad
            sp_hop_parameter_error_LINKS_must_be_0_or_1 u_stop ();
        end
        if (LINKS == 0) begin : g_msg
            assign d_rx_valid = h_tx_valid;
            assign d_rx_hdr   = h_tx_hdr;
            assign d_rx_data  = h_tx_data;
            assign h_tx_ready = d_rx_ready;
            assign h_rx_valid = d_tx_valid;
            assign h_rx_hdr   = d_tx_hdr;
            assign h_rx_data  = d_tx_data;
            assign d_tx_ready = h_rx_ready;
            assign link_up    = 1'b1;
            assign link_fatal = 1'b0;
            assign stat_retry = 16'd0;
            assign stat_crc   = 16'd0;
            assign stat_flips = 32'd0;
            wire unused = &{1'b0, clk, rst, ber_en, ber_thresh};
        end else begin : g_link
            localparam integer FW = (FLIT_MODE != 0) ? 2048 : 528;
            wire          hd_v, dh_v, hd_wv, dh_wv;        // host->device and device->host flits
            wire [FW-1:0] hd_f, dh_f, hd_wf, dh_wf;
            wire          h_up, d_up, h_fatal, d_fatal;
            wire [15:0]   h_crc, d_crc, h_retry, d_retry;
            wire [31:0]   hd_flips, dh_flips;
            /* verilator lint_off UNUSEDSIGNAL */
            wire [15:0]   h_proto, d_proto;
            wire [1:0]    h_lrsm, d_lrsm;
            wire [7:0]    h_eseq, d_eseq, h_free, d_free;
            wire          h_c, d_c, h_r, d_r, h_o, d_o, h_e, d_e;
            /* verilator lint_on UNUSEDSIGNAL */
            cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(0), .PBR(PBR), .REPLAY_DEPTH(REPLAY_DEPTH),
                       .RX_DEPTH(RX_DEPTH), .TIMEOUT_FLITS(TIMEOUT_FLITS)) u_host (
                .clk(clk), .rst(rst),
                .tx_valid(h_tx_valid), .tx_ready(h_tx_ready), .tx_hdr(h_tx_hdr), .tx_data(h_tx_data),
                .rx_valid(h_rx_valid), .rx_ready(h_rx_ready), .rx_hdr(h_rx_hdr), .rx_data(h_rx_data),
                .tx_flit_valid(hd_v), .tx_flit_ready(1'b1), .tx_flit(hd_f),
                .rx_flit_valid(dh_wv), .rx_flit(dh_wf),
                .link_up(h_up), .link_fatal(h_fatal), .stat_crc_err(h_crc), .stat_retry(h_retry),
                .stat_proto_err(h_proto), .dbg_lrsm(h_lrsm), .dbg_eseq(h_eseq), .dbg_num_free(h_free),
                .dbg_rx_commit(h_c), .dbg_tx_replay(h_r), .dbg_rx_overflow(h_o), .dbg_credit_err(h_e));
            cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(1), .PBR(PBR), .REPLAY_DEPTH(REPLAY_DEPTH),
                       .RX_DEPTH(RX_DEPTH), .TIMEOUT_FLITS(TIMEOUT_FLITS)) u_dev (
                .clk(clk), .rst(rst),
                .tx_valid(d_tx_valid), .tx_ready(d_tx_ready), .tx_hdr(d_tx_hdr), .tx_data(d_tx_data),
                .rx_valid(d_rx_valid), .rx_ready(d_rx_ready), .rx_hdr(d_rx_hdr), .rx_data(d_rx_data),
                .tx_flit_valid(dh_v), .tx_flit_ready(1'b1), .tx_flit(dh_f),
                .rx_flit_valid(hd_wv), .rx_flit(hd_wf),
                .link_up(d_up), .link_fatal(d_fatal), .stat_crc_err(d_crc), .stat_retry(d_retry),
                .stat_proto_err(d_proto), .dbg_lrsm(d_lrsm), .dbg_eseq(d_eseq), .dbg_num_free(d_free),
                .dbg_rx_commit(d_c), .dbg_tx_replay(d_r), .dbg_rx_overflow(d_o), .dbg_credit_err(d_e));
            sp_flit_wire #(.W(FW), .SEED(SEED)) u_hd (
                .clk(clk), .rst(rst), .in_valid(hd_v), .in_flit(hd_f), .ber_en(ber_en), .ber_thresh(ber_thresh),
                .out_valid(hd_wv), .out_flit(hd_wf), .stat_flips(hd_flips));
            sp_flit_wire #(.W(FW), .SEED(SEED ^ 64'h5DEE_CE66_D1CE_4E5B)) u_dh (
                .clk(clk), .rst(rst), .in_valid(dh_v), .in_flit(dh_f), .ber_en(ber_en), .ber_thresh(ber_thresh),
                .out_valid(dh_wv), .out_flit(dh_wf), .stat_flips(dh_flips));
            assign link_up    = h_up && d_up;
            assign link_fatal = h_fatal || d_fatal;
            assign stat_retry = sat_add(h_retry, d_retry);
            assign stat_crc   = sat_add(h_crc, d_crc);
            assign stat_flips = hd_flips + dh_flips;
        end
    endgenerate

    function automatic [15:0] sat_add(input [15:0] a, input [15:0] b);
        reg [16:0] s;
        begin
            s = {1'b0, a} + {1'b0, b};
            sat_add = s[16] ? 16'hFFFF : s[15:0];
        end
    endfunction
endmodule
