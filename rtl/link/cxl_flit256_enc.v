`default_nettype none
// Canonical header -> 256B wire bits (HBR or PBR) of the message that class CLS carries when an
// endpoint of role ROLE transmits (CONVENTIONS.md class table). Pure wiring around the generated
// cxl_<m>_to_w256/_to_wpbr functions; Valid (bit 0) is 1.
module cxl_flit256_enc #(
    parameter integer ROLE = 0,  // role of the transmitting endpoint
    parameter integer PBR  = 0,  // 1: PBR layouts, 0: HBR
    parameter integer CLS  = 0   // link class 0..5
) (
    input wire  [127:0] canon,   // canonical header
    output wire [123:0] wire_o,  // wire bits, zero above the message width
    output wire         trl      // BEP/TRP set: a trailer slot follows the 4 data slots
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit256_enc_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_flit256_enc_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
        if (CLS < 0 || CLS > 5) begin : g_bad_cls
            cxl_flit256_enc_parameter_error_CLS_must_be_0_to_5 u_stop ();
        end
    endgenerate

    `include "cxl_defs.vh"

    localparam integer DOWN = (ROLE == CXL_ROLE_DOWN) ? 1 : 0;

    reg [123:0] w;
    reg         t;
    always @* begin
        w = 124'd0;
        t = 1'b0;
        if (DOWN == 1) begin
            case (CLS)
                0: if (PBR != 0) w[CXL_H2D_REQ_WPBR-1:0] = cxl_h2d_req_to_wpbr(canon);
                   else          w[CXL_H2D_REQ_W256-1:0] = cxl_h2d_req_to_w256(canon);
                1: if (PBR != 0) w[CXL_H2D_RSP_WPBR-1:0] = cxl_h2d_rsp_to_wpbr(canon);
                   else          w[CXL_H2D_RSP_W256-1:0] = cxl_h2d_rsp_to_w256(canon);
                2: if (PBR != 0) w[CXL_H2D_DH_WPBR-1:0] = cxl_h2d_dh_to_wpbr(canon);
                   else          w[CXL_H2D_DH_W256-1:0] = cxl_h2d_dh_to_w256(canon);
                3: if (PBR != 0) w[CXL_M2S_REQ_WPBR-1:0] = cxl_m2s_req_to_wpbr(canon);
                   else          w[CXL_M2S_REQ_W256-1:0] = cxl_m2s_req_to_w256(canon);
                4: if (PBR != 0) w[CXL_M2S_BIRSP_WPBR-1:0] = cxl_m2s_birsp_to_wpbr(canon);
                   else          w[CXL_M2S_BIRSP_W256-1:0] = cxl_m2s_birsp_to_w256(canon);
                default: begin
                    if (PBR != 0) w[CXL_M2S_RWD_WPBR-1:0] = cxl_m2s_rwd_to_wpbr(canon);
                    else          w[CXL_M2S_RWD_W256-1:0] = cxl_m2s_rwd_to_w256(canon);
                    t = canon[CXL_M2S_RWD_TRP_LSB];
                end
            endcase
        end else begin
            case (CLS)
                0: if (PBR != 0) w[CXL_D2H_REQ_WPBR-1:0] = cxl_d2h_req_to_wpbr(canon);
                   else          w[CXL_D2H_REQ_W256-1:0] = cxl_d2h_req_to_w256(canon);
                1: if (PBR != 0) w[CXL_D2H_RSP_WPBR-1:0] = cxl_d2h_rsp_to_wpbr(canon);
                   else          w[CXL_D2H_RSP_W256-1:0] = cxl_d2h_rsp_to_w256(canon);
                2: begin
                    if (PBR != 0) w[CXL_D2H_DH_WPBR-1:0] = cxl_d2h_dh_to_wpbr(canon);
                    else          w[CXL_D2H_DH_W256-1:0] = cxl_d2h_dh_to_w256(canon);
                    t = canon[CXL_D2H_DH_BEP_LSB];
                end
                3: if (PBR != 0) w[CXL_S2M_BISNP_WPBR-1:0] = cxl_s2m_bisnp_to_wpbr(canon);
                   else          w[CXL_S2M_BISNP_W256-1:0] = cxl_s2m_bisnp_to_w256(canon);
                4: if (PBR != 0) w[CXL_S2M_NDR_WPBR-1:0] = cxl_s2m_ndr_to_wpbr(canon);
                   else          w[CXL_S2M_NDR_W256-1:0] = cxl_s2m_ndr_to_w256(canon);
                default: begin
                    if (PBR != 0) w[CXL_S2M_DRS_WPBR-1:0] = cxl_s2m_drs_to_wpbr(canon);
                    else          w[CXL_S2M_DRS_W256-1:0] = cxl_s2m_drs_to_w256(canon);
                    t = canon[CXL_S2M_DRS_TRP_LSB];
                end
            endcase
        end
    end
    assign wire_o = w;
    assign trl = t;
endmodule
`default_nettype wire
