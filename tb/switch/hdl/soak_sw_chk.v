`default_nettype none
// In-order checker for NF flows that share one receive lane (test-only): the flow index and the
// low SB bits of the sequence number come from the message (its tag); per flow the checker keeps
// the next sequence number it expects (hi) and places the message at s_at = hi + (sid - hi)
// (SB-bit signed difference). The caller compares the message with the content of s_at and says
// `same`; then, as soak_stream:
//   content != f(s_at)             corrupted (also: a flow index >= NF)
//   s_at == hi                     in order (ok)
//   s_at > hi                      reordered: messages hi..s_at-1 are late or lost
//   s_at < hi, seen before         duplicated
//   s_at < hi, not seen before     reordered (a late message)
// `seen` covers the 64 sequence numbers below hi; an older one counts as duplicated.
module soak_sw_chk #(
    parameter integer NF = 2,    // flows on the lane, 1..4
    parameter integer SB = 11    // sequence-number bits the message carries, 2..31
) (
    input  wire         clk,
    input  wire         rst,
    input  wire         take,        // a message is taken this cycle
    input  wire [1:0]   f,           // its flow
    input  wire [SB-1:0] sid,        // its sequence number mod 2^SB
    output wire [31:0]  s_at,        // where it belongs in its flow
    input  wire         same,        // its content is that of s_at
    input  wire [1:0]   probe_f,     // a flow whose next expected sequence number ...
    output wire [31:0]  probe_hi,    // ... is shown here
    output reg  [31:0]  n_ok,
    output reg  [31:0]  n_uniq,
    output reg  [31:0]  n_dup,
    output reg  [31:0]  n_reord,
    output reg  [31:0]  n_corrupt
);
    generate
        if (NF < 1 || NF > 4) begin : g_bad_nf
            soak_sw_chk_parameter_error_NF_must_be_1_to_4 u_stop ();
        end
        if (SB < 2 || SB > 31) begin : g_bad_sb
            soak_sw_chk_parameter_error_SB_must_be_2_to_31 u_stop ();
        end
    endgenerate

    reg  [31:0] hi   [0:3];              // entries NF..3 stay 0 (never indexed)
    reg  [63:0] seen [0:3];
    wire        fok  = 32'(f) < NF;
    wire [1:0]  fi   = fok ? f : 2'd0;
    wire [31:0] h    = hi[fi];
    wire [SB-1:0] d  = sid - h[SB-1:0];
    assign s_at      = h + {{(32-SB){d[SB-1]}}, d};
    wire [31:0] back = h - s_at - 32'd1;        // s_at < h: index into seen
    wire [1:0]  pi   = (32'(probe_f) < NF) ? probe_f : 2'd0;
    assign probe_hi  = hi[pi];

    integer i;
    always @(posedge clk) begin
        if (rst) begin
            for (i = 0; i < 4; i = i + 1) begin
                hi[i]   <= 32'd0;
                seen[i] <= 64'd0;
            end
            n_ok      <= 32'd0;
            n_uniq    <= 32'd0;
            n_dup     <= 32'd0;
            n_reord   <= 32'd0;
            n_corrupt <= 32'd0;
        end else if (take) begin
            if (!same || !fok) begin
                n_corrupt <= n_corrupt + 32'd1;
            end else if (s_at == h) begin
                n_ok     <= n_ok + 32'd1;
                n_uniq   <= n_uniq + 32'd1;
                hi[fi]   <= h + 32'd1;
                seen[fi] <= {seen[fi][62:0], 1'b1};
            end else if (!d[SB-1]) begin           // ahead: the ones between are late or lost
                n_reord  <= n_reord + 32'd1;
                n_uniq   <= n_uniq + 32'd1;
                hi[fi]   <= s_at + 32'd1;
                seen[fi] <= (seen[fi] << (s_at - h + 32'd1)) | 64'd1;
            end else if (back >= 32'd64 || seen[fi][back[5:0]]) begin
                n_dup <= n_dup + 32'd1;
            end else begin                         // a late message, first time seen
                n_reord  <= n_reord + 32'd1;
                n_uniq   <= n_uniq + 32'd1;
                seen[fi][back[5:0]] <= 1'b1;
            end
        end
    end
endmodule
`default_nettype wire
