`default_nettype none
// 256B wire bits (HBR or PBR) -> canonical header for N messages of the type class CLS carries
// when an endpoint of role ROLE transmits. Also flags set RSVD bits inside the message: the field mask is
// derived at elaboration by a canonical round trip of an all-ones message (no typed masks).
module cxl_flit256_dec #(
    parameter integer ROLE = 0,  // role of the transmitting endpoint
    parameter integer PBR  = 0,  // 1: PBR layouts, 0: HBR
    parameter integer CLS  = 0,  // link class 0..5
    parameter integer N    = 1   // messages decoded side by side
) (
    input wire  [N*124-1:0] wire_i,    // wire bits from bit 0 (Valid); bits above the width are ignored
    output wire [N*128-1:0] canon,     // canonical headers
    output wire [N-1:0]     valid,     // Valid bits
    output wire [N-1:0]     rsvd_err,  // an RSVD bit of the message is set
    output wire [N-1:0]     trl        // BEP/TRP set: a trailer slot follows the 4 data slots
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit256_dec_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_flit256_dec_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
        if (CLS < 0 || CLS > 5) begin : g_bad_cls
            cxl_flit256_dec_parameter_error_CLS_must_be_0_to_5 u_stop ();
        end
        if (N < 1) begin : g_bad_n
            cxl_flit256_dec_parameter_error_N_must_be_at_least_1 u_stop ();
        end
    endgenerate

    `include "cxl_defs.vh"

    localparam integer DOWN = (ROLE == CXL_ROLE_DOWN) ? 1 : 0;

    function automatic integer msg_w(input integer dummy);
        begin
            msg_w = dummy;
            if (DOWN == 1)
                case (CLS)
                    0: msg_w = (PBR != 0) ? CXL_H2D_REQ_WPBR : CXL_H2D_REQ_W256;
                    1: msg_w = (PBR != 0) ? CXL_H2D_RSP_WPBR : CXL_H2D_RSP_W256;
                    2: msg_w = (PBR != 0) ? CXL_H2D_DH_WPBR : CXL_H2D_DH_W256;
                    3: msg_w = (PBR != 0) ? CXL_M2S_REQ_WPBR : CXL_M2S_REQ_W256;
                    4: msg_w = (PBR != 0) ? CXL_M2S_BIRSP_WPBR : CXL_M2S_BIRSP_W256;
                    default: msg_w = (PBR != 0) ? CXL_M2S_RWD_WPBR : CXL_M2S_RWD_W256;
                endcase
            else
                case (CLS)
                    0: msg_w = (PBR != 0) ? CXL_D2H_REQ_WPBR : CXL_D2H_REQ_W256;
                    1: msg_w = (PBR != 0) ? CXL_D2H_RSP_WPBR : CXL_D2H_RSP_W256;
                    2: msg_w = (PBR != 0) ? CXL_D2H_DH_WPBR : CXL_D2H_DH_W256;
                    3: msg_w = (PBR != 0) ? CXL_S2M_BISNP_WPBR : CXL_S2M_BISNP_W256;
                    4: msg_w = (PBR != 0) ? CXL_S2M_NDR_WPBR : CXL_S2M_NDR_W256;
                    default: msg_w = (PBR != 0) ? CXL_S2M_DRS_WPBR : CXL_S2M_DRS_W256;
                endcase
        end
    endfunction

    function automatic [127:0] w2c(input [123:0] w);
        begin
            w2c = 128'd0;
            if (DOWN == 1)
                case (CLS)
                    0: w2c = (PBR != 0) ? cxl_h2d_req_from_wpbr(w[CXL_H2D_REQ_WPBR-1:0])
                                        : cxl_h2d_req_from_w256(w[CXL_H2D_REQ_W256-1:0]);
                    1: w2c = (PBR != 0) ? cxl_h2d_rsp_from_wpbr(w[CXL_H2D_RSP_WPBR-1:0])
                                        : cxl_h2d_rsp_from_w256(w[CXL_H2D_RSP_W256-1:0]);
                    2: w2c = (PBR != 0) ? cxl_h2d_dh_from_wpbr(w[CXL_H2D_DH_WPBR-1:0])
                                        : cxl_h2d_dh_from_w256(w[CXL_H2D_DH_W256-1:0]);
                    3: w2c = (PBR != 0) ? cxl_m2s_req_from_wpbr(w[CXL_M2S_REQ_WPBR-1:0])
                                        : cxl_m2s_req_from_w256(w[CXL_M2S_REQ_W256-1:0]);
                    4: w2c = (PBR != 0) ? cxl_m2s_birsp_from_wpbr(w[CXL_M2S_BIRSP_WPBR-1:0])
                                        : cxl_m2s_birsp_from_w256(w[CXL_M2S_BIRSP_W256-1:0]);
                    default: w2c = (PBR != 0) ? cxl_m2s_rwd_from_wpbr(w[CXL_M2S_RWD_WPBR-1:0])
                                              : cxl_m2s_rwd_from_w256(w[CXL_M2S_RWD_W256-1:0]);
                endcase
            else
                case (CLS)
                    0: w2c = (PBR != 0) ? cxl_d2h_req_from_wpbr(w[CXL_D2H_REQ_WPBR-1:0])
                                        : cxl_d2h_req_from_w256(w[CXL_D2H_REQ_W256-1:0]);
                    1: w2c = (PBR != 0) ? cxl_d2h_rsp_from_wpbr(w[CXL_D2H_RSP_WPBR-1:0])
                                        : cxl_d2h_rsp_from_w256(w[CXL_D2H_RSP_W256-1:0]);
                    2: w2c = (PBR != 0) ? cxl_d2h_dh_from_wpbr(w[CXL_D2H_DH_WPBR-1:0])
                                        : cxl_d2h_dh_from_w256(w[CXL_D2H_DH_W256-1:0]);
                    3: w2c = (PBR != 0) ? cxl_s2m_bisnp_from_wpbr(w[CXL_S2M_BISNP_WPBR-1:0])
                                        : cxl_s2m_bisnp_from_w256(w[CXL_S2M_BISNP_W256-1:0]);
                    4: w2c = (PBR != 0) ? cxl_s2m_ndr_from_wpbr(w[CXL_S2M_NDR_WPBR-1:0])
                                        : cxl_s2m_ndr_from_w256(w[CXL_S2M_NDR_W256-1:0]);
                    default: w2c = (PBR != 0) ? cxl_s2m_drs_from_wpbr(w[CXL_S2M_DRS_WPBR-1:0])
                                              : cxl_s2m_drs_from_w256(w[CXL_S2M_DRS_W256-1:0]);
                endcase
        end
    endfunction

    function automatic [123:0] c2w(input [127:0] c);
        begin
            c2w = 124'd0;
            if (DOWN == 1)
                case (CLS)
                    0: if (PBR != 0) c2w[CXL_H2D_REQ_WPBR-1:0] = cxl_h2d_req_to_wpbr(c);
                       else          c2w[CXL_H2D_REQ_W256-1:0] = cxl_h2d_req_to_w256(c);
                    1: if (PBR != 0) c2w[CXL_H2D_RSP_WPBR-1:0] = cxl_h2d_rsp_to_wpbr(c);
                       else          c2w[CXL_H2D_RSP_W256-1:0] = cxl_h2d_rsp_to_w256(c);
                    2: if (PBR != 0) c2w[CXL_H2D_DH_WPBR-1:0] = cxl_h2d_dh_to_wpbr(c);
                       else          c2w[CXL_H2D_DH_W256-1:0] = cxl_h2d_dh_to_w256(c);
                    3: if (PBR != 0) c2w[CXL_M2S_REQ_WPBR-1:0] = cxl_m2s_req_to_wpbr(c);
                       else          c2w[CXL_M2S_REQ_W256-1:0] = cxl_m2s_req_to_w256(c);
                    4: if (PBR != 0) c2w[CXL_M2S_BIRSP_WPBR-1:0] = cxl_m2s_birsp_to_wpbr(c);
                       else          c2w[CXL_M2S_BIRSP_W256-1:0] = cxl_m2s_birsp_to_w256(c);
                    default: if (PBR != 0) c2w[CXL_M2S_RWD_WPBR-1:0] = cxl_m2s_rwd_to_wpbr(c);
                             else          c2w[CXL_M2S_RWD_W256-1:0] = cxl_m2s_rwd_to_w256(c);
                endcase
            else
                case (CLS)
                    0: if (PBR != 0) c2w[CXL_D2H_REQ_WPBR-1:0] = cxl_d2h_req_to_wpbr(c);
                       else          c2w[CXL_D2H_REQ_W256-1:0] = cxl_d2h_req_to_w256(c);
                    1: if (PBR != 0) c2w[CXL_D2H_RSP_WPBR-1:0] = cxl_d2h_rsp_to_wpbr(c);
                       else          c2w[CXL_D2H_RSP_W256-1:0] = cxl_d2h_rsp_to_w256(c);
                    2: if (PBR != 0) c2w[CXL_D2H_DH_WPBR-1:0] = cxl_d2h_dh_to_wpbr(c);
                       else          c2w[CXL_D2H_DH_W256-1:0] = cxl_d2h_dh_to_w256(c);
                    3: if (PBR != 0) c2w[CXL_S2M_BISNP_WPBR-1:0] = cxl_s2m_bisnp_to_wpbr(c);
                       else          c2w[CXL_S2M_BISNP_W256-1:0] = cxl_s2m_bisnp_to_w256(c);
                    4: if (PBR != 0) c2w[CXL_S2M_NDR_WPBR-1:0] = cxl_s2m_ndr_to_wpbr(c);
                       else          c2w[CXL_S2M_NDR_W256-1:0] = cxl_s2m_ndr_to_w256(c);
                    default: if (PBR != 0) c2w[CXL_S2M_DRS_WPBR-1:0] = cxl_s2m_drs_to_wpbr(c);
                             else          c2w[CXL_S2M_DRS_W256-1:0] = cxl_s2m_drs_to_w256(c);
                endcase
        end
    endfunction

    localparam integer MW = msg_w(0);
    localparam [123:0] WMASK = (124'd1 << MW) - 124'd1;
    // Valid + every field bit of the layout; the rest of the width is RSVD.
    localparam [123:0] FMASK = c2w(w2c({124{1'b1}}));

    genvar i;
    generate
        for (i = 0; i < N; i = i + 1) begin : g_n
            wire [123:0] w = wire_i[i*124 +: 124];
            wire [127:0] c = w2c(w & WMASK);
            assign canon[i*128 +: 128] = c;
            assign valid[i]    = w[0];
            assign rsvd_err[i] = |(w & WMASK & ~FMASK);
            if (DOWN == 1 && CLS == 5) begin : g_trp
                assign trl[i] = c[CXL_M2S_RWD_TRP_LSB];
            end else if (DOWN == 0 && CLS == 2) begin : g_bep
                assign trl[i] = c[CXL_D2H_DH_BEP_LSB];
            end else if (DOWN == 0 && CLS == 5) begin : g_trp
                assign trl[i] = c[CXL_S2M_DRS_TRP_LSB];
            end else begin : g_none
                assign trl[i] = 1'b0;
            end
        end
    endgenerate
endmodule
`default_nettype wire
