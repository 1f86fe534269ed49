`resetall
`default_nettype none
// Lightweight CXL.cache home coherence agent: directory home agent for N caching devices.
//
// Message-level ports (canonical 128-bit headers + 512-bit lines, CONVENTIONS.md). One transaction
// table (NTXN entries) holds every accepted request; per line at most one entry is active, later
// requests to the same line are chained behind it in arrival order. The snoop filter is a
// set-associative register array (SETS x WAYS, state + sharer vector per way), inclusive: a request
// that will leave its requester holding a line needs a way, and when its set is full a
// back-invalidation entry (SnpInv to the victim's holders) frees one.
//
// Three lanes work in parallel every cycle:
//   A  starts one transaction (a waiting entry, a back-invalidation or a new D2H request): directory
//      lookup, snoops, or the answer at once when no snoop is needed;
//   B  takes one D2H Rsp or D2H Data (snoop answers, forwarded lines, write-pull data) and decides
//      when the last snoop answer of a transaction is in;
//   C  takes S2M DRS (MemRd data -> H2D Data) and S2M NDR (write completions, GO after them).
// Per device port, snoops and H2D responses share one ordered queue, so a snoop never passes an
// older GO to the same device. GO for a memory read is sent at the decision, before the data
// (CXL allows either order; the device holds a snoop to that line until its data arrived).
//
// Every request is answered (models/coherence/spec_table.yaml): CacheFlushed gets GO-I at once (no
// line, no table entry), an opcode that is not a request gets GO-Err, a request reusing the CQID of
// a request still owed an answer is dropped; all three are decided in lane A in one cycle. A snoop
// answer outside the snoop's legal set is taken as RspIHitI, so no line waits for another answer.
//
// UQIDs: snoop = {1'b0, entry, port}, write-pull = {1'b1, entry}; M2S Tag = entry (one memory
// operation per entry at a time). NTXN * 2^clog2(N) must not exceed 2048.
module coh_home_agent #(
    parameter integer N      = 4,   // caching devices (CacheID = port index): 1..16
    parameter integer SETS   = 8,   // snoop-filter sets: a power of two
    parameter integer WAYS   = 2,   // snoop-filter ways: >= 1
    parameter integer NTXN   = 8,   // transaction table entries: >= 2, NTXN * 2^clog2(N) <= 2048
    parameter integer NRANGE = 2,   // coherent address ranges (selective coherence): >= 1
    parameter integer QDEPTH = 8,   // output queue depth: >= 3
    parameter integer CNT_W  = 16   // error counter width (saturating): >= 2
) (
    input  wire                 clk,
    input  wire                 rst,
    /* verilator lint_off UNUSEDSIGNAL */
    // device side, D2H (device -> home)
    input  wire [N-1:0]         d2h_req_valid,
    output wire [N-1:0]         d2h_req_ready,
    input  wire [N*128-1:0]     d2h_req_hdr,
    input  wire [N-1:0]         d2h_rsp_valid,
    output wire [N-1:0]         d2h_rsp_ready,
    input  wire [N*128-1:0]     d2h_rsp_hdr,
    input  wire [N-1:0]         d2h_data_valid,
    output wire [N-1:0]         d2h_data_ready,
    input  wire [N*128-1:0]     d2h_data_hdr,
    input  wire [N*512-1:0]     d2h_data_data,
    // device side, H2D (home -> device)
    output wire [N-1:0]         h2d_req_valid,
    input  wire [N-1:0]         h2d_req_ready,
    output wire [N*128-1:0]     h2d_req_hdr,
    output wire [N-1:0]         h2d_rsp_valid,
    input  wire [N-1:0]         h2d_rsp_ready,
    output wire [N*128-1:0]     h2d_rsp_hdr,
    output wire [N-1:0]         h2d_data_valid,
    input  wire [N-1:0]         h2d_data_ready,
    output wire [N*128-1:0]     h2d_data_hdr,
    output wire [N*512-1:0]     h2d_data_data,
    // memory side, CXL.mem
    output wire                 m2s_req_valid,
    input  wire                 m2s_req_ready,
    output wire [127:0]         m2s_req_hdr,
    output wire                 m2s_rwd_valid,
    input  wire                 m2s_rwd_ready,
    output wire [127:0]         m2s_rwd_hdr,
    output wire [511:0]         m2s_rwd_data,
    input  wire                 s2m_ndr_valid,
    output wire                 s2m_ndr_ready,
    input  wire [127:0]         s2m_ndr_hdr,
    input  wire                 s2m_drs_valid,
    output wire                 s2m_drs_ready,
    input  wire [127:0]         s2m_drs_hdr,
    input  wire [511:0]         s2m_drs_data,
    /* verilator lint_on UNUSEDSIGNAL */
    // selective coherence: line address (Addr[51:6]) in [lo, hi) of an enabled range is coherent
    input  wire [NRANGE-1:0]    cfg_coh_en,
    input  wire [NRANGE*46-1:0] cfg_coh_lo,
    input  wire [NRANGE*46-1:0] cfg_coh_hi,
    // errors (models/coherence/home.py ERROR_KINDS): 0 illegal request (opcode not served: GO-Err;
    // CQID still owed an answer: dropped), 1 unsolicited rsp, 2 bad data (no outstanding UQID, not
    // expected, or pulled with byte enables), 3 wrong UQID, 4 illegal snoop rsp (taken as RspIHitI),
    // 5 unsolicited memory rsp. One pulse per event kind and cycle.
    output reg  [5:0]           err_pulse,
    output wire [6*CNT_W-1:0]   err_count,
    // trace of transaction starts (verification / debug): one per cycle at most
    output wire                 trc_valid,
    output wire                 trc_binv,
    output wire [45:0]          trc_line,
    output wire [((N > 1) ? $clog2(N) : 1)-1:0] trc_port,
    output wire [11:0]          trc_cqid
);
    `include "cxl_defs.vh"

    // ------------------------------------------------------------------ parameter checks
    // An illegal value instantiates a module that does not exist, named after the rule: every tool
    // (Verilator even under -Wno-fatal, Icarus, yosys) stops at elaboration with that name.
    // Elaboration-time $fatal is not used: Icarus 11 rejects it and Verilator -Wno-fatal demotes it.
    generate
        if (N < 1 || N > 16) begin : g_bad_n
            coh_home_agent_parameter_error_N_must_be_1_to_16 u_stop ();
        end
        if (SETS < 1 || (SETS & (SETS - 1)) != 0) begin : g_bad_sets
            coh_home_agent_parameter_error_SETS_must_be_a_power_of_two u_stop ();
        end
        if (WAYS < 1) begin : g_bad_ways
            coh_home_agent_parameter_error_WAYS_must_be_at_least_1 u_stop ();
        end
        if (NTXN < 2 || (1 << ($clog2(NTXN) + ((N > 1) ? $clog2(N) : 1))) > 2048) begin : g_bad_ntxn
            coh_home_agent_parameter_error_NTXN_out_of_range u_stop ();
        end
        if (NRANGE < 1) begin : g_bad_nrange
            coh_home_agent_parameter_error_NRANGE_must_be_at_least_1 u_stop ();
        end
        if (QDEPTH < 3) begin : g_bad_qdepth
            coh_home_agent_parameter_error_QDEPTH_must_be_at_least_3 u_stop ();
        end
        if (CNT_W < 2) begin : g_bad_cnt_w
            coh_home_agent_parameter_error_CNT_W_must_be_at_least_2 u_stop ();
        end
    endgenerate

    localparam integer LW   = 46;
    localparam integer PW   = (N > 1) ? $clog2(N) : 1;
    localparam integer BW   = $clog2(2 * N);
    localparam integer EW   = (NTXN > 1) ? $clog2(NTXN) : 1;
    localparam integer SB   = (SETS > 1) ? $clog2(SETS) : 1;
    localparam integer ND   = SETS * WAYS;
    localparam integer DIW  = (ND > 1) ? $clog2(ND) : 1;
    localparam integer CW   = $clog2(QDEPTH + 1);
    localparam integer NERR = 6;
    localparam integer E_ILL = 0, E_USRSP = 1, E_USDATA = 2, E_WRONG = 3, E_ILLRSP = 4, E_USMEM = 5;
    localparam [1:0] DI = 2'd0;
    localparam integer MQW  = 1 + 128;         // merged H2D queue: {is_rsp, header}
    localparam integer DQW  = 12 + 512;        // H2D data queue: {cqid, line}
    localparam integer RQW  = EW + LW;         // MemRd queue: {tag, line}
    localparam integer WQW  = EW + LW + 512;   // MemWr queue: {tag, line, data}
    localparam [CW-1:0] MQ_NEED = CW'(3);      // merged queue writers per cycle
    localparam [CW-1:0] DQ_NEED = CW'(2);
    localparam [CW-1:0] RQ_NEED = CW'(2);
    localparam [CW-1:0] WQ_NEED = CW'(1);
    localparam [1:0] METAFIELD_NOOP = 2'b11;

    // ------------------------------------------------------------------ helpers
    // requests with a line (CacheFlushed has none and is answered in lane A directly)
    function automatic legal_req(input [4:0] op);
        legal_req = (op == CXL_D2H_REQ_OP_RDSHARED) || (op == CXL_D2H_REQ_OP_RDOWN) ||
                    (op == CXL_D2H_REQ_OP_RDANY) || (op == CXL_D2H_REQ_OP_RDCURR) ||
                    (op == CXL_D2H_REQ_OP_RDOWNNODATA) || (op == CXL_D2H_REQ_OP_ITOMWR) ||
                    (op == CXL_D2H_REQ_OP_WRCUR) || (op == CXL_D2H_REQ_OP_CLEANEVICT) ||
                    (op == CXL_D2H_REQ_OP_DIRTYEVICT) || (op == CXL_D2H_REQ_OP_CLEANEVICTNODATA) ||
                    (op == CXL_D2H_REQ_OP_CLFLUSH) || (op == CXL_D2H_REQ_OP_WRINV) ||
                    (op == CXL_D2H_REQ_OP_WOWRINV) || (op == CXL_D2H_REQ_OP_WOWRINVF);
    endfunction

    // requests that leave the requester holding the line: they need a snoop-filter way
    function automatic alloc_op(input [4:0] op);
        alloc_op = (op == CXL_D2H_REQ_OP_RDSHARED) || (op == CXL_D2H_REQ_OP_RDOWN) ||
                   (op == CXL_D2H_REQ_OP_RDANY) || (op == CXL_D2H_REQ_OP_RDOWNNODATA);
    endfunction

    function automatic legal_rsp(input [2:0] snp, input [4:0] r);
        begin
            case (snp)
                CXL_H2D_REQ_OP_SNPDATA:
                    legal_rsp = (r == CXL_D2H_RSP_OP_RSPIHITI) || (r == CXL_D2H_RSP_OP_RSPSHITSE) ||
                                (r == CXL_D2H_RSP_OP_RSPSFWDM) || (r == CXL_D2H_RSP_OP_RSPIFWDM);
                CXL_H2D_REQ_OP_SNPINV:
                    legal_rsp = (r == CXL_D2H_RSP_OP_RSPIHITI) || (r == CXL_D2H_RSP_OP_RSPIHITSE) ||
                                (r == CXL_D2H_RSP_OP_RSPIFWDM);
                default:  // SnpCur
                    legal_rsp = (r == CXL_D2H_RSP_OP_RSPIHITI) || (r == CXL_D2H_RSP_OP_RSPVHITV) ||
                                (r == CXL_D2H_RSP_OP_RSPSHITSE) || (r == CXL_D2H_RSP_OP_RSPSFWDM) ||
                                (r == CXL_D2H_RSP_OP_RSPIFWDM) || (r == CXL_D2H_RSP_OP_RSPVFWDV);
            endcase
        end
    endfunction

    function automatic [127:0] h2d_req_h(input [2:0] op, input [LW-1:0] line, input [11:0] uqid,
                                         input [3:0] cid);
        begin
            h2d_req_h = {128{1'b0}};
            h2d_req_h[CXL_H2D_REQ_OPCODE_LSB +: CXL_H2D_REQ_OPCODE_W]   = op;
            h2d_req_h[CXL_H2D_REQ_ADDR_LSB +: CXL_H2D_REQ_ADDR_W]       = line;
            h2d_req_h[CXL_H2D_REQ_UQID_LSB +: CXL_H2D_REQ_UQID_W]       = uqid;
            h2d_req_h[CXL_H2D_REQ_CACHEID_LSB +: CXL_H2D_REQ_CACHEID_W] = cid;
        end
    endfunction

    function automatic [127:0] h2d_rsp_h(input [3:0] op, input [11:0] rspdata, input [11:0] cqid,
                                         input [3:0] cid);
        begin
            h2d_rsp_h = {128{1'b0}};
            h2d_rsp_h[CXL_H2D_RSP_OPCODE_LSB +: CXL_H2D_RSP_OPCODE_W]   = op;
            h2d_rsp_h[CXL_H2D_RSP_RSPDATA_LSB +: CXL_H2D_RSP_RSPDATA_W] = rspdata;
            h2d_rsp_h[CXL_H2D_RSP_CQID_LSB +: CXL_H2D_RSP_CQID_W]       = cqid;
            h2d_rsp_h[CXL_H2D_RSP_CACHEID_LSB +: CXL_H2D_RSP_CACHEID_W] = cid;
        end
    endfunction

    function automatic [3:0] cid_of(input [PW-1:0] p);
        cid_of = 4'(p);
    endfunction

    function automatic [11:0] snp_uqid(input [EW-1:0] e, input [PW-1:0] p);
        snp_uqid = 12'({e, p});
    endfunction

    function automatic [11:0] pull_uqid(input [EW-1:0] e);
        pull_uqid = 12'h800 | 12'(e);
    endfunction

    // ------------------------------------------------------------------ state
    // transaction table
    reg [NTXN-1:0] e_v, e_started, e_dec, e_binv, e_coh, e_wp, e_tail, e_awt, e_retry;
    reg [NTXN-1:0] e_hway, e_dirty, e_keeps, e_hfwd, e_mrd, e_wrp, e_pullp, e_acc, e_gap;
    reg [NTXN-1:0] e_gaext;  // the message after the memory write is ExtCmp (not GO)
    reg [NTXN-1:0] e_fbk;    // the pull brings no usable line: write the forwarded line instead
    reg [LW-1:0]   e_line  [0:NTXN-1];
    reg [PW-1:0]   e_port  [0:NTXN-1];
    reg [4:0]      e_op    [0:NTXN-1];
    reg [11:0]     e_cqid  [0:NTXN-1];
    reg [EW-1:0]   e_pred  [0:NTXN-1];
    reg [DIW-1:0]  e_way   [0:NTXN-1];
    reg [1:0]      e_dst   [0:NTXN-1];
    reg [N-1:0]    e_dsh   [0:NTXN-1];
    reg [2:0]      e_snp   [0:NTXN-1];
    reg [N-1:0]    e_sent  [0:NTXN-1];
    reg [N-1:0]    e_rgot  [0:NTXN-1];
    reg [N-1:0]    e_fexp  [0:NTXN-1];
    reg [N-1:0]    e_dgot  [0:NTXN-1];
    reg [N-1:0]    e_keepb [0:NTXN-1];
    reg [3:0]      e_gast  [0:NTXN-1];
    reg [511:0]    e_fbuf  [0:NTXN-1];
    // snoop filter
    reg [ND-1:0]   d_v;
    reg [LW-1:0]   d_tag [0:ND-1];
    reg [1:0]      d_st  [0:ND-1];
    reg [N-1:0]    d_sh  [0:ND-1];
    // error counters
    reg [CNT_W-1:0] e_cnt [0:NERR-1];

    integer i1, i4, i6, i8, i9;  // one set of loop variables per always block

    // ------------------------------------------------------------------ output queues
    reg  [N*3-1:0]      mq_in_v;
    reg  [N*3*MQW-1:0]  mq_in_d;
    wire [N*CW-1:0]     mq_free;
    wire [N-1:0]        mq_out_v;
    wire [N*MQW-1:0]    mq_out_d;
    wire [N-1:0]        mq_out_r;
    reg  [N*2-1:0]      dq_in_v;
    reg  [N*2*DQW-1:0]  dq_in_d;
    wire [N*CW-1:0]     dq_free;
    wire [N*DQW-1:0]    dq_out_d;
    reg  [1:0]          rq_in_v;
    reg  [2*RQW-1:0]    rq_in_d;
    wire [CW-1:0]       rq_free;
    wire [RQW-1:0]      rq_out_d;
    reg                 wq_in_v;
    reg  [WQW-1:0]      wq_in_d;
    wire [CW-1:0]       wq_free;
    wire [WQW-1:0]      wq_out_d;

    genvar g;
    generate
        for (g = 0; g < N; g = g + 1) begin : g_port
            /* verilator lint_off PINCONNECTEMPTY */
            fifo_mw #(.WIDTH(MQW), .DEPTH(QDEPTH), .W(3)) u_mq (
                .clk(clk), .rst(rst), .in_valid(mq_in_v[g*3 +: 3]), .in_data(mq_in_d[g*3*MQW +: 3*MQW]),
                .free(mq_free[g*CW +: CW]), .out_valid(mq_out_v[g]), .out_ready(mq_out_r[g]),
                .out_data(mq_out_d[g*MQW +: MQW]), .count(), .overflow());
            fifo_mw #(.WIDTH(DQW), .DEPTH(QDEPTH), .W(2)) u_dq (
                .clk(clk), .rst(rst), .in_valid(dq_in_v[g*2 +: 2]), .in_data(dq_in_d[g*2*DQW +: 2*DQW]),
                .free(dq_free[g*CW +: CW]), .out_valid(h2d_data_valid[g]), .out_ready(h2d_data_ready[g]),
                .out_data(dq_out_d[g*DQW +: DQW]), .count(), .overflow());
            /* verilator lint_on PINCONNECTEMPTY */
            wire is_rsp = mq_out_d[g*MQW + 128];
            assign h2d_req_valid[g] = mq_out_v[g] && !is_rsp;
            assign h2d_rsp_valid[g] = mq_out_v[g] && is_rsp;
            assign mq_out_r[g] = is_rsp ? h2d_rsp_ready[g] : h2d_req_ready[g];
            assign h2d_req_hdr[g*128 +: 128] = mq_out_d[g*MQW +: 128];
            assign h2d_rsp_hdr[g*128 +: 128] = mq_out_d[g*MQW +: 128];
            wire [11:0] dq_cqid = dq_out_d[g*DQW + 512 +: 12];
            wire [127:0] dh = {{(128 - CXL_H2D_DH_CACHEID_LSB - 4){1'b0}}, cid_of(PW'(g)),
                               {(CXL_H2D_DH_CACHEID_LSB - 12){1'b0}}, dq_cqid};
            assign h2d_data_hdr[g*128 +: 128] = dh;
            assign h2d_data_data[g*512 +: 512] = dq_out_d[g*DQW +: 512];
        end
    endgenerate

    /* verilator lint_off PINCONNECTEMPTY */
    fifo_mw #(.WIDTH(RQW), .DEPTH(QDEPTH), .W(2)) u_rq (
        .clk(clk), .rst(rst), .in_valid(rq_in_v), .in_data(rq_in_d), .free(rq_free),
        .out_valid(m2s_req_valid), .out_ready(m2s_req_ready), .out_data(rq_out_d), .count(), .overflow());
    fifo_mw #(.WIDTH(WQW), .DEPTH(QDEPTH), .W(1)) u_wq (
        .clk(clk), .rst(rst), .in_valid(wq_in_v), .in_data(wq_in_d), .free(wq_free),
        .out_valid(m2s_rwd_valid), .out_ready(m2s_rwd_ready), .out_data(wq_out_d), .count(), .overflow());
    /* verilator lint_on PINCONNECTEMPTY */

    reg [127:0] rq_h, wq_h;
    always @* begin
        rq_h = {128{1'b0}};
        rq_h[CXL_M2S_REQ_MEMOP_LSB +: CXL_M2S_REQ_MEMOP_W]         = CXL_M2S_REQ_OP_MEMRD;
        rq_h[CXL_M2S_REQ_METAFIELD_LSB +: CXL_M2S_REQ_METAFIELD_W] = METAFIELD_NOOP;
        rq_h[CXL_M2S_REQ_TAG_LSB +: CXL_M2S_REQ_TAG_W]             = 16'(rq_out_d[LW +: EW]);
        rq_h[CXL_M2S_REQ_ADDR_LSB +: CXL_M2S_REQ_ADDR_W]           = rq_out_d[0 +: LW];
        wq_h = {128{1'b0}};
        wq_h[CXL_M2S_RWD_MEMOP_LSB +: CXL_M2S_RWD_MEMOP_W]         = CXL_M2S_RWD_OP_MEMWR;
        wq_h[CXL_M2S_RWD_METAFIELD_LSB +: CXL_M2S_RWD_METAFIELD_W] = METAFIELD_NOOP;
        wq_h[CXL_M2S_RWD_TAG_LSB +: CXL_M2S_RWD_TAG_W]             = 16'(wq_out_d[512 + LW +: EW]);
        wq_h[CXL_M2S_RWD_ADDR_LSB +: CXL_M2S_RWD_ADDR_W]           = wq_out_d[512 +: LW];
    end
    assign m2s_req_hdr  = rq_h;
    assign m2s_rwd_hdr  = wq_h;
    assign m2s_rwd_data = wq_out_d[0 +: 512];

    // ------------------------------------------------------------------ table summaries
    reg [NTXN-1:0] retire;
    reg [N-1:0]    cmpl [0:NTXN-1];
    reg [EW:0]     nfree;
    reg [EW-1:0]   f0;
    reg            f0_ok;
    always @* begin
        nfree = {(EW+1){1'b0}};
        f0 = {EW{1'b0}};
        f0_ok = 1'b0;
        for (i1 = NTXN - 1; i1 >= 0; i1 = i1 - 1) begin
            cmpl[i1] = e_rgot[i1] & (~e_fexp[i1] | e_dgot[i1]);
            retire[i1] = e_v[i1] && e_started[i1] && e_dec[i1] && ((e_sent[i1] & ~cmpl[i1]) == {N{1'b0}}) &&
                        !e_mrd[i1] && !e_wrp[i1] && !e_pullp[i1] && !e_gap[i1];
            if (!e_v[i1]) begin
                nfree = nfree + 1'b1;
                f0 = EW'(i1);
                f0_ok = 1'b1;
            end
        end
    end

    // ------------------------------------------------------------------ lane A: starts
    // Lane A's start decision is formed without a chain through the picks: every entry's own
    // directory lookup, every set's back-invalidation victim and every way's busy flag are
    // computed in parallel from the flops, and the picks (one-hot) select among them.

    // lowest set bit of a vector, one-hot
    function automatic [NTXN-1:0] first_e(input [NTXN-1:0] v);
        integer q;
        begin
            for (q = 0; q < NTXN; q = q + 1)
                first_e[q] = v[q] && ((v & ((NTXN)'(1) << q) - (NTXN)'(1)) == {NTXN{1'b0}});
        end
    endfunction

    function automatic [EW-1:0] enc_e(input [NTXN-1:0] oh);
        integer q;
        begin
            enc_e = {EW{1'b0}};
            for (q = 0; q < NTXN; q = q + 1)
                enc_e = enc_e | (EW'(q) & {EW{oh[q]}});
        end
    endfunction

    // directory set of each entry's line; m_tag[i*ND + w]: entry i's line is way w's tag
    reg [SB-1:0]       e_set [0:NTXN-1];
    reg [NTXN*ND-1:0]  m_tag;
    reg [ND-1:0]       w_busy;   // way w's tag is the line of a valid entry
    integer i2, w2;
    always @* begin
        w_busy = {ND{1'b0}};
        for (i2 = 0; i2 < NTXN; i2 = i2 + 1) begin
            e_set[i2] = (SETS > 1) ? e_line[i2][SB-1:0] : {SB{1'b0}};
            for (w2 = 0; w2 < ND; w2 = w2 + 1) begin
                m_tag[i2*ND + w2] = e_line[i2] == d_tag[w2];
                if (e_v[i2] && m_tag[i2*ND + w2]) w_busy[w2] = 1'b1;
            end
        end
    end

    // Directory lookup of a line as one-hot way picks without an index: way w is in the line's set
    // (a decode of the set bits) and, among those, the lowest valid way holding the line / the
    // lowest invalid way. The hit way's state is an AND-OR over the ways.
    function automatic [ND-1:0] in_set(input [SB-1:0] st);
        integer w;
        begin
            for (w = 0; w < ND; w = w + 1) in_set[w] = (SETS == 1) || (32'(st) == w / WAYS);
        end
    endfunction

    // lowest set bit within each set's ways
    function automatic [ND-1:0] first_w(input [ND-1:0] v);
        integer w, k;
        begin
            for (w = 0; w < ND; w = w + 1) begin
                first_w[w] = v[w];
                for (k = (w / WAYS) * WAYS; k < w; k = k + 1)
                    first_w[w] = first_w[w] & ~v[k];
            end
        end
    endfunction

    function automatic [DIW-1:0] enc_w(input [ND-1:0] oh);
        integer w;
        begin
            enc_w = {DIW{1'b0}};
            for (w = 0; w < ND; w = w + 1)
                enc_w = enc_w | (DIW'(w) & {DIW{oh[w]}});
        end
    endfunction

    function automatic [1:0] st_of(input [ND-1:0] oh);
        integer w;
        begin
            st_of = 2'd0;
            for (w = 0; w < ND; w = w + 1)
                st_of = st_of | (d_st[w] & {2{oh[w]}});
        end
    endfunction

    function automatic [N-1:0] sh_of(input [ND-1:0] oh);
        integer w;
        begin
            sh_of = {N{1'b0}};
            for (w = 0; w < ND; w = w + 1)
                sh_of = sh_of | (d_sh[w] & {N{oh[w]}});
        end
    endfunction

    // each entry's own lookup (lowest hitting way, lowest free way) and its hit way's state
    reg [NTXN-1:0] i_hit, i_free;
    reg [DIW-1:0]  i_hitw [0:NTXN-1];
    reg [DIW-1:0]  i_freew [0:NTXN-1];
    reg [1:0]      i_st [0:NTXN-1];
    reg [N-1:0]    i_sh [0:NTXN-1];
    reg [ND-1:0]   i_hoh, i_foh;
    integer i7;
    always @* begin
        for (i7 = 0; i7 < NTXN; i7 = i7 + 1) begin
            i_hoh = first_w(d_v & m_tag[i7*ND +: ND] & in_set(e_set[i7]));
            i_foh = first_w(~d_v & in_set(e_set[i7]));
            i_hit[i7]  = i_hoh != {ND{1'b0}};
            i_free[i7] = i_foh != {ND{1'b0}};
            i_hitw[i7]  = enc_w(i_hoh);
            i_freew[i7] = enc_w(i_foh);
            i_st[i7] = e_coh[i7] ? st_of(i_hoh) : DI;
            i_sh[i7] = e_coh[i7] ? sh_of(i_hoh) : {N{1'b0}};
        end
    end

    // source 1: a table entry ready to start (awaiting-way retries first, lowest index)
    wire [NTXN-1:0] a_rc = e_v & ~e_started & ~e_wp & e_awt & e_retry;
    wire [NTXN-1:0] a_nc = e_v & ~e_started & ~e_wp & ~e_awt;
    wire [NTXN-1:0] a_oh = (a_rc != {NTXN{1'b0}}) ? first_e(a_rc) : first_e(a_nc);
    wire            a_int = (a_rc != {NTXN{1'b0}}) || (a_nc != {NTXN{1'b0}});
    wire [EW-1:0]   a_ie = enc_e(a_oh);

    // source 2: back-invalidation for an entry waiting for a way in a set with none running.
    // Per set: a back-invalidation running in it, and its victim (lowest way that is valid, held
    // by some device and not the line of a valid entry) with room for SnpInv in every holder's
    // queue.
    reg [SETS-1:0]  v_binv, v_ok, v_qok;
    reg [DIW-1:0]   v_way [0:SETS-1];
    reg [N-1:0]     mq_ok;       // room for the merged queue's writers of one cycle
    integer s3, k3, p3;
    always @* begin
        for (p3 = 0; p3 < N; p3 = p3 + 1) mq_ok[p3] = mq_free[p3*CW +: CW] >= MQ_NEED;
        for (s3 = 0; s3 < SETS; s3 = s3 + 1) begin
            v_binv[s3] = 1'b0;
            for (k3 = 0; k3 < NTXN; k3 = k3 + 1)
                if (e_v[k3] && e_binv[k3] && (SETS == 1 || 32'(e_set[k3]) == s3)) v_binv[s3] = 1'b1;
            v_ok[s3] = 1'b0;
            v_way[s3] = {DIW{1'b0}};
            for (k3 = WAYS - 1; k3 >= 0; k3 = k3 - 1)
                if (d_v[s3 * WAYS + k3] && !w_busy[s3 * WAYS + k3] && (d_sh[s3 * WAYS + k3] != {N{1'b0}})) begin
                    v_ok[s3] = 1'b1;
                    v_way[s3] = DIW'(s3 * WAYS + k3);
                end
            v_qok[s3] = (d_sh[v_way[s3]] & ~mq_ok) == {N{1'b0}};
        end
    end
    reg [NTXN-1:0] k_c;
    reg [NTXN-1:0] k_vok, k_qok;
    integer i3;
    always @* begin
        for (i3 = 0; i3 < NTXN; i3 = i3 + 1) begin
            k_c[i3]   = e_v[i3] && e_awt[i3] && !e_started[i3] && !v_binv[e_set[i3]];
            k_vok[i3] = v_ok[e_set[i3]];
            k_qok[i3] = v_qok[e_set[i3]];
        end
    end
    wire [NTXN-1:0] k_oh     = first_e(k_c);
    wire            k_cand   = k_c != {NTXN{1'b0}};
    wire            k_vic_ok = (k_oh & k_vok) != {NTXN{1'b0}};
    wire            k_ok     = (k_oh & k_qok) != {NTXN{1'b0}};
    reg  [SB-1:0]   k_set;
    integer i1b;
    always @* begin
        k_set = {SB{1'b0}};
        for (i1b = 0; i1b < NTXN; i1b = i1b + 1)
            k_set = k_set | (e_set[i1b] & {SB{k_oh[i1b]}});
    end
    wire [DIW-1:0]  k_vic = v_way[k_set];

    // source 3: a new D2H request
    wire [N-1:0]  rq_grant;
    wire [PW-1:0] rq_gidx;
    wire          rq_any;
    reg           rq_adv;
    rr_arbiter #(.N(N)) u_req_arb (.clk(clk), .rst(rst), .req(d2h_req_valid), .advance(rq_adv),
                                   .grant(rq_grant), .grant_idx(rq_gidx), .any(rq_any));
    // selective coherence of each port's request line: in [lo, hi) of an enabled range, each bound
    // a (greater, equal) compare tree (gt_tree) instead of a carry chain
    wire [N*NRANGE-1:0] p_lo_gt, p_hi_gt;   // lo > line, hi > line
    reg  [N-1:0]        p_cohv;
    generate
        for (g = 0; g < N * NRANGE; g = g + 1) begin : g_coh
            gt_tree #(.WIDTH(LW)) u_lo (
                .a(cfg_coh_lo[(g % NRANGE) * LW +: LW]),
                .b(d2h_req_hdr[(g / NRANGE) * 128 + CXL_D2H_REQ_ADDR_LSB +: LW]), .gt(p_lo_gt[g]));
            gt_tree #(.WIDTH(LW)) u_hi (
                .a(cfg_coh_hi[(g % NRANGE) * LW +: LW]),
                .b(d2h_req_hdr[(g / NRANGE) * 128 + CXL_D2H_REQ_ADDR_LSB +: LW]), .gt(p_hi_gt[g]));
        end
    endgenerate
    integer pc, rc;
    always @* begin
        for (pc = 0; pc < N; pc = pc + 1) begin
            p_cohv[pc] = 1'b0;
            for (rc = 0; rc < NRANGE; rc = rc + 1)
                if (cfg_coh_en[rc] && !p_lo_gt[pc * NRANGE + rc] && p_hi_gt[pc * NRANGE + rc])
                    p_cohv[pc] = 1'b1;
        end
    end

    // Every port's request is evaluated in parallel (its fields, coherence, directory lookup,
    // line conflict and duplicate CQID) and the arbiter's one-hot grant selects one (port 0 when
    // none is granted, the port rq_gidx names then).
    wire [N-1:0]  g_sel = rq_grant | {{(N - 1){1'b0}}, !rq_any};
    reg [LW-1:0]  p_line [0:N-1];
    reg [4:0]     p_op   [0:N-1];
    reg [11:0]    p_cqid [0:N-1];
    reg [EW-1:0]  p_tail [0:N-1];
    reg [DIW-1:0] p_hitw [0:N-1];
    reg [DIW-1:0] p_freew [0:N-1];
    reg [1:0]     p_st   [0:N-1];
    reg [N-1:0]   p_sh   [0:N-1];
    reg [N-1:0]   p_coh, p_dup, p_conf, p_hit, p_free;
    reg [SB-1:0]  p_set;
    reg [ND-1:0]  p_m, p_hoh, p_foh;
    integer p6, k6;
    always @* begin
        for (p6 = 0; p6 < N; p6 = p6 + 1) begin
            p_line[p6] = d2h_req_hdr[p6*128 + CXL_D2H_REQ_ADDR_LSB +: CXL_D2H_REQ_ADDR_W];
            p_op[p6]   = d2h_req_hdr[p6*128 + CXL_D2H_REQ_OPCODE_LSB +: CXL_D2H_REQ_OPCODE_W];
            p_cqid[p6] = d2h_req_hdr[p6*128 + CXL_D2H_REQ_CQID_LSB +: CXL_D2H_REQ_CQID_W];
            p_coh[p6]  = p_cohv[p6];
            // the request reuses the CQID of a request of its port still owed an H2D answer
            p_dup[p6] = 1'b0;
            // the request's line is busy: it chains behind the line's tail entry
            p_conf[p6] = 1'b0;
            p_tail[p6] = {EW{1'b0}};
            for (i6 = 0; i6 < NTXN; i6 = i6 + 1) begin
                if (e_v[i6] && !e_binv[i6] && 32'(e_port[i6]) == p6 && e_cqid[i6] == p_cqid[p6] &&
                    (!e_dec[i6] || e_mrd[i6] || e_gap[i6]))
                    p_dup[p6] = 1'b1;
                if (e_v[i6] && !retire[i6] && e_line[i6] == p_line[p6]) begin
                    p_conf[p6] = 1'b1;
                    if (e_tail[i6]) p_tail[p6] = EW'(i6);
                end
            end
            // directory lookup: lowest hitting way, lowest free way, the hit way's state
            p_set = (SETS > 1) ? p_line[p6][SB-1:0] : {SB{1'b0}};
            for (k6 = 0; k6 < ND; k6 = k6 + 1) p_m[k6] = d_tag[k6] == p_line[p6];
            p_hoh = first_w(d_v & p_m & in_set(p_set));
            p_foh = first_w(~d_v & in_set(p_set));
            p_hit[p6]  = p_hoh != {ND{1'b0}};
            p_free[p6] = p_foh != {ND{1'b0}};
            p_hitw[p6]  = enc_w(p_hoh);
            p_freew[p6] = enc_w(p_foh);
            p_st[p6] = p_coh[p6] ? st_of(p_hoh) : DI;
            p_sh[p6] = p_coh[p6] ? sh_of(p_hoh) : {N{1'b0}};
        end
    end

    reg [LW-1:0]  n_line;
    reg [4:0]     n_op;
    reg [11:0]    n_cqid;
    reg [EW-1:0]  n_tailidx;
    reg [DIW-1:0] n_hitw, n_freew;
    reg [1:0]     n_st;
    reg [N-1:0]   n_sh;
    reg           n_coh, n_dup, n_conf, n_hit, n_free;
    always @* begin
        n_line = {LW{1'b0}}; n_op = 5'd0; n_cqid = 12'd0; n_tailidx = {EW{1'b0}};
        n_hitw = {DIW{1'b0}}; n_freew = {DIW{1'b0}}; n_st = 2'd0; n_sh = {N{1'b0}};
        n_coh = 1'b0; n_dup = 1'b0; n_conf = 1'b0; n_hit = 1'b0; n_free = 1'b0;
        for (p6 = 0; p6 < N; p6 = p6 + 1) begin
            n_line    = n_line | (p_line[p6] & {LW{g_sel[p6]}});
            n_op      = n_op | (p_op[p6] & {5{g_sel[p6]}});
            n_cqid    = n_cqid | (p_cqid[p6] & {12{g_sel[p6]}});
            n_tailidx = n_tailidx | (p_tail[p6] & {EW{g_sel[p6]}});
            n_hitw    = n_hitw | (p_hitw[p6] & {DIW{g_sel[p6]}});
            n_freew   = n_freew | (p_freew[p6] & {DIW{g_sel[p6]}});
            n_st      = n_st | (p_st[p6] & {2{g_sel[p6]}});
            n_sh      = n_sh | (p_sh[p6] & {N{g_sel[p6]}});
            n_coh     = n_coh | (p_coh[p6] & g_sel[p6]);
            n_dup     = n_dup | (p_dup[p6] & g_sel[p6]);
            n_conf    = n_conf | (p_conf[p6] & g_sel[p6]);
            n_hit     = n_hit | (p_hit[p6] & g_sel[p6]);
            n_free    = n_free | (p_free[p6] & g_sel[p6]);
        end
    end

    // the start under evaluation (internal entry or new request)
    reg            a_kick;     // lane A does a back-invalidation this cycle
    reg            a_new;      // lane A considers the new request
    reg [LW-1:0]   s_line;
    reg [4:0]      s_op;
    reg [PW-1:0]   s_port;
    reg [11:0]     s_cqid;
    reg            s_coh;
    reg [EW-1:0]   s_e;        // entry that starts (internal) or is allocated (new)
    reg            s_hit, s_free;
    reg [DIW-1:0]  s_hitw, s_freew;
    reg            s_alloc, s_await;
    reg [1:0]      s_st;
    reg [N-1:0]    s_sh, s_me;
    reg            s_hway;
    reg [DIW-1:0]  s_way;
    reg            s_mqok;     // room in the requester's merged queue
    // the picked entry's values (AND-OR selects by the one-hot pick)
    reg [LW-1:0]   x_line;
    reg [4:0]      x_op;
    reg [PW-1:0]   x_port;
    reg [11:0]     x_cqid;
    reg            x_coh, x_hit, x_free, x_mqok;
    reg [DIW-1:0]  x_hitw, x_freew;
    reg [1:0]      x_st;
    reg [N-1:0]    x_sh;
    always @* begin
        x_line = {LW{1'b0}}; x_op = 5'd0; x_port = {PW{1'b0}}; x_cqid = 12'd0;
        x_coh = 1'b0; x_hit = 1'b0; x_free = 1'b0; x_mqok = 1'b0;
        x_hitw = {DIW{1'b0}}; x_freew = {DIW{1'b0}}; x_st = 2'd0; x_sh = {N{1'b0}};
        for (i4 = 0; i4 < NTXN; i4 = i4 + 1) begin
            x_line  = x_line | (e_line[i4] & {LW{a_oh[i4]}});
            x_op    = x_op | (e_op[i4] & {5{a_oh[i4]}});
            x_port  = x_port | (e_port[i4] & {PW{a_oh[i4]}});
            x_cqid  = x_cqid | (e_cqid[i4] & {12{a_oh[i4]}});
            x_coh   = x_coh | (e_coh[i4] & a_oh[i4]);
            x_hit   = x_hit | (i_hit[i4] & a_oh[i4]);
            x_free  = x_free | (i_free[i4] & a_oh[i4]);
            x_mqok  = x_mqok | (mq_ok[e_port[i4]] & a_oh[i4]);
            x_hitw  = x_hitw | (i_hitw[i4] & {DIW{a_oh[i4]}});
            x_freew = x_freew | (i_freew[i4] & {DIW{a_oh[i4]}});
            x_st    = x_st | (i_st[i4] & {2{a_oh[i4]}});
            x_sh    = x_sh | (i_sh[i4] & {N{a_oh[i4]}});
        end
    end
    always @* begin
        a_kick = !a_int && k_cand && k_vic_ok && f0_ok && k_ok;
        a_new  = !a_int && !a_kick && rq_any;
        s_e    = a_int ? a_ie : f0;
        s_line = a_int ? x_line : n_line;
        s_op   = a_int ? x_op : n_op;
        s_port = a_int ? x_port : rq_gidx;
        s_cqid = a_int ? x_cqid : n_cqid;
        s_coh  = a_int ? x_coh : n_coh;
        s_hit  = a_int ? x_hit : n_hit;
        s_free = a_int ? x_free : n_free;
        s_hitw = a_int ? x_hitw : n_hitw;
        s_freew = a_int ? x_freew : n_freew;
        s_mqok = a_int ? x_mqok : mq_ok[rq_gidx];
        s_alloc = s_coh && alloc_op(s_op);
        s_await = s_alloc && !s_hit && !s_free;
        if (a_int) begin
            s_st = x_st;
            s_sh = x_sh;
        end else begin
            s_st = n_st;
            s_sh = n_sh;
        end
        s_hway = s_coh && (s_hit || (s_alloc && s_free));
        s_way = s_hit ? s_hitw : s_freew;
        s_me = {N{1'b0}};
        s_me[s_port] = 1'b1;
    end

    // snoop plan (only recorded holders, never the requester)
    wire [2:0]   s_snp;
    wire [N-1:0] s_tgt;
    coh_snoop_plan #(.N(N)) u_plan (.op(s_op), .coh(s_coh), .st(s_st), .sh(s_sh), .me(s_me), .snp(s_snp),
                                    .tgt(s_tgt));

    // decision when no snoop is needed
    wire [1:0]   da_st;
    wire [N-1:0] da_sh;
    wire         da_go, da_mem, da_pull, da_acc, da_ga;
    /* verilator lint_off UNUSEDSIGNAL */
    wire         da_fwd, da_wfwd;  // nothing forwarded without a snoop
    /* verilator lint_on UNUSEDSIGNAL */
    wire [3:0]   da_gost, da_pullop, da_gast;
    wire         da_gaext;
    /* verilator lint_off UNUSEDSIGNAL */
    wire         da_fbk;  // nothing forwarded without a snoop
    /* verilator lint_on UNUSEDSIGNAL */
    coh_decide #(.N(N)) u_dec_a (
        .op(s_op), .me(s_me), .st(s_st), .sh(s_sh), .snooped({N{1'b0}}), .keepb({N{1'b0}}),
        .dirty(1'b0), .keeps(1'b0), .have_fwd(1'b0), .coh(s_coh),
        .n_st(da_st), .n_sh(da_sh), .go_v(da_go), .go_st(da_gost), .src_mem(da_mem), .src_fwd(da_fwd),
        .wfwd(da_wfwd), .pull_v(da_pull), .pull_op(da_pullop), .acc_pull(da_acc), .ga_v(da_ga),
        .ga_st(da_gast), .ga_ext(da_gaext), .fwd_bk(da_fbk));

    // lane A action and its output gating
    reg            a_start, a_alloc, a_chain, a_ill, a_decnow;
    reg            a_dup, a_lineless, a_lok, a_now;
    reg            a_ok;       // room for what the start writes (a back-invalidation checks k_ok)
    always @* begin
        if (s_tgt != {N{1'b0}}) a_ok = (s_tgt & ~mq_ok) == {N{1'b0}};
        else a_ok = (!(da_go || da_pull) || s_mqok) && !(da_mem && rq_free < RQ_NEED);
        // requests answered at once, without a table entry: duplicate CQID (dropped), not a request
        // opcode (GO-Err), CacheFlushed (GO-I); the answer needs room in the requester's queue
        a_dup      = a_new && n_dup;
        a_lineless = a_new && !n_dup && !legal_req(n_op);
        a_lok      = mq_ok[rq_gidx];
        a_now      = a_lineless && a_lok;
        a_ill      = a_now && n_op != CXL_D2H_REQ_OP_CACHEFLUSHED;
        a_chain = a_new && !a_dup && !a_lineless && n_conf && nfree >= 2;
        // a new request is accepted only while one entry stays free for a back-invalidation
        a_alloc = a_new && !a_dup && !a_lineless && !n_conf && nfree >= 2;
        a_start = (a_int || a_alloc) && !s_await && a_ok;
        a_decnow = a_start && s_tgt == {N{1'b0}};
        rq_adv  = a_new && (a_dup || a_now || a_chain || (a_alloc && (s_await || a_ok)));
    end
    assign d2h_req_ready = rq_adv ? rq_grant : {N{1'b0}};
    assign trc_valid = a_start || a_kick;
    assign trc_binv  = a_kick;
    assign trc_line  = a_kick ? d_tag[k_vic] : s_line;
    assign trc_port  = a_kick ? {PW{1'b0}} : s_port;
    assign trc_cqid  = a_kick ? 12'd0 : s_cqid;

    // ------------------------------------------------------------------ lane B: D2H Rsp / Data
    wire [2*N-1:0] b_req = {d2h_data_valid, d2h_rsp_valid};
    wire [2*N-1:0] b_grant;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [BW-1:0]  b_gidx;   // lane B selects by the one-hot grant
    /* verilator lint_on UNUSEDSIGNAL */
    wire           b_any;
    reg            b_adv;
    rr_arbiter #(.N(2 * N)) u_rsp_arb (.clk(clk), .rst(rst), .req(b_req), .advance(b_adv),
                                       .grant(b_grant), .grant_idx(b_gidx), .any(b_any));
    // Every source (D2H Rsp of port p: source p; D2H Data of port p: source N + p) is evaluated in
    // parallel: its UQID's entry and port, the checks, the entry's snoop-answer record with this
    // answer added and whether it is the last one, the queue room on the entry's port. The
    // arbiter's one-hot grant (source 0 when none) selects one; lane B's coh_decide follows.
    localparam integer NS = 2 * N;
    wire [NS-1:0]  b_sel = b_grant | {{(NS - 1){1'b0}}, !b_any};
    reg [NTXN-1:0] j_eoh;                          // the source's entry, one-hot (0: out of range)
    reg [127:0]    j_hdr;
    reg [11:0]     j_uq;
    reg [4:0]      j_rop, j_ropx;
    reg            j_pull, j_rng, j_bep, j_legal, j_isfwd, j_iskeeps, j_iskeep, j_isdirty;
    reg [EW-1:0]   j_e [0:NS-1];
    reg [PW-1:0]   j_q [0:NS-1];
    reg [N-1:0]    j_qh;
    // the entry's fields read through the one-hot
    reg            j_v, j_started, j_pullp, j_binv, j_coh, j_dirty, j_keeps, j_hfwd, j_acc, j_fbk, j_gap;
    reg [PW-1:0]   j_port;
    reg [2:0]      j_snp;
    reg [N-1:0]    j_sent, j_rgot, j_fexp, j_dgot, j_keepb, j_cmpl;
    // per-source results
    reg [NS-1:0]   j_acc_rsp, j_acc_data, j_acc_pull, j_clr_d, j_done, j_ok, j_pdirty, j_pkeeps, j_phfwd;
    reg [5:0]      j_err   [0:NS-1];
    reg [N-1:0]    j_xrgot [0:NS-1];
    reg [N-1:0]    j_xfexp [0:NS-1];
    reg [N-1:0]    j_xdgot [0:NS-1];
    reg [N-1:0]    j_xkeepb [0:NS-1];
    reg [N-1:0]    j_me    [0:NS-1];
    reg [N-1:0]    jx_cmpl;
    reg [N-1:0]    dq_ok;
    integer js, je, jp;
    always @* begin
        for (jp = 0; jp < N; jp = jp + 1) dq_ok[jp] = dq_free[jp*CW +: CW] >= DQ_NEED;
        for (js = 0; js < NS; js = js + 1) begin
            j_hdr = (js >= N) ? d2h_data_hdr[(js - N) * 128 +: 128] : d2h_rsp_hdr[js * 128 +: 128];
            j_uq  = (js >= N) ? j_hdr[CXL_D2H_DH_UQID_LSB +: 12] : j_hdr[CXL_D2H_RSP_UQID_LSB +: 12];
            j_rop = j_hdr[CXL_D2H_RSP_OPCODE_LSB +: CXL_D2H_RSP_OPCODE_W];
            j_bep = j_hdr[CXL_D2H_DH_BEP_LSB];
            j_pull = j_uq[11];
            j_e[js] = j_pull ? j_uq[0 +: EW] : j_uq[PW +: EW];
            j_q[js] = j_uq[0 +: PW];
            j_rng = j_pull ? ((j_uq[10:0] >> EW) == 11'd0) : ((j_uq[10:0] >> (EW + PW)) == 11'd0);
            if (32'(j_e[js]) >= NTXN) j_rng = 1'b0;
            if (!j_pull && 32'(j_q[js]) >= N) j_rng = 1'b0;
            for (je = 0; je < NTXN; je = je + 1) j_eoh[je] = j_e[js] == EW'(je);
            j_qh = {N{1'b0}};
            for (jp = 0; jp < N; jp = jp + 1) j_qh[jp] = j_q[js] == PW'(jp);
            j_v = 1'b0; j_started = 1'b0; j_pullp = 1'b0; j_binv = 1'b0; j_coh = 1'b0; j_dirty = 1'b0;
            j_keeps = 1'b0; j_hfwd = 1'b0; j_acc = 1'b0; j_fbk = 1'b0; j_gap = 1'b0;
            j_port = {PW{1'b0}}; j_snp = 3'd0;
            j_sent = {N{1'b0}}; j_rgot = {N{1'b0}}; j_fexp = {N{1'b0}}; j_dgot = {N{1'b0}};
            j_keepb = {N{1'b0}}; j_cmpl = {N{1'b0}};
            for (je = 0; je < NTXN; je = je + 1) begin
                j_v = j_v | (e_v[je] & j_eoh[je]);
                j_started = j_started | (e_started[je] & j_eoh[je]);
                j_pullp = j_pullp | (e_pullp[je] & j_eoh[je]);
                j_binv = j_binv | (e_binv[je] & j_eoh[je]);
                j_coh = j_coh | (e_coh[je] & j_eoh[je]);
                j_dirty = j_dirty | (e_dirty[je] & j_eoh[je]);
                j_keeps = j_keeps | (e_keeps[je] & j_eoh[je]);
                j_hfwd = j_hfwd | (e_hfwd[je] & j_eoh[je]);
                j_acc = j_acc | (e_acc[je] & j_eoh[je]);
                j_fbk = j_fbk | (e_fbk[je] & j_eoh[je]);
                j_gap = j_gap | (e_gap[je] & j_eoh[je]);
                j_port = j_port | (e_port[je] & {PW{j_eoh[je]}});
                j_snp = j_snp | (e_snp[je] & {3{j_eoh[je]}});
                j_sent = j_sent | (e_sent[je] & {N{j_eoh[je]}});
                j_rgot = j_rgot | (e_rgot[je] & {N{j_eoh[je]}});
                j_fexp = j_fexp | (e_fexp[je] & {N{j_eoh[je]}});
                j_dgot = j_dgot | (e_dgot[je] & {N{j_eoh[je]}});
                j_keepb = j_keepb | (e_keepb[je] & {N{j_eoh[je]}});
                j_cmpl = j_cmpl | (cmpl[je] & {N{j_eoh[je]}});
            end
            j_legal = legal_rsp(j_snp, j_rop);
            j_ropx = j_legal ? j_rop : CXL_D2H_RSP_OP_RSPIHITI;
            j_isfwd   = j_ropx == CXL_D2H_RSP_OP_RSPSFWDM || j_ropx == CXL_D2H_RSP_OP_RSPIFWDM ||
                        j_ropx == CXL_D2H_RSP_OP_RSPVFWDV;
            j_iskeeps = j_ropx == CXL_D2H_RSP_OP_RSPSHITSE || j_ropx == CXL_D2H_RSP_OP_RSPSFWDM;
            j_iskeep  = j_iskeeps || j_ropx == CXL_D2H_RSP_OP_RSPVHITV || j_ropx == CXL_D2H_RSP_OP_RSPVFWDV;
            j_isdirty = j_ropx == CXL_D2H_RSP_OP_RSPSFWDM || j_ropx == CXL_D2H_RSP_OP_RSPIFWDM;
            j_err[js] = 6'd0;
            j_acc_rsp[js] = 1'b0; j_acc_data[js] = 1'b0; j_acc_pull[js] = 1'b0; j_clr_d[js] = 1'b0;
            if (js < N) begin
                if (!(!j_pull && j_rng && j_v && j_started && ((j_sent & ~j_cmpl & j_qh) != {N{1'b0}})))
                    j_err[js][(j_pull && j_rng && j_v && j_pullp) ? E_WRONG : E_USRSP] = 1'b1;
                else if (32'(j_q[js]) != js || ((j_rgot & j_qh) != {N{1'b0}})) j_err[js][E_WRONG] = 1'b1;
                else begin
                    j_acc_rsp[js] = 1'b1;
                    if (!j_legal) j_err[js][E_ILLRSP] = 1'b1;
                    if (!j_isfwd && ((j_dgot & j_qh) != {N{1'b0}})) begin
                        j_clr_d[js] = 1'b1; j_err[js][E_USDATA] = 1'b1;
                    end
                end
            end else if (j_pull) begin
                if (!(j_rng && j_v && j_pullp)) j_err[js][E_USDATA] = 1'b1;
                else if (32'(j_port) != js - N) j_err[js][E_WRONG] = 1'b1;
                else begin
                    j_acc_pull[js] = 1'b1;
                    if (j_bep) j_err[js][E_USDATA] = 1'b1;  // byte enables this agent cannot apply
                end
            end else begin
                if (!(j_rng && j_v && j_started && ((j_sent & ~j_cmpl & j_qh) != {N{1'b0}})))
                    j_err[js][E_USDATA] = 1'b1;
                else if (32'(j_q[js]) != js - N) j_err[js][E_WRONG] = 1'b1;
                else if (((j_dgot & j_qh) != {N{1'b0}}) || ((j_rgot & ~j_fexp & j_qh) != {N{1'b0}}))
                    j_err[js][E_USDATA] = 1'b1;
                else j_acc_data[js] = 1'b1;
            end
            j_xrgot[js]  = j_rgot | (j_acc_rsp[js] ? j_qh : {N{1'b0}});
            j_xfexp[js]  = j_fexp | ((j_acc_rsp[js] && j_isfwd) ? j_qh : {N{1'b0}});
            j_xkeepb[js] = j_keepb | ((j_acc_rsp[js] && j_iskeep) ? j_qh : {N{1'b0}});
            j_xdgot[js]  = (j_dgot | (j_acc_data[js] ? j_qh : {N{1'b0}})) & ~(j_clr_d[js] ? j_qh : {N{1'b0}});
            j_pdirty[js] = j_dirty || (j_acc_rsp[js] && j_isdirty);
            j_pkeeps[js] = j_keeps || (j_acc_rsp[js] && j_iskeeps);
            jx_cmpl      = j_xrgot[js] & (~j_xfexp[js] | j_xdgot[js]);
            j_phfwd[js]  = j_hfwd || ((j_acc_rsp[js] || j_acc_data[js]) &&
                                      ((j_xrgot[js] & j_xfexp[js] & j_xdgot[js] & j_qh) != {N{1'b0}}));
            j_done[js]   = (j_acc_rsp[js] || j_acc_data[js]) && ((j_sent & ~jx_cmpl) == {N{1'b0}});
            j_me[js] = {N{1'b0}};
            for (jp = 0; jp < N; jp = jp + 1) j_me[js][jp] = j_port == PW'(jp);
            // queue room on the entry's port (port 0 for a response naming no live entry)
            j_ok[js] = rq_free >= RQ_NEED && wq_free >= WQ_NEED &&
                       ((j_rng && j_v) ? (mq_ok[j_port] && dq_ok[j_port]) : (mq_ok[0] && dq_ok[0]));
        end
    end

    // the granted source's values
    reg [EW-1:0]   b_e;
    reg [PW-1:0]   b_q;
    reg            b_acc_rsp, b_acc_data, b_acc_pull, b_clr_d, b_done, b_ok;
    reg            b_bogus, b_bep;
    reg [5:0]      b_err;
    reg [N-1:0]    bx_rgot, bx_fexp, bx_dgot, bx_keepb, b_me;
    reg            bx_dirty, bx_keeps, bx_hfwd;
    reg [511:0]    b_data, b_fval;
    integer jb;
    always @* begin
        b_e = {EW{1'b0}}; b_q = {PW{1'b0}};
        b_acc_rsp = 1'b0; b_acc_data = 1'b0; b_acc_pull = 1'b0; b_clr_d = 1'b0; b_done = 1'b0;
        b_ok = 1'b0; b_bogus = 1'b0; b_bep = 1'b0; b_err = 6'd0;
        bx_rgot = {N{1'b0}}; bx_fexp = {N{1'b0}}; bx_dgot = {N{1'b0}}; bx_keepb = {N{1'b0}};
        b_me = {N{1'b0}}; bx_dirty = 1'b0; bx_keeps = 1'b0; bx_hfwd = 1'b0;
        b_data = {512{1'b0}};
        for (jb = 0; jb < NS; jb = jb + 1) begin
            b_e = b_e | (j_e[jb] & {EW{b_sel[jb]}});
            b_q = b_q | (j_q[jb] & {PW{b_sel[jb]}});
            b_acc_rsp = b_acc_rsp | (j_acc_rsp[jb] & b_sel[jb]);
            b_acc_data = b_acc_data | (j_acc_data[jb] & b_sel[jb]);
            b_acc_pull = b_acc_pull | (j_acc_pull[jb] & b_sel[jb]);
            b_clr_d = b_clr_d | (j_clr_d[jb] & b_sel[jb]);
            b_done = b_done | (j_done[jb] & b_sel[jb]);
            b_ok = b_ok | (j_ok[jb] & b_sel[jb]);
            b_err = b_err | (j_err[jb] & {6{b_sel[jb]}});
            bx_rgot = bx_rgot | (j_xrgot[jb] & {N{b_sel[jb]}});
            bx_fexp = bx_fexp | (j_xfexp[jb] & {N{b_sel[jb]}});
            bx_dgot = bx_dgot | (j_xdgot[jb] & {N{b_sel[jb]}});
            bx_keepb = bx_keepb | (j_xkeepb[jb] & {N{b_sel[jb]}});
            b_me = b_me | (j_me[jb] & {N{b_sel[jb]}});
            bx_dirty = bx_dirty | (j_pdirty[jb] & b_sel[jb]);
            bx_keeps = bx_keeps | (j_pkeeps[jb] & b_sel[jb]);
            bx_hfwd = bx_hfwd | (j_phfwd[jb] & b_sel[jb]);
            b_bogus = b_bogus | (((jb >= N) ? d2h_data_hdr[(jb % N) * 128 + CXL_D2H_DH_BOGUS_LSB]
                                            : d2h_rsp_hdr[(jb % N) * 128 + CXL_D2H_DH_BOGUS_LSB]) & b_sel[jb]);
            b_bep = b_bep | (((jb >= N) ? d2h_data_hdr[(jb % N) * 128 + CXL_D2H_DH_BEP_LSB]
                                        : d2h_rsp_hdr[(jb % N) * 128 + CXL_D2H_DH_BEP_LSB]) & b_sel[jb]);
            b_data = b_data | (d2h_data_data[(jb % N) * 512 +: 512] & {512{b_sel[jb]}});
        end
        b_fval = b_acc_data ? b_data : e_fbuf[b_e];
    end

    wire [1:0]   db_st;
    wire [N-1:0] db_sh;
    wire         db_go, db_mem, db_fwd, db_wfwd, db_pull, db_acc, db_ga;
    wire [3:0]   db_gost, db_pullop, db_gast;
    wire         db_gaext, db_fbk;
    coh_decide #(.N(N)) u_dec_b (
        .op(e_op[b_e]), .me(b_me), .st(e_dst[b_e]), .sh(e_dsh[b_e]), .snooped(e_sent[b_e]),
        .keepb(bx_keepb), .dirty(bx_dirty), .keeps(bx_keeps), .have_fwd(bx_hfwd), .coh(e_coh[b_e]),
        .n_st(db_st), .n_sh(db_sh), .go_v(db_go), .go_st(db_gost), .src_mem(db_mem), .src_fwd(db_fwd),
        .wfwd(db_wfwd), .pull_v(db_pull), .pull_op(db_pullop), .acc_pull(db_acc), .ga_v(db_ga),
        .ga_st(db_gast), .ga_ext(db_gaext), .fwd_bk(db_fbk));

    // Queue space is checked on the entry's port; a response naming no live entry (dropped with an
    // error) checks port 0 instead of an entry's port that was never written (j_ok above).
    reg b_fire, b_dec, b_bdone, b_pwr, b_pnew, b_pgo;
    always @* begin
        b_fire = b_any && b_ok;
        b_adv = b_fire;
        b_dec   = b_fire && b_done && !e_binv[b_e];
        b_bdone = b_fire && b_done && e_binv[b_e];
        b_pnew  = e_acc[b_e] && !b_bogus && !b_bep;                        // the pulled line is written
        b_pwr   = b_fire && b_acc_pull && (b_pnew || e_fbk[b_e]);         // a line goes to memory
        b_pgo   = b_fire && b_acc_pull && e_gap[b_e] && !b_pwr;          // GO / ExtCmp now
    end
    assign d2h_rsp_ready  = b_fire ? b_grant[N-1:0] : {N{1'b0}};
    assign d2h_data_ready = b_fire ? b_grant[2*N-1:N] : {N{1'b0}};

    // ------------------------------------------------------------------ lane C: S2M
    wire [15:0]   c_dtag = s2m_drs_hdr[CXL_S2M_DRS_TAG_LSB +: CXL_S2M_DRS_TAG_W];
    wire [EW-1:0] c_de   = c_dtag[EW-1:0];
    wire          c_dok  = ((c_dtag >> EW) == 16'd0) && 32'(c_de) < NTXN && e_v[c_de] && e_mrd[c_de] &&
                           s2m_drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: CXL_S2M_DRS_MEMOP_W] == CXL_S2M_DRS_OP_MEMDATA;
    wire          c_dfire = s2m_drs_valid && (!c_dok || dq_free[e_port[c_de] * CW +: CW] >= DQ_NEED);
    wire [15:0]   c_ntag = s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: CXL_S2M_NDR_TAG_W];
    wire [EW-1:0] c_ne   = c_ntag[EW-1:0];
    wire          c_nok  = ((c_ntag >> EW) == 16'd0) && 32'(c_ne) < NTXN && e_v[c_ne] && e_wrp[c_ne] &&
                           s2m_ndr_hdr[CXL_S2M_NDR_MEMOP_LSB +: CXL_S2M_NDR_MEMOP_W] == CXL_S2M_NDR_OP_CMP;
    wire          c_nfire = s2m_ndr_valid && (!c_nok || mq_free[e_port[c_ne] * CW +: CW] >= MQ_NEED);
    wire          c_ngo   = c_nfire && c_nok && e_gap[c_ne] && !e_pullp[c_ne];
    assign s2m_drs_ready = c_dfire;
    assign s2m_ndr_ready = c_nfire;

    // ------------------------------------------------------------------ queue writes
    // the H2D Rsp an entry sends once its memory writes completed: GO (e_gast) or ExtCmp
    function automatic [127:0] after_h(input [EW-1:0] e);
        after_h = e_gaext[e] ? h2d_rsp_h(CXL_H2D_RSP_OP_EXTCMP, 12'd0, e_cqid[e], cid_of(e_port[e]))
                             : h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'(e_gast[e]), e_cqid[e], cid_of(e_port[e]));
    endfunction

    always @* begin
        mq_in_v = {N*3{1'b0}};
        mq_in_d = {N*3*MQW{1'b0}};
        dq_in_v = {N*2{1'b0}};
        dq_in_d = {N*2*DQW{1'b0}};
        for (i8 = 0; i8 < N; i8 = i8 + 1) begin
            // lane A: snoops, or the answer of a request decided at start. The four cases exclude
            // each other (a back-invalidation, a start and an at-once answer are one lane A action;
            // a start with snoops is not decided at start), so each is an AND-OR term.
            mq_in_v[i8*3 + 0] = (a_kick && d_sh[k_vic][i8]) || (a_start && s_tgt[i8]) ||
                                (a_now && rq_gidx == PW'(i8)) ||
                                (a_decnow && s_port == PW'(i8) && (da_go || da_pull));
            mq_in_d[(i8*3 + 0)*MQW +: MQW] =
                ({MQW{a_kick && d_sh[k_vic][i8]}} & {1'b0, h2d_req_h(CXL_H2D_REQ_OP_SNPINV, d_tag[k_vic],
                                                  snp_uqid(f0, PW'(i8)), cid_of(PW'(i8)))}) |
                ({MQW{a_start && s_tgt[i8]}} & {1'b0, h2d_req_h(s_snp, s_line, snp_uqid(s_e, PW'(i8)),
                                                                 cid_of(PW'(i8)))}) |
                // CacheFlushed: GO-I; an opcode that is not a request: GO-Err
                ({MQW{a_now && rq_gidx == PW'(i8)}} & {1'b1, h2d_rsp_h(CXL_H2D_RSP_OP_GO,
                    12'(a_ill ? CXL_GO_STATE_ERR : CXL_GO_STATE_I), n_cqid, cid_of(rq_gidx))}) |
                ({MQW{a_decnow && s_port == PW'(i8) && (da_go || da_pull)}} & {1'b1,
                    da_go ? h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'(da_gost), s_cqid, cid_of(s_port))
                          : h2d_rsp_h(da_pullop, (da_pullop == CXL_H2D_RSP_OP_GO_WRITEPULL_DROP) ? 12'd0
                                                 : pull_uqid(s_e), s_cqid, cid_of(s_port))});
            // lane B: answer after the snoops, or the GO of a write-pull with nothing to wait for
            if (e_port[b_e] == PW'(i8) && ((b_dec && (db_go || db_pull)) || b_pgo)) begin
                mq_in_v[i8*3 + 1] = 1'b1;
                mq_in_d[(i8*3 + 1)*MQW +: MQW] = {1'b1,
                    b_pgo ? after_h(b_e)
                  : db_go ? h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'(db_gost), e_cqid[b_e], cid_of(e_port[b_e]))
                  : h2d_rsp_h(db_pullop, (db_pullop == CXL_H2D_RSP_OP_GO_WRITEPULL_DROP) ? 12'd0
                                         : pull_uqid(b_e), e_cqid[b_e], cid_of(e_port[b_e]))};
            end
            if (e_port[b_e] == PW'(i8) && b_dec && db_fwd) begin
                dq_in_v[i8*2 + 0] = 1'b1;
                dq_in_d[(i8*2 + 0)*DQW +: DQW] = {e_cqid[b_e], b_fval};
            end
            // lane C: MemRd data to the requester; GO once the last memory write completed
            if (c_ngo && e_port[c_ne] == PW'(i8)) begin
                mq_in_v[i8*3 + 2] = 1'b1;
                mq_in_d[(i8*3 + 2)*MQW +: MQW] = {1'b1, after_h(c_ne)};
            end
            if (c_dfire && c_dok && e_port[c_de] == PW'(i8)) begin
                dq_in_v[i8*2 + 1] = 1'b1;
                dq_in_d[(i8*2 + 1)*DQW +: DQW] = {e_cqid[c_de], s2m_drs_data};
            end
        end
        rq_in_v = {a_decnow && da_mem, b_dec && db_mem};
        rq_in_d = {EW'(s_e), s_line, EW'(b_e), e_line[b_e]};
        wq_in_v = (b_dec && db_wfwd) || (b_bdone && bx_dirty && bx_hfwd) || b_pwr;
        wq_in_d = {EW'(b_e), e_line[b_e], (b_pwr && b_pnew) ? b_data : b_fval};
    end

    wire c_derr = c_dfire && !c_dok;
    wire c_nerr = c_nfire && !c_nok;

    function automatic [CNT_W-1:0] sat_add(input [CNT_W-1:0] a, input [1:0] b);
        reg [CNT_W:0] t;
        begin
            t = {1'b0, a} + (CNT_W+1)'(b);
            sat_add = t[CNT_W] ? {CNT_W{1'b1}} : t[CNT_W-1:0];
        end
    endfunction

    // ------------------------------------------------------------------ sequential state
    wire a_dir_we = a_kick ? 1'b0 : (a_start && s_hway);
    wire any_retire = |retire;
    wire retry_evt = any_retire || (a_decnow && s_hway) || b_dec || b_bdone;
    wire [N-1:0] a_sent = a_kick ? d_sh[k_vic] : s_tgt;

    always @(posedge clk) begin
        if (rst) begin
            e_v <= {NTXN{1'b0}};
            e_started <= {NTXN{1'b0}};
            e_dec <= {NTXN{1'b0}};
            e_wp <= {NTXN{1'b0}};
            e_awt <= {NTXN{1'b0}};
            e_retry <= {NTXN{1'b0}};
            e_mrd <= {NTXN{1'b0}};
            e_wrp <= {NTXN{1'b0}};
            e_pullp <= {NTXN{1'b0}};
            e_gap <= {NTXN{1'b0}};
            e_tail <= {NTXN{1'b0}};
            e_binv <= {NTXN{1'b0}};
            d_v <= {ND{1'b0}};
            err_pulse <= 6'd0;
            for (i9 = 0; i9 < NTXN; i9 = i9 + 1) begin
                e_sent[i9] <= {N{1'b0}};
                e_rgot[i9] <= {N{1'b0}};
                e_fexp[i9] <= {N{1'b0}};
                e_dgot[i9] <= {N{1'b0}};
            end
            for (i9 = 0; i9 < NERR; i9 = i9 + 1) e_cnt[i9] <= {CNT_W{1'b0}};
        end else begin
            // retire finished entries and wake their successors
            for (i9 = 0; i9 < NTXN; i9 = i9 + 1) begin
                if (retire[i9]) begin
                    e_v[i9] <= 1'b0;
                    e_started[i9] <= 1'b0;
                    e_dec[i9] <= 1'b0;
                    e_binv[i9] <= 1'b0;
                    e_tail[i9] <= 1'b0;
                    e_sent[i9] <= {N{1'b0}};
                end
                if (e_v[i9] && e_wp[i9] && retire[e_pred[i9]]) e_wp[i9] <= 1'b0;
            end

            // lane A
            if (a_kick) begin
                e_v[f0] <= 1'b1; e_binv[f0] <= 1'b1; e_started[f0] <= 1'b1; e_dec[f0] <= 1'b0;
                e_line[f0] <= d_tag[k_vic]; e_tail[f0] <= 1'b1; e_wp[f0] <= 1'b0; e_awt[f0] <= 1'b0;
                e_coh[f0] <= 1'b1; e_hway[f0] <= 1'b1; e_way[f0] <= k_vic;
                e_dst[f0] <= d_st[k_vic]; e_dsh[f0] <= d_sh[k_vic];
                e_snp[f0] <= CXL_H2D_REQ_OP_SNPINV; e_sent[f0] <= a_sent;
                e_rgot[f0] <= {N{1'b0}}; e_fexp[f0] <= {N{1'b0}}; e_dgot[f0] <= {N{1'b0}};
                e_keepb[f0] <= {N{1'b0}}; e_dirty[f0] <= 1'b0; e_keeps[f0] <= 1'b0; e_hfwd[f0] <= 1'b0;
                e_mrd[f0] <= 1'b0; e_wrp[f0] <= 1'b0; e_pullp[f0] <= 1'b0; e_gap[f0] <= 1'b0;
                e_gaext[f0] <= 1'b0; e_fbk[f0] <= 1'b0;
                e_acc[f0] <= 1'b0; e_port[f0] <= {PW{1'b0}}; e_op[f0] <= 5'd0; e_cqid[f0] <= 12'd0;
            end
            if (a_chain || a_alloc && (s_await || a_ok)) begin
                // new table entry
                e_v[f0] <= 1'b1; e_binv[f0] <= 1'b0; e_line[f0] <= n_line; e_op[f0] <= n_op;
                e_port[f0] <= rq_gidx; e_cqid[f0] <= n_cqid; e_coh[f0] <= n_coh;
                e_tail[f0] <= 1'b1; e_started[f0] <= 1'b0; e_dec[f0] <= 1'b0;
                e_wp[f0] <= a_chain; e_pred[f0] <= n_tailidx; e_awt[f0] <= 1'b0; e_retry[f0] <= 1'b0;
                e_sent[f0] <= {N{1'b0}}; e_rgot[f0] <= {N{1'b0}}; e_fexp[f0] <= {N{1'b0}};
                e_dgot[f0] <= {N{1'b0}};
                e_mrd[f0] <= 1'b0; e_wrp[f0] <= 1'b0; e_pullp[f0] <= 1'b0; e_gap[f0] <= 1'b0;
                if (a_chain) e_tail[n_tailidx] <= 1'b0;
            end
            if ((a_int || a_alloc) && s_await && !a_chain) begin
                e_awt[s_e] <= 1'b1;
                e_retry[s_e] <= 1'b0;
            end
            if (a_start) begin
                e_started[s_e] <= 1'b1; e_awt[s_e] <= 1'b0; e_retry[s_e] <= 1'b0;
                e_hway[s_e] <= s_hway; e_way[s_e] <= s_way; e_dst[s_e] <= s_st; e_dsh[s_e] <= s_sh;
                e_snp[s_e] <= s_snp; e_sent[s_e] <= a_sent;
                e_rgot[s_e] <= {N{1'b0}}; e_fexp[s_e] <= {N{1'b0}}; e_dgot[s_e] <= {N{1'b0}};
                e_keepb[s_e] <= {N{1'b0}}; e_dirty[s_e] <= 1'b0; e_keeps[s_e] <= 1'b0; e_hfwd[s_e] <= 1'b0;
                e_dec[s_e] <= a_decnow;
                e_mrd[s_e] <= a_decnow && da_mem;
                e_wrp[s_e] <= 1'b0;
                e_pullp[s_e] <= a_decnow && da_pull && da_pullop != CXL_H2D_RSP_OP_GO_WRITEPULL_DROP;
                e_acc[s_e] <= da_acc;
                e_gap[s_e] <= a_decnow && da_ga;
                e_gast[s_e] <= da_gast;
                e_gaext[s_e] <= da_gaext;
                e_fbk[s_e] <= 1'b0;
            end
            if (a_dir_we) begin
                if (!a_decnow) begin
                    if (!s_hit) begin  // reserve the way; the answer writes the real state
                        d_v[s_way] <= 1'b1; d_tag[s_way] <= s_line; d_st[s_way] <= DI; d_sh[s_way] <= {N{1'b0}};
                    end
                end else if (da_sh == {N{1'b0}}) begin
                    d_v[s_way] <= 1'b0;
                end else begin
                    d_v[s_way] <= 1'b1; d_tag[s_way] <= s_line; d_st[s_way] <= da_st; d_sh[s_way] <= da_sh;
                end
            end

            // a way or an entry may have become free: waiting-for-way entries try again
            for (i9 = 0; i9 < NTXN; i9 = i9 + 1)
                if (retry_evt && e_awt[i9]) e_retry[i9] <= 1'b1;
            if (retry_evt && (a_int || a_alloc) && s_await && !a_chain) e_retry[s_e] <= 1'b1;

            // lane B
            if (b_fire && (b_acc_rsp || b_acc_data || b_clr_d)) begin
                e_rgot[b_e] <= bx_rgot; e_fexp[b_e] <= bx_fexp; e_dgot[b_e] <= bx_dgot;
                e_keepb[b_e] <= bx_keepb; e_dirty[b_e] <= bx_dirty; e_keeps[b_e] <= bx_keeps;
                e_hfwd[b_e] <= bx_hfwd;
                if (b_acc_data) e_fbuf[b_e] <= b_data;
            end
            if (b_dec) begin
                e_dec[b_e] <= 1'b1;
                e_mrd[b_e] <= db_mem;
                e_wrp[b_e] <= db_wfwd;
                e_pullp[b_e] <= db_pull && db_pullop != CXL_H2D_RSP_OP_GO_WRITEPULL_DROP;
                e_acc[b_e] <= db_acc;
                e_gap[b_e] <= db_ga;
                e_gast[b_e] <= db_gast;
                e_gaext[b_e] <= db_gaext;
                e_fbk[b_e] <= db_fbk;
                if (e_coh[b_e] && e_hway[b_e]) begin
                    if (db_sh == {N{1'b0}}) begin
                        d_v[e_way[b_e]] <= 1'b0;
                    end else begin
                        d_st[e_way[b_e]] <= db_st; d_sh[e_way[b_e]] <= db_sh;
                    end
                end
            end
            if (b_bdone) begin
                e_dec[b_e] <= 1'b1;
                e_wrp[b_e] <= bx_dirty && bx_hfwd;
                d_v[e_way[b_e]] <= 1'b0;
            end
            if (b_fire && b_acc_pull) begin
                e_pullp[b_e] <= 1'b0;
                e_wrp[b_e] <= b_pwr;
                if (b_pgo) e_gap[b_e] <= 1'b0;
            end

            // lane C
            if (c_dfire && c_dok) e_mrd[c_de] <= 1'b0;
            if (c_nfire && c_nok) begin
                e_wrp[c_ne] <= 1'b0;
                if (c_ngo) e_gap[c_ne] <= 1'b0;
            end

            // errors
            err_pulse <= 6'd0;
            err_pulse[E_ILL] <= a_ill || a_dup;
            err_pulse[E_USRSP] <= b_fire && b_err[E_USRSP];
            err_pulse[E_USDATA] <= b_fire && b_err[E_USDATA];
            err_pulse[E_WRONG] <= b_fire && b_err[E_WRONG];
            err_pulse[E_ILLRSP] <= b_fire && b_err[E_ILLRSP];
            err_pulse[E_USMEM] <= c_derr || c_nerr;
            for (i9 = 0; i9 < NERR; i9 = i9 + 1) begin
                if (i9 == E_USMEM) begin
                    if (c_derr || c_nerr) e_cnt[i9] <= sat_add(e_cnt[i9], {1'b0, c_derr} + {1'b0, c_nerr});
                end else if ((i9 == E_ILL) ? (a_ill || a_dup) : (b_fire && b_err[i9])) begin
                    e_cnt[i9] <= sat_add(e_cnt[i9], 2'd1);
                end
            end
        end
    end

    generate
        for (g = 0; g < NERR; g = g + 1) begin : g_cnt
            assign err_count[g*CNT_W +: CNT_W] = e_cnt[g];
        end
    endgenerate
endmodule
`resetall
