// The wire between two cxl_link endpoints in the rack-edge top: one register stage (the flit is
// retimed once on its way, as a PHY would), and a bit-error channel for link-layer retry tests.
// Every flit sent while `ber_en` is set is hit by one flipped bit with probability
// ber_thresh / 2^32 (the caller converts a bit error rate into this per-flit probability); the bit
// position is uniform over the flit. Draws come from a 64-bit xorshift generator seeded by SEED,
// so a run reproduces. One flipped bit is always caught by the link CRC (CRC-16 68B, CRC-64 256B):
// the flit is retried, never delivered corrupted.
module sp_flit_wire #(
    parameter integer W    = 528,                  // flit width (528 = 68B flit + CRC, 2048 = 256B)
    parameter [63:0]  SEED = 64'h9E37_79B9_7F4A_7C15 // generator seed (nonzero)
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          in_valid,
    input  wire [W-1:0]  in_flit,
    input  wire          ber_en,
    input  wire [31:0]   ber_thresh,                // per-flit error probability x 2^32
    output reg           out_valid,
    output reg  [W-1:0]  out_flit,
    output reg  [31:0]   stat_flips                 // flits that were hit
);
    localparam integer PW = $clog2(W);
    generate
        if (W < 2 || W > 4096 || SEED == 64'd0) begin : g_bad
            sp_flit_wire_parameter_error_W_must_be_2_to_4096_and_SEED_nonzero u_stop ();
        end
    endgenerate

    reg  [63:0]   rnd;
    wire [63:0]   x1 = rnd ^ (rnd << 13);
    wire [63:0]   x2 = x1 ^ (x1 >> 7);
    wire [63:0]   x3 = x2 ^ (x2 << 17);
    wire [PW-1:0] p  = rnd[32 +: PW];
    /* verilator lint_off WIDTHEXPAND */
    wire [PW-1:0] pos = (p >= W) ? PW'(p - W) : p;  // 2^PW < 2W, so one subtraction is enough
    /* verilator lint_on WIDTHEXPAND */
    wire          hit = in_valid && ber_en && (rnd[31:0] < ber_thresh);

    always @(posedge clk) begin
        if (rst) begin
            rnd        <= SEED;
            out_valid  <= 1'b0;
            stat_flips <= 32'd0;
        end else begin
            rnd        <= x3;
            out_valid  <= in_valid;
            if (hit) stat_flips <= stat_flips + 32'd1;
        end
        out_flit <= in_flit;
        if (hit) out_flit[pos] <= ~in_flit[pos];
    end
endmodule
