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
    output wire [31:0]   stat_flips                 // flits that were hit
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
    wire          hit = in_valid && ber_en && draw_lt;

    // draw_lt = rnd[31:0] < ber_thresh as a tree of (less, equal) pairs, the higher half first
    // (11 levels; yosys' subtraction-based compare is a carry chain). The nets are (* keep *)
    // because ABC otherwise folds the tree back into a chain where that saves area.
    wire          draw_lt;
    wire [31:0]   lt_l [0:5] /*verilator split_var*/;   // [level][node]: node's bits compare less
    wire [31:0]   lt_e [0:5] /*verilator split_var*/;   // [level][node]: node's bits are equal
    (* keep *) wire [31:0] lt0;
    (* keep *) wire [31:0] eq0;
    assign lt0     = ~rnd[31:0] & ber_thresh;
    assign eq0     = ~(rnd[31:0] ^ ber_thresh);
    assign lt_l[0] = lt0;
    assign lt_e[0] = eq0;
    genvar gt, gz;
    generate
        for (gt = 0; gt < 5; gt = gt + 1) begin : g_lt
            for (gz = 0; gz < 32; gz = gz + 1) begin : g_node
                if (gz % (2 << gt) == 0) begin : g_op
                    (* keep *) wire lk;
                    (* keep *) wire ek;
                    assign lk = lt_l[gt][gz + (1 << gt)] | (lt_e[gt][gz + (1 << gt)] & lt_l[gt][gz]);
                    assign ek = lt_e[gt][gz + (1 << gt)] & lt_e[gt][gz];
                    assign lt_l[gt+1][gz] = lk;
                    assign lt_e[gt+1][gz] = ek;
                end else begin : g_pass
                    assign lt_l[gt+1][gz] = lt_l[gt][gz];
                    assign lt_e[gt+1][gz] = lt_e[gt][gz];
                end
            end
        end
    endgenerate
    assign draw_lt = lt_l[5][0];

    // the flipped bit as a mask: a decode of pos per bit, not an indexed read and write of the
    // flit (which yosys builds as a W:1 mux followed by a demux: 27 levels)
    wire [W-1:0]  flip;
    genvar gb;
    generate
        for (gb = 0; gb < W; gb = gb + 1) begin : g_flip
            assign flip[gb] = hit && (pos == PW'(gb));
        end
    endgenerate

    // hit count: a prefix-carry counter (a ripple +1 is 31 levels at 32 bits)
    stat_counter #(.WIDTH(32), .AW(1)) u_flips (
        .clk(clk), .rst(rst), .en(hit), .add(1'b1), .count(stat_flips)
    );

    always @(posedge clk) begin
        if (rst) begin
            rnd       <= SEED;
            out_valid <= 1'b0;
        end else begin
            rnd       <= x3;
            out_valid <= in_valid;
        end
        out_flit <= in_flit ^ flip;
    end
endmodule
