`default_nettype none
// Formal helper: the configuration terms cxl_switch_cfg registers with each HDM decoder, formed
// here from the decoder's fields for the harnesses that drive cxl_hdm_decode directly
// (fv_hdm_decode, fv_switch_port): base mod 3 (a bit-serial scan from the top bit,
// r <- (2r + bit) mod 3; one-hot, bit v set when the value is v) and s = eIG + eIW[1:0] as a
// mask (bit i set when i >= s).
module fv_hdm_cfg_terms #(
    parameter integer NDEC = 2   // decoders
) (
    input  wire [NDEC*24-1:0] dec_base,
    input  wire [NDEC*4-1:0]  dec_eiw,
    input  wire [NDEC*3-1:0]  dec_eig,
    output reg  [NDEC*3-1:0]  dec_b3,
    output reg  [NDEC*11-1:0] dec_s
);
    reg [1:0] b3r;
    integer   t, i;
    always @* begin
        for (t = 0; t < NDEC; t = t + 1) begin
            b3r = 2'd0;
            for (i = 23; i >= 0; i = i - 1)
                b3r = (b3r == 2'd0) ? {1'b0, dec_base[t*24 + i]} :
                      (b3r == 2'd1) ? (dec_base[t*24 + i] ? 2'd0 : 2'd2) :
                                      (dec_base[t*24 + i] ? 2'd2 : 2'd1);
            dec_b3[t*3 +: 3] = 3'd1 << b3r;
            dec_s[t*11 +: 11] = 11'h7ff << ({1'b0, dec_eig[t*3 +: 3]} + {2'd0, dec_eiw[t*4 +: 2]});
        end
    end
endmodule
`default_nettype wire
