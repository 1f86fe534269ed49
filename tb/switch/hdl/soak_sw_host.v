`default_nettype none
// Switch-soak host (test-only), on the message lanes of a host-side partner link: generators of
// M2S MemRd (Req) and MemWr (RwD) to every device, n_msgs per flow (host, device, class), and
// in-order checkers of the answers (DRS per device, NDR per device; soak_sw_chk), with an on/off
// consumer per answer lane (its off periods starve the switch of credits toward this host).
// Each class lane presents one message at a time (held until taken); after a message is taken
// the next one goes, with probability gen_p per cycle, to a random device with messages left.
// Negative-test knobs (0 = off) act on the flow to device 0, class Req: inj_dup_at = k sends
// message k-1 a second time before message k, once the answer of k-1 is back (so the switch sees
// no tag conflict and forwards a plain duplicate); inj_flip_at = k flips a MetaField bit of
// message k; inj_skip_at = k never sends message k (lost before the link layer). All three bypass
// the link layer's protection: only the checkers can see them.
module soak_sw_host #(
    parameter integer HI = 0,   // this host's index (tag source field)
    parameter integer ND = 2    // devices: 1, 2 or 4
) (
    input  wire          clk,
    input  wire          rst,
    input  wire          go,          // configuration done: start sending
    input  wire [63:0]   seed,
    input  wire [31:0]   n_msgs,      // per flow
    input  wire [15:0]   gen_p,       // P(present the next message in a cycle) x 65536
    input  wire [15:0]   rdy_on_p,    // P(consumer off -> on per cycle) x 65536
    input  wire [15:0]   rdy_off_p,   // P(consumer on -> off per cycle) x 65536
    input  wire [31:0]   inj_dup_at,
    input  wire [31:0]   inj_flip_at,
    input  wire [31:0]   inj_skip_at,
    // to the switch: class lanes 0 (Req) and 1 (RwD)
    output wire [1:0]    tx_valid,
    input  wire [1:0]    tx_ready,
    output wire [255:0]  tx_hdr,
    output wire [511:0]  tx_data,
    // from the switch: class lanes 2 (NDR) and 3 (DRS)
    input  wire [1:0]    rx_valid,
    output wire [1:0]    rx_ready,
    input  wire [255:0]  rx_hdr,
    input  wire [511:0]  rx_data,
    // counters
    output wire          done,        // every message sent
    output wire [31:0]   n_sent,      // requests taken by the link
    output wire [31:0]   n_ok, n_uniq, n_dup, n_reord, n_corrupt   // answers checked
);
    `include "cxl_defs.vh"
    `include "soak_fn.vh"
    localparam integer DB = (ND == 4) ? 2 : (ND == 2) ? 1 : 0;

    reg [63:0] rg, rp;   // per-cycle draws: rg for send/ready decisions, rp for device picks
    always @(posedge clk) begin
        if (rst) begin
            rg <= seed ^ (64'h5851F42D4C957F2D * 64'(HI + 1)) ^ 64'h3;
            rp <= seed ^ (64'h2545F4914F6CDD1D * 64'(HI + 1)) ^ 64'h5;
        end else begin
            rg <= soak_xs(rg);
            rp <= soak_xs(rp);
        end
    end

    // answer of flow (device 0, Req) the dup injection waits for
    wire [31:0] drs_hi0;
    wire [31:0] sent_c [0:1];
    wire [1:0]  busy;
    assign n_sent = sent_c[0] + sent_c[1];
    assign done   = ~|busy;

    // ---------------------------------------------------------------- generators
    genvar c;
    generate
        for (c = 0; c < 2; c = c + 1) begin : g_gen
            reg  [31:0] cnt [0:3];          // next sequence number per device (ND..3 unused)
            reg  [31:0] sent;
            reg         tv;
            reg  [1:0]  td;
            reg         dup_done, skip_done;
            wire        tk   = tv && tx_ready[c];
            wire [31:0] cur  = cnt[td];
            wire        inj  = (c == 0) && td == 2'd0;
            wire        dup  = inj && inj_dup_at != 32'd0 && !dup_done && cur == inj_dup_at;
            wire        skip = inj && inj_skip_at != 32'd0 && !skip_done && cur == inj_skip_at;
            wire        flip = inj && inj_flip_at != 32'd0 && cur == inj_flip_at;
            wire [31:0] s_tx = dup ? cur - 32'd1 : skip ? cur + 32'd1 : cur;
            wire [127:0] m_hdr;
            wire [511:0] m_data;
            soak_sw_msg #(.CLS(c), .ND(ND)) u_m (
                .seed(seed), .host(2'(HI)), .dev(td), .s(s_tx), .o_hdr(m_hdr), .o_data(m_data));
            // flip: the lowest hashed bit above the opcode/snoop fields (a MetaField bit)
            assign tx_hdr[c*128 +: 128] = flip ? m_hdr ^ (128'd1 << CXL_M2S_REQ_METAFIELD_LSB) : m_hdr;
            if (c == 1) begin : g_d
                assign tx_data = m_data;
            end else begin : g_nd
                wire unused_d = &{1'b0, m_data};
            end
            assign tx_valid[c] = tv;
            assign sent_c[c] = sent;

            // messages left per device after this cycle's take
            reg [3:0]    left;
            reg [1:0]    pick;
            reg          any;
            integer      j;
            always @* begin
                for (j = 0; j < 4; j = j + 1)
                    left[j] = j < ND && (cnt[j] + {31'd0, tk && td == 2'(j)}) < n_msgs;
                any  = |left;
                pick = (DB == 0) ? 2'd0 : 2'(rp[c*2 +: 2] & 2'(ND - 1));
                if (!left[pick])
                    for (j = ND - 1; j >= 0; j = j - 1) if (left[j]) pick = 2'(j);
            end
            assign busy[c] = tv || any;
            // the dup injection waits until the answer of message k-1 is back
            wire hold = (c == 0) && pick == 2'd0 && inj_dup_at != 32'd0 && !dup_done &&
                        (cnt[0] + {31'd0, tk && td == 2'd0}) == inj_dup_at && drs_hi0 < inj_dup_at;

            always @(posedge clk) begin
                if (rst) begin
                    for (j = 0; j < 4; j = j + 1) cnt[j] <= 32'd0;
                    sent      <= 32'd0;
                    tv        <= 1'b0;
                    td        <= 2'd0;
                    dup_done  <= 1'b0;
                    skip_done <= 1'b0;
                end else begin
                    if (tk) begin
                        sent     <= sent + 32'd1;
                        tv       <= 1'b0;
                        cnt[td]  <= dup ? cur : skip ? cur + 32'd2 : cur + 32'd1;
                        if (dup)  dup_done  <= 1'b1;
                        if (skip) skip_done <= 1'b1;
                    end
                    if (go && (!tv || tk) && any && !hold && rg[c*16 +: 16] < gen_p) begin
                        tv <= 1'b1;
                        td <= pick;
                    end
                end
            end
        end
    endgenerate

    // ---------------------------------------------------------------- answer checkers
    wire [31:0] ck [0:1][0:4];
    genvar r;
    generate
        for (r = 0; r < 2; r = r + 1) begin : g_chk
            localparam integer CLS = 2 + r;          // 2 NDR, 3 DRS
            localparam integer TL  = (CLS == 3) ? CXL_S2M_DRS_TAG_LSB : CXL_S2M_NDR_TAG_LSB;
            reg          rdy;
            wire [127:0] h = rx_hdr[r*128 +: 128];
            wire [15:0]  tag = h[TL +: 16];
            wire         take = rx_valid[r] && rdy;
            wire [31:0]  s_at, p_hi;
            wire [127:0] w_hdr;
            wire [511:0] w_data;
            soak_sw_msg #(.CLS(CLS), .ND(ND)) u_m (
                .seed(seed), .host(2'(HI)), .dev(tag[13:12]), .s(s_at), .o_hdr(w_hdr), .o_data(w_data));
            wire same = (h == w_hdr) && (CLS == 2 || rx_data == w_data);
            soak_sw_chk #(.NF(ND), .SB(11)) u_c (
                .clk(clk), .rst(rst), .take(take), .f(tag[13:12]), .sid(tag[10:0]), .s_at(s_at),
                .same(same), .probe_f(2'd0), .probe_hi(p_hi),
                .n_ok(ck[r][0]), .n_uniq(ck[r][1]), .n_dup(ck[r][2]), .n_reord(ck[r][3]),
                .n_corrupt(ck[r][4]));
            assign rx_ready[r] = rdy;
            if (r == 1) begin : g_p
                assign drs_hi0 = p_hi;
            end else begin : g_np
                wire unused_p = &{1'b0, p_hi};
            end
            always @(posedge clk) begin
                if (rst)                                           rdy <= 1'b1;
                else if (rdy && rg[32 + r*16 +: 16] < rdy_off_p)   rdy <= 1'b0;
                else if (!rdy && rg[32 + r*16 +: 16] < rdy_on_p)   rdy <= 1'b1;
            end
            wire unused_t = &{1'b0, tag[15:14], tag[11]};
        end
    endgenerate
    assign n_ok      = ck[0][0] + ck[1][0];
    assign n_uniq    = ck[0][1] + ck[1][1];
    assign n_dup     = ck[0][2] + ck[1][2];
    assign n_reord   = ck[0][3] + ck[1][3];
    assign n_corrupt = ck[0][4] + ck[1][4];
    wire unused = &{1'b0, rp[63:4]};
endmodule
`default_nettype wire
