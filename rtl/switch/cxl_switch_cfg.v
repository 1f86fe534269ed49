`default_nettype none
// Switch configuration registers, configuration checks and event counters.
// 32-bit word registers; one request per cycle (cfg_ready = 1), response the next cycle with
// cfg_resp 0 = OK, 1 = no such register, 2 = rejected (configuration left unchanged; the reason
// code is kept in ERR). Map (word addresses):
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
module cxl_switch_cfg #(
    parameter integer N    = 4,   // <= 16
    parameter integer NDEC = 4,   // <= 8
    parameter integer NRT  = 8,   // <= 256
    parameter integer PW   = (N > 1) ? $clog2(N) : 1
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  cfg_valid,
    output wire                  cfg_ready,
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

    assign cfg_ready = 1'b1;

    // staging copies of the decoders
    reg [23:0] s_base [0:NDEC-1];
    reg [23:0] s_size [0:NDEC-1];
    reg [3:0]  s_eiw  [0:NDEC-1];
    reg [2:0]  s_eig  [0:NDEC-1];
    reg [11:0] s_tgt  [0:NDEC*16-1];
    reg [31:0] cnt    [0:NCNT-1];
    reg [7:0]  err_code;

    // address decode
    wire        a_ctrl = (cfg_addr == 12'h000);
    wire        a_info = (cfg_addr == 12'h001);
    wire        a_err  = (cfg_addr == 12'h002);
    wire [3:0]  a_p    = cfg_addr[3:0];
    wire        a_port = (cfg_addr[11:4] == 8'h01) && (32'(a_p) < N);
    wire [2:0]  a_d    = cfg_addr[7:5];
    wire [4:0]  a_dr   = cfg_addr[4:0];
    wire        a_dec  = (cfg_addr[11:8] == 4'h1) && (32'(a_d) < NDEC) && (a_dr < 5'd4 || a_dr[4]);
    wire [7:0]  a_e    = cfg_addr[7:0];
    wire        a_rt   = (cfg_addr[11:8] == 4'h2) && (32'(a_e) < NRT);
    wire        a_cnt  = (cfg_addr[11:4] == 8'h30);
    wire        a_clr  = (cfg_addr == 12'h3FF);
    localparam integer PI = (N > 1) ? $clog2(N) : 1;
    localparam integer DI = (NDEC > 1) ? $clog2(NDEC) : 1;
    localparam integer EI = (NRT > 1) ? $clog2(NRT) : 1;
    wire [PI-1:0] pi = a_p[PI-1:0];
    wire [DI-1:0] di = a_d[DI-1:0];
    wire [EI-1:0] ei = a_e[EI-1:0];
    wire        mapped = a_ctrl | a_info | a_err | a_port | a_dec | a_rt | a_cnt | a_clr;

    // (a + b) mod 3 of two residues (each 0..2)
    function automatic [1:0] m3(input [1:0] a, input [1:0] b);
        reg [2:0] t;
        begin
            t  = {1'b0, a} + {1'b0, b};
            m3 = (t >= 3'd3) ? 2'(t - 3'd3) : t[1:0];
        end
    endfunction
    // x mod 3 as a tree: 4^i = 1 (mod 3), so x mod 3 is the sum of its 2-bit digits mod 3
    function automatic [1:0] mod3_24(input [23:0] x);
        reg [23:0] d;
        integer b;
        begin
            for (b = 0; b < 12; b = b + 1)             // digit 0..3 -> residue 0..2
                d[2*b +: 2] = {x[2*b+1] & ~x[2*b], x[2*b] & ~x[2*b+1]};
            for (b = 0; b < 6; b = b + 1) d[2*b +: 2] = m3(d[4*b +: 2], d[4*b+2 +: 2]);
            for (b = 0; b < 3; b = b + 1) d[2*b +: 2] = m3(d[4*b +: 2], d[4*b+2 +: 2]);
            mod3_24 = m3(m3(d[0 +: 2], d[2 +: 2]), d[4 +: 2]);
        end
    endfunction

    // commit checks of decoder di, all in parallel (a loop that tests chk as it goes is a chain as
    // long as the loop); the priority pick below gives what the sequential rule gives: overlap
    // first, then the first target w (in order) with a duplicate, a bad port or a USP PID, in
    // that order for one w
    reg [NDEC-1:0] ck_ovl;
    reg [15:0]     ck_dup, ck_prt, ck_usp, ck_any;
    wire [15:0]    ck_first;
    reg [4:0]      ck_ways;
    reg [24:0]     ck_slim, ck_olim;
    reg [11:0]     ck_ta;
    integer        cw, cw2, ce, cp;
    always @* begin
        cw = 0; cw2 = 0; ce = 0; cp = 0; ck_ta = 12'd0; ck_olim = 25'd0;
        case (s_eiw[di])
            4'd0, 4'd1, 4'd2, 4'd3, 4'd4: ck_ways = 5'd1 << s_eiw[di];
            4'd8, 4'd9, 4'd10: ck_ways = 5'd3 << (s_eiw[di] - 4'd8);
            default: ck_ways = 5'd0;
        endcase
        ck_slim = {1'b0, s_base[di]} + {1'b0, s_size[di]};
        for (ce = 0; ce < NDEC; ce = ce + 1) begin
            ck_olim = {1'b0, dec_base[ce*24 +: 24]} + {1'b0, dec_size[ce*24 +: 24]};
            ck_ovl[ce] = ce != 32'(di) && dec_valid[ce] && dec_size[ce*24 +: 24] != 24'd0 &&
                         s_size[di] != 24'd0 && {1'b0, s_base[di]} < ck_olim &&
                         {1'b0, dec_base[ce*24 +: 24]} < ck_slim;
        end
        for (cw = 0; cw < 16; cw = cw + 1) begin
            ck_ta = s_tgt[32'(di)*16 + cw];
            ck_dup[cw] = 1'b0;
            for (cw2 = cw + 1; cw2 < 16; cw2 = cw2 + 1)
                if (cw2 < 32'(ck_ways) && ck_ta == s_tgt[32'(di)*16 + cw2]) ck_dup[cw] = 1'b1;
            ck_prt[cw] = !cfg_pbr;                   // HBR: the target must be a DSP port number
            ck_usp[cw] = 1'b0;                       // PBR: the target must not be a USP's PID
            for (cp = 0; cp < N; cp = cp + 1) begin
                if (!cfg_pbr && 32'(ck_ta) == cp && cfg_role[cp*2 +: 2] == ROLE_DSP) ck_prt[cw] = 1'b0;
                if (cfg_pbr && cfg_role[cp*2 +: 2] == ROLE_USP && cfg_pid[cp*12 +: 12] == ck_ta) ck_usp[cw] = 1'b1;
            end
            ck_any[cw] = (cw < 32'(ck_ways)) && (ck_dup[cw] || ck_prt[cw] || ck_usp[cw]);
        end
    end
    genvar gf;                                      // one-hot: the first target with a finding
    generate
        for (gf = 0; gf < 16; gf = gf + 1) begin : g_first
            if (gf == 0) begin : g_0
                assign ck_first[gf] = ck_any[gf];
            end else begin : g_n
                assign ck_first[gf] = ck_any[gf] && !(|ck_any[gf-1:0]);
            end
        end
    endgenerate

    // checks of the write being made (combinational)
    reg [7:0]  chk;
    reg [1:0]  w_role;
    reg [15:0] w_pid;
    integer    p, e;
    always @* begin
        // loop variables get a value on every path, else yosys keeps them in latches
        p = 0; e = 0;
        chk = E_NONE;
        w_role = cfg_wdata[2:1]; w_pid = cfg_wdata[31:16];
        if (a_ctrl) begin
            if (!cfg_wdata[0]) begin
                for (p = 0; p < N; p = p + 1)
                    if (cfg_role[p*2 +: 2] == ROLE_FAB) chk = E_FAB_HBR;
                if (|rt_valid) chk = E_RT_MODE;
            end
        end else if (a_port) begin
            if (w_role == 2'd3) chk = E_ROLE;
            else if (w_pid >= 16'd4096) chk = E_PID_RANGE;
            else if (!cfg_pbr && w_role == ROLE_FAB) chk = E_FAB_HBR;
            else if (cfg_pbr && w_role != ROLE_FAB) begin
                for (p = 0; p < N; p = p + 1)
                    if (p != 32'(pi) && cfg_role[p*2 +: 2] != ROLE_FAB && cfg_pid[p*12 +: 12] == w_pid[11:0])
                        chk = E_PID_SHARED;
                for (e = 0; e < NRT; e = e + 1)
                    if (rt_valid[e] && rt_dpid[e*12 +: 12] == w_pid[11:0]) chk = E_RT_LOCAL;
            end
        end else if (a_dec && (a_dr == 5'd0 || a_dr == 5'd1)) begin
            if (cfg_wdata[31:24] != 8'd0) chk = E_DEC_RANGE;
        end else if (a_dec && a_dr[4]) begin
            if (cfg_wdata[31:12] != 20'd0) chk = E_TGT_RANGE;
        end else if (a_dec && a_dr == 5'd3 && cfg_wdata[0]) begin
            if (ck_ways == 5'd0) chk = E_EIW;
            else if (s_eig[di] > 3'd6) chk = E_EIG;
            else if (ck_slim[24]) chk = E_WRAP;
            else if (s_eiw[di][3] && mod3_24(s_size[di]) != 2'd0) chk = E_SIZE3;
            else if (ck_ovl != {NDEC{1'b0}}) chk = E_OVERLAP;
            else if ((ck_first & ck_dup) != 16'd0) chk = E_TGT_DUP;
            else if ((ck_first & ck_prt) != 16'd0) chk = E_TGT_PORT;
            else if (ck_first != 16'd0) chk = E_TGT_USP;
        end else if (a_rt && cfg_wdata[0]) begin
            if (!cfg_pbr) chk = E_RT_MODE;
            else if (w_pid >= 16'd4096) chk = E_RT_DPID;
            else if (32'(cfg_wdata[11:8]) >= N) chk = E_RT_PORT;
            else if (cfg_role[32'(cfg_wdata[11:8])*2 +: 2] != ROLE_FAB) chk = E_RT_PORT;
            else begin
                for (p = 0; p < N; p = p + 1)
                    if (cfg_role[p*2 +: 2] != ROLE_FAB && cfg_pid[p*12 +: 12] == w_pid[11:0]) chk = E_RT_LOCAL;
                for (e = 0; e < NRT; e = e + 1)
                    if (e != 32'(ei) && rt_valid[e] && rt_dpid[e*12 +: 12] == w_pid[11:0]) chk = E_RT_DUP;
            end
        end
    end

    wire wr  = cfg_valid && cfg_write && mapped && (chk == E_NONE);
    wire rej = cfg_valid && cfg_write && mapped && (chk != E_NONE);

    // register writes
    integer k;
    always @(posedge clk) begin
        if (rst) begin
            cfg_pbr <= 1'b0; cfg_poison <= 1'b0; cfg_en <= {N{1'b0}}; cfg_role <= {N*2{1'b0}};
            cfg_pid <= {N*12{1'b0}}; dec_valid <= {NDEC{1'b0}}; rt_valid <= {NRT{1'b0}};
            rt_dpid <= {NRT*12{1'b0}}; rt_port <= {NRT*PW{1'b0}}; err_code <= E_NONE;
            dec_base <= {NDEC*24{1'b0}}; dec_size <= {NDEC*24{1'b0}}; dec_eiw <= {NDEC*4{1'b0}};
            dec_eig <= {NDEC*3{1'b0}}; dec_tgt <= {NDEC*16*12{1'b0}};
            for (k = 0; k < NDEC; k = k + 1) begin
                s_base[k] <= 24'd0; s_size[k] <= 24'd0; s_eiw[k] <= 4'd0; s_eig[k] <= 3'd0;
            end
            for (k = 0; k < NDEC*16; k = k + 1) s_tgt[k] <= 12'd0;
        end else begin
            if (rej) err_code <= chk;
            if (wr) begin
                if (a_ctrl) begin
                    cfg_pbr <= cfg_wdata[0]; cfg_poison <= cfg_wdata[1];
                end
                if (a_port) begin
                    cfg_en[pi]          <= cfg_wdata[0];
                    cfg_role[pi*2 +: 2] <= cfg_wdata[2:1];
                    cfg_pid[pi*12 +: 12] <= cfg_wdata[27:16];
                end
                if (a_dec) begin
                    case (a_dr)
                        5'd0: s_base[di] <= cfg_wdata[23:0];
                        5'd1: s_size[di] <= cfg_wdata[23:0];
                        5'd2: begin s_eiw[di] <= cfg_wdata[3:0]; s_eig[di] <= cfg_wdata[6:4]; end
                        5'd3: begin
                            dec_valid[di] <= cfg_wdata[0];
                            if (cfg_wdata[0]) begin
                                dec_base[di*24 +: 24] <= s_base[di];
                                dec_size[di*24 +: 24] <= s_size[di];
                                dec_eiw[di*4 +: 4]    <= s_eiw[di];
                                dec_eig[di*3 +: 3]    <= s_eig[di];
                                for (k = 0; k < 16; k = k + 1)
                                    dec_tgt[(32'(di)*16 + k)*12 +: 12] <= s_tgt[32'(di)*16 + k];
                            end
                        end
                        default: s_tgt[32'(di)*16 + 32'(a_dr[3:0])] <= cfg_wdata[11:0];
                    endcase
                end
                if (a_rt) begin
                    rt_valid[ei] <= cfg_wdata[0];
                    rt_dpid[ei*12 +: 12] <= cfg_wdata[27:16];
                    rt_port[ei*PW +: PW] <= cfg_wdata[8 +: PW];
                end
            end
        end
    end

    // counters: per-port events summed each cycle. The events (and a rejected write) are registered
    // first and counted the next cycle, so the ports' routing logic and the write checks do not run
    // on into the counter adders; a clear drops what it meets in both stages, so the counts after a
    // clear are the same as when counting in the event's own cycle (a read sees them a cycle later)
    wire       clr = cfg_valid && cfg_write && a_clr;
    reg [N*16-1:0] ev_q;
    reg [N-1:0]    ev_unsup_q;
    reg            rej_q;
    always @(posedge clk) begin
        if (rst || clr) begin
            ev_q <= {N*16{1'b0}}; ev_unsup_q <= {N{1'b0}}; rej_q <= 1'b0;
        end else begin
            ev_q <= ev; ev_unsup_q <= ev_unsup; rej_q <= rej;
        end
    end
    reg [31:0] inc [0:NCNT-1];
    integer c, q;
    always @* begin
        for (c = 0; c < NCNT; c = c + 1) begin
            inc[c] = 32'd0;
            for (q = 0; q < N; q = q + 1) begin
                if (c == 12) inc[c] = inc[c] + 32'(ev_unsup_q[q]);
                else if (c < 15) inc[c] = inc[c] + 32'(ev_q[q*16 + c]);
            end
        end
        inc[15] = 32'(rej_q);
    end
    // own loop variable: sharing `c` with the block above gives it a flop and a comb driver
    integer ci;
    always @(posedge clk) begin
        for (ci = 0; ci < NCNT; ci = ci + 1) begin
            if (rst || clr) cnt[ci] <= 32'd0;
            else cnt[ci] <= cnt[ci] + inc[ci];
        end
    end

    // responses
    reg [31:0] rd;
    always @* begin
        rd = 32'd0;
        if (a_ctrl) rd = {30'd0, cfg_poison, cfg_pbr};
        else if (a_info) rd = {8'd0, 8'(NRT), 8'(NDEC), 8'(N)};
        else if (a_err) rd = {24'd0, err_code};
        else if (a_port) rd = {4'd0, cfg_pid[pi*12 +: 12], 13'd0, cfg_role[pi*2 +: 2], cfg_en[pi]};
        else if (a_rt) rd = {4'd0, rt_dpid[ei*12 +: 12], 4'd0, 4'(rt_port[ei*PW +: PW]), 7'd0, rt_valid[ei]};
        else if (a_cnt) rd = cnt[a_p];
        else if (a_dec) begin
            case (a_dr)
                5'd0: rd = {8'd0, s_base[di]};
                5'd1: rd = {8'd0, s_size[di]};
                5'd2: rd = {25'd0, s_eig[di], s_eiw[di]};
                5'd3: rd = {31'd0, dec_valid[di]};
                default: rd = {20'd0, s_tgt[32'(di)*16 + 32'(a_dr[3:0])]};
            endcase
        end
    end
    always @(posedge clk) begin
        if (rst) begin
            cfg_rvalid <= 1'b0; cfg_rdata <= 32'd0; cfg_resp <= R_OK;
        end else begin
            cfg_rvalid <= cfg_valid;
            cfg_rdata  <= rd;
            cfg_resp   <= !mapped ? R_ADDR : rej ? R_REJ : R_OK;
        end
    end

    wire unused = &{1'b0, ROLE_DSP, cfg_wdata[15:12], cfg_wdata[7:3]};
endmodule
`default_nettype wire
