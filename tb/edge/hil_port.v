`timescale 1ns/1ps
// Test-only: one bridge's XLink port of the hardware-in-the-loop top (sp_edge_hil). A request
// stream, loaded in bulk by the testbench, is played into the bridge at the times it asks for, and
// every response is checked and time-stamped here; the testbench reads the records back in bulk.
// Nothing crosses into Python per cycle.
//
// Stimulus: a ring of 2^SAW records stored as rows of CH records (one row written per `stim_wvalid`).
//   record [63:0]: [15:0] gap (cycles after the previous record's arrival; the first counts from
//   `run` rising), [16] write, [40:17] line (window line index), [63] valid (0 = padding, skipped).
//   Arrival of record i = t_run + sum of gaps up to i (open loop: a request waits here while the
//   bridge is not ready, and that wait is part of its latency from arrival).
// Requests: header beat {addr = WIN_BASE + 64*line, len 64 B, src = B, tag = seq mod 1024, READ or
//   WRITE}; a write's data beat carries self-identifying words (WORD_MAGIC, word index, B, seq, line),
//   so a read shows which write it returned.
// Responses (in request order): header first-valid time, opcode / status / tag / address against
//   the request, and for reads the line: either the memory nodes' image of an unwritten line
//   ({DATA_TAG, Addr[51:6]} in every word) or one write's words, consistent across the line.
//   Capture record [127:0]: [31:0] t_issue (first cycle the request header was valid), [63:32]
//   t_rsp (first cycle the response header was valid), [87:64] seq[23:0], [111:88] writer seq[23:0],
//   [113:112] writer bridge, [116:114] bridge line kind, [117] kind seen, [118] write, [119] header
//   ok, [120] data ok, [121] unwritten image.
//   Ring of 2^CAW records in rows of CH; `cap_take` copies the oldest records (up to the end of
//   their row) into `cap_win` (first at record `cap_off`, `cap_n` of them). The response side is
//   held (xl_tx_ready low, counted in `cap_stall`) when the ring is nearly full: nothing is lost.
module hil_port #(
    parameter integer B        = 0,                  // bridge index (XLink src, data pattern)
    parameter integer FLAVOR   = 0,                  // 0 UALink-style (len = bytes), 1 NVLink-style (len = 16 B flits)
    parameter [63:0]  WIN_BASE = 64'h1_0000_0000,
    parameter [63:0]  HPA_BASE = 64'h40_0000_0000,
    parameter integer CH       = 256,                // records per row (bulk transfer unit)
    parameter integer SAW      = 13,                 // stimulus ring: 2^SAW records
    parameter integer CAW      = 13,                 // capture ring: 2^CAW records
    parameter [63:0]  SEED     = 64'h2545_F491_4F6C_DD1D
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              run,
    input  wire [31:0]       now,
    input  wire [31:0]       t_run,
    input  wire [16:0]       ready_thr,           // XLink response ready probability x 65536
    input  wire              stim_wvalid,
    input  wire [CH*64-1:0]  stim_wdata,
    input  wire              stim_more,           // the testbench still has records to load
    input  wire              cap_take,
    output reg  [CH*128-1:0] cap_win,
    output reg  [15:0]       cap_off,
    output reg  [15:0]       cap_n,
    output wire [191:0]      status,
    // bridge XLink side
    output wire              xl_rx_valid,
    input  wire              xl_rx_ready,
    output wire [511:0]      xl_rx_data,
    output wire              xl_rx_last,
    input  wire              xl_tx_valid,
    output wire              xl_tx_ready,
    input  wire [511:0]      xl_tx_data,
    input  wire              xl_tx_last,
    input  wire              line_valid,
    input  wire [2:0]        line_kind,
    input  wire [15:0]       line_seq
);
    localparam integer LCH   = $clog2(CH);
    localparam integer SROWS = (1 << SAW) / CH;
    localparam integer CROWS = (1 << CAW) / CH;
    localparam [3:0]  OP_READ = 4'h1, OP_WRITE = 4'h2, OP_RD_DATA = 4'h8, OP_WR_ACK = 4'h9;
    localparam [3:0]  WORD_MAGIC = 4'hA;
    localparam [17:0] DATA_TAG = 18'h3C0DE;
    localparam [8:0]  LEN = (FLAVOR == 0) ? 9'd64 : 9'd4;
    localparam integer OFW = 32 + 32 + 1 + 24;      // outstanding: {seq, t_issue, write, line}
    localparam [CAW:0] CAP_FULL = (CAW+1)'((1 << CAW) - 2);

    generate
        if (CH < 2 || (1 << LCH) != CH || SAW <= LCH || CAW <= LCH || SAW > 16 || CAW > 15) begin : g_bad
            initial $fatal(1, "hil_port: CH=%0d must be a power of two below the rings (SAW=%0d, CAW=%0d)", CH, SAW, CAW);
        end
    endgenerate

    // ---------------------------------------------------------------- stimulus ring
    reg [CH*64-1:0] srow [0:SROWS-1];
    reg [SAW:0]     s_wp, s_rp;
    wire [SAW:0]    s_cnt = s_wp - s_rp;
    always @(posedge clk) begin
        if (stim_wvalid) srow[s_wp[SAW-1:LCH]] <= stim_wdata;
    end

    // two-stage source: `nxt` is prefetched so requests can go back to back
    reg          cur_v, nxt_v, beat, presented;
    reg [63:0]   cur, nxt;
    reg [31:0]   cur_arr, nxt_arr, last_arr, seq, t_issue;
    reg          arr_init;
    reg [31:0]   underrun, sent;
    wire         of_ready;
    wire         due = ($signed(now - cur_arr) >= 0);
    assign xl_rx_valid = cur_v && due && (beat || of_ready);   // room is needed for the header only
    wire         rx_fire = xl_rx_valid && xl_rx_ready;
    wire         cur_wr = cur[16];
    wire [23:0]  cur_line = cur[40:17];
    wire         req_done = rx_fire && (beat || !cur_wr);
    wire         take_nxt = !cur_v || req_done;
    wire         load_nxt = run && s_cnt != 0 && (!nxt_v || take_nxt);

    wire [63:0]  addr = WIN_BASE + {34'd0, cur_line, 6'd0};
    wire [95:0]  hdr = {addr[51:0], 7'd0, LEN, 10'(B), seq[9:0], 4'd0, cur_wr ? OP_WRITE : OP_READ};
    reg  [511:0] wdat;
    integer      j;
    always @(*) begin
        for (j = 0; j < 8; j = j + 1) wdat[j*64 +: 64] = {WORD_MAGIC, 3'(j), 1'b0, 2'(B), seq[29:0], cur_line};
    end
    assign xl_rx_data = beat ? wdat : {416'd0, hdr};
    assign xl_rx_last = beat || !cur_wr;

    reg [63:0]   s_head;
    reg [31:0]   s_arr;
    always @(posedge clk) begin
        if (rst) begin
            s_wp <= '0; s_rp <= '0; cur_v <= 1'b0; nxt_v <= 1'b0; beat <= 1'b0; presented <= 1'b0;
            arr_init <= 1'b0; seq <= 32'd0; underrun <= 32'd0; sent <= 32'd0;
        end else begin
            if (stim_wvalid) s_wp <= s_wp + (SAW+1)'(CH);
            if (run && stim_more && !cur_v && !nxt_v && s_cnt == 0) underrun <= underrun + 32'd1;
            if (xl_rx_valid && !beat && !presented) begin
                presented <= 1'b1;
                t_issue   <= now;
            end
            if (rx_fire) begin
                if (req_done) begin
                    beat      <= 1'b0;
                    presented <= 1'b0;
                    seq       <= seq + 32'd1;
                    sent      <= sent + 32'd1;
                end else begin
                    beat <= 1'b1;
                end
            end
            if (take_nxt) begin
                cur_v   <= nxt_v;
                cur     <= nxt;
                cur_arr <= nxt_arr;
            end
            if (load_nxt) begin
                // the head record is read only here, on the cycles that consume it
                s_head = srow[s_rp[SAW-1:LCH]][s_rp[LCH-1:0]*64 +: 64];
                s_arr  = (arr_init ? last_arr : t_run) + {16'd0, s_head[15:0]};
                s_rp <= s_rp + 1'b1;
                if (s_head[63]) begin
                    nxt_v    <= 1'b1;
                    nxt      <= s_head;
                    nxt_arr  <= s_arr;
                    last_arr <= s_arr;
                    arr_init <= 1'b1;
                end else begin
                    nxt_v <= 1'b0;
                end
            end else if (take_nxt) begin
                nxt_v <= 1'b0;
            end
        end
    end

    // ---------------------------------------------------------------- outstanding requests
    wire           of_v;
    wire [OFW-1:0] of_q;
    wire [6:0]     of_cnt;
    wire           hdr_fire;
    sync_fifo #(.WIDTH(OFW), .DEPTH(64)) u_of (
        .clk(clk), .rst(rst), .in_valid(rx_fire && !beat), .in_ready(of_ready),
        .in_data({seq, presented ? t_issue : now, cur_wr, cur_line}),
        .out_valid(of_v), .out_ready(hdr_fire), .out_data(of_q), .count(of_cnt));
    wire [31:0] e_seq = of_q[OFW-1 -: 32];
    wire [31:0] e_tis = of_q[24 + 1 +: 32];
    wire        e_wr  = of_q[24];
    wire [23:0] e_line = of_q[23:0];

    // ---------------------------------------------------------------- bridge line kinds by seq
    reg [3:0] kind_mem [0:255];
    wire      rec_take;                               // a record is written: its kind entry is used up
    wire [7:0] rec_seq8;
    always @(posedge clk) begin
        if (rec_take) kind_mem[rec_seq8] <= 4'd0;     // so a request without a line shows kind_seen = 0
        if (line_valid) kind_mem[line_seq[7:0]] <= {1'b1, line_kind};
    end

    // ---------------------------------------------------------------- responses
    reg  [63:0]  rnd;
    wire [63:0]  r1 = rnd ^ (rnd << 13);
    wire [63:0]  r2 = r1 ^ (r1 >> 7);
    wire [63:0]  r3 = r2 ^ (r2 << 17);
    reg [CAW:0]  c_wp, c_rp;
    wire [CAW:0] c_cnt = c_wp - c_rp;
    wire         cap_room = c_cnt < CAP_FULL;
    assign xl_tx_ready = cap_room && ({1'b0, rnd[15:0]} < ready_thr);
    wire         tx_fire = xl_tx_valid && xl_tx_ready;
    reg          in_pkt, seen, p_hok, p_extra, unexpected, extra_seen;
    reg [31:0]   t_rsp, p_seq, p_tis;
    reg [23:0]   p_line;
    reg [31:0]   cap_stall, captured;
    reg [CH*128-1:0] crow [0:CROWS-1];
    assign hdr_fire = tx_fire && !in_pkt;

    wire [95:0]  rh = xl_tx_data[95:0];
    wire [63:0]  e_addr = WIN_BASE + {34'd0, e_line, 6'd0};
    wire         h_ok = of_v && rh[3:0] == (e_wr ? OP_WR_ACK : OP_RD_DATA) && rh[7:4] == 4'd0
                        && rh[17:8] == e_seq[9:0] && rh[95:44] == e_addr[51:0] && (xl_tx_last == e_wr);
    // read data: one write's words, or the image of an unwritten line
    wire [63:0]  w0 = xl_tx_data[63:0];
    wire [45:0]  hpa_line = HPA_BASE[51:6] + {22'd0, p_line};
    reg          pat_ok, img_ok;
    integer      k;
    always @(*) begin
        pat_ok = (w0[23:0] == p_line);
        img_ok = 1'b1;
        for (k = 0; k < 8; k = k + 1) begin
            pat_ok = pat_ok && xl_tx_data[k*64 +: 64] == {WORD_MAGIC, 3'(k), 1'b0, w0[55:0]};
            img_ok = img_ok && xl_tx_data[k*64 +: 64] == {DATA_TAG, hpa_line};
        end
    end
    wire [3:0]   kd = kind_mem[(in_pkt ? p_seq[7:0] : e_seq[7:0])];
    // record as documented in the header
    wire [127:0] rec_w = {6'd0, 1'b0, 1'b1, h_ok, e_wr, kd, 2'd0, 24'd0, e_seq[23:0], t_rsp_now, e_tis};
    wire [127:0] rec_r = {6'd0, img_ok, (pat_ok || img_ok) && !p_extra, p_hok, 1'b0, kd,
                          img_ok ? 2'd0 : w0[55:54], img_ok ? 24'd0 : w0[47:24], p_seq[23:0], t_rsp, p_tis};
    wire [31:0]  t_rsp_now = seen ? t_rsp : now;
    wire         rec_wr_v = hdr_fire && xl_tx_last;          // single-beat response (WR_ACK or error)
    wire         rec_rd_v = tx_fire && in_pkt && xl_tx_last; // last data beat of a read response
    wire [127:0] rec = rec_wr_v ? rec_w : rec_r;
    wire [LCH-1:0] c_col = c_wp[LCH-1:0];
    assign rec_take = rec_wr_v || rec_rd_v;
    assign rec_seq8 = in_pkt ? p_seq[7:0] : e_seq[7:0];

    always @(posedge clk) begin
        if (rst) begin
            rnd <= SEED ^ (64'(B) << 32);
            c_wp <= '0; c_rp <= '0; in_pkt <= 1'b0; seen <= 1'b0; p_extra <= 1'b0; unexpected <= 1'b0;
            extra_seen <= 1'b0;
            cap_stall <= 32'd0; captured <= 32'd0; cap_n <= 16'd0; cap_off <= 16'd0;
        end else begin
            rnd <= r3;
            if (!cap_room && xl_tx_valid) cap_stall <= cap_stall + 32'd1;
            if (xl_tx_valid && !in_pkt && !seen) begin
                seen  <= 1'b1;
                t_rsp <= now;
            end
            if (hdr_fire) begin
                seen <= 1'b0;
                if (!of_v) unexpected <= 1'b1;
                if (!xl_tx_last) begin
                    in_pkt  <= 1'b1;
                    p_hok   <= h_ok;
                    p_seq   <= e_seq;
                    p_tis   <= e_tis;
                    p_line  <= e_line;
                    p_extra <= 1'b0;
                    if (!seen) t_rsp <= now;
                end
            end
            if (tx_fire && in_pkt) begin
                if (xl_tx_last) in_pkt <= 1'b0;
                else begin                                  // a read of one line has one data beat
                    p_extra    <= 1'b1;
                    extra_seen <= 1'b1;
                end
            end
            if (rec_wr_v || rec_rd_v) begin
                c_wp     <= c_wp + 1'b1;
                captured <= captured + 32'd1;
            end
            if (cap_take) begin
                cap_win <= crow[c_rp[CAW-1:LCH]];
                cap_off <= 16'(c_rp[LCH-1:0]);
                if (c_cnt >= (CAW+1)'(CH - c_rp[LCH-1:0])) begin
                    cap_n <= 16'(CH - c_rp[LCH-1:0]);
                    c_rp  <= c_rp + (CAW+1)'(CH - c_rp[LCH-1:0]);
                end else begin
                    cap_n <= 16'(c_cnt);
                    c_rp  <= c_wp;
                end
            end
        end
    end
    always @(posedge clk) begin
        if (!rst && (rec_wr_v || rec_rd_v)) crow[c_wp[CAW-1:LCH]][c_col*128 +: 128] <= rec;
    end

    assign status = {9'd0, of_cnt, 13'd0, unexpected, extra_seen, 1'b0, cap_stall, underrun, captured, sent,
                     16'(c_cnt), 16'(s_cnt)};
    // bits that are carried along but not read here
    wire unused = &{1'b0, addr[63:52], e_addr[63:52], p_seq[31:24], rh[43:18], w0[63:56], line_seq[15:8],
                    cur[63:41], cur[15:0]};
endmodule
