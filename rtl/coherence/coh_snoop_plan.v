`resetall
`default_nettype none
// Snoops of one request of the lightweight CXL.cache home agent, from the directory state it finds
// (models/coherence/spec_table.yaml, column `snoop`; choice C7 there). Pure combinational.
// Only recorded holders are snooped, never the requester. Directory states: 0 = I, 1 = S, 2 = E.
module coh_snoop_plan #(
    parameter integer N = 4  // caching devices (1..16)
) (
    input  wire [4:0]   op,   // D2H Req opcode
    input  wire         coh,  // address is in a coherent range
    input  wire [1:0]   st,   // directory state found
    input  wire [N-1:0] sh,   // sharer vector found
    input  wire [N-1:0] me,   // requester, one-hot
    output reg  [2:0]   snp,  // H2D Req opcode (SnpData / SnpInv / SnpCur), valid when tgt != 0
    output reg  [N-1:0] tgt   // ports to snoop
);
    `include "cxl_defs.vh"

    generate
        if (N < 1 || N > 16) begin : g_bad_n
            coh_snoop_plan_parameter_error_N_must_be_1_to_16 u_stop ();
        end
    endgenerate

    wire [N-1:0] others = sh & ~me;
    // requests that need every other copy gone: ownership, or a write / flush of the whole line
    wire inval = (op == CXL_D2H_REQ_OP_RDOWN) || (op == CXL_D2H_REQ_OP_RDOWNNODATA) ||
                 (op == CXL_D2H_REQ_OP_ITOMWR) || (op == CXL_D2H_REQ_OP_WRCUR) ||
                 (op == CXL_D2H_REQ_OP_WRINV) || (op == CXL_D2H_REQ_OP_CLFLUSH) ||
                 (op == CXL_D2H_REQ_OP_WOWRINV) || (op == CXL_D2H_REQ_OP_WOWRINVF);

    always @* begin
        snp = CXL_H2D_REQ_OP_SNPINV;
        tgt = {N{1'b0}};
        if (coh && others != {N{1'b0}}) begin
            if (inval) begin
                tgt = others;
            end else if ((op == CXL_D2H_REQ_OP_RDSHARED || op == CXL_D2H_REQ_OP_RDANY) && st == 2'd2) begin
                snp = CXL_H2D_REQ_OP_SNPDATA;
                tgt = others;
            end else if (op == CXL_D2H_REQ_OP_RDCURR && st == 2'd2) begin
                snp = CXL_H2D_REQ_OP_SNPCUR;
                tgt = others;
            end
        end
    end
endmodule
`resetall
