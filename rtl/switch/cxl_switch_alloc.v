`default_nettype none
// Crossbar allocator. Every queue head of every ingress (a VOQ per egress and class) has its own
// crossbar input, so ingress ports never conflict: an ingress can send to several egress ports in
// one cycle, each egress takes one message per cycle. That leaves an output arbiter per egress
// (round robin over the ingress ports with a head it can take, then round robin over that ingress's
// classes). With one input per VOQ an iSLIP-style input stage has nothing to resolve; this matches
// a buffered crossbar and sustains full line rate under uniform load (see rtl/switch/README.md).
module cxl_switch_alloc #(
    parameter integer N  = 4,
    parameter integer PW = (N > 1) ? $clog2(N) : 1
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [N*N*4-1:0]  head_valid,  // [(i*N + j)*4 + c]: ingress i has a class-c head for egress j
    input  wire [N*4-1:0]    eg_rdy,      // [j*4 + c]
    output reg  [N*N*4-1:0]  pop,         // [(i*N + j)*4 + c]: egress j takes that head
    output wire [N-1:0]      eg_valid,    // per egress j
    output wire [N*PW-1:0]   eg_src,
    output wire [N*2-1:0]    eg_cls
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 1) begin : g_bad_n
            cxl_switch_alloc_parameter_error_N_must_be_at_least_1 u_stop ();
        end
        if (PW != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_pw
            cxl_switch_alloc_parameter_error_PW_must_be_derived u_stop ();
        end
    endgenerate

    genvar i, j;
    generate
        for (j = 0; j < N; j = j + 1) begin : g_eg
            wire [N-1:0] req;
            for (i = 0; i < N; i = i + 1) begin : g_req
                assign req[i] = |(head_valid[(i*N + j)*4 +: 4] & eg_rdy[j*4 +: 4]);
            end
            wire [N-1:0]  gnt;
            wire [PW-1:0] src;
            wire          any;
            // a grant always transfers (eg_rdy is part of the request), so the pointers advance on it
            rr_arbiter #(.N(N)) u_src (.clk(clk), .rst(rst), .req(req), .advance(any),
                                       .grant(gnt), .grant_idx(src), .any(any));
            wire [3:0] creq = head_valid[(32'(src)*N + j)*4 +: 4] & eg_rdy[j*4 +: 4];
            wire [3:0] cg;
            wire [1:0] cls;
            wire       cany;
            rr_arbiter #(.N(4)) u_cls (.clk(clk), .rst(rst), .req(creq), .advance(any),
                                       .grant(cg), .grant_idx(cls), .any(cany));
            assign eg_valid[j] = any;
            assign eg_src[j*PW +: PW] = src;
            assign eg_cls[j*2 +: 2] = cls;
            wire unused_g = &{1'b0, gnt, cg, cany};
        end
    endgenerate

    integer a, b;
    always @* begin
        pop = {N*N*4{1'b0}};
        for (b = 0; b < N; b = b + 1)
            for (a = 0; a < N; a = a + 1)
                if (eg_valid[b] && eg_src[b*PW +: PW] == PW'(a))
                    pop[(a*N + b)*4 + 32'(eg_cls[b*2 +: 2])] = 1'b1;
    end
endmodule
`default_nettype wire
