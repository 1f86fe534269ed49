// A CXL.mem hop of the rack-edge top in the switch core's port format: M2S {0 Req, 1 RwD} from the
// host side to the device side, S2M {0 NDR, 1 DRS} back; data travels with RwD and DRS. Wraps
// sp_hop (LINKS = 0 wires, LINKS = 1 a cxl_link pair) with the link class map of CONVENTIONS.md:
// M2S Req = M_REQ (3), RwD = M_DATA (5); NDR = M_RSP (4), DRS = M_DATA (5); data on lane 1.
module sp_mem_hop #(
    parameter integer LINKS         = 0,       // 0 message level, 1 cxl_link pair
    parameter integer FLIT_MODE     = 0,       // 0 68B, 1 256B
    parameter integer PBR           = 0,       // 256B only: PBR message layouts
    parameter integer RX_DEPTH      = 16,      // credits per class
    parameter integer REPLAY_DEPTH  = 32,
    parameter integer TIMEOUT_FLITS = 4096,
    parameter [63:0]  SEED          = 64'h1    // bit-error generator seed (nonzero)
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [1:0]        h_m2s_valid,      // host side: {RwD, Req} out
    output wire [1:0]        h_m2s_ready,
    input  wire [2*128-1:0]  h_m2s_hdr,
    input  wire [511:0]      h_m2s_data,       // RwD data
    output wire [1:0]        h_s2m_valid,      // host side: {DRS, NDR} in
    input  wire [1:0]        h_s2m_ready,
    output wire [2*128-1:0]  h_s2m_hdr,
    output wire [511:0]      h_s2m_data,       // DRS data
    output wire [1:0]        d_m2s_valid,      // device side: {RwD, Req} in
    input  wire [1:0]        d_m2s_ready,
    output wire [2*128-1:0]  d_m2s_hdr,
    output wire [511:0]      d_m2s_data,
    input  wire [1:0]        d_s2m_valid,      // device side: {DRS, NDR} out
    output wire [1:0]        d_s2m_ready,
    input  wire [2*128-1:0]  d_s2m_hdr,
    input  wire [511:0]      d_s2m_data,
    input  wire              ber_en,
    input  wire [31:0]       ber_thresh,
    output wire              link_up,
    output wire              link_fatal,
    output wire [15:0]       stat_retry,
    output wire [15:0]       stat_crc,
    output wire [31:0]       stat_flips
);
    localparam integer M_REQ = 3, M_RSP = 4, M_DATA = 5;
    wire [5:0]       htv, htr, hrv, hrr, dtv, dtr, drv, drr;
    wire [6*128-1:0] hth, dth;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [6*128-1:0] hrh, drh;                      // only the classes this hop carries are read
    wire [2*512-1:0] htd, hrd, dtd, drd;
    /* verilator lint_on UNUSEDSIGNAL */

    assign htv = {h_m2s_valid[1], 1'b0, h_m2s_valid[0], 3'b000};
    assign hth = {h_m2s_hdr[128 +: 128], 128'd0, h_m2s_hdr[0 +: 128], 384'd0};
    assign htd = {h_m2s_data, 512'd0};
    assign h_m2s_ready = {htr[M_DATA], htr[M_REQ]};
    assign h_s2m_valid = {hrv[M_DATA], hrv[M_RSP]};
    assign h_s2m_hdr   = {hrh[M_DATA*128 +: 128], hrh[M_RSP*128 +: 128]};
    assign h_s2m_data  = hrd[512 +: 512];
    assign hrr = {h_s2m_ready[1], h_s2m_ready[0], 4'b1111};

    assign dtv = {d_s2m_valid[1], d_s2m_valid[0], 4'b0000};
    assign dth = {d_s2m_hdr[128 +: 128], d_s2m_hdr[0 +: 128], 512'd0};
    assign dtd = {d_s2m_data, 512'd0};
    assign d_s2m_ready = {dtr[M_DATA], dtr[M_RSP]};
    assign d_m2s_valid = {drv[M_DATA], drv[M_REQ]};
    assign d_m2s_hdr   = {drh[M_DATA*128 +: 128], drh[M_REQ*128 +: 128]};
    assign d_m2s_data  = drd[512 +: 512];
    assign drr = {d_m2s_ready[1], 1'b1, d_m2s_ready[0], 3'b111};

    sp_hop #(.LINKS(LINKS), .FLIT_MODE(FLIT_MODE), .PBR(PBR), .RX_DEPTH(RX_DEPTH), .REPLAY_DEPTH(REPLAY_DEPTH),
             .TIMEOUT_FLITS(TIMEOUT_FLITS), .SEED(SEED)) u_hop (
        .clk(clk), .rst(rst),
        .h_tx_valid(htv), .h_tx_ready(htr), .h_tx_hdr(hth), .h_tx_data(htd),
        .h_rx_valid(hrv), .h_rx_ready(hrr), .h_rx_hdr(hrh), .h_rx_data(hrd),
        .d_tx_valid(dtv), .d_tx_ready(dtr), .d_tx_hdr(dth), .d_tx_data(dtd),
        .d_rx_valid(drv), .d_rx_ready(drr), .d_rx_hdr(drh), .d_rx_data(drd),
        .ber_en(ber_en), .ber_thresh(ber_thresh),
        .link_up(link_up), .link_fatal(link_fatal), .stat_retry(stat_retry), .stat_crc(stat_crc),
        .stat_flips(stat_flips));
endmodule
