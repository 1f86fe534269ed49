`resetall
`default_nettype none
// Test-only wrapper: the home agent's two combinational tables side by side, so every row of
// models/coherence/spec_table.yaml can be driven in one build (tests/test_coherence_table.py).
module coh_table_tb #(
    parameter integer N = 8  // caching devices
) (
    input  wire [4:0]   op,
    input  wire [N-1:0] me,
    input  wire [1:0]   st,
    input  wire [N-1:0] sh,
    input  wire [N-1:0] snooped,
    input  wire [N-1:0] keepb,
    input  wire         dirty,
    input  wire         keeps,
    input  wire         have_fwd,
    input  wire         coh,
    output wire [2:0]   snp,
    output wire [N-1:0] tgt,
    output wire [1:0]   n_st,
    output wire [N-1:0] n_sh,
    output wire         go_v,
    output wire [3:0]   go_st,
    output wire         src_mem,
    output wire         src_fwd,
    output wire         wfwd,
    output wire         pull_v,
    output wire [3:0]   pull_op,
    output wire         acc_pull,
    output wire         ga_v,
    output wire [3:0]   ga_st,
    output wire         ga_ext,
    output wire         fwd_bk
);
    coh_snoop_plan #(.N(N)) u_plan (.op(op), .coh(coh), .st(st), .sh(sh), .me(me), .snp(snp), .tgt(tgt));
    coh_decide #(.N(N)) u_dec (
        .op(op), .me(me), .st(st), .sh(sh), .snooped(snooped), .keepb(keepb), .dirty(dirty), .keeps(keeps),
        .have_fwd(have_fwd), .coh(coh), .n_st(n_st), .n_sh(n_sh), .go_v(go_v), .go_st(go_st),
        .src_mem(src_mem), .src_fwd(src_fwd), .wfwd(wfwd), .pull_v(pull_v), .pull_op(pull_op),
        .acc_pull(acc_pull), .ga_v(ga_v), .ga_st(ga_st), .ga_ext(ga_ext), .fwd_bk(fwd_bk));
endmodule
`resetall
