`default_nettype none
// One switch port, message level: ingress stage (round robin over the 4 switch classes), decode
// and route (HDM decode, PBR DPID lookup, HBR<->PBR edge conversion, decode-miss answers, response
// routing through the outstanding-request table), virtual output queues, egress buffers, and this
// port's outstanding-request table (used while the port is a DSP).
// Switch classes: 0 M2S Req, 1 M2S RwD (data), 2 S2M NDR, 3 S2M DRS (data).
// Routing and error rules follow models/switch/README.md; every dropped message raises one event.
//
// Outstanding requests are recorded when the request leaves the ingress stage (the model records
// them on ingress too), so a second request with the same (LD-ID, Tag) toward a DSP is caught
// before it is queued and answered by the switch (tag_conflict). Each DSP table takes one record
// per cycle: the ingress stages that want to record compete round robin (tq_* / tk_*).
module cxl_switch_port #(
    parameter integer N         = 4,
    parameter integer PORT      = 0,
    parameter integer NDEC      = 4,
    parameter integer NRT       = 8,
    parameter integer OT_DEPTH  = 16,  // outstanding requests tracked when this port is a DSP
    parameter integer VOQ       = 1,   // 1: one queue per (egress, class); 0: one FIFO per class
    parameter integer VOQ_DEPTH = 4,
    parameter integer PW        = (N > 1) ? $clog2(N) : 1
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
    input  wire [NDEC*16*12-1:0] dec_tgt,
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
    input  wire                  xi_valid,
    input  wire [1:0]            xi_cls,
    input  wire [127:0]          xi_hdr,
    input  wire [511:0]          xi_data,
    // this ingress: a staged request that must be recorded in DSP tk_dst's table
    output wire                  tk_req,
    output wire [PW-1:0]         tk_dst,
    output wire [19:0]           tk_key,     // {LD-ID, Tag} as the request leaves the DSP
    output wire                  tk_drs,     // completes with DRS (else NDR)
    output wire [11:0]           tk_rq,      // requester: ingress port (HBR) or SPID (PBR)
    output wire                  tk_done,    // recorded, or answered as a tag conflict, this cycle
    input  wire [N-1:0]          tk_gnt_in,  // [d]: table d serves this ingress this cycle
    input  wire [N-1:0]          tk_conf_in, // [d]: the served request's key is outstanding at d
    input  wire [N-1:0]          tk_free_in, // [d]: table d has a free entry
    // this port's table: record requests of every ingress (bit/field i = ingress i)
    input  wire [N-1:0]          tq_req,     // ingress i wants to record here
    input  wire [N*20-1:0]       tq_key,
    input  wire [N-1:0]          tq_drs,
    input  wire [N*12-1:0]       tq_rq,
    input  wire [N-1:0]          tq_done,
    output wire [N-1:0]          tq_gnt,
    output wire                  tq_conf,
    output wire                  tq_free,
    // one bit per counter (cxl_switch_cfg order), for the message that left the ingress stage
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
    localparam integer OTI = (OT_DEPTH > 1) ? $clog2(OT_DEPTH) : 1;
    localparam integer QDEPTH = (VOQ != 0) ? VOQ_DEPTH : VOQ_DEPTH * N;  // same storage either way
    localparam integer NQ = (VOQ != 0) ? N : 1;

    // ---------------------------------------------------------------- ingress stage
    reg          st_valid;
    reg [1:0]    st_cls;
    reg [127:0]  st_hdr;
    reg [511:0]  st_data;
    wire [3:0]   in_gnt;
    wire [1:0]   in_idx;
    wire         in_any;
    wire         st_fire;
    wire         st_free = !st_valid || st_fire;

    rr_arbiter #(.N(4)) u_in_arb (.clk(clk), .rst(rst), .req(in_valid), .advance(st_free),
                                  .grant(in_gnt), .grant_idx(in_idx), .any(in_any));
    assign in_ready = in_gnt & {4{st_free}};

    always @(posedge clk) begin
        if (rst) st_valid <= 1'b0;
        else if (st_free) st_valid <= in_any;
    end
    always @(posedge clk) begin
        if (st_free && in_any) begin
            st_cls  <= in_idx;
            st_hdr  <= in_hdr[32'(in_idx)*128 +: 128];
            st_data <= (in_idx == C_DRS) ? in_data[512 +: 512] : in_data[0 +: 512];
        end
    end

    // ---------------------------------------------------------------- fields of the staged message
    wire        is_m2s = !st_cls[1];
    wire        is_rwd = (st_cls == C_RWD);
    wire        is_drs = (st_cls == C_DRS);
    wire [3:0]  m_op   = st_hdr[CXL_M2S_REQ_MEMOP_LSB +: 4];
    wire [15:0] m_tag  = st_hdr[CXL_M2S_REQ_TAG_LSB +: 16];
    wire        m_pois = is_rwd & st_hdr[CXL_M2S_RWD_POISON_LSB];
    wire [3:0]  m_ldid = st_hdr[CXL_M2S_REQ_LDID_LSB +: 4];
    wire [11:0] m_spid = st_hdr[CXL_M2S_REQ_SPID_LSB +: 12];
    wire [11:0] m_dpid = st_hdr[CXL_M2S_REQ_DPID_LSB +: 12];
    wire [15:0] s_tag  = st_hdr[CXL_S2M_NDR_TAG_LSB +: 16];
    wire [3:0]  s_ldid = is_drs ? st_hdr[CXL_S2M_DRS_LDID_LSB +: 4] : st_hdr[CXL_S2M_NDR_LDID_LSB +: 4];
    wire [11:0] s_dpid = is_drs ? st_hdr[CXL_S2M_DRS_DPID_LSB +: 12] : st_hdr[CXL_S2M_NDR_DPID_LSB +: 12];
    wire        s_pois = is_drs & st_hdr[CXL_S2M_DRS_POISON_LSB];
    wire [1:0]  my_role = cfg_role[PORT*2 +: 2];
    wire [11:0] my_pid  = cfg_pid[PORT*12 +: 12];

    // expected completion: 0 none, 1 NDR, 2 DRS, 3 reserved opcode
    reg [1:0] exp_k;
    always @* begin
        if (is_rwd) begin
            case (m_op)
                CXL_M2S_RWD_OP_MEMWR, CXL_M2S_RWD_OP_MEMWRPTL, CXL_M2S_RWD_OP_BICONFLICT: exp_k = 2'd1;
                default: exp_k = 2'd3;
            endcase
        end else begin
            case (m_op)
                CXL_M2S_REQ_OP_MEMINV, CXL_M2S_REQ_OP_MEMINVNT, CXL_M2S_REQ_OP_MEMCLNEVCT: exp_k = 2'd1;
                CXL_M2S_REQ_OP_MEMRD, CXL_M2S_REQ_OP_MEMRDDATA: exp_k = 2'd2;
                CXL_M2S_REQ_OP_MEMRDFWD, CXL_M2S_REQ_OP_MEMWRFWD, CXL_M2S_REQ_OP_MEMSPECRD: exp_k = 2'd0;
                default: exp_k = 2'd3;
            endcase
        end
    end

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

    // ---------------------------------------------------------------- HDM decode
    // The decode runs in the ingress cycle, on the two M2S inputs (Req and RwD) in parallel, and its
    // result is staged with the message: the decoder (a subtract, a shift and a mod-3 tree) is then
    // not in series with the routing and queueing of the staged message. A message is decoded
    // against the decoders committed when it enters the ingress stage (S2M messages: unused).
    wire        hq_hit, hw_hit;
    wire [11:0] hq_tgt, hw_tgt;
    reg         hdm_hit;
    reg  [11:0] hdm_tgt;
    cxl_hdm_decode #(.NDEC(NDEC), .MAXW(16)) u_hdm_req (
        .hpa({in_hdr[0*128 + CXL_M2S_REQ_ADDR_LSB +: 46], in_hdr[0*128 + CXL_M2S_REQ_ADDR5_LSB], 5'd0}),
        .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size),
        .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_tgt(dec_tgt), .hit(hq_hit), .target(hq_tgt));
    cxl_hdm_decode #(.NDEC(NDEC), .MAXW(16)) u_hdm_rwd (
        .hpa({in_hdr[1*128 + CXL_M2S_REQ_ADDR_LSB +: 46], 1'b0, 5'd0}),   // RwD: no Addr[5]
        .dec_valid(dec_valid), .dec_base(dec_base), .dec_size(dec_size),
        .dec_eiw(dec_eiw), .dec_eig(dec_eig), .dec_tgt(dec_tgt), .hit(hw_hit), .target(hw_tgt));
    always @(posedge clk) begin
        if (st_free && in_any) begin
            hdm_hit <= (in_idx == C_RWD) ? hw_hit : hq_hit;
            hdm_tgt <= (in_idx == C_RWD) ? hw_tgt : hq_tgt;
        end
    end

    // ---------------------------------------------------------------- this port's outstanding table
    reg  [OT_DEPTH-1:0] ot_v;
    reg  [19:0]         ot_key [0:OT_DEPTH-1];   // {LD-ID, Tag}
    reg                 ot_drs [0:OT_DEPTH-1];
    reg  [11:0]         ot_req [0:OT_DEPTH-1];
    // lookup of the response staged at this port and the free entry: the lowest matching / free
    // entry as a one-hot (prefix ORs, not an entry-by-entry priority scan) and its fields by AND-OR
    wire [19:0]         s_key = {s_ldid, s_tag};
    reg  [OT_DEPTH-1:0] ot_m;                    // valid entries holding the staged response's key
    wire [OT_DEPTH-1:0] ot_moh, ot_foh;          // the lowest of them / the lowest free entry
    reg                 ot_hit;
    reg  [OTI-1:0]      ot_hidx;
    reg                 ot_free;
    reg  [OTI-1:0]      ot_fidx;
    reg                 ot_e_drs;
    reg  [11:0]         ot_e_req;
    integer             q;
    genvar              go;
    generate
        for (go = 0; go < OT_DEPTH; go = go + 1) begin : g_ot1h
            if (go == 0) begin : g_0
                assign ot_moh[go] = ot_m[go];
                assign ot_foh[go] = !ot_v[go];
            end else begin : g_n
                assign ot_moh[go] = ot_m[go] && !(|ot_m[go-1:0]);
                assign ot_foh[go] = !ot_v[go] && (&ot_v[go-1:0]);
            end
        end
    endgenerate
    always @* begin
        for (q = 0; q < OT_DEPTH; q = q + 1) ot_m[q] = ot_v[q] && ot_key[q] == s_key;
        ot_hit = |ot_m; ot_free = !(&ot_v);
        ot_hidx = {OTI{1'b0}}; ot_fidx = {OTI{1'b0}}; ot_e_drs = 1'b0; ot_e_req = 12'd0;
        for (q = 0; q < OT_DEPTH; q = q + 1) begin
            ot_hidx  = ot_hidx | (ot_moh[q] ? OTI'(q) : {OTI{1'b0}});
            ot_fidx  = ot_fidx | (ot_foh[q] ? OTI'(q) : {OTI{1'b0}});
            ot_e_drs = ot_e_drs | (ot_moh[q] & ot_drs[q]);
            ot_e_req = ot_e_req | (ot_moh[q] ? ot_req[q] : 12'd0);
        end
    end

    // records from the ingress stages: one per cycle, round robin; the served request is compared
    // with every entry (a match is a tag conflict: the ingress answers it instead of recording)
    wire [PW-1:0] tq_idx;
    wire          tq_any;
    rr_arbiter #(.N(N)) u_tq_arb (.clk(clk), .rst(rst), .req(tq_req), .advance(|(tq_done & tq_gnt)),
                                  .grant(tq_gnt), .grant_idx(tq_idx), .any(tq_any));
    wire [19:0] tq_wkey = tq_key[32'(tq_idx)*20 +: 20];
    reg         tq_match;
    always @* begin
        tq_match = 1'b0;
        for (q = 0; q < OT_DEPTH; q = q + 1)
            if (ot_v[q] && ot_key[q] == tq_wkey) tq_match = 1'b1;
    end
    assign tq_conf = tq_any && tq_match;
    assign tq_free = ot_free;
    wire ot_ins = |(tq_done & tq_gnt) && !tq_match;

    // ---------------------------------------------------------------- route lookups (PBR)
    // PBR route lookup of one DPID: an edge port (USP or DSP) whose own PID is the key routes to
    // that port (the lowest such port), else the lowest valid route entry with that DPID gives the
    // egress; {hit, port}. The compares run in parallel and the pick is a one-hot (running ORs,
    // which the mapper balances) with an AND-OR select, not a chain of selects.
    function automatic [PW:0] route(input [11:0] key, input [NRT-1:0] v, input [NRT*12-1:0] dpid,
                                    input [NRT*PW-1:0] port, input [N*2-1:0] role, input [N*12-1:0] pid);
        reg          pm, rm, pseen, rseen;
        reg [PW-1:0] pdst, rdst;
        integer      i;
        begin
            pseen = 1'b0; rseen = 1'b0; pdst = {PW{1'b0}}; rdst = {PW{1'b0}};
            for (i = 0; i < N; i = i + 1) begin
                pm    = role[i*2 +: 2] != ROLE_FAB && pid[i*12 +: 12] == key;
                pdst  = pdst | ((pm && !pseen) ? PW'(i) : {PW{1'b0}});
                pseen = pseen | pm;
            end
            for (i = 0; i < NRT; i = i + 1) begin
                rm    = v[i] && dpid[i*12 +: 12] == key;
                rdst  = rdst | ((rm && !rseen) ? port[i*PW +: PW] : {PW{1'b0}});
                rseen = rseen | rm;
            end
            route = {pseen | rseen, pseen ? pdst : rdst};
        end
    endfunction
    reg  [11:0]   lk_dpid;
    wire          rt_hit;
    wire [PW-1:0] rt_dst;
    assign {rt_hit, rt_dst} = route(lk_dpid, rt_valid, rt_dpid, rt_port, cfg_role, cfg_pid);
    // requester of a request reaching a DSP (PBR: a USP's own PID, else the SPID), and its route
    // for a tag-conflict answer
    wire [11:0]   rq_pbr = (my_role == ROLE_USP) ? my_pid : m_spid;
    wire          rq_hit;
    wire [PW-1:0] rq_dst;
    assign {rq_hit, rq_dst} = route(rq_pbr, rt_valid, rt_dpid, rt_port, cfg_role, cfg_pid);

    // ---------------------------------------------------------------- decode and route
    reg         drop;
    reg [PW-1:0] dst;
    reg [1:0]   dcls;
    reg [127:0] dhdr;
    reg         dzero;     // data of a switch-made DRS is zero
    reg [15:0]  dev;
    reg         ot_del;
    reg         use_rt;    // final egress comes from the route lookup
    reg         rsp_rt;    // routed message is a response (else a request)
    reg         own;       // switch-made answer
    reg [1:0]   eg_role;
    reg [11:0]  rq_id;     // requester recorded with a tracked request
    reg [11:0]  hbr_p;
    reg         trk;       // request to a DSP that expects a completion: must be recorded

    always @* begin
        drop = 1'b0; dst = {PW{1'b0}}; dcls = st_cls; dhdr = st_hdr; dzero = 1'b0;
        dev = 16'd0; ot_del = 1'b0; use_rt = 1'b0; rsp_rt = 1'b0; trk = 1'b0;
        own = 1'b0; lk_dpid = 12'd0; eg_role = ROLE_USP; rq_id = 12'd0; hbr_p = 12'd0;
        if (!cfg_en[PORT]) begin
            drop = 1'b1; dev[E_RX_DIS] = 1'b1;
        end else if (is_m2s) begin
            if (my_role == ROLE_DSP) begin
                drop = 1'b1; dev[E_BAD_DIR] = 1'b1;
            end else if (exp_k == 2'd3) begin
                drop = 1'b1; dev[E_BAD_OP] = 1'b1;
            end else if (my_role == ROLE_USP && !hdm_hit) begin
                // decode miss: the switch answers (reads: DRS MemData-NXM, writes: NDR Cmp)
                if (exp_k == 2'd0) begin
                    drop = 1'b1; dev[E_NXM_NONE] = 1'b1;
                end else begin
                    own = 1'b1;
                    dst = PW'(PORT);
                    dhdr = ans_hdr;
                    dcls = ans_cls;
                    dzero = 1'b1;
                    if (exp_k == 2'd2) dev[E_NXM_RD] = 1'b1;
                    else               dev[E_NXM_WR] = 1'b1;
                end
            end else if (my_role == ROLE_USP && !cfg_pbr) begin
                // HBR: decoder target is the egress port
                dst = PW'(hdm_tgt);
                if (hdm_tgt >= 12'(N)) begin
                    drop = 1'b1; dev[E_MISROUTE] = 1'b1;
                end else begin
                    eg_role = ROLE_DSP;
                    rq_id = 12'(PORT);
                end
            end else begin
                // PBR: the USP edge adds SPID/DPID (drops LD-ID, Addr[5]); fabric keeps the DPID
                use_rt = 1'b1;
                rq_id = rq_pbr;
                if (my_role == ROLE_USP) begin
                    dhdr[CXL_M2S_REQ_SPID_LSB +: 12] = my_pid;
                    dhdr[CXL_M2S_REQ_DPID_LSB +: 12] = hdm_tgt;
                    dhdr[CXL_M2S_REQ_LDID_LSB +: 4] = 4'd0;
                    if (!is_rwd) dhdr[CXL_M2S_REQ_ADDR5_LSB] = 1'b0;
                    lk_dpid = hdm_tgt;
                end else begin
                    lk_dpid = m_dpid;
                end
            end
        end else begin
            if (my_role == ROLE_USP) begin
                drop = 1'b1; dev[E_BAD_DIR] = 1'b1;
            end else if (my_role == ROLE_DSP) begin
                if (!ot_hit || (!ot_e_drs && is_drs)) begin
                    drop = 1'b1; dev[E_UNEXP] = 1'b1;
                end else begin
                    ot_del = (ot_e_drs == is_drs);
                    if (cfg_pbr) begin
                        use_rt = 1'b1; rsp_rt = 1'b1;
                        lk_dpid = ot_e_req;
                        if (is_drs) begin
                            dhdr[CXL_S2M_DRS_DPID_LSB +: 12] = ot_e_req;
                            dhdr[CXL_S2M_DRS_LDID_LSB +: 4] = 4'd0;
                        end else begin
                            dhdr[CXL_S2M_NDR_DPID_LSB +: 12] = ot_e_req;
                            dhdr[CXL_S2M_NDR_LDID_LSB +: 4] = 4'd0;
                        end
                    end else begin
                        hbr_p = ot_e_req;
                        dst = PW'(hbr_p);
                    end
                end
            end else begin
                use_rt = 1'b1; rsp_rt = 1'b1;
                lk_dpid = s_dpid;
            end
        end
        // PBR routing of the message by its DPID
        if (use_rt && !drop) begin
            dst = rt_dst;
            eg_role = cfg_role[32'(rt_dst)*2 +: 2];
            if (!rt_hit) begin
                drop = 1'b1; dev[E_UNK_DPID] = 1'b1;
            end else if (!rsp_rt && (rt_dst == PW'(PORT) || eg_role == ROLE_USP)) begin
                drop = 1'b1; dev[E_MISROUTE] = 1'b1;
            end else if (rsp_rt && (rt_dst == PW'(PORT) || eg_role == ROLE_DSP)) begin
                drop = 1'b1; dev[E_MISROUTE] = 1'b1;
            end else if (!rsp_rt && eg_role == ROLE_DSP) begin
                // DSP edge: back to HBR
                dhdr[CXL_M2S_REQ_SPID_LSB +: 12] = 12'd0;
                dhdr[CXL_M2S_REQ_DPID_LSB +: 12] = 12'd0;
            end else if (rsp_rt && eg_role == ROLE_USP) begin
                if (is_drs) dhdr[CXL_S2M_DRS_DPID_LSB +: 12] = 12'd0;
                else        dhdr[CXL_S2M_NDR_DPID_LSB +: 12] = 12'd0;
            end
        end
        if (!drop && !cfg_en[dst]) begin
            drop = 1'b1; dev[E_EG_DIS] = 1'b1;
        end
        // requests leaving a DSP are recorded so the response finds its requester
        trk = !drop && is_m2s && !own && eg_role == ROLE_DSP && exp_k != 2'd0;
        if (!drop && !own) begin
            dev[is_m2s ? E_FWD_REQ : E_FWD_RSP] = 1'b1;
            dev[E_POISON] = m_pois | s_pois;
        end
    end

    // tag-conflict answer: to the requester (HBR: this ingress; PBR: routed by its PID)
    reg          c_drop;
    reg [PW-1:0] c_dst;
    reg [127:0]  c_hdr;
    reg [15:0]   c_dev;
    reg [1:0]    c_role;
    always @* begin
        c_drop = 1'b0; c_dst = PW'(PORT); c_hdr = ans_hdr; c_dev = 16'd0; c_role = ROLE_USP;
        c_dev[E_TAG_CONF] = 1'b1;
        if (cfg_pbr) begin
            c_dst = rq_dst;
            c_role = cfg_role[32'(rq_dst)*2 +: 2];
            if (!rq_hit) begin
                c_drop = 1'b1; c_dev[E_UNK_DPID] = 1'b1;
            end else if (c_role == ROLE_DSP) begin
                c_drop = 1'b1; c_dev[E_MISROUTE] = 1'b1;
            end else if (c_role == ROLE_FAB) begin
                if (exp_k == 2'd2) c_hdr[CXL_S2M_DRS_DPID_LSB +: 12] = rq_pbr;
                else               c_hdr[CXL_S2M_NDR_DPID_LSB +: 12] = rq_pbr;
            end
        end
        if (!c_drop && !cfg_en[c_dst]) begin
            c_drop = 1'b1; c_dev[E_EG_DIS] = 1'b1;
        end
    end

    // the table of DSP `dst` serves this request (or finds its key outstanding)
    assign tk_req = st_valid && trk;
    assign tk_dst = dst;
    assign tk_key = {dhdr[CXL_M2S_REQ_LDID_LSB +: 4], dhdr[CXL_M2S_REQ_TAG_LSB +: 16]};
    assign tk_drs = (exp_k == 2'd2);
    assign tk_rq  = rq_id;
    wire   k_gnt  = tk_gnt_in[dst];
    wire   k_conf = trk && k_gnt && tk_conf_in[dst];
    wire   k_wait = trk && !(k_gnt && (tk_conf_in[dst] || tk_free_in[dst]));

    wire         f_drop = k_conf ? c_drop : drop;
    wire [PW-1:0] f_dst = k_conf ? c_dst : dst;
    wire [1:0]   f_cls  = k_conf ? ans_cls : dcls;
    wire [127:0] f_hdr  = k_conf ? c_hdr : dhdr;
    wire         f_zero = k_conf | dzero;
    wire [15:0]  f_dev  = k_conf ? c_dev : dev;
    wire         wr_ready;
    assign st_fire = st_valid && (f_drop || (wr_ready && !k_wait));
    assign tk_done = st_fire && trk;
    assign ev = st_fire ? f_dev : 16'd0;

    // ---------------------------------------------------------------- virtual output queues
    wire [N*4-1:0]  qrdy;        // queue for (egress j, class c) can take a message
    assign wr_ready = qrdy[32'(f_dst)*4 + 32'(f_cls)];
    wire [511:0] wdata = f_zero ? 512'd0 : st_data;

    genvar gj, gc, gn;
    generate
        for (gj = 0; gj < NQ; gj = gj + 1) begin : g_q
            for (gc = 0; gc < 4; gc = gc + 1) begin : g_c
                localparam integer HAS_D = gc % 2;
                localparam integer DW = HAS_D * 512;
                localparam integer XW = (VOQ != 0) ? 0 : PW;
                localparam integer W = 128 + DW + XW;
                wire [W-1:0] fin;
                wire [W-1:0] fout;
                wire         f_in_valid, f_in_ready, f_out_valid, f_out_ready;
                wire [$clog2(QDEPTH+1)-1:0] f_count;
                wire [PW-1:0] q_dst;
                if (VOQ != 0) begin : g_voq
                    assign f_in_valid = st_fire && !f_drop && f_dst == PW'(gj) && f_cls == 2'(gc);
                    assign f_out_ready = pop[gj*4 + gc];
                    assign q_dst = PW'(gj);
                end else begin : g_fifo
                    assign f_in_valid = st_fire && !f_drop && f_cls == 2'(gc);
                    assign f_out_ready = pop[32'(q_dst)*4 + gc];  // only egress q_dst sees this head
                    assign q_dst = fout[W-1 -: PW];
                end
                if (HAS_D != 0) begin : g_d
                    assign fin[128 +: DW] = wdata;
                end
                if (XW != 0) begin : g_x
                    assign fin[W-1 -: XW] = f_dst;
                end
                assign fin[0 +: 128] = f_hdr;
                sync_fifo #(.WIDTH(W), .DEPTH(QDEPTH)) u_q (
                    .clk(clk), .rst(rst), .in_valid(f_in_valid), .in_ready(f_in_ready), .in_data(fin),
                    .out_valid(f_out_valid), .out_ready(f_out_ready), .out_data(fout), .count(f_count));
                for (gn = 0; gn < N; gn = gn + 1) begin : g_fan
                    if (VOQ != 0 ? gn == gj : 1'b1) begin : g_one
                        localparam integer IDX = gn * 4 + gc;
                        assign head_valid[IDX] = f_out_valid && q_dst == PW'(gn);
                        assign qrdy[IDX] = f_in_ready;
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
                .clk(clk), .rst(rst), .in_valid(xi_valid && xi_cls == 2'(ge)), .in_ready(eg_rdy[ge]),
                .in_data(s_d), .out_valid(out_valid[ge]), .out_ready(out_ready[ge]), .out_data(m_d));
        end
    endgenerate

    // ---------------------------------------------------------------- table updates
    always @(posedge clk) begin
        if (rst) begin
            ot_v <= {OT_DEPTH{1'b0}};
        end else begin
            if (st_fire && ot_del) ot_v[ot_hidx] <= 1'b0;
            if (ot_ins) ot_v[ot_fidx] <= 1'b1;
        end
    end
    always @(posedge clk) begin
        if (ot_ins) begin
            ot_key[ot_fidx] <= tq_wkey;
            ot_drs[ot_fidx] <= tq_drs[tq_idx];
            ot_req[ot_fidx] <= tq_rq[32'(tq_idx)*12 +: 12];
        end
    end
    reg [OTW-1:0] used;
    always @* begin
        used = {OTW{1'b0}};
        for (q = 0; q < OT_DEPTH; q = q + 1) used = used + OTW'(ot_v[q]);
    end
    assign ot_used = used;

    wire unused = &{1'b0, hbr_p[11:PW], st_data[0]};
endmodule
`default_nettype wire
