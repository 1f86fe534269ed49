`default_nettype none
// Faulty flit channel (test-only) between a cxl_link TX and the partner's RX:
//  * random bit errors at a bit error rate: the gap to the next flipped bit is geometric
//    (floor(ln U / ln(1 - BER)), U uniform), counted over every bit that crosses, so errors fall
//    anywhere, several per flit at high BER;
//  * burst errors: with probability burst_p per flit, a run of 2..64 bits from a random position
//    gets a random pattern (first and last bit flipped);
//  * dropped flits: with probability drop_p the flit is taken from the sender and never delivered;
//  * duplicated flits: with probability dup_p the flit is delivered again in the next cycle (the
//    sender is stalled for that cycle), an exact copy of what was delivered;
//  * wire stalls: each cycle the sender is not taken with probability stall_p.
// Probabilities are fixed point: x 2^32 (per flit) or x 2^16 (stall); ber_inv = 1 / BER (0: off).
// Behavioural, for simulation only (real arithmetic in the gap draw).
module soak_chan #(
    parameter integer W = 528   // flit width
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  seed,
    input  wire [31:0]  ber_inv,
    input  wire [31:0]  burst_p,
    input  wire [31:0]  drop_p,
    input  wire [31:0]  dup_p,
    input  wire [15:0]  stall_p,
    input  wire         in_valid,
    output wire         in_ready,
    input  wire [W-1:0] in_flit,
    output wire         out_valid,
    output wire [W-1:0] out_flit,
    output reg  [31:0]  n_flits,      // flits taken from the sender
    output reg  [31:0]  n_err_flits,  // flits delivered with at least one flipped bit
    output reg  [31:0]  n_bits,       // bits flipped (random and burst)
    output reg  [31:0]  n_bursts,
    output reg  [31:0]  n_drops,
    output reg  [31:0]  n_dups
);
    `include "soak_fn.vh"

    reg [63:0]  rg;         // per-cycle draws
    reg [63:0]  rm;         // error-pattern draws
    reg [W-1:0] mask;       // error pattern of the next flit taken
    reg [31:0]  nflip;      // its flipped bits
    reg         burst_m;    // ... and whether it holds a burst
    reg [63:0]  gap;        // correct bits after that flit before the following random error
    reg         drop_nx, dup_nx;
    reg         dup_pend;
    reg [W-1:0] hold;
    reg         stall;

    assign in_ready  = !dup_pend && !stall;
    wire   xfer      = in_valid && in_ready;
    wire [W-1:0] sent = in_flit ^ mask;
    assign out_valid = dup_pend || (xfer && !drop_nx);
    assign out_flit  = dup_pend ? hold : sent;

    // geometric gap: correct bits before the next error
    /* verilator lint_off UNUSEDSIGNAL */  // 53 random bits used
    function automatic [63:0] geo(input [63:0] u64, input [31:0] inv);
        real u, lp, g;
        begin
            if (inv == 32'd0) begin
                geo = 64'hFFFF_FFFF_FFFF;                 // no random errors
            end else begin
                u  = ($itor(u64[63:11]) + 1.0) / 9007199254740992.0;   // (0, 1]
                lp = $ln(1.0 - 1.0 / $itor(inv));
                g  = $ln(u) / lp;
                geo = (g > 1.0e15) ? 64'hFFFF_FFFF_FFFF : 64'($rtoi(g));
            end
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    // error pattern of the next flit: random errors from the running gap, then maybe a burst
    // (temporaries with blocking assignments: behavioural test model)
    /* verilator lint_off BLKSEQ */
    reg [W-1:0] m_n;
    reg [63:0]  g_n, r_n;
    reg [31:0]  f_n;
    reg         b_n;
    integer     st, ln, bi;
    always @(posedge clk) begin
        if (rst) begin
            rg       <= soak_xs(seed ^ 64'hD1B54A32D192ED03);
            r_n       = soak_xs(soak_xs(seed ^ 64'h8CB92BA72F3D8DD7));
            rm       <= soak_xs(r_n);
            gap      <= geo(r_n, ber_inv);
            mask     <= {W{1'b0}};
            nflip    <= 32'd0;
            burst_m  <= 1'b0;
            drop_nx  <= 1'b0;
            dup_nx   <= 1'b0;
            dup_pend <= 1'b0;
            stall    <= 1'b0;
            n_flits     <= 32'd0;
            n_err_flits <= 32'd0;
            n_bits      <= 32'd0;
            n_bursts    <= 32'd0;
            n_drops     <= 32'd0;
            n_dups      <= 32'd0;
        end else begin
            rg    <= soak_xs(rg);
            stall <= (rg[15:0] < stall_p);
            if (dup_pend) dup_pend <= 1'b0;
            if (xfer) begin
                n_flits <= n_flits + 32'd1;
                if (drop_nx) begin
                    n_drops <= n_drops + 32'd1;
                end else begin
                    if (nflip != 32'd0) begin
                        n_err_flits <= n_err_flits + 32'd1;
                        n_bits      <= n_bits + nflip;
                    end
                    if (burst_m) n_bursts <= n_bursts + 32'd1;
                    if (dup_nx) begin
                        dup_pend <= 1'b1;
                        hold     <= sent;
                        n_dups   <= n_dups + 32'd1;
                    end
                end
                // decisions and error pattern for the next flit
                drop_nx <= (rg[47:16] < drop_p);
                dup_nx  <= (soak_xs(rg) [31:0] < dup_p);
                b_n = (soak_xs(soak_xs(rg)) [31:0] < burst_p);
                m_n = {W{1'b0}};
                f_n = 32'd0;
                g_n = gap;
                r_n = rm;
                while (g_n < 64'(W)) begin
                    m_n[g_n[31:0]] = 1'b1;
                    f_n = f_n + 32'd1;
                    r_n = soak_xs(r_n);
                    g_n = g_n + 64'd1 + geo(r_n, ber_inv);
                end
                if (b_n) begin
                    r_n = soak_xs(r_n);
                    st  = 32'(r_n[31:0] % 32'(W));
                    ln  = 2 + 32'(r_n[37:32]);              // 2..65, at most 64
                    if (ln > 64) ln = 64;
                    for (bi = 0; bi < 64; bi = bi + 1)
                        if (bi < ln && st + bi < W &&
                            ((bi == 0 || bi == ln - 1) ? 1'b1 : r_n[38 + (bi % 26)]) &&
                            !m_n[st + bi]) begin
                            m_n[st + bi] = 1'b1;
                            f_n = f_n + 32'd1;
                        end
                end
                mask    <= m_n;
                nflip   <= f_n;
                burst_m <= b_n;
                gap     <= g_n - 64'(W);
                rm      <= soak_xs(r_n);
            end
        end
    end
    /* verilator lint_on BLKSEQ */
endmodule
`default_nettype wire
