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
    // Index arithmetic one bit wider so ptr + k (both < N) cannot overflow.
    localparam integer XW = IW + 1;
    localparam [XW-1:0] N_X = XW'(N);
    localparam [IW-1:0] LAST = IW'(N - 1);

    reg [IW-1:0] ptr;      // highest-priority requester
    reg [XW-1:0] idx;
    integer k;

    assign any = |req;

    // Scan from ptr + N-1 down to ptr so the requester closest after ptr wins.
    always @* begin
        grant     = {N{1'b0}};
        grant_idx = {IW{1'b0}};
        idx       = {XW{1'b0}};
        for (k = N - 1; k >= 0; k = k - 1) begin
            idx = XW'(ptr) + XW'(k);
            if (idx >= N_X) idx = idx - N_X;
            if (req[idx[IW-1:0]]) begin
                grant     = {N{1'b0}};
                grant[idx[IW-1:0]] = 1'b1;
                grant_idx = idx[IW-1:0];
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            ptr <= {IW{1'b0}};
        end else if (advance && any) begin
            ptr <= (grant_idx == LAST) ? {IW{1'b0}} : grant_idx + 1'b1;
        end
    end
endmodule
`default_nettype wire
