`default_nettype none
// One response queue of sp_mem_node: first-word fall-through, DEPTH entries, whose head is a
// register in front of a DEPTH - 1 entry sync_fifo, so out_valid and out_data come from flip-flops
// (the fabric's input cycle follows them) instead of the FIFO's read select. An entry goes straight
// to the head when the FIFO is empty and the head is free or taken in that cycle, so it is at the
// head one cycle after it was accepted, as in a plain sync_fifo; when the head is taken, the FIFO's
// next entry replaces it. The FIFO holds entries only while the head holds one, so in_ready (the
// FIFO's room, from its count register) is low exactly when DEPTH entries are held: the same
// accept and output cycles and the same capacity as a sync_fifo of DEPTH entries.
module sp_mem_q #(
    parameter integer WIDTH = 8,    // bits per entry, >= 1
    parameter integer DEPTH = 32    // entries, >= 3 (the FIFO behind the head needs 2)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             in_valid,
    output wire             in_ready,
    input  wire [WIDTH-1:0] in_data,
    output reg              out_valid,
    input  wire             out_ready,
    output reg  [WIDTH-1:0] out_data
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1) begin : g_bad_width
            sp_mem_q_parameter_error_WIDTH_must_be_at_least_1 u_stop ();
        end
        if (DEPTH < 3) begin : g_bad_depth
            sp_mem_q_parameter_error_DEPTH_must_be_at_least_3 u_stop ();
        end
    endgenerate

    wire             take = out_valid && out_ready;          // the head leaves this cycle
    wire             f_v;
    wire [WIDTH-1:0] f_q;
    wire             byp  = !f_v && (!out_valid || take);   // an entry goes straight to the head
    /* verilator lint_off PINCONNECTEMPTY */
    sync_fifo #(.WIDTH(WIDTH), .DEPTH(DEPTH - 1)) u_q (
        .clk(clk), .rst(rst), .in_valid(in_valid && !byp), .in_ready(in_ready), .in_data(in_data),
        .out_valid(f_v), .out_ready(take), .out_data(f_q), .count());
    /* verilator lint_on PINCONNECTEMPTY */
    always @(posedge clk) begin
        if (rst)                      out_valid <= 1'b0;
        else if (!out_valid || take)  out_valid <= f_v || in_valid;
    end
    always @(posedge clk) begin
        if (!out_valid || take) out_data <= f_v ? f_q : in_data;
    end
endmodule
`default_nettype wire
