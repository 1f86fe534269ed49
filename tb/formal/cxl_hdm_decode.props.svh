// Properties of cxl_hdm_decode, spliced before its endmodule by tools/formal.py. Names start with
// fv_. Reference, written independently of the RTL's loop: the lowest-numbered valid decoder whose
// [base, base + size) holds HPA[51:28] hits; its way is chunk mod ways for 2^eIW ways and
// ((chunk >> k) mod 3) * 2^k + chunk mod 2^k for 3 * 2^k ways (eIW = 8 + k), chunk =
// (HPA - base) >> (8 + eIG) (models/switch/README.md); no hit: hit low (the switch then answers
// with its decode-miss event, proven in switch_route).
//
// The remainder by 3 is the reference's own, fv_mod3: a bit-serial scan from the top bit,
// r <- (2r + bit) mod 3, so after the last bit r = x mod 3 (Horner's rule, by induction over the
// bits, given the step). The step function fv_m3step is asserted on all six (r, bit) pairs, and
// fv_mod3(x) == x % 3 for x = 0..15 is checked too. It shares nothing with the RTL, which never
// forms the chunk index: it sums one-hot residues of the HPA's base-4 digits and combines them
// with the decoder's base mod 3, a configuration input (dec_b3) that fv_hdm_decode.sv forms by the
// same scan over the base, so the proof is an arithmetic equivalence, not a comparison of one
// table with itself.
//
// Bound: for 3/6/12 ways the chunk index is limited to FV_HDM_CHUNK_BITS bits (default 24: HPA
// offsets below 2^24 x granularity, 4 GB at 256 B) and HPA[51:28] to FV_HDM_HI_BITS bits
// (default 4: HPAs below 4 GB), because the reference and the RTL reach the remainder by 3 by
// different routes and a SAT solver's work to show two remainder-by-3 circuits equal grows
// steeply with the free bits. tools/formal.py runs this property on Yosys's built-in SAT solver
// (engine: sat): 16 / 3 bits in 74 s and 24 / 4 in 3.3 min on the loaded 2-core machine, where z3
// through smtbmc needed 4.5 min for 16 / 3 and had not finished 24 / 4 in 15 min; the whole range
// (44 / 24) had not finished in 20 min. Ranges, decoder priority and 1/2/4/8/16 ways are proven
// for every HPA. The assumptions compare one bit wider than the value, so 44 / 24 is the whole
// range and not an empty one.
`ifndef FV_HDM_CHUNK_BITS
`define FV_HDM_CHUNK_BITS 24
`endif
`ifndef FV_HDM_HI_BITS
`define FV_HDM_HI_BITS 4
`endif
    localparam integer FV_CW = 44;   // chunk index width: 52 - 8
    // one step of the scan: (2r + b) mod 3 for r = 0..2
    function automatic [1:0] fv_m3step(input [1:0] r, input b);
        fv_m3step = (r == 2'd0) ? {1'b0, b} : (r == 2'd1) ? (b ? 2'd0 : 2'd2) : (b ? 2'd2 : 2'd1);
    endfunction
    function automatic [1:0] fv_mod3(input [FV_CW-1:0] x);
        integer i;
        begin
            fv_mod3 = 2'd0;
            for (i = FV_CW - 1; i >= 0; i = i - 1) fv_mod3 = fv_m3step(fv_mod3, x[i]);
        end
    endfunction
    integer          fv_d, fv_v, fv_e, fv_w;
    reg              fv_hit;
    reg [11:0]       fv_tgt;
    reg [51:0]       fv_off;
    reg [FV_CW-1:0]  fv_chunk, fv_way;
    reg [23:0]       fv_base, fv_size;
    reg [3:0]        fv_eiw;
    reg [1:0]        fv_k;
    always @* begin
        for (fv_v = 0; fv_v < 16; fv_v = fv_v + 1)
            assert (fv_mod3(FV_CW'(fv_v)) == 2'(fv_v % 3));
        for (fv_v = 0; fv_v < 6; fv_v = fv_v + 1)
            assert (fv_m3step(2'(fv_v / 2), 1'(fv_v % 2)) == 2'((2 * (fv_v / 2) + fv_v % 2) % 3));
        fv_hit = 1'b0;
        fv_tgt = 12'd0;
        fv_off = 52'd0; fv_chunk = {FV_CW{1'b0}}; fv_way = {FV_CW{1'b0}}; fv_k = 2'd0;
        fv_base = 24'd0; fv_size = 24'd0; fv_eiw = 4'd0;
        for (fv_d = 0; fv_d < NDEC; fv_d = fv_d + 1) begin
            fv_base = dec_base[fv_d*24 +: 24];
            fv_size = dec_size[fv_d*24 +: 24];
            fv_eiw  = dec_eiw[fv_d*4 +: 4];
            if (!fv_hit && dec_valid[fv_d] && {1'b0, hpa[51:28]} >= {1'b0, fv_base} &&
                {1'b0, hpa[51:28]} < {1'b0, fv_base} + {1'b0, fv_size}) begin
                fv_off   = hpa - {fv_base, 28'd0};
                for (fv_e = 0; fv_e < 8; fv_e = fv_e + 1)   // constant shifts: one per eIG
                    if (dec_eig[fv_d*3 +: 3] == 3'(fv_e)) fv_chunk = FV_CW'(fv_off >> (8 + fv_e));
                if (fv_eiw >= 4'd8) begin
                    fv_k   = 2'(fv_eiw - 4'd8);
                    assume ({1'b0, fv_chunk} < (45'd1 << `FV_HDM_CHUNK_BITS));   // 45 bits: 1 << 44 fits
                    assume ({1'b0, hpa[51:28]} < (25'd1 << `FV_HDM_HI_BITS));
                    fv_way = ({{(FV_CW-2){1'b0}}, fv_mod3(fv_chunk >> fv_k)} << fv_k) +
                             (fv_chunk & ((44'd1 << fv_k) - 44'd1));
                end else begin
                    fv_way = fv_chunk & ((44'd1 << fv_eiw) - 44'd1);
                end
                fv_hit = 1'b1;
                for (fv_w = 0; fv_w < MAXW; fv_w = fv_w + 1)  // constant reads: one per way
                    if (fv_way == FV_CW'(fv_w)) fv_tgt = dec_tgt[(fv_d * MAXW + fv_w) * 12 +: 12];
            end
        end
        assert (hit == fv_hit);
        if (fv_hit) assert (target == fv_tgt);
    end
