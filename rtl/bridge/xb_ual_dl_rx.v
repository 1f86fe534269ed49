// UALink-style 640 B data-link flit -> 64 B TL flits (one per cycle). DL flit layout (ours, see
// models/bridge/packets.py): bytes 0..63 DL segment ([8:0] slot valid, [17:9] slot last,
// [31:24] sequence), bytes 64*(i+1).. = TL slot i, i = 0..8. A sequence gap is counted.
`default_nettype none
module xb_ual_dl_rx (
    input  wire          clk,
    input  wire          rst,
    input  wire          dl_valid,
    output wire          dl_ready,
    input  wire [5119:0] dl_flit,
    output wire          tl_valid,
    input  wire          tl_ready,
    output wire [511:0]  tl_data,
    output wire          tl_last,
    output reg  [15:0]   stat_seq_err
);
    localparam integer NS = 9;
    reg [5119:0] hold;
    reg [NS-1:0] rem;        // slots still to emit
    reg [7:0]    exp_seq;

    reg [3:0] cur;           // lowest remaining slot
    integer i;
    always @* begin
        cur = 4'd0;
        for (i = NS - 1; i >= 0; i = i - 1) if (rem[i]) cur = 4'(i);
    end
    wire [NS-1:0] lastm = hold[17:9];
    wire          fire  = tl_valid && tl_ready;
    wire [NS-1:0] rem_n = fire ? (rem & ~(NS'(1) << cur)) : rem;
    assign tl_valid = (rem != 0);
    wire [31:0] slot_pos = 32'(cur) + 32'd1;   // slot 0 follows the DL segment
    assign tl_data  = hold[512 * slot_pos +: 512];
    assign tl_last  = lastm[cur];
    assign dl_ready = (rem_n == 0);
    wire load = dl_valid && dl_ready;

    always @(posedge clk) begin
        if (rst) begin
            rem <= {NS{1'b0}}; exp_seq <= 8'd0; stat_seq_err <= 16'd0;
        end else begin
            rem <= rem_n;
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
