// Properties of fifo_mw, spliced before its endmodule by tools/formal.py. Names start with fv_.
//
// Reference acceptance: the valid lanes are taken in index order while there is room (`free`,
// the space before this cycle's read); the rest are dropped and set the sticky overflow flag.
// Two tracked values (any accepted lane of any cycle, then a later one: a higher lane of the same
// cycle or any lane of a later cycle) carry their value and the number of entries ahead of them;
// the pop that finds one at the head must return it, A before B. A ghost count is the reference
// for count, free and out_valid.
    reg fv_live = 1'b0;
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;

    // reference acceptance and the entries ahead of each accepted lane
    reg [W-1:0]  fv_acc;
    reg [CW:0]   fv_nacc;
    reg          fv_drop;
    reg [CW:0]   fv_before [0:W-1];       // accepted lanes below lane i this cycle
    integer      fv_i;
    always @* begin
        fv_nacc = {(CW+1){1'b0}};
        fv_drop = 1'b0;
        fv_acc  = {W{1'b0}};
        for (fv_i = 0; fv_i < W; fv_i = fv_i + 1) begin
            fv_before[fv_i] = fv_nacc;
            if (in_valid[fv_i]) begin
                if (fv_nacc < {1'b0, free_q}) begin
                    fv_acc[fv_i] = 1'b1;
                    fv_nacc = fv_nacc + 1'b1;
                end else begin
                    fv_drop = 1'b1;
                end
            end
        end
    end

    (* anyseq *) reg          fv_pick_a;
    (* anyseq *) reg          fv_pick_b;
    (* anyseq *) reg [31:0]   fv_lane_a;
    (* anyseq *) reg [31:0]   fv_lane_b;
    reg             fv_a_in, fv_a_done, fv_b_in, fv_b_done, fv_ovf;
    reg [CW-1:0]    fv_a_pos, fv_b_pos;
    reg [WIDTH-1:0] fv_a_val, fv_b_val;
    reg [CW:0]      fv_n;
    wire fv_take_a = fv_pick_a && fv_lane_a < W && fv_acc[fv_lane_a] && !fv_a_in && !fv_a_done;
    wire fv_b_ok   = (fv_a_in || fv_a_done) || (fv_take_a && fv_lane_b > fv_lane_a);
    wire fv_take_b = fv_pick_b && fv_lane_b < W && fv_acc[fv_lane_b] && fv_b_ok &&
                     !fv_b_in && !fv_b_done;
    wire [CW:0] fv_cnt_after_pop = {1'b0, cnt} - {{CW{1'b0}}, pop};

    always @(posedge clk) begin
        if (rst) begin
            fv_a_in <= 1'b0; fv_a_done <= 1'b0; fv_b_in <= 1'b0; fv_b_done <= 1'b0;
            fv_n <= {(CW+1){1'b0}}; fv_ovf <= 1'b0;
        end else begin
            fv_n   <= fv_n + fv_nacc - {{CW{1'b0}}, pop};
            fv_ovf <= fv_ovf | fv_drop;
            if (fv_a_in && pop) begin
                if (fv_a_pos == {CW{1'b0}}) begin fv_a_in <= 1'b0; fv_a_done <= 1'b1; end
                else fv_a_pos <= fv_a_pos - 1'b1;
            end
            if (fv_b_in && pop) begin
                if (fv_b_pos == {CW{1'b0}}) begin fv_b_in <= 1'b0; fv_b_done <= 1'b1; end
                else fv_b_pos <= fv_b_pos - 1'b1;
            end
            if (fv_take_a) begin
                fv_a_in  <= 1'b1;
                fv_a_val <= in_data[fv_lane_a * WIDTH +: WIDTH];
                fv_a_pos <= CW'(fv_cnt_after_pop + fv_before[fv_lane_a]);
            end
            if (fv_take_b) begin
                fv_b_in  <= 1'b1;
                fv_b_val <= in_data[fv_lane_b * WIDTH +: WIDTH];
                fv_b_pos <= CW'(fv_cnt_after_pop + fv_before[fv_lane_b]);
            end
        end
    end

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
            // acceptance, drops and the sticky flag against the reference
            assert (we == fv_acc);
            assert (ovf == fv_drop);
            assert (overflow == fv_ovf);
            // count, free, empty against the ghost count
            assert ({1'b0, count} == fv_n);
            assert (fv_n <= DEPTH);
            assert ({1'b0, free} == DEPTH - fv_n);
            assert (out_valid == (fv_n != 0));
            // tracked values leave at their turn with their value, A before B
            if (pop && fv_a_in && fv_a_pos == {CW{1'b0}}) assert (out_data == fv_a_val);
            if (pop && fv_b_in && fv_b_pos == {CW{1'b0}}) assert (out_data == fv_b_val && fv_a_done);
            // inductive invariants
            assert (rd_ptr < DEPTH && wr_ptr < DEPTH);
            assert (wr_ptr == fv_slot(rd_ptr, cnt == DEPTH ? {CW{1'b0}} : cnt));
            if (fv_a_in) assert (fv_a_pos < cnt && mem[fv_slot(rd_ptr, fv_a_pos)] == fv_a_val);
            if (fv_b_in) assert (fv_b_pos < cnt && mem[fv_slot(rd_ptr, fv_b_pos)] == fv_b_val);
            if (fv_a_in && fv_b_in) assert (fv_a_pos < fv_b_pos);
            if (fv_b_in || fv_b_done) assert (fv_a_in || fv_a_done);
            if (fv_b_in && !fv_a_in) assert (fv_a_done);
            cover (fv_a_done && fv_b_done);
            cover (fv_a_in && fv_b_in && fv_b_pos == fv_a_pos + 1'b1 && overflow);
        end
    end
