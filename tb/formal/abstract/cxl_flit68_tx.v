// Abstraction of rtl/link/cxl_flit68_tx.v for formal proofs of cxl_link's replay logic: same
// ports, every output free in every cycle (any formatter behaviour), so a property proven with it
// holds for the real formatter too.
module cxl_flit68_tx #(
    parameter integer ROLE = 0
) (
    input  wire             clk,
    input  wire             rst,
    input  wire [5:0]       msg_avail,
    input  wire [6*128-1:0] msg_hdr,
    input  wire [2*512-1:0] msg_data,
    output wire [5:0]       msg_take,
    input  wire             fire,
    output wire [511:0]     flit,
    output wire             flit_valid,
    output wire             busy_adf
);
    assign msg_take       = $anyseq;
`ifdef FV_FLIT_FREE_BITS
    // The replay logic stores, selects and forwards flits without looking inside them, so free
    // low bits show every behaviour a full flit does; the bits above are 0, which keeps the
    // solver's bounded searches small (the broken variants' counterexamples are 13+ steps deep).
    wire [`FV_FLIT_FREE_BITS-1:0] free_bits = $anyseq;
    assign flit           = {{(512 - `FV_FLIT_FREE_BITS){1'b0}}, free_bits};
`else
    assign flit           = $anyseq;
`endif
    assign flit_valid     = $anyseq;
    assign busy_adf       = $anyseq;
endmodule
