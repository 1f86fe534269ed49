`default_nettype none
// 68B flit CRC-16 (cxl-flits.md 2): CRC[j] = XOR of the flit bits i whose mask DM[j] bit i is set,
// DM[j] bit i = coefficient of x^j in x^(i+16) mod G, G = 1F053h. No seed, no inversion.
// The masks are derived from the polynomial by a constant function (no typed-in table), so the
// logic is a pure XOR tree.
module cxl_crc16_68b #(
    parameter [15:0] POLY = 16'hF053   // G without the x^16 term
) (
    input  wire [511:0] data,          // flit bits [511:0]
    output wire [15:0]  crc            // goes to flit bits [527:512]
);
    // Column i of the mask matrix is x^(i+16) mod G; return row j.
    function automatic [511:0] crc_mask(input [3:0] j);
        reg [15:0] r;
        integer i;
        begin
            r = POLY;                                  // x^16 mod G
            crc_mask = {512{1'b0}};
            for (i = 0; i < 512; i = i + 1) begin
                crc_mask[i] = r[j];
                r = {r[14:0], 1'b0} ^ (r[15] ? POLY : 16'h0000);
            end
        end
    endfunction

    genvar g;
    generate
        for (g = 0; g < 16; g = g + 1) begin : g_bit
            localparam [511:0] MASK = crc_mask(g[3:0]);
            assign crc[g] = ^(data & MASK);
        end
    endgenerate
endmodule
`default_nettype wire
