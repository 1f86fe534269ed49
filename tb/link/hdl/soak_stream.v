`default_nettype none
// Soak traffic for one link class in one direction (test-only): a generator on the sending
// endpoint's TX lane and an in-order checker on the receiving endpoint's RX lane, so a soak runs
// without crossing into Python per cycle.
// Message s of the stream: every header field the flavour carries is a hash of (seed, stream, s),
// except a 12-bit id field (UQID / CQID / Tag / BITag, present in every flavour) = s mod 4096; a
// data message's line is a hash too. The checker knows the next sequence number it expects (hi)
// and places an arriving message at s = hi + (id - hi) (12-bit signed difference), then:
//   s == hi, content = f(s)      in order (ok)
//   content != f(s)              corrupted
//   s > hi                       reordered: messages hi..s-1 are late or lost (hi jumps to s + 1)
//   s < hi, seen before          duplicated
//   s < hi, not seen before      reordered (a late message)
// `seen` covers the 64 sequence numbers below hi; an older one counts as duplicated. Lost
// messages are sent minus unique delivered once the stream has drained.
// The consumer's ready is a two-state Markov chain (on/off with per-cycle switch probabilities):
// long off periods withhold credits from the sender (credit starvation).
module soak_stream #(
    parameter integer ROLE = 0,   // role of the SENDING endpoint (0 = DOWN: H2D/M2S, 1 = UP)
    parameter integer CLS  = 0,   // link class 0..5
    parameter integer FLAV = 0,   // wire flavour: 0 = 68B, 1 = 256B HBR, 2 = 256B PBR
    parameter integer SID  = 0    // stream id (hash input)
) (
    input  wire         clk,
    input  wire         rst,
    input  wire [63:0]  seed,
    input  wire [31:0]  n_msgs,      // messages to send
    input  wire [15:0]  gen_p,       // P(present the next message in a cycle) x 65536
    input  wire [15:0]  rdy_on_p,    // P(consumer off -> on per cycle) x 65536
    input  wire [15:0]  rdy_off_p,   // P(consumer on -> off per cycle) x 65536
    // negative tests (0 = off): send message k-1 again in place of message k = inj_dup_at, or
    // flip one carried bit of message inj_flip_at; both bypass the link layer's protection
    input  wire [31:0]  inj_dup_at,
    input  wire [31:0]  inj_flip_at,
    // sender's TX lane
    output reg          tx_valid,
    input  wire         tx_ready,
    output wire [127:0] tx_hdr,
    output wire [511:0] tx_data,
    // receiver's RX lane
    input  wire         rx_valid,
    output reg          rx_ready,
    input  wire [127:0] rx_hdr,
    input  wire [511:0] rx_data,
    // counters
    output reg  [31:0]  n_sent,
    output reg  [31:0]  n_ok,
    output reg  [31:0]  n_uniq,
    output reg  [31:0]  n_dup,
    output reg  [31:0]  n_reord,
    output reg  [31:0]  n_corrupt
);
    `include "cxl_defs.vh"
    `include "soak_fn.vh"

    localparam integer DATA = (CLS == 2 || CLS == 5) ? 1 : 0;

    // Canonical bits the flavour carries (a canonical -> wire -> canonical round trip of all ones),
    // and the canonical position of the 12-bit id field.
    /* verilator lint_off UNUSEDSIGNAL */  // table builders: dummy args
    function automatic [127:0] carried(input integer dummy);
        reg [127:0] o;
        begin
            o = {128{1'b1}} ^ {128{dummy[0]}};
            carried = 128'd0;
            if (ROLE == 0)
                case (CLS)
                    0: carried = (FLAV == 0) ? cxl_h2d_req_from_w68(cxl_h2d_req_to_w68(o)) :
                                 (FLAV == 1) ? cxl_h2d_req_from_w256(cxl_h2d_req_to_w256(o)) :
                                               cxl_h2d_req_from_wpbr(cxl_h2d_req_to_wpbr(o));
                    1: carried = (FLAV == 0) ? cxl_h2d_rsp_from_w68(cxl_h2d_rsp_to_w68(o)) :
                                 (FLAV == 1) ? cxl_h2d_rsp_from_w256(cxl_h2d_rsp_to_w256(o)) :
                                               cxl_h2d_rsp_from_wpbr(cxl_h2d_rsp_to_wpbr(o));
                    2: carried = (FLAV == 0) ? cxl_h2d_dh_from_w68(cxl_h2d_dh_to_w68(o)) :
                                 (FLAV == 1) ? cxl_h2d_dh_from_w256(cxl_h2d_dh_to_w256(o)) :
                                               cxl_h2d_dh_from_wpbr(cxl_h2d_dh_to_wpbr(o));
                    3: carried = (FLAV == 0) ? cxl_m2s_req_from_w68(cxl_m2s_req_to_w68(o)) :
                                 (FLAV == 1) ? cxl_m2s_req_from_w256(cxl_m2s_req_to_w256(o)) :
                                               cxl_m2s_req_from_wpbr(cxl_m2s_req_to_wpbr(o));
                    4: carried = (FLAV == 1) ? cxl_m2s_birsp_from_w256(cxl_m2s_birsp_to_w256(o)) :
                                               cxl_m2s_birsp_from_wpbr(cxl_m2s_birsp_to_wpbr(o));
                    default: carried = (FLAV == 0) ? cxl_m2s_rwd_from_w68(cxl_m2s_rwd_to_w68(o)) :
                                       (FLAV == 1) ? cxl_m2s_rwd_from_w256(cxl_m2s_rwd_to_w256(o)) :
                                                     cxl_m2s_rwd_from_wpbr(cxl_m2s_rwd_to_wpbr(o));
                endcase
            else
                case (CLS)
                    0: carried = (FLAV == 0) ? cxl_d2h_req_from_w68(cxl_d2h_req_to_w68(o)) :
                                 (FLAV == 1) ? cxl_d2h_req_from_w256(cxl_d2h_req_to_w256(o)) :
                                               cxl_d2h_req_from_wpbr(cxl_d2h_req_to_wpbr(o));
                    1: carried = (FLAV == 0) ? cxl_d2h_rsp_from_w68(cxl_d2h_rsp_to_w68(o)) :
                                 (FLAV == 1) ? cxl_d2h_rsp_from_w256(cxl_d2h_rsp_to_w256(o)) :
                                               cxl_d2h_rsp_from_wpbr(cxl_d2h_rsp_to_wpbr(o));
                    2: carried = (FLAV == 0) ? cxl_d2h_dh_from_w68(cxl_d2h_dh_to_w68(o)) :
                                 (FLAV == 1) ? cxl_d2h_dh_from_w256(cxl_d2h_dh_to_w256(o)) :
                                               cxl_d2h_dh_from_wpbr(cxl_d2h_dh_to_wpbr(o));
                    3: carried = (FLAV == 1) ? cxl_s2m_bisnp_from_w256(cxl_s2m_bisnp_to_w256(o)) :
                                               cxl_s2m_bisnp_from_wpbr(cxl_s2m_bisnp_to_wpbr(o));
                    4: carried = (FLAV == 0) ? cxl_s2m_ndr_from_w68(cxl_s2m_ndr_to_w68(o)) :
                                 (FLAV == 1) ? cxl_s2m_ndr_from_w256(cxl_s2m_ndr_to_w256(o)) :
                                               cxl_s2m_ndr_from_wpbr(cxl_s2m_ndr_to_wpbr(o));
                    default: carried = (FLAV == 0) ? cxl_s2m_drs_from_w68(cxl_s2m_drs_to_w68(o)) :
                                       (FLAV == 1) ? cxl_s2m_drs_from_w256(cxl_s2m_drs_to_w256(o)) :
                                                     cxl_s2m_drs_from_wpbr(cxl_s2m_drs_to_wpbr(o));
                endcase
        end
    endfunction
    function automatic integer id_lsb(input integer dummy);
        begin
            id_lsb = dummy;
            if (ROLE == 0)
                case (CLS)
                    0: id_lsb = CXL_H2D_REQ_UQID_LSB;   1: id_lsb = CXL_H2D_RSP_CQID_LSB;
                    2: id_lsb = CXL_H2D_DH_CQID_LSB;    3: id_lsb = CXL_M2S_REQ_TAG_LSB;
                    4: id_lsb = CXL_M2S_BIRSP_BITAG_LSB; default: id_lsb = CXL_M2S_RWD_TAG_LSB;
                endcase
            else
                case (CLS)
                    0: id_lsb = CXL_D2H_REQ_CQID_LSB;   1: id_lsb = CXL_D2H_RSP_UQID_LSB;
                    2: id_lsb = CXL_D2H_DH_UQID_LSB;    3: id_lsb = CXL_S2M_BISNP_BITAG_LSB;
                    4: id_lsb = CXL_S2M_NDR_TAG_LSB;    default: id_lsb = CXL_S2M_DRS_TAG_LSB;
                endcase
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    localparam [127:0] CMASK = carried(0);
    localparam integer IDL   = id_lsb(0);
    localparam [127:0] IDM   = 128'hFFF << IDL;
    function automatic [127:0] lowest(input [127:0] v);
        integer i;
        begin
            lowest = 128'd0;
            for (i = 127; i >= 0; i = i - 1) if (v[i]) lowest = 128'd1 << i;
        end
    endfunction
    localparam [127:0] FLIPM = lowest(CMASK & ~IDM & ~128'd1);

    // ---------------------------------------------------------------- content of message s
    function automatic [639:0] content(input [63:0] sd, input [31:0] s);
        reg [63:0] k;
        integer i;
        begin
            k = sd ^ ({32'(SID), 32'd0} + {32'd0, s});
            for (i = 0; i < 10; i = i + 1)
                content[i*64 +: 64] = soak_mix64(k + 64'h9E3779B97F4A7C15 * 64'(i + 1));
            // header: carried fields hashed, id = s mod 4096; no line for header classes
            content[127:0] = (content[127:0] & CMASK & ~IDM) | ({116'd0, s[11:0]} << IDL);
            if (DATA == 0) content[639:128] = 512'd0;
        end
    endfunction

    // ---------------------------------------------------------------- random draws (xorshift64)
    reg [63:0] rg;

    // ---------------------------------------------------------------- generator
    wire [31:0]  tx_s = (inj_dup_at != 32'd0 && n_sent == inj_dup_at) ? n_sent - 32'd1 : n_sent;
    wire [639:0] tx_c = content(seed, tx_s);
    wire         flip = (inj_flip_at != 32'd0 && n_sent == inj_flip_at);
    assign tx_hdr  = flip ? tx_c[127:0] ^ FLIPM : tx_c[127:0];
    assign tx_data = tx_c[639:128];

    // ---------------------------------------------------------------- checker
    reg  [31:0]  hi;            // next sequence number in order
    reg  [63:0]  seen;          // seen[i]: hi - 1 - i was delivered
    wire [11:0]  d12  = rx_hdr[IDL +: 12] - hi[11:0];
    wire [31:0]  s_at = hi + {{20{d12[11]}}, d12};
    wire [639:0] want = content(seed, s_at);
    wire         same = (rx_hdr == want[127:0]) && (DATA == 0 || rx_data == want[639:128]);
    wire [31:0]  back = hi - s_at - 32'd1;          // s_at < hi: index into seen
    wire         take = rx_valid && rx_ready;

    always @(posedge clk) begin
        if (rst) begin
            rg        <= seed ^ (64'h5851F42D4C957F2D * 64'(SID + 1)) ^ 64'h1;
            tx_valid  <= 1'b0;
            rx_ready  <= 1'b1;
            n_sent    <= 32'd0;
            n_ok      <= 32'd0;
            n_uniq    <= 32'd0;
            n_dup     <= 32'd0;
            n_reord   <= 32'd0;
            n_corrupt <= 32'd0;
            hi        <= 32'd0;
            seen      <= 64'd0;
        end else begin
            rg <= soak_xs(rg);
            // generator: a presented message stays until taken
            if (tx_valid && tx_ready) begin
                n_sent   <= n_sent + 32'd1;
                tx_valid <= 1'b0;
            end
            if ((!tx_valid || tx_ready) && (n_sent + {31'd0, tx_valid && tx_ready}) < n_msgs &&
                rg[15:0] < gen_p)
                tx_valid <= 1'b1;
            // consumer ready: on/off Markov chain
            if (rx_ready && rg[31:16] < rdy_off_p) rx_ready <= 1'b0;
            if (!rx_ready && rg[47:32] < rdy_on_p) rx_ready <= 1'b1;
            // checker
            if (take) begin
                if (!same) begin
                    n_corrupt <= n_corrupt + 32'd1;
                end else if (s_at == hi) begin
                    n_ok   <= n_ok + 32'd1;
                    n_uniq <= n_uniq + 32'd1;
                    hi     <= hi + 32'd1;
                    seen   <= {seen[62:0], 1'b1};
                end else if (!d12[11]) begin       // ahead of hi: the ones between are late or lost
                    n_reord <= n_reord + 32'd1;
                    n_uniq  <= n_uniq + 32'd1;
                    hi      <= s_at + 32'd1;
                    seen    <= (seen << (s_at - hi + 32'd1)) | 64'd1;
                end else if (back >= 32'd64 || seen[back[5:0]]) begin
                    n_dup <= n_dup + 32'd1;
                end else begin                     // a late message, first time seen
                    n_reord <= n_reord + 32'd1;
                    n_uniq  <= n_uniq + 32'd1;
                    seen[back[5:0]] <= 1'b1;
                end
            end
        end
    end
    wire unused = &{1'b0, rg[63:48]};
endmodule
`default_nettype wire
