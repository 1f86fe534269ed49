// Separable input-first crossbar allocator, one iSLIP iteration per cycle: each egress grants one
// requesting ingress (round robin), each ingress accepts one grant (round robin), grant pointers
// move only past accepted grants (pointer desynchronisation gives ~100% under uniform load).
// An ingress requests egress j if any class queue toward j has a head the egress can take; the
// class of a matched pair is picked round robin per ingress.
module cxl_switch_alloc #(
    parameter integer N  = 4,
    parameter integer PW = (N > 1) ? $clog2(N) : 1
) (
    input  wire              clk,
    input  wire              rst,
    input  wire [N*N*4-1:0]  head_valid,  // [(i*N + j)*4 + c]
    input  wire [N*4-1:0]    eg_rdy,      // [j*4 + c]
    output wire [N-1:0]      sel_valid,   // per ingress i
    output wire [N*PW-1:0]   sel_dst,
    output wire [N*2-1:0]    sel_cls,
    output reg  [N-1:0]      eg_valid,    // per egress j
    output reg  [N*PW-1:0]   eg_src,
    output reg  [N*2-1:0]    eg_cls
);
    wire [N-1:0] req_ij [0:N-1];  // req_ij[i][j]
    wire [N-1:0] req_ji [0:N-1];  // transposed: req_ji[j][i]
    wire [N-1:0] gnt_ji [0:N-1];  // egress j grants ingress i
    wire [N-1:0] gnt_ij [0:N-1];
    wire [N-1:0] acc_ij [0:N-1];  // ingress i accepts egress j
    wire [N-1:0] acc_ji [0:N-1];
    wire [PW-1:0] acc_idx [0:N-1];
    wire [N-1:0] acc_any;
    wire [1:0]   cls_idx [0:N-1];

    genvar i, j;
    generate
        for (i = 0; i < N; i = i + 1) begin : g_i
            for (j = 0; j < N; j = j + 1) begin : g_j
                assign req_ij[i][j] = |(head_valid[(i*N + j)*4 +: 4] & eg_rdy[j*4 +: 4]);
                assign req_ji[j][i] = req_ij[i][j];
                assign gnt_ij[i][j] = gnt_ji[j][i];
                assign acc_ji[j][i] = acc_ij[i][j];
            end
        end
        for (j = 0; j < N; j = j + 1) begin : g_grant
            wire [PW-1:0] gidx;
            wire          gany;
            rr_arbiter #(.N(N)) u_g (.clk(clk), .rst(rst), .req(req_ji[j]), .advance(|acc_ji[j]),
                                     .grant(gnt_ji[j]), .grant_idx(gidx), .any(gany));
            wire unused_g = &{1'b0, gidx, gany};
        end
        for (i = 0; i < N; i = i + 1) begin : g_accept
            rr_arbiter #(.N(N)) u_a (.clk(clk), .rst(rst), .req(gnt_ij[i]), .advance(acc_any[i]),
                                     .grant(acc_ij[i]), .grant_idx(acc_idx[i]), .any(acc_any[i]));
            wire [3:0] creq = head_valid[(i*N + 32'(acc_idx[i]))*4 +: 4] & eg_rdy[32'(acc_idx[i])*4 +: 4];
            wire [3:0] cg;
            wire       cany;
            rr_arbiter #(.N(4)) u_c (.clk(clk), .rst(rst), .req(creq), .advance(acc_any[i]),
                                     .grant(cg), .grant_idx(cls_idx[i]), .any(cany));
            wire unused_c = &{1'b0, cg, cany};
            assign sel_valid[i] = acc_any[i];
            assign sel_dst[i*PW +: PW] = acc_idx[i];
            assign sel_cls[i*2 +: 2] = cls_idx[i];
        end
    endgenerate

    integer a, b;
    always @* begin
        eg_valid = {N{1'b0}};
        eg_src   = {N*PW{1'b0}};
        eg_cls   = {N*2{1'b0}};
        for (b = 0; b < N; b = b + 1)
            for (a = 0; a < N; a = a + 1)
                if (acc_ij[a][b]) begin
                    eg_valid[b] = 1'b1;
                    eg_src[b*PW +: PW] = PW'(a);
                    eg_cls[b*2 +: 2] = cls_idx[a];
                end
    end
endmodule
