// Routing properties of cxl_switch_port, spliced before its endmodule by tools/formal.py. Names
// start with fv_. For the message in stage 1 (st_valid), with the port's configuration:
//   - HBR request at a USP that hits a decoder: leaves on the port the decoder names when that
//     port exists and is enabled, else is dropped with E_MISROUTE / E_EG_DIS;
//   - request at a USP that misses every decoder: answered by the switch on its own port (a read
//     with DRS MemData-NXM, a write with NDR Cmp), or dropped with E_NXM_NONE when no completion
//     is expected;
//   - PBR request at a USP (DPID = the decoder's target) and any message at a fabric port (its
//     DPID): leaves on the port of the reference route lookup (an edge port whose PID is the DPID,
//     lowest port first, else the lowest valid table entry), or is dropped (E_UNK_DPID when no
//     route exists);
//   - HBR response at a DSP matching an outstanding request: back to the recorded requester port;
//   - exactly one error event per dropped message, a switch answer counts as its NXM or tag
//     conflict event (plus the drop event of that answer when it cannot be routed), a forwarded
//     message as one forward event.
// For the message in stage 2 (r_valid): at most one queue is written, and a message that leaves
// without being dropped writes exactly one; it raises the events stage 1 decided for the outcome
// the outstanding table gave (the tag-conflict answer's or its own); with the invariants of what
// stage 1 registers for it (so that the induction closes).
// The table handshake inputs are free but for what the tables guarantee: a table serves only an
// ingress that asks it, with one outcome (recorded or outstanding).
    reg fv_live = 1'b0;
    always @(posedge clk) fv_live <= fv_live | rst;
    wire fv_on = fv_live && !rst;
    localparam [15:0] FV_ERR = 16'b0110_1111_1111_1000;   // every event kind but forward/poison

    always @* begin
        assume ((tk_conf_in | tk_rec_in) == {N{1'b0}} || tk_req != {N{1'b0}});
        assume ((tk_conf_in & tk_rec_in) == {N{1'b0}});
        assume ($onehot0(tk_conf_in | tk_rec_in));
    end

    function automatic [PW:0] fv_route(input [11:0] dpid);  // {hit, port}
        integer fr;
        reg h;
        reg [PW-1:0] pt;
        begin
            h = 1'b0; pt = {PW{1'b0}};
            for (fr = 0; fr < N; fr = fr + 1)
                if (!h && cfg_role[fr*2 +: 2] != ROLE_FAB && cfg_pid[fr*12 +: 12] == dpid) begin
                    h = 1'b1; pt = PW'(fr);
                end
            for (fr = 0; fr < NRT; fr = fr + 1)
                if (!h && rt_valid[fr] && rt_dpid[fr*12 +: 12] == dpid) begin
                    h = 1'b1; pt = rt_port[fr*PW +: PW];
                end
            fv_route = {h, pt};
        end
    endfunction

    wire          fv_req   = st_valid && cfg_en[PORT] && is_m2s && exp_k != 2'd3;
    wire [PW:0]   fv_r_usp = fv_route(hdm_tgt);
    wire [PW:0]   fv_r_fab = fv_route(is_m2s ? m_dpid : st_sdpid);
    wire [PW-1:0] fv_tgt   = hdm_tgt[PW-1:0];

    always @* begin
        if (fv_on && st_valid) begin
            // the staged "target >= N" flag is the staged target's (dec_thi is kept consistent
            // with dec_tgt by the configuration block; fv_switch_port forms it so)
            assert (hdm_thi == (hdm_tgt >= 12'(N)));
            // events of each outcome: the tag-conflict answer (an answer that cannot be routed is
            // a second message, dropped with its own event: models/switch _switch_answer) ...
            if (trk) begin
                if (c_drop) assert (c_dev[E_TAG_CONF] && $onehot(c_dev & FV_ERR & ~(16'd1 << E_TAG_CONF)));
                else        assert (c_dev == (16'd1 << E_TAG_CONF));
            end
            // ... and the message's own
            if (drop)
                assert ((dev & ~FV_ERR) == 16'd0 && $onehot(dev & FV_ERR));
            else if (own)
                assert (dev == (16'd1 << E_NXM_RD) || dev == (16'd1 << E_NXM_WR));
            else
                assert ((dev & FV_ERR) == 16'd0 && dev[is_m2s ? E_FWD_REQ : E_FWD_RSP] &&
                        !dev[is_m2s ? E_FWD_RSP : E_FWD_REQ]);
            // HBR request, decoder hit
            if (fv_req && my_role == ROLE_USP && !cfg_pbr && hdm_hit) begin
                if (hdm_tgt < N && cfg_en[fv_tgt]) assert (!drop && dst == fv_tgt);
                else if (hdm_tgt >= N) assert (drop && dev[E_MISROUTE]);
                else assert (drop && dev[E_EG_DIS]);
            end
            // decode miss
            if (fv_req && my_role == ROLE_USP && !hdm_hit) begin
                if (exp_k == 2'd0) assert (drop && dev[E_NXM_NONE]);
                else assert (!drop && own && dst == PW'(PORT) && dcls == ((exp_k == 2'd2) ? C_DRS : C_NDR));
            end
            // PBR request at the USP edge: routed by the decoder's DPID
            if (fv_req && my_role == ROLE_USP && cfg_pbr && hdm_hit) begin
                if (!fv_r_usp[PW]) assert (drop && dev[E_UNK_DPID]);
                else if (!drop) assert (dst == fv_r_usp[PW-1:0]);
            end
            // fabric port: routed by the message's DPID
            if (cfg_en[PORT] && my_role == ROLE_FAB && (!is_m2s || exp_k != 2'd3)) begin
                if (!fv_r_fab[PW]) assert (drop && dev[E_UNK_DPID]);
                else if (!drop) assert (dst == fv_r_fab[PW-1:0]);
            end
            // HBR response at a DSP: back to the requester recorded with its request
            if (cfg_en[PORT] && !is_m2s && my_role == ROLE_DSP && !cfg_pbr && ot_hit &&
                (ot_e_drs || !is_drs) && cfg_en[PW'(ot_e_req)] && ot_e_req < N)
                assert (!drop && dst == PW'(ot_e_req));
            cover (fv_req && my_role == ROLE_USP && cfg_pbr && hdm_hit && fv_r_usp[PW] && !drop);
            cover (fv_req && my_role == ROLE_USP && !cfg_pbr && hdm_hit && !drop);
        end
        if (fv_on && r_valid) begin
            // what stage 1 hands to stage 2: a queue for each outcome unless it is dropped; a
            // recorded message is not dropped; an outcome is kept only for a recorded message
            assert ($onehot0(r_noh) && $onehot0(r_coh));
            if (VOQ != 0) assert (r_drop == (r_noh == {NQ*4{1'b0}}) && r_cdrop == (r_coh == {NQ*4{1'b0}}));
            assert (!r_trk || !r_drop);
            // a tracked request's own queue is a class 0/1 queue, its answer's a class 2/3 one
            if (r_trk) assert ((r_noh & ~{NQ{4'b0011}}) == {NQ*4{1'b0}} && (r_coh & {NQ{4'b0011}}) == {NQ*4{1'b0}});
            assert (!r_tres || r_trk);
            assert (!r_tconf || r_tres);
        end
        if (fv_on) begin
            // stage 2: one queue at most; a message that leaves undropped writes one
            assert ($onehot0(q_we));
            if (fire) assert (ev == (ok_c ? r_cdev : r_dev));
            if (fire && !(ok_c ? r_cdrop : r_drop)) assert ($onehot(q_we));
            if (!fire) assert (q_we == {NQ*4{1'b0}} && ev == 16'd0);
            cover (fire && ok_c && !r_cdrop);
        end
    end
