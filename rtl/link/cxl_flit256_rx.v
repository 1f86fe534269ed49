// 256B standard flit formatter, receive side (CONVENTIONS.md "Flit wire"; cxl-flits.md 4).
// Decodes every HBR (PBR when PBR=1) H/G slot format the partner's role sends, including
// multi-message slots, the data slots behind each DH (+1 trailer slot when BEP/TRP = 1, trailer
// value dropped), the CRD credit field, the flit header (ACK count, RETRY.Req/Ack NOPs) and the
// CRC. Messages come out as runs: the messages of one class in one header slot are contiguous
// (a format holds n0 messages of one class then n1 of another, valid ones form a prefix), so each
// (slot, class) pair with messages is one run, and the runs of a class come out packed from index
// 0 in flit order, each with its messages back to back from bit 0 (message k at k * width). The
// data lines of the data classes come out packed per class in data-header order. Delivering runs
// instead of single messages keeps the per-class packing to one whole-slot select per run (a
// message-granular packer needs a 4:1 position select per (message, slot) pair).
// proto_err (CRC-clean flit that we reject; outputs other than crc_ok/proto_err read zero):
//   flit type 01b/11b or header bits [5:4] set; NOP with Replay Cmd 01b or a non-zero body;
//   payload flit with Replay Cmd 1xb, or an ACK count above 255; reserved CRD code or CRD[15];
//   Empty flit (CRD 01h) with slots or credits; reserved / wrong-direction SlotFmt, LLCTRL (H8,
//   unsupported); non-empty slot with message 0 invalid, a valid message after an invalid one, a
//   non-zero invalid message, RSVD bits set (above the format or inside a message or trailer);
//   a per-128B-group message limit exceeded (AB, BC, CD, and DA across flits); data that would roll
//   over into the next flit (legal in the spec, never produced by our TX: unsupported);
//   more than MAXM messages of a class.
`default_nettype none
module cxl_flit256_rx #(
    parameter integer ROLE = 0,  // role of THIS endpoint; the partner is the other role
    parameter integer PBR  = 0,  // 1: PBR message layouts
    parameter integer MAXM = 12  // max messages (and runs) of a class per flit, 1..12 (12 = group-limit max)
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    flit_valid,
    input  wire [2047:0]           flit,
    input  wire                    commit,
    output wire                    crc_ok,
    output wire                    retryable,
    output wire [2:0]              ctl_kind,
    output wire [7:0]              ctl_eseq,
    output wire [4:0]              ctl_num_retry,
    output wire                    ctl_empty,
    output wire [7:0]              ack_cnt,
    output wire [6*8-1:0]          crd_cnt,
    output wire [6*5-1:0]          msg_cnt,    // messages of class c in this flit (5 b each)
    output wire [6*MAXM-1:0]       run_valid,  // run j of class c: bit c*MAXM + j (a prefix)
    output wire [6*MAXM*3-1:0]     run_n,      // its message count, 1..4
    output wire [6*MAXM*124-1:0]   run_bits,   // its messages, k-th at [k*w +: w] (w = class width)
    output wire [2*3*512-1:0]      line,       // data line i of C_DATA (d = 0) / M_DATA (d = 1): [(d*3 + i)*512 +: 512]
    output wire                    proto_err
);
    `include "cxl_defs.vh"

    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit256_rx_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && PBR != 1) begin : g_bad_pbr
            cxl_flit256_rx_parameter_error_PBR_must_be_0_or_1 u_stop ();
        end
        if (MAXM < 1 || MAXM > 12) begin : g_bad_maxm
            cxl_flit256_rx_parameter_error_MAXM_must_be_1_to_12 u_stop ();
        end
    endgenerate

    localparam integer NSLOT = 15;
    localparam integer NPOS  = NSLOT * 4;          // message positions (slot, q)
    localparam integer MAXD  = (MAXM < 3) ? MAXM : 3;  // 14 G-slots hold at most 3 lines
    localparam integer SR    = (ROLE == CXL_ROLE_DOWN) ? CXL_ROLE_UP : CXL_ROLE_DOWN;
    localparam integer SDOWN = (SR == CXL_ROLE_DOWN) ? 1 : 0;  // partner sends H2D/M2S
    localparam [2:0] K_NONE = 3'd0, K_IDLE = 3'd1, K_REQ = 3'd3, K_ACK = 3'd4;
    localparam [4:0] CRD_EMPTY = 5'h01;
    // Channel code bases of the credits the partner returns for OUR transmit classes.
    localparam [4:0] CRD_CACHE = (ROLE == CXL_ROLE_DOWN) ? 5'h04 : 5'h09;
    localparam [4:0] CRD_MEM   = (ROLE == CXL_ROLE_DOWN) ? 5'h14 : 5'h19;

    function automatic integer cw(input [2:0] c);  // wire width of class c as the partner sends it
        begin
            cw = cxl_cls_w256(SR, PBR, 32'(c));
        end
    endfunction
    // Wire bit of BEP/TRP (data classes that have one), derived from the generated functions.
    function automatic [123:0] trl_mask(input [2:0] c);
        reg [127:0] one;
        begin
            trl_mask = 124'd0;
            one = 128'd0;
            if (SDOWN == 1 && c == 3'd5) begin
                one[CXL_M2S_RWD_TRP_LSB] = 1'b1;
                if (PBR != 0) trl_mask[CXL_M2S_RWD_WPBR-1:0] = cxl_m2s_rwd_to_wpbr(one);
                else          trl_mask[CXL_M2S_RWD_W256-1:0] = cxl_m2s_rwd_to_w256(one);
            end else if (SDOWN == 0 && c == 3'd2) begin
                one[CXL_D2H_DH_BEP_LSB] = 1'b1;
                if (PBR != 0) trl_mask[CXL_D2H_DH_WPBR-1:0] = cxl_d2h_dh_to_wpbr(one);
                else          trl_mask[CXL_D2H_DH_W256-1:0] = cxl_d2h_dh_to_w256(one);
            end else if (SDOWN == 0 && c == 3'd5) begin
                one[CXL_S2M_DRS_TRP_LSB] = 1'b1;
                if (PBR != 0) trl_mask[CXL_S2M_DRS_WPBR-1:0] = cxl_s2m_drs_to_wpbr(one);
                else          trl_mask[CXL_S2M_DRS_W256-1:0] = cxl_s2m_drs_to_w256(one);
            end
            trl_mask[0] = 1'b0;  // drop the Valid bit the to_ functions set
        end
    endfunction

    /* verilator lint_off UNUSEDSIGNAL */  // table builder: dummy arg, 32-bit temporary
    function automatic [6*8-1:0] mk_cwv(input integer dummy);
        integer c, w;
        begin
            mk_cwv = {6*8{dummy[0]}};
            for (c = 0; c < 6; c = c + 1) begin
                w = cw(3'(c));
                mk_cwv[c*8 +: 8] = w[7:0];
            end
        end
    endfunction
    localparam [6*8-1:0] CWV = mk_cwv(0);
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator lint_off UNUSEDSIGNAL */  // table builder: dummy arg
    function automatic [6*124-1:0] mk_rmv(input integer dummy);
        integer c;
        begin
            mk_rmv = {6*124{dummy[0]}};
            for (c = 0; c < 6; c = c + 1) mk_rmv[c*124 +: 124] = cxl_cls_rsvd256(SR, PBR, c);
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [6*124-1:0] RMV = mk_rmv(0);
    localparam [123:0]   TM2 = trl_mask(3'd2);
    localparam [123:0]   TM5 = trl_mask(3'd5);

    // Max messages per rolling 128B group (cxl-flits.md 4.3) for the partner's class c.
    function automatic [4:0] glim(input [2:0] c);
        /* verilator lint_off UNUSEDSIGNAL */  // limits are below 32
        integer g;
        /* verilator lint_on UNUSEDSIGNAL */
        begin
            g = cxl_cls_glim256(SR, PBR, 32'(c));
            glim = g[4:0];
        end
    endfunction
    // Messages of class c one slot can hold (a run), and the run lanes a flit within the group
    // limits can fill: data classes at most MAXD (lines), others 2 x the group limit.
    function automatic integer nrmax(input [2:0] c);
        begin
            nrmax = 124 / cw(c);
            if (nrmax > 4) nrmax = 4;
        end
    endfunction
    function automatic integer rlanes(input [2:0] c);
        begin
            if (c == 3'd2 || c == 3'd5) rlanes = MAXD;
            else rlanes = 2 * 32'(glim(c));
            if (rlanes > MAXM) rlanes = MAXM;
        end
    endfunction
    // ---------------------------------------------------------------- flit header
    wire [15:0] fh     = flit[15:0];
    wire [1:0]  ftype  = fh[7:6];
    wire [1:0]  rcmd   = fh[3:2];
    wire [9:0]  fld    = {fh[1:0], fh[15:8]};
    wire        is_nop = (ftype == 2'b00);
    wire        is_pay = (ftype == 2'b10);
    wire        hdr_err = (fh[5:4] != 2'b00) || !(is_nop || is_pay) ||
                          (is_nop && rcmd == 2'b01) || (is_pay && rcmd[1]) ||
                          (is_pay && rcmd == 2'b01 && fld[9:8] != 2'b00) ||
                          (is_nop && |flit[1935:16]);

    // ---------------------------------------------------------------- CRC (bytes 242..249)
    wire [63:0] crc_calc;
    cxl_crc64_256b u_crc (.data(flit[1935:0]), .crc(crc_calc));
    assign crc_ok = (crc_calc == flit[1999:1936]);

    // ---------------------------------------------------------------- slots
    wire [127:0] slot [0:NSLOT-1];
    assign slot[0] = {16'd0, flit[127:16]};  // H-slot: 14 bytes, zero-extended
    wire [NPOS-1:0]     pv;      // position (s, q) holds a valid message (if s is a header slot)
    wire [NPOS*3-1:0]   pc;      // its class
    wire [NPOS-1:0]     ptrl;    // DH with a trailer
    wire [NPOS-1:0]     prsv;    // valid message with an RSVD bit set
    wire [NSLOT-1:0]    serr;    // format violation (if s is a header slot)
    wire [NSLOT-1:0]    nz;      // slot not all-zero (an all-zero header slot is empty)
    genvar s;
    generate
        for (s = 0; s < NSLOT; s = s + 1) begin : g_s
            if (s > 0) begin : g_g
                assign slot[s] = flit[s*128 +: 128];
            end
            cxl_flit256_rx_slot #(.SR(SR), .PBR(PBR), .H((s == 0) ? 1 : 0), .CWV(CWV), .TM2(TM2), .TM5(TM5), .RMV(RMV)) u_slot (
                .slot(slot[s]), .fmt_err(serr[s]), .pv(pv[s*4 +: 4]), .pc(pc[s*12 +: 12]),
                .ptrl(ptrl[s*4 +: 4]), .prsv(prsv[s*4 +: 4]));
            assign nz[s] = |slot[s];
        end
    endgenerate

    // ---------------------------------------------------------------- data slot chain
    // Slot s is a header slot when no data is owed; each valid DH owes 4 data (+1 trailer) slots,
    // in position order, starting right after its slot. Everything a slot does as a header (the
    // slots it owes, the first data slot of each DH, its trailer slots) depends on that slot alone
    // and is formed for every slot in parallel. What chains is only which slots are headers: the
    // next header after header s is nxt(s) = s + 1 + own(s) (15 = past the flit). The header set is
    // everything reachable from slot 0 along nxt, formed by pointer doubling: one-hot successor
    // matrices for 1, 2, 4 and 8 steps, and the reach set widened by each in turn (4 matrix
    // products deep instead of 15 dependent slot steps).
    reg [4:0]        own  [0:NSLOT-1];  // data slots owed by slot s as a header
    reg [NPOS*5-1:0] dsl;               // first data slot of the DH at (s, q), if s is a header
    reg [NSLOT-1:0]  tcs  [0:NSLOT-1];  // C_DATA trailer slots of header slot s
    reg [NSLOT-1:0]  tms  [0:NSLOT-1];  // M_DATA trailer slots of header slot s
    reg [NSLOT-1:0]  past;              // header slot s owes data past slot 14 (rollover)
    reg [4:0]        d_at;
    reg [5:0]        nx6;
    reg [2:0]        pcq;
    reg [255:0]      m1;                // bit s*16 + t: t = nxt(s) (t = 15: past the flit, a sink)
    integer si, qi;  // loop variables of this block only
    always @* begin
        dsl = {NPOS*5{1'b0}};
        past = {NSLOT{1'b0}};
        d_at = 5'd0;
        nx6 = 6'd0;
        pcq = 3'd0;
        m1 = 256'd0;
        m1[15*16 + 15] = 1'b1;
        for (si = 0; si < NSLOT; si = si + 1) begin
            tcs[si] = {NSLOT{1'b0}};
            tms[si] = {NSLOT{1'b0}};
            d_at = 5'(si + 1);
            for (qi = 0; qi < 4; qi = qi + 1) begin
                pcq = pc[(si*4+qi)*3 +: 3];
                dsl[(si*4+qi)*5 +: 5] = d_at;
                if (pv[si*4+qi] && (pcq == 3'd2 || pcq == 3'd5)) begin
                    if (ptrl[si*4+qi] && d_at + 5'd4 < 5'(NSLOT)) begin
                        if (pcq == 3'd2) tcs[si][4'(d_at + 5'd4)] = 1'b1;
                        else             tms[si][4'(d_at + 5'd4)] = 1'b1;
                    end
                    d_at = d_at + 5'd4 + {4'd0, ptrl[si*4+qi]};
                end
            end
            own[si] = d_at - 5'(si + 1);  // at most 4 x 5 = 20: exact despite the 5-bit wrap
            nx6 = 6'(si + 1) + {1'b0, own[si]};
            past[si] = (nx6 > 6'd15);
            if (nx6 >= 6'd15) m1[si*16 + 15] = 1'b1;
            else              m1[si*16 + 32'(nx6)] = 1'b1;
        end
    end
    // Successor matrices for 2, 4 and 8 steps (Boolean products: row s of the product is the OR of
    // the rows of the right matrix its left row selects), each beside its transpose, and the reach
    // sets after 1, 3, 7 and 15 steps (a set's successors: the OR of the rows it selects). Bit t of
    // row s of a matrix is [s*16 + t], of its transpose [t*16 + s]. Kept: ABC would otherwise fold
    // the products back into a slot-by-slot chain.
    wire [255:0] m1t;
    (* keep *) wire [255:0] m2, m4, m8;
    wire [255:0] m2t, m4t, m8t;
    (* keep *) wire [15:0]  r1, r3, r7, r15;
    wire [15:0] s3, s7, s15;  // successors of r1 in 2 steps, of r3 in 4, of r7 in 8
    genvar gmi, gmj;
    generate
        for (gmi = 0; gmi < 16; gmi = gmi + 1) begin : g_mi
            for (gmj = 0; gmj < 16; gmj = gmj + 1) begin : g_mj
                assign m1t[gmj*16 + gmi] = m1[gmi*16 + gmj];
                assign m2[gmi*16 + gmj]  = |(m1[gmi*16 +: 16] & m1t[gmj*16 +: 16]);
                assign m2t[gmj*16 + gmi] = m2[gmi*16 + gmj];
                assign m4[gmi*16 + gmj]  = |(m2[gmi*16 +: 16] & m2t[gmj*16 +: 16]);
                assign m4t[gmj*16 + gmi] = m4[gmi*16 + gmj];
                assign m8[gmi*16 + gmj]  = |(m4[gmi*16 +: 16] & m4t[gmj*16 +: 16]);
                assign m8t[gmj*16 + gmi] = m8[gmi*16 + gmj];
            end
            assign s3[gmi]  = |(r1 & m2t[gmi*16 +: 16]);
            assign s7[gmi]  = |(r3 & m4t[gmi*16 +: 16]);
            assign s15[gmi] = |(r7 & m8t[gmi*16 +: 16]);
        end
    endgenerate
    assign r1  = 16'd1 | m1[15:0];
    assign r3  = r1 | s3;
    assign r7  = r3 | s7;
    assign r15 = r7 | s15;
    wire [NSLOT-1:0] is_hdr = r15[NSLOT-1:0];
    /* verilator lint_off UNUSEDSIGNAL */  // bit 15: reached past the flit (no header there)
    wire unused_r15 = r15[15];
    /* verilator lint_on UNUSEDSIGNAL */
    wire rollover = |(past & is_hdr);

    // the header slots' own results, kept for header slots only
    reg [NPOS*5-1:0] dst;      // first data slot of the DH at position (s, q)
    reg [NSLOT-1:0]  trl_c;    // slot is a C_DATA trailer slot
    reg [NSLOT-1:0]  trl_m;    // slot is an M_DATA trailer slot
    integer hi;
    always @* begin
        dst = dsl;
        trl_c = {NSLOT{1'b0}};
        trl_m = {NSLOT{1'b0}};
        for (hi = 0; hi < NSLOT; hi = hi + 1) begin
            if (!is_hdr[hi]) dst[hi*20 +: 20] = 20'd0;
            else begin
                trl_c = trl_c | tcs[hi];
                trl_m = trl_m | tms[hi];
            end
        end
    end

    // Trailer values above the trailer width must be zero (D2H BE 64, RwD 96, DRS 32 bits).
    localparam integer TWC = (SDOWN == 1) ? 128 : 64;
    localparam integer TWM = (SDOWN == 1) ? 96 : 32;
    reg trl_err;
    integer ti;
    always @* begin
        trl_err = 1'b0;
        for (ti = 1; ti < NSLOT; ti = ti + 1) begin
            if (trl_c[ti] && TWC < 128 && |(slot[ti] >> TWC)) trl_err = 1'b1;
            if (trl_m[ti] && |(slot[ti] >> TWM)) trl_err = 1'b1;
        end
    end

    // ---------------------------------------------------------------- counts and group limits
    reg [2:0]  nsc  [0:NSLOT-1][0:5];  // messages of class c in header slot s
    reg [1:0]  q0   [0:NSLOT-1][0:5];  // first position of class c in slot s
    reg [4:0]  base [0:NSLOT-1][0:5];  // messages of class c before slot s
    reg [4:0]  gcnt [0:3][0:5];
    reg [4:0]  tot  [0:5];
    reg [3:0]  rk   [0:NSLOT-1][0:5];  // runs of class c before slot s
    reg [4:0]  nrun [0:5];
    reg [4:0]  prev_d [0:5];
    reg        grp_err, max_err;  // group limits AB, BC, CD (DA: da_err below); MAXM
    integer ci, gi, sk, qk;
    always @* begin
        grp_err = 1'b0;
        max_err = 1'b0;
        for (ci = 0; ci < 6; ci = ci + 1) begin
            for (gi = 0; gi < 4; gi = gi + 1) gcnt[gi][ci] = 5'd0;
            tot[ci] = 5'd0;
            nrun[ci] = 5'd0;
            for (sk = 0; sk < NSLOT; sk = sk + 1) begin
                nsc[sk][ci] = 3'd0;
                q0[sk][ci] = 2'd0;
                for (qk = 3; qk >= 0; qk = qk - 1)
                    if (pc[(sk*4+qk)*3 +: 3] == 3'(ci)) q0[sk][ci] = 2'(qk);
                for (qk = 0; qk < 4; qk = qk + 1)
                    if (is_hdr[sk] && pv[sk*4+qk] && pc[(sk*4+qk)*3 +: 3] == 3'(ci))
                        nsc[sk][ci] = nsc[sk][ci] + 3'd1;
                base[sk][ci] = tot[ci];
                tot[ci] = tot[ci] + {2'd0, nsc[sk][ci]};
                rk[sk][ci] = nrun[ci][3:0];
                if (nsc[sk][ci] != 3'd0) nrun[ci] = nrun[ci] + 5'd1;
                gcnt[sk / 4][ci] = gcnt[sk / 4][ci] + {2'd0, nsc[sk][ci]};
            end
            // the flit's total as a tree of the group sums (the running sum above only feeds base)
            tot[ci] = (gcnt[0][ci] + gcnt[1][ci]) + (gcnt[2][ci] + gcnt[3][ci]);
            if (gcnt[0][ci] + gcnt[1][ci] > glim(3'(ci)) ||
                gcnt[1][ci] + gcnt[2][ci] > glim(3'(ci)) || gcnt[2][ci] + gcnt[3][ci] > glim(3'(ci)))
                grp_err = 1'b1;
            if (tot[ci] > 5'(MAXM)) max_err = 1'b1;
        end
    end

    // Group DA crosses flits: the previous flit's group D count (prev_d, a register) plus this
    // flit's group A count (5-bit sum) above the limit. Formed from the flit alone as a table over
    // every prev_d value, then indexed by prev_d, so the register enters the verdict a 32:1 select
    // before the end instead of at the start of the count logic (kept: ABC would fold it back).
    wire [5:0] da_hit;
    genvar ga, gv;
    generate
        for (ga = 0; ga < 6; ga = ga + 1) begin : g_da
            (* keep *) wire [31:0] tab;
            for (gv = 0; gv < 32; gv = gv + 1) begin : g_v
                assign tab[gv] = (5'(gv) + gcnt[0][ga] > glim(3'(ga)));
            end
            assign da_hit[ga] = tab[prev_d[ga]];
        end
    endgenerate
    wire da_err = |da_hit;

    // ---------------------------------------------------------------- CRD
    wire [15:0] crd = flit[1935:1920];
    reg  [47:0] crd_d;
    reg         crd_err;
    reg  [4:0]  code;
    reg  [2:0]  cci, ccm;
    function automatic [7:0] crd_val(input [4:0] i);
        begin
            case (i)
                5'd0: crd_val = 8'd1;  5'd1: crd_val = 8'd4;  5'd2: crd_val = 8'd8;
                5'd3: crd_val = 8'd12; default: crd_val = 8'd16;
            endcase
        end
    endfunction
    integer fi;
    always @* begin
        crd_d = 48'd0;
        crd_err = crd[15];
        cci = 3'd0;
        ccm = 3'd0;
        for (fi = 0; fi < 3; fi = fi + 1) begin
            code = crd[fi*5 +: 5];
            cci = (fi == 0) ? 3'd0 : (fi == 1) ? 3'd2 : 3'd1;
            ccm = (fi == 0) ? 3'd3 : (fi == 1) ? 3'd5 : 3'd4;
            if (code == 5'd0 || (fi == 0 && code == CRD_EMPTY)) begin
                // nothing returned
            end else if (code >= CRD_CACHE && code <= CRD_CACHE + 5'd4) begin
                crd_d[cci*8 +: 8] = crd_val(code - CRD_CACHE);
            end else if (code >= CRD_MEM && code <= CRD_MEM + 5'd4) begin
                crd_d[ccm*8 +: 8] = crd_val(code - CRD_MEM);
            end else if ((code >= 5'h04 && code <= 5'h0D) || (code >= 5'h14 && code <= 5'h1D)) begin
                // credits for a channel we do not transmit: dropped (spec 4.2.7)
            end else begin
                crd_err = 1'b1;
            end
        end
    end
    wire empty_flit = (crd[4:0] == CRD_EMPTY);
    wire empty_err  = empty_flit && (|nz || crd[14:5] != 10'd0);
    wire slot_err   = |(serr & is_hdr & nz);

    // ---------------------------------------------------------------- verdict
    (* keep *) wire pay_err = slot_err || rollover || trl_err || grp_err || rsv_err || max_err ||
                              crd_err || empty_err;  // everything but DA: the flit alone
    wire err  = hdr_err || (is_pay && (pay_err || da_err));
    wire chk  = flit_valid && crc_ok;
    wire good = chk && !err;
    wire good_pay = good && is_pay;

    assign proto_err     = chk && err;
    assign retryable     = chk && is_pay;
    assign ctl_kind      = !good ? K_NONE : is_pay ? K_NONE :
                           (rcmd == 2'b10) ? K_REQ : (rcmd == 2'b11) ? K_ACK : K_IDLE;
    assign ctl_eseq      = (good && is_nop) ? fld[7:0] : 8'd0;
    assign ctl_num_retry = 5'd0;  // not carried by the 256B header (CONVENTIONS.md)
    assign ctl_empty     = 1'b0;
    assign ack_cnt       = (good_pay && rcmd == 2'b01) ? fld[7:0] : 8'd0;
    assign crd_cnt       = good_pay ? crd_d : 48'd0;

    // ---------------------------------------------------------------- runs
    // Run of class c in slot s: its messages are back to back in the slot from position q0, which
    // is 0, or 1 behind the single first-class message of a two-class HBR format (G0/H0: H2D Req +
    // H2D Rsp; G2/H2: D2H Req + D2H Rsp; G6: S2M BISnp + S2M NDR; cxl-flits.md 4.2). So the run is
    // the slot shifted by one of two constant offsets; bits past its messages are never read.
    // Run j of class c comes from the slot with j runs of c before it. Only the (run, slot) terms a
    // flit within the group limits can use are built (slots 0..7 hold at most L runs of a class,
    // slots 8..14 2L, data classes MAXD); any other flit is rejected as grp_err or max_err, which
    // zeroes the outputs.
    function automatic integer first_of(input integer c);  // first class of c's two-class format
        begin
            first_of = -1;
            if (PBR == 0 && c == 1) first_of = 0;
            if (PBR == 0 && SDOWN == 0 && c == 4) first_of = 3;
        end
    endfunction
    wire [6*MAXM*124-1:0]  rbits_o;
    wire [6*MAXM*3-1:0]    rn_o;
    genvar gc, gs, gj;
    generate
        for (gc = 0; gc < 6; gc = gc + 1) begin : g_run
            localparam integer W   = cw(3'(gc));
            localparam integer NR  = nrmax(3'(gc));
            localparam integer RWB = NR * W;
            localparam integer F   = first_of(gc);
            localparam integer O1  = (F >= 0) ? 4 + cw(3'(F)) : 4;
            localparam integer L   = 32'(glim(3'(gc)));
            localparam integer RL  = rlanes(3'(gc));
            localparam integer DC  = (gc == 2 || gc == 5) ? 1 : 0;
            // run per slot, RWB bits each: the slot shifted down by O1 or 4 (bits shifted in from
            // above the slot read zero)
            wire [NSLOT*RWB-1:0] rb;
            for (gs = 0; gs < NSLOT; gs = gs + 1) begin : g_s
                wire [RWB-1:0] r = RWB'((F >= 0 && q0[gs][gc] != 2'd0) ? slot[gs] >> O1
                                                                      : slot[gs] >> 4);
                assign rb[gs*RWB +: RWB] = r;
            end
            // packing: run j <- the header slot with j runs of this class before it
            for (gj = 0; gj < MAXM; gj = gj + 1) begin : g_j
                if (gj < RL) begin : g_on
                    reg [RWB-1:0] acc;
                    reg [2:0]     nacc;
                    integer       sa;
                    always @* begin
                        acc  = {RWB{1'b0}};
                        nacc = 3'd0;
                        for (sa = 0; sa < NSLOT; sa = sa + 1)
                            if (gj <= sa && gj < ((DC != 0) ? RL : (sa < 8) ? L : 2*L) &&
                                nsc[sa][gc] != 3'd0 && rk[sa][gc] == 4'(gj)) begin
                                acc  = acc | rb[sa*RWB +: RWB];
                                nacc = nacc | nsc[sa][gc];
                            end
                    end
                    assign rbits_o[(gc*MAXM + gj)*124 +: 124] = 124'(acc);  // zero above the run
                    assign rn_o[(gc*MAXM + gj)*3 +: 3] = nacc;
                end else begin : g_off
                    assign rbits_o[(gc*MAXM + gj)*124 +: 124] = 124'd0;
                    assign rn_o[(gc*MAXM + gj)*3 +: 3] = 3'd0;
                end
            end
        end
    endgenerate
    // RSVD bits inside a valid message of a header slot
    reg rsv_err;
    integer rv;
    always @* begin
        rsv_err = 1'b0;
        for (rv = 0; rv < NSLOT; rv = rv + 1)
            if (is_hdr[rv] && |prsv[rv*4 +: 4]) rsv_err = 1'b1;
    end

    // ---------------------------------------------------------------- data lines
    // Line i of a data class: the 4 slots from the first data slot of its i-th data header.
    genvar gd, gm;
    generate
        for (gd = 0; gd < 2; gd = gd + 1) begin : g_ln
            localparam integer GC = (gd == 0) ? 2 : 5;
            for (gm = 0; gm < 3; gm = gm + 1) begin : g_m
                if (gm < MAXD) begin : g_on
                    reg [4:0] dacc;
                    reg [4:0] k5;
                    reg [1:0] q2;
                    integer   sa;
                    always @* begin
                        dacc = 5'd0;
                        k5 = 5'd0;
                        q2 = 2'd0;
                        for (sa = 0; sa < NSLOT; sa = sa + 1) begin
                            k5 = 5'(gm) - base[sa][GC];
                            q2 = q0[sa][GC] + k5[1:0];
                            if (5'(gm) >= base[sa][GC] && k5 < {2'd0, nsc[sa][GC]})
                                case (q2)
                                    2'd0: dacc = dacc | dst[(sa*4 + 0)*5 +: 5];
                                    2'd1: dacc = dacc | dst[(sa*4 + 1)*5 +: 5];
                                    2'd2: dacc = dacc | dst[(sa*4 + 2)*5 +: 5];
                                    default: dacc = dacc | dst[(sa*4 + 3)*5 +: 5];
                                endcase
                        end
                    end
                    wire on = good_pay && (5'(gm) < tot[GC]) && dacc <= 5'd11;
                    assign line[(gd*3 + gm)*512 +: 512] = on ? flit[dacc*128 +: 512] : 512'd0;
                end else begin : g_off
                    assign line[(gd*3 + gm)*512 +: 512] = 512'd0;
                end
            end
        end
    endgenerate

    genvar c, m;
    generate
        for (c = 0; c < 6; c = c + 1) begin : g_c
            assign msg_cnt[c*5 +: 5] = good_pay ? tot[c] : 5'd0;
            for (m = 0; m < MAXM; m = m + 1) begin : g_m
                assign run_valid[c*MAXM + m] = good_pay && (5'(m) < nrun[c]);
                assign run_n[(c*MAXM + m)*3 +: 3] = good_pay ? rn_o[(c*MAXM + m)*3 +: 3] : 3'd0;
                assign run_bits[(c*MAXM + m)*124 +: 124] = rbits_o[(c*MAXM + m)*124 +: 124];
            end
        end
    endgenerate

    // ---------------------------------------------------------------- state: group D counts
    integer rj;
    always @(posedge clk) begin
        if (rst) begin
            for (rj = 0; rj < 6; rj = rj + 1) prev_d[rj] <= 5'd0;
        end else if (commit && good_pay) begin
            for (rj = 0; rj < 6; rj = rj + 1) prev_d[rj] <= gcnt[3][rj];
        end
    end
endmodule
`default_nettype wire
