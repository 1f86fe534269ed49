`timescale 1ns/1ps
// Test-only hardware-in-the-loop top: rtl/edge/sp_rack_edge with one hil_port per bridge (request
// streams loaded in bulk, responses checked and time-stamped in RTL, records read back in bulk),
// its own 1 GHz clock (Python is not woken per cycle), and the peer caching devices idle. Every
// port the testbench touches is public; nothing inside is (Verilator optimizes the design freely).
//
// Timing for the testbench: the clock rises at k + 0.5 ns, so at an integer time k the outputs are
// settled after the rising edge of cycle k and inputs written then are sampled at the next one.
// `now` counts rising edges since reset; `t_run` latches `now` at the rising edge that first sees
// `run`, and the ports start one cycle later (they see `run` delayed), so every arrival time is
// t_run + the sum of the gaps, as the testbench computes it.
//
// status (per bridge b, 192 bits at b*192; see hil_port) followed by {links_fatal, links_up}.
module sp_edge_hil #(
    parameter integer NBR       = 2,
    parameter integer CASCADE   = 1,
    parameter integer LINKS     = 0,
    parameter integer CASC_FLIT = 0,
    parameter integer MN_AW     = 18,
    parameter integer CH        = 256,          // records per bulk row (one transfer each way per cycle)
    parameter integer SAW       = 13,           // stimulus ring: 2^SAW records per bridge
    parameter integer CAW       = 13,           // capture ring: 2^CAW records per bridge
    // cxl_link retry timeout (transmitted flits): the wire here is one register stage, so a RETRY.Req
    // is answered within about 20 flits (6 back, a sequence or all-data flit in progress, pipeline);
    // the spec's 4096 is sized for long PHY round trips and would make every lost Req/Ack cost 4096
    // cycles (at the bit error rates the tests use, most of the run).
    parameter integer LK_TIMEOUT = 64,
    parameter integer NMN       = (CASCADE != 0) ? 3 : 1,
    parameter integer NLK       = 2 * NBR + 2 + ((CASCADE != 0) ? 3 : 0)
) (
    input  wire [0:0]           rst            /*verilator public_flat_rw*/,
    input  wire [0:0]           run            /*verilator public_flat_rw*/,
    input  wire [15:0]          t2_lat         /*verilator public_flat_rw*/,
    input  wire [15:0]          ha_lat         /*verilator public_flat_rw*/,
    input  wire [16:0]          ready_thr      /*verilator public_flat_rw*/,
    input  wire [0:0]           cfg_sel        /*verilator public_flat_rw*/,
    input  wire [0:0]           cfg_valid      /*verilator public_flat_rw*/,
    output wire [0:0]           cfg_ready      /*verilator public_flat_rw*/,
    input  wire [0:0]           cfg_write      /*verilator public_flat_rw*/,
    input  wire [11:0]          cfg_addr       /*verilator public_flat_rw*/,
    input  wire [31:0]          cfg_wdata      /*verilator public_flat_rw*/,
    output wire [0:0]           cfg_rvalid     /*verilator public_flat_rw*/,
    output wire [31:0]          cfg_rdata      /*verilator public_flat_rw*/,
    output wire [1:0]           cfg_resp       /*verilator public_flat_rw*/,
    input  wire [1:0]           coh_en         /*verilator public_flat_rw*/,
    input  wire [2*46-1:0]      coh_lo         /*verilator public_flat_rw*/,
    input  wire [2*46-1:0]      coh_hi         /*verilator public_flat_rw*/,
    input  wire [31:0]          ber_thresh     /*verilator public_flat_rw*/,
    input  wire [NLK-1:0]       ber_mask       /*verilator public_flat_rw*/,
    input  wire [NBR-1:0]       stim_wvalid    /*verilator public_flat_rw*/,
    input  wire [NBR*CH*64-1:0] stim_wdata     /*verilator public_flat_rw*/,
    input  wire [NBR-1:0]       stim_more      /*verilator public_flat_rw*/,
    input  wire [NBR-1:0]       cap_take       /*verilator public_flat_rw*/,
    output wire [NBR*CH*128-1:0] cap_win       /*verilator public_flat_rw*/,
    output wire [NBR*32-1:0]    cap_pos        /*verilator public_flat_rw*/,   // per bridge {n, off}
    output wire [NBR*192+1:0]   status         /*verilator public_flat_rw*/,
    output reg  [31:0]          now            /*verilator public_flat_rw*/,
    output wire [31:0]          geom           /*verilator public_flat_rw*/,   // {CAW, SAW, CH}
    output reg  [31:0]          t_run          /*verilator public_flat_rw*/,
    output wire [NBR*16-1:0]    br_stat_err    /*verilator public_flat_rw*/,
    output wire [NBR*16-1:0]    br_stat_proto_err /*verilator public_flat_rw*/,
    output wire [NBR-1:0]       br_wb_empty    /*verilator public_flat_rw*/,
    output wire [6*16-1:0]      ha_err_count   /*verilator public_flat_rw*/,
    output wire [0:0]           err_bridge_h2d /*verilator public_flat_rw*/,
    output wire [NLK-1:0]       lk_up          /*verilator public_flat_rw*/,
    output wire [NLK-1:0]       lk_fatal       /*verilator public_flat_rw*/,
    output wire [NLK*16-1:0]    lk_retry       /*verilator public_flat_rw*/,
    output wire [NLK*16-1:0]    lk_crc         /*verilator public_flat_rw*/,
    output wire [NLK*32-1:0]    lk_flips       /*verilator public_flat_rw*/,
    output wire [(NMN+1)*32-1:0] mn_alias      /*verilator public_flat_rw*/
);
    localparam [63:0] WIN_BASE = 64'h1_0000_0000;
    localparam [63:0] HPA_BASE = 64'h40_0000_0000;
    localparam integer NPEER = 2;

    assign geom = {8'(CAW), 8'(SAW), 16'(CH)};

    reg clk;
    initial clk = 1'b0;
    always #0.5 clk = ~clk;

    reg run_q;
    always @(posedge clk) begin
        if (rst[0]) begin
            now   <= 32'd0;
            run_q <= 1'b0;
            t_run <= 32'd0;
        end else begin
            now   <= now + 32'd1;
            run_q <= run[0];
            if (run[0] && !run_q) t_run <= now;
        end
    end

    wire [NBR-1:0]     xl_rx_valid, xl_rx_ready, xl_rx_last, xl_tx_valid, xl_tx_ready, xl_tx_last;
    wire [NBR*512-1:0] xl_rx_data, xl_tx_data;
    wire [NBR-1:0]     line_valid;
    wire [NBR*3-1:0]   line_kind;
    wire [NBR*16-1:0]  line_seq;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [NPEER-1:0]   p_req_rdy, p_rsp_rdy, p_dat_rdy, p_h2d_req_v, p_h2d_rsp_v, p_h2d_dat_v;
    wire [NPEER*128-1:0] p_h2d_req_h, p_h2d_rsp_h, p_h2d_dat_h;
    wire [NPEER*512-1:0] p_h2d_dat_d;
    wire [(6*NBR + 4*(NMN+1))-1:0] tap_valid, tap_ready;
    wire [(6*NBR + 4*(NMN+1))*16-1:0] tap_id;
    wire [45:0]        tap_ha_line;
    /* verilator lint_on UNUSEDSIGNAL */

    genvar gb;
    generate
        for (gb = 0; gb < NBR; gb = gb + 1) begin : g_port
            hil_port #(.B(gb), .FLAVOR(gb), .WIN_BASE(WIN_BASE), .HPA_BASE(HPA_BASE), .CH(CH), .SAW(SAW),
                       .CAW(CAW)) u_port (
                .clk(clk), .rst(rst[0]), .run(run_q), .now(now), .t_run(t_run), .ready_thr(ready_thr),
                .stim_wvalid(stim_wvalid[gb]), .stim_wdata(stim_wdata[gb*CH*64 +: CH*64]),
                .stim_more(stim_more[gb]), .cap_take(cap_take[gb]), .cap_win(cap_win[gb*CH*128 +: CH*128]),
                .cap_off(cap_pos[gb*32 +: 16]), .cap_n(cap_pos[gb*32 + 16 +: 16]),
                .status(status[gb*192 +: 192]),
                .xl_rx_valid(xl_rx_valid[gb]), .xl_rx_ready(xl_rx_ready[gb]), .xl_rx_data(xl_rx_data[gb*512 +: 512]),
                .xl_rx_last(xl_rx_last[gb]), .xl_tx_valid(xl_tx_valid[gb]), .xl_tx_ready(xl_tx_ready[gb]),
                .xl_tx_data(xl_tx_data[gb*512 +: 512]), .xl_tx_last(xl_tx_last[gb]),
                .line_valid(line_valid[gb]), .line_kind(line_kind[gb*3 +: 3]), .line_seq(line_seq[gb*16 +: 16]));
        end
    endgenerate
    assign status[NBR*192 +: 2] = {|lk_fatal, &lk_up};

    sp_rack_edge #(.NBR(NBR), .CASCADE(CASCADE), .NPEER(NPEER), .LINKS(LINKS), .CASC_FLIT(CASC_FLIT),
                   .MN_AW(MN_AW), .WIN_BASE(WIN_BASE), .HPA_BASE(HPA_BASE), .LK_TIMEOUT(LK_TIMEOUT)) u_edge (
        .clk(clk), .rst(rst[0]),
        .xl_rx_valid(xl_rx_valid), .xl_rx_ready(xl_rx_ready), .xl_rx_data(xl_rx_data), .xl_rx_last(xl_rx_last),
        .xl_tx_valid(xl_tx_valid), .xl_tx_ready(xl_tx_ready), .xl_tx_data(xl_tx_data), .xl_tx_last(xl_tx_last),
        .t2_lat(t2_lat), .ha_lat(ha_lat),
        .cfg_sel(cfg_sel[0]), .cfg_valid(cfg_valid[0]), .cfg_ready(cfg_ready[0]), .cfg_write(cfg_write[0]),
        .cfg_addr(cfg_addr), .cfg_wdata(cfg_wdata), .cfg_rvalid(cfg_rvalid[0]), .cfg_rdata(cfg_rdata),
        .cfg_resp(cfg_resp), .coh_en(coh_en), .coh_lo(coh_lo), .coh_hi(coh_hi),
        .peer_d2h_req_valid({NPEER{1'b0}}), .peer_d2h_req_ready(p_req_rdy), .peer_d2h_req_hdr({NPEER*128{1'b0}}),
        .peer_d2h_rsp_valid({NPEER{1'b0}}), .peer_d2h_rsp_ready(p_rsp_rdy), .peer_d2h_rsp_hdr({NPEER*128{1'b0}}),
        .peer_d2h_data_valid({NPEER{1'b0}}), .peer_d2h_data_ready(p_dat_rdy), .peer_d2h_data_hdr({NPEER*128{1'b0}}),
        .peer_d2h_data_data({NPEER*512{1'b0}}),
        .peer_h2d_req_valid(p_h2d_req_v), .peer_h2d_req_ready({NPEER{1'b1}}), .peer_h2d_req_hdr(p_h2d_req_h),
        .peer_h2d_rsp_valid(p_h2d_rsp_v), .peer_h2d_rsp_ready({NPEER{1'b1}}), .peer_h2d_rsp_hdr(p_h2d_rsp_h),
        .peer_h2d_data_valid(p_h2d_dat_v), .peer_h2d_data_ready({NPEER{1'b1}}), .peer_h2d_data_hdr(p_h2d_dat_h),
        .peer_h2d_data_data(p_h2d_dat_d),
        .ber_thresh(ber_thresh), .ber_mask(ber_mask), .lk_up(lk_up), .lk_fatal(lk_fatal), .lk_retry(lk_retry),
        .lk_crc(lk_crc), .lk_flips(lk_flips),
        .tap_valid(tap_valid), .tap_ready(tap_ready), .tap_id(tap_id),
        .br_line_valid(line_valid), .br_line_kind(line_kind), .br_line_seq(line_seq),
        .br_stat_err(br_stat_err), .br_stat_proto_err(br_stat_proto_err), .br_wb_empty(br_wb_empty),
        .tap_ha_line(tap_ha_line), .ha_err_count(ha_err_count), .mn_alias(mn_alias),
        .err_bridge_h2d(err_bridge_h2d[0]));
endmodule
