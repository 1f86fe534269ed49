`default_nettype none
// One switch port's wire side: maps the core's 4 switch classes onto a cxl_link's 6 link classes
// (CONVENTIONS.md table). UP = 1: the port faces a host (link ROLE_UP: M2S Req/RwD in on M_REQ/
// M_DATA, S2M NDR/DRS out on M_RSP/M_DATA); UP = 0: faces a device (ROLE_DOWN: M2S out, S2M in).
// Received classes the switch does not route (CXL.cache, BISnp/BIRsp) are drained one per cycle,
// and core outputs the link role cannot carry are dropped; both raise `unsup` (counted).
module cxl_switch_linkport #(
    parameter integer UP            = 0,
    parameter integer PBR           = 0,
    parameter integer FLIT_MODE     = 0,
    parameter integer RX_DEPTH      = 16,
    parameter integer REPLAY_DEPTH  = 32,
    parameter integer TIMEOUT_FLITS = 4096,
    parameter integer FLIT_W        = (FLIT_MODE != 0) ? 2048 : 528,
    // cxl_link SEQ_CRC: 1 folds the flit sequence number into the CRC (ours), 0 the spec CRC;
    // both ends of a link must agree. Default as cxl_link: 0 for 68B, 1 for 256B.
    parameter integer SEQ_CRC       = (FLIT_MODE != 0) ? 1 : 0,
    // cxl_link MAX_RETRY: RETRY.Req attempts before link_fatal, 1..31 (cxl_link refuses others)
    parameter integer MAX_RETRY     = 16
) (
    input  wire              clk,
    input  wire              rst,
    output wire [3:0]        c_in_valid,
    input  wire [3:0]        c_in_ready,
    output wire [4*128-1:0]  c_in_hdr,
    output wire [2*512-1:0]  c_in_data,
    input  wire [3:0]        c_out_valid,
    output wire [3:0]        c_out_ready,
    input  wire [4*128-1:0]  c_out_hdr,
    input  wire [2*512-1:0]  c_out_data,
    output wire              unsup,
    output wire              tx_flit_valid,
    input  wire              tx_flit_ready,
    output wire [FLIT_W-1:0] tx_flit,
    input  wire              rx_flit_valid,
    input  wire [FLIT_W-1:0] rx_flit,
    output wire              link_up,
    output wire              link_fatal
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (UP != 0 && UP != 1) begin : g_bad_up
            cxl_switch_linkport_parameter_error_UP_must_be_0_or_1 u_stop ();
        end
        if (PBR != 0 && FLIT_MODE == 0) begin : g_bad_pbr
            cxl_switch_linkport_parameter_error_PBR_needs_FLIT_MODE_1 u_stop ();
        end
    endgenerate

    localparam integer M_REQ = 3, M_RSP = 4, M_DATA = 5;
    localparam integer RQ = (UP != 0) ? M_REQ : M_RSP;  // link rx class of the header-only class
    localparam integer TQ = (UP != 0) ? M_RSP : M_REQ;  // link tx class of the header-only class
    localparam integer IQ = (UP != 0) ? 0 : 2;          // core class received on RQ
    localparam integer ID = (UP != 0) ? 1 : 3;          // core class received on M_DATA
    localparam integer OQ = (UP != 0) ? 2 : 0;          // core class sent on TQ
    localparam integer OD = (UP != 0) ? 3 : 1;          // core class sent on M_DATA
    localparam [5:0] USED = (6'b1 << RQ) | (6'b1 << M_DATA);
    localparam [3:0] OMASK = (4'b1 << OQ) | (4'b1 << OD);

    wire [5:0]       tx_valid, tx_ready, rx_valid, rx_ready;
    wire [6*128-1:0] tx_hdr, rx_hdr;
    wire [2*512-1:0] tx_data, rx_data;
    wire [15:0]      s_crc, s_retry, s_proto;
    wire [1:0]       d_lrsm;
    wire [7:0]       d_eseq, d_free;
    wire             d_commit, d_replay, d_ovf, d_cerr;

    wire [5:0] junk  = rx_valid & ~USED;
    wire [5:0] junk1 = junk & (~junk + 6'd1);           // lowest unsupported class, one per cycle
    wire [3:0] bad   = c_out_valid & ~OMASK;

    assign tx_valid = (6'(c_out_valid[OQ]) << TQ) | (6'(c_out_valid[OD]) << M_DATA);
    assign tx_hdr   = ({640'd0, c_out_hdr[OQ*128 +: 128]} << (TQ*128)) |
                      ({640'd0, c_out_hdr[OD*128 +: 128]} << (M_DATA*128));
    assign tx_data  = {c_out_data[((OD == 3) ? 512 : 0) +: 512], 512'd0};
    assign c_out_ready = (4'(tx_ready[TQ]) << OQ) | (4'(tx_ready[M_DATA]) << OD) | ~OMASK;

    // received messages reach the core through a skid buffer per class: the core's input logic
    // (the HDM decode of a request) starts from a flop instead of the link's RX queue read, and
    // the link sees a ready from a flop; one cycle from the link to the core
    wire         q_rdy, d_rdy, q_v, d_v;
    wire [127:0] q_hdr;
    wire [639:0] d_msg;   // {data, header}
    skid_buffer #(.WIDTH(128)) u_rx_q (
        .clk(clk), .rst(rst), .in_valid(rx_valid[RQ]), .in_ready(q_rdy), .in_data(rx_hdr[RQ*128 +: 128]),
        .out_valid(q_v), .out_ready(c_in_ready[IQ]), .out_data(q_hdr));
    skid_buffer #(.WIDTH(640)) u_rx_d (
        .clk(clk), .rst(rst), .in_valid(rx_valid[M_DATA]), .in_ready(d_rdy),
        .in_data({rx_data[512 +: 512], rx_hdr[M_DATA*128 +: 128]}),
        .out_valid(d_v), .out_ready(c_in_ready[ID]), .out_data(d_msg));
    assign c_in_valid = (4'(q_v) << IQ) | (4'(d_v) << ID);
    assign c_in_hdr   = ({384'd0, q_hdr} << (IQ*128)) | ({384'd0, d_msg[0 +: 128]} << (ID*128));
    assign c_in_data  = (UP != 0) ? {512'd0, d_msg[128 +: 512]} : {d_msg[128 +: 512], 512'd0};
    assign rx_ready   = (6'(q_rdy) << RQ) | (6'(d_rdy) << M_DATA) | junk1;
    assign unsup      = (|junk1) | (|bad);

    cxl_link #(.FLIT_MODE(FLIT_MODE), .ROLE(UP), .PBR(PBR), .REPLAY_DEPTH(REPLAY_DEPTH),
               .RX_DEPTH(RX_DEPTH), .TIMEOUT_FLITS(TIMEOUT_FLITS), .SEQ_CRC(SEQ_CRC),
               .MAX_RETRY(MAX_RETRY)) u_link (
        .clk(clk), .rst(rst),
        .tx_valid(tx_valid), .tx_ready(tx_ready), .tx_hdr(tx_hdr), .tx_data(tx_data),
        .rx_valid(rx_valid), .rx_ready(rx_ready), .rx_hdr(rx_hdr), .rx_data(rx_data),
        .tx_flit_valid(tx_flit_valid), .tx_flit_ready(tx_flit_ready), .tx_flit(tx_flit),
        .rx_flit_valid(rx_flit_valid), .rx_flit(rx_flit),
        .link_up(link_up), .link_fatal(link_fatal),
        .stat_crc_err(s_crc), .stat_retry(s_retry), .stat_proto_err(s_proto),
        .dbg_lrsm(d_lrsm), .dbg_eseq(d_eseq), .dbg_num_free(d_free), .dbg_rx_commit(d_commit),
        .dbg_tx_replay(d_replay), .dbg_rx_overflow(d_ovf), .dbg_credit_err(d_cerr));

    wire unused = &{1'b0, s_crc, s_retry, s_proto, d_lrsm, d_eseq, d_free, d_commit, d_replay, d_ovf,
                    d_cerr, c_out_hdr, c_out_data, rx_hdr, rx_data[0 +: 512], tx_ready};
endmodule
`default_nettype wire
