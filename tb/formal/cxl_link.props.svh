// Replay properties of cxl_link, spliced before its endmodule by tools/formal.py. Names start
// with fv_. The sequence number of a retryable flit is the replay-buffer slot it is stored in
// (go-back-N with implicit sequence numbers: the partner counts retryable flits modulo
// REPLAY_DEPTH, the wrap value we announce in INIT.Param).
//
//   1. The RETRY.Ack echoes the ESeq of the RETRY.Req it answers.
//   2. After the Ack, the flits replayed are the slots from that ESeq on, in order, one after the
//      other, until the newest stored flit; no new flit is sent before the replay is complete
//      (only the control flits of a newer Req/Ack sequence may come between).
//   3. A replayed slot carries exactly the flit last sent with that sequence number (tracked slot).
    reg fv_live = 1'b0;
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;

    // environment: a legal partner asks for a sequence number below REPLAY_DEPTH; the formatter
    // marks only INIT.Param and message / LLCRD flits retryable (RETRY.* and Idle never are)
    always @* if (fv_on) begin
        if (rx_req) assume (rx_ctl_eseq < REPLAY_DEPTH);
        if (fmt_retryable) assume (fmt_kind == K_NONE || fmt_kind == K_INIT);
    end

    function automatic [RA_W-1:0] fv_inc(input [RA_W-1:0] p);
        fv_inc = (32'(p) == REPLAY_DEPTH - 1) ? {RA_W{1'b0}} : p + 1'b1;
    endfunction

    // 1. ESeq asked by the newest Req, and the one the Ack sequence being sent answers
    reg  [7:0] fv_asked, fv_answer;
    wire fv_seq_start = load && seq_step && !seq_on;
    wire fv_ack_sent  = load && seq_step && seq_last && start_ack;
    always @(posedge clk) begin
        if (rst) begin
            fv_asked <= 8'd0; fv_answer <= 8'd0;
        end else begin
            if (rx_req) fv_asked <= rx_ctl_eseq;
            if (fv_seq_start) fv_answer <= fv_asked;
        end
    end
    wire [7:0] fv_ack_e = seq_on ? fv_answer : fv_asked;   // a one-flit sequence answers at once

    // 2. reference replay: next slot to resend, active from the Ack until the newest slot is resent
    reg            fv_rp;
    reg [RA_W-1:0] fv_next;
    always @(posedge clk) begin
        if (rst) begin
            fv_rp <= 1'b0; fv_next <= {RA_W{1'b0}};
        end else if (fv_ack_sent) begin
            fv_rp   <= RA_W'(fv_ack_e) != wr_ptr;
            fv_next <= RA_W'(fv_ack_e);
        end else if (load && use_replay) begin
            fv_next <= fv_inc(fv_next);
            if (fv_inc(fv_next) == wr_ptr) fv_rp <= 1'b0;
        end
    end

    // 3. tracked slot: the flit last stored in slot K (sent new with sequence number K)
    (* anyconst *) reg [RA_W-1:0] fv_k;
    reg              fv_k_valid;
    reg [FLIT_W:0]   fv_k_entry;       // {is an all-data flit, flit}
    reg              fv_chk;
    reg [FLIT_W-1:0] fv_chk_flit;
    always @(posedge clk) begin
        if (rst) begin
            fv_k_valid <= 1'b0; fv_chk <= 1'b0;
        end else begin
            if (rb_write && wr_ptr == fv_k) begin
                fv_k_valid <= 1'b1;
                fv_k_entry <= {fmt_busy_adf && fmt_kind == K_NONE, fmt_flit};
            end
            fv_chk      <= load && use_replay && rd_ptr == fv_k && fv_k_valid;
            fv_chk_flit <= fv_k_entry[FLIT_W-1:0];
        end
    end

    always @* begin
        if (fv_on) begin
            if (fv_ack_sent) assert (fmt_kind == K_ACK && fmt_eseq == fv_ack_e);       // 1
            if (load && use_replay) assert (fv_rp && rd_ptr == fv_next);              // 2: in order
            if (fv_rp && load && !seq_step && !link_fatal) assert (use_replay);       // 2: no skip
            if (fv_chk) assert (out_flit == fv_chk_flit);                             // 3
            // inductive invariants
            assert (rd_ptr < REPLAY_DEPTH && wr_ptr < REPLAY_DEPTH);
            assert (fv_rp == (rd_ptr != wr_ptr));
            if (fv_rp) assert (rd_ptr == fv_next);
            if (fv_k_valid) assert ({rb_adf[fv_k], rb_mem[fv_k]} == fv_k_entry);
            // the decision's registered replay flags
            assert (replaying == (rd_ptr != wr_ptr));
            assert (rp_adf == rb_adf[rd_ptr]);
            // 68B: the strobes the link forms from its flags are what the output builder says
            // about the flit it built (rb_write, and what the flit returns)
            if (FLIT_MODE == 0) begin
                assert (rb_write == (fmt_fire && fmt_retryable));
                assert (g_68.pk_pop == (fmt_sent && pk_send));
                assert (g_68.crd_ret == (fmt_sent && g_68.crd_used));
                assert (g_68.a_all == (fmt_sent && g_68.ack_all));
                assert (g_68.a_8 == (fmt_sent && g_68.ack_8 && !g_68.ack_all));
                // the registered count flags
                assert (g_68.crd_nz == (crd_pend != 48'd0));
                assert (ack_nz == (ack_pend != 8'd0));
                assert (ack_ge8 == (ack_pend >= 8'd8));
                assert (ack_frc == ((ack_timer >= 8'(ACK_TIMER)) || (ack_pend >= 8'(ACK_FORCE))));
            end
            assert (fv_asked == ack_eseq && fv_asked < REPLAY_DEPTH);
            if (seq_on) assert (fv_answer == ack_eseq_l && fv_answer < REPLAY_DEPTH);
            cover (fv_chk && fv_rp);                   // a replay of the tracked slot, more to come
            cover (fv_ack_sent && RA_W'(fv_ack_e) != wr_ptr && fv_inc(RA_W'(fv_ack_e)) != wr_ptr);
        end
    end
