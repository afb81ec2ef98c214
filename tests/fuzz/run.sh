#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the libFuzzer targets of a fuzz build for a while.
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET]
# BUILD_DIR comes from `make build-fuzz` (CC=clang, -DRXB_FUZZ=ON). The corpus
# grows in BUILD_DIR/fuzz/corpus/TARGET (seeded from tests/fuzz/seeds on the
# first run, kept across runs); crashes, leaks and timeouts are written to
# BUILD_DIR/fuzz/artifacts/TARGET/ and the full log to BUILD_DIR/fuzz/TARGET.log.
# Exits non-zero when the fuzzer found a problem (or could not run), and
# prints one summary line either way. Extra libFuzzer flags: RXB_FUZZ_FLAGS.
# See docs/fuzzing.md.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 BUILD_DIR SECONDS [TARGET]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
target=${3:-fuzz_iface}
here=$(cd "$(dirname "$0")" && pwd)
bin=$build/tests/fuzz/$target
work=$build/fuzz
corpus=$work/corpus/$target
artifacts=$work/artifacts/$target
log=$work/$target.log

if [ ! -x "$bin" ]; then
	echo "$target: FAIL: $bin not built (make build-fuzz, or CC=clang cmake -DRXB_FUZZ=ON)" >&2
	exit 2
fi
mkdir -p "$corpus" "$artifacts"
# A writable copy of the seeds: libFuzzer adds what it finds to the first
# corpus directory, and the checked-in seeds stay as they are.
cp -n "$here"/seeds/* "$corpus"/ 2>/dev/null || true

count_artifacts() { find "$artifacts" -type f | wc -l; }
before=$(count_artifacts)

start=$SECONDS
set +e
# -timeout: one input running this long is a hang (an unbounded loop).
# -rss_limit_mb: 2 GiB, the default, stated so a long run stays within it.
"$bin" "$corpus" \
	-max_total_time="$seconds" -print_final_stats=1 -max_len=2048 -timeout=10 \
	-rss_limit_mb=2048 -artifact_prefix="$artifacts/" ${RXB_FUZZ_FLAGS:-} \
	>"$log" 2>&1
rc=$?
set -e
elapsed=$((SECONDS - start))
# With -fork=N -ignore_crashes=1 libFuzzer may exit 0 after recording crashes.
if [ $rc -eq 0 ] && [ "$(count_artifacts)" -gt "$before" ]; then
	rc=1
fi

runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
summary="${elapsed} of ${seconds} s, ${runs:-?} runs (${speed:-?} exec/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
if [ $rc -eq 0 ]; then
	echo "$target: OK: $summary (log $log)"
	exit 0
fi
crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
if [ -z "$crash" ]; then
	crash=$(ls -t "$artifacts"/* 2>/dev/null | head -1 || true)
fi
echo "--- last lines of $log ---"
tail -n 40 "$log"
echo "$target: FAIL (exit $rc): $summary; input ${crash:-none written}; reproduce: $bin ${crash:-<input>}"
exit 1
