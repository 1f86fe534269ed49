`default_nettype none
// Credit counter: add credits returned this cycle, take one when sending. Saturates at all-ones
// (a sender's counter must never wrap). A take while empty is a protocol error: it is ignored
// (the count is not decremented) and sets the sticky `underflow` flag.
module credit_counter #(
    parameter integer           WIDTH = 8,             // counter width, 1..31; saturates at 2^WIDTH - 1
    parameter [WIDTH-1:0]       INIT  = {WIDTH{1'b0}}  // count after reset
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [WIDTH-1:0] add,
    input  wire             take,
    output wire             avail,
    output wire [WIDTH-1:0] count,
    output reg              underflow  // sticky: a take arrived with the count at zero
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1 || WIDTH > 31) begin : g_bad_width
            credit_counter_parameter_error_WIDTH_must_be_1_to_31 u_stop ();
        end
    endgenerate

    localparam [WIDTH:0] MAX = {1'b0, {WIDTH{1'b1}}};

    reg [WIDTH-1:0] cnt;

    wire          take_ok = take && avail;
    wire [WIDTH:0] sum    = {1'b0, cnt} + {1'b0, add} - {{WIDTH{1'b0}}, take_ok};

    assign avail = (cnt != {WIDTH{1'b0}});
    assign count = cnt;

    always @(posedge clk) begin
        if (rst) begin
            cnt <= INIT;
            underflow <= 1'b0;
        end else begin
            cnt <= (sum > MAX) ? {WIDTH{1'b1}} : sum[WIDTH-1:0];
            if (take && !avail) underflow <= 1'b1;
        end
    end
endmodule
`default_nettype wire
