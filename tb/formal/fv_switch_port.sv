// Formal environment for the routing decision of rtl/switch/cxl_switch_port.v (port 1 of 4, 2 HDM
// decoders, 2 route-table entries): messages, configuration, crossbar and table handshakes are
// free in every cycle, with legal interleave settings (the ones cxl_switch_cfg accepts). The
// properties are in cxl_switch_port.props.svh, spliced into the module's scope.
module fv_switch_port #(
    parameter integer N = 4,
    parameter integer NDEC = 2,
    parameter integer NRT = 2,
    parameter integer PW = 2
) (
    input wire                  clk,
    input wire                  rst,
    input wire [3:0]            in_valid,
    input wire [4*128-1:0]      in_hdr,
    input wire [2*512-1:0]      in_data,
    input wire [3:0]            out_ready,
    input wire                  cfg_pbr,
    input wire                  cfg_poison,
    input wire [N-1:0]          cfg_en,
    input wire [N*2-1:0]        cfg_role,
    input wire [N*12-1:0]       cfg_pid,
    input wire [NDEC-1:0]       dec_valid,
    input wire [NDEC*24-1:0]    dec_base,
    input wire [NDEC*24-1:0]    dec_size,
    input wire [NDEC*4-1:0]     dec_eiw,
    input wire [NDEC*3-1:0]     dec_eig,
    input wire [NDEC*16*12-1:0] dec_tgt,
    input wire [NRT-1:0]        rt_valid,
    input wire [NRT*12-1:0]     rt_dpid,
    input wire [NRT*PW-1:0]     rt_port,
    input wire [N*4-1:0]        pop,
    input wire [3:0]            xi_cv,
    input wire [127:0]          xi_hdr,
    input wire [511:0]          xi_data,
    input wire [N-1:0]          tk_conf_in,
    input wire [N-1:0]          tk_rec_in,
    input wire [N-1:0]          tq_req,
    input wire [N*20-1:0]       tq_key,
    input wire [N-1:0]          tq_drs,
    input wire [N*12-1:0]       tq_rq
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);
    // the allocator grants an egress at most one class per cycle
    always @* assume ((xi_cv & (xi_cv - 4'd1)) == 4'd0);
    integer d;
    always @* begin
        for (d = 0; d < NDEC; d = d + 1) begin
            assume (dec_eiw[d*4 +: 4] <= 4'd4 || (dec_eiw[d*4 +: 4] >= 4'd8 && dec_eiw[d*4 +: 4] <= 4'd10));
            assume (dec_eig[d*3 +: 3] <= 3'd6);
        end
    end

    // the configuration terms cxl_switch_cfg registers with each decoder (fv_hdm_cfg_terms.sv)
    // and per target entry "the target is >= N"
    wire [NDEC*3-1:0]  dec_b3;
    wire [NDEC*11-1:0] dec_s;
    reg  [NDEC*16-1:0] dec_thi;
    integer            t;
    fv_hdm_cfg_terms #(.NDEC(NDEC)) u_terms (
        .dec_base(dec_base), .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s));
    always @* begin
        for (t = 0; t < NDEC * 16; t = t + 1) dec_thi[t] = dec_tgt[t*12 +: 12] >= 12'(N);
    end

    cxl_switch_port #(.N(N), .PORT(1), .NDEC(NDEC), .NRT(NRT), .OT_DEPTH(2), .VOQ(1),
                      .VOQ_DEPTH(2)) dut (
        .clk(clk), .rst(rst), .in_valid(in_valid), .in_ready(), .in_hdr(in_hdr), .in_data(in_data),
        .out_valid(), .out_ready(out_ready), .out_hdr(), .out_data(),
        .cfg_pbr(cfg_pbr), .cfg_poison(cfg_poison), .cfg_en(cfg_en), .cfg_role(cfg_role),
        .cfg_pid(cfg_pid), .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size),
        .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s), .dec_tgt(dec_tgt),
        .dec_thi(dec_thi), .rt_valid(rt_valid), .rt_dpid(rt_dpid), .rt_port(rt_port), .head_valid(), .qo_hdr(), .qo_data(), .pop(pop),
        .eg_rdy(), .xi_cv(xi_cv), .xi_hdr(xi_hdr), .xi_data(xi_data),
        .tk_req(), .tk_key(), .tk_drs(), .tk_rq(), .tk_conf_in(tk_conf_in), .tk_rec_in(tk_rec_in),
        .tq_req(tq_req), .tq_key(tq_key), .tq_drs(tq_drs), .tq_rq(tq_rq), .tq_conf(), .tq_rec(),
        .ev(), .ot_used());
endmodule
