`default_nettype none
// Testbench wrapper (not a synthesis top): cxl_switch with a partner cxl_link endpoint on every
// port, flits on the wire, and the partners' message lanes exposed in cxl_switch_core's lane
// format (in_* = messages the partner sends into switch port p, out_* = messages it received),
// so the same testbench drives the core and the link-level switch. A partner only sends what its
// link role can carry (host: M2S, device: S2M); other in_* lanes are never ready.
module cxl_switch_link_tb #(
    parameter integer N         = 4,
    parameter integer NDEC      = 4,
    parameter integer NRT       = 8,
    parameter integer VOQ_DEPTH = 2,
    parameter integer FLIT_MODE = 0,
    parameter [N-1:0] UP_MASK   = 4'b0011,
    parameter [N-1:0] PBR_MASK  = {N{1'b0}},
    parameter integer FLIT_W    = (FLIT_MODE != 0) ? 2048 : 528
) (
    input  wire                clk,
    input  wire                rst,
    // ports cfg_valid .. out_data of rtl/switch/cxl_switch_core.v (make gen)
    input  wire               cfg_valid,
    output wire               cfg_ready,
    input  wire               cfg_write,
    input  wire [11:0]        cfg_addr,
    input  wire [31:0]        cfg_wdata,
    output wire               cfg_rvalid,
    output wire [31:0]        cfg_rdata,
    output wire [1:0]         cfg_resp,
    input  wire [N*4-1:0]     in_valid,
    output wire [N*4-1:0]     in_ready,
    input  wire [N*4*128-1:0] in_hdr,
    input  wire [N*2*512-1:0] in_data,
    output wire [N*4-1:0]     out_valid,
    input  wire [N*4-1:0]     out_ready,
    output wire [N*4*128-1:0] out_hdr,
    output wire [N*2*512-1:0] out_data,
    // end of generated ports
    output wire [N-1:0]        link_up,
    output wire [N-1:0]        partner_up,
    output wire [N-1:0]        link_fatal
);
    wire [N-1:0]        s_tx_v, p_tx_v, p_fatal, p_unsup;
    wire [N*FLIT_W-1:0] s_tx_f, p_tx_f;

    cxl_switch #(.N(N), .NDEC(NDEC), .NRT(NRT), .VOQ_DEPTH(VOQ_DEPTH), .FLIT_MODE(FLIT_MODE),
                 .UP_MASK(UP_MASK), .PBR_MASK(PBR_MASK)) u_sw (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid), .cfg_ready(cfg_ready), .cfg_write(cfg_write),
        .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(cfg_rvalid), .cfg_rdata(cfg_rdata),
        .cfg_resp(cfg_resp), .tx_flit_valid(s_tx_v), .tx_flit_ready({N{1'b1}}), .tx_flit(s_tx_f),
        .rx_flit_valid(p_tx_v), .rx_flit(p_tx_f), .link_up(link_up), .link_fatal(link_fatal));

    genvar p;
    generate
        for (p = 0; p < N; p = p + 1) begin : g_partner
            localparam [3:0] SEND = UP_MASK[p] ? 4'b0011 : 4'b1100;  // host sends M2S, device S2M
            wire [3:0] o_ready;
            cxl_switch_linkport #(.UP(UP_MASK[p] ? 0 : 1), .PBR(PBR_MASK[p] ? 1 : 0),
                                  .FLIT_MODE(FLIT_MODE)) u_partner (
                .clk(clk), .rst(rst),
                .c_in_valid(out_valid[p*4 +: 4]), .c_in_ready(out_ready[p*4 +: 4]),
                .c_in_hdr(out_hdr[p*512 +: 512]), .c_in_data(out_data[p*1024 +: 1024]),
                .c_out_valid(in_valid[p*4 +: 4] & SEND), .c_out_ready(o_ready),
                .c_out_hdr(in_hdr[p*512 +: 512]), .c_out_data(in_data[p*1024 +: 1024]),
                .unsup(p_unsup[p]),
                .tx_flit_valid(p_tx_v[p]), .tx_flit_ready(1'b1), .tx_flit(p_tx_f[p*FLIT_W +: FLIT_W]),
                .rx_flit_valid(s_tx_v[p]), .rx_flit(s_tx_f[p*FLIT_W +: FLIT_W]),
                .link_up(partner_up[p]), .link_fatal(p_fatal[p]));
            assign in_ready[p*4 +: 4] = o_ready & SEND;
        end
    endgenerate
    wire unused = &{1'b0, p_fatal, p_unsup};
endmodule
`default_nettype wire
