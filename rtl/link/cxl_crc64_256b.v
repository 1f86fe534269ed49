`default_nettype none
// CRC of a 256B flit (CONVENTIONS.md "Flit wire", ours: the PCIe 6 8 B CRC matrix is not public).
// CRC-64/ECMA-182, poly 42F0E1EBA9EA3693h, init 0, no reflection, no xorout, over bytes 0..241.
// Feeding the MSB-first LFSR from bit 7 of byte 241 down to bit 0 of byte 0 gives
// crc = B(x) * x^64 mod G with B(x) = sum data[n] x^n, so CRC bit j is the parity of the data bits
// n whose column x^(n+64) mod G has coefficient j set. The masks are derived from the polynomial
// at elaboration time by a constant function; no mask table is typed in.
module cxl_crc64_256b #(
    parameter integer DW = 242 * 8  // covered bits: flit bytes 0..241
) (
    input wire  [DW-1:0] data,  // flit bits [DW-1:0], bit n = byte n/8, bit n%8
    output wire [63:0]   crc    // stored LSB-first in flit bytes 242..249
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (DW < 1 || DW > 2048) begin : g_bad_dw
            cxl_crc64_256b_parameter_error_DW_must_be_1_to_2048 u_stop ();
        end
    endgenerate

    localparam [63:0] POLY = 64'h42F0E1EBA9EA3693;  // G(x) without the x^64 term

    // Bit n of the result is coefficient j of x^(n+64) mod G.
    function automatic [DW-1:0] crc_mask(input [5:0] j);
        integer n;
        reg [63:0] col;
        begin
            col = POLY;  // x^64 mod G
            crc_mask = {DW{1'b0}};
            for (n = 0; n < DW; n = n + 1) begin
                crc_mask[n] = col[j];
                col = col[63] ? ((col << 1) ^ POLY) : (col << 1);
            end
        end
    endfunction

    genvar j;
    generate
        for (j = 0; j < 64; j = j + 1) begin : g_bit
            localparam [DW-1:0] MASK = crc_mask(j[5:0]);
            assign crc[j] = ^(data & MASK);
        end
    endgenerate
endmodule
`default_nettype wire
