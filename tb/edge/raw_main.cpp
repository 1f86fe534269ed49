// Bare C++ driver of a Verilated top: clock only, no Python, no VPI. It measures the speed limit of
// the co-simulation (sim/cosim/build.py builds it; bench `cosim.raw_cycles_per_second`).
// Usage: <binary> [cycles]   -> one line of JSON: cycles, wall and CPU seconds, cycles per wall / CPU second
// The design is held in reset for 8 cycles, then clocked `cycles` times with every other input at 0.
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "Vtop.h"
#include "verilated.h"

double sc_time_stamp() { return 0; }

int main(int argc, char** argv) {
    const unsigned long long cycles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000ULL;
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    auto top = std::make_unique<Vtop>(ctx.get());
    top->clk = 0;
    top->rst = 1;
    for (int i = 0; i < 8; ++i) {
        top->clk = 1; top->eval();
        top->clk = 0; top->eval();
    }
    top->rst = 0;
    const auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    for (unsigned long long i = 0; i < cycles; ++i) {
        top->clk = 1; top->eval();
        top->clk = 0; top->eval();
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    top->final();
    std::printf("{\"cycles\": %llu, \"seconds\": %.6f, \"cpu_seconds\": %.6f, \"cycles_per_second\": %.1f, "
                "\"cycles_per_cpu_second\": %.1f}\n", cycles, s, cpu, s > 0 ? cycles / s : 0.0,
                cpu > 0 ? cycles / cpu : 0.0);
    return 0;
}
