// Memory node (CXL.mem device side, message level) for the rack-edge co-simulation: tier-2 memory
// and the home agent's memory. Answers every M2S Req with one S2M DRS MemData and every M2S RwD
// with one S2M NDR Cmp, each max(`lat`, 1) cycles after the request was accepted (in order per
// class; a later answer waits behind an earlier one the fabric has not taken yet). It stands for
// the far memory's own time, which the co-simulation measures at this boundary and reports
// separately from the fabric hops.
//
// Contents: a line that was never written reads as its image {DATA_TAG, Addr[51:6]} in every
// 64-bit word; a written line reads back what was written. Storage is sparse in the sense of a
// direct-mapped store of 2^AW lines indexed by Addr[6+AW-1:6], each entry tagged with the rest of
// the line address and valid since its first write: an entry counts only if it is valid and its
// tag matches, so a line is remembered exactly while no other line with the same index has been
// written since (an overwrite of another line's data is counted on `stat_alias`; the
// co-simulation sizes AW to its address window so it stays 0). Reset clears every valid bit, so
// no line survives a reset and nothing read depends on the store's power-up contents (a 4-state
// simulator starts them as X). Ordering: a write takes effect when the RwD is accepted; a read
// takes its data when the Req is accepted (a read and a write of one line accepted in the same
// cycle: the read sees the old data).
module sp_mem_node #(
    parameter integer DEPTH = 32,              // outstanding requests per class, >= 3 (sp_mem_q)
    parameter integer LAT_W = 16,              // width of `lat`, 1..31 (a due time within 2^31 of now)
    parameter integer AW    = 4,               // stored lines = 2^AW (1..24); the co-simulation sets 18
    parameter [17:0]  DATA_TAG = 18'h3C0DE     // upper bits of each 64-bit word of an unwritten line
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
    input  wire [127:0]     m2s_rwd_hdr,       // Tag, LD-ID and Addr are used
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire [511:0]     m2s_rwd_data,
    output wire             s2m_ndr_valid,
    input  wire             s2m_ndr_ready,
    output wire [127:0]     s2m_ndr_hdr,
    output wire             s2m_drs_valid,
    input  wire             s2m_drs_ready,
    output wire [127:0]     s2m_drs_hdr,
    output wire [511:0]     s2m_drs_data,
    output wire [31:0]      stat_alias         // writes that overwrote another line's stored data
);
    `include "cxl_defs.vh"
    localparam integer TW  = 32;                       // timestamp width (wrap-safe compare)
    localparam integer KW  = 46 - AW;                  // line-address bits kept as the entry tag
    localparam integer RDW = 16 + 4 + 512;             // {tag, ldid, data}
    localparam integer WRW = 16 + 4;                   // {tag, ldid}
    localparam [1:0] META_NOOP = 2'b11;

    // illegal parameters are refused at elaboration
    generate
        if (AW < 1 || AW > 24 || LAT_W < 1 || LAT_W > 31) begin : g_bad_aw
            sp_mem_node_parameter_error_AW_must_be_1_to_24_and_LAT_W_1_to_31 u_stop ();
        end
    endgenerate

    // Time. A response is due once $signed(now - due) >= 0 with due = now + lat at acceptance (32-bit
    // wrap-safe). The queues keep due - 1 per entry and a per-entry flag of that compare
    // (sp_mem_due), so no subtraction sits between a queue's head and its pop. due - 1 is
    // `prev` + lat, where `prev` = now - 1 is now delayed by one cycle (reset to all ones).
    // `now` counts on stat_counter and the sum is a kept Kogge-Stone prefix adder: yosys' ripple
    // carry chains are one or two levels per bit after ABC.
    wire [TW-1:0] now;
    reg  [TW-1:0] prev;
    stat_counter #(.WIDTH(TW), .AW(1)) u_now (
        .clk(clk), .rst(rst), .en(1'b1), .add(1'b1), .count(now)
    );
    always @(posedge clk) begin
        if (rst) prev <= {TW{1'b1}};
        else     prev <= now;
    end
    wire [TW-1:0] lat_x = {{(TW-LAT_W){1'b0}}, lat};
    // the accepted request's compare one cycle after acceptance: $signed(1 - lat) >= 0
    wire          in_due = (lat_x[TW-1:1] == {(TW-1){1'b0}}) || (lat_x[TW-1] && |lat_x[TW-2:1]);
    // due_m1 = prev + lat_x on a kept prefix adder (a ripple add would lead the push path)
    wire [TW-1:0] due_m1;
    ks_adder #(.WIDTH(TW)) u_due (.a(prev), .b(lat_x), .sum(due_m1));

    // ---------------------------------------------------------------- line store
    reg [511:0]      mem  [0:(1 << AW)-1];
    reg [KW-1:0]     mkey [0:(1 << AW)-1];             // Addr[51:6+AW] of the stored line
    reg              mval [0:(1 << AW)-1];             // the entry holds a line written since reset

    function automatic [511:0] image(input [45:0] line);
        image = {8{DATA_TAG, line}};
    endfunction

    wire [45:0]   rd_line = m2s_req_hdr[CXL_M2S_REQ_ADDR_LSB +: 46];
    wire [45:0]   wr_line = m2s_rwd_hdr[CXL_M2S_RWD_ADDR_LSB +: 46];
    wire [AW-1:0] rd_idx  = rd_line[AW-1:0];
    wire [AW-1:0] wr_idx  = wr_line[AW-1:0];
    // the stored line's read and the hit are kept nets, so the hit meets them in one 2:1 select:
    // mapped as one cone, ABC pushed the hit into the line read's 2^AW-way select tree (18 levels
    // at AW = 4 against 13)
    (* keep *) wire [511:0] rd_mem;
    (* keep *) wire         rd_hit;
    assign rd_mem = mem[rd_idx];
    assign rd_hit = mval[rd_idx] && (mkey[rd_idx] == rd_line[45:AW]);
    wire [511:0]  rd_now  = rd_hit ? rd_mem : image(rd_line);
    wire          wr_fire = m2s_rwd_valid && m2s_rwd_ready;

    always @(posedge clk) begin
        if (wr_fire) begin
            mem[wr_idx]  <= m2s_rwd_data;
            mkey[wr_idx] <= wr_line[45:AW];
        end
    end
    integer i;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < (1 << AW); i = i + 1) mval[i] <= 1'b0;
        end else if (wr_fire) begin
            mval[wr_idx] <= 1'b1;
        end
    end
    // overwrite count: a prefix-carry counter (a ripple +1 is 31 levels at 32 bits)
    stat_counter #(.WIDTH(32), .AW(1)) u_alias (
        .clk(clk), .rst(rst), .en(wr_fire && mval[wr_idx] && mkey[wr_idx] != wr_line[45:AW]),
        .add(1'b1), .count(stat_alias)
    );

    // ---------------------------------------------------------------- reads: M2S Req -> S2M DRS
    wire [RDW-1:0] rd_in = {m2s_req_hdr[CXL_M2S_REQ_TAG_LSB +: 16], m2s_req_hdr[CXL_M2S_REQ_LDID_LSB +: 4],
                            rd_now};
    wire           rd_v;
    wire [RDW-1:0] rd_q;
    wire           rd_due;
    sp_mem_due #(.DEPTH(DEPTH), .TW(TW)) u_rd_due (
        .clk(clk), .rst(rst), .push(m2s_req_valid && m2s_req_ready), .pop(s2m_drs_valid && s2m_drs_ready),
        .in_last(due_m1), .in_due(in_due), .now(now), .head_due(rd_due));
    // the queue's head is a register (sp_mem_q): the response leaves from flip-flops
    sp_mem_q #(.WIDTH(RDW), .DEPTH(DEPTH)) u_rd (
        .clk(clk), .rst(rst), .in_valid(m2s_req_valid), .in_ready(m2s_req_ready), .in_data(rd_in),
        .out_valid(rd_v), .out_ready(s2m_drs_valid && s2m_drs_ready), .out_data(rd_q));
    assign s2m_drs_valid = rd_v && rd_due;
    assign s2m_drs_data  = rd_q[511:0];
    assign s2m_drs_hdr   = drs_hdr(rd_q[512 + 4 +: 16], rd_q[512 +: 4]);

    // ---------------------------------------------------------------- writes: M2S RwD -> S2M NDR
    wire [WRW-1:0] wr_in = {m2s_rwd_hdr[CXL_M2S_RWD_TAG_LSB +: 16], m2s_rwd_hdr[CXL_M2S_RWD_LDID_LSB +: 4]};
    wire           wr_v;
    wire [WRW-1:0] wr_q;
    wire           wr_due;
    sp_mem_due #(.DEPTH(DEPTH), .TW(TW)) u_wr_due (
        .clk(clk), .rst(rst), .push(wr_fire), .pop(s2m_ndr_valid && s2m_ndr_ready),
        .in_last(due_m1), .in_due(in_due), .now(now), .head_due(wr_due));
    sp_mem_q #(.WIDTH(WRW), .DEPTH(DEPTH)) u_wr (
        .clk(clk), .rst(rst), .in_valid(m2s_rwd_valid), .in_ready(m2s_rwd_ready), .in_data(wr_in),
        .out_valid(wr_v), .out_ready(s2m_ndr_valid && s2m_ndr_ready), .out_data(wr_q));
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
