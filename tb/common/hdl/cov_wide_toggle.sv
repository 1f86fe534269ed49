`default_nettype none
// Test-only: a 128-bit register in which only bit 70 ever changes (five times each way), for the
// check that toggle coverage counts each bit of a signal wider than 64 bits on its own
// (tools/runner.fix_cov_header; tests/test_verif_tools.py::test_coverage_wide_toggle_counted_per_bit).
module cov_wide_toggle;
    logic         clk = 1'b0;
    logic [127:0] r = '0;
    int           n = 0;
    always #1 clk = ~clk;
    always @(posedge clk) begin
        r[70] <= ~r[70];
        n <= n + 1;
        if (n == 9) $finish;
    end
endmodule
