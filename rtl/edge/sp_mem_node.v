// Tier-2 memory node responder (CXL.mem device side, message level) for the rack-edge co-simulation.
// Answers every M2S Req with one S2M DRS MemData and every M2S RwD with one S2M NDR Cmp, each exactly
// `lat` cycles after the request was accepted (in order per class; a later answer waits behind an
// earlier one the fabric has not taken yet). It stands for the far memory's own time, which the
// co-simulation measures at this boundary and reports separately from the RTL fabric hops.
// Contents are a function of the line address (DATA_TAG, line) so a reader can check every line it
// gets back without a storage model; written data is acknowledged and dropped.
module sp_mem_node #(
    parameter integer DEPTH = 32,              // outstanding requests per class
    parameter integer LAT_W = 16,
    parameter [17:0]  DATA_TAG = 18'h3C0DE     // upper bits of each 64-bit word of a returned line
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [LAT_W-1:0] lat,               // cycles from request accepted to response valid
    input  wire             m2s_req_valid,
    output wire             m2s_req_ready,
    input  wire             m2s_rwd_valid,
    output wire             m2s_rwd_ready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [127:0]     m2s_req_hdr,       // Tag, LD-ID and Addr are used
    input  wire [127:0]     m2s_rwd_hdr,       // only Tag and LD-ID are used
    input  wire [511:0]     m2s_rwd_data,      // written data is dropped (see header)
    /* verilator lint_on UNUSEDSIGNAL */
    output wire             s2m_ndr_valid,
    input  wire             s2m_ndr_ready,
    output wire [127:0]     s2m_ndr_hdr,
    output wire             s2m_drs_valid,
    input  wire             s2m_drs_ready,
    output wire [127:0]     s2m_drs_hdr,
    output wire [511:0]     s2m_drs_data
);
    `include "cxl_defs.vh"
    localparam integer TW = 32;                        // timestamp width (wrap-safe compare)
    localparam integer RDW = TW + 16 + 4 + 46;         // {due, tag, ldid, line}
    localparam integer WRW = TW + 16 + 4;              // {due, tag, ldid}
    localparam [1:0] META_NOOP = 2'b11;

    reg [TW-1:0] now;
    always @(posedge clk) begin
        if (rst) now <= {TW{1'b0}};
        else     now <= now + {{(TW-1){1'b0}}, 1'b1};
    end
    wire [TW-1:0] due = now + {{(TW-LAT_W){1'b0}}, lat};

    // ---------------------------------------------------------------- reads: M2S Req -> S2M DRS
    wire [RDW-1:0] rd_in = {due, m2s_req_hdr[CXL_M2S_REQ_TAG_LSB +: 16], m2s_req_hdr[CXL_M2S_REQ_LDID_LSB +: 4],
                            m2s_req_hdr[CXL_M2S_REQ_ADDR_LSB +: 46]};
    wire           rd_v;
    wire [RDW-1:0] rd_q;
    wire           rd_due = ($signed(now - rd_q[RDW-1 -: TW]) >= 0);
    /* verilator lint_off PINCONNECTEMPTY */
    sync_fifo #(.WIDTH(RDW), .DEPTH(DEPTH)) u_rd (
        .clk(clk), .rst(rst), .in_valid(m2s_req_valid), .in_ready(m2s_req_ready), .in_data(rd_in),
        .out_valid(rd_v), .out_ready(s2m_drs_valid && s2m_drs_ready), .out_data(rd_q), .count());
    /* verilator lint_on PINCONNECTEMPTY */
    wire [45:0] rd_line = rd_q[45:0];
    wire [63:0] word    = {DATA_TAG, rd_line};
    assign s2m_drs_valid = rd_v && rd_due;
    assign s2m_drs_data  = {8{word}};
    assign s2m_drs_hdr   = drs_hdr(rd_q[46 + 4 +: 16], rd_q[46 +: 4]);

    // ---------------------------------------------------------------- writes: M2S RwD -> S2M NDR
    wire [WRW-1:0] wr_in = {due, m2s_rwd_hdr[CXL_M2S_RWD_TAG_LSB +: 16], m2s_rwd_hdr[CXL_M2S_RWD_LDID_LSB +: 4]};
    wire           wr_v;
    wire [WRW-1:0] wr_q;
    wire           wr_due = ($signed(now - wr_q[WRW-1 -: TW]) >= 0);
    /* verilator lint_off PINCONNECTEMPTY */
    sync_fifo #(.WIDTH(WRW), .DEPTH(DEPTH)) u_wr (
        .clk(clk), .rst(rst), .in_valid(m2s_rwd_valid), .in_ready(m2s_rwd_ready), .in_data(wr_in),
        .out_valid(wr_v), .out_ready(s2m_ndr_valid && s2m_ndr_ready), .out_data(wr_q), .count());
    /* verilator lint_on PINCONNECTEMPTY */
    assign s2m_ndr_valid = wr_v && wr_due;
    assign s2m_ndr_hdr   = ndr_hdr(wr_q[4 +: 16], wr_q[3:0]);

    function automatic [127:0] drs_hdr(input [15:0] tag, input [3:0] ldid);
        begin
            drs_hdr = 128'd0;
            drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: CXL_S2M_DRS_MEMOP_W]         = CXL_S2M_DRS_OP_MEMDATA;
            drs_hdr[CXL_S2M_DRS_METAFIELD_LSB +: CXL_S2M_DRS_METAFIELD_W] = META_NOOP;
            drs_hdr[CXL_S2M_DRS_TAG_LSB +: CXL_S2M_DRS_TAG_W]             = tag;
            drs_hdr[CXL_S2M_DRS_LDID_LSB +: CXL_S2M_DRS_LDID_W]           = ldid;
        end
    endfunction
    function automatic [127:0] ndr_hdr(input [15:0] tag, input [3:0] ldid);
        begin
            ndr_hdr = 128'd0;
            ndr_hdr[CXL_S2M_NDR_MEMOP_LSB +: CXL_S2M_NDR_MEMOP_W]         = CXL_S2M_NDR_OP_CMP;
            ndr_hdr[CXL_S2M_NDR_METAFIELD_LSB +: CXL_S2M_NDR_METAFIELD_W] = META_NOOP;
            ndr_hdr[CXL_S2M_NDR_TAG_LSB +: CXL_S2M_NDR_TAG_W]             = tag;
            ndr_hdr[CXL_S2M_NDR_LDID_LSB +: CXL_S2M_NDR_LDID_W]           = ldid;
        end
    endfunction
endmodule
