`default_nettype none
// Crossbar data path: egress j takes the queue head its allocator grant names (`pop`, one-hot over
// the ingress ports and classes of egress j). Every queue head is its own crossbar input (see
// cxl_switch_alloc), so the select per egress is an AND-OR over N x 4 headers and, for the data,
// over the N RwD (class 1) and N DRS (class 3) heads; the data of a Req or NDR grant is zero (no
// egress buffer takes it).
module cxl_switch_xbar #(
    parameter integer N  = 4   // switch ports (>= 1)
) (
    input  wire [N*N*4*128-1:0] q_hdr,   // [((i*N + j)*4 + c)*128 +: 128]: ingress i, queue (j, c)
    input  wire [N*N*2*512-1:0] q_data,  // [((i*N + j)*2 + c/2)*512 +: 512]
    input  wire [N*N*4-1:0]     pop,     // [(i*N + j)*4 + c]: egress j takes that head (one-hot per j)
    output wire [N*128-1:0]     xi_hdr,
    output wire [N*512-1:0]     xi_data
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 1) begin : g_bad_n
            cxl_switch_xbar_parameter_error_N_must_be_at_least_1 u_stop ();
        end
    endgenerate

    genvar j;
    generate
        for (j = 0; j < N; j = j + 1) begin : g_eg
            reg [127:0] hdr;
            reg [511:0] data;
            integer i, c;
            always @* begin
                hdr  = 128'd0;
                data = 512'd0;
                for (i = 0; i < N; i = i + 1) begin
                    for (c = 0; c < 4; c = c + 1)
                        hdr = hdr | (q_hdr[((i*N + j)*4 + c)*128 +: 128] & {128{pop[(i*N + j)*4 + c]}});
                    data = data | (q_data[((i*N + j)*2 + 0)*512 +: 512] & {512{pop[(i*N + j)*4 + 1]}})
                                | (q_data[((i*N + j)*2 + 1)*512 +: 512] & {512{pop[(i*N + j)*4 + 3]}});
                end
            end
            assign xi_hdr[j*128 +: 128]  = hdr;
            assign xi_data[j*512 +: 512] = data;
        end
    endgenerate
endmodule
`default_nettype wire
