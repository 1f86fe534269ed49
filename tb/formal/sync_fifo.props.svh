// Properties of sync_fifo, spliced before its endmodule by tools/formal.py (a bind: open-source
// Yosys has neither bind nor hierarchical references). Names start with fv_.
//
// Two tracked values ("two symbols"): the environment picks, at any push, a value A, and at any
// later push a value B; each records its value and how many entries are ahead of it. Every pop
// ahead of a tracked value moves it forward; the pop that finds it at the head must return its
// value, and A must leave before B. With free data and a free choice of which pushes are tracked,
// this shows no loss, no duplication, no corruption and no reordering. A ghost count of pushes
// minus pops is the reference for count, full (in_ready) and empty (out_valid).
    reg fv_live = 1'b0;                    // reset seen: the properties hold from then on
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;

    (* anyseq *) reg fv_pick_a;
    (* anyseq *) reg fv_pick_b;
    reg             fv_a_in, fv_a_done, fv_b_in, fv_b_done;
    reg [CW-1:0]    fv_a_pos, fv_b_pos;    // entries ahead of the tracked value
    reg [WIDTH-1:0] fv_a_val, fv_b_val;
    reg [CW:0]      fv_n;                  // pushes - pops since reset
    wire [CW-1:0]   fv_ahead = cnt - {{(CW-1){1'b0}}, pop};   // entries ahead of a push now

    always @(posedge clk) begin
        if (rst) begin
            fv_a_in <= 1'b0; fv_a_done <= 1'b0; fv_b_in <= 1'b0; fv_b_done <= 1'b0;
            fv_n <= {(CW+1){1'b0}};
        end else begin
            fv_n <= fv_n + {{CW{1'b0}}, push} - {{CW{1'b0}}, pop};
            if (fv_a_in && pop) begin
                if (fv_a_pos == {CW{1'b0}}) begin fv_a_in <= 1'b0; fv_a_done <= 1'b1; end
                else fv_a_pos <= fv_a_pos - 1'b1;
            end
            if (fv_b_in && pop) begin
                if (fv_b_pos == {CW{1'b0}}) begin fv_b_in <= 1'b0; fv_b_done <= 1'b1; end
                else fv_b_pos <= fv_b_pos - 1'b1;
            end
            if (push && fv_pick_a && !fv_a_in && !fv_a_done) begin
                fv_a_in <= 1'b1; fv_a_val <= in_data; fv_a_pos <= fv_ahead;
            end else if (push && fv_pick_b && (fv_a_in || fv_a_done) && !fv_b_in && !fv_b_done) begin
                fv_b_in <= 1'b1; fv_b_val <= in_data; fv_b_pos <= fv_ahead;
            end
        end
    end

    // storage slot of the entry `k` places behind the head
    function automatic [AW-1:0] fv_slot(input [AW-1:0] base, input [CW-1:0] k);
        reg [AW+CW:0] s;
        begin
            s = {{(CW+1){1'b0}}, base} + {{(AW+1){1'b0}}, k};
            if (s >= DEPTH) s = s - DEPTH;
            fv_slot = s[AW-1:0];
        end
    endfunction

    always @* begin
        if (fv_on) begin
            // count, full and empty against the ghost count
            assert ({1'b0, count} == fv_n);
            assert (fv_n <= DEPTH);
            assert (in_ready == (fv_n < DEPTH));
            assert (out_valid == (fv_n != 0));
            // the pop that reaches a tracked value returns it; A leaves before B
            if (pop && fv_a_in && fv_a_pos == {CW{1'b0}}) assert (out_data == fv_a_val);
            if (pop && fv_b_in && fv_b_pos == {CW{1'b0}}) assert (out_data == fv_b_val && fv_a_done);
            // inductive invariants: pointers, and the tracked values in their slots
            assert (rd_ptr < DEPTH && wr_ptr < DEPTH);
            assert (wr_ptr == fv_slot(rd_ptr, cnt == FULL ? {CW{1'b0}} : cnt));
            if (fv_a_in) assert (fv_a_pos < cnt && mem[fv_slot(rd_ptr, fv_a_pos)] == fv_a_val);
            if (fv_b_in) assert (fv_b_pos < cnt && mem[fv_slot(rd_ptr, fv_b_pos)] == fv_b_val);
            if (fv_a_in && fv_b_in) assert (fv_a_pos < fv_b_pos);
            if (fv_b_in || fv_b_done) assert (fv_a_in || fv_a_done);
            if (fv_b_in && !fv_a_in) assert (fv_a_done);
            cover (fv_b_done && fv_a_done);
            cover (cnt == FULL && fv_a_in && fv_b_in);
        end
    end
