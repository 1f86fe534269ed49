`default_nettype none
// HDM decoder bank (CXL r3.x 8.2.4.20): HPA -> (hit, target) over NDEC committed decoders.
// Base/size are in 256 MB units (HPA[51:28]). Interleave way: power-of-two ways take
// HPA_off[eIG+8 +: eIW]; 3/6/12 ways take ((c >> k) mod 3) << k | c[k-1:0] with
// c = HPA_off >> (eIG+8), k = eIW-8, HPA_off = HPA - base (models/switch/README.md
// "Interleave"). The lowest-numbered decoder that hits wins. Combinational.
//
// Built for logic depth (rtl/README-timing.md): no adder or subtractor in series.
// - Range: base <= HPA[51:28] is a (less, equal) prefix tree; HPA[51:28] < base + size is one
//   carry-save step (base + size + ~{0, HPA[51:28]}, three operands into two) and a prefix tree
//   for its carry into bit 25, which is set exactly when HPA[51:28] < base + size (base + size
//   may carry into bit 24).
// - Way: base is a multiple of 2^28, so HPA_off[27:0] = HPA[27:0] and every way bit below the
//   mod-3 part is an HPA bit (8 + eIG + 3 < 28). With s = eIG + k (0..10), the part taken mod 3
//   is c >> k = (HPA >> (8+s)) - base * 2^(20-s) when the decoder hits (no borrow then), and as
//   2^n mod 3 is 1 for even n and 2 (= -1) for odd n:
//     (c >> k) mod 3 = w * (N_s + H - base) mod 3,  w = 1 for s even, -1 for s odd,
//   with H = HPA[51:20] mod 3 (one for all decoders) and N_s = (HPA[19:8] with its s low bits
//   cleared) mod 3 (one per decoder: HPA[19:8+s] mod 3 is w * N_s). Residues are one-hot (bit v:
//   the value is v mod 3) and summed in trees of base-4 digits (4^i = 1 mod 3).
// - Configuration terms: base mod 3 (dec_b3) and s as a mask (dec_s) are inputs that
//   cxl_switch_cfg registers with the decoder they belong to (the caller keeps them consistent
//   with dec_base, dec_eig and dec_eiw), so no configuration arithmetic lies on the path from a
//   configuration register to the target.
// - Target: three 16:1 target reads per decoder (each a tree of 2:1 selects on its index bits),
//   read q at the way whose mod-3 value is w * (q - base): w and base act on the read index, which
//   the configuration forms before the HPA's bits arrive. Candidate j (read N_s + j) is picked by
//   N_s, then H picks candidate H, so no residue sum lies in series with the target.
// - Decoders: a binary tree of 2:1 selects keeps the lowest decoder that hits.
// Tree nets are (* keep *): ABC otherwise folds a prefix or select tree back into a chain where
// that saves area.
module cxl_hdm_decode #(
    parameter integer NDEC = 4,  // decoders, 1..8
    parameter integer MAXW = 16, // targets per decoder, 1..16
    parameter integer TW   = 12  // bits per target entry, 12..16 (a user may carry flags above
                                 // the 12-bit target; the entry is selected whole)
) (
    input  wire [51:0]           hpa,
    input  wire [NDEC-1:0]       dec_valid,
    input  wire [NDEC*24-1:0]    dec_base,
    input  wire [NDEC*24-1:0]    dec_size,
    input  wire [NDEC*4-1:0]     dec_eiw,
    input  wire [NDEC*3-1:0]     dec_eig,
    // dec_base mod 3 of each decoder, one-hot: bit v set when the base is v mod 3
    input  wire [NDEC*3-1:0]     dec_b3,
    // s = eIG + eIW[1:0] of each decoder (0..10) as a mask: bit i set when i >= s
    input  wire [NDEC*11-1:0]    dec_s,
    input  wire [NDEC*MAXW*TW-1:0] dec_tgt,
    output wire                  hit,
    output wire [TW-1:0]         target
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (NDEC < 1 || NDEC > 8) begin : g_bad_ndec
            cxl_hdm_decode_parameter_error_NDEC_must_be_1_to_8 u_stop ();
        end
        if (MAXW < 1 || MAXW > 16) begin : g_bad_maxw
            cxl_hdm_decode_parameter_error_MAXW_must_be_1_to_16 u_stop ();
        end
        if (TW < 12 || TW > 16) begin : g_bad_tw
            cxl_hdm_decode_parameter_error_TW_must_be_12_to_16 u_stop ();
        end
    endgenerate

    // one-hot residues mod 3: bit v set when the value is v mod 3
    // (a + b) mod 3: bit v is set when a = u and b = v - u for some u
    function automatic [2:0] r3add(input [2:0] a, input [2:0] b);
        r3add = {(a[0] & b[2]) | (a[1] & b[1]) | (a[2] & b[0]),
                 (a[0] & b[1]) | (a[1] & b[0]) | (a[2] & b[2]),
                 (a[0] & b[0]) | (a[1] & b[2]) | (a[2] & b[1])};
    endfunction

    // ---------------------------------------------------------------- residue trees
    // Tree t sums the residues of the 2-bit digits of rt_in[t] (4^i = 1 mod 3, so a number is the
    // sum of its base-4 digits mod 3): heap node n (1..31) = node 2n + node 2n+1, leaves 32..63
    // the digits. Trees: 0 H = HPA[51:20] (16 digits); 1 + d N_s of decoder d (6 digits: HPA[19:8]
    // without its s low bits, masked by the decoder's dec_s). A node whose right subtree holds
    // only zero digits passes its left child through (a sum with a constant 0 would cost select
    // levels).
    localparam integer NT = 1 + NDEC;
    // number of digits of tree t
    function automatic integer ndig(input integer t);
        ndig = (t == 0) ? 16 : 6;
    endfunction
    // first leaf (digit) under heap node n
    function automatic integer first(input integer n);
        integer f;
        begin
            f = n;
            while (f < 32) f = f * 2;
            first = f - 32;
        end
    endfunction
    wire [NT*64-1:0] rt_in;
    wire [NT*3-1:0]  rt_out;
    assign rt_in[63:0] = {32'd0, hpa[51:20]};
    genvar gt, gn, gd, gv, gc;
    generate
        for (gd = 0; gd < NDEC; gd = gd + 1) begin : g_lin
            // bit i of HPA[19:8] is kept when i >= s: dec_s is that mask (bits 0..10; s <= 10)
            wire [11:0] keep_lo = {1'b1, dec_s[gd*11 +: 11]};
            assign rt_in[(1 + gd)*64 +: 64] = 64'(hpa[19:8] & keep_lo);
        end
        for (gt = 0; gt < NT; gt = gt + 1) begin : g_rt
            (* keep *) wire [64*3-1:3] nd;   // heap node n at [3n +: 3]
            for (gn = 0; gn < 32; gn = gn + 1) begin : g_leaf
                assign nd[(32 + gn)*3 +: 3] = {rt_in[gt*64 + 2*gn + 1] & ~rt_in[gt*64 + 2*gn],
                                               rt_in[gt*64 + 2*gn] & ~rt_in[gt*64 + 2*gn + 1],
                                               ~(rt_in[gt*64 + 2*gn + 1] ^ rt_in[gt*64 + 2*gn])};
            end
            for (gn = 1; gn < 32; gn = gn + 1) begin : g_node
                if (first(2*gn + 1) >= ndig(gt)) begin : g_pass
                    assign nd[gn*3 +: 3] = nd[2*gn*3 +: 3];
                end else begin : g_add
                    assign nd[gn*3 +: 3] = r3add(nd[2*gn*3 +: 3], nd[(2*gn + 1)*3 +: 3]);
                end
            end
            assign rt_out[gt*3 +: 3] = nd[3 +: 3];
            wire unused = &{1'b0, nd};   // nodes over zero digits only
        end
    endgenerate
    wire [2:0] res_h = rt_out[2:0];
    wire unused_hpa = &{1'b0, hpa[7:0]};   // below the 256 B granularity

    // ---------------------------------------------------------------- prefix trees of the range
    // Tree 2d: HPA[51:28] < base (a (less, equal) tree); tree 2d+1: the carry into bit 25 of
    // base + size + ~{0, HPA[51:28]} (a (generate, propagate) tree over the carry-save form), which
    // is base + size - HPA[51:28] - 1 + 2^25, so bit 25 is set exactly when HPA[51:28] < base +
    // size. Both trees combine (g, p) pairs the same way: g = g_hi | p_hi & g_lo, p = p_hi & p_lo;
    // bits 25..31 are padding (g 0, p 1).
    wire [23:0] hu = hpa[51:28];
    wire [2*NDEC-1:0] pt_out;
    generate
        for (gd = 0; gd < NDEC; gd = gd + 1) begin : g_rng
            wire [23:0] b = dec_base[gd*24 +: 24];
            wire [23:0] z = dec_size[gd*24 +: 24];
            // carry-save form of base + size + ~{0, hu}: bit 24 adds 0 + 0 + 1
            wire [24:0] cs_s = {1'b1, b ^ z ^ ~hu};
            wire [24:0] cs_c = {(b & z) | (b & ~hu) | (z & ~hu), 1'b0};  // carries, shifted up
            // per bit: generate at [0 +: 32] for tree 2d, [32 +: 32] for tree 2d+1; propagate alike
            wire [63:0] lg = {7'd0, cs_s & cs_c, 8'd0, ~hu & b};
            wire [63:0] lp = {7'h7f, cs_s | cs_c, 8'hff, ~(hu ^ b)};
            for (gt = 0; gt < 2; gt = gt + 1) begin : g_pt
                (* keep *) wire [63:1] g;   // heap node n: bits under it generate (less)
                (* keep *) wire [63:1] p;   // heap node n: bits under it propagate (equal)
                for (gn = 0; gn < 32; gn = gn + 1) begin : g_leaf
                    assign g[32 + gn] = lg[gt*32 + gn];
                    assign p[32 + gn] = lp[gt*32 + gn];
                end
                // node n: children 2n (the lower bits: leaf 32 + i is bit i) and 2n + 1 (higher)
                for (gn = 1; gn < 32; gn = gn + 1) begin : g_node
                    assign g[gn] = g[2*gn + 1] | (p[2*gn + 1] & g[2*gn]);
                    assign p[gn] = p[2*gn + 1] & p[2*gn];
                end
                assign pt_out[2*gd + gt] = g[1];
                wire unused = &{1'b0, p[1]};
            end
        end
    endgenerate

    // ---------------------------------------------------------------- per decoder
    // inr: the decoder hits; xt: its target at the HPA's way
    wire [NDEC-1:0]    inr;
    wire [NDEC*TW-1:0] xt;
    generate
        for (gd = 0; gd < NDEC; gd = gd + 1) begin : g_dec
            wire [3:0] eiw = dec_eiw[gd*4 +: 4];
            wire [2:0] eig = dec_eig[gd*3 +: 3];
            wire [1:0] k   = eiw[1:0];
            assign inr[gd] = dec_valid[gd] & ~pt_out[2*gd] & pt_out[2*gd + 1];

            // the way's bits below the mod-3 part: HPA_off[8+eIG +: 4] masked to the way's width
            (* keep *) wire [3:0] lo   = 4'(hpa[18:8] >> eig);
            wire [2:0] wbit = eiw[3] ? {1'b0, k} : ((eiw[2:0] > 3'd4) ? 3'd4 : eiw[2:0]);
            (* keep *) wire [3:0] pos0 = lo & 4'((5'd1 << wbit) - 5'd1);
            // the decoder's 16 targets; an index past the last decoder's reads 0
            wire [16*TW-1:0] tv;
            for (gv = 0; gv < 16; gv = gv + 1) begin : g_tv
                if (gd*MAXW + gv < NDEC*MAXW) begin : g_in
                    assign tv[gv*TW +: TW] = dec_tgt[(gd*MAXW + gv)*TW +: TW];
                end else begin : g_out
                    assign tv[gv*TW +: TW] = {TW{1'b0}};
                end
            end
            // read q (q = 0, 1, 2) is at the way whose mod-3 value is w * (q - base) (3/6/12 ways:
            // way bits k, k+1; power-of-two ways: no mod-3 part, every read at pos0). The mod-3
            // values are configuration only: w from the parity of s, base mod 3 from dec_b3.
            wire       s_odd = eig[0] ^ k[0];
            wire [2:0] rb    = dec_b3[gd*3 +: 3];
            // (q - base) mod 3 for q = 0, 1, 2 as {is 2, is 1}; then times w (odd s swaps 1 and 2)
            wire [1:0] qb0 = {rb[1], rb[2]};
            wire [1:0] qb1 = {rb[2], rb[0]};
            wire [1:0] qb2 = {rb[0], rb[1]};
            wire [3*2-1:0] mq;   // [q*2 +: 2]: the mod-3 value of read q, binary
            assign mq[0 +: 2] = s_odd ? {qb0[0], qb0[1]} : qb0;
            assign mq[2 +: 2] = s_odd ? {qb1[0], qb1[1]} : qb1;
            assign mq[4 +: 2] = s_odd ? {qb2[0], qb2[1]} : qb2;
            (* keep *) wire [3*4-1:0]  tix;
            for (gc = 0; gc < 3; gc = gc + 1) begin : g_ix
                assign tix[gc*4 +: 4] = pos0 | (eiw[3] ? 4'({2'd0, mq[gc*2 +: 2]} << k) : 4'd0);
            end
            (* keep *) wire [3*TW-1:0] tr;
            for (gc = 0; gc < 3; gc = gc + 1) begin : g_rd
                wire [3:0] ix = tix[gc*4 +: 4];
                (* keep *) wire [8*TW-1:0] m1;
                (* keep *) wire [4*TW-1:0] m2;
                (* keep *) wire [2*TW-1:0] m3;
                for (gv = 0; gv < 8; gv = gv + 1) begin : g_m1
                    assign m1[gv*TW +: TW] = ix[0] ? tv[(2*gv + 1)*TW +: TW] : tv[2*gv*TW +: TW];
                end
                for (gv = 0; gv < 4; gv = gv + 1) begin : g_m2
                    assign m2[gv*TW +: TW] = ix[1] ? m1[(2*gv + 1)*TW +: TW] : m1[2*gv*TW +: TW];
                end
                for (gv = 0; gv < 2; gv = gv + 1) begin : g_m3
                    assign m3[gv*TW +: TW] = ix[2] ? m2[(2*gv + 1)*TW +: TW] : m2[2*gv*TW +: TW];
                end
                assign tr[gc*TW +: TW] = ix[3] ? m3[TW +: TW] : m3[0 +: TW];
            end
            wire [TW-1:0] t0 = tr[0 +: TW];
            wire [TW-1:0] t1 = tr[TW +: TW];
            wire [TW-1:0] t2 = tr[2*TW +: TW];

            // the way's mod-3 value is w * (N_s + H - base): candidate j (for H = j) is read
            // N_s + j, picked by N_s; H picks candidate H
            wire [2:0] ns = rt_out[(1 + gd)*3 +: 3];
            (* keep *) wire [TW-1:0] c0 = ns[0] ? t0 : (ns[1] ? t1 : t2);
            (* keep *) wire [TW-1:0] c1 = ns[0] ? t1 : (ns[1] ? t2 : t0);
            (* keep *) wire [TW-1:0] c2 = ns[0] ? t2 : (ns[1] ? t0 : t1);
            assign xt[gd*TW +: TW] = res_h[0] ? c0 : (res_h[1] ? c1 : c2);
            wire unused = &{1'b0, ns[2]};   // one-hot: bit 2 is implied
        end
    endgenerate
    wire unused_h = &{1'b0, res_h[2]};

    // ---------------------------------------------------------------- lowest hitting decoder
    // leaves NP..2NP-1 are the decoders in order; node n keeps child 2n (the lower decoders) when
    // it hit
    localparam integer NP = (NDEC <= 1) ? 1 : (NDEC <= 2) ? 2 : (NDEC <= 4) ? 4 : 8;
    generate
        if (NDEC == 1) begin : g_one
            assign hit    = inr[0];
            assign target = inr[0] ? xt[TW-1:0] : {TW{1'b0}};
        end else begin : g_pick
            (* keep *) wire [2*NP-1:1]     hh;   // a decoder under node n hit
            (* keep *) wire [2*NP*TW-1:TW] tt;   // target of the lowest hit under node n
            for (gd = 0; gd < NP; gd = gd + 1) begin : g_leaf
                if (gd < NDEC) begin : g_d
                    assign hh[NP + gd] = inr[gd];
                    assign tt[(NP + gd)*TW +: TW] = xt[gd*TW +: TW];
                end else begin : g_pad
                    assign hh[NP + gd] = 1'b0;
                    assign tt[(NP + gd)*TW +: TW] = {TW{1'b0}};
                end
            end
            for (gd = 1; gd < NP; gd = gd + 1) begin : g_node
                assign hh[gd] = hh[2*gd] | hh[2*gd + 1];
                assign tt[gd*TW +: TW] = hh[2*gd] ? tt[2*gd*TW +: TW] : tt[(2*gd + 1)*TW +: TW];
            end
            assign hit    = hh[1];
            assign target = hh[1] ? tt[TW +: TW] : {TW{1'b0}};
        end
    endgenerate
endmodule
`default_nettype wire
