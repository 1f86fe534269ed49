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
// Pipelined (for the 20-level budget, rtl/README-timing.md): the outputs describe the flit given
// on `flit` / `flit_valid` LAT = 4 cycles earlier (`out_valid`). Stage 1 decodes the slots, the
// CRC syndrome, the header and CRD fields and each slot's successor as a header; stages 2 and 3
// find the header slots (pointer doubling) and everything that depends on them; stage 4 counts
// (group sums, run and line ranks); the outputs are formed from stage 4's registers and the
// inputs `crc_seq` and `commit` of that cycle, which refer to the flit on the outputs.
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
    // the outputs: the flit given LAT = 4 cycles earlier
    output wire                    out_valid,  // flit_valid of that flit
    output wire                    pay_type,   // its flit type is payload (whatever its CRC)
    input  wire [63:0]             crc_seq,    // what its CRC field holds beyond the CRC when it is a payload flit (cxl_link's SEQ_CRC term; 0: plain CRC)
    input  wire                    commit,     // it is accepted (its group D counts for the next flit's DA limit)
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
    // ================================================================ stage 1: from the flit
    // ---------------------------------------------------------------- flit header
    wire [15:0] fh      = flit[15:0];
    wire [1:0]  ftype   = fh[7:6];
    wire [1:0]  f_rcmd  = fh[3:2];
    wire [9:0]  f_fld   = {fh[1:0], fh[15:8]};
    wire        f_nop   = (ftype == 2'b00);
    wire        f_pay   = (ftype == 2'b10);
    wire        f_hdr_err = (fh[5:4] != 2'b00) || !(f_nop || f_pay) ||
                            (f_nop && f_rcmd == 2'b01) || (f_pay && f_rcmd[1]) ||
                            (f_pay && f_rcmd == 2'b01 && f_fld[9:8] != 2'b00) ||
                            (f_nop && |flit[1935:16]);

    // ---------------------------------------------------------------- CRC (bytes 242..249)
    // syndrome: the CRC of bytes 0..241 XOR the CRC field; 0 for a clean flit without a term
    wire [63:0] crc_calc;
    cxl_crc64_256b u_crc (.data(flit[1935:0]), .crc(crc_calc));
    wire [63:0] f_syn = crc_calc ^ flit[1999:1936];
    wire unused_fec = &{1'b0, flit[2047:2000]};   // FEC bytes 250..255: left to the PHY

    // ---------------------------------------------------------------- slots
    wire [127:0] slot [0:NSLOT-1];
    assign slot[0] = {16'd0, flit[127:16]};  // H-slot: 14 bytes, zero-extended
    wire [NPOS-1:0]     pv;      // position (s, q) holds a valid message (if s is a header slot)
    wire [NPOS*3-1:0]   pc;      // its class
    wire [NPOS-1:0]     ptrl;    // DH with a trailer
    wire [NPOS-1:0]     prsv;    // valid message with an RSVD bit set
    wire [NSLOT-1:0]    serr;    // format violation (if s is a header slot)
    wire [NSLOT-1:0]    nz;      // slot not all-zero (an all-zero header slot is empty)
    wire [NSLOT-1:0]    rsvs;    // some valid message of the slot has an RSVD bit set
    genvar s;
    generate
        for (s = 0; s < NSLOT; s = s + 1) begin : g_s
            if (s > 0) begin : g_g
                assign slot[s] = flit[s*128 +: 128];
            end
            cxl_flit256_rx_slot #(.SR(SR), .PBR(PBR), .H((s == 0) ? 1 : 0), .CWV(CWV), .TM2(TM2), .TM5(TM5), .RMV(RMV)) u_slot (
                .slot(slot[s]), .fmt_err(serr[s]), .pv(pv[s*4 +: 4]), .pc(pc[s*12 +: 12]),
                .ptrl(ptrl[s*4 +: 4]), .prsv(prsv[s*4 +: 4]));
            assign nz[s]   = |slot[s];
            assign rsvs[s] = |prsv[s*4 +: 4];
        end
    endgenerate

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
    wire f_empty_err = empty_flit && (|nz || crd[14:5] != 10'd0);

    // ---------------------------------------------------------------- successor of each slot
    // Slot s is a header slot when no data is owed; each valid DH owes 4 data (+1 trailer) slots,
    // starting right after its slot. As a header, slot s owes own(s) = 4 per valid DH + 1 per
    // trailer, and the next header after it is nxt(s) = s + 1 + own(s) (15 = past the flit): row s
    // of the one-hot successor matrix m1, formed from the slot alone (the counts of DHs and of
    // trailers as one-hot values, the row as an OR over their pairs).
    function automatic [4:0] cnt1h(input [3:0] v);  // number of set bits, one-hot (bit n = n)
        begin
            case (v)
                4'b0000: cnt1h = 5'b00001;
                4'b0001, 4'b0010, 4'b0100, 4'b1000: cnt1h = 5'b00010;
                4'b0111, 4'b1011, 4'b1101, 4'b1110: cnt1h = 5'b01000;
                4'b1111: cnt1h = 5'b10000;
                default: cnt1h = 5'b00100;
            endcase
        end
    endfunction
    // the (a, b) pairs (a DHs, b trailers) that make min(15, sl + 1 + 4a + b) = t
    function automatic [24:0] pairs(input integer sl, input integer t);
        integer a, b, n;
        begin
            pairs = 25'd0;
            for (a = 0; a < 5; a = a + 1)
                for (b = 0; b < 5; b = b + 1) begin
                    n = sl + 1 + 4*a + b;
                    if (((n >= 15) ? 15 : n) == t) pairs[a*5 + b] = 1'b1;
                end
        end
    endfunction
    wire [NPOS-1:0]  isdh;               // position holds a valid DH (ptrl implies it)
    wire [NSLOT*16-1:0] m1r;             // row s: bit t = (t = nxt(s)), 15 for past the flit
    genvar q, ga, gbb;
    generate
        for (s = 0; s < NSLOT; s = s + 1) begin : g_nx
            for (q = 0; q < 4; q = q + 1) begin : g_q
                wire [2:0] c3 = pc[(s*4 + q)*3 +: 3];
                assign isdh[s*4 + q] = pv[s*4 + q] && (c3 == 3'd2 || c3 == 3'd5);
            end
            wire [4:0]  na = cnt1h(isdh[s*4 +: 4]);
            wire [4:0]  nb = cnt1h(ptrl[s*4 +: 4]);
            wire [24:0] ab;                  // bit a*5 + b: a DHs and b trailers
            for (ga = 0; ga < 5; ga = ga + 1) begin : g_a
                for (gbb = 0; gbb < 5; gbb = gbb + 1) begin : g_b
                    assign ab[ga*5 + gbb] = na[ga] & nb[gbb];
                end
            end
            for (ga = 0; ga < 16; ga = ga + 1) begin : g_t
                localparam [24:0] PT = pairs(s, ga);
                assign m1r[s*16 + ga] = |(ab & PT);
            end
        end
    endgenerate

    // ---------------------------------------------------------------- stage 1 registers
    reg                s1_v;
    reg  [1935:0]      s1_flit;
    reg  [63:0]        s1_syn;
    reg                s1_nop, s1_pay, s1_hdr_err, s1_crd_err, s1_empty_err;
    reg  [1:0]         s1_rcmd;
    reg  [7:0]         s1_fld;   // the ACK count / ESeq (its bits 9:8 only matter to hdr_err)
    reg  [47:0]        s1_crd;
    reg  [NSLOT-1:0]   s1_nz, s1_serr, s1_rsvs;
    reg  [NPOS-1:0]    s1_pv, s1_ptrl, s1_isdh;
    reg  [NPOS*3-1:0]  s1_pc;
    reg  [NSLOT*16-1:0] s1_m1;
    always @(posedge clk) begin
        if (rst) s1_v <= 1'b0;
        else     s1_v <= flit_valid;
    end
    always @(posedge clk) begin
        s1_flit  <= flit[1935:0];
        s1_syn   <= f_syn;
        s1_nop   <= f_nop;
        s1_pay   <= f_pay;
        s1_hdr_err <= f_hdr_err;
        s1_crd_err <= crd_err;
        s1_empty_err <= f_empty_err;
        s1_rcmd  <= f_rcmd;
        s1_fld   <= f_fld[7:0];
        s1_crd   <= crd_d;
        s1_nz    <= nz;
        s1_serr  <= serr;
        s1_rsvs  <= rsvs;
        s1_pv    <= pv;
        s1_ptrl  <= ptrl;
        s1_isdh  <= isdh;
        s1_pc    <= pc;
        s1_m1    <= m1r;
    end

    // ================================================================ stage 2: successors
    // The header set is everything reachable from slot 0 along nxt, formed by pointer doubling:
    // one-hot successor matrices for 1, 2, 4 and 8 steps (Boolean products: row s of the product
    // is the OR of the rows of the right matrix its left row selects) and the reach sets after 1,
    // 3 and 7 steps here, after 15 steps in stage 3 (4 matrix products deep instead of 15
    // dependent slot steps). Bit t of row s of a matrix is [s*16 + t], of its transpose
    // [t*16 + s]. Kept: ABC would otherwise fold the products back into a slot-by-slot chain.
    wire [255:0] m1 = {16'h8000, s1_m1};   // row 15: past the flit, a sink
    wire [255:0] m1t;
    (* keep *) wire [255:0] m2, m4, m8;
    wire [255:0] m2t, m4t;
    (* keep *) wire [15:0]  r1, r3, r7;
    wire [15:0] s3, s7;  // successors of r1 in 2 steps, of r3 in 4
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
            end
            assign s3[gmi]  = |(r1 & m2t[gmi*16 +: 16]);
            assign s7[gmi]  = |(r3 & m4t[gmi*16 +: 16]);
        end
    endgenerate
    assign r1 = 16'd1 | m1[15:0];
    assign r3 = r1 | s3;
    assign r7 = r3 | s7;

    // ---------------------------------------------------------------- per slot, as a header
    // What a slot does as a header depends on that slot alone: the first data slot of each DH
    // (dsl, 5-bit slot arithmetic as the slot walk it replaces), its C_DATA / M_DATA trailer slots,
    // whether it owes data past slot 14 (rollover), and whether a trailer it owes carries bits
    // above the trailer width (D2H BE 64, RwD 96, DRS 32 bits: those must be zero).
    localparam integer TWC = (SDOWN == 1) ? 128 : 64;
    localparam integer TWM = (SDOWN == 1) ? 96 : 32;
    wire [NPOS*5-1:0] dsl;               // first data slot of the DH at (s, q), if s is a header
    wire [NSLOT-1:0]  past;              // header slot s owes data past slot 14
    wire [NSLOT-1:0]  tbad;              // a trailer slot header slot s owes has bits set above the width
    wire [NSLOT-1:0]  cbad, mbad;        // slot t as a C_DATA / M_DATA trailer: bits above the width
    wire [NSLOT*6*3-1:0] cnt;            // messages of class c in slot s: [(s*6 + c)*3 +: 3]
    wire [NSLOT*6-1:0]   qf;             // class c's run in slot s starts behind the first class's message
    wire [2*NPOS-1:0]    dh;             // position p holds a valid C_DATA (d = 0) / M_DATA (1) DH: [d*NPOS + p]
    function automatic integer first_of(input integer c);  // first class of c's two-class format
        begin
            first_of = -1;
            if (PBR == 0 && c == 1) first_of = 0;
            if (PBR == 0 && SDOWN == 0 && c == 4) first_of = 3;
        end
    endfunction
    // Position q's DH (if valid) starts its data at s + 1 + 4 a + b, with a DHs and b trailers
    // before it in the slot; b <= a <= 3, so 4 a + b is the 4-bit value {a, b}.
    function automatic [1:0] cnt3(input [2:0] v);   // set bits of 3 bits
        begin
            cnt3 = {1'b0, v[0]} + {1'b0, v[1]} + {1'b0, v[2]};
        end
    endfunction
    genvar gc;
    generate
        for (s = 0; s < NSLOT; s = s + 1) begin : g_hs
            wire [127:0] sl = (s == 0) ? {16'd0, s1_flit[127:16]} : s1_flit[s*128 +: 128];
            assign cbad[s] = (TWC < 128) && |(sl >> TWC);
            assign mbad[s] = |(sl >> TWM);
            wire [3:0] dv = s1_isdh[s*4 +: 4];
            wire [3:0] tv = s1_ptrl[s*4 +: 4];
            wire [14:0] tcs_q [0:3];
            wire [14:0] tms_q [0:3];
            for (q = 0; q < 4; q = q + 1) begin : g_dq
                wire [1:0] a = (q == 0) ? 2'd0 : cnt3(3'(dv[((q > 0) ? q : 1)-1:0]));
                wire [1:0] b = (q == 0) ? 2'd0 : cnt3(3'(tv[((q > 0) ? q : 1)-1:0]));
                wire [4:0] d = 5'(s + 1) + {1'b0, a, b};   // 5-bit slot arithmetic
                // its trailer slot s + 5 + {a, b}, one-hot (none past slot 14): each bit a compare
                // of {a, b} with a constant, not a decode of the sum (a flit whose trailer would
                // lie past slot 14 owes data past it: `past` rejects it)
                wire [14:0] tm;
                for (ga = 0; ga < NSLOT; ga = ga + 1) begin : g_t
                    if (ga >= s + 5) begin : g_on
                        assign tm[ga] = tv[q] && {a, b} == 4'(ga - s - 5);
                    end else begin : g_off
                        assign tm[ga] = 1'b0;
                    end
                end
                wire [2:0] pcq = s1_pc[(s*4 + q)*3 +: 3];
                assign tcs_q[q] = (pcq == 3'd2) ? tm : 15'd0;
                assign tms_q[q] = (pcq == 3'd2) ? 15'd0 : tm;
                assign dsl[(s*4 + q)*5 +: 5] = d;
                assign dh[s*4 + q]        = s1_pv[s*4 + q] && pcq == 3'd2;
                assign dh[NPOS + s*4 + q] = s1_pv[s*4 + q] && pcq == 3'd5;
            end
            wire [14:0] tcs = tcs_q[0] | tcs_q[1] | tcs_q[2] | tcs_q[3];   // C_DATA trailer slots
            wire [14:0] tms = tms_q[0] | tms_q[1] | tms_q[2] | tms_q[3];   // M_DATA trailer slots
            // owed slots: 4 per DH + 1 per trailer (at most 20)
            wire [2:0] na = {2'd0, dv[0]} + {2'd0, dv[1]} + {2'd0, dv[2]} + {2'd0, dv[3]};
            wire [2:0] nb = {2'd0, tv[0]} + {2'd0, tv[1]} + {2'd0, tv[2]} + {2'd0, tv[3]};
            assign past[s] = (6'(s + 1) + {1'b0, na, 2'b00} + {3'd0, nb}) > 6'd15;
            assign tbad[s] = |(tcs & cbad) | |(tms & mbad);
            for (gc = 0; gc < 6; gc = gc + 1) begin : g_c
                wire [3:0] m;
                for (q = 0; q < 4; q = q + 1) begin : g_m
                    assign m[q] = s1_pv[s*4 + q] && s1_pc[(s*4 + q)*3 +: 3] == 3'(gc);
                end
                // first position of class c in the slot (valid or not; 0 if none)
                wire [3:0] pm;
                for (q = 0; q < 4; q = q + 1) begin : g_p
                    assign pm[q] = s1_pc[(s*4 + q)*3 +: 3] == 3'(gc);
                end
                assign cnt[(s*6 + gc)*3 +: 3] = {2'd0, m[0]} + {2'd0, m[1]} + {2'd0, m[2]} + {2'd0, m[3]};
                assign qf[s*6 + gc] = (first_of(gc) >= 0) && !pm[0] && (pm[1] || pm[2] || pm[3]);
            end
        end
    endgenerate

    // What stages 2 to 4 only carry to the outputs, packed once: stage 4 unpacks it.
    localparam integer CRW = 1936 + 64 + 1 + 1 + 1 + 2 + 8 + 48;
    wire [CRW-1:0] s1_cr = {s1_flit, s1_syn, s1_nop, s1_pay, s1_hdr_err, s1_rcmd, s1_fld, s1_crd};

    // ---------------------------------------------------------------- stage 2 registers
    reg                s2_v;
    reg  [CRW-1:0]     s2_cr;     // the carried fields (s1_cr)
    reg                s2_err;
    reg  [NSLOT-1:0]   s2_nz, s2_serr, s2_rsvs, s2_past, s2_tbad;
    reg  [255:0]       s2_m8;
    reg  [15:0]        s2_r7;
    reg  [NPOS*5-1:0]  s2_dsl;
    reg  [NSLOT*6*3-1:0] s2_cnt;
    reg  [NSLOT*6-1:0] s2_qf;
    reg  [2*NPOS-1:0]  s2_dh;
    always @(posedge clk) begin
        if (rst) s2_v <= 1'b0;
        else     s2_v <= s1_v;
    end
    always @(posedge clk) begin
        s2_cr   <= s1_cr;
        s2_err   <= s1_crd_err || s1_empty_err;
        s2_nz    <= s1_nz;
        s2_serr  <= s1_serr;
        s2_rsvs  <= s1_rsvs;
        s2_past  <= past;
        s2_tbad  <= tbad;
        s2_m8    <= m8;
        s2_r7    <= r7;
        s2_dsl   <= dsl;
        s2_cnt   <= cnt;
        s2_qf    <= qf;
        s2_dh    <= dh;
    end

    // ================================================================ stage 3: header slots
    wire [255:0] m8t;
    (* keep *) wire [15:0] r15;
    wire [15:0] s15;  // successors of r7 in 8 steps
    generate
        for (gmi = 0; gmi < 16; gmi = gmi + 1) begin : g_m8
            for (gmj = 0; gmj < 16; gmj = gmj + 1) begin : g_mj
                assign m8t[gmj*16 + gmi] = s2_m8[gmi*16 + gmj];
            end
            assign s15[gmi] = |(s2_r7 & m8t[gmi*16 +: 16]);
        end
    endgenerate
    assign r15 = s2_r7 | s15;
    wire [NSLOT-1:0] is_hdr = r15[NSLOT-1:0];
    /* verilator lint_off UNUSEDSIGNAL */  // bit 15: reached past the flit (no header there)
    wire unused_r15 = r15[15];
    /* verilator lint_on UNUSEDSIGNAL */
    // everything but the group limits, MAXM and DA: the flit alone
    wire err3 = s2_err || |(s2_past & is_hdr) || |(s2_serr & is_hdr & s2_nz) ||
                |(is_hdr & s2_rsvs) || |(is_hdr & s2_tbad);

    // Per class: messages in each header slot (nsc), per 128B group (gcnt), run flags (a header
    // slot holding the class), runs before each slot within its group (irk) and per group (grc).
    // For the data lines: the valid DHs of header slots (dd) and their counts below.
    wire [NSLOT*6*3-1:0] nsc;
    wire [4*6*5-1:0]     gcnt;           // [(g*6 + c)*5 +: 5]
    wire [NSLOT*6-1:0]   rf;             // [s*6 + c]
    wire [NSLOT*6*2-1:0] irk;            // [(s*6 + c)*2 +: 2]
    wire [4*6*3-1:0]     grc;            // [(g*6 + c)*3 +: 3]
    wire [NPOS*5-1:0]    dst;            // first data slot of the DH at (s, q), 0 unless s is a header
    wire [2*NPOS-1:0]    dd;
    wire [2*NSLOT*3-1:0] scv;            // [(d*NSLOT + s)*3 +: 3]: DHs of class d in header slot s
    wire [2*NPOS*2-1:0]  inq;            // [(d*NPOS + p)*2 +: 2]: before position p in its slot
    wire [2*NSLOT*4-1:0] isp;            // [(d*NSLOT + s)*4 +: 4]: before slot s in its group
    wire [2*4*5-1:0]     gd;             // [(d*4 + g)*5 +: 5]: in group g
    wire unused_gd3 = &{1'b0, gd[35 +: 5], gd[15 +: 5]};   // no group follows group 3
    genvar gg, gd2;
    generate
        for (s = 0; s < NSLOT; s = s + 1) begin : g_h3
            for (gc = 0; gc < 6; gc = gc + 1) begin : g_c
                wire [2:0] n = s2_cnt[(s*6 + gc)*3 +: 3];
                assign nsc[(s*6 + gc)*3 +: 3] = is_hdr[s] ? n : 3'd0;
                assign rf[s*6 + gc] = is_hdr[s] && n != 3'd0;
            end
            assign dst[s*20 +: 20] = is_hdr[s] ? s2_dsl[s*20 +: 20] : 20'd0;
            assign dd[s*4 +: 4]        = {4{is_hdr[s]}} & s2_dh[s*4 +: 4];
            assign dd[NPOS + s*4 +: 4] = {4{is_hdr[s]}} & s2_dh[NPOS + s*4 +: 4];
        end
        for (gc = 0; gc < 6; gc = gc + 1) begin : g_gc
            for (gg = 0; gg < 4; gg = gg + 1) begin : g_g
                localparam integer S0 = gg * 4;
                // the group's slots (group 3 has three: slots 12..14)
                wire [2:0] n0 = nsc[((S0 + 0)*6 + gc)*3 +: 3];
                wire [2:0] n1 = nsc[((S0 + 1)*6 + gc)*3 +: 3];
                wire [2:0] n2 = nsc[((S0 + 2)*6 + gc)*3 +: 3];
                wire [2:0] n3 = (gg == 3) ? 3'd0 : nsc[(((gg == 3) ? S0 : S0 + 3)*6 + gc)*3 +: 3];
                wire       f0 = rf[(S0 + 0)*6 + gc];
                wire       f1 = rf[(S0 + 1)*6 + gc];
                wire       f2 = rf[(S0 + 2)*6 + gc];
                wire       f3 = (gg == 3) ? 1'b0 : rf[((gg == 3) ? S0 : S0 + 3)*6 + gc];
                assign gcnt[(gg*6 + gc)*5 +: 5] = ({2'd0, n0} + {2'd0, n1}) + ({2'd0, n2} + {2'd0, n3});
                assign grc[(gg*6 + gc)*3 +: 3]  = ({2'd0, f0} + {2'd0, f1}) + ({2'd0, f2} + {2'd0, f3});
                assign irk[((S0 + 0)*6 + gc)*2 +: 2] = 2'd0;
                assign irk[((S0 + 1)*6 + gc)*2 +: 2] = {1'b0, f0};
                assign irk[((S0 + 2)*6 + gc)*2 +: 2] = {1'b0, f0} + {1'b0, f1};
                if (gg < 3) begin : g_4
                    assign irk[((S0 + 3)*6 + gc)*2 +: 2] = {1'b0, f0} + {1'b0, f1} + {1'b0, f2};
                end
            end
        end
        // the data lines: DHs of class d per header slot (sc), before each position within its slot
        // (inq), before each slot within its group (isp), per group (gd)
        for (gd2 = 0; gd2 < 2; gd2 = gd2 + 1) begin : g_dl
            for (s = 0; s < NSLOT; s = s + 1) begin : g_s
                wire [3:0] v = dd[gd2*NPOS + s*4 +: 4];
                wire [2:0] sc = ({2'd0, v[0]} + {2'd0, v[1]}) + ({2'd0, v[2]} + {2'd0, v[3]});
                assign scv[(gd2*NSLOT + s)*3 +: 3] = sc;
                assign inq[(gd2*NPOS + s*4 + 0)*2 +: 2] = 2'd0;
                assign inq[(gd2*NPOS + s*4 + 1)*2 +: 2] = {1'b0, v[0]};
                assign inq[(gd2*NPOS + s*4 + 2)*2 +: 2] = {1'b0, v[0]} + {1'b0, v[1]};
                assign inq[(gd2*NPOS + s*4 + 3)*2 +: 2] = {1'b0, v[0]} + {1'b0, v[1]} + {1'b0, v[2]};
            end
            for (gg = 0; gg < 4; gg = gg + 1) begin : g_g
                localparam integer S0 = gg * 4;
                wire [2:0] c0 = scv[(gd2*NSLOT + S0 + 0)*3 +: 3];
                wire [2:0] c1 = scv[(gd2*NSLOT + S0 + 1)*3 +: 3];
                wire [2:0] c2 = scv[(gd2*NSLOT + S0 + 2)*3 +: 3];
                wire [2:0] c3 = (gg == 3) ? 3'd0 : scv[(gd2*NSLOT + ((gg == 3) ? S0 : S0 + 3))*3 +: 3];
                assign gd[(gd2*4 + gg)*5 +: 5] = ({2'd0, c0} + {2'd0, c1}) + ({2'd0, c2} + {2'd0, c3});
                assign isp[(gd2*NSLOT + S0 + 0)*4 +: 4] = 4'd0;
                assign isp[(gd2*NSLOT + S0 + 1)*4 +: 4] = {1'b0, c0};
                assign isp[(gd2*NSLOT + S0 + 2)*4 +: 4] = {1'b0, c0} + {1'b0, c1};
                if (gg < 3) begin : g_4
                    assign isp[(gd2*NSLOT + S0 + 3)*4 +: 4] = {1'b0, c0} + {1'b0, c1} + {1'b0, c2};
                end
            end
        end
    endgenerate

    // ---------------------------------------------------------------- stage 3 registers
    reg                s3_v;
    reg  [CRW-1:0]     s3_cr;     // the carried fields (s1_cr)
    reg                s3_err;
    reg  [NSLOT*6*3-1:0] s3_nsc;
    reg  [4*6*5-1:0]   s3_gcnt;
    reg  [NSLOT*6-1:0] s3_rf, s3_qf;
    reg  [NSLOT*6*2-1:0] s3_irk;
    reg  [4*6*3-1:0]   s3_grc;
    reg  [NPOS*5-1:0]  s3_dst;
    reg  [2*NPOS-1:0]  s3_dd;
    reg  [2*NPOS*2-1:0] s3_inq;
    reg  [2*NSLOT*4-1:0] s3_isp;
    reg  [2*3*5-1:0]   s3_gd;     // groups 0..2
    always @(posedge clk) begin
        if (rst) s3_v <= 1'b0;
        else     s3_v <= s2_v;
    end
    always @(posedge clk) begin
        s3_cr   <= s2_cr;
        s3_err   <= err3;
        s3_nsc   <= nsc;
        s3_gcnt  <= gcnt;
        s3_rf    <= rf;
        s3_qf    <= s2_qf;
        s3_irk   <= irk;
        s3_grc   <= grc;
        s3_dst   <= dst;
        s3_dd    <= dd;
        s3_inq   <= inq;
        s3_isp   <= isp;
        s3_gd    <= {gd[20 +: 15], gd[0 +: 15]};
    end

    // ================================================================ stage 4: counts and ranks
    // Per class the flit's total (a tree of the four group sums) and its checks: the group
    // limits AB, BC, CD and MAXM; the DA limit crosses flits (prev_d, the previous committed
    // flit's group D count). While a flit is in this stage, the flit on the outputs (stage 4's
    // registers) is the only one that can change prev_d before it reaches them, so its DA check
    // is formed here for both values prev_d can then hold: prev_d as it is (dak) and the group D
    // count of the flit on the outputs (dan, which prev_d takes when that flit is committed good);
    // the outputs pick one by a registered bit (upd_r). The runs: run j of class c comes from the
    // header slot with j runs of c before it (the runs of the groups before its group plus those
    // before it in its group); only the (run, slot) pairs a flit within the group limits can use
    // are built (slots 0..7 hold at most L runs of a class, slots 8..14 2L, data classes MAXD);
    // any other flit is rejected as grp_err or max_err, which zeroes the outputs. Line i of a data
    // class is the DH with i DHs before it (counted up to 3 the same way).
    reg  [6*5-1:0]   prev_d;             // the previous committed good payload flit's group D counts
    reg              upd_r;              // the flit on the outputs last cycle set prev_d
    reg  [6*5-1:0]   s4_gd3;             // the stage-4 flit's group D counts (stage 4 register)
    wire [6*5-1:0]   tot;
    wire [5:0]       dak, dan;           // class c breaks the DA limit with prev_d kept / with s4_gd3
    wire [5:0]       gerr, merr;
    wire [6*MAXM*NSLOT-1:0] sel;         // [(c*MAXM + j)*NSLOT + s]: run j of class c is slot s
    wire [6*5-1:0]   nrun;
    wire [2*3*NPOS-1:0] lsel;            // [(d*3 + i)*NPOS + p]: line i of data class d is the DH at p
    genvar gj, gp;
    generate
        for (gc = 0; gc < 6; gc = gc + 1) begin : g_t4
            localparam [4:0] L5 = glim(3'(gc));
            localparam integer L   = 32'(L5);
            localparam integer RL  = rlanes(3'(gc));
            localparam integer DC  = (gc == 2 || gc == 5) ? 1 : 0;
            wire [4:0] g0 = s3_gcnt[(0*6 + gc)*5 +: 5];
            wire [4:0] g1 = s3_gcnt[(1*6 + gc)*5 +: 5];
            wire [4:0] g2 = s3_gcnt[(2*6 + gc)*5 +: 5];
            wire [4:0] g3 = s3_gcnt[(3*6 + gc)*5 +: 5];
            assign tot[gc*5 +: 5] = (g0 + g1) + (g2 + g3);
            assign gerr[gc] = (g0 + g1 > L5) || (g1 + g2 > L5) || (g2 + g3 > L5);
            assign merr[gc] = tot[gc*5 +: 5] > 5'(MAXM);
            // 5-bit sums: a group D count is at most 12 (3 slots) and g0 at most 16, so no wrap
            assign dak[gc] = prev_d[gc*5 +: 5] + g0 > L5;
            assign dan[gc] = s4_gd3[gc*5 +: 5] + g0 > L5;
            wire [2:0] r0 = s3_grc[(0*6 + gc)*3 +: 3];
            wire [2:0] r1g = s3_grc[(1*6 + gc)*3 +: 3];
            wire [2:0] r2g = s3_grc[(2*6 + gc)*3 +: 3];
            wire [2:0] r3g = s3_grc[(3*6 + gc)*3 +: 3];
            assign nrun[gc*5 +: 5] = ({2'd0, r0} + {2'd0, r1g}) + ({2'd0, r2g} + {2'd0, r3g});
            // runs before the first slot of each group
            wire [3:0] rb0 = 4'd0;
            wire [3:0] rb1 = {1'b0, r0};
            wire [3:0] rb2 = {1'b0, r0} + {1'b0, r1g};
            wire [3:0] rb3 = ({1'b0, r0} + {1'b0, r1g}) + {1'b0, r2g};
            for (s = 0; s < NSLOT; s = s + 1) begin : g_s
                wire [3:0] grb = (s < 4) ? rb0 : (s < 8) ? rb1 : (s < 12) ? rb2 : rb3;
                wire [3:0] rk = grb + {2'd0, s3_irk[(s*6 + gc)*2 +: 2]};
                for (gj = 0; gj < MAXM; gj = gj + 1) begin : g_j
                    if (gj < RL && gj <= s && gj < ((DC != 0) ? RL : (s < 8) ? L : 2*L)) begin : g_on
                        assign sel[(gc*MAXM + gj)*NSLOT + s] = s3_rf[s*6 + gc] && rk == 4'(gj);
                    end else begin : g_off
                        assign sel[(gc*MAXM + gj)*NSLOT + s] = 1'b0;
                    end
                end
            end
        end
        for (gd2 = 0; gd2 < 2; gd2 = gd2 + 1) begin : g_l4
            wire [4:0] d0 = s3_gd[(gd2*3 + 0)*5 +: 5];
            wire [4:0] d1 = s3_gd[(gd2*3 + 1)*5 +: 5];
            wire [4:0] d2 = s3_gd[(gd2*3 + 2)*5 +: 5];
            // DHs before each group
            wire [5:0] db1 = {1'b0, d0};
            wire [5:0] db2 = {1'b0, d0} + {1'b0, d1};
            wire [5:0] db3 = ({1'b0, d0} + {1'b0, d1}) + {1'b0, d2};
            for (gp = 0; gp < NPOS; gp = gp + 1) begin : g_p
                localparam integer SP = gp / 4;
                wire [5:0] gdb = (SP < 4) ? 6'd0 : (SP < 8) ? db1 : (SP < 12) ? db2 : db3;
                wire [4:0] ins = {1'b0, s3_isp[(gd2*NSLOT + SP)*4 +: 4]} + {3'd0, s3_inq[(gd2*NPOS + gp)*2 +: 2]};
                wire [5:0] rk  = gdb + {1'b0, ins};
                for (gj = 0; gj < 3; gj = gj + 1) begin : g_i
                    if (gj < MAXD) begin : g_on
                        assign lsel[(gd2*3 + gj)*NPOS + gp] = s3_dd[gd2*NPOS + gp] && rk == 6'(gj);
                    end else begin : g_off
                        assign lsel[(gd2*3 + gj)*NPOS + gp] = 1'b0;
                    end
                end
            end
        end
    endgenerate
    wire perr4 = s3_err || |gerr || |merr;

    // ---------------------------------------------------------------- stage 4 registers
    reg                s4_v;
    reg  [CRW-1:0]     s4_cr;     // the carried fields (s1_cr)
    reg                s4_err;
    reg  [6*5-1:0]     s4_tot, s4_nrun;
    reg                s4_dak, s4_dan;  // some class breaks the DA limit with prev_d kept / replaced by s4_gd3
    reg  [6*MAXM*NSLOT-1:0] s4_sel;
    reg  [NSLOT*6*3-1:0] s4_nsc;
    reg  [NSLOT*6-1:0] s4_qf;
    reg  [2*3*NPOS-1:0] s4_lsel;
    reg  [NPOS*5-1:0]  s4_dst;
    always @(posedge clk) begin
        if (rst) s4_v <= 1'b0;
        else     s4_v <= s3_v;
    end
    always @(posedge clk) begin
        s4_cr   <= s3_cr;
        s4_err   <= perr4;
        s4_tot   <= tot;
        s4_nrun  <= nrun;
        s4_gd3   <= s3_gcnt[3*6*5 +: 6*5];
        s4_dak   <= |dak;
        s4_dan   <= |dan;
        s4_sel   <= sel;
        s4_nsc   <= s3_nsc;
        s4_qf    <= s3_qf;
        s4_lsel  <= lsel;
        s4_dst   <= s3_dst;
    end

    // ================================================================ outputs (the flit of stage 4)
    // CRC: a payload flit's CRC field holds crc_seq beyond its CRC (cxl_link's sequence term)
    assign out_valid = s4_v;
    wire [1935:0] s4_flit;
    wire [63:0]   s4_syn;
    wire          s4_nop, s4_pay, s4_hdr_err;
    wire [1:0]    s4_rcmd;
    wire [7:0]    s4_fld;
    wire [47:0]   s4_crd;
    assign {s4_flit, s4_syn, s4_nop, s4_pay, s4_hdr_err, s4_rcmd, s4_fld, s4_crd} = s4_cr;
    assign pay_type  = s4_pay;
    assign crc_ok    = (s4_syn == (s4_pay ? crc_seq : 64'd0));

    // Group DA crosses flits: the previous committed flit's group D count (prev_d) plus this
    // flit's group A count above the limit. Stage 4 formed it for prev_d kept and for prev_d
    // replaced by the flit then ahead of this one; upd_r says whether that flit was committed good
    // (so prev_d now holds its count).
    wire da_err = upd_r ? s4_dan : s4_dak;

    // ---------------------------------------------------------------- verdict
    wire err  = s4_hdr_err || (s4_pay && (s4_err || da_err));
    wire chk  = s4_v && crc_ok;
    wire good = chk && !err;
    wire good_pay = good && s4_pay;

    assign proto_err     = chk && err;
    assign retryable     = chk && s4_pay;
    assign ctl_kind      = !good ? K_NONE : s4_pay ? K_NONE :
                           (s4_rcmd == 2'b10) ? K_REQ : (s4_rcmd == 2'b11) ? K_ACK : K_IDLE;
    assign ctl_eseq      = (good && s4_nop) ? s4_fld[7:0] : 8'd0;
    assign ctl_num_retry = 5'd0;  // not carried by the 256B header (CONVENTIONS.md)
    assign ctl_empty     = 1'b0;
    assign ack_cnt       = (good_pay && s4_rcmd == 2'b01) ? s4_fld[7:0] : 8'd0;
    assign crd_cnt       = good_pay ? s4_crd : 48'd0;

    // ---------------------------------------------------------------- runs
    // Run of class c in slot s: its messages are back to back in the slot from position q0, which
    // is 0, or 1 behind the single first-class message of a two-class HBR format (G0/H0: H2D Req +
    // H2D Rsp; G2/H2: D2H Req + D2H Rsp; G6: S2M BISnp + S2M NDR; cxl-flits.md 4.2). So the run is
    // the slot shifted by one of two constant offsets (qf: the second); bits past its messages are
    // never read. Run j is the OR of the slots its one-hot select names.
    wire [6*MAXM*124-1:0]  rbits_o;
    wire [6*MAXM*3-1:0]    rn_o;
    generate
        for (gc = 0; gc < 6; gc = gc + 1) begin : g_run
            localparam integer W   = cw(3'(gc));
            localparam integer NR  = nrmax(3'(gc));
            localparam integer RWB = NR * W;
            localparam integer F   = first_of(gc);
            localparam integer O1  = (F >= 0) ? 4 + cw(3'(F)) : 4;
            localparam integer RL  = rlanes(3'(gc));
            wire [NSLOT*RWB-1:0] rb;
            for (s = 0; s < NSLOT; s = s + 1) begin : g_s
                wire [127:0] sl = (s == 0) ? {16'd0, s4_flit[127:16]} : s4_flit[s*128 +: 128];
                assign rb[s*RWB +: RWB] = RWB'((F >= 0 && s4_qf[s*6 + gc]) ? sl >> O1 : sl >> 4);
            end
            for (gj = 0; gj < MAXM; gj = gj + 1) begin : g_j
                if (gj < RL) begin : g_on
                    reg [RWB-1:0] acc;
                    reg [2:0]     nacc;
                    integer       sa;
                    always @* begin
                        acc  = {RWB{1'b0}};
                        nacc = 3'd0;
                        for (sa = 0; sa < NSLOT; sa = sa + 1)
                            if (s4_sel[(gc*MAXM + gj)*NSLOT + sa]) begin
                                acc  = acc | rb[sa*RWB +: RWB];
                                nacc = nacc | s4_nsc[(sa*6 + gc)*3 +: 3];
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

    // ---------------------------------------------------------------- data lines
    // Line i of a data class: the 4 slots from the first data slot of its i-th data header.
    generate
        for (gd2 = 0; gd2 < 2; gd2 = gd2 + 1) begin : g_ln
            localparam integer GC = (gd2 == 0) ? 2 : 5;
            for (gj = 0; gj < 3; gj = gj + 1) begin : g_m
                if (gj < MAXD) begin : g_on
                    reg [4:0] dacc;
                    integer   pa;
                    always @* begin
                        dacc = 5'd0;
                        for (pa = 0; pa < NPOS; pa = pa + 1)
                            if (s4_lsel[(gd2*3 + gj)*NPOS + pa]) dacc = dacc | s4_dst[pa*5 +: 5];
                    end
                    wire on = good_pay && (5'(gj) < s4_tot[GC*5 +: 5]) && dacc <= 5'd11;
                    // the slots' select is kept, so the verdict gates it last (ABC takes every
                    // register as equally early and would fold `on` into the select tree)
                    (* keep *) wire [511:0] raw = s4_flit[dacc*128 +: 512];
                    assign line[(gd2*3 + gj)*512 +: 512] = on ? raw : 512'd0;
                end else begin : g_off
                    assign line[(gd2*3 + gj)*512 +: 512] = 512'd0;
                end
            end
        end
    endgenerate

    genvar c, m;
    generate
        for (c = 0; c < 6; c = c + 1) begin : g_c
            assign msg_cnt[c*5 +: 5] = good_pay ? s4_tot[c*5 +: 5] : 5'd0;
            for (m = 0; m < MAXM; m = m + 1) begin : g_m
                assign run_valid[c*MAXM + m] = good_pay && (5'(m) < s4_nrun[c*5 +: 5]);
                assign run_n[(c*MAXM + m)*3 +: 3] = good_pay ? rn_o[(c*MAXM + m)*3 +: 3] : 3'd0;
                assign run_bits[(c*MAXM + m)*124 +: 124] = rbits_o[(c*MAXM + m)*124 +: 124];
            end
        end
    endgenerate

    // ---------------------------------------------------------------- state: group D counts
    always @(posedge clk) begin
        if (rst) begin
            prev_d <= 30'd0;
            upd_r  <= 1'b0;
        end else begin
            if (commit && good_pay) prev_d <= s4_gd3;
            upd_r <= commit && good_pay;
        end
    end
endmodule
`default_nettype wire
