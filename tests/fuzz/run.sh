#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the fuzz targets of a fuzz build for a while.
#   tests/fuzz/run.sh BUILD_DIR SECONDS [TARGET]
# BUILD_DIR comes from `make build-fuzz` (CC=clang, -DRXB_FUZZ=ON). Without
# TARGET every target runs, one after the other, and SECONDS is shared out
# (fuzz_iface keeps most of it, see SHARE below); with TARGET only that one
# runs, for SECONDS. Targets: fuzz_iface, fuzz_pcap, fuzz_simcfg, fuzz_calib
# (libFuzzer, in BUILD_DIR/tests/fuzz) and fuzz_profile (atheris, run with
# .venv/bin/python; skipped with a note when atheris is not installed).
# Each corpus grows in BUILD_DIR/fuzz/corpus/TARGET (seeded from
# tests/fuzz/seeds on the first run, kept across runs); crashes, leaks and
# timeouts are written to BUILD_DIR/fuzz/artifacts/TARGET/ and the full log
# to BUILD_DIR/fuzz/TARGET.log. Prints one summary line per target and exits
# non-zero when a fuzzer found a problem (or could not run). Extra libFuzzer
# flags: RXB_FUZZ_FLAGS. See docs/fuzzing.md.
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 BUILD_DIR SECONDS [TARGET]" >&2
	exit 2
fi
build=$(cd "$1" && pwd)
seconds=$2
only=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
python=${RXB_FUZZ_PYTHON:-$root/.venv/bin/python}

# Share of SECONDS (percent) of each target when all run; fuzz_iface gets
# what the others leave. Each gets at least 2 s.
TARGETS="fuzz_iface fuzz_pcap fuzz_simcfg fuzz_calib fuzz_profile"
declare -A SHARE=([fuzz_pcap]=14 [fuzz_simcfg]=14 [fuzz_calib]=6 [fuzz_profile]=10)
# Seeds (a directory, or files matching a glob), longest input, dictionary.
declare -A SEEDS=([fuzz_iface]="$here/seeds/*.bin" [fuzz_pcap]="$here/seeds/pcap/*"
	[fuzz_simcfg]="$here/seeds/simcfg/*" [fuzz_calib]="$here/seeds/calib/*"
	[fuzz_profile]="$here/seeds/profile/*")
declare -A MAXLEN=([fuzz_iface]=2048 [fuzz_pcap]=8192 [fuzz_simcfg]=8192 [fuzz_calib]=8192
	[fuzz_profile]=8192)
declare -A DICT=([fuzz_simcfg]="$here/simcfg.dict" [fuzz_calib]="$here/simcfg.dict"
	[fuzz_profile]="$here/profile.dict")

# run_one TARGET SECONDS: one summary line; returns non-zero on a finding.
run_one() {
	local target=$1 secs=$2
	local work=$build/fuzz
	local corpus=$work/corpus/$target artifacts=$work/artifacts/$target log=$work/$target.log
	local -a cmd

	case $target in
	fuzz_profile)
		if ! "$python" -c "import atheris" 2>/dev/null; then
			echo "$target: SKIP: atheris is not installed in $python" \
				"(.venv/bin/pip install atheris; docs/fuzzing.md)"
			return 0
		fi
		cmd=("$python" "$here/fuzz_profile.py")
		;;
	fuzz_iface | fuzz_pcap | fuzz_simcfg | fuzz_calib)
		cmd=("$build/tests/fuzz/$target")
		if [ ! -x "${cmd[0]}" ]; then
			echo "$target: FAIL: ${cmd[0]} not built (make build-fuzz, or CC=clang cmake" \
				"-DRXB_FUZZ=ON)" >&2
			return 2
		fi
		;;
	*)
		echo "$target: FAIL: no such target (one of: $TARGETS)" >&2
		return 2
		;;
	esac
	mkdir -p "$corpus" "$artifacts"
	# A writable copy of the seeds: libFuzzer adds what it finds to the
	# first corpus directory, and the checked-in seeds stay as they are.
	# shellcheck disable=SC2086
	cp -n ${SEEDS[$target]} "$corpus"/ 2>/dev/null || true
	local dict=()
	[ -n "${DICT[$target]:-}" ] && dict=(-dict="${DICT[$target]}")

	local before start rc elapsed
	before=$(find "$artifacts" -type f | wc -l)
	start=$SECONDS
	set +e
	# -timeout: one input running this long is a hang (an unbounded loop).
	# -rss_limit_mb: 2 GiB, the default, stated so a long run stays within it.
	# stdin is /dev/null: nothing a target reads may wait for a terminal.
	# shellcheck disable=SC2086
	"${cmd[@]}" "$corpus" \
		-max_total_time="$secs" -print_final_stats=1 -max_len="${MAXLEN[$target]}" \
		-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$artifacts/" "${dict[@]}" \
		${RXB_FUZZ_FLAGS:-} </dev/null >"$log" 2>&1
	rc=$?
	set -e
	elapsed=$((SECONDS - start))
	# With -fork=N -ignore_crashes=1 libFuzzer may exit 0 after recording crashes.
	if [ $rc -eq 0 ] && [ "$(find "$artifacts" -type f | wc -l)" -gt "$before" ]; then
		rc=1
	fi

	local runs speed cov ft corp summary crash
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
	corp=$(grep -o 'corp: [0-9]*' "$log" | tail -1 | cut -d' ' -f2 || true)
	summary="${elapsed} of ${secs} s, ${runs:-?} runs (${speed:-?} exec/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}"
	if [ $rc -eq 0 ]; then
		echo "$target: OK: $summary (log $log)"
		return 0
	fi
	crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
	if [ -z "$crash" ]; then
		crash=$(ls -t "$artifacts"/* 2>/dev/null | head -1 || true)
	fi
	echo "--- last lines of $log ---"
	tail -n 40 "$log"
	echo "$target: FAIL (exit $rc): $summary; input ${crash:-none written}; reproduce: ${cmd[*]} ${crash:-<input>}"
	return 1
}

if [ -n "$only" ]; then
	run_one "$only" "$seconds"
	exit $?
fi

status=0
declare -A secs
left=$seconds
for t in $TARGETS; do
	[ "$t" = fuzz_iface ] && continue
	secs[$t]=$((seconds * ${SHARE[$t]} / 100))
	[ "${secs[$t]}" -lt 2 ] && secs[$t]=2
	left=$((left - ${secs[$t]}))
done
secs[fuzz_iface]=$((left < 2 ? 2 : left))
for t in $TARGETS; do
	run_one "$t" "${secs[$t]}" || status=1
done
exit $status
