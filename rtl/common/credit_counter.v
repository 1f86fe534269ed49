// Credit counter: add credits returned this cycle, take one when sending. Saturates at all-ones
// (a sender's counter must never wrap). A take while empty is a protocol error: it is ignored
// (the count is not decremented) and sets the sticky `err` flag.
module credit_counter #(
    parameter integer           WIDTH = 8,
    parameter [WIDTH-1:0]       INIT  = {WIDTH{1'b0}}
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [WIDTH-1:0] add,
    input  wire             take,
    output wire             avail,
    output wire [WIDTH-1:0] count,
    output reg              err
);
    localparam [WIDTH:0] MAX = {1'b0, {WIDTH{1'b1}}};

    reg [WIDTH-1:0] cnt;

    wire          take_ok = take && avail;
    wire [WIDTH:0] sum    = {1'b0, cnt} + {1'b0, add} - {{WIDTH{1'b0}}, take_ok};

    assign avail = (cnt != {WIDTH{1'b0}});
    assign count = cnt;

    always @(posedge clk) begin
        if (rst) begin
            cnt <= INIT;
            err <= 1'b0;
        end else begin
            cnt <= (sum > MAX) ? {WIDTH{1'b1}} : sum[WIDTH-1:0];
            if (take && !avail) err <= 1'b1;
        end
    end
endmodule
