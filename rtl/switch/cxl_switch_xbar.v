`default_nettype none
// Crossbar data path: egress j takes the head of ingress src_j's queue (j, cls_j). Every queue
// head is its own crossbar input (see cxl_switch_alloc), so the mux per egress is over N x 4
// headers and N x 2 data words.
module cxl_switch_xbar #(
    parameter integer N  = 4,
    parameter integer PW = (N > 1) ? $clog2(N) : 1
) (
    input  wire [N*N*4*128-1:0] q_hdr,   // [((i*N + j)*4 + c)*128 +: 128]: ingress i, queue (j, c)
    input  wire [N*N*2*512-1:0] q_data,  // [((i*N + j)*2 + c/2)*512 +: 512]
    input  wire [N*PW-1:0]      eg_src,
    input  wire [N*2-1:0]       eg_cls,
    output wire [N*128-1:0]     xi_hdr,
    output wire [N*512-1:0]     xi_data
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 1) begin : g_bad_n
            cxl_switch_xbar_parameter_error_N_must_be_at_least_1 u_stop ();
        end
        if (PW != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_pw
            cxl_switch_xbar_parameter_error_PW_must_be_derived u_stop ();
        end
    endgenerate

    genvar i, j;
    generate
        for (j = 0; j < N; j = j + 1) begin : g_eg
            wire [PW-1:0] src = eg_src[j*PW +: PW];
            wire [1:0]    cls = eg_cls[j*2 +: 2];
            // class first (constant offsets), then the ingress by array index: small, fast models
            wire [127:0]  hdr_i  [0:N-1];
            wire [511:0]  data_i [0:N-1];
            for (i = 0; i < N; i = i + 1) begin : g_in
                localparam integer HB = (i*N + j)*4*128;
                localparam integer DB = (i*N + j)*2*512;
                assign hdr_i[i]  = (cls == 2'd0) ? q_hdr[HB +: 128] : (cls == 2'd1) ? q_hdr[HB + 128 +: 128] :
                                   (cls == 2'd2) ? q_hdr[HB + 256 +: 128] : q_hdr[HB + 384 +: 128];
                assign data_i[i] = cls[1] ? q_data[DB + 512 +: 512] : q_data[DB +: 512];
            end
            assign xi_hdr[j*128 +: 128]  = hdr_i[src];
            assign xi_data[j*512 +: 512] = data_i[src];
        end
    endgenerate
endmodule
`default_nettype wire
