// Testbench wrapper (not a synthesis top): two N-port cxl_switch_core joined port N-1 to port N-1
// at message level (all 4 classes both ways, as a PBR fabric link would carry them, without the
// link layer). External lanes in cxl_switch_core's format: ports 0..N-2 are A's ports 0..N-2,
// ports N-1..2N-3 are B's ports 0..N-2. cfg_sel picks the switch configured. The 256B-link version
// of the same cascade is cxl_switch_cascade_tb.
module cxl_switch_cascade_core_tb #(
    parameter integer N   = 4,
    parameter integer NRT = 8,
    parameter integer M   = 2 * N - 2
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
    output wire [M*2*512-1:0]  out_data
);
    localparam integer E = N - 1;  // external ports per switch
    wire [N*4-1:0]     a_iv, a_ir, a_ov, a_or, b_iv, b_ir, b_ov, b_or;
    wire [N*4*128-1:0] a_ih, a_oh, b_ih, b_oh;
    wire [N*2*512-1:0] a_id, a_od, b_id, b_od;
    wire               a_ready, b_ready, a_rvalid, b_rvalid;
    wire [31:0]        a_rdata, b_rdata;
    wire [1:0]         a_resp, b_resp;

    cxl_switch_core #(.N(N), .NRT(NRT)) u_a (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid && !cfg_sel), .cfg_ready(a_ready),
        .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(a_rvalid),
        .cfg_rdata(a_rdata), .cfg_resp(a_resp), .in_valid(a_iv), .in_ready(a_ir), .in_hdr(a_ih),
        .in_data(a_id), .out_valid(a_ov), .out_ready(a_or), .out_hdr(a_oh), .out_data(a_od),
        .ev_unsup({N{1'b0}}));
    cxl_switch_core #(.N(N), .NRT(NRT)) u_b (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid && cfg_sel), .cfg_ready(b_ready),
        .cfg_write(cfg_write), .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(b_rvalid),
        .cfg_rdata(b_rdata), .cfg_resp(b_resp), .in_valid(b_iv), .in_ready(b_ir), .in_hdr(b_ih),
        .in_data(b_id), .out_valid(b_ov), .out_ready(b_or), .out_hdr(b_oh), .out_data(b_od),
        .ev_unsup({N{1'b0}}));
    assign cfg_ready  = cfg_sel ? b_ready : a_ready;
    assign cfg_rvalid = a_rvalid | b_rvalid;
    assign cfg_rdata  = b_rvalid ? b_rdata : a_rdata;
    assign cfg_resp   = b_rvalid ? b_resp : a_resp;

    // external ports
    assign a_iv[0 +: E*4]         = in_valid[0 +: E*4];
    assign b_iv[0 +: E*4]         = in_valid[E*4 +: E*4];
    assign in_ready               = {b_ir[0 +: E*4], a_ir[0 +: E*4]};
    assign a_ih[0 +: E*512]       = in_hdr[0 +: E*512];
    assign b_ih[0 +: E*512]       = in_hdr[E*512 +: E*512];
    assign a_id[0 +: E*1024]      = in_data[0 +: E*1024];
    assign b_id[0 +: E*1024]      = in_data[E*1024 +: E*1024];
    assign out_valid              = {b_ov[0 +: E*4], a_ov[0 +: E*4]};
    assign a_or[0 +: E*4]         = out_ready[0 +: E*4];
    assign b_or[0 +: E*4]         = out_ready[E*4 +: E*4];
    assign out_hdr                = {b_oh[0 +: E*512], a_oh[0 +: E*512]};
    assign out_data               = {b_od[0 +: E*1024], a_od[0 +: E*1024]};
    // the fabric connection: A port N-1 <-> B port N-1, every class both ways
    assign b_iv[E*4 +: 4]         = a_ov[E*4 +: 4];
    assign a_or[E*4 +: 4]         = b_ir[E*4 +: 4];
    assign b_ih[E*512 +: 512]     = a_oh[E*512 +: 512];
    assign b_id[E*1024 +: 1024]   = a_od[E*1024 +: 1024];
    assign a_iv[E*4 +: 4]         = b_ov[E*4 +: 4];
    assign b_or[E*4 +: 4]         = a_ir[E*4 +: 4];
    assign a_ih[E*512 +: 512]     = b_oh[E*512 +: 512];
    assign a_id[E*1024 +: 1024]   = b_od[E*1024 +: 1024];
endmodule
