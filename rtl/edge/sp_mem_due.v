`default_nettype none
// Due flags of one response queue of sp_mem_node. The queue's payload is an sp_mem_q; this block
// shadows it entry by entry (its own write and read pointers follow the same push and pop, so
// entry k here is the queue's k-th oldest) and tells whether the head entry is due:
//     head_due = ($signed(now - due_time_of_head) >= 0)        (32-bit wrap-safe, as TW bits)
// without a TW-bit subtraction after the head read. Each entry keeps `last` = its due time - 1
// and a flag equal to the compare above for the current cycle. The compare only changes when
// now - due crosses 0 (it becomes true) or 2^(TW-1) (it becomes false), i.e. in the cycle after
// now equals `last` or `last` + 2^(TW-1): so the next flag is "now[TW-2:0] == last[TW-2:0] ?
// (now[TW-1] == last[TW-1]) : flag", an equality per entry. A pushed entry's first flag is the
// compare one cycle after its push (in_due, from its latency). head_due is registered: the flag
// the head will have in the next cycle, read at the next read pointer, so the queue's pop (and
// its count update in sync_fifo) starts from a flip-flop.
module sp_mem_due #(
    parameter integer DEPTH = 32,   // entries of the shadowed queue (>= 2)
    parameter integer TW    = 32    // timestamp width, 2..64
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          push,      // the FIFO takes an entry this cycle (in_valid && in_ready)
    input  wire          pop,       // the FIFO gives its head this cycle (out_valid && out_ready)
    input  wire [TW-1:0] in_last,   // the pushed entry's due time - 1
    input  wire          in_due,    // the pushed entry's compare one cycle after the push
    input  wire [TW-1:0] now,       // the current time
    output reg           head_due   // the head entry is due (meaningful while the FIFO holds one)
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (DEPTH < 2) begin : g_bad_depth
            sp_mem_due_parameter_error_DEPTH_must_be_at_least_2 u_stop ();
        end
        if (TW < 2 || TW > 64) begin : g_bad_tw
            sp_mem_due_parameter_error_TW_must_be_2_to_64 u_stop ();
        end
    endgenerate

    localparam integer  AW   = (DEPTH < 2) ? 1 : $clog2(DEPTH);   // >= 1, so an illegal DEPTH reaches its named error
    localparam [AW-1:0] LAST = AW'(DEPTH - 1);

    reg  [TW-1:0]    last [0:DEPTH-1];   // due time - 1 of each entry
    reg  [DEPTH-1:0] flag;               // each entry's compare in the current cycle
    wire [DEPTH-1:0] flag_nx;            // ... in the next cycle
    reg  [AW-1:0]    wr_ptr;
    reg  [AW-1:0]    rd_ptr;

    // pointers: the same wrap as sync_fifo (non-powers of two included)
    wire [AW-1:0] wr_inc = (wr_ptr == LAST) ? {AW{1'b0}} : wr_ptr + 1'b1;
    wire [AW-1:0] rd_inc = (rd_ptr == LAST) ? {AW{1'b0}} : rd_ptr + 1'b1;
    // the head in the next cycle is the entry at rd_inc after a pop, else the one at rd_ptr; when
    // the FIFO is empty both pointers are equal, so a push into an empty FIFO writes the entry at
    // rd_ptr, which is then the head. Both flags are read before the pop picks one, in an AND-OR
    // (not a ?: of the two reads, which yosys' opt_share turns into one read at a pop-selected
    // index and so puts the pop, a late input, in front of the DEPTH-way read tree).
    wire head_inc = flag_nx[rd_inc];
    wire head_ptr = flag_nx[rd_ptr];

    genvar gi;
    generate
        for (gi = 0; gi < DEPTH; gi = gi + 1) begin : g_e
            wire wr_e = push && (wr_ptr == AW'(gi));
            wire hit  = (now[TW-2:0] == last[gi][TW-2:0]);
            assign flag_nx[gi] = wr_e ? in_due : hit ? (now[TW-1] == last[gi][TW-1]) : flag[gi];
            // storage needs no reset: an entry's time is read only after its push wrote it
            always @(posedge clk) begin
                if (wr_e) last[gi] <= in_last;
            end
        end
    endgenerate

    always @(posedge clk) begin
        if (rst) begin
            wr_ptr   <= {AW{1'b0}};
            rd_ptr   <= {AW{1'b0}};
            flag     <= {DEPTH{1'b0}};
            head_due <= 1'b0;
        end else begin
            if (push) wr_ptr <= wr_inc;
            if (pop)  rd_ptr <= rd_inc;
            flag     <= flag_nx;
            head_due <= (pop & head_inc) | (~pop & head_ptr);
        end
    end
endmodule
`default_nettype wire
