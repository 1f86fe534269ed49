`default_nettype none
// N-port CXL.mem switch with a cxl_link on every port's wire side (cxl_switch_core + N links).
// Link role per port (UP_MASK bit p): 1 = the port faces a host/upstream switch (link ROLE_UP:
// receives M2S, transmits S2M); 0 = faces a device/downstream switch (ROLE_DOWN: transmits M2S,
// receives S2M). A PBR fabric port is a 256B PBR link (PBR_MASK, FLIT_MODE = 1) whose direction is
// fixed the same way: the link layer's classes carry M2S one way and S2M the other.
// Messages the switch does not route (CXL.cache, BISnp/BIRsp, or a class the link role cannot
// carry) are drained and counted as `unsupported`, never stalled.
module cxl_switch #(
    parameter integer N             = 4,
    parameter integer NDEC          = 4,
    parameter integer NRT           = 8,
    parameter integer OT_DEPTH      = 16,
    parameter integer VOQ           = 1,
    parameter integer VOQ_DEPTH     = 2,
    parameter integer FLIT_MODE     = 0,         // 0 = 68B, 1 = 256B (all ports)
    parameter [N-1:0] UP_MASK       = {N{1'b0}} | 1,  // default: port 0 faces the host
    parameter [N-1:0] PBR_MASK      = {N{1'b0}},
    parameter integer RX_DEPTH      = 16,
    parameter integer REPLAY_DEPTH  = 32,
    parameter integer TIMEOUT_FLITS = 4096,
    parameter integer FLIT_W        = (FLIT_MODE != 0) ? 2048 : 528,
    parameter integer SEQ_CRC       = (FLIT_MODE != 0) ? 1 : 0, // every port's cxl_link SEQ_CRC
    parameter integer MAX_RETRY     = 16    // every port's cxl_link MAX_RETRY (RETRY.Req attempts), 1..31
) (
    input  wire                clk,
    input  wire                rst,
    input  wire                cfg_valid,
    output wire                cfg_ready,
    input  wire                cfg_write,
    input  wire [11:0]         cfg_addr,
    input  wire [31:0]         cfg_wdata,
    output wire                cfg_rvalid,
    output wire [31:0]         cfg_rdata,
    output wire [1:0]          cfg_resp,
    output wire [N-1:0]        tx_flit_valid,
    input  wire [N-1:0]        tx_flit_ready,
    output wire [N*FLIT_W-1:0] tx_flit,
    input  wire [N-1:0]        rx_flit_valid,
    input  wire [N*FLIT_W-1:0] rx_flit,
    output wire [N-1:0]        link_up,
    output wire [N-1:0]        link_fatal
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 2 || N > 16) begin : g_bad_n
            cxl_switch_parameter_error_N_must_be_2_to_16 u_stop ();
        end
        if (FLIT_MODE != 0 && FLIT_MODE != 1) begin : g_bad_flit_mode
            cxl_switch_parameter_error_FLIT_MODE_must_be_0_or_1 u_stop ();
        end
        if (PBR_MASK != 0 && FLIT_MODE == 0) begin : g_bad_pbr_mask
            cxl_switch_parameter_error_PBR_MASK_needs_FLIT_MODE_1 u_stop ();
        end
        if (FLIT_W != ((FLIT_MODE != 0) ? 2048 : 528)) begin : g_bad_flit_w
            cxl_switch_parameter_error_FLIT_W_must_be_derived u_stop ();
        end
    endgenerate

    wire [N*4-1:0]     c_in_valid, c_in_ready, c_out_valid, c_out_ready;
    wire [N*4*128-1:0] c_in_hdr, c_out_hdr;
    wire [N*2*512-1:0] c_in_data, c_out_data;
    wire [N-1:0]       unsup;

    cxl_switch_core #(.N(N), .NDEC(NDEC), .NRT(NRT), .OT_DEPTH(OT_DEPTH), .VOQ(VOQ),
                      .VOQ_DEPTH(VOQ_DEPTH)) u_core (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid), .cfg_ready(cfg_ready), .cfg_write(cfg_write),
        .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(cfg_rvalid), .cfg_rdata(cfg_rdata),
        .cfg_resp(cfg_resp), .in_valid(c_in_valid), .in_ready(c_in_ready), .in_hdr(c_in_hdr),
        .in_data(c_in_data), .out_valid(c_out_valid), .out_ready(c_out_ready), .out_hdr(c_out_hdr),
        .out_data(c_out_data), .ev_unsup(unsup));

    genvar p;
    generate
        for (p = 0; p < N; p = p + 1) begin : g_port
            cxl_switch_linkport #(.UP(UP_MASK[p] ? 1 : 0), .PBR(PBR_MASK[p] ? 1 : 0),
                                  .FLIT_MODE(FLIT_MODE), .RX_DEPTH(RX_DEPTH), .REPLAY_DEPTH(REPLAY_DEPTH),
                                  .TIMEOUT_FLITS(TIMEOUT_FLITS), .SEQ_CRC(SEQ_CRC),
                                  .MAX_RETRY(MAX_RETRY)) u_lp (
                .clk(clk), .rst(rst),
                .c_in_valid(c_in_valid[p*4 +: 4]), .c_in_ready(c_in_ready[p*4 +: 4]),
                .c_in_hdr(c_in_hdr[p*512 +: 512]), .c_in_data(c_in_data[p*1024 +: 1024]),
                .c_out_valid(c_out_valid[p*4 +: 4]), .c_out_ready(c_out_ready[p*4 +: 4]),
                .c_out_hdr(c_out_hdr[p*512 +: 512]), .c_out_data(c_out_data[p*1024 +: 1024]),
                .unsup(unsup[p]),
                .tx_flit_valid(tx_flit_valid[p]), .tx_flit_ready(tx_flit_ready[p]),
                .tx_flit(tx_flit[p*FLIT_W +: FLIT_W]),
                .rx_flit_valid(rx_flit_valid[p]), .rx_flit(rx_flit[p*FLIT_W +: FLIT_W]),
                .link_up(link_up[p]), .link_fatal(link_fatal[p]));
        end
    endgenerate
endmodule
`default_nettype wire
