`default_nettype none
// 68B slot packer (TX, first half of the 68B formatter): packs one protocol flit (or the all-data
// flit a previous one owes) per `fire` from the class queue heads into cxl_link's prepared-flit
// buffer (cxl-flits.md 1, CONVENTIONS.md "Flit wire"). It places messages and data only: the
// credit fields, Ak, LLCRD and RETRY/INIT control flits are cxl_flit68_txout's (it builds the
// flit that is sent, from the counts of that cycle), and cxl_link adds the CRC after that.
// Packing policy (ours, legal per spec 4.2.5): at most one message per class and one data header
// (DH) per flit, Sz=1 (64 B), BE=0, no MDH. Slot 0 takes the first header group, later headers go
// to the first G-slots after the rollover chunks, the DH is always the last header placed so its
// data fills the following slots to the end of the flit; the rest rolls over (4 -> all-data flit).
// `flit` holds flit bits [511:0] with the credit fields [31:20] and Ak [2] zero; it is a flit to
// store when `flit_valid` (a protocol flit with messages or owed chunks, or an all-data flit).
module cxl_flit68_tx #(
    parameter integer ROLE = 0      // CXL_ROLE_DOWN (sends H2D/M2S) or CXL_ROLE_UP (D2H/S2M)
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [5:0]       msg_avail,     // queue head of class c may be packed (credit held)
    input  wire [6*128-1:0] msg_hdr,
    input  wire [2*512-1:0] msg_data,
    output reg  [5:0]       msg_take,      // queue heads packed into `flit` (taken on `fire`)
    input  wire             fire,          // `flit` is stored this cycle (the buffer has room)
    output reg  [511:0]     flit,
    output reg              flit_valid,
    output wire             busy_adf       // the next flit packed is the all-data flit owed
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (ROLE != 0 && ROLE != 1) begin : g_bad_role
            cxl_flit68_tx_parameter_error_ROLE_must_be_0_or_1 u_stop ();
        end
    endgenerate

`include "cxl_defs.vh"

    localparam integer UP = (ROLE == CXL_ROLE_UP) ? 1 : 0;
    // Slot format codes (cxl-flits.md 1.4)
    localparam [2:0] F0 = 3'd0, F1 = 3'd1, F2 = 3'd2, F3 = 3'd3, F4 = 3'd4, F5 = 3'd5;
    localparam [2:0] G_EMPTY = (UP != 0) ? F5 : F1;  // a header format whose messages are all invalid
    localparam [2:0] ROLL_ADF = 3'd4;

    // Rollover state: chunks of the last DH still owed, and its line.
    reg [2:0]   roll;
    reg [511:0] pdata;
    reg         dh_rr;       // round robin between the two data classes

    // Wire forms of the queue heads (both directions computed; ROLE selects).
    wire [63:0] h2d_req_w = cxl_h2d_req_to_w68(msg_hdr[0*128 +: 128]);
    wire [31:0] h2d_rsp_w = cxl_h2d_rsp_to_w68(msg_hdr[1*128 +: 128]);
    wire [23:0] h2d_dh_w  = cxl_h2d_dh_to_w68(msg_hdr[2*128 +: 128]);
    wire [86:0] m2s_req_w = cxl_m2s_req_to_w68(msg_hdr[3*128 +: 128]);
    wire [86:0] m2s_rwd_w = cxl_m2s_rwd_to_w68(msg_hdr[5*128 +: 128]);
    wire [78:0] d2h_req_w = cxl_d2h_req_to_w68(msg_hdr[0*128 +: 128]);
    wire [19:0] d2h_rsp_w = cxl_d2h_rsp_to_w68(msg_hdr[1*128 +: 128]);
    wire [16:0] d2h_dh_w  = cxl_d2h_dh_to_w68(msg_hdr[2*128 +: 128]);
    wire [29:0] s2m_ndr_w = cxl_s2m_ndr_to_w68(msg_hdr[4*128 +: 128]);
    wire [39:0] s2m_drs_w = cxl_s2m_drs_to_w68(msg_hdr[5*128 +: 128]);

    // Some message is placed: slot 0 always takes a message of this direction when one is
    // available (DOWN sends classes 0, 1, 2, 3, 5; UP 0, 1, 2, 4, 5), so this equals `take` != 0
    // in a flit that may carry messages, and it does not wait for the packing (timing).
    wire        any_msg = (UP == 0) ? (|{msg_avail[5], msg_avail[3:0]})
                                    : (|{msg_avail[5:4], msg_avail[2:0]});

    reg [511:0] body;         // flit bits [511:0]
    reg [2:0]   fmt [0:3];
    reg [1:0]   dsel;         // 0 none, 1 C_DATA, 2 M_DATA
    reg         dh_placed;
    reg         x_placed;     // the "other" header (DOWN: M2S Req, UP: D2H Req) already placed
    reg [2:0]   gs;           // next free slot
    reg [2:0]   roll_next;
    reg [511:0] dline;
    reg [5:0]   take;
    integer     j;

    always @* begin
        body       = {512{1'b0}};
        for (j = 0; j < 4; j = j + 1) fmt[j] = F0;
        take       = 6'd0;
        flit_valid = 1'b0;
        roll_next  = roll;
        dline      = pdata;
        dh_placed  = 1'b0;
        x_placed   = 1'b0;
        dsel       = 2'd0;
        gs         = 3'd0;
        j          = 0;

        if (roll == ROLL_ADF) begin
            // All-data flit: the four chunks of the pending line, no header.
            body       = pdata;
            flit_valid = 1'b1;
            roll_next  = 3'd0;
        end else begin
            // Which data class gets this flit's single DH.
            if (msg_avail[2] && msg_avail[5]) dsel = dh_rr ? 2'd2 : 2'd1;
            else if (msg_avail[2])            dsel = 2'd1;
            else if (msg_avail[5])            dsel = 2'd2;
            if (UP == 0) begin
                // ---- H2D / M2S ----
                if (msg_avail[0] || msg_avail[1]) begin
                    fmt[0] = F0;                                   // H0: Req + Rsp
                    if (msg_avail[0]) begin body[32 +: 64] = h2d_req_w; take[0] = 1'b1; end
                    if (msg_avail[1]) begin body[96 +: 32] = h2d_rsp_w; take[1] = 1'b1; end
                end else if (msg_avail[3]) begin
                    fmt[0] = F5;                                   // H5: M2S Req
                    body[32 +: 87] = m2s_req_w; take[3] = 1'b1; x_placed = 1'b1;
                end else if (dsel == 2'd1) begin
                    fmt[0] = F1;                                   // H1: DH (+2 Rsp)
                    body[32 +: 24] = h2d_dh_w; dh_placed = 1'b1;
                end else if (dsel == 2'd2) begin
                    fmt[0] = F4;                                   // H4: RwD
                    body[32 +: 87] = m2s_rwd_w; dh_placed = 1'b1;
                end
                gs = roll + 3'd1;
                if (msg_avail[3] && !x_placed && gs <= 3'd3) begin
                    fmt[gs[1:0]] = F4;                             // G4: M2S Req (+DH)
                    body[128*gs[1:0] +: 87] = m2s_req_w; take[3] = 1'b1;
                    if (dsel == 2'd1) begin
                        body[128*gs[1:0] + 88 +: 24] = h2d_dh_w; dh_placed = 1'b1;
                    end
                    gs = gs + 3'd1;
                end
                if (!dh_placed && dsel != 2'd0 && gs <= 3'd3) begin
                    if (dsel == 2'd1) begin
                        fmt[gs[1:0]] = F4;                         // G4: DH only
                        body[128*gs[1:0] + 88 +: 24] = h2d_dh_w;
                    end else begin
                        fmt[gs[1:0]] = F5;                         // G5: RwD
                        body[128*gs[1:0] +: 87] = m2s_rwd_w;
                    end
                    dh_placed = 1'b1;
                    gs = gs + 3'd1;
                end
            end else begin
                // ---- D2H / S2M ----
                if (msg_avail[1] || msg_avail[4]) begin
                    fmt[0] = F0;                                   // H0: DH + 2 Rsp + NDR
                    if (msg_avail[1]) begin body[32 + 17 +: 20] = d2h_rsp_w; take[1] = 1'b1; end
                    if (msg_avail[4]) begin body[32 + 57 +: 30] = s2m_ndr_w; take[4] = 1'b1; end
                    if (dsel == 2'd1 && !msg_avail[0]) begin
                        body[32 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                    end
                end else if (msg_avail[0]) begin
                    fmt[0] = F1;                                   // H1: Req + DH
                    body[32 +: 79] = d2h_req_w; take[0] = 1'b1; x_placed = 1'b1;
                    if (dsel == 2'd1) begin
                        body[32 + 79 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                    end
                end else if (dsel == 2'd1) begin
                    fmt[0] = F1;                                   // H1: DH only
                    body[32 + 79 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                end else if (dsel == 2'd2) begin
                    fmt[0] = F3;                                   // H3: DRS (+NDR)
                    body[32 +: 40] = s2m_drs_w; dh_placed = 1'b1;
                end
                gs = roll + 3'd1;
                if (msg_avail[0] && !x_placed && gs <= 3'd3) begin
                    body[128*gs[1:0] +: 79] = d2h_req_w; take[0] = 1'b1;
                    if (dsel == 2'd1) begin
                        fmt[gs[1:0]] = F2;                         // G2: Req + DH
                        body[128*gs[1:0] + 79 +: 17] = d2h_dh_w; dh_placed = 1'b1;
                    end else begin
                        fmt[gs[1:0]] = F1;                         // G1: Req
                    end
                    gs = gs + 3'd1;
                end
                if (!dh_placed && dsel != 2'd0 && gs <= 3'd3) begin
                    if (dsel == 2'd1) begin
                        fmt[gs[1:0]] = F2;                         // G2: DH only
                        body[128*gs[1:0] + 79 +: 17] = d2h_dh_w;
                    end else begin
                        fmt[gs[1:0]] = F4;                         // G4: DRS
                        body[128*gs[1:0] +: 40] = s2m_drs_w;
                    end
                    dh_placed = 1'b1;
                    gs = gs + 3'd1;
                end
            end
            if (dh_placed) begin
                take[dsel == 2'd1 ? 2 : 5] = 1'b1;
                dline = (dsel == 2'd1) ? msg_data[0 +: 512] : msg_data[512 +: 512];
            end
            // Rollover chunks of the previous line go first, in slots 1..roll.
            for (j = 1; j < 4; j = j + 1) begin
                if (j <= roll) begin
                    fmt[j] = F0;
                    body[128*j +: 128] = pdata[128*(3 + j - {29'd0, roll}) +: 128];
                end else if (j >= gs && dh_placed) begin
                    fmt[j] = F0;                                   // new line, chunk j-gs
                    body[128*j +: 128] = dline[128*(j - {29'd0, gs}) +: 128];
                end else if (j >= gs) begin
                    fmt[j] = G_EMPTY;
                end
            end
            roll_next = dh_placed ? gs : 3'd0;
            if (any_msg || roll != 3'd0) begin
                // Protocol flit (credit fields and Ak: cxl_flit68_txout)
                body[0]     = 1'b0;
                body[4]     = 1'b1;                                // Sz = 64 B
                body[7:5]   = fmt[0];
                body[10:8]  = fmt[1];
                body[13:11] = fmt[2];
                body[16:14] = fmt[3];
                flit_valid  = 1'b1;
            end
        end
        msg_take = take;
        flit     = body;
    end

    assign busy_adf = (roll == ROLL_ADF);

    always @(posedge clk) begin
        if (rst) begin
            roll  <= 3'd0;
            dh_rr <= 1'b0;
        end else begin
            if (fire && flit_valid) roll <= roll_next;
            // a placed DH is taken (see pdata below): take[2] || take[5] is dh_placed, and
            // take[2] is dsel == 1
            if (fire && dh_placed) dh_rr <= (dsel == 2'd1);
        end
    end

    // Line of the DH carried by the fired flit; only read while roll != 0. A placed DH is always
    // taken (dh_placed is only set in a protocol flit, which takes it), so dh_placed stands for
    // take[2] || take[5] here: it skips the take encoding (timing).
    always @(posedge clk) begin
        if (fire && dh_placed) pdata <= dline;
    end

endmodule
`default_nettype wire
