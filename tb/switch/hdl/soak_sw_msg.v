`default_nettype none
// Content of one switch-soak message (test-only, combinational): message s of the flow
// (host, dev, request class). Requests (CLS 0 M2S Req MemRd, 1 M2S RwD MemWr) go from host to
// dev; the answer of request s (CLS 3 S2M DRS MemData to a Req, 2 S2M NDR Cmp to a RwD) goes back
// and belongs to the same flow. Canonical header (CONVENTIONS.md), switch lane format:
//   * Tag = {host[1:0], dev[1:0], request class, s[10:0]}: the source, the flow and the sequence
//     number mod 2048 (unique among a DSP's outstanding requests: a flow has far fewer than 2048
//     in flight), copied into the answer;
//   * address: HPA[51:28] = 0, HPA[8 +: DB] = dev (the ND-way, 256 B-granular HDM interleave the
//     soak programs routes it to the device's port), the other HPA bits hashed;
//   * opcode fixed (MemRd, MemWr, Cmp, MemData); every other field the 68B flit carries is a hash
//     of (seed, flow, s), as is the data line; the answer's LD-ID is its request's.
// So a message's content names its source, flow and sequence number: a checker detects loss,
// duplication, reordering, misrouting and corruption.
module soak_sw_msg #(
    parameter integer CLS = 0,   // switch class: 0 M2S Req, 1 M2S RwD, 2 S2M NDR, 3 S2M DRS
    parameter integer ND  = 2    // devices (interleave ways): 1, 2 or 4
) (
    input  wire [63:0]  seed,
    input  wire [1:0]   host,
    input  wire [1:0]   dev,
    input  wire [31:0]  s,
    output wire [127:0] o_hdr,
    output wire [511:0] o_data
);
    `include "cxl_defs.vh"
    `include "soak_fn.vh"

    generate
        if (CLS < 0 || CLS > 3) begin : g_bad_cls
            soak_sw_msg_parameter_error_CLS_must_be_0_to_3 u_stop ();
        end
        if (ND != 1 && ND != 2 && ND != 4) begin : g_bad_nd
            soak_sw_msg_parameter_error_ND_must_be_1_2_or_4 u_stop ();
        end
    endgenerate

    localparam integer RQ = (CLS == 0 || CLS == 3) ? 0 : 1;   // request class of the flow
    localparam integer DB = (ND == 4) ? 2 : (ND == 2) ? 1 : 0;

    // bits of the canonical header the 68B flit carries (all-ones round trip)
    /* verilator lint_off UNUSEDSIGNAL */  // table builder: dummy arg
    function automatic [127:0] carried(input integer c, input integer dummy);
        reg [127:0] o;
        begin
            o = {128{1'b1}} ^ {128{dummy[0]}};
            case (c)
                0:       carried = cxl_m2s_req_from_w68(cxl_m2s_req_to_w68(o));
                1:       carried = cxl_m2s_rwd_from_w68(cxl_m2s_rwd_to_w68(o));
                2:       carried = cxl_s2m_ndr_from_w68(cxl_s2m_ndr_to_w68(o));
                default: carried = cxl_s2m_drs_from_w68(cxl_s2m_drs_to_w68(o));
            endcase
        end
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */
    function automatic [127:0] field(input integer lsb, input integer width);
        field = ((128'd1 << width) - 128'd1) << lsb;
    endfunction
    // request header: fixed opcode, tag, address (routing), TRP; hashed: the rest it carries
    localparam [127:0] Q_FIX = field(CXL_M2S_REQ_MEMOP_LSB, 4) | field(CXL_M2S_REQ_TAG_LSB, 16) |
                               field(CXL_M2S_REQ_ADDR_LSB, 46) | field(CXL_M2S_RWD_TRP_LSB, 1);
    localparam [127:0] Q_HASH = carried(RQ, 0) & ~Q_FIX;
    localparam [127:0] R_FIX = (CLS == 3)
        ? field(CXL_S2M_DRS_MEMOP_LSB, 3) | field(CXL_S2M_DRS_TAG_LSB, 16) |
          field(CXL_S2M_DRS_LDID_LSB, 4) | field(CXL_S2M_DRS_TRP_LSB, 1)
        : field(CXL_S2M_NDR_MEMOP_LSB, 3) | field(CXL_S2M_NDR_TAG_LSB, 16) |
          field(CXL_S2M_NDR_LDID_LSB, 4);
    localparam [127:0] R_HASH = carried((CLS == 3) ? 3 : 2, 0) & ~R_FIX;

    // flow key: seed, (host, dev, request class), sequence number
    wire [63:0] k = seed ^ {26'd0, host, dev, 2'(RQ), s};
    function automatic [63:0] w(input [63:0] key, input integer i);
        w = soak_mix64(key + 64'h9E3779B97F4A7C15 * 64'(i + 1));
    endfunction

    wire [127:0] q_rnd = {w(k, 1), w(k, 0)};
    wire [15:0]  tag   = {host, dev, 1'(RQ), s[10:0]};
    // HPA[27:6] hashed, HPA[8 +: DB] = dev; canonical address field = HPA[51:6]
    wire [21:0]  a_rnd = q_rnd[CXL_M2S_REQ_ADDR_LSB +: 22];
    wire [21:0]  a_lo;
    generate
        if (DB == 0) begin : g_a0
            assign a_lo = a_rnd;
        end else begin : g_an
            assign a_lo = (a_rnd & ~(22'((1 << DB) - 1) << 2)) | (22'(dev[DB-1:0]) << 2);
        end
    endgenerate
    wire [127:0] q_hdr = (q_rnd & Q_HASH) |
                         (128'((RQ == 0) ? CXL_M2S_REQ_OP_MEMRD : CXL_M2S_RWD_OP_MEMWR) << CXL_M2S_REQ_MEMOP_LSB) |
                         (128'(tag) << CXL_M2S_REQ_TAG_LSB) | (128'({24'd0, a_lo}) << CXL_M2S_REQ_ADDR_LSB);
    wire [3:0]   ldid  = q_hdr[CXL_M2S_REQ_LDID_LSB +: 4];

    generate
        if (CLS < 2) begin : g_req
            assign o_hdr = q_hdr;
            wire unused_l = &{1'b0, ldid};
        end else begin : g_rsp
            wire [127:0] r_rnd = {w(k, 3), w(k, 2)};
            wire unused_q = &{1'b0, q_hdr};       // only its LD-ID goes into the answer
            if (CLS == 3) begin : g_drs
                assign o_hdr = (r_rnd & R_HASH) |
                             (128'(CXL_S2M_DRS_OP_MEMDATA) << CXL_S2M_DRS_MEMOP_LSB) |
                             (128'(tag) << CXL_S2M_DRS_TAG_LSB) | (128'(ldid) << CXL_S2M_DRS_LDID_LSB);
            end else begin : g_ndr
                assign o_hdr = (r_rnd & R_HASH) |
                             (128'(CXL_S2M_NDR_OP_CMP) << CXL_S2M_NDR_MEMOP_LSB) |
                             (128'(tag) << CXL_S2M_NDR_TAG_LSB) | (128'(ldid) << CXL_S2M_NDR_LDID_LSB);
            end
        end
        if (CLS == 1 || CLS == 3) begin : g_data
            for (genvar i = 0; i < 8; i = i + 1) begin : g_w
                assign o_data[i*64 +: 64] = w(k, 4 + i + ((CLS == 3) ? 8 : 0));
            end
        end else begin : g_nodata
            assign o_data = 512'd0;
        end
    endgenerate
endmodule
`default_nettype wire
