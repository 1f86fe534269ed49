// Formal environment for rtl/coherence/coh_home_agent.v with small parameters (2 devices,
// FV_HA_NTXN transaction entries (default 2), a 2-set x 1-way snoop filter, queues of 3): every
// D2H request, response and data message, every S2M answer and every ready is free in every cycle
// (devices and memory may be wrong, late or unsolicited), except that line data is zero (it never
// steers the agent) and the whole address space is coherent. The properties are in
// coh_home_agent.props.svh.
// A back-invalidation of a line another transaction is working on needs three entries at once:
// the transaction on the line, the one waiting for a way in its set, and the back-invalidation's
// own. With two entries that state cannot occur, so a search for that fault runs with
// FV_HA_NTXN = 3. FV_HA_LINE_BITS (if defined) leaves only the low bits of the request line free
// (the rest 0): lines are only compared (tags, sets, ranges), and the faults the broken variants
// plant need two lines of one set, so those searches run with 2 bits.
`ifndef FV_HA_NTXN
`define FV_HA_NTXN 2
`endif
module fv_coh_home_agent (
    input wire           clk,
    input wire           rst,
    input wire [1:0]     d2h_req_valid,
    input wire [255:0]   d2h_req_hdr,
    input wire [1:0]     d2h_rsp_valid,
    input wire [255:0]   d2h_rsp_hdr,
    input wire [1:0]     d2h_data_valid,
    input wire [255:0]   d2h_data_hdr,
    input wire [1:0]     h2d_req_ready,
    input wire [1:0]     h2d_rsp_ready,
    input wire [1:0]     h2d_data_ready,
    input wire           m2s_req_ready,
    input wire           m2s_rwd_ready,
    input wire           s2m_ndr_valid,
    input wire [127:0]   s2m_ndr_hdr,
    input wire           s2m_drs_valid,
    input wire [127:0]   s2m_drs_hdr
);
    reg started = 1'b0;
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    // the request headers as the agent sees them (line bits cut to FV_HA_LINE_BITS if defined)
    wire [255:0] req_hdr;
`ifdef FV_HA_LINE_BITS
    localparam integer FV_ADDR_LSB = 18;   // rtl/include/cxl_defs.vh CXL_D2H_REQ_ADDR_LSB
    localparam [127:0] FV_CUT = ((128'd1 << (46 - `FV_HA_LINE_BITS)) - 128'd1) << (FV_ADDR_LSB + `FV_HA_LINE_BITS);
    assign req_hdr = d2h_req_hdr & ~{FV_CUT, FV_CUT};
`else
    assign req_hdr = d2h_req_hdr;
`endif

    coh_home_agent #(.N(2), .SETS(2), .WAYS(1), .NTXN(`FV_HA_NTXN), .NRANGE(1), .QDEPTH(3), .CNT_W(2)) dut (
        .clk(clk), .rst(rst),
        .d2h_req_valid(d2h_req_valid), .d2h_req_ready(), .d2h_req_hdr(req_hdr),
        .d2h_rsp_valid(d2h_rsp_valid), .d2h_rsp_ready(), .d2h_rsp_hdr(d2h_rsp_hdr),
        .d2h_data_valid(d2h_data_valid), .d2h_data_ready(), .d2h_data_hdr(d2h_data_hdr),
        .d2h_data_data({1024{1'b0}}),
        .h2d_req_valid(), .h2d_req_ready(h2d_req_ready), .h2d_req_hdr(),
        .h2d_rsp_valid(), .h2d_rsp_ready(h2d_rsp_ready), .h2d_rsp_hdr(),
        .h2d_data_valid(), .h2d_data_ready(h2d_data_ready), .h2d_data_hdr(), .h2d_data_data(),
        .m2s_req_valid(), .m2s_req_ready(m2s_req_ready), .m2s_req_hdr(),
        .m2s_rwd_valid(), .m2s_rwd_ready(m2s_rwd_ready), .m2s_rwd_hdr(), .m2s_rwd_data(),
        .s2m_ndr_valid(s2m_ndr_valid), .s2m_ndr_ready(), .s2m_ndr_hdr(s2m_ndr_hdr),
        .s2m_drs_valid(s2m_drs_valid), .s2m_drs_ready(), .s2m_drs_hdr(s2m_drs_hdr),
        .s2m_drs_data({512{1'b0}}),
        .cfg_coh_en(1'b1), .cfg_coh_lo(46'd0), .cfg_coh_hi({46{1'b1}}),
        .err_pulse(), .err_count(), .trc_valid(), .trc_binv(), .trc_line(), .trc_port(),
        .trc_cqid());
endmodule
