// Properties of cxl_hdm_decode, spliced before its endmodule by tools/formal.py. Names start with
// fv_. Reference, written independently of the RTL's loop: the lowest-numbered valid decoder whose
// [base, base + size) holds HPA[51:28] hits; its way is chunk mod ways for 2^eIW ways and
// ((chunk >> k) mod 3) * 2^k + chunk mod 2^k for 3 * 2^k ways (eIW = 8 + k), chunk =
// (HPA - base) >> (8 + eIG) (models/switch/README.md); no hit: hit low (the switch then answers
// with its decode-miss event, proven in switch_route).
//
// The remainder by 3 uses the module's own mod3 function: no SAT solver shows a 44-bit remainder
// tree equal to a divider in reasonable time. mod3 is proven separately: it maps every 2-bit digit
// to its residue with one table D and sums the residues pairwise with one function m3 (padding
// with 0); since 4^i = 1 (mod 3), the sum of the digits mod 3 is x mod 3 when D(d) = d mod 3 and
// m3(a, b) = (a + b) mod 3 on residues. m3 is asserted on all nine residue pairs, and then
// mod3(x) == x % 3 for x = 0..3 pins D (a one-digit x reaches the output through m3(v, 0) = v),
// so by induction over the tree mod3(x) == x mod 3 for every width (x = 0..15 is checked too).
//
// Bound: for 3/6/12 ways the chunk index is limited to FV_HDM_CHUNK_BITS bits (default 24: HPA
// offsets below 4 GB x granularity / 256 B). z3 needs ~4x longer per 8 more bits (16: 1 min,
// 24: 3 min on the shared machine); the full 44 bits is `-D FV_HDM_CHUNK_BITS=44` (hours).
// Ranges, decoder priority and 1/2/4/8/16 ways are proven for every HPA.
`ifndef FV_HDM_CHUNK_BITS
`define FV_HDM_CHUNK_BITS 24
`endif
    integer          fv_d, fv_v;
    reg              fv_hit;
    reg [11:0]       fv_tgt;
    reg [51:0]       fv_off;
    reg [CW-1:0]     fv_chunk, fv_way;
    reg [23:0]       fv_base, fv_size;
    reg [3:0]        fv_eiw;
    reg [1:0]        fv_k;
    always @* begin
        for (fv_v = 0; fv_v < 16; fv_v = fv_v + 1)
            assert (mod3(CW'(fv_v)) == 2'(fv_v % 3));
        for (fv_v = 0; fv_v < 9; fv_v = fv_v + 1)
            assert (m3(2'(fv_v / 3), 2'(fv_v % 3)) == 2'((fv_v / 3 + fv_v % 3) % 3));
        fv_hit = 1'b0;
        fv_tgt = 12'd0;
        fv_off = 52'd0; fv_chunk = {CW{1'b0}}; fv_way = {CW{1'b0}}; fv_k = 2'd0;
        fv_base = 24'd0; fv_size = 24'd0; fv_eiw = 4'd0;
        for (fv_d = 0; fv_d < NDEC; fv_d = fv_d + 1) begin
            fv_base = dec_base[fv_d*24 +: 24];
            fv_size = dec_size[fv_d*24 +: 24];
            fv_eiw  = dec_eiw[fv_d*4 +: 4];
            if (!fv_hit && dec_valid[fv_d] && {1'b0, hpa[51:28]} >= {1'b0, fv_base} &&
                {1'b0, hpa[51:28]} < {1'b0, fv_base} + {1'b0, fv_size}) begin
                fv_off   = hpa - {fv_base, 28'd0};
                fv_chunk = CW'(fv_off >> (8 + dec_eig[fv_d*3 +: 3]));
                if (fv_eiw >= 4'd8) begin
                    fv_k   = 2'(fv_eiw - 4'd8);
                    assume (fv_chunk < (44'd1 << `FV_HDM_CHUNK_BITS));
                    fv_way = ({{(CW-2){1'b0}}, mod3(fv_chunk >> fv_k)} << fv_k) +
                             (fv_chunk & ((44'd1 << fv_k) - 44'd1));
                end else begin
                    fv_way = fv_chunk & ((44'd1 << fv_eiw) - 44'd1);
                end
                fv_hit = 1'b1;
                fv_tgt = dec_tgt[(fv_d * MAXW + 32'(fv_way[4:0])) * 12 +: 12];
            end
        end
        assert (hit == fv_hit);
        if (fv_hit) assert (target == fv_tgt);
    end
