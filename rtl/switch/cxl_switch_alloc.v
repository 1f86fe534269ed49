`default_nettype none
// Crossbar allocator. Every queue head of every ingress (a VOQ per egress and class) has its own
// crossbar input, so ingress ports never conflict: an ingress can send to several egress ports in
// one cycle, each egress takes one message per cycle. That leaves an output arbiter per egress
// (round robin over the ingress ports with a head it can take, then round robin over that ingress's
// classes). With one input per VOQ an iSLIP-style input stage has nothing to resolve; this matches
// a buffered crossbar and sustains full line rate under uniform load (see rtl/switch/README.md).
//
// Timing: both round robins of an egress are decided in parallel. Its class round robin (one
// pointer per egress) is evaluated for every ingress at once, and the ingress round robin picks
// among them, so a grant is the AND of the two one-hots instead of a class pick in series after the
// ingress pick. Each pointer is kept as a registered mask (bit k set when k is at or after the
// pointer), so the picks start from flip-flops without decoding a pointer. The grants leave as
// one-hots (`pop`, `eg_cv`): the crossbar selects with AND-OR trees and the egress buffers take
// their valid without a compare.
module cxl_switch_alloc #(
    parameter integer N  = 4   // switch ports (>= 1): ingress and egress count
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [N*N*4-1:0]  head_valid,  // [(i*N + j)*4 + c]: ingress i has a class-c head for egress j
    input  wire [N*4-1:0]    eg_rdy,      // [j*4 + c]
    output wire [N*N*4-1:0]  pop,         // [(i*N + j)*4 + c]: egress j takes that head (one-hot per j)
    output wire [N*4-1:0]    eg_cv        // [j*4 + c]: egress j takes a class-c message
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 1) begin : g_bad_n
            cxl_switch_alloc_parameter_error_N_must_be_at_least_1 u_stop ();
        end
    endgenerate

    // Round-robin pick: the first requester in the order that starts at the pointer and wraps.
    // m is the pointer as a mask (the bits at or after it). Requester k wins when no requester
    // is ahead of it; whether b is ahead of k depends on the mask only (for b < k: unless only k
    // is at or after the pointer; for b > k: when only b is), so those terms are ready before
    // the requests and each grant is an AND, an OR over the other requesters and an AND.
    // One-hot result, zero without requests.
    function automatic [N-1:0] pick_n(input [N-1:0] r, input [N-1:0] m);
        reg [N-1:0] ahead;
        integer k, b;
        begin
            for (k = 0; k < N; k = k + 1) begin
                for (b = 0; b < N; b = b + 1)
                    ahead[b] = (b < k) ? (m[b] || !m[k]) : (b > k) ? (m[b] && !m[k]) : 1'b0;
                pick_n[k] = r[k] && (r & ahead) == {N{1'b0}};
            end
        end
    endfunction
    function automatic [3:0] pick_4(input [3:0] r, input [3:0] m);
        reg [3:0] ahead;
        integer k, b;
        begin
            for (k = 0; k < 4; k = k + 1) begin
                for (b = 0; b < 4; b = b + 1)
                    ahead[b] = (b < k) ? (m[b] || !m[k]) : (b > k) ? (m[b] && !m[k]) : 1'b0;
                pick_4[k] = r[k] && (r & ahead) == 4'd0;
            end
        end
    endfunction
    // Mask after a grant g (one-hot, non-zero): the pointer moves to just past g, i.e. the bits
    // above g, or all bits when g is the last requester (pointer back to 0).
    function automatic [N-1:0] next_n(input [N-1:0] g);
        integer k;
        begin
            for (k = 0; k < N; k = k + 1)
                next_n[k] = g[N-1] || (g & ((N'(1) << k) - N'(1))) != {N{1'b0}};
        end
    endfunction
    function automatic [3:0] next_4(input [3:0] g);
        integer k;
        begin
            for (k = 0; k < 4; k = k + 1)
                next_4[k] = g[3] || (g & ((4'd1 << k) - 4'd1)) != 4'd0;
        end
    endfunction

    genvar i, j;
    generate
        for (j = 0; j < N; j = j + 1) begin : g_eg
            reg  [N-1:0] sm;    // ingress round robin: bit k set when ingress k is at or after the pointer
            reg  [3:0]   cm;    // class round robin, the same for classes
            wire [N-1:0] req;   // ingress i has a head egress j can take
            wire [3:0]   cg [0:N-1];  // class pick among ingress i's heads
            wire [N-1:0] gnt;
            wire [3:0]   cv;
            for (i = 0; i < N; i = i + 1) begin : g_in
                wire [3:0] creq = head_valid[(i*N + j)*4 +: 4] & eg_rdy[j*4 +: 4];
                assign req[i] = |creq;
                assign cg[i]  = pick_4(creq, cm);
            end
            assign gnt = pick_n(req, sm);
            for (i = 0; i < N; i = i + 1) begin : g_pop
                assign pop[(i*N + j)*4 +: 4] = cg[i] & {4{gnt[i]}};
            end
            // the granted class: an OR over the ingress ports of their (exclusive) grants
            reg [3:0] cv_or;
            integer a;
            always @* begin
                cv_or = 4'd0;
                for (a = 0; a < N; a = a + 1) cv_or = cv_or | pop[(a*N + j)*4 +: 4];
            end
            assign cv = cv_or;
            assign eg_cv[j*4 +: 4] = cv;
            // a grant always transfers (eg_rdy is part of the request), so the pointers advance on it
            always @(posedge clk) begin
                if (rst) begin
                    sm <= {N{1'b1}};
                    cm <= 4'hF;
                end else if (|req) begin
                    sm <= next_n(gnt);
                    cm <= next_4(cv);
                end
            end
        end
    endgenerate
endmodule
`default_nettype wire
