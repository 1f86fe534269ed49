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
// Three lanes work in parallel every cycle, each a short pipeline (rtl/coherence/README.md,
// "Micro-architecture"):
//   A  starts one transaction per cycle (a waiting entry, a back-invalidation or a new D2H request).
//      Stage 1 picks it and looks its line up (directory hit way, line conflict, duplicate CQID,
//      coherence compares); stage 2 reads the hit way's state, plans the snoops and decides the
//      answer when no snoop is needed. The back-invalidation candidate is registered one cycle
//      before stage 1;
//   B  takes one D2H Rsp or D2H Data: captured, then checked against its entry (snoop-answer record
//      updated), then, for the last snoop answer of a transaction, decided;
//   C  takes S2M DRS (MemRd data -> H2D Data) and S2M NDR (write completions, GO after them).
// Every lane's queue writes pass one register (the write stage) before the output queues. Per
// device port, snoops and H2D responses share one ordered queue, so a snoop never passes an older
// GO to the same device. GO for a memory read is sent at the decision, before the data (CXL allows
// either order; the device holds a snoop to that line until its data arrived).
//
// Every request is answered (models/coherence/spec_table.yaml): CacheFlushed gets GO-I (no line, no
// table entry), an opcode that is not a request gets GO-Err, a request reusing the CQID of a
// request still owed an answer is dropped; all three are decided in lane A's stage 2. A snoop
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
    localparam integer HW   = LW / 2;          // coherence bounds are compared as two halves
    localparam integer PW   = (N > 1) ? $clog2(N) : 1;
    localparam integer BW   = $clog2(2 * N);
    localparam integer EW   = (NTXN > 1) ? $clog2(NTXN) : 1;
    localparam integer SB   = (SETS > 1) ? $clog2(SETS) : 1;
    localparam integer ND   = SETS * WAYS;
    localparam integer DIW  = (ND > 1) ? $clog2(ND) : 1;
    localparam integer CW   = $clog2(QDEPTH + 1);
    localparam integer NS   = 2 * N;           // lane B sources: D2H Rsp of port p (p), D2H Data (N + p)
    localparam integer NERR = 6;
    localparam integer E_ILL = 0, E_USRSP = 1, E_USDATA = 2, E_WRONG = 3, E_ILLRSP = 4, E_USMEM = 5;
    localparam [1:0] DI = 2'd0;
    localparam integer MQW  = 1 + 128;         // merged H2D queue: {is_rsp, header}
    localparam integer DQW  = 12 + 512;        // H2D data queue: {cqid, line}
    localparam integer RQW  = EW + LW;         // MemRd queue: {tag, line}
    localparam integer WQW  = EW + LW + 512;   // MemWr queue: {tag, line, data}
    localparam integer MQ_NEED = 3;            // merged queue writers per cycle (lanes A, B, C)
    localparam integer DQ_NEED = 2;            // data queue writers (lanes B, C)
    localparam integer RQ_NEED = 2;            // MemRd queue writers (lanes A, B)
    localparam integer WQ_NEED = 1;            // MemWr queue writer (lane B)
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

    // lowest set bit of a vector, one-hot
    function automatic [NTXN-1:0] first_e(input [NTXN-1:0] v);
        integer q;
        begin
            for (q = 0; q < NTXN; q = q + 1)
                first_e[q] = v[q] && ((v & ((NTXN)'(1) << q) - (NTXN)'(1)) == {NTXN{1'b0}});
        end
    endfunction

    // number of set bits, saturated at 3, by a tree of saturating 2-bit adds
    localparam integer NT2 = 1 << EW;   // NTXN rounded up to a power of two
    function automatic [1:0] sat3(input [NTXN-1:0] v);
        reg [2*NT2-1:0] c;
        integer q, w;
        begin
            c = {2*NT2{1'b0}};
            for (q = 0; q < NTXN; q = q + 1) c[2*q] = v[q];
            for (w = NT2; w > 1; w = w / 2)
                for (q = 0; q < w / 2; q = q + 1)
                    c[2*q +: 2] = {c[4*q + 1] | c[4*q + 3] | (c[4*q] & c[4*q + 2]),
                                   (c[4*q] ^ c[4*q + 2]) | (c[4*q + 1] & (c[4*q + 3] | c[4*q + 2])) |
                                   (c[4*q + 3] & c[4*q])};
            sat3 = c[1:0];
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

    function automatic [N-1:0] oh_p(input [PW-1:0] p);
        integer q;
        begin
            for (q = 0; q < N; q = q + 1) oh_p[q] = p == PW'(q);
        end
    endfunction

    // ------------------------------------------------------------------ state
    // transaction table
    reg [NTXN-1:0] e_v, e_started, e_dec, e_binv, e_coh, e_wp, e_tail, e_awt, e_retry;
    reg [NTXN-1:0] e_hway, e_dirty, e_keeps, e_mrd, e_wrp, e_pullp, e_acc, e_gap;
    reg [NTXN-1:0] e_gaext;  // the message after the memory write is ExtCmp (not GO)
    reg [NTXN-1:0] e_fbk;    // the pull brings no usable line: write the forwarded line instead
    reg [NTXN-1:0] e_ll;     // a request without a line (CacheFlushed, not a request opcode) waiting
                             // for room for its GO-I / GO-Err
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
    reg [511:0]    e_fbuf  [0:NTXN-1];   // forwarded line, or the pulled line to be written
    // snoop filter
    reg [ND-1:0]   d_v;
    reg [LW-1:0]   d_tag [0:ND-1];
    reg [1:0]      d_st  [0:ND-1];
    reg [N-1:0]    d_sh  [0:ND-1];
    // error counters
    reg [CNT_W-1:0] e_cnt [0:NERR-1];

    integer i1, i8, i9;  // one set of loop variables per always block

    // ------------------------------------------------------------------ output queues
    // The lanes' writes (the *_n* vectors) are registered in the write stage (mq_in_*, ...) and
    // enter the queues the cycle after. A lane writes only when the queue's space, less what the
    // write stage holds, is enough for every writer of that queue (the *_ok flags): the writes of
    // this cycle then find that space when they enter the queue.
    reg  [N*3-1:0]      mq_nv, mq_in_v;
    reg  [N*3*MQW-1:0]  mq_nd, mq_in_d;
    wire [N*CW-1:0]     mq_free;
    wire [N-1:0]        mq_out_v;
    wire [N*MQW-1:0]    mq_out_d;
    wire [N-1:0]        mq_out_r;
    reg  [N*2-1:0]      dq_nv, dq_in_v;
    reg  [N*2*DQW-1:0]  dq_nd, dq_in_d;
    wire [N*CW-1:0]     dq_free;
    wire [N*DQW-1:0]    dq_out_d;
    reg  [1:0]          rq_nv, rq_in_v;
    reg  [2*RQW-1:0]    rq_nd, rq_in_d;
    wire [CW-1:0]       rq_free;
    wire [RQW-1:0]      rq_out_d;
    reg                 wq_nv, wq_in_v;
    reg  [WQW-1:0]      wq_nd, wq_in_d;
    wire [CW-1:0]       wq_free;
    wire [WQW-1:0]      wq_out_d;

    always @(posedge clk) begin
        if (rst) begin
            mq_in_v <= {N*3{1'b0}};
            dq_in_v <= {N*2{1'b0}};
            rq_in_v <= 2'b00;
            wq_in_v <= 1'b0;
        end else begin
            mq_in_v <= mq_nv;
            dq_in_v <= dq_nv;
            rq_in_v <= rq_nv;
            wq_in_v <= wq_nv;
        end
        mq_in_d <= mq_nd;
        dq_in_d <= dq_nd;
        rq_in_d <= rq_nd;
        wq_in_d <= wq_nd;
    end

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

    // room for every writer of a queue this cycle (flops only: free space and write-stage valids)
    // (the write stage's valids, counted as a thermometer, against the free space's thresholds)
    // free >= k, for a constant k (false beyond the depth)
    function automatic ge(input [CW-1:0] free, input integer k);
        ge = (k > QDEPTH) ? 1'b0 : (free >= CW'(k));
    endfunction
    function automatic room(input [CW-1:0] free, input [2:0] v, input integer need);
        room = ge(free, need) && (v == 3'b000 || ge(free, need + 1)) &&
               (!((v[0] && v[1]) || (v[0] && v[2]) || (v[1] && v[2])) || ge(free, need + 2)) &&
               (v != 3'b111 || ge(free, need + 3));
    endfunction
    reg [N-1:0] mq_ok, dq_ok;
    reg         rq_ok, wq_ok;
    integer p0;
    always @* begin
        for (p0 = 0; p0 < N; p0 = p0 + 1) begin
            mq_ok[p0] = room(mq_free[p0*CW +: CW], mq_in_v[p0*3 +: 3], MQ_NEED);
            dq_ok[p0] = room(dq_free[p0*CW +: CW], {1'b0, dq_in_v[p0*2 +: 2]}, DQ_NEED);
        end
        rq_ok = room(rq_free, {1'b0, rq_in_v}, RQ_NEED);
        wq_ok = room(wq_free, {2'b00, wq_in_v}, WQ_NEED);
    end

    // ------------------------------------------------------------------ table summaries
    reg [NTXN-1:0] retire;
    reg [NTXN-1:0] e_hfwd;   // a forwarded line is in (some port answered with a forward, and its data came)
    reg [N-1:0]    cmpl [0:NTXN-1];
    always @* begin
        for (i1 = 0; i1 < NTXN; i1 = i1 + 1) begin
            cmpl[i1] = e_rgot[i1] & (~e_fexp[i1] | e_dgot[i1]);
            e_hfwd[i1] = (e_rgot[i1] & e_fexp[i1] & e_dgot[i1]) != {N{1'b0}};
            retire[i1] = e_v[i1] && e_started[i1] && e_dec[i1] && ((e_sent[i1] & ~cmpl[i1]) == {N{1'b0}}) &&
                        !e_mrd[i1] && !e_wrp[i1] && !e_pullp[i1] && !e_gap[i1];
        end
    end

    // ------------------------------------------------------------------ lane A
    // Stage 1 picks one start (a waiting entry first, then the registered back-invalidation
    // candidate, then a new D2H request) and looks it up: every entry's and every port's lookup is
    // formed in parallel from the flops and the inputs, and the one-hot picks select. Stage 2 (the
    // S register) decides. Stage 1 sees the table as it will be when stage 2 acts: the entry S
    // takes counts as taken and S's line as busy, so a request to S's line chains behind S.

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

    function automatic [LW-1:0] tag_of(input [ND-1:0] oh);
        integer w;
        begin
            tag_of = {LW{1'b0}};
            for (w = 0; w < ND; w = w + 1)
                tag_of = tag_of | (d_tag[w] & {LW{oh[w]}});
        end
    endfunction

    // stage 2 register S: the start being decided
    reg            s_v;
    reg            s_int, s_kick, s_new;   // a table entry, a back-invalidation, a new request
    reg [EW-1:0]   s_e;                    // the entry that starts / is taken
    reg [NTXN-1:0] s_eoh;                  // the same, one-hot
    reg [LW-1:0]   s_line;
    reg [4:0]      s_op;
    reg [PW-1:0]   s_port;
    reg [N-1:0]    s_poh;                  // s_port, one-hot
    reg [11:0]     s_cqid;
    reg            s_ecoh;                 // a table entry's coherence
    reg [7*NRANGE-1:0] s_cp;               // a new request's coherence compares (below)
    reg [ND-1:0]   s_hoh;                  // the way holding the line, one-hot (0: not held)
    reg [ND-1:0]   s_m;                    // a new request: ways whose tag is its line
    reg [ND-1:0]   s_setw;                 // the ways of the line's set
    reg            s_dup, s_conf;          // a new request: duplicate CQID, line busy
    reg            s_ll;                   // a request without a line (new, or a table entry's)
    reg [EW-1:0]   s_pred;                 // a new request to a busy line: the entry it chains behind
    reg [ND-1:0]   s_vic;                  // a back-invalidation: the victim way, one-hot
    // S takes a table entry when it acts (a back-invalidation, or a new request that is not
    // dropped); a back-invalidation or a new request with a line makes S's line busy
    wire           s_take = s_v && (s_kick || (s_new && !s_dup));
    wire           s_newl = s_v && s_new && !s_dup && !s_ll;
    wire           s_busy = s_newl || (s_v && s_kick);

    // directory set of each entry's line; m_tag[i*ND + w]: entry i's line is way w's tag
    reg [SB-1:0]       e_set [0:NTXN-1];
    reg [NTXN*ND-1:0]  m_tag;
    reg [ND-1:0]       t_busy;   // way w's tag is the line of a valid entry
    integer i2, w2;
    always @* begin
        t_busy = {ND{1'b0}};
        for (i2 = 0; i2 < NTXN; i2 = i2 + 1) begin
            e_set[i2] = (SETS > 1) ? e_line[i2][SB-1:0] : {SB{1'b0}};
            for (w2 = 0; w2 < ND; w2 = w2 + 1) begin
                m_tag[i2*ND + w2] = e_line[i2] == d_tag[w2];
                if (e_v[i2] && !e_ll[i2] && m_tag[i2*ND + w2]) t_busy[w2] = 1'b1;
            end
        end
    end

    // each entry's own lookup: the way holding its line
    reg [ND-1:0] i_hoh [0:NTXN-1];
    integer i7;
    always @* begin
        for (i7 = 0; i7 < NTXN; i7 = i7 + 1)
            i_hoh[i7] = first_w(d_v & m_tag[i7*ND +: ND] & in_set(e_set[i7]));
    end

    // source 1: a table entry ready to start. The pick is registered (awaiting-way retries first,
    // then the lowest index; neither the entry in S nor the one picked now) and is taken when the
    // entry is still ready to start.
    reg  [NTXN-1:0] ap_oh;
    wire [NTXN-1:0] s_intm  = (s_v && s_int) ? s_eoh : {NTXN{1'b0}};
    wire [NTXN-1:0] a_ready = e_v & ~e_started & ~e_wp & (~e_awt | e_retry) & ~s_intm;
    wire            a_int   = (ap_oh & a_ready) != {NTXN{1'b0}};
    wire [EW-1:0]   a_ie    = enc_e(ap_oh);
    wire [NTXN-1:0] a_excl  = s_intm | ap_oh;
    wire [NTXN-1:0] a_rc = e_v & ~e_started & ~e_wp & e_awt & e_retry & ~a_excl;
    wire [NTXN-1:0] a_nc = e_v & ~e_started & ~e_wp & ~e_awt & ~a_excl;
    always @(posedge clk)
        ap_oh <= rst ? {NTXN{1'b0}} : (a_rc != {NTXN{1'b0}}) ? first_e(a_rc) : first_e(a_nc);

    // free entries once S has taken its own: the lowest one is the next new request's or
    // back-invalidation's; a new request is accepted only while two are free, so a
    // back-invalidation always finds one
    wire [NTXN-1:0] fr    = ~e_v & ~(s_take ? s_eoh : {NTXN{1'b0}});
    wire [NTXN-1:0] f0_oh = first_e(fr);
    wire            f0_ok = fr != {NTXN{1'b0}};
    wire [EW-1:0]   f0    = enc_e(f0_oh);
    // two free once S has taken its own: S's entry is a free one
    wire [1:0]      nfree3   = sat3(~e_v);
    wire            nfree_ok = s_take ? (nfree3 == 2'd3) : nfree3[1];

    // source 2: the back-invalidation candidate, registered: the victim way (one-hot) of the set of
    // the lowest entry waiting for a way in a set with no back-invalidation running. The victim is
    // the lowest way of that set that is valid, held by some device and not the line of a valid
    // entry, of S's request, or of the request stage 1 takes this cycle.
    reg             kq_v;
    reg  [ND-1:0]   kq_vic;
    wire            kick_go = kq_v && (kq_vic != {ND{1'b0}}) && f0_ok;
    wire            a1_kick = !a_int && kick_go;
    reg             a1_new;               // stage 1 takes the new request
    reg  [ND-1:0]   n_m;                  // ways whose tag is the new request's line
    reg  [ND-1:0]   n_mv;                 // ways whose tag is the line of some presented request
    reg  [ND-1:0]   w_busy;
    reg  [ND-1:0]   v_oh;                 // each set's victim, one-hot within the set
    integer s3, k3;
    always @* begin
        // every presented request's line counts as busy (the one stage 1 takes among them)
        w_busy = t_busy | (s_newl ? s_m : {ND{1'b0}}) | n_mv;
        v_oh = {ND{1'b0}};
        for (s3 = 0; s3 < SETS; s3 = s3 + 1) begin
            for (k3 = WAYS - 1; k3 >= 0; k3 = k3 - 1)
                if (d_v[s3 * WAYS + k3] && !w_busy[s3 * WAYS + k3] && (d_sh[s3 * WAYS + k3] != {N{1'b0}})) begin
                    v_oh[s3 * WAYS +: WAYS] = {WAYS{1'b0}};
                    v_oh[s3 * WAYS + k3] = 1'b1;
                end
        end
    end
    reg [NTXN-1:0] k_c;
    reg [NTXN-1:0] i_bset;      // a back-invalidation runs in the entry's set
    reg [ND-1:0]   k_setw;      // the ways of the picked entry's set
    integer i3, k3b;
    always @* begin
        for (i3 = 0; i3 < NTXN; i3 = i3 + 1) begin
            i_bset[i3] = 1'b0;
            for (k3b = 0; k3b < NTXN; k3b = k3b + 1)
                if (e_v[k3b] && e_binv[k3b] && e_set[k3b] == e_set[i3]) i_bset[i3] = 1'b1;
            k_c[i3] = e_v[i3] && e_awt[i3] && !e_started[i3] && !i_bset[i3];
        end
    end
    wire [NTXN-1:0] k_oh = first_e(k_c);
    integer i3b;
    always @* begin
        k_setw = {ND{1'b0}};
        for (i3b = 0; i3b < NTXN; i3b = i3b + 1)
            k_setw = k_setw | (in_set(e_set[i3b]) & {ND{k_oh[i3b]}});
    end
    // one back-invalidation at a time through the stages: none is registered while one is in
    // stage 1 or in S
    always @(posedge clk) begin
        if (rst) kq_v <= 1'b0;
        else kq_v <= (k_c != {NTXN{1'b0}}) && !(s_v && s_kick) && !a1_kick;
        kq_vic <= v_oh & k_setw;
    end

    // source 3: a new D2H request
    wire [N-1:0]  rq_grant;
    wire [PW-1:0] rq_gidx;
    wire          rq_any;
    rr_arbiter #(.N(N)) u_req_arb (.clk(clk), .rst(rst), .req(d2h_req_valid), .advance(a1_new),
                                   .grant(rq_grant), .grant_idx(rq_gidx), .any(rq_any));
    always @* a1_new = !a_int && !kick_go && rq_any && nfree_ok;
    assign d2h_req_ready = a1_new ? rq_grant : {N{1'b0}};

    // Selective coherence of each port's request line: in [lo, hi) of an enabled range. Each bound
    // is compared as two halves (greater, by a gt_tree, and equal), and stage 2 joins them; per
    // range the seven bits {en, lo_gt_hi, lo_eq_hi, lo_gt_lo, hi_gt_hi, hi_eq_hi, hi_gt_lo}.
    wire [N*NRANGE-1:0] p_logh, p_logl, p_higl, p_high;   // bound half > line half
    generate
        for (g = 0; g < N * NRANGE; g = g + 1) begin : g_coh
            gt_tree #(.WIDTH(LW - HW)) u_loh (
                .a(cfg_coh_lo[(g % NRANGE) * LW + HW +: LW - HW]),
                .b(d2h_req_hdr[(g / NRANGE) * 128 + CXL_D2H_REQ_ADDR_LSB + HW +: LW - HW]), .gt(p_logh[g]));
            gt_tree #(.WIDTH(HW)) u_lol (
                .a(cfg_coh_lo[(g % NRANGE) * LW +: HW]),
                .b(d2h_req_hdr[(g / NRANGE) * 128 + CXL_D2H_REQ_ADDR_LSB +: HW]), .gt(p_logl[g]));
            gt_tree #(.WIDTH(LW - HW)) u_hih (
                .a(cfg_coh_hi[(g % NRANGE) * LW + HW +: LW - HW]),
                .b(d2h_req_hdr[(g / NRANGE) * 128 + CXL_D2H_REQ_ADDR_LSB + HW +: LW - HW]), .gt(p_high[g]));
            gt_tree #(.WIDTH(HW)) u_hil (
                .a(cfg_coh_hi[(g % NRANGE) * LW +: HW]),
                .b(d2h_req_hdr[(g / NRANGE) * 128 + CXL_D2H_REQ_ADDR_LSB +: HW]), .gt(p_higl[g]));
        end
    endgenerate

    function automatic coh_of(input [7*NRANGE-1:0] cp);
        integer r;
        reg lo_gt, hi_gt;
        begin
            coh_of = 1'b0;
            for (r = 0; r < NRANGE; r = r + 1) begin
                lo_gt = cp[r*7 + 5] || (cp[r*7 + 4] && cp[r*7 + 3]);
                hi_gt = cp[r*7 + 2] || (cp[r*7 + 1] && cp[r*7 + 0]);
                coh_of = coh_of | (cp[r*7 + 6] && !lo_gt && hi_gt);
            end
        end
    endfunction

    // Every port's request is evaluated in parallel (its fields, coherence compares, directory
    // lookup, line conflict and duplicate CQID) and the arbiter's one-hot grant selects one (port 0
    // when none is granted, the port rq_gidx names then).
    wire [N-1:0]  g_sel = rq_grant | {{(N - 1){1'b0}}, !rq_any};
    reg [LW-1:0]  p_line [0:N-1];
    reg [4:0]     p_op   [0:N-1];
    reg [11:0]    p_cqid [0:N-1];
    reg [EW-1:0]  p_pred [0:N-1];
    reg [ND-1:0]  p_m    [0:N-1];
    reg [ND-1:0]  p_hoh  [0:N-1];
    reg [7*NRANGE-1:0] p_cp [0:N-1];
    reg [N-1:0]   p_dup, p_conf;
    reg [SB-1:0]  p_set;
    reg           p_cs;          // the request's line is S's
    integer p6, i6, k6, r6;
    always @* begin
        for (p6 = 0; p6 < N; p6 = p6 + 1) begin
            p_line[p6] = d2h_req_hdr[p6*128 + CXL_D2H_REQ_ADDR_LSB +: CXL_D2H_REQ_ADDR_W];
            p_op[p6]   = d2h_req_hdr[p6*128 + CXL_D2H_REQ_OPCODE_LSB +: CXL_D2H_REQ_OPCODE_W];
            p_cqid[p6] = d2h_req_hdr[p6*128 + CXL_D2H_REQ_CQID_LSB +: CXL_D2H_REQ_CQID_W];
            for (r6 = 0; r6 < NRANGE; r6 = r6 + 1)
                p_cp[p6][r6*7 +: 7] = {cfg_coh_en[r6],
                    p_logh[p6*NRANGE + r6],
                    cfg_coh_lo[r6*LW + HW +: LW - HW] == p_line[p6][HW +: LW - HW],
                    p_logl[p6*NRANGE + r6],
                    p_high[p6*NRANGE + r6],
                    cfg_coh_hi[r6*LW + HW +: LW - HW] == p_line[p6][HW +: LW - HW],
                    p_higl[p6*NRANGE + r6]};
            // directory lookup: the way holding the line
            p_set = (SETS > 1) ? p_line[p6][SB-1:0] : {SB{1'b0}};
            for (k6 = 0; k6 < ND; k6 = k6 + 1) p_m[p6][k6] = d_tag[k6] == p_line[p6];
            p_hoh[p6] = first_w(d_v & p_m[p6] & in_set(p_set));
            // the request reuses the CQID of a request of its port still owed an H2D answer (in
            // the table, or S's)
            p_dup[p6] = s_v && s_new && !s_dup && 32'(s_port) == p6 && s_cqid == p_cqid[p6];
            // the request's line is busy: it chains behind the line's tail entry, or behind S (an
            // entry that retires meanwhile is gone when stage 2 acts, which then starts no wait)
            p_conf[p6] = 1'b0;
            p_pred[p6] = {EW{1'b0}};
            for (i6 = 0; i6 < NTXN; i6 = i6 + 1) begin
                if (e_v[i6] && !e_binv[i6] && 32'(e_port[i6]) == p6 && e_cqid[i6] == p_cqid[p6] &&
                    (!e_dec[i6] || e_mrd[i6] || e_gap[i6]))
                    p_dup[p6] = 1'b1;
                if (e_v[i6] && !e_ll[i6] && e_line[i6] == p_line[p6]) p_conf[p6] = 1'b1;
                // the line's tail entry (one per line)
                p_pred[p6] = p_pred[p6] | (EW'(i6) & {EW{e_v[i6] && !e_ll[i6] && e_tail[i6] &&
                                                         e_line[i6] == p_line[p6]}});
            end
            p_cs = s_busy && s_line == p_line[p6];
            if (p_cs) begin
                p_conf[p6] = 1'b1;
                p_pred[p6] = s_e;
            end
        end
    end

    reg [LW-1:0]  n_line;
    reg [4:0]     n_op;
    reg [11:0]    n_cqid;
    reg [EW-1:0]  n_pred;
    reg [ND-1:0]  n_hoh;
    reg [7*NRANGE-1:0] n_cp;
    reg           n_dup, n_conf;
    integer p6b;
    always @* begin
        n_line = {LW{1'b0}}; n_op = 5'd0; n_cqid = 12'd0; n_pred = {EW{1'b0}};
        n_hoh = {ND{1'b0}}; n_m = {ND{1'b0}}; n_cp = {7*NRANGE{1'b0}};
        n_dup = 1'b0; n_conf = 1'b0; n_mv = {ND{1'b0}};
        for (p6b = 0; p6b < N; p6b = p6b + 1) begin
            n_line = n_line | (p_line[p6b] & {LW{g_sel[p6b]}});
            n_op   = n_op | (p_op[p6b] & {5{g_sel[p6b]}});
            n_cqid = n_cqid | (p_cqid[p6b] & {12{g_sel[p6b]}});
            n_pred = n_pred | (p_pred[p6b] & {EW{g_sel[p6b]}});
            n_hoh  = n_hoh | (p_hoh[p6b] & {ND{g_sel[p6b]}});
            n_m    = n_m | (p_m[p6b] & {ND{g_sel[p6b]}});
            n_mv   = n_mv | (p_m[p6b] & {ND{d2h_req_valid[p6b]}});
            n_cp   = n_cp | (p_cp[p6b] & {7*NRANGE{g_sel[p6b]}});
            n_dup  = n_dup | (p_dup[p6b] & g_sel[p6b]);
            n_conf = n_conf | (p_conf[p6b] & g_sel[p6b]);
        end
    end

    // the picked entry's values (AND-OR selects by the one-hot pick)
    reg [LW-1:0]   x_line;
    reg [4:0]      x_op;
    reg [PW-1:0]   x_port;
    reg [11:0]     x_cqid;
    reg            x_coh, x_ll;
    reg [ND-1:0]   x_hoh;
    integer i4;
    always @* begin
        x_line = {LW{1'b0}}; x_op = 5'd0; x_port = {PW{1'b0}}; x_cqid = 12'd0;
        x_coh = 1'b0; x_ll = 1'b0; x_hoh = {ND{1'b0}};
        for (i4 = 0; i4 < NTXN; i4 = i4 + 1) begin
            x_line = x_line | (e_line[i4] & {LW{ap_oh[i4]}});
            x_op   = x_op | (e_op[i4] & {5{ap_oh[i4]}});
            x_port = x_port | (e_port[i4] & {PW{ap_oh[i4]}});
            x_cqid = x_cqid | (e_cqid[i4] & {12{ap_oh[i4]}});
            x_coh  = x_coh | (e_coh[i4] & ap_oh[i4]);
            x_ll   = x_ll | (e_ll[i4] & ap_oh[i4]);
            x_hoh  = x_hoh | (i_hoh[i4] & {ND{ap_oh[i4]}});
        end
    end

    // stage 1 -> S
    always @(posedge clk) begin
        if (rst) s_v <= 1'b0;
        else s_v <= a_int || a1_kick || a1_new;
        s_int  <= a_int;
        s_kick <= !a_int && kick_go;
        s_new  <= !a_int && !kick_go;
        s_e    <= a_int ? a_ie : f0;
        s_eoh  <= a_int ? ap_oh : f0_oh;
        s_line <= a_int ? x_line : kick_go ? tag_of(kq_vic) : n_line;
        s_op   <= a_int ? x_op : n_op;
        s_port <= a_int ? x_port : rq_gidx;
        s_poh  <= a_int ? oh_p(x_port) : rq_grant;
        s_cqid <= a_int ? x_cqid : n_cqid;
        s_ecoh <= x_coh;
        s_cp   <= n_cp;
        s_hoh  <= a_int ? x_hoh : n_hoh;
        s_m    <= n_m;
        s_dup  <= !a_int && n_dup;
        s_ll   <= a_int ? x_ll : !legal_req(n_op);
        s_conf <= n_conf;
        s_pred <= n_pred;
        s_vic  <= kq_vic;
        s_setw <= in_set(a_int ? x_line[SB-1:0] : n_line[SB-1:0]);
    end

    // ------------------------------------------------------------------ lane A, stage 2
    // The hit way's state and sharers and the set's free way are read from the directory now: a
    // way holding S's line changes only through a transaction on that line, and S is the only one.
    reg            s_coh, s_hit, s_free, s_alloc, s_await, s_hway, s_newp, s_intp;
    reg [1:0]      s_st;
    reg [N-1:0]    s_sh, s_me;
    reg [ND-1:0]   s_foh, s_woh;
    reg [DIW-1:0]  s_way;
    always @* begin
        s_coh  = s_int ? s_ecoh : coh_of(s_cp);
        s_st   = st_of(s_hoh);
        s_sh   = sh_of(s_hoh);
        s_hit  = s_hoh != {ND{1'b0}};
        s_foh  = first_w(~d_v & s_setw);
        s_free = (~d_v & s_setw) != {ND{1'b0}};
        s_me   = s_poh;
        s_alloc = s_coh && alloc_op(s_op);
        s_await = s_alloc && !s_hit && !s_free;
        s_hway  = s_coh && (s_hit || (s_alloc && s_free));
        s_woh   = s_hit ? s_hoh : s_foh;
        s_way   = enc_w(s_woh);
        s_newp  = s_new && !s_dup && !s_ll && !s_conf;   // a new request that may start now
        s_intp  = s_int && !s_ll;                        // a table entry with a line
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

    // the back-invalidation's victim: its line, state and holders
    wire [LW-1:0] v_line = s_line;   // the victim's tag, read in stage 1
    wire [N-1:0]  v_sh   = sh_of(s_vic);
    wire [1:0]    v_st   = st_of(s_vic);

    // Lane A action and its output gating. Room is checked for the requester and every holder of
    // the line (a superset of the snoop targets) and the MemRd queue, whatever the start writes.
    // A start without room leaves its entry to start later (a new request is entered in the table
    // first, a request without a line too); a back-invalidation without room is dropped (its
    // candidate is formed again).
    reg            a_start, a_alloc, a_chain, a_decnow, a_kick;
    reg            a_dup, a_lineless, a_lok, a_now, a_ill;
    reg            a_ok;       // room for what the start writes
    reg            a_pgone;    // the entry a new request chains behind is gone or retires now
    always @* begin
        a_ok       = (((s_sh | s_me) & ~mq_ok) == {N{1'b0}}) && rq_ok;
        a_kick     = s_v && s_kick && ((v_sh & ~mq_ok) == {N{1'b0}});
        // requests answered without a line: duplicate CQID (dropped), not a request opcode
        // (GO-Err), CacheFlushed (GO-I). The latter two take a table entry like every request: it
        // is answered and done at once when the requester's queue has room, else it waits there
        a_dup      = s_v && s_new && s_dup;
        a_lineless = s_v && (s_new || s_int) && !s_dup && s_ll;
        a_lok      = (mq_ok & s_poh) != {N{1'b0}};
        a_now      = a_lineless && a_lok;
        a_ill      = a_now && s_op != CXL_D2H_REQ_OP_CACHEFLUSHED;
        a_alloc    = s_v && s_new && !s_dup;
        a_chain    = a_alloc && s_conf && !s_ll;
        a_pgone    = retire[s_pred] || !e_v[s_pred];
        a_start = s_v && (s_intp || s_newp) && !s_await && a_ok;
        a_decnow = a_start && s_tgt == {N{1'b0}};
    end
    assign trc_valid = a_start || a_kick;
    assign trc_binv  = a_kick;
    assign trc_line  = s_kick ? v_line : s_line;
    assign trc_port  = s_kick ? {PW{1'b0}} : s_port;
    assign trc_cqid  = s_kick ? 12'd0 : s_cqid;

    // ------------------------------------------------------------------ lane B: D2H Rsp / Data
    // Capture (the granted source into the B register, its UQID decoded), B1 (the message against
    // its entry: checks, the snoop-answer record with this answer added, whether it is the last
    // one) and B2 (coh_decide, the answer and the
    // directory). B2 has a second (skid) slot, so B1 and the capture go on while B2 waits for queue
    // room, until that slot is taken.
    wire [NS-1:0]  b_req = {d2h_data_valid, d2h_rsp_valid};
    wire [NS-1:0]  b_grant;
    /* verilator lint_off UNUSEDSIGNAL */
    wire [BW-1:0]  b_gidx;   // lane B selects by the one-hot grant
    /* verilator lint_on UNUSEDSIGNAL */
    wire           b_any;
    wire           b_take;   // the B register is free or moves on this cycle
    wire           b_adv = b_any && b_take;
    rr_arbiter #(.N(NS)) u_rsp_arb (.clk(clk), .rst(rst), .req(b_req), .advance(b_adv),
                                    .grant(b_grant), .grant_idx(b_gidx), .any(b_any));
    assign d2h_rsp_ready  = b_adv ? b_grant[N-1:0] : {N{1'b0}};
    assign d2h_data_ready = b_adv ? b_grant[NS-1:N] : {N{1'b0}};

    // A snoop answer's meaning for each snoop kind k (0 SnpData, 1 SnpInv, 2 SnpCur), 5 bits each
    // {legal, forwards a line, keeps S, keeps a copy, dirty}, of the answer as taken (an answer
    // outside the snoop's legal set is taken as RspIHitI).
    function automatic [14:0] rsp_cls(input [4:0] rop);
        reg ihiti, shitse, ihitse, vhitv, sfwdm, ifwdm, vfwdv;
        reg [6:0] lg;   // per kind, the legal answers: {vfwdv, ifwdm, sfwdm, vhitv, ihitse, shitse, ihiti}
        integer k;
        begin
            ihiti  = rop == CXL_D2H_RSP_OP_RSPIHITI;
            shitse = rop == CXL_D2H_RSP_OP_RSPSHITSE;
            ihitse = rop == CXL_D2H_RSP_OP_RSPIHITSE;
            vhitv  = rop == CXL_D2H_RSP_OP_RSPVHITV;
            sfwdm  = rop == CXL_D2H_RSP_OP_RSPSFWDM;
            ifwdm  = rop == CXL_D2H_RSP_OP_RSPIFWDM;
            vfwdv  = rop == CXL_D2H_RSP_OP_RSPVFWDV;
            for (k = 0; k < 3; k = k + 1) begin
                // the legal answers of SnpData, SnpInv, SnpCur (shared/reference/cxl-protocol.md,
                // line 31-32)
                lg = (k == 0) ? 7'b0110011 : (k == 1) ? 7'b0100101 : 7'b1111011;
                rsp_cls[k*5 +: 5] = {
                    (lg[0] && ihiti) || (lg[1] && shitse) || (lg[2] && ihitse) || (lg[3] && vhitv) ||
                    (lg[4] && sfwdm) || (lg[5] && ifwdm) || (lg[6] && vfwdv),
                    (lg[4] && sfwdm) || (lg[5] && ifwdm) || (lg[6] && vfwdv),
                    (lg[1] && shitse) || (lg[4] && sfwdm),
                    (lg[1] && shitse) || (lg[4] && sfwdm) || (lg[3] && vhitv) || (lg[6] && vfwdv),
                    (lg[4] && sfwdm) || (lg[5] && ifwdm)};
            end
        end
    endfunction

    // every source's UQID decoded in parallel; the grant (source 0 when none) selects one
    wire [NS-1:0]  b_sel = b_grant | {{(NS - 1){1'b0}}, !b_any};
    reg [127:0]    j_hdr;
    reg [11:0]     j_uq;
    reg [EW-1:0]   j_e   [0:NS-1];
    reg [NTXN-1:0] j_eoh [0:NS-1];
    reg [PW-1:0]   j_q   [0:NS-1];
    reg [4:0]      j_rop [0:NS-1];
    reg [NS-1:0]   j_pull, j_rng, j_qm, j_bep, j_bogus;
    integer js, je;
    always @* begin
        for (js = 0; js < NS; js = js + 1) begin
            j_hdr = (js >= N) ? d2h_data_hdr[(js - N) * 128 +: 128] : d2h_rsp_hdr[js * 128 +: 128];
            j_uq  = (js >= N) ? j_hdr[CXL_D2H_DH_UQID_LSB +: 12] : j_hdr[CXL_D2H_RSP_UQID_LSB +: 12];
            j_rop[js] = j_hdr[CXL_D2H_RSP_OPCODE_LSB +: CXL_D2H_RSP_OPCODE_W];
            j_bep[js] = j_hdr[CXL_D2H_DH_BEP_LSB];
            j_bogus[js] = j_hdr[CXL_D2H_DH_BOGUS_LSB];
            j_pull[js] = j_uq[11];
            j_e[js] = j_uq[11] ? j_uq[0 +: EW] : j_uq[PW +: EW];
            j_q[js] = j_uq[0 +: PW];
            j_rng[js] = j_uq[11] ? ((j_uq[10:0] >> EW) == 11'd0) : ((j_uq[10:0] >> (EW + PW)) == 11'd0);
            if (32'(j_e[js]) >= NTXN) j_rng[js] = 1'b0;
            if (!j_uq[11] && 32'(j_q[js]) >= N) j_rng[js] = 1'b0;
            for (je = 0; je < NTXN; je = je + 1) j_eoh[js][je] = j_e[js] == EW'(je);
            // the UQID's port is the port the message came from
            j_qm[js] = 32'(j_q[js]) == js % N;
        end
    end

    // the B register
    reg            bq_v, bq_isd, bq_pull, bq_rng, bq_qm, bq_bep, bq_bogus;
    reg [EW-1:0]   bq_e;
    reg [NTXN-1:0] bq_eoh;
    reg [N-1:0]    bq_qh;           // the UQID's port, one-hot
    reg [PW-1:0]   bq_sp;           // the source port
    reg [4:0]      bq_rop;
    reg [511:0]    bq_d;
    reg [NTXN-1:0] bq_new;          // entries that sent something too recently to be answered (below)
    reg [EW-1:0]   c_e;
    reg [NTXN-1:0] c_eoh;
    reg [N-1:0]    c_qh;
    reg [PW-1:0]   c_sp;
    reg [4:0]      c_rop;
    reg            c_isd, c_pull, c_rng, c_qm, c_bep, c_bogus;
    reg [511:0]    c_d;
    integer jb;
    always @* begin
        c_e = {EW{1'b0}}; c_eoh = {NTXN{1'b0}}; c_qh = {N{1'b0}}; c_sp = {PW{1'b0}}; c_rop = 5'd0;
        c_isd = 1'b0; c_pull = 1'b0; c_rng = 1'b0; c_qm = 1'b0; c_bep = 1'b0; c_bogus = 1'b0;
        c_d = {512{1'b0}};
        for (jb = 0; jb < NS; jb = jb + 1) begin
            c_e = c_e | (j_e[jb] & {EW{b_sel[jb]}});
            c_eoh = c_eoh | (j_eoh[jb] & {NTXN{b_sel[jb]}});
            c_qh = c_qh | (oh_p(j_q[jb]) & {N{b_sel[jb]}});
            c_sp = c_sp | (PW'(jb % N) & {PW{b_sel[jb]}});
            c_rop = c_rop | (j_rop[jb] & {5{b_sel[jb]}});
            c_isd = c_isd | ((jb >= N) && b_sel[jb]);
            c_pull = c_pull | (j_pull[jb] & b_sel[jb]);
            c_rng = c_rng | (j_rng[jb] & b_sel[jb]);
            c_qm = c_qm | (j_qm[jb] & b_sel[jb]);
            c_bep = c_bep | (j_bep[jb] & b_sel[jb]);
            c_bogus = c_bogus | (j_bogus[jb] & b_sel[jb]);
            if (jb >= N) c_d = c_d | (d2h_data_data[(jb - N) * 512 +: 512] & {512{b_sel[jb]}});
        end
    end

    wire b1_go;      // B1 checks the B register's message this cycle
    assign b_take = !bq_v || b1_go;
    always @(posedge clk) begin
        if (rst) bq_v <= 1'b0;
        else if (b_take) bq_v <= b_any;
        if (b_adv) begin
            bq_isd <= c_isd; bq_pull <= c_pull; bq_rng <= c_rng; bq_qm <= c_qm; bq_bep <= c_bep;
            bq_bogus <= c_bogus; bq_e <= c_e; bq_eoh <= c_eoh; bq_qh <= c_qh; bq_sp <= c_sp;
            bq_rop <= c_rop; bq_d <= c_d;
        end
    end

    // B1: the message against its entry. Per entry, from the flops: the ports still owed an answer
    // (snooped and not complete) and the snoop kind, one-hot; the B register's one-hot picks.
    reg [N-1:0]    i_out [0:NTXN-1];
    reg [2:0]      i_sk  [0:NTXN-1];
    integer jd;
    always @* begin
        for (jd = 0; jd < NTXN; jd = jd + 1) begin
            i_out[jd] = e_sent[jd] & ~cmpl[jd];
            i_sk[jd]  = {e_snp[jd] != CXL_H2D_REQ_OP_SNPDATA && e_snp[jd] != CXL_H2D_REQ_OP_SNPINV,
                         e_snp[jd] == CXL_H2D_REQ_OP_SNPINV, e_snp[jd] == CXL_H2D_REQ_OP_SNPDATA};
        end
    end
    reg            j_v, j_started, j_pullp, j_binv, j_coh, j_dirty, j_keeps, j_hfwd, j_acc, j_fbk, j_gap;
    reg            j_hway;
    reg [PW-1:0]   j_port;
    reg [4:0]      j_op;
    reg [1:0]      j_dst;
    reg [2:0]      j_sk;
    reg [DIW-1:0]  j_way;
    reg [ND-1:0]   j_woh;
    reg [N-1:0]    j_dsh, j_sent, j_out, j_rgot, j_fexp, j_dgot, j_keepb;
    reg            j_legal, j_isfwd, j_iskeeps, j_iskeep, j_isdirty;
    wire [14:0]    b_cls = rsp_cls(bq_rop);
    reg            q_out, q_rgot, q_dgot, q_fexp, o_done, j_new, ok_live;
    reg            b_acc_rsp, b_acc_data, b_acc_pull, b_clr_d, b_pnew, b_pwr1, b_pgo1;
    reg [5:0]      b_err;
    reg [N-1:0]    bx_keepb;
    reg            bx_dirty, bx_keeps, bx_hfwd, b_hnew;
    integer jf;
    always @* begin
        j_v = 1'b0; j_started = 1'b0; j_pullp = 1'b0; j_binv = 1'b0; j_coh = 1'b0; j_dirty = 1'b0;
        j_keeps = 1'b0; j_hfwd = 1'b0; j_acc = 1'b0; j_fbk = 1'b0; j_gap = 1'b0; j_hway = 1'b0;
        j_port = {PW{1'b0}}; j_op = 5'd0; j_dst = 2'd0; j_sk = 3'd0; j_way = {DIW{1'b0}};
        j_dsh = {N{1'b0}}; j_sent = {N{1'b0}}; j_out = {N{1'b0}}; j_rgot = {N{1'b0}};
        j_fexp = {N{1'b0}}; j_dgot = {N{1'b0}}; j_keepb = {N{1'b0}};
        for (jf = 0; jf < NTXN; jf = jf + 1) begin
            j_v = j_v | (e_v[jf] & bq_eoh[jf]);
            j_started = j_started | (e_started[jf] & bq_eoh[jf]);
            j_pullp = j_pullp | (e_pullp[jf] & bq_eoh[jf]);
            j_binv = j_binv | (e_binv[jf] & bq_eoh[jf]);
            j_coh = j_coh | (e_coh[jf] & bq_eoh[jf]);
            j_hway = j_hway | (e_hway[jf] & bq_eoh[jf]);
            j_dirty = j_dirty | (e_dirty[jf] & bq_eoh[jf]);
            j_keeps = j_keeps | (e_keeps[jf] & bq_eoh[jf]);
            j_hfwd = j_hfwd | (e_hfwd[jf] & bq_eoh[jf]);
            j_acc = j_acc | (e_acc[jf] & bq_eoh[jf]);
            j_fbk = j_fbk | (e_fbk[jf] & bq_eoh[jf]);
            j_gap = j_gap | (e_gap[jf] & bq_eoh[jf]);
            j_port = j_port | (e_port[jf] & {PW{bq_eoh[jf]}});
            j_op = j_op | (e_op[jf] & {5{bq_eoh[jf]}});
            j_dst = j_dst | (e_dst[jf] & {2{bq_eoh[jf]}});
            j_sk = j_sk | (i_sk[jf] & {3{bq_eoh[jf]}});
            j_way = j_way | (e_way[jf] & {DIW{bq_eoh[jf]}});
            j_dsh = j_dsh | (e_dsh[jf] & {N{bq_eoh[jf]}});
            j_sent = j_sent | (e_sent[jf] & {N{bq_eoh[jf]}});
            j_out = j_out | (i_out[jf] & {N{bq_eoh[jf]}});
            j_rgot = j_rgot | (e_rgot[jf] & {N{bq_eoh[jf]}});
            j_fexp = j_fexp | (e_fexp[jf] & {N{bq_eoh[jf]}});
            j_dgot = j_dgot | (e_dgot[jf] & {N{bq_eoh[jf]}});
            j_keepb = j_keepb | (e_keepb[jf] & {N{bq_eoh[jf]}});
        end
        for (jf = 0; jf < ND; jf = jf + 1) j_woh[jf] = j_way == DIW'(jf);
        {j_legal, j_isfwd, j_iskeeps, j_iskeep, j_isdirty} =
            (b_cls[0 +: 5] & {5{j_sk[0]}}) | (b_cls[5 +: 5] & {5{j_sk[1]}}) | (b_cls[10 +: 5] & {5{j_sk[2]}});
        // the UQID's port: owed an answer, answered, data in, data expected; the other ports done
        q_out  = (j_out & bq_qh) != {N{1'b0}};
        q_rgot = (j_rgot & bq_qh) != {N{1'b0}};
        q_dgot = (j_dgot & bq_qh) != {N{1'b0}};
        q_fexp = (j_fexp & bq_qh) != {N{1'b0}};
        o_done = (j_out & ~bq_qh) == {N{1'b0}};
        j_new  = (bq_new & bq_eoh) != {NTXN{1'b0}};
        ok_live = !bq_pull && bq_rng && j_v && j_started && q_out && !j_new;
        b_err = 6'd0;
        b_acc_rsp = 1'b0; b_acc_data = 1'b0; b_acc_pull = 1'b0; b_clr_d = 1'b0;
        if (!bq_isd) begin
            if (!ok_live) b_err[(bq_pull && bq_rng && j_v && j_pullp && !j_new) ? E_WRONG : E_USRSP] = 1'b1;
            else if (!bq_qm || q_rgot) b_err[E_WRONG] = 1'b1;
            else begin
                b_acc_rsp = 1'b1;
                if (!j_legal) b_err[E_ILLRSP] = 1'b1;
                if (!j_isfwd && q_dgot) begin
                    b_clr_d = 1'b1; b_err[E_USDATA] = 1'b1;
                end
            end
        end else if (bq_pull) begin
            if (!(bq_rng && j_v && j_pullp && !j_new)) b_err[E_USDATA] = 1'b1;
            else if (j_port != bq_sp) b_err[E_WRONG] = 1'b1;
            else begin
                b_acc_pull = 1'b1;
                if (bq_bep) b_err[E_USDATA] = 1'b1;  // byte enables this agent cannot apply
            end
        end else begin
            if (!ok_live) b_err[E_USDATA] = 1'b1;
            else if (!bq_qm) b_err[E_WRONG] = 1'b1;
            else if (q_dgot || (q_rgot && !q_fexp)) b_err[E_USDATA] = 1'b1;
            else b_acc_data = 1'b1;
        end
        bx_keepb = j_keepb | ((b_acc_rsp && j_iskeep) ? bq_qh : {N{1'b0}});
        bx_dirty = j_dirty || (b_acc_rsp && j_isdirty);
        bx_keeps = j_keeps || (b_acc_rsp && j_iskeeps);
        // the line forwarded by the UQID's port is complete (answer and data in)
        b_hnew   = (b_acc_rsp && j_isfwd && q_dgot) || (b_acc_data && q_rgot && q_fexp);
        bx_hfwd  = j_hfwd || b_hnew;
        b_pnew   = j_acc && !bq_bogus && !bq_bep;          // the pulled line is written
        b_pwr1   = b_acc_pull && (b_pnew || j_fbk);       // a line goes to memory
        b_pgo1   = b_acc_pull && j_gap && !b_pwr1;        // GO / ExtCmp now
    end

    // B2 takes every accepted message: {other ports done, this port done, back-invalidation, pwr,
    // pgo, e, port, me, op, st, sh, sent, keepb, coh, hway, dirty, keeps, hfwd, entry one-hot, way
    // one-hot}; the last answer of a transaction (both "done" bits) is decided there
    localparam integer B2W = 5 + EW + PW + 4 * N + 5 + 2 + 5 + NTXN + ND;
    wire           b_qc = bq_isd ? (!bq_pull && q_rgot) : (!j_isfwd || q_dgot);
    wire [B2W-1:0] b1_r = {o_done, b_qc, j_binv, b_pwr1, b_pgo1, bq_e, j_port,
                           oh_p(j_port), j_op, j_dst, j_dsh, j_sent, bx_keepb, j_coh, j_hway,
                           bx_dirty, bx_keeps, bx_hfwd, bq_eoh, j_woh};
    wire           b1_has = b_acc_rsp || b_acc_data || b_acc_pull;   // B1 hands a message to B2
    reg            b2_v, bs_v;
    reg [B2W-1:0]  b2_r, bs_r;
    wire           b2_odone, b2_qc, b2_binv;
    wire           b2_pwr, b2_pgo, b2_coh, b2_hway, b2_dirty, b2_keeps, b2_hfwd;
    wire [EW-1:0]  b2_e;
    wire [PW-1:0]  b2_port;
    wire [4:0]     b2_op;
    wire [1:0]     b2_st;
    wire [N-1:0]   b2_me, b2_sh, b2_sent, b2_keepb;
    wire [NTXN-1:0] b2_eoh;
    wire [ND-1:0]  b2_woh;
    assign {b2_odone, b2_qc, b2_binv, b2_pwr, b2_pgo, b2_e, b2_port, b2_me, b2_op, b2_st, b2_sh, b2_sent, b2_keepb,
            b2_coh, b2_hway, b2_dirty, b2_keeps, b2_hfwd, b2_eoh, b2_woh} = b2_r;
    reg            b2_ok;
    integer jp;
    always @* begin
        b2_ok = 1'b0;
        for (jp = 0; jp < N; jp = jp + 1) b2_ok = b2_ok | (b2_me[jp] && mq_ok[jp] && dq_ok[jp]);
        b2_ok = b2_ok && rq_ok && wq_ok;
    end
    wire           b2_dec  = b2_odone && b2_qc && !b2_binv;   // the last answer of a request
    wire           b2_bd   = b2_odone && b2_qc && b2_binv;    // ... of a back-invalidation
    // B2 moves on when it writes nothing, or its queues have room
    wire           b2_move = !b2_v || !(b2_dec || b2_bd || b2_pwr || b2_pgo) || b2_ok;
    wire           b2_fire = b2_v && b2_ok;
    assign b1_go = bq_v && !bs_v;
    always @(posedge clk) begin
        if (rst) begin
            b2_v <= 1'b0;
            bs_v <= 1'b0;
        end else if (b2_move) begin
            b2_v <= bs_v || (b1_go && b1_has);
            bs_v <= 1'b0;
        end else if (b1_go && b1_has) begin
            bs_v <= 1'b1;
        end
        if (b2_move) b2_r <= bs_v ? bs_r : b1_r;
        if (!bs_v) bs_r <= b1_r;
    end

    wire [1:0]   db_st;
    wire [N-1:0] db_sh;
    wire         db_go, db_mem, db_fwd, db_wfwd, db_pull, db_acc, db_ga;
    wire [3:0]   db_gost, db_pullop, db_gast;
    wire         db_gaext, db_fbk;
    coh_decide #(.N(N)) u_dec_b (
        .op(b2_op), .me(b2_me), .st(b2_st), .sh(b2_sh), .snooped(b2_sent),
        .keepb(b2_keepb), .dirty(b2_dirty), .keeps(b2_keeps), .have_fwd(b2_hfwd), .coh(b2_coh),
        .n_st(db_st), .n_sh(db_sh), .go_v(db_go), .go_st(db_gost), .src_mem(db_mem), .src_fwd(db_fwd),
        .wfwd(db_wfwd), .pull_v(db_pull), .pull_op(db_pullop), .acc_pull(db_acc), .ga_v(db_ga),
        .ga_st(db_gast), .ga_ext(db_gaext), .fwd_bk(db_fbk));

    wire b_dec   = b2_fire && b2_dec;    // a transaction decided after its snoops
    wire b_bdone = b2_fire && b2_bd;     // a back-invalidation's snoops are in
    wire b_pwr   = b2_fire && b2_pwr;    // a pulled (or the forwarded) line goes to memory
    wire b_pgo   = b2_fire && b2_pgo;    // the GO / ExtCmp of a write-pull with nothing to wait for

    // ------------------------------------------------------------------ lane C: S2M
    // Taken while every port's queue of that kind has room (the ready is formed from flops).
    wire [15:0]   c_dtag = s2m_drs_hdr[CXL_S2M_DRS_TAG_LSB +: CXL_S2M_DRS_TAG_W];
    wire [EW-1:0] c_de   = c_dtag[EW-1:0];
    wire [NTXN-1:0] c_deoh = (NTXN)'(1) << c_de;
    reg  [NTXN-1:0] e_mrdq;    // memory read decided at start in the cycle before: not out yet
    reg  [NTXN-1:0] e_wpend;   // pulled line not yet in the write stage
    wire          c_dok  = ((c_dtag >> EW) == 16'd0) && 32'(c_de) < NTXN && e_v[c_de] && e_mrd[c_de] &&
                           !e_mrdq[c_de] &&
                           s2m_drs_hdr[CXL_S2M_DRS_MEMOP_LSB +: CXL_S2M_DRS_MEMOP_W] == CXL_S2M_DRS_OP_MEMDATA;
    assign s2m_drs_ready  = &dq_ok;
    wire          c_dfire = s2m_drs_valid && &dq_ok;
    wire [15:0]   c_ntag = s2m_ndr_hdr[CXL_S2M_NDR_TAG_LSB +: CXL_S2M_NDR_TAG_W];
    wire [EW-1:0] c_ne   = c_ntag[EW-1:0];
    wire [NTXN-1:0] c_neoh = (NTXN)'(1) << c_ne;
    wire          c_nok  = ((c_ntag >> EW) == 16'd0) && 32'(c_ne) < NTXN && e_v[c_ne] && e_wrp[c_ne] &&
                           !e_wpend[c_ne] &&
                           s2m_ndr_hdr[CXL_S2M_NDR_MEMOP_LSB +: CXL_S2M_NDR_MEMOP_W] == CXL_S2M_NDR_OP_CMP;
    assign s2m_ndr_ready  = &mq_ok;
    wire          c_nfire = s2m_ndr_valid && &mq_ok;
    wire          c_ngo   = c_nfire && c_nok && e_gap[c_ne] && !e_pullp[c_ne];

    // ------------------------------------------------------------------ queue writes
    // the H2D Rsp an entry sends once its memory writes completed: GO (e_gast) or ExtCmp
    function automatic [127:0] after_h(input [EW-1:0] e);
        after_h = e_gaext[e] ? h2d_rsp_h(CXL_H2D_RSP_OP_EXTCMP, 12'd0, e_cqid[e], cid_of(e_port[e]))
                             : h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'(e_gast[e]), e_cqid[e], cid_of(e_port[e]));
    endfunction

    wire [511:0] b2_fval = e_fbuf[b2_e];
    // lane A's H2D Rsp: CacheFlushed: GO-I; an opcode that is not a request: GO-Err; else the
    // answer decided at start
    wire [MQW-1:0] a_rsp = {1'b1, (s_ll && !s_kick) ?
        h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'((s_op != CXL_D2H_REQ_OP_CACHEFLUSHED) ? CXL_GO_STATE_ERR
                                                                              : CXL_GO_STATE_I),
                  s_cqid, cid_of(s_port)) :
        da_go ? h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'(da_gost), s_cqid, cid_of(s_port))
              : h2d_rsp_h(da_pullop, (da_pullop == CXL_H2D_RSP_OP_GO_WRITEPULL_DROP) ? 12'd0
                                     : pull_uqid(s_e), s_cqid, cid_of(s_port))};
    always @* begin
        mq_nv = {N*3{1'b0}};
        mq_nd = {N*3*MQW{1'b0}};
        dq_nv = {N*2{1'b0}};
        dq_nd = {N*2*DQW{1'b0}};
        for (i8 = 0; i8 < N; i8 = i8 + 1) begin
            // lane A: snoops, or the answer of a request decided at start or without a line. The
            // valid terms exclude each other (one lane A action per cycle; a start with snoops is
            // not decided at start); the header is picked by S's kind and the snoop targets.
            mq_nv[i8*3 + 0] = (a_kick && v_sh[i8]) || (a_start && s_tgt[i8]) ||
                              (a_now && s_port == PW'(i8)) ||
                              (a_decnow && s_port == PW'(i8) && (da_go || da_pull));
            mq_nd[(i8*3 + 0)*MQW +: MQW] = (s_kick || s_tgt[i8]) ?
                {1'b0, h2d_req_h(s_kick ? CXL_H2D_REQ_OP_SNPINV : s_snp, s_kick ? v_line : s_line,
                                 snp_uqid(s_e, PW'(i8)), cid_of(PW'(i8)))} : a_rsp;
            // lane B: answer after the snoops, or the GO of a write-pull with nothing to wait for
            if (b2_port == PW'(i8) && ((b_dec && (db_go || db_pull)) || b_pgo))
                mq_nv[i8*3 + 1] = 1'b1;
            mq_nd[(i8*3 + 1)*MQW +: MQW] = {1'b1,
                b2_pgo ? after_h(b2_e)
              : db_go ? h2d_rsp_h(CXL_H2D_RSP_OP_GO, 12'(db_gost), e_cqid[b2_e], cid_of(b2_port))
              : h2d_rsp_h(db_pullop, (db_pullop == CXL_H2D_RSP_OP_GO_WRITEPULL_DROP) ? 12'd0
                                     : pull_uqid(b2_e), e_cqid[b2_e], cid_of(b2_port))};
            if (b2_port == PW'(i8) && b_dec && db_fwd) dq_nv[i8*2 + 0] = 1'b1;
            dq_nd[(i8*2 + 0)*DQW +: DQW] = {e_cqid[b2_e], b2_fval};
            // lane C: MemRd data to the requester; GO once the last memory write completed
            if (c_ngo && e_port[c_ne] == PW'(i8)) mq_nv[i8*3 + 2] = 1'b1;
            mq_nd[(i8*3 + 2)*MQW +: MQW] = {1'b1, after_h(c_ne)};
            if (c_dfire && c_dok && e_port[c_de] == PW'(i8)) dq_nv[i8*2 + 1] = 1'b1;
            dq_nd[(i8*2 + 1)*DQW +: DQW] = {e_cqid[c_de], s2m_drs_data};
        end
        rq_nv = {a_decnow && da_mem, b_dec && db_mem};
        rq_nd = {EW'(s_e), s_line, EW'(b2_e), e_line[b2_e]};
        wq_nv = (b_dec && db_wfwd) || (b_bdone && b2_dirty && b2_hfwd) || b_pwr;
        wq_nd = {EW'(b2_e), e_line[b2_e], b2_fval};
    end

    reg  err_two;    // two unsolicited S2M messages in the pulse's cycle
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
    // A table entry is written by at most one lane in a cycle: stage 2 of lane A writes a free or a
    // not yet started entry, lane B a started one (B2 a not yet decided one, or one whose pull or
    // write-back holds it), lane C a decided one with a memory operation out, retire a finished
    // one. So each flag's next value is an AND-OR of the lanes' one-hot writes, with no priority
    // chain between them; the same holds for the directory (lane A writes S's hit or free way,
    // lane B the way of a transaction it decides).
    wire a_dir_we = a_start && s_hway;
    wire any_retire = |retire;
    reg  bc_ev;      // B2's decision (or back-invalidation end) of the cycle before is applied now
    wire retry_evt = any_retire || (a_decnow && s_hway) || bc_ev;
    reg  retry_q;    // retry_evt of the cycle before
    wire a_wait = s_v && (s_intp || s_newp) && s_await;   // S's request waits for a way

    // one-hot writes of this cycle
    wire [NTXN-1:0] w_kick  = s_eoh & {NTXN{a_kick}};
    wire [NTXN-1:0] w_alloc = s_eoh & {NTXN{a_alloc}};
    wire [NTXN-1:0] w_start = s_eoh & {NTXN{a_start}};
    wire [NTXN-1:0] w_wait  = s_eoh & {NTXN{a_wait}};
    wire [NTXN-1:0] w_llans = s_eoh & {NTXN{a_now}};   // a request without a line answered
    wire [NTXN-1:0] w_a     = w_kick | w_alloc | w_start;
    wire [NTXN-1:0] w_ptail = (a_chain ? (NTXN)'(1) << s_pred : {NTXN{1'b0}});   // no longer the tail
    // lane B's record only gains answers (the data of an answer that forwards nothing is dropped)
    wire [NTXN-1:0] w_rsp   = bq_eoh & {NTXN{b1_go && b_acc_rsp}};
    wire [NTXN-1:0] w_dat   = bq_eoh & {NTXN{b1_go && b_acc_data}};
    wire [NTXN-1:0] w_clrd  = bq_eoh & {NTXN{b1_go && b_clr_d}};
    wire [NTXN-1:0] w_pull  = bq_eoh & {NTXN{b1_go && b_acc_pull}};
    wire [NTXN-1:0] w_drs   = c_deoh & {NTXN{c_dfire && c_dok}};
    wire [NTXN-1:0] w_cmp   = c_neoh & {NTXN{c_nfire && c_nok}};
    wire [NTXN-1:0] w_cgo   = c_neoh & {NTXN{c_ngo}};
    reg  [NTXN-1:0] w_wake;   // the entry a chained entry waits for retires
    integer i5;
    always @* begin
        for (i5 = 0; i5 < NTXN; i5 = i5 + 1) w_wake[i5] = e_v[i5] && retire[e_pred[i5]];
    end
    function automatic [NTXN-1:0] on(input c);
        on = {NTXN{c}};
    endfunction
    wire a_pset = a_decnow && da_pull && da_pullop != CXL_H2D_RSP_OP_GO_WRITEPULL_DROP;

    // Lane B's entry and directory writes are applied the cycle after B2 fires (w_dec ... and the
    // bc_* values): nothing reads them before that. The entry is not retired (it is not decided
    // yet, or its pull's write or GO holds it), its memory operations and pull are in the write
    // stage and cannot be answered yet, and its way is busy (the entry is valid).
    reg  [NTXN-1:0] w_dec, w_bdone, w_pgo, w_pwr;
    reg  [ND-1:0]   w_db, w_ddb;
    reg             bc_mem, bc_wfwd, bc_pset, bc_ga, bc_acc, bc_gaext, bc_fbk, bc_bwrp, bc_dv;
    reg  [3:0]      bc_gast;
    reg  [1:0]      bc_st;
    reg  [N-1:0]    bc_sh;
    always @(posedge clk) begin
        if (rst) begin
            w_dec <= {NTXN{1'b0}}; w_bdone <= {NTXN{1'b0}}; w_pgo <= {NTXN{1'b0}}; w_pwr <= {NTXN{1'b0}};
            w_db <= {ND{1'b0}}; w_ddb <= {ND{1'b0}}; bc_ev <= 1'b0;
        end else begin
            w_dec   <= b2_eoh & {NTXN{b_dec}};
            w_bdone <= b2_eoh & {NTXN{b_bdone}};
            w_pgo   <= b2_eoh & {NTXN{b_pgo}};
            w_pwr   <= b2_eoh & {NTXN{b_pwr}};
            w_db    <= b2_woh & {ND{(b_dec && b2_coh && b2_hway) || b_bdone}};
            w_ddb   <= b2_woh & {ND{b_dec && b2_coh && b2_hway && db_sh != {N{1'b0}}}};
            bc_ev   <= b_dec || b_bdone;
        end
        bc_mem <= db_mem; bc_wfwd <= db_wfwd; bc_ga <= db_ga; bc_acc <= db_acc; bc_gaext <= db_gaext;
        bc_fbk <= db_fbk; bc_gast <= db_gast; bc_st <= db_st; bc_sh <= db_sh;
        bc_pset <= db_pull && db_pullop != CXL_H2D_RSP_OP_GO_WRITEPULL_DROP;
        bc_bwrp <= b2_dirty && b2_hfwd;
        bc_dv   <= !b_bdone && db_sh != {N{1'b0}};
    end

    // Directory writes. Lane A's start takes its way at once (valid, with the line's tag: a free
    // way is reserved, a hit way stays valid); the state and sharers it writes (I and none while
    // snoops are out, or the state decided at start) and the invalidation of a way left without
    // holders follow a cycle later (w_dac), as lane B's writes do (w_db, w_ddb): until then only
    // a transaction on that line reads them, and the line's entry is still valid then.
    wire [ND-1:0] w_da = s_woh & {ND{a_dir_we}};
    reg  [ND-1:0] w_dac;
    reg  [1:0]    ac_st;
    reg  [N-1:0]  ac_sh;
    reg           ac_dv;
    always @(posedge clk) begin
        w_dac <= rst ? {ND{1'b0}} : w_da;
        ac_st <= a_decnow ? da_st : DI;
        ac_sh <= a_decnow ? da_sh : {N{1'b0}};
        ac_dv <= !a_decnow || da_sh != {N{1'b0}};
    end
    wire [ND-1:0] d_v_n = (d_v & ~w_dac & ~w_db) | w_da | (w_dac & {ND{ac_dv}}) | (w_db & {ND{bc_dv}});
    integer w9;
    always @(posedge clk) begin
        for (w9 = 0; w9 < ND; w9 = w9 + 1) begin
            if (w_da[w9]) d_tag[w9] <= s_line;
            if (w_dac[w9]) begin
                d_st[w9] <= ac_st;
                d_sh[w9] <= ac_sh;
            end
            if (w_ddb[w9]) begin
                d_st[w9] <= bc_st;
                d_sh[w9] <= bc_sh;
            end
        end
    end

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
            err_two <= 1'b0;
            retry_q <= 1'b0;
            for (i9 = 0; i9 < NTXN; i9 = i9 + 1) begin
                e_sent[i9] <= {N{1'b0}};
                e_rgot[i9] <= {N{1'b0}};
                e_fexp[i9] <= {N{1'b0}};
                e_dgot[i9] <= {N{1'b0}};
            end
            for (i9 = 0; i9 < NERR; i9 = i9 + 1) e_cnt[i9] <= {CNT_W{1'b0}};
        end else begin
            // retire finished entries and wake their successors; lane A takes entries
            e_v       <= (e_v & ~retire) | w_kick | w_alloc;
            // (a free entry's flags below are all 0: an entry retires with nothing out, and retire
            // clears the rest)
            e_started <= (e_started & ~retire) | w_kick | w_start | w_llans;
            e_binv    <= (e_binv & ~retire) | w_kick;
            e_tail    <= (e_tail & ~retire & ~w_ptail) | w_kick | w_alloc;
            // a new request chained behind a busy line waits for the entry before it, unless that
            // one retires now (or never took its entry)
            e_wp      <= (e_wp & ~w_wake) | (w_alloc & on(a_chain && !a_pgone));
            e_awt     <= (e_awt & ~w_start) | w_wait;
            // A way or an entry may have become free: waiting-for-way entries try again. The event
            // is applied a cycle later; an entry stage 2 sets waiting now saw the directory after
            // every event before this cycle, and this cycle's event reaches it next cycle.
            retry_q   <= retry_evt;
            e_retry   <= (e_retry & ~w_wait & ~w_start) | (e_awt & on(retry_q));
            // decided: at start (no snoop), or in lane B after the snoops
            e_dec     <= (e_dec & ~retire) | (w_start & on(a_decnow)) | w_dec | w_bdone | w_llans;
            // memory read out (cleared by its data), memory write out (cleared by its Cmp), pull
            // out (cleared by its data), GO / ExtCmp owed after the write (or at the pull)
            e_mrd     <= (e_mrd & ~w_dec & ~w_drs) | (w_start & on(a_decnow && da_mem)) |
                         (w_dec & on(bc_mem));
            e_wrp     <= (e_wrp & ~w_pull & ~w_dec & ~w_bdone & ~w_cmp) | (w_pull & on(b_pwr1)) |
                         (w_dec & on(bc_wfwd)) | (w_bdone & on(bc_bwrp));
            e_pullp   <= (e_pullp & ~w_pull & ~w_dec) | (w_start & on(a_pset)) | (w_dec & on(bc_pset));
            e_gap     <= (e_gap & ~w_dec & ~w_pgo & ~w_cgo) | (w_start & on(a_decnow && da_ga)) |
                         (w_dec & on(bc_ga));
            d_v       <= d_v_n;

            // errors
            err_pulse <= 6'd0;
            err_pulse[E_ILL] <= a_ill || a_dup;
            err_pulse[E_USRSP] <= b1_go && b_err[E_USRSP];
            err_pulse[E_USDATA] <= b1_go && b_err[E_USDATA];
            err_pulse[E_WRONG] <= b1_go && b_err[E_WRONG];
            err_pulse[E_ILLRSP] <= b1_go && b_err[E_ILLRSP];
            err_pulse[E_USMEM] <= c_derr || c_nerr;
            // the counters add the pulses of the cycle before (two S2M errors in one cycle count 2)
            err_two <= c_derr && c_nerr;
            for (i9 = 0; i9 < NERR; i9 = i9 + 1)
                if (err_pulse[i9]) e_cnt[i9] <= sat_add(e_cnt[i9], (i9 == E_USMEM && err_two) ? 2'd2 : 2'd1);

            // snoop-answer record: cleared when an entry is taken or starts, kept by lane B
            for (i9 = 0; i9 < NTXN; i9 = i9 + 1) begin
                if (retire[i9]) e_sent[i9] <= {N{1'b0}};
                if (w_kick[i9]) e_sent[i9] <= v_sh;
                if (w_alloc[i9]) e_sent[i9] <= {N{1'b0}};
                if (w_start[i9]) e_sent[i9] <= s_tgt;
                if (w_a[i9]) begin
                    e_rgot[i9] <= {N{1'b0}}; e_fexp[i9] <= {N{1'b0}}; e_dgot[i9] <= {N{1'b0}};
                end
                if (w_rsp[i9]) begin
                    e_rgot[i9] <= e_rgot[i9] | bq_qh;
                    e_fexp[i9] <= e_fexp[i9] | (bq_qh & {N{j_isfwd}});
                end
                if (w_dat[i9]) e_dgot[i9] <= e_dgot[i9] | bq_qh;
                if (w_clrd[i9]) e_dgot[i9] <= e_dgot[i9] & ~bq_qh;
            end
        end
    end

    // An answer is taken only to what reached the device before it: a snoop or pull goes out two
    // cycles after the stage that decides it (the write stage, then the queue), so lane B marks
    // the entries that started or were back-invalidated in the capture cycle or the cycle before,
    // or were decided (the commit a cycle after B2) in the capture cycle, and every such event
    // while the message waits in the B register. Lane C likewise ignores a MemData for a memory
    // read decided at start in the cycle before, and a Cmp while the pulled line it would complete
    // is not yet in the write stage.
    wire [NTXN-1:0] w_ev = w_start | w_kick | w_dec;
    reg  [NTXN-1:0] w_sq;
    always @(posedge clk) begin
        if (rst) begin
            w_sq <= {NTXN{1'b0}};
            e_mrdq <= {NTXN{1'b0}};
            e_wpend <= {NTXN{1'b0}};
        end else begin
            w_sq <= w_start | w_kick;
            e_mrdq <= w_start & on(a_decnow && da_mem);
            e_wpend <= (e_wpend & ~w_pwr) | (w_pull & on(b_pwr1));
        end
        bq_new <= b_adv ? (w_ev | w_sq) : (bq_new | w_ev);
    end

    // fields without reset (written before they are read)
    integer i10;
    always @(posedge clk) begin
        e_acc   <= (e_acc & ~w_kick & ~w_start & ~w_dec) | (w_start & on(da_acc)) | (w_dec & on(bc_acc));
        e_gaext <= (e_gaext & ~w_kick & ~w_start & ~w_dec) | (w_start & on(da_gaext)) | (w_dec & on(bc_gaext));
        e_fbk   <= (e_fbk & ~w_kick & ~w_start & ~w_dec) | (w_dec & on(bc_fbk));
        e_coh   <= (e_coh & ~w_kick & ~w_alloc) | w_kick | (w_alloc & on(s_coh));
        e_ll    <= (e_ll & ~w_kick & ~w_alloc) | (w_alloc & on(s_ll));
        e_hway  <= (e_hway & ~w_kick & ~w_start) | w_kick | (w_start & on(s_hway));
        e_dirty <= (e_dirty & ~w_kick & ~w_start) | (w_rsp & on(j_isdirty));
        e_keeps <= (e_keeps & ~w_kick & ~w_start) | (w_rsp & on(j_iskeeps));
        for (i10 = 0; i10 < NTXN; i10 = i10 + 1) begin
            if (w_kick[i10]) begin
                e_line[i10] <= v_line; e_way[i10] <= enc_w(s_vic); e_dst[i10] <= v_st; e_dsh[i10] <= v_sh;
                e_snp[i10] <= CXL_H2D_REQ_OP_SNPINV; e_keepb[i10] <= {N{1'b0}};
                e_port[i10] <= {PW{1'b0}}; e_op[i10] <= 5'd0; e_cqid[i10] <= 12'd0;
            end
            if (w_alloc[i10]) begin
                e_line[i10] <= s_line; e_op[i10] <= s_op; e_port[i10] <= s_port; e_cqid[i10] <= s_cqid;
                e_pred[i10] <= s_pred;
            end
            if (w_start[i10]) begin
                e_way[i10] <= s_way;
                e_dst[i10] <= s_coh ? s_st : DI; e_dsh[i10] <= s_coh ? s_sh : {N{1'b0}};
                e_snp[i10] <= s_snp; e_keepb[i10] <= {N{1'b0}};
                e_gast[i10] <= da_gast;
            end
            if (w_rsp[i10] && j_iskeep) e_keepb[i10] <= e_keepb[i10] | bq_qh;
            if (w_dec[i10]) e_gast[i10] <= bc_gast;
            if (w_dat[i10] || w_pull[i10] && b_pnew) e_fbuf[i10] <= bq_d;
        end
    end

    generate
        for (g = 0; g < NERR; g = g + 1) begin : g_cnt
            assign err_count[g*CNT_W +: CNT_W] = e_cnt[g];
        end
    endgenerate
endmodule
`resetall
