`resetall
`default_nettype none
// Home answer of the lightweight CXL.cache agent for one request once its snoops are in
// (cxl-protocol.md "Typical host answers"; the expected answers are models/coherence/spec_table.yaml,
// checked row by row against this module by tests/test_coherence_table.py).
// Pure combinational. Directory states: 0 = I, 1 = S, 2 = E (owner may hold E or M).
module coh_decide #(
    parameter integer N = 4  // caching devices (1..16)
) (
    input  wire [4:0]   op,        // D2H Req opcode
    input  wire [N-1:0] me,        // requester, one-hot
    input  wire [1:0]   st,        // directory state found at start
    input  wire [N-1:0] sh,        // sharer vector found at start
    input  wire [N-1:0] snooped,   // ports that were snooped
    input  wire [N-1:0] keepb,     // snooped port answered RspS*/RspV* (keeps a copy)
    input  wire         dirty,     // some answer was RspSFwdM / RspIFwdM
    input  wire         keeps,     // some answer was RspSHitSE / RspSFwdM
    input  wire         have_fwd,  // a forwarded line arrived
    input  wire         coh,       // address is in a coherent range
    output reg  [1:0]   n_st,
    output reg  [N-1:0] n_sh,
    output reg          go_v,      // plain GO now (with the data, if any)
    output reg  [3:0]   go_st,
    output reg          src_mem,   // data from MemRd
    output reg          src_fwd,   // data = forwarded line
    output reg          wfwd,      // write the forwarded line to memory
    output reg          pull_v,    // WritePull / GO_WritePull / GO_WritePull_Drop
    output reg  [3:0]   pull_op,
    output reg          acc_pull,  // write the pulled line to memory (unless Bogus)
    output reg          ga_v,      // GO (or ExtCmp) after the memory write completed
    output reg  [3:0]   ga_st,
    output reg          ga_ext,    // the message after the write is ExtCmp, not GO
    output reg          fwd_bk     // pull brings no usable line: write the forwarded line instead
);
    `include "cxl_defs.vh"

    generate
        if (N < 1 || N > 16) begin : g_bad_n
            coh_decide_parameter_error_N_must_be_1_to_16 u_stop ();
        end
    endgenerate
    localparam [1:0] DI = 2'd0, DS = 2'd1, DE = 2'd2;

    wire [N-1:0] others = sh & ~me;
    wire [N-1:0] keep   = others & (~snooped | keepb);

    always @* begin
        n_st = DI; n_sh = {N{1'b0}};
        go_v = 1'b0; go_st = CXL_GO_STATE_I;
        src_mem = 1'b0; src_fwd = 1'b0; wfwd = 1'b0;
        pull_v = 1'b0; pull_op = CXL_H2D_RSP_OP_GO_WRITEPULL; acc_pull = 1'b0;
        ga_v = 1'b0; ga_st = CXL_GO_STATE_I; ga_ext = 1'b0; fwd_bk = 1'b0;
        if (op == CXL_D2H_REQ_OP_CACHEFLUSHED) begin
            // no line: GO-I, directory left as it is
            n_st = st; n_sh = sh; go_v = 1'b1;
        end else if (!coh) begin
            // selective coherence: straight to memory, never cached, no directory
            case (op)
                CXL_D2H_REQ_OP_RDSHARED, CXL_D2H_REQ_OP_RDOWN, CXL_D2H_REQ_OP_RDANY: begin
                    go_v = 1'b1; src_mem = 1'b1;
                end
                CXL_D2H_REQ_OP_RDCURR: src_mem = 1'b1;
                CXL_D2H_REQ_OP_ITOMWR, CXL_D2H_REQ_OP_WRCUR, CXL_D2H_REQ_OP_DIRTYEVICT: begin
                    pull_v = 1'b1; acc_pull = 1'b1;
                end
                CXL_D2H_REQ_OP_WRINV: begin
                    pull_v = 1'b1; pull_op = CXL_H2D_RSP_OP_WRITEPULL; acc_pull = 1'b1; ga_v = 1'b1;
                end
                CXL_D2H_REQ_OP_CLEANEVICT: begin
                    pull_v = 1'b1; pull_op = CXL_H2D_RSP_OP_GO_WRITEPULL_DROP;
                end
                CXL_D2H_REQ_OP_WOWRINV, CXL_D2H_REQ_OP_WOWRINVF: begin
                    pull_v = 1'b1; pull_op = CXL_H2D_RSP_OP_FAST_GO_WRITEPULL; acc_pull = 1'b1;
                    ga_v = 1'b1; ga_ext = 1'b1;
                end
                CXL_D2H_REQ_OP_RDOWNNODATA, CXL_D2H_REQ_OP_CLEANEVICTNODATA, CXL_D2H_REQ_OP_CLFLUSH:
                    go_v = 1'b1;
                default: begin  // not a request opcode: GO-Err
                    go_v = 1'b1; go_st = CXL_GO_STATE_ERR;
                end
            endcase
        end else begin
            case (op)
                CXL_D2H_REQ_OP_RDSHARED: begin
                    n_st = DS; n_sh = keep | me; go_v = 1'b1; go_st = CXL_GO_STATE_S;
                    src_fwd = have_fwd; src_mem = !have_fwd; wfwd = dirty;
                end
                CXL_D2H_REQ_OP_RDANY: begin
                    go_v = 1'b1;
                    if (|keep) begin
                        n_st = DS; n_sh = keep | me; go_st = CXL_GO_STATE_S;
                        src_fwd = have_fwd; src_mem = !have_fwd; wfwd = dirty;
                    end else begin
                        n_st = DE; n_sh = me;
                        go_st = have_fwd ? CXL_GO_STATE_M : CXL_GO_STATE_E;
                        src_fwd = have_fwd; src_mem = !have_fwd;
                    end
                end
                CXL_D2H_REQ_OP_RDOWN: begin
                    n_st = DE; n_sh = me; go_v = 1'b1;
                    go_st = have_fwd ? CXL_GO_STATE_M : CXL_GO_STATE_E;
                    src_fwd = have_fwd; src_mem = !have_fwd;
                end
                CXL_D2H_REQ_OP_RDOWNNODATA: begin
                    n_st = DE; n_sh = me; go_v = 1'b1; go_st = CXL_GO_STATE_E; wfwd = dirty;
                end
                CXL_D2H_REQ_OP_RDCURR: begin
                    src_fwd = have_fwd; src_mem = !have_fwd; wfwd = dirty;
                    if (|keep) begin
                        n_st = keeps ? DS : st; n_sh = keep;
                    end
                end
                CXL_D2H_REQ_OP_ITOMWR, CXL_D2H_REQ_OP_WRCUR: begin
                    pull_v = 1'b1; acc_pull = 1'b1;
                end
                CXL_D2H_REQ_OP_WRINV: begin
                    pull_v = 1'b1; pull_op = CXL_H2D_RSP_OP_WRITEPULL; acc_pull = 1'b1; ga_v = 1'b1;
                end
                CXL_D2H_REQ_OP_WOWRINV, CXL_D2H_REQ_OP_WOWRINVF: begin
                    pull_v = 1'b1; pull_op = CXL_H2D_RSP_OP_FAST_GO_WRITEPULL; acc_pull = 1'b1;
                    ga_v = 1'b1; ga_ext = 1'b1; fwd_bk = dirty && have_fwd;
                end
                CXL_D2H_REQ_OP_CLFLUSH: begin
                    if (dirty) begin
                        wfwd = 1'b1; ga_v = 1'b1;
                    end else begin
                        go_v = 1'b1;
                    end
                end
                CXL_D2H_REQ_OP_CLEANEVICT: begin
                    n_st = (|others) ? st : DI; n_sh = others;
                    pull_v = 1'b1; pull_op = CXL_H2D_RSP_OP_GO_WRITEPULL_DROP;
                end
                CXL_D2H_REQ_OP_DIRTYEVICT: begin
                    n_st = (|others) ? st : DI; n_sh = others;
                    pull_v = 1'b1; acc_pull = (st == DE) && (sh == me);
                end
                CXL_D2H_REQ_OP_CLEANEVICTNODATA: begin
                    n_st = (|others) ? st : DI; n_sh = others; go_v = 1'b1;
                end
                default: begin  // not a request opcode: GO-Err, directory left as it is
                    n_st = st; n_sh = sh; go_v = 1'b1; go_st = CXL_GO_STATE_ERR;
                end
            endcase
        end
        // a dirty line is written only when it really arrived
        wfwd = wfwd && have_fwd;
    end
endmodule
`resetall
