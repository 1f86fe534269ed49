// Properties of skid_buffer, spliced before its endmodule by tools/formal.py. Names start with
// fv_. Two tracked values (as for sync_fifo): no loss, duplication, corruption or reordering;
// in_ready low only when two entries are held; out_valid exactly when one is held.
    reg fv_live = 1'b0;
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;
    wire fv_push = in_valid && in_ready;
    wire fv_pop  = out_valid && out_ready;

    (* anyseq *) reg fv_pick_a;
    (* anyseq *) reg fv_pick_b;
    reg             fv_a_in, fv_a_done, fv_b_in, fv_b_done;
    reg             fv_a_pos, fv_b_pos;     // 0: at the output, 1: behind one entry
    reg [WIDTH-1:0] fv_a_val, fv_b_val;
    reg [1:0]       fv_n;
    wire [1:0]      fv_ahead = fv_n - {1'b0, fv_pop};

    always @(posedge clk) begin
        if (rst) begin
            fv_a_in <= 1'b0; fv_a_done <= 1'b0; fv_b_in <= 1'b0; fv_b_done <= 1'b0;
            fv_n <= 2'd0;
        end else begin
            fv_n <= fv_n + {1'b0, fv_push} - {1'b0, fv_pop};
            if (fv_a_in && fv_pop) begin
                if (!fv_a_pos) begin fv_a_in <= 1'b0; fv_a_done <= 1'b1; end
                else fv_a_pos <= 1'b0;
            end
            if (fv_b_in && fv_pop) begin
                if (!fv_b_pos) begin fv_b_in <= 1'b0; fv_b_done <= 1'b1; end
                else fv_b_pos <= 1'b0;
            end
            if (fv_push && fv_pick_a && !fv_a_in && !fv_a_done) begin
                fv_a_in <= 1'b1; fv_a_val <= in_data; fv_a_pos <= fv_ahead[0];
            end else if (fv_push && fv_pick_b && (fv_a_in || fv_a_done) && !fv_b_in && !fv_b_done) begin
                fv_b_in <= 1'b1; fv_b_val <= in_data; fv_b_pos <= fv_ahead[0];
            end
        end
    end

    always @* begin
        if (fv_on) begin
            assert (fv_n <= 2'd2);
            assert (out_valid == (fv_n != 2'd0));
            assert (in_ready == (fv_n != 2'd2));
            if (fv_pop && fv_a_in && !fv_a_pos) assert (out_data == fv_a_val);
            if (fv_pop && fv_b_in && !fv_b_pos) assert (out_data == fv_b_val && fv_a_done);
            // inductive invariants: where each held entry sits
            assert (fv_n == {1'b0, out_valid} + {1'b0, skid_valid});
            assert (!skid_valid || out_valid);
            if (fv_a_in) assert (fv_a_pos ? (skid_valid && skid_data == fv_a_val) : (out_data == fv_a_val));
            if (fv_b_in) assert (fv_b_pos ? (skid_valid && skid_data == fv_b_val) : (out_data == fv_b_val));
            if (fv_a_in) assert ({1'b0, fv_a_pos} < fv_n);
            if (fv_b_in) assert ({1'b0, fv_b_pos} < fv_n);
            if (fv_a_in && fv_b_in) assert (!fv_a_pos && fv_b_pos);
            if (fv_b_in || fv_b_done) assert (fv_a_in || fv_a_done);
            if (fv_b_in && !fv_a_in) assert (fv_a_done);
            cover (fv_a_done && fv_b_done);
            cover (fv_a_in && fv_b_in);
        end
    end
