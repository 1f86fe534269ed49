// UALink-style 640 B data-link flit -> 64 B TL flits, XW per cycle (the core's xl_rx framing: a
// packet starts in lane 0 of a transfer, last[XW-1:0] is one-hot on its final beat's lane, and a
// transfer that does not end a packet carries all XW lanes). DL flit layout (ours, see
// models/bridge/packets.py): bytes 0..63 DL segment ([8:0] slot valid, [17:9] slot last, [31:24]
// sequence), bytes 64*(i+1).. = TL slot i, i = 0..8. A sequence gap is counted. With XW = 2 a
// packet's beat that is the last slot of a DL flit waits in a carry register for its partner from
// the next DL flit.
`default_nettype none
module xb_ual_dl_rx #(
    parameter integer XW = 1                       // TL flits per cycle toward the core: 1 or 2
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              dl_valid,
    output wire              dl_ready,
    input  wire [5119:0]     dl_flit,
    output wire              tl_valid,
    input  wire              tl_ready,
    output wire [512*XW-1:0] tl_data,
    output wire [XW-1:0]     tl_last,
    output reg  [15:0]       stat_seq_err
);
    localparam integer NS = 9;
    generate if (XW != 1 && XW != 2) begin : g_bad_xw
        xb_ual_dl_rx_parameter_error_XW_must_be_1_or_2 u_stop ();
    end endgenerate

    reg [5119:0] hold;
    reg [NS-1:0] rem;        // slots still to emit
    reg [7:0]    exp_seq;
    reg          cv, cl;     // carry (XW = 2): a beat of the previous DL flit, not its packet's last
    reg [511:0]  cd;

    // the two lowest remaining slots
    reg [3:0] s0, s1;
    reg       h0, h1;
    integer i;
    always @* begin
        s0 = 4'd0; s1 = 4'd0; h0 = 1'b0; h1 = 1'b0;
        for (i = 0; i < NS; i = i + 1)
            if (rem[i]) begin
                if (!h0)      begin h0 = 1'b1; s0 = 4'(i); end
                else if (!h1) begin h1 = 1'b1; s1 = 4'(i); end
            end
    end
    wire [NS-1:0] lastm = hold[17:9];
    wire [511:0]  d0    = hold[512 * (32'(s0) + 32'd1) +: 512];
    wire [511:0]  d1    = hold[512 * (32'(s1) + 32'd1) +: 512];
    // beats A, B in order: the carry first, then the flit's slots
    wire          a_v = cv || h0;
    wire [511:0]  a_d = cv ? cd : d0;
    wire          a_l = cv ? cl : lastm[s0];
    wire          b_v = cv ? h0 : h1;
    wire [511:0]  b_d = cv ? d0 : d1;
    wire          b_l = cv ? lastm[s0] : lastm[s1];

    wire two   = (XW == 2) && !a_l;                      // a 2-beat transfer
    wire send  = a_v && (XW == 1 || a_l || b_v);
    wire stash = (XW == 2) && a_v && !a_l && !b_v && !cv; // A is the flit's last slot: carry it
    assign tl_valid = send;
    wire fire = tl_valid && tl_ready;
    // slots this cycle takes out of the flit
    wire [NS-1:0] take0 = (fire && !cv) || stash ? (NS'(1) << s0) : {NS{1'b0}};
    wire [NS-1:0] take1 = fire && two ? (cv ? (NS'(1) << s0) : (NS'(1) << s1)) : {NS{1'b0}};
    wire [NS-1:0] rem_n = rem & ~take0 & ~take1;
    assign dl_ready = (rem_n == {NS{1'b0}});
    wire load = dl_valid && dl_ready;

    generate if (XW == 2) begin : g_two
        assign tl_data = {two ? b_d : 512'd0, a_d};
        assign tl_last = a_l ? 2'b01 : {b_l, 1'b0};
    end else begin : g_one
        assign tl_data = a_d;
        assign tl_last = a_l;
        /* verilator lint_off UNUSEDSIGNAL */
        wire unused_b = &{1'b0, b_d, b_l, b_v, d1};
        /* verilator lint_on UNUSEDSIGNAL */
    end endgenerate

    always @(posedge clk) begin
        if (rst) begin
            rem <= {NS{1'b0}}; exp_seq <= 8'd0; stat_seq_err <= 16'd0; cv <= 1'b0;
        end else begin
            rem <= rem_n;
            if (fire && cv) cv <= 1'b0;
            if (stash) begin cv <= 1'b1; cd <= d0; cl <= lastm[s0]; end
            if (load) begin
                hold <= dl_flit;
                rem  <= dl_flit[NS-1:0];
                exp_seq <= dl_flit[31:24] + 8'd1;
                if (dl_flit[31:24] != exp_seq && stat_seq_err != 16'hFFFF)
                    stat_seq_err <= stat_seq_err + 16'd1;
            end
        end
    end
    /* verilator lint_off UNUSEDSIGNAL */
    wire unused_ok = &{1'b0, hold[511:32], hold[23:18]};
    /* verilator lint_on UNUSEDSIGNAL */
endmodule
`default_nettype wire
