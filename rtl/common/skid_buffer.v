// Two-entry skid buffer: full throughput, and both s_ready and m_valid come from flops, so it
// cuts the combinational ready path between producer and consumer.
module skid_buffer #(
    parameter integer WIDTH = 8
) (
    input  wire             clk,
    input  wire             rst,
    input  wire             s_valid,
    output wire             s_ready,
    input  wire [WIDTH-1:0] s_data,
    output wire             m_valid,
    input  wire             m_ready,
    output wire [WIDTH-1:0] m_data
);
    reg             out_valid;
    reg [WIDTH-1:0] out_data;
    reg             skid_valid;
    reg [WIDTH-1:0] skid_data;

    // Ready while the skid slot is empty: a beat accepted while the output stalls lands there.
    assign s_ready = !skid_valid;
    assign m_valid = out_valid;
    assign m_data  = out_data;

    wire out_free = !out_valid || m_ready;

    always @(posedge clk) begin
        if (rst) begin
            out_valid  <= 1'b0;
            skid_valid <= 1'b0;
        end else if (out_free) begin
            // Skid slot drains first (s_ready was low, so no new beat this cycle).
            out_valid  <= skid_valid || s_valid;
            skid_valid <= 1'b0;
        end else if (s_valid && !skid_valid) begin
            skid_valid <= 1'b1;
        end
    end

    always @(posedge clk) begin
        if (out_free) begin
            if (skid_valid)   out_data <= skid_data;
            else if (s_valid) out_data <= s_data;
        end
        if (!out_free && s_valid && !skid_valid) skid_data <= s_data;
    end
endmodule
