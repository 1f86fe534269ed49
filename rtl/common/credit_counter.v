`default_nettype none
// Credit counter: add credits returned this cycle, take one when sending. Saturates at all-ones
// (a sender's counter must never wrap). A take while empty is a protocol error: it is ignored
// (the count is not decremented) and sets the sticky `underflow` flag.
// Timing: both candidate sums (cnt + add and cnt + add - 1) are formed in parallel and `take`
// only selects between them at the end, so a late `take` (a formatter's decision in the same
// cycle) adds one mux level, not an adder; `avail` comes straight from a register.
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

    localparam [WIDTH-1:0] ONES = {WIDTH{1'b1}};

    reg [WIDTH-1:0] cnt;
    reg             nz;       // cnt != 0, kept in its own flop

    // sum0 = cnt + add; sum1 = cnt + add - 1 modulo 2^(WIDTH+1), exact whenever it is selected
    // (take_ok needs cnt >= 1). Bit WIDTH set means the count is above ONES: saturate.
    wire [WIDTH:0]   sum0 = {1'b0, cnt} + {1'b0, add};
    wire [WIDTH:0]   sum1 = {1'b0, cnt} + {1'b0, add} + {(WIDTH + 1){1'b1}};
    wire [WIDTH-1:0] sat0 = sum0[WIDTH] ? ONES : sum0[WIDTH-1:0];
    wire [WIDTH-1:0] sat1 = sum1[WIDTH] ? ONES : sum1[WIDTH-1:0];
    wire             take_ok = take && nz;
    wire [WIDTH-1:0] nxt     = take_ok ? sat1 : sat0;
    // nxt != 0 without waiting for the sums: a take leaves zero only from cnt == 1 with add == 0
    wire             add_nz  = (add != {WIDTH{1'b0}});
    wire             cnt_one = (cnt == WIDTH'(1));
    wire             nz_nxt  = take_ok ? !(cnt_one && !add_nz) : (nz || add_nz);

    assign avail = nz;
    assign count = cnt;

    always @(posedge clk) begin
        if (rst) begin
            cnt <= INIT;
            nz  <= (INIT != {WIDTH{1'b0}});
            underflow <= 1'b0;
        end else begin
            cnt <= nxt;
            nz  <= nz_nxt;
            if (take && !nz) underflow <= 1'b1;
        end
    end
endmodule
`default_nettype wire
