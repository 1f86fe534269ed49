`default_nettype none
// Testbench wrapper (test-only): two N-port switches in PBR joined port N-1 to port N-1.
// LINKS = 1: two cxl_switch with 256B links; the fabric link is a 256B PBR link (switch A port N-1
// ROLE_DOWN <-> switch B port N-1 ROLE_UP), every other port has a partner endpoint (256B HBR).
// LINKS = 0: two cxl_switch_core joined at message level (all 4 classes both ways, as a PBR fabric
// link would carry them, without the link layer); link_up / partner_up then read all ones.
// External lanes in cxl_switch_core's format: ports 0..N-2 are A's ports 0..N-2, ports N-1..2N-3
// are B's ports 0..N-2. cfg_sel picks the switch configured.
module cxl_switch_cascade_tb #(
    parameter integer LINKS = 1,            // 1: cxl_switch with 256B links, 0: cores at message level
    parameter integer N     = 4,            // ports per switch (the last one is the fabric port)
    parameter integer NRT   = 8,            // PBR route entries per switch
    parameter [N-1:0] UP_A  = 4'b0011,      // LINKS = 1: ports of A facing hosts (link ROLE_UP)
    parameter [N-1:0] UP_B  = 4'b1000,      // LINKS = 1: ports of B facing hosts; the fabric port faces A
    parameter integer M     = 2 * N - 2     // external ports
) (
    input  wire                clk,
    input  wire                rst,
    input  wire                cfg_sel,
    // ports cfg_valid .. out_data of rtl/switch/cxl_switch_core.v; N as M (make gen)
    input  wire               cfg_valid,
    output wire               cfg_ready,
    input  wire               cfg_write,
    input  wire [11:0]        cfg_addr,
    input  wire [31:0]        cfg_wdata,
    output wire               cfg_rvalid,
    output wire [31:0]        cfg_rdata,
    output wire [1:0]         cfg_resp,
    input  wire [M*4-1:0]     in_valid,
    output wire [M*4-1:0]     in_ready,
    input  wire [M*4*128-1:0] in_hdr,
    input  wire [M*2*512-1:0] in_data,
    output wire [M*4-1:0]     out_valid,
    input  wire [M*4-1:0]     out_ready,
    output wire [M*4*128-1:0] out_hdr,
    output wire [M*2*512-1:0] out_data,
    // end of generated ports
    output wire [2*N-1:0]      link_up,
    output wire [M-1:0]        partner_up
);
    localparam integer E = N - 1;  // external ports per switch
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (LINKS != 0 && LINKS != 1) begin : g_bad_links
            cxl_switch_cascade_tb_parameter_error_LINKS_must_be_0_or_1 u_stop ();
        end
        if (N < 2) begin : g_bad_n
            cxl_switch_cascade_tb_parameter_error_N_must_be_at_least_2 u_stop ();
        end
        if (M != 2 * N - 2) begin : g_bad_m
            cxl_switch_cascade_tb_parameter_error_M_must_be_derived u_stop ();
        end
    endgenerate

    wire        a_ready, b_ready, a_rvalid, b_rvalid;
    wire [31:0] a_rdata, b_rdata;
    wire [1:0]  a_resp, b_resp;
    // register port: the selected switch's cfg_ready takes the request; either switch's answer is
    // passed on (each answers a fixed time after it took a request, so answers keep request order)
    assign cfg_ready  = cfg_sel ? b_ready : a_ready;
    assign cfg_rvalid = a_rvalid | b_rvalid;
    assign cfg_rdata  = b_rvalid ? b_rdata : a_rdata;
    assign cfg_resp   = b_rvalid ? b_resp : a_resp;

    genvar e;
    generate
        if (LINKS != 0) begin : g_links
            localparam integer FW = 2048;
            localparam [N-1:0] PBR_F = {1'b1, {(N-1){1'b0}}};
            wire [N-1:0]    a_tv, b_tv, a_rv, b_rv, a_fatal, b_fatal;
            wire [N*FW-1:0] a_tf, b_tf, a_rf, b_rf;

            cxl_switch #(.N(N), .NRT(NRT), .FLIT_MODE(1), .UP_MASK(UP_A), .PBR_MASK(PBR_F)) u_a (
                .clk(clk), .rst(rst), .cfg_valid(cfg_valid && !cfg_sel), .cfg_ready(a_ready),
                .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
                .cfg_rvalid(a_rvalid), .cfg_rdata(a_rdata), .cfg_resp(a_resp), .tx_flit_valid(a_tv),
                .tx_flit_ready({N{1'b1}}), .tx_flit(a_tf), .rx_flit_valid(a_rv), .rx_flit(a_rf),
                .link_up(link_up[0 +: N]), .link_fatal(a_fatal));
            cxl_switch #(.N(N), .NRT(NRT), .FLIT_MODE(1), .UP_MASK(UP_B), .PBR_MASK(PBR_F)) u_b (
                .clk(clk), .rst(rst), .cfg_valid(cfg_valid && cfg_sel), .cfg_ready(b_ready),
                .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
                .cfg_rvalid(b_rvalid), .cfg_rdata(b_rdata), .cfg_resp(b_resp), .tx_flit_valid(b_tv),
                .tx_flit_ready({N{1'b1}}), .tx_flit(b_tf), .rx_flit_valid(b_rv), .rx_flit(b_rf),
                .link_up(link_up[N +: N]), .link_fatal(b_fatal));

            // the fabric link
            assign b_rv[E] = a_tv[E];
            assign b_rf[E*FW +: FW] = a_tf[E*FW +: FW];
            assign a_rv[E] = b_tv[E];
            assign a_rf[E*FW +: FW] = b_tf[E*FW +: FW];

            for (e = 0; e < M; e = e + 1) begin : g_ext
                localparam integer SB  = (e >= E) ? 1 : 0;           // on switch B
                localparam integer SP  = (SB != 0) ? e - E : e;      // port on that switch
                localparam integer UPP = (SB != 0) ? (UP_B[SP] ? 1 : 0) : (UP_A[SP] ? 1 : 0);
                localparam [3:0] SEND  = (UPP != 0) ? 4'b0011 : 4'b1100;  // host: M2S, device: S2M
                wire [3:0]    o_ready;
                wire          p_tv, p_fatal, p_unsup;
                wire [FW-1:0] p_tf;
                wire          s_tv = (SB != 0) ? b_tv[SP] : a_tv[SP];
                wire [FW-1:0] s_tf = (SB != 0) ? b_tf[SP*FW +: FW] : a_tf[SP*FW +: FW];
                if (SB != 0) begin : g_b
                    assign b_rv[SP] = p_tv;
                    assign b_rf[SP*FW +: FW] = p_tf;
                end else begin : g_a
                    assign a_rv[SP] = p_tv;
                    assign a_rf[SP*FW +: FW] = p_tf;
                end
                cxl_switch_linkport #(.UP((UPP != 0) ? 0 : 1), .PBR(0), .FLIT_MODE(1)) u_partner (
                    .clk(clk), .rst(rst),
                    .c_in_valid(out_valid[e*4 +: 4]), .c_in_ready(out_ready[e*4 +: 4]),
                    .c_in_hdr(out_hdr[e*512 +: 512]), .c_in_data(out_data[e*1024 +: 1024]),
                    .c_out_valid(in_valid[e*4 +: 4] & SEND), .c_out_ready(o_ready),
                    .c_out_hdr(in_hdr[e*512 +: 512]), .c_out_data(in_data[e*1024 +: 1024]),
                    .unsup(p_unsup), .tx_flit_valid(p_tv), .tx_flit_ready(1'b1), .tx_flit(p_tf),
                    .rx_flit_valid(s_tv), .rx_flit(s_tf), .link_up(partner_up[e]),
                    .link_fatal(p_fatal));
                assign in_ready[e*4 +: 4] = o_ready & SEND;
                wire unused_e = &{1'b0, p_fatal, p_unsup};
            end
            wire unused = &{1'b0, a_fatal, b_fatal};
        end else begin : g_core
            wire [N*4-1:0]     a_iv, a_ir, a_ov, a_or, b_iv, b_ir, b_ov, b_or;
            wire [N*4*128-1:0] a_ih, a_oh, b_ih, b_oh;
            wire [N*2*512-1:0] a_id, a_od, b_id, b_od;

            cxl_switch_core #(.N(N), .NRT(NRT)) u_a (
                .clk(clk), .rst(rst), .cfg_valid(cfg_valid && !cfg_sel), .cfg_ready(a_ready),
                .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
                .cfg_rvalid(a_rvalid), .cfg_rdata(a_rdata), .cfg_resp(a_resp), .in_valid(a_iv),
                .in_ready(a_ir), .in_hdr(a_ih), .in_data(a_id), .out_valid(a_ov), .out_ready(a_or),
                .out_hdr(a_oh), .out_data(a_od), .ev_unsup({N{1'b0}}));
            cxl_switch_core #(.N(N), .NRT(NRT)) u_b (
                .clk(clk), .rst(rst), .cfg_valid(cfg_valid && cfg_sel), .cfg_ready(b_ready),
                .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata),
                .cfg_rvalid(b_rvalid), .cfg_rdata(b_rdata), .cfg_resp(b_resp), .in_valid(b_iv),
                .in_ready(b_ir), .in_hdr(b_ih), .in_data(b_id), .out_valid(b_ov), .out_ready(b_or),
                .out_hdr(b_oh), .out_data(b_od), .ev_unsup({N{1'b0}}));

            // external ports
            assign a_iv[0 +: E*4]    = in_valid[0 +: E*4];
            assign b_iv[0 +: E*4]    = in_valid[E*4 +: E*4];
            assign in_ready          = {b_ir[0 +: E*4], a_ir[0 +: E*4]};
            assign a_ih[0 +: E*512]  = in_hdr[0 +: E*512];
            assign b_ih[0 +: E*512]  = in_hdr[E*512 +: E*512];
            assign a_id[0 +: E*1024] = in_data[0 +: E*1024];
            assign b_id[0 +: E*1024] = in_data[E*1024 +: E*1024];
            assign out_valid         = {b_ov[0 +: E*4], a_ov[0 +: E*4]};
            assign a_or[0 +: E*4]    = out_ready[0 +: E*4];
            assign b_or[0 +: E*4]    = out_ready[E*4 +: E*4];
            assign out_hdr           = {b_oh[0 +: E*512], a_oh[0 +: E*512]};
            assign out_data          = {b_od[0 +: E*1024], a_od[0 +: E*1024]};
            // the fabric connection: A port N-1 <-> B port N-1, every class both ways
            assign b_iv[E*4 +: 4]       = a_ov[E*4 +: 4];
            assign a_or[E*4 +: 4]       = b_ir[E*4 +: 4];
            assign b_ih[E*512 +: 512]   = a_oh[E*512 +: 512];
            assign b_id[E*1024 +: 1024] = a_od[E*1024 +: 1024];
            assign a_iv[E*4 +: 4]       = b_ov[E*4 +: 4];
            assign b_or[E*4 +: 4]       = a_ir[E*4 +: 4];
            assign a_ih[E*512 +: 512]   = b_oh[E*512 +: 512];
            assign a_id[E*1024 +: 1024] = b_od[E*1024 +: 1024];
            assign link_up    = {2*N{1'b1}};
            assign partner_up = {M{1'b1}};
        end
    endgenerate
endmodule
`default_nettype wire
