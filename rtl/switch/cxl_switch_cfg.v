`default_nettype none
// Switch configuration registers, configuration checks and event counters.
//
// Register port (a multi-cycle access: configuration accesses are rare and latency-insensitive):
//   * a request (cfg_valid, cfg_write, cfg_addr, cfg_wdata) is taken at the rising edge where
//     cfg_valid && cfg_ready; the requester holds it until then;
//   * cfg_ready (a flip-flop, low in reset) is low from the cycle after a request is taken until
//     its answer: one access is in flight at a time, so there is one answer per request taken, in
//     request order;
//   * the answer (cfg_rvalid for one cycle, cfg_resp, cfg_rdata) comes 7 cycles after the cycle
//     that took the request (taken in cycle c, answered in cycle c+7), for reads and writes alike;
//     cfg_ready is high again in the answer's cycle, so the next request can be taken then: one
//     access per 7 cycles. The latency is fixed, so a parent that muxes several of these ports by
//     a select gets their answers in the order it handed the requests out, never two in one cycle;
//   * cfg_resp 0 = OK, 1 = no such register, 2 = rejected (configuration left unchanged; the reason
//     code is kept in ERR); cfg_rdata of a write is the register's value before the write.
// Pipeline: every stage's flip-flops load each cycle from the stage before and from the register
// state, which only a commit changes, so while a request is in flight they hold its values; the
// one-hot token tok marks the stage it has reached. The checks are those of a single-cycle check
// of the write against the configuration present when it is taken, in the same priority.
//   cycle c    take: request registered (q_*)
//   c+1 tok0   address decode, one-hot selects; staging decoder di read (m_*); PID/DPID match
//              vectors of the written value against ports and routes
//   c+2 tok1   base + size (Kogge-Stone add), size mod 3, interleave ways, target pair compares,
//              target port/USP checks, staging base < limit of each committed decoder, route
//              match reductions; read data selected (counters sampled here); the decoder terms
//              committed with it for cxl_hdm_decode (base mod 3, eIG + eIW[1:0], targets >= N)
//   c+3 tok2   committed base < staging limit (overlap), duplicate targets, targets with a finding
//   c+4 tok3   first target with a finding: duplicate / bad port / USP PID
//   c+5 tok4   priority pick of the reason code (k_chk)
//   c+6 tok5   commit or reject (register writes, ERR, counter clear), answer registered
//   c+7        cfg_rvalid, cfg_ready
// Map (word addresses):
//   0x000 CTRL    [0] PBR mode, [1] poison read data on decode error
//   0x001 INFO    RO: [7:0] N, [15:8] NDEC, [23:16] NRT
//   0x002 ERR     RO: reason of the last rejected write (codes below)
//   0x010+p PORT  [0] enable, [2:1] role (0 USP, 1 DSP, 2 FABRIC), [31:16] PID (12-bit)
//   0x100+0x20*d  decoder d staging: +0 BASE, +1 SIZE (256 MB units, 24 bits), +2 CTRL
//                 ([3:0] eIW, [6:4] eIG), +3 COMMIT ([0] 1 = check and commit, 0 = disable),
//                 +0x10+w TARGET w ([15:0]; port number in HBR, DPID in PBR)
//   0x200+e ROUTE [0] valid, [11:8] egress port, [31:16] DPID
//   0x300+k COUNT RO counter k (models.switch.SwitchCounters order, 15 = rejected writes);
//   0x3FF   write: clear all counters
// Counters: a read returns every event raised before the cycle that took the read (and every
// rejection of an earlier access); see the counter block below.
module cxl_switch_cfg #(
    parameter integer N    = 4,   // <= 16
    parameter integer NDEC = 4,   // <= 8
    parameter integer NRT  = 8,   // <= 256
    parameter integer PW   = (N > 1) ? $clog2(N) : 1
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  cfg_valid,
    output reg                   cfg_ready,
    input  wire                  cfg_write,
    input  wire [11:0]           cfg_addr,
    input  wire [31:0]           cfg_wdata,
    output reg                   cfg_rvalid,
    output reg  [31:0]           cfg_rdata,
    output reg  [1:0]            cfg_resp,
    input  wire [N*16-1:0]       ev,          // per port event bits (cxl_switch_port)
    input  wire [N-1:0]          ev_unsup,    // per port: unsupported message drained
    output reg                   cfg_pbr,
    output reg                   cfg_poison,
    output reg  [N-1:0]          cfg_en,
    output reg  [N*2-1:0]        cfg_role,
    output reg  [N*12-1:0]       cfg_pid,
    output reg  [NDEC-1:0]       dec_valid,
    output reg  [NDEC*24-1:0]    dec_base,
    output reg  [NDEC*24-1:0]    dec_size,
    output reg  [NDEC*4-1:0]     dec_eiw,
    output reg  [NDEC*3-1:0]     dec_eig,
    output reg  [NDEC*16*12-1:0] dec_tgt,
    // terms of the committed decoders for cxl_hdm_decode, registered with them: base mod 3
    // (one-hot, bit v: v mod 3), s = eIG + eIW[1:0] as a mask (bit i set when i >= s), per target
    // entry "the target is >= N"
    output reg  [NDEC*3-1:0]     dec_b3,
    output reg  [NDEC*11-1:0]    dec_s,
    output reg  [NDEC*16-1:0]    dec_thi,
    output reg  [NRT-1:0]        rt_valid,
    output reg  [NRT*12-1:0]     rt_dpid,
    output reg  [NRT*PW-1:0]     rt_port
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (N < 2 || N > 16) begin : g_bad_n
            cxl_switch_cfg_parameter_error_N_must_be_2_to_16 u_stop ();
        end
        if (NDEC < 1 || NDEC > 8) begin : g_bad_ndec
            cxl_switch_cfg_parameter_error_NDEC_must_be_1_to_8 u_stop ();
        end
        if (NRT < 1 || NRT > 256) begin : g_bad_nrt
            cxl_switch_cfg_parameter_error_NRT_must_be_1_to_256 u_stop ();
        end
        if (PW != ((N > 1) ? $clog2(N) : 1)) begin : g_bad_pw
            cxl_switch_cfg_parameter_error_PW_must_be_derived u_stop ();
        end
    endgenerate

    localparam [1:0] ROLE_USP = 2'd0, ROLE_DSP = 2'd1, ROLE_FAB = 2'd2;
    localparam [1:0] R_OK = 2'd0, R_ADDR = 2'd1, R_REJ = 2'd2;
    // rejection reasons (ERR register)
    localparam [7:0] E_NONE = 8'd0, E_PID_RANGE = 8'd2, E_PID_SHARED = 8'd3, E_ROLE = 8'd4,
                     E_EIW = 8'd5, E_EIG = 8'd6, E_WRAP = 8'd7, E_SIZE3 = 8'd8, E_OVERLAP = 8'd9,
                     E_TGT_DUP = 8'd10, E_TGT_PORT = 8'd11, E_TGT_RANGE = 8'd12, E_TGT_USP = 8'd13,
                     E_RT_DPID = 8'd14, E_RT_PORT = 8'd15, E_RT_LOCAL = 8'd16, E_RT_MODE = 8'd17,
                     E_DEC_RANGE = 8'd18, E_FAB_HBR = 8'd19, E_RT_DUP = 8'd20;
    localparam integer NCNT = 16;
    localparam integer PI = (N > 1) ? $clog2(N) : 1;
    localparam integer DI = (NDEC > 1) ? $clog2(NDEC) : 1;
    localparam integer EI = (NRT > 1) ? $clog2(NRT) : 1;

    // staging copies of the decoders
    reg [23:0] s_base [0:NDEC-1];
    reg [23:0] s_size [0:NDEC-1];
    reg [3:0]  s_eiw  [0:NDEC-1];
    reg [2:0]  s_eig  [0:NDEC-1];
    reg [11:0] s_tgt  [0:NDEC*16-1];
    reg [24:0] dec_lim [0:NDEC-1];     // dec_base + dec_size of each decoder, kept at its commit
    reg [NCNT*32-1:0] cnt;            // counter k at [k*32 +: 32]
    reg [7:0]  err_code;

    // ------------------------------------------------------------------ take
    reg         q_write;
    reg [11:0]  q_addr;
    reg [31:0]  q_wdata;
    reg [5:0]   tok;                   // tok[k]: the request is in stage k (one-hot or zero)
    wire        take = cfg_valid && cfg_ready;
    always @(posedge clk) begin
        if (rst) begin
            cfg_ready <= 1'b0; tok <= 6'd0;
            q_write <= 1'b0; q_addr <= 12'd0; q_wdata <= 32'd0;
        end else begin
            tok       <= {tok[4:0], take};
            cfg_ready <= !take && (tok[4:0] == 5'd0);    // idle once the token is in stage 5 or out
            if (take) begin
                q_write <= cfg_write; q_addr <= cfg_addr; q_wdata <= cfg_wdata;
            end
        end
    end

    // ------------------------------------------------------------------ stage 0: decode, select
    wire [3:0]    a_p  = q_addr[3:0];
    wire [2:0]    a_d  = q_addr[7:5];
    wire [4:0]    a_dr = q_addr[4:0];
    wire [7:0]    a_e  = q_addr[7:0];
    wire [PI-1:0] pi   = a_p[PI-1:0];
    wire [DI-1:0] di   = a_d[DI-1:0];
    wire [EI-1:0] ei   = a_e[EI-1:0];
    wire [1:0]    w_role  = q_wdata[2:1];
    wire [11:0]   w_pid   = q_wdata[27:16];
    wire          w_pid_x = q_wdata[31:28] != 4'd0;      // PID/DPID field >= 4096
    wire [3:0]    w_eg    = q_wdata[11:8];               // route egress port
    reg        d_ctrl, d_info, d_err, d_port, d_dec, d_rt, d_cnt, d_clr, d_mapped;
    reg [23:0] m_base, m_size;
    reg [3:0]  m_eiw;
    reg [2:0]  m_eig;
    reg [11:0] m_tgt [0:15];
    reg        f_any_fab;      // some port is a fabric port
    reg        f_any_rt;       // some route is valid
    reg        f_pid_shared;   // another edge port has the written PID
    reg        f_pid_local;    // an edge port has the written DPID
    reg [NRT-1:0] f_rtm;       // route e is valid with the written PID as DPID
    reg        f_rt_port;      // the route's egress port is out of range or not a fabric port
    // one-hot selects: port pi, decoder di, route ei (each zero unless the address is one), target
    // a_dr[3:0], decoder register a_dr
    reg [N-1:0]    o_p;
    reg [NDEC-1:0] o_d;
    reg [NRT-1:0]  o_e;
    reg [15:0]     o_t;
    reg            o_base, o_size, o_dctl, o_commit;
    integer    p0, e0, w0, c0;
    wire a_ctrl = q_addr == 12'h000;
    wire a_info = q_addr == 12'h001;
    wire a_err  = q_addr == 12'h002;
    wire a_port = (q_addr[11:4] == 8'h01) && (32'(a_p) < N);
    wire a_dec  = (q_addr[11:8] == 4'h1) && (32'(a_d) < NDEC) && (a_dr < 5'd4 || a_dr[4]);
    wire a_rt   = (q_addr[11:8] == 4'h2) && (32'(a_e) < NRT);
    wire a_cnt  = q_addr[11:4] == 8'h30;
    wire a_clr  = q_addr == 12'h3FF;
    always @(posedge clk) begin
        d_ctrl <= a_ctrl; d_info <= a_info; d_err <= a_err; d_port <= a_port; d_dec <= a_dec;
        d_rt <= a_rt; d_cnt <= a_cnt; d_clr <= a_clr;
        d_mapped <= a_ctrl | a_info | a_err | a_port | a_dec | a_rt | a_cnt | a_clr;
        for (p0 = 0; p0 < N; p0 = p0 + 1) o_p[p0] <= a_port && 32'(pi) == p0;
        for (c0 = 0; c0 < NDEC; c0 = c0 + 1) o_d[c0] <= a_dec && 32'(di) == c0;
        for (e0 = 0; e0 < NRT; e0 = e0 + 1) o_e[e0] <= a_rt && 32'(ei) == e0;
        for (w0 = 0; w0 < 16; w0 = w0 + 1) o_t[w0] <= 32'(a_dr[3:0]) == w0;
        o_base <= a_dr == 5'd0; o_size <= a_dr == 5'd1; o_dctl <= a_dr == 5'd2; o_commit <= a_dr == 5'd3;
        m_base <= s_base[di];
        m_size <= s_size[di];
        m_eiw  <= s_eiw[di];
        m_eig  <= s_eig[di];
        for (w0 = 0; w0 < 16; w0 = w0 + 1) m_tgt[w0] <= s_tgt[32'(di)*16 + w0];
        f_any_fab <= 1'b0; f_pid_shared <= 1'b0; f_pid_local <= 1'b0;
        for (p0 = 0; p0 < N; p0 = p0 + 1) begin
            if (cfg_role[p0*2 +: 2] == ROLE_FAB) f_any_fab <= 1'b1;
            if (p0 != 32'(pi) && cfg_role[p0*2 +: 2] != ROLE_FAB && cfg_pid[p0*12 +: 12] == w_pid)
                f_pid_shared <= 1'b1;
            if (cfg_role[p0*2 +: 2] != ROLE_FAB && cfg_pid[p0*12 +: 12] == w_pid) f_pid_local <= 1'b1;
        end
        f_any_rt <= |rt_valid;
        for (e0 = 0; e0 < NRT; e0 = e0 + 1)
            f_rtm[e0] <= rt_valid[e0] && rt_dpid[e0*12 +: 12] == w_pid;
        f_rt_port <= (32'(w_eg) >= N) || (cfg_role[32'(w_eg[PI-1:0])*2 +: 2] != ROLE_FAB);
    end

    // ------------------------------------------------------------------ stage 1: arithmetic, compares
    // The arithmetic of stages 1 and 2 is written as gate networks whose levels are kept
    // ((* keep *) nets): yosys maps + and < onto carry chains that ABC leaves at about two levels
    // per bit (47 for the 25-bit add), and ABC folds an unkept prefix network back into a chain
    // where that saves area (35 levels for the adder below, 30 for the counters' carry).

    // staging size and base mod 3 as trees of one-hot residues: 4^i = 1 (mod 3), so x mod 3 is the
    // sum of its 2-bit digits mod 3; a leaf is a digit's residue, a node adds two residues
    // (13 levels). Operand 0: m_size (the 3/6/12-way size check), 1: m_base (dec_b3).
    wire [2:0] size_r3, base_r3;
    genvar gm, gn, go;
    generate
        for (go = 0; go < 2; go = go + 1) begin : g_m3
            wire [23:0] x = (go == 0) ? m_size : m_base;
            wire [2:0] m3_r [0:4][0:11] /*verilator split_var*/;   // [level][node]: one-hot residue {2, 1, 0}
            for (gn = 0; gn < 12; gn = gn + 1) begin : g_leaf
                (* keep *) wire [2:0] r;
                assign r = {x[2*gn+1] & ~x[2*gn], x[2*gn] & ~x[2*gn+1], ~(x[2*gn+1] ^ x[2*gn])};
                assign m3_r[0][gn] = r;
            end
            // nodes per level: 12 -> 6 -> 3 -> 2 (one passed on) -> 1
            for (gm = 0; gm < 4; gm = gm + 1) begin : g_lv
                localparam integer NIN = (gm == 0) ? 12 : (gm == 1) ? 6 : (gm == 2) ? 3 : 2;
                for (gn = 0; gn < 12; gn = gn + 1) begin : g_node
                    if (2 * gn + 1 < NIN) begin : g_add
                        wire [2:0] a = m3_r[gm][2*gn];
                        wire [2:0] b = m3_r[gm][2*gn+1];
                        (* keep *) wire [2:0] r;
                        assign r = {(a[0] & b[2]) | (a[2] & b[0]) | (a[1] & b[1]),
                                    (a[0] & b[1]) | (a[1] & b[0]) | (a[2] & b[2]),
                                    (a[0] & b[0]) | (a[1] & b[2]) | (a[2] & b[1])};
                        assign m3_r[gm+1][gn] = r;
                    end else if (2 * gn < NIN) begin : g_pass
                        assign m3_r[gm+1][gn] = m3_r[gm][2*gn];
                    end else begin : g_none
                        assign m3_r[gm+1][gn] = 3'b001;
                    end
                end
            end
            if (go == 0) begin : g_size
                assign size_r3 = m3_r[4][0];
            end else begin : g_base
                assign base_r3 = m3_r[4][0];
            end
        end
    endgenerate
    wire size_m3_0 = size_r3[0];        // m_size is a multiple of 3

    // staging base + size as a 25-bit sum whose top bit is the carry out: ks_adder's kept
    // Kogge-Stone network on zero-extended operands (12 levels)
    wire [24:0] slim;
    ks_adder #(.WIDTH(25)) u_slim (.a({1'b0, m_base}), .b({1'b0, m_size}), .sum(slim));
    // a < b of 25-bit values as a tree of (less, equal) pairs, the higher half first (11 levels):
    // lt_base[c] = {0, staging base} < limit of decoder c (stage 1),
    // lt_lim[c]  = {0, base of decoder c} < staging limit (stage 2)
    wire [NDEC-1:0] lt_base, lt_lim;
    genvar gq, gt, gz;
    generate
        for (gq = 0; gq < 2 * NDEC; gq = gq + 1) begin : g_lt
            localparam integer CE = gq % NDEC;
            wire [24:0] a = (gq < NDEC) ? {1'b0, m_base} : {1'b0, dec_base[CE*24 +: 24]};
            wire [24:0] b = (gq < NDEC) ? dec_lim[CE] : c_slim;
            wire [31:0] l [0:5] /*verilator split_var*/;
            wire [31:0] e [0:5] /*verilator split_var*/;
            (* keep *) wire [24:0] lt0;
            (* keep *) wire [24:0] eq0;
            assign lt0 = ~a & b;
            assign eq0 = ~(a ^ b);
            assign l[0] = {7'd0, lt0};
            assign e[0] = {7'h7F, eq0};
            for (gt = 0; gt < 5; gt = gt + 1) begin : g_lv
                for (gz = 0; gz < 32; gz = gz + 1) begin : g_node
                    if (gz % (2 << gt) == 0) begin : g_op
                        (* keep *) wire lk;
                        (* keep *) wire ek;
                        assign lk = l[gt][gz + (1 << gt)] | (e[gt][gz + (1 << gt)] & l[gt][gz]);
                        assign ek = e[gt][gz + (1 << gt)] & e[gt][gz];
                        assign l[gt+1][gz] = lk;
                        assign e[gt+1][gz] = ek;
                    end else begin : g_pass
                        assign l[gt+1][gz] = l[gt][gz];
                        assign e[gt+1][gz] = e[gt][gz];
                    end
                end
            end
            if (gq < NDEC) begin : g_base
                assign lt_base[CE] = l[5][0];
            end else begin : g_lim
                assign lt_lim[CE] = l[5][0];
            end
        end
    endgenerate
    reg [24:0]     c_slim;         // staging base + size
    reg            c_eiw, c_eig, c_size3;
    reg [15:0]     c_wm;           // target w is one of the ways
    reg [119:0]    c_eq;           // targets w < w2 equal, pairs in order (0,1) (0,2) .. (14,15)
    reg [15:0]     c_prt, c_usp;   // HBR target not a DSP port number; PBR target is a USP's PID
    reg [NDEC-1:0] c_ovl_a;        // decoder ce is a committed one whose limit lies above the base
    reg            c_rt_local, c_rt_dup;
    reg [31:0]     c_rd;           // read data
    reg [2:0]      c_b3;           // staging base mod 3, one-hot
    reg [10:0]     c_s;            // staging s = eIG + eIW[1:0] as a mask: bit i set when i >= s
    reg [15:0]     c_thi;          // staging target w >= N
    reg [4:0]      ways;
    integer        w1, w2, p1, c1;
    // bit of c_eq holding the pair (a, b), a < b
    function automatic integer pidx(input integer a, input integer b);
        pidx = a * 15 - (a * (a - 1)) / 2 + (b - a - 1);
    endfunction
    always @* begin
        case (m_eiw)
            4'd0, 4'd1, 4'd2, 4'd3, 4'd4: ways = 5'd1 << m_eiw;
            4'd8, 4'd9, 4'd10: ways = 5'd3 << (m_eiw - 4'd8);
            default: ways = 5'd0;
        endcase
    end
    // read data: the decoded flags and the index selects are one-hot, so an AND-OR select
    reg [31:0] rd;
    integer    pr, er;                  // own loop variables (shared ones get a flop and a comb driver)
    always @* begin
        rd = ({32{d_ctrl}} & {30'd0, cfg_poison, cfg_pbr})
           | ({32{d_info}} & {8'd0, 8'(NRT), 8'(NDEC), 8'(N)})
           | ({32{d_err}}  & {24'd0, err_code})
           | ({32{d_cnt}}  & cnt[a_p*32 +: 32])
           | ({32{d_dec && o_base}} & {8'd0, m_base})
           | ({32{d_dec && o_size}} & {8'd0, m_size})
           | ({32{d_dec && o_dctl}} & {25'd0, m_eig, m_eiw})
           | ({32{d_dec && o_commit}} & {31'd0, |(o_d & dec_valid)})
           | ({32{d_dec && a_dr[4]}} & {20'd0, m_tgt[a_dr[3:0]]});
        for (pr = 0; pr < N; pr = pr + 1)
            rd = rd | ({32{o_p[pr]}} & {4'd0, cfg_pid[pr*12 +: 12], 13'd0, cfg_role[pr*2 +: 2], cfg_en[pr]});
        for (er = 0; er < NRT; er = er + 1)
            rd = rd | ({32{o_e[er]}} & {4'd0, rt_dpid[er*12 +: 12], 4'd0, 4'(rt_port[er*PW +: PW]), 7'd0, rt_valid[er]});
    end
    always @(posedge clk) begin
        c_slim  <= slim;
        c_eiw   <= ways == 5'd0;
        c_eig   <= m_eig > 3'd6;
        c_size3 <= m_eiw[3] && !size_m3_0;
        c_b3    <= base_r3;
        c_s     <= 11'h7ff << ({1'b0, m_eig} + {2'd0, m_eiw[1:0]});
        for (w1 = 0; w1 < 16; w1 = w1 + 1) begin
            c_wm[w1] <= 32'(w1) < 32'(ways);
            c_thi[w1] <= 32'(m_tgt[w1]) >= N;
            for (w2 = w1 + 1; w2 < 16; w2 = w2 + 1) c_eq[pidx(w1, w2)] <= m_tgt[w1] == m_tgt[w2];
            c_prt[w1] <= !cfg_pbr;                   // HBR: the target must be a DSP port number
            c_usp[w1] <= 1'b0;                       // PBR: the target must not be a USP's PID
            for (p1 = 0; p1 < N; p1 = p1 + 1) begin
                if (!cfg_pbr && 32'(m_tgt[w1]) == p1 && cfg_role[p1*2 +: 2] == ROLE_DSP) c_prt[w1] <= 1'b0;
                if (cfg_pbr && cfg_role[p1*2 +: 2] == ROLE_USP && cfg_pid[p1*12 +: 12] == m_tgt[w1])
                    c_usp[w1] <= 1'b1;
            end
        end
        for (c1 = 0; c1 < NDEC; c1 = c1 + 1)
            c_ovl_a[c1] <= c1 != 32'(di) && dec_valid[c1] && dec_size[c1*24 +: 24] != 24'd0 &&
                           m_size != 24'd0 && lt_base[c1];
        c_rt_local <= |f_rtm;
        c_rt_dup   <= |(f_rtm & ~o_e);
        if (tok[1]) c_rd <= rd;          // sampled once: the counters run on
    end

    // ------------------------------------------------------------------ stage 2: overlap, findings
    reg        g_ovl;
    reg [15:0] g_dup, g_any;
    integer    w3, w4, c3;
    always @* begin
        g_ovl = 1'b0;
        for (c3 = 0; c3 < NDEC; c3 = c3 + 1)
            if (c_ovl_a[c3] && lt_lim[c3]) g_ovl = 1'b1;
        for (w3 = 0; w3 < 16; w3 = w3 + 1) begin
            g_dup[w3] = 1'b0;
            for (w4 = w3 + 1; w4 < 16; w4 = w4 + 1)
                if (c_wm[w4] && c_eq[pidx(w3, w4)]) g_dup[w3] = 1'b1;
            g_any[w3] = c_wm[w3] && (g_dup[w3] || c_prt[w3] || c_usp[w3]);
        end
    end
    reg        h_ovl, h_wrap;
    reg [15:0] h_dup, h_any;
    always @(posedge clk) begin
        h_ovl <= g_ovl; h_wrap <= c_slim[24]; h_dup <= g_dup; h_any <= g_any;
    end

    // ------------------------------------------------------------------ stage 3: first target
    // the first target w (in order) with a finding decides: duplicate before bad port before USP
    // PID for one w
    reg [15:0] first;
    integer    w5;
    always @* begin
        for (w5 = 0; w5 < 16; w5 = w5 + 1)             // one-hot
            first[w5] = h_any[w5] && ((h_any & ((16'd1 << w5) - 16'd1)) == 16'd0);
    end
    reg        j_dup, j_prt, j_any;
    always @(posedge clk) begin
        j_dup <= (first & h_dup) != 16'd0;
        j_prt <= (first & c_prt) != 16'd0;
        j_any <= h_any != 16'd0;
    end

    // ------------------------------------------------------------------ stage 4: reason code
    // The rules in their priority order, as a single-cycle check of the write would apply them.
    reg [7:0] chk;
    reg       k_ok;
    reg [7:0] k_chk;
    always @* begin
        chk = E_NONE;
        if (d_ctrl) begin
            if (!q_wdata[0]) begin
                if (f_any_fab) chk = E_FAB_HBR;
                if (f_any_rt) chk = E_RT_MODE;
            end
        end else if (d_port) begin
            if (w_role == 2'd3) chk = E_ROLE;
            else if (w_pid_x) chk = E_PID_RANGE;
            else if (!cfg_pbr && w_role == ROLE_FAB) chk = E_FAB_HBR;
            else if (cfg_pbr && w_role != ROLE_FAB) begin
                if (f_pid_shared) chk = E_PID_SHARED;
                if (c_rt_local) chk = E_RT_LOCAL;
            end
        end else if (d_dec && (a_dr == 5'd0 || a_dr == 5'd1)) begin
            if (q_wdata[31:24] != 8'd0) chk = E_DEC_RANGE;
        end else if (d_dec && a_dr[4]) begin
            if (q_wdata[31:12] != 20'd0) chk = E_TGT_RANGE;
        end else if (d_dec && a_dr == 5'd3 && q_wdata[0]) begin
            if (c_eiw) chk = E_EIW;
            else if (c_eig) chk = E_EIG;
            else if (h_wrap) chk = E_WRAP;
            else if (c_size3) chk = E_SIZE3;
            else if (h_ovl) chk = E_OVERLAP;
            else if (j_dup) chk = E_TGT_DUP;
            else if (j_prt) chk = E_TGT_PORT;
            else if (j_any) chk = E_TGT_USP;
        end else if (d_rt && q_wdata[0]) begin
            if (!cfg_pbr) chk = E_RT_MODE;
            else if (w_pid_x) chk = E_RT_DPID;
            else if (f_rt_port) chk = E_RT_PORT;
            else begin
                if (f_pid_local) chk = E_RT_LOCAL;
                if (c_rt_dup) chk = E_RT_DUP;
            end
        end
    end
    always @(posedge clk) begin
        k_chk <= chk;
        k_ok  <= chk == E_NONE;
    end

    // ------------------------------------------------------------------ stage 5: commit, answer
    wire fin = tok[5];
    wire wr  = fin && q_write && d_mapped && k_ok;
    wire rej = fin && q_write && d_mapped && !k_ok;
    wire clr = wr && d_clr;
    integer k, kw;
    always @(posedge clk) begin
        if (rst) begin
            cfg_pbr <= 1'b0; cfg_poison <= 1'b0; cfg_en <= {N{1'b0}}; cfg_role <= {N*2{1'b0}};
            cfg_pid <= {N*12{1'b0}}; dec_valid <= {NDEC{1'b0}}; rt_valid <= {NRT{1'b0}};
            rt_dpid <= {NRT*12{1'b0}}; rt_port <= {NRT*PW{1'b0}}; err_code <= E_NONE;
            dec_base <= {NDEC*24{1'b0}}; dec_size <= {NDEC*24{1'b0}}; dec_eiw <= {NDEC*4{1'b0}};
            dec_eig <= {NDEC*3{1'b0}}; dec_tgt <= {NDEC*16*12{1'b0}};
            dec_b3 <= {NDEC{3'b001}}; dec_s <= {NDEC{11'h7ff}}; dec_thi <= {NDEC*16{1'b0}};
            for (k = 0; k < NDEC; k = k + 1) begin
                s_base[k] <= 24'd0; s_size[k] <= 24'd0; s_eiw[k] <= 4'd0; s_eig[k] <= 3'd0;
                dec_lim[k] <= 25'd0;
            end
            for (k = 0; k < NDEC*16; k = k + 1) s_tgt[k] <= 12'd0;
        end else begin
            if (rej) err_code <= k_chk;
            if (wr) begin
                if (d_ctrl) begin
                    cfg_pbr <= q_wdata[0]; cfg_poison <= q_wdata[1];
                end
                for (k = 0; k < N; k = k + 1)
                    if (o_p[k]) begin
                        cfg_en[k]           <= q_wdata[0];
                        cfg_role[k*2 +: 2]  <= q_wdata[2:1];
                        cfg_pid[k*12 +: 12] <= q_wdata[27:16];
                    end
                for (k = 0; k < NDEC; k = k + 1)
                    if (o_d[k]) begin
                        if (o_base) s_base[k] <= q_wdata[23:0];
                        if (o_size) s_size[k] <= q_wdata[23:0];
                        if (o_dctl) begin
                            s_eiw[k] <= q_wdata[3:0]; s_eig[k] <= q_wdata[6:4];
                        end
                        if (o_commit) begin
                            dec_valid[k] <= q_wdata[0];
                            if (q_wdata[0]) begin
                                dec_base[k*24 +: 24] <= m_base;
                                dec_size[k*24 +: 24] <= m_size;
                                dec_lim[k]           <= c_slim;
                                dec_eiw[k*4 +: 4]    <= m_eiw;
                                dec_eig[k*3 +: 3]    <= m_eig;
                                dec_b3[k*3 +: 3]     <= c_b3;
                                dec_s[k*11 +: 11]    <= c_s;
                                for (kw = 0; kw < 16; kw = kw + 1) begin
                                    dec_tgt[(k*16 + kw)*12 +: 12] <= m_tgt[kw];
                                    dec_thi[k*16 + kw]            <= c_thi[kw];
                                end
                            end
                        end
                        if (a_dr[4])
                            for (kw = 0; kw < 16; kw = kw + 1)
                                if (o_t[kw]) s_tgt[k*16 + kw] <= q_wdata[11:0];
                    end
                for (k = 0; k < NRT; k = k + 1)
                    if (o_e[k]) begin
                        rt_valid[k]         <= q_wdata[0];
                        rt_dpid[k*12 +: 12] <= q_wdata[27:16];
                        rt_port[k*PW +: PW] <= q_wdata[8 +: PW];
                    end
            end
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            cfg_rvalid <= 1'b0; cfg_rdata <= 32'd0; cfg_resp <= R_OK;
        end else begin
            cfg_rvalid <= fin;
            if (fin) begin
                cfg_rdata <= c_rd;
                cfg_resp  <= !d_mapped ? R_ADDR : rej ? R_REJ : R_OK;
            end
        end
    end

    // ------------------------------------------------------------------ counters
    // Per-port events summed each cycle, in three steps: the events are registered (ev_q), their
    // per-counter sum is registered (inc_q), then added. A rejected write enters at the sum, at its
    // commit. A clear (at its commit) drops what it meets in every step, so the counts after a clear
    // are the same as when counting in the event's own cycle; a read (its counter sampled in stage 1)
    // counts every event raised before the cycle that took it.
    reg [N*16-1:0] ev_q;
    reg [N-1:0]    ev_unsup_q;
    reg [4:0]      inc_q [0:NCNT-1];
    reg [4:0]      inc   [0:NCNT-1];
    integer c, q;
    always @* begin
        for (c = 0; c < NCNT; c = c + 1) begin
            inc[c] = 5'd0;
            for (q = 0; q < N; q = q + 1) begin
                if (c == 12) inc[c] = inc[c] + 5'(ev_unsup_q[q]);
                else if (c < 15) inc[c] = inc[c] + 5'(ev_q[q*16 + c]);
            end
        end
        inc[15] = 5'(rej);
    end
    // counter + its increment (<= 16): a 5-bit add, whose carry out is passed up through bits
    // 5..31 by a prefix AND tree (kept, see stage 1)
    wire [NCNT*32-1:0] cnt_n;
    genvar gc, gs, gb;
    generate
        for (gc = 0; gc < NCNT; gc = gc + 1) begin : g_cnt
            wire [31:0] x = cnt[gc*32 +: 32];
            wire [5:0]  lo = {1'b0, x[4:0]} + {1'b0, inc_q[gc]};
            wire [26:0] pa [0:5] /*verilator split_var*/;           // pa[s][i] = &x[5 + i - 2^s + 1 .. 5 + i] (clipped at bit 5)
            assign pa[0] = x[31:5];
            for (gs = 0; gs < 5; gs = gs + 1) begin : g_lv
                for (gb = 0; gb < 27; gb = gb + 1) begin : g_bit
                    if (gb >= (1 << gs)) begin : g_op
                        (* keep *) wire t;
                        assign t = pa[gs][gb] & pa[gs][gb - (1 << gs)];
                        assign pa[gs+1][gb] = t;
                    end else begin : g_pass
                        assign pa[gs+1][gb] = pa[gs][gb];
                    end
                end
            end
            assign cnt_n[gc*32 +: 32] = {x[31:6] ^ ({26{lo[5]}} & pa[5][25:0]), x[5] ^ lo[5], lo[4:0]};
        end
    endgenerate
    always @(posedge clk) begin
        if (rst || clr) begin
            ev_q <= {N*16{1'b0}}; ev_unsup_q <= {N{1'b0}}; cnt <= {NCNT*32{1'b0}};
        end else begin
            ev_q <= ev; ev_unsup_q <= ev_unsup; cnt <= cnt_n;
        end
    end
    // own loop variable: sharing `c` with the block above gives it a flop and a comb driver
    integer ci;
    always @(posedge clk) begin
        for (ci = 0; ci < NCNT; ci = ci + 1)
            if (rst || clr) inc_q[ci] <= 5'd0;
            else inc_q[ci] <= inc[ci];
    end

    wire unused = &{1'b0, ROLE_DSP, q_wdata[15:12], q_wdata[7:3], size_r3[2:1]};
endmodule
`default_nettype wire
