`default_nettype none
// Test module for tools.toggle_conn (tests/test_verif_tools.py): the submodule cov_conn_top joins.
module cov_conn_leaf (
    input  wire [1:0] i,
    output wire [1:0] o         // i inverted
);
    assign o = ~i;
endmodule
`default_nettype wire
