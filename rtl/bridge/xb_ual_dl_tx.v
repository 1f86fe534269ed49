// 64 B TL flits -> UALink-style 640 B data-link flits (layout in xb_ual_dl_rx.v). Slots fill in
// order; a DL flit leaves when its 9 slots are full or when no TL flit is offered in a cycle
// (so a lone response is not held back waiting for more traffic).
`default_nettype none
module xb_ual_dl_tx (
    input  wire          clk,
    input  wire          rst,
    input  wire          tl_valid,
    output wire          tl_ready,
    input  wire [511:0]  tl_data,
    input  wire          tl_last,
    output reg           dl_valid,
    input  wire          dl_ready,
    output reg  [5119:0] dl_flit
);
    localparam integer NS = 9;
    reg [4607:0] acc;        // slots 0..8
    reg [NS-1:0] accv, accl;
    reg [3:0]    n;
    reg [7:0]    seq;
    wire out_free = !dl_valid || dl_ready;
    wire full     = (n == 4'(NS));
    wire flush    = (n != 0) && (full || !tl_valid) && out_free;
    assign tl_ready = !full || flush;
    wire take = tl_valid && tl_ready;
    wire [31:0] wpos = flush ? 32'd0 : 32'(n);

    always @(posedge clk) begin
        if (rst) begin
            dl_valid <= 1'b0; n <= 4'd0; seq <= 8'd0; accv <= {NS{1'b0}}; accl <= {NS{1'b0}};
        end else begin
            if (dl_valid && dl_ready) dl_valid <= 1'b0;
            if (flush) begin
                dl_valid <= 1'b1;
                dl_flit  <= {acc, 480'd0, seq, 6'd0, accl, accv};
                seq      <= seq + 8'd1;
            end
            if (take) begin
                acc[512 * wpos +: 512] <= tl_data;
                accv <= flush ? NS'(1) : (accv | (NS'(1) << n));
                accl <= flush ? NS'(tl_last) : (accl | (NS'(tl_last) << n));
                n    <= flush ? 4'd1 : n + 4'd1;
            end else if (flush) begin
                n <= 4'd0; accv <= {NS{1'b0}}; accl <= {NS{1'b0}};
            end
        end
    end
endmodule
`default_nettype wire
