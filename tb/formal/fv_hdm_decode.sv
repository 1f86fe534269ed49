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
    // the configuration terms cxl_switch_cfg registers with each decoder: base mod 3 (a bit-serial
    // scan from the top bit, r <- (2r + bit) mod 3) and eIG + eIW[1:0], both one-hot
    reg [NDEC*3-1:0]  dec_b3;
    reg [NDEC*11-1:0] dec_s;
    reg [1:0]         b3r;
    integer           t, i;
    always @* begin
        for (t = 0; t < NDEC; t = t + 1) begin
            b3r = 2'd0;
            for (i = 23; i >= 0; i = i - 1)
                b3r = (b3r == 2'd0) ? {1'b0, dec_base[t*24 + i]} :
                      (b3r == 2'd1) ? (dec_base[t*24 + i] ? 2'd0 : 2'd2) :
                                      (dec_base[t*24 + i] ? 2'd2 : 2'd1);
            dec_b3[t*3 +: 3] = 3'd1 << b3r;
            dec_s[t*11 +: 11] = 11'd1 << ({1'b0, dec_eig[t*3 +: 3]} + {2'd0, dec_eiw[t*4 +: 2]});
        end
    end
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
