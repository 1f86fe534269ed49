`default_nettype none
// Two-entry skid buffer: full throughput, and both in_ready and out_valid come from flops, so it
// cuts the combinational ready path between producer and consumer.
module skid_buffer #(
    parameter integer WIDTH = 8   // bits per beat, >= 1
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             in_valid,
    output wire             in_ready,
    input  wire [WIDTH-1:0] in_data,
    output wire             out_valid,
    input  wire             out_ready,
    output wire [WIDTH-1:0] out_data
);
    // parameter limits: an illegal value instantiates a module that does not exist, named
    // after the rule, so every tool stops at elaboration (Icarus 11 has no elaboration $fatal)
    generate
        if (WIDTH < 1) begin : g_bad_width
            skid_buffer_parameter_error_WIDTH_must_be_at_least_1 u_stop ();
        end
    endgenerate

    reg             o_valid;
    reg [WIDTH-1:0] o_data;
    reg             skid_valid;
    reg [WIDTH-1:0] skid_data;

    // Ready while the skid slot is empty: a beat accepted while the output stalls lands there.
    assign in_ready = !skid_valid;
    assign out_valid = o_valid;
    assign out_data  = o_data;

    wire out_free = !o_valid || out_ready;

    always @(posedge clk) begin
        if (rst) begin
            o_valid  <= 1'b0;
            skid_valid <= 1'b0;
        end else if (out_free) begin
            // Skid slot drains first (in_ready was low, so no new beat this cycle).
            o_valid  <= skid_valid || in_valid;
            skid_valid <= 1'b0;
        end else if (in_valid && !skid_valid) begin
            skid_valid <= 1'b1;
        end
    end

    always @(posedge clk) begin
        if (out_free) begin
            if (skid_valid)   o_data <= skid_data;
            else if (in_valid) o_data <= in_data;
        end
        if (!out_free && in_valid && !skid_valid) skid_data <= in_data;
    end
endmodule
`default_nettype wire
