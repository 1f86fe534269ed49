// Functions shared by the soak HDL (test-only; tb/link/hdl, tb/switch/hdl), included inside a
// module body.

// xorshift64 step: per-cycle random draws
function automatic [63:0] soak_xs(input [63:0] v);
    reg [63:0] x;
    begin
        x = v ^ (v << 13);
        x = x ^ (x >> 7);
        soak_xs = x ^ (x << 17);
    end
endfunction

// murmur3 64-bit finalizer: message content as a hash of (seed, flow, sequence number)
function automatic [63:0] soak_mix64(input [63:0] v);
    reg [63:0] x;
    begin
        x = v ^ (v >> 33);
        x = x * 64'hFF51AFD7ED558CCD;
        x = x ^ (x >> 33);
        x = x * 64'hC4CEB9FE1A85EC53;
        soak_mix64 = x ^ (x >> 33);
    end
endfunction
