// HBM3-like buffer memory behind a synthesizable controller front-end (models/bridge/hbm.py is the
// reference). Storage is a plain line array; the timing is what an open-page HBM pseudo-channel
// would give: per-bank state (open row, ACT/column/ready timestamps against a free-running cycle
// counter), per-pseudo-channel data bus occupancy, tRCD/tCL/tRP/tRAS/tBURST and per-bank refresh
// (one bank every T_REFI/(NPC*NBANK) cycles, blocked T_RFC). One access issues per cycle, in order;
// completions leave in order. NPC, NBANK, ROW_LINES, SETS: powers of two, NPC and NBANK >= 2.
module xb_hbm_ctrl #(
    parameter integer SETS      = 16,
    parameter integer NPC       = 2,
    parameter integer NBANK     = 4,
    parameter integer ROW_LINES = 16,
    parameter integer T_CL      = 13,
    parameter integer T_RCD     = 20,
    parameter integer T_RP      = 17,
    parameter integer T_RAS     = 29,
    parameter integer T_BURST   = 3,
    parameter integer T_REFI    = 3900,
    parameter integer T_RFC     = 160,
    parameter integer INFLIGHT  = 8,
    parameter integer TAG_W     = 4,
    localparam integer IDX_W    = $clog2(SETS)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             req_valid,
    output wire             req_ready,
    input  wire             req_we,
    input  wire [IDX_W-1:0] req_idx,
    input  wire [511:0]     req_data,
    input  wire [TAG_W-1:0] req_tag,
    output wire             rsp_valid,     // read data; the consumer always takes it
    output wire [TAG_W-1:0] rsp_tag,
    output wire [511:0]     rsp_data,
    output wire [31:0]      now,
    output wire             iss_valid,     // debug: an access issued this cycle ...
    output wire [31:0]      iss_done,      // ... and the cycle its completion leaves
    output wire             idle
);
    localparam integer PC_W   = $clog2(NPC);
    localparam integer BK_W   = $clog2(NBANK);
    localparam integer NB     = NPC * NBANK;
    localparam integer NB_W   = PC_W + BK_W;
    localparam integer SHIFT  = NB_W + $clog2(ROW_LINES);
    localparam [31:0] REF_SLOT = (T_REFI / NB > 0) ? 32'(T_REFI / NB) : 32'd1;
    localparam integer FW     = 32 + 1 + IDX_W + 512 + TAG_W;

    reg [31:0] cnt;
    assign now = cnt;

    reg             bk_open  [0:NB-1];
    reg [IDX_W-1:0] bk_row   [0:NB-1];
    reg [31:0]      bk_act   [0:NB-1];
    reg [31:0]      bk_col   [0:NB-1];
    reg [31:0]      bk_avail [0:NB-1];
    reg [31:0]      bus_free [0:NPC-1];
    reg [31:0]      next_ref;
    reg [NB_W-1:0]  ref_ptr;
    reg [31:0]      last_done;
    reg [511:0]     mem [0:SETS-1];

    function automatic [31:0] mx(input [31:0] a, input [31:0] b);
        mx = (a > b) ? a : b;
    endfunction

    wire ref_now = (cnt == next_ref);

    // in-flight queue: {done, we, idx, data, tag}
    wire          q_in_ready, q_out_valid;
    wire [FW-1:0] q_out;
    wire [$clog2(INFLIGHT+1)-1:0] q_count;
    wire [31:0]      h_done = q_out[FW-1 -: 32];
    wire             h_we   = q_out[FW-33];
    wire [IDX_W-1:0] h_idx  = q_out[TAG_W+512 +: IDX_W];
    wire [511:0]     h_data = q_out[TAG_W +: 512];
    wire [TAG_W-1:0] h_tag  = q_out[0 +: TAG_W];
    wire             h_pop  = q_out_valid && (cnt >= h_done);

    assign req_ready = !ref_now && q_in_ready;
    wire   fire      = req_valid && req_ready;

    wire [NB_W-1:0]  bsel  = req_idx[NB_W-1:0];
    wire [PC_W-1:0]  psel  = req_idx[PC_W-1:0];
    wire [IDX_W-1:0] row_n = req_idx >> SHIFT;
    reg  [31:0] act_n, col_n;
    reg         new_act;
    always @* begin
        new_act = 1'b1;
        act_n   = bk_act[bsel];
        if (bk_open[bsel] && bk_row[bsel] == row_n) begin
            new_act = 1'b0;
            col_n   = mx(mx(cnt, bus_free[psel]), bk_act[bsel] + T_RCD);
        end else begin
            if (bk_open[bsel])
                act_n = mx(mx(cnt, bk_act[bsel] + T_RAS), bk_col[bsel] + T_BURST) + T_RP;
            else
                act_n = mx(cnt, bk_avail[bsel]);
            col_n = mx(act_n + T_RCD, bus_free[psel]);
        end
    end
    wire [31:0] done_raw = col_n + T_CL + T_BURST;
    wire [31:0] done_io  = mx(done_raw, last_done);

    sync_fifo #(.WIDTH(FW), .DEPTH(INFLIGHT)) u_q (
        .clk(clk), .rst(rst), .in_valid(fire), .in_ready(q_in_ready),
        .in_data({done_io, req_we, req_idx, req_data, req_tag}),
        .out_valid(q_out_valid), .out_ready(h_pop), .out_data(q_out), .count(q_count));

    integer i;
    always @(posedge clk) begin
        if (rst) begin
            cnt       <= 32'd0;
            next_ref  <= REF_SLOT;
            ref_ptr   <= {NB_W{1'b0}};
            last_done <= 32'd0;
            for (i = 0; i < NB; i = i + 1) begin
                bk_open[i]  <= 1'b0;
                bk_row[i]   <= {IDX_W{1'b0}};
                bk_act[i]   <= 32'd0;
                bk_col[i]   <= 32'd0;
                bk_avail[i] <= 32'd0;
            end
            for (i = 0; i < NPC; i = i + 1) bus_free[i] <= 32'd0;
        end else begin
            cnt <= cnt + 32'd1;
            if (ref_now) begin
                // REFsb: precharge (after tRAS and the last burst) then tRFC
                if (bk_open[ref_ptr])
                    bk_avail[ref_ptr] <= mx(mx(cnt, bk_act[ref_ptr] + T_RAS),
                                            bk_col[ref_ptr] + T_BURST) + T_RP + T_RFC;
                else
                    bk_avail[ref_ptr] <= mx(cnt, bk_avail[ref_ptr]) + T_RFC;
                bk_open[ref_ptr] <= 1'b0;
                ref_ptr  <= ref_ptr + 1'b1;
                next_ref <= next_ref + REF_SLOT;
            end
            if (fire) begin
                bk_open[bsel] <= 1'b1;
                bk_row[bsel]  <= row_n;
                if (new_act) bk_act[bsel] <= act_n;
                bk_col[bsel]   <= col_n;
                bus_free[psel] <= col_n + T_BURST;
                last_done      <= done_io;
            end
        end
    end

    always @(posedge clk) begin
        if (h_pop && h_we) mem[h_idx] <= h_data;
    end

    assign rsp_valid = h_pop && !h_we;
    assign rsp_tag   = h_tag;
    assign rsp_data  = mem[h_idx];
    assign iss_valid = fire;
    assign iss_done  = done_io;
    assign idle      = (q_count == 0);
endmodule
