// Testbench-only wrapper of cxl_flit256_rx for its pyuvm bench (tb/link256/rx_env.py): the bench
// drives a flit and whether it is committed in the same cycle, as it did when the RX was
// combinational; the RX is a pipeline whose outputs describe the flit given LAT = 4 cycles
// earlier and whose `commit` refers to that flit, so the wrapper delays the bench's commit by LAT
// cycles. crc_seq is 0 (plain CRC: no sequence term, as the model's flits carry none).
`default_nettype none
module cxl_flit256_rx_tb #(
    parameter integer ROLE = 0,  // cxl_flit256_rx's parameters, forwarded
    parameter integer PBR  = 0,
    parameter integer MAXM = 12
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    flit_valid,
    input  wire [2047:0]           flit,
    input  wire                    commit,     // with the flit: it is accepted
    // ports crc_ok .. proto_err of rtl/link/cxl_flit256_rx.v (make gen)
    output wire                  crc_ok,
    output wire                  retryable,
    output wire [2:0]            ctl_kind,
    output wire [7:0]            ctl_eseq,
    output wire [4:0]            ctl_num_retry,
    output wire                  ctl_empty,
    output wire [7:0]            ack_cnt,
    output wire [6*8-1:0]        crd_cnt,
    output wire [6*5-1:0]        msg_cnt,       // messages of class c in this flit (5 b each)
    output wire [6*MAXM-1:0]     run_valid,     // run j of class c: bit c*MAXM + j (a prefix)
    output wire [6*MAXM*3-1:0]   run_n,         // its message count, 1..4
    output wire [6*MAXM*124-1:0] run_bits,      // its messages, k-th at [k*w +: w] (w = class width)
    output wire [2*3*512-1:0]    line,          // data line i of C_DATA (d = 0) / M_DATA (d = 1): [(d*3 + i)*512 +: 512]
    output wire                  proto_err,
    // end of generated ports
    output wire                    out_valid,  // the outputs describe a flit (given LAT cycles earlier)
    output wire                    pay_type    // its flit type is payload
);
    localparam integer LAT = 4;
    reg [LAT-1:0] cm_d;
    always @(posedge clk) begin
        if (rst) cm_d <= {LAT{1'b0}};
        else     cm_d <= {cm_d[LAT-2:0], commit};
    end
    cxl_flit256_rx #(.ROLE(ROLE), .PBR(PBR), .MAXM(MAXM)) u_rx (
        .clk(clk), .rst(rst), .flit_valid(flit_valid), .flit(flit), .out_valid(out_valid),
        .pay_type(pay_type), .crc_seq(64'd0), .commit(cm_d[LAT-1]), .crc_ok(crc_ok),
        .retryable(retryable), .ctl_kind(ctl_kind), .ctl_eseq(ctl_eseq),
        .ctl_num_retry(ctl_num_retry), .ctl_empty(ctl_empty), .ack_cnt(ack_cnt),
        .crd_cnt(crd_cnt), .msg_cnt(msg_cnt), .run_valid(run_valid), .run_n(run_n),
        .run_bits(run_bits), .line(line), .proto_err(proto_err));
endmodule
`default_nettype wire
