`default_nettype none
// N-port CXL.mem switch core at message level: N cxl_switch_port + crossbar allocator + crossbar (cxl_switch_xbar) +
// configuration/counters. Port p, switch class c (0 M2S Req, 1 M2S RwD, 2 S2M NDR, 3 S2M DRS) is
// lane p*4+c of in_*/out_*; data lanes p*2+0 (RwD) and p*2+1 (DRS).
// Zero-load latency: in valid (cycle 0) -> stage 1 (1) -> stage 2 (2) -> VOQ head (3) -> egress
// buffer (4).
// Every VOQ head is a crossbar input of its egress (cxl_switch_alloc), so an ingress never blocks
// itself across egress ports.
module cxl_switch_core #(
    parameter integer N         = 4,
    parameter integer NDEC      = 4,
    parameter integer NRT       = 8,
    parameter integer OT_DEPTH  = 16,
    parameter integer VOQ       = 1,
    parameter integer VOQ_DEPTH = 4,
    parameter integer PW        = (N > 1) ? $clog2(N) : 1
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
    input  wire [N*4-1:0]      in_valid,
    output wire [N*4-1:0]      in_ready,
    input  wire [N*4*128-1:0]  in_hdr,
    input  wire [N*2*512-1:0]  in_data,
    output wire [N*4-1:0]      out_valid,
    input  wire [N*4-1:0]      out_ready,
    output wire [N*4*128-1:0]  out_hdr,
    output wire [N*2*512-1:0]  out_data,
    input  wire [N-1:0]        ev_unsup   // link wrapper drained a message the switch does not route
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 2 || N > 16) begin : g_bad_n
            cxl_switch_core_parameter_error_N_must_be_2_to_16 u_stop ();
        end
        if (OT_DEPTH < 1) begin : g_bad_ot_depth
            cxl_switch_core_parameter_error_OT_DEPTH_must_be_at_least_1 u_stop ();
        end
        if (VOQ != 0 && VOQ != 1) begin : g_bad_voq
            cxl_switch_core_parameter_error_VOQ_must_be_0_or_1 u_stop ();
        end
        if (VOQ_DEPTH < 2) begin : g_bad_voq_depth
            cxl_switch_core_parameter_error_VOQ_DEPTH_must_be_at_least_2 u_stop ();
        end
        if (PW != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_pw
            cxl_switch_core_parameter_error_PW_must_be_derived u_stop ();
        end
    endgenerate

    wire                  cfg_pbr, cfg_poison;
    wire [N-1:0]          cfg_en;
    wire [N*2-1:0]        cfg_role;
    wire [N*12-1:0]       cfg_pid;
    wire [NDEC-1:0]       dec_valid;
    wire [NDEC*24-1:0]    dec_base, dec_size;
    wire [NDEC*4-1:0]     dec_eiw;
    wire [NDEC*3-1:0]     dec_eig;
    wire [NDEC*16*12-1:0] dec_tgt;
    wire [NDEC*3-1:0]     dec_b3;
    wire [NDEC*11-1:0]    dec_s;
    wire [NDEC*16-1:0]    dec_thi;
    wire [NRT-1:0]        rt_valid;
    wire [NRT*12-1:0]     rt_dpid;
    wire [NRT*PW-1:0]     rt_port;
    wire [N*16-1:0]       ev;

    cxl_switch_cfg #(.N(N), .NDEC(NDEC), .NRT(NRT)) u_cfg (
        .clk(clk), .rst(rst), .cfg_valid(cfg_valid), .cfg_ready(cfg_ready), .cfg_write(cfg_write),
        .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(cfg_rvalid), .cfg_rdata(cfg_rdata),
        .cfg_resp(cfg_resp), .ev(ev), .ev_unsup(ev_unsup), .cfg_pbr(cfg_pbr), .cfg_poison(cfg_poison),
        .cfg_en(cfg_en), .cfg_role(cfg_role), .cfg_pid(cfg_pid), .dec_valid(dec_valid),
        .dec_base(dec_base), .dec_size(dec_size), .dec_eiw(dec_eiw), .dec_eig(dec_eig),
        .dec_tgt(dec_tgt), .dec_b3(dec_b3), .dec_s(dec_s), .dec_thi(dec_thi), .rt_valid(rt_valid),
        .rt_dpid(rt_dpid), .rt_port(rt_port));

    wire [N*N*4-1:0]   head_valid;  // [(i*N + j)*4 + c]
    wire [N*N*4-1:0]   pop;
    wire [N*4-1:0]     eg_rdy;
    wire [N*4-1:0]     eg_cv;           // [j*4 + c]: egress j takes a class-c message
    wire [N*N*4*128-1:0] q_hdr;        // every queue head of every ingress (cxl_switch_xbar order)
    wire [N*N*2*512-1:0] q_data;
    wire [N*128-1:0]     xi_hdr;       // per egress, through the crossbar
    wire [N*512-1:0]     xi_data;
    // outstanding-request tables: ingress i asks DSP d's table (tk_req[i*N + d]); table d serves
    // one ingress per cycle and tells it whether it recorded the request or found its key outstanding
    wire [N*N-1:0]     tk_req;          // [i*N + d]
    wire [N-1:0]       tk_drs;
    wire [N*20-1:0]    tk_key;
    wire [N*12-1:0]    tk_rq;
    wire [N-1:0]       tq_req [0:N-1];  // [d][i]
    wire [N-1:0]       tq_conf [0:N-1]; // [d][i]
    wire [N-1:0]       tq_rec [0:N-1];  // [d][i]
    wire [N-1:0]       tk_conf [0:N-1]; // [i][d]
    wire [N-1:0]       tk_rec [0:N-1];  // [i][d]

    cxl_switch_alloc #(.N(N)) u_alloc (
        .clk(clk), .rst(rst), .head_valid(head_valid), .eg_rdy(eg_rdy), .pop(pop), .eg_cv(eg_cv));
    cxl_switch_xbar #(.N(N)) u_xbar (
        .q_hdr(q_hdr), .q_data(q_data), .pop(pop), .xi_hdr(xi_hdr), .xi_data(xi_data));

    genvar p, k;
    generate
        for (p = 0; p < N; p = p + 1) begin : g_tk
            for (k = 0; k < N; k = k + 1) begin : g_k
                assign tq_req[p][k]  = tk_req[k*N + p];
                assign tk_conf[k][p] = tq_conf[p][k];
                assign tk_rec[k][p]  = tq_rec[p][k];
            end
        end
        for (p = 0; p < N; p = p + 1) begin : g_port
            wire [$clog2(OT_DEPTH+1)-1:0] ot_used;
            cxl_switch_port #(.N(N), .PORT(p), .NDEC(NDEC), .NRT(NRT), .OT_DEPTH(OT_DEPTH), .VOQ(VOQ),
                              .VOQ_DEPTH(VOQ_DEPTH)) u_port (
                .clk(clk), .rst(rst),
                .in_valid(in_valid[p*4 +: 4]), .in_ready(in_ready[p*4 +: 4]),
                .in_hdr(in_hdr[p*512 +: 512]), .in_data(in_data[p*1024 +: 1024]),
                .out_valid(out_valid[p*4 +: 4]), .out_ready(out_ready[p*4 +: 4]),
                .out_hdr(out_hdr[p*512 +: 512]), .out_data(out_data[p*1024 +: 1024]),
                .cfg_pbr(cfg_pbr), .cfg_poison(cfg_poison), .cfg_en(cfg_en), .cfg_role(cfg_role),
                .cfg_pid(cfg_pid), .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size),
                .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s),
                .dec_tgt(dec_tgt), .dec_thi(dec_thi), .rt_valid(rt_valid),
                .rt_dpid(rt_dpid), .rt_port(rt_port),
                .head_valid(head_valid[p*N*4 +: N*4]), .qo_hdr(q_hdr[p*N*4*128 +: N*4*128]), .qo_data(q_data[p*N*2*512 +: N*2*512]),
                .pop(pop[p*N*4 +: N*4]),
                .eg_rdy(eg_rdy[p*4 +: 4]), .xi_cv(eg_cv[p*4 +: 4]),
                .xi_hdr(xi_hdr[p*128 +: 128]), .xi_data(xi_data[p*512 +: 512]),
                .tk_req(tk_req[p*N +: N]), .tk_key(tk_key[p*20 +: 20]), .tk_drs(tk_drs[p]),
                .tk_rq(tk_rq[p*12 +: 12]), .tk_conf_in(tk_conf[p]), .tk_rec_in(tk_rec[p]),
                .tq_req(tq_req[p]), .tq_key(tk_key), .tq_drs(tk_drs), .tq_rq(tk_rq),
                .tq_conf(tq_conf[p]), .tq_rec(tq_rec[p]),
                .ev(ev[p*16 +: 16]), .ot_used(ot_used));
            wire unused_p = &{1'b0, ot_used};
        end
    endgenerate
endmodule
`default_nettype wire
