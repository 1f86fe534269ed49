// Testbench wrapper (not a synthesis top): two N-port cxl_switch in PBR mode joined by a 256B PBR
// fabric link (switch A port N-1, link ROLE_DOWN <-> switch B port N-1, ROLE_UP), every other port
// with a partner endpoint (256B HBR). External lanes in cxl_switch_core's format: ports 0..N-2 are
// A's ports 0..N-2, ports N-1..2N-3 are B's ports 0..N-2. cfg_sel picks the switch configured.
module cxl_switch_cascade_tb #(
    parameter integer N         = 4,
    parameter integer NRT       = 8,
    parameter [N-1:0] UP_A      = 4'b0011,   // A: hosts on ports 0, 1
    parameter [N-1:0] UP_B      = 4'b1000,   // B: devices on 0..N-2, fabric port faces A
    parameter integer M         = 2 * N - 2
) (
    input  wire                clk,
    input  wire                rst,
    input  wire                cfg_sel,
    input  wire                cfg_valid,
    output wire                cfg_ready,
    input  wire                cfg_write,
    input  wire [11:0]         cfg_addr,
    input  wire [31:0]         cfg_wdata,
    output wire                cfg_rvalid,
    output wire [31:0]         cfg_rdata,
    output wire [1:0]          cfg_resp,
    input  wire [M*4-1:0]      in_valid,
    output wire [M*4-1:0]      in_ready,
    input  wire [M*4*128-1:0]  in_hdr,
    input  wire [M*2*512-1:0]  in_data,
    output wire [M*4-1:0]      out_valid,
    input  wire [M*4-1:0]      out_ready,
    output wire [M*4*128-1:0]  out_hdr,
    output wire [M*2*512-1:0]  out_data,
    output wire [2*N-1:0]      link_up,
    output wire [M-1:0]        partner_up
);
    localparam integer FW = 2048;
    localparam [N-1:0] PBR_F = {1'b1, {(N-1){1'b0}}};
    wire [N-1:0]    a_tv, b_tv, a_rv, b_rv, a_fatal, b_fatal;
    wire [N*FW-1:0] a_tf, b_tf, a_rf, b_rf;
    wire            a_ready, b_ready, a_rvalid, b_rvalid;
    wire [31:0]     a_rdata, b_rdata;
    wire [1:0]      a_resp, b_resp;

    cxl_switch #(.N(N), .NRT(NRT), .FLIT_MODE(1), .UP_MASK(UP_A), .PBR_MASK(PBR_F)) u_a (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid && !cfg_sel), .cfg_ready(a_ready),
        .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(a_rvalid),
        .cfg_rdata(a_rdata), .cfg_resp(a_resp), .tx_flit_valid(a_tv), .tx_flit_ready({N{1'b1}}),
        .tx_flit(a_tf), .rx_flit_valid(a_rv), .rx_flit(a_rf), .link_up(link_up[0 +: N]),
        .link_fatal(a_fatal));
    cxl_switch #(.N(N), .NRT(NRT), .FLIT_MODE(1), .UP_MASK(UP_B), .PBR_MASK(PBR_F)) u_b (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid && cfg_sel), .cfg_ready(b_ready),
        .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(b_rvalid),
        .cfg_rdata(b_rdata), .cfg_resp(b_resp), .tx_flit_valid(b_tv), .tx_flit_ready({N{1'b1}}),
        .tx_flit(b_tf), .rx_flit_valid(b_rv), .rx_flit(b_rf), .link_up(link_up[N +: N]),
        .link_fatal(b_fatal));
    assign cfg_ready  = cfg_sel ? b_ready : a_ready;
    assign cfg_rvalid = a_rvalid | b_rvalid;
    assign cfg_rdata  = b_rvalid ? b_rdata : a_rdata;
    assign cfg_resp   = b_rvalid ? b_resp : a_resp;

    // the fabric link
    assign b_rv[N-1] = a_tv[N-1];
    assign b_rf[(N-1)*FW +: FW] = a_tf[(N-1)*FW +: FW];
    assign a_rv[N-1] = b_tv[N-1];
    assign a_rf[(N-1)*FW +: FW] = b_tf[(N-1)*FW +: FW];

    genvar e;
    generate
        for (e = 0; e < M; e = e + 1) begin : g_ext
            localparam integer SB = (e >= N - 1) ? 1 : 0;      // on switch B
            localparam integer SP = (SB != 0) ? e - (N - 1) : e;      // port on that switch
            localparam integer UPP = (SB != 0) ? (UP_B[SP] ? 1 : 0) : (UP_A[SP] ? 1 : 0);
            localparam [3:0] SEND = (UPP != 0) ? 4'b0011 : 4'b1100;
            wire [3:0]  o_ready;
            wire        p_tv, p_fatal, p_unsup;
            wire [FW-1:0] p_tf;
            wire        s_tv = (SB != 0) ? b_tv[SP] : a_tv[SP];
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
                .rx_flit_valid(s_tv), .rx_flit(s_tf), .link_up(partner_up[e]), .link_fatal(p_fatal));
            assign in_ready[e*4 +: 4] = o_ready & SEND;
            wire unused_e = &{1'b0, p_fatal, p_unsup};
        end
    endgenerate
    wire unused = &{1'b0, a_fatal, b_fatal};
endmodule
