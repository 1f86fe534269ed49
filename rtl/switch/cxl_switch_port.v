`default_nettype none
// One switch port, message level: ingress pipeline (round robin over the 4 switch classes), decode
// and route (HDM decode, PBR DPID lookup, HBR<->PBR edge conversion, decode-miss answers, response
// routing through the outstanding-request table), virtual output queues, egress buffers, and this
// port's outstanding-request table (used while the port is a DSP).
// Switch classes: 0 M2S Req, 1 M2S RwD (data), 2 S2M NDR, 3 S2M DRS (data).
// Routing and error rules follow models/switch/README.md; every dropped message raises one event.
//
// Pipeline (one message per cycle per port; each stage holds while the next one is busy):
//   input slots: one message per class, accepted while the slot is empty (in_ready from a flop),
//                and seen by the round robin in the cycle it arrives (no cycle added).
//   input cycle: the round robin picks a class; the HDM decode of both M2S inputs and the
//                outstanding-table lookup of both S2M inputs run in parallel and are staged with
//                the message (st_*).
//   stage 1 (st_*): decode and route: the message's egress and class, the header it leaves with,
//                its events, whether it must be recorded in a DSP's outstanding table, and the
//                switch's answer should that table find its key outstanding (tag conflict); all
//                registered (r_*).
//   stage 2 (r_*): the outstanding-table handshake (tk_* / tq_*) and the VOQ write.
// Outstanding requests are recorded from stage 2 (the model records them on ingress), so a second
// request with the same (LD-ID, Tag) toward a DSP is caught before it is queued and answered by the
// switch (tag_conflict). Each DSP table takes one record per cycle: the stage-2 requests compete
// round robin, and the table records the served one (or finds it outstanding) in the same cycle,
// whether or not its VOQ has room; the message then waits in stage 2 for the VOQ and does not ask
// again. A response entering a DSP deletes its table entry in its first cycle in stage 2.
// Table hazards: the keys of valid entries are unique (a record is made only when no valid entry
// has its key), so a lookup matches at most one entry. A lookup made in the input cycle is against
// the table as it is in that cycle; the only writes that can change a matched entry before the
// message uses it are deletes by this port's own responses ahead of it, and those are masked out
// of the staged match (del_oh) in the cycle they happen. Records made after the lookup are not
// seen (a response comes after its request has left the switch).
module cxl_switch_port #(
    parameter integer N         = 4,   // switch ports (2..16)
    parameter integer PORT      = 0,   // this port's number (0..N-1)
    parameter integer NDEC      = 4,   // HDM decoders
    parameter integer NRT       = 8,   // PBR routing-table entries
    parameter integer OT_DEPTH  = 16,  // outstanding requests tracked when this port is a DSP
    parameter integer VOQ       = 1,   // 1: one queue per (egress, class); 0: one FIFO per class
    parameter integer VOQ_DEPTH = 4,   // entries per queue (VOQ 0: VOQ_DEPTH * N per class FIFO)
    parameter integer PW        = (N > 1) ? $clog2(N) : 1   // port number width (derived)
) (
    input  wire                  clk,
    input  wire                  rst,
    // ingress messages
    input  wire [3:0]            in_valid,
    output wire [3:0]            in_ready,
    input  wire [4*128-1:0]      in_hdr,
    input  wire [2*512-1:0]      in_data,   // [0 +: 512] RwD, [512 +: 512] DRS
    // egress messages
    output wire [3:0]            out_valid,
    input  wire [3:0]            out_ready,
    output wire [4*128-1:0]      out_hdr,
    output wire [2*512-1:0]      out_data,
    // configuration (cxl_switch_cfg)
    input  wire                  cfg_pbr,
    input  wire                  cfg_poison,
    input  wire [N-1:0]          cfg_en,
    input  wire [N*2-1:0]        cfg_role,
    input  wire [N*12-1:0]       cfg_pid,
    input  wire [NDEC-1:0]       dec_valid,
    input  wire [NDEC*24-1:0]    dec_base,
    input  wire [NDEC*24-1:0]    dec_size,
    input  wire [NDEC*4-1:0]     dec_eiw,
    input  wire [NDEC*3-1:0]     dec_eig,
    input  wire [NDEC*3-1:0]     dec_b3,    // base mod 3, one-hot (cxl_hdm_decode)
    input  wire [NDEC*11-1:0]    dec_s,     // s = eIG + eIW[1:0] as a mask, bit i: i >= s (cxl_hdm_decode)
    input  wire [NDEC*16*12-1:0] dec_tgt,
    input  wire [NDEC*16-1:0]    dec_thi,   // target entry >= N (not a port number)
    input  wire [NRT-1:0]        rt_valid,
    input  wire [NRT*12-1:0]     rt_dpid,
    input  wire [NRT*PW-1:0]     rt_port,
    // crossbar, ingress side: every queue head is a crossbar input of its egress
    output wire [N*4-1:0]        head_valid, // [j*4 + c]: a message of class c for egress j
    output wire [N*4*128-1:0]    qo_hdr,     // [(j*4 + c)*128 +: 128]: its header
    output wire [N*2*512-1:0]    qo_data,    // [(j*2 + c/2)*512 +: 512]: data of RwD (c 1) / DRS (c 3)
    input  wire [N*4-1:0]        pop,        // egress j took the head of queue (j, c)
    // crossbar, egress side
    output wire [3:0]            eg_rdy,
    input  wire [3:0]            xi_cv,      // [c]: the crossbar brings a class-c message (at most one)
    input  wire [127:0]          xi_hdr,
    input  wire [511:0]          xi_data,
    // this ingress: the request in stage 2 asks DSP d's table to record it (bit d; at most one)
    output wire [N-1:0]          tk_req,
    output wire [19:0]           tk_key,     // {LD-ID, Tag} as the request leaves the DSP
    output wire                  tk_drs,     // completes with DRS (else NDR)
    output wire [11:0]           tk_rq,      // requester: ingress port (HBR) or SPID (PBR)
    input  wire [N-1:0]          tk_conf_in, // [d]: table d served this ingress: key outstanding
    input  wire [N-1:0]          tk_rec_in,  // [d]: table d served this ingress: recorded
    // this port's table: records requests of every ingress (bit/field i = ingress i)
    input  wire [N-1:0]          tq_req,     // ingress i asks to record here
    input  wire [N*20-1:0]       tq_key,
    input  wire [N-1:0]          tq_drs,
    input  wire [N*12-1:0]       tq_rq,
    output wire [N-1:0]          tq_conf,    // [i]: ingress i served, its key is outstanding here
    output wire [N-1:0]          tq_rec,     // [i]: ingress i served and recorded
    // one bit per counter (cxl_switch_cfg order), for the message that left stage 2
    output wire [15:0]           ev,
    output wire [$clog2(OT_DEPTH+1)-1:0] ot_used
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (PORT < 0 || PORT >= N) begin : g_bad_port
            cxl_switch_port_parameter_error_PORT_must_be_below_N u_stop ();
        end
        if (OT_DEPTH < 1) begin : g_bad_ot_depth
            cxl_switch_port_parameter_error_OT_DEPTH_must_be_at_least_1 u_stop ();
        end
        if (VOQ != 0 && VOQ != 1) begin : g_bad_voq
            cxl_switch_port_parameter_error_VOQ_must_be_0_or_1 u_stop ();
        end
        if (VOQ_DEPTH < 2) begin : g_bad_voq_depth
            cxl_switch_port_parameter_error_VOQ_DEPTH_must_be_at_least_2 u_stop ();
        end
        if (PW != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_pw
            cxl_switch_port_parameter_error_PW_must_be_derived u_stop ();
        end
    endgenerate

`include "cxl_defs.vh"

    localparam [1:0] ROLE_USP = 2'd0, ROLE_DSP = 2'd1, ROLE_FAB = 2'd2;
    localparam [1:0] C_RWD = 2'd1, C_NDR = 2'd2, C_DRS = 2'd3;
    // counter / event indices (cxl_switch_cfg, models.switch.SwitchCounters order)
    localparam integer E_FWD_REQ = 0, E_FWD_RSP = 1, E_POISON = 2, E_NXM_RD = 3, E_NXM_WR = 4,
                       E_NXM_NONE = 5, E_TAG_CONF = 6, E_UNK_DPID = 7, E_UNEXP = 8, E_MISROUTE = 9,
                       E_BAD_DIR = 10, E_BAD_OP = 11, E_RX_DIS = 13, E_EG_DIS = 14;
    localparam [1:0]  META_NOOP = 2'b11;
    localparam integer OTW = $clog2(OT_DEPTH + 1);
    localparam integer QDEPTH = (VOQ != 0) ? VOQ_DEPTH : VOQ_DEPTH * N;  // same storage either way
    localparam integer NQ = (VOQ != 0) ? N : 1;
    // route lookup candidates: the N ports' own PIDs, then the NRT table entries, in priority
    // order; each carries FW bits of egress fields
    localparam integer RC = N + NRT;
    localparam integer FW = N + PW + 4;

    // ---------------------------------------------------------------- input cycle and stage 1
    reg          st_valid;
    reg [1:0]    st_cls;
    reg [127:0]  st_hdr;
    reg [11:0]   st_sdpid;                       // DPID field of an S2M message (NDR / DRS place)
    reg [1:0]    st_expk;                        // expected completion of an M2S message
    reg [511:0]  st_data;
    wire [3:0]   in_gnt;
    wire [1:0]   in_idx;
    wire         in_any;
    wire         s2_free;                        // stage 2 takes the message of stage 1
    wire         st_free;                        // stage 1 takes a new message
    wire         st_go;                          // ... and there is one (st_free && in_any)

    // Input slots: one per class, so that in_ready comes from a flop (the late table answer that
    // decides whether stage 1 frees does not reach the sender). A message offered while its slot
    // is empty is accepted; the round robin sees it in the same cycle (no added latency) and,
    // when it is not taken then, it waits in the slot, which holds off that class's next message.
    // The round robin thus sees the same requests as it would see the senders' held messages.
    reg  [3:0]       sk_v;
    reg  [4*128-1:0] sk_hdr;
    reg  [2*512-1:0] sk_data;
    wire [3:0]       e_valid = in_valid | sk_v;      // the message of each class: slot, else input
    wire [4*128-1:0] e_hdr;
    wire [2*512-1:0] e_data;
    genvar gi;
    generate
        for (gi = 0; gi < 4; gi = gi + 1) begin : g_in
            assign e_hdr[gi*128 +: 128] = sk_v[gi] ? sk_hdr[gi*128 +: 128] : in_hdr[gi*128 +: 128];
        end
    endgenerate
    assign e_data[0 +: 512]   = sk_v[C_RWD] ? sk_data[0 +: 512] : in_data[0 +: 512];
    assign e_data[512 +: 512] = sk_v[C_DRS] ? sk_data[512 +: 512] : in_data[512 +: 512];
    assign in_ready = ~sk_v;
    rr_arbiter #(.N(4)) u_in_arb (.clk(clk), .rst(rst), .req(e_valid), .advance(st_free),
                                  .grant(in_gnt), .grant_idx(in_idx), .any(in_any));
    always @(posedge clk) begin
        if (rst) sk_v <= 4'd0;
        else     sk_v <= e_valid & ~(in_gnt & {4{st_free}});   // held unless stage 1 takes it
    end
    integer si;
    always @(posedge clk) begin
        for (si = 0; si < 4; si = si + 1)
            if (!sk_v[si]) sk_hdr[si*128 +: 128] <= in_hdr[si*128 +: 128];
        if (!sk_v[C_RWD]) sk_data[0 +: 512] <= in_data[0 +: 512];
        if (!sk_v[C_DRS]) sk_data[512 +: 512] <= in_data[512 +: 512];
    end

    always @(posedge clk) begin
        if (rst) st_valid <= 1'b0;
        else if (st_free) st_valid <= in_any;
    end
    always @(posedge clk) begin
        if (st_go) begin
            st_cls  <= in_idx;
            st_hdr  <= e_hdr[32'(in_idx)*128 +: 128];
            st_sdpid <= (in_idx == C_DRS) ? e_hdr[3*128 + CXL_S2M_DRS_DPID_LSB +: 12]
                                          : e_hdr[2*128 + CXL_S2M_NDR_DPID_LSB +: 12];
            st_expk  <= (in_idx == C_RWD) ? exp_of(1'b1, e_hdr[1*128 + CXL_M2S_REQ_MEMOP_LSB +: 4])
                                          : exp_of(1'b0, e_hdr[0*128 + CXL_M2S_REQ_MEMOP_LSB +: 4]);
            st_data <= (in_idx == C_DRS) ? e_data[512 +: 512] : e_data[0 +: 512];
        end
    end

    // ---------------------------------------------------------------- fields of the message in stage 1
    wire        is_m2s = !st_cls[1];
    wire        is_rwd = (st_cls == C_RWD);
    wire        is_drs = (st_cls == C_DRS);
    wire [3:0]  m_op   = st_hdr[CXL_M2S_REQ_MEMOP_LSB +: 4];
    wire [15:0] m_tag  = st_hdr[CXL_M2S_REQ_TAG_LSB +: 16];
    wire        m_pois = is_rwd & st_hdr[CXL_M2S_RWD_POISON_LSB];
    wire [3:0]  m_ldid = st_hdr[CXL_M2S_REQ_LDID_LSB +: 4];
    wire [11:0] m_spid = st_hdr[CXL_M2S_REQ_SPID_LSB +: 12];
    wire [11:0] m_dpid = st_hdr[CXL_M2S_REQ_DPID_LSB +: 12];
    wire        s_pois = is_drs & st_hdr[CXL_S2M_DRS_POISON_LSB];
    wire [1:0]  my_role = cfg_role[PORT*2 +: 2];
    wire [11:0] my_pid  = cfg_pid[PORT*12 +: 12];

    // expected completion of an M2S message (0 none, 1 NDR, 2 DRS, 3 reserved opcode), decoded in
    // the input cycle (st_expk)
    function automatic [1:0] exp_of(input rwd, input [3:0] op);
        begin
            if (rwd) begin
                case (op)
                    CXL_M2S_RWD_OP_MEMWR, CXL_M2S_RWD_OP_MEMWRPTL, CXL_M2S_RWD_OP_BICONFLICT: exp_of = 2'd1;
                    default: exp_of = 2'd3;
                endcase
            end else begin
                case (op)
                    CXL_M2S_REQ_OP_MEMINV, CXL_M2S_REQ_OP_MEMINVNT, CXL_M2S_REQ_OP_MEMCLNEVCT: exp_of = 2'd1;
                    CXL_M2S_REQ_OP_MEMRD, CXL_M2S_REQ_OP_MEMRDDATA: exp_of = 2'd2;
                    CXL_M2S_REQ_OP_MEMRDFWD, CXL_M2S_REQ_OP_MEMWRFWD, CXL_M2S_REQ_OP_MEMSPECRD: exp_of = 2'd0;
                    default: exp_of = 2'd3;
                endcase
            end
        end
    endfunction
    wire [1:0] exp_k = st_expk;

    // the switch's own answer to a request it cannot deliver (decode miss, tag conflict)
    reg [127:0] ans_hdr;
    reg [1:0]   ans_cls;
    always @* begin
        ans_hdr = 128'd0;
        ans_cls = C_NDR;
        if (exp_k == 2'd2) begin
            ans_cls = C_DRS;
            ans_hdr[CXL_S2M_DRS_MEMOP_LSB +: 3] = CXL_S2M_DRS_OP_MEMDATA_NXM;
            ans_hdr[CXL_S2M_DRS_METAFIELD_LSB +: 2] = META_NOOP;
            ans_hdr[CXL_S2M_DRS_TAG_LSB +: 16] = m_tag;
            ans_hdr[CXL_S2M_DRS_POISON_LSB] = cfg_poison;
            ans_hdr[CXL_S2M_DRS_LDID_LSB +: 4] = cfg_pbr ? 4'd0 : m_ldid;
        end else begin
            ans_hdr[CXL_S2M_NDR_MEMOP_LSB +: 3] = (is_rwd && m_op == CXL_M2S_RWD_OP_BICONFLICT)
                                                  ? CXL_S2M_NDR_OP_BI_CONFLICTACK : CXL_S2M_NDR_OP_CMP;
            ans_hdr[CXL_S2M_NDR_METAFIELD_LSB +: 2] = META_NOOP;
            ans_hdr[CXL_S2M_NDR_TAG_LSB +: 16] = m_tag;
            ans_hdr[CXL_S2M_NDR_LDID_LSB +: 4] = cfg_pbr ? 4'd0 : m_ldid;
        end
    end

    // ---------------------------------------------------------------- HDM decode (input cycle)
    // The decode runs in the input cycle, on the two M2S inputs (Req and RwD) in parallel, and its
    // result is staged with the message: the decoder (range compares and mod-3 residue trees of
    // the HPA) is then not in series with the routing of the message in stage 1. A message is
    // decoded against the decoders committed when it enters stage 1 (S2M messages: unused). Each
    // target entry carries its "not a port number" flag (dec_thi, registered by the
    // configuration), so stage 1 reads a flag instead of comparing the target with N.
    wire [NDEC*16*13-1:0] dec_ent;
    genvar gx;
    generate
        for (gx = 0; gx < NDEC * 16; gx = gx + 1) begin : g_ent
            assign dec_ent[gx*13 +: 13] = {dec_thi[gx], dec_tgt[gx*12 +: 12]};
        end
    endgenerate
    wire        hq_hit, hw_hit;
    wire [12:0] hq_tgt, hw_tgt;
    reg         hdm_hit;
    reg  [11:0] hdm_tgt;
    reg         hdm_thi;   // hdm_tgt >= N
    cxl_hdm_decode #(.NDEC(NDEC), .MAXW(16), .TW(13)) u_hdm_req (
        .hpa({e_hdr[0*128 + CXL_M2S_REQ_ADDR_LSB +: 46], e_hdr[0*128 + CXL_M2S_REQ_ADDR5_LSB], 5'd0}),
        .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size), .dec_eiw(dec_eiw),
        .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s), .dec_tgt(dec_ent), .hit(hq_hit),
        .target(hq_tgt));
    cxl_hdm_decode #(.NDEC(NDEC), .MAXW(16), .TW(13)) u_hdm_rwd (
        .hpa({e_hdr[1*128 + CXL_M2S_REQ_ADDR_LSB +: 46], 1'b0, 5'd0}),   // RwD: no Addr[5]
        .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size), .dec_eiw(dec_eiw),
        .dec_eig(dec_eig), .dec_b3(dec_b3), .dec_s(dec_s), .dec_tgt(dec_ent), .hit(hw_hit),
        .target(hw_tgt));
    always @(posedge clk) begin
        if (st_go) begin
            hdm_hit <= (in_idx == C_RWD) ? hw_hit : hq_hit;
            {hdm_thi, hdm_tgt} <= (in_idx == C_RWD) ? hw_tgt : hq_tgt;
        end
    end

    // ---------------------------------------------------------------- this port's outstanding table
    reg  [OT_DEPTH-1:0] ot_v;
    reg  [19:0]         ot_key [0:OT_DEPTH-1];   // {LD-ID, Tag}
    reg                 ot_drs [0:OT_DEPTH-1];
    reg  [11:0]         ot_req [0:OT_DEPTH-1];
    reg  [OT_DEPTH-1:0] del_oh;                  // entry deleted this cycle (one-hot, or none)
    integer             q;

    // lookup of the S2M inputs (NDR and DRS in parallel, input cycle): the matching entry as a
    // one-hot (at most one, the keys being unique), without the entry deleted in this cycle, and
    // its fields by AND-OR
    wire [19:0]         ndr_key = {e_hdr[2*128 + CXL_S2M_NDR_LDID_LSB +: 4], e_hdr[2*128 + CXL_S2M_NDR_TAG_LSB +: 16]};
    wire [19:0]         drs_key = {e_hdr[3*128 + CXL_S2M_DRS_LDID_LSB +: 4], e_hdr[3*128 + CXL_S2M_DRS_TAG_LSB +: 16]};
    reg  [OT_DEPTH-1:0] ndr_m, drs_m;
    reg                 ndr_drs, drs_drs;
    reg  [11:0]         ndr_req, drs_req;
    always @* begin
        ndr_drs = 1'b0; drs_drs = 1'b0; ndr_req = 12'd0; drs_req = 12'd0;
        for (q = 0; q < OT_DEPTH; q = q + 1) begin
            ndr_m[q] = ot_v[q] && !del_oh[q] && ot_key[q] == ndr_key;
            drs_m[q] = ot_v[q] && !del_oh[q] && ot_key[q] == drs_key;
            ndr_drs  = ndr_drs | (ndr_m[q] & ot_drs[q]);
            drs_drs  = drs_drs | (drs_m[q] & ot_drs[q]);
            ndr_req  = ndr_req | (ndr_m[q] ? ot_req[q] : 12'd0);
            drs_req  = drs_req | (drs_m[q] ? ot_req[q] : 12'd0);
        end
    end
    // staged lookup: the entry stays matched until this port deletes it (a response ahead of this
    // one that completed the same request)
    reg  [OT_DEPTH-1:0] st_om;
    reg                 ot_e_drs;
    reg  [11:0]         ot_e_req;
    wire [OT_DEPTH-1:0] ot_m   = st_om & ~del_oh;
    wire                ot_hit = |ot_m;
    always @(posedge clk) begin
        if (st_go) begin
            st_om    <= (in_idx == C_DRS) ? drs_m : ndr_m;
            ot_e_drs <= (in_idx == C_DRS) ? drs_drs : ndr_drs;
            ot_e_req <= (in_idx == C_DRS) ? drs_req : ndr_req;
        end else begin
            st_om    <= ot_m;
        end
    end

    // records from stage 2 of every ingress: one per cycle, round robin. Each ingress's key is
    // compared with every entry in parallel (before the pick) but the one deleted in this cycle;
    // the served one is recorded at the lowest free entry unless its key is outstanding (a tag
    // conflict: its ingress answers it).
    wire [N-1:0]        tq_gnt;
    wire [PW-1:0]       tq_idx;
    wire                tq_any;
    wire [N-1:0]        tq_m;                    // [i]: ingress i's key is outstanding here
    wire [OT_DEPTH-1:0] ot_foh;                  // lowest free entry
    wire                ot_full = &ot_v;
    // Each (ingress, entry) match is one AND over the key's bit equalities and the entry's live
    // bit, kept as a net so that ABC maps it as a balanced tree (about 6 levels) and the OR over
    // the entries after it (4 at 16 entries); the served ingress's grant is the last AND.
    wire [OT_DEPTH-1:0] ot_live = ot_v & ~del_oh;
    genvar gr, gq;
    generate
        for (gr = 0; gr < N; gr = gr + 1) begin : g_tqm
            (* keep *) wire [OT_DEPTH-1:0] em;   // [q]: entry q is live and holds ingress gr's key
            for (gq = 0; gq < OT_DEPTH; gq = gq + 1) begin : g_e
                assign em[gq] = &{ot_live[gq], ~(ot_key[gq] ^ tq_key[gr*20 +: 20])};
            end
            assign tq_m[gr] = |em;
        end
    endgenerate
    genvar go;
    generate
        for (go = 0; go < OT_DEPTH; go = go + 1) begin : g_free
            if (go == 0) begin : g_0
                assign ot_foh[go] = !ot_v[go];
            end else begin : g_n
                assign ot_foh[go] = !ot_v[go] && (&ot_v[go-1:0]);
            end
        end
    endgenerate
    assign tq_conf = tq_gnt & tq_m;
    assign tq_rec  = tq_gnt & ~tq_m & {N{!ot_full}};
    wire ot_ins = |tq_rec;
    rr_arbiter #(.N(N)) u_tq_arb (.clk(clk), .rst(rst), .req(tq_req), .advance(|(tq_conf | tq_rec)),
                                  .grant(tq_gnt), .grant_idx(tq_idx), .any(tq_any));

    // ---------------------------------------------------------------- route lookups (PBR)
    // PBR route lookup of one DPID: an edge port (USP or DSP) whose own PID is the key routes to
    // that port (the lowest such port), else the lowest valid route entry with that DPID gives the
    // egress. Each candidate carries FW bits of egress fields {4 flags, port, port one-hot} that
    // depend on the configuration and on the kind of message only, so they are ready before the
    // key; cxl_switch_lookup compares the key with every candidate in parallel and keeps the
    // lowest hit by a binary tree of 2:1 selects. Result: {hit, fields}, the fields all zero
    // without a hit.
    // flags of the message's route (F_*) and of the requester's route for a tag-conflict answer
    // (C_*), above the port one-hot [0 +: N] (zero when the egress is not usable: F_OK / C_OK low)
    // and the port [N +: PW]
    localparam integer F_OK = N + PW, F_MIS = N + PW + 1, F_TRK = N + PW + 2, F_CLR = N + PW + 3;
    localparam integer C_OK = N + PW, C_MIS = N + PW + 1, C_FAB = N + PW + 2;
    wire             rsp_k = !is_m2s;                  // the message is routed as a response
    wire [RC*FW-1:0] rf_m, rf_c;
    genvar gk;
    generate
        for (gk = 0; gk < RC; gk = gk + 1) begin : g_rc
            wire [PW-1:0] rp;
            wire [1:0]    rr = cfg_role[32'(rp)*2 +: 2];
            wire          re = cfg_en[rp];
            if (gk < N) begin : g_pid
                assign rp = PW'(gk);
            end else begin : g_rt
                assign rp = rt_port[(gk-N)*PW +: PW];
            end
            // misroute: a U-turn, a request to a USP or a response to a DSP; ok: neither a
            // misroute nor a disabled egress; trk: a request that reaches a DSP (recorded);
            // clr: the edge conversion (a request to a DSP loses SPID/DPID, a response to a
            // USP its DPID). A tag-conflict answer goes to a USP or fabric port.
            wire mis  = rp == PW'(PORT) || rr == (rsp_k ? ROLE_DSP : ROLE_USP);
            wire ok   = !mis && re;
            wire c_ok = rr != ROLE_DSP && re;
            assign rf_m[gk*FW +: FW] = {rr == (rsp_k ? ROLE_USP : ROLE_DSP), ok && rr == ROLE_DSP, mis, ok,
                                        rp, ok ? N'(1) << rp : {N{1'b0}}};
            assign rf_c[gk*FW +: FW] = {1'b0, rr == ROLE_FAB, rr == ROLE_DSP, c_ok,
                                        rp, c_ok ? N'(1) << rp : {N{1'b0}}};
        end
    endgenerate
    // the message's DPID: a USP's decoder target, a fabric request's DPID, the requester recorded
    // at a DSP for a response, a fabric response's DPID (used only for PBR routing)
    wire [11:0]   lk_dpid = is_m2s ? ((my_role == ROLE_USP) ? hdm_tgt : m_dpid)
                                   : ((my_role == ROLE_DSP) ? ot_e_req : st_sdpid);
    wire [FW:0]   rt;
    wire          rt_hit = rt[FW];
    wire [PW-1:0] rt_dst = rt[N +: PW];
    // requester of a request reaching a DSP (PBR: a USP's own PID, else the SPID), and its route
    // for a tag-conflict answer
    wire [11:0]   rq_pbr = (my_role == ROLE_USP) ? my_pid : m_spid;
    wire [FW:0]   rq;
    // the two lookups: the message's DPID and the requester's PID, over the same candidates (an
    // edge port's PID, a valid route entry's DPID) with their own fields. The lookup is a module
    // of its own: the mapper then shapes the compares and the tree by their own depth, where
    // inside this module they share mapping runs with the decisions after them and came out
    // deeper (rtl/README-timing.md, cxl_switch_port).
    wire [RC-1:0]    lc_v;
    wire [RC*12-1:0] lc_id;
    genvar gl;
    generate
        for (gl = 0; gl < RC; gl = gl + 1) begin : g_lc
            if (gl < N) begin : g_pid
                assign lc_v[gl] = cfg_role[gl*2 +: 2] != ROLE_FAB;
                assign lc_id[gl*12 +: 12] = cfg_pid[gl*12 +: 12];
            end else begin : g_rt
                assign lc_v[gl] = rt_valid[gl-N];
                assign lc_id[gl*12 +: 12] = rt_dpid[(gl-N)*12 +: 12];
            end
        end
    endgenerate
    cxl_switch_lookup #(.NC(RC), .FW(FW)) u_lk_m (
        .key(lk_dpid), .cand_v(lc_v), .cand_id(lc_id), .cand_f(rf_m), .hit(rt[FW]), .f(rt[0 +: FW]));
    cxl_switch_lookup #(.NC(RC), .FW(FW)) u_lk_c (
        .key(rq_pbr), .cand_v(lc_v), .cand_id(lc_id), .cand_f(rf_c), .hit(rq[FW]), .f(rq[0 +: FW]));
    wire          rq_hit = rq[FW];

    // ---------------------------------------------------------------- stage 1: decode and route
    // First what does not depend on the route lookup (p_*), then the lookup's part on top of it.
    reg          p_drop;   // dropped before any routing
    reg [15:0]   p_dev;
    reg [1:0]    dcls;
    reg [127:0]  p_hdr;
    reg          ot_del;
    reg          use_rt;   // final egress comes from the route lookup
    reg          rsp_rt;   // routed message is a response (else a request)
    reg          own;      // switch-made answer
    reg          p_dsp;    // egress is a DSP (HBR request)
    reg [11:0]   rq_id;    // requester recorded with a tracked request

    always @* begin
        p_drop = 1'b0; dcls = st_cls; p_hdr = st_hdr;
        p_dev = 16'd0; ot_del = 1'b0; use_rt = 1'b0; rsp_rt = 1'b0;
        own = 1'b0; p_dsp = 1'b0; rq_id = 12'd0;
        if (!cfg_en[PORT]) begin
            p_drop = 1'b1; p_dev[E_RX_DIS] = 1'b1;
        end else if (is_m2s) begin
            if (my_role == ROLE_DSP) begin
                p_drop = 1'b1; p_dev[E_BAD_DIR] = 1'b1;
            end else if (exp_k == 2'd3) begin
                p_drop = 1'b1; p_dev[E_BAD_OP] = 1'b1;
            end else if (my_role == ROLE_USP && !hdm_hit) begin
                // decode miss: the switch answers (reads: DRS MemData-NXM, writes: NDR Cmp)
                if (exp_k == 2'd0) begin
                    p_drop = 1'b1; p_dev[E_NXM_NONE] = 1'b1;
                end else begin
                    own = 1'b1;
                    p_hdr = ans_hdr;
                    dcls = ans_cls;
                    if (exp_k == 2'd2) p_dev[E_NXM_RD] = 1'b1;
                    else               p_dev[E_NXM_WR] = 1'b1;
                end
            end else if (my_role == ROLE_USP && !cfg_pbr) begin
                // HBR: decoder target is the egress port (p_dst)
                if (hdm_thi) begin
                    p_drop = 1'b1; p_dev[E_MISROUTE] = 1'b1;
                end else begin
                    p_dsp = 1'b1;
                    rq_id = 12'(PORT);
                end
            end else begin
                // PBR: the USP edge adds SPID/DPID (drops LD-ID, Addr[5]); fabric keeps the DPID
                use_rt = 1'b1;
                rq_id = rq_pbr;
                if (my_role == ROLE_USP) begin
                    p_hdr[CXL_M2S_REQ_SPID_LSB +: 12] = my_pid;
                    p_hdr[CXL_M2S_REQ_DPID_LSB +: 12] = hdm_tgt;
                    p_hdr[CXL_M2S_REQ_LDID_LSB +: 4] = 4'd0;
                    if (!is_rwd) p_hdr[CXL_M2S_REQ_ADDR5_LSB] = 1'b0;
                end
            end
        end else begin
            if (my_role == ROLE_USP) begin
                p_drop = 1'b1; p_dev[E_BAD_DIR] = 1'b1;
            end else if (my_role == ROLE_DSP) begin
                if (!ot_hit || (!ot_e_drs && is_drs)) begin
                    p_drop = 1'b1; p_dev[E_UNEXP] = 1'b1;
                end else begin
                    ot_del = (ot_e_drs == is_drs);
                    if (cfg_pbr) begin
                        use_rt = 1'b1; rsp_rt = 1'b1;
                        if (is_drs) begin
                            p_hdr[CXL_S2M_DRS_DPID_LSB +: 12] = ot_e_req;
                            p_hdr[CXL_S2M_DRS_LDID_LSB +: 4] = 4'd0;
                        end else begin
                            p_hdr[CXL_S2M_NDR_DPID_LSB +: 12] = ot_e_req;
                            p_hdr[CXL_S2M_NDR_LDID_LSB +: 4] = 4'd0;
                        end
                    end
                    // HBR: back to the recorded requester port (p_dst)
                end
            end else begin
                use_rt = 1'b1; rsp_rt = 1'b1;
            end
        end
    end

    // egress when not routed by DPID (used only then): a decode-miss answer goes back to this port
    // (enabled, else the message was dropped on entry), an HBR request to its decoder target, an
    // HBR response to its recorded requester; and whether that egress is enabled
    wire [PW-1:0] p_dst = is_m2s ? (hdm_hit ? PW'(hdm_tgt) : PW'(PORT)) : PW'(ot_e_req);
    wire          p_en  = is_m2s ? (!hdm_hit || cfg_en[PW'(hdm_tgt)]) : cfg_en[PW'(ot_e_req)];
    // PBR routing of the message by its DPID: unknown DPID, misroute, disabled egress, in that
    // order; a request to a DSP edge goes back to HBR, a response to a USP edge loses its DPID
    // (clr_m / clr_s: done on the way into the queues, in stage 2)
    wire          r_unk = use_rt && !rt_hit;
    wire          drop  = p_drop || !(use_rt ? rt[F_OK] : p_en);
    wire [PW-1:0] dst   = use_rt ? rt_dst : p_dst;
    wire [N-1:0]  d_poh = use_rt ? rt[0 +: N] : (p_en ? N'(1) << p_dst : {N{1'b0}});   // egress, if usable
    // requests leaving a DSP are recorded so the response finds its requester
    wire          trk   = !p_drop && is_m2s && !own && exp_k != 2'd0 && (use_rt ? rt[F_TRK] : (p_dsp && p_en));
    wire          clr_m = use_rt && !rsp_rt && rt[F_CLR];
    wire          clr_s = use_rt && rsp_rt && rt[F_CLR];
    wire [127:0]  dhdr  = p_hdr;
    reg [15:0]    dev;
    always @* begin
        dev = p_dev;
        if (!p_drop) begin
            dev[E_UNK_DPID] = r_unk;
            dev[E_MISROUTE] = use_rt && rt_hit && rt[F_MIS];
            dev[E_EG_DIS]   = use_rt ? (rt_hit && !rt[F_OK] && !rt[F_MIS]) : !p_en;
        end
        if (!drop && !own) begin
            dev[E_FWD_REQ] = is_m2s;
            dev[E_FWD_RSP] = !is_m2s;
            dev[E_POISON]  = m_pois | s_pois;
        end
    end

    // tag-conflict answer: to the requester (HBR: this ingress; PBR: routed by its PID)
    reg          c_drop;
    reg [PW-1:0] c_dst;
    reg [N-1:0]  c_poh;
    reg [127:0]  c_hdr;
    reg [15:0]   c_dev;
    always @* begin
        c_drop = 1'b0; c_dst = PW'(PORT); c_poh = N'(1) << PORT; c_hdr = ans_hdr; c_dev = 16'd0;
        c_dev[E_TAG_CONF] = 1'b1;
        if (cfg_pbr) begin
            c_dst = rq[N +: PW];
            c_poh = rq[0 +: N];
            c_drop = !rq[C_OK];
            c_dev[E_UNK_DPID] = !rq_hit;
            c_dev[E_MISROUTE] = rq_hit && rq[C_MIS];
            c_dev[E_EG_DIS] = rq_hit && !rq[C_OK] && !rq[C_MIS];
            if (rq[C_FAB]) begin
                if (exp_k == 2'd2) c_hdr[CXL_S2M_DRS_DPID_LSB +: 12] = rq_pbr;
                else               c_hdr[CXL_S2M_NDR_DPID_LSB +: 12] = rq_pbr;
            end
        end else if (!cfg_en[PORT]) begin
            c_drop = 1'b1; c_poh = {N{1'b0}}; c_dev[E_EG_DIS] = 1'b1;
        end
    end

    // the queue each outcome writes (one-hot over the NQ*4 queues, none when dropped): the
    // message's own, and the tag-conflict answer's (used only when the message is recorded)
    reg [NQ*4-1:0] n_oh, c_oh;
    always @* begin
        for (q = 0; q < NQ * 4; q = q + 1) begin
            n_oh[q] = !p_drop && dcls == 2'(q % 4) && (VOQ == 0 ? !drop : d_poh[q / 4]);
            c_oh[q] = ans_cls == 2'(q % 4) && (VOQ == 0 ? !c_drop : c_poh[q / 4]);
        end
    end

    // ---------------------------------------------------------------- stage 2: table and VOQ write
    // A request must leave its key in the table of its DSP before it is queued: it asks that
    // table (tk_req) until served; served, it is either recorded (then queued as decided in
    // stage 1) or found outstanding (then the switch's answer is queued instead). The outcome is
    // kept (r_tres, r_tconf) while the message waits for its queue. Requests go to class 0/1
    // queues and answers to class 2/3 ones, so each queue's input is fixed by stage 1 and only the
    // write enables depend on the table.
    reg            r_valid;
    reg            r_drop, r_cdrop, r_trk, r_tres, r_tconf, r_m2s, r_clr_m, r_clr_s;
    reg [N-1:0]    r_doh;
    reg [NQ*4-1:0] r_noh, r_coh;
    reg [127:0]    r_hdr_m, r_hdr_s;     // header into the class 0/1 and the class 2/3 queues (for an
                                         // M2S message the latter is the tag-conflict answer)
    reg [PW-1:0]   r_dst_m, r_dst_s;     // egress of the message in those queues (VOQ 0)
    reg [511:0]    r_data;
    reg [15:0]     r_dev, r_cdev;
    reg [19:0]     r_key;
    reg            r_drs;
    reg [11:0]     r_rq;
    wire [NQ*4-1:0] qrdy;                 // queue q can take a message

    wire conf_now = |tk_conf_in;          // tables serve only the ingress that asks them
    wire rec_now  = |tk_rec_in;
    wire ok_c = (r_tres && r_tconf) || conf_now;              // must be answered (tag conflict)
    // queue write enables: the message's own queue when it may take its stage-1 decision (not
    // tracked, recorded earlier or now), the answer's queue when it must be answered (a tag
    // conflict found earlier or now). The table's answer (conf_now, rec_now, the latest inputs)
    // meets terms formed from registers in the last AND-OR. The table answers only a tracked
    // request, whose own queue is a class 0/1 queue and whose answer's a class 2/3 one, so a
    // class 0/1 queue takes only rec_now and a class 2/3 queue only conf_now.
    wire [NQ*4-1:0] w_n = r_noh & qrdy & {NQ*4{r_valid}};
    wire [NQ*4-1:0] w_c = r_coh & qrdy & {NQ*4{r_valid}};
    // The terms formed from registers are kept nets, so that the answer meets them in one AND and
    // one OR (the mapper otherwise factors the queue's write term out of an OR with the answer).
    wire [NQ*4-1:0] q_lo = {NQ{4'b0011}};   // class 0/1 queues
    (* keep *) wire [NQ*4-1:0] q_we_e = (w_n & {NQ*4{!r_trk || (r_tres && !r_tconf)}})
                                       | (w_c & {NQ*4{r_tres && r_tconf}});
    (* keep *) wire [NQ*4-1:0] q_we_r = w_n & q_lo;    // takes the table's "recorded" answer
    (* keep *) wire [NQ*4-1:0] q_we_c = w_c & ~q_lo;   // takes its "outstanding" answer
    wire [NQ*4-1:0] q_we = q_we_e | (q_we_r & {NQ*4{rec_now}}) | (q_we_c & {NQ*4{conf_now}});
    // leaves this cycle: the terms that do not wait for the table are formed first
    wire can_n  = r_valid && (r_drop || |(r_noh & qrdy));     // its own outcome can be taken
    wire can_c  = r_valid && (r_cdrop || |(r_coh & qrdy));    // the answer can be taken
    wire fire_k = ((!r_trk || (r_tres && !r_tconf)) && can_n) || (r_tres && r_tconf && can_c);
    wire fire   = fire_k || (conf_now && can_c) || (rec_now && can_n);
    // Stage 2 leaves, stage 1 frees and the input cycle takes a message: each is an OR of terms
    // formed from registers (kept) and of the table's answer ANDed with them last, so the answer
    // (which arrives late, after the table's key match and grant) passes two gate levels.
    (* keep *) wire s2_early = !r_valid || fire_k;
    (* keep *) wire st_early = !st_valid || s2_early;
    (* keep *) wire go_early = in_any && st_early;
    (* keep *) wire go_c     = in_any && can_c;
    (* keep *) wire go_n     = in_any && can_n;
    assign s2_free = s2_early || (conf_now && can_c) || (rec_now && can_n);
    assign st_free = st_early || (conf_now && can_c) || (rec_now && can_n);
    assign st_go   = go_early || (conf_now && go_c) || (rec_now && go_n);
    // a response leaving stage 1 for stage 2 (deletes its table entry there), in the same form
    (* keep *) wire del_pre  = st_valid && ot_del;
    (* keep *) wire del_c    = del_pre && can_c;
    (* keep *) wire del_n    = del_pre && can_n;
    wire            del_go   = (del_pre && s2_early) || (conf_now && del_c) || (rec_now && del_n);
    assign tk_req  = r_doh & {N{r_valid && r_trk && !r_tres}};
    assign tk_key  = r_key;
    assign tk_drs  = r_drs;
    assign tk_rq   = r_rq;
    assign ev = fire ? (ok_c ? r_cdev : r_dev) : 16'd0;

    always @(posedge clk) begin
        if (rst) begin
            r_valid <= 1'b0;
            del_oh  <= {OT_DEPTH{1'b0}};
        end else begin
            if (s2_free) r_valid <= st_valid;
            // a response leaving stage 1 deletes the entry it completes in its first stage-2 cycle
            del_oh <= del_go ? ot_m : {OT_DEPTH{1'b0}};
        end
    end
    always @(posedge clk) begin
        if (s2_free) begin
            r_drop   <= drop;
            r_cdrop  <= c_drop;
            r_trk    <= trk;
            r_tres   <= 1'b0;
            r_tconf  <= 1'b0;
            r_m2s    <= is_m2s;
            r_clr_m  <= clr_m;
            r_clr_s  <= clr_s;
            r_doh    <= d_poh;
            r_noh    <= n_oh;
            r_coh    <= c_oh;
            r_hdr_m  <= dhdr;
            r_hdr_s  <= (is_m2s && !own) ? c_hdr : dhdr;
            r_dst_m  <= dst;
            r_dst_s  <= (is_m2s && !own) ? c_dst : dst;
            r_data   <= st_data;
            r_dev    <= dev;
            r_cdev   <= c_dev;
            r_key    <= {dhdr[CXL_M2S_REQ_LDID_LSB +: 4], dhdr[CXL_M2S_REQ_TAG_LSB +: 16]};
            r_drs    <= (exp_k == 2'd2);
            r_rq     <= rq_id;
        end else begin
            r_tres   <= r_tres || conf_now || rec_now;
            r_tconf  <= r_tconf || conf_now;
        end
    end

    // ---------------------------------------------------------------- virtual output queues
    genvar gj, gc, gn;
    generate
        for (gj = 0; gj < NQ; gj = gj + 1) begin : g_q
            for (gc = 0; gc < 4; gc = gc + 1) begin : g_c
                localparam integer HAS_D = gc % 2;
                localparam integer DW = HAS_D * 512;
                localparam integer XW = (VOQ != 0) ? 0 : PW;
                localparam integer W = 128 + DW + XW;
                localparam integer QI = gj * 4 + gc;
                wire [W-1:0] fin;
                wire [W-1:0] fout;
                wire         f_in_ready, f_out_valid, f_out_ready;
                wire [$clog2(QDEPTH+1)-1:0] f_count;
                wire [PW-1:0] q_dst;
                if (VOQ != 0) begin : g_voq
                    assign f_out_ready = pop[gj*4 + gc];
                    assign q_dst = PW'(gj);
                end else begin : g_fifo
                    assign f_out_ready = pop[32'(q_dst)*4 + gc];  // only egress q_dst sees this head
                    assign q_dst = fout[W-1 -: PW];
                end
                if (HAS_D != 0) begin : g_d
                    // RwD: the request's data; DRS: a response's data, zero for the switch's answers
                    // (the only DRS an M2S message makes)
                    assign fin[128 +: DW] = (gc == 3 && r_m2s) ? 512'd0 : r_data;
                end
                if (XW != 0) begin : g_x
                    assign fin[W-1 -: XW] = (gc < 2) ? r_dst_m : r_dst_s;
                end
                // edge conversion: a request to a DSP loses SPID and DPID, a response to a USP its DPID
                localparam [127:0] CLR = (gc < 2) ? ({{116{1'b0}}, {12{1'b1}}} << CXL_M2S_REQ_SPID_LSB |
                                                     {{116{1'b0}}, {12{1'b1}}} << CXL_M2S_REQ_DPID_LSB)
                                       : (gc == 2) ? {{116{1'b0}}, {12{1'b1}}} << CXL_S2M_NDR_DPID_LSB
                                       : {{116{1'b0}}, {12{1'b1}}} << CXL_S2M_DRS_DPID_LSB;
                assign fin[0 +: 128] = (gc < 2) ? (r_hdr_m & ~(CLR & {128{r_clr_m}}))
                                                : (r_hdr_s & ~(CLR & {128{r_clr_s}}));
                assign qrdy[QI] = f_in_ready;
                sync_fifo #(.WIDTH(W), .DEPTH(QDEPTH)) u_q (
                    .clk(clk), .rst(rst), .in_valid(q_we[QI]), .in_ready(f_in_ready), .in_data(fin),
                    .out_valid(f_out_valid), .out_ready(f_out_ready), .out_data(fout), .count(f_count));
                for (gn = 0; gn < N; gn = gn + 1) begin : g_fan
                    if (VOQ != 0 ? gn == gj : 1'b1) begin : g_one
                        localparam integer IDX = gn * 4 + gc;
                        assign head_valid[IDX] = f_out_valid && q_dst == PW'(gn);
                        assign qo_hdr[IDX*128 +: 128] = fout[0 +: 128];
                        if (HAS_D != 0) begin : g_od
                            assign qo_data[(gn*2 + gc/2)*512 +: 512] = fout[128 +: 512];
                        end
                    end
                end
                wire unused_q = &{1'b0, f_count};
            end
        end
    endgenerate

    // ---------------------------------------------------------------- egress buffers
    genvar ge;
    generate
        for (ge = 0; ge < 4; ge = ge + 1) begin : g_eg
            localparam integer DW = (ge % 2) * 512;
            wire [128+DW-1:0] s_d;
            wire [128+DW-1:0] m_d;
            if (DW != 0) begin : g_d
                assign s_d = {xi_data, xi_hdr};
                assign out_data[(ge/2)*512 +: 512] = m_d[128 +: 512];
            end else begin : g_h
                assign s_d = xi_hdr;
            end
            assign out_hdr[ge*128 +: 128] = m_d[0 +: 128];
            skid_buffer #(.WIDTH(128 + DW)) u_sk (
                .clk(clk), .rst(rst), .in_valid(xi_cv[ge]), .in_ready(eg_rdy[ge]),
                .in_data(s_d), .out_valid(out_valid[ge]), .out_ready(out_ready[ge]), .out_data(m_d));
        end
    endgenerate

    // ---------------------------------------------------------------- table updates
    // a delete (an entry matched by a staged response) and a record (a free entry) never meet
    always @(posedge clk) begin
        if (rst) ot_v <= {OT_DEPTH{1'b0}};
        else     ot_v <= (ot_v & ~del_oh) | (ot_foh & {OT_DEPTH{ot_ins}});
    end
    genvar gw;
    generate
        for (gw = 0; gw < OT_DEPTH; gw = gw + 1) begin : g_otw
            always @(posedge clk) begin
                if (ot_ins && ot_foh[gw]) begin
                    ot_key[gw] <= tq_key[32'(tq_idx)*20 +: 20];
                    ot_drs[gw] <= tq_drs[tq_idx];
                    ot_req[gw] <= tq_rq[32'(tq_idx)*12 +: 12];
                end
            end
        end
    endgenerate
    reg [OTW-1:0] used;
    always @* begin
        used = {OTW{1'b0}};
        for (q = 0; q < OT_DEPTH; q = q + 1) used = used + OTW'(ot_v[q]);
    end
    assign ot_used = used;

    wire unused = &{1'b0, tq_any, r_dst_m, r_dst_s};
endmodule
`default_nettype wire
