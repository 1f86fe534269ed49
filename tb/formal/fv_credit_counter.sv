// Formal environment for rtl/common/credit_counter.v (tools/formal.py, tb/formal/README.md).
// Free inputs every cycle; reset in the first cycle. A ghost counter of the credits granted minus
// the credits consumed (one bit wider than the counter) is the reference.
//   - no underflow: a take is granted only with credit; a take while empty changes nothing but err
//   - no overflow: the count never wraps; it saturates at all-ones only when the true sum exceeds it
//   - conservation: until the first saturation, count == INIT + sum(add) - sum(granted takes)
//   - avail == (count != 0); err is sticky and set exactly by a take while empty
module fv_credit_counter #(
    parameter integer     WIDTH = 4,
    parameter [WIDTH-1:0] INIT  = 4'd5
) (
    input wire             clk,
    input wire             rst,
    input wire [WIDTH-1:0] add,
    input wire             take
);
    wire             avail;
    wire [WIDTH-1:0] count;
    wire             err;

    credit_counter #(.WIDTH(WIDTH), .INIT(INIT)) dut (
        .clk(clk), .rst(rst), .add(add), .take(take), .avail(avail), .count(count), .underflow(err));

    localparam [WIDTH:0] MAX = {1'b0, {WIDTH{1'b1}}};

    reg started = 1'b0;        // a reset has been applied
    always @(posedge clk) started <= started | rst;
    always @* if (!started) assume (rst);

    // reference: granted credits minus consumed ones, and whether the counter ever saturated
    reg [WIDTH:0] ghost;
    reg           saturated;
    reg           err_ref;
    wire          take_ok = take && (ghost != {(WIDTH+1){1'b0}});
    wire [WIDTH+1:0] next_true = {1'b0, ghost} + {2'b0, add} - {{(WIDTH+1){1'b0}}, take_ok};
    always @(posedge clk) begin
        if (rst) begin
            ghost     <= {1'b0, INIT};
            saturated <= 1'b0;
            err_ref   <= 1'b0;
        end else begin
            ghost     <= (next_true > {1'b0, MAX}) ? MAX : next_true[WIDTH:0];
            saturated <= saturated || (next_true > {1'b0, MAX});
            err_ref   <= err_ref || (take && ghost == {(WIDTH+1){1'b0}});
        end
    end

    // previous-cycle values for the step properties
    reg [WIDTH-1:0] p_count, p_add;
    reg             p_take, p_valid;
    always @(posedge clk) begin
        p_count <= count;
        p_add   <= add;
        p_take  <= take;
        p_valid <= started && !rst;
    end
    wire [WIDTH+1:0] p_sum = {2'b0, p_count} + {2'b0, p_add} -
                             {{(WIDTH+1){1'b0}}, p_take && p_count != {WIDTH{1'b0}}};

    always @* begin
        if (started && !rst) begin
            assert (avail == (count != {WIDTH{1'b0}}));
            assert (err == err_ref);
            assert ({1'b0, count} == ghost);      // credits conserved (exact until saturation)
        end
        if (p_valid && started && !rst) begin
            // no underflow: a take on an empty counter leaves it as `add` makes it
            if (p_take && p_count == {WIDTH{1'b0}}) assert (count == p_add);
            // no overflow: never wraps, saturates only above all-ones
            if (p_sum > {1'b0, MAX}) assert (count == {WIDTH{1'b1}});
            else                     assert ({2'b0, count} == p_sum);
        end
    end

    // the interesting cases are reachable within the bound
    always @* if (started && !rst) begin
        cover (saturated && count == {WIDTH{1'b1}});
        cover (err && count != {WIDTH{1'b0}});
    end
endmodule
