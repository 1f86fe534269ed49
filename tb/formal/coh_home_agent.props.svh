// Properties of coh_home_agent, spliced before its endmodule by tools/formal.py. Names start
// with fv_. A reference record, kept from the agent's outputs and inputs only: per transaction
// entry e and device q, "snooped" when a snoop with UQID {e, q} is queued to q, "answered" when
// device q's D2H response with that UQID is accepted afterwards. It is cleared when e starts a
// new transaction. "Queued" is a lane's write into the write stage (mq_nv / mq_nd), which the
// output queue takes unchanged one cycle later.
//   1. at most one outstanding snoop per line: a snoop for line L is queued only while no snoop
//      for L is unanswered (no other transaction snooping L, and never twice to one device);
//   2. no GO before every snoop answer: a GO (or GO_WritePull) queued for the requester of entry e
//      only when every device e snooped has answered (counting a response accepted this cycle).
    reg fv_live = 1'b0;
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;

    // flat vectors, bit e*N + q (constant indices only: no inferred memories)
    reg  [NTXN*N-1:0] fv_snp, fv_ans;                  // recorded
    reg  [NTXN*N-1:0] fv_snp_now, fv_ans_now;          // this cycle (a start clears its entry)
    reg  [NTXN*N-1:0] fv_new_snp;                      // snoops queued this cycle
    reg  [N-1:0]      fv_rsp_acc;                      // D2H response accepted from device q ...
    reg  [EW-1:0]     fv_rsp_e [0:N-1];                // ... answering the snoop of entry e
    reg  [N-1:0]      fv_snp_q;                        // snoop queued to device q ...
    reg  [EW-1:0]     fv_snp_e [0:N-1];                // ... for entry e
    reg  [LW-1:0]     fv_snp_line [0:N-1];             // ... and line
    reg               fv_uq_ok [0:N-1];                // its UQID names device q
    integer fv_e, fv_q, fv_k, fv_ea, fv_qa;           // one set of loop variables per block
    reg [MQW-1:0] fv_m, fv_ma;
    reg [11:0]    fv_uqa;
    reg [EW-1:0]  fv_se;
    reg           fv_busy, fv_cla;

    always @* begin
        for (fv_qa = 0; fv_qa < N; fv_qa = fv_qa + 1) begin
            fv_uqa = d2h_rsp_hdr[fv_qa*128 + CXL_D2H_RSP_UQID_LSB +: 12];
            fv_rsp_acc[fv_qa] = d2h_rsp_valid[fv_qa] && d2h_rsp_ready[fv_qa] && !fv_uqa[11] &&
                               fv_uqa[0 +: PW] == PW'(fv_qa) && (fv_uqa >> (EW + PW)) == 12'd0;
            fv_rsp_e[fv_qa] = fv_uqa[PW +: EW];
            fv_ma = mq_nd[(fv_qa*3 + 0)*MQW +: MQW];
            fv_snp_q[fv_qa] = mq_nv[fv_qa*3 + 0] && !fv_ma[128];
            fv_snp_e[fv_qa] = fv_ma[CXL_H2D_REQ_UQID_LSB + PW +: EW];
            fv_snp_line[fv_qa] = fv_ma[CXL_H2D_REQ_ADDR_LSB +: LW];
            fv_uq_ok[fv_qa] = fv_ma[CXL_H2D_REQ_UQID_LSB +: PW] == PW'(fv_qa) &&
                             (fv_ma[CXL_H2D_REQ_UQID_LSB +: 12] >> (EW + PW)) == 12'd0;
        end
        for (fv_ea = 0; fv_ea < NTXN; fv_ea = fv_ea + 1) begin
            fv_cla = (a_start || a_kick) && s_e == EW'(fv_ea);
            for (fv_qa = 0; fv_qa < N; fv_qa = fv_qa + 1) begin
                fv_snp_now[fv_ea*N + fv_qa] = fv_cla ? 1'b0 : fv_snp[fv_ea*N + fv_qa];
                fv_ans_now[fv_ea*N + fv_qa] = (fv_cla ? 1'b0 : fv_ans[fv_ea*N + fv_qa]) ||
                    (fv_rsp_acc[fv_qa] && fv_rsp_e[fv_qa] == EW'(fv_ea) && fv_snp_now[fv_ea*N + fv_qa]);
                fv_new_snp[fv_ea*N + fv_qa] = fv_snp_q[fv_qa] && fv_snp_e[fv_qa] == EW'(fv_ea);
            end
        end
    end

    always @(posedge clk) begin
        if (rst) begin
            fv_snp <= {(NTXN*N){1'b0}};
            fv_ans <= {(NTXN*N){1'b0}};
        end else begin
            fv_snp <= fv_snp_now | fv_new_snp;
            fv_ans <= fv_ans_now & ~fv_new_snp;
        end
    end

    // snoops of entry e queued and not answered (this cycle's view)
    function automatic [N-1:0] fv_open(input [EW-1:0] e);
        integer q;
        begin
            for (q = 0; q < N; q = q + 1)
                fv_open[q] = (fv_snp_now[32'(e)*N + q] | fv_new_snp[32'(e)*N + q]) &
                             ~fv_ans_now[32'(e)*N + q];
        end
    endfunction

    always @* begin
        // every variable assigned on every path: no latch (a latch is a logic loop to smtbmc)
        fv_q = 0; fv_e = 0; fv_k = 0;
        fv_m = {MQW{1'b0}}; fv_se = {EW{1'b0}}; fv_busy = 1'b0;
        if (fv_on) begin
            for (fv_q = 0; fv_q < N; fv_q = fv_q + 1) begin
                // 1. a snoop queued to q: its UQID names q; no snoop for its line is unanswered
                //    (any entry, any device) before this one
                if (fv_snp_q[fv_q]) begin
                    assert (fv_uq_ok[fv_q]);
                    fv_busy = 1'b0;
                    for (fv_e = 0; fv_e < NTXN; fv_e = fv_e + 1)
                        if (e_v[fv_e] && e_line[fv_e] == fv_snp_line[fv_q] &&
                            (fv_snp_now[fv_e*N +: N] & ~fv_ans_now[fv_e*N +: N]) != {N{1'b0}})
                            fv_busy = 1'b1;
                    assert (!fv_busy);
                end
                // 2. a GO on lane k belongs to the entry that lane serves this cycle
                for (fv_k = 0; fv_k < 3; fv_k = fv_k + 1) begin
                    fv_m = mq_nd[(fv_q*3 + fv_k)*MQW +: MQW];
                    fv_se = (fv_k == 0) ? s_e : (fv_k == 1) ? b2_e : c_ne;
                    if (mq_nv[fv_q*3 + fv_k] && fv_m[128] &&
                        (fv_m[CXL_H2D_RSP_OPCODE_LSB +: 4] == CXL_H2D_RSP_OP_GO ||
                         fv_m[CXL_H2D_RSP_OPCODE_LSB +: 4] == CXL_H2D_RSP_OP_GO_WRITEPULL))
                        assert (fv_open(fv_se) == {N{1'b0}});
                end
            end
            // the scenarios are reachable: a GO after a snoop was answered; a back-invalidation
            cover (b_dec && db_go && e_sent[b2_e] != {N{1'b0}});
            cover (a_kick);
        end
    end
