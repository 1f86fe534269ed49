`default_nettype none
// Round-robin arbiter. grant is combinational from req and the priority pointer; the pointer
// moves to just past the granted requester only on `advance`, so a grant can be held while
// the winner waits for its downstream ready.
module rr_arbiter #(
    parameter integer N = 4
) (
    input  wire                                  clk,
    input  wire                                  rst,
    input  wire [N-1:0]                          req,
    input  wire                                  advance,
    output reg  [N-1:0]                          grant,
    output reg  [((N > 1) ? $clog2(N) : 1)-1:0]  grant_idx,
    output wire                                  any
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 1) begin : g_bad_n
            rr_arbiter_parameter_error_N_must_be_at_least_1 u_stop ();
        end
    endgenerate

    localparam integer IW = (N > 1) ? $clog2(N) : 1;

    // The pointer is kept as a mask: bit k set when requester k is at or after it (reset: all
    // set, pointer 0). The winner is the lowest requester at or after the pointer, else the lowest
    // requester: two lowest-set-bit picks from the mask register and req, and a select, so the
    // grant is a few gate levels after req with no index arithmetic. Any mask value gives at most
    // one grant (a mask of 0 acts as pointer 0, which is what a grant to the last requester
    // leaves).
    reg  [N-1:0] mask;
    wire [N-1:0] hi = req & mask;
    wire         any_hi = |hi;
    reg  [N-1:0] below_hi, below_req;    // [k]: some requester below k (in hi / in req)
    reg  [N-1:0] above;                  // [k]: k is past the granted requester
    integer k, b;

    assign any = |req;

    always @* begin
        for (k = 0; k < N; k = k + 1) begin
            below_hi[k]  = 1'b0;
            below_req[k] = 1'b0;
            for (b = 0; b < k; b = b + 1) begin
                below_hi[k]  = below_hi[k] | hi[b];
                below_req[k] = below_req[k] | req[b];
            end
            grant[k] = any_hi ? (hi[k] && !below_hi[k]) : (req[k] && !below_req[k]);
        end
        // binary index of the one-hot grant (an OR per index bit)
        grant_idx = {IW{1'b0}};
        for (k = 0; k < N; k = k + 1)
            if (grant[k]) grant_idx = grant_idx | IW'(k);
        for (k = 0; k < N; k = k + 1) begin
            above[k] = 1'b0;
            for (b = 0; b < k; b = b + 1) above[k] = above[k] | grant[b];
        end
    end

    // the pointer moves to just past the granted requester (a grant to the last one leaves 0)
    always @(posedge clk) begin
        if (rst) begin
            mask <= {N{1'b1}};
        end else if (advance && any) begin
            mask <= above;
        end
    end
endmodule
`default_nettype wire
