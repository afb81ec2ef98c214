# rxbisect — two commands on a fresh Debian 12 machine:
#   make run    install what is missing, build, run the main job
#   make test   install what is missing, build, run every test
# Other targets: build, demo (ring library only), lint, bench (bench-reference: keep its figures),
# fuzz (long libFuzzer run), clean.

JOBS    ?= $(shell nproc)
BUILD   ?= build
CMAKE   := cmake -G Ninja
FUZZ_SECONDS ?= 600
# The emulator and the driver must build (scripts/deps.sh installs DPDK and jansson): OFF builds
# the rest without them where DPDK cannot be installed (their tests then do not run).
REQUIRE_EMU ?= ON
# ctest's limit for a test that sets no TIMEOUT of its own (ctest's default is 1500 s)
CTEST   := ctest --output-on-failure --timeout 300

.PHONY: all demo deps pmd-install build build-debug build-tsan build-tsan-pmd build-asan build-fuzz run test test-c test-tsan \
        test-asan test-fuzz test-py lint bench bench-reference fuzz clean

all: build

deps:
	@bash scripts/deps.sh

build: deps
	@$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRXB_BUILD_SIM=ON -DRXB_BUILD_EMU=ON \
	   -DRXB_REQUIRE_EMU=$(REQUIRE_EMU) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

build-debug: deps
	@$(CMAKE) -S . -B build-debug -DCMAKE_BUILD_TYPE=Debug -DRXB_REQUIRE_EMU=$(REQUIRE_EMU) >/dev/null
	@cmake --build build-debug -j $(JOBS)

build-tsan: deps
	@$(CMAKE) -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DRXB_SANITIZE=thread -DRXB_BUILD_EMU=OFF >/dev/null
	@cmake --build build-tsan -j $(JOBS)

build-asan: deps
	@$(CMAKE) -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DRXB_SANITIZE=address -DRXB_BUILD_EMU=ON \
	   -DRXB_REQUIRE_EMU=$(REQUIRE_EMU) >/dev/null
	@cmake --build build-asan -j $(JOBS)

build-fuzz: deps
	@CC=clang $(CMAKE) -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DRXB_FUZZ=ON -DBUILD_TESTING=OFF \
	   -DRXB_BUILD_EMU=OFF -DRXB_BUILD_SIM=OFF >/dev/null
	@cmake --build build-fuzz -j $(JOBS)

# The main job: the study's headline experiments (quick variants), their report, a reading
# on the terminal (python/rxbisect/study/headline.py; `python -m rxbisect.study --full` for the rest).
run: build
	@.venv/bin/python -m rxbisect.study results/study

# net_rxbisect where DPDK accepts a driver path (-d refuses world-writable folders); prints
# the -d argument to give testpmd or any DPDK application (docs/pmd.md).
pmd-install: build
	@bash scripts/pmd-install.sh $(BUILD)

demo: build
	@$(BUILD)/tools/rxb-demo

# Every suite to the end, then a summary of what passed and failed (scripts/test-all.sh).
test: deps
	@bash scripts/test-all.sh

# The model check (ctest label model) checks the protocol, not a build: it runs once, in $(BUILD).
test-c: build build-debug
	@cd $(BUILD) && $(CTEST) -j $(JOBS)
	@cd build-debug && $(CTEST) -j $(JOBS) -LE model

# net_rxbisect's testpmd tests again, with the AddressSanitizer build of the driver
# (preloaded into Debian's testpmd).
test-asan: build-asan
	@cd build-asan && $(CTEST) -j $(JOBS) -LE model
	@RXB_PMD_BUILD=build-asan RXB_PMD_ASAN=1 .venv/bin/python -m pytest -q tests/python/test_pmd.py \
	   tests/python/test_pmd_devargs.py tests/python/test_pmd_flows.py tests/python/test_pmd_nic_threads.py

# net_rxbisect is concurrent code too (NIC thread, queues' lcores, control): its
# testpmd tests with the ThreadSanitizer build of the driver preloaded.
build-tsan-pmd: deps
	@$(CMAKE) -S . -B build-tsan-pmd -DCMAKE_BUILD_TYPE=Debug -DRXB_SANITIZE=thread -DRXB_BUILD_EMU=ON \
	   -DRXB_BUILD_SIM=OFF -DBUILD_TESTING=OFF >/dev/null
	@cmake --build build-tsan-pmd -j $(JOBS) --target rte_net_rxbisect rxb-emu

test-tsan: build-tsan build-tsan-pmd
	@cd build-tsan && TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" $(CTEST) -L concurrent
	@RXB_PMD_BUILD=build-tsan-pmd RXB_PMD_TSAN=1 .venv/bin/python -m pytest -q tests/python/test_pmd.py \
	   tests/python/test_pmd_nic_threads.py
	@bash tests/tsan_emu.sh build-tsan-pmd

test-fuzz: build-fuzz
	@bash tests/fuzz/run.sh build-fuzz 60

# The house style, by tools: clang-format for C, ruff and mypy for Python (scripts/lint.sh).
lint: deps
	@bash scripts/lint.sh

test-py: build
	@.venv/bin/python -m pytest -q tests/python

# Benchmarks write to $(BENCH_OUT); the tracked reference figures in bench/results change only
# through the explicit `make bench-reference`, which copies the last run there.
BENCH_OUT ?= $(BUILD)/bench-results
bench: build
	@export RXB_BENCH_RESULTS=$(BENCH_OUT); bash bench/run.sh $(BUILD) && bash bench/sim_bench.sh $(BUILD) \
	  && bash bench/emu_bench.sh $(BUILD) && RXB_EMU_CG_OUT=$(BENCH_OUT)/emu_callgrind.json \
	  bash bench/emu_callgrind.sh $(BUILD) && .venv/bin/python bench/emu_scale.py --build $(BUILD) \
	  && PMD_BENCH_NIC_THREADS=1,2,4 bash bench/pmd_bench.sh $(BUILD)
	@echo "bench: results in $(BENCH_OUT) (make bench-reference copies them to bench/results)"

# The files one whole `make bench` writes: a run cut short leaves some missing, and copying
# what is there would mix new figures with old ones in bench/results.
BENCH_FILES := rings.json rss.json callgrind.txt sim.json emu.json emu_callgrind.json \
               emu_scale.json pmd.json
bench-reference:
	@test -d $(BENCH_OUT) || { echo "bench-reference: no $(BENCH_OUT); run make bench first" >&2; exit 1; }
	@for f in $(BENCH_FILES); do test -f $(BENCH_OUT)/$$f || { \
	  echo "bench-reference: $(BENCH_OUT)/$$f is missing (make bench did not finish it, or skipped it); nothing copied" >&2; \
	  exit 1; }; done
	@for f in $(BENCH_FILES); do ! grep -qs '"complete": false' $(BENCH_OUT)/$$f || { \
	  echo "bench-reference: $(BENCH_OUT)/$$f is partial (its run was cut short); nothing copied" >&2; \
	  exit 1; }; done
	@cd $(BENCH_OUT) && cp -v $(BENCH_FILES) $(CURDIR)/bench/results/

fuzz: build-fuzz
	@bash tests/fuzz/run.sh build-fuzz $(FUZZ_SECONDS)

clean:
	rm -rf build build-debug build-tsan build-tsan-pmd build-asan build-fuzz
