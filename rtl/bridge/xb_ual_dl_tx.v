// 64 B TL flits, XW per cycle (the core's xl_tx framing), -> UALink-style 640 B data-link flits
// (layout in xb_ual_dl_rx.v). Slots fill in order, a transfer may straddle two DL flits; a DL flit
// leaves when its 9 slots are full or when no TL flit is offered in a cycle (so a lone response is
// not held back waiting for more traffic).
`default_nettype none
module xb_ual_dl_tx #(
    parameter integer XW = 1                       // TL flits per cycle from the core: 1 or 2
) (
    input  wire              clk,
    input  wire              rst,
    input  wire              tl_valid,
    output wire              tl_ready,
    input  wire [512*XW-1:0] tl_data,
    input  wire [XW-1:0]     tl_last,
    output reg               dl_valid,
    input  wire              dl_ready,
    output reg  [5119:0]     dl_flit
);
    localparam integer NS = 9;
    localparam integer NC = NS + XW;               // slots of the accumulator plus one transfer
    generate if (XW != 1 && XW != 2) begin : g_bad_xw
        xb_ual_dl_tx_parameter_error_XW_must_be_1_or_2 u_stop ();
    end endgenerate

    reg [512*NS-1:0] acc;        // slots 0..8
    reg [NS-1:0]     accl;
    reg [3:0]        n;
    reg [7:0]        seq;
    wire out_free = !dl_valid || dl_ready;
    // beats of the offered transfer: up to its last lane
    wire [1:0] k = (XW == 1 || tl_last[0]) ? 2'd1 : 2'd2;
    assign tl_ready = (32'(n) + XW <= NS) || out_free;
    wire take = tl_valid && tl_ready;
    wire [3:0] kk = take ? {2'd0, k} : 4'd0;
    wire [3:0] t  = n + kk;                        // slots after appending the transfer
    wire flush = out_free && (t != 4'd0) && (t >= 4'(NS) || !tl_valid);

    // accumulator followed by the transfer's beats
    reg [512*NC-1:0] comb;
    reg [NC-1:0]     combl;
    integer i;
    always @* begin
        comb = {(512*NC){1'b0}}; combl = {NC{1'b0}};
        for (i = 0; i < NC; i = i + 1) begin
            if (i < NS && 4'(i) < n) begin
                comb[512 * i +: 512] = acc[512 * i +: 512]; combl[i] = accl[i];
            end else if (4'(i) >= n && 4'(i) < t) begin
                comb[512 * i +: 512] = tl_data[512 * (i - 32'(n)) +: 512];
                combl[i] = tl_last[i - 32'(n)];
            end
        end
    end
    wire [3:0]    nout = (t >= 4'(NS)) ? 4'(NS) : t;                   // slots of a flushed flit
    wire [NS-1:0] vout = (NS'(1) << nout) - NS'(1);

    always @(posedge clk) begin
        if (rst) begin
            dl_valid <= 1'b0; n <= 4'd0; seq <= 8'd0; accl <= {NS{1'b0}};
        end else begin
            if (dl_valid && dl_ready) dl_valid <= 1'b0;
            if (flush) begin
                dl_valid <= 1'b1;
                dl_flit  <= {comb[0 +: 512*NS], 480'd0, seq, 6'd0, combl[NS-1:0] & vout, vout};
                seq      <= seq + 8'd1;
                // what does not fit stays for the next DL flit
                acc  <= {{(512*NS-512*XW){1'b0}}, comb[512*NS +: 512*XW]};
                accl <= {{(NS-XW){1'b0}}, combl[NS +: XW]};
                n    <= (t >= 4'(NS)) ? t - 4'(NS) : 4'd0;
            end else if (take) begin
                acc  <= comb[0 +: 512*NS];
                accl <= combl[NS-1:0];
                n    <= t;
            end
        end
    end
endmodule
`default_nettype wire
