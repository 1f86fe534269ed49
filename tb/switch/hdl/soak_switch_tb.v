`default_nettype none
// Switch soak top (test-only): the real cxl_switch (68B links) with a partner cxl_link endpoint
// (cxl_switch_linkport, as cxl_switch_link_tb) on every port and a faulty channel (soak_chan: bit
// errors at a BER, bursts, dropped and duplicated flits, wire stalls) on each direction of every
// switch <-> partner link. Ports 0..NH-1 face hosts (soak_sw_host: MemRd / MemWr to every device,
// checkers of the answers), ports NH..N-1 face devices (soak_sw_dev: checkers of the requests, an
// answer to each). The switch routes requests by HDM decode (the testbench programs an ND-way
// interleave over the device ports through cfg_* once, then raises `go`) and answers back through
// its outstanding-request table. Checked order is the one the switch guarantees
// (rtl/switch/README.md: per class, per (ingress, egress) FIFO): per flow (host, device, class)
// in both directions. Totals come out as counters, so a soak runs without Python in the cycle
// loop; link statistics are read from inside the link ports.
module soak_switch_tb #(
    parameter integer N             = 4,     // switch ports = NH + ND
    parameter integer NH            = 2,     // hosts (ports 0..NH-1), 1..4
    parameter integer ND            = N - NH,// devices (ports NH..N-1): 1, 2 or 4 (derived)
    parameter integer FLIT_MODE     = 0,     // 68B links only
    parameter integer SEQ_CRC       = 1,     // every link's cxl_link SEQ_CRC (both ends)
    parameter integer VOQ_DEPTH     = 4,
    parameter integer OT_DEPTH      = 16,
    parameter integer RX_DEPTH      = 16,
    parameter integer REPLAY_DEPTH  = 32,
    parameter integer TIMEOUT_FLITS = 64,
    parameter integer MAX_RETRY     = 31,    // every link's cxl_link MAX_RETRY (both ends), as the link soak
    parameter integer FLIT_W        = 528    // derived
) (
    input  wire         clk,
    input  wire         rst,
    input  wire         go,
    // ports cfg_valid .. cfg_resp of rtl/switch/cxl_switch_core.v (make gen)
    input  wire        cfg_valid,
    output wire        cfg_ready,
    input  wire        cfg_write,
    input  wire [11:0] cfg_addr,
    input  wire [31:0] cfg_wdata,
    output wire        cfg_rvalid,
    output wire [31:0] cfg_rdata,
    output wire [1:0]  cfg_resp,
    // end of generated ports
    input  wire [63:0]  seed,
    input  wire [31:0]  n_msgs,        // per flow (host, device, class)
    input  wire [15:0]  gen_p,
    input  wire [15:0]  rdy_on_p,
    input  wire [15:0]  rdy_off_p,
    input  wire [31:0]  ber_inv,
    input  wire [31:0]  burst_p,
    input  wire [31:0]  drop_p,
    input  wire [31:0]  dup_p,
    input  wire [15:0]  stall_p,
    input  wire [31:0]  inj_dup_at,    // host 0, flow (device 0, Req); see soak_sw_host
    input  wire [31:0]  inj_flip_at,
    input  wire [31:0]  inj_skip_at,
    output wire [31:0]  q_sent, q_ok, q_uniq, q_dup, q_reord, q_corrupt,   // requests
    output wire [31:0]  p_sent, p_ok, p_uniq, p_dup, p_reord, p_corrupt,   // answers
    output wire [31:0]  c_flits, c_err_flits, c_bits, c_bursts, c_drops, c_dups,
    output wire [31:0]  crc_err, retry, proto_err,
    output wire         fatal, overflow, credit_err,
    output wire         hosts_done,    // every host has sent all its messages
    output reg          unsup,         // a partner drained a message its link role cannot carry
    output wire [N-1:0] link_up, partner_up,
    output wire [11:0]  n_flows
);
    generate
        if (FLIT_MODE != 0) begin : g_bad_flit_mode
            soak_switch_tb_parameter_error_FLIT_MODE_must_be_0 u_stop ();
        end
        if (NH < 1 || NH > 4) begin : g_bad_nh
            soak_switch_tb_parameter_error_NH_must_be_1_to_4 u_stop ();
        end
        if (ND != N - NH || (ND != 1 && ND != 2 && ND != 4)) begin : g_bad_nd
            soak_switch_tb_parameter_error_ND_must_be_N_minus_NH_and_1_2_or_4 u_stop ();
        end
        if (FLIT_W != 528) begin : g_bad_flit_w
            soak_switch_tb_parameter_error_FLIT_W_must_be_derived u_stop ();
        end
    endgenerate
    localparam [N-1:0] UP_MASK = N'((1 << NH) - 1);

    // Knobs are registered: Verilator re-evaluates all logic that depends combinationally on a
    // top-level input at every clock edge (cocotb builds with --public-flat-rw), and the message
    // content, seeded from `seed`, feeds most of the design.
    reg [63:0] r_seed;
    reg [31:0] r_n_msgs, r_ber_inv, r_burst_p, r_drop_p, r_dup_p, r_dup_at, r_flip_at, r_skip_at;
    reg [15:0] r_gen_p, r_rdy_on_p, r_rdy_off_p, r_stall_p;
    reg        r_go, r_rst;
    always @(posedge clk) begin
        r_rst <= rst;
        r_seed <= seed;       r_n_msgs <= n_msgs;   r_ber_inv <= ber_inv;  r_burst_p <= burst_p;
        r_drop_p <= drop_p;   r_dup_p <= dup_p;     r_dup_at <= inj_dup_at; r_flip_at <= inj_flip_at;
        r_skip_at <= inj_skip_at; r_gen_p <= gen_p; r_rdy_on_p <= rdy_on_p; r_rdy_off_p <= rdy_off_p;
        r_stall_p <= stall_p; r_go <= go;
    end
    assign n_flows = 12'(NH * ND * 2);

    wire [N-1:0]        s_tx_v, s_tx_r, s_rx_v, p_tx_v, p_tx_r, p_rx_v, s_fatal, p_fatal, p_unsup;
    wire [N*FLIT_W-1:0] s_tx_f, s_rx_f, p_tx_f, p_rx_f;

    cxl_switch #(.N(N), .NDEC(4), .NRT(8), .OT_DEPTH(OT_DEPTH), .VOQ_DEPTH(VOQ_DEPTH),
                 .FLIT_MODE(FLIT_MODE), .UP_MASK(UP_MASK), .RX_DEPTH(RX_DEPTH),
                 .REPLAY_DEPTH(REPLAY_DEPTH), .TIMEOUT_FLITS(TIMEOUT_FLITS), .SEQ_CRC(SEQ_CRC),
                 .MAX_RETRY(MAX_RETRY)) u_sw (
        .clk(clk), .rst(r_rst), .cfg_valid(cfg_valid), .cfg_ready(cfg_ready), .cfg_write(cfg_write),
        .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(cfg_rvalid), .cfg_rdata(cfg_rdata),
        .cfg_resp(cfg_resp), .tx_flit_valid(s_tx_v), .tx_flit_ready(s_tx_r), .tx_flit(s_tx_f),
        .rx_flit_valid(s_rx_v), .rx_flit(s_rx_f), .link_up(link_up), .link_fatal(s_fatal));

    // per port: channel counters (dn: switch -> partner, up: partner -> switch), checker counters,
    // link statistics of both ends
    wire [31:0] cc [0:2*N-1][0:5];
    wire [31:0] mc [0:N-1][0:5];
    wire [15:0] ls [0:2*N-1][0:2];
    wire [2*N-1:0] l_ovf, l_cerr;
    wire [N-1:0]   h_done;
    assign hosts_done = &h_done;

    genvar p;
    generate
        for (p = 0; p < N; p = p + 1) begin : g_p
            localparam integer HOST = (p < NH) ? 1 : 0;
            wire [3:0]    o_valid, o_ready, i_valid, i_ready;
            wire [511:0]  o_hdr, i_hdr;
            wire [1023:0] o_data, i_data;

            soak_chan #(.W(FLIT_W)) u_dn (
                .clk(clk), .rst(r_rst), .seed(r_seed ^ (64'hA5A5_0000_0000_0001 + 64'(2*p))),
                .ber_inv(r_ber_inv), .burst_p(r_burst_p), .drop_p(r_drop_p), .dup_p(r_dup_p), .stall_p(r_stall_p),
                .in_valid(s_tx_v[p]), .in_ready(s_tx_r[p]), .in_flit(s_tx_f[p*FLIT_W +: FLIT_W]),
                .out_valid(p_rx_v[p]), .out_flit(p_rx_f[p*FLIT_W +: FLIT_W]),
                .n_flits(cc[2*p][0]), .n_err_flits(cc[2*p][1]), .n_bits(cc[2*p][2]),
                .n_bursts(cc[2*p][3]), .n_drops(cc[2*p][4]), .n_dups(cc[2*p][5]));
            soak_chan #(.W(FLIT_W)) u_up (
                .clk(clk), .rst(r_rst), .seed(r_seed ^ (64'h5A5A_0000_0000_0002 + 64'(2*p))),
                .ber_inv(r_ber_inv), .burst_p(r_burst_p), .drop_p(r_drop_p), .dup_p(r_dup_p), .stall_p(r_stall_p),
                .in_valid(p_tx_v[p]), .in_ready(p_tx_r[p]), .in_flit(p_tx_f[p*FLIT_W +: FLIT_W]),
                .out_valid(s_rx_v[p]), .out_flit(s_rx_f[p*FLIT_W +: FLIT_W]),
                .n_flits(cc[2*p+1][0]), .n_err_flits(cc[2*p+1][1]), .n_bits(cc[2*p+1][2]),
                .n_bursts(cc[2*p+1][3]), .n_drops(cc[2*p+1][4]), .n_dups(cc[2*p+1][5]));

            // partner endpoint: o_* = messages it sends into switch port p, i_* = messages it got
            cxl_switch_linkport #(.UP(HOST != 0 ? 0 : 1), .FLIT_MODE(FLIT_MODE), .RX_DEPTH(RX_DEPTH),
                                  .REPLAY_DEPTH(REPLAY_DEPTH), .TIMEOUT_FLITS(TIMEOUT_FLITS),
                                  .SEQ_CRC(SEQ_CRC), .MAX_RETRY(MAX_RETRY)) u_partner (
                .clk(clk), .rst(r_rst),
                .c_in_valid(i_valid), .c_in_ready(i_ready), .c_in_hdr(i_hdr), .c_in_data(i_data),
                .c_out_valid(o_valid), .c_out_ready(o_ready), .c_out_hdr(o_hdr), .c_out_data(o_data),
                .unsup(p_unsup[p]),
                .tx_flit_valid(p_tx_v[p]), .tx_flit_ready(p_tx_r[p]), .tx_flit(p_tx_f[p*FLIT_W +: FLIT_W]),
                .rx_flit_valid(p_rx_v[p]), .rx_flit(p_rx_f[p*FLIT_W +: FLIT_W]),
                .link_up(partner_up[p]), .link_fatal(p_fatal[p]));

            // link statistics of both ends (inside cxl_switch_linkport)
            assign ls[2*p][0]   = u_sw.g_port[p].u_lp.s_crc;
            assign ls[2*p][1]   = u_sw.g_port[p].u_lp.s_retry;
            assign ls[2*p][2]   = u_sw.g_port[p].u_lp.s_proto;
            assign l_ovf[2*p]   = u_sw.g_port[p].u_lp.d_ovf;
            assign l_cerr[2*p]  = u_sw.g_port[p].u_lp.d_cerr;
            assign ls[2*p+1][0] = u_partner.s_crc;
            assign ls[2*p+1][1] = u_partner.s_retry;
            assign ls[2*p+1][2] = u_partner.s_proto;
            assign l_ovf[2*p+1] = u_partner.d_ovf;
            assign l_cerr[2*p+1] = u_partner.d_cerr;

            if (HOST != 0) begin : g_host
                wire [1:0] tv;
                soak_sw_host #(.HI(p), .ND(ND)) u_h (
                    .clk(clk), .rst(r_rst), .go(r_go), .seed(r_seed), .n_msgs(r_n_msgs), .gen_p(r_gen_p),
                    .rdy_on_p(r_rdy_on_p), .rdy_off_p(r_rdy_off_p),
                    .inj_dup_at(p == 0 ? r_dup_at : 32'd0), .inj_flip_at(p == 0 ? r_flip_at : 32'd0),
                    .inj_skip_at(p == 0 ? r_skip_at : 32'd0),
                    .done(h_done[p]), .tx_valid(tv), .tx_ready(o_ready[1:0]), .tx_hdr(o_hdr[255:0]), .tx_data(o_data[511:0]),
                    .rx_valid(i_valid[3:2]), .rx_ready(i_ready[3:2]), .rx_hdr(i_hdr[511:256]),
                    .rx_data(i_data[1023:512]),
                    .n_sent(mc[p][0]), .n_ok(mc[p][1]), .n_uniq(mc[p][2]), .n_dup(mc[p][3]),
                    .n_reord(mc[p][4]), .n_corrupt(mc[p][5]));
                assign o_valid = {2'b00, tv};
                assign o_hdr[511:256] = 256'd0;
                assign o_data[1023:512] = 512'd0;
                assign i_ready[1:0] = 2'b11;
                wire unused_h = &{1'b0, o_ready[3:2], i_valid[1:0], i_hdr[255:0], i_data[511:0]};
            end else begin : g_dev
                wire [1:0] tv;
                soak_sw_dev #(.DI(p - NH), .NH(NH), .ND(ND)) u_d (
                    .clk(clk), .rst(r_rst), .seed(r_seed), .gen_p(r_gen_p), .rdy_on_p(r_rdy_on_p),
                    .rdy_off_p(r_rdy_off_p),
                    .rx_valid(i_valid[1:0]), .rx_ready(i_ready[1:0]), .rx_hdr(i_hdr[255:0]),
                    .rx_data(i_data[511:0]),
                    .tx_valid(tv), .tx_ready(o_ready[3:2]), .tx_hdr(o_hdr[511:256]),
                    .tx_data(o_data[1023:512]),
                    .n_sent(mc[p][0]), .n_ok(mc[p][1]), .n_uniq(mc[p][2]), .n_dup(mc[p][3]),
                    .n_reord(mc[p][4]), .n_corrupt(mc[p][5]));
                assign o_valid = {tv, 2'b00};
                assign o_hdr[255:0] = 256'd0;
                assign o_data[511:0] = 512'd0;
                assign i_ready[3:2] = 2'b11;
                assign h_done[p] = 1'b1;
                wire unused_d = &{1'b0, o_ready[1:0], i_valid[3:2], i_hdr[511:256], i_data[1023:512]};
            end
        end
    endgenerate

    // totals: requests are checked at the devices, answers at the hosts
    function automatic [31:0] sum_m(input integer lo, input integer hi_, input integer k,
                                    input [N*6*32-1:0] v);
        integer i;
        begin
            sum_m = 32'd0;
            for (i = lo; i < hi_; i = i + 1) sum_m = sum_m + v[(i*6 + k)*32 +: 32];
        end
    endfunction
    function automatic [31:0] sum_c(input integer k, input [2*N*6*32-1:0] v);
        integer i;
        begin
            sum_c = 32'd0;
            for (i = 0; i < 2*N; i = i + 1) sum_c = sum_c + v[(i*6 + k)*32 +: 32];
        end
    endfunction
    function automatic [31:0] sum_l(input integer k, input [2*N*3*16-1:0] v);
        integer i;
        begin
            sum_l = 32'd0;
            for (i = 0; i < 2*N; i = i + 1) sum_l = sum_l + 32'(v[(i*3 + k)*16 +: 16]);
        end
    endfunction
    wire [N*6*32-1:0]   mv;
    wire [2*N*6*32-1:0] cv;
    wire [2*N*3*16-1:0] lv;
    generate
        for (genvar i = 0; i < 2*N; i = i + 1) begin : g_flat
            for (genvar k = 0; k < 6; k = k + 1) begin : g_k
                assign cv[(i*6 + k)*32 +: 32] = cc[i][k];
                if (i < N) begin : g_m
                    assign mv[(i*6 + k)*32 +: 32] = mc[i][k];
                end
            end
            for (genvar k = 0; k < 3; k = k + 1) begin : g_l
                assign lv[(i*3 + k)*16 +: 16] = ls[i][k];
            end
        end
    endgenerate
    // hosts count requests sent and answers checked; devices the other way round
    assign q_sent    = sum_m(0, NH, 0, mv);
    assign p_ok      = sum_m(0, NH, 1, mv);
    assign p_uniq    = sum_m(0, NH, 2, mv);
    assign p_dup     = sum_m(0, NH, 3, mv);
    assign p_reord   = sum_m(0, NH, 4, mv);
    assign p_corrupt = sum_m(0, NH, 5, mv);
    assign p_sent    = sum_m(NH, N, 0, mv);
    assign q_ok      = sum_m(NH, N, 1, mv);
    assign q_uniq    = sum_m(NH, N, 2, mv);
    assign q_dup     = sum_m(NH, N, 3, mv);
    assign q_reord   = sum_m(NH, N, 4, mv);
    assign q_corrupt = sum_m(NH, N, 5, mv);
    assign c_flits     = sum_c(0, cv);
    assign c_err_flits = sum_c(1, cv);
    assign c_bits      = sum_c(2, cv);
    assign c_bursts    = sum_c(3, cv);
    assign c_drops     = sum_c(4, cv);
    assign c_dups      = sum_c(5, cv);
    assign crc_err   = sum_l(0, lv);
    assign retry     = sum_l(1, lv);
    assign proto_err = sum_l(2, lv);
    assign fatal      = |{s_fatal, p_fatal};
    assign overflow   = |l_ovf;
    assign credit_err = |l_cerr;
    always @(posedge clk) begin
        if (r_rst)        unsup <= 1'b0;
        else if (|p_unsup) unsup <= 1'b1;
    end
endmodule
`default_nettype wire
