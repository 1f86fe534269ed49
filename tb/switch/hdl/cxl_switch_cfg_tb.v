`default_nettype none
// Testbench wrapper (not a synthesis top): cxl_switch_cfg with its register port and event inputs
// at the top, configuration outputs left open. As the top, cxl_switch_cfg would have every net of
// its adder and comparator networks made public (the runner's --public-depth 1: a 200 MB C++
// build); behind this wrapper only the ports here and the counter state `u_cfg.cnt`
// (cxl_switch_cfg_tb.vlt, loaded by tb/switch/tb_switch_cfg.py) are visible.
module cxl_switch_cfg_tb #(
    parameter integer N    = 8,
    parameter integer NDEC = 4,
    parameter integer NRT  = 16
) (
    input  wire            clk,
    input  wire            rst,
    input  wire            cfg_valid,
    output wire            cfg_ready,
    input  wire            cfg_write,
    input  wire [11:0]     cfg_addr,
    input  wire [31:0]     cfg_wdata,
    output wire            cfg_rvalid,
    output wire [31:0]     cfg_rdata,
    output wire [1:0]      cfg_resp,
    input  wire [N*16-1:0] ev,
    input  wire [N-1:0]    ev_unsup
);
    cxl_switch_cfg #(.N(N), .NDEC(NDEC), .NRT(NRT)) u_cfg (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid), .cfg_ready(cfg_ready), .cfg_write(cfg_write),
        .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(cfg_rvalid), .cfg_rdata(cfg_rdata),
        .cfg_resp(cfg_resp), .ev(ev), .ev_unsup(ev_unsup),
        /* verilator lint_off PINCONNECTEMPTY */
        .cfg_pbr(), .cfg_poison(), .cfg_en(), .cfg_role(), .cfg_pid(), .dec_valid(), .dec_base(),
        .dec_size(), .dec_eiw(), .dec_eig(), .dec_tgt(), .rt_valid(), .rt_dpid(), .rt_port()
        /* verilator lint_on PINCONNECTEMPTY */
    );
endmodule
`default_nettype wire
