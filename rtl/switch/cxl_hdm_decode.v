`default_nettype none
// HDM decoder bank (CXL r3.x 8.2.4.20): HPA -> (hit, target) over NDEC committed decoders.
// Base/size are in 256 MB units (HPA[51:28]). Interleave way: power-of-two ways take
// HPA_off[eIG+8 +: eIW]; 3/6/12 ways take ((c >> k) mod 3) << k | c[k-1:0] with
// c = HPA_off >> (eIG+8), k = eIW-8 (models/switch/README.md "Interleave"). Combinational.
module cxl_hdm_decode #(
    parameter integer NDEC = 4,
    parameter integer MAXW = 16  // targets per decoder
) (
    input  wire [51:0]           hpa,
    input  wire [NDEC-1:0]       dec_valid,
    input  wire [NDEC*24-1:0]    dec_base,
    input  wire [NDEC*24-1:0]    dec_size,
    input  wire [NDEC*4-1:0]     dec_eiw,
    input  wire [NDEC*3-1:0]     dec_eig,
    input  wire [NDEC*MAXW*12-1:0] dec_tgt,
    output reg                   hit,
    output reg  [11:0]           target
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
    endgenerate

    localparam integer CW = 44;  // chunk index width: 52 - 8 (even, <= 64: mod3 below)

    // (a + b) mod 3 of two residues (each 0..2)
    function automatic [1:0] m3(input [1:0] a, input [1:0] b);
        reg [2:0] t;
        begin
            t  = {1'b0, a} + {1'b0, b};
            m3 = (t >= 3'd3) ? 2'(t - 3'd3) : t[1:0];
        end
    endfunction
    // x mod 3 as a tree (no divider, no bit-serial chain): 4^i = 1 (mod 3), so x mod 3 is the sum
    // of its 2-bit digits mod 3; the CW/2 digit residues (padded to 32 with zeros) are summed
    // pairwise in 5 rounds
    function automatic [1:0] mod3(input [CW-1:0] x);
        reg [63:0] r;
        integer b, n;
        begin
            r = 64'd0;
            for (b = 0; b < CW / 2; b = b + 1)       // digit 0..3 -> residue 0..2
                r[2*b +: 2] = {x[2*b+1] & ~x[2*b], x[2*b] & ~x[2*b+1]};
            for (n = 16; n >= 1; n = n / 2)
                for (b = 0; b < n; b = b + 1) r[2*b +: 2] = m3(r[4*b +: 2], r[4*b+2 +: 2]);
            mod3 = r[1:0];
        end
    endfunction

    integer d;
    reg [23:0]   hu;
    reg [24:0]   lim;
    reg [51:0]   off;
    reg [CW-1:0] chunk;
    reg [CW-1:0] hi;
    reg [3:0]    pos;
    reg [1:0]    k;
    reg [3:0]    eiw;
    reg [2:0]    eig;
    reg          inr;

    always @* begin
        hit    = 1'b0;
        target = 12'd0;
        hu     = hpa[51:28];
        lim    = 25'd0;
        off    = 52'd0;
        chunk  = {CW{1'b0}};
        hi     = {CW{1'b0}};
        pos    = 4'd0;
        k      = 2'd0;
        eiw    = 4'd0;
        eig    = 3'd0;
        inr    = 1'b0;
        // highest index first so the lowest matching decoder wins (ranges never overlap anyway)
        for (d = NDEC - 1; d >= 0; d = d - 1) begin
            eiw   = dec_eiw[d*4 +: 4];
            eig   = dec_eig[d*3 +: 3];
            lim   = {1'b0, dec_base[d*24 +: 24]} + {1'b0, dec_size[d*24 +: 24]};
            inr   = dec_valid[d] && (hu >= dec_base[d*24 +: 24]) && ({1'b0, hu} < lim);
            off   = hpa - {dec_base[d*24 +: 24], 28'd0};
            chunk = CW'(off >> (8 + eig));
            if (eiw[3]) begin
                k   = eiw[1:0];
                hi  = chunk >> k;
                pos = ({2'b00, mod3(hi)} << k) | 4'(chunk & ((44'd1 << k) - 44'd1));
            end else begin
                pos = 4'(chunk & ((44'd1 << eiw[2:0]) - 44'd1));
            end
            if (inr) begin
                hit    = 1'b1;
                target = dec_tgt[(d*MAXW + 32'(pos))*12 +: 12];
            end
        end
    end
endmodule
`default_nettype wire
