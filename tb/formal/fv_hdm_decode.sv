// Formal environment for rtl/switch/cxl_hdm_decode.v (combinational): any HPA against any set of
// NDEC decoders with legal interleave settings (the ones cxl_switch_cfg accepts: 1/2/4/8/16 and
// 3/6/12 ways, 256 B .. 16 KB granularity). The properties are in cxl_hdm_decode.props.svh.
module fv_hdm_decode #(
    parameter integer NDEC = 2,
    parameter integer MAXW = 16
) (
    input wire [51:0]              hpa,
    input wire [NDEC-1:0]          dec_valid,
    input wire [NDEC*24-1:0]       dec_base,
    input wire [NDEC*24-1:0]       dec_size,
    input wire [NDEC*4-1:0]        dec_eiw,
    input wire [NDEC*3-1:0]        dec_eig,
    input wire [NDEC*MAXW*12-1:0]  dec_tgt
);
    wire        hit;
    wire [11:0] target;
    // the configuration terms cxl_switch_cfg registers with each decoder (fv_hdm_cfg_terms.sv)
    wire [NDEC*3-1:0]  dec_b3;
    wire [NDEC*11-1:0] dec_s;
    fv_hdm_cfg_terms #(.NDEC(NDEC)) u_terms (
        .dec_base(dec_base), .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s));
    cxl_hdm_decode #(.NDEC(NDEC), .MAXW(MAXW)) dut (
        .hpa(hpa), .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size),
        .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s), .dec_tgt(dec_tgt),
        .hit(hit), .target(target));

    integer d;
    always @* begin
        for (d = 0; d < NDEC; d = d + 1) begin
            assume (dec_eiw[d*4 +: 4] <= 4'd4 || (dec_eiw[d*4 +: 4] >= 4'd8 && dec_eiw[d*4 +: 4] <= 4'd10));
            assume (dec_eig[d*3 +: 3] <= 3'd6);
        end
    end

endmodule
