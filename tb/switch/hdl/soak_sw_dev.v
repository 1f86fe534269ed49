`default_nettype none
// Switch-soak device (test-only), on the message lanes of a device-side partner link: in-order
// checkers of the requests it receives (Req and RwD, one flow per host; soak_sw_chk) and an
// answer for every request it takes: DRS MemData to a Req, NDR Cmp to a RwD, with the request's
// Tag and LD-ID and the flow's content of the sequence number the checker placed it at
// (soak_sw_msg). Answers wait in a FIFO per class (a full FIFO stops taking requests); each
// request lane's consumer is on/off (off periods starve the switch of credits toward the device)
// and an answer is presented with probability gen_p per cycle.
module soak_sw_dev #(
    parameter integer DI    = 0,   // this device's index (tag and interleave way)
    parameter integer NH    = 2,   // hosts: 1..4
    parameter integer ND    = 2,   // devices: 1, 2 or 4
    parameter integer DEPTH = 4    // answers waiting per class
) (
    input  wire          clk,
    input  wire          rst,
    input  wire [63:0]   seed,
    input  wire [15:0]   gen_p,
    input  wire [15:0]   rdy_on_p,
    input  wire [15:0]   rdy_off_p,
    // from the switch: class lanes 0 (Req) and 1 (RwD)
    input  wire [1:0]    rx_valid,
    output wire [1:0]    rx_ready,
    input  wire [255:0]  rx_hdr,
    input  wire [511:0]  rx_data,
    // to the switch: class lanes 2 (NDR) and 3 (DRS)
    output wire [1:0]    tx_valid,
    input  wire [1:0]    tx_ready,
    output wire [255:0]  tx_hdr,
    output wire [511:0]  tx_data,
    // counters
    output wire [31:0]   n_sent,      // answers taken by the link
    output wire [31:0]   n_ok, n_uniq, n_dup, n_reord, n_corrupt   // requests checked
);
    `include "cxl_defs.vh"
    `include "soak_fn.vh"

    reg [63:0] rg;
    always @(posedge clk) begin
        if (rst) rg <= seed ^ (64'h9E6C63D0676A9A99 * 64'(DI + 1)) ^ 64'h7;
        else     rg <= soak_xs(rg);
    end

    wire [31:0] ck [0:1][0:4];
    wire [31:0] sent_c [0:1];
    genvar c;
    generate
        for (c = 0; c < 2; c = c + 1) begin : g_cls
            localparam integer ACLS = (c == 0) ? 3 : 2;   // answer class: Req -> DRS, RwD -> NDR
            localparam integer AL   = ACLS - 2;           // answer lane
            // ------------------------------------------------ request checker
            reg          rdy;
            wire [127:0] h    = rx_hdr[c*128 +: 128];
            wire [15:0]  tag  = h[CXL_M2S_REQ_TAG_LSB +: 16];
            wire [3:0]   ldid = h[CXL_M2S_REQ_LDID_LSB +: 4];
            wire         fin_ready;
            wire         take = rx_valid[c] && rdy && fin_ready;
            wire [31:0]  s_at;
            wire [127:0] w_hdr;
            wire [511:0] w_data;
            soak_sw_msg #(.CLS(c), .ND(ND)) u_m (
                .seed(seed), .host(tag[15:14]), .dev(2'(DI)), .s(s_at), .o_hdr(w_hdr), .o_data(w_data));
            wire same = (h == w_hdr) && (c == 0 || rx_data == w_data);
            wire [31:0] p_hi;
            soak_sw_chk #(.NF(NH), .SB(11)) u_c (
                .clk(clk), .rst(rst), .take(take), .f(tag[15:14]), .sid(tag[10:0]), .s_at(s_at),
                .same(same), .probe_f(2'd0), .probe_hi(p_hi),
                .n_ok(ck[c][0]), .n_uniq(ck[c][1]), .n_dup(ck[c][2]), .n_reord(ck[c][3]),
                .n_corrupt(ck[c][4]));
            assign rx_ready[c] = rdy && fin_ready;
            always @(posedge clk) begin
                if (rst)                                           rdy <= 1'b1;
                else if (rdy && rg[c*16 +: 16] < rdy_off_p)        rdy <= 1'b0;
                else if (!rdy && rg[c*16 +: 16] < rdy_on_p)        rdy <= 1'b1;
            end

            // ------------------------------------------------ answers: {host, s, tag, LD-ID}
            wire [53:0]  fo;
            wire         fo_valid, fo_ready;
            wire [$clog2(DEPTH+1)-1:0] fcount;
            sync_fifo #(.WIDTH(54), .DEPTH(DEPTH)) u_q (
                .clk(clk), .rst(rst), .in_valid(take), .in_ready(fin_ready),
                .in_data({tag[15:14], s_at, tag, ldid}), .out_valid(fo_valid), .out_ready(fo_ready),
                .out_data(fo), .count(fcount));
            reg          pres;        // the head answer is presented (held until taken)
            wire         tk = pres && tx_ready[AL];
            assign fo_ready = tk;
            always @(posedge clk) begin
                if (rst)                                                  pres <= 1'b0;
                else if (tk)                                              pres <= 1'b0;
                else if (!pres && fo_valid && rg[32 + c*16 +: 16] < gen_p) pres <= 1'b1;
            end
            reg [31:0] sent;
            always @(posedge clk) begin
                if (rst)     sent <= 32'd0;
                else if (tk) sent <= sent + 32'd1;
            end
            assign sent_c[c] = sent;
            wire [127:0] a_hdr;
            wire [511:0] a_data;
            soak_sw_msg #(.CLS(ACLS), .ND(ND)) u_a (
                .seed(seed), .host(fo[53:52]), .dev(2'(DI)), .s(fo[51:20]), .o_hdr(a_hdr), .o_data(a_data));
            // the request's Tag and LD-ID go back as received
            localparam integer TL = (ACLS == 3) ? CXL_S2M_DRS_TAG_LSB : CXL_S2M_NDR_TAG_LSB;
            localparam integer LL = (ACLS == 3) ? CXL_S2M_DRS_LDID_LSB : CXL_S2M_NDR_LDID_LSB;
            assign tx_hdr[AL*128 +: 128] = (a_hdr & ~((128'hFFFF << TL) | (128'hF << LL))) |
                                           (128'(fo[19:4]) << TL) | (128'(fo[3:0]) << LL);
            assign tx_valid[AL] = pres;
            if (ACLS == 3) begin : g_d
                assign tx_data = a_data;
            end else begin : g_nd
                wire unused_d = &{1'b0, a_data};
            end
            wire unused_c = &{1'b0, p_hi, fcount, tag[13:11]};
        end
    endgenerate
    assign n_sent    = sent_c[0] + sent_c[1];
    assign n_ok      = ck[0][0] + ck[1][0];
    assign n_uniq    = ck[0][1] + ck[1][1];
    assign n_dup     = ck[0][2] + ck[1][2];
    assign n_reord   = ck[0][3] + ck[1][3];
    assign n_corrupt = ck[0][4] + ck[1][4];
endmodule
`default_nettype wire
