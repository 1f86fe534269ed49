`default_nettype none
// Test module for tools.toggle_conn (tests/test_verif_tools.py): nets that only join a submodule's
// ports (a submodule output, a constant tie, an input that only feeds the submodule) next to nets
// the module's own logic drives or reads.
module cov_conn_top #(
    parameter integer W = 2     // 1 or 2: m is a connection for 1, an inverter's output for 2
) (
    input  wire       clk,
    input  wire [1:0] a,        // feeds only the submodule: a connection
    input  wire       s,        // read by an AND gate: own logic
    output wire       y,        // s & x[0]: own logic
    output wire [1:0] z,        // the submodule's output: a connection
    output reg        r         // a flop: own logic
);
    wire [1:0] x;               // the submodule's output
    /* verilator lint_off UNUSEDSIGNAL */
    wire [3:0] lane = {2'b00, x};   // bits 0-1 the submodule's output, 2-3 tied to 0 (unread)
    wire       m = (W == 1) ? x[0] : ~x[0];
    cov_conn_leaf u_leaf (.i(a), .o(x));
    generate
        if (W > 1) begin : g_w
            wire q = lane[1];   // only in W = 2 builds (unread)
        end
    endgenerate
    /* verilator lint_on UNUSEDSIGNAL */
    assign y = s & lane[0] & m;
    assign z = x;
    always @(posedge clk) r <= x[1];
endmodule
`default_nettype wire
