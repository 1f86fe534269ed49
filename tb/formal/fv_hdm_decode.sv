// Formal environment for rtl/switch/cxl_hdm_decode.v (combinational): any HPA against any set of
// NDEC decoders with legal interleave settings (the ones cxl_switch_cfg accepts: 1/2/4/8/16 and
// 3/6/12 ways, 256 B .. 16 KB granularity). Reference, written independently of the RTL's
// bit-serial mod-3 (digit sum in base 4): the lowest-numbered valid decoder whose [base, base + size) holds HPA[51:28]
// hits; its way is chunk mod ways for power-of-two ways and ((chunk / 2^k) mod 3) * 2^k +
// chunk mod 2^k for 3 * 2^k ways, chunk = (HPA - base) / granularity (models/switch/README.md).
// No hit: hit low (the switch then answers with its decode-miss error, proven in switch_route).
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
    cxl_hdm_decode #(.NDEC(NDEC), .MAXW(MAXW)) dut (
        .hpa(hpa), .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size),
        .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_tgt(dec_tgt), .hit(hit), .target(target));

    integer d;
    always @* begin
        for (d = 0; d < NDEC; d = d + 1) begin
            assume (dec_eiw[d*4 +: 4] <= 4'd4 || (dec_eiw[d*4 +: 4] >= 4'd8 && dec_eiw[d*4 +: 4] <= 4'd10));
            assume (dec_eig[d*3 +: 3] <= 3'd6);
        end
    end

    // x mod 3 from the base-4 digits (4 = 1 mod 3, so x = sum of its digits mod 3): a different
    // computation from the RTL's MSB-first remainder chain
    function automatic [1:0] ref_mod3(input [43:0] x);
        integer i;
        reg [6:0] s;
        begin
            s = 7'd0;
            for (i = 0; i < 22; i = i + 1) s = s + {5'd0, x[2*i +: 2]};
            ref_mod3 = 2'(s % 7'd3);
        end
    endfunction

    reg         ref_hit;
    reg [11:0]  ref_tgt;
    reg [51:0]  off;
    reg [43:0]  chunk, way;
    reg [23:0]  base, size;
    reg [3:0]   eiw;
    reg [1:0]   k;
    always @* begin
        ref_hit = 1'b0;
        ref_tgt = 12'd0;
        off = 52'd0; chunk = 44'd0; way = 44'd0; k = 2'd0;
        base = 24'd0; size = 24'd0; eiw = 4'd0;
        for (d = NDEC - 1; d >= 0; d = d - 1) begin
            base = dec_base[d*24 +: 24];
            size = dec_size[d*24 +: 24];
            eiw  = dec_eiw[d*4 +: 4];
            if (dec_valid[d] && {1'b0, hpa[51:28]} >= {1'b0, base} &&
                {1'b0, hpa[51:28]} < {1'b0, base} + {1'b0, size}) begin
                off   = hpa - {base, 28'd0};
                chunk = 44'(off >> (8 + dec_eig[d*3 +: 3]));      // granularity 2^(8 + eIG) bytes
                if (eiw >= 4'd8) begin                           // 3 * 2^k ways
                    k   = 2'(eiw - 4'd8);
                    way = {42'd0, ref_mod3(chunk >> k)} * (44'd1 << k) + (chunk & ((44'd1 << k) - 44'd1));
                end else begin                                   // 2^eIW ways
                    way = chunk & ((44'd1 << eiw) - 44'd1);
                end
                ref_hit = 1'b1;
                ref_tgt = dec_tgt[(d * MAXW + 32'(way[4:0])) * 12 +: 12];
            end
        end
        assert (hit == ref_hit);
        if (ref_hit) assert (target == ref_tgt);
    end
endmodule
