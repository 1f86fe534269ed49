// Properties of coh_home_agent, spliced before its endmodule by tools/formal.py. Names start
// with fv_. A reference record, kept from the agent's outputs and inputs only: per transaction
// entry e and device q, "snooped" when a snoop with UQID {e, q} is queued to q, "answered" when
// device q's D2H response with that UQID is accepted afterwards. It is cleared when e starts a
// new transaction.
//   1. at most one outstanding snoop per line: a snoop for line L is queued only while no snoop
//      for L is unanswered (no other transaction snooping L, and never twice to one device);
//   2. no GO before every snoop answer: a GO (or GO_WritePull) queued for the requester of entry e
//      only when every device e snooped has answered (counting a response accepted this cycle).
    reg fv_live = 1'b0;
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;

    reg [N-1:0] fv_snp [0:NTXN-1];
    reg [N-1:0] fv_ans [0:NTXN-1];
    reg [N-1:0] fv_snp_now [0:NTXN-1];      // this cycle's view (a start clears its entry)
    reg [N-1:0] fv_ans_now [0:NTXN-1];
    reg [N-1:0] fv_new_snp [0:NTXN-1];      // snoops queued this cycle
    integer fv_e, fv_q, fv_k, fv_f;
    reg [MQW-1:0] fv_m;
    reg [11:0]    fv_uq;
    reg [EW-1:0]  fv_se;
    reg [LW-1:0]  fv_line;
    reg           fv_busy;

    always @* begin
        for (fv_e = 0; fv_e < NTXN; fv_e = fv_e + 1) begin
            fv_new_snp[fv_e] = {N{1'b0}};
            fv_snp_now[fv_e] = ((a_start && s_e == EW'(fv_e)) || (a_kick && f0 == EW'(fv_e)))
                               ? {N{1'b0}} : fv_snp[fv_e];
            fv_ans_now[fv_e] = ((a_start && s_e == EW'(fv_e)) || (a_kick && f0 == EW'(fv_e)))
                               ? {N{1'b0}} : fv_ans[fv_e];
        end
        // responses accepted this cycle answer the snoop named by their UQID
        for (fv_q = 0; fv_q < N; fv_q = fv_q + 1) begin
            fv_uq = d2h_rsp_hdr[fv_q*128 + CXL_D2H_RSP_UQID_LSB +: 12];
            if (d2h_rsp_valid[fv_q] && d2h_rsp_ready[fv_q] && !fv_uq[11] &&
                fv_uq[0 +: PW] == PW'(fv_q) && (fv_uq >> (EW + PW)) == 12'd0)
                fv_ans_now[fv_uq[PW +: EW]][fv_q] = fv_snp_now[fv_uq[PW +: EW]][fv_q];
        end
        for (fv_q = 0; fv_q < N; fv_q = fv_q + 1) begin
            fv_m = mq_in_d[(fv_q*3 + 0)*MQW +: MQW];
            fv_uq = fv_m[CXL_H2D_REQ_UQID_LSB +: 12];
            if (mq_in_v[fv_q*3 + 0] && !fv_m[128])
                fv_new_snp[fv_uq[PW +: EW]][fv_q] = 1'b1;
        end
    end

    always @(posedge clk) begin
        for (fv_e = 0; fv_e < NTXN; fv_e = fv_e + 1) begin
            if (rst) begin
                fv_snp[fv_e] <= {N{1'b0}};
                fv_ans[fv_e] <= {N{1'b0}};
            end else begin
                fv_snp[fv_e] <= fv_snp_now[fv_e] | fv_new_snp[fv_e];
                fv_ans[fv_e] <= fv_ans_now[fv_e] & ~fv_new_snp[fv_e];
            end
        end
    end

    always @* begin
        if (fv_on) begin
            for (fv_q = 0; fv_q < N; fv_q = fv_q + 1) begin
                // 1. a snoop queued to q for a line: its UQID names q and a started entry on that
                //    line; no snoop for that line is unanswered (any entry, any device)
                fv_m = mq_in_d[(fv_q*3 + 0)*MQW +: MQW];
                fv_uq = fv_m[CXL_H2D_REQ_UQID_LSB +: 12];
                fv_line = fv_m[CXL_H2D_REQ_ADDR_LSB +: LW];
                if (mq_in_v[fv_q*3 + 0] && !fv_m[128]) begin
                    assert (fv_uq[0 +: PW] == PW'(fv_q) && (fv_uq >> (EW + PW)) == 12'd0);
                    fv_busy = 1'b0;
                    for (fv_e = 0; fv_e < NTXN; fv_e = fv_e + 1)
                        if (e_v[fv_e] && e_line[fv_e] == fv_line &&
                            (fv_snp_now[fv_e] & ~fv_ans_now[fv_e]) != {N{1'b0}})
                            fv_busy = 1'b1;
                    assert (!fv_busy);
                end
                // 2. a GO on lane k belongs to the entry that lane serves this cycle
                for (fv_k = 0; fv_k < 3; fv_k = fv_k + 1) begin
                    fv_m = mq_in_d[(fv_q*3 + fv_k)*MQW +: MQW];
                    fv_se = (fv_k == 0) ? s_e : (fv_k == 1) ? b_e : c_ne;
                    if (mq_in_v[fv_q*3 + fv_k] && fv_m[128] &&
                        (fv_m[CXL_H2D_RSP_OPCODE_LSB +: 4] == CXL_H2D_RSP_OP_GO ||
                         fv_m[CXL_H2D_RSP_OPCODE_LSB +: 4] == CXL_H2D_RSP_OP_GO_WRITEPULL))
                        assert (((fv_snp_now[fv_se] | fv_new_snp[fv_se]) & ~fv_ans_now[fv_se]) == {N{1'b0}});
                end
            end
            // the scenarios are reachable: a GO after a snoop was answered; a back-invalidation
            cover (b_dec && db_go && e_sent[b_e] != {N{1'b0}});
            cover (a_kick);
        end
    end
